"""A small synthetic population with known (un)fairness, for the demo, tests and benchmarks."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._records.params import Interval, check_params

#: The four levels of the ``region`` column.
REGIONS = ("east", "north", "south", "west")


def make_synthetic(
    n: int, *, random_state: int | None = None, dependence: float = 1.0
) -> pd.DataFrame:
    """A synthetic table of people, true outcomes and predictions with known dependence.

    Each row is one person with three sensitive attributes of different types. The true outcome
    depends on age and sex; the prediction depends on the true outcome and, scaled by
    ``dependence``, directly on age and sex. Region plays no part in either, so a fair score
    for region alone is expected near its chance level.

    Parameters
    ----------
    n : int
        Number of rows (at least 2).
    random_state : int, optional
        Seed of the generator; the same seed gives the same table.
    dependence : float
        Strength of the direct effect of age and sex on the prediction. ``0`` makes the
        predictions depend on the attributes only through ``y_true``, so they satisfy equalised
        odds (but not demographic parity); larger values make them less fair under every notion.

    Returns
    -------
    pandas.DataFrame
        ``n`` rows with columns

        ``age`` : float
            Continuous, uniform on [18, 80).
        ``sex`` : str
            ``"f"`` or ``"m"`` with equal probability.
        ``region`` : categorical
            One of ``"east"``, ``"north"``, ``"south"``, ``"west"`` with equal probability,
            independent of everything else.
        ``y_true`` : int
            Binary outcome, ``P(y_true = 1) = sigmoid(0.04 (age − 49) + 0.8 [sex = "m"] − 0.4)``.
        ``y_pred`` : float
            A probability, ``sigmoid(2.5 (y_true − 0.5) + dependence (0.05 (age − 49)
            + 1.0 [sex = "m"] − 0.5) + noise)`` with Gaussian noise of standard deviation 0.7.

    Raises
    ------
    ValueError
        If ``n < 2`` or ``dependence`` is not a finite number.

    Examples
    --------
    >>> from faircocco_plugins import make_synthetic
    >>> people = make_synthetic(1000, random_state=0)
    >>> list(people.columns)
    ['age', 'sex', 'region', 'y_true', 'y_pred']
    >>> people.equals(make_synthetic(1000, random_state=0))
    True
    """
    check_params({"n": n}, {"n": Interval("integer", 2)})
    if isinstance(dependence, bool) or not np.isfinite(dependence):
        raise ValueError(f"dependence={dependence!r} is not valid; expected a finite number.")
    rng = np.random.default_rng(random_state)
    age = rng.uniform(18.0, 80.0, size=n)
    male = rng.random(n) < 0.5
    region = rng.integers(0, len(REGIONS), size=n)
    centred_age = age - 49.0
    y_true = (rng.random(n) < _sigmoid(0.04 * centred_age + 0.8 * male - 0.4)).astype(np.int64)
    direct = dependence * (0.05 * centred_age + 1.0 * male - 0.5)
    logit = 2.5 * (y_true - 0.5) + direct + rng.normal(scale=0.7, size=n)
    return pd.DataFrame(
        {
            "age": age,
            "sex": np.where(male, "m", "f"),
            "region": pd.Categorical.from_codes(region, categories=pd.Index(REGIONS)),
            "y_true": y_true,
            "y_pred": _sigmoid(logit),
        }
    )


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))
