"""Runs the route that :mod:`.choose` chooses for a call of the score, statistic or report:
in memory, streamed chunk by chunk, on Dask partitions, or for torch tensors on an accelerator
on their device (a score's terms, and a training batch's statistic). The device routes import
torch, so they are imported here on their first call, above the linear algebra
(:mod:`.._linalg.backend`) that every route shares.
"""

from __future__ import annotations

from typing import Any

from .._estimators.terms import ConstantAttributesFit, Terms
from .._inputs.variables import JOINT_ROW, report_labels
from .._options import Options
from .choose import DEVICE_ROUTES, DataRoute, ScoreRoute, choose_route, data_route, estimator_of
from .dask import fit_dask
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
    an accelerator computed there), a Dask DataFrame is reduced by its partitions and any other
    iterable is streamed chunk by chunk (:func:`.choose.data_route`)."""
    if data is not None:
        columns = _column_names(y_pred, sensitive_features, y_true)
    route = data_route(data)
    if route is DataRoute.ARGUMENTS:
        problem = Problem.from_arguments(
            y_pred, sensitive_features, y_true, options, defer_finite_check=True
        )
        return _problem_terms(problem, report)
    if route is DataRoute.FRAME:
        selected = select_columns(data, columns)
        return _problem_terms(Problem.from_arguments(*selected, options), report)
    column_sets = report_columns(columns) if report else {JOINT_ROW: columns}
    if route is DataRoute.DASK:
        fits = fit_dask(data, column_sets, options)
    else:
        fits = fit_stream(data, column_sets, options)
    return {key: fit.terms for key, fit in fits.items()}


def _problem_terms(problem: Problem, report: bool) -> dict[str, Terms]:
    terms = {JOINT_ROW: _fitted_terms(problem)}
    if report:
        names = problem.sensitive.names
        for name, label in zip(names, report_labels(names), strict=True):
            terms[label] = _fitted_terms(problem.attribute(name))
    return terms


def _fitted_terms(problem: Problem) -> Terms:
    """The terms of ``problem`` by the route :func:`.choose.choose_route` chooses: torch
    tensors' on their accelerator (:mod:`.device`, imported on the first one), measured there
    first, or the host's (:meth:`.problem.Problem.fit`)."""
    route = choose_route(problem)
    if route in DEVICE_ROUTES:
        from . import device

        measurement = device.measure(problem, route)
        route = choose_route(problem, measurement.measured)
        if route is ScoreRoute.CONSTANT:
            estimator = estimator_of(problem.options, problem.n)
            return ConstantAttributesFit(problem.pred, problem.like, estimator).terms
        if route is not ScoreRoute.HOST:
            return device.device_terms(measurement)
    return problem.fit().terms


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


def device_batch_statistic(y_pred: Any, side: Any, shift: float, scale: Any, options: Any) -> Any:
    """A training batch's statistic on ``y_pred``'s device (:mod:`.device_penalty`, imported on
    the first call)."""
    from . import device_penalty

    return device_penalty.device_statistic(y_pred, side, shift, scale, options)
