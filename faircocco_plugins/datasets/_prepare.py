"""Check a loader's table and give it the registry's types.

One rule for every dataset, built-in or not: features become one float32 block (nominal columns
one-hot, bool columns 0/1, numbers as they are), the outcome becomes 0/1 integers or floats, and
sensitive attributes keep their raw types (bool or category for binary and categorical
attributes, float64 for continuous ones). Missing values anywhere are an error naming the column.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._inputs.variables import is_nominal
from ._dataset import Task
from ._source import AttributeKind, LoadedTable

#: dtype of the feature block: the precision models train in, half the memory of float64.
FEATURE_DTYPE = np.float32
#: Largest feature block built: beyond it, one-hot encoding is the wrong representation.
MAX_FEATURE_BYTES = 2 * 2**30


def prepare(
    table: object, *, name: str, task: Task, attributes: Mapping[str, AttributeKind]
) -> LoadedTable:
    """Check and convert the table a loader returned for dataset ``name``."""
    if not isinstance(table, tuple) or len(table) not in (3, 4):
        raise TypeError(
            f"the loader of dataset {name!r} returned {type(table).__name__}; expected a "
            "tuple (X, y, sensitive) or (X, y, sensitive, test_mask)."
        )
    X, y, sensitive = table[0], table[1], table[2]
    test = table[3] if len(table) == 4 else None
    _check_sensitive_outside(X, sensitive, name)
    features = encode_features(X, f"dataset {name!r}: X")
    n = len(features)
    outcome = _outcome(y, task, f"dataset {name!r}: y", n)
    groups = _attributes(sensitive, attributes, f"dataset {name!r}: sensitive", n)
    return LoadedTable(features, outcome, groups, _test_mask(test, f"dataset {name!r}", n))


def encode_features(X: object, what: str) -> pd.DataFrame:
    """``X`` as one float32 block: nominal columns one-hot (``"column=level"``), bool 0/1."""
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame; got {type(X).__name__}.")
    if X.shape[1] == 0:
        raise ValueError(f"{what} has no columns.")
    if not X.columns.is_unique:
        raise ValueError(f"{what} has duplicated column names.")
    names: list[str] = []
    blocks: list[tuple[int, np.ndarray, np.ndarray | None]] = []  # (offset, values, codes)
    for column_name in X.columns:
        column = X[column_name]
        label = str(column_name)
        if pd.api.types.is_bool_dtype(column.dtype):
            _check_no_missing(column, what, label)
            blocks.append((len(names), column.to_numpy(dtype=FEATURE_DTYPE), None))
            names.append(label)
        elif is_nominal(column):
            _check_no_missing(column, what, label)
            codes, levels = pd.factorize(column, sort=True)
            blocks.append((len(names), np.empty(0), codes))
            names.extend(f"{label}={level}" for level in levels)
        elif pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_complex_dtype(
            column.dtype
        ):
            values = column.to_numpy(dtype=np.float64, na_value=np.nan)
            if not np.all(np.isfinite(values)):
                raise ValueError(f"{what} column {label!r} contains missing or infinite values.")
            blocks.append((len(names), values.astype(FEATURE_DTYPE), None))
            names.append(label)
        else:
            raise TypeError(
                f"{what} column {label!r} has dtype {column.dtype}; expected numbers, booleans, "
                "strings or a pandas categorical."
            )
    if len(set(names)) != len(names):
        raise ValueError(f"{what}: one-hot encoding gives duplicated column names.")
    size = len(X) * len(names) * np.dtype(FEATURE_DTYPE).itemsize
    if size > MAX_FEATURE_BYTES:
        widest = max(
            (c for c in X.columns if is_nominal(X[c]) and not pd.api.types.is_bool_dtype(X[c])),
            key=lambda c: X[c].nunique(),
            default=None,
        )
        culprit = (
            ""
            if widest is None
            else f" (column {str(widest)!r} alone has {X[widest].nunique():,} levels)"
        )
        raise ValueError(
            f"{what} would one-hot encode into {len(names):,} columns{culprit}, "
            f"{size / 2**30:.1f} GiB for {len(X):,} rows, more than the "
            f"{MAX_FEATURE_BYTES / 2**30:.0f} GiB allowed; merge rare levels or drop such "
            "columns before registering."
        )
    # Filled in place: one allocation, and the frame wraps the block without copying it.
    block = np.zeros((len(X), len(names)), dtype=FEATURE_DTYPE)
    rows = np.arange(len(X))
    for offset, values, level_codes in blocks:
        if level_codes is None:
            block[:, offset] = values
        else:
            block[rows, offset + level_codes] = 1.0
    return pd.DataFrame(block, columns=pd.Index(names), copy=False)


def positive_outcome(y: object, pos_label: Any, name: str) -> pd.Series:
    """``y == pos_label`` for a binary outcome of any label type."""
    series = _as_series(y, f"dataset {name!r}: y")
    labels = pd.unique(series.dropna())
    if pos_label not in set(labels.tolist()):
        raise ValueError(
            f"dataset {name!r}: pos_label={pos_label!r} is not a label of y; its labels are "
            f"{sorted(map(str, labels))[:10]}."
        )
    if len(labels) > 2:
        raise ValueError(
            f"dataset {name!r}: y has {len(labels)} labels; a classification dataset has two "
            f"(e.g. {sorted(map(str, labels))[:5]})."
        )
    _check_no_missing(series, f"dataset {name!r}: y", str(series.name or "y"))
    return series == pos_label


def _outcome(y: object, task: Task, what: str, n: int) -> pd.Series:
    series = _as_series(y, what)
    if len(series) != n:
        raise ValueError(f"{what} has {len(series)} rows but X has {n}; they must match.")
    name = series.name if series.name is not None else "y"
    if task == "classification":
        if pd.api.types.is_bool_dtype(series.dtype):
            _check_no_missing(series, what, str(name))
            return pd.Series(series.to_numpy(dtype=np.int64), name=name)
        if not pd.api.types.is_numeric_dtype(series.dtype):
            labels = sorted(map(str, pd.unique(series.dropna())))
            raise ValueError(
                f"{what} has labels {labels[:5]}; pass pos_label= (the label that means 1) to "
                "register_dataset, or give 0/1 numbers or bools."
            )
        values = _numbers(series, what)
        if set(np.unique(values).tolist()) == {-1.0, 1.0}:
            values = (values == 1.0).astype(np.float64)  # -1/1 labels: 1 is positive
        if not np.isin(values, (0.0, 1.0)).all():
            raise ValueError(
                f"{what} must hold only 0 and 1 for a classification dataset; got values "
                f"{sorted(set(np.unique(values).tolist()) - {0.0, 1.0})[:5]}."
            )
        if np.unique(values).size < 2:
            raise ValueError(
                f"{what} holds only the class {int(values[0])}; a classification dataset needs "
                "both classes."
            )
        return pd.Series(values.astype(np.int64), name=name)
    return pd.Series(_numbers(series, what), name=name)


def _attributes(
    sensitive: object, attributes: Mapping[str, AttributeKind], what: str, n: int
) -> pd.DataFrame:
    if isinstance(sensitive, pd.Series):
        sensitive = sensitive.to_frame()
    if not isinstance(sensitive, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame; got {type(sensitive).__name__}.")
    if len(sensitive) != n:
        raise ValueError(f"{what} has {len(sensitive)} rows but X has {n}; they must match.")
    present = [str(c) for c in sensitive.columns]
    if sorted(present) != sorted(attributes):
        raise ValueError(
            f"{what} has columns {present}; expected the declared attributes {list(attributes)}."
        )
    columns: dict[str, Any] = {}
    for label, kind in attributes.items():
        column = sensitive[label]
        _check_no_missing(column, what, label)
        if column.nunique() < 2:
            raise ValueError(
                f"{what} column {label!r} has a single value ({column.iloc[0]!r}); an attribute "
                "must vary to be protected: drop it from the attributes."
            )
        if kind == "continuous":
            columns[label] = _numbers(column, f"{what} column {label!r}")
            continue
        if kind == "binary" and pd.api.types.is_bool_dtype(column.dtype):
            columns[label] = column.to_numpy(dtype=bool)
            continue
        values = column.to_numpy()
        categorical = (
            column.array
            if isinstance(column.dtype, pd.CategoricalDtype)
            else pd.Categorical(values)
        )
        if kind == "binary" and column.nunique() > 2:
            raise ValueError(
                f"{what} column {label!r} is declared binary but has {column.nunique()} levels."
            )
        columns[label] = categorical
    return pd.DataFrame(columns)


def _check_sensitive_outside(X: object, sensitive: object, name: str) -> None:
    """The registry keeps sensitive attributes out of the features (a model may still be given
    them on purpose, by the user, after loading)."""
    if not isinstance(X, pd.DataFrame) or not isinstance(sensitive, pd.DataFrame | pd.Series):
        return  # the type checks below name the argument
    names = [sensitive.name] if isinstance(sensitive, pd.Series) else list(sensitive.columns)
    inside = [str(c) for c in names if c in X.columns]
    if inside:
        raise ValueError(
            f"dataset {name!r}: X has the sensitive attribute columns {inside}; drop them from X "
            "(the registry keeps sensitive attributes apart from the features)."
        )


def _test_mask(test: object, what: str, n: int) -> np.ndarray | None:
    if test is None:
        return None
    mask = np.asarray(test)
    if mask.dtype != bool or mask.shape != (n,):
        raise ValueError(
            f"{what}: the test mask must be a boolean array of shape ({n},); got dtype "
            f"{mask.dtype} and shape {mask.shape}."
        )
    if not mask.any() or (~mask).sum() < 2:
        raise ValueError(
            f"{what}: the test mask must mark at least one row and leave at least two rows "
            "for training and validation."
        )
    return mask


def _as_series(values: object, what: str) -> pd.Series:
    if isinstance(values, pd.Series):
        return values.reset_index(drop=True)
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional; got shape {array.shape}.")
    return pd.Series(array)


def _numbers(series: pd.Series, what: str) -> np.ndarray:
    if pd.api.types.is_bool_dtype(series.dtype) or not pd.api.types.is_numeric_dtype(series.dtype):
        raise TypeError(f"{what} has dtype {series.dtype}; expected numbers.")
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{what} contains missing or infinite values.")
    return values


def _check_no_missing(column: pd.Series, what: str, label: str) -> None:
    if column.isna().any():
        raise ValueError(f"{what} column {label!r} contains missing values.")
