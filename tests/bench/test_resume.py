"""Killing a study (kill -9, Ctrl-C) loses at most the cells in flight; re-running resumes."""

from __future__ import annotations

import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("faircocco_torch")

CELLS = 12  # 3 seeds × (nn + faircocco with 3 penalty weights)


def _command(store: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "faircocco_plugins.cli",
        "bench",
        "--study",
        "resume",
        "--datasets",
        "synthetic",
        "--methods",
        "nn,faircocco",
        "--notions",
        "eo",
        "--seeds",
        "3",
        "--grid",
        "quick",
        "--epochs",
        "2",
        "--max-train-rows",
        "200",
        "--store",
        str(store),
    ]


def _rows(store: Path) -> list[tuple[int, str, str]]:
    if not store.exists():
        return []
    connection = sqlite3.connect(store, timeout=30)
    try:
        return connection.execute(
            "SELECT rowid, run_id, status FROM runs ORDER BY rowid"
        ).fetchall()
    except sqlite3.OperationalError:  # the schema is not there yet
        return []
    finally:
        connection.close()


def _start(store: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        _command(store), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_for_rows(
    process: subprocess.Popen[str], store: Path, *, at_least: int, timeout: float = 60
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(_rows(store)) >= at_least:
            return
        if process.poll() is not None:
            pytest.fail(f"the study ended early: {process.communicate()}")
        time.sleep(0.05)
    process.kill()
    pytest.fail("no cell was stored in time")


def test_kill_9_then_ctrl_c_then_resume(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"

    # kill -9: the cells stored so far stay, the one in flight is lost
    process = _start(store)
    _wait_for_rows(process, store, at_least=1)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate()
    assert process.returncode == -signal.SIGKILL
    killed = _rows(store)
    assert 1 <= len(killed) < CELLS, "the study was killed after its first cells"

    # re-run, then Ctrl-C: it skips the stored cells, finishes the running one and stops
    process = _start(store)
    _wait_for_rows(process, store, at_least=len(killed) + 1)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert f"{len(killed)} skipped as already complete" in out
    assert "not run" in out
    interrupted = _rows(store)
    assert len(killed) < len(interrupted) < CELLS
    assert {status for _, _, status in interrupted} == {"ok"}
    # the cells stored before the kill were not recomputed: same rows, untouched
    assert interrupted[: len(killed)] == killed

    # the command printed on Ctrl-C finishes the study
    words = shlex.split(err.split("resume with: ", 1)[1].strip())
    assert words[:2] == ["faircocco", "bench"]
    finished = subprocess.run(
        [sys.executable, "-m", "faircocco_plugins.cli", *words[1:]],
        capture_output=True,
        text=True,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    assert f"{len(interrupted)} skipped as already complete" in finished.stdout
    assert f"{CELLS - len(interrupted)} done" in finished.stdout
    after = _rows(store)
    # every cell exactly once, all finished, earlier ones untouched
    assert len(after) == len({run_id for _, run_id, _ in after}) == CELLS
    assert {status for _, _, status in after} == {"ok"}
    assert after[: len(interrupted)] == interrupted


_SLOW_STUDY = """
import os, sys, time
from pathlib import Path
from faircocco_plugins.plugins import Capabilities, MethodSpec
from faircocco_plugins.bench import StudyConfig, run_study

folder = Path(sys.argv[1])

class Sleeper:
    def __init__(self, **_):
        pass

    def fit(self, X, y, *, sensitive_features):
        (folder / f"worker-{os.getpid()}").touch()
        time.sleep(600)

def make(*, task, notion, random_state):
    return Sleeper()

kinds = ("binary", "categorical", "continuous")
spec = MethodSpec(
    name="sleeper", description="sleeps", factory=make,
    capabilities=Capabilities(
        tasks=("classification",), notions=("dp",), attributes=kinds, outcomes=kinds,
        multiple_attributes="joint", needs_gradients=False,
    ),
)
config = StudyConfig(datasets=("synthetic",), methods=("sleeper",), notions=("dp",), seeds=(0, 1))
run_study(config, folder / "runs.sqlite", methods={"sleeper": spec}, jobs=2)
"""


def test_workers_end_soon_after_their_driver_is_killed(tmp_path: Path) -> None:
    pytest.importorskip("joblib")
    script = tmp_path / "driver.py"
    script.write_text(_SLOW_STUDY)
    driver = subprocess.Popen([sys.executable, str(script), str(tmp_path)])
    try:
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob("worker-*"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        workers = [int(p.name.split("-")[1]) for p in tmp_path.glob("worker-*")]
        assert len(workers) == 2, "the workers did not start their cells"
    finally:
        driver.kill()
        driver.wait()
    # each worker polls every 0.5 s; allow for a loaded machine
    deadline = time.monotonic() + 10
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [pid for pid in alive if _running(pid)]
    assert not alive, f"workers {alive} outlived their driver by 10 s"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie has ended: only its exit status is left for its new parent to collect
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False
