"""Fixtures of the dataset tests: no network, an empty user cache, and a fresh registry.

The paper's datasets are read from ``$FAIRCOCCO_DATA`` (``<dir>/<dataset>/<file>``); a test of a
dataset whose files are not there is skipped. Nothing here uses the network: every test runs with
downloads off and an empty user cache, and the download tests fetch ``file://`` URLs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from faircocco_plugins.datasets import _registry


@pytest.fixture(autouse=True)
def dataset_offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Downloads off and an empty user cache, so only ``$FAIRCOCCO_DATA`` or tmp dirs count."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("FAIRCOCCO_DOWNLOAD", "0")
    monkeypatch.setenv("FAIRCOCCO_CACHE", str(cache))
    return cache


@pytest.fixture
def dataset_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[_registry.Registry]:
    """A fresh registry (built-ins only), so registrations do not leak between tests."""
    fresh = _registry.Registry(
        [*_registry.PAPER_SOURCES, *_registry.VARIANT_SOURCES, *_registry.SYNTHETIC_SOURCES]
    )
    monkeypatch.setattr(_registry, "_REGISTRY", fresh)
    monkeypatch.setattr(_registry.metadata, "entry_points", lambda group: [])
    yield fresh
