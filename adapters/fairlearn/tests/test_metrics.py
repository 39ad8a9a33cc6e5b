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


def test_bootstrap_resamples_warn_that_their_repeated_rows_read_as_dependence(people):
    A, y, p = people["A"], people["y"], people["score"]
    with pytest.warns(UserWarning, match="repeated rows, as a bootstrap resample"):
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
    # what the warning says: the interval lies above the score, not around it
    assert frame.overall["faircocco"] < low < high


def test_bad_input_names_its_argument(people):
    A, y, p = people["A"], people["y"], people["score"]
    with pytest.raises(ValueError, match="notion"):
        faircocco_metric(y, p, sensitive_features=A, notion="parity")
    with pytest.raises(ValueError, match="sensitive_features is empty"):
        faircocco_sample_params(A.iloc[:0])
    packed = faircocco_sample_params(A)["sensitive_features"]
    other = faircocco_sample_params(A.copy())["sensitive_features"]
    mixed = np.concatenate([packed[:10], other[10:20]])
    with pytest.raises(ValueError, match="different tables"):
        faircocco_metric(y[:20], p[:20], sensitive_features=mixed)
    with pytest.raises(ValueError, match="min_rows=2 is not valid"):
        faircocco_metric(y, p, sensitive_features=A, min_rows=2)
    # checked before a group too small to score returns NaN
    with pytest.raises(ValueError, match="notion"):
        faircocco_metric(y[:5], p[:5], sensitive_features=A[:5], notion="parity")


def shuffled(values, seed=1):
    """The same rows, with their labels, in another order."""
    return values.sample(frac=1, random_state=seed)


def test_sample_params_put_a_shuffled_table_in_the_outcomes_order(people):
    # MetricFrame drops indexes and pairs by position: measured 0.0946 against 0.0722 for a
    # group when the shuffled table was packed as it came
    A, y, p = people["A"], pd.Series(people["y"]), pd.Series(people["score"])

    def frame(sample_params):
        return MetricFrame(
            metrics={"faircocco": faircocco_metric},
            y_true=y,
            y_pred=p,
            sensitive_features=A["sex"],
            sample_params={"faircocco": sample_params},
        )

    expected = frame(faircocco_sample_params(A))
    for given in ({"y_true": y}, {"y_pred": p}, {"y_true": y.to_numpy(), "y_pred": p}):
        aligned = frame(faircocco_sample_params(shuffled(A), **given))
        pd.testing.assert_frame_equal(aligned.by_group, expected.by_group)
        assert aligned.overall["faircocco"] == expected.overall["faircocco"]


def test_sample_params_refuse_rows_they_cannot_pair(people):
    A, y = people["A"], pd.Series(people["y"])
    with pytest.warns(UserWarning, match="index out of increasing order.*pass y_true"):
        faircocco_sample_params(shuffled(A))
    with pytest.raises(ValueError, match="sensitive_features has 500 rows and y_true has 600"):
        faircocco_sample_params(A[:500], y_true=y)
    with pytest.raises(ValueError, match=r"y_true and sensitive_features .*reset_index"):
        faircocco_sample_params(A.set_axis(A.index + 1000), y_true=y)
    with pytest.raises(ValueError, match="y_true and y_pred"):
        faircocco_sample_params(A, y_true=y, y_pred=y.set_axis(y.index + 1000))


def test_the_metric_pairs_pandas_rows_in_the_order_of_its_first_pandas_input(people):
    A, y, p = people["A"], people["y"], people["score"]
    expected = faircocco_metric(y, p, sensitive_features=A)
    order = shuffled(pd.Series(y)).index
    # y_true leads: y_pred and the table are put in its order by label
    y_shuffled = pd.Series(y[order], index=order)
    p_shuffled = pd.Series(p[order], index=order)
    assert faircocco_metric(y_shuffled, p_shuffled, sensitive_features=A) == pytest.approx(
        expected, rel=1e-9
    )
    # an array beside them could follow either order
    with pytest.raises(ValueError, match="y_pred is positional"):
        faircocco_metric(y_shuffled, p[order], sensitive_features=A)
    packed = faircocco_sample_params(shuffled(A), y_true=pd.Series(y))["sensitive_features"]
    assert faircocco_metric(pd.Series(y), p, sensitive_features=packed) == pytest.approx(
        expected, rel=1e-9
    )
    report = faircocco_metric_report(y_shuffled, p_shuffled, sensitive_features=A)
    expected_report = faircocco_metric_report(y, p, sensitive_features=A)
    assert report["score"].to_numpy() == pytest.approx(expected_report["score"], rel=1e-9)


def test_a_column_of_whole_rows_points_to_the_packing(people):
    A, y, p = people["A"], people["y"], people["score"]
    records = np.empty(N, dtype=object)
    records[:] = A.to_dict("records")
    for rows in (records, A.to_records(index=False)):
        with pytest.raises(TypeError, match=r"one .* per row.*faircocco_sample_params"):
            MetricFrame(
                metrics={"faircocco": faircocco_metric},
                y_true=y,
                y_pred=p,
                sensitive_features=A["sex"],
                sample_params={"faircocco": {"sensitive_features": rows}},
            )
    packed = faircocco_sample_params(A[:500])["sensitive_features"]
    with pytest.raises(ValueError, match=r"500 rows and y_pred has 600.*faircocco_sample_params"):
        faircocco_metric(y, p, sensitive_features=packed)


def test_groups_below_min_rows_score_nan_with_a_warning_that_names_them(people):
    A, y, p = people["A"], people["y"], people["score"]
    region = A["region"].where(A.index >= 2, "west")  # a group of two rows
    with pytest.warns(UserWarning, match="region='west' are fewer than min_rows=30"):
        frame = MetricFrame(
            metrics={"faircocco": faircocco_metric},
            y_true=y,
            y_pred=p,
            sensitive_features=region,
            sample_params={"faircocco": faircocco_sample_params(A.assign(region=region))},
        )
    scores = frame.by_group["faircocco"]
    # two rows scored 1.0 whatever the predictions
    assert math.isnan(scores["west"])
    assert scores.drop("west").between(0, 0.2).all()
    with pytest.warns(UserWarning, match="these 29 rows are fewer than min_rows=30"):
        assert math.isnan(faircocco_metric(y[:29], p[:29], sensitive_features=A[:29]))
    smaller = faircocco_metric(y[:29], p[:29], sensitive_features=A[:29], min_rows=29)
    assert 0 < smaller <= 1


def test_groups_where_every_attribute_is_constant_score_nan_not_zero(people):
    A, y, p = people["A"], people["y"], people["score"]
    with pytest.warns(UserWarning) as caught:
        frame = MetricFrame(
            metrics={"faircocco": faircocco_metric},
            y_true=y,
            y_pred=p,
            sensitive_features=A["sex"],
            sample_params={"faircocco": faircocco_sample_params(A[["sex"]])},
        )
    for sex in ("f", "m"):
        assert any(f"constant in the rows where sex='{sex}'" in str(w.message) for w in caught)
    # within a group its only attribute is constant: the score was 0.0, read as fair
    assert frame.by_group["faircocco"].isna().all()
    assert 0 < frame.overall["faircocco"] < 1
