"""Strata of the conditioning variable, within which EO/CAL permutations shuffle rows.

Two kinds serve two nulls:

* :class:`Strata` (the closed-form null of streams and of the training penalty): the level
  combinations of a discrete conditioning variable, else :data:`N_BINS` quantile bins of its
  first continuous column, fitted on the first chunk;
* :func:`local_strata` (the null of in-memory data with a continuous conditioning variable):
  cells of about :data:`LOCAL_STRATUM_ROWS` rows that are nearest in that variable.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .._kernels.kernel import KernelInput, to_host
from .._kernels.levels import LevelEncoder, level_columns

#: Quantile bins for a continuous conditioning variable in the closed-form null.
N_BINS = 10

#: Rows of a local stratum (each has between this and twice this many, unless its level
#: combination of the discrete columns has fewer). Nearest neighbours, as in the local
#: permutation of Runge (2018, "Conditional independence testing based on a nearest-neighbor
#: estimator of conditional mutual information"), who uses 5 to 10: few enough that the
#: conditioning variable barely moves within a cell at the scale its operator resolves, enough
#: that a permutation breaks the dependence it tests.
LOCAL_STRATUM_ROWS = 10

#: Permutations are evaluated in stacks of at most this many rows in all (``B × N``), so that a
#: stack's feature rows (``B × N × w``, ``w`` up to about 100) stay near 100 MB.
PERMUTATION_BATCH_ROWS = 2**17


def is_discrete(k: KernelInput) -> bool:
    """Whether every column of ``k`` is nominal or numeric with few distinct values."""
    z = None if k.z is None else to_host(k.z)
    return len(level_columns(z)) == (0 if z is None else z.shape[1])


class Strata:
    """Stratum codes, fitted on the first chunk and consistent across later chunks."""

    def __init__(self, first: KernelInput) -> None:
        z = None if first.z is None else to_host(first.z)
        discrete = level_columns(z)
        n_numeric = 0 if z is None else z.shape[1]
        n_nominal = 0 if first.codes is None else first.codes.shape[1]
        self._encoder: LevelEncoder | None = None
        if len(discrete) == n_numeric:
            self._encoder = LevelEncoder(discrete, n_nominal)
        else:
            assert z is not None
            self._column = next(j for j in range(n_numeric) if j not in discrete)
            quantiles = np.quantile(z[:, self._column], np.arange(1, N_BINS) / N_BINS)
            self._edges = np.unique(quantiles)

    @property
    def continuous(self) -> bool:
        """Whether the conditioning variable has a continuous column (binned, not levels)."""
        return self._encoder is None

    def translate(self, other: Strata, codes: np.ndarray) -> np.ndarray:
        """This object's stratum codes of ``other``'s (a copy that saw other chunks)."""
        if self._encoder is None or other._encoder is None:
            return codes
        return self._encoder.translate(other._encoder, codes)

    def assign(self, k: KernelInput) -> np.ndarray:
        """The stratum of each row of ``k``."""
        z = None if k.z is None else to_host(k.z)
        if self._encoder is not None:
            return self._encoder.encode(k.n, z, k.codes, k.levels)
        assert z is not None
        return np.searchsorted(self._edges, z[:, self._column], side="right").astype(np.int64)


def local_strata(k: KernelInput, rows: int = LOCAL_STRATUM_ROWS) -> np.ndarray:
    """Cells of ``rows`` to ``2 * rows - 1`` rows of ``k`` that are nearest to each other.

    Within each level combination of the discrete columns, the continuous columns (scaled by
    their bandwidths) are split at the median of the widest one, recursively, as a k-d tree is
    built, until a cell has fewer than ``2 * rows`` rows; one continuous column gives runs of
    consecutive values.
    """
    z = to_host(k.z)
    discrete = level_columns(z)
    continuous = z[:, [j for j in range(z.shape[1]) if j not in discrete]]
    keys = [z[:, discrete]] if discrete else []
    if k.codes is not None:
        keys.append(k.codes.astype(np.float64))
    groups = np.zeros(k.n, dtype=np.int64)
    if keys:
        groups = np.unique(np.hstack(keys), axis=0, return_inverse=True)[1].reshape(-1)
    strata = np.empty(k.n, dtype=np.int64)
    pending = members_of(groups)
    count = 0
    while pending:
        cell = pending.pop()
        if cell.size < 2 * rows:
            strata[cell] = count
            count += 1
            continue
        values = continuous[cell]
        column = int(np.argmax(np.ptp(values, axis=0)))
        order = np.argsort(values[:, column], kind="stable")
        half = cell.size // 2
        pending.extend([cell[order[:half]], cell[order[half:]]])
    return strata


def permutation_batches(
    members: list[np.ndarray], rng: np.random.Generator, count: int
) -> Iterator[np.ndarray]:
    """``count`` permutations by :func:`permute_within`, in stacks (``B × N``) of at most
    :data:`PERMUTATION_BATCH_ROWS` rows in all."""
    n = sum(rows.size for rows in members)
    size = max(1, PERMUTATION_BATCH_ROWS // n)
    for start in range(0, count, size):
        yield np.stack([permute_within(members, rng) for _ in range(min(size, count - start))])


def permute_within(members: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """A uniform random permutation of the rows that keeps each row within its stratum.

    ``members`` lists the rows of each stratum.
    """
    permutation = np.empty(sum(rows.size for rows in members), dtype=np.int64)
    for rows in members:
        permutation[rows] = rng.permutation(rows)
    return permutation


def members_of(strata: np.ndarray) -> list[np.ndarray]:
    """The rows of each stratum."""
    order = np.argsort(strata, kind="stable")
    bounds = np.flatnonzero(np.diff(strata[order])) + 1
    return np.split(order, bounds)


def permutation_strata(given: KernelInput | None, n: int) -> np.ndarray:
    """Stratum of each of ``n`` rows for the permutation null of the in-memory estimators: the
    :class:`Strata` of the conditioning variable ``given``, one stratum without it (DP)."""
    if given is None:
        return np.zeros(n, dtype=np.int64)
    return Strata(given).assign(given)
