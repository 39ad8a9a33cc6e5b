"""fairlearn's loaders as registry datasets: the table they give, and a clear error offline."""

from __future__ import annotations

from types import SimpleNamespace
from urllib.error import URLError

import numpy as np
import pandas as pd
import pytest

from faircocco_fairlearn import _datasets
from faircocco_plugins.datasets import (
    DatasetUnavailableError,
    get_source,
    list_datasets,
    load_dataset,
)


def adult_bunch(n: int = 400, seed: int = 0) -> SimpleNamespace:
    """What fetch_adult(as_frame=True) returns, with OpenML's columns and missing values."""
    rng = np.random.default_rng(seed)
    data = pd.DataFrame(
        {
            "age": rng.integers(17, 90, n).astype(float),
            "workclass": pd.Categorical(rng.choice(["Private", "State-gov", None], n)),
            "fnlwgt": rng.integers(10_000, 500_000, n).astype(float),
            "hours-per-week": rng.integers(10, 80, n).astype(float),
            "race": pd.Categorical(rng.choice(["White", "Black", "Other"], n)),
            "sex": pd.Categorical(rng.choice(["Female", "Male"], n)),
        }
    )
    target = pd.Series(pd.Categorical(rng.choice(["<=50K", ">50K"], n)), name="class")
    return SimpleNamespace(data=data, target=target)


def test_both_sources_are_registered_through_the_entry_point():
    table = list_datasets()
    for name in ("fairlearn_adult", "fairlearn_credit_card"):
        assert table.loc[name, "origin"] == "faircocco_fairlearn"
    attributes = get_source("fairlearn_adult").attributes
    assert dict(attributes) == {"sex": "binary", "race": "categorical"}


def test_the_adult_table_keeps_the_attributes_out_of_the_features(monkeypatch):
    bunch = adult_bunch()
    monkeypatch.setattr("fairlearn.datasets.fetch_adult", lambda **_: bunch)
    X, y, sensitive = get_source("fairlearn_adult").load({})
    complete = bunch.data.notna().all(axis=1).to_numpy()
    assert len(X) == len(y) == len(sensitive) == complete.sum()
    assert not {"sex", "race", "fnlwgt"} & set(X.columns)
    assert list(sensitive.columns) == ["sex", "race"]
    expected = (bunch.target[complete].astype(str) == ">50K").to_numpy()
    assert np.array_equal(y.to_numpy(), expected.astype(int))
    # and through the registry, which encodes and splits it like its own datasets
    data = load_dataset("fairlearn_adult", random_state=0)
    assert data.X.shape[0] == complete.sum() and "workclass=Private" in data.X.columns
    assert list(data.sensitive.columns) == ["sex", "race"]


def test_offline_loading_fails_with_the_registrys_error(monkeypatch):
    def offline(**_):
        raise URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr("fairlearn.datasets.fetch_credit_card", offline)
    with pytest.raises(DatasetUnavailableError, match="fetch_credit_card could not download"):
        load_dataset("fairlearn_credit_card")
    with pytest.raises(DatasetUnavailableError, match="registry's own 'credit_card'"):
        _datasets.sources()[1].load({})
