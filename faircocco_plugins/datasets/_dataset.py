"""The typed object every dataset loader returns, and its train/validation/test split."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

Task = Literal["classification", "regression"]
PartName = Literal["train", "validation", "test"]
PARTS: tuple[PartName, ...] = ("train", "validation", "test")


@dataclass(frozen=True)
class Split:
    """Row positions of the train, validation and test parts; disjoint and covering all rows.

    ``source`` says how the split was made, for example ``"random 60/20/20 (seed 3)"`` or
    ``"official test file; random 75/25 train/validation of the training file (seed 3)"``.
    """

    train: np.ndarray
    validation: np.ndarray
    test: np.ndarray
    source: str


@dataclass(frozen=True)
class Part:
    """One part of a dataset: features, outcome and sensitive attributes of the same rows."""

    X: pd.DataFrame
    y: pd.Series
    sensitive: pd.DataFrame


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset with its split for one seed.

    Attributes
    ----------
    name : str
        Registry name, such as ``"adult"``.
    task : {"classification", "regression"}
        Binary classification (``y`` holds 0/1 integers) or regression (``y`` holds floats).
    X : pandas.DataFrame
        Model inputs, all numeric (float) columns: nominal features one-hot encoded by the
        loader. Scaling is left to the model, fitted on the training part only.
    y : pandas.Series
        The outcome.
    sensitive : pandas.DataFrame
        Sensitive attributes with their raw types kept: bool or category for nominal ones,
        float for continuous ones.
    split : Split
        Train, validation and test rows for the seed given to the loader.
    description : str
        One line: source, outcome, attributes and preprocessing summary.
    """

    name: str
    task: Task
    X: pd.DataFrame
    y: pd.Series
    sensitive: pd.DataFrame
    split: Split
    description: str = ""

    def part(self, name: PartName) -> Part:
        """The rows of one part (``"train"``, ``"validation"`` or ``"test"``)."""
        if name not in PARTS:
            raise ValueError(f"part={name!r} is not valid; expected one of {list(PARTS)}.")
        rows = getattr(self.split, name)
        return Part(
            X=self.X.iloc[rows],
            y=self.y.iloc[rows],
            sensitive=self.sensitive.iloc[rows],
        )
