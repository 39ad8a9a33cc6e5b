"""Estimator factories registered under the ``faircocco_plugins.mitigators`` entry-point group.

Each factory takes ``task`` (``"classification"`` or ``"regression"``) and keyword parameters of
:class:`FairCOCCOClassifier` / :class:`FairCOCCORegressor`, and returns an unfitted estimator
whose ``fit(X, y, *, sensitive_features=...)`` trains the paper's network with one method. The
network, the trainer and the batches are the same for every method; only the penalty differs.
"""

from __future__ import annotations

from typing import Any

from ._constraint import FairCOCCOConstraint
from ._estimators import FairCOCCOClassifier, FairCOCCORegressor, _FairNetwork

TASKS = ("classification", "regression")


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
