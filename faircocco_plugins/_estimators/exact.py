"""The exact estimator: the paper's ``N × N`` formulas, by Cholesky solves.

``R = G (G + εN I)⁻¹`` is computed as the solution of ``(G + εN I) R = G`` (``G`` and its
regularised inverse commute), and the EO trace
``Tr[R_u R_e − 2 R_u R_e R_c + R_u R_c R_e R_c]`` as ``Tr[(I − R_c) R_u (I − R_c) R_e]``, which
needs two matrix products instead of six. Time O(N³), memory O(N²).

A variable whose columns are all discrete, with fewer level combinations than rows, has exact
features ``F`` (``N × l``, centred, ``F Fᵀ = G``): by the push-through identity
``R = X Xᵀ`` with ``X = F chol(FᵀF + εN I)⁻ᵀ``. When the measured variable or the attributes
are such a *narrow* side, the statistic is ``Tr[Yᵀ R Y]`` with ``Y = (I − R_c) X`` and ``R``
the other side's, ``‖Y‖² − εN ‖L⁻¹ Y‖²`` with ``L Lᵀ = G + εN I``: one Cholesky factor and
solves for ``l`` columns instead of ``N``. The ``N × N`` operators are formed only where
something needs them (a wide side's norm, the permutation null).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from .._kernels.kernel import KernelInput, kernel_matrix, to_host
from .._kernels.levels import LevelEncoder, level_columns
from .._linalg.backend import (
    PsdSolver,
    as_like,
    divide_by_lower_transposed,
    eye_like,
    namespace,
    solve_psd,
    trace_of_product,
)
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


def exact_seconds(n: int, conditional: bool) -> float:
    """The exact estimator's estimated seconds at ``n`` rows, DP or (``conditional``) EO and CAL:
    its time grows as N³ from the figures at 3,000 rows."""
    return _SECONDS_AT_3000[conditional] * (n / 3000) ** 3


def check_exact_size(n: int, conditional: bool) -> None:
    """Refuse ``n`` rows beyond :data:`MAX_EXACT_ROWS`, with the estimated cost and what to do."""
    if n <= MAX_EXACT_ROWS:
        return
    minutes = exact_seconds(n, conditional) / 60
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
        self._inputs, self._ridge, self._given, self._like = {"u": u, "e": e}, ridge, c, like
        narrow = {side: narrow_features(k, ridge.eps, like) for side, k in self._inputs.items()}
        self._narrow = {side: x for side, x in narrow.items() if x is not None}
        self.terms = Terms(
            statistic=self._statistic(),
            rank=u.n,
            method="exact",
            n=u.n,
            norm_bound=ridge.norm_bound(u.n),
            compute_norms=lambda: (self._norm("u"), self._norm("e")),
            compute_null_statistic=self._null_statistic,
        )

    def _statistic(self) -> Any:
        """``Tr[M R_e]``: ``Tr[Yᵀ R Y]`` for ``Y = P X`` of a narrow side's ``X`` and the other
        side's ``R`` (``P = I − R_c``), or from the ``N × N`` operators."""
        for side, other in (("e", "u"), ("u", "e")):
            if side in self._narrow:
                return self._quadratic(other, self._projected_narrow[side])
        return trace_of_product(self._m, self._r_e)

    @cached_property
    def _projected_narrow(self) -> dict[str, Any]:
        """``P X`` of each narrow side (for its statistic and its norm)."""
        return {side: self._projected(x) for side, x in self._narrow.items()}

    def _quadratic(self, side: str, y: Any) -> Any:
        """``Tr[Yᵀ R Y]`` for ``side``'s ``R``: ``‖Xᵀ Y‖²`` when it is narrow, else
        ``‖Y‖² − εN ‖L⁻¹ Y‖²`` (``R = I − εN (G + εN I)⁻¹``)."""
        xp = namespace(y)
        if side in self._narrow:
            cross = self._narrow[side].T @ y
            return xp.sum(cross * cross)
        shift = self._ridge.eps * self._inputs["u"].n
        solver = _regularised(self._inputs[side], shift, self._like)
        divided = divide_by_lower_transposed(y.T, solver.lower)
        return xp.sum(y * y) - shift * xp.sum(divided * divided)

    def _projected(self, x: Any) -> Any:
        """``(I − R_c) X``: ``X − X_c (X_cᵀ X)`` for a narrow conditioning variable, else
        ``εN (G_c + εN I)⁻¹ X`` with the conditioning ridge; ``X`` without conditioning."""
        if self._given is None:
            return x
        if self._narrow_given is not None:
            return x - self._narrow_given @ (self._narrow_given.T @ x)
        shift = self._ridge.conditioning * self._given.n
        return shift * _regularised(self._given, shift, self._like).solve(x)

    @cached_property
    def _narrow_given(self) -> Any | None:
        assert self._given is not None
        return narrow_features(self._given, self._ridge.conditioning, self._like)

    def _norm(self, side: str) -> Any:
        """``‖R P‖_F`` of ``side`` (``P = I − R_c``): ``Tr[(XᵀX)(YᵀY)]`` with ``Y = P X`` when
        it is narrow, from the ``N × N`` operators otherwise."""
        xp = namespace(self._like)
        if side in self._narrow:
            x, y = self._narrow[side], self._projected_narrow[side]
            return xp.sqrt(xp.clip(trace_of_product(x.T @ x, y.T @ y), min=0.0))
        product = self._u_side if side == "u" else self._e_side
        return xp.sqrt(xp.sum(product * product))

    @cached_property
    def _r_u(self) -> Any:
        return r_operator(self._inputs["u"], self._ridge.eps, self._like)

    @cached_property
    def _r_e(self) -> Any:
        return r_operator(self._inputs["e"], self._ridge.eps, self._like)

    @cached_property
    def _projector(self) -> Any:
        """``P = I − R_c``."""
        assert self._given is not None
        c = self._given
        return eye_like(c.n, self._like) - r_operator(c, self._ridge.conditioning, self._like)

    @cached_property
    def _u_side(self) -> Any:
        """``R_u P`` (``R_u`` without conditioning)."""
        return self._r_u if self._given is None else self._r_u @ self._projector

    @cached_property
    def _e_side(self) -> Any:
        """``R_e P`` (``R_e`` without conditioning)."""
        return self._r_e if self._given is None else self._r_e @ self._projector

    @cached_property
    def _m(self) -> Any:
        """``M = P R_u P`` (``R_u`` without conditioning)."""
        return self._u_side if self._given is None else self._projector @ self._u_side

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
    gram = centred_gram(k, like)
    n = gram.shape[0]
    return solve_psd(gram + (eps * n) * eye_like(n, like), gram)


def centred_gram(k: KernelInput, like: Any) -> Any:
    """``G = H K H``, the centred kernel matrix of ``k``."""
    xp = namespace(like)
    kernel = kernel_matrix(k, like)
    return (
        kernel
        - xp.mean(kernel, axis=0)[None, :]
        - xp.mean(kernel, axis=1)[:, None]
        + xp.mean(kernel)
    )


def _regularised(k: KernelInput, shift: float, like: Any) -> PsdSolver:
    """The Cholesky factorisation of ``G + shift I`` for ``k``'s centred Gram matrix ``G``."""
    return PsdSolver(centred_gram(k, like) + shift * eye_like(k.n, like))


#: A variable is a narrow side (:func:`narrow_features`) when its level combinations are at most
#: this fraction of the rows: its solves then take at most this fraction of the ``N``
#: right-hand sides of the ``N × N`` operator's.
NARROW_FRACTION = 0.5


def narrow_features(k: KernelInput, eps: float, like: Any) -> Any | None:
    """``X`` (``N × l``) with ``R = X Xᵀ`` exactly, for a variable whose every column is
    discrete (nominal, or numeric with few values) with at most :data:`NARROW_FRACTION` of the
    rows as level combinations; None for any other, and for tensors (their columns may carry
    gradients, which a piecewise constant level factor drops, and their levels would be read
    from their device).

    The level factor ``W`` (``W Wᵀ`` the kernel between the combinations) gives the features
    ``F = H W[g]``, with ``F Fᵀ = G``, and ``X = F chol(FᵀF + εN I)⁻ᵀ`` (push-through).
    """
    if k.z is not None and not isinstance(k.z, np.ndarray):
        return None
    z = k.z
    discrete = level_columns(z)
    if z is not None and len(discrete) != z.shape[1]:
        return None
    levels = LevelEncoder(discrete, 0 if k.codes is None else k.codes.shape[1])
    codes = levels.encode(k.n, z, k.codes, k.levels)
    if levels.n_combinations > NARROW_FRACTION * k.n:
        return None
    features = _psd_root(levels.level_kernel(k.kernel))[codes]
    features = as_like(features - features.mean(axis=0), like)
    xp = namespace(like)
    width = int(features.shape[1])
    lower = xp.linalg.cholesky(features.T @ features + (eps * k.n) * eye_like(width, like))
    return divide_by_lower_transposed(features, lower)


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
