"""Times and memory of the score's estimators: ``python benchmarks/score.py [--quick]``.

It prints, for demographic parity (DP) and equalised odds (EO) with three sensitive attributes of
mixed type (one continuous, one binary, one with four levels), a binary outcome (or, with
``--outcome continuous``, a continuous one) and continuous predictions:

(a) exact and low-rank time at small N, the low-rank error against the exact score and the
    speed-up;
(b) low-rank time (cold first call and warm median) and peak memory at large N, each N in a fresh
    subprocess so that one measurement does not pollute the next, for calibration (CAL) too,
    with its time and memory against EO's;
(c) how time grows from N = 10⁵ to N = 10⁶;
(d) streaming time for 10⁷ rows in chunks of 10⁶;

with the machine it ran on, the command, and each target marked as met or missed. Benchmarks are
not tests: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np
import pandas as pd
import scipy
from threadpoolctl import threadpool_info

from faircocco_plugins import __version__, faircocco_score, make_synthetic
from faircocco_plugins.plugins import Interval, check_params

NOTIONS = ("dp", "eo")
#: The notions measured at large N: CAL conditions on the continuous predictions, which makes
#: its extended attribute variable's factor the widest (performance docs, "CAL at scale").
LOWRANK_NOTIONS = (*NOTIONS, "cal")
ATTRIBUTES = ["age", "sex", "region"]
#: The kinds of outcome of the data: ``binary`` (a label) or ``continuous`` (a regression target).
OUTCOMES = ("binary", "continuous")
MIB = 2.0**20
GIB = 2.0**30


@dataclass(frozen=True)
class Sizes:
    """The sizes one run of the benchmark measures."""

    exact: tuple[int, ...]
    lowrank: tuple[int, ...]
    stream_rows: int
    stream_chunk: int

    @classmethod
    def full(cls) -> Sizes:
        return cls((500, 1000, 2000, 3000), (10**4, 10**5, 10**6), 10**7, 10**6)

    @classmethod
    def quick(cls) -> Sizes:
        return cls((200, 400), (10**3, 10**4), 10**5, 10**4)


@dataclass(frozen=True)
class Target:
    """One target and whether the measured figure meets it."""

    description: str
    value: float
    limit: float
    unit: str
    higher_is_better: bool = False
    digits: int = 2

    @property
    def met(self) -> bool:
        if not np.isfinite(self.value):
            return False
        return self.value >= self.limit if self.higher_is_better else self.value <= self.limit

    def line(self) -> dict[str, str]:
        sign = "≥" if self.higher_is_better else "≤"
        space = "" if self.unit in ("", "x") else " "
        return {
            "target": self.description,
            "measured": f"{self.value:,.{self.digits}f}{space}{self.unit}",
            "limit": f"{sign} {self.limit:,.{self.digits}f}{space}{self.unit}",
            "status": "met" if self.met else "missed",
        }


#: One measured entry of a section: its figures by name.
Entry = Mapping[str, Any]


@dataclass
class BenchResult:
    """Everything one run measured, by section (times in seconds, memory in bytes)."""

    exact: dict[tuple[str, int], dict[str, float]] = field(default_factory=dict)
    lowrank: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    stream: dict[str, dict[str, Any]] = field(default_factory=dict)
    targets: list[Target] = field(default_factory=list)


def bench_data(
    n: int, seed: int = 0, outcome: str = "binary"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predictions, attributes ``(age, sex, region)`` as an ``n × 3`` float array, and outcomes.

    The binary and four-level attributes are float columns, so the low-rank estimator detects
    their few distinct values and factors them exactly over their levels. A ``binary`` outcome
    and the predictions are :func:`make_synthetic`'s; a ``continuous`` outcome is a regression
    target that follows age and sex, and the predictions follow it, age and sex, with noise.
    Under EO and CAL the extended attributes then hold two continuous columns (age and the
    outcome or the predictions).
    """
    people = make_synthetic(n, random_state=seed)
    age = people["age"].to_numpy(dtype=np.float64)
    male = (people["sex"] == "m").to_numpy(dtype=np.float64)
    attributes = np.column_stack(
        [age, male, people["region"].cat.codes.to_numpy().astype(np.float64)]
    )
    if outcome == "binary":
        return people["y_pred"].to_numpy(), attributes, people["y_true"].to_numpy()
    rng = np.random.default_rng([seed, 1])
    y_true = 0.04 * (age - 49.0) + 0.8 * male - 0.4 + rng.normal(size=n)
    y_pred = y_true + 0.05 * (age - 49.0) + male - 0.5 + rng.normal(scale=0.7, size=n)
    return y_pred, attributes, y_true


def bench_frame(n: int, seed: int = 0, outcome: str = "binary") -> pd.DataFrame:
    """The data of :func:`bench_data` as a DataFrame, the form a stream of chunks takes."""
    y_pred, attributes, y_true = bench_data(n, seed, outcome)
    frame = pd.DataFrame(attributes, columns=ATTRIBUTES)
    frame["y_true"] = y_true
    frame["y_pred"] = y_pred
    return frame


def run(
    *,
    quick: bool = False,
    repeats: int = 3,
    command: str | None = None,
    out: TextIO | None = None,
    seed: int = 0,
    outcome: str = "binary",
) -> BenchResult:
    """Run the benchmark and print its tables to ``out`` (standard output by default).

    Parameters
    ----------
    quick : bool
        Measure small sizes only (N up to 10⁴, streaming 10⁵ rows), in a few seconds.
    repeats : int
        Number of timed calls after one warm-up call; the median is reported.
    command : str, optional
        The command line to print in the header (default: this process's arguments).
    out : file, optional
        Where to print.
    seed : int
        Seed of the synthetic data.
    outcome : {"binary", "continuous"}
        The kind of outcome of the data (:func:`bench_data`).

    Returns
    -------
    BenchResult
    """
    check_params({"repeats": repeats}, {"repeats": Interval("integer", 1)})
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome={outcome!r} is not valid; expected one of {OUTCOMES}.")
    bench = _BenchRun(
        Sizes.quick() if quick else Sizes.full(),
        quick,
        repeats,
        (seed, outcome),
        BenchResult(),
        sys.stdout if out is None else out,
    )
    for line in _header(command, quick, repeats, outcome):
        bench.emit(line)
    for section in (
        _section_exact,
        _section_lowrank,
        _section_scaling,
        _section_stream,
        _section_targets,
    ):
        section(bench)
    return bench.result


@dataclass(frozen=True)
class _BenchRun:
    """What every section of one run reads: the sizes, the options, the data's seed and
    outcome, the results gathered so far, and where to print."""

    sizes: Sizes
    quick: bool
    repeats: int
    data: tuple[int, str]
    result: BenchResult
    out: TextIO

    def emit(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)


def _header(command: str | None, quick: bool, repeats: int, outcome: str) -> list[str]:
    if command is None:
        command = " ".join([os.path.basename(sys.argv[0]), *sys.argv[1:]])
    cores = os.cpu_count() or 0
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    lines = [
        "FairCOCCO score benchmark",
        "=========================",
        f"command:  {command}",
        f"date:     {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        f"machine:  {_cpu_model()}, {cores} logical cores ({usable} usable), "
        f"{_memory_total()}, {platform.system()} {platform.machine()}",
        f"load:     {load} (1, 5, 15 min averages at start)",
        f"software: faircocco-plugins {__version__}, Python {platform.python_version()}, "
        f"numpy {np.__version__}, "
        f"scipy {scipy.__version__}, pandas {pd.__version__}",
        f"BLAS:     {_blas_description()}",
        "          (the scores run on 1 BLAS thread; see set_config)",
        "data:     synthetic; attributes age (continuous), sex (binary, float 0/1), region "
        + (
            "(4 levels, float codes); binary y_true; y_pred a probability"
            if outcome == "binary"
            else "(4 levels, float codes); continuous y_true; y_pred a regression output"
        ),
        f"timing:   time.perf_counter; 'warm' is the median of {repeats} calls after one warm-up "
        "call; 'cold' is the first call in a fresh process",
    ]
    if quick:
        lines.append(
            "mode:     --quick (reduced sizes); the targets are defined for the full sizes, so "
            "met/missed here only exercises the harness"
        )
    return [*lines, ""]


def _section_exact(bench: _BenchRun) -> None:
    bench.emit("(a) exact vs low-rank at small N (same process, warm)")
    for n in bench.sizes.exact:
        y_pred, attributes, y_true = bench_data(n, *bench.data)
        for notion in NOTIONS:
            timings = {}
            scores = {}
            for method in ("exact", "lowrank"):
                call = _scorer(y_pred, attributes, y_true, notion, method)
                scores[method], _, timings[method] = _timed(call, bench.repeats)
            entry = {
                "exact_s": timings["exact"],
                "lowrank_s": timings["lowrank"],
                "exact_score": scores["exact"],
                "lowrank_score": scores["lowrank"],
                "abs_diff": abs(scores["lowrank"] - scores["exact"]),
                "speedup": timings["exact"] / timings["lowrank"],
            }
            bench.result.exact[(notion, n)] = entry
    bench.emit(
        _entries_table(
            bench.result.exact, ("exact", "low-rank", "speed-up", "exact score", "|Δscore|")
        )
    )
    bench.emit("")


def _section_lowrank(bench: _BenchRun) -> None:
    bench.emit("(b) low-rank at large N (one fresh subprocess per N and notion)")
    method = ""
    for n in bench.sizes.lowrank:
        for notion in LOWRANK_NOTIONS:
            entry = _in_subprocess(
                ["lowrank", str(n), notion, str(bench.repeats), *map(str, bench.data)]
            )
            bench.result.lowrank[(notion, n)] = entry
            method = entry["rss_method"]
    bench.emit(
        _entries_table(
            bench.result.lowrank,
            ("cold", "warm", "peak MiB (tracemalloc)", "peak MiB (RSS)", "score"),
        )
    )
    bench.emit(
        "memory: 'tracemalloc' is the peak of traced allocations (numpy's included) during one "
        "call; 'RSS' is the process's peak resident set during the cold call minus its resident "
        f"set just before it ({method}), after imports and data creation"
    )
    bench.emit("")


def _section_scaling(bench: _BenchRun) -> None:
    small, large = bench.sizes.lowrank[-2], bench.sizes.lowrank[-1]
    bench.emit(f"(c) growth of low-rank warm time from N = {small:,} to N = {large:,}")
    rows = []
    for notion in LOWRANK_NOTIONS:
        ratio = (
            bench.result.lowrank[(notion, large)]["warm_s"]
            / bench.result.lowrank[(notion, small)]["warm_s"]
        )
        rows.append(
            {
                "notion": notion.upper(),
                f"t({large:,}) / t({small:,})": f"{ratio:.2f}",
                "row ratio": f"{large / small:.0f}",
            }
        )
    bench.emit(_table(rows))
    bench.emit("")


def _section_stream(bench: _BenchRun) -> None:
    total, chunk = bench.sizes.stream_rows, bench.sizes.stream_chunk
    chunks = total // chunk
    bench.emit(
        f"(d) streaming {total:,} rows in {chunks} chunks of {chunk:,} "
        "rows (data=iterable of DataFrames, one fresh subprocess per notion)"
    )
    rows = []
    for notion in NOTIONS:
        entry = _in_subprocess(["stream", str(chunk), notion, str(chunks), *map(str, bench.data)])
        bench.result.stream[notion] = entry
        rows.append(
            {
                "notion": notion.upper(),
                "rows": f"{entry['rows']:,}",
                "time": _seconds(entry["seconds"]),
                "rows/s": f"{entry['rows'] / entry['seconds']:,.0f}",
                "peak MiB (tracemalloc)": f"{entry['traced_peak'] / MIB:,.0f}",
                "score": f"{entry['score']:.6f}",
            }
        )
    bench.emit(_table(rows))
    bench.emit(
        "one chunk is generated before the clock starts and yielded "
        f"{chunks} times; the estimator's work is the same for every chunk (bandwidths and "
        "pivots come from the first), so the time excludes data generation and parsing. The "
        "memory peak is from a second, traced pass."
    )
    bench.emit("")


def _section_targets(bench: _BenchRun) -> None:
    large, small = bench.sizes.lowrank[-1], bench.sizes.lowrank[-2]
    exact_n = bench.sizes.exact[-1]
    targets: list[Target] = []
    for notion, limit in (("dp", 1.0), ("eo", 1.5)):
        entry = bench.result.lowrank[(notion, large)]
        targets.append(
            Target(
                f"low-rank {notion.upper()} warm time, N = {large:,}", entry["warm_s"], limit, "s"
            )
        )
    for notion in NOTIONS:
        peak = _peak_memory(bench.result.lowrank[(notion, large)]) / MIB
        targets.append(
            Target(
                f"low-rank {notion.upper()} peak memory, N = {large:,}",
                peak,
                GIB / MIB,
                "MiB",
                digits=0,
            )
        )
    cal, eo = bench.result.lowrank[("cal", large)], bench.result.lowrank[("eo", large)]
    for quantity, ratio in (
        ("warm time", cal["warm_s"] / eo["warm_s"]),
        ("peak memory", _peak_memory(cal) / _peak_memory(eo)),
    ):
        targets.append(Target(f"CAL / EO low-rank {quantity}, N = {large:,}", ratio, 2.0, "x"))
    for notion in NOTIONS:
        ratio = (
            bench.result.lowrank[(notion, large)]["warm_s"]
            / bench.result.lowrank[(notion, small)]["warm_s"]
        )
        targets.append(
            Target(f"{notion.upper()} t({large:,}) / t({small:,})", ratio, 12.0, "", digits=2)
        )
    for notion in NOTIONS:
        speedup = bench.result.exact[(notion, exact_n)]["speedup"]
        targets.append(
            Target(
                f"{notion.upper()} low-rank speed-up over exact, N = {exact_n:,}",
                speedup,
                20.0,
                "x",
                higher_is_better=True,
                digits=1,
            )
        )
    for notion in NOTIONS:
        entry = bench.result.stream[notion]
        targets.append(
            Target(
                f"{notion.upper()} streaming {entry['rows']:,} rows", entry["seconds"], 20.0, "s"
            )
        )
    bench.result.targets = targets
    quick = " (defined for the full sizes; --quick figures shown)" if bench.quick else ""
    bench.emit("targets" + quick)
    bench.emit(_table([t.line() for t in targets]))
    bench.emit("memory targets use the larger of the tracemalloc and RSS peaks")
    met = sum(t.met for t in targets)
    bench.emit(f"{met} of {len(targets)} targets met")


def _peak_memory(entry: dict[str, Any]) -> float:
    """The larger of a measurement's tracemalloc and RSS peaks, in bytes."""
    return float(max(entry["traced_peak"], entry["rss_delta"]))


def _scorer(
    y_pred: np.ndarray, attributes: np.ndarray, y_true: np.ndarray, notion: str, method: str
) -> Callable[[], float]:
    """A call of :func:`faircocco_score` on fixed arrays, ready to be timed."""

    def call() -> float:
        return float(
            faircocco_score(y_pred, attributes, y_true=y_true, notion=notion, method=method)
        )

    return call


def _timed(call: Callable[[], float], repeats: int) -> tuple[float, float, float]:
    """Value, cold time and warm (median) time of ``call``."""
    start = time.perf_counter()
    value = call()
    cold = time.perf_counter() - start
    return value, cold, _warm_time(call, repeats)


def _warm_time(call: Callable[[], float], repeats: int) -> float:
    """The median time of ``repeats`` further calls of ``call``."""
    warm = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        warm.append(time.perf_counter() - start)
    return statistics.median(warm)


def _traced_peak(call: Callable[[], float]) -> int:
    """The peak of traced allocations (numpy's included) during one call of ``call``, in bytes."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _in_subprocess(arguments: Sequence[str]) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter and return what it reports."""
    completed = subprocess.run(
        [sys.executable, __file__, "--measure", *arguments],
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(
            f"benchmark subprocess {' '.join(arguments)} failed:\n{completed.stderr.strip()}"
        )
    reported: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return reported


# --- measurements run inside the subprocess -------------------------------------------------


def _lowrank_worker(n: int, notion: str, repeats: int, seed: int, outcome: str) -> dict[str, Any]:
    call = _scorer(*bench_data(n, seed, outcome), notion, "lowrank")
    gc.collect()
    baseline, rss_method = _reset_peak_rss()
    start = time.perf_counter()
    score = call()
    cold = time.perf_counter() - start
    rss_delta = _peak_rss() - baseline
    return {
        "score": score,
        "cold_s": cold,
        "warm_s": _warm_time(call, repeats),
        "traced_peak": _traced_peak(call),
        "rss_delta": rss_delta,
        "rss_method": rss_method,
    }


def _stream_worker(
    chunk_rows: int, notion: str, chunks: int, seed: int, outcome: str
) -> dict[str, Any]:
    chunk = bench_frame(chunk_rows, seed, outcome)

    def stream() -> Iterator[pd.DataFrame]:
        for _ in range(chunks):
            yield chunk

    def call() -> float:
        return float(
            faircocco_score(
                "y_pred",
                ATTRIBUTES,
                y_true="y_true",
                notion=notion,
                method="lowrank",
                data=stream(),
            )
        )

    gc.collect()
    start = time.perf_counter()
    score = call()
    seconds = time.perf_counter() - start
    return {
        "score": score,
        "seconds": seconds,
        "rows": chunk_rows * chunks,
        "traced_peak": _traced_peak(call),
    }


def _reset_peak_rss() -> tuple[int, str]:
    """Reset the peak resident set size where Linux allows it; return the baseline in bytes."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return _status_kib("VmRSS") * 1024, "peak reset through /proc/self/clear_refs"
    except OSError:
        return _peak_rss(), "ru_maxrss over its value before the call"


def _peak_rss() -> int:
    try:
        return _status_kib("VmHWM") * 1024
    except (OSError, KeyError):
        import resource

        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def _status_kib(key: str) -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


# --- formatting ---------------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory_total() -> str:
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 2**20:.0f} GiB RAM"
    except OSError:
        pass
    return "RAM unknown"


def _blas_description() -> str:
    libraries = [info for info in threadpool_info() if info.get("user_api") == "blas"]
    if not libraries:
        return "no BLAS library found by threadpoolctl"
    return "; ".join(
        f"{_blas_owner(info)}: {info.get('internal_api')} {info.get('version')} "
        f"({info.get('architecture', '?')}, {info.get('num_threads')} threads by default)"
        for info in libraries
    )


def _blas_owner(info: dict[str, Any]) -> str:
    """Which package ships a BLAS library, from its path (``numpy.libs``, ``scipy.libs``)."""
    path = str(info.get("filepath", ""))
    for owner in ("numpy", "scipy"):
        if f"{owner}.libs" in path or f"{os.sep}{owner}{os.sep}" in path:
            return owner
    return os.path.basename(path) or "BLAS"


def _seconds(value: float) -> str:
    if value >= 1.0:
        return f"{value:.2f} s"
    return f"{value * 1e3:.1f} ms"


#: How a column of the tables of entries shows an entry, by the column's header.
ENTRY_COLUMNS: dict[str, Callable[[Entry], str]] = {
    "exact": lambda e: _seconds(e["exact_s"]),
    "low-rank": lambda e: _seconds(e["lowrank_s"]),
    "speed-up": lambda e: f"{e['speedup']:.1f}x",
    "exact score": lambda e: f"{e['exact_score']:.6f}",
    "|Δscore|": lambda e: f"{e['abs_diff']:.1e}",
    "cold": lambda e: _seconds(e["cold_s"]),
    "warm": lambda e: _seconds(e["warm_s"]),
    "peak MiB (tracemalloc)": lambda e: f"{e['traced_peak'] / MIB:,.0f}",
    "peak MiB (RSS)": lambda e: f"{e['rss_delta'] / MIB:,.0f}",
    "score": lambda e: f"{e['score']:.6f}",
}


def _entries_table(entries: Mapping[tuple[str, int], Entry], headers: Sequence[str]) -> str:
    """The table of entries keyed by notion and N: one row each, with the named columns."""
    return _table(
        [
            {"notion": notion.upper(), "N": f"{n:,}", **{h: ENTRY_COLUMNS[h](e) for h in headers}}
            for (notion, n), e in entries.items()
        ]
    )


def _table(rows: Sequence[Mapping[str, str]]) -> str:
    """A plain-text table of rows keyed by their column's header: text columns left-aligned,
    the others right-aligned."""
    headers = list(rows[0])
    cells = [[row[h] for h in headers] for row in rows]
    widths = [max(len(h), *(len(r[j]) for r in cells)) for j, h in enumerate(headers)]
    left = [all(not _looks_numeric(r[j]) for r in cells) for j in range(len(headers))]

    def format_row(cells: Sequence[str]) -> str:
        parts = [
            c.ljust(w) if is_left else c.rjust(w)
            for c, w, is_left in zip(cells, widths, left, strict=True)
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([format_row(headers), rule, *(format_row(r) for r in cells)])


def _looks_numeric(cell: str) -> bool:
    return bool(cell) and (cell[0].isdigit() or cell[0] in "≤≥-.")


def _worker_main(arguments: list[str]) -> None:
    kind, size, notion, count, seed, *rest = arguments
    outcome = rest[0] if rest else "binary"  # KIND N NOTION COUNT SEED [OUTCOME]
    if kind == "lowrank":
        report = _lowrank_worker(int(size), notion, int(count), int(seed), outcome)
    elif kind == "stream":
        report = _stream_worker(int(size), notion, int(count), int(seed), outcome)
    else:
        raise SystemExit(f"unknown measurement {kind!r}")
    print(json.dumps(report))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark from the command line (``--measure`` runs one measurement)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["--measure"]:
        _worker_main(arguments[1:])
        return 0
    parser = argparse.ArgumentParser(
        prog="python benchmarks/score.py",
        description="Time the exact and low-rank estimators of the score and print a table with "
        "the machine, the command and the targets met or missed. Takes a few minutes.",
    )
    parser.add_argument("--quick", action="store_true", help="small sizes only (seconds)")
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        metavar="K",
        help="timed calls after one warm-up call; the median is reported (default: 3)",
    )
    parser.add_argument(
        "--outcome",
        choices=OUTCOMES,
        default="binary",
        help="the kind of outcome of the data (default: binary); with a continuous one the "
        "extended attributes of EO and CAL hold two continuous columns",
    )
    args = parser.parse_args(arguments)
    run(
        quick=args.quick,
        repeats=args.repeats,
        command=" ".join([parser.prog, *arguments]),
        outcome=args.outcome,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
