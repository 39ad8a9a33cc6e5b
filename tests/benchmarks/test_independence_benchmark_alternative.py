"""``benchmarks/independence_test.py --alternative-only``: power without the null draws."""

from __future__ import annotations

import pytest

from benchmarks import independence_test


def test_alternative_only_prints_power_alone(capsys: pytest.CaptureFixture[str]) -> None:
    """One row per test that applies (hyppo's HSIC does not under EO, so it has none)."""
    arguments = ["--settings", "eo-binary-a2", "--sizes", "120", "--repetitions", "2"]
    arguments += ["--nulls", "gamma", "--alternative-only", "--no-adjusted"]
    assert independence_test.main(arguments) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines and all("power" in line and "size" not in line for line in lines)
    assert not any("HSIC" in line for line in lines)


def test_null_only_and_alternative_only_exclude_each_other() -> None:
    with pytest.raises(ValueError, match="alternative_only"):
        independence_test.run(settings=["dp"], null_only=True, alternative_only=True)
    with pytest.raises(SystemExit):
        independence_test.main(["--null-only", "--alternative-only"])
