"""The trade-off benchmark's front summaries: degenerate runs, halving λ, hypervolumes."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("faircocco_torch")

from benchmarks.tradeoff import mark_degenerate, summary


def _runs() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "method": ["nn", "a", "a", "b", "b"],
            "strength": [0.0, 1.0, 10.0, 1.0, 10.0],
            "task": "classification",
            "auc": [0.9, 0.88, 0.7, 0.85, 0.45],
            "accuracy": [0.9, 0.9, 0.89, 0.89, 0.89],
            "base_rate": 0.11,
            "single_class": [0.0, 0.0, 0.0, 0.0, 1.0],
            "adjusted": [0.04, 0.03, 0.01, 0.02, 0.0],
            "deo": [0.2, 0.15, 0.05, 0.1, 0.0],
        }
    )


def test_degenerate_runs_are_one_class_or_below_chance_auc():
    assert mark_degenerate(_runs()).tolist() == [False, False, False, False, True]


def test_summary_gives_the_smallest_halving_strength_and_its_auc_cost():
    runs = _runs()
    table = summary(runs.assign(degenerate=mark_degenerate(runs))).set_index("method")
    assert table.loc["a", "halving"] == 10.0
    assert table.loc["a", "cost"] == pytest.approx(0.2)
    assert table.loc["b", "halving"] == 1.0
    assert table.loc["b", "cost"] == pytest.approx(0.05)
    assert table.loc["b", "degenerate"] == "1/2"


def test_summary_hypervolumes_include_the_unpenalised_network():
    runs = _runs()
    table = summary(runs.assign(degenerate=mark_degenerate(runs))).set_index("method")
    # 2 (AUC - 0.5) against adjusted / 0.04: nn (0.8, 1), a (0.76, 0.75) and (0.4, 0.25)
    assert table.loc["a", "HV perf/score"] == pytest.approx(0.36 * 0.25 + 0.4 * 0.75)
    # b (0.7, 0.5), and (-0.1, 0) clipped to (0, 0), which covers nothing
    assert table.loc["b", "HV perf/score"] == pytest.approx(0.7 * 0.5)


def test_a_degenerate_run_never_counts_as_halving():
    # b's only run that halves the score predicts one class: b halves nothing
    runs = _runs()
    runs.loc[3, "adjusted"] = 0.03
    table = summary(runs.assign(degenerate=mark_degenerate(runs))).set_index("method")
    assert pd.isna(table.loc["b", "halving"])
    assert pd.isna(table.loc["b", "cost"])
    assert table.loc["a", "halving"] == 10.0
