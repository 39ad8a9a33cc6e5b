"""The low-rank fit from explicit feature rows, for in-memory inputs that carry gradients.

A training penalty differentiates the statistic in the predictions only. Here the feature rows
of each variable are formed explicitly (``n × width``); rows of variables without gradients are
built and multiplied on the host in float64, so the autograd graph holds only the rows of the
tracked variable and its products with constants. Grouped moments would put every variable's
per-group Grams into the graph, which costs several times more in a backward pass at batch
sizes. The features are those of :class:`FeatureMap`, so the statistic is the low-rank one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .._kernels.kernel import KernelInput, to_host
from .._linalg.backend import as_like, is_tracked, namespace
from .feature_map import FeatureMap, refitted_features, row_kronecker
from .kronecker_rows import KroneckerRows
from .lowrank import LowRankFit, StratumMoments
from .pivots import pivot_tolerance
from .strata import Strata
from .terms import Ridge, Role


def explicit_fit(rows: ExplicitRows, ridge: Ridge, like: Any) -> LowRankFit:
    """The low-rank fit of the explicit feature ``rows`` of in-memory inputs.

    Raises
    ------
    ValueError
        The rows are wider than the data: they would change their factor, and the route
        chooser (:func:`._routes.choose.choose_route`) sends such inputs to grouped moments.
    """
    if rows.width > rows.n:
        raise ValueError(
            f"explicit feature rows of {rows.width} columns are wider than their {rows.n} rows"
        )
    means, grams = rows.centred_moments(like)
    return LowRankFit(means, grams, rows.n, ridge, like, lambda: rows)


def differentiated_columns(roles: dict[str, KernelInput], role: str) -> list[int]:
    """The numeric columns of ``roles[role]`` that need gradients: those of a tracked variable.

    The attributes ``e`` of a conditional notion are the sensitive columns followed by the
    conditioning variable's (:func:`._routes.problem.roles_of`); under calibration that variable is
    the predictions, but the sensitive columns are data. Marking them all as differentiated (as the
    tracked concatenation suggests) would keep discrete attributes out of their exact level
    factor, and the statistic would then differ from the numpy route's by the low-rank error
    (about 10⁻³ relative), not by rounding. The sensitive attributes are never differentiated.
    """
    k = roles[role]
    if k.z is None or not is_tracked(k.z):
        return []
    width = int(k.z.shape[1])
    if role != Role.ATTRIBUTES:
        return list(range(width))
    given = roles.get(Role.GIVEN)
    if given is None or given.z is None or not is_tracked(given.z):
        return []
    return list(range(width - int(given.z.shape[1]), width))


class ExplicitRows:
    """Uncentred feature rows ``W[g_i] ⊗ φ_i`` of each variable: host arrays unless tracked."""

    def __init__(
        self,
        roles: dict[str, KernelInput],
        conditional: bool,
        rank: int | None,
        ridge: Ridge,
        like: Any,
    ) -> None:
        self.n = next(iter(roles.values())).n
        self._roles = roles
        self._conditional = conditional
        self._rank = rank
        self._ridge = ridge
        self.rows: dict[str, Any] = {}
        self._maps: dict[str, FeatureMap] = {}
        self._codes: dict[str, np.ndarray] = {}
        for role, k in roles.items():
            tracked = is_tracked(k.z)
            if not tracked:
                k = k.on_host()
            feature_map = self._maps[role] = self._feature_map(role)
            codes, factor = feature_map.fit_transform(
                k, like if tracked else np.zeros(()), differentiated_columns(roles, role)
            )
            self._codes[role] = codes
            level_rows = feature_map.level_rows(codes)
            if tracked:
                xp = namespace(like)
                level_rows = xp.asarray(level_rows, dtype=like.dtype, device=factor.device)
            self.rows[role] = row_kronecker(level_rows, factor)
        self.width = max(int(r.shape[1]) for r in self.rows.values())

    def centred_moments(self, like: Any) -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
        """Feature means and centred cross-Grams in the namespace of ``like``.

        Rows are centred before their products are taken: host rows on the host, so only the
        tracked rows' centring and products enter the autograd graph.
        """
        xp = namespace(like)
        means, centred = {}, {}
        for role, r in self.rows.items():
            if isinstance(r, np.ndarray):
                mean = np.mean(r, axis=0)
                means[role] = as_like(mean, like)
                centred[role] = r - mean
            else:
                means[role] = xp.mean(r, axis=0)
                centred[role] = r - means[role]
        grams: dict[tuple[str, str], Any] = {}
        names = list(self.rows)
        for i, x in enumerate(names):
            for y in names[i:]:
                a, b = centred[x], centred[y]
                if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
                    gram = as_like(a.T @ b, like)
                else:
                    a, b = (as_like(v, like) if isinstance(v, np.ndarray) else v for v in (a, b))
                    gram = xp.permute_dims(a, (1, 0)) @ b
                grams[(x, y)] = gram
                grams[(y, x)] = xp.permute_dims(gram, (1, 0))
        return means, grams

    def stratum_moments(self) -> Iterator[StratumMoments]:
        host = self.host_features()
        strata = self.row_strata()
        for stratum in np.unique(strata):
            members = strata == stratum
            rows = {role: r[members] for role, r in host.items()}
            yield StratumMoments(
                int(np.sum(members)),
                {role: np.sum(r, axis=0) for role, r in rows.items()},
                {(x, y): rows[x].T @ rows[y] for x in rows for y in rows},
            )

    def row_strata(self) -> np.ndarray:
        if not self._conditional:
            return np.zeros(self.n, dtype=np.int64)
        return Strata(self._roles[Role.GIVEN]).assign(self._roles[Role.GIVEN])

    def host_features(self) -> dict[str, np.ndarray]:
        return {role: to_host(r) for role, r in self.rows.items()}

    def explicit_factors(self, role: str, k: KernelInput) -> tuple[np.ndarray, np.ndarray]:
        """The level rows ``W[g_i]`` and continuous factor rows ``φ_i`` of ``k`` under
        ``role``'s fitted feature map (host arrays; :attr:`rows` holds their row-wise
        Kronecker product for the fitted rows)."""
        feature_map = self._maps[role]
        codes, factor = feature_map.transform(k.on_host(), np.zeros(()))
        # the level factor of the combinations of the fitted rows, which :attr:`rows` hold
        fitted = self._codes[role]
        level_rows = feature_map.level_rows(np.concatenate([fitted, codes]))[fitted.size :]
        return level_rows, to_host(factor)

    def refitted_features(self, role: str, inputs: Sequence[KernelInput]) -> KroneckerRows:
        """Host feature rows of each of ``inputs``, kept as their factors, each under a feature
        map of ``role``'s kind fitted on itself (see
        :func:`._estimators.feature_map.refitted_features`)."""
        return refitted_features(self._feature_map(role), inputs)

    def _feature_map(self, role: str) -> FeatureMap:
        return FeatureMap(self._rank, pivot_tolerance(self._ridge, role), max_width=self.n)
