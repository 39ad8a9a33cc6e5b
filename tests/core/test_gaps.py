"""The gap functions read binary labels as scikit-learn does, and refuse what is not labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins.gaps import (
    attribute_groups,
    disparate_impact,
    disparate_impact_ratio,
    disparate_impact_ratios,
    disparate_impacts,
    equal_opportunity_differences,
    equal_opportunity_gap,
)

GROUPS = ["a", "a", "b", "b"]
PEOPLE = pd.DataFrame({"sex": GROUPS})


@pytest.mark.parametrize(
    ("y_pred", "message"),
    [
        ([0.2, 0.9, 0.3, 0.1], r"y_pred holds scores.*such as 0\.2.*threshold"),
        ([1, 2, 1, 1], r"y_pred takes values in \{1, 2\}.*pass pos_label"),
        (["yes", "no", "no", "no"], r"y_pred takes values in \{'no', 'yes'\}.*pass pos_label"),
        (["False", "True", "False", "False"], r"\{'False', 'True'\}.*pass pos_label"),
        ([np.nan, 1.0, 0.0, 0.0], r"y_pred has missing values"),
        ([None, True, False, False], r"y_pred has missing values"),
    ],
)
def test_predictions_that_are_not_binary_labels_are_refused(y_pred, message):
    with pytest.raises(ValueError, match=message):
        disparate_impact(y_pred, GROUPS)
    with pytest.raises(ValueError, match=message):
        disparate_impacts(y_pred, PEOPLE)


@pytest.mark.parametrize("y_true", [[-1, 1, 1, 1], ["no", "yes", "yes", "yes"], [1, 2, 2, 2]])
def test_outcomes_that_are_not_zero_one_need_a_pos_label(y_true):
    with pytest.raises(ValueError, match=r"y_true and y_pred take values in .*pos_label"):
        equal_opportunity_gap(y_true, [0, 1, 1, 1], GROUPS)


def test_minus_one_and_one_count_one_as_positive():
    # positive rates a 1/2, b 0/2 (read as truth values, -1 would be positive too: DI 1)
    assert disparate_impact([-1, 1, -1, -1], GROUPS) == 0.0
    # truth a a a b b b: positives rows 0, 1, 3, 4; TPR a 1/2, b 2/2
    truth, pred = [1, 1, -1, 1, 1, -1], [1, -1, -1, 1, 1, 1]
    assert equal_opportunity_gap(truth, pred, ["a"] * 3 + ["b"] * 3) == 0.5


def test_pos_label_names_the_positive_class():
    assert disparate_impact(["yes", "no", "no", "no"], GROUPS, pos_label="yes") == 0.0
    assert disparate_impact(["yes", "no", "no", "no"], GROUPS, pos_label="no") == 0.5
    truth = ["T", "T", "T", "T"]
    assert equal_opportunity_gap(truth, ["T", "F", "T", "T"], GROUPS, pos_label="T") == 0.5
    ratio = disparate_impact_ratio([2, 1, 2, 2], [2, 1, 2, 2], GROUPS, pos_label=2)
    assert ratio == 0.5
    people = pd.DataFrame({"sex": GROUPS, "age": [20.0, 60.0, 30.0, 50.0]})
    deo = equal_opportunity_differences(truth, ["T", "F", "T", "T"], people, pos_label="T")
    assert deo.tolist() == [0.5, 0.5]
    assert disparate_impact_ratios([2, 1, 2, 2], [2, 1, 2, 2], people, pos_label=2)["sex"] == 0.5


def test_pos_label_must_be_one_of_the_labels():
    with pytest.raises(ValueError, match=r"pos_label='maybe' is not one of .*'no', 'yes'"):
        disparate_impact(["yes", "no", "no", "no"], GROUPS, pos_label="maybe")
    with pytest.raises(ValueError, match=r"y_pred takes 3 values .*two labels"):
        disparate_impact(["yes", "no", "maybe", "no"], GROUPS, pos_label="yes")


def test_outcomes_and_predictions_share_one_label_set():
    with pytest.raises(ValueError, match=r"y_true and y_pred take values in \{-1, 0, 1\}"):
        equal_opportunity_gap([0, 1, 1, 1], [-1, 1, 1, 1], GROUPS)


def test_probabilities_are_refused_even_with_a_pos_label():
    with pytest.raises(ValueError, match=r"y_true holds scores"):
        disparate_impact_ratio([0.9, 0.1, 0.9, 0.9], [1, 0, 1, 1], GROUPS, pos_label=0.9)


def test_zero_one_floats_and_booleans_are_labels():
    assert disparate_impact([1.0, 0.0, 1.0, 1.0], GROUPS) == 0.5
    assert disparate_impact(np.array([True, False, True, True], dtype=object), GROUPS) == 0.5
    assert disparate_impact(pd.Series([1, 0, 1, 1], dtype="Int64"), GROUPS) == 0.5


@pytest.mark.parametrize("groups", [["a", "a", np.nan, np.nan], ["a", "b", None, "b"]])
def test_groups_with_missing_values_are_refused(groups):
    with pytest.raises(ValueError, match="groups has missing values"):
        disparate_impact([1, 0, 1, 1], groups)
    with pytest.raises(ValueError, match="groups has missing values"):
        equal_opportunity_gap([1, 1, 1, 1], [1, 0, 1, 1], groups)


def test_column_names_equal_as_text_are_refused():
    with pytest.raises(ValueError, match=r"sensitive has duplicate column names \['1'\]"):
        attribute_groups(pd.DataFrame({1: [0, 1], "1": [1, 1]}))
    with pytest.raises(ValueError, match="duplicate column names"):
        disparate_impacts([1, 0], pd.DataFrame({1: [0, 1], "1": [1, 1]}))
