"""A canonical row order, so that the same data in any row order gives the same answer.

Several steps of the estimators see rows by position: the seeded row sample of the median
heuristic, the first pivot of incomplete Cholesky (where every residual is 1) and any later tie
between equal residuals, the cells of the local null among equal values, the seeded permutations
of the null and of the permutation test, and the order of every floating-point sum. Sorting the
rows by their values before any of them makes each a function of the data alone: two orders of
the same rows become one array, so every route gives the same result to the last bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .._linalg.backend import detached, namespace, take_rows, to_host
from .variables import Variable


def canonical_order(variables: Sequence[Variable]) -> np.ndarray:
    """The permutation that sorts the rows of ``variables`` lexicographically by their values
    (:func:`lexicographic_order` of their host columns)."""
    return lexicographic_order(_key_columns(variables))


def lexicographic_order(columns: Sequence[Any]) -> Any:
    """The permutation that sorts rows by ``columns[0]``, then ``columns[1]``, ... (1-D arrays of
    one namespace, on detached values). Rows equal in every column are interchangeable, so how
    their ties are broken does not matter.

    Numpy columns: the first column orders the rows, and only runs of equal values there are
    sorted by the other columns, so data whose first column has few ties costs one sort of one
    column. Other arrays (a device's tensors): stable sorts from the last column to the first,
    a fixed number of operations and no host read.
    """
    if not isinstance(columns[0], np.ndarray):
        xp = namespace(*columns)
        columns = [detached(column) for column in columns]
        order = xp.argsort(columns[-1], stable=True)
        for column in reversed(columns[:-1]):
            order = xp.take(order, xp.argsort(xp.take(column, order), stable=True))
        return order
    # not a stable sort (a third faster at 10⁶ rows): ties are sorted by the other columns below
    order = np.argsort(columns[0])
    leading = columns[0][order]
    tied = leading[1:] == leading[:-1]
    if len(columns) == 1 or not tied.any():
        return order
    # rows whose leading value repeats, in runs that keep their place in the order
    in_run = np.zeros(order.size, dtype=bool)
    in_run[1:] |= tied
    in_run[:-1] |= tied
    run = np.cumsum(np.concatenate([[True], ~tied]))[in_run]
    members = order[in_run]
    # np.lexsort sorts by its last key first
    within = np.lexsort([column[members] for column in reversed(columns[1:])] + [run])
    order[in_run] = members[within]
    return order


def in_order(variable: Variable, order: np.ndarray) -> Variable:
    """``variable`` with its rows taken in ``order`` (a gather, so gradients follow)."""
    numeric = None if variable.numeric is None else take_rows(variable.numeric, order)
    codes = None if variable.codes is None else variable.codes.take(order, axis=0)
    return replace(variable, numeric=numeric, codes=codes)


def _key_columns(variables: Sequence[Variable]) -> list[np.ndarray]:
    """Every column of ``variables`` as a host array: numeric columns first, then level codes
    (which follow the sorted level values, so they order rows by value too)."""
    numeric = [to_host(v.numeric) for v in variables if v.numeric is not None]
    codes = [v.codes for v in variables if v.codes is not None]
    return [block[:, j] for block in numeric + codes for j in range(block.shape[1])]
