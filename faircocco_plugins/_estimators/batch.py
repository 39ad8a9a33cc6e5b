"""The low-rank statistic of a training batch, its attribute side fitted once: written once over
the array API, so numpy arrays on the host and torch tensors on any device run the same code.

:class:`._batch_statistic.BatchStatistic` derives it (its Notes): the attributes and outcomes are
data, so their side (:class:`AttributeSide`) is formed from feature maps fitted once, and only the
predictions' Nyström rows depend on the model (:func:`predictions_statistic`). On the host, the
gradient is the closed form of :func:`closed_form_gradient`, one autograd node per batch, which
reaches the predictions through the kernel's Gram gradient
(:attr:`._kernels.kernel.Kernel.gram_gradient`); on an accelerator, and for a kernel without
one, autograd differentiates :func:`batch_statistic`, the same statistic of the predictions
scaled by :func:`scaled_predictions`. The closed form stays on the CPU, where it is faster:
2.8-3.2 against 5.8-10.0 ms per penalty step at batch 256 and 14.6-20.7 against 17.8-26.4 ms at
4,096 on a loaded two-core machine (``python benchmarks/device_route.py --threads 1``, rows
"FairCOCCO" and "FairCOCCO, device route"); scaling by autograd cost 0.2 ms more than the closed
form's at batch 256. The tests check it against autograd.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, NamedTuple

import array_api_compat
import numpy as np

from .._kernels.kernel import Kernel, standardise
from .._linalg.backend import (
    PsdSolver,
    as_like,
    column_means,
    divide_by_lower_transposed,
    eye_like,
    host_divide_by_lower,
    namespace,
    ones,
    take_rows,
)
from .lowrank import AttributeTrace, attribute_trace

#: Below this spread (root mean square about their mean), relative to the larger of 1 and their
#: root mean square, predictions count as constant for the gradient
#: (:meth:`._batch_statistic.BatchStatistic.gradient_damping`).
SPREAD_FLOOR = 1e-3


def spread_damping(spread: float, magnitude: float) -> float:
    """``min(1, spread / (SPREAD_FLOOR · max(1, magnitude)))``: the factor on the gradient of
    predictions whose spread (root mean square about their mean) is ``spread`` and whose root
    mean square is ``magnitude``."""
    return min(1.0, spread / (SPREAD_FLOOR * max(1.0, magnitude)))


def prediction_damping(values: np.ndarray, centred: np.ndarray) -> float:
    """:func:`spread_damping` of host predictions ``values`` and their ``centred`` copy."""
    size = centred.size
    spread, magnitude = (math.sqrt(float(np.vdot(a, a)) / size) for a in (centred, values))
    return spread_damping(spread, magnitude)


def scaled_predictions(values: Any, scale: PredictionScale, median: bool) -> Any:
    """The predictions ``values`` (``n × k``) centred and divided by their bandwidth
    ``scale.width``: the ``z`` of :func:`predictions_statistic`, differentiable in ``values``.

    Under the median heuristic (``median``) the bandwidth follows the predictions' scale, so
    the gradient is taken through standardised predictions (:func:`standardise`): its parts
    along their mean and their spread are projected out. Below the spread floor it is scaled
    by ``scale.damping``; the value is not changed. :func:`closed_form_gradient` takes the
    same steps on the host.
    """
    if not median:
        return (values - column_means(values)) / scale.width
    standard, spread = standardise(values)
    if scale.damping < 1.0:
        standard = scale.damping * standard + (1.0 - scale.damping) * _constant(standard)
    return standard * (_constant(spread) / scale.width)


def _constant(array: Any) -> Any:
    """``array`` without its gradient (a torch tensor detached; other arrays carry none)."""
    return array.detach() if hasattr(array, "detach") else array


class PermutationNull(NamedTuple):
    """``K ↦ P Ω P K`` (see :func:`permutation_null`), in the namespace of its arrays.

    ``Ω = U C Uᵀ + diag(δ)`` with the stratum ``indicators`` ``U``, the ``coefficients`` ``C``
    and ``row_delta`` ``δ``; ``P x = x − C̄ (C̄ᵀC̄ + εN I)⁻¹ C̄ᵀ x`` with the conditioning rows
    ``C̄`` and ``c_lower``, the Cholesky factor of ``C̄ᵀC̄ + εN I`` (``P = I`` when it is None).
    """

    indicators: Any
    coefficients: Any
    row_delta: Any
    c_rows: Any
    c_lower: Any

    def __call__(self, kernel: Any) -> Any:
        y = self.project(kernel)
        u = self.indicators
        return self.project(u @ (self.coefficients @ (u.T @ y)) + self.row_delta * y)

    def project(self, x: Any) -> Any:
        if self.c_lower is None:
            return x
        return x - self.c_rows @ PsdSolver.from_lower(self.c_lower).solve(self.c_rows.T @ x)

    def like(self, array: Any) -> PermutationNull:
        """The null with its arrays in the namespace, dtype and device of ``array``."""
        return PermutationNull(*(None if a is None else as_like(a, array) for a in self))


class AttributeSide(NamedTuple):
    """What a batch's statistic needs of its attributes and outcomes: ``projected``
    ``P = (I − R_c) Ē`` (a row per batch row), ``lower`` ``L`` with ``L Lᵀ = ĒᵀĒ + εN I`` and,
    chance-adjusted, the permutation ``null``'s map ``K ↦ W K``."""

    projected: Any
    lower: Any
    null: PermutationNull | None

    def like(self, array: Any) -> AttributeSide:
        """The side with its arrays in the namespace, dtype and device of ``array``."""
        return AttributeSide(
            as_like(self.projected, array),
            as_like(self.lower, array),
            None if self.null is None else self.null.like(array),
        )


def attribute_side(
    expanded: Any,
    e_width: int,
    weights: np.ndarray,
    slots: np.ndarray | None,
    shifts: tuple[float, float],
    strata: tuple[np.ndarray, np.ndarray] | None,
) -> AttributeSide:
    """The :class:`AttributeSide` of a batch, in the namespace and on the device of ``expanded``.

    ``expanded`` holds the feature rows ``[Ē C̄]`` (uncentred; ``e``'s first ``e_width``
    columns, then the conditioning variable's under EO) of distinct rows, each counted
    ``weights`` times in the batch and read for each batch row through ``slots``, or of the
    batch rows themselves (``weights`` ones, ``slots`` None). ``shifts`` are ``εN`` of ``e`` and
    of ``c``; ``strata`` (chance-adjusted) the stratum of each distinct row and of each batch row.
    """
    xp = namespace(expanded)
    # one weighted Gram of the centred [Ē C̄] holds ĒᵀĒ, C̄ᵀC̄ and C̄ᵀĒ: the Gram of the rows
    # scaled by √weight, a product of a matrix with its own transpose, which numpy computes
    # with half the work of a general product; chance-adjusted, summed over the strata's Grams
    if slots is None:  # the batch's own rows, each once
        centred = scaled = expanded - column_means(expanded)
    else:
        weight = as_like(weights, expanded)
        centred = expanded - (weight @ expanded) / float(weights.sum())
        scaled = centred * xp.sqrt(weight)[:, None]
    stratum_grams = None if strata is None else _stratum_grams(scaled, strata[0])
    gram = scaled.T @ scaled if stratum_grams is None else sum(stratum_grams[1:], stratum_grams[0])
    width = int(gram.shape[0])
    ridge = np.where(np.arange(width) < e_width, *shifts)
    gram = gram + eye_like(width, gram) * as_like(ridge, gram)
    e = centred[:, :e_width]
    conditioning = None
    if e_width < width:
        conditioning = PsdSolver(gram[e_width:, e_width:])
        e = e - centred[:, e_width:] @ conditioning.solve(gram[e_width:, :e_width])
    lower = PsdSolver(gram[:e_width, :e_width]).lower

    def of_rows(table: Any) -> Any:
        return table if slots is None else take_rows(table, slots)

    null = None
    if strata is not None and stratum_grams is not None:
        c_rows = None if conditioning is None else of_rows(centred[:, e_width:])
        c_lower = None if conditioning is None else conditioning.lower
        e_grams = [stratum[:e_width, :e_width] for stratum in stratum_grams]
        null = permutation_null(
            *strata, weights, centred[:, :e_width], e_grams, lower, c_rows, c_lower
        )
    return AttributeSide(of_rows(e), lower, null)


def _stratum_grams(rows: Any, strata: np.ndarray) -> list[Any]:
    """The Gram of the ``rows`` of each stratum (codes 0, 1, …, one absent giving zeros), from
    one gather that orders the rows by stratum."""
    order = np.argsort(strata, kind="stable")
    bounds = np.searchsorted(strata[order], np.arange(int(strata.max()) + 2))
    ordered = take_rows(rows, order)
    return [ordered[a:b].T @ ordered[a:b] for a, b in itertools.pairwise(bounds)]


def permutation_null(
    table_strata: np.ndarray,
    row_strata: np.ndarray,
    weights: np.ndarray,
    e_rows: Any,
    e_grams: list[Any],
    lower: Any,
    c_rows: Any,
    c_lower: Any,
) -> PermutationNull:
    """``K ↦ P Ω P K`` with ``Tr[P R_u P Ω]`` the expected statistic under permutations of the
    attribute rows within strata (:func:`._estimators.terms.expected_permuted_trace`).

    ``table_strata``, ``weights`` and ``e_rows`` describe the distinct rows (stratum, count in
    the batch, centred attribute feature row ``ē``), ``e_grams`` each stratum's weighted Gram
    of them and ``row_strata`` the batch's rows; ``R_e = Ē (L Lᵀ)⁻¹ Ēᵀ`` with ``lower`` ``L``,
    so a stratum's diagonal sum of ``R_e`` is ``Tr[(L Lᵀ)⁻¹ G_s]`` with its Gram ``G_s``, and
    no solve with the rows is needed. ``P = I − R_c`` with ``R_c = C̄ (C̄ᵀC̄ + εN I)⁻¹ C̄ᵀ`` from
    the batch's ``c_rows`` and the Cholesky factor ``c_lower`` of ``C̄ᵀC̄ + εN I``. The host sums
    counts; the rest stays in ``e_rows``' namespace.
    """
    xp = namespace(e_rows)
    # strata are codes 0, 1, ...; one absent from the batch has count 0 and drops out below
    k = int(table_strata.max()) + 1
    # each distinct row's count in its stratum's column: per-stratum sums are products
    weighted = (table_strata[:, None] == np.arange(k)) * weights[:, None]
    counts = ones(weights.shape[0]) @ weighted
    # the rows of G = Ē L⁻ᵀ (R_e = G Gᵀ) summed per stratum
    sums = divide_by_lower_transposed(as_like(weighted, e_rows).T @ e_rows, lower)
    inverse = PsdSolver.from_lower(lower).solve(eye_like(int(lower.shape[0]), lower))
    diagonal = xp.stack([xp.sum(inverse * gram) for gram in e_grams])
    blocks = sums @ sums.T
    # an empty stratum's sums are 0: dividing by 1 instead of its count keeps its terms 0
    scale = np.maximum(counts, 1.0)
    pairs = counts * (counts - 1.0)
    within = (
        (xp.linalg.diagonal(blocks) - diagonal)
        / as_like(np.maximum(pairs, 1.0), e_rows)
        * as_like(pairs > 0, e_rows)
    )
    coefficients = blocks / as_like(np.outer(scale, scale), e_rows)
    coefficients = xp.where(as_like(np.eye(k), e_rows) > 0, within[None, :], coefficients)
    delta = diagonal / as_like(scale, e_rows) - within
    indicators = as_like(row_strata[:, None] == np.arange(k), e_rows)
    row_delta = take_rows(delta, row_strata)[:, None]
    return PermutationNull(indicators, coefficients, row_delta, c_rows, c_lower)


class Forward(NamedTuple):
    """A batch's statistic (``trace.value``, a 0-d array) and what its closed-form gradient
    reuses."""

    trace: AttributeTrace
    raw: Any
    landmark_lower: Any
    nystrom: Any
    solver: PsdSolver
    weighted: Any


def predictions_statistic(
    z: Any, kernel: Kernel, pivots: Any, side: AttributeSide, shift: float
) -> Forward:
    """``T`` (minus ``T₀`` with a null) of the scaled predictions ``z`` under ``kernel``, with
    landmarks at the rows ``pivots``, as derived in :class:`._batch_statistic.BatchStatistic`'s
    Notes.

    Computed in the Nyström basis ``Φ = K L_l⁻ᵀ`` (``L_l L_lᵀ = K_ll``), where
    ``S′ = ΦᵀΦ + εN I`` has eigenvalues of at least ``εN`` (``shift``).
    """
    raw = kernel.gram(z, take_rows(z, pivots))
    landmark_kernel = take_rows(raw, pivots)  # K_ll: the landmarks are rows of z
    landmark_lower = PsdSolver(landmark_kernel).lower
    nystrom = divide_by_lower_transposed(raw - column_means(raw), landmark_lower)
    rank = int(nystrom.shape[1])
    solver = PsdSolver(nystrom.T @ nystrom + shift * eye_like(rank, nystrom))
    weighted = None if side.null is None else side.null(nystrom)  # Z′ = WΦ
    # the low-rank estimator's statistic with Q = ΦᵀP, less the null ΦᵀWΦ inside its trace
    trace = attribute_trace(
        nystrom.T @ side.projected,
        solver,
        side.lower,
        None if weighted is None else nystrom.T @ weighted,
    )
    return Forward(trace, raw, landmark_lower, nystrom, solver, weighted)


class PredictionScale(NamedTuple):
    """What a batch's predictions are scaled by, chosen on the host from their copy: their
    bandwidth ``width``, the ``damping`` of their gradient and the rows ``pivots`` of their
    landmarks."""

    width: float
    damping: float
    pivots: np.ndarray


def batch_statistic(
    values: Any,
    scale: PredictionScale,
    side: AttributeSide,
    shift: float,
    kernel: Kernel,
    median: bool,
) -> Any:
    """The statistic of a batch's predictions ``values`` (``n × k``) as a 0-d array of their
    namespace, differentiable in them: :func:`predictions_statistic` of
    :func:`scaled_predictions`, with the attribute side moved to their device."""
    z = scaled_predictions(values, scale, median)
    # copied to the device once, for the two gathers of the landmarks
    pivots = namespace(z).asarray(scale.pivots, device=array_api_compat.device(z))
    return predictions_statistic(z, kernel, pivots, side.like(z), shift).trace.value


def closed_form_gradient(
    forward: Forward,
    z: np.ndarray,
    kernel: Kernel,
    scale: PredictionScale,
    side: AttributeSide,
    shift: float,
    median: bool,
) -> np.ndarray:
    """The gradient of :func:`predictions_statistic` in the host predictions that ``z`` was
    scaled from, by ``scale``, in closed form, for a kernel with a Gram gradient: the Notes'
    ``∂T/∂z``, carried through the scaling as autograd carries it through
    :func:`scaled_predictions` (the part along the predictions projected out under the median
    heuristic, the rest damped, then centred)."""
    d_centred = _z_gradient(forward, z, kernel, scale.pivots, side, shift) / scale.width
    if median:
        squares = np.vdot(z, z)
        if squares > 0:  # constant predictions have no spread to project out
            along = np.vdot(d_centred, z) / squares
            d_centred = (d_centred - z * along) * scale.damping
    return d_centred - column_means(d_centred)


def _z_gradient(
    forward: Forward,
    z: np.ndarray,
    kernel: Kernel,
    pivots: np.ndarray,
    side: AttributeSide,
    shift: float,
) -> np.ndarray:
    """``∂T/∂z`` of :func:`predictions_statistic` (the Notes' closed form)."""
    raw, landmark_lower, nystrom, solver = (
        forward.raw,
        forward.landmark_lower,
        forward.nystrom,
        forward.solver,
    )
    solved = solver.solve(forward.trace.cross)  # G′ = S′⁻¹X′
    outer = solver.solve(forward.trace.inner.T)  # G′G′ᵀ − M′, with M′ = S′⁻¹ΦᵀZ′S′⁻¹
    d_nystrom = side.projected @ host_divide_by_lower(solved, side.lower).T
    if forward.weighted is not None:
        d_nystrom -= solver.solve(forward.weighted.T).T
    d_nystrom = 2.0 * (d_nystrom - nystrom @ outer)
    d_nystrom -= column_means(d_nystrom)
    d_raw = host_divide_by_lower(d_nystrom, landmark_lower)
    # through K_ll = L_l L_lᵀ: ∂/∂K_ll = −εN L_l⁻ᵀ (G′G′ᵀ − M′) L_l⁻¹
    d_raw[pivots] -= shift * host_divide_by_lower(
        host_divide_by_lower(outer, landmark_lower).T, landmark_lower
    )
    assert kernel.gram_gradient is not None
    landmarks = z[pivots]
    d_z, d_landmarks = kernel.gram_gradient(d_raw * raw, z, landmarks)
    d_z[pivots] += d_landmarks
    return d_z
