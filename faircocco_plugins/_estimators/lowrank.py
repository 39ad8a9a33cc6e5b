"""The low-rank estimator's fit: O(N r²) time, O(N r) memory, no ``N × N`` matrix.

Each variable's kernel is replaced by its feature map's ``Φ Φᵀ`` (:mod:`._estimators.feature_map`),
whose centred cross-Grams ``C_xy = Φ_xᵀ Φ_y`` are sums over rows (:mod:`._estimators.moments`).
With centred Grams ``C``, ``R = Φ (C + εN I)⁻¹ Φᵀ`` and every trace of the paper is ``r × r``
algebra.

The fit names what it needs of its rows beyond the pooled Grams (:class:`MomentSource`, with
per-stratum :class:`StratumMoments`); :class:`._estimators.moments.GroupedMoments` provides it and
builds the fit, so the moments import the fit and not the other way round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from typing import Any, NamedTuple, Protocol

import numpy as np

from .._kernels.kernel import KernelInput, to_host
from .._linalg.backend import (
    PsdSolver,
    divide_by_lower_transposed,
    eye_like,
    namespace,
    trace_of_product,
)
from .approximate_null import NullFactors, local_null_factors
from .kronecker_rows import KroneckerRows
from .spectral_null import ResidualFeatures
from .terms import Ridge, Role, StrataBlocks, Terms, expected_permuted_trace, permutable

#: the roles as the formulas name them: R_u, R_e and R_c (see :class:`._estimators.terms.Role`)
U, E, C = Role.MEASURED, Role.ATTRIBUTES, Role.GIVEN


class StratumMoments(NamedTuple):
    """Row count, uncentred feature sums and cross-Grams (host arrays) of one stratum."""

    rows: int
    sums: dict[str, np.ndarray]
    grams: dict[tuple[str, str], np.ndarray]


class MomentSource(Protocol):
    """What the permutation null and the permutation test need beyond the pooled Grams."""

    def stratum_moments(self) -> Iterator[StratumMoments]: ...

    def row_strata(self) -> np.ndarray: ...

    def host_features(self) -> dict[str, np.ndarray]: ...

    def refitted_features(self, role: str, inputs: Sequence[KernelInput]) -> KroneckerRows: ...

    def explicit_factors(self, role: str, k: KernelInput) -> tuple[np.ndarray, np.ndarray]: ...


class LowRankFit:
    """Low-rank operators of one notion, with its :class:`Terms`."""

    def __init__(
        self,
        means: dict[str, Any],
        centred: dict[tuple[str, str], Any],
        n: int,
        ridge: Ridge,
        like: Any,
        source: Callable[[], MomentSource],
        method: str = "lowrank",
    ) -> None:
        """Solve from the feature ``means`` and centred cross-Grams of ``n`` rows.

        ``source`` gives per-stratum moments and, in memory, feature rows; it is called on first
        use (only the permutation null and the permutation test need it). ``method`` names the
        estimator: ``"exact"`` when the features are complete.
        """
        self._source_of = source
        self._shifts: dict[str, float] = {role: ridge.shift(role, n) for role in (U, E, C)}
        self._means = means
        self._grams = centred
        solvers = self._solvers(centred)
        self.terms = Terms(
            statistic=_statistic(centred, solvers),
            rank=max(int(g.shape[0]) for (x, y), g in centred.items() if x == y),
            method=method,
            n=n,
            norm_bound=ridge.norm_bound(n),
            compute_norms=lambda: (
                _norm(centred, solvers, U),
                _norm(centred, solvers, E),
            ),
            compute_null_statistic=self._null_statistic,
        )

    @cached_property
    def _source(self) -> MomentSource:
        return self._source_of()

    @cached_property
    def _host_grams(self) -> dict[tuple[str, str], np.ndarray]:
        return {key: to_host(g) for key, g in self._grams.items()}

    @cached_property
    def _host_solvers(self) -> dict[str, PsdSolver]:
        return self._solvers(self._host_grams)

    @cached_property
    def strata(self) -> np.ndarray:
        """Stratum of each in-memory row, within which permutations shuffle attribute rows."""
        return self._source.row_strata()

    def permuted_statistics(self, permutations: np.ndarray) -> np.ndarray:
        """The statistic with the attribute rows permuted by each row of ``permutations``
        (``B × N``), from explicit feature rows: the feature maps stay, so only ``C_ue`` and
        ``C_ce`` change (``C_ee`` and its factorisation do not)."""
        features = self._centred_features
        rows = features[E][permutations]
        cross: dict[str, np.ndarray] = {x: features[x].T @ rows for x in (U, C) if x in features}
        return self._attribute_row_statistics(cross, self._host_solvers[E])

    def attribute_statistics(self, inputs: Sequence[KernelInput]) -> np.ndarray:
        """The statistic with the extended attributes replaced by each of ``inputs`` (the same
        rows).

        Each input gets a feature map fitted on itself, as the observed attributes did, so that
        this is the statistic of the replaced data; ``C_ue``, ``C_ce`` and ``C_ee`` change.
        """
        features = self._centred_features
        rows = self._source.refitted_features(E, inputs)
        cross, grams = rows.moments({x: features[x] for x in (U, C) if x in features})
        return self._attribute_row_statistics(cross, grams + self._shifts[E] * np.eye(rows.width))

    def _attribute_row_statistics(
        self, cross: dict[str, np.ndarray], attribute_side: PsdSolver | np.ndarray
    ) -> np.ndarray:
        """:func:`_statistic` for each of a stack of attribute feature rows, from their cross
        products with the other variables' centred rows (``cross[x]``: ``B × r_x × w``), the
        other variables' factors and factorisations fixed: :func:`attribute_trace` of the
        stack of ``Q``.

        ``attribute_side`` is the solver of ``C_ee + εN I`` that permuted rows share, or each
        member's own (``B × w × w``) for refitted rows. The other variables' rows are centred,
        so their cross-Grams with the attribute rows need no centring.
        """
        q = cross[U]
        if C in cross:
            q = q - self._host_grams[(U, C)] @ self._host_solvers[C].solve(cross[C])
        if isinstance(attribute_side, PsdSolver):
            lower = attribute_side.lower
        else:
            lower = np.linalg.cholesky(attribute_side)
        return attribute_trace(q, self._host_solvers[U], lower).value

    def null_factors(self) -> NullFactors:
        """The statistic ``Tr[A_u Q A_e Qᵀ]`` as ``‖xᵀ e‖²_F``: ``x = (I − R_c) Φ̃_u L_u⁻ᵀ``
        and ``e = Φ̃_e L_e⁻ᵀ``, with ``L_r L_rᵀ = C_rr + εN I`` (so ``R_r = Φ̃_r L_r⁻ᵀ
        (Φ̃_r L_r⁻ᵀ)ᵀ``); permuting the attribute rows permutes the rows of ``Φ̃_e``."""
        features, solvers = self._centred_features, self._host_solvers
        x = divide_by_lower_transposed(features[U], solvers[U].lower)
        if C in features:
            x = x - features[C] @ solvers[C].solve(features[C].T @ x)
        return NullFactors(x, features[E], solvers[E].lower, self._host_grams[(E, E)])

    def residual_features(self) -> ResidualFeatures:
        """``x = (I − R_c) Φ̃_u L_u⁻ᵀ`` (:meth:`null_factors`) and ``ẽ = (I − R_c) Φ̃_e L_e⁻ᵀ``,
        with ``(I − R_c) v = v − Φ̃_c (C_cc + ε_c N I)⁻¹ Φ̃_cᵀ v``."""
        features, solvers = self._centred_features, self._host_solvers
        x = self.null_factors().x
        e = divide_by_lower_transposed(features[E], solvers[E].lower)
        if C in features:
            e = e - features[C] @ solvers[C].solve(features[C].T @ e)
        return ResidualFeatures(x, e)

    def local_null_factors(
        self,
        attributes: Callable[[np.ndarray, np.ndarray | None], KernelInput],
        strata: np.ndarray,
    ) -> NullFactors:
        """:meth:`null_factors` for the local null, which permutes the attributes alone within
        ``strata`` (:func:`._estimators.approximate_null.local_null_factors`): ``attributes(rows,
        given_rows)`` is the extended attribute input of the attributes of ``rows`` with the
        conditioning variable of ``given_rows``, mapped by this fit's feature map."""
        base = self.null_factors()

        def pair_factors(rows: np.ndarray, given_rows: np.ndarray) -> tuple[np.ndarray, ...]:
            return self._source.explicit_factors(E, attributes(rows, given_rows))

        mean = to_host(self._means[E])
        return local_null_factors(base.x, base.lower, pair_factors, mean, strata)

    @cached_property
    def _centred_features(self) -> dict[str, np.ndarray]:
        return {
            role: rows - to_host(self._means[role])
            for role, rows in self._source.host_features().items()
        }

    def _solvers(self, grams: dict[tuple[str, str], Any]) -> dict[str, PsdSolver]:
        """Factorised ``C_rr + εN I`` of every variable."""
        return {
            x: PsdSolver(g + self._shifts[x] * eye_like(int(g.shape[0]), g))
            for (x, y), g in grams.items()
            if x == y
        }

    def _null_statistic(self) -> float:
        """Expected statistic when attribute rows are permuted within strata (NaN when they are
        too few to permute)."""
        means = {role: to_host(m) for role, m in self._means.items()}
        solvers = self._host_solvers
        conditional = C in solvers
        if conditional:
            t_u = solvers[C].solve(self._host_grams[(C, U)])
        u_sums, u_diag, e_sums, e_diag, counts = [], [], [], [], []
        for n_s, raw_sums, raw_grams in self._source.stratum_moments():
            sums = {role: raw_sums[role] - n_s * means[role] for role in raw_sums}
            centred = {
                (x, y): raw_grams[(x, y)]
                - np.outer(raw_sums[x], means[y])
                - np.outer(means[x], raw_sums[y])
                + n_s * np.outer(means[x], means[y])
                for (x, y) in raw_grams
            }
            psi, gram_u = sums[U], centred[(U, U)]
            if conditional:
                psi = psi - t_u.T @ sums[C]
                gram_u = _projected_gram(
                    gram_u,
                    centred[(U, C)],
                    centred[(C, C)],
                    t_u,
                )
            u_sums.append(psi)
            u_diag.append(np.trace(solvers[U].solve(gram_u)))
            e_sums.append(sums[E])
            e_diag.append(np.trace(solvers[E].solve(centred[(E, E)])))
            counts.append(n_s)
        if not permutable(np.asarray(counts)):
            return float("nan")
        psi_all, e_all = np.stack(u_sums), np.stack(e_sums)
        m = StrataBlocks(psi_all @ solvers[U].solve(psi_all.T), np.asarray(u_diag))
        b = StrataBlocks(e_all @ solvers[E].solve(e_all.T), np.asarray(e_diag))
        return expected_permuted_trace(m, b, np.asarray(counts))


def _statistic(c: dict[tuple[str, str], Any], solvers: dict[str, PsdSolver]) -> Any:
    """``Tr[A_u Q A_e Qᵀ]`` with ``Q = Φ_uᵀ (I − R_c) Φ_e`` (``Q = C_ue`` without conditioning)."""
    q = c[(U, E)]
    if C in solvers:
        q = q - c[(U, C)] @ solvers[C].solve(c[(C, E)])
    return attribute_trace(q, solvers[U], solvers[E].lower).value


class AttributeTrace(NamedTuple):
    """The statistic ``value`` of :func:`attribute_trace`, with the ``cross`` ``X = Q L_e⁻ᵀ``
    and the ``inner`` ``A_u (X Xᵀ − N)`` that a closed-form gradient reuses."""

    value: Any
    cross: Any
    inner: Any


def attribute_trace(q: Any, solver_u: PsdSolver, lower_e: Any, null: Any = None) -> AttributeTrace:
    """The low-rank statistic ``Tr[A_u Q A_e Qᵀ]``, less ``Tr[A_u N]`` for a ``null`` term.

    ``A_u = (C_uu + εN I)⁻¹`` is solved by ``solver_u`` and ``A_e = (L_e L_eᵀ)⁻¹`` through its
    lower factor ``lower_e``; as ``Tr[A_u (X Xᵀ − N)]`` with ``X = Q L_e⁻ᵀ``, one trace: two
    subtracted after their solves would lose the digits that they share. A stack of ``Q``
    (``B × r_u × w``, with one ``lower_e`` or a stack of them) gives a statistic each: the
    permutation null's.
    """
    cross = divide_by_lower_transposed(q, lower_e)
    difference = cross @ cross.mT
    if null is not None:
        difference = difference - null
    inner = solver_u.solve(difference)
    return AttributeTrace(namespace(inner).linalg.trace(inner), cross, inner)


def _norm(c: dict[tuple[str, str], Any], solvers: dict[str, PsdSolver], role: str) -> Any:
    """``||R_x (I − R_c)||_F``, from ``Tr[A_x C_xx A_x Φ_xᵀ (I − R_c)² Φ_x]``, for ``x = role``."""
    c_xx = c[(role, role)]
    projected = c_xx
    if C in solvers:
        t_x = solvers[C].solve(c[(C, role)])
        projected = _projected_gram(c_xx, c[(role, C)], c[(C, C)], t_x)
    squared = trace_of_product(solvers[role].solve(c_xx), solvers[role].solve(projected))
    xp = namespace(squared)
    return xp.sqrt(xp.clip(squared, min=0.0))


def _projected_gram(c_xx: Any, c_xc: Any, c_cc: Any, t_x: Any) -> Any:
    """``(Φ_x − Φ_c t_x)ᵀ (Φ_x − Φ_c t_x)`` from Grams.

    With ``t_x = (C_cc + εN I)⁻¹ C_cx`` this is ``Φ_xᵀ (I − R_c)² Φ_x``.
    """
    xp = namespace(c_xx)
    cross = c_xc @ t_x
    t_x_transposed = xp.permute_dims(t_x, (1, 0))
    return c_xx - cross - xp.permute_dims(cross, (1, 0)) + t_x_transposed @ c_cc @ t_x
