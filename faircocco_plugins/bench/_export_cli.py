"""``faircocco export`` and ``faircocco import``: a study's compact export, and resuming from it.

.. code-block:: console

   $ faircocco export results/paper.sqlite --out docs/results/paper/runs.csv.gz
   $ faircocco import docs/results/paper/runs.csv.gz --store new.sqlite
   $ faircocco bench --preset paper-cpu --store new.sqlite   # runs only the missing cells
"""

from __future__ import annotations

import argparse
from typing import Any


def register(commands: Any) -> None:
    """Add the ``export`` and ``import`` subcommands to the ``faircocco`` command's subparsers."""
    export = commands.add_parser(
        "export",
        help="write a results store's runs as one compact CSV (one row per run and part)",
        description="Write every run of a results store (or of one study) to a CSV file, "
        "gzipped when its name ends in .gz: one row per run and evaluated part, with the "
        "dataset, notion, method, seed, strength, learning rate, batch size, the metrics and "
        "the store's own fields, so that 'faircocco import' can restore the runs exactly. "
        "An earlier export at FILE is replaced; another file only with --force.",
    )
    export.add_argument("store", metavar="STORE", help="the SQLite results store")
    export.add_argument("--out", required=True, metavar="FILE", help="the export (.csv or .csv.gz)")
    export.add_argument("--study", metavar="NAME", help="export this study only")
    export.add_argument(
        "--force",
        action="store_true",
        help="replace an existing FILE that is not an earlier export (never the store, another "
        "SQLite database, or a file SQLite keeps beside one: -wal, -shm, -journal)",
    )
    export.set_defaults(run=_export)

    restore = commands.add_parser(
        "import",
        help="add the runs of an export to a results store, to resume its study",
        description="Add the runs of a file written by 'faircocco export' to a results store "
        "(created when missing), skipping runs it holds already. Running the same study on "
        "that store then computes only the cells that are missing. Every row is checked first "
        "(its run id against its parameters, its metrics against their ranges, its part and "
        "seed), and so is the store: one of another study or configuration is refused.",
    )
    restore.add_argument("export", metavar="EXPORT", help="a file written by 'faircocco export'")
    restore.add_argument("--store", required=True, metavar="STORE", help="the results store")
    restore.set_defaults(run=_import)


def _export(args: argparse.Namespace) -> int:
    from ..plugins import available_methods
    from ._export import write_export

    # a broken adapter should not stop the export: its methods get an empty strength
    sweeps = {name: spec.sweep_param for name, spec in available_methods(on_error="warn").items()}
    count = write_export(
        args.store, args.out, study=args.study, sweep_params=sweeps, force=args.force
    )
    print(f"{count} runs exported to {args.out}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from ._export import import_export

    added, skipped = import_export(args.export, args.store)
    print(f"{added} runs added to {args.store} ({skipped} were there already)")
    return 0
