"""The paper's DEO and DI with fairlearn's signature, against values counted by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from faircocco_fairlearn import difference_of_equal_opportunity, disparate_impact_ratio

# rows 0-3 are women, 4-7 men; ages below the median (35) in rows 0, 1, 4, 5
PEOPLE = pd.DataFrame(
    {"sex": ["f"] * 4 + ["m"] * 4, "age": [20.0, 30.0, 40.0, 50.0, 25.0, 35.0, 45.0, 55.0]}
)
Y = [1, 1, 1, 0, 1, 1, 0, 0]
Y_HAT = [1, 1, 0, 0, 1, 0, 1, 0]


def test_deo_is_the_largest_true_positive_gap():
    # sex: TPR f = 2/3, m = 1/2 -> 1/6; age: <= median (rows 0,1,4,5) TPR 3/4, > median
    # (rows 2,3,6,7) TPR 0/1 -> 3/4
    assert difference_of_equal_opportunity(Y, Y_HAT, sensitive_features=PEOPLE) == 0.75


def test_di_is_the_lowest_rate_ratio():
    # sex: positive rates f 2/4, m 2/4 -> 1; age: <= median 3/4, > median 1/4 -> 1/3
    assert disparate_impact_ratio(Y, Y_HAT, sensitive_features=PEOPLE) == pytest.approx(1 / 3)


def test_bad_labels_name_their_argument():
    with pytest.raises(ValueError, match="y_pred holds scores"):
        difference_of_equal_opportunity(Y, [0.2] * 8, sensitive_features=PEOPLE)
    with pytest.raises(ValueError, match=r"y_true and y_pred take values in .*pos_label"):
        difference_of_equal_opportunity(["a"] * 8, Y_HAT, sensitive_features=PEOPLE)
    with pytest.raises(ValueError, match=r"y_pred takes values in .*pos_label"):
        disparate_impact_ratio(Y, ["yes", "no"] * 4, sensitive_features=PEOPLE)
    assert math.isnan(difference_of_equal_opportunity([0] * 8, Y_HAT, sensitive_features=PEOPLE))


def test_pos_label_names_the_positive_class():
    # the same labels as Y and Y_HAT, as text
    y = ["yes" if v else "no" for v in Y]
    y_hat = ["yes" if v else "no" for v in Y_HAT]
    deo = difference_of_equal_opportunity(y, y_hat, sensitive_features=PEOPLE, pos_label="yes")
    assert deo == 0.75
    di = disparate_impact_ratio(y, y_hat, sensitive_features=PEOPLE, pos_label="yes")
    assert di == pytest.approx(1 / 3)


def test_pandas_rows_pair_by_label():
    # the same people in another order, labels kept: the outcomes find their rows by label
    # (paired by position, this order gives DEO 1/6 and DI 1)
    people = PEOPLE.iloc[[6, 2, 7, 4, 5, 1, 0, 3]]
    y, y_hat = pd.Series(Y), pd.Series(Y_HAT)
    assert difference_of_equal_opportunity(y, y_hat, sensitive_features=people) == 0.75
    assert disparate_impact_ratio(y, y_hat, sensitive_features=people) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match=r"y_true and sensitive_features .*reset_index"):
        disparate_impact_ratio(y, y_hat, sensitive_features=PEOPLE.set_axis(range(10, 18)))


def test_di_without_two_groups_is_undefined():
    # one group compares with nothing: not "every group has the same rate"
    assert math.isnan(disparate_impact_ratio(Y, Y_HAT, sensitive_features=["f"] * 8))
