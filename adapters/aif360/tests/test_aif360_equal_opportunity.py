"""Equal opportunity (``notion="eopp"``) in the AIF360 adapter: the metric is the core's DP score
on the rows with the favourable label, and the in-processing algorithm trains under it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import faircocco_plugins
from faircocco_aif360 import FairCOCCOInprocessing, FairCOCCOMetric

FAST = {"epochs": 5, "random_state": 0}


def test_the_metric_is_the_cores_dp_score_on_the_favourable_rows(binary_dataset):
    classified = FairCOCCOInprocessing(**FAST).fit_predict(binary_dataset)
    metric = FairCOCCOMetric(binary_dataset, classified)
    favourable = binary_dataset.labels.ravel() == binary_dataset.favorable_label
    attributes = pd.DataFrame(binary_dataset.protected_attributes, columns=["age", "income"])
    scores = classified.scores.ravel()
    expected = faircocco_plugins.faircocco_score(scores[favourable], attributes[favourable])
    assert metric.faircocco_score(notion="eopp") == expected
    report = metric.faircocco_report(notion="eopp")
    assert report.loc["joint", "n"] == favourable.sum()


def test_the_algorithm_trains_under_it(binary_dataset):
    algorithm = FairCOCCOInprocessing(notion="eopp", lam=2.0, **FAST)
    predicted = algorithm.fit_predict(binary_dataset)
    assert algorithm.notion == "eopp"
    score = FairCOCCOMetric(binary_dataset, predicted).faircocco_score(notion="eopp")
    assert 0.0 <= score <= 1.0
    assert set(np.unique(predicted.labels)) <= {
        binary_dataset.favorable_label,
        binary_dataset.unfavorable_label,
    }


def test_a_regression_dataset_is_refused_by_name(regression_dataset):
    with pytest.raises(ValueError, match=r"notion='eopp' \(equal opportunity.*class labels"):
        FairCOCCOInprocessing(notion="eopp", **FAST).fit(regression_dataset)
