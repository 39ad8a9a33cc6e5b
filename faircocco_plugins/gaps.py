"""The paper's group gaps: DEO and DI per attribute, continuous attributes split at the median.

The FairCOCCO paper reports, beside its score, the difference of equal opportunity (DEO, the
gap in true-positive rates between groups) and the disparate impact ratio (DI) of binary
predictions: here the lowest over the highest positive-prediction rate and, as the paper
defines it, the discriminated group's rate over the favoured group's. Groups are the levels of
a binary or categorical attribute and the two halves of a continuous one split at its median on
the evaluated rows (``age<=35`` and ``age>35``: the fairness targets' groupings at two quantile
bins, :func:`faircocco_plugins.targets.target_groupings`). The fairlearn adapter computes the
paper's columns with these functions.

Outcomes and predictions are binary labels, read as scikit-learn reads them: 0/1, -1/1 and
booleans have the positive class 1 (``True``); any other two labels (``"yes"``/``"no"``, 1/2,
``"True"``/``"False"`` as text) need ``pos_label=``. Scores and probabilities are refused:
threshold them first. Missing values in labels or groups are refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ._inputs.binary_labels import positive_labels
from .targets import target_groupings

__all__ = [
    "attribute_groups",
    "disparate_impact",
    "disparate_impact_ratio",
    "disparate_impact_ratios",
    "disparate_impacts",
    "equal_opportunity_differences",
    "equal_opportunity_gap",
    "farthest_from_parity",
]


def attribute_groups(sensitive: pd.DataFrame) -> pd.DataFrame:
    """The group of each row for DEO and DI: levels, or halves at the median when continuous.

    The groupings of the fairness targets at two quantile bins
    (:func:`faircocco_plugins.targets.target_groupings` with ``bins=2``): a value at the median
    is in the lower half.

    Parameters
    ----------
    sensitive : pandas.DataFrame
        Sensitive attributes with their raw types.

    Returns
    -------
    pandas.DataFrame
        Same shape and column names (as str); binary and categorical attributes keep their
        values (as text), continuous ones become their half named by the median, as
        ``age<=35`` and ``age>35``.

    Raises
    ------
    ValueError
        A column with missing values, or column names equal as text (``1`` and ``"1"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.gaps import attribute_groups
    >>> attribute_groups(pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0]}))["age"].tolist()
    ['age<=35', 'age<=35', 'age>35', 'age>35']
    """
    return pd.DataFrame(target_groupings(sensitive, bins=2), index=sensitive.index)


def equal_opportunity_gap(y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None) -> float:
    """DEO of one attribute: the largest gap in true-positive rates between its groups.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Binary outcomes and predictions: 0/1, -1/1 or booleans, or two labels of which
        ``pos_label`` is the positive one.
    groups : array-like of shape (n,)
        The group of each row.
    pos_label : int, float, bool or str, optional
        The positive label, as in scikit-learn; needed unless the labels are 0/1, -1/1 or
        booleans.

    Returns
    -------
    float
        ``max_g TPR_g − min_g TPR_g`` over groups with at least one positive outcome; NaN
        when fewer than two groups have one.

    Raises
    ------
    ValueError
        Labels that are not binary (or need ``pos_label``), scores, missing values in any
        argument, or arguments of different lengths.

    Examples
    --------
    >>> from faircocco_plugins.gaps import equal_opportunity_gap
    >>> equal_opportunity_gap(
    ...     [True, True, True, True], [True, True, True, False], ["a", "a", "b", "b"]
    ... )
    0.5
    """
    truth, pred, labels = _labelled_rows(y_true, y_pred, groups, pos_label)
    rates = [
        float(pred[(labels == g) & truth].mean())
        for g in pd.unique(labels)
        if ((labels == g) & truth).any()
    ]
    if len(rates) < 2:
        return math.nan
    return max(rates) - min(rates)


def disparate_impact(y_pred: Any, groups: Any, *, pos_label: Any = None) -> float:
    """DI of one attribute: lowest over highest positive-prediction rate of its groups.

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        Binary predictions, as for :func:`equal_opportunity_gap`.
    groups : array-like of shape (n,)
        The group of each row.
    pos_label : int, float, bool or str, optional
        As for :func:`equal_opportunity_gap`.

    Returns
    -------
    float
        In [0, 1]; 1.0 when all groups have the same rate, including when no row is
        predicted positive; NaN with fewer than two groups (nothing to compare).

    Examples
    --------
    >>> from faircocco_plugins.gaps import disparate_impact
    >>> disparate_impact([True, False, True, True], ["a", "a", "b", "b"])
    0.5
    """
    _, pred, labels = _labelled_rows(None, y_pred, groups, pos_label)
    rates = [float(pred[labels == g].mean()) for g in pd.unique(labels)]
    if len(rates) < 2:
        return math.nan
    highest = max(rates)
    return 1.0 if highest == 0 else min(rates) / highest


def disparate_impact_ratio(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None
) -> float:
    """The paper's DI of one attribute: the discriminated group's positive-prediction rate over
    the favoured group's.

    The paper writes ``DI = P(Ŷ=1 | A=1) / P(Ŷ=1 | A=0)`` with ``A=1`` the discriminated
    group, without saying how that group is named for each dataset. Here it is read from the
    outcomes: the discriminated group is the one with the lowest share of positive outcomes,
    the favoured group the one with the highest (the extremes when there are more than two).
    A model that copies the data's disparity then scores below 1, and one that over-corrects
    scores above 1, as in the paper's tables.

    Parameters
    ----------
    y_true, y_pred, groups, pos_label
        As for :func:`equal_opportunity_gap`.

    Returns
    -------
    float
        Non-negative: 1.0 when the two groups get the same rate (including none). NaN with
        fewer than two groups, when the two extreme groups have the same share of positive
        outcomes (no group is discriminated), or when only the discriminated group gets
        positive predictions (the ratio is undefined).

    Examples
    --------
    >>> from faircocco_plugins.gaps import disparate_impact_ratio
    >>> truth = [True, False, False, False, True, True, True, False]
    >>> groups = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> disparate_impact_ratio(truth, [True, True, False, False, True, False, False, False], groups)
    2.0
    """
    truth, pred, labels = _labelled_rows(y_true, y_pred, groups, pos_label)
    levels = pd.unique(labels)
    base_rates = [float(truth[labels == g].mean()) for g in levels]
    low, high = int(np.argmin(base_rates)), int(np.argmax(base_rates))
    if len(levels) < 2 or base_rates[low] == base_rates[high]:
        return math.nan
    discriminated = float(pred[labels == levels[low]].mean())
    favoured = float(pred[labels == levels[high]].mean())
    if favoured == 0:
        return 1.0 if discriminated == 0 else math.nan
    return discriminated / favoured


def equal_opportunity_differences(
    y_true: Any, y_pred: Any, sensitive: pd.DataFrame, *, pos_label: Any = None
) -> pd.Series:
    """DEO of each attribute, continuous ones split at their median (the paper's protocol).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Binary outcomes and predictions, as for :func:`equal_opportunity_gap`.
    sensitive : pandas.DataFrame
        Sensitive attributes with their raw types.
    pos_label : int, float, bool or str, optional
        As for :func:`equal_opportunity_gap`.

    Returns
    -------
    pandas.Series
        :func:`equal_opportunity_gap` of each attribute, indexed by its name.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.gaps import equal_opportunity_differences
    >>> people = pd.DataFrame({"sex": ["f", "f", "m", "m"], "age": [20.0, 60.0, 30.0, 50.0]})
    >>> equal_opportunity_differences([1, 1, 1, 1], [1, 1, 1, 0], people).tolist()
    [0.5, 0.5]
    """
    truth, pred = _positives(y_true, y_pred, pos_label)
    return _per_attribute(lambda groups: equal_opportunity_gap(truth, pred, groups), sensitive)


def disparate_impacts(y_pred: Any, sensitive: pd.DataFrame, *, pos_label: Any = None) -> pd.Series:
    """:func:`disparate_impact` of each attribute, indexed by its name; the arguments and
    the median split as for :func:`equal_opportunity_differences`."""
    _, pred = _positives(None, y_pred, pos_label)
    return _per_attribute(lambda groups: disparate_impact(pred, groups), sensitive)


def disparate_impact_ratios(
    y_true: Any, y_pred: Any, sensitive: pd.DataFrame, *, pos_label: Any = None
) -> pd.Series:
    """The paper's DI, :func:`disparate_impact_ratio`, of each attribute, indexed by its name;
    the arguments and the median split as for :func:`equal_opportunity_differences`."""
    truth, pred = _positives(y_true, y_pred, pos_label)
    return _per_attribute(lambda groups: disparate_impact_ratio(truth, pred, groups), sensitive)


def farthest_from_parity(ratios: pd.Series) -> float:
    """The ratio farthest from 1 (by the size of its logarithm), ignoring NaN.

    The paper's DI of several attributes: a ratio of 1/2 is as far from parity as one of 2.

    Parameters
    ----------
    ratios : pandas.Series
        :func:`disparate_impact_ratios` of each attribute.

    Returns
    -------
    float
        NaN when every ratio is.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.gaps import farthest_from_parity
    >>> farthest_from_parity(pd.Series({"sex": 1.5, "race": 0.25, "age": float("nan")}))
    0.25
    """
    kept = [float(r) for r in ratios if not math.isnan(r)]
    if not kept:
        return math.nan
    with np.errstate(divide="ignore"):  # a ratio of 0 is the farthest of all
        return max(kept, key=lambda r: abs(float(np.log(r))))


def _per_attribute(gap: Callable[[np.ndarray], float], sensitive: pd.DataFrame) -> pd.Series:
    """``gap`` of each attribute's groups (:func:`attribute_groups`), indexed by its name."""
    groups = attribute_groups(sensitive)
    return pd.Series({name: gap(groups[name].to_numpy()) for name in groups.columns}, dtype=float)


def _positives(y_true: Any, y_pred: Any, pos_label: Any) -> tuple[np.ndarray, np.ndarray]:
    """Where the outcomes (``None``: the predictions stand in) and predictions are positive."""
    arguments = {"y_pred": y_pred} if y_true is None else {"y_true": y_true, "y_pred": y_pred}
    positive = positive_labels(arguments, pos_label)
    return positive.get("y_true", positive["y_pred"]), positive["y_pred"]


def _labelled_rows(
    y_true: Any, y_pred: Any, groups: Any, pos_label: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positive outcomes, positive predictions and the groups, as arrays of one length."""
    truth, pred = _positives(y_true, y_pred, pos_label)
    labels = np.asarray(groups, dtype=object)
    if not truth.shape == pred.shape == labels.shape or labels.ndim != 1:
        raise ValueError(
            f"predictions, outcomes and groups must be 1-D of the same length; got shapes "
            f"{pred.shape}, {truth.shape} and {labels.shape}."
        )
    if labels.size == 0:
        raise ValueError("at least one row is needed.")
    if pd.isna(labels).any():
        raise ValueError("groups has missing values; drop those rows or fill them first.")
    return truth, pred, labels
