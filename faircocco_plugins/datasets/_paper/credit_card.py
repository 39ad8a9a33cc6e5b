"""Default of credit card clients (UCI, Taiwan): default, sensitive sex, marriage, education."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .._source import DatasetSource, LoadedTable
from ._common import category, files, recode

FILE = "default of credit card clients.csv"
OUTCOME = "default payment next month"
SEX = {1: "male", 2: "female"}
#: The UCI codes; 0 (and for education 5 and 6) are undocumented or "unknown".
MARRIAGE = {1: "married", 2: "single", 3: "others", 0: "unknown"}
EDUCATION = {
    1: "graduate school",
    2: "university",
    3: "high school",
    4: "others",
    5: "unknown",
    6: "unknown",
    0: "unknown",
}


def load(paths: Mapping[str, Path]) -> LoadedTable:
    """All 30000 clients; the first header row (X1..X23, Y) is skipped, ID is the index."""
    frame = pd.read_csv(paths[FILE], header=1, index_col=0).reset_index(drop=True)
    sensitive = pd.DataFrame(
        {
            "sex": category(frame["SEX"], SEX, "credit_card SEX"),
            "marriage": category(frame["MARRIAGE"], MARRIAGE, "credit_card MARRIAGE"),
            "education": category(frame["EDUCATION"], EDUCATION, "credit_card EDUCATION"),
        }
    )
    y = recode(frame[OUTCOME], {0: 0, 1: 1}, "credit_card default").astype(np.int64)
    X = frame.drop(columns=["SEX", "MARRIAGE", "EDUCATION", OUTCOME])
    return LoadedTable(X, y.rename("default"), sensitive)


SOURCE = DatasetSource(
    name="credit_card",
    task="classification",
    attributes={"sex": "binary", "marriage": "categorical", "education": "categorical"},
    load=load,
    description=(
        "UCI Default of credit card clients: default next month from 20 numeric attributes, "
        "sensitive sex, marriage and education (categorical; undocumented codes 'unknown')"
    ),
    files=files("credit_card", FILE),
    rows=30000,
    paper_rows=30000,
    origin="paper",
    label="default payment next month",
)
