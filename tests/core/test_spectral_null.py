"""The spectral null of the independence test: its weights, its tail, its level and its choice."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from reference import gaussian_kernel, product_kernel, r_matrix

from benchmarks.independence_test import sample
from faircocco_plugins import _api, independence_test
from faircocco_plugins._estimators.spectral_null import (
    ResidualFeatures,
    WeightedChiSquares,
    spectral_null,
)
from faircocco_plugins._options import Options
from faircocco_plugins._routes.problem import Problem

ALPHA = 0.05


def literal_weights(k_u, k_a, k_c, eps, conditioning_eps):
    """``N`` times the eigenvalues of the covariance of the residual products ``x_i ⊗ ẽ_i``,
    written out row by row from kernel matrices: ``x xᵀ = P R_u P`` and ``ẽ ẽᵀ = P R_e P``,
    ``P = I − R_c`` (``I`` under DP), ``R_e`` of ``K_A ∘ K_c`` under EO and CAL."""
    n = k_u.shape[0]
    if k_c is None:
        projector, k_e = np.eye(n), k_a
    else:
        projector, k_e = np.eye(n) - r_matrix(k_c, conditioning_eps), k_a * k_c
    x = _root(projector @ r_matrix(k_u, eps) @ projector)
    e = _root(projector @ r_matrix(k_e, eps) @ projector)
    products = np.array([np.kron(x[i], e[i]) for i in range(n)])
    covariance = np.cov(products.T, bias=True)
    return np.sort(n * np.linalg.eigvalsh(covariance))[::-1]


def _root(matrix):
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2)
    return vectors * np.sqrt(np.clip(values, 0.0, None))


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
def test_weights_are_those_of_the_literal_residual_products(monkeypatch, notion):
    """With every coordinate kept, the weights are ``N`` times the eigenvalues of the covariance
    of the residual products, from the paper's ``N × N`` operators, and nothing is left to the
    constant."""
    monkeypatch.setattr("faircocco_plugins._estimators.spectral_null.LEADING_TOLERANCE", 0.0)
    monkeypatch.setattr("faircocco_plugins._estimators.spectral_null.MOST_PRODUCTS", 10**6)
    rng = np.random.default_rng(3)
    n, eps, conditioning = 24, 0.5, 1e-2
    y_true = rng.normal(size=n)
    attributes = pd.DataFrame(
        {"a": y_true + rng.normal(size=n), "b": pd.Categorical(rng.integers(0, 3, n))}
    )
    y_pred = y_true + rng.normal(size=n)
    options = Options.check(
        notion=notion,
        method="exact",
        eps=eps,
        conditioning_eps=conditioning,
        attribute_kernel="product",
        bandwidth=1.0,
    )
    fit = Problem.from_arguments(y_pred, attributes, y_true, options).fit(1.0)
    (tail,) = spectral_null([fit.residual_features()]).tails
    assert isinstance(tail, WeightedChiSquares)
    k_pred, k_true = gaussian_kernel(y_pred, 1.0), gaussian_kernel(y_true, 1.0)
    k_a = product_kernel(attributes, 1.0)
    measured, given = {"dp": (k_pred, None), "eo": (k_pred, k_true), "cal": (k_true, k_pred)}[
        notion
    ]
    expected = literal_weights(measured, k_a, given, eps, conditioning)
    expected = expected[expected > 1e-12 * expected[0]]
    np.testing.assert_allclose(np.sort(tail.weights)[::-1], expected, rtol=1e-7, atol=0.0)
    assert tail.shift == pytest.approx(0.0, abs=1e-9 * expected.sum())


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
def test_lowrank_residual_features_are_the_exact_ones_on_discrete_data(notion):
    """Discrete columns are factored exactly, so the low-rank route's residualised features
    have the exact route's Grams ``P R_u P`` and ``P R_e P``."""
    rng = np.random.default_rng(4)
    n = 150
    y_true = rng.integers(0, 2, n).astype(np.float64)
    y_pred = (y_true + rng.integers(0, 2, n)).astype(np.float64)
    attributes = pd.DataFrame(
        {"s": rng.integers(0, 2, n).astype(bool), "g": pd.Categorical(rng.integers(0, 3, n))}
    )
    grams = []
    for method in ("exact", "lowrank"):
        options = Options.check(notion=notion, method=method, eps=1.0, conditioning_eps=1e-3)
        features = (
            Problem.from_arguments(y_pred, attributes, y_true, options).fit().residual_features()
        )
        grams.append([f @ f.T for f in (features.measured, features.attributes)])
    for exact, lowrank in zip(*grams, strict=True):
        np.testing.assert_allclose(lowrank, exact, atol=1e-10 * np.abs(exact).max())


WEIGHTS = {
    "geometric": 0.6 ** np.arange(20),
    "equal": np.ones(5),
    "two": np.array([1.0, 0.3]),
    # Johnson, Kotz and Balakrishnan's table 18.6, momentchi2's example
    "four": np.array([1.5, 1.5, 0.5, 0.5]),
    # one dominant weight over many small ones, the hardest for four moments
    "dominant": np.r_[5.0, np.full(200, 0.01)],
}


@pytest.mark.parametrize("name", list(WEIGHTS))
def test_the_lpb_tail_is_that_of_draws_of_the_weighted_sum(name):
    """The Lindsay-Pilla-Basak tail against 400,000 draws of ``Σ λ_k z_k²`` at their 90%, 95%
    and 99% quantiles: within 4 Monte Carlo standard errors plus 3% of the tail (measured: within
    2.6 standard errors everywhere but ``dominant`` at its 90% quantile, 3.2% or 6.8 standard
    errors above, where four moments fit a mixture of one χ²₁ and a near-constant least
    well)."""
    weights = WEIGHTS[name]
    rng = np.random.default_rng(5)
    draws = np.zeros(400_000)
    for weight in weights:
        draws += weight * rng.standard_normal(draws.size) ** 2
    tail = WeightedChiSquares(weights)
    for level in (0.9, 0.95, 0.99):
        statistic = float(np.quantile(draws, level))
        observed = float(np.mean(draws >= statistic))
        error = math.sqrt(observed * (1 - observed) / draws.size)
        assert tail.pvalue(statistic) == pytest.approx(observed, abs=4 * error + 0.03 * observed)


def test_one_weight_gives_the_exact_chi_square_tail_and_the_shift_moves_it():
    from scipy.stats import chi2

    tail = WeightedChiSquares(np.array([2.0]), shift=1.0)
    assert tail.pvalue(1.0 + 2.0 * 3.84) == pytest.approx(chi2.sf(3.84, 1), rel=1e-10)
    assert tail.pvalue(0.5) == 1.0
    assert WeightedChiSquares(np.array([]), shift=1.0).pvalue(1.5) == 0.0


def test_widths_are_combined_by_their_correlations():
    """Identical widths are one statistic: the smallest p-value is its own p-value; independent
    widths are not, and their combination lies between ``m`` and ``W m``."""
    rng = np.random.default_rng(6)
    x, e = rng.normal(size=(200, 2)), rng.normal(size=(200, 3))
    other = ResidualFeatures(rng.normal(size=(200, 2)), rng.normal(size=(200, 3)))
    same = spectral_null([ResidualFeatures(x, e)] * 2)
    np.testing.assert_allclose(same.correlation, np.ones((2, 2)), atol=1e-12)
    single = spectral_null([ResidualFeatures(x, e)]).pvalue([30.0])
    assert same.pvalue([30.0, 30.0]) == pytest.approx(single, rel=1e-3)
    mixed = spectral_null([ResidualFeatures(x, e), other])
    assert abs(mixed.correlation[0, 1]) < 0.3
    assert single <= mixed.pvalue([30.0, 1.0]) <= 2 * single


def test_the_null_is_the_same_when_its_scatter_is_summed_over_blocks_of_rows(monkeypatch):
    """The products' scatter summed over blocks of 7 rows, products centred on their mean
    over every row, gives the null of one block: the same weights, shifts (4 products kept of
    6) and correlation, to rounding."""
    monkeypatch.setattr("faircocco_plugins._estimators.spectral_null.MOST_PRODUCTS", 4)
    rng = np.random.default_rng(7)
    widths = [
        ResidualFeatures(rng.normal(size=(50, 2)), rng.normal(size=(50, 3)) + 2.0),
        ResidualFeatures(rng.normal(size=(50, 3)), rng.normal(size=(50, 2))),
    ]
    whole = spectral_null(widths)
    monkeypatch.setattr("faircocco_plugins._estimators.spectral_null.BLOCK_ROWS", 7)
    blocks = spectral_null(iter(widths))
    for one, summed in zip(whole.tails, blocks.tails, strict=True):
        assert isinstance(one, WeightedChiSquares) and isinstance(summed, WeightedChiSquares)
        np.testing.assert_allclose(summed.weights, one.weights, rtol=1e-14)
        assert one.shift > 0.0
        assert summed.shift == pytest.approx(one.shift, rel=1e-13)
    np.testing.assert_allclose(blocks.correlation, whole.correlation, rtol=1e-14)


#: The size check's settings: each notion with a binary and a continuous outcome (under DP,
#: the predictions), two mixed attributes, at the conditioning ridge ``null="auto"`` needs.
SIZE_SETTINGS = [f"{n}-{o}-a2" for n in ("dp", "eo", "cal") for o in ("binary", "continuous")]
SIZE_DRAWS = 200


@pytest.mark.slow
@pytest.mark.parametrize("setting", SIZE_SETTINGS)
def test_rejection_rate_of_fair_data_is_close_to_alpha(setting):
    """Over 200 seeded fair data sets of 100 rows, the spectral null rejects within 3 binomial
    standard errors of 5% (``3 √(0.05 · 0.95 / 200) = 0.046``)."""
    rejected = 0
    for seed in range(SIZE_DRAWS):
        s = sample(setting, 100, False, np.random.default_rng(seed))
        result = independence_test(
            s.y_pred,
            s.attribute,
            y_true=s.y_true,
            notion=s.notion,
            conditioning_eps=1e-3,
            null="spectral",
        )
        rejected += result.pvalue <= ALPHA
    tolerance = 3 * math.sqrt(ALPHA * (1 - ALPHA) / SIZE_DRAWS)
    assert rejected / SIZE_DRAWS == pytest.approx(ALPHA, abs=tolerance)


def test_permutations_with_the_spectral_null_are_refused():
    rng = np.random.default_rng(7)
    with pytest.raises(
        ValueError, match="n_permutations=199 asks for permutations, but null='spectral'"
    ):
        independence_test(
            rng.normal(size=50), rng.normal(size=50), n_permutations=199, null="spectral"
        )


def test_a_dependence_is_found_and_the_result_names_the_null():
    rng = np.random.default_rng(8)
    a = rng.normal(size=300)
    result = independence_test(a + rng.normal(size=300), a, null="spectral")
    assert result.null == "spectral"
    assert result.pvalue < 1e-6
    assert result.null_distribution.shape == (0, 1)


@pytest.mark.parametrize(
    ("setting", "n", "options", "expected"),
    [
        ("dp-continuous-a3", 300, {}, "spectral"),
        ("dp-binary-a1", 2000, {}, "spectral"),  # its asymptotic law only improves with N
        ("dp-continuous-a3", 299, {}, "gamma"),  # below 300 rows the gamma null
        ("dp-binary-a1", 99, {}, "permutation"),  # below the rows measured
        ("dp-binary-a1", 300, {"eps": 1e-4}, "permutation"),  # another eps
        # EO and CAL at the default conditioning ridge (1e-5) or any of at most 1e-3, up to
        # the rows measured
        ("eo-binary-a2", 300, {}, "spectral"),
        ("eo-continuous-a2", 300, {}, "spectral"),
        ("eo-continuous-a2", 300, {"conditioning_eps": 1e-3}, "spectral"),
        (
            "cal-binary-a1",
            1000,
            {"conditioning_eps": 1e-4, "attribute_kernel": "product"},
            "spectral",
        ),
        # up to 100,000 rows at the default widths and rank, 5,000 at others
        ("eo-continuous-a1", 100_000, {}, "spectral"),
        ("eo-continuous-a1", 100_001, {}, "permutation"),
        ("eo-continuous-a1", 5000, {"rank": None}, "spectral"),
        ("eo-continuous-a1", 5001, {"rank": None}, "permutation"),
        ("eo-continuous-a1", 5001, {"widths": (0.5, 1.0, 2.0)}, "permutation"),
        # below 300 rows with a continuous conditioning variable, the gamma null at the
        # default widths and rank
        ("eo-continuous-a2", 299, {}, "gamma"),
        ("eo-continuous-a2", 299, {"rank": 20}, "permutation"),
        ("eo-binary-a2", 299, {}, "gamma"),  # below 300 rows the gamma null
        ("eo-binary-a2", 300, {"conditioning_eps": 1e-2}, "permutation"),
        ("eo-binary-a2", 300, {"conditioning_eps": None}, "permutation"),  # the ridge of eps
    ],
)
def test_auto_takes_the_spectral_null_where_it_was_measured_calibrated(
    monkeypatch, setting, n, options, expected
):
    monkeypatch.setattr(_api, "PERMUTATIONS", 9)
    s = sample(setting, n, False, np.random.default_rng(0))
    result = independence_test(
        s.y_pred, s.attribute, y_true=s.y_true, notion=s.notion, random_state=0, **options
    )
    assert result.null == expected
