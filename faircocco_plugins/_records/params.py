"""Table-driven checks of numeric parameters, in the spirit of scikit-learn's ``validate_params``.

Each parameter is declared once as an :class:`Interval`; :func:`check_params` raises a
``TypeError`` naming the parameter for a value of the wrong type (``True`` is not an integer)
and a ``ValueError`` naming it and the accepted range for a value outside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np


@dataclass(frozen=True)
class Interval:
    """Integers or finite real numbers between ``low`` and ``high``.

    Parameters
    ----------
    kind : {"integer", "real"}
    low, high : float, optional
        Bounds; ``None`` leaves that side open.
    closed : {"both", "left", "right", "neither"}
        Which bounds belong to the interval.
    optional : bool
        Whether ``None`` is accepted too.

    Examples
    --------
    >>> from faircocco_plugins.plugins import Interval, check_params
    >>> check_params({"epochs": 10}, {"epochs": Interval("integer", 1)})
    >>> check_params({"epochs": 0}, {"epochs": Interval("integer", 1)})
    Traceback (most recent call last):
        ...
    ValueError: epochs=0 is not valid; expected an integer >= 1.
    """

    kind: Literal["integer", "real"]
    low: float | None = None
    high: float | None = None
    closed: Literal["both", "left", "right", "neither"] = "both"
    optional: bool = False

    def check(self, value: Any, name: str) -> None:
        """Raise if ``value`` is not in the interval (see :func:`check_params`)."""
        if value is None and self.optional:
            return
        integer = isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
        real = integer or (isinstance(value, float | np.floating) and math.isfinite(value))
        if not (integer if self.kind == "integer" else real):
            if isinstance(value, float | np.floating) and self.kind == "real":
                raise ValueError(f"{name}={value!r} is not valid; expected {self.describe()}.")
            raise TypeError(f"{name} must be {self.describe()}; got {type(value).__name__}.")
        if not self._contains(value):
            raise ValueError(f"{name}={value!r} is not valid; expected {self.describe()}.")

    def describe(self) -> str:
        """The interval in words, for error messages: ``"an integer >= 2"``."""
        noun = "an integer" if self.kind == "integer" else "a finite number"
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        if self.low is not None and self.high is not None:
            text = f"{noun} in {left}{_bound(self.low)}, {_bound(self.high)}{right}"
        elif self.low is not None:
            text = f"{noun} {'>=' if left == '[' else '>'} {_bound(self.low)}"
        elif self.high is not None:
            text = f"{noun} {'<=' if right == ']' else '<'} {_bound(self.high)}"
        else:
            text = noun
        return f"None or {text}" if self.optional else text

    def _contains(self, value: Any) -> bool:
        above = self.low is None or (
            value >= self.low if self.closed in ("both", "left") else value > self.low
        )
        below = self.high is None or (
            value <= self.high if self.closed in ("both", "right") else value < self.high
        )
        return bool(above and below)


def _bound(value: float) -> str:
    """A bound in words: integers in full (a seed's 4294967295, not 4.29497e+09)."""
    return str(value) if isinstance(value, int) else f"{value:g}"


def check_params(params: Mapping[str, Any], constraints: Mapping[str, Interval]) -> None:
    """Check each of ``params`` against its :class:`Interval` in ``constraints``.

    Parameters
    ----------
    params : mapping of str to object
        Parameter names and values.
    constraints : mapping of str to Interval
        The accepted values of each parameter.

    Raises
    ------
    TypeError
        A value of the wrong type (a string, a bool, a float where an integer is expected).
    ValueError
        A value outside its interval, or a non-finite number.
    """
    for name, value in params.items():
        constraints[name].check(value, name)


#: The seeds every public function takes, at every sample size: the range of numpy's legacy
#: generators, which scikit-learn's ``random_state`` follows too.
RANDOM_STATE = Interval("integer", 0, 2**32 - 1, optional=True)


def check_bool(value: Any, name: str) -> bool:
    """Return ``value`` as a bool, or raise a ``TypeError`` naming ``name``.

    A flag given as text or a number (``adjusted="no"``) would otherwise be read by its
    truthiness, so ``"no"`` would mean yes.

    Examples
    --------
    >>> from faircocco_plugins._records.params import check_bool
    >>> check_bool(True, "adjusted")
    True
    >>> check_bool("no", "adjusted")
    Traceback (most recent call last):
        ...
    TypeError: adjusted must be True or False; got str 'no'.
    """
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False; got {type(value).__name__} {value!r}.")
    return bool(value)
