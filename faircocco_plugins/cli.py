"""The ``faircocco`` command: score a table, run the demo, run a head-to-head study.

Argument parsing and printing only; the work is done by the public API.

.. code-block:: console

   $ faircocco score people.csv --pred y_pred --sensitive sex,age --target y_true --notion eo
   $ faircocco score big.parquet --pred y_pred --sensitive sex,age --chunksize 1000000
   $ faircocco demo
   $ faircocco bench --preset quick
"""

from __future__ import annotations

import argparse
import csv
import os
import shlex
import sys
import time
import warnings
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from ._api import IndependenceTestResult, faircocco_report, independence_test
from ._inputs.files import refuse_special_file
from ._kernels.registry import KERNELS
from ._options import statistic_default
from ._records.notions import NOTION_RECORDS, NOTIONS, in_words, notion_named
from ._routes.choose import AUTO_EXACT_BELOW
from ._routes.stream import STREAM_FIT_ROWS

#: Without ``--chunksize``, files larger than this on disk are streamed rather than loaded.
STREAM_ABOVE_BYTES = 2**30
#: Rows per chunk when a large CSV file is streamed without ``--chunksize``.
DEFAULT_CHUNK_ROWS = 10**6
#: A smaller ``--chunksize`` is read this many rows at a time: so few rows take little memory,
#: and the cost of each chunk would otherwise dominate (16 rows/s in chunks of 5).
MIN_READ_ROWS = 10_000

#: A CSV column's distinct numbers and other values are counted up to this many each: a
#: column of numbers with fewer distinct other values is refused (they are stray words).
DISTINCT_COUNTED = 1000
#: Stray words named, with their rows, in the error.
STRAY_SHOWN = 3

#: The end of a CSV file read at a time when looking for its last line.
TAIL_BYTES = 2**16

#: Exit status when standard output is closed early, as shells report a process ended by SIGPIPE.
BROKEN_PIPE = 141
#: Exit status when the user interrupts the command (Ctrl-C), as shells report SIGINT.
INTERRUPTED = 130
#: Seeds are those numpy's generators take: integers in [0, 2**32).
SEED_LIMIT = 2**32
#: Seconds of one permutation of the test at 3,000 rows, at its default width and rank, and the
#: power of the rows its time grows with, by estimator (measured on two cores). Both permute
#: the rows of ``N × r`` factors. The exact one's are as wide as their kernel matrix's rank, up
#: to N, so its time grows as up to N² (2.4 ms is EO's with three mixed attributes and a binary
#: outcome); the low-rank one's width is capped, so its time grows as N (0.26 ms is one binary
#: attribute's; three mixed attributes, of a higher rank, took 1.9 ms). Where a continuous
#: conditioning variable makes each permutation refit the attribute side, it grows faster
#: still: these are lower bounds.
PERMUTATION_SECONDS_AT_3000: dict[str, tuple[float, int]] = {
    "exact": (2.4e-3, 2),
    "lowrank": (2.6e-4, 1),
}
#: No permutation takes less, whatever the rows (40 to 110 µs measured at 10 to 130 rows).
MIN_PERMUTATION_SECONDS = 4e-5
#: A permutation test expected to take longer is refused ...
PERMUTATION_BUDGET_SECONDS = 600.0
#: ... and one expected to take longer than this is announced with its estimate.
ANNOUNCE_ABOVE_SECONDS = 10.0

_CSV_SUFFIXES = (".csv", ".csv.gz")
_PARQUET_SUFFIXES = (".parquet", ".pq")


class CommandError(Exception):
    """A user error found by the command itself (bad file, missing column)."""


def main(argv: list[str] | None = None) -> int:
    """Run the ``faircocco`` command with ``argv`` (default: the process arguments).

    Returns the exit status: 0 on success, 2 on a usage or input error (printed as one line on
    standard error, without a traceback), 141 when standard output is closed early (``faircocco
    score FILE ... | head``) and 130 when interrupted (Ctrl-C), both quietly.
    """
    try:
        status = _main(argv)
        # written out here rather than at exit, where a closed pipe cannot be caught
        sys.stdout.flush()
    except KeyboardInterrupt:
        return INTERRUPTED
    except BrokenPipeError:
        # the reader has gone: send what is left to devnull, so that the flush at exit succeeds
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE
    return status


def _main(argv: list[str] | None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exit_:  # argparse exits on errors and on --help
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        if args.command == "score":
            return _score(args)
        if args.command == "demo":
            return _demo()
        return int(args.run(args))
    except SystemExit as exit_:  # parser.error() of a subcommand
        return exit_.code if isinstance(exit_.code, int) else 2
    except (CommandError, ValueError, TypeError) as error:
        message = " ".join(str(error).split())
        print(f"faircocco: error: {message}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="faircocco",
        description="FairCOCCO: kernel fairness scores for several sensitive attributes.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # imported here, so that importing this module (for ``main``) loads no harness
    from .bench import _cli as study_cli
    from .bench import _export_cli, _pages_cli, _paper_experiments_cli, _report_cli
    from .datasets import _cli as datasets_cli

    for module in (
        datasets_cli,
        study_cli,
        _report_cli,
        _export_cli,
        _pages_cli,
        _paper_experiments_cli,
    ):
        # each adds its subparsers and sets ``run``, a callable taking the parsed arguments
        module.register(commands)

    score = commands.add_parser(
        "score",
        help="score the predictions in a CSV or Parquet file",
        description="Score the predictions in a table against one or several sensitive columns "
        "and print the report: the joint score, then one row per attribute. String and boolean "
        "columns are nominal (delta kernel); numeric columns get the --kernel (a Gaussian by "
        "default). A CSV "
        "column of numbers with a few other values (fewer distinct ones than its numbers, "
        "such as a stray ? or unknown) is refused rather than read as labels.",
    )
    score.add_argument("file", metavar="FILE", help="a .csv, .csv.gz, .parquet or .pq file")
    score.add_argument("--pred", required=True, metavar="COL", help="column of predictions")
    score.add_argument(
        "--sensitive",
        required=True,
        metavar="COL[,COL...]",
        type=_column_list,
        help="sensitive column(s), comma-separated",
    )
    reading = [n for n, record in NOTION_RECORDS.items() if record.needs_outcome]
    score.add_argument(
        "--target",
        metavar="COL",
        help=f"column of true outcomes (needed for --notion {in_words(reading)})",
    )
    score.add_argument(
        "--notion",
        choices=NOTIONS,
        default="dp",
        help=f"{in_words([r.plain_title for r in NOTION_RECORDS.values()])} (default: dp)",
    )
    score.add_argument(
        "--method", choices=("auto", "exact", "lowrank"), default="auto", help="(default: auto)"
    )
    score.add_argument(
        "--attribute-kernel",
        choices=("product", "joint"),
        default="product",
        help=(
            "product of per-attribute kernels, or the paper's one joint Gaussian, here on the "
            "standardised attributes (default: product)"
        ),
    )
    score.add_argument(
        "--kernel",
        choices=tuple(KERNELS),
        default=statistic_default("kernel"),
        help=f"the kernel of numeric columns (default: {statistic_default('kernel')}): "
        + "; ".join(f"{k.name}, {k.description}" for k in KERNELS.values()),
    )
    score.add_argument(
        "--permutations",
        type=_positive_int,
        metavar="N",
        help="add the p-value of a permutation test with N permutations",
    )
    score.add_argument(
        "--chunksize",
        type=_positive_int,
        metavar="ROWS",
        help="stream the file in chunks of ROWS rows through the low-rank estimator",
    )
    score.add_argument(
        "--missing-values",
        type=_markers,
        metavar="TEXT[,TEXT...]",
        help="the field values of a CSV file read as missing, comma-separated, in place of "
        "pandas' list (NA, N/A, NULL, nan and others); an empty field is always missing. "
        "--missing-values '' reads every other field as a value, such as a region code NA",
    )
    score.add_argument(
        "--seed",
        type=_seed,
        metavar="N",
        help=f"seed of the bandwidth sample and permutations, from 0 to {SEED_LIMIT - 1}",
    )

    commands.add_parser(
        "demo",
        help="score a bundled synthetic example",
        description="Score a bundled synthetic example under DP and EO and print the reports.",
    )

    parser.set_defaults(score_parser=score)
    return parser


def _column_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of columns")
    return names


def _markers(text: str) -> list[str]:
    return [marker for marker in text.split(",") if marker]


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def _positive_int(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return value


def _seed(text: str) -> int:
    value = _integer(text)
    if not 0 <= value < SEED_LIMIT:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a seed; pass an integer from 0 to {SEED_LIMIT - 1}"
        )
    return value


# --- score --------------------------------------------------------------------------------------


def _score(args: argparse.Namespace) -> int:
    score_parser: argparse.ArgumentParser = args.score_parser
    if args.permutations is not None and args.chunksize is not None:
        score_parser.error(
            "--permutations needs the whole table in memory; it cannot be combined with --chunksize"
        )
    if notion_named(args.notion).needs_outcome and args.target is None:
        score_parser.error(f"--notion {args.notion} needs --target COL (the true outcome)")
    path: str = args.file
    if args.missing_values is not None and _format(path) != "csv":
        score_parser.error(
            f"--missing-values is for CSV files; {path} stores its missing values as nulls"
        )
    columns = [args.pred, *args.sensitive, *([] if args.target is None else [args.target])]
    names = _columns_of(path)
    _check_columns(path, names, args)
    _check_last_row(path, len(names))
    options: dict[str, Any] = {
        "notion": args.notion,
        "method": args.method,
        "attribute_kernel": args.attribute_kernel,
        "kernel": args.kernel,
        "random_state": args.seed,
    }
    chunksize = args.chunksize
    if chunksize is None and args.permutations is None and _is_large(path):
        chunksize = DEFAULT_CHUNK_ROWS if _format(path) == "csv" else None
        print(
            f"note: {path} is larger than {STREAM_ABOVE_BYTES // 2**20:,} MiB; streaming it "
            "(choose the chunk size with --chunksize)",
            file=sys.stderr,
        )
        return _score_stream(path, columns, chunksize, args, options)
    if chunksize is not None:
        return _score_stream(path, columns, chunksize, args, options)

    table = _read_table(path, columns, args.missing_values)
    if args.permutations is not None:
        _check_permutations(args.permutations, len(table), args.method)
    y_true = None if args.target is None else table[args.target]
    report = faircocco_report(table[args.pred], table[args.sensitive], y_true=y_true, **options)
    print(f"FairCOCCO report for {path}: {len(table):,} rows, notion {args.notion.upper()}")
    print(_format_report(report, args.sensitive))
    if args.permutations is not None:
        result = independence_test(
            table[args.pred],
            table[args.sensitive],
            y_true=y_true,
            n_permutations=args.permutations,
            null="permutation",
            progress=True,
            **options,
        )
        print(_format_test(result, args))
    return 0


def _check_permutations(permutations: int, rows: int, method: str) -> None:
    """Refuse a permutation test expected to outlast :data:`PERMUTATION_BUDGET_SECONDS` on the
    estimator ``method`` takes at ``rows`` rows; announce one that takes over
    :data:`ANNOUNCE_ABOVE_SECONDS`."""
    route = method if method != "auto" else "exact" if rows < AUTO_EXACT_BELOW else "lowrank"
    at_3000, power = PERMUTATION_SECONDS_AT_3000[route]
    each = max(at_3000 * (rows / 3000) ** power, MIN_PERMUTATION_SECONDS)
    seconds = permutations * each
    estimate = (
        f"--permutations {permutations:,} with the {route} estimator at {rows:,} rows would "
        f"take about {_duration(seconds)}"
    )
    if seconds > PERMUTATION_BUDGET_SECONDS:
        faster = (
            "--method lowrank (20 permutations of 3,000 rows take under a second), "
            if route == "exact"
            else ""
        )
        raise CommandError(
            f"{estimate}, over the budget of {PERMUTATION_BUDGET_SECONDS / 60:g} minutes; use "
            f"{faster}fewer permutations (1,000 give p-values down to 0.001), or a sample of "
            "the rows"
        )
    if seconds > ANNOUNCE_ABOVE_SECONDS:
        print(f"note: {estimate}", file=sys.stderr)


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} minutes"


def _format_test(result: IndependenceTestResult, args: argparse.Namespace) -> str:
    """The test's null hypothesis and p-value, and why its statistic is not the score."""
    columns = {"pred": args.pred, "truth": args.target}
    notion = notion_named(args.notion)
    measured, given = notion.measured, notion.given
    hypothesis = f"{columns[measured]} is independent of {', '.join(args.sensitive)}"
    if given is not None and notion.restricts_rows:
        hypothesis += f" on the rows where {columns[given]} is the positive class"
    elif given is not None:
        hypothesis += f" given {columns[given]}"
    widths = ", ".join(f"{w:g}" for w in result.widths)
    return (
        f"permutation test of {args.notion.upper()}, H0: {hypothesis}: p-value "
        f"{result.pvalue:.4f} ({args.permutations:,} permutations)\n"
        f"  its statistic uses eps {statistic_default('eps', 'test'):g} and kernel widths "
        f"{widths} × the median "
        "distance, for power, so it is not the score above"
    )


def _format_report(report: pd.DataFrame, attributes: list[str]) -> str:
    """The report as text, floats to 4 decimals, rows in the order the attributes were given."""
    first = ["joint", *(name for name in attributes if name in report.index)]
    order = [*dict.fromkeys(first), *(name for name in report.index if name not in first)]
    return report.loc[[name for name in order if name in report.index]].to_string(
        float_format=lambda value: f"{value:.4f}"
    )


def _score_stream(
    path: str,
    columns: list[str],
    chunksize: int | None,
    args: argparse.Namespace,
    options: dict[str, Any],
) -> int:
    read_rows = None if chunksize is None else max(chunksize, MIN_READ_ROWS)
    counter = _Counter(_read_chunks(path, columns, read_rows, args.missing_values))
    start = time.perf_counter()
    report = faircocco_report(
        args.pred, args.sensitive, y_true=args.target, data=counter, **options
    )
    seconds = time.perf_counter() - start
    fitted = (
        f"bandwidths and pivots from the first {STREAM_FIT_ROWS:,} rows"
        if counter.rows > STREAM_FIT_ROWS
        else "every row fitted at once, as in memory"
    )
    chunks = f"{counter.chunks:,} chunk{'' if counter.chunks == 1 else 's'}"
    print(
        f"FairCOCCO report for {path}: {counter.rows:,} rows in {chunks}, notion "
        f"{args.notion.upper()}, streamed ({fitted})"
    )
    print(_format_report(report, args.sensitive))
    rate = counter.rows / seconds if seconds > 0 else float("inf")
    print(f"time: {seconds:.2f} s ({rate:,.0f} rows/s, reading included)")
    return 0


class _Counter:
    """Passes chunks through, counting them and their rows."""

    def __init__(self, chunks: Iterator[pd.DataFrame]) -> None:
        self._chunks = chunks
        self.rows = 0
        self.chunks = 0

    def __iter__(self) -> Iterator[pd.DataFrame]:
        for chunk in self._chunks:
            self.rows += len(chunk)
            self.chunks += 1
            yield chunk


def _format(path: str) -> str:
    lower = path.lower()
    if lower.endswith(_CSV_SUFFIXES):
        return "csv"
    if lower.endswith(_PARQUET_SUFFIXES):
        return "parquet"
    raise CommandError(
        f"cannot tell the format of {path}; expected a file ending in "
        f"{', '.join(_CSV_SUFFIXES + _PARQUET_SUFFIXES)}"
    )


def _is_large(path: str) -> bool:
    return os.path.getsize(path) > STREAM_ABOVE_BYTES


def _columns_of(path: str) -> list[str]:
    """The column names of the file (and a clean error if it cannot be opened)."""
    kind = _format(path)
    if not os.path.exists(path):
        raise CommandError(f"file {path} does not exist")
    if os.path.isdir(path):
        raise CommandError(f"{path} is a directory, not a file")
    refuse_special_file(path, "file")
    with _reading(path):
        if kind == "csv":
            # the header as written: pandas would rename a repeated name to "name.1"
            header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False)
            names = [str(c) for c in header.iloc[0]]
        else:
            names = list(_parquet().ParquetFile(path).schema_arrow.names)
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise CommandError(
            f"{path} has more than one column named {repeated}; rename the copies so that "
            "each column has one name"
        )
    return names


#: What reading a damaged file raises: a corrupted or truncated gzip stream (OSError,
#: zlib.error, EOFError), bytes that are not text, a row with more fields than the header.
_READ_ERRORS = (OSError, EOFError, zlib.error, UnicodeDecodeError, pd.errors.ParserError)


@contextmanager
def _reading(path: str) -> Iterator[None]:
    """Turn the errors of reading ``path`` into one-line :class:`CommandError` messages.

    A first data row with more fields than the header, which pandas would silently drop
    (with a ``ParserWarning``), is an error too.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            yield
    except pd.errors.EmptyDataError:
        raise CommandError(f"{path} is empty") from None
    except (*_READ_ERRORS, pd.errors.ParserWarning) as error:
        raise CommandError(
            f"cannot read {path}: {error} (is the file truncated or corrupted, or does a row "
            "have more fields than the header?)"
        ) from None


def _check_columns(path: str, available: list[str], args: argparse.Namespace) -> None:
    wanted = [("--pred", args.pred), *(("--sensitive", s) for s in args.sensitive)]
    if args.target is not None:
        wanted.append(("--target", args.target))
    for option, name in wanted:
        if name not in available:
            raise CommandError(
                f"{option} names column {name!r}, which {path} does not have; "
                f"its columns are {available}"
            )


def _check_last_row(path: str, fields: int) -> None:
    """Refuse a plain CSV file cut off in its last row: a last line with no line end and fewer
    fields than the header, whose missing fields pandas would read as empty. (A cut gzip
    stream fails its own check; a cut within the last field cannot be told from a value.)
    Other files pass."""
    if not path.lower().endswith(".csv"):
        return
    with _reading(path), open(path, "rb") as file:
        line = _unended_last_line(file)
        # an odd number of quotes: the line starts inside a quoted field, or pandas refuses it
        if line is None or line.count(b'"') % 2:
            return
        found = len(next(csv.reader([line.decode("utf-8", "replace")])))
        if found >= fields:
            return
        file.seek(0)
        number = sum(block.count(b"\n") for block in iter(lambda: file.read(2**20), b"")) + 1
    raise CommandError(
        f"{path} ends in the middle of a row: line {number:,} has {found} of the header's "
        f"{fields} fields and no line end, as a truncated copy leaves it; complete or remove "
        "that line"
    )


def _unended_last_line(file: Any) -> bytes | None:
    """The last line of a binary file, or ``None`` when the file ends with a line end."""
    end = file.seek(0, os.SEEK_END)
    size = TAIL_BYTES
    while True:
        start = max(0, end - size)
        file.seek(start)
        tail = file.read()
        if tail[-1:] in (b"", b"\n", b"\r"):
            return None
        cut = max(tail.rfind(b"\n"), tail.rfind(b"\r"))
        if cut >= 0 or start == 0:
            return bytes(tail[cut + 1 :])
        size *= 2


def _read_table(path: str, columns: list[str], markers: list[str] | None) -> pd.DataFrame:
    unique = list(dict.fromkeys(columns))
    if _format(path) == "parquet":
        with _reading(path):
            return _parquet().read_table(path, columns=unique).to_pandas()
    with _reading(path):
        chunks = list(_csv_chunks(path, unique, DEFAULT_CHUNK_ROWS, markers))
        types = _ColumnTypes(chunks, unique)
        types.refuse_stray_text(path, markers)
        if types.disagree():  # read again, with one type per column
            chunks.clear()
            typed = types.of_file()
            chunks = list(_csv_chunks(path, unique, DEFAULT_CHUNK_ROWS, markers, dtype=typed))
    table = pd.concat(chunks, ignore_index=True)
    _refuse_missing(table, path, 0, markers)
    return table


def _read_chunks(
    path: str, columns: list[str], chunksize: int | None, markers: list[str] | None
) -> Iterator[pd.DataFrame]:
    """Chunks of the file: ``chunksize`` rows each, or Parquet row groups when it is ``None``."""
    unique = list(dict.fromkeys(columns))
    with _reading(path):
        if _format(path) == "csv":
            # a first pass over the named columns alone gives each column one type
            named = _csv_chunks(path, unique, DEFAULT_CHUNK_ROWS, markers, usecols=unique)
            counted = _ColumnTypes(named, unique)
            counted.refuse_stray_text(path, markers)
            types = counted.of_file()
            # as labels, a chunk of digits alone is not taken for numbers stored as text
            labels = {name: "category" for name, dtype in types.items() if dtype is str}
            rows = 0
            chunks = chunksize or DEFAULT_CHUNK_ROWS
            for chunk in _csv_chunks(path, unique, chunks, markers, dtype=types):
                _refuse_missing(chunk, path, rows, markers)
                rows += len(chunk)
                yield chunk.astype(labels)
            return
        parquet_file = _parquet().ParquetFile(path)
        if chunksize is None:
            for group in range(parquet_file.num_row_groups):
                yield parquet_file.read_row_group(group, columns=unique).to_pandas()
            return
        for batch in parquet_file.iter_batches(batch_size=chunksize, columns=unique):
            yield batch.to_pandas()


def _csv_chunks(
    path: str, columns: list[str], chunksize: int, markers: list[str] | None, **options: Any
) -> Iterator[pd.DataFrame]:
    """The ``columns`` of chunks of a CSV file, read with ``markers`` as missing values."""
    if markers is not None:
        options.update(keep_default_na=False, na_values=["", *markers])
    # without usecols every column is parsed, so that a row with extra fields is refused;
    # index_col=False keeps a first row with an extra field from becoming an index;
    # low_memory=False gives a chunk's column one type, not one per piece of the chunk
    with pd.read_csv(
        path, chunksize=chunksize, index_col=False, low_memory=False, **options
    ) as reader:
        for chunk in reader:
            yield chunk[columns]


class _ColumnTypes:
    """The types pandas gave the columns of a CSV file's chunks, guessing each chunk's apart,
    and from them each column's type in the whole file, as a read of the whole file at once
    gives it: numbers where every chunk holds numbers, else labels, the text as written (so
    that 7 and "7" are not two levels).

    Chunks where a column holds only missing values say nothing of its type. Beside the types,
    each column's distinct numbers and other values are counted, up to
    :data:`DISTINCT_COUNTED` each, for :meth:`refuse_stray_text`.
    """

    def __init__(self, chunks: Iterable[pd.DataFrame], columns: list[str]) -> None:
        self.seen: dict[str, set[Any]] = {name: set() for name in columns}
        self.gaps: set[str] = set()
        self.numbers: dict[str, set[float]] = {name: set() for name in columns}
        #: each value that is not a number, with the row it is first in (for the first few)
        self.text: dict[str, dict[str, int | None]] = {name: {} for name in columns}
        for chunk in chunks:
            for name in columns:
                present = chunk[name].notna()
                if not present.all():
                    self.gaps.add(name)
                if present.any():
                    self.seen[name].add(chunk[name].dtype)
                    self._count(name, chunk[name][present])

    def _count(self, name: str, values: pd.Series) -> None:
        numbers, text = self.numbers[name], self.text[name]
        if len(text) >= DISTINCT_COUNTED:
            return  # as many words as numbers can be counted: labels, whatever comes
        if values.dtype.kind in "iuf":
            numbers.update(pd.unique(values)[: DISTINCT_COUNTED - len(numbers)].tolist())
            return
        if values.dtype.kind == "b":
            return
        distinct = pd.Series(pd.unique(values))
        parsed = pd.to_numeric(distinct, errors="coerce")
        numbers.update(parsed.dropna().iloc[: DISTINCT_COUNTED - len(numbers)].tolist())
        for word in distinct[parsed.isna()]:
            if word not in text and len(text) < DISTINCT_COUNTED:
                shown = len(text) < STRAY_SHOWN
                text[word] = int(values.index[values == word][0]) + 1 if shown else None

    def refuse_stray_text(self, path: str, markers: list[str] | None) -> None:
        """Refuse a column of numbers with a few values that are not numbers: fewer distinct
        ones than its distinct numbers. They would make every number a label; where they
        are as varied as the numbers (zip codes 7 and A7), the column is one of labels."""
        for name, text in self.text.items():
            if not text or len(text) >= len(self.numbers[name]):
                continue
            words = list(text)[:STRAY_SHOWN]  # the first found, with their rows
            shown = ", ".join(f"{word!r} (first in row {text[word]:,})" for word in words)
            more = "" if len(text) <= STRAY_SHOWN else ", ..."
            count = f"{len(text)} value{' that is' if len(text) == 1 else 's that are'} not"
            option = shlex.quote(",".join([*(markers or []), *words]))
            option += " (and the others)" if more else ""
            raise CommandError(
                f"column {name!r} of {path} holds numbers and {count}: {shown}{more}; a "
                "column of numbers is not read as labels for a few other values. If they "
                f"mark missing values, pass --missing-values {option} (a missing value is "
                "then refused by its row, to fill in or drop); otherwise correct them"
            )

    def disagree(self) -> bool:
        return any(len(dtypes) > 1 for dtypes in self.seen.values())

    def of_file(self) -> dict[str, Any]:
        """The type to read each column with, for every chunk to give it the same."""
        types = {}
        for name, dtypes in self.seen.items():
            kinds = {dtype.kind for dtype in dtypes}
            if len(dtypes) == 1 and kinds <= set("iufb"):
                # integers or booleans with gaps are left to pandas: the gaps are refused
                if name not in self.gaps or kinds == {"f"}:
                    types[name] = next(iter(dtypes))
            elif kinds and kinds <= set("iuf"):
                types[name] = "float64"
            elif kinds:
                types[name] = str
        return types


def _refuse_missing(
    frame: pd.DataFrame, path: str, rows_before: int, markers: list[str] | None
) -> None:
    """Refuse a missing value of a CSV file by its row and column, with what reads as one."""
    gaps = np.argwhere(frame.isna().to_numpy())
    if not len(gaps):
        return
    row, column = gaps[0]
    if markers is None:
        read_as = "an empty field or a marker pandas reads as missing (NA, N/A, NULL, nan, ...)"
        advice = (
            "if that is a value (a region code NA), pass --missing-values '' to read only empty "
            "fields as missing, or --missing-values with the markers that do mean missing; "
            "otherwise fill in or drop the row"
        )
    else:
        read_as = (
            f"an empty field or one of --missing-values {markers}" if markers else "an empty field"
        )
        advice = "fill in or drop the row"
    raise CommandError(
        f"row {rows_before + row + 1:,} of {path} has no value in column "
        f"{frame.columns[column]!r}: it holds {read_as}; {advice}"
    )


def _parquet() -> Any:
    try:
        import pyarrow.parquet
    except ImportError:
        raise CommandError(
            "reading Parquet files needs pyarrow; install it with "
            "pip install 'faircocco-plugins[parquet]'"
        ) from None
    return pyarrow.parquet


# --- demo ---------------------------------------------------------------------------------------

_DEMO_ROWS = 2000


def _demo() -> int:
    from ._synthetic import make_synthetic

    people = make_synthetic(_DEMO_ROWS, random_state=0)
    attributes = people[["sex", "age", "region"]]
    print(
        f"Synthetic data: {_DEMO_ROWS:,} people with sex, age and region; the true outcome "
        "depends on sex and age, and the predictions depend on the true outcome and directly "
        "on sex and age, not on region."
    )
    for notion, sentence in (
        (
            "dp",
            "Demographic parity (DP) asks whether the predictions depend on the attributes at "
            "all; they do, on sex and age (region should score near 0):",
        ),
        (
            "eo",
            "Equalised odds (EO) asks whether they depend on the attributes beyond the true "
            "outcome; they do, because the synthetic model uses sex and age directly:",
        ),
    ):
        report = faircocco_report(
            people["y_pred"], attributes, y_true=people["y_true"], notion=notion
        )
        print()
        print(sentence)
        print(_format_report(report, list(attributes.columns)))
        joint = report.loc["joint"]
        print(
            f"Joint {notion.upper()} score: raw {joint['score']:.4f}, chance-adjusted "
            f"{joint['adjusted']:.4f} (the raw score expected under independence at this size "
            f"is {joint['null_mean']:.4f})."
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
