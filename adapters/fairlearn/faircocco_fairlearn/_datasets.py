"""fairlearn's own dataset loaders as a dataset source of the registry.

``fetch_adult`` and ``fetch_credit_card`` download from OpenML into fairlearn's cache on first
use and read the cache afterwards. Registered as ``fairlearn_adult`` and
``fairlearn_credit_card`` (entry-point group ``faircocco_plugins.datasets``), they load through
:func:`faircocco_plugins.datasets.load_dataset` and run in the harness like any dataset. Where
OpenML cannot be reached and nothing is cached, loading fails with the registry's
:class:`~faircocco_plugins.datasets.DatasetUnavailableError`, which names the dataset and the
project's own copy of it, instead of a raw ``URLError``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

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
            description=(
                "fairlearn's fetch_credit_card (OpenML 42477, downloaded on first use): default "
                "next month from the 22 other attributes, sensitive sex"
            ),
            rows=30000,
            origin="faircocco_fairlearn",
            label="default on the next month's payment",
        ),
    )
