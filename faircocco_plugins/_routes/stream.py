"""A score over a stream of DataFrame chunks, in one pass: the low-rank moments are sums over
rows, so every block of rows adds its ``r × r`` blocks to them.

The first :data:`STREAM_FIT_ROWS` rows fix the bandwidths, pivots and strata
(:class:`StreamMoments`), and :class:`RangeWatch` warns when later rows fall outside what they
fitted. A Dask DataFrame is reduced the same way, partition by partition (:mod:`._routes.dask`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from .._estimators.lowrank import LowRankFit
from .._estimators.moments import GroupedMoments
from .._estimators.terms import Role, Route
from .._inputs.variables import is_nominal
from .._kernels.kernel import Scaling
from .._kernels.range_watch import RangeWatch
from .._linalg.backend import to_host
from .._linalg.threads import single_blas_thread
from .._options import Options
from .problem import Problem, check_columns, problem_roles, select_columns

#: A stream's bandwidths, pivots, strata and numeric level columns come from its first this
#: many rows, whatever its chunk size; a stream of no more rows is scored in memory. Ten times
#: the median heuristic's sample, so that pivots and strata see the spread of the data; the rows
#: are held once, which costs a few MB.
STREAM_FIT_ROWS = 10_000


def fit_stream(
    chunks: Iterable[pd.DataFrame],
    column_sets: Mapping[str, tuple[str, list[str], str | None]],
    options: Options,
) -> dict[str, Route]:
    """The estimator of each set of columns over a stream of DataFrame chunks, in one pass.

    The first :data:`STREAM_FIT_ROWS` rows, gathered from however many chunks, fix the
    bandwidths, pivots and strata; a stream of no more rows gives the in-memory fit of its rows.
    Later rows are added in blocks of at least as many rows, so that small chunks cost no more
    than large ones. Level sets of discrete columns grow as rows arrive.
    """
    if options.method == "exact":
        raise ValueError("method='exact' cannot stream; use method='lowrank' or 'auto'.")
    blocks = row_blocks(selected_frames(chunks, column_sets), STREAM_FIT_ROWS)
    sample = next(blocks, None)
    if sample is None:
        raise ValueError("data is empty: the chunk iterator yielded no rows.")
    following = next(blocks, None)
    if following is None:
        return fit_in_memory(sample, column_sets, options)
    # limited per block, so that the caller's iterator runs with the caller's threads
    with single_blas_thread():
        streams = start_streams(sample, column_sets, options)
    for block in chain([following], blocks):
        with single_blas_thread():
            for stream in streams.values():
                stream.add(block)
    return {key: stream.estimator() for key, stream in streams.items()}


def fit_in_memory(
    frame: pd.DataFrame,
    column_sets: Mapping[str, tuple[str, list[str], str | None]],
    options: Options,
) -> dict[str, Route]:
    """The in-memory fit of each set of columns of ``frame``: a short stream's."""
    with single_blas_thread():
        return {
            key: _chunk_problem(frame, columns, options).fit()
            for key, columns in column_sets.items()
        }


def start_streams(
    sample: pd.DataFrame,
    column_sets: Mapping[str, tuple[str, list[str], str | None]],
    options: Options,
) -> dict[str, StreamMoments]:
    """A :class:`StreamMoments` of each set of columns, fitted on ``sample`` and holding it."""
    return {
        key: StreamMoments.fit(sample, columns, options) for key, columns in column_sets.items()
    }


def selected_frames(
    chunks: Iterable[Any], column_sets: Mapping[str, tuple[str, list[str], str | None]]
) -> Iterator[pd.DataFrame]:
    """The columns of ``column_sets`` of each chunk, after checking that it is a DataFrame that
    has them, each column with values of one kind throughout; empty chunks are skipped."""
    kinds: dict[str, str] = {}
    for chunk in chunks:
        if not isinstance(chunk, pd.DataFrame):
            hint = (
                ": data= takes DataFrames, not files; read each with pandas (pd.read_csv(path, "
                "chunksize=ROWS) streams one), or score a file with `faircocco score`"
                if isinstance(chunk, str | os.PathLike)
                else ""
            )
            raise TypeError(
                f"data chunks must be pandas DataFrames; got {type(chunk).__name__}{hint}."
            )
        names = [name for columns in column_sets.values() for name in check_columns(chunk, columns)]
        if len(chunk):
            frame = chunk[list(dict.fromkeys(names))]
            _check_kinds_kept(frame, kinds)
            yield frame


def _check_kinds_kept(frame: pd.DataFrame, kinds: dict[str, str]) -> None:
    """Refuse a chunk whose column holds another kind of value than in earlier chunks, as
    ``pd.read_csv(chunksize=...)`` gives when it guesses each chunk's types apart: 7 and "7"
    would be two levels. ``kinds`` holds the kind of each column seen so far."""
    for name in frame.columns:
        column = frame[name]
        if column.isna().all():
            continue  # read as numbers whatever the column holds; the NaN check names it
        if pd.api.types.is_bool_dtype(column.dtype):
            kind = "booleans"
        else:
            kind = "labels" if is_nominal(column) else "numbers"
        seen = kinds.setdefault(name, kind)
        if kind != seen:
            raise ValueError(
                f"column {name!r} holds {seen} in earlier chunks and {kind} in a later one, so "
                "one value (7 and '7') would be two levels; give it one type in every chunk, "
                f"e.g. pd.read_csv(..., dtype={{{name!r}: str}}) for labels."
            )


def row_blocks(frames: Iterable[pd.DataFrame], size: int) -> Iterator[pd.DataFrame]:
    """The rows of ``frames`` in order, regrouped: the first ``size`` rows (all of them when
    there are no more), then blocks of at least ``size`` rows.

    Two rows are always held back for the last block, so that no block but a whole stream of
    one row has fewer than two rows (a score needs two).
    """
    pending: list[pd.DataFrame] = []
    rows = 0
    first = True
    for frame in frames:
        pending.append(frame)
        rows += len(frame)
        while rows >= size + 2:
            if not first and len(pending) == 2 and len(pending[1]) >= size:
                # a large chunk after the rows held back: those rows (two or more) go alone,
                # so that the chunk is not copied
                yield pending[0]
                pending, rows = pending[1:], len(pending[1])
                continue
            joined = _joined(pending)
            cut = size if first else rows - 2
            yield joined.iloc[:cut]
            pending, rows, first = [joined.iloc[cut:]], rows - cut, False
    if pending:
        yield _joined(pending)


def _joined(frames: list[pd.DataFrame]) -> pd.DataFrame:
    if len(frames) == 1:
        return frames[0]
    joined = pd.concat(frames, ignore_index=True)
    for name in joined.columns:
        parts = [frame[name] for frame in frames]
        if isinstance(joined[name].dtype, pd.CategoricalDtype) or not all(
            isinstance(part.dtype, pd.CategoricalDtype) for part in parts
        ):
            continue
        # pandas joins categoricals of different categories as plain values: digits alone
        # would then read as numbers stored as text
        try:
            joined[name] = union_categoricals(parts, sort_categories=True)
        except TypeError:  # categories of different types, or ordered ones
            continue
    return joined


@dataclass
class StreamMoments:
    """Grouped moments of blocks of rows, with the bandwidths and feature maps of a stream's
    first rows (its fit sample, see :func:`fit_stream`)."""

    moments: GroupedMoments
    scalings: dict[str, Scaling]
    columns: tuple[str, list[str], str | None]
    options: Options
    #: the fit sample's range and row count, to notice blocks outside what it fitted
    ranges: RangeWatch

    @classmethod
    def fit(
        cls, first: pd.DataFrame, columns: tuple[str, list[str], str | None], options: Options
    ) -> StreamMoments:
        """Fit bandwidths, pivots and strata on ``first`` and accumulate it."""
        problem = _chunk_problem(first, columns, options)
        scalings = problem.scalings()
        roles = problem_roles(options.notion, problem, scalings)
        moments = GroupedMoments(roles, Role.GIVEN in roles, options.rank, options.ridge)
        moments.add(roles, problem.like)
        moments.check_width()
        ranges = RangeWatch.of(
            ((variable, scalings[name]) for name, variable in problem.variables().items()),
            problem.n,
            f"the first {problem.n:,} rows",
            "Shuffle the rows (a file sorted by a column does this), or put rows that span the "
            "data first.",
            median_bandwidths=options.bandwidth == "median",
        )
        return cls(moments, scalings, columns, options, ranges)

    def add(self, chunk: pd.DataFrame) -> None:
        """Accumulate one more chunk."""
        problem = _chunk_problem(chunk, self.columns, self.options)
        self.ranges.check(_numeric_columns(problem))
        self.moments.add(problem_roles(self.options.notion, problem, self.scalings), problem.like)

    def empty(self) -> StreamMoments:
        """A copy with the fitted maps and no rows, to accumulate other chunks elsewhere."""
        return StreamMoments(
            self.moments.empty(), self.scalings, self.columns, self.options, self.ranges
        )

    def estimator(self) -> LowRankFit:
        """The low-rank estimator of every row accumulated.

        With a continuous conditioning variable its null (the permutation of the attribute
        rows alone, within local strata) needs the rows, which a stream does not keep: the
        null mean, and so the adjusted score, is NaN, with a warning.
        """
        fit = self.moments.fit(np.zeros((), dtype=np.float64), None)
        if self.moments.strata is not None and self.moments.strata.continuous:
            fit.terms = replace(fit.terms, compute_null_statistic=_unknown_stream_null)
        return fit


def _unknown_stream_null() -> float:
    warnings.warn(
        "The adjusted score of a stream with a continuous conditioning variable (y_true under "
        "EO, y_pred under CAL) is not computed: its permutation null needs the rows in memory. "
        "null_mean and adjusted are NaN; score in memory (a sample of rows will do) for them.",
        UserWarning,
        stacklevel=2,
    )
    return float("nan")


def _numeric_columns(problem: Problem) -> Iterable[tuple[str, np.ndarray]]:
    """The host values of every numeric column of a chunk's variables, by column name."""
    for variable in (problem.pred, problem.sensitive, problem.truth):
        if variable is None or variable.numeric is None:
            continue
        host = to_host(variable.numeric)
        for j, name in enumerate(variable.numeric_names):
            yield name, host[:, j]


def _chunk_problem(
    chunk: pd.DataFrame, columns: tuple[str, list[str], str | None], options: Options
) -> Problem:
    problem = Problem.from_arguments(*select_columns(chunk, columns), options)
    if options.attribute_kernel == "joint" and problem.sensitive.codes is not None:
        raise ValueError(
            "attribute_kernel='joint' one-hot encodes nominal sensitive features, which "
            "needs their levels up front; it cannot stream. Use attribute_kernel='product'."
        )
    return problem
