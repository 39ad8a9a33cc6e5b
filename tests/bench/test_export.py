"""The study export: its columns, its values against the store, and a lossless import."""

from __future__ import annotations

import gzip
import json
import math
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from report_fixtures import build_fixture_store

from faircocco_plugins.bench import ResultsStore, _export
from faircocco_plugins.bench._export import (
    KEY_COLUMNS,
    MAIN_METRICS,
    export_runs,
    import_export,
    read_export,
    write_export,
)
from faircocco_plugins.bench._study import run_id
from faircocco_plugins.cli import main

SWEEPS = {"faircocco": "lam", "facl": "lam", "farmi": "lam", "nn": None, "linear_loss": None}


def test_export_has_one_row_per_run_and_part_with_the_named_columns(tmp_path: Path) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    with ResultsStore(fixture.path) as store:
        runs = store.runs()
    frame = export_runs(runs, sweep_params=SWEEPS)
    assert list(frame.columns[: len(KEY_COLUMNS) + len(MAIN_METRICS)]) == [
        *KEY_COLUMNS,
        *MAIN_METRICS,
    ]
    assert len(frame) == 2 * len(runs)
    assert frame.groupby("run_id")["part"].apply(list).map(tuple).unique().tolist() == [
        ("validation", "test")
    ]
    # per-attribute metrics keep their store names
    assert "faircocco_eo[sex]" in frame.columns and "deo[age]" in frame.columns


def test_export_values_are_the_stores(tmp_path: Path) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    with ResultsStore(fixture.path) as store:
        runs = store.runs().set_index("run_id")
    frame = export_runs(runs.reset_index(), sweep_params=SWEEPS)
    for row in frame.itertuples(index=False):
        run = runs.loc[row.run_id]
        part = row.part
        stored_rows = run[f"n_{part}"]
        assert (pd.isna(row.n_rows) and pd.isna(stored_rows)) or row.n_rows == stored_rows
        own = run.get(f"{part}.faircocco_{row.notion}", math.nan)
        assert row.faircocco == pytest.approx(own, nan_ok=True)
        expected = run["params"].get("lam") if SWEEPS[run["method"]] else None
        assert _same(row.strength, expected)
        assert _same(row.learning_rate, run["params"].get("learning_rate"))


def _same(exported: object, stored: object) -> bool:
    """An exported value equals the stored one; a missing one is empty (NaN) in the export."""
    return bool(pd.isna(exported)) if stored is None else exported == stored


def test_regression_rows_carry_r2_against_the_parts_outcome_variance(tmp_path: Path) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    with ResultsStore(fixture.path) as store:
        runs = store.runs()
    students = runs["dataset"] == "students"
    for part in ("validation", "test"):
        runs[f"{part}.outcome_variance"] = runs[f"{part}.mse"].where(students) * 1.5
    frame = export_runs(runs, sweep_params=SWEEPS)
    regression = frame[frame["dataset"] == "students"].dropna(subset=["mse"])
    assert len(regression)
    expected = 1 - regression["mse"] / regression["outcome_variance"]
    pd.testing.assert_series_equal(regression["r2"], expected, check_names=False)
    assert frame.loc[frame["dataset"] == "german", "r2"].isna().all()


def test_import_of_the_export_restores_the_store_exactly(tmp_path: Path) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    out = tmp_path / "runs.csv.gz"
    count = write_export(fixture.path, out, sweep_params=SWEEPS)
    with gzip.open(out, "rt") as file:
        assert file.readline().startswith(",".join(KEY_COLUMNS))
    added, skipped = import_export(out, tmp_path / "fresh.sqlite")
    assert (added, skipped) == (count, 0)
    with ResultsStore(fixture.path) as store, ResultsStore(tmp_path / "fresh.sqlite") as fresh:
        expected, restored = store.runs(), fresh.runs()
    pd.testing.assert_frame_equal(restored, expected, check_exact=False, rtol=1e-9)
    # a second import adds nothing
    assert import_export(out, tmp_path / "fresh.sqlite") == (0, count)


def test_an_export_from_before_evaluation_times_imports_without_them(tmp_path: Path) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    out = tmp_path / "runs.csv.gz"
    write_export(fixture.path, out)
    older = tmp_path / "older.csv.gz"
    pd.read_csv(out).drop(columns="evaluate_seconds").to_csv(older, index=False)
    assert read_export(older)["evaluate_seconds"].isna().all()
    import_export(older, tmp_path / "fresh.sqlite")
    with ResultsStore(fixture.path) as store, ResultsStore(tmp_path / "fresh.sqlite") as fresh:
        expected, restored = store.runs(), fresh.runs()
    assert restored["evaluate_seconds"].isna().all()
    assert expected["evaluate_seconds"].notna().any()
    pd.testing.assert_frame_equal(
        restored.drop(columns="evaluate_seconds"),
        expected.drop(columns="evaluate_seconds"),
        check_exact=False,
        rtol=1e-9,
    )


def test_the_same_store_gives_the_same_bytes(tmp_path: Path) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    first, second = tmp_path / "a" / "runs.csv.gz", tmp_path / "b" / "runs.csv.gz"
    write_export(fixture.path, first)
    write_export(fixture.path, second)
    assert first.read_bytes() == second.read_bytes()


def test_a_file_that_is_not_an_export_is_refused_by_name(tmp_path: Path) -> None:
    other = tmp_path / "other.csv"
    pd.DataFrame({"a": [1]}).to_csv(other, index=False)
    with pytest.raises(ValueError, match=r"other\.csv is not a study export"):
        read_export(other)


def test_export_and_import_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    out = tmp_path / "runs.csv.gz"
    assert main(["export", str(fixture.path), "--out", str(out)]) == 0
    count = len(fixture.records)
    assert f"{count} runs exported" in capsys.readouterr().out
    assert main(["import", str(out), "--store", str(tmp_path / "new.sqlite")]) == 0
    assert f"{count} runs added" in capsys.readouterr().out


@pytest.mark.parametrize("place", ["under a file", "read-only folder"])
def test_export_to_an_unwritable_place_is_refused_before_reading_the_store(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    place: str,
) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    if place == "under a file":
        (tmp_path / "notes.txt").write_text("mine")
        out = tmp_path / "notes.txt" / "runs.csv"
    else:
        out = request.getfixturevalue("read_only_folder") / "runs.csv"
    monkeypatch.setattr(_export, "export_runs", lambda *a, **k: pytest.fail("export computed"))
    assert main(["export", str(fixture.path), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert f"{out} cannot be written" in error and "Traceback" not in error
    assert not out.exists()


COMMITTED = Path(__file__).parents[2] / "docs" / "results" / "paper"


@pytest.mark.parametrize("name", ["runs.csv.gz", "tuning.csv.gz"])
def test_the_committed_exports_import_cleanly(tmp_path: Path, name: str) -> None:
    export = COMMITTED / name
    added, skipped = import_export(export, tmp_path / "store.sqlite")
    assert (added, skipped) == (read_export(export)["run_id"].nunique(), 0)


def test_export_never_writes_over_the_store_it_exports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    before = fixture.path.read_bytes()
    for force in ([], ["--force"]):
        assert main(["export", str(fixture.path), "--out", str(fixture.path), *force]) == 2
        err = capsys.readouterr().err
        assert f"{fixture.path} is the results store being exported" in err
        assert fixture.path.read_bytes() == before


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_export_never_writes_a_side_file_of_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    out = tmp_path / f"store.sqlite{suffix}"
    for force in ([], ["--force"]):
        assert main(["export", str(fixture.path), "--out", str(out), *force]) == 2
        err = capsys.readouterr().err
        assert f"{out} is a file SQLite keeps beside the database {fixture.path}" in err
        assert not out.exists()


def test_export_never_writes_over_another_sqlite_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    other = build_fixture_store(tmp_path / "other.sqlite", study="other").path
    before = other.read_bytes()
    assert main(["export", str(fixture.path), "--out", str(other), "--force"]) == 2
    assert f"{other} is an SQLite database" in capsys.readouterr().err
    assert other.read_bytes() == before


def test_export_replaces_an_earlier_export_and_another_file_only_when_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    notes = tmp_path / "notes.csv"
    notes.write_text("my own notes\n")
    assert main(["export", str(fixture.path), "--out", str(notes)]) == 2
    assert "notes.csv exists and is not a study export" in capsys.readouterr().err
    assert notes.read_text() == "my own notes\n"
    assert main(["export", str(fixture.path), "--out", str(notes), "--force"]) == 0
    assert read_export(notes)["run_id"].nunique() == len(fixture.records)
    # an earlier export, plain or gzipped, is replaced without --force
    out = tmp_path / "runs.csv.gz"
    for _ in range(2):
        assert main(["export", str(fixture.path), "--out", str(out)]) == 0
        assert main(["export", str(fixture.path), "--out", str(notes)]) == 0


def _edited_export(tmp_path: Path, edit: Callable[[pd.DataFrame], object]) -> Path:
    """An export of the fixture store, changed by ``edit`` and written back as CSV."""
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    out = tmp_path / "runs.csv"
    write_export(fixture.path, out, sweep_params=SWEEPS)
    frame = read_export(out)
    edit(frame)
    frame.to_csv(out, index=False, float_format="%.10g")
    return out


def _first_row(frame: pd.DataFrame, **where: object) -> int:
    mask = pd.Series(True, index=frame.index)
    for name, value in where.items():
        mask &= frame[name] == value
    return int(mask.to_numpy().nonzero()[0][0])


def test_a_run_whose_parameters_were_changed_under_its_old_id_is_refused(
    tmp_path: Path,
) -> None:
    edited = {}

    def change(frame: pd.DataFrame) -> None:
        row = _first_row(frame, method="faircocco", status="ok")
        rows = frame["run_id"] == frame.at[row, "run_id"]
        params = json.loads(frame.at[row, "params"])
        frame.loc[rows, "params"] = json.dumps({**params, "lam": params["lam"] * 10})
        edited["row"] = row + 1

    export = _edited_export(tmp_path, change)
    store = tmp_path / "fresh.sqlite"
    message = rf"runs\.csv is not a valid study export: row {edited['row']}, column run_id: "
    with pytest.raises(ValueError, match=message + ".* is not the id of the row's study"):
        import_export(export, store)
    assert not store.exists()


@pytest.mark.parametrize(
    ("column", "value", "problem"),
    [
        ("accuracy", 1.7, r"1\.7 is outside \[0, 1\]"),
        ("faircocco_eo", -3.0, r"-3\.0 is outside \[0, 1\]"),
        ("mse", math.inf, r"inf is outside \[0, inf\]"),
        ("seed", -1, r"-1 is not a valid seed"),
        ("part", "training", r"'training' is not one of validation, test"),
        ("notion", "fair", r"'fair' is not one of dp, eo, cal"),
        ("n_rows", -5, r"-5(\.0)? is negative"),
    ],
)
def test_an_impossible_value_is_refused_naming_the_file_row_and_column(
    tmp_path: Path, column: str, value: object, problem: str
) -> None:
    edited = {}

    def change(frame: pd.DataFrame) -> None:
        task = {"mse": "students", "accuracy": "german"}.get(column, "german")
        row = _first_row(frame, dataset=task, status="ok", part="test")
        if frame[column].dtype.kind in "fi" and not isinstance(value, str):
            frame[column] = frame[column].astype(float)
        else:
            frame[column] = frame[column].astype(object)
        frame.at[row, column] = value
        edited["row"] = row + 1

    export = _edited_export(tmp_path, change)
    with pytest.raises(ValueError, match=rf"row {edited['row']}, column {column}: .*{problem}"):
        import_export(export, tmp_path / "fresh.sqlite")


def test_metrics_of_another_part_or_name_are_refused_rather_than_dropped(tmp_path: Path) -> None:
    export = _edited_export(tmp_path, lambda frame: frame.insert(9, "training.accuracy", 0.9))
    with pytest.raises(ValueError, match=r"the columns \['training\.accuracy'\] are not metrics"):
        import_export(export, tmp_path / "fresh.sqlite")


def test_an_undefined_metric_imports_as_undefined(tmp_path: Path) -> None:
    def undefine(frame: pd.DataFrame) -> None:
        frame["auc"] = frame["auc"].astype(object)
        frame.loc[frame["dataset"] == "german", "auc"] = "nan"

    import_export(_edited_export(tmp_path, undefine), tmp_path / "fresh.sqlite")


def test_import_into_a_store_of_another_study_is_refused(tmp_path: Path) -> None:
    other = build_fixture_store(tmp_path / "other.sqlite", study="other")
    export = tmp_path / "other.csv.gz"
    write_export(other.path, export)
    store = build_fixture_store(tmp_path / "store.sqlite").path
    with ResultsStore(store) as opened:
        before = len(opened.runs())
    with pytest.raises(ValueError, match=r"store\.sqlite holds a study of another configuration"):
        import_export(export, store)
    with ResultsStore(store) as opened:
        assert len(opened.runs()) == before


def test_import_of_the_same_study_with_other_settings_is_refused(tmp_path: Path) -> None:
    def more_epochs(frame: pd.DataFrame) -> None:
        for position in range(len(frame)):
            settings = {**json.loads(frame.at[position, "settings"]), "epochs": 5}
            identity = {n: frame.at[position, n] for n in ("study", "dataset", "method", "notion")}
            frame.at[position, "settings"] = json.dumps(settings)
            frame.at[position, "run_id"] = run_id(
                **identity,
                seed=int(frame.at[position, "seed"]),
                params=json.loads(frame.at[position, "params"]),
                settings=settings,
            )

    export = _edited_export(tmp_path / "a", more_epochs)
    store = build_fixture_store(tmp_path / "store.sqlite").path
    with pytest.raises(ValueError, match=r"epochs: 2 in the store, 5 here"):
        import_export(export, store)


def test_a_truncated_export_is_refused_in_one_line_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    out = tmp_path / "runs.csv.gz"
    write_export(fixture.path, out)
    out.write_bytes(out.read_bytes()[: out.stat().st_size // 2])
    assert main(["import", str(out), "--store", str(tmp_path / "new.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"faircocco: error: {out} cannot be read as a study export")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (
            lambda text: text.replace(",0.75,", ",0.75x,", 1),
            r"row \d+, column \w+: '0\.75x' is not a number",
        ),
        (
            lambda text: text.replace('"{""epochs"": 2}"', '"{""epochs"": }"', 1),
            r"row 1, column settings: is not valid JSON",
        ),
        (
            lambda text: text.rsplit('"', 1)[0],
            r"cannot be read as a study export.*EOF inside string",
        ),
    ],
)
def test_a_damaged_export_is_refused_naming_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: Callable[[str], str], expected: str
) -> None:
    fixture = build_fixture_store(tmp_path / "store.sqlite")
    out = tmp_path / "runs.csv"
    write_export(fixture.path, out)
    damaged = damage(out.read_text())
    assert damaged != out.read_text()
    out.write_text(damaged)
    assert main(["import", str(out), "--store", str(tmp_path / "new.sqlite")]) == 2
    err = capsys.readouterr().err
    assert re.search(expected, err), err
    assert str(out) in err and len(err.strip().splitlines()) == 1


def _imported_fixture(tmp_path: Path) -> Path:
    """A store holding the fixture study's runs through an export: no recorded configuration."""
    export = tmp_path / "fixture.csv.gz"
    write_export(build_fixture_store(tmp_path / "made.sqlite").path, export)
    store = tmp_path / "imported.sqlite"
    import_export(export, store)
    return store


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": "another"}, r"study: 'fixture' in the store, 'another' here"),
        ({"epochs": 7}, r"settings of nn: .*'epochs': 2.* in the store, .*'epochs': 7.* here"),
    ],
)
def test_bench_on_imported_runs_of_another_configuration_is_refused(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    """An import records no configuration for bench to compare, so bench compares the runs."""
    from faircocco_plugins.bench import StudyConfig, run_study

    pytest.importorskip("faircocco_torch")
    store = _imported_fixture(tmp_path)
    settings = {"name": "fixture", "datasets": ("synthetic",), "methods": ("nn",), "epochs": 2}
    config = StudyConfig(**{**settings, "notions": ("eo",), "seeds": (0,), **change})
    with pytest.raises(ValueError, match=message):
        run_study(config, store)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize(
    ("arguments", "what"),
    [
        (["import", "{pipe}", "--store", "{folder}/store.sqlite"], "the export"),
        (["export", "{pipe}", "--out", "{folder}/runs.csv"], "the results store"),
        (["report", "{pipe}", "--out", "{folder}/report"], "the results store"),
    ],
)
def test_a_named_pipe_is_refused_not_waited_on(
    tmp_path: Path, arguments: list[str], what: str
) -> None:
    """In a process of its own, so that a read that waits for a writer is stopped."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    words = [word.format(pipe=pipe, folder=tmp_path) for word in arguments]
    done = subprocess.run(
        [sys.executable, "-m", "faircocco_plugins.cli", *words],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2
    assert f"{what} {pipe} is not a regular file" in done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pipe"]
