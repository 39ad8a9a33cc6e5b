"""The head-to-head harness: run fairness methods against each other under one protocol.

A study runs every registered method (entry-point group ``faircocco_plugins.mitigators``) on
every dataset, notion, seed and hyper-parameter setting, records one row per run in a SQLite
results store, and selects each method's setting on the validation part only. Parallel
execution uses joblib (local processes), Dask or Ray, imported only when used.
"""

from ._capability_table import capability_table
from ._degenerate_table import degenerate_table
from ._fronts import front_axes, hypervolume, non_dominated
from ._hypervolume_table import hypervolume_table
from ._metrics import (
    CLASSIFICATION_METRICS,
    REGRESSION_METRICS,
    SPREAD_THRESHOLD,
    attribute_groups,
    degenerate_runs,
    disparate_impact,
    equal_opportunity_gap,
    evaluate_predictions,
    metric_names,
)
from ._plots import pareto_points, plot_pareto, plot_pareto_fronts
from ._presets import PAPER_DATASETS, PRESETS, SYNTHETIC_DATASETS, Preset, preset_config
from ._progress import PlainProgress, Progress, RichProgress, default_progress, format_duration
from ._protocol import (
    ENTRY_POINT_GROUP,
    KINDS,
    NOTIONS,
    TASKS,
    TRAINING_SETTINGS,
    BrokenMethodWarning,
    Capabilities,
    MethodLoadError,
    MethodSpec,
    Mitigator,
    attribute_kind,
    available_methods,
    outcome_kind,
)
from ._report import write_report
from ._results_tables import (
    ResultsTable,
    TableBlock,
    TableCell,
    TableRow,
    results_tables,
    summarise_runs,
)
from ._runner import PeakMemory, RegistryLoader, StudySummary, execute_cell, run_study
from ._selection import DEFAULT_TOLERANCE, params_key, select_runs
from ._store import RUN_COLUMNS, STATUSES, ResultsStore, RunRecord
from ._study import Cell, DatasetProfile, StudyConfig, plan_study, run_id, select_methods

__all__ = [
    "CLASSIFICATION_METRICS",
    "DEFAULT_TOLERANCE",
    "ENTRY_POINT_GROUP",
    "KINDS",
    "NOTIONS",
    "PAPER_DATASETS",
    "PRESETS",
    "REGRESSION_METRICS",
    "RUN_COLUMNS",
    "SPREAD_THRESHOLD",
    "STATUSES",
    "SYNTHETIC_DATASETS",
    "TASKS",
    "TRAINING_SETTINGS",
    "BrokenMethodWarning",
    "Capabilities",
    "Cell",
    "DatasetProfile",
    "MethodLoadError",
    "MethodSpec",
    "Mitigator",
    "PeakMemory",
    "PlainProgress",
    "Preset",
    "Progress",
    "RegistryLoader",
    "ResultsStore",
    "ResultsTable",
    "RichProgress",
    "RunRecord",
    "StudyConfig",
    "StudySummary",
    "TableBlock",
    "TableCell",
    "TableRow",
    "attribute_groups",
    "attribute_kind",
    "available_methods",
    "capability_table",
    "default_progress",
    "degenerate_runs",
    "degenerate_table",
    "disparate_impact",
    "equal_opportunity_gap",
    "evaluate_predictions",
    "execute_cell",
    "format_duration",
    "front_axes",
    "hypervolume",
    "hypervolume_table",
    "metric_names",
    "non_dominated",
    "outcome_kind",
    "params_key",
    "pareto_points",
    "plan_study",
    "plot_pareto",
    "plot_pareto_fronts",
    "preset_config",
    "results_tables",
    "run_id",
    "run_study",
    "select_methods",
    "select_runs",
    "summarise_runs",
    "write_report",
]
