"""AIF360's own Adult, COMPAS and German credit loaders, fed from the registry's raw files.

AIF360's ``AdultDataset``, ``CompasDataset`` and ``GermanDataset`` read fixed file names under
their package's ``data/raw/<folder>/`` and exit the interpreter when one is missing. Here the
registry's verified raw files are linked into that folder, so AIF360's preprocessing runs
unchanged: :func:`aif360_dataset` returns AIF360's dataset object, and :func:`sources` offers the
same preprocessing to :func:`faircocco_plugins.datasets.load_dataset` as ``"aif360_adult"``,
``"aif360_compas"`` and ``"aif360_german"``.
"""

from __future__ import annotations

import filecmp
import importlib
import inspect
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from faircocco_plugins.datasets import (
    DataFile,
    DatasetLoadError,
    DatasetSource,
    DatasetUnavailableError,
    dataset_files,
    get_source,
)

if TYPE_CHECKING:
    from aif360.datasets import StandardDataset

__all__ = ["aif360_dataset", "sources"]


@dataclass(frozen=True)
class _Loader:
    """One AIF360 loader: its class, its raw folder and files, and the source built on it."""

    name: str  # name of aif360_dataset; the registry dataset holding the raw files
    class_name: str  # in aif360.datasets
    module: str  # the module whose __file__ AIF360 derives the raw folder from
    folder: str  # AIF360's folder under data/raw
    files: Mapping[str, str]  # AIF360's file name -> the registry's file name
    attributes: Mapping[
        str, Literal["binary"]
    ]  # AIF360's default protected attributes, in its order
    label: str
    description: str
    rows: int  # rows AIF360 keeps with its defaults

    @property
    def source_name(self) -> str:
        return f"aif360_{self.name}"

    @property
    def qualified_class(self) -> str:
        return f"aif360.datasets.{self.class_name}"


_LOADERS: dict[str, _Loader] = {
    loader.name: loader
    for loader in (
        _Loader(
            name="adult",
            class_name="AdultDataset",
            module="aif360.datasets.adult_dataset",
            folder="adult",
            files={"adult.data": "adult.data", "adult.test": "adult.test"},
            attributes={"race": "binary", "sex": "binary"},
            label="income above $50K a year (income-per-year '>50K')",
            description=(
                "AIF360's AdultDataset preprocessing of UCI adult.data + adult.test (rows with "
                "missing values dropped, fnlwgt dropped, nominal one-hot), sensitive race "
                "(1: White) and sex (1: Male)"
            ),
            rows=45222,
        ),
        _Loader(
            name="compas",
            class_name="CompasDataset",
            module="aif360.datasets.compas_dataset",
            folder="compas",
            files={"compas-scores-two-years.csv": "compas-scores-two-years.csv"},
            attributes={"sex": "binary", "race": "binary"},
            label="no recidivism within two years (two_year_recid 0)",
            description=(
                "AIF360's CompasDataset preprocessing of ProPublica compas-scores-two-years.csv "
                "(ProPublica's row filters, 10 features kept, nominal one-hot), sensitive sex "
                "(1: Female) and race (1: Caucasian)"
            ),
            rows=6167,
        ),
        _Loader(
            name="german",
            class_name="GermanDataset",
            module="aif360.datasets.german_dataset",
            folder="german",
            files={"german.data": "german.data"},
            attributes={"sex": "binary", "age": "binary"},
            label="good credit risk (german.data label 1)",
            description=(
                "AIF360's GermanDataset preprocessing of UCI Statlog german.data (sex derived "
                "from personal_status, nominal one-hot), sensitive sex (1: male) and age "
                "(1: older than 25)"
            ),
            rows=1000,
        ),
    )
}


def aif360_dataset(
    name: str,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    download: bool | None = None,
    **kwargs: Any,
) -> StandardDataset:
    """AIF360's own ``AdultDataset``, ``CompasDataset`` or ``GermanDataset``, read from the
    registry's raw files.

    The raw files are found and checked against their sha256 by
    :func:`faircocco_plugins.datasets.dataset_files` (under ``data_dir``, then
    ``$FAIRCOCCO_DATA``, then the user cache; downloaded where allowed). Each is then linked
    into the folder AIF360 reads (``aif360/data/raw/<folder>/``) unless that folder already
    holds the same bytes.

    Parameters
    ----------
    name : {"adult", "compas", "german"}
        The dataset.
    data_dir : str or path-like, optional
        Directory searched first for the raw files.
    download : bool, optional
        As for :func:`faircocco_plugins.datasets.load_dataset`.
    **kwargs
        Passed to AIF360's class, such as ``protected_attribute_names=["sex"]``.

    Returns
    -------
    aif360.datasets.StandardDataset
        AIF360's dataset, with its default preprocessing unless ``kwargs`` change it.

    Raises
    ------
    ValueError
        If ``name`` is unknown (the message lists the valid names), or AIF360's raw folder
        already holds a different file of the same name (the message names it).
    TypeError
        If a keyword is not an argument of AIF360's class.
    DatasetUnavailableError
        If a raw file is missing or does not match its sha256, or AIF360 could not read it.
    PermissionError
        If a file cannot be linked into AIF360's raw folder (the message names the path).
    DatasetLoadError
        If AIF360's class raised; the message names the dataset, the error is its cause.

    Examples
    --------
    >>> from faircocco_aif360._loaders import aif360_dataset
    >>> german = aif360_dataset("german")  # doctest: +SKIP
    >>> german.features.shape[0], german.protected_attribute_names  # doctest: +SKIP
    (1000, ['sex', 'age'])
    """
    loader = _loader(name)
    cls = _aif360_class(loader)
    _check_kwargs(cls, kwargs)
    files = _registry_files(loader)
    found = dataset_files(loader.name, data_dir=data_dir, download=download)
    _make_available(loader, {aif360: found[f.name] for aif360, f in files.items()})
    try:
        return _instantiate(loader, cls, kwargs, dataset=name)
    except DatasetUnavailableError:
        raise
    except Exception as error:
        wrapped = DatasetLoadError(name, error)
        wrapped.add_note(f"raised by {loader.qualified_class}(**{kwargs!r})")
        raise wrapped from error


def sources() -> tuple[DatasetSource, ...]:
    """The registry sources ``"aif360_adult"``, ``"aif360_compas"`` and ``"aif360_german"``.

    Each loads the registry's raw files of the same dataset through AIF360's class with its
    defaults. Its table is ``X``: AIF360's ``features`` without the protected attributes; ``y``:
    1 where AIF360's label is its favourable one, else 0; ``sensitive``: AIF360's protected
    attributes, 0/1 integers (1 is AIF360's privileged group).

    Returns
    -------
    tuple of DatasetSource
    """
    return tuple(_source(loader) for loader in _LOADERS.values())


def _source(loader: _Loader) -> DatasetSource:
    files = _registry_files(loader)

    def load(paths: Mapping[str, Path]) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
        # the registry passes the verified path of every declared file
        _make_available(loader, {aif360: paths[name] for aif360, name in loader.files.items()})
        dataset = _instantiate(loader, _aif360_class(loader), {}, dataset=loader.source_name)
        return _table(dataset)

    return DatasetSource(
        name=loader.source_name,
        task="classification",
        attributes=dict(loader.attributes),
        load=load,
        description=loader.description,
        files=tuple(files.values()),
        rows=loader.rows,
        origin="faircocco_aif360",
        label=loader.label,
    )


def _table(dataset: Any) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    """``(X, y, sensitive)`` of an AIF360 dataset, the protected attributes kept out of X."""
    protected = list(dataset.protected_attribute_names)
    features = pd.DataFrame(dataset.features, columns=list(dataset.feature_names))
    # AIF360 keeps numeric labels as they are (COMPAS: 0 is favourable, German: 1 and 2), so
    # the favourable label is compared with rather than assumed to be 1.
    y = pd.Series(
        (dataset.labels.ravel() == dataset.favorable_label).astype(np.int64),
        name=dataset.label_names[0],
    )
    sensitive = pd.DataFrame(dataset.protected_attributes, columns=protected).astype(np.int64)
    return features.drop(columns=protected), y, sensitive


def _loader(name: object) -> _Loader:
    if not isinstance(name, str):
        raise TypeError(f"name must be a string; got {type(name).__name__}.")
    if name not in _LOADERS:
        raise ValueError(f"name={name!r} is not valid; expected one of {list(_LOADERS)}.")
    return _LOADERS[name]


def _aif360_class(loader: _Loader) -> type:
    # imported here: the registry lists this module's sources where AIF360 is not installed
    module = importlib.import_module("aif360.datasets")
    return getattr(module, loader.class_name)


def _check_kwargs(cls: type, kwargs: Mapping[str, Any]) -> None:
    valid = list(inspect.signature(cls).parameters)
    unknown = sorted(set(kwargs) - set(valid))
    if unknown:
        raise TypeError(
            f"{unknown} are not arguments of aif360.datasets.{cls.__name__}; its arguments are "
            f"{valid}."
        )


def _registry_files(loader: _Loader) -> dict[str, DataFile]:
    """AIF360's file name -> the registry's declaration of that file."""
    declared = {file.name: file for file in get_source(loader.name).files}
    missing = sorted(set(loader.files.values()) - set(declared))
    if missing:
        raise ValueError(
            f"the registry's dataset {loader.name!r} does not declare the files {missing} that "
            f"{loader.qualified_class} reads; it declares {sorted(declared)}."
        )
    return {aif360: declared[registry] for aif360, registry in loader.files.items()}


def _raw_folder(loader: _Loader) -> Path:
    """The folder AIF360's class reads, computed as AIF360 does, from its module's file."""
    module = importlib.import_module(loader.module)
    here = os.path.dirname(os.path.abspath(str(module.__file__)))
    return Path(os.path.realpath(os.path.join(here, "..", "data", "raw", loader.folder)))


def _make_available(loader: _Loader, paths: Mapping[str, Path]) -> None:
    """Link each verified file into AIF360's raw folder under AIF360's name for it."""
    folder = _raw_folder(loader)
    for aif360, path in paths.items():
        _link(folder / aif360, Path(path))


def _link(target: Path, path: Path) -> None:
    """Make ``target`` a link to ``path``, or leave what is there when it has the same bytes."""
    for _ in range(2):  # a second pass when another process links the same file meanwhile
        if _is_usable(target, path):
            return
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(path.absolute(), target)
            return
        except FileExistsError:
            continue
        except OSError as error:
            raise PermissionError(
                f"cannot link {path} into AIF360's raw folder as {target}: {error}. Make "
                f"{target.parent} writable, or copy the file there yourself."
            ) from error
    raise ValueError(f"{target} keeps changing while it is being linked to {path}.")


def _is_usable(target: Path, path: Path) -> bool:
    """Whether ``target`` already serves ``path``'s bytes; False when nothing is there.

    A dangling link (for example into a removed temporary folder) is removed, as nothing.
    """
    if target.is_symlink() and not target.exists():
        target.unlink(missing_ok=True)
        return False
    if not target.exists():
        return False
    if not target.is_file():
        raise ValueError(f"{target} is in AIF360's raw folder but is not a file; remove it.")
    if os.path.realpath(target) == os.path.realpath(path) or filecmp.cmp(target, path, False):
        return True
    raise ValueError(
        f"{target} is already in AIF360's raw folder with content other than {path}; remove "
        "or replace it to read the registry's file."
    )


def _instantiate(loader: _Loader, cls: type, kwargs: Mapping[str, Any], *, dataset: str) -> Any:
    """``cls(**kwargs)``, with AIF360's ``sys.exit`` on an unreadable file turned into an error."""
    try:
        return cls(**kwargs)
    except SystemExit as error:
        folder = _raw_folder(loader)
        absent = [name for name in loader.files if not (folder / name).is_file()]
        raise DatasetUnavailableError(
            f"dataset {dataset!r}: {loader.qualified_class} could not read its raw files in "
            f"{folder} and exited (status {error.code}); missing there: {absent or 'none'}. "
            "Provide them through aif360_dataset or the registry.",
            reason="missing",
        ) from error
