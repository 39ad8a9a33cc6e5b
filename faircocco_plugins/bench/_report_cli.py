"""``faircocco report``: write the tables and figures of a results store.

.. code-block:: console

   $ faircocco report faircocco-results.sqlite --out report
   $ faircocco report results.sqlite --out report --study quick --formats md --no-plots
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._cli_args import (
    add_selection_options,
    command_error,
    figures_error,
    out_folder_error,
    report_formats,
)


def register(commands: Any) -> None:
    """Add the ``report`` subcommand to the ``faircocco`` command's subparsers."""
    report = commands.add_parser(
        "report",
        help="write the tables and Pareto figures of a results store",
        description="Write a study's report into a folder: one results table per notion "
        "(mean ± std over seeds of the test metrics of the hyper-parameters selected on "
        "validation data; degenerate models, which predict one class or an almost constant "
        "value, marked † and never in bold; the best other value in bold), Pareto figures of "
        "fairness against accuracy or MSE (PNG and SVG), the capability table of the methods, "
        "and an index page with the selection rule, the count of degenerate models, the "
        "study's configuration, versions and git revision.",
    )
    report.add_argument("store", metavar="STORE", help="the SQLite results store")
    report.add_argument("--out", required=True, metavar="DIR", help="the report folder")
    report.add_argument(
        "--study", metavar="NAME", help="report this study only (default: every study)"
    )
    report.add_argument(
        "--formats",
        type=report_formats,
        default=("md", "html"),
        metavar="md,html",
        help="formats of the tables and index pages (default: md,html)",
    )
    report.add_argument("--no-plots", action="store_true", help="skip the Pareto figures")
    add_selection_options(report)
    report.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from ._report import write_report
    from ._store import ResultsStore

    out = Path(args.out)
    status = figures_error("report", args.no_plots) or out_folder_error("report", out)
    if status is not None:
        return status
    # a missing store or study is a ValueError, printed by the command as one line; reporting
    # only reads the store, so a read-only one is reported too
    with ResultsStore(args.store, read_only=True) as store:
        try:
            folder = write_report(
                store,
                out,
                study=args.study,
                formats=args.formats,
                plots=not args.no_plots,
                tolerance=args.tolerance,
                adjusted=args.adjusted,
            )
        except OSError as error:
            where = error.filename if error.filename is not None else out
            return command_error(
                "report",
                f"cannot write the report to {where} ({error.strerror or error}); choose a "
                "writable --out folder",
            )
    pages = [folder / name for name in ("README.md", "index.html") if (folder / name).exists()]
    print(f"report written to {folder}")
    for page in pages:
        print(f"  {page}")
    return 0
