"""The report of a study: results tables, Pareto figures, hypervolumes and capabilities on pages.

Markdown and HTML pages, one folder per study, with an index linking everything. This module
gathers a study's results and writes the files; :mod:`._report_index` composes the index page
section by section, and :mod:`._markup` writes any page as Markdown and as HTML.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._inputs.files import check_writable
from ..plugins import MethodSpec, available_methods
from ._capability_table import LEGEND, capability_table
from ._degenerate_table import degenerate_table
from ._file_names import file_names
from ._hypervolume_table import hypervolume_table
from ._markup import (
    Block,
    Heading,
    Link,
    Links,
    Paragraph,
    Table,
    html_page,
    render_html,
    render_markdown,
)
from ._plots import plot_pareto_fronts
from ._report_index import REPORT_TITLE, StudyReport, index_blocks
from ._results_tables import (
    GROUP_COLUMNS,
    REPORT_FORMATS,
    method_order,
    results_tables,
    summarise_runs,
)
from ._selection import DEFAULT_TOLERANCE, params_key, select_runs
from ._store import ResultsStore


def write_report(
    store_or_runs: ResultsStore | str | os.PathLike[str] | pd.DataFrame,
    out_dir: str | os.PathLike[str],
    *,
    study: str | None = None,
    formats: Sequence[str] = REPORT_FORMATS,
    plots: bool = True,
    tolerance: float = DEFAULT_TOLERANCE,
    adjusted: bool = False,
    digits: int = 3,
) -> Path:
    """Write a study's report: tables, Pareto figures, capability table and an index page.

    The folder receives, per study:

    * ``results-<notion>.md`` / ``.html``: :func:`results_tables`;
    * ``pareto/<dataset>-<notion>.png`` / ``.svg``: :func:`plot_pareto_fronts` (unless
      ``plots=False``);
    * ``capabilities.md`` / ``.html``: :func:`capability_table` of the study's methods that
      are registered here;
    * ``selected-runs.csv``: the run selected for each dataset, notion, method and seed,
      with its hyper-parameters;
    * ``hypervolumes.csv``: :func:`hypervolume_table`, the hypervolume of each method's front
      of all its runs;
    * ``README.md`` / ``index.html``: links to all of these, the runs' counts by status, the
      selection rule, :func:`degenerate_table` (how many of each method's runs are
      degenerate), the hypervolume table, the study's configuration, the library versions
      and git revisions.

    A store with several studies (and ``study=None``) gets one such folder per study, named
    after it (characters other than letters, digits, ``.``, ``_`` and ``-``, and leading dots,
    written ``_``), and an index linking them.

    Only files of the report are replaced: a folder that holds other files, and no earlier
    report, is refused before anything is written.

    Parameters
    ----------
    store_or_runs : ResultsStore, path or pandas.DataFrame
        An open store, the path of an existing store, or runs as returned by
        :meth:`ResultsStore.runs` (then the study's configuration is not known).
    out_dir : str or path-like
        The report folder: new, empty, or holding an earlier report, whose files of the same
        names are replaced; created when missing.
    study : str, optional
        Report this study only.
    formats : sequence of {"md", "html"}
        Formats of the tables and index pages.
    plots : bool
        Draw the Pareto figures (needs matplotlib).
    tolerance, adjusted
        The selection rule's tolerance on the validation FairCOCCO score, and whether it
        judges the chance-adjusted score; see :func:`select_runs`.
    digits : int
        Decimals shown in the tables.

    Returns
    -------
    Path
        The report folder.

    Raises
    ------
    ValueError
        When the store does not exist or has no runs (of ``study``), an option is invalid, two
        studies would share a folder (``"a b"`` and ``"a_b"``), or a folder of the report holds
        files that are not an earlier report.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from faircocco_plugins.bench import ResultsStore, RunRecord
    >>> from faircocco_plugins.bench import write_report
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with ResultsStore(folder / "results.sqlite") as store:
    ...     store.add(RunRecord(
    ...         run_id="r1", study="demo", dataset="german", method="nn", notion="eo", seed=0,
    ...         params={}, settings={}, status="ok",
    ...         metrics={"validation.accuracy": 0.7, "validation.faircocco_eo": 0.1,
    ...                  "test.accuracy": 0.72, "test.faircocco_eo": 0.12},
    ...     ))
    ...     out = write_report(store, folder / "report", plots=False)
    >>> sorted(path.name for path in out.iterdir())[:3]
    ['README.md', 'capabilities.html', 'capabilities.md']
    """
    formats = _check_formats(formats)
    if not isinstance(plots, bool):
        raise TypeError(f"plots must be a bool; got {type(plots).__name__}.")
    runs, studies = _load(store_or_runs, study)
    names = runs["study"].astype(str).unique().tolist()
    folder = Path(out_dir)
    # several studies get a folder each, inside the report's
    subs = file_names(names, "studies") if len(names) > 1 else {}
    check_report_folder(folder)
    for sub in subs.values():
        _check_holds_no_other_files(folder / sub)
    folder.mkdir(parents=True, exist_ok=True)
    methods = _registered_methods()
    options = {"tolerance": tolerance, "adjusted": adjusted, "digits": digits, "plots": plots}
    if not subs:
        _write_study(runs, studies, names[0], folder, formats, methods, options)
        return folder
    for name, sub in subs.items():
        of_study = runs[runs["study"] == name]
        _write_study(of_study, studies, name, folder / sub, formats, methods, options)
    _write_studies_index(folder, list(subs.items()), formats)
    return folder


def check_report_folder(folder: str | os.PathLike[str]) -> None:
    """Refuse a report folder before the work: one that holds files but no earlier report,
    or that cannot be written.

    Raises
    ------
    ValueError
        Saying which, and what to do.
    """
    _check_holds_no_other_files(Path(folder))
    check_writable(folder, "the report folder")


def _check_holds_no_other_files(folder: Path) -> None:
    """Refuse a folder holding files but no earlier report: the report could replace them."""
    held = sorted(path.name for path in folder.iterdir()) if folder.is_dir() else []
    if not held or _holds_a_report(folder):
        return
    shown = ", ".join(held[:5]) + (", ..." if len(held) > 5 else "")
    raise ValueError(
        f"the report folder {folder} holds files that are not an earlier report ({shown}), "
        "which writing the report could replace; name a new or empty folder, or one that "
        "holds an earlier report."
    )


def _holds_a_report(folder: Path) -> bool:
    """Whether ``folder``'s index page, in either format, is a report's."""
    pages = {"README.md": f"# {REPORT_TITLE}", "index.html": f"<h1>{REPORT_TITLE}"}
    for page, title in pages.items():
        try:
            if title in (folder / page).read_text(encoding="utf-8", errors="replace"):
                return True
        except OSError:  # missing, a folder, unreadable
            continue
    return False


def _check_formats(formats: Sequence[str]) -> tuple[str, ...]:
    if isinstance(formats, str):
        formats = [f.strip() for f in formats.split(",")]
    chosen = tuple(dict.fromkeys(formats))
    unknown = [f for f in chosen if f not in REPORT_FORMATS]
    if unknown or not chosen:
        raise ValueError(
            f"formats={list(formats)!r} is not valid; expected a non-empty subset of "
            f"{list(REPORT_FORMATS)}."
        )
    return chosen


def _load(
    source: ResultsStore | str | os.PathLike[str] | pd.DataFrame, study: str | None
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The runs (of ``study``) and the store's study invocations (None for a DataFrame)."""
    if study is not None and not isinstance(study, str):
        raise TypeError(f"study must be a str; got {type(study).__name__}.")
    studies: pd.DataFrame | None = None
    if isinstance(source, pd.DataFrame):
        runs = source
        if study is not None and "study" in runs.columns:
            runs = runs[runs["study"] == study]
    elif isinstance(source, ResultsStore):
        runs, studies = source.runs(study), source.studies()
    elif isinstance(source, str | os.PathLike):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"the results store {str(path)!r} does not exist.")
        with ResultsStore(path) as store:
            runs, studies = store.runs(study), store.studies()
    else:
        raise TypeError(
            "store_or_runs must be a ResultsStore, the path of one, or a DataFrame of runs; "
            f"got {type(source).__name__}."
        )
    if runs.empty:
        where = f" of study {study!r}" if study is not None else ""
        known = "" if studies is None else f" (studies in the store: {_study_names(studies)})"
        raise ValueError(f"there are no runs{where} to report{known}.")
    return runs, studies


def _study_names(studies: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(str(s) for s in studies["study"]))


def _registered_methods() -> dict[str, MethodSpec]:
    # a broken adapter should not stop the report of the others: warn and go on
    return available_methods(on_error="warn")


def _write_study(
    runs: pd.DataFrame,
    studies: pd.DataFrame | None,
    name: str,
    folder: Path,
    formats: tuple[str, ...],
    registered: Mapping[str, MethodSpec],
    options: Mapping[str, Any],
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    summary = summarise_runs(runs, tolerance=options["tolerance"], adjusted=options["adjusted"])
    tables = results_tables(summary, digits=options["digits"])
    for table in tables:
        _write_page(
            folder, f"results-{table.notion}", table.title, table.markdown(), table.html(), formats
        )
    study_methods = method_order(runs["method"])
    known = {m: registered[m] for m in study_methods if m in registered}
    _write_capabilities(folder, known, [m for m in study_methods if m not in registered], formats)
    selected = select_runs(runs, tolerance=options["tolerance"], adjusted=options["adjusted"])
    _selected_csv(selected).to_csv(folder / "selected-runs.csv", index=False)
    degenerate = degenerate_table(
        runs, tolerance=options["tolerance"], adjusted=options["adjusted"]
    )
    hypervolumes = hypervolume_table(runs)
    hypervolumes.to_csv(folder / "hypervolumes.csv", index=False)
    figures: dict[tuple[str, str], list[Path]] = {}
    if options["plots"]:
        sweeps = {m: spec.sweep_param for m, spec in known.items()}
        figures = plot_pareto_fronts(
            runs, folder / "pareto", sweep_params=sweeps, methods=study_methods
        )
    index = StudyReport(
        name=name,
        runs=runs,
        studies=studies,
        tables=tables,
        degenerate=degenerate,
        hypervolumes=hypervolumes,
        figures=figures,
        folder=folder,
        tolerance=options["tolerance"],
        adjusted=options["adjusted"],
        digits=options["digits"],
    )
    _write_index(folder, f"Study {name}", index_blocks(index), formats)


def _write_page(
    folder: Path, stem: str, title: str, markdown: str, fragment: str, formats: Sequence[str]
) -> None:
    if "md" in formats:
        (folder / f"{stem}.md").write_text(markdown, encoding="utf-8")
    if "html" in formats:
        (folder / f"{stem}.html").write_text(html_page(title, fragment), encoding="utf-8")


def _write_index(folder: Path, title: str, blocks: Sequence[Block], formats: Sequence[str]) -> None:
    """A folder's index page: README.md (shown by code hosts) and index.html."""
    if "md" in formats:
        (folder / "README.md").write_text(render_markdown(blocks), encoding="utf-8")
    if "html" in formats:
        (folder / "index.html").write_text(html_page(title, render_html(blocks)), encoding="utf-8")


def _write_capabilities(
    folder: Path,
    methods: Mapping[str, MethodSpec],
    unknown: Sequence[str],
    formats: Sequence[str],
) -> None:
    table = capability_table(methods)
    title = "Method capabilities"
    header = ["method", *table.columns]
    rows = [[str(index), *(str(v) for v in row)] for index, row in table.iterrows()]
    blocks: list[Block] = [
        Heading(title, 1),
        Paragraph(
            "Generated from the capabilities each method declares in its MethodSpec "
            "(entry-point group faircocco_plugins.mitigators)."
        ),
        Table(header, rows, ["---"] * len(header), css="capabilities"),
        Paragraph(LEGEND),
    ]
    if unknown:
        blocks.append(Paragraph(f"Not registered here, so not described: {', '.join(unknown)}."))
    _write_page(
        folder, "capabilities", title, render_markdown(blocks), render_html(blocks), formats
    )


def _selected_csv(selected: pd.DataFrame) -> pd.DataFrame:
    front = [
        c
        for c in (
            *GROUP_COLUMNS,
            "seed",
            "status",
            "selected_by",
            "ranked_by",
            "n_settings",
            "n_degenerate",
            "params",
            "run_id",
        )
        if c in selected.columns
    ]
    metrics = [c for c in selected.columns if str(c).startswith(("validation.", "test."))]
    table = selected[front + metrics].copy()
    if "params" in table:
        table["params"] = [params_key(p) for p in table["params"]]
    return table


def _write_studies_index(
    folder: Path, links: Sequence[tuple[str, str]], formats: Sequence[str]
) -> None:
    title = f"{REPORT_TITLE}s"
    studies = Links([Link(name, f"{sub}/README.md", f"{sub}/index.html") for name, sub in links])
    _write_index(folder, title, [Heading(title, 1), studies], formats)
