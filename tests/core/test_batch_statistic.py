"""BatchStatistic: the training-batch statistic with attribute and outcome kernels fitted once."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist

from faircocco_plugins import BatchStatistic, faircocco_statistic, standardise

torch = pytest.importorskip("torch")


def _batch(rng: np.random.Generator, n: int) -> tuple[np.ndarray, pd.DataFrame, np.ndarray]:
    sex = rng.integers(0, 2, n)
    race = rng.choice(["a", "b", "c"], n)
    age = rng.normal(40, 12, n)
    y = rng.integers(0, 2, n)
    pred = 0.8 * sex + 0.3 * y + 0.01 * age + rng.normal(size=n)
    return pred, pd.DataFrame({"sex": sex.astype(float), "race": race, "age": age}), y


@pytest.mark.parametrize("notion", ["dp", "eo"])
@pytest.mark.parametrize("columns", [["sex"], ["sex", "race", "age"]])
@pytest.mark.parametrize("kernel", ["product", "joint"])
def test_value_on_the_fitting_batch_equals_the_lowrank_statistic(notion, columns, kernel):
    pred, sensitive, y = _batch(np.random.default_rng(0), 300)
    if kernel == "joint":
        # the joint kernel takes numbers: one-hot race, as an encoder would
        sensitive = pd.get_dummies(sensitive, columns=["race"], dtype=float)
        columns = [c for c in sensitive.columns if c.split("_")[0] in columns]
    statistic = BatchStatistic(notion=notion, attribute_kernel=kernel)
    value = statistic(pred, sensitive[columns], y)
    expected = faircocco_statistic(
        pred, sensitive[columns], y_true=y, notion=notion, method="lowrank", attribute_kernel=kernel
    )
    assert value == pytest.approx(expected, rel=1e-9, abs=1e-12)


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


def test_later_batches_use_the_attribute_kernels_fitted_on_training_data():
    rng = np.random.default_rng(2)
    _, train_s, train_y = _batch(rng, 1000)  # 1000 rows: the median heuristic uses them all
    statistic = BatchStatistic(notion="eo").fit(train_s, train_y)
    # continuous ages: the first batch's rows are weighted table rows, the second's (with more
    # known rows than it has) are taken row by row
    for _ in range(2):
        pred, sensitive, y = _batch(rng, 200)
        value = statistic(pred, sensitive, y)
        # the same kernels by hand: age at the training median distance, the predictions at
        # the batch's; 0/1 columns have bandwidth 1 either way (the gap between their values)
        scaled = sensitive.assign(age=sensitive["age"] / np.median(pdist(train_s[["age"]])))
        expected = faircocco_statistic(
            pred / np.median(pdist(pred[:, None])),
            scaled,
            y_true=y,
            notion="eo",
            method="exact",
            bandwidth=1.0,
        )
        assert value == pytest.approx(expected, rel=1e-4)
    own = BatchStatistic(notion="eo")(pred, sensitive, y)
    assert abs(own - value) > 1e-3 * value  # the batch's own age bandwidth gives another value


def test_a_level_unseen_when_fitting_is_added_exactly():
    rng = np.random.default_rng(3)
    pred, sensitive, _ = _batch(rng, 400)
    seen = sensitive["race"] != "c"
    statistic = BatchStatistic(notion="dp").fit(sensitive.loc[seen, ["race"]])
    value = statistic(pred, sensitive[["race"]])
    expected = faircocco_statistic(pred, sensitive[["race"]], method="lowrank")
    # a delta kernel needs no bandwidth, so the new level changes nothing but the level set
    assert value == pytest.approx(expected, rel=1e-9)


def _first_batch_cases() -> list:
    """(notion, first batch's attributes, outcomes) with a constant column, for batches of 128
    rows whose attributes are ages and a 0/5 indicator, and whose outcomes are continuous."""
    n = 128
    age = np.full((n, 1), 40.0)
    indicator = np.zeros((n, 1))
    y = np.linspace(0.0, 1.0, n)
    return [
        pytest.param(notion, age, y, id=f"{notion}-constant-age") for notion in ("dp", "eo")
    ] + [
        pytest.param("dp", indicator, y, id="dp-indicator-with-one-value"),
        pytest.param("eo", np.linspace(20.0, 60.0, n)[:, None], np.zeros(n), id="eo-constant-y"),
    ]


@pytest.mark.parametrize(("notion", "first_sensitive", "first_y"), _first_batch_cases())
def test_a_first_batch_with_a_constant_column_does_not_fix_the_kernels(
    notion, first_sensitive, first_y
):
    rng = np.random.default_rng(5)
    n = 128
    width = first_sensitive.shape[1]
    sensitive = rng.normal(40.0, 12.0, (n, width))
    if not first_sensitive.any():
        sensitive = 5.0 * rng.integers(0, 2, (n, width)).astype(float)
    y = rng.normal(size=n)
    pred = sensitive[:, 0] / 10.0 + y + rng.normal(size=n)
    statistic = BatchStatistic(notion=notion)
    statistic(rng.normal(size=n), first_sensitive, first_y)
    assert not statistic.is_fitted
    value = statistic(pred, sensitive, y)
    # the kernels of the first batch in which every column varies: those of a fresh statistic
    assert value == pytest.approx(BatchStatistic(notion=notion)(pred, sensitive, y), rel=1e-9)
    assert statistic.is_fitted
    statistic(pred, first_sensitive, first_y)
    assert statistic(pred, sensitive, y) == pytest.approx(value, rel=1e-9)


def test_fit_keeps_the_kernels_of_a_column_constant_in_the_training_data():
    statistic = BatchStatistic(notion="dp").fit(np.column_stack([np.zeros(50), np.arange(50)]))
    assert statistic.is_fitted


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


def test_constant_predictions_give_zero():
    rng = np.random.default_rng(4)
    a = rng.integers(0, 2, 128)
    assert BatchStatistic(notion="dp")(np.ones(128), a) == pytest.approx(0.0, abs=1e-12)


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="calibration"):
        BatchStatistic(notion="cal")
    with pytest.raises(ValueError, match="notion"):
        BatchStatistic(notion="xx")
    with pytest.raises(ValueError, match="y_true is required"):
        BatchStatistic(notion="eo").fit(np.zeros(10))
    with pytest.raises(TypeError, match="y_pred must be numeric"):
        BatchStatistic(notion="dp")(np.array(["a", "b"] * 5), np.arange(10.0))
    with pytest.raises(ValueError, match="needs numeric sensitive features"):
        BatchStatistic(notion="dp", attribute_kernel="joint").fit(np.array(["a", "b"] * 5))
    with pytest.raises(ValueError, match="NaN"):
        BatchStatistic(notion="dp")(np.array([np.nan, 1.0, 2.0]), np.arange(3.0))
    with pytest.raises(ValueError, match=r"same length|rows"):
        BatchStatistic(notion="dp").fit(np.arange(5.0))(np.arange(4.0), np.arange(3.0))


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


def test_a_batch_in_another_layout_than_the_fitted_data_is_rejected():
    rng = np.random.default_rng(4)
    statistic = BatchStatistic(notion="dp").fit(rng.integers(0, 2, 100).astype(float))
    with pytest.raises(ValueError, match="layout of the data given to fit"):
        statistic(rng.normal(size=100), pd.DataFrame({"group": rng.choice(["a", "b"], 100)}))


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


def _null_subtracted(pred, sensitive, y, notion, ridges):
    """The core's low-rank statistic minus its permutation null (the chance-adjusted value)."""
    from faircocco_plugins._api import _terms
    from faircocco_plugins._options import Options

    options = Options.check(
        notion=notion,
        method="lowrank",
        rank=None,
        eps=ridges.get("eps", 1e-4),
        conditioning_eps=ridges.get("conditioning_eps"),
        attribute_kernel="product",
        bandwidth="median",
        random_state=None,
    )
    terms = _terms(pred, sensitive, None if notion == "dp" else y, None, options)["joint"]
    return float(terms.statistic) - terms.null_statistic


@pytest.mark.parametrize("notion", ["dp", "eo"])
@pytest.mark.parametrize("columns", [["sex"], ["sex", "race"], ["sex", "race", "age"]])
@pytest.mark.parametrize("ridges", [{}, {"eps": 0.3, "conditioning_eps": 1e-4}])
def test_chance_adjusted_value_is_the_statistic_minus_its_permutation_null(notion, columns, ridges):
    pred, sensitive, y = _batch(np.random.default_rng(0), 300)
    value = BatchStatistic(notion=notion, chance_adjusted=True, **ridges)(
        pred, sensitive[columns], y
    )
    expected = _null_subtracted(pred, sensitive[columns], y, notion, ridges)
    statistic = faircocco_statistic(
        pred, sensitive[columns], y_true=y, notion=notion, method="lowrank", **ridges
    )
    # pivots and ridge solves round differently, by up to 8e-8 of the statistic (measured over
    # seeds, numpy 2.4 with its OpenBLAS), which the subtracted null leaves on a smaller value
    assert value == pytest.approx(expected, rel=0, abs=2e-7 * statistic)


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


def test_chance_adjusted_statistic_of_independent_predictions_averages_zero():
    rng = np.random.default_rng(4)
    n = 128
    train = rng.integers(0, 3, 2000).astype(float)
    statistic = BatchStatistic(notion="dp", chance_adjusted=True, eps=0.3).fit(train)
    plain = BatchStatistic(notion="dp", eps=0.3).fit(train)
    adjusted, raw = [], []
    for _ in range(1000):
        a, pred = rng.integers(0, 3, n).astype(float), rng.normal(size=n)
        adjusted.append(statistic(pred, a))
        raw.append(plain(pred, a))
    spread = np.std(adjusted) / np.sqrt(len(adjusted))
    assert abs(np.mean(adjusted)) < 3 * spread
    # the floor it removes is many standard errors above zero (measured: about 50)
    assert np.mean(raw) > 20 * spread
