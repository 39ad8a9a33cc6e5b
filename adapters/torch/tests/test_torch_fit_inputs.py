"""The estimators' and the encoder's inputs: rows paired by the core's rule, values checked by
name with the core's messages."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")
pa = pytest.importorskip("pyarrow")

from faircocco_torch import FairCOCCOClassifier, SensitiveEncoder  # noqa: E402

N = 80


@pytest.fixture
def rows():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x0": rng.normal(size=N), "x1": rng.normal(size=N)})
    A = pd.DataFrame({"sex": rng.choice(["f", "m"], N), "age": rng.uniform(18, 80, N)})
    y = pd.Series((X["x0"] + (A["sex"] == "m") > 0.5).astype(int))
    return X, y, A


def classifier():
    return FairCOCCOClassifier(notion="dp", lam=0.5, epochs=2, batch_size=32, random_state=0)


def shuffled(table, seed=1):
    return table.sample(frac=1, random_state=seed)


def test_attributes_in_another_order_than_x_and_y_pair_by_label(rows):
    """Before, the attributes paired with X's rows by position: another fit."""
    X, y, A = rows
    Xs, ys = shuffled(X), shuffled(y)
    expected = classifier().fit(Xs, ys, sensitive_features=A.loc[Xs.index]).predict_proba(X)
    got = classifier().fit(Xs, ys, sensitive_features=A).predict_proba(X)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("positional", ["y", "sample_weight"])
def test_an_array_beside_pandas_rows_in_different_orders_is_refused(rows, positional):
    X, y, A = rows
    arguments = {"y": shuffled(y), "sample_weight": None}
    arguments[positional] = np.ones(N) if positional == "sample_weight" else y.to_numpy()
    with pytest.raises(ValueError, match=rf"^{positional} is positional .*reset_index") as error:
        classifier().fit(shuffled(X), sensitive_features=A, **arguments)
    assert "\n" not in str(error.value)


def test_arrays_pair_by_position_beside_one_pandas_input(rows):
    X, y, A = rows
    expected = classifier().fit(X.to_numpy(), y.to_numpy(), sensitive_features=A)
    got = classifier().fit(
        X.to_numpy(), y.to_numpy(), sensitive_features=A.set_axis(shuffled(A).index)
    )
    np.testing.assert_array_equal(
        got.predict_proba(X.to_numpy()), expected.predict_proba(X.to_numpy())
    )


def test_a_pyarrow_dictionary_column_is_categorical():
    region = np.random.default_rng(1).choice(["north", "south", "east"], N)
    encoded = pa.array(region).dictionary_encode()
    table = pd.DataFrame({"region": pd.arrays.ArrowExtensionArray(encoded)})
    encoder = SensitiveEncoder().fit(table)
    assert encoder.schema_.kinds == ("categorical",)
    expected = SensitiveEncoder().fit_transform(pd.DataFrame({"region": region}))
    assert torch.equal(encoder.transform(table), expected)


def test_a_ragged_list_of_rows_is_refused_by_name():
    with pytest.raises(ValueError, match=r"^sensitive_features has rows of different lengths"):
        SensitiveEncoder().fit([["f", 30.0], ["m"], ["f", 40.0]])


def test_a_masked_array_is_refused_by_name():
    age = np.ma.masked_invalid([20.0, np.nan, 40.0, 50.0])
    with pytest.raises(TypeError, match=r"^sensitive_features is a numpy masked array"):
        SensitiveEncoder().fit(age)


def test_booleans_mixed_with_numbers_are_refused_by_column():
    flags = pd.DataFrame({"flag": np.array([True, 1.5, False, 2.5], dtype=object)})
    with pytest.raises(ValueError, match=r"column 'flag' mixes booleans with numbers"):
        SensitiveEncoder().fit(flags)


def test_a_penalty_refuses_masked_attributes_by_name():
    from faircocco_torch import FairCOCCOPenalty

    sensitive = np.ma.masked_greater(np.linspace(0.0, 1.0, 8), 0.9)
    with pytest.raises(TypeError, match=r"^sensitive is a numpy masked array"):
        FairCOCCOPenalty(notion="dp").fit(sensitive)


def test_without_attributes_x_y_and_weights_pair_by_position(rows):
    """As in scikit-learn: fairlearn's reductions pass X with its own index beside y and
    sample_weight renumbered from 0, in X's order."""
    X, y, _ = rows
    order = np.random.default_rng(2).permutation(N)
    weights = np.linspace(0.5, 1.5, N)
    model = FairCOCCOClassifier(penalty=None, epochs=2, batch_size=32, random_state=0)
    expected = model.fit(X.to_numpy()[order], y.to_numpy()[order], sample_weight=weights)
    got = clone_of(model).fit(
        X.iloc[order], pd.Series(y.to_numpy()[order]), sample_weight=pd.Series(weights)
    )
    # a DataFrame's columns are summed in another memory order: 1e-16 measured
    np.testing.assert_allclose(
        got.predict_proba(X), expected.predict_proba(X.to_numpy()), rtol=0, atol=1e-12
    )


def clone_of(model):
    from sklearn.base import clone

    return clone(model)


@pytest.mark.filterwarnings("ignore:FairCOCCOClassifier.fit got no sensitive_features")
@pytest.mark.filterwarnings("ignore::faircocco_plugins.plugins.DegenerateModelWarning")
@pytest.mark.parametrize("argument", ["X", "y", "sample_weight"])
def test_masked_entries_are_refused_by_name_not_trained_on(argument):
    from faircocco_torch import FairCOCCOClassifier

    rng = np.random.default_rng(0)
    data = {
        "X": rng.normal(size=(40, 2)),
        "y": rng.integers(0, 2, 40),
        "sample_weight": np.ones(40),
    }
    value = data[argument]
    rows = np.arange(40) % 7 == 0
    data[argument] = np.ma.masked_array(
        value, mask=np.broadcast_to(rows.reshape(40, *[1] * (value.ndim - 1)), value.shape)
    )
    model = FairCOCCOClassifier(epochs=1)
    with pytest.raises(TypeError, match=rf"^{argument} is a numpy masked array"):
        model.fit(data["X"], data["y"], sample_weight=data["sample_weight"])
    if argument == "X":
        model.fit(data["X"].data, data["y"])
        with pytest.raises(TypeError, match=r"^X is a numpy masked array"):
            model.predict(data["X"])
