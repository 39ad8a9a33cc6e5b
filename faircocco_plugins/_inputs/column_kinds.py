"""The rules that give a column its kind: ``"binary"``, ``"categorical"`` or ``"continuous"``.

The harness classes datasets by them, and adapters declare and check what they support with
them; the plugin contract (:mod:`faircocco_plugins.plugins`) exports them.
"""

from __future__ import annotations

import pandas as pd

from .._records.notions import TASKS
from .variables import is_nominal


def attribute_kind(column: pd.Series) -> str:
    """The kind of a sensitive attribute: ``"binary"``, ``"categorical"`` or ``"continuous"``.

    Nominal columns (bool, categorical, string; see :func:`faircocco_plugins.is_nominal`) are
    binary with at most two levels and categorical otherwise; numeric columns are binary with
    at most two distinct values and continuous otherwise.

    Parameters
    ----------
    column : pandas.Series

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.plugins import attribute_kind
    >>> attribute_kind(pd.Series(["a", "b", "c"])), attribute_kind(pd.Series([0.5, 1.5, 2.0]))
    ('categorical', 'continuous')
    """
    if not isinstance(column, pd.Series):
        raise TypeError(f"column must be a pandas Series; got {type(column).__name__}.")
    return kind_from_levels(column.nunique(dropna=True), nominal=is_nominal(column))


def kind_from_levels(levels: int, *, nominal: bool) -> str:
    """The kind rule of :func:`attribute_kind`, from a column's number of distinct values.

    Parameters
    ----------
    levels : int
        Distinct values of the column.
    nominal : bool
        Whether its values are names (levels) rather than numbers.

    Returns
    -------
    {"binary", "categorical", "continuous"}

    Examples
    --------
    >>> from faircocco_plugins.plugins import kind_from_levels
    >>> kind_from_levels(2, nominal=False), kind_from_levels(5, nominal=True)
    ('binary', 'categorical')
    """
    if levels <= 2:
        return "binary"
    return "categorical" if nominal else "continuous"


def outcome_kind(y: pd.Series, task: str) -> str:
    """The kind of a true outcome: ``"binary"``, ``"categorical"`` or ``"continuous"``.

    Classification outcomes are binary with two classes and categorical with more; regression
    outcomes are continuous.

    Parameters
    ----------
    y : pandas.Series
    task : {"classification", "regression"}

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.plugins import outcome_kind
    >>> outcome_kind(pd.Series([0, 1, 1]), "classification")
    'binary'
    """
    if task not in TASKS:
        raise ValueError(f"task={task!r} is not valid; expected one of {list(TASKS)}.")
    if task == "regression":
        return "continuous"
    return "binary" if pd.Series(y).nunique(dropna=True) <= 2 else "categorical"
