"""Running a study: the driver's loop, and what a worker does with one cell.

The driver plans the cells, skips those the store has, submits the others to a backend and
writes each returned record to the store. A worker loads the dataset (cached per process), fits
the method, predicts and measures.
"""

from __future__ import annotations

import collections
import functools
import math
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._linalg.threads import single_blas_thread
from ..plugins import DegenerateModelWarning, MethodSpec, available_methods
from ._backends import Backend, make_backend
from ._extras import missing_extra
from ._metrics import evaluate_predictions
from ._progress import Progress
from ._store import DONE, STATUSES, TAKEN, Claimant, ResultsStore, RunRecord
from ._study import (
    Cell,
    DatasetProfile,
    StudyConfig,
    plan_study,
    study_differences,
    study_methods,
)

#: Datasets kept loaded per process (consecutive cells usually share one).
_CACHED_DATASETS = 2
#: Seconds after which another driver's claim on a cell, not renewed, is taken over.
CLAIM_TIMEOUT = 600.0
#: Seconds between the renewals of a driver's claims (well within the timeout).
_CLAIM_RENEWAL = 60.0
#: Seconds between looks at the cells that other drivers are computing.
_OTHERS_POLL = 1.0
#: Libraries whose versions are recorded with each run, when installed.
_VERSIONED = (
    "numpy",
    "pandas",
    "scipy",
    "scikit-learn",
    "torch",
    "faircocco-plugins",
    "faircocco-torch",
    "faircocco-fairlearn",
    "faircocco-aif360",
    "fairlearn",
    "aif360",
)


@dataclass(frozen=True)
class RegistryLoader:
    """Loads datasets from :mod:`faircocco_plugins.datasets` (picklable, for workers).

    Parameters
    ----------
    data_dir : str, optional
        Directory searched first for the raw files.
    sources : tuple of DatasetSource
        Datasets registered in this process by :func:`register_dataset`: worker processes
        start without them, so they travel with the loader and are registered there.

    Examples
    --------
    >>> from faircocco_plugins.bench._runner import RegistryLoader
    >>> RegistryLoader()("synthetic", 0).task
    'classification'
    """

    data_dir: str | None = None
    sources: tuple[Any, ...] = ()

    def __call__(self, name: str, seed: int) -> Any:
        """The dataset ``name`` with the split of ``seed``."""
        from ..datasets import get_source, load_dataset, register_source

        # in a worker process, the sources registered in the driver's process
        for source in self.sources:
            try:
                get_source(source.name)
            except ValueError:
                register_source(source)
        return load_dataset(name, data_dir=self.data_dir, random_state=seed)

    @classmethod
    def for_datasets(cls, names: Iterable[str], data_dir: str | None = None) -> RegistryLoader:
        """A loader that carries the in-process registrations among ``names``."""
        from ..datasets import get_source

        return cls(data_dir, tuple(s for s in map(get_source, names) if s.origin == "user"))


#: ``loader(name, seed) -> Dataset``.
Loader = Callable[[str, int], Any]
#: The first stage of a cell. A failure there says the worker's environment cannot load the
#: dataset (a file, a package or a registration missing), not what the method does: such a
#: failure is reported but not stored, so that a rerun tries the cell again.
_LOAD_STAGE = "load"


def execute_cell(
    cell: Cell, spec: MethodSpec, loader: Loader, git_revision: str | None
) -> RunRecord:
    """Run one cell and return its record; errors of the method become ``"failed"`` records.

    Parameters
    ----------
    cell : Cell
    spec : MethodSpec
    loader : callable
        ``loader(name, seed) -> Dataset``; its result is cached in the process.
    git_revision : str or None
        Recorded with the run.

    Returns
    -------
    RunRecord
    """
    identity = _identity(cell, git_revision)
    measured: dict[str, Any] = {}
    stage = _LOAD_STAGE
    try:
        with single_threaded():
            data = cached_dataset(loader, cell.dataset, cell.seed)
            stage = "prepare"
            caps = (cell.settings.get("max_train_rows"), cell.settings.get("max_eval_rows"))
            train, validation, test = prepared_parts(loader, cell.dataset, cell.seed, *caps)
            measured.update(
                n_train=len(train[1]), n_validation=len(validation[1]), n_test=len(test[1])
            )
            training = {k: v for k, v in cell.settings.items() if k in spec.training_settings}
            stage = "build"
            model = spec.factory(
                task=data.task,
                notion=cell.notion,
                random_state=cell.seed,
                **cell.params,
                **training,
            )
            with PeakMemory() as memory:
                stage = "fit"
                started = time.perf_counter()
                with warnings.catch_warnings():
                    # the harness marks degenerate models itself, from their predictions
                    warnings.simplefilter("ignore", DegenerateModelWarning)
                    model.fit(train[0], train[1], sensitive_features=train[2])
                measured["fit_seconds"] = time.perf_counter() - started
                stage = "predict"
                started = time.perf_counter()
                at_prediction = spec.capabilities.attributes_at_prediction
                outputs = [
                    predict_part(model, part, data.task, at_prediction)
                    for part in (validation, test)
                ]
                measured["predict_seconds"] = time.perf_counter() - started
            measured["peak_memory_mib"] = memory.peak_mib
            stage = "evaluate"
            started = time.perf_counter()
            metrics: dict[str, float] = {}
            for part_name, part, (y_pred, proba) in zip(
                ("validation", "test"), (validation, test), outputs, strict=True
            ):
                values = evaluate_predictions(
                    data.task,
                    part[1],
                    y_pred,
                    part[2],
                    proba=proba,
                    notions=(cell.notion,),
                    random_state=cell.seed,
                    train_sensitive=train[2] if cell.settings.get("audit") else None,
                )
                metrics.update({f"{part_name}.{k}": v for k, v in values.items()})
            measured["evaluate_seconds"] = time.perf_counter() - started
    except Exception as error:
        reason = f"{stage}: {type(error).__name__}: {' '.join(str(error).split())}"
        return RunRecord(status="failed", reason=reason, **identity, **measured)
    return RunRecord(status="ok", metrics=metrics, **identity, **measured)


Part = tuple[pd.DataFrame, pd.Series, pd.DataFrame]


@functools.lru_cache(maxsize=1)
def prepared_parts(
    loader: Loader, name: str, seed: int, cap: int | None, eval_cap: int | None = None
) -> tuple[Part, Part, Part]:
    """A dataset's train, validation and test parts for a seed, with the study's row caps."""
    # consecutive cells share their dataset and seed; preparing the parts of a large dataset
    # takes seconds (KDD census: about 2 s), longer than fitting a small network on them
    return _parts(cached_dataset(loader, name, seed), seed, cap, eval_cap)


def _parts(
    data: Any, seed: int, cap: int | None, eval_cap: int | None = None
) -> tuple[Part, Part, Part]:
    """Train, validation and test parts; features standardised with training statistics.

    The training part has at most ``cap`` rows, the others at most ``eval_cap``.
    """
    parts = [
        _subsample(data.part(name), seed, limit)
        for name, limit in (("train", cap), ("validation", eval_cap), ("test", eval_cap))
    ]
    values = parts[0].X.to_numpy(dtype=np.float64)
    mean = values.mean(axis=0)
    scale = values.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)

    def standardise(frame: pd.DataFrame) -> pd.DataFrame:
        scaled = (frame.to_numpy(dtype=np.float64) - mean) / scale
        return pd.DataFrame(scaled, columns=frame.columns)

    def clean(part: Any) -> Part:
        return (
            standardise(part.X),
            part.y.reset_index(drop=True),
            part.sensitive.reset_index(drop=True),
        )

    train, validation, test = (clean(part) for part in parts)
    return train, validation, test


def _subsample(part: Any, seed: int, cap: int | None) -> Any:
    """At most ``cap`` rows of ``part``, the same for every method of this seed."""
    if cap is None or len(part.y) <= cap:
        return part
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(len(part.y), size=int(cap), replace=False))
    return replace(
        part, X=part.X.iloc[rows], y=part.y.iloc[rows], sensitive=part.sensitive.iloc[rows]
    )


def predict_part(
    model: Any, part: Part, task: str, with_attributes: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """A fitted model's predictions on a part, and its probabilities for a classifier that
    gives them (else None)."""
    X, _, sensitive = part
    extra = {"sensitive_features": sensitive} if with_attributes else {}
    y_pred = np.asarray(model.predict(X, **extra))
    proba = None
    if task == "classification" and callable(getattr(model, "predict_proba", None)):
        proba = np.asarray(model.predict_proba(X, **extra))
    return y_pred, proba


@functools.lru_cache(maxsize=_CACHED_DATASETS)
def cached_dataset(loader: Loader, name: str, seed: int) -> Any:
    """``loader(name, seed)``, kept for the next cells of the same dataset and seed."""
    return loader(name, seed)


@contextmanager
def single_threaded() -> Iterator[None]:
    """One BLAS, OpenMP and torch thread inside the block, for reproducible, uncontended cells
    (scikit-learn's boosted trees use OpenMP)."""
    from threadpoolctl import threadpool_limits

    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    with single_blas_thread(), threadpool_limits(1, user_api="openmp"):
        if torch is not None:
            torch.set_num_threads(1)
        try:
            yield
        finally:
            torch = sys.modules.get("torch")
            if torch is not None:
                torch.set_num_threads(before if before is not None else torch.get_num_threads())


@functools.cache
def versions() -> dict[str, str]:
    """Versions of Python and of the installed libraries that affect results."""
    found = {"python": sys.version.split()[0]}
    for name in _VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


class PeakMemory:
    """The peak resident memory of the process during a block, in MiB.

    On Linux the kernel's high-water mark ``VmHWM`` is reset on entry (by writing ``5`` to
    ``/proc/self/clear_refs``) and read on exit, so the peak is exact, torch's allocations
    included (``tracemalloc`` sees only Python's). Where that reset is not allowed, a thread
    samples ``VmRSS`` every 5 ms and may miss short peaks. Elsewhere both values are NaN.

    The peak is the whole process's: the interpreter, the libraries and the data it holds
    count too, so compare it between methods on the same dataset. The increase over the
    resident size on entry would single out the block, but it misses memory the process
    freed earlier and reuses, which in a worker that has run other cells is most of it.

    Attributes
    ----------
    start_mib : float
        Resident size on entry.
    peak_mib : float
        Highest resident size during the block.

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_plugins.bench._runner import PeakMemory
    >>> with PeakMemory() as memory:
    ...     block = np.ones(2**20)
    >>> memory.peak_mib >= memory.start_mib  # doctest: +SKIP
    True
    """

    def __init__(self) -> None:
        self.start_mib = math.nan
        self.peak_mib = math.nan
        self._exact = False
        self._sampled = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> PeakMemory:
        rss = _status_kib("VmRSS")
        if rss is None:
            return self
        self.start_mib = rss / 1024
        try:
            with open("/proc/self/clear_refs", "w") as handle:
                handle.write("5")
            self._exact = True
        except OSError:
            self._sampled = rss
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.005):
            self._sampled = max(self._sampled, _status_kib("VmRSS") or 0)

    def __exit__(self, *exc: object) -> None:
        if self._exact:
            peak = _status_kib("VmHWM")
            if peak is not None:
                self.peak_mib = peak / 1024
        elif self._thread is not None:
            self._stop.set()
            self._thread.join()
            self.peak_mib = max(self._sampled, _status_kib("VmRSS") or 0) / 1024


def _status_kib(field: str) -> int | None:
    """A ``kB`` field of ``/proc/self/status``, or None where there is no such file."""
    if not os.path.exists("/proc/self/status"):
        return None
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


# --- the driver ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StudySummary:
    """What a call of :func:`run_study` did.

    Attributes
    ----------
    study : str
    store : str
        Absolute path of the results store.
    total : int
        Cells of the study, not-applicable ones included.
    done : int
        Cells run to completion (status ``"ok"``) by this call.
    failed : int
        Cells whose method raised, in this call.
    skipped : int
        Cells already in the store before this call.
    not_applicable : int
        Cells whose method does not support the dataset or notion.
    remaining : int
        Cells left to run because the study was interrupted.
    interrupted : bool
        Whether Ctrl-C stopped the study.
    elapsed : float
        Seconds.
    where : str
        Where the cells ran.
    by_others : int
        Cells that other drivers sharing the store ran during this call.
    """

    study: str
    store: str
    total: int
    done: int
    failed: int
    skipped: int
    not_applicable: int
    remaining: int
    interrupted: bool
    elapsed: float
    where: str
    by_others: int = 0


def run_study(
    config: StudyConfig,
    store: ResultsStore | str | os.PathLike[str],
    *,
    backend: str = "local",
    jobs: int = 1,
    address: str | None = None,
    methods: Mapping[str, MethodSpec] | None = None,
    loader: Loader | None = None,
    retry_failed: bool = False,
    progress: Progress | None = None,
) -> StudySummary:
    """Run every cell of a study that the store does not have yet.

    Cells a method cannot run (unsupported task, notion, attribute or outcome kind) are
    recorded as ``"not_applicable"`` with the reason. A cell whose method raises is recorded as
    ``"failed"`` with the error, and the study goes on. Each finished cell is written to the
    store in its own transaction by this process, so an interrupted study (Ctrl-C, a killed
    process) loses at most the cells in flight, and running it again resumes where it stopped.

    Several drivers (processes, on one machine or on several sharing the file) may run the same
    study on one store: each claims a cell in the store before computing it, so that they split
    the work, and each returns once every cell is stored. A claim that is not renewed for
    :data:`CLAIM_TIMEOUT` seconds, or whose process on this machine has ended, is taken over.

    A store holds one study configuration (name, datasets, methods, notions, seeds, grid and
    the settings that change results), so that its report describes every run in it: another
    configuration raises ``ValueError``, naming the store and what differs.

    Ctrl-C stops submitting cells and waits for those running (a second Ctrl-C abandons them);
    the summary then has ``interrupted=True``.

    Parameters
    ----------
    config : StudyConfig
    store : ResultsStore or path
    backend : {"local", "dask", "ray"}
        ``local`` runs in this process (``jobs=1``) or in ``jobs`` worker processes; ``dask``
        and ``ray`` run on the cluster at ``address`` (a local one with ``jobs`` workers when
        ``address`` is None).
    jobs : int
        Local worker processes.
    address : str, optional
        Scheduler address of a Dask cluster (``tcp://host:8786``) or of a Ray cluster.
    methods : mapping of str to MethodSpec, optional
        Default: :func:`available_methods`, restricted to ``config.methods``.
    loader : callable, optional
        ``loader(name, seed) -> Dataset``; default :class:`RegistryLoader`. Must be picklable
        for the parallel backends.
    retry_failed : bool
        Run again the cells recorded as failed.
    progress : Progress, optional
        Default: no display (the command line shows one).

    Returns
    -------
    StudySummary

    Examples
    --------
    >>> from faircocco_plugins.bench import StudyConfig, run_study
    >>> config = StudyConfig(name="demo", datasets=("synthetic",), methods=("nn",),
    ...                      notions=("eo",), seeds=(0,), grid="quick", epochs=2)
    >>> summary = run_study(config, "results.sqlite")  # doctest: +SKIP
    >>> summary.done  # doctest: +SKIP
    1
    """
    if not isinstance(config, StudyConfig):
        raise TypeError(f"config must be a StudyConfig; got {type(config).__name__}.")
    began, since = time.monotonic(), time.time()
    progress = progress if progress is not None else Progress()
    owned = not isinstance(store, ResultsStore)
    results = ResultsStore(store) if not isinstance(store, ResultsStore) else store
    try:
        _check_one_configuration(results, config)
        missing = missing_extra(("dcor",)) if config.audit else None
        if missing is not None:
            # before any cell runs, rather than in every cell's evaluation
            raise ValueError(f"an audited study (audit=True) {missing}")
        if methods is None:
            methods = available_methods(on_error="warn")
        chosen = study_methods(config, methods)
        if loader is None:
            loader = RegistryLoader.for_datasets(config.datasets, config.data_dir)
        profiles = {
            name: dataset_profile(loader, name, config.seeds[0]) for name in config.datasets
        }
        cells, not_applicable = plan_study(config, chosen, profiles)
        _check_stored_settings(results, config, cells)
        recorded = results.completed(config.name)
        results.add_many(r for r in not_applicable if r.run_id not in recorded)
        keep = {"ok", "not_applicable"} if retry_failed else set(STATUSES)
        todo = [c for c in cells if recorded.get(c.run_id) not in keep]
        claims = _Claims(results, Claimant(), keep=keep, since=since)
        revision = git_revision()
        results.record_study(
            config.name,
            {
                **config.to_dict(),
                "data_sources": _data_sources(loader, config.datasets),
                "backend": backend,
                "jobs": jobs,
                "address": address,
            },
            versions=versions(),
            git_revision=revision,
        )
        if todo:
            engine = make_backend(backend, execute_cell, jobs=jobs, address=address)
        else:
            engine = None
        counts, interrupted = _drive(engine, todo, chosen, loader, revision, claims, progress)
        total = len(cells) + len(not_applicable)
        return StudySummary(
            study=config.name,
            store=str(results.path.resolve()),
            total=total,
            done=counts["ok"],
            failed=counts["failed"],
            skipped=len(cells) - len(todo),
            not_applicable=len(not_applicable),
            remaining=len(todo) - counts["ok"] - counts["failed"] - counts["elsewhere"],
            interrupted=interrupted,
            elapsed=time.monotonic() - began,
            where=engine.where if engine is not None else "",
            by_others=counts["elsewhere"],
        )
    finally:
        if owned:
            results.close()


#: The environment variable that says how to write a study to another store, in the advice of a
#: store that holds another configuration, where a wrapper runs the study (``make demo`` sets
#: it to ``make demo DEMO_STORE=PATH``).
NEW_STORE_ADVICE = "FAIRCOCCO_NEW_STORE_ADVICE"


def new_store_advice() -> str:
    """How to write a study to another store: :data:`NEW_STORE_ADVICE`'s value, else the
    command's option and the function's argument."""
    return os.environ.get(NEW_STORE_ADVICE) or (
        "faircocco bench --store PATH, or run_study(config, PATH)"
    )


def _check_one_configuration(store: ResultsStore, config: StudyConfig) -> None:
    """Refuse a study whose configuration differs from the one the store was made for."""
    for recorded in store.studies()["config"]:
        differences = study_differences(recorded, config)
        if differences:
            raise ValueError(
                f"{store.path} holds a study of another configuration ({'; '.join(differences)})"
                ", and a store holds one study configuration, so that its report describes "
                f"every run in it: write this study to a new store ({new_store_advice()}), or "
                f"move {store.path} away to start over."
            )


def _check_stored_settings(store: ResultsStore, config: StudyConfig, cells: list[Cell]) -> None:
    """Refuse a study beside runs of another study, or of other study-wide settings (epochs,
    row caps), in the store: runs imported from an export come without a recorded
    configuration, so this compares the runs themselves."""
    planned = {cell.method: cell.settings for cell in cells}
    differences = []
    for study, method, settings in store.study_settings().itertuples(index=False):
        if study != config.name:
            differences.append(f"study: {study!r} in the store, {config.name!r} here")
        elif method in planned and planned[method] != settings:
            differences.append(
                f"settings of {method}: {settings} in the store, {planned[method]} here"
            )
    if differences:
        shown = list(dict.fromkeys(differences))
        raise ValueError(
            f"{store.path} holds runs of another configuration ({'; '.join(shown[:3])}"
            f"{'; ...' if len(shown) > 3 else ''}), and a store holds one study configuration: "
            f"write this study to a new store ({new_store_advice()}), or move {store.path} "
            "away to start over."
        )


class _Claims:
    """A driver's claims on the cells of a store, renewed by a thread while cells run."""

    def __init__(
        self, store: ResultsStore, claimant: Claimant, *, keep: set[str], since: float
    ) -> None:
        self.store, self.claimant = store, claimant
        self._keep, self._since = keep, since
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def take(self, cell: Cell) -> str:
        """Claim ``cell``: ``"claimed"``, ``"done"`` (stored) or ``"taken"`` (by another)."""
        return self.store.claim(
            cell.run_id,
            self.claimant,
            keep=self._keep,
            since=self._since,
            stale_after=CLAIM_TIMEOUT,
        )

    def release(self, cell: Cell) -> None:
        self.store.release_claims(self.claimant, [cell.run_id])

    def __enter__(self) -> _Claims:
        self._thread = threading.Thread(target=self._renew, name="faircocco-claims", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        # cells not stored (interrupted, abandoned) are free for the next driver
        self.store.release_claims(self.claimant)

    def _renew(self) -> None:
        # a connection of its own: SQLite connections stay in the thread that opened them
        try:
            store = ResultsStore(self.store.path)
        except ValueError:
            return  # the claims then go stale after the timeout: others may redo a cell
        with store:
            while not self._stop.wait(_CLAIM_RENEWAL):
                try:
                    store.renew_claims(self.claimant)
                except (sqlite3.Error, ValueError):
                    continue  # a busy store: the next renewal comes well before the timeout


def _drive(
    engine: Backend | None,
    todo: list[Cell],
    methods: Mapping[str, MethodSpec],
    loader: Loader,
    revision: str | None,
    claims: _Claims,
    progress: Progress,
) -> tuple[dict[str, int], bool]:
    """Claim and submit a window of cells, write each finished one; returns counts (``ok``,
    ``failed``, and ``elsewhere`` for the cells other drivers ran) and interruption."""
    counts = {"ok": 0, "failed": 0, "elsewhere": 0}
    if engine is None:
        return counts, False
    pending = collections.deque(todo)
    others: list[Cell] = []  # cells that other drivers are computing
    interrupts = _Interrupts()
    abandon = stopping = waiting = False
    progress.start(total=len(todo), where=engine.where)
    try:
        with interrupts, claims:
            while True:
                if interrupts.count and not stopping:
                    stopping = True
                    engine.cancel_pending()
                    pending.clear()
                    others.clear()
                    progress.note(
                        f"interrupted: finishing the {len(engine.in_flight())} cells in flight; "
                        "press Ctrl-C again to abandon them"
                    )
                while pending and len(engine.in_flight()) < engine.slots:
                    cell = pending.popleft()
                    claim = claims.take(cell)
                    if claim == TAKEN:
                        others.append(cell)
                    elif claim == DONE:
                        counts["elsewhere"] += 1
                        progress.elsewhere(cell)
                    else:
                        engine.submit((cell, methods[cell.method], loader, revision))
                        progress.started(cell)
                if not engine.in_flight():
                    if not others:
                        break
                    # what is left runs in other drivers: look again, to take over the cells
                    # of one that ends, and return once every cell is stored
                    if not waiting:
                        waiting = True
                        progress.note(
                            f"waiting for {len(others)} cells that another process sharing "
                            "the store is running"
                        )
                    time.sleep(_OTHERS_POLL)
                    pending.extend(others)
                    others.clear()
                    continue
                for cell, outcome in engine.wait(0.5):
                    if not isinstance(outcome, RunRecord) and interrupts.count:
                        # after Ctrl-C, workers stopped by it are lost cells, not failures
                        continue
                    record = (
                        outcome
                        if isinstance(outcome, RunRecord)
                        else _lost(cell, outcome, revision)
                    )
                    if record.reason.startswith(f"{_LOAD_STAGE}:"):
                        claims.release(cell)
                    else:
                        claims.store.add(record)
                    counts[record.status] += 1
                    progress.finished(cell, record)
    except KeyboardInterrupt:
        abandon = True
    finally:
        progress.stop()
        engine.close(abandon=abandon)
    return counts, bool(interrupts.count) or abandon


class _Interrupts:
    """Counts Ctrl-C in the block: the first only sets the count, the second raises."""

    def __init__(self) -> None:
        self.count = 0
        self._previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.count += 1
        if self.count > 1:
            raise KeyboardInterrupt

    def __enter__(self) -> _Interrupts:
        # only the main thread may install signal handlers; elsewhere Ctrl-C keeps its default
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def _lost(cell: Cell, error: BaseException, revision: str | None) -> RunRecord:
    """The record of a cell whose worker failed to return one (killed, unpicklable...)."""
    message = " ".join(str(error).split()) or type(error).__name__
    reason = f"worker: {type(error).__name__}: {message}"
    return RunRecord(status="failed", reason=reason, **_identity(cell, revision))


def _identity(cell: Cell, git_revision: str | None) -> dict[str, Any]:
    """The fields of a cell's record that do not come from running it: the cell's own, the
    versions of the libraries and the project's revision."""
    return {**asdict(cell), "versions": versions(), "git_revision": git_revision}


def dataset_profile(loader: Loader, name: str, seed: int) -> DatasetProfile:
    """A dataset's profile: from the registry without reading files when it can, else loaded."""
    if isinstance(loader, RegistryLoader):
        from ..datasets import get_source, list_datasets

        source = get_source(name)  # an unknown name raises, listing the registered ones
        if bool(list_datasets(data_dir=loader.data_dir).loc[name, "available"]):
            outcome = "binary" if source.task == "classification" else "continuous"
            attributes = tuple(source.attributes.items())
            return DatasetProfile(name, source.task, attributes, outcome)
    # loading reports a missing file clearly (or downloads it) before any cell starts
    return DatasetProfile.of(cached_dataset(loader, name, seed))


def _data_sources(loader: Loader, names: Iterable[str]) -> dict[str, dict[str, str | None]]:
    """Where each dataset's data came from, for the study's record (after its files are found).

    ``source`` is how the directory of the raw files was chosen (``"data_dir"``,
    ``"$FAIRCOCCO_DATA"`` or ``"cache"``), the registry origin of a dataset without raw files
    (``"synthetic"``, ``"user"`` or an entry point), or ``"loader"`` for a loader other than
    :class:`RegistryLoader`; ``directory`` is the absolute directory holding
    ``<dataset>/<file>``, or None.
    """
    if not isinstance(loader, RegistryLoader):
        return {name: {"source": "loader", "directory": None} for name in names}
    from ..datasets import list_datasets

    table = list_datasets(data_dir=loader.data_dir)
    sources: dict[str, dict[str, str | None]] = {}
    for name in names:
        location = str(table.loc[name, "location"])
        sources[name] = {
            "source": str(table.loc[name, "found_in"] or table.loc[name, "origin"]),
            "directory": str(Path(location).resolve()) if location else None,
        }
    return sources


@functools.cache
def git_revision() -> str | None:
    """The commit of the checkout the package runs from (``git rev-parse HEAD``), or None."""
    folder = os.path.dirname(os.path.abspath(__file__))
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    revision = result.stdout.strip()
    return revision if result.returncode == 0 and revision else None
