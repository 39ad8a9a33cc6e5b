"""Fairness measured as an auditor would: on other groups than a method trained for, and by
dependence estimators that are not FairCOCCO.

:func:`audit_metrics` adds, on each evaluated part, for DI and DEO (``m`` below: ``di`` or
``deo``, of the positive decisions :func:`~._metrics.evaluate_predictions` judges, with a
regression's outcome and predictions cut at the part's median outcome as there):

* ``m_groups[<scheme>]``: on the groups the binned baselines train on
  (:mod:`._binning`): continuous attributes cut at the training rows' median or quartiles,
  crossed with the others, kept as the intersections below are;
* ``m_deciles[<attribute>]``, ``m_intersections`` and ``m_worst``: on the groupings of the
  fairness targets at :data:`FINE_GROUPS`: the deciles of each continuous attribute on the
  part; every intersection of the attributes' groups (deciles of the continuous ones, levels
  of the others) kept as :class:`~faircocco_plugins.targets.TargetSettings` keeps them (at
  least ``min_rows`` rows on the part, DEO: positive outcomes; NaN with one attribute, or
  fewer than two such intersections); and the worst of every attribute's grouping and the
  intersections: the smallest DI, the largest DEO.

Groups and values come from :func:`faircocco_plugins.targets.group_measures`.

And the dependence between the predictions (the positive class's probability where a classifier
gives one, else the predicted labels or values) and all attributes jointly (nominal ones one-hot,
continuous ones standardised), on at most :data:`DEPENDENCE_ROWS` random rows of the part (the
same rows for every method of a seed): the estimators cost the square of the rows, and the
permutation test that many times more; at 500 rows and 99 permutations it takes about a second
a part, at 1,000 rows four:

* ``hsic`` and ``hsic_p_value``: the biased HSIC with Gaussian kernels of median-heuristic
  widths, and the p-value of its gamma approximation (Gretton et al., *A kernel statistical
  test of independence*, NIPS 2008), :func:`hsic_test`;
* ``dcor`` and ``dcor_p_value``: distance correlation (Székely, Rizzo and Bakirov, 2007) and
  the p-value of a permutation test of :data:`DCOR_RESAMPLES` permutations, both by the
  ``dcor`` package, :func:`dcor_test`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats
from scipy.spatial.distance import pdist, squareform

from .._inputs.column_kinds import attribute_kind
from ..targets import TargetSettings, group_measures
from ._binning import GROUP_SCHEMES, MIN_GROUP_ROWS, fit_group_bins

#: Quantile bins of a continuous attribute in the finer grouping.
FINE_BINS = 10
#: Rows (DEO: positive outcomes) a group or intersection needs on a part to be judged.
MIN_ROWS = MIN_GROUP_ROWS
#: Rows of a part the dependence estimators use at most.
DEPENDENCE_ROWS = 500
#: The finer groupings: deciles, and intersections of at least :data:`MIN_ROWS` rows.
FINE_GROUPS = TargetSettings(bins=FINE_BINS, intersections=True, min_rows=MIN_ROWS)
#: Permutations of the distance-correlation test.
DCOR_RESAMPLES = 99
#: The group measures, and whether a larger value is worse.
_MEASURES = {"di": False, "deo": True}

#: The range of each audit metric (see :data:`~._metrics.METRIC_RANGES`).
AUDIT_METRIC_RANGES: dict[str, tuple[float, float]] = {
    **{
        f"{measure}_{grouping}": (0.0, 1.0)
        for measure in _MEASURES
        for grouping in ("groups", "deciles", "intersections", "worst")
    },
    "hsic": (0.0, 1.0),
    "hsic_p_value": (0.0, 1.0),
    "dcor": (0.0, 1.0),
    "dcor_p_value": (0.0, 1.0),
}


def audit_metrics(
    truth: np.ndarray,
    decisions: np.ndarray,
    predictions: np.ndarray,
    sensitive: pd.DataFrame,
    train_sensitive: pd.DataFrame,
    *,
    random_state: int | None = 0,
) -> dict[str, float]:
    """The auditor's metrics of one run on one part (see the module description).

    Parameters
    ----------
    truth, decisions : numpy.ndarray of bool, shape (n,)
        Positive outcomes and positive decisions on the part.
    predictions : numpy.ndarray of float, shape (n,)
        What the dependence estimators measure: probabilities, labels or values.
    sensitive : pandas.DataFrame
        The part's sensitive attributes with their raw types.
    train_sensitive : pandas.DataFrame
        The training rows' attributes, on which the binned groups are fitted.
    random_state : int, optional
        Seed of the rows the dependence estimators use, and of the permutations.

    Returns
    -------
    dict of str to float

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from faircocco_plugins.bench._audit import audit_metrics
    >>> rng = np.random.default_rng(0)
    >>> people = pd.DataFrame({"sex": rng.choice(["f", "m"], 400), "age": rng.uniform(18, 80, 400)})
    >>> truth = rng.random(400) < 0.5
    >>> decisions = (people["age"] > people["age"].median()).to_numpy()  # the older half only
    >>> metrics = audit_metrics(truth, decisions, decisions.astype(float), people, people)
    >>> metrics["di_groups[median]"], metrics["di_groups[quartiles]"], metrics["di_deciles[age]"]
    (0.0, 0.0, 0.0)
    """
    metrics: dict[str, float] = {}
    for scheme in GROUP_SCHEMES:
        groups = fit_group_bins(train_sensitive, scheme).labels(sensitive)
        for measure in _MEASURES:
            kept = _judged(groups, truth if measure == "deo" else np.ones_like(truth))
            frame = pd.DataFrame({"group": groups[kept]})
            table = group_measures(measure, truth[kept], decisions[kept], frame)
            metrics[f"{measure}_groups[{scheme}]"] = float(table["value"].iloc[0])
    for measure, larger_is_worse in _MEASURES.items():
        metrics.update(_finer_groupings(measure, larger_is_worse, truth, decisions, sensitive))
    metrics.update(_dependence(predictions, sensitive, random_state))
    return metrics


def _judged(groups: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """The rows of the groups with at least :data:`MIN_ROWS` counted rows (all rows for DI,
    positive outcomes for DEO), as :func:`~faircocco_plugins.targets.group_measures` keeps
    intersections (:data:`FINE_GROUPS`): a crossed group of a few rows has a rate of 0 or 1 by
    chance."""
    counts = pd.Series(groups[counted]).value_counts()
    return np.isin(groups, counts.index[counts >= MIN_ROWS])


def _finer_groupings(
    measure: str,
    larger_is_worse: bool,
    truth: np.ndarray,
    decisions: np.ndarray,
    sensitive: pd.DataFrame,
) -> dict[str, float]:
    """``m_deciles[<attribute>]``, ``m_intersections`` and ``m_worst`` of one measure."""
    table = group_measures(measure, truth, decisions, sensitive, settings=FINE_GROUPS)
    values = table["value"].astype(float)
    metrics = {
        f"{measure}_deciles[{name}]": float(values[str(name)])
        for name, column in sensitive.items()
        if attribute_kind(column) == "continuous"
    }
    metrics[f"{measure}_intersections"] = float(values.get("intersections", math.nan))
    known = values.dropna()
    worst = known.max() if larger_is_worse else known.min()
    metrics[f"{measure}_worst"] = float(worst) if not known.empty else math.nan
    return metrics


def _dependence(
    predictions: np.ndarray, sensitive: pd.DataFrame, random_state: int | None
) -> dict[str, float]:
    """HSIC and distance correlation, with p-values, on a sample of the part's rows."""
    rows = len(predictions)
    chosen = np.arange(rows)
    if rows > DEPENDENCE_ROWS:
        rng = np.random.default_rng(random_state)
        chosen = np.sort(rng.choice(rows, size=DEPENDENCE_ROWS, replace=False))
    x = np.asarray(predictions, dtype=np.float64)[chosen].reshape(-1, 1)
    y = attribute_matrix(sensitive.iloc[chosen])
    hsic, hsic_p = hsic_test(x, y)
    dcor, dcor_p = dcor_test(x, y, random_state=random_state)
    return {"hsic": hsic, "hsic_p_value": hsic_p, "dcor": dcor, "dcor_p_value": dcor_p}


def attribute_matrix(sensitive: pd.DataFrame) -> np.ndarray:
    """The attributes as numbers: continuous ones standardised, the others one-hot.

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench._audit import attribute_matrix
    >>> attribute_matrix(pd.DataFrame({"sex": ["f", "m", "m"], "age": [20.0, 30.0, 40.0]}))
    array([[ 1.        ,  0.        , -1.22474487],
           [ 0.        ,  1.        ,  0.        ],
           [ 0.        ,  1.        ,  1.22474487]])
    """
    blocks = []
    for _, column in sensitive.items():
        if attribute_kind(column) == "continuous":
            values = column.to_numpy(dtype=np.float64)
            spread = values.std()
            blocks.append(((values - values.mean()) / (spread if spread > 0 else 1.0))[:, None])
        else:
            blocks.append(pd.get_dummies(column.astype(str)).to_numpy(dtype=np.float64))
    return np.hstack(blocks)


def hsic_test(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """HSIC between the rows of ``x`` and ``y``, and the p-value of its gamma approximation.

    Gaussian kernels ``exp(−‖a − b‖² / m)`` with ``m`` the median of the positive squared
    distances between rows (Gretton et al.'s width, ``σ² = m / 2``); the statistic is the
    biased estimate ``tr(K H L H) / n²`` and the p-value that of ``n`` times it under a gamma
    distribution with the mean and variance of its null (Gretton et al., NIPS 2008). A constant
    ``x`` or ``y`` gives 0 and p-value 1.

    Parameters
    ----------
    x, y : numpy.ndarray of shape (n, p) and (n, q)
        At least 6 rows.

    Returns
    -------
    hsic, p_value : float

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_plugins.bench._audit import hsic_test
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 1))
    >>> hsic, p_value = hsic_test(x, x ** 2 + 0.1 * rng.normal(size=(200, 1)))
    >>> p_value < 1e-6
    True
    """
    n = _rows(x, y)
    gram_x, gram_y = _gaussian_gram(x), _gaussian_gram(y)
    if gram_x is None or gram_y is None:
        return 0.0, 1.0
    centred_x, centred_y = _centred(gram_x), _centred(gram_y)
    products = centred_x * centred_y
    statistic = float(products.sum()) / n
    variance = (products / 6.0) ** 2
    variance = (variance.sum() - np.trace(variance)) / n / (n - 1)
    variance *= 72.0 * (n - 4) * (n - 5) / n / (n - 1) / (n - 2) / (n - 3)
    mean_x = (gram_x.sum() - np.trace(gram_x)) / n / (n - 1)
    mean_y = (gram_y.sum() - np.trace(gram_y)) / n / (n - 1)
    mean = (1.0 + mean_x * mean_y - mean_x - mean_y) / n
    shape, scale = mean**2 / variance, variance * n / mean
    p_value = float(stats.gamma.sf(statistic, shape, scale=scale))
    return max(statistic / n, 0.0), p_value


def _rows(x: np.ndarray, y: np.ndarray) -> int:
    if x.ndim != 2 or y.ndim != 2 or x.shape[0] != y.shape[0]:
        raise ValueError(
            f"x and y must be 2-D with the same number of rows; got shapes {x.shape} and {y.shape}."
        )
    if x.shape[0] < 6:
        raise ValueError(f"the HSIC test needs at least 6 rows; got {x.shape[0]}.")
    return int(x.shape[0])


def _constant(values: np.ndarray) -> bool:
    return bool((values == values[0]).all())


def _gaussian_gram(values: np.ndarray) -> np.ndarray | None:
    """The Gaussian kernel matrix of median-heuristic width, or None when every row is the
    same (no positive distance)."""
    squared = pdist(values, "sqeuclidean")
    positive = squared[squared > 0]
    if positive.size == 0:
        return None
    return np.exp(-squareform(squared) / np.median(positive))


def _centred(gram: np.ndarray) -> np.ndarray:
    """``H K H`` with ``H = I − 11ᵀ / n``."""
    return gram - gram.mean(axis=0) - gram.mean(axis=1)[:, None] + gram.mean()


def dcor_test(x: np.ndarray, y: np.ndarray, *, random_state: int | None = 0) -> tuple[float, float]:
    """Distance correlation between the rows of ``x`` and ``y``, and the p-value of a
    permutation test of :data:`DCOR_RESAMPLES` permutations (the ``dcor`` package).

    Parameters
    ----------
    x, y : numpy.ndarray of shape (n, p) and (n, q)
    random_state : int, optional
        Seed of the permutations.

    Returns
    -------
    dcor, p_value : float
        0 and 1 when ``x`` or ``y`` is constant.

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_plugins.bench._audit import dcor_test
    >>> x = np.arange(20.0).reshape(-1, 1)
    >>> dcor_test(x, x ** 2)  # doctest: +SKIP
    (0.97..., 0.01)
    """
    try:
        import dcor
    except ImportError as error:
        raise ImportError(
            "the distance correlation needs the dcor package, in the harness's extra: pip "
            'install "faircocco-plugins[bench]"'
        ) from error
    _rows(x, y)
    if _constant(x) or _constant(y):
        # every permutation then ties with the statistic, which dcor's test counts as dependence
        return 0.0, 1.0
    value = float(dcor.distance_correlation(x, y))
    test = dcor.independence.distance_covariance_test(
        x, y, num_resamples=DCOR_RESAMPLES, random_state=random_state
    )
    return min(max(value, 0.0), 1.0), float(test.pvalue)
