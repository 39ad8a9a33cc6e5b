"""The literal configuration's page: both FairCOCCO arms per λ, from hand-made runs."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from faircocco_plugins.bench.paper._literal import literal_arm_table, literal_page


def _run(method: str, lam: float | None, seed: int, **test: float) -> dict[str, Any]:
    metrics = {"accuracy": 0.8, "auc": 0.9, "balanced_accuracy": 0.7}
    metrics |= {"faircocco_adjusted": 0.02, "single_class": 0.0} | test
    return {
        "dataset": "adult",
        "notion": "dp",
        "status": "ok",
        "method": method,
        "seed": seed,
        "params": {} if lam is None else {"lam": lam},
        **{f"test.{name}": value for name, value in metrics.items()},
    }


def _runs() -> pd.DataFrame:
    rows = [_run("nn", None, seed, accuracy=0.85) for seed in (0, 1)]
    # the literal arm collapses at λ = 2 on seed 1, and is near chance on both seeds
    rows += [
        _run("faircocco_paper", 2.0, 0, accuracy=0.76, auc=0.6, balanced_accuracy=0.52),
        _run("faircocco_paper", 2.0, 1, accuracy=0.75, single_class=1.0, balanced_accuracy=0.5),
    ]
    # the defaults at the literal arm's λ, with two runs (two learning rates) on seed 0, and
    # at a λ the literal arm does not have, which is left out
    rows += [
        _run("faircocco", 2.0, 0, accuracy=0.80),
        _run("faircocco", 2.0, 0, accuracy=0.84),
        _run("faircocco", 2.0, 1, accuracy=0.83),
        _run("faircocco", 50.0, 0, accuracy=0.70),
    ]
    # another dataset's runs and a failed run do not count
    rows.append(_run("faircocco", 2.0, 1, accuracy=0.1) | {"dataset": "german"})
    rows.append(_run("faircocco", 2.0, 1, accuracy=0.1) | {"status": "failed"})
    return pd.DataFrame(rows)


def test_each_arm_is_averaged_per_seed_then_over_seeds() -> None:
    table = literal_arm_table(_runs(), "adult", "dp").set_index(["method", "lam"])
    assert sorted(table.index) == [("faircocco", 2.0), ("faircocco_paper", 2.0), ("nn", 0.0)]
    # seed 0's two runs count once (0.82), then with seed 1's 0.83
    defaults = table.loc[("faircocco", 2.0)]
    assert defaults["accuracy_mean"] == pytest.approx(0.825)
    assert defaults["accuracy_std"] == pytest.approx(pd.Series([0.82, 0.83]).std())
    literal = table.loc[("faircocco_paper", 2.0)]
    assert (literal["degenerate"], literal["near_chance"], literal["seeds"]) == (1, 2, 2)
    assert (defaults["degenerate"], defaults["near_chance"]) == (0, 0)
    assert table.loc[("nn", 0.0), "accuracy_mean"] == pytest.approx(0.85)


def test_no_literal_run_gives_an_empty_table() -> None:
    runs = _runs()
    assert literal_arm_table(runs, "german", "dp").empty
    assert literal_arm_table(runs, "adult", "eo").empty


def test_page_states_where_each_arm_is_near_chance() -> None:
    text = "\n".join(literal_page(_runs()))
    assert "adult, DP\n---------" in text
    assert (
        "``faircocco_paper`` has seeds near chance at λ = 2 (2 of 2, 1 degenerate), and its "
        "lowest mean AUC is 0.750 (λ = 2); ``faircocco`` has no seed near chance at any λ"
    ) in text
    # the network's row, then the defaults', then the literal arm's
    nn, defaults, literal = (
        text.index(f"   * - {m}\n") for m in ("nn", "faircocco", "faircocco_paper")
    )
    assert nn < defaults < literal
    assert "     - 0.755 ± 0.007\n" in text  # the literal arm's accuracy
    assert "     - 1 of 2\n     - 2 of 2\n" in text


def test_page_without_the_literal_arm_says_so() -> None:
    runs = _runs()
    text = "\n".join(literal_page(runs[runs["method"] != "faircocco_paper"]))
    assert "The export holds no successful run of ``faircocco_paper``." in text
