"""Fairness targets, and the rule that picks the candidate model that meets one.

A target asks for a fairness level rather than a weight: ``"halve"`` (a chance-adjusted
FairCOCCO score at most half the unpenalised model's), ``{"adjusted_score": x}``,
``{"di": x}`` (disparate impact at least ``x``) or ``{"deo": x}`` (difference of equal
opportunity at most ``x``). Estimators that train several candidates (the torch adapter's λ
path, the fairlearn adapter's grid search, the AIF360 adapter's in-processing algorithm)
measure each on validation rows, in a table with one row per candidate, and keep the one
:func:`choose_step` picks. This module is the one definition of these targets: their groups,
their bounds and the rule.

A DI or DEO target compares the groups of every sensitive attribute, so it cannot be certified
on rows where an attribute has a single group (for DEO, a single group among the rows with a
positive outcome): there is nothing to compare, and "met" would say nothing. Such a target is
refused before training (:func:`check_target_groups`), not reported as met.

A target is met only where it holds at a stated confidence (:class:`TargetSettings`): a
candidate meets a DI or DEO target when the bound of :func:`group_measures` (lower for DI,
upper for DEO) over every grouping of :func:`target_groupings` meets it, and an adjusted-score
target when the upper bound of :func:`adjusted_score_columns` does, not the point value, so
that a target met on validation rows holds on unseen ones at about that confidence
(:func:`target_columns` and :func:`adjusted_score_columns` write the columns,
:func:`choose_step` reads them).
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ._api import faircocco_score
from ._inputs.binary_labels import positive_labels
from ._inputs.column_kinds import attribute_kind
from ._inputs.variables import check_unique_names
from ._kernels.registry import DEFAULT_KERNEL
from ._records.params import Interval, check_bool, check_params

__all__ = [
    "AUC_FLOOR",
    "JACKKNIFE_GROUPS",
    "GroupBins",
    "Target",
    "TargetSettings",
    "adjusted_score_columns",
    "certification_limit",
    "check_target",
    "check_target_groups",
    "choose_step",
    "group_bins",
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
        """The column of a candidate table that must meet the bound: the measure's bound at
        the stated confidence (``di_bound``, ``deo_bound`` as :func:`target_columns` writes
        them, ``adjusted_score_bound`` as :func:`adjusted_score_columns` does)."""
        return f"{self.measure}_bound"

    def met(self, values: pd.Series) -> pd.Series:
        """Which values meet the bound (NaN never does)."""
        if self.lower_is_fairer:
            return values <= self.threshold
        return values >= self.threshold

    def __str__(self) -> str:
        return f"{self.measure} {'<=' if self.lower_is_fairer else '>='} {self.threshold:.4g}"


#: The limits of each setting of :class:`TargetSettings`.
_SETTING_LIMITS = {
    "confidence": Interval("real", 0, 1, closed="neither"),
    "bins": Interval("integer", 2),
    "min_rows": Interval("integer", 1),
}


@dataclass(frozen=True)
class TargetSettings:
    """How a target is measured and certified on validation rows.

    Attributes
    ----------
    confidence : float
        In (0, 1): a target is met only where its bound at this confidence meets it (a lower
        bound for DI, an upper one for DEO and the adjusted score).
    bins : int
        Quantile bins of a continuous attribute, at least 2 (:func:`target_groupings`).
    intersections : bool
        Whether a DI or DEO target applies to the intersections of the attributes' groups too.
    min_rows : int
        Intersections with fewer rows (DEO: positive outcomes) than this are left out; each
        attribute's groups are all kept.

    Raises
    ------
    TypeError or ValueError
        Naming the setting and the values it may take.

    Examples
    --------
    >>> from faircocco_plugins.targets import TargetSettings
    >>> TargetSettings(bins=10, intersections=True).min_rows
    30
    >>> TargetSettings(confidence=1.0)
    Traceback (most recent call last):
    ...
    ValueError: confidence=1.0 is not valid; expected a finite number in (0, 1).
    """

    confidence: float = 0.9
    bins: int = 4
    intersections: bool = False
    min_rows: int = 30

    def __post_init__(self) -> None:
        check_params({name: getattr(self, name) for name in _SETTING_LIMITS}, _SETTING_LIMITS)
        check_bool(self.intersections, "intersections")


def _settings(settings: Any) -> TargetSettings:
    """``settings``, or the defaults for None; anything else is refused."""
    if settings is None:
        return TargetSettings()
    if not isinstance(settings, TargetSettings):
        raise TypeError(f"settings must be a TargetSettings; got {type(settings).__name__}.")
    return settings


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


@dataclass(frozen=True)
class GroupBins:
    """How rows fall into groups: each attribute in order, and the cut points of the
    continuous ones, fitted on some rows (:func:`group_bins`) and applied to any.

    A value at a cut point falls in the lower bin, as with :func:`pandas.qcut`.

    Attributes
    ----------
    columns : tuple of str
        The attributes, in the order their parts appear in a crossed group's name.
    cuts : mapping of str to tuple of float
        The increasing cut points of each continuous attribute.
    """

    columns: tuple[str, ...]
    cuts: Mapping[str, tuple[float, ...]]

    def groupings(
        self, sensitive: pd.DataFrame, *, intersections: bool = False
    ) -> dict[str, np.ndarray]:
        """Each attribute's group of each row, and with ``intersections`` one more grouping,
        ``"intersections"``, that crosses them all (:meth:`labels`; with one attribute there
        is nothing to cross, and none is added).

        A level of a binary or categorical attribute is its value as text; a bin of a
        continuous one is named by its cut points, as ``age<=28``, ``28<age<=37`` or
        ``age>48``.

        Parameters
        ----------
        sensitive : pandas.DataFrame
            The attributes the bins were fitted on (same columns), any rows.

        Returns
        -------
        dict of str to numpy.ndarray
            Each grouping's group label per row, by the attribute's name (as ``str``).
        """
        frame = self._frame(sensitive)
        groupings = {
            name: self._parts(name, frame.iloc[:, i], named=False)
            for i, name in enumerate(self.columns)
        }
        if intersections and len(self.columns) > 1:
            groupings["intersections"] = self.labels(frame).astype(object)
        return groupings

    def labels(self, sensitive: pd.DataFrame) -> np.ndarray:
        """Each row's crossed group: its bin of every continuous attribute and its level of
        every other one, as ``"sex=Male, age<=37"``.

        Parameters
        ----------
        sensitive : pandas.DataFrame
            The attributes the bins were fitted on (same columns), any rows.

        Returns
        -------
        numpy.ndarray of str
            One name per row.

        Examples
        --------
        >>> import pandas as pd
        >>> from faircocco_plugins.targets import group_bins
        >>> train = pd.DataFrame({"sex": ["f", "m", "f", "m"], "age": [20.0, 30.0, 40.0, 50.0]})
        >>> group_bins(train, 2).labels(pd.DataFrame({"sex": ["m"], "age": [60.0]})).tolist()
        ['sex=m, age>35']
        """
        frame = self._frame(sensitive)
        parts = [
            self._parts(name, frame.iloc[:, i], named=True) for i, name in enumerate(self.columns)
        ]
        return np.asarray([", ".join(row) for row in zip(*parts, strict=True)], dtype=str)

    def _frame(self, sensitive: pd.DataFrame) -> pd.DataFrame:
        frame = _checked_attributes(sensitive)
        if tuple(str(c) for c in frame.columns) != self.columns:
            raise ValueError(
                f"sensitive has the columns {[str(c) for c in frame.columns]}; the groups were "
                f"fitted on {list(self.columns)}."
            )
        return frame

    def _parts(self, name: str, column: pd.Series, *, named: bool) -> np.ndarray:
        """Each value's bin (``age<=28``), or its level (``f``; ``sex=f`` when ``named``)."""
        if name not in self.cuts:
            prefix = f"{name}=" if named else ""
            return np.asarray([f"{prefix}{value}" for value in column], dtype=object)
        cuts = self.cuts[name]
        shown = [f"{c:g}" for c in cuts]
        names = [
            f"{name}<={shown[0]}",
            *(f"{low}<{name}<={high}" for low, high in itertools.pairwise(shown)),
            f"{name}>{shown[-1]}",
        ]
        values = column.to_numpy(dtype=np.float64)
        return np.asarray(names, dtype=object)[np.searchsorted(cuts, values, side="left")]


def group_bins(sensitive: pd.DataFrame, bins: int) -> GroupBins:
    """The groups of ``sensitive``'s rows: each continuous attribute cut into ``bins`` bins at
    its quantiles on these rows (cut points that ties make equal merge, so a column of many
    zeros keeps a bin of its zeros), every other attribute kept by its levels.

    Parameters
    ----------
    sensitive : pandas.DataFrame
        Sensitive attributes with their raw types, at least one, no missing values.
    bins : int
        At least 2: 2 cuts at the median, 4 at the quartiles.

    Returns
    -------
    GroupBins

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.targets import group_bins
    >>> group_bins(pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0, 60.0]}), 4).cuts
    {'age': (30.0, 40.0, 50.0)}
    """
    frame = _checked_attributes(sensitive)
    check_params({"bins": bins}, {"bins": _SETTING_LIMITS["bins"]})
    quantiles = np.arange(1, int(bins)) / int(bins)
    columns = tuple(str(c) for c in frame.columns)
    cuts = {
        name: tuple(float(c) for c in np.unique(np.quantile(values, quantiles)))
        for name, (_, values) in zip(columns, frame.items(), strict=True)
        if attribute_kind(values) == "continuous"
    }
    return GroupBins(columns, cuts)


def _checked_attributes(sensitive: pd.DataFrame) -> pd.DataFrame:
    """``sensitive``, refused unless a DataFrame of at least one column, with names distinct as
    text and no missing values."""
    if not isinstance(sensitive, pd.DataFrame):
        raise TypeError(f"sensitive must be a pandas DataFrame; got {type(sensitive).__name__}.")
    if sensitive.shape[1] == 0:
        raise ValueError("sensitive has no columns; give at least one attribute.")
    # groupings are named by the columns as text: 1 and "1" would be one grouping
    check_unique_names(sensitive.columns, "sensitive")
    for name, column in sensitive.items():
        if column.isna().any():
            raise ValueError(f"sensitive column {name!r} has missing values.")
    return sensitive


def target_groupings(
    sensitive: pd.DataFrame, *, bins: int = 4, intersections: bool = False
) -> dict[str, np.ndarray]:
    """The groupings a DI or DEO target applies to: each attribute's, and their intersections.

    A binary or categorical attribute groups rows by its levels; a continuous one by
    ``bins`` quantile bins of the rows given (:func:`group_bins`). With ``intersections``, one
    more grouping, ``"intersections"``, crosses all attributes' groups
    (:meth:`GroupBins.groupings`).

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
    ['age<=35', 'age<=35', 'age>35', 'age>35']
    >>> groups["intersections"][0]
    'sex=f, age<=35'
    """
    return group_bins(sensitive, bins).groupings(sensitive, intersections=intersections)


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
    settings: TargetSettings | None = None,
    pos_label: Any = None,
) -> pd.DataFrame:
    """DI or DEO of every grouping, with a bound that holds at ``settings.confidence``.

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
    settings : TargetSettings, optional
        The confidence, the groupings (``bins``, ``intersections``) and the fewest rows of an
        intersection; the defaults of :class:`TargetSettings` when not given.
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
    settings = _settings(settings)
    needs_outcome = _GROUP_MEASURES[measure]
    arguments = {"y_true": y_true, "y_pred": y_pred} if needs_outcome else {"y_pred": y_pred}
    positive = positive_labels(arguments, pos_label)
    pred = positive["y_pred"]
    rows = positive["y_true"] if needs_outcome else np.ones(pred.shape, dtype=bool)
    if not pred.shape == rows.shape == (len(sensitive),):
        raise ValueError(
            f"y_true, y_pred and sensitive must have the same number of rows; got "
            f"{rows.shape}, {pred.shape} and {len(sensitive)}."
        )
    tail = 1.0 - settings.confidence
    table = {}
    groupings = target_groupings(
        sensitive, bins=settings.bins, intersections=settings.intersections
    )
    for name, groups in groupings.items():
        labels, codes = np.unique(groups[rows], return_inverse=True)
        totals = np.bincount(codes, minlength=labels.size)
        hits = np.bincount(codes, weights=pred[rows], minlength=labels.size)
        if name == "intersections":
            kept = totals >= settings.min_rows
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
    settings: TargetSettings | None = None,
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
    settings : TargetSettings, optional
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
            settings=settings,
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
    settings: TargetSettings | None = None,
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
    y_true, y_pred, sensitive, settings
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
    settings = _settings(settings)
    table = group_measures(
        target.measure,
        y_true,
        y_pred,
        sensitive,
        settings=settings,
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
        f"the rows are too few to certify {target} at confidence {settings.confidence:g}: the "
        f"smallest group of {name!r}, {row['smallest_group']!r}, has "
        f"{int(row['smallest_rows'])} rows, "
        f"and even at equal rates they certify {target.measure} {relation} "
        f"{float(row['best_bound']):.3g} at best"
    )


# --- The adjusted score, and its upper bound ------------------------------------------------

#: Groups of rows the jackknife of :func:`adjusted_score_columns` deletes one at a time.
JACKKNIFE_GROUPS = 10


def adjusted_score_columns(
    y_pred: Any,
    sensitive: pd.DataFrame,
    *,
    y_true: Any = None,
    notion: str = "dp",
    kernel: str = DEFAULT_KERNEL,
    settings: TargetSettings | None = None,
    random_state: int | None = 0,
) -> dict[str, float]:
    """One candidate's chance-adjusted FairCOCCO score and its upper bound at a confidence.

    ``adjusted_score`` is :func:`faircocco_plugins.faircocco_score` with ``adjusted=True``;
    ``adjusted_score_bound`` is its upper bound at ``settings.confidence``, which a candidate
    must meet to meet an adjusted-score target (:func:`choose_step`). The bound is
    ``(√value + t · se)²``, capped at 1, with ``t`` the ``confidence`` quantile of Student's t
    with ``G − 1`` degrees of freedom and ``se`` the delete-a-group jackknife standard error
    of the score's square root: the rows are split at random (seeded by ``random_state``)
    into ``G`` = :data:`JACKKNIFE_GROUPS` groups of equal size (each row its own group below
    ``2G`` rows), the score is computed without each group in turn, ``θ₍ₖ₎``, and
    ``se² = (G − 1)/G · Σₖ (√θ₍ₖ₎ − mean √θ)²`` (Tukey's jackknife variance).

    Why this method: the score is a smooth function of V-statistic-type kernel sums (its
    trace terms are HSIC-like), so away from independence it is asymptotically normal, as
    HSIC is (Gretton, Bousquet, Smola and Schölkopf, *Measuring statistical dependence with
    Hilbert–Schmidt norms*, ALT 2005, Theorem 3; its variance in Gretton et al., *A kernel
    statistical test of independence*, NIPS 2008), and the jackknife estimates the variance
    of U-statistics and their smooth functions consistently (Arvesen, *Jackknifing
    U-statistics*, Annals of Mathematical Statistics 1969). The jackknife needs no closed form
    for the normalised, regularised operator, and, unlike a bootstrap with replacement, never
    repeats a row, which would add spurious dependence to a kernel score (a repeated row
    matches itself). The square root, the Hilbert–Schmidt norm rather than its square, takes
    out most of the score's right skew, which on the score's own scale left the bound short:
    simulated at confidence 0.9 with known population values, a bound on the score's own
    scale covered in 0.87 to 0.89 of draws, on the square-root scale in 0.92 (population value
    0.037, 300 rows, 400 draws) and 0.97 (0.006, 500 rows, 300 draws). Far from independence
    the skew fades and the two agree, a little short of the confidence: 0.86 on both scales
    (population value 0.20, 500 rows, 200 draws; 0.88 over 600 draws on the score's scale),
    where the jackknife's standard error matched the score's spread (0.0136 and 0.0138).
    Near independence, where the score is
    degenerate and its spread is of order ``1/n`` rather than ``1/√n``, the jackknife variance
    is conservative in expectation (Efron and Stein, *The jackknife estimate of variance*,
    Annals of Statistics 1981), and at independence (population value 0) the bound always
    covers. The coverage test is ``tests/core/test_adjusted_score_bound.py``.

    Parameters
    ----------
    y_pred : array-like of shape (n,) or (n, k)
        The candidate's scores, probabilities or predictions.
    sensitive : pandas.DataFrame
        Sensitive attributes with their raw types.
    y_true : array-like, optional
        The outcome as the notion takes it (``Notion.outcome``); not used under DP.
    notion : {"dp", "eo", "cal"}
    kernel : str
        The score's kernel, by its registered name (that of the penalty or moment trained
        with, so that a target is measured as it was trained for).
    settings : TargetSettings, optional
        Its ``confidence``; the defaults of :class:`TargetSettings` when not given.
    random_state : int, optional
        Seed of the jackknife's groups and of the score's bandwidth sample.

    Returns
    -------
    dict of str to float
        ``adjusted_score`` and ``adjusted_score_bound``; the bound is NaN where the score or
        one of its jackknife values is (too few rows for a chance level).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from faircocco_plugins.targets import adjusted_score_columns
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.choice(["f", "m"], 500)
    >>> scores = rng.random(500) + 0.5 * (sex == "f")
    >>> columns = adjusted_score_columns(scores, pd.DataFrame({"sex": sex}))
    >>> bool(columns["adjusted_score_bound"] > columns["adjusted_score"])
    True
    """
    settings = _settings(settings)
    pred = np.asarray(y_pred)
    truth = None if y_true is None else np.asarray(y_true)

    def score(rows: np.ndarray) -> float:
        frame = sensitive.iloc[rows].reset_index(drop=True)
        outcome = None if truth is None else truth[rows]
        value = faircocco_score(
            pred[rows],
            frame,
            y_true=outcome,
            notion=notion,
            kernel=kernel,
            adjusted=True,
            random_state=random_state,
        )
        return float(value)

    n = len(pred)
    value = score(np.arange(n))
    bound = _jackknife_upper_bound(score, value, n, settings.confidence, random_state)
    return {"adjusted_score": value, "adjusted_score_bound": bound}


def _jackknife_upper_bound(
    statistic: Callable[[np.ndarray], float],
    value: float,
    n: int,
    confidence: float,
    random_state: int | None,
) -> float:
    """``(√value + t · se)²`` capped at 1, ``se`` the delete-a-group jackknife's standard
    error of ``√statistic`` (a function of the positions of the rows it is computed on) over
    ``n`` rows, as :func:`adjusted_score_columns` describes it; NaN where a value is."""
    if math.isnan(value) or n < 2:
        return math.nan
    groups = JACKKNIFE_GROUPS if n >= 2 * JACKKNIFE_GROUPS else n
    labels = np.random.default_rng(random_state).permutation(n) % groups
    positions = np.arange(n)
    deleted = np.array([statistic(positions[labels != g]) for g in range(groups)])
    if np.isnan(deleted).any():
        return math.nan
    # on the square-root scale, where the score's right skew is smaller
    roots = np.sqrt(np.maximum(deleted, 0.0))
    variance = (groups - 1) / groups * float(np.sum((roots - roots.mean()) ** 2))
    quantile = float(stats.t.ppf(confidence, groups - 1))
    return min((math.sqrt(max(value, 0.0)) + quantile * math.sqrt(variance)) ** 2, 1.0)
