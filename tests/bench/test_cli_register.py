"""Each harness subcommand module registers its parser on its own, with its documented defaults."""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import Any

import pytest

from faircocco_plugins.bench import (
    _cli,
    _export_cli,
    _pages_cli,
    _paper_experiments_cli,
    _report_cli,
)


@pytest.mark.parametrize(
    ("module", "argv", "name", "expected"),
    [
        (_cli, ["bench", "--preset", "quick"], "preset", "quick"),
        (_export_cli, ["export", "results.sqlite", "--out", "runs.csv.gz"], "out", "runs.csv.gz"),
        (_export_cli, ["import", "runs.csv.gz", "--store", "new.sqlite"], "store", "new.sqlite"),
        (_report_cli, ["report", "results.sqlite", "--out", "report"], "formats", ("md", "html")),
        (_pages_cli, ["pages", "runs.csv.gz", "--paper", "p.csv", "--out", "docs"], "out", "docs"),
        (_pages_cli, ["mixed-page", "runs.csv.gz", "--out", "docs"], "out", "docs"),
        (_paper_experiments_cli, ["paper-experiment", "pvalues", "--out", "p.csv.gz"], "seeds", 3),
    ],
)
def test_register_adds_a_subcommand_that_parses_and_runs(
    module: ModuleType, argv: list[str], name: str, expected: Any
) -> None:
    parser = argparse.ArgumentParser(prog="faircocco")
    module.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    assert args.command == argv[0]
    assert getattr(args, name) == expected
    assert callable(args.run)
