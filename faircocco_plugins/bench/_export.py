"""A study's compact export: one CSV row per run and evaluated part, and its import into a store.

The export is what a study publishes and commits: a gzipped CSV small enough for the repository
that holds every run of the store, so that

- readers and the results pages work from it with pandas alone, through columns named for what
  they are (``dataset, notion, method, seed, strength, learning_rate, batch_size, part, n_rows,
  accuracy, ..., faircocco, faircocco_adjusted, degenerate``) and the per-attribute metrics
  under their store names (``faircocco_eo[sex]``, ``deo[sex]``, ...);
- a study resumes on a new machine from the export alone: :func:`import_export` writes its runs
  into a fresh store, and ``faircocco bench`` on that store runs only the cells that are missing.

The round trip is lossless: the store's own fields (``run_id``, the parameters and settings as
JSON, timings, versions) travel in columns of their own, so ``store.runs()`` after an import
equals the exported store's.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import warnings
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._inputs.files import check_writable, refuse_special_file
from .._records.notions import NOTIONS
from ._metrics import degenerate_runs, metric_range, r_squared
from ._store import (
    ADDED_RUN_COLUMNS,
    EVALUATED_PARTS,
    RUN_COLUMNS,
    STATUSES,
    ResultsStore,
    RunRecord,
    sqlite_database,
)
from ._study import cell_differences, run_id

#: Columns that name a run and its setting, first in the export.
KEY_COLUMNS: tuple[str, ...] = (
    "dataset",
    "notion",
    "method",
    "seed",
    "strength",
    "learning_rate",
    "batch_size",
    "part",
    "n_rows",
)
#: Metrics of every run on a part, in this order after the key; ``faircocco`` and
#: ``faircocco_adjusted`` are the joint scores of the run's own notion.
MAIN_METRICS: tuple[str, ...] = (
    "accuracy",
    "balanced_accuracy",
    "auc",
    "base_rate",
    "positive_rate",
    "mse",
    "r2",
    "deo",
    "di",
    "di_ratio",
    "faircocco",
    "faircocco_adjusted",
    "degenerate",
)
#: The store's own fields, carried so that an import restores the runs exactly.
_STORE_FIELDS: tuple[str, ...] = tuple(
    name for name in RUN_COLUMNS if name not in ("dataset", "notion", "method", "seed")
)
_JSON_FIELDS: tuple[str, ...] = ("params", "settings", "versions")
#: Parameter names of a network's learning rate and batch size in the methods' grids.
_TRAINING_PARAMS: dict[str, str] = {"learning_rate": "learning_rate", "batch_size": "batch_size"}


def export_runs(
    runs: pd.DataFrame, *, sweep_params: Mapping[str, str | None] | None = None
) -> pd.DataFrame:
    """The long-form export of a store's runs: one row per run and evaluated part.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs`.
    sweep_params : mapping of str to str or None, optional
        Each method's strength parameter (:attr:`MethodSpec.sweep_param`, e.g. ``lam`` for a
        penalty, ``bound`` for a constraint). The ``strength`` column is that parameter's value;
        it is empty for a method not in the mapping or without one.

    Returns
    -------
    pandas.DataFrame
        :data:`KEY_COLUMNS`, :data:`MAIN_METRICS`, every other metric of the part under its
        store name, then the store's own fields (``run_id``, ``study``, ``params``, ...; the
        dictionaries as JSON text).

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench._export import export_runs
    >>> runs = pd.DataFrame({
    ...     "run_id": ["r1"], "study": ["s"], "dataset": ["german"], "method": ["faircocco"],
    ...     "notion": ["eo"], "seed": [0], "params": [{"lam": 2.0, "learning_rate": 0.01}],
    ...     "settings": [{}], "status": ["ok"], "reason": [""], "n_train": [600],
    ...     "n_validation": [200], "n_test": [200], "fit_seconds": [1.0],
    ...     "predict_seconds": [0.1], "evaluate_seconds": [0.2], "peak_memory_mib": [90.0],
    ...     "versions": [{}],
    ...     "git_revision": [None], "finished_at": ["2026-01-01T00:00:00+00:00"],
    ...     "validation.accuracy": [0.7], "validation.faircocco_eo": [0.05],
    ...     "test.accuracy": [0.72], "test.faircocco_eo": [0.04],
    ... })
    >>> frame = export_runs(runs, sweep_params={"faircocco": "lam"})
    >>> frame[["part", "strength", "learning_rate", "accuracy", "faircocco"]].values.tolist()
    [['validation', 2.0, 0.01, 0.7, 0.05], ['test', 2.0, 0.01, 0.72, 0.04]]
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame; got {type(runs).__name__}.")
    missing = [name for name in RUN_COLUMNS if name not in runs.columns]
    if missing:
        raise ValueError(f"runs lacks the store columns {missing}; pass ResultsStore.runs().")
    sweeps = dict(sweep_params or {})
    parts = [_part_rows(runs, part, sweeps) for part in EVALUATED_PARTS]
    frame = pd.concat(parts, ignore_index=True)
    frame["_order"] = frame["part"].map(EVALUATED_PARTS.index)
    frame = frame.sort_values(["run_id", "_order"], kind="stable").drop(columns="_order")
    extra = sorted(
        name for name in frame.columns if name not in (*KEY_COLUMNS, *MAIN_METRICS, *_STORE_FIELDS)
    )
    return frame[[*KEY_COLUMNS, *MAIN_METRICS, *extra, *_STORE_FIELDS]].reset_index(drop=True)


def _part_rows(runs: pd.DataFrame, part: str, sweeps: Mapping[str, str | None]) -> pd.DataFrame:
    prefix = f"{part}."
    metrics = {
        name[len(prefix) :]: runs[name].astype(float)
        for name in runs.columns
        if isinstance(name, str) and name.startswith(prefix)
    }
    frame = pd.DataFrame(metrics, index=runs.index)
    frame["part"] = part
    frame["n_rows"] = runs[f"n_{part}"]
    frame["degenerate"] = degenerate_runs(runs, part)
    for name in ("accuracy", "balanced_accuracy", "auc", "base_rate", "positive_rate", "mse"):
        if name not in frame.columns:
            frame[name] = math.nan
    # NaN for classification, which has no MSE
    variance = frame.get("outcome_variance", pd.Series(math.nan, index=frame.index))
    frame["r2"] = r_squared(frame["mse"], variance)
    for name in ("deo", "di", "di_ratio"):
        if name not in frame.columns:
            frame[name] = math.nan
    frame["faircocco"] = _own_notion(frame, runs["notion"], "")
    frame["faircocco_adjusted"] = _own_notion(frame, runs["notion"], "_adjusted")
    params = runs["params"]
    frame["strength"] = pd.to_numeric(
        [_param(p, sweeps.get(str(m))) for p, m in zip(params, runs["method"], strict=True)],
        errors="coerce",
    )
    for column, name in _TRAINING_PARAMS.items():
        frame[column] = pd.to_numeric([_param(p, name) for p in params], errors="coerce")
    for name in ("dataset", "notion", "method", "seed", *_STORE_FIELDS):
        frame[name] = runs[name]
    for name in _JSON_FIELDS:
        frame[name] = [json.dumps(value, sort_keys=True) for value in runs[name]]
    return frame


def _own_notion(frame: pd.DataFrame, notions: pd.Series, suffix: str) -> pd.Series:
    values = [
        frame.at[row, f"faircocco_{notion}{suffix}"]
        if f"faircocco_{notion}{suffix}" in frame.columns
        else math.nan
        for row, notion in zip(frame.index, notions, strict=True)
    ]
    return pd.Series(values, index=frame.index, dtype=float)


def _param(params: Mapping[str, Any], name: str | None) -> Any:
    if name is None or not isinstance(params, Mapping):
        return None
    return params.get(name)


def write_export(
    store: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    study: str | None = None,
    sweep_params: Mapping[str, str | None] | None = None,
    force: bool = False,
) -> int:
    """Write the export of a store (or of one study in it) to a CSV file.

    Parameters
    ----------
    store : str or path-like
        The results store.
    out : str or path-like
        The export; gzipped when its name ends in ``.gz``. An earlier export there is replaced;
        the store itself never is.
    study : str, optional
        Export this study only.
    sweep_params : mapping of str to str or None, optional
        As for :func:`export_runs`.
    force : bool, default False
        Replace an existing file at ``out`` that is not an export.

    Returns
    -------
    int
        The number of runs exported.

    Raises
    ------
    ValueError
        If ``out`` is the store, another SQLite database or a file SQLite keeps beside one
        (``-wal``, ``-shm``, ``-journal``), an existing file that is not an export (without
        ``force``), or cannot be written (a read-only folder): before the store is read.
    """
    path = Path(out)
    _check_writable(Path(store), path, force)
    with ResultsStore(store, read_only=True) as opened:
        runs = opened.runs(study)
    frame = export_runs(runs, sweep_params=sweep_params)
    path.parent.mkdir(parents=True, exist_ok=True)
    # a fixed gzip mtime: the same runs give the same bytes, so an unchanged export is no diff
    compression = {"method": "gzip", "mtime": 0} if path.name.endswith(".gz") else None
    frame.to_csv(path, index=False, compression=compression, float_format="%.10g")
    return len(runs)


def _check_writable(store: Path, out: Path, force: bool) -> None:
    """Refuse to write an export over the store, over any SQLite database or a file SQLite
    keeps beside one (even with ``force``), over a file that is not an export, or where it
    cannot be written."""
    check_writable(out, "the export")
    database = sqlite_database(out)
    if database is not None:
        if out.exists() and store.exists() and out.samefile(store):
            what = "the results store being exported"
        elif database == out:
            what = "an SQLite database"
        else:
            what = f"a file SQLite keeps beside the database {database}"
        raise ValueError(
            f"the export's file {out} is {what}, which writing the export would destroy; name "
            "another file, such as runs.csv.gz."
        )
    if not out.exists():
        return
    if not force and not _is_export(out):
        raise ValueError(
            f"the export's file {out} exists and is not a study export, which writing the export "
            "would destroy; name another file, or pass --force (force=True) to replace it."
        )


def _is_export(path: Path) -> bool:
    """Whether ``path`` begins with an export's header (an earlier export, to be replaced)."""
    opener: Any = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", newline="") as file:
            header = file.readline()
    except (OSError, EOFError, UnicodeDecodeError):
        return False
    return header.startswith(",".join(KEY_COLUMNS) + ",")


def read_export(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read an export written by :func:`write_export`, checking its columns.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ValueError
        If the file cannot be read as CSV (missing, truncated, damaged), or lacks the
        export's columns: one line naming the file.
    """
    refuse_special_file(path, "the export")
    try:
        with warnings.catch_warnings():
            # a row with more fields than the header would lose data in silence
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(path, keep_default_na=False, na_values=[""], index_col=False)
    except FileNotFoundError:
        raise ValueError(f"the export {path} does not exist.") from None
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError, Warning) as error:
        message = " ".join(str(error).split()) or type(error).__name__
        raise ValueError(
            f"{path} cannot be read as a study export, as it is truncated or damaged "
            f"({message}); export the study again from its store."
        ) from None
    missing = [
        name
        for name in (*KEY_COLUMNS, *_STORE_FIELDS)
        if name not in frame.columns and name not in ADDED_RUN_COLUMNS
    ]
    if missing:
        raise ValueError(f"{path} is not a study export: it lacks the columns {missing}.")
    # an export written before a column existed did not measure it
    added = [name for name in ADDED_RUN_COLUMNS if name not in frame.columns]
    return frame.reindex(columns=[*frame.columns, *added])


def import_export(path: str | os.PathLike[str], store: str | os.PathLike[str]) -> tuple[int, int]:
    """Add the runs of an export to a store, skipping those it holds already.

    Every row is checked first (:func:`check_export`), and so is the store: it holds one study
    configuration, as for :func:`run_study`, so an export of another study, or of the same
    study with other settings, is refused. Nothing is written when a check fails.

    Parameters
    ----------
    path : str or path-like
        An export written by :func:`write_export`.
    store : str or path-like
        The results store (created when missing).

    Returns
    -------
    added, skipped : int
        Runs written, and runs the store already held.

    Raises
    ------
    ValueError
        One line naming the export (and its row and column) or the store, and what differs.
    """
    frame = read_export(path)
    check_export(frame, path)
    records = records_of(frame)
    with ResultsStore(store) as opened:
        _check_one_study(opened, records, path)
        held = opened.completed()
        new = [record for record in records if record.run_id not in held]
        opened.add_many(new)
    return len(new), len(records) - len(new)


#: Store fields every row has.
_REQUIRED: tuple[str, ...] = (
    "run_id",
    "study",
    "dataset",
    "method",
    "notion",
    "seed",
    "part",
    "params",
    "settings",
    "status",
    "versions",
    "finished_at",
)
#: Numeric store fields: counts of rows, and costs.
_COUNTS: tuple[str, ...] = ("n_rows", "n_train", "n_validation", "n_test")
_COSTS: tuple[str, ...] = ("fit_seconds", "predict_seconds", "evaluate_seconds", "peak_memory_mib")
#: Columns the export derives from the others, for its readers; an import does not read them.
_DERIVED: tuple[str, ...] = (
    "strength",
    "learning_rate",
    "batch_size",
    "r2",
    "faircocco",
    "faircocco_adjusted",
    "degenerate",
)


def check_export(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Refuse an export with a row the store could not hold as it is.

    Each row must have its store fields; a known part, notion and status; a seed that is a
    non-negative integer; counts and costs that are non-negative; each metric empty (not
    measured, or undefined) or a number in its range (:data:`METRIC_RANGES`); parameters,
    settings and versions that are JSON objects; and the ``run_id`` its study, dataset, method,
    notion, seed, parameters and settings give (:func:`run_id`), so that an edited row is not
    taken for a cell it is not. The rows of one run agree on its store fields, one per part.

    Parameters
    ----------
    frame : pandas.DataFrame
        The export, as :func:`read_export` returns it.
    path : str or path-like
        The export's file, named in the error.

    Raises
    ------
    ValueError
        One line naming the file, the row (counted from 1 after the header) and the column.
    """
    unknown = [
        name
        for name in frame.columns
        if name not in (*KEY_COLUMNS, *_STORE_FIELDS, *_DERIVED) and metric_range(name) is None
    ]
    if unknown:
        raise ValueError(
            f"{path} is not a valid study export: the columns {unknown} are not metrics of a "
            "run; export the study again from its store with this version."
        )
    for name in _REQUIRED:
        _refuse_first(path, frame, name, frame[name].isna(), "is empty")
    _check_choice(path, frame, "part", EVALUATED_PARTS)
    _check_choice(path, frame, "notion", NOTIONS)
    _check_choice(path, frame, "status", STATUSES)
    seeds = _numbers(path, frame, "seed")
    bad = ~((seeds >= 0) & (seeds == seeds.round()))
    _refuse_first(path, frame, "seed", bad, "is not a valid seed (a non-negative integer)")
    for name in (*_COUNTS, *_COSTS):
        values = _numbers(path, frame, name)
        _refuse_first(path, frame, name, values < 0, "is negative")
        if name in _COUNTS:
            fractional = values.notna() & (values != values.round())
            _refuse_first(path, frame, name, fractional, "is not a whole number")
    for name in frame.columns:
        bounds = metric_range(name)
        if bounds is not None:
            values = _numbers(path, frame, name)
            outside = values.notna() & ~values.between(*bounds) | np.isinf(values)
            low, high = bounds
            _refuse_first(path, frame, name, outside, f"is outside [{low:g}, {high:g}]")
    _check_run_ids(path, frame)


def _check_choice(path: Any, frame: pd.DataFrame, name: str, allowed: tuple[str, ...]) -> None:
    _refuse_first(
        path, frame, name, ~frame[name].isin(allowed), f"is not one of {', '.join(allowed)}"
    )


def _numbers(path: Any, frame: pd.DataFrame, name: str) -> pd.Series:
    """A column as floats (NaN where empty); a cell that is not a number is refused."""
    column = frame[name]
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        return column.astype(float)
    values = pd.to_numeric(column, errors="coerce")
    # "nan" reads as NaN, an undefined value, as an empty cell does
    spelled_nan = column.astype(str).str.strip().str.lower() == "nan"
    _refuse_first(
        path, frame, name, column.notna() & values.isna() & ~spelled_nan, "is not a number"
    )
    return values.astype(float)


def _refuse_first(path: Any, frame: pd.DataFrame, name: str, bad: pd.Series, problem: str) -> None:
    """Refuse the first row where ``bad`` holds, naming the file, the row, the column and
    the cell."""
    if not bad.any():
        return
    position = int(np.flatnonzero(bad.to_numpy(dtype=bool))[0])
    value = frame[name].iloc[position]
    if isinstance(value, np.generic):
        value = value.item()
    shown = "" if pd.isna(value) else f"{value!r} "
    _refuse(path, position, name, f"{shown}{problem}")


def _refuse(path: Any, position: int, name: str, problem: str) -> None:
    raise ValueError(
        f"{path} is not a valid study export: row {position + 1}, column {name}: {problem}; "
        "export the study again from its store, or correct that row."
    )


def _check_run_ids(path: Any, frame: pd.DataFrame) -> None:
    """Each row's JSON objects parse, its ``run_id`` is the hash of its identity, and the rows
    of one run agree and have one part each."""
    objects: dict[str, list[Any]] = {name: [] for name in _JSON_FIELDS}
    for name, values in objects.items():
        for position, text in enumerate(frame[name]):
            try:
                value = json.loads(text)
            except (TypeError, ValueError) as error:
                _refuse(path, position, name, f"is not valid JSON ({error})")
            if not isinstance(value, dict):
                _refuse(path, position, name, f"holds a JSON {type(value).__name__}, not an object")
            values.append(value)
    columns = [frame[name] for name in ("run_id", "study", "dataset", "method", "notion", "seed")]
    for position, (key, study, dataset, method, notion, seed) in enumerate(
        zip(*columns, strict=True)
    ):
        expected = run_id(
            study=str(study),
            dataset=str(dataset),
            method=str(method),
            notion=str(notion),
            seed=int(seed),
            params=objects["params"][position],
            settings=objects["settings"][position],
        )
        if key != expected:
            _refuse(
                path,
                position,
                "run_id",
                f"{key!r} is not the id of the row's study, dataset, method, notion, seed, "
                f"params and settings (they give {expected!r}), so the row was edited and "
                "would stand for a cell it is not",
            )
    repeated = frame.duplicated(["run_id", "part"])
    _refuse_first(path, frame, "part", repeated, "comes twice for this run_id")
    fields = [name for name in _STORE_FIELDS if name != "run_id"]
    first = frame.groupby("run_id", sort=False)[fields].transform("first")
    for name in fields:
        differs = ~((frame[name] == first[name]) | (frame[name].isna() & first[name].isna()))
        _refuse_first(path, frame, name, differs, "differs from the run's first row")


def _check_one_study(store: ResultsStore, records: list[RunRecord], path: Any) -> None:
    """Refuse runs of another study, or of another configuration, than the store's."""
    studies, held = store.studies(), store.study_settings()
    names = set(held["study"]) | set(studies["study"])
    differences = []
    others = sorted({record.study for record in records} - names)
    if names and others:
        differences.append(f"study: {sorted(names)} in the store, {others} in the export")
    settings = {(study, method): value for study, method, value in held.itertuples(index=False)}
    configs = studies.groupby("study")["config"].agg(list).to_dict()
    for record in records:
        before = settings.get((record.study, record.method), record.settings)
        if before != record.settings:
            differences.append(
                f"settings of {record.method}: {before} in the store, {record.settings} in the "
                "export"
            )
        for config in configs.get(record.study, []):
            differences += cell_differences(config, record)
    if differences:
        shown = list(dict.fromkeys(differences))
        listed = "; ".join(shown[:3]) + ("; ..." if len(shown) > 3 else "")
        raise ValueError(
            f"{store.path} holds a study of another configuration ({listed}), and a store holds "
            "one study configuration, so that its report describes every run in it: import "
            f"{path} into a new store (faircocco import EXPORT --store PATH), or move "
            f"{store.path} away to start over."
        )


def records_of(frame: pd.DataFrame) -> list[RunRecord]:
    """The store records of an export's rows (one record per ``run_id``)."""
    metric_columns = [name for name in frame.columns if metric_range(name) is not None]
    values = frame[metric_columns].to_numpy(dtype=float)
    parts = frame["part"].to_numpy()
    metrics: dict[str, dict[str, float]] = {}
    for key, part, row in zip(frame["run_id"], parts, values, strict=True):
        measured = metrics.setdefault(str(key), {})
        for index in np.flatnonzero(~np.isnan(row)):
            measured[f"{part}.{metric_columns[index]}"] = float(row[index])
    firsts = frame.drop_duplicates("run_id")[list(RUN_COLUMNS)].to_dict("records")
    return [
        RunRecord(
            **{name: _store_value(name, first[name]) for name in RUN_COLUMNS},
            metrics=metrics[str(first["run_id"])],
        )
        for first in firsts
    ]


def _store_value(name: str, value: Any) -> Any:
    """A store field of an export's row as its record holds it; an empty cell is a field not
    recorded (an empty ``reason``, None elsewhere)."""
    if name in _JSON_FIELDS:
        return json.loads(value)
    if pd.isna(value):
        return "" if name == "reason" else None
    if name == "seed" or name in _COUNTS:
        return int(value)
    if name in _COSTS:
        return float(value)
    return str(value)
