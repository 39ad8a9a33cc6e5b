"""The FairCOCCO score with fairlearn's metric signature, and its passage through MetricFrame."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from faircocco_plugins import faircocco_report, faircocco_score


class _PackedRow:
    """One row of a table of sensitive attributes, as a scalar that a 1-D column can carry.

    ``MetricFrame`` accepts only 1-D sample parameters and splits them by group and bootstrap
    sample; each entry keeps a reference to the whole table, so the metric gets back its rows
    with their column names and types.
    """

    __slots__ = ("position", "table")

    def __init__(self, table: pd.DataFrame, position: int) -> None:
        self.table = table
        self.position = position

    def __repr__(self) -> str:
        return f"<row {self.position} of {self.table.shape[1]} sensitive attributes>"


def faircocco_sample_params(sensitive_features: Any) -> dict[str, np.ndarray]:
    """Sample parameters that carry a table of sensitive attributes into ``MetricFrame``.

    ``MetricFrame`` rejects 2-D sample parameters, and would turn a table of mixed types into
    one array of objects. This packs each row into one entry of a 1-D column, which MetricFrame
    splits by group, by control feature and by bootstrap sample like any other;
    :func:`faircocco_metric` unpacks the rows it receives into the original table's columns.

    Parameters
    ----------
    sensitive_features : pandas.DataFrame, pandas.Series, numpy.ndarray or mapping
        The attributes of every row, of any mix of binary, categorical and continuous types.

    Returns
    -------
    dict
        ``{"sensitive_features": packed}``, to pass as
        ``sample_params={"<metric name>": faircocco_sample_params(A)}``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from fairlearn.metrics import MetricFrame
    >>> from faircocco_fairlearn import faircocco_metric, faircocco_sample_params
    >>> rng = np.random.default_rng(0)
    >>> A = pd.DataFrame({"sex": rng.choice(["f", "m"], 500), "age": rng.uniform(18, 80, 500)})
    >>> y = rng.integers(0, 2, 500)
    >>> p = 0.3 * y + 0.01 * A["age"] + rng.normal(size=500)
    >>> frame = MetricFrame(
    ...     metrics={"faircocco": faircocco_metric}, y_true=y, y_pred=p,
    ...     sensitive_features=A["sex"],
    ...     sample_params={"faircocco": faircocco_sample_params(A)},
    ... )
    >>> joint = faircocco_metric(y, p, sensitive_features=A)
    >>> bool(frame.overall["faircocco"] == joint)
    True
    """
    table = _table(sensitive_features)
    packed = np.empty(len(table), dtype=object)
    packed[:] = [_PackedRow(table, i) for i in range(len(table))]
    return {"sensitive_features": packed}


def faircocco_metric(
    y_true: Any,
    y_pred: Any,
    *,
    sensitive_features: Any,
    notion: str = "eo",
    adjusted: bool = False,
    **options: Any,
) -> float:
    """The FairCOCCO score of all sensitive attributes jointly, as a fairlearn metric.

    The signature is that of fairlearn's ``equalized_odds_difference``: ``y_true`` and
    ``y_pred``, then the attributes by keyword. It is the core's
    :func:`faircocco_plugins.faircocco_score` of ``y_pred`` against every attribute at once, in
    [0, 1]: 0 when the predictions carry no information on the attributes (DP), or none beyond
    the outcome's (EO), or when the outcome carries none given the predictions (CAL).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True outcomes (labels or numbers); not used under DP.
    y_pred : array-like of shape (n,) or (n, k)
        Predictions: labels, scores, probabilities or numbers.
    sensitive_features : DataFrame, Series, array or the output of :func:`faircocco_sample_params`
        The attributes, of any mix of types; inside ``MetricFrame`` pass them through
        ``sample_params`` with :func:`faircocco_sample_params`.
    notion : {"eo", "dp", "cal"}
        Equalised odds (the default, as fairlearn's ``equalized_odds_difference``),
        demographic parity or calibration. In a MetricFrame, choose it with
        ``functools.partial(faircocco_metric, notion="dp")``.
    adjusted : bool
        Subtract the score expected by chance at this size (see the core's docs).
    **options
        Passed to :func:`faircocco_plugins.faircocco_score` (``method``, ``eps``, ...).

    Returns
    -------
    float
        The score; NaN for fewer than two rows (MetricFrame's groups can be that small),
        where no dependence can be measured.
    """
    attributes = _unpacked(sensitive_features)
    if len(np.asarray(y_pred)) < 2:
        return math.nan
    return float(
        faircocco_score(
            y_pred,
            attributes,
            y_true=None if notion == "dp" else y_true,
            notion=notion,
            adjusted=adjusted,
            **options,
        )
    )


def faircocco_metric_report(
    y_true: Any, y_pred: Any, *, sensitive_features: Any, notion: str = "eo", **options: Any
) -> pd.DataFrame:
    """The joint score and each attribute's own, raw and chance-adjusted.

    Parameters are those of :func:`faircocco_metric`; the table is the core's
    :func:`faircocco_plugins.faircocco_report`: a row ``joint`` then one row per attribute.

    Returns
    -------
    pandas.DataFrame
    """
    attributes = _unpacked(sensitive_features)
    return faircocco_report(
        y_pred, attributes, y_true=None if notion == "dp" else y_true, notion=notion, **options
    )


def _table(sensitive_features: Any) -> pd.DataFrame:
    if isinstance(sensitive_features, pd.DataFrame):
        table = sensitive_features
    elif isinstance(sensitive_features, pd.Series):
        table = sensitive_features.to_frame(name=sensitive_features.name or "sensitive")
    elif isinstance(sensitive_features, dict):
        table = pd.DataFrame(sensitive_features)
    else:
        values = np.asarray(sensitive_features)
        if values.ndim not in (1, 2):
            raise ValueError(f"sensitive_features must be 1-D or 2-D; got shape {values.shape}.")
        table = pd.DataFrame(values.reshape(len(values), -1))
    if len(table) == 0:
        raise ValueError("sensitive_features is empty; at least two rows are needed.")
    return table.set_axis([str(c) for c in table.columns], axis=1).reset_index(drop=True)


def _unpacked(sensitive_features: Any) -> Any:
    """The attributes of the rows of a packed column, as a table; anything else unchanged."""
    values = sensitive_features
    if not (
        isinstance(values, np.ndarray)
        and values.dtype == object
        and values.size
        and isinstance(values.flat[0], _PackedRow)
    ):
        return values
    rows = values.ravel()
    if not all(isinstance(row, _PackedRow) and row.table is rows[0].table for row in rows):
        raise ValueError(
            "sensitive_features mixes packed rows of different tables; pack one table with "
            "faircocco_sample_params."
        )
    return rows[0].table.iloc[[row.position for row in rows]].reset_index(drop=True)
