"""FairCOCCOGridSearch: the grid predictor kept for a fairness target, measured on the held-out
rows independently of the search, the warning when no predictor meets it, and bad targets."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from fairlearn.reductions import (
    BoundedGroupLoss,
    DemographicParity,
    EqualizedOdds,
    ErrorRateParity,
    GridSearch,
    ZeroOneLoss,
)
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression

from faircocco_fairlearn import (
    FairCOCCOGridSearch,
    FairCOCCOMoment,
    difference_of_equal_opportunity,
    disparate_impact_ratio,
    faircocco_metric,
)
from faircocco_plugins.plugins import DegenerateModelWarning
from faircocco_plugins.targets import Target


def biased(n: int = 1000, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels that follow a binary attribute through a feature, with noise: on these rows the
    default grid reaches DI 0.83 and DEO 0.01 under DP."""
    rng = np.random.default_rng(seed)
    sex = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n) + sex, rng.normal(size=n)])
    y = (X[:, 0] + X[:, 1] + rng.normal(size=n) > 0.5).astype(int)
    return X, y, sex


def held_out_measure(
    search: FairCOCCOGridSearch, X: np.ndarray, y: np.ndarray, A: Any, measure: str
) -> float:
    """The kept predictor's measure on the held-out rows, from the public metrics."""
    rows = search.validation_rows_
    X_val, y_val, A_val = X[rows], y[rows], np.asarray(A)[rows]
    if measure == "di":
        return disparate_impact_ratio(y_val, search.predict(X_val), sensitive_features=A_val)
    if measure == "deo":
        return difference_of_equal_opportunity(
            y_val, search.predict(X_val), sensitive_features=A_val
        )
    notion = search.notion or ("dp" if isinstance(search.constraints, DemographicParity) else "eo")
    scores = search.predict_proba(X_val)[:, 1]
    return faircocco_metric(y_val, scores, sensitive_features=A_val, notion=notion, adjusted=True)


def rule(candidates: pd.DataFrame, target: Target) -> int:
    """The selection rule, literally: the most accurate usable predictor whose column (DI and
    DEO: their bound at the stated confidence) is within the bound."""
    values = candidates[target.column]
    within = values <= target.threshold if target.lower_is_fairer else values >= target.threshold
    return int(candidates.loc[within & ~candidates["degenerate"], "accuracy"].idxmax())


@pytest.mark.parametrize(
    ("constraints", "target", "rows"),
    [
        (DemographicParity(), "halve", 2000),
        (DemographicParity(), {"di": 0.65}, 2000),
        (DemographicParity(), {"deo": 0.15}, 2000),
        (DemographicParity(), {"adjusted_score": 0.03}, 2000),
        (EqualizedOdds(), "halve", 3000),
        (EqualizedOdds(), {"deo": 0.15}, 2000),
    ],
)
def test_the_kept_predictor_meets_a_reachable_target_on_the_held_out_rows(
    constraints: Any, target: Any, rows: int
) -> None:
    # a fifth held out: on 200 rows the adjusted score's upper bound is too wide for "halve"
    # under DP, on 400 under EO
    X, y, sex = biased(rows)
    search = FairCOCCOGridSearch(LogisticRegression(), constraints, target=target, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # the target is met: no fallback
        search.fit(X, y, sensitive_features=sex)
    goal = search.target_
    reached = held_out_measure(search, X, y, sex, goal.measure)
    assert reached == pytest.approx(search.candidates_[goal.measure].iloc[search.best_idx_])
    certified = search.candidates_[goal.column].iloc[search.best_idx_]
    assert certified >= goal.threshold if goal.measure == "di" else certified <= goal.threshold
    # a bound at the stated confidence is beyond the point value
    assert reached >= certified if goal.measure == "di" else reached <= certified
    assert search.best_idx_ == rule(search.candidates_, goal)


def test_halve_is_half_the_unconstrained_estimators_held_out_score() -> None:
    X, y, sex = biased()
    search = FairCOCCOGridSearch(LogisticRegression(), DemographicParity(), random_state=0)
    search.fit(X, y, sensitive_features=sex)
    held = search.validation_rows_
    train = np.setdiff1d(np.arange(len(y)), held)
    plain = LogisticRegression().fit(X[train], y[train])
    score = faircocco_metric(
        y[held], plain.predict_proba(X[held])[:, 1], sensitive_features=sex[held], notion="dp",
        adjusted=True,
    )  # fmt: skip
    assert search.target_.measure == "adjusted_score"
    assert search.target_.threshold == pytest.approx(0.5 * score, rel=1e-12)


def test_the_held_out_rows_are_a_seeded_stratified_share() -> None:
    X, y, sex = biased()
    search = FairCOCCOGridSearch(
        # a target every predictor meets: the test is about the split, not selection
        LogisticRegression(), DemographicParity(), target={"di": 0.0}, random_state=3,
        validation_fraction=0.25,
    )  # fmt: skip
    search.fit(X, y, sensitive_features=sex)
    held = search.validation_rows_
    assert len(held) == 250 and len(np.unique(held)) == 250
    assert abs(y[held].mean() - y.mean()) <= 1 / 250
    again = clone(search).fit(X, y, sensitive_features=sex)
    assert np.array_equal(again.validation_rows_, held)
    assert again.best_idx_ == search.best_idx_
    # the grid's predictors were trained on the other rows only
    assert search.constraints_.total_samples == 750


def test_an_unreachable_target_keeps_the_fairest_predictor_and_warns() -> None:
    X, y, sex = biased()
    # multipliers of at most 0.1 leave every predictor near the unconstrained one (DI 0.70)
    search = FairCOCCOGridSearch(
        LogisticRegression(), DemographicParity(), target={"di": 0.8}, grid_limit=0.1,
        random_state=0,
    )  # fmt: skip
    with pytest.warns(UserWarning, match=r"target=\{'di': 0.8\}.*reached target di >= 0.8") as got:
        search.fit(X, y, sensitive_features=sex)
    candidates = search.candidates_
    assert (candidates["di_bound"] < 0.8).all()
    usable = candidates.loc[~candidates["degenerate"], "di_bound"]
    assert search.best_idx_ == usable.idxmax()
    (message,) = [str(w.message) for w in got if "FairCOCCOGridSearch" in str(w.message)]
    assert f"grid predictor {search.best_idx_} with di_bound={usable.max():.4g}" in message
    assert "grid_limit (now 0.1)" in message
    kept = candidates["di"].iloc[search.best_idx_]
    assert held_out_measure(search, X, y, sex, "di") == pytest.approx(kept)


def test_when_every_predictor_is_degenerate_gridsearchs_own_choice_is_kept() -> None:
    X, y, sex = biased()
    constant = DummyClassifier(strategy="most_frequent")
    search = FairCOCCOGridSearch(constant, DemographicParity(), random_state=0)
    with pytest.warns(DegenerateModelWarning, match="every one is degenerate"):
        search.fit(X, y, sensitive_features=sex)
    assert search.candidates_["degenerate"].all()
    train = np.setdiff1d(np.arange(len(y)), search.validation_rows_)
    own = GridSearch(constant, DemographicParity()).fit(
        X[train], y[train], sensitive_features=sex[train]
    )
    assert search.best_idx_ == own.best_idx_


def test_pandas_inputs_are_split_and_measured_by_row() -> None:
    X, y, sex = biased(800)
    rng = np.random.default_rng(1)
    A = pd.DataFrame({"sex": np.where(sex == 1, "m", "f"), "age": rng.uniform(18, 80, 800)})
    index = rng.permutation(800) + 1000  # labels out of order, shared by every input
    frame = pd.DataFrame(X, columns=["x0", "x1"], index=index)
    moment = FairCOCCOMoment("eo", n_features=4, random_state=0)
    search = FairCOCCOGridSearch(
        # a target every predictor meets: the test is about pairing rows, not selection
        LogisticRegression(), moment, target={"deo": 1.0}, grid_size=16, grid_limit=10.0,
        random_state=0, bins=2,  # the paper's median split, as difference_of_equal_opportunity
    )  # fmt: skip
    search.fit(frame, pd.Series(y, index=index), sensitive_features=A.set_index(index))
    held = search.validation_rows_
    chosen = search.predictors_[search.best_idx_]
    row = search.candidates_.iloc[search.best_idx_]
    A_val = A.iloc[held].reset_index(drop=True)
    scores = chosen.predict_proba(frame.iloc[held])[:, 1]
    expected = faircocco_metric(
        y[held], scores, sensitive_features=A_val, notion="eo", adjusted=True
    )
    assert row["adjusted_score"] == pytest.approx(expected, rel=1e-12)
    labels = chosen.predict(frame.iloc[held])
    deo = difference_of_equal_opportunity(y[held], labels, sensitive_features=A_val)
    assert row["deo"] == pytest.approx(deo)
    # the same rows as arrays: the same split, predictors and measures
    arrays = clone(search).fit(X, y, sensitive_features=A)
    pd.testing.assert_frame_equal(arrays.candidates_, search.candidates_)


def test_pandas_inputs_in_other_orders_pair_by_label() -> None:
    X, y, sex = biased(400)
    index = np.random.default_rng(2).permutation(400)
    frame, labels = pd.DataFrame(X, index=index), pd.Series(y, index=index)
    A = pd.Series(sex, index=index, name="sex")
    search = FairCOCCOGridSearch(LogisticRegression(), DemographicParity(), random_state=0)
    expected = clone(search).fit(frame, labels, sensitive_features=A).candidates_
    # the same labels in another order: paired by position, rows met other rows' attributes
    reordered = clone(search).fit(frame, labels, sensitive_features=A.sort_index())
    pd.testing.assert_frame_equal(reordered.candidates_, expected)
    with pytest.raises(ValueError, match=r"X and sensitive_features .*reset_index"):
        clone(search).fit(frame, labels, sensitive_features=A.set_axis(index + 1000))


def test_a_single_group_and_a_grid_of_fewer_than_two_points_are_refused() -> None:
    X, y, sex = biased(200)
    search = FairCOCCOGridSearch(LogisticRegression(), DemographicParity())
    with pytest.raises(ValueError, match=r"sensitive_features has one group .*training rows"):
        clone(search).fit(X, y, sensitive_features=np.zeros(200))
    for size in (0, 1):
        with pytest.raises(ValueError, match=f"grid_size={size} is not valid.*>= 2"):
            clone(search).set_params(grid_size=size).fit(X, y, sensitive_features=sex)
    # a grid given point by point needs no grid_size
    one_point = clone(search).fit(X, y, sensitive_features=sex).lambda_vecs_.iloc[:, :1]
    given = clone(search).set_params(grid=one_point, grid_size=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # whether one point meets it is not tested
        assert len(given.fit(X, y, sensitive_features=sex).predictors_) == 1


@pytest.mark.parametrize("bins", [2, 4])
def test_a_continuous_attribute_is_cut_into_quantile_bins_of_the_training_rows(bins: int) -> None:
    X, y, sex = biased(600)
    age = np.random.default_rng(3).integers(18, 40, 600)  # 22 distinct ages
    A = pd.DataFrame({"sex": np.where(sex == 1, "m", "f"), "age": age.astype(float)})
    search = FairCOCCOGridSearch(
        LogisticRegression(), DemographicParity(), target={"di": 0.8}, bins=bins, random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # whether DI 0.8 is reached is not tested
        search.fit(X, y, sensitive_features=A)
    training = np.setdiff1d(np.arange(600), search.validation_rows_)
    cuts = np.quantile(age[training], np.arange(1, bins) / bins)
    np.testing.assert_array_equal(search.bin_edges_["age"], np.unique(cuts))
    # fairlearn's groups: sex crossed with the age bins, not one group per age
    groups = search.lambda_vecs_.index.get_level_values("group_id").unique()
    assert len(groups) == 2 * (len(search.bin_edges_["age"]) + 1)
    assert (search.candidates_["di"] > 0).any()


def test_a_faircocco_moment_takes_continuous_attributes_as_they_are() -> None:
    X, y, _ = biased(400)
    age = np.random.default_rng(3).uniform(18, 80, 400)
    moment = FairCOCCOMoment("dp", n_features=4, random_state=0)
    search = FairCOCCOGridSearch(LogisticRegression(), moment, grid_size=4, random_state=0)
    assert search.fit(X, y, sensitive_features=age).bin_edges_ == {}


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("third", r"target='third' is not valid; expected \"halve\""),
        ({"accuracy": 0.9}, "names no measure a target can bound"),
        ({"di": 0.8, "deo": 0.05}, "is not valid"),
        ({"di": 1.5}, r"the bound must be a number in \[0, 1\]"),
        ({"deo": "0.05"}, "the bound must be a number"),
        ({"di": True}, "the bound must be a number"),
        (0.5, "is not valid"),
        (None, "is not valid"),
    ],
)
def test_bad_targets_are_refused(target: Any, message: str) -> None:
    X, y, sex = biased(200)
    search = FairCOCCOGridSearch(LogisticRegression(), DemographicParity(), target=target)
    with pytest.raises(ValueError, match=message):
        search.fit(X, y, sensitive_features=sex)
    assert not hasattr(search, "predictors_")


@pytest.mark.parametrize("target", [{"di": 0.8}, {"deo": 0.05}])
def test_a_gap_target_on_an_attribute_with_one_group_is_refused(target: Any) -> None:
    # the country's DI compared one group with itself (1.0, "met")
    X, y, sex = biased(200)
    A = pd.DataFrame({"sex": sex, "country": ["fr"] * 200})
    search = FairCOCCOGridSearch(LogisticRegression(), DemographicParity(), target=target)
    with pytest.raises(ValueError, match=r"'country' has one group \('fr'\) on the validation"):
        search.fit(X, y, sensitive_features=A)
    assert not hasattr(search, "predictors_")


@pytest.mark.parametrize(
    ("constraints", "options", "message"),
    [
        (ErrorRateParity(), {}, "constraints=ErrorRateParity has no FairCOCCO notion.*notion="),
        (DemographicParity(), {"notion": "cal"}, "notion='cal' is not valid"),
        (
            BoundedGroupLoss(ZeroOneLoss(), upper_bound=0.1),
            {},
            "constraints=BoundedGroupLoss is not a ClassificationMoment",
        ),
        (DemographicParity(), {"validation_fraction": 1.0}, "validation_fraction"),
    ],
)
def test_settings_it_cannot_use_are_refused(
    constraints: Any, options: dict[str, Any], message: str
) -> None:
    X, y, sex = biased(200)
    search = FairCOCCOGridSearch(LogisticRegression(), constraints, **options)
    with pytest.raises(ValueError, match=message):
        search.fit(X, y, sensitive_features=sex)


def test_inputs_of_other_lengths_and_a_float_seed_are_refused() -> None:
    X, y, sex = biased(200)
    search = FairCOCCOGridSearch(LogisticRegression(), DemographicParity())
    with pytest.raises(ValueError, match="sensitive_features has 150 rows and y has 200"):
        search.fit(X, y, sensitive_features=sex[:150])
    with pytest.raises(ValueError, match="X has 199 rows and y has 200"):
        search.fit(X[1:], y, sensitive_features=sex)
    with pytest.raises(TypeError, match="random_state must be None or an integer"):
        search.set_params(random_state=0.5).fit(X, y, sensitive_features=sex)


def test_sklearn_conventions() -> None:
    search = FairCOCCOGridSearch(
        LogisticRegression(), DemographicParity(), target={"di": 0.8}, grid_limit=10
    )
    twin = clone(search)
    assert twin.get_params()["grid_limit"] == 10 and twin.get_params()["target"] == {"di": 0.8}
    X, y, sex = biased(400)
    # a target every predictor meets: the test is about conventions, not selection
    fitted = search.set_params(random_state=0, target={"deo": 1.0}).fit(
        X, y, sensitive_features=sex
    )
    chosen = fitted.predictors_[fitted.best_idx_]
    assert np.array_equal(fitted.predict(X), chosen.predict(X))
    assert list(fitted.candidates_.columns) == [
        "accuracy", "auc", "adjusted_score", "adjusted_score_bound", "di", "di_bound", "di[0]",
        "deo", "deo_bound", "deo[0]", "degenerate",
    ]  # fmt: skip
    assert len(fitted.candidates_) == len(fitted.predictors_) == 10
    assert fitted.candidates_["adjusted_score"].notna().all()


def test_a_target_groups_as_the_path_does_quartiles_and_intersections_when_asked() -> None:
    X, y, sex = biased(600)
    age = np.random.default_rng(2).uniform(18, 80, 600)
    people = pd.DataFrame({"sex": np.where(sex == 1, "m", "f"), "age": age})
    search = FairCOCCOGridSearch(
        # a target every predictor meets: the test is about the groupings, not selection
        LogisticRegression(), DemographicParity(), target={"di": 0.0}, intersections=True,
        random_state=0,
    )  # fmt: skip
    search.fit(X, y, sensitive_features=people)
    assert len(search.bin_edges_["age"]) == 3  # quartiles, the targets' default bins
    assert {"di[sex]", "di[age]", "di[intersections]"} <= set(search.candidates_.columns)


@pytest.mark.parametrize("given", ["search", "moment"])
def test_the_adjusted_score_is_measured_with_the_kernel_given(given: str) -> None:
    """``kernel=`` (or a FairCOCCOMoment's own kernel) is the held-out adjusted score's: the
    kept predictor's column equals the public metric with that kernel, not the Gaussian's."""
    X, y, _ = biased(600)
    age = np.random.default_rng(4).uniform(18, 80, 600) + 10 * X[:, 0]
    moment = FairCOCCOMoment("dp", n_features=4, random_state=0, kernel="laplacian")
    constraints = moment if given == "moment" else DemographicParity()
    options = {} if given == "moment" else {"kernel": "laplacian", "bins": 2}
    search = FairCOCCOGridSearch(
        LogisticRegression(), constraints, grid_size=3, target={"di": 0.0}, random_state=0,
        **options,
    )  # fmt: skip
    search.fit(X, y, sensitive_features=age)
    rows = search.validation_rows_
    scores = search.predict_proba(X[rows])[:, 1]
    measured = {
        kernel: faircocco_metric(
            y[rows],
            scores,
            sensitive_features=age[rows],
            notion="dp",
            adjusted=True,
            kernel=kernel,
        )
        for kernel in ("laplacian", "gaussian")
    }
    kept = search.candidates_["adjusted_score"].iloc[search.best_idx_]
    assert kept == pytest.approx(measured["laplacian"], rel=1e-9)
    assert kept != pytest.approx(measured["gaussian"], rel=1e-3)


def test_an_unknown_kernel_is_refused_with_the_registered_names() -> None:
    X, y, sex = biased(200)
    search = FairCOCCOGridSearch(LogisticRegression(), DemographicParity(), kernel="cosine")
    with pytest.raises(ValueError, match=r"kernel='cosine'.*gaussian"):
        search.fit(X, y, sensitive_features=sex)
