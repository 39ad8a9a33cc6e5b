"""The low-rank estimator on a Dask DataFrame: map over partitions, reduce the moments.

As in a stream, the first :data:`STREAM_FIT_ROWS` rows fix the bandwidths, pivots and strata:
the first partitions are computed on the client until they hold that many rows (data of no more
rows is scored in memory). Every other partition is reduced to per-group sums and ``r × r``
Grams where it lives (a worker of the cluster when a ``distributed.Client`` is active), and these
small blocks are added up by a tree reduction; only they travel. Level codes are matched through
level values when blocks meet, so partitions may hold levels the fit sample did not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._estimators.terms import Route
from .._linalg.threads import single_blas_thread
from .._options import Options
from .problem import check_columns
from .stream import STREAM_FIT_ROWS, StreamMoments, fit_in_memory, row_blocks, start_streams


def fit_dask(
    data: Any,
    column_sets: Mapping[str, tuple[str, list[str], str | None]],
    options: Options,
) -> dict[str, Route]:
    """The fit of each set of columns of the Dask DataFrame ``data``, in one pass."""
    import dask

    if options.method == "exact":
        raise ValueError("method='exact' cannot run on a Dask DataFrame; use 'lowrank' or 'auto'.")
    names = [name for columns in column_sets.values() for name in check_columns(data, columns)]
    partitions = data[list(dict.fromkeys(names))].to_delayed()
    # two rows more than the fit sample, so that the rows after it form a block of two or more
    computed, remaining = _first_partitions(partitions, STREAM_FIT_ROWS + 2)
    blocks = list(row_blocks(computed, STREAM_FIT_ROWS))
    if not blocks:
        raise ValueError("data is empty: the Dask DataFrame has no rows.")
    if len(blocks) == 1 and not remaining:
        return fit_in_memory(blocks[0], column_sets, options)
    with single_blas_thread():
        streams = start_streams(blocks[0], column_sets, options)
        for block in blocks[1:]:
            for stream in streams.values():
                stream.add(block)
    templates = {key: stream.empty() for key, stream in streams.items()}
    moments = [dask.delayed(_partition_moments)(p, templates) for p in remaining]
    while len(moments) > 1:
        pairs = zip(moments[::2], moments[1::2], strict=False)
        merged = [dask.delayed(_merged)(a, b) for a, b in pairs]
        moments = merged + ([moments[-1]] if len(moments) % 2 else [])
    if moments:
        (rest,) = dask.compute(moments[0])
        _merged(streams, rest)
    return {key: stream.estimator() for key, stream in streams.items()}


def _first_partitions(partitions: Sequence[Any], rows: int) -> tuple[list[pd.DataFrame], list[Any]]:
    """The first partitions, computed one at a time until they hold ``rows`` rows, and the
    partitions after them, left to the workers."""
    computed: list[pd.DataFrame] = []
    held = 0
    for i, partition in enumerate(partitions):
        if held >= rows:
            return computed, list(partitions[i:])
        computed.append(partition.compute())
        held += len(computed[-1])
    return computed, []


def _partition_moments(
    partition: pd.DataFrame, templates: dict[str, StreamMoments]
) -> dict[str, StreamMoments]:
    streams = {key: template.empty() for key, template in templates.items()}
    if not partition.empty:
        # on Dask's workers, possibly threads of one process: the limit is shared and restored
        # when the last partition leaves it
        with single_blas_thread():
            for stream in streams.values():
                stream.add(partition)
    return streams


def _merged(a: dict[str, StreamMoments], b: dict[str, StreamMoments]) -> dict[str, StreamMoments]:
    for key, stream in a.items():
        stream.moments.merge(b[key].moments)
    return a
