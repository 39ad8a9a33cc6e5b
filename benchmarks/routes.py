"""The score's two routes and ``method="auto"``'s pick: ``python -m benchmarks.routes``.

For three sensitive attributes of mixed type (continuous, binary, four levels) and a continuous
outcome (the data of ``benchmarks/score.py --outcome continuous``), under EO by default, it
prints at each N:

* the exact and the low-rank estimator's score time (best of ``--repeats`` warm calls; exact up
  to ``--exact-up-to`` rows) and the low-rank features' widest width;
* the route ``method="auto"`` takes, its time, and the cost model's estimates it chose by
  (:func:`exact_seconds` and :func:`lowrank_seconds` on levels-times-pivots widths; up to
  10,000 rows, beyond which only the low-rank estimator runs);
* one permuted statistic of each route's permutation null (the attributes permuted alone within
  local strata of the outcome, and refitted), up to ``--permute-up-to`` rows.

Each score runs on one BLAS thread (the package's setting). Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks.score import bench_data
from faircocco_plugins import __version__, faircocco_score
from faircocco_plugins._estimators.exact import MAX_EXACT_ROWS, exact_seconds
from faircocco_plugins._estimators.moments import GroupedMoments
from faircocco_plugins._estimators.pivots import lowrank_seconds
from faircocco_plugins._estimators.strata import members_of, permutation_batches
from faircocco_plugins._estimators.terms import Role
from faircocco_plugins._options import Options
from faircocco_plugins._records.notions import notion_named
from faircocco_plugins._routes.problem import Problem, roles_of

ROWS = (100, 300, 1000, 2000, 3000, 10**4, 10**5, 10**6)
#: Permutations timed together for one permuted statistic's time.
PERMUTATIONS = 8


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=list(ROWS))
    parser.add_argument("--notion", choices=("dp", "eo"), default="eo")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--exact-up-to", type=int, default=3000)
    parser.add_argument("--permute-up-to", type=int, default=2000)
    args = parser.parse_args(argv)
    given = sys.argv[1:] if argv is None else list(argv)
    command = " ".join(["python -m benchmarks.routes", *given])
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"command:  {command}")
    print(f"date:     {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC")
    print(f"machine:  {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(f"load:     {load} (1, 5, 15 min averages at start)")
    print(f"software: faircocco-plugins {__version__}, numpy {np.__version__}")
    print(f"notion:   {args.notion}; continuous outcome; attributes continuous, binary, 4 levels")
    print()
    header = (
        f"{'N':>9}  {'exact':>9}  {'low-rank':>9}  {'width':>5}  {'auto':>9}  {'pick':>7}  "
        f"{'est. exact':>10}  {'est. lr':>9}  {'perm. exact':>11}  {'perm. lr':>9}"
    )
    print(header)
    print("-" * len(header))
    for n in args.rows:
        print(_row(n, args), flush=True)
    return 0


def _row(n: int, args: argparse.Namespace) -> str:
    y_pred, attributes, y_true = bench_data(n, 0, "continuous")
    truth = None if args.notion == "dp" else y_true

    def score(method: str) -> Callable[[], float]:
        return lambda: faircocco_score(
            y_pred, attributes, y_true=truth, notion=args.notion, method=method
        )

    exact = _best(score("exact"), args.repeats) if n <= args.exact_up_to else None
    lowrank = _best(score("lowrank"), args.repeats)
    auto = _best(score("auto"), args.repeats)
    methods = (
        ["exact", "lowrank"] if n <= min(args.exact_up_to, args.permute_up_to) else ["lowrank"]
    )
    fits = {method: _fit(y_pred, attributes, truth, args.notion, method) for method in methods}
    pick = _fit(y_pred, attributes, truth, args.notion, "auto").terms.method
    estimates = _estimates(y_pred, attributes, truth, args.notion) if n <= MAX_EXACT_ROWS else None
    permuted = {
        method: _permuted_seconds(fit) if n <= args.permute_up_to else None
        for method, fit in fits.items()
    }
    cells = [
        f"{n:>9,}",
        f"{_ms(exact):>9}",
        f"{_ms(lowrank):>9}",
        f"{fits['lowrank'].terms.rank:>5}",
        f"{_ms(auto):>9}",
        f"{pick:>7}",
        f"{_ms(None if estimates is None else estimates[0]):>10}",
        f"{_ms(None if estimates is None else estimates[1]):>9}",
        f"{_ms(permuted.get('exact')):>11}",
        f"{_ms(permuted.get('lowrank')):>9}",
    ]
    return "  ".join(cells)


def _fit(y_pred: Any, attributes: Any, y_true: Any, notion: str, method: str) -> Any:
    options = Options.check(notion=notion, method=method)
    return Problem.from_arguments(y_pred, attributes, y_true, options).fit()


def _estimates(y_pred: Any, attributes: Any, y_true: Any, notion: str) -> tuple[float, float]:
    """The cost model's seconds of each route, as ``method="auto"`` computes them."""
    problem = Problem.from_arguments(y_pred, attributes, y_true, Options.check(notion=notion))
    problem = problem.in_row_order
    roles = roles_of(notion, **problem.kernel_inputs(problem.scalings()))
    ridge = problem.options.ridge
    moments = GroupedMoments(roles, Role.GIVEN in roles, None, ridge, pivot_jointly=False)
    moments.add(roles, problem.like)
    conditional = notion_named(notion).given is not None
    return exact_seconds(problem.n, conditional), lowrank_seconds(problem.n, moments.widths)


def _permuted_seconds(fit: Any) -> float:
    """Seconds of one permuted statistic of ``fit``'s null, from :data:`PERMUTATIONS`."""
    rng = np.random.default_rng(0)
    permutations = next(permutation_batches(members_of(fit.strata), rng, PERMUTATIONS))
    fit.permuted_statistics(permutations[:1])  # warm-up
    start = time.perf_counter()
    fit.permuted_statistics(permutations)
    return (time.perf_counter() - start) / len(permutations)


def _best(call: Callable[[], float], repeats: int) -> float:
    call()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 10:
        return f"{seconds:.1f} s"
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


if __name__ == "__main__":
    sys.exit(main())
