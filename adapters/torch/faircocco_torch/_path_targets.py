"""The fairness targets of the λ-path estimators and the rule that picks a step for one."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: Each target measure: whether a lower value is fairer, and the tasks it applies to.
_MEASURES: dict[str, tuple[bool, tuple[str, ...]]] = {
    "adjusted_score": (True, ("classification", "regression")),
    "di": (False, ("classification",)),
    "deo": (True, ("classification",)),
}
_FORMS = '"halve", {"adjusted_score": x}, {"di": x} or {"deo": x} with x in [0, 1]'


@dataclass(frozen=True)
class Target:
    """A bound on one column of ``path_``: ``measure <= threshold`` (``>=`` for ``di``)."""

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
    """Refuse a target of the wrong form, out of range, or for the other task."""
    if isinstance(target, str):
        if target != "halve":
            raise ValueError(f"target={target!r} is not valid; expected {_FORMS}.")
        return
    if not isinstance(target, dict) or len(target) != 1:
        raise ValueError(f"target={target!r} is not valid; expected {_FORMS}.")
    ((measure, value),) = target.items()
    if measure not in _MEASURES:
        raise ValueError(f"target={target!r} names no measure of the path; expected {_FORMS}.")
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


def resolve_target(target: Any, path: pd.DataFrame) -> Target:
    """The bound a checked target sets: ``"halve"`` is half the unpenalised step's score."""
    if isinstance(target, str):
        return Target("adjusted_score", 0.5 * float(path["adjusted_score"].iloc[0]))
    ((measure, value),) = target.items()
    return Target(measure, float(value))


def choose_step(path: pd.DataFrame, target: Target, task: str) -> tuple[int, str | None]:
    """The step to keep, and a warning when none meets the target.

    The most accurate (classification) or lowest-MSE (regression) non-degenerate step that
    meets the target; if none does, the fairest non-degenerate step by the target's measure;
    if every step is degenerate, the unpenalised one. Ties go to the smaller λ.
    """
    usable = ~path["degenerate"].to_numpy(dtype=bool)
    values = path[target.measure].to_numpy(dtype=float)
    meeting = usable & target.met(pd.Series(values)).to_numpy()
    if meeting.any():
        if task == "classification":
            performance = path["accuracy"].to_numpy(dtype=float)
        else:
            performance = -path["mse"].to_numpy(dtype=float)
        # argmax: ties go to the first, the smaller λ
        return int(np.argmax(np.where(meeting, performance, -np.inf))), None
    known = usable & ~np.isnan(values)
    if not known.any():
        return 0, (
            f"no step of the path is usable for target {target} (every one is degenerate on "
            "the validation rows, or its measure is undefined); kept the unpenalised step"
        )
    fairness = -values if target.lower_is_fairer else values
    fairest = int(np.argmax(np.where(known, fairness, -np.inf)))
    lam = float(path["lam"].iloc[fairest])
    bound = "" if math.isfinite(target.threshold) else " (undefined: the unpenalised score is NaN)"
    return fairest, (
        f"no non-degenerate step reached target {target}{bound} on the validation rows; kept "
        f"the fairest, step {fairest} (lam={lam:g}) with {target.measure}={values[fairest]:.4g}"
    )
