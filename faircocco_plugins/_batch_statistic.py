"""The statistic of many training batches, with the attribute and outcome kernels fitted once.

A training penalty evaluates ``I_F`` on thousands of mini-batches. Only the predictions change
from batch to batch; the sensitive attributes and the true outcomes are data. So their
bandwidths, level sets and low-rank pivots are fitted once, on the training data (or on the first
batch), and every batch only maps its rows through them. The predictions' bandwidth and pivots
are refitted on every batch, because the model moves. The statistic is the low-rank one of
:class:`._lowrank.LowRankFit`, rearranged so that the autograd graph holds only the predictions'
kernel rows.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import array_api_compat
import numpy as np

from ._api import _output
from ._backend import (
    PsdSolver,
    as_like,
    divide_by_lower_transposed,
    single_blas_thread,
    trace_of_product,
)
from ._explicit import row_kronecker
from ._inputs import Variable, check_lengths, is_array_api_obj, to_variable
from ._kernels import KernelInput, Scaling, bandwidth_rows, gaussian, to_host
from ._lowrank import MAX_RANK, TOLERANCE, FeatureMap, incomplete_cholesky
from ._problem import Options, Problem, fit_scaling, roles_of
from ._terms import ConstantAttributesFit


class BatchStatistic:
    """``I_F`` of mini-batches under attribute and outcome kernels fitted once.

    Use it as a training penalty in any array-API framework (torch tensors keep their gradients
    to ``y_pred``). :meth:`fit` fits the kernels of the sensitive attributes and the true
    outcomes on the training data; without it, the first batch fits them. Every call then
    refits only the predictions' bandwidth (median heuristic) and pivots. On the batch that
    fitted the kernels, the value equals :func:`faircocco_statistic` with ``method="lowrank"``.

    Parameters
    ----------
    notion : {"dp", "eo"}
        Demographic parity or equalised odds. Calibration conditions on the predictions, so
        nothing can be fitted ahead; use :func:`faircocco_statistic` for it.
    rank, eps, attribute_kernel, bandwidth, random_state
        As for :func:`faircocco_statistic`.

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

    def __init__(
        self,
        notion: str = "eo",
        *,
        rank: int | None = None,
        eps: float = 1e-4,
        attribute_kernel: str = "product",
        bandwidth: str | float = "median",
        random_state: int | None = None,
    ) -> None:
        self.options = Options.check(
            notion=notion,
            method="lowrank",
            rank=rank,
            eps=eps,
            attribute_kernel=attribute_kernel,
            bandwidth=bandwidth,
            random_state=random_state,
        )
        if notion == "cal":
            raise ValueError(
                "BatchStatistic supports notion='dp' and 'eo': calibration conditions on the "
                "predictions, so its kernels cannot be fitted ahead. Use faircocco_statistic."
            )
        self._scalings: dict[str, Scaling] | None = None
        self._maps: dict[str, FeatureMap] = {}

    @property
    def is_fitted(self) -> bool:
        """Whether the attribute and outcome kernels are fitted."""
        return self._scalings is not None

    def fit(self, sensitive_features: Any, y_true: Any = None) -> BatchStatistic:
        """Fit the kernels of the sensitive attributes and (EO) the outcomes; returns ``self``.

        Parameters
        ----------
        sensitive_features : array-like or DataFrame of shape (n,) or (n, d)
            The training set's sensitive attributes.
        y_true : array-like of shape (n,) or (n, k), optional
            The training outcomes; required for EO.
        """
        if self.options.notion == "eo" and y_true is None:
            raise ValueError("y_true is required for notion='eo'; pass the training outcomes.")
        reference = next((v for v in (sensitive_features, y_true) if is_array_api_obj(v)), None)
        sensitive = to_variable(sensitive_features, "sensitive_features", reference)
        truth = None if self.options.notion == "dp" else to_variable(y_true, "y_true", reference)
        check_lengths([v for v in (sensitive, truth) if v is not None])
        _check_joint(sensitive, self.options)
        self._fit_variables(sensitive, truth)
        return self

    def _fit_variables(self, sensitive: Variable, truth: Variable | None) -> None:
        rows = bandwidth_rows(sensitive.n, self.options.random_state)
        scalings = {"sensitive": fit_scaling("sensitive", sensitive, self.options, rows)}
        if truth is not None:
            scalings["truth"] = fit_scaling("truth", truth, self.options, rows)
        maps = {}
        with single_blas_thread():
            for role, k in self._roles(sensitive, truth, scalings).items():
                maps[role] = FeatureMap(self.options.rank)
                maps[role].fit_transform(k, np.zeros(()))
        self._scalings, self._maps = scalings, maps

    def __call__(self, y_pred: Any, sensitive_features: Any, y_true: Any = None) -> Any:
        """The statistic of one batch: a float for numpy input, a 0-d tensor for tensors.

        Parameters
        ----------
        y_pred : array of shape (n,) or (n, k)
            Numeric predictions of the batch (scores, probabilities or outputs).
        sensitive_features, y_true
            The batch's attributes and outcomes, as for :func:`faircocco_statistic`.
        """
        problem = Problem.from_arguments(y_pred, sensitive_features, y_true, self.options)
        if problem.pred.numeric is None or problem.pred.codes is not None:
            raise TypeError(
                "y_pred must be numeric (scores, probabilities or outputs) for BatchStatistic; "
                "use faircocco_statistic for nominal predictions."
            )
        _check_joint(problem.sensitive, self.options)
        if self._scalings is None:
            self._fit_variables(problem.sensitive, problem.truth)
        assert self._scalings is not None
        if problem.sensitive.is_constant():
            fit = ConstantAttributesFit(problem.pred, problem.like, "lowrank")
            return _output(fit.terms.statistic, y_pred)
        rows = bandwidth_rows(problem.n, self.options.random_state)
        z = fit_scaling("pred", problem.pred, self.options, rows).apply(problem.pred).z
        shift = self.options.eps * problem.n
        with single_blas_thread():
            side = self._attribute_side(problem, shift)
            pivots, _ = incomplete_cholesky(to_host(z), TOLERANCE, self.options.rank or MAX_RANK)
        return _output(_tracked_statistic(z, pivots, side, shift), y_pred)

    def _attribute_side(self, problem: Problem, shift: float) -> Any:
        """``F`` with ``F Fᵀ = (I − R_c) Ē A_e Ēᵀ (I − R_c)``, in the namespace of ``y_pred``.

        ``Ē`` and ``C̄`` are the centred feature rows of ``e`` and ``c`` under the fitted maps,
        ``A_e = (ĒᵀĒ + εN I)⁻¹`` and ``R_c = C̄ (C̄ᵀC̄ + εN I)⁻¹ C̄ᵀ``: everything of the
        statistic that does not depend on the predictions, computed on the host.
        """
        assert self._scalings is not None
        roles = self._roles(problem.sensitive, problem.truth, self._scalings)
        centred = {}
        for role, k in roles.items():
            codes, factor = self._maps[role].transform(k, np.zeros(()))
            features = row_kronecker(self._maps[role].level_rows(codes), factor)
            centred[role] = features - np.mean(features, axis=0)
        e = centred["e"]
        if "c" in centred:
            c = centred["c"]
            e = e - c @ PsdSolver(c.T @ c + shift * np.eye(c.shape[1])).solve(c.T @ e)
        gram = centred["e"].T @ centred["e"] + shift * np.eye(e.shape[1])
        return as_like(divide_by_lower_transposed(e, np.linalg.cholesky(gram)), problem.like)

    def _roles(
        self, sensitive: Variable, truth: Variable | None, scalings: dict[str, Scaling]
    ) -> dict[str, KernelInput]:
        """The attribute-side roles ``e`` and (EO) ``c``, on the host (they carry no gradient)."""
        kernel_inputs = {
            name: scalings[name].apply(_on_host(variable))
            for name, variable in (("sensitive", sensitive), ("truth", truth))
            if variable is not None
        }
        return roles_of(
            self.options.notion, None, kernel_inputs["sensitive"], kernel_inputs.get("truth")
        )


def _check_joint(sensitive: Variable, options: Options) -> None:
    """The joint kernel one-hot encodes nominal columns with the levels of each batch, which
    would give batches different layouts; numbers keep one layout."""
    if options.attribute_kernel == "joint" and sensitive.codes is not None:
        raise ValueError(
            "attribute_kernel='joint' needs numeric sensitive features in BatchStatistic (one-hot "
            f"encode {list(sensitive.nominal_names)} first, e.g. with SensitiveEncoder), or use "
            "attribute_kernel='product'."
        )


def _on_host(variable: Variable) -> Variable:
    if variable.numeric is None or isinstance(variable.numeric, np.ndarray):
        return variable
    return replace(variable, numeric=to_host(variable.numeric))


def _tracked_statistic(z: Any, pivots: np.ndarray, side: Any, shift: float) -> Any:
    """The low-rank statistic from the scaled predictions ``z`` and the attribute side ``F``.

    With the Nyström factor ``Φ = K_zl L⁻ᵀ`` on the pivots' landmarks (``L Lᵀ = K_ll``) and
    ``K`` the centred ``K_zl``, the statistic ``Tr[A_u Q A_e Qᵀ]`` of :class:`LowRankFit`, with
    ``Q = Φᵀ (I − R_c) Ē``, rearranges to ``Tr[(KᵀK + εN K_ll)⁻¹ (KᵀF)(KᵀF)ᵀ]``: no triangular
    solve of the factor, and only the predictions' kernel rows in the autograd graph.
    """
    xp = array_api_compat.array_namespace(z)
    landmarks = xp.take(z, xp.asarray(pivots, device=array_api_compat.device(z)), axis=0)
    kernel = gaussian(z, landmarks)
    kernel = kernel - xp.mean(kernel, axis=0)
    kernel_t = xp.permute_dims(kernel, (1, 0))
    cross = kernel_t @ side
    solver = PsdSolver(kernel_t @ kernel + shift * gaussian(landmarks, landmarks))
    return trace_of_product(solver.solve(cross), xp.permute_dims(cross, (1, 0)))
