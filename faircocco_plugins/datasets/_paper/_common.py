"""Helpers shared by the loaders of the paper's datasets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from .._files import paper_file
from .._source import DataFile


def files(dataset: str, *names: str) -> tuple[DataFile, ...]:
    """The declared raw files of ``dataset``, with the checksums from the data manifest."""
    return tuple(paper_file(dataset, name) for name in names)


def recode(column: pd.Series, mapping: Mapping[Any, Any], what: str) -> pd.Series:
    """Map every value of ``column`` through ``mapping``; an unknown value is an error.

    Raw files are checked by sha256, so an unknown value means the loader and the file disagree;
    failing loudly beats mapping it silently to a default.
    """
    known = column.isin(list(mapping))
    if not known.all():
        unknown = sorted(str(value) for value in column[~known].unique())[:5]
        raise ValueError(f"{what} has unexpected values {unknown}; expected {list(mapping)}.")
    return column.map(dict(mapping))


def category(column: pd.Series, mapping: Mapping[Any, str], what: str) -> pd.Categorical:
    """A categorical of the mapped labels, with the levels in the order of ``mapping``."""
    labels = recode(column, mapping, what)
    return pd.Categorical(labels, categories=list(dict.fromkeys(mapping.values())))
