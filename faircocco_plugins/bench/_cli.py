"""``faircocco bench``: run a head-to-head study and write its runs to a results store.

.. code-block:: console

   $ faircocco bench --preset quick --jobs 2
   $ faircocco bench --datasets adult,german --methods nn,faircocco --notions eo --seeds 3
   $ faircocco bench --preset paper --backend dask --address tcp://scheduler:8786
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import warnings
from typing import Any

import pandas as pd

from ._cli_args import missing_extra_error, names, non_negative_int, positive_int

#: Default results store, in the current directory.
DEFAULT_STORE = "faircocco-results.sqlite"
#: Exit status after Ctrl-C, as shells report a process ended by SIGINT.
INTERRUPTED = 130

#: Options that become study settings, in the order a resume command lists them.
_STUDY_OPTIONS = (
    ("study", "--study"),
    ("preset", "--preset"),
    ("datasets", "--datasets"),
    ("methods", "--methods"),
    ("notions", "--notions"),
    ("seeds", "--seeds"),
    ("grid", "--grid"),
    ("epochs", "--epochs"),
    ("warmup_epochs", "--warmup-epochs"),
    ("max_train_rows", "--max-train-rows"),
    ("max_eval_rows", "--max-eval-rows"),
    ("data_dir", "--data-dir"),
    ("jobs", "--jobs"),
    ("backend", "--backend"),
    ("address", "--address"),
    ("store", "--store"),
    ("report", "--report"),
)


def register(commands: Any) -> None:
    """Add the ``bench`` subcommand to the ``faircocco`` command's subparsers."""
    from .._records.notions import NOTIONS
    from ._backends import BACKENDS
    from ._metrics import STUDIED_NOTIONS
    from ._presets import PRESETS

    bench = commands.add_parser(
        "bench",
        help="run fairness methods head to head and store the runs",
        description="Run every method on every dataset, notion, seed and hyper-parameter "
        "setting, one run per cell, and write each finished run to a SQLite results store. "
        "Running the same command again skips the runs the store already has, so an "
        "interrupted study resumes where it stopped. Presets: "
        + "; ".join(f"{p.name}: {p.description}" for p in PRESETS.values())
        + ". Explicit options override the preset's values.",
    )
    bench.add_argument("--preset", choices=sorted(PRESETS), help="named study settings")
    bench.add_argument(
        "--study",
        metavar="NAME",
        help="name of the study in the store (default: the preset's name, else 'default')",
    )
    bench.add_argument("--datasets", type=names, metavar="A,B", help="datasets to run")
    bench.add_argument(
        "--methods", type=names, metavar="A,B", help="methods to run (default: all installed)"
    )
    bench.add_argument(
        "--notions",
        type=names,
        metavar="N,N",
        help=f"among {', '.join(NOTIONS)} (default: the preset's, else "
        f"{', '.join(STUDIED_NOTIONS)})",
    )
    bench.add_argument(
        "--seeds", type=positive_int, metavar="N", help="run seeds 0..N-1 (default: 10)"
    )
    bench.add_argument(
        "--grid",
        choices=("full", "quick"),
        help="each method's full or quick sweep (default: full)",
    )
    bench.add_argument("--epochs", type=positive_int, metavar="N", help="training epochs")
    bench.add_argument(
        "--warmup-epochs",
        type=non_negative_int,
        metavar="N",
        help="epochs without the penalty first",
    )
    bench.add_argument(
        "--max-train-rows", type=positive_int, metavar="N", help="subsample the training part"
    )
    bench.add_argument(
        "--max-eval-rows",
        type=positive_int,
        metavar="N",
        help="subsample the validation and test parts",
    )
    bench.add_argument("--data-dir", metavar="DIR", help="directory searched first for data")
    bench.add_argument(
        "--jobs", type=positive_int, default=None, metavar="N", help="parallel workers (default: 1)"
    )
    bench.add_argument(
        "--backend", choices=BACKENDS, default=None, help="where cells run (default: local)"
    )
    bench.add_argument(
        "--address", metavar="ADDR", help="scheduler address for --backend dask or ray"
    )
    bench.add_argument("--store", metavar="PATH", help=f"results store (default: {DEFAULT_STORE})")
    bench.add_argument(
        "--report",
        metavar="DIR",
        help="write the study's report into DIR when it completes, as 'faircocco report STORE "
        "--out DIR' does (checked before the study runs)",
    )
    bench.add_argument(
        "--tune-learning-rate",
        action="store_true",
        help="with a preset that has a tuning stage (paper-cpu): sweep every method that has a "
        "learning rate over the tuning stage's learning rates instead of fixing the one chosen "
        "for the network, so that selection on validation picks each method's (the batch size "
        "stays the chosen one)",
    )
    bench.add_argument(
        "--retry-failed", action="store_true", help="run again the cells that failed before"
    )
    bench.add_argument(
        "--estimate",
        action="store_true",
        help="print the number of cells and the expected time from the store's measured runs, "
        "and exit without running",
    )
    bench.add_argument(
        "--list-methods",
        action="store_true",
        help="list the installed methods and what they support, and exit",
    )
    bench.set_defaults(run=run, bench_parser=bench)


def run(args: argparse.Namespace) -> int:
    """Run the study the parsed arguments describe; returns the exit status.

    Parameters
    ----------
    args : argparse.Namespace
        Arguments parsed by the ``bench`` subparser.

    Returns
    -------
    int
        0 when the study ran to its end (failed cells included: they are recorded), 130 when
        interrupted by Ctrl-C.
    """
    status = missing_extra_error("bench", "the harness")
    if status is not None:
        return status
    from ..plugins import BrokenMethodWarning, available_methods
    from ._presets import PRESETS, preset_config
    from ._progress import default_progress, format_duration
    from ._runner import run_study
    from ._study import StudyConfig

    parser: argparse.ArgumentParser = args.bench_parser
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BrokenMethodWarning)
        methods = available_methods(on_error="warn")
    for warning in caught:
        print(f"faircocco bench: warning: {warning.message}", file=sys.stderr)
    if args.list_methods:
        _list_methods(methods)
        return 0
    if args.address is not None and args.backend in (None, "local"):
        parser.error("--address needs --backend dask or --backend ray")
    if args.tune_learning_rate and (args.preset is None or not PRESETS[args.preset].tune_training):
        tuned = ", ".join(name for name, preset in PRESETS.items() if preset.tune_training)
        parser.error(f"--tune-learning-rate needs a preset with a tuning stage ({tuned})")
    settings = {
        "name": args.study,
        "datasets": args.datasets,
        "methods": args.methods,
        "notions": args.notions,
        "seeds": None if args.seeds is None else tuple(range(args.seeds)),
        "grid": args.grid,
        "epochs": args.epochs,
        "warmup_epochs": args.warmup_epochs,
        "max_train_rows": args.max_train_rows,
        "max_eval_rows": args.max_eval_rows,
    }
    if args.preset is not None:
        config, notes = preset_config(args.preset, data_dir=args.data_dir, **settings)
    else:
        if args.datasets is None:
            parser.error("name the datasets with --datasets A,B or choose a --preset")
        config = StudyConfig(
            data_dir=args.data_dir, **{k: v for k, v in settings.items() if v is not None}
        )
        notes = []
    for note in notes:
        # an estimate is of the datasets the note names, so the note goes with it
        print(f"note: {note}", file=sys.stdout if args.estimate else sys.stderr)
    store = args.store if args.store is not None else DEFAULT_STORE
    if args.report is not None and not args.estimate:
        from ._report import check_report_folder

        check_report_folder(args.report)  # before the study, not after it
    options = {
        "backend": args.backend or "local",
        "jobs": args.jobs or 1,
        "address": args.address,
        "methods": methods,
        "retry_failed": args.retry_failed,
    }
    if args.preset is not None and PRESETS[args.preset].tune_training:
        config, status = _tuned(config, store, args.estimate, options, args.tune_learning_rate)
        if status is not None:
            return status
    if args.estimate:
        return _print_estimate(config, store, methods, args.jobs or 1)
    summary = run_study(config, store, progress=default_progress(), **options)
    print(
        f"study {summary.study}: {summary.total} cells: {summary.done} done, "
        f"{summary.skipped} skipped as already complete, {summary.not_applicable} not "
        f"applicable, {summary.failed} failed"
        + (f", {summary.by_others} run by another process" if summary.by_others else "")
        + (f", {summary.remaining} not run" if summary.remaining else "")
        + f" (elapsed {format_duration(summary.elapsed)})"
    )
    print(f"store: {summary.store}")
    if summary.interrupted:
        print(
            f"interrupted: the store holds every finished cell; resume with: {_command(args)}",
            file=sys.stderr,
        )
        return INTERRUPTED
    if args.report is None:
        print(f"write a report: faircocco report {shlex.quote(summary.store)} --out report")
        return 0
    from ._report import write_report

    print(f"report written to {write_report(summary.store, args.report, study=summary.study)}")
    return 0


def _tuned(
    config: Any, store: str, estimate: bool, options: dict[str, Any], tune_learning_rate: bool
) -> tuple[Any, int | None]:
    """The study with each dataset's training parameters fixed by its tuning stage, run first
    into a store of its own (with ``tune_learning_rate``, the batch size alone, and every method
    over the tuning stage's learning rates); and an exit status when the command ends here."""
    from ._progress import default_progress
    from ._protocol import (
        TRAINING_PARAMS,
        chosen_training,
        tuning_config,
        tuning_store,
        with_training,
    )
    from ._runner import run_study
    from ._store import ResultsStore

    tuning, path = tuning_config(config), tuning_store(store)
    grid = options["methods"]["nn"].param_grid
    rates = grid["learning_rate"] if tune_learning_rate else None

    def choice() -> dict[str, dict[str, Any]]:
        with ResultsStore(path, read_only=True) as opened:
            return chosen_training(opened.runs(tuning.name))

    if estimate:
        print(f"tuning stage ({path}):")
        _print_estimate(tuning, str(path), options["methods"], options["jobs"])
        # the settings chosen so far; elsewhere the first, as the number of cells does not
        # depend on which setting is chosen
        chosen = choice() if path.exists() else {}
        first = {key: grid[key][0] for key in TRAINING_PARAMS if key in grid}
        fixed = {name: chosen.get(name, first) for name in config.datasets}
        return with_training(config, fixed, learning_rates=rates), None
    print(f"tuning stage: the network over its learning rates and batch sizes, into {path}")
    summary = run_study(tuning, path, progress=default_progress(), **options)
    if summary.interrupted:
        print(f"interrupted: resume with the same command ({path} keeps every finished cell)")
        return config, INTERRUPTED
    chosen = choice()
    missing = [name for name in config.datasets if name not in chosen]
    if missing:
        print(
            f"faircocco bench: error: the tuning stage has no usable run on {missing} "
            f"(failed or degenerate): see faircocco report {shlex.quote(str(path))}",
            file=sys.stderr,
        )
        return config, 1
    for name, params in chosen.items():
        print(f"  {name}: {', '.join(f'{k}={v}' for k, v in params.items())}")
    if rates is not None:
        print(f"  every method over the learning rates {list(rates)}, the batch size as chosen")
    return with_training(config, chosen, learning_rates=rates), None


def _print_estimate(config: Any, store: str, methods: dict[str, Any], jobs: int) -> int:
    from ._protocol import estimate, plan_cells, tuning_store
    from ._store import ResultsStore

    cells = plan_cells(config, methods)
    runs, done = [], {}
    for path in dict.fromkeys([store, str(tuning_store(store))]):
        if os.path.exists(path):
            with ResultsStore(path, read_only=True) as opened:
                runs.append(opened.runs())
                if path == store:
                    done = opened.completed(config.name)
    measured = pd.concat(runs, ignore_index=True) if runs else pd.DataFrame()
    print(f"study {config.name}: {estimate(cells, measured, done).describe(jobs)}")
    return 0


def _list_methods(methods: dict[str, Any]) -> None:
    for name, spec in methods.items():
        caps = spec.capabilities
        print(f"{name}: {spec.description}")
        print(
            f"  tasks {', '.join(caps.tasks)}; notions {', '.join(caps.notions)}; attributes "
            f"{', '.join(caps.attributes)} ({caps.multiple_attributes}); outcomes under eo/cal "
            f"{', '.join(caps.outcomes)}"
        )
        sweep = ", ".join(f"{k} in {list(v)}" for k, v in spec.param_grid.items())
        print(f"  sweep: {sweep or 'none'}")
        if caps.note:
            print(f"  note: {caps.note}")


def _command(args: argparse.Namespace) -> str:
    """The ``faircocco bench`` command that reruns the same study."""
    words = ["faircocco", "bench"]
    for attribute, option in _STUDY_OPTIONS:
        value = getattr(args, attribute)
        if value is None:
            continue
        words += [option, ",".join(value) if isinstance(value, tuple | list) else str(value)]
    if args.tune_learning_rate:
        words.append("--tune-learning-rate")
    if args.retry_failed:
        words.append("--retry-failed")
    return shlex.join(words)
