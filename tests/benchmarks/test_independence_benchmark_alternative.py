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


def test_each_conditioning_eps_is_a_variant_of_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["--settings", "eo-binary-a1", "--sizes", "120", "--repetitions", "2"]
    arguments += ["--nulls", "spectral", "--conditioning-eps", "default,1e-3"]
    arguments += ["--null-only", "--no-peers", "--no-adjusted"]
    assert independence_test.main(arguments) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    assert "eps=default spectral" in lines[0]
    assert "eps=default ceps=0.001 spectral" in lines[1]


def test_speed_times_the_spectral_null_and_can_leave_out_the_default() -> None:
    times = independence_test.speed(
        settings=["dp-binary-a1"], sizes=[120], repetitions=1, default=False
    )
    methods = set(times["method"])
    assert {"faircocco gamma", "faircocco spectral"} <= methods
    assert "faircocco default" not in methods
