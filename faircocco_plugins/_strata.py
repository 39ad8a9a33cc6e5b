"""Strata of the conditioning variable, within which EO/CAL permutations shuffle rows.

A conditioning variable whose columns are all discrete (nominal, or numeric with at most
:data:`~._levels.MAX_LEVELS` distinct values) is stratified by its level combinations; otherwise
by :data:`N_BINS` quantile bins of its first continuous column.
"""

from __future__ import annotations

import numpy as np

from ._kernels import KernelInput, to_host
from ._levels import LevelEncoder, level_columns

#: Quantile bins for a continuous conditioning variable.
N_BINS = 10


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
