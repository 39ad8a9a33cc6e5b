"""Three experiments of the paper that the study's grid does not cover, each a compact table.

* :func:`convergence_experiment` (Appendix C.2): the FairCOCCO score of a trained network's
  predictions estimated on random batches of growing size, against its value on all rows.
* :func:`attributes_experiment` (Appendix C.4, the sensitivity to the number of attributes):
  FairCOCCO-penalised networks protecting the first 1, 2, ... k attributes jointly, over λ.
* :func:`pvalues_experiment` (Appendix C.3, Table 13): accuracy, DEO, DI, the score and the
  permutation test's p-value of FairCOCCO-penalised networks over λ.

Every network is the harness's own (the installed ``nn`` and ``faircocco`` methods), trained on
the harness's splits, standardisation and row caps with the same epochs as the ``paper-cpu``
preset, and each dataset's learning rate and batch size chosen by the study's tuning stage
(:func:`~faircocco_plugins.bench._protocol.chosen_training`). The tables are written by
``faircocco paper-experiment`` and drawn by ``faircocco pages``.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ..._api import faircocco_report, faircocco_score, independence_test
from ..._records.notions import notion_named
from ...plugins import DegenerateModelWarning, available_methods
from .._metrics import R2_THRESHOLD, SPREAD_THRESHOLD, evaluate_predictions
from .._presets import PRESETS
from .._progress import progress_lines
from .._runner import (
    Loader,
    Part,
    RegistryLoader,
    cached_dataset,
    predict_part,
    prepared_parts,
    single_threaded,
)

#: The experiments, by the name the command line takes.
EXPERIMENTS: tuple[str, ...] = ("convergence", "attributes", "pvalues")
#: Batch sizes of the paper's convergence figure.
CONVERGENCE_BATCH_SIZES: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024, 2048)
#: Datasets of the convergence figure.
CONVERGENCE_DATASETS: tuple[str, ...] = ("adult", "german")
#: The penalty weight of the convergence study's penalised network.
CONVERGENCE_LAMBDA = 5.0
#: Random batches drawn per batch size.
CONVERGENCE_BATCHES = 100
#: The attributes of the paper's sensitivity figure, in the order they are added (the
#: registry's names: Communities spells the first ``racepctblack``).
ATTRIBUTE_SETS: dict[str, tuple[str, ...]] = {
    "communities": ("racepctblack", "racePctAsian", "racePctWhite", "racePctHisp"),
    "students": ("age", "sex"),
    "drugs": ("age", "gender", "ethnicity"),
}
#: Features that become sensitive attributes for the sensitivity figure: the registry's Drugs
#: protects ethnicity alone and keeps age and gender among the features.
MOVED_FEATURES: dict[str, tuple[str, ...]] = {"drugs": ("age", "gender")}
#: Penalty weights of the sensitivity figure.
ATTRIBUTE_LAMBDAS: tuple[float, ...] = (0.0, 1.0, 5.0, 20.0)
#: Penalty weights of Table 13 (0 to 2), extended as the study's grid is (this project's λ
#: scale is gentler than the paper's).
PVALUE_LAMBDAS: tuple[float, ...] = (0.0, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
#: Table 13 names no dataset; Adult is the paper's largest binary-attribute dataset.
PVALUE_DATASET = "adult"
#: Rows of the test part the permutation test runs on.
PVALUE_TEST_ROWS = 2000
#: Permutations of each test.
PVALUE_PERMUTATIONS = 1000


@dataclass(frozen=True)
class ExperimentSettings:
    """What every experiment's networks share.

    Attributes
    ----------
    seeds : tuple of int
        The datasets' splits and the networks' initialisations.
    epochs, warmup_epochs, max_train_rows
        As for :class:`~faircocco_plugins.bench.StudyConfig`; the defaults are the
        ``paper-cpu`` preset's.
    training : mapping of str to mapping
        Each dataset's ``learning_rate`` and ``batch_size`` (:func:`chosen_training`); a
        dataset without one gets the network's quick-grid setting.
    data_dir : str, optional
        Directory searched first for the datasets' raw files.
    progress : bool
        Show a progress bar.
    """

    seeds: tuple[int, ...] = (0, 1, 2)
    epochs: int = PRESETS["paper-cpu"].epochs or 20
    warmup_epochs: int = PRESETS["paper-cpu"].warmup_epochs or 2
    max_train_rows: int | None = PRESETS["paper-cpu"].max_train_rows
    training: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    data_dir: str | None = None
    progress: bool = True

    def __post_init__(self) -> None:
        if not self.seeds or any(isinstance(s, bool) or not isinstance(s, int) for s in self.seeds):
            raise ValueError(f"seeds must be a non-empty tuple of integers; got {self.seeds!r}.")
        for name in ("epochs", "warmup_epochs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer; got {value!r}.")

    def recorded(self) -> dict[str, Any]:
        """The settings every row of an experiment's table records."""
        return {
            "epochs": self.epochs,
            "warmup_epochs": self.warmup_epochs,
            "max_train_rows": self.max_train_rows,
        }

    def training_of(self, dataset: str) -> dict[str, Any]:
        """The learning rate and batch size of ``dataset``'s networks."""
        if dataset in self.training:
            return dict(self.training[dataset])
        quick = available_methods()["nn"].quick_grid
        return {name: values[0] for name, values in sorted(quick.items())}


@dataclass(frozen=True)
class AttributeLoader:
    """A loader that turns some features of a dataset into sensitive attributes.

    The named features leave ``X`` (so the network no longer sees them, like the dataset's own
    attributes) and join ``sensitive`` first, in the order given: a feature with two values
    becomes a binary (categorical) attribute, any other stays continuous.

    Parameters
    ----------
    moved : tuple of (str, tuple of str)
        ``(dataset, features)`` pairs; other datasets load unchanged.
    base : callable
        ``base(name, seed) -> Dataset``, the registry by default.

    Examples
    --------
    >>> from faircocco_plugins.bench.paper._experiments import AttributeLoader
    >>> loader = AttributeLoader((("synthetic", ("x1",)),))
    >>> list(loader("synthetic", 0).sensitive.columns)
    ['x1', 'sex', 'age', 'region']
    """

    moved: tuple[tuple[str, tuple[str, ...]], ...] = ()
    base: Loader = field(default_factory=RegistryLoader)

    def __call__(self, name: str, seed: int) -> Any:
        data = self.base(name, seed)
        features = dict(self.moved).get(name, ())
        missing = [f for f in features if f not in data.X.columns]
        if missing:
            raise ValueError(
                f"features {missing} to protect are not columns of {name!r}'s X; it has "
                f"{list(data.X.columns)}."
            )
        if not features:
            return data
        attributes = pd.DataFrame({f: _attribute(data.X[f]) for f in features})
        sensitive = pd.concat([attributes, data.sensitive], axis=1)
        return replace(data, X=data.X.drop(columns=list(features)), sensitive=sensitive)


def _attribute(column: pd.Series) -> pd.Series:
    values = np.sort(column.unique())
    if len(values) != 2:
        return column.astype(np.float64)
    labels = [f"{v:g}" for v in values]
    return pd.Series(
        pd.Categorical(np.where(column == values[0], labels[0], labels[1]), categories=labels),
        index=column.index,
    )


@dataclass(frozen=True)
class TrainedNetwork:
    """A network fitted on one dataset and seed, with its parts and test predictions.

    Attributes
    ----------
    task : str
    parts : tuple of Part
        Train, validation and test: standardised features, outcome, sensitive attributes.
    model : object
        The fitted estimator.
    prediction, proba
        Its predictions on the test part (``proba`` for classification, else ``None``).
    training : dict
        The learning rate and batch size it was trained with.
    """

    task: str
    parts: tuple[Part, Part, Part]
    model: Any
    prediction: np.ndarray
    proba: np.ndarray | None
    training: dict[str, Any]

    @property
    def test(self) -> Part:
        """The test part."""
        return self.parts[2]

    def scores_of(self, part: Part) -> np.ndarray:
        """What the FairCOCCO score judges: the positive class's probability, or the value."""
        y_pred, proba = predict_part(self.model, part, self.task, False)
        return (proba[:, -1] if proba is not None else y_pred).astype(np.float64)

    def metrics(self, sensitive: pd.DataFrame, notion: str, seed: int) -> dict[str, float]:
        """The harness's test metrics under ``notion`` for the attributes ``sensitive``."""
        return evaluate_predictions(
            self.task,
            self.test[1],
            self.prediction,
            sensitive,
            proba=self.proba,
            notions=(notion,),
            random_state=seed,
        )


def train_network(
    loader: Loader,
    dataset: str,
    seed: int,
    settings: ExperimentSettings,
    *,
    method: str,
    notion: str,
    attributes: Sequence[str] | None = None,
    **params: Any,
) -> TrainedNetwork:
    """Fit one of the harness's networks as a study's cell does, and predict the test part.

    Parameters
    ----------
    loader : callable
        ``loader(name, seed) -> Dataset``.
    dataset : str
    seed : int
    settings : ExperimentSettings
    method : {"nn", "faircocco"}
        An installed method of the harness.
    notion : {"dp", "eo", "cal"}
        The penalty's notion.
    attributes : sequence of str, optional
        The sensitive attributes the penalty protects (default all); the parts keep them all.
    **params
        The method's parameters besides the learning rate and batch size (``lam``).

    Returns
    -------
    TrainedNetwork
    """
    spec = available_methods()[method]
    data = cached_dataset(loader, dataset, seed)
    # cached: consecutive networks of one dataset and seed share their parts
    parts = prepared_parts(loader, dataset, seed, settings.max_train_rows, None)
    train = parts[0]
    names = list(train[2].columns if attributes is None else attributes)
    unknown = [name for name in names if name not in train[2].columns]
    if unknown:
        raise ValueError(
            f"attributes {unknown} are not sensitive attributes of {dataset!r}; it has "
            f"{list(train[2].columns)}."
        )
    protected = train[2][names]
    training = settings.training_of(dataset)
    with single_threaded(), warnings.catch_warnings():
        # degenerate models are marked from their predictions, as the study does
        warnings.simplefilter("ignore", DegenerateModelWarning)
        model = spec.factory(
            task=data.task,
            notion=notion,
            random_state=seed,
            epochs=settings.epochs,
            warmup_epochs=settings.warmup_epochs,
            **training,
            **params,
        )
        model.fit(train[0], train[1], sensitive_features=protected)
        prediction, proba = predict_part(model, parts[2], data.task, False)
    return TrainedNetwork(data.task, parts, model, prediction, proba, training)


def convergence_experiment(
    settings: ExperimentSettings,
    *,
    datasets: Sequence[str] = CONVERGENCE_DATASETS,
    notions: Sequence[str] = ("eo", "dp"),
    batch_sizes: Sequence[int] = CONVERGENCE_BATCH_SIZES,
    batches: int = CONVERGENCE_BATCHES,
    lam: float = CONVERGENCE_LAMBDA,
    loader: Loader | None = None,
) -> pd.DataFrame:
    """The FairCOCCO score on random batches against batch size, and its full-data value.

    For each dataset and seed, the unpenalised network and a FairCOCCO-penalised one (weight
    ``lam``, one per notion) are trained; their predictions on a pool of rows are scored on all
    of the pool (the target) and on ``batches`` random batches (without replacement) of each
    size below the pool's. The pool is the test part when it holds at least twice the largest
    batch size, and the training, validation and test parts together otherwise (German's test
    part has 200 rows).

    Parameters
    ----------
    settings : ExperimentSettings
    datasets : sequence of str
    notions : sequence of {"dp", "eo", "cal"}
    batch_sizes : sequence of int
    batches : int
        Random batches per batch size.
    lam : float
        The penalised network's weight.
    loader : callable, optional
        ``loader(name, seed) -> Dataset``; the registry by default.

    Returns
    -------
    pandas.DataFrame
        One row per dataset, notion, model (``nn`` or ``faircocco``), seed and batch size:
        ``pool`` (``"test"`` or ``"all"``), ``pool_rows``, ``batches``, the full-pool
        ``full_score`` and ``full_adjusted``, and over the batches ``mean``, ``std`` and
        ``mae`` (mean absolute error against the full-pool value) of the raw score and, with
        the suffix ``_adjusted``, of the chance-adjusted one; then ``lam``, ``learning_rate``
        and ``training_batch_size``, and the settings (``epochs``, ``warmup_epochs``,
        ``max_train_rows``).
    """
    sizes = _positive_sizes(batch_sizes, "batch_sizes")
    if isinstance(batches, bool) or not isinstance(batches, int) or batches < 2:
        raise ValueError(f"batches must be an integer of at least 2; got {batches!r}.")
    loader = loader or RegistryLoader(settings.data_dir)
    jobs = [(d, s) for d in datasets for s in settings.seeds]
    rows: list[dict[str, Any]] = []
    for dataset, seed in _bar(jobs, settings, "convergence", "seed"):
        # the network without a penalty is the same under every notion
        plain = train_network(loader, dataset, seed, settings, method="nn", notion=notions[0])
        for notion in notions:
            penalised = train_network(
                loader, dataset, seed, settings, method="faircocco", notion=notion, lam=lam
            )
            for model, network in (("nn", plain), ("faircocco", penalised)):
                pool, name = _pool(network, max(sizes))
                rows += [
                    {
                        "dataset": dataset,
                        "notion": notion,
                        "model": model,
                        "seed": seed,
                        **row,
                        "pool": name,
                        "lam": lam if model == "faircocco" else 0.0,
                        "learning_rate": network.training.get("learning_rate"),
                        "training_batch_size": network.training.get("batch_size"),
                        **settings.recorded(),
                    }
                    for row in _batch_estimates(pool, notion, sizes, batches, seed)
                ]
    return pd.DataFrame(rows)


def _positive_sizes(values: Sequence[int], name: str) -> tuple[int, ...]:
    sizes = tuple(values)
    if not sizes or any(isinstance(v, bool) or not isinstance(v, int) or v < 2 for v in sizes):
        raise ValueError(f"{name} must be a non-empty sequence of integers >= 2; got {values!r}.")
    return tuple(sorted(set(sizes)))


#: The rows the convergence study scores: the predictions, the outcome, the attributes.
Pool = tuple[np.ndarray, pd.Series, pd.DataFrame]


def _pool(network: TrainedNetwork, largest: int) -> tuple[Pool, str]:
    """The rows scored: the test part, or all parts when the test part is small."""
    test = network.test
    if len(test[1]) >= 2 * largest:
        return (network.scores_of(test), test[1], test[2]), "test"
    parts = network.parts
    scores = np.concatenate([network.scores_of(part) for part in parts])
    y = pd.concat([part[1] for part in parts], ignore_index=True)
    sensitive = pd.concat([part[2] for part in parts], ignore_index=True)
    return (scores, y, sensitive), "all"


def _batch_estimates(
    pool: Pool, notion: str, sizes: tuple[int, ...], batches: int, seed: int
) -> Iterator[dict[str, Any]]:
    scores, y, sensitive = pool
    outcome = y.to_numpy(dtype=np.float64)
    n = len(scores)

    def score(rows: np.ndarray | slice) -> tuple[float, float]:
        report = faircocco_report(
            scores[rows],
            sensitive.iloc[rows].reset_index(drop=True),
            y_true=notion_named(notion).outcome(outcome[rows]),
            notion=notion,
            random_state=seed,
        )
        values = report.loc["joint", ["score", "adjusted"]].to_numpy(dtype=np.float64)
        return float(values[0]), float(values[1])

    full, full_adjusted = score(slice(None))
    rng = np.random.default_rng(seed)
    for size in (s for s in sizes if s < n):
        values = np.array([score(rng.choice(n, size, replace=False)) for _ in range(batches)])
        row: dict[str, Any] = {
            "batch_size": size,
            "pool_rows": n,
            "batches": batches,
            "full_score": full,
            "full_adjusted": full_adjusted,
        }
        for column, suffix, target in ((0, "", full), (1, "_adjusted", full_adjusted)):
            row[f"mean{suffix}"] = float(values[:, column].mean())
            row[f"std{suffix}"] = float(values[:, column].std(ddof=1))
            row[f"mae{suffix}"] = float(np.abs(values[:, column] - target).mean())
        yield row


def attributes_experiment(
    settings: ExperimentSettings,
    *,
    attribute_sets: Mapping[str, Sequence[str]] = ATTRIBUTE_SETS,
    moved: Mapping[str, Sequence[str]] = MOVED_FEATURES,
    lambdas: Sequence[float] = ATTRIBUTE_LAMBDAS,
    notion: str = "eo",
    base: Loader | None = None,
) -> pd.DataFrame:
    """FairCOCCO-penalised networks protecting the first 1, 2, ..., k attributes jointly.

    Every network of a dataset sees the same features (none of its ``attribute_sets``); only
    the attributes its penalty protects change, and the performance and the joint score of the
    attributes protected are measured on the test part.

    Parameters
    ----------
    settings : ExperimentSettings
    attribute_sets : mapping of str to sequence of str
        Each dataset's attributes, in the order they are added.
    moved : mapping of str to sequence of str
        Features of a dataset that become attributes (:class:`AttributeLoader`).
    lambdas : sequence of float
        Penalty weights.
    notion : {"dp", "eo", "cal"}
    base : callable, optional
        The loader under :class:`AttributeLoader`; the registry by default.

    Returns
    -------
    pandas.DataFrame
        One row per dataset, number of attributes ``attributes``, ``lam`` and seed:
        ``protected`` (the names joined by ``+``), ``task``, ``notion``, ``accuracy`` and
        ``auc`` (classification) or ``mse`` and ``r2`` (regression), ``faircocco`` and
        ``faircocco_adjusted`` (the joint score of the attributes protected), ``deo`` (the
        largest of theirs), ``faircocco_adjusted_all`` (the joint adjusted score of all the
        dataset's attributes), ``degenerate``, ``learning_rate``, ``batch_size`` and the
        settings (``epochs``, ``warmup_epochs``, ``max_train_rows``).
    """
    loader = AttributeLoader(
        tuple((name, tuple(features)) for name, features in sorted(moved.items())),
        base or RegistryLoader(settings.data_dir),
    )
    weights = _weights(lambdas)
    for dataset, names in attribute_sets.items():
        columns = cached_dataset(loader, dataset, settings.seeds[0]).sensitive.columns
        unknown = [name for name in names if name not in columns]
        if unknown:
            raise ValueError(
                f"attribute_sets[{dataset!r}] names {unknown}, which are not attributes of "
                f"the dataset; it has {list(columns)}."
            )
    jobs = [
        (dataset, seed, k, lam)
        for dataset, names in attribute_sets.items()
        for seed in settings.seeds
        for k in range(1, len(names) + 1)
        for lam in weights
    ]
    rows = []
    for dataset, seed, k, lam in _bar(jobs, settings, "attributes"):
        names = list(attribute_sets[dataset])
        protected = names[:k]
        network = train_network(
            loader,
            dataset,
            seed,
            settings,
            method="faircocco",
            notion=notion,
            attributes=protected,
            lam=lam,
        )
        sensitive = network.test[2]
        metrics = network.metrics(sensitive[protected], notion, seed)
        outcome = network.test[1].to_numpy(dtype=np.float64)
        all_adjusted = faircocco_score(
            network.scores_of(network.test),
            sensitive[names],
            y_true=notion_named(notion).outcome(outcome),
            notion=notion,
            adjusted=True,
            random_state=seed,
        )
        rows.append(
            {
                "dataset": dataset,
                "attributes": k,
                "protected": "+".join(protected),
                "lam": lam,
                "seed": seed,
                "task": network.task,
                "notion": notion,
                **_performance(network.task, metrics),
                "faircocco": metrics[f"faircocco_{notion}"],
                "faircocco_adjusted": metrics[f"faircocco_{notion}_adjusted"],
                "deo": metrics["deo"],
                "faircocco_adjusted_all": float(all_adjusted),
                "degenerate": _degenerate(network.task, metrics),
                "learning_rate": network.training.get("learning_rate"),
                "batch_size": network.training.get("batch_size"),
                **settings.recorded(),
            }
        )
    return pd.DataFrame(rows)


def _performance(task: str, metrics: Mapping[str, float]) -> dict[str, float]:
    if task == "classification":
        return {"accuracy": metrics["accuracy"], "auc": metrics["auc"]}
    variance = metrics["outcome_variance"]
    r2 = 1.0 - metrics["mse"] / variance if variance > 0 else math.nan
    return {"mse": metrics["mse"], "r2": r2}


def _degenerate(task: str, metrics: Mapping[str, float]) -> bool:
    """The study's rule (:func:`degenerate_runs`): one class, or no better than the mean."""
    if task == "classification":
        return bool(metrics["single_class"] > 0)
    performance = _performance(task, metrics)
    return bool(
        metrics["prediction_spread"] < SPREAD_THRESHOLD or performance["r2"] <= R2_THRESHOLD
    )


def pvalues_experiment(
    settings: ExperimentSettings,
    *,
    dataset: str = PVALUE_DATASET,
    lambdas: Sequence[float] = PVALUE_LAMBDAS,
    notions: Sequence[str] = ("eo", "dp"),
    test_rows: int = PVALUE_TEST_ROWS,
    n_permutations: int = PVALUE_PERMUTATIONS,
    loader: Loader | None = None,
) -> pd.DataFrame:
    """Accuracy, DEO, DI, the score and the permutation test's p-value against λ.

    Parameters
    ----------
    settings : ExperimentSettings
    dataset : str
        A classification dataset.
    lambdas : sequence of float
        Penalty weights.
    notions : sequence of {"dp", "eo", "cal"}
    test_rows : int
        The permutation test runs on this many test rows, drawn once per seed (all of them
        when the test part has fewer); the other metrics use the whole test part.
    n_permutations : int
        Permutations of each test (:func:`~faircocco_plugins.independence_test`).
    loader : callable, optional
        ``loader(name, seed) -> Dataset``; the registry by default.

    Returns
    -------
    pandas.DataFrame
        One row per notion, ``lam`` and seed: ``accuracy``, ``auc``, ``deo``, ``di``,
        ``faircocco`` and ``faircocco_adjusted`` (the score at its default ε), the test's
        ``pvalue`` and ``test_statistic_score`` (the score at the test's ε), ``test_rows``,
        ``n_permutations``, ``degenerate``, ``learning_rate``, ``batch_size`` and the settings
        (``epochs``, ``warmup_epochs``, ``max_train_rows``).
    """
    if isinstance(test_rows, bool) or not isinstance(test_rows, int) or test_rows < 10:
        raise ValueError(f"test_rows must be an integer of at least 10; got {test_rows!r}.")
    loader = loader or RegistryLoader(settings.data_dir)
    jobs = [(s, n, lam) for s in settings.seeds for n in notions for lam in _weights(lambdas)]
    rows = []
    for seed, notion, lam in _bar(jobs, settings, "p-values"):
        network = train_network(
            loader, dataset, seed, settings, method="faircocco", notion=notion, lam=lam
        )
        if network.task != "classification":
            raise ValueError(f"dataset={dataset!r} is not a classification dataset.")
        _, y, sensitive = network.test
        metrics = network.metrics(sensitive, notion, seed)
        n = len(y)
        chosen = np.sort(np.random.default_rng(seed).choice(n, min(test_rows, n), replace=False))
        test = independence_test(
            network.scores_of(network.test)[chosen],
            sensitive.iloc[chosen].reset_index(drop=True),
            y_true=notion_named(notion).outcome(y.to_numpy(dtype=np.float64)[chosen]),
            notion=notion,
            n_permutations=n_permutations,
            random_state=seed,
            null="permutation",
        )
        rows.append(
            {
                "dataset": dataset,
                "notion": notion,
                "lam": lam,
                "seed": seed,
                "accuracy": metrics["accuracy"],
                "auc": metrics["auc"],
                "deo": metrics["deo"],
                "di": metrics["di"],
                "faircocco": metrics[f"faircocco_{notion}"],
                "faircocco_adjusted": metrics[f"faircocco_{notion}_adjusted"],
                "pvalue": test.pvalue,
                "test_statistic_score": test.score,
                "test_rows": len(chosen),
                "n_permutations": n_permutations,
                "degenerate": _degenerate(network.task, metrics),
                "learning_rate": network.training.get("learning_rate"),
                "batch_size": network.training.get("batch_size"),
                **settings.recorded(),
            }
        )
    return pd.DataFrame(rows)


def _weights(lambdas: Sequence[float]) -> tuple[float, ...]:
    values = tuple(float(v) for v in lambdas)
    if not values or any(not math.isfinite(v) or v < 0 for v in values):
        raise ValueError(f"lambdas must be non-negative finite numbers; got {lambdas!r}.")
    return values


def _bar(jobs: list[Any], settings: ExperimentSettings, what: str, unit: str = "network") -> Any:
    return progress_lines(jobs, what=what, unit=unit) if settings.progress else iter(jobs)


#: Each experiment's function, by name.
RUNNERS: dict[str, Callable[..., pd.DataFrame]] = {
    "convergence": convergence_experiment,
    "attributes": attributes_experiment,
    "pvalues": pvalues_experiment,
}


def write_table(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write an experiment's table as CSV (gzip-compressed for a ``.gz`` name)."""
    if frame.empty:
        raise ValueError("the experiment produced no rows; nothing to write.")
    frame.to_csv(path, index=False, float_format="%.6g")
