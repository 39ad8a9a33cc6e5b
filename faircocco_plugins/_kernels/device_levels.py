"""Level structure of numeric columns on the tensors' device: distinct counts, values, codes.

The host route decides which numeric columns are discrete (at most
:data:`._kernels.levels.MAX_LEVELS` distinct values) and codes them by the rank of their value
(:class:`._kernels.levels.LevelRegistry` registers sorted uniques). Here each column is sorted on
the device and its distinct values are ranked there; the counts and the first values come back to
the host with the route's other small results, in one copy, since the number of levels decides the
shapes of what the host does next.
"""

from __future__ import annotations

import torch

from .levels import MAX_LEVELS


def distinct_values(column: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The number of distinct values of ``column`` (0-d), its smallest ``MAX_LEVELS`` distinct
    values in increasing order (zero-padded, then one slot of no meaning), and each entry's
    rank among them (its level code when the column is discrete)."""
    ordered, order = torch.sort(column.detach())
    change = ordered[1:] != ordered[:-1]
    rank = torch.cat([change.new_zeros(1, dtype=torch.int64), torch.cumsum(change, 0)])
    values = ordered.new_zeros(MAX_LEVELS + 1)
    # every entry of one rank holds the same value, so which of them is written does not matter
    values.index_put_((rank.clamp(max=MAX_LEVELS),), ordered)
    codes = torch.empty_like(rank).index_put_((order,), rank)
    return rank[-1] + 1, values, codes


def combination_keys(codes: list[torch.Tensor], radices: list[torch.Tensor]) -> torch.Tensor:
    """Mixed-radix keys of the rows' level codes, the first column most significant (the
    order of :meth:`._kernels.levels.LevelRegistry.encode_rows`, whose codes follow sorted keys).
    The radices are device values: a column of radix 1 and code 0 leaves the keys as they
    are."""
    key = torch.zeros_like(codes[0])
    for column, size in zip(codes, radices, strict=True):
        key = key * size + column
    return key


def distinct_count(keys: torch.Tensor) -> torch.Tensor:
    """The number of distinct ``keys`` (0-d), by a sort on the device."""
    ordered = torch.sort(keys).values
    return 1 + torch.count_nonzero(ordered[1:] != ordered[:-1])
