"""Shared by the whole suite: reproducible property tests, and a line on the tests that skipped
for want of the paper's datasets."""

from __future__ import annotations

from hypothesis import settings

from faircocco_plugins.datasets._test_skips import pytest_terminal_summary  # noqa: F401

# property tests draw the same examples on every run, so a failure reproduces
settings.register_profile("reproducible", derandomize=True, database=None)
settings.load_profile("reproducible")
