"""Pivots chosen among candidate rows, and factor rows formed block by block.

Above :data:`PIVOT_ROWS` rows the low-rank estimator chooses pivots among candidate rows
(evenly spaced rows and one row per cell of a grid), covers the rows they leave above the
tolerance, and forms the factor rows :data:`ROW_BLOCK` rows at a time. The tests shrink both
constants so that this path runs at sizes where the exact estimator is feasible.
"""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins import faircocco_score
from faircocco_plugins._estimators import moments, pivots
from faircocco_plugins._estimators.cholesky import incomplete_cholesky
from faircocco_plugins._estimators.feature_map import FeatureMap
from faircocco_plugins._estimators.pivots import pivot_candidates
from faircocco_plugins._kernels.kernel import KernelInput
from faircocco_plugins._kernels.registry import kernel_named

GAUSSIAN = kernel_named("gaussian")


def continuous_outcome(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predictions, attributes (continuous age, binary sex, four regions) and a continuous
    outcome that follows age and sex, with predictions that follow all three."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(18, 80, n)
    male = (rng.random(n) < 0.5).astype(np.float64)
    region = rng.integers(0, 4, n).astype(np.float64)
    y = 0.04 * (age - 49) + 0.8 * male - 0.4 + rng.normal(size=n)
    pred = y + 0.05 * (age - 49) + male - 0.5 + rng.normal(scale=0.7, size=n)
    return pred, np.column_stack([age, male, region]), y


@pytest.fixture
def few_candidates(monkeypatch):
    """Candidates and blocks small enough that 2,000 rows take the large-N path, and a record
    of the rows each feature map covers."""
    monkeypatch.setattr(pivots, "PIVOT_ROWS", 256)
    monkeypatch.setattr(moments, "ROW_BLOCK", 300)
    covered: list[int] = []
    cover = FeatureMap.cover

    def recording_cover(self, first, rows):
        covered.append(rows.size)
        return cover(self, first, rows)

    monkeypatch.setattr(FeatureMap, "cover", recording_cover)
    return covered


@pytest.mark.slow
@pytest.mark.parametrize("notion", ["eo", "cal"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_candidate_pivots_keep_the_score_close_to_exact(few_candidates, notion, seed):
    """EO and CAL with a continuous outcome: the extended attributes hold two continuous
    columns, the widest factor of all."""
    pred, attributes, y = continuous_outcome(2000, seed)
    exact = faircocco_score(pred, attributes, y_true=y, notion=notion, method="exact")
    lowrank_score = faircocco_score(pred, attributes, y_true=y, notion=notion, method="lowrank")
    # measured: at most 1.7e-6 (5.5e-7 with every row a candidate, and 1e-5 is the bound of
    # the low-rank estimator at 2,000 rows in test_lowrank)
    assert abs(lowrank_score - exact) <= 5e-6
    assert few_candidates, "some rows needed covering: the test exercises the cover"


def test_blocks_of_rows_add_up_to_the_whole(monkeypatch):
    """The Grams added block by block are those of all rows at once, up to rounding."""
    pred, attributes, y = continuous_outcome(3000, 3)
    monkeypatch.setattr(pivots, "PIVOT_ROWS", 512)
    scores = []
    for block in (3000, 700, 128):
        monkeypatch.setattr(moments, "ROW_BLOCK", block)
        scores.append(faircocco_score(pred, attributes, y_true=y, notion="eo", method="lowrank"))
    np.testing.assert_allclose(scores, scores[0], rtol=1e-10)


def residuals(feature_map: FeatureMap, z: np.ndarray) -> np.ndarray:
    rows = feature_map.continuous_rows(z)
    return 1.0 - np.sum(rows**2, axis=1)


def test_every_row_ends_within_the_tolerance(monkeypatch):
    """Outliers far from every candidate are covered by more pivots, which extend the
    candidates' pivots."""
    monkeypatch.setattr(pivots, "PIVOT_ROWS", 200)
    monkeypatch.setattr(pivots, "CELL", 50.0)  # one cell: outliers are no candidates
    rng = np.random.default_rng(5)
    z = rng.normal(size=(2003, 1))
    outliers = [5, 15, 25]  # between the evenly spaced candidates
    z[outliers] = [[6.0], [-7.5], [9.0]]
    candidates = pivot_candidates(z)
    assert candidates is not None and not np.isin(outliers, candidates).any()
    tolerance = 1e-6
    chosen, _ = incomplete_cholesky(z[candidates], GAUSSIAN, tolerance, 100)
    feature_map = FeatureMap(None, tolerance)
    codes, factor = feature_map.fit_transform(KernelInput(z, None, kernel=GAUSSIAN), np.zeros(()))
    assert codes.shape == (2003,)
    assert factor.shape[1] > chosen.size
    np.testing.assert_array_equal(feature_map._pivots[: chosen.size], candidates[chosen])
    assert residuals(feature_map, z).max() <= tolerance


def test_incomplete_cholesky_goes_on_from_given_pivots():
    rng = np.random.default_rng(11)
    z = rng.normal(size=(300, 2))
    initial, _ = incomplete_cholesky(z[:100], GAUSSIAN, 1e-3, 100)
    extended, factor = incomplete_cholesky(z, GAUSSIAN, 1e-6, 100, initial)
    np.testing.assert_array_equal(extended[: initial.size], initial)
    kernel = GAUSSIAN.gram(z, z)
    landmarks = kernel[np.ix_(extended, extended)]
    nystrom = kernel[:, extended] @ np.linalg.inv(np.linalg.cholesky(landmarks)).T
    np.testing.assert_allclose(factor, nystrom, atol=1e-8)
    assert np.max(1.0 - np.sum(factor**2, axis=1)) <= 1e-6


def test_candidates_are_all_rows_of_a_small_input_and_cover_every_cell(monkeypatch):
    monkeypatch.setattr(pivots, "PIVOT_ROWS", 100)
    rng = np.random.default_rng(2)
    z = np.concatenate([rng.normal(size=(5000, 2)), [[8.0, -8.0]]])
    assert pivot_candidates(z[:100]) is None
    candidates = pivot_candidates(z)
    assert candidates is not None
    assert 5000 in candidates  # the lone outlier has a cell of its own
    cells = np.unique(np.floor((z - z.min(axis=0)) / pivots.CELL), axis=0)
    # more cells of side CELL than PIVOT_ROWS: the grid is wider, and gives at most
    # PIVOT_ROWS of its cells
    assert cells.shape[0] > 100
    assert candidates.size <= 2 * 100
