"""Killing a study (kill -9, Ctrl-C) loses at most the cells in flight; re-running resumes."""

from __future__ import annotations

import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

CELLS = 6  # 3 seeds × 2 settings of the gated method

#: ``faircocco bench`` with one method whose cells wait for the test: each cell's fit takes the
#: next number ``k`` (over every run of the study in the folder), announces it with the file
#: ``started-k`` and finishes once the test creates ``go-k``. So the test, not the machine's
#: speed, decides how many cells are stored before each signal.
_GATED_CLI = """
import sys, time
from pathlib import Path
import faircocco_plugins.plugins as plugins
from faircocco_plugins.cli import main
from faircocco_plugins.plugins import Capabilities, MethodSpec

folder = Path(sys.argv[1])

class Gated:
    def fit(self, X, y, *, sensitive_features):
        k = len(list(folder.glob("started-*")))
        (folder / f"started-{k}").touch()
        while not (folder / f"go-{k}").exists():
            time.sleep(0.02)
        return self

    def predict(self, X):
        return (X.iloc[:, 0] > 0).astype(int).to_numpy()

kinds = ("binary", "categorical", "continuous")
spec = MethodSpec(
    name="gated", description="waits for the test", factory=lambda **_: Gated(),
    capabilities=Capabilities(
        tasks=("classification",), notions=("eo",), attributes=kinds, outcomes=kinds,
        multiple_attributes="joint", needs_gradients=False,
    ),
    param_grid={"width": (1, 2)}, quick_grid={"width": (1, 2)},
)
plugins.available_methods = lambda **_: {"gated": spec}
sys.exit(main(sys.argv[2:]))
"""


def _arguments(store: Path) -> list[str]:
    return [
        "bench",
        "--study",
        "resume",
        "--datasets",
        "synthetic",
        "--methods",
        "gated",
        "--notions",
        "eo",
        "--seeds",
        "3",
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


def _start(driver: Path, arguments: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(driver), str(driver.parent), *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait(process: subprocess.Popen[str], done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if done():
            return
        if process.poll() is not None:
            pytest.fail(f"the study ended before {what}: {process.communicate()}")
        time.sleep(0.02)
    process.kill()
    pytest.fail(f"timed out waiting for {what}")


def _release(folder: Path, *cells: int) -> None:
    for k in cells:
        (folder / f"go-{k}").touch()


def test_kill_9_then_ctrl_c_then_resume(tmp_path: Path) -> None:
    driver = tmp_path / "driver.py"
    driver.write_text(_GATED_CLI)
    store = tmp_path / "runs.sqlite"
    started = tmp_path / "started-{}"

    # kill -9: the two cells stored stay, the third, in flight, is lost
    process = _start(driver, _arguments(store))
    _release(tmp_path, 0, 1)
    _wait(process, lambda: Path(str(started).format(2)).exists(), "the third cell")
    killed = _rows(store)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate()
    assert process.returncode == -signal.SIGKILL
    assert len(killed) == 2 and len(_rows(store)) == 2

    # re-run, then Ctrl-C during a cell: it skips the stored cells, finishes the running one
    # and stops
    process = _start(driver, _arguments(store))
    _release(tmp_path, 3)
    _wait(process, lambda: Path(str(started).format(4)).exists(), "the second cell of the re-run")
    process.send_signal(signal.SIGINT)
    time.sleep(0.5)  # the cell goes on after Ctrl-C; nothing is stored until it ends
    assert len(_rows(store)) == 3
    _release(tmp_path, 4)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "2 skipped as already complete" in out
    assert "not run" in out
    interrupted = _rows(store)
    assert len(interrupted) == 4
    assert {status for _, _, status in interrupted} == {"ok"}
    # the cells stored before the kill were not recomputed: same rows, untouched
    assert interrupted[:2] == killed

    # the command printed on Ctrl-C finishes the study
    words = shlex.split(err.split("resume with: ", 1)[1].strip())
    assert words[:2] == ["faircocco", "bench"]
    _release(tmp_path, *range(5, 5 + CELLS))
    finished = _start(driver, words[1:])
    out, err = finished.communicate(timeout=60)
    assert finished.returncode == 0, err
    assert "4 skipped as already complete" in out
    assert f"{CELLS - 4} done" in out
    after = _rows(store)
    # every cell exactly once, all finished, earlier ones untouched
    assert len(after) == len({run_id for _, run_id, _ in after}) == CELLS
    assert {status for _, _, status in after} == {"ok"}
    assert after[:4] == interrupted


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


#: ``faircocco bench`` with one method that logs each fit (its seed and width, and the process)
#: as a file, and holds its first fits until the test creates ``go``: the test releases them
#: once both processes are inside a cell, so that the two run side by side.
_SHARED_CLI = """
import os, sys, time, uuid
from pathlib import Path
import faircocco_plugins.plugins as plugins
from faircocco_plugins.cli import main
from faircocco_plugins.plugins import Capabilities, MethodSpec

folder = Path(sys.argv[1])

class Logged:
    def __init__(self, cell):
        self.cell = cell

    def fit(self, X, y, *, sensitive_features):
        (folder / f"fit-{self.cell}-{os.getpid()}-{uuid.uuid4().hex}").touch()
        deadline = time.monotonic() + 60
        while not (folder / "go").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        return self

    def predict(self, X):
        return (X.iloc[:, 0] > 0).astype(int).to_numpy()

def make(*, task, notion, random_state, width):
    return Logged(f"{random_state}_{width}")

kinds = ("binary", "categorical", "continuous")
spec = MethodSpec(
    name="logged", description="logs its fits", factory=make,
    capabilities=Capabilities(
        tasks=("classification",), notions=("eo",), attributes=kinds, outcomes=kinds,
        multiple_attributes="joint", needs_gradients=False,
    ),
    param_grid={"width": (1, 2)}, quick_grid={"width": (1, 2)},
)
plugins.available_methods = lambda **_: {"logged": spec}
sys.exit(main(sys.argv[2:]))
"""


def test_two_processes_on_one_store_split_the_cells(tmp_path: Path) -> None:
    driver = tmp_path / "driver.py"
    driver.write_text(_SHARED_CLI)
    store = tmp_path / "runs.sqlite"
    arguments = [*_arguments(store)]
    arguments[arguments.index("gated")] = "logged"
    processes = [_start(driver, arguments) for _ in range(2)]

    def fits() -> list[tuple[str, str]]:
        return [tuple(p.name.split("-")[1:3]) for p in tmp_path.glob("fit-*")]  # (cell, pid)

    try:
        for process in processes:
            _wait(process, lambda: len({pid for _, pid in fits()}) == 2, "both processes' fits")
    finally:
        (tmp_path / "go").touch()
    outputs = [process.communicate(timeout=60) for process in processes]
    for process, (_, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err
    cells = [cell for cell, _ in fits()]
    # every cell computed, each exactly once, by one process or the other
    assert sorted(cells) == sorted(f"{seed}_{width}" for seed in range(3) for width in (1, 2))
    assert len({pid for _, pid in fits()}) == 2
    rows = _rows(store)
    assert len(rows) == len({run_id for _, run_id, _ in rows}) == CELLS
    assert {status for _, _, status in rows} == {"ok"}
    done = [int(out.split(" done")[0].rsplit(" ", 1)[1]) for out, _ in outputs]
    assert sum(done) == CELLS
    for count, (out, _) in zip(done, outputs, strict=True):
        assert f"{CELLS - count} run by another process" in out
