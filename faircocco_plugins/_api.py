"""The public functions: score, statistic, report and permutation test."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from ._estimators.approximate_null import WidthsNull
from ._estimators.local_null import LocalPermutationFit
from ._estimators.spectral_null import spectral_null
from ._estimators.strata import members_of, permutation_batches
from ._estimators.terms import Route, Terms
from ._inputs.output import as_output
from ._inputs.variables import JOINT_ROW
from ._linalg.backend import as_numpy_scalar, namespace
from ._linalg.threads import in_memory_on_one_blas_thread
from ._options import Choice, Options, StatisticKeywords, statistic_default, takes_options
from ._records.notions import notion_named
from ._records.params import Interval, check_bool, check_params
from ._routes.dispatch import call_terms
from ._routes.problem import Problem


@in_memory_on_one_blas_thread
@takes_options("score", after="y_true")
def faircocco_statistic(
    y_pred: Any,
    sensitive_features: Any,
    *,
    y_true: Any = None,
    data: Any = None,
    **keywords: Unpack[StatisticKeywords],
) -> Any:
    """The unnormalised FairCOCCO statistic ``I_F``, the squared Hilbert-Schmidt norm.

    This is the quantity the paper uses as a regulariser. It is not bounded; use
    :func:`faircocco_score` to compare across datasets. Arguments are those of
    :func:`faircocco_score`.

    Returns
    -------
    float or array
        A float for numpy/pandas input; a 0-d tensor for torch input, differentiable with
        respect to ``y_pred``.

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_plugins import faircocco_statistic
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=300)
    >>> faircocco_statistic(a + rng.normal(size=300), a) > 0
    True
    """
    options = Options.check(**keywords)
    terms = call_terms(y_pred, sensitive_features, y_true, data, options)[JOINT_ROW]
    return as_output(terms.statistic, y_pred)


@in_memory_on_one_blas_thread
@takes_options("score", after="y_true", document=True)
def faircocco_score(
    y_pred: Any,
    sensitive_features: Any,
    *,
    y_true: Any = None,
    adjusted: bool = False,
    data: Any = None,
    **keywords: Unpack[StatisticKeywords],
) -> Any:
    """The FairCOCCO score: normalised (conditional) dependence, in [0, 1].

    0 means the predictions carry no information on the sensitive attributes (DP), none beyond
    the true outcome (EO), or the outcome carries none beyond the prediction (CAL); 1 means the
    kernel operators are linearly dependent.

    Parameters
    ----------
    y_pred : array-like or tensor of shape (n,) or (n, k)
        Predictions: scores, probabilities, labels or regression outputs. A tensor makes the
        result a tensor in its namespace and device; with numpy or pandas predictions, tensors
        among the other inputs are copied to numpy.
    sensitive_features : array-like, Series or DataFrame of shape (n,) or (n, d)
        Sensitive attributes of any mix of types. Numeric columns get a Gaussian kernel;
        bool, categorical and string columns a delta kernel (integers are numbers: pass a
        categorical dtype for nominal codes). Numbers stored as text or objects are labels,
        with a warning that says how to declare them.
    y_true : array-like of shape (n,) or (n, k), optional
        True outcomes; required for every notion but ``"dp"``, and checked whenever given;
        class labels under ``"eopp"``, which measures the rows of the positive class.
        Pandas inputs pair their rows by index label (equal indexes as given, the same labels
        in another order aligned to the first pandas input, others refused); other inputs by
        position, and are refused beside pandas inputs in different orders. The user guide's
        "Inputs" section has the rules.
    adjusted : bool
        Return the chance-adjusted score ``max(0, (score − null_mean) / (1 − null_mean))``, where
        ``null_mean`` is the expected score under permutations of the attribute rows. It removes
        the finite-sample floor of the raw score, so values at different N are comparable.
        NaN, with a warning, where no permutation changes the score (2 rows; under EO and CAL,
        levels of the conditioning variable of one row but at most one of two) or every one
        gives a score of 1 (labels that tell every row apart): there is no chance level.
    data : DataFrame, Dask DataFrame or iterable of DataFrames, optional
        When given, ``y_pred``, ``sensitive_features`` (a list) and ``y_true`` are column names.
        An iterable of chunks (``pandas.read_csv(..., chunksize=...)``) is reduced in one pass
        with the low-rank estimator; bandwidths and pivots come from its first 10,000 rows
        (a stream of no more rows is scored in memory), whatever the chunk size. A Dask
        DataFrame is reduced partition by partition where its partitions live (on the cluster
        of an active ``distributed.Client``), and only ``r × r`` blocks travel.

    Returns
    -------
    float or array
        A float for numpy/pandas input; a 0-d tensor (differentiable) for torch input.
        Constant sensitive attributes give 0.0 under every notion, and so do constant
        predictions under DP and EO; under CAL, constant predictions condition on nothing, so
        the score is the DP score of the outcome.

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_plugins import faircocco_score
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.integers(0, 2, 500).astype(bool)
    >>> age = rng.uniform(18, 80, 500)
    >>> y_pred = 0.5 * sex + age / 80 + rng.normal(scale=0.3, size=500)
    >>> 0.0 <= faircocco_score(y_pred, np.column_stack([sex, age])) <= 1.0
    True
    """
    options = Options.check(**keywords)
    adjusted = check_bool(adjusted, "adjusted")
    terms = call_terms(y_pred, sensitive_features, y_true, data, options)[JOINT_ROW]
    score = _bounded(terms.score())
    if adjusted:
        score = terms.adjusted(score)
    return as_output(score, y_pred)


@in_memory_on_one_blas_thread
@takes_options("score", after="y_true")
def faircocco_report(
    y_pred: Any,
    sensitive_features: Any,
    *,
    y_true: Any = None,
    data: Any = None,
    **keywords: Unpack[StatisticKeywords],
) -> pd.DataFrame:
    """Scores for all sensitive attributes jointly and for each one alone.

    Arguments are those of :func:`faircocco_score`. With ``data`` an iterable of chunks or a
    Dask DataFrame, every row of the report is reduced in the same single pass, each with the
    bandwidths and pivots of the first 10,000 rows.

    Returns
    -------
    pandas.DataFrame
        Index ``"joint"`` (all attributes together) then one row per attribute, labelled by
        its name (``sensitive_features['joint']`` for an attribute named ``"joint"``, so that
        no name hides the joint row); columns ``score``, ``adjusted``,
        ``null_mean`` (expected score under permutations of the attribute rows; with
        ``adjusted``, NaN where there is no chance level, as for the score), ``statistic``
        (unnormalised ``I_F``), ``method``, ``rank`` (largest feature dimension; the exact
        estimator's is the numerical rank of its kernel matrix, at most N) and ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from faircocco_plugins import faircocco_report
    >>> rng = np.random.default_rng(0)
    >>> attributes = pd.DataFrame(
    ...     {"sex": rng.choice(["f", "m"], 400), "age": rng.uniform(18, 80, 400)}
    ... )
    >>> y_pred = (attributes["sex"] == "m") + rng.normal(scale=0.5, size=400)
    >>> report = faircocco_report(y_pred, attributes)
    >>> list(report.index)
    ['joint', 'sex', 'age']
    """
    options = Options.check(**keywords)
    rows = call_terms(y_pred, sensitive_features, y_true, data, options, report=True)
    return pd.DataFrame.from_dict(
        {name: _report_row(t) for name, t in rows.items()}, orient="index"
    )


#: The test's default kernel widths, as multiples of the bandwidth: the median distance alone.
#: Three widths (0.5, 1, 2) found 5 to 11 points more of weak dependence in 300 rows, at 4 to
#: 6.5 times the time (see :func:`independence_test`).
TEST_WIDTHS = (1.0,)


def _progress_bar(total: int, desc: str, enabled: bool) -> Any:
    """A tqdm bar that a log or pipe gets once at its start and once at its end: there every
    redraw stays, and a bar redrawn as it finishes and again as it closes shows 100% twice."""
    live = sys.stderr.isatty() or any(k.__module__ == "tqdm.notebook" for k in tqdm.__mro__)
    return tqdm(total=total, desc=desc, disable=not enabled, mininterval=0.1 if live else math.inf)


@dataclass(frozen=True)
class IndependenceTestResult:
    """Result of :func:`independence_test`.

    Attributes
    ----------
    statistic : numpy.ndarray of shape (W,)
        The observed unnormalised statistic ``I_F`` at each of the ``W`` kernel widths.
    score : float
        The observed FairCOCCO score at the test's ``eps`` (1.0 by default) and the bandwidth as
        given (width 1), which is not the score's default ``eps`` 1e-4: call
        :func:`faircocco_score` for the paper's scale.
    pvalue : float
        The p-value of the smallest per-width p-value: under the permutation null, calibrated
        by the same permutations (with one width, ``(1 + #{T_b >= T}) / (1 + B)``); under the
        gamma and spectral nulls, each width's p-value from its shifted gamma distribution or
        its weighted sum of χ²₁ variables, and their smallest calibrated by a Gaussian copula
        of the widths' null correlations.
    null_distribution : numpy.ndarray of shape (B, W)
        The permuted statistics ``T_b`` at each width; no rows (``B = 0``) under the gamma and
        spectral nulls, which permute nothing.
    widths : tuple of float
        The kernel widths, as multiples of the bandwidth.
    null : {"permutation", "gamma", "spectral"}
        The null distribution the p-value comes from: the one asked for, or the one
        ``null="auto"`` chose.
    """

    statistic: np.ndarray
    score: float
    pvalue: float
    null_distribution: np.ndarray
    widths: tuple[float, ...]
    null: str = "permutation"


@in_memory_on_one_blas_thread
@takes_options(
    "test",
    # the test's own parameters among the options: its seed seeds the permutations too
    order=(
        "y_true",
        "notion",
        "n_permutations",
        "random_state",
        "method",
        "rank",
        "eps",
        "conditioning_eps",
        "attribute_kernel",
        "kernel",
        "bandwidth",
        "widths",
        "null",
        "progress",
    ),
)
def independence_test(
    y_pred: Any,
    sensitive_features: Any,
    *,
    y_true: Any = None,
    n_permutations: int | None = None,
    widths: Sequence[float] = TEST_WIDTHS,
    null: str = "auto",
    progress: bool = False,
    **keywords: Unpack[StatisticKeywords],
) -> IndependenceTestResult:
    """Test of (conditional) independence with the FairCOCCO statistic.

    Three null distributions (``null``):

    * **permutation**: DP permutes the attribute rows. EO and CAL permute them within strata of
      the conditioning variable: its levels when it is discrete, where the kernel factors are
      computed once and each permutation costs O(N r²), r the features' width (at most N
      for the exact estimator); cells of
      about 10 nearest rows when it is continuous, where each permutation refits the attribute
      side (a local permutation test, see the user guide);
    * **gamma**: the same permutation null's mean and variance, exact, and its skewness in the
      Gaussian limit, computed from the estimator's factors in O(N r²) with no permutation,
      and the shifted gamma distribution with these three moments (Pearson's three-moment
      approximation; "How FairCOCCO works" derives it). With a continuous conditioning
      variable, the moments approximate those of the attributes permuted alone within the
      cells, from their features at every pair of rows of a cell;
    * **spectral**: the statistic's asymptotic law under (conditional) independence, a weighted
      sum of χ²₁ variables whose weights are the eigenvalues of the covariance of the products
      of the two sides' features, each residualised on the conditioning variable by the
      statistic's ridge regression, with Lindsay, Pilla and Basak's moment approximation of
      its tail (as KCI and RCoT; "How FairCOCCO works" derives it). It needs no strata, and
      costs O(N r²) for the features and O(N k²) for ``k ≤ 256`` products per width. Under EO
      and CAL it holds its level only with a nearly unregularised conditioning
      (``conditioning_eps`` of at most about 1e-3, the test's default 1e-5 included): a
      larger ridge leaves a drift.

    Several kernel widths are tested at once, and the p-value is that of the smallest
    per-width p-value (a minimum-p aggregation; Westfall and Young 1993, as in Schrab et al.'s
    aggregated kernel tests, 2022): under the permutation null, among the observed and permuted
    data, which keeps the level exact for any number of widths; under the gamma and spectral
    nulls, from a Gaussian copula with the widths' correlations under the same null.

    Parameters
    ----------
    n_permutations : int, optional
        Number ``B`` of permutations of the permutation null; by default 1000. Giving it asks
        for that null: ``null="auto"`` then permutes, and ``null="gamma"`` or
        ``null="spectral"``, which permute nothing, raise a ValueError.
    eps : float
        Regularisation ε of the statistic. The default 1.0, larger than the score's 1e-4, is
        for power (:ref:`statistic-options`; ``benchmarks/independence_test.py`` and the
        performance page have the measurements).
    conditioning_eps : float, optional
        ε of the conditioning variable's operator under EO and CAL. The default 1e-5
        conditions almost exactly, as KCI's and RCIT's residual regressions do; ``None``
        takes ``eps``.
    attribute_kernel : {"joint", "product"}
        The default ``"joint"`` (one Gaussian on the standardised attributes, nominal columns
        one-hot, as KCI and RCIT take them) found a continuous attribute's effect among three
        mixed attributes far more often than ``"product"``, which spreads the power over every
        combination of levels (the performance page).
    rank : int, optional
        Cap on the pivots of each continuous low-rank factor, the conditioning variable's
        included. The default 10 keeps the features near the size of RCIT's: with three mixed
        attributes and a continuous outcome the test took 1.3 to 1.8 times RCIT's time at 300
        to 2,000 rows, where ``rank=None`` (the kernel's default, up to 100 pivots) took 6 to
        9 times; ten pivots lost no power at 300 rows and five did (the performance page).
    widths : sequence of float
        Kernel widths of the measured variable and the attributes, as multiples of
        ``bandwidth`` (the median distance by default). The default ``(1.0,)`` tests at the
        score's kernel. Several widths see more: ``(0.5, 1.0, 2.0)`` adds smooth dependence,
        which wider kernels see best, and fine dependence, which narrower ones do, and found
        weak dependence in 300 rows 5 to 11 points more often, at 4 to 6.5 times the time
        (the performance page). Each width costs one more statistic per permutation, or one
        more set of cumulants.
    null : {"auto", "permutation", "gamma", "spectral"}
        The null distribution. ``"auto"`` takes the permutation null when ``n_permutations``
        is given; otherwise the first null whose level was measured within [0.03, 0.07] at
        the 5% level (the performance page), each at the default ``eps``: the spectral null
        from 300 rows, under DP and, up to 100,000 rows (5,000 at other ``widths`` or
        ``rank``), under EO and CAL with a ``conditioning_eps`` of at most 1e-3 (the default
        included); the gamma null from 100 rows at the test's defaults, under DP and with a
        discrete conditioning variable, and below 300 rows with a continuous one (a
        continuous outcome under EO, continuous predictions under CAL) at the default
        ``widths`` and ``rank`` too; elsewhere the permutation null: with a continuous
        conditioning variable at other widths or ranks below 300 rows, where the gamma null's
        moments are approximate and it rejected up to 11% of fair predictors at three widths,
        above the rows the spectral null was measured at, and with a larger
        ``conditioning_eps``, where the spectral null rejected nearly all. The result says
        which one it used.
    random_state : int, optional
        Seed of the permutations (and of the bandwidth sample).
    progress : bool
        Show a progress bar of the permutations.

    Other parameters are those of :func:`faircocco_score`.

    Returns
    -------
    IndependenceTestResult

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_plugins import independence_test
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=200)
    >>> result = independence_test(a + rng.normal(size=200), a, random_state=0)
    >>> result.null, result.pvalue < 0.05
    ('gamma', True)
    >>> permuted = independence_test(a + rng.normal(size=200), a, null="permutation")
    >>> permuted.null_distribution.shape
    (1000, 1)
    """
    if n_permutations is not None:
        check_params({"n_permutations": n_permutations}, {"n_permutations": Interval("integer", 1)})
    Choice(NULLS).check(null, "null")
    if null in ("gamma", "spectral") and n_permutations is not None:
        raise ValueError(
            f"n_permutations={n_permutations} asks for permutations, but null={null!r} takes "
            "its p-value from moments and permutes nothing: pass null='permutation' (or "
            f"'auto') to permute, or leave out n_permutations for the {null} null."
        )
    progress = check_bool(progress, "progress")
    widths = _check_widths(widths)
    options = Options.check(**keywords)
    problem = Problem.from_arguments(y_pred, sensitive_features, y_true, options)
    fits = [problem.fit(width) for width in widths]
    if null == "auto":
        null = _automatic_null(fits[0], options, widths, n_permutations)
    observed = np.asarray([as_numpy_scalar(fit.terms.statistic) for fit in fits])
    if null == "gamma":
        permuted = np.empty((0, len(fits)))
        # the strata come from the conditioning variable, whose bandwidth no width changes
        null_of_widths = WidthsNull.of([fit.null_factors() for fit in fits], fits[0].strata)
        pvalue = null_of_widths.pvalue(observed.tolist())
    elif null == "spectral":
        permuted = np.empty((0, len(fits)))
        pvalue = spectral_null(fit.residual_features() for fit in fits).pvalue(observed.tolist())
    else:
        rng = np.random.default_rng(options.random_state)
        count = PERMUTATIONS if n_permutations is None else n_permutations
        permuted = _permuted_statistics(fits, rng, count, progress)
        pvalue = _minimum_p_value(observed, permuted)
    at_bandwidth = fits[widths.index(1.0)] if 1.0 in widths else problem.fit()
    return IndependenceTestResult(
        statistic=observed,
        score=as_numpy_scalar(_bounded(at_bandwidth.terms.score())),
        pvalue=pvalue,
        null_distribution=permuted,
        widths=widths,
        null=null,
    )


#: The nulls of :func:`independence_test`.
NULLS = ("auto", "permutation", "gamma", "spectral")
#: Permutations of the permutation null when :func:`independence_test` is given no number.
PERMUTATIONS = 1000
#: Fewest rows at which ``null="auto"`` takes the gamma null (its level was measured from here).
GAMMA_FROM_ROWS = 100
#: Fewest rows at which ``null="auto"`` takes the spectral null: at 100 rows, with three
#: attributes, it rejected 2.4% (DP) and 1.4% (EO) of fair data, a conservative null.
SPECTRAL_FROM_ROWS = 300
#: Most rows at which ``null="auto"`` takes the spectral null under EO and CAL at the test's
#: default ``widths`` and ``rank`` (its level was measured up to here; the conditioning ridge's
#: drift grows with N) ...
SPECTRAL_CONDITIONAL_TO_ROWS = 100_000
#: ... and at other widths or ranks.
SPECTRAL_CONDITIONAL_TO_ROWS_ELSEWHERE = 5000
#: Largest ``conditioning_eps`` at which ``null="auto"`` takes the spectral null under EO and
#: CAL: a larger ridge leaves a drift that its central weighted sum lacks.
SPECTRAL_CONDITIONING_EPS = 1e-3


def _automatic_null(
    fit: Route, options: Options, widths: tuple[float, ...], n_permutations: int | None
) -> str:
    """The null ``null="auto"`` takes: the permutation null when permutations are asked for;
    otherwise the spectral null, then the gamma null, where each was measured calibrated
    (:func:`_spectral_is_calibrated`, :func:`_gamma_is_calibrated`); otherwise the permutation
    null."""
    if n_permutations is not None:
        return "permutation"
    if _spectral_is_calibrated(fit, options, widths):
        return "spectral"
    if _gamma_is_calibrated(fit, options, widths):
        return "gamma"
    return "permutation"


def _spectral_is_calibrated(fit: Route, options: Options, widths: tuple[float, ...]) -> bool:
    """Whether ``null="auto"`` takes the spectral null: where its level was measured within
    [0.03, 0.07], or within a binomial standard error of it (the performance page), at the
    test's own ``eps`` from :data:`SPECTRAL_FROM_ROWS` rows: under DP at any number of rows
    above (its asymptotic law only improves with N); under EO and CAL with a
    ``conditioning_eps`` of at most :data:`SPECTRAL_CONDITIONING_EPS` (the test's default
    1e-5 included), up to :data:`SPECTRAL_CONDITIONAL_TO_ROWS` rows at the test's default
    ``widths`` and ``rank``, and :data:`SPECTRAL_CONDITIONAL_TO_ROWS_ELSEWHERE` at others.
    With a conditioning ridge of 1.0 the regression on the conditioning variable leaves a
    drift, and it rejected 96% to 100% of fair data."""
    n = fit.terms.n
    if n < SPECTRAL_FROM_ROWS or options.eps != statistic_default("eps", "test"):
        return False
    if notion_named(options.notion).given is None:
        return True
    most = (
        SPECTRAL_CONDITIONAL_TO_ROWS
        if _default_widths_and_rank(options, widths)
        else SPECTRAL_CONDITIONAL_TO_ROWS_ELSEWHERE
    )
    return (
        options.conditioning_eps is not None
        and options.conditioning_eps <= SPECTRAL_CONDITIONING_EPS
        and n <= most
    )


def _gamma_is_calibrated(fit: Route, options: Options, widths: tuple[float, ...]) -> bool:
    """Whether ``null="auto"`` takes the gamma null: where its level was measured within
    [0.03, 0.07] (the performance page), at the test's own ``eps``, ``conditioning_eps`` and
    ``attribute_kernel`` from :data:`GAMMA_FROM_ROWS` rows, under DP or with a discrete
    conditioning variable, whose permutation null's mean and variance it has exactly. With a
    continuous conditioning variable (a local permutation fit), whose moments it approximates,
    only at the test's default ``widths`` and ``rank`` too and below
    :data:`SPECTRAL_FROM_ROWS` rows, the rows measured: there it rejected 3.4% to 6.0% of fair
    predictors at 100 to 250 rows, where at three widths and up to 100 pivots it rejected up to
    11% (under EO at 100 and 150 rows)."""
    measured = fit.terms.n >= GAMMA_FROM_ROWS and all(
        getattr(options, name) == statistic_default(name, "test")
        for name in ("eps", "conditioning_eps", "attribute_kernel")
    )
    if not isinstance(fit, LocalPermutationFit):
        return measured
    return (
        measured and fit.terms.n < SPECTRAL_FROM_ROWS and _default_widths_and_rank(options, widths)
    )


def _default_widths_and_rank(options: Options, widths: tuple[float, ...]) -> bool:
    """Whether the test runs at its default ``widths`` and ``rank``, where the approximate
    nulls' level was measured beyond the rows measured at other widths and ranks."""
    return widths == TEST_WIDTHS and options.rank == statistic_default("rank", "test")


def _permuted_statistics(
    fits: Sequence[Route], rng: np.random.Generator, count: int, progress: bool
) -> np.ndarray:
    """The statistic at each width (columns) under ``count`` permutations of the attribute
    rows within the strata of the conditioning variable, whose bandwidth no width changes."""
    members = members_of(fits[0].strata)
    permuted = np.empty((count, len(fits)))
    start = 0
    with _progress_bar(count, "permutations", progress) as bar:
        for permutations in permutation_batches(members, rng, count):
            stop = start + len(permutations)
            for j, fit in enumerate(fits):
                permuted[start:stop, j] = fit.permuted_statistics(permutations)
            bar.update(stop - start)
            start = stop
    return permuted


def _minimum_p_value(observed: np.ndarray, null: np.ndarray) -> float:
    """The permutation p-value of the smallest per-width p-value.

    ``observed`` holds the statistic at each width (``W``), ``null`` the permuted ones
    (``B × W``). Each row of ``[observed; null]`` gets, at each width, the count of rows whose
    statistic is at least its own (ties within a relative 1e-10, e.g. identity permutations,
    count); a row's aggregate is its smallest count, and the p-value is the share of rows whose
    aggregate is at most the observed one. With one width this is ``(1 + #{T_b >= T}) / (1 + B)``.
    """
    statistics = np.vstack([observed, null])
    rows = statistics.shape[0]
    counts = np.empty(statistics.shape, dtype=np.int64)
    for j, column in enumerate(statistics.T):
        tolerance = 1e-10 * max(float(np.max(np.abs(column))), 1e-300)
        ordered = np.sort(column)
        counts[:, j] = rows - np.searchsorted(ordered, column - tolerance, side="left")
    smallest = counts.min(axis=1)
    return float(np.sum(smallest <= smallest[0]) / rows)


def _check_widths(widths: Any) -> tuple[float, ...]:
    if isinstance(widths, str | bytes) or not isinstance(widths, Iterable):
        raise TypeError(f"widths must be a sequence of positive numbers; got {widths!r}.")
    values = list(widths)
    if not values:
        raise ValueError("widths is empty; pass at least one width, e.g. (1.0,).")
    for width in values:
        check_params({"widths": width}, {"widths": Interval("real", 0, closed="neither")})
    if len(set(values)) != len(values):
        raise ValueError(f"widths={tuple(values)!r} repeats a width; list each once.")
    return tuple(float(w) for w in values)


def _bounded(value: Any) -> Any:
    xp = namespace(value)
    return xp.clip(value, min=0.0, max=1.0)


def _report_row(terms: Terms) -> dict[str, Any]:
    score = _bounded(terms.score())
    return {
        "score": as_numpy_scalar(score),
        "adjusted": as_numpy_scalar(terms.adjusted(score)),
        "null_mean": terms.null_mean(),
        "statistic": as_numpy_scalar(terms.statistic),
        "method": terms.method,
        "rank": terms.rank,
        "n": terms.n,
    }
