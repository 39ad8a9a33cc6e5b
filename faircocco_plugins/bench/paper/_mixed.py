"""The page of the mixed-attribute study: FairCOCCO against the group methods on binned groups.

In the ``mixed`` study the group methods of fairlearn and AIF360 get the groups a careful user
builds (continuous attributes cut at the training median or quartiles, crossed with the
others), and every run is measured on test rows as an auditor would (:mod:`.._audit`). This
page compares the test accuracy (R² for regression) of FairCOCCO's penalty and of its path with
each of those baselines where the two are equally fair, on each audit measure
(:func:`audit_measures`):

* DI and DEO on the groups the baseline trained for, on the deciles of each continuous
  attribute, on the intersections and on the worst grouping;
* the dependence of the predictions on the attributes, by HSIC and by distance correlation,
  against the baselines that give probabilities (:func:`labelled_outputs`).

At each level of a measure, each method's model on a seed is the one
:func:`~._matched.matched_by_seed` chooses on the validation rows; the two methods' test values
are paired by seed and judged by the rule of the claims page (:mod:`._claims`): a practical
margin, Holm's correction within each FairCOCCO method's family of measures (DI, DEO,
dependence) and a symmetric verdict with its counts (:func:`mixed_comparisons`).
:func:`write_mixed_page` writes the page, with how much of the study the export covers
(:func:`coverage_table`) and a figure per dataset and notion of each method's test performance
at every level of the worst grouping's DI or DEO and of HSIC; a partial export gives undecided
comparisons, never an error.
"""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ..._inputs.files import check_writable
from ..._records.notions import NOTIONS
from .._audit import MIN_ROWS
from .._binned_methods import GROUPS_PARAM
from .._binning import GROUP_SCHEMES
from .._hypervolume_table import UNPENALISED, front_cells
from .._plots import figure_name, new_figure
from .._presets import MIXED_GROUP_METHODS, PRESETS, Preset
from .._results_tables import dataset_order, method_order
from ._claims import (
    FAVOURABLE,
    MIN_SEEDS,
    OURS,
    TIE,
    UNFAVOURABLE,
    Comparison,
    Tally,
    judge,
    verdict_of,
)
from ._common import (
    ALPHA,
    MARGINS,
    MISSING,
    format_pvalue,
    list_table,
    load_runs,
    page_head,
    page_sources,
    paired_difference,
    save_figure,
    section,
    table_section,
    write_page,
)
from ._matched import (
    MATCHED_MEASURES,
    SECONDARY,
    FairnessMeasure,
    draw_matched_curves,
    matched_by_seed,
    matched_curves,
)
from ._tables import notion_title

#: The families of measures; each is one claim per FairCOCCO method (Holm's correction within
#: it).
FAMILIES: tuple[str, ...] = ("DI", "DEO", "dependence")
#: FairCOCCO's methods, each compared with every baseline and judged as its own claims: the
#: penalty over its weights, and the path with its targets.
CONTESTANTS: tuple[str, ...] = (OURS, "faircocco_path")
#: The page's file name (without suffix) and title.
PAGE_NAME = "mixed"
PAGE_TITLE = "Mixed attributes: accuracy at matched fairness"
#: What a comparison without a seed where both methods have a usable model says.
NOT_PAIRED = "no paired seed"
_DI, _DEO, _SCORE = MATCHED_MEASURES
#: The groups that stand for every scheme's on a dataset without a continuous attribute.
_FIRST_SCHEME = next(iter(GROUP_SCHEMES))
#: Folder of the page's figures, beside it.
FIGURE_FOLDER = "mixed-figures"
#: The measures of each figure's two panels, by notion: the worst grouping's DI or DEO, which
#: no method trained for, and HSIC.
FIGURE_COLUMNS: dict[str, tuple[str, str]] = {
    "dp": ("di_worst", "hsic"),
    "eo": ("deo_worst", "hsic"),
}


@dataclass(frozen=True)
class AuditMeasure:
    """A fairness measure of the audit, with the levels at which the methods are compared.

    Attributes
    ----------
    family : str
        One of :data:`FAMILIES`.
    measure : FairnessMeasure
        Its column, levels and the notions whose runs it compares.
    scheme : str or None
        For the groups a baseline trained for, their construction (a key of
        :data:`~.._binning.GROUP_SCHEMES`): only the baseline's runs on those groups are its
        candidates. None for the groupings no method trained for.
    """

    family: str
    measure: FairnessMeasure
    scheme: str | None = None


def audit_measures(runs: pd.DataFrame) -> list[AuditMeasure]:
    """The audit's measures that the runs hold, in the page's order.

    DI (under DP) and DEO (under EO), at the levels of :data:`~._matched.MATCHED_MEASURES`, on
    the baselines' own groups of each scheme, on the deciles of each continuous attribute, on
    the intersections and on the worst grouping; for a regression they judge the predictions
    cut at the median outcome, as the audit does. HSIC and distance correlation under every
    notion, at the chance-adjusted score's levels: multiples of the network's validation value
    on the same seed, since their scales differ between datasets.

    Parameters
    ----------
    runs : pandas.DataFrame
        The study's runs (:func:`runs_of_export`).

    Returns
    -------
    list of AuditMeasure

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._mixed import audit_measures
    >>> runs = pd.DataFrame(columns=["validation.di_groups[median]", "validation.deo_worst",
    ...                              "validation.di_deciles[age]", "validation.hsic"])
    >>> [(m.family, m.measure.name) for m in audit_measures(runs)]
    [('DI', 'DI, own groups (median)'), ('DI', 'DI, deciles of age'), ('DEO', 'DEO, worst grouping'), ('dependence', 'HSIC')]
    """  # noqa: E501
    present = {str(c).removeprefix("validation.") for c in runs.columns}
    found: list[AuditMeasure] = []
    for family, base in (("DI", _DI), ("DEO", _DEO)):
        deciles = sorted(c for c in present if c.startswith(f"{base.column}_deciles["))
        groupings = [
            *(
                (f"{base.column}_groups[{s}]", f"{base.name}, own groups ({s})", s)
                for s in GROUP_SCHEMES
            ),
            *((c, f"{base.name}, deciles of {_attribute(c)}", None) for c in deciles),
            (f"{base.column}_intersections", f"{base.name}, intersections", None),
            (f"{base.column}_worst", f"{base.name}, worst grouping", None),
        ]
        found += [
            AuditMeasure(
                family,
                replace(base, name=name, column=column, classification_only=False),
                scheme,
            )
            for column, name, scheme in groupings
            if column in present
        ]
    for column, name in (("hsic", "HSIC"), ("dcor", "distance correlation")):
        if column in present:
            measure = replace(_SCORE, name=name, column=column)
            found.append(AuditMeasure("dependence", measure))
    return found


def _attribute(column: str) -> str:
    return column[column.index("[") + 1 : -1]


@dataclass(frozen=True)
class MatchedComparison:
    """One of FairCOCCO's methods against one baseline at one level of one measure, paired
    by seed."""

    #: The FairCOCCO method, a key of :data:`CONTESTANTS`.
    method: str
    family: str
    dataset: str
    notion: str
    #: The level as the page names it, e.g. ``"DI, deciles of age ≥ 0.8"``.
    level: str
    baseline: str
    comparison: Comparison
    #: Seeds where each method has a usable model at the level, of those it ran.
    ours: tuple[int, int]
    theirs: tuple[int, int]
    #: The test balanced accuracy of both methods' models on the paired seeds (none for a
    #: regression): near 0.5, a model is close to a constant predictor, whatever its accuracy.
    balanced_accuracy: tuple[float, ...] = ()


def mixed_comparisons(runs: pd.DataFrame, preset: Preset) -> list[MatchedComparison]:
    """The test performance of each of FairCOCCO's methods (:data:`CONTESTANTS`) against each
    binned baseline's, at each level of each audit measure, on every dataset and notion with
    runs.

    At a level, each method's model on a seed is chosen on the validation rows
    (:func:`~._matched.matched_by_seed`); on the groups a baseline trained for, its candidates
    are its runs on those groups only (on a dataset without a continuous attribute every scheme
    builds the same groups, so the first stands for all). A seed counts for a method when its
    model beats a constant predictor on the test rows too. The dependence measures compare
    only methods that give probabilities (:func:`labelled_outputs`). The comparison is the
    FairCOCCO method's test accuracy (R² for regression) less the baseline's, paired by seed,
    with the practical margin of the performance (:data:`~._common.MARGINS`); it expects
    FairCOCCO higher, so a difference beyond the margin either way decides, and one shown
    inside it is a tie.

    Parameters
    ----------
    runs : pandas.DataFrame
        The study's runs (:func:`runs_of_export`).
    preset : Preset
        The study's plan: the FairCOCCO methods are its methods of :data:`CONTESTANTS`, and
        the baselines its methods of :data:`~.._presets.MIXED_GROUP_METHODS` not recorded as
        not applicable.

    Returns
    -------
    list of MatchedComparison
        Unjudged; :func:`judged` corrects them within each method's family.
    """
    contestants = [m for m in CONTESTANTS if m in preset.methods]
    baselines = [m for m in preset.methods if m in MIXED_GROUP_METHODS]
    skipped = not_applicable(runs)
    labels_only = labelled_outputs(runs)
    found: list[MatchedComparison] = []
    for audit in audit_measures(runs):
        candidates = _trained_for(runs, audit.scheme)
        by_seed = matched_by_seed(candidates, [audit.measure])
        keys = ["dataset", "notion", "level"]
        for _, group in by_seed.groupby(keys, sort=False):
            first = group.iloc[0]
            dataset, notion, level = str(first["dataset"]), str(first["notion"]), first["level"]
            if audit.scheme not in (None, _FIRST_SCHEME) and not _continuous(runs, dataset):
                continue
            if not _measured(runs, dataset, audit.measure.column):
                continue  # another dataset's attribute
            label = audit.measure.label(float(level), float(group["threshold"].mean()))
            margin = MARGINS[str(group["performance"].iloc[0])].of()
            for method in contestants:
                if (dataset, notion, method) in skipped:
                    continue
                ours = _usable(group, method)
                ours_balanced = _usable(group, method, SECONDARY)
                for baseline in baselines:
                    if (dataset, notion, baseline) in skipped:
                        continue
                    if audit.family == "dependence" and (dataset, baseline) in labels_only:
                        continue
                    theirs = _usable(group, baseline)
                    both = ours.index.intersection(theirs.index)
                    dropped = int((ours[both].isna() | theirs[both].isna()).sum())
                    paired = both[ours[both].notna() & theirs[both].notna()]
                    balanced = [ours_balanced[paired], _usable(group, baseline, SECONDARY)[paired]]
                    comparison = Comparison(
                        f"{label}, {method} − {baseline}",
                        paired_difference(ours, theirs),
                        "higher",
                        margin,
                        dropped,
                    )
                    found.append(
                        MatchedComparison(
                            method,
                            audit.family,
                            dataset,
                            notion,
                            label,
                            baseline,
                            comparison,
                            _counts(ours),
                            _counts(theirs),
                            tuple(pd.concat(balanced).dropna().astype(float)),
                        )
                    )
    return found


def labelled_outputs(runs: pd.DataFrame) -> set[tuple[str, str]]:
    """The (dataset, method) pairs of classifiers that give labels only.

    The audit's dependence estimators read a classifier's probabilities where it gives them,
    else its labels, and on labels they run on another scale: the unpenalised network's own
    labels have a fraction of its probabilities' HSIC (``benchmarks/label_dependence.py``).
    So a method whose dependence was measured on labels is not compared on it with one
    measured on probabilities; its decisions are judged by DI and DEO. A method gives labels
    only on a dataset when none of its successful classification runs there has a test AUC,
    which needs probabilities.
    """
    if "test.accuracy" not in runs.columns:
        return set()
    ok = runs[(runs["status"] == "ok") & runs["test.accuracy"].notna()]
    auc = ok["test.auc"] if "test.auc" in ok.columns else pd.Series(math.nan, index=ok.index)
    scored = auc.notna().groupby([ok["dataset"], ok["method"]]).any()
    datasets, methods = (scored.index.get_level_values(i) for i in (0, 1))
    return {
        (str(d), str(m)) for d, m, has in zip(datasets, methods, scored, strict=True) if not has
    }


def _trained_for(runs: pd.DataFrame, scheme: str | None) -> pd.DataFrame:
    """The runs, less those of binned methods trained on other groups than ``scheme``."""
    if scheme is None:
        return runs
    groups = runs["params"].map(lambda p: p.get(GROUPS_PARAM) if isinstance(p, dict) else None)
    return runs[groups.isna() | (groups == scheme)]


def _continuous(runs: pd.DataFrame, dataset: str) -> bool:
    """Whether a dataset's runs were measured on deciles: it has a continuous attribute."""
    rows = runs[runs["dataset"] == dataset]
    deciles = [c for c in rows.columns if "_deciles[" in str(c)]
    return bool(rows[deciles].notna().any().any()) if deciles else False


def _measured(runs: pd.DataFrame, dataset: str, column: str) -> bool:
    """Whether some run on a dataset has a validation value of a measure."""
    return bool(runs.loc[runs["dataset"] == dataset, f"validation.{column}"].notna().any())


def _usable(level: pd.DataFrame, method: str, column: str = "value") -> pd.Series:
    """A method's test performance (or another column of the chosen model's) by seed at a
    level, NaN where it has no model meeting the level on validation or its model is no better
    than a constant predictor on test."""
    rows = level[level["method"] == method]
    usable = rows["chosen"].astype(bool) & rows["informative_test"].astype(bool)
    values = rows[column].astype(float).where(usable)
    return pd.Series(values.to_numpy(), index=rows["seed"].astype(int).to_numpy(), dtype=float)


def _counts(values: pd.Series) -> tuple[int, int]:
    return int(values.notna().sum()), len(values)


def judged(comparisons: Sequence[MatchedComparison]) -> list[tuple[str, float]]:
    """Each comparison's outcome and Holm-corrected p-value, corrected within its method's
    family (each is one claim); a comparison without a paired seed is :data:`NOT_PAIRED`,
    counted nowhere."""
    results: list[tuple[str, float]] = [(NOT_PAIRED, math.nan)] * len(comparisons)
    for method, family in {(c.method, c.family) for c in comparisons}:
        indices = [
            i
            for i, c in enumerate(comparisons)
            if (c.method, c.family) == (method, family) and c.comparison.difference.n > 0
        ]
        for i, result in zip(
            indices, judge([comparisons[i].comparison for i in indices]), strict=True
        ):
            results[i] = result
    return results


def not_applicable(runs: pd.DataFrame) -> set[tuple[str, str, str]]:
    """The (dataset, notion, method) cells whose every run is recorded as not applicable."""
    skipped = (
        runs["status"]
        .eq("not_applicable")
        .groupby([runs["dataset"], runs["notion"], runs["method"]])
        .all()
    )
    return {
        (str(d), str(n), str(m))
        for d, n, m in zip(*(skipped.index.get_level_values(i) for i in range(3)), strict=True)
        if skipped[(d, n, m)]
    }


def coverage_table(runs: pd.DataFrame, preset: Preset) -> pd.DataFrame:
    """How much of the study the runs cover, per dataset of the preset.

    A *cell* is one method on one dataset, notion and seed, with all its settings. The planned
    cells are the preset's methods × notions × seeds on the dataset, less the methods recorded
    as not applicable to the notion (where the preset's notions differ between tasks, a
    dataset's are those the export records for it); a cell counts as run once it has a
    finished run (successful or failed), so the last cells of a sitting may lack some
    settings.

    Parameters
    ----------
    runs : pandas.DataFrame
        The study's runs (:func:`runs_of_export`).
    preset : Preset
        The study's plan.

    Returns
    -------
    pandas.DataFrame
        One row per dataset: ``dataset``, ``planned`` and ``run`` cells, ``runs`` (finished
        runs), ``failed``, and ``seeds`` (the sorted seeds with a run).
    """
    skipped = not_applicable(runs)
    finished = runs[runs["status"] != "not_applicable"]
    rows = []
    for dataset in preset.datasets:
        notions = _planned_notions(preset, set(runs.loc[runs["dataset"] == dataset, "notion"]))
        methods = [
            (n, m) for n in notions for m in preset.methods if (dataset, n, m) not in skipped
        ]
        of_dataset = finished[finished["dataset"] == dataset]
        ran = of_dataset.drop_duplicates(["notion", "method", "seed"])
        planned_seeds = {int(s) for s in preset.seeds}
        run_cells = sum(
            (n, m) in set(methods) and int(s) in planned_seeds
            for n, m, s in zip(ran["notion"], ran["method"], ran["seed"], strict=True)
        )
        rows.append(
            {
                "dataset": dataset,
                "planned": len(methods) * len(preset.seeds),
                "run": int(run_cells),
                "runs": len(of_dataset),
                "failed": int((of_dataset["status"] == "failed").sum()),
                "seeds": sorted({int(s) for s in of_dataset["seed"]}),
            }
        )
    return pd.DataFrame(rows, columns=["dataset", "planned", "run", "runs", "failed", "seeds"])


def _planned_notions(preset: Preset, recorded: set[str]) -> list[str]:
    """A dataset's planned notions: the preset's, or where they differ between tasks (which
    the export does not record), those the export holds for it."""
    if preset.regression_notions is None or not recorded:
        return list(preset.notions)
    return [n for n in NOTIONS if n in recorded]


def preset_of(runs: pd.DataFrame, export: str | os.PathLike[str]) -> Preset:
    """The preset whose study the export holds (its ``study`` column names it)."""
    studies = sorted({str(s) for s in runs["study"].dropna()})
    if len(studies) != 1 or studies[0] not in PRESETS:
        raise ValueError(
            f"export={os.fspath(export)!r} holds the studies {studies}; the page needs the "
            f"runs of one preset's study, whose plan it covers (known: {sorted(PRESETS)})."
        )
    return PRESETS[studies[0]]


def write_mixed_page(
    export: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    command: str,
    plots: bool = True,
) -> Path:
    """Write the mixed-attribute study's page, ``mixed.rst``, into a folder.

    Parameters
    ----------
    export : str or path-like
        The study's export (``faircocco export``), of a preset's study (``mixed``); it may be
        partial.
    out : str or path-like
        The page's folder (created when missing; a page of the same name replaced).
    command : str
        The command that writes the page, printed at its end.
    plots : bool
        Whether to draw the figures (needs matplotlib) into ``out / "mixed-figures"``.

    Returns
    -------
    Path
        The page written.

    Examples
    --------
    See ``faircocco mixed-page --help`` and :doc:`/user-guide/harness`.
    """
    frame, runs = load_runs(export)
    if runs.empty:
        raise ValueError(f"export={os.fspath(export)!r} holds no runs; export a study first.")
    preset = preset_of(runs, export)
    check_writable(out, "the page's folder")
    lines = page_head(PAGE_TITLE, label=f"results-{PAGE_NAME}")
    lines += mixed_page(runs, preset, Path(out) if plots else None)
    lines += page_sources(command, frame)
    return write_page(Path(out) / f"{PAGE_NAME}.rst", lines)


def mixed_page(runs: pd.DataFrame, preset: Preset, out: Path | None = None) -> list[str]:
    """The body of the mixed-attribute study's page (after its head) as reStructuredText
    lines; given the page's folder ``out``, with its figures, drawn into
    ``out / FIGURE_FOLDER``."""
    coverage = coverage_table(runs, preset)
    comparisons = mixed_comparisons(runs, preset)
    results = judged(comparisons)
    lines = _coverage(coverage, preset)
    lines += _rule(labelled_outputs(runs))
    lines += _summary(comparisons, results)
    lines += _losses(comparisons, results)
    if out is not None:
        lines += _figures(runs, out)
    for family in FAMILIES:
        lines += _family_section(family, comparisons, results)
    return lines


def _coverage(coverage: pd.DataFrame, preset: Preset) -> list[str]:
    planned, run = int(coverage["planned"].sum()), int(coverage["run"].sum())
    share = f" ({run / planned:.0%})" if planned else ""
    started = coverage[coverage["run"] > 0]
    seeds = "; ".join(
        f"{row['dataset']}: {len(row['seeds'])} ({', '.join(map(str, row['seeds']))})"
        for row in started.to_dict("records")
    )
    lines = [
        f"**Coverage.** The study runs in sittings; this page is written from its export, which "
        f"holds {run} of the {planned} planned cells{share}. A cell is one method on one "
        f"dataset, notion and seed with all its settings; the plan is the ``{preset.name}`` "
        f"preset's {len(preset.datasets)} datasets and {len(preset.seeds)} seeds, less the "
        "methods recorded as not applicable. "
        + (
            f"Seeds with runs, per dataset started: {seeds}; the other datasets have none yet."
            if len(started)
            else "No dataset has runs yet."
        )
        + f" A comparison needs {MIN_SEEDS} paired seeds to decide anything, so until a "
        "dataset has that many its comparisons are undecided.",
        "",
    ]
    rows = [
        [
            str(row["dataset"]),
            f"{row['run']} of {row['planned']}",
            str(row["runs"]),
            str(row["failed"]),
            f"{', '.join(map(str, row['seeds'])) or MISSING} (of {len(preset.seeds)})",
        ]
        for row in coverage.to_dict("records")
    ]
    header = ["Dataset", "Cells run", "Finished runs", "Failed", "Seeds with runs"]
    return [*lines, *list_table(header, rows)]


def _rule(labels_only: set[tuple[str, str]]) -> list[str]:
    performance = ", ".join(f"{MARGINS[m].absolute:g} of {name}" for m, name in _PERFORMANCE)
    return [
        *section("What is compared, and the rule"),
        "FairCOCCO, the penalty over its weights (``faircocco``) and the path with its targets "
        "(``faircocco_path``), against each of fairlearn's and AIF360's group "
        "methods, which cannot take a continuous attribute and so train on binned groups "
        "(continuous attributes cut at the training median or quartiles, crossed with the "
        "others). The measures are taken on the test rows by the audit: DI under DP and DEO "
        "under EO on the groups the baseline trained for (the baseline's runs on those groups "
        "only), on the deciles of each continuous attribute, on every intersection with at "
        f"least {MIN_ROWS} rows and on the worst of these groupings (a regression's outcome and "
        "predictions cut at the median outcome); and the dependence of the predictions on all "
        "attributes jointly, by HSIC and by distance correlation, under both notions, at "
        "levels that are multiples of the unpenalised network's (``nn``) validation value on "
        "the same seed.",
        "",
        f"**Matched fairness, chosen on validation.** At each level ({_levels()}), each "
        "method's model on a seed is the "
        "most accurate of its settings on the validation rows (highest R² for regression) "
        "among those that meet the level on the validation rows, as on "
        ":ref:`results-matched-fairness`; a model no better than a constant predictor is "
        "never chosen, and a seed whose chosen model is no better than one on the test rows "
        "is left out of a pair. No test number takes part in the choice.",
        "",
        "**The rule** of :ref:`results-claims`. Each comparison is FairCOCCO's test accuracy "
        "(R² for regression) less the baseline's, paired by seed, with its 95% t-interval; "
        f"fewer than {MIN_SEEDS} paired seeds decide nothing. A difference within the "
        f"practical margin ({performance}) is a tie. Each family of measures (DI, DEO, "
        "dependence) is one claim for each of FairCOCCO's methods: its comparisons' p-values "
        "(twice the smaller one-sided "
        "p-value of lying beyond the margin) are corrected together by Holm's method. A "
        f"comparison is *favourable* when shown beyond the margin in FairCOCCO's favour "
        f"(corrected p-value at most {ALPHA:g}), *unfavourable* when shown beyond it against "
        "FairCOCCO, a *tie* when neither is shown and its interval lies inside the margin, "
        "and *undecided* otherwise. A family **holds** when some comparisons are favourable "
        "and none unfavourable, is **mixed** with some of each, **does not hold** with "
        "unfavourable ones only, and is **undecided** with neither; a comparison without a "
        "paired seed counts nowhere.",
        "",
        "**Dependence only between probabilities.** HSIC and distance correlation measure "
        "what a classifier outputs: its probabilities where it gives them, else its labels. On "
        "labels they run on another scale, far lower for the same model (the unpenalised "
        "network's labels have a fraction of its probabilities' HSIC), so a baseline that "
        "gives labels only is not compared on dependence; DI and DEO judge its decisions. "
        + _labels_only_text(labels_only),
        "",
        "The levels say nothing of a method that never reaches them: the columns of models "
        "meeting a level show, per method, the seeds where it has one.",
        "",
    ]


def _labels_only_text(labels_only: set[tuple[str, str]]) -> str:
    """Which baselines give labels only, on which datasets."""
    if not labels_only:
        return "Every classifier here gives probabilities."
    datasets: dict[str, list[str]] = {}
    for dataset, method in sorted(labels_only):
        datasets.setdefault(method, []).append(dataset)
    return (
        "Labels only: "
        + "; ".join(f"{m} ({', '.join(dataset_order(d))})" for m, d in datasets.items())
        + "."
    )


_PERFORMANCE: tuple[tuple[str, str], ...] = (("accuracy", "accuracy"), ("r2", "R²"))


def _levels() -> str:
    """``"DI ≥ 0.8 and 0.9, DEO ≤ 0.05 and 0.02, dependence ≤ 0.5 and 0.25 × nn"``."""
    return ", ".join(
        f"{name} {'≥' if m.higher_is_fairer else '≤'} "
        + " and ".join(f"{level:g}" for level in m.levels)
        + (f" × {UNPENALISED}" if m.relative_to_network else "")
        for name, m in (("DI", _DI), ("DEO", _DEO), ("dependence", _SCORE))
    )


def _outcome_counts(outcomes: Sequence[str]) -> tuple[Tally, int]:
    """The tally of paired comparisons and, among its neither, the ties."""
    paired = [o for o in outcomes if o != NOT_PAIRED]
    return Tally.of(paired), paired.count(TIE)


def _verdict_cells(
    comparisons: Sequence[MatchedComparison], results: Sequence[tuple[str, float]], **where: Any
) -> list[str]:
    """Of the comparisons whose fields equal ``where``'s: the verdict, favourable /
    unfavourable / tie / undecided, the comparisons without a paired seed, where one method
    reaches the level on more seeds than the other, and the median test balanced accuracy of
    the paired models."""
    chosen = [
        (c, outcome)
        for c, (outcome, _) in zip(comparisons, results, strict=True)
        if all(getattr(c, k) == v for k, v in where.items())
    ]
    tally, ties = _outcome_counts([outcome for _, outcome in chosen])
    paired = sum(tally)
    counts = (
        f"{tally.favourable} / {tally.unfavourable} / {ties} / {tally.neither - ties}"
        if paired
        else MISSING
    )
    ran = [c for c, _ in chosen if c.theirs[1] and c.ours[1]]
    reach = (
        f"{sum(c.ours[0] > c.theirs[0] for c in ran)} / {sum(c.ours[0] < c.theirs[0] for c in ran)}"
    )
    balanced = [b for c, _ in chosen for b in c.balanced_accuracy]
    median = f"{statistics.median(balanced):.2f}" if balanced else MISSING
    return [verdict_of(tally), counts, str(len(chosen) - paired), reach, median]


def _summary(
    comparisons: Sequence[MatchedComparison], results: Sequence[tuple[str, float]]
) -> list[str]:
    header = [
        "FairCOCCO",
        "Measure",
        "Verdict",
        "Favourable / unfavourable / tie / undecided",
        "Without a paired seed",
        "More seeds at the level: FairCOCCO / the baseline",
        "Balanced accuracy of the paired models (median)",
    ]
    rows = [
        [method, family, *_verdict_cells(comparisons, results, method=method, family=family)]
        for method in _contestants(comparisons)
        for family in FAMILIES
    ]
    lines = table_section(
        "Summary",
        "Each FairCOCCO method's verdict on each family, over every dataset, notion, grouping, "
        "level and baseline, with "
        "its counts (*cannot be tested here* where no comparison has a paired seed). The "
        "verdict judges accuracy where both methods are equally fair; the next column says "
        "how often one method reaches a level on more seeds than the other (a model meeting "
        "it on validation that beats a constant predictor on test), among the comparisons "
        "where both ran, which the verdict cannot see. The last is the median test balanced "
        "accuracy of both methods' models in the paired comparisons (classification only): "
        "near 0.5 the models are close to predicting one class, so that their accuracies and "
        "fairness say little, however the verdict reads.",
        header,
        rows,
    )
    datasets = dataset_order({c.dataset for c in comparisons})
    by_dataset = [
        [
            dataset,
            method,
            family,
            *_verdict_cells(comparisons, results, method=method, family=family, dataset=dataset),
        ]
        for dataset in datasets
        for method in _contestants(comparisons)
        for family in FAMILIES
        if any((c.dataset, c.method, c.family) == (dataset, method, family) for c in comparisons)
    ]
    if by_dataset:
        lines += [
            "By dataset (the outcomes corrected within each method's family over all datasets):",
            "",
            *list_table(["Dataset", *header], by_dataset),
        ]
    return lines


def _contestants(comparisons: Sequence[MatchedComparison]) -> list[str]:
    """The FairCOCCO methods compared, in the order of :data:`CONTESTANTS`."""
    return [m for m in CONTESTANTS if any(c.method == m for c in comparisons)]


def _losses(
    comparisons: Sequence[MatchedComparison], results: Sequence[tuple[str, float]]
) -> list[str]:
    """The comparisons FairCOCCO loses, and those it wins, listed plainly."""
    lines = section("Where FairCOCCO loses, and where it wins")
    for outcome, what in ((UNFAVOURABLE, "loses"), (FAVOURABLE, "wins")):
        found = [
            f"{c.dataset}, {c.notion.upper()}: {c.comparison.label} "
            f"({c.comparison.difference.text()})"
            for c, (o, _) in zip(comparisons, results, strict=True)
            if o == outcome
        ]
        if found:
            lines += [f"FairCOCCO {what} ({len(found)}):", "", *(f"* {f}" for f in found), ""]
        else:
            lines += [f"FairCOCCO {what} no comparison under the rule.", ""]
    return lines


def _figures(runs: pd.DataFrame, out: Path) -> list[str]:
    """One figure per dataset and notion: each method's test performance at each validation
    level of the worst grouping's DI or DEO, and of HSIC."""
    audits = {a.measure.column: a for a in audit_measures(runs)}
    measures = {column: a.measure for column, a in audits.items()}
    labels_only = labelled_outputs(runs)
    scored = runs[
        [(d, m) not in labels_only for d, m in zip(runs["dataset"], runs["method"], strict=True)]
    ]
    lines = section("Performance against the level, by dataset")
    lines += [
        "Each panel draws, per method, the mean over seeds of the test accuracy (R² for "
        "regression) of the model chosen on the validation rows at each level, where all of "
        "the method's seeds have one, as the comparisons choose it; FairCOCCO's line is the "
        "thick black one, a dot marks the fairest level a method reaches, and dotted lines "
        "the levels compared. Left, the worst grouping's DI "
        "(under DP) or DEO (under EO), a grouping no method trained for; right, HSIC as a "
        f"multiple of the unpenalised network's ({UNPENALISED}) validation value on the seed, "
        "for the methods that give probabilities. "
        "A method's curve averages the seeds it has run, which may differ between methods "
        "while the study is incomplete; the tables above pair seeds.",
        "",
    ]
    drawn = False
    for cell in front_cells(runs):
        panels = [
            measures[column] for column in FIGURE_COLUMNS.get(cell.notion, ()) if column in measures
        ]
        performance = "accuracy" if cell.task == "classification" else "r2"
        curves = [
            matched_curves(
                scored if audits[m.column].family == "dependence" else runs,
                cell.dataset,
                cell.notion,
                m,
                performance,
            )
            for m in panels
        ]
        if not any(c is not None for c in curves):
            continue
        figure, [grid] = new_figure((11.0, 4.4), 1, len(curves))
        title = f"{cell.dataset}, {notion_title(cell.notion)}"
        methods = method_order(cell.runs["method"])
        legend: dict[str, Any] = {}
        for axes, measure, curve in zip(grid, panels, curves, strict=True):
            if curve is None:
                axes.set_title(f"{measure.name}: no method has a model at every seed")
                axes.set_axis_off()
                continue
            panel = f"{title}: {measure.name}"
            draw_matched_curves(axes, curve, panel, methods=methods, emphasis=OURS)
            handles, labels = axes.get_legend_handles_labels()
            legend.update(zip(labels, handles, strict=True))
        order = [m for m in methods if m in legend]
        figure.legend([legend[m] for m in order], order, loc="outside right upper", fontsize=6)
        alt = f"{title}: performance at matched worst-grouping fairness and HSIC"
        name = figure_name(cell.dataset, cell.notion)
        lines += save_figure(figure, out, FIGURE_FOLDER, name, alt, width="100%", dpi=110)
        drawn = True
    return lines if drawn else []


def _family_section(
    family: str,
    comparisons: Sequence[MatchedComparison],
    results: Sequence[tuple[str, float]],
) -> list[str]:
    pairs = [(c, r) for c, r in zip(comparisons, results, strict=True) if c.family == family]
    lines = section(f"{family}: the comparisons")
    if not pairs:
        return [*lines, "No dataset has runs measured on this family yet.", ""]
    header = [
        "Level, comparison",
        "FairCOCCO: seeds with a model",
        "Baseline: seeds with a model",
        "Difference [95% CI]",
        "Margin",
        "Seeds",
        "Left out",
        "p (Holm)",
        "Outcome",
    ]
    for dataset in dataset_order({c.dataset for c, _ in pairs}):
        for notion in NOTIONS:
            cell = [(c, r) for c, r in pairs if c.dataset == dataset and c.notion == notion]
            if not cell:
                continue
            lines += section(f"{dataset}, {notion_title(notion)}", "~")
            waiting = list(dict.fromkeys(c.baseline for c, _ in cell if not c.theirs[1]))
            cell = [(c, r) for c, r in cell if c.theirs[1]]
            if waiting:
                lines += [f"Baselines without runs here yet: {', '.join(waiting)}.", ""]
            if not cell:
                continue
            rows = [
                [
                    c.comparison.label,
                    f"{c.ours[0]} of {c.ours[1]}",
                    f"{c.theirs[0]} of {c.theirs[1]}",
                    c.comparison.difference.text(),
                    f"{c.comparison.margin:.3g}",
                    str(c.comparison.difference.n),
                    str(c.comparison.dropped) if c.comparison.dropped else "",
                    format_pvalue(p),
                    outcome,
                ]
                for c, (outcome, p) in cell
            ]
            lines += list_table(header, rows)
    return lines
