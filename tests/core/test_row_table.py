"""RowTable and the exact median of 1-D differences: the two caches of the batch statistic."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import pdist

import faircocco_plugins._inputs.row_table as row_table
from faircocco_plugins._inputs.row_table import RowTable
from faircocco_plugins._kernels.kernel import _median_of_differences, median_distance


class _Counted:
    """A per-row computation that records how many rows it was asked for."""

    def __init__(self) -> None:
        self.rows = 0

    def __call__(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        self.rows += rows.shape[0]
        return {"sum": rows.sum(axis=1), "first": rows[:, :1] * 2.0}


def _read(table: RowTable, rows: np.ndarray) -> dict[str, np.ndarray]:
    """The results of every row of ``rows``, read through the table's slots."""
    slots, results = table.lookup(rows)
    if slots is None:
        return results
    assert results[next(iter(results))].shape[0] == table.size
    return {name: result[slots] for name, result in results.items()}


def _rows(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.stack([rng.integers(0, 2, n), rng.integers(17, 90, n), rng.integers(0, 3, n)], 1)


def test_results_equal_the_computation_and_each_distinct_row_is_computed_once():
    rng = np.random.default_rng(0)
    compute = _Counted()
    table = RowTable(compute)
    seen = []
    for _ in range(20):
        rows = _rows(rng, 256).astype(float)
        seen.append(rows)
        got = _read(table, rows)
        expected = _Counted()(rows)
        for name in expected:
            np.testing.assert_array_equal(got[name], expected[name])
    assert compute.rows == np.unique(np.concatenate(seen), axis=0).shape[0]


def test_a_value_never_seen_is_added():
    table = RowTable(_Counted())
    _read(table, np.array([[0.0, 1.0], [1.0, 1.0]]))
    assert table.size == 2
    # between, after and before the known values of a column
    got = _read(table, np.array([[0.5, 1.0], [1.0, 1.0], [0.0, 2.0], [-1.0, 1.0]]))
    np.testing.assert_array_equal(got["sum"], [1.5, 2.0, 2.0, 0.0])
    assert table.size == 5


@pytest.mark.parametrize("limit", ["MAX_ROWS", "MAX_KEYS"])
def test_past_its_limits_the_table_computes_rows_per_call(monkeypatch, limit):
    monkeypatch.setattr(row_table, limit, 50)
    rng = np.random.default_rng(1)
    compute = _Counted()
    table = RowTable(compute)
    rows = rng.normal(size=(100, 2))
    for _ in range(3):
        slots, results = table.lookup(rows)
        assert slots is None
        np.testing.assert_array_equal(results["sum"], rows.sum(axis=1))
    assert compute.rows == 300


@pytest.mark.parametrize("n", [65, 256, 999])
@pytest.mark.parametrize(
    "draw",
    [
        lambda rng, n: rng.normal(size=n),
        lambda rng, n: rng.integers(0, 120, n) * 0.5,  # many ties
        lambda rng, n: 1e6 + 1e-8 * rng.random(n),  # differences near rounding
        lambda rng, n: np.round(rng.exponential(size=n), 2),
        lambda rng, n: rng.standard_cauchy(n),  # heavy tails
        # two far-apart clusters: the differences jump from within to between clusters
        lambda rng, n: np.concatenate([rng.normal(size=n // 2), rng.normal(50, 0.01, n - n // 2)]),
    ],
)
def test_median_of_differences_is_numpys_median_of_all_distances(n, draw):
    rng = np.random.default_rng(n)
    for _ in range(20):
        x = draw(rng, n)
        expected = float(np.median(pdist(x[:, None])))
        assert _median_of_differences(np.sort(x)) == expected
        assert median_distance(x[:, None]) == expected


def test_a_row_is_found_by_equal_values_and_an_unknown_combination_of_known_values_is_added():
    compute = _Counted()
    table = RowTable(compute)
    _read(table, np.array([[0.0, 1.0], [1.0, 2.0]]))
    # -0.0 equals 0.0, as the kernels see it: the known row, not a new one
    got = _read(table, np.array([[-0.0, 1.0], [1.0, 2.0]]))
    np.testing.assert_array_equal(got["sum"], [1.0, 3.0])
    assert compute.rows == 2
    # every value known, the combination not: computed, and found from then on
    got = _read(table, np.array([[0.0, 2.0], [1.0, 1.0]]))
    np.testing.assert_array_equal(got["sum"], [2.0, 2.0])
    assert compute.rows == 4 and table.size == 4
    _read(table, np.array([[1.0, 1.0], [0.0, 2.0]]))
    assert compute.rows == 4
