"""The results store: one SQLite row per run, written only by the driver process."""

from __future__ import annotations

import json
import math
import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import pandas as pd

from .._inputs.files import refuse_special_file

#: Statuses of a run.
STATUSES: tuple[str, ...] = ("ok", "not_applicable", "failed")
#: The two evaluated parts; metric columns are ``<part>.<metric>``.
EVALUATED_PARTS: tuple[str, ...] = ("validation", "test")


def check_runs(runs: Any, columns: Iterable[str]) -> None:
    """Raise unless ``runs`` is a DataFrame of :meth:`ResultsStore.runs` with ``columns``.

    Parameters
    ----------
    runs : object
        What a caller passed as its ``runs``.
    columns : iterable of str
        The columns the caller reads.

    Raises
    ------
    TypeError
        When ``runs`` is not a pandas DataFrame.
    ValueError
        When some of ``columns`` are missing, naming them.
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame; got {type(runs).__name__}.")
    missing = [c for c in columns if c not in runs.columns]
    if missing:
        raise ValueError(f"runs is missing the columns {missing}; pass ResultsStore.runs().")


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
    evaluate_seconds REAL,
    peak_memory_mib REAL,
    versions TEXT NOT NULL,
    git_revision TEXT,
    finished_at TEXT NOT NULL,
    metrics TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_study ON runs (study, dataset, method, notion, seed);
"""
#: Cells claimed by a driver before it submits them, so that drivers sharing a store split the
#: work. ``claimed_at`` is the Unix time of the claim or of its last renewal; ``stored_at`` that
#: of the run's record, NULL while the cell is being computed.
_CLAIMS = """
CREATE TABLE IF NOT EXISTS claims (
    run_id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    claimed_at REAL NOT NULL,
    stored_at REAL
);
"""
#: Columns of ``runs`` that came after its first version, with their types: a store made
#: before gains them on its first write, and reads them as missing (NULL) until then.
ADDED_RUN_COLUMNS: dict[str, str] = {"evaluate_seconds": "REAL"}
#: Outcomes of :meth:`ResultsStore.claim`.
CLAIMED, DONE, TAKEN = "claimed", "done", "taken"


@dataclass(frozen=True)
class RunIdentity:
    """What determines a run's result, and its id: the fields a cell of a study and its record
    share.

    Attributes
    ----------
    run_id : str
        Stable hash of every other field (see :func:`~._study.run_id`).
    study, dataset, method, notion : str
    seed : int
        Seed of the split and of the method.
    params : dict
        The method's hyper-parameter setting.
    settings : dict
        Study-wide settings that change the result (epochs, row caps).
    """

    run_id: str
    study: str
    dataset: str
    method: str
    notion: str
    seed: int
    params: dict[str, Any]
    settings: dict[str, Any]


@dataclass(frozen=True)
class RunRecord(RunIdentity):
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
    fit_seconds, predict_seconds, evaluate_seconds, peak_memory_mib : float or None
        Cost of the run: fitting, predicting the two evaluated parts, computing their metrics,
        and the peak memory (see the harness guide for how memory is measured).
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

    status: str
    reason: str = ""
    n_train: int | None = None
    n_validation: int | None = None
    n_test: int | None = None
    fit_seconds: float | None = None
    predict_seconds: float | None = None
    evaluate_seconds: float | None = None
    peak_memory_mib: float | None = None
    versions: dict[str, str] = field(default_factory=dict)
    git_revision: str | None = None
    finished_at: str = field(default_factory=lambda: utc_now())
    metrics: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status={self.status!r} is not valid; expected one of {STATUSES}.")


#: Columns of :meth:`ResultsStore.runs` before the metric columns: a record's fields.
RUN_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(RunRecord) if f.name != "metrics")

#: The tables and columns every results store has (``claims`` came later and is created on
#: write).
_TABLES: dict[str, tuple[str, ...]] = {
    "meta": ("key", "value"),
    "studies": ("id", "study", "started_at", "config", "versions", "git_revision"),
    "runs": (*(name for name in RUN_COLUMNS if name not in ADDED_RUN_COLUMNS), "metrics"),
}


@dataclass(frozen=True)
class Claimant:
    """A driver that claims cells in a store: its own token, its host and its process id.

    Examples
    --------
    >>> from faircocco_plugins.bench._store import Claimant
    >>> Claimant().token != Claimant().token
    True
    """

    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    host: str = field(default_factory=socket.gethostname)
    pid: int = field(default_factory=os.getpid)


def _stale(host: str, pid: int, claimed_at: float, stale_after: float) -> bool:
    """Whether a claim was not renewed for ``stale_after`` seconds or its process has ended."""
    if time.time() - claimed_at > stale_after:
        return True
    return host == socket.gethostname() and not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, for one
        return True
    return True


class ResultsStore:
    """Runs of fairness studies in one SQLite file (WAL mode, one transaction per run).

    The store is written by the study's driver; workers return their results to it. A run is
    identified by its ``run_id``, so re-running a study finds the runs that are already there
    and skips them. Several drivers may share a store: each claims a cell before computing it
    (:meth:`claim`), so that they split the work.

    An existing file is first opened read-only and checked: a file that is not a results store
    (another program's database, a text file) is refused and left unchanged.

    Parameters
    ----------
    path : str or path-like
        The SQLite file; created with its folder when missing (unless ``read_only``).
    read_only : bool, default False
        Open an existing store for reading only (as a report does): nothing in its folder is
        written, so a store in a read-only folder or file can be read.

    Raises
    ------
    ValueError
        If the file is not a results store, is damaged, or cannot be written (one line naming
        the file and what to do).

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

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"path must be a str or path-like; got {type(path).__name__}.")
        if not isinstance(read_only, bool):
            raise TypeError(f"read_only must be True or False; got {read_only!r}.")
        self.path = Path(path)
        self.read_only = read_only
        self._connection: sqlite3.Connection | None = None
        if self.path.is_dir():
            raise ValueError(f"path={str(self.path)!r} is a directory; expected a file name.")
        refuse_special_file(self.path, "the results store")
        if read_only and not self.path.exists():
            raise ValueError(f"the results store {str(self.path)!r} does not exist.")
        if self.path.exists():
            # checked read-only first: a file that is not a store is never written to
            self._connection = _open_checked(self.path)
        if not read_only:
            self.close()
            self._connection = _open_for_writing(self.path)

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

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (``BEGIN IMMEDIATE``), so that reading and then
        writing in it cannot interleave with another driver's transaction."""
        if self.read_only:
            raise ValueError(f"the results store {self.path} was opened read-only.")
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

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
        with self._transaction() as db:
            db.executemany(
                f"INSERT OR REPLACE INTO runs ({names}) VALUES ({marks})",
                [tuple(row.values()) for row in rows],
            )
            # a stored run is no longer being computed
            db.executemany(
                "UPDATE claims SET stored_at = ? WHERE run_id = ?",
                [(time.time(), row["run_id"]) for row in rows],
            )

    def claim(
        self,
        run_id: str,
        claimant: Claimant,
        *,
        keep: Collection[str],
        since: float,
        stale_after: float,
    ) -> str:
        """Claim a cell before computing it, unless another driver has it or has stored it.

        Parameters
        ----------
        run_id : str
        claimant : Claimant
            The driver that claims.
        keep : collection of str
            Statuses of a stored run that make the cell done.
        since : float
            Unix time the claimant started: a run stored since then is done whatever its
            status (another driver has just run it).
        stale_after : float
            Seconds after which a claim that was not renewed is taken over; the claim of a
            process of this host that has ended is taken over at once.

        Returns
        -------
        {"claimed", "done", "taken"}
            ``"claimed"``: compute the cell; ``"done"``: the store has it; ``"taken"``:
            another live driver is computing it.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from faircocco_plugins.bench._store import Claimant, ResultsStore
        >>> store = ResultsStore(pathlib.Path(tempfile.mkdtemp()) / "results.sqlite")
        >>> one, two = Claimant(), Claimant()
        >>> options = {"keep": ("ok",), "since": 0.0, "stale_after": 600.0}
        >>> store.claim("r1", one, **options), store.claim("r1", two, **options)
        ('claimed', 'taken')
        >>> store.close()
        """
        with self._transaction() as db:
            stored = db.execute("SELECT status FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            held = db.execute(
                "SELECT token, host, pid, claimed_at, stored_at FROM claims WHERE run_id = ?",
                (run_id,),
            ).fetchone()
            if stored is not None and (stored[0] in keep or (held and (held[4] or 0) >= since)):
                return DONE
            if (
                held is not None
                and held[4] is None
                and held[0] != claimant.token
                and not _stale(held[1], held[2], held[3], stale_after)
            ):
                return TAKEN
            db.execute(
                "INSERT OR REPLACE INTO claims (run_id, token, host, pid, claimed_at, stored_at) "
                "VALUES (?, ?, ?, ?, ?, NULL)",
                (run_id, claimant.token, claimant.host, claimant.pid, time.time()),
            )
        return CLAIMED

    def renew_claims(self, claimant: Claimant) -> None:
        """Mark the claims of ``claimant`` as alive now (see :meth:`claim`).

        Parameters
        ----------
        claimant : Claimant
        """
        with self._transaction() as db:
            db.execute(
                "UPDATE claims SET claimed_at = ? WHERE token = ? AND stored_at IS NULL",
                (time.time(), claimant.token),
            )

    def release_claims(self, claimant: Claimant, run_ids: Iterable[str] | None = None) -> None:
        """Drop the claims of ``claimant`` on cells it did not store (on ``run_ids`` only, when
        given), so that other drivers compute them.

        Parameters
        ----------
        claimant : Claimant
        run_ids : iterable of str, optional
        """
        with self._transaction() as db:
            if run_ids is None:
                db.execute(
                    "DELETE FROM claims WHERE token = ? AND stored_at IS NULL", (claimant.token,)
                )
            else:
                db.executemany(
                    "DELETE FROM claims WHERE token = ? AND run_id = ? AND stored_at IS NULL",
                    [(claimant.token, run_id) for run_id in run_ids],
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

    def study_settings(self) -> pd.DataFrame:
        """Each study's methods and their settings in the store's runs, one row for each.

        A study configuration gives each of its methods one setting of the study-wide settings
        (epochs, row caps), so a method with two is two configurations in one store.

        Returns
        -------
        pandas.DataFrame
            Columns ``study``, ``method`` and ``settings`` (dict).

        Examples
        --------
        See :class:`ResultsStore`.
        """
        # SQLite takes the bare run_id from the row of the smallest rowid
        rows = self._db.execute(
            "SELECT study, method, settings, MIN(rowid), run_id FROM runs "
            "GROUP BY study, method, settings"
        ).fetchall()
        frame = pd.DataFrame([row[:2] for row in rows], columns=["study", "method"])
        values = [self._mapping(row[2], _run_row(row[3], row[4]), "settings") for row in rows]
        frame["settings"] = pd.Series(values, dtype=object)
        return frame

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
        with self._transaction() as db:
            db.execute(
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
            "SELECT id, study, started_at, config, versions, git_revision FROM studies ORDER BY id"
        ).fetchall()
        frame = pd.DataFrame(
            [row[1:] for row in rows],
            columns=["study", "started_at", "config", "versions", "git_revision"],
        )
        for column, name in ((3, "config"), (4, "versions")):
            values = [self._mapping(row[column], _study_row(row[0]), name) for row in rows]
            frame[name] = pd.Series(values, dtype=object)
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
        present = _run_columns(self._db)
        selected = [name if name in present else f"NULL AS {name}" for name in RUN_COLUMNS]
        query = f"SELECT {', '.join(selected)}, rowid, metrics FROM runs"
        arguments: tuple[str, ...] = ()
        if study is not None:
            query, arguments = query + " WHERE study = ?", (study,)
        query += " ORDER BY study, dataset, method, notion, seed, run_id"
        rows = self._db.execute(query, arguments).fetchall()
        frame = pd.DataFrame([row[:-2] for row in rows], columns=list(RUN_COLUMNS))
        keys = [
            _run_row(row[-2], run_id) for row, run_id in zip(rows, frame["run_id"], strict=True)
        ]
        for name in ("params", "settings", "versions"):
            values = [self._mapping(v, k, name) for v, k in zip(frame[name], keys, strict=True)]
            frame[name] = pd.Series(values, dtype=object)
        for name in ("seed", "n_train", "n_validation", "n_test"):
            frame[name] = frame[name].astype("Int64")
        for name in ("fit_seconds", "predict_seconds", "evaluate_seconds", "peak_memory_mib"):
            frame[name] = frame[name].astype(float)
        metrics = [self._metrics(row[-1], key) for row, key in zip(rows, keys, strict=True)]
        names = sorted({key for values in metrics for key in values}, key=_metric_order)
        columns = {
            name: pd.Series([_float(values.get(name)) for values in metrics], dtype=float)
            for name in names
        }
        return pd.concat([frame, pd.DataFrame(columns, index=frame.index)], axis=1)

    def _mapping(self, text: object, row: _StoredRow, column: str) -> dict[str, Any]:
        """The JSON object stored in one cell of the store; a broken one names its row."""
        try:
            value = json.loads(text)  # type: ignore[arg-type]
        except (TypeError, ValueError) as error:
            problem = f"is not valid JSON ({error})"
        else:
            if isinstance(value, dict):
                return value
            problem = f"holds a JSON {type(value).__name__}, not an object"
        raise row.damaged(self.path, f"the column {column}", problem)

    def _metrics(self, text: object, row: _StoredRow) -> dict[str, Any]:
        values = self._mapping(text, row, "metrics")
        for name, value in values.items():
            if value is not None and not isinstance(value, int | float):
                raise row.damaged(self.path, f"the metric {name}", f"is {value!r}, not a number")
        return values


@dataclass(frozen=True)
class _StoredRow:
    """A row of the store, as an error names it: in words, and by a condition that selects it
    alone and needs no quoting (its rowid or id), whatever its run id holds."""

    table: str
    where: str
    name: str

    def damaged(self, path: Path, what: str, problem: str) -> ValueError:
        """The error of a damaged cell of this row, with how to delete the row."""
        return ValueError(
            f"{path} is damaged: {what} of the row {self.name} of its table {self.table} "
            f"{problem}; restore the store from a copy, or delete that row (DELETE FROM "
            f"{self.table} WHERE {self.where}) so that running the study again recomputes it."
        )


def _run_row(rowid: int, run_id: object) -> _StoredRow:
    return _StoredRow("runs", f"rowid = {int(rowid)}", f"with run_id {run_id!r}")


def _study_row(key: int) -> _StoredRow:
    return _StoredRow("studies", f"id = {int(key)}", f"id = {int(key)}")


#: The header of every SQLite 3 file, and its length.
_SQLITE_MAGIC, _SQLITE_HEADER = b"SQLite format 3\x00", 100
#: The files SQLite keeps beside a database, named after it with these endings.
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def sqlite_database(path: str | os.PathLike[str]) -> Path | None:
    """The SQLite database that ``path`` is, or keeps beside it (``path`` is its name plus
    one of :data:`SQLITE_SIDE_FILES`, existing or not); None for any other path.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from faircocco_plugins.bench import ResultsStore
    >>> from faircocco_plugins.bench._store import sqlite_database
    >>> store = pathlib.Path(tempfile.mkdtemp()) / "results.sqlite"
    >>> ResultsStore(store).close()
    >>> sqlite_database(f"{store}-wal") == store, sqlite_database(store.with_name("runs.csv"))
    (True, None)
    """
    file = Path(path)
    bases = [file.with_name(file.name.removesuffix(end)) for end in SQLITE_SIDE_FILES]
    for candidate in [file, *(base for base in bases if base != file)]:
        try:
            with candidate.open("rb") as opened:
                if opened.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC:
                    return candidate
        except OSError:  # missing, a folder, unreadable
            continue
    return None


def _check_file(path: Path) -> bytes:
    """The header of an existing SQLite file; refuses one that is empty, not SQLite, or shorter
    than its header says.

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
    return header


#: Byte 18 of the header: 2 for a database in WAL mode.
_WAL_VERSION, _WAL_BYTE = 2, 18
_TABLE_NAMES = "SELECT name FROM sqlite_master WHERE type = 'table'"


def _open_checked(path: Path) -> sqlite3.Connection:
    """A read-only connection to the results store at ``path``, after checking that it is one."""
    header = _check_file(path)
    connection = _connect_read_only(path, header)
    try:
        _check_schema(connection, path)
    except BaseException:
        connection.close()
        raise
    return connection


def _connect_read_only(path: Path, header: bytes) -> sqlite3.Connection:
    """Open ``path`` so that nothing is written to it or beside it.

    A database in WAL mode without its ``-wal`` file has everything in the main file and no
    writer: it is opened as immutable, since a read-only connection would create the ``-wal``
    and ``-shm`` files (and cannot, in a read-only folder). Otherwise readers take SQLite's
    shared locks, so that a writer's transactions are seen whole.
    """
    uri = path.resolve().as_uri() + "?mode=ro"
    if header[_WAL_BYTE] == _WAL_VERSION and not Path(f"{path}-wal").exists():
        uri += "&immutable=1"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=60.0, isolation_level=None)
        connection.execute(_TABLE_NAMES).fetchall()
    except sqlite3.DatabaseError as error:
        raise ValueError(f"{path} is not a results store ({error}).") from None
    return connection


def _check_schema(connection: sqlite3.Connection, path: Path) -> None:
    """Refuse a database that is damaged or lacks the tables and columns of a results store."""
    try:
        problems = [row[0] for row in connection.execute("PRAGMA quick_check").fetchall()]
        tables = {row[0] for row in connection.execute(_TABLE_NAMES).fetchall()}
    except sqlite3.DatabaseError as error:
        raise ValueError(f"{path} is not a results store ({error}).") from None
    if problems != ["ok"]:
        raise ValueError(
            f"{path} is damaged ({'; '.join(problems[:3])}); restore it from a copy, "
            "or move it away to start a new store."
        )
    if not set(_TABLES) <= tables:
        found = ", ".join(sorted(tables)) or "none"
        raise ValueError(
            f"{path} is not a results store (its tables: {found}; a store has the tables "
            f"{', '.join(_TABLES)}); name another file, or a new one, as the store."
        )
    for table, expected in _TABLES.items():
        columns = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
        missing = [column for column in expected if column not in columns]
        if missing:
            raise ValueError(
                f"{path} is a damaged results store: its table {table} lacks the columns "
                f"{missing}; restore it from a copy, or move it away to start a new store."
            )
    row = connection.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    if row is None or row[0] != _SCHEMA_VERSION:
        found = "no schema version" if row is None else f"store schema {row[0]}"
        raise ValueError(f"{path} has {found}; this version reads schema {_SCHEMA_VERSION}.")


def _open_for_writing(path: Path) -> sqlite3.Connection:
    """A connection that writes to the store at ``path``, created first when missing."""
    if not path.exists():
        _create(path)
    if not os.access(path, os.W_OK):
        raise ValueError(
            f"{path} is read-only, and running a study writes to its store: make it writable, "
            "or name another store."
        )
    try:
        connection = sqlite3.connect(path, timeout=60.0, isolation_level=None)
    except sqlite3.DatabaseError as error:
        raise ValueError(_unwritable(path, error)) from None
    try:
        # WAL: readers (a report) never block the writer, and a killed writer loses at most the
        # transaction it was in.
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute(_CLAIMS)  # stores made before claims existed
        _add_missing_run_columns(connection)
    except sqlite3.DatabaseError as error:
        connection.close()
        raise ValueError(_unwritable(path, error)) from None
    return connection


def _add_missing_run_columns(connection: sqlite3.Connection) -> None:
    """Give a store made by an earlier version the columns of ``runs`` it lacks."""
    present = _run_columns(connection)
    for name, kind in ADDED_RUN_COLUMNS.items():
        if name in present:
            continue
        try:
            connection.execute(f"ALTER TABLE runs ADD COLUMN {name} {kind}")
        except sqlite3.OperationalError as error:
            if "duplicate column" not in str(error):  # another driver added it first
                raise


def _run_columns(connection: sqlite3.Connection) -> set[str]:
    return {row[1] for row in connection.execute("PRAGMA table_info(runs)")}


def _unwritable(path: Path, error: BaseException) -> str:
    return (
        f"cannot write the results store {path} ({error}): its folder or the file is "
        "read-only; make them writable, or name a store in a writable folder."
    )


def _create(path: Path) -> None:
    """Create an empty store at ``path`` at once: built under a temporary name, then linked.

    Another driver starting at the same time thus never sees a half-made store; when it links
    its own first, this one opens that one.
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(temporary, isolation_level=None)
    except (OSError, sqlite3.DatabaseError) as error:
        raise ValueError(_unwritable(path, error)) from None
    try:
        connection.executescript(
            f"BEGIN; {_SCHEMA} {_CLAIMS} INSERT INTO meta (key, value) "
            f"VALUES ('schema', '{_SCHEMA_VERSION}'); COMMIT;"
        )
        connection.execute("PRAGMA journal_mode=WAL")
        connection.close()
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another driver created it first
    except (OSError, sqlite3.DatabaseError) as error:
        raise ValueError(_unwritable(path, error)) from None
    finally:
        connection.close()
        temporary.unlink(missing_ok=True)


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
