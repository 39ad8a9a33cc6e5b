"""Data shared by the torch adapter's tests."""

from __future__ import annotations

import numpy as np


def biased_task(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A binary task whose Bayes classifier uses the attribute.

    ``a`` is binary; the label's base rate depends on it (0.25 or 0.75); ``x1`` is a noisy
    copy of the label, ``x2`` a clean proxy of ``a``, ``x3`` noise. Using ``x2`` as a prior
    raises accuracy but makes the error rates differ between groups (an equalised-odds gap).
    """
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    y = (rng.random(n) < 0.25 + 0.5 * a).astype(np.int64)
    x = np.column_stack(
        [y + rng.normal(0.0, 0.8, n), a + rng.normal(0.0, 0.1, n), rng.normal(size=n)]
    )
    return x, y, a
