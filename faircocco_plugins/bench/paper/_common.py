"""What every results page of the paper's study shares.

The export read back as the store's runs, the paper's reported numbers, the page's title and its
closing sources (command, revision, machine, the study's time), paired comparisons across seeds
with Holm's correction, the practical margins and the network's reference values, and
reStructuredText tables.
"""

from __future__ import annotations

import json
import math
import os
import platform
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..._inputs.files import refuse_special_file
from .._export import KEY_COLUMNS, read_export
from .._hypervolume_table import UNPENALISED
from .._progress import format_duration
from .._results_tables import format_mean_std
from .._runner import git_revision
from .._selection import lowest_values
from .._store import EVALUATED_PARTS, RUN_COLUMNS

#: Columns of the paper's numbers file that identify one printed number.
PAPER_COLUMNS: tuple[str, ...] = (
    "table",
    "dataset",
    "notion",
    "method",
    "attribute",
    "strength",
    "metric",
    "mean",
    "std",
    "unit",
)
#: Units of the paper's numbers, and the factor that turns each into the harness's scale.
PAPER_UNITS: dict[str, float] = {
    "fraction": 1.0,
    "percent": 0.01,
    "ratio": 1.0,
    "squared_outcome": 1.0,
}
#: Shown where a method has no number.
MISSING = "—"


def runs_of_export(frame: pd.DataFrame) -> pd.DataFrame:
    """The runs of an export, one row per run, in the form of :meth:`ResultsStore.runs`.

    Parameters
    ----------
    frame : pandas.DataFrame
        An export (:func:`read_export`): one row per run and evaluated part.

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`RUN_COLUMNS` (``params``, ``settings`` and ``versions`` as
        dicts), ``strength``, then ``<part>.<metric>`` for every metric of the export,
        including the export's own-notion ``faircocco``, ``faircocco_adjusted`` and ``r2``.
        Sorted by ``run_id``, so the row order of the export does not matter.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench._export import export_runs
    >>> from faircocco_plugins.bench.paper._common import runs_of_export
    >>> runs = pd.DataFrame({
    ...     "run_id": ["r1"], "study": ["s"], "dataset": ["german"], "method": ["nn"],
    ...     "notion": ["eo"], "seed": [0], "params": [{"lr": 0.01}], "settings": [{}],
    ...     "status": ["ok"], "reason": [""], "n_train": [600], "n_validation": [200],
    ...     "n_test": [200], "fit_seconds": [1.0], "predict_seconds": [0.1],
    ...     "evaluate_seconds": [0.2], "peak_memory_mib": [90.0], "versions": [{}],
    ...     "git_revision": [None], "finished_at": ["2026-01-01T00:00:00+00:00"],
    ...     "validation.accuracy": [0.7], "test.accuracy": [0.72],
    ... })
    >>> wide = runs_of_export(export_runs(runs))
    >>> wide[["params", "validation.accuracy", "test.accuracy"]].values.tolist()
    [[{'lr': 0.01}, 0.7, 0.72]]
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame; got {type(frame).__name__}.")
    missing = [name for name in (*KEY_COLUMNS, *RUN_COLUMNS) if name not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the export columns {missing}; pass read_export(path).")
    identity = set(KEY_COLUMNS) | set(RUN_COLUMNS)
    metrics = [name for name in frame.columns if name not in identity]
    runs = frame.drop_duplicates("run_id").set_index("run_id")[[*RUN_COLUMNS[1:], "strength"]]
    for part in EVALUATED_PARTS:
        rows = frame[frame["part"] == part].drop_duplicates("run_id").set_index("run_id")
        values = rows[metrics].apply(pd.to_numeric).astype(float)
        runs = runs.join(values.add_prefix(f"{part}."))
    runs = runs.sort_index().reset_index()
    for name in ("params", "settings", "versions"):
        runs[name] = pd.Series([json.loads(text) for text in runs[name]], dtype=object)
    runs["reason"] = ["" if pd.isna(reason) else str(reason) for reason in runs["reason"]]
    return runs


def load_runs(path: str | os.PathLike[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """An export file, as read and as runs (:func:`runs_of_export`)."""
    frame = read_export(path)
    return frame, runs_of_export(frame)


class PaperNumbers:
    """The paper's reported numbers (``paper_numbers.csv``), looked up by what they measure.

    Parameters
    ----------
    table : pandas.DataFrame
        The file's rows, with the columns of :data:`PAPER_COLUMNS`, read as text.
    """

    def __init__(self, table: pd.DataFrame) -> None:
        self.table = table
        self._values: dict[tuple[str, ...], tuple[float, float]] = {}
        for row in table.to_dict("records"):
            key = tuple(str(row[name]) for name in ("table", "dataset", "notion", "method"))
            scale = PAPER_UNITS[str(row["unit"])]
            std = float(row["std"]) * scale if row["std"] else math.nan
            # the first of equal keys, as printed (only Table 13 repeats them, by strength)
            self._values.setdefault(
                (*key, str(row["metric"]), str(row["attribute"]).lower()),
                (float(row["mean"]) * scale, std),
            )

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> PaperNumbers:
        """Read ``paper_numbers.csv``, checking its columns and units.

        Parameters
        ----------
        path : str or path-like

        Returns
        -------
        PaperNumbers
        """
        refuse_special_file(path, "paper")
        try:
            table = pd.read_csv(path, dtype=str, keep_default_na=False)
        except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
            message = " ".join(str(e).split()) or type(e).__name__
            raise ValueError(
                f"paper={os.fspath(path)!r} cannot be read as a CSV file ({message}); pass the "
                "paper's numbers file (paper_numbers.csv)."
            ) from None
        missing = [name for name in PAPER_COLUMNS if name not in table.columns]
        if missing:
            raise ValueError(
                f"paper={os.fspath(path)!r} lacks the columns {missing}; pass the paper's "
                "numbers file (paper_numbers.csv)."
            )
        unknown = sorted(set(table["unit"]) - set(PAPER_UNITS))
        if unknown:
            raise ValueError(
                f"paper={os.fspath(path)!r} has the units {unknown}; expected one of "
                f"{sorted(PAPER_UNITS)}."
            )
        _refuse_non_numbers(path, table, "mean", empty=False)
        _refuse_non_numbers(path, table, "std", empty=True)
        return cls(table)

    def value(
        self, table: str, dataset: str, notion: str, method: str, metric: str, attribute: str = ""
    ) -> tuple[float, float] | None:
        """The paper's mean and standard deviation (NaN when not printed) on the harness's
        scale (``percent`` divided by 100), or None when the paper has no such number.

        Attributes match without regard to case (the paper's ``racePctBlack`` is the
        harness's ``racepctblack``).
        """
        return self._values.get((table, dataset, notion, method, metric, attribute.lower()))

    def text(
        self, table: str, dataset: str, notion: str, method: str, metric: str, attribute: str = ""
    ) -> str:
        """:meth:`value` as ``"0.69 ± 0.02"`` with the paper's two decimals, or :data:`MISSING`."""
        found = self.value(table, dataset, notion, method, metric, attribute)
        if found is None:
            return MISSING
        return format_mean_std(found[0], found[1], 2)

    def methods(self, table: str, dataset: str) -> list[str]:
        """The methods with a number in one table for one dataset, in the file's order."""
        rows = self.table[(self.table["table"] == table) & (self.table["dataset"] == dataset)]
        return list(dict.fromkeys(rows["method"]))


def _refuse_non_numbers(
    path: str | os.PathLike[str], table: pd.DataFrame, column: str, *, empty: bool
) -> None:
    """Refuse the first value of ``column`` that is not a finite number, nor negative for a
    standard deviation, nor empty where ``empty`` allows it (a number the paper does not
    print)."""
    text = table[column]
    numbers = pd.to_numeric(text.where(text != ""), errors="coerce")
    bad = ~np.isfinite(numbers) & ((text != "") | (not empty))
    if column == "std":
        bad |= numbers < 0
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        expected = "a finite number" + (" of at least 0" if column == "std" else "")
        raise ValueError(
            f"paper={os.fspath(path)!r}: row {row + 1}, column {column}: "
            f"{text.iloc[row]!r} is not {expected}{' (or empty)' if empty else ''}; correct "
            "that row of the paper's numbers file."
        )


@dataclass(frozen=True)
class PairedDifference:
    """The mean of paired differences with its confidence interval.

    Attributes
    ----------
    mean : float
        Mean of ``a − b`` over the pairs.
    low, high : float
        Bounds of the t-interval; NaN with fewer than two pairs.
    n : int
        Number of pairs.
    sem : float
        Standard error of the mean, ``s / √n``; NaN with fewer than two pairs (or where the
        difference was not computed by :func:`paired_difference`).
    """

    mean: float
    low: float
    high: float
    n: int
    sem: float = math.nan

    def text(self, digits: int = 3) -> str:
        """``"-0.012 [-0.020, -0.004]"``, or the mean alone without an interval."""
        if self.n == 0:
            return MISSING
        mean = f"{self.mean + 0.0:+.{digits}f}"
        if math.isnan(self.low):
            return mean
        return f"{mean} [{self.low + 0.0:+.{digits}f}, {self.high + 0.0:+.{digits}f}]"

    def pvalue_beyond(self, bound: float, *, above: bool) -> float:
        """One-sided p-value of the paired t-test that the true mean difference lies above
        ``bound`` (``above=True``) or below it: small when the pairs show it.

        The statistic is ``(mean − bound) / sem`` on Student's t with ``n − 1`` degrees of
        freedom, the test whose 95% interval is :attr:`low`, :attr:`high`. Differences that
        are all equal (``sem`` 0) show the side their mean is on with p 0. NaN with fewer
        than two pairs.

        Examples
        --------
        >>> import pandas as pd
        >>> from faircocco_plugins.bench.paper._common import paired_difference
        >>> d = paired_difference(pd.Series([0.03, 0.05, 0.04]), pd.Series([0.0, 0.0, 0.0]))
        >>> round(d.pvalue_beyond(0.0, above=True), 4), round(d.pvalue_beyond(0.0, above=False), 4)
        (0.0101, 0.9899)
        """
        if self.n < 2 or math.isnan(self.sem):
            return math.nan
        distance = self.mean - bound if above else bound - self.mean
        if self.sem == 0.0:
            return 0.0 if distance > 0 else 1.0
        return float(stats.t.sf(distance / self.sem, self.n - 1))


def paired_difference(a: pd.Series, b: pd.Series, *, confidence: float = 0.95) -> PairedDifference:
    """Mean difference ``a − b`` over the labels both share, with a t-interval.

    The pairs are aligned by label (the seed), never by position, and a label missing from
    either side or with a NaN value is left out. The interval is ``mean ± t · s / √n`` with
    ``s`` the standard deviation of the differences (``ddof=1``) and ``t`` the
    ``(1 + confidence) / 2`` quantile of Student's t with ``n − 1`` degrees of freedom.

    Parameters
    ----------
    a, b : pandas.Series
        Values indexed by the pairing label (for example a method's and the network's test
        accuracy by seed).
    confidence : float
        Coverage of the interval, in (0, 1).

    Returns
    -------
    PairedDifference

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._common import paired_difference
    >>> a = pd.Series([0.80, 0.82, 0.85], index=[0, 1, 2])
    >>> b = pd.Series([0.81, 0.80, 0.82], index=[2, 0, 1])
    >>> paired_difference(a, b).text()
    '+0.013 [-0.044, +0.071]'
    """
    for name, values in (("a", a), ("b", b)):
        if not isinstance(values, pd.Series):
            raise TypeError(f"{name} must be a pandas Series indexed by seed.")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}.")
    both = pd.concat([a.astype(float), b.astype(float)], axis=1, join="inner").dropna()
    differences = (both.iloc[:, 0] - both.iloc[:, 1]).to_numpy()
    n = differences.size
    if n == 0:
        return PairedDifference(math.nan, math.nan, math.nan, 0)
    mean = float(np.mean(differences))
    if n < 2:
        return PairedDifference(mean, math.nan, math.nan, n)
    sem = float(np.std(differences, ddof=1) / math.sqrt(n))
    half = float(stats.t.ppf((1.0 + confidence) / 2.0, n - 1)) * sem
    return PairedDifference(mean, mean - half, mean + half, n, sem)


def format_pvalue(value: float) -> str:
    """A corrected p-value with two significant digits, or :data:`MISSING` without a test."""
    if math.isnan(value):
        return MISSING
    return "< 0.001" if value < 0.001 else f"{value:.2g}"


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjustment of p-values tested together.

    The k-th smallest of ``m`` p-values is multiplied by ``m − k + 1``, each adjusted value is
    at least the one before it, and none exceeds 1. Rejecting where the adjusted value is at
    most α keeps the chance of any false rejection among the ``m`` at most α, whatever their
    dependence. NaN p-values (tests not made) take no part and stay NaN.

    Parameters
    ----------
    pvalues : sequence of float

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the order given.

    Examples
    --------
    >>> from faircocco_plugins.bench.paper._common import holm
    >>> holm([0.01, 0.04, float("nan"), 0.03]).round(2).tolist()
    [0.03, 0.06, nan, 0.06]
    """
    values = np.asarray(pvalues, dtype=float)
    if values.ndim != 1:
        raise ValueError(f"pvalues must be one-dimensional; got shape {values.shape}.")
    tested = np.flatnonzero(~np.isnan(values))
    if np.any((values[tested] < 0) | (values[tested] > 1)):
        raise ValueError("pvalues must lie in [0, 1] (NaN for a test not made).")
    order = tested[np.argsort(values[tested], kind="stable")]
    factors = np.arange(order.size, 0, -1)
    adjusted = values.copy()
    adjusted[order] = np.minimum(np.maximum.accumulate(factors * values[order]), 1.0)
    return adjusted


#: Significance level of every decision the pages make from paired differences (two-sided:
#: each side at half of it, as the 95% intervals show).
ALPHA = 0.05


@dataclass(frozen=True)
class Margin:
    """The practical margin of a measure: a difference no larger is a tie.

    Attributes
    ----------
    absolute : float
        The margin on the measure's scale.
    network_share : float
        Where positive, the margin is at least this share of the unpenalised network's
        validation value on the dataset and notion (:func:`network_values`): a measure whose
        scale differs between datasets needs a margin that follows it.
    """

    absolute: float
    network_share: float = 0.0

    def of(self, network: float = math.nan) -> float:
        """The margin given the network's value (NaN: the absolute margin alone).

        >>> from faircocco_plugins.bench.paper._common import MARGINS
        >>> MARGINS["deo"].of(0.01), round(MARGINS["deo"].of(0.05), 6)
        (0.002, 0.005)
        """
        if math.isnan(network):
            return self.absolute
        return max(self.absolute, self.network_share * abs(network))


#: The practical margin of each measure, used by every page that judges a difference. AUC and
#: R² take accuracy's; a hypervolume is a share of a normalised box, and a hundredth of it is
#: the least difference of two fronts worth telling apart.
MARGINS: dict[str, Margin] = {
    "accuracy": Margin(0.005),
    "balanced_accuracy": Margin(0.005),
    "auc": Margin(0.005),
    "r2": Margin(0.005),
    "di": Margin(0.02),
    "deo": Margin(0.002, 0.1),
    "adjusted score": Margin(0.002, 0.1),
    "hypervolume": Margin(0.01),
}
#: How the margin table names each measure.
MARGIN_NAMES: dict[str, str] = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced accuracy",
    "auc": "AUC",
    "r2": "R²",
    "di": "DI",
    "deo": "DEO",
    "adjusted score": "chance-adjusted FairCOCCO score (joint or per attribute)",
    "hypervolume": "hypervolume of a front",
}


def measure_of(column: str) -> str:
    """The measure of :data:`MARGINS` that a metric column reads.

    >>> from faircocco_plugins.bench.paper._common import measure_of
    >>> [measure_of(c) for c in ("deo[sex]", "faircocco_eo_adjusted[age]", "faircocco_adjusted")]
    ['deo', 'adjusted score', 'adjusted score']
    """
    base = column.split("[", 1)[0]
    if base.startswith("faircocco") and base.endswith("_adjusted"):
        return "adjusted score"
    if base not in MARGINS:
        raise ValueError(f"column={column!r} has no practical margin; known: {sorted(MARGINS)}.")
    return base


def margin_table() -> list[str]:
    """The margins of :data:`MARGINS` as a ``list-table``."""
    rows = [
        [
            MARGIN_NAMES[name],
            f"{margin.absolute:g}"
            + (
                f", or {margin.network_share:.0%} of the network's value if larger"
                if margin.network_share
                else ""
            ),
        ]
        for name, margin in MARGINS.items()
    ]
    return list_table(["Measure", "Practical margin"], rows)


def network_values(runs: pd.DataFrame, column: str = "faircocco_adjusted") -> pd.Series:
    """The unpenalised network's validation value of a metric, per dataset, notion and seed.

    With the default column, the chance-adjusted FairCOCCO score under the run's own notion,
    this is the one reference of every page: the matched page's score levels are multiples of
    it, the choosing-λ target is half its mean over seeds, and the claims' margins on the score
    are at least a tenth of its mean. It is read on the validation rows, so the test rows being
    judged never set their own bar, and per seed, so each seed is held to its own network.
    Where the network (``nn``) has several successful runs on a seed, the lowest value counts,
    as :func:`select_runs` reads ``relative_to``.

    Parameters
    ----------
    runs : pandas.DataFrame
        The study's runs (:func:`runs_of_export`).
    column : str
        The metric, without the ``validation.`` prefix.

    Returns
    -------
    pandas.Series
        Indexed by (``dataset``, ``notion``, ``seed``); empty without network runs.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._common import network_values
    >>> runs = pd.DataFrame({
    ...     "dataset": "drugs", "notion": "dp", "method": ["nn", "nn", "faircocco"],
    ...     "seed": [0, 1, 0], "status": "ok",
    ...     "validation.faircocco_adjusted": [0.004, 0.002, 0.001],
    ... })
    >>> network_values(runs).to_dict()
    {('drugs', 'dp', 0): 0.004, ('drugs', 'dp', 1): 0.002}
    """
    network = runs[(runs["method"] == UNPENALISED) & (runs["status"] == "ok")]
    network = network.assign(seed=network["seed"].astype(int))
    keys = ("dataset", "notion", "seed")
    return lowest_values(network, UNPENALISED, lambda _: f"validation.{column}", keys)


def _run_counts(runs: pd.DataFrame) -> str:
    """``N runs``, with the failed among them and the cells recorded as not applicable.

    >>> import pandas as pd
    >>> _run_counts(pd.DataFrame({"status": ["ok", "failed", "not_applicable", "ok"]}))
    '3 runs (1 failed) besides 1 cells not applicable'
    """
    status = runs["status"]
    text = f"{int((status != 'not_applicable').sum())} runs"
    if (failed := int((status == "failed").sum())) > 0:
        text += f" ({failed} failed)"
    if (skipped := int((status == "not_applicable").sum())) > 0:
        text += f" besides {skipped} cells not applicable"
    return text


#: A pause between consecutive finishes longer than this separates two sittings of a study:
#: within a sitting of the ``paper-cpu`` study, finishes were never 17 minutes apart.
SITTING_PAUSE_SECONDS = 1200.0


def wall_seconds(finished: pd.Series) -> float:
    """The wall time of a study that ran in sittings, from its runs' finish times: the span from
    the first finish to the last, less the pauses longer than :data:`SITTING_PAUSE_SECONDS`.

    It leaves out the start of each sitting (up to its first finish), so it is a little short.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._common import wall_seconds
    >>> times = pd.to_datetime(["2026-01-01 10:00", "2026-01-01 10:05", "2026-01-01 12:00",
    ...                         "2026-01-01 12:10"])
    >>> wall_seconds(pd.Series(times)) / 60  # 5 minutes, a pause of 115, then 10 minutes
    15.0
    """
    steps = pd.Series(finished).sort_values().diff().dt.total_seconds().dropna()
    return float(steps[steps <= SITTING_PAUSE_SECONDS].sum())


#: The title of the section that ends every results page.
SOURCES_TITLE = "How this page was made"


def page_head(title: str, *, label: str | None = None) -> list[str]:
    """The title of a page, with its reference label."""
    lines = [f".. _{label}:", ""] if label else []
    return [*lines, title, "=" * len(title), ""]


def page_sources(command: str, export: pd.DataFrame) -> list[str]:
    """The section that ends a page: the facts that say where its numbers come from.

    The command that wrote the page, the revision of the code that wrote it and of the runs,
    the machine that wrote it, the torch builds the runs used (a ``+cpu`` build trains on the
    CPU only), and the study's time: its wall time (:func:`wall_seconds`), the sum of its runs'
    fit and predict seconds, and the span of their finish times. They come last, after the
    results they describe.
    """
    runs = export.drop_duplicates("run_id")
    seconds = float(
        pd.to_numeric(runs["fit_seconds"]).fillna(0).sum()
        + pd.to_numeric(runs["predict_seconds"]).fillna(0).sum()
    )
    finished = pd.to_datetime(runs["finished_at"], utc=True, errors="coerce").dropna()
    wall = format_duration(wall_seconds(finished))
    span = (
        f"{finished.min():%Y-%m-%d %H:%M} to {finished.max():%Y-%m-%d %H:%M} UTC"
        if len(finished)
        else "not recorded"
    )
    run_revisions = sorted({str(r) for r in runs["git_revision"].dropna()})
    versions = [json.loads(text) for text in runs["versions"].dropna()]
    torch_builds = sorted({str(v["torch"]) for v in versions if "torch" in v})
    return [
        *section(SOURCES_TITLE),
        f"* Study: {_run_counts(runs)}, {wall} of wall time in sittings (finish times less "
        f"pauses over {SITTING_PAUSE_SECONDS // 60:g} minutes), {format_duration(seconds)} of "
        f"fitting and predicting (sum over runs), finished {span}",
        f"* Machine: {platform.platform()}, {os.cpu_count()} CPUs; the runs' torch: "
        + (", ".join(f"``{b}``" for b in torch_builds) or "not recorded"),
        f"* Revision: ``{git_revision() or 'unknown'}``; the runs': "
        + (", ".join(f"``{r}``" for r in run_revisions) or "not recorded"),
        f"* Made by ``{command}``",
        "",
    ]


def list_table(
    header: Sequence[str], rows: Iterable[Sequence[str]], *, title: str = ""
) -> list[str]:
    """A ``list-table`` directive with a header row."""
    lines = [f".. list-table:: {title}".rstrip(), "   :header-rows: 1", ""]
    for row in [list(header), *(list(r) for r in rows)]:
        lines.append(f"   * - {_cell(row[0])}")
        lines += [f"     - {_cell(cell)}" for cell in row[1:]]
    return [*lines, ""]


def _cell(text: str) -> str:
    # an empty cell must still hold something for docutils
    return " ".join(str(text).split()) or MISSING


def section(title: str, underline: str = "-") -> list[str]:
    """A section title."""
    return [title, underline * len(title), ""]


def table_section(
    title: str, introduction: str, header: Sequence[str], rows: Iterable[Sequence[str]]
) -> list[str]:
    """A section of one paragraph and a ``list-table``."""
    return [*section(title), introduction, "", *list_table(header, rows)]


def write_page(path: Path, lines: Sequence[str]) -> Path:
    """Write a page's lines, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    return path


def save_figure(
    figure: Any, out: Path, folder: str, name: str, alt: str, *, width: str, dpi: int
) -> list[str]:
    """Save a matplotlib figure as ``out / folder / name.png`` (``out`` being the page's folder)
    and return the image directive that shows it on the page."""
    file = out / folder / f"{name}.png"
    file.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(file, format="png", dpi=dpi)
    return [f".. image:: {folder}/{name}.png", f"   :alt: {alt}", f"   :width: {width}", ""]


def penalty_weight(runs: pd.DataFrame) -> pd.Series:
    """Each run's penalty weight λ (``params["lam"]``), NaN for runs without one.

    The export's ``strength`` is each method's own sweep parameter, which for a constraint is
    a bound (smaller is stricter); only a penalty's weight makes larger mean fairer.
    """
    values: list[Any] = [
        params.get("lam") if isinstance(params, dict) else None for params in runs["params"]
    ]
    return pd.to_numeric(pd.Series(values, index=runs.index, dtype=object), errors="coerce")
