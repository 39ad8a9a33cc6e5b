"""Degenerate models in the report: never selected when avoidable, marked, never bold, counted."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from degenerate_fixtures import (
    BASE_RATES,
    CHOSEN,
    N_TEST,
    STUDY,
    WEAK_STUDY,
    build_degenerate_store,
    build_weak_store,
)

from faircocco_plugins.bench import (
    ResultsStore,
    degenerate_table,
    pareto_points,
    plot_pareto,
    plot_pareto_fronts,
    results_tables,
    select_runs,
    summarise_runs,
    write_report,
)
from faircocco_plugins.bench._results_tables import ResultsTable

LABELS = {"compas": "violent re-offence", "students": "final grade"}
METHODS = ("nn", "facl", "constant", "faircocco")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    path = tmp_path_factory.mktemp("store") / "results.sqlite"
    build_degenerate_store(path)
    with ResultsStore(path) as store:
        return store.runs(STUDY)


@pytest.fixture(scope="module")
def table(runs: pd.DataFrame) -> ResultsTable:
    (only,) = results_tables(summarise_runs(runs), methods=METHODS, labels=LABELS)
    return only


def test_selection_avoids_degenerate_settings_when_it_can(runs: pd.DataFrame) -> None:
    selected = select_runs(runs).set_index(["dataset", "method", "seed"])
    for (dataset, method), params in CHOSEN.items():
        for seed in (0, 1):
            row = selected.loc[(dataset, method, seed)]
            assert row["params"] == params, (dataset, method, seed)
            all_degenerate = method == "constant"
            assert (row["n_degenerate"] == row["n_settings"]) == all_degenerate
    assert selected.loc[("compas", "nn", 0), "n_degenerate"] == 1
    assert selected.loc[("compas", "nn", 0), "ranked_by"] == "balanced_accuracy"
    assert selected.loc[("students", "nn", 0), "ranked_by"] == "mse"


def test_summary_counts_degenerate_seeds_and_test_rows(runs: pd.DataFrame) -> None:
    summary = summarise_runs(runs).drop_duplicates(["dataset", "method"])
    facts = summary.set_index(["dataset", "method"])
    expected = {
        # (seeds degenerate on test, seeds with every setting degenerate on validation)
        ("compas", "nn"): (0, 0),
        ("compas", "facl"): (1, 0),
        ("compas", "constant"): (2, 2),
        ("compas", "faircocco"): (0, 0),
        ("students", "constant"): (2, 2),
        ("students", "nn"): (0, 0),
    }
    for key, (degenerate, alone) in expected.items():
        assert facts.loc[key, "seeds_degenerate"] == degenerate, key
        assert facts.loc[key, "seeds_all_degenerate"] == alone, key
        assert facts.loc[key, "n_rows"] == N_TEST[key[0]]


def test_degenerate_cells_are_marked_and_never_bold(table: ResultsTable) -> None:
    marked = {"compas": {"facl", "constant"}, "students": {"constant"}}
    for block in table.blocks:
        for row in block.rows:
            for method, cell in zip(table.methods, row.cells, strict=True):
                if cell.text == "—":
                    continue  # facl has no students runs
                assert cell.degenerate == (method in marked[block.dataset]), (row.metric, method)
                assert not (cell.degenerate and cell.bold)
    # the degenerate models have the best raw values; bold goes to the best of the others
    assert table.cell("compas", "accuracy", "constant").text == "0.888 ± 0.001"
    bold = {
        (block.dataset, row.metric): [
            m for m, c in zip(table.methods, row.cells, strict=True) if c.bold
        ]
        for block in table.blocks
        for row in block.rows
    }
    assert bold[("compas", "accuracy")] == ["nn"]
    assert bold[("compas", "balanced_accuracy")] == ["faircocco"]
    assert bold[("compas", "auc")] == ["faircocco"]
    assert bold[("compas", "faircocco_eo")] == ["faircocco"]
    assert bold[("compas", "deo")] == ["faircocco"]
    assert bold[("students", "mse")] == ["nn"]
    assert bold[("students", "faircocco_eo")] == ["faircocco"]
    assert bold[("compas", "seeds")] == []


def test_balanced_accuracy_and_auc_rows_beside_accuracy(table: ResultsTable) -> None:
    compas = next(b for b in table.blocks if b.dataset == "compas")
    assert [r.label for r in compas.rows[:3]] == ["ACC", "BACC", "AUC"]
    # faircocco lam=1.0: 0.70 and 0.75 on seed 0, +0.01 on seed 1
    assert table.cell("compas", "balanced_accuracy", "faircocco").text == "0.705 ± 0.007"
    assert table.cell("compas", "auc", "faircocco").text == "0.755 ± 0.007"
    # facl: 0.60 on seed 0, then one class on seed 1 (0.5)
    assert table.cell("compas", "balanced_accuracy", "facl").text == "0.550 ± 0.071"
    students = next(b for b in table.blocks if b.dataset == "students")
    assert students.rows[0].label == "MSE"
    assert "BACC" not in [r.label for r in students.rows]


def test_footnotes_say_how_many_seeds_are_degenerate(table: ResultsTable) -> None:
    def notes(dataset: str, method: str) -> list[str]:
        cell = table.cell(dataset, "seeds", method)
        return [table.footnotes[n - 1] for n in cell.notes]

    assert notes("compas", "facl") == [
        "facl †: on 1 of 2 seeds the selected model predicts a single class on the test part."
    ]
    assert notes("compas", "constant") == [
        "constant †: on 2 of 2 seeds the selected model predicts a single class on the test part.",
        "constant: on 2 of 2 seeds every setting was degenerate on the validation part, so a "
        "degenerate one was selected.",
    ]
    assert notes("students", "constant")[0] == (
        "constant †: on 2 of 2 seeds the selected model is no better than the mean (R² at "
        "most 0.01, or an almost constant prediction) on the test part."
    )
    assert notes("compas", "nn") == []
    assert table.cell("compas", "seeds", "constant").degenerate
    assert "†: a degenerate model" in table.caption


def test_blocks_state_label_base_rate_and_test_rows(
    runs: pd.DataFrame, table: ResultsTable
) -> None:
    facts = {block.dataset: block.facts for block in table.blocks}
    base_rate = float(np.mean(BASE_RATES))
    assert facts["compas"] == (
        "label: violent re-offence",
        f"base rate {base_rate:.3f}",
        "N = 1235 test rows",
    )
    assert facts["students"] == ("label: final grade", "N = 130 test rows")
    # without labels, the registry's
    (default,) = results_tables(summarise_runs(runs))
    compas = next(b for b in default.blocks if b.dataset == "compas")
    assert "is_violent_recid" in compas.facts[0]
    with pytest.raises(TypeError, match="labels must be a mapping"):
        results_tables(summarise_runs(runs), labels=["compas"])  # type: ignore[arg-type]


def test_markdown_and_html_carry_the_mark(table: ResultsTable) -> None:
    markdown = table.markdown()
    lines = markdown.splitlines()
    acc = next(line for line in lines if line.startswith("| **compas** | ACC |"))
    cells = [c.strip() for c in acc.strip("|").split("|")]
    # columns: dataset, metric, nn, facl, constant, faircocco
    assert cells[2] == "**0.865 ± 0.007**"
    assert cells[3] == "0.879 ± 0.012 †"
    assert cells[4] == "0.888 ± 0.001 †"
    # the facts fill the dataset column under the name, one per row
    rows = [line.split("|")[1].strip() for line in lines if "| BACC |" in line or "| AUC |" in line]
    assert rows == ["label: violent re-offence", "base rate 0.112"]
    fragment = table.html()
    marks = fragment.count('<span class="degenerate" title="degenerate model">†</span>')
    marked = sum(c.degenerate for b in table.blocks for r in b.rows for c in r.cells)
    assert marks == marked > 0
    assert "label: violent re-offence; base rate 0.112; N = 1235 test rows" in fragment


def test_degenerate_table_counts_per_method(runs: pd.DataFrame) -> None:
    counts = degenerate_table(runs)
    # the tables' column order: nn, the others by name, faircocco last
    assert list(counts.index) == ["nn", "constant", "facl", "faircocco"]
    assert counts.to_dict("index") == {
        # compas: 2 settings × 2 seeds; students: 1 setting × 2 seeds
        "nn": {
            "selected": 4,
            "selected_degenerate": 0,
            "no_alternative": 0,
            "runs": 6,
            "runs_degenerate": 2,
        },
        "facl": {
            "selected": 2,
            "selected_degenerate": 1,
            "no_alternative": 0,
            "runs": 4,
            "runs_degenerate": 3,
        },
        "constant": {
            "selected": 4,
            "selected_degenerate": 4,
            "no_alternative": 4,
            "runs": 6,
            "runs_degenerate": 6,
        },
        "faircocco": {
            "selected": 4,
            "selected_degenerate": 0,
            "no_alternative": 0,
            "runs": 6,
            "runs_degenerate": 0,
        },
    }


def test_pareto_points_count_degenerate_seeds_and_figures_show_them(
    runs: pd.DataFrame, tmp_path: Path
) -> None:
    points = pareto_points(runs, dataset="compas", notion="eo")
    degenerate = {
        (row.method, repr(row.sweep_value)): int(row.degenerate_seeds)
        for row in points.itertuples()
    }
    assert degenerate == {
        ("nn", "0.01"): 0,
        ("nn", "0.1"): 2,
        ("facl", "0.5"): 1,
        ("facl", "5.0"): 2,
        ("constant", "0.01"): 2,
        ("constant", "0.1"): 2,
        ("faircocco", "1.0"): 0,
        ("faircocco", "5.0"): 0,
    }
    legend = "degenerate on some seed"
    (svg,) = plot_pareto(
        points,
        tmp_path / "all",
        title="compas",
        notion="eo",
        performance="accuracy",
        formats=("svg",),
    )
    assert legend in svg.read_text(encoding="utf-8")
    clean = points[points["method"] == "faircocco"]
    (svg,) = plot_pareto(
        clean,
        tmp_path / "clean",
        title="compas",
        notion="eo",
        performance="accuracy",
        formats=("svg",),
    )
    assert legend not in svg.read_text(encoding="utf-8")


def test_report_index_counts_and_csv(runs: pd.DataFrame, tmp_path: Path) -> None:
    out = write_report(runs, tmp_path / "report", plots=False)
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "## Degenerate models" in readme
    assert "| constant | 4 of 4 | 4 of 4 | 6 of 6 |" in readme
    assert "| facl | 1 of 2 | 0 of 2 | 3 of 4 |" in readme
    assert "balanced accuracy" in readme
    assert "is at most 0.01" in readme and "never on the front" in readme
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "<h2>Degenerate models</h2>" in index
    selected = pd.read_csv(out / "selected-runs.csv")
    assert {"ranked_by", "n_degenerate"} <= set(selected.columns)
    constant = selected[selected["method"] == "constant"]
    assert (constant["n_degenerate"] == constant["n_settings"]).all()
    assert (out / "results-eo.md").read_text(encoding="utf-8").count("†") > 0


# --- models that predict little -------------------------------------------------------------

WEAK_METHODS = ("nn", "facl", "hsic", "faircocco")


@pytest.fixture(scope="module")
def weak_runs(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    path = tmp_path_factory.mktemp("weak") / "results.sqlite"
    build_weak_store(path)
    with ResultsStore(path) as store:
        return store.runs(WEAK_STUDY)


@pytest.fixture(scope="module")
def weak_table(weak_runs: pd.DataFrame) -> ResultsTable:
    (only,) = results_tables(summarise_runs(weak_runs), methods=WEAK_METHODS, labels={})
    return only


def _bold(table: ResultsTable, dataset: str) -> dict[str, list[str]]:
    block = next(b for b in table.blocks if b.dataset == dataset)
    return {
        row.metric: [m for m, c in zip(table.methods, row.cells, strict=True) if c.bold]
        for row in block.rows
    }


def test_regression_no_better_than_the_mean_is_marked_and_never_bold(
    weak_table: ResultsTable,
) -> None:
    # facl: R² = 1 − 1.014 / 1 = −0.014 with a prediction spread of 0.05, and the lowest score
    bold = _bold(weak_table, "communities")
    assert bold["faircocco_dp"] == bold["faircocco_dp_adjusted"] == ["faircocco"]
    for metric in ("mse", "faircocco_dp", "deo", "di", "seeds", "r2"):
        assert weak_table.cell("communities", metric, "facl").degenerate, metric
        assert not weak_table.cell("communities", metric, "nn").degenerate, metric
    assert bold["mse"] == bold["r2"] == ["nn"]
    assert weak_table.cell("communities", "r2", "facl").text == "-0.014 ± 0.000"
    assert weak_table.cell("communities", "r2", "nn").text == "0.580 ± 0.000"
    block = next(b for b in weak_table.blocks if b.dataset == "communities")
    assert [r.label for r in block.rows[:3]] == ["MSE", "R²", "FairCOCCO"]
    note = weak_table.footnotes[weak_table.cell("communities", "seeds", "facl").notes[0] - 1]
    assert note.startswith("facl †: on 2 of 2 seeds the selected model is no better than the mean")
    assert "R² at most 0.01" in weak_table.caption


def test_selection_sets_aside_settings_no_better_than_the_mean(weak_runs: pd.DataFrame) -> None:
    selected = select_runs(weak_runs).set_index(["dataset", "method", "seed"])
    # hsic lam=5.0 (validation R² 0.005) is the only setting within the tolerance
    for seed in (0, 1):
        row = selected.loc[("communities", "hsic", seed)]
        assert row["params"] == {"lam": 0.5}
        assert (row["selected_by"], row["n_degenerate"]) == ("fairest", 1)
    facl = selected.loc[("communities", "facl", 0)]
    assert facl["n_degenerate"] == facl["n_settings"] == 1


def test_near_chance_blocks_say_so_and_bold_no_fairness_cell(weak_table: ResultsTable) -> None:
    compas = next(b for b in weak_table.blocks if b.dataset == "compas")
    assert compas.near_chance
    assert compas.facts[-1] == (
        "near chance: every method's BACC or AUC is below 0.55, so the fairness rows are not ranked"
    )
    bold = _bold(weak_table, "compas")
    assert bold["accuracy"] == ["nn", "faircocco"]
    assert bold["balanced_accuracy"] == ["facl"]
    assert bold["auc"] == ["nn"]
    for metric in ("faircocco_dp", "faircocco_dp_adjusted", "deo", "di"):
        assert bold[metric] == [], metric
    assert "near chance" in weak_table.caption
    assert "near chance: every method" in weak_table.markdown()
    # one method well above chance is enough for the fairness rows to be ranked
    german = next(b for b in weak_table.blocks if b.dataset == "german")
    assert not german.near_chance
    assert _bold(weak_table, "german")["faircocco_dp"] == ["facl"]
    assert not next(b for b in weak_table.blocks if b.dataset == "communities").near_chance


def test_degenerate_points_are_never_on_the_front(runs: pd.DataFrame) -> None:
    points = pareto_points(runs, dataset="compas", notion="eo")
    front = {(row.method, repr(row.sweep_value)) for row in points.itertuples() if row.on_front}
    # the one-class settings (accuracy 0.888 at a score of 0) would dominate every other point
    assert front == {("nn", "0.01"), ("faircocco", "1.0"), ("faircocco", "5.0")}
    assert (points.loc[points["on_front"], "degenerate_seeds"] == 0).all()


def test_pareto_points_set_aside_settings_degenerate_on_validation(runs: pd.DataFrame) -> None:
    # without a sweep, nn is one point: lr=0.1 predicts one class with the best validation
    # accuracy (0.89 against 0.86), and the selection takes lr=0.01
    sweeps = {"nn": None, "facl": "lam", "constant": None, "faircocco": "lam"}
    points = pareto_points(runs, dataset="compas", notion="eo", sweep_params=sweeps)
    nn = points[points["method"] == "nn"].iloc[0]
    assert (nn["params"], nn["degenerate_seeds"]) == ({"lr": 0.01}, 0)
    assert nn["performance_mean"] == pytest.approx(0.865)
    # with every setting degenerate, one is still drawn
    constant = points[points["method"] == "constant"].iloc[0]
    assert constant["degenerate_seeds"] == 2


def test_accuracy_figures_draw_the_majority_rate(runs: pd.DataFrame, tmp_path: Path) -> None:
    files = plot_pareto_fronts(runs, tmp_path / "pareto", formats=("svg",))
    compas = files[("compas", "eo")][0].read_text(encoding="utf-8")
    # the larger of the base rate and one minus it, 0.889 and 0.887 on the two seeds
    assert "majority rate 0.888" in compas
    students = files[("students", "eo")][0].read_text(encoding="utf-8")
    assert "majority rate" not in students
