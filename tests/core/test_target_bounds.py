"""Group measures with confidence bounds: definitions, the MOVER bound, its coverage."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from faircocco_plugins.gaps import disparate_impact, equal_opportunity_gap
from faircocco_plugins.targets import (
    TargetSettings,
    _grouping_row,
    group_measures,
    rate_bounds,
    target_groupings,
)


def _mover_literal(measure, hits, totals, confidence):
    """The bound transcribed pair by pair: Clopper–Pearson limits, then Newcombe's square-root
    recovery of the pair's difference (DEO) or log ratio (DI)."""
    worst = math.inf if measure == "di" else -math.inf
    for g, h in itertools.permutations(range(len(hits)), 2):
        tail = 1 - confidence
        rate_g, rate_h = hits[g] / totals[g], hits[h] / totals[h]
        low_g = stats.beta.ppf(tail, hits[g], totals[g] - hits[g] + 1) if hits[g] else 0.0
        high_g = stats.beta.ppf(1 - tail, hits[g] + 1, totals[g] - hits[g])
        low_h = stats.beta.ppf(tail, hits[h], totals[h] - hits[h] + 1) if hits[h] else 0.0
        high_h = stats.beta.ppf(1 - tail, hits[h] + 1, totals[h] - hits[h])
        if measure == "deo":
            bound = rate_g - rate_h + math.sqrt((high_g - rate_g) ** 2 + (rate_h - low_h) ** 2)
            worst = max(worst, bound)
        else:
            log_ratio = math.log(rate_g) - math.log(rate_h)
            spread = math.hypot(math.log(rate_g / low_g), math.log(high_h / rate_h))
            worst = min(worst, math.exp(log_ratio - spread))
    return min(worst, 1.0) if measure == "di" else max(worst, 0.0)


def _rows(hits, totals):
    """Predictions (and outcomes, all positive) with ``hits[g]`` of ``totals[g]`` positive."""
    pred = np.concatenate([np.arange(n) < k for k, n in zip(hits, totals, strict=True)])
    groups = np.repeat([f"g{g}" for g in range(len(totals))], totals)
    return pred, pd.DataFrame({"a": groups})


@pytest.mark.parametrize("measure", ["di", "deo"])
@pytest.mark.parametrize(
    ("hits", "totals"), [([80, 100], [200, 200]), ([7, 90, 30], [30, 300, 120]), ([3, 9], [20, 20])]
)
def test_bound_matches_the_pairwise_transcription(measure, hits, totals):
    pred, sensitive = _rows(hits, totals)
    table = group_measures(measure, np.ones(pred.size), pred, sensitive)
    expected = _mover_literal(measure, hits, totals, 0.9)
    assert table.loc["a", "bound"] == pytest.approx(expected, rel=1e-12)


def test_values_are_the_gap_functions_on_levels():
    rng = np.random.default_rng(0)
    groups = rng.choice(["x", "y", "z"], 500)
    truth, pred = rng.random(500) < 0.4, rng.random(500) < 0.3 + 0.1 * (groups == "x")
    sensitive = pd.DataFrame({"a": groups})
    di = group_measures("di", truth, pred, sensitive)
    deo = group_measures("deo", truth, pred, sensitive)
    assert di.loc["a", "value"] == pytest.approx(disparate_impact(pred, groups), rel=1e-12)
    assert deo.loc["a", "value"] == pytest.approx(
        equal_opportunity_gap(truth, pred, groups), rel=1e-12
    )


def test_bounds_sit_on_the_cautious_side_of_the_value():
    pred, sensitive = _rows([80, 100], [200, 200])
    di = group_measures("di", None, pred, sensitive).loc["a"]
    deo = group_measures("deo", np.ones(pred.size), pred, sensitive).loc["a"]
    assert di["bound"] < di["value"] == pytest.approx(0.8)
    assert deo["bound"] > deo["value"] == pytest.approx(0.1)


def test_best_bound_is_the_bound_at_equal_rates():
    pred, sensitive = _rows([40, 20], [200, 100])
    table = group_measures("di", None, pred, sensitive).loc["a"]
    assert table["value"] == 1.0
    assert table["best_bound"] == pytest.approx(table["bound"], rel=1e-12)
    assert (table["smallest_group"], table["smallest_rows"]) == ("g1", 100)


def test_a_group_without_positive_predictions_bounds_di_by_zero():
    pred, sensitive = _rows([0, 50], [100, 100])
    table = group_measures("di", None, pred, sensitive).loc["a"]
    assert (table["value"], table["bound"]) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("measure", "totals", "rates"),
    [
        ("di", (200, 200), (0.4, 0.5)),
        ("di", (30, 300), (0.1, 0.3)),
        ("di", (20, 20), (0.3, 0.6)),
        ("di", (69, 400, 120), (0.15, 0.3, 0.22)),
        ("deo", (200, 200), (0.6, 0.7)),
        ("deo", (25, 300), (0.5, 0.7)),
    ],
)
def test_coverage_is_at_least_the_confidence(measure, totals, rates):
    """Measured 0.908–0.942 over 2,000 draws at confidence 0.9 in these settings, where one
    pair's gap dominates (where rates are close, coverage is about 1)."""
    rng = np.random.default_rng(1)
    totals, rates = np.array(totals), np.array(rates)
    truth = rates.min() / rates.max() if measure == "di" else rates.max() - rates.min()
    labels = np.arange(totals.size)
    draws, covered = 2000, 0
    for _ in range(draws):
        bound = _grouping_row(measure, labels, rng.binomial(totals, rates), totals, 0.1)[1]
        covered += bound <= truth if measure == "di" else bound >= truth
    # three standard errors of a proportion of 0.9 over 2,000 draws
    assert covered / draws >= 0.9 - 3 * math.sqrt(0.9 * 0.1 / draws)


def test_continuous_attributes_are_cut_into_quantile_bins():
    people = pd.DataFrame({"age": np.arange(100.0), "sex": ["f", "m"] * 50})
    groups = target_groupings(people, bins=4, intersections=True)
    assert pd.Series(groups["age"]).value_counts().tolist() == [25, 25, 25, 25]
    assert set(groups["sex"]) == {"f", "m"}
    assert len(set(groups["intersections"])) == 8


def test_a_continuous_attribute_with_many_ties_keeps_a_bin_below_its_median():
    # more than half the rows at 0 (a capital gain): the median is 0, and the rows at it are
    # one bin, those above it the other, not one bin of every row
    gain = pd.DataFrame({"gain": np.r_[np.zeros(60), np.arange(1.0, 41.0)]})
    groups = target_groupings(gain, bins=2)["gain"]
    assert pd.Series(groups).value_counts().to_dict() == {"gain<=0": 60, "gain>0": 40}


def test_groupings_cross_the_attributes_as_the_harness_names_its_groups():
    people = pd.DataFrame({"sex": ["f", "m", "f", "m"], "age": [20.0, 30.0, 40.0, 50.0]})
    groups = target_groupings(people, bins=2, intersections=True)
    assert groups["age"].tolist() == ["age<=35", "age<=35", "age>35", "age>35"]
    assert groups["intersections"].tolist() == [
        "sex=f, age<=35", "sex=m, age<=35", "sex=f, age>35", "sex=m, age>35",
    ]  # fmt: skip


def test_small_intersections_are_left_out():
    people = pd.DataFrame({"a": ["p"] * 90 + ["q"] * 10, "b": ["r", "s"] * 50})
    pred = np.zeros(100, dtype=bool)
    pred[:40] = True
    table = group_measures(
        "di", None, pred, people, settings=TargetSettings(intersections=True, min_rows=30)
    )
    assert table.loc["intersections", "smallest_rows"] == 45  # the q cells (5 rows) are out


def test_row_order_does_not_change_the_table():
    rng = np.random.default_rng(2)
    people = pd.DataFrame({"age": rng.uniform(18, 80, 300), "sex": rng.choice(["f", "m"], 300)})
    pred = rng.random(300) < 0.4
    order = rng.permutation(300)
    settings = TargetSettings(intersections=True, min_rows=10)
    first = group_measures("di", None, pred, people, settings=settings)
    again = group_measures(
        "di",
        None,
        pred[order],
        people.iloc[order].reset_index(drop=True),
        settings=settings,
    )
    pd.testing.assert_frame_equal(first, again)


@pytest.mark.parametrize(
    ("settings", "error", "match"),
    [
        ({"confidence": 1.0}, ValueError, "confidence"),
        ({"confidence": "high"}, TypeError, "confidence"),
        ({"bins": 1}, ValueError, "bins"),
        ({"bins": 4.0}, TypeError, "bins"),
        ({"intersections": "yes"}, TypeError, "intersections"),
        ({"min_rows": 0}, ValueError, "min_rows"),
    ],
)
def test_bad_settings_are_refused(settings, error, match):
    with pytest.raises(error, match=match):
        TargetSettings(**settings)


def test_settings_of_another_type_are_refused():
    with pytest.raises(TypeError, match="settings must be a TargetSettings"):
        group_measures("di", None, np.ones(2), pd.DataFrame({"a": ["x", "y"]}), settings={})


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"measure": "eo"}, ValueError, "measure"),
        ({"y_pred": np.ones(5)}, ValueError, "same number of rows"),
    ],
)
def test_bad_arguments_are_refused(kwargs, error, match):
    arguments = {
        "measure": "di",
        "y_true": None,
        "y_pred": np.ones(4),
        "sensitive": pd.DataFrame({"a": ["x", "x", "y", "y"]}),
    }
    arguments.update(kwargs)
    measure = arguments.pop("measure")
    with pytest.raises(error, match=match):
        group_measures(measure, **arguments)


def test_rate_bounds_are_exact_binomial_limits():
    lower, upper = rate_bounds(np.array([3]), np.array([20]), 0.05)
    # P(X >= 3 | p = lower) = 0.05 and P(X <= 3 | p = upper) = 0.05
    assert stats.binom.sf(2, 20, lower[0]) == pytest.approx(0.05, rel=1e-9)
    assert stats.binom.cdf(3, 20, upper[0]) == pytest.approx(0.05, rel=1e-9)


def test_labels_are_read_as_the_gap_functions_read_them():
    sensitive = pd.DataFrame({"a": ["x", "x", "y", "y"]})
    signs = group_measures("di", None, np.array([-1, 1, 1, 1]), sensitive)
    named = group_measures("di", None, np.array(["n", "y", "y", "y"]), sensitive, pos_label="y")
    assert signs.loc["a", "value"] == named.loc["a", "value"] == 0.5
    with pytest.raises(ValueError, match="threshold"):
        group_measures("di", None, np.array([0.2, 0.7, 0.9, 0.4]), sensitive)


def test_column_names_equal_as_text_are_refused_not_merged_into_one_grouping():
    people = pd.DataFrame([[0, "a"], [1, "b"]], columns=[1, "1"])
    with pytest.raises(ValueError, match="sensitive"):
        target_groupings(people)
