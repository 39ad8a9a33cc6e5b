"""The score and test benchmarks run end to end (smoke tests: they time, they assert no speed)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from benchmarks import independence_test, score


def test_score_benchmark_quick(capsys: pytest.CaptureFixture[str]) -> None:
    assert score.main(["--quick", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "FairCOCCO score benchmark" in out
    assert "command:  python benchmarks/score.py --quick --repeats 1" in out
    assert "machine:" in out and "numpy" in out and "BLAS" in out
    for section in ("(a)", "(b)", "(c)", "(d)"):
        assert section in out
    statuses = re.findall(r"  (met|missed)$", out, flags=re.MULTILINE)
    assert len(statuses) == 12
    assert re.search(r"\d+ of 12 targets met", out)


def test_test_benchmark_prints_rates_with_standard_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    arguments = ["--settings", "dp,cal-binary", "--sizes", "120", "--repetitions", "4"]
    arguments += ["--permutations", "19", "--eps", "default,1e-4", "--widths", "default,1"]
    assert independence_test.main([*arguments, "--no-peers"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 8  # two settings times two eps times two width sets
    assert sum(" w=1 " in line for line in lines) == 4
    for line in lines:
        found = re.search(r"size (\S+) ± (\S+)  power (\S+) ± (\S+)", line)
        assert found is not None
        size, size_se, power, power_se = map(float, found.groups())
        for rate, se in ((size, size_se), (power, power_se)):
            assert rate in (0.0, 0.25, 0.5, 0.75, 1.0)  # of 4 repetitions
            assert se == pytest.approx(np.sqrt(rate * (1 - rate) / 4), abs=5e-4)
        assert "adjusted under the null" in line


def test_test_benchmark_null_only_prints_sizes_alone(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["--settings", "eo-continuous", "--sizes", "120", "--repetitions", "2"]
    assert (
        independence_test.main([*arguments, "--permutations", "9", "--null-only", "--no-peers"])
        == 0
    )
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert "size" in line and "power" not in line
