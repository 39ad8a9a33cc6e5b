"""The aif360.sklearn-style estimator reads the protected attributes from the index."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from aif360_helpers import frame

from faircocco_aif360 import FairCOCCOInprocessing as Transformer
from faircocco_aif360.sklearn import FairCOCCOInprocessing

FAST = {"epochs": 5, "random_state": 0}


def indexed(drop: bool = False):
    df = frame()
    X = df.drop(columns="y").set_index(["age", "income"], drop=drop)
    y = pd.Series(df["y"].astype(int).to_numpy(), index=X.index)
    return X, y


def test_it_trains_the_same_network_as_the_transformer(binary_dataset):
    X, y = indexed()
    model = FairCOCCOInprocessing(["age", "income"], notion="eo", **FAST).fit(X, y)
    classic = Transformer(notion="eo", **FAST).fit_predict(binary_dataset)
    assert model.prot_attr_ == ["age", "income"]
    assert list(model.feature_names_in_) == ["x", "z"]
    assert np.array_equal(model.predict_proba(X)[:, 1], classic.scores.ravel())
    assert np.array_equal(model.predict(X), classic.labels.ravel().astype(int))
    assert list(model.classes_) == [0, 1]


def test_prot_attr_none_takes_every_index_level_and_columns_can_stay_features():
    X, y = indexed()
    default = FairCOCCOInprocessing(**FAST).fit(X, y)
    assert default.prot_attr_ == ["age", "income"]
    only_age = FairCOCCOInprocessing("age", drop_prot_attr=False, **FAST).fit(X, y)
    assert only_age.prot_attr_ == ["age"]
    assert list(only_age.feature_names_in_) == ["x", "z", "age", "income"]


# positives drawn five times as often: the network predicts the positive class only
@pytest.mark.filterwarnings("ignore::faircocco_torch.DegenerateModelWarning")
def test_sample_weight_resamples_the_rows():
    X, y = indexed()
    plain = FairCOCCOInprocessing(**FAST).fit(X, y).predict(X)
    weights = np.where(y == 1, 5.0, 1.0)
    weighted = FairCOCCOInprocessing(**FAST).fit(X, y, sample_weight=weights).predict(X)
    assert weighted.mean() > plain.mean() + 0.1


def test_bad_input_names_the_problem():
    X, y = indexed()
    with pytest.raises(ValueError, match=r"prot_attr names \['sex'\]"):
        FairCOCCOInprocessing("sex").fit(X, y)
    with pytest.raises(TypeError, match="X must be a pandas DataFrame"):
        FairCOCCOInprocessing().fit(X.to_numpy(), y)
    with pytest.raises(ValueError, match="no named levels"):
        FairCOCCOInprocessing().fit(X.reset_index(drop=True), y)
    fitted = FairCOCCOInprocessing(**FAST).fit(X, y)
    with pytest.raises(ValueError, match=r"X lacks the feature columns \['z'\]"):
        fitted.predict(X.drop(columns="z"))
