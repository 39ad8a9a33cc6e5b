"""What a penalty supports, and the kinds of attributes and outcomes found in a batch."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from faircocco_plugins.plugins import KINDS, TASKS, Capabilities

__all__ = ["KINDS", "PenaltyCapabilities", "column_kind", "outcome_kind"]


@dataclass(frozen=True, kw_only=True)
class PenaltyCapabilities(Capabilities):
    """What a penalty supports, and the shape of the predictions it accepts.

    The plugin contract's :class:`faircocco_plugins.plugins.Capabilities`, with
    ``multi_output`` added and ``tasks`` (both) and ``needs_gradients`` (true) given defaults,
    so the harness reads a penalty's capabilities directly.

    Parameters
    ----------
    notions : tuple of str
        Fairness notions, among :data:`faircocco_plugins.plugins.NOTIONS`.
    attributes : tuple of str
        Kinds of sensitive attribute, among ``"binary"``, ``"categorical"`` and ``"continuous"``.
    outcomes : tuple of str
        Kinds of true outcome ``y_true`` accepted by the conditional notions (``"eo"``,
        ``"cal"``), among the same three kinds.
    multiple_attributes : {"joint", "sum"}
        ``"joint"``: several attributes are measured jointly, so dependence on their combination
        counts; ``"sum"``: one term per attribute, added up.
    multi_output : bool
        Whether predictions may have several columns (for example class probabilities).
    needs_gradients : bool
        Whether the penalty is a differentiable training term, so the model must be trained by
        gradients.
    note : str
        How unsupported kinds are adapted, when they are.
    tasks : tuple of str
        Learning tasks; a penalty serves both by default.

    Examples
    --------
    >>> from faircocco_torch import FACLPenalty
    >>> FACLPenalty.capabilities.notions
    ('dp', 'eo')
    >>> FACLPenalty.capabilities.supports(notion="cal")
    False
    """

    multi_output: bool
    needs_gradients: bool = True
    tasks: tuple[str, ...] = TASKS

    @property
    def restricts_attributes(self) -> bool:
        """Whether some attribute kind is unsupported (only then must a batch's kinds be found,
        which costs a sort per column)."""
        return set(self.attributes) != set(KINDS)

    @property
    def restricts_outcomes(self) -> bool:
        """Whether some outcome kind is unsupported."""
        return set(self.outcomes) != set(KINDS)

    def supports(
        self,
        *,
        notion: str | None = None,
        attributes: tuple[str, ...] = (),
        outcome: str | None = None,
        outputs: int = 1,
    ) -> bool:
        """Whether the combination is supported.

        Parameters
        ----------
        notion : str, optional
            The fairness notion.
        attributes : tuple of str
            The kind of each sensitive attribute.
        outcome : str, optional
            The kind of the true outcome (ignored for ``notion="dp"``).
        outputs : int
            Number of prediction columns.

        Returns
        -------
        bool

        Examples
        --------
        >>> from faircocco_torch import FARMIPenalty
        >>> FARMIPenalty.capabilities.supports(notion="eo", attributes=("binary",))
        True
        """
        return not self._problems(notion, attributes, outcome, outputs)

    def check(
        self,
        owner: str,
        *,
        notion: str | None = None,
        attributes: tuple[str, ...] = (),
        outcome: str | None = None,
        outputs: int = 1,
    ) -> None:
        """Raise a ValueError naming ``owner`` and what it supports, when unsupported.

        Parameters
        ----------
        owner : str
            The name used in the message, such as the penalty's class name.
        notion, attributes, outcome, outputs
            As for :meth:`supports`.

        Raises
        ------
        ValueError
            When the combination is not supported.

        Examples
        --------
        >>> from faircocco_torch import CovariancePenalty
        >>> CovariancePenalty.capabilities.check("CovariancePenalty", notion="dp")
        """
        problems = self._problems(notion, attributes, outcome, outputs)
        if problems:
            raise ValueError(f"{owner} does not support {'; '.join(problems)}.")

    def _problems(
        self, notion: str | None, attributes: tuple[str, ...], outcome: str | None, outputs: int
    ) -> list[str]:
        problems = self.problems(notion=notion, attributes=attributes, outcome=outcome)
        if outputs > 1 and not self.multi_output:
            problems.append(
                f"predictions with {outputs} columns (it needs one column: pass the probability "
                "of the positive class, a logit or a regression output)"
            )
        return problems


def column_kind(column: torch.Tensor) -> str:
    """``"binary"`` when a column takes at most two distinct values, else ``"continuous"``."""
    return "binary" if torch.unique(column.detach()).numel() <= 2 else "continuous"


def outcome_kind(y_true: torch.Tensor) -> str:
    """The kind of a true-outcome tensor.

    Integer and bool tensors hold class labels (``"binary"`` or ``"categorical"``); floating
    tensors with one column are ``"binary"`` when they take at most two values, else
    ``"continuous"``; floating tensors with several columns are ``"continuous"``.
    """
    distinct = torch.unique(y_true.detach()).numel()
    if y_true.dtype == torch.bool or not y_true.is_floating_point():
        return "binary" if distinct <= 2 else "categorical"
    if y_true.ndim > 1 and y_true.shape[1] > 1:
        return "continuous"
    return "binary" if distinct <= 2 else "continuous"
