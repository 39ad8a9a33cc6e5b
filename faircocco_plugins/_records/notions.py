"""The project's vocabulary, defined once: learning tasks, fairness notions and kinds of column.

The plugin contract (:mod:`faircocco_plugins.plugins`) exports these names; the input checks and
the dataset registry, which the contract itself imports, take them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

#: Learning tasks.
TASKS: tuple[Literal["classification", "regression"], ...] = ("classification", "regression")


#: How the paper writes the predictions and the true outcome.
_SYMBOLS = {"pred": "Ŷ", "truth": "Y"}


@dataclass(frozen=True)
class Notion:
    """A fairness notion, defined once: a conditional independence of one variable from the
    sensitive attributes, and its names.

    Attributes
    ----------
    name : str
        Its id in every option and table: ``"dp"``, ``"eo"``, ``"cal"`` or ``"eopp"``.
    title : str
        How pages and messages name it.
    measured : {"pred", "truth"}
        The variable that should not depend on the attributes: the predictions or the outcome.
    given : {"pred", "truth"} or None
        The variable it is conditioned on, if any.
    given_label : {"positive"} or None
        The one label of ``given`` the notion is conditioned on, if it is restricted to one:
        ``"positive"`` for the positive class (1 of labels in {0, 1} or {-1, 1}, ``True`` of
        booleans, as :func:`faircocco_plugins.plugins.positive_labels` reads them). It then
        measures the rows with that label only, where ``given`` is constant, so the statistic
        conditions on nothing there (:attr:`conditioned_on`); ``None`` conditions on every
        value of ``given``.
    fairlearn_moment : str or None
        fairlearn's reductions constraint of the same notion (``fairlearn.reductions``).
    fairlearn_constraint : str or None
        Its name in fairlearn's ``ThresholdOptimizer(constraints=...)``.
    aif360_metric : str or None
        AIF360's group metric of the same notion, as ``RejectOptionClassification`` names it.

    Examples
    --------
    >>> from faircocco_plugins._records.notions import notion_named
    >>> eo = notion_named("eo")
    >>> eo.measured, eo.given, eo.needs_outcome
    ('pred', 'truth', True)
    >>> eo.conditioned_on, eo.restricts_rows, eo.tasks
    ('truth', False, ('classification', 'regression'))
    >>> notion_named("dp").outcome([1, 0]) is None
    True
    """

    name: str
    title: str
    measured: Literal["pred", "truth"]
    given: Literal["pred", "truth"] | None
    given_label: Literal["positive"] | None = None
    fairlearn_moment: str | None = None
    fairlearn_constraint: str | None = None
    aif360_metric: str | None = None

    def __post_init__(self) -> None:
        if self.given_label is not None and self.given != "truth":
            raise ValueError(
                f"notion {self.name!r}: given_label restricts the rows to a label of the true "
                f"outcome, so given must be 'truth'; got {self.given!r}."
            )

    @property
    def restricts_rows(self) -> bool:
        """Whether the notion measures only the rows whose outcome has :attr:`given_label`."""
        return self.given_label is not None

    @property
    def conditioned_on(self) -> Literal["pred", "truth"] | None:
        """The variable the statistic conditions on, on the rows the notion measures: ``given``,
        or ``None`` where those rows share one label of it (:attr:`given_label`)."""
        return None if self.restricts_rows else self.given

    @property
    def tasks(self) -> tuple[Literal["classification", "regression"], ...]:
        """The learning tasks the notion applies to: a label of the outcome needs classes."""
        return ("classification",) if self.restricts_rows else TASKS

    @property
    def plain_title(self) -> str:
        """Its title without the abbreviation: ``"equalised odds"``."""
        return self.title.rsplit(" (", 1)[0]

    @property
    def independence(self) -> str:
        """The (conditional) independence it asks for, as the paper writes it: ``"Ŷ ⊥ A | Y"``;
        ``"Ŷ ⊥ A | Y = 1"`` where it is restricted to the positive class."""
        text = f"{_SYMBOLS[self.measured]} ⊥ A"
        if self.given is not None:
            text += f" | {_SYMBOLS[self.given]}" + (" = 1" if self.restricts_rows else "")
        return text

    @property
    def needs_outcome(self) -> bool:
        """Whether the score reads the true outcome (as the measured or the given variable)."""
        return "truth" in (self.measured, self.given)

    def outcome(self, y_true: Any) -> Any:
        """``y_true`` where the notion reads it, else ``None``."""
        return y_true if self.needs_outcome else None


#: Fairness notions: demographic parity (Ŷ ⊥ A), equalised odds (Ŷ ⊥ A | Y), calibration
#: (Y ⊥ A | Ŷ) and equal opportunity (Ŷ ⊥ A | Y = 1: equalised odds on the positive class
#: alone, as fairlearn's TruePositiveRateParity), by name.
NOTION_RECORDS: dict[str, Notion] = {
    notion.name: notion
    for notion in (
        Notion(
            "dp",
            "demographic parity (DP)",
            measured="pred",
            given=None,
            fairlearn_moment="DemographicParity",
            fairlearn_constraint="demographic_parity",
            aif360_metric="Statistical parity difference",
        ),
        Notion(
            "eo",
            "equalised odds (EO)",
            measured="pred",
            given="truth",
            fairlearn_moment="EqualizedOdds",
            fairlearn_constraint="equalized_odds",
            aif360_metric="Average odds difference",
        ),
        Notion("cal", "calibration (CAL)", measured="truth", given="pred"),
        Notion(
            "eopp",
            "equal opportunity (EOPP)",
            measured="pred",
            given="truth",
            given_label="positive",
            fairlearn_moment="TruePositiveRateParity",
            fairlearn_constraint="true_positive_rate_parity",
            aif360_metric="Equal opportunity difference",
        ),
    )
}
#: The notions' names.
NOTIONS: tuple[str, ...] = tuple(NOTION_RECORDS)


def in_words(words: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``: a choice among a few words, for messages and docs."""
    return " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def notion_named(name: str) -> Notion:
    """The notion of a name; a clear error for an unknown one.

    Parameters
    ----------
    name : str

    Returns
    -------
    Notion
    """
    if not isinstance(name, str) or name not in NOTION_RECORDS:
        raise ValueError(f"notion={name!r} is not valid; expected one of {list(NOTIONS)}.")
    return NOTION_RECORDS[name]


def toolkit_name(name: str, toolkit_field: str) -> str:
    """A notion's name in a toolkit's API (a :class:`Notion` field such as
    ``"fairlearn_moment"``); a clear error for a notion the toolkit does not name.

    Examples
    --------
    >>> from faircocco_plugins._records.notions import toolkit_name
    >>> toolkit_name("eo", "fairlearn_constraint")
    'equalized_odds'
    >>> toolkit_name("cal", "fairlearn_moment")
    Traceback (most recent call last):
    ...
    ValueError: notion='cal' is not valid; expected 'dp', 'eo' or 'eopp'.
    """
    named = {n: getattr(r, toolkit_field) for n, r in NOTION_RECORDS.items()}
    named = {n: value for n, value in named.items() if value is not None}
    if name not in named:
        expected = in_words([repr(n) for n in named])
        raise ValueError(f"notion={name!r} is not valid; expected {expected}.")
    return str(named[name])


#: Kinds of a sensitive attribute or of an outcome.
KINDS: tuple[Literal["binary", "categorical", "continuous"], ...] = (
    "binary",
    "categorical",
    "continuous",
)
