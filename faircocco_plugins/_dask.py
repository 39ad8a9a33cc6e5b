"""The low-rank estimator on a Dask DataFrame: map over partitions, reduce the moments.

Bandwidths, pivots and strata come from the first partition, computed on the client. Every
other partition is reduced to per-group sums and ``r × r`` Grams where it lives (a worker of
the cluster when a ``distributed.Client`` is active), and these small blocks are added up by a
tree reduction; only they travel. Level codes are matched through level values when blocks
meet, so partitions may hold levels the first one did not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ._lowrank import LowRankFit
from ._problem import Options, StreamMoments, check_columns
from ._threads import single_blas_thread


def is_dask_dataframe(data: Any) -> bool:
    """Whether ``data`` is a Dask DataFrame (checked without importing Dask)."""
    return type(data).__module__.startswith("dask.") and hasattr(data, "to_delayed")


def fit_dask(
    data: Any,
    column_sets: Mapping[str, tuple[str, list[str], str | None]],
    options: Options,
) -> dict[str, LowRankFit]:
    """The low-rank fit of each set of columns of the Dask DataFrame ``data``, in one pass."""
    import dask

    if options.method == "exact":
        raise ValueError("method='exact' cannot run on a Dask DataFrame; use 'lowrank' or 'auto'.")
    names = [name for columns in column_sets.values() for name in check_columns(data, columns)]
    partitions = data[list(dict.fromkeys(names))].to_delayed()
    first = partitions[0].compute()
    if first.empty:
        raise ValueError("the first partition of data is empty; repartition the Dask DataFrame.")
    with single_blas_thread():
        streams = {
            key: StreamMoments.fit(first, columns, options) for key, columns in column_sets.items()
        }
    templates = {key: stream.empty() for key, stream in streams.items()}
    blocks = [dask.delayed(_partition_moments)(p, templates) for p in partitions[1:]]
    while len(blocks) > 1:
        pairs = zip(blocks[::2], blocks[1::2], strict=False)
        merged = [dask.delayed(_merged)(a, b) for a, b in pairs]
        blocks = merged + ([blocks[-1]] if len(blocks) % 2 else [])
    if blocks:
        (rest,) = dask.compute(blocks[0])
        _merged(streams, rest)
    return {key: stream.estimator() for key, stream in streams.items()}


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
