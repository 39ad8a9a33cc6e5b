"""From user arguments to a fitted estimator: the one pipeline behind every public function.

A *problem* is a notion's three kernel inputs: ``u`` (the variable whose dependence is measured),
``e`` (the attributes, extended by the conditioning variable under the product kernel, as in the
paper's Lemma 1) and, for EO/CAL, ``c`` (the conditioning variable), as each
:class:`~faircocco_plugins._records.notions.Notion` says:

=========  ==========  ================  ==========
notion     u           e                 c
=========  ==========  ================  ==========
``dp``     Ŷ           A                 —
``eo``     Ŷ           (A, Y)            Y
``cal``    Y           (A, Ŷ)            Ŷ
=========  ==========  ================  ==========

A notion restricted to one label of the outcome (:attr:`Notion.given_label`) keeps only the rows
with that label (:func:`measured_rows`); the outcome is constant there, so it conditions on
nothing (:attr:`Notion.conditioned_on`) and its roles are DP's on those rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import array_api_compat
import numpy as np
import pandas as pd

from .._estimators.exact import MAX_EXACT_ROWS
from .._estimators.explicit import ExplicitRows, explicit_fit
from .._estimators.feature_map import MAX_COMBINATIONS
from .._estimators.local_null import LocalPermutationFit
from .._estimators.lowrank import LowRankFit
from .._estimators.moments import GroupedMoments, exact_fit
from .._estimators.strata import is_discrete, permutation_strata
from .._estimators.terms import ConstantAttributesFit, Role, Route
from .._inputs.binary_labels import positive_labels
from .._inputs.row_order import canonical_order, in_order
from .._inputs.variables import (
    JOINT_ROW,
    FiniteCheck,
    Variable,
    align_by_index,
    check_lengths,
    check_level_combinations,
    computation_reference,
    report_labels,
    to_variable,
)
from .._kernels.kernel import KernelInput, Scaling, bandwidth_rows, concat_inputs
from .._kernels.registry import kernel_named
from .._linalg.backend import host_array, namespace, refuse_unreadable_tensors
from .._options import Options
from .._records.notions import Notion, notion_named
from .choose import Measured, ScoreRoute, choose_route, estimator_of


@dataclass(frozen=True)
class Problem:
    """The validated variables of one call and how to turn them into kernel inputs."""

    pred: Variable
    sensitive: Variable
    truth: Variable | None
    options: Options
    like: Any
    #: whether the rows are already in a canonical order (see :meth:`in_row_order`)
    rows_ordered: bool = False
    #: the positions of the arguments' rows it holds (:func:`measured_rows`); None: all of them
    kept: np.ndarray | None = None
    #: the finiteness of tensors' columns, not yet read (see :meth:`check_finite`)
    finite: FiniteCheck | None = None

    @classmethod
    def from_arguments(
        cls,
        y_pred: Any,
        sensitive_features: Any,
        y_true: Any,
        options: Options,
        *,
        defer_finite_check: bool = False,
    ) -> Problem:
        """The validated problem of a call's arguments.

        With ``defer_finite_check``, tensors are checked for NaN when the device route reads
        its small results (or :meth:`fit` starts), not here: on an accelerator, one wait for
        the device instead of one per argument.
        """
        notion = notion_named(options.notion)
        if notion.needs_outcome and y_true is None:
            raise ValueError(
                f"y_true is required for notion={options.notion!r} ({notion.title} reads the "
                "true outcome); pass the true outcomes."
            )
        named = {"y_pred": y_pred, "sensitive_features": sensitive_features, "y_true": y_true}
        refuse_unreadable_tensors(named)
        rows = align_by_index(named)
        reference = computation_reference(y_pred)
        # a reference is a tensor (numpy arrays have none): a read may wait for its device
        deferred = defer_finite_check and reference is not None
        check = not deferred
        pred = to_variable(rows["y_pred"], "y_pred", reference, check_finite=check)
        sensitive = to_variable(
            rows["sensitive_features"], "sensitive_features", reference, check_finite=check
        )
        # checked whenever given, even where the notion does not use it
        truth = (
            None
            if y_true is None
            else to_variable(rows["y_true"], "y_true", reference, check_finite=check)
        )
        given = [v for v in (pred, sensitive, truth) if v is not None]
        check_lengths(given)
        deferred = deferred and any(v.numeric is not None for v in given)
        finite = FiniteCheck(given) if deferred else None
        kept = None if truth is None else measured_rows(notion, rows["y_true"])
        if kept is not None:
            pred, sensitive = in_order(pred, kept), in_order(sensitive, kept)
        # the statistic reads the outcome where it conditions on it or measures it
        truth = truth if "truth" in (notion.measured, notion.conditioned_on) else None
        if reference is None:
            like = np.zeros((), dtype=np.float64)
        else:
            xp = namespace(reference)
            like = xp.zeros((), dtype=xp.float64, device=array_api_compat.device(reference))
        problem = cls(pred, sensitive, truth, options, like, finite=finite, kept=kept)
        problem.check_level_combinations()
        return problem

    def check_level_combinations(self) -> None:
        """Refuse up front, by column name, nominal columns with more level combinations than
        the low-rank estimator factors exactly (which sees no names)."""
        if estimator_of(self.options, self.n) != "lowrank":
            return
        notion = notion_named(self.options.notion)
        measured, given = notion.measured, notion.conditioned_on
        variables = self.variables()
        # under the joint attribute kernel too: a combination of its one-hot columns of the
        # nominal attributes is a combination of their levels, factored exactly
        attributes = [self.sensitive]
        if given is not None:
            attributes.append(variables[given])
        advice = f"method='exact' takes any number of levels, but at most {MAX_EXACT_ROWS:,} rows."
        for role in ([variables[measured]], attributes):
            check_level_combinations(role, MAX_COMBINATIONS, advice)

    @property
    def n(self) -> int:
        return self.pred.n

    def attribute(self, name: str) -> Problem:
        """The same problem restricted to one sensitive attribute."""
        ordered = self.in_row_order
        return Problem(
            ordered.pred,
            ordered.sensitive.select(name),
            ordered.truth,
            self.options,
            self.like,
            rows_ordered=True,
            finite=self.finite,
            kept=ordered.kept,
        )

    @cached_property
    def in_row_order(self) -> Problem:
        """The same problem with its rows sorted by their values (:mod:`._inputs.row_order`), so
        that every step that sees rows by position is a function of the data alone."""
        if self.rows_ordered:
            return self
        order = canonical_order(list(self.variables().values()))
        return replace(
            self,
            pred=in_order(self.pred, order),
            sensitive=in_order(self.sensitive, order),
            truth=None if self.truth is None else in_order(self.truth, order),
            rows_ordered=True,
            kept=order if self.kept is None else self.kept[order],
        )

    def scalings(self, width_factor: float = 1.0) -> dict[str, Scaling]:
        """Bandwidths of each variable, by the median heuristic on a seeded row sample.

        ``width_factor`` multiplies the bandwidths of the measured variable and of the
        attributes, the two whose dependence the statistic measures (the conditioning
        variable's stay).
        """
        measured = notion_named(self.options.notion).measured
        return {
            name: scaling.widened(width_factor if name in ("sensitive", measured) else 1.0)
            for name, scaling in self._median_scalings.items()
        }

    @cached_property
    def _median_scalings(self) -> dict[str, Scaling]:
        """The bandwidths at width 1, fitted once: the test's several widths widen the same
        median distances, whose sort was a quarter of its time at 1,000 rows."""
        rows = bandwidth_rows(self.n, self.options.random_state)
        return {
            name: fit_scaling(name, variable, self.options, rows)
            for name, variable in self.variables().items()
        }

    def fit(self, width_factor: float = 1.0) -> Route:
        """Fit the host's estimator that :func:`.choose.choose_route` chooses on the whole data
        (bandwidths as in :meth:`scalings`).

        With a continuous conditioning variable the null permutes the attribute rows alone
        within local strata (:mod:`._estimators.local_null`). Rows are fitted in their canonical
        order.
        """
        self.check_finite()
        if not self.rows_ordered:
            return self.in_row_order.fit(width_factor)
        route = choose_route(self, host=True)
        if route is ScoreRoute.CONSTANT:
            return ConstantAttributesFit(self.pred, self.like, estimator_of(self.options, self.n))
        inputs = self.kernel_inputs(self.scalings(width_factor))
        roles = roles_of(self.options.notion, **inputs)
        fit = self.estimate(roles, route)
        if Role.GIVEN not in roles or is_discrete(roles[Role.GIVEN]):
            return fit

        def attributes(rows: np.ndarray, given_rows: np.ndarray | None) -> KernelInput:
            taken = dict(inputs)
            if given_rows is not None:
                taken = {name: k.take(given_rows) for name, k in inputs.items()}
            taken["sensitive"] = inputs["sensitive"].take(rows)
            return roles_of(self.options.notion, **taken)[Role.ATTRIBUTES]

        return LocalPermutationFit(fit, attributes, roles[Role.GIVEN], self.options.random_state)

    def check_finite(self, flags: Any = None) -> None:
        """Raise the ValueError of a column with NaN or infinite values, if a deferred check
        (``from_arguments(..., defer_finite_check=True)``) has not yet done so; ``flags`` are
        its flags on the host, read here when not given."""
        if self.finite is not None:
            self.finite.read(flags)

    def variables(self) -> dict[str, Variable]:
        """The variables of the notion: ``pred``, ``sensitive`` and (EO/CAL) ``truth``."""
        variables = {"pred": self.pred, "sensitive": self.sensitive, "truth": self.truth}
        return {name: v for name, v in variables.items() if v is not None}

    def kernel_inputs(self, scalings: dict[str, Scaling]) -> dict[str, KernelInput]:
        """Each variable scaled by its bandwidths, by name."""
        return {name: scalings[name].apply(v) for name, v in self.variables().items()}

    def estimate(self, roles: dict[str, KernelInput], route: ScoreRoute) -> LowRankFit:
        """The estimator of ``route`` on the kernel inputs ``roles``; a route that measures
        its features first takes the one :func:`.choose.choose_route` then chooses."""
        if route is ScoreRoute.EXACT:
            return exact_fit(roles, self.options.ridge, self.like)
        options, conditional = self.options, Role.GIVEN in roles
        if route is ScoreRoute.EXPLICIT:
            rows = ExplicitRows(roles, conditional, options.rank, options.ridge, self.like)
            measured = Measured(route, explicit_widths=(rows.width,))
            route = choose_route(self, measured, host=True)
            if route is ScoreRoute.EXPLICIT:
                return explicit_fit(rows, options.ridge, self.like)
        if route not in (ScoreRoute.LOWRANK, ScoreRoute.MEASURED_LOWRANK):
            raise ValueError(f"route {route!r} is not one of the host's estimators")
        pivot_jointly = route is ScoreRoute.LOWRANK
        moments = GroupedMoments(roles, conditional, options.rank, options.ridge, pivot_jointly)
        moments.add(roles, self.like)
        if route is ScoreRoute.MEASURED_LOWRANK:
            measured = Measured(route, widths=tuple(moments.widths))
            route = choose_route(self, measured, host=True)
            if route is not ScoreRoute.MEASURED_LOWRANK:
                return self.estimate(roles, route)
        moments.check_width()
        return moments.fit(self.like, roles)


def fit_scaling(name: str, variable: Variable, options: Options, rows: np.ndarray) -> Scaling:
    """The bandwidths of variable ``name`` ("pred", "sensitive" or "truth") on ``rows``.

    Predictions and outcomes get one kernel (the option ``kernel``'s) on their vector;
    sensitive attributes one per column and delta kernels (product), or the paper's single
    kernel on the vector with numeric columns standardised and nominal columns one-hot (joint).
    """
    shared, joint = kernel_layout(name, options)
    return Scaling.fit(
        variable,
        shared=shared,
        standardised=joint,
        onehot_nominal=joint,
        bandwidth=options.bandwidth,
        rows=rows,
        kernel=kernel_named(options.kernel),
    )


def kernel_layout(name: str, options: Options) -> tuple[bool, bool]:
    """``(shared, joint)`` of variable ``name``: whether its numeric columns share one
    bandwidth, and whether it is the attributes under the joint kernel (numeric columns
    standardised, nominal ones one-hot). The host's and the device's scalings both follow it."""
    joint = name == "sensitive" and options.attribute_kernel == "joint"
    return name != "sensitive" or joint, joint


def problem_roles(
    notion: str, variables: Problem, scalings: dict[str, Scaling]
) -> dict[str, KernelInput]:
    """The kernel inputs ``u``, ``e`` and (EO/CAL) ``c`` of a notion."""
    return roles_of(notion, **variables.kernel_inputs(scalings))


def roles_of(
    notion: str,
    pred: KernelInput | None,
    sensitive: KernelInput,
    truth: KernelInput | None = None,
) -> dict[str, KernelInput]:
    """The roles of the notion (the table above); a role whose variable is ``None`` is left
    out."""
    record = notion_named(notion)
    measured_name, given_name = record.measured, record.conditioned_on
    inputs = {"pred": pred, "truth": truth}
    if given_name is None:
        table = {Role.MEASURED: inputs[measured_name], Role.ATTRIBUTES: sensitive}
    else:
        assert truth is not None
        given = inputs[given_name]
        table = {
            Role.MEASURED: inputs[measured_name],
            Role.ATTRIBUTES: None if given is None else concat_inputs(sensitive, given),
            Role.GIVEN: given,
        }
    return {role: k for role, k in table.items() if k is not None}


def measured_rows(notion: Notion, y_true: Any, *, fewest: int = 2) -> np.ndarray | None:
    """The positions of the rows a notion measures: ``None`` for all of them; under a notion
    restricted to one label of the outcome (:attr:`Notion.given_label`), those where ``y_true``
    (class labels, a column of them) holds it, at least ``fewest``.

    Raises
    ------
    ValueError
        ``y_true`` is not class labels with a positive class (numbers that are not whole, as a
        continuous outcome has, or labels other than 0/1, -1/1 and booleans), or fewer than two
        of its rows hold it.
    """
    if not notion.restricts_rows:
        return None
    labels = host_array(y_true)
    if isinstance(labels, pd.DataFrame) and labels.shape[1] == 1:
        labels = labels.iloc[:, 0]
    elif getattr(labels, "ndim", 1) == 2 and labels.shape[1] == 1:
        labels = np.asarray(labels)[:, 0]
    try:
        positive = positive_labels({"y_true": labels})["y_true"]
    except ValueError as error:
        raise ValueError(
            f"notion={notion.name!r} ({notion.title}) measures the rows whose true outcome is "
            "the positive class, so it needs class labels in {0, 1}, {-1, 1} or booleans as "
            f"y_true, for classification; {error}"
        ) from None
    kept = np.flatnonzero(positive)
    if kept.size < fewest:
        raise ValueError(
            f"notion={notion.name!r} ({notion.title}) measures the rows whose true outcome is "
            f"the positive class; y_true has {kept.size} such row(s), and at least {fewest} are "
            "needed."
        )
    return kept


def strata_of(roles: dict[str, KernelInput]) -> np.ndarray:
    """Stratum of each row for the permutation null (one stratum without conditioning)."""
    return permutation_strata(roles.get(Role.GIVEN), roles[Role.MEASURED].n)


def report_columns(
    columns: tuple[str, list[str], str | None],
) -> dict[str, tuple[str, list[str], str | None]]:
    """The columns of each row of a report, by row label: ``"joint"`` (every attribute), then
    each attribute (:func:`report_labels`)."""
    pred, sensitive, truth = columns
    labels = report_labels(sensitive)
    rows = {label: (pred, [name], truth) for name, label in zip(sensitive, labels, strict=True)}
    return {JOINT_ROW: columns, **rows}


def select_columns(
    frame: pd.DataFrame, columns: tuple[str, list[str], str | None]
) -> tuple[pd.Series, pd.DataFrame, pd.Series | None]:
    """``y_pred``, ``sensitive_features`` and ``y_true`` columns of ``frame`` by name."""
    check_columns(frame, columns)
    pred, sensitive, truth = columns
    return frame[pred], frame[sensitive], None if truth is None else frame[truth]


def check_columns(frame: Any, columns: tuple[str, list[str], str | None]) -> list[str]:
    """The names of ``columns``, after checking that ``frame`` (pandas or Dask) has them."""
    pred, sensitive, truth = columns
    names = [("y_pred", pred), *(("sensitive_features", s) for s in sensitive)]
    if truth is not None:
        names.append(("y_true", truth))
    for argument, name in names:
        if name not in frame.columns:
            raise ValueError(
                f"{argument} names column {name!r}, which data does not have; "
                f"its columns are {list(map(str, frame.columns))}."
            )
    return [name for _, name in names]
