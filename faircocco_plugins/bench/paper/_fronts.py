"""The fronts page: test performance against the chance-adjusted FairCOCCO score over each
method's strength sweep, with the hypervolume each method's runs dominate.

Each method's points are those of :func:`pareto_points` (per sweep value, the setting with the
best mean validation performance, averaged over seeds), with the chance-adjusted score on the
fairness axis: it does not depend on the size of the test part, so fronts of different
datasets compare. Each figure draws a method's mean line with a band of ±1 standard deviation
of the performance over seeds (and horizontal bars of ±1 standard deviation of the score);
degenerate points are crosses. The hypervolumes are :func:`hypervolume_table`'s.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...plugins import NOTIONS
from .._hypervolume_table import hypervolume_table
from .._pareto_points import pareto_points, performance_metric
from .._plots import DEGENERATE_MARKER, figure_name, new_figure, performance_axis_label
from .._results_tables import dataset_order, format_mean_std, method_order
from ._common import MISSING, list_table, save_figure, section
from ._tables import notion_title

#: The panels of the paper's fronts figure (``fig:pareto_curves``): one attribute's score
#: against the MSE under EO.
PAPER_PANELS: tuple[tuple[str, str], ...] = (("communities", "racePctBlack"), ("students", "age"))
#: Folder of the figures, beside the page.
FIGURE_FOLDER = "fronts"


def fronts_page(runs: pd.DataFrame, out: Path, *, plots: bool = True) -> list[str]:
    """The body of the fronts page (after its head) as reStructuredText lines, from the
    study's runs (:func:`runs_of_export`); with ``plots``, draws its figures into
    ``out / "fronts"``, ``out`` being the page's folder (without them the page holds the
    hypervolumes only)."""
    ok = runs[runs["status"] == "ok"]
    colours = _colours(method_order(ok["method"])) if plots else {}
    lines = [
        "Each point is one value of a method's strength (λ for a penalty, the bound of a "
        "constraint, a toolkit's own parameter), at the setting of its other parameters "
        "with the best mean validation performance; the line joins a method's points in "
        "sweep order, the band is ±1 standard deviation of the test performance over seeds "
        "and the bars ±1 standard deviation of the score. Crosses are degenerate on the "
        "test part for some seed. The fairness axis is the chance-adjusted FairCOCCO score "
        "on the test part under the notion (0 is what independent predictions score).",
        "",
        "The hypervolume is the share of the unit box that a method's runs dominate "
        "(performance above chance, against the score divided by the unpenalised network's "
        "on the dataset and notion; each seed's runs make one front, then the mean ± std over "
        "seeds; degenerate runs left out): higher is a better trade-off.",
        "",
    ]
    lines += section("The paper's fronts figure: one attribute at a time")
    lines += [
        "The paper's figure of fronts (``fig:pareto_curves``) draws the Communities and "
        "Crime and the Students datasets with one attribute each. Here each panel is the "
        "chance-adjusted score of that attribute alone (the models are trained for all the "
        "dataset's attributes) under EO.",
        "",
    ]
    for dataset, attribute in PAPER_PANELS:
        cell = ok[(ok["dataset"] == dataset) & (ok["notion"] == "eo")]
        column = _attribute_column(cell, "eo", attribute)
        if column is None:
            lines += [f"{dataset}: no runs with a score for {attribute} under EO.", ""]
            continue
        if plots:
            name = figure_name(dataset, f"eo-{attribute}")
            figure = _draw(cell, "eo", column, colours, f"{dataset}, {attribute}")
            alt = f"{dataset}: {attribute} score against performance, EO"
            lines += save_figure(figure, out, FIGURE_FOLDER, name, alt, width="90%", dpi=120)
    for dataset in dataset_order(ok["dataset"]):
        of_dataset = ok[ok["dataset"] == dataset]
        lines += section(dataset)
        volumes = hypervolume_table(of_dataset)
        for notion in [n for n in NOTIONS if n in set(of_dataset["notion"])]:
            cell = of_dataset[of_dataset["notion"] == notion]
            lines += section(notion_title(notion), "~")
            if plots:
                name = figure_name(dataset, notion)
                column = "test.faircocco_adjusted"  # the export's score of the run's notion
                title = f"{dataset}, {notion_title(notion)}"
                figure = _draw(cell, notion, column, colours, title)
                alt = f"{dataset}: fronts under {notion_title(notion)}"
                lines += save_figure(figure, out, FIGURE_FOLDER, name, alt, width="90%", dpi=120)
            lines += _volumes(volumes[volumes["notion"] == notion])
    return lines


def _colours(methods: tuple[str, ...]) -> dict[str, Any]:
    """One colour per method, the same in every figure."""
    import matplotlib

    # tab10's colours are the most distinct; tab20 only when more methods need one each
    palette = matplotlib.colormaps["tab10" if len(methods) <= 10 else "tab20"]
    return {method: palette(index % palette.N) for index, method in enumerate(methods)}


def _attribute_column(cell: pd.DataFrame, notion: str, attribute: str) -> str | None:
    """The adjusted per-attribute score's column, matching the attribute's name in any case."""
    pattern = re.compile(
        rf"^test\.faircocco_{notion}_adjusted\[{re.escape(attribute)}\]$", re.IGNORECASE
    )
    for name in cell.columns:
        if pattern.match(str(name)) and cell[name].notna().any():
            return str(name)
    return None


def _draw(
    cell: pd.DataFrame,
    notion: str,
    fairness: str,
    colours: dict[str, Any],
    title: str,
) -> Any:
    """Draw one figure of the methods' sweeps in ``cell`` with ``fairness`` on the x axis."""
    # pareto_points reads the notion's score column: give it the one this figure plots
    view = cell.assign(**{f"test.faircocco_{notion}": cell[fairness]})
    dataset = str(cell["dataset"].iloc[0])
    points = pareto_points(view, dataset=dataset, notion=notion)
    performance, _ = performance_metric(cell)
    figure, [[axes]] = new_figure((6.4, 4.8))
    for method in method_order(points["method"]):
        _draw_method(axes, method, points[points["method"] == method], colours[method])
    if (points["degenerate_seeds"] > 0).any():
        axes.plot([], [], "x", color="0.2", label="degenerate on some seed")
    axes.set_title(title)
    axes.set_xlabel("test FairCOCCO score, chance-adjusted (lower is fairer)")
    axes.set_ylabel(performance_axis_label(performance))
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=7)
    return figure


def _draw_method(axes: Any, method: str, points: pd.DataFrame, colour: Any) -> None:
    x = points["fairness_mean"].to_numpy(dtype=float)
    y = points["performance_mean"].to_numpy(dtype=float)
    spread = points["performance_std"].fillna(0.0).to_numpy(dtype=float)
    degenerate = (points["degenerate_seeds"] > 0).to_numpy()
    axes.plot(x, y, "-", color=colour, linewidth=1.2, label=method)
    axes.fill_between(x, y - spread, y + spread, color=colour, alpha=0.2, linewidth=0)
    axes.errorbar(
        x,
        y,
        xerr=points["fairness_std"].fillna(0.0).to_numpy(dtype=float),
        fmt="none",
        ecolor=colour,
        elinewidth=0.6,
    )
    axes.plot(x[~degenerate], y[~degenerate], "o", color=colour, markersize=4)
    axes.plot(x[degenerate], y[degenerate], DEGENERATE_MARKER, color=colour, markersize=8)
    for value, at in zip(points["sweep_value"], zip(x, y, strict=True), strict=True):
        if isinstance(value, int | float) and not isinstance(value, bool):
            # the strength beside its point, so a reader can pick a λ from the figure
            axes.annotate(f"{value:g}", at, textcoords="offset points", xytext=(4, 4), fontsize=7)


def _volumes(volumes: pd.DataFrame) -> list[str]:
    rows = []
    for row in volumes.to_dict("records"):
        rows.append(
            [
                str(row["method"]),
                str(row["seeds"]),
                f"{row['runs']} ({row['runs_degenerate']} degenerate)",
                _mean_std(row["adjusted_mean"], row["adjusted_std"]),
                _mean_std(row["deo_mean"], row["deo_std"]),
            ]
        )
    header = ["Method", "Seeds", "Runs", "Hypervolume (adjusted score)", "Hypervolume (DEO)"]
    return list_table(header, rows, title="Hypervolume of each method's runs")


def _mean_std(mean: float, std: float) -> str:
    return MISSING if np.isnan(mean) else format_mean_std(float(mean), float(std), 3)
