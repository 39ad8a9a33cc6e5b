"""The hypervolume of each method's front over all its runs, and its place in the report.

A hand-computable study on ``compas`` under EO, seeds 0 and 1, test base rate 0.2 (so the
majority rate is 0.8). The unpenalised network ``nn`` sets the reference at an adjusted score of
0.04 and a DEO of 0.4 (its own point covers nothing), so the normalised points
(2 (AUC − 0.5), adjusted / 0.04) and ((accuracy − 0.8) / 0.2, DEO / 0.4) are:

* ``faircocco``: (0.8, 1) and (0.6, 0.25) on seed 0, (0.6, 0.5) on seed 1, in the first plane;
  (0.5, 1) and (0.4, 0.25) or (0.4, 0.5) in the second. Hypervolumes 0.45 and 0.3, then 0.3
  and 0.2.
* ``facl``, dominated by ``faircocco`` on both seeds: (0.6, 1) and (0.4, 0.5), the latter from
  its balanced accuracy as it has no AUC; (0.3, 1) and (0.2, 0.5). Hypervolumes 0.2 and 0.1.
  Its third setting predicts one class: its AUC of 0.85 at an adjusted score of 0 would cover
  0.7 of the box, but it is left out.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from faircocco_plugins.bench import ResultsStore, RunRecord, hypervolume_table, write_report
from faircocco_plugins.bench._hypervolume_table import hypervolume_by_seed

#: (method, lam) -> test metrics of seed 0; seed 1 changes faircocco's lam=5 only.
TEST: dict[tuple[str, float], dict[str, float]] = {
    ("nn", 0.0): {"auc": 0.9, "accuracy": 0.9, "faircocco_eo_adjusted": 0.04, "deo": 0.4},
    ("faircocco", 1.0): {"auc": 0.9, "accuracy": 0.9, "faircocco_eo_adjusted": 0.04, "deo": 0.4},
    ("faircocco", 5.0): {"auc": 0.8, "accuracy": 0.88, "faircocco_eo_adjusted": 0.01, "deo": 0.1},
    ("facl", 1.0): {"auc": 0.8, "accuracy": 0.86, "faircocco_eo_adjusted": 0.04, "deo": 0.4},
    ("facl", 5.0): {"balanced_accuracy": 0.7, "accuracy": 0.84, "faircocco_eo_adjusted": 0.02},
    ("facl", 20.0): {"auc": 0.85, "accuracy": 0.8, "faircocco_eo_adjusted": 0.0, "deo": 0.0},
}


def _test_metrics(method: str, lam: float, seed: int) -> dict[str, float]:
    metrics = {"base_rate": 0.2, "single_class": float(lam == 20.0), **TEST[(method, lam)]}
    if (method, lam) == ("facl", 5.0):
        metrics["deo"] = 0.2
    if (method, lam, seed) == ("faircocco", 5.0, 1):
        metrics.update(faircocco_eo_adjusted=0.02, deo=0.2)
    return metrics


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "results.sqlite"
    records = []
    for (method, lam), _ in TEST.items():
        for seed in (0, 1):
            metrics = {f"test.{k}": v for k, v in _test_metrics(method, lam, seed).items()}
            metrics.update({"validation.balanced_accuracy": 0.7, "validation.faircocco_eo": 0.03})
            records.append(
                RunRecord(
                    run_id=f"{method}-{lam}-{seed}",
                    study="fronts",
                    dataset="compas",
                    method=method,
                    notion="eo",
                    seed=seed,
                    params={"lam": lam},
                    settings={},
                    status="ok",
                    metrics=metrics,
                )
            )
    with ResultsStore(path) as results:
        results.add_many(records)
    return path


def _runs(store: Path) -> pd.DataFrame:
    with ResultsStore(store) as results:
        return results.runs()


def test_values_of_a_hand_computed_study(store: Path) -> None:
    table = hypervolume_table(_runs(store)).set_index("method")
    assert table.index.tolist() == ["nn", "facl", "faircocco"]
    assert table.loc["nn", "adjusted_mean"] == table.loc["nn", "deo_mean"] == 0.0
    faircocco, facl = table.loc["faircocco"], table.loc["facl"]
    assert faircocco["adjusted_mean"] == pytest.approx((0.45 + 0.3) / 2)
    assert faircocco["adjusted_std"] == pytest.approx(0.15 / math.sqrt(2))
    assert faircocco["deo_mean"] == pytest.approx((0.3 + 0.2) / 2)
    assert faircocco["deo_std"] == pytest.approx(0.1 / math.sqrt(2))
    assert facl["adjusted_mean"] == pytest.approx(0.2)
    assert facl["deo_mean"] == pytest.approx(0.1)
    assert facl["adjusted_std"] == pytest.approx(0.0, abs=1e-12)
    assert (facl["seeds"], facl["runs"], facl["runs_degenerate"]) == (2, 6, 2)
    assert (faircocco["runs"], faircocco["runs_degenerate"], faircocco["task"]) == (
        4,
        0,
        "classification",
    )


def _regression_runs(**metrics: Any) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "dataset": "students",
            "notion": "dp",
            "method": ["nn", "facl"],
            "seed": 0,
            "status": "ok",
            "test.mse": [0.5, 1.0],
            "test.prediction_spread": 0.9,
            "test.faircocco_dp_adjusted": [0.2, 0.1],
            "test.deo": [0.3, 0.3],
            **metrics,
        }
    )


def test_regression_uses_the_test_r2_and_needs_the_outcome_variance() -> None:
    table = hypervolume_table(_regression_runs(**{"test.outcome_variance": 2.0}))
    # nn: R² 0.75 at adjusted 1 (covers nothing); facl: 0.5 at 0.5; DEO is 1 for both
    facl = table.set_index("method").loc["facl"]
    assert facl["adjusted_mean"] == pytest.approx(0.5 * 0.5)
    assert facl["deo_mean"] == 0.0
    assert facl["task"] == "regression"
    stale = hypervolume_table(_regression_runs())
    assert stale[["adjusted_mean", "deo_mean"]].isna().all().all()


def test_regression_runs_no_better_than_the_mean_are_left_out() -> None:
    runs = pd.DataFrame(
        {
            "dataset": "communities",
            "notion": "dp",
            "method": ["nn", "facl", "facl"],
            "seed": 0,
            "status": "ok",
            # R² 0.75, 0.5 and 0.005: the last is no better than the mean (spread 0.05 is not
            # flat) and has the largest adjusted score
            "test.mse": [0.5, 1.0, 1.99],
            "test.outcome_variance": 2.0,
            "test.prediction_spread": [0.9, 0.8, 0.05],
            "test.faircocco_dp_adjusted": [0.2, 0.1, 0.8],
            "test.deo": [0.3, 0.3, 0.6],
        }
    )
    row = hypervolume_table(runs).set_index("method").loc["facl"]
    assert (row["runs"], row["runs_degenerate"]) == (2, 1)
    # against nn's adjusted score of 0.2, facl's usable point is (0.5, 0.5)
    assert row["adjusted_mean"] == pytest.approx(0.5 * 0.5)


def test_report_shows_the_table_and_writes_it_as_csv(store: Path, tmp_path: Path) -> None:
    out = write_report(store, tmp_path / "report", plots=False)
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "## Hypervolume of each method's front" in readme
    assert "| compas | EO | facl | 4 of 6 | 0.200 ± 0.000 | 0.100 ± 0.000 |" in readme
    assert "| compas | EO | faircocco | 4 of 4 | 0.375 ± 0.106 | 0.250 ± 0.071 |" in readme
    assert "[Hypervolumes](hypervolumes.csv)" in readme
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "<h2>Hypervolume of each method&#x27;s front</h2>" in index
    assert "<td>0.375 ± 0.106</td>" in index
    written = pd.read_csv(out / "hypervolumes.csv")
    expected = hypervolume_table(_runs(store))
    pd.testing.assert_frame_equal(written, expected, check_dtype=False)
    # every run counts, whichever setting the selection rule picks
    strict = write_report(store, tmp_path / "strict", plots=False, tolerance=0.0)
    assert (strict / "hypervolumes.csv").read_text() == (out / "hypervolumes.csv").read_text()


def _reference_study(extra: bool) -> pd.DataFrame:
    """compas under EO, one seed: the unpenalised network at adjusted 0.04 and DEO 0.2,
    FairCOCCO below it, and, when ``extra``, a post-processor ten times as unfair."""
    rows = [
        ("nn", 0.9, 0.9, 0.04, 0.2),
        ("faircocco", 0.85, 0.88, 0.01, 0.05),
        ("faircocco", 0.8, 0.86, 0.05, 0.3),
    ]
    if extra:
        rows.append(("fairlearn_threshold", 0.95, 0.92, 0.4, 0.61))
    method, auc, accuracy, adjusted, deo = zip(*rows, strict=True)
    return pd.DataFrame(
        {
            "dataset": "compas",
            "notion": "eo",
            "method": method,
            "seed": 0,
            "status": "ok",
            "test.auc": auc,
            "test.accuracy": accuracy,
            "test.base_rate": 0.2,
            "test.faircocco_eo_adjusted": adjusted,
            "test.deo": deo,
        }
    )


def test_the_reference_is_the_unpenalised_network_not_the_most_unfair_method() -> None:
    alone = hypervolume_table(_reference_study(extra=False)).set_index("method")
    joined = hypervolume_table(_reference_study(extra=True)).set_index("method")
    for front in ("adjusted_mean", "deo_mean"):
        assert joined.loc[["nn", "faircocco"], front].tolist() == pytest.approx(
            alone.loc[["nn", "faircocco"], front].tolist()
        )
    # (2 (AUC − 0.5), adjusted / 0.04): FairCOCCO's (0.7, 0.25) covers 0.7 × 0.75; its
    # (0.6, 1.25), less fair than the network, covers nothing, nor does the network at 1
    assert alone.loc["faircocco", "adjusted_mean"] == pytest.approx(0.7 * 0.75)
    assert alone.loc["nn", "adjusted_mean"] == pytest.approx(0.0, abs=1e-12)
    # ((accuracy − 0.8) / 0.2, DEO / 0.2): (0.4, 0.25) covers 0.4 × 0.75
    assert alone.loc["faircocco", "deo_mean"] == pytest.approx(0.4 * 0.75)
    # more unfair than the network: clipped to unfairness 1, it covers nothing
    assert joined.loc["fairlearn_threshold", "adjusted_mean"] == pytest.approx(0.0, abs=1e-12)


def test_without_the_unpenalised_network_there_is_no_reference() -> None:
    runs = _reference_study(extra=True)
    table = hypervolume_table(runs[runs["method"] != "nn"])
    assert table[["adjusted_mean", "deo_mean"]].isna().all().all()


def test_runs_must_be_a_frame_of_the_store_columns() -> None:
    for table in (hypervolume_table, hypervolume_by_seed):
        with pytest.raises(TypeError, match="runs must be a pandas DataFrame; got list"):
            table([])
        with pytest.raises(ValueError, match=r"missing the columns \['seed'\]; pass Results"):
            table(pd.DataFrame(columns=["dataset", "notion", "method", "status"]))
