"""The table-driven parameter checks: types, bounds, optional values and their messages."""

from __future__ import annotations

import math

import numpy as np
import pytest

from faircocco_plugins.plugins import Interval, check_params


@pytest.mark.parametrize("value", [1, 10, np.int64(3)])
def test_integers_in_range_pass(value):
    check_params({"epochs": value}, {"epochs": Interval("integer", 1)})


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (0, ValueError, "epochs=0 is not valid; expected an integer >= 1."),
        (True, TypeError, "epochs must be an integer >= 1; got bool."),
        (2.0, TypeError, "epochs must be an integer >= 1; got float."),
        ("3", TypeError, "epochs must be an integer >= 1; got str."),
        (None, TypeError, "epochs must be an integer >= 1; got NoneType."),
    ],
)
def test_bad_integers_name_the_parameter_and_the_range(value, error, message):
    with pytest.raises(error) as caught:
        check_params({"epochs": value}, {"epochs": Interval("integer", 1)})
    assert str(caught.value) == message


@pytest.mark.parametrize("value", [math.nan, math.inf, -0.5, 1.0])
def test_reals_must_be_finite_and_inside_an_open_interval(value):
    with pytest.raises(ValueError, match=r"fraction=.* is not valid; expected a finite number in"):
        check_params({"fraction": value}, {"fraction": Interval("real", 0, 1, closed="neither")})


def test_bounds_closedness_and_optional_values():
    check_params({"rate": 0}, {"rate": Interval("real", 0)})
    check_params({"rank": None}, {"rank": Interval("integer", 1, optional=True)})
    assert Interval("integer", 0, 10).describe() == "an integer in [0, 10]"
    assert Interval("real", 0, 1, closed="left").describe() == "a finite number in [0, 1)"
    assert Interval("real", high=1, closed="neither").describe() == "a finite number < 1"
    assert Interval("integer", 1, optional=True).describe() == "None or an integer >= 1"
    with pytest.raises(ValueError, match="rate=1 is not valid"):
        check_params({"rate": 1}, {"rate": Interval("real", 0, 1, closed="left")})
