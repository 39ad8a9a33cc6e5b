"""BLAS threads: one thread inside a block, safe when blocks overlap across threads.

numpy and SciPy each ship an OpenBLAS that uses every core by default. Where two threads were
measured slower than one on two cores, the package runs on one (the figures are in the
performance docs, "Why the fast paths exist"):

* the low-rank estimator's skinny products and incomplete Cholesky: the public functions run
  in-memory data inside :func:`single_blas_thread`, and a stream or Dask frame each chunk's
  work (the caller's iterator and Dask's scheduler keep the caller's threads);
* a training batch's statistic next to torch's own threads, with several attributes
  (:class:`~faircocco_plugins.BatchStatistic`);
* the harness's cells, which share the cores.

The exact estimator's dense factorisations gain from two threads from about 1,000 rows; with
``config_context(limit_blas_threads=False)`` they get them.

BLAS thread counts belong to the process, so overlapping blocks (threads, Dask's threaded
scheduler) share one limit: the first block in saves the counts and sets one thread, the last
one out restores them, whatever order they leave in. While a block is open, BLAS calls of other
threads of the process run on one thread too. ``set_config(limit_blas_threads=False)`` turns
the limit off.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import cache, wraps
from typing import Any, ParamSpec, TypeVar

import pandas as pd
from threadpoolctl import ThreadpoolController

from .config import get_config

P = ParamSpec("P")
T = TypeVar("T")

_lock = threading.Lock()
_open_blocks = 0
_saved_counts: list[int] = []


@cache
def _blas_libraries() -> list[Any]:
    """The BLAS libraries numpy and SciPy loaded."""
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401

    return ThreadpoolController().select(user_api="blas").lib_controllers


def in_memory_on_one_blas_thread(function: Callable[P, T]) -> Callable[P, T]:
    """Run a public function on one BLAS thread unless its ``data`` is a stream or Dask frame
    (those limit each chunk's work instead)."""

    @wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        data = kwargs.get("data")
        streamed = data is not None and not isinstance(data, pd.DataFrame)
        with nullcontext() if streamed else single_blas_thread():
            return function(*args, **kwargs)

    return wrapper


@contextmanager
def single_blas_thread() -> Iterator[None]:
    """Run numpy/SciPy BLAS and LAPACK calls on one thread inside the block.

    Set on the libraries directly: ``threadpoolctl``'s ``limit`` costs more per entry, which
    would show once per training batch.
    """
    global _open_blocks, _saved_counts
    if not get_config()["limit_blas_threads"]:
        yield
        return
    libraries = _blas_libraries()
    with _lock:
        if _open_blocks == 0:
            _saved_counts = [library.num_threads for library in libraries]
            for library in libraries:
                library.set_num_threads(1)
        _open_blocks += 1
    try:
        yield
    finally:
        with _lock:
            _open_blocks -= 1
            if _open_blocks == 0:
                for library, threads in zip(libraries, _saved_counts, strict=True):
                    library.set_num_threads(threads)
