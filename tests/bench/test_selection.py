"""The selection rule: validation columns only, degenerate models set aside, balanced accuracy
within the tolerance first, else the fairest setting."""

from __future__ import annotations

import re
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
                "validation.balanced_accuracy": rng.uniform(0.5, 0.8),
                "validation.single_class": float(rng.uniform() < 0.3),
                "validation.faircocco_eo": rng.uniform(0.0, 0.1),
                "validation.faircocco_eo_adjusted": rng.uniform(0.0, 0.05),
                "test.accuracy": rng.uniform(0.6, 0.9),
                "test.balanced_accuracy": rng.uniform(0.5, 0.8),
                "test.single_class": float(rng.uniform() < 0.3),
                "test.faircocco_eo": rng.uniform(0.0, 0.1),
            }
        )
    return rows


def _row(
    run_id: str, accuracy: float, balanced: float, fairness: float, single: float = 0.0
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "status": "ok",
        "validation.accuracy": accuracy,
        "validation.balanced_accuracy": balanced,
        "validation.single_class": single,
        "validation.faircocco_eo": fairness,
    }


def test_best_balanced_accuracy_within_tolerance() -> None:
    runs = _runs(
        [
            _row("a", 0.90, 0.80, 0.20),
            _row("b", 0.80, 0.70, 0.04),
            _row("c", 0.85, 0.75, 0.05),
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
    assert chosen["ranked_by"].tolist() == ["balanced_accuracy"]
    assert chosen["n_settings"].tolist() == [3]
    assert chosen["n_degenerate"].tolist() == [0]


def test_balanced_accuracy_ranks_not_accuracy() -> None:
    """On imbalanced data the more accurate setting can be the one that ignores the minority."""
    runs = _runs([_row("a", 0.89, 0.52, 0.01), _row("b", 0.84, 0.68, 0.02)])
    assert select_runs(runs, tolerance=0.05)["run_id"].tolist() == ["b"]


def test_accuracy_ranks_when_balanced_accuracy_is_missing() -> None:
    # a validation part with one class has no balanced accuracy; older stores have no column
    rows = [_row("a", 0.80, np.nan, 0.01), _row("b", 0.85, np.nan, 0.02)]
    for runs in (_runs(rows), _runs(rows).drop(columns="validation.balanced_accuracy")):
        chosen = select_runs(runs, tolerance=0.05)
        assert chosen["run_id"].tolist() == ["b"]
        assert chosen["ranked_by"].tolist() == ["accuracy"]


def test_a_degenerate_setting_loses_even_when_most_accurate_and_fairest() -> None:
    runs = _runs(
        [
            # predicts the majority class: accuracy = 1 - base rate, balanced accuracy 0.5
            _row("constant", 0.89, 0.50, 0.0, single=1.0),
            _row("b", 0.86, 0.66, 0.03),
            _row("c", 0.84, 0.70, 0.09),
        ]
    )
    chosen = select_runs(runs, tolerance=0.05)
    assert chosen["run_id"].tolist() == ["b"]
    assert chosen["selected_by"].tolist() == ["tolerance"]
    assert chosen["n_degenerate"].tolist() == [1]
    # it loses on accuracy too: with the balanced accuracy column gone, accuracy ranks
    without = runs.drop(columns="validation.balanced_accuracy")
    assert select_runs(without, tolerance=0.05)["run_id"].tolist() == ["b"]


def test_the_fairest_non_degenerate_setting_when_none_is_within_tolerance() -> None:
    runs = _runs(
        [
            _row("constant", 0.89, 0.50, 0.0, single=1.0),
            _row("b", 0.86, 0.66, 0.12),
            _row("c", 0.84, 0.70, 0.09),
        ]
    )
    chosen = select_runs(runs, tolerance=0.05)
    assert chosen["run_id"].tolist() == ["c"]
    assert chosen["selected_by"].tolist() == ["fairest"]


def test_a_group_of_degenerate_settings_still_selects_one() -> None:
    runs = _runs(
        [
            _row("a", 0.89, 0.50, 0.0, single=1.0),
            _row("b", 0.11, 0.50, 0.0, single=1.0),
            _row("c", 0.89, 0.50, 0.08, single=1.0),
        ]
    )
    chosen = select_runs(runs, tolerance=0.05)
    # same balanced accuracy and fairness: the tie goes to the smaller run_id
    assert chosen["run_id"].tolist() == ["a"]
    assert chosen["n_degenerate"].tolist() == chosen["n_settings"].tolist() == [3]


def test_an_almost_constant_regression_is_set_aside() -> None:
    rows = [
        {"run_id": "flat", "validation.mse": 0.20, "validation.prediction_spread": 5e-4},
        {"run_id": "b", "validation.mse": 0.30, "validation.prediction_spread": 0.8},
        # exactly at the threshold is not degenerate
        {"run_id": "c", "validation.mse": 0.25, "validation.prediction_spread": 1e-3},
    ]
    runs = _runs([{**row, "status": "ok", "validation.faircocco_eo": 0.01} for row in rows])
    chosen = select_runs(runs, tolerance=0.05)
    assert chosen["run_id"].tolist() == ["c"]
    assert chosen["ranked_by"].tolist() == ["mse"]
    assert chosen["n_degenerate"].tolist() == [1]


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
                "validation.balanced_accuracy": np.nan,
                "validation.faircocco_eo": 0.01,
            },
            {
                "run_id": "b",
                "status": "ok",
                "validation.mse": 0.3,
                "validation.accuracy": np.nan,
                "validation.balanced_accuracy": np.nan,
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
        # also extreme values: a perfect test score must not attract the choice, and a model
        # degenerate on the test part only must not repel it
        shuffled.loc[trial, "test.accuracy"] = 1.0
        shuffled.loc[trial, "test.faircocco_eo"] = 0.0
        shuffled["test.single_class"] = 1.0 - shuffled["test.single_class"]
        assert select_runs(shuffled, tolerance=0.05)["run_id"].tolist() == chosen
    # and without the test columns at all
    assert select_runs(runs.drop(columns=test_columns), tolerance=0.05)["run_id"].tolist() == (
        chosen
    )
    # whereas changing a validation column does change it
    changed = runs.copy()
    changed["validation.balanced_accuracy"] = -changed["validation.balanced_accuracy"]
    assert select_runs(changed, tolerance=0.05)["run_id"].tolist() != chosen
    flagged = runs.copy()
    flagged["validation.single_class"] = 1.0 - flagged["validation.single_class"]
    assert select_runs(flagged, tolerance=0.05)["run_id"].tolist() != chosen


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
    with pytest.raises(ValueError, match=r"no validation\.balanced_accuracy, validation\.acc"):
        select_runs(runs.assign(**{"validation.faircocco_eo": 0.01}))


def _with_network(network_score: float | None) -> pd.DataFrame:
    rows = [
        {**_row("f1", 0.90, 0.80, 0.030), "method": "faircocco"},
        {**_row("f2", 0.85, 0.75, 0.015), "method": "faircocco"},
        {**_row("f3", 0.70, 0.60, 0.005), "method": "faircocco"},
    ]
    if network_score is not None:
        rows.append({**_row("n", 0.90, 0.81, network_score), "method": "nn"})
    return _runs(rows)


def test_a_tolerance_relative_to_the_network_halves_its_score() -> None:
    runs = _with_network(0.04)
    chosen = select_runs(runs, tolerance=0.5, relative_to="nn").set_index("method")
    # half of 0.04 is 0.02: f1 (0.03) is out, f2 (0.015) is the most accurate within
    assert chosen.loc["faircocco", "run_id"] == "f2"
    assert chosen.loc["faircocco", "selected_by"] == "tolerance"
    # the network is never within half of itself: its fairest (only) run
    assert chosen.loc["nn", "selected_by"] == "fairest"
    # an absolute tolerance of 0.5 would take the most accurate setting
    assert select_runs(runs, tolerance=0.5).set_index("method").loc["faircocco", "run_id"] == "f1"


def test_a_relative_tolerance_without_the_reference_selects_the_fairest() -> None:
    # the network ran on another seed only
    runs = pd.concat([_with_network(None), _with_network(0.04).assign(seed=1)])
    chosen = select_runs(runs, tolerance=0.5, relative_to="nn").set_index(["seed", "method"])
    assert chosen.loc[(0, "faircocco"), ["run_id", "selected_by"]].tolist() == ["f3", "fairest"]
    assert chosen.loc[(1, "faircocco"), ["run_id", "selected_by"]].tolist() == ["f2", "tolerance"]


@pytest.mark.parametrize("method", ["NN", "none", "hsic"])
def test_a_tolerance_relative_to_a_method_without_runs_is_refused(method: str) -> None:
    expected = (
        f"relative_to={method!r} is not a method of the runs; expected one of ['faircocco', 'nn']"
    )
    with pytest.raises(ValueError, match=re.escape(expected)):
        select_runs(_with_network(0.04), tolerance=0.5, relative_to=method)
    with pytest.raises(TypeError, match="relative_to must be a method's name"):
        select_runs(_with_network(0.04), tolerance=0.5, relative_to=1)  # type: ignore[arg-type]


def test_a_relative_tolerance_and_the_pages_read_one_reference() -> None:
    from faircocco_plugins.bench.paper._common import network_values

    runs = pd.DataFrame(
        {
            "run_id": list("abcd"), "study": "s", "dataset": "compas", "notion": "dp",
            "seed": 0, "method": ["nn", "nn", "faircocco", "faircocco"], "status": "ok",
            "params": [{}, {}, {"lam": 1.0}, {"lam": 4.0}],
            "validation.accuracy": [0.9, 0.88, 0.86, 0.8],
            "validation.faircocco_dp": [0.08, 0.06, 0.04, 0.02],
            "validation.faircocco_adjusted": [0.08, 0.06, 0.04, 0.02],
        }
    )  # fmt: skip
    reference = network_values(runs)[("compas", "dp", 0)]
    assert reference == 0.06  # the network's lowest
    # half the network's 0.06: the λ = 4 run, not the more accurate λ = 1 at 0.04
    chosen = select_runs(runs, tolerance=0.5, relative_to="nn")
    assert chosen.set_index("method").loc["faircocco", "run_id"] == "d"
