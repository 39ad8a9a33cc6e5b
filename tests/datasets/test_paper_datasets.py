"""Tests of the paper's nine datasets: types, shapes, splits and each loader's cleaning.

They read the raw files from ``$FAIRCOCCO_DATA`` and skip a dataset whose files are not there.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from dataset_helpers import DATA, PAPER, covers, require

from faircocco_plugins.datasets import (
    _registry,
    load_dataset,
)


@pytest.mark.parametrize("name", list(PAPER))
def test_paper_dataset_types_and_shape(name: str) -> None:
    require(name)
    rows, columns, sensitive_dtypes, _ = PAPER[name]
    data = load_dataset(name)
    source = _registry._REGISTRY.get(name)
    assert data.name == name and data.task == source.task
    assert data.X.shape == (rows, columns) == (source.rows, columns)
    assert (data.X.dtypes == np.float32).all()
    assert data.X.columns.is_unique
    assert not set(sensitive_dtypes) & set(data.X.columns)
    assert {str(t) for t in data.sensitive.dtypes} <= {"category", "bool", "float64"}
    assert {c: str(t) for c, t in data.sensitive.dtypes.items()} == sensitive_dtypes
    assert len(data.y) == len(data.sensitive) == rows
    if data.task == "classification":
        assert data.y.dtype == np.int64
        assert set(data.y.unique()) == {0, 1}
    else:
        assert data.y.dtype == np.float64
        assert data.y.nunique() > 10
    assert np.isfinite(data.X.to_numpy()).all()
    assert not data.y.isna().any() and not data.sensitive.isna().any().any()
    for column, kind in source.attributes.items():
        levels = data.sensitive[column].nunique()
        assert levels == 2 if kind == "binary" else levels > 2


@pytest.mark.parametrize("name", list(PAPER))
def test_paper_dataset_split(name: str) -> None:
    require(name)
    rows, _, _, official_test = PAPER[name]
    first, again, other = (load_dataset(name, random_state=s) for s in (1, 1, 2))
    split = first.split
    assert covers(split, rows)
    if official_test is None:
        assert split.source.startswith("random 60/20/20")
        for part, fraction in (("train", 0.6), ("validation", 0.2), ("test", 0.2)):
            assert abs(len(getattr(split, part)) / rows - fraction) < 0.005
    else:
        assert split.source.startswith("official test file")
        assert len(split.test) == official_test
        assert abs(len(split.train) / (rows - official_test) - 0.75) < 0.005
        # The official test rows are fixed; only train and validation change with the seed.
        assert np.array_equal(split.test, other.split.test)
    for part in ("train", "validation", "test"):
        assert np.array_equal(getattr(split, part), getattr(again.split, part))
    assert not np.array_equal(split.train, other.split.train)
    if first.task == "classification":
        rate = first.y.mean()
        for part in ("train", "validation"):
            assert abs(first.y.iloc[getattr(split, part)].mean() - rate) < 0.01


def test_kdd_census_labels_of_both_files() -> None:
    require("kdd_census")
    data = load_dataset("kdd_census")
    # census-income.names: 12382 of the 199523 training and 6186 of the 99762 test rows are 50000+.
    assert data.y.sum() == 12382 + 6186
    assert data.y.iloc[data.split.test].sum() == 6186
    assert set(data.sensitive["race"].cat.categories) == {"White", "Non-white"}
    # "NA" is a level of hispanic_origin in the file, not a missing value.
    assert "hispanic_origin=NA" in data.X.columns


def test_law_school_rows_are_those_of_the_cleaned_table() -> None:
    require("law_school")
    clean_path = Path(str(DATA)) / "law_school" / "law_school_clean.csv"
    if not clean_path.is_file():
        pytest.skip("law_school_clean.csv not under FAIRCOCCO_DATA")
    clean = pd.read_csv(clean_path)
    data = load_dataset("law_school")
    assert np.allclose(data.X.to_numpy(), clean[data.X.columns].to_numpy(), atol=1e-5)
    assert np.array_equal(data.sensitive["male"].to_numpy(), clean["male"].to_numpy() == 1.0)
    white = data.sensitive["race"] == "white"
    assert np.array_equal(white.to_numpy(), (clean["race"] == "White").to_numpy())
    assert np.array_equal(data.y.to_numpy(), clean["pass_bar"].to_numpy())


def test_drugs_drops_semeron_claimers_and_binarises_ethnicity() -> None:
    require("drugs")
    raw = pd.read_csv(Path(str(DATA)) / "drugs" / "drug_consumption.data", header=None)
    kept = raw[raw[30] == "CL0"]
    data = load_dataset("drugs")
    assert len(data.y) == len(kept) < len(raw)
    assert np.array_equal(data.y.to_numpy(), (kept[23] != "CL0").to_numpy().astype(int))
    assert (data.sensitive["ethnicity"] == "White").sum() == (kept[5].round(5) == -0.31685).sum()


def test_returned_frames_do_not_change_the_cache() -> None:
    data = load_dataset("synthetic")
    data.X.iloc[0, 0] = 1e6
    data.X["extra"] = 1.0
    data.sensitive.iloc[0, 1] = -1.0
    again = load_dataset("synthetic")
    assert again.X.iloc[0, 0] != 1e6 and "extra" not in again.X.columns
    assert again.sensitive.iloc[0, 1] != -1.0


def test_adult_mixed_protects_race_and_age_beside_sex() -> None:
    require("adult_mixed")
    mixed, adult = load_dataset("adult_mixed"), load_dataset("adult")
    assert {c: str(t) for c, t in mixed.sensitive.dtypes.items()} == {
        "sex": "category",
        "race": "category",
        "age": "float64",
    }
    # the same rows, outcome and split as adult; age stays continuous
    assert mixed.y.equals(adult.y) and mixed.sensitive["sex"].equals(adult.sensitive["sex"])
    assert np.array_equal(mixed.split.test, adult.split.test)
    np.testing.assert_array_equal(mixed.sensitive["age"], adult.X["age"])
    assert mixed.sensitive["race"].nunique() == 5
    # race and age leave the features, which are adult's others
    race_columns = [c for c in adult.X.columns if c.startswith("race=")]
    assert len(race_columns) == 5
    assert list(mixed.X.columns) == [c for c in adult.X.columns if c not in ("age", *race_columns)]
