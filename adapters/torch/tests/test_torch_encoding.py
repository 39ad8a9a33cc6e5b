"""SensitiveEncoder: one float layout for every batch, and clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("faircocco_torch")

from faircocco_torch import SensitiveEncoder  # noqa: E402


@pytest.fixture
def table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "sex": ["f", "m", "m", "f", "m"],
            "race": pd.Categorical(["a", "b", "c", "a", "b"]),
            "age": [20.0, 30.0, 40.0, 50.0, 60.0],
            "smoker": [True, False, True, True, False],
            "group": [0, 1, 2, 1, 0],
        }
    )


def test_layout_kinds_and_names(table: pd.DataFrame) -> None:
    encoder = SensitiveEncoder(nominal=["group"]).fit(table)
    schema = encoder.schema_
    assert [(a.name, a.kind, a.columns) for a in schema.attributes] == [
        ("sex", "binary", (0,)),
        ("race", "categorical", (1, 2, 3)),
        ("age", "continuous", (4,)),
        ("smoker", "binary", (5,)),
        ("group", "categorical", (6, 7, 8)),
    ]
    assert schema.width == 9
    assert encoder.feature_names_out_ == [
        "sex=m", "race=a", "race=b", "race=c", "age", "smoker=True",
        "group=0", "group=1", "group=2",
    ]  # fmt: skip


def test_values(table: pd.DataFrame) -> None:
    encoded = SensitiveEncoder(nominal=["group"]).fit_transform(table)
    assert encoded.dtype == torch.float32
    assert encoded[:, 0].tolist() == [0.0, 1.0, 1.0, 0.0, 1.0]
    assert encoded[:, 1:4].sum(dim=1).tolist() == [1.0] * 5
    assert encoded[:, 4].mean().item() == pytest.approx(0.0, abs=1e-6)
    assert encoded[:, 4].std(correction=0).item() == pytest.approx(1.0, rel=1e-5)


def test_batches_get_the_training_layout(table: pd.DataFrame) -> None:
    encoder = SensitiveEncoder().fit(table)
    one_row = encoder.transform(table.iloc[[2]])
    assert torch.equal(one_row, encoder.transform(table)[[2]])
    reordered = encoder.transform(table[list(reversed(table.columns))])
    assert torch.equal(reordered, encoder.transform(table))


def test_unknown_category_is_a_clear_error(table: pd.DataFrame) -> None:
    encoder = SensitiveEncoder().fit(table)
    unseen = table.copy()
    unseen["sex"] = ["f", "x", "m", "f", "m"]
    with pytest.raises(ValueError, match=r"column 'sex' has levels \['x'\] that were not seen"):
        encoder.transform(unseen)


def test_missing_and_bad_values_are_clear_errors(table: pd.DataFrame) -> None:
    missing = table.copy()
    missing.loc[1, "sex"] = None
    with pytest.raises(ValueError, match="column 'sex' contains missing values"):
        SensitiveEncoder().fit(missing)
    nan = table.copy()
    nan.loc[1, "age"] = np.nan
    with pytest.raises(ValueError, match="column 'age' contains NaN"):
        SensitiveEncoder().fit(nan)
    dates = pd.DataFrame({"when": pd.date_range("2020-01-01", periods=3)})
    with pytest.raises(TypeError, match="column 'when' has dtype"):
        SensitiveEncoder().fit(dates)
    with pytest.raises(ValueError, match="fitted on 5"):
        SensitiveEncoder().fit(table).transform(table[["sex"]])
    with pytest.raises(ValueError, match="not fitted"):
        SensitiveEncoder().transform(table)
    with pytest.raises(ValueError, match="names column 'nope'"):
        SensitiveEncoder(nominal=["nope"]).fit(table)


def test_arrays_series_and_tensors() -> None:
    assert SensitiveEncoder().fit_transform(np.array([1.0, 2.0, 3.0])).shape == (3, 1)
    assert SensitiveEncoder().fit_transform(pd.Series(["a", "b", "a"])).tolist() == [
        [0.0],
        [1.0],
        [0.0],
    ]
    mixed = np.array([["f", 20], ["m", 30]], dtype=object)
    encoder = SensitiveEncoder(nominal=[0]).fit(mixed)
    assert encoder.schema_.kinds == ("binary", "binary")
    assert SensitiveEncoder().fit_transform(torch.tensor([[0.0], [1.0]])).shape == (2, 1)


def test_single_level_is_legal(table: pd.DataFrame) -> None:
    encoded = SensitiveEncoder().fit_transform(pd.DataFrame({"sex": ["f", "f", "f"]}))
    assert encoded.tolist() == [[0.0], [0.0], [0.0]]


def test_columns_of_other_names_are_refused_not_paired_by_position() -> None:
    table = pd.DataFrame({"age": [20.0, 30, 40, 50], "income": [1.0, 3, 2, 5]})
    encoder = SensitiveEncoder().fit(table)
    renamed = table.rename(columns={"age": "years"})
    with pytest.raises(ValueError, match=r"has columns \['years', 'income'\] but the encoder"):
        encoder.transform(renamed)
    # an array has no names: its columns are taken in the fitted order
    assert torch.equal(encoder.transform(table.to_numpy()), encoder.transform(table))
