"""FARMI (Steinberg et al., 2020): a mutual-information bound from a least-squares classifier."""

from __future__ import annotations

from typing import ClassVar

import torch
from torch import nn

from faircocco_plugins.plugins import notion_named

from ._base import Batch, FairnessPenalty, onehot_outcome
from ._capabilities import PenaltyCapabilities
from ._encoding import SensitiveSchema

#: Sharpness of the softplus link ``q = log(1 + exp(30 f)) / 30``.
SOFTPLUS_BETA = 30.0
#: Floor on the link's output, so that ``log q`` stays finite.
PROBABILITY_FLOOR = 1e-30


class FARMIPenalty(FairnessPenalty):
    """FARMI: the least-squares probabilistic classifier (LSPC) bound on mutual information.

    For any classifier ``q``, ``I(Ŷ; A) >= H(A) + E[log q(A | Ŷ)]``. FARMI fits ``q`` in closed
    form inside the loss, on every batch, and penalises its log-likelihood, so that the
    predictions stop predicting the attribute:

    * features ``Φ = [1, ŷ]`` (DP) or ``Φ = [1, ŷ, y]`` (EO; ``H(A | Y)`` does not depend on the
      model and is dropped);
    * ridge fit ``V = (ΦᵀΦ + λ_v I)⁻¹ Φᵀ A`` on the one-hot attribute ``A`` (``n × K``), solved
      with ``torch.linalg.solve`` so that gradients flow through ``V``;
    * ``f = Φ V``, ``q = log(1 + exp(30 f)) / 30`` (floored at 1e-30), and
      ``log p̂(a = k | φ) = log q_k − log Σ_k' q_k'``;
    * penalty ``= mean_i Σ_k A_ik log p̂(a = k | φ_i)``.

    For CAL (sufficiency) the penalty is ``mean log p̂(a | [1, ŷ, y]) − mean log p̂(a | [1, ŷ])``.
    The value is a mean log-likelihood, so it is at most 0 for DP and EO; lower is fairer, and
    only its gradient matters for training. Several attributes get one term each, added up.

    **Categorical attributes only.** The bound needs a discrete ``A``: binary attributes are
    two classes and categorical ones their levels (one-hot blocks from a
    :class:`SensitiveSchema`). Continuous attributes are **binarised at the batch median**
    (``a > median``), as the paper does for FARMI on continuous attributes; pass
    ``continuous="error"`` to refuse them instead. Class-label outcomes enter ``Φ`` one-hot.

    Parameters
    ----------
    notion : {"dp", "eo", "cal"}
        Independence, separation or sufficiency.
    lam : float
        Weight of the penalty (``λ_f``).
    lspc_lambda : float
        Ridge ``λ_v`` of the classifier (the original's default, 1).
    continuous : {"binarize", "error"}
        What to do with a continuous attribute.
    schema : SensitiveSchema, optional
        Layout of the encoded sensitive tensor, to keep one-hot columns together.

    Examples
    --------
    >>> import torch
    >>> from faircocco_torch import FARMIPenalty
    >>> p = torch.rand(128, requires_grad=True)
    >>> sex = torch.randint(0, 2, (128, 1)).float()
    >>> FARMIPenalty(notion="dp")(p, sex) <= 0
    tensor(True)
    """

    capabilities: ClassVar[PenaltyCapabilities] = PenaltyCapabilities(
        notions=("dp", "eo", "cal"),
        attributes=("binary", "categorical", "continuous"),
        outcomes=("binary", "categorical", "continuous"),
        multiple_attributes="sum",
        multi_output=True,
        note="continuous attributes are binarised at the batch median",
    )

    def __init__(
        self,
        notion: str = "eo",
        lam: float = 1.0,
        *,
        lspc_lambda: float = 1.0,
        continuous: str = "binarize",
        schema: SensitiveSchema | None = None,
    ) -> None:
        super().__init__(notion=notion, lam=lam, schema=schema)
        if not lspc_lambda > 0:
            raise ValueError(f"lspc_lambda={lspc_lambda!r} is not valid; expected a number > 0.")
        if continuous not in ("binarize", "error"):
            raise ValueError(
                f"continuous={continuous!r} is not valid; expected 'binarize' or 'error'."
            )
        self.lspc_lambda = float(lspc_lambda)
        self.continuous = continuous

    def _statistic(self, batch: Batch) -> torch.Tensor:
        """The sum over attributes of the LSPC mean log-likelihood."""
        dtype = batch.compute_dtype
        pred = batch.pred.to(dtype)
        ones = pred.new_ones((batch.n, 1))
        phi_pred = torch.cat([ones, pred], dim=1)
        phi_joint = phi_pred
        if batch.truth is not None:
            phi_joint = torch.cat([phi_pred, onehot_outcome(batch.truth, dtype)], dim=1)
        total = pred.new_zeros(())
        for kind, columns in batch.attributes:
            if kind == "continuous" and self.continuous == "error":
                raise ValueError(
                    "FARMIPenalty got a continuous sensitive attribute and continuous='error'; "
                    "binarise it, or use continuous='binarize'."
                )
            onehot = attribute_onehot(kind, columns.to(dtype))
            if notion_named(self.notion).given == "pred":  # sufficiency: Y ⊥ A | Ŷ
                total = total + lspc_log_likelihood(phi_joint, onehot, self.lspc_lambda)
                total = total - lspc_log_likelihood(phi_pred, onehot, self.lspc_lambda)
            else:
                total = total + lspc_log_likelihood(phi_joint, onehot, self.lspc_lambda)
        return total


def attribute_onehot(kind: str, columns: torch.Tensor) -> torch.Tensor:
    """The ``n × K`` one-hot classes of an attribute (continuous: above/below the median)."""
    if kind == "categorical":
        return columns
    column = columns[:, 0].detach()
    if kind == "continuous":
        classes = (column > column.median()).long()
    else:
        classes = (column == column.max()).long()
    return nn.functional.one_hot(classes, num_classes=2).to(columns.dtype)


def lspc_log_likelihood(phi: torch.Tensor, onehot: torch.Tensor, ridge: float) -> torch.Tensor:
    """``mean_i Σ_k A_ik log p̂(a = k | φ_i)`` under the closed-form LSPC fitted on the batch."""
    gram = phi.T @ phi + ridge * torch.eye(phi.shape[1], dtype=phi.dtype, device=phi.device)
    weights = torch.linalg.solve(gram, phi.T @ onehot)
    scores = phi @ weights
    q = nn.functional.softplus(scores, beta=SOFTPLUS_BETA).clamp_min(PROBABILITY_FLOOR)
    log_p = torch.log(q) - torch.log(q.sum(dim=1, keepdim=True))
    return (onehot * log_p).sum(dim=1).mean()
