"""FairCOCCOMetric gives the core's numbers for the datasets' protected attributes."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pandas as pd
import pytest

import faircocco_plugins
from faircocco_aif360 import FairCOCCOInprocessing, FairCOCCOMetric


@pytest.fixture
def classified(binary_dataset):
    return FairCOCCOInprocessing(epochs=5, random_state=0).fit_predict(binary_dataset)


def core_inputs(dataset, classified):
    attributes = pd.DataFrame(dataset.protected_attributes, columns=["age", "income"])
    return classified.scores.ravel(), attributes, dataset.labels.ravel()


def test_score_report_and_test_equal_the_cores(binary_dataset, classified):
    metric = FairCOCCOMetric(binary_dataset, classified)
    y_pred, attributes, y_true = core_inputs(binary_dataset, classified)
    for notion in ("dp", "eo", "cal"):
        truth = None if notion == "dp" else y_true
        expected = faircocco_plugins.faircocco_score(
            y_pred, attributes, y_true=truth, notion=notion
        )
        assert metric.faircocco_score(notion=notion) == expected
    expected_report = faircocco_plugins.faircocco_report(y_pred, attributes, y_true=y_true)
    pd.testing.assert_frame_equal(metric.faircocco_report(notion="dp"), expected_report)
    result = metric.independence_test(notion="eo", n_permutations=99, random_state=0)
    expected_test = faircocco_plugins.independence_test(
        y_pred, attributes, y_true=y_true, notion="eo", n_permutations=99, random_state=0
    )
    assert result.pvalue == expected_test.pvalue
    assert np.array_equal(result.statistic, expected_test.statistic)
    assert np.array_equal(result.null_distribution, expected_test.null_distribution)


def test_each_call_computes_afresh_and_a_dropped_metric_is_freed(binary_dataset, classified):
    metric = FairCOCCOMetric(binary_dataset, classified)
    report = metric.faircocco_report(notion="dp")
    expected = report.copy()
    report.iloc[0, 0] = -1.0  # a caller's change to one answer is not the next answer
    pd.testing.assert_frame_equal(metric.faircocco_report(notion="dp"), expected)
    metric.faircocco_score(notion="eo", adjusted=True)
    alive = weakref.ref(metric)
    del metric
    gc.collect()
    assert alive() is None


def test_labels_are_measured_as_the_favourable_indicator(binary_dataset, classified):
    metric = FairCOCCOMetric(binary_dataset, classified, predictions="labels")
    _, attributes, _ = core_inputs(binary_dataset, classified)
    expected = faircocco_plugins.faircocco_score(
        (classified.labels.ravel() == 1).astype(float), attributes, adjusted=True
    )
    assert metric.faircocco_score(notion="dp", adjusted=True) == expected


def test_a_regression_dataset_is_scored_against_its_outcome(structured_dataset):
    predicted = FairCOCCOInprocessing(epochs=5, random_state=0).fit_predict(structured_dataset)
    score = FairCOCCOMetric(structured_dataset, predicted).faircocco_score(notion="eo")
    attributes = pd.DataFrame(structured_dataset.protected_attributes)
    expected = faircocco_plugins.faircocco_score(
        predicted.scores.ravel(), attributes, y_true=structured_dataset.labels.ravel(), notion="eo"
    )
    assert score == expected


def test_datasets_that_differ_beyond_predictions_are_refused(binary_dataset, classified):
    other = classified.copy(deepcopy=True)
    other.protected_attributes = other.protected_attributes + 1
    with pytest.raises(ValueError, match="may differ only in labels and scores"):
        FairCOCCOMetric(binary_dataset, other)
    with pytest.raises(ValueError, match="predictions='proba' is not valid"):
        FairCOCCOMetric(binary_dataset, classified, predictions="proba")
    with pytest.raises(TypeError, match="classified_dataset must be an AIF360"):
        FairCOCCOMetric(binary_dataset, np.zeros(3))


def test_predictions_of_other_rows_are_refused_by_count(binary_dataset, classified):
    with pytest.raises(ValueError, match="classified_dataset has 500 rows and dataset 600"):
        FairCOCCOMetric(binary_dataset, classified.subset(range(500)))
    short = classified.copy(deepcopy=True)
    short.scores = short.scores[:-5]
    with pytest.raises(
        ValueError, match=r"classified_dataset\.scores has 595 rows and dataset 600"
    ):
        FairCOCCOMetric(binary_dataset, short)
