"""Shared fixtures of the harness's tests (``bench_`` prefix)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from faircocco_plugins.datasets import Dataset, make_fairness_dataset
from faircocco_plugins.plugins import Capabilities, MethodSpec

ALL_KINDS = ("binary", "categorical", "continuous")
#: Names the tiny loader knows, and their task.
TINY_TASKS = {"tiny": "classification", "tiny_regression": "regression"}


def tiny_loader(name: str, seed: int) -> Dataset:
    """A 150-row synthetic dataset (sex, age, region) with the split of ``seed``."""
    data = make_fairness_dataset(150, task=TINY_TASKS[name], random_state=seed)  # type: ignore[arg-type]
    return dataclasses.replace(data, name=name)


class LinearMitigator:
    """A fairness-unaware least-squares model: fast, deterministic, with predict_proba."""

    def __init__(self, *, task: str, ridge: float) -> None:
        self.task = task
        self.ridge = ridge

    def fit(self, X: Any, y: Any, *, sensitive_features: Any) -> LinearMitigator:
        self.seen_X_ = np.asarray(X, dtype=float)
        self.seen_sensitive_ = sensitive_features
        design = np.column_stack([np.ones(len(X)), self.seen_X_])
        penalty = self.ridge * np.eye(design.shape[1])
        target = np.asarray(y, dtype=float)
        self.coef_ = np.linalg.solve(design.T @ design + penalty, design.T @ target)
        return self

    def _score(self, X: Any) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        return np.column_stack([np.ones(len(X)), X]) @ self.coef_

    def predict(self, X: Any) -> np.ndarray:
        score = self._score(X)
        return (score > 0.5).astype(int) if self.task == "classification" else score

    def predict_proba(self, X: Any) -> np.ndarray:
        p = np.clip(self._score(X), 0.0, 1.0)
        return np.column_stack([1 - p, p])


class FailingMitigator(LinearMitigator):
    def fit(self, X: Any, y: Any, *, sensitive_features: Any) -> FailingMitigator:
        raise RuntimeError("the optimiser diverged\n(second line)")


def _linear(*, task: str, notion: str, random_state: int, ridge: float = 1.0) -> LinearMitigator:
    return LinearMitigator(task=task, ridge=ridge)


def _failing(*, task: str, notion: str, random_state: int, ridge: float = 1.0) -> LinearMitigator:
    return FailingMitigator(task=task, ridge=ridge)


def _caps(**changes: Any) -> Capabilities:
    values: dict[str, Any] = {
        "tasks": ("classification", "regression"),
        "notions": ("dp", "eo", "cal"),
        "attributes": ALL_KINDS,
        "outcomes": ALL_KINDS,
        "multiple_attributes": "joint",
        "needs_gradients": False,
    }
    values.update(changes)
    return Capabilities(**values)


@pytest.fixture
def bench_methods() -> dict[str, MethodSpec]:
    """Fast in-process methods: a linear model, one that fails, one with narrow support."""
    grid = {"ridge": (0.1, 10.0)}
    return {
        "linear": MethodSpec(
            name="linear",
            description="least squares",
            capabilities=_caps(),
            factory=_linear,
            param_grid=grid,
            quick_grid={"ridge": (1.0,)},
            sweep_param="ridge",
        ),
        "failing": MethodSpec(
            name="failing",
            description="always raises",
            capabilities=_caps(),
            factory=_failing,
            param_grid={"ridge": (1.0,)},
            quick_grid={"ridge": (1.0,)},
        ),
        "narrow": MethodSpec(
            name="narrow",
            description="binary attributes and DP only",
            capabilities=_caps(
                tasks=("classification",),
                notions=("dp",),
                attributes=("binary",),
                multiple_attributes="single",
            ),
            factory=_linear,
            param_grid={"ridge": (1.0,)},
            quick_grid={"ridge": (1.0,)},
        ),
    }


@pytest.fixture
def bench_loader() -> Any:
    """``loader(name, seed)`` for the datasets ``tiny`` and ``tiny_regression``."""
    return tiny_loader


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Path:
    """A folder in which no file can be created; the test is skipped where one still can (a
    process with root's file permissions)."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        (folder / "probe").touch()
    except PermissionError:
        return folder
    pytest.skip("this process creates files in read-only folders")
