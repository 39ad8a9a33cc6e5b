"""The area a front dominates in the unit box: :func:`hypervolume`, on :func:`front_axes`."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins.bench import front_axes, hypervolume


def _grid_hypervolume(performance: list[float], unfairness: list[float], cells: int) -> float:
    """Share of a fine grid of the unit box dominated by some point (a literal check)."""
    centres = (np.arange(cells) + 0.5) / cells
    dominated = 0
    for q, v in itertools.product(centres, centres):
        dominated += any(p >= q and u <= v for p, u in zip(performance, unfairness, strict=True))
    return dominated / cells**2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hypervolume_equals_the_dominated_share_of_a_grid(seed: int) -> None:
    rng = np.random.default_rng(seed)
    performance, unfairness = rng.random(6).tolist(), rng.random(6).tolist()
    # a 400 x 400 grid misjudges at most the 2 x 400 cells the staircase front crosses
    expected = _grid_hypervolume(performance, unfairness, 400)
    assert hypervolume(performance, unfairness) == pytest.approx(expected, abs=2 / 400)


def test_hypervolume_clips_to_the_box_and_ignores_missing_points() -> None:
    assert hypervolume([1.5, float("nan")], [-0.2, 0.1]) == 1.0
    assert hypervolume([0.5, float("inf")], [0.5, 0.0]) == 0.25
    assert hypervolume([-0.5], [0.0]) == 0.0
    assert hypervolume([], []) == 0.0


def test_hypervolume_rejects_mismatched_coordinates() -> None:
    with pytest.raises(ValueError, match="same length"):
        hypervolume([0.5, 0.6], [0.1])
    with pytest.raises(TypeError, match="array of numbers"):
        hypervolume(["high"], [0.1])


def test_front_axes_need_the_reference_runs_marked_by_booleans() -> None:
    metrics = pd.DataFrame({"auc": [0.9, 0.8], "base_rate": 0.2, "adjusted": [0.04, 0.01]})
    axes = front_axes(metrics, "classification", reference=[True, False])
    assert axes["adjusted"][1].tolist() == pytest.approx([1.0, 0.25])
    with pytest.raises(TypeError, match="reference must be an array of booleans"):
        front_axes(metrics, "classification", reference=["nn", "facl"])
    with pytest.raises(ValueError, match="one entry per row of metrics"):
        front_axes(metrics, "classification", reference=[True])
