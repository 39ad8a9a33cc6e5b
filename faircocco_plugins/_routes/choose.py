"""Where a computation runs: in memory, streamed chunk by chunk or on Dask partitions, and
for torch tensors on an accelerator on their device (a score's terms, and a training batch's
statistic); everything else on the host. The device routes import torch, so they are imported
here on their first call, above the linear algebra (:mod:`.._linalg.backend`) that every route
shares.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from .._estimators.terms import Terms
from .._inputs.variables import JOINT_ROW, report_labels
from .._linalg import backend
from .._options import Options
from .dask import fit_dask, is_dask_dataframe
from .problem import Problem, report_columns, select_columns
from .stream import fit_stream


def call_terms(
    y_pred: Any,
    sensitive_features: Any,
    y_true: Any,
    data: Any,
    options: Options,
    *,
    report: bool = False,
) -> dict[str, Terms]:
    """The terms of a call of the score, statistic or report: of every attribute jointly
    (:data:`JOINT_ROW`) and, for a report, of each alone, by the report's row labels
    (:func:`report_labels`). Arrays and a DataFrame are one problem in memory (torch tensors on
    an accelerator computed there, :func:`device_terms`), a Dask DataFrame is reduced by its
    partitions and any other iterable is streamed chunk by chunk."""
    if data is None:
        problem = Problem.from_arguments(
            y_pred, sensitive_features, y_true, options, defer_finite_check=True
        )
        return _problem_terms(problem, report)
    columns = _column_names(y_pred, sensitive_features, y_true)
    if isinstance(data, pd.DataFrame):
        selected = select_columns(data, columns)
        return _problem_terms(Problem.from_arguments(*selected, options), report)
    if isinstance(data, Mapping):
        # a mapping is iterable: its keys would be read as chunks
        raise TypeError(
            f"data is a {type(data).__name__}; pass pandas.DataFrame(data), a table with one "
            "column per name."
        )
    column_sets = report_columns(columns) if report else {JOINT_ROW: columns}
    if is_dask_dataframe(data):
        fits = fit_dask(data, column_sets, options)
    elif isinstance(data, Iterable) and not isinstance(data, str | bytes):
        fits = fit_stream(data, column_sets, options)
    else:
        raise TypeError(
            "data must be a pandas DataFrame, a Dask DataFrame or an iterable of DataFrames; "
            f"got {type(data).__name__}."
        )
    return {key: fit.terms for key, fit in fits.items()}


def _problem_terms(problem: Problem, report: bool) -> dict[str, Terms]:
    terms = {JOINT_ROW: _fitted_terms(problem)}
    if report:
        names = problem.sensitive.names
        for name, label in zip(names, report_labels(names), strict=True):
            terms[label] = _fitted_terms(problem.attribute(name))
    return terms


def _fitted_terms(problem: Problem) -> Terms:
    """The terms of ``problem``: torch tensors' on their device (:mod:`.device`)."""
    terms = device_terms(problem)
    return problem.fit().terms if terms is None else terms


def _column_names(y_pred: Any, sensitive: Any, y_true: Any) -> tuple[str, list[str], str | None]:
    if not isinstance(y_pred, str):
        raise TypeError(f"with data=, y_pred must be a column name; got {type(y_pred).__name__}.")
    names = [sensitive] if isinstance(sensitive, str) else sensitive
    if (
        not isinstance(names, list | tuple)
        or not names
        or not all(isinstance(s, str) for s in names)
    ):
        raise TypeError("with data=, sensitive_features must be a column name or a list of them.")
    if y_true is not None and not isinstance(y_true, str):
        raise TypeError(f"with data=, y_true must be a column name; got {type(y_true).__name__}.")
    return y_pred, list(names), y_true


def device_terms(problem: Any) -> Any:
    """The terms of a :class:`._routes.problem.Problem` of torch tensors on an accelerator computed
    there (:mod:`._routes.device`, imported on the first one); None for other problems and for
    those the device route leaves to the host route. CPU tensors take the host route, which is
    faster on the CPU (performance docs, "Device route")."""
    if not backend.on_accelerator(problem.like):
        return None
    from . import device

    return device.device_terms(problem)


#: The most rows of a training batch whose statistic is computed on the host even when its
#: predictions are on an accelerator. The device route's step is bound by its two hundred-odd
#: launches, so up to here the host's closed form, with one copy of the predictions each way,
#: takes less time (on an H200: 2.5-3.8 against 8.7-11.8 ms at 256 rows, 8.8-10.9 against
#: 10.1-12.9 ms at 2,048; at 4,096 the device route is the faster; performance docs).
HOST_BATCH_ROWS = 2048


def batch_on_device(y_pred: Any, n: int) -> bool:
    """Whether a training batch of ``n`` rows has its statistic computed on its predictions'
    device: torch tensors on an accelerator, in batches of more than :data:`HOST_BATCH_ROWS`
    rows, which then keep the statistic and its gradient there (only their bandwidth and pivots
    are chosen from one host copy). Other batches take the host route, whose closed-form
    gradient goes back to the predictions' device (performance docs, "Device route")."""
    return n > HOST_BATCH_ROWS and backend.on_accelerator(y_pred)


def device_batch_statistic(y_pred: Any, side: Any, shift: float, scale: Any, options: Any) -> Any:
    """A training batch's statistic on ``y_pred``'s device (:mod:`._routes.device_penalty`, imported
    on the first call)."""
    from . import device_penalty

    return device_penalty.device_statistic(y_pred, side, shift, scale, options)
