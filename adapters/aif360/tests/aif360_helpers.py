"""Data for the AIF360 adapter's tests."""

from __future__ import annotations

import numpy as np
import pandas as pd


def frame(n: int = 600, seed: int = 0) -> pd.DataFrame:
    """Features that carry two continuous attributes (age, income) and a binary label."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(18, 80, n)
    income = rng.lognormal(size=n)
    x = rng.normal(size=n) + age / 40 + 0.3 * income
    df = pd.DataFrame({"x": x, "z": rng.normal(size=n), "age": age, "income": income})
    df["y"] = (x + 0.5 * rng.normal(size=n) > 1.5).astype(float)
    return df
