"""The paper's DEO and DI columns with fairlearn's metric signature."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from faircocco_plugins.gaps import disparate_impacts, equal_opportunity_differences
from faircocco_plugins.plugins import align_by_index

from ._metrics import _frame, _table


def difference_of_equal_opportunity(y_true: Any, y_pred: Any, *, sensitive_features: Any) -> float:
    """DEO: the largest gap in true-positive rates between the groups of any attribute.

    The FairCOCCO paper's column: groups are the levels of a binary or categorical attribute
    and the halves of a continuous one split at its median; the value is the largest
    :func:`faircocco_plugins.gaps.equal_opportunity_gap` over the attributes (per attribute:
    :func:`faircocco_plugins.gaps.equal_opportunity_differences`).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Binary labels (0 and 1, or bools).
    sensitive_features : DataFrame, Series or array
        The attributes, of any mix of types. Pandas inputs pair by label as in
        :func:`faircocco_metric`.

    Returns
    -------
    float
        NaN when no attribute has two groups with a positive outcome.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_fairlearn import difference_of_equal_opportunity
    >>> people = pd.DataFrame({"sex": ["f", "f", "m", "m"], "age": [20.0, 60.0, 30.0, 50.0]})
    >>> difference_of_equal_opportunity([1, 1, 1, 1], [1, 1, 1, 0], sensitive_features=people)
    0.5
    """
    rows = _rows(y_true, y_pred, sensitive_features)
    truth, pred = _binary(rows["y_true"], "y_true"), _binary(rows["y_pred"], "y_pred")
    gaps = equal_opportunity_differences(truth, pred, rows["sensitive_features"]).dropna()
    return float(gaps.max()) if len(gaps) else math.nan


def disparate_impact_ratio(y_true: Any, y_pred: Any, *, sensitive_features: Any) -> float:
    """DI: the lowest ratio of positive-prediction rates between the groups of any attribute.

    Groups, and the pairing of pandas inputs, as for :func:`difference_of_equal_opportunity`;
    1 means equal rates. ``y_true`` is not used (fairlearn's signature) beyond that pairing.

    Returns
    -------
    float
        In [0, 1].
    """
    rows = _rows(y_true, y_pred, sensitive_features)
    pred = _binary(rows["y_pred"], "y_pred")
    return float(disparate_impacts(pred, rows["sensitive_features"]).min())


def _rows(y_true: Any, y_pred: Any, sensitive_features: Any) -> dict[str, Any]:
    """The inputs with their pandas rows paired by label, the attributes numbered by position
    (the outcomes reach the core as arrays, in the same order)."""
    rows = align_by_index(
        {"y_true": y_true, "y_pred": y_pred, "sensitive_features": _frame(sensitive_features)}
    )
    return {**rows, "sensitive_features": _table(rows["sensitive_features"])}


def _binary(values: Any, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D binary labels; got shape {array.shape}.")
    if array.dtype == bool:
        return array
    if array.dtype.kind not in "iuf" or not np.isin(array, (0, 1)).all():
        raise ValueError(
            f"{name} must hold binary labels 0 and 1 (or bools); got values such as "
            f"{np.unique(array)[:5].tolist()}."
        )
    return array.astype(bool)
