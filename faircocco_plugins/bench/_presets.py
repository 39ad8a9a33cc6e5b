"""Named study settings: ``quick`` (minutes), ``paper`` (the paper's protocol) and ``mixed``
(the mixed-attribute head-to-head)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ._binning import GROUP_SCHEMES
from ._study import DEFAULT_SEEDS, StudyConfig

#: The paper's nine datasets.
PAPER_DATASETS: tuple[str, ...] = (
    "adult",
    "drugs",
    "german",
    "compas",
    "communities",
    "students",
    "kdd_census",
    "credit_card",
    "law_school",
)
#: The paper's penalty weights {0.5, 1, 2, 5} extended by 10 and 20 (this project's λ scale is
#: gentler than the paper's), and bounds of the constraint form.
PAPER_CPU_STRENGTHS: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
#: The weights of the penalties whose validation score still fell from λ = 10 to 20, without
#: degenerate models, on a quarter or more of their datasets and notions (the harness guide's
#: table has the evidence).
PAPER_CPU_STRONG_STRENGTHS: tuple[float, ...] = (*PAPER_CPU_STRENGTHS, 50.0, 100.0, 200.0)
#: Where a penalty's validation score still fell between the two largest weights of its grid,
#: without degenerate models, the grid goes on there (the choosing-λ page's "Each penalty's
#: grid" has the evidence).
PAPER_CPU_EXTENDED_STRENGTHS: Mapping[tuple[str, str], tuple[float, ...]] = {
    ("farmi", "adult"): (*PAPER_CPU_STRONG_STRENGTHS, 500.0, 1000.0),
    ("farmi", "german"): PAPER_CPU_STRONG_STRENGTHS,
    ("covariance", "german"): PAPER_CPU_STRONG_STRENGTHS,
    ("covariance", "credit_card"): PAPER_CPU_STRONG_STRENGTHS,
    ("faircocco", "communities"): (*PAPER_CPU_STRONG_STRENGTHS, 500.0, 1000.0),
    ("facl", "german"): (*PAPER_CPU_STRONG_STRENGTHS, 500.0, 1000.0),
    ("facl", "law_school"): (*PAPER_CPU_STRONG_STRENGTHS, 500.0, 1000.0),
    ("hsic", "adult"): (*PAPER_CPU_STRONG_STRENGTHS, 500.0, 1000.0),
}
#: The paper's own weights, for the paper's literal FairCOCCO arm.
PAPER_STRENGTHS: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0)
PAPER_CPU_BOUNDS: tuple[float, ...] = (0.0005, 0.001, 0.002, 0.005)
#: Stand-ins for the paper's datasets when their raw files are not available.
SYNTHETIC_DATASETS: tuple[str, ...] = ("synthetic", "synthetic_regression")
#: The mixed-attribute study's datasets, each with the attributes the paper protects (Adult
#: with race and age beside sex).
MIXED_DATASETS: tuple[str, ...] = (
    "adult_mixed",
    "communities",
    "students",
    "law_school",
    "credit_card",
)
#: The methods of the mixed-attribute study that group rows by value, run on binned groups.
MIXED_GROUP_METHODS: tuple[str, ...] = (
    "fairlearn_expgrad",
    "fairlearn_gridsearch",
    "fairlearn_threshold",
    "fairlearn_bounded_group_loss",
    "aif360_prejudice_remover",
    "aif360_expgrad",
    "aif360_gridsearch",
    "aif360_gerryfair",
    "aif360_meta_fair",
    "aif360_adversarial_debiasing",
    "aif360_eq_odds",
    "aif360_calibrated_eq_odds",
    "aif360_reject_option",
)
#: The mixed-attribute study's methods: the network alone and with FairCOCCO (the penalty and
#: the path) and the other penalties that take continuous attributes, logistic regression alone,
#: and the group methods.
MIXED_METHODS: tuple[str, ...] = (
    "nn",
    "faircocco",
    "faircocco_path",
    "hsic",
    "facl",
    "farmi",
    "sklearn_unmitigated",
    *MIXED_GROUP_METHODS,
)


#: The paper-cpu preset's grids: the weights and bounds above, logistic regression as the
#: toolkits' base model.
PAPER_CPU_OVERRIDES: Mapping[str, tuple[Any, ...]] = {
    "lam": PAPER_CPU_STRENGTHS,
    "faircocco.lam": PAPER_CPU_STRONG_STRENGTHS,
    "facl.lam": PAPER_CPU_STRONG_STRENGTHS,
    "hsic.lam": PAPER_CPU_STRONG_STRENGTHS,
    "faircocco_paper.lam": PAPER_STRENGTHS,
    **{
        f"{method}.lam@{dataset}": strengths
        for (method, dataset), strengths in PAPER_CPU_EXTENDED_STRENGTHS.items()
    },
    "bound": PAPER_CPU_BOUNDS,
    "base": ("logistic",),
}


def _single_grouping(datasets: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """On a dataset without a continuous attribute the median and the quartiles build the same
    groups (the levels crossed), so the group methods run there once, as ``"median"``."""
    from ..datasets import get_source

    nominal = [d for d in datasets if "continuous" not in get_source(d).attributes.values()]
    return {
        f"{method}.groups@{dataset}": ("median",)
        for method in MIXED_GROUP_METHODS
        for dataset in nominal
    }


@dataclass(frozen=True)
class Preset:
    """Settings of a named study; explicit options override them.

    Attributes
    ----------
    name : str
    description : str
    datasets : tuple of str
        ``PAPER_DATASETS`` runs those whose raw files are found or downloaded, or
        ``SYNTHETIC_DATASETS`` when none is (see :func:`preset_config`).
    methods, notions, seeds, grid, epochs, warmup_epochs, max_train_rows, max_eval_rows
        As for :class:`StudyConfig`.
    grid_overrides, regression_notions
        As for :class:`StudyConfig`.
    tune_training : bool
        Choose each dataset's learning rate and batch size in a tuning stage first (see
        :func:`~faircocco_plugins.bench.tuning_config`), and fix them for every method.
    binned_groups, audit
        As for :class:`StudyConfig`.
    """

    name: str
    description: str
    datasets: tuple[str, ...]
    methods: tuple[str, ...]
    notions: tuple[str, ...]
    seeds: tuple[int, ...]
    grid: Literal["full", "quick"]
    epochs: int | None
    warmup_epochs: int | None
    max_train_rows: int | None
    max_eval_rows: int | None
    grid_overrides: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    regression_notions: tuple[str, ...] | None = None
    tune_training: bool = False
    binned_groups: tuple[str, ...] = ()
    audit: bool = False


def _toolkit_preset(name: str, mitigators: str, methods: tuple[str, ...], adapter: str) -> Preset:
    """A toolkit's mitigators head to head with the network under FairCOCCO and FACL, on the
    paper's single binary-attribute datasets, where every toolkit's group methods apply."""
    return Preset(
        name=name,
        description=(
            f"{mitigators}, and the network with FairCOCCO and FACL, on the paper's single "
            "binary-attribute datasets (Adult, COMPAS, German, Drugs) under DP and EO; 3 seeds, "
            "the quick grids, 10 epochs (2 of warm-up), at most 2,000 training rows. Needs "
            f"{adapter}"
        ),
        datasets=("adult", "compas", "german", "drugs"),
        methods=(*methods, "nn", "faircocco", "facl"),
        notions=("dp", "eo"),
        seeds=(0, 1, 2),
        grid="quick",
        epochs=10,
        warmup_epochs=2,
        max_train_rows=2000,
        max_eval_rows=20_000,
    )


PRESETS: dict[str, Preset] = {
    "quick": Preset(
        name="quick",
        description=(
            "A short real study: the nine datasets (or the synthetic ones), NN, FairCOCCO, "
            "FACL and HSIC under EO and DP, 2 seeds, 3 penalty weights, 10 epochs (2 of "
            "warm-up), at most 2,000 training rows and 20,000 validation and test rows"
        ),
        datasets=PAPER_DATASETS,
        methods=("nn", "faircocco", "facl", "hsic"),
        notions=("eo", "dp"),
        seeds=(0, 1),
        grid="quick",
        epochs=10,
        warmup_epochs=2,
        max_train_rows=2000,
        max_eval_rows=20_000,
    ),
    "fairlearn": _toolkit_preset(
        "fairlearn",
        "fairlearn's reductions (with its parity constraints and with the FairCOCCO "
        "constraint), ThresholdOptimizer and CorrelationRemover around logistic regression, "
        "boosted trees and the paper's network, the base models alone, and its adversarial "
        "mitigator",
        (
            "sklearn_unmitigated",
            "fairlearn_expgrad",
            "fairlearn_expgrad_tpr",
            "fairlearn_expgrad_faircocco",
            "fairlearn_gridsearch",
            "fairlearn_threshold",
            "fairlearn_correlation_remover",
            "fairlearn_adversarial",
        ),
        "the fairlearn adapter (pip install -e adapters/torch -e adapters/fairlearn)",
    ),
    "aif360": _toolkit_preset(
        "aif360",
        "AIF360's mitigators (PrejudiceRemover, its reductions, GerryFair, MetaFair, "
        "adversarial debiasing, reweighing and three post-processors around logistic "
        "regression)",
        (
            "aif360_prejudice_remover",
            "aif360_expgrad",
            "aif360_gridsearch",
            "aif360_gerryfair",
            "aif360_meta_fair",
            "aif360_eq_odds",
            "aif360_calibrated_eq_odds",
            "aif360_reject_option",
            "aif360_reweighing",
            "aif360_adversarial_debiasing",
        ),
        "the AIF360 adapter (pip install -e adapters/torch -e 'adapters/aif360[adversarial]', "
        "with pandas<3)",
    ),
    "paper-cpu": Preset(
        name="paper-cpu",
        description=(
            "The paper's comparison sized for a CPU machine: the nine datasets, every installed "
            "method, DP and EO everywhere and CAL on the classification datasets, 5 seeds; "
            "each dataset's learning rate and batch size chosen once for the network on "
            "validation data (a tuning stage run first, into STORE-tuning), then every penalty "
            f"over the weights {list(PAPER_CPU_STRENGTHS)} (FairCOCCO, FACL and HSIC up to "
            f"{PAPER_CPU_STRONG_STRENGTHS[-1]:g}, and each grid further on the datasets where its "
            "validation score still fell at its largest weight; the paper's literal FairCOCCO "
            f"over {list(PAPER_STRENGTHS)}), the constraint over the bounds "
            f"{list(PAPER_CPU_BOUNDS)}, the toolkits' mitigators over their own grids around "
            "logistic regression (a reduction refits its base model up to 50 times: boosted "
            "trees and the network as base models are in the paper preset); 20 epochs (2 of "
            "warm-up, none for the paper's literal FairCOCCO), at most 30,000 training rows "
            "(KDD Census only)"
        ),
        datasets=PAPER_DATASETS,
        methods=(),
        notions=("dp", "eo", "cal"),
        seeds=(0, 1, 2, 3, 4),
        grid="full",
        epochs=20,
        warmup_epochs=2,
        max_train_rows=30_000,
        max_eval_rows=None,
        grid_overrides=PAPER_CPU_OVERRIDES,
        regression_notions=("dp", "eo"),
        tune_training=True,
    ),
    "mixed": Preset(
        name="mixed",
        description=(
            "The mixed-attribute head-to-head: Adult (sex, race and age, continuous), "
            "Communities, Students, Law School and Credit Card with the attributes the paper "
            "protects; the network alone, FairCOCCO (penalty and path), HSIC, FACL and FARMI "
            "on the attributes as they are, against logistic regression alone and fairlearn's "
            "and AIF360's group methods on binned groups (continuous attributes cut at the "
            "training median, or quartiles, crossed with the others; the parameter groups); DP "
            "and EO, 5 seeds, the paper-cpu preset's protocol, tuning stage and grids; every "
            "run also measured on the binned groups, deciles, intersections of at least 30 "
            "rows and the worst of them, and by HSIC and distance correlation with p-values. "
            "Needs the torch, fairlearn and AIF360 adapters in one environment (pandas<3)"
        ),
        datasets=MIXED_DATASETS,
        methods=MIXED_METHODS,
        notions=("dp", "eo"),
        seeds=(0, 1, 2, 3, 4),
        grid="full",
        epochs=20,
        warmup_epochs=2,
        max_train_rows=30_000,
        max_eval_rows=None,
        grid_overrides={**PAPER_CPU_OVERRIDES, **_single_grouping(MIXED_DATASETS)},
        tune_training=True,
        binned_groups=tuple(GROUP_SCHEMES),
        audit=True,
    ),
    "paper": Preset(
        name="paper",
        description=(
            "The paper's protocol: the nine datasets, every method, DP, EO and CAL, 10 seeds, "
            "full grids (learning rate, batch size, penalty weight or bound), 100 epochs"
        ),
        datasets=PAPER_DATASETS,
        methods=(),
        notions=("dp", "eo", "cal"),
        seeds=DEFAULT_SEEDS,
        grid="full",
        epochs=100,
        warmup_epochs=None,
        max_train_rows=None,
        max_eval_rows=None,
    ),
}


def preset_config(
    preset: str, /, *, data_dir: str | None = None, **overrides: Any
) -> tuple[StudyConfig, list[str]]:
    """The study of a preset, with explicit settings taking precedence.

    When the preset uses the paper's datasets and ``datasets`` is not overridden, their raw
    files are looked for (:func:`faircocco_plugins.datasets.list_datasets`) and missing ones
    downloaded where their source allows it; the study runs the datasets found, or the
    synthetic ones when none is, and a note says so.

    Parameters
    ----------
    preset : str
        A key of :data:`PRESETS`.
    data_dir : str, optional
        Directory searched first for raw files.
    **overrides
        :class:`StudyConfig` fields; ``None`` values are ignored. ``name`` defaults to the
        preset's name.

    Returns
    -------
    config : StudyConfig
    notes : list of str
        Messages for the user.

    Examples
    --------
    >>> from faircocco_plugins.bench import preset_config
    >>> config, notes = preset_config("quick", datasets=("synthetic",), seeds=(0,))
    >>> config.methods, config.epochs
    (('nn', 'faircocco', 'facl', 'hsic'), 10)
    """
    if preset not in PRESETS:
        raise ValueError(f"preset={preset!r} is not valid; expected one of {sorted(PRESETS)}.")
    chosen = PRESETS[preset]
    values: dict[str, Any] = {
        "name": chosen.name,
        "datasets": chosen.datasets,
        "methods": chosen.methods,
        "notions": chosen.notions,
        "seeds": chosen.seeds,
        "grid": chosen.grid,
        "epochs": chosen.epochs,
        "warmup_epochs": chosen.warmup_epochs,
        "max_train_rows": chosen.max_train_rows,
        "max_eval_rows": chosen.max_eval_rows,
        "grid_overrides": chosen.grid_overrides,
        "regression_notions": chosen.regression_notions,
        "binned_groups": chosen.binned_groups,
        "audit": chosen.audit,
        "data_dir": data_dir,
    }
    given = {k: v for k, v in overrides.items() if v is not None}
    unknown = sorted(set(given) - set(values))
    if unknown:
        raise TypeError(f"unknown study settings {unknown}; expected among {sorted(values)}.")
    values.update(given)
    if values["regression_notions"] is not None:
        # explicit --notions narrow the regression notions too
        values["regression_notions"] = tuple(
            n for n in values["regression_notions"] if n in values["notions"]
        )
    notes = []
    if "datasets" not in given and chosen.datasets == PAPER_DATASETS:
        usable, missing = _usable(PAPER_DATASETS, data_dir)
        if not usable:
            values["datasets"] = SYNTHETIC_DATASETS
            notes.append(
                f"none of the paper's datasets was found here or could be downloaded, so the "
                f"{preset} preset runs the synthetic datasets ({', '.join(SYNTHETIC_DATASETS)}) "
                "instead; to run the paper's datasets, point --data-dir DIR or $FAIRCOCCO_DATA "
                "at a directory holding their raw files as DIR/<dataset>/<file> "
                "('faircocco datasets --data-dir DIR' lists the ones it finds)"
            )
        elif missing:
            values["datasets"] = usable
            notes.append(
                f"the raw files of {', '.join(missing)} were not found and could not be "
                f"downloaded, so the {preset} preset runs {', '.join(usable)} only; provide "
                "them with --data-dir or $FAIRCOCCO_DATA"
            )
    return StudyConfig(**values), notes


def _usable(names: tuple[str, ...], data_dir: str | None) -> tuple[tuple[str, ...], list[str]]:
    """The datasets whose raw files are here or can be downloaded now, and the others."""
    from ..datasets import DatasetUnavailableError, list_datasets, load_dataset

    table = list_datasets(data_dir=data_dir)
    usable, missing = [], []
    for name in names:
        if bool(table.loc[name, "available"]):
            usable.append(name)
            continue
        try:
            load_dataset(name, data_dir=data_dir)
        except DatasetUnavailableError:
            missing.append(name)
        else:
            usable.append(name)
    return tuple(usable), missing
