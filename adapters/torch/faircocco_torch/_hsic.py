"""The Hilbert–Schmidt independence criterion as a penalty."""

from __future__ import annotations

from typing import ClassVar

import torch

from faircocco_plugins.plugins import median_distance

from ._base import Batch, FairnessPenalty, outcome_strata
from ._capabilities import PenaltyCapabilities


class HSICPenalty(FairnessPenalty):
    """The biased HSIC between predictions and sensitive attributes, with median bandwidths.

    ``HSIC = Tr[K H L H] / (n − 1)²`` with ``H`` the centring matrix, ``K`` a Gaussian kernel on
    the predictions and ``L`` the product of Gaussian kernels on the attribute columns. Every
    bandwidth is the median pairwise distance of the batch (of the non-zero distances when that
    median is 0, as for most binary columns; 1 for a constant column), computed on detached
    values, so no gradient flows through it. All attributes are measured jointly.

    For EO the criterion is computed within each level of the (discrete) outcome and averaged
    with weights ``n_y / n``, which measures dependence given the outcome; continuous outcomes
    are not supported.

    Parameters
    ----------
    notion : {"dp", "eo"}
        Demographic parity or equalised odds (discrete outcomes).
    lam : float
        Weight of the penalty.
    schema : SensitiveSchema, optional
        Accepted for a uniform interface; HSIC sees the encoded columns directly.

    Examples
    --------
    >>> import torch
    >>> from faircocco_torch import HSICPenalty
    >>> a = torch.rand(100, 1)
    >>> y_pred = a[:, 0] + 0.1 * torch.rand(100)
    >>> HSICPenalty(notion="dp")(y_pred, a) > 0
    tensor(True)
    """

    capabilities: ClassVar[PenaltyCapabilities] = PenaltyCapabilities(
        notions=("dp", "eo"),
        attributes=("binary", "categorical", "continuous"),
        outcomes=("binary", "categorical"),
        multiple_attributes="joint",
        multi_output=True,
    )

    def _statistic(self, batch: Batch) -> torch.Tensor:
        """The biased HSIC estimate (weighted over outcome levels for EO)."""
        dtype = batch.compute_dtype
        pred = batch.pred.to(dtype)
        attributes = batch.sensitive.to(dtype)
        if batch.truth is None:
            return biased_hsic(pred, attributes)
        total = pred.new_zeros(())
        for rows in outcome_strata(batch.truth):
            if rows.numel() >= 2:
                total = total + (rows.numel() / batch.n) * biased_hsic(pred[rows], attributes[rows])
        return total


def median_bandwidth(column: torch.Tensor) -> float:
    """Median pairwise distance (non-zero ones when the median is 0; 1 for a constant column),
    the score's median heuristic, on detached host values."""
    return median_distance(column.detach().reshape(-1, 1).cpu().to(torch.float64).numpy())


def product_gaussian(x: torch.Tensor) -> torch.Tensor:
    """Product over the columns of ``x`` of Gaussian kernels with median bandwidths."""
    widths = torch.tensor(
        [median_bandwidth(x[:, j]) for j in range(x.shape[1])], dtype=x.dtype, device=x.device
    )
    z = x / widths
    # squared differences directly: the gradient of a distance is undefined at 0
    squared = ((z[:, None, :] - z[None, :, :]) ** 2).sum(dim=2)
    return torch.exp(-0.5 * squared)


def biased_hsic(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """``Tr[K H L H] / (n − 1)²``."""
    n = int(x.shape[0])
    k = product_gaussian(x)
    l_matrix = product_gaussian(a)
    k_centred = k - k.mean(dim=0, keepdim=True) - k.mean(dim=1, keepdim=True) + k.mean()
    return (k_centred * l_matrix).sum() / float((n - 1) ** 2)
