"""Grouped moments of the low-rank features: the estimator's pass over the rows.

The Kronecker product ``W[g_i] ⊗ φ_i`` of the feature maps (:mod:`._estimators.feature_map`) is
never formed: rows are grouped by their combination of codes across all variables, per-group
sums and Gram matrices of the continuous factors are accumulated (their rows formed a block of
rows at a time, so that no ``N × r`` factor is held), and the cross-Gram matrices
``C_xy = Φ_xᵀ Φ_y`` are assembled from them. Every quantity is a sum over rows, so chunks of a
stream are reduced one at a time; the centred Grams then give the fit
(:class:`._estimators.lowrank.LowRankFit`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

import array_api_compat
import numpy as np

from .._kernels.kernel import KernelInput, to_host
from .._kernels.levels import LevelRegistry
from .._linalg.backend import add_rows, namespace, take_rows
from .exact import MAX_EXACT_ROWS, check_exact_size
from .feature_map import MAX_FEATURES, FeatureMap, refitted_features, row_kronecker
from .kronecker_rows import KroneckerRows
from .lowrank import C, E, LowRankFit, StratumMoments, U
from .pivots import pivot_tolerance
from .strata import Strata
from .terms import Ridge

#: Rows whose factor rows are formed, and added to the Grams, at a time: never ``N × r`` at once
#: (at 10⁶ rows, blocks of 2¹⁵ rows took the same time and 35 MiB more memory).
ROW_BLOCK = 2**14


def _in_memory(roles: dict[str, KernelInput] | None) -> dict[str, KernelInput]:
    if roles is None:
        raise ValueError("permutation tests need the data in memory, not a stream.")
    return roles


#: The arguments of each role, for messages.
_ROLE_ARGUMENTS: dict[str, str] = {
    U: "y_pred (y_true under notion='cal')",
    E: "sensitive_features (with y_true under notion='eo', y_pred under 'cal')",
    C: "y_true (y_pred under notion='cal')",
}


@dataclass
class _Group:
    count: int
    sums: Any
    gram: Any


class GroupedMoments:
    """Per-group sums and Gram matrices of the continuous factors of the variables ``u, e[, c]``.

    A group is a combination of level codes of all variables (and of the conditioning stratum),
    so within a group every variable's discrete factor is constant.
    """

    def __init__(
        self,
        first: dict[str, KernelInput],
        conditional: bool,
        rank: int | None,
        ridge: Ridge,
        pivot_jointly: bool = False,
        complete: bool = False,
    ) -> None:
        """Feature maps for the variables of ``first``, the first chunk; with ``pivot_jointly``
        (data in memory, all in ``first``), those whose levels times pivots would be wider than
        its rows pivot their joint kernel (:func:`._estimators.pivots.pivots_jointly`). A stream's
        first chunk is not all its rows: levels times pivots are then not wider than the data.
        ``complete`` maps (the exact estimator's, data in memory) factor each kernel to
        rounding, whatever ``rank``."""
        self.roles = list(first)
        self.ridge = ridge
        self.complete = complete
        self.maps = {
            role: FeatureMap(
                rank, pivot_tolerance(ridge, role), pivot_jointly=pivot_jointly, complete=complete
            )
            for role in first
        }
        self.strata = Strata(first[C]) if conditional else None
        self._groups: list[_Group] = []
        self._keys = LevelRegistry()
        self._in_memory: dict[str, KernelInput] | None = None
        self._fitted = False
        self.n = 0

    @property
    def width(self) -> int:
        """Columns of the widest variable's features
        (:attr:`._estimators.feature_map.FeatureMap.width`), fitted on the first chunk: the size
        of the estimator's solves."""
        return max(self.widths)

    @property
    def widths(self) -> list[int]:
        """Columns of each variable's features."""
        return [m.width for m in self.maps.values()]

    def check_width(self) -> None:
        """Refuse features wider than :data:`._estimators.feature_map.MAX_FEATURES`, naming the
        variable and what to do; complete features are at most as wide as the rows, which the
        exact estimator caps."""
        if self.complete or self.width <= MAX_FEATURES:
            return
        role, widest = max(self.maps.items(), key=lambda item: item[1].width)
        raise ValueError(
            f"the low-rank features of {_ROLE_ARGUMENTS[role]} would be {widest.width:,} "
            f"columns wide ({widest.levels.n_combinations} level combinations of its discrete "
            f"columns times {widest.continuous_rank} pivots of its continuous ones), more than "
            f"the {MAX_FEATURES:,} the low-rank estimator takes: its solves grow as the cube "
            f"of the width, and each of its matrices would take "
            f"{widest.width**2 * 8 / 2**30:.1f} GiB. Use method='exact' (at most "
            f"{MAX_EXACT_ROWS:,} rows), cap the pivots with rank= (the width is the "
            "combinations times the rank), or merge rare levels."
        )

    def empty(self) -> GroupedMoments:
        """A copy with the fitted feature maps and strata but no rows, for other partitions."""
        copy = deepcopy(self)
        copy._groups, copy._keys, copy._in_memory, copy.n = [], LevelRegistry(), None, 0
        return copy

    def merge(self, other: GroupedMoments) -> None:
        """Add the rows accumulated by ``other``, a copy from :meth:`empty` fed other chunks."""
        if not other._groups:
            return
        theirs = np.asarray(other._keys.values, dtype=np.int64).reshape(len(other._groups), -1)
        columns = [
            self.maps[role].levels.translate(other.maps[role].levels, theirs[:, i])
            for i, role in enumerate(self.roles)
        ]
        if self.strata is not None:
            assert other.strata is not None
            columns.append(self.strata.translate(other.strata, theirs[:, -1]))
        mine = self._keys.codes_of([tuple(r) for r in np.stack(columns, axis=1).tolist()])
        for group, code in zip(other._groups, mine.tolist(), strict=True):
            self._accumulate(code, group.count, group.sums, group.gram)
        self.n += other.n

    def add(self, chunk: dict[str, KernelInput], like: Any) -> None:
        """Accumulate one chunk; the first fits the feature maps on it.

        When the pivots of the first chunk, chosen among candidates, leave some of its rows
        uncovered (:meth:`._estimators.feature_map.FeatureMap.uncovered`), those are covered and
        the chunk is accumulated again.
        """
        if self._fitted:
            codes = [self.maps[role].codes(chunk[role]) for role in self.roles]
            self._add_chunk(chunk, like, codes, {}, check=False)
            return
        fitted = {role: self.maps[role].fit(chunk[role], like) for role in self.roles}
        self._fitted = True
        codes = [fitted[role][0] for role in self.roles]
        factors = {role: f for role, (_, f) in fitted.items() if f is not None}
        uncovered = self._add_chunk(chunk, like, codes, factors, check=True)
        if uncovered:
            for role, rows in uncovered.items():
                self.maps[role].cover(chunk[role], rows)
            self._groups, self._keys, self.n = [], LevelRegistry(), 0
            self._add_chunk(chunk, like, codes, factors, check=False)

    def _add_chunk(
        self,
        chunk: dict[str, KernelInput],
        like: Any,
        codes: list[np.ndarray],
        factors: dict[str, Any],
        check: bool,
    ) -> dict[str, np.ndarray]:
        """Accumulate ``chunk``, whose level codes are ``codes`` (one array per variable), in
        blocks of :data:`ROW_BLOCK` rows taken in the order of their groups, so that each
        group's rows are consecutive. Factor rows are those of ``factors`` (of some variables,
        from their fit), the others formed block by block: never ``N × r`` at once. With
        ``check`` (the chunk the maps were fitted on), return the rows each map leaves
        uncovered, and accumulate nothing once there are any."""
        if self.strata is not None:
            codes = [*codes, self.strata.assign(chunk[C])]
        groups = self._keys.encode_rows(np.stack(codes, axis=1))
        # numpy radix-sorts 16-bit keys in O(n)
        order = np.argsort(
            groups.astype(np.int16) if groups.max() < 2**15 else groups, kind="stable"
        )
        uncovered: dict[str, list[np.ndarray]] = {}
        for start in range(0, groups.size, ROW_BLOCK):
            rows = order[start : start + ROW_BLOCK]
            block = []
            for role in self.roles:
                if role in factors:
                    block.append(take_rows(factors[role], rows))
                    continue
                feature_map = self.maps[role]
                k = chunk[role].take(rows)
                block.append(feature_map.factor(k, like))
                found = feature_map.uncovered(k.z, block[-1], rows) if check else rows[:0]
                if found.size:
                    uncovered.setdefault(role, []).append(found)
            if not uncovered:
                self._add_rows(groups[rows], block, like)
        return {role: np.concatenate(found) for role, found in uncovered.items()}

    def _add_rows(self, groups: np.ndarray, factors: list[Any], like: Any) -> None:
        """Accumulate rows sorted by their group, ``groups``, with factor rows ``factors`` (one
        array per variable)."""
        xp = namespace(like)
        block = factors[0] if len(factors) == 1 else xp.concat(factors, axis=1)
        starts = [0, *(np.flatnonzero(np.diff(groups)) + 1).tolist()]
        sizes = np.diff([*starts, groups.size]).tolist()
        for start, size, (sums, gram) in zip(
            starts, sizes, segment_moments(block, sizes), strict=True
        ):
            self._accumulate(int(groups[start]), size, sums, gram)
        self.n += groups.size

    def _accumulate(self, group: int, count: int, sums: Any, gram: Any) -> None:
        """Add to group ``group``, which is new when it equals the number of groups so far."""
        if group < len(self._groups):
            old = self._groups[group]
            self._groups[group] = _Group(old.count + count, old.sums + sums, old.gram + gram)
        else:
            self._groups.append(_Group(count, sums, gram))

    def fit(self, like: Any, roles: dict[str, KernelInput] | None) -> LowRankFit:
        """The low-rank :class:`Terms` from everything accumulated.

        ``roles`` (the in-memory inputs) enable
        :meth:`._estimators.lowrank.LowRankFit.permuted_statistics`.
        """
        self._in_memory = roles
        means, grams = centre_moments(*self.expanded(like), self.n)
        # a constant variable's centred features are 0, but its Grams, centred from sums that
        # round differently, are rounding noise: a statistic that every permuted one (exactly 0)
        # falls below. Its operator is exactly 0.
        constant = {role for role in self.roles if self.maps[role].is_constant}
        grams = {key: g * 0.0 if constant.intersection(key) else g for key, g in grams.items()}
        method = "exact" if self.complete else "lowrank"
        return LowRankFit(means, grams, self.n, self.ridge, like, lambda: self, method)

    def stratum_moments(self) -> Iterator[StratumMoments]:
        """Uncentred host sums and cross-Grams of the rows of each stratum."""
        for groups in self.stratum_groups().values():
            yield StratumMoments(self.counts(groups), *self.expanded(np.zeros(()), groups))

    def row_strata(self) -> np.ndarray:
        """Stratum of each in-memory row."""
        roles = _in_memory(self._in_memory)
        if self.strata is None:
            return np.zeros(self.n, dtype=np.int64)
        return self.strata.assign(roles[C])

    def host_features(self) -> dict[str, np.ndarray]:
        """Uncentred feature rows of each variable of the in-memory data."""
        roles = _in_memory(self._in_memory)
        return {role: self.explicit_features(role, k) for role, k in roles.items()}

    def refitted_features(self, role: str, inputs: Sequence[KernelInput]) -> KroneckerRows:
        """Host feature rows of each of ``inputs``, kept as their factors, each under a feature
        map of ``role``'s kind fitted on itself (see
        :func:`._estimators.feature_map.refitted_features`)."""
        fitted = self.maps[role]
        kind = FeatureMap(fitted.rank, fitted.tolerance, complete=fitted.complete)
        return refitted_features(kind, inputs, fitted.is_joint)

    def explicit_features(self, role: str, k: KernelInput) -> np.ndarray:
        """The uncentred feature rows ``W[g_i] ⊗ φ_i`` of ``k`` as a host array (``n × r``)."""
        return row_kronecker(*self.explicit_factors(role, k))

    def explicit_factors(self, role: str, k: KernelInput) -> tuple[np.ndarray, np.ndarray]:
        """The two factors of :meth:`explicit_features`: the level rows ``W[g_i]`` and the
        continuous factor rows ``φ_i`` of ``k``, host arrays."""
        codes, factor = self.maps[role].transform(k, np.zeros(()))
        return self.maps[role].level_factor()[codes], to_host(factor)

    def expanded(
        self, like: Any, groups: list[int] | None = None
    ) -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
        """Uncentred feature sums and cross-Gram matrices of the variables over ``groups``.

        With a numpy ``like`` the group statistics are detached host copies. Group statistics
        are first added up per level combination, then mixed by the level factors ``W``.
        """
        xp = namespace(like)
        device = array_api_compat.device(like)
        detach = isinstance(like, np.ndarray)
        selected = list(range(len(self._groups))) if groups is None else groups
        keys = np.asarray(self._keys.values, dtype=np.int64).reshape(len(self._groups), -1)
        keys = keys[selected]
        stats = [self._groups[g] for g in selected]
        group_sums = xp.stack([to_host(g.sums) if detach else g.sums for g in stats])
        group_grams = xp.stack([to_host(g.gram) if detach else g.gram for g in stats])
        ranks = {role: self.maps[role].continuous_rank for role in self.roles}
        factors = {
            role: xp.asarray(self.maps[role].level_factor(), dtype=like.dtype, device=device)
            for role in self.roles
        }
        return mixed_moments(keys, group_sums, group_grams, ranks, factors)

    def stratum_groups(self) -> dict[int, list[int]]:
        """The groups of each stratum (one stratum, 0, when unconditional)."""
        keys = np.asarray(self._keys.values, dtype=np.int64).reshape(len(self._groups), -1)
        strata: dict[int, list[int]] = {}
        for g in range(len(self._groups)):
            stratum = int(keys[g, -1]) if self.strata is not None else 0
            strata.setdefault(stratum, []).append(g)
        return strata

    def counts(self, groups: Iterable[int]) -> int:
        return sum(self._groups[g].count for g in groups)


def segment_moments(rows: Any, sizes: Sequence[int]) -> list[tuple[Any, Any]]:
    """The sums and Gram of each segment of consecutive ``rows``, ``sizes`` rows long (the factor
    rows of each level group, sorted by group): one product per segment, on the rows' device."""
    xp = namespace(rows)
    moments, start = [], 0
    for size in sizes:
        segment = rows[start : start + size]
        moments.append((xp.sum(segment, axis=0), xp.permute_dims(segment, (1, 0)) @ segment))
        start += size
    return moments


def mixed_moments(
    keys: Any, group_sums: Any, group_grams: Any, ranks: dict[str, int], factors: dict[str, Any]
) -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
    """Uncentred feature sums and cross-Grams of the variables from those of their groups.

    Group ``g`` holds the rows whose variable ``i`` (in the order of ``ranks``) has level
    combination ``keys[g, i]``; ``group_sums[g]`` and ``group_grams[g]`` are the sums and Gram of
    its continuous factor rows, the variables' side by side (``ranks`` columns each).
    Statistics are added up per level combination, then mixed by the level factors
    ``factors[role]`` (``W``, one row per combination).
    """
    xp = namespace(group_sums)
    roles = list(ranks)
    offsets = dict(zip(roles, np.cumsum([0, *ranks.values()]).tolist(), strict=False))
    sums: dict[str, Any] = {}
    for i, role in enumerate(roles):
        r, o = ranks[role], offsets[role]
        per_level = add_rows(int(factors[role].shape[0]), keys[:, i], group_sums[:, o : o + r])
        sums[role] = xp.reshape(xp.permute_dims(factors[role], (1, 0)) @ per_level, (-1,))
    grams: dict[tuple[str, str], Any] = {}
    for i, x in enumerate(roles):
        for j, y in enumerate(roles[i:], start=i):
            rx, ry, ox, oy = ranks[x], ranks[y], offsets[x], offsets[y]
            mx, my = int(factors[x].shape[0]), int(factors[y].shape[0])
            blocks = xp.reshape(group_grams[:, ox : ox + rx, oy : oy + ry], (-1, rx * ry))
            per_pair = add_rows(mx * my, keys[:, i] * my + keys[:, j], blocks)
            mixed = xp.reshape(per_pair, (mx, my, rx, ry))
            mixed = xp.tensordot(factors[x], mixed, axes=([0], [0]))
            mixed = xp.tensordot(mixed, factors[y], axes=([1], [0]))
            gram = xp.reshape(
                xp.permute_dims(mixed, (0, 1, 3, 2)),
                (int(factors[x].shape[1]) * rx, int(factors[y].shape[1]) * ry),
            )
            grams[(x, y)] = gram
            grams[(y, x)] = xp.permute_dims(gram, (1, 0))
    return sums, grams


def centre_moments(
    sums: dict[str, Any], grams: dict[tuple[str, str], Any], n: int
) -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
    """Feature means and centred cross-Grams from uncentred sums and Grams of ``n`` rows."""
    means = {role: s / n for role, s in sums.items()}
    centred = {
        (x, y): g - n * (means[x][:, None] * means[y][None, :]) for (x, y), g in grams.items()
    }
    return means, centred


def exact_fit(roles: dict[str, KernelInput], ridge: Ridge, like: Any) -> LowRankFit:
    """The exact estimator of the kernel inputs ``roles`` (in memory): the low-rank fit on
    complete features (see :mod:`._estimators.exact`)."""
    n = next(iter(roles.values())).n
    check_exact_size(n, C in roles)
    moments = GroupedMoments(roles, C in roles, None, ridge, complete=True)
    moments.add(roles, like)
    return moments.fit(like, roles)
