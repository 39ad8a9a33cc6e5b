"""Where cells run: in the driver, in local processes (joblib/loky), on Dask or on Ray.

Every backend has the same small interface, so the driver's loop (submit a window of cells,
collect finished ones, write them to the store) is written once. Workers only compute and
return records; the store is written by the driver alone.
"""

from __future__ import annotations

import collections
import os
import signal
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from .._records.params import Interval, check_params
from ..plugins import MethodSpec
from ._store import RunRecord
from ._study import Cell

#: Backend names accepted by ``run_study`` and ``faircocco bench --backend``.
BACKENDS: tuple[str, ...] = ("local", "dask", "ray")

#: ``(cell, spec, loader, git_revision)``: the arguments of ``execute_cell``.
Task = tuple[Cell, MethodSpec, Callable[[str, int], Any], str | None]
#: A finished task: its cell and its record, or the error that kept it from returning one.
Outcome = tuple[Cell, RunRecord | BaseException]


class Backend(ABC):
    """Runs tasks and reports finished ones."""

    #: Most tasks in flight at once (enough to keep every worker busy).
    slots: int = 1
    #: Where the tasks run, for messages.
    where: str = ""

    @abstractmethod
    def submit(self, task: Task) -> None:
        """Start (or queue) a task."""

    @abstractmethod
    def wait(self, timeout: float) -> list[Outcome]:
        """Finished tasks, waiting up to ``timeout`` seconds for at least one."""

    @abstractmethod
    def in_flight(self) -> list[Cell]:
        """Cells submitted and not yet returned by :meth:`wait`."""

    def cancel_pending(self) -> None:
        """Drop tasks that have not started, where the backend can tell."""
        return None

    @abstractmethod
    def close(self, *, abandon: bool = False) -> None:
        """Release the workers; ``abandon`` stops tasks still running."""


class InProcessBackend(Backend):
    """Runs each task in the driver process, one at a time (``--jobs 1``)."""

    where = "in this process"

    def __init__(self, execute: Callable[..., RunRecord]) -> None:
        self._execute = execute
        self._queue: collections.deque[Task] = collections.deque()

    def submit(self, task: Task) -> None:
        self._queue.append(task)

    def wait(self, timeout: float) -> list[Outcome]:
        if not self._queue:
            return []
        task = self._queue[0]
        record = self._execute(*task)
        self._queue.popleft()
        return [(task[0], record)]

    def in_flight(self) -> list[Cell]:
        return [task[0] for task in self._queue]

    def cancel_pending(self) -> None:
        # the running cell was interrupted with the driver; nothing else was started
        self._queue.clear()

    def close(self, *, abandon: bool = False) -> None:
        self._queue.clear()


class LocalBackend(Backend):
    """Runs tasks in ``jobs`` local worker processes (joblib's loky executor)."""

    def __init__(self, execute: Callable[..., RunRecord], jobs: int) -> None:
        self._execute = execute
        self._jobs = jobs
        self.slots = 2 * jobs
        self.where = f"in {jobs} local worker processes"
        self._futures: dict[Any, Cell] = {}
        self._executor = self._get_executor()

    def _get_executor(self) -> Any:
        from joblib.externals.loky import get_reusable_executor

        # a broken executor (a worker killed by the system) is replaced by a fresh one
        return get_reusable_executor(max_workers=self._jobs, timeout=60, initializer=_start_worker)

    def submit(self, task: Task) -> None:
        self._executor = self._get_executor()
        future = self._executor.submit(self._execute, *task)
        self._futures[future] = task[0]

    def wait(self, timeout: float) -> list[Outcome]:
        import concurrent.futures

        if not self._futures:
            return []
        done, _ = concurrent.futures.wait(
            list(self._futures), timeout=timeout, return_when=concurrent.futures.FIRST_COMPLETED
        )
        finished: list[Outcome] = []
        for future in done:
            cell = self._futures.pop(future)
            if future.cancelled():
                continue
            error = future.exception()
            finished.append((cell, error if error is not None else future.result()))
        return finished

    def in_flight(self) -> list[Cell]:
        return list(self._futures.values())

    def cancel_pending(self) -> None:
        for future in list(self._futures):
            if future.cancel():
                del self._futures[future]

    def close(self, *, abandon: bool = False) -> None:
        self._executor.shutdown(wait=not abandon, kill_workers=abandon)
        self._futures.clear()


class DaskBackend(Backend):
    """Runs tasks on a Dask distributed cluster (a local one when no address is given)."""

    def __init__(self, execute: Callable[..., RunRecord], address: str | None, jobs: int) -> None:
        try:
            from distributed import Client, LocalCluster, as_completed
        except ImportError:
            raise ImportError(
                "the dask backend needs dask.distributed; install it with "
                "pip install 'faircocco-plugins[bench]'"
            ) from None
        self._execute = execute
        self._cluster = None
        if address is None:
            self._cluster = LocalCluster(
                n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
            )
            self._client = Client(self._cluster)
        else:
            self._client = Client(address)
        threads = sum(self._client.nthreads().values()) or 1
        self.slots = 2 * threads
        self.where = f"on the Dask cluster at {self._client.scheduler.address} ({threads} threads)"
        self._completed = as_completed(raise_errors=False)
        self._futures: dict[Any, tuple[Any, Cell]] = {}

    def submit(self, task: Task) -> None:
        cell = task[0]
        future = self._client.submit(self._execute, *task, key=f"cell-{cell.run_id}", pure=False)
        self._futures[future.key] = (future, cell)
        self._completed.add(future)

    def wait(self, timeout: float) -> list[Outcome]:
        deadline = time.monotonic() + timeout
        while self._futures and not self._completed.has_ready() and time.monotonic() < deadline:
            time.sleep(0.02)
        finished: list[Outcome] = []
        for future in self._completed.next_batch(block=False):
            entry = self._futures.pop(future.key, None)
            if entry is None or future.cancelled():
                continue
            if future.status == "error":
                finished.append((entry[1], future.exception()))
            else:
                finished.append((entry[1], future.result()))
        return finished

    def in_flight(self) -> list[Cell]:
        return [cell for _, cell in self._futures.values()]

    def close(self, *, abandon: bool = False) -> None:
        if abandon and self._futures:
            self._client.cancel([future for future, _ in self._futures.values()])
        self._futures.clear()
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


class RayBackend(Backend):
    """Runs tasks on Ray (a local instance when no address is given)."""

    def __init__(self, execute: Callable[..., RunRecord], address: str | None, jobs: int) -> None:
        try:
            import ray
        except ImportError:
            raise ImportError(
                "the ray backend needs Ray; install it with pip install 'faircocco-plugins[ray]'"
            ) from None
        self._ray = ray
        self._started = not ray.is_initialized()
        if self._started:
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address is None:
                options["num_cpus"] = jobs
            ray.init(address=address, **options)
        cpus = int(ray.cluster_resources().get("CPU", jobs)) or 1
        self.slots = 2 * cpus
        self.where = f"on Ray ({cpus} CPUs)"
        self._remote = ray.remote(num_cpus=1)(execute)
        self._refs: dict[Any, Cell] = {}

    def submit(self, task: Task) -> None:
        self._refs[self._remote.remote(*task)] = task[0]

    def wait(self, timeout: float) -> list[Outcome]:
        if not self._refs:
            return []
        refs = list(self._refs)
        ready, _ = self._ray.wait(refs, num_returns=1, timeout=timeout)
        if ready:
            ready, _ = self._ray.wait(refs, num_returns=len(refs), timeout=0)
        finished: list[Outcome] = []
        for ref in ready:
            cell = self._refs.pop(ref)
            try:
                finished.append((cell, self._ray.get(ref)))
            except Exception as error:
                finished.append((cell, error))
        return finished

    def in_flight(self) -> list[Cell]:
        return list(self._refs.values())

    def close(self, *, abandon: bool = False) -> None:
        if abandon:
            for ref in self._refs:
                self._ray.cancel(ref, force=True)
        self._refs.clear()
        if self._started:
            self._ray.shutdown()


def make_backend(
    name: str, execute: Callable[..., RunRecord], *, jobs: int, address: str | None
) -> Backend:
    """The backend called ``name`` (see :data:`BACKENDS`)."""
    if name not in BACKENDS:
        raise ValueError(f"backend={name!r} is not valid; expected one of {list(BACKENDS)}.")
    check_params({"jobs": jobs}, {"jobs": Interval("integer", 1)})
    if name == "local":
        if address is not None:
            raise ValueError("address is only for the dask and ray backends.")
        return InProcessBackend(execute) if jobs == 1 else LocalBackend(execute, jobs)
    if name == "dask":
        return DaskBackend(execute, address, jobs)
    return RayBackend(execute, address, jobs)


#: How often a local worker checks that the driver is still there.
_PARENT_POLL_SECONDS = 0.5
#: Growth of a local worker's memory after its first cell that loky takes for a leak. A worker
#: keeps the datasets it loaded (KDD Census alone adds 850 MiB), which loky's default of 300 MB
#: took for one: it restarted the worker, warned "A worker stopped while some jobs were given
#: to the executor", and the new worker loaded the dataset again.
WORKER_CACHE_BYTES = 4 * 2**30


def allow_dataset_cache() -> None:
    """Let this worker process grow by :data:`WORKER_CACHE_BYTES` before loky's leak guard
    restarts it (loky reads the bound from its module at every check)."""
    from joblib.externals.loky import process_executor

    process_executor._MAX_MEMORY_LEAK_SIZE = max(
        process_executor._MAX_MEMORY_LEAK_SIZE, WORKER_CACHE_BYTES
    )


def _start_worker() -> None:
    """Initialiser of the local workers: Ctrl-C is the driver's, and the driver's end is theirs.

    Ctrl-C reaches every process of the terminal's group; the driver alone decides whether
    running cells finish or are stopped. A driver killed outright (``kill -9``) cannot stop its
    workers, which ran on for minutes to finish their cells for nobody: each one watches for
    being handed to another parent and then exits.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    allow_dataset_cache()
    driver = os.getppid()

    def watch() -> None:
        while os.getppid() == driver:
            time.sleep(_PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="faircocco-driver-watch", daemon=True).start()
