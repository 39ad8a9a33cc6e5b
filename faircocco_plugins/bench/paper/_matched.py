"""The page of performance at matched fairness: the methods compared where they are equally fair.

A table at one strength compares models at different fairness: a penalty's λ buys a different
amount of fairness for each method and dataset, and a constraint's bound is in its own units.
Here each method and seed has a front on the test part, the best performance at least as fair
as a level (:func:`matched_mix`), read at the levels of :data:`MATCHED_MEASURES`
(:func:`matched_by_seed`), then summarised over seeds with a t-interval and compared with the
best method paired by seed (:func:`matched_table`). :func:`matched_page` writes the page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..._records.notions import NOTIONS
from .._fronts import non_dominated
from .._hypervolume_table import UNPENALISED, front_cells
from .._metrics import degenerate_runs
from .._pareto_points import pareto_points
from .._plots import figure_name
from .._results_tables import dataset_order, method_order
from .._selection import params_key
from .._store import check_runs
from ._common import (
    MISSING,
    PairedDifference,
    list_table,
    paired_difference,
    section,
    table_section,
)
from ._tables import notion_title


@dataclass(frozen=True)
class FairnessMeasure:
    """A test fairness measure and the levels at which the methods are compared.

    Attributes
    ----------
    name : str
        The measure's name on the page.
    column : str
        The test metric (``test.<column>`` of the runs).
    higher_is_fairer : bool
        Whether a higher value is fairer (DI) rather than a lower one (DEO, the score).
    levels : tuple of float
        The levels, from the loosest to the strictest.
    notions : tuple of str
        The notions whose runs are compared on this measure.
    classification_only : bool
        Whether the measure exists for classification only.
    relative_to_network : bool
        Whether a level is a multiple of the unpenalised network's mean test value on the
        dataset and notion rather than a value of the measure.
    """

    name: str
    column: str
    higher_is_fairer: bool
    levels: tuple[float, ...]
    notions: tuple[str, ...]
    classification_only: bool
    relative_to_network: bool

    def applies(self, notion: str, task: str) -> bool:
        """Whether runs of ``notion`` on a ``task`` (``"classification"`` or ``"regression"``)
        are compared on this measure."""
        return notion in self.notions and (task == "classification" or not self.classification_only)

    def label(self, level: float, threshold: float) -> str:
        """The level as the page names it, e.g. ``"DI ≥ 0.8"``.

        Examples
        --------
        >>> from faircocco_plugins.bench.paper._matched import MATCHED_MEASURES
        >>> [m.label(m.levels[0], 0.05) for m in MATCHED_MEASURES]
        ['DI ≥ 0.8', 'DEO ≤ 0.05', 'adjusted score ≤ 0.5 × nn (0.05)']
        """
        sign = "≥" if self.higher_is_fairer else "≤"
        if self.relative_to_network:
            return f"{self.name} {sign} {level:g} × {UNPENALISED} ({threshold:.3g})"
        return f"{self.name} {sign} {level:g}"


#: The measures and levels of the comparison. DI (the ratio of the lowest group positive rate
#: to the highest) at 0.8, the four-fifths rule, and 0.9 under DP; DEO at 0.05 and 0.02 under
#: EO; the chance-adjusted FairCOCCO score under the run's notion at half and a quarter of the
#: unpenalised network's mean test score, since the score's scale differs between datasets.
MATCHED_MEASURES: tuple[FairnessMeasure, ...] = (
    FairnessMeasure("DI", "di", True, (0.8, 0.9), ("dp",), True, False),
    FairnessMeasure("DEO", "deo", False, (0.05, 0.02), ("eo",), True, False),
    FairnessMeasure(
        "adjusted score", "faircocco_adjusted", False, (0.5, 0.25), NOTIONS, False, True
    ),
)
#: Coverage of the t-intervals over seeds.
CONFIDENCE = 0.95
#: A classification metric read along the same front as accuracy: mixing two models at random
#: mixes it in the same proportion.
SECONDARY = "balanced_accuracy"
#: Folder of the figures, beside the page.
FIGURE_FOLDER = "matched"
#: Levels at which a figure's curves are evaluated, evenly spaced over the measured range.
FIGURE_GRID = 60
#: Columns that name one method at one level of a measure, first in both tables below.
_LEVEL_COLUMNS: tuple[str, ...] = (
    "dataset",
    "notion",
    "performance",
    "measure",
    "level",
    "threshold",
    "method",
)
#: Columns of :func:`matched_by_seed`.
SEED_COLUMNS: tuple[str, ...] = (*_LEVEL_COLUMNS, "seed", "value", SECONDARY)
#: Columns of :func:`matched_table`.
MATCHED_COLUMNS: tuple[str, ...] = (
    *_LEVEL_COLUMNS,
    "seeds",
    "reached",
    "mean",
    "low",
    "high",
    SECONDARY,
    "best",
    "difference",
    "difference_low",
    "difference_high",
    "paired",
)


def matched_mix(
    fairness: Any, performance: Any, level: float, *, higher_is_fairer: bool, maximise: bool
) -> np.ndarray | None:
    """The mix of at most two points of one front that gives the best performance at a level.

    The front is the non-dominated points (:func:`non_dominated`; points with a NaN
    coordinate take no part). At a level between two adjacent front points the performance is
    the straight line between them, the weights of the two points; at a level looser than the
    least fair front point, that point alone (it is the best and already meets the level).
    A level fairer than the fairest point is not reached: nothing is extrapolated.

    Parameters
    ----------
    fairness, performance : array-like of shape (n,)
        The points of one method and seed.
    level : float
        The fairness level.
    higher_is_fairer : bool
        Whether a higher ``fairness`` is fairer (DI).
    maximise : bool
        Whether a higher ``performance`` is better (accuracy, not MSE).

    Returns
    -------
    numpy.ndarray of shape (n,) or None
        Weights summing to 1 (zero off the two points), so that the performance at the level is
        the weighted sum of the points'; None when no point meets the level.

    Examples
    --------
    >>> from faircocco_plugins.bench.paper._matched import matched_mix
    >>> deo, accuracy = [0.02, 0.10, 0.06, 0.20], [0.70, 0.80, 0.72, 0.78]
    >>> weights = matched_mix(deo, accuracy, 0.08, higher_is_fairer=False, maximise=True)
    >>> weights.round(2).tolist(), round(float(weights @ accuracy), 3)
    ([0.0, 0.5, 0.5, 0.0], 0.76)
    >>> matched_mix(deo, accuracy, 0.01, higher_is_fairer=False, maximise=True) is None
    True
    """
    x = np.asarray(fairness, dtype=float)
    y = np.asarray(performance, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(
            f"fairness and performance must be 1-D of one length; got {x.shape} and {y.shape}."
        )
    if not math.isfinite(level):
        raise ValueError(f"level must be a finite number; got {level!r}.")
    # on an unfairness axis (lower is fairer) the front rises with unfairness
    unfairness, bound = (-x, -level) if higher_is_fairer else (x, level)
    front = np.flatnonzero(non_dominated(unfairness, y, maximise_y=maximise))
    # identical points are all on the front; one of each is enough
    _, first = np.unique(unfairness[front], return_index=True)
    front = front[first]
    if front.size == 0 or bound < unfairness[front[0]]:
        return None
    weights = np.zeros(x.size)
    if bound >= unfairness[front[-1]]:
        weights[front[-1]] = 1.0
        return weights
    above = int(np.searchsorted(unfairness[front], bound, side="right"))
    fairer, looser = front[above - 1], front[above]
    share = (bound - unfairness[fairer]) / (unfairness[looser] - unfairness[fairer])
    weights[fairer], weights[looser] = 1.0 - share, share
    return weights


def matched_by_seed(runs: pd.DataFrame) -> pd.DataFrame:
    """Each method's performance at each fairness level of :data:`MATCHED_MEASURES`, per seed.

    On each dataset and notion, a method's points are its successful runs at the settings that
    :func:`pareto_points` picks (per value of its sweep parameter, the best mean validation
    performance), on the test part, less the runs degenerate there (:func:`degenerate_runs`).
    Each seed's points give the value of :func:`matched_mix` at each level. The performance is
    the test accuracy, or the MSE for regression (:func:`performance_metric`).

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs` or :func:`runs_of_export`.

    Returns
    -------
    pandas.DataFrame
        One row per dataset, notion, measure, level, method and seed that has a successful run,
        with the columns of :data:`SEED_COLUMNS`: ``performance`` is the metric's name,
        ``level`` the level of the measure, ``threshold`` its value on the measure (the level
        times the network's mean for a relative level), ``value`` and ``balanced_accuracy``
        the performance and balanced accuracy at the level, NaN where the seed's front does
        not reach it (and the balanced accuracy for regression). A relative level is left out
        where the network has no positive mean test value.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._matched import matched_by_seed
    >>> runs = pd.DataFrame({
    ...     "dataset": "german", "notion": "eo", "method": "faircocco", "status": "ok",
    ...     "seed": 0, "params": [{"lam": 1.0}, {"lam": 5.0}],
    ...     "validation.accuracy": [0.7, 0.6], "test.accuracy": [0.80, 0.70],
    ...     "test.deo": [0.08, 0.02], "test.faircocco_eo": [0.1, 0.0],
    ... })
    >>> table = matched_by_seed(runs)
    >>> table[["measure", "level", "value"]].round(3).values.tolist()
    [['DEO', 0.05, 0.75], ['DEO', 0.02, 0.7]]
    """
    check_runs(runs, ("dataset", "notion", "method", "seed", "status", "params"))
    rows: list[dict[str, Any]] = []
    for cell in front_cells(runs):
        members, clean = _chosen_runs(cell.runs, cell.dataset, cell.notion)
        for measure in MATCHED_MEASURES:
            if not measure.applies(cell.notion, cell.task):
                continue
            levels = _thresholds(measure, clean)
            thresholds = [threshold for _, threshold in levels]
            for method, seed, values, secondary in _seed_values(
                members, clean, measure, thresholds, cell.performance, cell.maximise
            ):
                for index, (level, threshold) in enumerate(levels):
                    rows.append(
                        {
                            "dataset": cell.dataset,
                            "notion": cell.notion,
                            "performance": cell.performance,
                            "measure": measure.name,
                            "level": level,
                            "threshold": threshold,
                            "method": method,
                            "seed": seed,
                            "value": values[index],
                            SECONDARY: secondary[index],
                        }
                    )
    return pd.DataFrame(rows, columns=list(SEED_COLUMNS))


def matched_table(runs: pd.DataFrame, *, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Per method and fairness level: the performance over the seeds that reach the level.

    The mean of :func:`matched_by_seed`'s values over the seeds whose front reaches the level,
    with the t-interval of the mean over those seeds (``mean ± t · s / √k``, ``t`` the
    ``(1 + confidence) / 2`` quantile of Student's t with ``k − 1`` degrees of freedom; none
    for one seed). The best method at a level is the most accurate (lowest MSE) of those that
    reach it on every seed they ran: a method that reaches it on some seeds only has a mean
    over its better seeds, so it is not ranked. Each method's difference to the best is paired
    by seed over the seeds both reach (:func:`paired_difference`).

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs` or :func:`runs_of_export`.
    confidence : float
        Coverage of the intervals, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        One row per dataset, notion, measure, level and method, with the columns of
        :data:`MATCHED_COLUMNS`: ``seeds``, the seeds with a successful run; ``reached``, those
        whose front reaches the level; ``mean``, ``low``, ``high`` of the performance (NaN when
        no seed reaches it; ``low`` and ``high`` NaN for one seed); the mean balanced accuracy
        at the level; ``best``, whether it is the best; and ``difference`` (this method less
        the best) with its interval over the ``paired`` seeds that both reach the level, NaN
        without a best or a seed both reach (``paired`` 0).

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._matched import matched_table
    >>> runs = pd.DataFrame({
    ...     "dataset": "german", "notion": "eo", "method": "faircocco", "status": "ok",
    ...     "seed": [0, 0, 1, 1], "params": [{"lam": 1.0}, {"lam": 5.0}] * 2,
    ...     "validation.accuracy": [0.7, 0.6] * 2, "test.accuracy": [0.80, 0.70, 0.82, 0.72],
    ...     "test.deo": [0.08, 0.02, 0.06, 0.04], "test.faircocco_eo": 0.0,
    ... })
    >>> table = matched_table(runs)  # at DEO 0.05: 0.75 and 0.77; at 0.02: seed 0 only
    >>> table[["level", "reached", "mean", "best"]].round(3).values.tolist()
    [[0.05, 2, 0.76, True], [0.02, 1, 0.7, False]]
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}.")
    by_seed = matched_by_seed(runs)
    keys = ["dataset", "notion", "measure", "level"]
    parts = []
    for _, level in by_seed.groupby(keys, sort=False):
        parts.append(_level_rows(level, confidence))
    if not parts:
        return pd.DataFrame({name: pd.Series(dtype=object) for name in MATCHED_COLUMNS})
    return pd.concat(parts, ignore_index=True)[list(MATCHED_COLUMNS)]


def matched_page(runs: pd.DataFrame, out: Path, *, plots: bool = True) -> list[str]:
    """The body of the page of performance at matched fairness (after its head) as
    reStructuredText lines, from the study's runs (:func:`runs_of_export`); with ``plots``
    (needs matplotlib), draws a figure per dataset and notion into ``out / "matched"``,
    ``out`` being the page's folder."""
    table = matched_table(runs)
    lines = _intro(plots)
    lines += _best_summary(table)
    for dataset in dataset_order(table["dataset"]):
        of_dataset = table[table["dataset"] == dataset]
        lines += section(dataset)
        for notion in [n for n in NOTIONS if n in set(of_dataset["notion"])]:
            cell = of_dataset[of_dataset["notion"] == notion]
            lines += section(notion_title(notion), "~")
            if plots:
                lines += _figure(runs, cell, out)
            for _, level in cell.groupby(["measure", "level"], sort=False):
                lines += _level_table(level)
    return lines


def _chosen_runs(
    cell: pd.DataFrame, dataset: str, notion: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Of the successful runs of one dataset and notion, those at the settings the fronts page
    draws, and those of them not degenerate on the test part."""
    score = f"test.faircocco_{notion}"
    # pareto_points needs its fairness column, but chooses settings on validation only
    view = cell if score in cell.columns else cell.assign(**{score: math.nan})
    points = pareto_points(view, dataset=dataset, notion=notion)
    chosen = {
        (str(m), params_key(p)) for m, p in zip(points["method"], points["params"], strict=True)
    }
    keys = [(str(m), params_key(p)) for m, p in zip(cell["method"], cell["params"], strict=True)]
    members = cell[[key in chosen for key in keys]]
    return members, members[~degenerate_runs(members, "test")]


def _column(runs: pd.DataFrame, metric: str) -> np.ndarray:
    name = f"test.{metric}"
    if name not in runs.columns:
        return np.full(len(runs), math.nan)
    return runs[name].to_numpy(dtype=float)


def _thresholds(measure: FairnessMeasure, clean: pd.DataFrame) -> list[tuple[float, float]]:
    """Each level of a measure with its value on the measure: a relative level times the
    network's mean over its non-degenerate runs, none where that mean is not positive."""
    if not measure.relative_to_network:
        return [(level, level) for level in measure.levels]
    values = _column(clean[clean["method"] == UNPENALISED], measure.column)
    values = values[np.isfinite(values)]
    reference = float(values.mean()) if values.size else math.nan
    if not reference > 0:  # also NaN: no run of the network
        return []
    return [(level, level * reference) for level in measure.levels]


def _seed_values(
    members: pd.DataFrame,
    clean: pd.DataFrame,
    measure: FairnessMeasure,
    thresholds: list[float],
    performance: str,
    maximise: bool,
) -> list[tuple[str, int, np.ndarray, np.ndarray]]:
    """(method, seed, performance, balanced accuracy) at each threshold, for every method and
    seed with a successful run; NaN where the seed's clean points do not reach a threshold."""
    values = []
    for method in method_order(members["method"]):
        of_method = clean[clean["method"] == method]
        for seed in sorted({int(s) for s in members.loc[members["method"] == method, "seed"]}):
            points = of_method[of_method["seed"].astype(int) == seed]
            fairness = _column(points, measure.column)
            measured = _column(points, performance)
            secondary = _column(points, SECONDARY) if performance == "accuracy" else None
            at = np.full(len(thresholds), math.nan)
            at_secondary = np.full(len(thresholds), math.nan)
            for index, threshold in enumerate(thresholds):
                weights = matched_mix(
                    fairness,
                    measured,
                    threshold,
                    higher_is_fairer=measure.higher_is_fairer,
                    maximise=maximise,
                )
                if weights is None:
                    continue
                used = weights > 0  # a NaN metric off the two points must not spoil the sum
                at[index] = weights[used] @ measured[used]
                if secondary is not None:
                    at_secondary[index] = weights[used] @ secondary[used]
            values.append((method, seed, at, at_secondary))
    return values


def _level_rows(level: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """The rows of :func:`matched_table` for one dataset, notion, measure and level."""
    maximise = level["performance"].iloc[0] == "accuracy"
    by_method = {
        str(method): group.set_index("seed")
        for method, group in level.groupby("method", sort=False)
    }
    head = {
        name: level[name].iloc[0]
        for name in ("dataset", "notion", "performance", "measure", "level", "threshold")
    }
    rows: list[dict[str, Any]] = []
    for method, seeds in by_method.items():
        reached = seeds["value"].dropna()
        low, high = _interval(reached.to_numpy(), confidence)
        rows.append(
            {
                **head,
                "method": method,
                "seeds": len(seeds),
                "reached": len(reached),
                "mean": float(reached.mean()) if len(reached) else math.nan,
                "low": low,
                "high": high,
                SECONDARY: float(seeds[SECONDARY].mean()),
            }
        )
    table = pd.DataFrame(rows)
    ranked = table[(table["reached"] == table["seeds"]) & table["mean"].notna()]
    differences = [(math.nan, math.nan, math.nan, 0)] * len(table)
    table["best"] = False
    if not ranked.empty:
        # ties go to the first method in the tables' order
        best = str(
            ranked.sort_values("mean", ascending=not maximise, kind="stable")["method"].iloc[0]
        )
        table["best"] = table["method"] == best
        for index, method in enumerate(table["method"]):
            paired = paired_difference(
                by_method[method]["value"], by_method[best]["value"], confidence=confidence
            )
            differences[index] = (paired.mean, paired.low, paired.high, paired.n)
    table[["difference", "difference_low", "difference_high", "paired"]] = pd.DataFrame(
        differences, index=table.index
    )
    return table


def _figure(runs: pd.DataFrame, cell: pd.DataFrame, out: Path) -> list[str]:
    """Draw each method's mean performance over seeds against the level of the cell's first
    measure, where all of the method's seeds reach it, from the fairest point to the network's
    least fair one; the table's levels are dotted lines."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    first = cell.iloc[0]
    dataset, notion, performance = str(first["dataset"]), str(first["notion"]), first["performance"]
    measure = next(m for m in MATCHED_MEASURES if m.name == first["measure"])
    ok = runs[(runs["status"] == "ok") & (runs["dataset"] == dataset) & (runs["notion"] == notion)]
    members, clean = _chosen_runs(ok, dataset, notion)
    measured = _column(clean, measure.column)
    network = _column(clean[clean["method"] == UNPENALISED], measure.column)
    # from the fairest point to the network's least fair one: looser levels change nothing
    measured, network = measured[np.isfinite(measured)], network[np.isfinite(network)]
    if measured.size == 0:
        return []
    sign = -1.0 if measure.higher_is_fairer else 1.0
    fairest = sign * np.min(sign * measured)
    loosest = sign * np.max(sign * (network if network.size else measured))
    grid = np.linspace(fairest, loosest, FIGURE_GRID).tolist()
    maximise = performance == "accuracy"
    curves: dict[str, list[np.ndarray]] = {}
    for method, _, values, _ in _seed_values(members, clean, measure, grid, performance, maximise):
        curves.setdefault(method, []).append(values)
    figure = Figure(figsize=(8.4, 4.8), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for index, (method, seeds) in enumerate(curves.items()):
        values = np.vstack(seeds)
        mean = np.where(np.isnan(values).any(axis=0), math.nan, values.mean(axis=0))
        if np.isnan(mean).all():
            continue  # no level reached on every seed: nothing to draw, nor to name
        # ten colours, then the same colours dashed, then dotted
        style = ("-", "--", ":")[index // 10 % 3]
        axes.plot(grid, mean, style, color=f"C{index % 10}", linewidth=1.2, label=method)
    for threshold in cell.loc[cell["measure"] == measure.name, "threshold"].unique():
        axes.axvline(float(threshold), color="0.5", linestyle=":", linewidth=0.8)
    title = f"{dataset}, {notion_title(notion)}"
    axes.set_title(title)
    fairer = "higher" if measure.higher_is_fairer else "lower"
    axes.set_xlabel(f"test {measure.name} level ({fairer} is fairer)")
    axes.set_ylabel(f"test {'accuracy' if maximise else 'MSE'} at the level, mean over seeds")
    axes.grid(True, alpha=0.3)
    figure.legend(loc="outside right upper", fontsize=6)
    name = figure_name(dataset, notion)
    file = out / FIGURE_FOLDER / f"{name}.png"
    file.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(file, format="png", dpi=120)
    return [
        f".. image:: {FIGURE_FOLDER}/{name}.png",
        f"   :alt: {title}: performance at matched {measure.name}",
        "   :width: 90%",
        "",
    ]


def _interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The t-interval of the mean of ``values``; NaN for fewer than two."""
    if values.size < 2:
        return math.nan, math.nan
    if np.ptp(values) == 0:  # equal values: a zero-width interval, which scipy gives as NaN
        return float(values[0]), float(values[0])
    low, high = stats.t.interval(
        confidence, values.size - 1, loc=float(np.mean(values)), scale=stats.sem(values)
    )
    return float(low), float(high)


def _intro(plots: bool) -> list[str]:
    levels = "; ".join(
        f"{measure.name} ({', '.join(f'{level:g}' for level in measure.levels)}"
        + (" times the network's mean test value" if measure.relative_to_network else "")
        + f") under {', '.join(n.upper() for n in measure.notions)}"
        + (" on classification" if measure.classification_only else "")
        for measure in MATCHED_MEASURES
    )
    lines = [
        "The methods are compared where they are equally fair, not at one strength: a "
        "penalty's λ buys a different amount of fairness for each method and dataset, and a "
        "constraint's bound is in its own units, so a table at one λ compares models at "
        "different fairness and rewards the least fair.",
        "",
        "For each method and seed, the points of its sweep on the test part (at the setting "
        "of its other parameters that the fronts page draws: per sweep value, the best mean "
        "validation performance; degenerate points left out) make a front. At a fairness "
        "level, the method's performance is the best of the front's points that meet the "
        "level, and between two adjacent front points the straight line between them (as "
        "if the two models were mixed at random, which mixes accuracy and balanced accuracy "
        "in the same proportion). A level fairer than the seed's fairest point is not "
        "reached: nothing is extrapolated. The network (nn), one point per seed, counts only "
        "where it already meets the level, as does a method whose sweep is one setting.",
        "",
        f"The levels: {levels}. DI is the lowest group positive rate over the highest (0.8 is "
        "the four-fifths rule; higher is fairer), DEO and the chance-adjusted FairCOCCO score "
        "are lower when fairer; the score's levels are relative because its scale differs "
        "between datasets. The performance is the test accuracy, or the MSE for regression.",
        "",
        f"Each table gives, per method, how many of its seeds reach the level, the mean over "
        f"those seeds with its {CONFIDENCE:.0%} t-interval over them (none for one seed), the "
        "balanced accuracy at the same points, and the difference to the best method paired "
        f"by seed over the seeds both reach, with its {CONFIDENCE:.0%} t-interval. The best "
        "(**best**) is the most accurate, or lowest MSE, of the methods that reach the level "
        "on every seed they ran; a method that reaches it on some seeds only has a mean over "
        "its better seeds and is not ranked.",
        "",
    ]
    if plots:
        lines += [
            "Each figure draws, for the first measure of its dataset and notion, each method's "
            "mean performance over seeds at every level where all of its seeds reach it, up to "
            "the network's least fair value; dotted lines mark the tables' levels.",
            "",
        ]
    return lines


def _best_summary(table: pd.DataFrame) -> list[str]:
    """One row per dataset, notion and level: the best method, a method better on the seeds
    it reaches, and the network."""
    rows = []
    for (dataset, notion, _, _), level in table.groupby(
        ["dataset", "notion", "measure", "level"], sort=False
    ):
        best = level[level["best"]]
        network = level[level["method"] == UNPENALISED]
        rows.append(
            [
                str(dataset),
                notion_title(str(notion)),
                _label(level.iloc[0]),
                _named(best),
                _named(_better_on_fewer_seeds(level, best)),
                _estimate(network.iloc[0], seeds=True) if len(network) else MISSING,
            ]
        )
    return table_section(
        "The best method at each level",
        "The best method (accuracy, or MSE for regression), and beside it a method that "
        "reaches the level on some of its seeds only, with a mean over those seeds better than "
        "the best's: of those, the one that reaches it on the most seeds, then with the best "
        "mean.",
        ["Dataset", "Notion", "Level", "Best", "Better on fewer seeds", "Network (nn)"],
        rows,
    )


def _better_on_fewer_seeds(level: pd.DataFrame, best: pd.DataFrame) -> pd.DataFrame:
    """Among the methods that reach the level on some of their seeds only and whose mean beats
    the best's, the one reaching it on the most seeds, then with the best mean; empty if none.
    """
    sign = 1.0 if level["performance"].iloc[0] == "accuracy" else -1.0
    some = level[(level["reached"] > 0) & (level["reached"] < level["seeds"])]
    if len(best):
        some = some[sign * some["mean"] > sign * best["mean"].iloc[0]]
    order = some.assign(score=sign * some["mean"]).sort_values(
        ["reached", "score"], ascending=False, kind="stable"
    )
    return order.iloc[:1]


def _named(rows: pd.DataFrame) -> str:
    """``"faircocco: 0.842 [0.80, 0.88] (3 of 5)"`` for the first row, or :data:`MISSING`."""
    if rows.empty:
        return MISSING
    return f"{rows['method'].iloc[0]}: {_estimate(rows.iloc[0], seeds=True)}"


def _level_table(level: pd.DataFrame) -> list[str]:
    first = level.iloc[0]
    if not (level["reached"] > 0).any():
        return [f"{_label(first)}: no method reaches this level on any seed.", ""]
    classification = first["performance"] == "accuracy"
    rows = []
    for row in level.to_dict("records"):
        cells = [str(row["method"]), f"{row['reached']} of {row['seeds']}", _estimate(row)]
        if classification:
            cells.append(_number(row[SECONDARY]))
        difference = PairedDifference(
            row["difference"], row["difference_low"], row["difference_high"], int(row["paired"])
        )
        cells.append("**best**" if row["best"] else difference.text())
        rows.append(cells)
    metric = "Accuracy" if classification else "MSE"
    header = ["Method", "Seeds reaching", f"{metric} ({CONFIDENCE:.0%} t-interval)"]
    if classification:
        header.append("Balanced accuracy")
    header.append("Difference to the best (paired)")
    return list_table(header, rows, title=_label(first))


def _label(row: Any) -> str:
    measure = next(m for m in MATCHED_MEASURES if m.name == row["measure"])
    return measure.label(float(row["level"]), float(row["threshold"]))


def _estimate(row: Any, *, seeds: bool = False) -> str:
    """``"0.812 [0.805, 0.819]"``, the mean alone for one seed; with ``seeds``, the seeds
    reaching the level after it, as ``"— (0 of 5)"`` where none does."""
    text = _number(row["mean"])
    if not math.isnan(row["low"]):
        text += f" [{row['low']:.3f}, {row['high']:.3f}]"
    return f"{text} ({row['reached']} of {row['seeds']})" if seeds else text


def _number(value: float) -> str:
    return MISSING if math.isnan(value) else f"{value:.3f}"
