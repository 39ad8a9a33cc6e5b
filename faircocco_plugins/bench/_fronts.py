"""Fronts of fairness against performance: which points are non-dominated, and what they cover.

:func:`non_dominated` finds the Pareto front of a set of points; :func:`hypervolume` measures
the area a set of points dominates on axes normalised to the unit box, which
:func:`front_axes` computes from a run's metrics against a fixed reference point: a trivial
model's performance and the unpenalised network's unfairness.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ._metrics import majority_rate, r_squared

#: The two planes of :func:`front_axes`, named after their unfairness axis.
FRONTS: tuple[str, ...] = ("adjusted", "deo")


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
    point is (0, 1): performance 0 is no better than trivial, unfairness 1 that of the model
    to improve on (:func:`front_axes`: the unpenalised network). A point dominates the
    rectangle between it and the reference point; the hypervolume is the area of the union of
    these rectangles. Points are clipped to the box, so a point worse than the reference covers
    nothing, and points with a NaN or infinite coordinate are left out. 1 is a perfect, fair
    model; 0 a front no better than the reference (or no point at all).

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


def front_axes(
    metrics: pd.DataFrame, task: str, *, reference: Any
) -> dict[str, tuple[pd.Series, pd.Series]]:
    """(performance, unfairness) of each run in the two planes of :data:`FRONTS`, on the unit
    box of :func:`hypervolume` (reference point (0, 1)).

    * ``adjusted``: performance is ``2 (AUC − 0.5)``, or ``2 (balanced accuracy − 0.5)`` for a
      run without an AUC (both 0 at chance); unfairness the chance-adjusted FairCOCCO score.
    * ``deo``: performance is the share of what the majority class leaves that the model
      gains, ``(accuracy − m) / (1 − m)`` with ``m`` the larger of the base rate and one minus
      it; unfairness DEO.

    For regression both planes use ``1 − mse / outcome_variance``, the R² (0 for predicting
    the mean). Unfairness is divided by its mean over the ``reference`` runs, those of the
    unpenalised network, so that the reference point does not move with the methods compared:
    a run less fair than the network sits beyond unfairness 1 and covers nothing.

    Parameters
    ----------
    metrics : pandas.DataFrame
        One row per run with any of the columns ``auc``, ``balanced_accuracy``, ``accuracy``,
        ``base_rate``, ``mse``, ``outcome_variance``, ``adjusted`` and ``deo`` (a missing
        column counts as NaN).
    task : {"classification", "regression"}
    reference : array-like of bool, shape (n_runs,)
        Which rows of ``metrics`` are runs of the unpenalised network.

    Returns
    -------
    dict
        Plane name to ``(performance, unfairness)`` Series indexed like ``metrics``; a plane
        without a run that has both coordinates, or whose reference runs have no positive
        mean unfairness, is left out.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import front_axes, hypervolume
    >>> runs = pd.DataFrame({"auc": [0.9, 0.8], "accuracy": [0.9, 0.88], "base_rate": 0.2,
    ...                      "adjusted": [0.04, 0.01], "deo": [0.4, 0.1]})
    >>> axes = front_axes(runs, "classification", reference=[True, False])
    >>> round(hypervolume(*axes["adjusted"]), 3)
    0.45
    """
    is_reference = _reference_rows(reference, len(metrics))

    def column(name: str) -> pd.Series:
        if name not in metrics.columns:
            return pd.Series(math.nan, index=metrics.index)
        return metrics[name].astype(float)

    def share(values: pd.Series) -> pd.Series:
        scale = values[is_reference].mean()
        return values / scale if scale > 0 else values * math.nan

    if task == "classification":
        above_chance = 2.0 * (column("auc").fillna(column("balanced_accuracy")) - 0.5)
        majority = majority_rate(column("base_rate"))
        above_majority = (column("accuracy") - majority) / (1.0 - majority)
        performances = {"adjusted": above_chance, "deo": above_majority}
    else:
        r2 = r_squared(column("mse"), column("outcome_variance"))
        performances = {"adjusted": r2, "deo": r2}
    axes = {}
    for front in FRONTS:
        performance, unfairness = performances[front], share(column(front))
        if (np.isfinite(performance) & np.isfinite(unfairness)).any():
            axes[front] = (performance, unfairness)
    return axes


def _reference_rows(reference: Any, n: int) -> np.ndarray:
    rows = np.asarray(reference)
    if rows.dtype != bool:
        raise TypeError(
            "reference must be an array of booleans marking the unpenalised network's runs; "
            f"got dtype {rows.dtype}."
        )
    if rows.shape != (n,):
        raise ValueError(
            f"reference must have one entry per row of metrics ({n}); got {rows.shape}."
        )
    return rows
