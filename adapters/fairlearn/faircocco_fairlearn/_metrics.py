"""The FairCOCCO score with fairlearn's metric signature, and its passage through MetricFrame."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from faircocco_plugins import faircocco_report, faircocco_score
from faircocco_plugins.plugins import (
    Interval,
    align_by_index,
    as_array,
    check_params,
    check_statistic_options,
    notion_named,
)

#: The smallest ``min_rows``: at two rows the chance-adjusted score is 0/0.
_FEWEST_ROWS = 3
#: How to pass a table of attributes through MetricFrame, for error messages.
_HOW_TO_PACK = (
    "in MetricFrame, pass them as sample_params={name: faircocco_sample_params(A, y_true=y_true)}"
)


class _PackedRow:
    """One row of a table of sensitive attributes, as a scalar that a 1-D column can carry.

    ``MetricFrame`` accepts only 1-D sample parameters and splits them by group and bootstrap
    sample; each entry keeps a reference to the whole table, so the metric gets back its rows
    with their column names, types and index labels.
    """

    __slots__ = ("position", "table")

    def __init__(self, table: pd.DataFrame, position: int) -> None:
        self.table = table
        self.position = position

    def __repr__(self) -> str:
        return f"<row {self.position} of {self.table.shape[1]} sensitive attributes>"


def faircocco_sample_params(
    sensitive_features: Any, *, y_true: Any = None, y_pred: Any = None
) -> dict[str, np.ndarray]:
    """Sample parameters that carry a table of sensitive attributes into ``MetricFrame``.

    ``MetricFrame`` rejects 2-D sample parameters, and would turn a table of mixed types into
    one array of objects. This packs each row into one entry of a 1-D column, which MetricFrame
    splits by group, by control feature and by bootstrap sample like any other;
    :func:`faircocco_metric` unpacks the rows it receives into the original table's columns.

    ``MetricFrame`` drops every pandas index and pairs its arguments by position. Give the
    same ``y_true`` (or ``y_pred``) as to the frame and the rows are put in its order first: by
    label when both are pandas objects with the same labels in another order (an error when
    the labels differ or repeat), with the lengths checked. An array gives no order: without a
    pandas ``y_true`` or ``y_pred``, a table whose index is out of increasing order (shuffled
    or sorted, so probably not in the outcomes' order) draws a warning.

    Parameters
    ----------
    sensitive_features : pandas.DataFrame, pandas.Series, numpy.ndarray or mapping
        The attributes of every row, of any mix of binary, categorical and continuous types.
    y_true, y_pred : array-like of shape (n,), optional
        The frame's outcomes or predictions, whose row order the packed rows take.

    Returns
    -------
    dict
        ``{"sensitive_features": packed}``, to pass as
        ``sample_params={"<metric name>": faircocco_sample_params(A, y_true=y)}``.

    Raises
    ------
    ValueError
        When the attributes and ``y_true`` or ``y_pred`` have different lengths, or pandas
        indexes with different or repeated labels.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from fairlearn.metrics import MetricFrame
    >>> from faircocco_fairlearn import faircocco_metric, faircocco_sample_params
    >>> rng = np.random.default_rng(0)
    >>> A = pd.DataFrame({"sex": rng.choice(["f", "m"], 500), "age": rng.uniform(18, 80, 500)})
    >>> y = pd.Series(rng.integers(0, 2, 500))
    >>> p = 0.3 * y + 0.01 * A["age"] + rng.normal(size=500)
    >>> shuffled = A.sample(frac=1, random_state=0)  # the same rows, in another order
    >>> frame = MetricFrame(
    ...     metrics={"faircocco": faircocco_metric}, y_true=y, y_pred=p,
    ...     sensitive_features=A["sex"],
    ...     sample_params={"faircocco": faircocco_sample_params(shuffled, y_true=y)},
    ... )
    >>> joint = faircocco_metric(y, p, sensitive_features=A)
    >>> bool(frame.overall["faircocco"] == joint)
    True
    """
    table = _nonempty(_frame(sensitive_features))
    outcomes = {"y_true": y_true, "y_pred": y_pred}
    _check_lengths(table, outcomes, "give the attributes of the same rows, in the same order")
    # MetricFrame pairs y_true and y_pred by position: only a pandas one orders the table
    labelled = {k: v for k, v in outcomes.items() if isinstance(v, pd.Series | pd.DataFrame)}
    if labelled:
        table = align_by_index({**labelled, "sensitive_features": table})["sensitive_features"]
    else:
        _warn_if_out_of_order(table.index)
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
    min_rows: int = 30,
    **options: Any,
) -> float:
    """The FairCOCCO score of all sensitive attributes jointly, as a fairlearn metric.

    The signature is that of fairlearn's ``equalized_odds_difference``: ``y_true`` and
    ``y_pred``, then the attributes by keyword. It is the core's
    :func:`faircocco_plugins.faircocco_score` of ``y_pred`` against every attribute at once, in
    [0, 1]: 0 when the predictions carry no information on the attributes (DP), or none beyond
    the outcome's (EO), or when the outcome carries none given the predictions (CAL).

    Pandas inputs pair by label when they share their labels in another order: the rows take
    the order of the first of ``y_true``, ``y_pred`` and ``sensitive_features`` that is a
    pandas object, and an array beside pandas inputs in different orders is refused (see the
    core's documentation). Under DP, ``y_true`` is not used, and only its length is checked.

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
    min_rows : int
        The fewest rows scored (at least 3). Under independence the raw score is not 0 but a
        floor that grows as the rows get fewer: about 0.2 at 100 rows and 1/3 at 30, so that
        below 30 a value says more about the group's size than about the model.
    **options
        Passed to :func:`faircocco_plugins.faircocco_score` (``method``, ``eps``, ...).

    Returns
    -------
    float
        The score. NaN, with a warning that names the rows by the attributes constant in them
        (in ``MetricFrame``, the group), where nothing can be measured: fewer than ``min_rows``
        rows, or every attribute constant (a ``by_group`` grouped by the only attribute),
        where the score would be 0 by construction and read as fair.

    Raises
    ------
    ValueError or TypeError
        For invalid options, attributes of a length other than ``y_pred``'s or ``y_true``'s,
        or a column of whole rows (dicts, tuples, records) where a packed table belongs.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from faircocco_fairlearn import faircocco_metric
    >>> rng = np.random.default_rng(0)
    >>> A = pd.DataFrame({"sex": rng.choice(["f", "m"], 300), "age": rng.uniform(18, 80, 300)})
    >>> y = rng.integers(0, 2, 300)
    >>> p = y + 0.05 * A["age"] + rng.normal(size=300)  # follows age beyond the outcome
    >>> round(faircocco_metric(y, p, sensitive_features=A), 2)
    0.12
    >>> round(faircocco_metric(y, p, sensitive_features=A, adjusted=True), 2)
    0.08
    """
    check_statistic_options(notion=notion, **options)
    check_params({"min_rows": min_rows}, {"min_rows": Interval("integer", _FEWEST_ROWS)})
    rows, table = _rows(y_true, y_pred, sensitive_features, notion)
    attributes = rows["sensitive_features"]
    reason = _unmeasurable(table, min_rows)
    if reason is not None:
        # the default filter shows each message once: once per group, not per bootstrap sample
        warnings.warn(f"faircocco_metric is NaN: {reason}", UserWarning, stacklevel=2)
        return math.nan
    return float(
        faircocco_score(
            rows["y_pred"],
            attributes,
            y_true=rows["y_true"],
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
    rows, _ = _rows(y_true, y_pred, sensitive_features, notion)
    return faircocco_report(
        rows["y_pred"],
        rows["sensitive_features"],
        y_true=rows["y_true"],
        notion=notion,
        **options,
    )


def _rows(
    y_true: Any, y_pred: Any, sensitive_features: Any, notion: str
) -> tuple[dict[str, Any], pd.DataFrame]:
    """The metric's row-wise arguments, paired by the core's rule, and the attributes' table,
    after checking the lengths. Under DP ``y_true``, which is not used, does not take part in
    the pairing: only its length is checked."""
    rows = align_by_index(
        {
            "y_true": notion_named(notion).outcome(y_true),
            "y_pred": y_pred,
            "sensitive_features": _unpacked(sensitive_features),
        }
    )
    table = _frame(rows["sensitive_features"])
    _check_lengths(
        table,
        {"y_pred": y_pred, "y_true": y_true},
        f"give the attributes of the same rows ({_HOW_TO_PACK})",
    )
    return rows, table


def _frame(sensitive_features: Any) -> pd.DataFrame:
    """The attributes as a table with text column names, keeping a pandas input's index."""
    if isinstance(sensitive_features, pd.DataFrame):
        table = sensitive_features
    elif isinstance(sensitive_features, pd.Series):
        table = sensitive_features.to_frame(name=sensitive_features.name or "sensitive")
    elif isinstance(sensitive_features, dict):
        table = pd.DataFrame(sensitive_features)
    else:
        values = as_array(sensitive_features, "sensitive_features")
        _check_not_whole_rows(values)
        if values.ndim not in (1, 2):
            raise ValueError(f"sensitive_features must be 1-D or 2-D; got shape {values.shape}.")
        table = pd.DataFrame(values.reshape(len(values), -1))
    return table.set_axis([str(c) for c in table.columns], axis=1)


def _table(sensitive_features: Any) -> pd.DataFrame:
    """The attributes as a table with text column names, its rows numbered by position."""
    return _nonempty(_frame(sensitive_features)).reset_index(drop=True)


def _nonempty(table: pd.DataFrame) -> pd.DataFrame:
    if len(table) == 0:
        raise ValueError("sensitive_features is empty; at least two rows are needed.")
    return table


def _check_not_whole_rows(values: np.ndarray) -> None:
    """Refuse a column whose entries are whole rows: a table passed the wrong way round."""
    first = values.flat[0] if values.size else None
    if values.dtype.names is not None or (
        values.dtype == object and values.ndim == 1 and not pd.api.types.is_scalar(first)
    ):
        kind = "records" if values.dtype.names is not None else type(first).__name__
        raise TypeError(
            f"sensitive_features holds one {kind} per row; to give a table of attributes, pass "
            f"a DataFrame or, {_HOW_TO_PACK}."
        )


def _check_lengths(table: pd.DataFrame, outcomes: dict[str, Any], fix: str) -> None:
    """Refuse outcomes (``None`` skipped) whose length is not the attributes'."""
    for name, values in outcomes.items():
        n = len(values) if hasattr(values, "__len__") else None
        if n is not None and n != len(table):
            raise ValueError(f"sensitive_features has {len(table)} rows and {name} has {n}; {fix}.")


def _warn_if_out_of_order(index: pd.Index) -> None:
    if not index.is_monotonic_increasing:
        warnings.warn(
            "sensitive_features has an index out of increasing order, and MetricFrame pairs "
            "sample_params with y_true and y_pred by position: pass y_true (with its index) to "
            "faircocco_sample_params to put the rows in its order, or .reset_index(drop=True) "
            "if they already are.",
            UserWarning,
            stacklevel=3,
        )


def _unmeasurable(table: pd.DataFrame, min_rows: int) -> str | None:
    """Why the score of these rows would mislead, or ``None`` when it is measured."""
    if len(table) < min_rows:
        return (
            f"{_rows_named(table)} are fewer than min_rows={min_rows}, too few to tell a "
            f"dependence from chance (a smaller min_rows, at least {_FEWEST_ROWS}, scores them; "
            "use adjusted=True there)."
        )
    if (table.nunique(dropna=False) <= 1).all():
        return (
            f"every sensitive attribute is constant in {_rows_named(table)}, so the predictions "
            "cannot depend on them there and 0 would read as fair (to measure within groups, "
            "pack more attributes with faircocco_sample_params than the frame groups by)."
        )
    return None


def _rows_named(table: pd.DataFrame) -> str:
    """The rows, by the attributes constant in them: in MetricFrame, the group's values."""
    constant = [name for name in table.columns if table[name].nunique(dropna=False) == 1]
    if len(table) == 0 or not constant:
        return f"these {len(table)} rows"
    values = ", ".join(f"{name}={_plain(table[name].iloc[0])!r}" for name in constant)
    return f"the rows where {values}"


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds, for messages."""
    return value.item() if isinstance(value, np.generic) else value


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
    positions = [row.position for row in rows]
    if len(set(positions)) < len(positions):
        # the default filter shows this once, not once per bootstrap sample
        warnings.warn(
            "faircocco_metric got repeated rows, as a bootstrap resample (MetricFrame's n_boot) "
            "draws them: a kernel score reads repeated rows as dependence, so its bootstrap "
            "intervals lie above the score rather than around it; to tell a dependence from "
            "chance, use faircocco_plugins.independence_test.",
            UserWarning,
            stacklevel=3,
        )
    return rows[0].table.iloc[positions]
