"""The report of a study: results tables, Pareto figures, hypervolumes and capabilities on pages.

Markdown and HTML pages, one folder per study, with an index linking everything.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..plugins import NOTIONS, MethodSpec, available_methods
from ._capability_table import LEGEND, capability_table
from ._degenerate_table import degenerate_table
from ._hypervolume_table import hypervolume_table
from ._metrics import R2_THRESHOLD, SPREAD_THRESHOLD
from ._plots import plot_pareto_fronts
from ._results_tables import (
    DEGENERATE_MARK,
    GROUP_COLUMNS,
    REPORT_FORMATS,
    ResultsTable,
    dataset_order,
    format_mean_std,
    md_escape,
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
    after it, and an index linking them.

    Parameters
    ----------
    store_or_runs : ResultsStore, path or pandas.DataFrame
        An open store, the path of an existing store, or runs as returned by
        :meth:`ResultsStore.runs` (then the study's configuration is not known).
    out_dir : str or path-like
        The report folder; created when missing, files of the same names replaced.
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
        When the store does not exist or has no runs (of ``study``), or an option is invalid.

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
    folder.mkdir(parents=True, exist_ok=True)
    methods = _registered_methods()
    options = {"tolerance": tolerance, "adjusted": adjusted, "digits": digits, "plots": plots}
    if len(names) == 1:
        _write_study(runs, studies, names[0], folder, formats, methods, options)
        return folder
    links = []
    for name in names:
        sub = folder / _safe_name(name)
        _write_study(runs[runs["study"] == name], studies, name, sub, formats, methods, options)
        links.append((name, sub.name))
    _write_studies_index(folder, links, formats)
    return folder


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


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "study"


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
    index = _Index(name, runs, studies, tables, degenerate, hypervolumes, figures, folder, options)
    if "md" in formats:
        (folder / "README.md").write_text(index.markdown(), encoding="utf-8")
    if "html" in formats:
        (folder / "index.html").write_text(
            _html_page(f"Study {name}", index.html()), encoding="utf-8"
        )


def _write_page(
    folder: Path, stem: str, title: str, markdown: str, fragment: str, formats: Sequence[str]
) -> None:
    if "md" in formats:
        (folder / f"{stem}.md").write_text(markdown, encoding="utf-8")
    if "html" in formats:
        (folder / f"{stem}.html").write_text(_html_page(title, fragment), encoding="utf-8")


def _write_capabilities(
    folder: Path,
    methods: Mapping[str, MethodSpec],
    unknown: Sequence[str],
    formats: Sequence[str],
) -> None:
    table = capability_table(methods)
    title = "Method capabilities"
    intro = (
        "Generated from the capabilities each method declares in its MethodSpec "
        "(entry-point group faircocco_plugins.mitigators)."
    )
    missing = f"Not registered here, so not described: {', '.join(unknown)}." if unknown else ""
    header = ["method", *table.columns]
    rows = [[str(index), *(str(v) for v in row)] for index, row in table.iterrows()]
    markdown = [f"# {title}", "", intro, ""]
    markdown += _md_table(header, rows, align=["---"] * len(header))
    markdown += ["", md_escape(LEGEND)]
    if missing:
        markdown += ["", missing]
    fragment = [f"<h1>{title}</h1>", f"<p>{html.escape(intro)}</p>"]
    fragment.append(_html_table(header, rows, css="capabilities"))
    fragment.append(f"<p>{html.escape(LEGEND)}</p>")
    if missing:
        fragment.append(f"<p>{html.escape(missing)}</p>")
    _write_page(
        folder, "capabilities", title, "\n".join(markdown) + "\n", "\n".join(fragment), formats
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


@dataclass
class _Index:
    """The index page of one study's report."""

    name: str
    runs: pd.DataFrame
    studies: pd.DataFrame | None
    tables: Sequence[ResultsTable]
    degenerate: pd.DataFrame
    hypervolumes: pd.DataFrame
    figures: Mapping[tuple[str, str], Sequence[Path]]
    folder: Path
    options: Mapping[str, Any]

    def facts(self) -> list[tuple[str, str]]:
        runs = self.runs
        counts = runs["status"].value_counts()
        status = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("ok", "not_applicable", "failed"))
        facts = [
            ("runs", f"{len(runs)} ({status})"),
            ("datasets", ", ".join(dataset_order(runs["dataset"]))),
            ("methods", ", ".join(method_order(runs["method"]))),
            ("notions", ", ".join(n for n in NOTIONS if n in set(runs["notion"]))),
            ("seeds", ", ".join(str(s) for s in sorted({int(s) for s in runs["seed"]}))),
        ]
        if "finished_at" in runs.columns and runs["finished_at"].notna().any():
            stamps = runs["finished_at"].dropna().astype(str)
            facts.append(("runs finished", f"{stamps.min()} to {stamps.max()}"))
        if "git_revision" in runs.columns:
            revisions = sorted({str(r) for r in runs["git_revision"].dropna()})
            facts.append(("git revision", ", ".join(revisions) or "unknown"))
        return facts

    def selection(self) -> str:
        score = "chance-adjusted " if self.options["adjusted"] else ""
        return (
            "Hyper-parameters are selected per dataset, notion, method and seed on the "
            "validation part only. Settings whose model is degenerate on the validation part "
            "(a single predicted class, or a regression no better than the mean) are set aside "
            "unless every setting is: such a model scores as perfectly fair and, on "
            "imbalanced data, as accurate as the majority rate. Among the others, the rule "
            "takes the best validation balanced accuracy (0.5 for any constant predictor; "
            "accuracy where it is undefined; the lowest validation MSE for regression) among "
            f"the settings whose validation {score}FairCOCCO score under the notion is at most "
            f"{self.options['tolerance']:g}; when none is, the fairest setting. Balanced "
            "accuracy judges the predicted labels; the fairness scores judge the predicted "
            "probabilities where the method gives them (its labels otherwise), so that a "
            "model cannot look fair by putting every row in one class while its scores still "
            "follow the attributes. Tables report the test metrics of the selected runs; "
            "selected-runs.csv lists them."
        )

    def degenerate_text(self) -> str:
        return (
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

    def degenerate_rows(self) -> list[list[str]]:
        return [
            [
                str(method),
                f"{row['selected_degenerate']} of {row['selected']}",
                f"{row['no_alternative']} of {row['selected']}",
                f"{row['runs_degenerate']} of {row['runs']}",
            ]
            for method, row in self.degenerate.iterrows()
        ]

    def hypervolume_text(self) -> str:
        return (
            "The share of the unit box that each method's runs dominate on the test part, "
            "from 0 (no better than chance, at the largest unfairness) to 1 (a perfect, fair "
            "model); higher is better. It takes every successful run of the method, each "
            "setting of its sweep, so it does not depend on the selection rule. In the first "
            "plane performance is 2 (AUC − 0.5) (2 (balanced accuracy − 0.5) for a run "
            "without an AUC) and unfairness the chance-adjusted FairCOCCO score under the "
            "notion; in the second, accuracy above the majority rate m, (accuracy − m) / "
            "(1 − m), and DEO. For regression both planes use the test R², 1 − MSE / variance "
            "of the outcome. Unfairness is divided by its largest value over the runs of the "
            "dataset and notion, so the methods of a dataset and notion share one box: compare "
            "them within it, and expect the values to change when the study gains a method. "
            "Runs degenerate on the test part are left out ('runs used' counts the others). "
            "Each cell is the mean ± standard deviation over seeds of the hypervolume of the "
            "seed's front; hypervolumes.csv holds the same numbers."
        )

    def hypervolume_rows(self) -> list[list[str]]:
        digits = self.options["digits"]

        def cell(row: pd.Series, front: str) -> str:
            mean, std = float(row[f"{front}_mean"]), float(row[f"{front}_std"])
            return "—" if math.isnan(mean) else format_mean_std(mean, std, digits)

        return [
            [
                str(row["dataset"]),
                str(row["notion"]).upper(),
                str(row["method"]),
                f"{row['runs'] - row['runs_degenerate']} of {row['runs']}",
                cell(row, "adjusted"),
                cell(row, "deo"),
            ]
            for _, row in self.hypervolumes.iterrows()
        ]

    def pareto(self) -> str:
        return (
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

    def versions(self) -> list[tuple[str, str]]:
        found: dict[str, set[str]] = {}
        sources: list[Any] = list(self.runs.get("versions", pd.Series(dtype=object)))
        if self.studies is not None:
            sources += list(self.studies.loc[self.studies["study"] == self.name, "versions"])
        for versions in sources:
            if isinstance(versions, Mapping):
                for library, version in versions.items():
                    found.setdefault(str(library), set()).add(str(version))
        return [(k, ", ".join(sorted(v))) for k, v in sorted(found.items())]

    def invocations(self) -> list[dict[str, Any]]:
        if self.studies is None:
            return []
        of_study = self.studies[self.studies["study"] == self.name]
        return [
            {
                "started_at": row["started_at"],
                "git_revision": row["git_revision"],
                "config": row["config"],
            }
            for _, row in of_study.iterrows()
        ]

    def figure_list(self) -> list[tuple[str, str, Sequence[Path]]]:
        return [(dataset, notion, files) for (dataset, notion), files in self.figures.items()]

    def markdown(self) -> str:
        lines = [f"# FairCOCCO harness report: study {md_escape(self.name)}", ""]
        lines += _md_table(["", ""], [[k, md_escape(v)] for k, v in self.facts()], ["---", "---"])
        lines += ["", "## Results", "", self.selection(), ""]
        lines += [f"- [{t.title}](results-{t.notion}.md)" for t in self.tables]
        lines += [
            "- [Method capabilities](capabilities.md)",
            "- [Selected runs](selected-runs.csv)",
            "- [Hypervolumes](hypervolumes.csv)",
        ]
        lines += ["", "## Degenerate models", "", self.degenerate_text(), ""]
        lines += _md_table(DEGENERATE_HEADER, self.degenerate_rows(), ["---", *["---:"] * 3])
        if not self.hypervolumes.empty:
            lines += ["", f"## {HYPERVOLUME_TITLE}", "", self.hypervolume_text(), ""]
            lines += _md_table(
                HYPERVOLUME_HEADER, self.hypervolume_rows(), [*["---"] * 3, *["---:"] * 3]
            )
        if self.figures:
            lines += ["", "## Pareto fronts", "", self.pareto(), ""]
            for dataset, notion, files in self.figure_list():
                png = next((f for f in files if f.suffix == ".png"), files[0])
                relative = png.relative_to(self.folder).as_posix()
                lines += [
                    f"### {md_escape(dataset)}, {notion.upper()}",
                    "",
                    f"![{dataset} {notion}]({relative})",
                    "",
                ]
        lines += ["", "## Environment", ""]
        versions = self.versions()
        if versions:
            lines += _md_table(["library", "version"], versions, ["---", "---"])
        invocations = self.invocations()
        if invocations:
            lines += ["", "## Study configuration", ""]
            for invocation in invocations:
                lines += [
                    f"Started {invocation['started_at']} at git revision "
                    f"{invocation['git_revision'] or 'unknown'}:",
                    "",
                    "```json",
                    json.dumps(invocation["config"], indent=2, sort_keys=True),
                    "```",
                    "",
                ]
        else:
            lines += [
                "",
                "The study's configuration is not known: the report was made from a table of runs.",
            ]
        return "\n".join(lines).rstrip() + "\n"

    def html(self) -> str:
        parts = [f"<h1>FairCOCCO harness report: study {html.escape(self.name)}</h1>"]
        parts.append(_html_table(None, [[k, v] for k, v in self.facts()], css="facts"))
        parts += ["<h2>Results</h2>", f"<p>{html.escape(self.selection())}</p>", "<ul>"]
        parts += [
            f'<li><a href="results-{t.notion}.html">{html.escape(t.title)}</a></li>'
            for t in self.tables
        ]
        parts += [
            '<li><a href="capabilities.html">Method capabilities</a></li>',
            '<li><a href="selected-runs.csv">Selected runs</a></li>',
            '<li><a href="hypervolumes.csv">Hypervolumes</a></li>',
            "</ul>",
            "<h2>Degenerate models</h2>",
            f"<p>{html.escape(self.degenerate_text())}</p>",
            _html_table(DEGENERATE_HEADER, self.degenerate_rows(), css="degenerate"),
        ]
        if not self.hypervolumes.empty:
            parts += [
                f"<h2>{html.escape(HYPERVOLUME_TITLE)}</h2>",
                f"<p>{html.escape(self.hypervolume_text())}</p>",
                _html_table(HYPERVOLUME_HEADER, self.hypervolume_rows(), css="hypervolumes"),
            ]
        if self.figures:
            parts += ["<h2>Pareto fronts</h2>", f"<p>{html.escape(self.pareto())}</p>"]
            for dataset, notion, files in self.figure_list():
                svg = next((f for f in files if f.suffix == ".svg"), files[0])
                relative = html.escape(svg.relative_to(self.folder).as_posix())
                links = " ".join(
                    f'<a href="{html.escape(f.relative_to(self.folder).as_posix())}">'
                    f"{f.suffix[1:].upper()}</a>"
                    for f in files
                )
                parts.append(
                    f'<figure><img src="{relative}" alt="{html.escape(dataset)} '
                    f'{notion}"><figcaption>{html.escape(dataset)}, {notion.upper()} '
                    f"({links})</figcaption></figure>"
                )
        parts.append("<h2>Environment</h2>")
        versions = self.versions()
        if versions:
            parts.append(_html_table(["library", "version"], versions, css="versions"))
        invocations = self.invocations()
        if invocations:
            parts.append("<h2>Study configuration</h2>")
            for invocation in invocations:
                parts.append(
                    f"<p>Started {html.escape(str(invocation['started_at']))} at git revision "
                    f"{html.escape(str(invocation['git_revision'] or 'unknown'))}:</p>"
                )
                config = json.dumps(invocation["config"], indent=2, sort_keys=True)
                parts.append(f"<pre>{html.escape(config)}</pre>")
        else:
            parts.append(
                "<p>The study's configuration is not known: the report was made from a table "
                "of runs.</p>"
            )
        return "\n".join(parts) + "\n"


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


def _write_studies_index(
    folder: Path, links: Sequence[tuple[str, str]], formats: Sequence[str]
) -> None:
    title = "FairCOCCO harness reports"
    if "md" in formats:
        lines = [f"# {title}", ""]
        lines += [f"- [{md_escape(name)}]({sub}/README.md)" for name, sub in links]
        (folder / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if "html" in formats:
        items = "".join(
            f'<li><a href="{html.escape(sub)}/index.html">{html.escape(name)}</a></li>'
            for name, sub in links
        )
        (folder / "index.html").write_text(
            _html_page(title, f"<h1>{title}</h1>\n<ul>{items}</ul>\n"), encoding="utf-8"
        )


def _md_table(
    header: Sequence[str], rows: Iterable[Sequence[str]], align: Sequence[str]
) -> list[str]:
    lines = ["| " + " | ".join(md_escape(h) for h in header) + " |"]
    lines.append("|" + "|".join(align) + "|")
    lines += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows]
    return lines


def _html_table(header: Sequence[str] | None, rows: Iterable[Sequence[str]], *, css: str) -> str:
    parts = [f'<table class="{css}">']
    if header is not None:
        parts.append(
            "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead>"
        )
    parts.append("<tbody>")
    for row in rows:
        cells = [f"<th>{html.escape(str(row[0]))}</th>"]
        cells += [f"<td>{html.escape(str(value))}</td>" for value in row[1:]]
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table>")
    return "\n".join(parts)


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; max-width: 80em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #ddd; }
td { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th { text-align: left; }
table.capabilities td { text-align: center; }
table.capabilities td:last-child { text-align: left; white-space: normal; }
table.hypervolumes td:nth-child(-n+3) { text-align: left; }
tr.block th { background: #efefef; font-style: italic; }
td.na { color: #777; }
span.degenerate { color: #b00; font-weight: bold; }
span.facts { font-weight: normal; font-style: normal; font-size: 0.9em; }
ol.notes { font-size: 0.9em; color: #444; }
figure { display: inline-block; margin: 0.5em; }
figure img { width: 32em; max-width: 100%; }
pre { background: #f6f6f6; padding: 0.7em; }
"""


def _html_page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"{body}</body>\n</html>\n"
    )
