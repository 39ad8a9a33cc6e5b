"""FairCOCCO as a constraint ``I_F <= bound``, by a Lagrangian with a learned multiplier."""

from __future__ import annotations

from typing import Unpack

import torch

from faircocco_plugins.plugins import (
    Interval,
    PenaltyKeywords,
    check_params,
    statistic_default,
    takes_options,
)

from ._encoding import SensitiveSchema
from ._faircocco import PENALTY_KEYWORDS, PENALTY_POSITIONAL_OPTIONS, FairCOCCOPenalty


class FairCOCCOConstraint(FairCOCCOPenalty):
    """Train ``min loss  s.t.  I_F <= bound`` by gradient descent–ascent on a Lagrangian.

    The constrained problem is relaxed to the Lagrangian ``loss + μ (I_F − bound)`` with a
    multiplier ``μ >= 0``. The model's parameters descend on it (the optimiser's step); the
    multiplier ascends by projected gradient ascent, once per training call:

    .. math::

       μ_{t+1} = \\min\\bigl(μ_{\\max},\\; \\max\\bigl(0,\\; μ_t + η\\,(I_F^{(t)} − b)\\bigr)\\bigr)

    with ``η = multiplier_lr``, ``b = bound`` and ``I_F^{(t)}`` the batch statistic (detached).
    While the batches violate the bound the multiplier grows, and the fairness term weighs more;
    once they satisfy it the multiplier shrinks back towards 0, so the model spends no accuracy
    beyond what the bound requires. The call returns ``μ_t (I_F − b)``, the Lagrangian term with
    the multiplier in force before the update; its gradient in the model is ``μ_t ∇I_F``.

    The multiplier is updated only in training mode (``module.train()``, the default); in
    evaluation mode (``module.eval()``) the call returns the same term and leaves ``μ`` alone.
    ``I_F`` depends on the batch size, so the bound is on the statistic at the training batch
    size: check it on validation batches of that size (``fit_fair`` records this as
    ``val_statistic``).

    Parameters
    ----------
    notion : {"dp", "eo", "cal", "eopp"}
        The fairness notion.
    bound : float
        The largest acceptable batch statistic ``b``.
    multiplier_lr : float
        Step size ``η`` of the ascent on the multiplier. The default suits the statistic's
        scale at the default ``eps`` (about 0.001 to 0.03 per batch).
    multiplier_init : float
        Initial multiplier ``μ_0``.
    multiplier_max : float, optional
        Cap ``μ_max`` on the multiplier (default: none).
    method, rank, eps, attribute_kernel, conditioning_eps, chance_adjusted, kernel, bandwidth
        As for :class:`FairCOCCOPenalty`.
    schema
        As for :class:`FairCOCCOPenalty`.

    Attributes
    ----------
    multiplier : float
        The current multiplier ``μ``.
    multiplier_history_ : list of float
        ``μ`` after each update.
    statistic_history_ : list of float
        The batch statistic seen at each update.

    Examples
    --------
    >>> import torch
    >>> from faircocco_torch import FairCOCCOConstraint
    >>> constraint = FairCOCCOConstraint(notion="dp", bound=0.01, multiplier_lr=2.0)
    >>> a = torch.rand(64, 1)
    >>> y_pred = (a[:, 0] + 0.1 * torch.randn(64)).requires_grad_()
    >>> term = constraint(y_pred, a)  # μ = 0 before the first update
    >>> term.backward()
    >>> constraint.multiplier_history_[-1] > 0
    True
    """

    @takes_options("penalty", positional=PENALTY_POSITIONAL_OPTIONS, order=PENALTY_KEYWORDS)
    def __init__(
        self,
        notion: str = statistic_default("notion", "penalty"),
        bound: float = 0.001,
        multiplier_lr: float = 100.0,
        multiplier_init: float = 0.0,
        multiplier_max: float | None = None,
        *,
        chance_adjusted: bool | None = None,
        schema: SensitiveSchema | None = None,
        **options: Unpack[PenaltyKeywords],
    ) -> None:
        super().__init__(notion, 1.0, chance_adjusted=chance_adjusted, schema=schema, **options)
        check_params(
            {
                "bound": bound,
                "multiplier_lr": multiplier_lr,
                "multiplier_init": multiplier_init,
            },
            dict.fromkeys(("bound", "multiplier_lr", "multiplier_init"), Interval("real", 0)),
        )
        if multiplier_max is not None:
            check_params(
                {"multiplier_max": multiplier_max},
                {"multiplier_max": Interval("real", multiplier_init)},
            )
        self.bound = float(bound)
        self.multiplier_lr = float(multiplier_lr)
        self.multiplier_init = float(multiplier_init)
        self.multiplier_max = None if multiplier_max is None else float(multiplier_max)
        self.multiplier = float(multiplier_init)
        self.multiplier_history_: list[float] = []
        self.statistic_history_: list[float] = []

    def _term(self, statistic: torch.Tensor) -> torch.Tensor:
        """The Lagrangian term ``μ (I_F − bound)``, with ``μ`` as it stands."""
        return self.multiplier * (statistic - self.bound)

    def _observe(self, statistic: torch.Tensor) -> None:
        self.update_multiplier(float(statistic))

    def update_multiplier(self, statistic: float) -> float:
        """One projected ascent step on the multiplier, from an observed statistic.

        Parameters
        ----------
        statistic : float
            The batch statistic ``I_F``.

        Returns
        -------
        float
            The new multiplier.
        """
        updated = max(0.0, self.multiplier + self.multiplier_lr * (statistic - self.bound))
        if self.multiplier_max is not None:
            updated = min(updated, self.multiplier_max)
        self.multiplier = updated
        self.multiplier_history_.append(updated)
        self.statistic_history_.append(statistic)
        return updated

    def reset(self) -> FairCOCCOConstraint:
        """Set the multiplier back to ``multiplier_init`` and clear the histories.

        Returns
        -------
        FairCOCCOConstraint
            ``self``.
        """
        self.multiplier = self.multiplier_init
        self.multiplier_history_ = []
        self.statistic_history_ = []
        return self

    def extra_repr(self) -> str:
        return (
            f"notion={self.notion!r}, bound={self.bound}, multiplier_lr={self.multiplier_lr}, "
            f"multiplier={self.multiplier:.4g}"
        )
