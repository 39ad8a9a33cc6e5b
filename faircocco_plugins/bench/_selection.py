"""Choosing each method's hyper-parameters on the validation part only."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence

import pandas as pd

from .._records.params import Interval, check_params
from ._metrics import degenerate_runs

#: Default largest acceptable validation FairCOCCO score of a selected setting.
DEFAULT_TOLERANCE = 0.05
#: The groups within which one setting is selected.
GROUP_COLUMNS: tuple[str, ...] = ("study", "dataset", "method", "notion", "seed")


def select_runs(
    runs: pd.DataFrame,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    adjusted: bool = False,
    relative_to: str | None = None,
) -> pd.DataFrame:
    """One run per (study, dataset, method, notion, seed): the selected hyper-parameters.

    The rule reads validation columns only, so the test part never influences the choice:

    1. Candidates are the runs with status ``"ok"``. Those degenerate on the validation part
       (:func:`degenerate_runs`: a single predicted class, or a regression no better than
       the mean) are set aside whenever some candidate is not: a constant predictor scores
       as perfectly fair and, on imbalanced data, as accurate as the majority rate, so it
       would otherwise win on both counts; a regression that predicts nothing is fair at no
       effort, and the tolerance would pick it over a model that predicts something.
    2. Performance is the validation balanced accuracy for classification, the mean of the
       true-positive and true-negative rates, which is 0.5 for every constant predictor
       whatever the base rate. It judges the predicted labels; AUC would judge probabilities,
       which not every method gives and which can rank well while every label is the same
       class. Where the group has no balanced accuracy
       (a validation part with one class, or runs stored without it), the validation accuracy
       is used. Regression uses the validation MSE (lower is better).
    3. Fairness is the validation FairCOCCO score under the run's notion,
       ``validation.faircocco_<notion>`` (the ``_adjusted`` column with ``adjusted=True``),
       of the predicted probabilities where the method gives them (see
       :func:`evaluate_predictions`). Among the remaining candidates whose fairness is at
       most ``tolerance``, the one with the best performance is selected. Ties go to the
       fairer run, then to the smaller ``run_id``.
    4. When none is within the tolerance, the fairest one is selected (ties: better
       performance, then ``run_id``).

    With ``relative_to`` (a method, e.g. ``"nn"``), the tolerance is a share of that method's
    validation score in the same study, dataset, notion and seed (its fairest run's): with
    ``tolerance=0.5``, the most accurate setting that halves the unregularised network's
    unfairness. Every method is then compared at the same operating point, which an absolute
    tolerance does not give where the network itself is within it (every setting qualifies,
    so the least regularised wins) or where no setting is (the fairest wins). Without a
    reference run in a group, no setting is within the tolerance.

    So a degenerate run is selected only when every candidate of its group is degenerate on
    the validation part (``n_degenerate == n_settings``). A group without candidates (every
    run not applicable or failed) keeps one of its runs, so the result still says why the
    method has no result there.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs`.
    tolerance : float
        Largest acceptable validation FairCOCCO score, in [0, 1].
    adjusted : bool
        Judge fairness by the chance-adjusted score, which does not depend on the size of the
        validation part.
    relative_to : str, optional
        A method whose validation score, times ``tolerance``, is each group's tolerance; one of
        the methods of ``runs``.

    Returns
    -------
    pandas.DataFrame
        The selected rows with all their columns, plus ``selected_by``: ``"tolerance"``
        (rule 3), ``"fairest"`` (rule 4) or ``"none"`` (no candidate); ``ranked_by``: the
        validation metric that ranked performance (``"balanced_accuracy"``, ``"accuracy"``,
        ``"mse"``, or ``""`` without candidates); ``n_settings``, the number of candidates;
        and ``n_degenerate``, how many of them are degenerate on the validation part. Sorted
        by the group columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import select_runs
    >>> runs = pd.DataFrame({
    ...     "run_id": ["a", "b", "c"], "study": "s", "dataset": "compas",
    ...     "method": "faircocco", "notion": "eo", "seed": 0,
    ...     "params": [{"lam": 0.5}, {"lam": 2.0}, {"lam": 5.0}], "status": "ok",
    ...     "validation.accuracy": [0.86, 0.87, 0.89],
    ...     "validation.balanced_accuracy": [0.66, 0.63, 0.50],
    ...     "validation.single_class": [0.0, 0.0, 1.0],
    ...     "validation.faircocco_eo": [0.09, 0.03, 0.0],
    ... })
    >>> chosen = select_runs(runs, tolerance=0.05)
    >>> chosen[["params", "selected_by", "ranked_by", "n_degenerate"]].values.tolist()
    [[{'lam': 2.0}, 'tolerance', 'balanced_accuracy', 1]]
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame; got {type(runs).__name__}.")
    check_params({"tolerance": tolerance}, {"tolerance": Interval("real", 0, 1)})
    missing = [c for c in (*GROUP_COLUMNS, "run_id", "status") if c not in runs.columns]
    if missing:
        raise ValueError(f"runs is missing the columns {missing}; pass ResultsStore.runs().")
    references = None
    if relative_to is not None:
        _check_reference(runs, relative_to)
        references = _reference_scores(runs, relative_to, adjusted)
    chosen = []
    for key, group in runs.groupby(list(GROUP_COLUMNS), sort=True, dropna=False):
        limit = tolerance
        if references is not None:
            study, dataset, _, notion, seed = key
            limit = tolerance * references.get((study, dataset, notion, seed), -math.inf)
        chosen.append(_select(group, limit, adjusted))
    if not chosen:
        return runs.iloc[:0].assign(
            selected_by=pd.Series(dtype=object),
            ranked_by=pd.Series(dtype=object),
            n_settings=0,
            n_degenerate=0,
        )
    return pd.DataFrame(chosen).reset_index(drop=True)


def _check_reference(runs: pd.DataFrame, method: str) -> None:
    """Refuse a reference method that has no run: every group would lack its score."""
    if not isinstance(method, str):
        raise TypeError(f"relative_to must be a method's name (str); got {method!r}.")
    methods = sorted({str(m) for m in runs["method"]})
    if methods and method not in methods:
        raise ValueError(
            f"relative_to={method!r} is not a method of the runs; expected one of {methods}."
        )


def _fairness_column(notion: str, adjusted: bool) -> str:
    return f"validation.faircocco_{notion}" + ("_adjusted" if adjusted else "")


def _reference_scores(runs: pd.DataFrame, method: str, adjusted: bool) -> pd.Series:
    """The lowest validation score of ``method``'s successful runs, per study, dataset,
    notion and seed."""
    keys = ("study", "dataset", "notion", "seed")
    return lowest_values(runs, method, lambda notion: _fairness_column(notion, adjusted), keys)


def lowest_values(
    runs: pd.DataFrame, method: str, column: Callable[[str], str], keys: Sequence[str]
) -> pd.Series:
    """The lowest value of a column over ``method``'s successful runs, per group of ``keys``.

    The one reference every relative tolerance and level reads: :func:`select_runs`'s
    ``relative_to`` and the results pages' multiples of the unpenalised network's score
    (:func:`faircocco_plugins.bench.paper._common.network_values`).

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs with ``method``, ``status``, ``notion`` and the ``keys`` columns.
    method : str
    column : callable
        The column to read for a notion (a notion's own score, or one column for all).
    keys : sequence of str
        The columns that group the runs; they include ``notion``.

    Returns
    -------
    pandas.Series
        Indexed by ``keys``; a group without a value in its column is left out.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench._selection import lowest_values
    >>> runs = pd.DataFrame({
    ...     "dataset": "drugs", "notion": "dp", "method": "nn", "seed": [0, 0, 1],
    ...     "status": "ok", "validation.faircocco_dp": [0.004, 0.003, None],
    ... })
    >>> column = lambda notion: f"validation.faircocco_{notion}"
    >>> lowest_values(runs, "nn", column, ["dataset", "notion", "seed"]).to_dict()
    {('drugs', 'dp', 0): 0.003}
    """
    chosen = runs[(runs["method"] == method) & (runs["status"] == "ok")]
    values: dict[tuple[object, ...], float] = {}
    for key, group in chosen.groupby(list(keys), sort=True):
        name = column(str(group["notion"].iloc[0]))
        if name in group.columns and group[name].notna().any():
            values[key] = float(group[name].min())
    index = pd.MultiIndex.from_tuples(list(values), names=list(keys))
    return pd.Series(list(values.values()), index=index, dtype=float)


def _select(group: pd.DataFrame, tolerance: float, adjusted: bool) -> pd.Series:
    candidates = group[group["status"] == "ok"]
    if candidates.empty:
        row = group.sort_values("run_id").iloc[0].copy()
        row["selected_by"], row["ranked_by"] = "none", ""
        row["n_settings"], row["n_degenerate"] = 0, 0
        return row
    notion = str(group["notion"].iloc[0])
    fairness_column = _fairness_column(notion, adjusted)
    if fairness_column not in candidates.columns:
        raise ValueError(f"runs has no column {fairness_column!r} to select by.")
    ranked_by, performance = _performance(candidates)
    degenerate = degenerate_runs(candidates, "validation")
    frame = pd.DataFrame(
        {
            # NaN scores count as unfair and NaN performance as worst, so they lose every tie
            "fairness": candidates[fairness_column].astype(float).fillna(math.inf),
            "performance": performance.fillna(-math.inf),
            "run_id": candidates["run_id"].astype(str),
        },
        index=candidates.index,
    )
    pool = frame[~degenerate] if not degenerate.all() else frame
    within = pool[pool["fairness"] <= tolerance]
    if not within.empty:
        order = within.sort_values(
            ["performance", "fairness", "run_id"], ascending=[False, True, True]
        )
        selected_by = "tolerance"
    else:
        order = pool.sort_values(
            ["fairness", "performance", "run_id"], ascending=[True, False, True]
        )
        selected_by = "fairest"
    row = candidates.loc[order.index[0]].copy()
    row["selected_by"], row["ranked_by"] = selected_by, ranked_by
    row["n_settings"], row["n_degenerate"] = len(candidates), int(degenerate.sum())
    return row


def _performance(candidates: pd.DataFrame) -> tuple[str, pd.Series]:
    """The validation metric that ranks a group, as "higher is better" values."""
    for metric, sign in (("balanced_accuracy", 1.0), ("accuracy", 1.0), ("mse", -1.0)):
        column = f"validation.{metric}"
        if column in candidates.columns and candidates[column].notna().any():
            return metric, sign * candidates[column].astype(float)
    raise ValueError(
        "runs has no validation.balanced_accuracy, validation.accuracy or validation.mse "
        "values to select by."
    )


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
    >>> from faircocco_plugins.bench._selection import params_key
    >>> params_key({"lr": 0.001, "lam": 1.0})
    '{"lam": 1.0, "lr": 0.001}'
    """
    return json.dumps(params, sort_keys=True)
