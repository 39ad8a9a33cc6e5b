"""Statlog German credit (UCI): good credit risk, sensitive attribute foreign worker."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .._source import DatasetSource, LoadedTable
from ._common import files, recode

FILE = "german.data"
#: Attributes 1-20 of german.doc, then the label.
COLUMNS = (
    "checking_account",
    "duration",
    "credit_history",
    "purpose",
    "credit_amount",
    "savings",
    "employment_since",
    "installment_rate",
    "personal_status_sex",
    "other_debtors",
    "residence_since",
    "property",
    "age",
    "other_installment_plans",
    "housing",
    "existing_credits",
    "job",
    "people_liable",
    "telephone",
    "foreign_worker",
    "credit_risk",
)


def load(paths: Mapping[str, Path]) -> LoadedTable:
    """All 1000 rows; the coded attributes (A11, A12, ...) are nominal."""
    frame = pd.read_csv(paths[FILE], header=None, sep=" ", names=list(COLUMNS))
    foreign = recode(frame["foreign_worker"], {"A201": True, "A202": False}, "german attr. 20")
    # Label 1 = good (complied with the credit contract), 2 = bad.
    y = recode(frame["credit_risk"], {1: 1, 2: 0}, "german label").astype(np.int64)
    X = frame.drop(columns=["foreign_worker", "credit_risk"])
    sensitive = pd.DataFrame({"foreign_worker": foreign.astype(bool)})
    return LoadedTable(X, y.rename("good_credit"), sensitive)


SOURCE = DatasetSource(
    name="german",
    task="classification",
    attributes={"foreign_worker": "binary"},
    load=load,
    description=(
        "UCI Statlog German credit: good credit risk from 19 attributes (13 coded ones one-hot), "
        "sensitive foreign_worker (bool)"
    ),
    files=files("german", FILE),
    rows=1000,
    paper_rows=1700,
    origin="paper",
    label="good credit risk (german.data label 1; 0: bad risk)",
)
