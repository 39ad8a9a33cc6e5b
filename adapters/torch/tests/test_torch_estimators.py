"""FairCOCCOClassifier and FairCOCCORegressor as scikit-learn estimators."""

from __future__ import annotations

import pickle
import warnings
from importlib.metadata import entry_points

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("faircocco_torch")

from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import cross_val_score  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402
from torch_helpers import biased_task  # noqa: E402

import faircocco_torch._estimators as estimators_module  # noqa: E402
from faircocco_torch import (  # noqa: E402
    DegenerateModelWarning,
    FACLPenalty,
    FairCOCCOClassifier,
    FairCOCCOConstraint,
    FairCOCCOPathClassifier,
    FairCOCCOPenalty,
    FairCOCCORegressor,
    FARMIPenalty,
)

NO_SENSITIVE = "got no sensitive_features"

#: Estimators run through scikit-learn's whole check suite. The checks call ``fit(X, y)``
#: without ``sensitive_features``; the estimators then train without the penalty (and warn),
#: which is what the checks can exercise. Only ``check_array_api_input`` is skipped, by
#: scikit-learn itself, unless SCIPY_ARRAY_API is set: the estimators take numpy and pandas.
#: Weights resample the rows, so weight 2 equals a repeated row in distribution, not exactly,
#: as for scikit-learn's own bagging estimators.
EXPECTED_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": "weights resample the training rows"
}
CHECKED = [
    FairCOCCOClassifier(random_state=0),
    FairCOCCORegressor(random_state=0),
    FairCOCCOClassifier(penalty=FairCOCCOConstraint(bound=0.05), epochs=50, random_state=0),
]


@pytest.mark.parametrize("estimator", CHECKED, ids=lambda e: repr(e)[:60])
def test_sklearn_check_estimator(estimator: object) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=f".*{NO_SENSITIVE}", category=UserWarning)
        # some checks train on 10 rows, where predicting one class is what the network learns
        warnings.simplefilter("ignore", DegenerateModelWarning)
        results = check_estimator(
            estimator, on_fail=None, on_skip=None, expected_failed_checks=EXPECTED_FAILURES
        )
    failed = {r["check_name"]: repr(r["exception"]) for r in results if r["status"] == "failed"}
    skipped = {r["check_name"] for r in results if r["status"] == "skipped"}
    expected = {r["check_name"] for r in results if r["status"] == "xfail"}
    assert failed == {}
    assert skipped <= {"check_array_api_input"}
    assert expected <= set(EXPECTED_FAILURES)


@pytest.fixture(scope="module")
def data() -> dict[str, object]:
    x, y, a = biased_task(400, 0)
    rng = np.random.default_rng(0)
    sensitive = pd.DataFrame(
        {
            "sex": np.where(a == 1, "m", "f"),
            "race": pd.Categorical(rng.choice(["a", "b", "c"], 400)),
            "age": rng.uniform(18, 80, 400),
        }
    )
    return {"X": x, "y": y, "sensitive": sensitive}


def _small(**params: object) -> FairCOCCOClassifier:
    return FairCOCCOClassifier(epochs=4, batch_size=128, random_state=0, **params)  # type: ignore[arg-type]


def test_fit_with_mixed_sensitive_features(data: dict[str, object]) -> None:
    clf = _small().fit(data["X"], data["y"], sensitive_features=data["sensitive"])
    assert clf.penalty_applied_
    assert clf.encoder_ is not None and clf.encoder_.schema_.kinds == (
        "binary",
        "categorical",
        "continuous",
    )
    assert clf.predict_proba(data["X"]).shape == (400, 2)
    assert np.allclose(clf.predict_proba(data["X"]).sum(axis=1), 1.0)
    assert clf.decision_function(data["X"]).shape == (400,)
    assert set(clf.predict(data["X"])) <= {0, 1}
    assert clf.hidden_layer_sizes_ == (40, 40)
    assert len(clf.history_.loss) == clf.n_iter_ == 4


def test_without_sensitive_features_no_penalty_and_a_warning(data: dict[str, object]) -> None:
    with pytest.warns(UserWarning, match=NO_SENSITIVE):
        clf = _small().fit(data["X"], data["y"])
    assert not clf.penalty_applied_ and clf.penalty_ is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _small(penalty=None).fit(data["X"], data["y"])


def test_same_random_state_same_predictions(data: dict[str, object]) -> None:
    first = _small().fit(data["X"], data["y"], sensitive_features=data["sensitive"])
    second = _small().fit(data["X"], data["y"], sensitive_features=data["sensitive"])
    assert np.array_equal(first.predict_proba(data["X"]), second.predict_proba(data["X"]))
    other = _small().set_params(random_state=1)
    other.fit(data["X"], data["y"], sensitive_features=data["sensitive"])
    assert not np.array_equal(first.predict_proba(data["X"]), other.predict_proba(data["X"]))


def test_pickle_round_trip(data: dict[str, object]) -> None:
    clf = _small().fit(data["X"], data["y"], sensitive_features=data["sensitive"])
    restored = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(clf.predict_proba(data["X"]), restored.predict_proba(data["X"]))
    assert restored.get_params()["lam"] == clf.get_params()["lam"]
    regressor = FairCOCCORegressor(epochs=3, random_state=0, notion="dp")
    regressor.fit(data["X"], data["X"][:, 0] * 2.0, sensitive_features=data["sensitive"])
    again = pickle.loads(pickle.dumps(regressor))
    assert np.array_equal(regressor.predict(data["X"]), again.predict(data["X"]))


def test_the_penalty_parameter_is_never_modified(data: dict[str, object]) -> None:
    constraint = FairCOCCOConstraint(bound=0.01)
    clf = _small(penalty=constraint).fit(data["X"], data["y"], sensitive_features=data["sensitive"])
    assert constraint.multiplier_history_ == []
    assert clf.penalty_ is not constraint
    assert len(clf.penalty_.multiplier_history_) > 0
    assert clone(clf).get_params()["penalty"] is not constraint


@pytest.mark.parametrize(
    "penalty",
    [
        "faircocco",
        "facl",
        "farmi",
        "hsic",
        "covariance",
        "linear_loss",
        FARMIPenalty(notion="dp", lam=0.5),
    ],
)
def test_every_penalty_trains_the_same_network(data: dict[str, object], penalty: object) -> None:
    sensitive = data["sensitive"][["sex"]]  # type: ignore[index]
    clf = _small(penalty=penalty).fit(data["X"], data["y"], sensitive_features=sensitive)
    plain = _small(lam=0.0).fit(data["X"], data["y"], sensitive_features=sensitive)
    assert clf.penalty_applied_
    assert clf.hidden_layer_sizes_ == plain.hidden_layer_sizes_ == (40, 40)
    # the same network, seed and batches: only the penalty's gradient tells them apart
    assert min(np.abs(clf.history_.penalty)) > 0  # FARMI's estimate can be negative
    gap = np.abs(clf.predict_proba(data["X"]) - plain.predict_proba(data["X"])).max()
    assert gap > 1e-3


def test_multiclass(data: dict[str, object]) -> None:
    y = np.digitize(data["X"][:, 0], [0.0, 1.0])  # type: ignore[index]
    clf = _small().fit(data["X"], y, sensitive_features=data["sensitive"])
    assert clf.predict_proba(data["X"]).shape == (400, 3)
    assert clf.decision_function(data["X"]).shape == (400, 3)
    with pytest.raises(ValueError, match=r"FACLPenalty does not support.*predictions with 3"):
        _small(penalty=FACLPenalty()).fit(data["X"], y, sensitive_features=data["sensitive"])


def test_regressor_standardises_and_maps_back(data: dict[str, object]) -> None:
    target = 1000.0 + 50.0 * data["X"][:, 0]  # type: ignore[index]
    reg = FairCOCCORegressor(epochs=30, learning_rate=1e-2, random_state=0, notion="eo")
    reg.fit(data["X"], target, sensitive_features=data["sensitive"])
    assert abs(reg.predict(data["X"]).mean() - target.mean()) < 0.1 * target.std()
    assert reg.score(data["X"], target) > 0.8
    with pytest.raises(ValueError, match="HSICPenalty does not support continuous outcomes"):
        FairCOCCORegressor(penalty="hsic", notion="eo", epochs=1).fit(
            data["X"], target, sensitive_features=data["sensitive"]
        )


@pytest.mark.parametrize("unit", [1e-200, 1e160, 1e300])
def test_a_regressor_trains_alike_on_a_target_in_any_unit(
    data: dict[str, object], unit: float
) -> None:
    """The target's mean and spread are taken after dividing it by its largest magnitude: the
    squares of 1e160 overflowed (a scale of inf, predictions NaN) and those of 1e-200
    underflowed (a spread of 0, predictions of the mean)."""
    target = data["X"][:, 0] + 2.0  # type: ignore[index]
    fits = [
        FairCOCCORegressor(epochs=3, random_state=0).fit(
            data["X"], scale * target, sensitive_features=data["sensitive"]
        )
        for scale in (1.0, unit)
    ]
    assert fits[1].y_scale_ == pytest.approx(unit * fits[0].y_scale_, rel=1e-12)
    predictions = [fit.predict(data["X"]) for fit in fits]
    assert np.allclose(predictions[1] / unit, predictions[0], rtol=1e-12, atol=0)


def test_bad_sensitive_features_are_clear_errors(data: dict[str, object]) -> None:
    x, y, sensitive = data["X"], data["y"], data["sensitive"]
    with pytest.raises(ValueError, match="sensitive_features has 399 rows but X has 400"):
        _small().fit(x, y, sensitive_features=sensitive.iloc[:399])  # type: ignore[union-attr]
    broken = sensitive.copy()  # type: ignore[union-attr]
    broken.loc[3, "age"] = np.nan
    with pytest.raises(ValueError, match="column 'age' contains NaN"):
        _small().fit(x, y, sensitive_features=broken)
    with pytest.raises(TypeError, match="column 'when' has dtype"):
        _small().fit(
            x, y, sensitive_features=pd.DataFrame({"when": pd.date_range("2020", periods=400)})
        )
    with pytest.raises(ValueError, match="LinearLossPenalty does not support continuous"):
        _small(penalty="linear_loss").fit(x, y, sensitive_features=sensitive)
    with pytest.raises(ValueError, match="penalty='nope' is not valid"):
        _small(penalty="nope").fit(x, y, sensitive_features=sensitive)


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"hidden_layer_sizes": "big"}, TypeError, "hidden_layer_sizes must be None or a seq"),
        ({"hidden_layer_sizes": 64}, TypeError, "hidden_layer_sizes must be None or a seq"),
        ({"hidden_layer_sizes": (0,)}, ValueError, r"hidden_layer_sizes\[0\]=0 is not valid"),
        ({"hidden_layer_sizes": (16, -2)}, ValueError, r"hidden_layer_sizes\[1\]=-2 is not"),
        ({"early_stopping": "yes"}, TypeError, "early_stopping must be True or False; got str"),
        ({"early_stopping": "False"}, TypeError, "early_stopping must be True or False"),
        ({"verbose": "no"}, TypeError, "verbose must be True or False"),
    ],
)
@pytest.mark.parametrize("estimator", [FairCOCCOClassifier, FairCOCCOPathClassifier])
def test_a_bad_network_parameter_is_refused_by_name(
    estimator: type, params: dict[str, object], error: type[Exception], message: str
) -> None:
    x, y, a = biased_task(50, 0)
    with pytest.raises(error, match=message):
        estimator(**params).fit(x, y, sensitive_features=a)


def test_no_hidden_layer_is_a_linear_model() -> None:
    x, y, a = biased_task(50, 0)
    clf = FairCOCCOClassifier(hidden_layer_sizes=(), epochs=1).fit(x, y, sensitive_features=a)
    assert clf.hidden_layer_sizes_ == ()
    assert [type(m) for m in clf.model_] == [torch.nn.Linear, torch.nn.Flatten]


def test_works_inside_cross_validation(data: dict[str, object]) -> None:
    x, y = np.asarray(data["X"]), np.asarray(data["y"])
    sex = data["sensitive"]["sex"].to_numpy()  # type: ignore[index]
    scores = cross_val_score(_small(), x, y, cv=2, params={"sensitive_features": sex})
    # each fold's model is the one fitted by hand on that fold's rows and sensitive features
    # (two folds, stratified, no shuffling)
    from sklearn.model_selection import StratifiedKFold

    for score, (train, test) in zip(scores, StratifiedKFold(2).split(x, y), strict=True):
        model = _small().fit(x[train], y[train], sensitive_features=sex[train])
        assert score == model.score(x[test], y[test])


def test_entry_points_build_estimators() -> None:
    found = {e.name: e for e in entry_points(group="faircocco_plugins.mitigators")}
    expected = {"nn", "faircocco", "faircocco_constraint", "facl", "farmi", "hsic",
                "covariance", "linear_loss"}  # fmt: skip
    if not expected <= set(found):
        pytest.skip("faircocco-torch is not installed with its entry points")
    # each entry point loads to the harness's MethodSpec, whose factory builds the estimator
    for name in expected:
        estimator = found[name].load().factory(task="classification", epochs=2)
        assert isinstance(estimator, FairCOCCOClassifier)
    assert found["nn"].load().factory(task="regression").penalty is None
    constraint = found["faircocco_constraint"].load().factory(bound=0.03).penalty
    assert isinstance(constraint, FairCOCCOConstraint) and constraint.bound == 0.03
    with pytest.raises(ValueError, match="task='ranking' is not valid"):
        found["facl"].load().factory(task="ranking")


def test_a_categorical_attribute_of_64_levels_trains_with_the_penalty():
    # its 64 one-hot columns once exceeded numpy's 64 index dimensions in the level encoding
    rng = np.random.default_rng(0)
    level = rng.integers(0, 64, 600)
    X = rng.normal(size=(600, 3))
    y = (X[:, 0] + (level % 2) + rng.normal(scale=0.5, size=600) > 0.5).astype(int)
    sensitive = pd.DataFrame({"region": pd.Categorical(level)})
    model = FairCOCCOClassifier(lam=1.0, epochs=2, random_state=0)
    model.fit(X, y, sensitive_features=sensitive)
    assert model.penalty_applied_
    assert np.isfinite(model.history_.to_frame()["penalty"]).all()
    assert (model.history_.to_frame()["penalty"] != 0).any()


def test_the_estimators_fit_the_penalty_kernels_on_every_training_row() -> None:
    """Rows sorted by an integer age: kernels fitted on a first batch would see a few ages."""
    rng = np.random.default_rng(0)
    ages = np.sort(rng.integers(20, 81, 400))
    X = np.column_stack([ages / 80 + rng.normal(size=400), rng.normal(size=400)])
    y = X[:, 0] + rng.normal(size=400)
    reg = FairCOCCORegressor(notion="dp", epochs=1, batch_size=64, random_state=0)
    reg.fit(X, y, sensitive_features=ages)  # warnings are errors here
    encoded = reg.encoder_.transform(ages)
    reference = FairCOCCOPenalty(notion="dp").fit(encoded)
    pred = torch.as_tensor(rng.normal(size=64))
    for batch in (encoded[:64], encoded[::6][:64]):
        fitted = reg.penalty_.statistic(pred, batch).item()
        assert fitted == pytest.approx(reference.statistic(pred, batch).item(), rel=1e-12)


def test_sample_weight_resamples_the_training_rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=600) > 0.8).astype(int)
    # five epochs leave the unweighted network predicting the majority class only, and it says so
    with pytest.warns(DegenerateModelWarning, match="one class"):
        plain = FairCOCCOClassifier(penalty=None, epochs=5, random_state=0).fit(X, y)
    with pytest.warns(DegenerateModelWarning, match="one class"):
        equal = FairCOCCOClassifier(penalty=None, epochs=5, random_state=0).fit(
            X, y, sample_weight=np.full(600, 2.0)
        )
    assert np.array_equal(plain.predict_proba(X), equal.predict_proba(X))
    weighted = FairCOCCOClassifier(penalty=None, epochs=5, random_state=0).fit(
        X, y, sample_weight=np.where(y == 1, 5.0, 1.0)
    )
    # positives drawn five times as often: measured positive rates 0.00 and 0.53
    assert weighted.predict(X).mean() > plain.predict(X).mean() + 0.4
    regressors = [FairCOCCORegressor(penalty=None, epochs=5, random_state=0) for _ in range(2)]
    regressors[0].fit(X, X[:, 0])
    regressors[1].fit(X, X[:, 0], sample_weight=np.where(X[:, 0] > 0, 5.0, 1.0))
    # measured mean predictions: -0.07 unweighted, 0.24 with positive targets weighted up
    means = [r.predict(X).mean() for r in regressors]
    assert means[1] > means[0] + 0.2
    with pytest.raises(ValueError, match="sample_weight has 3 values but X has 600 rows"):
        FairCOCCOClassifier(penalty=None).fit(X, y, sample_weight=[1, 2, 3])
    with pytest.raises(ValueError, match="sample_weight must be finite, non-negative"):
        FairCOCCOClassifier(penalty=None).fit(X, y, sample_weight=-np.ones(600))


def _last_fifth_held_out(
    rows: np.ndarray, *, test_size: float, random_state: int, stratify: object = None
) -> tuple[np.ndarray, np.ndarray]:
    """A split of known rows, in place of the seeded one: the last ``test_size`` held out."""
    held_out = round(rows.size * test_size)
    return rows[:-held_out], rows[-held_out:]


@pytest.fixture
def known_split(monkeypatch: pytest.MonkeyPatch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A task of 300 rows whose last 60 the estimators hold out."""
    monkeypatch.setattr(estimators_module, "train_test_split", _last_fifth_held_out)
    return biased_task(300, 0)


@pytest.mark.parametrize("part", ["training", "validation"])
def test_sample_weight_of_zero_on_every_training_or_validation_row_is_refused(
    known_split: tuple[np.ndarray, np.ndarray, np.ndarray], part: str
) -> None:
    x, y, a = known_split
    rows = np.arange(240) if part == "training" else np.arange(240, 300)
    weights = np.ones(300)
    weights[rows] = 0.0
    clf = FairCOCCOClassifier(epochs=1, early_stopping=True, random_state=0)
    message = rf"sample_weight is 0 on all {rows.size} {part} rows"
    with pytest.raises(ValueError, match=message):
        clf.fit(x, y, sensitive_features=a, sample_weight=weights)


def test_sample_weight_on_the_validation_rows_weighs_what_early_stopping_watches(
    known_split: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    x, y, a = known_split
    weights = np.ones(300)
    weights[240:] = np.where(y[240:] == 1, 10.0, 0.1)
    fits = [
        FairCOCCOClassifier(epochs=2, early_stopping=True, random_state=0).fit(
            x, y, sensitive_features=a, sample_weight=w
        )
        for w in (np.ones(300), weights)
    ]
    # the same training rows, so the same network; its validation loss on other rows
    assert fits[0].history_.loss == fits[1].history_.loss
    assert abs(fits[0].history_.val_loss[-1] - fits[1].history_.val_loss[-1]) > 0.01


def test_early_stopping_on_too_few_rows_to_split_says_how_many_it_needs() -> None:
    x, y, a = biased_task(3, 0)
    clf = FairCOCCOClassifier(early_stopping=True, validation_fraction=0.5)
    message = r"of 3 rows that leaves 1 training and 2 validation rows.* at least 4 rows"
    with pytest.raises(ValueError, match=message):
        clf.fit(x, y, sensitive_features=a)


def _only_the_attribute_predicts(n: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features that carry nothing but the attribute, so that DP leaves nothing to predict."""
    rng = np.random.default_rng(0)
    a = (rng.random(n) < 0.3).astype(int)
    y = (rng.random(n) < np.where(a == 1, 0.8, 0.05)).astype(int)
    x = np.column_stack([a + rng.normal(0.0, 0.1, n), rng.normal(size=n)])
    return x, y, a


def test_a_classifier_that_predicts_one_class_warns_naming_its_penalty_and_lam() -> None:
    x, y, a = _only_the_attribute_predicts()
    collapsing = FairCOCCOClassifier(
        penalty="covariance", notion="dp", lam=1e4, epochs=10, random_state=0
    )
    message = r"CovariancePenalty\(notion='dp', lam=10000.0\)\) predicts one class .* 400 training"
    with pytest.warns(DegenerateModelWarning, match=message):
        collapsing.fit(x, y, sensitive_features=a)
    assert np.unique(collapsing.predict(x)).size == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateModelWarning)
        collapsing.set_params(lam=0.5).fit(x, y, sensitive_features=a)
    assert np.unique(collapsing.predict(x)).size == 2


def test_a_regressor_that_predicts_a_constant_warns() -> None:
    x, _, a = _only_the_attribute_predicts()
    y = a + np.random.default_rng(1).normal(0.0, 0.1, a.size)
    collapsing = FairCOCCORegressor(
        penalty="covariance", notion="dp", lam=1e4, learning_rate=1e-2, epochs=20, random_state=0
    )
    with pytest.warns(DegenerateModelWarning, match="predicts nearly a constant"):
        collapsing.fit(x, y, sensitive_features=a)
    assert collapsing.predict(x).std() < 0.02 * y.std()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateModelWarning)
        collapsing.set_params(lam=1.0).fit(x, y, sensitive_features=a)
