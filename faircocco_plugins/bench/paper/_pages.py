"""The results pages of the paper's study, written from its export as Sphinx pages.

:func:`write_pages` writes, into one folder:

* ``table-3-eo.rst``, ``table-9-dp.rst``, ``table-11-cal.rst``: the binary tables, our selected
  models beside the paper's numbers (:mod:`._tables`);
* ``table-4-attributes.rst``: several attributes under EO;
* ``fronts.rst`` and ``fronts/*.png``: the fronts over each method's strength, with their
  hypervolumes (:mod:`._fronts`);
* ``matched-fairness.rst`` and ``matched/*.png``: each method's test performance at a few levels
  of DI, DEO and the chance-adjusted score, of the model chosen per seed on validation
  (:mod:`._matched`);
* ``choosing-lambda.rst``: the smallest λ that halves the network's unfairness, its cost and a
  recommendation (:mod:`._lambda`);
* ``paper/claims.rst``: each of the paper's claims judged on the runs by a stated rule (Holm's
  correction, practical margins, a symmetric verdict), beside the paper's numbers and
  ``claims.md`` (:mod:`._claims`);
* ``convergence.rst``, ``attributes.rst``, ``pvalues.rst``: the paper's smaller experiments,
  from the tables of ``faircocco paper-experiment`` when given (:mod:`._extra_pages`);
* ``literal-configuration.rst``: FairCOCCO as the paper's text reads beside the project's
  defaults, per λ, with the seeds near chance (:mod:`._literal`);
* ``sensitivity.rst``: the selected models beside those of variants of the study (each
  method's own learning rate, more epochs), from their exports when given
  (:mod:`._sensitivity`);
* ``index.rst``: the table of contents, the tuning stage's choices and links to the paper's
  numbers and claims; it links the mixed-attribute study's page too where
  ``faircocco mixed-page`` has written one into the folder (:mod:`._mixed`).

Each page ends with the command that wrote it, the code's revision, the machine, and the
study's time.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..._inputs.files import check_writable
from ..._records.notions import NOTIONS
from .._file_names import file_names
from .._protocol import chosen_training
from .._results_tables import dataset_order, summarise_runs
from .._selection import DEFAULT_TOLERANCE
from ._claims import claims_page
from ._common import (
    MISSING,
    PaperNumbers,
    list_table,
    load_runs,
    page_head,
    page_sources,
    section,
    table_section,
    write_page,
)
from ._extra_pages import REQUIRED, read_table, write_experiment_pages
from ._fronts import fronts_page
from ._lambda import lambda_page
from ._literal import literal_page
from ._matched import matched_page
from ._mixed import PAGE_NAME as MIXED_PAGE
from ._sensitivity import write_sensitivity_page
from ._tables import (
    BINARY_TABLES,
    attributes_table_page,
    binary_table_page,
    notion_title,
    selection_rule,
)

#: The pages, by file name (without suffix), in the order of the table of contents.
PAGE_TITLES: dict[str, str] = {
    **{
        spec.page: f"{spec.table}: one binary attribute, {notion_title(spec.notion)}"
        for spec in BINARY_TABLES
    },
    "table-4-attributes": "Table 4: several attributes, equalised odds (EO)",
    "fronts": "Fronts of performance against fairness",
    "matched-fairness": "Accuracy at matched fairness",
    "choosing-lambda": "Choosing λ: what the study measured",
    "literal-configuration": "The paper's literal configuration against the defaults",
}
#: The claims page, beside the paper's numbers and claims in the results folder.
CLAIMS_PAGE = "paper/claims.rst"


def write_pages(
    export: str | os.PathLike[str],
    paper: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    command: str,
    tuning: str | os.PathLike[str] | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    adjusted: bool = False,
    relative_to: str | None = None,
    plots: bool = True,
    experiments: Mapping[str, str | os.PathLike[str]] | None = None,
    sensitivity: Mapping[str, str | os.PathLike[str]] | None = None,
) -> list[Path]:
    """Write the results pages of a study from its export.

    Parameters
    ----------
    export : str or path-like
        The study's export (``faircocco export``).
    paper : str or path-like
        The paper's numbers, ``paper_numbers.csv``.
    out : str or path-like
        The pages' folder (created when missing; pages of the same names replaced).
    command : str
        The command that writes the pages, printed at the end of each.
    tuning : str or path-like, optional
        The export of the study's tuning stage; its chosen learning rates and batch sizes are
        listed on the index page.
    tolerance, adjusted, relative_to
        The selection rule's settings (:func:`select_runs`).
    plots : bool
        Draw the fronts' and the matched fairness figures (needs matplotlib); without them
        those pages hold their tables only.
    experiments : mapping of str to path, optional
        Tables of ``faircocco paper-experiment`` by experiment name (``convergence``,
        ``attributes``, ``pvalues``); each adds its page (:func:`write_experiment_pages`).
    sensitivity : mapping of str to path, optional
        Exports of the study's variants by key (``lr``, ``epochs``); they add the sensitivity
        page (:func:`write_sensitivity_page`).

    Returns
    -------
    list of Path
        The pages written, the index last.

    Examples
    --------
    See ``faircocco pages --help`` and :doc:`/user-guide/harness`.
    """
    frame, runs = load_runs(export)
    if runs.empty:
        raise ValueError(f"export={os.fspath(export)!r} holds no runs; export a study first.")
    file_names(runs["dataset"].astype(str).unique(), "datasets")  # the figures are named so
    check_writable(out, "the pages' folder")
    numbers = PaperNumbers.read(paper)
    folder = Path(out)
    rule: dict[str, Any] = {
        "tolerance": tolerance,
        "adjusted": adjusted,
        "relative_to": relative_to,
    }
    summary = summarise_runs(runs, **rule)
    stated = selection_rule(**rule)  # heads each table page, whose cells the rule chose
    bodies: dict[str, list[str]] = {
        spec.page: [*stated, *binary_table_page(summary, numbers, spec)] for spec in BINARY_TABLES
    }
    bodies["table-4-attributes"] = [*stated, *attributes_table_page(summary, numbers)]
    bodies["fronts"] = fronts_page(runs, folder, plots=plots)
    bodies["matched-fairness"] = matched_page(runs, folder, plots=plots)
    bodies["choosing-lambda"] = lambda_page(runs)
    bodies["literal-configuration"] = literal_page(runs)
    sources = page_sources(command, frame)
    written = []
    for name, title in PAGE_TITLES.items():
        head = page_head(title, label=f"results-{name}")
        written.append(write_page(folder / f"{name}.rst", [*head, *bodies[name], *sources]))
    claims = folder / CLAIMS_PAGE
    claims_md = Path(os.path.relpath(Path(paper).with_name("claims.md"), claims.parent))
    head = page_head("The paper's claims, judged", label="results-claims")
    tables = {name: read_table(path, REQUIRED[name]) for name, path in (experiments or {}).items()}
    body = claims_page(runs, **rule, claims_md=claims_md.as_posix(), experiments=tables)
    written.append(write_page(claims, [*head, *body, *sources]))
    extra = write_experiment_pages(
        folder, command=command, tables=experiments or {}, paper=numbers, plots=plots
    )
    if sensitivity:
        extra.append(write_sensitivity_page(folder, runs, sensitivity, command=command, **rule))
    written += extra
    index = page_head("Results of the paper's study", label="results")
    index += _links(Path(paper), folder)
    index += _coverage(runs)
    if tuning is not None:
        index += _tuning(tuning)
    pages = [*PAGE_TITLES, CLAIMS_PAGE.removesuffix(".rst"), *(page.stem for page in extra)]
    if (folder / f"{MIXED_PAGE}.rst").is_file():  # written by faircocco mixed-page
        pages.append(MIXED_PAGE)
    index += [".. toctree::", "   :maxdepth: 1", "", *(f"   {name}" for name in pages), ""]
    index += sources
    written.append(write_page(folder / "index.rst", index))
    return written


def _links(paper: Path, folder: Path) -> list[str]:
    """Download links to the paper's numbers and, beside them, their notes and its claims."""
    files = [("the paper's reported numbers", paper)]
    for name, what in (
        ("README.md", "their columns, units, tables and method ids"),
        ("claims.md", "what the paper claims, and which numbers test each claim"),
    ):
        if paper.with_name(name).exists():
            files.append((what, paper.with_name(name)))
    links = [
        f"* :download:`{what} <{Path(os.path.relpath(path, folder)).as_posix()}>`"
        for what, path in files
    ]
    return [
        "These pages compare the study's runs with the numbers the paper reports:",
        "",
        *links,
        "",
    ]


def _coverage(runs: pd.DataFrame) -> list[str]:
    """What the export holds per dataset: a study run in sittings is published part-way."""
    rows: list[Sequence[str]] = []
    for dataset in dataset_order(runs["dataset"]):
        of_dataset = runs[runs["dataset"] == dataset]
        ok = of_dataset[of_dataset["status"] == "ok"]
        rows.append(
            [
                dataset,
                str(len(ok)),
                str(int((of_dataset["status"] == "failed").sum())),
                str(ok["method"].nunique()),
                ", ".join(n for n in NOTIONS if n in set(ok["notion"])) or MISSING,
                ", ".join(str(s) for s in sorted({int(s) for s in ok["seed"]})) or MISSING,
            ]
        )
    return table_section(
        "What the study holds",
        "The study runs in sittings, and each sitting ends with a fresh export; these pages "
        "are written from the export below. Runs that are not applicable (a method that "
        "does not support a notion or task) are not counted.",
        ["Dataset", "Runs", "Failed", "Methods", "Notions", "Seeds"],
        rows,
    )


def _tuning(tuning: str | os.PathLike[str]) -> list[str]:
    """The tuning stage's choice of learning rate and batch size per dataset."""
    _, runs = load_runs(tuning)
    chosen = chosen_training(runs)
    rows: list[Sequence[str]] = [
        [
            dataset,
            f"{params.get('learning_rate', '')}",
            f"{params.get('batch_size', '')}",
            str(int((runs["dataset"] == dataset).sum())),
        ]
        for dataset, params in chosen.items()
    ]
    lines = section("Training settings")
    lines += [
        "Each dataset's learning rate and batch size, chosen once for the unpenalised network "
        "on the validation part of the first seed (the highest AUC, or the lowest MSE; never "
        "a degenerate model) and fixed for every method:",
        "",
    ]
    return lines + list_table(["Dataset", "Learning rate", "Batch size", "Tuning runs"], rows)
