"""The claims page: each claim the paper makes about its experiments, judged on the study's runs.

Every judgement is a paired comparison across seeds (the methods of one seed share its split):
the mean difference of a test metric between FairCOCCO and another method, with its 95%
t-interval (:func:`paired_difference`). Each method's setting is the one :func:`select_runs`
picks on the validation part of each seed; the fronts' claims use every setting through the
hypervolume of each seed's front (:func:`hypervolume_by_seed`). A seed whose selected model is
degenerate on the test part (one predicted class, or a regression no better than the mean) is
left out of a pair: such a model scores as perfectly fair.

A difference no larger than its measure's practical margin (:data:`MARGINS`) is a tie. Each
comparison tests, by paired t-tests, whether the difference lies beyond the margin on the side
the claim predicts, or beyond it on the other side (:meth:`Comparison.pvalues`); a claim that
FairCOCCO is *no worse* (competitive accuracy, little cost) is favoured when the difference is
shown to lie above minus the margin instead. Within a claim the comparisons' p-values are
corrected by Holm's method (:func:`holm`), and a comparison is

* *favourable* when it is shown on the side the claim predicts (corrected p-value at most
  :data:`ALPHA`);
* *unfavourable* when it is shown on the other side;
* a *tie* when neither is shown and its 95% interval lies inside the margin;
* *undecided* otherwise: the seeds cannot tell the two apart.

A claim *holds* when some comparisons are favourable and none is unfavourable, is *mixed* when
some are of each, *does not hold* when some are unfavourable and none is favourable, and is
*undecided* when none is either (:func:`verdict_of`); it *cannot be tested here* when the study
has no runs for it (or the paper's experiment is outside the harness). A claim of two things at
once is a conjunction of halves, each judged on its own comparisons, and takes the weaker
verdict of its halves (:data:`VERDICT_ORDER`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pandas as pd
from scipy import stats

from .._hypervolume_table import UNPENALISED, hypervolume_by_seed
from .._metrics import degenerate_runs
from .._selection import DEFAULT_TOLERANCE, select_runs
from ._common import (
    ALPHA,
    MARGINS,
    MISSING,
    PairedDifference,
    format_pvalue,
    holm,
    list_table,
    margin_table,
    measure_of,
    network_values,
    paired_difference,
    section,
    table_section,
)
from ._extra_pages import (
    STABLE_ABSOLUTE_ERROR,
    STABLE_RELATIVE_ERROR,
    pvalue_trends,
    stable_batch_sizes,
)
from ._tables import ATTRIBUTE_DATASETS, BINARY_DATASETS

#: The method whose claims are judged.
OURS = "faircocco"
#: The harness's stand-ins for the paper's baselines of Tables 3, 9 and 11: Zafar et al.
#: (covariance), Hardt et al. (fairlearn's threshold optimiser), Donini et al. (linear loss),
#: FACL and FARMI.
PAPER_BASELINES: tuple[str, ...] = (
    "covariance",
    "fairlearn_threshold",
    "linear_loss",
    "facl",
    "farmi",
)
#: The baselines of the several-attribute tables (4, 10, 12): one term per attribute.
ATTRIBUTE_BASELINES: tuple[str, ...] = ("facl", "farmi")
#: Fewest paired seeds that decide a comparison: with two, the t-interval rests on one
#: degree of freedom and a chance agreement of the two differences.
MIN_SEEDS = 3
#: Spearman correlation from which two measures count as highly correlated.
HIGH_CORRELATION = 0.7
#: Spearman correlation with λ from which a quantity follows a predicted trend.
TREND = 0.5
#: The batch size by which the estimate should have settled (the paper: "above 256").
CONVERGED_BY = 512

FAVOURABLE, UNFAVOURABLE, TIE, UNDECIDED = "favourable", "unfavourable", "tie", "undecided"
HOLDS, MIXED, FAILS, UNSETTLED, UNTESTABLE = (
    "holds",
    "mixed",
    "does not hold",
    "undecided",
    "cannot be tested here",
)
#: Verdicts from the strongest support of a claim to the weakest: a conjunction takes the
#: weakest of its halves', so it holds only when every half holds.
VERDICT_ORDER: tuple[str, ...] = (HOLDS, UNTESTABLE, UNSETTLED, MIXED, FAILS)
#: What a comparison expects of FairCOCCO's value less the other's: whether higher is better,
#: and whether the claim is of being no worse (within the margin) rather than better.
EXPECTATIONS: dict[str, tuple[bool, bool]] = {
    "higher": (True, False),
    "lower": (False, False),
    "not_lower": (True, True),
    "not_higher": (False, True),
}


class Tally(NamedTuple):
    """How many pieces of a claim's evidence are favourable, unfavourable, or neither."""

    favourable: int
    unfavourable: int
    neither: int

    @classmethod
    def of(cls, outcomes: Sequence[str]) -> Tally:
        """The tally of outcomes (:data:`TIE` and :data:`UNDECIDED` are neither)."""
        favourable, unfavourable = outcomes.count(FAVOURABLE), outcomes.count(UNFAVOURABLE)
        return cls(favourable, unfavourable, len(outcomes) - favourable - unfavourable)

    def text(self) -> str:
        """``"2 favourable / 1 unfavourable / 5 tied or undecided"``."""
        return (
            f"{self.favourable} favourable / {self.unfavourable} unfavourable / "
            f"{self.neither} tied or undecided"
        )


def verdict_of(tally: Tally) -> str:
    """The symmetric verdict of a tally.

    Examples
    --------
    >>> from faircocco_plugins.bench.paper._claims import Tally, verdict_of
    >>> [verdict_of(Tally(*t)) for t in ((2, 0, 5), (1, 1, 0), (0, 2, 1), (0, 0, 3), (0, 0, 0))]
    ['holds', 'mixed', 'does not hold', 'undecided', 'cannot be tested here']
    """
    if sum(tally) == 0:
        return UNTESTABLE
    if tally.favourable and tally.unfavourable:
        return MIXED
    if tally.favourable:
        return HOLDS
    return FAILS if tally.unfavourable else UNSETTLED


def conjunction(verdicts: Sequence[str]) -> str:
    """The verdict of a conjunction: the weakest of its halves' (:data:`VERDICT_ORDER`).

    >>> from faircocco_plugins.bench.paper._claims import conjunction
    >>> conjunction(["holds", "holds"]), conjunction(["holds", "undecided"])
    ('holds', 'undecided')
    >>> conjunction(["mixed", "undecided"]), conjunction(["holds", "does not hold"])
    ('mixed', 'does not hold')
    """
    return max(verdicts, key=VERDICT_ORDER.index)


@dataclass(frozen=True)
class Comparison:
    """One paired comparison of a claim: the first method's value less the second's."""

    #: What is compared, e.g. ``"adult: DEO, faircocco − facl"``.
    label: str
    difference: PairedDifference
    #: How the claim reads the difference, a key of :data:`EXPECTATIONS`: ``"lower"``
    #: (FairCOCCO's should be lower by more than the margin), ``"higher"``, ``"not_lower"``
    #: (no more than the margin lower; higher is better) or ``"not_higher"``.
    expect: str
    #: The practical margin of the measure (:data:`MARGINS`).
    margin: float
    #: Seeds left out because a selected model was degenerate on the test part.
    dropped: int = 0
    #: The half of a conjunction the comparison belongs to ("" for a claim of one thing).
    half: str = ""

    def __post_init__(self) -> None:
        if self.expect not in EXPECTATIONS:
            raise ValueError(
                f"expect={self.expect!r} is not valid; expected one of {list(EXPECTATIONS)}."
            )
        if not self.margin >= 0:
            raise ValueError(f"margin must be a number >= 0; got {self.margin!r}.")

    @property
    def decidable(self) -> bool:
        """Whether enough seeds are paired for a test (:data:`MIN_SEEDS`)."""
        return self.difference.n >= MIN_SEEDS and not math.isnan(self.difference.sem)

    def pvalues(self) -> tuple[float, float]:
        """One-sided p-values that the difference lies beyond its favourable bound, and beyond
        its unfavourable bound (NaN when not :attr:`decidable`).

        Favourable is beyond the margin on the side the claim predicts, or for a claim of being
        no worse, short of the margin on the other side; unfavourable is beyond the margin on
        the other side.
        """
        if not self.decidable:
            return math.nan, math.nan
        higher_is_better, no_worse = EXPECTATIONS[self.expect]
        sign = 1.0 if higher_is_better else -1.0
        favourable_bound = -sign * self.margin if no_worse else sign * self.margin
        d = self.difference
        return (
            d.pvalue_beyond(favourable_bound, above=higher_is_better),
            d.pvalue_beyond(-sign * self.margin, above=not higher_is_better),
        )

    @property
    def pvalue(self) -> float:
        """The p-value of a decision either way: twice the smaller one-sided p-value (each
        side at half of :data:`ALPHA`, as the 95% interval shows), at most 1; NaN when not
        :attr:`decidable`."""
        if not self.decidable:
            return math.nan
        return min(1.0, 2.0 * min(self.pvalues()))

    def outcome(self, corrected: float) -> str:
        """The outcome given the p-value corrected with the claim's other comparisons."""
        if corrected <= ALPHA:
            favourable, unfavourable = self.pvalues()
            return FAVOURABLE if favourable < unfavourable else UNFAVOURABLE
        d = self.difference
        inside = -self.margin <= d.low and d.high <= self.margin
        return TIE if self.decidable and inside and not EXPECTATIONS[self.expect][1] else UNDECIDED


def judge(comparisons: Sequence[Comparison]) -> list[tuple[str, float]]:
    """Each comparison's outcome and p-value, corrected by :func:`holm` over the comparisons
    tested together (those not :attr:`~Comparison.decidable` are not tested and undecided)."""
    corrected = holm([c.pvalue for c in comparisons])
    return [(c.outcome(p), float(p)) for c, p in zip(comparisons, corrected, strict=True)]


@dataclass
class Claim:
    """A claim of the paper with the study's evidence."""

    number: int
    title: str
    #: What the paper says, and where.
    paper: str
    #: How the study tests it.
    test: str
    comparisons: list[Comparison] = field(default_factory=list)
    #: The halves of a conjunction, by :attr:`Comparison.half`; empty for a claim of one thing.
    halves: tuple[str, ...] = ()
    #: Evidence counted without comparisons of the claim's own (correlations, trends).
    tally: Tally | None = None
    #: Further evidence (reStructuredText lines), e.g. a correlation table.
    extra: list[str] = field(default_factory=list)
    #: What the tally counted, where the numbers suggest a reason.
    reason: str = ""

    @property
    def paired(self) -> list[Comparison]:
        """The comparisons with paired seeds."""
        return [c for c in self.comparisons if c.difference.n > 0]

    def judged(self) -> list[tuple[Comparison, str, float]]:
        """Each paired comparison with its outcome and corrected p-value (:func:`judge`)."""
        paired = self.paired
        return [(c, *result) for c, result in zip(paired, judge(paired), strict=True)]

    def counts(self, half: str | None = None) -> Tally:
        """The tally of the claim, or of one of its halves."""
        if self.tally is not None:
            return self.tally
        return Tally.of([o for c, o, _ in self.judged() if half is None or c.half == half])

    @property
    def verdict(self) -> str:
        """The claim's verdict (see the module's docstring)."""
        if self.halves:
            return conjunction([verdict_of(self.counts(half)) for half in self.halves])
        return verdict_of(self.counts())


class _Evidence:
    """The study's runs, prepared once: the selected run per seed, and the fronts by seed."""

    def __init__(self, runs: pd.DataFrame, **rule: Any) -> None:
        applicable = runs[runs["status"] != "not_applicable"]
        self.runs = runs
        self.selected = select_runs(applicable, **rule)
        self.selected = self.selected[self.selected["status"] == "ok"]
        self.degenerate = degenerate_runs(self.selected, "test")
        self.volumes = hypervolume_by_seed(runs)
        self._network: dict[str, pd.Series] = {}

    def margin(self, dataset: str, notion: str, column: str) -> float:
        """The practical margin of a metric on a dataset and notion: of :data:`MARGINS`, given
        the network's validation value, its mean over seeds (:func:`network_values`)."""
        if column not in self._network:
            self._network[column] = network_values(self.runs, column)
        values = self._network[column]
        network = values.get((dataset, notion), pd.Series(dtype=float))
        mean = float(network.mean()) if len(network) else math.nan
        return MARGINS[measure_of(column)].of(mean)

    def by_seed(self, dataset: str, notion: str, method: str, column: str) -> pd.Series:
        """A selected test metric by seed, NaN where the selected model is degenerate."""
        s = self.selected
        rows = s[(s["dataset"] == dataset) & (s["notion"] == notion) & (s["method"] == method)]
        if f"test.{column}" not in rows.columns:
            return pd.Series(dtype=float)
        values = rows[f"test.{column}"].astype(float).where(~self.degenerate[rows.index])
        return pd.Series(values.to_numpy(), index=rows["seed"].astype(int).to_numpy())

    def compare(
        self,
        dataset: str,
        notion: str,
        column: str,
        other: str,
        expect: str,
        *,
        name: str,
        half: str = "",
    ) -> Comparison:
        """FairCOCCO's selected ``column`` against ``other``'s, paired by seed."""
        ours = self.by_seed(dataset, notion, OURS, column)
        theirs = self.by_seed(dataset, notion, other, column)
        seeds = ours.index.union(theirs.index)
        dropped = int((ours.reindex(seeds).isna() | theirs.reindex(seeds).isna()).sum())
        return Comparison(
            f"{dataset}: {name}, {OURS} − {other}",
            paired_difference(ours, theirs),
            expect,
            self.margin(dataset, notion, column),
            dropped,
            half,
        )

    def compare_each(
        self,
        datasets: Sequence[str],
        notion: str,
        column: str,
        baselines: Sequence[str],
        expect: str,
        *,
        name: str,
        half: str = "",
    ) -> list[Comparison]:
        """FairCOCCO against each of ``baselines`` on each of ``datasets`` (:meth:`compare`)."""
        return [
            self.compare(d, notion, column, b, expect, name=name, half=half)
            for d in datasets
            for b in baselines
        ]

    def compare_fronts(self, dataset: str, notion: str, plane: str, other: str) -> Comparison:
        """The hypervolume of FairCOCCO's front of each seed against ``other``'s."""
        v = self.volumes[(self.volumes["dataset"] == dataset) & (self.volumes["notion"] == notion)]

        def of(method: str) -> pd.Series:
            rows = v[v["method"] == method]
            return pd.Series(rows[plane].to_numpy(dtype=float), index=rows["seed"].to_numpy())

        name = "hypervolume (score)" if plane == "adjusted" else "hypervolume (DEO)"
        return Comparison(
            f"{dataset}: {name}, {OURS} − {other}",
            paired_difference(of(OURS), of(other)),
            "higher",
            MARGINS["hypervolume"].of(),
        )

    def attributes(self, dataset: str, notion: str) -> list[str]:
        """The per-attribute adjusted score columns of a dataset's selected runs."""
        s = self.selected
        rows = s[(s["dataset"] == dataset) & (s["notion"] == notion)]
        prefix = f"test.faircocco_{notion}_adjusted["
        return [
            c.removeprefix("test.")
            for c in rows.columns
            if c.startswith(prefix) and rows[c].notna().any()
        ]


def claims_page(
    runs: pd.DataFrame,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    adjusted: bool = False,
    relative_to: str | None = None,
    claims_md: str = "claims.md",
    experiments: Mapping[str, pd.DataFrame] | None = None,
) -> list[str]:
    """The body of the claims page (after its head).

    Parameters
    ----------
    runs : pandas.DataFrame
        The study's runs (:func:`runs_of_export`).
    tolerance, adjusted, relative_to
        The selection rule's settings (:func:`select_runs`).
    claims_md : str
        The path of ``claims.md`` (the paper's claims and their evidence) from the page.
    experiments : mapping of str to pandas.DataFrame, optional
        The tables of ``faircocco paper-experiment`` by name (``convergence``,
        ``attributes``, ``pvalues``), which test claims 15, 11 and 20; a claim whose table
        is not given cannot be tested here.

    Returns
    -------
    list of str
        reStructuredText lines.
    """
    evidence = _Evidence(runs, tolerance=tolerance, adjusted=adjusted, relative_to=relative_to)
    claims = _claims(evidence, experiments or {})
    lines = _rule(claims_md)
    lines += list_table(
        ["Claim", "Verdict", "Favourable / unfavourable / tied or undecided"],
        [[f"{c.number}. {c.title}", c.verdict, _counts(c)] for c in claims],
    )
    for claim in claims:
        lines += _claim_section(claim)
    return lines + _robustness(runs)


def _rule(claims_md: str) -> list[str]:
    """The rule every verdict follows, with the table of margins."""
    return [
        "Each claim the paper makes about its experiments (listed with the paper's evidence in "
        f":download:`claims.md <{claims_md}>`), judged on this study's runs by the rule below, "
        "which gives FairCOCCO no benefit of the doubt.",
        "",
        *section("The rule"),
        "**Comparisons.** A comparison is the mean over seeds of the paired difference of a "
        "test metric between FairCOCCO and another method, with its 95% t-interval. Each "
        "method's setting is the one chosen on the validation part of each seed by the rule of "
        "the tables (no test number takes part in the choice); the fronts' comparisons use "
        "every setting through each seed's hypervolume. Seeds whose chosen model is "
        "degenerate on the test part are left out of a pair (the count is given); fewer than "
        f"{MIN_SEEDS} paired seeds decide nothing.",
        "",
        "**Practical margins.** A difference no larger than its measure's margin is a tie, "
        "however sure the seeds are of it. Where a margin follows the unpenalised network, it "
        "is the network's (``nn``) validation value on the dataset and notion, its mean over "
        "seeds: for the chance-adjusted score, the same reference the matched-fairness and "
        "choosing-λ pages use. The same margins decide ties on the matched-fairness page.",
        "",
        *margin_table(),
        "**Outcomes.** Each comparison is tested, by paired t-tests, on both sides: whether "
        "the difference lies beyond the margin on the side the claim predicts (FairCOCCO "
        "better by more than the margin), and whether it lies beyond the margin on the other "
        "side. For a claim that FairCOCCO is no worse (competitive accuracy, little cost, "
        "achieved alike) the margin is the allowance the claim makes: the favourable side is "
        "then a difference shown to be less than the margin worse. A comparison's p-value is "
        "twice the smaller one-sided p-value (each side at 2.5%, as the intervals show). "
        "Within each claim these p-values are corrected by Holm's step-down method, which "
        f"keeps the chance of any wrong decision among the claim's comparisons at most "
        f"{ALPHA:.0%} however many there are. A comparison is *favourable* when its corrected "
        f"p-value is at most {ALPHA:g} on the predicted side, *unfavourable* when it is on the "
        "other side, a *tie* when neither is shown and its 95% interval lies inside the "
        "margin, and *undecided* otherwise.",
        "",
        "**Verdicts.** A claim **holds** when some of its comparisons are favourable and none "
        "is unfavourable, is **mixed** when some are favourable and some unfavourable, **does "
        "not hold** when some are unfavourable and none is favourable, and is **undecided** "
        "when none is either; the counts stand beside every verdict. A claim of two things at "
        "once (fairer *and* at little cost) is a conjunction: each half takes its verdict from "
        "its own comparisons (corrected together with the rest of the claim's), and the claim "
        "takes the weaker of the two in the order holds, cannot be tested here, undecided, "
        "mixed, does not hold. So it holds only when both halves hold, and does not hold when "
        "either half does not. Claims judged by correlations or trends rather than paired "
        "comparisons count each dataset or trend as favourable or unfavourable by the rule "
        "stated with them, and take their verdict from the counts in the same way.",
        "",
        *section("The verdicts"),
    ]


def _counts(claim: Claim) -> str:
    """The claim's tally, with each half's verdict and tally for a conjunction."""
    if claim.verdict == UNTESTABLE and not claim.paired and claim.tally is None:
        return MISSING
    text = _tally(claim.counts())
    if claim.halves:
        halves = [
            f"{half}: {verdict_of(claim.counts(half))}, {_tally(claim.counts(half))}"
            for half in claim.halves
        ]
        text += " (" + "; ".join(halves) + ")"
    return text


def _tally(tally: Tally) -> str:
    """``"2 / 1 / 5"``."""
    return f"{tally.favourable} / {tally.unfavourable} / {tally.neither}"


def _robustness(runs: pd.DataFrame) -> list[str]:
    """How often each method's runs are degenerate on the test part, over every setting."""
    ok = runs[runs["status"] == "ok"]
    degenerate = degenerate_runs(ok, "test")
    rows = []
    for method, group in ok.groupby("method", sort=True):
        bad = degenerate[group.index]
        datasets = sorted(set(group.loc[bad, "dataset"]))
        rows.append(
            [
                str(method),
                str(len(group)),
                str(int(bad.sum())),
                f"{bad.mean():.1%}",
                ", ".join(datasets) or MISSING,
            ]
        )
    return table_section(
        "Beyond the paper's claims: degenerate models",
        "A model that predicts one class on the test part (or a regression no better than the "
        "mean) scores as perfectly fair and says nothing. Over every setting each method "
        "ran, how many of its runs are degenerate:",
        ["Method", "Runs", "Degenerate", "Share", "On datasets"],
        rows,
    )


def _claim_section(claim: Claim) -> list[str]:
    lines = section(f"{claim.number}. {claim.title}")
    lines += [f"*The paper:* {claim.paper}", "", f"*Test:* {claim.test}", ""]
    verdict = f"*Verdict:* **{claim.verdict}**"
    if claim.verdict != UNTESTABLE or claim.paired:
        verdict += f" ({claim.counts().text()})"
    if claim.halves:
        verdict += ": " + "; ".join(
            f"{half} {verdict_of(claim.counts(half))}" for half in claim.halves
        )
    lines += [verdict + (f". {claim.reason}" if claim.reason else ""), ""]
    if claim.paired:
        rows = [
            [
                c.label,
                c.difference.text(),
                f"{c.margin:.3g}",
                str(c.difference.n),
                str(c.dropped) if c.dropped else "",
                format_pvalue(p),
                outcome,
            ]
            for c, outcome, p in claim.judged()
        ]
        header = ["Comparison", "Mean difference [95% CI]", "Margin", "Seeds", "Left out"]
        lines += list_table([*header, "p (Holm)", "Outcome"], rows)
    unpaired = [c.label for c in claim.comparisons if c.difference.n == 0]
    if unpaired:
        lines += [
            f"Without paired runs ({len(unpaired)}: a method not applicable to the notion, or "
            "a dataset the study has not reached yet): " + "; ".join(unpaired) + ".",
            "",
        ]
    return lines + claim.extra


def _claims(evidence: _Evidence, experiments: Mapping[str, pd.DataFrame]) -> list[Claim]:
    e = evidence
    binary = [d for d in BINARY_DATASETS if d in set(e.runs["dataset"])]
    several = [d for d in ATTRIBUTE_DATASETS if d in set(e.runs["dataset"])]
    claims = [
        Claim(
            1,
            "Competitive accuracy on binary tasks",
            "with one binary attribute and outcome, FairCOCCO's accuracy is competitive with "
            "the other methods' (Table 3, EO).",
            "test accuracy against each of the paper's baselines under EO; favourable when "
            "shown to be less than the margin below, unfavourable when shown to be more.",
            e.compare_each(binary, "eo", "accuracy", PAPER_BASELINES, "not_lower", name="accuracy"),
        ),
        Claim(
            2,
            "Lowest DEO on binary tasks",
            "FairCOCCO consistently gives the lowest DEO (Table 3, EO).",
            "test DEO against each of the paper's baselines under EO; favourable when lower by "
            "more than the margin.",
            e.compare_each(binary, "eo", "deo", PAPER_BASELINES, "lower", name="DEO"),
        ),
        Claim(
            3,
            "Better trade-off than FACL and FARMI",
            "at similar accuracy FairCOCCO's DEO is below FACL's and FARMI's (Table 3).",
            "the hypervolume of each seed's front of accuracy against DEO over all settings, "
            "under EO; favourable when larger by more than the margin.",
            [e.compare_fronts(d, "eo", "deo", b) for d in binary for b in ATTRIBUTE_BASELINES],
        ),
        Claim(
            4,
            "Fairness at little cost",
            "against the unregularised network, DEO falls for at most a point of accuracy "
            "(Table 3).",
            "a conjunction, FairCOCCO against ``nn`` under EO: DEO lower by more than the "
            "margin (the *fairer* half) and accuracy shown to be less than the margin lower "
            "(the *cost* half).",
            [
                c
                for d in binary
                for c in (
                    e.compare(d, "eo", "deo", UNPENALISED, "lower", name="DEO", half="fairer"),
                    e.compare(
                        d, "eo", "accuracy", UNPENALISED, "not_lower", name="accuracy", half="cost"
                    ),
                )
            ],
            halves=("fairer", "cost"),
        ),
        Claim(
            5,
            "Better fronts with continuous attributes",
            "on Communities and Crime and on Students, FairCOCCO's front of MSE against "
            "unfairness lies closer to the origin than FACL's and FARMI's (Figure 1).",
            "the hypervolume of each seed's front of R² against the joint chance-adjusted "
            "score, under EO; favourable when larger by more than the margin.",
            [
                e.compare_fronts(d, "eo", "adjusted", b)
                for d in ("communities", "students")
                if d in several
                for b in ATTRIBUTE_BASELINES
            ],
        ),
        _correlation_claim(e),
        Claim(
            7,
            "Joint protection of several attributes",
            "FairCOCCO gives the lowest joint unfairness of all attributes (Table 4, EO).",
            "the joint chance-adjusted EO score against FACL's and FARMI's (one term per "
            "attribute); favourable when lower by more than the margin.",
            e.compare_each(
                several,
                "eo",
                "faircocco_adjusted",
                ATTRIBUTE_BASELINES,
                "lower",
                name="joint score",
            ),
        ),
        Claim(
            8,
            "Each attribute protected as well",
            "FairCOCCO also gives the lowest unfairness towards each attribute (Table 4).",
            "each attribute's chance-adjusted EO score against FACL's and FARMI's; favourable "
            "when lower by more than the margin.",
            [
                e.compare(d, "eo", column, b, "lower", name=_attribute_name(column))
                for d in several
                for column in e.attributes(d, "eo")
                for b in ATTRIBUTE_BASELINES
            ],
        ),
        _trade_off_claim(e, several),
        Claim(
            10,
            "Performance kept with several attributes",
            "FairCOCCO has the best accuracy or MSE of the fair methods (Table 4).",
            "test accuracy (R² for regression) against FACL's and FARMI's under EO; "
            "favourable when shown to be less than the margin below, unfavourable when shown "
            "to be more.",
            [
                e.compare(d, "eo", _performance(e, d), b, "not_lower", name=_performance(e, d))
                for d in several
                for b in ATTRIBUTE_BASELINES
            ],
        ),
        _attributes_claim(experiments.get("attributes"), e),
        Claim(
            12,
            "Beyond tabular data: CelebA",
            "similar gains on three CelebA tasks with a ResNet-18 (Table 5).",
            "not run: the harness has no image data or image model.",
        ),
        Claim(
            13,
            "Beyond tabular data: sepsis treatment",
            "FairCOCCO removes the clinicians' bias in MIMIC-III demonstrations (Table 6).",
            "not run: MIMIC-III is credentialed data, outside the harness.",
        ),
        Claim(
            14,
            "The relaxations cost nothing noticeable",
            "the low-rank factor and mini-batch estimation do not noticeably change the "
            "results (Sections 3 and 5).",
            "not run on trained models: every penalty of this study uses the mini-batch "
            "estimate. The score's low-rank and exact routes are compared in the test suite "
            "and on the performance page; the batch size in claim 15.",
        ),
        _convergence_claim(experiments.get("convergence")),
        Claim(
            16,
            "DP on binary tasks",
            "FairCOCCO's DI is the closest to 1, with the best accuracy (Table 9).",
            "a conjunction, against the paper's baselines under DP: test DI (lowest over "
            "highest positive rate, so 1 is parity) higher by more than the margin (the "
            "*fairer* half), and test accuracy higher by more than the margin (the *accuracy* "
            "half). For one binary attribute DI orders models as the closeness of the paper's "
            "ratio to 1 does.",
            [
                *e.compare_each(
                    binary, "dp", "di", PAPER_BASELINES, "higher", name="DI", half="fairer"
                ),
                *e.compare_each(
                    binary,
                    "dp",
                    "accuracy",
                    PAPER_BASELINES,
                    "higher",
                    name="accuracy",
                    half="accuracy",
                ),
            ],
            halves=("fairer", "accuracy"),
            extra=[
                "DI is a ratio of positive rates at the threshold 0.5, of one binarised "
                "attribute; the score is the dependence of the predicted probabilities on the "
                "attributes. Halving the score moves probabilities everywhere but can leave the "
                "groups' positive rates apart, while the covariance and linear-loss penalties "
                "and the threshold optimiser act on the positive rates (or the decision "
                "boundary) directly. The p-values page shows how DI grows with λ on Adult.",
                "",
            ],
        ),
        Claim(
            17,
            "DP with several attributes",
            "lowest joint and per-attribute scores under DP (Table 10).",
            "the joint chance-adjusted DP score against FACL's and FARMI's; favourable when "
            "lower by more than the margin.",
            e.compare_each(
                several,
                "dp",
                "faircocco_adjusted",
                ATTRIBUTE_BASELINES,
                "lower",
                name="joint score",
            ),
        ),
        Claim(
            18,
            "CAL on binary tasks",
            "lowest CAL score with good accuracy (Table 11).",
            "a conjunction, against the paper's baselines under CAL: the chance-adjusted CAL "
            "score lower by more than the margin (the *fairer* half), and test accuracy shown "
            "to be less than the margin lower (the *accuracy* half).",
            [
                *e.compare_each(
                    binary,
                    "cal",
                    "faircocco_adjusted",
                    PAPER_BASELINES,
                    "lower",
                    name="CAL score",
                    half="fairer",
                ),
                *e.compare_each(
                    binary,
                    "cal",
                    "accuracy",
                    PAPER_BASELINES,
                    "not_lower",
                    name="accuracy",
                    half="accuracy",
                ),
            ],
            halves=("fairer", "accuracy"),
        ),
        Claim(
            19,
            "CAL with several attributes",
            "lowest joint CAL score on Communities and Students (Table 12).",
            "the paper's datasets have continuous outcomes, for which this study does not "
            "train under CAL; tested instead on the several-attribute classification "
            "datasets: the joint chance-adjusted CAL score against FACL's and FARMI's; "
            "favourable when lower by more than the margin.",
            e.compare_each(
                several,
                "cal",
                "faircocco_adjusted",
                ATTRIBUTE_BASELINES,
                "lower",
                name="joint CAL score",
            ),
        ),
        _pvalues_claim(experiments.get("pvalues")),
        Claim(
            21,
            "The groups' prediction distributions align",
            "as λ grows, the distributions of predictions of the groups come closer (Figure 3).",
            "not run: the study stores metrics, not predictions.",
        ),
    ]
    return claims


def _not_given(number: int, title: str, paper: str) -> Claim:
    """A claim whose experiment's table was not given to the page."""
    return Claim(number, title, paper, "its experiment's table was not given.")


def _attributes_claim(frame: pd.DataFrame | None, e: _Evidence) -> Claim:
    """Claim 11: with every attribute protected, performance and the protected attributes'
    joint score against one attribute protected, at each λ > 0, paired by seed; a conjunction
    of the two."""
    number, title = 11, "Insensitive to the number of attributes"
    paper = "fairness and accuracy are achieved alike with 4, 2 and 3 attributes (Figure 4)."
    if frame is None:
        return _not_given(number, title, paper)
    comparisons = []
    for dataset, group in frame.groupby("dataset", sort=False):
        most = int(group["attributes"].max())
        performance = "r2" if group["r2"].notna().any() else "auc"
        notion = str(group["notion"].iloc[0])
        for lam in sorted(v for v in group["lam"].unique() if v > 0):
            at = group[group["lam"] == lam]

            def of(k: int, column: str, at: pd.DataFrame = at) -> pd.Series:
                rows = at[at["attributes"] == k]
                kept = rows[~rows["degenerate"].astype(bool)]
                return pd.Series(kept[column].to_numpy(float), index=kept["seed"].to_numpy())

            for column, expect, name, half in (
                (
                    performance,
                    "not_lower",
                    performance.upper() if performance == "auc" else "R²",
                    "performance",
                ),
                ("faircocco_adjusted", "not_higher", "score of the protected", "fairness"),
            ):
                comparisons.append(
                    Comparison(
                        f"{dataset}, λ = {lam:g}: {name}, {most} attributes − 1",
                        paired_difference(of(most, column), of(1, column)),
                        expect,
                        e.margin(str(dataset), notion, column),
                        half=half,
                    )
                )
    return Claim(
        number,
        title,
        paper,
        "a conjunction, from FairCOCCO-penalised networks protecting the first 1 to k "
        "attributes jointly (:ref:`results-attributes`): at each λ > 0, all k attributes "
        "against the first alone, paired by seed (degenerate runs left out); the "
        "*performance* half is favourable when the performance (R², or AUC) is shown to be "
        "less than the margin lower, the *fairness* half when the joint chance-adjusted "
        "score of the protected attributes is shown to be less than the margin higher (the "
        "margin of the study's network on the dataset).",
        comparisons,
        halves=("performance", "fairness"),
    )


def _convergence_claim(frame: pd.DataFrame | None) -> Claim:
    """Claim 15: the batch size from which the batch estimates' mean absolute error stays
    below :data:`STABLE_ABSOLUTE_ERROR`, per dataset, notion and model."""
    number, title = 15, "The estimate converges with batch size"
    paper = (
        "the score estimated on mini-batches stabilises above a batch size of 256 "
        "(Figure 2, Adult and German)."
    )
    if frame is None:
        return _not_given(number, title, paper)
    stable = stable_batch_sizes(frame)
    rows = [
        [
            f"{r['dataset']}, {r['notion']}, {r['model']}",
            _size(r["stable_absolute"]),
            _size(r["stable"]),
            f"{r['full_score']:.4f}",
        ]
        for r in stable.to_dict("records")
    ]
    settled = stable["stable_absolute"] <= CONVERGED_BY
    return Claim(
        number,
        title,
        paper,
        "the mean absolute error of the raw score on random batches against its value on "
        f"all rows (:ref:`results-convergence`); holds where it stays below "
        f"{STABLE_ABSOLUTE_ERROR:g} from a batch size of {CONVERGED_BY} or less: each "
        "dataset, notion and model that does is favourable, each that does not unfavourable. "
        f"The error relative to the full score ({STABLE_RELATIVE_ERROR:.0%}) is shown too: "
        "near-zero scores of fair models keep it high, so it is not the criterion.",
        extra=list_table(
            [
                "Dataset, notion, model",
                f"Error < {STABLE_ABSOLUTE_ERROR:g} from",
                f"Error < {STABLE_RELATIVE_ERROR:.0%} from",
                "Full score",
            ],
            rows,
        ),
        tally=Tally(int(settled.sum()), int((~settled).sum()), 0),
        reason=f"{int(settled.sum())} of {len(settled)} settle by {CONVERGED_BY}",
    )


def _size(value: float) -> str:
    return MISSING if math.isnan(value) else f"{int(value)}"


def _pvalues_claim(frame: pd.DataFrame | None) -> Claim:
    """Claim 20: the direction of each quantity's trend with λ (Spearman's ρ over runs)."""
    number, title = 20, "p-values grow with λ"
    paper = (
        "stronger regularisation raises the permutation test's p-value and lowers the "
        "score, with DEO (EO) and DI-measured unfairness (DP) (Table 13)."
    )
    if frame is None:
        return _not_given(number, title, paper)
    trends = pvalue_trends(frame)
    # the paper's Table 13 reads DEO under EO and DI under DP (DI rises to 1 as parity nears)
    predicted = {
        "eo": {"pvalue": +1, "faircocco": -1, "deo": -1},
        "dp": {"pvalue": +1, "faircocco": -1, "di": +1},
    }
    rows = []
    agree = tested = 0
    for notion, row in trends.iterrows():
        for metric, sign in predicted.get(str(notion), {}).items():
            rho = float(row[metric])
            if math.isnan(rho):
                continue
            tested += 1
            follows = sign * rho >= TREND
            agree += follows
            rows.append([f"{notion}: {metric}", f"{rho:+.2f}", "yes" if follows else "no"])
    largest = frame.groupby(["notion", "lam"])["pvalue"].mean().groupby("notion").max()
    levels = "; ".join(f"{notion}: {value:.3f}" for notion, value in largest.items())
    return Claim(
        number,
        title,
        paper,
        "Spearman's ρ against λ over every run of FairCOCCO-penalised networks "
        f"(:ref:`results-pvalues`); a quantity follows the claim when ρ is at least {TREND:g} "
        "in the predicted direction (p-value up, score down, and DEO down under EO, DI up "
        "under DP): each trend that does is favourable, each that does not unfavourable. The "
        "trends say nothing of the p-values' level: the paper's reach 0.90 (EO) and 0.27 (DP) "
        "by λ = 2.",
        extra=list_table(["Notion: quantity", "Spearman ρ with λ", "As predicted"], rows),
        tally=Tally(agree, tested - agree, 0),
        reason=(
            f"{agree} of {tested} trends as predicted; the largest mean p-value over λ is {levels}"
            if tested
            else ""
        ),
    )


def _attribute_name(column: str) -> str:
    return column[column.index("[") + 1 : -1]


def _performance(e: _Evidence, dataset: str) -> str:
    """R² for a regression dataset, accuracy for a classification one."""
    rows = e.selected[e.selected["dataset"] == dataset]
    return "r2" if "test.r2" in rows and rows["test.r2"].notna().any() else "accuracy"


def _correlation_claim(e: _Evidence) -> Claim:
    """Claim 6: Spearman's ρ between the EO score and DEO over all runs of a dataset."""
    rows: list[Sequence[str]] = []
    strong = 0
    tested = 0
    ok = e.runs[(e.runs["status"] == "ok") & (e.runs["notion"] == "eo")]
    ok = ok[~degenerate_runs(ok, "test")]
    for dataset, group in ok.groupby("dataset", sort=False):
        pairs = _score_deo_pairs(group)
        if len(pairs) < 3 or pairs[["score", "deo"]].nunique().min() < 2:
            continue
        rho = float(stats.spearmanr(pairs["score"], pairs["deo"]).statistic)
        tested += 1
        strong += rho >= HIGH_CORRELATION
        rows.append([str(dataset), f"{rho:+.2f}", str(len(pairs))])
    header = ["Dataset", "Spearman ρ (EO score, DEO)", "Pairs (run × attribute)"]
    extra = list_table(header, rows) if rows else []
    means = _selected_means(e)
    if len(means) >= 3 and means[["score", "deo"]].nunique().min() >= 2:
        pooled = float(stats.spearmanr(means["score"], means["deo"]).statistic)
        extra += [
            "As the paper reads its Table 4 (the mean over seeds of each method's selected "
            "model, per dataset and attribute, pooled over datasets): Spearman ρ = "
            f"{pooled:+.2f} over {len(means)} pairs (the paper's: 0.87 over 52).",
            "",
        ]
    extra += [
        "The two measure different things, so they can disagree: DEO is the gap in "
        "true-positive rate between two groups of one attribute (a continuous attribute "
        "split at its median), of labels thresholded at 0.5; the EO score is the dependence "
        "of the whole distribution of predicted probabilities on all attributes jointly, "
        "given the outcome (both classes). A model can move probabilities without "
        "crossing the threshold (the score changes, DEO does not), or move a few rows "
        "across it (DEO changes sharply, the score barely). On Adult through the AIF360 "
        "adapter, λ = 5 took the adjusted EO score from 0.0108 to 0.0012 while AIF360's "
        "signed equal-opportunity difference went from −0.016 to 0.068: the penalty "
        "matched the groups' score distributions given the label, which moved the "
        "thresholded rates of the smaller group past parity; the sign flip is the gap "
        "overshooting, which the unsigned score does not see.",
        "",
    ]
    return Claim(
        6,
        "The FairCOCCO score and DEO are highly correlated",
        "per attribute, the score and DEO move together (Table 4).",
        "Spearman's ρ between each attribute's test EO score and its test DEO (the joint "
        "score and DEO where a dataset has one attribute), over every successful, "
        "non-degenerate run of a dataset, all methods and settings; a dataset is favourable "
        f"when ρ ≥ {HIGH_CORRELATION:g}, unfavourable otherwise.",
        extra=extra,
        tally=Tally(strong, tested - strong, 0),
        reason=f"ρ ≥ {HIGH_CORRELATION:g} on {strong} of {tested} datasets" if tested else "",
    )


def _score_deo_pairs(runs: pd.DataFrame) -> pd.DataFrame:
    """(score, DEO, attribute) of each run and attribute: the per-attribute columns where
    there are any, else the joint score and DEO (attribute "")."""
    attributes = [
        c.removeprefix("test.deo[")[:-1]
        for c in runs.columns
        if c.startswith("test.deo[") and f"test.faircocco_eo[{c[9:-1]}]" in runs.columns
    ]
    columns = {a: (f"test.faircocco_eo[{a}]", f"test.deo[{a}]") for a in attributes}
    pairs = [
        runs[[score, deo]].set_axis(["score", "deo"], axis=1).astype(float).assign(attribute=a)
        for a, (score, deo) in (columns or {"": ("test.faircocco", "test.deo")}).items()
    ]
    return pd.concat(pairs, ignore_index=True).dropna()


def _selected_means(e: _Evidence) -> pd.DataFrame:
    """Mean (score, DEO) over seeds of each method's selected EO model, per dataset and
    attribute (degenerate models left out)."""
    chosen = e.selected[(e.selected["notion"] == "eo") & ~e.degenerate]
    means = [
        _score_deo_pairs(group).groupby("attribute")[["score", "deo"]].mean()
        for _, group in chosen.groupby(["dataset", "method"], sort=False)
    ]
    return pd.concat(means, ignore_index=True) if means else pd.DataFrame()


def _trade_off_claim(e: _Evidence, several: list[str]) -> Claim:
    """Claim 9: one term per attribute leaves some attribute no better off than ``nn``, and
    worse off than FairCOCCO leaves it; each baseline–attribute pair's three comparisons are
    corrected together with every other pair's."""
    pairs: list[tuple[str, list[Comparison]]] = []
    for dataset in several:
        for column in e.attributes(dataset, "eo"):
            margin = e.margin(dataset, "eo", column)
            network = e.by_seed(dataset, "eo", UNPENALISED, column)
            protected = e.by_seed(dataset, "eo", OURS, column)
            for baseline in ATTRIBUTE_BASELINES:
                other = e.by_seed(dataset, "eo", baseline, column)
                tests = [
                    Comparison(label, paired_difference(a, b), "lower", margin)
                    for label, a, b in (
                        ("baseline − nn", other, network),
                        ("FairCOCCO − nn", protected, network),
                        ("FairCOCCO − baseline", protected, other),
                    )
                ]
                if all(test.decidable for test in tests):
                    pairs.append((f"{dataset}: {_attribute_name(column)}, {baseline}", tests))
    results = judge([test for _, tests in pairs for test in tests])
    rows: list[Sequence[str]] = []
    outcomes = []
    for index, (label, tests) in enumerate(pairs):
        theirs, ours, direct = (outcome for outcome, _ in results[3 * index : 3 * index + 3])
        outcome = _trade_off(theirs, ours, direct)
        outcomes.append(outcome)
        rows.append([label, *(test.difference.text() for test in tests), outcome])
    tally = Tally.of(outcomes)
    return Claim(
        9,
        "Per-attribute penalties trade attributes off",
        "FACL and FARMI, one term per attribute, leave some attributes unprotected (Table 4).",
        "each attribute's chance-adjusted EO score under FACL, FARMI and FairCOCCO minus "
        "``nn``'s, and FairCOCCO's minus the baseline's, paired by seed, each read as a "
        "comparison (lower by more than the margin, corrected together over all pairs). A "
        "baseline–attribute pair is favourable where the baseline is not shown to protect "
        "the attribute while FairCOCCO is, and FairCOCCO's score is shown lower than the "
        "baseline's; unfavourable in the reverse case (the baseline shown to protect it, "
        "FairCOCCO not, and the baseline's score shown lower); neither otherwise.",
        extra=list_table(
            [
                "Attribute, baseline",
                "Baseline − nn [95% CI]",
                "FairCOCCO − nn [95% CI]",
                "FairCOCCO − baseline [95% CI]",
                "Outcome",
            ],
            rows,
        ),
        tally=tally,
        reason=(
            f"{tally.favourable} of {len(pairs)} baseline–attribute pairs left unprotected by "
            f"the baseline alone, {tally.unfavourable} by FairCOCCO alone"
            if pairs
            else ""
        ),
    )


def _trade_off(theirs: str, ours: str, direct: str) -> str:
    """A pair's outcome from the outcomes of baseline − nn, FairCOCCO − nn and FairCOCCO −
    baseline (each favourable when lower)."""
    if ours == FAVOURABLE and direct == FAVOURABLE and theirs != FAVOURABLE:
        return FAVOURABLE
    if theirs == FAVOURABLE and direct == UNFAVOURABLE and ours != FAVOURABLE:
        return UNFAVOURABLE
    return UNDECIDED
