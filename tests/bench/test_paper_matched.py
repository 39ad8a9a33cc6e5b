"""Performance at matched fairness, on small runs whose fronts are worked out by hand."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from faircocco_plugins.bench._pareto_points import pareto_points
from faircocco_plugins.bench.paper._matched import (
    FIGURE_FOLDER,
    matched_by_seed,
    matched_mix,
    matched_page,
    matched_table,
)


def _run(method: str, seed: int, lam: float | None, **metrics: Any) -> dict[str, Any]:
    """One successful German run under EO; ``metrics`` are test metrics without the prefix."""
    row: dict[str, Any] = {
        "dataset": "german",
        "notion": "eo",
        "method": method,
        "seed": seed,
        "status": "ok",
        "params": {"learning_rate": 0.01} if lam is None else {"learning_rate": 0.01, "lam": lam},
        "validation.accuracy": 0.7,
        "test.faircocco_eo": 0.1,
    }
    row.update({f"test.{name}": value for name, value in metrics.items()})
    return row


def _values(runs: list[dict[str, Any]], measure: str, level: float) -> dict[tuple[str, int], float]:
    """Each method and seed's performance at one level."""
    table = matched_by_seed(pd.DataFrame(runs))
    rows = table[(table["measure"] == measure) & np.isclose(table["level"], level)]
    return {(m, s): v for m, s, v in zip(rows["method"], rows["seed"], rows["value"], strict=True)}


def _row(table: pd.DataFrame, method: str, measure: str, level: float) -> pd.Series:
    rows = table[
        (table["method"] == method)
        & (table["measure"] == measure)
        & np.isclose(table["level"], level)
    ]
    assert len(rows) == 1
    return rows.iloc[0]


def test_a_level_between_two_front_points_is_the_line_between_them() -> None:
    # front: (0.02, 0.70) and (0.08, 0.76); (0.06, 0.65) is dominated by (0.02, 0.70)
    runs = [
        _run("faircocco", 0, 1.0, accuracy=0.76, balanced_accuracy=0.66, deo=0.08),
        _run("faircocco", 0, 2.0, accuracy=0.65, balanced_accuracy=0.64, deo=0.06),
        _run("faircocco", 0, 5.0, accuracy=0.70, balanced_accuracy=0.62, deo=0.02),
    ]
    table = matched_by_seed(pd.DataFrame(runs))
    at = table[(table["measure"] == "DEO") & np.isclose(table["level"], 0.05)].iloc[0]
    # halfway from DEO 0.02 to 0.08, so halfway from 0.70 to 0.76, in both metrics
    assert at["value"] == pytest.approx(0.73, abs=1e-12)
    assert at["balanced_accuracy"] == pytest.approx(0.64, abs=1e-12)
    weights = matched_mix(
        [0.08, 0.06, 0.02], [0.76, 0.65, 0.70], 0.05, higher_is_fairer=False, maximise=True
    )
    assert weights is not None
    assert weights.tolist() == pytest.approx([0.5, 0.0, 0.5], abs=1e-12)


def test_a_level_beyond_the_fairest_point_is_not_reached_and_a_looser_one_takes_the_best() -> None:
    runs = [
        _run("faircocco", 0, 1.0, accuracy=0.80, deo=0.04),
        _run("faircocco", 0, 5.0, accuracy=0.74, deo=0.03),
    ]
    values = _values(runs, "DEO", 0.05)
    assert values[("faircocco", 0)] == pytest.approx(0.80, abs=1e-12)  # both points meet 0.05
    assert math.isnan(_values(runs, "DEO", 0.02)[("faircocco", 0)])  # nothing extrapolated
    table = matched_table(pd.DataFrame(runs))
    assert _row(table, "faircocco", "DEO", 0.02)[["seeds", "reached"]].tolist() == [1, 0]


def test_degenerate_points_take_no_part() -> None:
    # one class predicted at DEO 0 would otherwise be the front's fairest point
    runs = [
        _run("faircocco", 0, 1.0, accuracy=0.80, deo=0.10, single_class=0.0),
        _run("faircocco", 0, 5.0, accuracy=0.70, deo=0.04, single_class=0.0),
        _run("faircocco", 0, 20.0, accuracy=0.72, deo=0.0, single_class=1.0),
        # seed 1 has only a degenerate point: it ran, and reaches nothing
        _run("faircocco", 1, 20.0, accuracy=0.72, deo=0.0, single_class=1.0),
    ]
    values = _values(runs, "DEO", 0.05)
    # from DEO 0.04 to 0.10, a sixth of the way: 0.70 + 0.10 / 6
    assert values[("faircocco", 0)] == pytest.approx(0.70 + 0.1 / 6, abs=1e-12)
    assert math.isnan(values[("faircocco", 1)])
    assert math.isnan(_values(runs, "DEO", 0.02)[("faircocco", 0)])
    row = _row(matched_table(pd.DataFrame(runs)), "faircocco", "DEO", 0.05)
    assert row[["seeds", "reached"]].tolist() == [2, 1]


def test_mean_and_t_interval_over_the_seeds_that_reach_the_level() -> None:
    runs = []
    # each seed's front from (0.02, a) to (0.08, a + 0.06): at DEO 0.05 it reads a + 0.03
    for seed, low in enumerate((0.70, 0.72, 0.77)):
        runs.append(_run("faircocco", seed, 1.0, accuracy=low + 0.06, deo=0.08))
        runs.append(_run("faircocco", seed, 5.0, accuracy=low, deo=0.02))
    # a fourth seed whose fairest point is DEO 0.06: not reached, so not in the mean
    runs.append(_run("faircocco", 3, 1.0, accuracy=0.90, deo=0.06))
    row = _row(matched_table(pd.DataFrame(runs)), "faircocco", "DEO", 0.05)
    values = np.array([0.73, 0.75, 0.80])
    half = stats.t.ppf(0.975, 2) * values.std(ddof=1) / math.sqrt(3)
    assert row[["seeds", "reached"]].tolist() == [4, 3]
    assert row["mean"] == pytest.approx(values.mean(), abs=1e-12)
    assert row["low"] == pytest.approx(values.mean() - half, abs=1e-12)
    assert row["high"] == pytest.approx(values.mean() + half, abs=1e-12)


def test_the_network_counts_only_where_it_meets_the_level() -> None:
    runs = [
        _run("nn", 0, None, accuracy=0.80, deo=0.04),
        _run("nn", 1, None, accuracy=0.81, deo=0.06),
        _run("nn", 2, None, accuracy=0.82, deo=0.03),
    ]
    table = matched_table(pd.DataFrame(runs))
    at = _row(table, "nn", "DEO", 0.05)
    assert at[["seeds", "reached"]].tolist() == [3, 2]
    assert at["mean"] == pytest.approx(0.81, abs=1e-12)  # seeds 0 and 2
    half = stats.t.ppf(0.975, 1) * np.std([0.80, 0.82], ddof=1) / math.sqrt(2)
    assert at["low"] == pytest.approx(0.81 - half, abs=1e-12)
    assert _row(table, "nn", "DEO", 0.02)["reached"] == 0


def test_di_is_fairer_when_higher() -> None:
    runs = [
        _run("faircocco", 0, 1.0, accuracy=0.80, di=0.70),
        _run("faircocco", 0, 5.0, accuracy=0.76, di=0.90),
        # less fair and less accurate than DI 0.9: dominated
        _run("faircocco", 0, 2.0, accuracy=0.75, di=0.85),
    ]
    for run in runs:
        run["notion"] = "dp"
        run["test.faircocco_dp"] = 0.1
    values = _values(runs, "DI", 0.8)
    assert values[("faircocco", 0)] == pytest.approx(0.78, abs=1e-12)
    assert _values(runs, "DI", 0.9)[("faircocco", 0)] == pytest.approx(0.76, abs=1e-12)
    weights = matched_mix([0.70, 0.90], [0.80, 0.76], 0.95, higher_is_fairer=True, maximise=True)
    assert weights is None


def test_regression_reads_the_mse_at_levels_relative_to_the_network() -> None:
    runs = []
    for seed in (0, 1):
        # the network's mean adjusted score is 0.4: the levels are 0.2 and 0.1
        runs.append(_run("nn", seed, None, mse=0.4, faircocco_adjusted=(0.38, 0.42)[seed]))
        runs.append(_run("faircocco", seed, 1.0, mse=0.5, faircocco_adjusted=0.3))
        runs.append(_run("faircocco", seed, 5.0, mse=0.7, faircocco_adjusted=0.1))
        # worse on both axes than λ = 5: dominated on a lower-is-better performance
        runs.append(_run("faircocco", seed, 10.0, mse=0.8, faircocco_adjusted=0.15))
    frame = pd.DataFrame(runs).drop(columns="validation.accuracy").assign(**{"validation.mse": 0.5})
    frame["dataset"] = "communities"
    table = matched_table(frame)
    assert set(table["measure"]) == {"adjusted score"}  # no DEO or DI for regression
    assert set(table["performance"]) == {"mse"}
    at = _row(table, "faircocco", "adjusted score", 0.5)
    assert at["threshold"] == pytest.approx(0.2, abs=1e-12)
    assert at["mean"] == pytest.approx(0.6, abs=1e-12)  # halfway from 0.3 (0.5) to 0.1 (0.7)
    assert at["low"] == pytest.approx(0.6, abs=1e-12)  # the same on both seeds
    assert _row(table, "faircocco", "adjusted score", 0.25)["mean"] == pytest.approx(0.7, abs=1e-12)
    assert math.isnan(at["balanced_accuracy"])
    assert at["best"]


def test_the_settings_are_those_the_fronts_draw() -> None:
    runs = [
        _run("faircocco", 0, 1.0, accuracy=0.80, deo=0.10),
        _run("faircocco", 0, 5.0, accuracy=0.70, deo=0.02),
        # another learning rate: better on test, worse on validation
        _run("faircocco", 0, 5.0, accuracy=0.79, deo=0.03),
    ]
    runs[1]["validation.accuracy"] = 0.72
    runs[2]["params"] = {"learning_rate": 0.1, "lam": 5.0}
    runs[2]["validation.accuracy"] = 0.6
    # with two parameters varying, pareto_points draws the one setting best on validation
    points = pareto_points(pd.DataFrame(runs), dataset="german", notion="eo")
    assert points["params"].tolist() == [{"learning_rate": 0.01, "lam": 5.0}]
    assert _values(runs, "DEO", 0.05)[("faircocco", 0)] == pytest.approx(0.70, abs=1e-12)
    # one learning rate: λ is the sweep, and each λ a point of the front
    assert _values(runs[:2], "DEO", 0.05)[("faircocco", 0)] == pytest.approx(0.7375, abs=1e-12)


def test_the_best_reaches_the_level_on_every_seed_and_others_are_paired_with_it() -> None:
    runs = []
    for seed in (0, 1, 2):
        runs.append(_run("facl", seed, 1.0, accuracy=(0.70, 0.72, 0.74)[seed], deo=0.01))
        runs.append(_run("faircocco", seed, 1.0, accuracy=(0.73, 0.74, 0.78)[seed], deo=0.01))
    # hsic is the most accurate where it reaches the level, on one seed of three
    for seed in (0, 1, 2):
        runs.append(_run("hsic", seed, 1.0, accuracy=0.90, deo=(0.01, 0.09, 0.09)[seed]))
    table = matched_table(pd.DataFrame(runs))
    best = table[table["best"] & np.isclose(table["level"], 0.05)]
    assert best["method"].tolist() == ["faircocco"]
    facl = _row(table, "facl", "DEO", 0.05)
    differences = np.array([-0.03, -0.02, -0.04])
    half = stats.t.ppf(0.975, 2) * differences.std(ddof=1) / math.sqrt(3)
    assert facl["difference"] == pytest.approx(-0.03, abs=1e-12)
    assert facl["difference_high"] == pytest.approx(-0.03 + half, abs=1e-12)
    assert facl["paired"] == 3
    hsic = _row(table, "hsic", "DEO", 0.05)
    assert hsic["difference"] == pytest.approx(0.90 - 0.73, abs=1e-12)  # seed 0 only
    assert hsic["paired"] == 1 and not hsic["best"]


def test_page_lists_each_level_and_draws_a_figure(tmp_path: Path) -> None:
    runs = []
    for seed in (0, 1):
        runs.append(_run("nn", seed, None, accuracy=0.82, deo=0.12, faircocco_adjusted=0.2))
        runs.append(_run("faircocco", seed, 1.0, accuracy=0.80, deo=0.08, faircocco_adjusted=0.1))
        runs.append(_run("faircocco", seed, 5.0, accuracy=0.70, deo=0.03, faircocco_adjusted=0.02))
        # more accurate at DEO 0.05, but on seed 0 only
        runs.append(_run("hsic", seed, 1.0, accuracy=(0.79, 0.85)[seed], deo=(0.04, 0.09)[seed]))
    pytest.importorskip("matplotlib")
    text = "\n".join(matched_page(pd.DataFrame(runs), tmp_path, plots=True))
    assert (tmp_path / FIGURE_FOLDER / "german-eo.png").is_file()
    assert ".. list-table:: DEO ≤ 0.05\n" in text
    assert "DEO ≤ 0.02: no method reaches this level on any seed." in text
    assert ".. list-table:: adjusted score ≤ 0.25 × nn (0.05)\n" in text
    # at DEO 0.05, two fifths of the way from 0.03 to 0.08: 0.74 on both seeds
    assert "   * - faircocco\n     - 2 of 2\n     - 0.740 [0.740, 0.740]\n     - —\n" in text
    assert "   * - nn\n     - 0 of 2\n     - —\n" in text
    # hsic is 0.79 − 0.74 above the best on the one seed both reach, and not ranked
    assert "   * - hsic\n     - 1 of 2\n     - 0.790\n     - —\n     - +0.050\n" in text
    summary = (
        "   * - german\n     - equalised odds (EO)\n     - DEO ≤ 0.05\n"
        "     - faircocco: 0.740 [0.740, 0.740] (2 of 2)\n     - hsic: 0.790 (1 of 2)\n"
        "     - — (0 of 2)\n"
    )
    assert summary in text


def test_summary_names_the_method_better_on_the_most_seeds(tmp_path: Path) -> None:
    runs = []
    for seed in (0, 1, 2):
        runs.append(_run("faircocco", seed, 1.0, accuracy=0.74, deo=0.01))
        # hsic beats it on two seeds of three, facl by more on one
        runs.append(_run("hsic", seed, 1.0, accuracy=0.78, deo=(0.01, 0.01, 0.09)[seed]))
        runs.append(_run("facl", seed, 1.0, accuracy=0.90, deo=(0.01, 0.09, 0.09)[seed]))
    text = "\n".join(matched_page(pd.DataFrame(runs), tmp_path, plots=False))
    assert (
        "     - DEO ≤ 0.05\n     - faircocco: 0.740 [0.740, 0.740] (3 of 3)\n"
        "     - hsic: 0.780 [0.780, 0.780] (2 of 3)\n     - —\n"
    ) in text
    assert not (tmp_path / FIGURE_FOLDER).exists()


def test_bad_input_is_refused() -> None:
    with pytest.raises(TypeError, match="runs must be a pandas DataFrame"):
        matched_by_seed([])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"missing the columns \['params'\]"):
        matched_by_seed(pd.DataFrame(columns=["dataset", "notion", "method", "seed", "status"]))
    with pytest.raises(ValueError, match="fairness and performance"):
        matched_mix([0.1, 0.2], [0.8], 0.1, higher_is_fairer=False, maximise=True)
    with pytest.raises(ValueError, match="confidence"):
        matched_table(pd.DataFrame([_run("nn", 0, None, accuracy=0.8)]), confidence=1.0)
