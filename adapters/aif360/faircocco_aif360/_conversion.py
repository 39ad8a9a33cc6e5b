"""What the adapter reads from an AIF360 dataset: its task, features, outcome and attributes.

AIF360 keeps the protected attributes among a dataset's features and copies their raw values
to ``protected_attributes``; those raw values are what FairCOCCO measures against, so a
continuous attribute (age, a share of a population) stays continuous.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def task_of(dataset: Any, argument: str = "dataset") -> str:
    """``"classification"`` for a ``BinaryLabelDataset``, ``"regression"`` for any other
    ``StructuredDataset`` with one label column (a ``RegressionDataset``, or one built from a
    DataFrame with a continuous label)."""
    from aif360.datasets import BinaryLabelDataset, StructuredDataset

    if not isinstance(dataset, StructuredDataset):
        raise TypeError(
            f"{argument} must be an AIF360 BinaryLabelDataset or RegressionDataset; got "
            f"{type(dataset).__name__}."
        )
    if dataset.labels.ndim != 2 or dataset.labels.shape[1] != 1:
        raise ValueError(
            f"{argument} has {dataset.labels.shape[1]} label columns {dataset.label_names}; "
            "FairCOCCO needs one outcome."
        )
    if not dataset.protected_attribute_names:
        raise ValueError(f"{argument} declares no protected attributes.")
    return "classification" if isinstance(dataset, BinaryLabelDataset) else "regression"


def outcome(dataset: Any, task: str) -> np.ndarray:
    """The outcome: 1 for the favourable label and 0 otherwise, or the regression target."""
    labels = dataset.labels.ravel()
    if task == "classification":
        return (labels == dataset.favorable_label).astype(np.int64)
    return labels.astype(np.float64)


def label_roles(dataset: Any) -> dict[float, str]:
    """The role of each of a binary dataset's two labels: ``"favourable"`` or
    ``"unfavourable"``."""
    return {
        float(dataset.favorable_label): "favourable",
        float(dataset.unfavorable_label): "unfavourable",
    }


def check_label_roles(dataset: Any, fitted: dict[float, str]) -> None:
    """Refuse a dataset in which a label the model was fitted on plays the other role.

    The model predicts the favourable outcome and writes it in the dataset's own labels, so
    labels recoded to new values (1/0 to 2/7) are read by their roles. Where a label changed
    roles (favourable at fit, unfavourable now), whether a favourable prediction is the
    dataset's favourable label or the label the model learned cannot be told.
    """
    for label, role in label_roles(dataset).items():
        was = fitted.get(label)
        if was is not None and was != role:
            raise ValueError(
                f"the label {label!r} is {role} in dataset but was {was} in the dataset the "
                "model was fitted on, so its predictions could be read either way; give "
                "dataset the fitted favorable_label and unfavorable_label, or recode its "
                "labels to values of their own."
            )


def protected(dataset: Any) -> pd.DataFrame:
    """The protected attributes' raw values, one column each."""
    return pd.DataFrame(dataset.protected_attributes, columns=dataset.protected_attribute_names)


def feature_columns(dataset: Any, *, protected_as_features: bool) -> list[str]:
    """The model's input columns: all features, without the protected attributes unless
    ``protected_as_features``."""
    names = list(dataset.feature_names)
    if not protected_as_features:
        names = [n for n in names if n not in set(dataset.protected_attribute_names)]
    if not names:
        raise ValueError(
            "the dataset has no features besides its protected attributes "
            f"{dataset.protected_attribute_names}; set protected_as_features=True to use them."
        )
    return names


def features(dataset: Any, columns: list[str], argument: str = "dataset") -> np.ndarray:
    """The features named ``columns``, in that order."""
    missing = [c for c in columns if c not in dataset.feature_names]
    if missing:
        raise ValueError(f"{argument} lacks the feature columns {missing} the model was fitted on.")
    index = [dataset.feature_names.index(c) for c in columns]
    return np.asarray(dataset.features[:, index], dtype=np.float64)
