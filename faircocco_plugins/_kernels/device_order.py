"""The canonical row order of :mod:`._inputs.row_order`, sorted on the tensors' device.

Stable sorts from the last column to the first order the rows lexicographically by value, as
:func:`._inputs.row_order.canonical_order` does on the host. Rows equal in every column are
interchangeable, so the sorted data are the same arrays on both routes.
"""

from __future__ import annotations

import torch


def canonical_order(columns: list[torch.Tensor]) -> torch.Tensor:
    """The permutation that sorts rows by ``columns[0]``, then ``columns[1]``, ... (no host
    round trip: every sort stays on the device)."""
    order = torch.argsort(columns[-1].detach(), stable=True)
    for column in reversed(columns[:-1]):
        order = order[torch.argsort(column.detach()[order], stable=True)]
    return order
