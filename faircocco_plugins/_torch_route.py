"""The terms of a torch problem, computed on its tensors' device.

The host route (:meth:`._problem.Problem.fit`) sorts the rows, fits bandwidths, levels and
pivots on host copies of the data and sends factors back, which on an accelerator costs more
than the statistic itself (every column crosses twice). Here every step of size ``N`` stays on
the device, and only two small results come to the host, because they decide the shapes of
what follows:

1. the number of distinct values of every numeric column with its first values (which columns
   are factored over levels, and their level values), one copy for all columns;
2. the rank of each incomplete Cholesky factor with the row count of each group of level
   combinations (the segments of the per-group Grams), one copy.

A variable with more than :data:`._lowrank.MAX_COMBINATIONS` possible level combinations costs
one more copy per column it gives up, as on the host. The results are those of the host route:
the same canonical row order (:mod:`._torch_order`), the same median bandwidths
(:mod:`._torch_bandwidth`), the same levels and level factors, the same pivots
(:mod:`._torch_cholesky`), and the per-group moments mixed by the same function
(:func:`._lowrank.mixed_moments`); only the order of floating-point sums differs. Variables with
nominal columns (host codes) take the host route. The permutation null is the host route's,
computed on first use (a score without chance adjustment never needs it). The exact estimator
(at most :data:`._exact.MAX_EXACT_ROWS` rows) takes the device's row order and bandwidths too;
its strata, which only its null uses, are found on the host.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from ._backend import divide_by_lower_transposed
from ._exact import ExactFit
from ._explicit import differentiated_columns, is_tracked
from ._kernels import KernelInput, gaussian
from ._levels import MAX_LEVELS, LevelEncoder
from ._lowrank import (
    MAX_COMBINATIONS,
    MAX_RANK,
    LowRankFit,
    _psd_square_root,
    centre_moments,
    mixed_moments,
    pivot_tolerance,
)
from ._problem import Problem, roles_of, strata_of
from ._terms import ConstantAttributesFit, Role, Terms
from ._torch_bandwidth import scaled
from ._torch_cholesky import incomplete_cholesky
from ._torch_levels import combination_keys, distinct_values, level_codes
from ._torch_order import canonical_order

#: Up to this many possible level-group keys, group sizes are counted by one ``bincount``
#: (its size is known on the host); beyond, by ``torch.unique``, which waits for the device.
_COUNTED_KEYS = 2**16
#: Mixed-radix keys of fewer possible combinations than this fit in int64.
_KEYS_FIT = 2**62


def device_terms(problem: Problem) -> Terms | None:
    """The :class:`._terms.Terms` of ``problem`` computed on its tensors' device, or None for
    a problem the host route must take (nominal columns, or tracked inputs whose explicit
    feature rows would be wider than the data, see :func:`._explicit.explicit_fit`)."""
    variables = problem.variables()
    if any(v.codes is not None or v.numeric is None for v in variables.values()):
        return None
    options = problem.options
    order = canonical_order(
        [v.numeric[:, j] for v in variables.values() for j in range(v.numeric.shape[1])]
    )
    joint = options.attribute_kernel == "joint"
    inputs = {
        name: KernelInput(
            scaled(
                v.numeric[order],
                shared=name != "sensitive" or joint,
                bandwidth=options.bandwidth,
                random_state=options.random_state,
            ),
            None,
        )
        for name, v in variables.items()
    }
    roles = roles_of(options.notion, **inputs)
    if problem.method() == "exact":
        if problem.sensitive.is_constant():
            return ConstantAttributesFit(problem.pred, problem.like, "exact").terms
        return ExactFit(
            roles[Role.MEASURED],
            roles[Role.ATTRIBUTES],
            roles.get(Role.GIVEN),
            strata_of(roles),
            options.ridge,
            problem.like,
        ).terms
    return _lowrank_terms(problem, roles, int(problem.sensitive.numeric.shape[1]))


def _lowrank_terms(
    problem: Problem, roles: dict[str, KernelInput], sensitive_width: int
) -> Terms | None:
    options = problem.options
    n, like = problem.n, problem.like
    # 1. the level structure of every column, in one copy
    structure = {role: _column_structure(k.z) for role, k in roles.items()}
    rows = torch.stack(
        [torch.cat([c[None].to(v.dtype), v]) for s in structure.values() for c, v in s]
    )
    host = iter(rows.cpu().numpy())
    levels = {role: [next(host) for _ in columns] for role, columns in structure.items()}
    if all(int(row[0]) == 1 for row in levels[Role.ATTRIBUTES][:sensitive_width]):
        return ConstantAttributesFit(problem.pred, like, "lowrank").terms
    maps = {role: _RoleMap(role, roles, structure[role], levels[role], options) for role in roles}
    # 2. pivot ranks and group sizes, in one copy
    grid = [m.grid for m in maps.values()]
    if math.prod(grid) >= _KEYS_FIT:
        return None  # keys would overflow int64: the host route sorts rows instead
    keys = combination_keys([m.keys for m in maps.values()], grid)
    pivoted = [m for m in maps.values() if m.factor is not None]
    ranks = [m.factor.rank for m in pivoted if m.factor is not None]
    present, host_ranks, group_sizes = _group_sizes(
        keys, math.prod(grid), torch.stack(ranks) if ranks else keys.new_zeros(0)
    )
    for m, rank in zip(pivoted, host_ranks.tolist(), strict=True):
        m.rank = int(rank)
    # each group's combination code of each variable, among the variable's present ones
    strides = np.cumprod([1, *grid[::-1]])[::-1][1:]
    group_codes, level_factors = [], {}
    tracked = any(is_tracked(k) for k in roles.values())
    for m, stride, size in zip(maps.values(), strides, grid, strict=True):
        key = (present // stride) % size
        combinations = np.unique(key)
        group_codes.append(np.searchsorted(combinations, key))
        level_factors[m.role] = m.level_factor(combinations)
        if tracked and combinations.size * m.rank > n:
            return None  # explicit feature rows would change their factor (small batches)
    factors = {role: m.continuous_factor(roles[role]) for role, m in maps.items()}
    group_sums, group_grams = _group_moments(
        torch.cat(list(factors.values()), dim=1), keys, group_sizes.tolist()
    )
    sums, grams = mixed_moments(
        torch.as_tensor(np.stack(group_codes, axis=1), device=like.device),
        group_sums,
        group_grams,
        {role: int(f.shape[1]) for role, f in factors.items()},
        {
            role: torch.as_tensor(w, dtype=like.dtype, device=like.device)
            for role, w in level_factors.items()
        },
    )
    means, centred = centre_moments(sums, grams, n)
    # as on the host route: a constant variable's operator is exactly 0, not rounding noise
    constant = {
        role for role, m in maps.items() if m.factor is None and level_factors[role].shape[0] == 1
    }
    centred = {key: g * 0.0 if constant.intersection(key) else g for key, g in centred.items()}
    return _DeviceLowRankFit(means, centred, n, options.ridge, like, problem).terms


def _group_sizes(
    keys: torch.Tensor, possible: int, ranks: torch.Tensor
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The present group keys (increasing), the ``ranks`` and the number of rows of each group,
    in one copy: by a ``bincount`` of the ``possible`` keys when they are few, else by
    ``torch.unique`` (which waits for the device to learn its output's size)."""
    if possible <= _COUNTED_KEYS:
        counted = torch.bincount(keys, minlength=possible)
        host = torch.cat([ranks, counted]).cpu().numpy()
        sizes = host[ranks.shape[0] :]
        present = np.flatnonzero(sizes)
        return present, host[: ranks.shape[0]], sizes[present]
    unique, counted = torch.unique(keys, return_counts=True)
    host = torch.cat([ranks, unique, counted]).cpu().numpy()
    present, sizes = np.split(host[ranks.shape[0] :], 2)
    return present, host[: ranks.shape[0]], sizes


class _DeviceLowRankFit(LowRankFit):
    """A low-rank fit from the device route's moments, whose permutation null is the host
    route's: the null needs per-stratum moments in the same feature basis, which the host route
    has (computed on first use only)."""

    def __init__(
        self,
        means: dict[str, Any],
        centred: dict[tuple[str, str], Any],
        n: int,
        ridge: Any,
        like: Any,
        problem: Problem,
    ) -> None:
        self._problem = problem
        super().__init__(means, centred, n, ridge, like, self._no_source)

    def _null_statistic(self) -> float:
        return float(self._problem.fit().terms.null_statistic)

    @staticmethod
    def _no_source() -> Any:
        raise TypeError("permutations of a device-route fit: use Problem.fit")


def _column_structure(z: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
    return [distinct_values(z[:, j]) for j in range(z.shape[1])]


class _RoleMap:
    """One variable's levels and pivots on the device: :class:`._lowrank.FeatureMap`'s fit."""

    def __init__(
        self,
        role: str,
        roles: dict[str, KernelInput],
        structure: list[tuple[torch.Tensor, torch.Tensor]],
        levels: list[np.ndarray],
        options: Any,
    ) -> None:
        """Fit on ``roles[role]``, whose columns' distinct values are ``structure`` on the
        device and ``levels`` on the host (each a count, then the values)."""
        self.role = role
        counts = [int(row[0]) for row in levels]
        z = roles[role].z
        differentiated = differentiated_columns(roles, role)
        discrete = [
            j for j, count in enumerate(counts) if count <= MAX_LEVELS and j not in differentiated
        ]
        codes = {j: level_codes(z[:, j], structure[j][1][: counts[j]]) for j in discrete}
        while _KEYS_FIT > math.prod(counts[j] for j in discrete) > MAX_COMBINATIONS:
            # possibly too many combinations: count those present (one more copy), and as on
            # the host the column with the most levels joins the continuous block
            keys = combination_keys([codes[j] for j in discrete], [counts[j] for j in discrete])
            if int(torch.unique(keys).numel()) <= MAX_COMBINATIONS:
                break
            discrete.remove(max(discrete, key=lambda j: counts[j]))
        self.discrete = discrete
        self._values = [levels[j][1 : 1 + counts[j]] for j in discrete]
        #: the number of possible level combinations (the caller leaves a grid of
        #: :data:`_KEYS_FIT` or more, whose keys overflow, to the host route)
        self.grid = math.prod(counts[j] for j in discrete)
        self.keys = (
            combination_keys([codes[j] for j in discrete], [counts[j] for j in discrete])
            if discrete and self.grid < _KEYS_FIT
            else torch.zeros(z.shape[0], dtype=torch.int64, device=z.device)
        )
        self.continuous = [j for j in range(z.shape[1]) if j not in discrete]
        self.factor = None
        self.rank = 1
        if self.continuous:
            self.factor = incomplete_cholesky(
                z[:, self.continuous],
                pivot_tolerance(options.ridge, role),
                options.rank or MAX_RANK,
            )
        self._counts = [counts[j] for j in discrete]

    def level_factor(self, combinations: np.ndarray) -> np.ndarray:
        """``W`` of the level kernel between the present ``combinations`` (grid keys, sorted):
        the host route's own encoder and square root, on one row per combination."""
        encoder = LevelEncoder(list(range(len(self.discrete))), 0)
        if self.discrete:
            radices = np.cumprod([1, *self._counts[::-1]])[::-1][1:]
            codes = [(combinations // r) % c for r, c in zip(radices, self._counts, strict=True)]
            values = [v[code] for v, code in zip(self._values, codes, strict=True)]
            encoder.encode(combinations.size, np.stack(values, axis=1), None, ())
        return _psd_square_root(encoder.level_kernel())

    def continuous_factor(self, k: KernelInput) -> torch.Tensor:
        """The factor rows of the continuous columns (``n × rank``; ones without any): the
        incomplete Cholesky factor, or for a tracked input the Nyström rows on its pivots,
        which carry gradients (see :class:`._lowrank.FeatureMap`)."""
        z = k.z
        if self.factor is None:
            return torch.ones((z.shape[0], 1), dtype=z.dtype, device=z.device)
        if not is_tracked(k):
            return self.factor.rows[: self.rank].T
        values = z[:, self.continuous]
        landmarks = values[self.factor.pivots[: self.rank]]
        lower = torch.linalg.cholesky(gaussian(landmarks, landmarks))
        return divide_by_lower_transposed(gaussian(values, landmarks), lower)


def _group_moments(
    factors: torch.Tensor, keys: torch.Tensor, sizes: list[int]
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sums and Grams of the factor rows of each group of equal ``keys`` (groups in increasing
    key order, of ``sizes`` rows): one sort, then one product per group's segment."""
    if len(sizes) > 1:
        factors = factors[torch.argsort(keys, stable=True)]
    sums, grams = [], []
    start = 0
    for size in sizes:
        block = factors[start : start + size]
        sums.append(torch.sum(block, dim=0))
        grams.append(block.T @ block)
        start += size
    return torch.stack(sums), torch.stack(grams)
