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

from .._estimators.exact import MAX_EXACT_ROWS, ExactFit, exact_seconds
from .._estimators.explicit import explicit_fit, is_tracked
from .._estimators.local_null import LocalPermutationFit
from .._estimators.lowrank import (
    MAX_COMBINATIONS,
    GroupedMoments,
    lowrank_seconds,
    pivots_jointly,
)
from .._estimators.strata import is_discrete, permutation_strata
from .._estimators.terms import ConstantAttributesFit, RefittableRoute, Role, Route
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

#: ``method="auto"`` uses the exact estimator below this many rows, where it is the faster one;
#: from here on the low-rank estimator is faster and agrees with it to about 1e-6 (performance
#: docs, "Why the fast paths exist").
AUTO_EXACT_BELOW = 128


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
        if self.method() != "lowrank":
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

    def method(self) -> str:
        """The estimator: the option's, or for ``"auto"`` the exact one below
        :data:`AUTO_EXACT_BELOW` rows and where the kernel's default factor may hold as many
        pivots as rows (the Laplacian's, up to :data:`MAX_EXACT_ROWS`): such a factor is no
        cheaper than the exact estimator (the low-rank Laplacian DP score of 1,000 rows took
        19 s against 1.3 s exact, and ``"auto"`` factored before going exact)."""
        if self.options.method != "auto":
            return self.options.method
        cap = kernel_named(self.options.kernel).default_rank
        as_wide = self.options.rank is None and self.n <= min(cap, MAX_EXACT_ROWS)
        return "exact" if self.n < AUTO_EXACT_BELOW or as_wide else "lowrank"

    def fit(self, width_factor: float = 1.0) -> Route:
        """Fit the estimator chosen by ``method`` on the whole data (bandwidths as in
        :meth:`scalings`).

        With a continuous conditioning variable the null permutes the attribute rows alone
        within local strata (:mod:`._estimators.local_null`). Rows are fitted in their canonical
        order.
        """
        self.check_finite()
        if not self.rows_ordered:
            return self.in_row_order.fit(width_factor)
        if self.sensitive.is_constant():
            return ConstantAttributesFit(self.pred, self.like, self.method())
        inputs = self.kernel_inputs(self.scalings(width_factor))
        roles = roles_of(self.options.notion, **inputs)
        fit = self.estimate(roles)
        if Role.GIVEN not in roles or is_discrete(roles[Role.GIVEN]):
            return fit

        def attributes(rows: np.ndarray, given_rows: np.ndarray | None) -> KernelInput:
            taken = dict(inputs)
            if given_rows is not None:
                taken = {name: k.take(given_rows) for name, k in inputs.items()}
            taken["sensitive"] = inputs["sensitive"].take(rows)
            return roles_of(self.options.notion, **taken)[Role.ATTRIBUTES]

        return LocalPermutationFit(
            fit,
            attributes,
            roles[Role.GIVEN],
            self.options.random_state,
            lambda: self.estimate(roles, "lowrank"),
        )

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

    def estimate(self, roles: dict[str, KernelInput], method: str | None = None) -> RefittableRoute:
        """The estimator chosen by ``method`` (default: the options') on the kernel inputs
        ``roles``."""
        if (method or self.method()) == "exact":
            return ExactFit(
                roles[Role.MEASURED],
                roles[Role.ATTRIBUTES],
                roles.get(Role.GIVEN),
                self.options.ridge,
                self.like,
            )
        if any(is_tracked(k) for k in roles.values()):
            fit = explicit_fit(
                roles, Role.GIVEN in roles, self.options.rank, self.options.ridge, self.like
            )
            if fit is not None:
                return fit
        # auto fits levels times pivots first: where the exact estimator is cheaper, pivoting
        # a joint kernel would be time lost
        auto = method is None and self.options.method == "auto"
        conditional = Role.GIVEN in roles
        options = self.options
        moments = GroupedMoments(roles, conditional, options.rank, options.ridge, not auto)
        moments.add(roles, self.like)
        if auto and self.exact_is_cheaper(moments.widths):
            return self.estimate(roles, "exact")
        if auto and any(pivots_jointly(self.n, width) for width in moments.widths):
            return self.estimate(roles, "lowrank")
        moments.check_width()
        return moments.fit(self.like, roles)

    def exact_is_cheaper(self, widths: list[int]) -> bool:
        """Whether ``method="auto"`` takes the exact estimator for low-rank features of
        ``widths`` columns (levels times pivots, :attr:`GroupedMoments.widths`): at most
        :data:`MAX_EXACT_ROWS` rows, and an estimated time (:func:`exact_seconds`) below the
        low-rank algebra's (:func:`lowrank_seconds`), the features being fitted by then. Where
        they are wider than the rows, the joint kernel's factor may be as wide as the rows, and
        the exact estimator is the cheaper and exact (200 levels of a category beside a
        continuous column, at 1,000 rows, made 3,168 columns and took 35 s)."""
        if self.options.method != "auto" or self.n > MAX_EXACT_ROWS:
            return False
        conditional = notion_named(self.options.notion).given is not None
        return exact_seconds(self.n, conditional) < lowrank_seconds(self.n, widths)


def fit_scaling(name: str, variable: Variable, options: Options, rows: np.ndarray) -> Scaling:
    """The bandwidths of variable ``name`` ("pred", "sensitive" or "truth") on ``rows``.

    Predictions and outcomes get one kernel (the option ``kernel``'s) on their vector;
    sensitive attributes one per column and delta kernels (product), or the paper's single
    kernel on the vector with numeric columns standardised and nominal columns one-hot (joint).
    """
    joint = name == "sensitive" and options.attribute_kernel == "joint"
    return Scaling.fit(
        variable,
        shared=name != "sensitive" or joint,
        standardised=joint,
        onehot_nominal=joint,
        bandwidth=options.bandwidth,
        rows=rows,
        kernel=kernel_named(options.kernel),
    )


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
