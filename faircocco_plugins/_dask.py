"""The low-rank estimator on a Dask DataFrame: map over partitions, reduce the moments.

Bandwidths, pivots and strata come from the first partition, computed on the client. Every
other partition is reduced to per-group sums and ``r × r`` Grams where it lives (a worker of
the cluster when a ``distributed.Client`` is active), and these small blocks are added up by a
tree reduction; only they travel. Level codes are matched through level values when blocks
meet, so partitions may hold levels the first one did not.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._lowrank import LowRankFit
from ._problem import Options, StreamMoments, check_columns


def is_dask_dataframe(data: Any) -> bool:
    """Whether ``data`` is a Dask DataFrame (checked without importing Dask)."""
    return type(data).__module__.startswith("dask.") and hasattr(data, "to_delayed")


def fit_dask(data: Any, columns: tuple[str, list[str], str | None], options: Options) -> LowRankFit:
    """The low-rank fit of the columns ``columns`` of the Dask DataFrame ``data``."""
    import dask

    if options.method == "exact":
        raise ValueError("method='exact' cannot run on a Dask DataFrame; use 'lowrank' or 'auto'.")
    partitions = data[check_columns(data, columns)].to_delayed()
    first = partitions[0].compute()
    if first.empty:
        raise ValueError("the first partition of data is empty; repartition the Dask DataFrame.")
    stream = StreamMoments.fit(first, columns, options)
    template = stream.empty()
    blocks = [dask.delayed(_partition_moments)(p, template) for p in partitions[1:]]
    while len(blocks) > 1:
        pairs = zip(blocks[::2], blocks[1::2], strict=False)
        merged = [dask.delayed(_merged)(a, b) for a, b in pairs]
        blocks = merged + ([blocks[-1]] if len(blocks) % 2 else [])
    if blocks:
        (rest,) = dask.compute(blocks[0])
        stream.moments.merge(rest.moments)
    return stream.moments.fit(options.eps, np.zeros((), dtype=np.float64), None)


def _partition_moments(partition: pd.DataFrame, template: StreamMoments) -> StreamMoments:
    moments = template.empty()
    if not partition.empty:
        moments.add(partition)
    return moments


def _merged(a: StreamMoments, b: StreamMoments) -> StreamMoments:
    a.moments.merge(b.moments)
    return a
