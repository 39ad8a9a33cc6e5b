"""The hypervolume of each method's front: all of its runs, on axes that every method shares."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._records.notions import NOTIONS
from ._fronts import FRONTS, front_axes, hypervolume
from ._metrics import degenerate_runs
from ._pareto_points import performance_metric
from ._results_tables import dataset_order, method_order
from ._store import check_runs

#: Columns of :func:`hypervolume_table`.
HYPERVOLUME_COLUMNS: tuple[str, ...] = (
    "dataset",
    "notion",
    "method",
    "task",
    "seeds",
    "runs",
    "runs_degenerate",
    *(f"{front}_{stat}" for front in FRONTS for stat in ("mean", "std")),
)

#: The method whose mean unfairness on a dataset and notion is the fronts' reference point.
UNPENALISED = "nn"

_Axes = dict[str, tuple[pd.Series, pd.Series]]


class FrontCell(NamedTuple):
    """The successful runs of one dataset and notion, with the dataset's performance metric."""

    dataset: str
    notion: str
    task: str
    #: :func:`performance_metric` of the dataset's runs, and whether higher is better
    performance: str
    maximise: bool
    runs: pd.DataFrame


def front_cells(runs: pd.DataFrame) -> Iterator[FrontCell]:
    """The cells of the fronts: datasets in the paper's order, then notions in the order of
    :data:`NOTIONS`; a dataset without a performance metric has none."""
    ok = runs[runs["status"] == "ok"]
    for dataset in dataset_order(ok["dataset"]):
        of_dataset = ok[ok["dataset"] == dataset]
        performance, maximise = performance_metric(of_dataset)
        if performance is None:
            continue
        task = "classification" if performance == "accuracy" else "regression"
        for notion in [n for n in NOTIONS if n in set(of_dataset["notion"])]:
            cell = of_dataset[of_dataset["notion"] == notion]
            yield FrontCell(dataset, notion, task, performance, maximise, cell)


def hypervolume_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, notion and method: the hypervolume of the front of all of its runs.

    Every successful run of a method (each setting of its sweep, whatever the selection rule
    would pick) is a point on the test part in two planes:

    * ``adjusted``: performance against the chance-adjusted FairCOCCO score under the notion;
    * ``deo``: accuracy (the same performance for regression) against DEO.

    Both axes are normalised per dataset and notion by :func:`front_axes`, on the test
    metrics, so that all methods share one box with a fixed reference point, (0, 1) of
    :func:`hypervolume`: performance above chance (AUC) or above the majority rate
    (accuracy), or the test R² for regression, against the adjusted score or DEO divided by
    the unpenalised network's (``nn``, its mean over the runs of the dataset and notion). A
    run less fair than the network covers nothing, and adding a method, however unfair,
    leaves the other methods' hypervolumes as they are.

    Runs degenerate on the test part (:func:`degenerate_runs`) are left out of the fronts and
    of the reference: a model that predicts one class scores 0 on both unfairness axes
    while its AUC, from its probabilities, can be high, so it would cover most of the box
    without trading anything. Each seed's runs make one front,
    so every point is a model evaluated on one test part; the hypervolumes are then averaged
    over seeds.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs` (of one study).

    Returns
    -------
    pandas.DataFrame
        One row per dataset, notion and method with a successful run (datasets in the
        paper's order, notions in the order of :data:`NOTIONS`, methods in the tables' column
        order), with the columns ``dataset``, ``notion``, ``method``; ``task``
        (``"classification"`` or ``"regression"``); ``seeds``, the seeds with a successful
        run; ``runs``, the successful runs; ``runs_degenerate``, those of them degenerate on
        the test part and left out; and ``adjusted_mean``, ``adjusted_std``, ``deo_mean``,
        ``deo_std``: per plane, the mean and standard deviation (``ddof=1``, NaN for one seed)
        over seeds of the hypervolume, in [0, 1]. A seed whose runs are all degenerate counts
        as 0. A plane is NaN for every method of a dataset and notion when no run there has
        both coordinates (for example a store written before ``outcome_variance`` was
        recorded), or when the dataset and notion have no non-degenerate run of ``nn`` with a
        positive unfairness to set the reference.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import hypervolume_table
    >>> runs = pd.DataFrame({
    ...     "dataset": "compas", "notion": "eo", "method": ["nn", "faircocco", "faircocco"],
    ...     "seed": 0, "status": "ok", "test.auc": [0.9, 0.9, 0.8],
    ...     "test.accuracy": [0.9, 0.9, 0.88], "test.base_rate": 0.2,
    ...     "test.faircocco_eo_adjusted": [0.04, 0.04, 0.01], "test.deo": [0.4, 0.4, 0.1],
    ... })
    >>> table = hypervolume_table(runs)
    >>> table[["method", "adjusted_mean", "deo_mean"]].round(3).values.tolist()
    [['nn', 0.0, 0.0], ['faircocco', 0.45, 0.3]]
    """
    by_seed = hypervolume_by_seed(runs)  # checks runs
    rows = []
    keys = ["dataset", "notion", "method"]
    for (dataset, notion, method), group in by_seed.groupby(keys, sort=False):
        row: dict[str, object] = {
            "dataset": dataset,
            "notion": notion,
            "method": method,
            "task": group["task"].iloc[0],
            "seeds": len(group),
            "runs": int(group["runs"].sum()),
            "runs_degenerate": int(group["runs_degenerate"].sum()),
        }
        for front in FRONTS:
            values = group[front].dropna().tolist()
            row[f"{front}_mean"] = float(np.mean(values)) if values else math.nan
            row[f"{front}_std"] = float(np.std(values, ddof=1)) if len(values) > 1 else math.nan
        rows.append(row)
    return pd.DataFrame(rows, columns=list(HYPERVOLUME_COLUMNS))


def hypervolume_by_seed(runs: pd.DataFrame) -> pd.DataFrame:
    """The hypervolume of each seed's front, per dataset, notion and method.

    The fronts of :func:`hypervolume_table`, from the same runs, before they are averaged over
    seeds, so that two methods can be compared seed by seed (they share each seed's split): one
    row per dataset, notion, method and seed with a successful run, in the order of
    :func:`hypervolume_table`, with the columns ``dataset``, ``notion``, ``method``, ``task``,
    ``seed``, ``runs``, ``runs_degenerate`` and one column per plane of :data:`FRONTS` (NaN
    where the plane has no coordinates).
    """
    check_runs(runs, ("dataset", "notion", "method", "seed", "status"))
    rows = []
    for cell in front_cells(runs):
        degenerate = degenerate_runs(cell.runs, "test")
        axes = _normalised_axes(cell.runs[~degenerate], cell.notion, cell.task)
        for method in method_order(cell.runs["method"]):
            of_method = cell.runs[cell.runs["method"] == method]
            for seed in sorted({int(s) for s in of_method["seed"]}):
                members = of_method[(of_method["seed"] == seed).to_numpy(dtype=bool)]
                row: dict[str, object] = {
                    "dataset": cell.dataset,
                    "notion": cell.notion,
                    "method": method,
                    "task": cell.task,
                    "seed": seed,
                    "runs": len(members),
                    "runs_degenerate": int(degenerate[members.index].sum()),
                }
                for front in FRONTS:
                    row[front] = _hypervolume(members.index, axes.get(front))
                rows.append(row)
    columns = ["dataset", "notion", "method", "task", "seed", "runs", "runs_degenerate", *FRONTS]
    return pd.DataFrame(rows, columns=columns)


def _normalised_axes(clean: pd.DataFrame, notion: str, task: str) -> _Axes:
    """:func:`front_axes` of the runs' test metrics, against the unpenalised network."""
    metrics = clean.filter(like="test.").rename(columns=lambda name: name.removeprefix("test."))
    metrics = metrics.rename(columns={f"faircocco_{notion}_adjusted": "adjusted"})
    return front_axes(metrics, task, reference=(clean["method"] == UNPENALISED).to_numpy())


def _hypervolume(members: pd.Index, axes: tuple[pd.Series, pd.Series] | None) -> float:
    """The hypervolume of one seed's runs (degenerate runs are not in ``axes``); NaN without a
    plane, 0 when every run is degenerate."""
    if axes is None:
        return math.nan
    performance, unfairness = axes
    kept = members.intersection(performance.index)
    return hypervolume(performance[kept], unfairness[kept])
