"""The groups given to methods that group rows by value: fitted on training rows, applied to
others, crossed into one column; and the variant of such a method that trains on them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins.bench._binned_methods import (
    HIGHER,
    LOWER,
    POOLED,
    BinnedGroups,
    binned_method,
    needs_binned_groups,
)
from faircocco_plugins.bench._binning import fit_group_bins
from faircocco_plugins.plugins import Capabilities, MethodSpec

TRAIN = pd.DataFrame(
    {
        "sex": pd.Categorical(["f", "m", "f", "m", "f", "m", "f", "m"]),
        "age": [20.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0, 55.0],
    }
)


def test_median_is_fitted_on_training_rows_and_applied_to_others() -> None:
    bins = fit_group_bins(TRAIN, "median")
    # the training median of age, (35 + 40) / 2; sex is kept by its levels
    assert bins.cuts == {"age": (37.5,)}
    test = pd.DataFrame({"sex": pd.Categorical(["m", "f", "f"]), "age": [37.5, 38.0, 90.0]})
    # a value at the cut point falls in the lower bin; the test rows' own median (38) is not used
    assert bins.labels(test).tolist() == [
        "sex=m, age<=37.5",
        "sex=f, age>37.5",
        "sex=f, age>37.5",
    ]


def test_quartiles_cut_at_the_training_quartiles() -> None:
    bins = fit_group_bins(TRAIN, "quartiles")
    expected = tuple(np.quantile(TRAIN["age"], [0.25, 0.5, 0.75]))
    assert bins.cuts == {"age": expected}  # 28.75, 37.5, 46.25
    test = pd.DataFrame({"sex": ["f"] * 4, "age": [28.75, 30.0, 46.0, 46.3]})
    assert bins.labels(test).tolist() == [
        "sex=f, age<=28.75",
        "sex=f, 28.75<age<=37.5",
        "sex=f, 37.5<age<=46.25",
        "sex=f, age>46.25",
    ]


def test_groups_cross_every_attribute_and_ties_merge_cut_points() -> None:
    train = pd.DataFrame(
        {
            "sex": ["f", "m"] * 4,
            "race": ["a", "a", "b", "b", "c", "c", "a", "b"],
            "age": [20.0, 20.0, 20.0, 20.0, 20.0, 30.0, 40.0, 50.0],
        }
    )
    bins = fit_group_bins(train, "quartiles")
    # quartiles 20, 20, 32.5: the equal ones merge into one cut point
    assert bins.cuts == {"age": (20.0, 32.5)}
    labels = bins.labels(train)
    assert labels[5] == "sex=m, race=c, 20<age<=32.5"
    # each combination of the three attributes that occurs is one group
    age_bins = np.digitize(train["age"], [20, 32.5], right=True)
    combinations = set(zip(train["sex"], train["race"], age_bins, strict=True))
    assert len(set(labels)) == len(combinations)


def test_bins_refuse_other_columns_missing_values_and_unknown_schemes() -> None:
    bins = fit_group_bins(TRAIN, "median")
    with pytest.raises(ValueError, match=r"columns \['age'\]; the groups were fitted on"):
        bins.labels(TRAIN[["age"]])
    with pytest.raises(ValueError, match="sensitive column 'age' has missing values"):
        fit_group_bins(TRAIN.assign(age=[np.nan, *TRAIN["age"][1:]]), "median")
    with pytest.raises(ValueError, match="scheme='deciles' is not valid"):
        fit_group_bins(TRAIN, "deciles")
    with pytest.raises(TypeError, match="sensitive must be a pandas DataFrame"):
        fit_group_bins(TRAIN["age"], "median")  # type: ignore[arg-type]


class _Recorder:
    """Records the attributes it is given."""

    def fit(self, X: Any, y: Any, *, sensitive_features: pd.DataFrame) -> _Recorder:
        self.fitted_on = sensitive_features
        return self

    def predict(self, X: Any, sensitive_features: Any = None) -> np.ndarray:
        self.predicted_on = sensitive_features
        return np.zeros(len(X), dtype=int)


def _spec(attributes: tuple[str, ...]) -> MethodSpec:
    capabilities = Capabilities(
        tasks=("classification",),
        notions=("dp",),
        attributes=attributes,
        outcomes=("binary",),
        multiple_attributes="single",
        needs_gradients=False,
        attributes_at_prediction=True,
    )
    return MethodSpec(
        "grouper",
        "A group method",
        capabilities,
        factory=lambda **params: _Recorder(),
        param_grid={"C": (1.0, 2.0)},
        quick_grid={"C": (1.0,)},
    )


#: Each row of TRAIN 30 times: groups of 60 rows, enough to be protected on their own.
COPIES = 30
BIG = TRAIN.loc[TRAIN.index.repeat(COPIES)].reset_index(drop=True)
BIG_X = pd.DataFrame({"x": np.arange(len(BIG), dtype=float)})


def _outcomes(per_row: list[int]) -> np.ndarray:
    """An outcome per row of TRAIN, for each of its copies in BIG."""
    return np.repeat(per_row, COPIES)


def test_the_variant_sweeps_the_groups_and_takes_every_kind_of_attribute() -> None:
    spec = _spec(("binary", "categorical"))
    assert needs_binned_groups(spec)
    variant = binned_method(spec, ("median", "quartiles"))
    assert variant.name == "grouper"
    assert variant.param_grid == {"C": (1.0, 2.0), "groups": ("median", "quartiles")}
    assert variant.capabilities.problems(attributes=("binary", "categorical", "continuous")) == []
    model = variant.factory(
        task="classification", notion="dp", random_state=0, C=1.0, groups="median"
    )
    # both classes in each group (f<=37.5: rows 0, 2; m<=: 1, 3; f>: 4, 6; m>: 5, 7)
    model.fit(BIG_X, _outcomes([0, 0, 1, 1, 0, 0, 1, 1]), sensitive_features=BIG)
    assert (
        model.model.fitted_on["group"].tolist()
        == fit_group_bins(BIG, "median").labels(BIG).tolist()
    )
    test = pd.DataFrame({"sex": pd.Categorical(["m"]), "age": [60.0]})
    model.predict(BIG_X.iloc[:1], sensitive_features=test)
    assert model.model.predicted_on["group"].tolist() == ["sex=m, age>37.5"]
    # the recorder has no predict_proba, so neither has its variant
    assert getattr(model, "predict_proba", None) is None


def test_binary_methods_get_the_groups_above_and_below_the_overall_positive_rate() -> None:
    model = BinnedGroups(_Recorder(), "median", binary=True)
    # overall rate 0.5; f<=37.5 rows 0, 2 (rate 0); m<=37.5 rows 1, 3 (1); f>37.5 rows 4, 6
    # (0.5); m>37.5 rows 5, 7 (0.5): only m<=37.5 is above the overall rate
    model.fit(BIG_X, _outcomes([0, 1, 0, 1, 1, 1, 0, 0]), sensitive_features=BIG)
    expected = [LOWER, HIGHER, LOWER, HIGHER, LOWER, LOWER, LOWER, LOWER]
    assert model.model.fitted_on["group"].tolist() == np.repeat(expected, COPIES).tolist()
    # a group unseen in training goes below
    unseen = pd.DataFrame({"sex": pd.Categorical(["x"]), "age": [20.0]})
    model.predict(pd.DataFrame({"x": [0.0]}), sensitive_features=unseen)
    assert model.model.predicted_on["group"].tolist() == [LOWER]


def test_small_groups_groups_of_one_class_and_unseen_ones_are_pooled() -> None:
    # f<=37.5 (rows 0, 2) has no positive outcome; 29 rows of a sex "x" are one group too few
    rare = pd.DataFrame({"sex": ["x"] * 29, "age": [37.5] * 29})  # the median stays 37.5
    sensitive = pd.concat([BIG.astype({"sex": str}), rare], ignore_index=True)
    X = pd.DataFrame({"x": np.arange(len(sensitive), dtype=float)})
    y = np.r_[_outcomes([0, 0, 0, 1, 0, 0, 1, 1]), np.arange(29) % 2]
    groups = fit_group_bins(sensitive, "median").labels(sensitive)
    classifier = BinnedGroups(_Recorder(), "median", binary=False, classes=True)
    classifier.fit(X, y, sensitive_features=sensitive)
    fitted = classifier.model.fitted_on["group"].to_numpy()
    pooled = (groups == "sex=f, age<=37.5") | (groups == "sex=x, age<=37.5")
    assert (fitted[pooled] == POOLED).all()
    assert (fitted[~pooled] == groups[~pooled]).all()
    unseen = pd.DataFrame({"sex": ["y", "f", "m"], "age": [20.0, 20.0, 20.0]})
    classifier.predict(X.iloc[:3], sensitive_features=unseen)
    assert classifier.model.predicted_on["group"].tolist() == [POOLED, POOLED, "sex=m, age<=37.5"]
    # a regression has no classes: only the small group is pooled there
    regressor = BinnedGroups(_Recorder(), "median", binary=False)
    regressor.fit(X, y.astype(float), sensitive_features=sensitive)
    fitted = regressor.model.fitted_on["group"].to_numpy()
    assert (fitted[groups == "sex=x, age<=37.5"] == POOLED).all()
    assert (fitted[groups == "sex=f, age<=37.5"] == "sex=f, age<=37.5").all()
    variant = binned_method(_spec(("binary", "categorical")), ("median",))
    built = variant.factory(task="classification", notion="dp", random_state=0, groups="median")
    assert built.classes


def test_binned_method_refuses_unknown_schemes_and_a_groups_parameter() -> None:
    with pytest.raises(ValueError, match="schemes=\\['deciles'\\] is not valid"):
        binned_method(_spec(("binary",)), ("deciles",))
    spec = _spec(("binary",))
    clash = MethodSpec(spec.name, "", spec.capabilities, spec.factory, param_grid={"groups": (1,)})
    with pytest.raises(ValueError, match="already has a parameter 'groups'"):
        binned_method(clash, ("median",))
