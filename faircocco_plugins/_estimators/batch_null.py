"""What the host and the device routes of a training batch's statistic share: the permutation
null's operator and the spread below which predictions count as constant."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

#: Below this spread (root mean square about their mean), relative to the larger of 1 and their
#: root mean square, predictions count as constant for the gradient
#: (:meth:`._batch_statistic.BatchStatistic.gradient_damping`).
SPREAD_FLOOR = 1e-3


class PermutationNull(NamedTuple):
    """``K ↦ P Ω P K`` (see :func:`._batch_statistic._permutation_null`), in the namespace of
    its arrays.

    ``Ω = U C Uᵀ + diag(δ)`` with the stratum ``indicators`` ``U``, the ``coefficients`` ``C``
    and ``row_delta`` ``δ``; ``P x = x − C̄ solve(C̄ᵀ x)`` with the conditioning rows ``C̄``
    (``P = I`` when ``solve`` is None).
    """

    indicators: Any
    coefficients: Any
    row_delta: Any
    c_rows: Any
    solve: Callable[[Any], Any] | None

    def __call__(self, kernel: Any) -> Any:
        y = self.project(kernel)
        u = self.indicators
        return self.project(u @ (self.coefficients @ (u.T @ y)) + self.row_delta * y)

    def project(self, x: Any) -> Any:
        if self.solve is None:
            return x
        return x - self.c_rows @ self.solve(self.c_rows.T @ x)
