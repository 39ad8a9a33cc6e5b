"""FairCOCCOPenalty through the device route of its predictions (what CUDA tensors take), with
CPU tensors standing in for an accelerator's: the same penalty and gradient as the host closed
form, and a training step that lowers the penalty."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
faircocco_torch = pytest.importorskip("faircocco_torch")

from faircocco_plugins._linalg import backend  # noqa: E402
from faircocco_plugins._routes import choose  # noqa: E402
from faircocco_torch import FairCOCCOPenalty  # noqa: E402


def data(n, seed):
    rng = np.random.default_rng(seed)
    sensitive = np.column_stack([rng.integers(0, 2, n), rng.normal(size=n)])
    y = (rng.random(n) < 0.3 + 0.4 * sensitive[:, 0]).astype(np.float64)
    return torch.tensor(sensitive), torch.tensor(y)


def every_batch_on_the_device(monkeypatch, on_accelerator=lambda value: True):
    """CPU tensors stand in for an accelerator's, in batches of any size (small ones would
    otherwise keep the host route)."""
    monkeypatch.setattr(backend, "on_accelerator", on_accelerator)
    monkeypatch.setattr(choose, "HOST_BATCH_ROWS", 0)


def step(penalty, logits, sensitive, y):
    logits = logits.clone().requires_grad_(True)
    value = penalty(torch.sigmoid(logits), sensitive, y)
    value.backward()
    return value.item(), logits.grad


@pytest.mark.parametrize("notion", ["dp", "eo"])
@pytest.mark.parametrize("chance_adjusted", [False, True])
def test_the_device_route_gives_the_host_penalty_and_gradient(monkeypatch, notion, chance_adjusted):
    sensitive, y = data(3000, 0)
    penalty = FairCOCCOPenalty(notion=notion, chance_adjusted=chance_adjusted)
    penalty.fit(sensitive, y)
    rows = torch.arange(256)
    noise = torch.randn(256, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    logits = sensitive[rows, 0] + 0.5 * sensitive[rows, 1] + noise
    host = step(penalty, logits, sensitive[rows], y[rows])
    calls = []
    every_batch_on_the_device(monkeypatch, lambda value: calls.append(1) or True)
    device = step(penalty, logits, sensitive[rows], y[rows])
    assert calls
    # both routes take the host's bandwidth and pivots; measured over 40 draws of the noise and
    # three OpenBLAS kernel sets: at most 8.2e-16 of the value and 1.6e-14 of the gradient's
    # largest entry
    assert device[0] == pytest.approx(host[0], rel=3e-15)
    scale = host[1].abs().max().item()
    assert (device[1] - host[1]).abs().max().item() <= 5e-14 * scale


def test_a_step_along_the_device_gradient_lowers_the_penalty(monkeypatch):
    every_batch_on_the_device(monkeypatch)
    sensitive, y = data(2000, 1)
    penalty = FairCOCCOPenalty(notion="eo").fit(sensitive, y)
    rows = torch.arange(512)
    logits = 2.0 * sensitive[rows, 0] + torch.randn(512, dtype=torch.float64)
    before, gradient = step(penalty, logits, sensitive[rows], y[rows])
    after, _ = step(penalty, logits - 0.5 * gradient / gradient.norm(), sensitive[rows], y[rows])
    assert after < before
