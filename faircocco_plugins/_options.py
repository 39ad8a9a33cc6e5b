"""The statistic's options, defined once: their accepted values, their defaults and why.

Every function that computes the statistic (the score, the report, the permutation test, the
batch statistic) and every adapter that stores its options (the torch penalty and constraint,
the AIF360 in-processing algorithm) takes its defaults from :data:`STATISTIC_OPTIONS` and
validates through :meth:`Options.check`. An option's default differs between entry points where
their uses differ; the reason is the option's ``why``, which the documentation's table of
options shows beside the defaults (``docs/options.rst`` renders :func:`options_table`).

Adding an option means adding its :class:`StatisticOption` here, a field of :class:`Options`,
its use, and its test (``tests/core/test_options.py`` checks every entry point's
defaults against this table).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from ._params import RANDOM_STATE, Interval
from ._terms import Ridge
from ._vocabulary import NOTIONS

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
    """A finite number above 0 (booleans are not numbers here), or one of ``also``.

    Any other value, text and ``None`` included, is a ``ValueError`` naming the option.
    """

    also: tuple[str | None, ...] = ()

    def check(self, value: Any, name: str) -> None:
        if value is None or isinstance(value, str):
            if value in self.also:
                return
        elif _is_positive_number(value):
            return
        raise ValueError(f"{name}={value!r} is not valid; expected {self.describe()}.")

    def describe(self) -> str:
        return " or ".join([*(repr(v) for v in self.also), "a positive finite number"])


def _is_positive_number(value: Any) -> bool:
    return (
        not isinstance(value, bool)
        and isinstance(value, int | float | np.floating)
        and bool(0 < value < np.inf)
    )


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
                "The estimator: 'auto' is exact below 128 rows and low-rank above. The batch "
                "statistic is low-rank by construction, so it takes no method.",
            ),
            StatisticOption(
                "rank",
                Interval("integer", 1, optional=True),
                {"score": None, "test": None, "batch": None, "penalty": None},
                "Cap on the pivots of each continuous low-rank factor; None means 100 (pivoting "
                "stops earlier once the residual is below 1e-6).",
            ),
            StatisticOption(
                "eps",
                PositiveNumber(),
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
                PositiveNumber(also=(None,)),
                {"score": None, "test": None, "batch": None, "penalty": 1e-4},
                "ε of the conditioning variable's operator under EO and CAL; None means eps. "
                "The penalty keeps it at 1e-4 while its eps is 0.3, so that conditioning on "
                "the outcome stays almost exact and predicting the outcome is not penalised.",
                convert=_optional_float,
            ),
            StatisticOption(
                "attribute_kernel",
                Choice(("product", "joint")),
                {"score": "product", "test": "product", "batch": "product", "penalty": "product"},
                "'product' multiplies per-attribute kernels, each with its own bandwidth; "
                "'joint' is the paper's single Gaussian on the whole attribute vector, each "
                "numeric column divided by its standard deviation first so that units do not "
                "matter.",
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


@dataclass(frozen=True, kw_only=True)
class Options:
    """Validated settings of the statistic: one field per :data:`STATISTIC_OPTIONS` entry."""

    notion: str
    method: str
    rank: int | None
    eps: float
    conditioning_eps: float | None
    attribute_kernel: str
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

    @classmethod
    def of_call(cls, arguments: Mapping[str, Any], **fixed: Any) -> Options:
        """The options among a call's ``arguments`` (its ``locals()``), with ``fixed`` ones
        that the entry point does not take as arguments (``method="lowrank"``)."""
        given = {name: arguments[name] for name in STATISTIC_OPTIONS if name in arguments}
        return cls.check(**given, **fixed)


def check_statistic_options(
    *,
    notion: str = statistic_default("notion"),
    method: str = statistic_default("method"),
    rank: int | None = statistic_default("rank"),
    eps: float = statistic_default("eps"),
    conditioning_eps: float | None = statistic_default("conditioning_eps"),
    attribute_kernel: str = statistic_default("attribute_kernel"),
    bandwidth: str | float = statistic_default("bandwidth"),
    random_state: int | None = statistic_default("random_state"),
) -> None:
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
    >>> check_statistic_options(notion="parity")
    Traceback (most recent call last):
        ...
    ValueError: notion='parity' is not valid; expected one of ['dp', 'eo', 'cal'].
    """
    Options.of_call(locals())


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
