"""The "Choosing λ" page: the smallest penalty weight that halves the network's unfairness,
what it costs, and a recommendation that needs no sweep.

For every dataset, notion and penalty (a method whose runs have a weight ``lam``), the
response to λ is the mean over seeds of the validation chance-adjusted FairCOCCO score at each
λ. The chosen λ is the smallest whose response is at most half that of the unpenalised network
(``nn``) on the same dataset and notion (:func:`network_values`, the reference of every page);
its cost is the test performance against the network's, paired by seed
(:func:`paired_difference`). A penalty's grid ends too early on a
dataset and notion when its score still falls by more than :data:`STILL_FALLING` between its two
largest λ with no degenerate model there, and is still above :data:`STILL_FALLING` (a score
below it has no such fall left to make).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np
import pandas as pd

from ...plugins import NOTIONS
from .._metrics import degenerate_runs
from .._pareto_points import performance_metric
from .._results_tables import dataset_order, method_order
from ._common import (
    MISSING,
    PairedDifference,
    list_table,
    network_values,
    paired_difference,
    penalty_weight,
    section,
)

#: The share of the network's validation score a chosen λ must reach.
TARGET_SHARE = 0.5
#: A fall of test accuracy (or R²) larger than this between consecutive λ is a cliff.
CLIFF = 0.1
#: A fall of the mean validation score between a grid's two largest λ above which the grid
#: ends before the score stops falling (the λ path's own threshold of no progress).
STILL_FALLING = 1e-3
#: The method whose λ the recommendation is about.
RECOMMENDED_METHOD = "faircocco"
_SCORE = "validation.faircocco_adjusted"


@dataclass(frozen=True)
class LambdaChoice:
    """The response of one penalty to λ on one dataset and notion."""

    dataset: str
    notion: str
    method: str
    task: str
    #: The network's validation adjusted score (:func:`network_values`), its mean over seeds;
    #: the target is its half.
    reference: float
    #: λ → mean validation adjusted score over seeds, in increasing λ.
    response: pd.Series
    #: λ → mean test accuracy (R² for regression) over seeds.
    performance: pd.Series
    #: The λ whose model is degenerate on the validation part for some seed: never chosen.
    degenerate: tuple[float, ...]
    #: The smallest λ that reaches the target with no degenerate model, or None.
    chosen: float | None
    #: λ → test metric → its difference from the network's, paired by seed.
    costs_by_lambda: dict[float, dict[str, PairedDifference]]
    #: Pairs of consecutive λ between which performance falls by more than CLIFF.
    cliffs: list[tuple[float, float, float]]

    @property
    def target(self) -> float:
        """The largest mean validation score that counts as halving the network's."""
        return TARGET_SHARE * self.reference

    @property
    def monotone(self) -> bool:
        """Whether the score never rises as λ grows."""
        return bool(np.all(np.diff(self.response.to_numpy(dtype=float)) <= 0.0))

    @property
    def costs(self) -> dict[str, PairedDifference]:
        """The test metrics' differences from the network's at the chosen λ."""
        return {} if self.chosen is None else self.costs_by_lambda[self.chosen]

    @property
    def still_falling(self) -> bool:
        """Whether the score still falls by more than :data:`STILL_FALLING` between the two
        largest λ, neither degenerate, to a score above it: a larger λ might be fairer still."""
        if len(self.response) < 2 or set(self.response.index[-2:]) & set(self.degenerate):
            return False
        last, fall = self.response.iloc[-1], self.response.iloc[-2] - self.response.iloc[-1]
        return bool(fall > STILL_FALLING and last > STILL_FALLING)

    def halves(self, lam: float) -> bool:
        """Whether λ reaches the target without a degenerate model."""
        known = lam in self.response.index and lam not in self.degenerate
        return known and self.reference > 0 and bool(self.response[lam] <= self.target)


def lambda_choices(runs: pd.DataFrame) -> list[LambdaChoice]:
    """The response of every penalty to λ, per dataset and notion.

    Parameters
    ----------
    runs : pandas.DataFrame
        The study's runs (:func:`runs_of_export`), with the export's own-notion
        ``validation.faircocco_adjusted``; a penalty's runs have ``lam`` in ``params``.

    Returns
    -------
    list of LambdaChoice
        Datasets in the paper's order, then notions, then methods in the tables' order; a
        dataset and notion without successful ``nn`` runs has none.
    """
    ok = runs[(runs["status"] == "ok") & runs[_SCORE].notna()]
    ok = ok.assign(lam=penalty_weight(ok))
    references = network_values(ok).groupby(level=["dataset", "notion"]).mean()
    choices = []
    for dataset in dataset_order(ok["dataset"]):
        of_dataset = ok[ok["dataset"] == dataset]
        metric, _ = performance_metric(of_dataset)
        task = "classification" if metric == "accuracy" else "regression"
        for notion in [n for n in NOTIONS if n in set(of_dataset["notion"])]:
            cell = of_dataset[of_dataset["notion"] == notion]
            network = _by_seed(cell[cell["method"] == "nn"], task)
            if network.empty:
                continue
            penalties = cell[cell["lam"].notna() & (cell["method"] != "nn")]
            reference = float(references.get((dataset, notion), np.nan))
            for method in method_order(penalties["method"]):
                of_method = penalties[penalties["method"] == method]
                choices.append(
                    _choice(dataset, notion, method, task, of_method, network, reference)
                )
    return choices


def _by_seed(runs: pd.DataFrame, task: str) -> pd.DataFrame:
    """Per seed, the score, test metrics and share degenerate on validation of the runs.

    The study fixes every parameter but λ, so each seed has one run; where other parameters
    vary too, a seed's runs at one λ are averaged.
    """
    columns = {"score": _SCORE, "accuracy": "test.accuracy", "auc": "test.auc"}
    if task == "regression":
        columns = {"score": _SCORE, "mse": "test.mse", "r2": "test.r2"}
    frame = pd.DataFrame(
        {name: runs[column].astype(float) for name, column in columns.items() if column in runs}
    )
    frame["degenerate"] = degenerate_runs(runs, "validation").astype(float)
    frame["seed"] = runs["seed"].astype(int)
    return frame.groupby("seed").mean()


def _choice(
    dataset: str,
    notion: str,
    method: str,
    task: str,
    runs: pd.DataFrame,
    network: pd.DataFrame,
    reference: float,
) -> LambdaChoice:
    per_lambda = {
        float(lam): _by_seed(runs[runs["lam"] == lam], task) for lam in runs["lam"].unique()
    }
    lambdas = sorted(per_lambda)
    response = pd.Series([per_lambda[lam]["score"].mean() for lam in lambdas], index=lambdas)
    quality = "accuracy" if task == "classification" else "r2"
    performance = pd.Series(
        [per_lambda[lam].get(quality, pd.Series(dtype=float)).mean() for lam in lambdas],
        index=lambdas,
        dtype=float,
    )
    degenerate = tuple(lam for lam in lambdas if per_lambda[lam]["degenerate"].max() > 0)
    metrics = ("accuracy", "auc") if task == "classification" else ("mse",)
    costs = {
        lam: {
            metric: paired_difference(per_lambda[lam][metric], network[metric])
            for metric in metrics
            if metric in network and metric in per_lambda[lam]
        }
        for lam in lambdas
    }
    cliffs = [
        (low, high, float(performance[high] - performance[low]))
        for low, high in pairwise(lambdas)
        if performance[low] - performance[high] > CLIFF
    ]
    choice = LambdaChoice(
        dataset,
        notion,
        method,
        task,
        reference,
        response,
        performance,
        degenerate,
        None,
        costs,
        cliffs,
    )
    reached = [lam for lam in lambdas if choice.halves(lam)]
    return replace(choice, chosen=reached[0]) if reached else choice


def recommendation(choices: list[LambdaChoice], method: str = RECOMMENDED_METHOD) -> str:
    """A paragraph, computed from the choices, on which λ to start from without a sweep.

    The recommended λ is the smallest of the grid that halves the network's score on the
    most dataset–notion pairs.
    """
    own = [c for c in choices if c.method == method and c.reference > 0]
    if not own:
        return (
            f"The study has no {method} runs with a validation chance-adjusted score and an "
            "unpenalised network (with a score above 0) to compare with."
        )
    grid = sorted({float(lam) for c in own for lam in c.response.index})
    counts = {lam: sum(c.halves(lam) for c in own) for lam in grid}
    best = max(grid, key=lambda lam: (counts[lam], -lam))
    if counts[best] == 0:
        return (
            f"No λ of the grid ({', '.join(f'{lam:g}' for lam in grid)}) halves the unpenalised "
            f"network's chance-adjusted validation score on any of the {len(own)} "
            "dataset–notion pairs without a degenerate model: try larger weights."
        )
    costs = _costs_at([c for c in own if c.halves(best)], best)
    worse = [c for c in own if not c.halves(best) and c.chosen is not None]
    never = [c for c in own if c.chosen is None]
    text = (
        f"Start {method} at λ = {best:g}: on {counts[best]} of {len(own)} dataset–notion "
        "pairs it at least halves the unpenalised network's chance-adjusted validation score"
    )
    text += f", {costs}." if costs else "."
    if worse:
        needed = Counter(c.chosen for c in worse)
        text += (
            " Where it does not, the smallest λ that does is "
            + ", ".join(f"{lam:g} ({n} pair{'s' * (n > 1)})" for lam, n in sorted(needed.items()))
            + f" ({_pairs(worse)}): double λ until the validation score halves."
        )
    if never:
        text += f" No λ of the grid halves it on {_pairs(never)}: try a larger λ there."
    bumpy = [c for c in own if not c.monotone]
    if bumpy:
        text += (
            f" The score does not fall steadily with λ on {_pairs(bumpy)}, so check the "
            "validation score at the λ chosen rather than assume a larger λ is fairer."
        )
    steep = [c for c in own if c.cliffs]
    if steep:
        text += (
            f" Accuracy falls off a cliff (by more than {CLIFF:g} between consecutive λ) on "
            f"{_pairs(steep)}: stay below the cliff there."
        )
    return text


def _costs_at(choices: list[LambdaChoice], lam: float) -> str:
    """The median change of test accuracy against the network at λ, over the pairs."""
    changes = [
        c.costs_by_lambda[lam]["accuracy"].mean
        for c in choices
        if "accuracy" in c.costs_by_lambda[lam]
    ]
    if not changes:
        return ""
    return (
        f"at a median change of test accuracy against the network of "
        f"{float(np.median(changes)):+.3f} over the classification pairs among them "
        f"({len(changes)})"
    )


def _pairs(choices: list[LambdaChoice]) -> str:
    return ", ".join(f"{c.dataset} ({c.notion.upper()})" for c in choices)


def lambda_page(runs: pd.DataFrame) -> list[str]:
    """The body of the "Choosing λ" page (after its head) as reStructuredText lines, from the
    study's runs (:func:`runs_of_export`)."""
    choices = lambda_choices(runs)
    lines = [
        "For each dataset, notion and penalty: the network's (``nn``) mean validation "
        "chance-adjusted FairCOCCO score over seeds, the smallest λ whose mean validation "
        f"score is at most {TARGET_SHARE:g} of it, and what that λ costs on the test part "
        "against the network, as the mean difference over seeds paired by seed with its 95% "
        "t-interval. *Monotone* says whether the score never rises as λ grows; a *cliff* is "
        f"a fall of mean test accuracy (R² for regression) of more than {CLIFF:g} between "
        "consecutive λ. A λ whose model is degenerate on the validation part for some seed "
        "(one predicted class, or a regression no better than the mean) is never chosen: "
        "it is fair by predicting nothing. Why the response to λ can be a cliff, and how a "
        "warm-up avoids it, is in :doc:`/user-guide/choosing-lambda`.",
        "",
    ]
    lines += section("Recommendation")
    lines += [recommendation(choices), ""]
    for task, cost_names in (
        ("classification", ("accuracy", "auc")),
        ("regression", ("mse",)),
    ):
        of_task = [c for c in choices if c.task == task]
        if not of_task:
            continue
        lines += section(task.capitalize())
        header = [
            "Dataset",
            "Notion",
            "Method",
            "nn score",
            "λ",
            "Score at λ",
            *(f"Δ {name.upper() if name != 'accuracy' else name} [95% CI]" for name in cost_names),
            "Monotone",
            "Cliffs",
            "Degenerate at λ",
        ]
        rows = [_row(c, cost_names) for c in of_task]
        lines += list_table(header, rows)
    if not choices:
        lines += [
            "The study has no penalty runs with a validation chance-adjusted score and an "
            "unpenalised network to compare with.",
            "",
        ]
    else:
        lines += _grids(choices)
    return lines


def _grids(choices: list[LambdaChoice]) -> list[str]:
    """Each penalty's grid, where it goes on further, and where it ends while the score still
    falls."""
    lines = section("Each penalty's grid")
    lines += [
        "Each penalty's weights in the study, the datasets where its grid goes on because its "
        "score still fell at the grid's largest λ, and the dataset–notion pairs where the grid "
        "ends too early: the mean validation score still falls by more than "
        f"{STILL_FALLING:g} between its two largest λ, with no degenerate model at either, to a "
        f"score above {STILL_FALLING:g} (below it, no such fall is left to make).",
        "",
    ]
    rows = []
    for method in dict.fromkeys(c.method for c in choices):
        own = [c for c in choices if c.method == method]
        grids = {c.dataset: tuple(float(lam) for lam in c.response.index) for c in own}
        common = Counter(grids.values()).most_common(1)[0][0]
        longer = {dataset: grid for dataset, grid in grids.items() if grid[-1] > common[-1]}
        short = [c for c in own if c.still_falling]
        rows.append(
            [
                method,
                ", ".join(f"{lam:g}" for lam in common),
                "; ".join(f"{d} (to {grid[-1]:g})" for d, grid in longer.items()) or "none",
                f"{len(short)} of {len(own)}",
                "; ".join(
                    f"{c.dataset} ({c.notion.upper()}): {c.response.iloc[-2]:.4f} → "
                    f"{c.response.iloc[-1]:.4f} at λ = {c.response.index[-1]:g}"
                    for c in short
                )
                or "none",
            ]
        )
    lines += list_table(["Method", "λ", "Further on", "Ends too early", "Where"], rows)
    if "faircocco_paper" in {c.method for c in choices}:
        lines += [
            "``faircocco_paper`` keeps the paper's own weights: it is the paper's literal "
            "configuration, shown beside the defaults, not a grid to extend.",
            "",
        ]
    return lines


def _row(choice: LambdaChoice, cost_names: tuple[str, ...]) -> list[str]:
    chosen = choice.chosen
    return [
        choice.dataset,
        choice.notion.upper(),
        choice.method,
        f"{choice.reference:.3f}",
        MISSING if chosen is None else f"{chosen:g}",
        MISSING if chosen is None else f"{choice.response[chosen]:.3f}",
        *(choice.costs[name].text() if name in choice.costs else MISSING for name in cost_names),
        "yes" if choice.monotone else "**no**",
        "; ".join(f"{low:g}→{high:g}: {fall:+.3f}" for low, high, fall in choice.cliffs) or "none",
        ", ".join(f"{lam:g}" for lam in choice.degenerate) or "none",
    ]
