"""Integer codes for discrete values that stay the same across chunks of a stream.

A discrete column, or a combination of discrete columns, is factored exactly over its levels; the
level set is only known once every chunk has been seen, so codes are handed out as levels appear.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import array_api_compat
import numpy as np

from .._linalg.backend import add_rows, detached, namespace
from .kernel import Kernel

#: A numeric column with at most this many distinct values is factored exactly over its levels.
MAX_LEVELS = 32


class LevelRegistry:
    """Assigns consecutive codes to hashable values in order of first appearance."""

    def __init__(self) -> None:
        self._codes: dict[Any, int] = {}
        # the registered numbers, sorted, with their codes: a chunk whose values are all known
        # is encoded by one binary search (rebuilt whenever a value is added)
        self._lookup: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self._codes)

    @property
    def values(self) -> list[Any]:
        return list(self._codes)

    def codes_of(self, values: Any) -> np.ndarray:
        """Codes of a sequence of distinct values, registering new ones."""
        size = len(self._codes)
        codes = np.fromiter(
            (self._codes.setdefault(v, len(self._codes)) for v in values),
            dtype=np.int64,
            count=len(values),
        )
        if len(self._codes) != size:
            self._lookup = None
        return codes

    def encode(self, values: np.ndarray) -> np.ndarray:
        """Codes of every entry of a 1-D array."""
        if self._lookup is not None and values.dtype.kind == "f":
            known, codes = self._lookup
            position = np.minimum(np.searchsorted(known, values), known.size - 1)
            if np.array_equal(known[position], values):
                return codes[position]
        uniques, inverse = unique_inverse(values)
        encoded = self.codes_of(uniques.tolist())[inverse]
        if self._lookup is None and values.dtype.kind == "f":
            known = np.asarray(list(self._codes), dtype=np.float64)
            order = np.argsort(known)
            self._lookup = known[order], np.asarray(list(self._codes.values()))[order]
        return encoded

    def encode_rows(self, codes: np.ndarray) -> np.ndarray:
        """Codes of the rows of an ``(n, q)`` non-negative integer array (one per combination)."""
        radix = (codes.max(axis=0) + 1).tolist()
        if math.prod(radix) < 2**62:
            # one mixed-radix int64 key per row: a linear-time unique
            key = combination_keys(list(codes.T), radix)
            uniques, inverse = unique_inverse(key)
            rows = np.empty((uniques.size, codes.shape[1]), dtype=np.int64)
            rows[inverse] = codes  # rows with one key are equal: any of them will do
        else:  # the key would overflow: sort the rows themselves
            rows, inverse = np.unique(codes, axis=0, return_inverse=True)
            inverse = inverse.reshape(-1)
        return self.codes_of([tuple(r) for r in rows.tolist()])[inverse]


def unique_inverse(values: Any, slots: int | None = None) -> tuple[Any, Any]:
    """The distinct ``values`` (1-D, detached) in increasing order, and each entry's index among
    them: its rank, the level code of a discrete column (``np.unique(values,
    return_inverse=True)``).

    With ``slots`` (needed for arrays other than numpy's), the smallest ``slots`` distinct values,
    then values of no meaning: no shape depends on the data, so a device's array is not read
    (the count is the largest index plus one, read with the device route's other small results).
    Numpy arrays take ``np.unique``, or a count of each value, in O(n), for small non-negative
    integers (keys); other arrays one sort on their device.
    """
    if isinstance(values, np.ndarray):
        uniques, inverse = _host_unique_inverse(values)
        return (uniques if slots is None else np.resize(uniques, slots)), inverse
    xp = namespace(values)
    values = detached(values)
    order = xp.argsort(values, stable=False)
    ordered = xp.take(values, order)
    rank = xp.cumulative_sum(xp.astype(ordered[1:] != ordered[:-1], xp.int64), include_initial=True)
    # the first sorted entry of each rank up to the slots (past the last rank: clipped)
    first = xp.searchsorted(rank, xp.arange(slots, device=array_api_compat.device(rank)))
    uniques = xp.take(ordered, xp.clip(first, max=ordered.shape[0] - 1))
    return uniques, add_rows(ordered.shape[0], order, rank)  # each entry's rank, in its place


def _host_unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)``, in O(n) for small non-negative integer keys."""
    if values.dtype.kind in "iu" and values.size and values.min() >= 0:
        top = int(values.max()) + 1
        if top <= 4 * values.size + 1024:
            present = np.bincount(values, minlength=top) > 0
            position = np.cumsum(present) - 1
            return np.flatnonzero(present), position[values]
    uniques, inverse = np.unique(values, return_inverse=True)
    return uniques, inverse.reshape(-1)


def distinct_count(values: Any) -> Any:
    """The number of distinct ``values`` (1-D), by one sort (0-d, on a device's array)."""
    xp = namespace(values)
    # not stable (the array API's default): numpy's quicksort, as np.unique's, 2.5x faster
    ordered = xp.sort(detached(values), stable=False)
    return 1 + xp.count_nonzero(ordered[1:] != ordered[:-1])


def combination_keys(codes: Sequence[Any], radices: Sequence[Any]) -> Any:
    """Mixed-radix keys of the rows' level codes (one array per column), the first column most
    significant, so that keys sort as the rows of codes do. The radices may be device values: a
    column of radix 1 and code 0 leaves the keys as they are."""
    key = namespace(*codes).zeros_like(codes[0])
    for column, size in zip(codes, radices, strict=True):
        key = key * size + column
    return key


def level_columns(z: np.ndarray | None) -> list[int]:
    """Numeric columns (of a host copy) with at most :data:`MAX_LEVELS` distinct values."""
    if z is None:
        return []
    head = z[: 4 * MAX_LEVELS]
    return [
        j
        for j in range(z.shape[1])
        if distinct_count(head[:, j]) <= MAX_LEVELS and distinct_count(z[:, j]) <= MAX_LEVELS
    ]


class LevelEncoder:
    """Codes for the level combinations of a kernel input's discrete columns.

    The discrete columns are the numeric columns ``numeric_columns`` (scaled values, Gaussian
    kernel) and every nominal column (delta kernel). Codes stay consistent across chunks.
    """

    def __init__(self, numeric_columns: list[int], n_nominal: int) -> None:
        self.numeric_columns = numeric_columns
        self._numeric = [LevelRegistry() for _ in numeric_columns]
        self._nominal = [LevelRegistry() for _ in range(n_nominal)]
        self._combinations = LevelRegistry()
        # combination code of every mixed-radix key of known column codes (-1: not seen yet),
        # with the radices it was built for
        self._table: tuple[tuple[int, ...], np.ndarray] | None = None

    @property
    def n_combinations(self) -> int:
        return max(1, len(self._combinations))

    @property
    def is_trivial(self) -> bool:
        return not (self._numeric or self._nominal)

    def encode(
        self,
        n: int,
        z_host: np.ndarray | None,
        codes: np.ndarray | None,
        levels: tuple[np.ndarray, ...],
    ) -> np.ndarray:
        """Combination codes of the ``n`` rows; all 0 when there is no discrete column."""
        columns = []
        for registry, j in zip(self._numeric, self.numeric_columns, strict=True):
            assert z_host is not None
            columns.append(registry.encode(z_host[:, j]))
        for registry, j in zip(self._nominal, range(len(self._nominal)), strict=True):
            assert codes is not None
            columns.append(registry.codes_of(levels[j].tolist())[codes[:, j]])
        if not columns:
            return np.zeros(n, dtype=np.int64)
        radices = tuple(len(r) for r in self._numeric + self._nominal)
        if self._table is not None and self._table[0] == radices:
            combined = self._table[1][np.ravel_multi_index(tuple(columns), radices)]
            if combined.min() >= 0:
                return combined
        codes = self._combinations.encode_rows(np.stack(columns, axis=1))
        self._table = _combination_table(self._combinations, radices)
        return codes

    def translate(self, other: LevelEncoder, codes: np.ndarray) -> np.ndarray:
        """This encoder's codes of ``other``'s combination ``codes``, registering new levels.

        ``other`` is a copy of this encoder that saw different chunks (another worker): codes
        are matched through the level values, which both share.
        """
        if self.is_trivial:
            return np.zeros(codes.size, dtype=np.int64)
        theirs = np.asarray(other._combinations.values, dtype=np.int64).reshape(
            len(other._combinations), -1
        )[codes]
        columns = [
            mine.codes_of([their.values[c] for c in theirs[:, j].tolist()])
            for j, (mine, their) in enumerate(
                zip(self._numeric + self._nominal, other._numeric + other._nominal, strict=True)
            )
        ]
        return self._combinations.codes_of([tuple(r) for r in np.stack(columns, 1).tolist()])

    def level_kernel(self, kernel: Kernel, combinations: np.ndarray | None = None) -> np.ndarray:
        """Matrix of ``kernel`` (on the numeric columns, times delta kernels on the nominal
        ones) between the level ``combinations`` (codes; default: all seen so far)."""
        if self.is_trivial:
            return np.ones((1, 1))
        combos = np.asarray(self._combinations.values, dtype=np.int64).reshape(
            len(self._combinations), -1
        )
        if combinations is not None:
            combos = combos[combinations]
        matrix = np.ones((combos.shape[0], combos.shape[0]))
        for j, registry in enumerate(self._numeric):
            values = np.asarray(registry.values, dtype=np.float64)[combos[:, j], None]
            matrix *= kernel.gram(values, values)
        for j in range(len(self._nominal)):
            column = combos[:, len(self._numeric) + j]
            matrix *= column[:, None] == column[None, :]
        return matrix


#: Largest number of mixed-radix keys :class:`LevelEncoder` keeps a lookup table for.
_TABLE_SIZE = 2**16


def _combination_table(
    combinations: LevelRegistry, radices: tuple[int, ...]
) -> tuple[tuple[int, ...], np.ndarray] | None:
    """The code of every combination of column codes, by mixed-radix key (-1 if unseen)."""
    size = math.prod(radices)
    if size > _TABLE_SIZE:
        return None
    table = np.full(size, -1, dtype=np.int64)
    seen = np.asarray(combinations.values, dtype=np.int64).reshape(len(combinations), -1)
    table[np.ravel_multi_index(tuple(seen.T), radices)] = np.arange(len(combinations))
    return radices, table
