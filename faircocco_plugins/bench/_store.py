"""The results store: one SQLite row per run, written only by the driver process."""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import pandas as pd

#: Statuses of a run.
STATUSES: tuple[str, ...] = ("ok", "not_applicable", "failed")
#: Columns of :meth:`ResultsStore.runs` before the metric columns.
RUN_COLUMNS: tuple[str, ...] = (
    "run_id",
    "study",
    "dataset",
    "method",
    "notion",
    "seed",
    "params",
    "settings",
    "status",
    "reason",
    "n_train",
    "n_validation",
    "n_test",
    "fit_seconds",
    "predict_seconds",
    "peak_memory_mib",
    "versions",
    "git_revision",
    "finished_at",
)
#: The two evaluated parts; metric columns are ``<part>.<metric>``.
EVALUATED_PARTS: tuple[str, ...] = ("validation", "test")

_SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS studies (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    study TEXT NOT NULL,
    started_at TEXT NOT NULL,
    config TEXT NOT NULL,
    versions TEXT NOT NULL,
    git_revision TEXT
);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    study TEXT NOT NULL,
    dataset TEXT NOT NULL,
    method TEXT NOT NULL,
    notion TEXT NOT NULL,
    seed INTEGER NOT NULL,
    params TEXT NOT NULL,
    settings TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    n_train INTEGER,
    n_validation INTEGER,
    n_test INTEGER,
    fit_seconds REAL,
    predict_seconds REAL,
    peak_memory_mib REAL,
    versions TEXT NOT NULL,
    git_revision TEXT,
    finished_at TEXT NOT NULL,
    metrics TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_study ON runs (study, dataset, method, notion, seed);
"""


@dataclass(frozen=True)
class RunRecord:
    """One finished cell: what ran, how it went and what it measured.

    Attributes
    ----------
    run_id : str
        Stable hash of what determines the result (see :func:`run_id`).
    study, dataset, method, notion : str
        What ran.
    seed : int
        Seed of the split and of the method.
    params : dict
        The hyper-parameter setting.
    settings : dict
        Study-wide settings that change results (epochs, row caps).
    status : {"ok", "not_applicable", "failed"}
    reason : str
        Why the cell is not applicable, or the error (one line); empty when ``"ok"``.
    n_train, n_validation, n_test : int or None
        Rows used to fit and to evaluate.
    fit_seconds, predict_seconds, peak_memory_mib : float or None
        Cost of the run (see the harness guide for how memory is measured).
    versions : dict
        Versions of the libraries that ran the cell.
    git_revision : str or None
        Revision of the project's checkout, when it is one.
    finished_at : str
        ISO 8601 time (UTC) the cell finished.
    metrics : dict
        ``"<part>.<metric>"`` to value, for parts ``validation`` and ``test``.

    Examples
    --------
    >>> from faircocco_plugins.bench import RunRecord
    >>> record = RunRecord(
    ...     run_id="abc", study="s", dataset="german", method="nn", notion="eo", seed=0,
    ...     params={}, settings={}, status="not_applicable", reason="no cal",
    ... )
    >>> record.status
    'not_applicable'
    """

    run_id: str
    study: str
    dataset: str
    method: str
    notion: str
    seed: int
    params: dict[str, Any]
    settings: dict[str, Any]
    status: str
    reason: str = ""
    n_train: int | None = None
    n_validation: int | None = None
    n_test: int | None = None
    fit_seconds: float | None = None
    predict_seconds: float | None = None
    peak_memory_mib: float | None = None
    versions: dict[str, str] = field(default_factory=dict)
    git_revision: str | None = None
    finished_at: str = field(default_factory=lambda: utc_now())
    metrics: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status={self.status!r} is not valid; expected one of {STATUSES}.")


class ResultsStore:
    """Runs of fairness studies in one SQLite file (WAL mode, one transaction per run).

    The store is written by one process, the study's driver; workers return their results to
    it. A run is identified by its ``run_id``, so re-running a study finds the runs that are
    already there and skips them.

    Parameters
    ----------
    path : str or path-like
        The SQLite file; created with its folder when missing.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from faircocco_plugins.bench import ResultsStore, RunRecord
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "results.sqlite"
    >>> with ResultsStore(path) as store:
    ...     store.add(RunRecord(
    ...         run_id="r1", study="demo", dataset="german", method="nn", notion="eo", seed=0,
    ...         params={"lam": 0.0}, settings={}, status="ok",
    ...         metrics={"validation.accuracy": 0.7, "test.accuracy": 0.72},
    ...     ))
    ...     frame = store.runs("demo")
    >>> frame.loc[0, "test.accuracy"]
    np.float64(0.72)
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"path must be a str or path-like; got {type(path).__name__}.")
        self.path = Path(path)
        if self.path.is_dir():
            raise ValueError(f"path={str(self.path)!r} is a directory; expected a file name.")
        if self.path.exists():
            _check_file(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._connection: sqlite3.Connection | None = sqlite3.connect(self.path, timeout=60.0)
        try:
            self._setup()
        except sqlite3.DatabaseError as error:
            self.close()
            raise ValueError(f"path={str(self.path)!r} is not a results store ({error}).") from None

    def _setup(self) -> None:
        connection = self._db
        problems = [row[0] for row in connection.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            raise ValueError(
                f"{self.path} is damaged ({'; '.join(problems[:3])}); restore it from a copy, "
                "or move it away to start a new store."
            )
        # WAL: readers (a report) never block the writer, and a killed writer loses at most the
        # transaction it was in.
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        with connection:
            connection.executescript(_SCHEMA)
            row = connection.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                connection.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema', ?)", (_SCHEMA_VERSION,)
                )
            elif row[0] != _SCHEMA_VERSION:
                raise ValueError(
                    f"{self.path} has store schema {row[0]}; this version reads schema "
                    f"{_SCHEMA_VERSION}."
                )

    @property
    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            raise ValueError(f"the results store {self.path} is closed.")
        return self._connection

    def close(self) -> None:
        """Close the connection (the file stays).

        Examples
        --------
        See :class:`ResultsStore`.
        """
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def add(self, record: RunRecord) -> None:
        """Write one run, in its own transaction (replacing a run with the same ``run_id``).

        Parameters
        ----------
        record : RunRecord

        Examples
        --------
        See :class:`ResultsStore`.
        """
        self.add_many([record])

    def add_many(self, records: Iterable[RunRecord]) -> None:
        """Write several runs in one transaction.

        Parameters
        ----------
        records : iterable of RunRecord

        Examples
        --------
        See :class:`ResultsStore`.
        """
        rows = [_row(record) for record in records]
        if not rows:
            return
        names = ", ".join(rows[0])
        marks = ", ".join("?" for _ in rows[0])
        with self._db:
            self._db.executemany(
                f"INSERT OR REPLACE INTO runs ({names}) VALUES ({marks})",
                [tuple(row.values()) for row in rows],
            )

    def completed(self, study: str | None = None) -> dict[str, str]:
        """``run_id`` to status of every run in the store (of one study when given).

        Parameters
        ----------
        study : str, optional

        Returns
        -------
        dict of str to str

        Examples
        --------
        See :class:`ResultsStore`.
        """
        query = "SELECT run_id, status FROM runs"
        arguments: tuple[str, ...] = ()
        if study is not None:
            query, arguments = query + " WHERE study = ?", (study,)
        return dict(self._db.execute(query, arguments).fetchall())

    def record_study(
        self,
        study: str,
        config: Mapping[str, Any],
        *,
        versions: Mapping[str, str],
        git_revision: str | None,
    ) -> None:
        """Append one invocation of a study: its configuration and environment.

        Parameters
        ----------
        study : str
        config : mapping
            JSON-serialisable configuration of the invocation.
        versions : mapping of str to str
        git_revision : str or None

        Examples
        --------
        See :class:`ResultsStore`.
        """
        with self._db:
            self._db.execute(
                "INSERT INTO studies (study, started_at, config, versions, git_revision) "
                "VALUES (?, ?, ?, ?, ?)",
                (study, utc_now(), _dumps(dict(config)), _dumps(dict(versions)), git_revision),
            )

    def studies(self) -> pd.DataFrame:
        """One row per invocation of a study, oldest first.

        Returns
        -------
        pandas.DataFrame
            Columns ``study``, ``started_at``, ``config`` (dict), ``versions`` (dict) and
            ``git_revision``.

        Examples
        --------
        See :class:`ResultsStore`.
        """
        rows = self._db.execute(
            "SELECT study, started_at, config, versions, git_revision FROM studies ORDER BY id"
        ).fetchall()
        frame = pd.DataFrame(
            rows, columns=["study", "started_at", "config", "versions", "git_revision"]
        )
        for name in ("config", "versions"):
            frame[name] = [json.loads(value) for value in frame[name]]
        return frame

    def runs(self, study: str | None = None) -> pd.DataFrame:
        """Every run (of one study when given), one row each.

        Parameters
        ----------
        study : str, optional

        Returns
        -------
        pandas.DataFrame
            The columns of :data:`RUN_COLUMNS` (``params``, ``settings`` and ``versions`` as
            dicts), then one float column per metric, ``validation.<metric>`` columns first,
            then ``test.<metric>``, each group sorted by name. Rows are sorted by study,
            dataset, method, notion, seed and ``run_id``.

        Examples
        --------
        See :class:`ResultsStore`.
        """
        query = f"SELECT {', '.join(RUN_COLUMNS)}, metrics FROM runs"
        arguments: tuple[str, ...] = ()
        if study is not None:
            query, arguments = query + " WHERE study = ?", (study,)
        query += " ORDER BY study, dataset, method, notion, seed, run_id"
        rows = self._db.execute(query, arguments).fetchall()
        frame = pd.DataFrame([row[:-1] for row in rows], columns=list(RUN_COLUMNS))
        for name in ("params", "settings", "versions"):
            frame[name] = pd.Series([json.loads(v) for v in frame[name]], dtype=object)
        for name in ("seed", "n_train", "n_validation", "n_test"):
            frame[name] = frame[name].astype("Int64")
        for name in ("fit_seconds", "predict_seconds", "peak_memory_mib"):
            frame[name] = frame[name].astype(float)
        metrics = [json.loads(row[-1]) for row in rows]
        names = sorted({key for values in metrics for key in values}, key=_metric_order)
        columns = {
            name: pd.Series([_float(values.get(name)) for values in metrics], dtype=float)
            for name in names
        }
        return pd.concat([frame, pd.DataFrame(columns, index=frame.index)], axis=1)


#: The header of every SQLite 3 file, and its length.
_SQLITE_MAGIC, _SQLITE_HEADER = b"SQLite format 3\x00", 100


def _check_file(path: Path) -> None:
    """Refuse an existing file that is empty, not SQLite, or shorter than its header says.

    SQLite's own checks read a file cut short inside its last page as intact (the missing bytes
    read as zeros), so such a store would look complete while its last runs are garbage.
    """
    size = path.stat().st_size
    if size == 0:
        raise ValueError(
            f"{path} is empty (0 bytes), so it holds no results store: a store is never empty "
            "once created. Restore it from a copy, or remove it to start a new store."
        )
    with path.open("rb") as file:
        header = file.read(_SQLITE_HEADER)
    if len(header) < _SQLITE_HEADER or not header.startswith(_SQLITE_MAGIC):
        raise ValueError(f"{path} is not a results store (not an SQLite file).")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if size % page_size or size < pages * page_size:
        raise ValueError(
            f"{path} is truncated: {size:,} bytes where its header says {pages:,} pages of "
            f"{page_size:,} bytes. Restore it from a copy, or move it away to start a new store."
        )


def utc_now() -> str:
    """The current time in UTC, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _row(record: RunRecord) -> dict[str, Any]:
    values = asdict(record)
    for name in ("params", "settings", "versions", "metrics"):
        values[name] = _dumps(values[name])
    return values


def _dumps(value: Any) -> str:
    # sorted keys: the same dictionary is always the same text
    return json.dumps(value, sort_keys=True, default=_json_default)


def _json_default(value: Any) -> Any:
    # numpy scalars and the like
    item = getattr(value, "item", None)
    if callable(item):
        return item()
    raise TypeError(f"cannot store a value of type {type(value).__name__} as JSON")


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)


def _metric_order(name: str) -> tuple[int, str]:
    part, _, metric = name.partition(".")
    rank = EVALUATED_PARTS.index(part) if part in EVALUATED_PARTS else len(EVALUATED_PARTS)
    return rank, metric
