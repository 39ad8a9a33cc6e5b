"""Sensitive attributes of mixed types as one float tensor, encoded alike in every batch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch

from faircocco_plugins import is_nominal
from faircocco_plugins.plugins import as_frame, check_labels, kind_from_levels


@dataclass(frozen=True)
class AttributeSpec:
    """One sensitive attribute and the encoded columns that hold it.

    Parameters
    ----------
    name : str
        The attribute's column name.
    kind : {"binary", "categorical", "continuous"}
        ``"binary"``: one 0/1 column; ``"categorical"``: one 0/1 column per level (one-hot);
        ``"continuous"``: one numeric column.
    columns : tuple of int
        Indices of its columns in the encoded tensor.
    levels : tuple
        The levels of a nominal attribute, in code order (empty for numeric attributes).
    """

    name: str
    kind: str
    columns: tuple[int, ...]
    levels: tuple[Any, ...] = ()


@dataclass(frozen=True)
class SensitiveSchema:
    """The layout of an encoded sensitive tensor: which columns hold which attribute.

    Penalties that treat attributes one at a time (FACL, FARMI, covariance, linear loss) read it
    to keep the one-hot columns of a categorical attribute together; pass it as ``schema=``.

    Parameters
    ----------
    attributes : tuple of AttributeSpec
        The attributes, in the order of their columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_torch import SensitiveEncoder
    >>> table = pd.DataFrame({"race": ["a", "b", "c"], "age": [20, 30, 40]})
    >>> encoder = SensitiveEncoder().fit(table)
    >>> [(a.name, a.kind, a.columns) for a in encoder.schema_.attributes]
    [('race', 'categorical', (0, 1, 2)), ('age', 'continuous', (3,))]
    """

    attributes: tuple[AttributeSpec, ...]

    @property
    def width(self) -> int:
        """Number of columns of the encoded tensor."""
        return sum(len(a.columns) for a in self.attributes)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kind of each attribute."""
        return tuple(a.kind for a in self.attributes)


@dataclass(frozen=True)
class _Column:
    name: str
    nominal: bool
    levels: tuple[Any, ...]
    mean: float
    scale: float
    kind: str


class SensitiveEncoder:
    """Encode sensitive attributes of mixed types as one float tensor, the same way every batch.

    Fit it once on the training table; it remembers which columns are nominal and their levels,
    and the mean and scale of numeric columns. ``transform`` then gives every batch (and the
    validation and test sets) the same float tensor layout:

    * a numeric column becomes one column, standardised with the training mean and standard
      deviation (when ``standardize``);
    * a nominal column with two levels becomes one 0/1 column (1 for the second level in sorted
      order), with more levels one 0/1 column per level (one-hot), with one level a column of 0.

    Columns are nominal when they are bool, categorical (pandas, or a pyarrow dictionary),
    string or object, or named in ``nominal``. Integer columns are numbers, as in the core
    package: list integer-coded groups in ``nominal``. Under FairCOCCO's product kernel each 0/1
    column gets a Gaussian kernel of bandwidth 1, so a one-hot block is a Gaussian on the
    one-hot vector, a characteristic kernel on the levels.

    Parameters
    ----------
    nominal : sequence of str or int, optional
        Columns to treat as nominal whatever their dtype (names, or positions for arrays).
    standardize : bool
        Standardise numeric columns with the training mean and standard deviation.
    dtype : torch.dtype
        Floating dtype of the encoded tensor.

    Attributes
    ----------
    schema_ : SensitiveSchema
        Which encoded columns hold which attribute, and its kind.
    feature_names_in_ : numpy.ndarray
        The input column names.
    feature_names_out_ : list of str
        Names of the encoded columns (``"race=b"`` for a level's indicator).

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_torch import SensitiveEncoder
    >>> train = pd.DataFrame({"sex": ["f", "m", "m"], "age": [20.0, 40.0, 60.0]})
    >>> encoder = SensitiveEncoder().fit(train)
    >>> encoder.transform(train)
    tensor([[ 0.0000, -1.2247],
            [ 1.0000,  0.0000],
            [ 1.0000,  1.2247]])
    >>> encoder.feature_names_out_
    ['sex=m', 'age']
    """

    def __init__(
        self,
        *,
        nominal: Sequence[str | int] | None = None,
        standardize: bool = True,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        self.nominal = nominal
        self.standardize = standardize
        self.dtype = dtype

    def fit(self, sensitive_features: Any) -> SensitiveEncoder:
        """Learn the columns' types, levels and scales.

        Parameters
        ----------
        sensitive_features : DataFrame, Series, array-like or tensor of shape (n,) or (n, d)
            The training table of sensitive attributes.

        Returns
        -------
        SensitiveEncoder
            ``self``.

        Raises
        ------
        ValueError
            For missing or infinite values, a nominal column that mixes strings or booleans
            with numbers, rows of different lengths, or an empty table.
        TypeError
            For a column of an unsupported dtype (dates, complex numbers), or a numpy masked
            array with masked entries.
        """
        frame = _as_frame(sensitive_features)
        if frame.shape[0] == 0:
            raise ValueError("sensitive_features is empty; at least one row is needed to fit.")
        forced = self._forced_nominal(frame)
        columns: list[_Column] = []
        for name in frame.columns:
            series = frame[name]
            label = str(name)
            if label in forced or is_nominal(series):
                check_labels(series, "sensitive_features", label)
                levels = tuple(pd.unique(series))
                try:
                    levels = tuple(sorted(levels))
                except TypeError:
                    levels = tuple(sorted(levels, key=str))
                kind = kind_from_levels(len(levels), nominal=True)
                columns.append(_Column(label, True, levels, 0.0, 1.0, kind))
            else:
                values = _numeric_values(series, label)
                mean, scale = 0.0, 1.0
                if self.standardize:
                    mean = float(values.mean())
                    std = float(values.std())
                    scale = std if std > 0 else 1.0
                kind = kind_from_levels(np.unique(values).size, nominal=False)
                columns.append(_Column(label, False, (), mean, scale, kind))
        self._columns = tuple(columns)
        self.feature_names_in_ = np.asarray([str(c) for c in frame.columns], dtype=object)
        self.n_features_in_ = len(columns)
        specs: list[AttributeSpec] = []
        names_out: list[str] = []
        start = 0
        for column in columns:
            width = len(column.levels) if column.kind == "categorical" else 1
            specs.append(
                AttributeSpec(
                    column.name, column.kind, tuple(range(start, start + width)), column.levels
                )
            )
            if column.kind == "categorical":
                names_out.extend(f"{column.name}={level}" for level in column.levels)
            elif column.nominal and len(column.levels) == 2:
                names_out.append(f"{column.name}={column.levels[1]}")
            else:
                names_out.append(column.name)
            start += width
        self.schema_ = SensitiveSchema(tuple(specs))
        self.feature_names_out_ = names_out
        return self

    def transform(self, sensitive_features: Any) -> torch.Tensor:
        """Encode a table with the fitted layout.

        Parameters
        ----------
        sensitive_features : DataFrame, Series, array-like or tensor of shape (n,) or (n, d)
            A table with the training columns (same names for DataFrames, same count otherwise).

        Returns
        -------
        torch.Tensor of shape (n, schema_.width)

        Raises
        ------
        ValueError
            For a nominal level not seen in ``fit`` (naming the column and the levels), missing
            values, or columns that do not match the training table.
        """
        if not hasattr(self, "schema_"):
            raise ValueError("This SensitiveEncoder is not fitted yet; call fit first.")
        frame = _as_frame(sensitive_features)
        frame = self._match_columns(frame)
        blocks: list[np.ndarray] = []
        for column, name in zip(self._columns, frame.columns, strict=True):
            series = frame[name]
            if column.nominal:
                check_labels(series, "sensitive_features", column.name)
                blocks.append(_encode_levels(series, column))
            else:
                values = _numeric_values(series, column.name)
                blocks.append(((values - column.mean) / column.scale)[:, None])
        encoded = np.concatenate(blocks, axis=1) if blocks else np.zeros((len(frame), 0))
        return torch.as_tensor(encoded, dtype=self.dtype)

    def fit_transform(self, sensitive_features: Any) -> torch.Tensor:
        """Fit, then encode the same table.

        Parameters
        ----------
        sensitive_features : DataFrame, Series, array-like or tensor
            The training table.

        Returns
        -------
        torch.Tensor of shape (n, schema_.width)
        """
        return self.fit(sensitive_features).transform(sensitive_features)

    def _forced_nominal(self, frame: pd.DataFrame) -> set[str]:
        if self.nominal is None:
            return set()
        names = [str(c) for c in frame.columns]
        forced = set()
        for item in self.nominal:
            if isinstance(item, int | np.integer) and not isinstance(item, bool):
                if not 0 <= item < len(names):
                    raise ValueError(
                        f"nominal={list(self.nominal)!r} names column position {item}, but "
                        f"sensitive_features has {len(names)} columns."
                    )
                forced.add(names[item])
            elif str(item) in names:
                forced.add(str(item))
            else:
                raise ValueError(
                    f"nominal={list(self.nominal)!r} names column {item!r}, which "
                    f"sensitive_features does not have; its columns are {names}."
                )
        return forced

    def _match_columns(self, frame: pd.DataFrame) -> pd.DataFrame:
        expected = list(self.feature_names_in_)
        names = [str(c) for c in frame.columns]
        if frame.shape[1] != len(expected):
            raise ValueError(
                f"sensitive_features has {frame.shape[1]} columns but the encoder was fitted "
                f"on {len(expected)} ({expected})."
            )
        if set(names) == set(expected):
            frame = frame.copy()
            frame.columns = names
            return frame[expected]
        if not (_generated(names) or _generated(expected)):
            # both sides are named: pairing such columns by position would be a guess
            raise ValueError(
                f"sensitive_features has columns {names} but the encoder was fitted on "
                f"{expected}; pass the columns it was fitted on (in any order), or an array "
                "to pair them by position."
            )
        return frame


def numeric_units(encoder: SensitiveEncoder) -> dict[str, tuple[float, float]]:
    """Each numeric attribute's mean and scale, by name: what gives back its raw values."""
    return {c.name: (c.mean, c.scale) for c in encoder._columns if not c.nominal}


def _generated(names: list[str]) -> bool:
    """Whether column names are those :func:`_as_frame` gives an array's columns."""
    return names == ["sensitive_features"] or names == [
        f"sensitive_features[{j}]" for j in range(len(names))
    ]


def _as_frame(value: Any) -> pd.DataFrame:
    """The columns of ``sensitive_features`` as the score reads them (a tensor's on the host)."""
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    return as_frame(value, "sensitive_features")


def _numeric_values(column: pd.Series, label: str) -> np.ndarray:
    dtype = column.dtype
    if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_complex_dtype(dtype):
        raise TypeError(
            f"sensitive_features column {label!r} has dtype {dtype}; expected numbers, "
            "booleans, strings or a pandas categorical."
        )
    values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    if not np.all(np.isfinite(values)):
        raise ValueError(
            f"sensitive_features column {label!r} contains NaN or infinite values; impute or "
            "drop those rows first."
        )
    return values


def _encode_levels(series: pd.Series, column: _Column) -> np.ndarray:
    values = series.to_numpy(dtype=object)
    codes = np.full(values.shape[0], -1, dtype=np.int64)
    for code, level in enumerate(column.levels):
        codes[values == level] = code
    unknown = codes < 0
    if unknown.any():
        seen = sorted({str(v) for v in values[unknown]})
        raise ValueError(
            f"sensitive_features column {column.name!r} has levels {seen} that were not seen "
            f"in fit; the known levels are {[str(level) for level in column.levels]}."
        )
    if column.kind == "categorical":
        return np.eye(len(column.levels))[codes]
    return (codes == 1).astype(np.float64)[:, None]
