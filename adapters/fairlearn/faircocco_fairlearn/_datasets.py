"""fairlearn's own dataset loaders as a dataset source of the registry.

``fetch_adult`` and ``fetch_credit_card`` download from OpenML into fairlearn's cache on first
use and read the cache afterwards. Registered as ``fairlearn_adult`` and
``fairlearn_credit_card`` (entry-point group ``faircocco_plugins.datasets``), they load through
:func:`faircocco_plugins.datasets.load_dataset` and run in the harness like any dataset. Where
OpenML cannot be reached and nothing is cached, loading fails with the registry's
:class:`~faircocco_plugins.datasets.DatasetUnavailableError`, which names the dataset and the
project's own copy of it, instead of a raw ``URLError``.

Whether fairlearn's cache holds a dataset is told without the network, from the files
scikit-learn's ``fetch_openml`` keeps there (``~/.fairlearn-data/openml/openml.org/...``): the
dataset's description, its features, its qualities and the data file the description names.
:func:`faircocco_plugins.datasets.list_datasets` shows a dataset not cached as not available
but downloadable, so the listing does not promise an offline load.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np
import pandas as pd

from faircocco_plugins.datasets import DatasetSource, DatasetUnavailableError


def _adult(bunch: Any) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    # rows with a missing value dropped, as the registry's adult does
    complete = bunch.data.notna().all(axis=1).to_numpy()
    data = bunch.data[complete].reset_index(drop=True)
    target = bunch.target[complete].reset_index(drop=True)
    y = (target.astype(str).str.strip() == ">50K").astype(np.int64).rename("income>50K")
    sensitive = pd.DataFrame({"sex": data["sex"].astype(str), "race": data["race"].astype(str)})
    # fnlwgt is the census sampling weight, not a property of the person (as in the registry)
    return data.drop(columns=["sex", "race", "fnlwgt"]), y, sensitive


def _credit_card(bunch: Any) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    data = bunch.data
    y = bunch.target.astype(np.int64).rename("default")
    sex = data["SEX"].astype(np.int64).map({1: "male", 2: "female"})
    return data.drop(columns=["SEX"]), y, pd.DataFrame({"sex": sex})


#: fairlearn's default ``data_home``, under which ``fetch_openml`` keeps its ``openml`` cache.
_FAIRLEARN_DATA = ".fairlearn-data"
#: The OpenML ids fairlearn's fetchers read.
_OPENML_IDS = {"fetch_adult": 1590, "fetch_credit_card": 42477}


def _openml_cache(data_id: int) -> Callable[[], Path | None]:
    """Where fairlearn's cache holds the OpenML dataset ``data_id``, or None if it does not."""

    def cached() -> Path | None:
        home = Path.home() / _FAIRLEARN_DATA / "openml"
        api = home / "openml.org" / "api" / "v1" / "json" / "data"
        try:
            with gzip.open(api / f"{data_id}.gz", "rt", encoding="utf-8") as file:
                url = json.load(file)["data_set_description"]["url"]
            data = home / "openml.org" / f"{urlparse(url).path.lstrip('/')}.gz"
        except (OSError, ValueError, KeyError, TypeError):
            return None  # not cached, or not in the layout this reads
        parts = (data, api / "features" / f"{data_id}.gz", api / "qualities" / f"{data_id}.gz")
        return home if all(part.is_file() for part in parts) else None

    return cached


def _loader(fetch: str, table: Callable[[Any], Any], mirror: str) -> Callable[..., Any]:
    def load(paths: Mapping[str, Path]) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
        from fairlearn import datasets

        try:
            bunch = getattr(datasets, fetch)(as_frame=True)
        except OSError as error:  # URLError and HTTPError are OSErrors
            raise DatasetUnavailableError(
                f"fairlearn's {fetch} could not download its data from OpenML and found none in "
                f"fairlearn's cache ({type(error).__name__}: {error}). Run it once where OpenML "
                f"can be reached, or use the registry's own {mirror!r}, which reads the UCI "
                "files.",
                reason="missing",
            ) from error
        return table(bunch)

    return load


def sources() -> tuple[DatasetSource, ...]:
    """The registry sources ``fairlearn_adult`` and ``fairlearn_credit_card``."""
    return (
        DatasetSource(
            name="fairlearn_adult",
            task="classification",
            attributes={"sex": "binary", "race": "categorical"},
            load=_loader("fetch_adult", _adult, "adult"),
            cached=_openml_cache(_OPENML_IDS["fetch_adult"]),
            description=(
                "fairlearn's fetch_adult (OpenML 1590, downloaded on first use): income >50K "
                "from the census features (fnlwgt dropped; rows with a missing value dropped), "
                "sensitive sex and race"
            ),
            rows=45222,
            origin="faircocco_fairlearn",
            label="income above $50K",
        ),
        DatasetSource(
            name="fairlearn_credit_card",
            task="classification",
            attributes={"sex": "binary"},
            load=_loader("fetch_credit_card", _credit_card, "credit_card"),
            cached=_openml_cache(_OPENML_IDS["fetch_credit_card"]),
            description=(
                "fairlearn's fetch_credit_card (OpenML 42477, downloaded on first use): default "
                "next month from the 22 other attributes, sensitive sex"
            ),
            rows=30000,
            origin="faircocco_fairlearn",
            label="default on the next month's payment",
        ),
    )
