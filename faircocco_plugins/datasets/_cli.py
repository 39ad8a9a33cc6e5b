"""The ``faircocco datasets`` subcommand: list the datasets and where their files are."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ._files import ENV_CACHE, ENV_DATA, cache_dir
from ._registry import list_datasets

#: Columns of the plain-text table, in order.
_SHOWN = ("task", "rows", "paper_rows", "available", "origin", "attributes")


def register(commands: Any) -> None:
    """Add the ``datasets`` subparser to the ``faircocco`` command's subparsers."""
    parser = commands.add_parser(
        "datasets",
        help="list the datasets and whether their raw files are available",
        description="List the registered datasets: task, rows, sensitive attributes, origin, and "
        f"whether their raw files are available under --data-dir, ${ENV_DATA} or the user cache "
        f"(${ENV_CACHE}). Nothing is downloaded or loaded.",
    )
    parser.add_argument("--data-dir", metavar="DIR", help="directory searched first for raw files")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per dataset (all columns)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the table of :func:`list_datasets`; return the exit status."""
    table = list_datasets(data_dir=args.data_dir)
    if args.json:
        records = json.loads(table.reset_index().to_json(orient="records"))
        print(json.dumps(records, indent=2))
        return 0
    shown = table[list(_SHOWN)].astype(object).where(table[list(_SHOWN)].notna(), "-")
    shown["available"] = [
        "yes" if available else "network" if downloadable else "no"
        for available, downloadable in zip(table["available"], table["downloadable"], strict=True)
    ]
    print(shown.to_string())
    print(f"\nraw files are looked for under --data-dir, ${ENV_DATA}, then {cache_dir()}")
    if (shown["available"] == "network").any():
        print(
            "network: not here; loading it downloads it, which needs the network (once: "
            "downloads are cached, fairlearn's datasets in fairlearn's own cache)"
        )
    return 0
