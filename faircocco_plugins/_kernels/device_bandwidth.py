"""Median-heuristic bandwidths on the tensors' device.

:func:`._kernels.kernel.median_distance` takes the exact median of the pairwise distances of a row
sample (of the non-zero ones when it is 0, and 1 when every distance is 0) by several host
shortcuts; here the distances of the sample (at most
:data:`._kernels.kernel.BANDWIDTH_SAMPLE` rows, so at most half a million) are sorted on the device
and the same order statistics read from them, without a host round trip.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import torch

from .kernel import bandwidth_rows, column_centres, column_spreads, in_binary_units


def median_distance(sample: torch.Tensor, norm: int = 2) -> torch.Tensor:
    """Median pairwise ℓp distance (``p = norm``, Euclidean by default) of the rows of
    ``sample``, a 0-d device tensor (in binary units, as on the host)."""
    median = in_binary_units(lambda scaled: _median_distance(scaled, norm), sample.detach())
    return torch.where(median > 0, median, torch.ones_like(median))


def _median_distance(sample: torch.Tensor, norm: int) -> torch.Tensor:
    """:func:`median_distance`, but 0 for a constant sample."""
    distances = torch.sort(torch.nn.functional.pdist(sample, p=norm)).values
    total = distances.shape[0]
    median = _middle(distances, torch.zeros((), dtype=torch.int64, device=sample.device), total)
    zeros = torch.count_nonzero(distances == 0)
    # the non-zero distances are the sorted tail, after the zeros
    nonzero = _middle(distances, zeros, total)
    return torch.where(median > 0, median, torch.where(zeros < total, nonzero, 0.0))


def _middle(ordered: torch.Tensor, start: torch.Tensor, total: int) -> torch.Tensor:
    """The median of ``ordered[start:]`` (the mean of its two middle entries), ``start`` a
    device count; clamped into range when the tail is empty (the caller then discards it)."""
    count = total - start
    low = (start + (count - 1) // 2).clamp(0, total - 1)
    high = (start + count // 2).clamp(0, total - 1)
    return (ordered[low] + ordered[high]) / 2


def scaled(
    values: torch.Tensor,
    *,
    shared: bool,
    standardised: bool,
    bandwidth: str | float,
    random_state: int | None,
    norm: int,
) -> torch.Tensor:
    """``(values − centres) / widths`` as :meth:`._kernels.kernel.Scaling.fit` and ``apply`` give on
    the rows of ``values`` (in their canonical order): centres and median ℓp distances (``p``
    the kernel's ``norm``) of the seeded row sample, one width for all columns when ``shared``,
    and that width times each column's spread when ``standardised``."""
    p = values.shape[1]
    sample = sample_rows(values, random_state)
    centres = column_centres(sample)
    if bandwidth != "median":
        widths = torch.full((p,), float(bandwidth), dtype=values.dtype, device=values.device)
    elif standardised:
        spreads = column_spreads(sample, p)
        widths = spreads * median_distance(sample / spreads, norm)
    elif shared:
        widths = median_distance(sample, norm).expand(p)
    else:
        widths = torch.stack([median_distance(sample[:, j : j + 1], norm) for j in range(p)])
    # a width beyond float64 makes its column NaN, which the route refuses as the host does
    widths = torch.where(torch.isfinite(widths), widths, torch.nan)
    return (values - centres) / widths


def sample_rows(values: torch.Tensor, random_state: int | None) -> torch.Tensor:
    """The detached rows of ``values`` the median heuristic sees
    (:func:`._kernels.kernel.bandwidth_rows`)."""
    rows = _sample_rows(int(values.shape[0]), random_state, str(values.device))
    return values.detach() if rows is None else values.detach()[rows]


@cache
def _sample_rows(n: int, random_state: int | None, device: str) -> torch.Tensor | None:
    """The rows of :func:`._kernels.kernel.bandwidth_rows` on ``device`` (None: all rows), copied
    there once per size and seed."""
    rows = bandwidth_rows(n, random_state)
    if rows.size == n:
        return None
    return torch.from_numpy(np.ascontiguousarray(rows)).to(device)
