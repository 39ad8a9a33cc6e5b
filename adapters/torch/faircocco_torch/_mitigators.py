"""The methods of this package, registered under the ``faircocco_plugins.mitigators`` group.

Each entry point loads to a :class:`faircocco_plugins.plugins.MethodSpec` whose factory takes
``task`` (``"classification"`` or ``"regression"``) and keyword parameters of
:class:`FairCOCCOClassifier` / :class:`FairCOCCORegressor`, and returns an unfitted estimator
whose ``fit(X, y, *, sensitive_features=...)`` trains the paper's network with one method. The
network (two hidden layers whose width follows the input size, see :func:`hidden_width`), the
trainer and the batches are the same for every method; only the penalty differs. The sweeps are
the paper's (appendix B): learning rate in {1e-2, 1e-3, 1e-4}, batch size in {64, 128, 256} and
penalty weight λ in {0, 0.5, 1, 2, 5, 10}; the constraint sweeps its bound on ``I_F`` instead of λ.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from faircocco_plugins.plugins import KINDS, NOTIONS, TASKS, Capabilities, MethodSpec

from ._base import FairnessPenalty
from ._constraint import FairCOCCOConstraint
from ._covariance import CovariancePenalty
from ._estimators import FairCOCCOClassifier, FairCOCCORegressor, _FairNetwork
from ._facl import FACLPenalty
from ._faircocco import FairCOCCOPenalty
from ._farmi import FARMIPenalty
from ._hsic import HSICPenalty
from ._linear_loss import LinearLossPenalty
from ._path import FairCOCCOPathClassifier, FairCOCCOPathRegressor


def _estimator(task: str, **params: Any) -> _FairNetwork:
    if task == "classification":
        return FairCOCCOClassifier(**params)
    if task == "regression":
        params.pop("penalty_on", None)
        return FairCOCCORegressor(**params)
    raise ValueError(f"task={task!r} is not valid; expected one of {list(TASKS)}.")


def nn(*, task: str = "classification", **params: Any) -> _FairNetwork:
    """The unregularised network (the paper's "NN" row)."""
    return _estimator(task, penalty=None, **params)


def faircocco(*, task: str = "classification", **params: Any) -> _FairNetwork:
    """The network with the FairCOCCO penalty ``λ I_F``."""
    return _estimator(task, penalty="faircocco", **params)


#: The paper's literal penalty: its ridge ε on every operator, no chance adjustment and one
#: Gaussian on the whole attribute vector (the training guide measures what these cost).
_PAPER_PENALTY: dict[str, Any] = {
    "eps": 1e-4,
    "conditioning_eps": 1e-4,
    "chance_adjusted": False,
    "attribute_kernel": "joint",
}


def faircocco_paper(
    *, task: str = "classification", notion: str = "eo", lam: float = 1.0, **params: Any
) -> _FairNetwork:
    """The network with the FairCOCCO penalty in the paper's literal settings, trained without
    warm-up epochs as in the paper."""
    penalty = FairCOCCOPenalty(notion=notion, lam=lam, **_PAPER_PENALTY)
    return _estimator(task, penalty=penalty, notion=notion, lam=lam, **params)


def faircocco_constraint(
    *,
    task: str = "classification",
    notion: str = "eo",
    bound: float = 0.02,
    multiplier_lr: float = 1.0,
    **params: Any,
) -> _FairNetwork:
    """The network trained under ``I_F <= bound`` (:class:`FairCOCCOConstraint`)."""
    constraint = FairCOCCOConstraint(notion=notion, bound=bound, multiplier_lr=multiplier_lr)
    return _estimator(task, penalty=constraint, **params)


#: The group gap each notion's ``target="gap"`` asks for, in classification.
_GAP_TARGETS = {"dp": {"di": 0.8}, "eo": {"deo": 0.05}}


def faircocco_path(
    *,
    task: str = "classification",
    notion: str = "eo",
    target: str = "halve",
    epochs: int | None = None,
    **params: Any,
) -> _FairNetwork:
    """The network along a warm-started λ path, kept at a target (:class:`FairCOCCOPathClassifier`).

    ``target="halve"`` keeps the most accurate step whose validation score is at most half the
    unpenalised one's; ``"gap"`` the notion's group gap in classification, DI >= 0.8 under DP
    and DEO <= 0.05 under EO, and halving elsewhere. A study's ``epochs`` are the unpenalised
    warm-up's, so that the path starts from the network the other methods train.
    """
    if target not in ("halve", "gap"):
        raise ValueError(f"target={target!r} is not valid; expected 'halve' or 'gap'.")
    if target == "gap" and task == "classification":
        goal: Any = _GAP_TARGETS.get(notion, "halve")
    else:
        goal = "halve"
    if epochs is not None:
        params["warmup_epochs"] = epochs
    if task == "classification":
        return FairCOCCOPathClassifier(notion=notion, target=goal, **params)
    if task == "regression":
        params.pop("penalty_on", None)
        return FairCOCCOPathRegressor(notion=notion, target=goal, **params)
    raise ValueError(f"task={task!r} is not valid; expected one of {list(TASKS)}.")


def facl(*, task: str = "classification", **params: Any) -> _FairNetwork:
    """The network with the FACL penalty."""
    return _estimator(task, penalty="facl", **params)


def farmi(*, task: str = "classification", **params: Any) -> _FairNetwork:
    """The network with the FARMI penalty."""
    return _estimator(task, penalty="farmi", **params)


def hsic(*, task: str = "classification", **params: Any) -> _FairNetwork:
    """The network with the HSIC penalty."""
    return _estimator(task, penalty="hsic", **params)


def covariance(*, task: str = "classification", **params: Any) -> _FairNetwork:
    """The network with Zafar et al.'s covariance penalty."""
    return _estimator(task, penalty="covariance", **params)


def linear_loss(*, task: str = "classification", **params: Any) -> _FairNetwork:
    """The network with Donini et al.'s linear-loss penalty."""
    return _estimator(task, penalty="linear_loss", **params)


#: The paper's optimisation sweep, shared by every method.
_TRAINING_GRID: dict[str, tuple[Any, ...]] = {
    "learning_rate": (1e-2, 1e-3, 1e-4),
    "batch_size": (64, 128, 256),
}
#: One optimisation setting for quick studies (few epochs favour the larger step).
_QUICK_TRAINING: dict[str, tuple[Any, ...]] = {"learning_rate": (1e-2,), "batch_size": (128,)}
#: The paper's penalty weights extended to 10, where the strongest penalties start to give up
#: the task, and three of them for quick studies.
_LAMBDAS = (0.0, 0.5, 1.0, 2.0, 5.0, 10.0)
_QUICK_LAMBDAS = (0.5, 2.0, 10.0)
#: Bounds on the chance-adjusted batch statistic ``I_F`` (at the penalty's defaults and batch
#: 128, bounds of 0.005 and more were inactive on most of the paper's datasets), and three of
#: them for quick studies.
_BOUNDS = (0.0005, 0.001, 0.002, 0.005, 0.01)
_QUICK_BOUNDS = (0.0005, 0.001, 0.002)
#: Study-wide settings the factories accept.
_TRAINING_SETTINGS = ("epochs", "warmup_epochs")


def _network_spec(
    name: str,
    description: str,
    capabilities: Capabilities,
    factory: Any,
    sweep: tuple[str, tuple[Any, ...], tuple[Any, ...]] | None,
    training_settings: tuple[str, ...] = _TRAINING_SETTINGS,
) -> MethodSpec:
    """A method of the paper's network: the optimisation sweep, and ``sweep``'s parameter (then
    its full and its quick grid's values) when the method has a strength to sweep."""
    param_grid, quick_grid = dict(_TRAINING_GRID), dict(_QUICK_TRAINING)
    parameter: str | None = None
    if sweep is not None:
        parameter, values, quick_values = sweep
        param_grid[parameter], quick_grid[parameter] = values, quick_values
    return MethodSpec(
        name=name,
        description=description,
        capabilities=capabilities,
        factory=factory,
        param_grid=param_grid,
        quick_grid=quick_grid,
        sweep_param=parameter,
        training_settings=training_settings,
    )


def _penalised(
    name: str, description: str, factory: Any, penalty: type[FairnessPenalty]
) -> MethodSpec:
    return _network_spec(
        name, description, penalty.capabilities, factory, ("lam", _LAMBDAS, _QUICK_LAMBDAS)
    )


NN = _network_spec(
    "nn",
    "The paper's network without a fairness term (the paper's NN row)",
    Capabilities(
        tasks=TASKS,
        notions=NOTIONS,
        attributes=KINDS,
        outcomes=KINDS,
        multiple_attributes="joint",
        needs_gradients=True,
        note="no fairness term: the baseline every penalty is added to",
    ),
    nn,
    None,
)
FAIRCOCCO = _penalised(
    "faircocco",
    "The network with the FairCOCCO penalty λ I_F (all attributes jointly)",
    faircocco,
    FairCOCCOPenalty,
)
#: The paper's weights; its single binary-attribute datasets under DP and EO (Tables 3 and 9).
FAIRCOCCO_PAPER = _network_spec(
    "faircocco_paper",
    "The network with the FairCOCCO penalty in the paper's literal settings "
    "(ε = 1e-4, no chance adjustment, a joint attribute kernel, no warm-up)",
    replace(
        FairCOCCOPenalty.capabilities,
        notions=("dp", "eo"),
        attributes=("binary",),
        note="the paper's binary tables only (DP and EO, binary attributes); faircocco runs "
        "the penalty everywhere",
    ),
    faircocco_paper,
    ("lam", (0.5, 1.0, 2.0, 5.0), (0.5, 2.0, 5.0)),
    # the study's warm-up does not reach it: the paper penalises from the first epoch
    training_settings=("epochs",),
)
FAIRCOCCO_CONSTRAINT = _network_spec(
    "faircocco_constraint",
    "The network trained under I_F <= bound by a Lagrangian multiplier",
    FairCOCCOConstraint.capabilities,
    faircocco_constraint,
    ("bound", _BOUNDS, _QUICK_BOUNDS),
)
FAIRCOCCO_PATH = _network_spec(
    "faircocco_path",
    "The network along a warm-started λ path, kept where it meets a fairness target",
    FairCOCCOPenalty.capabilities,
    faircocco_path,
    ("target", ("halve", "gap"), ("halve", "gap")),
    training_settings=("epochs",),
)
FACL = _penalised(
    "facl", "The network with the FACL penalty (Mary et al., 2019)", facl, FACLPenalty
)
FARMI = _penalised(
    "farmi", "The network with the FARMI penalty (Steinberg et al., 2020)", farmi, FARMIPenalty
)
HSIC = _penalised("hsic", "The network with an HSIC penalty", hsic, HSICPenalty)
COVARIANCE = _penalised(
    "covariance",
    "The network with the decision-boundary covariance penalty (Zafar et al., 2017)",
    covariance,
    CovariancePenalty,
)
LINEAR_LOSS = _penalised(
    "linear_loss",
    "The network with the linear-loss penalty (Donini et al., 2018)",
    linear_loss,
    LinearLossPenalty,
)
