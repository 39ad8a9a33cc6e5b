"""The paper's protocol in two stages, and the time a study will take.

The paper selects the network's learning rate and batch size, and each penalty's weight, by
cross-validation. Sweeping the whole product for every method, dataset, notion and seed is about
10⁵ runs, far more than a CPU machine runs in a day. This protocol keeps the paper's grids and
splits the choice in two, as a careful replication can on a budget:

1. **Tuning.** On each dataset, the unpenalised network (``nn``) is trained on the first seed
   over the paper's learning rates × batch sizes, and the setting with the best validation
   score is chosen: the highest AUC for classification (accuracy would favour a constant
   predictor on imbalanced data such as KDD Census), the lowest MSE for regression; degenerate
   models are never chosen, and ties go to the first setting in grid order.
2. **The study.** Every method then runs on every seed with that dataset's learning rate and
   batch size fixed (``StudyConfig.fixed_params``), over its own strengths (``grid_overrides``
   extends the penalties' weights), so the comparison between methods is on identical splits,
   seeds and optimisation settings. As a check of that choice, the study can instead sweep
   every method over the tuning stage's learning rates (:func:`with_training`), so that each
   method's learning rate is selected on validation as its strength is.

The choice is recorded in the study's configuration in the store, and so in its export.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ..plugins import MethodSpec
from ._metrics import degenerate_runs
from ._progress import format_duration
from ._runner import Loader, RegistryLoader, dataset_profile
from ._study import Cell, StudyConfig, plan_study, study_methods

#: The network's parameters chosen in the tuning stage.
TRAINING_PARAMS: tuple[str, ...] = ("learning_rate", "batch_size")


def tuning_config(config: StudyConfig) -> StudyConfig:
    """The tuning stage of a study: ``nn`` over its full grid, on the first seed.

    Parameters
    ----------
    config : StudyConfig
        The study whose training parameters are to be chosen.

    Returns
    -------
    StudyConfig
        Named ``<study>-tuning``; one notion (the network has no fairness term, so every
        notion would train the same model), the study's datasets, epochs and row caps, and no
        audit (its choice reads the validation AUC or MSE alone).

    Examples
    --------
    >>> from faircocco_plugins.bench import StudyConfig
    >>> from faircocco_plugins.bench._protocol import tuning_config
    >>> tuning = tuning_config(StudyConfig(name="paper", datasets=("german",), seeds=(0, 1)))
    >>> tuning.name, tuning.methods, tuning.seeds, tuning.notions
    ('paper-tuning', ('nn',), (0,), ('dp',))
    """
    return replace(
        config,
        name=f"{config.name}-tuning",
        methods=("nn",),
        notions=(config.notions[0],),
        seeds=(config.seeds[0],),
        grid="full",
        grid_overrides={},
        fixed_params={},
        regression_notions=None,
        binned_groups=(),
        audit=False,
    )


def chosen_training(runs: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Each dataset's learning rate and batch size, chosen on validation data.

    Parameters
    ----------
    runs : pandas.DataFrame
        The tuning stage's runs (:meth:`ResultsStore.runs`).

    Returns
    -------
    dict of str to dict
        ``{dataset: {"learning_rate": ..., "batch_size": ...}}`` for every dataset with a
        successful, non-degenerate run.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench._protocol import chosen_training
    >>> runs = pd.DataFrame({
    ...     "dataset": ["german"] * 3, "status": ["ok"] * 3,
    ...     "params": [{"learning_rate": lr, "batch_size": 64} for lr in (0.01, 0.001, 1e-4)],
    ...     "validation.auc": [0.70, 0.78, 0.78], "validation.single_class": [0.0] * 3,
    ... })
    >>> chosen_training(runs)
    {'german': {'batch_size': 64, 'learning_rate': 0.001}}
    """
    usable = runs[(runs["status"] == "ok") & ~degenerate_runs(runs, "validation")]
    chosen: dict[str, dict[str, Any]] = {}
    for dataset, group in usable.groupby("dataset", sort=True):
        scores = [_validation_score(row) for _, row in group.iterrows()]
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        if math.isinf(scores[best]):
            continue
        params = group["params"].iloc[best]
        chosen[str(dataset)] = {
            key: params[key] for key in sorted(params) if key in TRAINING_PARAMS
        }
    return chosen


def with_training(
    config: StudyConfig,
    chosen: Mapping[str, Mapping[str, Any]],
    *,
    learning_rates: Sequence[float] | None = None,
) -> StudyConfig:
    """The study with each dataset's tuned training parameters fixed for every method.

    Parameters
    ----------
    config : StudyConfig
        The study.
    chosen : mapping of str to mapping
        Each dataset's learning rate and batch size (:func:`chosen_training`).
    learning_rates : sequence of float, optional
        Sweep every method that has a learning rate over these instead of fixing the
        dataset's, so that the selection on validation picks each method's learning rate per
        strength (the batch size stays the chosen one). Default: fix both.

    Returns
    -------
    StudyConfig

    Examples
    --------
    >>> from faircocco_plugins.bench import StudyConfig
    >>> from faircocco_plugins.bench._protocol import with_training
    >>> config = StudyConfig(datasets=("german",))
    >>> chosen = {"german": {"batch_size": 256, "learning_rate": 0.001}}
    >>> with_training(config, chosen).fixed_params
    {'german': {'batch_size': 256, 'learning_rate': 0.001}}
    >>> tuned = with_training(config, chosen, learning_rates=(0.01, 0.001))
    >>> tuned.fixed_params, tuned.grid_overrides
    ({'german': {'batch_size': 256}}, {'learning_rate': (0.01, 0.001)})
    """
    if learning_rates is None:
        return replace(config, fixed_params=chosen)
    rates = tuple(learning_rates)
    if not rates:
        raise ValueError("learning_rates is empty; give the learning rates to sweep.")
    fixed = {
        dataset: {key: value for key, value in params.items() if key != "learning_rate"}
        for dataset, params in chosen.items()
    }
    overrides = {**config.grid_overrides, "learning_rate": rates}
    return replace(config, fixed_params=fixed, grid_overrides=overrides)


def _validation_score(row: pd.Series) -> float:
    """Higher is better: the AUC for classification, minus the MSE for regression."""
    for name, sign in (("validation.auc", 1.0), ("validation.mse", -1.0)):
        value = row.get(name, math.nan)
        if value is not None and not pd.isna(value):
            return sign * float(value)
    return -math.inf


@dataclass(frozen=True)
class Estimate:
    """The expected time of a study's remaining cells, from measured cells.

    Attributes
    ----------
    cells, done, remaining : int
        Cells of the study, cells the store holds, cells to run.
    seconds : float
        Expected seconds of the remaining cells with measured peers, on one worker.
    unmeasured : int
        Remaining cells with no measured peer (their time is not in ``seconds``).
    unevaluated : int
        Remaining cells with a measured peer whose dataset and notion have no measured
        evaluation (their fitting is in ``seconds``, their evaluation is not).
    """

    cells: int
    done: int
    remaining: int
    seconds: float
    unmeasured: int
    unevaluated: int

    def describe(self, jobs: int = 1) -> str:
        """One line for the user, with the time spread over ``jobs`` workers."""
        counts = f"{self.cells} cells: {self.done} done, {self.remaining} to run"
        if self.remaining and self.unmeasured == self.remaining:
            return (
                f"{counts}; no cell has a measured time yet, so there is no time estimate "
                "(it comes from the stored runs of each cell's method)"
            )
        line = (
            f"{counts}, about {format_duration(self.seconds / max(jobs, 1))} with {jobs} worker(s)"
        )
        if self.unmeasured:
            line += f", plus {self.unmeasured} cells whose method has no measured run yet"
        if self.unevaluated:
            line += f", plus the evaluation of {self.unevaluated} cells, not measured yet"
        return line


def estimate(cells: list[Cell], runs: pd.DataFrame, done: Mapping[str, str]) -> Estimate:
    """The expected time of the cells not yet done, from the store's measured runs.

    A cell's time is its training time plus its evaluation time. The training time (fit and
    prediction) is the median of the successful runs of the same dataset and method, scaled by
    epochs where the two differ; a method not yet measured on a dataset takes its time on
    other datasets times the ratio of the network's times, and failing that the cell counts as
    unmeasured. The evaluation time is the median of the successful runs of the same dataset
    and notion, whatever their method: computing the metrics does not depend on the model, and
    a CAL report or a continuous outcome's null costs more than a DP score.

    Parameters
    ----------
    cells : list of Cell
        The study's applicable cells (:func:`plan_study`).
    runs : pandas.DataFrame
        Runs with measured times (any study of the store; the tuning stage measures ``nn``).
    done : mapping of str to str
        ``run_id`` to status of the runs already in the store.

    Returns
    -------
    Estimate
    """
    training, evaluation = _training_times(runs), _evaluation_times(runs)
    remaining = [cell for cell in cells if cell.run_id not in done]
    seconds, unmeasured, unevaluated = 0.0, 0, 0
    for cell in remaining:
        value = _expected(training, cell.dataset, cell.method) * _epochs(cell.settings)
        if math.isnan(value):
            unmeasured += 1
            continue
        scoring = evaluation.get((cell.dataset, cell.notion), math.nan)
        if math.isnan(scoring):
            unevaluated += 1
        else:
            value += scoring
        seconds += value
    done_count = len(cells) - len(remaining)
    return Estimate(len(cells), done_count, len(remaining), seconds, unmeasured, unevaluated)


def _successful(runs: pd.DataFrame) -> pd.DataFrame:
    return runs[runs["status"] == "ok"] if not runs.empty else runs


def _training_times(runs: pd.DataFrame) -> pd.Series:
    """Median seconds per epoch of fitting and predicting, by dataset and method."""
    ok = _successful(runs)
    if ok.empty:
        return pd.Series(dtype=float)
    seconds = ok["fit_seconds"].fillna(0.0) + ok["predict_seconds"].fillna(0.0)
    per_epoch = seconds / [_epochs(s) for s in ok["settings"]]
    return per_epoch.groupby([ok["dataset"], ok["method"]]).median()


def _evaluation_times(runs: pd.DataFrame) -> dict[tuple[str, str], float]:
    """Median seconds of evaluating a run's two parts, by dataset and notion."""
    ok = _successful(runs)
    if ok.empty:
        return {}
    measured = ok.dropna(subset=["evaluate_seconds"])
    medians = measured.groupby(["dataset", "notion"], as_index=False)["evaluate_seconds"].median()
    return {
        (str(row.dataset), str(row.notion)): float(row.evaluate_seconds)
        for row in medians.itertuples(index=False)
    }


def _expected(times: pd.Series, dataset: str, method: str) -> float:
    if times.empty:
        return math.nan
    if (dataset, method) in times.index:
        return float(times[(dataset, method)])
    frame = times.rename("seconds").reset_index()
    peers = frame[frame["method"] == method].set_index("dataset")["seconds"]
    nets = frame[frame["method"] == "nn"].set_index("dataset")["seconds"]
    shared = peers.index.intersection(nets.index)
    if dataset not in nets.index or shared.empty:
        return math.nan
    return float(nets[dataset] * (peers[shared] / nets[shared]).median())


def _epochs(settings: Mapping[str, Any]) -> float:
    """Time scales with epochs; a method without them counts as one."""
    epochs = settings.get("epochs") if isinstance(settings, Mapping) else None
    return float(epochs) if epochs else 1.0


def tuning_store(store: str | os.PathLike[str]) -> Path:
    """The store of a study's tuning stage, beside the study's own: ``paper.sqlite`` →
    ``paper-tuning.sqlite`` (a store holds one study configuration).

    Examples
    --------
    >>> from faircocco_plugins.bench._protocol import tuning_store
    >>> tuning_store("results/paper.sqlite").as_posix()
    'results/paper-tuning.sqlite'
    """
    path = Path(store)
    return path.with_name(f"{path.stem}-tuning{path.suffix}")


def plan_cells(
    config: StudyConfig, methods: Mapping[str, MethodSpec], loader: Loader | None = None
) -> list[Cell]:
    """The applicable cells of a study, as :func:`run_study` plans them, without running any.

    Parameters
    ----------
    config : StudyConfig
    methods : mapping of str to MethodSpec
        The installed methods; restricted to ``config.methods``, with binned variants where
        the study asks for them (:func:`~._study.study_methods`).
    loader : callable, optional
        As for :func:`run_study`.

    Returns
    -------
    list of Cell
    """
    chosen = study_methods(config, methods)
    if loader is None:
        loader = RegistryLoader.for_datasets(config.datasets, config.data_dir)
    profiles = {name: dataset_profile(loader, name, config.seeds[0]) for name in config.datasets}
    cells, _ = plan_study(config, chosen, profiles)
    return cells
