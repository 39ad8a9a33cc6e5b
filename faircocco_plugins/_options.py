"""The statistic's options, defined once: their accepted values, their defaults and why.

Every function that computes the statistic (the score, the report, the permutation test, the
batch statistic) and every adapter that stores its options (the torch penalty and constraint,
the AIF360 in-processing algorithm) takes its defaults from :data:`STATISTIC_OPTIONS` and
validates through :meth:`Options.check`. An option's default differs between entry points where
their uses differ; the reason is the option's ``why``, which the documentation's table of
options shows beside the defaults (``docs/options.rst`` renders :func:`options_table`).

The core's entry points do not write the options out: :func:`takes_options` gives each one
its options' parameters (defaults and annotations), fills the defaults of a call and, for the
score, writes their entries (:data:`OPTION_DOCS`) into the docstring. Type checkers see them
through the ``**keywords`` of :class:`StatisticKeywords`.

Adding an option means adding its :class:`StatisticOption` here, its entry in
:data:`OPTION_DOCS`, a field of :class:`Options` and of :class:`StatisticKeywords`, its use, and
its test (``tests/core/test_options.py`` checks every entry point's defaults against this table,
``tests/core/test_takes_options.py`` the fields and entries).
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import wraps
from types import MappingProxyType
from typing import Any, ParamSpec, TypedDict, TypeVar, Unpack

import numpy as np

from ._estimators.terms import Ridge
from ._kernels.registry import DEFAULT_KERNEL, KERNELS
from ._records.notions import NOTION_RECORDS, NOTIONS, in_words
from ._records.params import RANDOM_STATE, Interval

#: The entry points whose defaults differ, by the name the table of options gives them: the
#: functions and classes of each.
ENTRY_POINTS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "score": (
            "faircocco_score",
            "faircocco_statistic",
            "faircocco_report",
            "check_statistic_options",
        ),
        "test": ("independence_test",),
        "batch": ("BatchStatistic",),
        "penalty": (
            "faircocco_torch.FairCOCCOPenalty",
            "faircocco_torch.FairCOCCOConstraint",
        ),
        "in-processing": ("faircocco_aif360.FairCOCCOInprocessing",),
    }
)


@dataclass(frozen=True)
class Choice:
    """One of a few names."""

    values: tuple[str, ...]

    def check(self, value: Any, name: str) -> None:
        if not isinstance(value, str) or value not in self.values:
            raise ValueError(f"{name}={value!r} is not valid; expected one of {list(self.values)}.")

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class PositiveNumber:
    """A finite number above 0 (booleans are not numbers here), within ``span`` when given, or
    one of ``also``.

    Any other value, text and ``None`` included, is a ``ValueError`` naming the option.
    """

    also: tuple[str | None, ...] = ()
    span: tuple[float, float] | None = None

    def check(self, value: Any, name: str) -> None:
        if value is None or isinstance(value, str):
            if value in self.also:
                return
        elif _is_positive_number(value) and (
            self.span is None or self.span[0] <= value <= self.span[1]
        ):
            return
        raise ValueError(f"{name}={value!r} is not valid; expected {self.describe()}.")

    def describe(self) -> str:
        number = "a positive finite number"
        if self.span is not None:
            number = f"a number in [{self.span[0]:g}, {self.span[1]:g}]"
        return " or ".join([*(repr(v) for v in self.also), number])


def _is_positive_number(value: Any) -> bool:
    return (
        not isinstance(value, bool)
        and isinstance(value, int | float | np.floating)
        and bool(0 < value < np.inf)
    )


#: The ridges ``ε`` the statistic takes. Below, ``εN`` is lost in the rounding of the Gram
#: matrix: the exact estimator's Cholesky factorisation failed from 1e-14 at 2,000 rows, and
#: the low-rank one's conditioning operator from 1e-30. Above, the score has reached its
#: limit, the kernel alignment, to 1e-13, while the statistic shrinks as ``1 / ε²`` until it
#: underflows: the score was 0 from 1e160 (exact) and 1e200 (low-rank).
EPS_SPAN = (1e-10, 1e12)


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


@dataclass(frozen=True)
class StatisticOption:
    """One option of the statistic.

    Parameters
    ----------
    name : str
        The keyword argument.
    rule : Choice, PositiveNumber or Interval
        The accepted values; ``rule.check(value, name)`` raises a ``ValueError`` or
        ``TypeError`` naming the option.
    defaults : mapping of str to object
        The default at each entry point of :data:`ENTRY_POINTS` that takes the option.
    why : str
        One line: what the option does, and why its defaults differ where they do.
    convert : callable, optional
        Applied to an accepted value (``eps`` is held as a float).
    """

    name: str
    rule: Choice | PositiveNumber | Interval
    defaults: Mapping[str, Any]
    why: str
    convert: Callable[[Any], Any] | None = field(default=None, repr=False)

    def check(self, value: Any) -> Any:
        """``value``, checked and converted."""
        self.rule.check(value, self.name)
        return value if self.convert is None else self.convert(value)


#: The statistic's options, in the order of the public signatures.
STATISTIC_OPTIONS: Mapping[str, StatisticOption] = MappingProxyType(
    {
        option.name: option
        for option in (
            StatisticOption(
                "notion",
                Choice(NOTIONS),
                {
                    "score": "dp",
                    "test": "dp",
                    "batch": "eo",
                    "penalty": "eo",
                    "in-processing": "eo",
                },
                "The fairness notion. Training defaults to equalised odds, the paper's choice "
                "for its experiments; measuring to demographic parity, which needs no outcomes.",
            ),
            StatisticOption(
                "method",
                Choice(("auto", "exact", "lowrank")),
                {"score": "auto", "test": "auto", "penalty": "auto"},
                "The estimator: 'auto' is exact below 128 rows, at the default rank wherever "
                "the kernel's factor may hold as many pivots as rows, and, up to 10,000 rows, "
                "wherever a cost model estimates it faster; low-rank otherwise. The batch "
                "statistic is low-rank by construction, so it takes no method.",
            ),
            StatisticOption(
                "rank",
                Interval("integer", 1, optional=True),
                {"score": None, "test": 10, "batch": None, "penalty": None},
                "Cap on the pivots of each continuous low-rank factor; None means the kernel's "
                "default (100 for the Gaussian; pivoting stops earlier once the residual is "
                "below 1e-6 of the kernel's diagonal). The test's 10 keeps its features near "
                "the size of RCIT's, for its time, and lost no power at 300 rows where five "
                "pivots did (the performance page).",
            ),
            StatisticOption(
                "eps",
                PositiveNumber(span=EPS_SPAN),
                {"score": 1e-4, "test": 1.0, "batch": 1e-4, "penalty": 0.3},
                "The ridge ε of R = G (G + εN I)⁻¹. 1e-4 is the paper's, for the score; the "
                "test's 1.0 is for power (at 1e-4 it finds y_pred = y + 0.15 a + noise in 10% "
                "of repetitions at N = 1000); a penalty on batches of 64-256 rows needs ε far "
                "above N^(-1/3) for the operators to estimate their population values, and at "
                "1e-4 its gradient drove training to collapse.",
                convert=float,
            ),
            StatisticOption(
                "conditioning_eps",
                PositiveNumber(also=(None,), span=EPS_SPAN),
                {"score": None, "test": 1e-5, "batch": None, "penalty": 1e-4},
                "ε of the conditioning variable's operator under EO and CAL; None means eps. "
                "The penalty keeps it at 1e-4 while its eps is 0.3, so that conditioning on "
                "the outcome stays almost exact and predicting the outcome is not penalised. "
                "The test's 1e-5 conditions almost exactly too, as KCI's and RCIT's residual "
                "regressions do, so that its spectral null, which has no term for what a "
                "larger ridge leaves of the conditioning variable, holds its level.",
                convert=_optional_float,
            ),
            StatisticOption(
                "attribute_kernel",
                Choice(("product", "joint")),
                {"score": "product", "test": "joint", "batch": "product", "penalty": "product"},
                "'product' multiplies per-attribute kernels, each with its own bandwidth; "
                "'joint' is the paper's single Gaussian on the whole attribute vector, each "
                "numeric column divided by its standard deviation first so that units do not "
                "matter. The test takes 'joint': with several attributes the product of their "
                "kernels spreads the test's power over every combination of levels, and it "
                "found a continuous attribute's effect among three mixed ones in 10-28% of "
                "data sets where 'joint' found it in 50-96% (the performance page).",
            ),
            StatisticOption(
                "kernel",
                Choice(tuple(KERNELS)),
                dict.fromkeys(
                    ("score", "test", "batch", "penalty", "in-processing"), DEFAULT_KERNEL
                ),
                "The kernel of numeric columns (nominal columns get delta kernels): "
                + "; ".join(f"'{k.name}' is {k.description}" for k in KERNELS.values()),
            ),
            StatisticOption(
                "bandwidth",
                PositiveNumber(also=("median",)),
                {"score": "median", "test": "median", "batch": "median", "penalty": "median"},
                "The median heuristic on at most 1000 sampled rows, or one fixed bandwidth.",
            ),
            StatisticOption(
                "random_state",
                RANDOM_STATE,
                {"score": None, "test": None, "batch": None},
                "Seed of the bandwidth sample (and of the test's permutations); None means "
                "seed 0, so results are deterministic. A penalty's batches come from the "
                "training loop, which holds the seed.",
            ),
        )
    }
)


def statistic_default(name: str, entry_point: str = "score") -> Any:
    """The default of option ``name`` at ``entry_point`` (a key of :data:`ENTRY_POINTS`).

    Examples
    --------
    >>> from faircocco_plugins.plugins import statistic_default
    >>> statistic_default("eps"), statistic_default("eps", "penalty")
    (0.0001, 0.3)
    """
    return STATISTIC_OPTIONS[name].defaults[entry_point]


def _entries(parameters: str) -> Mapping[str, str]:
    """A numpydoc Parameters section's entries by name: each its first line and those below."""
    entries: dict[str, list[str]] = {}
    for line in parameters.splitlines():
        if not line.startswith(" "):
            entries[line.partition(" : ")[0]] = []
        entries[next(reversed(entries))].append(line)
    return MappingProxyType({name: "\n".join(lines) for name, lines in entries.items()})


def _notion_entry() -> str:
    """The notion's entry, from the notions' records: each by name and independence."""
    choices = ", ".join(f'"{name}"' for name in NOTIONS)
    described = in_words([f"{r.plain_title} ({r.independence})" for r in NOTION_RECORDS.values()])
    text = textwrap.fill(
        described[0].upper() + described[1:] + ".",
        width=96,
        initial_indent="    ",
        subsequent_indent="    ",
    )
    return f"notion : {{{choices}}}\n{text}\n"


def _kernel_entry() -> str:
    """The ``kernel`` option's docstring entry: each registered kernel on a line of its own."""
    names = ", ".join(f'"{name}"' for name in KERNELS)
    lines = [f"    ``{k.name}``: {k.description}" for k in KERNELS.values()]
    return "\n".join(
        [
            f"kernel : {{{names}}}",
            f'    The kernel of numeric columns (default "{DEFAULT_KERNEL}"); nominal columns '
            "get delta kernels.",
            *lines,
        ]
    )


#: The options' docstring entries, written out but for those generated from the records of the
#: notions and the registered kernels.
_OPTION_ENTRIES: Mapping[str, str] = MappingProxyType(
    {
        **_entries(
            _notion_entry()
            + """\
method : {"auto", "exact", "lowrank"}
    ``exact`` is the paper's O(N³) estimator; ``lowrank`` costs O(N r²) with discrete columns
    factored exactly; ``auto`` uses ``exact`` below 128 rows, at the default ``rank`` wherever
    the kernel's factor may hold as many pivots as rows, and, up to 10,000 rows, wherever a
    cost model of both routes (rows, feature widths, notion) estimates it faster.
rank : int, optional
    Cap on the number of pivots of each continuous factor (default: the kernel's, 100 for
    the Gaussian; pivoting stops earlier once the residual is below 1e-6 of the kernel's
    diagonal).
eps : float
    Regularisation ε of ``R = G (G + εN I)⁻¹``, in [1e-10, 1e12] (below, ``εN`` is lost in
    the rounding of ``G``; above, the score has reached its limit). Its default differs
    between the score, the permutation test and a training penalty; :ref:`statistic-options`
    says why.
conditioning_eps : float, optional
    ε of the conditioning variable's operator under EO and CAL (the outcome, or the
    predictions), in the range of ``eps``; ``None`` means ``eps``, the score's default (the
    test's is 1e-5 and a penalty's 1e-4, :ref:`statistic-options`). A small one conditions
    almost exactly, so that a dependence running through the outcome is not counted,
    whatever ``eps`` the other operators use (see the training guide).
attribute_kernel : {"product", "joint"}
    ``product`` multiplies per-attribute kernels, each with its own bandwidth; ``joint`` is
    the paper's single Gaussian on the whole attribute vector (nominal columns one-hot), with
    each numeric column divided by its standard deviation first, so that the score does not
    depend on the columns' units (the paper takes them as they are). The test's default is
    ``joint``, the others' ``product`` (:ref:`statistic-options`).
bandwidth : "median" or float
    The median heuristic on at most 1000 sampled rows, or one fixed bandwidth.
random_state : int, optional
    Seed of the bandwidth sample, in [0, 2**32 - 1]; ``None`` means seed 0, so scores
    are deterministic."""
        ),
        "kernel": _kernel_entry(),
    }
)
#: Each option's entry in a docstring's Parameters section, in the order of the table, written
#: into the score's by :func:`takes_options`; the other entry points refer to the score's.
OPTION_DOCS: Mapping[str, str] = MappingProxyType(
    {name: _OPTION_ENTRIES[name] for name in STATISTIC_OPTIONS}
)


class _KernelKeywords(TypedDict, total=False):
    """The options of the kernels and their ridges, which every entry point takes."""

    rank: int | None
    eps: float
    conditioning_eps: float | None
    attribute_kernel: str
    kernel: str
    bandwidth: str | float


class BatchKeywords(_KernelKeywords, total=False):
    """The options :class:`faircocco_plugins.BatchStatistic` takes as keywords, for type
    checkers (``**keywords: Unpack[BatchKeywords]``): all but its positional ``notion`` and
    ``method`` (it is low-rank by construction). The types are :class:`Options`'."""

    random_state: int | None


class PenaltyKeywords(_KernelKeywords, total=False):
    """The options the torch adapter's FairCOCCO penalties take as keywords, for type checkers:
    all but their own ``notion``, and no ``random_state`` (the training loop holds the seed)."""

    method: str


class StatisticKeywords(BatchKeywords, total=False):
    """Every option as a keyword, for type checkers (``**keywords: Unpack[StatisticKeywords]``)."""

    notion: str
    method: str


@dataclass(frozen=True, kw_only=True)
class Options:
    """Validated settings of the statistic: one field per :data:`STATISTIC_OPTIONS` entry."""

    notion: str
    method: str
    rank: int | None
    eps: float
    conditioning_eps: float | None
    attribute_kernel: str
    kernel: str
    bandwidth: str | float
    random_state: int | None

    @property
    def ridge(self) -> Ridge:
        """The ridges of the operators: ``conditioning_eps`` (default ``eps``) for ``c``."""
        conditioning = self.eps if self.conditioning_eps is None else self.conditioning_eps
        return Ridge(self.eps, conditioning)

    @classmethod
    def check(cls, **values: Any) -> Options:
        """Check every option, in the order of :data:`STATISTIC_OPTIONS`; an option not given
        takes its ``"score"`` default."""
        unknown = sorted(set(values) - set(STATISTIC_OPTIONS))
        if unknown:
            raise TypeError(f"unknown options {unknown}; expected {list(STATISTIC_OPTIONS)}.")
        return cls(
            **{
                name: option.check(values.get(name, option.defaults["score"]))
                for name, option in STATISTIC_OPTIONS.items()
            }
        )


P = ParamSpec("P")
T = TypeVar("T")


def takes_options(
    entry_point: str,
    *,
    after: str | None = None,
    order: Sequence[str] = (),
    positional: Sequence[str] = (),
    document: bool = False,
) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Give a function the options of ``entry_point`` (a key of :data:`ENTRY_POINTS`) from the
    table, in the spirit of scikit-learn's ``validate_params``.

    The function takes the options as ``**keywords`` (typed with :class:`StatisticKeywords`,
    :class:`BatchKeywords` or :class:`PenaltyKeywords`, so that type checkers see them), and may
    declare some itself (``BatchStatistic``'s positional ``notion``). The decorated function
    shows them in its signature as keyword-only parameters (or, those named in ``positional``,
    after its own positional ones), with their defaults at ``entry_point`` and the annotations
    of :class:`Options`; each call receives every option, those not given at their defaults,
    so that the function validates them all with :meth:`Options.check`. A keyword that is
    neither a parameter nor an option raises Python's own ``TypeError``.

    Parameters
    ----------
    entry_point : str
        Whose defaults the options take; the options are those with a default there.
    after : str, optional
        The keyword-only parameter the options follow; by default they come first.
    order : sequence of str, optional
        Instead, the order of every keyword-only parameter, options included; one left out,
        or a name that is neither, is a ``TypeError`` when the function is decorated, so that
        no option silently drops out of the signature.
    positional : sequence of str, optional
        Options that may also be passed by position, in this order after the function's own
        positional parameters (the torch penalties' ``method, rank, eps, attribute_kernel``).
    document : bool
        Write the options' entries (:data:`OPTION_DOCS`) into the docstring's Parameters
        section, after ``after``'s entry.
    """

    def decorate(function: Callable[P, T]) -> Callable[P, T]:
        signature = inspect.signature(function)
        own = [p for p in signature.parameters.values() if p.kind != p.VAR_KEYWORD]
        names = [
            name
            for name, option in STATISTIC_OPTIONS.items()
            if entry_point in option.defaults and name not in signature.parameters
        ]
        defaults = {name: statistic_default(name, entry_point) for name in names}
        parameters = {
            name: inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=default,
                annotation=Options.__annotations__[name],
            )
            for name, default in defaults.items()
        }
        leading = [
            parameters.pop(name).replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD)
            for name in positional
        ]
        options = list(parameters.values())
        keyword = [p for p in own if p.kind == p.KEYWORD_ONLY]
        if order:
            by_name = {p.name: p for p in [*keyword, *options]}
            _check_order(function.__qualname__, order, by_name)
            keyword = [by_name[name] for name in order]
        else:
            at = 0 if after is None else [p.name for p in keyword].index(after) + 1
            keyword[at:at] = options
        public = signature.replace(
            parameters=[*(p for p in own if p.kind != p.KEYWORD_ONLY), *leading, *keyword]
        )

        @wraps(function)
        def with_options(*args: P.args, **kwargs: P.kwargs) -> T:
            if leading:
                # options passed by position are bound to their names, as the function takes
                # every option by keyword
                try:
                    kwargs = public.bind(*args, **kwargs).arguments  # type: ignore[assignment]
                except TypeError as error:
                    raise TypeError(f"{function.__qualname__}() {error}") from None
                args = ()  # type: ignore[assignment]
            for name in kwargs:
                if name not in public.parameters:
                    raise TypeError(
                        f"{function.__qualname__}() got an unexpected keyword argument {name!r}"
                    )
            return function(*args, **{**defaults, **kwargs})

        with_options.__signature__ = public  # type: ignore[attr-defined]
        if document:
            with_options.__doc__ = _with_entries(function.__doc__ or "", after, names)
        return with_options

    return decorate


def _check_order(function: str, order: Sequence[str], names: Iterable[str]) -> None:
    """Refuse an ``order`` of :func:`takes_options` that is not exactly the keyword-only
    parameters ``names`` of ``function``, options included."""
    missing = [name for name in names if name not in order]
    unknown = [name for name in order if name not in names]
    if missing or unknown or len(set(order)) != len(order):
        raise TypeError(
            f"takes_options(order=...) of {function} must list each keyword-only parameter "
            f"once, options included; it leaves out {missing} and has unknown or repeated "
            f"names {unknown or [n for n in order if list(order).count(n) > 1]}."
        )


def _with_entries(docstring: str, after: str | None, names: Sequence[str]) -> str:
    """``docstring`` with the entries of the options ``names`` after the entry of ``after``."""
    lines = docstring.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(f"    {after} :")) + 1
    while lines[at].startswith(" " * 8):
        at += 1
    entries = [f"    {line}" for name in names for line in OPTION_DOCS[name].split("\n")]
    return "\n".join([*lines[:at], *entries, *lines[at:]])


@takes_options("score")
def check_statistic_options(**keywords: Unpack[StatisticKeywords]) -> None:
    """Check options of :func:`faircocco_plugins.faircocco_statistic` without computing it.

    The same checks, and the same errors, as the statistic's, so that an adapter that stores
    them (a penalty, a metric) fails when it is built rather than on its first batch.

    Raises
    ------
    ValueError or TypeError
        Naming the first invalid option.

    Examples
    --------
    >>> from faircocco_plugins.plugins import check_statistic_options
    >>> check_statistic_options(notion="eo", eps=0.3)
    >>> check_statistic_options(notion="parity")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: notion='parity' is not valid; expected one of ['dp', 'eo', ...].
    """
    Options.check(**keywords)


def options_table() -> str:
    """The reStructuredText table of :data:`STATISTIC_OPTIONS`: accepted values, the default
    at each entry point and why, for the user guide."""
    entry_points = list(ENTRY_POINTS)
    header = ["option", "accepted", *entry_points, "why"]
    rows = [
        [
            f"``{option.name}``",
            option.rule.describe(),
            *(
                f"``{option.defaults[entry]!r}``" if entry in option.defaults else "—"
                for entry in entry_points
            ),
            option.why,
        ]
        for option in STATISTIC_OPTIONS.values()
    ]
    lines = [
        f"* **{entry}**: " + ", ".join(f"``{name}``" for name in names)
        for entry, names in ENTRY_POINTS.items()
    ]
    lines += [
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 10 14 8 8 8 8 8 36",
        "",
    ]
    for row in [header, *rows]:
        lines.append(f"   * - {row[0]}")
        lines.extend(f"     - {cell}" for cell in row[1:])
    return "\n".join(lines) + "\n"
