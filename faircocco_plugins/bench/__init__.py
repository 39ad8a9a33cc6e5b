"""The head-to-head harness: run fairness methods against each other under one protocol.

A study runs every registered method (entry-point group ``faircocco_plugins.mitigators``) on
every dataset, notion, seed and hyper-parameter setting, records one row per run in a SQLite
results store, and selects each method's setting on the validation part only. Parallel
execution uses joblib (local processes), Dask or Ray, imported only when used.

What a method or dataset must provide to take part is the plugin contract,
:mod:`faircocco_plugins.plugins`; this package holds what a harness user calls.
"""

from ._capability_table import capability_table
from ._degenerate_table import degenerate_table
from ._fronts import front_axes, hypervolume, non_dominated
from ._hypervolume_table import hypervolume_table
from ._metrics import (
    CLASSIFICATION_METRICS,
    R2_THRESHOLD,
    REGRESSION_METRICS,
    SPREAD_THRESHOLD,
    degenerate_runs,
    evaluate_predictions,
    metric_names,
)
from ._pareto_points import pareto_points
from ._plots import plot_pareto, plot_pareto_fronts
from ._presets import PAPER_DATASETS, PRESETS, SYNTHETIC_DATASETS, Preset, preset_config
from ._progress import PlainProgress, Progress, RichProgress
from ._report import write_report
from ._results_table_types import ResultsTable, TableBlock, TableCell, TableRow
from ._results_tables import NEAR_CHANCE, results_tables, summarise_runs
from ._runner import StudySummary, run_study
from ._selection import DEFAULT_TOLERANCE, select_runs
from ._store import ResultsStore, RunRecord
from ._study import StudyConfig

__all__ = [
    "CLASSIFICATION_METRICS",
    "DEFAULT_TOLERANCE",
    "NEAR_CHANCE",
    "PAPER_DATASETS",
    "PRESETS",
    "R2_THRESHOLD",
    "REGRESSION_METRICS",
    "SPREAD_THRESHOLD",
    "SYNTHETIC_DATASETS",
    "PlainProgress",
    "Preset",
    "Progress",
    "ResultsStore",
    "ResultsTable",
    "RichProgress",
    "RunRecord",
    "StudyConfig",
    "StudySummary",
    "TableBlock",
    "TableCell",
    "TableRow",
    "capability_table",
    "degenerate_runs",
    "degenerate_table",
    "evaluate_predictions",
    "front_axes",
    "hypervolume",
    "hypervolume_table",
    "metric_names",
    "non_dominated",
    "pareto_points",
    "plot_pareto",
    "plot_pareto_fronts",
    "preset_config",
    "results_tables",
    "run_study",
    "select_runs",
    "summarise_runs",
    "write_report",
]
