"""Adult-sized data for the benchmark: the raw Adult file, else a synthetic stand-in."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import torch

ADULT_COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)
NUMERIC = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week")
#: Rows and one-hot feature columns of the Adult training file as parsed here.
ADULT_ROWS, ADULT_FEATURES = 32561, 106


@dataclass(frozen=True)
class BenchData:
    """Features, labels and sensitive attributes as float tensors.

    ``sensitive`` holds one column (sex); ``sensitive3`` three (sex, age standardised, race
    binarised as White or not).
    """

    X: torch.Tensor
    y: torch.Tensor
    sensitive: torch.Tensor
    sensitive3: torch.Tensor
    source: str


def adult_path() -> Path | None:
    """``$FAIRCOCCO_DATA/adult/adult.data`` when that file exists."""
    root = os.environ.get("FAIRCOCCO_DATA")
    if not root:
        return None
    path = Path(root) / "adult" / "adult.data"
    return path if path.is_file() else None


def load_adult(path: Path) -> BenchData:
    """Parse Adult minimally: numeric columns standardised, categoricals one-hot, sex apart."""
    frame = pd.read_csv(
        path, header=None, names=list(ADULT_COLUMNS), sep=",", skipinitialspace=True
    ).dropna(subset=["income"])
    categorical = [c for c in ADULT_COLUMNS if c not in (*NUMERIC, "sex", "income")]
    numeric = frame[list(NUMERIC)].to_numpy(dtype=np.float64)
    numeric = (numeric - numeric.mean(axis=0)) / numeric.std(axis=0)
    onehot = pd.get_dummies(frame[categorical].astype(str), dtype=np.float64).to_numpy()
    features = np.concatenate([numeric, onehot], axis=1)
    labels = frame["income"].astype(str).str.startswith(">50K").to_numpy(dtype=np.float64)
    sex = (frame["sex"].astype(str) == "Male").to_numpy(dtype=np.float64)
    white = (frame["race"].astype(str) == "White").to_numpy(dtype=np.float64)
    age = numeric[:, 0]
    return _tensors(features, labels, sex, age, white, f"Adult ({path.name}, {len(frame)} rows)")


def synthetic_adult(seed: int = 0) -> BenchData:
    """Synthetic data of Adult's shape: 32,561 rows, 106 features, binary label and attributes."""
    rng = np.random.default_rng(seed)
    n, p = ADULT_ROWS, ADULT_FEATURES
    sex = (rng.random(n) < 0.67).astype(np.float64)
    white = (rng.random(n) < 0.85).astype(np.float64)
    age = rng.normal(size=n)
    features = rng.normal(size=(n, p))
    features[:, 0] = age
    features[:, 1] += sex
    logit = features[:, :6] @ rng.normal(size=6) + 0.8 * sex - 1.2
    labels = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(np.float64)
    return _tensors(
        features, labels, sex, age, white, f"synthetic stand-in ({n} rows x {p} features)"
    )


def bench_data() -> BenchData:
    """Adult when ``$FAIRCOCCO_DATA/adult/adult.data`` exists, else the synthetic stand-in."""
    path = adult_path()
    return load_adult(path) if path is not None else synthetic_adult()


def _tensors(
    features: np.ndarray,
    labels: np.ndarray,
    sex: np.ndarray,
    age: np.ndarray,
    white: np.ndarray,
    source: str,
) -> BenchData:
    as_float = torch.float32
    return BenchData(
        X=torch.as_tensor(features, dtype=as_float),
        y=torch.as_tensor(labels, dtype=as_float),
        sensitive=torch.as_tensor(sex[:, None], dtype=as_float),
        sensitive3=torch.as_tensor(np.column_stack([sex, age, white]), dtype=as_float),
        source=source,
    )
