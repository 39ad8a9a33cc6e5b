"""Shared fixtures of the torch adapter's tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

try:
    import torch
except ImportError:  # pragma: no cover - the test modules skip themselves
    torch = None  # type: ignore[assignment]


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread() -> Iterator[None]:
    """Small-batch work runs faster, and timings vary less, on one intra-op thread."""
    if torch is None:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say how many tests skipped for want of the paper's datasets."""
    skipped = terminalreporter.stats.get("skipped", [])
    without_data = [r for r in skipped if "FAIRCOCCO_DATA" in str(getattr(r, "longrepr", ""))]
    if without_data:
        terminalreporter.write_line(
            f"{len(without_data)} tests skipped: they read the paper's datasets from "
            "$FAIRCOCCO_DATA, which is not set or lacks their files (CI sets it)",
            yellow=True,
        )
