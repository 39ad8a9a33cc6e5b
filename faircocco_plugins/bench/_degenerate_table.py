"""How many of each method's runs are degenerate: of those selected, and of all."""

from __future__ import annotations

import pandas as pd

from ._metrics import degenerate_runs
from ._results_tables import method_order
from ._selection import DEFAULT_TOLERANCE, select_runs

#: Columns of :func:`degenerate_table`.
DEGENERATE_COLUMNS: tuple[str, ...] = (
    "selected",
    "selected_degenerate",
    "no_alternative",
    "runs",
    "runs_degenerate",
)


def degenerate_table(
    runs: pd.DataFrame, *, tolerance: float = DEFAULT_TOLERANCE, adjusted: bool = False
) -> pd.DataFrame:
    """Per method: its selected and all its successful runs, and how many are degenerate.

    Degenerate means degenerate on the test part (:func:`degenerate_runs`), the part the
    results tables report; the selection itself avoids runs degenerate on the validation part
    whenever it can (:func:`select_runs`).

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs` (of one study).
    tolerance, adjusted
        Passed to :func:`select_runs`.

    Returns
    -------
    pandas.DataFrame
        One row per method (index ``method``, in the tables' column order) with the integer
        columns of :data:`DEGENERATE_COLUMNS`: ``selected``, the successful selected runs (one
        per dataset, notion and seed); ``selected_degenerate``, those degenerate on the test
        part; ``no_alternative``, selected runs whose every setting was degenerate on the
        validation part; ``runs``, all successful runs; ``runs_degenerate``, those degenerate
        on the test part.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import degenerate_table
    >>> runs = pd.DataFrame({
    ...     "run_id": ["a", "b"], "study": "s", "dataset": "compas", "method": "nn",
    ...     "notion": "eo", "seed": 0, "params": [{"lr": 0.1}, {"lr": 0.01}], "status": "ok",
    ...     "validation.balanced_accuracy": [0.50, 0.62], "validation.single_class": [1.0, 0.0],
    ...     "validation.faircocco_eo": [0.0, 0.04], "test.single_class": [1.0, 0.0],
    ... })
    >>> degenerate_table(runs).loc["nn"].tolist()
    [1, 0, 0, 2, 1]
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame; got {type(runs).__name__}.")
    selected = select_runs(runs, tolerance=tolerance, adjusted=adjusted)
    selected = selected[selected["status"] == "ok"]
    ok = runs[runs["status"] == "ok"]
    frame = pd.DataFrame(
        {
            "method": selected["method"].astype(str),
            "selected": 1,
            "selected_degenerate": degenerate_runs(selected, "test").astype(int),
            "no_alternative": (selected["n_degenerate"] == selected["n_settings"]).astype(int),
        }
    )
    every = pd.DataFrame(
        {
            "method": ok["method"].astype(str),
            "runs": 1,
            "runs_degenerate": degenerate_runs(ok, "test").astype(int),
        }
    )
    methods = list(method_order(runs["method"]))
    table = pd.concat(
        [frame.groupby("method").sum(), every.groupby("method").sum()], axis=1
    ).reindex(methods)
    table.index.name = "method"
    return table[list(DEGENERATE_COLUMNS)].fillna(0).astype(int)
