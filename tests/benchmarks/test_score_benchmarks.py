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
    assert len(lines) == 24  # two settings, three nulls, two eps and two width sets
    assert sum(" w=1 " in line for line in lines) == 12
    assert sum(" gamma " in line for line in lines) == 8
    assert sum(" spectral " in line for line in lines) == 8
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
    arguments += ["--nulls", "permutation", "--permutations", "9", "--null-only", "--no-peers"]
    assert independence_test.main(arguments) == 0
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert "size" in line and "power" not in line


def test_test_benchmark_mixed_settings_at_several_strengths(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each NOTION-OUTCOME-aK setting draws its attributes and outcome; a row per strength, with
    the size of the same null data and the power of each strength."""
    arguments = ["--settings", "eo-continuous-a3,cal-binary-a1,dp-binary-a2", "--sizes", "130"]
    arguments += ["--repetitions", "2", "--nulls", "gamma", "--strengths", "1,4"]
    assert independence_test.main([*arguments, "--no-peers", "--no-adjusted"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 6
    sizes = [re.search(r"size (\S+)", line).group(1) for line in lines]  # type: ignore[union-attr]
    assert sizes[0::2] == sizes[1::2]
    assert all(" x1 " in line for line in lines[0::2]) and all(
        " x4 " in line for line in lines[1::2]
    )
    for setting in ("eo-continuous-a3", "cal-binary-a1", "dp-binary-a2"):
        s = independence_test.sample(setting, 50, True, np.random.default_rng(0))
        assert s.attribute.shape[1] == int(setting[-1])
        assert (s.y_true is None) == setting.startswith("dp")


def test_test_benchmark_times_the_default_test(capsys: pytest.CaptureFixture[str]) -> None:
    # a binary outcome: the default takes the gamma null there, not 1,000 permutations
    arguments = ["--speed", "--settings", "eo-binary-a3", "--sizes", "150", "--repetitions", "1"]
    assert independence_test.main([*arguments, "--permutations", "9"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    names = ["faircocco default", "faircocco permutation B=9"]
    assert all(any(name in line for line in lines) for name in names)
    assert all(line.split()[0] == "eo-binary-a3" and "median" in line for line in lines)


def test_routes_benchmark_prints_both_routes_and_autos_pick(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks import routes

    arguments = ["--rows", "150", "400", "--repeats", "1", "--exact-up-to", "400"]
    assert routes.main(arguments) == 0
    out = capsys.readouterr().out
    assert "command:  python -m benchmarks.routes --rows 150 400 --repeats 1" in out
    rows = re.findall(r"^ +(\d+)  .* (exact|lowrank)  .*$", out, flags=re.MULTILINE)
    assert [n for n, _ in rows] == ["150", "400"]
    # every cell measured: exact, low-rank, auto, the estimates and both permuted statistics
    for line in out.splitlines()[-2:]:
        assert line.count(" ms") + line.count(" s") == 7, line


def test_test_benchmark_runs_rcit_beside_kci(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("causallearn")
    dependent = independence_test.sample("eo-continuous-a1", 400, True, np.random.default_rng(0))
    strong = independence_test.Sample(
        dependent.y_pred + 3 * independence_test._numeric(dependent.attribute)[:, 0],
        dependent.attribute,
        dependent.y_true,
        dependent.notion,
    )
    assert independence_test.rcit_pvalue(strong, 0) < 1e-3
    assert independence_test.rcit_pvalue(strong, 0) == independence_test.rcit_pvalue(strong, 0)
    arguments = ["--speed", "--settings", "eo-binary-a1", "--sizes", "120", "--repetitions", "1"]
    assert independence_test.main([*arguments, "--permutations", "0", "--no-default"]) == 0
    (rcit,) = [line for line in capsys.readouterr().out.splitlines() if "RCIT  median" in line]
    assert "this / RCIT 1 " not in rcit and re.search(r"this / RCIT 1$", rcit)
