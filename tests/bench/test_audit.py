"""The auditor's metrics of the mixed-attribute study against literal computations."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from faircocco_plugins.bench import evaluate_predictions
from faircocco_plugins.bench._audit import (
    DCOR_RESAMPLES,
    attribute_matrix,
    audit_metrics,
    dcor_test,
    hsic_test,
)
from faircocco_plugins.bench._metrics import metric_range


def _rate_ratio(decisions: np.ndarray, groups: np.ndarray) -> float:
    """DI written out: the lowest over the highest positive rate of the groups."""
    rates = [decisions[groups == g].mean() for g in np.unique(groups)]
    return min(rates) / max(rates)


def test_groups_of_the_baselines_are_the_training_median_crossed_with_sex() -> None:
    train = pd.DataFrame({"sex": ["f", "m"] * 50, "age": np.arange(100.0)})  # median 49.5
    # per sex 40 rows below 49, 40 above 50 and 10 at 49.6: above the training median, but at
    # the part's own median (49.6), which would put them below; and 5 rows of a sex "x"
    ages = np.r_[np.linspace(45, 48.9, 40), np.linspace(50, 53.9, 40), np.full(10, 49.6)]
    part = pd.DataFrame(
        {"sex": ["f"] * 90 + ["m"] * 90 + ["x"] * 5, "age": np.r_[ages, ages, [60.0] * 5]}
    )
    groups = np.array(["f<="] * 40 + ["f>"] * 50 + ["m<="] * 40 + ["m>"] * 50 + ["x>"] * 5)
    rng = np.random.default_rng(0)
    rates = {"f<=": 0.2, "f>": 0.5, "m<=": 0.6, "m>": 0.7, "x>": 0.0}
    y_hat = rng.random(185) < np.array([rates[g] for g in groups])
    y = np.ones(185, dtype=int)
    metrics = evaluate_predictions(
        "classification", y, y_hat.astype(int), part, train_sensitive=train
    )
    # the group "x>" has 5 rows, fewer than 30: it is left out, as an intersection would be
    kept = groups != "x>"
    assert metrics["di_groups[median]"] == pytest.approx(_rate_ratio(y_hat[kept], groups[kept]))
    # every outcome is positive, so the true-positive rates are the positive rates
    tprs = [y_hat[groups == g].mean() for g in ("f<=", "f>", "m<=", "m>")]
    assert metrics["deo_groups[median]"] == pytest.approx(max(tprs) - min(tprs))
    # the quartiles of the training rows (24.75, 49.5, 74.25) put the same rows together here
    assert metrics["di_groups[quartiles]"] == metrics["di_groups[median]"]


def test_deciles_intersections_and_the_worst_grouping() -> None:
    rng = np.random.default_rng(1)
    n = 1000
    part = pd.DataFrame(
        {
            "region": rng.choice(["north", "south", "east"], n, p=[0.5, 0.4, 0.1]),
            "income": rng.uniform(0, 100, n),
        }
    )
    y_hat = rng.random(n) < np.where(part["region"] == "east", 0.2, 0.5) + part["income"] / 400
    y = np.ones(n, dtype=int)
    metrics = evaluate_predictions(
        "classification", y, y_hat.astype(int), part, train_sensitive=part
    )
    # deciles of income on the part: 10 groups of 100 rows
    deciles = pd.qcut(part["income"], 10).astype(str).to_numpy()
    assert metrics["di_deciles[income]"] == pytest.approx(_rate_ratio(y_hat, deciles))
    # intersections of region with income deciles, those of at least 30 rows only
    cells = part["region"].to_numpy() + "|" + deciles
    counts = pd.Series(cells).value_counts()
    kept = np.isin(cells, counts.index[counts >= 30])
    assert 2 <= kept.sum() < n  # some cells are left out, some kept
    assert metrics["di_intersections"] == pytest.approx(_rate_ratio(y_hat[kept], cells[kept]))
    # the worst: the smallest DI of region's levels, income's deciles and the intersections
    by_region = _rate_ratio(y_hat, part["region"].to_numpy())
    assert metrics["di_worst"] == pytest.approx(
        min(by_region, metrics["di_deciles[income]"], metrics["di_intersections"])
    )
    assert "di_deciles[region]" not in metrics  # a nominal attribute's groups are its levels
    assert metrics["deo_worst"] == pytest.approx(
        max(metrics["deo_deciles[income]"], metrics["deo_intersections"], metrics["deo[region]"])
    )


def test_one_attribute_has_no_intersections() -> None:
    part = pd.DataFrame({"age": np.linspace(0, 1, 100)})
    decisions = np.arange(100) % 2 == 0
    metrics = audit_metrics(decisions, decisions, decisions.astype(float), part, part)
    assert math.isnan(metrics["di_intersections"])
    assert metrics["di_worst"] == metrics["di_deciles[age]"]


def _gram(values: np.ndarray) -> np.ndarray:
    """The Gaussian kernel matrix, its width the median positive squared distance of pairs."""
    squared = ((values[:, None, :] - values[None, :, :]) ** 2).sum(axis=2)
    pairs = squared[np.triu_indices(len(values), 1)]
    return np.exp(-squared / np.median(pairs[pairs > 0]))


def test_hsic_and_its_gamma_p_value_against_the_formulas() -> None:
    rng = np.random.default_rng(0)
    n = 40
    x = rng.normal(size=(n, 1))
    y = np.column_stack([x[:, 0] ** 2 + rng.normal(size=n), rng.normal(size=n)])
    gram_x, gram_y = _gram(x), _gram(y)
    h = np.eye(n) - np.ones((n, n)) / n
    # the biased HSIC, tr(K H L H) / n²
    literal = np.trace(gram_x @ h @ gram_y @ h) / n**2
    # Gretton et al. (2008): the null's mean and variance of n · HSIC, and the gamma they fit
    kc, lc = h @ gram_x @ h, h @ gram_y @ h
    b = (kc * lc / 6) ** 2
    variance = (b.sum() - np.trace(b)) / (n * (n - 1))
    variance *= 72 * (n - 4) * (n - 5) / (n * (n - 1) * (n - 2) * (n - 3))
    mu_x = (gram_x.sum() - n) / (n * (n - 1))
    mu_y = (gram_y.sum() - n) / (n * (n - 1))
    mean = (1 + mu_x * mu_y - mu_x - mu_y) / n
    p_value = stats.gamma.sf(n * literal, mean**2 / variance, scale=n * variance / mean)
    assert hsic_test(x, y) == pytest.approx((literal, p_value), rel=1e-9)


def test_hsic_p_values_have_their_size_under_independence_and_power_under_dependence() -> None:
    rng = np.random.default_rng(2)
    independent = [
        hsic_test(rng.normal(size=(60, 1)), rng.normal(size=(60, 2)))[1] for _ in range(200)
    ]
    # 200 draws: the share below 0.05 is 0.05 ± 0.03 (two standard errors) at the right size
    assert 0.02 <= np.mean(np.array(independent) < 0.05) <= 0.08
    x = rng.normal(size=(60, 1))
    assert hsic_test(x, np.abs(x) + 0.3 * rng.normal(size=(60, 1)))[1] < 1e-3
    # a constant prediction is independent of everything
    assert hsic_test(np.ones((60, 1)), x) == (0.0, 1.0)


def test_distance_correlation_and_its_permutation_p_value() -> None:
    pytest.importorskip("dcor")
    rng = np.random.default_rng(3)
    n = 50
    x = rng.normal(size=(n, 1))
    y = np.column_stack([x[:, 0] ** 2, rng.normal(size=n)])

    def centred(values: np.ndarray) -> np.ndarray:
        distances = np.sqrt(((values[:, None, :] - values[None, :, :]) ** 2).sum(axis=2))
        return (
            distances - distances.mean(axis=0) - distances.mean(axis=1)[:, None] + distances.mean()
        )

    a, b = centred(x), centred(y)
    literal = np.sqrt((a * b).mean() / np.sqrt((a * a).mean() * (b * b).mean()))
    value, p_value = dcor_test(x, y, random_state=0)
    assert value == pytest.approx(literal, rel=1e-9)
    # dependent: no permutation reaches the statistic, the smallest p-value of the test
    assert p_value == pytest.approx(1 / (DCOR_RESAMPLES + 1))
    assert dcor_test(x, rng.normal(size=(n, 2)), random_state=0)[1] > 0.05
    # a constant prediction is independent of everything (every permutation ties with it)
    assert dcor_test(np.ones((n, 1)), y) == (0.0, 1.0)


def test_attributes_enter_the_estimators_one_hot_and_standardised() -> None:
    frame = pd.DataFrame(
        {"sex": pd.Categorical(["f", "m", "m", "f"]), "age": [20.0, 40.0, 60.0, 80.0]}
    )
    ages = (frame["age"] - 50) / frame["age"].std(ddof=0)
    expected = np.column_stack([[1, 0, 0, 1], [0, 1, 1, 0], ages])
    np.testing.assert_allclose(attribute_matrix(frame), expected)


def test_audited_runs_record_every_metric_within_its_range() -> None:
    pytest.importorskip("dcor")
    rng = np.random.default_rng(4)
    n = 2000  # more than the dependence estimators' 500 rows; intersections of 100 rows
    people = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "age": rng.uniform(18, 80, n)})
    y = rng.integers(0, 2, n)
    proba = np.clip(0.3 + 0.005 * people["age"] + 0.2 * rng.random(n), 0, 1)
    metrics = evaluate_predictions(
        "classification",
        y,
        (proba > 0.5).astype(int),
        people,
        proba=proba,
        notions=("dp",),
        train_sensitive=people,
    )
    audit = {
        k: v
        for k, v in metrics.items()
        if any(
            part in k
            for part in ("_groups", "_deciles", "_intersections", "_worst", "hsic", "dcor")
        )
    }
    # DI and DEO: 2 binned groupings, 1 decile grouping, intersections, the worst; 4 dependence
    assert len(audit) == 2 * 5 + 4
    for name, value in audit.items():
        low, high = metric_range(name)
        assert low <= value <= high, name
    # the probabilities follow age: both estimators find it
    assert metrics["hsic_p_value"] < 1e-3 and metrics["dcor_p_value"] < 0.05
