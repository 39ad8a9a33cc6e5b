"""Local workers keep the datasets they load without loky taking that for a leak."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

from faircocco_plugins.bench._backends import _start_worker

pytest.importorskip("psutil")  # loky measures a worker's memory with it

_CACHE: list[np.ndarray] = []


def _load_a_large_dataset(megabytes: int) -> int:
    """Stand-in for a worker caching a dataset such as KDD Census (850 MiB)."""
    _CACHE.append(np.ones(megabytes * 2**20 // 8))
    time.sleep(1.2)  # loky checks a worker's memory at most once a second
    return len(_CACHE)


def test_a_worker_caching_a_dataset_is_not_restarted():
    from joblib.externals.loky import get_reusable_executor

    executor = get_reusable_executor(max_workers=1, initializer=_start_worker, reuse=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the first task sets the worker's reference size; the next one grows it by 400 MB,
        # past loky's default bound of 300 MB, and two more tasks wait while it checks
        futures = [executor.submit(_load_a_large_dataset, size) for size in (1, 400, 1, 1)]
        cached = [future.result() for future in futures]
    executor.shutdown(wait=True)
    assert cached == [1, 2, 3, 4]  # one worker kept its cache throughout
    assert not [w for w in caught if "A worker stopped" in str(w.message)]
