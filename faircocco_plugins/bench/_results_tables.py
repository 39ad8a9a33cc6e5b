"""The results tables of a study: mean ± std over seeds of each method's selected runs.

The tables follow the paper's layout: one table per notion, a block of rows per dataset
(performance, the joint FairCOCCO score, its chance-adjusted value, DEO, DI under DP, then each
attribute's FairCOCCO score and DEO when there are several attributes), one column per method.
Each block also states the dataset's label, its base rate and the number of test rows the
scores are computed on. Each cell is the mean ± standard deviation over seeds of the test metric
of the setting :func:`select_runs` chose on validation data. Cells of degenerate models
(:func:`degenerate_runs`) carry :data:`DEGENERATE_MARK` and are never bold; the best other cell
of a row is in bold, except in the fairness rows of a block where every method is near chance
(:data:`NEAR_CHANCE`).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .._records.notions import NOTIONS, notion_named
from .._records.params import Interval, check_params
from ._metrics import R2_THRESHOLD, degenerate_runs, r_squared
from ._presets import PAPER_DATASETS
from ._results_table_types import (
    DEGENERATE_MARK,
    NOTION_TITLES,
    ResultsTable,
    TableBlock,
    TableCell,
    TableRow,
)
from ._selection import DEFAULT_TOLERANCE, select_runs
from ._store import check_runs

#: Output formats of the tables and index pages.
REPORT_FORMATS: tuple[str, ...] = ("md", "html")
#: Columns of :func:`summarise_runs`.
SUMMARY_COLUMNS: tuple[str, ...] = (
    "study",
    "dataset",
    "notion",
    "method",
    "task",
    "metric",
    "mean",
    "std",
    "count",
    "seeds",
    "seeds_ok",
    "seeds_fairest",
    "seeds_degenerate",
    "seeds_all_degenerate",
    "n_rows",
    "status",
    "reason",
)
#: A classification block is near chance when every method with a result has a mean test
#: balanced accuracy or AUC below this: the models predict little, so little can be unfair,
#: and the fairness rows are not ranked.
NEAR_CHANCE = 0.55
GROUP_COLUMNS = ["study", "dataset", "notion", "method"]
#: What a degenerate model does, by task, for the footnotes.
_DEGENERATE_WHAT = {
    "classification": "predicts a single class",
    "regression": (
        f"is no better than the mean (R² at most {R2_THRESHOLD:g}, or an almost constant "
        "prediction)"
    ),
}


def summarise_runs(
    runs: pd.DataFrame,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    adjusted: bool = False,
    relative_to: str | None = None,
) -> pd.DataFrame:
    """Mean and standard deviation over seeds of the selected runs' test metrics.

    Each seed's hyper-parameters are chosen by :func:`select_runs` on validation columns only;
    the test metrics of the chosen runs are then averaged over seeds.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs`.
    tolerance, adjusted, relative_to
        Passed to :func:`select_runs`.

    Returns
    -------
    pandas.DataFrame
        One row per study, dataset, notion, method and test metric (the ``test.`` prefix
        dropped) that some successful run of the dataset has, with the columns of
        :data:`SUMMARY_COLUMNS`:

        The test R² (:func:`r_squared`) is the metric ``r2`` of regression runs that have an
        ``outcome_variance``.

        * ``task``: ``"classification"`` when the dataset's runs have an accuracy,
          ``"regression"`` when they have an MSE, else ``""``;
        * ``mean``, ``std`` (``ddof=1``, NaN for one value) and ``count``: over the seeds
          whose selected run succeeded and has a value;
        * ``seeds``: seeds with runs; ``seeds_ok``: seeds whose selected run succeeded;
          ``seeds_fairest``: seeds where no setting met the tolerance on validation, so the
          fairest one was selected; ``seeds_degenerate``: seeds whose selected run is
          degenerate on the test part (:func:`degenerate_runs`); ``seeds_all_degenerate``:
          seeds where every setting was degenerate on the validation part, so a degenerate
          one was selected;
        * ``n_rows``: test rows the metrics are computed on (``n_test``), mean over the seeds
          whose selected run succeeded (NaN when not recorded);
        * ``status``: ``"ok"`` when some seed succeeded, else ``"not_applicable"`` when every
          run is not applicable, else ``"failed"``;
        * ``reason``: the distinct reasons of the seeds without a successful run, joined by
          ``" / "`` (empty when every seed succeeded).

        A (study, dataset, notion, method) without a successful run has rows with NaN means
        for the metrics of the dataset, or a single row with an empty ``metric`` when no
        method succeeded on the dataset.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import summarise_runs
    >>> runs = pd.DataFrame({
    ...     "run_id": ["a", "b"], "study": "s", "dataset": "german", "method": "nn",
    ...     "notion": "eo", "seed": [0, 1], "params": [{}, {}], "status": "ok", "reason": "",
    ...     "validation.accuracy": [0.70, 0.72], "validation.faircocco_eo": [0.1, 0.1],
    ...     "test.accuracy": [0.71, 0.75], "test.faircocco_eo": [0.10, 0.12],
    ... })
    >>> summary = summarise_runs(runs).set_index("metric")
    >>> row = summary.loc["accuracy"]
    >>> print(f"{row['mean']:.2f} over {row['count']} seeds")
    0.73 over 2 seeds
    """
    check_runs(runs, (*GROUP_COLUMNS, "seed", "status", "reason"))
    selected = _with_r_squared(
        select_runs(runs, tolerance=tolerance, adjusted=adjusted, relative_to=relative_to)
    )
    test_columns = [c for c in selected.columns if str(c).startswith("test.")]
    rows: list[dict[str, Any]] = []
    for (study, dataset), of_dataset in selected.groupby(["study", "dataset"], sort=False):
        ok = of_dataset[of_dataset["status"] == "ok"]
        metrics = [c for c in test_columns if ok[c].notna().any()]
        task = _task(metrics)
        for (notion, method), group in of_dataset.groupby(["notion", "method"], sort=False):
            base = _group_facts(group)
            base.update(study=study, dataset=dataset, notion=notion, method=method, task=task)
            good = group[group["status"] == "ok"]
            if not metrics:
                rows.append({**base, "metric": "", "mean": math.nan, "std": math.nan, "count": 0})
            for column in metrics:
                values = good[column].astype(float).dropna()
                rows.append(
                    {
                        **base,
                        "metric": column.removeprefix("test."),
                        "mean": float(values.mean()) if len(values) else math.nan,
                        "std": float(values.std(ddof=1)) if len(values) > 1 else math.nan,
                        "count": len(values),
                    }
                )
    summary = pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))
    for name in SUMMARY_COLUMNS:
        if name == "count" or name.startswith("seeds"):
            summary[name] = summary[name].astype(int)
    return summary


def _with_r_squared(selected: pd.DataFrame) -> pd.DataFrame:
    """The runs with their test R² as ``test.r2`` when they have an MSE and outcome variance."""
    if not {"test.mse", "test.outcome_variance"} <= set(selected.columns):
        return selected
    r2 = r_squared(selected["test.mse"], selected["test.outcome_variance"])
    return selected.assign(**{"test.r2": r2})


def _task(metric_columns: Sequence[str]) -> str:
    if "test.accuracy" in metric_columns:
        return "classification"
    if "test.mse" in metric_columns:
        return "regression"
    return ""


def _group_facts(group: pd.DataFrame) -> dict[str, Any]:
    """Seeds, status and reasons of the selected runs of one (study, dataset, notion, method)."""
    statuses = group["status"].astype(str)
    ok = statuses == "ok"
    reasons = [str(r) for r in group.loc[~ok, "reason"] if str(r).strip()]
    if ok.any():
        status = "ok"
    elif (statuses == "not_applicable").all():
        status = "not_applicable"
    else:
        status = "failed"
    if "selected_by" in group.columns:
        fairest = group["selected_by"] == "fairest"
    else:
        fairest = pd.Series(False, index=group.index)
    if "n_degenerate" in group.columns:
        no_alternative = group["n_degenerate"] == group["n_settings"]
    else:
        no_alternative = pd.Series(False, index=group.index)
    degenerate = degenerate_runs(group, "test")
    rows = group.loc[ok, "n_test"] if "n_test" in group.columns else pd.Series(dtype=float)
    # selected rows hold the store's nullable integers as objects
    rows = pd.to_numeric(rows, errors="coerce").astype(float)
    return {
        "seeds": int(group["seed"].nunique()),
        "seeds_ok": int(group.loc[ok, "seed"].nunique()),
        "seeds_fairest": int(group.loc[ok & fairest, "seed"].nunique()),
        "seeds_degenerate": int(group.loc[ok & degenerate, "seed"].nunique()),
        "seeds_all_degenerate": int(group.loc[ok & no_alternative, "seed"].nunique()),
        "n_rows": float(rows.mean()) if rows.notna().any() else math.nan,
        "status": status,
        "reason": " / ".join(dict.fromkeys(" ".join(r.split()) for r in reasons)),
    }


# --- tables -------------------------------------------------------------------------------------


def results_tables(
    summary: pd.DataFrame,
    *,
    methods: Sequence[str] | None = None,
    digits: int = 3,
    labels: Mapping[str, str] | None = None,
) -> list[ResultsTable]:
    """One :class:`ResultsTable` per notion of a study's summary.

    Rows of each dataset block: the performance (for classification ``ACC``, ``BACC`` and
    ``AUC``, best highest; for regression ``MSE``, best lowest, and ``R²``, best highest),
    ``FairCOCCO`` (the joint
    score under the table's notion), ``FairCOCCO (adjusted)``, ``DEO``, ``DI`` under DP only
    (best highest), then, for datasets with several sensitive attributes, each attribute's
    FairCOCCO score and DEO; the fairness rows are best when lowest. The last row counts the
    seeds. Each block's :attr:`TableBlock.facts` give the dataset's label, its base rate on
    the test part (classification) and the number of test rows.

    A method whose selected model is degenerate on the test part on some seed
    (:func:`degenerate_runs`) has every cell marked (:attr:`TableCell.degenerate`), and its
    seed count a footnote saying on how many seeds. Bold marks every other method whose mean,
    rounded to ``digits``, equals the best such rounded mean of its row, when at least two
    such methods have a value. The fairness rows of a classification block where every
    method with a result has a mean BACC or AUC below :data:`NEAR_CHANCE` have no bold; the
    block's facts say that it is near chance (:attr:`TableBlock.near_chance`). A method that
    does not apply shows ``n/a``, one that failed on every seed ``failed``, each with a
    footnote giving the reason; a seed count below the number of seeds has a footnote with
    the failures.

    Parameters
    ----------
    summary : pandas.DataFrame
        The output of :func:`summarise_runs` for one study.
    methods : sequence of str, optional
        The columns, in order; default: ``nn`` first, then the other methods by name, with
        the ``faircocco`` methods last, as in the paper.
    digits : int
        Decimals shown.
    labels : mapping of str to str, optional
        What each dataset's outcome is; default: the ``label`` column of
        :func:`~faircocco_plugins.datasets.list_datasets`. A dataset without one shows none.

    Returns
    -------
    list of ResultsTable
        In the order of :data:`NOTIONS`, for the notions present in ``summary``.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import results_tables, summarise_runs
    >>> runs = pd.DataFrame({
    ...     "run_id": ["a", "b", "c", "d"], "study": "s", "dataset": "german",
    ...     "method": ["faircocco", "faircocco", "nn", "nn"], "notion": "eo",
    ...     "seed": [0, 1, 0, 1], "params": [{}] * 4, "status": "ok", "reason": "",
    ...     "validation.accuracy": 0.7, "validation.faircocco_eo": 0.1,
    ...     "test.accuracy": [0.70, 0.72, 0.74, 0.76], "test.faircocco_eo": [0.05, 0.07, 0.2, 0.3],
    ... })
    >>> table = results_tables(summarise_runs(runs))[0]
    >>> table.cell("german", "accuracy", "nn")
    TableCell(text='0.750 ± 0.014', bold=True, notes=(), degenerate=False)
    >>> table.cell("german", "faircocco_eo", "faircocco").bold
    True
    >>> table.blocks[0].facts
    ('label: good credit risk (german.data label 1; 0: bad risk)',)
    """
    if not isinstance(summary, pd.DataFrame):
        raise TypeError(f"summary must be a pandas DataFrame; got {type(summary).__name__}.")
    missing = [c for c in SUMMARY_COLUMNS if c not in summary.columns]
    if missing:
        raise ValueError(f"summary is missing the columns {missing}; pass summarise_runs().")
    studies = summary["study"].unique().tolist()
    if len(studies) > 1:
        raise ValueError(f"summary holds several studies {studies}; pass one study's rows.")
    check_params({"digits": digits}, {"digits": Interval("integer", 0, 10)})
    if labels is None:
        labels = _registered_labels()
    elif not isinstance(labels, Mapping):
        raise TypeError(f"labels must be a mapping of str to str; got {type(labels).__name__}.")
    columns = tuple(methods) if methods is not None else method_order(summary["method"])
    tables = []
    for notion in [n for n in NOTIONS if n in set(summary["notion"])]:
        of_notion = summary[summary["notion"] == notion]
        builder = _TableBuilder(notion, columns, digits)
        for dataset in dataset_order(of_notion["dataset"]):
            rows = of_notion[of_notion["dataset"] == dataset]
            builder.add_block(str(dataset), rows, str(labels.get(str(dataset), "")))
        tables.append(builder.build(str(studies[0]) if studies else ""))
    return tables


def _registered_labels() -> dict[str, str]:
    from ..datasets import list_datasets

    table = list_datasets()
    return {str(name): str(label) for name, label in table["label"].items() if label}


def method_order(methods: Iterable[str]) -> tuple[str, ...]:
    """Methods in the paper's column order: ``nn``, the others, then the ``faircocco`` ones.

    Parameters
    ----------
    methods : iterable of str

    Returns
    -------
    tuple of str
        Distinct names, sorted by name within each group.

    Examples
    --------
    >>> from faircocco_plugins.bench._results_tables import method_order
    >>> method_order(["faircocco", "facl", "nn", "hsic", "faircocco_constraint"])
    ('nn', 'facl', 'hsic', 'faircocco', 'faircocco_constraint')
    """

    def rank(name: str) -> tuple[int, str]:
        if name == "nn":
            return (0, name)
        return (2 if name.startswith("faircocco") else 1, name)

    return tuple(sorted({str(m) for m in methods}, key=rank))


def dataset_order(datasets: Iterable[str]) -> list[str]:
    """Datasets in the paper's order, then the others by name.

    Parameters
    ----------
    datasets : iterable of str

    Returns
    -------
    list of str

    Examples
    --------
    >>> from faircocco_plugins.bench._results_tables import dataset_order
    >>> dataset_order(["synthetic", "german", "adult"])
    ['adult', 'german', 'synthetic']
    """
    names = {str(d) for d in datasets}
    known = [d for d in PAPER_DATASETS if d in names]
    return known + sorted(names - set(known))


@dataclass
class _TableBuilder:
    notion: str
    methods: tuple[str, ...]
    digits: int
    blocks: list[TableBlock] = field(default_factory=list)
    footnotes: list[str] = field(default_factory=list)

    def note(self, text: str) -> int:
        if text not in self.footnotes:
            self.footnotes.append(text)
        return self.footnotes.index(text) + 1

    def add_block(self, dataset: str, rows: pd.DataFrame, label: str) -> None:
        task = str(rows["task"].iloc[0])
        by_method = {str(m): group for m, group in rows.groupby("method", sort=False)}
        available = set(rows.loc[rows["count"] > 0, "metric"])
        ok = rows[(rows["status"] == "ok") & (rows["count"] > 0)]
        near_chance = task == "classification" and _near_chance(ok)
        performance = {spec[0] for spec in _performance_specs(task)}
        specs = [s for s in _row_specs(self.notion, task, available) if s[0] in available]
        table_rows = [
            self._metric_row(
                spec,
                by_method,
                first=i == 0,
                ranked=not near_chance or spec[0] in performance,
            )
            for i, spec in enumerate(specs)
        ]
        table_rows.append(self._seed_row(by_method, task, first=not specs))
        facts = [f"label: {label}"] if label else []
        if task == "classification":
            base_rates = ok.loc[ok["metric"] == "base_rate", "mean"]
            if len(base_rates):
                facts.append(f"base rate {_span(base_rates, self.digits)}")
        n_rows = ok.drop_duplicates("method")["n_rows"].dropna()
        if len(n_rows):
            facts.append(f"N = {_span(n_rows, 0)} test rows")
        if near_chance:
            facts.append(
                f"near chance: every method's BACC or AUC is below {NEAR_CHANCE:g}, so the "
                "fairness rows are not ranked"
            )
        self.blocks.append(TableBlock(dataset, task, tuple(table_rows), tuple(facts), near_chance))

    def _metric_row(
        self,
        spec: tuple[str, str, bool],
        by_method: Mapping[str, pd.DataFrame],
        *,
        first: bool,
        ranked: bool,
    ) -> TableRow:
        metric, label, higher = spec
        # degenerate models take no part in the ranking: they would win the fairness rows
        values: list[tuple[float, float, int] | None] = []
        cells: list[TableCell] = []
        for method in self.methods:
            group = by_method.get(method)
            if group is None:
                values.append(None)
                cells.append(TableCell("—"))
                continue
            status = str(group["status"].iloc[0])
            if status != "ok":
                values.append(None)
                notes = (self.note(_status_note(group)),) if first else ()
                cells.append(
                    TableCell("n/a" if status == "not_applicable" else "failed", False, notes)
                )
                continue
            degenerate = int(group["seeds_degenerate"].iloc[0]) > 0
            match = group[group["metric"] == metric]
            if match.empty or int(match["count"].iloc[0]) == 0:
                values.append(None)
                cells.append(TableCell("—", degenerate=degenerate))
                continue
            mean, std = float(match["mean"].iloc[0]), float(match["std"].iloc[0])
            values.append(None if degenerate else (mean, std, int(match["count"].iloc[0])))
            cells.append(TableCell(format_mean_std(mean, std, self.digits), degenerate=degenerate))
        best = _best(values, higher, self.digits) if ranked else set()
        cells = [dataclasses.replace(c, bold=i in best) for i, c in enumerate(cells)]
        return TableRow(label, metric, tuple(cells))

    def _seed_row(
        self, by_method: Mapping[str, pd.DataFrame], task: str, *, first: bool
    ) -> TableRow:
        cells = []
        for method in self.methods:
            group = by_method.get(method)
            if group is None:
                cells.append(TableCell("—"))
                continue
            facts = group.iloc[0]
            status = str(facts["status"])
            if status == "not_applicable":
                notes = (self.note(_status_note(group)),) if first else ()
                cells.append(TableCell("n/a", False, notes))
                continue
            seeds, good = int(facts["seeds"]), int(facts["seeds_ok"])
            fairest = int(facts["seeds_fairest"])
            degenerate = int(facts["seeds_degenerate"])
            alone = int(facts["seeds_all_degenerate"])
            # a note for each count of seeds that is not zero, numbered in this order
            counted = (
                (seeds - good, _status_note(group)),
                (
                    fairest,
                    f"{method}: on {fairest} of {good} seeds no setting had a validation "
                    "FairCOCCO score within the tolerance; the fairest setting was selected.",
                ),
                (
                    degenerate,
                    f"{method} {DEGENERATE_MARK}: on {degenerate} of {good} seeds the selected "
                    f"model {_DEGENERATE_WHAT.get(task, 'is degenerate')} on the test part.",
                ),
                (
                    alone,
                    f"{method}: on {alone} of {good} seeds every setting was degenerate on the "
                    "validation part, so a degenerate one was selected.",
                ),
            )
            seed_notes = tuple(self.note(text) for count, text in counted if count)
            text = str(good) if good == seeds else f"{good} of {seeds}"
            cells.append(TableCell(text, False, seed_notes, degenerate > 0))
        return TableRow("seeds", "seeds", tuple(cells))

    def build(self, study: str) -> ResultsTable:
        caption = (
            f"Test metrics under {NOTION_TITLES.get(self.notion, self.notion)}: mean ± standard "
            "deviation (ddof=1) over seeds of each seed's selected setting, chosen on the "
            "validation part only. "
            f"{DEGENERATE_MARK}: a degenerate model on some seed (a single predicted class, or "
            f"a regression no better than the mean: R² at most {R2_THRESHOLD:g} or an almost "
            "constant prediction), which is trivially fair; the seeds row's footnote says on "
            "how many seeds. Bold: best of the row among the other methods (highest ACC, BACC, "
            "AUC, R² and DI; lowest MSE, FairCOCCO score and DEO), except in the fairness rows "
            "of a dataset marked near chance, where every method's BACC or AUC is below "
            f"{NEAR_CHANCE:g}: a model that predicts little is fair at no cost, so a ranking "
            "of fairness there would praise the weakest predictor. ACC: accuracy; BACC: "
            "balanced accuracy (mean of the true-positive and true-negative rates, 0.5 for a "
            "constant predictor); AUC: area under the ROC curve of the predicted probabilities. "
            "R²: 1 − MSE / variance of the test outcome (0 for predicting the test mean). "
            "FairCOCCO: joint score over all sensitive attributes; adjusted: chance-adjusted "
            "score (0 at independence); DEO: largest gap in true-positive rates between groups; "
            "DI: lowest over highest positive rate. Under each dataset: its label, its base "
            "rate (share of positive labels in the test part) and N, the test rows every metric "
            "is computed on. n/a: the method does not support the dataset or notion."
        )
        return ResultsTable(
            study=study,
            notion=self.notion,
            methods=self.methods,
            blocks=tuple(self.blocks),
            footnotes=tuple(self.footnotes),
            caption=caption,
        )


def _performance_specs(task: str) -> list[tuple[str, str, bool]]:
    """(metric, label, higher is better) of the performance rows of a dataset block."""
    if task == "classification":
        return [
            ("accuracy", "ACC", True),
            ("balanced_accuracy", "BACC", True),
            ("auc", "AUC", True),
        ]
    return [("mse", "MSE", False), ("r2", "R²", True)]


def _near_chance(ok: pd.DataFrame) -> bool:
    """Whether every method of a block's successful summary rows has a mean balanced accuracy
    or AUC below :data:`NEAR_CHANCE` (a method with neither is not near chance)."""
    scores = ok[ok["metric"].isin(["balanced_accuracy", "auc"])]
    near = set(scores.loc[scores["mean"] < NEAR_CHANCE, "method"])
    methods = set(ok["method"])
    return bool(methods) and methods <= near


def _row_specs(notion: str, task: str, available: set[str]) -> list[tuple[str, str, bool]]:
    """(metric, label, higher is better) of the rows of a dataset block."""
    specs = _performance_specs(task)
    specs += [
        (f"faircocco_{notion}", "FairCOCCO", False),
        (f"faircocco_{notion}_adjusted", "FairCOCCO (adjusted)", False),
        ("deo", "DEO", False),
    ]
    if not notion_named(notion).needs_outcome:
        # disparate impact compares positive rates alone: a measure of the unconditional notion
        specs.append(("di", "DI", True))
    attributes = sorted(
        match.group(1)
        for name in available
        if (match := re.fullmatch(rf"faircocco_{notion}\[(.+)\]", name))
    )
    if len(attributes) > 1:
        for attribute in attributes:
            specs.append((f"faircocco_{notion}[{attribute}]", f"FairCOCCO: {attribute}", False))
            specs.append((f"deo[{attribute}]", f"DEO: {attribute}", False))
    return specs


def format_mean_std(mean: float, std: float, digits: int) -> str:
    """``"0.812 ± 0.004"``, or the mean alone when the standard deviation is NaN."""
    # + 0.0 turns a mean that rounds to -0 into 0, so no cell reads "-0.000"
    shown = f"{round(mean, digits) + 0.0:.{digits}f}"
    if math.isnan(std):
        return shown
    return f"{shown} ± {std:.{digits}f}"


def _span(values: Iterable[float], digits: int) -> str:
    """``"0.112"``, or ``"0.111–0.113"`` when the values differ at the shown precision."""
    shown = sorted({round(float(v), digits) + 0.0 for v in values})
    texts = [f"{v:.{digits}f}" for v in (shown[0], shown[-1])]
    return texts[0] if len(shown) == 1 else "–".join(texts)


def _best(values: Sequence[tuple[float, float, int] | None], higher: bool, digits: int) -> set[int]:
    shown = {i: round(v[0], digits) for i, v in enumerate(values) if v is not None}
    if len(shown) < 2:
        return set()
    target = max(shown.values()) if higher else min(shown.values())
    return {i for i, value in shown.items() if value == target}


def _status_note(group: pd.DataFrame) -> str:
    facts = group.iloc[0]
    method = str(facts["method"])
    reason = str(facts["reason"]) or "no reason recorded"
    if str(facts["status"]) == "not_applicable":
        return f"{method} is not applicable: {reason}"
    return f"{method} failed: {reason}"
