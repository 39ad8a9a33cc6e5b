"""The paper's reported numbers, transcribed in ``docs/results/paper/paper_numbers.csv``.

The CSV is the reference the harness's reproductions are compared with, so these tests keep
it well formed and check a handful of cells against the paper's printed values.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from faircocco_plugins.bench.paper._common import PAPER_COLUMNS

PAPER_DIR = Path(__file__).resolve().parents[2] / "docs" / "results" / "paper"
# the columns the harness reads, then the transcriber's note
COLUMNS = [*PAPER_COLUMNS, "note"]
# Table 13 sweeps the penalty strength, so the strength belongs to a number's identity.
KEY = ["table", "dataset", "notion", "method", "metric", "attribute", "strength"]
# The paper prints two decimals everywhere; a value with another form was retyped.
PRINTED_NUMBER = r"\d+\.\d{2}"
# Rows per table: methods x printed numbers (Table 13: 2 notions x 5 strengths x 4 columns).
ROWS_PER_TABLE = {
    "Table 3": 7 * 8,
    "Table 4": 4 * (8 + 8 + 8 + 6 + 6),
    "Table 5": 4 * 6,
    "Table 6": 4 * 3,
    "Table 9": 5 * 8,
    "Table 10": 4 * (6 + 4),
    "Table 11": 5 * 8,
    "Table 12": 4 * (6 + 4),
    "Table 13": 2 * 5 * 4,
}


@pytest.fixture(scope="module")
def numbers() -> pd.DataFrame:
    # read as text: "0.90" stays as printed, and an empty std stays empty
    return pd.read_csv(PAPER_DIR / "paper_numbers.csv", dtype=str, keep_default_na=False)


def test_columns_are_the_documented_ones(numbers: pd.DataFrame) -> None:
    assert list(numbers.columns) == COLUMNS


def test_every_table_is_complete(numbers: pd.DataFrame) -> None:
    assert numbers["table"].value_counts().to_dict() == ROWS_PER_TABLE


def test_no_number_is_transcribed_twice(numbers: pd.DataFrame) -> None:
    duplicated = numbers[numbers.duplicated(KEY, keep=False)]
    assert duplicated.empty, duplicated[KEY].to_string()


def test_values_are_printed_numbers_with_nonnegative_std(numbers: pd.DataFrame) -> None:
    assert numbers["mean"].str.fullmatch(PRINTED_NUMBER).all()
    stds = numbers.loc[numbers["std"] != "", "std"]
    assert stds.str.fullmatch(PRINTED_NUMBER).all()
    assert (stds.astype(float) >= 0).all()


def test_categorical_columns_take_documented_values(numbers: pd.DataFrame) -> None:
    assert set(numbers["notion"]) == {"dp", "eo", "cal"}
    assert set(numbers["unit"]) == {"fraction", "percent", "ratio", "squared_outcome"}
    assert set(numbers["metric"]) == {"accuracy", "mse", "deo", "di", "faircocco", "p_value"}
    assert set(numbers["method"]) == {
        "nn",
        "faircocco",
        "facl",
        "farmi",
        "zafar",
        "hardt",
        "donini",
    }
    strengths = numbers.loc[numbers["table"] == "Table 13", "strength"]
    assert set(strengths) == {"0.0", "0.2", "0.5", "1.0", "2.0"}
    assert (numbers.loc[numbers["table"] != "Table 13", "strength"] == "").all()


def test_values_lie_in_their_unit_range(numbers: pd.DataFrame) -> None:
    mean = numbers["mean"].astype(float)
    assert mean[numbers["unit"] == "fraction"].between(0, 1).all()
    assert mean[numbers["unit"] == "percent"].between(0, 100).all()


def test_readme_maps_every_table_and_method(numbers: pd.DataFrame) -> None:
    readme = (PAPER_DIR / "README.md").read_text()
    for name in [*numbers["table"].unique(), *numbers["method"].unique()]:
        assert f"`{name}`" in readme or f"| {name} |" in readme, name


@pytest.mark.parametrize(
    ("table", "dataset", "notion", "method", "attribute", "strength", "metric", "mean", "std"),
    [
        ("Table 3", "compas", "eo", "faircocco", "", "", "deo", "0.00", "0.01"),
        ("Table 3", "german", "eo", "nn", "", "", "deo", "0.11", "0.35"),
        ("Table 3", "adult", "eo", "nn", "", "", "accuracy", "0.84", ""),
        ("Table 4", "kdd_census", "eo", "farmi", "age", "", "deo", "0.18", "0.05"),
        ("Table 4", "communities", "eo", "faircocco", "", "", "mse", "0.63", "0.01"),
        ("Table 9", "german", "dp", "faircocco", "", "", "di", "1.02", "0.19"),
        ("Table 10", "communities", "dp", "nn", "racePctWhite", "", "faircocco", "0.24", "0.03"),
        ("Table 11", "drugs", "cal", "facl", "", "", "faircocco", "0.08", "0.03"),
        ("Table 12", "students", "cal", "faircocco", "", "", "mse", "0.37", "0.05"),
        ("Table 13", "unspecified", "eo", "faircocco", "", "2.0", "p_value", "0.90", ""),
        ("Table 13", "unspecified", "dp", "faircocco", "", "0.5", "accuracy", "69.33", ""),
    ],
)
def test_spot_values_match_the_paper(
    numbers: pd.DataFrame,
    table: str,
    dataset: str,
    notion: str,
    method: str,
    attribute: str,
    strength: str,
    metric: str,
    mean: str,
    std: str,
) -> None:
    key = (table, dataset, notion, method, metric, attribute, strength)
    row = numbers[(numbers[KEY] == pd.Series(key, index=KEY)).all(axis=1)]
    assert row[["mean", "std"]].values.tolist() == [[mean, std]]
