"""FairCOCCO as an AIF360 metric, in the style of ``ClassificationMetric``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from aif360.decorating_metaclass import dont_decorate

import faircocco_plugins
from faircocco_plugins.plugins import notion_named

from ._conversion import outcome, protected, task_of
from ._quiet_import import without_unneeded_notices

with without_unneeded_notices():
    from aif360.metrics import Metric

_PREDICTIONS = ("scores", "labels")


class FairCOCCOMetric(Metric):
    """The FairCOCCO score of a classified (or regressed) dataset against the original.

    AIF360's group metrics compare privileged and unprivileged groups by equality on the
    protected attributes, so a continuous attribute makes one group per value. This metric
    measures the dependence of the predictions on **all** protected attributes jointly, at
    their raw values, as a number in [0, 1] (0: none).

    Parameters
    ----------
    dataset : BinaryLabelDataset or RegressionDataset
        The true labels.
    classified_dataset : BinaryLabelDataset or RegressionDataset
        The same rows with predicted ``scores`` and ``labels`` (the output of ``predict``); the
        two may differ in nothing else.
    predictions : {"scores", "labels"}
        What is measured: the scores (the probability of the favourable label, for a
        classifier that sets them; AIF360 sets them to the favourable-label indicator
        otherwise) or the predicted labels.

    Unlike AIF360's own metrics, its methods are not memoized: AIF360's memo tables keep every
    metric object, and its datasets, for the life of the process, and would hand the same
    report ``DataFrame`` back to each call, changes and all.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from aif360.datasets import BinaryLabelDataset
    >>> from faircocco_aif360 import FairCOCCOMetric
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"age": rng.uniform(18, 80, 500), "x": rng.normal(size=500)})
    >>> df["y"] = (df["x"] > 0).astype(float)
    >>> truth = BinaryLabelDataset(df=df, label_names=["y"], protected_attribute_names=["age"])
    >>> biased = truth.copy(deepcopy=True)
    >>> biased.scores = (df["age"].to_numpy() > 40).astype(float).reshape(-1, 1)
    >>> round(FairCOCCOMetric(truth, biased).faircocco_score(notion="dp", adjusted=True), 3)
    0.406
    >>> round(FairCOCCOMetric(truth, truth).faircocco_score(notion="dp", adjusted=True), 3)
    0.002
    """

    def __init__(
        self, dataset: Any, classified_dataset: Any, *, predictions: str = "scores"
    ) -> None:
        self.task = task_of(dataset, "dataset")
        classified_task = task_of(classified_dataset, "classified_dataset")
        if classified_task != self.task:
            raise TypeError(
                f"dataset is a {self.task} dataset but classified_dataset is a "
                f"{classified_task} one."
            )
        if predictions not in _PREDICTIONS:
            raise ValueError(
                f"predictions={predictions!r} is not valid; expected one of {list(_PREDICTIONS)}."
            )
        _check_row_counts(dataset, classified_dataset, predictions)
        with dataset.temporarily_ignore("labels", "scores"):
            if dataset != classified_dataset:
                raise ValueError(
                    "dataset and classified_dataset must hold the same rows, features and "
                    "protected attributes; they may differ only in labels and scores."
                )
        super().__init__(dataset)
        self.classified_dataset = classified_dataset
        self.predictions = predictions

    def _inputs(self, notion: str) -> tuple[np.ndarray, pd.DataFrame, np.ndarray | None]:
        values = getattr(self.classified_dataset, self.predictions).ravel()
        if self.predictions == "labels" and self.task == "classification":
            values = values == self.classified_dataset.favorable_label
        y_true = outcome(self.dataset, self.task) if notion_named(notion).needs_outcome else None
        return np.asarray(values, dtype=np.float64), protected(self.dataset), y_true

    @dont_decorate
    def faircocco_score(self, notion: str = "eo", **options: Any) -> float:
        """The FairCOCCO score of the predictions against all protected attributes jointly.

        Parameters
        ----------
        notion : {"dp", "eo", "cal", "eopp"}
            Demographic parity, equalised odds (given the true outcome), calibration or equal
            opportunity (on the rows with the favourable label).
        **options
            Options of :func:`faircocco_plugins.faircocco_score`, such as ``adjusted=True``.

        Returns
        -------
        float
            In [0, 1].
        """
        y_pred, sensitive, y_true = self._inputs(notion)
        return float(
            faircocco_plugins.faircocco_score(
                y_pred, sensitive, y_true=y_true, notion=notion, **options
            )
        )

    @dont_decorate
    def faircocco_report(self, notion: str = "eo", **options: Any) -> pd.DataFrame:
        """The joint score and each protected attribute's own, raw and chance-adjusted
        (:func:`faircocco_plugins.faircocco_report`)."""
        y_pred, sensitive, y_true = self._inputs(notion)
        return faircocco_plugins.faircocco_report(
            y_pred, sensitive, y_true=y_true, notion=notion, **options
        )

    @dont_decorate
    def independence_test(
        self, notion: str = "eo", **options: Any
    ) -> faircocco_plugins.IndependenceTestResult:
        """A permutation test of (conditional) independence of the predictions and the
        protected attributes (:func:`faircocco_plugins.independence_test`)."""
        y_pred, sensitive, y_true = self._inputs(notion)
        return faircocco_plugins.independence_test(
            y_pred, sensitive, y_true=y_true, notion=notion, **options
        )


def _check_row_counts(dataset: Any, classified_dataset: Any, predictions: str) -> None:
    """Refuse a classified dataset, or predictions, of another number of rows than ``dataset``
    (AIF360's comparison of the two would fail on numpy's broadcasting, naming neither)."""
    rows = dataset.features.shape[0]
    counts = {
        "classified_dataset": classified_dataset.features.shape[0],
        f"classified_dataset.{predictions}": getattr(classified_dataset, predictions).shape[0],
    }
    for argument, count in counts.items():
        if count != rows:
            raise ValueError(
                f"{argument} has {count} rows and dataset {rows}; the metric pairs each "
                "prediction with the same row of dataset: predict on dataset itself."
            )
