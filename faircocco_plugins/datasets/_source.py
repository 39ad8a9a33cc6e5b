"""What a dataset source declares: its name, task, attributes, raw files and loader."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

import numpy as np
import pandas as pd

from .._records.notions import KINDS, TASKS
from ._dataset import Task

AttributeKind = Literal["binary", "categorical", "continuous"]
ATTRIBUTE_KINDS: tuple[AttributeKind, ...] = KINDS


class LoadedTable(NamedTuple):
    """What a loader returns: the rows of a dataset before the split.

    ``X`` may hold numeric, bool and nominal (string, categorical) columns; the registry one-hot
    encodes the nominal ones. ``test`` is an optional boolean mask of rows that form a fixed test
    part (an official test file); without it the registry draws a random test part.
    """

    X: pd.DataFrame
    y: pd.Series
    sensitive: pd.DataFrame
    test: np.ndarray | None = None


@dataclass(frozen=True)
class DataFile:
    """A raw file a dataset is read from, with the checksum it must match.

    Attributes
    ----------
    dataset : str
        Folder of the file under a data directory: the file is ``<dir>/<dataset>/<name>``.
    name : str
        File name.
    sha256 : str
        Hex digest of the file's bytes.
    size : int
        Size in bytes.
    urls : tuple of str
        Where the exact bytes can be downloaded from, tried in order; empty when the file is not
        downloaded (for example because the stored file is not the original distribution).
    origin : str
        Where the file comes from, shown in error messages.

    Examples
    --------
    >>> from faircocco_plugins.datasets import DataFile
    >>> f = DataFile("mine", "table.csv", sha256="0" * 64, size=10)
    >>> f.relative_path
    'mine/table.csv'
    """

    dataset: str
    name: str
    sha256: str
    size: int
    urls: tuple[str, ...] = ()
    origin: str = ""
    test_label: str = "fixed test rows"

    @property
    def relative_path(self) -> str:
        """The file's path under a data directory, ``<dataset>/<name>``."""
        return f"{self.dataset}/{self.name}"


#: A loader: the resolved and verified paths of the declared files, by file name, in; the table
#: out (a :class:`LoadedTable` or a plain ``(X, y, sensitive[, test])`` tuple).
Loader = Callable[[Mapping[str, Path]], "LoadedTable | tuple[Any, ...]"]


@dataclass(frozen=True, eq=False)
class DatasetSource:
    """A dataset the registry can load: metadata plus a loader.

    This is also what an entry point in the group ``faircocco_plugins.datasets`` must provide
    (the object itself, an iterable of them, or a callable without arguments returning either).

    Attributes
    ----------
    name : str
        Registry name, such as ``"adult"``.
    task : {"classification", "regression"}
        Binary classification (the outcome holds 0 and 1) or regression.
    attributes : mapping of str to {"binary", "categorical", "continuous"}
        The sensitive attributes: the columns of ``sensitive``, in this order, and their kinds.
    load : callable
        Called with a mapping from each declared file's name to its verified local path (empty
        when ``files`` is empty); returns a :class:`LoadedTable` or a tuple
        ``(X, y, sensitive)`` / ``(X, y, sensitive, test_mask)``. It is called once per process
        and file version: the registry caches the prepared table.
    description : str
        One line: source, outcome, attributes and preprocessing.
    files : tuple of DataFile
        Raw files the loader reads; the registry finds, verifies (and where possible downloads)
        them before calling ``load``.
    rows : int, optional
        Rows of the loaded table, shown by :func:`list_datasets` without loading.
    paper_rows : int, optional
        Rows the FairCOCCO paper reports, where it uses the dataset.
    origin : str
        Where the source comes from: ``"paper"``, ``"synthetic"``, ``"user"`` or the entry point.
    test_label : str
        Where the loader's fixed test rows come from, such as ``"official test file
        adult.test"``; shown in :attr:`Split.source`. Unused without a test mask.
    label : str
        What the outcome ``y`` is, in a few words (for classification, what the positive
        class 1 means), such as ``"income above $50K"``; shown by :func:`list_datasets` and
        in the harness's results tables.
    pos_label : optional
        For classification, the label of the loader's outcome that becomes 1 (the other one
        becomes 0), applied after ``load``; None when the loader gives 0/1 numbers or bools.
    cached : callable, optional
        For a source that fetches its data itself rather than through ``files`` (as
        fairlearn's fetchers do): called without arguments, it returns the folder holding the
        data when they are there, or None when loading needs the network. It must not read
        the network. :func:`list_datasets` calls it to say which; without it, a source without
        ``files`` is always available.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.datasets import DatasetSource
    >>> def load(paths):
    ...     X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 4.0]})
    ...     sensitive = pd.DataFrame({"group": pd.Categorical(list("aabbb"))})
    ...     return X, pd.Series([0, 1, 0, 1, 1]), sensitive
    >>> source = DatasetSource(
    ...     "tiny", task="classification", attributes={"group": "binary"}, load=load
    ... )
    >>> source.name
    'tiny'
    """

    name: str
    task: Task
    attributes: Mapping[str, AttributeKind]
    load: Loader
    description: str = ""
    files: tuple[DataFile, ...] = ()
    rows: int | None = None
    paper_rows: int | None = None
    origin: str = ""
    test_label: str = "fixed test rows"
    label: str = ""
    pos_label: Any = None
    cached: Callable[[], Path | None] | None = None

    def __post_init__(self) -> None:
        check_name(self.name, "name")
        if self.task not in TASKS:
            raise ValueError(f"task={self.task!r} is not valid; expected one of {list(TASKS)}.")
        if not isinstance(self.attributes, Mapping) or not self.attributes:
            raise TypeError(
                "attributes must be a non-empty mapping from column name to one of "
                f"{list(ATTRIBUTE_KINDS)}; got {self.attributes!r}."
            )
        for name in ("description", "test_label", "label"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a str; got {type(getattr(self, name)).__name__}.")
        _check_pos_label(self.pos_label, self.task)
        for column, kind in self.attributes.items():
            if not isinstance(column, str) or not column:
                raise TypeError(
                    f"attributes has the key {column!r}; the keys are the names of the "
                    "sensitive columns, non-empty strings."
                )
            if kind not in ATTRIBUTE_KINDS:
                raise ValueError(
                    f"attributes[{column!r}]={kind!r} is not valid; expected one of "
                    f"{list(ATTRIBUTE_KINDS)}."
                )
        if not callable(self.load):
            raise TypeError(f"load must be callable; got {type(self.load).__name__}.")
        if self.cached is not None and not callable(self.cached):
            raise TypeError(f"cached must be callable or None; got {type(self.cached).__name__}.")
        # A read-only copy, so that later edits of the caller's dict cannot change the source.
        object.__setattr__(self, "attributes", MappingProxyType(dict(self.attributes)))


def _check_pos_label(pos_label: object, task: str) -> None:
    """What can be told of ``pos_label`` without the data: a single label, for classification."""
    if pos_label is None:
        return
    if task != "classification":
        raise ValueError(f"pos_label is for task='classification'; got task={task!r}.")
    scalar = isinstance(pos_label, str | int | float | np.generic) and np.ndim(pos_label) == 0
    if not scalar or pos_label != pos_label:  # NaN equals nothing, so it matches no label
        raise TypeError(
            f"pos_label={pos_label!r} is not valid; expected the one outcome label (a string, "
            "a number or a bool) that becomes 1."
        )


def check_name(name: object, argument: str) -> str:
    """A registry name: a non-empty string without whitespace."""
    if not isinstance(name, str) or not name or any(c.isspace() for c in name):
        raise ValueError(
            f"{argument}={name!r} is not valid; expected a non-empty name without spaces."
        )
    return name
