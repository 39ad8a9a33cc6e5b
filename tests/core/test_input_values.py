"""Inputs that numpy or pandas would misread, or fail on deep inside: each read correctly or
refused by name, in one line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins import faircocco_report, faircocco_score
from faircocco_plugins.plugins import attribute_kind

pa = pytest.importorskip("pyarrow")

N = 120


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    group = rng.choice(["a", "b", "c"], N)
    y_pred = (group == "b") + rng.normal(size=N)
    return y_pred, group


def one_line(error):
    message = str(error.value)
    assert "\n" not in message
    return message


# --- pyarrow dictionary columns ----------------------------------------------------------------


def dictionary_column(values, value_type):
    encoded = pa.array(values).dictionary_encode().cast(pa.dictionary(pa.int32(), value_type))
    return pd.Series(pd.arrays.ArrowExtensionArray(encoded), name="group")


def test_a_pyarrow_dictionary_column_is_a_categorical(data):
    """Before, it was refused as an unsupported dtype (and attribute_kind called it continuous)."""
    y_pred, group = data
    column = dictionary_column(group, pa.string())
    expected = faircocco_score(y_pred, pd.Series(group, dtype="category", name="group"))
    assert faircocco_score(y_pred, column) == expected
    assert faircocco_score(y_pred, pd.DataFrame({"group": column})) == expected
    assert attribute_kind(column) == "categorical"


def test_a_pyarrow_dictionary_of_numbers_is_labels_without_a_warning(data):
    y_pred, group = data
    codes = np.searchsorted(["a", "b", "c"], group) * 10
    column = dictionary_column(codes, pa.int64())
    expected = faircocco_score(y_pred, pd.Series(codes, dtype="category"))
    assert faircocco_score(y_pred, column) == expected  # pytest turns the warning into an error


def test_a_pyarrow_dictionary_outcome_is_read_like_its_categorical(data):
    y_pred, group = data
    outcome = dictionary_column(np.where(group == "a", "pass", "fail"), pa.string())
    as_category = pd.Series(outcome.to_numpy(dtype=object), dtype="category")
    assert faircocco_score(y_pred, group, y_true=outcome, notion="eo") == faircocco_score(
        y_pred, group, y_true=as_category, notion="eo"
    )


def test_missing_values_in_a_pyarrow_dictionary_column_are_named(data):
    y_pred, group = data
    column = dictionary_column([None, *group[1:]], pa.string())
    with pytest.raises(ValueError, match="column 'group' contains missing values"):
        faircocco_score(y_pred, column)


# --- ragged lists ------------------------------------------------------------------------------


@pytest.mark.parametrize("argument", ["y_pred", "sensitive_features", "y_true"])
def test_a_ragged_list_of_rows_is_refused_by_name(data, argument):
    """Before, numpy's "inhomogeneous shape" message, which names no argument."""
    y_pred, group = data
    ragged = [[1.0, 2.0]] * (N - 1) + [[3.0]]
    arguments = {"y_pred": y_pred, "sensitive_features": group, "y_true": y_pred > 0}
    arguments[argument] = ragged
    with pytest.raises(ValueError, match=f"^{argument} has rows of different lengths") as error:
        faircocco_score(
            arguments["y_pred"],
            arguments["sensitive_features"],
            y_true=arguments["y_true"],
            notion="eo",
        )
    assert "1 and 2 values" in one_line(error)


# --- masked arrays -----------------------------------------------------------------------------


@pytest.mark.parametrize("argument", ["y_pred", "sensitive_features", "y_true"])
def test_a_masked_array_with_masked_entries_is_refused(data, argument):
    """Before, the mask was dropped and the masked values scored as if they were data."""
    y_pred, group = data
    codes = np.searchsorted(["a", "b", "c"], group).astype(float)
    arguments = {"y_pred": y_pred, "sensitive_features": codes, "y_true": y_pred > 0}
    mask = np.zeros(N, dtype=bool)
    mask[[3, 7]] = True
    arguments[argument] = np.ma.masked_array(arguments[argument], mask=mask)
    with pytest.raises(TypeError, match=f"^{argument} is a numpy masked array") as error:
        faircocco_report(
            arguments["y_pred"],
            arguments["sensitive_features"],
            y_true=arguments["y_true"],
            notion="eo",
        )
    message = one_line(error)
    assert "2 masked entries" in message
    assert ".filled(" in message
    assert "drop" in message


def test_a_masked_array_with_nothing_masked_is_its_data(data):
    y_pred, group = data
    assert faircocco_score(np.ma.masked_array(y_pred), group) == faircocco_score(y_pred, group)


# --- object columns mixing booleans and numbers ------------------------------------------------


@pytest.mark.parametrize("number", [1.5, 2, np.float64(0.25)], ids=["float", "int", "numpy"])
def test_booleans_mixed_with_numbers_are_refused_by_column(data, number):
    """Before, [True, 1.5] became two labels, and True and 1 one label, without a word."""
    y_pred, _ = data
    mixed = np.array([True, False, number] * (N // 3), dtype=object)
    with pytest.raises(ValueError, match="column 'flag' mixes booleans") as error:
        faircocco_score(y_pred, pd.DataFrame({"flag": mixed, "age": y_pred}))
    assert ".astype(float)" in one_line(error)


def test_booleans_stored_as_objects_stay_labels(data):
    y_pred, _ = data
    flags = np.array([True, False, False] * (N // 3), dtype=object)
    assert faircocco_score(y_pred, flags) == faircocco_score(y_pred, flags.astype(bool))


# --- data= of the wrong type -------------------------------------------------------------------


def test_data_as_a_dict_is_refused_with_the_fix(data):
    """Before: "data chunks must be pandas DataFrames; got str" (the dict's keys as chunks)."""
    y_pred, group = data
    columns = {"p": y_pred, "g": group}
    with pytest.raises(TypeError, match=r"^data is a dict; pass pandas.DataFrame\(data\)"):
        faircocco_score("p", ["g"], data=columns)
    assert faircocco_score("p", ["g"], data=pd.DataFrame(columns)) == faircocco_score(
        y_pred, pd.DataFrame({"g": group})
    )


def test_data_of_file_names_is_refused_with_how_to_read_them():
    from faircocco_plugins import faircocco_score

    with pytest.raises(TypeError, match=r"got str: data= takes DataFrames, not files"):
        faircocco_score("p", ["a"], data=["part-0.csv", "part-1.csv"])
