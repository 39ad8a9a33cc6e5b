"""The aif360.sklearn-style estimator pairs y with X's rows by label, never by position alone."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from aif360_helpers import frame

from faircocco_aif360.sklearn import FairCOCCOInprocessing

FAST = {"epochs": 3, "random_state": 0}


def by_age():
    """X indexed by a continuous attribute, whose labels are unique, and y with X's index."""
    df = frame(n=200)
    X = df.drop(columns="y").set_index("age", drop=False)
    return X, pd.Series(df["y"].astype(int).to_numpy(), index=X.index)


def test_y_in_another_order_pairs_with_x_by_label():
    """Before, y's rows were taken by position: other labels for X's rows, and another fit."""
    X, y = by_age()
    expected = FairCOCCOInprocessing("age", **FAST).fit(X, y).predict_proba(X)
    shuffled = y.sample(frac=1, random_state=1)
    got = FairCOCCOInprocessing("age", **FAST).fit(X, shuffled).predict_proba(X)
    np.testing.assert_array_equal(got, expected)


def test_y_whose_index_cannot_pair_with_x_is_refused():
    X, y = by_age()
    with pytest.raises(ValueError, match=r"^X and y have pandas indexes with different labels"):
        FairCOCCOInprocessing("age", **FAST).fit(X, y.reset_index(drop=True))


def test_an_array_sample_weight_beside_y_in_another_order_is_refused():
    X, y = by_age()
    with pytest.raises(ValueError, match=r"^sample_weight is positional"):
        FairCOCCOInprocessing("age", **FAST).fit(
            X, y.sample(frac=1, random_state=1), sample_weight=np.ones(len(y))
        )


def test_sample_weight_with_the_index_of_x_pairs_by_label():
    X, y = by_age()
    weights = pd.Series(np.where(y == 1, 2.0, 1.0), index=X.index)
    expected = FairCOCCOInprocessing("age", **FAST).fit(X, y, sample_weight=weights.to_numpy())
    got = FairCOCCOInprocessing("age", **FAST).fit(
        X, y, sample_weight=weights.sample(frac=1, random_state=2)
    )
    np.testing.assert_array_equal(got.predict_proba(X), expected.predict_proba(X))
