"""Pareto fronts of a study: test fairness against test accuracy (or MSE), one figure each.

Each figure draws the points of :func:`pareto_points`: each method's sweep at the mean test
fairness and performance over seeds, with their standard deviations as error bars and the
points joined in sweep order, the non-dominated front circled and joined by a staircase. A
point whose setting is degenerate on the test part for some seed is drawn as a cross instead of
a dot. Accuracy axes carry a line at the majority rate, the accuracy of always predicting the
majority class.

matplotlib is imported only when a figure is drawn, and draws through its Agg canvas directly,
so the process-wide backend is never changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._file_names import file_name, file_names
from ._metrics import majority_rate
from ._pareto_points import POINT_COLUMNS, pareto_points, performance_metric

#: File formats of each figure.
FIGURE_FORMATS: tuple[str, ...] = ("png", "svg")
#: Marker of the points of degenerate settings (the others are dots).
DEGENERATE_MARKER = "x"
_NOTION_NAMES = {"dp": "demographic parity", "eo": "equalised odds", "cal": "calibration"}


def new_figure(
    size: tuple[float, float], rows: int = 1, columns: int = 1
) -> tuple[Any, list[list[Any]]]:
    """A matplotlib figure of ``rows`` × ``columns`` axes, and the axes by row.

    The figure stays off pyplot's global state, so drawing holds no figure open and
    needs no display.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(figure)
    grid = figure.subplots(rows, columns, squeeze=False)
    return figure, [list(row) for row in grid]


def plot_pareto(
    points: pd.DataFrame,
    path: str | Path,
    *,
    title: str,
    notion: str,
    performance: str,
    methods: Sequence[str] | None = None,
    formats: Sequence[str] = FIGURE_FORMATS,
    majority: float | None = None,
) -> list[Path]:
    """Draw one Pareto figure from :func:`pareto_points` and save it in each format.

    Parameters
    ----------
    points : pandas.DataFrame
        The output of :func:`pareto_points`.
    path : str or Path
        File name without suffix; the folder is created when missing.
    title : str
    notion : {"dp", "eo", "cal"}
        Names the fairness axis.
    performance : {"accuracy", "mse"}
        Names the performance axis.
    methods : sequence of str, optional
        Legend order; a method's colour follows its position here, so passing the same
        sequence to every figure of a report keeps each method's colour. Methods of ``points``
        not listed come after. Default: the order of ``points``.
    formats : sequence of str
        Among ``"png"`` and ``"svg"``.
    majority : float, optional
        The majority rate, the accuracy of always predicting the majority class, drawn as a
        horizontal line on an accuracy axis; ignored for MSE.

    Returns
    -------
    list of Path
        The files written, one per format.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import pareto_points, plot_pareto
    >>> runs = pd.DataFrame({
    ...     "dataset": "german", "notion": "eo", "method": "faircocco", "status": "ok",
    ...     "seed": 0, "params": [{"lam": 0.0}, {"lam": 1.0}],
    ...     "validation.accuracy": [0.75, 0.71], "test.accuracy": [0.76, 0.72],
    ...     "test.faircocco_eo": [0.20, 0.05],
    ... })
    >>> points = pareto_points(runs, dataset="german", notion="eo")
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> files = plot_pareto(points, folder / "german-eo", title="german",
    ...                     notion="eo", performance="accuracy")
    >>> [f.name for f in files]
    ['german-eo.png', 'german-eo.svg']
    """
    unknown = [f for f in formats if f not in FIGURE_FORMATS]
    if unknown or isinstance(formats, str):
        raise ValueError(
            f"formats={formats!r} is not valid; expected a sequence of {list(FIGURE_FORMATS)}."
        )
    if performance not in ("accuracy", "mse"):
        raise ValueError(f"performance={performance!r} is not valid; expected 'accuracy' or 'mse'.")
    if notion not in _NOTION_NAMES:
        raise ValueError(f"notion={notion!r} is not valid; expected one of {list(_NOTION_NAMES)}.")
    if majority is not None and not 0.5 <= majority <= 1.0:
        raise ValueError(f"majority={majority!r} is not valid; expected a rate in [0.5, 1].")
    missing = [c for c in POINT_COLUMNS if c not in points.columns]
    if missing:
        raise ValueError(f"points is missing the columns {missing}; pass pareto_points().")
    import matplotlib

    figure, [[axes]] = new_figure((6.4, 4.8))
    palette = matplotlib.colormaps["tab10"]
    order = [str(m) for m in methods] if methods is not None else []
    order += [str(m) for m in dict.fromkeys(points["method"]) if str(m) not in order]
    for index, method in enumerate(order):
        of_method = points[points["method"] == method]
        if not of_method.empty:
            _draw_method(axes, method, of_method, palette(index % palette.N))
    if (points["degenerate_seeds"] > 0).any():
        # one legend entry for the crosses of every method
        axes.plot(
            [],
            [],
            linestyle="none",
            marker=DEGENERATE_MARKER,
            markersize=7,
            color="0.2",
            label="degenerate on some seed (never on the front)",
        )
    if majority is not None and performance == "accuracy":
        axes.axhline(
            majority,
            linestyle=":",
            color="0.4",
            linewidth=1.2,
            label=f"majority rate {majority:.3f} (always the majority class)",
            zorder=1,
        )
    front = points[points["on_front"]].sort_values("fairness_mean")
    if not front.empty:
        # the boundary of the region the front dominates: a staircase through its points
        axes.plot(
            front["fairness_mean"],
            front["performance_mean"],
            drawstyle="steps-post",
            linestyle="--",
            color="0.2",
            linewidth=1.0,
            label="non-dominated front",
            zorder=1,
        )
        axes.scatter(
            front["fairness_mean"],
            front["performance_mean"],
            s=150,
            facecolors="none",
            edgecolors="0.2",
            linewidths=1.4,
            zorder=4,
        )
    axes.set_title(title)
    axes.set_xlabel(f"test FairCOCCO score, {_NOTION_NAMES[notion]} (lower is fairer)")
    axes.set_ylabel(performance_axis_label(performance))
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    written = []
    # a fixed hash salt and no date: the same points always give the same SVG file
    with matplotlib.rc_context({"svg.hashsalt": "faircocco", "svg.fonttype": "none"}):
        for suffix in formats:
            file = target.with_name(f"{target.name}.{suffix}")
            metadata: dict[str, Any] = {"Date": None} if suffix == "svg" else {}
            figure.savefig(file, format=suffix, dpi=150, metadata=metadata)
            written.append(file)
    return written


def plot_pareto_fronts(
    runs: pd.DataFrame,
    out_dir: str | Path,
    *,
    sweep_params: Mapping[str, str | None] | None = None,
    methods: Sequence[str] | None = None,
    formats: Sequence[str] = FIGURE_FORMATS,
) -> dict[tuple[str, str], list[Path]]:
    """One Pareto figure per dataset and notion with successful runs.

    Accuracy figures draw the majority rate of the runs' test parts (the mean over runs of the
    larger of ``test.base_rate`` and one minus it), when the runs record a base rate.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs` (of one study).
    out_dir : str or Path
        Folder of the figures, named ``<dataset>-<notion>.<format>`` (:func:`figure_name`).
    sweep_params : mapping of str to str or None, optional
        Each method's sweep parameter; see :func:`pareto_points`.
    methods : sequence of str, optional
        Legend order and colours, the same in every figure; default: the methods of ``runs``
        by name.
    formats : sequence of str
        Among ``"png"`` and ``"svg"``.

    Returns
    -------
    dict of (str, str) to list of Path
        The files of each (dataset, notion), in the order datasets and notions appear in
        ``runs``.

    Raises
    ------
    ValueError
        If two datasets would share a figure's file name (``"a b"`` and ``"a_b"``).

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import plot_pareto_fronts
    >>> runs = pd.DataFrame({
    ...     "dataset": "students", "notion": "dp", "method": "facl", "status": "ok",
    ...     "seed": 0, "params": [{"lam": 0.5}, {"lam": 2.0}],
    ...     "validation.mse": [0.30, 0.35], "test.mse": [0.31, 0.36],
    ...     "test.faircocco_dp": [0.12, 0.04],
    ... })
    >>> files = plot_pareto_fronts(runs, tempfile.mkdtemp())
    >>> sorted(files)
    [('students', 'dp')]
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame; got {type(runs).__name__}.")
    written: dict[tuple[str, str], list[Path]] = {}
    order = list(methods) if methods is not None else sorted({str(m) for m in runs["method"]})
    ok = runs[runs["status"] == "ok"] if "status" in runs.columns else runs
    file_names(ok["dataset"].astype(str).unique(), "datasets")  # one figure each
    for (dataset, notion), of_cell in ok.groupby(["dataset", "notion"], sort=False):
        points = pareto_points(
            of_cell, dataset=str(dataset), notion=str(notion), sweep_params=sweep_params
        )
        performance, _ = performance_metric(of_cell)
        if points.empty or performance is None:
            continue
        written[(str(dataset), str(notion))] = plot_pareto(
            points,
            Path(out_dir) / figure_name(str(dataset), str(notion)),
            title=f"{dataset}: {_NOTION_NAMES.get(str(notion), str(notion))}",
            notion=str(notion),
            performance=performance,
            methods=order,
            formats=formats,
            majority=_mean_majority_rate(of_cell),
        )
    return written


def _mean_majority_rate(runs: pd.DataFrame) -> float | None:
    """The runs' mean test majority rate (the base rate differs a little between seeds)."""
    if "test.base_rate" not in runs.columns:
        return None
    rates = majority_rate(runs["test.base_rate"].astype(float)).dropna()
    return float(rates.mean()) if len(rates) else None


def figure_name(dataset: str, notion: str) -> str:
    """The file name (without suffix) of the figure of a dataset and notion.

    Parameters
    ----------
    dataset, notion : str

    Returns
    -------
    str
        The :func:`~faircocco_plugins.bench._file_names.file_name` of
        ``<dataset>-<notion>``: characters other than letters, digits, ``.``, ``_`` and ``-``,
        and leading dots, replaced by ``_``.

    Examples
    --------
    >>> from faircocco_plugins.bench._plots import figure_name
    >>> figure_name("kdd census", "eo")
    'kdd_census-eo'
    """
    return file_name(f"{dataset}-{notion}")


def performance_axis_label(performance: str | None) -> str:
    """The axis label of :func:`performance_metric`'s metric: accuracy, else the MSE."""
    if performance == "accuracy":
        return "test accuracy (higher is better)"
    return "test MSE (lower is better)"


def _draw_method(axes: Any, method: str, points: pd.DataFrame, colour: Any) -> None:
    sweep = points["sweep_param"].iloc[0]
    label = method if sweep is None else f"{method} (sweep: {sweep})"
    degenerate = (points["degenerate_seeds"] > 0).to_numpy()
    axes.errorbar(
        points["fairness_mean"],
        points["performance_mean"],
        xerr=points["fairness_std"].fillna(0.0),
        yerr=points["performance_std"].fillna(0.0),
        fmt="-o",
        markevery=np.flatnonzero(~degenerate).tolist(),
        color=colour,
        markersize=5,
        linewidth=1.2,
        elinewidth=0.8,
        capsize=2,
        label=label,
        zorder=3,
    )
    axes.plot(
        points.loc[degenerate, "fairness_mean"],
        points.loc[degenerate, "performance_mean"],
        linestyle="none",
        marker=DEGENERATE_MARKER,
        markersize=8,
        markeredgewidth=1.8,
        color=colour,
        zorder=5,
    )
    if sweep is None:
        return
    for _, point in points.iterrows():
        axes.annotate(
            _value_text(point["sweep_value"]),
            (point["fairness_mean"], point["performance_mean"]),
            textcoords="offset points",
            xytext=(4, 4),
            fontsize=7,
            color=colour,
        )


def _value_text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
