"""FACL (Mary, Calauzènes and El Karoui, 2019): χ² of a Gaussian-KDE joint density on a grid."""

from __future__ import annotations

import math
from typing import ClassVar

import torch

from ._base import Batch, FairnessPenalty
from ._capabilities import PenaltyCapabilities
from ._encoding import SensitiveSchema

#: The grid spans [-GRID_HALF_WIDTH, GRID_HALF_WIDTH] on each standardised axis.
GRID_HALF_WIDTH = 2.5
#: At most this many grid points per axis.
MAX_BINS = 50
#: Added to the variance before standardising, so a constant batch stays finite.
VARIANCE_FLOOR = 1e-8


class FACLPenalty(FairnessPenalty):
    """FACL: the χ² divergence of a kernel density estimate, as a penalty.

    The estimator of Mary, Calauzènes and El Karoui (ICML 2019), an upper bound on the squared
    Hirschfeld–Gebelein–Rényi maximal correlation. On each batch:

    1. standardise each variable, ``v ← (v − mean) / sqrt(var + 1e-8)`` (unbiased variance);
    2. estimate the joint density of ``d`` variables (``d = 2``: prediction and attribute for
       DP; ``d = 3`` with the outcome for EO) by a Gaussian KDE with bandwidth
       ``h = (n (d + 2) / 4)^(−1 / (d + 4))``, the same on every axis:
       ``pdf(g) = mean_i exp(−‖g − x_i‖² / (2h²)) / (√(2π) h)``;
    3. evaluate it on a grid of ``nbins = int(min(50, 5 / h))`` equally spaced points per axis
       on ``[−2.5, 2.5]``, add ``damping`` and normalise to a table ``P`` summing to 1;
    4. DP: ``χ² = Σ_ij P_ij² / (P_i· P_·j) − 1``. EO: for each outcome slice ``k``,
       ``χ²_k = Σ_ij P_ijk² / (P_i·k P_·jk) − 1`` (the χ² of ``p(ŷ, a | y_k)`` against
       ``p(ŷ | y_k) p(a | y_k)``), and the penalty is the unweighted mean over the slices.

    The estimator takes one scalar attribute. Several attributes get one term each, added up,
    as the paper does for its multi-attribute comparison; a categorical attribute gets one term
    per level indicator. The KDE smooths binary attributes and outcomes, so they are supported.
    The Gaussian factorises over the axes, so the grid densities are computed as products of
    per-axis kernel matrices, in ``O(n · nbins^d)`` time.

    Parameters
    ----------
    notion : {"dp", "eo"}
        Demographic parity or equalised odds.
    lam : float
        Weight of the penalty.
    damping : float
        Added to the grid densities before normalising; it keeps empty slices finite (the
        original's ``chi_2_cond`` uses 0, which can give 0/0 in float32).
    schema : SensitiveSchema, optional
        Layout of the encoded sensitive tensor, to group one-hot columns by attribute.

    Examples
    --------
    >>> import torch
    >>> from faircocco_torch import FACLPenalty
    >>> p = torch.rand(128, requires_grad=True)
    >>> a = torch.randint(0, 2, (128, 1)).float()
    >>> y = torch.randint(0, 2, (128,)).float()
    >>> FACLPenalty(notion="eo")(p, a, y).backward()
    >>> p.grad.shape
    torch.Size([128])
    """

    capabilities: ClassVar[PenaltyCapabilities] = PenaltyCapabilities(
        notions=("dp", "eo"),
        attributes=("binary", "categorical", "continuous"),
        outcomes=("binary", "continuous"),
        multiple_attributes="sum",
        multi_output=False,
        note="one term per attribute (per level indicator for categorical attributes)",
    )

    def __init__(
        self,
        notion: str = "eo",
        lam: float = 1.0,
        *,
        damping: float = 1e-10,
        schema: SensitiveSchema | None = None,
    ) -> None:
        super().__init__(notion=notion, lam=lam, schema=schema)
        if not damping >= 0:
            raise ValueError(f"damping={damping!r} is not valid; expected a number >= 0.")
        self.damping = float(damping)

    def _statistic(self, batch: Batch) -> torch.Tensor:
        """The sum over attributes of the FACL χ² (mean over outcome slices for EO)."""
        dtype = batch.compute_dtype
        pred = batch.pred[:, 0].to(dtype)
        target = None
        if batch.truth is not None:
            target = batch.truth.reshape(-1).to(dtype)
        total = pred.new_zeros(())
        for _, columns in batch.attributes:
            for j in range(columns.shape[1]):
                total = total + facl_chi2(pred, columns[:, j].to(dtype), target, self.damping)
        return total


def facl_chi2(
    x: torch.Tensor, a: torch.Tensor, z: torch.Tensor | None, damping: float
) -> torch.Tensor:
    """FACL's χ² of ``(x, a)`` (DP, ``z=None``) or its mean over the slices of ``z`` (EO)."""
    variables = [x, a] if z is None else [x, a, z]
    n, d = int(x.shape[0]), len(variables)
    h = (n * (d + 2) / 4.0) ** (-1.0 / (d + 4))
    nbins = int(min(MAX_BINS, 5.0 / h))
    grid = torch.linspace(-GRID_HALF_WIDTH, GRID_HALF_WIDTH, nbins, dtype=x.dtype, device=x.device)
    weights = [_axis_kernel(_standardise(v), grid, h) for v in variables]
    norm = 1.0 / (n * math.sqrt(2.0 * math.pi) * h)
    if z is None:
        density = norm * (weights[0] @ weights[1].T) + damping
        table = density / density.sum()
        marginal_x = table.sum(dim=1, keepdim=True)
        marginal_a = table.sum(dim=0, keepdim=True)
        return (table * table / (marginal_x * marginal_a)).sum() - 1.0
    density = norm * torch.einsum("in,jn,kn->ijk", *weights) + damping
    table = density / density.sum()
    x_given = table.sum(dim=1, keepdim=True)  # P_{i·k}
    a_given = table.sum(dim=0, keepdim=True)  # P_{·jk}
    per_slice = (table * table / (x_given * a_given)).sum(dim=(0, 1)) - 1.0
    return per_slice.mean()


def _standardise(v: torch.Tensor) -> torch.Tensor:
    return (v - v.mean()) / torch.sqrt(v.var() + VARIANCE_FLOOR)


def _axis_kernel(v: torch.Tensor, grid: torch.Tensor, h: float) -> torch.Tensor:
    """``exp(−(g − v_i)² / (2h²))`` for every grid point ``g`` and row ``i``: ``(nbins, n)``."""
    return torch.exp(-((grid[:, None] - v[None, :]) ** 2) / (2.0 * h * h))
