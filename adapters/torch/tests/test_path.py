"""The λ-path estimators: one warm-started run of growing λ, kept where it meets a target."""

from __future__ import annotations

import math
import re
import warnings
from importlib.metadata import entry_points
from typing import Any

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("faircocco_torch")

from sklearn.base import clone  # noqa: E402
from torch import nn  # noqa: E402
from torch_helpers import biased_task  # noqa: E402

import faircocco_torch._estimators as estimators_module  # noqa: E402
import faircocco_torch._path as path_module  # noqa: E402
from faircocco_plugins import faircocco_score  # noqa: E402
from faircocco_plugins.targets import Target, choose_step  # noqa: E402
from faircocco_torch import (  # noqa: E402
    FairCOCCOClassifier,
    FairCOCCOConstraint,
    FairCOCCOPathClassifier,
    FairCOCCOPathRegressor,
    SensitiveEncoder,
)
from faircocco_torch._path import _label_offsets  # noqa: E402
from faircocco_torch._path_measures import ValidationMeasures, attribute_frame  # noqa: E402

CLASSIFICATION_COLUMNS = [
    "lam", "accuracy", "auc", "adjusted_score", "adjusted_score_bound", "di", "di_bound",
    "di[sensitive_features]",
    "deo", "deo_bound", "deo[sensitive_features]", "di_ratio", "positive_rate",
    "balanced_accuracy", "degenerate", "refined",
]  # fmt: skip
#: Few rows, short steps and a short λ range, without refinement: a path takes about a second.
SMALL = {
    "batch_size": 64,
    "learning_rate": 1e-2,
    "warmup_epochs": 3,
    "epochs_per_step": 1,
    "lam_min": 0.5,
    "lam_max": 16.0,
    "refine_steps": 0,
    "random_state": 0,
}


def _small(**changes: Any) -> FairCOCCOPathClassifier:
    return FairCOCCOPathClassifier(**{**SMALL, **changes})


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return biased_task(300, seed=0)


@pytest.fixture(scope="module")
def fitted(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> FairCOCCOPathClassifier:
    x, y, a = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # whether DI 0.8 is reached is not tested
        return _small(notion="dp", target={"di": 0.8}, early_stopping=False).fit(
            x, y, sensitive_features=a
        )


def test_path_has_one_row_per_step_with_growing_lam(fitted: FairCOCCOPathClassifier) -> None:
    path = fitted.path_
    assert list(path.columns) == CLASSIFICATION_COLUMNS
    assert path.index.name == "step"
    # without early stopping: the warm-up and every power of 2 from 0.5 to 16
    assert path["lam"].tolist() == [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
    assert len(fitted.step_states_) == len(path)
    assert path["degenerate"].dtype == bool
    assert path[["accuracy", "adjusted_score", "di", "deo"]].notna().all().all()
    assert fitted.n_iter_ == 3 + 6 * 1 == len(fitted.history_.loss)


def test_lambdas_are_powers_of_the_factor_up_to_lam_max() -> None:
    assert _small(lam_min=1, lam_max=8).lambdas().tolist() == [0.0, 1.0, 2.0, 4.0, 8.0]
    # the default spans 0.5 to 256: over two orders of magnitude
    lams = FairCOCCOPathClassifier().lambdas()
    assert lams[1] == 0.5 and lams[-1] == 256.0 and len(lams) == 11
    assert FairCOCCOPathClassifier(lam_min=2, lam_max=30, lam_factor=3).lambdas().tolist() == [
        0.0, 2.0, 6.0, 18.0,
    ]  # fmt: skip


def test_each_step_starts_from_the_last_ones_weights_with_the_same_optimiser(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    x, y, a = data
    starts: list[dict[str, torch.Tensor]] = []
    optimisers: list[Any] = []
    penalties: list[Any] = []
    original = path_module.fit_fair

    def recording(model: nn.Module, *args: Any, **kwargs: Any) -> Any:
        starts.append({k: v.detach().clone() for k, v in model.state_dict().items()})
        optimisers.append(kwargs["optimizer"])
        penalty = kwargs["penalty"]
        penalties.append(None if penalty is None else penalty.lam)
        return original(model, *args, **kwargs)

    monkeypatch.setattr(path_module, "fit_fair", recording)
    model = _small(lam_max=2.0, early_stopping=False).fit(x, y, sensitive_features=a)
    assert penalties == [None, 0.5, 1.0, 2.0]
    assert all(o is optimisers[0] for o in optimisers)
    for k in range(1, len(starts)):
        before = model.step_states_[k - 1]
        assert all(torch.equal(starts[k][name], before[name]) for name in before)
    # and the steps do train: consecutive steps' weights differ
    first, second = model.step_states_[:2]
    assert not all(torch.equal(first[name], second[name]) for name in first)


def _scripted_path(
    monkeypatch: pytest.MonkeyPatch,
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
    scores: list[float],
    degenerate: tuple[int, ...] = (),
    di: list[float] | None = None,
    **params: Any,
) -> pd.DataFrame:
    """The path of a fit whose steps' adjusted scores (and DI, 0.5 unless given) are given."""
    return _scripted_fit(monkeypatch, data, scores, degenerate, di, **params).path_


def _scripted_fit(
    monkeypatch: pytest.MonkeyPatch,
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
    scores: list[float],
    degenerate: tuple[int, ...] = (),
    di: list[float] | None = None,
    accuracy: list[float] | None = None,
    **params: Any,
) -> FairCOCCOPathClassifier:
    """A fit whose steps' measures, in the order trained, are given: adjusted scores (their
    bounds too), and DI (0.5 unless given) and accuracy (0.9 unless given)."""
    di, accuracy = di or [0.5] * len(scores), accuracy or [0.9] * len(scores)
    script = [
        {"accuracy": acc, "auc": 0.9, "adjusted_score": score,
         "adjusted_score_bound": score, "di": d, "di_bound": d,
         "di_ratio": 1.0, "deo": 0.1, "deo_bound": 0.1, "degenerate": step in degenerate}
        for step, (score, d, acc) in enumerate(zip(scores, di, accuracy, strict=True))
    ]  # fmt: skip
    steps = iter(script)

    class Scripted:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def __call__(self, model: nn.Module) -> dict[str, Any]:
            return next(steps)

        def certification_limit(self, model: nn.Module, target: Target) -> None:
            return None

    monkeypatch.setattr(path_module, "ValidationMeasures", Scripted)
    x, y, a = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return _small(notion="dp", **params).fit(x, y, sensitive_features=a)


def test_the_path_ends_when_the_score_stops_falling_and_the_target_is_met(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    # halve: 0.3 or less; steps 3 to 5 do not improve on step 2's 0.2
    scores = [0.6, 0.4, 0.2, 0.2, 0.25, 0.2, 0.1]
    path = _scripted_path(monkeypatch, data, scores, patience=3)
    assert path["lam"].tolist() == [0.0, 0.5, 1.0, 2.0, 4.0, 8.0]
    # an improvement smaller than 0.001 is none
    scores = [0.6, 0.4, 0.2, 0.1995, 0.1992, 0.1991, 0.1]
    assert len(_scripted_path(monkeypatch, data, scores, patience=3)) == 6


def test_the_path_goes_on_while_the_target_is_not_met(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the score levels off at step 1, but DI reaches 0.8 only at step 5
    scores = [0.6, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4]
    di = [0.4, 0.6, 0.6, 0.6, 0.7, 0.85, 0.9]
    path = _scripted_path(monkeypatch, data, scores, di=di, patience=2, target={"di": 0.8})
    assert len(path) == 6
    # never reached: on to lam_max
    assert len(_scripted_path(monkeypatch, data, scores, target={"di": 0.8})) == 7


#: A scripted path that crosses DI 0.8 between λ = 2 and λ = 4, then three bisection steps
#: at λ = 2^1.5 (not met), 2^1.75 (met), 2^1.625 (not met), each less accurate with λ.
CROSSING = {
    "scores": [0.6] * 10,
    "di": [0.4, 0.5, 0.6, 0.7, 0.9, 0.95, 0.97, 0.75, 0.85, 0.79],
    "accuracy": [0.9, 0.89, 0.88, 0.87, 0.82, 0.8, 0.78, 0.86, 0.85, 0.855],
    "target": {"di": 0.8},
    "early_stopping": False,
}


def test_a_crossing_is_refined_by_bisection_from_the_earlier_steps_weights(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    starts: list[dict[str, torch.Tensor]] = []
    original = path_module.fit_fair

    def recording(model: nn.Module, *args: Any, **kwargs: Any) -> Any:
        starts.append({k: v.detach().clone() for k, v in model.state_dict().items()})
        return original(model, *args, **kwargs)

    monkeypatch.setattr(path_module, "fit_fair", recording)
    model = _scripted_fit(monkeypatch, data, **CROSSING, refine_steps=3)
    path = model.path_
    assert path["lam"].tolist() == pytest.approx(
        [0.0, 0.5, 1.0, 2.0, 2**1.5, 2**1.625, 2**1.75, 4.0, 8.0, 16.0], rel=1e-12
    )
    assert path["refined"].tolist() == [False] * 4 + [True] * 3 + [False] * 3
    assert list(path.index) == list(range(10)) and len(model.step_states_) == 10
    # the refined step between the two, less accurate than λ = 2 but more than λ = 4, is kept
    assert model.step_ == 6 and model.lam_ == pytest.approx(2**1.75)
    kept = model.step_states_[6]
    assert all(torch.equal(model.model_.state_dict()[k], kept[k]) for k in kept)

    def same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
        return all(torch.equal(a[k], b[k]) for k in a)

    # each bisection step starts from the highest λ that did not meet the target: λ = 2,
    # then 2^1.5 (twice: 2^1.75 met it)
    states = model.step_states_
    assert same(starts[7], states[3]) and same(starts[8], states[4])
    assert same(starts[9], states[4])


def test_refine_steps_zero_gives_the_doubling_path(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    crossing = {**CROSSING, **{k: CROSSING[k][:7] for k in ("scores", "di", "accuracy")}}
    model = _scripted_fit(monkeypatch, data, **crossing, refine_steps=0)
    assert model.path_["lam"].tolist() == [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
    assert not model.path_["refined"].any()
    assert model.lam_ == 4.0


def test_no_refinement_where_the_step_before_the_choice_meets_the_target_or_is_the_warm_up(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    # met from λ = 0.5 on: the step below is the warm-up, which has no λ to bisect from
    di = [0.4, 0.85, 0.9, 0.9, 0.9, 0.9, 0.9]
    path = _scripted_path(
        monkeypatch, data, [0.6] * 7, di=di, target={"di": 0.8}, early_stopping=False,
        refine_steps=3,
    )  # fmt: skip
    assert len(path) == 7 and not path["refined"].any()


def test_verbose_shows_a_bar_over_the_path_s_steps_and_quiet_prints_nothing(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], capsys: pytest.CaptureFixture[str]
) -> None:
    x, y, a = data
    easy = {"lam_max": 1.0, "target": {"adjusted_score": 1.0}}
    _small(**easy, verbose=True).fit(x, y, sensitive_features=a)
    assert "λ path" in capsys.readouterr().err
    _small(**easy, verbose=False).fit(x, y, sensitive_features=a)
    assert capsys.readouterr() == ("", "")


def test_model_linear_trains_a_linear_model(
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    x, y, a = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # whether the target is met is not tested
        model = _small(lam_max=1.0, model="linear").fit(x, y, sensitive_features=a)
    assert model.hidden_layer_sizes_ == () and model.model_class_ == "linear"
    assert [type(m) for m in model.model_] == [nn.Linear, nn.Flatten]


@pytest.mark.parametrize(("linear_accuracy", "kept"), [(0.85, "linear"), (0.8, "network")])
def test_model_auto_goes_on_with_the_class_more_accurate_after_the_warm_up(
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
    monkeypatch: pytest.MonkeyPatch,
    linear_accuracy: float,
    kept: str,
) -> None:
    # the network warms up first (0.8), then the linear model; a tie keeps the network
    accuracy = [0.8, linear_accuracy, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8]
    model = _scripted_fit(
        monkeypatch, data, [0.6] * 8, accuracy=accuracy, model="auto", early_stopping=False
    )
    assert model.model_class_ == kept
    assert (model.hidden_layer_sizes_ == ()) == (kept == "linear")
    assert len(model.path_) == 7 and model.path_["accuracy"].iloc[0] == max(0.8, linear_accuracy)
    assert model.n_iter_ == 3 + 6 * 1 == len(model.history_.loss)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"model": "forest"}, r"model='forest' is not valid; expected one of network, linear"),
        ({"model": "linear", "hidden_layer_sizes": (8,)}, r"hidden_layer_sizes=\(8,\) too"),
    ],
)
def test_a_bad_model_class_is_refused(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], params: dict[str, Any], match: str
) -> None:
    x, y, a = data
    with pytest.raises(ValueError, match=match):
        _small(**params).fit(x, y, sensitive_features=a)


def test_the_path_ends_at_its_first_degenerate_step(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    scores = [0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0]
    path = _scripted_path(monkeypatch, data, scores, degenerate=(3,))
    assert len(path) == 4 and path["degenerate"].tolist() == [False, False, False, True]
    # unless told to go on to lam_max
    assert len(_scripted_path(monkeypatch, data, scores, (3,), early_stopping=False)) == 7


def test_the_whole_path_runs_on_n_threads_and_gives_torch_its_count_back(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    x, y, a = data
    seen: list[int] = []
    original = path_module.fit_fair

    def recording(*args: Any, **kwargs: Any) -> Any:
        seen.append(torch.get_num_threads())
        return original(*args, **kwargs)

    monkeypatch.setattr(path_module, "fit_fair", recording)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        # a target every step meets: the test is about threads, not selection
        path = _small(lam_max=1.0, early_stopping=False, target={"adjusted_score": 1.0})
        path.fit(x, y, sensitive_features=a)
        assert seen == [1, 1, 1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_predict_uses_the_chosen_steps_weights(
    fitted: FairCOCCOPathClassifier, data: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> None:
    x = data[0]
    chosen = fitted.step_states_[fitted.step_]
    assert all(torch.equal(fitted.model_.state_dict()[k], chosen[k]) for k in chosen)
    assert fitted.lam_ == fitted.path_["lam"].iloc[fitted.step_]
    other = (fitted.step_ + 1) % len(fitted.path_)
    fitted.model_.load_state_dict(fitted.step_states_[other])
    try:
        moved = fitted.predict_proba(x)
    finally:
        fitted.model_.load_state_dict(chosen)
    assert not np.allclose(moved, fitted.predict_proba(x))


def _rule(path: pd.DataFrame, measure: str, bound: float, lower: bool) -> int:
    """The selection rule, literally: the most accurate usable step whose column (DI and DEO:
    their bound) is within the bound."""
    column = Target(measure, bound).column
    within = path[column] <= bound if lower else path[column] >= bound
    candidates = path[within & ~path["degenerate"]]
    return int(candidates["accuracy"].idxmax())


@pytest.mark.parametrize(("measure", "lower"), [("adjusted_score", True), ("di", False),
                                                ("deo", True)])  # fmt: skip
def test_each_target_keeps_the_most_accurate_step_that_meets_it(
    fitted: FairCOCCOPathClassifier, measure: str, lower: bool
) -> None:
    path = fitted.path_
    # a bound some steps meet and others do not
    bound = float(path[Target(measure, 0.5).column].median())
    step, reason = choose_step(path, Target(measure, bound), "classification")
    assert reason is None
    assert step == _rule(path, measure, bound, lower)


def test_the_fitted_estimator_applies_its_target(fitted: FairCOCCOPathClassifier) -> None:
    path = fitted.path_
    if (path["di_bound"] >= 0.8).any():
        assert fitted.step_ == _rule(path, "di", 0.8, lower=False)
    else:  # the fairest usable step, by the bound
        assert fitted.step_ == path.loc[~path["degenerate"], "di_bound"].idxmax()


def test_halve_is_half_the_unpenalised_score(
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    x, y, a = data
    model = _small(notion="dp", lam_max=4.0).fit(x, y, sensitive_features=a)
    half = 0.5 * model.path_["adjusted_score"].iloc[0]
    assert model.target_ == Target("adjusted_score", half)
    # met by the upper bound at the confidence, not by the point value
    assert model.path_["adjusted_score_bound"].iloc[model.step_] <= half


def test_an_unreachable_target_keeps_the_fairest_step_and_warns(
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    x, y, a = data
    # the label follows the attribute, and λ of at most 1 cannot take that out
    model = _small(notion="dp", lam_max=1.0, target={"adjusted_score": 0.0})
    with pytest.warns(UserWarning, match=r"target=\{'adjusted_score': 0.0\}.*reached") as got:
        model.fit(x, y, sensitive_features=a)
    path = model.path_
    assert (path["adjusted_score_bound"] > 0).all()
    assert model.step_ == path["adjusted_score_bound"].idxmin()
    bound = path["adjusted_score_bound"].min()
    assert f"adjusted_score_bound={bound:.4g}" in str(got[0].message)


def test_degenerate_steps_are_never_chosen() -> None:
    path = pd.DataFrame(
        {
            "lam": [0.0, 1.0, 2.0, 4.0],
            "accuracy": [0.90, 0.85, 0.95, 0.60],
            "adjusted_score_bound": [0.20, 0.08, 0.00, 0.00],
            "degenerate": [False, False, True, False],
        }
    )
    # step 2 meets the bound and is the most accurate, but predicts one class
    assert choose_step(path, Target("adjusted_score", 0.1), "classification") == (1, None)
    # unreachable: the fairest usable step, not the degenerate one at 0
    step, reason = choose_step(path, Target("adjusted_score", -1.0), "classification")
    assert step == 3 and reason is not None and "step 3 (lam=4)" in reason
    path["degenerate"] = True
    step, reason = choose_step(path, Target("adjusted_score", 0.1), "classification")
    assert step == 0 and reason is not None and "every one is degenerate" in reason


def test_the_regressor_keeps_the_lowest_mse_step_that_meets_the_target() -> None:
    rng = np.random.default_rng(0)
    age = rng.uniform(18, 80, 300)
    x = np.column_stack([rng.normal(size=300), age / 80 + rng.normal(scale=0.1, size=300)])
    y = x[:, 0] + 2 * x[:, 1] + rng.normal(scale=0.1, size=300)
    model = FairCOCCOPathRegressor(**{**SMALL, "lam_max": 4.0}, notion="dp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model.fit(x, y, sensitive_features=age)
    path = model.path_
    assert list(path.columns) == [
        "lam", "mse", "r2", "adjusted_score", "adjusted_score_bound", "degenerate", "refined",
    ]  # fmt: skip
    assert ((path["r2"] <= 0) == path["degenerate"]).all()
    met = path["adjusted_score_bound"] <= model.target_.threshold
    within = path[met & ~path["degenerate"]]
    if len(within):
        assert model.step_ == within["mse"].idxmin()
    assert model.predict(x[:5]).shape == (5,)


def test_sample_weight_on_the_validation_rows_weighs_the_path_s_measures(
    data: tuple[np.ndarray, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    def last_fifth_held_out(rows: np.ndarray, **split: Any) -> tuple[np.ndarray, np.ndarray]:
        return rows[:240], rows[240:]

    monkeypatch.setattr(estimators_module, "train_test_split", last_fifth_held_out)
    x, y, a = data
    weights = np.ones(300)
    weights[240:] = np.where(y[240:] == a[240:], 10.0, 0.1)
    paths = []
    for w in (np.ones(300), weights):
        path = _small(notion="dp", lam_max=1.0, early_stopping=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # whether it halves is not tested
            paths.append(path.fit(x, y, sensitive_features=a, sample_weight=w).path_)
    # the same training rows and steps; the validation rows now count by their weights
    assert paths[0]["lam"].tolist() == paths[1]["lam"].tolist()
    assert not np.allclose(paths[0]["accuracy"], paths[1]["accuracy"])
    assert not np.allclose(paths[0]["adjusted_score"], paths[1]["adjusted_score"])


def test_a_path_regressor_refuses_a_target_whose_mse_overflows() -> None:
    x, _, a = biased_task(100, seed=0)
    model = FairCOCCOPathRegressor(**{**SMALL, "lam_max": 0.5}, notion="dp")
    with pytest.raises(ValueError, match=r"standard deviation \(9e\+159\) is too large"):
        model.fit(x, 1e160 * x[:, 0], sensitive_features=a)


def test_sklearn_conventions(
    fitted: FairCOCCOPathClassifier, data: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> None:
    params = FairCOCCOPathClassifier().get_params()
    network = set(FairCOCCOClassifier().get_params())
    path_own = {"target", "confidence", "bins", "intersections", "lam_min", "lam_max"}
    path_own |= {"lam_factor", "epochs_per_step", "refine_steps", "model"}
    # the network's parameters but its single λ and epochs, plus the path's
    assert set(params) == (network - {"lam", "epochs"}) | path_own
    assert params["warmup_epochs"] == 10 and params["early_stopping"] is True
    assert set(FairCOCCOPathRegressor().get_params()) == set(params) - {"penalty_on"}
    model = _small(target={"deo": 0.05})
    assert model.set_params(lam_max=8.0) is model and model.lam_max == 8.0
    copy = clone(model)
    assert copy.get_params() == model.get_params() and copy is not model
    with pytest.raises(TypeError, match="'lam'"):
        FairCOCCOPathClassifier(lam=2.0)
    # fit returns self; everything fit sets ends in an underscore
    x, y, a = data
    fresh = _small(lam_max=0.5)
    before = set(vars(fresh))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert fresh.fit(x, y, sensitive_features=a) is fresh
    assert all(name.endswith("_") for name in set(vars(fresh)) - before)
    assert set(vars(fresh)) - before >= {"path_", "lam_", "step_", "target_", "step_states_"}


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("third", r"target='third' is not valid; expected \"halve\""),
        ({"accuracy": 0.9}, "names no measure a target can bound"),
        ({"di": 0.8, "deo": 0.05}, "is not valid"),
        ({"di": 1.5}, r"the bound must be a number in \[0, 1\]"),
        ({"deo": "0.05"}, "the bound must be a number"),
        (0.5, "is not valid"),
    ],
)
def test_bad_targets_are_refused(
    target: Any, message: str, data: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> None:
    x, y, a = data
    with pytest.raises(ValueError, match=message):
        _small(target=target).fit(x, y, sensitive_features=a)


def test_what_a_path_cannot_do_is_refused(
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    x, y, a = data
    with pytest.raises(ValueError, match="for classification only"):
        FairCOCCOPathRegressor(target={"di": 0.8}).fit(x, y.astype(float), sensitive_features=a)
    with pytest.raises(ValueError, match=r"needs two classes.*y has 3"):
        _small(target={"deo": 0.05}).fit(x, y + (x[:, 2] > 1), sensitive_features=a)
    with pytest.raises(ValueError, match="needs sensitive_features"):
        _small().fit(x, y)
    with pytest.raises(ValueError, match="needs a penalty with a weight"):
        _small(penalty=None).fit(x, y, sensitive_features=a)
    with pytest.raises(ValueError, match="needs a penalty with a weight"):
        _small(penalty=FairCOCCOConstraint()).fit(x, y, sensitive_features=a)
    with pytest.raises(ValueError, match="lam_max"):
        _small(lam_min=2.0, lam_max=1.0).fit(x, y, sensitive_features=a)
    with pytest.raises(ValueError, match="lam_factor"):
        _small(lam_factor=1.0).fit(x, y, sensitive_features=a)


@pytest.mark.parametrize("target", [{"di": 0.8}, {"deo": 0.05}])
def test_a_gap_target_on_an_attribute_with_one_group_is_refused(
    target: Any, data: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> None:
    # DI compared one group with itself (1.0, "met"); DEO was undefined at every step
    x, y, _ = data
    one_group = pd.Series(["f"] * len(y), name="sex")
    with pytest.raises(ValueError, match=r"'sex' has one group \('f'\) on the validation rows"):
        _small(target=target).fit(x, y, sensitive_features=one_group)


@pytest.mark.parametrize(
    ("lam_min", "lam_max", "lam_factor", "steps"),
    [(1e-300, 1e300, 2.0, "1,994"), (0.5, 500.0, 1 + 1e-6, "6,907,759")],
)
def test_a_path_of_more_steps_than_the_cap_is_refused_naming_a_factor_that_fits(
    lam_min: float, lam_max: float, lam_factor: float, steps: str
) -> None:
    path = _small(lam_min=lam_min, lam_max=lam_max, lam_factor=lam_factor)
    with pytest.raises(ValueError, match=rf"plan {steps} penalised steps; .* at most 100") as e:
        path.lambdas()
    factor = float(re.search(r"lam_factor to at least (\S+),", str(e.value)).group(1))
    assert len(path.set_params(lam_factor=factor).lambdas()) in (100, 101)


def test_lambdas_spanning_the_float_range_do_not_overflow() -> None:
    lams = _small(lam_min=1e-300, lam_max=1e300, lam_factor=1e10).lambdas()
    assert len(lams) == 62 and np.isfinite(lams).all()
    assert lams[-1] == pytest.approx(1e300, rel=1e-12)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_a_path_on_too_few_rows_to_split_says_how_many_it_needs(n: int) -> None:
    x, y, a = biased_task(n, seed=1)
    with pytest.raises(ValueError, match=rf"of {n} rows that leaves .* Give at least 6 rows"):
        _small().fit(x, y, sensitive_features=a)


def test_plot_path_draws_the_front_against_the_bound_the_target_checks(
    fitted: FairCOCCOPathClassifier,
) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = fitted.plot_path()
    try:
        assert ax.get_xlabel() == "validation di (lower bound at 0.9)"
        assert ax.get_ylabel() == "validation accuracy"
        drawn = {c.get_label(): c for c in ax.collections}
        steps, rings = drawn["step"], drawn["point value"]
        np.testing.assert_array_equal(steps.get_offsets()[:, 0], fitted.path_["di_bound"])
        np.testing.assert_array_equal(rings.get_offsets()[:, 0], fitted.path_["di"])
        labels = [t.get_text() for t in ax.texts]
        assert labels == [f"λ={lam:.3g}" for lam in fitted.path_["lam"]]
        assert any(f"chosen (λ={fitted.lam_:.3g})" in t.get_text() for t in ax.get_legend().texts)
    finally:
        plt.close(ax.figure)


def test_plot_path_of_an_adjusted_score_target_draws_its_upper_bound(
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x, y, a = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # whether the target is reached is not tested
        model = _small(notion="dp", target="halve", lam_max=2.0).fit(x, y, sensitive_features=a)
    ax = model.plot_path()
    try:
        assert ax.get_xlabel() == "validation adjusted_score (upper bound at 0.9)"
        drawn = {c.get_label(): c for c in ax.collections}
        np.testing.assert_array_equal(
            drawn["point value"].get_offsets()[:, 0], model.path_["adjusted_score"]
        )
    finally:
        plt.close(ax.figure)


def test_path_labels_sit_away_from_the_nearest_step() -> None:
    # two steps close together and one far off: the close pair's labels point apart
    x, y = pd.Series([0.30, 0.31, 0.90]), pd.Series([0.83, 0.835, 0.70])
    offsets = np.array(_label_offsets(x, y))
    assert offsets[0, 0] < 0 < offsets[1, 0] and offsets[0, 1] < 0 < offsets[1, 1]
    assert offsets[2, 0] > 0 and offsets[2, 1] < 0
    np.testing.assert_allclose(np.hypot(offsets[:, 0], offsets[:, 1]), 6.0)
    assert _label_offsets(pd.Series([0.5]), pd.Series([0.8])) == [(6.0, 6.0)]


def test_attribute_frame_gives_back_the_attributes() -> None:
    raw = pd.DataFrame(
        {
            "race": ["a", "b", "c", "b", "a"],
            "sex": [True, False, True, True, False],
            "age": [20.0, 35.0, 50.0, 65.0, 80.0],
        }
    )
    encoder = SensitiveEncoder().fit(raw)
    frame = attribute_frame(encoder.transform(raw), encoder.schema_)
    assert frame["race"].tolist() == raw["race"].tolist()
    assert frame["sex"].tolist() == raw["sex"].tolist()
    assert isinstance(frame["race"].dtype, pd.CategoricalDtype)
    # numbers stay numbers, standardised: the same order and median split
    assert (frame["age"].rank() == raw["age"].rank()).all()


def test_validation_measures_match_a_literal_computation() -> None:
    # a fixed model: the logit is the first feature
    model = nn.Sequential(nn.Linear(2, 1), nn.Flatten(0))
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[1.0, 0.0]]))
        model[0].bias.zero_()
    features = torch.tensor([[1.0, 0], [-1, 0], [2, 0], [3, 0], [-2, 0], [1, 0], [-3, 0], [4, 0]])
    targets = torch.tensor([1.0, 0, 1, 0, 0, 1, 1, 1])
    sex = pd.Series(["f", "f", "f", "f", "m", "m", "m", "m"])
    encoder = SensitiveEncoder().fit(sex)
    measures = ValidationMeasures(
        (features, targets, encoder.transform(sex)), encoder.schema_, task="classification",
        notion="dp",
    )  # fmt: skip
    row = measures(model)
    predicted = np.array([1, 0, 1, 1, 0, 1, 0, 1])
    truth = targets.numpy()
    assert row["accuracy"] == np.mean(predicted == truth) == 0.75
    # positive rates f 3/4, m 2/4; true-positive rates f 2/2, m 2/3
    assert row["di"] == pytest.approx(2 / 3)
    # f has the fewer positive outcomes (2/4 against 3/4) but the higher positive rate, so the
    # paper's ratio exceeds 1 where DI cannot
    assert row["di_ratio"] == pytest.approx(3 / 2)
    assert row["deo"] == pytest.approx(1 - 2 / 3)
    assert not row["degenerate"]
    # the ratio's groups come from the outcomes, not from the model: reversed, it falls below 1
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[-1.0, 0.0]]))
    reversed_row = measures(model)
    # positive rates f 1/4, m 2/4
    assert reversed_row["di"] == pytest.approx(1 / 2)
    assert reversed_row["di_ratio"] == pytest.approx(1 / 2)
    assert math.isclose(reversed_row["accuracy"], 0.25)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_the_adjusted_score_is_measured_with_the_path_s_kernel(kernel: str) -> None:
    rng = np.random.default_rng(5)
    age = pd.Series(rng.uniform(18, 80, 300), name="age")
    features = torch.tensor(
        np.column_stack([age / 30 + rng.normal(size=300), rng.normal(size=300)])
    )
    targets = torch.tensor((rng.random(300) < 0.5).astype(float))
    encoder = SensitiveEncoder().fit(age)
    model = nn.Sequential(nn.Linear(2, 1), nn.Flatten(0)).double()
    measures = ValidationMeasures(
        (features, targets, encoder.transform(age)), encoder.schema_, task="classification",
        notion="dp", kernel=kernel,
    )  # fmt: skip
    probabilities = torch.sigmoid(measures.outputs(model)).numpy()
    frame = attribute_frame(encoder.transform(age), encoder.schema_)
    expected = faircocco_score(probabilities, frame, kernel=kernel, adjusted=True, random_state=0)
    assert measures(model)["adjusted_score"] == pytest.approx(expected, rel=1e-12)


def test_the_harness_registers_the_path_with_its_targets() -> None:
    from faircocco_torch._mitigators import FAIRCOCCO_PATH as spec

    assert spec.sweep_param == "target" and spec.param_grid["target"] == ("halve", "gap")
    build = spec.factory
    assert build(task="classification", notion="dp", target="gap").target == {"di": 0.8}
    assert build(task="classification", notion="eo", target="gap").target == {"deo": 0.05}
    assert build(task="classification", notion="cal", target="gap").target == "halve"
    regressor = build(task="regression", notion="dp", target="gap", epochs=7)
    assert isinstance(regressor, FairCOCCOPathRegressor) and regressor.target == "halve"
    assert regressor.warmup_epochs == 7
    with pytest.raises(ValueError, match="target='di' is not valid"):
        build(target="di")
    found = {e.name: e for e in entry_points(group="faircocco_plugins.mitigators")}
    if "faircocco" not in found:
        pytest.skip("faircocco-torch is not installed with its entry points")
    assert found["faircocco_path"].load() is spec


def _people(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """A task with a binary and a continuous attribute, the label depending on both."""
    rng = np.random.default_rng(seed)
    people = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "age": rng.uniform(18, 80, n)})
    base = 0.2 + 0.4 * (people["sex"] == "m") + 0.3 * (people["age"] > 50)
    y = (rng.random(n) < base).astype(np.int64)
    x = np.column_stack([y + rng.normal(0.0, 0.8, n), people["age"] / 80, rng.normal(size=n)])
    return x, y, people


def test_the_path_reports_each_attribute_its_worst_and_its_bound() -> None:
    x, y, people = _people(400, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = _small(notion="dp", target={"di": 0.8}, lam_max=1.0, intersections=True)
        path = model.fit(x, y, sensitive_features=people).path_
    for measure, worst in (("di", "min"), ("deo", "max")):
        each = path[[f"{measure}[sex]", f"{measure}[age]", f"{measure}[intersections]"]]
        assert np.allclose(path[measure], getattr(each, worst)(axis=1))
    # the bound is conservative: below the worst DI, above the worst DEO
    assert (path["di_bound"] <= path["di"]).all() and (path["deo_bound"] >= path["deo"]).all()


def test_a_target_the_validation_rows_cannot_certify_says_why() -> None:
    x, y, people = _people(150, seed=2)
    model = _small(notion="dp", target={"di": 0.95}, lam_max=1.0)
    with pytest.warns(UserWarning, match="too few to certify di >= 0.95") as got:
        model.fit(x, y, sensitive_features=people)
    message = str(got[0].message)
    assert re.search(r"the smallest group of '\w+', '[^']+', has \d+ rows", message)
    assert re.search(r"certify di >= 0\.\d+ at best", message)
    assert model.certification_limit_ is not None and model.certification_limit_ in message


def test_the_validation_split_is_stratified_by_group_and_label(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x, y, people = _people(600, seed=3)
    seen: dict[str, Any] = {}
    real = path_module.ValidationMeasures

    def recording(held_out: Any, *args: Any, **kwargs: Any) -> Any:
        seen["held_out"] = held_out
        return real(held_out, *args, **kwargs)

    monkeypatch.setattr(path_module, "ValidationMeasures", recording)
    cells = people["sex"] + "|" + y.astype(str)
    for seed in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            _small(random_state=seed, lam_max=0.5, warmup_epochs=1).fit(
                x, y, sensitive_features=people[["sex"]]
            )
        _, targets, sensitive = seen["held_out"]
        sexes = np.where(sensitive[:, 0].numpy() > 0.5, "m", "f")
        held = pd.Series(sexes + "|" + targets.numpy().astype(int).astype(str))
        # every cell holds validation_fraction of its rows, up to rounding
        expected = 0.2 * cells.value_counts()
        assert (held.value_counts().reindex(expected.index) - expected).abs().max() <= 1


def test_a_near_degenerate_step_is_flagged_and_never_chosen() -> None:
    # a fixed model predicting positive for 1 row of 40 where 12 are positive (rate 0.025
    # against a base rate of 0.3): not one class, and its AUC is high, but near one class
    model = nn.Sequential(nn.Linear(1, 1), nn.Flatten(0))
    with torch.no_grad():
        model[0].weight.fill_(1.0)
        model[0].bias.fill_(-38.5)
    features = torch.arange(40.0)[:, None]
    targets = (torch.arange(40) >= 28).float()
    sex = pd.Series(["f", "m"] * 20)
    encoder = SensitiveEncoder().fit(sex)
    measures = ValidationMeasures(
        (features, targets, encoder.transform(sex)), encoder.schema_, task="classification",
        notion="dp",
    )  # fmt: skip
    row = measures(model)
    assert row["positive_rate"] == pytest.approx(1 / 40) and row["auc"] > 0.9
    assert row["balanced_accuracy"] == pytest.approx((1 / 12 + 1) / 2)
    assert row["degenerate"]
    # at the base rate's third it is kept
    with torch.no_grad():
        model[0].bias.fill_(-35.5)  # 4 of 40 positive: 0.1 > 0.3 / 3, balanced accuracy 0.67
    assert not measures(model)["degenerate"]
