"""Donini et al.'s linear-loss fairness term, as a penalty."""

from __future__ import annotations

from typing import ClassVar

import torch

from ._base import Batch, FairnessPenalty, outcome_strata
from ._capabilities import PenaltyCapabilities


class LinearLossPenalty(FairnessPenalty):
    """The difference of group-conditional mean linear losses (Donini et al., NeurIPS 2018).

    Donini et al. ask the linear loss ``ℓ(f, y) = (1 − ỹ f) / 2`` (``ỹ ∈ {−1, +1}``) to have the
    same mean over positive examples in both groups, a convex relaxation of equal opportunity.
    Within one outcome level the loss differences between groups are ``½`` times the
    differences of the mean scores, so for an attribute with groups ``g`` the term is

    ``½ Σ_g |mean(f | g, y) − mean(f | y)|``

    which for two groups is ``½ |mean(f | a=1, y) − mean(f | a=0, y)|``, Donini's gap exactly.
    ``notion="eo"`` adds these terms over the levels of a discrete outcome (equalised odds;
    Donini's equal opportunity is the positive level alone); ``notion="dp"`` uses all rows as one
    level. Attributes are added up. Only discrete attributes have groups: binarise continuous
    attributes first (a continuous attribute raises a ValueError).

    Parameters
    ----------
    notion : {"dp", "eo"}
        Demographic parity or equalised odds.
    lam, schema
        As for :class:`FairnessPenalty`.

    Examples
    --------
    >>> import torch
    >>> from faircocco_torch import LinearLossPenalty
    >>> a = torch.tensor([0.0, 0.0, 1.0, 1.0])
    >>> f = torch.tensor([0.2, 0.4, 0.6, 0.8])
    >>> LinearLossPenalty(notion="dp")(f, a)
    tensor(0.2000)

    :meth:`evaluate` gives the training term (``lam`` times the statistic) and the statistic:

    >>> LinearLossPenalty(notion="dp", lam=2.0).evaluate(f, a)
    (tensor(0.4000), tensor(0.2000))
    """

    capabilities: ClassVar[PenaltyCapabilities] = PenaltyCapabilities(
        notions=("dp", "eo"),
        attributes=("binary", "categorical"),
        outcomes=("binary", "categorical"),
        multiple_attributes="sum",
        multi_output=False,
    )

    def _statistic(self, batch: Batch) -> torch.Tensor:
        """The sum over attributes (and outcome levels for EO) of the linear-loss gaps."""
        scores = batch.pred[:, 0]
        strata = (
            [torch.arange(batch.n, device=scores.device)]
            if batch.truth is None
            else outcome_strata(batch.truth)
        )
        total = scores.new_zeros(())
        for kind, columns in batch.attributes:
            groups = _group_indicators(kind, columns.to(scores.dtype))
            for rows in strata:
                total = total + _gap(scores[rows], groups[rows])
        return total


def _group_indicators(kind: str, columns: torch.Tensor) -> torch.Tensor:
    """``n × G`` 0/1 membership of each group of a discrete attribute."""
    if kind == "categorical":
        return columns
    column = columns[:, 0]
    upper = (column == column.max()).to(columns.dtype)
    return torch.stack([1.0 - upper, upper], dim=1)


def _gap(scores: torch.Tensor, groups: torch.Tensor) -> torch.Tensor:
    """``½ Σ_g |mean(f | g) − mean(f)|`` over the groups present."""
    counts = groups.sum(dim=0)
    present = counts > 0
    means = (groups * scores[:, None]).sum(dim=0)[present] / counts[present]
    return 0.5 * (means - scores.mean()).abs().sum()
