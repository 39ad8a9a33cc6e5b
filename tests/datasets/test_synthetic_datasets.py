"""Tests of the synthetic family: its ground truth, reproducibility and arguments."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from dataset_helpers import covers

from faircocco_plugins import faircocco_score
from faircocco_plugins.datasets import (
    load_dataset,
    make_fairness_dataset,
)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_synthetic_ground_truth(task: str) -> None:
    def scores(label: float, feature: float) -> dict[str, float]:
        data = make_fairness_dataset(
            1000,
            task=task,  # type: ignore[arg-type]
            label_dependence=label,
            feature_dependence=feature,
            random_state=0,
        )
        y = data.y.astype(float)
        return {
            "label": faircocco_score(y, data.sensitive, adjusted=True),
            "region": faircocco_score(y, data.sensitive[["region"]], adjusted=True),
            "proxies": faircocco_score(
                data.X[["x1", "x2"]], data.sensitive[["sex", "age"]], adjusted=True
            ),
            "others": faircocco_score(data.X[["x3", "x4"]], data.sensitive, adjusted=True),
        }

    independent, dependent = scores(0.0, 0.0), scores(2.0, 2.0)
    assert independent["label"] < 0.01 and dependent["label"] > 0.03
    assert independent["proxies"] < 0.01 and dependent["proxies"] > 0.2
    for result in (independent, dependent):
        assert result["region"] < 0.01 and result["others"] < 0.01


def test_synthetic_dataset_is_reproducible_and_typed() -> None:
    data = make_fairness_dataset(300, random_state=5)
    again = make_fairness_dataset(300, random_state=5)
    other = make_fairness_dataset(300, random_state=6)
    assert data.X.equals(again.X) and data.y.equals(again.y)
    assert np.array_equal(data.split.train, again.split.train)
    assert not data.X.equals(other.X)
    assert list(data.X.columns) == ["x1", "x2", "x3", "x4", "channel=a", "channel=b", "channel=c"]
    assert {c: str(t) for c, t in data.sensitive.dtypes.items()} == {
        "sex": "category",
        "age": "float64",
        "region": "category",
    }
    regression = make_fairness_dataset(300, task="regression", random_state=5)
    assert regression.name == "synthetic_regression" and regression.y.dtype == np.float64
    registered = load_dataset("synthetic", random_state=5)
    assert registered.X.shape == (2000, 7) and covers(registered.split, 2000)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_samples": 5}, "n_samples=5"),
        ({"task": "ranking"}, "task='ranking'"),
        ({"label_dependence": float("nan")}, "label_dependence=nan"),
        ({"feature_dependence": "1"}, "feature_dependence='1'"),
        ({"random_state": -3}, "random_state=-3"),
    ],
)
def test_synthetic_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_fairness_dataset(**kwargs)
    with pytest.raises(TypeError, match="n_samples must be an integer >= 20; got float"):
        make_fairness_dataset(n_samples=100.0)
