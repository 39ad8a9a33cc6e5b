"""fairlearn's mitigators behind the harness's method contract: every registered method fits,
predicts labels and probabilities, and declares what it supports."""

from __future__ import annotations

from importlib.metadata import entry_points

import numpy as np
import pandas as pd
import pytest

from faircocco_fairlearn import _mitigators
from faircocco_plugins.plugins import MethodSpec, Mitigator

NAMES = [
    "sklearn_unmitigated",
    "fairlearn_expgrad",
    "fairlearn_expgrad_tpr",
    "fairlearn_expgrad_faircocco",
    "fairlearn_gridsearch",
]


def task(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    A = pd.DataFrame(
        {"sex": rng.choice(["f", "m"], n), "race": pd.Categorical(rng.choice(["a", "b", "c"], n))}
    )
    X = np.column_stack([rng.normal(size=n), (A["sex"] == "m") + rng.normal(size=n)])
    y = (X[:, 0] + X[:, 1] > 0.5).astype(int)
    return X, y, A


def test_every_method_is_registered_under_the_harness_group():
    found = {e.name: e for e in entry_points(group="faircocco_plugins.mitigators")}
    for name in NAMES:
        spec = found[name].load()
        assert isinstance(spec, MethodSpec) and spec.name == name
        assert spec.capabilities.tasks == ("classification",)


@pytest.mark.parametrize("name", NAMES)
def test_each_method_fits_and_predicts_through_the_contract(name):
    X, y, A = task()
    spec = {e.name: e for e in entry_points(group="faircocco_plugins.mitigators")}[name].load()
    notion = spec.capabilities.notions[-1]
    one_per_base = {setting.get("base"): setting for setting in spec.settings("quick")}
    for setting in one_per_base.values():
        model = spec.factory(task="classification", notion=notion, random_state=0, **setting)
        assert isinstance(model, Mitigator)
        model.fit(X, y, sensitive_features=A)
        labels, proba = model.predict(X), model.predict_proba(X)
        assert set(np.unique(labels)) <= {0, 1}
        assert proba.shape == (len(X), 2)
        assert np.allclose(proba.sum(axis=1), 1) and ((proba >= 0) & (proba <= 1)).all()
        assert (labels == y).mean() > 0.6


def test_exponentiated_gradients_probabilities_are_its_randomised_classifiers():
    X, y, A = task()
    model = _mitigators.expgrad(task="classification", notion="dp", random_state=0).fit(
        X, y, sensitive_features=A
    )
    # fairlearn's own (private) probabilities of its randomised classifier
    expected = model.mitigator._pmf_predict(X)
    assert np.allclose(model.predict_proba(X), expected, atol=1e-12)


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="base='forest' is not valid"):
        _mitigators.expgrad(task="classification", notion="dp", base="forest")
    with pytest.raises(ValueError, match="task='regression' is not valid"):
        _mitigators.gridsearch(task="regression", notion="dp")
    with pytest.raises(ValueError, match="notion='cal' is not valid"):
        _mitigators.expgrad(task="classification", notion="cal")
    with pytest.raises(ValueError, match="constraint='gap' is not valid"):
        _mitigators.expgrad(task="classification", notion="dp", constraint="gap")
