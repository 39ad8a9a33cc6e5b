"""The λ path's user-guide example runs on Adult, checks its target on test rows and saves its
front; it needs Adult's files from ``$FAIRCOCCO_DATA`` and skips without them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from faircocco_plugins.datasets import DatasetUnavailableError, load_dataset

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "torch_path_target.py"


def test_the_path_example_raises_test_di_and_saves_its_front(tmp_path: Path) -> None:
    try:
        load_dataset("adult", random_state=0)
    except DatasetUnavailableError as error:
        pytest.skip(f"adult is not available here (set $FAIRCOCCO_DATA): {error}")
    plot = tmp_path / "front.png"
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), "--rows", "3000", "--plot", str(plot)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    test_di = {
        name: float(di)
        for name, di in re.findall(
            r"(unpenalised|chosen).*?test accuracy .*? DI ([0-9.]+)", result.stdout
        )
    }
    assert set(test_di) == {"unpenalised", "chosen"}, result.stdout
    assert test_di["chosen"] > test_di["unpenalised"] + 0.2
    assert plot.stat().st_size > 10_000
