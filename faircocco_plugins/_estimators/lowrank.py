"""The low-rank estimator: O(N r²) time, O(N r) memory, no ``N × N`` matrix.

Each variable gets a feature map ``Φ`` with ``Φ Φᵀ ≈ K``:

* its discrete columns (nominal, or numeric with few distinct values) are factored exactly over
  their level combinations: ``K_disc = Z W Wᵀ Zᵀ`` with ``Z`` the one-hot combination matrix and
  ``W`` a square root of the small kernel matrix between combinations;
* its continuous columns by a Nyström factor on pivots chosen by pivoted incomplete Cholesky
  (on detached values), which reproduces the incomplete Cholesky factor; a large input's pivots
  are chosen among candidate rows (:func:`pivot_candidates`), and every row is then covered to
  the same tolerance;
* the product kernel is the row-wise Kronecker product ``Φ_i = W[g_i] ⊗ φ_i``.

The Kronecker product is never formed: rows are grouped by their combination of codes across all
variables, per-group sums and Gram matrices of the continuous factors are accumulated (their
rows formed a block of rows at a time, so that no ``N × r`` factor is held), and the
cross-Gram matrices ``C_xy = Φ_xᵀ Φ_y`` are assembled from them. Every quantity is a sum over
rows, so chunks of a stream are reduced one at a time. With centred Grams ``C``,
``R = Φ (C + εN I)⁻¹ Φᵀ`` and every trace of the paper is ``r × r`` algebra.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from copy import deepcopy
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple, Protocol

import array_api_compat
import numpy as np

from .._inputs.row_order import lexicographic_order
from .._kernels.kernel import Kernel, KernelInput, to_host
from .._kernels.levels import (
    LevelEncoder,
    LevelRegistry,
    distinct_count,
    level_columns,
    unique_inverse,
)
from .._linalg.backend import (
    PsdSolver,
    add_rows,
    as_like,
    detached,
    divide_by_lower_transposed,
    eye_like,
    namespace,
    take_rows,
    trace_of_product,
)
from .approximate_null import NullFactors, local_null_factors
from .exact import MAX_EXACT_ROWS
from .kronecker_rows import KroneckerRows
from .spectral_null import ResidualFeatures
from .strata import Strata
from .terms import Ridge, Role, StrataBlocks, Terms, expected_permuted_trace, permutable

#: the roles as the formulas name them: R_u, R_e and R_c (see :class:`._estimators.terms.Role`)
U, E, C = Role.MEASURED, Role.ATTRIBUTES, Role.GIVEN

#: Pivoted incomplete Cholesky stops when every residual diagonal entry is below this fraction
#: of the variable's ``ε`` (see :func:`pivot_tolerance`) ...
RELATIVE_TOLERANCE = 1e-2
#: ... never below this, well above rounding level ...
MIN_TOLERANCE = 1e-6
#: ... and never above this, so that a large ``ε`` must still factor; all three relative to the
#: kernel's diagonal.
MAX_TOLERANCE = 1e-2
#: Most level combinations of one variable's discrete columns factored exactly.
MAX_COMBINATIONS = 256
#: Most columns of one variable's features: its level combinations times the pivots of its
#: continuous columns. Every solve of the estimator is this wide: at 4,096 columns its matrices
#: take 128 MiB each, while 256 combinations times 100 pivots (25,600 columns) took over 16 GB
#: and more than 3 minutes at 1,000 rows.
MAX_FEATURES = 4096


def pivot_tolerance(ridge: Ridge, role: str) -> float:
    """The residual at which ``role``'s incomplete Cholesky factor stops, relative to the
    kernel's diagonal (:func:`absolute_tolerance`).

    A residual ``Δ = K − Φ Φᵀ`` (positive semi-definite, trace at most ``N τ``) moves
    ``R = K (K + εN I)⁻¹`` by at most ``‖Δ‖ / (εN) ≤ τ / ε`` in Hilbert-Schmidt norm, so a
    tolerance proportional to ``ε`` keeps the same relative accuracy at every ``ε``: the
    statistic within about 10⁻³ of the exact estimator's (measured from ``ε`` = 10⁻⁴ to 1),
    while a large ``ε`` (the test's, the penalty's) needs far fewer pivots.
    """
    return min(MAX_TOLERANCE, max(MIN_TOLERANCE, RELATIVE_TOLERANCE * ridge.of(role)))


def absolute_tolerance(tolerance: float, diagonal: np.ndarray) -> float:
    """A :func:`pivot_tolerance` as a residual of the kernel whose diagonal on the rows is
    ``diagonal`` (host): the residual starts there, so a tolerance relative to it holds the
    factor to one relative accuracy whatever the kernel's scale."""
    return tolerance * float(diagonal.max()) if diagonal.size else tolerance


#: Pivots are chosen among all the rows of an input of up to this many rows, and among about
#: this many of a larger one (see :func:`pivot_candidates`).
PIVOT_ROWS = 2**14
#: Side of the grid cells of :func:`pivot_candidates`, in bandwidths (the columns are scaled).
CELL = 0.1
#: Rows whose factor rows are formed, and added to the Grams, at a time: never ``N × r`` at once
#: (at 10⁶ rows, blocks of 2¹⁵ rows took the same time and 35 MiB more memory).
ROW_BLOCK = 2**14


def pivot_candidates(z: np.ndarray) -> np.ndarray | None:
    """The rows among which the pivots of ``z``'s factor are chosen: None (all of them) up to
    :data:`PIVOT_ROWS` rows; beyond, that many evenly spaced rows and rows of a grid's cells
    (:func:`cell_rows`), so that sparse regions, where the largest residuals remain, have
    candidates too.

    Pivoting all ``N`` rows costs ``O(N r²)`` memory-bound steps on an ``N × r`` factor (at
    10⁶ rows, EO with a continuous outcome spent 10 of its 12 s there, and 1.6 GB held the
    factor and its copy); pivoting the candidates costs ``O(r²)`` per candidate, and the factor
    rows then come from one Nyström product per block of rows. The rows are in their canonical
    order (:mod:`._inputs.row_order`), so evenly spaced rows are a function of the data. A row left
    above the tolerance joins the candidates (:meth:`FeatureMap.cover`), so every row ends
    within it, as when all rows were candidates.
    """
    n = z.shape[0]
    if n <= PIVOT_ROWS:
        return None
    spaced = np.linspace(0, n - 1, PIVOT_ROWS).round().astype(np.int64)
    return np.union1d(spaced, cell_rows(z))


def cell_rows(z: np.ndarray) -> np.ndarray:
    """The first row of each occupied cell of a grid on the rows of ``z``, with cells of side
    :data:`CELL` (wider for a grid of more than :data:`PIVOT_ROWS` cells over the columns'
    extents); of more than :data:`PIVOT_ROWS` occupied cells, the least populated, which hold
    the rows farthest from the others (the evenly spaced candidates stand for dense regions).
    """
    n, d = z.shape
    low = z.min(axis=0)
    extent = z.max(axis=0) - low
    side = max(CELL, float(np.exp(np.mean(np.log(extent)) - np.log(PIVOT_ROWS) / d)))
    while np.prod(np.floor(extent / side) + 1) > 2**52:  # cell numbers exact in float64
        side *= 2
    shape = tuple((np.floor(extent / side) + 1).astype(np.int64).tolist())
    cells = np.minimum(np.floor((z - low) / side).astype(np.int64), np.array(shape) - 1)
    keys = np.ravel_multi_index(tuple(cells.T), shape)
    if math.prod(shape) <= 4 * n:  # linear time for a grid of few cells
        first = np.full(math.prod(shape), n)
        np.minimum.at(first, keys, np.arange(n))
        counts = np.bincount(keys, minlength=first.size)[first < n]
        rows = first[first < n]
    else:
        _, rows, counts = np.unique(keys, return_index=True, return_counts=True)
    if rows.size > PIVOT_ROWS:
        rows = rows[np.argsort(counts, kind="stable")[:PIVOT_ROWS]]
    return rows


#: Most rows of a variable that pivots its joint kernel (:func:`pivots_jointly`).
JOINT_ROWS = 2048


def pivots_jointly(n: int, width: int) -> bool:
    """Whether a variable of ``n`` rows whose features, levels times pivots, are ``width``
    columns wide pivots its joint kernel instead (:meth:`FeatureMap._fit_joint`): when they are
    wider than the rows, as 8 level combinations times 72 pivots (576 columns) at 300 rows,
    the joint kernel's factor is narrower (at most ``n``; 274 columns there), and every solve of
    the estimator and of each permutation's refit is smaller. Up to :data:`JOINT_ROWS` rows:
    pivoting costs ``O(n r²)`` for the joint rank ``r``, up to ``n``, and 250 combinations
    beside two continuous columns took 22 s at 2,000 rows (beyond, such features are refused
    for their width, and ``method="auto"`` takes the exact estimator). Narrower features, levels
    times pivots up to ``n``, stay: at 1,000 rows, the joint kernel's 447 columns against 704
    saved a quarter of the score's time but made each permutation's refit 4 times as long.
    """
    return n < width and n <= JOINT_ROWS


#: Seconds of the low-rank estimator's algebra per cubed feature width (its factorisations,
#: solves and norms) and of pivoting a joint kernel per row and squared rank (incomplete Cholesky,
#: factor rows and their Gram), in the units of :func:`._estimators.exact.exact_seconds`: both
#: measured beside the exact estimator on the same machine (EO with three mixed attributes and
#: a continuous outcome, 200 to 1,600 rows, widths 200 to 730; performance docs).
SECONDS_PER_CUBED_WIDTH = 2e-10
SECONDS_PER_JOINT_ENTRY = 6e-10


def lowrank_seconds(n: int, widths: Iterable[int]) -> float:
    """The low-rank estimator's estimated seconds, once its variables' features, levels times
    pivots ``widths`` wide on ``n`` rows, are fitted: its algebra on each width, and, for a width
    that :func:`pivots_jointly`, pivoting the joint kernel to its largest rank, ``min(n, width)``
    (the rank it needs is known only once pivoted)."""
    seconds = 0.0
    for width in widths:
        if pivots_jointly(n, width):
            width = min(n, width)
            seconds += SECONDS_PER_JOINT_ENTRY * n * width**2
        seconds += SECONDS_PER_CUBED_WIDTH * width**3
    return seconds


#: Pivots per block of :func:`incomplete_cholesky`'s factor rows.
PIVOT_BLOCK = 16


class LevelKernel(NamedTuple):
    """Rows' level combinations ``codes`` (``n``, or ``B × n`` for a stack) and the ``kernel``
    between the combinations (``L × L``): the level factor of a joint kernel
    ``kernel[g_i, g_j] k(z_i, z_j)``."""

    codes: np.ndarray
    kernel: np.ndarray

    def diagonal(self) -> np.ndarray:
        return np.diagonal(self.kernel)[self.codes]


def incomplete_cholesky(
    z: Any,
    kernel: Kernel,
    tolerance: float,
    max_rank: int,
    initial: Sequence[int] | np.ndarray = (),
    levels: LevelKernel | None = None,
) -> tuple[Any, Any]:
    """Pivoted incomplete Cholesky factorisation of ``kernel`` on the rows of ``z``, times the
    kernel between the rows' level combinations when ``levels`` are given.

    Returns the pivots and the factor ``L`` (``n × r``, ``L Lᵀ ≈ K``), which equals the Nyström
    factor ``K[:, pivots] chol(K[pivots, pivots])⁻ᵀ``. ``tolerance``, relative to the kernel's
    diagonal (:func:`absolute_tolerance`), must be above rounding level: a pivot's own residual
    is left at its rounding error, not set to zero. ``initial`` are rows to pivot on, in this
    order, before the greedy choice (the pivots of a subset of the rows, to extend). The next
    pivot is the row of the largest residual, and among equal largest residuals the row with the
    lexicographically smallest values (:func:`greedy_pivots`).

    Arrays other than numpy's (a device's tensors; without ``initial`` and ``levels``) take the
    same pivots by :func:`_device_cholesky`, which reads the device once per block of pivots;
    its pivots past the rank are −1, and their factor columns zero.
    """
    if not isinstance(z, np.ndarray):
        assert not len(initial) and levels is None, "initial pivots and levels: numpy only"
        return _device_cholesky(detached(z), kernel, tolerance, max_rank)
    n = z.shape[0]
    # float64 as the factor, whatever the dtype of z
    residual = np.asarray(kernel.diagonal(z), dtype=np.float64)
    if levels is not None:
        residual = residual * levels.diagonal()
    tolerance = absolute_tolerance(tolerance, residual)
    rank = min(max_rank, n)
    # factor rows in blocks of PIVOT_BLOCK pivots, added as needed: a buffer grown by copies
    # would hold both copies at its peak, and one for every possible pivot would be allocated
    # (and counted by tracemalloc) however few are used
    blocks: list[np.ndarray] = []
    scratch = np.empty(n)
    # one contiguous array per column, for the kernel's column against each pivot
    columns = [np.ascontiguousarray(z[:, j]) for j in range(z.shape[1])]
    # rows equal in every column but their level combination tie: broken by the combination
    ties = columns if levels is None else [*columns, levels.codes]
    chosen: list[int] = []
    # each pivot is about ten numpy calls, paid on every training batch and every permutation:
    # scalars stay Python floats rather than numpy scalars, and a pivot's residual, zero up to
    # rounding, stays below the tolerance without being set
    for k in range(rank):
        i = int(initial[k]) if k < len(initial) else int(greedy_pivots(residual, ties))
        pivot_residual = float(residual[i])
        if pivot_residual <= tolerance and k >= len(initial):
            break
        full, row = divmod(k, PIVOT_BLOCK)
        if not row:
            blocks.append(np.empty((min(PIVOT_BLOCK, rank - k), n)))
        column = kernel.column_into(columns, z[i].tolist(), blocks[full][row], scratch)
        if levels is not None:
            column *= levels.kernel[levels.codes[i]][levels.codes]
        for block in blocks[:full]:
            column -= block[:, i] @ block
        if row:
            column -= blocks[full][:row, i] @ blocks[full][:row]
        column /= math.sqrt(pivot_residual)
        np.square(column, out=scratch)
        residual -= scratch
        chosen.append(i)
    return np.asarray(chosen, dtype=np.int64), _transposed(blocks, len(chosen), n)


def _device_cholesky(z: Any, kernel: Kernel, tolerance: float, max_rank: int) -> tuple[Any, Any]:
    """:func:`incomplete_cholesky` on a device: the pivots (``−1`` past the rank) and the factor
    (``n × r``, its columns past the rank zero), with no host read but once per block of pivots.

    On an accelerator the launches, not the arithmetic, bound the time, so each pivot costs a
    fixed number of device operations whatever the number of rows: the rows are sorted
    lexicographically once, so that ``argmax`` (the first of equal largest values) breaks ties by
    value without a pass per column, and the factor rows so far are subtracted in one product.
    The stopping test is read once per block of :data:`PIVOT_BLOCK` pivots, as on the host: a
    pivot past the tolerance within the block is masked (its factor row is zero and leaves the
    residual as it is). The residuals round differently from the host's (which subtracts the
    factor rows block by block): two residuals equal but for rounding may be ordered the other
    way, and the factor takes the other row, its statistic then within the low-rank
    approximation error; exact ties, the common case, are broken alike.
    """
    xp = namespace(z)
    n = int(z.shape[0])
    order = lexicographic_order([z[:, j] for j in range(z.shape[1])])
    ordered = xp.take(z, order, axis=0)
    residual = kernel.diagonal(ordered)
    limit = tolerance * xp.max(residual)  # relative to the diagonal, as on the host
    # room for every pivot, though a factor usually stops well before: only rows written are read
    rows = xp.empty((min(max_rank, n), n), dtype=residual.dtype, device=array_api_compat.device(z))
    # a masked pivot divides its column by √∞: the column is zero, and its residual (which may
    # be 0) never divides
    infinity = xp.full((1,), xp.inf, dtype=residual.dtype, device=array_api_compat.device(z))
    pivots, actives = [], []
    for k in range(rows.shape[0]):
        # (indexing rather than take: array-api-compat's take costs three more operations)
        i = xp.reshape(xp.argmax(residual), (1,))
        pivot_residual = residual[i]
        # past the tolerance, the residual stays as it is, so every later pivot is masked too
        active = pivot_residual > limit
        column = kernel.gram(ordered, ordered[i, :])[:, 0]
        if k:
            column = column - (xp.permute_dims(rows[:k], (1, 0)) @ rows[:k, i])[:, 0]
        rows[k, :] = column / xp.sqrt(xp.where(active, pivot_residual, infinity))
        residual = residual - rows[k] * rows[k]
        pivots.append(i)
        actives.append(active)
        if k % PIVOT_BLOCK == PIVOT_BLOCK - 1 and not bool(xp.any(active)):
            break
    used = len(pivots)
    found = xp.where(xp.concat(actives), xp.take(order, xp.concat(pivots)), -1)
    back = xp.argsort(order, stable=False)  # the inverse permutation
    return found, xp.permute_dims(xp.take(rows[:used], back, axis=1), (1, 0))


def greedy_pivots(residual: np.ndarray, columns: list[np.ndarray]) -> Any:
    """The row of the largest residual (along the last axis, so per member of a stack), and
    among equal largest residuals the row with the lexicographically smallest values.

    Ties are the rule, not the exception: every residual starts at the kernel's diagonal, 1,
    and rows far from every pivot so far keep exactly 1 (their kernel values square below
    rounding). Broken by value rather than position, they make the pivots a function of the
    data, whatever the row order.
    """
    if residual.ndim == 1:
        # one factor, per pivot of every training batch: a few calls when there is no tie
        largest = int(residual.argmax())
        tied = np.flatnonzero(residual == residual[largest])
        if tied.size == 1:
            return largest
        return int(tied[np.lexsort([values[tied] for values in reversed(columns)])[0]])
    candidates = residual == residual.max(axis=-1, keepdims=True)
    if np.count_nonzero(candidates) == residual.shape[0]:
        return candidates.argmax(axis=-1)  # one candidate per member
    for values in columns:
        masked = np.where(candidates, values, np.inf)
        candidates &= masked == masked.min(axis=-1, keepdims=True)
    return candidates.argmax(axis=-1)


#: Columns of the ``r × n`` factor transposed per block by :func:`_transposed`.
_TRANSPOSE_BLOCK = 4096


def _transposed(blocks: list[np.ndarray], rank: int, n: int) -> np.ndarray:
    """The ``n × rank`` C-contiguous factor from its first ``rank`` rows, held in ``blocks``
    of :data:`PIVOT_BLOCK`; copied a band of columns at a time, as a copy in one pass reads
    each output row from ``rank`` distant pages (4-6x longer at 2·10⁶ rows)."""
    out = np.empty((n, rank))
    for b, block in enumerate(blocks):
        first = b * PIVOT_BLOCK
        rows = block[: rank - first]
        for start in range(0, n, _TRANSPOSE_BLOCK):
            stop = start + _TRANSPOSE_BLOCK
            out[start:stop, first : first + rows.shape[0]] = rows[:, start:stop].T
    return out


def incomplete_cholesky_batch(
    z: np.ndarray,
    kernel: Kernel,
    tolerance: float,
    max_rank: int,
    levels: LevelKernel | None = None,
) -> np.ndarray:
    """:func:`incomplete_cholesky` of every ``z[b]`` of a ``B × n × d`` stack at once (with
    each member's level combinations ``levels.codes[b]`` when ``levels`` are given).

    Returns the factors ``L`` (``B × n × r``) zero-padded to the largest rank: a member that
    has converged gets zero columns, which leave ``L Lᵀ`` and every statistic unchanged. The
    permutation null refits one factor per permutation; stepping all of them together pays
    the per-pivot Python overhead once per batch instead of once per permutation.
    """
    batch, n, d = z.shape
    members = np.arange(batch)
    residual = np.asarray(kernel.diagonal(z), dtype=np.float64)
    if levels is not None:
        residual = residual * levels.diagonal()
    tolerance = absolute_tolerance(tolerance, residual)
    rows = np.zeros((batch, min(max_rank, n), n))
    # one contiguous B × n array per column, for the kernel's column against each pivot
    columns = [np.ascontiguousarray(z[:, :, j]) for j in range(d)]
    ties = columns if levels is None else [*columns, levels.codes]
    scratch = np.empty((batch, n))
    rank = 0
    for k in range(rows.shape[1]):
        pivots = greedy_pivots(residual, ties)
        pivot_residual = residual[members, pivots]
        active = pivot_residual > tolerance
        if not active.any():
            break
        point = [values[members, pivots][:, None] for values in columns]
        column = kernel.column_into(columns, point, np.empty((batch, n)), scratch)
        if levels is not None:
            pivot_levels = levels.kernel[levels.codes[members, pivots]]
            column *= np.take_along_axis(pivot_levels, levels.codes, axis=1)
        if k:
            column -= np.matmul(rows[members, :k, pivots][:, None, :], rows[:, :k])[:, 0]
        column *= np.where(active, 1.0 / np.sqrt(np.where(active, pivot_residual, 1.0)), 0.0)[
            :, None
        ]
        rows[:, k] = column
        column *= column
        residual -= column
        rank = k + 1
    return rows[:, :rank].transpose(0, 2, 1)


#: Level-combination sets whose kernel factor :meth:`FeatureMap.level_rows` remembers.
_LEVEL_ROOTS_KEPT = 256


class FeatureMap:
    """The feature map of one variable: fitted on the first chunk, then applied to every chunk."""

    def __init__(
        self,
        rank: int | None,
        tolerance: float,
        max_width: int | None = None,
        pivot_jointly: bool = False,
    ) -> None:
        """Caps: ``rank`` on the pivots; ``tolerance`` on the residual (see
        :func:`pivot_tolerance`); ``max_width`` on the factor's columns.

        When exact levels times pivots would give more than ``max_width`` columns, every
        numeric column goes to incomplete Cholesky instead (explicit feature rows need this).
        With ``pivot_jointly``, levels times pivots wider than the rows (:func:`pivots_jointly`)
        give way to one factor of the joint kernel, the level kernel inside the pivoted one.
        """
        self.rank = rank
        self.tolerance = tolerance
        self.max_width = max_width
        self.pivot_jointly = pivot_jointly
        #: the level combinations factored exactly, fitted on the first chunk
        self.levels: LevelEncoder
        #: the level combinations inside the pivoted kernel (None: factored apart, exactly)
        self._joint_levels: LevelEncoder | None = None
        self._landmark_codes = np.zeros(0, dtype=np.int64)
        self._landmarks: Any = None
        #: the rows of the fitted input that are the landmarks, in pivoting order
        self._pivots = np.zeros(0, dtype=np.int64)
        #: which rows of the fitted input the pivots were chosen among (None: all of them)
        self._candidates: np.ndarray | None = None
        # factors of the kernel between the level combinations of recent batches: a
        # combination's level values never change, so the factor of a set of them is reusable
        self._level_roots: dict[bytes, np.ndarray] = {}

    def fit_transform(
        self, first: KernelInput, like: Any, differentiated: Sequence[int] | None = None
    ) -> tuple[np.ndarray, Any]:
        """Fit levels and pivots on ``first``; return its codes and factor rows.

        ``differentiated`` names the numeric columns that need gradients (default: every column
        of an input that carries them). Levels are exact but piecewise constant, so those
        columns stay continuous; the others are factored over their levels where they have few.
        """
        codes, factor = self.fit(first, like, differentiated)
        if factor is None:
            factor = self.continuous_rows(first.z)
            uncovered = self.uncovered(first.z, factor, np.arange(first.n))
            if uncovered.size:
                self.cover(first, uncovered)
                factor = self.continuous_rows(first.z)
        return codes, factor

    def fit(
        self, first: KernelInput, like: Any, differentiated: Sequence[int] | None = None
    ) -> tuple[np.ndarray, Any | None]:
        """:meth:`fit_transform` that leaves the factor rows to the caller (None) unless the
        fit gives them at no cost: incomplete Cholesky's own, when every row was a candidate
        pivot and none needs a gradient. The caller forms them with :meth:`continuous_rows`
        and, when the pivots were chosen among candidates, covers the rows that
        :meth:`uncovered` finds."""
        z_host = None if first.z is None else to_host(first.z)
        if differentiated is None:
            tracked = bool(getattr(first.z, "requires_grad", False))
            differentiated = range(z_host.shape[1]) if tracked and z_host is not None else ()
        discrete = [j for j in level_columns(z_host) if j not in differentiated]
        return self._fit(first, z_host, discrete, like)

    def fit_levels(self, first: KernelInput) -> np.ndarray:
        """Fit the level combinations and the continuous columns alone, on a host input; return
        its combination codes (the continuous factor is left to the caller)."""
        return self._fit_levels(first, first.z, level_columns(first.z))

    def _fit(
        self, first: KernelInput, z_host: np.ndarray | None, discrete: list[int], like: Any
    ) -> tuple[np.ndarray, Any | None]:
        numeric_levels = list(discrete)
        codes = self._fit_levels(first, z_host, discrete)
        self._candidates = None
        if not self.continuous_columns:
            return codes, self._constant_factor(first.n, like)
        assert z_host is not None
        z = z_host[:, self.continuous_columns]
        candidates = pivot_candidates(z)
        if candidates is None:
            chosen, factor = incomplete_cholesky(z, self.kernel, self.tolerance, self.max_rank)
        else:
            chosen, _ = incomplete_cholesky(
                z[candidates], self.kernel, self.tolerance, self.max_rank
            )
            chosen, factor = candidates[chosen], None
            self._candidates = np.zeros(first.n, dtype=bool)
            self._candidates[candidates] = True
        width = self.levels.n_combinations * chosen.size
        if numeric_levels and self.max_width is not None and width > self.max_width:
            # a small batch with many levels: incomplete Cholesky on every numeric column
            # gives a factor that fits
            return self._fit(first, z_host, [], like)
        tracked = getattr(first.z, "requires_grad", False)
        if self.pivot_jointly and not tracked and pivots_jointly(first.n, width):
            return self._fit_joint(first, z, codes, like)
        self._set_pivots(first, chosen)
        if factor is None or tracked:
            return codes, None
        return codes, as_like(factor, like)

    def _fit_joint(
        self, first: KernelInput, z: np.ndarray, codes: np.ndarray, like: Any
    ) -> tuple[np.ndarray, Any]:
        """Pivot the joint kernel ``K_levels[g_i, g_j] k(z_i, z_j)`` once: the factor is as
        wide as its tolerance needs, at most the rows (or the combinations times the rank cap),
        instead of every combination times every pivot. The variable then has one level
        combination, and its levels live in its continuous rows (:meth:`continuous_rows`)."""
        encoder = self.levels
        levels = LevelKernel(codes, encoder.level_kernel(self.kernel))
        rank = min(first.n, encoder.n_combinations * self.max_rank)
        chosen, factor = incomplete_cholesky(z, self.kernel, self.tolerance, rank, levels=levels)
        self._joint_levels = encoder
        self.levels = LevelEncoder([], 0)
        self._landmark_codes = codes[chosen]
        self._set_pivots(first, chosen)
        return np.zeros(first.n, dtype=np.int64), as_like(factor, like)

    @property
    def is_joint(self) -> bool:
        """Whether the levels are inside the pivoted kernel (:meth:`_fit_joint`)."""
        return self._joint_levels is not None

    def _set_pivots(self, first: KernelInput, pivots: np.ndarray) -> None:
        """Take ``pivots`` (rows of ``first``) as the landmarks of the Nyström rows."""
        self._pivots = pivots
        xp = namespace(first.z)
        z = self._select(first.z)
        self._landmarks = xp.take(z, xp.asarray(pivots, device=array_api_compat.device(z)), axis=0)
        gram = self.kernel.gram(self._landmarks, self._landmarks)
        self._cholesky = xp.linalg.cholesky(self._with_levels(gram, self._landmark_codes))

    def _with_levels(self, cross: Any, codes: np.ndarray | None) -> Any:
        """``cross`` (landmarks × rows) times the level kernel between the landmarks' level
        combinations and the rows' ``codes``, when the levels are inside the pivoted kernel;
        ``cross`` itself otherwise."""
        if self._joint_levels is None:
            return cross
        kernel = self._joint_levels.level_kernel(self.kernel)[self._landmark_codes]
        return cross * as_like(kernel[:, codes], cross)

    @property
    def max_rank(self) -> int:
        """The cap on the number of pivots: ``rank``, or the kernel's default."""
        return self.rank or self.kernel.default_rank

    def uncovered(self, z: Any, factor: Any, rows: np.ndarray) -> np.ndarray:
        """Which of ``rows`` (of the input this map was fitted on, whose numeric columns are
        ``z`` and factor rows ``factor``) need more pivots: rows that were not candidates and
        keep a residual ``k(zᵢ, zᵢ) − ‖φᵢ‖²`` above the tolerance, while the rank is below its
        cap (none when every row was a candidate)."""
        if self._candidates is None or self.continuous_rank >= self.max_rank:
            return rows[:0]
        host = to_host(factor)
        diagonal = to_host(self.kernel.diagonal(self._select(z)))
        residual = diagonal - np.einsum("ij,ij->i", host, host)
        tolerance = absolute_tolerance(self.tolerance, diagonal)
        return rows[(residual > tolerance) & ~self._candidates[rows]]

    def cover(self, first: KernelInput, rows: np.ndarray) -> None:
        """Add pivots for ``rows`` of ``first`` (the input this map was fitted on), which
        join the candidates: incomplete Cholesky goes on from the same pivots, which lowers
        every row's residual, so that every row ends within the tolerance (or the rank at its
        cap)."""
        assert self._candidates is not None
        self._candidates[rows] = True
        candidates = np.flatnonzero(self._candidates)
        z = to_host(self._select(first.z))[candidates]
        initial = np.searchsorted(candidates, self._pivots)
        chosen, _ = incomplete_cholesky(z, self.kernel, self.tolerance, self.max_rank, initial)
        self._set_pivots(first, candidates[chosen])

    def _fit_levels(
        self, first: KernelInput, z_host: np.ndarray | None, discrete: list[int]
    ) -> np.ndarray:
        #: the kernel of the numeric columns, of the input fitted on
        self.kernel = first.kernel
        n_nominal = 0 if first.codes is None else first.codes.shape[1]
        while True:
            self.levels = LevelEncoder(discrete, n_nominal)
            codes = self.levels.encode(first.n, z_host, first.codes, first.levels)
            if self.levels.n_combinations <= MAX_COMBINATIONS or not discrete:
                break
            # too many combinations for an exact factor: the numeric column with the most
            # levels joins the continuous block, where incomplete Cholesky caps the rank
            assert z_host is not None
            discrete.remove(max(discrete, key=lambda j: distinct_count(z_host[:, j])))
        if self.levels.n_combinations > MAX_COMBINATIONS:
            raise ValueError(
                f"the nominal columns of one variable have {self.levels.n_combinations} level "
                f"combinations, more than the low-rank estimator factors exactly "
                f"({MAX_COMBINATIONS}); merge rare levels first (for example keep the "
                f"{MAX_COMBINATIONS - 1} most frequent and put the rest in one level 'other'), "
                "or pass an ordered column as numbers. method='exact' takes any number of "
                f"levels, but at most {MAX_EXACT_ROWS:,} rows."
            )
        n_numeric = 0 if z_host is None else z_host.shape[1]
        #: the numeric columns factored by incomplete Cholesky
        self.continuous_columns = [j for j in range(n_numeric) if j not in discrete]
        return codes

    @property
    def continuous_rank(self) -> int:
        return 1 if self._landmarks is None else int(self._landmarks.shape[0])

    @property
    def width(self) -> int:
        """Columns of the features: level combinations times continuous pivots."""
        return self.levels.n_combinations * self.continuous_rank

    @property
    def is_constant(self) -> bool:
        """Whether every row seen has the same features: one level combination (a constant
        numeric column is one level) and no continuous factor."""
        return self._landmarks is None and self.levels.n_combinations == 1

    def transform(self, k: KernelInput, like: Any) -> tuple[np.ndarray, Any]:
        """Level-combination codes (host) and continuous factor rows (``n × r``) of a chunk."""
        return self.codes(k), self.factor(k, like)

    def codes(self, k: KernelInput) -> np.ndarray:
        """Level-combination codes of the rows of ``k`` (host)."""
        z_host = None if k.z is None or not self.levels.numeric_columns else to_host(k.z)
        return self.levels.encode(k.n, z_host, k.codes, k.levels)

    def factor(self, k: KernelInput, like: Any) -> Any:
        """Continuous factor rows (``n × r``) of ``k``: :meth:`continuous_rows`, or ones for a
        variable without continuous columns."""
        if self._landmarks is None:
            return self._constant_factor(k.n, like)
        if self._joint_levels is None:
            return self.continuous_rows(k.z)
        numeric = None if not self._joint_levels.numeric_columns else to_host(k.z)
        return self.continuous_rows(k.z, self._joint_levels.encode(k.n, numeric, k.codes, k.levels))

    def continuous_rows(self, z: Any, codes: np.ndarray | None = None) -> Any:
        """Nyström rows ``K(z, landmarks) chol(K(landmarks, landmarks))⁻ᵀ`` of the numeric
        columns ``z`` of an input, whose level combinations are ``codes`` when the levels are
        inside the pivoted kernel."""
        # the kernel is taken landmarks first and transposed: the solve then runs on a
        # column-major array, in 60% of the time on a row-major one (32,768 × 100)
        cross = self._with_levels(self.kernel.gram(self._landmarks, self._select(z)), codes)
        return divide_by_lower_transposed(cross.T, self._cholesky)

    @staticmethod
    def _constant_factor(n: int, like: Any) -> Any:
        """The factor of a variable without continuous columns: its kernel is ``W[g] W[g]ᵀ``."""
        xp = namespace(like)
        return xp.ones((n, 1), dtype=like.dtype, device=array_api_compat.device(like))

    def level_factor(self) -> np.ndarray:
        """``W`` with ``W Wᵀ`` the kernel between the level combinations seen (no gradient)."""
        return _psd_square_root(self.levels.level_kernel(self.kernel))

    def level_rows(self, codes: np.ndarray) -> np.ndarray:
        """Rows ``W[g_i]`` of a factor of the kernel between the combinations in ``codes`` only.

        Later chunks may have seen more combinations than one batch holds; factoring only those
        present keeps the rows no wider than the batch's distinct combinations.
        """
        present, inverse = unique_inverse(codes)
        key = present.tobytes()
        if key not in self._level_roots:
            if len(self._level_roots) >= _LEVEL_ROOTS_KEPT:
                self._level_roots.clear()
            self._level_roots[key] = _psd_square_root(
                self.levels.level_kernel(self.kernel, present)
            )
        return take_rows(self._level_roots[key], inverse)

    def _select(self, z: Any) -> Any:
        if len(self.continuous_columns) == z.shape[1]:
            return z
        xp = namespace(z)
        return xp.take(
            z, xp.asarray(self.continuous_columns, device=array_api_compat.device(z)), axis=1
        )


def _psd_square_root(kernel: np.ndarray) -> np.ndarray:
    """``W`` with ``W Wᵀ = kernel``, keeping the numerically non-zero eigenvalues."""
    values, vectors = np.linalg.eigh(kernel)
    keep = values > 1e-12 * values.max()
    return vectors[:, keep] * np.sqrt(values[keep])


def row_kronecker(level_rows: Any, factor: Any) -> Any:
    """Row-wise Kronecker product of the level rows and the continuous factor rows."""
    xp = namespace(level_rows, factor)
    n = int(factor.shape[0])
    return xp.reshape(level_rows[:, :, None] * factor[:, None, :], (n, -1))


def refitted_features(
    feature_map: FeatureMap, inputs: Sequence[KernelInput], joint: bool = False
) -> KroneckerRows:
    """Host feature rows ``W[g_i] ⊗ φ_i`` of each of ``inputs``, kept as their factors, each
    under a feature map of ``feature_map``'s kind fitted on itself; with ``joint``, the factor
    of each one's joint kernel (:meth:`FeatureMap._fit_joint`), whose rows need no level factor.

    The inputs must hold the same level combinations, as the rows of one input permuted within
    its combinations do (the permutation null's): one level factor then serves them all, and
    their continuous factors are fitted together by :func:`incomplete_cholesky_batch`.
    """
    hosts = [k.on_host() for k in inputs]
    codes = [feature_map.fit_levels(hosts[0])]
    combinations = feature_map.levels.n_combinations
    codes += [feature_map.levels.encode(k.n, k.z, k.codes, k.levels) for k in hosts[1:]]
    if feature_map.levels.n_combinations != combinations:
        raise ValueError("inputs refitted together must hold the same level combinations.")
    columns = feature_map.continuous_columns
    if columns and joint and not feature_map.levels.is_trivial:
        z = np.stack([k.z[:, columns] for k in hosts])
        levels = LevelKernel(np.stack(codes), feature_map.levels.level_kernel(feature_map.kernel))
        rank = min(hosts[0].n, combinations * feature_map.max_rank)
        return KroneckerRows(
            _joint_factors(z, feature_map.kernel, feature_map.tolerance, rank, levels)
        )
    if columns:
        z = np.stack([k.z[:, columns] for k in hosts])
        factor = incomplete_cholesky_batch(
            z, feature_map.kernel, feature_map.tolerance, feature_map.max_rank
        )
    else:
        factor = np.ones((len(hosts), hosts[0].n, 1))
    if feature_map.levels.is_trivial:
        return KroneckerRows(factor)  # no discrete column: the level factor is 1
    return KroneckerRows(factor, np.stack(codes), feature_map.level_factor())


#: Most entries of the factor rows :func:`_joint_factors` pivots at once (128 MiB): a joint
#: factor may be as wide as the rows, each member's ``r × n``.
JOINT_BATCH_ENTRIES = 2**24


def _joint_factors(
    z: np.ndarray, kernel: Kernel, tolerance: float, rank: int, levels: LevelKernel
) -> np.ndarray:
    """:func:`incomplete_cholesky_batch` of a stack's joint kernels, a few members at a time,
    zero-padded to the largest rank."""
    batch, n, _ = z.shape
    size = max(1, JOINT_BATCH_ENTRIES // (rank * n))
    factors = [
        incomplete_cholesky_batch(
            z[start : start + size],
            kernel,
            tolerance,
            rank,
            LevelKernel(levels.codes[start : start + size], levels.kernel),
        )
        for start in range(0, batch, size)
    ]
    width = max(f.shape[2] for f in factors)
    return np.concatenate([np.pad(f, ((0, 0), (0, 0), (0, width - f.shape[2]))) for f in factors])


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


def _in_memory(roles: dict[str, KernelInput] | None) -> dict[str, KernelInput]:
    if roles is None:
        raise ValueError("permutation tests need the data in memory, not a stream.")
    return roles


#: The arguments of each role, for messages.
_ROLE_ARGUMENTS: dict[str, str] = {
    U: "y_pred (y_true under notion='cal')",
    E: "sensitive_features (with y_true under notion='eo', y_pred under 'cal')",
    C: "y_true (y_pred under notion='cal')",
}


@dataclass
class _Group:
    count: int
    sums: Any
    gram: Any


class GroupedMoments:
    """Per-group sums and Gram matrices of the continuous factors of the variables ``u, e[, c]``.

    A group is a combination of level codes of all variables (and of the conditioning stratum),
    so within a group every variable's discrete factor is constant.
    """

    def __init__(
        self,
        first: dict[str, KernelInput],
        conditional: bool,
        rank: int | None,
        ridge: Ridge,
        pivot_jointly: bool = False,
    ) -> None:
        """Feature maps for the variables of ``first``, the first chunk; with ``pivot_jointly``
        (data in memory, all in ``first``), those whose levels times pivots would be wider than
        its rows pivot their joint kernel (:func:`pivots_jointly`). A stream's first chunk is
        not all its rows: levels times pivots are then not wider than the data."""
        self.roles = list(first)
        self.ridge = ridge
        self.maps = {
            role: FeatureMap(rank, pivot_tolerance(ridge, role), pivot_jointly=pivot_jointly)
            for role in first
        }
        self.strata = Strata(first[C]) if conditional else None
        self._groups: list[_Group] = []
        self._keys = LevelRegistry()
        self._in_memory: dict[str, KernelInput] | None = None
        self._fitted = False
        self.n = 0

    @property
    def width(self) -> int:
        """Columns of the widest variable's features (:attr:`FeatureMap.width`), fitted on the
        first chunk: the size of the estimator's solves."""
        return max(self.widths)

    @property
    def widths(self) -> list[int]:
        """Columns of each variable's features."""
        return [m.width for m in self.maps.values()]

    def check_width(self) -> None:
        """Refuse features wider than :data:`MAX_FEATURES`, naming the variable and what to do."""
        if self.width <= MAX_FEATURES:
            return
        role, widest = max(self.maps.items(), key=lambda item: item[1].width)
        raise ValueError(
            f"the low-rank features of {_ROLE_ARGUMENTS[role]} would be {widest.width:,} "
            f"columns wide ({widest.levels.n_combinations} level combinations of its discrete "
            f"columns times {widest.continuous_rank} pivots of its continuous ones), more than "
            f"the {MAX_FEATURES:,} the low-rank estimator takes: its solves grow as the cube "
            f"of the width, and each of its matrices would take "
            f"{widest.width**2 * 8 / 2**30:.1f} GiB. Use method='exact' (at most "
            f"{MAX_EXACT_ROWS:,} rows), cap the pivots with rank= (the width is the "
            "combinations times the rank), or merge rare levels."
        )

    def empty(self) -> GroupedMoments:
        """A copy with the fitted feature maps and strata but no rows, for other partitions."""
        copy = deepcopy(self)
        copy._groups, copy._keys, copy._in_memory, copy.n = [], LevelRegistry(), None, 0
        return copy

    def merge(self, other: GroupedMoments) -> None:
        """Add the rows accumulated by ``other``, a copy from :meth:`empty` fed other chunks."""
        if not other._groups:
            return
        theirs = np.asarray(other._keys.values, dtype=np.int64).reshape(len(other._groups), -1)
        columns = [
            self.maps[role].levels.translate(other.maps[role].levels, theirs[:, i])
            for i, role in enumerate(self.roles)
        ]
        if self.strata is not None:
            assert other.strata is not None
            columns.append(self.strata.translate(other.strata, theirs[:, -1]))
        mine = self._keys.codes_of([tuple(r) for r in np.stack(columns, axis=1).tolist()])
        for group, code in zip(other._groups, mine.tolist(), strict=True):
            self._accumulate(code, group.count, group.sums, group.gram)
        self.n += other.n

    def add(self, chunk: dict[str, KernelInput], like: Any) -> None:
        """Accumulate one chunk; the first fits the feature maps on it.

        When the pivots of the first chunk, chosen among candidates, leave some of its rows
        uncovered (:meth:`FeatureMap.uncovered`), those are covered and the chunk is
        accumulated again.
        """
        if self._fitted:
            codes = [self.maps[role].codes(chunk[role]) for role in self.roles]
            self._add_chunk(chunk, like, codes, {}, check=False)
            return
        fitted = {role: self.maps[role].fit(chunk[role], like) for role in self.roles}
        self._fitted = True
        codes = [fitted[role][0] for role in self.roles]
        factors = {role: f for role, (_, f) in fitted.items() if f is not None}
        uncovered = self._add_chunk(chunk, like, codes, factors, check=True)
        if uncovered:
            for role, rows in uncovered.items():
                self.maps[role].cover(chunk[role], rows)
            self._groups, self._keys, self.n = [], LevelRegistry(), 0
            self._add_chunk(chunk, like, codes, factors, check=False)

    def _add_chunk(
        self,
        chunk: dict[str, KernelInput],
        like: Any,
        codes: list[np.ndarray],
        factors: dict[str, Any],
        check: bool,
    ) -> dict[str, np.ndarray]:
        """Accumulate ``chunk``, whose level codes are ``codes`` (one array per variable), in
        blocks of :data:`ROW_BLOCK` rows taken in the order of their groups, so that each
        group's rows are consecutive. Factor rows are those of ``factors`` (of some variables,
        from their fit), the others formed block by block: never ``N × r`` at once. With
        ``check`` (the chunk the maps were fitted on), return the rows each map leaves
        uncovered, and accumulate nothing once there are any."""
        if self.strata is not None:
            codes = [*codes, self.strata.assign(chunk[C])]
        groups = self._keys.encode_rows(np.stack(codes, axis=1))
        # numpy radix-sorts 16-bit keys in O(n)
        order = np.argsort(
            groups.astype(np.int16) if groups.max() < 2**15 else groups, kind="stable"
        )
        uncovered: dict[str, list[np.ndarray]] = {}
        for start in range(0, groups.size, ROW_BLOCK):
            rows = order[start : start + ROW_BLOCK]
            block = []
            for role in self.roles:
                if role in factors:
                    block.append(take_rows(factors[role], rows))
                    continue
                feature_map = self.maps[role]
                k = chunk[role].take(rows)
                block.append(feature_map.factor(k, like))
                found = feature_map.uncovered(k.z, block[-1], rows) if check else rows[:0]
                if found.size:
                    uncovered.setdefault(role, []).append(found)
            if not uncovered:
                self._add_rows(groups[rows], block, like)
        return {role: np.concatenate(found) for role, found in uncovered.items()}

    def _add_rows(self, groups: np.ndarray, factors: list[Any], like: Any) -> None:
        """Accumulate rows sorted by their group, ``groups``, with factor rows ``factors`` (one
        array per variable)."""
        xp = namespace(like)
        block = factors[0] if len(factors) == 1 else xp.concat(factors, axis=1)
        starts = [0, *(np.flatnonzero(np.diff(groups)) + 1).tolist()]
        sizes = np.diff([*starts, groups.size]).tolist()
        for start, size, (sums, gram) in zip(
            starts, sizes, segment_moments(block, sizes), strict=True
        ):
            self._accumulate(int(groups[start]), size, sums, gram)
        self.n += groups.size

    def _accumulate(self, group: int, count: int, sums: Any, gram: Any) -> None:
        """Add to group ``group``, which is new when it equals the number of groups so far."""
        if group < len(self._groups):
            old = self._groups[group]
            self._groups[group] = _Group(old.count + count, old.sums + sums, old.gram + gram)
        else:
            self._groups.append(_Group(count, sums, gram))

    def fit(self, like: Any, roles: dict[str, KernelInput] | None) -> LowRankFit:
        """The low-rank :class:`Terms` from everything accumulated.

        ``roles`` (the in-memory inputs) enable :meth:`LowRankFit.permuted_statistic`.
        """
        self._in_memory = roles
        means, grams = centre_moments(*self.expanded(like), self.n)
        # a constant variable's centred features are 0, but its Grams, centred from sums that
        # round differently, are rounding noise: a statistic that every permuted one (exactly 0)
        # falls below. Its operator is exactly 0.
        constant = {role for role in self.roles if self.maps[role].is_constant}
        grams = {key: g * 0.0 if constant.intersection(key) else g for key, g in grams.items()}
        return LowRankFit(means, grams, self.n, self.ridge, like, lambda: self)

    def stratum_moments(self) -> Iterator[StratumMoments]:
        """Uncentred host sums and cross-Grams of the rows of each stratum."""
        for groups in self.stratum_groups().values():
            yield StratumMoments(self.counts(groups), *self.expanded(np.zeros(()), groups))

    def row_strata(self) -> np.ndarray:
        """Stratum of each in-memory row."""
        roles = _in_memory(self._in_memory)
        if self.strata is None:
            return np.zeros(self.n, dtype=np.int64)
        return self.strata.assign(roles[C])

    def host_features(self) -> dict[str, np.ndarray]:
        """Uncentred feature rows of each variable of the in-memory data."""
        roles = _in_memory(self._in_memory)
        return {role: self.explicit_features(role, k) for role, k in roles.items()}

    def refitted_features(self, role: str, inputs: Sequence[KernelInput]) -> KroneckerRows:
        """Host feature rows of each of ``inputs``, kept as their factors, each under a feature
        map of ``role``'s kind fitted on itself (see :func:`refitted_features`)."""
        fitted = self.maps[role]
        return refitted_features(FeatureMap(fitted.rank, fitted.tolerance), inputs, fitted.is_joint)

    def explicit_features(self, role: str, k: KernelInput) -> np.ndarray:
        """The uncentred feature rows ``W[g_i] ⊗ φ_i`` of ``k`` as a host array (``n × r``)."""
        return row_kronecker(*self.explicit_factors(role, k))

    def explicit_factors(self, role: str, k: KernelInput) -> tuple[np.ndarray, np.ndarray]:
        """The two factors of :meth:`explicit_features`: the level rows ``W[g_i]`` and the
        continuous factor rows ``φ_i`` of ``k``, host arrays."""
        codes, factor = self.maps[role].transform(k, np.zeros(()))
        return self.maps[role].level_factor()[codes], to_host(factor)

    def expanded(
        self, like: Any, groups: list[int] | None = None
    ) -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
        """Uncentred feature sums and cross-Gram matrices of the variables over ``groups``.

        With a numpy ``like`` the group statistics are detached host copies. Group statistics
        are first added up per level combination, then mixed by the level factors ``W``.
        """
        xp = namespace(like)
        device = array_api_compat.device(like)
        detach = isinstance(like, np.ndarray)
        selected = list(range(len(self._groups))) if groups is None else groups
        keys = np.asarray(self._keys.values, dtype=np.int64).reshape(len(self._groups), -1)
        keys = keys[selected]
        stats = [self._groups[g] for g in selected]
        group_sums = xp.stack([to_host(g.sums) if detach else g.sums for g in stats])
        group_grams = xp.stack([to_host(g.gram) if detach else g.gram for g in stats])
        ranks = {role: self.maps[role].continuous_rank for role in self.roles}
        factors = {
            role: xp.asarray(self.maps[role].level_factor(), dtype=like.dtype, device=device)
            for role in self.roles
        }
        return mixed_moments(keys, group_sums, group_grams, ranks, factors)

    def stratum_groups(self) -> dict[int, list[int]]:
        """The groups of each stratum (one stratum, 0, when unconditional)."""
        keys = np.asarray(self._keys.values, dtype=np.int64).reshape(len(self._groups), -1)
        strata: dict[int, list[int]] = {}
        for g in range(len(self._groups)):
            stratum = int(keys[g, -1]) if self.strata is not None else 0
            strata.setdefault(stratum, []).append(g)
        return strata

    def counts(self, groups: Iterable[int]) -> int:
        return sum(self._groups[g].count for g in groups)


def segment_moments(rows: Any, sizes: Sequence[int]) -> list[tuple[Any, Any]]:
    """The sums and Gram of each segment of consecutive ``rows``, ``sizes`` rows long (the factor
    rows of each level group, sorted by group): one product per segment, on the rows' device."""
    xp = namespace(rows)
    moments, start = [], 0
    for size in sizes:
        segment = rows[start : start + size]
        moments.append((xp.sum(segment, axis=0), xp.permute_dims(segment, (1, 0)) @ segment))
        start += size
    return moments


def mixed_moments(
    keys: Any, group_sums: Any, group_grams: Any, ranks: dict[str, int], factors: dict[str, Any]
) -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
    """Uncentred feature sums and cross-Grams of the variables from those of their groups.

    Group ``g`` holds the rows whose variable ``i`` (in the order of ``ranks``) has level
    combination ``keys[g, i]``; ``group_sums[g]`` and ``group_grams[g]`` are the sums and Gram of
    its continuous factor rows, the variables' side by side (``ranks`` columns each).
    Statistics are added up per level combination, then mixed by the level factors
    ``factors[role]`` (``W``, one row per combination).
    """
    xp = namespace(group_sums)
    roles = list(ranks)
    offsets = dict(zip(roles, np.cumsum([0, *ranks.values()]).tolist(), strict=False))
    sums: dict[str, Any] = {}
    for i, role in enumerate(roles):
        r, o = ranks[role], offsets[role]
        per_level = add_rows(int(factors[role].shape[0]), keys[:, i], group_sums[:, o : o + r])
        sums[role] = xp.reshape(xp.permute_dims(factors[role], (1, 0)) @ per_level, (-1,))
    grams: dict[tuple[str, str], Any] = {}
    for i, x in enumerate(roles):
        for j, y in enumerate(roles[i:], start=i):
            rx, ry, ox, oy = ranks[x], ranks[y], offsets[x], offsets[y]
            mx, my = int(factors[x].shape[0]), int(factors[y].shape[0])
            blocks = xp.reshape(group_grams[:, ox : ox + rx, oy : oy + ry], (-1, rx * ry))
            per_pair = add_rows(mx * my, keys[:, i] * my + keys[:, j], blocks)
            mixed = xp.reshape(per_pair, (mx, my, rx, ry))
            mixed = xp.tensordot(factors[x], mixed, axes=([0], [0]))
            mixed = xp.tensordot(mixed, factors[y], axes=([1], [0]))
            gram = xp.reshape(
                xp.permute_dims(mixed, (0, 1, 3, 2)),
                (int(factors[x].shape[1]) * rx, int(factors[y].shape[1]) * ry),
            )
            grams[(x, y)] = gram
            grams[(y, x)] = xp.permute_dims(gram, (1, 0))
    return sums, grams


def centre_moments(
    sums: dict[str, Any], grams: dict[tuple[str, str], Any], n: int
) -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
    """Feature means and centred cross-Grams from uncentred sums and Grams of ``n`` rows."""
    means = {role: s / n for role, s in sums.items()}
    centred = {
        (x, y): g - n * (means[x][:, None] * means[y][None, :]) for (x, y), g in grams.items()
    }
    return means, centred


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
    ) -> None:
        """Solve from the feature ``means`` and centred cross-Grams of ``n`` rows.

        ``source`` gives per-stratum moments and, in memory, feature rows; it is called on first
        use (only the permutation null and the permutation test need it).
        """
        self._source_of = source
        self._shifts: dict[str, float] = {role: ridge.shift(role, n) for role in (U, E, C)}
        self._means = means
        self._grams = centred
        solvers = self._solvers(centred)
        self.terms = Terms(
            statistic=_statistic(centred, solvers),
            rank=max(int(g.shape[0]) for (x, y), g in centred.items() if x == y),
            method="lowrank",
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
        other variables' factors and factorisations fixed.

        The batched form of the same trace: ``A_u`` and ``(C_cc + εN I)⁻¹`` are applied to all
        members in one solve, and so is ``A_e`` when ``attribute_side`` is a solver (permuted
        rows share ``C_ee``); otherwise it holds each member's centred ``C_ee + εN I``
        (``B × w × w``). The other variables' rows are centred, so their cross-Grams with the
        attribute rows need no centring.
        """
        q = cross[U]
        if C in cross:
            q = q - self._host_grams[(U, C)] @ _solve_stacked(self._host_solvers[C], cross[C])
        q_transposed = q.transpose(0, 2, 1)
        if isinstance(attribute_side, PsdSolver):
            a_e_qt = _solve_stacked(attribute_side, q_transposed)
        else:
            a_e_qt = np.linalg.solve(attribute_side, q_transposed)
        return np.einsum("bij,bji->b", _solve_stacked(self._host_solvers[U], q), a_e_qt)

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


def _solve_stacked(solver: PsdSolver, b: np.ndarray) -> np.ndarray:
    """``solver``'s solution for each of a stack of right-hand sides (``B × r × w``), in one
    solve."""
    batch, rows, width = b.shape
    flat = b.transpose(1, 0, 2).reshape(rows, batch * width)
    return solver.solve(flat).reshape(rows, batch, width).transpose(1, 0, 2)


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
    subtracted after their solves would lose the digits that they share.
    """
    cross = divide_by_lower_transposed(q, lower_e)
    difference = cross @ cross.T
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
