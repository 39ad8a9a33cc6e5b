"""Progress off a terminal: one line per finished item, each once."""

from __future__ import annotations

import io
import time

import pytest

from faircocco_plugins.bench._progress import progress_lines
from faircocco_plugins.bench.paper._experiments import ExperimentSettings, _bar


def test_the_experiments_progress_in_a_log_shows_the_last_line_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = ExperimentSettings(seeds=(0,), progress=True)
    for _ in _bar(["a", "b", "c"], settings, "convergence", "seed"):
        time.sleep(0.15)  # items slower than a bar's redraw interval, as networks are
    err = capsys.readouterr().err
    assert err.count("3/3") == 1
    assert [line.split(" (ETA")[0] for line in err.splitlines()] == [
        "convergence: 1/3 seed",
        "convergence: 2/3 seed",
        "convergence: 3/3 seed",
    ]


def test_no_progress_when_it_is_off(capsys: pytest.CaptureFixture[str]) -> None:
    settings = ExperimentSettings(seeds=(0,), progress=False)
    assert list(_bar(["a"], settings, "convergence")) == ["a"]
    assert capsys.readouterr().err == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_bar_is_redrawn_in_place() -> None:
    terminal = _Terminal()
    assert list(progress_lines([1, 2], what="p-values", unit="network", stream=terminal)) == [1, 2]
    # a redrawn bar: carriage returns, not one line per item
    assert "\r" in terminal.getvalue() and "2/2" in terminal.getvalue()
