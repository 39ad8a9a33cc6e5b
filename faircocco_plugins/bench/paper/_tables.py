"""The pages of the paper's results tables: our selected models beside the paper's numbers.

* :func:`binary_table_page`: Table 3 (EO: accuracy and DEO) and the appendix's Tables 9 (DP:
  accuracy and DI) and 11 (CAL: accuracy and the FairCOCCO score) on Adult, COMPAS, German and
  Drugs;
* :func:`attributes_table_page`: Table 4, several attributes under EO: the joint and the
  per-attribute FairCOCCO scores (raw and chance-adjusted) and DEO.

Our numbers are the mean ± standard deviation over seeds of the test metrics of the setting
that :func:`select_runs` picks on the validation part of each seed (:func:`summarise_runs`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import pandas as pd

from .._results_table_types import DEGENERATE_MARK, NOTION_TITLES
from .._results_tables import format_mean_std, method_order
from ._common import MISSING, PaperNumbers, list_table, section


@dataclass(frozen=True)
class BinaryTable:
    """One of the paper's tables on the four single-attribute classification datasets."""

    #: File name of the page, without suffix.
    page: str
    #: The table's id in the paper's numbers.
    table: str
    notion: str
    #: The fairness metric the paper prints beside accuracy.
    fairness: str
    #: Our metric computed as the paper defines its printed one, where ``fairness`` differs
    #: from that definition (DI: min/max, beside the paper's ratio of the discriminated group's
    #: rate to the favoured group's, which exceeds 1 on over-correction).
    as_paper: str | None = None


#: The binary tables: Table 3 (EO) and the appendix's DP and CAL tables.
BINARY_TABLES: tuple[BinaryTable, ...] = (
    BinaryTable("table-3-eo", "Table 3", "eo", "deo"),
    BinaryTable("table-9-dp", "Table 9", "dp", "di", as_paper="di_ratio"),
    BinaryTable("table-11-cal", "Table 11", "cal", "faircocco"),
)
#: The datasets of the binary tables, in the paper's order.
BINARY_DATASETS: tuple[str, ...] = ("adult", "compas", "german", "drugs")
#: The datasets of Table 4 (several attributes, EO), in the paper's order.
ATTRIBUTE_DATASETS: tuple[str, ...] = (
    "communities",
    "students",
    "kdd_census",
    "credit_card",
    "law_school",
)
ATTRIBUTES_TABLE = "Table 4"
#: Headings of the metrics.
METRIC_NAMES: dict[str, str] = {
    "accuracy": "Accuracy",
    "mse": "MSE",
    "deo": "DEO",
    "di": "DI",
    "di_ratio": "DI as the paper defines it",
    "faircocco": "FairCOCCO",
    "auc": "AUC",
    "balanced_accuracy": "Balanced accuracy",
    "base_rate": "Base rate",
}
_ATTRIBUTE = re.compile(r"^deo\[(?P<name>.+)\]$")


def selection_rule(tolerance: float, adjusted: bool, relative_to: str | None = None) -> list[str]:
    """A paragraph stating how each method's setting is chosen."""
    score = "chance-adjusted FairCOCCO score" if adjusted else "FairCOCCO score"
    limit = (
        f"{tolerance:g} times that of ``{relative_to}`` on the same seed"
        if relative_to
        else f"{tolerance:g}"
    )
    return [
        "Each cell is the mean ± standard deviation over seeds of a test metric of one "
        "setting per seed, chosen on the validation part only: among the successful runs "
        "that are not degenerate on validation, those whose validation "
        f"{score} under the table's notion is at most {limit}, the one with the "
        "best validation balanced accuracy (accuracy where there is none; the lowest MSE "
        "for regression); when none is within the tolerance, the fairest. "
        f"{DEGENERATE_MARK} marks a method whose chosen model is degenerate on the test part "
        "for some seed (a single predicted class, or a regression no better than the mean). "
        f"{MISSING} means no number. The paper's cells are as printed (mean ± std over 10 "
        "runs; its Adult cells have no std).",
        "",
    ]


def binary_table_page(summary: pd.DataFrame, paper: PaperNumbers, spec: BinaryTable) -> list[str]:
    """The body of one binary table's page (after its head and :func:`selection_rule`).

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`summarise_runs` of the study's runs.
    paper : PaperNumbers
    spec : BinaryTable

    Returns
    -------
    list of str
        reStructuredText lines.
    """
    metric = METRIC_NAMES[spec.fairness]
    lines = []
    if spec.as_paper == "di_ratio":
        lines += [
            "DI (min/max) is the lowest over the highest positive-prediction rate of the "
            "attribute's groups, so 1 is parity and a model that over-corrects also scores "
            "below 1. DI as the paper defines it is the discriminated group's rate over the "
            "favoured group's, the discriminated group being the one with the lower share of "
            "positive outcomes on the test part; it exceeds 1 when a model over-corrects, and "
            "for one binary attribute min/max is this ratio or its inverse, whichever is at "
            f"most 1. {MISSING} in that column: runs recorded before the harness measured it.",
            "",
        ]
    for dataset in BINARY_DATASETS:
        ours, methods = _of_table(summary, paper, spec.table, dataset, spec.notion)
        if not methods:
            continue
        header = [
            "Method",
            "Accuracy",
            "Accuracy (paper)",
            metric if spec.as_paper is None else f"{metric} (min/max)",
            *([] if spec.as_paper is None else [METRIC_NAMES[spec.as_paper]]),
            f"{metric} (paper)",
            "AUC",
            "Balanced accuracy",
            "Base rate",
            "N (test)",
            "Seeds",
        ]
        rows = []
        for method in methods:
            of_method = ours[ours["method"] == method]
            rows.append(
                [
                    method,
                    _ours(of_method, "accuracy"),
                    paper.text(spec.table, dataset, spec.notion, method, "accuracy"),
                    _ours(of_method, spec.fairness),
                    *([] if spec.as_paper is None else [_ours(of_method, spec.as_paper)]),
                    paper.text(spec.table, dataset, spec.notion, method, spec.fairness),
                    _ours(of_method, "auc"),
                    _ours(of_method, "balanced_accuracy"),
                    _ours(of_method, "base_rate"),
                    _rows(of_method),
                    _seeds(of_method),
                ]
            )
        lines += section(dataset)
        lines += list_table(header, rows)
    return lines


def attributes_table_page(summary: pd.DataFrame, paper: PaperNumbers) -> list[str]:
    """The body of Table 4's page, several attributes under EO (after its head and
    :func:`selection_rule`).

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`summarise_runs` of the study's runs.
    paper : PaperNumbers

    Returns
    -------
    list of str
        reStructuredText lines.
    """
    notion = "eo"
    lines = [
        "The joint score is that of all the dataset's attributes at once; DEO of a "
        "continuous attribute is computed after binarising it at its median, as in the "
        "paper. The paper does not say how it scaled the outcomes, so its MSE may not be "
        "on our scale.",
        "",
    ]
    for dataset in ATTRIBUTE_DATASETS:
        ours, methods = _of_table(summary, paper, ATTRIBUTES_TABLE, dataset, notion)
        if not methods:
            continue
        performance = _performance(ours, paper, dataset)
        name = METRIC_NAMES[performance]
        joint = []
        for method in methods:
            of_method = ours[ours["method"] == method]
            joint.append(
                [
                    method,
                    _ours(of_method, performance),
                    paper.text(ATTRIBUTES_TABLE, dataset, notion, method, performance),
                    _ours(of_method, f"faircocco_{notion}"),
                    _ours(of_method, f"faircocco_{notion}_adjusted"),
                    paper.text(ATTRIBUTES_TABLE, dataset, notion, method, "faircocco"),
                    _rows(of_method),
                    _seeds(of_method),
                ]
            )
        lines += section(dataset)
        lines += list_table(
            [
                "Method",
                name,
                f"{name} (paper)",
                "FairCOCCO",
                "FairCOCCO adjusted",
                "FairCOCCO (paper)",
                "N (test)",
                "Seeds",
            ],
            joint,
            title="Joint",
        )
        per_attribute = []
        for attribute in _attributes(ours, paper, dataset):
            for method in methods:
                of_method = ours[ours["method"] == method]
                per_attribute.append(
                    [
                        method,
                        attribute,
                        _ours(of_method, f"faircocco_{notion}[{attribute}]"),
                        _ours(of_method, f"faircocco_{notion}_adjusted[{attribute}]"),
                        paper.text(
                            ATTRIBUTES_TABLE, dataset, notion, method, "faircocco", attribute
                        ),
                        _ours(of_method, f"deo[{attribute}]"),
                        paper.text(ATTRIBUTES_TABLE, dataset, notion, method, "deo", attribute),
                    ]
                )
        lines += list_table(
            [
                "Method",
                "Attribute",
                "FairCOCCO",
                "FairCOCCO adjusted",
                "FairCOCCO (paper)",
                "DEO",
                "DEO (paper)",
            ],
            per_attribute,
            title="Per attribute",
        )
    return lines


def _of_table(
    summary: pd.DataFrame, paper: PaperNumbers, table: str, dataset: str, notion: str
) -> tuple[pd.DataFrame, list[str]]:
    """Our summary of one dataset and notion of a table, and the table's methods: ours in the
    tables' order, then the paper's methods we did not run."""
    ours = summary[(summary["dataset"] == dataset) & (summary["notion"] == notion)]
    ran = list(method_order(ours["method"]))
    return ours, ran + [m for m in paper.methods(table, dataset) if m not in ran]


def _ours(of_method: pd.DataFrame, metric: str) -> str:
    """Our mean ± std of one metric, marked when a chosen model is degenerate."""
    if of_method.empty:
        return MISSING
    status = str(of_method["status"].iloc[0])
    if status != "ok":
        return status.replace("_", " ")
    row = of_method[of_method["metric"] == metric]
    if row.empty or math.isnan(float(row["mean"].iloc[0])):
        return MISSING
    cell = format_mean_std(float(row["mean"].iloc[0]), float(row["std"].iloc[0]), 3)
    degenerate = int(row["seeds_degenerate"].iloc[0]) > 0
    return cell + (f" {DEGENERATE_MARK}" if degenerate else "")


def _rows(of_method: pd.DataFrame) -> str:
    """Test rows the scores are computed on (mean over seeds)."""
    values = of_method["n_rows"].astype(float).dropna()
    return f"{values.iloc[0]:,.0f}" if len(values) else MISSING


def _seeds(of_method: pd.DataFrame) -> str:
    if of_method.empty:
        return MISSING
    first = of_method.iloc[0]
    return f"{int(first['seeds_ok'])} of {int(first['seeds'])}"


def _attributes(ours: pd.DataFrame, paper: PaperNumbers, dataset: str) -> list[str]:
    """Our attributes (those with a DEO), then the paper's that we lack (case aside)."""
    found = [m["name"] for m in map(_ATTRIBUTE.match, ours["metric"].astype(str)) if m]
    names = list(dict.fromkeys(found))
    rows = paper.table[
        (paper.table["table"] == ATTRIBUTES_TABLE) & (paper.table["dataset"] == dataset)
    ]
    known = {name.lower() for name in names}
    for attribute in dict.fromkeys(rows["attribute"]):
        if attribute and attribute.lower() not in known:
            names.append(attribute)
    return names


def _performance(ours: pd.DataFrame, paper: PaperNumbers, dataset: str) -> str:
    """Accuracy or MSE: what our runs measure, else what the paper printed."""
    for metric in ("accuracy", "mse"):
        if (ours["metric"] == metric).any():
            return metric
    rows = paper.table[
        (paper.table["table"] == ATTRIBUTES_TABLE) & (paper.table["dataset"] == dataset)
    ]
    return "mse" if (rows["metric"] == "mse").any() else "accuracy"


def notion_title(notion: str) -> str:
    """The notion's name in titles."""
    return NOTION_TITLES.get(notion, notion)
