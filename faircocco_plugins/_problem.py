"""From user arguments to a fitted estimator: the one pipeline behind every public function.

A *problem* is a notion's three kernel inputs: ``u`` (the variable whose dependence is measured),
``e`` (the attributes, extended by the conditioning variable under the product kernel, as in the
paper's Lemma 1) and, for EO/CAL, ``c`` (the conditioning variable):

=========  ==========  ================  ==========
notion     u           e                 c
=========  ==========  ================  ==========
``dp``     Ŷ           A                 —
``eo``     Ŷ           (A, Y)            Y
``cal``    Y           (A, Ŷ)            Ŷ
=========  ==========  ================  ==========
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import chain
from typing import Any

import array_api_compat
import numpy as np
import pandas as pd

from ._backend import namespace, to_host
from ._exact import MAX_EXACT_ROWS, ExactFit
from ._explicit import explicit_fit, is_tracked
from ._inputs import (
    JOINT_ROW,
    Variable,
    align_by_index,
    check_lengths,
    check_level_combinations,
    computation_reference,
    report_labels,
    to_variable,
)
from ._kernels import KernelInput, Scaling, bandwidth_rows, concat_inputs
from ._levels import MAX_LEVELS
from ._local_null import LocalPermutationFit
from ._lowrank import MAX_COMBINATIONS, GroupedMoments, LowRankFit
from ._options import Options
from ._row_order import canonical_order, in_order
from ._strata import Strata, is_discrete
from ._terms import ConstantAttributesFit, Role
from ._threads import single_blas_thread

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

    @classmethod
    def from_arguments(
        cls, y_pred: Any, sensitive_features: Any, y_true: Any, options: Options
    ) -> Problem:
        if options.notion != "dp" and y_true is None:
            raise ValueError(
                f"y_true is required for notion={options.notion!r} (it is the conditioning "
                "variable); pass the true outcomes."
            )
        rows = align_by_index(
            {"y_pred": y_pred, "sensitive_features": sensitive_features, "y_true": y_true}
        )
        reference = computation_reference(y_pred)
        pred = to_variable(rows["y_pred"], "y_pred", reference)
        sensitive = to_variable(rows["sensitive_features"], "sensitive_features", reference)
        # checked whenever given, even where the notion does not use it
        truth = None if y_true is None else to_variable(rows["y_true"], "y_true", reference)
        check_lengths([v for v in (pred, sensitive, truth) if v is not None])
        if options.notion == "dp":
            truth = None
        if reference is None:
            like = np.zeros((), dtype=np.float64)
        else:
            xp = namespace(reference)
            like = xp.zeros((), dtype=xp.float64, device=array_api_compat.device(reference))
        problem = cls(pred, sensitive, truth, options, like)
        problem.check_level_combinations()
        return problem

    def check_level_combinations(self) -> None:
        """Refuse up front, by column name, nominal columns with more level combinations than
        the low-rank estimator factors exactly (which sees no names)."""
        if self.method() != "lowrank":
            return
        measured, given = MEASURED_AND_GIVEN[self.options.notion]
        variables = self.variables()
        # the joint attribute kernel one-hot encodes nominal attributes: no levels to factor
        attributes = [] if self.options.attribute_kernel == "joint" else [self.sensitive]
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
        )

    @cached_property
    def in_row_order(self) -> Problem:
        """The same problem with its rows sorted by their values (:mod:`._row_order`), so that
        every step that sees rows by position is a function of the data alone."""
        if self.rows_ordered:
            return self
        order = canonical_order(list(self.variables().values()))
        return replace(
            self,
            pred=in_order(self.pred, order),
            sensitive=in_order(self.sensitive, order),
            truth=None if self.truth is None else in_order(self.truth, order),
            rows_ordered=True,
        )

    def scalings(self, width_factor: float = 1.0) -> dict[str, Scaling]:
        """Bandwidths of each variable, by the median heuristic on a seeded row sample.

        ``width_factor`` multiplies the bandwidths of the measured variable and of the
        attributes, the two whose dependence the statistic measures (the conditioning
        variable's stay).
        """
        rows = bandwidth_rows(self.n, self.options.random_state)
        measured, _ = MEASURED_AND_GIVEN[self.options.notion]
        return {
            name: fit_scaling(name, variable, self.options, rows).widened(
                width_factor if name in ("sensitive", measured) else 1.0
            )
            for name, variable in self.variables().items()
        }

    def method(self) -> str:
        if self.options.method != "auto":
            return self.options.method
        return "exact" if self.n < AUTO_EXACT_BELOW else "lowrank"

    def fit(
        self, width_factor: float = 1.0
    ) -> ExactFit | LowRankFit | ConstantAttributesFit | LocalPermutationFit:
        """Fit the estimator chosen by ``method`` on the whole data (bandwidths as in
        :meth:`scalings`).

        With a continuous conditioning variable the null permutes the attribute rows alone
        within local strata (:mod:`._local_null`). Rows are fitted in their canonical order.
        """
        if not self.rows_ordered:
            return self.in_row_order.fit(width_factor)
        if self.sensitive.is_constant():
            return ConstantAttributesFit(self.pred, self.like, self.method())
        inputs = self.kernel_inputs(self.scalings(width_factor))
        roles = roles_of(self.options.notion, **inputs)
        fit = self.estimate(roles)
        if Role.GIVEN not in roles or is_discrete(roles[Role.GIVEN]):
            return fit

        def permuted_attributes(permutation: np.ndarray) -> KernelInput:
            permuted = {**inputs, "sensitive": inputs["sensitive"].take(permutation)}
            return roles_of(self.options.notion, **permuted)[Role.ATTRIBUTES]

        return LocalPermutationFit(
            fit, permuted_attributes, roles[Role.GIVEN], self.options.random_state
        )

    def variables(self) -> dict[str, Variable]:
        """The variables of the notion: ``pred``, ``sensitive`` and (EO/CAL) ``truth``."""
        variables = {"pred": self.pred, "sensitive": self.sensitive, "truth": self.truth}
        return {name: v for name, v in variables.items() if v is not None}

    def kernel_inputs(self, scalings: dict[str, Scaling]) -> dict[str, KernelInput]:
        """Each variable scaled by its bandwidths, by name."""
        return {name: scalings[name].apply(v) for name, v in self.variables().items()}

    def estimate(self, roles: dict[str, KernelInput]) -> ExactFit | LowRankFit:
        """The estimator chosen by ``method`` on the kernel inputs ``roles``."""
        if self.method() == "exact":
            return ExactFit(
                roles[Role.MEASURED],
                roles[Role.ATTRIBUTES],
                roles.get(Role.GIVEN),
                strata_of(roles),
                self.options.ridge,
                self.like,
            )
        if any(is_tracked(k) for k in roles.values()):
            fit = explicit_fit(
                roles, Role.GIVEN in roles, self.options.rank, self.options.ridge, self.like
            )
            if fit is not None:
                return fit
        moments = GroupedMoments(roles, Role.GIVEN in roles, self.options.rank, self.options.ridge)
        moments.add(roles, self.like)
        return moments.fit(self.like, roles)


def fit_scaling(name: str, variable: Variable, options: Options, rows: np.ndarray) -> Scaling:
    """The bandwidths of variable ``name`` ("pred", "sensitive" or "truth") on ``rows``.

    Predictions and outcomes get one Gaussian on their vector; sensitive attributes one
    Gaussian per column and delta kernels (product), or the paper's single Gaussian on the
    vector with nominal columns one-hot (joint).
    """
    joint = name == "sensitive" and options.attribute_kernel == "joint"
    return Scaling.fit(
        variable,
        shared=name != "sensitive" or joint,
        onehot_nominal=joint,
        bandwidth=options.bandwidth,
        rows=rows,
    )


def problem_roles(
    notion: str, variables: Problem, scalings: dict[str, Scaling]
) -> dict[str, KernelInput]:
    """The kernel inputs ``u``, ``e`` and (EO/CAL) ``c`` of a notion."""
    return roles_of(notion, **variables.kernel_inputs(scalings))


#: The variable each notion measures (``u``) and the one it conditions on (``c``), by name: the
#: table above.
MEASURED_AND_GIVEN: dict[str, tuple[str, str | None]] = {
    "dp": ("pred", None),
    "eo": ("pred", "truth"),
    "cal": ("truth", "pred"),
}


def roles_of(
    notion: str,
    pred: KernelInput | None,
    sensitive: KernelInput,
    truth: KernelInput | None = None,
) -> dict[str, KernelInput]:
    """The roles of the notion table above; a role whose variable is ``None`` is left out."""
    measured_name, given_name = MEASURED_AND_GIVEN[notion]
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


def strata_of(roles: dict[str, KernelInput]) -> np.ndarray:
    """Stratum of each row for the permutation null (one stratum without conditioning)."""
    if Role.GIVEN not in roles:
        return np.zeros(roles[Role.MEASURED].n, dtype=np.int64)
    return Strata(roles[Role.GIVEN]).assign(roles[Role.GIVEN])


def report_columns(
    columns: tuple[str, list[str], str | None],
) -> dict[str, tuple[str, list[str], str | None]]:
    """The columns of each row of a report, by row label: ``"joint"`` (every attribute), then
    each attribute (:func:`report_labels`)."""
    pred, sensitive, truth = columns
    labels = report_labels(sensitive)
    rows = {label: (pred, [name], truth) for name, label in zip(sensitive, labels, strict=True)}
    return {JOINT_ROW: columns, **rows}


#: A stream's bandwidths, pivots, strata and numeric level columns come from its first this
#: many rows, whatever its chunk size; a stream of no more rows is scored in memory. Ten times
#: the median heuristic's sample, so that pivots and strata see the spread of the data; the rows
#: are held once, which costs a few MB.
STREAM_FIT_ROWS = 10_000

#: What fits a stream: the low-rank estimator, or an in-memory fit when the stream is short.
StreamFit = ExactFit | LowRankFit | ConstantAttributesFit | LocalPermutationFit


def fit_stream(
    chunks: Iterable[pd.DataFrame],
    column_sets: Mapping[str, tuple[str, list[str], str | None]],
    options: Options,
) -> dict[str, StreamFit]:
    """The estimator of each set of columns over a stream of DataFrame chunks, in one pass.

    The first :data:`STREAM_FIT_ROWS` rows, gathered from however many chunks, fix the
    bandwidths, pivots and strata; a stream of no more rows gives the in-memory fit of its rows.
    Later rows are added in blocks of at least as many rows, so that small chunks cost no more
    than large ones. Level sets of discrete columns grow as rows arrive.
    """
    if options.method == "exact":
        raise ValueError("method='exact' cannot stream; use method='lowrank' or 'auto'.")
    blocks = row_blocks(selected_frames(chunks, column_sets), STREAM_FIT_ROWS)
    sample = next(blocks, None)
    if sample is None:
        raise ValueError("data is empty: the chunk iterator yielded no rows.")
    following = next(blocks, None)
    if following is None:
        return fit_in_memory(sample, column_sets, options)
    # limited per block, so that the caller's iterator runs with the caller's threads
    with single_blas_thread():
        streams = start_streams(sample, column_sets, options)
    for block in chain([following], blocks):
        with single_blas_thread():
            for stream in streams.values():
                stream.add(block)
    return {key: stream.estimator() for key, stream in streams.items()}


def fit_in_memory(
    frame: pd.DataFrame,
    column_sets: Mapping[str, tuple[str, list[str], str | None]],
    options: Options,
) -> dict[str, StreamFit]:
    """The in-memory fit of each set of columns of ``frame``: a short stream's."""
    with single_blas_thread():
        return {
            key: _chunk_problem(frame, columns, options).fit()
            for key, columns in column_sets.items()
        }


def start_streams(
    sample: pd.DataFrame,
    column_sets: Mapping[str, tuple[str, list[str], str | None]],
    options: Options,
) -> dict[str, StreamMoments]:
    """A :class:`StreamMoments` of each set of columns, fitted on ``sample`` and holding it."""
    return {
        key: StreamMoments.fit(sample, columns, options) for key, columns in column_sets.items()
    }


def selected_frames(
    chunks: Iterable[Any], column_sets: Mapping[str, tuple[str, list[str], str | None]]
) -> Iterator[pd.DataFrame]:
    """The columns of ``column_sets`` of each chunk, after checking that it is a DataFrame that
    has them; empty chunks are skipped."""
    for chunk in chunks:
        if not isinstance(chunk, pd.DataFrame):
            raise TypeError(f"data chunks must be pandas DataFrames; got {type(chunk).__name__}.")
        names = [name for columns in column_sets.values() for name in check_columns(chunk, columns)]
        if len(chunk):
            yield chunk[list(dict.fromkeys(names))]


def row_blocks(frames: Iterable[pd.DataFrame], size: int) -> Iterator[pd.DataFrame]:
    """The rows of ``frames`` in order, regrouped: the first ``size`` rows (all of them when
    there are no more), then blocks of at least ``size`` rows.

    Two rows are always held back for the last block, so that no block but a whole stream of
    one row has fewer than two rows (a score needs two).
    """
    pending: list[pd.DataFrame] = []
    rows = 0
    first = True
    for frame in frames:
        pending.append(frame)
        rows += len(frame)
        while rows >= size + 2:
            if not first and len(pending) == 2 and len(pending[1]) >= size:
                # a large chunk after the rows held back: those rows (two or more) go alone,
                # so that the chunk is not copied
                yield pending[0]
                pending, rows = pending[1:], len(pending[1])
                continue
            joined = _joined(pending)
            cut = size if first else rows - 2
            yield joined.iloc[:cut]
            pending, rows, first = [joined.iloc[cut:]], rows - cut, False
    if pending:
        yield _joined(pending)


def _joined(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


@dataclass
class StreamMoments:
    """Grouped moments of blocks of rows, with the bandwidths and feature maps of a stream's
    first rows (its fit sample, see :func:`fit_stream`)."""

    moments: GroupedMoments
    scalings: dict[str, Scaling]
    columns: tuple[str, list[str], str | None]
    options: Options
    #: the fit sample's range and row count, to notice blocks outside what it fitted
    ranges: RangeWatch

    @classmethod
    def fit(
        cls, first: pd.DataFrame, columns: tuple[str, list[str], str | None], options: Options
    ) -> StreamMoments:
        """Fit bandwidths, pivots and strata on ``first`` and accumulate it."""
        problem = _chunk_problem(first, columns, options)
        scalings = problem.scalings()
        roles = problem_roles(options.notion, problem, scalings)
        moments = GroupedMoments(roles, Role.GIVEN in roles, options.rank, options.ridge)
        moments.add(roles, problem.like)
        return cls(moments, scalings, columns, options, RangeWatch.of(problem))

    def add(self, chunk: pd.DataFrame) -> None:
        """Accumulate one more chunk."""
        problem = _chunk_problem(chunk, self.columns, self.options)
        self.ranges.check(problem)
        self.moments.add(problem_roles(self.options.notion, problem, self.scalings), problem.like)

    def empty(self) -> StreamMoments:
        """A copy with the fitted maps and no rows, to accumulate other chunks elsewhere."""
        return StreamMoments(
            self.moments.empty(), self.scalings, self.columns, self.options, self.ranges
        )

    def estimator(self) -> LowRankFit:
        """The low-rank estimator of every row accumulated.

        With a continuous conditioning variable its null (the permutation of the attribute
        rows alone, within local strata) needs the rows, which a stream does not keep: the
        null mean, and so the adjusted score, is NaN, with a warning.
        """
        fit = self.moments.fit(np.zeros((), dtype=np.float64), None)
        if self.moments.strata is not None and self.moments.strata.continuous:
            fit.terms = replace(fit.terms, expected_statistic=_unknown_stream_null)
        return fit


def _unknown_stream_null() -> float:
    warnings.warn(
        "The adjusted score of a stream with a continuous conditioning variable (y_true under "
        "EO, y_pred under CAL) is not computed: its permutation null needs the rows in memory. "
        "null_mean and adjusted are NaN; score in memory (a sample of rows will do) for them.",
        UserWarning,
        stacklevel=2,
    )
    return float("nan")


@dataclass
class RangeWatch:
    """Warns when a later block's numbers lie outside the range of the stream's fit sample.

    The bandwidths, low-rank pivots and strata of a stream come from its first rows (its fit
    sample): a file sorted by a column puts later rows where those pivots say little, and the
    score is then off (0.036 against 0.148 for 20,000 synthetic rows sorted by age, fitted on
    the first 2,000) without any error. Of exchangeable rows, about ``2 / (n₁ + 1)`` of a later
    block falls outside the range of a fit sample of ``n₁`` rows; a block with over five times
    that share (and over 1%) outside is flagged. Numeric columns of at most :data:`MAX_LEVELS`
    values in the fit sample are factored exactly over their levels, later ones included, and
    are not watched.
    """

    #: column name to (minimum, maximum) in the fit sample
    limits: dict[str, tuple[float, float]]
    first_rows: int
    warned: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, problem: Problem) -> RangeWatch:
        return cls(
            {
                name: (float(v.min()), float(v.max()))
                for name, v in _numeric_columns(problem)
                if np.unique(v).size > MAX_LEVELS
            },
            problem.n,
        )

    def check(self, problem: Problem) -> None:
        allowed = max(0.01, 10.0 / (self.first_rows + 1))
        for name, values in _numeric_columns(problem):
            if name in self.warned or name not in self.limits:
                continue
            low, high = self.limits[name]
            outside = float(np.mean((values < low) | (values > high)))
            if outside > allowed:
                self.warned.add(name)
                warnings.warn(
                    f"{outside:.0%} of a later block's values of {name!r} lie outside the range "
                    f"of the first {self.first_rows:,} rows ([{low:.4g}, {high:.4g}]), whose "
                    "bandwidths and pivots the stream uses: the score can be far off. Shuffle "
                    "the rows (a file sorted by a column does this), or put rows that span the "
                    "data first.",
                    UserWarning,
                    stacklevel=2,
                )


def _numeric_columns(problem: Problem) -> Iterable[tuple[str, np.ndarray]]:
    """The host values of every numeric column of a chunk's variables, by column name."""
    for variable in (problem.pred, problem.sensitive, problem.truth):
        if variable is None or variable.numeric is None:
            continue
        host = to_host(variable.numeric)
        for j, name in enumerate(variable.numeric_names):
            yield name, host[:, j]


def _chunk_problem(
    chunk: pd.DataFrame, columns: tuple[str, list[str], str | None], options: Options
) -> Problem:
    problem = Problem.from_arguments(*select_columns(chunk, columns), options)
    if options.attribute_kernel == "joint" and problem.sensitive.codes is not None:
        raise ValueError(
            "attribute_kernel='joint' one-hot encodes nominal sensitive features, which "
            "needs their levels up front; it cannot stream. Use attribute_kernel='product'."
        )
    return problem


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
