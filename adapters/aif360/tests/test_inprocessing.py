"""FairCOCCOInprocessing follows AIF360's Transformer contract and trains a fairer network."""

from __future__ import annotations

import numpy as np
import pytest
from aif360_helpers import frame

from faircocco_aif360 import FairCOCCOInprocessing, FairCOCCOMetric

FAST = {"epochs": 5, "random_state": 0}


def test_fit_returns_self_and_predict_a_new_dataset_with_scores_and_labels(binary_dataset):
    before = binary_dataset.copy(deepcopy=True)
    algorithm = FairCOCCOInprocessing(notion="dp", **FAST)
    assert algorithm.fit(binary_dataset) is algorithm
    predicted = algorithm.predict(binary_dataset)
    assert predicted is not binary_dataset
    assert binary_dataset == before  # nothing of the input changed
    assert np.array_equal(binary_dataset.scores, before.scores)
    assert predicted.scores.shape == predicted.labels.shape == (600, 1)
    assert ((predicted.scores >= 0) & (predicted.scores <= 1)).all()
    assert np.array_equal(predicted.labels, (predicted.scores >= 0.5).astype(float))
    with predicted.temporarily_ignore("labels", "scores"):
        assert predicted == binary_dataset


def test_metadata_records_the_transformer_and_its_parameters(binary_dataset):
    predicted = FairCOCCOInprocessing(notion="dp", lam=2.0, **FAST).fit_predict(binary_dataset)
    assert predicted.metadata["transformer"] == "FairCOCCOInprocessing.fit_predict"
    assert predicted.metadata["params"]["lam"] == 2.0
    assert predicted.metadata["params"]["notion"] == "dp"
    assert predicted.metadata["previous"] == [binary_dataset]


def test_fit_predict_is_fit_then_predict(binary_dataset):
    one = FairCOCCOInprocessing(**FAST).fit_predict(binary_dataset)
    two = FairCOCCOInprocessing(**FAST).fit(binary_dataset).predict(binary_dataset)
    assert np.array_equal(one.scores, two.scores)


def test_labels_use_the_datasets_own_label_values(binary_dataset):
    from aif360.datasets import BinaryLabelDataset

    df, _ = binary_dataset.convert_to_dataframe()
    df["y"] = np.where(df["y"] == 1, 2.0, 7.0)  # favourable 2, unfavourable 7
    data = BinaryLabelDataset(
        df=df,
        label_names=["y"],
        protected_attribute_names=["age", "income"],
        favorable_label=2.0,
        unfavorable_label=7.0,
    )
    predicted = FairCOCCOInprocessing(**FAST).fit_predict(data)
    expected = FairCOCCOInprocessing(**FAST).fit_predict(binary_dataset)
    assert set(np.unique(predicted.labels)) <= {2.0, 7.0}
    assert np.array_equal(predicted.scores, expected.scores)


def test_a_label_that_changed_roles_since_fit_is_refused(binary_dataset):
    # the same labels with their roles swapped: whether the model's favourable predictions are
    # this dataset's favourable label (0.0) or the label 1.0 it learned cannot be told
    fitted = FairCOCCOInprocessing(**FAST).fit(binary_dataset)
    swapped = binary_dataset.copy(deepcopy=True)
    swapped.favorable_label, swapped.unfavorable_label = 0.0, 1.0
    with pytest.raises(ValueError, match=r"0\.0 is favourable in dataset but was unfavourable"):
        fitted.predict(swapped)


def test_recoded_labels_are_predicted_by_their_roles(binary_dataset):
    from aif360.datasets import BinaryLabelDataset

    fitted = FairCOCCOInprocessing(**FAST).fit(binary_dataset)
    df, _ = binary_dataset.convert_to_dataframe()
    df["y"] = np.where(df["y"] == 1, 2.0, 7.0)
    recoded = BinaryLabelDataset(
        df=df,
        label_names=["y"],
        protected_attribute_names=["age", "income"],
        favorable_label=2.0,
        unfavorable_label=7.0,
    )
    expected = fitted.predict(binary_dataset)
    predicted = fitted.predict(recoded)
    assert np.array_equal(predicted.scores, expected.scores)
    assert np.array_equal(predicted.labels == 2.0, expected.labels == 1.0)


def test_the_penalty_lowers_the_dependence_on_two_continuous_attributes():
    from aif360.datasets import BinaryLabelDataset

    data = BinaryLabelDataset(
        df=frame(2000), label_names=["y"], protected_attribute_names=["age", "income"]
    )

    def score(lam):
        algorithm = FairCOCCOInprocessing(notion="dp", lam=lam, epochs=30, random_state=0)
        return FairCOCCOMetric(data, algorithm.fit_predict(data)).faircocco_score(notion="dp")

    unpenalised, penalised = score(0.0), score(50.0)
    # measured: 0.036 and 0.012
    assert penalised < 0.5 * unpenalised


def test_protected_attributes_are_model_inputs_only_on_request(binary_dataset):
    unaware = FairCOCCOInprocessing(**FAST).fit(binary_dataset)
    aware = FairCOCCOInprocessing(protected_as_features=True, **FAST).fit(binary_dataset)
    assert unaware.feature_names_ == ["x", "z"]
    assert aware.feature_names_ == ["x", "z", "age", "income"]
    assert aware.model_.n_features_in_ == 4


def test_regression_datasets_are_regressed(regression_dataset, structured_dataset):
    for data in (regression_dataset, structured_dataset):
        algorithm = FairCOCCOInprocessing(notion="eo", epochs=30, random_state=0)
        predicted = algorithm.fit_predict(data)
        assert algorithm.task_ == "regression"
        assert np.array_equal(predicted.labels, predicted.scores)
        truth = data.labels.ravel()
        mse = np.mean((predicted.labels.ravel() - truth) ** 2)
        assert mse < 0.5 * np.var(truth)


# positives drawn five times as often: the network predicts the positive class only
@pytest.mark.filterwarnings("ignore::faircocco_torch.DegenerateModelWarning")
def test_equal_instance_weights_change_nothing_and_unequal_ones_resample(binary_dataset):
    plain = FairCOCCOInprocessing(**FAST).fit_predict(binary_dataset)
    weighted = binary_dataset.copy(deepcopy=True)
    weighted.instance_weights = np.full(600, 3.0)
    assert np.array_equal(FairCOCCOInprocessing(**FAST).fit_predict(weighted).scores, plain.scores)
    weighted.instance_weights = np.where(binary_dataset.labels.ravel() == 1, 5.0, 1.0)
    reweighted = FairCOCCOInprocessing(**FAST).fit_predict(weighted)
    # positives drawn five times as often: more predicted positives
    assert reweighted.labels.mean() > plain.labels.mean() + 0.1
    weighted.instance_weights = np.full(600, -1.0)
    with pytest.raises(ValueError, match="sample_weight must be finite, non-negative"):
        FairCOCCOInprocessing(**FAST).fit(weighted)


def test_bad_use_gets_a_clear_error(binary_dataset, regression_dataset):
    with pytest.raises(ValueError, match="not fitted yet"):
        FairCOCCOInprocessing().predict(binary_dataset)
    with pytest.raises(TypeError, match="dataset must be an AIF360 BinaryLabelDataset"):
        FairCOCCOInprocessing().fit(binary_dataset.features)
    fitted = FairCOCCOInprocessing(**FAST).fit(binary_dataset)
    with pytest.raises(ValueError, match="regression dataset but the model was fitted for"):
        fitted.predict(regression_dataset)
    with pytest.raises(ValueError, match="no features besides its protected attributes"):
        from aif360.datasets import BinaryLabelDataset

        df, _ = binary_dataset.convert_to_dataframe()
        only = BinaryLabelDataset(
            df=df[["age", "y"]], label_names=["y"], protected_attribute_names=["age"]
        )
        FairCOCCOInprocessing().fit(only)
