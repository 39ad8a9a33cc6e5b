"""BatchStatistic: the training-batch statistic with attribute and outcome kernels fitted once.

The checks on numpy inputs; those of torch tensors and their gradients are in
``test_batch_statistic_torch.py``, which needs torch.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist

from faircocco_plugins import BatchStatistic, faircocco_statistic


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


def test_a_batch_in_another_layout_than_the_fitted_data_is_rejected():
    rng = np.random.default_rng(4)
    statistic = BatchStatistic(notion="dp").fit(rng.integers(0, 2, 100).astype(float))
    with pytest.raises(ValueError, match="layout of the data given to fit"):
        statistic(rng.normal(size=100), pd.DataFrame({"group": rng.choice(["a", "b"], 100)}))


def _null_subtracted(pred, sensitive, y, notion, ridges):
    """The core's low-rank statistic minus its permutation null (the chance-adjusted value)."""
    from faircocco_plugins._options import Options
    from faircocco_plugins._routes.dispatch import call_terms

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
    terms = call_terms(pred, sensitive, None if notion == "dp" else y, None, options)["joint"]
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


def test_chance_adjusted_statistic_of_independent_predictions_averages_zero():
    rng = np.random.default_rng(4)
    n = 128
    train = rng.integers(0, 3, 2000).astype(float)
    statistic = BatchStatistic(notion="dp", chance_adjusted=True, eps=0.3).fit(train)
    plain = BatchStatistic(notion="dp", eps=0.3).fit(train)
    adjusted, raw = [], []
    # 1,000 batches (110 s on a loaded two-core machine): the raw floor stands about 50 standard
    # errors of the mean above zero, and a quarter of the batches would halve that margin and
    # double the bias the adjusted mean can hide within its 3
    for _ in range(1000):
        a, pred = rng.integers(0, 3, n).astype(float), rng.normal(size=n)
        adjusted.append(statistic(pred, a))
        raw.append(plain(pred, a))
    spread = np.std(adjusted) / np.sqrt(len(adjusted))
    assert abs(np.mean(adjusted)) < 3 * spread
    # the floor it removes is many standard errors above zero (measured: about 50)
    assert np.mean(raw) > 20 * spread


def _ages_and_predictions(rng: np.random.Generator, ages: np.ndarray) -> tuple[np.ndarray, ...]:
    sex = rng.integers(0, 2, ages.size).astype(float)
    return np.column_stack([ages, sex]), 0.02 * ages + sex + rng.normal(size=ages.size)


def test_a_batch_outside_the_range_of_a_narrow_first_batch_is_flagged():
    """Kernels fitted on a first batch of ages 29.5-31 measure a batch of ages 18-80 with
    pivots that say little about it: the penalty warns, naming the column and the fix."""
    rng = np.random.default_rng(0)
    statistic = BatchStatistic(notion="dp")
    narrow, pred = _ages_and_predictions(rng, rng.uniform(29.5, 31, 64))
    statistic(pred, narrow)
    wide, pred = _ages_and_predictions(rng, rng.uniform(18, 80, 64))
    with pytest.warns(UserWarning, match=r"values of 'sensitive_features\[0\]' lie outside"):
        statistic(pred, wide)


def test_a_penalty_fitted_on_the_training_data_does_not_warn_on_its_batches():
    rng = np.random.default_rng(1)
    training, _ = _ages_and_predictions(rng, rng.uniform(18, 80, 4000))
    statistic = BatchStatistic(notion="dp").fit(training)
    for rows in np.array_split(rng.permutation(4000), 60):
        pred = 0.02 * training[rows, 0] + rng.normal(size=rows.size)
        statistic(pred, training[rows])  # warnings are errors in this suite
