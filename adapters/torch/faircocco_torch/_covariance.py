"""Zafar et al.'s decision-boundary covariance, as a penalty."""

from __future__ import annotations

from typing import ClassVar

import torch

from ._base import Batch, FairnessPenalty
from ._capabilities import PenaltyCapabilities
from ._encoding import SensitiveSchema


class CovariancePenalty(FairnessPenalty):
    """The covariance between sensitive attributes and the signed distance to the decision boundary.

    Zafar et al. constrain ``|(1/n) Σ_i (z_i − z̄) d_i|`` (AISTATS 2017, demographic parity),
    where ``d_i`` is the signed distance to the decision boundary (the logit of a linear
    model), and the same covariance with ``g_i = min(0, ỹ_i d_i)``, ``ỹ ∈ {−1, +1}``, for
    misclassification parity (WWW 2017, "disparate mistreatment", all misclassifications); here
    that is ``notion="eo"``, which needs binary outcomes. As a penalty, the absolute
    covariances are added over attribute columns: one per numeric attribute (a linear
    dependence only) and one per level indicator of a categorical attribute, as Zafar et al.
    encode non-binary attributes.

    ``d = y_pred − threshold``: apply it to logits with ``threshold=0`` (the original's decision
    function), or to probabilities with ``threshold=0.5``. Numeric attributes enter in their
    units: standardise them (``SensitiveEncoder`` does) so that ``λ`` has a common scale.

    Parameters
    ----------
    notion : {"dp", "eo"}
        Demographic parity or misclassification parity.
    lam : float
        Weight of the penalty.
    threshold : float
        The decision threshold on ``y_pred``.
    squared : bool
        Penalise the squared covariances instead of their absolute values (smoother at 0).
    schema : SensitiveSchema, optional
        Layout of the encoded sensitive tensor.

    Examples
    --------
    >>> import torch
    >>> from faircocco_torch import CovariancePenalty
    >>> z = torch.randint(0, 2, (100, 1)).float()
    >>> logits = (2 * z[:, 0] - 1 + torch.randn(100)).requires_grad_()
    >>> CovariancePenalty(notion="dp")(logits, z) > 0
    tensor(True)
    """

    capabilities: ClassVar[PenaltyCapabilities] = PenaltyCapabilities(
        notions=("dp", "eo"),
        attributes=("binary", "categorical", "continuous"),
        outcomes=("binary",),
        multiple_attributes="sum",
        multi_output=False,
        note="linear dependence only; one term per column (per level indicator)",
    )

    def __init__(
        self,
        notion: str = "dp",
        lam: float = 1.0,
        *,
        threshold: float = 0.0,
        squared: bool = False,
        schema: SensitiveSchema | None = None,
    ) -> None:
        super().__init__(notion=notion, lam=lam, schema=schema)
        self.threshold = float(threshold)
        self.squared = bool(squared)

    def _statistic(self, batch: Batch) -> torch.Tensor:
        """The sum of absolute (or squared) covariances over attribute columns."""
        distance = batch.pred[:, 0] - self.threshold
        if batch.truth is not None:
            labels = batch.truth.reshape(-1)
            signed = torch.where(labels == labels.max(), 1.0, -1.0).to(distance.dtype)
            distance = torch.clamp(signed * distance, max=0.0)
        z = torch.cat([columns for _, columns in batch.attributes], dim=1).to(distance.dtype)
        covariance = ((z - z.mean(dim=0, keepdim=True)) * distance[:, None]).mean(dim=0)
        terms = covariance * covariance if self.squared else covariance.abs()
        return terms.sum()
