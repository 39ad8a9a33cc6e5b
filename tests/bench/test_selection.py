"""The selection rule: validation columns only, tolerance first, else the fairest setting."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins.bench import select_runs


def _runs(rows: list[dict[str, Any]]) -> pd.DataFrame:
    base = {"study": "s", "dataset": "german", "method": "faircocco", "notion": "eo", "seed": 0}
    return pd.DataFrame([{**base, **row} for row in rows])


def _grid(seed: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    rows = []
    for i, lam in enumerate((0.0, 0.5, 1.0, 2.0, 5.0)):
        rows.append(
            {
                "run_id": f"r{seed}-{i}",
                "seed": seed,
                "params": {"lam": lam},
                "status": "ok",
                "validation.accuracy": rng.uniform(0.6, 0.9),
                "validation.faircocco_eo": rng.uniform(0.0, 0.1),
                "validation.faircocco_eo_adjusted": rng.uniform(0.0, 0.05),
                "test.accuracy": rng.uniform(0.6, 0.9),
                "test.faircocco_eo": rng.uniform(0.0, 0.1),
            }
        )
    return rows


def test_best_accuracy_within_tolerance() -> None:
    runs = _runs(
        [
            {
                "run_id": "a",
                "status": "ok",
                "validation.accuracy": 0.90,
                "validation.faircocco_eo": 0.20,
            },
            {
                "run_id": "b",
                "status": "ok",
                "validation.accuracy": 0.80,
                "validation.faircocco_eo": 0.04,
            },
            {
                "run_id": "c",
                "status": "ok",
                "validation.accuracy": 0.85,
                "validation.faircocco_eo": 0.05,
            },
            {
                "run_id": "d",
                "status": "failed",
                "validation.accuracy": np.nan,
                "validation.faircocco_eo": np.nan,
            },
        ]
    )
    chosen = select_runs(runs, tolerance=0.05)
    assert chosen["run_id"].tolist() == ["c"]
    assert chosen["selected_by"].tolist() == ["tolerance"]
    assert chosen["n_settings"].tolist() == [3]


def test_fairest_when_none_is_within_tolerance() -> None:
    runs = _runs(
        [
            {
                "run_id": "a",
                "status": "ok",
                "validation.accuracy": 0.9,
                "validation.faircocco_eo": 0.3,
            },
            {
                "run_id": "b",
                "status": "ok",
                "validation.accuracy": 0.7,
                "validation.faircocco_eo": 0.1,
            },
        ]
    )
    chosen = select_runs(runs, tolerance=0.05)
    assert chosen["run_id"].tolist() == ["b"]
    assert chosen["selected_by"].tolist() == ["fairest"]


def test_regression_selects_the_lowest_mse() -> None:
    runs = _runs(
        [
            {
                "run_id": "a",
                "status": "ok",
                "validation.mse": 0.5,
                "validation.accuracy": np.nan,
                "validation.faircocco_eo": 0.01,
            },
            {
                "run_id": "b",
                "status": "ok",
                "validation.mse": 0.3,
                "validation.accuracy": np.nan,
                "validation.faircocco_eo": 0.02,
            },
        ]
    )
    assert select_runs(runs, tolerance=0.05)["run_id"].tolist() == ["b"]


def test_the_test_part_never_influences_the_choice() -> None:
    rng = np.random.default_rng(0)
    runs = _runs([row for seed in range(6) for row in _grid(seed, rng)])
    chosen = select_runs(runs, tolerance=0.05)["run_id"].tolist()
    test_columns = [c for c in runs.columns if c.startswith("test.")]
    for trial in range(5):
        shuffled = runs.copy()
        for column in test_columns:
            shuffled[column] = rng.permutation(shuffled[column].to_numpy())
        # also extreme values: a perfect test score must not attract the choice
        shuffled.loc[trial, "test.accuracy"] = 1.0
        shuffled.loc[trial, "test.faircocco_eo"] = 0.0
        assert select_runs(shuffled, tolerance=0.05)["run_id"].tolist() == chosen
    # and without the test columns at all
    assert select_runs(runs.drop(columns=test_columns), tolerance=0.05)["run_id"].tolist() == (
        chosen
    )
    # whereas changing a validation column does change it
    changed = runs.copy()
    changed["validation.accuracy"] = -changed["validation.accuracy"]
    assert select_runs(changed, tolerance=0.05)["run_id"].tolist() != chosen


def test_one_row_per_group_even_without_candidates() -> None:
    rng = np.random.default_rng(1)
    runs = _runs(_grid(0, rng))
    extra = _runs(
        [
            {
                "run_id": "n1",
                "method": "hsic",
                "notion": "cal",
                "status": "not_applicable",
                "params": {"lam": 1.0},
            },
            {
                "run_id": "n2",
                "method": "hsic",
                "notion": "cal",
                "status": "not_applicable",
                "params": {"lam": 2.0},
            },
        ]
    )
    chosen = select_runs(pd.concat([runs, extra], ignore_index=True))
    assert len(chosen) == 2
    row = chosen[chosen["method"] == "hsic"].iloc[0]
    assert row["selected_by"] == "none"
    assert row["status"] == "not_applicable"


def test_adjusted_scores_can_be_used() -> None:
    runs = _runs(
        [
            {
                "run_id": "a",
                "status": "ok",
                "validation.accuracy": 0.9,
                "validation.faircocco_eo": 0.12,
                "validation.faircocco_eo_adjusted": 0.01,
            },
            {
                "run_id": "b",
                "status": "ok",
                "validation.accuracy": 0.8,
                "validation.faircocco_eo": 0.04,
                "validation.faircocco_eo_adjusted": 0.02,
            },
        ]
    )
    assert select_runs(runs, tolerance=0.05)["run_id"].tolist() == ["b"]
    assert select_runs(runs, tolerance=0.05, adjusted=True)["run_id"].tolist() == ["a"]


def test_bad_arguments() -> None:
    runs = _runs([{"run_id": "a", "status": "ok"}])
    with pytest.raises(ValueError, match=r"tolerance=1.5"):
        select_runs(runs, tolerance=1.5)
    with pytest.raises(TypeError, match="runs must be a pandas DataFrame"):
        select_runs([])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"missing the columns \['seed'\]"):
        select_runs(runs.drop(columns="seed"))
    with pytest.raises(ValueError, match=r"no column 'validation\.faircocco_eo'"):
        select_runs(runs)
