"""Student performance (UCI, Portuguese course): final grade, sensitive age and sex."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from .._source import DatasetSource, LoadedTable
from ._common import category, files

FILE = "student-por.csv"


def load(paths: Mapping[str, Path]) -> LoadedTable:
    """All 649 students; the period grades G1 and G2 stay features, G3 is the outcome."""
    frame = pd.read_csv(paths[FILE], sep=";")
    sensitive = pd.DataFrame(
        {
            "age": frame["age"].astype(float),
            "sex": category(frame["sex"], {"F": "F", "M": "M"}, "students sex"),
        }
    )
    X = frame.drop(columns=["age", "sex", "G3"])
    return LoadedTable(X, frame["G3"].astype(float), sensitive)


SOURCE = DatasetSource(
    name="students",
    task="regression",
    attributes={"age": "continuous", "sex": "binary"},
    load=load,
    description=(
        "UCI Student performance, Portuguese course: final grade G3 from 30 attributes (G1 and "
        "G2 included), sensitive age (continuous) and sex"
    ),
    files=files("students", FILE),
    rows=649,
    paper_rows=649,
    origin="paper",
    label="final grade G3 (0-20) of the Portuguese course",
)
