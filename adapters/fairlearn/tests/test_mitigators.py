"""fairlearn's mitigators behind the harness's method contract: every registered method fits,
predicts labels and probabilities, and declares what it supports."""

from __future__ import annotations

from importlib.metadata import entry_points

import numpy as np
import pandas as pd
import pytest

from faircocco_fairlearn import _mitigators
from faircocco_plugins import faircocco_score
from faircocco_plugins.plugins import MethodSpec, Mitigator

NAMES = [
    "sklearn_unmitigated",
    "fairlearn_expgrad",
    "fairlearn_expgrad_tpr",
    "fairlearn_expgrad_faircocco",
    "fairlearn_gridsearch",
    "fairlearn_gridsearch_tpr",
    "fairlearn_gridsearch_faircocco",
    "fairlearn_threshold",
    "fairlearn_correlation_remover",
    "fairlearn_adversarial",
]
#: Regression only, tested on its own below.
REGRESSION = ["fairlearn_bounded_group_loss"]
#: Methods that predict labels only.
LABELS_ONLY = ("fairlearn_threshold", "fairlearn_adversarial")


def task(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    A = pd.DataFrame(
        {"sex": rng.choice(["f", "m"], n), "race": pd.Categorical(rng.choice(["a", "b", "c"], n))}
    )
    X = np.column_stack([rng.normal(size=n), (A["sex"] == "m") + rng.normal(size=n)])
    y = (X[:, 0] + X[:, 1] > 0.5).astype(int)
    return X, y, A


#: Smaller budgets for the base models (50 trees of up to 255 bins, 10 epochs in the methods):
#: a reduction refits its base model at every iteration, and trees binned with the reductions'
#: row weights take most of a fit.
SMALL_BASES = {"boosting": {"max_iter": 10, "max_bins": 32}, "network": {"epochs": 3}}


@pytest.fixture
def small_budgets(monkeypatch):
    """The methods with smaller budgets: the base models above, 10 iterations of
    ExponentiatedGradient instead of 50 and 4 grid points for GridSearch. The contract, not
    the reductions' convergence, is under test where this is used."""
    full_size = _mitigators.base_model

    def small_base(base, random_state):
        return full_size(base, random_state).set_params(**SMALL_BASES.get(base, {}))

    monkeypatch.setattr(_mitigators, "base_model", small_base)

    def shrink(model):
        mitigator = getattr(model, "mitigator", None)
        if hasattr(mitigator, "get_params"):
            budget = {"max_iter": 10, "grid_size": 4}
            params = mitigator.get_params(deep=False)
            mitigator.set_params(**{k: v for k, v in budget.items() if k in params})
        return model

    return shrink


def test_every_method_is_registered_under_the_harness_group():
    found = {e.name: e for e in entry_points(group="faircocco_plugins.mitigators")}
    for name in NAMES + REGRESSION:
        spec = found[name].load()
        assert isinstance(spec, MethodSpec) and spec.name == name
        tasks = {
            "fairlearn_adversarial": ("classification", "regression"),
            "fairlearn_bounded_group_loss": ("regression",),
        }
        assert spec.capabilities.tasks == tasks.get(name, ("classification",))


@pytest.mark.parametrize("name", NAMES)
def test_each_method_fits_and_predicts_through_the_contract(name, small_budgets):
    X, y, A = task()
    spec = {e.name: e for e in entry_points(group="faircocco_plugins.mitigators")}[name].load()
    notion = spec.capabilities.notions[-1]
    if spec.capabilities.multiple_attributes == "single":
        A = A[["sex"]]
    one_per_base = {setting.get("base"): setting for setting in spec.settings("quick")}
    for setting in one_per_base.values():
        model = small_budgets(
            spec.factory(task="classification", notion=notion, random_state=0, **setting)
        )
        assert isinstance(model, Mitigator)
        model.fit(X, y, sensitive_features=A)
        given = {"sensitive_features": A} if spec.capabilities.attributes_at_prediction else {}
        labels = model.predict(X, **given)
        assert set(np.unique(labels)) <= {0, 1}
        assert (labels == y).mean() > 0.6
        if name in LABELS_ONLY:
            assert not hasattr(model, "predict_proba")
            continue
        proba = model.predict_proba(X, **given)
        assert proba.shape == (len(X), 2)
        assert np.allclose(proba.sum(axis=1), 1) and ((proba >= 0) & (proba <= 1)).all()


@pytest.mark.parametrize(
    "name",
    [n for n in NAMES if n.startswith(("fairlearn_expgrad", "fairlearn_grid"))]
    + ["fairlearn_threshold"],
)
def test_a_boolean_attribute_beside_string_categories_is_grouped(name, small_budgets):
    """Law School's attributes: scikit-learn's validation casts such a frame to float."""
    X, y, A = task()
    A = pd.DataFrame({"male": (A["sex"] == "m").to_numpy(), "race": A["race"].astype(str)})
    A["race"] = A["race"].astype("category")
    spec = {e.name: e for e in entry_points(group="faircocco_plugins.mitigators")}[name].load()
    setting = spec.settings("quick")[0]
    model = small_budgets(
        spec.factory(task="classification", notion="eo", random_state=0, **setting)
    )
    model.fit(X, y, sensitive_features=A)
    given = {"sensitive_features": A} if spec.capabilities.attributes_at_prediction else {}
    labels = model.predict(X, **given)
    assert labels.shape == (len(X),) and (labels == y).mean() > 0.6


def test_only_boolean_attributes_change_on_their_way_to_fairlearn():
    A = pd.DataFrame(
        {"age": [20.5, 30.0], "male": [True, False], "race": pd.Categorical(["a", "b"])}
    )
    handed = _mitigators._columns(A)
    assert handed.dtypes.astype(str).to_dict() == {
        "age": "float64",  # the FairCOCCO moment's Gaussian kernel needs the numbers
        "male": "object",
        "race": "category",
    }
    pd.testing.assert_frame_equal(handed.astype(str), A.astype(str))


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


def test_threshold_optimizer_equalises_positive_rates_with_the_attributes():
    X, y, A = task(2000)
    base = _mitigators.unmitigated(task="classification", notion="dp").fit(
        X, y, sensitive_features=A
    )
    model = _mitigators.threshold_optimizer(task="classification", notion="dp", random_state=0)
    labels = model.fit(X, y, sensitive_features=A).predict(X, sensitive_features=A)
    male = (A["sex"] == "m").to_numpy()

    def gap(p):
        return abs(p[male].mean() - p[~male].mean())

    # measured: 0.293 for the base model, 0.014 after per-group thresholds
    assert gap(base.predict(X)) > 0.25 and gap(labels) < 0.03
    # the same seed draws the same labels
    assert np.array_equal(labels, model.predict(X, sensitive_features=A))


def test_correlation_remover_leaves_features_uncorrelated_with_the_attributes():
    X, y, A = task(2000)
    A = A.assign(age=np.random.default_rng(1).uniform(18, 80, len(A)) + 5 * X[:, 1])
    model = _mitigators.correlation_remover(task="classification", notion="dp", alpha=1.0)
    model.fit(X, y, sensitive_features=A)
    features = model._decorrelated(X, A)
    encoded = model.encoder_.transform(A.reset_index(drop=True))
    correlations = np.corrcoef(np.column_stack([features, encoded]), rowvar=False)
    cross = correlations[: features.shape[1], features.shape[1] :]
    # measured: 0.44 before (X[:, 1] follows sex and age), 2.8e-15 after
    assert np.abs(cross).max() < 1e-13


def test_the_adversary_lowers_the_gap_of_one_attribute_of_any_kind():
    X, y, A = task(2000)
    age = pd.Series(np.random.default_rng(1).uniform(18, 80, len(y)))
    X = np.column_stack([X, age / 40 + np.random.default_rng(2).normal(size=len(y))])
    male = (A["sex"] == "m").to_numpy()

    def gap(alpha, attribute):
        model = _mitigators.adversarial(
            task="classification", notion="dp", random_state=0, alpha=alpha
        )
        labels = model.fit(X, y, sensitive_features=attribute).predict(X)
        return abs(labels[male].mean() - labels[~male].mean())

    # measured: 0.227 at alpha 0.1, 0.097 at alpha 3 (10 epochs)
    assert gap(3.0, A[["sex"]]) < 0.5 * gap(0.1, A[["sex"]])
    gap(1.0, age.to_frame("age"))  # a continuous attribute trains too
    with pytest.raises(ValueError, match="sensitive_features has 2 columns"):
        _mitigators.adversarial(task="classification", notion="dp").fit(X, y, sensitive_features=A)


def test_methods_that_need_the_attributes_to_predict_say_so():
    X, y, A = task()
    for factory in (_mitigators.threshold_optimizer, _mitigators.correlation_remover):
        model = factory(task="classification", notion="dp", random_state=0)
        model.fit(X, y, sensitive_features=A)
        with pytest.raises(ValueError, match="sensitive_features is required"):
            model.predict(X)


def test_the_adversarial_regressor_predicts_values():
    X, _, A = task(1000)
    target = X[:, 0] + X[:, 1] + 0.3 * np.random.default_rng(3).normal(size=len(X))
    model = _mitigators.adversarial(task="regression", notion="dp", random_state=0, alpha=1.0)
    values = model.fit(X, target, sensitive_features=A[["sex"]]).predict(X)
    assert values.shape == (len(X),) and np.isfinite(values).all()
    # measured: mean squared error 0.59 against the target's variance 2.34
    assert np.mean((values - target) ** 2) < 0.3 * np.var(target)


def test_the_papers_network_is_a_base_that_takes_the_reductions_weights(small_budgets):
    X, y, A = task(600)
    model = small_budgets(
        _mitigators.expgrad(task="classification", notion="dp", random_state=0, base="network")
    )
    model.fit(X, y, sensitive_features=A)
    members = model.mitigator.predictors_
    assert len(members) > 1 and type(members.iloc[0]).__name__ == "FairCOCCOClassifier"
    # the reduction reweights and relabels rows between fits: its members differ
    assert not np.array_equal(members.iloc[0].predict(X), members.iloc[-1].predict(X))


def test_bounded_group_loss_brings_the_groups_errors_together():
    X, _, A = task(1500)
    male = (A["sex"] == "m").to_numpy()
    rng = np.random.default_rng(4)
    target = X[:, 0] + 2 * male * X[:, 1] + rng.normal(size=len(X))
    spec = {e.name: e for e in entry_points(group="faircocco_plugins.mitigators")}[REGRESSION[0]]
    model = spec.load().factory(task="regression", notion="dp", random_state=0, upper_bound=0.005)
    values = model.fit(X, target, sensitive_features=A[["sex"]]).predict(X)

    def errors(predicted):
        return [float(np.mean((predicted - target)[group] ** 2)) for group in (male, ~male)]

    from sklearn.linear_model import LinearRegression

    plain = errors(LinearRegression().fit(X, target).predict(X))
    bounded = errors(values)
    # measured: 1.81 and 2.64 without the bound, 2.2471 and 2.2475 with it
    assert abs(bounded[0] - bounded[1]) < 0.005 * abs(plain[0] - plain[1])
    with pytest.raises(ValueError, match="task='classification' is not valid"):
        _mitigators.bounded_group_loss(task="classification", notion="dp")


def test_grid_search_with_the_faircocco_constraint_spans_fairer_models():
    from test_moment import biased

    X, y, A = biased()
    plain = _mitigators.unmitigated(task="classification", notion="dp").fit(
        X, y, sensitive_features=A
    )
    scores = []
    for weight in (0.5, 0.99):
        model = _mitigators.gridsearch(
            task="classification",
            notion="dp",
            random_state=0,
            constraint_weight=weight,
            constraint="faircocco",
        )
        scores.append(faircocco_score(model.fit(X, y, sensitive_features=A).predict(X), A))
    # measured: 0.126 for the plain model; 0.143 at weight 0.5, 0.015 at 0.99
    assert scores[1] < 0.2 * faircocco_score(plain.predict(X), A)
