"""The training penalty on the predictions' device
(:mod:`faircocco_plugins._routes.device_penalty`), run here on CPU tensors: the value and gradient
of the host closed form, and finite differences."""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins import BatchStatistic

torch = pytest.importorskip("torch")

from faircocco_plugins._linalg import backend  # noqa: E402
from faircocco_plugins._routes import choose  # noqa: E402
from faircocco_plugins._routes.device_penalty import device_statistic  # noqa: E402


@pytest.fixture(autouse=True)
def one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def training_data(n, seed, continuous=False):
    rng = np.random.default_rng(seed)
    sex = rng.integers(0, 2, n).astype(np.float64)
    group = rng.integers(0, 3, n).astype(np.float64)
    columns = [sex, group] + ([rng.normal(size=n)] if continuous else [])
    a = np.column_stack(columns)
    y = (rng.random(n) < 0.3 + 0.3 * sex).astype(np.float64)
    return a, y


def fitted(notion, adjusted, a, y, **options):
    statistic = BatchStatistic(notion=notion, chance_adjusted=adjusted, **options)
    return statistic.fit(a, y if notion == "eo" else None)


def device_value(statistic, pred, a, y):
    """The device route's statistic of a batch: the attribute side formed in torch by the
    feature maps kept there, the bandwidth, damping and pivots from the predictions' host copy."""
    batch = statistic._plain_batch(pred, a, y)
    assert batch is not None
    values, rows, _ = batch
    shift = statistic._shift(rows)
    side = statistic._fitted.attribute_side(rows, shift, torch.zeros((), dtype=torch.float64))
    _, scale = statistic._scaled_predictions(values)
    return device_statistic(pred, side, shift, scale, statistic.options)


def host_value(statistic, pred, a, y):
    return statistic(pred, a, y)


@pytest.mark.parametrize("notion", ["dp", "eo"])
@pytest.mark.parametrize("adjusted", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("continuous", [False, True])
def test_value_and_gradient_equal_the_host_closed_form(notion, adjusted, seed, continuous):
    a, y = training_data(4000, seed, continuous)
    statistic = fitted(notion, adjusted, a, y)
    batch = slice(0, 512)
    rng = np.random.default_rng(seed + 10)
    pred = a[batch, 0] + 0.3 * y[batch] + rng.normal(size=512)
    grads = []
    values = []
    for route in (host_value, device_value):
        tensor = torch.tensor(pred, requires_grad=True)
        value = route(statistic, tensor, a[batch], y[batch])
        value.backward()
        values.append(value.item())
        grads.append(tensor.grad.numpy())
    # measured between the routes at 1, 2 and 3 BLAS threads and under four OpenBLAS kernel
    # sets (OPENBLAS_CORETYPE Prescott to SkylakeX): at most 1.8e-12 (value) and 1.4e-11
    # (gradient, relative to its largest entry), with or without the chance adjustment
    value_tolerance, gradient_tolerance = 1e-11, 1e-10
    assert values[1] == pytest.approx(values[0], rel=value_tolerance)
    assert np.abs(grads[1] - grads[0]).max() <= gradient_tolerance * np.abs(grads[0]).max()


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_adjusted_value_is_stable_under_rounding_of_the_predictions(notion):
    """The chance-adjusted statistic is a difference of two traces; computed in the Nyström
    basis, where its system is well conditioned, it does not amplify rounding."""
    a, y = training_data(4000, 1, continuous=True)
    statistic = fitted(notion, True, a, y)
    rng = np.random.default_rng(11)
    pred = a[:512, 0] + 0.3 * y[:512] + rng.normal(size=512)
    values = [
        statistic(pred * (1 + 1e-15 * rng.standard_normal(512)), a[:512], y[:512]) for _ in range(5)
    ]
    # measured: 1.8e-12 relative at most (4.8e-6 when computed with S = KᵀK + εN K_ll)
    assert (max(values) - min(values)) <= 1e-11 * abs(values[0])


def test_gradient_matches_finite_differences_at_a_fixed_bandwidth():
    a, y = training_data(2000, 3)
    statistic = fitted("eo", True, a, y, bandwidth=0.8, rank=6)
    rng = np.random.default_rng(4)
    pred = torch.tensor(a[:64, 0] + rng.normal(size=64), requires_grad=True)
    value = device_value(statistic, pred, a[:64], y[:64])
    (gradient,) = torch.autograd.grad(value, pred)
    step = 1e-6
    errors = []
    for i in rng.choice(64, 6, replace=False).tolist():
        shifted = [pred.detach().clone() for _ in range(2)]
        shifted[0][i] += step
        shifted[1][i] -= step
        # the same pivots on both sides: a step this small moves no residual past another
        ahead, behind = (device_value(statistic, s, a[:64], y[:64]).item() for s in shifted)
        difference = (ahead - behind) / (2 * step)
        errors.append(abs(gradient[i].item() - difference) / abs(difference))
    # measured: 5.8e-7 relative, the central difference's truncation and rounding
    assert max(errors) < 3e-6


def test_constant_attributes_give_zero_with_a_zero_gradient():
    a, y = training_data(500, 5)
    statistic = fitted("dp", False, a, y)
    pred = torch.randn(100, dtype=torch.float64, requires_grad=True)
    constant = np.zeros((100, 2))
    value = device_value(statistic, pred, constant, None)
    value.backward()
    assert value.item() == 0.0 and pred.grad.abs().max().item() == 0.0


def test_accelerator_tensors_larger_than_the_host_batch_are_sent_to_the_device_route(
    monkeypatch,
):
    """On CPU, BatchStatistic keeps its host route; a tensor on an accelerator (simulated: the
    device check answers yes) takes the device route in batches of more than HOST_BATCH_ROWS
    rows, and the host route in smaller ones."""
    from faircocco_plugins import _batch_statistic

    a, y = training_data(1000, 8)
    statistic = fitted("eo", True, a, y)
    pred = torch.tensor(a[:200, 0] + np.random.default_rng(9).normal(size=200))
    host = statistic(pred, a[:200], y[:200]).item()
    monkeypatch.setattr(backend, "on_accelerator", lambda value: True)
    monkeypatch.setattr(choose, "HOST_BATCH_ROWS", 199)
    calls = []
    monkeypatch.setattr(
        _batch_statistic,
        "device_batch_statistic",
        lambda *arguments: calls.append(arguments) or device_statistic(*arguments),
    )
    device = statistic(pred, a[:200], y[:200]).item()
    assert len(calls) == 1
    # measured over 20 draws of the noise: at most 1.1e-12
    assert device == pytest.approx(host, rel=5e-12)
    monkeypatch.setattr(choose, "HOST_BATCH_ROWS", 200)
    assert statistic(pred, a[:200], y[:200]).item() == host
    assert len(calls) == 1


@pytest.mark.parametrize("notion", ["dp", "eo"])
@pytest.mark.parametrize("adjusted", [False, True])
@pytest.mark.parametrize("continuous", [False, True])
def test_the_attribute_side_formed_in_torch_equals_the_host_side(notion, adjusted, continuous):
    # on the host discrete attributes take the table of known rows, a continuous one the batch's
    # rows; in torch the feature maps kept there map the batch's rows
    a, y = training_data(4000, 0, continuous)
    statistic = fitted(notion, adjusted, a, y)
    _, rows, _ = statistic._plain_batch(torch.zeros(512), a[:512], y[:512])
    shift = statistic._shift(rows)
    host = statistic._fitted.attribute_side(rows, shift)
    like = torch.zeros((), dtype=torch.float64)
    side = statistic._fitted.attribute_side(rows, shift, like)
    kernel = np.random.default_rng(1).normal(size=(512, 7))
    pairs = [(side.projected, host.projected), (side.lower, host.lower)]
    if adjusted:
        pairs.append((side.null(torch.tensor(kernel)), host.null(kernel)))
    else:
        assert side.null is None and host.null is None
    for tensor, array in pairs:
        assert isinstance(tensor, torch.Tensor) and tensor.dtype == torch.float64
        # measured over seeds 0 to 3: at most 4.9e-13 (P, with a continuous attribute, whose
        # Nyström rows torch and numpy round differently)
        error = np.abs(tensor.numpy() - array).max() / np.abs(array).max()
        assert error <= 1e-12


def test_nan_predictions_on_the_device_route_raise_the_host_routes_error(monkeypatch):
    """The device route reads the predictions for their pivots, so it checks them as the host
    route does instead of returning NaN."""
    a, y = training_data(500, 6)
    statistic = fitted("eo", True, a, y)
    pred = torch.tensor(np.random.default_rng(7).normal(size=100), requires_grad=True)
    with torch.no_grad():
        pred[3] = float("nan")
    monkeypatch.setattr(backend, "on_accelerator", lambda value: True)
    monkeypatch.setattr(choose, "HOST_BATCH_ROWS", 0)
    with pytest.raises(ValueError, match=r"^y_pred column 'y_pred' contains NaN"):
        statistic(pred, a[:100], y[:100])


def test_the_device_route_forms_the_batch_feature_rows_on_the_device(monkeypatch):
    """The attribute and outcome feature maps are kept on the predictions' device: each batch's
    feature rows are formed there from its scaled rows, not on the host and copied over."""
    from faircocco_plugins._estimators.feature_map import FeatureMap

    a, y = training_data(2000, 2, continuous=True)
    statistic = fitted("eo", True, a, y)
    monkeypatch.setattr(backend, "on_accelerator", lambda value: True)
    monkeypatch.setattr(choose, "HOST_BATCH_ROWS", 0)
    pred = torch.tensor(np.random.default_rng(3).normal(size=256), requires_grad=True)
    formed = []
    original = FeatureMap.continuous_rows

    def continuous_rows(self, z, codes=None):
        formed.append(type(z))
        return original(self, z, codes)

    monkeypatch.setattr(FeatureMap, "continuous_rows", continuous_rows)
    for start in (0, 256, 512):
        statistic(pred, a[start : start + 256], y[start : start + 256]).backward()
    assert formed and all(kind is torch.Tensor for kind in formed)
