"""Process-wide settings of the package, in scikit-learn's ``set_config`` style."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_config: dict[str, Any] = {"limit_blas_threads": True}


def get_config() -> dict[str, Any]:
    """The current settings (a copy); see :func:`set_config`.

    Examples
    --------
    >>> from faircocco_plugins import get_config
    >>> get_config()["limit_blas_threads"]
    True
    """
    return dict(_config)


def set_config(*, limit_blas_threads: bool | None = None) -> None:
    """Change the package's settings for the whole process.

    Parameters
    ----------
    limit_blas_threads : bool, optional
        Whether the package runs its linear algebra on one BLAS thread where two threads
        measured slower on two cores (default ``True``): the scores, reports and tests of
        in-memory data (a stream or Dask frame: each chunk's work), the training statistic
        :class:`~faircocco_plugins.BatchStatistic`, and the harness's cells. BLAS thread counts
        belong to the process: while such a block runs, other threads' BLAS calls run on one
        thread too. Turn it off when you manage BLAS threads yourself (for example with
        ``threadpoolctl``), or for the exact estimator above about 1,000 rows, whose dense
        factorisations gain from more threads.

    Examples
    --------
    >>> from faircocco_plugins import get_config, set_config
    >>> set_config(limit_blas_threads=False)
    >>> get_config()["limit_blas_threads"]
    False
    >>> set_config(limit_blas_threads=True)
    """
    if limit_blas_threads is not None:
        if not isinstance(limit_blas_threads, bool):
            raise TypeError(
                f"limit_blas_threads must be a bool; got {type(limit_blas_threads).__name__}."
            )
        _config["limit_blas_threads"] = limit_blas_threads


@contextmanager
def config_context(*, limit_blas_threads: bool | None = None) -> Iterator[None]:
    """Change the settings inside a ``with`` block and restore them after it.

    Parameters
    ----------
    limit_blas_threads : bool, optional
        As for :func:`set_config`.

    Examples
    --------
    >>> from faircocco_plugins import config_context, faircocco_score, make_synthetic
    >>> people = make_synthetic(500, random_state=0)
    >>> with config_context(limit_blas_threads=False):
    ...     score = faircocco_score(people["y_pred"], people[["sex", "age"]])
    """
    saved = get_config()
    set_config(limit_blas_threads=limit_blas_threads)
    try:
        yield
    finally:
        _config.update(saved)
