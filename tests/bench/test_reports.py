"""The report: tables' numbers and marks, Pareto fronts, capability table, files and CLI."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from report_fixtures import (
    DATASETS,
    FAILURE,
    METHODS,
    NOT_APPLICABLE,
    NOTIONS,
    STUDY,
    Fixture,
    build_fixture_store,
)

from faircocco_plugins.bench import ResultsStore, StudyConfig, degenerate_runs, run_study
from faircocco_plugins.bench._capability_table import capability_table
from faircocco_plugins.bench._fronts import non_dominated
from faircocco_plugins.bench._plots import pareto_points, plot_pareto_fronts
from faircocco_plugins.bench._report import write_report
from faircocco_plugins.bench._results_tables import ResultsTable, results_tables, summarise_runs
from faircocco_plugins.cli import main
from faircocco_plugins.plugins import available_methods

PERFORMANCE = {"german": ("accuracy", True), "students": ("mse", False)}


@pytest.fixture(scope="module")
def fixture(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    return build_fixture_store(tmp_path_factory.mktemp("store") / "results.sqlite")


@pytest.fixture(scope="module")
def runs(fixture: Fixture) -> pd.DataFrame:
    with ResultsStore(fixture.path) as store:
        return store.runs()


@pytest.fixture(scope="module")
def tables(runs: pd.DataFrame) -> dict[str, ResultsTable]:
    return {t.notion: t for t in results_tables(summarise_runs(runs, tolerance=0.05))}


@pytest.fixture(scope="module")
def report(fixture: Fixture, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The full report of the fixture store, figures included (drawn once for the module)."""
    return write_report(fixture.path, tmp_path_factory.mktemp("report"), tolerance=0.05)


def expected(fixture: Fixture, dataset: str, notion: str, method: str, metric: str) -> Any:
    """Mean, std (ddof=1) and count over seeds, from the records the selection must choose."""
    values = np.array(
        [r.metrics[f"test.{metric}"] for r in fixture.chosen_runs(dataset, notion, method)]
    )
    if values.size == 0:
        return None
    std = float(np.std(values, ddof=1)) if values.size > 1 else float("nan")
    return float(np.mean(values)), std, values.size


def fairness_metrics(notion: str, dataset: str) -> list[str]:
    metrics = [f"faircocco_{notion}", f"faircocco_{notion}_adjusted", "deo"]
    if len(DATASETS[dataset][1]) > 1:
        for attribute in DATASETS[dataset][1]:
            metrics += [f"faircocco_{notion}[{attribute}]", f"deo[{attribute}]"]
    return metrics


# --- summary and tables ---------------------------------------------------------------------


def test_summary_matches_independent_mean_and_std(fixture: Fixture, runs: pd.DataFrame) -> None:
    summary = summarise_runs(runs, tolerance=0.05)
    checked = 0
    for dataset in DATASETS:
        for notion in NOTIONS:
            for method in METHODS:
                metrics = [PERFORMANCE[dataset][0], *fairness_metrics(notion, dataset)]
                for metric in metrics:
                    want = expected(fixture, dataset, notion, method, metric)
                    row = summary[
                        (summary["dataset"] == dataset)
                        & (summary["notion"] == notion)
                        & (summary["method"] == method)
                        & (summary["metric"] == metric)
                    ]
                    assert len(row) == 1, (dataset, notion, method, metric)
                    if want is None:
                        assert row["count"].iloc[0] == 0
                        assert np.isnan(row["mean"].iloc[0])
                        continue
                    mean, std, count = want
                    assert row["mean"].iloc[0] == pytest.approx(mean, abs=1e-12)
                    assert row["std"].iloc[0] == pytest.approx(std, abs=1e-12)
                    assert row["count"].iloc[0] == count
                    checked += 1
    assert checked > 100


def test_summary_counts_seeds_and_statuses(runs: pd.DataFrame) -> None:
    summary = (
        summarise_runs(runs, tolerance=0.05)
        .drop_duplicates(["dataset", "notion", "method"])
        .set_index(["dataset", "notion", "method"])
    )
    facl = summary.loc[("german", "eo", "facl")]
    assert (facl["seeds"], facl["seeds_ok"], facl["status"]) == (3, 2, "ok")
    assert FAILURE in facl["reason"]
    farmi = summary.loc[("german", "eo", "farmi")]
    assert (farmi["seeds_ok"], farmi["status"], farmi["reason"]) == (0, "failed", FAILURE)
    linear = summary.loc[("students", "dp", "linear_loss")]
    assert (linear["status"], linear["reason"]) == ("not_applicable", NOT_APPLICABLE)
    assert summary.loc[("german", "eo", "nn"), "seeds_fairest"] == 3
    assert summary.loc[("german", "dp", "nn"), "seeds_fairest"] == 0


def test_table_cells_show_mean_and_std(fixture: Fixture, tables: dict[str, ResultsTable]) -> None:
    for notion, table in tables.items():
        assert table.methods == ("nn", "facl", "farmi", "linear_loss", "faircocco")
        for dataset in DATASETS:
            for metric in [PERFORMANCE[dataset][0], *fairness_metrics(notion, dataset)]:
                for method in table.methods:
                    want = expected(fixture, dataset, notion, method, metric)
                    if want is None:
                        continue
                    mean, std, _ = want
                    cell = table.cell(dataset, metric, method)
                    assert cell.text == f"{mean:.3f} ± {std:.3f}"


def test_best_cell_of_each_row_is_bold(fixture: Fixture, tables: dict[str, ResultsTable]) -> None:
    for notion, table in tables.items():
        # by the fixture's design: nn is the most accurate, faircocco the fairest
        accuracy = [m for m in table.methods if table.cell("german", "accuracy", m).bold]
        assert accuracy == ["nn"]
        for dataset in DATASETS:
            joint = [m for m in table.methods if table.cell(dataset, f"faircocco_{notion}", m).bold]
            assert joint == ["faircocco"]
            performance, higher = PERFORMANCE[dataset]
            rows = [(performance, higher)] + [(m, False) for m in fairness_metrics(notion, dataset)]
            if notion == "dp":
                rows.append(("di", True))
            for metric, higher in rows:
                shown = {}
                for method in table.methods:
                    want = expected(fixture, dataset, notion, method, metric)
                    if want is not None:
                        shown[method] = round(want[0], 3)
                best = max(shown.values()) if higher else min(shown.values())
                bold = {m for m in table.methods if table.cell(dataset, metric, m).bold}
                assert bold == {m for m, v in shown.items() if v == best}, (notion, dataset, metric)
            assert not any(table.cell(dataset, "seeds", m).bold for m in table.methods)


def test_single_seed_and_single_method_rows(runs: pd.DataFrame) -> None:
    """One seed shows the mean alone; a row with one value has nothing to compare: no bold."""
    one = runs[(runs["seed"] == 0) & (runs["method"] == "faircocco")]
    table = results_tables(summarise_runs(one, tolerance=0.05))[0]
    cell = table.cell("german", "accuracy", "faircocco")
    assert re.fullmatch(r"0\.\d{3}", cell.text)
    assert not cell.bold
    assert table.cell("german", "seeds", "faircocco").text == "1"


def test_not_applicable_and_failed_cells_have_footnoted_reasons(
    tables: dict[str, ResultsTable],
) -> None:
    for table in tables.values():
        na = table.cell("students", "mse", "linear_loss")
        assert na.text == "n/a"
        assert [table.footnotes[n - 1] for n in na.notes] == [
            f"linear_loss is not applicable: {NOT_APPLICABLE}"
        ]
        assert table.cell("students", "deo", "linear_loss").text == "n/a"
        assert table.cell("students", "seeds", "linear_loss").text == "n/a"
        partial = table.cell("german", "seeds", "facl")
        assert partial.text == "2 of 3"
        assert [table.footnotes[n - 1] for n in partial.notes] == [f"facl failed: {FAILURE}"]
    failed = tables["eo"].cell("german", "accuracy", "farmi")
    assert failed.text == "failed"
    assert tables["eo"].footnotes[failed.notes[0] - 1] == f"farmi failed: {FAILURE}"
    assert tables["eo"].cell("german", "seeds", "farmi").text == "0 of 3"
    assert tables["dp"].cell("german", "accuracy", "farmi").text != "failed"
    fairest = tables["eo"].cell("german", "seeds", "nn")
    assert "fairest setting was selected" in tables["eo"].footnotes[fairest.notes[0] - 1]
    assert not tables["dp"].cell("german", "seeds", "nn").notes


def test_markdown_and_html_show_bold_and_notes(tables: dict[str, ResultsTable]) -> None:
    table = tables["eo"]
    markdown = table.markdown()
    row = next(line for line in markdown.splitlines() if line.startswith("| **german** | ACC |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == f"**{table.cell('german', 'accuracy', 'nn').text}**"
    assert cells[4].startswith("failed[^eo-")
    assert f"linear_loss is not applicable: {NOT_APPLICABLE}" in markdown
    bold_cells = sum(c.bold for block in table.blocks for r in block.rows for c in r.cells)
    assert markdown.count("**") // 2 == bold_cells + len(table.blocks)  # + dataset names

    fragment = table.html()
    assert fragment.count("<strong>") == bold_cells
    parser = _Collector()
    parser.feed(fragment)
    assert f"farmi failed: {FAILURE}" in parser.text
    note_ids = set(re.findall(r'<li id="([^"]+)">', fragment))
    assert set(re.findall(r'href="#([^"]+)"', fragment)) <= note_ids
    assert len(note_ids) == len(table.footnotes)


# --- Pareto fronts ----------------------------------------------------------------------------


def test_non_dominated_on_a_hand_made_example() -> None:
    fairness = [0.10, 0.20, 0.05, 0.30, 0.20, 0.05, np.nan, 0.40]
    accuracy = [0.80, 0.85, 0.70, 0.84, 0.85, 0.60, 0.99, 0.90]
    # 0: best at 0.10; 1 and 4 tie (both kept); 2: fairest; 3 beaten by 1; 5 beaten by 2;
    # 6 has no fairness value; 7: the most accurate
    front = non_dominated(fairness, accuracy, maximise_y=True)
    assert front.tolist() == [True, True, True, False, True, False, False, True]
    mse = [0.30, 0.25, 0.40, 0.20]
    assert non_dominated([0.1, 0.2, 0.05, 0.3], mse, maximise_y=False).tolist() == [
        True,
        True,
        True,
        True,
    ]
    assert non_dominated([0.1, 0.2], [0.3, 0.4], maximise_y=False).tolist() == [True, False]
    with pytest.raises(ValueError, match="same length"):
        non_dominated([0.1], [0.2, 0.3], maximise_y=True)


def test_pareto_points_follow_the_sweep_with_validation_best_settings(
    fixture: Fixture, runs: pd.DataFrame
) -> None:
    sweeps = {"facl": "lam", "faircocco": "lam", "nn": None}
    points = pareto_points(runs, dataset="german", notion="eo", sweep_params=sweeps)
    assert set(points["method"]) == {"nn", "facl", "faircocco", "linear_loss"}
    facl = points[points["method"] == "facl"]
    assert facl["sweep_value"].tolist() == [0.5, 2.0]
    # the faster learning rate validates better at every lam
    assert [p["lr"] for p in facl["params"]] == [0.01, 0.01]
    for _, point in facl.iterrows():
        records = [
            r
            for r in fixture.records
            if (r.dataset, r.notion, r.method, r.status) == ("german", "eo", "facl", "ok")
            and r.params == point["params"]
        ]
        fairness = [r.metrics["test.faircocco_eo"] for r in records]
        accuracy = [r.metrics["test.accuracy"] for r in records]
        assert point["seeds"] == len(records) == 2
        assert point["fairness_mean"] == pytest.approx(np.mean(fairness))
        assert point["fairness_std"] == pytest.approx(np.std(fairness, ddof=1))
        assert point["performance_mean"] == pytest.approx(np.mean(accuracy))
    nn = points[points["method"] == "nn"]
    assert len(nn) == 1 and nn["sweep_param"].iloc[0] is None
    # linear_loss is not in the mapping and two of its parameters vary: no sweep is inferred
    assert points.loc[points["method"] == "linear_loss", "sweep_param"].isna().all()
    want = non_dominated(points["fairness_mean"], points["performance_mean"], maximise_y=True)
    assert points["on_front"].tolist() == want.tolist()
    assert points.loc[points["method"] == "nn", "on_front"].item()  # the most accurate


def test_pareto_points_infer_the_one_varying_parameter(runs: pd.DataFrame) -> None:
    facl = runs[(runs["method"] == "facl") & runs["params"].map(lambda p: p.get("lr") == 0.01)]
    points = pareto_points(facl, dataset="students", notion="dp")
    assert points["sweep_param"].tolist() == ["lam", "lam"]
    assert points["sweep_value"].tolist() == [0.5, 2.0]


# --- files and command line -------------------------------------------------------------------


def test_report_writes_tables_figures_and_index(report: Path) -> None:
    for notion in NOTIONS:
        for suffix in ("md", "html"):
            assert (report / f"results-{notion}.{suffix}").is_file()
    for name in ("README.md", "index.html", "capabilities.md", "capabilities.html"):
        assert (report / name).is_file()
    selected = pd.read_csv(report / "selected-runs.csv")
    assert len(selected) == len(DATASETS) * len(NOTIONS) * len(METHODS) * 3
    for dataset in DATASETS:
        for notion in NOTIONS:
            png = report / "pareto" / f"{dataset}-{notion}.png"
            svg = report / "pareto" / f"{dataset}-{notion}.svg"
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert "<svg" in svg.read_text(encoding="utf-8")
    readme = (report / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)]+)\)", readme):
        assert (report / target).is_file(), target
    index = (report / "index.html").read_text(encoding="utf-8")
    for target in re.findall(r'(?:href|src)="([^"#]+)"', index):
        assert (report / target).is_file(), target
    for fact in ("0123abc", "3.11.test", '"seeds"', "at most 0.05"):
        assert fact in readme
        assert fact.replace('"', "&quot;") in index


def test_svg_figures_are_reproducible(fixture: Fixture, report: Path, tmp_path: Path) -> None:
    again = write_report(fixture.path, tmp_path, tolerance=0.05, formats=("md",))
    for name in ("german-eo.svg", "students-dp.svg"):
        assert (again / "pareto" / name).read_bytes() == (report / "pareto" / name).read_bytes()
    assert not (again / "index.html").exists()


def test_capability_table_matches_declared_capabilities() -> None:
    pytest.importorskip("faircocco_torch")
    methods = available_methods()
    assert {"nn", "faircocco", "facl", "farmi", "hsic"} <= set(methods)
    table = capability_table(methods)
    assert list(table.index) == list(methods)
    for name, spec in methods.items():
        caps = spec.capabilities
        row = table.loc[name]
        for column, supported in [
            ("DP", "dp" in caps.notions),
            ("EO", "eo" in caps.notions),
            ("CAL", "cal" in caps.notions),
            ("binary", "binary" in caps.attributes),
            ("categorical", "categorical" in caps.attributes),
            ("continuous", "continuous" in caps.attributes),
            ("regression", "regression" in caps.tasks),
            ("needs gradients", caps.needs_gradients),
        ]:
            assert row[column] == ("✓" if supported else "✗"), (name, column)
        several = {"joint": "✓ joint", "sum": "✓ sum", "single": "✗"}
        assert row["several attributes"] == several[caps.multiple_attributes]
        assert caps.note in row["notes"]
        at_prediction = "needs the attributes at prediction" in row["notes"]
        assert at_prediction == caps.attributes_at_prediction, name
    # the paper's Table 2: FACL supports no CAL and sums per attribute; FairCOCCO does it all
    assert table.loc["facl", "CAL"] == "✗"
    assert (table.loc["faircocco"].drop("notes") != "✗").all()


def test_report_command_end_to_end(
    fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    status = main(
        [
            "report",
            str(fixture.path),
            "--out",
            str(out),
            "--formats",
            "md",
            "--no-plots",
            "--study",
            STUDY,
            "--tolerance",
            "0.05",
        ]
    )
    assert status == 0
    assert str(out / "README.md") in capsys.readouterr().out
    assert (out / "results-eo.md").is_file() and (out / "capabilities.md").is_file()
    assert not (out / "index.html").exists() and not (out / "pareto").exists()
    assert main(["report", str(fixture.path), "--out", str(out), "--study", "nope"]) == 2
    error = capsys.readouterr().err
    assert "no runs of study 'nope'" in error and STUDY in error
    assert main(["report", str(tmp_path / "missing.sqlite"), "--out", str(out)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "missing.sqlite").exists()
    assert main(["report", str(fixture.path), "--out", str(out), "--formats", "pdf"]) == 2


def test_several_studies_get_a_folder_each(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    build_fixture_store(path, study="first", seed=1)
    build_fixture_store(path, study="second run", seed=2)
    out = write_report(path, tmp_path / "report", plots=False)
    assert (out / "first" / "results-dp.md").is_file()
    assert (out / "second_run" / "index.html").is_file()
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "(first/README.md)" in readme and "(second_run/README.md)" in readme


def test_a_study_named_dot_dot_is_written_inside_the_report_folder(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    build_fixture_store(path, study="..", seed=1)
    build_fixture_store(path, study="first", seed=2)
    parent = tmp_path / "project"
    parent.mkdir()
    (parent / "README.md").write_text("my project\n", encoding="utf-8")
    out = write_report(path, parent / "report", formats=("md",), plots=False)
    assert (parent / "README.md").read_text(encoding="utf-8") == "my project\n"
    assert sorted(p.name for p in parent.iterdir()) == ["README.md", "report"]
    assert (out / "__" / "results-dp.md").is_file()
    assert "(__/README.md)" in (out / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("other", ["a_b", "A B"])
def test_studies_that_would_share_a_folder_are_refused(tmp_path: Path, other: str) -> None:
    path = tmp_path / "results.sqlite"
    build_fixture_store(path, study="a b", seed=1)
    build_fixture_store(path, study=other, seed=2)
    with pytest.raises(ValueError, match="same file name") as refused:
        write_report(path, tmp_path / "report", plots=False)
    assert "'a b'" in str(refused.value) and f"'{other}'" in str(refused.value)
    assert not (tmp_path / "report").exists()


def test_datasets_that_would_share_a_figure_are_refused(runs: pd.DataFrame, tmp_path: Path):
    pytest.importorskip("matplotlib")
    renamed = runs.assign(dataset=runs["dataset"].replace({"german": "a b", "students": "a_b"}))
    with pytest.raises(ValueError, match=r"datasets 'a b' and 'a_b' .* same file name"):
        plot_pareto_fronts(renamed, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_report_never_overwrites_files_it_did_not_write(
    fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "README.md").write_text("my project\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not an earlier report"):
        write_report(fixture.path, tmp_path, plots=False)
    assert [p.name for p in tmp_path.iterdir()] == ["README.md"]
    arguments = ["report", str(fixture.path), "--out", str(tmp_path), "--no-plots"]
    assert main(arguments) == 2
    assert "README.md" in capsys.readouterr().err
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == "my project\n"
    # an earlier report, in either format, is replaced
    for formats in ("md", "html"):
        out = tmp_path / formats
        write_report(fixture.path, out, formats=(formats,), plots=False)
        assert main(["report", str(fixture.path), "--out", str(out), "--no-plots"]) == 0
        assert (out / "README.md").is_file() and (out / "index.html").is_file()


def test_report_of_a_real_study(
    bench_methods: dict[str, Any], bench_loader: Any, tmp_path: Path
) -> None:
    """The runner's own store, from a tiny study with fast linear methods."""
    config = StudyConfig(
        name="tiny",
        datasets=("tiny", "tiny_regression"),
        notions=("dp",),
        seeds=(0, 1),
        grid="full",
    )
    store = tmp_path / "results.sqlite"
    run_study(config, store, methods=bench_methods, loader=bench_loader)
    out = tmp_path / "report"
    assert main(["report", str(store), "--out", str(out), "--no-plots", "--tolerance", "1"]) == 0
    with ResultsStore(store) as results:
        runs = results.runs("tiny")
    table = results_tables(summarise_runs(runs, tolerance=1.0))[0]
    assert table.cell("tiny_regression", "mse", "narrow").text == "n/a"
    assert table.cell("tiny", "accuracy", "failing").text == "failed"
    ok = runs[(runs["status"] == "ok") & (runs["dataset"] == "tiny") & (runs["method"] == "linear")]
    # tolerance 1: every non-degenerate setting qualifies, so each seed keeps the one with the
    # best validation balanced accuracy (ties: the fairer)
    usable = ok[~degenerate_runs(ok, "validation")].sort_values(
        ["seed", "validation.balanced_accuracy", "validation.faircocco_dp"],
        ascending=[True, False, True],
    )
    best = usable.groupby("seed").head(1)["test.accuracy"]
    assert len(best) == 2
    assert table.cell("tiny", "accuracy", "linear").text == (
        f"{best.mean():.3f} ± {best.std(ddof=1):.3f}"
    )
    markdown = (out / "results-dp.md").read_text(encoding="utf-8")
    assert "narrow is not applicable: narrow does not support" in markdown
    # the runner stores the outcome's variance, which regression fronts need; without the
    # unpenalised network (nn) to set the reference point, the study has no hypervolumes
    fitted = runs[(runs["status"] == "ok") & (runs["dataset"] == "tiny_regression")]
    assert fitted["test.outcome_variance"].notna().all()
    hypervolumes = pd.read_csv(out / "hypervolumes.csv")
    assert hypervolumes[["adjusted_mean", "deo_mean"]].isna().all().all()


def test_bad_input_is_reported_clearly(
    fixture: Fixture, runs: pd.DataFrame, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="formats"):
        write_report(runs, tmp_path, formats=("pdf",))
    with pytest.raises(TypeError, match="store_or_runs"):
        write_report(42, tmp_path)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no runs"):
        write_report(runs.iloc[:0], tmp_path)
    summary = summarise_runs(runs)
    summary.loc[summary.index[0], "study"] = "other"
    with pytest.raises(ValueError, match="several studies"):
        results_tables(summary)
    with pytest.raises(ValueError, match="missing the columns"):
        summarise_runs(runs.drop(columns=["seed"]))


def test_index_facts_escape_a_pipe_once(runs: pd.DataFrame, tmp_path: Path) -> None:
    # a name with a pipe stays in its cell, and reads as itself once rendered
    renamed = runs.assign(dataset=runs["dataset"].replace("german", "ger|man"))
    write_report(renamed, tmp_path, formats=("md",), plots=False)
    facts = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "| datasets | students, ger\\|man |" in facts.splitlines()


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text = ""

    def handle_data(self, data: str) -> None:
        self.text += data
