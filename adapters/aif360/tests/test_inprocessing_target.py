"""FairCOCCOInprocessing with a fairness target trains the torch adapter's λ path."""

from __future__ import annotations

import warnings

import numpy as np

from faircocco_aif360 import FairCOCCOInprocessing

#: Two epochs of warm-up, then the path's default steps.
SHORT = {"epochs": 2, "random_state": 0, "learning_rate": 1e-2}


def test_a_target_trains_the_path_and_keeps_the_step_it_selects(binary_dataset):
    from faircocco_torch import FairCOCCOPathClassifier

    algorithm = FairCOCCOInprocessing(notion="dp", target={"di": 0.8}, **SHORT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # whether DI 0.8 is reached is not tested
        predicted = algorithm.fit_predict(binary_dataset)
    model = algorithm.model_
    assert isinstance(model, FairCOCCOPathClassifier)
    assert model.target == {"di": 0.8} and model.notion == "dp"
    # the network's epochs are the unpenalised warm-up's
    assert model.warmup_epochs == 2 and model.path_["lam"].iloc[0] == 0.0
    assert predicted.metadata["params"]["target"] == {"di": 0.8}
    columns = [binary_dataset.feature_names.index(n) for n in algorithm.feature_names_]
    X = binary_dataset.features[:, columns]
    assert np.array_equal(predicted.scores[:, 0], model.predict_proba(X)[:, 1])


def test_a_regression_dataset_trains_the_regression_path(regression_dataset):
    from faircocco_torch import FairCOCCOPathRegressor

    algorithm = FairCOCCOInprocessing(notion="dp", target="halve", **SHORT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        algorithm.fit(regression_dataset)
    assert isinstance(algorithm.model_, FairCOCCOPathRegressor)
    assert list(algorithm.model_.path_.columns) == [
        "lam", "mse", "r2", "adjusted_score", "adjusted_score_bound", "degenerate", "refined",
    ]  # fmt: skip


def test_the_target_s_confidence_bins_and_intersections_reach_the_path(binary_dataset):
    algorithm = FairCOCCOInprocessing(
        notion="dp", target={"di": 0.8}, confidence=0.75, bins=3, intersections=True, **SHORT
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        predicted = algorithm.fit_predict(binary_dataset)
    model = algorithm.model_
    assert (model.confidence, model.bins, model.intersections) == (0.75, 3, True)
    assert predicted.metadata["params"]["confidence"] == 0.75
    # the path's DI columns: each attribute's and their intersections'
    assert "di[intersections]" in model.path_.columns


def test_without_a_target_the_network_has_one_lam(binary_dataset):
    from faircocco_torch import FairCOCCOClassifier

    algorithm = FairCOCCOInprocessing(notion="dp", lam=2.0, **SHORT).fit(binary_dataset)
    assert type(algorithm.model_) is FairCOCCOClassifier and algorithm.model_.lam == 2.0
