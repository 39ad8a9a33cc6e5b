"""The metric's and the packing's inputs: paired by the core's rule, checked by name."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from faircocco_fairlearn import faircocco_metric, faircocco_metric_report, faircocco_sample_params

N = 300


@pytest.fixture
def people():
    rng = np.random.default_rng(0)
    A = pd.DataFrame({"sex": rng.choice(["f", "m"], N), "age": rng.uniform(18, 80, N)})
    y = pd.Series((rng.random(N) < 0.4).astype(int))
    p = y.to_numpy() + 0.02 * A["age"].to_numpy() + rng.normal(size=N)
    return A, y, p


def shuffled(values, seed=1):
    return values.sample(frac=1, random_state=seed)


@pytest.mark.parametrize("function", [faircocco_metric, faircocco_metric_report])
def test_array_predictions_beside_pandas_rows_in_different_orders_are_refused(people, function):
    """Before, y_true was put in the table's order by label and y_pred kept its positions."""
    A, y, p = people
    with pytest.raises(ValueError, match=r"^y_pred is positional .*reset_index\(drop=True\)"):
        function(y, p, sensitive_features=shuffled(A))
    # the predictions with the index of their rows pair by label
    expected = faircocco_metric(y, p, sensitive_features=A)
    got = faircocco_metric(y, pd.Series(p, index=y.index), sensitive_features=shuffled(A))
    assert got == pytest.approx(expected, rel=1e-9)


def test_under_dp_the_unused_outcomes_do_not_decide_the_pairing(people):
    A, y, p = people
    expected = faircocco_metric(y, p, sensitive_features=A, notion="dp")
    got = faircocco_metric(y.to_numpy(), pd.Series(p), sensitive_features=shuffled(A), notion="dp")
    assert got == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("function", [faircocco_metric, faircocco_metric_report])
def test_outcomes_of_another_length_are_refused_under_dp_too(people, function):
    """Before, DP never looked at y_true, so outcomes of other rows passed unnoticed."""
    A, y, p = people
    with pytest.raises(ValueError, match=f"sensitive_features has {N} rows and y_true has {N - 1}"):
        function(y[:-1], p, sensitive_features=A, notion="dp")


def test_array_outcomes_leave_a_shuffled_table_unpaired_and_warn(people):
    """Before, any y_true silenced the warning, though an array cannot give the table an order."""
    A, y, _ = people
    with pytest.warns(UserWarning, match="index out of increasing order"):
        faircocco_sample_params(shuffled(A), y_true=y.to_numpy())


def test_pandas_outcomes_put_a_shuffled_table_in_order_without_a_warning(people):
    A, y, p = people
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        packed = faircocco_sample_params(shuffled(A), y_true=y, y_pred=p)["sensitive_features"]
    assert faircocco_metric(y, p, sensitive_features=packed) == faircocco_metric(
        y, p, sensitive_features=A
    )


def test_a_ragged_list_of_attribute_rows_is_refused_by_name(people):
    _, y, p = people
    ragged = [["f", 30.0]] * (N - 1) + [["m"]]
    with pytest.raises(ValueError, match=r"^sensitive_features has rows of different lengths"):
        faircocco_metric(y, p, sensitive_features=ragged)


def test_masked_attributes_are_refused(people):
    _, y, p = people
    age = np.ma.masked_greater(np.linspace(18, 80, N), 75)
    with pytest.raises(TypeError, match=r"^sensitive_features is a numpy masked array"):
        faircocco_metric(y, p, sensitive_features=age)
    with pytest.raises(TypeError, match=r"^sensitive_features is a numpy masked array"):
        faircocco_sample_params(age)
