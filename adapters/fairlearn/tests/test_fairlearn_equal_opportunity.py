"""Equal opportunity (``notion="eopp"``) in the fairlearn adapter: the metric, the moment against
fairlearn's own TruePositiveRateParity, and the grid search's default notion for it."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from fairlearn.metrics import MetricFrame
from fairlearn.reductions import ExponentiatedGradient, TruePositiveRateParity
from sklearn.linear_model import LogisticRegression

from faircocco_fairlearn import (
    FairCOCCOGridSearch,
    FairCOCCOMoment,
    faircocco_metric,
    faircocco_sample_params,
)
from faircocco_plugins import faircocco_score


def biased(n: int = 1200, seed: int = 0) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """Labels that depend on sex and age; a feature that leaks sex."""
    rng = np.random.default_rng(seed)
    A = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "age": rng.uniform(18, 80, n)})
    signal = rng.normal(size=n)
    leak = (A["sex"] == "m") + (A["age"] - 49) / 30 + 0.3 * rng.normal(size=n)
    y = (signal + leak + rng.normal(scale=0.5, size=n) > 0.7).astype(int)
    return np.column_stack([signal, leak]), y, A


def test_the_metric_is_the_cores_score_in_a_metric_frame():
    X, y, A = biased(400)
    pred = 0.5 * X[:, 0] + X[:, 1]
    positive = y == 1
    expected = faircocco_score(pred[positive], A[positive])
    assert faircocco_metric(y, pred, sensitive_features=A, notion="eopp") == expected
    frame = MetricFrame(
        metrics={"faircocco": functools.partial(faircocco_metric, notion="eopp")},
        y_true=y,
        y_pred=pred,
        sensitive_features=A["sex"],
        sample_params={"faircocco": faircocco_sample_params(A)},
    )
    assert frame.overall["faircocco"] == expected


def test_the_moment_is_fairlearns_true_positive_rate_parity_on_each_feature():
    # with one binary attribute, a feature takes one value per group, φ_j(a) = b_j + c_j·[a = g],
    # so the moment's γ_j = (1/n₊) Σ_{y=1} h·(φ_j − m_j) = c_j · P(a = g | y = 1) · (TPR_g − TPR),
    # and fairlearn's TruePositiveRateParity γ of group g is TPR_g − TPR
    X, y, A = biased()
    sex = A[["sex"]]
    h = (LogisticRegression().fit(X, y).predict_proba(X)[:, 1] > 0.5).astype(float)
    moment = FairCOCCOMoment("eopp", n_features=8, random_state=0)
    moment.load_data(X, pd.Series(y), sensitive_features=sex)
    ours = moment.gamma(lambda _: h)["+"].to_numpy()
    tpr = TruePositiveRateParity()
    tpr.load_data(X, pd.Series(y), sensitive_features=sex["sex"])
    theirs = tpr.gamma(lambda _: h)[("+", "label=1", "m")]
    positive = y == 1
    male = (sex["sex"] == "m").to_numpy()
    # c_j from the centred features of two positive rows, one of each group (U holds them
    # multiplied by n / n₊, so that γ = Uᵀh / n)
    scale = len(y) / positive.sum()
    gap = (moment.U[male & positive][0] - moment.U[~male & positive][0]) / scale
    share = male[positive].mean()
    np.testing.assert_allclose(ours, gap * share * theirs, rtol=1e-10, atol=1e-15)
    assert abs(theirs) > 0.02  # a real gap, not two zeros
    # the negative rows weigh nothing, as in true-positive rates
    changed = np.where(positive, h, 1.0 - h)
    np.testing.assert_allclose(moment.gamma(lambda _: changed)["+"].to_numpy(), ours, atol=1e-15)


def test_exponentiated_gradient_lowers_the_equal_opportunity_score():
    X, y, A = biased()
    plain = LogisticRegression().fit(X, y).predict(X)
    mitigator = ExponentiatedGradient(
        LogisticRegression(),
        FairCOCCOMoment("eopp", difference_bound=0.002, random_state=0),
        max_iter=30,
    )
    fair = mitigator.fit(X, y, sensitive_features=A).predict(X, random_state=0)
    before = faircocco_score(plain, A, y_true=y, notion="eopp", adjusted=True)
    after = faircocco_score(fair, A, y_true=y, notion="eopp", adjusted=True)
    assert after < 0.5 * before


def test_the_grid_search_scores_true_positive_rate_parity_by_equal_opportunity():
    search = FairCOCCOGridSearch(LogisticRegression(), TruePositiveRateParity())
    assert search._notion() == "eopp"
