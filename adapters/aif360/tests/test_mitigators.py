"""AIF360's mitigators behind the harness's method contract: every registered method fits,
predicts and declares what it supports, alone and inside a real study."""

from __future__ import annotations

import gc
from importlib.metadata import entry_points

import numpy as np
import pandas as pd
import pytest

from faircocco_aif360 import _mitigators
from faircocco_plugins.plugins import MethodSpec, Mitigator, available_methods

SPECS = {spec.name: spec for spec in _mitigators.METHODS}


def task(n: int = 600, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame]:
    """Labels that favour one sex, through a feature and directly."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["f", "m"], n)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    y = ((X["a"] + 0.8 * (sex == "m") + 0.5 * rng.normal(size=n)) > 0.6).astype(int)
    return X, y.to_numpy(), pd.DataFrame({"sex": sex})


def predictions(spec: MethodSpec, model: Mitigator, X, A):
    given = {"sensitive_features": A} if spec.capabilities.attributes_at_prediction else {}
    labels = model.predict(X, **given)
    proba = model.predict_proba(X, **given) if hasattr(model, "predict_proba") else None
    return labels, proba


def test_every_method_is_registered_under_the_harness_group():
    found = {e.name: e for e in entry_points(group="faircocco_plugins.mitigators")}
    for name, spec in SPECS.items():
        assert found[name].load() is spec
        assert spec.capabilities.tasks == ("classification",)
        assert spec.capabilities.attributes == ("binary",)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_each_method_fits_and_predicts_through_the_contract(name):
    X, y, A = task()
    spec = SPECS[name]
    for notion in spec.capabilities.notions:
        setting = spec.settings("quick")[0]
        model = spec.factory(task="classification", notion=notion, random_state=0, **setting)
        assert isinstance(model, Mitigator)
        assert model.fit(X, y, sensitive_features=A) is model
        labels, proba = predictions(spec, model, X, A)
        assert labels.shape == (len(X),) and set(np.unique(labels)) <= {0, 1}
        assert (labels == y).mean() > 0.55  # base rate 0.45
        if proba is not None:
            assert proba.shape == (len(X), 2) and np.allclose(proba.sum(axis=1), 1)
            assert ((proba >= 0) & (proba <= 1)).all()


def test_scores_are_offered_only_where_they_carry_the_decisions():
    without = {name for name, spec in SPECS.items() if not hasattr(_model(spec), "predict_proba")}
    assert without == {"aif360_eq_odds", "aif360_reject_option", "aif360_gerryfair"}


def _model(spec: MethodSpec) -> Mitigator:
    notion = spec.capabilities.notions[0]
    return spec.factory(task="classification", notion=notion, random_state=0)


def test_methods_that_drop_the_attributes_predict_without_them():
    X, y, A = task()
    for name in ("aif360_expgrad", "aif360_gridsearch", "aif360_meta_fair", "aif360_reweighing"):
        model = _model(SPECS[name]).fit(X, y, sensitive_features=A)
        flipped = pd.DataFrame({"sex": np.where(A["sex"] == "m", "f", "m")})
        alone = model.predict(X)
        assert np.array_equal(alone, model.predict(X, sensitive_features=flipped)), name


def test_each_model_needs_the_attributes_exactly_where_its_method_declares_it():
    X, y, A = task()
    for name, spec in SPECS.items():
        model = _model(spec)
        assert model.needs_attributes == spec.capabilities.attributes_at_prediction, name
    model = _model(SPECS["aif360_eq_odds"]).fit(X, y, sensitive_features=A)
    with pytest.raises(ValueError, match="sensitive_features is required"):
        model.predict(X)


def test_the_post_processors_use_the_attributes_at_prediction():
    X, y, A = task()
    model = _model(SPECS["aif360_calibrated_eq_odds"]).fit(X, y, sensitive_features=A)
    flipped = pd.DataFrame({"sex": np.where(A["sex"] == "m", "f", "m")})
    as_given = model.predict_proba(X, sensitive_features=A)
    assert not np.allclose(as_given, model.predict_proba(X, sensitive_features=flipped))


def test_the_privileged_level_is_the_one_with_more_positive_labels():
    _, y, A = task()
    assert _mitigators._privileged_first(A["sex"], y) == ["m", "f"]
    assert _mitigators._privileged_first(A["sex"], 1 - y) == ["f", "m"]


def test_prejudice_remover_runs_this_interpreter_whatever_path_says(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no python there
    X, y, A = task()
    model = _model(SPECS["aif360_prejudice_remover"]).fit(X, y, sensitive_features=A)
    labels = model.predict(X, sensitive_features=A)
    assert (labels == y).mean() > 0.6


def test_bad_input_names_the_problem():
    X, y, A = task()
    with pytest.raises(ValueError, match="task='regression' is not valid"):
        _mitigators.reweighing(task="regression", notion="dp")
    three = pd.DataFrame({"region": np.resize(["n", "s", "e"], len(X))})
    with pytest.raises(ValueError, match=r"sensitive_features\['region'\] has 3 levels"):
        _model(SPECS["aif360_reweighing"]).fit(X, y, sensitive_features=three)
    model = _model(SPECS["aif360_eq_odds"]).fit(X, y, sensitive_features=A)
    unseen = pd.DataFrame({"sex": np.resize(["f", "x"], len(X))})
    with pytest.raises(ValueError, match=r"sensitive_features\['sex'\] has levels unseen"):
        model.predict(X, sensitive_features=unseen)


def test_a_study_runs_every_method_beside_faircocco(tmp_path):
    from faircocco_plugins.bench import ResultsStore, StudyConfig, run_study
    from faircocco_plugins.datasets import register_dataset

    def load():
        X, y, A = task(1500, seed=1)
        return X, pd.Series(y), A

    register_dataset("aif360_tiny", load, task="classification", attributes={"sex": "binary"})
    methods = available_methods()
    # one setting per method, the first of its quick grid: that every method runs in a study is
    # what is tested, and each further setting added a run (30 runs in all, against 15)
    first_settings = {
        f"{name}.{parameter}": (value,)
        for name in (*SPECS, "faircocco")
        for parameter, value in methods[name].settings("quick")[0].items()
    }
    config = StudyConfig(
        name="aif360",
        datasets=("aif360_tiny",),
        methods=(*SPECS, "faircocco"),
        notions=("dp", "eo"),
        seeds=(0,),
        grid="quick",
        grid_overrides=first_settings,
        epochs=2,
    )
    summary = run_study(config, tmp_path / "runs.sqlite")
    assert summary.failed == 0
    with ResultsStore(tmp_path / "runs.sqlite") as store:
        runs = store.runs()
    assert set(runs.loc[runs["status"] == "ok", "method"]) == {*SPECS, "faircocco"}
    # the five methods that refuse to predict without the attributes were given them


def test_the_capability_table_shows_what_each_method_declares():
    from faircocco_plugins.bench import capability_table

    table = capability_table(SPECS)
    needing = {name for name in SPECS if "attributes at prediction" in table.loc[name, "notes"]}
    assert needing == {
        "aif360_adversarial_debiasing",
        "aif360_prejudice_remover",
        "aif360_gerryfair",
        "aif360_eq_odds",
        "aif360_calibrated_eq_odds",
        "aif360_reject_option",
    }
    assert (table["several attributes"] == "✗").all()
    assert table.loc["aif360_gerryfair", ["DP", "EO"]].tolist() == ["✗", "✓"]


def test_the_aif360_preset_runs_every_method_beside_ours():
    from faircocco_plugins.bench import preset_config
    from faircocco_plugins.plugins import available_methods

    config, _ = preset_config("aif360")
    assert set(SPECS) <= set(config.methods) <= set(available_methods())
    assert {"faircocco", "facl", "nn"} <= set(config.methods)
    assert config.datasets == ("adult", "compas", "german", "drugs")


def test_meta_fair_scores_collinear_one_hot_features():
    X, y, A = task()
    region = np.resize(["n", "s", "e"], len(X))
    one_hot = pd.get_dummies(pd.Series(region), dtype=float)  # its columns sum to 1
    X = pd.concat([X, (one_hot - one_hot.mean()) / one_hot.std()], axis=1)
    X.columns = [str(c) for c in X.columns]
    model = _model(SPECS["aif360_meta_fair"]).fit(X, y, sensitive_features=A)
    proba = model.predict_proba(X)[:, 1]
    assert np.isfinite(proba).all()
    assert ((proba >= 0.5) == model.predict(X)).mean() > 0.95
    assert (model.predict(X) == y).mean() > 0.6


def test_an_aif360_failure_names_the_groups_it_had():
    X, y, A = task()
    y = np.where(A["sex"] == "f", 1, y)  # one group holds one label only
    with pytest.raises(
        ValueError, match="PrejudiceRemover failed with the training groups"
    ) as info:
        _model(SPECS["aif360_prejudice_remover"]).fit(X, y, sensitive_features=A)
    assert "sex=f" in str(info.value) and "(positive 1.00)" in str(info.value)
    assert "wrote no model" in str(info.value)


def _live_aif360_metrics() -> int:
    from aif360.metrics import Metric

    gc.collect()
    # type(), not isinstance(): isinstance reads each object's __class__, and reading that of
    # torch.distributed's deprecated reduce_op warns
    return sum(issubclass(type(thing), Metric) for thing in gc.get_objects())


@pytest.mark.parametrize(
    "name", ["aif360_reject_option", "aif360_eq_odds", "aif360_calibrated_eq_odds"]
)
def test_no_aif360_metric_outlives_a_post_processors_fit_or_prediction(name):
    from aif360.metrics import ClassificationMetric

    X, y, A = task(n=200)
    spec = SPECS[name]
    before = _live_aif360_metrics()
    for notion in spec.capabilities.notions:
        model = spec.factory(task="classification", notion=notion, random_state=0)
        model.fit(X, y, sensitive_features=A)
        model.predict(X, sensitive_features=A)
    assert _live_aif360_metrics() == before
    # the count sees what AIF360 keeps: a metric used outside a fit stays in its memo tables
    truth = model._dataset(X, A, y)
    ClassificationMetric(truth, truth).accuracy()
    assert _live_aif360_metrics() == before + 1


def test_adversarial_debiasing_fits_twice_in_one_process_and_scores_its_labels():
    X, y, A = task()

    def fit(weight):
        model = _mitigators.adversarial_debiasing(
            task="classification",
            notion="eo",
            random_state=0,
            adversary_loss_weight=weight,
            epochs=10,
        )
        return model.fit(X, y, sensitive_features=A)

    # one TensorFlow graph per fit: a shared one would already hold the first fit's variables
    plain, debiased = fit(0.0), fit(1.0)
    labels = debiased.predict(X, sensitive_features=A)
    assert not np.array_equal(labels, plain.predict(X, sensitive_features=A))
    proba = debiased.predict_proba(X, sensitive_features=A)
    assert np.array_equal(proba[:, 1] > 0.5, labels == 1)
