"""``faircocco pages``: the results pages of the paper's study, from its export; and
``faircocco mixed-page``: the page of the mixed-attribute study, from its export.

.. code-block:: console

   $ faircocco pages docs/results/paper/runs.csv.gz \\
         --paper docs/results/paper/paper_numbers.csv --out docs/results \\
         --tuning docs/results/paper/tuning.csv.gz
   $ faircocco mixed-page docs/results/mixed/runs.csv.gz --out docs/results
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from ._cli_args import add_selection_options, command_error, figures_error, out_folder_error
from ._selection import DEFAULT_TOLERANCE

#: The tables of ``faircocco paper-experiment`` that add a page each.
EXPERIMENT_OPTIONS: dict[str, str] = {
    "convergence": "the page of the score's convergence with batch size",
    "attributes": "the page of the sensitivity to the number of attributes",
    "pvalues": "the page of p-values against λ (Table 13)",
}
#: The exports of the study's variants that make the sensitivity page, by variant.
SENSITIVITY_OPTIONS: dict[str, str] = {
    "lr": "the study rerun with each method's learning rate selected on validation "
    "(faircocco bench --tune-learning-rate)",
    "epochs": "the study rerun with more epochs (faircocco bench --epochs 100)",
}


def register(commands: Any) -> None:
    """Add the ``pages`` subcommand to the ``faircocco`` command's subparsers."""
    pages = commands.add_parser(
        "pages",
        help="write the results pages of the paper's study (Sphinx) from its export",
        description="Write Sphinx pages from a study's export ('faircocco export'): the "
        "paper's Tables 3, 9 and 11 (binary attribute under EO, DP and CAL) and Table 4 "
        "(several attributes) with our selected models beside the paper's numbers, the fronts "
        "of performance against the chance-adjusted FairCOCCO score with their hypervolumes "
        "(PNG figures), and the smallest λ that halves the network's unfairness with its cost. "
        "Each page starts with this command, the git revision, the machine and the study's "
        "time.",
    )
    pages.add_argument("export", metavar="EXPORT", help="the study's export (.csv or .csv.gz)")
    pages.add_argument(
        "--paper", required=True, metavar="FILE", help="the paper's numbers (paper_numbers.csv)"
    )
    pages.add_argument("--out", required=True, metavar="DIR", help="the pages' folder")
    pages.add_argument("--tuning", metavar="EXPORT", help="the export of the study's tuning stage")
    for name, what in EXPERIMENT_OPTIONS.items():
        pages.add_argument(
            f"--{name}",
            metavar="FILE",
            help=f"the table of 'faircocco paper-experiment {name}': {what}",
        )
    for name, what in SENSITIVITY_OPTIONS.items():
        pages.add_argument(
            f"--sensitivity-{name}",
            metavar="FILE",
            help=f"the export of {what}: adds the sensitivity page",
        )
    add_selection_options(pages)
    pages.add_argument(
        "--relative-to",
        metavar="METHOD",
        help="make the tolerance a share of this method's validation score on the same seed "
        "(e.g. '--tolerance 0.5 --adjusted --relative-to nn': the most accurate setting that "
        "halves the network's chance-adjusted score); one of the export's methods",
    )
    pages.add_argument(
        "--no-plots", action="store_true", help="skip the figures of the fronts page"
    )
    pages.set_defaults(run=_run)
    mixed = commands.add_parser(
        "mixed-page",
        help="write the page of the mixed-attribute study (Sphinx) from its export",
        description="Write mixed.rst from the export of the 'mixed' study: FairCOCCO's test "
        "accuracy against each group method on binned groups where the two are equally fair "
        "(the model of each seed chosen on validation), on DI and DEO on the baseline's own "
        "groups, deciles, intersections and the worst grouping, and on dependence (HSIC, "
        "distance correlation), judged by the rule of the claims page (practical margins, "
        "Holm's correction within DI, DEO and dependence, a symmetric verdict with its "
        "counts); with how much of the study the export covers. A partial export gives "
        "undecided comparisons. The page ends with this command, the git revision, the "
        "machine and the study's time.",
    )
    mixed.add_argument("export", metavar="EXPORT", help="the study's export (.csv or .csv.gz)")
    mixed.add_argument(
        "--out", required=True, metavar="DIR", help="the page's folder (mixed.rst is written there)"
    )
    mixed.add_argument("--no-plots", action="store_true", help="skip the page's figures")
    mixed.set_defaults(run=_run_mixed)


def command_line(args: argparse.Namespace) -> str:
    """The command that writes the pages, as a user would type it."""
    words = ["faircocco", "pages", args.export, "--paper", args.paper, "--out", args.out]
    if args.tuning is not None:
        words += ["--tuning", args.tuning]
    for name in EXPERIMENT_OPTIONS:
        if getattr(args, name) is not None:
            words += [f"--{name}", getattr(args, name)]
    for name in SENSITIVITY_OPTIONS:
        if _sensitivity(args, name) is not None:
            words += [f"--sensitivity-{name}", _sensitivity(args, name)]
    if args.tolerance != DEFAULT_TOLERANCE:
        words += ["--tolerance", f"{args.tolerance:g}"]
    if args.adjusted:
        words.append("--adjusted")
    if args.relative_to is not None:
        words += ["--relative-to", args.relative_to]
    if args.no_plots:
        words.append("--no-plots")
    return shlex.join(words)


def _run(args: argparse.Namespace) -> int:
    from .paper import write_pages

    status = figures_error("pages", args.no_plots)
    if status is not None:
        return status
    for option, path in (
        ("EXPORT", args.export),
        ("--paper", args.paper),
        ("--tuning", args.tuning),
        *((f"--{name}", getattr(args, name)) for name in EXPERIMENT_OPTIONS),
        *((f"--sensitivity-{name}", _sensitivity(args, name)) for name in SENSITIVITY_OPTIONS),
    ):
        if path is not None and not Path(path).is_file():
            return command_error("pages", f"{option} {path} is not a file")
    status = out_folder_error("pages", args.out)
    if status is not None:
        return status
    written = write_pages(
        args.export,
        args.paper,
        args.out,
        command=command_line(args),
        tuning=args.tuning,
        tolerance=args.tolerance,
        adjusted=args.adjusted,
        relative_to=args.relative_to,
        plots=not args.no_plots,
        experiments={
            name: getattr(args, name)
            for name in EXPERIMENT_OPTIONS
            if getattr(args, name) is not None
        },
        sensitivity={
            name: path
            for name in SENSITIVITY_OPTIONS
            if (path := _sensitivity(args, name)) is not None
        },
    )
    print(f"{len(written)} pages written to {args.out}")
    return 0


def mixed_command_line(args: argparse.Namespace) -> str:
    """The command that writes the mixed-attribute study's page, as a user would type it."""
    words = ["faircocco", "mixed-page", args.export, "--out", args.out]
    return shlex.join([*words, "--no-plots"] if args.no_plots else words)


def _run_mixed(args: argparse.Namespace) -> int:
    from .paper import write_mixed_page

    status = figures_error("mixed-page", args.no_plots)
    if status is not None:
        return status
    if not Path(args.export).is_file():
        return command_error("mixed-page", f"EXPORT {args.export} is not a file")
    status = out_folder_error("mixed-page", args.out)
    if status is not None:
        return status
    written = write_mixed_page(
        args.export, args.out, command=mixed_command_line(args), plots=not args.no_plots
    )
    print(f"page written to {written}")
    return 0


def _sensitivity(args: argparse.Namespace, name: str) -> str | None:
    """The export given with ``--sensitivity-<name>``, or None."""
    value: str | None = getattr(args, f"sensitivity_{name}")
    return value
