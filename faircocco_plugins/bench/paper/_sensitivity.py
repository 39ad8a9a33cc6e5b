"""The sensitivity page: the study's selected models beside those of variants that change one
training choice.

The ``paper-cpu`` study fixes each dataset's learning rate and batch size for every method (the
tuning stage's choice for the unpenalised network) and trains for 20 epochs. A variant reruns
part of the study with one choice changed: ``lr``, every method over the tuning stage's learning
rates (``faircocco bench --tune-learning-rate``), so that each method's learning rate is selected
on validation; ``epochs``, more epochs (the paper's 100). The page puts each method's selected
model in the study and in the variant side by side, under the same selection rule
(:func:`select_runs`), with their difference paired by seed, and states from the numbers how far
the variant moves them and whether it changes FairCOCCO's rank among the other penalties.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._metrics import degenerate_runs
from .._protocol import chosen_training
from .._results_table_types import DEGENERATE_MARK
from .._results_tables import dataset_order, method_order
from .._selection import DEFAULT_TOLERANCE, select_runs
from ._common import (
    MISSING,
    PairedDifference,
    list_table,
    load_runs,
    page_head,
    page_sources,
    paired_difference,
    section,
    write_page,
)
from ._tables import notion_title

#: The page's file name, without suffix.
SENSITIVITY_PAGE = "sensitivity"
SENSITIVITY_TITLE = "Sensitivity to the learning rate and the number of epochs"
#: The variants, by key, and their sections' titles, in the page's order.
VARIANT_TITLES: dict[str, str] = {
    "lr": "Each method's learning rate selected on validation",
    "epochs": "Longer training",
}
#: The unpenalised network: it has no strength, so where it has several runs per seed its
#: learning rate is the one the tuning stage's rule picks.
NETWORK = "nn"
#: The method whose rank among :data:`RIVALS` the conclusions follow.
FOCUS = "faircocco"
RIVALS: tuple[str, ...] = ("facl", "farmi", "hsic")
#: Each notion's gap between groups, reported beside the adjusted score.
GAPS: dict[str, str] = {"dp": "di", "eo": "deo"}
#: The adjusted FairCOCCO score under the run's own notion, in the export.
ADJUSTED = "faircocco_adjusted"
#: How the tables name each metric, whether a larger value is better (fairer, for gaps), and
#: its decimals: the adjusted score of a fair model is a few thousandths.
METRICS: dict[str, tuple[str, bool, int]] = {
    "accuracy": ("Accuracy", True, 3),
    "mse": ("MSE", False, 3),
    "di": ("DI", True, 3),
    "deo": ("DEO", False, 3),
    ADJUSTED: ("Adjusted score", False, 4),
}


def write_sensitivity_page(
    out: str | os.PathLike[str],
    base: pd.DataFrame,
    variants: Mapping[str, str | os.PathLike[str]],
    *,
    command: str,
    tolerance: float = DEFAULT_TOLERANCE,
    adjusted: bool = False,
    relative_to: str | None = None,
) -> Path:
    """Write ``sensitivity.rst`` from the study's runs and the variants' exports.

    Parameters
    ----------
    out : str or path-like
        The pages' folder.
    base : pandas.DataFrame
        The study's runs (:func:`runs_of_export`).
    variants : mapping of str to path
        Keys among :data:`VARIANT_TITLES`, values the variants' exports (``faircocco export``).
    command : str
        The command that writes the page, printed at its end.
    tolerance, adjusted, relative_to
        The selection rule's settings (:func:`select_runs`).

    Returns
    -------
    Path
        The page written.
    """
    _check_keys(variants)
    frames, runs = {}, {}
    for key, path in variants.items():
        frames[key], runs[key] = load_runs(path)
    exports = pd.concat(list(frames.values()), ignore_index=True)
    head = page_head(SENSITIVITY_TITLE, label=f"results-{SENSITIVITY_PAGE}")
    body = sensitivity_body(
        base, runs, tolerance=tolerance, adjusted=adjusted, relative_to=relative_to
    )
    sources = page_sources(command, exports)
    return write_page(Path(out) / f"{SENSITIVITY_PAGE}.rst", [*head, *body, *sources])


def sensitivity_body(
    base: pd.DataFrame,
    variants: Mapping[str, pd.DataFrame],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    adjusted: bool = False,
    relative_to: str | None = None,
) -> list[str]:
    """The page's body: per variant, its settings, its conclusions and a table per dataset and
    notion.

    Parameters
    ----------
    base : pandas.DataFrame
        The study's runs (:func:`runs_of_export`); only the datasets, notions, methods and
        seeds of each variant are compared.
    variants : mapping of str to pandas.DataFrame
        Each variant's runs, by a key of :data:`VARIANT_TITLES`.
    tolerance, adjusted, relative_to
        The selection rule's settings (:func:`select_runs`).

    Returns
    -------
    list of str
        reStructuredText lines.
    """
    _check_keys(variants)
    rule: dict[str, Any] = {
        "tolerance": tolerance,
        "adjusted": adjusted,
        "relative_to": relative_to,
    }
    lines = _intro(rule)
    for key, title in VARIANT_TITLES.items():
        if key in variants:
            lines += _variant_section(title, base, variants[key], rule)
    return lines


def _check_keys(variants: Mapping[str, Any]) -> None:
    unknown = sorted(set(variants) - set(VARIANT_TITLES))
    if unknown or not variants:
        raise ValueError(
            f"variants has the keys {unknown or 'none'}; expected some of {list(VARIANT_TITLES)}."
        )


def _intro(rule: Mapping[str, Any]) -> list[str]:
    score = "chance-adjusted FairCOCCO score" if rule["adjusted"] else "FairCOCCO score"
    limit = (
        f"{rule['tolerance']:g} times the network's (``{rule['relative_to']}``) on the same seed"
        if rule["relative_to"]
        else f"{rule['tolerance']:g}"
    )
    return [
        "Each variant reruns part of the study with one training choice changed. In the study "
        "and in the variant alike, each method's setting is chosen per seed on the validation "
        f"part, as on the other pages: the most accurate run whose validation {score} is at "
        f"most {limit}, or the fairest when none is. Where the network ``{NETWORK}`` has "
        "several runs per seed (one per learning rate), the one kept is the one the tuning "
        "stage would choose (the best validation AUC, or the lowest MSE, never a degenerate "
        "model): the network has no strength for the rule to trade against its fairness.",
        "",
        "Each cell is the mean over seeds of a test metric of the selected models: accuracy, "
        "DI under DP (higher is fairer) or DEO under EO (lower is fairer), and the "
        "chance-adjusted FairCOCCO score under the notion (lower is fairer). Δ is the "
        "variant's value minus the study's, the mean over seeds paired by seed with its 95% "
        f"t-interval. {DEGENERATE_MARK} marks a method whose selected model is degenerate on "
        "the test part for some seed. The learning rates are those of the selected models, "
        "with their number of seeds; *within tolerance* counts the seeds where some setting "
        "met the rule's tolerance on validation.",
        "",
    ]


def _variant_section(
    title: str, base: pd.DataFrame, variant: pd.DataFrame, rule: Mapping[str, Any]
) -> list[str]:
    study = ", ".join(f"``{name}``" for name in sorted(set(variant["study"])))
    base = _matching(base, variant)
    if base.empty:
        raise ValueError(
            f"the study has no runs of the datasets, notions, methods and seeds of {study}; "
            "pass the export of the study the variant varies."
        )
    chosen_base, chosen_variant = _selected(base, rule), _selected(variant, rule)
    comparison = compare_selected(chosen_base, chosen_variant)
    lines = section(f"{title} ({study})")
    lines += [
        f"* The study: {training_text(base)}",
        f"* The variant: {training_text(variant)}",
        "",
        *conclusions(comparison),
        "",
    ]
    for (dataset, notion), rows in comparison.groupby(["dataset", "notion"], sort=False):
        lines += section(f"{dataset}, {notion_title(str(notion))}", "~")
        lines += _table(rows, chosen_base, chosen_variant, str(dataset), str(notion))
    return lines


def _matching(base: pd.DataFrame, variant: pd.DataFrame) -> pd.DataFrame:
    """The study's runs of the variant's datasets, notions, methods and seeds."""
    keep = pd.Series(True, index=base.index)
    for column in ("dataset", "notion", "method", "seed"):
        keep &= base[column].isin(set(variant[column]))
    return base[keep]


def _selected(runs: pd.DataFrame, rule: Mapping[str, Any]) -> pd.DataFrame:
    """The successful selected runs, one per dataset, method, notion and seed."""
    chosen = select_runs(network_as_tuned(runs), **rule)
    return chosen[chosen["status"] == "ok"]


def network_as_tuned(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs with the network's kept to the setting the tuning stage's rule picks per
    dataset, notion and seed (:func:`chosen_training`); other methods' runs unchanged.

    With one network run per seed (the study), nothing changes. With one per learning rate
    (the ``lr`` variant), the selection rule would keep the network's fairest, which is often
    an undertrained one; the tuning stage's rule keeps the best on validation instead. A seed
    without a usable network run keeps all of them.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as :meth:`ResultsStore.runs` returns them.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._sensitivity import network_as_tuned
    >>> runs = pd.DataFrame({
    ...     "study": "s", "dataset": "german", "notion": "dp", "seed": 0, "status": "ok",
    ...     "method": ["nn", "nn", "facl"],
    ...     "params": [{"learning_rate": 0.01}, {"learning_rate": 0.0001},
    ...                {"learning_rate": 0.0001, "lam": 1.0}],
    ...     "validation.auc": [0.78, 0.70, 0.69], "validation.single_class": 0.0,
    ... })
    >>> network_as_tuned(runs)["params"].tolist()
    [{'learning_rate': 0.01}, {'learning_rate': 0.0001, 'lam': 1.0}]
    """
    network = runs["method"] == NETWORK
    keep = ~network
    for _, group in runs[network].groupby(["study", "notion", "seed"], sort=False):
        picked = chosen_training(group)
        for index, dataset, params in zip(
            group.index, group["dataset"], group["params"], strict=True
        ):
            choice = picked.get(str(dataset))
            keep[index] = choice is None or all(params.get(k) == v for k, v in choice.items())
    return runs[keep]


def compare_selected(base: pd.DataFrame, variant: pd.DataFrame) -> pd.DataFrame:
    """Each method's selected models in the study and in a variant, metric by metric.

    Parameters
    ----------
    base, variant : pandas.DataFrame
        The successful selected runs (:func:`select_runs`) of the study and of the variant.

    Returns
    -------
    pandas.DataFrame
        One row per dataset, notion, method and metric (performance, the notion's gap where it
        has one, the adjusted score) of the variant, in the paper's order, with ``base`` and
        ``variant`` (means over seeds), ``difference`` (a :class:`PairedDifference`, variant
        minus study, paired by seed) and ``base_degenerate``, ``variant_degenerate`` (some
        seed's selected model is degenerate on the test part).

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._sensitivity import compare_selected
    >>> def selected(accuracy, adjusted):
    ...     return pd.DataFrame({
    ...         "dataset": "german", "notion": "dp", "method": "facl", "seed": [0, 1],
    ...         "test.accuracy": accuracy, "test.di": 0.9,
    ...         "test.faircocco_adjusted": adjusted, "test.single_class": 0.0,
    ...     })
    >>> rows = compare_selected(selected([0.70, 0.72], [0.1, 0.1]),
    ...                         selected([0.73, 0.73], [0.1, 0.2]))
    >>> [(r.metric, round(r.variant - r.base, 3), r.difference.text())
    ...  for r in rows.itertuples()]  # doctest: +NORMALIZE_WHITESPACE
    [('accuracy', 0.02, '+0.020 [-0.107, +0.147]'), ('di', 0.0, '+0.000 [+0.000, +0.000]'),
     ('faircocco_adjusted', 0.05, '+0.050 [-0.585, +0.685]')]
    """
    rows = []
    pairs = variant[["dataset", "notion"]].drop_duplicates()
    order = {name: i for i, name in enumerate(dataset_order(pairs["dataset"]))}
    for dataset, notion in sorted(pairs.itertuples(index=False), key=lambda p: order[p[0]]):
        sides = [
            frame[(frame["dataset"] == dataset) & (frame["notion"] == notion)]
            for frame in (base, variant)
        ]
        metrics = _metrics(str(notion), sides[1])
        for method in method_order(sides[1]["method"]):
            of_base, of_variant = (side[side["method"] == method] for side in sides)
            for metric in metrics:
                values = [_by_seed(side, metric) for side in (of_base, of_variant)]
                rows.append(
                    {
                        "dataset": dataset,
                        "notion": notion,
                        "method": method,
                        "metric": metric,
                        "base": values[0].mean(),
                        "variant": values[1].mean(),
                        "difference": paired_difference(values[1], values[0]),
                        "base_degenerate": _any_degenerate(of_base),
                        "variant_degenerate": _any_degenerate(of_variant),
                    }
                )
    return pd.DataFrame(rows)


def _metrics(notion: str, runs: pd.DataFrame) -> list[str]:
    """Performance (accuracy, or MSE for regression), the notion's gap, the adjusted score."""
    has = {c.removeprefix("test.") for c in runs.columns if runs[c].notna().any()}
    performance = "accuracy" if "accuracy" in has else "mse"
    return [performance, *([GAPS[notion]] if notion in GAPS else []), ADJUSTED]


def _by_seed(runs: pd.DataFrame, metric: str) -> pd.Series:
    column = f"test.{metric}"
    if column not in runs.columns:
        return pd.Series(dtype=float)
    return runs.set_index("seed")[column].astype(float)


def _any_degenerate(runs: pd.DataFrame) -> bool:
    return bool(len(runs)) and bool(degenerate_runs(runs, "test").any())


def conclusions(comparison: pd.DataFrame) -> list[str]:
    """Sentences that state what a variant changed, from :func:`compare_selected`'s rows: how
    far it moved the selected models' performance and adjusted score, how many methods' selected
    models are degenerate, and FairCOCCO's rank among the other penalties, in the study and in
    the variant.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._common import PairedDifference
    >>> from faircocco_plugins.bench.paper._sensitivity import conclusions
    >>> rows = pd.DataFrame({
    ...     "dataset": "german", "notion": "dp", "method": ["faircocco", "facl"] * 2,
    ...     "metric": ["accuracy"] * 2 + ["faircocco_adjusted"] * 2,
    ...     "base": [0.70, 0.71, 0.05, 0.06], "variant": [0.72, 0.71, 0.05, 0.07],
    ...     "difference": [PairedDifference(0.02, 0.01, 0.03, 5),
    ...                    PairedDifference(0.0, -0.01, 0.01, 5),
    ...                    PairedDifference(0.0, -0.01, 0.01, 5),
    ...                    PairedDifference(0.01, -0.01, 0.03, 5)],
    ...     "base_degenerate": [True, False] * 2, "variant_degenerate": False,
    ... })
    >>> print("\\n".join(conclusions(rows)))  # doctest: +NORMALIZE_WHITESPACE
    * Accuracy: the variant moves the selected models' mean by +0.000 to +0.020 (mean
      absolute change 0.010); 1 of 2 paired differences has a 95% interval that excludes 0.
    * Adjusted score: the variant moves the selected models' mean by +0.0000 to +0.0100 (mean
      absolute change 0.0050); 0 of 2 paired differences have a 95% interval that excludes 0.
    * Methods whose selected model is degenerate on the test part for some seed: 1 of 2 in the
      study, 0 of 2 in the variant.
    * Rank of ``faircocco`` among ``faircocco``, ``facl`` (1 the most accurate, or the
      fairest; equal means as shown share a rank; the spread is between these penalties' best
      and worst means), study → variant: german DP: accuracy 2 → 1 (spread 0.010 → 0.010),
      adjusted score 1 → 1 (spread 0.0100 → 0.0200). Its rank by accuracy changes on 1 of 1
      datasets and notions; by the adjusted score, on 0 of 1.
    """
    lines = []
    for metric in dict.fromkeys(comparison["metric"]):
        if metric in ("accuracy", "mse", ADJUSTED):
            differences = comparison.loc[comparison["metric"] == metric, "difference"]
            title, _, digits = METRICS[metric]
            lines.append(_shift(title, [d for d in differences if d.n], digits))
    methods = comparison.drop_duplicates(["dataset", "notion", "method"])
    lines.append(
        "* Methods whose selected model is degenerate on the test part for some seed: "
        f"{int(methods['base_degenerate'].sum())} of {len(methods)} in the study, "
        f"{int(methods['variant_degenerate'].sum())} of {len(methods)} in the variant."
    )
    ranks = _ranks(comparison)
    if ranks:
        lines.append(ranks)
    return lines


def _shift(title: str, differences: Sequence[PairedDifference], digits: int) -> str:
    if not differences:
        return f"* {title}: no seed has a selected model in both."
    means = [d.mean for d in differences]
    sure = sum(1 for d in differences if d.low > 0 or d.high < 0)
    absolute = sum(abs(m) for m in means) / len(means)
    verb = "has" if sure == 1 else "have"
    return (
        f"* {title}: the variant moves the selected models' mean by "
        f"{min(means) + 0.0:+.{digits}f} to {max(means) + 0.0:+.{digits}f} (mean absolute "
        f"change {absolute:.{digits}f}); {sure} of "
        f"{len(differences)} paired differences {verb} a 95% interval that excludes 0."
    )


def _ranks(comparison: pd.DataFrame) -> str:
    """FairCOCCO's rank among the penalties by performance and by adjusted score, study →
    variant, per dataset and notion; and in how many pairs it changes."""
    penalties = (FOCUS, *RIVALS)
    rows = comparison[comparison["method"].isin(penalties)]
    present = [m for m in penalties if m in set(rows["method"])]
    if FOCUS not in present or len(present) < 2:
        return ""
    parts, changed, pairs = [], {"performance": 0, ADJUSTED: 0}, 0
    for (dataset, notion), group in rows.groupby(["dataset", "notion"], sort=False):
        performance = "accuracy" if "accuracy" in set(group["metric"]) else "mse"
        texts = []
        for key, metric, label in (
            ("performance", performance, METRICS[performance][0].lower()),
            (ADJUSTED, ADJUSTED, "adjusted score"),
        ):
            table = group[group["metric"] == metric].set_index("method")
            sides = [table[side] for side in ("base", "variant")]
            positions = [_position(rank_methods(means, metric)) for means in sides]
            spreads = [_spread(means, metric) for means in sides]
            changed[key] += positions[0] != positions[1]
            texts.append(
                f"{label} {positions[0]} → {positions[1]} (spread {spreads[0]} → {spreads[1]})"
            )
        pairs += 1
        parts.append(f"{dataset} {str(notion).upper()}: {', '.join(texts)}")
    names = ", ".join(f"``{m}``" for m in present)
    return (
        f"* Rank of ``{FOCUS}`` among {names} (1 the most accurate, or the fairest; equal "
        "means as shown share a rank; the spread is between these penalties' best and worst "
        f"means), study → variant: {'; '.join(parts)}. Its rank by "
        f"{METRICS[performance][0].lower()} changes on {changed['performance']} of {pairs} "
        f"datasets and notions; by the adjusted score, on {changed[ADJUSTED]} of {pairs}."
    )


def rank_methods(means: pd.Series, metric: str) -> dict[str, int]:
    """Each method's rank by its mean, 1 the best, equal means as the tables show them
    (rounded to the metric's decimals) sharing the best of their ranks; methods without a
    mean are left out.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._sensitivity import rank_methods
    >>> rank_methods(pd.Series({"faircocco": 0.00012, "facl": 0.00009, "hsic": 0.0021}),
    ...              "faircocco_adjusted")
    {'faircocco': 1, 'facl': 1, 'hsic': 3}
    """
    _, higher, digits = METRICS[metric]
    shown = means.dropna().astype(float).round(digits)
    ranks = shown.rank(method="min", ascending=not higher)
    return {str(method): int(rank) for method, rank in ranks.items()}


def _spread(means: pd.Series, metric: str) -> str:
    known = means.dropna().astype(float)
    return f"{known.max() - known.min():.{METRICS[metric][2]}f}" if len(known) else MISSING


def _position(ranks: Mapping[str, int]) -> str:
    return str(ranks[FOCUS]) if FOCUS in ranks else MISSING


def _table(
    rows: pd.DataFrame, base: pd.DataFrame, variant: pd.DataFrame, dataset: str, notion: str
) -> list[str]:
    metrics = list(dict.fromkeys(rows["metric"]))
    header = ["Method"]
    for metric in metrics:
        title = METRICS[metric][0]
        header += [f"{title}: study", f"{title}: variant", f"{title}: Δ"]
    header += ["Learning rates, study → variant", "Within tolerance, study → variant"]
    sides = [
        frame[(frame["dataset"] == dataset) & (frame["notion"] == notion)]
        for frame in (base, variant)
    ]
    body = []
    for method, of_method in rows.groupby("method", sort=False):
        selected = [side[side["method"] == method] for side in sides]
        cells = [f"``{method}``"]
        for metric in metrics:
            row = of_method[of_method["metric"] == metric].iloc[0]
            digits = METRICS[metric][2]
            cells += [
                _value(row["base"], row["base_degenerate"], digits),
                _value(row["variant"], row["variant_degenerate"], digits),
                row["difference"].text(digits),
            ]
        cells.append(" → ".join(learning_rates(runs) for runs in selected))
        cells.append(" → ".join(_within(runs) for runs in selected))
        body.append(cells)
    return list_table(header, body)


def _value(mean: float, degenerate: bool, digits: int) -> str:
    if pd.isna(mean):
        return MISSING
    return f"{mean:.{digits}f}" + (DEGENERATE_MARK if degenerate else "")


def learning_rates(selected: pd.DataFrame) -> str:
    """The learning rates of selected runs, largest first, each with its number of seeds.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._sensitivity import learning_rates
    >>> rates = [0.001, 0.01, 0.001]
    >>> learning_rates(pd.DataFrame({"params": [{"learning_rate": r} for r in rates]}))
    '0.01 (1), 0.001 (2)'
    """
    counts = Counter(
        float(params["learning_rate"])
        for params in selected["params"]
        if isinstance(params, Mapping) and "learning_rate" in params
    )
    return ", ".join(f"{rate:g} ({n})" for rate, n in sorted(counts.items(), reverse=True)) or (
        MISSING
    )


def _within(selected: pd.DataFrame) -> str:
    return f"{int((selected['selected_by'] == 'tolerance').sum())} of {len(selected)}"


def training_text(runs: pd.DataFrame) -> str:
    """The training settings of a study's runs in one line: epochs, warm-up, and each
    dataset's learning rates and batch sizes.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench.paper._sensitivity import training_text
    >>> runs = pd.DataFrame({
    ...     "dataset": "german", "study": "s",
    ...     "settings": [{"epochs": 20, "warmup_epochs": 2}, {"epochs": 20}],
    ...     "params": [{"learning_rate": 0.01, "batch_size": 256},
    ...                {"learning_rate": 0.001, "batch_size": 256}],
    ... })
    >>> print(training_text(runs))  # doctest: +NORMALIZE_WHITESPACE
    ``s``, 2 runs; 20 epochs, 2 of them of warm-up where a method has one; german: learning
    rates 0.01, 0.001, batch size 256
    """
    epochs = _distinct(s.get("epochs") for s in runs["settings"])
    warmup = _distinct(s.get("warmup_epochs") for s in runs["settings"])
    per_dataset = []
    for dataset in dataset_order(runs["dataset"]):
        params = runs.loc[runs["dataset"] == dataset, "params"]
        rates = _distinct(p.get("learning_rate") for p in params)
        sizes = _distinct(p.get("batch_size") for p in params)
        rate_word = "learning rates" if "," in rates else "learning rate"
        per_dataset.append(f"{dataset}: {rate_word} {rates}, batch size {sizes}")
    studies = ", ".join(f"``{name}``" for name in sorted(set(runs["study"])))
    return (
        f"{studies}, {len(runs)} runs; {epochs} epochs, {warmup} of them of warm-up where a "
        f"method has one; {'; '.join(per_dataset)}"
    )


def _distinct(values: Any) -> str:
    found = sorted({v for v in values if v is not None and not pd.isna(v)}, reverse=True)
    return ", ".join(f"{v:g}" for v in found) or MISSING
