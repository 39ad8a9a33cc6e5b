"""``faircocco paper-experiment``: run one of the paper's smaller experiments into a CSV.

.. code-block:: console

   $ faircocco paper-experiment convergence --out docs/results/paper/convergence.csv.gz \\
         --tuning docs/results/paper/tuning.csv.gz
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from .._inputs.files import check_writable
from ._cli_args import command_error, missing_extra_error, names, non_negative_int, positive_int


def register(commands: Any) -> None:
    """Add the ``paper-experiment`` subcommand to the ``faircocco`` command's subparsers."""
    from .paper import EXPERIMENTS

    parser = commands.add_parser(
        "paper-experiment",
        help="run one of the paper's smaller experiments (convergence, attributes, p-values)",
        description="Train the harness's networks for one of the paper's experiments outside "
        "the study's grid and write its table as CSV (gzipped for a .gz name): 'convergence', "
        "the FairCOCCO score on random batches of 16 to 2048 rows against its full-data value "
        "(Adult, German; EO and DP; the network and FairCOCCO at λ = 5); 'attributes', "
        "FairCOCCO over λ in {0, 1, 5, 20} protecting 1 to k attributes jointly (Communities, "
        "Students, Drugs; EO); 'pvalues', accuracy, DEO, DI, the score and the permutation "
        "test's p-value over λ in {0, 0.2, 0.5, 1, 2, 5, 10, 20} (Adult; EO and DP). "
        "'faircocco pages --convergence/--attributes/--pvalues' draws them.",
    )
    parser.add_argument("experiment", choices=EXPERIMENTS, help="the experiment to run")
    parser.add_argument("--out", required=True, metavar="FILE", help="the table (.csv or .csv.gz)")
    parser.add_argument(
        "--seeds", type=positive_int, default=3, metavar="N", help="seeds 0 to N-1 (default 3)"
    )
    parser.add_argument(
        "--tuning",
        metavar="EXPORT",
        help="the export of a study's tuning stage: each dataset's chosen learning rate and "
        "batch size (default: the network's quick-grid setting)",
    )
    parser.add_argument(
        "--datasets",
        type=names,
        metavar="NAMES",
        help="the datasets of 'convergence', or the one of 'pvalues' (default: the paper's)",
    )
    parser.add_argument("--epochs", type=positive_int, help="training epochs (default 20)")
    parser.add_argument(
        "--warmup-epochs", type=non_negative_int, help="epochs before the penalty (default 2)"
    )
    parser.add_argument(
        "--max-train-rows", type=positive_int, help="training rows at most (default 30,000)"
    )
    parser.add_argument("--data-dir", metavar="DIR", help="directory of the datasets' raw files")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    status = missing_extra_error(
        "paper-experiment",
        "the networks",
        ("torch", "faircocco_torch"),
        hint=" (pip install -e adapters/torch)",
    )
    if status is not None:
        return status
    if args.tuning is not None and not Path(args.tuning).is_file():
        return command_error("paper-experiment", f"--tuning {args.tuning} is not a file")
    if Path(args.out).is_dir() or not Path(args.out).parent.is_dir():
        return command_error(
            "paper-experiment", f"--out {args.out} must name a file in an existing folder"
        )
    check_writable(args.out, "--out")  # before the hours of training
    if args.datasets is not None and args.experiment == "attributes":
        return command_error("paper-experiment", "--datasets does not apply to 'attributes'")
    if args.datasets is not None and args.experiment == "pvalues" and len(args.datasets) != 1:
        return command_error("paper-experiment", "'pvalues' takes one dataset in --datasets")
    from .paper import RUNNERS, ExperimentSettings, write_table

    given = {
        "epochs": args.epochs,
        "warmup_epochs": args.warmup_epochs,
        "max_train_rows": args.max_train_rows,
    }
    settings = ExperimentSettings(
        seeds=tuple(range(args.seeds)),
        training=_training(args.tuning),
        data_dir=args.data_dir,
        progress=not args.quiet,
        **{key: value for key, value in given.items() if value is not None},
    )
    runner = RUNNERS[args.experiment]
    options: dict[str, Any] = {}
    if args.datasets is not None:
        key = "datasets" if args.experiment == "convergence" else "dataset"
        options[key] = args.datasets if key == "datasets" else args.datasets[0]
    started = time.perf_counter()
    table = runner(settings, **options)
    write_table(table, args.out)
    seconds = time.perf_counter() - started
    print(f"{len(table)} rows written to {args.out} in {seconds:.0f} s")
    return 0


def _training(tuning: str | None) -> dict[str, dict[str, Any]]:
    if tuning is None:
        return {}
    from ._protocol import chosen_training
    from .paper import load_runs

    return chosen_training(load_runs(tuning)[1])
