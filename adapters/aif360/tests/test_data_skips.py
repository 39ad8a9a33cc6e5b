"""The run's summary says how many tests skipped for want of the paper's datasets, and why."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from conftest import pytest_terminal_summary


class Reporter:
    """The part of pytest's terminal reporter the summary uses."""

    def __init__(self, skipped: list[Any]) -> None:
        self.stats = {"skipped": skipped}
        self.lines: list[str] = []

    def write_line(self, line: str, **markup: bool) -> None:
        self.lines.append(line)


def skip(reason: str) -> SimpleNamespace:
    # a skipped report's longrepr is (file, line, reason)
    return SimpleNamespace(longrepr=("tests/test_loaders.py", 74, f"Skipped: {reason}"))


def test_the_summary_counts_the_tests_skipped_without_the_data_and_names_the_variable():
    reporter = Reporter(
        [
            skip("FAIRCOCCO_DATA is not set: the raw files are read from it"),
            skip("['german/german.data'] not under FAIRCOCCO_DATA"),
            skip("could not import 'aif360'"),
        ]
    )

    pytest_terminal_summary(reporter)

    assert reporter.lines == [
        "2 tests skipped: they read the paper's datasets from $FAIRCOCCO_DATA, which is not "
        "set or lacks their files (CI sets it)"
    ]


def test_the_summary_says_nothing_when_no_test_skipped_for_the_data():
    reporter = Reporter([skip("could not import 'aif360'")])

    pytest_terminal_summary(reporter)

    assert reporter.lines == []
