"""A pytest hook shared by the project's test suites (the core's and each adapter's): a line
on the tests that skipped for want of the datasets' files."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say how many tests skipped because ``$FAIRCOCCO_DATA`` lacks the datasets' files."""
    skipped = terminalreporter.stats.get("skipped", [])
    # a skipped report's longrepr is (file, line, reason)
    without_data = [r for r in skipped if "FAIRCOCCO_DATA" in str(getattr(r, "longrepr", ""))]
    if without_data:
        terminalreporter.write_line(
            f"{len(without_data)} tests skipped: they read the paper's datasets from "
            "$FAIRCOCCO_DATA, which is not set or lacks their files (CI sets it)",
            yellow=True,
        )
