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
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .gaps import attribute_groups

__all__ = [
    "AUC_FLOOR",
    "Target",
    "check_target",
    "check_target_groups",
    "choose_step",
    "resolve_target",
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
    target: Any, sensitive: pd.DataFrame, positive: Any, *, rows: str = "rows"
) -> None:
    """Refuse a DI or DEO target that the rows measuring it cannot certify.

    DI compares the positive-prediction rates of an attribute's groups, DEO the true-positive
    rates of the groups among the rows with a positive outcome; groups as in
    :func:`faircocco_plugins.gaps.attribute_groups`. Where an attribute has a single group
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
    groups = attribute_groups(sensitive)
    where = f"on the {rows}"
    if measure == "deo":
        groups = groups[np.asarray(positive, dtype=bool)]
        where += " with a positive outcome"
    for name in groups.columns:
        levels = pd.unique(groups[name])
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
        measure, and ``accuracy`` (classification) or ``mse`` (regression); a ``lam`` column,
        where there is one, names a candidate in the warning.
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
    >>> candidates = pd.DataFrame({"accuracy": [0.9, 0.85, 0.8], "di": [0.6, 0.82, 0.9],
    ...                            "degenerate": [False, False, False]})
    >>> choose_step(candidates, Target("di", 0.8), "classification")
    (1, None)
    """
    usable = ~candidates["degenerate"].to_numpy(dtype=bool)
    values = candidates[target.measure].to_numpy(dtype=float)
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
        f"the fairest, {name(fairest)} with {target.measure}={values[fairest]:.4g}"
    )
