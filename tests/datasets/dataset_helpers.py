"""What the dataset tests share: the paper's datasets' expected shapes, and skipping a test
whose raw files are not under ``$FAIRCOCCO_DATA``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from faircocco_plugins.datasets import _registry

DATA = os.environ.get("FAIRCOCCO_DATA")

#: Per paper dataset: rows, columns of X (after one-hot), sensitive dtypes, and whether the test
#: part is an official test file (its row count) or random (None).
PAPER: dict[str, tuple[int, int, dict[str, str], int | None]] = {
    "adult": (45222, 101, {"sex": "category"}, 15060),
    "drugs": (1877, 11, {"ethnicity": "category"}, None),
    "german": (1000, 59, {"foreign_worker": "bool"}, None),
    "compas": (6172, 402, {"race": "category"}, None),
    "communities": (
        1993,
        96,
        {
            "racepctblack": "float64",
            "racePctWhite": "float64",
            "racePctAsian": "float64",
            "racePctHisp": "float64",
        },
        None,
    ),
    "students": (649, 55, {"age": "float64", "sex": "category"}, None),
    "kdd_census": (299285, 502, {"sex": "category", "race": "category", "age": "float64"}, 99762),
    "credit_card": (
        30000,
        20,
        {"sex": "category", "marriage": "category", "education": "category"},
        None,
    ),
    "law_school": (20798, 9, {"male": "bool", "race": "category"}, None),
}


def require(name: str) -> None:
    """Skip unless every raw file of ``name`` is under ``$FAIRCOCCO_DATA``."""
    if not DATA:
        pytest.skip("FAIRCOCCO_DATA is not set")
    missing = [
        f.relative_path
        for f in _registry._REGISTRY.get(name).files
        if not (Path(DATA) / f.relative_path).is_file()
    ]
    if missing:
        pytest.skip(f"{missing} not under FAIRCOCCO_DATA")


def covers(split: Any, n: int) -> bool:
    rows = np.concatenate([split.train, split.validation, split.test])
    return bool(np.array_equal(np.sort(rows), np.arange(n)))
