"""The page of the paper's literal configuration: why the project's defaults differ from it.

The study runs FairCOCCO twice at the paper's weights λ ∈ {0.5, 1, 2, 5}: ``faircocco``, with
the project's defaults (the ridge the library chooses, the chance-adjusted penalty, one kernel per
attribute, warm-up epochs without the penalty), and ``faircocco_paper``, as the paper's text
reads (ε = 1e-4 on every operator, no chance adjustment, one Gaussian on the joint attribute
vector, the penalty from the first epoch). For each dataset and notion that both ran, the page
puts the two side by side per λ: test accuracy, AUC and balanced accuracy, the chance-adjusted
score, how many seeds' models are degenerate on the test part (one predicted class) and how
many are near chance (a balanced accuracy below :data:`NEAR_CHANCE`, degenerate or not). A
model that predicts one class is "fair" and, on imbalanced data, as accurate as the majority
rate, so AUC and degeneracy say whether a point is a trade-off or a collapse.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._metrics import degenerate_runs
from .._results_tables import NEAR_CHANCE, dataset_order, format_mean_std
from ._common import MISSING, list_table, penalty_weight, section

#: The arm run as the paper's text reads, and the project's defaults it is set beside.
LITERAL, DEFAULTS, NETWORK = "faircocco_paper", "faircocco", "nn"
#: The test metrics of each arm, with their headings.
METRICS: tuple[tuple[str, str], ...] = (
    ("accuracy", "accuracy"),
    ("auc", "AUC"),
    ("balanced_accuracy", "balanced accuracy"),
    ("faircocco_adjusted", "adjusted score"),
)


def literal_arm_table(runs: pd.DataFrame, dataset: str, notion: str) -> pd.DataFrame:
    """Both arms per λ of the literal arm on one dataset and notion, and the network at λ = 0.

    Parameters
    ----------
    runs : pandas.DataFrame
        The study's runs (:func:`runs_of_export`).
    dataset, notion : str

    Returns
    -------
    pandas.DataFrame
        One row per method and λ (the network's λ is 0): for each metric of :data:`METRICS`,
        its mean and standard deviation over seeds (``<metric>_mean``, ``<metric>_std``; a seed
        with several runs at the same λ counts their mean once), then ``degenerate`` (seeds
        whose model is degenerate on the test part), ``near_chance`` (seeds whose test balanced
        accuracy is below :data:`NEAR_CHANCE`) and ``seeds``. Empty when the literal arm has no
        successful run there.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._literal import literal_arm_table
    >>> runs = pd.DataFrame({
    ...     "dataset": "adult", "notion": "dp", "status": "ok", "seed": [0, 1, 0, 1],
    ...     "method": ["faircocco_paper"] * 2 + ["faircocco"] * 2,
    ...     "params": [{"lam": 2.0}] * 4,
    ...     "test.accuracy": [0.75, 0.76, 0.82, 0.83], "test.auc": [0.6, 0.5, 0.9, 0.9],
    ...     "test.balanced_accuracy": [0.5, 0.5, 0.7, 0.7],
    ...     "test.faircocco_adjusted": [0.0, 0.0, 0.02, 0.02],
    ...     "test.single_class": [1.0, 0.0, 0.0, 0.0],
    ... })
    >>> table = literal_arm_table(runs, "adult", "dp")
    >>> columns = ["method", "lam", "accuracy_mean", "degenerate", "near_chance", "seeds"]
    >>> table[columns].values.tolist()
    [['faircocco', 2.0, 0.825, 0, 0, 2], ['faircocco_paper', 2.0, 0.755, 1, 2, 2]]
    """
    ok = runs[
        (runs["status"] == "ok") & (runs["dataset"] == dataset) & (runs["notion"] == notion)
    ].copy()
    ok["lam"] = penalty_weight(ok).fillna(0.0)
    ok["degenerate"] = degenerate_runs(ok, "test").astype(float)
    ok["near_chance"] = (ok["test.balanced_accuracy"] < NEAR_CHANCE).astype(float)
    literal = ok[ok["method"] == LITERAL]
    if literal.empty:
        return pd.DataFrame()
    kept = ok[
        (ok["method"] == NETWORK)
        | (ok["method"].isin([LITERAL, DEFAULTS]) & ok["lam"].isin(set(literal["lam"])))
    ]
    metrics = [f"test.{name}" for name, _ in METRICS if f"test.{name}" in kept.columns]
    per_seed = kept.groupby(["method", "lam", "seed"])[
        [*metrics, "degenerate", "near_chance"]
    ].mean()
    grouped = per_seed.groupby(level=["method", "lam"])
    table = pd.DataFrame(
        {
            **{f"{m.removeprefix('test.')}_mean": grouped[m].mean() for m in metrics},
            **{f"{m.removeprefix('test.')}_std": grouped[m].std() for m in metrics},
            # a seed counts as degenerate when any of its runs at the λ is
            "degenerate": grouped["degenerate"].apply(lambda d: int((d > 0).sum())),
            "near_chance": grouped["near_chance"].apply(lambda d: int((d > 0).sum())),
            "seeds": grouped.size(),
        }
    )
    return table.reset_index()


def literal_page(runs: pd.DataFrame) -> list[str]:
    """The body of the literal configuration's page (after its head) as reStructuredText
    lines, from the study's runs (:func:`runs_of_export`)."""
    lines = [
        "The paper's text trains FairCOCCO with the ridge ε = 1e-4 on every operator, no "
        "chance adjustment, one Gaussian kernel on the joint attribute vector and the penalty "
        f"from the first epoch. ``{LITERAL}`` runs it so, at the paper's weights; "
        f"``{DEFAULTS}`` runs the project's defaults at the same weights (the library's ridge, "
        "the chance-adjusted penalty, one kernel per attribute, warm-up epochs without the "
        "penalty). Each cell is the mean ± standard deviation over seeds of a test metric; "
        "*degenerate* counts the seeds whose model predicts one class on the test part, *near "
        f"chance* those whose test balanced accuracy is below {NEAR_CHANCE:g} (degenerate or "
        "not). "
        f"``{NETWORK}`` is the unpenalised network (λ = 0).",
        "",
    ]
    literal = runs[(runs["method"] == LITERAL) & (runs["status"] == "ok")]
    if literal.empty:
        return [*lines, f"The export holds no successful run of ``{LITERAL}``.", ""]
    for dataset in dataset_order(literal["dataset"]):
        for notion in sorted(set(literal.loc[literal["dataset"] == dataset, "notion"])):
            table = literal_arm_table(runs, dataset, notion)
            lines += section(f"{dataset}, {notion.upper()}")
            lines += [_summary(table), ""]
            lines += list_table(_header(table), _rows(table))
    return lines


def _header(table: pd.DataFrame) -> list[str]:
    shown = [label for name, label in METRICS if f"{name}_mean" in table.columns]
    return ["Method", "λ", *(s[0].upper() + s[1:] for s in shown), "Degenerate", "Near chance"]


def _rows(table: pd.DataFrame) -> list[Sequence[str]]:
    order = {NETWORK: 0, DEFAULTS: 1, LITERAL: 2}
    ordered = table.sort_values(
        ["lam", "method"], key=lambda c: c.map(order) if c.name == "method" else c
    )
    rows: list[Sequence[str]] = []
    for row in ordered.to_dict("records"):
        cells = [
            format_mean_std(row[f"{name}_mean"], row[f"{name}_std"], 3)
            if not np.isnan(row[f"{name}_mean"])
            else MISSING
            for name, _ in METRICS
            if f"{name}_mean" in table.columns
        ]
        lam = "0" if row["method"] == NETWORK else f"{row['lam']:g}"
        counts = [f"{row[name]} of {row['seeds']}" for name in ("degenerate", "near_chance")]
        rows.append([row["method"], lam, *cells, *counts])
    return rows


def _summary(table: pd.DataFrame) -> str:
    """One sentence of what the table measured: each arm's near-chance seeds and lowest AUC."""
    parts = []
    for method in (LITERAL, DEFAULTS):
        of_method = table[table["method"] == method]
        if of_method.empty:
            continue
        weak = of_method[of_method["near_chance"] > 0]
        if weak.empty:
            part = f"``{method}`` has no seed near chance at any λ"
        else:
            at = ", ".join(
                f"λ = {r['lam']:g} ({r['near_chance']} of {r['seeds']}, "
                f"{r['degenerate']} degenerate)"
                for r in weak.to_dict("records")
            )
            part = f"``{method}`` has seeds near chance at {at}"
        if of_method["auc_mean"].notna().any():
            worst = of_method.sort_values("auc_mean").iloc[0]
            part += f", and its lowest mean AUC is {worst['auc_mean']:.3f} (λ = {worst['lam']:g})"
        parts.append(part)
    return "; ".join(parts) + "."
