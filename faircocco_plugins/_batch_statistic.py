"""The statistic of many training batches, with the attribute and outcome kernels fitted once.

A training penalty evaluates ``I_F`` on thousands of mini-batches. Only the predictions change
from batch to batch; the sensitive attributes and the true outcomes are data. So their
bandwidths, level sets and low-rank pivots are fitted once, on the training data (or on the first
batch in which every column varies), and every batch only maps its rows through them. The
predictions' bandwidth and pivots are refitted on every batch, because the model moves. The
statistic is the low-rank one of :class:`._estimators.lowrank.LowRankFit`, rearranged so that only
the predictions' kernel rows depend on the model (:mod:`._estimators.batch`, written once over the
array API). On the host its gradient is a closed form, one autograd node per batch; for
predictions on an accelerator it is computed on their device, with the feature maps of the
attributes and outcomes kept there, and autograd differentiates it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Unpack

import numpy as np

from ._batch_kernels import BatchKernels
from ._estimators.batch import (
    PredictionScale,
    closed_form_gradient,
    prediction_damping,
    predictions_statistic,
    spread_damping,
)
from ._estimators.batch_rows import has_constant_column, plain_host
from ._estimators.cholesky import incomplete_cholesky
from ._estimators.pivots import pivot_tolerance
from ._estimators.terms import Role
from ._inputs.output import as_output
from ._inputs.row_order import in_order
from ._inputs.variables import Variable, check_lengths, is_array_api_obj, to_variable
from ._kernels.kernel import bandwidth_rows
from ._kernels.registry import kernel_named
from ._linalg.backend import (
    column_means,
    float64_like,
    host_array,
    host_function,
    refuse_unreadable_tensors,
    take_rows,
)
from ._options import BatchKeywords, Options, statistic_default, takes_options
from ._records.notions import NOTION_RECORDS, notion_named
from ._routes.choose import BatchRoute, batch_route, fits_kernels_ahead
from ._routes.dispatch import device_batch_statistic
from ._routes.problem import Problem, measured_rows


class BatchStatistic:
    """``I_F`` of mini-batches under attribute and outcome kernels fitted once.

    Use it as a training penalty in any array-API framework (torch tensors keep their gradients
    to ``y_pred``). :meth:`fit` fits the kernels of the sensitive attributes and the true
    outcomes on the training data; without it, the first batch in which every column of the
    attributes (and, for EO, of the outcomes) varies fits them. A batch before it (a binary
    attribute seen with one value, a one-hot level not seen yet, a constant outcome) has no
    spread to fit a bandwidth on: it is measured with kernels fitted on itself alone, as by a
    fresh statistic, and the next batch fits them again. Every call then refits only the
    predictions' bandwidth (median heuristic) and pivots. On the batch that fitted the kernels,
    the value equals :func:`faircocco_statistic` with ``method="lowrank"``. A notion restricted
    to one label of the outcome measures that label's rows of each batch; a batch with fewer
    than two of them has nothing to compare and gives 0, with a zero gradient.

    Parameters
    ----------
    notion : {"dp", "eo"}
        Demographic parity or equalised odds. Calibration conditions on the predictions, so
        nothing can be fitted ahead; use :func:`faircocco_statistic` for it.
    rank, eps, conditioning_eps, attribute_kernel, bandwidth, random_state
        As for :func:`faircocco_statistic`.
    chance_adjusted : bool
        Subtract from each batch's statistic its expected value when the attribute rows are
        permuted (within strata of the outcome under EO, as for the chance-adjusted score), so
        that predictions independent of the attributes score 0 on average at any batch size
        and the penalty has no finite-sample floor to lower (see Notes).

    Notes
    -----
    **The statistic of a batch.** Let ``Ē`` and ``C̄`` be the centred feature rows of the
    attributes ``e`` and (EO) the outcome ``c`` under the fitted maps, ``R_c = C̄ (C̄ᵀC̄ +
    εN I)⁻¹ C̄ᵀ`` (with the conditioning ridge; ``R_c = 0`` for DP), ``P = (I − R_c) Ē`` and
    ``L`` the Cholesky factor of ``ĒᵀĒ + εN I``. Then ``F = P L⁻ᵀ`` holds everything of the
    statistic that does not depend on the predictions: ``F Fᵀ = (I − R_c) Ē A_e Ēᵀ (I − R_c)``.
    With the Nyström factor ``Φ = K_zl L_l⁻ᵀ`` of the scaled predictions ``z`` on their pivots'
    landmarks (``L_l L_lᵀ = K_ll``) and ``K`` the centred ``K_zl``, the statistic
    ``Tr[A_u Q A_e Qᵀ]`` of the low-rank estimator, with ``Q = Φᵀ (I − R_c) Ē``, rearranges to
    ``T = Tr[S⁻¹ X Xᵀ]`` with ``X = KᵀF`` and ``S = KᵀK + εN K_ll``. Neither ``Φ`` nor ``F``
    is formed: with several attributes ``P`` is wide, and ``L`` is applied to the few columns
    of the predictions' side instead.

    **Its conditioning.** ``K_ll`` is factored only to the pivot tolerance, so ``S`` is
    ill-conditioned, and the chance adjustment below subtracts two of its traces: solved with
    ``S``, rounding of the predictions moved the adjusted value by up to 5e-6 relative. Both are
    computed instead in the Nyström basis ``Φ = K L_l⁻ᵀ``, where ``T = Tr[S′⁻¹ X′X′ᵀ]`` with
    ``X′ = ΦᵀF`` and ``S′ = L_l⁻¹ S L_l⁻ᵀ = ΦᵀΦ + εN I``, whose eigenvalues are at least
    ``εN``, and the adjustment is one trace of the difference of the two matrices.

    **Its gradient.** With ``G = S⁻¹ X``, ``∂T/∂K = 2 (F − K G) Gᵀ = 2 (P (G L⁻¹)ᵀ − K G Gᵀ)``
    and ``∂T/∂K_ll = −εN G Gᵀ``. ``K_ll`` is the pivots' rows of ``K_zl``, so both reach
    ``K_zl``, and the Gaussian kernel carries them to ``z`` (the landmarks are rows of ``z``
    too), then through their centring and (median heuristic) standardisation. One autograd node
    receives the result. In the Nyström basis ``G = L_l⁻ᵀ G′`` with ``G′ = S′⁻¹ X′``, so
    ``∂T/∂K = 2 (F − Φ G′) G′ᵀ L_l⁻¹`` and ``∂T/∂K_ll = −εN L_l⁻ᵀ G′G′ᵀ L_l⁻¹``.

    **The chance adjustment.** With ``chance_adjusted``, the statistic ``Tr[R_u M_e]`` with
    ``M_e = (I − R_c) R_e (I − R_c)`` becomes ``Tr[R_u (M_e − (I − R_c) Ω (I − R_c))]``. Here
    ``Ω = U C Uᵀ + diag(δ)`` is the matrix for which ``Tr[(I − R_c) R_u (I − R_c) Ω]`` is the
    permutation null of :func:`._estimators.terms.expected_permuted_trace`: ``U`` holds the stratum
    indicators and ``C``, ``δ`` come from the per-stratum block sums and diagonal sums of
    ``R_e``. In the low-rank form the null maps ``K`` to ``Z = W K`` with the fixed symmetric
    ``W = (I − R_c) Ω (I − R_c)``, and ``T₀ = Tr[S⁻¹ KᵀZ]`` is subtracted, with
    ``∂T₀/∂K = 2 Z S⁻¹ − 2 K M`` and ``∂T₀/∂K_ll = −εN M``, where ``M = S⁻¹ KᵀZ S⁻¹``: the
    null is linear in ``R_u``, so its gradient follows the same chain rule as the statistic's.

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_plugins import BatchStatistic
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, size=1000)
    >>> y = rng.integers(0, 2, size=1000)
    >>> statistic = BatchStatistic(notion="eo").fit(a, y)
    >>> batch = slice(0, 256)
    >>> statistic(a[batch] + rng.normal(size=256), a[batch], y[batch]) > 0
    True
    """

    @takes_options("batch")
    def __init__(
        self,
        notion: str = statistic_default("notion", "batch"),
        *,
        chance_adjusted: bool = False,
        **keywords: Unpack[BatchKeywords],
    ) -> None:
        if not isinstance(chance_adjusted, bool):
            raise TypeError(
                f"chance_adjusted must be True or False; got {type(chance_adjusted).__name__}."
            )
        self.chance_adjusted = chance_adjusted
        self.options = Options.check(notion=notion, **keywords, method="lowrank")
        self._kernel = kernel_named(self.options.kernel)
        self._notion = notion_named(notion)
        if not fits_kernels_ahead(notion):
            ahead = [name for name in NOTION_RECORDS if fits_kernels_ahead(name)]
            raise ValueError(
                f"BatchStatistic supports notion={' or '.join(map(repr, ahead))}: "
                f"{self._notion.title} conditions on the predictions, so its kernels cannot be "
                "fitted ahead. Use faircocco_statistic."
            )
        #: the attribute and outcome kernels, once fitted
        self._fitted_kernels: BatchKernels | None = None
        #: whether the kernels were fitted on a batch with a constant column (refitted next)
        self._provisional = False

    @property
    def is_fitted(self) -> bool:
        """Whether the attribute and outcome kernels are fitted for good: by :meth:`fit`, or
        by a batch in which every column of the attributes (and EO: outcomes) varies."""
        return self._fitted_kernels is not None and not self._provisional

    @property
    def _fitted(self) -> BatchKernels:
        """The attribute and outcome kernels (fitted by :meth:`fit` or by a batch)."""
        assert self._fitted_kernels is not None
        return self._fitted_kernels

    @staticmethod
    def gradient_damping(spread: float, magnitude: float) -> float:
        """The factor on the gradient of predictions of a given spread: ``min(1, spread / floor)``.

        Under the median heuristic the statistic does not change when the predictions are
        rescaled, so its gradient grows as ``1 / spread``: without a bound, predictions that
        have almost collapsed to a constant get a gradient large enough to throw training off.
        Below ``floor = SPREAD_FLOOR * max(1, magnitude)`` (``SPREAD_FLOOR = 1e-3``) the
        gradient is scaled down in proportion to the spread, so that it stays below its size at
        the floor; the value is not changed. Spreads above the floor keep their gradient.

        Parameters
        ----------
        spread : float
            Root mean square of the centred predictions.
        magnitude : float
            Root mean square of the predictions themselves: a spread far below it is rounding.

        Returns
        -------
        float
            The factor, in ``[0, 1]``.

        Examples
        --------
        >>> from faircocco_plugins import BatchStatistic
        >>> BatchStatistic.gradient_damping(0.2, 0.5), BatchStatistic.gradient_damping(1e-6, 0.5)
        (1.0, 0.001)
        """
        return spread_damping(float(spread), float(magnitude))

    def fit(self, sensitive_features: Any, y_true: Any = None) -> BatchStatistic:
        """Fit the kernels of the sensitive attributes and (EO) the outcomes; returns ``self``.

        The kernels then stay fixed, even for a column that is constant in this data.

        Parameters
        ----------
        sensitive_features : array-like or DataFrame of shape (n,) or (n, d)
            The training set's sensitive attributes.
        y_true : array-like of shape (n,) or (n, k), optional
            The training outcomes; required for EO.
        """
        notion = self._notion
        if notion.needs_outcome and y_true is None:
            raise ValueError(
                f"y_true is required for notion={notion.name!r}; pass the training outcomes."
            )
        refuse_unreadable_tensors({"sensitive_features": sensitive_features, "y_true": y_true})
        sensitive = to_variable(host_array(sensitive_features), "sensitive_features", None)
        truth = to_variable(host_array(y_true), "y_true", None) if notion.needs_outcome else None
        check_lengths([v for v in (sensitive, truth) if v is not None])
        kept = measured_rows(notion, y_true)
        if kept is not None:
            sensitive, truth = in_order(sensitive, kept), None  # one label: not conditioned on
        _check_joint(sensitive, self.options)
        self._fitted_kernels = BatchKernels(sensitive, truth, self.options, self.chance_adjusted)
        self._provisional = False
        return self

    def __call__(self, y_pred: Any, sensitive_features: Any, y_true: Any = None) -> Any:
        """The statistic of one batch: a float for numpy input, a 0-d tensor for tensors.

        Under the median heuristic the statistic is invariant to shifting and rescaling the
        predictions, and its gradient is the one taken through standardised predictions (see
        :func:`standardise`): its parts along their mean and their spread are projected out,
        so that it has no spurious component that shrinks their spread.

        Parameters
        ----------
        y_pred : array of shape (n,) or (n, k)
            Numeric predictions of the batch (scores, probabilities or outputs).
        sensitive_features, y_true
            The batch's attributes and outcomes, as for :func:`faircocco_statistic`.
        """
        refuse_unreadable_tensors(
            {"y_pred": y_pred, "sensitive_features": sensitive_features, "y_true": y_true}
        )
        if self._too_few_measured(y_true):
            x = y_pred if is_array_api_obj(y_pred) else np.asarray(y_pred, dtype=np.float64)
            return as_output(host_function(_zero, x), y_pred)
        plain = self._plain_batch(y_pred, sensitive_features, y_true)
        pred, rows, kept = (
            plain if plain is not None else self._checked_batch(y_pred, sensitive_features, y_true)
        )
        x = pred
        if is_array_api_obj(y_pred):
            # the rows the notion measures, gathered: the gradient reaches y_pred's own rows
            x = y_pred if kept is None else take_rows(y_pred, kept)
        self._fitted.ranges.check(self._fitted.host_rows.numeric_columns(rows), "batch")
        route = batch_route(
            y_pred,
            rows.shape[0],
            plain=plain is not None,
            closed_form=self._kernel.gram_gradient is not None,
            constant_attributes=self._fitted.host_rows.sensitive_is_constant(rows),
        )
        if route is BatchRoute.DEVICE:
            return as_output(self._device_statistic(x, pred, rows), y_pred)
        if route is BatchRoute.ZERO:
            return as_output(host_function(_zero, x, pred), y_pred)
        # everything is computed on the host; only y_pred's gradient goes back to its framework
        with self._fitted.side_threads():
            statistic = host_function(self._statistic(rows), x, pred)
        return as_output(statistic, y_pred)

    def _too_few_measured(self, y_true: Any) -> bool:
        """Whether the batch has fewer than two rows of the one label its notion measures (a
        random batch may): nothing to compare, so the statistic is 0, as for constant
        attributes."""
        if not self._notion.restricts_rows or y_true is None:
            return False
        kept = measured_rows(self._notion, y_true, fewest=0)
        return kept is not None and kept.size < 2

    def _device_statistic(self, y_pred: Any, pred: np.ndarray, rows: np.ndarray) -> Any:
        """The statistic of the batch on ``y_pred``'s device, from its host copy ``pred`` (for
        the bandwidth and pivots, chosen as on the host route) and its host ``rows`` (for the
        attribute side, formed on the device by the feature maps kept there; None when the
        attributes are constant: the statistic is 0)."""
        shift = self._shift(rows)
        side = None
        if not self._fitted.host_rows.sensitive_is_constant(rows):
            with self._fitted.side_threads():
                side = self._fitted.attribute_side(rows, shift, float64_like(y_pred))
        _, scale = self._scaled_predictions(pred)
        return device_batch_statistic(y_pred, side, shift, scale, self.options)

    def _shift(self, rows: np.ndarray) -> float:
        """``εN`` of the predictions (and of the attributes) in a batch of ``rows``."""
        return self.options.ridge.shift(Role.MEASURED, rows.shape[0])

    def _checked_batch(
        self, y_pred: Any, sensitive_features: Any, y_true: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The host predictions ``(n, k)`` and host rows of the rows of a batch that the
        notion measures, and their positions in it (None: all), by the full validation
        (fitting the kernels on the batch while they are not fitted, see :meth:`fit`)."""
        problem = Problem.from_arguments(
            host_array(y_pred), host_array(sensitive_features), host_array(y_true), self.options
        )
        pred = problem.pred
        if pred.numeric is None or pred.codes is not None:
            raise TypeError(
                "y_pred must be numeric (scores, probabilities or outputs) for BatchStatistic; "
                "use faircocco_statistic for nominal predictions."
            )
        _check_joint(problem.sensitive, self.options)
        refit = not self.is_fitted
        if refit:
            self._fitted_kernels = BatchKernels(
                problem.sensitive, problem.truth, self.options, self.chance_adjusted
            )
        rows = self._fitted.host_rows.rows(problem.sensitive, problem.truth)
        if refit:
            # a column constant in this batch has no spread to fit a bandwidth, pivots or
            # strata on: kernels fitted here would misjudge every later batch, so they serve
            # this batch only and the next batch fits them again
            self._provisional = has_constant_column(rows)
        return pred.numeric, rows, problem.kept

    def _plain_batch(
        self, y_pred: Any, sensitive_features: Any, y_true: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
        """:meth:`_checked_batch` of a batch of finite floating arrays in the fitted layout of
        numeric columns, converted directly; None for any other batch.

        Training passes thousands of such batches, and inside a training step, whose model and
        optimiser keep evicting this code from the caches, the full validation is a sixth of the
        call (performance docs, "Why the fast paths exist"). Any other batch, and every error,
        takes the full validation.
        """
        if not self.is_fitted:
            return None
        pred = plain_host(y_pred)
        rows = self._fitted.host_rows.plain_rows(sensitive_features, y_true)
        if pred is None or rows is None or pred.shape[0] != rows.shape[0] or pred.shape[0] < 2:
            return None
        # NaN and infinities make the sum non-finite (as would overflow, left to the validation)
        if not math.isfinite(pred.sum() + rows.sum()):
            return None
        if not self._notion.restricts_rows:
            return pred, rows, None
        truth = plain_host(y_true)
        if truth is None or truth.shape[0] != pred.shape[0] or not math.isfinite(truth.sum()):
            return None
        kept = measured_rows(self._notion, truth)
        assert kept is not None
        return pred.take(kept, axis=0), rows.take(kept, axis=0), kept

    def _statistic(
        self, rows: np.ndarray
    ) -> Callable[[np.ndarray], tuple[float, Callable[[], np.ndarray]]]:
        """The statistic of a batch as a function of its host predictions ``(n, k)``, with its
        gradient: :func:`._estimators.batch.predictions_statistic` of the predictions scaled
        (:meth:`_scaled_predictions`) on the attribute side of the batch's host ``rows``, with
        its closed-form gradient."""
        shift = self._shift(rows)

        def value_and_gradient(values: np.ndarray) -> tuple[float, Callable[[], np.ndarray]]:
            z, scale = self._scaled_predictions(values)
            side = self._fitted.attribute_side(rows, shift)
            forward = predictions_statistic(z, self._kernel, scale.pivots, side, shift)

            def gradient() -> np.ndarray:
                return closed_form_gradient(
                    forward, z, self._kernel, scale, side, shift, self._median
                )

            return float(forward.trace.value), gradient

        return value_and_gradient

    def _scaled_predictions(self, values: np.ndarray) -> tuple[np.ndarray, PredictionScale]:
        """Host predictions ``(n, k)`` centred and divided by their bandwidth (the median
        distance of a seeded sample of rows, or the fixed one), and what they were scaled by:
        that bandwidth, the damping of their gradient and the pivots incomplete Cholesky
        chooses for them."""
        n = values.shape[0]
        # every registered kernel is translation invariant: centring only keeps digits
        centred = values - column_means(values)
        if self._median:
            sample = bandwidth_rows(n, self.options.random_state)
            sampled = centred if sample.size == n else take_rows(centred, sample)
            width = self._kernel.bandwidth(sampled)
        else:
            width = float(self.options.bandwidth)
        z = centred / width
        pivots, _ = incomplete_cholesky(
            z,
            self._kernel,
            pivot_tolerance(self.options.ridge, Role.MEASURED),
            self.options.rank or self._kernel.default_rank,
        )
        return z, PredictionScale(width, prediction_damping(values, centred), pivots)

    @property
    def _median(self) -> bool:
        """Whether the predictions' bandwidth is the median heuristic's."""
        return self.options.bandwidth == "median"


def _check_joint(sensitive: Variable, options: Options) -> None:
    """The joint kernel one-hot encodes nominal columns with the levels of each batch, which
    would give batches different layouts; numbers keep one layout."""
    if options.attribute_kernel == "joint" and sensitive.codes is not None:
        raise ValueError(
            "attribute_kernel='joint' needs numeric sensitive features in BatchStatistic (one-hot "
            f"encode {list(sensitive.nominal_names)} first, e.g. with SensitiveEncoder), or use "
            "attribute_kernel='product'."
        )


def _zero(values: np.ndarray) -> tuple[float, Callable[[], np.ndarray]]:
    """Constant attributes are independent of everything: the statistic is 0, as its gradient."""
    return 0.0, lambda: np.zeros_like(values)
