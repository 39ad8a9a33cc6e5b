"""Communities and Crime (UCI): violent crime rate, four racial proportions (continuous)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from .._source import DatasetSource, LoadedTable
from ._common import files

DATA, NAMES = "communities.data", "communities.names"
#: Spelled as in the @attribute lines of communities.names.
RACE = ("racepctblack", "racePctWhite", "racePctAsian", "racePctHisp")
#: communities.names calls the first five attributes non-predictive.
IDENTIFIERS = ("state", "county", "community", "communityname", "fold")
OUTCOME = "ViolentCrimesPerPop"
#: Columns missing in more than this fraction of rows are dropped (the 22 police (LEMAS)
#: columns, missing in 1675 of 1994 communities); every other column misses at most one value.
MAX_MISSING = 0.5


def column_names(path: Path) -> list[str]:
    """The names of the ``@attribute`` lines, in order."""
    with path.open(encoding="ascii") as handle:
        return [line.split()[1] for line in handle if line.startswith("@attribute")]


def load(paths: Mapping[str, Path]) -> LoadedTable:
    """Identifiers and mostly-missing columns dropped, then the one incomplete row."""
    names = column_names(paths[NAMES])
    frame = pd.read_csv(paths[DATA], header=None, names=names, na_values=["?"])
    frame = frame.drop(columns=list(IDENTIFIERS))
    frame = frame.loc[:, frame.isna().mean() <= MAX_MISSING]
    # One community (Natchez city) misses OtherPerCap; dropping the row beats imputing it.
    frame = frame.dropna().reset_index(drop=True)
    sensitive = frame[list(RACE)]
    X = frame.drop(columns=[*RACE, OUTCOME])
    return LoadedTable(X, frame[OUTCOME], sensitive)


SOURCE = DatasetSource(
    name="communities",
    task="regression",
    attributes={column: "continuous" for column in RACE},
    load=load,
    description=(
        "UCI Communities and Crime: ViolentCrimesPerPop from 96 normalised predictors, "
        "sensitive racepctblack, racePctWhite, racePctAsian, racePctHisp; identifiers, the 22 "
        "mostly-missing police columns and one incomplete row dropped"
    ),
    files=files("communities", DATA, NAMES),
    rows=1993,
    paper_rows=1994,
    origin="paper",
    label="violent crimes per 100K people (ViolentCrimesPerPop, normalised to [0, 1])",
)
