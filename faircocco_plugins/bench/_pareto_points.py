"""The points of a Pareto figure: each method's sweep, and which points are non-dominated.

For every dataset and notion, each method contributes the points of its sweep: for each value
of its sweep parameter (``lam``, ``bound``), the setting of the other hyper-parameters with the
best mean validation performance (among those not degenerate on validation, when there are
any), at the mean test fairness and performance over seeds, with their standard deviations.
Points that no other point beats on both axes form the non-dominated front; a point whose
setting is degenerate on the test part for some seed (:func:`degenerate_runs`) takes no part in
it: it is never on it and dominates nothing. :mod:`._plots` draws them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ._fronts import non_dominated
from ._metrics import degenerate_runs
from ._selection import params_key
from ._store import check_runs

#: Columns of :func:`pareto_points`.
POINT_COLUMNS: tuple[str, ...] = (
    "method",
    "sweep_param",
    "sweep_value",
    "params",
    "seeds",
    "fairness_mean",
    "fairness_std",
    "performance_mean",
    "performance_std",
    "degenerate_seeds",
    "on_front",
)


def pareto_points(
    runs: pd.DataFrame,
    *,
    dataset: str,
    notion: str,
    sweep_params: Mapping[str, str | None] | None = None,
) -> pd.DataFrame:
    """The points of one Pareto figure: each method's sweep on one dataset under one notion.

    Only runs with status ``"ok"`` count. Each hyper-parameter setting is averaged over its
    seeds. For each value of a method's sweep parameter, the setting with the best mean
    validation performance (highest ``validation.accuracy``, else lowest ``validation.mse``)
    represents it, so the other parameters (learning rate, batch size) are chosen without
    looking at the test part. As in :func:`select_runs`, settings degenerate on the
    validation part (:func:`degenerate_runs`) are set aside when the sweep value has others:
    a model that predicts the majority class often has the best validation accuracy. A
    method without a sweep parameter gives one point, its validation-best setting.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs`.
    dataset : str
    notion : {"dp", "eo", "cal"}
        Fairness is the test FairCOCCO score under this notion, ``test.faircocco_<notion>``.
    sweep_params : mapping of str to str or None, optional
        Each method's sweep parameter (:attr:`MethodSpec.sweep_param`). A method not in the
        mapping gets the one parameter that varies across its settings, if exactly one does,
        and none otherwise.

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`POINT_COLUMNS`, methods in order of appearance in ``runs`` and
        each method's points in sweep order; ``seeds`` is the number of runs averaged, the
        standard deviations use ``ddof=1`` (NaN for one seed), ``degenerate_seeds`` counts the
        averaged runs that are degenerate on the test part (:func:`degenerate_runs`), and
        ``on_front`` marks the non-dominated points (:func:`non_dominated`) among the points
        of the whole figure without a degenerate seed: a degenerate point is never on the
        front, and it dominates no other point.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import pareto_points
    >>> runs = pd.DataFrame({
    ...     "dataset": "german", "notion": "eo", "method": "faircocco", "status": "ok",
    ...     "seed": [0, 1, 0, 1], "params": [{"lam": 0.0}] * 2 + [{"lam": 1.0}] * 2,
    ...     "validation.accuracy": [0.75, 0.74, 0.71, 0.70],
    ...     "test.accuracy": [0.76, 0.74, 0.72, 0.70],
    ...     "test.faircocco_eo": [0.20, 0.22, 0.05, 0.07],
    ... })
    >>> points = pareto_points(runs, dataset="german", notion="eo")
    >>> points[["sweep_value", "fairness_mean", "performance_mean"]].round(2).values.tolist()
    [[0.0, 0.21, 0.75], [1.0, 0.06, 0.71]]
    """
    check_runs(runs, ("dataset", "notion", "method", "status", "params"))
    fairness = f"test.faircocco_{notion}"
    chosen = runs[
        (runs["dataset"] == dataset) & (runs["notion"] == notion) & (runs["status"] == "ok")
    ]
    empty = pd.DataFrame({name: pd.Series(dtype=object) for name in POINT_COLUMNS})
    if chosen.empty:
        return empty
    if fairness not in chosen.columns:
        raise ValueError(f"runs has no column {fairness!r} for the fairness axis.")
    performance, maximise = performance_metric(chosen)
    if performance is None:
        return empty
    rows: list[dict[str, Any]] = []
    for method, of_method in chosen.groupby("method", sort=False):
        settings = _settings(of_method, fairness, performance, maximise)
        known = sweep_params if sweep_params is not None else {}
        sweep = known[str(method)] if str(method) in known else _varying(settings["params"])
        rows += _sweep(str(method), settings, sweep, maximise)
    points = pd.DataFrame(rows, columns=[c for c in POINT_COLUMNS if c != "on_front"])
    # object columns: a missing sweep parameter stays None rather than becoming NaN
    for name in ("sweep_param", "sweep_value", "params"):
        points[name] = pd.Series([row[name] for row in rows], index=points.index, dtype=object)
    points["on_front"] = _front(points, maximise)
    return points


def _front(points: pd.DataFrame, maximise: bool) -> np.ndarray:
    """The non-dominated points among those without a degenerate seed.

    A constant predictor scores 0 unfairness at the majority rate's accuracy, so it would
    dominate every real trade-off; it is drawn, but the front is of the other points.
    """
    clean = (points["degenerate_seeds"] == 0).to_numpy()
    front = np.zeros(len(points), dtype=bool)
    front[clean] = non_dominated(
        points.loc[clean, "fairness_mean"],
        points.loc[clean, "performance_mean"],
        maximise_y=maximise,
    )
    return front


def performance_metric(runs: pd.DataFrame) -> tuple[str | None, bool]:
    """The performance metric of a dataset's runs: accuracy, else MSE.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs of one dataset.

    Returns
    -------
    metric : str or None
        ``"accuracy"`` when some run has a ``test.accuracy`` value, else ``"mse"`` when some
        run has a ``test.mse`` value, else ``None``.
    maximise : bool
        Whether higher values are better.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench._pareto_points import performance_metric
    >>> performance_metric(pd.DataFrame({"test.mse": [0.3]}))
    ('mse', False)
    """
    for metric, maximise in (("accuracy", True), ("mse", False)):
        column = f"test.{metric}"
        if column in runs.columns and runs[column].notna().any():
            return metric, maximise
    return None, True


def _settings(runs: pd.DataFrame, fairness: str, performance: str, maximise: bool) -> pd.DataFrame:
    """One row per hyper-parameter setting: its params, seeds and mean/std of each axis."""
    validation = f"validation.{performance}"
    frame = pd.DataFrame(
        {
            "key": [params_key(p) for p in runs["params"]],
            "fairness": runs[fairness].astype(float).to_numpy(),
            "performance": runs[f"test.{performance}"].astype(float).to_numpy(),
            "validation": (
                runs[validation].astype(float).to_numpy()
                if validation in runs.columns
                else np.full(len(runs), math.nan)
            ),
            "degenerate": degenerate_runs(runs, "test").to_numpy(dtype=int),
            "validation_degenerate": degenerate_runs(runs, "validation").to_numpy(dtype=int),
        }
    )
    grouped = frame.groupby("key", sort=True)
    settings = pd.DataFrame(
        {
            "seeds": grouped.size(),
            "fairness_mean": grouped["fairness"].mean(),
            "fairness_std": grouped["fairness"].std(ddof=1),
            "performance_mean": grouped["performance"].mean(),
            "performance_std": grouped["performance"].std(ddof=1),
            "degenerate_seeds": grouped["degenerate"].sum(),
            "validation_degenerate": grouped["validation_degenerate"].sum(),
            # "higher is better" for choosing; a setting without validation values loses
            "validation": (1 if maximise else -1) * grouped["validation"].mean(),
        }
    )
    settings["validation"] = settings["validation"].fillna(-math.inf)
    first = dict(zip(frame["key"], runs["params"], strict=True))
    settings["params"] = [first[key] for key in settings.index]
    return settings


def _varying(params: pd.Series) -> str | None:
    """The one parameter whose value differs across settings, if exactly one does."""
    values: dict[str, set[str]] = {}
    for setting in params:
        for name, value in setting.items():
            values.setdefault(name, set()).add(repr(value))
    varying = [name for name, seen in values.items() if len(seen) > 1]
    return varying[0] if len(varying) == 1 else None


def _sweep(
    method: str, settings: pd.DataFrame, sweep: str | None, maximise: bool
) -> list[dict[str, Any]]:
    if sweep is not None and not all(sweep in p for p in settings["params"]):
        sweep = None
    if sweep is None:
        groups = [(None, settings)]
    else:
        values = [p[sweep] for p in settings["params"]]
        groups = [
            (value, settings[[_same(v, value) for v in values]])
            for value in sorted(dict.fromkeys(values), key=_sort_key)
        ]
    rows = []
    for value, group in groups:
        # the fewest seeds degenerate on validation, then the best validation performance;
        # ties go to the first setting in key order
        best = group.sort_values(
            ["validation_degenerate", "validation"], ascending=[True, False], kind="stable"
        ).iloc[0]
        rows.append(
            {
                "method": method,
                "sweep_param": sweep,
                "sweep_value": value,
                "params": best["params"],
                "seeds": int(best["seeds"]),
                "fairness_mean": float(best["fairness_mean"]),
                "fairness_std": float(best["fairness_std"]),
                "performance_mean": float(best["performance_mean"]),
                "performance_std": float(best["performance_std"]),
                "degenerate_seeds": int(best["degenerate_seeds"]),
            }
        )
    return rows


def _same(a: Any, b: Any) -> bool:
    return repr(a) == repr(b)


def _sort_key(value: Any) -> tuple[int, float, str]:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, repr(value))
