"""BatchStatistic on torch tensors: its closed-form gradient against the general low-rank path,
and the batches it takes without the full validation."""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins import BatchStatistic, faircocco_statistic, standardise

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("notion", ["dp", "eo"])
@pytest.mark.parametrize(
    "ridges", [{}, {"eps": 0.3, "conditioning_eps": 1e-4}], ids=["paper", "penalty"]
)
def test_gradient_equals_that_of_the_general_lowrank_path(notion, ridges):
    rng = np.random.default_rng(1)
    n = 256
    sensitive = torch.as_tensor(np.stack([rng.integers(0, 2, n), rng.normal(size=n)], 1))
    y = torch.as_tensor(rng.integers(0, 2, n).astype(float))
    logits = torch.tensor(rng.normal(size=n) + sensitive[:, 0].numpy(), requires_grad=True)
    fast = BatchStatistic(notion=notion, **ridges)(torch.sigmoid(logits), sensitive, y)
    (fast_grad,) = torch.autograd.grad(fast, logits)
    # the closed form takes the gradient through standardised predictions
    standard, _ = standardise(torch.sigmoid(logits)[:, None])
    slow = faircocco_statistic(
        standard, sensitive, y_true=y, notion=notion, method="lowrank", **ridges
    )
    (slow_grad,) = torch.autograd.grad(slow, logits)
    assert float(fast.detach()) == pytest.approx(float(slow.detach()), rel=1e-9)
    # the closed-form gradient and autograd round differently through the ridge solves
    assert torch.allclose(fast_grad, slow_grad, rtol=1e-6, atol=1e-8 * float(slow_grad.abs().max()))
    assert bool(torch.isfinite(fast_grad).all())


def test_constant_attributes_in_a_batch_give_zero_with_zero_gradient():
    statistic = BatchStatistic(notion="eo").fit(np.array([0.0, 1.0] * 50), np.arange(100) % 3)
    pred = torch.linspace(0, 1, 64, requires_grad=True)
    value = statistic(pred, torch.zeros(64), torch.arange(64) % 3)
    (grad,) = torch.autograd.grad(value, pred)
    assert float(value.detach()) == 0.0
    assert bool((grad == 0).all())


def test_the_gradient_of_nearly_constant_predictions_is_damped_and_the_value_kept():
    rng = np.random.default_rng(6)
    a = torch.as_tensor(rng.integers(0, 2, 128).astype(float))
    noise = torch.as_tensor(rng.normal(size=128)) + a
    statistic = BatchStatistic(notion="dp").fit(a)
    results = {}
    for spread in (1e-12, 1e-6, 1e-4, 1.0):
        pred = (0.5 + spread * noise).requires_grad_()
        value = statistic(pred, a)
        (grad,) = torch.autograd.grad(value, pred)
        results[spread] = (float(value.detach()), float(grad.abs().max()))
    # undamped, the largest entry is 0.02 / spread (2e10 at 1e-12); damped, it stays at its
    # size where the spread (root mean square about the mean) reaches the floor, 1e-3
    at_the_floor = results[1.0][1] * float(noise.std(correction=0)) / 1e-3
    for spread in (1e-12, 1e-6, 1e-4):
        assert results[spread][0] == pytest.approx(results[1.0][0], rel=1e-4)
        assert results[spread][1] == pytest.approx(at_the_floor, rel=1e-3)
    assert BatchStatistic.gradient_damping(1e-5, 100.0) == pytest.approx(1e-4)


def test_gradient_of_two_column_predictions_equals_that_of_the_general_path():
    rng = np.random.default_rng(2)
    n = 200
    sensitive = torch.as_tensor(rng.integers(0, 3, n).astype(float))
    y = torch.as_tensor(rng.integers(0, 2, n).astype(float))
    scores = torch.tensor(rng.normal(size=(n, 2)) + sensitive[:, None].numpy(), requires_grad=True)
    fast = BatchStatistic(notion="eo")(torch.softmax(scores, dim=1), sensitive, y)
    (fast_grad,) = torch.autograd.grad(fast, scores)
    standard, _ = standardise(torch.softmax(scores, dim=1))
    slow = faircocco_statistic(standard, sensitive, y_true=y, notion="eo", method="lowrank")
    (slow_grad,) = torch.autograd.grad(slow, scores)
    # softmax columns are collinear: the ridge solves amplify the paths' different rounding of
    # the column means and of the kernel's squared distances (direct in the general path) to
    # 1.7e-8 of the largest gradient
    assert float(fast.detach()) == pytest.approx(float(slow.detach()), rel=1e-7)
    assert torch.allclose(fast_grad, slow_grad, rtol=1e-6, atol=3e-8 * float(slow_grad.abs().max()))


def test_float32_predictions_get_a_float32_value_and_gradient():
    rng = np.random.default_rng(3)
    sensitive = torch.as_tensor(rng.integers(0, 2, 128), dtype=torch.float32)
    logits = torch.tensor(rng.normal(size=128), dtype=torch.float32, requires_grad=True)
    value = BatchStatistic(notion="dp")(torch.sigmoid(logits), sensitive)
    value.backward()
    assert value.dtype == torch.float32
    assert logits.grad is not None and logits.grad.dtype == torch.float32
    assert bool(torch.isfinite(logits.grad).all()) and float(logits.grad.abs().sum()) > 0


def test_gradient_at_a_fixed_bandwidth_is_that_of_the_general_path_without_standardising():
    rng = np.random.default_rng(5)
    n = 160
    sensitive = torch.as_tensor(rng.normal(size=n))
    y = torch.as_tensor(rng.integers(0, 2, n).astype(float))
    logits = torch.tensor(rng.normal(size=n) + sensitive.numpy(), requires_grad=True)
    fast = BatchStatistic(notion="eo", bandwidth=0.3)(torch.sigmoid(logits), sensitive, y)
    (fast_grad,) = torch.autograd.grad(fast, logits)
    slow = faircocco_statistic(
        torch.sigmoid(logits), sensitive, y_true=y, notion="eo", method="lowrank", bandwidth=0.3
    )
    (slow_grad,) = torch.autograd.grad(slow, logits)
    assert float(fast.detach()) == pytest.approx(float(slow.detach()), rel=1e-9)
    assert torch.allclose(fast_grad, slow_grad, rtol=1e-6, atol=1e-8 * float(slow_grad.abs().max()))


def test_median_heuristic_gradient_has_no_part_along_a_shift_or_a_rescaling():
    # the statistic is invariant to both, so its gradient must be orthogonal to them
    rng = np.random.default_rng(6)
    sensitive = rng.integers(0, 2, 200).astype(float)
    pred = torch.tensor(rng.normal(size=200) + sensitive, requires_grad=True)
    (grad,) = torch.autograd.grad(BatchStatistic(notion="dp")(pred, sensitive), pred)
    centred = pred.detach() - pred.detach().mean()
    assert float(grad.abs().sum()) > 0
    assert abs(float(grad.sum())) < 1e-10 * float(grad.abs().sum())
    assert abs(float(grad @ centred)) < 1e-10 * float(grad.norm() * centred.norm())


def _fitted_on_arrays(rng: np.random.Generator) -> BatchStatistic:
    sensitive = np.stack([rng.integers(0, 2, 500), rng.normal(size=500)], 1)
    return BatchStatistic(notion="eo").fit(sensitive, rng.integers(0, 2, 500).astype(float))


def test_batches_of_plain_floating_arrays_are_taken_directly_with_the_same_result(monkeypatch):
    rng = np.random.default_rng(7)
    statistic = _fitted_on_arrays(rng)
    sensitive = torch.as_tensor(np.stack([rng.integers(0, 2, 128), rng.normal(size=128)], 1))
    y = rng.integers(0, 2, 128)
    logits = torch.tensor(rng.normal(size=128), requires_grad=True)
    # integer outcomes are not plain floating arrays: this batch takes the full validation
    checked = statistic(torch.sigmoid(logits), sensitive, y)
    (checked_grad,) = torch.autograd.grad(checked, logits)

    def full_validation(*args):
        raise AssertionError("a plain batch in the fitted layout took the full validation")

    monkeypatch.setattr(BatchStatistic, "_checked_batch", full_validation)
    direct = statistic(torch.sigmoid(logits), sensitive, torch.as_tensor(y, dtype=torch.float32))
    (direct_grad,) = torch.autograd.grad(direct, logits)
    assert float(direct.detach()) == float(checked.detach())
    assert torch.equal(direct_grad, checked_grad)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda p, s, y: (p, s.index_fill(1, torch.tensor([1]), np.nan), y),
            r"sensitive_features\[1\]' contains NaN",
        ),
        (
            lambda p, s, y: (p, s, y.index_fill(0, torch.tensor([3]), np.inf)),
            "y_true' contains NaN or infinite",
        ),
        (lambda p, s, y: (p, s[:, :1], y), "layout of the data given to fit"),
        (lambda p, s, y: (p[:-1], s, y), "rows"),
        (lambda p, s, y: (p[:0], s[:0], y[:0]), "empty"),
        (lambda p, s, y: (p[:, None, None], s, y), "1-D or 2-D"),
        (lambda p, s, y: (p, s, None), "y_true is required"),
    ],
)
def test_bad_batches_of_floating_arrays_after_fit_get_the_full_validations_errors(change, message):
    rng = np.random.default_rng(8)
    statistic = _fitted_on_arrays(rng)
    pred = torch.rand(64)
    sensitive = torch.as_tensor(np.stack([rng.integers(0, 2, 64), rng.normal(size=64)], 1))
    y = torch.as_tensor(rng.integers(0, 2, 64).astype(float))
    with pytest.raises(ValueError, match=message):
        statistic(*change(pred, sensitive, y))


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_chance_adjusted_gradient_equals_central_differences(notion):
    rng = np.random.default_rng(3)
    n = 200
    sensitive = np.stack([rng.integers(0, 2, n), rng.integers(0, 3, n), rng.normal(size=n)], 1)
    y = rng.integers(0, 2, n).astype(float)
    statistic = BatchStatistic(
        notion=notion, chance_adjusted=True, eps=0.3, conditioning_eps=1e-4, bandwidth=0.5
    ).fit(sensitive, y)
    pred = torch.tensor(rng.normal(size=n) + sensitive[:, 0], requires_grad=True)
    (gradient,) = torch.autograd.grad(statistic(pred, sensitive, y), pred)
    direction = rng.normal(size=n)
    # a step small enough to leave the pivots, chosen on the predictions, where they are
    h, values = 1e-5, pred.detach().numpy()
    difference = (
        statistic(values + h * direction, sensitive, y)
        - statistic(values - h * direction, sensitive, y)
    ) / (2 * h)
    # measured agreement 1.2e-7 (DP) and 6e-9 (EO) relative
    assert float(gradient.numpy() @ direction) == pytest.approx(difference, rel=1e-6)


@pytest.mark.parametrize("argument", ["y_pred", "sensitive_features", "y_true"])
def test_meta_tensors_are_refused_by_name(argument):
    """A tensor on the 'meta' device has a shape and no values."""
    from faircocco_plugins import faircocco_score

    data = {
        "y_pred": torch.rand(64),
        "sensitive_features": torch.randint(0, 2, (64, 1)).double(),
        "y_true": torch.randint(0, 2, (64,)).double(),
    }
    data[argument] = data[argument].to("meta")
    statistic = BatchStatistic(notion="eo")
    for call in (
        lambda: statistic(data["y_pred"], data["sensitive_features"], data["y_true"]),
        lambda: faircocco_score(
            data["y_pred"], data["sensitive_features"], y_true=data["y_true"], notion="eo"
        ),
    ):
        with pytest.raises(TypeError, match=rf"^{argument} is a tensor on the 'meta' device"):
            call()
    if argument != "y_pred":
        with pytest.raises(TypeError, match=rf"^{argument} is a tensor on the 'meta' device"):
            statistic.fit(data["sensitive_features"], data["y_true"])


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta state")
@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("argument", ["y_pred", "sensitive_features", "y_true"])
def test_sparse_tensors_are_refused_by_name(argument, layout):
    """A sparse tensor crashed inside torch (reshape is not implemented for sparse tensors)."""
    from faircocco_plugins import faircocco_score, independence_test

    data = {
        "y_pred": torch.rand(64, 1),
        "sensitive_features": torch.randint(0, 2, (64, 2)).double(),
        "y_true": torch.randint(0, 2, (64, 1)).double(),
    }
    dense = data[argument]
    data[argument] = dense.to_sparse() if layout == "coo" else dense.to_sparse_csr()
    expected = rf"^{argument} is a sparse tensor \(layout torch.sparse_{layout}\), .*\.to_dense\(\)"
    statistic = BatchStatistic(notion="eo")
    for call in (
        lambda: statistic(data["y_pred"], data["sensitive_features"], data["y_true"]),
        lambda: faircocco_score(
            data["y_pred"], data["sensitive_features"], y_true=data["y_true"], notion="eo"
        ),
        lambda: independence_test(
            data["y_pred"], data["sensitive_features"], y_true=data["y_true"], notion="eo"
        ),
    ):
        with pytest.raises(TypeError, match=expected):
            call()
    if argument != "y_pred":
        with pytest.raises(TypeError, match=expected):
            statistic.fit(data["sensitive_features"], data["y_true"])
    # the advice works
    data[argument] = dense
    assert 0.0 <= faircocco_score(data["y_pred"], data["sensitive_features"]).item() <= 1.0
