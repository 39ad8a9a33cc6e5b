"""The registry of dataset sources: built-in, registered by the user, or found by entry point."""

from __future__ import annotations

import dataclasses
import functools
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from ._build import assemble
from ._dataset import Dataset, Task
from ._files import DatasetLoadError, DatasetUnavailableError, locate, resolve
from ._paper import PAPER_SOURCES, VARIANT_SOURCES
from ._prepare import positive_outcome, prepare
from ._source import AttributeKind, DatasetSource, LoadedTable, check_name
from ._split import check_random_state
from ._synthetic import SYNTHETIC_SOURCES

#: Entry-point group under which other distributions offer dataset sources.
ENTRY_POINT_GROUP = "faircocco_plugins.datasets"

PathArg = str | os.PathLike[str] | None


class Registry:
    """Dataset sources by name; entry points are read on the first look-up that needs them."""

    def __init__(self, sources: Iterable[DatasetSource]) -> None:
        self._sources = {source.name: source for source in sources}
        self._discovered = False

    def get(self, name: object) -> DatasetSource:
        if not isinstance(name, str):
            raise TypeError(f"name must be a string; got {type(name).__name__}.")
        if name not in self._sources:
            self._discover()
        if name not in self._sources:
            raise ValueError(f"unknown dataset {name!r}; known datasets: {sorted(self._sources)}.")
        return self._sources[name]

    def all(self) -> list[DatasetSource]:
        self._discover()
        return list(self._sources.values())

    def add(self, source: DatasetSource, *, overwrite: bool) -> None:
        self._discover()
        if source.name in self._sources and not overwrite:
            raise ValueError(
                f"a dataset named {source.name!r} is already registered "
                f"({self._sources[source.name].origin or 'no origin'}); pass overwrite=True to "
                "replace it."
            )
        self._sources[source.name] = source

    def _discover(self) -> None:
        if self._discovered:
            return
        self._discovered = True
        for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
            where = f"entry point {entry_point.name} ({entry_point.value})"
            try:
                sources = _sources_of(entry_point.load())
            # A broken plugin must not take the built-in datasets down with it.
            except Exception as error:
                warnings.warn(
                    f"dataset {where} could not be loaded and is skipped: {error}",
                    RuntimeWarning,
                    stacklevel=3,
                )
                continue
            for source in sources:
                if source.name in self._sources:
                    warnings.warn(
                        f"dataset {where} offers {source.name!r}, a name already taken; skipped.",
                        RuntimeWarning,
                        stacklevel=3,
                    )
                    continue
                self._sources[source.name] = (
                    source if source.origin else dataclasses.replace(source, origin=where)
                )


def _sources_of(obj: object) -> list[DatasetSource]:
    """What an entry point loads to: a source, an iterable of them, or a callable giving either."""
    if not isinstance(obj, DatasetSource) and callable(obj):
        obj = obj()
    if isinstance(obj, DatasetSource):
        return [obj]
    if isinstance(obj, Iterable) and not isinstance(obj, str | bytes):
        sources = list(obj)
        if all(isinstance(source, DatasetSource) for source in sources):
            return sources
    raise TypeError(
        "expected a DatasetSource, an iterable of them, or a callable returning either; got "
        f"{type(obj).__name__}"
    )


_REGISTRY = Registry([*PAPER_SOURCES, *VARIANT_SOURCES, *SYNTHETIC_SOURCES])


def load_dataset(
    name: str,
    *,
    data_dir: PathArg = None,
    random_state: int | None = 0,
    download: bool | None = None,
) -> Dataset:
    """Load a registered dataset with the split of one seed.

    Raw files are looked for under ``data_dir``, then ``$FAIRCOCCO_DATA``, then the user cache
    (``$FAIRCOCCO_CACHE``), each laid out as ``<dir>/<dataset>/<file>``; where none has them and
    the exact original bytes can be fetched, they are downloaded into the cache. Every file's
    sha256 is checked. The parsed table is cached in the process, so loading the same dataset for
    several seeds parses it once.

    Parameters
    ----------
    name : str
        Registry name; :func:`list_datasets` lists them.
    data_dir : str or path-like, optional
        Directory searched first for the raw files.
    random_state : int or None, default 0
        Seed of the split: the same seed gives the same split. ``None`` draws a fresh one.
    download : bool, optional
        Whether a missing file may be downloaded. ``None`` (the default) allows it unless the
        environment variable ``FAIRCOCCO_DOWNLOAD`` is ``0``, ``false``, ``no`` or ``off``.

    Returns
    -------
    Dataset
        Features ``X`` (float32, nominal features one-hot), outcome ``y`` (0/1 integers or
        floats), sensitive attributes with their raw types, and the split. The sensitive
        attributes are not columns of ``X``.

    Raises
    ------
    ValueError
        If ``name`` is unknown (the message lists the known names) or ``random_state`` is not a
        non-negative integer or None.
    DatasetUnavailableError
        If a raw file is missing and cannot be downloaded, or does not match its sha256.

    Examples
    --------
    >>> from faircocco_plugins.datasets import load_dataset
    >>> data = load_dataset("synthetic", random_state=3)
    >>> data.task, data.X.shape
    ('classification', (2000, 7))
    >>> train = data.part("train")
    >>> len(train.y)
    1200
    """
    source = _REGISTRY.get(name)
    seed = check_random_state(random_state)
    paths = dataset_files(name, data_dir=data_dir, download=download)
    identity = tuple(
        (file_name, str(path), path.stat().st_size, path.stat().st_mtime_ns)
        for file_name, path in paths.items()
    )
    table = _prepared(source, identity)
    return assemble(
        table,
        name=source.name,
        task=source.task,
        description=source.description,
        random_state=seed,
        test_label=source.test_label,
    )


@functools.lru_cache(maxsize=16)
def _prepared(source: DatasetSource, files: tuple[tuple[str, str, int, int], ...]) -> LoadedTable:
    """The typed, encoded table of ``source`` read from ``files`` (name, path, size, mtime)."""
    try:
        table = source.load({file_name: Path(path) for file_name, path, _, _ in files})
    except DatasetUnavailableError:
        raise  # already names the dataset's file and how to provide it
    except Exception as error:
        raise DatasetLoadError(source.name, error) from error
    # the loader has done its part: what fails from here on is the table against the
    # declaration (pos_label, task, attributes), and the messages name the declaration
    return prepare(
        _with_positive_outcome(table, source),
        name=source.name,
        task=source.task,
        attributes=source.attributes,
    )


def _with_positive_outcome(table: object, source: DatasetSource) -> object:
    """The table with its outcome as ``y == pos_label`` where the source declares one."""
    if source.pos_label is None or not isinstance(table, tuple) or len(table) < 2:
        return table  # the checks of the table name what is wrong
    return (table[0], positive_outcome(table[1], source.pos_label, source.name), *table[2:])


def dataset_files(
    name: str, *, data_dir: PathArg = None, download: bool | None = None
) -> dict[str, Path]:
    """The verified local paths of a dataset's raw files, by file name.

    Each file is found as :func:`load_dataset` finds it (under ``data_dir``, ``$FAIRCOCCO_DATA``
    or the user cache, downloaded into the cache where allowed) and checked against its
    sha256. For code that reads the raw files with another toolkit's own loader.

    Parameters
    ----------
    name : str
        A registered name (see :func:`list_datasets`).
    data_dir, download
        As for :func:`load_dataset`.

    Returns
    -------
    dict of str to pathlib.Path
        Empty for a dataset without raw files.

    Raises
    ------
    DatasetUnavailableError
        If a file is missing and cannot be downloaded, or its copy has other bytes.

    Examples
    --------
    >>> from faircocco_plugins.datasets import dataset_files
    >>> dataset_files("synthetic")
    {}
    """
    source = _REGISTRY.get(name)
    return {file.name: resolve(file, data_dir, download=download) for file in source.files}


def get_source(name: str) -> DatasetSource:
    """The registered source of the dataset ``name``.

    Parameters
    ----------
    name : str
        A registered name (see :func:`list_datasets`).

    Returns
    -------
    DatasetSource

    Raises
    ------
    ValueError
        If no dataset of that name is registered; the message lists the known names.

    Examples
    --------
    >>> from faircocco_plugins.datasets import get_source
    >>> dict(get_source("adult").attributes)
    {'sex': 'binary'}
    """
    return _REGISTRY.get(name)


def register_source(source: DatasetSource, *, overwrite: bool = False) -> None:
    """Register a :class:`DatasetSource` in this process, as an entry point would.

    :func:`register_dataset` builds the source from a loader; this registers one that is
    built already (for example one received from another process).

    Parameters
    ----------
    source : DatasetSource
    overwrite : bool
        Replace a registered dataset of the same name; otherwise that raises ``ValueError``.
    """
    if not isinstance(source, DatasetSource):
        raise TypeError(f"source must be a DatasetSource; got {type(source).__name__}.")
    _REGISTRY.add(source, overwrite=overwrite)


def list_datasets(*, data_dir: PathArg = None) -> pd.DataFrame:
    """The registered datasets, and whether their raw files are available here.

    Availability is decided without reading the files: each declared file must exist, with the
    expected size, under ``data_dir``, ``$FAIRCOCCO_DATA`` or the user cache. A source that
    fetches its data itself (``fairlearn_adult`` and ``fairlearn_credit_card``) is available when
    its toolkit's cache holds them, and otherwise downloadable: loading it needs the network.
    Other datasets without raw files (synthetic ones, most user-registered ones) are always
    available.

    Parameters
    ----------
    data_dir : str or path-like, optional
        Directory searched first, as in :func:`load_dataset`.

    Returns
    -------
    pandas.DataFrame
        One row per dataset, indexed by name, with columns ``task``, ``attributes`` (such as
        ``"sex:binary, age:continuous"``), ``rows`` (of the loaded table), ``paper_rows`` (as
        reported in the FairCOCCO paper), ``available``, ``downloadable`` (every missing file
        can be downloaded), ``origin`` (``"paper"``, ``"synthetic"``, ``"user"`` or the entry
        point), ``location`` (directory holding the first file, empty if none), ``found_in``
        (how that directory was chosen: ``"data_dir"``, ``"$FAIRCOCCO_DATA"`` or ``"cache"``,
        or ``"toolkit cache"`` for a source that fetches its data itself, such as fairlearn's,
        found in that toolkit's cache; empty if none), ``description`` and ``label`` (what the
        outcome is; empty when not declared).

    Examples
    --------
    >>> from faircocco_plugins.datasets import list_datasets
    >>> table = list_datasets()
    >>> table.loc["synthetic", "task"], bool(table.loc["synthetic", "available"])
    ('classification', True)
    """
    rows = []
    for source in _REGISTRY.all():
        rows.append(
            {
                "name": source.name,
                "task": source.task,
                "attributes": ", ".join(f"{a}:{kind}" for a, kind in source.attributes.items()),
                "rows": source.rows,
                "paper_rows": source.paper_rows,
                **_availability(source, data_dir),
                "origin": source.origin,
                "description": source.description,
                "label": source.label,
            }
        )
    table = pd.DataFrame(rows).set_index("name")
    return table.astype({"rows": "Int64", "paper_rows": "Int64"})


def _availability(source: DatasetSource, data_dir: PathArg) -> dict[str, Any]:
    """``available``, ``downloadable``, ``location`` and ``found_in`` of a source, without
    reading its files or the network."""
    if source.cached is not None:
        folder = source.cached()
        return {
            "available": folder is not None,
            "downloadable": True,
            "location": "" if folder is None else str(folder),
            "found_in": "" if folder is None else "toolkit cache",
        }
    found = [(file, locate(file, data_dir)) for file in source.files]
    present = [at is not None and at[1].stat().st_size == file.size for file, at in found]
    first = next((at for _, at in found if at is not None), None)
    return {
        "available": all(present),
        "downloadable": all(
            ok or bool(file.urls) for ok, (file, _) in zip(present, found, strict=True)
        ),
        "location": "" if first is None else str(first[1].parent.parent),
        "found_in": "" if first is None else first[0],
    }


def register_dataset(
    name: str,
    loader: Callable[[], LoadedTable | tuple[Any, ...]],
    *,
    task: Task,
    attributes: Mapping[str, AttributeKind],
    description: str = "",
    label: str = "",
    pos_label: Any = None,
    overwrite: bool = False,
) -> DatasetSource:
    """Add your own dataset to the registry, for :func:`load_dataset` and the benchmark.

    The loader returns the rows; the registry types and encodes them as for the built-in
    datasets (nominal features one-hot, float32 features, 0/1 or float outcome, typed sensitive
    attributes), checks that nothing is missing, and applies the standard split: 60/20/20 at
    random per seed (stratified by the outcome for classification), or, when the loader returns
    a test mask, those rows as test and a random 75/25 train/validation split of the others.

    Parameters
    ----------
    name : str
        Registry name (no spaces).
    loader : callable
        Called without arguments, once per process (the result is cached); returns
        ``(X, y, sensitive)`` or ``(X, y, sensitive, test_mask)``: a DataFrame of features
        (numbers, bools, strings or categoricals), the outcome, a DataFrame whose columns are
        the sensitive attributes, and optionally a boolean array marking fixed test rows.
    task : {"classification", "regression"}
        Binary classification (outcome of 0 and 1, -1 and 1, or bools; other labels with
        ``pos_label``) or regression.
    attributes : mapping of str to {"binary", "categorical", "continuous"}
        The columns of ``sensitive`` and their kinds.
    description : str
        One line shown by :func:`list_datasets`.
    label : str
        What the outcome is, in a few words (for classification, what 1 means); shown by
        :func:`list_datasets` and in the harness's results tables.
    pos_label : optional
        For classification, the outcome label that becomes 1 (as scikit-learn's and fairlearn's
        ``pos_label``): the other one becomes 0. Needed for labels such as ``"yes"``/``"no"``
        or a categorical outcome.
    overwrite : bool
        Replace a dataset of the same name instead of raising.

    Returns
    -------
    DatasetSource
        The registered source.

    Raises
    ------
    ValueError
        If the name is taken and ``overwrite`` is false, or the name, task or attribute kinds
        are not valid, or ``pos_label`` is given for regression.
    TypeError
        If an attribute's name is not a non-empty string, ``pos_label`` is not one label (a
        string, a number or a bool), or ``description`` or ``label`` is not a string.

    Notes
    -----
    What the declaration says is checked here, before any data is read; how the data meet it
    (a ``pos_label`` that is not a label of ``y``, an attribute declared binary with three
    levels) is checked when the dataset is loaded, and the error names the declaration, apart
    from the errors of the loader itself.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from faircocco_plugins.datasets import load_dataset, register_dataset
    >>> def my_loader():
    ...     rng = np.random.default_rng(0)
    ...     X = pd.DataFrame({"income": rng.normal(size=100), "city": rng.choice(["a", "b"], 100)})
    ...     sensitive = pd.DataFrame({"gender": rng.choice(["f", "m"], 100)})
    ...     y = (X["income"] > 0).astype(int)
    ...     return X, y, sensitive
    >>> _ = register_dataset(
    ...     "my_data", my_loader, task="classification", attributes={"gender": "binary"}
    ... )
    >>> list(load_dataset("my_data").X.columns)
    ['income', 'city=a', 'city=b']
    """
    check_name(name, "name")
    if not callable(loader):
        raise TypeError(f"loader must be callable; got {type(loader).__name__}.")
    if not isinstance(overwrite, bool):
        raise TypeError(f"overwrite={overwrite!r} is not valid; expected True or False.")

    def load(paths: Mapping[str, Path]) -> LoadedTable | tuple[Any, ...]:
        return loader()

    # the declaration is checked here, before any data: kinds, task, pos_label, names
    source = DatasetSource(
        name=name,
        task=task,
        attributes=attributes,
        load=load,
        description=description,
        origin="user",
        label=label,
        pos_label=pos_label,
    )
    _REGISTRY.add(source, overwrite=overwrite)
    return source
