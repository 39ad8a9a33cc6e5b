"""The capability table (the paper's Table 2), built from the methods' declared capabilities.

Nothing here is written by hand: every mark comes from a :class:`MethodSpec`'s
:class:`Capabilities`, so the table changes when an adapter changes what it declares.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from .._records.notions import KINDS, NOTION_RECORDS, NOTIONS
from ..plugins import MethodSpec, available_methods

#: Mark of a supported capability.
YES = "✓"
#: Mark of an unsupported capability.
NO = "✗"
#: The column of each notion: its name in capitals.
NOTION_COLUMNS: dict[str, str] = {notion: notion.upper() for notion in NOTIONS}
#: The notions that read the true outcome, in capitals, for the notes on outcome kinds.
_READING_OUTCOME = "/".join(
    NOTION_COLUMNS[n] for n, record in NOTION_RECORDS.items() if record.needs_outcome
)
#: Columns of :func:`capability_table`, in order.
CAPABILITY_COLUMNS: tuple[str, ...] = (
    *NOTION_COLUMNS.values(),
    "binary",
    "categorical",
    "continuous",
    "several attributes",
    "regression",
    "needs gradients",
    "notes",
)
#: How each ``multiple_attributes`` value is shown in the "several attributes" column.
SEVERAL_ATTRIBUTES: dict[str, str] = {"joint": f"{YES} joint", "sum": f"{YES} sum", "single": NO}
#: What the marks mean, printed under the table.
LEGEND = (
    f"{', '.join(NOTION_COLUMNS.values())}: fairness notions the method can train for. "
    "binary, categorical, continuous: "
    "kinds of sensitive attribute it accepts. several attributes: 'joint' measures dependence "
    "on the attributes' combination (protecting every attribute and their intersections); "
    "'sum' adds one term per attribute, which protects each attribute on its own but not "
    "their combination; ✗ means one attribute only. regression: continuous outcomes as the "
    "learning task. needs gradients: the method trains a model by gradient descent with a "
    "differentiable fairness term."
)


def capability_table(methods: Mapping[str, MethodSpec] | None = None) -> pd.DataFrame:
    """Which method supports which notion, attribute kind, several attributes and regression.

    Parameters
    ----------
    methods : mapping of str to MethodSpec, optional
        The methods to describe, by name; default: every registered method
        (:func:`available_methods`, which raises on broken entry points).

    Returns
    -------
    pandas.DataFrame
        One row per method (index ``method``, in the mapping's order) and the columns of
        :data:`CAPABILITY_COLUMNS`: ``"✓"`` or ``"✗"`` per notion, attribute kind, regression
        and gradient need; ``"✓ joint"``, ``"✓ sum"`` or ``"✗"`` for several attributes;
        ``notes`` joins the method's own note with limits that have no column of their own
        (no classification, the outcome kinds accepted under the notions that read it).

    Examples
    --------
    >>> from faircocco_plugins.bench import capability_table
    >>> from faircocco_plugins.plugins import Capabilities, MethodSpec
    >>> spec = MethodSpec(
    ...     name="plain", description="a fairness-unaware model",
    ...     capabilities=Capabilities(
    ...         tasks=("classification",), notions=("dp", "eo"), attributes=("binary",),
    ...         outcomes=("binary",), multiple_attributes="single", needs_gradients=False),
    ...     factory=lambda **params: None,
    ... )
    >>> table = capability_table({"plain": spec})
    >>> table.loc["plain", ["DP", "CAL", "several attributes"]].tolist()
    ['✓', '✗', '✗']
    """
    if methods is None:
        methods = available_methods()
    if not isinstance(methods, Mapping):
        raise TypeError(
            f"methods must be a mapping of names to MethodSpec; got {type(methods).__name__}."
        )
    rows = {}
    for name, spec in methods.items():
        if not isinstance(spec, MethodSpec):
            raise TypeError(f"methods[{name!r}] must be a MethodSpec; got {type(spec).__name__}.")
        rows[str(name)] = _row(spec)
    table = pd.DataFrame.from_dict(rows, orient="index", columns=list(CAPABILITY_COLUMNS))
    table.index.name = "method"
    return table.astype(object)


def _row(spec: MethodSpec) -> list[str]:
    caps = spec.capabilities
    marks = [_mark(notion in caps.notions) for notion in NOTIONS]
    marks += [_mark(kind in caps.attributes) for kind in KINDS]
    marks.append(SEVERAL_ATTRIBUTES[caps.multiple_attributes])
    marks.append(_mark("regression" in caps.tasks))
    marks.append(_mark(caps.needs_gradients))
    marks.append(_notes(spec))
    return marks


def _notes(spec: MethodSpec) -> str:
    caps = spec.capabilities
    notes = []
    if "classification" not in caps.tasks:
        notes.append("no classification")
    reads_outcome = any(NOTION_RECORDS[notion].needs_outcome for notion in caps.notions)
    if reads_outcome and set(caps.outcomes) != set(KINDS):
        accepted = ", ".join(caps.outcomes) if caps.outcomes else "none"
        notes.append(f"outcomes under {_READING_OUTCOME}: {accepted}")
    if caps.attributes_at_prediction:
        notes.append("needs the attributes at prediction")
    if caps.note:
        notes.append(caps.note)
    return "; ".join(notes)


def _mark(supported: bool) -> str:
    return YES if supported else NO
