"""Choosing each method's hyper-parameters on the validation part only."""

from __future__ import annotations

import json
import math

import pandas as pd

#: Default largest acceptable validation FairCOCCO score of a selected setting.
DEFAULT_TOLERANCE = 0.05
#: The groups within which one setting is selected.
GROUP_COLUMNS: tuple[str, ...] = ("study", "dataset", "method", "notion", "seed")


def select_runs(
    runs: pd.DataFrame, *, tolerance: float = DEFAULT_TOLERANCE, adjusted: bool = False
) -> pd.DataFrame:
    """One run per (study, dataset, method, notion, seed): the selected hyper-parameters.

    The rule reads validation columns only, so the test part never influences the choice:

    1. Candidates are the runs with status ``"ok"``. Their fairness is the validation
       FairCOCCO score under the run's notion, ``validation.faircocco_<notion>`` (the
       ``_adjusted`` column with ``adjusted=True``).
    2. Among candidates whose fairness is at most ``tolerance``, the one with the best
       validation performance is selected: the highest ``validation.accuracy`` for
       classification, the lowest ``validation.mse`` for regression. Ties go to the fairer
       run, then to the smaller ``run_id``.
    3. When no candidate is within the tolerance, the fairest one is selected (ties: better
       performance, then ``run_id``).

    A group without candidates (every run not applicable or failed) keeps one of its runs, so
    the result still says why the method has no result there.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs`.
    tolerance : float
        Largest acceptable validation FairCOCCO score, in [0, 1].
    adjusted : bool
        Judge fairness by the chance-adjusted score, which does not depend on the size of the
        validation part.

    Returns
    -------
    pandas.DataFrame
        The selected rows with all their columns, plus ``selected_by``: ``"tolerance"``
        (rule 2), ``"fairest"`` (rule 3) or ``"none"`` (no candidate), and ``n_settings``,
        the number of candidates. Sorted by the group columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import select_runs
    >>> runs = pd.DataFrame({
    ...     "run_id": ["a", "b"], "study": "s", "dataset": "german", "method": "faircocco",
    ...     "notion": "eo", "seed": 0, "params": [{"lam": 0.5}, {"lam": 5.0}], "status": "ok",
    ...     "validation.accuracy": [0.75, 0.70], "validation.faircocco_eo": [0.09, 0.03],
    ... })
    >>> select_runs(runs, tolerance=0.05)["params"].tolist()
    [{'lam': 5.0}]
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame; got {type(runs).__name__}.")
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float):
        raise TypeError(f"tolerance must be a number; got {type(tolerance).__name__}.")
    if not 0 <= tolerance <= 1:
        raise ValueError(f"tolerance={tolerance!r} is not valid; expected a number in [0, 1].")
    missing = [c for c in (*GROUP_COLUMNS, "run_id", "status") if c not in runs.columns]
    if missing:
        raise ValueError(f"runs is missing the columns {missing}; pass ResultsStore.runs().")
    chosen = []
    for _, group in runs.groupby(list(GROUP_COLUMNS), sort=True, dropna=False):
        chosen.append(_select(group, tolerance, adjusted))
    if not chosen:
        return runs.iloc[:0].assign(selected_by=pd.Series(dtype=object), n_settings=0)
    return pd.DataFrame(chosen).reset_index(drop=True)


def _select(group: pd.DataFrame, tolerance: float, adjusted: bool) -> pd.Series:
    candidates = group[group["status"] == "ok"]
    if candidates.empty:
        row = group.sort_values("run_id").iloc[0].copy()
        row["selected_by"], row["n_settings"] = "none", 0
        return row
    notion = str(group["notion"].iloc[0])
    fairness_column = f"validation.faircocco_{notion}" + ("_adjusted" if adjusted else "")
    if fairness_column not in candidates.columns:
        raise ValueError(f"runs has no column {fairness_column!r} to select by.")
    fairness = candidates[fairness_column].astype(float)
    # performance as "higher is better"
    if "validation.accuracy" in candidates and candidates["validation.accuracy"].notna().any():
        performance = candidates["validation.accuracy"].astype(float)
    elif "validation.mse" in candidates and candidates["validation.mse"].notna().any():
        performance = -candidates["validation.mse"].astype(float)
    else:
        raise ValueError(
            "runs has neither validation.accuracy nor validation.mse values to select by."
        )
    frame = pd.DataFrame(
        {
            # NaN scores count as unfair and NaN performance as worst, so they lose every tie
            "fairness": fairness.fillna(math.inf),
            "performance": performance.fillna(-math.inf),
            "run_id": candidates["run_id"].astype(str),
        },
        index=candidates.index,
    )
    within = frame[frame["fairness"] <= tolerance]
    if not within.empty:
        order = within.sort_values(
            ["performance", "fairness", "run_id"], ascending=[False, True, True]
        )
        selected_by = "tolerance"
    else:
        order = frame.sort_values(
            ["fairness", "performance", "run_id"], ascending=[True, False, True]
        )
        selected_by = "fairest"
    row = candidates.loc[order.index[0]].copy()
    row["selected_by"], row["n_settings"] = selected_by, len(candidates)
    return row


def params_key(params: object) -> str:
    """A hashable text form of a ``params`` dict, for grouping runs by setting.

    Parameters
    ----------
    params : dict

    Returns
    -------
    str

    Examples
    --------
    >>> from faircocco_plugins.bench import params_key
    >>> params_key({"lr": 0.001, "lam": 1.0})
    '{"lam": 1.0, "lr": 0.001}'
    """
    return json.dumps(params, sort_keys=True)
