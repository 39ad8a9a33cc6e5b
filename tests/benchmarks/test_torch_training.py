"""The benchmark command runs end to end (a smoke test: it times, it asserts no speed)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("faircocco_torch")

from benchmarks import torch_training as bench


def test_bench_prints_tables_and_targets(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["--synthetic", "--rows", "600", "--steps", "3", "--batch-sizes", "256"]
    assert bench.main(arguments) == 0
    output = capsys.readouterr().out
    assert "synthetic stand-in" in output
    for method in bench.METHODS:
        assert method in output
    assert "FairCOCCO, 3 attr." in output and "FACL, 3 attr." in output
    assert "FairCOCCO step <= FACL step at batch 256" in output
    assert "FairCOCCO epoch <= 2x unregularised epoch at batch 256" in output
    assert output.count(" -> m") == 2  # each target is marked met or missed
