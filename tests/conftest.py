"""Shared by the whole suite: reproducible property tests, and a line on the tests that skipped
for want of the paper's datasets."""

from __future__ import annotations

from typing import Any

from hypothesis import settings


def pytest_terminal_summary(terminalreporter: Any) -> None:
    skipped = terminalreporter.stats.get("skipped", [])
    # a skipped report's longrepr is (file, line, reason)
    without_data = [r for r in skipped if "FAIRCOCCO_DATA" in str(getattr(r, "longrepr", ""))]
    if without_data:
        terminalreporter.write_line(
            f"{len(without_data)} tests skipped: they read the paper's datasets from "
            "$FAIRCOCCO_DATA, which is not set or lacks their files (CI sets it)",
            yellow=True,
        )


# property tests draw the same examples on every run, so a failure reproduces
settings.register_profile("reproducible", derandomize=True, database=None)
settings.load_profile("reproducible")
