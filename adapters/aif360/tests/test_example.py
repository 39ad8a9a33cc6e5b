"""The pipeline example in the docs runs, and its penalty lowers the adjusted score."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "aif360_pipeline.py"


def test_the_pipeline_example_runs_and_the_penalty_works():
    result = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, check=True, timeout=300
    )
    table = result.stdout.split("\n\n")[0].splitlines()
    assert table[0].split()[:2] == ["lam", "accuracy"]
    rows = [[float(value) for value in line.split()] for line in table[1:]]
    assert [row[0] for row in rows] == [0.0, 10.0, 20.0, 40.0]
    scores = [row[2] for row in rows]
    assert scores[-1] < 0.5 * scores[0]
