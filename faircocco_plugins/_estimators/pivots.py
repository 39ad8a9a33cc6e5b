"""How far the low-rank estimator's pivoted incomplete Cholesky goes, and among which rows.

A continuous factor stops at a residual relative to its variable's ``ε`` (:func:`pivot_tolerance`),
so that the statistic keeps one relative accuracy at every ``ε``; a large input's pivots are chosen
among candidate rows (:func:`pivot_candidates`), and every row is then covered to the same
tolerance. A variable whose levels times pivots are wider than its rows pivots its joint kernel
instead (:func:`pivots_jointly`); :func:`lowrank_seconds` is the cost model that ``method="auto"``
weighs against the exact estimator's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .terms import Ridge

#: Pivoted incomplete Cholesky stops when every residual diagonal entry is below this fraction
#: of the variable's ``ε`` (see :func:`pivot_tolerance`) ...
RELATIVE_TOLERANCE = 1e-2
#: ... never below this, well above rounding level ...
MIN_TOLERANCE = 1e-6
#: ... and never above this, so that a large ``ε`` must still factor; all three relative to the
#: kernel's diagonal.
MAX_TOLERANCE = 1e-2


def pivot_tolerance(ridge: Ridge, role: str) -> float:
    """The residual at which ``role``'s incomplete Cholesky factor stops, relative to the
    kernel's diagonal (:func:`absolute_tolerance`).

    A residual ``Δ = K − Φ Φᵀ`` (positive semi-definite, trace at most ``N τ``) moves
    ``R = K (K + εN I)⁻¹`` by at most ``‖Δ‖ / (εN) ≤ τ / ε`` in Hilbert-Schmidt norm, so a
    tolerance proportional to ``ε`` keeps the same relative accuracy at every ``ε``: the
    statistic within about 10⁻³ of the exact estimator's (measured from ``ε`` = 10⁻⁴ to 1),
    while a large ``ε`` (the test's, the penalty's) needs far fewer pivots.
    """
    return min(MAX_TOLERANCE, max(MIN_TOLERANCE, RELATIVE_TOLERANCE * ridge.of(role)))


def absolute_tolerance(tolerance: float, diagonal: np.ndarray) -> float:
    """A :func:`pivot_tolerance` as a residual of the kernel whose diagonal on the rows is
    ``diagonal`` (host): the residual starts there, so a tolerance relative to it holds the
    factor to one relative accuracy whatever the kernel's scale."""
    return tolerance * float(diagonal.max()) if diagonal.size else tolerance


#: Pivots are chosen among all the rows of an input of up to this many rows, and among about
#: this many of a larger one (see :func:`pivot_candidates`).
PIVOT_ROWS = 2**14
#: Side of the grid cells of :func:`pivot_candidates`, in bandwidths (the columns are scaled).
CELL = 0.1


def pivot_candidates(z: np.ndarray) -> np.ndarray | None:
    """The rows among which the pivots of ``z``'s factor are chosen: None (all of them) up to
    :data:`PIVOT_ROWS` rows; beyond, that many evenly spaced rows and rows of a grid's cells
    (:func:`cell_rows`), so that sparse regions, where the largest residuals remain, have
    candidates too.

    Pivoting all ``N`` rows costs ``O(N r²)`` memory-bound steps on an ``N × r`` factor (at
    10⁶ rows, EO with a continuous outcome spent 10 of its 12 s there, and 1.6 GB held the
    factor and its copy); pivoting the candidates costs ``O(r²)`` per candidate, and the factor
    rows then come from one Nyström product per block of rows. The rows are in their canonical
    order (:mod:`._inputs.row_order`), so evenly spaced rows are a function of the data. A row left
    above the tolerance joins the candidates (:meth:`._estimators.feature_map.FeatureMap.cover`),
    so every row ends within it, as when all rows were candidates.
    """
    n = z.shape[0]
    if n <= PIVOT_ROWS:
        return None
    spaced = np.linspace(0, n - 1, PIVOT_ROWS).round().astype(np.int64)
    return np.union1d(spaced, cell_rows(z))


def cell_rows(z: np.ndarray) -> np.ndarray:
    """The first row of each occupied cell of a grid on the rows of ``z``, with cells of side
    :data:`CELL` (wider for a grid of more than :data:`PIVOT_ROWS` cells over the columns'
    extents); of more than :data:`PIVOT_ROWS` occupied cells, the least populated, which hold
    the rows farthest from the others (the evenly spaced candidates stand for dense regions).
    """
    n, d = z.shape
    low = z.min(axis=0)
    extent = z.max(axis=0) - low
    side = max(CELL, float(np.exp(np.mean(np.log(extent)) - np.log(PIVOT_ROWS) / d)))
    while np.prod(np.floor(extent / side) + 1) > 2**52:  # cell numbers exact in float64
        side *= 2
    shape = tuple((np.floor(extent / side) + 1).astype(np.int64).tolist())
    cells = np.minimum(np.floor((z - low) / side).astype(np.int64), np.array(shape) - 1)
    keys = np.ravel_multi_index(tuple(cells.T), shape)
    if math.prod(shape) <= 4 * n:  # linear time for a grid of few cells
        first = np.full(math.prod(shape), n)
        np.minimum.at(first, keys, np.arange(n))
        counts = np.bincount(keys, minlength=first.size)[first < n]
        rows = first[first < n]
    else:
        _, rows, counts = np.unique(keys, return_index=True, return_counts=True)
    if rows.size > PIVOT_ROWS:
        rows = rows[np.argsort(counts, kind="stable")[:PIVOT_ROWS]]
    return rows


#: Most rows of a variable that pivots its joint kernel (:func:`pivots_jointly`).
JOINT_ROWS = 2048


def pivots_jointly(n: int, width: int) -> bool:
    """Whether a variable of ``n`` rows whose features, levels times pivots, are ``width``
    columns wide pivots its joint kernel instead
    (:meth:`._estimators.feature_map.FeatureMap._fit_joint`): when they are wider than the rows,
    as 8 level combinations times 72 pivots (576 columns) at 300 rows,
    the joint kernel's factor is narrower (at most ``n``; 274 columns there), and every solve of
    the estimator and of each permutation's refit is smaller. Up to :data:`JOINT_ROWS` rows:
    pivoting costs ``O(n r²)`` for the joint rank ``r``, up to ``n``, and 250 combinations
    beside two continuous columns took 22 s at 2,000 rows (beyond, such features are refused
    for their width, and ``method="auto"`` takes the exact estimator). Narrower features, levels
    times pivots up to ``n``, stay: at 1,000 rows, the joint kernel's 447 columns against 704
    saved a quarter of the score's time but made each permutation's refit 4 times as long.
    """
    return n < width and n <= JOINT_ROWS


#: Seconds of the low-rank estimator's algebra per cubed feature width (its factorisations,
#: solves and norms) and of pivoting a joint kernel per row and squared rank (incomplete Cholesky,
#: factor rows and their Gram), in the units of :func:`._estimators.exact.exact_seconds`: both
#: measured beside the exact estimator on the same machine (EO with three mixed attributes and
#: a continuous outcome, 200 to 1,600 rows, widths 200 to 730; performance docs).
SECONDS_PER_CUBED_WIDTH = 2e-10
SECONDS_PER_JOINT_ENTRY = 6e-10


def lowrank_seconds(n: int, widths: Iterable[int]) -> float:
    """The low-rank estimator's estimated seconds, once its variables' features, levels times
    pivots ``widths`` wide on ``n`` rows, are fitted: its algebra on each width, and, for a width
    that :func:`pivots_jointly`, pivoting the joint kernel to its largest rank, ``min(n, width)``
    (the rank it needs is known only once pivoted)."""
    seconds = 0.0
    for width in widths:
        if pivots_jointly(n, width):
            width = min(n, width)
            seconds += SECONDS_PER_JOINT_ENTRY * n * width**2
        seconds += SECONDS_PER_CUBED_WIDTH * width**3
    return seconds
