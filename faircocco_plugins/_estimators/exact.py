"""The exact estimator's limits: it factors each kernel to rounding.

The estimator is the low-rank one (:class:`._estimators.lowrank.LowRankFit`) on *complete*
features: each variable's kernel pivoted by LAPACK's pivoted Cholesky until its residual is at
rounding level (:func:`._estimators.cholesky.complete_cholesky`), so that ``Φ Φᵀ = K`` to rounding
and every formula of the paper holds as written (:func:`._estimators.moments.exact_fit`). It
forms each ``N × N`` kernel matrix once, so its rows are capped here.
"""

from __future__ import annotations

#: Most rows the exact estimator accepts. It forms each ``N × N`` kernel matrix (0.75 GiB at
#: 10,000 rows), and its factors may be as wide as the rows.
MAX_EXACT_ROWS = 10_000
#: Seconds of the exact estimator at 3,000 rows (DP, EO) on an idle machine, for ``"auto"``'s
#: cost model and the estimate in its refusal (performance docs).
_SECONDS_AT_3000 = {False: 0.48, True: 2.1}
#: How the exact estimator's time grows with the rows: as N² (the kernel matrices and their
#: pivoting; measured N^1.4 to N^2.3 from 1,000 to 6,000 rows, the factor's width growing
#: more slowly than the rows).
_GROWTH = 2


def exact_seconds(n: int, conditional: bool) -> float:
    """The exact estimator's estimated seconds at ``n`` rows, DP or (``conditional``) EO and CAL:
    its time grows as N² from the figures at 3,000 rows."""
    return _SECONDS_AT_3000[conditional] * (n / 3000) ** _GROWTH


def check_exact_size(n: int, conditional: bool) -> None:
    """Refuse ``n`` rows beyond :data:`MAX_EXACT_ROWS`, with the estimated cost and what to do."""
    if n <= MAX_EXACT_ROWS:
        return
    minutes = exact_seconds(n, conditional) / 60
    raise ValueError(
        f"method='exact' at {n:,} rows would form {n:,} × {n:,} kernel matrices of "
        f"{n * n * 8 / 2**30:.1f} GiB each and take about {minutes:,.1f} minutes on two cores "
        f"(its time grows as N²); it takes at most {MAX_EXACT_ROWS:,} rows. Use "
        "method='lowrank' (what 'auto' chooses), which factors discrete columns exactly."
    )
