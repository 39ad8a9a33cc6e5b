"""A DI or DEO target is refused where the rows that measure it cannot certify it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins.gaps import disparate_impact
from faircocco_plugins.targets import check_target_groups

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
