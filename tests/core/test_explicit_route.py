"""Tracked tensors (explicit feature rows) give the numpy route's low-rank statistic.

Under calibration the attributes ``e`` are the sensitive columns followed by the predictions,
so the tracked concatenation must not keep discrete sensitive columns out of their exact level
factor: the two routes would then differ by the low-rank error, not by rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins import faircocco_statistic
from faircocco_plugins._estimators.explicit import differentiated_columns
from faircocco_plugins._estimators.terms import Role
from faircocco_plugins._kernels.kernel import KernelInput
from faircocco_plugins._kernels.registry import kernel_named

torch = pytest.importorskip("torch")


def attributes_of(kind, n, rng):
    if kind == "binary":
        return rng.integers(0, 2, n).astype(np.float64)
    if kind == "categorical":
        return rng.integers(0, 5, n).astype(np.float64)
    if kind == "continuous":
        return rng.normal(size=n)
    return np.column_stack([rng.integers(0, 2, n), rng.integers(0, 4, n), rng.normal(size=n)])


@pytest.mark.parametrize("kind", ["binary", "categorical", "continuous", "mixed"])
@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
@pytest.mark.parametrize("seed", [0, 1])
def test_tracked_predictions_give_the_numpy_lowrank_statistic(kind, notion, seed):
    rng = np.random.default_rng(seed)
    n = 2000
    a = attributes_of(kind, n, rng)
    y = rng.integers(0, 2, n).astype(np.float64)
    first = a if a.ndim == 1 else a[:, 0]
    pred = 0.5 * first + 0.5 * y + rng.normal(size=n)
    options = {"y_true": y, "notion": notion, "method": "lowrank"}
    expected = faircocco_statistic(pred, a, **options)
    tracked = torch.tensor(pred, requires_grad=True)
    got = faircocco_statistic(tracked, torch.tensor(a), **{**options, "y_true": torch.tensor(y)})
    # measured: at most 8e-14 relative over these cases (the order of sums differs)
    assert got.item() == pytest.approx(expected, rel=5e-13, abs=1e-15)


def test_only_the_predictions_columns_of_the_calibration_attributes_are_differentiated():
    pred = KernelInput(torch.zeros(5, 1, requires_grad=True), None, kernel=kernel_named("gaussian"))
    attributes = KernelInput(
        torch.cat([torch.zeros(5, 2), pred.z], dim=1), None, kernel=kernel_named("gaussian")
    )
    roles = {
        Role.MEASURED: KernelInput(torch.zeros(5, 1), None, kernel=kernel_named("gaussian")),
        Role.ATTRIBUTES: attributes,
    }
    roles[Role.GIVEN] = pred
    assert differentiated_columns(roles, Role.ATTRIBUTES) == [2]
    assert differentiated_columns(roles, Role.GIVEN) == [0]
    assert differentiated_columns(roles, Role.MEASURED) == []
