"""FairCOCCO as a fairlearn metric: on its own, in MetricFrame with mixed-type attributes."""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest
from fairlearn.metrics import MetricFrame
from sklearn.metrics import accuracy_score

from faircocco_fairlearn import faircocco_metric, faircocco_metric_report, faircocco_sample_params
from faircocco_plugins import faircocco_report, faircocco_score

N = 600


@pytest.fixture(scope="module")
def people() -> dict[str, object]:
    """Labels that follow sex and age, predictions that follow the labels and age."""
    rng = np.random.default_rng(0)
    attributes = pd.DataFrame(
        {
            "sex": pd.Categorical(rng.choice(["f", "m"], N)),
            "region": rng.choice(["north", "south", "east"], N),
            "age": rng.uniform(18, 80, N),
        }
    )
    y = (rng.random(N) < 0.3 + 0.2 * (attributes["sex"] == "m")).astype(int)
    score = y + 0.02 * attributes["age"] + rng.normal(size=N)
    return {"A": attributes, "y": y, "score": score.to_numpy(), "label": (score > 1.2).astype(int)}


def test_the_metric_is_the_cores_joint_score(people):
    A, y, p = people["A"], people["y"], people["score"]
    for notion in ("eo", "dp", "cal"):
        expected = faircocco_score(p, A, y_true=None if notion == "dp" else y, notion=notion)
        assert faircocco_metric(y, p, sensitive_features=A, notion=notion) == expected
    report = faircocco_metric_report(y, p, sensitive_features=A)
    pd.testing.assert_frame_equal(report, faircocco_report(p, A, y_true=y, notion="eo"))


def test_metric_frame_overall_is_the_joint_score_on_all_rows(people):
    A, y, p = people["A"], people["y"], people["score"]
    frame = MetricFrame(
        metrics={"faircocco": faircocco_metric},
        y_true=y,
        y_pred=p,
        sensitive_features=A["sex"],
        sample_params={"faircocco": faircocco_sample_params(A)},
    )
    assert frame.overall["faircocco"] == faircocco_metric(y, p, sensitive_features=A)


def test_by_group_is_the_dependence_on_the_other_attributes_within_each_group(people):
    A, y = people["A"], people["y"]
    frame = MetricFrame(
        metrics={"accuracy": accuracy_score, "faircocco": faircocco_metric},
        y_true=y,
        y_pred=people["label"],
        sensitive_features=A["sex"],
        sample_params={"faircocco": faircocco_sample_params(A)},
    )
    for sex in ("f", "m"):
        rows = (A["sex"] == sex).to_numpy()
        within = faircocco_score(
            people["label"][rows],
            A[["region", "age"]][rows],
            y_true=y[rows],
            notion="eo",
        )
        # the grouping attribute is constant within its group, so it adds nothing
        assert frame.by_group.loc[sex, "faircocco"] == pytest.approx(within, rel=1e-9)
        assert frame.by_group.loc[sex, "accuracy"] == accuracy_score(y[rows], people["label"][rows])


def test_control_features_give_per_label_dp_scores(people):
    A, y, p = people["A"], people["y"], people["score"]
    dp = functools.partial(faircocco_metric, notion="dp")
    frame = MetricFrame(
        metrics={"faircocco": dp},
        y_true=y,
        y_pred=p,
        sensitive_features=A["sex"],
        control_features=pd.Series(y, name="label"),
        sample_params={"faircocco": faircocco_sample_params(A)},
    )
    for label in (0, 1):
        rows = y == label
        expected = faircocco_score(p[rows], A[rows].reset_index(drop=True), notion="dp")
        assert frame.overall.loc[label, "faircocco"] == pytest.approx(expected, rel=1e-9)


def test_bootstrap_intervals_bracket_the_score(people):
    A, y, p = people["A"], people["y"], people["score"]
    frame = MetricFrame(
        metrics={"faircocco": faircocco_metric},
        y_true=y,
        y_pred=p,
        sensitive_features=A["sex"],
        sample_params={"faircocco": faircocco_sample_params(A)},
        n_boot=20,
        ci_quantiles=[0.05, 0.95],
        random_state=0,
    )
    low, high = (frame.overall_ci[k]["faircocco"] for k in (0, 1))
    assert 0 < low < high < 1
    assert low != high


def test_one_row_groups_score_nan_and_bad_input_names_its_argument(people):
    A, y, p = people["A"], people["y"], people["score"]
    assert math.isnan(faircocco_metric(y[:1], p[:1], sensitive_features=A[:1]))
    with pytest.raises(ValueError, match="notion"):
        faircocco_metric(y, p, sensitive_features=A, notion="parity")
    with pytest.raises(ValueError, match="sensitive_features is empty"):
        faircocco_sample_params(A.iloc[:0])
    packed = faircocco_sample_params(A)["sensitive_features"]
    other = faircocco_sample_params(A.copy())["sensitive_features"]
    mixed = np.concatenate([packed[:10], other[10:20]])
    with pytest.raises(ValueError, match="different tables"):
        faircocco_metric(y[:20], p[:20], sensitive_features=mixed)
