"""Which route computes a call: the one place that chooses.

A call's rows come as arguments, a pandas DataFrame, a Dask DataFrame or a stream of chunks
(:func:`data_route`). An in-memory problem is computed on its torch tensors' accelerator or on
the host, by the exact estimator, the low-rank one from grouped moments, or for inputs that
carry gradients from explicit feature rows (:func:`choose_route`). A training batch's statistic
is computed on the host in closed form, on its predictions' device, or through autograd
(:func:`batch_route`), and a penalty uses a batch statistic only where kernels can be fitted
ahead (:func:`fits_kernels_ahead`). The modules that compute take the route they are given.

Some rules read the widths of the low-rank features (level combinations times pivots), which
are known only once the feature maps are fitted: the route that fits them reports them
(:class:`Measured`), and :func:`choose_route` is asked again, before any estimator runs.

This module imports no route, so that every route may import it; :mod:`.dispatch` runs the
route chosen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import pandas as pd

from .._estimators.exact import MAX_EXACT_ROWS, exact_seconds
from .._estimators.feature_map import MAX_FEATURES
from .._estimators.pivots import lowrank_seconds, pivots_jointly
from .._kernels.registry import kernel_named
from .._linalg import backend
from .._options import Options
from .._records.notions import notion_named

#: ``method="auto"`` uses the exact estimator below this many rows, where it is the faster one;
#: from here on the low-rank estimator is faster and agrees with it to about 1e-6 (performance
#: docs, "Why the fast paths exist").
AUTO_EXACT_BELOW = 128

#: The most rows of a training batch whose statistic is computed on the host even when its
#: predictions are on an accelerator. The device route's step is bound by its two hundred-odd
#: launches, so up to here the host's closed form, with one copy of the predictions each way,
#: takes less time (on an H200: 2.5-3.8 against 8.7-11.8 ms at 256 rows, 8.8-10.9 against
#: 10.1-12.9 ms at 2,048; at 4,096 the device route is the faster; performance docs).
HOST_BATCH_ROWS = 2048


class DataRoute(StrEnum):
    """Where a call's rows come from."""

    #: arrays, tensors or pandas objects passed as the arguments: one problem in memory
    ARGUMENTS = "arguments"
    #: columns of a pandas DataFrame: one problem in memory
    FRAME = "frame"
    #: a Dask DataFrame: reduced by its partitions (:mod:`.dask`)
    DASK = "dask"
    #: any other iterable: streamed chunk by chunk (:mod:`.stream`)
    STREAM = "stream"


class ScoreRoute(StrEnum):
    """How an in-memory problem is computed."""

    #: the exact estimator on the tensors' accelerator (:mod:`.device`)
    DEVICE_EXACT = "device exact"
    #: the low-rank estimator on the tensors' accelerator (:mod:`.device`), measured first
    DEVICE_LOWRANK = "device lowrank"
    #: the host's routes below, as :meth:`.problem.Problem.fit` chooses and computes them
    HOST = "host"
    #: constant sensitive attributes: every term 0
    CONSTANT = "constant"
    #: the exact estimator (:func:`.._estimators.moments.exact_fit`)
    EXACT = "exact"
    #: explicit feature rows of inputs with gradients (:mod:`.._estimators.explicit`), measured
    #: first
    EXPLICIT = "explicit"
    #: grouped moments (:class:`.._estimators.moments.GroupedMoments`), pivoting a variable's
    #: joint kernel where its levels times pivots are wider than its rows
    LOWRANK = "lowrank"
    #: grouped moments without pivoting joint kernels, as ``method="auto"`` fits them first to
    #: measure their widths; kept where no rule asks for another route
    MEASURED_LOWRANK = "measured lowrank"


#: The routes that run on an accelerator.
DEVICE_ROUTES = (ScoreRoute.DEVICE_EXACT, ScoreRoute.DEVICE_LOWRANK)


class BatchRoute(StrEnum):
    """How a training batch's statistic is computed."""

    #: constant attributes, independent of everything: 0, with a zero gradient
    ZERO = "zero"
    #: on the host, with its closed-form gradient going back to the predictions
    HOST = "host"
    #: in the predictions' framework on their device, autograd giving the gradient
    DEVICE = "device"


@dataclass(frozen=True)
class Measured:
    """What a route measured of a problem's features before its estimator runs."""

    #: the route that measured (:attr:`ScoreRoute.DEVICE_LOWRANK`, :attr:`ScoreRoute.EXPLICIT`
    #: or :attr:`ScoreRoute.MEASURED_LOWRANK`)
    route: ScoreRoute
    #: columns of each role's low-rank features: level combinations times pivots
    widths: tuple[int, ...] = ()
    #: columns of each role's explicit feature rows (inputs with gradients)
    explicit_widths: tuple[int, ...] = ()
    #: whether the sensitive attributes are constant (read on the device)
    constant_attributes: bool = False
    #: whether the device's fixed slots hold the data: its level groups, level combinations
    #: few enough to factor exactly (the host drops levels column by column), keys in int64
    fits_device: bool = True


def data_route(data: Any) -> DataRoute:
    """Where the rows of a call with ``data=`` come from.

    Raises
    ------
    TypeError
        ``data`` is a mapping, a string or anything else that is not a table or chunks.
    """
    if data is None:
        return DataRoute.ARGUMENTS
    if isinstance(data, pd.DataFrame):
        return DataRoute.FRAME
    if isinstance(data, Mapping):
        # a mapping is iterable: its keys would be read as chunks
        raise TypeError(
            f"data is a {type(data).__name__}; pass pandas.DataFrame(data), a table with one "
            "column per name."
        )
    if is_dask_dataframe(data):
        return DataRoute.DASK
    if isinstance(data, Iterable) and not isinstance(data, str | bytes):
        return DataRoute.STREAM
    raise TypeError(
        "data must be a pandas DataFrame, a Dask DataFrame or an iterable of DataFrames; "
        f"got {type(data).__name__}."
    )


def is_dask_dataframe(data: Any) -> bool:
    """Whether ``data`` is a Dask DataFrame (checked without importing Dask)."""
    return type(data).__module__.startswith("dask.") and hasattr(data, "to_delayed")


def choose_route(
    problem: Any,
    measured: Measured | None = None,
    *,
    host: bool = False,
) -> ScoreRoute:
    """The route of an in-memory :class:`.problem.Problem`, from its rows, kinds of columns,
    tensors (tracked, on an accelerator), options and the estimators' cost model.

    Without ``measured``: a device route or :attr:`ScoreRoute.HOST`, or with ``host`` (the
    host computing the problem) the host's estimator. A route that measures the features
    (:class:`Measured`) asks again with what it measured.
    """
    options: Options = problem.options
    n = problem.n
    estimator = estimator_of(options, n)
    auto = options.method == "auto"
    tracked = any(backend.is_tracked(v.numeric) for v in problem.variables().values())
    if measured is None:
        if not host:
            # CPU tensors take the host route, which is faster on the CPU (performance docs,
            # "Device route"); variables with nominal columns (host codes) take it too
            if not (backend.on_accelerator(problem.like) and _numeric_only(problem)):
                return ScoreRoute.HOST
            return ScoreRoute.DEVICE_EXACT if estimator == "exact" else ScoreRoute.DEVICE_LOWRANK
        if problem.sensitive.is_constant():
            return ScoreRoute.CONSTANT
        if estimator == "exact":
            return ScoreRoute.EXACT
        if tracked:
            return ScoreRoute.EXPLICIT
        return ScoreRoute.MEASURED_LOWRANK if auto else ScoreRoute.LOWRANK
    if measured.constant_attributes:
        return ScoreRoute.CONSTANT
    if measured.route is ScoreRoute.DEVICE_LOWRANK and (
        not measured.fits_device
        or max(measured.widths) > MAX_FEATURES
        or _exact_is_cheaper(options, n, measured.widths)
        or (tracked and not _explicit_rows_fit(n, measured.explicit_widths))
    ):
        # more groups than slots, more level combinations than the low-rank estimator factors
        # exactly (the host drops levels column by column), keys past int64, features too wide
        # for the low-rank estimator (the host route refuses them, or takes the exact
        # estimator), or explicit feature rows that would change their factor (small
        # batches): the host route
        return ScoreRoute.HOST
    if measured.route in DEVICE_ROUTES:
        return measured.route
    if measured.route is ScoreRoute.EXPLICIT:
        if _explicit_rows_fit(n, measured.explicit_widths):
            return ScoreRoute.EXPLICIT
        # many level combinations make explicit rows wider than the data; grouped moments are
        # the cheaper route then
        return ScoreRoute.MEASURED_LOWRANK if auto else ScoreRoute.LOWRANK
    # auto fits levels times pivots first: where the exact estimator is cheaper, pivoting a
    # joint kernel would be time lost
    if _exact_is_cheaper(options, n, measured.widths):
        return ScoreRoute.EXACT
    if any(pivots_jointly(n, width) for width in measured.widths):
        return ScoreRoute.LOWRANK
    return ScoreRoute.MEASURED_LOWRANK


def estimator_of(options: Options, n: int) -> str:
    """The estimator of ``n`` rows: the option's, or for ``"auto"`` the exact one below
    :data:`AUTO_EXACT_BELOW` rows and where the kernel's default factor may hold as many
    pivots as rows (the Laplacian's, up to :data:`MAX_EXACT_ROWS`): such a factor is no
    cheaper than the exact estimator (the low-rank Laplacian DP score of 1,000 rows took
    19 s against 1.3 s exact, and ``"auto"`` factored before going exact)."""
    if options.method != "auto":
        return options.method
    cap = kernel_named(options.kernel).default_rank
    as_wide = options.rank is None and n <= min(cap, MAX_EXACT_ROWS)
    return "exact" if n < AUTO_EXACT_BELOW or as_wide else "lowrank"


def batch_route(
    y_pred: Any, n: int, *, plain: bool, closed_form: bool, constant_attributes: bool
) -> BatchRoute:
    """The route of a training batch of ``n`` measured rows.

    ``plain``: the batch is finite floating arrays in the fitted layout, the only batches the
    device route takes. ``closed_form``: the kernel has a Gram gradient, which the host's
    closed form needs. ``constant_attributes``: the batch's attributes are constant.

    Torch tensors on an accelerator, in plain batches of more than :data:`HOST_BATCH_ROWS`
    rows, keep the statistic and its gradient on their device (only their bandwidth and pivots
    are chosen from one host copy). Other batches take the host route, whose closed-form
    gradient goes back to the predictions' device (performance docs, "Device route").
    """
    if plain and n > HOST_BATCH_ROWS and backend.on_accelerator(y_pred):
        return BatchRoute.DEVICE
    if not closed_form and backend.is_tracked(y_pred):
        # no closed form without the kernel's Gram gradient: autograd differentiates the same
        # statistic in the predictions' framework
        return BatchRoute.DEVICE
    return BatchRoute.ZERO if constant_attributes else BatchRoute.HOST


def fits_kernels_ahead(notion: str, method: str = "lowrank") -> bool:
    """Whether a training penalty fits its attribute and outcome kernels once, ahead of its
    batches (:class:`faircocco_plugins.BatchStatistic`), rather than refitting every kernel on
    every batch.

    A notion conditioned on the predictions (calibration) cannot fit its kernels ahead of a
    batch, and the batch statistic is the low-rank one, so ``method="exact"`` refits too.

    Parameters
    ----------
    notion : str
        The notion's name (``"dp"``, ``"eo"``, ...).
    method : {"auto", "exact", "lowrank"}
        The penalty's estimator.

    Returns
    -------
    bool

    Examples
    --------
    >>> from faircocco_plugins.plugins import fits_kernels_ahead
    >>> fits_kernels_ahead("eo", "auto"), fits_kernels_ahead("cal", "auto")
    (True, False)
    >>> fits_kernels_ahead("dp", "exact")
    False
    """
    return notion_named(notion).conditioned_on != "pred" and method != "exact"


def _numeric_only(problem: Any) -> bool:
    """Whether every variable is numeric columns only: the device route reads no codes."""
    return all(v.codes is None and v.numeric is not None for v in problem.variables().values())


def _explicit_rows_fit(n: int, widths: tuple[int, ...]) -> bool:
    """Whether explicit feature rows of ``widths`` columns are no wider than the ``n`` rows:
    wider rows would change their factor (small batches)."""
    return max(widths) <= n


def _exact_is_cheaper(options: Options, n: int, widths: tuple[int, ...]) -> bool:
    """Whether ``method="auto"`` takes the exact estimator for low-rank features of ``widths``
    columns (levels times pivots, :attr:`.._estimators.moments.GroupedMoments.widths`): at most
    :data:`MAX_EXACT_ROWS` rows, and an estimated time (:func:`exact_seconds`) below the
    low-rank algebra's (:func:`lowrank_seconds`), the features being fitted by then. Where they
    are wider than the rows, the joint kernel's factor may be as wide as the rows, and the
    exact estimator is the cheaper and exact (200 levels of a category beside a continuous
    column, at 1,000 rows, made 3,168 columns and took 35 s)."""
    if options.method != "auto" or n > MAX_EXACT_ROWS:
        return False
    conditional = notion_named(options.notion).given is not None
    return exact_seconds(n, conditional) < lowrank_seconds(n, list(widths))
