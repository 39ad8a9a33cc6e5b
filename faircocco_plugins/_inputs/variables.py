"""Validation of user inputs and their conversion to typed columns.

Every variable of the measure (predictions, sensitive attributes, true outcomes) becomes a
:class:`Variable`: a block of numeric columns in the caller's array namespace (so torch inputs stay
differentiable) and a block of integer codes for nominal columns (bool, categorical, string), which
get a delta kernel. Nothing is coerced silently: NaN, infinities, wrong shapes, wrong lengths and
wrong types raise errors that name the argument and, where there is one, the column.

Row-wise inputs pair by position, except pandas inputs, which :func:`align_by_index` pairs by
label (refusing inputs without an index beside pandas inputs in different orders); numbers
stored as text are read as labels, with a warning that says how to declare them.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping, Sequence, Sized
from dataclasses import dataclass
from typing import Any

import array_api_compat
import numpy as np
import pandas as pd

from .._linalg.backend import host_array, namespace

#: The label of the report's row of all attributes together.
JOINT_ROW = "joint"


@dataclass(frozen=True)
class Variable:
    """One variable of the measure, split into numeric and nominal columns.

    ``numeric`` is an ``(n, p)`` floating array in the computation namespace (``None`` when
    ``p == 0``); ``codes`` is an ``(n, q)`` int64 numpy array of level codes for nominal columns
    (``None`` when ``q == 0``), with ``levels[j]`` the level values of nominal column ``j``.
    """

    argument: str
    numeric: Any
    numeric_names: tuple[str, ...]
    codes: np.ndarray | None
    nominal_names: tuple[str, ...]
    levels: tuple[np.ndarray, ...]
    #: all column names in the caller's order
    names: tuple[str, ...]

    @property
    def n(self) -> int:
        if self.numeric is not None:
            return int(self.numeric.shape[0])
        assert self.codes is not None
        return int(self.codes.shape[0])

    def is_constant(self) -> bool:
        """Whether every column holds a single value."""
        if self.codes is not None and np.any(self.codes != self.codes[:1]):
            return False
        return self.numeric is None or bool(self.numeric_is_constant())

    def numeric_is_constant(self) -> Any:
        """Whether every numeric column holds a single value, as a 0-d array where the columns
        are (not read: on an accelerator the device route reads it with its other results)."""
        xp = namespace(self.numeric)
        return xp.all(xp.max(self.numeric, axis=0) == xp.min(self.numeric, axis=0))

    def select(self, name: str) -> Variable:
        """The variable restricted to the single column ``name``."""
        if name in self.numeric_names:
            j = self.numeric_names.index(name)
            return Variable(
                self.argument, self.numeric[:, j : j + 1], (name,), None, (), (), (name,)
            )
        j = self.nominal_names.index(name)
        assert self.codes is not None
        return Variable(
            self.argument, None, (), self.codes[:, j : j + 1], (name,), (self.levels[j],), (name,)
        )


def is_array_api_obj(value: object) -> bool:
    return array_api_compat.is_array_api_obj(value) and not isinstance(value, np.ndarray)


def to_variable(
    value: object, argument: str, reference: Any, *, check_finite: bool = True
) -> Variable:
    """Validate ``value`` and convert it to a :class:`Variable`.

    Numeric columns go to the namespace of ``reference`` (numpy when it is ``None``) as float64,
    or as the reference's floating dtype when it is a float64 tensor; nominal columns become
    codes on the host. With ``check_finite=False`` the numeric columns of an array or tensor
    are not checked for NaN: the caller checks them with :class:`FiniteCheck`.
    """
    if value is None:
        raise ValueError(f"{argument} is required.")
    if isinstance(value, np.ndarray | list | tuple):
        value = as_array(value, argument)
    if reference is None and not isinstance(value, np.ndarray) and is_array_api_obj(value):
        value = host_array(value)  # a tensor beside numpy predictions: computed with numpy
    if (isinstance(value, np.ndarray) and value.dtype.kind in "fiu") or is_array_api_obj(value):
        # arrays of numbers need no per-column dtype dispatch: skip the DataFrame
        return _array_variable(value, argument, reference, check_finite)
    frame = as_frame(value, argument)
    if frame.shape[0] == 0:
        raise ValueError(f"{argument} is empty; at least 2 rows are needed.")
    if frame.shape[1] == 0:
        raise ValueError(f"{argument} has no columns.")
    check_unique_names(frame.columns, argument)
    numeric_cols: list[np.ndarray] = []
    numeric_names: list[str] = []
    codes: list[np.ndarray] = []
    nominal_names: list[str] = []
    levels: list[np.ndarray] = []
    for name in frame.columns:
        column = frame[name]
        label = str(name)
        if is_nominal(column):
            column_codes, column_levels = _nominal_codes(column, argument, label)
            codes.append(column_codes)
            levels.append(column_levels)
            nominal_names.append(label)
        elif pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_complex_dtype(
            column.dtype
        ):
            values = column.to_numpy(dtype=np.float64, na_value=np.nan)
            _check_finite(values, argument, label)
            numeric_cols.append(values)
            numeric_names.append(label)
        else:
            raise TypeError(
                f"{argument} column {label!r} has dtype {column.dtype}; expected numbers, "
                "booleans, strings or a pandas categorical."
            )
    numeric = None
    if numeric_cols:
        block = np.stack(numeric_cols, axis=1)
        numeric = _to_reference(block, reference)
    return Variable(
        argument,
        numeric,
        tuple(numeric_names),
        np.stack(codes, axis=1) if codes else None,
        tuple(nominal_names),
        tuple(levels),
        tuple(str(name) for name in frame.columns),
    )


def check_unique_names(columns: pd.Index, argument: str) -> None:
    """Refuse column names that are equal as text: columns are known by their names as text,
    so 1 and ``"1"`` would be one column.

    Raises
    ------
    ValueError
        Naming ``argument`` and the repeated names.
    """
    names = columns.map(str)
    duplicated = names[names.duplicated()]
    if len(duplicated):
        raise ValueError(
            f"{argument} has duplicate column names {sorted(set(duplicated))}; "
            "rename or drop the copies so that each column has one name."
        )


def as_array(value: np.ndarray | list[Any] | tuple[Any, ...], argument: str) -> np.ndarray:
    """``value`` as a numpy array, refusing what numpy would misread or fail on unnamed.

    A masked array with masked entries raises (numpy would drop the mask and read the masked
    values as data); one with nothing masked is its data. A list of rows of different lengths
    raises, naming ``argument``, where numpy's message names none.

    Parameters
    ----------
    value : numpy.ndarray, list or tuple
        Values, or rows of values.
    argument : str
        The argument's name, for messages.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    TypeError
        A masked array with masked entries.
    ValueError
        Rows of different lengths.

    Examples
    --------
    >>> from faircocco_plugins.plugins import as_array
    >>> as_array([[1, 2], [3, 4]], "sensitive_features").shape
    (2, 2)
    """
    if isinstance(value, np.ma.MaskedArray):
        masked = int(np.ma.count_masked(value))
        if masked:
            raise TypeError(
                f"{argument} is a numpy masked array with {masked} masked entries, whose mask "
                "would be ignored; fill them (.filled(value)) or drop the masked rows from "
                "every input first."
            )
        return np.ma.getdata(value)
    try:
        return np.asarray(value)
    except ValueError:
        lengths = sorted({_row_length(row) for row in value})
        if len(lengths) < 2:
            raise
        raise ValueError(
            f"{argument} has rows of different lengths ({_listed([str(n) for n in lengths])} "
            "values); give every row the same number of values, or pass a DataFrame."
        ) from None


def _row_length(row: Any) -> int:
    """The number of values in one row of a list: 1 for a single value."""
    return len(row) if isinstance(row, Sized) and not isinstance(row, str | bytes) else 1


def align_by_index(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Row-wise arguments with their pandas inputs paired by label.

    When two or more arguments are pandas Series or DataFrames, each is compared with the first
    of them (in the order of ``arguments``): equal indexes pair rows as given; the same unique
    labels in another order are reordered to the first one's order; other labels, or repeated
    labels, raise. Inputs that are not pandas objects (arrays, lists, tensors) pair by position,
    which is ambiguous when the pandas inputs beside them were in different orders: that raises.

    Parameters
    ----------
    arguments : mapping of str to object
        Argument names (for messages) and values, the reference first, e.g. ``{"y_pred": ...,
        "sensitive_features": ..., "y_true": ...}``; ``None`` values are skipped.

    Returns
    -------
    dict of str to object
        The same arguments, with pandas inputs reordered to the first pandas input's index.

    Raises
    ------
    ValueError
        Two pandas inputs of the same length whose indexes hold different labels, or repeat a
        label, and are not equal (inputs of different lengths are left to the length check);
        or an input without labels beside pandas inputs in different orders.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.plugins import align_by_index
    >>> pred = pd.Series([0.1, 0.9], index=["ann", "bob"])
    >>> group = pd.Series(["m", "f"], index=["bob", "ann"])
    >>> aligned = align_by_index({"y_pred": pred, "sensitive_features": group})
    >>> aligned["sensitive_features"].to_dict()
    {'ann': 'f', 'bob': 'm'}
    """
    aligned = dict(arguments)
    framed = [(k, v) for k, v in arguments.items() if isinstance(v, pd.Series | pd.DataFrame)]
    if len(framed) < 2:
        return aligned
    first_argument, first = framed[0]
    for argument, value in framed[1:]:
        aligned[argument] = _aligned_to(first.index, first_argument, value, argument)
    if any(aligned[argument] is not value for argument, value in framed[1:]):
        _refuse_positional(arguments, [argument for argument, _ in framed])
    return aligned


def _refuse_positional(arguments: Mapping[str, Any], framed: list[str]) -> None:
    """Refuse inputs without labels beside pandas inputs (``framed``) that were reordered."""
    positional = [k for k, v in arguments.items() if v is not None and k not in framed]
    if not positional:
        return
    names, pandas_names = _listed(positional), _listed(framed)
    is_, follows = ("is", "follows") if len(positional) == 1 else ("are", "follow")
    raise ValueError(
        f"{names} {is_} positional (no index) but the pandas inputs {pandas_names} are in "
        f"different row orders, so which order {names} {follows} is ambiguous; call "
        f".reset_index(drop=True) on {pandas_names} if all rows are in the order of {names}, "
        f"or pass {names} as a pandas Series or DataFrame with the index of its rows."
    )


def _listed(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _aligned_to(
    index: pd.Index, index_argument: str, value: pd.Series | pd.DataFrame, argument: str
) -> pd.Series | pd.DataFrame:
    """``value`` with its rows in the order of ``index`` (see :func:`align_by_index`)."""
    if value.index.equals(index) or len(value.index) != len(index):
        return value
    fix = (
        f"give {index_argument} and {argument} the same index, or call "
        ".reset_index(drop=True) on both to pair their rows by position."
    )
    for name, labels in ((index_argument, index), (argument, value.index)):
        if not labels.is_unique:
            repeated = _plain(labels[labels.duplicated()][0])
            raise ValueError(
                f"{index_argument} and {argument} have different pandas indexes, and that of "
                f"{name} repeats labels (e.g. {repeated!r}), so rows cannot be paired by label; "
                + fix
            )
    positions = (
        value.index.get_indexer(index)
        if value.index.nlevels == index.nlevels
        else np.full(len(index), -1)
    )
    if np.any(positions < 0):
        missing = _plain(index[positions < 0][0])
        raise ValueError(
            f"{index_argument} and {argument} have pandas indexes with different labels "
            f"(e.g. {missing!r} is in the index of {index_argument} only); " + fix
        )
    if np.array_equal(positions, np.arange(len(index))):
        return value  # equal labels in the same order, in indexes of other types
    return value.iloc[positions]


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds, for messages: ``0``, not ``np.int64(0)``."""
    return value.item() if isinstance(value, np.generic) else value


def computation_reference(y_pred: Any) -> Any:
    """The array whose namespace and device every input is computed in: ``y_pred`` when it is
    a tensor (so the result stays differentiable in it), else ``None`` (numpy)."""
    return y_pred if is_array_api_obj(y_pred) else None


def report_labels(names: Sequence[str]) -> list[str]:
    """The report's row label of each attribute: its name, unless that labels an earlier row.

    The first row, :data:`JOINT_ROW`, is all attributes together; an attribute whose name is
    taken (an attribute named ``"joint"``) is labelled ``sensitive_features['joint']``, as
    often as needed for a label of its own.
    """
    taken = {JOINT_ROW}
    labels = []
    for name in names:
        label = name
        while label in taken:
            label = f"sensitive_features[{label!r}]"
        taken.add(label)
        labels.append(label)
    return labels


def check_level_combinations(variables: Sequence[Variable], limit: int, advice: str) -> None:
    """Refuse nominal columns of ``variables`` (the inputs of one kernel) with more than
    ``limit`` level combinations, naming the columns and what to do."""
    blocks = [(v, v.codes) for v in variables if v.codes is not None]
    if not blocks or math.prod(len(lv) for v, _ in blocks for lv in v.levels) <= limit:
        return  # the upper bound is enough: no search for the combinations
    combined = np.concatenate([codes for _, codes in blocks], axis=1)
    n_combinations = np.unique(combined, axis=0).shape[0]
    if n_combinations <= limit:
        return
    columns = ", ".join(
        f"{v.argument} column {name!r} ({len(lv)} levels)"
        for v, _ in blocks
        for name, lv in zip(v.nominal_names, v.levels, strict=True)
    )
    raise ValueError(
        f"too many level combinations for the low-rank estimator ({n_combinations}, more than "
        f"the {limit} it factors exactly) in {columns}. A column of numbers "
        "stored as text or objects is continuous: pass it as numbers (.astype(float)). "
        "For labels, merge rare levels first (for example keep the "
        f"{limit - 1} most frequent and put the rest in one level 'other'). {advice}"
    )


def check_lengths(variables: list[Variable]) -> int:
    """Check that all variables have the same number of rows (at least 2) and return it."""
    n = variables[0].n
    for variable in variables[1:]:
        if variable.n != n:
            raise ValueError(
                f"{variables[0].argument} has {n} rows but {variable.argument} has "
                f"{variable.n} rows; they must have the same length."
            )
    if n < 2:
        raise ValueError(f"{variables[0].argument} has {n} row(s); at least 2 rows are needed.")
    return n


def is_nominal(column: pd.Series) -> bool:
    """Whether a column gets the delta kernel: bool, categorical (pandas, or a pyarrow
    dictionary), string or object dtype.

    Numeric columns, integers included, get a Gaussian kernel.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins import is_nominal
    >>> is_nominal(pd.Series(["f", "m"])), is_nominal(pd.Series([0, 1]))
    (True, False)
    """
    dtype = column.dtype
    return bool(
        pd.api.types.is_bool_dtype(dtype)
        or is_categorical(dtype)
        or pd.api.types.is_string_dtype(dtype)
        or pd.api.types.is_object_dtype(dtype)
    )


def is_categorical(dtype: Any) -> bool:
    """Whether ``dtype`` declares labels: a pandas categorical or a pyarrow dictionary."""
    if isinstance(dtype, pd.CategoricalDtype):
        return True
    if isinstance(dtype, pd.ArrowDtype):
        import pyarrow as pa  # installed wherever an ArrowDtype exists

        return bool(pa.types.is_dictionary(dtype.pyarrow_dtype))
    return False


def _nominal_codes(column: pd.Series, argument: str, label: str) -> tuple[np.ndarray, np.ndarray]:
    """The int64 level codes of a nominal column and its sorted levels, after
    :func:`check_labels`."""
    check_labels(column, argument, label)
    column_codes, column_levels = pd.factorize(column, sort=True)
    levels = np.asarray(column_levels)
    if not is_categorical(column.dtype) and _are_numbers(levels):
        _warn_numbers_as_labels(column, levels, argument, label)
    return column_codes.astype(np.int64), levels


def check_labels(column: pd.Series, argument: str, label: str) -> None:
    """Check that a nominal column's values can be levels: present, hashable and of one kind.

    Strings mixed with other values, or booleans mixed with numbers, would each become levels
    of their own (``True`` the same level as ``1``): both are refused.

    Parameters
    ----------
    column : pandas.Series
        A column that :func:`is_nominal` accepts.
    argument, label : str
        The argument's and the column's names, for messages.

    Raises
    ------
    ValueError
        Missing values, or values of several kinds.
    TypeError
        Values that cannot be levels (lists, dicts, arrays).

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.plugins import check_labels
    >>> check_labels(pd.Series(["f", "m"]), "sensitive_features", "sex")
    """
    if column.isna().any():
        raise ValueError(
            f"{argument} column {label!r} contains missing values; impute or drop those rows first."
        )
    kind = pd.api.types.infer_dtype(column, skipna=False)  # one pass over an object column
    _check_hashable(column, kind, argument, label)
    _check_one_kind(column, kind, argument, label)


def _check_hashable(column: pd.Series, kind: str, argument: str, label: str) -> None:
    """Lists, dicts or arrays in an object column cannot be levels: refuse them by name."""
    if kind not in ("mixed", "mixed-integer"):
        return  # strings, numbers, booleans... are hashable; a list infers as a mixed kind
    for value in column:
        try:
            hash(value)
        except TypeError:
            raise TypeError(
                f"{argument} column {label!r} holds values of type {type(value).__name__} "
                f"(e.g. {value!r}), which cannot be labels; give each row one number or one "
                "string (for example join a list into a string, or split it into columns)."
            ) from None


_NUMBER_KINDS = ("integer", "floating", "mixed-integer-float", "decimal")


def _are_numbers(levels: np.ndarray) -> bool:
    """Whether the levels of a nominal column are all numbers, or all text that reads as one
    (``"43"``, ``"1.5e3"``), but not booleans."""
    if levels.dtype.kind in "iuf":
        return True
    kind = pd.api.types.infer_dtype(levels, skipna=False)
    if kind in _NUMBER_KINDS:
        return True
    if kind != "string":
        return False
    return bool(pd.to_numeric(pd.Series(levels), errors="coerce").notna().all())


def _warn_numbers_as_labels(
    column: pd.Series, levels: np.ndarray, argument: str, label: str
) -> None:
    examples = ", ".join(repr(_plain(v)) for v in levels[:3])
    warnings.warn(
        f"{argument} column {label!r} holds numbers stored as {column.dtype} ({len(levels)} "
        f"distinct values, e.g. {examples}), read as labels, each value a level of its own. "
        "Declare what it is: .astype(float) for a continuous attribute, or "
        ".astype('category') for labels (which silences this warning).",
        UserWarning,
        stacklevel=2,
    )


def _check_one_kind(column: pd.Series, kind: str, argument: str, label: str) -> None:
    """An object column that mixes strings with numbers (``"unknown"`` among ages, or ``"f"``,
    ``"m"`` and ``1``) would silently become one level per value, and one that mixes booleans
    with numbers too (where ``True`` and ``1`` would be one level): refuse them."""
    if kind not in ("mixed", "mixed-integer"):
        return
    is_text = column.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
    if is_text.all() or not is_text.any():
        _check_no_booleans_among_numbers(column, argument, label)
        return  # e.g. tuples: hashable levels of one kind
    text, other = column[is_text].unique(), column[~is_text].unique()
    raise ValueError(
        f"{argument} column {label!r} mixes strings ({len(text)} distinct, e.g. "
        f"{[str(v) for v in text[:3]]}) with other values ({len(other)} distinct, e.g. "
        f"{[v.item() if hasattr(v, 'item') else v for v in other[:3]]}); as it is, every value "
        "would be a level of its own. Convert it to one type first: numbers with "
        "pd.to_numeric(column, errors='coerce') and the rows that become NaN dropped or "
        "imputed, or labels with column.astype(str)."
    )


def _check_no_booleans_among_numbers(column: pd.Series, argument: str, label: str) -> None:
    is_bool = column.map(lambda v: isinstance(v, bool | np.bool_)).to_numpy(dtype=bool)
    if not is_bool.any():
        return
    is_number = column.map(lambda v: isinstance(v, numbers.Number)).to_numpy(dtype=bool)
    numbers_among = column[is_number & ~is_bool].unique()
    if not len(numbers_among):
        return
    raise ValueError(
        f"{argument} column {label!r} mixes booleans with numbers (e.g. "
        f"{[_plain(v) for v in numbers_among[:3]]}); as it is, each number would be a level of "
        "its own and True the same level as 1. Convert it to one type first: .astype(float) "
        "for numbers, or .astype(str) for labels."
    )


def as_frame(value: object, argument: str) -> pd.DataFrame:
    """``value`` as a DataFrame with one column per column of the variable, each of the dtype
    the score reads it by (:func:`is_nominal`).

    A DataFrame is itself; a Series is its one column, under its name (``argument`` without
    one); a pandas array (a Categorical, a nullable or pyarrow array) is one column named
    ``argument``; a numpy array or a list (of values, or of rows) is one column named
    ``argument``, or ``argument[j]`` for each of several.

    Parameters
    ----------
    value : DataFrame, Series, pandas array, numpy array, list or tuple
        The variable (tensors are the caller's to copy to numpy first).
    argument : str
        The argument's name, for column names and messages.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    TypeError
        Another type, an array of another dtype (dates, complex numbers), or a masked array
        with masked entries.
    ValueError
        An array of more than two dimensions, or rows of different lengths.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.plugins import as_frame
    >>> list(as_frame(pd.Categorical(["f", "m"]), "sensitive_features").columns)
    ['sensitive_features']
    >>> list(as_frame([[1.0, "f"], [2.0, "m"]], "sensitive_features").columns)
    ['sensitive_features[0]', 'sensitive_features[1]']
    """
    if isinstance(value, pd.DataFrame):
        return value
    if isinstance(value, pd.Series):
        return value.to_frame(name=value.name if value.name is not None else argument)
    if isinstance(value, pd.api.extensions.ExtensionArray):  # e.g. a pandas Categorical
        return pd.DataFrame({argument: value})
    if isinstance(value, np.ndarray | list | tuple):
        array = as_array(value, argument)
        if array.ndim == 1:
            array = array[:, None]
        if array.ndim != 2:
            raise ValueError(f"{argument} must be 1-D or 2-D; got an array of shape {array.shape}.")
        if array.dtype.kind not in "biufOUS":
            raise TypeError(
                f"{argument} has dtype {array.dtype}; expected numbers, booleans or strings."
            )
        names = (
            [argument]
            if array.shape[1] == 1
            else [f"{argument}[{j}]" for j in range(array.shape[1])]
        )
        if array.dtype.kind == "O":
            return pd.DataFrame({name: array[:, j] for j, name in enumerate(names)})
        return pd.DataFrame(array, columns=names)
    raise TypeError(
        f"{argument} must be a numpy array, a pandas Series, DataFrame or Categorical, a list "
        f"or a torch tensor; got {type(value).__name__}."
    )


def _array_variable(value: Any, argument: str, reference: Any, check_finite: bool) -> Variable:
    """A tensor, or a numpy array of numbers: numeric columns (bool tensors: nominal 0/1)."""
    xp = namespace(value)
    if value.ndim == 1:
        value = value[:, None] if isinstance(value, np.ndarray) else xp.reshape(value, (-1, 1))
    if value.ndim != 2:
        raise ValueError(
            f"{argument} must be 1-D or 2-D; got an array of shape {tuple(value.shape)}."
        )
    if value.shape[0] == 0:
        raise ValueError(f"{argument} is empty; at least 2 rows are needed.")
    if value.shape[1] == 0:
        raise ValueError(f"{argument} has no columns.")
    names = array_names(argument, value.shape[1])
    if value.dtype == xp.bool:
        host = np.asarray(array_api_compat.to_device(value, "cpu")).astype(np.int64)
        levels = tuple(np.array([0, 1]) for _ in names)
        return Variable(argument, None, (), host, names, levels, names)
    # numpy arrays (every training batch's host copies) take numpy's own checks, several times
    # cheaper than the array API's generic ones
    if isinstance(value, np.ndarray):
        numbers = value.dtype.kind in "fiu"
    else:
        numbers = xp.isdtype(value.dtype, ("real floating", "integral"))
    if not numbers:
        raise TypeError(f"{argument} has dtype {value.dtype}; expected real or integer numbers.")
    numeric = _to_reference(value, reference)
    variable = Variable(argument, numeric, names, None, (), (), names)
    # numpy arrays take numpy's own test, as above
    if check_finite and not (isinstance(numeric, np.ndarray) and np.isfinite(numeric).all()):
        FiniteCheck([variable]).read()
    return variable


class FiniteCheck:
    """Whether the numeric columns of ``variables`` hold only finite values, computed where
    they are (:attr:`flags`, one per column) and read later: on an accelerator a read waits for
    the device, so the device route reads the flags with its other small results, in one copy,
    rather than once per argument."""

    def __init__(self, variables: Sequence[Variable]) -> None:
        numeric = [v for v in variables if v.numeric is not None]
        self._labels = [(v.argument, name) for v in numeric for name in v.numeric_names]
        xp = namespace(*(v.numeric for v in numeric))
        self.flags = xp.concat([xp.all(xp.isfinite(v.numeric), axis=0) for v in numeric])
        self._done = False

    def read(self, flags: Any = None) -> None:
        """Raise the ValueError of the first column with NaN or infinite values.

        ``flags`` is :attr:`flags` already on the host; without it they are read here. Read
        once: later calls return at once.
        """
        if self._done:
            return
        if flags is None:
            flags = array_api_compat.to_device(self.flags, "cpu")
        self._done = True
        bad = np.flatnonzero(~np.asarray(flags, dtype=bool))
        if bad.size:
            _raise_not_finite(*self._labels[bad[0]])


def array_names(argument: str, width: int) -> tuple[str, ...]:
    """The column names of an array argument: the argument's, indexed when it has several."""
    return (argument,) if width == 1 else tuple(f"{argument}[{j}]" for j in range(width))


def _to_reference(block: Any, reference: Any) -> Any:
    """Move a numeric block to the reference namespace/device; compute in float64."""
    if reference is None:
        return np.asarray(block, dtype=np.float64)
    xp = namespace(reference)
    device = array_api_compat.device(reference)
    if isinstance(block, np.ndarray):
        return xp.asarray(block, dtype=xp.float64, device=device)
    block = xp.astype(block, xp.float64)
    # moved only from another device (a move to the same device is a call for nothing)
    return (
        block
        if array_api_compat.device(block) == device
        else array_api_compat.to_device(block, device)
    )


def _check_finite(values: np.ndarray, argument: str, label: str) -> None:
    if not np.all(np.isfinite(values)):
        _raise_not_finite(argument, label)


def _raise_not_finite(argument: str, label: str) -> None:
    raise ValueError(
        f"{argument} column {label!r} contains NaN or infinite values; "
        "impute or drop those rows first."
    )
