"""The closed-form permutation null and the chance-adjusted score.

The null mean is the expected statistic when the attribute rows (for EO the rows of ``(A, Y)``
within the strata of ``Y``) are permuted uniformly. It is checked against a full enumeration of
the permutations on tiny samples, against the DP identity ``Tr R_Ŷ Tr R_A / (N - 1)``, and
against Monte Carlo means of 2000 permutations.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from reference import gaussian_kernel, r_matrix
from threadpoolctl import threadpool_limits

from faircocco_plugins import faircocco_report, faircocco_score, faircocco_statistic
from faircocco_plugins._options import Options
from faircocco_plugins._routes.problem import Problem, problem_roles, strata_of


@pytest.fixture(autouse=True)
def one_blas_thread():
    """The internals are called directly here, outside the public functions' BLAS limit."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def make_problem(y_pred, attributes, y_true, notion, method):
    options = Options.check(
        notion=notion,
        method=method,
        rank=None,
        eps=1e-4,
        attribute_kernel="product",
        bandwidth="median",
        random_state=None,
    )
    problem = Problem.from_arguments(
        y_pred, attributes, None if notion == "dp" else y_true, options
    )
    # permutations index the rows as the fit holds them: in their canonical order
    return problem.in_row_order


def ordered_arrays(problem):
    """``y_pred``, the attributes and ``y_true`` (None under DP) in the fitted row order."""
    truth = None if problem.truth is None else problem.truth.numeric[:, 0]
    return problem.pred.numeric[:, 0], problem.sensitive.numeric, truth


def strata(problem, notion):
    return strata_of(problem_roles(notion, problem, problem.scalings()))


def sample(n, seed, dependent=True):
    rng = np.random.default_rng(seed)
    attributes = np.column_stack([rng.normal(size=n), rng.integers(0, 3, n)]).astype(np.float64)
    y_true = (rng.random(n) < 0.3 + 0.2 * attributes[:, 1]).astype(np.float64)
    y_pred = y_true + rng.normal(size=n)
    if dependent:
        y_pred = y_pred + attributes[:, 0]
    return y_pred, attributes, y_true


def within_strata_permutations(labels):
    """Every permutation of ``range(n)`` that keeps each row in its stratum."""
    groups = [np.flatnonzero(labels == s) for s in np.unique(labels)]
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        permutation = np.arange(len(labels))
        for rows, image in zip(groups, choice, strict=True):
            permutation[rows] = image
        yield permutation


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize(("notion", "n"), [("dp", 6), ("eo", 8)])
def test_null_statistic_is_the_mean_over_all_permutations(method, notion, n):
    rng = np.random.default_rng(5)
    y_pred = rng.normal(size=n)
    attributes = rng.normal(size=(n, 2))
    y_true = np.array([0.0, 1.0] * (n // 2))
    problem = make_problem(y_pred, attributes, y_true, notion, method)
    fit = problem.fit()
    labels = strata(problem, notion)
    _, _, y_true = ordered_arrays(problem)
    if notion == "eo":
        assert len(np.unique(labels)) == 2
        assert all(len(np.unique(y_true[labels == s])) == 1 for s in np.unique(labels))
    values = fit.permuted_statistics(np.stack(list(within_strata_permutations(labels))))
    assert fit.terms.null_statistic == pytest.approx(np.mean(values), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_identity_permutation_gives_the_statistic(method, notion):
    y_pred, attributes, y_true = sample(150, 1)
    fit = make_problem(y_pred, attributes, y_true, notion, method).fit()
    assert fit.permuted_statistics(np.arange(150)[None])[0] == pytest.approx(
        float(fit.terms.statistic), rel=1e-10
    )


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_permuted_statistics_are_the_statistic_of_permuted_attributes(notion):
    """Permuting ``(A, Y)`` within strata of ``Y`` is permuting ``A`` within those strata."""
    y_pred, attributes, y_true = sample(120, 2)
    problem = make_problem(y_pred, attributes, y_true, notion, "exact")
    fit = problem.fit()
    labels = strata(problem, notion)
    y_pred, attributes, y_true = ordered_arrays(problem)
    rng = np.random.default_rng(0)
    permutation = np.arange(120)
    for s in np.unique(labels):
        rows = np.flatnonzero(labels == s)
        permutation[rows] = rng.permutation(rows)
    direct = faircocco_statistic(
        y_pred,
        attributes[permutation],
        y_true=None if notion == "dp" else y_true,
        notion=notion,
        method="exact",
    )
    assert fit.permuted_statistics(permutation[None])[0] == pytest.approx(direct, rel=1e-9)


def test_dp_null_statistic_matches_the_trace_identity():
    """For DP, ``E[Tr(R_Ŷ Π R_A Πᵀ)] = Tr R_Ŷ Tr R_A / (N - 1)`` (centred matrices)."""
    y_pred, attributes, _ = sample(90, 3)
    attribute = attributes[:, 0]
    fit = make_problem(y_pred, attribute, None, "dp", "exact").fit()
    r_pred = r_matrix(gaussian_kernel(y_pred))
    r_attribute = r_matrix(gaussian_kernel(attribute))
    expected = np.trace(r_pred) * np.trace(r_attribute) / (90 - 1)
    assert fit.terms.null_statistic == pytest.approx(expected, rel=1e-8)


@pytest.mark.parametrize(
    ("notion", "method", "n"),
    [("dp", "exact", 150), ("dp", "lowrank", 400), ("eo", "exact", 150), ("eo", "lowrank", 400)],
)
def test_null_statistic_agrees_with_2000_permutations(notion, method, n):
    y_pred, attributes, y_true = sample(n, 4)
    problem = make_problem(y_pred, attributes, y_true, notion, method)
    fit = problem.fit()
    labels = strata(problem, notion)
    members = [np.flatnonzero(labels == s) for s in np.unique(labels)]
    if notion == "eo":
        assert len(members) == 2
    rng = np.random.default_rng(10)
    permutations = np.tile(np.arange(n), (2000, 1))
    for permutation in permutations:
        for rows in members:
            permutation[rows] = rng.permutation(rows)
    values = fit.permuted_statistics(permutations)
    assert fit.terms.null_statistic == pytest.approx(values.mean(), rel=0.03)


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_report_null_mean_is_null_statistic_over_the_score_denominator(notion):
    y_pred, attributes, y_true = sample(200, 6)
    report = faircocco_report(
        y_pred, attributes, y_true=None if notion == "dp" else y_true, notion=notion
    )
    terms = make_problem(y_pred, attributes, y_true, notion, "auto").fit().terms
    joint = report.loc["joint"]
    ratio = joint["statistic"] / joint["score"]  # the score's denominator
    assert joint["null_mean"] == pytest.approx(terms.null_statistic / ratio, rel=1e-9)
    assert 0.0 < joint["null_mean"] < joint["score"]


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_adjusted_score_near_zero_under_independence_at_every_size(notion):
    raw_means = {}
    for n in (100, 300, 2000):
        raw, adjusted = [], []
        for seed in range(8):
            y_pred, attributes, y_true = sample(n, 100 + seed, dependent=False)
            options = {"y_true": None if notion == "dp" else y_true, "notion": notion}
            raw.append(faircocco_score(y_pred, attributes[:, 0], **options))
            adjusted.append(faircocco_score(y_pred, attributes[:, 0], adjusted=True, **options))
        assert 0.0 <= min(adjusted)
        assert np.mean(adjusted) < 0.05, (n, adjusted)
        raw_means[n] = np.mean(raw)
    # the raw score has a floor that shrinks with N; the adjusted score does not need it
    assert raw_means[100] > raw_means[300] > raw_means[2000]
    assert raw_means[100] > 5 * raw_means[2000]


@pytest.mark.parametrize("n", [100, 2000])
def test_adjusted_score_stays_large_under_dependence(n):
    rng = np.random.default_rng(7)
    attribute = rng.normal(size=n)
    y_pred = attribute + 0.5 * rng.normal(size=n)
    raw = faircocco_score(y_pred, attribute)
    adjusted = faircocco_score(y_pred, attribute, adjusted=True)
    assert adjusted > 0.2
    assert adjusted < raw


def test_adjusted_score_is_one_when_the_score_is_one():
    attribute = np.random.default_rng(8).normal(size=150)
    assert faircocco_score(3.0 * attribute - 1.0, attribute, method="exact") == pytest.approx(
        1.0, abs=1e-6
    )
    assert faircocco_score(
        3.0 * attribute - 1.0, attribute, method="exact", adjusted=True
    ) == pytest.approx(1.0, abs=1e-6)


TOO_FEW = "Too few rows for a chance level"


def assert_no_chance_level(y_pred, attributes, match=TOO_FEW, **options):
    """The adjusted score and the report's adjusted scores and null means are NaN, with the
    warning ``match``; the raw scores stay finite."""
    with pytest.warns(UserWarning, match=match):
        adjusted = faircocco_score(y_pred, attributes, adjusted=True, **options)
    assert np.isnan(adjusted)
    with pytest.warns(UserWarning, match=match):
        report = faircocco_report(y_pred, attributes, **options)
    assert report["adjusted"].isna().all()
    assert report["null_mean"].isna().all()
    assert np.isfinite(report["score"]).all()
    assert np.isfinite(faircocco_score(y_pred, attributes, **options))


@pytest.mark.parametrize("method", ["exact", "lowrank"])
def test_two_rows_have_no_chance_level(method):
    """At 2 rows every centred operator is a multiple of one matrix: every permutation gives
    score 1, the null mean is 1, and the adjusted score would be 0/0 (it gave 1.0 or 0.0)."""
    assert_no_chance_level([0.3, 0.9], [1.0, 2.0], method=method)


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("notion", ["eo", "cal"])
@pytest.mark.parametrize(
    "given",
    [[0.0, 1.0, 2.0, 3.0], [0.0, 0.0, 1.0, 2.0], [0.5, 0.5]],
    ids=["one-row-levels", "one-pair", "two-rows"],
)
def test_levels_that_leave_at_most_one_pair_to_swap_have_no_chance_level(method, notion, given):
    """Under EO and CAL the rows are permuted within levels of the conditioning variable (the
    outcome, or the predictions): with every level of one row but at most one of two, no
    permutation changes the score."""
    other = [0.3, 0.9, 0.5, 0.7][: len(given)]
    attribute = [1.0, 2.0, 3.0, 4.0][: len(given)]
    y_pred, y_true = (other, given) if notion == "eo" else (given, other)
    assert_no_chance_level(y_pred, attribute, y_true=y_true, notion=notion, method=method)


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("notion", ["eo", "cal"])
def test_two_pairs_of_rows_within_levels_have_a_chance_level(method, notion):
    given, other = [0.0, 0.0, 1.0, 1.0], [0.3, 0.9, 0.5, 0.7]
    y_pred, y_true = (other, given) if notion == "eo" else (given, other)
    options = {"y_true": y_true, "notion": notion, "method": method}
    report = faircocco_report(y_pred, [1.0, 2.0, 4.0, 3.0], **options)
    assert np.isfinite(report["adjusted"]).all()
    assert np.isfinite(report["null_mean"]).all()


@pytest.mark.parametrize("method", ["exact", "lowrank"])
def test_labels_that_tell_every_row_apart_have_no_chance_level(method):
    """Delta kernels on labels that differ in every row are invariant under every permutation:
    the null mean is 1 at any N, and the adjusted score 0/0 (it gave 0.0)."""
    y_pred = pd.Categorical([f"p{i}" for i in range(5)])
    attribute = pd.Categorical([f"a{i}" for i in range(5)])
    assert_no_chance_level(
        y_pred, attribute, match="chance level of the score is undefined", method=method
    )


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize(
    ("y_pred", "attribute"),
    [([0.3, 0.9, 0.5], [1.0, 2.0, 3.0]), ([0.5, 0.5], [1.0, 2.0]), ([0.3, 0.9], [1.0, 1.0])],
    ids=["three-rows", "constant-predictions", "constant-attribute"],
)
def test_three_rows_and_constant_variables_keep_a_defined_adjusted_score(method, y_pred, attribute):
    """3 rows have a chance level; a constant variable scores 0, and so adjusts to 0, at any N."""
    report = faircocco_report(y_pred, attribute, method=method)
    assert np.isfinite(report["adjusted"]).all()
    assert np.isfinite(report["null_mean"]).all()
    if len(y_pred) == 2:
        assert (report["adjusted"] == 0.0).all()
        assert faircocco_score(y_pred, attribute, adjusted=True, method=method) == 0.0
