"""Run metrics against values computed by hand on tiny arrays."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins import faircocco_report, faircocco_score
from faircocco_plugins.bench import (
    R2_THRESHOLD,
    SPREAD_THRESHOLD,
    degenerate_runs,
    evaluate_predictions,
    metric_names,
)
from faircocco_plugins.gaps import (
    attribute_groups,
    disparate_impact,
    disparate_impact_ratio,
    equal_opportunity_gap,
)

# rows 0-3 are group "f", rows 4-7 group "m"
Y = np.array([1, 1, 0, 0, 1, 1, 0, 0])
Y_HAT = np.array([1, 1, 1, 0, 1, 0, 0, 0])
SEX = pd.DataFrame({"sex": pd.Categorical(["f"] * 4 + ["m"] * 4)})


def test_classification_metrics_by_hand() -> None:
    proba = np.array([0.9, 0.8, 0.7, 0.1, 0.6, 0.4, 0.3, 0.2])
    metrics = evaluate_predictions("classification", Y, Y_HAT, SEX, proba=proba)
    # wrong: row 2 (0 → 1) and row 5 (1 → 0)
    assert metrics["accuracy"] == 6 / 8
    # recall of class 1: 3/4; of class 0: 3/4
    assert metrics["balanced_accuracy"] == pytest.approx(0.75)
    # positives 0.9, 0.8, 0.6, 0.4; negatives 0.7, 0.1, 0.3, 0.2: of 16 pairs, 2 misordered
    # (0.6 < 0.7 and 0.4 < 0.7)
    assert metrics["auc"] == pytest.approx(14 / 16)
    assert metrics["base_rate"] == 0.5
    assert metrics["positive_rate"] == 4 / 8
    assert metrics["single_class"] == 0.0
    # TPR: f 2/2 = 1, m 1/2; DEO = 0.5
    assert metrics["deo"] == pytest.approx(0.5)
    assert metrics["deo[sex]"] == pytest.approx(0.5)
    # positive rates: f 3/4, m 1/4; DI = 1/3
    assert metrics["di"] == pytest.approx(1 / 3)
    assert list(metrics) == metric_names("classification", ["sex"])


def test_proba_given_as_two_columns_and_missing() -> None:
    proba = np.array([0.9, 0.8, 0.7, 0.1, 0.6, 0.4, 0.3, 0.2])
    two = np.column_stack([1 - proba, proba])
    metrics = evaluate_predictions("classification", Y, Y_HAT, SEX, proba=two)
    assert metrics["auc"] == pytest.approx(14 / 16)
    assert math.isnan(evaluate_predictions("classification", Y, Y_HAT, SEX)["auc"])
    with pytest.raises(ValueError, match="proba must have shape"):
        evaluate_predictions("classification", Y, Y_HAT, SEX, proba=np.ones((8, 3)))


def test_only_the_asked_notions_are_scored() -> None:
    proba = np.array([0.9, 0.8, 0.7, 0.1, 0.6, 0.4, 0.3, 0.2])
    every = evaluate_predictions("classification", Y, Y_HAT, SEX, proba=proba)
    eo = evaluate_predictions("classification", Y, Y_HAT, SEX, proba=proba, notions=("eo",))
    assert list(eo) == metric_names("classification", ["sex"], notions=("eo",))
    assert not any(name.startswith(("faircocco_dp", "faircocco_cal")) for name in eo)
    # NaN-aware: the paper's DI is undefined here (both groups have the same base rate)
    pd.testing.assert_series_equal(pd.Series(eo), pd.Series({name: every[name] for name in eo}))
    for bad in ("eo", (), ("eo", "parity")):
        with pytest.raises(ValueError, match="notions="):
            evaluate_predictions("classification", Y, Y_HAT, SEX, notions=bad)


def test_single_class_predictions_are_flagged() -> None:
    metrics = evaluate_predictions("classification", Y, np.zeros(8, dtype=int), SEX)
    assert metrics["single_class"] == 1.0
    assert metrics["positive_rate"] == 0.0
    # nobody predicted positive: equal rates, DI 1, DEO 0
    assert metrics["di"] == 1.0
    assert metrics["deo"] == 0.0
    # constant predictions are independent of everything
    assert metrics["faircocco_dp"] == 0.0


def test_faircocco_metrics_come_from_the_core() -> None:
    rng = np.random.default_rng(0)
    n = 300
    sensitive = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "age": rng.uniform(18, 80, n)})
    y = rng.integers(0, 2, n)
    y_hat = ((sensitive["sex"] == "m").to_numpy() ^ (rng.random(n) < 0.2)).astype(int)
    metrics = evaluate_predictions("classification", y, y_hat, sensitive, random_state=3)
    for notion in ("dp", "eo", "cal"):
        truth = None if notion == "dp" else y.astype(float)
        report = faircocco_report(
            y_hat.astype(float), sensitive, y_true=truth, notion=notion, random_state=3
        )
        assert metrics[f"faircocco_{notion}"] == pytest.approx(report.loc["joint", "score"])
        assert metrics[f"faircocco_{notion}_adjusted"] == pytest.approx(
            faircocco_score(
                y_hat.astype(float),
                sensitive,
                y_true=truth,
                notion=notion,
                random_state=3,
                adjusted=True,
            )
        )
        assert metrics[f"faircocco_{notion}[age]"] == pytest.approx(report.loc["age", "score"])
    # predictions follow sex, not age
    assert metrics["faircocco_dp[sex]"] > 0.3 > metrics["faircocco_dp[age]"]


def test_faircocco_metrics_score_the_probabilities_when_given() -> None:
    # every row labelled 0, but the probabilities follow sex: the labels alone would score 0
    rng = np.random.default_rng(1)
    n = 400
    sensitive = pd.DataFrame({"sex": rng.choice(["f", "m"], n)})
    y = rng.integers(0, 2, n)
    proba = 0.1 + 0.2 * (sensitive["sex"] == "m").to_numpy() + 0.05 * rng.random(n)
    labels = np.zeros(n, dtype=int)
    metrics = evaluate_predictions("classification", y, labels, sensitive, proba=proba)
    assert metrics["single_class"] == 1.0
    for notion in ("dp", "eo", "cal"):
        truth = None if notion == "dp" else y.astype(float)
        expected = faircocco_score(proba, sensitive, y_true=truth, notion=notion, random_state=0)
        assert metrics[f"faircocco_{notion}"] == pytest.approx(expected)
    assert metrics["faircocco_dp"] > 0.5
    without = evaluate_predictions("classification", y, labels, sensitive)
    assert without["faircocco_dp"] == 0.0


def test_non_finite_probabilities_are_rejected() -> None:
    proba = np.array([0.9, 0.8, np.nan, 0.1, 0.6, 0.4, 0.3, 0.2])
    with pytest.raises(ValueError, match="proba has NaN"):
        evaluate_predictions("classification", Y, Y_HAT, SEX, proba=proba)


def test_labels_are_read_as_the_rest_of_the_project_reads_them() -> None:
    # -1/1 has the positive class 1, as in scikit-learn and the core's gap functions
    signs = evaluate_predictions("classification", 2 * Y - 1, 2 * Y_HAT - 1, SEX)
    plain = evaluate_predictions("classification", Y, Y_HAT, SEX)
    assert signs["deo"] == plain["deo"] and signs["positive_rate"] == plain["positive_rate"]
    # two words name no positive class: "denied" would have been positive, after "approved"
    words = {"y_true": np.where(Y == 1, "approved", "denied")}
    words["y_pred"] = np.where(Y_HAT == 1, "approved", "denied")
    with pytest.raises(ValueError, match="pos_label"):
        evaluate_predictions("classification", words["y_true"], words["y_pred"], SEX)


def test_continuous_attributes_are_split_at_the_median() -> None:
    age = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0, 25.0, 35.0]})
    groups = attribute_groups(age)["age"].tolist()
    # median 32.5
    assert groups == ["age<=32.5", "age<=32.5", "age>32.5", "age>32.5", "age<=32.5", "age>32.5"]
    y = np.array([1, 1, 1, 1, 0, 0])
    y_hat = np.array([1, 0, 1, 1, 0, 1])
    # TPR: young {1, 0} → 1/2, old {1, 1} → 1; DEO 1/2
    metrics = evaluate_predictions("classification", y, y_hat, age)
    assert metrics["deo[age]"] == pytest.approx(0.5)
    # positive rates: young 1/3, old 3/3
    assert metrics["di[age]"] == pytest.approx(1 / 3)


def test_categorical_attributes_take_the_largest_gap() -> None:
    # TPR of a: 1/1, b: 1/2, c: 0/1; DEO = 1 − 0
    truth = [True, True, True, True, False]
    pred = [True, True, False, False, True]
    region = ["a", "b", "b", "c", "c"]
    assert equal_opportunity_gap(truth, pred, region) == pytest.approx(1.0)
    # positive rates: a 1, b 1/2, c 1/2
    assert disparate_impact(pred, region) == pytest.approx(0.5)


def test_deo_is_nan_without_two_groups_with_positives() -> None:
    assert math.isnan(equal_opportunity_gap([True, False], [True, True], ["a", "b"]))


def test_overall_deo_and_di_are_the_worst_attribute() -> None:
    sensitive = pd.DataFrame({"sex": ["f", "f", "m", "m"] * 2, "group": ["x", "y"] * 4})
    y = np.array([1, 1, 1, 1, 1, 1, 1, 1])
    y_hat = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    metrics = evaluate_predictions("classification", y, y_hat, sensitive)
    # sex: TPR f 2/4, m 2/4 → 0; group: x 4/4, y 0/4 → 1
    assert metrics["deo[sex]"] == pytest.approx(0.0)
    assert metrics["deo[group]"] == pytest.approx(1.0)
    assert metrics["deo"] == pytest.approx(1.0)
    assert metrics["di"] == pytest.approx(0.0)


def test_paper_di_divides_the_discriminated_groups_rate_by_the_favoured_ones() -> None:
    # positive outcomes: f 1/4, m 3/4, so f is discriminated; predictions: f 2/4, m 1/4
    sex = pd.DataFrame({"sex": ["f"] * 4 + ["m"] * 4})
    y = np.array([1, 0, 0, 0, 1, 1, 1, 0])
    y_hat = np.array([1, 1, 0, 0, 1, 0, 0, 0])
    metrics = evaluate_predictions("classification", y, y_hat, sex)
    # over-corrected: the paper's DI exceeds 1 where min/max cannot
    assert metrics["di_ratio[sex]"] == pytest.approx(2.0)
    assert metrics["di_ratio"] == pytest.approx(2.0)
    assert metrics["di"] == pytest.approx(0.5)
    # the same rows in another order
    order = np.array([7, 2, 5, 0, 3, 6, 1, 4])
    again = evaluate_predictions("classification", y[order], y_hat[order], sex.iloc[order])
    assert again["di_ratio"] == pytest.approx(2.0)


def test_paper_di_of_several_levels_compares_the_extreme_base_rates() -> None:
    # positive outcomes: a 0/2, b 1/2, c 2/2; predictions: a 1/2, b 0/2, c 2/2
    truth = [False, False, True, False, True, True]
    pred = [True, False, False, False, True, True]
    region = ["a", "a", "b", "b", "c", "c"]
    assert disparate_impact_ratio(truth, pred, region) == pytest.approx(0.5)


def test_paper_di_is_undefined_without_a_discriminated_group() -> None:
    # equal shares of positive outcomes
    assert math.isnan(disparate_impact_ratio([1, 0, 1, 0], [1, 1, 0, 0], ["a", "a", "b", "b"]))
    # a single group
    assert math.isnan(disparate_impact_ratio([1, 0], [1, 0], ["a", "a"]))
    # only the discriminated group gets positive predictions
    assert math.isnan(disparate_impact_ratio([0, 0, 1, 1], [1, 0, 0, 0], ["a", "a", "b", "b"]))
    # neither group gets one: equal rates
    assert disparate_impact_ratio([0, 0, 1, 1], [0, 0, 0, 0], ["a", "a", "b", "b"]) == 1.0


def test_overall_paper_di_is_the_attribute_farthest_from_one() -> None:
    sensitive = pd.DataFrame({"sex": ["f"] * 4 + ["m"] * 4, "group": ["x", "y"] * 4})
    y = np.array([1, 0, 0, 0, 1, 1, 1, 0])
    y_hat = np.array([0, 1, 0, 1, 1, 1, 0, 0])
    metrics = evaluate_predictions("classification", y, y_hat, sensitive)
    # sex: outcomes f 1/4, m 3/4; predictions f 2/4, m 2/4 → 1
    assert metrics["di_ratio[sex]"] == pytest.approx(1.0)
    # group: outcomes x 3/4, y 1/4; predictions x 1/4, y 3/4 → 3
    assert metrics["di_ratio[group]"] == pytest.approx(3.0)
    assert metrics["di_ratio"] == pytest.approx(3.0)
    # a ratio below 1 is as far from 1 as its inverse above: 1/4 beats 3
    y_hat = np.array([1, 0, 0, 0, 1, 1, 1, 1])
    metrics = evaluate_predictions("classification", y, y_hat, sensitive)
    assert metrics["di_ratio[sex]"] == pytest.approx(0.25)
    assert metrics["di_ratio"] == pytest.approx(0.25)


def test_regression_metrics_by_hand() -> None:
    y = np.array([1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0])
    y_hat = np.array([1.5, 2.0, 3.0, 4.0, 1.0, 2.0, 2.0, 4.0])
    metrics = evaluate_predictions("regression", y, y_hat, SEX)
    assert metrics["mse"] == pytest.approx((0.25 + 1.0) / 8)
    # variances (ddof=0): y 1.25; y_hat, mean 2.4375, sum of squared deviations 8.71875 over 8
    assert metrics["prediction_spread"] == pytest.approx(math.sqrt(8.71875 / 8 / 1.25))
    assert metrics["outcome_variance"] == pytest.approx(1.25)
    assert "accuracy" not in metrics
    # above the median outcome (2.5): f rows 2, 3 predicted above: 2/2; m rows 6, 7: 1/2
    assert metrics["deo"] == pytest.approx(0.5)
    # positive rates: f 2/4, m 1/4
    assert metrics["di"] == pytest.approx(0.5)
    assert list(metrics) == metric_names("regression", ["sex"])


def test_prediction_spread_of_constant_predictions_and_outcomes() -> None:
    y = np.array([1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0])
    flat = evaluate_predictions("regression", y, np.full(8, 2.5), SEX)
    assert flat["prediction_spread"] == 0.0
    # a constant outcome has no spread to compare with
    assert math.isnan(evaluate_predictions("regression", np.ones(8), y, SEX)["prediction_spread"])


def test_degenerate_runs_on_each_part() -> None:
    runs = pd.DataFrame(
        {
            "validation.single_class": [1.0, 0.0, 0.0, np.nan, np.nan, np.nan, np.nan],
            "test.single_class": [0.0, 1.0, 0.0, np.nan, np.nan, np.nan, np.nan],
            "validation.prediction_spread": [np.nan] * 3 + [0.0, 0.99e-3, 1e-3, np.nan],
            "test.prediction_spread": [np.nan] * 3 + [0.5, 0.99e-3, 1e-3, np.nan],
        },
        index=[10, 11, 12, 13, 14, 15, 16],
    )
    assert SPREAD_THRESHOLD == 1e-3
    validation = degenerate_runs(runs, "validation")
    assert validation.index.tolist() == runs.index.tolist()
    assert validation.tolist() == [True, False, False, True, True, False, False]
    assert degenerate_runs(runs).tolist() == [False, True, False, False, True, False, False]
    # a store without these metrics has no degenerate run
    assert not degenerate_runs(runs.drop(columns=list(runs.columns))).any()
    with pytest.raises(ValueError, match="part='train'"):
        degenerate_runs(runs, "train")
    with pytest.raises(TypeError, match="runs must be a pandas DataFrame"):
        degenerate_runs(runs.to_numpy())  # type: ignore[arg-type]


def test_regression_no_better_than_the_mean_is_degenerate() -> None:
    # R² −0.014 and −0.005 with spreads of 1.5% and 8% of the outcome's: no better than the
    # mean although not flat; then R² 0.005, 0.0105 and 0.6; then a constant outcome and an
    # unknown variance, whose R² is undefined
    runs = pd.DataFrame(
        {
            "test.mse": [1.014, 1.005, 0.995, 0.9895, 0.4, 0.4, 0.4],
            "test.outcome_variance": [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, np.nan],
            "test.prediction_spread": [0.015, 0.08, 0.1, 0.1, 0.8, np.nan, 0.8],
        }
    )
    assert R2_THRESHOLD == 0.01
    assert degenerate_runs(runs).tolist() == [True, True, True, False, False, False, False]
    # the same on the validation part, where the selection reads it
    validation = runs.rename(columns=lambda c: c.replace("test.", "validation."))
    assert degenerate_runs(validation, "validation").tolist()[:4] == [True, True, True, False]


def test_bad_inputs_name_the_argument() -> None:
    with pytest.raises(ValueError, match="same length"):
        evaluate_predictions("classification", Y, Y_HAT[:5], SEX)
    with pytest.raises(ValueError, match="task='ranking'"):
        evaluate_predictions("ranking", Y, Y_HAT, SEX)
    with pytest.raises(TypeError, match="sensitive must be a pandas DataFrame"):
        evaluate_predictions("classification", Y, Y_HAT, SEX["sex"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="y_pred contains NaN"):
        evaluate_predictions("regression", Y, np.full(8, np.nan), SEX)
    with pytest.raises(ValueError, match=r"y_true and y_pred take values in \{0, 1, 2"):
        evaluate_predictions("classification", Y, np.arange(8), SEX)


def test_a_part_too_small_for_a_chance_level_records_nan_without_a_warning() -> None:
    """Calibration conditions on 8 distinct probabilities: 8 levels of one row each leave no
    permutation to give a chance level. The run records NaN (warnings are errors here)."""
    proba = np.array([0.9, 0.8, 0.7, 0.1, 0.6, 0.4, 0.3, 0.2])
    metrics = evaluate_predictions("classification", Y, Y_HAT, SEX, proba=proba, notions=("cal",))
    assert math.isnan(metrics["faircocco_cal_adjusted"])
    assert 0 <= metrics["faircocco_cal"] <= 1
