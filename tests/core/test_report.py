"""The per-attribute report: its layout and its agreement with the score."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins import faircocco_report, faircocco_score, faircocco_statistic

COLUMNS = ["score", "adjusted", "null_mean", "statistic", "method", "rank", "n"]


def table(n, seed):
    rng = np.random.default_rng(seed)
    attributes = pd.DataFrame(
        {
            "sex": rng.choice(["f", "m"], n),
            "age": rng.uniform(18, 80, n),
            "race": pd.Categorical(rng.choice(["a", "b", "c"], n)),
            "disabled": rng.random(n) < 0.2,
        }
    )
    y_true = (rng.random(n) < 0.3 + 0.3 * (attributes["sex"] == "m")).astype(np.float64)
    y_pred = 0.01 * attributes["age"] + y_true + rng.normal(scale=0.5, size=n)
    return y_pred.to_numpy(), attributes, y_true


CASES = [
    pytest.param("dp", "auto", "product", 150, id="dp-exact"),
    pytest.param("eo", "auto", "product", 150, id="eo-exact"),
    pytest.param("cal", "exact", "joint", 120, id="cal-exact-joint"),
    pytest.param("dp", "auto", "product", 600, id="dp-lowrank"),
    pytest.param("eo", "lowrank", "joint", 400, id="eo-lowrank-joint"),
]


@pytest.mark.parametrize(("notion", "method", "kernel", "n"), CASES)
def test_report_rows_are_the_scores(notion, method, kernel, n):
    y_pred, attributes, y_true = table(n, n)
    options = {
        "y_true": None if notion == "dp" else y_true,
        "notion": notion,
        "method": method,
        "attribute_kernel": kernel,
    }
    report = faircocco_report(y_pred, attributes, **options)
    assert list(report.index) == ["joint", "sex", "age", "race", "disabled"]
    assert list(report.columns) == COLUMNS
    assert report.loc["joint", "score"] == pytest.approx(
        faircocco_score(y_pred, attributes, **options), rel=1e-12, abs=1e-15
    )
    assert report.loc["joint", "statistic"] == pytest.approx(
        faircocco_statistic(y_pred, attributes, **options), rel=1e-12
    )
    assert report.loc["joint", "adjusted"] == pytest.approx(
        faircocco_score(y_pred, attributes, adjusted=True, **options), rel=1e-12, abs=1e-15
    )
    for name in attributes.columns:
        assert report.loc[name, "score"] == pytest.approx(
            faircocco_score(y_pred, attributes[[name]], **options), rel=1e-12, abs=1e-15
        ), name
        assert report.loc[name, "statistic"] == pytest.approx(
            faircocco_statistic(y_pred, attributes[[name]], **options), rel=1e-12, abs=1e-15
        ), name


@pytest.mark.parametrize(("notion", "method", "kernel", "n"), CASES)
def test_report_adjusted_column_follows_its_formula(notion, method, kernel, n):
    y_pred, attributes, y_true = table(n, n + 1)
    report = faircocco_report(
        y_pred,
        attributes,
        y_true=None if notion == "dp" else y_true,
        notion=notion,
        method=method,
        attribute_kernel=kernel,
    )
    score, null = report["score"], report["null_mean"]
    expected = np.maximum(0.0, (score - null) / (1.0 - null))
    np.testing.assert_allclose(report["adjusted"], expected, rtol=1e-12, atol=1e-15)
    assert ((report["score"] >= 0) & (report["score"] <= 1)).all()
    assert ((report["null_mean"] >= 0) & (report["null_mean"] < 1)).all()


@pytest.mark.parametrize(
    ("n", "method", "expected"), [(100, "auto", "exact"), (600, "auto", "lowrank")]
)
def test_report_method_rank_and_n(n, method, expected):
    y_pred, attributes, _ = table(n, 3)
    report = faircocco_report(y_pred, attributes, method=method)
    assert (report["method"] == expected).all()
    assert (report["n"] == n).all()
    # the exact estimator's features are as wide as their kernel matrix's numerical rank
    assert report["rank"].between(1, n).all()
    # a binary nominal attribute is factored exactly over its two levels
    assert report.loc["sex", "rank"] <= report.loc["joint", "rank"]


def test_report_of_unnamed_array_columns():
    rng = np.random.default_rng(4)
    attributes = rng.normal(size=(80, 2))
    y_pred = attributes[:, 0] + rng.normal(size=80)
    report = faircocco_report(y_pred, attributes)
    assert list(report.index) == ["joint", "sensitive_features[0]", "sensitive_features[1]"]
    assert report.loc["sensitive_features[0]", "score"] == pytest.approx(
        faircocco_score(y_pred, attributes[:, 0]), rel=1e-12
    )


def test_report_of_a_series_keeps_its_name():
    rng = np.random.default_rng(5)
    attribute = pd.Series(rng.normal(size=60), name="income")
    y_pred = attribute.to_numpy() + rng.normal(size=60)
    report = faircocco_report(y_pred, attribute)
    assert list(report.index) == ["joint", "income"]
    assert report.loc["joint", "score"] == pytest.approx(report.loc["income", "score"], rel=1e-12)


def test_attribute_column_order_is_kept():
    """Rows follow the caller's column order, whatever the column types."""
    y_pred, attributes, _ = table(100, 6)
    reordered = attributes[["disabled", "age", "race", "sex"]]
    report = faircocco_report(y_pred, reordered)
    assert list(report.index) == ["joint", "disabled", "age", "race", "sex"]


def test_an_attribute_named_joint_keeps_its_row_and_the_joint_row():
    """An attribute named "joint" overwrote the joint row (two rows instead of three)."""
    y_pred, attributes, _ = table(120, 7)
    named = attributes[["sex", "age"]].rename(columns={"age": "joint"})
    report = faircocco_report(y_pred, named)
    assert list(report.index) == ["joint", "sex", "sensitive_features['joint']"]
    assert report.loc["joint", "score"] == pytest.approx(
        faircocco_score(y_pred, named), rel=1e-12, abs=1e-15
    )
    assert report.loc["sensitive_features['joint']", "score"] == pytest.approx(
        faircocco_score(y_pred, named[["joint"]]), rel=1e-12, abs=1e-15
    )


def test_labels_stay_unique_when_the_escaped_label_is_taken_too():
    y_pred, attributes, _ = table(80, 8)
    names = ["sensitive_features['joint']", "joint", "sex"]
    frame = pd.DataFrame({name: attributes["age"] + j for j, name in enumerate(names)})
    report = faircocco_report(y_pred, frame)
    assert list(report.index) == [
        "joint",
        "sensitive_features['joint']",
        "sensitive_features[\"sensitive_features['joint']\"]",
        "sex",
    ]


@pytest.mark.parametrize("source", ["frame", "chunks"])
def test_a_column_named_joint_in_data_keeps_the_joint_row(source):
    y_pred, attributes, _ = table(600, 9)
    frame = attributes[["sex", "age"]].rename(columns={"age": "joint"}).assign(pred=y_pred)
    data = frame if source == "frame" else [frame.iloc[:300], frame.iloc[300:]]
    options = {"data": data, "method": "lowrank"}
    report = faircocco_report("pred", ["sex", "joint"], **options)
    assert list(report.index) == ["joint", "sex", "sensitive_features['joint']"]
    assert report.loc["joint", "score"] == pytest.approx(
        faircocco_score("pred", ["sex", "joint"], **options), rel=1e-12
    )
    assert report.loc["sensitive_features['joint']", "score"] == pytest.approx(
        faircocco_score("pred", ["joint"], **options), rel=1e-12
    )
