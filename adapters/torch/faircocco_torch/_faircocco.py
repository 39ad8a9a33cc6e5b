"""The FairCOCCO penalty: ``λ I_F`` on a mini-batch, computed by the core package."""

from __future__ import annotations

from typing import Any, ClassVar, Unpack

import torch

from faircocco_plugins import BatchStatistic, faircocco_statistic, standardise
from faircocco_plugins.plugins import (
    NOTIONS,
    STATISTIC_OPTIONS,
    PenaltyKeywords,
    check_statistic_options,
    fits_kernels_ahead,
    notion_named,
    statistic_default,
    takes_options,
)

from ._base import Batch, FairnessPenalty
from ._capabilities import KINDS, PenaltyCapabilities
from ._encoding import SensitiveSchema

#: The statistic's options a penalty takes, with their defaults and reasons in the core's table
#: (``statistic_default(name, "penalty")``; the training guide's "Choosing ε" has the
#: measurements behind ``eps``).
PENALTY_OPTIONS: tuple[str, ...] = tuple(
    name for name, option in STATISTIC_OPTIONS.items() if "penalty" in option.defaults
)
#: The options a penalty also takes by position, after its own positional parameters.
PENALTY_POSITIONAL_OPTIONS = ("method", "rank", "eps", "attribute_kernel")
#: The order of FairCOCCOPenalty's keyword-only parameters, options included.
PENALTY_KEYWORDS = ("conditioning_eps", "chance_adjusted", "kernel", "bandwidth", "schema")


class FairCOCCOPenalty(FairnessPenalty):
    """The FairCOCCO regulariser ``λ I_F`` as a torch module.

    ``I_F`` is the unnormalised FairCOCCO statistic of the batch: the squared Hilbert–Schmidt
    norm of the normalised (conditional) cross-covariance operator between the predictions and
    the sensitive attributes (given the true outcome for EO; with the roles of predictions and
    outcomes swapped for CAL), by default minus its expected value when the attribute rows are
    permuted (``chance_adjusted``, DP and EO). For DP and EO it is computed by
    :class:`faircocco_plugins.BatchStatistic`: the kernels of the attributes and outcomes
    (bandwidths, level sets, pivots) are fitted once, by :meth:`fit` on the training data or on
    the first batch in which every column varies, and only the predictions' kernel is refitted
    per batch. For CAL, or with ``method="exact"``,
    :func:`faircocco_plugins.faircocco_statistic` refits every kernel per batch. DP and EO are
    computed on the host in float64 and reach the predictions' framework as one autograd node
    with the gradient in closed form; CAL and ``method="exact"`` run in torch on the tensors'
    device. Either way the value is differentiable in ``y_pred``;
    bandwidths and pivots are chosen on detached values. All attributes are measured jointly,
    so dependence on their combination counts.

    **Probabilities or logits.** The paper applies the penalty to predicted probabilities. The
    statistic depends on the predictions only through Gaussian kernels whose bandwidth is the
    median pairwise distance of the batch, so it is invariant to rescaling the predictions but
    not to the sigmoid's squashing: on probabilities, confident predictions that differ only in
    their logits count as equal, which is what matters for decisions; on logits, every change
    of score counts. Pass ``torch.sigmoid(logits)`` (binary), ``torch.softmax(logits, 1)``
    (several classes) or the raw output for regression, or pass logits to penalise the scores
    themselves; both are supported.

    **Inputs.** ``sensitive`` is a float tensor ``(n, d)`` (each numeric column gets a Gaussian
    kernel with its own median bandwidth; a bool tensor gets delta kernels), usually the output
    of :class:`SensitiveEncoder`, whose one-hot blocks become Gaussians on the one-hot vector.
    ``y_true`` may be numbers (float) or class labels (integer or bool tensors, which are
    compared by equality so that classes are unordered).

    Parameters
    ----------
    notion : {"dp", "eo", "cal", "eopp"}
        Demographic parity, equalised odds (the paper's default), calibration or equal
        opportunity (equalised odds on the rows with a positive outcome; class labels).
    lam : float
        The trade-off weight ``λ``; the paper selects it from {0.5, 1, 2, 5}.
    method : {"auto", "exact", "lowrank"}
        ``auto`` and ``lowrank``: the low-rank statistic with the attribute and outcome kernels
        fitted once (DP, EO; CAL refits per batch, exact below 128 rows); ``exact``: the exact
        estimator, every kernel refitted per batch.
    rank : int, optional
        Cap on the rank of each continuous low-rank factor.
    eps : float
        Regularisation ``ε`` of ``R = G (G + εN I)⁻¹`` for the predictions and the attributes.
        The default 0.3 is chosen for mini-batches of 64–256 rows (see the training guide and
        the core's table of the statistic's options);
        ``eps=1e-4, conditioning_eps=None`` is the paper's literal per-batch form, which
        measured collapses to constant or worse-than-chance models on several datasets.
    conditioning_eps : float or None
        ``ε`` of the outcome's operator under EO (of the predictions' under CAL); ``None``
        means ``eps``. The default 1e-4 conditions almost exactly on the outcome.
    chance_adjusted : bool or None
        Penalise ``I_F`` minus its expected value when the attribute rows are permuted (within
        the outcome's strata under EO; see :class:`faircocco_plugins.BatchStatistic`), so that
        the finite-sample floor, whose gradient rewards clumped predictions, is not penalised.
        ``None`` (default) means on for DP and EO, off for CAL and ``method="exact"``, which
        do not support it.
    attribute_kernel : {"product", "joint"}
        Product of per-attribute kernels, or the paper's single kernel on the whole vector.
    kernel : str
        The kernel of numeric columns, by its registered name (default ``"gaussian"``, the
        paper's); :func:`faircocco_plugins.faircocco_score` lists them.
    bandwidth : "median" or float
        Median heuristic per batch, or a fixed bandwidth.
    schema : SensitiveSchema, optional
        Not needed by this penalty (its kernels see the encoded columns directly); accepted for
        a uniform interface.

    Notes
    -----
    ``I_F`` depends on the batch size (``εN`` grows with ``N``), so compare values and choose
    ``λ`` at the batch size used for training. Constant predictions, or a batch in which an
    attribute takes a single value, give 0 with finite (zero) gradients.

    With the median heuristic the statistic does not change when the predictions are shifted or
    rescaled. Its gradient is therefore taken through predictions centred and divided by their
    root mean square (:func:`faircocco_plugins.standardise`; for DP and EO inside
    :class:`faircocco_plugins.BatchStatistic`'s closed-form gradient): the value is the same, and
    the gradient loses a spurious component that, with a detached bandwidth, shrinks the
    predictions' spread and can drive training to constant predictions. The same invariance
    makes the gradient grow as ``1 / spread``; below a spread (root mean square about the
    mean) of ``1e-3 · max(1, root mean square of the predictions)`` it is scaled down in
    proportion to the spread, so that it stays bounded as the predictions collapse, and the
    value is unchanged (:meth:`faircocco_plugins.BatchStatistic.gradient_damping`).

    Examples
    --------
    >>> import torch
    >>> from faircocco_torch import FairCOCCOPenalty
    >>> torch.manual_seed(0)  # doctest: +ELLIPSIS
    <torch._C.Generator object at ...>
    >>> logits = torch.randn(128, requires_grad=True)
    >>> sex = torch.randint(0, 2, (128, 1)).float()
    >>> y = torch.randint(0, 2, (128,)).float()
    >>> penalty = FairCOCCOPenalty(notion="eo", lam=1.0).fit(sex, y)  # on the training data
    >>> value = penalty(torch.sigmoid(logits), sex, y)
    >>> value.backward()
    >>> bool(torch.isfinite(logits.grad).all())
    True
    """

    capabilities: ClassVar[PenaltyCapabilities] = PenaltyCapabilities(
        notions=NOTIONS,
        attributes=KINDS,
        outcomes=KINDS,
        multiple_attributes="joint",
        multi_output=True,
    )
    #: the core names the argument and column with NaN or infinite values
    rejects_non_finite: ClassVar[bool] = True
    #: the attributes' rows are read on the host (their feature rows are looked up there),
    #: whatever the predictions' device
    reads_attributes_on_host: ClassVar[bool] = True

    @takes_options("penalty", positional=PENALTY_POSITIONAL_OPTIONS, order=PENALTY_KEYWORDS)
    def __init__(
        self,
        notion: str = statistic_default("notion", "penalty"),
        lam: float = 1.0,
        *,
        chance_adjusted: bool | None = None,
        schema: SensitiveSchema | None = None,
        **options: Unpack[PenaltyKeywords],
    ) -> None:
        super().__init__(notion=notion, lam=lam, schema=schema)
        method = options["method"]
        batched = fits_kernels_ahead(notion, method)
        if chance_adjusted and not batched:
            raise ValueError(
                "chance_adjusted=True needs notion 'dp' or 'eo' with method 'auto' or "
                f"'lowrank' (got notion={notion!r}, method={method!r}); pass "
                "chance_adjusted=False or None."
            )
        self.chance_adjusted = batched if chance_adjusted is None else chance_adjusted
        # the options as attributes of their own names, as scikit-learn's parameters
        self.method = method
        self.rank = options["rank"]
        self.eps = options["eps"]
        self.conditioning_eps = options["conditioning_eps"]
        self.attribute_kernel = options["attribute_kernel"]
        self.kernel = options["kernel"]
        self.bandwidth = options["bandwidth"]
        #: attribute and outcome kernels fitted once (DP and EO); CAL and ``method="exact"``
        #: refit every kernel on every batch
        self._batches: BatchStatistic | None = None
        if batched:
            batch_options = self._statistic_options()
            del batch_options["method"]  # the batch statistic is low-rank
            self._batches = BatchStatistic(**batch_options, chance_adjusted=self.chance_adjusted)
        #: class labels of integer outcomes, fitted with the kernels
        self._classes: torch.Tensor | None = None
        # fail at construction rather than at the first batch
        check_statistic_options(**self._statistic_options())

    def fit(self, sensitive: Any, y_true: Any = None) -> FairCOCCOPenalty:
        """Fit the kernels of the sensitive attributes and outcomes on the training data.

        Bandwidths, level sets and low-rank pivots of the attributes (and, for EO, of the
        outcomes and their classes) then stay fixed across batches; only the predictions'
        kernel is refitted per batch. Without ``fit``, the first batch in which every column
        of ``sensitive`` (and, for EO, of ``y_true``) varies fits them: a batch with a constant
        column (a binary attribute seen with one value, a one-hot level not seen yet, one class
        of the outcome) cannot show their spread, so it is measured with kernels fitted on
        itself alone, as by a fresh penalty, and the next batch fits them again. A class first
        seen after the kernels are fitted is an error; ``fit`` on the training data avoids
        both. Under CAL or ``method="exact"`` every kernel is refitted per batch and ``fit``
        only checks the data.

        Parameters
        ----------
        sensitive : torch.Tensor or numpy.ndarray of shape (n,) or (n, d)
            The training set's encoded sensitive attributes.
        y_true : torch.Tensor, optional
            The training outcomes; required for EO and CAL.

        Returns
        -------
        FairCOCCOPenalty
            ``self``.

        Examples
        --------
        >>> import torch
        >>> from faircocco_torch import FairCOCCOPenalty
        >>> sex = torch.randint(0, 2, (1000, 1)).float()
        >>> y = torch.randint(0, 2, (1000,)).float()
        >>> penalty = FairCOCCOPenalty(notion="eo").fit(sex, y)
        """
        like = torch.zeros(len(sensitive), 1)
        batch = self._batch(like, sensitive, y_true)
        self._classes = None
        truth = None if batch.truth is None else self._outcome(batch.truth)
        if self._batches is not None:
            self._batches.fit(batch.sensitive, truth)
        return self

    def _statistic(self, batch: Batch) -> torch.Tensor:
        truth = None if batch.truth is None else self._outcome(batch.truth)
        if self._batches is not None:
            # standardises the predictions itself, on the host
            return self._batches(batch.pred, batch.sensitive, truth)
        pred = _standardised(batch.pred) if self.bandwidth == "median" else batch.pred
        value = faircocco_statistic(
            pred[:, 0] if pred.shape[1] == 1 else pred,
            batch.sensitive,
            y_true=truth,
            **self._statistic_options(),
        )
        return value.to(batch.pred.dtype)

    def _statistic_options(self) -> dict[str, Any]:
        """The statistic's options, as this penalty holds them."""
        return {name: getattr(self, name) for name in PENALTY_OPTIONS}

    def extra_repr(self) -> str:
        return f"notion={self.notion!r}, lam={self.lam}, method={self.method!r}"

    def _outcome(self, truth: torch.Tensor) -> torch.Tensor:
        """Class labels become bool indicators (delta kernels); numbers are passed as they are.

        The classes are fitted with the kernels (by :meth:`fit` or a batch, see
        :meth:`fit`), so every batch encodes a label the same way. A notion restricted to one
        label of the outcome gets the labels as they are: the core picks that label's rows.
        """
        if (
            truth.is_floating_point()
            or truth.dtype == torch.bool
            or notion_named(self.notion).restricts_rows
        ):
            return truth
        labels = truth.reshape(-1)
        if self._classes is None or self._batches is None or not self._batches.is_fitted:
            self._classes = torch.unique(labels)
        classes = self._classes.to(labels.device)
        known = torch.isin(labels, classes)
        if not bool(known.all()):
            raise ValueError(
                f"y_true has class {labels[~known][0].item()} that the penalty's kernels were "
                f"not fitted with (classes {classes.tolist()}); call penalty.fit(sensitive, "
                "y_true) on the training data."
            )
        if classes.numel() <= 2:
            return labels == classes[-1]
        return labels[:, None] == classes[None, :]


def _standardised(pred: torch.Tensor) -> torch.Tensor:
    """:func:`faircocco_plugins.standardise`'d predictions whose gradient is damped as
    :class:`faircocco_plugins.BatchStatistic`'s when their spread is below its floor (see
    :meth:`faircocco_plugins.BatchStatistic.gradient_damping`); the values are unchanged."""
    standard, spread = standardise(pred)
    magnitude = float(pred.detach().square().mean().sqrt())
    damping = BatchStatistic.gradient_damping(float(spread.detach()), magnitude)
    if damping == 1.0:
        return standard
    return damping * standard + (1.0 - damping) * standard.detach()
