"""The low-rank estimator against the exact one.

Continuous columns are approximated by a Nyström factor, so the scores agree closely but not
exactly; discrete columns (and discrete predictions and outcomes) are factored exactly over their
levels, so with only discrete variables the two estimators agree to rounding.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins import faircocco_report, faircocco_score, faircocco_statistic
from faircocco_plugins._estimators.cholesky import incomplete_cholesky, incomplete_cholesky_batch
from faircocco_plugins._estimators.pivots import MIN_TOLERANCE
from faircocco_plugins._kernels.registry import kernel_named

GAUSSIAN = kernel_named("gaussian")

ALL = ["age", "sex", "race", "region"]


@pytest.fixture(scope="module")
def table():
    """2000 rows: continuous, binary, 4-level categorical and string attributes."""
    rng = np.random.default_rng(2022)
    n = 2000
    frame = pd.DataFrame(
        {
            "age": rng.uniform(18, 80, n),
            "sex": rng.random(n) < 0.5,
            "race": pd.Categorical(rng.choice(["a", "b", "c", "d"], n)),
            "region": rng.choice(["north", "south", "east"], n),
        }
    )
    frame["y_true"] = (rng.random(n) < 0.3 + 0.3 * frame["sex"]).astype(np.float64)
    frame["y_pred"] = (
        0.02 * frame["age"]
        + 0.4 * frame["y_true"]
        + 0.3 * (frame["race"] == "a")
        + rng.normal(scale=0.5, size=n)
    )
    return frame


@pytest.mark.slow
@pytest.mark.parametrize(
    ("notion", "columns", "kernel"),
    [
        *(
            pytest.param(notion, ALL[:k], "product", id=f"{notion}-{k}")
            for notion in ("dp", "eo", "cal")
            for k in (1, 2, 3, 4)
        ),
        pytest.param("dp", ALL, "joint", id="dp-4-joint"),
    ],
)
def test_lowrank_score_is_close_to_exact_at_2000_rows(table, notion, columns, kernel):
    options = {
        "y_true": None if notion == "dp" else table["y_true"],
        "notion": notion,
        "attribute_kernel": kernel,
    }
    exact = faircocco_score(table["y_pred"], table[columns], method="exact", **options)
    lowrank = faircocco_score(table["y_pred"], table[columns], method="lowrank", **options)
    assert 0.0 < exact < 1.0
    # measured: at most 5.0e-6 (EO with all four attributes)
    assert abs(lowrank - exact) <= 1e-5


def discrete_table(n: int, seed: int) -> tuple[pd.Series, pd.DataFrame, pd.Series]:
    """Discrete attributes of every kind, discrete predictions and outcomes."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "binary": rng.integers(0, 2, n).astype(np.float64),
            "flag": rng.random(n) < 0.3,
            "group": pd.Categorical(rng.choice(["a", "b", "c", "d"], n)),
            "city": rng.choice(["x", "y", "z"], n),
            "band": rng.integers(0, 4, n),
        }
    )
    y_true = pd.Series((rng.random(n) < 0.3 + 0.4 * frame["flag"]).astype(np.int64))
    label = y_true + frame["binary"] + (frame["group"] == "a") + rng.integers(0, 2, n)
    y_pred = pd.Series(np.minimum(label, 2).astype(np.float64))
    return y_pred, frame, y_true


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
@pytest.mark.parametrize("kernel", ["product", "joint"])
@pytest.mark.parametrize("k", [1, 3, 5])
def test_lowrank_is_exact_for_discrete_variables(notion, kernel, k):
    y_pred, frame, y_true = discrete_table(300, 17 + k)
    attributes = frame.iloc[:, :k]
    options = {
        "y_true": None if notion == "dp" else y_true,
        "notion": notion,
        "attribute_kernel": kernel,
    }
    for function in (faircocco_score, faircocco_statistic):
        exact = function(y_pred, attributes, method="exact", **options)
        lowrank = function(y_pred, attributes, method="lowrank", **options)
        assert math.isclose(lowrank, exact, rel_tol=1e-8, abs_tol=1e-8), (function, exact, lowrank)


def test_auto_uses_exact_below_threshold_and_lowrank_above(table):
    """``method="auto"`` equals one of the two estimators, whichever it picks."""
    small = table.iloc[:100]
    auto = faircocco_score(small["y_pred"], small[ALL])
    assert auto == faircocco_score(small["y_pred"], small[ALL], method="exact")
    large = table.iloc[:600]
    auto = faircocco_score(large["y_pred"], large[ALL])
    assert auto == faircocco_score(large["y_pred"], large[ALL], method="lowrank")


def test_rank_cap_bounds_the_factor_and_converges(table):
    """A tiny ``rank`` gives a cruder approximation; the default is close to the exact value."""
    part = table.iloc[:500]
    exact = faircocco_score(part["y_pred"], part[["age"]], method="exact")
    crude = faircocco_score(part["y_pred"], part[["age"]], method="lowrank", rank=2)
    fine = faircocco_score(part["y_pred"], part[["age"]], method="lowrank")
    assert abs(fine - exact) <= 1e-3
    assert abs(crude - exact) > abs(fine - exact)


@pytest.mark.parametrize("columns", [1, 2])
def test_incomplete_cholesky_is_the_nystrom_factor_within_the_tolerance(columns):
    rng = np.random.default_rng(columns)
    z = np.concatenate([rng.normal(size=(150, columns)), np.round(rng.normal(size=(50, columns)))])
    pivots, factor = incomplete_cholesky(z, GAUSSIAN, MIN_TOLERANCE, 100)
    assert np.unique(pivots).size == pivots.size
    kernel = GAUSSIAN.gram(z, z)
    landmarks = kernel[np.ix_(pivots, pivots)]
    nystrom = kernel[:, pivots] @ np.linalg.inv(np.linalg.cholesky(landmarks)).T
    np.testing.assert_allclose(factor, nystrom, atol=1e-8)
    assert np.max(1.0 - np.sum(factor**2, axis=1)) <= MIN_TOLERANCE
    assert np.max(np.abs(kernel - factor @ factor.T)) <= 2 * MIN_TOLERANCE


def test_batched_incomplete_cholesky_is_each_members_factor_zero_padded():
    """Members of different spread need different ranks; each gets its own factor."""
    rng = np.random.default_rng(7)
    z = rng.normal(size=(5, 200, 2)) * np.array([0.3, 1.0, 2.0, 0.1, 1.5])[:, None, None]
    batch = incomplete_cholesky_batch(z, GAUSSIAN, 1e-3, 100)
    ranks = []
    for member, factor in zip(z, batch, strict=True):
        _, alone = incomplete_cholesky(member, GAUSSIAN, 1e-3, 100)
        ranks.append(alone.shape[1])
        np.testing.assert_allclose(factor[:, : alone.shape[1]], alone, rtol=0, atol=1e-13)
        assert not np.any(factor[:, alone.shape[1] :])
    assert batch.shape[2] == max(ranks) > min(ranks)


def test_probabilities_over_many_orders_of_magnitude_condition_without_error():
    # a network's probabilities: most within 1e-60 of 0, so the median distance is tiny and
    # the scaled predictions huge; under CAL they share a Gaussian with age, whose kernel lost
    # every digit to rounding and made the landmarks' Gram matrix not positive definite
    rng = np.random.default_rng(0)
    n = 5000
    p = np.where(rng.random(n) < 0.9, 10 ** rng.uniform(-60, 0, n), rng.random(n))
    people = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "age": rng.uniform(18, 80, n)})
    y = (rng.random(n) < p).astype(float)
    score = faircocco_score(p, people, y_true=y, notion="cal")
    assert 0.0 <= score < 0.01  # y follows p alone: calibrated and fair


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
@pytest.mark.parametrize("eps", [1e-2, 0.3, 1.0, 100.0])
def test_pivot_tolerance_follows_eps_with_one_relative_accuracy(table, notion, eps):
    """A larger ε gets a looser incomplete Cholesky and fewer pivots, at the same relative
    distance from the exact statistic as the score's ε (at 1e-4 up to 4e-5 measured)."""
    part = table.iloc[:600]
    options = {"y_true": part["y_true"], "notion": notion, "eps": eps}
    exact = faircocco_statistic(part["y_pred"], part[["age", "sex"]], method="exact", **options)
    lowrank = faircocco_statistic(part["y_pred"], part[["age", "sex"]], method="lowrank", **options)
    # measured from 8e-6 (ε = 1e-2) to 5.9e-4 (ε = 1, CAL)
    assert lowrank == pytest.approx(exact, rel=1e-3)
    ranks = {
        e: faircocco_report(
            part["y_pred"], part[["age", "sex"]], method="lowrank", **{**options, "eps": e}
        ).loc["joint", "rank"]
        for e in (1e-4, eps)
    }
    assert ranks[eps] < ranks[1e-4]


# --- features wider than the data ---------------------------------------------------------------
# A variable's low-rank features have its level combinations times its continuous pivots
# columns: 200 levels of a category beside a continuous column made 3,168 columns at 1,000 rows
# (35 s, where the exact estimator takes 2 s), and the joint kernel's one-hot columns of 300
# levels, 25,600 columns (over 16 GB, unfinished after minutes).


def many_levels(n, levels, seed=0, continuous=("age",)):
    """Predictions depending on a category of ``levels`` levels and continuous attributes."""
    rng = np.random.default_rng(seed)
    group = pd.Categorical(rng.integers(0, levels, n))
    numbers = {name: rng.uniform(18, 80, n) for name in continuous}
    y_pred = (group.codes % 5) * 0.2 + sum(numbers.values()) / 40 + rng.normal(size=n)
    return y_pred, pd.DataFrame({"group": group, **numbers})


@pytest.mark.parametrize("kernel", ["product", "joint"])
def test_auto_takes_the_exact_estimator_for_features_wider_than_the_rows(kernel):
    y_pred, attributes = many_levels(400, 60)
    report = faircocco_report(y_pred, attributes, attribute_kernel=kernel)
    assert report.loc["joint", "method"] == "exact"
    exact = faircocco_score(y_pred, attributes, attribute_kernel=kernel, method="exact")
    assert report.loc["joint", "score"] == exact
    # the attributes alone are narrow: low-rank
    assert report.loc["age", "method"] == "lowrank"


def test_features_wider_than_the_limit_are_refused_with_what_to_do():
    # two continuous columns need several times the pivots of one; up to 2,048 rows the joint
    # kernel would be pivoted instead (at most as wide as the rows)
    y_pred, attributes = many_levels(5000, 250, continuous=("age", "income"))
    with pytest.raises(
        ValueError,
        match=r"features of sensitive_features .* would be [\d,]+ columns wide \(250 level "
        r"combinations .* times \d+ pivots .* more than the 4,096 .* rank=",
    ):
        faircocco_score(y_pred, attributes, method="lowrank")
    # the advice works: fewer pivots make narrower features
    assert 0.0 < faircocco_score(y_pred, attributes, method="lowrank", rank=4) < 1.0


def test_a_stream_with_features_wider_than_the_limit_is_refused():
    y_pred, attributes = many_levels(12_000, 250, seed=1, continuous=("age", "income"))
    frame = attributes.assign(y_pred=y_pred)
    chunks = (frame.iloc[start : start + 4000] for start in range(0, len(frame), 4000))
    with pytest.raises(ValueError, match=r"features of sensitive_features .* more than the 4,096"):
        faircocco_score("y_pred", ["group", "age", "income"], data=chunks)


@pytest.mark.parametrize("method", ["auto", "lowrank"])
def test_the_joint_kernel_refuses_more_level_combinations_than_it_factors(method):
    y_pred, attributes = many_levels(1000, 300)
    with pytest.raises(
        ValueError, match=r"too many level combinations .* sensitive_features column 'group'"
    ):
        faircocco_score(y_pred, attributes, attribute_kernel="joint", method=method)
    assert faircocco_score(y_pred, attributes, attribute_kernel="joint", method="exact") > 0.05


# --- features no wider than the rows ------------------------------------------------------------
# Levels times pivots can be wider than the data: 8 level combinations of a binary and a 4-level
# attribute times 72 pivots of age and a continuous outcome made the extended attributes 576
# columns wide at 300 rows, and every solve larger than N × N. The joint kernel is pivoted once.


def mixed_eo(n, seed=0):
    """Age, a binary and a 4-level attribute (floats), a continuous outcome and predictions."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(18, 80, n)
    sex = rng.integers(0, 2, n).astype(np.float64)
    region = rng.integers(0, 4, n).astype(np.float64)
    y_true = 0.04 * (age - 49) + 0.8 * sex + rng.normal(size=n)
    y_pred = y_true + 0.05 * (age - 49) + sex + rng.normal(scale=0.7, size=n)
    return y_pred, np.column_stack([age, sex, region]), y_true


def test_levels_inside_the_pivoted_kernel_leave_features_no_wider_than_the_rows():
    from faircocco_plugins._options import Options
    from faircocco_plugins._routes.problem import Problem

    y_pred, attributes, y_true = mixed_eo(300)
    options = Options.check(notion="eo", method="lowrank")
    fit = Problem.from_arguments(y_pred, attributes, y_true, options).fit()
    # 274 columns where levels times pivots made 576
    assert fit.terms.rank <= 300
    exact = faircocco_score(y_pred, attributes, y_true=y_true, notion="eo", method="exact")
    lowrank = faircocco_score(y_pred, attributes, y_true=y_true, notion="eo", method="lowrank")
    # measured 1.7e-5 relative (levels times pivots: 1.7e-5)
    assert lowrank == pytest.approx(exact, rel=5e-5)


def mixed_input(nominal: bool, kernel: str):
    """120 rows of two continuous columns and a binary one, and with ``nominal`` a 3-level
    nominal column beside them."""
    from faircocco_plugins._kernels.kernel import KernelInput

    rng = np.random.default_rng(3)
    n = 120
    z = np.column_stack([rng.normal(size=n), rng.integers(0, 2, n), rng.normal(size=n)])
    codes, levels = None, ()
    if nominal:  # a 3-level nominal column beside the numeric ones
        codes, levels = rng.integers(0, 3, (n, 1)), (np.array(["a", "b", "c"]),)
    return KernelInput(z, codes, levels, kernel=kernel_named(kernel))


@pytest.mark.parametrize("nominal", [False, True])
def test_the_joint_factor_is_the_nystrom_factor_of_the_product_kernel(nominal):
    from faircocco_plugins._estimators.feature_map import FeatureMap
    from faircocco_plugins._kernels.kernel import kernel_matrix

    k = mixed_input(nominal, "gaussian")
    n = k.n
    feature_map = FeatureMap(None, MIN_TOLERANCE, pivot_jointly=True)
    group_codes, factor = feature_map.fit_transform(k, np.zeros(()))
    assert feature_map.is_joint and not np.any(group_codes)
    kernel = kernel_matrix(k, np.zeros(()))  # the literal product kernel
    pivots = feature_map._pivots
    nystrom = (
        kernel[:, pivots] @ np.linalg.inv(np.linalg.cholesky(kernel[np.ix_(pivots, pivots)])).T
    )
    np.testing.assert_allclose(factor, nystrom, atol=1e-8)
    assert factor.shape[1] <= n
    assert np.max(np.diag(kernel) - np.sum(factor**2, axis=1)) <= MIN_TOLERANCE
    # and new rows are mapped with their levels
    np.testing.assert_allclose(feature_map.factor(k, np.zeros(())), factor, atol=1e-10)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
@pytest.mark.parametrize("nominal", [False, True])
def test_the_complete_factor_reproduces_the_kernel_to_rounding_whatever_the_row_order(
    nominal, kernel
):
    from faircocco_plugins._estimators.cholesky import complete_cholesky
    from faircocco_plugins._estimators.feature_map import FeatureMap
    from faircocco_plugins._kernels.kernel import kernel_matrix

    k = mixed_input(nominal, kernel)
    n, z = k.n, k.z
    rng = np.random.default_rng(4)
    feature_map = FeatureMap(None, 0.0, complete=True)
    _, factor = feature_map.fit_transform(k, np.zeros(()))
    gram = factor @ factor.T
    # measured: within 7e-16 of the literal product kernel
    np.testing.assert_allclose(gram, kernel_matrix(k, np.zeros(())), rtol=0, atol=4e-15)
    # the Nyström rows of the same input (how new rows are mapped): within 1.4e-15
    rows = feature_map.factor(k, np.zeros(()))
    np.testing.assert_allclose(rows @ rows.T, gram, rtol=0, atol=7e-15)
    # pivots are chosen on values, so permuted rows give the permuted factor
    order = rng.permutation(n)
    pivots, alone = complete_cholesky(z, kernel_named(kernel))
    permuted_pivots, permuted = complete_cholesky(z[order], kernel_named(kernel))
    assert sorted(order[permuted_pivots].tolist()) == sorted(pivots.tolist())
    np.testing.assert_array_equal(permuted, alone[order])


def test_refitted_joint_features_of_the_same_attributes_give_the_observed_statistic():
    from faircocco_plugins._options import Options
    from faircocco_plugins._routes.problem import Problem

    y_pred, attributes, y_true = mixed_eo(200, seed=1)
    options = Options.check(notion="eo", method="lowrank")
    fit = Problem.from_arguments(y_pred, attributes, y_true, options).fit()
    identity = np.arange(200)
    # the local null's refit of unpermuted attributes is the observed fit
    assert fit.permuted_statistics(identity[None, :])[0] == pytest.approx(
        fit.terms.statistic, rel=1e-9
    )


@pytest.mark.parametrize(
    ("n", "widths", "exact"),
    [
        (300, [13, 576, 13], True),  # levels times pivots wider than the rows
        (1000, [13, 704, 13], False),  # narrower: the low-rank algebra is the cheaper
        (2000, [15, 736, 15], False),
        (20_000, [16, 5000, 17], False),  # beyond the exact estimator's limit
    ],
)
def test_auto_takes_the_route_its_cost_model_estimates_faster(n, widths, exact):
    from faircocco_plugins._options import Options
    from faircocco_plugins._routes.choose import Measured, ScoreRoute, choose_route
    from faircocco_plugins._routes.problem import Problem

    y_pred, attributes, y_true = mixed_eo(n)
    problem = Problem.from_arguments(y_pred, attributes, y_true, Options.check(notion="eo"))
    measured = Measured(ScoreRoute.MEASURED_LOWRANK, widths=tuple(widths))
    assert (choose_route(problem, measured) is ScoreRoute.EXACT) is exact
