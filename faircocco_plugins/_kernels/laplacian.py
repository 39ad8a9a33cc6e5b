"""The Laplacian kernel ``exp(−‖x − x′‖₁ / σ)``, a record of the :class:`.kernel.Kernel` protocol.

It is a product of one-dimensional Laplacian kernels, so per-column bandwidths make it one
Laplacian on the column-wise scaled vector, as the kernel inputs need; its bandwidth is the median
city-block distance. It is characteristic, like the Gaussian, but not smooth: its spectrum decays
polynomially rather than exponentially, so that at the score's ``ε`` a factor reaches its
tolerance only with about as many pivots as rows (at 300 rows and 100 pivots the low-rank DP
score was 0.372 against 0.620 exact). Its default cap on the pivots is therefore the widest
features the low-rank estimator takes (4,096 columns), not the Gaussian's 100; ``rank=`` trades
that accuracy for time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._linalg.backend import namespace
from .kernel import Kernel, UnitDiagonal


class Laplacian(UnitDiagonal, Kernel):
    """The unit-bandwidth Laplacian kernel ``exp(−‖z − z′‖₁)`` on inputs scaled by the median
    city-block distance."""

    name = "laplacian"
    description = (
        "exp(−‖x − x′‖₁ / σ): rougher, sensitive to finer structure; its factors need about "
        "as many pivots as rows at small ε."
    )
    norm = 1
    #: the most columns of one variable's low-rank features (``._estimators.feature_map``)
    default_rank = 4096

    def gram(self, z1: Any, z2: Any) -> Any:
        """The kernel matrix between the rows of ``z1`` and ``z2``, from the absolute
        differences column by column (exact; no matrix-product form exists for ℓ1)."""
        if isinstance(z1, np.ndarray) and isinstance(z2, np.ndarray):
            distance = np.abs(np.subtract.outer(z1[:, 0], z2[:, 0]))
            scratch = np.empty_like(distance) if z1.shape[1] > 1 else distance
            for j in range(1, z1.shape[1]):
                np.subtract.outer(z1[:, j], z2[:, j], out=scratch)
                distance += np.abs(scratch, out=scratch)
            np.negative(distance, out=distance)
            return np.exp(distance, out=distance)
        xp = namespace(z1, z2)
        distance = xp.abs(z1[:, 0:1] - z2[:, 0:1].T)
        for j in range(1, z1.shape[1]):
            distance = distance + xp.abs(z1[:, j : j + 1] - z2[:, j : j + 1].T)
        return xp.exp(-distance)

    def frequencies(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        """Standard Cauchy: the spectral density of ``exp(−|t|)`` is ``1 / (π (1 + ω²))``,
        one factor per column."""
        return rng.standard_cauchy(size=shape)

    def column_into(
        self,
        columns: Sequence[np.ndarray],
        point: Sequence[Any],
        out: np.ndarray,
        scratch: np.ndarray,
    ) -> np.ndarray:
        """The kernel between the rows of ``columns`` and ``point``, written into ``out``, the
        absolute differences summed column by column."""
        for j, (values, value) in enumerate(zip(columns, point, strict=True)):
            target = out if j == 0 else scratch
            np.subtract(values, value, out=target)
            np.abs(target, out=target)
            if j:
                out += scratch
        np.negative(out, out=out)
        return np.exp(out, out=out)

    @staticmethod
    def gram_gradient(
        weights: np.ndarray, a: np.ndarray, b: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The gradients in ``a`` and ``b`` of a function of ``K = gram(a, b)`` whose gradient
        in ``K`` is ``dK``, given ``weights = dK ∘ K``: ``∂K_il/∂a_ij = −sign(a_ij − b_lj) K_il``
        (0 where they are equal, as autograd's subgradient of ``|x|``), one ``n × r`` sign
        matrix per column. It makes a training step faster than autograd: an EO penalty step
        at batch 256 took 71 against 117 ms at ``rank=100``, 1.15 against 1.61 s at the default
        rank (two busy cores, one BLAS thread)."""
        d_a = np.empty_like(a)
        d_b = np.empty_like(b)
        for j in range(a.shape[1]):
            signed = weights * np.sign(np.subtract.outer(a[:, j], b[:, j]))
            d_a[:, j] = -signed.sum(axis=1)
            d_b[:, j] = signed.sum(axis=0)
        return d_a, d_b


#: The Laplacian kernel.
LAPLACIAN = Laplacian()
