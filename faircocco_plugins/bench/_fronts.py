"""Fronts of fairness against performance: which points are non-dominated, and what they cover.

:func:`non_dominated` finds the Pareto front of a set of points; :func:`hypervolume` measures
the area a set of points dominates on axes normalised to the unit box.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def non_dominated(x: Any, y: Any, *, maximise_y: bool) -> np.ndarray:
    """Which points are on the non-dominated (Pareto) front: lower ``x``, better ``y``.

    A point is dominated when another point is at least as good on both axes and strictly
    better on one; ``x`` (unfairness) is better when lower, ``y`` when higher
    (``maximise_y=True``, accuracy) or lower (``maximise_y=False``, MSE). Points with a NaN
    coordinate are never on the front and dominate nothing. Identical points are all kept.

    Parameters
    ----------
    x, y : array-like of shape (n,)
        Coordinates of the points.
    maximise_y : bool
        Whether a higher ``y`` is better.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)

    Examples
    --------
    >>> from faircocco_plugins.bench import non_dominated
    >>> non_dominated([0.1, 0.2, 0.3, 0.2], [0.70, 0.80, 0.75, 0.60], maximise_y=True).tolist()
    [True, True, False, False]
    """
    xs = _coordinates(x, "x")
    ys = _coordinates(y, "y")
    if xs.shape != ys.shape:
        raise ValueError(f"x and y must have the same length; got {xs.size} and {ys.size}.")
    if not isinstance(maximise_y, bool):
        raise TypeError(f"maximise_y must be a bool; got {type(maximise_y).__name__}.")
    cost = -ys if maximise_y else ys
    valid = np.isfinite(xs) & np.isfinite(cost)
    front = np.zeros(xs.size, dtype=bool)
    for i in np.flatnonzero(valid):
        at_least_as_good = valid & (xs <= xs[i]) & (cost <= cost[i])
        strictly_better = (xs < xs[i]) | (cost < cost[i])
        front[i] = not np.any(at_least_as_good & strictly_better)
    return front


def hypervolume(performance: Any, unfairness: Any) -> float:
    """Area dominated by the points ``(performance, unfairness)`` within the unit box.

    Performance is maximised and unfairness minimised, both normalised so that the reference
    point is (0, 1): performance 0 is no better than trivial, unfairness 1 the largest of
    interest. A point dominates the rectangle between it and the reference point; the
    hypervolume is the area of the union of these rectangles. Points are clipped to the box
    and points with a NaN or infinite coordinate are left out. 1 is a perfect, fair model; 0 a
    front no better than the reference (or no point at all).

    Parameters
    ----------
    performance, unfairness : array-like of shape (n,)
        Coordinates of the points.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> from faircocco_plugins.bench import hypervolume
    >>> hypervolume([0.5, 1.0], [0.0, 0.5])
    0.75
    """
    performances = _coordinates(performance, "performance")
    unfairnesses = _coordinates(unfairness, "unfairness")
    if performances.shape != unfairnesses.shape:
        raise ValueError(
            "performance and unfairness must have the same length; got "
            f"{performances.size} and {unfairnesses.size}."
        )
    finite = np.isfinite(performances) & np.isfinite(unfairnesses)
    points = sorted(
        zip(
            np.clip(performances[finite], 0.0, 1.0).tolist(),
            np.clip(unfairnesses[finite], 0.0, 1.0).tolist(),
            strict=True,
        )
    )
    area, fairest = 0.0, 1.0
    # from the best performance down: each slab is dominated from the lowest unfairness of the
    # points at least that good up to the reference
    for i in range(len(points) - 1, -1, -1):
        fairest = min(fairest, points[i][1])
        lower = points[i - 1][0] if i > 0 else 0.0
        area += (points[i][0] - lower) * (1.0 - fairest)
    return area


def _coordinates(values: Any, name: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers.") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {array.shape}.")
    return array
