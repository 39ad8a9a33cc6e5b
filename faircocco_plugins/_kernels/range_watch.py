"""A warning for later rows outside the range of the rows that kernels were fitted on.

A stream fits its bandwidths, pivots and strata on its first rows, and a training penalty
fits its attribute and outcome kernels on the training data or on a first batch. Rows far
outside the range of those fitted on sit where the pivots say little, and the statistic is
then off (0.036 against 0.148 for 20,000 synthetic rows sorted by age, streamed after the
first 2,000) without any error.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from .levels import MAX_LEVELS


@dataclass
class RangeWatch:
    """Warns, once per column, when a later block's numbers lie outside the fitted range.

    Of exchangeable rows, about ``2 / (n₁ + 1)`` of a later block falls outside the range of
    a fit sample of ``n₁`` rows; a block with over five times that share (and over 1%) outside
    is flagged. Numeric columns of at most :data:`MAX_LEVELS` values in the fit sample are
    factored exactly over their levels, later ones included, and are not watched.
    """

    #: column name to (minimum, maximum) in the fit sample
    limits: dict[str, tuple[float, float]]
    first_rows: int
    #: what the rows fitted on are, and what to do, for the warning
    fitted_on: str
    advice: str
    warned: set[str] = field(default_factory=set)

    @classmethod
    def of(
        cls, columns: Iterable[tuple[str, np.ndarray]], n: int, fitted_on: str, advice: str
    ) -> RangeWatch:
        """The watch of the named numeric ``columns`` of ``n`` fitted rows."""
        limits = {
            name: (float(values.min()), float(values.max()))
            for name, values in columns
            if np.unique(values).size > MAX_LEVELS
        }
        return cls(limits, n, fitted_on, advice)

    def check(self, columns: Iterable[tuple[str, np.ndarray]], block: str = "block") -> None:
        """Warn for each watched column of a later ``block`` too far outside its range."""
        if len(self.warned) == len(self.limits):
            return
        allowed = max(0.01, 10.0 / (self.first_rows + 1))
        for name, values in columns:
            if name in self.warned or name not in self.limits:
                continue
            low, high = self.limits[name]
            outside = float(np.mean((values < low) | (values > high)))
            if outside > allowed:
                self.warned.add(name)
                warnings.warn(
                    f"{outside:.0%} of a later {block}'s values of {name!r} lie outside the "
                    f"range of {self.fitted_on} ([{low:.4g}, {high:.4g}]), whose bandwidths "
                    f"and pivots measure it: the result can be far off. {self.advice}",
                    UserWarning,
                    stacklevel=3,
                )
