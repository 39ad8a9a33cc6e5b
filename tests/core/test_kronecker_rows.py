"""Moments of feature rows ``W[g_i] ⊗ φ_i`` by level group against the written-out rows."""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins._estimators.feature_map import row_kronecker
from faircocco_plugins._estimators.kronecker_rows import KroneckerRows


def written_out_moments(rows: KroneckerRows, others: dict[str, np.ndarray]):
    """The cross products and centred Grams of the rows written out, literally."""
    cross, grams = {x: [] for x in others}, []
    for b in range(rows.factor.shape[0]):
        if rows.codes is None:
            e = rows.factor[b]
        else:
            e = row_kronecker(rows.level_factor[rows.codes[b]], rows.factor[b])
        centred = e - e.mean(axis=0)
        grams.append(centred.T @ centred)
        for x, f in others.items():
            cross[x].append(f.T @ e)
    return {x: np.stack(v) for x, v in cross.items()}, np.stack(grams)


@pytest.mark.parametrize("levels", [None, 1, 6])
def test_moments_by_level_group_equal_those_of_the_written_out_rows(levels):
    rng = np.random.default_rng(0)
    batch, n, r = 3, 400, 5
    factor = rng.normal(size=(batch, n, r))
    others = {"u": rng.normal(size=(n, 2)), "c": rng.normal(size=(n, 4))}
    if levels is None:
        rows = KroneckerRows(factor)
    else:
        # the last combination is absent from the first input: only present groups count
        codes = rng.integers(0, levels, (batch, n))
        codes[0][codes[0] == levels - 1] = 0
        rows = KroneckerRows(factor, codes, rng.normal(size=(levels, max(levels - 1, 1))))
    cross, grams = rows.moments(others)
    expected_cross, expected_grams = written_out_moments(rows, others)
    assert grams.shape == (batch, rows.width, rows.width)
    # measured: at most 1.3e-15 of the largest entry (the order of sums differs)
    np.testing.assert_allclose(
        grams, expected_grams, rtol=0, atol=1e-14 * np.abs(expected_grams).max()
    )
    for x in others:
        np.testing.assert_allclose(
            cross[x], expected_cross[x], rtol=0, atol=1e-14 * np.abs(expected_cross[x]).max()
        )
