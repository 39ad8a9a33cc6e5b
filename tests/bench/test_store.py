"""The SQLite results store: round trip, WAL mode, completed runs, study records."""

from __future__ import annotations

import math
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from faircocco_plugins.bench import ResultsStore, RunRecord
from faircocco_plugins.bench._store import RUN_COLUMNS, Claimant
from faircocco_plugins.cli import main


def _record(run_id: str, **changes: Any) -> RunRecord:
    values: dict[str, Any] = {
        "run_id": run_id,
        "study": "s",
        "dataset": "german",
        "method": "faircocco",
        "notion": "eo",
        "seed": 0,
        "params": {"lam": 1.0, "learning_rate": 0.01},
        "settings": {"epochs": 5},
        "status": "ok",
        "n_train": 600,
        "n_validation": 200,
        "n_test": 200,
        "fit_seconds": 1.5,
        "predict_seconds": 0.01,
        "evaluate_seconds": 0.2,
        "peak_memory_mib": 12.0,
        "versions": {"numpy": "2.0"},
        "git_revision": "abc",
        "metrics": {
            "validation.accuracy": 0.7,
            "test.accuracy": 0.72,
            "test.faircocco_eo[sex]": 0.03,
            "validation.auc": math.nan,
        },
    }
    values.update(changes)
    return RunRecord(**values)


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "runs.sqlite"
    with ResultsStore(path) as store:
        store.add(_record("r1"))
        store.add(_record("r2", seed=1, status="failed", reason="fit: boom", metrics={}))
        store.add(_record("r3", study="other", status="not_applicable", reason="no cal"))
    with ResultsStore(path) as store:
        frame = store.runs("s")
        everything = store.runs()
    assert len(everything) == 3
    assert frame["run_id"].tolist() == ["r1", "r2"]
    assert list(frame.columns[: len(RUN_COLUMNS)]) == list(RUN_COLUMNS)
    assert list(frame.columns[len(RUN_COLUMNS) :]) == [
        "validation.accuracy",
        "validation.auc",
        "test.accuracy",
        "test.faircocco_eo[sex]",
    ]
    first = frame.iloc[0]
    assert first["params"] == {"lam": 1.0, "learning_rate": 0.01}
    assert first["settings"] == {"epochs": 5}
    assert first["versions"] == {"numpy": "2.0"}
    assert first["test.accuracy"] == 0.72
    assert math.isnan(first["validation.auc"])
    assert first["n_train"] == 600
    assert first["fit_seconds"] == 1.5
    failed = frame.iloc[1]
    assert failed["status"] == "failed"
    assert failed["reason"] == "fit: boom"
    assert math.isnan(failed["test.accuracy"])
    assert frame["seed"].dtype == "Int64"


def test_wal_mode_and_one_row_per_run(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with ResultsStore(path) as store:
        store.add(_record("r1"))
        store.add(_record("r1", metrics={"test.accuracy": 0.9}))
        assert store.completed() == {"r1": "ok"}
        assert store.completed("other") == {}
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
    connection.close()
    with ResultsStore(path) as store:
        assert store.runs().loc[0, "test.accuracy"] == 0.9


def test_a_reader_sees_committed_runs_while_the_writer_is_open(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    writer = ResultsStore(path)
    writer.add(_record("r1"))
    with ResultsStore(path) as reader:
        assert reader.runs()["run_id"].tolist() == ["r1"]
    writer.close()


def test_study_invocations_are_recorded(tmp_path: Path) -> None:
    with ResultsStore(tmp_path / "runs.sqlite") as store:
        store.record_study("s", {"seeds": [0, 1]}, versions={"torch": "2"}, git_revision=None)
        store.record_study("s", {"seeds": [0, 1, 2]}, versions={"torch": "2"}, git_revision="x")
        studies = store.studies()
    assert studies["config"].tolist() == [{"seeds": [0, 1]}, {"seeds": [0, 1, 2]}]
    assert studies["git_revision"].tolist()[1] == "x"


def test_empty_store_has_the_columns(tmp_path: Path) -> None:
    with ResultsStore(tmp_path / "runs.sqlite") as store:
        frame = store.runs()
    assert frame.empty
    assert list(frame.columns) == list(RUN_COLUMNS)
    assert isinstance(frame, pd.DataFrame)


def test_bad_paths_and_records(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is a directory"):
        ResultsStore(tmp_path)
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("this is not a database, just some text " * 100)
    with pytest.raises(ValueError, match="is not a results store"):
        ResultsStore(not_sqlite)
    with pytest.raises(TypeError, match="path must be"):
        ResultsStore(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="status='done'"):
        _record("r", status="done")
    store = ResultsStore(tmp_path / "runs.sqlite")
    store.close()
    with pytest.raises(ValueError, match="is closed"):
        store.runs()


def _full_store(path: Path) -> None:
    with ResultsStore(path) as store:
        store.add_many(_record(f"r{i}", settings={"note": "x" * 400}) for i in range(200))


def test_a_store_cut_short_by_one_byte_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    _full_store(path)
    data = path.read_bytes()
    path.write_bytes(data[:-1])
    with pytest.raises(ValueError, match=r"results.sqlite is truncated: .* Restore it"):
        ResultsStore(path)
    # the file is left as it was, for the user to restore
    assert path.stat().st_size == len(data) - 1


def test_an_emptied_store_is_not_taken_for_a_new_one(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    _full_store(path)
    path.write_bytes(b"")
    with pytest.raises(ValueError, match=r"is empty \(0 bytes\)"):
        ResultsStore(path)


def test_a_damaged_page_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    _full_store(path)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page * 2 : page * 2 + 64] = bytes(range(64))  # scribble over an interior page
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"results\.sqlite is damaged"):
        ResultsStore(path)


def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    path.write_text("run_id,status\nr1,ok\n")
    with pytest.raises(ValueError, match="not a results store"):
        ResultsStore(path)


# --- files that are not results stores, read-only stores, damaged rows ---------------------------

#: Root may write to any file, so read-only files and folders can only be tested by other users.
needs_permissions = pytest.mark.skipif(
    os.name != "posix" or os.geteuid() == 0, reason="file permissions do not bind root"
)


def _foreign_database(path: Path) -> bytes:
    """Another program's SQLite database (rollback journal, as SQLite makes by default)."""
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    connection.execute("INSERT INTO customers (name) VALUES ('Ada')")
    connection.commit()
    connection.close()
    return path.read_bytes()


def _report(store: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["report", str(store), "--out", str(out), "--no-plots"])
    return status, capsys.readouterr().err


def test_a_foreign_database_is_refused_and_left_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "shop.db"
    before = _foreign_database(path)
    with pytest.raises(
        ValueError, match=r"shop\.db is not a results store \(its tables: customers"
    ):
        ResultsStore(path)
    with pytest.raises(ValueError, match="is not a results store"):
        ResultsStore(path, read_only=True)
    status, err = _report(path, tmp_path / "report", capsys)
    assert status == 2
    assert "shop.db is not a results store" in err and "Traceback" not in err
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shop.db"]


def test_report_refuses_a_text_file_and_a_missing_store_without_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.sqlite"
    text.write_text("run_id,status\nr1,ok\n")
    status, err = _report(text, tmp_path / "report", capsys)
    assert status == 2 and "notes.sqlite is not a results store (not an SQLite file)" in err
    assert text.read_text() == "run_id,status\nr1,ok\n"
    status, err = _report(tmp_path / "missing.sqlite", tmp_path / "report", capsys)
    assert status == 2 and "missing.sqlite' does not exist" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite"]


def test_reading_a_store_writes_nothing_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with ResultsStore(path) as store:
        store.add(_record("r1"))
    before = path.read_bytes()
    with ResultsStore(path, read_only=True) as store:
        assert store.runs()["run_id"].tolist() == ["r1"]
        with pytest.raises(ValueError, match="opened read-only"):
            store.add(_record("r2"))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.sqlite"]


def test_report_to_an_existing_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "runs.sqlite"
    with ResultsStore(path) as store:
        store.add(_record("r1"))
    out = tmp_path / "report.txt"
    out.write_text("keep me")
    status, err = _report(path, out, capsys)
    assert status == 2
    assert err.strip() == (
        f"faircocco report: error: --out {out} is a file; name a folder (created when missing)"
    )
    assert out.read_text() == "keep me"


@needs_permissions
def test_read_only_store_is_reported_and_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "archive"
    path = folder / "runs.sqlite"
    scores = {"faircocco_eo": 0.03, "accuracy": 0.7}
    with ResultsStore(path) as store:
        store.add(
            _record(
                "r1",
                metrics={f"{p}.{k}": v for p in ("validation", "test") for k, v in scores.items()},
            )
        )
    path.chmod(0o444)
    folder.chmod(0o555)
    try:
        status, err = _report(path, tmp_path / "report", capsys)
        assert status == 0, err
        with pytest.raises(ValueError, match=r"runs\.sqlite is read-only, and running a study"):
            ResultsStore(path)
        read_only_out = tmp_path / "locked"
        read_only_out.mkdir(mode=0o555)
        status, err = _report(path, read_only_out, capsys)
        assert status == 2
        assert err.startswith(
            f"faircocco report: error: cannot write the report to {read_only_out}"
        )
        assert len(err.strip().splitlines()) == 1
    finally:
        folder.chmod(0o755)


@needs_permissions
def test_a_new_store_in_a_read_only_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "locked"
    folder.mkdir(mode=0o555)
    with pytest.raises(ValueError, match=r"cannot write the results store .*locked/runs\.sqlite"):
        ResultsStore(folder / "runs.sqlite")
    status = main(["bench", "--datasets", "synthetic", "--store", str(folder / "runs.sqlite")])
    err = capsys.readouterr().err
    assert status == 2 and "cannot write the results store" in err and "Traceback" not in err


def _store_without(tmp_path: Path, column: str) -> Path:
    """A store of one run whose ``runs`` table lacks ``column``."""
    path = tmp_path / "runs.sqlite"
    with ResultsStore(path) as store:
        store.add(_record("r1"))
    connection = sqlite3.connect(path)
    connection.execute(f"ALTER TABLE runs DROP COLUMN {column}")
    connection.commit()
    connection.close()
    return path


def test_a_store_missing_a_column_names_the_table_and_column(tmp_path: Path) -> None:
    path = _store_without(tmp_path, "metrics")
    with pytest.raises(
        ValueError,
        match=r"runs\.sqlite is a damaged results store: its table runs lacks the "
        r"columns \['metrics'\]",
    ):
        ResultsStore(path, read_only=True)


def test_a_store_from_before_evaluation_times_reads_them_as_missing_until_written(
    tmp_path: Path,
) -> None:
    path = _store_without(tmp_path, "evaluate_seconds")
    with ResultsStore(path, read_only=True) as store:
        older = store.runs()
    assert list(older.columns[: len(RUN_COLUMNS)]) == list(RUN_COLUMNS)
    assert math.isnan(older.loc[0, "evaluate_seconds"]) and older.loc[0, "fit_seconds"] == 1.5
    with ResultsStore(path) as store:  # writing adds the column
        store.add(_record("r2", seed=1))
        frame = store.runs()
    assert math.isnan(frame.loc[0, "evaluate_seconds"])
    assert frame.loc[1, "evaluate_seconds"] == 0.2


@pytest.mark.parametrize(
    ("column", "text", "problem"),
    [
        ("params", "{'lam': 1", "is not valid JSON"),
        ("settings", "[1, 2]", "holds a JSON list, not an object"),
        ("metrics", '{"test.accuracy": "high"}', "test.accuracy .* is 'high', not a number"),
    ],
)
def test_a_run_with_broken_json_names_the_store_and_the_run(
    tmp_path: Path, column: str, text: str, problem: str
) -> None:
    path = tmp_path / "runs.sqlite"
    with ResultsStore(path) as store:
        store.add_many([_record("r1"), _record("r2", seed=1)])
    connection = sqlite3.connect(path)
    connection.execute(f"UPDATE runs SET {column} = ? WHERE run_id = 'r2'", (text,))
    connection.commit()
    connection.close()
    with ResultsStore(path, read_only=True) as store, pytest.raises(ValueError) as raised:
        store.runs()
    message = str(raised.value)
    assert message.startswith(f"{path} is damaged:")
    assert "row with run_id 'r2' of its table runs" in message
    assert re.search(problem, message)
    assert "DELETE FROM runs WHERE rowid = 2" in message


@pytest.mark.parametrize("run_id", ["it's", "x' OR '1'='1", "two\nlines"])
def test_the_advice_for_a_damaged_run_deletes_that_run_alone(tmp_path: Path, run_id: str) -> None:
    path = tmp_path / "runs.sqlite"
    with ResultsStore(path) as store:
        store.add_many([_record("r1"), _record("r2", seed=1), _record("r3", seed=2)])
    connection = sqlite3.connect(path)
    connection.execute(
        "UPDATE runs SET run_id = ?, params = 'not json' WHERE run_id = 'r2'", (run_id,)
    )
    connection.commit()
    with ResultsStore(path, read_only=True) as store, pytest.raises(ValueError) as raised:
        store.runs()
    # as the command prints it, on one line
    message = " ".join(str(raised.value).split())
    advice = re.search(r"\((DELETE FROM runs WHERE [^)]*)\)", message)
    assert advice is not None
    connection.execute(advice.group(1))
    connection.commit()
    kept = [row[0] for row in connection.execute("SELECT run_id FROM runs ORDER BY run_id")]
    connection.close()
    assert kept == ["r1", "r3"]
    assert f"the row with run_id {run_id!r} of its table runs" in message


def test_a_study_record_with_broken_json_names_its_row(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with ResultsStore(path) as store:
        store.record_study("s", {"seeds": [0]}, versions={}, git_revision=None)
    connection = sqlite3.connect(path)
    connection.execute("UPDATE studies SET config = 'not json'")
    connection.commit()
    connection.close()
    with (
        ResultsStore(path) as store,
        pytest.raises(
            ValueError,
            match=r"the column config of the row id = 1 of its table studies is not valid",
        ),
    ):
        store.studies()


# --- claims of drivers sharing a store ------------------------------------------------------------


def _claim(store: ResultsStore, claimant: Claimant, **options: Any) -> str:
    values: dict[str, Any] = {"keep": ("ok",), "since": 0.0, "stale_after": 600.0}
    values.update(options)
    return store.claim("r1", claimant, **values)


def test_a_claim_is_held_until_its_run_is_stored_or_it_goes_stale(tmp_path: Path) -> None:
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    with ResultsStore(tmp_path / "runs.sqlite") as store:
        one, two = Claimant(), Claimant()
        assert _claim(store, one) == "claimed"
        assert _claim(store, two) == "taken"
        assert _claim(store, one) == "claimed"  # its own claim
        # not renewed for longer than stale_after: taken over
        assert _claim(store, two, stale_after=-1.0) == "claimed"
        assert _claim(store, one) == "taken"
        # the claimant's process on this host has ended: taken over at once
        dead = Claimant(pid=int(ended.stdout))
        store.release_claims(two)
        assert _claim(store, dead) == "claimed"
        assert _claim(store, one) == "claimed"
        # stored: done for whoever started before it was stored, whatever the status
        store.add(_record("r1", status="failed", reason="fit: boom", metrics={}))
        assert _claim(store, two) == "done"
        # a driver that started after a failed run was stored may run it again
        assert _claim(store, two, since=time.time() + 1) == "claimed"
        store.release_claims(two)
        assert _claim(store, one, since=time.time() + 1) == "claimed"
