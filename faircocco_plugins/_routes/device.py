"""The terms of a torch problem, computed on its tensors' device.

The host route (:meth:`._routes.problem.Problem.fit`) sorts the rows, fits bandwidths, levels and
pivots on host copies of the data and sends factors back, which on an accelerator costs more
than the statistic itself (every column crosses twice). Here every step of size ``N`` stays on
the device, and the small results that decide the shapes of what follows come to the host in
one copy: the number of distinct values of every numeric column with its first values (which
columns are factored over their levels, and the level values), the number of level
combinations present, the rank of each incomplete Cholesky factor, the keys and row counts of
the level groups (the segments of the per-group Grams), and whether every column is finite (the
inputs' check for NaN, deferred to this copy). A score makes no other read but the incomplete
Cholesky's stopping test, once per block of pivots: it is chosen between 0 and the ratio on the
device (:meth:`._estimators.terms.Terms.score`), and returned as a tensor. To need no earlier
copy, the device applies the host's rule for discrete columns itself, and fits each continuous
factor on the variable with its discrete columns zeroed, which leaves the factor of the other
columns as it is. Data that the host would treat otherwise take the host route instead: a
variable with more than :data:`._estimators.feature_map.MAX_COMBINATIONS` level combinations
present (the host drops levels column by column), or more than :data:`_GROUP_SLOTS` level
groups.

The results are those of the host route, by the same functions on the device's tensors: the
canonical row order (:func:`._inputs.row_order.lexicographic_order`), the median bandwidths
(:func:`._kernels.kernel.sample_widths`), the levels (:func:`._kernels.levels.unique_inverse`) and
level factors, the pivots (:func:`._estimators.cholesky.incomplete_cholesky`), and the per-group
moments (:func:`._estimators.moments.segment_moments`) mixed by
:func:`._estimators.moments.mixed_moments`; only the order of floating-point sums differs.
Variables with nominal columns (host codes) take the host route. The permutation null is the host
route's, computed on first use (a score without chance adjustment never needs it). The exact
estimator (at most :data:`._estimators.exact.MAX_EXACT_ROWS` rows) takes the device's row order and
bandwidths too, and one copy (whether the attributes are constant, and the check for NaN); its
strata, which only its null uses, are found on the host on first use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import numpy as np
import torch

from .._estimators.cholesky import incomplete_cholesky
from .._estimators.explicit import differentiated_columns
from .._estimators.feature_map import MAX_COMBINATIONS, psd_square_root
from .._estimators.lowrank import LowRankFit
from .._estimators.moments import centre_moments, exact_fit, mixed_moments, segment_moments
from .._estimators.pivots import pivot_tolerance
from .._estimators.terms import Role, Terms
from .._inputs.row_order import lexicographic_order
from .._kernels.kernel import KernelInput, bandwidth_rows, refuse_unscalable, sample_widths
from .._kernels.levels import (
    MAX_LEVELS,
    LevelEncoder,
    combination_keys,
    distinct_count,
    unique_inverse,
)
from .._kernels.registry import kernel_named
from .._linalg.backend import divide_by_lower_transposed, is_tracked
from .choose import Measured, ScoreRoute
from .problem import Problem, kernel_layout, roles_of

#: Level groups whose keys and sizes the one copy holds; data with more take the host route.
_GROUP_SLOTS = 4096
#: Mixed-radix keys of fewer possible combinations than this fit in int64.
_KEYS_FIT = 2**62


@dataclass
class DeviceMeasurement:
    """A problem's inputs ordered and scaled on the device, and what the one copy measured of
    them (:attr:`measured`, from which :func:`._routes.choose.choose_route` chooses)."""

    problem: Problem
    inputs: dict[str, KernelInput]
    roles: dict[str, KernelInput]
    measured: Measured
    #: the low-rank route's levels and pivots of each role
    maps: dict[str, _RoleMap] = field(default_factory=dict)
    #: the low-rank route's rows in the order of their level groups
    order: torch.Tensor | None = None
    #: the low-rank route's grid key of each level group, of each role (fitting data only)
    keys: list[np.ndarray] = field(default_factory=list)
    #: the low-rank route's rows in each level group
    sizes: list[int] = field(default_factory=list)


def measure(problem: Problem, route: ScoreRoute) -> DeviceMeasurement:
    """``problem``'s variables (numeric columns only) ordered and scaled on the device, and, in
    one copy, what ``route`` (the exact or the low-rank estimator) needs to know of them first."""
    variables = problem.variables()
    options = problem.options
    order = lexicographic_order(
        [v.numeric[:, j] for v in variables.values() for j in range(v.numeric.shape[1])]
    )
    kernel = kernel_named(options.kernel)
    inputs = {
        name: KernelInput(_scaled(v.numeric[order], name, options), None, kernel=kernel)
        for name, v in variables.items()
    }
    roles = roles_of(options.notion, **inputs)
    if route is ScoreRoute.DEVICE_EXACT:
        constant = problem.sensitive.numeric_is_constant()
        copied = _checked_copy(problem, inputs, [constant.to(torch.int64)[None]])
        measured = Measured(route, constant_attributes=bool(copied[0][0]))
        return DeviceMeasurement(problem, inputs, roles, measured)
    return _measure_lowrank(problem, inputs, roles, int(problem.sensitive.numeric.shape[1]))


def device_terms(measurement: DeviceMeasurement) -> Terms:
    """The :class:`._estimators.terms.Terms` of a measured problem computed on its tensors'
    device, by the estimator it was measured for.

    Raises
    ------
    ValueError
        The measurement is of constant attributes, or of data the device's slots do not hold:
        :func:`._routes.choose.choose_route` sends neither here.
    """
    problem, roles, measured = measurement.problem, measurement.roles, measurement.measured
    if measured.constant_attributes or not measured.fits_device:
        raise ValueError(
            "the device route takes no constant attributes, nor data its slots do not hold"
        )
    if measured.route is ScoreRoute.DEVICE_EXACT:
        return exact_fit(roles, problem.options.ridge, problem.like).terms
    return _lowrank_terms(measurement)


def _measure_lowrank(
    problem: Problem,
    inputs: dict[str, KernelInput],
    roles: dict[str, KernelInput],
    sensitive_width: int,
) -> DeviceMeasurement:
    options = problem.options
    n = problem.n
    maps = {role: _RoleMap(role, roles, options) for role in roles}
    # the rows' level groups (a combination of every variable's levels), sorted on the device
    keys = combination_keys([m.keys for m in maps.values()], [m.grid for m in maps.values()])
    ordered, order = torch.sort(keys, stable=True)
    starts = torch.cat([ordered.new_ones(1, dtype=torch.bool), ordered[1:] != ordered[:-1]])
    group = torch.cumsum(starts, 0) - 1
    slots = min(n, _GROUP_SLOTS)
    # the first slots' keys and sizes (a group past them makes the count exceed the slots)
    slot = group.clamp(max=slots - 1)
    group_keys = ordered.new_zeros(slots).index_put_((slot,), ordered)
    group_sizes = ordered.new_zeros(slots).index_add_(0, slot, torch.ones_like(ordered))
    # the one copy: every small result the host needs, bit for bit in one int64 array
    parts = [p for m in maps.values() for p in m.small_results()]
    parts += [group[-1:] + 1, group_keys, group_sizes]
    host = iter(_checked_copy(problem, inputs, parts))
    for m in maps.values():
        m.read_small_results(host)
    groups, present, sizes = int(next(host)[0]), next(host), next(host)
    grid = [m.host_grid for m in maps.values()]
    # at most as many groups as slots, level combinations few enough to factor exactly (the
    # host drops levels column by column), and keys within int64
    fits = groups <= slots and all(m.fits for m in maps.values()) and math.prod(grid) < _KEYS_FIT
    constant = all(count == 1 for count in maps[Role.ATTRIBUTES].counts[:sensitive_width])
    measured = Measured(
        ScoreRoute.DEVICE_LOWRANK,
        widths=tuple(m.width for m in maps.values()),
        constant_attributes=constant,
        fits_device=fits,
    )
    measurement = DeviceMeasurement(problem, inputs, roles, measured, maps, order)
    if not fits:
        return measurement
    # each group's combination code of each variable
    present = present[:groups]
    strides = np.cumprod([1, *grid[::-1]])[::-1][1:]
    measurement.keys = [(present // s) % size for s, size in zip(strides, grid, strict=True)]
    measurement.sizes = sizes[:groups].tolist()
    # explicit feature rows' widths: level combinations present times pivots
    explicit = tuple(
        np.unique(key).size * m.rank for m, key in zip(maps.values(), measurement.keys, strict=True)
    )
    measurement.measured = replace(measured, explicit_widths=explicit)
    return measurement


def _lowrank_terms(measurement: DeviceMeasurement) -> Terms:
    problem, roles, maps = measurement.problem, measurement.roles, measurement.maps
    options, n, like = problem.options, problem.n, problem.like
    order, sizes = measurement.order, measurement.sizes
    # each group's combination code of each variable, among the variable's present ones
    group_codes, level_factors = [], {}
    for m, key in zip(maps.values(), measurement.keys, strict=True):
        combinations = np.unique(key)
        group_codes.append(np.searchsorted(combinations, key))
        level_factors[m.role] = m.level_factor(combinations)
    factors = {role: m.continuous_factor(roles[role]) for role, m in maps.items()}
    moments = segment_moments(torch.cat(list(factors.values()), dim=1)[order], sizes)
    group_sums = torch.stack([sums for sums, _ in moments])
    group_grams = torch.stack([gram for _, gram in moments])
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
        role for role, m in maps.items() if not m.continuous and level_factors[role].shape[0] == 1
    }
    centred = {key: g * 0.0 if constant.intersection(key) else g for key, g in centred.items()}
    terms = LowRankFit(means, centred, n, options.ridge, like, _no_source).terms
    # the permutation null needs per-stratum moments in the same feature basis, which the host
    # route has (computed on first use only)
    return replace(terms, compute_null_statistic=lambda: problem.fit().terms.null_statistic)


def _scaled(values: torch.Tensor, name: str, options: Any) -> torch.Tensor:
    """``(values − centres) / widths`` of variable ``name`` as :func:`._routes.problem.fit_scaling`
    and ``apply`` give on the rows of ``values`` (in their canonical order), by
    :func:`._kernels.kernel.sample_widths` on the device; a width beyond float64 makes its column
    NaN, which the route refuses as the host does."""
    shared, joint = kernel_layout(name, options)
    rows = _bandwidth_rows(int(values.shape[0]), options.random_state, values.device)
    sample = values.detach() if rows is None else values.detach()[rows]
    centres, widths = sample_widths(
        sample,
        int(values.shape[1]),
        shared=shared,
        standardised=joint,
        bandwidth=options.bandwidth,
        kernel=kernel_named(options.kernel),
    )
    return (values - centres) / torch.where(torch.isfinite(widths), widths, torch.nan)


@cache
def _bandwidth_rows(n: int, random_state: int | None, device: torch.device) -> torch.Tensor | None:
    """The rows of :func:`._kernels.kernel.bandwidth_rows` on ``device`` (None: all rows), copied
    there once per size and seed."""
    rows = bandwidth_rows(n, random_state)
    return None if rows.size == n else torch.from_numpy(np.ascontiguousarray(rows)).to(device)


def bits(values: torch.Tensor) -> torch.Tensor:
    """A float64 tensor's bits as int64, flat."""
    return values.reshape(-1).view(torch.int64)


def _checked_copy(
    problem: Problem, inputs: dict[str, KernelInput], parts: list[torch.Tensor]
) -> list[np.ndarray]:
    """``parts`` on the host (:func:`_one_copy`), with two checks riding on the same copy and
    made first: the inputs' deferred check for NaN (:meth:`._routes.problem.Problem.check_finite`),
    then whether the variables ``inputs``, scaled by their bandwidths, are finite, as
    :meth:`._kernels.kernel.Scaling.apply` checks on the host."""
    variables = problem.variables()
    scaled = [torch.isfinite(inputs[name].z).all(dim=0).to(torch.int64) for name in variables]
    finite = problem.finite
    checks = [*scaled, *([] if finite is None else [finite.flags.to(torch.int64)])]
    host = _one_copy([*parts, *checks])
    if finite is not None:
        problem.check_finite(host.pop())
    flags = host[len(parts) :]
    for variable, flag in zip(variables.values(), flags, strict=True):
        if not flag.all():
            refuse_unscalable(variable, False, flag == 0)
    return host[: len(parts)]


def _one_copy(parts: list[torch.Tensor]) -> list[np.ndarray]:
    """``parts`` (int64 and float64 device tensors) on the host, in one copy: floats travel
    as their bits."""
    flat = [
        p.reshape(-1) if p.dtype == torch.int64 else p.reshape(-1).view(torch.int64) for p in parts
    ]
    host = torch.cat(flat).cpu().numpy()
    pieces = np.split(host, np.cumsum([p.numel() for p in parts])[:-1].tolist())
    return [
        piece if part.dtype == torch.int64 else piece.view(np.float64)
        for piece, part in zip(pieces, parts, strict=True)
    ]


def _no_source() -> Any:
    raise TypeError("permutations of a device-route fit: use Problem.fit")


class _RoleMap:
    """One variable's levels and pivots on the device
    (:class:`._estimators.feature_map.FeatureMap`'s fit), fitted before the host knows which
    columns are discrete: the device applies the host's rule (at most
    :data:`._kernels.levels.MAX_LEVELS` distinct values, and not differentiated), and the
    continuous factor is fitted on the other columns by zeroing the discrete ones, which leaves
    every distance, residual and tie between rows as they are without them."""

    def __init__(self, role: str, roles: dict[str, KernelInput], options: Any) -> None:
        self.role = role
        z = roles[role].z
        width = int(z.shape[1])
        levels = [unique_inverse(z[:, j], MAX_LEVELS) for j in range(width)]
        self._counts = torch.stack([torch.max(codes) + 1 for _, codes in levels])
        self._values = torch.stack([values for values, _ in levels])
        self._differentiated = differentiated_columns(roles, role)
        differentiated = torch.zeros(width, dtype=torch.bool, device=z.device)
        differentiated[self._differentiated] = True
        discrete = (self._counts <= MAX_LEVELS) & ~differentiated
        radices = torch.where(discrete, self._counts, 1)
        self.keys = combination_keys(
            [torch.where(discrete[j], codes, 0) for j, (_, codes) in enumerate(levels)],
            list(radices),
        )
        self.grid = torch.prod(radices)
        self._present = distinct_count(self.keys)
        self.continuous_z = z * (~discrete).to(z.dtype)
        self.kernel = roles[role].kernel
        self._pivots, self._factor = incomplete_cholesky(
            self.continuous_z,
            self.kernel,
            pivot_tolerance(options.ridge, role),
            options.rank or self.kernel.default_rank,
        )

    def small_results(self) -> list[torch.Tensor]:
        """What the host needs of this fit: counts, first values, present combinations, rank."""
        rank = torch.count_nonzero(self._pivots >= 0)
        return [self._counts, self._values, self._present[None], rank[None]]

    def read_small_results(self, host: Any) -> None:
        """Take :meth:`small_results` from the host's copy, and decide as the host route."""
        self.counts = next(host).tolist()
        values = next(host).reshape(len(self.counts), -1)
        present, self.rank = int(next(host)[0]), int(next(host)[0])
        self.discrete = [
            j
            for j, count in enumerate(self.counts)
            if count <= MAX_LEVELS and j not in self._differentiated
        ]
        self._level_values = [values[j][: self.counts[j]] for j in self.discrete]
        self.host_grid = math.prod(self.counts[j] for j in self.discrete)
        #: whether the present level combinations are few enough to factor exactly (else the
        #: host route drops levels column by column)
        self.fits = present <= MAX_COMBINATIONS and self.host_grid < _KEYS_FIT
        #: columns of the features, as :attr:`._estimators.feature_map.FeatureMap.width`
        self.width = present * max(self.rank, 1)
        self.continuous = [j for j in range(len(self.counts)) if j not in self.discrete]

    def level_factor(self, combinations: np.ndarray) -> np.ndarray:
        """``W`` of the level kernel between the present ``combinations`` (grid keys, sorted):
        the host route's own encoder and square root, on one row per combination."""
        encoder = LevelEncoder(list(range(len(self.discrete))), 0)
        if self.discrete:
            counts = [self.counts[j] for j in self.discrete]
            radices = np.cumprod([1, *counts[::-1]])[::-1][1:]
            codes = [(combinations // r) % c for r, c in zip(radices, counts, strict=True)]
            values = [v[code] for v, code in zip(self._level_values, codes, strict=True)]
            encoder.encode(combinations.size, np.stack(values, axis=1), None, ())
        return psd_square_root(encoder.level_kernel(self.kernel))

    def continuous_factor(self, k: KernelInput) -> torch.Tensor:
        """The factor rows of the continuous columns (``n × rank``; without any, the
        factorisation of the zeroed columns is one column of ones, the host's constant
        factor): the incomplete Cholesky factor, or for a tracked input the Nyström rows on
        its pivots, which carry gradients (see :class:`._estimators.feature_map.FeatureMap`)."""
        if not is_tracked(k.z):
            return self._factor[:, : self.rank]
        landmarks = self.continuous_z[self._pivots[: self.rank]]
        lower = torch.linalg.cholesky(self.kernel.gram(landmarks, landmarks))
        return divide_by_lower_transposed(self.kernel.gram(self.continuous_z, landmarks), lower)
