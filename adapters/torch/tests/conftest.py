"""Shared fixtures of the torch adapter's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from faircocco_plugins.datasets._test_skips import pytest_terminal_summary  # noqa: F401

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
