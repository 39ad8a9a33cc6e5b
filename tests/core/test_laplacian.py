"""The Laplacian kernel: its exact score against the paper's formula with the Laplacian Gram
matrix, its low-rank score against its exact one, and its Gram gradient against autograd."""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference import statistic_and_score

from faircocco_plugins import (
    BatchStatistic,
    faircocco_report,
    faircocco_score,
    faircocco_statistic,
)
from faircocco_plugins._kernels.registry import kernel_named

LAPLACIAN = kernel_named("laplacian")
#: The low-rank estimator's documented agreement with the exact one (how-it-works, "Low-rank
#: estimator"): within 1e-3 relative, measured for the Gaussian from ε = 1e-4 to 1.
LOWRANK_TOLERANCE = 1e-3


def median_city_block(x: np.ndarray) -> float:
    """Median of the pairwise city-block distances over all pairs ``i < j`` (1 if all are 0)."""
    x = np.asarray(x, dtype=np.float64).reshape(len(x), -1)
    distances = np.concatenate(
        [np.sum(np.abs(x[i + 1 :] - x[i]), axis=1) for i in range(len(x) - 1)]
    )
    median = float(np.median(distances))
    if median > 0:
        return median
    nonzero = distances[distances > 0]
    return float(np.median(nonzero)) if nonzero.size else 1.0


def laplacian_kernel(x: np.ndarray) -> np.ndarray:
    """``K_ij = exp(−‖x_i − x_j‖₁ / σ)``, with ``σ`` the median city-block distance."""
    x = np.asarray(x, dtype=np.float64).reshape(len(x), -1)
    sigma = median_city_block(x)
    return np.array([np.exp(-np.sum(np.abs(row - x), axis=1) / sigma) for row in x])


def product_laplacian(columns: np.ndarray) -> np.ndarray:
    """Product of per-column Laplacian kernels, each with its own bandwidth."""
    kernel = np.ones((len(columns), len(columns)))
    for j in range(columns.shape[1]):
        kernel = kernel * laplacian_kernel(columns[:, j])
    return kernel


def data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A continuous and a binary attribute, two columns of predictions, a continuous outcome."""
    rng = np.random.default_rng(seed)
    attributes = np.column_stack([rng.normal(size=n), rng.integers(0, 2, n)]).astype(float)
    y_true = attributes[:, 0] + rng.normal(size=n)
    signal = 0.5 * attributes[:, 0] + 0.5 * attributes[:, 1] + y_true
    y_pred = np.column_stack([signal + rng.normal(size=n), rng.normal(size=n)])
    return y_pred, attributes, y_true


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
def test_the_exact_laplacian_score_is_the_paper_s_formula_with_the_laplacian_gram(notion):
    y_pred, attributes, y_true = data(120, seed=1)
    k_pred, k_true = laplacian_kernel(y_pred), laplacian_kernel(y_true)
    k_a = product_laplacian(attributes)
    u, c = (k_true, k_pred) if notion == "cal" else (k_pred, k_true)
    expected = statistic_and_score(u, k_a, None if notion == "dp" else c)
    options = {"notion": notion, "method": "exact", "kernel": "laplacian"}
    got = (
        faircocco_statistic(y_pred, attributes, y_true=y_true, **options),
        faircocco_score(y_pred, attributes, y_true=y_true, **options),
    )
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_the_lowrank_laplacian_score_agrees_with_the_exact_one_at_the_default_rank(notion):
    """At the default rank, to the low-rank estimator's documented tolerance for the Gaussian
    (with the Gaussian's cap of 100 pivots the DP score was 0.372 against 0.620 at 300 rows)."""
    y_pred, attributes, y_true = data(300, seed=2)
    scores = [
        faircocco_score(
            y_pred[:, 0], attributes, y_true=y_true, notion=notion, method=m, kernel="laplacian"
        )
        for m in ("exact", "lowrank")
    ]
    assert math.isclose(*scores, rel_tol=LOWRANK_TOLERANCE), scores


def test_the_laplacian_s_gram_gradient_is_autograd_s():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(40, 3)), rng.normal(size=(7, 3))
    weights = rng.normal(size=(40, 7)) * LAPLACIAN.gram(a, b)
    d_a, d_b = LAPLACIAN.gram_gradient(weights, a, b)
    ta = torch.tensor(a, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    gram = LAPLACIAN.gram(ta, tb)
    # a function of K whose gradient in K is weights / K, so that dK ∘ K = weights
    torch.sum(torch.tensor(weights) / gram.detach() * gram).backward()
    np.testing.assert_allclose(d_a, ta.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(d_b, tb.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_the_laplacian_batch_gradient_is_the_finite_difference_of_its_statistic():
    """The host route's closed form, through the Laplacian's Gram gradient, against central
    differences of the statistic (the kernel is smooth away from ties, which continuous
    predictions do not have). A fixed bandwidth: under the median heuristic the gradient is
    taken through standardised predictions, which is not the statistic's own."""
    rng = np.random.default_rng(4)
    n = 64
    a = rng.normal(size=n)
    statistic = BatchStatistic(notion="dp", kernel="laplacian", eps=0.3, bandwidth=1.0).fit(a)
    torch = pytest.importorskip("torch")
    values = a + rng.normal(size=n)
    pred = torch.tensor(values, requires_grad=True)
    statistic(pred, a).backward()
    direction = rng.normal(size=n)
    step = 1e-6
    up = statistic(values + step * direction, a)
    down = statistic(values - step * direction, a)
    numeric = (up - down) / (2 * step)
    analytic = float(pred.grad.numpy() @ direction)
    assert math.isclose(analytic, numeric, rel_tol=1e-7), (analytic, numeric)


def test_an_unknown_kernel_is_a_value_error_that_lists_the_registered_ones():
    with pytest.raises(
        ValueError, match=r"kernel='matern' is not valid; .*'gaussian', 'laplacian'"
    ):
        faircocco_score(np.arange(10.0), np.arange(10.0) % 2, kernel="matern")


def test_the_laplacian_s_frequencies_give_random_fourier_features_of_its_kernel():
    """Bochner: ``2 E[cos(ω·z + b) cos(ω·z′ + b)] = k(z − z′)`` for ``ω`` from the spectral
    density (here Cauchy per column), as the fairlearn moment's features need."""
    rng = np.random.default_rng(5)
    z = rng.normal(size=(6, 2))
    features = 100_000
    omega = LAPLACIAN.frequencies(rng, (2, features))
    phase = rng.uniform(0.0, 2 * np.pi, features)
    rows = np.sqrt(2.0 / features) * np.cos(z @ omega + phase)
    # Monte Carlo error about √(2/D) ≈ 0.0045
    np.testing.assert_allclose(rows @ rows.T, LAPLACIAN.gram(z, z), atol=0.015)


def test_auto_takes_the_exact_estimator_without_factoring_where_the_factor_is_as_wide(
    monkeypatch,
):
    """At the default rank the Laplacian's factor may hold as many pivots as rows: ``"auto"``
    goes exact without factoring first (at 1,000 rows the factor took 19 s, exact 1.3 s)."""
    from faircocco_plugins._estimators import feature_map

    def refused(*args, **kwargs):
        raise AssertionError("factored")

    monkeypatch.setattr(feature_map, "incomplete_cholesky", refused)
    y_pred, attributes, _ = data(300, seed=6)
    report = faircocco_report(y_pred[:, 0], attributes, kernel="laplacian")
    assert set(report["method"]) == {"exact"}
