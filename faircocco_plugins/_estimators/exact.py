"""The exact estimator: the paper's ``N × N`` formulas, by Cholesky solves.

``R = G (G + εN I)⁻¹`` is computed as the solution of ``(G + εN I) R = G`` (``G`` and its
regularised inverse commute), and the EO trace
``Tr[R_u R_e − 2 R_u R_e R_c + R_u R_c R_e R_c]`` as ``Tr[(I − R_c) R_u (I − R_c) R_e]``, which
needs two matrix products instead of six. Time O(N³), memory O(N²).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from .._kernels.kernel import KernelInput, kernel_matrix, to_host
from .._linalg.backend import eye_like, namespace, solve_psd, trace_of_product
from .approximate_null import NullFactors
from .spectral_null import ResidualFeatures
from .strata import permutation_strata
from .terms import Ridge, StrataBlocks, Terms, expected_permuted_trace, permutable

#: Most rows the exact estimator accepts. It holds several ``N × N`` float64 matrices (0.75 GiB
#: each at 10,000 rows) and its time grows as N³ (minutes at 10,000 rows; see the performance
#: page).
MAX_EXACT_ROWS = 10_000
#: Seconds of the exact estimator at 3,000 rows (DP, EO), for the estimate in its refusal.
_SECONDS_AT_3000 = {False: 3.8, True: 9.3}


def check_exact_size(n: int, conditional: bool) -> None:
    """Refuse ``n`` rows beyond :data:`MAX_EXACT_ROWS`, with the estimated cost and what to do."""
    if n <= MAX_EXACT_ROWS:
        return
    minutes = _SECONDS_AT_3000[conditional] * (n / 3000) ** 3 / 60
    raise ValueError(
        f"method='exact' at {n:,} rows would hold several {n:,} × {n:,} matrices of "
        f"{n * n * 8 / 2**30:.1f} GiB each and take about {minutes:,.0f} minutes on two cores "
        f"(its time grows as N³); it takes at most {MAX_EXACT_ROWS:,} rows. Use "
        "method='lowrank' (what 'auto' chooses), which factors discrete columns exactly."
    )


class ExactFit:
    """Exact operators of one notion, with its :class:`Terms` and permuted statistics."""

    def __init__(
        self,
        u: KernelInput,
        e: KernelInput,
        c: KernelInput | None,
        ridge: Ridge,
        like: Any,
    ) -> None:
        check_exact_size(u.n, c is not None)
        xp = namespace(like)
        r_u = r_operator(u, ridge.eps, like)
        r_e = r_operator(e, ridge.eps, like)
        if c is None:
            m, u_side, e_side = r_u, r_u, r_e
        else:
            projector = eye_like(u.n, like) - r_operator(c, ridge.conditioning, like)
            u_side = r_u @ projector
            e_side = r_e @ projector
            m = projector @ u_side
        self._m, self._r_e, self._ridge, self._given = m, r_e, ridge, c
        self.terms = Terms(
            statistic=trace_of_product(m, r_e),
            rank=u.n,
            method="exact",
            n=u.n,
            norm_bound=ridge.norm_bound(u.n),
            compute_norms=lambda: (
                xp.sqrt(xp.sum(u_side * u_side)),
                xp.sqrt(xp.sum(e_side * e_side)),
            ),
            compute_null_statistic=self._null_statistic,
        )

    @cached_property
    def strata(self) -> np.ndarray:
        """Stratum of each row, within which permutations shuffle attribute rows (found on the
        host on first use: only the permutation null needs them)."""
        return permutation_strata(self._given, self.terms.n)

    def permuted_statistics(self, permutations: np.ndarray) -> np.ndarray:
        """The statistic with the attribute rows permuted by each row of ``permutations``."""
        m, r_e = self._host_m, self._host_r_e
        return np.array([np.sum(m * r_e[np.ix_(p, p)].T) for p in permutations])

    def attribute_statistics(self, inputs: Sequence[KernelInput]) -> np.ndarray:
        """The statistic with the extended attributes replaced by each of ``inputs`` (the same
        rows)."""
        host = np.zeros((), dtype=np.float64)
        return np.array(
            [
                np.sum(self._host_m * r_operator(e.on_host(), self._ridge.eps, host).T)
                for e in inputs
            ]
        )

    def null_factors(self) -> NullFactors:
        """The statistic ``Tr[M R_e]`` (``M = P R_u P``) as ``‖xᵀ e‖²_F`` with ``x xᵀ = M`` and
        ``e eᵀ = R_e``, from their eigendecompositions (``N`` is below the exact estimator's
        limit, so ``O(N³)`` is its own cost)."""
        return NullFactors(_psd_root(self._host_m), _psd_root(self._host_r_e))

    def residual_features(self) -> ResidualFeatures:
        """Roots of ``M = P R_u P`` and of ``P R_e P`` (``P = I − R_c``; ``I`` under DP), from
        their eigendecompositions; ``P`` is recomputed here, so that a score does not hold
        it."""
        r_e = self._host_r_e
        if self._given is not None:
            host = np.zeros((), dtype=np.float64)
            projector = np.eye(self.terms.n) - r_operator(
                self._given.on_host(), self._ridge.conditioning, host
            )
            r_e = projector @ r_e @ projector
        return ResidualFeatures(_psd_root(self._host_m), _psd_root(r_e))

    @cached_property
    def _host_m(self) -> np.ndarray:
        return to_host(self._m)

    @cached_property
    def _host_r_e(self) -> np.ndarray:
        return to_host(self._r_e)

    def _null_statistic(self) -> float:
        """Expected statistic when attribute rows are permuted within strata (NaN when they
        are too few to permute)."""
        counts = np.bincount(self.strata)
        if not permutable(counts):
            return float("nan")
        return expected_permuted_trace(
            _strata_blocks(self._host_m, self.strata),
            _strata_blocks(self._host_r_e, self.strata),
            counts,
        )


def r_operator(k: KernelInput, eps: float, like: Any) -> Any:
    """``R = G (G + εN I)⁻¹`` for the centred Gram matrix ``G`` of ``k``."""
    xp = namespace(like)
    kernel = kernel_matrix(k, like)
    n = kernel.shape[0]
    gram = (
        kernel
        - xp.mean(kernel, axis=0)[None, :]
        - xp.mean(kernel, axis=1)[:, None]
        + xp.mean(kernel)
    )
    return solve_psd(gram + (eps * n) * eye_like(n, like), gram)


def _psd_root(matrix: np.ndarray) -> np.ndarray:
    """``x`` with ``x xᵀ = matrix`` for a symmetric PSD ``matrix``, keeping the eigenvalues
    above rounding level."""
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2.0)
    keep = values > 1e-12 * max(float(values.max()), 0.0)
    if not keep.any():
        return np.zeros((matrix.shape[0], 1))  # a zero operator (a constant variable)
    return vectors[:, keep] * np.sqrt(values[keep])


def _strata_blocks(matrix: np.ndarray, strata: np.ndarray) -> StrataBlocks:
    indicator = np.eye(int(strata.max()) + 1)[strata]
    return StrataBlocks(indicator.T @ matrix @ indicator, indicator.T @ np.diag(matrix))
