"""Sensitive features as a pandas Categorical, and missing labels in one, at the torch
estimators' encoder: read as the score reads them (the core's ``as_frame``), where a
Categorical was refused as a type the encoder did not take."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("faircocco_torch")

from faircocco_torch import FairCOCCOClassifier, SensitiveEncoder  # noqa: E402

LABELS = ["f", "m", "x", "m", "f", "x"]


@pytest.mark.parametrize(
    "categorical",
    [pd.Categorical(LABELS), pd.Series(LABELS, dtype="category")],
    ids=["Categorical", "categorical-Series"],
)
def test_a_categorical_is_one_categorical_attribute(categorical):
    encoder = SensitiveEncoder().fit(categorical)
    [attribute] = encoder.schema_.attributes
    assert (attribute.name, attribute.kind, attribute.columns) == (
        "sensitive_features",
        "categorical",
        (0, 1, 2),
    )
    expected = SensitiveEncoder().fit_transform(pd.Series(LABELS, name="sensitive_features"))
    np.testing.assert_array_equal(encoder.transform(categorical), expected)


def test_a_categorical_of_numbers_is_categorical():
    encoder = SensitiveEncoder().fit(pd.Categorical([3, 1, 2, 1]))
    assert encoder.schema_.attributes[0].kind == "categorical"


@pytest.mark.parametrize("missing", [pd.NA, np.nan, None], ids=["NA", "NaN", "None"])
def test_a_missing_label_in_a_categorical_is_refused_as_missing(missing):
    labels = pd.Categorical(["f", missing, "m", "f"])
    with pytest.raises(ValueError, match="column 'sensitive_features' contains missing values"):
        SensitiveEncoder().fit(labels)


def test_an_estimator_fits_on_a_categorical():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(80, 3))
    y = (x[:, 0] > 0).astype(int)
    groups = pd.Categorical(rng.choice(["a", "b", "c"], 80))
    model = FairCOCCOClassifier(epochs=1, random_state=0).fit(x, y, sensitive_features=groups)
    assert model.predict(x).shape == (80,)
