"""The shared contract of every penalty: ``penalty(y_pred, sensitive, y_true=None)``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import torch
from torch import nn

from faircocco_plugins.plugins import Interval, as_array, check_params, notion_named

from ._capabilities import PenaltyCapabilities, column_kind, outcome_kind
from ._encoding import SensitiveSchema


@dataclass
class Batch:
    """The validated inputs of one penalty call.

    ``pred`` is ``(n, k)`` floating; ``sensitive`` ``(n, d)`` (floating, or bool as given);
    ``truth`` the true outcomes as given (``None`` for DP); ``schema`` the attributes' layout,
    if one was set.
    """

    pred: torch.Tensor
    sensitive: torch.Tensor
    truth: torch.Tensor | None
    schema: SensitiveSchema | None

    @property
    def n(self) -> int:
        return int(self.pred.shape[0])

    @property
    def compute_dtype(self) -> torch.dtype:
        """The predictions' dtype, at least float32: what a penalty computes in."""
        return torch.promote_types(self.pred.dtype, torch.float32)

    @cached_property
    def attributes(self) -> tuple[tuple[str, torch.Tensor], ...]:
        """One ``(kind, columns)`` pair per sensitive attribute, with ``columns`` an ``(n, w)``
        floating block (split on first use: penalties that take the whole block skip it)."""
        dtype = self.pred.dtype
        values = self.sensitive.to(dtype) if self.sensitive.dtype != dtype else self.sensitive
        if self.schema is None:
            return tuple(
                (column_kind(values[:, j]), values[:, j : j + 1]) for j in range(values.shape[1])
            )
        return tuple((spec.kind, values[:, list(spec.columns)]) for spec in self.schema.attributes)


class FairnessPenalty(nn.Module):
    """Base class of the penalties: ``forward`` returns ``lam`` times the batch statistic.

    Subclasses set :attr:`capabilities` and implement ``_statistic(batch)``, the statistic of a
    validated :class:`Batch`; :meth:`statistic` validates the inputs and returns it in the
    predictions' dtype. Every penalty has the
    call signature ``penalty(y_pred, sensitive, y_true=None)``, so one training loop, network
    and batch order serve every method.

    Parameters
    ----------
    notion : {"dp", "eo", "cal"}
        The fairness notion.
    lam : float
        Weight of the penalty, ``λ >= 0``.
    schema : SensitiveSchema, optional
        Layout of an encoded sensitive tensor (``SensitiveEncoder.schema_``). Without it every
        column is its own attribute, binary when it takes at most two values in the batch and
        continuous otherwise.

    Examples
    --------
    >>> import torch
    >>> from faircocco_torch import HSICPenalty
    >>> penalty = HSICPenalty(notion="dp", lam=2.0)
    >>> y_pred = torch.rand(64, requires_grad=True)
    >>> value = penalty(y_pred, torch.randint(0, 2, (64, 1)).float())
    >>> value.backward()
    """

    capabilities: ClassVar[PenaltyCapabilities]
    #: whether :meth:`statistic` itself rejects NaN and infinite attributes and outcomes, so
    #: that the shared validation skips that check (it runs on every training batch)
    rejects_non_finite: ClassVar[bool] = False
    #: whether :meth:`statistic` reads the attributes and outcomes on the host, so that they
    #: stay where the caller gives them (host arrays on the host) instead of moving to the
    #: predictions' device: on an accelerator, a move there and a read back would wait for it
    reads_attributes_on_host: ClassVar[bool] = False

    def __init__(
        self, notion: str = "eo", lam: float = 1.0, *, schema: SensitiveSchema | None = None
    ) -> None:
        super().__init__()
        notion_named(notion)  # a clear error for an unknown notion
        self.capabilities.check(type(self).__name__, notion=notion)
        check_params({"lam": lam}, {"lam": Interval("real", 0)})
        if schema is not None and not isinstance(schema, SensitiveSchema):
            raise TypeError(
                f"schema must be a SensitiveSchema (SensitiveEncoder.schema_); got "
                f"{type(schema).__name__}."
            )
        self.notion = notion
        self.lam = float(lam)
        self.schema = schema
        #: the statistic of the last call (detached), for logging
        self.last_statistic_: torch.Tensor | None = None

    def set_schema(self, schema: SensitiveSchema | None) -> FairnessPenalty:
        """Use ``schema`` to split the sensitive tensor into attributes; returns ``self``.

        Parameters
        ----------
        schema : SensitiveSchema or None
            The layout, usually ``SensitiveEncoder.schema_``.

        Returns
        -------
        FairnessPenalty
            ``self``.
        """
        if schema is not None and not isinstance(schema, SensitiveSchema):
            raise TypeError(f"schema must be a SensitiveSchema; got {type(schema).__name__}.")
        self.schema = schema
        return self

    def fit(self, sensitive: Any, y_true: Any = None) -> FairnessPenalty:
        """Fit what the penalty learns from the training data; returns ``self``.

        :func:`fit_fair` calls it with the whole training set before the first epoch. The
        baseline penalties learn nothing; :class:`FairCOCCOPenalty` fits the kernels of the
        sensitive attributes and outcomes here.

        Parameters
        ----------
        sensitive : torch.Tensor or numpy.ndarray of shape (n,) or (n, d)
            The training set's sensitive attributes, encoded as for :meth:`forward`.
        y_true : torch.Tensor, optional
            The training outcomes; required for every notion but ``"dp"``.

        Returns
        -------
        FairnessPenalty
            ``self``.
        """
        return self

    def forward(self, y_pred: torch.Tensor, sensitive: Any, y_true: Any = None) -> torch.Tensor:
        """The training term of :meth:`evaluate`, a 0-d tensor differentiable in ``y_pred``.

        Here ``lam`` times :meth:`statistic`; :class:`FairCOCCOConstraint` returns its
        Lagrangian term, then, in training mode, updates its multiplier.

        Parameters
        ----------
        y_pred : torch.Tensor of shape (n,) or (n, k)
            Predictions: probabilities, logits or regression outputs.
        sensitive : torch.Tensor or numpy.ndarray of shape (n,) or (n, d)
            Sensitive attributes as numbers (bool for nominal binary attributes), usually from
            :class:`SensitiveEncoder`.
        y_true : torch.Tensor, optional
            True outcomes; required for every notion but ``"dp"``.

        Returns
        -------
        torch.Tensor
            A 0-d tensor of ``y_pred``'s dtype.
        """
        term, statistic = self.evaluate(y_pred, sensitive, y_true)
        self.last_statistic_ = statistic.detach()
        if self.training:
            self._observe(self.last_statistic_)
        return term

    def evaluate(
        self, y_pred: torch.Tensor, sensitive: Any, y_true: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The training term and the unweighted statistic, with no side effect.

        Parameters
        ----------
        y_pred, sensitive, y_true
            As for :meth:`forward`.

        Returns
        -------
        term : torch.Tensor
            What :meth:`forward` returns (here ``lam * statistic``).
        statistic : torch.Tensor
            The unweighted batch statistic, as :meth:`statistic` returns it.
        """
        statistic = self.statistic(y_pred, sensitive, y_true)
        return self._term(statistic), statistic

    def _term(self, statistic: torch.Tensor) -> torch.Tensor:
        """The training term of a batch statistic."""
        return self.lam * statistic

    def _observe(self, statistic: torch.Tensor) -> None:
        """What a penalty learns from a training call's statistic (detached): nothing here."""

    def statistic(self, y_pred: torch.Tensor, sensitive: Any, y_true: Any = None) -> torch.Tensor:
        """The unweighted batch statistic: a 0-d tensor of ``y_pred``'s dtype, differentiable in
        ``y_pred``; the arguments as for :meth:`forward`."""
        batch = self._batch(y_pred, sensitive, y_true)
        return self._statistic(batch).to(batch.pred.dtype)

    def _statistic(self, batch: Batch) -> torch.Tensor:
        """The statistic of a validated batch (any floating dtype)."""
        raise NotImplementedError

    def extra_repr(self) -> str:
        return f"notion={self.notion!r}, lam={self.lam}"

    def _batch(self, y_pred: Any, sensitive: Any, y_true: Any) -> Batch:
        """Validate the inputs, split the attributes and check the capabilities."""
        name = type(self).__name__
        if not isinstance(y_pred, torch.Tensor):
            raise TypeError(
                f"{name}: y_pred must be a torch tensor (the model output); got "
                f"{type(y_pred).__name__}."
            )
        if not y_pred.is_floating_point():
            raise TypeError(f"{name}: y_pred must be a floating tensor; got {y_pred.dtype}.")
        if y_pred.ndim not in (1, 2):
            raise ValueError(
                f"{name}: y_pred must have shape (n,) or (n, k); got {tuple(y_pred.shape)}."
            )
        pred = y_pred if y_pred.ndim == 2 else y_pred.unsqueeze(1)
        n = int(pred.shape[0])
        if n < 2:
            raise ValueError(f"{name}: a batch needs at least 2 rows; got {n}.")
        keep = self.reads_attributes_on_host
        s = _as_tensor(sensitive, "sensitive", pred, keep_device=keep)
        if s.ndim == 1:
            s = s[:, None]
        if s.ndim != 2:
            raise ValueError(
                f"{name}: sensitive must have shape (n,) or (n, d); got {tuple(s.shape)}."
            )
        if int(s.shape[0]) != n:
            raise ValueError(
                f"{name}: y_pred has {n} rows but sensitive has {int(s.shape[0])}; they must "
                "have the same length."
            )
        truth = None
        if notion_named(self.notion).needs_outcome:
            if y_true is None:
                raise ValueError(
                    f"{name}: y_true is required for notion={self.notion!r}; pass the true "
                    "outcomes of the batch."
                )
            truth = _as_tensor(y_true, "y_true", pred, keep_device=keep)
            if truth.ndim not in (1, 2) or int(truth.shape[0]) != n:
                raise ValueError(
                    f"{name}: y_true must have shape (n,) or (n, k) with n={n} rows like y_pred; "
                    f"got {tuple(truth.shape)}."
                )
        if not self.rejects_non_finite:
            for argument, value in (("y_true", truth), ("sensitive", s)):
                if (
                    value is not None
                    and value.is_floating_point()
                    and not bool(torch.isfinite(value).all())
                ):
                    raise ValueError(f"{name}: {argument} contains NaN or infinite values.")
        if self.schema is not None and int(s.shape[1]) != self.schema.width:
            raise ValueError(
                f"{name}: sensitive has {int(s.shape[1])} columns but the schema describes "
                f"{self.schema.width} ({[a.name for a in self.schema.attributes]})."
            )
        batch = Batch(pred, s, truth, self.schema)
        capabilities = self.capabilities
        capabilities.check(
            name,
            notion=self.notion,
            attributes=(
                tuple(kind for kind, _ in batch.attributes)
                if capabilities.restricts_attributes
                else ()
            ),
            outcome=(
                outcome_kind(truth)
                if truth is not None and capabilities.restricts_outcomes
                else None
            ),
            outputs=int(pred.shape[1]),
        )
        return batch


def _as_tensor(
    value: Any, argument: str, like: torch.Tensor, *, keep_device: bool = False
) -> torch.Tensor:
    """A tensor on ``like``'s device; numpy arrays of numbers or booleans are converted. With
    ``keep_device``, a tensor stays on its device and an array becomes a CPU tensor."""
    device = None if keep_device else like.device
    if isinstance(value, torch.Tensor):
        return value if device is None or value.device == device else value.to(device)
    array = as_array(value, argument)
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"{argument} must be a tensor or an array of numbers or booleans; got dtype "
            f"{array.dtype}. Encode string or categorical columns with SensitiveEncoder."
        )
    if array.dtype.kind == "f":
        return torch.as_tensor(array, dtype=like.dtype, device=device)
    return torch.as_tensor(array, device=device)


def onehot_outcome(truth: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Class labels (integer or bool) as a floating one-hot block; numbers as ``(n, k)`` floats."""
    if truth.is_floating_point():
        return (truth if truth.ndim == 2 else truth[:, None]).to(dtype)
    labels = truth.reshape(-1).long()
    _, codes = torch.unique(labels, return_inverse=True)
    return nn.functional.one_hot(codes).to(dtype)


def outcome_strata(truth: torch.Tensor) -> list[torch.Tensor]:
    """Row indices of each distinct outcome (one row of ``truth`` per stratum key)."""
    keys = truth if truth.ndim == 2 else truth[:, None]
    _, codes = torch.unique(keys.detach(), dim=0, return_inverse=True)
    return [torch.nonzero(codes == c).reshape(-1) for c in range(int(codes.max()) + 1)]
