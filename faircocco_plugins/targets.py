"""Fairness targets, and the rule that picks the candidate model that meets one.

A target asks for a fairness level rather than a weight: ``"halve"`` (a chance-adjusted
FairCOCCO score at most half the unpenalised model's), ``{"adjusted_score": x}``,
``{"di": x}`` (disparate impact at least ``x``) or ``{"deo": x}`` (difference of equal
opportunity at most ``x``). Estimators that train several candidates (the torch adapter's λ
path, the fairlearn adapter's grid search) measure each on validation rows, in a table with
one row per candidate, and keep the one :func:`choose_step` picks.

A DI or DEO target compares the groups of every sensitive attribute, so it cannot be certified
on rows where an attribute has a single group (for DEO, a single group among the rows with a
positive outcome): there is nothing to compare, and "met" would say nothing. Such a target is
refused before training (:func:`check_target_groups`), not reported as met.

A DI or DEO target is met only where it holds at a stated confidence: a candidate meets it when
the bound of :func:`group_measures` (lower for DI, upper for DEO) over every grouping of
:func:`target_groupings` meets it, not the point value, so that a target met on validation
rows holds on unseen ones at that confidence (:func:`target_columns` writes the columns,
:func:`choose_step` reads them). The adjusted-score target is still met by its point value.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ._inputs.binary_labels import positive_labels
from ._inputs.column_kinds import attribute_kind

__all__ = [
    "AUC_FLOOR",
    "Target",
    "certification_limit",
    "check_target",
    "check_target_groups",
    "choose_step",
    "group_measures",
    "rate_bounds",
    "resolve_target",
    "target_columns",
    "target_groupings",
]

#: A classifier whose validation AUC is at most this ranks the rows no better than chance.
AUC_FLOOR = 0.51

#: Each target measure: whether a lower value is fairer, and the tasks it applies to.
_MEASURES: dict[str, tuple[bool, tuple[str, ...]]] = {
    "adjusted_score": (True, ("classification", "regression")),
    "di": (False, ("classification",)),
    "deo": (True, ("classification",)),
}
_FORMS = '"halve", {"adjusted_score": x}, {"di": x} or {"deo": x} with x in [0, 1]'


@dataclass(frozen=True)
class Target:
    """A bound on one measure: ``measure <= threshold`` (``>=`` for ``di``).

    Examples
    --------
    >>> from faircocco_plugins.targets import Target
    >>> str(Target("di", 0.8))
    'di >= 0.8'
    """

    measure: str
    threshold: float

    @property
    def lower_is_fairer(self) -> bool:
        return _MEASURES[self.measure][0]

    @property
    def column(self) -> str:
        """The column of a candidate table that must meet the bound: for DI and DEO the bound
        at the stated confidence (``di_bound``, ``deo_bound``, as :func:`target_columns`
        writes them), for the adjusted score its point value."""
        return self.measure if self.measure == "adjusted_score" else f"{self.measure}_bound"

    def met(self, values: pd.Series) -> pd.Series:
        """Which values meet the bound (NaN never does)."""
        if self.lower_is_fairer:
            return values <= self.threshold
        return values >= self.threshold

    def __str__(self) -> str:
        return f"{self.measure} {'<=' if self.lower_is_fairer else '>='} {self.threshold:.4g}"


def check_target(target: Any, task: str) -> None:
    """Refuse a target of the wrong form, out of range, or for the other task.

    Raises
    ------
    ValueError
        Naming the target and the forms it may take.

    Examples
    --------
    >>> from faircocco_plugins.targets import check_target
    >>> check_target({"di": 0.8}, "classification")
    >>> check_target({"di": 80}, "classification")
    Traceback (most recent call last):
    ...
    ValueError: target={'di': 80}: the bound must be a number in [0, 1].
    """
    if isinstance(target, str):
        if target != "halve":
            raise ValueError(f"target={target!r} is not valid; expected {_FORMS}.")
        return
    if not isinstance(target, dict) or len(target) != 1:
        raise ValueError(f"target={target!r} is not valid; expected {_FORMS}.")
    ((measure, value),) = target.items()
    if measure not in _MEASURES:
        raise ValueError(
            f"target={target!r} names no measure a target can bound; expected {_FORMS}."
        )
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not 0.0 <= float(value) <= 1.0
    ):
        raise ValueError(f"target={target!r}: the bound must be a number in [0, 1].")
    if task not in _MEASURES[measure][1]:
        raise ValueError(
            f"target={target!r} is for classification only (DI and DEO need predicted "
            'classes); use "halve" or {"adjusted_score": x}.'
        )


def check_target_groups(
    target: Any, sensitive: pd.DataFrame, positive: Any, *, rows: str = "rows", bins: int = 4
) -> None:
    """Refuse a DI or DEO target that the rows measuring it cannot certify.

    DI compares the positive-prediction rates of an attribute's groups, DEO the true-positive
    rates of the groups among the rows with a positive outcome; groups as in
    :func:`target_groupings` (a continuous attribute's quantile bins). Where an attribute has a
    single group
    there, the measure is undefined, and a target on it can be neither met nor missed. Other
    targets are not checked.

    Parameters
    ----------
    target : str or dict
        A target that :func:`check_target` accepts.
    sensitive : pandas.DataFrame
        The attributes on the rows that measure the target.
    positive : array-like of bool of shape (n,)
        Which of those rows have a positive outcome.
    rows : str
        What the rows are, for the message (e.g. ``"validation rows"``).
    bins : int
        As for :func:`target_groupings`.

    Raises
    ------
    ValueError
        Naming the target, the attribute and its one group, and what to do instead.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.targets import check_target_groups
    >>> one_group = pd.DataFrame({"sex": ["f", "f"]})
    >>> check_target_groups({"di": 0.8}, one_group, [True, False])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: target={'di': 0.8} compares the groups ..., but 'sex' has one group ('f') ...
    """
    measure = next(iter(target)) if isinstance(target, dict) else None
    if measure not in ("di", "deo"):
        return
    kept = np.ones(len(sensitive), dtype=bool)
    where = f"on the {rows}"
    if measure == "deo":
        kept = np.asarray(positive, dtype=bool)
        where += " with a positive outcome"
    for name, groups in target_groupings(sensitive, bins=bins).items():
        levels = pd.unique(groups[kept])
        if len(levels) < 2:
            found = f"one group ({levels[0]!r})" if len(levels) else "no group"
            raise ValueError(
                f"target={target!r} compares the groups of each sensitive attribute, but "
                f"{name!r} has {found} {where}, so {measure.upper()} is undefined and the "
                f"target can be neither met nor missed; drop {name!r} from sensitive_features, "
                'give rows of at least two of its groups, or use "halve" or '
                '{"adjusted_score": x}.'
            )


def resolve_target(target: Any, unpenalised_score: float) -> Target:
    """The bound a checked target sets: ``"halve"`` is half the unpenalised model's adjusted
    score (``unpenalised_score``, not used by the other targets).

    Examples
    --------
    >>> from faircocco_plugins.targets import resolve_target
    >>> resolve_target("halve", 0.12)
    Target(measure='adjusted_score', threshold=0.06)
    """
    if isinstance(target, str):
        return Target("adjusted_score", 0.5 * float(unpenalised_score))
    ((measure, value),) = target.items()
    return Target(measure, float(value))


def choose_step(
    candidates: pd.DataFrame,
    target: Target,
    task: str,
    *,
    noun: str = "step",
    fallback: int = 0,
) -> tuple[int, str | None]:
    """The candidate to keep (its position), and a warning when none meets the target.

    The most accurate (classification) or lowest-MSE (regression) non-degenerate candidate
    that meets the target; if none does, the fairest non-degenerate one by the target's
    measure; if every one is degenerate or unmeasured, ``fallback``. Ties go to the first.

    Parameters
    ----------
    candidates : pandas.DataFrame
        One row per candidate, measured on validation rows: ``degenerate``, the target's
        column (:attr:`Target.column`: ``di_bound`` or ``deo_bound`` for a DI or DEO target, so
        that a candidate meets it only at the confidence of :func:`target_columns`;
        ``adjusted_score``, its point value, otherwise), and ``accuracy`` (classification) or
        ``mse`` (regression); a ``lam`` column, where there is one, names a candidate in the
        warning.
    target : Target
    task : {"classification", "regression"}
    noun : str
        What a candidate is called in the warning.
    fallback : int
        The candidate kept when none is usable.

    Returns
    -------
    tuple of int and str or None

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.targets import Target, choose_step
    >>> candidates = pd.DataFrame({"accuracy": [0.9, 0.85, 0.8], "di_bound": [0.6, 0.82, 0.9],
    ...                            "degenerate": [False, False, False]})
    >>> choose_step(candidates, Target("di", 0.8), "classification")
    (1, None)
    """
    usable = ~candidates["degenerate"].to_numpy(dtype=bool)
    values = candidates[target.column].to_numpy(dtype=float)
    meeting = usable & target.met(pd.Series(values)).to_numpy()
    if meeting.any():
        if task == "classification":
            performance = candidates["accuracy"].to_numpy(dtype=float)
        else:
            performance = -candidates["mse"].to_numpy(dtype=float)
        # argmax: ties go to the first
        return int(np.argmax(np.where(meeting, performance, -np.inf))), None

    def name(position: int) -> str:
        if "lam" not in candidates.columns:
            return f"{noun} {position}"
        return f"{noun} {position} (lam={float(candidates['lam'].iloc[position]):g})"

    known = usable & ~np.isnan(values)
    if not known.any():
        return fallback, (
            f"no {noun} is usable for target {target} (every one is degenerate on the "
            f"validation rows, or its measure is undefined); kept {name(fallback)}"
        )
    fairness = -values if target.lower_is_fairer else values
    fairest = int(np.argmax(np.where(known, fairness, -np.inf)))
    bound = "" if math.isfinite(target.threshold) else " (undefined: the unpenalised score is NaN)"
    return fairest, (
        f"no non-degenerate {noun} reached target {target}{bound} on the validation rows; kept "
        f"the fairest, {name(fairest)} with {target.column}={values[fairest]:.4g}"
    )


# --- Groups, and bounds that hold at a stated confidence ------------------------------------


def target_groupings(
    sensitive: pd.DataFrame, *, bins: int = 4, intersections: bool = False
) -> dict[str, np.ndarray]:
    """The groupings a DI or DEO target applies to: each attribute's, and their intersections.

    A binary or categorical attribute groups rows by its levels; a continuous one by
    ``bins`` quantile bins of the rows given (fewer where ties merge bin edges). With
    ``intersections``, one more grouping, ``"intersections"``, crosses all attributes' groups.

    Parameters
    ----------
    sensitive : pandas.DataFrame
        Sensitive attributes with their raw types, one column each, no missing values.
    bins : int
        Quantile bins of a continuous attribute, at least 2.
    intersections : bool
        Whether to add the grouping that crosses every attribute's groups.

    Returns
    -------
    dict of str to numpy.ndarray
        Each grouping's group label per row, by the attribute's name (as ``str``).

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.targets import target_groupings
    >>> people = pd.DataFrame({"sex": ["f", "m", "f", "m"], "age": [20.0, 30.0, 40.0, 50.0]})
    >>> groups = target_groupings(people, bins=2, intersections=True)
    >>> groups["age"].tolist()
    ['(19.999, 35.0]', '(19.999, 35.0]', '(35.0, 50.0]', '(35.0, 50.0]']
    >>> groups["intersections"][0]
    'sex=f, age=(19.999, 35.0]'
    """
    if not isinstance(sensitive, pd.DataFrame):
        raise TypeError(f"sensitive must be a pandas DataFrame; got {type(sensitive).__name__}.")
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral) or bins < 2:
        raise ValueError(f"bins={bins!r} must be an integer of at least 2.")
    groupings: dict[str, np.ndarray] = {}
    for name in sensitive.columns:
        column = sensitive[name]
        if column.isna().any():
            raise ValueError(f"sensitive column {name!r} has missing values.")
        if attribute_kind(column) == "continuous":
            binned = pd.qcut(column.astype(float), int(bins), duplicates="drop")
            groupings[str(name)] = binned.astype(str).to_numpy(dtype=object)
        else:
            groupings[str(name)] = column.astype(str).to_numpy(dtype=object)
    if intersections and len(groupings) > 1:
        cells = [f"{name}={label}" for name, labels in groupings.items() for label in labels]
        rows = np.asarray(cells, dtype=object).reshape(len(groupings), -1)
        groupings["intersections"] = np.asarray([", ".join(row) for row in rows.T], dtype=object)
    return groupings


def rate_bounds(hits: np.ndarray, totals: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson bounds of binomial rates, each one-sided at error ``tail``.

    Exact: for every true rate and group size, ``P(lower > rate) <= tail`` and
    ``P(upper < rate) <= tail``.

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_plugins.targets import rate_bounds
    >>> lower, upper = rate_bounds(np.array([0, 5, 10]), np.array([10, 10, 10]), 0.05)
    >>> np.round(lower, 3).tolist(), np.round(upper, 3).tolist()
    ([0.0, 0.222, 0.741], [0.259, 0.778, 1.0])
    """
    hits, totals = np.asarray(hits, dtype=float), np.asarray(totals, dtype=float)
    with np.errstate(invalid="ignore"):
        lower = np.where(hits > 0, stats.beta.ppf(tail, hits, totals - hits + 1), 0.0)
        upper = np.where(hits < totals, stats.beta.ppf(1 - tail, hits + 1, totals - hits), 1.0)
    return lower, upper


#: Each group measure: whether rows enter by a positive outcome (DEO: true-positive rates).
_GROUP_MEASURES = {"di": False, "deo": True}


def group_measures(
    measure: str,
    y_true: Any,
    y_pred: Any,
    sensitive: pd.DataFrame,
    *,
    confidence: float = 0.9,
    bins: int = 4,
    intersections: bool = False,
    min_rows: int = 30,
    pos_label: Any = None,
) -> pd.DataFrame:
    """DI or DEO of every grouping, with a bound that holds at ``confidence``.

    DI is the lowest over the highest positive-prediction rate of a grouping's groups, DEO the
    largest gap in their true-positive rates. The bound of a grouping is the worst over ordered
    pairs ``(g, h)`` of its groups of a one-sided bound on ``rate_g / rate_h`` (DI, lower) or
    ``rate_g − rate_h`` (DEO, upper), each found by the method of variance estimates recovery
    (MOVER: Newcombe, *Statistics in Medicine* 1998; Donner and Zou, *Statistical Methods in
    Medical Research* 2012) from exact (Clopper–Pearson) bounds of the two rates at the same
    confidence, the ratio's on the log scale. The worst pair's true value lies beyond its bound
    with probability at most about ``1 − confidence``: simulated with groups of 20 to 400 rows
    and one dominant gap, the coverage at 0.9 was 0.91 to 0.94, and about 1 where rates are
    close (``tests/core/test_target_bounds.py``). Since a target is met only where every
    grouping's bound meets it, certifying a target that some grouping misses is as unlikely,
    without a correction for the number of groupings (an intersection-union test; Berger,
    *Technometrics* 1982).

    Parameters
    ----------
    measure : {"di", "deo"}
    y_true : array-like of shape (n,)
        Outcomes, two labels; only DEO reads it.
    y_pred : array-like of shape (n,)
        Predicted labels.
    sensitive : pandas.DataFrame
        Sensitive attributes with their raw types.
    confidence : float
        In (0, 1).
    bins, intersections
        As for :func:`target_groupings`.
    min_rows : int
        Intersections with fewer rows (DEO: positive outcomes) than this are left out; each
        attribute's groups are all kept.
    pos_label : optional
        The positive label, as for :func:`faircocco_plugins.plugins.positive_labels`.

    Returns
    -------
    pandas.DataFrame
        One row per grouping (index: its name): ``value`` (the point estimate), ``bound``,
        ``best_bound`` (the bound the same group sizes would give at equal rates: the most
        these rows can certify), ``smallest_group`` and ``smallest_rows``. NaN where a
        grouping has fewer than two groups with rows.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from faircocco_plugins.targets import group_measures
    >>> sex = pd.DataFrame({"sex": ["f"] * 200 + ["m"] * 200})
    >>> pred = np.r_[np.arange(200) < 80, np.arange(200) < 100]
    >>> table = group_measures("di", None, pred, sex)
    >>> table[["value", "bound"]].round(3).loc["sex"].tolist()
    [0.8, 0.687]
    """
    if measure not in _GROUP_MEASURES:
        raise ValueError(f"measure={measure!r} must be one of {sorted(_GROUP_MEASURES)}.")
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise TypeError(f"confidence must be a number in (0, 1); got {confidence!r}.")
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence={confidence!r} must be in (0, 1).")
    needs_outcome = _GROUP_MEASURES[measure]
    labels = {"y_true": y_true, "y_pred": y_pred} if needs_outcome else {"y_pred": y_pred}
    positive = positive_labels(labels, pos_label)
    pred = positive["y_pred"]
    rows = positive["y_true"] if needs_outcome else np.ones(pred.shape, dtype=bool)
    if not pred.shape == rows.shape == (len(sensitive),):
        raise ValueError(
            f"y_true, y_pred and sensitive must have the same number of rows; got "
            f"{rows.shape}, {pred.shape} and {len(sensitive)}."
        )
    tail = 1.0 - float(confidence)
    table = {}
    for name, groups in target_groupings(sensitive, bins=bins, intersections=intersections).items():
        labels, codes = np.unique(groups[rows], return_inverse=True)
        totals = np.bincount(codes, minlength=labels.size)
        hits = np.bincount(codes, weights=pred[rows], minlength=labels.size)
        if name == "intersections":
            kept = totals >= min_rows
            labels, totals, hits = labels[kept], totals[kept], hits[kept]
        table[name] = _grouping_row(measure, labels, hits, totals, tail)
    columns = ["value", "bound", "best_bound", "smallest_group", "smallest_rows"]
    return pd.DataFrame.from_dict(table, orient="index", columns=columns)


def _grouping_row(
    measure: str, labels: np.ndarray, hits: np.ndarray, totals: np.ndarray, tail: float
) -> list[Any]:
    """One grouping's ``value``, ``bound``, ``best_bound``, smallest group and its rows."""
    if labels.size < 2:
        return [math.nan, math.nan, math.nan, None, 0]
    smallest = int(np.argmin(totals))
    rates = hits / totals
    pooled = np.full(rates.shape, hits.sum() / totals.sum())
    return [
        _pair_extreme(measure, rates, rates, rates),
        _pair_extreme(measure, rates, *rate_bounds(hits, totals, tail)),
        _pair_extreme(measure, pooled, *rate_bounds(pooled * totals, totals, tail)),
        str(labels[smallest]),
        int(totals[smallest]),
    ]


def _pair_extreme(measure: str, rates: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> float:
    """The worst MOVER bound over ordered pairs ``(g, h)`` of distinct groups: of
    ``rate_g / rate_h`` from below (DI, at most 1) or of ``rate_g − rate_h`` from above (DEO,
    at least 0). With ``lower = upper = rates``, the point value."""
    distinct = ~np.eye(rates.size, dtype=bool)
    if measure == "deo":
        gaps = rates[:, None] - rates[None, :]
        spread = np.hypot((upper - rates)[:, None], (rates - lower)[None, :])
        return float(max((gaps + spread)[distinct].max(), 0.0))
    if not rates.any():  # no positive prediction at all: equal rates, DI 1 by convention
        return 1.0 if np.array_equal(lower, upper) else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        logs, low, high = np.log(rates), np.log(lower), np.log(upper)
        spread = np.hypot((logs - low)[:, None], (high - logs)[None, :])
        ratio = np.exp(logs[:, None] - logs[None, :] - spread)
    # a group with no positive prediction (log 0) bounds its ratios by 0
    return float(min(np.nan_to_num(ratio, nan=0.0)[distinct].min(), 1.0))


#: The worst of a measure's values: the lowest DI, the largest DEO.
_WORST = {"di": np.nanmin, "deo": np.nanmax}


def _worst(measure: str, values: pd.Series) -> float:
    """The worst of ``values`` that are not NaN (NaN when none is)."""
    known = values.to_numpy(dtype=float)
    known = known[~np.isnan(known)]
    return float(_WORST[measure](known)) if known.size else math.nan


def target_columns(
    y_true: Any,
    y_pred: Any,
    sensitive: pd.DataFrame,
    *,
    confidence: float = 0.9,
    bins: int = 4,
    intersections: bool = False,
    min_rows: int = 30,
) -> dict[str, float]:
    """One candidate's DI and DEO columns: each grouping's value, the worst, and its bound.

    For each of ``di`` and ``deo``: ``di[name]`` the value of each grouping of
    :func:`target_groupings` (``di[intersections]`` with ``intersections``), ``di`` the worst of
    them, and ``di_bound`` the worst of their bounds at ``confidence`` (:func:`group_measures`),
    which a candidate must meet to meet a DI target (:func:`choose_step`). A grouping whose
    value is undefined (fewer than two groups with rows) is left out of the worst.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Outcomes and predicted labels, two labels with the positive one 1 (or ``True``).
    sensitive : pandas.DataFrame
        Sensitive attributes with their raw types.
    confidence, bins, intersections, min_rows
        As for :func:`group_measures`.

    Returns
    -------
    dict of str to float

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from faircocco_plugins.targets import target_columns
    >>> sex = pd.DataFrame({"sex": ["f"] * 200 + ["m"] * 200})
    >>> pred = np.r_[np.arange(200) < 80, np.arange(200) < 100]
    >>> columns = target_columns(pred, pred, sex)
    >>> [f"{key}={value:.3f}" for key, value in columns.items()][:3]
    ['di=0.800', 'di_bound=0.687', 'di[sex]=0.800']
    """
    row: dict[str, float] = {}
    for measure in _GROUP_MEASURES:
        table = group_measures(
            measure,
            y_true,
            y_pred,
            sensitive,
            confidence=confidence,
            bins=bins,
            intersections=intersections,
            min_rows=min_rows,
        )
        row[measure] = _worst(measure, table["value"])
        row[f"{measure}_bound"] = _worst(measure, table["bound"])
        row.update({f"{measure}[{name}]": float(value) for name, value in table["value"].items()})
    return row


def certification_limit(
    target: Target,
    y_true: Any,
    y_pred: Any,
    sensitive: pd.DataFrame,
    *,
    confidence: float = 0.9,
    bins: int = 4,
    intersections: bool = False,
    min_rows: int = 30,
) -> str | None:
    """Why rows this few cannot certify a DI or DEO target, or None where they could.

    A grouping's ``best_bound`` (:func:`group_measures`) is the most its group sizes certify
    even at equal rates; where it misses the target, no candidate can meet the target on these
    rows. The message names that grouping's smallest group, its rows and the level it can
    certify.

    Parameters
    ----------
    target : Target
        Targets other than DI and DEO give None.
    y_true, y_pred, sensitive, confidence, bins, intersections, min_rows
        As for :func:`target_columns`: the rows and one candidate's predictions (whose overall
        positive rate sets the equal rates).

    Returns
    -------
    str or None

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from faircocco_plugins.targets import Target, certification_limit
    >>> sex = pd.DataFrame({"sex": ["f"] * 20 + ["m"] * 200})
    >>> pred = np.arange(220) % 2 == 0
    >>> print(certification_limit(Target("di", 0.8), pred, pred, sex))  # doctest: +ELLIPSIS
    the rows are too few to certify di >= 0.8 at confidence 0.9: ... 'f', has 20 rows, ...
    """
    if target.measure not in _GROUP_MEASURES:
        return None
    table = group_measures(
        target.measure,
        y_true,
        y_pred,
        sensitive,
        confidence=confidence,
        bins=bins,
        intersections=intersections,
        min_rows=min_rows,
    )
    best = table["best_bound"].astype(float)
    missing = best.notna() & ~target.met(best)
    if not missing.any():
        return None
    worst = best[missing]
    name = str(worst.idxmax() if target.lower_is_fairer else worst.idxmin())
    row = table.loc[name].to_dict()
    relation = "<=" if target.lower_is_fairer else ">="
    return (
        f"the rows are too few to certify {target} at confidence {confidence:g}: the smallest "
        f"group of {name!r}, {row['smallest_group']!r}, has {int(row['smallest_rows'])} rows, "
        f"and even at equal rates they certify {target.measure} {relation} "
        f"{float(row['best_bound']):.3g} at best"
    )
