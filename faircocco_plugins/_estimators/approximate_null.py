"""The gamma null of the independence test: the permutation null's first three cumulants,
computed from the estimator's factors with no permutation, and a shifted gamma distribution
that matches them.

Every route writes its statistic as ``T = ‖xᵀ e‖²_F`` (:class:`NullFactors`), where the rows
of ``e`` are the attributes' (the extended attributes' under EO and CAL) and the permutation
null moves them within strata while ``x`` stays. Over uniform permutations within strata,
``M = xᵀ Π e`` has the mean ``μ = Σ_s n_s x̄_s ē_sᵀ`` and the covariance
``Σ = Σ_s (A_s ⊗ B_s) / (n_s − 1)``, with ``A_s`` and ``B_s`` the Grams of the rows of
stratum ``s`` centred on its means (Hoeffding 1951). Then, exactly,

* ``κ₁ = E[T] = ‖μ‖²_F + Tr Σ``;
* ``κ₂ = Var T = Σ_s Var ‖D_s‖² + 2 Σ_{s≠t} Tr Σ_s Σ_t + 4 μᵀ Σ μ
  + 4 Σ_s E[‖D_s‖² ⟨μ, D_s⟩]``, with ``D_s`` stratum ``s``'s centred part, the variance of
  each stratum's quadratic form from the 15 equality patterns of four indices
  (:func:`_stratum_variances`) and the last term from the third moment of a linear
  permutation statistic;

and the third cumulant is the one of the Gaussian limit's skewness (Hoeffding's combinatorial
central limit theorem: ``κ₃ / κ₂^{3/2}`` with ``κ₂ = 2 Tr Σ² + 4 μᵀ Σ μ`` and
``κ₃ = 8 Tr Σ³ + 24 μᵀ Σ² μ``) at the exact variance. The p-value is the upper tail of the
shifted gamma distribution with these three cumulants (Pearson's three-moment approximation,
as Kazi-Aoual et al. 1995 use for the RV coefficient's permutation test): a two-moment gamma,
as Gretton et al. 2008 and Zhang et al.'s KCI use, misses the skewness of a null whose mean
is mostly a constant shift, and rejected up to 9.5% of true conditional nulls at the 5% level.

Several kernel widths are combined as the permutation test combines them, by their smallest
p-value, calibrated here by a Gaussian copula whose correlations are those of the widths'
statistics under the same null (:class:`WidthsNull`).

The docs' "How FairCOCCO works" page derives the cumulants;
``tests/core/test_approximate_null.py`` checks them against permuted statistics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .._linalg.backend import divide_by_lower_transposed, host_divide_by_lower

#: Share of ``Σγ²`` over the eigenvalues ``γ`` of the within-strata Grams of ``x`` and ``e``
#: that the coordinates of the second cumulant may leave out: the operators' eigenvalues
#: ``λ / (λ + εN)`` fall fast at the test's ``ε``, and only the leading ones matter (the
#: mean uses every one).
BASIS_TOLERANCE = 1e-3
#: The same for the third cumulant, which sets the skewness alone: ``Σ`` is written out in
#: these coordinates (``(p k)²`` entries, ``(p k)³`` flops) ...
THIRD_TOLERANCE = 1e-2
#: ... at most this many of them.
THIRD_WIDTH = 1024

#: Strata of at most this many rows have their Grams formed in one batched product, each padded
#: with zero rows to the largest of them (local strata have 10 to 19 rows).
PADDED_ROWS = 64

#: Quasi-random points (a Halton sequence) of the Gaussian copula's probability.
COPULA_POINTS = 4096

#: Most entries of one chunk of per-stratum Grams (``chunk × k²``), to bound memory.
_CHUNK_ENTRIES = 2**22
#: Most pairs of rows whose features :func:`local_null_factors` computes at once.
_PAIR_ROWS = 2**14


@dataclass(frozen=True)
class NullFactors:
    """The statistic as ``T = ‖xᵀ e‖²_F`` with ``e = rows L⁻ᵀ``.

    ``x`` (``N × p``) stays under the null; the rows of ``e`` (``N × q``) are permuted within
    strata. ``lower`` is ``L`` (``q × q``, lower triangular), None for ``e = rows``;
    ``rows_gram`` is ``rowsᵀ rows`` when the caller has it and the rows are centred (it saves
    ``N q²``); ``shift`` (``p × q``, in the coordinates of ``rows``) is added to the mean of
    ``xᵀ Π rows`` (the local null's alignment, :func:`local_null_factors`).
    """

    x: np.ndarray
    rows: np.ndarray
    lower: np.ndarray | None = None
    rows_gram: np.ndarray | None = None
    shift: np.ndarray | None = None

    def e(self) -> np.ndarray:
        """``rows L⁻ᵀ``, written out (the cumulants never need it)."""
        if self.lower is None:
            return self.rows
        return divide_by_lower_transposed(self.rows, self.lower)


@dataclass(frozen=True)
class NullMoments:
    """The first three cumulants of the statistic under the permutation null."""

    mean: float
    variance: float
    third: float

    def pvalue(self, statistic: float) -> float:
        """``P(c + G ≥ statistic)`` for the shifted gamma variable of these cumulants: ``G``
        with shape ``k = 4 κ₂³ / κ₃²`` and scale ``θ = κ₃ / (2 κ₂)``, and ``c = κ₁ − k θ``.

        A null without spread (no permutation changes the statistic, or the statistic is 0
        under every one) gives 1, as every permuted statistic ties with the observed one.
        """
        if not self.variance > 0.0 or not self.third > 0.0:
            return 1.0
        from scipy.special import gammaincc

        shape = 4.0 * self.variance**3 / self.third**2
        scale = self.third / (2.0 * self.variance)
        excess = statistic - (self.mean - shape * scale)
        return 1.0 if excess <= 0.0 else float(gammaincc(shape, excess / scale))


class Tail(Protocol):
    """The upper tail of one width's null distribution."""

    def pvalue(self, statistic: float) -> float:
        """``P(T ≥ statistic)`` under the null."""
        ...


@dataclass(frozen=True)
class WidthsNull:
    """A null of the statistic at several kernel widths: each width's tail and the
    correlations of the widths' statistics under the null."""

    tails: tuple[Tail, ...]
    correlation: np.ndarray

    @classmethod
    def of(cls, factors: Sequence[NullFactors], strata: np.ndarray) -> WidthsNull:
        """The gamma null of the statistics of ``factors`` (one per width; their rows permuted
        together within ``strata``)."""
        groups = _Groups(strata)
        leading = [_Leading.of(f, groups) for f in factors]
        moments, covariance = [], np.zeros((len(leading), len(leading)))
        for w, first in enumerate(leading):
            for v in range(w, len(leading)):
                terms = _pair_terms(first, leading[v], groups, third=v == w)
                # the Gaussian limit's covariance, for the correlations
                covariance[w, v] = covariance[v, w] = 2.0 * terms.trace + 4.0 * terms.shift
                if v == w:
                    moments.append(_moments(first.mean, covariance[w, w], terms))
        return cls.from_covariance(tuple(moments), covariance)

    @classmethod
    def from_covariance(cls, tails: tuple[Tail, ...], covariance: np.ndarray) -> WidthsNull:
        """The null of ``tails`` whose statistics have ``covariance`` under it."""
        scale = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
        scale[scale == 0.0] = np.inf  # a width without spread is independent of the others
        correlation = np.clip(covariance / np.outer(scale, scale), -1.0, 1.0)
        np.fill_diagonal(correlation, 1.0)
        return cls(tails, correlation)

    def pvalue(self, statistics: Sequence[float]) -> float:
        """The p-value of the smallest of the widths' p-values ``m``: the probability that the
        smallest of the widths' null p-values is at most ``m``, for jointly Gaussian scores
        ``Φ⁻¹(1 − p_w)`` with :attr:`correlation`; between ``m`` and ``W m``."""
        pvalues = [m.pvalue(t) for m, t in zip(self.tails, statistics, strict=True)]
        smallest = min(pvalues)
        if len(pvalues) == 1 or smallest >= 1.0:
            return smallest
        from scipy.special import ndtri

        below = _gaussian_orthant(self.correlation, -ndtri(smallest))
        return float(np.clip(1.0 - below, smallest, min(1.0, len(pvalues) * smallest)))


def _moments(mean: float, gaussian_variance: float, terms: _PairTerms) -> NullMoments:
    """One width's cumulants: the exact mean and variance, and the Gaussian limit's skewness
    at that variance (a statistic without spread has none)."""
    variance = max(gaussian_variance + terms.finite, 0.0)
    if not (variance > 0.0 and gaussian_variance > 0.0):
        return NullMoments(mean, 0.0, 0.0)
    third = 8.0 * terms.trace_cube + 24.0 * terms.shift_cube
    return NullMoments(mean, variance, max(third * (variance / gaussian_variance) ** 1.5, 0.0))


def permutation_moments(factors: NullFactors, strata: np.ndarray) -> NullMoments:
    """The first three cumulants of ``‖xᵀ Π e‖²_F`` over uniform permutations ``Π`` of the
    rows of ``e`` within ``strata`` (:class:`WidthsNull` of one width)."""
    moments = WidthsNull.of([factors], strata).tails[0]
    assert isinstance(moments, NullMoments)
    return moments


def local_null_factors(
    x: np.ndarray,
    lower: np.ndarray | None,
    pair_factors: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, ...]],
    mean: np.ndarray,
    strata: np.ndarray,
) -> NullFactors:
    """Factors whose row-permutation moments approximate those of the local null, which
    permutes the attributes alone within strata of a continuous conditioning variable.

    There the rows of ``e`` are ``e(a_π(i), c_i)``: row ``i``'s conditioning value stays, so
    a permutation does not move rows of a fixed matrix. ``pair_factors(a_rows, c_rows)`` gives
    the level rows ``W`` and continuous factor rows ``φ`` of the features (before centring on
    ``mean`` and ``L⁻ᵀ``) of the attributes of ``a_rows`` with the conditioning values of
    ``c_rows``, the features being ``W ⊗ φ`` row by row. Over the pairs ``(i, j)`` of each
    stratum, with ``g_ij = e(a_j, c_i)``:

    * the mean ``E[M] = Σ_i x_i ḡ_iᵀ`` (``ḡ_i`` the mean of ``g_ij`` over ``j``) is exact: it
      is the row permutation's shift of the rows ``ĝ_j`` (the mean of ``g_ij`` over ``i``) plus
      ``Δ = Σ_s Σ_{i∈s} (x_i − x̄_s)(ḡ_i − ḡ_s)ᵀ``, the alignment of ``x`` with the
      conditioning values within strata that the permutation keeps;
    * the covariance is that of permuting the rows ``ĝ_j``, which leaves out how ``g_ij``
      varies with ``i`` beyond its mean (the conditioning value moves little within a
      stratum).
    """
    groups = _Groups(strata)
    row_means, column_means = _pair_means(pair_factors, groups)
    x_centred, _ = groups.centred(x)
    means_centred, _ = groups.centred(row_means)
    return NullFactors(x, column_means - mean, lower, shift=x_centred.T @ means_centred)


def _pair_means(
    pair_factors: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, ...]], groups: _Groups
) -> tuple[np.ndarray, np.ndarray]:
    """For every row ``i``, the means over the rows ``j`` of its stratum of the features
    ``g_ij`` (the attributes of ``j`` with the conditioning value of ``i``) and of ``g_ji``.

    The strata of one size are stacked, ``(S, n, n)`` pairs at a time, and each mean is taken
    of the two factors of ``W ⊗ φ`` without writing the product out."""
    row_means: np.ndarray | None = None
    column_means: np.ndarray | None = None
    for size in np.unique(groups.sizes):
        starts = groups.starts[groups.sizes == size]
        members = groups.order[starts[:, None] + np.arange(size)]  # (S, n)
        step = max(1, _PAIR_ROWS // (size * size))
        for first in range(0, len(members), step):
            block = members[first : first + step]
            given = np.repeat(block, size, axis=1).reshape(-1)  # i, each n times
            attributes = np.tile(block, (1, size)).reshape(-1)  # j, cycling
            levels, factor = pair_factors(attributes, given)
            shape = (len(block), size, size)
            levels = levels.reshape(*shape, -1)
            factor = factor.reshape(*shape, -1)
            width = levels.shape[-1] * factor.shape[-1]
            if row_means is None or column_means is None:
                row_means = np.empty((groups.order.size, width))
                column_means = np.empty_like(row_means)
            rows = block.reshape(-1)
            sums = np.einsum("sijl,sijr->silr", levels, factor, optimize=True)
            row_means[rows] = sums.reshape(-1, width) / size
            sums = np.einsum("sijl,sijr->sjlr", levels, factor, optimize=True)
            column_means[rows] = sums.reshape(-1, width) / size
    assert row_means is not None and column_means is not None
    return row_means, column_means


@dataclass(frozen=True)
class _Leading:
    """One width's factors, rows in stratum order and centred within strata, in the leading
    coordinates of their within-strata Grams, with the shift ``μ``, the exact mean and, per
    stratum, the traces of ``A_s`` and ``B_s`` and the sums of their diagonals' squares."""

    x: np.ndarray
    e: np.ndarray
    shift: np.ndarray
    mean: float
    weights: np.ndarray
    traces: tuple[np.ndarray, np.ndarray]
    fourths: tuple[np.ndarray, np.ndarray]
    skew_shift: float

    @classmethod
    def of(cls, factors: NullFactors, groups: _Groups) -> _Leading:
        counts = groups.counts
        weights = np.where(counts > 1, 1.0 / np.maximum(counts - 1.0, 1.0), 0.0)
        x, x_sums = groups.centred(factors.x)
        rows, row_sums = groups.centred(factors.rows)
        # μ = Σ_s n_s x̄_s ē_sᵀ = Σ_s x_sums_s ē_sᵀ
        shift = x_sums.T @ (row_sums / counts[:, None])
        if factors.shift is not None:
            shift = shift + factors.shift
        if factors.rows_gram is None:
            within = rows.T @ rows
        else:
            within = factors.rows_gram - row_sums.T @ (row_sums / counts[:, None])
        lower = factors.lower
        e = rows if lower is None else divide_by_lower_transposed(rows, lower)
        if lower is not None:
            shift = divide_by_lower_transposed(shift, lower)
            within = _congruence(within, lower)
        x_squares, e_squares = _row_squares(x), _row_squares(e)
        traces = (groups.sums(x_squares), groups.sums(e_squares))
        fourths = (groups.sums(x_squares**2), groups.sums(e_squares**2))
        # E[‖D_s‖² ⟨μ, D_s⟩] = n_s / ((n_s − 1)(n_s − 2)) ξ_sᵀ μ η_s, with ξ_s = Σ_i ‖x_i‖² x_i
        # and η_s the same of e over the stratum (the third moment of a linear permutation
        # statistic)
        skew_weights = np.where(counts > 2, counts / np.maximum((counts - 1) * (counts - 2), 1), 0)
        xi = groups.sums(x_squares[:, None] * x)
        eta = groups.sums(e_squares[:, None] * e)
        skew_shift = float(np.sum(skew_weights * np.einsum("sp,pq,sq->s", xi, shift, eta)))
        x_basis, e_basis = _leading_basis(x.T @ x), _leading_basis(within)
        # e's leading coordinates from the rows: rows L⁻ᵀ V = rows (L⁻ᵀ V)
        to_lead = e_basis if lower is None else host_divide_by_lower(e_basis.T, lower).T
        return cls(
            x @ x_basis,
            rows @ to_lead,
            x_basis.T @ shift @ e_basis,
            _squared_norm(shift) + float(np.sum(weights * traces[0] * traces[1])),
            weights,
            traces,
            fourths,
            skew_shift,
        )


def _stratum_variances(
    counts: np.ndarray, x: tuple[np.ndarray, ...], e: tuple[np.ndarray, ...]
) -> np.ndarray:
    """The exact variance of ``Tr(K Π L Πᵀ)`` over the permutations of each stratum, for
    centred symmetric ``K = x xᵀ`` and ``L = e eᵀ`` of its rows, from their traces ``t``, the
    squared Frobenius norms ``f`` and the sums ``a`` of their diagonals' squares
    (``x = (t, f, a)``, ``e`` the same, one entry per stratum).

    ``E[T²]`` sums ``K[P] L[P] / (n)_m`` over the 15 equality patterns ``P`` of the four
    indices of ``K_ik K_i'k'`` (``m`` distinct values), where ``K[P]``, the sum over index
    tuples of exactly that pattern, follows from ``t``, ``f`` and ``a`` because the rows of
    ``K`` sum to 0 (Kazi-Aoual et al. 1995 derive the same for the RV coefficient).
    """
    n = counts
    (tk, fk, ak), (tl, fl, al) = x, e

    def falling(m: int) -> np.ndarray:
        product = np.ones_like(n)
        for j in range(m):
            product = product * (n - j)
        return np.where(product > 0, product, np.inf)  # no tuple of m distinct rows: term 0

    square = (
        ak * al / falling(1)
        + (4 * ak * al + (tk**2 - ak) * (tl**2 - al) + 2 * (fk - ak) * (fl - al)) / falling(2)
        + (2 * (2 * ak - tk**2) * (2 * al - tl**2) + 4 * (2 * ak - fk) * (2 * al - fl)) / falling(3)
        + (tk**2 + 2 * fk - 6 * ak) * (tl**2 + 2 * fl - 6 * al) / falling(4)
    )
    mean = tk * tl / np.where(n > 1, n - 1, np.inf)
    return np.where(n > 1, square - mean**2, 0.0)


@dataclass(frozen=True)
class _PairTerms:
    """For two widths' ``M_w`` and ``M_v`` with cross-covariance ``C``: ``‖C‖²_F`` and
    ``μ_wᵀ C μ_v``; for one width ``Tr Σ³``, ``μᵀ Σ² μ`` and what the exact variance adds to
    the Gaussian one, ``Σ_s (Var ‖D_s‖² − 2 Tr Σ_s² + 4 E[‖D_s‖² ⟨μ, D_s⟩])`` (``D_s`` the
    centred part of stratum ``s``, ``Σ_s`` its covariance)."""

    trace: float
    shift: float
    trace_cube: float = 0.0
    shift_cube: float = 0.0
    finite: float = 0.0


def _pair_terms(first: _Leading, second: _Leading, groups: _Groups, third: bool) -> _PairTerms:
    """The terms of ``C = Σ_s w_s A_s ⊗ B_s`` with the cross-Grams ``A_s = x_{w,s}ᵀ x_{v,s}``
    and ``B_s = e_{w,s}ᵀ e_{v,s}`` of stratum ``s``.

    ``‖C‖² = Σ_{s,t} w_s w_t ⟨A_s, A_t⟩ ⟨B_s, B_t⟩`` is taken over pairs of strata when they
    are few, and otherwise as ``‖Σ_s w_s vec(A_s) vec(B_s)ᵀ‖²_F``, whose cost grows with the
    strata linearly; ``C vec(μ_v) = vec(Σ_s w_s A_s μ_v B_sᵀ)``; with ``third``, ``Tr Σ³``
    from ``Σ`` written out in the fewer leading coordinates of :data:`THIRD_TOLERANCE`.
    """
    weights = first.weights
    p2 = first.x.shape[1] * second.x.shape[1]
    q2 = first.e.shape[1] * second.e.shape[1]
    pairwise = groups.starts.size * (p2 + q2) <= p2 * q2
    a_all, b_all = [], []
    outer = np.zeros((p2, q2)) if not pairwise else None
    c_shift = np.zeros_like(first.shift)
    third_x, third_e = _third_widths(first) if third else (0, 0)
    written = np.zeros((third_x, third_e, third_x, third_e))
    norms = np.zeros((2, groups.starts.size))
    for chunk in groups.chunks(p2 + q2):
        a = groups.grams(first.x, second.x, chunk)
        b = groups.grams(first.e, second.e, chunk)
        w = weights[chunk]
        c_shift += np.einsum("s,sij,jk,slk->il", w, a, second.shift, b, optimize=True)
        if third:
            norms[:, chunk] = np.einsum("sij,sij->s", a, a), np.einsum("sij,sij->s", b, b)
            written += np.einsum(
                "s,sac,sbd->abcd",
                w,
                a[:, :third_x, :third_x],
                b[:, :third_e, :third_e],
                optimize=True,
            )
        if pairwise:
            a_all.append(a.reshape(a.shape[0], -1))
            b_all.append(b.reshape(b.shape[0], -1))
        else:
            assert outer is not None
            outer += a.reshape(a.shape[0], -1).T @ (w[:, None] * b.reshape(b.shape[0], -1))
    if pairwise:
        va, vb = np.concatenate(a_all), np.concatenate(b_all)
        trace = float(weights @ ((va @ va.T) * (vb @ vb.T)) @ weights)
    else:
        assert outer is not None
        trace = _squared_norm(outer)
    shift = float(np.sum(first.shift * c_shift))
    if not third:
        return _PairTerms(trace, shift)
    sigma = written.reshape(third_x * third_e, third_x * third_e)
    exact = _stratum_variances(
        groups.counts,
        (first.traces[0], norms[0], first.fourths[0]),
        (first.traces[1], norms[1], first.fourths[1]),
    )
    finite = float(np.sum(exact - 2.0 * weights**2 * norms[0] * norms[1])) + 4 * first.skew_shift
    return _PairTerms(
        trace, shift, float(np.sum((sigma @ sigma) * sigma)), _squared_norm(c_shift), finite
    )


def _third_widths(leading: _Leading) -> tuple[int, int]:
    """How many leading coordinates of ``x`` and ``e`` the third cumulant keeps (their
    columns' squared norms are the within-strata eigenvalues, in decreasing order)."""
    third_x = _leading_count(_row_squares(leading.x.T), THIRD_TOLERANCE)
    third_e = _leading_count(_row_squares(leading.e.T), THIRD_TOLERANCE)
    return third_x, max(1, min(third_e, THIRD_WIDTH // third_x))


def _gaussian_orthant(correlation: np.ndarray, bound: float) -> float:
    """``P(Z_w ≤ bound for every w)`` for ``Z ~ N(0, correlation)``, by Genz's separation of
    variables (1992) on :data:`COPULA_POINTS` points of a Halton sequence: deterministic, and
    within about 1e-4 for a few widths (against closed forms), far below a p-value's own error."""
    from scipy.special import ndtr, ndtri

    dims = correlation.shape[0]
    lower = np.linalg.cholesky(correlation + 1e-12 * np.eye(dims))
    points = _halton(COPULA_POINTS, dims - 1)
    limit = np.full(COPULA_POINTS, ndtr(bound / lower[0, 0]))
    probability = limit.copy()
    draws = np.empty((COPULA_POINTS, dims - 1))
    for i in range(1, dims):
        # the previous variable drawn below its limit, then the next one's limit given it
        draws[:, i - 1] = ndtri(np.clip(points[:, i - 1] * limit, 1e-300, 1.0 - 1e-16))
        limit = ndtr((bound - draws[:, :i] @ lower[i, :i]) / lower[i, i])
        probability *= limit
    return float(np.mean(probability))


def _halton(count: int, dims: int) -> np.ndarray:
    """The first ``count`` points (from the second) of the Halton sequence in ``dims``
    dimensions: radical inverses in the first ``dims`` primes."""
    primes: list[int] = []
    candidate = 2
    while len(primes) < dims:
        if all(candidate % p for p in primes):
            primes.append(candidate)
        candidate += 1
    points = np.zeros((count, dims))
    for d, base in enumerate(primes):
        index, fraction = np.arange(1, count + 1), 1.0 / base
        while index.any():
            points[:, d] += (index % base) * fraction
            index //= base
            fraction /= base
    return points


class _Groups:
    """Rows sorted by stratum: the order, each stratum's first position and row count."""

    def __init__(self, strata: np.ndarray) -> None:
        self.order = np.argsort(strata, kind="stable")
        ordered = strata[self.order]
        self.starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
        self.sizes = np.diff(np.r_[self.starts, ordered.size])
        self.counts = self.sizes.astype(np.float64)

    def sums(self, values: np.ndarray) -> np.ndarray:
        """Per-stratum sums of sorted ``values`` (rows in :attr:`order`)."""
        return np.add.reduceat(values, self.starts, axis=0)

    def centred(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``values`` in stratum order, centred on their stratum means, and their sums."""
        ordered = values[self.order]
        sums = self.sums(ordered)
        return ordered - np.repeat(sums / self.counts[:, None], self.sizes, axis=0), sums

    def chunks(self, width: int) -> Iterator[slice]:
        """Consecutive strata in slices of about ``_CHUNK_ENTRIES / width`` strata."""
        size = max(1, _CHUNK_ENTRIES // max(width, 1))
        for start in range(0, self.starts.size, size):
            yield slice(start, min(start + size, self.starts.size))

    def grams(self, first: np.ndarray, second: np.ndarray, strata: slice) -> np.ndarray:
        """The cross-Gram ``Xᵀ Y`` of the sorted rows of ``first`` and ``second`` in each
        stratum of ``strata`` (``S × k × l``).

        Strata of at most :data:`PADDED_ROWS` rows are padded with zero rows and multiplied in
        one batched product; larger ones one by one.
        """
        starts, sizes = self.starts[strata], self.sizes[strata]
        out = np.empty((starts.size, first.shape[1], second.shape[1]))
        small = sizes <= PADDED_ROWS
        if small.any():
            width = int(sizes[small].max())
            offsets = np.arange(width)
            inside = offsets < sizes[small, None]
            index = np.where(inside, starts[small, None] + offsets, 0)
            mask = inside[:, :, None]
            out[small] = np.matmul((first[index] * mask).transpose(0, 2, 1), second[index] * mask)
        for j in np.flatnonzero(~small):
            rows = slice(starts[j], starts[j] + sizes[j])
            out[j] = first[rows].T @ second[rows]
        return out


def _leading_basis(gram: np.ndarray) -> np.ndarray:
    """The leading eigenvectors of a PSD ``gram``, in decreasing order of their eigenvalues
    ``γ``: the fewest that leave out at most :data:`BASIS_TOLERANCE` of ``Σγ²``."""
    values, vectors = np.linalg.eigh((gram + gram.T) / 2.0)
    values, vectors = np.clip(values[::-1], 0.0, None), vectors[:, ::-1]
    return vectors[:, : _leading_count(values, BASIS_TOLERANCE)]


def _leading_count(values: np.ndarray, tolerance: float) -> int:
    """The fewest leading ``values`` (decreasing, non-negative) that leave out at most
    ``tolerance`` of the sum of their squares; at least one."""
    second = np.cumsum(values * values)
    if not second[-1] > 0.0:
        return 1
    return min(values.size, 1 + int(np.searchsorted(second, (1.0 - tolerance) * second[-1])))


def _congruence(matrix: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """``L⁻¹ M L⁻ᵀ`` for a symmetric ``M``."""
    return divide_by_lower_transposed(divide_by_lower_transposed(matrix, lower).T, lower)


def _row_squares(rows: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", rows, rows)


def _squared_norm(matrix: np.ndarray) -> float:
    return float(np.einsum("ij,ij->", matrix, matrix))
