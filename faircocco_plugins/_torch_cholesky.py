"""Pivoted incomplete Cholesky of the unit-bandwidth Gaussian kernel, on the tensors' device.

The same factorisation as :func:`._lowrank.incomplete_cholesky`, pivot for pivot: the largest
residual diagonal becomes the next pivot, equal largest residuals go to the row with the
lexicographically smallest values (so the pivots are a function of the data, whatever the row
order), and the factorisation stops at the first pivot whose residual is at or below the
tolerance. That stopping test is a value on the device: instead of reading it on the host
after every pivot, a pivot past it is masked (its factor row is zero and leaves the residual as
it is), and the rank is read with the caller's other results. Zero rows leave ``L Lᵀ`` and
every statistic unchanged, and the caller drops them once the rank is known.

The residuals are computed with the host's operations in the host's order, but exponentials and
products round differently in torch: two residuals that differ by a rounding error only (values
on a regular grid can give mathematically equal residuals) may then be ordered the other way,
and the factor takes the other row. Its statistic then differs by at most the low-rank
approximation error; exact ties, which are the common case, are broken alike.
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from . import _backend
from ._lowrank import PIVOT_BLOCK


class PivotedFactor(NamedTuple):
    """Factor rows (``max_rank × n``, zero past ``rank``; fewer rows when a CPU factor stopped
    early), pivots (valid up to ``rank``) and the rank as a 0-d device tensor."""

    rows: torch.Tensor
    pivots: torch.Tensor
    rank: torch.Tensor


def incomplete_cholesky(z: torch.Tensor, tolerance: float, max_rank: int) -> PivotedFactor:
    """Pivoted incomplete Cholesky of ``exp(−‖zᵢ − zⱼ‖² / 2)`` on ``z``'s device (no gradient).

    On a CPU tensor the loop also stops after the first block of :data:`PIVOT_BLOCK` pivots
    that ends past the tolerance, as reading a CPU value costs nothing; on an accelerator
    (:func:`._backend.on_accelerator`) it runs to ``max_rank`` without waiting for the device.
    """
    z = z.detach()
    n = int(z.shape[0])
    rank_cap = min(max_rank, n)
    columns = [z[:, j].contiguous() for j in range(z.shape[1])]
    residual = torch.ones(n, dtype=z.dtype, device=z.device)
    # factor rows in blocks of PIVOT_BLOCK pivots, added as needed, as on the host: a CPU
    # factor that stops early holds only the blocks it used
    blocks: list[torch.Tensor] = []
    pivots = torch.zeros(rank_cap, dtype=torch.int64, device=z.device)
    active = torch.ones((), dtype=torch.bool, device=z.device)
    rank = torch.zeros((), dtype=torch.int64, device=z.device)
    on_host = not _backend.on_accelerator(z)
    for k in range(rank_cap):
        full, row = divmod(k, PIVOT_BLOCK)
        if not row:
            blocks.append(residual.new_zeros((min(PIVOT_BLOCK, rank_cap - k), n)))
        i = greedy_pivot(residual, columns)
        pivot_residual = residual.gather(0, i)
        active = active & (pivot_residual > tolerance).squeeze(0)
        squared = torch.zeros_like(residual)
        for values in columns:
            squared += (values - values.gather(0, i)) ** 2
        column = torch.exp(-0.5 * squared)
        # subtracted block by block, as the host factorisation does, so that both round alike
        for block in blocks[:full]:
            column -= block[:, i].squeeze(1) @ block
        if row:
            column -= blocks[full][:row, i].squeeze(1) @ blocks[full][:row]
        # a masked pivot divides by 1, not by its residual (which may be 0), and is zeroed
        column /= torch.sqrt(torch.where(active, pivot_residual, 1.0))
        column = torch.where(active, column, 0.0)
        blocks[full][row] = column
        residual -= column * column
        pivots[k] = i.squeeze(0)
        rank += active
        if on_host and row == PIVOT_BLOCK - 1 and not bool(active):
            break
    rows = torch.cat(blocks) if len(blocks) > 1 else blocks[0]
    return PivotedFactor(rows, pivots, rank)


def greedy_pivot(residual: torch.Tensor, columns: list[torch.Tensor]) -> torch.Tensor:
    """The row (a 1-element tensor) of the largest residual, and among equal largest residuals
    the row with the lexicographically smallest values (see :func:`._lowrank.greedy_pivots`)."""
    candidates = residual == residual.max()
    for values in columns:
        masked = torch.where(candidates, values, torch.inf)
        candidates &= masked == masked.min()
    return torch.argmax(candidates.to(torch.uint8)).reshape(1)
