"""The paper's DEO and DI columns with fairlearn's metric signature."""

from __future__ import annotations

import math
from typing import Any

from faircocco_plugins.gaps import disparate_impacts, equal_opportunity_differences
from faircocco_plugins.plugins import align_by_index, positive_labels

from ._metrics import _frame, _table


def difference_of_equal_opportunity(
    y_true: Any, y_pred: Any, *, sensitive_features: Any, pos_label: Any = None
) -> float:
    """DEO: the largest gap in true-positive rates between the groups of any attribute.

    The FairCOCCO paper's column: groups are the levels of a binary or categorical attribute
    and the halves of a continuous one split at its median; the value is the largest
    :func:`faircocco_plugins.gaps.equal_opportunity_gap` over the attributes (per attribute:
    :func:`faircocco_plugins.gaps.equal_opportunity_differences`).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Binary labels: 0/1, -1/1 or booleans, or two labels of which ``pos_label`` is the
        positive one. Scores and probabilities are refused: threshold them first.
    sensitive_features : DataFrame, Series or array
        The attributes, of any mix of types. Pandas inputs pair by label as in
        :func:`faircocco_metric`.
    pos_label : int, float, bool or str, optional
        The positive label, as in scikit-learn; needed unless the labels are 0/1, -1/1 or
        booleans.

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
    positive = positive_labels({"y_true": rows["y_true"], "y_pred": rows["y_pred"]}, pos_label)
    truth, pred = positive["y_true"], positive["y_pred"]
    gaps = equal_opportunity_differences(truth, pred, rows["sensitive_features"]).dropna()
    return float(gaps.max()) if len(gaps) else math.nan


def disparate_impact_ratio(
    y_true: Any, y_pred: Any, *, sensitive_features: Any, pos_label: Any = None
) -> float:
    """DI: the lowest ratio of positive-prediction rates between the groups of any attribute.

    Groups, labels, ``pos_label`` and the pairing of pandas inputs as for
    :func:`difference_of_equal_opportunity`; 1 means equal rates. ``y_true`` is not used
    (fairlearn's signature) beyond that pairing.

    Returns
    -------
    float
        In [0, 1]; NaN when no attribute has two groups.
    """
    rows = _rows(y_true, y_pred, sensitive_features)
    return float(
        disparate_impacts(rows["y_pred"], rows["sensitive_features"], pos_label=pos_label).min()
    )


def _rows(y_true: Any, y_pred: Any, sensitive_features: Any) -> dict[str, Any]:
    """The inputs with their pandas rows paired by label, the attributes numbered by position
    (the outcomes reach the core as arrays, in the same order)."""
    rows = align_by_index(
        {"y_true": y_true, "y_pred": y_pred, "sensitive_features": _frame(sensitive_features)}
    )
    return {**rows, "sensitive_features": _table(rows["sensitive_features"])}
