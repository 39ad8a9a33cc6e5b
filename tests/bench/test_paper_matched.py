"""Performance at matched fairness: models chosen on validation rows, reported on test rows."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from faircocco_plugins.bench._export import export_runs
from faircocco_plugins.bench.paper._common import runs_of_export
from faircocco_plugins.bench.paper._matched import (
    FIGURE_FOLDER,
    choose_at_levels,
    informative_runs,
    matched_by_seed,
    matched_page,
    matched_table,
)


def _run(
    method: str,
    seed: int,
    lam: float | None,
    validation: dict[str, float],
    test: dict[str, float],
) -> dict[str, Any]:
    """One successful German run under EO: validation and test metrics without the prefix;
    both parts have base rate 0.3 (a constant predictor's accuracy 0.7) and balanced accuracy
    0.6 unless given."""
    row: dict[str, Any] = {
        "run_id": f"{method}-{seed}-{lam}",
        "dataset": "german",
        "notion": "eo",
        "method": method,
        "seed": seed,
        "status": "ok",
        "params": {"learning_rate": 0.01} if lam is None else {"learning_rate": 0.01, "lam": lam},
    }
    for part, metrics in (("validation", validation), ("test", test)):
        values = {"base_rate": 0.3, "balanced_accuracy": 0.6, "faircocco_eo": 0.1, **metrics}
        row.update({f"{part}.{name}": value for name, value in values.items()})
    return row


def _same(**metrics: float) -> tuple[dict[str, float], dict[str, float]]:
    """The same metrics on the validation and the test rows."""
    return dict(metrics), dict(metrics)


def _row(table: pd.DataFrame, method: str, measure: str, level: float) -> pd.Series:
    rows = table[
        (table["method"] == method)
        & (table["measure"] == measure)
        & np.isclose(table["level"], level)
    ]
    assert len(rows) == 1
    return rows.iloc[0]


def _export(runs: list[dict[str, Any]]) -> pd.DataFrame:
    """The runs written as an export (a row per run and part) and read back."""
    frame = pd.DataFrame(runs)
    store_fields = {
        "study": "s",
        "settings": [{}] * len(frame),
        "reason": "",
        "n_train": 600,
        "n_validation": 200,
        "n_test": 200,
        "fit_seconds": 1.0,
        "predict_seconds": 0.1,
        "evaluate_seconds": 0.1,
        "peak_memory_mib": 90.0,
        "versions": [{}] * len(frame),
        "git_revision": None,
        "finished_at": "2026-01-01T00:00:00+00:00",
    }
    return runs_of_export(export_runs(frame.assign(**store_fields)))


def test_the_model_is_chosen_on_validation_rows_not_test_rows() -> None:
    runs = [
        # the most accurate on test, and within DEO 0.05 there, but not on validation
        _run("faircocco", 0, 1.0, {"accuracy": 0.80, "deo": 0.08}, {"accuracy": 0.85, "deo": 0.03}),
        _run("faircocco", 0, 5.0, {"accuracy": 0.76, "deo": 0.03}, {"accuracy": 0.78, "deo": 0.04}),
    ]
    export = export_runs(
        pd.DataFrame(runs).assign(
            study="s",
            settings=[{}] * 2,
            reason="",
            n_train=600,
            n_validation=200,
            n_test=200,
            fit_seconds=1.0,
            predict_seconds=0.1,
            evaluate_seconds=0.1,
            peak_memory_mib=90.0,
            versions=[{}] * 2,
            git_revision=None,
            finished_at="2026-01-01T00:00:00+00:00",
        )
    )
    assert set(export["part"]) == {"validation", "test"}
    table = matched_by_seed(runs_of_export(export))
    at = table[(table["measure"] == "DEO") & np.isclose(table["level"], 0.05)].iloc[0]
    assert at[["chosen", "value", "fairness", "meets_test"]].tolist() == [True, 0.78, 0.04, True]


def test_the_chosen_model_says_whether_it_still_meets_the_level_on_test() -> None:
    runs = [
        _run("faircocco", 0, 1.0, {"accuracy": 0.80, "deo": 0.04}, {"accuracy": 0.79, "deo": 0.07}),
        _run("faircocco", 1, 1.0, {"accuracy": 0.80, "deo": 0.04}, {"accuracy": 0.81, "deo": 0.03}),
    ]
    table = matched_by_seed(_export(runs))
    at = table[(table["measure"] == "DEO") & np.isclose(table["level"], 0.05)]
    assert at["meets_test"].tolist() == [False, True]
    row = _row(matched_table(_export(runs)), "faircocco", "DEO", 0.05)
    assert row[["seeds", "chosen", "meets_test", "mean"]].tolist() == [2, 2, 1, 0.80]


def test_no_model_is_made_up_between_two_others() -> None:
    # at DEO 0.05, between the two models' DEO: the fairer one, never a line between them
    runs = [
        _run("faircocco", 0, 1.0, *_same(accuracy=0.76, balanced_accuracy=0.66, deo=0.08)),
        _run("faircocco", 0, 5.0, *_same(accuracy=0.74, balanced_accuracy=0.62, deo=0.02)),
    ]
    at = matched_by_seed(_export(runs))
    at = at[(at["measure"] == "DEO") & np.isclose(at["level"], 0.05)].iloc[0]
    assert at[["value", "balanced_accuracy", "fairness"]].tolist() == [0.74, 0.62, 0.02]


def test_ties_go_to_the_fairer_model_then_the_smaller_run_id() -> None:
    assert choose_at_levels([0.04, 0.02, 0.02], [0.8, 0.8, 0.8], [0.05]).tolist() == [1]
    order = ["b", "a", "c"]
    assert choose_at_levels([0.02, 0.02, 0.02], [0.8] * 3, [0.05], order=order).tolist() == [1]
    assert choose_at_levels([], [], [0.05, 0.1]).tolist() == [-1, -1]
    assert choose_at_levels([math.nan], [0.9], [1.0]).tolist() == [-1]  # NaN meets nothing


def test_models_no_better_than_a_constant_predictor_are_never_chosen() -> None:
    base = {"base_rate": 0.1}  # the majority class alone is 0.9 accurate
    runs = [
        # the most accurate within the level, but below 0.9
        _run("faircocco", 0, 1.0, *_same(accuracy=0.88, deo=0.01, **base)),
        # above 0.9, but at chance in balanced accuracy
        _run("faircocco", 0, 2.0, *_same(accuracy=0.91, balanced_accuracy=0.5, deo=0.0, **base)),
        _run("faircocco", 0, 5.0, *_same(accuracy=0.905, balanced_accuracy=0.55, deo=0.02, **base)),
    ]
    at = matched_by_seed(_export(runs))
    assert at.loc[at["measure"] == "DEO", "value"].tolist() == [0.905, 0.905]
    assert informative_runs(_export(runs), "validation").tolist() == [False, False, True]


def test_a_method_below_the_constant_predictor_on_test_is_not_ranked() -> None:
    runs = []
    for seed in (0, 1, 2):
        runs.append(_run("facl", seed, 1.0, *_same(accuracy=0.75, deo=0.01)))
        # chosen on validation, but below a constant predictor on the test rows of seed 2
        test = {"accuracy": (0.80, 0.80, 0.60)[seed], "deo": 0.01}
        runs.append(_run("faircocco", seed, 1.0, {"accuracy": 0.80, "deo": 0.01}, test))
    table = matched_table(_export(runs))
    ours = _row(table, "faircocco", "DEO", 0.05)
    assert ours[["chosen", "informative_test", "ranked", "best"]].tolist() == [3, 2, False, False]
    assert _row(table, "facl", "DEO", 0.05)["best"]


def test_mean_and_t_interval_over_the_seeds_with_a_model() -> None:
    runs = [
        _run("faircocco", seed, 1.0, *_same(accuracy=accuracy, deo=0.02))
        for seed, accuracy in enumerate((0.73, 0.75, 0.80))
    ]
    # a fourth seed whose fairest model is DEO 0.06 on validation: no model, not in the mean
    runs.append(_run("faircocco", 3, 1.0, *_same(accuracy=0.90, deo=0.06)))
    row = _row(matched_table(_export(runs)), "faircocco", "DEO", 0.05)
    values = np.array([0.73, 0.75, 0.80])
    half = stats.t.ppf(0.975, 2) * values.std(ddof=1) / math.sqrt(3)
    assert row[["seeds", "chosen", "ranked"]].tolist() == [4, 3, False]
    assert row["mean"] == pytest.approx(values.mean(), abs=1e-12)
    assert row["low"] == pytest.approx(values.mean() - half, abs=1e-12)
    assert row["high"] == pytest.approx(values.mean() + half, abs=1e-12)


def test_di_is_fairer_when_higher() -> None:
    runs = [
        _run("faircocco", 0, 1.0, *_same(accuracy=0.80, di=0.70, faircocco_dp=0.1)),
        _run("faircocco", 0, 5.0, *_same(accuracy=0.76, di=0.90, faircocco_dp=0.1)),
        _run("faircocco", 0, 2.0, *_same(accuracy=0.78, di=0.85, faircocco_dp=0.1)),
    ]
    for run in runs:
        run["notion"] = "dp"
    table = matched_by_seed(_export(runs))
    di = table[table["measure"] == "DI"]
    assert di["value"].tolist() == [0.78, 0.76]  # at DI ≥ 0.8, then ≥ 0.9


def test_relative_levels_follow_each_seeds_network_on_validation() -> None:
    runs = []
    for seed, network in enumerate((0.2, 0.4)):
        # the network's test score is noise; its validation score sets the seed's level
        runs.append(
            _run(
                "nn",
                seed,
                None,
                {"accuracy": 0.82, "faircocco_eo_adjusted": network},
                {"accuracy": 0.82, "faircocco_eo_adjusted": 0.01},
            )
        )
        runs.append(_run("faircocco", seed, 1.0, *_same(accuracy=0.80, faircocco_eo_adjusted=0.15)))
        runs.append(_run("faircocco", seed, 5.0, *_same(accuracy=0.70, faircocco_eo_adjusted=0.05)))
    table = matched_by_seed(_export(runs))
    ours = table[(table["method"] == "faircocco") & (table["measure"] == "adjusted score")]
    # seed 0: levels 0.1 and 0.05; seed 1: 0.2 and 0.1
    assert ours["threshold"].tolist() == pytest.approx([0.1, 0.05, 0.2, 0.1], abs=1e-12)
    assert ours["value"].tolist() == [0.70, 0.70, 0.80, 0.70]
    row = _row(matched_table(_export(runs)), "faircocco", "adjusted score", 0.5)
    assert row["threshold"] == pytest.approx(0.15, abs=1e-12)  # the mean over seeds


def test_a_difference_not_shown_beyond_the_margin_is_a_tie() -> None:
    runs = []
    for seed in (0, 1, 2):
        best = (0.80, 0.82, 0.84)[seed]
        runs.append(_run("faircocco", seed, 1.0, *_same(accuracy=best, deo=0.01)))
        # below the best on every seed, but by 0.003: inside the 0.005 margin
        near = (0.797, 0.8171, 0.8369)[seed]
        runs.append(_run("hsic", seed, 1.0, *_same(accuracy=near, deo=0.01)))
        # below by 0.03 on every seed: beyond it
        runs.append(_run("facl", seed, 1.0, *_same(accuracy=best - 0.03, deo=0.01)))
        # at most 0.003 below on average but noisy: not shown beyond the margin either
        noisy = best + (0.02, -0.03, 0.001)[seed]
        runs.append(_run("farmi", seed, 1.0, *_same(accuracy=noisy, deo=0.01)))
    table = matched_table(_export(runs))
    at = table[(table["measure"] == "DEO") & np.isclose(table["level"], 0.05)].set_index("method")
    assert at.loc["faircocco", "best"]
    assert at.loc["hsic", "difference_high"] < 0  # shown below the best, inside the margin
    assert at["tied"].to_dict() == {"faircocco": False, "hsic": True, "facl": False, "farmi": True}


def test_regression_is_ranked_by_r2() -> None:
    runs = []
    for seed in (0, 1):
        for method, lam, r2, score in (
            ("nn", None, 0.60, 0.4),
            ("faircocco", 1.0, 0.55, 0.3),
            ("faircocco", 5.0, 0.50, 0.1),
        ):
            metrics = {"r2": r2, "mse": 1 - r2, "outcome_variance": 1.0, "prediction_spread": 0.5}
            runs.append(_run(method, seed, lam, *_same(**metrics, faircocco_eo_adjusted=score)))
    frame = _export(runs)
    for part in ("validation", "test"):
        frame = frame.drop(columns=[f"{part}.balanced_accuracy", f"{part}.base_rate"])
    frame["dataset"] = "communities"
    table = matched_table(frame)
    assert set(table["measure"]) == {"adjusted score"}  # no DEO or DI for regression
    assert set(table["performance"]) == {"r2"}
    at = _row(table, "faircocco", "adjusted score", 0.5)
    assert at[["threshold", "mean", "best"]].tolist() == [0.2, 0.50, True]
    assert math.isnan(at["balanced_accuracy"])


def test_page_lists_each_level_and_draws_a_figure(tmp_path: Path) -> None:
    runs = []
    for seed in (0, 1):
        runs.append(
            _run("nn", seed, None, *_same(accuracy=0.82, deo=0.12, faircocco_eo_adjusted=0.2))
        )
        for lam, accuracy, deo, score in ((1.0, 0.80, 0.08, 0.1), (5.0, 0.74, 0.03, 0.02)):
            runs.append(
                _run(
                    "faircocco",
                    seed,
                    lam,
                    *_same(accuracy=accuracy, deo=deo, faircocco_eo_adjusted=score),
                )
            )
        # more accurate at DEO 0.05, but with a model on seed 0 only
        deo = (0.04, 0.09)[seed]
        runs.append(_run("hsic", seed, 1.0, *_same(accuracy=(0.79, 0.85)[seed], deo=deo)))
    pytest.importorskip("matplotlib")
    text = "\n".join(matched_page(_export(runs), tmp_path, plots=True))
    assert (tmp_path / FIGURE_FOLDER / "german-eo.png").is_file()
    assert ".. list-table:: DEO ≤ 0.05\n" in text
    assert "DEO ≤ 0.02: no method has a model that meets this level on any seed." in text
    assert ".. list-table:: adjusted score ≤ 0.25 × nn (0.05)\n" in text
    assert (
        "   * - faircocco\n     - 2 of 2\n     - 2 of 2\n     - 0.740 [0.740, 0.740]\n"
        "     - 0.600\n     - **best**\n"
    ) in text
    assert "   * - nn\n     - 0 of 2\n     - —\n     - —\n" in text
    assert (
        "   * - hsic\n     - 1 of 2\n     - 1 of 1\n     - 0.790\n     - 0.600\n"
        "     - not ranked (a model on 1 of 2 seeds)\n"
    ) in text
    summary = (
        "   * - german\n     - equalised odds (EO)\n     - DEO ≤ 0.05\n"
        "     - faircocco: 0.740 [0.740, 0.740] (2 of 2)\n     - —\n     - **best**\n"
        "     - — (0 of 2)\n"
    )
    assert summary in text
    standing = text[text.index("Standing by measure") :]
    assert "   * - faircocco\n     - 1 / 0\n     - 2 / 0\n" in standing


def test_bad_input_is_refused() -> None:
    with pytest.raises(TypeError, match="runs must be a pandas DataFrame"):
        matched_by_seed([])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"missing the columns \['params'\]"):
        matched_by_seed(pd.DataFrame(columns=["dataset", "notion", "method", "seed", "status"]))
    with pytest.raises(ValueError, match="unfairness and performance"):
        choose_at_levels([0.1, 0.2], [0.8], [0.1])
    with pytest.raises(ValueError, match="confidence"):
        matched_table(_export([_run("nn", 0, None, *_same(accuracy=0.8))]), confidence=1.0)
