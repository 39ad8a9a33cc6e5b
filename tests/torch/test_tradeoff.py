"""The trade-off benchmark's front summaries: hypervolume, degenerate runs, halving λ."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("faircocco_torch")

from faircocco_torch.tradeoff import hypervolume, mark_degenerate, summary


def _grid_hypervolume(performance: list[float], unfairness: list[float], cells: int) -> float:
    """Share of a fine grid of the unit box dominated by some point (a literal check)."""
    centres = (np.arange(cells) + 0.5) / cells
    dominated = 0
    for q, v in itertools.product(centres, centres):
        dominated += any(p >= q and u <= v for p, u in zip(performance, unfairness, strict=True))
    return dominated / cells**2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hypervolume_equals_the_dominated_share_of_a_grid(seed):
    rng = np.random.default_rng(seed)
    performance, unfairness = rng.random(6).tolist(), rng.random(6).tolist()
    # a 400 x 400 grid misjudges at most the 2 x 400 cells the staircase front crosses
    expected = _grid_hypervolume(performance, unfairness, 400)
    assert hypervolume(performance, unfairness) == pytest.approx(expected, abs=2 / 400)


def test_hypervolume_clips_to_the_box_and_ignores_missing_points():
    assert hypervolume([1.5, float("nan")], [-0.2, 0.1]) == 1.0
    assert hypervolume([-0.5], [0.0]) == 0.0
    assert hypervolume([], []) == 0.0


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
