"""Properties of the score that follow from its definition.

Bounds (Cauchy-Schwarz), invariance to the order of the rows (of every answer: the score, the
report and the permutation test's statistic; pandas inputs pair by index label) and to affine
changes of units of a continuous column (the median bandwidth is scale-equivariant and the
Gaussian kernel depends on differences only), the value 1 for a deterministic invertible
relation, values near 0 under (conditional) independence, monotonicity in the noise level, and
one report row per attribute whatever its name.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from faircocco_plugins import (
    faircocco_report,
    faircocco_score,
    faircocco_statistic,
    independence_test,
)
from faircocco_plugins._options import Options
from faircocco_plugins._routes.problem import Problem

NOTIONS = ["dp", "eo", "cal"]

values = st.one_of(
    st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False),
    st.integers(-3, 3).map(float),
)


@st.composite
def raw_inputs(draw, min_rows=2, max_rows=40):
    """Arbitrary finite predictions, 1-3 attribute columns and outcomes (ties, constants...)."""
    n = draw(st.integers(min_rows, max_rows))
    y_pred = draw(hnp.arrays(np.float64, n, elements=values))
    attributes = draw(hnp.arrays(np.float64, (n, draw(st.integers(1, 3))), elements=values))
    y_true = draw(hnp.arrays(np.float64, n, elements=values))
    return y_pred, attributes, y_true


def terms_of(y_pred, attributes, y_true, **options):
    chosen = {
        "notion": "dp",
        "method": "exact",
        "rank": None,
        "eps": 1e-4,
        "attribute_kernel": "product",
        "bandwidth": "median",
        "random_state": None,
    }
    chosen.update(options)
    checked = Options.check(**chosen)
    truth = None if checked.notion == "dp" else y_true
    return Problem.from_arguments(y_pred, attributes, truth, checked).fit().terms


@settings(max_examples=60, deadline=None)
@given(
    data=raw_inputs(), notion=st.sampled_from(NOTIONS), method=st.sampled_from(["exact", "lowrank"])
)
def test_statistic_is_non_negative_and_the_score_is_the_clipped_estimate(data, notion, method):
    y_pred, attributes, y_true = data
    truth = None if notion == "dp" else y_true
    statistic = faircocco_statistic(y_pred, attributes, y_true=truth, notion=notion, method=method)
    assert np.isfinite(statistic)
    assert statistic >= -1e-9
    # the public score only clips the estimate's rounding; the bound itself is checked by
    # test_unclipped_score_obeys_cauchy_schwarz
    score = faircocco_score(y_pred, attributes, y_true=truth, notion=notion, method=method)
    estimate = float(terms_of(y_pred, attributes, y_true, notion=notion, method=method).score())
    # the same terms, summed in another order: equal to rounding (3e-17 measured)
    assert score == pytest.approx(min(max(estimate, 0.0), 1.0), rel=1e-12, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(data=raw_inputs(min_rows=3), notion=st.sampled_from(NOTIONS))
def test_unclipped_score_obeys_cauchy_schwarz(data, notion):
    """Before clipping, the exact score lies in [0, 1] up to rounding."""
    terms = terms_of(*data, notion=notion)
    score = float(terms.score())
    assert -1e-8 <= score <= 1.0 + 1e-8


def mixed_sample(n, seed, continuous_outcome=False):
    rng = np.random.default_rng(seed)
    attributes = pd.DataFrame(
        {
            "x": rng.normal(size=n),
            "w": rng.uniform(-2, 5, n),
            "g": rng.integers(0, 3, n),
            "s": rng.choice(["p", "q"], n),
        }
    )
    if continuous_outcome:
        y_true = attributes["x"].to_numpy() + rng.normal(size=n)
    else:
        y_true = (rng.random(n) < 0.3 + 0.1 * attributes["g"].to_numpy()).astype(np.float64)
    y_pred = np.sin(attributes["x"].to_numpy()) + 0.3 * attributes["w"].to_numpy() + y_true
    y_pred = y_pred + rng.normal(scale=0.7, size=n)
    # numpy outcomes and predictions: shuffled by position, they pair with the reset frame
    return y_pred, attributes, y_true


def answers(y_pred, attributes, y_true, **options):
    """Every public answer on the rows, by kind: ``scores`` (the score, the report's scores and
    the permutation test's observed score), ``statistics`` (the report's and the test's at each
    width) and ``chance`` (the adjusted score and the report's adjusted scores and null means,
    NaN in either order when an outcome of few rows per level leaves no chance level)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Too few rows for a chance level", UserWarning)
        report = faircocco_report(y_pred, attributes, y_true=y_true, **options)
        adjusted = faircocco_score(y_pred, attributes, y_true=y_true, adjusted=True, **options)
    test = independence_test(y_pred, attributes, y_true=y_true, n_permutations=1, **options)
    return {
        "scores": np.array(
            [
                faircocco_score(y_pred, attributes, y_true=y_true, **options),
                *report["score"],
                test.score,
            ]
        ),
        "statistics": np.array([*report["statistic"], *test.statistic]),
        "chance": np.array([adjusted, *report["adjusted"], *report["null_mean"]]),
    }


def shuffled_answers(seed, n, notion, continuous_outcome, **options):
    """:func:`answers` on a sample and on the same rows shuffled together."""
    y_pred, attributes, y_true = mixed_sample(n, seed, continuous_outcome)
    order = np.random.default_rng(seed + 1).permutation(n)
    truth = None if notion == "dp" else y_true
    before = answers(y_pred, attributes, truth, notion=notion, **options)
    after = answers(
        y_pred[order],
        attributes.iloc[order].reset_index(drop=True),
        None if truth is None else truth[order],
        notion=notion,
        **options,
    )
    return before, after


def assert_same_answers(before, after, kinds):
    for kind in kinds:
        # the same sums in another order (the rows are fitted in one canonical order): equal to
        # rounding
        np.testing.assert_allclose(after[kind], before[kind], rtol=1e-8, atol=1e-10, err_msg=kind)


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(5, 40),
    notion=st.sampled_from(NOTIONS),
    kernel=st.sampled_from(["product", "joint"]),
    continuous_outcome=st.booleans(),
)
def test_exact_answers_invariant_to_row_permutation(seed, n, notion, kernel, continuous_outcome):
    before, after = shuffled_answers(
        seed, n, notion, continuous_outcome, method="exact", attribute_kernel=kernel
    )
    assert_same_answers(before, after, ["scores", "statistics", "chance"])


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), notion=st.sampled_from(NOTIONS))
def test_lowrank_answers_invariant_to_row_permutation_to_rounding(seed, notion):
    # above 1,000 rows, where the bandwidths come from a sample of the rows
    before, after = shuffled_answers(seed, 1100, notion, False, method="lowrank")
    assert_same_answers(before, after, ["scores", "statistics", "chance"])


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(5, 40),
    notion=st.sampled_from(NOTIONS),
    permuted=st.sampled_from(["y_pred", "sensitive_features", "y_true"]),
)
def test_a_permuted_index_is_aligned_by_label(seed, n, notion, permuted):
    """Pandas inputs whose rows come in another order, with their labels, pair by label."""
    y_pred, attributes, y_true = mixed_sample(n, seed)
    inputs = {
        "y_pred": pd.Series(y_pred),
        "sensitive_features": attributes,
        "y_true": pd.Series(y_true),
    }
    # under DP too: a given y_true is aligned and checked
    options = {"notion": notion, "method": "exact", "y_true": inputs.pop("y_true")}
    expected = faircocco_score(*inputs.values(), **options)
    order = np.random.default_rng(seed + 1).permutation(n)
    if permuted in inputs:
        inputs[permuted] = inputs[permuted].iloc[order]
    else:
        options[permuted] = options[permuted].iloc[order]
    got = faircocco_score(*inputs.values(), **options)
    assert got == pytest.approx(expected, rel=1e-8, abs=1e-10)


column_names = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["joint", "y_pred", "sensitive_features", "sensitive_features[0]", ""]),
    st.integers(-5, 5),
)


@settings(max_examples=25, deadline=None)
@given(names=st.lists(column_names, min_size=1, max_size=4, unique_by=str))
def test_any_attribute_names_give_one_report_row_each_and_the_joint_row(names):
    rng = np.random.default_rng(0)
    n = 30
    attributes = pd.DataFrame(rng.normal(size=(n, len(names))), columns=names)
    y_pred = attributes.sum(axis=1).to_numpy() + rng.normal(size=n)
    report = faircocco_report(y_pred, attributes, method="exact")
    assert len(report) == len(names) + 1
    assert report.index[0] == "joint" and report.index.is_unique
    assert report["score"].iloc[0] == faircocco_score(y_pred, attributes, method="exact")
    for j, label in enumerate(report.index[1:]):
        assert label == str(names[j]) or label.startswith("sensitive_features[")
        alone = faircocco_score(y_pred, attributes.iloc[:, [j]], method="exact")
        assert report.loc[label, "score"] == pytest.approx(alone, rel=1e-12, abs=1e-15)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    notion=st.sampled_from(NOTIONS),
    target=st.sampled_from(["y_pred", "x", "w", "y_true"]),
    scale=st.floats(1e-3, 1e3),
    shift=st.floats(-100.0, 100.0),
    kernel=st.sampled_from(["product", "joint"]),
)
def test_exact_score_invariant_to_units_of_a_continuous_column(
    seed, notion, target, scale, shift, kernel
):
    """``c ↦ scale · (c + shift)``: a change of units and origin, offset at most ~100 spreads.

    The joint attribute kernel standardises each column before its one median distance, which
    otherwise the column with the largest units would set alone. Much larger offsets relative
    to the spread are the subject of the next test.
    """
    y_pred, attributes, y_true = mixed_sample(60, seed, continuous_outcome=True)
    options = {"notion": notion, "method": "exact", "attribute_kernel": kernel}
    before = faircocco_score(
        y_pred, attributes, y_true=None if notion == "dp" else y_true, **options
    )
    if target == "y_pred":
        y_pred = scale * (y_pred + shift)
    elif target == "y_true":
        y_true = scale * (y_true + shift)
    else:
        attributes = attributes.assign(**{target: scale * (attributes[target] + shift)})
    after = faircocco_score(
        y_pred, attributes, y_true=None if notion == "dp" else y_true, **options
    )
    assert after == pytest.approx(before, rel=1e-8, abs=1e-9)


@pytest.mark.parametrize("method", ["exact", "lowrank"])
def test_score_invariant_to_a_large_offset_of_one_of_two_columns(method):
    """Event times as Unix seconds or as seconds since midnight describe the same attribute.

    The Gaussian kernel depends on differences only, so the offset must not change the score.
    """
    rng = np.random.default_rng(3)
    n = 300
    seconds = rng.uniform(0, 86_400, n)
    age = rng.uniform(18, 80, n)
    y_pred = 1e-5 * seconds + 0.02 * age + rng.normal(size=n)
    since_midnight = np.column_stack([seconds, age])
    unix_time = np.column_stack([1.7e9 + seconds, age])
    expected = faircocco_score(y_pred, since_midnight, method=method)
    got = faircocco_score(y_pred, unix_time, method=method)
    assert got == pytest.approx(expected, rel=1e-8, abs=1e-9)


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("value", [1e5, 1e7])
def test_a_constant_extra_attribute_column_changes_nothing(method, value):
    """Under the product kernel a constant column multiplies the kernel by 1."""
    rng = np.random.default_rng(4)
    n = 300
    age = rng.uniform(18, 80, n)
    y_pred = 0.02 * age + rng.normal(size=n)
    expected = faircocco_score(y_pred, age, method=method)
    got = faircocco_score(y_pred, np.column_stack([np.full(n, value), age]), method=method)
    assert got == pytest.approx(expected, rel=1e-8, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(10, 120),
    a=st.floats(0.01, 100.0),
    sign=st.sampled_from([-1.0, 1.0]),
    b=st.floats(-50.0, 50.0),
)
def test_score_is_one_for_an_affine_function_of_the_attribute(seed, n, a, sign, b):
    attribute = np.random.default_rng(seed).normal(size=n)
    y_pred = sign * a * attribute + b
    assert faircocco_score(y_pred, attribute, method="exact") == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_independent_predictions_score_near_zero_at_2000_rows(seed):
    rng = np.random.default_rng(seed)
    n = 2000
    attributes = pd.DataFrame(
        {"x": rng.normal(size=n), "g": rng.choice(["a", "b", "c"], n), "z": rng.uniform(size=n)}
    )
    y_pred = rng.normal(size=n)
    assert faircocco_score(y_pred, attributes, method="lowrank") < 0.05
    assert faircocco_score(y_pred, attributes[["x"]], method="lowrank") < 0.05


@pytest.mark.parametrize("seed", [0, 1])
def test_eo_score_near_zero_when_predictions_depend_on_attribute_only_through_outcome(seed):
    rng = np.random.default_rng(seed)
    n = 2000
    attribute = rng.normal(size=n)
    y_true = (rng.random(n) < 1.0 / (1.0 + np.exp(-2.0 * attribute))).astype(np.float64)
    y_pred = y_true + rng.normal(scale=0.5, size=n)
    eo = faircocco_score(y_pred, attribute, y_true=y_true, notion="eo", method="lowrank")
    dp = faircocco_score(y_pred, attribute, method="lowrank")
    assert eo < 0.05
    # the same predictions do depend on the attribute unconditionally, and more than that
    assert dp > eo


@pytest.mark.parametrize("notion", ["dp", "eo"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_score_decreases_with_noise(notion, seed):
    rng = np.random.default_rng(seed)
    n = 500
    attribute = rng.normal(size=n)
    y_true = (rng.random(n) < 0.5).astype(np.float64)
    noise = rng.normal(size=n)
    signal = np.sin(2.0 * attribute) + attribute + y_true
    truth = None if notion == "dp" else y_true
    scores = [
        faircocco_score(signal + level * noise, attribute, y_true=truth, notion=notion)
        for level in (0.1, 0.3, 1.0, 3.0, 10.0)
    ]
    assert all(a > b for a, b in itertools.pairwise(scores)), scores
