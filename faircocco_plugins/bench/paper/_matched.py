"""The page of performance at matched fairness: the methods compared where they are equally fair.

A table at one strength compares models at different fairness: a penalty's λ buys a different
amount of fairness for each method and dataset, and a constraint's bound is in its own units.
Here, at each level of :data:`MATCHED_MEASURES`, each method and seed is represented by one
model, chosen on the validation rows: the most accurate of its settings that meets the level
there (:func:`choose_at_levels`). That model is then reported on the test rows, with whether it
still meets the level there (:func:`matched_by_seed`). A model no better than a constant
predictor is never chosen, nor ranked (:func:`informative_runs`). The seeds are summarised with
a t-interval, and each method is compared with the best, paired by seed; a difference not shown
to exceed the practical margin is a tie (:func:`matched_table`). :func:`matched_page` writes the
page.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..._records.notions import NOTIONS
from .._hypervolume_table import UNPENALISED, front_cells
from .._metrics import degenerate_runs
from .._plots import figure_name, new_figure
from .._results_tables import dataset_order, method_order
from .._store import check_runs
from ._common import (
    MARGINS,
    MISSING,
    PairedDifference,
    list_table,
    network_values,
    paired_difference,
    save_figure,
    section,
    table_section,
)
from ._tables import notion_title


@dataclass(frozen=True)
class FairnessMeasure:
    """A fairness measure and the levels at which the methods are compared.

    Attributes
    ----------
    name : str
        The measure's name on the page.
    column : str
        The metric (``validation.<column>`` chooses, ``test.<column>`` reports).
    higher_is_fairer : bool
        Whether a higher value is fairer (DI) rather than a lower one (DEO, the score).
    levels : tuple of float
        The levels, from the loosest to the strictest.
    notions : tuple of str
        The notions whose runs are compared on this measure.
    classification_only : bool
        Whether the measure exists for classification only.
    relative_to_network : bool
        Whether a level is a multiple of the unpenalised network's validation value on the
        dataset, notion and seed (:func:`network_values`) rather than a value of the measure.
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
        """The level as the page names it, e.g. ``"DI ≥ 0.8"``; a relative level with its
        threshold (for several seeds, their mean).

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

    def unfairness(self, values: Any) -> np.ndarray:
        """Values of the measure turned so that lower is fairer (NaN stays NaN)."""
        array = np.asarray(values, dtype=float)
        return -array if self.higher_is_fairer else array


#: The measures and levels of the comparison. DI (the ratio of the lowest group positive rate
#: to the highest) at 0.8, the four-fifths rule, and 0.9 under DP; DEO at 0.05 and 0.02 under
#: EO; the chance-adjusted FairCOCCO score under the run's notion at half and a quarter of the
#: unpenalised network's validation score on the same seed, since the score's scale differs
#: between datasets.
MATCHED_MEASURES: tuple[FairnessMeasure, ...] = (
    FairnessMeasure("DI", "di", True, (0.8, 0.9), ("dp",), True, False),
    FairnessMeasure("DEO", "deo", False, (0.05, 0.02), ("eo",), True, False),
    FairnessMeasure(
        "adjusted score", "faircocco_adjusted", False, (0.5, 0.25), NOTIONS, False, True
    ),
)
#: Coverage of the t-intervals over seeds.
CONFIDENCE = 0.95
#: A classification metric reported beside accuracy, at the same models.
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
SEED_COLUMNS: tuple[str, ...] = (
    *_LEVEL_COLUMNS,
    "seed",
    "chosen",
    "value",
    SECONDARY,
    "fairness",
    "meets_test",
    "informative_test",
)
#: Columns of :func:`matched_table`.
MATCHED_COLUMNS: tuple[str, ...] = (
    *_LEVEL_COLUMNS,
    "seeds",
    "chosen",
    "meets_test",
    "informative_test",
    "mean",
    "low",
    "high",
    SECONDARY,
    "ranked",
    "best",
    "tied",
    "difference",
    "difference_low",
    "difference_high",
    "paired",
)


def informative_runs(runs: pd.DataFrame, part: str) -> pd.Series:
    """Which runs beat a constant predictor on an evaluated part's rows.

    A classifier must be at least as accurate as predicting the part's majority class
    (``max(base_rate, 1 − base_rate)``) and have a balanced accuracy above 0.5, which every
    constant predictor has; a regression must not be degenerate (:func:`degenerate_runs`: no
    better than the part's mean, or without spread). A classifier without these values is not
    informative.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs` or :func:`runs_of_export`.
    part : {"validation", "test"}

    Returns
    -------
    pandas.Series of bool
        Indexed like ``runs``.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._matched import informative_runs
    >>> runs = pd.DataFrame({
    ...     "test.accuracy": [0.80, 0.86, 0.90], "test.balanced_accuracy": [0.7, 0.6, 0.5],
    ...     "test.base_rate": [0.15, 0.15, 0.10],
    ... })
    >>> informative_runs(runs, "test").tolist()  # below 0.85; above it; at chance
    [False, True, False]
    """

    def column(metric: str) -> pd.Series:
        name = f"{part}.{metric}"
        if name not in runs.columns:
            return pd.Series(math.nan, index=runs.index)
        return pd.to_numeric(runs[name], errors="coerce").astype(float)

    accuracy, base_rate = column("accuracy"), column("base_rate")
    constant = np.maximum(base_rate, 1.0 - base_rate)
    classifier = (accuracy >= constant) & (column(SECONDARY) > 0.5)
    return classifier.where(accuracy.notna(), ~degenerate_runs(runs, part)).astype(bool)


def choose_at_levels(
    unfairness: Any, performance: Any, bounds: Any, *, order: Any = None
) -> np.ndarray:
    """For each bound, the candidate of best performance among those at most that unfair.

    Parameters
    ----------
    unfairness, performance : array-like of shape (n,)
        The candidates' validation values, unfairness turned so that lower is fairer
        (:meth:`FairnessMeasure.unfairness`) and performance so that higher is better. A NaN
        unfairness meets no bound; a NaN performance is worst.
    bounds : array-like of shape (k,)
        The largest unfairness each choice may have.
    order : array-like of shape (n,), optional
        The last tie-break (after the fairer candidate): the smaller value wins; the position
        by default.

    Returns
    -------
    numpy.ndarray of int, shape (k,)
        The index of the chosen candidate for each bound, −1 where none meets it.

    Examples
    --------
    >>> from faircocco_plugins.bench.paper._matched import choose_at_levels
    >>> deo, accuracy = [0.02, 0.10, 0.06], [0.70, 0.80, 0.74]
    >>> choose_at_levels(deo, accuracy, [0.2, 0.08, 0.05, 0.01]).tolist()
    [1, 2, 0, -1]
    """
    x = np.asarray(unfairness, dtype=float)
    y = np.asarray(performance, dtype=float)
    limits = np.asarray(bounds, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(
            f"unfairness and performance must be 1-D of one length; got {x.shape} and {y.shape}."
        )
    if x.size == 0:
        return np.full(limits.size, -1)
    last = np.arange(x.size) if order is None else np.asarray(order)
    # best performance first, then the fairer, then the tie-break
    ranked = np.lexsort((last, np.nan_to_num(x, nan=np.inf), -np.nan_to_num(y, nan=-np.inf)))
    meets = x[ranked][None, :] <= limits.reshape(-1, 1)  # NaN compares False: never meets
    first = np.argmax(meets, axis=1)
    return np.where(meets.any(axis=1), ranked[first], -1)


def matched_by_seed(
    runs: pd.DataFrame, measures: Sequence[FairnessMeasure] = MATCHED_MEASURES
) -> pd.DataFrame:
    """Each method's model at each fairness level of ``measures``, per seed.

    On each dataset and notion, a method's candidates on a seed are all its successful runs
    (every setting of its parameters) that beat a constant predictor on the validation rows
    (:func:`informative_runs`). At a level, the chosen model is the most accurate candidate on
    the validation rows (the highest R² for regression) whose validation value of the measure
    meets the level (:func:`choose_at_levels`; ties go to the fairer, then the smaller run id).
    No test number takes part in the choice, and no model is made up between two others. A
    relative level is a multiple of the network's validation score on the same seed
    (:func:`network_values`): a seed without a network run has none, and where that score is 0
    (the chance adjustment floors it on a small validation part) the level is 0.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs` or :func:`runs_of_export`.
    measures : sequence of FairnessMeasure
        The measures and their levels; by default :data:`MATCHED_MEASURES`.

    Returns
    -------
    pandas.DataFrame
        One row per dataset, notion, measure, level, method and seed with a successful run,
        with the columns of :data:`SEED_COLUMNS`: ``performance`` is the metric's name
        (``accuracy`` or ``r2``), ``threshold`` the level's value on the measure on this seed,
        ``chosen`` whether a candidate meets it on validation; of the chosen model on the test
        rows, ``value`` the performance, ``balanced_accuracy`` (NaN for regression),
        ``fairness`` the measure, ``meets_test`` whether it still meets the level and
        ``informative_test`` whether it beats a constant predictor there (NaN and False where
        none is chosen).

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._matched import matched_by_seed
    >>> runs = pd.DataFrame({
    ...     "run_id": ["a", "b"], "dataset": "german", "notion": "eo", "method": "faircocco",
    ...     "status": "ok", "seed": 0, "params": [{"lam": 1.0}, {"lam": 5.0}],
    ...     "validation.accuracy": [0.76, 0.72], "validation.balanced_accuracy": 0.6,
    ...     "validation.base_rate": 0.3, "validation.deo": [0.04, 0.01],
    ...     "test.accuracy": [0.74, 0.73], "test.balanced_accuracy": 0.6,
    ...     "test.base_rate": 0.3, "test.deo": [0.06, 0.02],
    ... })
    >>> table = matched_by_seed(runs)
    >>> table[["level", "value", "fairness", "meets_test"]].values.tolist()
    [[0.05, 0.74, 0.06, False], [0.02, 0.73, 0.02, True]]
    """
    check_runs(runs, ("dataset", "notion", "method", "seed", "status", "params"))
    references = {m.column: network_values(runs, m.column) for m in measures}
    rows: list[dict[str, Any]] = []
    for cell in front_cells(runs):
        performance = "accuracy" if cell.task == "classification" else "r2"
        for measure in measures:
            if not measure.applies(cell.notion, cell.task):
                continue
            for method, seed, points in _seed_points(cell.runs, measure, performance):
                scale = _scale(measure, references[measure.column], cell.dataset, cell.notion, seed)
                if math.isnan(scale):
                    continue
                thresholds = [level * scale for level in measure.levels]
                bounds = measure.unfairness(thresholds)
                chosen = points.choose(bounds)
                for level, threshold, bound, index in zip(
                    measure.levels, thresholds, bounds, chosen, strict=True
                ):
                    rows.append(
                        {
                            "dataset": cell.dataset,
                            "notion": cell.notion,
                            "performance": performance,
                            "measure": measure.name,
                            "level": level,
                            "threshold": threshold,
                            "method": method,
                            "seed": seed,
                            **points.on_test(int(index), float(bound)),
                        }
                    )
    return pd.DataFrame(rows, columns=list(SEED_COLUMNS))


def matched_table(runs: pd.DataFrame, *, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Per method and fairness level: the test performance of the models chosen on validation.

    The mean of :func:`matched_by_seed`'s values over the seeds where a model meets the level
    on validation, with the t-interval of the mean over those seeds (``mean ± t · s / √k``,
    ``t`` the ``(1 + confidence) / 2`` quantile of Student's t with ``k − 1`` degrees of
    freedom; none for one seed). A method is *ranked* at a level when it has a chosen model on
    every seed it ran and each beats a constant predictor on the test rows: a mean over some
    seeds only would be over its better seeds. The best is the most accurate ranked method
    (highest R² for regression); each method's difference to it is paired by seed
    (:func:`paired_difference`), and a ranked method is *tied* with the best where its paired
    interval does not lie wholly below minus the practical margin (:data:`MARGINS`): the seeds
    do not show it worse by more than the margin.

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
        :data:`MATCHED_COLUMNS`: ``threshold``, the level's value on the measure (its mean over
        seeds for a relative level); ``seeds``, the seeds with a successful run; ``chosen``,
        those with a model meeting the level on validation; ``meets_test`` and
        ``informative_test``, how many of those models still meet it on the test rows and beat
        a constant predictor there; ``mean``, ``low``, ``high`` of the test performance over
        the chosen seeds (NaN when none; ``low`` and ``high`` NaN for one seed); the mean
        balanced accuracy; ``ranked``, ``best`` and ``tied``; and ``difference`` (this method
        less the best) with its interval over the ``paired`` seeds both have, NaN without a
        best (``paired`` 0).

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._matched import matched_table
    >>> runs = pd.DataFrame({
    ...     "run_id": list("abcd"), "dataset": "german", "notion": "eo",
    ...     "method": "faircocco", "status": "ok", "seed": [0, 0, 1, 1],
    ...     "params": [{"lam": 1.0}, {"lam": 5.0}] * 2,
    ...     "validation.accuracy": [0.76, 0.72] * 2, "validation.balanced_accuracy": 0.6,
    ...     "validation.base_rate": 0.3, "validation.deo": [0.04, 0.03, 0.04, 0.01],
    ...     "test.accuracy": [0.74, 0.73, 0.76, 0.71], "test.balanced_accuracy": 0.6,
    ...     "test.base_rate": 0.3, "test.deo": [0.06, 0.02, 0.04, 0.03],
    ... })
    >>> table = matched_table(runs)  # at DEO 0.02 seed 0 has no model
    >>> table[["level", "chosen", "meets_test", "mean", "best"]].values.tolist()
    [[0.05, 2, 1, 0.75, True], [0.02, 1, 0, 0.71, False]]
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}.")
    by_seed = matched_by_seed(runs)
    keys = ["dataset", "notion", "measure", "level"]
    parts = [_level_rows(level, confidence) for _, level in by_seed.groupby(keys, sort=False)]
    if not parts:
        return pd.DataFrame({name: pd.Series(dtype=object) for name in MATCHED_COLUMNS})
    return pd.concat(parts, ignore_index=True)[list(MATCHED_COLUMNS)]


def matched_page(runs: pd.DataFrame, out: Path, *, plots: bool = True) -> list[str]:
    """The body of the page of performance at matched fairness (after its head) as
    reStructuredText lines, from the study's runs (:func:`runs_of_export`); with ``plots``
    (needs matplotlib), draws a figure per dataset and notion into ``out / "matched"``,
    ``out`` being the page's folder."""
    table = matched_table(runs)
    lines = _intro(plots, set(table["notion"]))
    lines += _standing(table)
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


@dataclass(frozen=True)
class _Points:
    """One method's candidates on one seed: their validation values, which choose, and their
    test values, which report (the columns of :func:`_points_frame`)."""

    frame: pd.DataFrame

    @property
    def unfairness(self) -> np.ndarray:
        """The candidates' validation unfairness (lower is fairer)."""
        return self.frame["unfairness"].to_numpy(dtype=float)

    @property
    def test_values(self) -> np.ndarray:
        """The candidates' test performance."""
        return self.frame["value"].to_numpy(dtype=float)

    def choose(self, bounds: Any) -> np.ndarray:
        """:func:`choose_at_levels` of these candidates."""
        f = self.frame
        return choose_at_levels(
            f["unfairness"], f["performance"], bounds, order=f["run_id"].to_numpy()
        )

    def on_test(self, index: int, bound: float) -> dict[str, Any]:
        """The test values of the candidate at ``index`` (none for −1) against ``bound``, the
        level as an unfairness."""
        if index < 0:
            return {
                "chosen": False,
                "value": math.nan,
                SECONDARY: math.nan,
                "fairness": math.nan,
                "meets_test": False,
                "informative_test": False,
            }
        row = self.frame.iloc[index]
        return {
            "chosen": True,
            "value": float(row["value"]),
            SECONDARY: float(row[SECONDARY]),
            "fairness": float(row["fairness"]),
            "meets_test": bool(row["test_unfairness"] <= bound),
            "informative_test": bool(row["informative_test"]),
        }


def _seed_points(
    cell: pd.DataFrame, measure: FairnessMeasure, performance: str
) -> Iterator[tuple[str, int, _Points]]:
    """(method, seed, candidates) for every method and seed of a cell with a successful run;
    the candidates are the runs that beat a constant predictor on validation."""
    frame = _points_frame(cell, measure, performance)
    groups = dict(list(frame.groupby(["method", "seed"], sort=False)))
    for method in method_order(frame["method"]):
        for seed in sorted({int(s) for s in frame.loc[frame["method"] == method, "seed"]}):
            group = groups[(method, seed)]
            yield method, seed, _Points(group[group["candidate"]].reset_index(drop=True))


def _points_frame(cell: pd.DataFrame, measure: FairnessMeasure, performance: str) -> pd.DataFrame:
    """The few columns of a cell's runs that choose and report a model at a level."""
    identity = cell["run_id"] if "run_id" in cell.columns else pd.Series(cell.index, cell.index)
    fairness = _column(cell, "test", measure.column)
    return pd.DataFrame(
        {
            "method": cell["method"].astype(str),
            "seed": cell["seed"].astype(int),
            "run_id": identity.astype(str),
            "candidate": informative_runs(cell, "validation"),
            "unfairness": measure.unfairness(_column(cell, "validation", measure.column)),
            "performance": _column(cell, "validation", performance),
            "value": _column(cell, "test", performance),
            SECONDARY: _column(cell, "test", SECONDARY),
            "fairness": fairness,
            "test_unfairness": measure.unfairness(fairness),
            "informative_test": informative_runs(cell, "test"),
        },
        index=cell.index,
    )


def _scale(
    measure: FairnessMeasure, references: pd.Series, dataset: str, notion: str, seed: int
) -> float:
    """What a level of the measure is multiplied by on a seed: 1, or for a relative level the
    network's validation score (NaN without a network run)."""
    if not measure.relative_to_network:
        return 1.0
    return float(references.get((dataset, notion, seed), math.nan))


def _column(runs: pd.DataFrame, part: str, metric: str) -> np.ndarray:
    name = f"{part}.{metric}"
    if name not in runs.columns:
        return np.full(len(runs), math.nan)
    return runs[name].to_numpy(dtype=float)


def _level_rows(level: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """The rows of :func:`matched_table` for one dataset, notion, measure and level."""
    performance = str(level["performance"].iloc[0])
    margin = MARGINS[performance].of()
    by_method = {
        str(method): group.set_index("seed")
        for method, group in level.groupby("method", sort=False)
    }
    head = {
        name: level[name].iloc[0]
        for name in ("dataset", "notion", "performance", "measure", "level")
    }
    rows: list[dict[str, Any]] = []
    for method, seeds in by_method.items():
        chosen = seeds[seeds["chosen"].astype(bool)]
        low, high = _interval(chosen["value"].to_numpy(dtype=float), confidence)
        rows.append(
            {
                **head,
                "threshold": float(seeds["threshold"].mean()),
                "method": method,
                "seeds": len(seeds),
                "chosen": len(chosen),
                "meets_test": int(chosen["meets_test"].astype(bool).sum()),
                "informative_test": int(chosen["informative_test"].astype(bool).sum()),
                "mean": float(chosen["value"].mean()) if len(chosen) else math.nan,
                "low": low,
                "high": high,
                SECONDARY: float(chosen[SECONDARY].mean()) if len(chosen) else math.nan,
            }
        )
    table = pd.DataFrame(rows)
    table["ranked"] = (
        (table["chosen"] == table["seeds"])
        & (table["informative_test"] == table["seeds"])
        & table["mean"].notna()
    )
    differences = [(math.nan, math.nan, math.nan, 0)] * len(table)
    table["best"] = False
    table["tied"] = False
    ranked = table[table["ranked"]]
    if not ranked.empty:
        # equal means go to the first method in the tables' order
        best = str(ranked.sort_values("mean", ascending=False, kind="stable")["method"].iloc[0])
        table["best"] = table["method"] == best
        for index, method in enumerate(table["method"]):
            paired = paired_difference(
                by_method[method]["value"], by_method[best]["value"], confidence=confidence
            )
            differences[index] = (paired.mean, paired.low, paired.high, paired.n)
    table[["difference", "difference_low", "difference_high", "paired"]] = pd.DataFrame(
        differences, index=table.index
    )
    # a difference not shown to exceed the margin (no interval shows nothing) is a tie
    shown_worse = table["difference_high"] < -margin
    table["tied"] = table["ranked"] & ~table["best"] & ~shown_worse
    return table


def _figure(runs: pd.DataFrame, cell: pd.DataFrame, out: Path) -> list[str]:
    """Draw each method's mean test performance over seeds against the level of the cell's
    first measure, where all of its seeds have a model meeting the level on validation; the
    table's levels are dotted lines."""
    first = cell.iloc[0]
    dataset, notion = str(first["dataset"]), str(first["notion"])
    measure = next(m for m in MATCHED_MEASURES if m.name == first["measure"])
    curves = matched_curves(runs, dataset, notion, measure, str(first["performance"]))
    if curves is None:
        return []
    figure, [[axes]] = new_figure((8.4, 4.8))
    title = f"{dataset}, {notion_title(notion)}"
    draw_matched_curves(axes, curves, title)
    figure.legend(loc="outside right upper", fontsize=6)
    alt = f"{title}: performance at matched {measure.name}"
    name = figure_name(dataset, notion)
    return save_figure(figure, out, FIGURE_FOLDER, name, alt, width="90%", dpi=120)


@dataclass(frozen=True)
class MatchedCurves:
    """Each method's mean test performance over seeds of the model chosen on validation at
    each level of a grid (NaN where some seed has none): what :func:`draw_matched_curves`
    draws."""

    measure: FairnessMeasure
    performance: str
    #: The levels, in the measure's units or, for a relative measure, in multiples of the
    #: network's validation value on each seed.
    grid: np.ndarray
    means: dict[str, np.ndarray]


def matched_curves(
    runs: pd.DataFrame, dataset: str, notion: str, measure: FairnessMeasure, performance: str
) -> MatchedCurves | None:
    """The curves of one dataset, notion and measure (``performance`` is ``"accuracy"`` or
    ``"r2"``): at each level the model of :func:`matched_by_seed`, chosen on the validation
    rows; None where no method has a curve."""
    ok = runs[(runs["status"] == "ok") & (runs["dataset"] == dataset) & (runs["notion"] == notion)]
    references = network_values(runs, measure.column)  # of the measure: it scales its levels
    seeds = [
        (method, points, _scale(measure, references, dataset, notion, seed))
        for method, seed, points in _seed_points(ok, measure, performance)
    ]
    seeds = [(method, points, scale) for method, points, scale in seeds if not math.isnan(scale)]
    grid = _figure_grid(measure, seeds)
    if grid is None:
        return None
    curves: dict[str, list[np.ndarray]] = {}
    for method, points, scale in seeds:
        chosen = points.choose(measure.unfairness(grid * scale))
        values = np.append(points.test_values, math.nan)
        curves.setdefault(method, []).append(values[chosen])  # −1, no model: the NaN
    means = {method: np.vstack(per_seed).mean(axis=0) for method, per_seed in curves.items()}
    # a level some seed has no model for is NaN: no mean over the better seeds
    means = {method: mean for method, mean in means.items() if not np.isnan(mean).all()}
    return MatchedCurves(measure, performance, grid, means) if means else None


def draw_matched_curves(
    axes: Any,
    curves: MatchedCurves,
    title: str,
    *,
    methods: Sequence[str] | None = None,
    emphasis: str | None = None,
) -> None:
    """Draw the curves on matplotlib axes, with the measure's levels as dotted lines.

    A method's colour and line style follow its place in ``methods`` (by default the curves'
    own order), so that several panels given the same ``methods`` agree; the ``emphasis``
    method's line is drawn solid black and thicker, above the others. A dot marks the fairest
    level each method reaches, which a curve of one level would otherwise not show."""
    measure = curves.measure
    places = {method: i for i, method in enumerate(methods or curves.means)}
    fairest = np.argmax if measure.higher_is_fairer else np.argmin
    for method, mean in curves.means.items():
        index = places[method]
        # ten colours, then the same colours dashed, then dotted
        style = ("-", "--", ":")[index // 10 % 3]
        colour, width, order = f"C{index % 10}", 1.2, 2
        if method == emphasis:
            style, colour, width, order = "-", "black", 2.6, 3
        line = {"color": colour, "zorder": order}
        axes.plot(curves.grid, mean, style, linewidth=width, label=method, **line)
        reached = np.isfinite(mean)
        at = fairest(curves.grid[reached])
        axes.plot(curves.grid[reached][at], mean[reached][at], "o", markersize=3.5, **line)
    for level in measure.levels:
        axes.axvline(level, color="0.5", linestyle=":", linewidth=0.8)
    axes.set_title(title)
    fairer = "higher" if measure.higher_is_fairer else "lower"
    unit = f" (× {UNPENALISED}'s)" if measure.relative_to_network else ""
    axes.set_xlabel(f"validation {measure.name} level{unit} ({fairer} is fairer)")
    name = "accuracy" if curves.performance == "accuracy" else "R²"
    axes.set_ylabel(f"test {name} of the model chosen, mean over seeds")
    axes.grid(True, alpha=0.3)


def _figure_grid(
    measure: FairnessMeasure, seeds: list[tuple[str, _Points, float]]
) -> np.ndarray | None:
    """Levels from the fairest candidate to the network's least fair one (looser levels change
    nothing), in the measure's units or, for a relative measure, in multiples of the network's
    value on each seed; None without candidates."""
    scaled = [(method, points.unfairness / scale) for method, points, scale in seeds if scale > 0]
    every = _finite([values for _, values in scaled])
    network = _finite([values for method, values in scaled if method == UNPENALISED])
    if every.size == 0:
        return None
    grid = np.linspace(every.min(), (network if network.size else every).max(), FIGURE_GRID)
    return -grid if measure.higher_is_fairer else grid


def _finite(arrays: list[np.ndarray]) -> np.ndarray:
    values = np.concatenate(arrays) if arrays else np.array([])
    return values[np.isfinite(values)]


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


def _intro(plots: bool, notions: set[str]) -> list[str]:
    """The page's opening; each measure's notions are those of ``notions`` (the study's)."""
    levels = "; ".join(
        f"{measure.name} ({', '.join(f'{level:g}' for level in measure.levels)}"
        + (" times the network's validation value" if measure.relative_to_network else "")
        + f") under {', '.join(n.upper() for n in measure.notions if n in notions)}"
        + (" on classification" if measure.classification_only else "")
        for measure in MATCHED_MEASURES
        if notions.intersection(measure.notions)
    )
    margins = ", ".join(
        f"{MARGINS[name].absolute:g} of {label}"
        for name, label in (("accuracy", "accuracy"), ("r2", "R²"))
    )
    lines = [
        "The methods are compared where they are equally fair, not at one strength: a "
        "penalty's λ buys a different amount of fairness for each method and dataset, and a "
        "constraint's bound is in its own units, so a table at one λ compares models at "
        "different fairness and rewards the least fair.",
        "",
        f"The levels: {levels}. DI is the lowest group positive rate over the highest (0.8 is "
        "the four-fifths rule; higher is fairer), DEO and the chance-adjusted FairCOCCO score "
        "are lower when fairer. The score's levels are relative because its scale differs "
        "between datasets: on each seed, a multiple of the unpenalised network's (nn) "
        "validation score on that seed, the reference every results page uses (where that "
        "score is 0, as the chance adjustment can make it on a small validation part, the "
        "level is 0); the level's name gives the mean over seeds of its value.",
        "",
        "**Chosen on validation.** At each level, each method and seed is represented by one "
        "model: of all the settings the method ran on that seed, the most accurate on the "
        "validation rows (the highest R² for regression) among those that meet the level on "
        "the validation rows. That model is then reported on the test rows, with whether it "
        "still meets the level there. No test number takes part in the choice, and no model "
        "is made up between two others. A model less accurate than always predicting the "
        "majority class, or with a balanced accuracy of 0.5 or less (a regression no better "
        "than the mean), on the validation rows is never chosen.",
        "",
        "**Ranked on test.** A method is ranked at a level when it has a chosen model on every "
        "seed it ran and each beats a constant predictor on the test rows too; a method with "
        "models on some seeds only would be averaged over its better seeds. The best (**best**) "
        "is the ranked method with the highest mean test accuracy (R²). Every other method's "
        f"difference to it is paired by seed, with its {CONFIDENCE:.0%} t-interval; a ranked "
        "method is *tied* with the best unless the interval lies wholly below minus the "
        f"practical margin ({margins}; the margins of the claims page), that is unless the "
        "seeds show it worse by more than the margin.",
        "",
    ]
    if plots:
        lines += [
            "Each figure draws, for the first measure of its dataset and notion, each method's "
            "mean test performance over seeds of the model chosen at each validation level "
            "where all of its seeds have one, up to the network's least fair value; a dot "
            "marks the fairest level a method reaches, and dotted lines the tables' levels.",
            "",
        ]
    return lines


def _standing(table: pd.DataFrame) -> list[str]:
    """Per method and measure, the levels where it is the best and where it is tied."""
    levels = table.drop_duplicates(["dataset", "notion", "measure", "level"])
    decided = table[table["best"]].drop_duplicates(["dataset", "notion", "measure", "level"])
    names = [m.name for m in MATCHED_MEASURES if m.name in set(levels["measure"])]
    counts = {name: int((decided["measure"] == name).sum()) for name in names}
    rows = []
    for method in method_order(table["method"]):
        of_method = table[table["method"] == method]
        if not (of_method["best"] | of_method["tied"]).any():
            continue
        cells = [
            f"{int(of_method.loc[of_method['measure'] == name, 'best'].sum())} / "
            f"{int(of_method.loc[of_method['measure'] == name, 'tied'].sum())}"
            for name in names
        ]
        rows.append([method, *cells])
    header = ["Method", *(f"{name}: best / tied (of {counts[name]})" for name in names)]
    lines = table_section(
        "Standing by measure",
        "How often each method is the best at a level, or tied with the best, by fairness "
        "measure, out of the levels where some method is ranked "
        f"({sum(counts.values())} of {len(levels)}; at the others no method has a model "
        "that meets the level on every seed and beats a constant predictor). Methods never "
        "best nor tied are left out.",
        header,
        rows,
    )
    return lines


def _best_summary(table: pd.DataFrame) -> list[str]:
    """One row per dataset, notion and level: the best method, those tied with it, FairCOCCO's
    difference to the best, and the network."""
    rows = []
    for (dataset, notion, _, _), level in table.groupby(
        ["dataset", "notion", "measure", "level"], sort=False
    ):
        best = level[level["best"]]
        tied = level[level["tied"]]
        network = level[level["method"] == UNPENALISED]
        ours = level[level["method"] == "faircocco"]
        rows.append(
            [
                str(dataset),
                notion_title(str(notion)),
                _label(level.iloc[0]),
                _named(best),
                ", ".join(tied["method"]) or MISSING,
                _standing_of(ours.iloc[0]) if len(ours) else MISSING,
                _estimate(network.iloc[0], seeds=True) if len(network) else MISSING,
            ]
        )
    return table_section(
        "The best method at each level",
        "The best method (its mean test accuracy, or R² for regression, with its interval and "
        "the seeds with a chosen model), the methods tied with it, FairCOCCO's standing (its "
        "difference to the best, paired by seed) and the network's own performance where it "
        "meets the level.",
        ["Dataset", "Notion", "Level", "Best", "Tied with the best", "FairCOCCO", "Network (nn)"],
        rows,
    )


def _standing_of(row: Any) -> str:
    """A method's standing at a level: best, tied, worse by a difference, or not ranked."""
    if row["best"]:
        return "**best**"
    difference = PairedDifference(
        row["difference"], row["difference_low"], row["difference_high"], int(row["paired"])
    )
    if row["tied"]:
        return f"tie: {difference.text()}"
    if row["ranked"]:
        return difference.text()
    return f"not ranked ({_why_not_ranked(row)})"


def _why_not_ranked(row: Any) -> str:
    if row["chosen"] < row["seeds"]:
        return f"a model on {row['chosen']} of {row['seeds']} seeds"
    if row["informative_test"] < row["seeds"]:
        below = row["seeds"] - row["informative_test"]
        return f"below a constant predictor on the test rows of {below} seeds"
    return "no ranked method"


def _named(rows: pd.DataFrame) -> str:
    """``"faircocco: 0.842 [0.80, 0.88] (5 of 5)"`` for the first row, or :data:`MISSING`."""
    if rows.empty:
        return MISSING
    return f"{rows['method'].iloc[0]}: {_estimate(rows.iloc[0], seeds=True)}"


def _level_table(level: pd.DataFrame) -> list[str]:
    first = level.iloc[0]
    if not (level["chosen"] > 0).any():
        return [f"{_label(first)}: no method has a model that meets this level on any seed.", ""]
    classification = first["performance"] == "accuracy"
    rows = []
    for row in level.to_dict("records"):
        cells = [
            str(row["method"]),
            f"{row['chosen']} of {row['seeds']}",
            f"{row['meets_test']} of {row['chosen']}" if row["chosen"] else MISSING,
            _estimate(row),
        ]
        if classification:
            cells.append(_number(row[SECONDARY]))
        cells.append(_standing_of(row))
        rows.append(cells)
    metric = "Accuracy" if classification else "R²"
    header = [
        "Method",
        "Seeds with a model",
        "Still meeting it on test",
        f"Test {metric.lower() if classification else metric} ({CONFIDENCE:.0%} t-interval)",
    ]
    if classification:
        header.append("Balanced accuracy")
    header.append("Difference to the best (paired)")
    return list_table(header, rows, title=_label(first))


def _label(row: Any) -> str:
    measure = next(m for m in MATCHED_MEASURES if m.name == row["measure"])
    return measure.label(float(row["level"]), float(row["threshold"]))


def _estimate(row: Any, *, seeds: bool = False) -> str:
    """``"0.812 [0.805, 0.819]"``, the mean alone for one seed; with ``seeds``, the seeds
    with a chosen model after it, as ``"— (0 of 5)"`` where none has one."""
    text = _number(row["mean"])
    if not math.isnan(row["low"]):
        text += f" [{row['low']:.3f}, {row['high']:.3f}]"
    return f"{text} ({row['chosen']} of {row['seeds']})" if seeds else text


def _number(value: float) -> str:
    return MISSING if math.isnan(value) else f"{value:.3f}"
