"""Pivoted Cholesky factorisation of a kernel on rows: incomplete (to a tolerance) on the host,
on a device and for a stack of inputs at once; complete (to rounding) by LAPACK.

The factor ``L`` (``n × r``, ``L Lᵀ ≈ K``) equals the Nyström factor on its pivots; the pivots
are chosen greedily, the row of the largest residual first, with ties broken by the rows' values
so that the pivots are a function of the data, whatever the row order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import array_api_compat
import numpy as np

from .._inputs.row_order import lexicographic_order
from .._kernels.kernel import Kernel
from .._linalg.backend import detached, namespace
from .pivots import absolute_tolerance

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


def complete_cholesky(
    z: np.ndarray, kernel: Kernel, levels: LevelKernel | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Complete pivoted Cholesky factorisation of ``kernel`` on the host rows of ``z`` (times
    the kernel between their level combinations when ``levels`` are given): the pivots and the
    factor ``L`` (``n × r``, ``L Lᵀ = K`` to rounding), which equals the Nyström factor on them.

    LAPACK's ``dpstrf`` stops at its own rounding tolerance (``n`` machine epsilons of the
    largest diagonal entry), in O(n² r) time with blocked updates; it takes the ``n × n`` kernel
    matrix, so it is for inputs small enough to hold one. It breaks ties by position, so the
    rows are first sorted by value: the pivots are then a function of the data, whatever the
    row order.
    """
    # imported here: the plugin contract loads numpy and pandas alone
    from scipy.linalg.lapack import dpstrf

    columns = [z[:, j] for j in range(z.shape[1])]
    order = lexicographic_order(columns if levels is None else [*columns, levels.codes])
    ordered = z[order]
    matrix = kernel.gram(ordered, ordered)
    if levels is not None:
        codes = levels.codes[order]
        matrix = matrix * levels.kernel[np.ix_(codes, codes)]
    factor, pivots, rank, info = dpstrf(matrix, lower=1, overwrite_a=1)
    if info < 0:
        raise RuntimeError(f"LAPACK's dpstrf refused argument {-info}")
    rank = max(rank, 1)
    # dpstrf factors the rows in pivoting order, P K Pᵀ = L Lᵀ: row i of L is pivot i's
    rows = np.empty((z.shape[0], rank))
    rows[order[pivots - 1]] = np.tril(factor)[:, :rank]
    return np.asarray(order[pivots[:rank] - 1], dtype=np.int64), rows


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
    diagonal (:func:`._estimators.pivots.absolute_tolerance`), must be above rounding level: a
    pivot's own residual is left at its rounding error, not set to zero. ``initial`` are rows to
    pivot on, in this order, before the greedy choice (the pivots of a subset of the rows, to
    extend). The next pivot is the row of the largest residual, and among equal largest residuals
    the row with the lexicographically smallest values (:func:`greedy_pivots`).

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
