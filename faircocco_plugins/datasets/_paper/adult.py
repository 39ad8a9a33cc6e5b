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


def load(paths: Mapping[str, Path]) -> LoadedTable:
    """Both files without rows with a missing value; the test file is the test part."""
    train = _read(paths["adult.data"], skiprows=0)
    # adult.test starts with a "|1x3 Cross validator" line and its labels end in a dot.
    test = _read(paths["adult.test"], skiprows=1)
    test["income"] = test["income"].str.rstrip(".")
    frame = pd.concat([train, test], ignore_index=True)
    is_test = np.r_[np.zeros(len(train), bool), np.ones(len(test), bool)]
    complete = frame.notna().all(axis=1).to_numpy()
    frame = frame[complete].reset_index(drop=True)
    y = recode(frame["income"], {"<=50K": 0, ">50K": 1}, "adult income").astype(np.int64)
    sex = category(frame["sex"], {"Female": "Female", "Male": "Male"}, "adult sex")
    X = frame.drop(columns=[*DROPPED, "sex", "income"])
    return LoadedTable(X, y.rename("income>50K"), pd.DataFrame({"sex": sex}), is_test[complete])


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
