"""Drug consumption (UCI): heroin use, ethnicity binarised White or not."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .._source import DatasetSource, LoadedTable
from ._common import files

FILE = "drug_consumption.data"
#: The twelve quantified measurements (real-valued codes of the original answers).
MEASUREMENTS = (
    "age",
    "gender",
    "education",
    "country",
    "ethnicity",
    "nscore",
    "escore",
    "oscore",
    "ascore",
    "cscore",
    "impulsive",
    "ss",
)
DRUGS = (
    "alcohol",
    "amphet",
    "amyl",
    "benzos",
    "caff",
    "cannabis",
    "choc",
    "coke",
    "crack",
    "ecstasy",
    "heroin",
    "ketamine",
    "legalh",
    "lsd",
    "meth",
    "mushrooms",
    "nicotine",
    "semer",
    "vsa",
)
#: The quantified code of "White" in the ethnicity column (1720 of 1885 respondents).
WHITE = -0.31685
NEVER_USED = "CL0"


def load(paths: Mapping[str, Path]) -> LoadedTable:
    """Over-claimers of the fictitious drug Semeron dropped; heroin never used vs used."""
    frame = pd.read_csv(paths[FILE], header=None, names=["id", *MEASUREMENTS, *DRUGS])
    uses = {drug: frame[drug] for drug in ("semer", "heroin")}
    for drug, column in uses.items():
        if not column.str.fullmatch(r"CL[0-6]").all():
            raise ValueError(f"drugs column {drug!r} has values other than CL0..CL6.")
    frame = frame[frame["semer"] == NEVER_USED].reset_index(drop=True)
    white = np.isclose(frame["ethnicity"].to_numpy(), WHITE, rtol=0.0, atol=1e-6)
    sensitive = pd.DataFrame(
        {
            "ethnicity": pd.Categorical(
                np.where(white, "White", "Non-White"), categories=["White", "Non-White"]
            )
        }
    )
    y = (frame["heroin"] != NEVER_USED).astype(np.int64).rename("heroin_used")
    X = frame[[m for m in MEASUREMENTS if m != "ethnicity"]]
    return LoadedTable(X, y, sensitive)


SOURCE = DatasetSource(
    name="drugs",
    task="classification",
    attributes={"ethnicity": "binary"},
    load=load,
    description=(
        "UCI Drug consumption: heroin ever used (CL1-CL6) vs never (CL0) from 11 quantified "
        "measurements, sensitive ethnicity (White / Non-White); Semeron claimers dropped"
    ),
    files=files("drugs", FILE),
    rows=1877,
    paper_rows=1885,
    origin="paper",
    label="heroin ever used (answers CL1-CL6; 0: never, CL0)",
)
