"""Level structure of numeric columns on the tensors' device: distinct counts, values, codes.

The host route decides which numeric columns are discrete (at most
:data:`._levels.MAX_LEVELS` distinct values) and codes them by the rank of their value
(:class:`._levels.LevelRegistry` registers sorted uniques). Here each column is sorted on the
device and its distinct values are ranked there; the counts and the first values come back to
the host in one copy, for all columns together, since the number of levels decides the shape of
everything after it.
"""

from __future__ import annotations

import torch

from ._levels import MAX_LEVELS


def distinct_values(column: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The number of distinct values of ``column`` (0-d) and its smallest ``MAX_LEVELS``
    distinct values in increasing order (zero-padded, then one slot of no meaning)."""
    ordered = torch.sort(column.detach()).values
    change = ordered[1:] != ordered[:-1]
    rank = torch.cat([change.new_zeros(1, dtype=torch.int64), torch.cumsum(change, 0)])
    values = ordered.new_zeros(MAX_LEVELS + 1)
    # every entry of one rank holds the same value, so which of them is written does not matter
    values.index_put_((rank.clamp(max=MAX_LEVELS),), ordered)
    return rank[-1] + 1, values


def level_codes(column: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """The rank of each entry of ``column`` among its distinct ``values`` (sorted, complete)."""
    return torch.searchsorted(values, column.detach().contiguous())


def combination_keys(codes: list[torch.Tensor], radices: list[int]) -> torch.Tensor:
    """Mixed-radix keys of the rows' level codes, the first column most significant (the
    order of :meth:`._levels.LevelRegistry.encode_rows`, whose codes follow sorted keys)."""
    key = torch.zeros_like(codes[0]) if codes else None
    assert key is not None
    for column, size in zip(codes, radices, strict=True):
        key = key * size + column
    return key
