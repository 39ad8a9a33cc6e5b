"""Input validation, and the defined value 0 for constant variables.

Every rejected input raises the documented error type with a message that names the offending
argument (and column). Constant predictions or a constant attribute carry no information: the
score is exactly 0.0, without NaN and without a warning.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from reference import reference

from faircocco_plugins import (
    faircocco_report,
    faircocco_score,
    faircocco_statistic,
    independence_test,
)

N = 30


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    attribute = rng.normal(size=N)
    y_true = (rng.random(N) < 0.5).astype(np.float64)
    y_pred = attribute + y_true + rng.normal(size=N)
    return y_pred, attribute, y_true


def observed_test_statistic(y_pred, sensitive_features, **options):
    """The permutation test's observed statistic, called like the other public functions."""
    return independence_test(y_pred, sensitive_features, n_permutations=1, **options).statistic


#: every public function that takes rows, as (y_pred, sensitive_features, **options) -> value
PUBLIC_FUNCTIONS = [faircocco_score, faircocco_statistic, faircocco_report, observed_test_statistic]


def with_bad_value(values, bad, row=3):
    values = np.array(values, dtype=np.float64)
    values[row] = bad
    return values


# --- missing and infinite values ----------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_predictions(data, bad):
    y_pred, attribute, _ = data
    with pytest.raises(ValueError, match="y_pred"):
        faircocco_score(with_bad_value(y_pred, bad), attribute)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_sensitive_array(data, bad):
    y_pred, attribute, _ = data
    with pytest.raises(ValueError, match="sensitive_features"):
        faircocco_score(y_pred, with_bad_value(attribute, bad))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_column_of_a_sensitive_dataframe_is_named(data, bad):
    y_pred, attribute, _ = data
    frame = pd.DataFrame({"age": attribute, "income": with_bad_value(attribute, bad)})
    with pytest.raises(ValueError, match="sensitive_features") as error:
        faircocco_score(y_pred, frame)
    assert "income" in str(error.value)
    assert "age" not in str(error.value)


@pytest.mark.parametrize("column", [pd.Categorical(["a", None] * (N // 2)), ["a", None] * (N // 2)])
def test_missing_nominal_value_is_named(data, column):
    y_pred, attribute, _ = data
    frame = pd.DataFrame({"age": attribute, "group": column})
    with pytest.raises(ValueError, match="group"):
        faircocco_score(y_pred, frame)


@pytest.mark.parametrize("notion", ["eo", "cal"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_outcomes(data, notion, bad):
    y_pred, attribute, y_true = data
    with pytest.raises(ValueError, match="y_true"):
        faircocco_score(y_pred, attribute, y_true=with_bad_value(y_true, bad), notion=notion)


def test_non_finite_column_of_2d_predictions_is_named(data):
    y_pred, attribute, _ = data
    predictions = np.column_stack([y_pred, with_bad_value(y_pred, np.nan)])
    with pytest.raises(ValueError, match=re.escape("y_pred[1]")):
        faircocco_score(predictions, attribute)


# --- shapes and lengths ---------------------------------------------------------------------


def test_length_mismatch_with_attributes_names_both_lengths(data):
    y_pred, attribute, _ = data
    with pytest.raises(ValueError) as error:
        faircocco_score(y_pred, attribute[:-1])
    message = str(error.value)
    assert "y_pred" in message and "sensitive_features" in message
    assert str(N) in message and str(N - 1) in message


@pytest.mark.parametrize("function", PUBLIC_FUNCTIONS)
def test_outcomes_are_checked_under_dp_too(data, function):
    """DP does not use y_true, but a y_true of the wrong length is a mistake all the same."""
    y_pred, attribute, y_true = data
    with pytest.raises(ValueError, match=rf"y_true has {N - 4} rows"):
        function(y_pred, attribute, y_true=y_true[:-4])
    with pytest.raises(ValueError, match="y_true column 'y_true' contains NaN"):
        function(y_pred, attribute, y_true=with_bad_value(y_true, np.nan))


def test_length_mismatch_with_outcomes_names_both_lengths(data):
    y_pred, attribute, y_true = data
    with pytest.raises(ValueError) as error:
        faircocco_score(y_pred, attribute, y_true=y_true[:-4], notion="eo")
    message = str(error.value)
    assert "y_true" in message
    assert str(N) in message and str(N - 4) in message


@pytest.mark.parametrize("rows", [0, 1])
def test_fewer_than_two_rows(data, rows):
    y_pred, attribute, _ = data
    with pytest.raises(ValueError, match="y_pred"):
        faircocco_score(y_pred[:rows], attribute[:rows])


def test_empty_lists_are_rejected():
    with pytest.raises(ValueError, match="empty"):
        faircocco_score([], [])


def test_three_dimensional_attributes_are_rejected(data):
    y_pred, _, _ = data
    with pytest.raises(ValueError, match="sensitive_features"):
        faircocco_score(y_pred, np.zeros((N, 2, 2)))


# --- options -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argument", "value", "valid"),
    [
        ("notion", "parity", ["dp", "eo", "cal"]),
        ("method", "fast", ["auto", "exact", "lowrank"]),
        ("attribute_kernel", "sum", ["product", "joint"]),
    ],
)
@pytest.mark.parametrize("function", [faircocco_score, faircocco_statistic, faircocco_report])
def test_unknown_choice_lists_the_valid_ones(data, function, argument, value, valid):
    y_pred, attribute, _ = data
    with pytest.raises(ValueError) as error:
        function(y_pred, attribute, **{argument: value})
    message = str(error.value)
    assert argument in message and value in message
    assert all(choice in message for choice in valid)


@pytest.mark.parametrize("notion", ["eo", "cal"])
@pytest.mark.parametrize("function", [faircocco_score, faircocco_report, independence_test])
def test_conditional_notions_require_outcomes(data, function, notion):
    y_pred, attribute, _ = data
    with pytest.raises(ValueError, match="y_true"):
        function(y_pred, attribute, notion=notion)


@pytest.mark.parametrize(
    ("rank", "error"),
    [(0, ValueError), (-1, ValueError), (1.5, TypeError), ("3", TypeError), (True, TypeError)],
)
def test_bad_rank(data, rank, error):
    y_pred, attribute, _ = data
    with pytest.raises(error, match="rank"):
        faircocco_score(y_pred, attribute, rank=rank)


@pytest.mark.parametrize("eps", [0, -1e-4, np.inf, np.nan, "1e-4", True, None])
def test_bad_eps(data, eps):
    y_pred, attribute, _ = data
    with pytest.raises(ValueError, match="eps"):
        faircocco_score(y_pred, attribute, eps=eps)


@pytest.mark.parametrize("bandwidth", [0, -1.0, np.inf, np.nan, "mean", True, None])
def test_bad_bandwidth(data, bandwidth):
    y_pred, attribute, _ = data
    with pytest.raises(ValueError, match="bandwidth"):
        faircocco_score(y_pred, attribute, bandwidth=bandwidth)


@pytest.mark.parametrize(
    ("seed", "error"),
    [
        (-1, ValueError),
        (2**32, ValueError),
        ("seed", TypeError),
        (1.0, TypeError),
        (True, TypeError),
    ],
)
@pytest.mark.parametrize("function", PUBLIC_FUNCTIONS)
def test_bad_random_state_is_refused_by_every_function(data, function, seed, error):
    # a negative seed was accepted below 1,000 rows and refused by numpy above
    y_pred, attribute, _ = data
    with pytest.raises(error, match="random_state"):
        function(y_pred, attribute, random_state=seed)


@pytest.mark.parametrize("seed", [0, 2**32 - 1, np.int64(7), None])
def test_every_seed_numpy_takes_is_valid(data, seed):
    y_pred, attribute, _ = data
    assert 0 <= faircocco_score(y_pred, attribute, random_state=seed) <= 1


@pytest.mark.parametrize("value", ["no", 1, 0.0, None])
def test_adjusted_must_be_a_boolean(data, value):
    # "no" was read as True
    y_pred, attribute, _ = data
    with pytest.raises(TypeError, match="adjusted must be True or False"):
        faircocco_score(y_pred, attribute, adjusted=value)


def test_numpy_booleans_are_valid_flags(data):
    y_pred, attribute, _ = data
    assert faircocco_score(y_pred, attribute, adjusted=np.True_) == faircocco_score(
        y_pred, attribute, adjusted=True
    )


def test_progress_must_be_a_boolean(data):
    y_pred, attribute, _ = data
    with pytest.raises(TypeError, match="progress must be True or False"):
        independence_test(y_pred, attribute, n_permutations=2, progress="no")


def test_numpy_scalars_are_valid_options(data):
    y_pred, attribute, _ = data
    expected = faircocco_score(
        y_pred, attribute, method="lowrank", rank=10, eps=1e-3, bandwidth=0.5
    )
    for eps, bandwidth in [
        (np.float64(1e-3), np.float64(0.5)),
        (np.float32(1e-3), np.float32(0.5)),
    ]:
        got = faircocco_score(
            y_pred, attribute, method="lowrank", rank=np.int64(10), eps=eps, bandwidth=bandwidth
        )
        assert got == pytest.approx(expected, rel=1e-6)


# --- types -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [{"a": [1.0, 2.0]}, "abc", 3.0, None])
def test_wrong_type_of_predictions(data, value):
    _, attribute, _ = data
    error = ValueError if value is None else TypeError
    with pytest.raises(error, match="y_pred"):
        faircocco_score(value, attribute)


@pytest.mark.parametrize("value", [{"a": list(range(N))}, "abc", {1, 2, 3}])
def test_wrong_type_of_attributes(data, value):
    y_pred, _, _ = data
    with pytest.raises(TypeError, match="sensitive_features"):
        faircocco_score(y_pred, value)


def test_datetime_column_is_rejected_and_named(data):
    y_pred, attribute, _ = data
    frame = pd.DataFrame({"age": attribute, "born": pd.date_range("2000-01-01", periods=N)})
    with pytest.raises(TypeError, match="born"):
        faircocco_score(y_pred, frame)


def test_datetime_array_is_rejected(data):
    y_pred, _, _ = data
    with pytest.raises(TypeError, match="sensitive_features"):
        faircocco_score(y_pred, np.arange(N).astype("datetime64[D]"))


@pytest.mark.parametrize("target", ["y_pred", "sensitive_features", "y_true"])
def test_complex_dtype_is_rejected(data, target):
    y_pred, attribute, y_true = data
    values = {"y_pred": y_pred, "sensitive_features": attribute, "y_true": y_true}
    values[target] = values[target] + 1j
    with pytest.raises(TypeError, match=target):
        faircocco_score(
            values["y_pred"], values["sensitive_features"], y_true=values["y_true"], notion="eo"
        )


def test_complex_dataframe_column_is_named(data):
    y_pred, attribute, _ = data
    with pytest.raises(TypeError, match="phase"):
        faircocco_score(y_pred, pd.DataFrame({"age": attribute, "phase": attribute + 1j}))


def test_data_of_the_wrong_type(data):
    with pytest.raises(TypeError, match="data"):
        faircocco_score("y_pred", ["a"], data=42)


# --- constant variables ------------------------------------------------------------------------


def no_warning_score(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return faircocco_score(*args, **kwargs), faircocco_statistic(*args, **kwargs)


CONSTANTS = [0.0, 0.3, -7.25, 350_000.0, 1e8]


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("notion", ["dp", "eo"])
@pytest.mark.parametrize("n", [50, 300])
def test_constant_predictions_score_exactly_zero(method, notion, n):
    rng = np.random.default_rng(n)
    attributes = pd.DataFrame({"x": rng.normal(size=n), "g": rng.choice(["a", "b"], n)})
    y_true = (rng.random(n) < 0.5).astype(np.float64)
    for value in CONSTANTS:
        for y_pred in (np.full(n, value), np.full((n, 2), value) + np.array([0.0, 2.5])):
            score, statistic = no_warning_score(
                y_pred, attributes, y_true=y_true, notion=notion, method=method
            )
            assert score == 0.0, (value, y_pred.shape)
            assert np.isfinite(statistic)


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
def test_constant_attribute_scores_exactly_zero(method, notion):
    """A constant attribute is independent of everything, given anything."""
    n = 60
    rng = np.random.default_rng(1)
    y_true = (rng.random(n) < 0.5).astype(np.float64)
    y_pred = y_true + rng.normal(size=n)
    constant_attributes = {
        "numeric": np.full(n, 2.5),
        "numeric columns": np.full((n, 2), 1e4) * [1.0, 3.0],
        "categorical with one level": pd.DataFrame({"g": pd.Categorical(["only"] * n)}),
        "string with one level": pd.DataFrame({"s": ["x"] * n}),
        "all true": pd.DataFrame({"b": np.ones(n, dtype=bool)}),
    }
    for kind, attribute in constant_attributes.items():
        score, statistic = no_warning_score(
            y_pred, attribute, y_true=y_true, notion=notion, method=method
        )
        assert score == 0.0, (kind, score)
        assert np.isfinite(statistic)


@pytest.mark.parametrize("method", ["exact", "lowrank"])
def test_cal_with_constant_predictions_is_dp_of_the_outcome(method):
    """Conditioning on a constant is no conditioning: ``Y ⊥ A | Ŷ`` becomes ``Y ⊥ A``."""
    n = 60
    rng = np.random.default_rng(2)
    attribute = rng.normal(size=n)
    y_true = attribute + rng.normal(size=n)
    expected = faircocco_score(y_true, attribute, method=method)
    assert expected > 0.05
    for value in (0.0, 350_000.0):
        score, _ = no_warning_score(
            np.full(n, value), attribute, y_true=y_true, notion="cal", method=method
        )
        assert score == pytest.approx(expected, rel=1e-8), value


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_constant_torch_predictions_score_zero_with_finite_gradient(notion):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    attribute = rng.normal(size=40)
    y_true = (rng.random(40) < 0.5).astype(np.float64)
    y_pred = torch.full((40,), 0.7, dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        score = faircocco_score(y_pred, attribute, y_true=y_true, notion=notion)
        score.backward()
    assert score.item() == 0.0
    assert torch.all(torch.isfinite(y_pred.grad))


def test_report_of_a_constant_attribute(data):
    y_pred, attribute, _ = data
    frame = pd.DataFrame({"x": attribute, "g": pd.Categorical(["only"] * N)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = faircocco_report(y_pred, frame)
    assert report.loc["g", "score"] == 0.0
    assert report.loc["g", "adjusted"] == 0.0
    assert report.loc["joint", "score"] == pytest.approx(report.loc["x", "score"], rel=1e-8)
    assert report.notna().all().all()


def test_arrays_without_columns_are_rejected(data):
    y_pred, _, _ = data
    with pytest.raises(ValueError, match="sensitive_features has no columns"):
        faircocco_statistic(y_pred, np.zeros((N, 0)), notion="dp")


def test_numeric_arrays_are_read_like_the_equivalent_dataframe(data):
    # numeric arrays skip the DataFrame; names, values and scores must not change
    from faircocco_plugins._inputs.variables import to_variable

    y_pred, attribute, y_true = data
    block = np.column_stack([attribute, np.arange(N) % 3])
    frame = pd.DataFrame(block, columns=["sensitive_features[0]", "sensitive_features[1]"])
    from_array = to_variable(block, "sensitive_features", None)
    from_frame = to_variable(frame, "sensitive_features", None)
    assert from_array.names == from_frame.names
    assert from_array.numeric_names == from_frame.numeric_names
    np.testing.assert_array_equal(from_array.numeric, from_frame.numeric)
    assert faircocco_score(y_pred, block, y_true=y_true) == faircocco_score(
        y_pred, frame, y_true=y_true
    )


def test_duplicate_column_names_are_named(data):
    y_pred, attribute, _ = data
    frame = pd.DataFrame({"a": attribute, "b": attribute}).set_axis(["a", "a"], axis=1)
    with pytest.raises(ValueError, match=re.escape("duplicate column names ['a']")):
        faircocco_score(y_pred, frame)


def test_strings_among_numbers_are_refused_with_the_column_and_values(data):
    y_pred, attribute, _ = data
    age = pd.Series(np.round(attribute * 10 + 40), dtype=object)
    age[[2, 5]] = "unknown"
    with pytest.raises(
        ValueError, match=r"column 'age' mixes strings \(1 distinct, e.g. \['unknown'\]"
    ):
        faircocco_score(y_pred, pd.DataFrame({"age": age}))


def test_labels_of_two_types_are_refused(data):
    y_pred, _, _ = data
    sex = pd.DataFrame({"sex": ["f", "m", 1] * (N // 3)})
    with pytest.raises(ValueError, match=r"column 'sex' mixes strings \(2 distinct.*e.g. \[1\]"):
        faircocco_score(y_pred, sex)


def test_booleans_and_strings_of_one_kind_stay_nominal(data):
    y_pred, _, _ = data
    flags = pd.DataFrame({"flag": pd.Series([True, False] * (N // 2), dtype=object)})
    as_bool = pd.DataFrame({"flag": [True, False] * (N // 2)})
    assert faircocco_score(y_pred, flags) == faircocco_score(y_pred, as_bool)


@pytest.mark.parametrize("width", [64, 70])
def test_many_one_hot_columns_are_factored(width):
    # one 0/1 column per level: more columns than numpy has dimensions for an index
    rng = np.random.default_rng(0)
    level = rng.integers(0, width, 300)
    onehot = (level[:, None] == np.arange(width)).astype(float)
    y_pred = rng.normal(size=300) + (level % 2)
    _, expected = reference(y_pred, onehot, attribute_kernel="product")
    score = faircocco_score(y_pred, onehot, method="lowrank")
    # the predictions' incomplete Cholesky factor: measured 1.4e-5 and 2.5e-5
    assert score == pytest.approx(expected, rel=5e-5)


def test_many_discrete_columns_whose_level_key_overflows():
    # 30**13 combinations do not fit an int64 key; each of the 200 rows is its own combination
    rng = np.random.default_rng(0)
    columns = pd.DataFrame(
        {f"c{j}": np.char.add("level ", rng.integers(0, 30, 200).astype(str)) for j in range(13)}
    )
    y_pred = rng.normal(size=200)
    _, expected = reference(y_pred, columns, attribute_kernel="product")
    score = faircocco_score(y_pred, columns, method="lowrank")
    # the predictions' incomplete Cholesky factor: measured 1.0e-4 (pivots of the rows in their
    # canonical order; 5.0e-5 in the given order)
    assert score == pytest.approx(expected, rel=2e-4)


def test_exact_method_refuses_more_rows_than_it_can_handle_before_any_work():
    rng = np.random.default_rng(0)
    n = 60_000  # n × n float64 would be 26.8 GiB
    with pytest.raises(ValueError, match=r"method='exact' at 60,000 rows .* 26\.8 GiB each"):
        faircocco_score(rng.normal(size=n), rng.integers(0, 2, n), method="exact")


def test_too_many_levels_gives_advice_that_works():
    rng = np.random.default_rng(0)
    n = 2000
    ids = np.char.add("id", rng.integers(0, 1000, n).astype(str))
    y_pred = rng.normal(size=n)
    with pytest.raises(ValueError, match=r"keep the 255 most frequent .* at most 10,000 rows"):
        faircocco_score(y_pred, ids, method="lowrank")
    # the advice: the exact method at this size, or rare levels merged
    assert 0 <= faircocco_score(y_pred, ids, method="exact") <= 1
    counts = pd.Series(ids).value_counts()
    merged = np.where(pd.Series(ids).isin(counts.index[:255]), ids, "other")
    assert 0 <= faircocco_score(y_pred, merged, method="lowrank") <= 1


def test_a_pandas_categorical_outcome_is_read_like_its_series(data):
    y_pred, attribute, y_true = data
    labels = pd.Categorical(np.where(y_true > 0, "pass", "fail"))
    assert faircocco_score(y_pred, attribute, y_true=labels, notion="eo") == faircocco_score(
        y_pred, attribute, y_true=pd.Series(labels), notion="eo"
    )


# --- pandas indexes ----------------------------------------------------------------------------


def as_values(result):
    """A public function's result as an array, for comparing them all alike."""
    if isinstance(result, pd.DataFrame):
        return result[["score", "adjusted", "null_mean", "statistic"]].to_numpy(dtype=float)
    return np.asarray(result, dtype=float)


@pytest.mark.parametrize("function", PUBLIC_FUNCTIONS)
@pytest.mark.parametrize("labels", ["permuted", "reversed"])
def test_pandas_inputs_pair_rows_by_label(data, function, labels):
    """Rows of pandas inputs pair by index label, not position (the permuted case paired
    positions before: 0.026 against 0.052 on a larger sample)."""
    y_pred, attribute, y_true = data
    order = np.random.default_rng(1).permutation(N) if labels == "permuted" else np.arange(N)[::-1]
    people = pd.DataFrame({"age": attribute, "member": y_true > 0})
    expected = function(y_pred, people, method="exact")
    shuffled = pd.Series(y_pred[order], index=order)
    got = function(shuffled, people, method="exact")
    # the same pairs in another row order: equal to rounding (1e-15 measured)
    np.testing.assert_allclose(as_values(got), as_values(expected), rtol=1e-9, atol=1e-12)


def test_outcomes_align_to_the_first_pandas_input(data):
    y_pred, attribute, y_true = data
    order = np.random.default_rng(2).permutation(N)
    expected = faircocco_score(y_pred, attribute, y_true=y_true, notion="eo", method="exact")
    got = faircocco_score(
        pd.Series(y_pred[order], index=order),
        pd.Series(attribute[order], index=order),
        y_true=pd.Series(y_true),
        notion="eo",
        method="exact",
    )
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_equal_indexes_pair_as_given_even_with_repeated_labels(data):
    y_pred, attribute, _ = data
    index = np.arange(N) // 2  # each label twice, the same in both
    got = faircocco_score(pd.Series(y_pred, index=index), pd.Series(attribute, index=index))
    assert got == faircocco_score(y_pred, attribute)


@pytest.mark.parametrize(
    ("pred_index", "attribute_index", "match"),
    [
        (np.arange(N), np.arange(N) + 5, r"different labels \(e.g. 0 is in the index of y_pred"),
        (np.arange(N) // 2, np.arange(N), "that of y_pred repeats labels"),
        (np.arange(N), (np.arange(N) // 2)[::-1], "that of sensitive_features repeats labels"),
        (np.arange(N), np.arange(N).astype(str), "different labels"),
    ],
    ids=["disjoint", "repeated-first", "repeated-second", "other-type"],
)
def test_pandas_indexes_that_cannot_pair_are_refused(data, pred_index, attribute_index, match):
    y_pred, attribute, _ = data
    pred = pd.Series(y_pred, index=pred_index)
    people = pd.DataFrame({"age": attribute}, index=attribute_index)
    with pytest.raises(ValueError, match=match) as error:
        faircocco_score(pred, people)
    assert "y_pred and sensitive_features" in str(error.value)
    assert ".reset_index(drop=True) on both" in str(error.value)
    # the advice works
    faircocco_score(pred.reset_index(drop=True), people.reset_index(drop=True))


def test_pandas_inputs_of_different_lengths_get_the_length_message(data):
    y_pred, attribute, _ = data
    with pytest.raises(ValueError, match=f"y_pred has {N} rows but sensitive_features has"):
        faircocco_score(pd.Series(y_pred), pd.Series(attribute[:-1], index=np.arange(1, N)))


def test_non_pandas_inputs_pair_by_position(data):
    y_pred, attribute, _ = data
    order = np.random.default_rng(3).permutation(N)
    assert faircocco_score(y_pred, pd.Series(attribute, index=order)) == faircocco_score(
        y_pred, attribute
    )


# --- numbers stored as text or objects ---------------------------------------------------------


def ages(n, seed=0):
    rng = np.random.default_rng(seed)
    age = np.round(rng.uniform(18, 80, n), 1)
    return age + rng.normal(scale=10, size=n), age


def test_numbers_stored_as_objects_warn_and_say_how_to_declare_them():
    # read as one level per value, the score was 2.7e-14 instead of about 0.1
    y_pred, age = ages(200)
    with pytest.warns(UserWarning) as caught:
        faircocco_score(y_pred, pd.Series(age, dtype=object, name="age"))
    message = str(caught[0].message)
    assert "sensitive_features column 'age' holds numbers stored as object" in message
    assert ".astype(float) for a continuous attribute" in message
    assert ".astype('category') for labels" in message
    assert len(caught) == 1 and "\n" not in message


def test_declared_numbers_stored_as_objects_do_not_warn():
    y_pred, age = ages(200)
    stored = pd.Series(age, dtype=object, name="age")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        continuous = faircocco_score(y_pred, stored.astype(float))
        labels = faircocco_score(y_pred, stored.astype("category"), method="exact")
    assert continuous == faircocco_score(y_pred, age)
    assert continuous > 0.1
    assert 0 <= labels <= 1


@pytest.mark.parametrize(
    "column",
    [
        pd.Series(["1", "2.5", "3e1"] * 10, dtype=object),
        pd.Series(["1", "2", "3"] * 10, dtype="string"),
        pd.Series([1, 2, 3] * 10, dtype=object),
    ],
    ids=["numeric-text", "string-dtype", "integers-as-objects"],
)
def test_every_kind_of_number_stored_as_labels_warns(data, column):
    y_pred, _, _ = data
    with pytest.warns(UserWarning, match="column 'group' holds numbers stored as"):
        faircocco_score(y_pred, column.rename("group"))


def test_rows_of_numbers_and_text_warn_about_the_numeric_column_only():
    y_pred, age = ages(200)
    rows = [[a, "f" if a > 50 else "m"] for a in age]
    with pytest.warns(UserWarning) as caught:
        faircocco_score(y_pred, rows)
    assert [str(w.message).split(" holds")[0] for w in caught] == [
        "sensitive_features column 'sensitive_features[0]'"
    ]


def test_text_and_booleans_do_not_warn(data):
    y_pred, _, _ = data
    frame = pd.DataFrame(
        {
            "sex": ["f", "m"] * (N // 2),
            "flag": pd.Series([True, False] * (N // 2), dtype=object),
            "code": ["a1", "2"] * (N // 2),
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        faircocco_score(y_pred, frame)


def test_too_many_level_combinations_name_the_column_and_the_fix():
    # was: "the nominal columns of one variable have 300 level combinations"
    y_pred, age = ages(300)
    stored = pd.DataFrame({"sex": np.arange(300) % 2 == 0, "age": pd.Series(age, dtype=object)})
    with (
        pytest.warns(UserWarning, match="column 'age'"),
        pytest.raises(
            ValueError,
            match=r"combinations .* in sensitive_features column 'sex' \(2 levels\), "
            r"sensitive_features column 'age' \(\d+ levels\)\. .* pass it as numbers "
            r"\(\.astype\(float\)\)",
        ),
    ):
        faircocco_score(y_pred, stored, method="lowrank")
    # the fix works
    assert faircocco_score(y_pred, stored.astype({"age": float}), method="lowrank") > 0.1


def test_too_many_combinations_with_the_outcome_name_both_arguments():
    rng = np.random.default_rng(0)
    groups = pd.Series(np.char.add("g", rng.integers(0, 200, 1000).astype(str)), name="group")
    y_true = pd.Series(rng.choice(["pass", "fail"], 1000), name="result")
    with pytest.raises(
        ValueError, match=r"'group' \(\d+ levels\), y_true column 'result' \(2 levels\)"
    ):
        faircocco_score(rng.normal(size=1000), groups, y_true=y_true, notion="eo")


@pytest.mark.parametrize("other", [["b", "c"], 1], ids=["lists", "lists-and-integers"])
def test_lists_in_an_object_column_are_refused_by_name(data, other):
    y_pred, attribute, _ = data
    tags = pd.Series([["a"], other] * (N // 2))
    with pytest.raises(
        TypeError, match=r"column 'tags' holds values of type list \(e.g. \['a'\]\)"
    ):
        faircocco_score(y_pred, pd.DataFrame({"age": attribute, "tags": tags}))


def test_column_names_that_read_the_same_are_refused(data):
    y_pred, attribute, _ = data
    frame = pd.DataFrame({1: attribute, "1": attribute[::-1]})
    with pytest.raises(ValueError, match=re.escape("duplicate column names ['1']")):
        faircocco_report(y_pred, frame)


# --- tensors beside numpy ----------------------------------------------------------------------


MIXES = ["torch-attribute", "torch-outcome", "torch-bool-attribute", "torch-tracked-attribute"]


@pytest.mark.parametrize("mix", MIXES)
def test_numpy_predictions_with_tensor_inputs_compute_with_numpy(data, mix):
    """The namespace of y_pred wins: the others are converted to numpy, and a bool tensor is
    nominal like a numpy bool array."""
    torch = pytest.importorskip("torch")
    y_pred, attribute, y_true = data
    group = attribute > 0
    options = {"y_true": y_true, "notion": "eo"}
    if mix == "torch-attribute":
        expected = faircocco_score(y_pred, attribute, **options)
        got = faircocco_score(y_pred, torch.tensor(attribute), **options)
    elif mix == "torch-tracked-attribute":
        expected = faircocco_score(y_pred, attribute, **options)
        got = faircocco_score(y_pred, torch.tensor(attribute, requires_grad=True), **options)
    elif mix == "torch-outcome":
        expected = faircocco_score(y_pred, attribute, **options)
        got = faircocco_score(y_pred, attribute, y_true=torch.tensor(y_true), notion="eo")
    else:
        expected = faircocco_score(y_pred, group, **options)
        got = faircocco_score(y_pred, torch.tensor(group), **options)
    assert isinstance(got, float)
    assert got == expected
