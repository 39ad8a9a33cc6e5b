"""A DI or DEO target is refused where the rows that measure it cannot certify it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins.gaps import disparate_impact
from faircocco_plugins.targets import (
    Target,
    TargetSettings,
    check_target_groups,
    choose_step,
    group_measures,
    target_columns,
)

PEOPLE = pd.DataFrame({"sex": ["f", "f", "m", "m"], "age": [20.0, 30.0, 40.0, 50.0]})
POSITIVE = np.array([True, False, True, False])


def test_disparate_impact_of_a_single_group_is_undefined():
    # one group compares with nothing: not "every group has the same rate"
    assert math.isnan(disparate_impact([1, 0, 1, 1], ["a"] * 4))


@pytest.mark.parametrize("target", [{"di": 0.8}, {"deo": 0.05}])
def test_a_gap_target_on_an_attribute_with_one_group_is_refused(target):
    people = PEOPLE.assign(country=["fr"] * 4)
    with pytest.raises(ValueError, match=r"'country' has one group \('fr'\) on the validation"):
        check_target_groups(target, people, POSITIVE, rows="validation rows")


def test_a_deo_target_needs_two_groups_with_positive_outcomes():
    # every positive outcome is a woman's: no true-positive rate of men to compare
    positive = np.array([True, True, False, False])
    with pytest.raises(ValueError, match=r"'sex' has one group \('f'\) .*positive outcome"):
        check_target_groups({"deo": 0.05}, PEOPLE, positive, rows="validation rows")
    check_target_groups({"di": 0.8}, PEOPLE, positive, rows="validation rows")


@pytest.mark.parametrize("target", [{"di": 0.8}, {"deo": 0.05}])
def test_gap_targets_pass_where_every_attribute_has_two_groups(target):
    check_target_groups(target, PEOPLE, POSITIVE)


@pytest.mark.parametrize("target", ["halve", {"adjusted_score": 0.1}])
def test_score_targets_need_no_groups(target):
    check_target_groups(target, PEOPLE.assign(country=["fr"] * 4), POSITIVE)


def test_a_continuous_attribute_is_grouped_by_quantile_bins_not_a_median_split():
    # every positive outcome is above the median age: one group of a median split, but two
    # of the quartiles, so a DEO target on age is defined
    people = pd.DataFrame({"age": np.arange(8.0)})
    positive = people["age"].to_numpy() >= 4
    check_target_groups({"deo": 0.1}, people, positive, bins=4)
    with pytest.raises(ValueError, match="'age' has one group"):
        check_target_groups({"deo": 0.1}, people, positive, bins=2)


def test_every_target_is_met_by_its_bound_not_its_point_value():
    # step 1 is the more accurate and its point values meet each target, but its bounds do not
    candidates = pd.DataFrame(
        {
            "accuracy": [0.80, 0.85],
            "di": [0.90, 0.85],
            "di_bound": [0.82, 0.70],
            "deo": [0.02, 0.04],
            "deo_bound": [0.04, 0.09],
            "adjusted_score": [0.03, 0.04],
            "adjusted_score_bound": [0.045, 0.07],
            "degenerate": [False, False],
        }
    )
    assert choose_step(candidates, Target("di", 0.8), "classification") == (0, None)
    assert choose_step(candidates, Target("deo", 0.05), "classification") == (0, None)
    assert choose_step(candidates, Target("adjusted_score", 0.05), "classification") == (0, None)


def test_target_columns_name_each_grouping_and_take_the_worst():
    rng = np.random.default_rng(0)
    people = pd.DataFrame({"sex": rng.choice(["f", "m"], 400), "age": rng.uniform(18, 80, 400)})
    truth = rng.random(400) < 0.5
    pred = rng.random(400) < np.where(people["sex"] == "m", 0.6, 0.4)
    columns = target_columns(truth, pred, people, settings=TargetSettings(intersections=True))
    each = [columns[f"di[{name}]"] for name in ("sex", "age", "intersections")]
    assert columns["di"] == min(each)
    table = group_measures("di", truth, pred, people, settings=TargetSettings(intersections=True))
    assert columns["di_bound"] == table["bound"].min()
    assert columns["deo"] == max(columns[f"deo[{n}]"] for n in ("sex", "age", "intersections"))
