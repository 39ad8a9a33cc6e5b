"""LSAC bar passage (law school): passing the bar at the first attempt, sensitive male and race.

The rows are those of the 20798-row cleaned table of the fairness-datasets survey (Le Quy et al.,
2022): rebuilt here from the less processed ``bar_pass_prediction.csv``, which keeps race in five
groups where the cleaned table has only White / Non-White.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .._source import DatasetSource, LoadedTable
from ._common import files

FILE = "bar_pass_prediction.csv"
#: The features of the cleaned table (without male, race and the outcome).
FEATURES = (
    "decile1b",
    "decile3",
    "lsat",
    "ugpa",
    "zfygpa",
    "zgpa",
    "fulltime",
    "fam_inc",
    "tier",
)
RACES = ("white", "black", "hisp", "asian", "other")
PASSED_FIRST, PASSED_SECOND, FAILED = "a Passed 1st time", "b Passed 2nd time", "c Failed"


def load(paths: Mapping[str, Path]) -> LoadedTable:
    """The cleaned table's rows: complete records of graduates with a known bar result."""
    frame = pd.read_csv(paths[FILE])
    # These conditions select exactly the rows (and order) of law_school_clean.csv.
    complete = frame[[*FEATURES, "male", "race1", "age", "index6040"]].notna().all(axis=1)
    took_bar = frame["bar"].isin([PASSED_FIRST, PASSED_SECOND, FAILED])
    frame = frame[complete & took_bar].reset_index(drop=True)
    sensitive = pd.DataFrame(
        {
            "male": frame["male"].to_numpy() == 1.0,
            "race": pd.Categorical(frame["race1"], categories=list(RACES)),
        }
    )
    if sensitive["race"].isna().any():
        raise ValueError(f"law_school race1 has values other than {list(RACES)}.")
    y = (frame["bar"] == PASSED_FIRST).astype(np.int64).rename("pass_bar")
    return LoadedTable(frame[list(FEATURES)], y, sensitive)


SOURCE = DatasetSource(
    name="law_school",
    task="classification",
    attributes={"male": "binary", "race": "categorical"},
    load=load,
    description=(
        "LSAC bar passage: passed the bar at the first attempt, from 9 numeric attributes, "
        "sensitive male (bool) and race (5 groups); rows of the 20798-row cleaned table"
    ),
    files=files("law_school", FILE),
    rows=20798,
    paper_rows=20798,
    origin="paper",
    label="passed the bar at the first attempt",
)
