"""Pivoted incomplete Cholesky of a registered kernel of unit bandwidth, on the tensors' device.

The same factorisation as :func:`._estimators.lowrank.incomplete_cholesky`, pivot for pivot: the
largest residual diagonal becomes the next pivot, equal largest residuals go to the row with the
lexicographically smallest values (so the pivots are a function of the data, whatever the row
order), and the factorisation stops at the first pivot whose residual is at or below the
tolerance.

On an accelerator the launches, not the arithmetic, bound the time, so each pivot costs a fixed
number of device operations (10, and 3 more per column of ``z``), whatever the number of rows:
the rows are sorted lexicographically once, so that ``max`` (which returns the first of equal
largest values) breaks ties by value without a pass per column, and the factor rows so far are
subtracted in one product. The stopping test is read once per block of
:data:`._estimators.lowrank.PIVOT_BLOCK` pivots, as on the host: a pivot past it within the block is
masked (its factor row is zero and leaves the residual as it is), and the block's last pivot says
whether to go on. Zero rows leave ``L Lᵀ`` and every statistic unchanged, and the caller drops
them once the rank is known. A read waits for the device, but a factor of rank 16 then takes 32
pivots rather than the 100 that running to the largest rank unread would take.

The residuals are computed with the host's operations, but exponentials and sums round
differently in torch (and the host subtracts the factor rows block by block): two residuals
that differ by a rounding error only (values on a regular grid can give mathematically equal
residuals) may then be ordered the other way, and the factor takes the other row. Its statistic
then differs by at most the low-rank approximation error; exact ties, which are the common
case, are broken alike.
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from .._inputs.row_order import lexicographic_order
from .._kernels.kernel import Kernel
from .lowrank import PIVOT_BLOCK


class PivotedFactor(NamedTuple):
    """Factor rows (one per pivot taken, zero past ``rank``), pivots (``max_rank`` of them,
    valid up to ``rank``) and the rank as a 0-d device tensor."""

    rows: torch.Tensor
    pivots: torch.Tensor
    rank: torch.Tensor


def incomplete_cholesky(
    z: torch.Tensor, kernel: Kernel, tolerance: float, max_rank: int
) -> PivotedFactor:
    """Pivoted incomplete Cholesky of ``kernel`` on ``z``'s device (no gradient), up to
    ``max_rank`` pivots or the end of the first block of :data:`PIVOT_BLOCK` pivots that ends
    past the tolerance (relative to the kernel's diagonal, as on the host)."""
    z = z.detach()
    n = int(z.shape[0])
    rank_cap = min(max_rank, n)
    # rows in lexicographic order: the first of equal largest residuals has the smallest values
    order = lexicographic_order([z[:, j] for j in range(z.shape[1])])
    ordered = z[order]
    residual = kernel.diagonal(ordered)
    # relative to the diagonal, as on the host (where the residual starts), without a copy
    limit = tolerance * torch.max(residual)
    # room for every pivot, though a factor usually stops well before: only rows written are read
    rows = residual.new_empty((rank_cap, n))
    # a masked pivot divides its column by √∞: the column is zero, and its residual (which may
    # be 0) never divides
    infinity = residual.new_full((), torch.inf)
    pivots, actives = [], []
    for k in range(rank_cap):
        # the first of equal largest residuals (see the module docstring)
        pivot_residual, i = torch.max(residual, dim=0)
        # past the tolerance, the residual stays as it is, so every later pivot is masked too
        active = pivot_residual > limit
        column = kernel.gram(ordered, ordered.index_select(0, i.reshape(1)))[:, 0]
        if k:
            column = torch.addmv(column, rows[:k].T, rows[:k, i], alpha=-1.0)
        torch.div(column, torch.sqrt(torch.where(active, pivot_residual, infinity)), out=rows[k])
        residual.addcmul_(rows[k], rows[k], value=-1.0)
        pivots.append(i)
        actives.append(active)
        if k % PIVOT_BLOCK == PIVOT_BLOCK - 1 and not bool(active):
            break
    used = len(pivots)
    found = order.new_zeros(rank_cap)
    found[:used] = order[torch.stack(pivots)]
    return PivotedFactor(rows[:used, torch.argsort(order)], found, torch.stack(actives).sum())
