"""The spectral null of the independence test: the statistic's asymptotic law under
(conditional) independence, a weighted sum of χ²₁ variables, with no permutation.

Every route writes its statistic as ``T = ‖xᵀ e‖²_F`` (:class:`.approximate_null.NullFactors`)
with ``x = P Φ̃_u L_u⁻ᵀ``, the measured variable's centred features normalised by
``L_u L_uᵀ = C_uu + εN I`` and residualised by ``P = I − R_c`` (the conditioning ridge; ``P = I``
under DP), and ``e = Φ̃_e L_e⁻ᵀ`` the attributes' (extended by the conditioning variable under EO
and CAL). Treating the normalisations ``L`` and the ridge regression ``P`` as fixed, and the
residualised rows as independent draws, as KCI (Zhang, Peters, Janzing and Schölkopf, UAI 2011)
and RCoT (Strobl, Zhang and Visweswaran, J. Causal Inference 2019) do:

* the residual regression gives ``xᵀ e = xᵀ (P e) + xᵀ (I − P) e``, and the second term is
  ``O(εN)`` (``P`` leaves ``x`` orthogonal to the conditioning features up to its ridge), so
  ``T ≈ ‖Σ_i w_i‖²`` with ``w_i = x_i ⊗ ẽ_i`` the products of the two residuals
  (:class:`ResidualFeatures`; ``ẽ = P e``);
* under the null the ``w_i`` have mean 0, so ``N^{-1/2} Σ_i w_i`` tends to ``N(0, C)`` with ``C``
  the covariance of the residual products, and ``T = N ‖N^{-1/2} Σ_i w_i‖²`` tends to
  ``Σ_k λ_k z_k²`` with ``z_k`` independent standard normals and ``λ_k`` the eigenvalues of
  ``N C``, estimated by those of the centred scatter ``S = Σ_i (w_i − w̄)(w_i − w̄)ᵀ``.

The mean drift that the ridge leaves is not in this null: where ``P`` removes the conditioning
variable's effect only in part (a large conditioning ``ε``), ``E[w_i] ≠ 0`` and ``T`` grows as
``N²‖E w‖²``, so the null is calibrated only where the size measurements say so
(``null="auto"``, :func:`faircocco_plugins.independence_test`).

The ``λ_k`` come from the products of the leading pairs of coordinates of ``x`` and ``ẽ`` (the
eigenvectors of their Grams, which the operators' eigenvalues ``λ / (λ + εN)`` make few); the
omitted pairs' share of ``Tr S`` enters as a constant (a sum of many small ``λ_k z_k²`` is close
to its mean). With few rows and many products the scatter's eigenvalues spread, and the null
turns conservative (the performance page).
The tail ``P(T ≥ t)`` is Lindsay, Pilla and Basak's (2000) moment approximation with four support
points, as RCoT takes it (:class:`WeightedChiSquares`); several kernel widths are combined by
their smallest p-value, calibrated by the Gaussian copula of the widths' correlations
(:class:`.approximate_null.WidthsNull`), here ``Cov(T_w, T_v) = 2 ‖S_wv‖²_F`` with ``S_wv`` the
cross-scatter of the two widths' products.

Implementations read to learn from: causal-learn's ``causallearn/utils/KCI/KCI.py`` (the
products of residualised features and their eigenvalues) and ``causallearn/utils/RCIT/RCIT.py``
(the covariance of the residual products and its LPB tail), and the R package momentchi2's
``lpb4``. The docs' "How FairCOCCO works" page derives the null;
``tests/core/test_spectral_null.py`` checks the weights and the tail.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import reduce
from math import comb, factorial

import numpy as np

from .approximate_null import WidthsNull

#: Share of the products' trace ``Σ_ij γ_i γ_j`` (``γ`` the eigenvalues of each side's Gram)
#: that the leading pairs of coordinates may leave out; the omitted trace of the scatter enters
#: the null as a constant.
LEADING_TOLERANCE = 1e-3
#: Most pairs of coordinates whose products' scatter is written out (``N k²`` flops, and an
#: eigendecomposition of ``k × k``).
MOST_PRODUCTS = 256
#: Support points of the Lindsay-Pilla-Basak approximation (four, as momentchi2's ``lpb4`` and
#: RCoT): ``2 × 4`` moments of the weighted sum.
SUPPORT_POINTS = 4


@dataclass(frozen=True)
class ResidualFeatures:
    """The statistic's two feature sets, each residualised on the conditioning variable:
    ``measured`` (``N × p``, ``x = P Φ̃_u L_u⁻ᵀ``) and ``attributes`` (``N × q``,
    ``ẽ = P Φ̃_e L_e⁻ᵀ``); any pair with the same ``x xᵀ`` and ``ẽ ẽᵀ`` gives the same null."""

    measured: np.ndarray
    attributes: np.ndarray


@dataclass(frozen=True)
class WeightedChiSquares:
    """The law of ``shift + Σ_k weights_k z_k²`` for independent standard normals ``z_k``."""

    weights: np.ndarray
    shift: float = 0.0

    def pvalue(self, statistic: float) -> float:
        """``P(shift + Σ λ_k z_k² ≥ statistic)`` by Lindsay, Pilla and Basak's approximation
        with :data:`SUPPORT_POINTS` support points (fewer for fewer weights, and where the
        moment equations have no solution with as many, down to one: the two-moment gamma).

        A null without spread (no positive weight) gives 1 at or below its shift and 0 above.
        """
        excess = statistic - self.shift
        if self.weights.size == 0:
            return 1.0 if excess <= 0.0 else 0.0
        if excess <= 0.0:
            return 1.0
        scale = float(np.sum(self.weights))
        for points in range(min(SUPPORT_POINTS, self.weights.size), 0, -1):
            tail = _lpb_tail(self.weights / scale, excess / scale, points)
            if tail is not None:
                return tail
        raise AssertionError("one support point, the two-moment gamma, always has a solution")


def spectral_null(features: Iterable[ResidualFeatures]) -> WidthsNull:
    """The spectral null of the statistics of ``features`` (one per kernel width; an iterator
    lets each width's features go once its leading products are taken)."""
    products = [_Products.of(f) for f in features]
    scatter = _scatter(products)
    ends = np.cumsum([p.mean.size for p in products])
    blocks = [slice(end - p.mean.size, end) for p, end in zip(products, ends, strict=True)]
    tails = []
    for p, block in zip(products, blocks, strict=True):
        own = scatter[block, block]
        weights = np.linalg.eigvalsh(own)
        weights = weights[weights > 1e-12 * max(float(weights.max(initial=0.0)), 0.0)]
        tails.append(WeightedChiSquares(weights, max(p.trace - float(np.trace(own)), 0.0)))
    # Cov(T_w, T_v) = 2 ‖S_wv‖²_F
    covariance = np.array(
        [[2.0 * float(np.sum(scatter[w, v] ** 2)) for v in blocks] for w in blocks]
    )
    return WidthsNull.from_covariance(tuple(tails), covariance)


#: Rows of residual products formed at a time: their scatter is summed over blocks of rows, so
#: that no ``N ×`` (products) matrix is held (at 10⁶ rows, three widths' products took 10 GiB).
BLOCK_ROWS = 2**14


def _scatter(products: Sequence[_Products]) -> np.ndarray:
    """The centred scatter of every width's products side by side, widths in order: each
    width's own scatter on the diagonal blocks, the cross-scatters off it (symmetric, as each
    block's ``Bᵀ B`` is)."""
    n = products[0].measured.shape[0]
    blocks = (
        np.hstack([p.centred_rows(slice(start, start + BLOCK_ROWS)) for p in products])
        for start in range(0, n, BLOCK_ROWS)
    )
    return reduce(np.add, (block.T @ block for block in blocks))


@dataclass(frozen=True)
class _Products:
    """One width's residual products ``x_i ⊗ ẽ_i`` in the leading pairs ``(first, second)``
    of coordinates of the two sides (``measured`` and ``attributes``: the leading coordinates
    only), their mean, and the trace of the scatter of all of them (every coordinate)."""

    measured: np.ndarray
    attributes: np.ndarray
    first: np.ndarray
    second: np.ndarray
    mean: np.ndarray
    trace: float

    @classmethod
    def of(cls, features: ResidualFeatures) -> _Products:
        x, e = features.measured, features.attributes
        n = x.shape[0]
        # Tr S = Σ_i ‖x_i‖² ‖ẽ_i‖² − N ‖w̄‖², with N w̄ = xᵀ ẽ
        mean = x.T @ e / n
        trace = float(np.einsum("i,i->", _row_squares(x), _row_squares(e))) - n * float(
            np.sum(mean * mean)
        )
        (x_values, x_vectors), (e_values, e_vectors) = _principal(x), _principal(e)
        first, second = _leading_pairs(x_values, e_values)
        # only the coordinates that some pair uses
        x_rotation = x_vectors[:, : first.max() + 1]
        e_rotation = e_vectors[:, : second.max() + 1]
        # the products' mean is w̄ = xᵀ ẽ / N in the rotated coordinates
        lead_mean = (x_rotation.T @ mean @ e_rotation)[first, second]
        return cls(x @ x_rotation, e @ e_rotation, first, second, lead_mean, trace)

    def centred_rows(self, rows: slice) -> np.ndarray:
        """The centred products of ``rows``."""
        return (
            self.measured[rows][:, self.first] * self.attributes[rows][:, self.second] - self.mean
        )


def _principal(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The eigenvalues and eigenvectors of the Gram ``rowsᵀ rows``, in decreasing order."""
    gram = rows.T @ rows
    values, vectors = np.linalg.eigh((gram + gram.T) / 2.0)
    return np.clip(values[::-1], 0.0, None), vectors[:, ::-1]


def _leading_pairs(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(i, j)`` of coordinates of the two sides whose products ``γ_i γ_j`` are the
    largest: the fewest that leave out at most :data:`LEADING_TOLERANCE` of their sum (the
    products' trace under independence), at most :data:`MOST_PRODUCTS`."""
    products = np.outer(first, second).reshape(-1)
    order = np.argsort(products)[::-1]
    covered = np.cumsum(products[order])
    count = 1 + int(np.searchsorted(covered, (1.0 - LEADING_TOLERANCE) * covered[-1]))
    keep = order[: min(count, MOST_PRODUCTS, products.size)]
    return np.divmod(keep, second.size)


def _row_squares(rows: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", rows, rows)


def _lpb_tail(weights: np.ndarray, statistic: float, points: int) -> float | None:
    """``P(Σ λ_k z_k² ≥ statistic)`` by the Lindsay-Pilla-Basak mixture of ``points`` gammas
    with a common shape, matching the sum's first ``2 × points`` moments; None where the
    moment equations give no valid mixture (a root missing, or a negative or complex part).

    The steps are those of Lindsay, Pilla and Basak (2000), section 4, as momentchi2 computes
    them: the moments from the cumulants ``κ_r = 2^{r−1} (r − 1)! Σ λ^r``; the shape parameter
    ``λ̃`` as the root of ``det Δ_i(λ̃) = 0`` found for ``i = 1, ..., points`` in turn, each in
    ``(0, λ̃_{i−1})``; the mixture's scales as the roots of the polynomial ``det`` of ``Δ_p`` with
    its last column a power basis; its probabilities from a Vandermonde system.
    """
    from scipy.optimize import brentq
    from scipy.special import gammaincc

    moments = _moments(weights, 2 * points)
    shape_root = moments[2] / moments[1] ** 2 - 1.0  # det Δ_1 = 0 in closed form
    for i in range(2, points + 1):
        low, high = 1e-12 * shape_root, shape_root * (1.0 - 1e-12)
        if not _determinant(low, moments, i) * _determinant(high, moments, i) < 0.0:
            return None
        shape_root = brentq(_determinant, low, high, args=(moments, i), xtol=1e-14, rtol=1e-12)
    delta = _delta(shape_root, moments, points)
    coefficients = []
    for i in range(points + 1):
        basis = delta.copy()
        basis[:, points] = np.eye(points + 1)[i]
        coefficients.append(np.linalg.det(basis))
    roots = np.roots(coefficients[::-1])
    if np.any(np.abs(roots.imag) > 1e-8 * np.abs(roots.real)) or np.any(roots.real <= 0.0):
        return None
    scales = roots.real
    vandermonde = np.vander(scales, points, increasing=True).T
    probabilities = np.linalg.solve(vandermonde, delta[:points, 0])
    if np.any(probabilities < -1e-10):
        return None
    shape = 1.0 / shape_root
    tail = float(np.sum(probabilities * gammaincc(shape, statistic / (scales * shape_root))))
    return min(max(tail, 0.0), 1.0)


def _moments(weights: np.ndarray, count: int) -> np.ndarray:
    """The raw moments ``m_0 = 1, m_1, ..., m_count`` of ``Σ λ_k z_k²``, from its cumulants."""
    cumulants = [0.0] + [
        2.0 ** (r - 1) * factorial(r - 1) * float(np.sum(weights**r)) for r in range(1, count + 1)
    ]
    moments = [1.0]
    for n in range(1, count + 1):
        moments.append(
            sum(comb(n - 1, m - 1) * cumulants[m] * moments[n - m] for m in range(1, n + 1))
        )
    return np.asarray(moments)


def _delta(shape_root: float, moments: np.ndarray, size: int) -> np.ndarray:
    """Lindsay, Pilla and Basak's ``Δ_size(λ̃)``: the ``(size + 1)²`` Hankel matrix of the
    moments ``m_k`` divided by ``Π_{s=1}^{k−1} (1 + s λ̃)``."""
    orders = np.arange(2 * size + 1)
    divisors = np.cumprod(np.r_[1.0, 1.0, 1.0 + np.arange(1, 2 * size) * shape_root])
    scaled = moments[orders] / divisors[orders]
    return scaled[np.add.outer(np.arange(size + 1), np.arange(size + 1))]


def _determinant(shape_root: float, moments: np.ndarray, size: int) -> float:
    return float(np.linalg.det(_delta(shape_root, moments, size)))
