"""The index page of one study's report, section by section.

:func:`index_blocks` assembles the page from one function per section: the study's facts, the
selection rule with links to the tables, the degenerate models, the hypervolumes, the Pareto
figures, the library versions and the study's configuration. Each returns blocks of
:mod:`._markup`, which writes them as Markdown and as HTML.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .._records.notions import NOTIONS
from ._markup import Block, Code, Figure, Heading, Link, Links, Paragraph, Table
from ._metrics import R2_THRESHOLD, SPREAD_THRESHOLD
from ._results_table_types import DEGENERATE_MARK, ResultsTable
from ._results_tables import dataset_order, format_mean_std, method_order

#: The first words of the title of every index page of a report, by which an earlier report
#: is known.
REPORT_TITLE = "FairCOCCO harness report"
#: Columns of the index page's table of degenerate models.
DEGENERATE_HEADER = (
    "method",
    "selected runs degenerate",
    "selected with every setting degenerate",
    "all runs degenerate",
)
#: Heading of the index page's hypervolume table.
HYPERVOLUME_TITLE = "Hypervolume of each method's front"
#: Columns of the index page's hypervolume table.
HYPERVOLUME_HEADER = (
    "dataset",
    "notion",
    "method",
    "runs used",
    "AUC or R², adjusted score",
    "accuracy or R², DEO",
)


@dataclass(frozen=True)
class StudyReport:
    """What the index page of one study is made from.

    Attributes
    ----------
    name : str
        The study.
    runs : pandas.DataFrame
        Its runs, as :meth:`ResultsStore.runs` returns them.
    studies : pandas.DataFrame or None
        The store's study invocations (:meth:`ResultsStore.studies`); None when the report is
        made from a table of runs.
    tables : sequence of ResultsTable
        The results tables, one per notion.
    degenerate : pandas.DataFrame
        :func:`degenerate_table` of the runs.
    hypervolumes : pandas.DataFrame
        :func:`hypervolume_table` of the runs.
    figures : mapping of (str, str) to sequence of Path
        The Pareto figures' files of each (dataset, notion); empty without figures.
    folder : Path
        The study's report folder, which links are relative to.
    tolerance, adjusted
        The selection rule's options.
    digits : int
        Decimals shown.
    """

    name: str
    runs: pd.DataFrame
    studies: pd.DataFrame | None
    tables: Sequence[ResultsTable]
    degenerate: pd.DataFrame
    hypervolumes: pd.DataFrame
    figures: Mapping[tuple[str, str], Sequence[Path]]
    folder: Path
    tolerance: float
    adjusted: bool
    digits: int


def index_blocks(report: StudyReport) -> list[Block]:
    """The index page of one study, section after section.

    Parameters
    ----------
    report : StudyReport

    Returns
    -------
    list of Block
        For :func:`render_markdown` and :func:`render_html`.
    """
    return [
        Heading(f"{REPORT_TITLE}: study {report.name}", 1),
        Table(None, facts(report.runs), ["---", "---"], css="facts"),
        *results_section(report.tables, report.tolerance, report.adjusted),
        *degenerate_section(report.degenerate),
        *hypervolume_section(report.hypervolumes, report.digits),
        *pareto_section(report.figures, report.folder),
        *environment_section(report.runs, report.studies, report.name),
        *configuration_section(report.studies, report.name),
    ]


def facts(runs: pd.DataFrame) -> list[list[str]]:
    """The study at a glance: runs by status, datasets, methods, notions, seeds, when, where."""
    counts = runs["status"].value_counts()
    status = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("ok", "not_applicable", "failed"))
    rows = [
        ["runs", f"{len(runs)} ({status})"],
        ["datasets", ", ".join(dataset_order(runs["dataset"]))],
        ["methods", ", ".join(method_order(runs["method"]))],
        ["notions", ", ".join(n for n in NOTIONS if n in set(runs["notion"]))],
        ["seeds", ", ".join(str(s) for s in sorted({int(s) for s in runs["seed"]}))],
    ]
    if "finished_at" in runs.columns and runs["finished_at"].notna().any():
        stamps = runs["finished_at"].dropna().astype(str)
        rows.append(["runs finished", f"{stamps.min()} to {stamps.max()}"])
    if "git_revision" in runs.columns:
        revisions = sorted({str(r) for r in runs["git_revision"].dropna()})
        rows.append(["git revision", ", ".join(revisions) or "unknown"])
    return rows


def selection_rule(tolerance: float, adjusted: bool) -> str:
    """How each seed's hyper-parameters are chosen, in words."""
    score = "chance-adjusted " if adjusted else ""
    return (
        "Hyper-parameters are selected per dataset, notion, method and seed on the "
        "validation part only. Settings whose model is degenerate on the validation part "
        "(a single predicted class, or a regression no better than the mean) are set aside "
        "unless every setting is: such a model scores as perfectly fair and, on "
        "imbalanced data, as accurate as the majority rate. Among the others, the rule "
        "takes the best validation balanced accuracy (0.5 for any constant predictor; "
        "accuracy where it is undefined; the lowest validation MSE for regression) among "
        f"the settings whose validation {score}FairCOCCO score under the notion is at most "
        f"{tolerance:g}; when none is, the fairest setting. Balanced "
        "accuracy judges the predicted labels; the fairness scores judge the predicted "
        "probabilities where the method gives them (its labels otherwise), so that a "
        "model cannot look fair by putting every row in one class while its scores still "
        "follow the attributes. Tables report the test metrics of the selected runs; "
        "selected-runs.csv lists them."
    )


def results_section(
    tables: Sequence[ResultsTable], tolerance: float, adjusted: bool
) -> list[Block]:
    """The selection rule, and links to the results tables and the report's other files."""
    links = [Link(t.title, f"results-{t.notion}.md", f"results-{t.notion}.html") for t in tables]
    links += [
        Link("Method capabilities", "capabilities.md", "capabilities.html"),
        Link("Selected runs", "selected-runs.csv", "selected-runs.csv"),
        Link("Hypervolumes", "hypervolumes.csv", "hypervolumes.csv"),
    ]
    return [Heading("Results"), Paragraph(selection_rule(tolerance, adjusted)), Links(links)]


_DEGENERATE_TEXT = (
    "A model is degenerate on a part when it predicts a single class there, or, for "
    "regression, when it is no better than predicting the part's mean outcome: its R² "
    f"there (1 − MSE / variance of the outcome) is at most {R2_THRESHOLD:g}, or its "
    f"predictions' standard deviation is below {SPREAD_THRESHOLD:g} of the outcome's. "
    "Such a model is trivially fair. The counts are on the test part, which the tables "
    f"report: there its cells are marked {DEGENERATE_MARK} and never bold, its points "
    "in the Pareto figures are crosses that are never on the front, and its runs are "
    "left out of the hypervolumes. The middle column counts the selected runs whose "
    "every setting was degenerate on the validation part, where the selection had no "
    "other choice."
)


def degenerate_section(degenerate: pd.DataFrame) -> list[Block]:
    """What a degenerate model is, and how many of each method's runs are degenerate."""
    rows = [
        [
            str(method),
            f"{row['selected_degenerate']} of {row['selected']}",
            f"{row['no_alternative']} of {row['selected']}",
            f"{row['runs_degenerate']} of {row['runs']}",
        ]
        for method, row in degenerate.iterrows()
    ]
    return [
        Heading("Degenerate models"),
        Paragraph(_DEGENERATE_TEXT),
        Table(DEGENERATE_HEADER, rows, ["---", *["---:"] * 3], css="degenerate"),
    ]


_HYPERVOLUME_TEXT = (
    "The share of the unit box that each method's runs dominate on the test part, "
    "from 0 (no better than chance, or no fairer than the unpenalised network) to 1 "
    "(a perfect, fair model); higher is better. It takes every successful run of the method, each "
    "setting of its sweep, so it does not depend on the selection rule. In the first "
    "plane performance is 2 (AUC − 0.5) (2 (balanced accuracy − 0.5) for a run "
    "without an AUC) and unfairness the chance-adjusted FairCOCCO score under the "
    "notion; in the second, accuracy above the majority rate m, (accuracy − m) / "
    "(1 − m), and DEO. For regression both planes use the test R², 1 − MSE / variance "
    "of the outcome. Unfairness is divided by the unpenalised network's (nn, its mean "
    "over the runs of the dataset and notion), so the methods of a dataset and notion "
    "share one box with a fixed reference point: a run less fair than the network covers "
    "nothing, and adding a method leaves the others' values as they are; without nn "
    "there is no reference and no hypervolume. "
    "Runs degenerate on the test part are left out ('runs used' counts the others). "
    "Each cell is the mean ± standard deviation over seeds of the hypervolume of the "
    "seed's front; hypervolumes.csv holds the same numbers."
)


def hypervolume_section(hypervolumes: pd.DataFrame, digits: int) -> list[Block]:
    """Each method's hypervolume (:func:`hypervolume_table`); nothing when there is none."""
    if hypervolumes.empty:
        return []

    def cell(row: pd.Series, front: str) -> str:
        mean, std = float(row[f"{front}_mean"]), float(row[f"{front}_std"])
        return "—" if math.isnan(mean) else format_mean_std(mean, std, digits)

    rows = [
        [
            str(row["dataset"]),
            str(row["notion"]).upper(),
            str(row["method"]),
            f"{row['runs'] - row['runs_degenerate']} of {row['runs']}",
            cell(row, "adjusted"),
            cell(row, "deo"),
        ]
        for _, row in hypervolumes.iterrows()
    ]
    return [
        Heading(HYPERVOLUME_TITLE),
        Paragraph(_HYPERVOLUME_TEXT),
        Table(HYPERVOLUME_HEADER, rows, [*["---"] * 3, *["---:"] * 3], css="hypervolumes"),
    ]


_PARETO_TEXT = (
    "Pareto figures: x is the test FairCOCCO score under the notion (lower is fairer), "
    "y the test accuracy (higher is better) or MSE (lower is better). Each method's "
    "points follow its sweep parameter (penalty weight or bound), joined in sweep "
    "order; each point is the setting with the best mean validation performance at "
    "that sweep value (among those not degenerate on validation, when there are any), "
    "drawn at its mean over seeds with standard-deviation bars. "
    "Crosses are settings degenerate on the test part for some seed: they are never on "
    "the front and dominate no other point. Circled points, joined by the dashed "
    "staircase, are non-dominated: no other point without a cross is both fairer and "
    "better. On accuracy axes the dotted line is the majority rate, the accuracy of "
    "always predicting the majority class: points near it predict little, whatever "
    "their fairness."
)


def pareto_section(figures: Mapping[tuple[str, str], Sequence[Path]], folder: Path) -> list[Block]:
    """How to read the Pareto figures, and the figures; nothing when none was drawn."""
    if not figures:
        return []
    shown: list[Block] = [
        Figure(
            f"{dataset}, {notion.upper()}",
            f"{dataset} {notion}",
            [file.relative_to(folder).as_posix() for file in files],
        )
        for (dataset, notion), files in figures.items()
    ]
    return [Heading("Pareto fronts"), Paragraph(_PARETO_TEXT), *shown]


def versions(runs: pd.DataFrame, studies: pd.DataFrame | None, name: str) -> list[list[str]]:
    """Each library's versions over the study's runs and invocations."""
    found: dict[str, set[str]] = {}
    sources: list[Any] = list(runs.get("versions", pd.Series(dtype=object)))
    if studies is not None:
        sources += list(studies.loc[studies["study"] == name, "versions"])
    for recorded in sources:
        if isinstance(recorded, Mapping):
            for library, version in recorded.items():
                found.setdefault(str(library), set()).add(str(version))
    return [[k, ", ".join(sorted(v))] for k, v in sorted(found.items())]


def environment_section(runs: pd.DataFrame, studies: pd.DataFrame | None, name: str) -> list[Block]:
    """The library versions the study ran with."""
    rows = versions(runs, studies, name)
    table = [Table(["library", "version"], rows, ["---", "---"], css="versions")] if rows else []
    return [Heading("Environment"), *table]


def configuration_section(studies: pd.DataFrame | None, name: str) -> list[Block]:
    """Each invocation of the study: when, at which git revision, with which configuration."""
    of_study = [] if studies is None else list(studies[studies["study"] == name].iterrows())
    if not of_study:
        return [
            Paragraph(
                "The study's configuration is not known: the report was made from a table of runs."
            )
        ]
    blocks: list[Block] = [Heading("Study configuration")]
    for _, invocation in of_study:
        blocks += [
            Paragraph(
                f"Started {invocation['started_at']} at git revision "
                f"{invocation['git_revision'] or 'unknown'}:"
            ),
            Code(json.dumps(invocation["config"], indent=2, sort_keys=True), "json"),
        ]
    return blocks
