"""Adult (UCI Census Income, 1994): income above 50K, sensitive attribute sex."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .._source import DatasetSource, LoadedTable
from ._common import category, files, recode

COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)
#: ``fnlwgt`` is the census sampling weight, not a property of the person.
DROPPED = ("fnlwgt",)


def _read(path: Path, *, skiprows: int) -> pd.DataFrame:
    return pd.read_csv(
        path,
        header=None,
        names=list(COLUMNS),
        skipinitialspace=True,
        na_values=["?"],
        keep_default_na=False,
        skiprows=skiprows,
    )


#: The levels of ``race`` in the files.
RACES = ("White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other")


def _complete_rows(paths: Mapping[str, Path]) -> tuple[pd.DataFrame, np.ndarray]:
    """Both files without rows with a missing value, and which rows come from the test file."""
    train = _read(paths["adult.data"], skiprows=0)
    # adult.test starts with a "|1x3 Cross validator" line and its labels end in a dot.
    test = _read(paths["adult.test"], skiprows=1)
    test["income"] = test["income"].str.rstrip(".")
    frame = pd.concat([train, test], ignore_index=True)
    is_test = np.r_[np.zeros(len(train), bool), np.ones(len(test), bool)]
    complete = frame.notna().all(axis=1).to_numpy()
    return frame[complete].reset_index(drop=True), is_test[complete]


def _table(paths: Mapping[str, Path], protected: tuple[str, ...]) -> LoadedTable:
    """The outcome, the ``protected`` columns as sensitive attributes and the other features;
    the test file is the test part."""
    frame, is_test = _complete_rows(paths)
    y = recode(frame["income"], {"<=50K": 0, ">50K": 1}, "adult income").astype(np.int64)
    attributes = {
        "sex": lambda: category(frame["sex"], {"Female": "Female", "Male": "Male"}, "adult sex"),
        "race": lambda: category(frame["race"], dict(zip(RACES, RACES, strict=True)), "adult race"),
        "age": lambda: frame["age"].astype(np.float64),
    }
    sensitive = pd.DataFrame({name: attributes[name]() for name in protected})
    X = frame.drop(columns=[*DROPPED, *protected, "income"])
    return LoadedTable(X, y.rename("income>50K"), sensitive, is_test)


def load(paths: Mapping[str, Path]) -> LoadedTable:
    """Both files without rows with a missing value; the test file is the test part."""
    return _table(paths, ("sex",))


def load_mixed(paths: Mapping[str, Path]) -> LoadedTable:
    """As :func:`load`, with race and age (continuous) protected beside sex."""
    return _table(paths, ("sex", "race", "age"))


SOURCE = DatasetSource(
    name="adult",
    task="classification",
    attributes={"sex": "binary"},
    load=load,
    description=(
        "UCI Adult: income >50K from 12 census features (fnlwgt dropped), sensitive sex; rows "
        "with a missing value dropped; official test file adult.test"
    ),
    files=files("adult", "adult.data", "adult.test"),
    rows=45222,
    paper_rows=45222,
    origin="paper",
    label="income above $50K a year",
    test_label="official test file adult.test",
)

#: Adult with three attributes of mixed kinds, for the mixed-attribute study; the same files.
MIXED_SOURCE = DatasetSource(
    name="adult_mixed",
    task="classification",
    attributes={"sex": "binary", "race": "categorical", "age": "continuous"},
    load=load_mixed,
    description=(
        "UCI Adult as adult, with race (5 levels) and age (continuous) protected beside sex and "
        "no longer among the features"
    ),
    files=files("adult", "adult.data", "adult.test"),
    rows=45222,
    origin="paper",
    label="income above $50K a year",
    test_label="official test file adult.test",
)
