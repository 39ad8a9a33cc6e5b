"""The λ path benchmark's tables: hold rates over the cases met on validation, paired gaps."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("faircocco_torch")
pytest.importorskip("fairlearn")

from benchmarks.path import hold_table, paired_table


def _results() -> pd.DataFrame:
    """Three cases; the path meets the target on validation in all three, EG in two."""
    rows = []
    for seed, (path_test, eg_met, path_acc, eg_acc) in enumerate(
        [(True, True, 0.80, 0.82), (False, True, 0.78, 0.81), (True, False, 0.79, 0.90)]
    ):
        case = {"dataset": "adult", "notion": "dp", "seed": seed, "kind": "hold"}
        rows.append(
            {**case, "method": "path", "met_validation": True, "met_test": path_test,
             "accuracy": path_acc, "balanced_accuracy": path_acc}
        )  # fmt: skip
        rows.append(
            {**case, "method": "eg", "met_validation": eg_met, "met_test": True,
             "accuracy": eg_acc, "balanced_accuracy": eg_acc}
        )  # fmt: skip
    return pd.DataFrame(rows)


def test_hold_rate_counts_only_cases_met_on_validation():
    table = hold_table(_results()).set_index("method")
    assert table.loc["path", ["met on validation", "held on test", "hold rate"]].tolist() == [
        3,
        2,
        "67%",
    ]
    assert table.loc["eg", ["met on validation", "held on test"]].tolist() == [2, 2]


def test_accuracy_is_paired_only_where_both_met_the_target_on_validation():
    table = paired_table(_results())
    overall = table[(table["pair"] == "path − eg") & (table["dataset"] == "all")].iloc[0]
    # seeds 0 and 1 only: differences -0.02 and -0.03
    assert overall["pairs"] == 2
    assert overall["accuracy"].startswith("-0.025 [")
