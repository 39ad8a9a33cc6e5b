"""Metrics of one run on one evaluated part: accuracy or error, FairCOCCO scores, DEO and DI.

Every metric is computed on the whole part, so every method is judged on the same rows.

* Classification: ``accuracy``, ``balanced_accuracy``, ``auc`` (from ``predict_proba``; NaN
  without it or with one class in ``y_true``), ``base_rate`` (share of positive outcomes),
  ``positive_rate`` (share of positive predictions) and ``single_class`` (1.0 when every
  prediction is the same class: such a model is trivially "fair").
* Regression: ``mse``, ``prediction_spread``, the standard deviation of the predictions
  over that of the true outcome (NaN when the outcome is constant on the part), and
  ``outcome_variance``, the variance of the true outcome on the part: the MSE of predicting
  its mean, so ``1 − mse / outcome_variance`` is the part's R².
* Both: for each evaluated notion ``n`` (``dp``, ``eo`` and ``cal`` unless fewer are asked
  for): ``faircocco_<n>`` (all attributes
  jointly; of the positive class's probabilities when ``proba`` is given, as the AUC, else of
  the predictions), ``faircocco_<n>_adjusted`` (chance-adjusted), and per attribute
  ``faircocco_<n>[<attribute>]`` and ``faircocco_<n>_adjusted[<attribute>]``; ``deo`` and
  ``deo[<attribute>]``; ``di`` and ``di[<attribute>]``; ``di_ratio`` and
  ``di_ratio[<attribute>]``.

DEO is the paper's difference of equal opportunity,
``|P(Ŷ=1 | A=a, Y=1) − P(Ŷ=1 | A=b, Y=1)|``, the gap in true-positive rates. Groups are the
levels of a binary or categorical attribute (for more than two levels, the largest gap between
any two groups: highest minus lowest true-positive rate) and the two halves of a continuous
attribute split at its median on the evaluated part: the groupings of the fairness targets at
two quantile bins (:data:`PART_GROUPS`, :func:`faircocco_plugins.targets.group_measures`).
Groups without a positive outcome are left out; with fewer than two groups left the value is
NaN. ``deo`` is the largest ``deo[<attribute>]``.

DI is the disparate impact ratio ``min_g P(Ŷ=1 | A=g) / max_g P(Ŷ=1 | A=g)`` over the same
groups, in [0, 1], 1 meaning equal positive rates (and 1 when no group gets a positive
prediction); ``di`` is the smallest ``di[<attribute>]``.

``di_ratio`` is DI as the paper defines it, the discriminated group's positive-prediction rate
over the favoured group's (:func:`~faircocco_plugins.gaps.disparate_impact_ratio`: the groups
with the lowest and the highest share of positive outcomes on the part), which exceeds 1 when a
model over-corrects; ``di_ratio`` is the ``di_ratio[<attribute>]`` farthest from 1 (by the size
of its logarithm).

For regression, DEO and DI are computed the same way after binarising the outcome and the
prediction at the median of the true outcome on the evaluated part: "positive" means above the
median outcome.

With ``train_sensitive`` (the mixed-attribute study), the auditor's metrics of
:mod:`._audit` are added: DI and DEO on binned groups, deciles, intersections and the worst of
them, and HSIC and distance correlation between the predictions and the attributes, with
p-values.

A run is *degenerate* on a part (:func:`degenerate_runs`) when it predicts a single class there,
or, for regression, when its ``prediction_spread`` is below :data:`SPREAD_THRESHOLD` or its R²
(:func:`r_squared`) is at most :data:`R2_THRESHOLD`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._api import faircocco_report
from .._inputs.binary_labels import positive_labels
from .._records.notions import NOTIONS, TASKS, notion_named
from ..gaps import disparate_impact_ratios, farthest_from_parity
from ..targets import TargetSettings, group_measures
from ._audit import AUDIT_METRIC_RANGES, audit_metrics
from ._store import EVALUATED_PARTS

#: The notions whose scores a run is evaluated under, and a study runs, unless it names others:
#: the paper's three.
STUDIED_NOTIONS: tuple[str, ...] = ("dp", "eo", "cal")
#: Metrics of classification runs (besides the fairness ones).
CLASSIFICATION_METRICS: tuple[str, ...] = (
    "accuracy",
    "balanced_accuracy",
    "auc",
    "base_rate",
    "positive_rate",
    "single_class",
)
#: The groups DEO and DI are measured on: each attribute's levels, a continuous attribute's
#: halves at its median on the part (the paper's protocol).
PART_GROUPS = TargetSettings(bins=2)
#: Metrics of regression runs (besides the fairness ones).
REGRESSION_METRICS: tuple[str, ...] = ("mse", "prediction_spread", "outcome_variance")
#: A regression run whose predictions' standard deviation is below this share of the outcome's
#: is degenerate: its error is that of a constant, and its fairness scores (which do not depend
#: on the predictions' scale) measure noise.
SPREAD_THRESHOLD = 1e-3
#: A regression run whose R² on a part (:func:`r_squared`) is at most this is degenerate there:
#: it predicts no better than the part's mean outcome, so its low fairness scores are the
#: fairness of predicting nothing, not a trade-off it achieved.
R2_THRESHOLD = 0.01
#: The values each metric of a run can take when it is defined (shares, rates, scores and gaps
#: in [0, 1]; errors and variances non-negative); a per-attribute metric (``deo[sex]``) has
#: its base metric's range.
METRIC_RANGES: dict[str, tuple[float, float]] = {
    **dict.fromkeys(CLASSIFICATION_METRICS, (0.0, 1.0)),
    **dict.fromkeys(REGRESSION_METRICS, (0.0, math.inf)),
    **{f"faircocco_{n}{s}": (0.0, 1.0) for n in NOTIONS for s in ("", "_adjusted")},
    "deo": (0.0, 1.0),
    "di": (0.0, 1.0),
    "di_ratio": (0.0, math.inf),
    **AUDIT_METRIC_RANGES,
}


def metric_range(name: str) -> tuple[float, float] | None:
    """The values a metric of a run can take (:data:`METRIC_RANGES`), or None for a name that
    is not one.

    Examples
    --------
    >>> from faircocco_plugins.bench._metrics import metric_range
    >>> metric_range("deo[sex]"), metric_range("mse"), metric_range("training.accuracy")
    ((0.0, 1.0), (0.0, inf), None)
    """
    base = name.partition("[")[0] if name.endswith("]") else name
    return METRIC_RANGES.get(base)


def metric_names(
    task: str, attributes: Sequence[str], notions: Sequence[str] = STUDIED_NOTIONS
) -> list[str]:
    """The names of the metrics of a run, in the order :func:`evaluate_predictions` gives
    them without ``train_sensitive`` (the audit's metrics are not among them).

    Parameters
    ----------
    task : {"classification", "regression"}
    attributes : sequence of str
        The sensitive attributes' names.
    notions : sequence of {"dp", "eo", "cal"}, default all three
        The notions whose FairCOCCO scores are evaluated.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from faircocco_plugins.bench import metric_names
    >>> metric_names("regression", ["age"])[:4]
    ['mse', 'prediction_spread', 'outcome_variance', 'faircocco_dp']
    """
    if task not in TASKS:
        raise ValueError(f"task={task!r} is not valid; expected one of {list(TASKS)}.")
    _check_notions(notions)
    names = list(CLASSIFICATION_METRICS if task == "classification" else REGRESSION_METRICS)
    for notion in notions:
        names += [f"faircocco_{notion}", f"faircocco_{notion}_adjusted"]
        for attribute in attributes:
            names += [
                f"faircocco_{notion}[{attribute}]",
                f"faircocco_{notion}_adjusted[{attribute}]",
            ]
    for gap in ("deo", "di", "di_ratio"):
        names += [gap, *(f"{gap}[{a}]" for a in attributes)]
    return names


def evaluate_predictions(
    task: str,
    y_true: Any,
    y_pred: Any,
    sensitive: pd.DataFrame,
    *,
    proba: Any = None,
    notions: Sequence[str] = STUDIED_NOTIONS,
    random_state: int | None = 0,
    train_sensitive: pd.DataFrame | None = None,
) -> dict[str, float]:
    """Every metric of one run on one evaluated part (see the module description).

    Parameters
    ----------
    task : {"classification", "regression"}
    y_true : array-like of shape (n,)
        True outcomes: class labels 0/1, -1/1 or booleans, read together with ``y_pred`` as
        :func:`faircocco_plugins.plugins.positive_labels` reads them (classification), or
        numbers (regression).
    y_pred : array-like of shape (n,)
        Predicted labels or values.
    sensitive : pandas.DataFrame
        Sensitive attributes with their raw types.
    proba : array-like of shape (n,) or (n, 2), optional
        Predicted probability of the positive class (the last column when 2-D). The AUC and
        the FairCOCCO scores are computed on it; without it the scores are of ``y_pred``.
    notions : sequence of {"dp", "eo", "cal"}, default all three
        The notions whose FairCOCCO scores are evaluated. The harness asks for the notion a
        run was trained for: CAL of probabilities, and EO of a continuous outcome, average 20
        refits for their null (:func:`faircocco_plugins.faircocco_report`), which costs
        seconds per part at 20,000 rows.
    random_state : int, optional
        Seed of the FairCOCCO bandwidth sample, and of the audit's rows and permutations.
    train_sensitive : pandas.DataFrame, optional
        The training rows' sensitive attributes: when given, the auditor's metrics of
        :func:`~._audit.audit_metrics` are added, with the binned groups fitted on these rows.

    Returns
    -------
    dict of str to float

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import evaluate_predictions
    >>> y = np.array([1, 1, 0, 0, 1, 1, 0, 0])
    >>> y_hat = np.array([1, 1, 0, 0, 1, 0, 0, 1])
    >>> sex = pd.DataFrame({"sex": ["f", "f", "f", "f", "m", "m", "m", "m"]})
    >>> metrics = evaluate_predictions("classification", y, y_hat, sex)
    >>> metrics["accuracy"], metrics["deo"], metrics["di"]
    (0.75, 0.5, 1.0)
    """
    if task not in TASKS:
        raise ValueError(f"task={task!r} is not valid; expected one of {list(TASKS)}.")
    if not isinstance(sensitive, pd.DataFrame):
        raise TypeError(f"sensitive must be a pandas DataFrame; got {type(sensitive).__name__}.")
    _check_notions(notions)
    truth = _vector(y_true, "y_true")
    pred = _vector(y_pred, "y_pred")
    if not len(truth) == len(pred) == len(sensitive):
        raise ValueError(
            f"y_true, y_pred and sensitive must have the same length; got {len(truth)}, "
            f"{len(pred)} and {len(sensitive)}."
        )
    if len(truth) < 2:
        raise ValueError(f"at least 2 rows are needed to evaluate; got {len(truth)}.")
    sensitive = sensitive.reset_index(drop=True)
    metrics: dict[str, float] = {}
    if task == "classification":
        positive = positive_labels({"y_true": truth, "y_pred": pred})
        truth_b, pred_b = positive["y_true"], positive["y_pred"]
        scores = None if proba is None else _positive_scores(proba, truth.shape[0])
        metrics.update(_classification(truth_b, pred_b, scores))
        # the FairCOCCO scores judge what the AUC ranks, the probabilities, when they are
        # given: the labels of a model that puts every row in one class score 0 whatever its
        # probabilities do, which made such models look perfectly fair at a high AUC
        score_pred = pred_b.astype(float) if scores is None else scores
        score_true = truth_b.astype(float)
    else:
        truth_f = truth.astype(float)
        pred_f = pred.astype(float)
        metrics["mse"] = float(np.mean((truth_f - pred_f) ** 2))
        spread = float(np.std(truth_f))
        metrics["prediction_spread"] = float(np.std(pred_f)) / spread if spread > 0 else math.nan
        metrics["outcome_variance"] = float(np.var(truth_f))
        median = float(np.median(truth_f))
        truth_b, pred_b = truth_f > median, pred_f > median
        score_pred, score_true = pred_f, truth_f
    metrics.update(_faircocco(score_pred, score_true, sensitive, notions, random_state))
    for gap, worst in (("deo", max), ("di", min)):
        values = group_measures(gap, truth_b, pred_b, sensitive, settings=PART_GROUPS)["value"]
        metrics[gap] = _nan_extreme(values.tolist(), worst)
        metrics.update({f"{gap}[{a}]": float(value) for a, value in values.items()})
    di_ratio = disparate_impact_ratios(truth_b, pred_b, sensitive)
    metrics["di_ratio"] = farthest_from_parity(di_ratio)
    metrics.update({f"di_ratio[{a}]": value for a, value in di_ratio.items()})
    if train_sensitive is not None:
        metrics.update(
            audit_metrics(
                truth_b, pred_b, score_pred, sensitive, train_sensitive, random_state=random_state
            )
        )
    return metrics


def degenerate_runs(runs: pd.DataFrame, part: str = "test") -> pd.Series:
    """Which runs are degenerate on an evaluated part: one class, or no better than the mean.

    A classification run is degenerate when every prediction on the part is the same class
    (``<part>.single_class`` is 1): it scores as perfectly fair and, on imbalanced data, as
    accurate as the majority rate. A regression run is degenerate when its
    ``<part>.prediction_spread`` is below :data:`SPREAD_THRESHOLD`, or when its R² on the part
    (:func:`r_squared` of ``<part>.mse`` and ``<part>.outcome_variance``) is at most
    :data:`R2_THRESHOLD`: it predicts the outcome no better than the part's mean does, so it
    has next to nothing that could follow the attributes. A run without these values (failed,
    or stored before they were recorded) is not degenerate.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs as returned by :meth:`ResultsStore.runs`.
    part : {"validation", "test"}
        The evaluated part judged.

    Returns
    -------
    pandas.Series of bool
        Indexed like ``runs``.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench import degenerate_runs
    >>> runs = pd.DataFrame({
    ...     "test.single_class": [1.0, 0.0, None, None],
    ...     "test.prediction_spread": [None, None, 2e-4, 0.8],
    ...     "test.mse": [None, None, 1.0, 1.01],
    ...     "test.outcome_variance": [None, None, 1.0, 1.0],
    ... })
    >>> degenerate_runs(runs).tolist()
    [True, False, True, True]
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame; got {type(runs).__name__}.")
    if part not in EVALUATED_PARTS:
        raise ValueError(f"part={part!r} is not valid; expected one of {list(EVALUATED_PARTS)}.")

    def column(metric: str) -> pd.Series:
        name = f"{part}.{metric}"
        if name not in runs.columns:
            return pd.Series(math.nan, index=runs.index)
        return runs[name].astype(float)

    # comparisons with NaN are false: an unknown value is not degenerate
    return (
        (column("single_class") == 1.0)
        | (column("prediction_spread") < SPREAD_THRESHOLD)
        | (r_squared(column("mse"), column("outcome_variance")) <= R2_THRESHOLD)
    )


def r_squared(mse: pd.Series, outcome_variance: pd.Series) -> pd.Series:
    """R² of regression runs on a part: ``1 − mse / outcome_variance``.

    The baseline is the mean of the part's own outcome, whose MSE is the part's outcome
    variance. Predicting the training mean instead costs that variance plus the squared gap
    between the two means, so this R² is never above the one against the training mean: a
    model it calls no better than the mean is no better than the training mean either.

    Parameters
    ----------
    mse, outcome_variance : pandas.Series
        The runs' MSE and outcome variance on one part.

    Returns
    -------
    pandas.Series of float
        NaN where either value is missing or the outcome is constant on the part.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench._metrics import r_squared
    >>> r_squared(pd.Series([0.25, 1.02]), pd.Series([1.0, 1.0])).round(2).tolist()
    [0.75, -0.02]
    """
    variance = outcome_variance.astype(float)
    return 1.0 - mse.astype(float) / variance.where(variance > 0)


def majority_rate(base_rate: Any) -> Any:
    """The accuracy of always predicting the majority class: the larger of ``base_rate`` and
    one minus it.

    Parameters
    ----------
    base_rate : float, numpy.ndarray or pandas.Series
        Shares of positive outcomes.

    Returns
    -------
    Same type as ``base_rate``.

    Examples
    --------
    >>> from faircocco_plugins.bench._metrics import majority_rate
    >>> float(majority_rate(0.11))
    0.89
    """
    return np.maximum(base_rate, 1.0 - base_rate)


def _positive_scores(proba: Any, n: int) -> np.ndarray:
    """The positive class's probabilities from ``proba`` of shape (n,) or (n, 2)."""
    scores = np.asarray(proba, dtype=float)
    if scores.ndim == 2 and scores.shape[1] == 2:
        scores = scores[:, 1]
    if scores.shape != (n,):
        raise ValueError(
            f"proba must have shape (n,) or (n, 2) with n={n}; got {np.asarray(proba).shape}."
        )
    if not np.isfinite(scores).all():
        raise ValueError("proba has NaN or infinite values; pass finite probabilities.")
    return scores


def _classification(
    truth: np.ndarray, pred: np.ndarray, scores: np.ndarray | None
) -> dict[str, float]:
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    both = np.unique(truth).size == 2
    auc = math.nan if scores is None or not both else float(roc_auc_score(truth, scores))
    return {
        "accuracy": float(np.mean(truth == pred)),
        # with one class in y_true, balanced accuracy is that class's recall
        "balanced_accuracy": float(balanced_accuracy_score(truth, pred)) if both else math.nan,
        "auc": auc,
        "base_rate": float(truth.mean()),
        "positive_rate": float(pred.mean()),
        "single_class": float(np.unique(pred).size <= 1),
    }


def _check_notions(notions: Sequence[str]) -> None:
    if isinstance(notions, str) or not notions or any(n not in NOTIONS for n in notions):
        raise ValueError(
            f"notions={notions!r} is not valid; expected a non-empty sequence of {list(NOTIONS)}."
        )


#: The start of the core's warning that a chance level is undefined (too few rows).
_NO_CHANCE_LEVEL = "Too few rows for a chance level"


def _faircocco(
    y_pred: np.ndarray,
    y_true: np.ndarray,
    sensitive: pd.DataFrame,
    notions: Sequence[str],
    random_state: int | None,
) -> dict[str, float]:
    metrics: dict[str, float] = {}
    names = [str(c) for c in sensitive.columns]
    frame = sensitive.set_axis(names, axis=1)
    for notion in notions:
        with warnings.catch_warnings():
            # a part too small for a chance level records its adjusted scores as NaN; a cell
            # is not the place to say so once per part and notion
            warnings.filterwarnings("ignore", _NO_CHANCE_LEVEL, UserWarning)
            report = faircocco_report(
                y_pred,
                frame,
                y_true=notion_named(notion).outcome(y_true),
                notion=notion,
                random_state=random_state,
            )
        scores = report["score"].astype(float)
        adjusted = report["adjusted"].astype(float)
        metrics[f"faircocco_{notion}"] = float(scores["joint"])
        metrics[f"faircocco_{notion}_adjusted"] = float(adjusted["joint"])
        for name in names:
            metrics[f"faircocco_{notion}[{name}]"] = float(scores[name])
            metrics[f"faircocco_{notion}_adjusted[{name}]"] = float(adjusted[name])
    return metrics


def _vector(values: Any, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {array.shape}.")
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise ValueError(f"{name} contains NaN or infinite values.")
    return array


def _nan_extreme(values: list[float], pick: Any) -> float:
    finite = [v for v in values if not math.isnan(v)]
    return float(pick(finite)) if finite else math.nan
