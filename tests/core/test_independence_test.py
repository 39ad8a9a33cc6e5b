"""The permutation test: its p-value formula, its level under the null and its power."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ks_2samp

from faircocco_plugins import (
    IndependenceTestResult,
    faircocco_score,
    faircocco_statistic,
    independence_test,
)

ALPHA = 0.05


def independent(n, rng):
    return rng.normal(size=n), np.column_stack([rng.normal(size=n), rng.integers(0, 2, n)])


@pytest.mark.slow
def test_rejection_rate_under_the_null_is_close_to_alpha():
    rng = np.random.default_rng(0)
    rejections = 0
    repetitions = 200
    for repetition in range(repetitions):
        y_pred, attributes = independent(300, rng)
        result = independence_test(y_pred, attributes, n_permutations=249, random_state=repetition)
        rejections += result.pvalue <= ALPHA
    assert 0.02 <= rejections / repetitions <= 0.08


@pytest.mark.slow
def test_eo_rejection_rate_under_conditional_independence_is_close_to_alpha():
    """Ŷ depends on A only through a binary Y: EO holds, although DP does not."""
    rng = np.random.default_rng(1)
    rejections = 0
    repetitions = 100
    for repetition in range(repetitions):
        attribute = rng.normal(size=200)
        y_true = (rng.random(200) < 1.0 / (1.0 + np.exp(-2.0 * attribute))).astype(np.float64)
        y_pred = y_true + rng.normal(scale=0.5, size=200)
        result = independence_test(
            y_pred,
            attribute,
            y_true=y_true,
            notion="eo",
            n_permutations=199,
            random_state=repetition,
        )
        rejections += result.pvalue <= ALPHA
    assert 0.01 <= rejections / repetitions <= 0.11


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_clear_dependence_is_rejected(notion):
    rng = np.random.default_rng(2)
    rejections = 0
    repetitions = 40
    for repetition in range(repetitions):
        n = 150
        attribute = rng.normal(size=n)
        y_true = (rng.random(n) < 0.5).astype(np.float64)
        y_pred = np.sin(2.0 * attribute) + attribute + y_true + rng.normal(scale=0.5, size=n)
        result = independence_test(
            y_pred,
            attribute,
            y_true=y_true,
            notion=notion,
            n_permutations=199,
            random_state=repetition,
        )
        rejections += result.pvalue <= ALPHA
    assert rejections >= 0.95 * repetitions


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
def test_pvalue_follows_its_formula(method, notion):
    rng = np.random.default_rng(3)
    n = 120
    attribute = rng.normal(size=n)
    y_true = (rng.random(n) < 0.5).astype(np.float64)
    y_pred = 0.2 * attribute + y_true + rng.normal(size=n)
    b = 299
    result = independence_test(
        y_pred,
        attribute,
        y_true=y_true,
        notion=notion,
        method=method,
        n_permutations=b,
        random_state=0,
        widths=(0.5, 1.0, 2.0),
        null="permutation",
    )
    assert isinstance(result, IndependenceTestResult)
    assert result.null == "permutation"
    assert result.widths == (0.5, 1.0, 2.0)
    assert result.null_distribution.shape == (b, 3)
    assert np.all(np.isfinite(result.null_distribution))
    # per-width p-values of every row of [observed; permuted], then the share of rows whose
    # smallest p-value is at most the observed one's, counted here one row at a time
    statistics = np.vstack([result.statistic, result.null_distribution])
    smallest = [min(np.mean(statistics[:, j] >= row[j]) for j in range(3)) for row in statistics]
    assert result.pvalue == pytest.approx(np.mean(smallest <= smallest[0]), abs=1e-15)
    assert 1 / (1 + b) <= result.pvalue <= 1.0
    # the test's statistic and score are at its own eps, 1.0, conditioning eps, 1e-5, and
    # rank, 10; width 1 is the score's kernel
    options = {"y_true": y_true, "notion": notion, "method": method}
    options |= {"eps": 1.0, "conditioning_eps": 1e-5, "rank": 10}
    assert result.statistic[1] == pytest.approx(
        faircocco_statistic(y_pred, attribute, **options), rel=1e-12
    )
    assert result.score == pytest.approx(faircocco_score(y_pred, attribute, **options), rel=1e-12)


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_one_width_gives_the_classical_permutation_pvalue(notion):
    rng = np.random.default_rng(3)
    n, b = 120, 299
    y_true = (rng.random(n) < 0.5).astype(np.float64)
    attribute = rng.normal(size=n)
    y_pred = 0.2 * attribute + y_true + rng.normal(size=n)
    options = {"y_true": y_true, "notion": notion, "n_permutations": b, "random_state": 0}
    options["null"] = "permutation"
    result = independence_test(y_pred, attribute, widths=(1.0,), **options)
    assert result.null_distribution.shape == (b, 1)
    exceed = np.sum(result.null_distribution[:, 0] >= result.statistic[0])
    assert result.pvalue == pytest.approx((1 + exceed) / (1 + b), abs=1e-15)
    aggregated = independence_test(y_pred, attribute, widths=(0.5, 1.0, 2.0), **options)
    # the same permutations at width 1 whatever the other widths
    np.testing.assert_array_equal(
        aggregated.null_distribution[:, 1], result.null_distribution[:, 0]
    )


def test_widths_find_both_smooth_and_fine_dependence():
    """A slope is seen best by wide kernels, a fast oscillation by narrow ones; the default
    widths find each where a single width misses one of them (fixed seeds, N = 600; measured
    p-values: fine 0.005 at width 0.5, 0.765 at 2, 0.01 aggregated; smooth 0.775, 0.005,
    0.015)."""
    rng = np.random.default_rng(8)
    n = 600
    options = {"n_permutations": 199, "random_state": 0, "null": "permutation"}
    attribute = rng.normal(size=n)
    fine = 0.4 * np.sin(4 * attribute) + rng.normal(size=n)
    smooth = 0.2 * attribute + rng.normal(size=n)
    pvalues = {
        (name, widths): independence_test(y_pred, attribute, widths=widths, **options).pvalue
        for name, y_pred in (("fine", fine), ("smooth", smooth))
        for widths in ((0.5,), (2.0,), (0.5, 1.0, 2.0))
    }
    assert pvalues[("fine", (0.5,))] <= ALPHA < pvalues[("fine", (2.0,))]
    assert pvalues[("smooth", (2.0,))] <= ALPHA < pvalues[("smooth", (0.5,))]
    assert pvalues[("fine", (0.5, 1.0, 2.0))] <= ALPHA
    assert pvalues[("smooth", (0.5, 1.0, 2.0))] <= ALPHA


@pytest.mark.parametrize("widths", [(), (1.0, 1.0), (0.0,), (-1.0, 2.0), "wide", 2.0])
def test_invalid_widths_are_refused(widths):
    with pytest.raises((TypeError, ValueError), match="widths"):
        independence_test(np.arange(10.0), np.arange(10.0) % 2, widths=widths)


def test_ties_with_the_observed_statistic_count_as_exceeding():
    """With 4 rows, many permutations reproduce the observed statistic up to rounding."""
    rng = np.random.default_rng(4)
    y_pred = rng.normal(size=4)
    attribute = rng.normal(size=4)
    b = 999
    result = independence_test(
        y_pred, attribute, n_permutations=b, random_state=0, widths=(1.0,), null="permutation"
    )
    observed, null = result.statistic[0], result.null_distribution[:, 0]
    tolerance = 1e-9 * abs(observed)
    ties = np.abs(null - observed) <= tolerance
    assert ties.sum() > 0
    exceed = np.sum(null >= observed - tolerance)
    assert result.pvalue == pytest.approx((1 + exceed) / (1 + b), abs=1e-15)


def test_eo_test_with_a_continuous_outcome_separates_dependence_from_fairness():
    rng = np.random.default_rng(5)
    n = 300
    attributes = np.column_stack([rng.normal(size=n), rng.integers(0, 3, n)])
    y_true = rng.normal(size=n) + attributes[:, 1]
    noise = rng.normal(size=n)
    options = {"y_true": y_true, "notion": "eo", "n_permutations": 99, "random_state": 1}
    options["null"] = "permutation"
    unfair = independence_test(y_true + attributes[:, 0] + noise, attributes, **options)
    assert unfair.pvalue == 1 / 100  # no permuted statistic reaches the observed one
    fair = independence_test(y_true + noise, attributes, **options)
    assert fair.pvalue > 0.05  # measured 0.25
    assert fair.null_distribution.shape == (99, 1)
    assert np.all(fair.null_distribution >= -1e-12)


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_null_distribution_is_that_of_explicitly_permuted_attributes(method, notion):
    """The null against statistics of data permuted here, independently of the package: all
    rows under DP, within the outcome's levels under EO (the attribute follows the outcome, so
    permuting across levels would give another distribution: KS p-value 4e-65)."""
    rng = np.random.default_rng(3)
    n, b = 120, 299
    y_true = (rng.random(n) < 0.5).astype(np.float64)
    attribute = rng.normal(size=n) + 1.5 * y_true
    y_pred = 0.2 * attribute + y_true + rng.normal(size=n)
    options = {"y_true": y_true, "notion": notion, "method": method}
    result = independence_test(
        y_pred,
        attribute,
        n_permutations=b,
        random_state=0,
        widths=(1.0,),
        null="permutation",
        **options,
    )
    permuting = np.random.default_rng(11)
    explicit = []
    for _ in range(b):
        order = permuting.permutation(n)
        if notion == "eo":
            order = np.arange(n)
            for level in (0.0, 1.0):
                rows = np.flatnonzero(y_true == level)
                order[rows] = permuting.permutation(rows)
        explicit.append(
            faircocco_statistic(y_pred, attribute[order], eps=1.0, conditioning_eps=1e-5, **options)
        )
    explicit = np.asarray(explicit)
    # measured KS p-values 0.21 (DP) and 0.90 (EO); means within 1.6 standard errors
    null = result.null_distribution[:, 0]
    assert ks_2samp(null, explicit).pvalue > 0.01
    standard_error = np.std(explicit) / np.sqrt(b)
    assert abs(np.mean(null) - np.mean(explicit)) < 4 * standard_error


def test_same_seed_same_result_and_different_seed_different_null():
    rng = np.random.default_rng(6)
    y_pred, attributes = independent(100, rng)
    options = {"n_permutations": 50, "null": "permutation"}
    first = independence_test(y_pred, attributes, random_state=3, **options)
    again = independence_test(y_pred, attributes, random_state=3, **options)
    other = independence_test(y_pred, attributes, random_state=4, **options)
    np.testing.assert_array_equal(first.null_distribution, again.null_distribution)
    assert first.pvalue == again.pvalue
    assert not np.array_equal(first.null_distribution, other.null_distribution)


@pytest.mark.parametrize(
    ("value", "error"), [(0, ValueError), (-5, ValueError), (10.0, TypeError), (True, TypeError)]
)
def test_invalid_number_of_permutations(value, error):
    rng = np.random.default_rng(7)
    y_pred, attributes = independent(20, rng)
    with pytest.raises(error, match="n_permutations"):
        independence_test(y_pred, attributes, n_permutations=value)


@pytest.mark.parametrize(("notion", "continuous"), [("dp", False), ("eo", False), ("eo", True)])
def test_the_null_does_not_depend_on_how_permutations_are_batched(monkeypatch, notion, continuous):
    """Stacks of 3 permutations (and a last stack of 1) give the null of one stack of all."""
    rng = np.random.default_rng(12)
    y_true = rng.normal(size=200) if continuous else rng.integers(0, 2, 200).astype(float)
    attribute = y_true + rng.normal(size=200)
    y_pred = y_true + rng.normal(size=200)
    truth = None if notion == "dp" else y_true
    options = {"y_true": truth, "notion": notion, "n_permutations": 10, "null": "permutation"}
    whole = independence_test(y_pred, attribute, random_state=4, **options)
    monkeypatch.setattr("faircocco_plugins._estimators.strata.PERMUTATION_BATCH_ROWS", 3 * 200)
    stacked = independence_test(y_pred, attribute, random_state=4, **options)
    np.testing.assert_allclose(stacked.null_distribution, whole.null_distribution, rtol=1e-12)
    assert stacked.pvalue == whole.pvalue


def constant_cases() -> list:
    """(notion, which variable is constant): a constant measured variable, a constant
    conditioning variable (the test is then that of the notion without conditioning) and
    constant attributes."""
    cases = [
        ("dp", "y_pred"),
        ("eo", "y_pred"),
        ("cal", "y_true"),
        ("cal", "y_pred"),
        ("eo", "y_true"),
        ("dp", "attributes"),
        ("eo", "attributes"),
    ]
    return [
        pytest.param(notion, constant, method, null, id=f"{notion}-{constant}-{method}-{null}")
        for notion, constant in cases
        for method in ("exact", "lowrank")
        for null in ("permutation", "gamma", "spectral")
    ]


@pytest.mark.parametrize(("notion", "constant", "method", "null"), constant_cases())
def test_a_constant_variable_gives_an_exact_zero_and_pvalue_one(notion, constant, method, null):
    """A constant variable's centred kernel is 0, so its operator is exactly 0, not rounding
    noise that every permuted statistic (exactly 0) would fall below.

    Where the conditioning variable is the constant one, the notion measures the other two
    alone, which are independent here: the p-value is that of an independent sample."""
    rng = np.random.default_rng(0)
    n = 300
    data = {
        "y_pred": rng.normal(size=n),
        "attributes": np.column_stack([rng.normal(size=n), rng.integers(0, 2, n)]),
        "y_true": rng.integers(0, 2, n).astype(float),
    }
    data[constant] = np.full_like(data[constant], 0.7)
    options = {"y_true": data["y_true"], "notion": notion, "method": method}
    permutations = {"n_permutations": 199} if null == "permutation" else {}
    result = independence_test(
        data["y_pred"], data["attributes"], random_state=0, null=null, **permutations, **options
    )
    if (constant == "y_pred" and notion == "cal") or (constant == "y_true" and notion == "eo"):
        assert result.pvalue > ALPHA
        return
    assert result.pvalue == 1.0
    assert result.score == 0.0
    assert np.all(result.statistic == 0.0)
    assert faircocco_score(data["y_pred"], data["attributes"], **options) == 0.0


def test_a_log_gets_the_progress_bar_once_finished(monkeypatch, capsys):
    """Off a terminal every redraw of a bar stays: a slow test (here a clock that moves a
    second per reading) would print its 100% line as it finishes and again as it closes."""
    import itertools

    import tqdm.std

    seconds = itertools.count()
    monkeypatch.setattr(tqdm.std, "time", lambda: float(next(seconds)))
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 200)
    independence_test(
        a + rng.normal(size=200), a, n_permutations=50, progress=True, null="permutation"
    )
    err = capsys.readouterr().err
    assert err.count("50/50") == 1


def test_asking_for_permutations_gets_the_permutation_null():
    """Where ``null="auto"`` would take the spectral null (DP, 300 rows, the default eps), a
    number of permutations asks for permutations: they were silently not drawn."""
    rng = np.random.default_rng(5)
    y_pred, attributes = independent(300, rng)
    assert independence_test(y_pred, attributes, random_state=0).null == "spectral"
    result = independence_test(y_pred, attributes, n_permutations=199, random_state=0)
    assert result.null == "permutation"
    assert result.null_distribution.shape == (199, 1)
    # a permutation p-value: a multiple of 1 / 200, from 1 / 200
    assert result.pvalue * 200 == pytest.approx(round(result.pvalue * 200), abs=1e-9)
    assert result.pvalue >= 1 / 200


def test_permutations_with_the_gamma_null_are_refused():
    rng = np.random.default_rng(6)
    y_pred, attributes = independent(300, rng)
    with pytest.raises(
        ValueError, match="n_permutations=199 asks for permutations, but null='gamma'"
    ):
        independence_test(y_pred, attributes, n_permutations=199, null="gamma")
