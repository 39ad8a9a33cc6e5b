"""The low-rank feature map of one variable: ``Φ`` with ``Φ Φᵀ ≈ K``.

* its discrete columns (nominal, or numeric with few distinct values) are factored exactly over
  their level combinations: ``K_disc = Z W Wᵀ Zᵀ`` with ``Z`` the one-hot combination matrix and
  ``W`` a square root of the small kernel matrix between combinations;
* its continuous columns by a Nyström factor on pivots chosen by pivoted incomplete Cholesky
  (on detached values, :func:`._estimators.cholesky.incomplete_cholesky`), which reproduces the
  incomplete Cholesky factor; a large input's pivots are chosen among candidate rows
  (:func:`._estimators.pivots.pivot_candidates`), and every row is then covered to the same
  tolerance;
* the product kernel is the row-wise Kronecker product ``Φ_i = W[g_i] ⊗ φ_i``.

A *complete* map (the exact estimator's) pivots to rounding by LAPACK
(:func:`._estimators.cholesky.complete_cholesky`), the levels inside the pivoted kernel, so that
``Φ Φᵀ = K`` to rounding, with at most as many columns as rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import array_api_compat
import numpy as np

from .._kernels.kernel import Kernel, KernelInput, to_host
from .._kernels.levels import LevelEncoder, distinct_count, level_columns, unique_inverse
from .._linalg.backend import as_like, divide_by_lower_transposed, namespace, take_rows
from .cholesky import LevelKernel, complete_cholesky, incomplete_cholesky, incomplete_cholesky_batch
from .exact import MAX_EXACT_ROWS
from .kronecker_rows import KroneckerRows
from .pivots import absolute_tolerance, pivot_candidates, pivots_jointly

#: Most level combinations of one variable's discrete columns factored exactly.
MAX_COMBINATIONS = 256
#: Most columns of one variable's features: its level combinations times the pivots of its
#: continuous columns. Every solve of the estimator is this wide: at 4,096 columns its matrices
#: take 128 MiB each, while 256 combinations times 100 pivots (25,600 columns) took over 16 GB
#: and more than 3 minutes at 1,000 rows.
MAX_FEATURES = 4096

#: Level-combination sets whose kernel factor :meth:`FeatureMap.level_rows` remembers.
_LEVEL_ROOTS_KEPT = 256


class FeatureMap:
    """The feature map of one variable: fitted on the first chunk, then applied to every chunk."""

    def __init__(
        self,
        rank: int | None,
        tolerance: float,
        max_width: int | None = None,
        pivot_jointly: bool = False,
        complete: bool = False,
    ) -> None:
        """Caps: ``rank`` on the pivots; ``tolerance`` on the residual (see
        :func:`._estimators.pivots.pivot_tolerance`); ``max_width`` on the factor's columns.

        When exact levels times pivots would give more than ``max_width`` columns, every
        numeric column goes to incomplete Cholesky instead (explicit feature rows need this).
        With ``pivot_jointly``, levels times pivots wider than the rows
        (:func:`._estimators.pivots.pivots_jointly`) give way to one factor of the joint kernel,
        the level kernel inside the pivoted one. A ``complete`` map ignores the caps: it
        factors the joint kernel to rounding, with any number of level combinations.
        """
        self.rank = rank
        self.tolerance = tolerance
        self.max_width = max_width
        self.pivot_jointly = pivot_jointly
        self.complete = complete
        #: the level combinations factored exactly, fitted on the first chunk
        self.levels: LevelEncoder
        #: the level combinations inside the pivoted kernel (None: factored apart, exactly)
        self._joint_levels: LevelEncoder | None = None
        self._landmark_codes = np.zeros(0, dtype=np.int64)
        self._landmarks: Any = None
        #: the rows of the fitted input that are the landmarks, in pivoting order
        self._pivots = np.zeros(0, dtype=np.int64)
        #: which rows of the fitted input the pivots were chosen among (None: all of them)
        self._candidates: np.ndarray | None = None
        # factors of the kernel between the level combinations of recent batches: a
        # combination's level values never change, so the factor of a set of them is reusable
        self._level_roots: dict[bytes, np.ndarray] = {}

    def fit_transform(
        self, first: KernelInput, like: Any, differentiated: Sequence[int] | None = None
    ) -> tuple[np.ndarray, Any]:
        """Fit levels and pivots on ``first``; return its codes and factor rows.

        ``differentiated`` names the numeric columns that need gradients (default: every column
        of an input that carries them). Levels are exact but piecewise constant, so those
        columns stay continuous; the others are factored over their levels where they have few.
        """
        codes, factor = self.fit(first, like, differentiated)
        if factor is None:
            factor = self.continuous_rows(first.z)
            uncovered = self.uncovered(first.z, factor, np.arange(first.n))
            if uncovered.size:
                self.cover(first, uncovered)
                factor = self.continuous_rows(first.z)
        return codes, factor

    def fit(
        self, first: KernelInput, like: Any, differentiated: Sequence[int] | None = None
    ) -> tuple[np.ndarray, Any | None]:
        """:meth:`fit_transform` that leaves the factor rows to the caller (None) unless the
        fit gives them at no cost: incomplete Cholesky's own, when every row was a candidate
        pivot and none needs a gradient. The caller forms them with :meth:`continuous_rows`
        and, when the pivots were chosen among candidates, covers the rows that
        :meth:`uncovered` finds."""
        z_host = None if first.z is None else to_host(first.z)
        if differentiated is None:
            tracked = bool(getattr(first.z, "requires_grad", False))
            differentiated = range(z_host.shape[1]) if tracked and z_host is not None else ()
        discrete = [j for j in level_columns(z_host) if j not in differentiated]
        return self._fit(first, z_host, discrete, like)

    def fit_levels(self, first: KernelInput) -> np.ndarray:
        """Fit the level combinations and the continuous columns alone, on a host input; return
        its combination codes (the continuous factor is left to the caller)."""
        return self._fit_levels(first, first.z, level_columns(first.z))

    def _fit(
        self, first: KernelInput, z_host: np.ndarray | None, discrete: list[int], like: Any
    ) -> tuple[np.ndarray, Any | None]:
        numeric_levels = list(discrete)
        codes = self._fit_levels(first, z_host, discrete)
        self._candidates = None
        if not self.continuous_columns:
            return codes, self._constant_factor(first.n, like)
        assert z_host is not None
        z = z_host[:, self.continuous_columns]
        if self.complete:
            return self._fit_complete(first, z, codes, like)
        candidates = pivot_candidates(z)
        if candidates is None:
            chosen, factor = incomplete_cholesky(z, self.kernel, self.tolerance, self.max_rank)
        else:
            chosen, _ = incomplete_cholesky(
                z[candidates], self.kernel, self.tolerance, self.max_rank
            )
            chosen, factor = candidates[chosen], None
            self._candidates = np.zeros(first.n, dtype=bool)
            self._candidates[candidates] = True
        width = self.levels.n_combinations * chosen.size
        if numeric_levels and self.max_width is not None and width > self.max_width:
            # a small batch with many levels: incomplete Cholesky on every numeric column
            # gives a factor that fits
            return self._fit(first, z_host, [], like)
        tracked = getattr(first.z, "requires_grad", False)
        if self.pivot_jointly and not tracked and pivots_jointly(first.n, width):
            return self._fit_joint(first, z, codes, like)
        self._set_pivots(first, chosen)
        if factor is None or tracked:
            return codes, None
        return codes, as_like(factor, like)

    def _fit_joint(
        self, first: KernelInput, z: np.ndarray, codes: np.ndarray, like: Any
    ) -> tuple[np.ndarray, Any]:
        """Pivot the joint kernel ``K_levels[g_i, g_j] k(z_i, z_j)`` once: the factor is as
        wide as its tolerance needs, at most the rows (or the combinations times the rank cap),
        instead of every combination times every pivot. The variable then has one level
        combination, and its levels live in its continuous rows (:meth:`continuous_rows`)."""
        rank = min(first.n, self.levels.n_combinations * self.max_rank)
        levels = self._level_kernel(codes)
        chosen, factor = incomplete_cholesky(z, self.kernel, self.tolerance, rank, levels=levels)
        return self._pivot_jointly(first, codes, chosen), as_like(factor, like)

    def _fit_complete(
        self, first: KernelInput, z: np.ndarray, codes: np.ndarray, like: Any
    ) -> tuple[np.ndarray, Any]:
        """Pivot the joint kernel of ``first`` (host values ``z``, level combinations ``codes``)
        to rounding (:func:`complete_cholesky`), its levels inside it as in :meth:`_fit_joint`;
        return the codes and the factor rows: LAPACK's for a host input, else the Nyström rows
        in ``first``'s namespace (they carry its gradients)."""
        if self.levels.is_trivial:
            chosen, factor = complete_cholesky(z, self.kernel)
            self._set_pivots(first, chosen)
            row_codes = None
        else:
            chosen, factor = complete_cholesky(z, self.kernel, self._level_kernel(codes))
            row_codes, codes = codes, self._pivot_jointly(first, codes, chosen)
        if isinstance(first.z, np.ndarray):
            return codes, as_like(factor, like)
        return codes, self.continuous_rows(first.z, row_codes)

    def _level_kernel(self, codes: np.ndarray) -> LevelKernel:
        """The level factor of the joint kernel of rows whose combinations are ``codes``."""
        return LevelKernel(codes, self.levels.level_kernel(self.kernel))

    def _pivot_jointly(
        self, first: KernelInput, codes: np.ndarray, chosen: np.ndarray
    ) -> np.ndarray:
        """Take the ``chosen`` rows of ``first`` as the pivots of its joint kernel: its level
        combinations (``codes``) move inside the pivoted kernel, and every row gets the one
        combination left, 0 (returned)."""
        self._joint_levels, self.levels = self.levels, LevelEncoder([], 0)
        self._landmark_codes = codes[chosen]
        self._set_pivots(first, chosen)
        return np.zeros(first.n, dtype=np.int64)

    @property
    def is_joint(self) -> bool:
        """Whether the levels are inside the pivoted kernel (:meth:`_fit_joint`)."""
        return self._joint_levels is not None

    def _set_pivots(self, first: KernelInput, pivots: np.ndarray) -> None:
        """Take ``pivots`` (rows of ``first``) as the landmarks of the Nyström rows."""
        self._pivots = pivots
        xp = namespace(first.z)
        z = self._select(first.z)
        self._landmarks = xp.take(z, xp.asarray(pivots, device=array_api_compat.device(z)), axis=0)
        gram = self.kernel.gram(self._landmarks, self._landmarks)
        self._cholesky = xp.linalg.cholesky(self._with_levels(gram, self._landmark_codes))

    def _with_levels(self, cross: Any, codes: np.ndarray | None) -> Any:
        """``cross`` (landmarks × rows) times the level kernel between the landmarks' level
        combinations and the rows' ``codes``, when the levels are inside the pivoted kernel;
        ``cross`` itself otherwise."""
        if self._joint_levels is None:
            return cross
        kernel = self._joint_levels.level_kernel(self.kernel)[self._landmark_codes]
        return cross * as_like(kernel[:, codes], cross)

    @property
    def max_rank(self) -> int:
        """The cap on the number of pivots: ``rank``, or the kernel's default."""
        return self.rank or self.kernel.default_rank

    def uncovered(self, z: Any, factor: Any, rows: np.ndarray) -> np.ndarray:
        """Which of ``rows`` (of the input this map was fitted on, whose numeric columns are
        ``z`` and factor rows ``factor``) need more pivots: rows that were not candidates and
        keep a residual ``k(zᵢ, zᵢ) − ‖φᵢ‖²`` above the tolerance, while the rank is below its
        cap (none when every row was a candidate)."""
        if self._candidates is None or self.continuous_rank >= self.max_rank:
            return rows[:0]
        host = to_host(factor)
        diagonal = to_host(self.kernel.diagonal(self._select(z)))
        residual = diagonal - np.einsum("ij,ij->i", host, host)
        tolerance = absolute_tolerance(self.tolerance, diagonal)
        return rows[(residual > tolerance) & ~self._candidates[rows]]

    def cover(self, first: KernelInput, rows: np.ndarray) -> None:
        """Add pivots for ``rows`` of ``first`` (the input this map was fitted on), which
        join the candidates: incomplete Cholesky goes on from the same pivots, which lowers
        every row's residual, so that every row ends within the tolerance (or the rank at its
        cap)."""
        assert self._candidates is not None
        self._candidates[rows] = True
        candidates = np.flatnonzero(self._candidates)
        z = to_host(self._select(first.z))[candidates]
        initial = np.searchsorted(candidates, self._pivots)
        chosen, _ = incomplete_cholesky(z, self.kernel, self.tolerance, self.max_rank, initial)
        self._set_pivots(first, candidates[chosen])

    def _fit_levels(
        self, first: KernelInput, z_host: np.ndarray | None, discrete: list[int]
    ) -> np.ndarray:
        #: the kernel of the numeric columns, of the input fitted on
        self.kernel = first.kernel
        n_nominal = 0 if first.codes is None else first.codes.shape[1]
        while True:
            self.levels = LevelEncoder(discrete, n_nominal)
            codes = self.levels.encode(first.n, z_host, first.codes, first.levels)
            if self.complete or self.levels.n_combinations <= MAX_COMBINATIONS or not discrete:
                break
            # too many combinations for an exact factor: the numeric column with the most
            # levels joins the continuous block, where incomplete Cholesky caps the rank
            assert z_host is not None
            discrete.remove(max(discrete, key=lambda j: distinct_count(z_host[:, j])))
        if self.levels.n_combinations > MAX_COMBINATIONS and not self.complete:
            raise ValueError(
                f"the nominal columns of one variable have {self.levels.n_combinations} level "
                f"combinations, more than the low-rank estimator factors exactly "
                f"({MAX_COMBINATIONS}); merge rare levels first (for example keep the "
                f"{MAX_COMBINATIONS - 1} most frequent and put the rest in one level 'other'), "
                "or pass an ordered column as numbers. method='exact' takes any number of "
                f"levels, but at most {MAX_EXACT_ROWS:,} rows."
            )
        n_numeric = 0 if z_host is None else z_host.shape[1]
        #: the numeric columns factored by incomplete Cholesky
        self.continuous_columns = [j for j in range(n_numeric) if j not in discrete]
        return codes

    @property
    def continuous_rank(self) -> int:
        return 1 if self._landmarks is None else int(self._landmarks.shape[0])

    @property
    def width(self) -> int:
        """Columns of the features: level combinations times continuous pivots."""
        return self.levels.n_combinations * self.continuous_rank

    @property
    def is_constant(self) -> bool:
        """Whether every row seen has the same features: one level combination (a constant
        numeric column is one level) and no continuous factor."""
        return self._landmarks is None and self.levels.n_combinations == 1

    def transform(self, k: KernelInput, like: Any) -> tuple[np.ndarray, Any]:
        """Level-combination codes (host) and continuous factor rows (``n × r``) of a chunk."""
        return self.codes(k), self.factor(k, like)

    def codes(self, k: KernelInput) -> np.ndarray:
        """Level-combination codes of the rows of ``k`` (host)."""
        z_host = None if k.z is None or not self.levels.numeric_columns else to_host(k.z)
        return self.levels.encode(k.n, z_host, k.codes, k.levels)

    def factor(self, k: KernelInput, like: Any) -> Any:
        """Continuous factor rows (``n × r``) of ``k``: :meth:`continuous_rows`, or ones for a
        variable without continuous columns."""
        if self._landmarks is None:
            return self._constant_factor(k.n, like)
        if self._joint_levels is None:
            return self.continuous_rows(k.z)
        numeric = None if not self._joint_levels.numeric_columns else to_host(k.z)
        return self.continuous_rows(k.z, self._joint_levels.encode(k.n, numeric, k.codes, k.levels))

    def continuous_rows(self, z: Any, codes: np.ndarray | None = None) -> Any:
        """Nyström rows ``K(z, landmarks) chol(K(landmarks, landmarks))⁻ᵀ`` of the numeric
        columns ``z`` of an input, whose level combinations are ``codes`` when the levels are
        inside the pivoted kernel."""
        # the kernel is taken landmarks first and transposed: the solve then runs on a
        # column-major array, in 60% of the time on a row-major one (32,768 × 100)
        cross = self._with_levels(self.kernel.gram(self._landmarks, self._select(z)), codes)
        return divide_by_lower_transposed(cross.T, self._cholesky)

    @staticmethod
    def _constant_factor(n: int, like: Any) -> Any:
        """The factor of a variable without continuous columns: its kernel is ``W[g] W[g]ᵀ``."""
        xp = namespace(like)
        return xp.ones((n, 1), dtype=like.dtype, device=array_api_compat.device(like))

    def level_factor(self) -> np.ndarray:
        """``W`` with ``W Wᵀ`` the kernel between the level combinations seen (no gradient)."""
        return psd_square_root(self.levels.level_kernel(self.kernel))

    def level_rows(self, codes: np.ndarray) -> np.ndarray:
        """Rows ``W[g_i]`` of a factor of the kernel between the combinations in ``codes`` only.

        Later chunks may have seen more combinations than one batch holds; factoring only those
        present keeps the rows no wider than the batch's distinct combinations.
        """
        present, inverse = unique_inverse(codes)
        key = present.tobytes()
        if key not in self._level_roots:
            if len(self._level_roots) >= _LEVEL_ROOTS_KEPT:
                self._level_roots.clear()
            self._level_roots[key] = psd_square_root(self.levels.level_kernel(self.kernel, present))
        return take_rows(self._level_roots[key], inverse)

    def _select(self, z: Any) -> Any:
        if len(self.continuous_columns) == z.shape[1]:
            return z
        xp = namespace(z)
        return xp.take(
            z, xp.asarray(self.continuous_columns, device=array_api_compat.device(z)), axis=1
        )


def psd_square_root(kernel: np.ndarray) -> np.ndarray:
    """``W`` with ``W Wᵀ = kernel``, keeping the numerically non-zero eigenvalues."""
    values, vectors = np.linalg.eigh(kernel)
    keep = values > 1e-12 * values.max()
    return vectors[:, keep] * np.sqrt(values[keep])


def row_kronecker(level_rows: Any, factor: Any) -> Any:
    """Row-wise Kronecker product of the level rows and the continuous factor rows."""
    xp = namespace(level_rows, factor)
    n = int(factor.shape[0])
    return xp.reshape(level_rows[:, :, None] * factor[:, None, :], (n, -1))


def refitted_features(
    feature_map: FeatureMap, inputs: Sequence[KernelInput], joint: bool = False
) -> KroneckerRows:
    """Host feature rows ``W[g_i] ⊗ φ_i`` of each of ``inputs``, kept as their factors, each
    under a feature map of ``feature_map``'s kind fitted on itself; with ``joint``, the factor
    of each one's joint kernel (:meth:`FeatureMap._fit_joint`), whose rows need no level factor.

    The inputs must hold the same level combinations, as the rows of one input permuted within
    its combinations do (the permutation null's): one level factor then serves them all, and
    their continuous factors are fitted together by
    :func:`._estimators.cholesky.incomplete_cholesky_batch`. Complete maps are fitted one
    input at a time, their rows zero-padded to the widest.
    """
    hosts = [k.on_host() for k in inputs]
    codes = [feature_map.fit_levels(hosts[0])]
    combinations = feature_map.levels.n_combinations
    codes += [feature_map.levels.encode(k.n, k.z, k.codes, k.levels) for k in hosts[1:]]
    if feature_map.levels.n_combinations != combinations:
        raise ValueError("inputs refitted together must hold the same level combinations.")
    columns = feature_map.continuous_columns
    if columns and feature_map.complete:
        kernel = feature_map.kernel
        level_kernel = feature_map.levels.level_kernel(kernel)
        return KroneckerRows(
            _padded(
                [
                    complete_cholesky(
                        k.z[:, columns],
                        kernel,
                        None if feature_map.levels.is_trivial else LevelKernel(c, level_kernel),
                    )[1][None]
                    for k, c in zip(hosts, codes, strict=True)
                ]
            )
        )
    if columns and joint and not feature_map.levels.is_trivial:
        z = np.stack([k.z[:, columns] for k in hosts])
        levels = LevelKernel(np.stack(codes), feature_map.levels.level_kernel(feature_map.kernel))
        rank = min(hosts[0].n, combinations * feature_map.max_rank)
        return KroneckerRows(
            _joint_factors(z, feature_map.kernel, feature_map.tolerance, rank, levels)
        )
    if columns:
        z = np.stack([k.z[:, columns] for k in hosts])
        factor = incomplete_cholesky_batch(
            z, feature_map.kernel, feature_map.tolerance, feature_map.max_rank
        )
    else:
        factor = np.ones((len(hosts), hosts[0].n, 1))
    if feature_map.levels.is_trivial:
        return KroneckerRows(factor)  # no discrete column: the level factor is 1
    return KroneckerRows(factor, np.stack(codes), feature_map.level_factor())


def _padded(stacks: list[np.ndarray]) -> np.ndarray:
    """Stacks of factors (``B × n × r``) joined, zero-padded to the widest: zero columns leave
    ``Φ Φᵀ`` and every statistic unchanged."""
    width = max(f.shape[2] for f in stacks)
    padded = np.zeros((sum(f.shape[0] for f in stacks), stacks[0].shape[1], width))
    start = 0
    for f in stacks:
        padded[start : start + f.shape[0], :, : f.shape[2]] = f
        start += f.shape[0]
    return padded


#: Most entries of the factor rows :func:`_joint_factors` pivots at once (128 MiB): a joint
#: factor may be as wide as the rows, each member's ``r × n``.
JOINT_BATCH_ENTRIES = 2**24


def _joint_factors(
    z: np.ndarray, kernel: Kernel, tolerance: float, rank: int, levels: LevelKernel
) -> np.ndarray:
    """:func:`._estimators.cholesky.incomplete_cholesky_batch` of a stack's joint kernels, a few
    members at a time, zero-padded to the largest rank."""
    batch, n, _ = z.shape
    size = max(1, JOINT_BATCH_ENTRIES // (rank * n))
    factors = [
        incomplete_cholesky_batch(
            z[start : start + size],
            kernel,
            tolerance,
            rank,
            LevelKernel(levels.codes[start : start + size], levels.kernel),
        )
        for start in range(0, batch, size)
    ]
    return _padded(factors)
