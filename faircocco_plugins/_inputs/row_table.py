"""Results computed once per distinct row of a host matrix, and found again by exact match.

A training penalty sees the same attribute and outcome rows batch after batch, and once their
kernels are fitted, a row's features depend on nothing else. A batch whose rows are all known is
then resolved by one binary search per column and one table read, instead of being re-derived.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._linalg.backend import take_rows

#: Most distinct rows a table holds, and most combinations of known column values it indexes
#: (a dense slot array); past either, rows are computed per call (many continuous values).
MAX_ROWS = 2**16
MAX_KEYS = 2**20


class RowTable:
    """``compute(rows)`` remembered row by row.

    ``compute`` maps an ``(k, m)`` float64 host array of rows to named arrays whose first axis
    has ``k`` entries, one per row, and must treat each row independently of the others.
    """

    def __init__(self, compute: Callable[[np.ndarray], dict[str, np.ndarray]]) -> None:
        self._compute = compute
        self._rows: np.ndarray | None = None
        self._results: dict[str, np.ndarray] = {}
        # the known values of each column (sorted, then +inf, where the search for an unknown
        # larger value lands), and the table row of every mixed-radix combination of their
        # positions (-1: not a known row)
        self._values: list[np.ndarray] = []
        self._slots = np.empty(0, dtype=np.int64)
        self._full = False

    def lookup(self, rows: np.ndarray) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:
        """The table row (slot) of every row of ``rows``, an ``(n, m)`` float64 host array, and
        the results of every table row; past the table's limits, None and the results of
        ``rows`` themselves."""
        slots, complete = self._slots_of(rows)
        if not complete:
            if not self._full:
                self._add(rows[slots < 0])
            if self._full:
                return None, self._compute(rows)
            slots, _ = self._slots_of(rows)
        return slots, self._results

    @property
    def size(self) -> int:
        """The number of distinct rows held."""
        return 0 if self._rows is None else self._rows.shape[0]

    def _slots_of(self, rows: np.ndarray) -> tuple[np.ndarray, bool]:
        """The table row of each row of ``rows`` (-1 where it is not known), and whether every
        row is known."""
        if self._rows is None:
            return np.full(rows.shape[0], -1, dtype=np.int64), False
        key = np.zeros(rows.shape[0], dtype=np.int64)
        for j, values in enumerate(self._values):
            key = key * values.size + values.searchsorted(rows[:, j])
        slots = self._slots[key]
        # a row whose values are all known lands on its own slot, any other on a different row
        # (or -1, read as the last row): one comparison checks the whole batch
        matches = take_rows(self._rows, slots) == rows
        if matches.all():
            return slots, True
        return np.where(matches.all(axis=1), slots, -1), False

    def _add(self, new: np.ndarray) -> None:
        new = np.unique(new, axis=0)
        rows = new if self._rows is None else np.concatenate([self._rows, new])
        values = [np.append(np.unique(rows[:, j]), np.inf) for j in range(rows.shape[1])]
        keys = np.prod([float(v.size) for v in values])
        if rows.shape[0] > MAX_ROWS or keys > MAX_KEYS:
            self._full = True
            return
        computed = self._compute(new)
        results = {
            name: value if self._rows is None else np.concatenate([self._results[name], value])
            for name, value in computed.items()
        }
        key = np.ravel_multi_index(
            [column.searchsorted(rows[:, j]) for j, column in enumerate(values)],
            [column.size for column in values],
        )
        slots = np.full(int(keys), -1, dtype=np.int64)
        slots[key] = np.arange(rows.shape[0])
        self._rows, self._results, self._values, self._slots = rows, results, values, slots
