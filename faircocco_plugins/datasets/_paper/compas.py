"""COMPAS (ProPublica, two-year file): violent recidivism, race binarised Caucasian or not."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .._source import DatasetSource, LoadedTable
from ._common import files, recode

FILE = "compas-scores-two-years.csv"
#: AIF360's CompasDataset features without race (the sensitive attribute).
FEATURES = (
    "sex",
    "age",
    "age_cat",
    "juv_fel_count",
    "juv_misd_count",
    "juv_other_count",
    "priors_count",
    "c_charge_degree",
    "c_charge_desc",
)


def load(paths: Mapping[str, Path]) -> LoadedTable:
    """ProPublica's row filters, then the features, race and ``is_violent_recid``."""
    frame = pd.read_csv(
        paths[FILE],
        usecols=[
            *FEATURES,
            "race",
            "days_b_screening_arrest",
            "is_recid",
            "score_text",
            "is_violent_recid",
        ],
    )
    # ProPublica's analysis keeps charges within 30 days of the screening, known recidivism,
    # no ordinary traffic offences ("O") and a COMPAS score (score_text "N/A" is read as missing).
    keep = (
        frame["days_b_screening_arrest"].between(-30, 30)
        & (frame["is_recid"] != -1)
        & (frame["c_charge_degree"] != "O")
        & frame["score_text"].notna()
    )
    frame = frame[keep].reset_index(drop=True)
    X = frame[list(FEATURES)].copy()
    # Five charges have no description; keep the rows, with the description as its own level.
    X["c_charge_desc"] = X["c_charge_desc"].fillna("?")
    race = np.where(frame["race"] == "Caucasian", "Caucasian", "Non-Caucasian")
    sensitive = pd.DataFrame(
        {"race": pd.Categorical(race, categories=["Caucasian", "Non-Caucasian"])}
    )
    y = recode(frame["is_violent_recid"], {0: 0, 1: 1}, "compas is_violent_recid")
    return LoadedTable(X, y.astype(np.int64), sensitive)


SOURCE = DatasetSource(
    name="compas",
    task="classification",
    attributes={"race": "binary"},
    load=load,
    description=(
        "ProPublica COMPAS two-year file with ProPublica's row filters: is_violent_recid from 9 "
        "features (AIF360's set without race), sensitive race (Caucasian / Non-Caucasian)"
    ),
    files=files("compas", FILE),
    rows=6172,
    paper_rows=6172,
    origin="paper",
    label="violent re-offence (is_violent_recid: any time in the follow-up, not only 2 years)",
)
