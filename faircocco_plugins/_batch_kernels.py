"""The attribute and outcome kernels of a training batch statistic, fitted once.

:class:`faircocco_plugins.BatchStatistic` measures every batch under the same kernels of the
sensitive attributes and the true outcomes: their bandwidths, level sets and low-rank pivots,
and the strata its chance adjustment permutes within, are fitted once (:class:`BatchKernels`).
A batch's rows are then mapped through them into the attribute side of its statistic
(:class:`._estimators.batch.AttributeSide`): on the host from the table of the rows seen so far
(:class:`._inputs.row_table.RowTable`), or on the predictions' device by the feature maps kept
there.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace
from typing import Any

import array_api_compat
import numpy as np

from ._estimators.batch import AttributeSide, attribute_side
from ._estimators.batch_rows import HostRows
from ._estimators.feature_map import FeatureMap, row_kronecker
from ._estimators.pivots import pivot_tolerance
from ._estimators.strata import Strata
from ._estimators.terms import Role
from ._inputs.row_table import RowTable
from ._inputs.variables import Variable
from ._kernels.kernel import KernelInput, Scaling, bandwidth_rows
from ._kernels.levels import unique_inverse
from ._kernels.range_watch import RangeWatch
from ._linalg.backend import as_like, namespace, ones, take_rows
from ._linalg.threads import single_blas_thread
from ._options import Options
from ._routes.problem import fit_scaling, roles_of

#: The feature name under which :class:`RowTable` keeps each row's stratum (chance adjustment).
_STRATUM = "stratum"
#: The ``like`` of host computations.
_HOST = np.zeros(())
#: Most columns of the attribute side (``e`` and ``c`` together) computed without limiting
#: numpy's BLAS to one thread: narrower products run on one thread anyway.
_NARROW_SIDE = 32


class BatchKernels:
    """The attribute and outcome kernels fitted on ``sensitive`` and ``truth`` (EO; None for
    DP), and the attribute side of each batch under them (:meth:`attribute_side`).

    ``chance_adjusted`` keeps each row's stratum of the outcome, for the adjustment's null.
    """

    def __init__(
        self, sensitive: Variable, truth: Variable | None, options: Options, chance_adjusted: bool
    ) -> None:
        self.options = options
        self.chance_adjusted = chance_adjusted
        rows = bandwidth_rows(sensitive.n, self.options.random_state)
        scalings = {"sensitive": fit_scaling("sensitive", sensitive, self.options, rows)}
        if truth is not None:
            scalings["truth"] = fit_scaling("truth", truth, self.options, rows)
        maps = {}
        roles = self._roles(sensitive, truth, scalings)
        with single_blas_thread():
            for role, k in roles.items():
                maps[role] = FeatureMap(
                    self.options.rank, pivot_tolerance(self.options.ridge, role)
                )
                maps[role].fit_transform(k, _HOST)
        self._scalings, self._maps = scalings, maps
        #: the inputs the maps were fitted on, and the maps fitted again on a device
        self._fitted_inputs = roles
        self._device_maps: tuple[str, dict[str, FeatureMap]] | None = None
        # the strata the null permutes within: the outcome's levels or quantile bins under EO
        self._strata = Strata(roles[Role.GIVEN]) if Role.GIVEN in roles else None
        width = sum(m.levels.n_combinations * m.continuous_rank for m in maps.values())
        self.wide_side = width > _NARROW_SIDE
        self.host_rows = HostRows(sensitive, truth)
        self._features = RowTable(self._feature_rows)
        #: the table's size and its rows from :meth:`_expanded`, while they are current
        self._table_rows: tuple[int, tuple[np.ndarray, int]] | None = None
        fitted = [(sensitive, scalings["sensitive"])]
        if truth is not None:
            fitted.append((truth, scalings["truth"]))
        self.ranges = RangeWatch.of(
            fitted,
            sensitive.n,
            f"the {sensitive.n:,} rows that the kernels were fitted on",
            "Fit the penalty on the training data first: penalty.fit(A_train, y_train).",
            median_bandwidths=self.options.bandwidth == "median",
        )

    def side_threads(self) -> Any:
        """The BLAS threads of the attribute side's products: with several attributes the side
        is wide enough for OpenBLAS to spread a product over threads, which is slower than one
        thread (on two cores, and the more so on many); a narrow side's products stay on one
        thread anyway, and switching the thread count would cost more than it saves."""
        return single_blas_thread() if self.wide_side else nullcontext()

    def attribute_side(self, rows: np.ndarray, shift: float, like: Any = None) -> AttributeSide:
        """The :class:`AttributeSide` of a batch's host ``rows`` (``shift`` is ``εN`` of ``u``
        and ``e``), on the host or, given ``like``, in its namespace and on its device.

        On the host, a row of ``P`` depends on the batch only through sums over rows, so while
        the table of known rows is no longer than the batch (discrete attributes and outcomes),
        ``P`` is computed on the table's rows weighted by their counts in the batch, whose
        expanded feature rows are kept, and then read for each row. On a device, the feature
        maps kept there form the batch's own feature rows (:meth:`_feature_rows`).
        """
        n = rows.shape[0]
        weights, slots = ones(n), None
        if like is not None:
            features = self._feature_rows(rows, like)
            expanded, e_width = self._expanded(features, like)
        else:
            slots, features = self._features.lookup(rows)
            if slots is not None and self._features.size <= n:
                expanded, e_width = self._expanded_table(features)
                weights = np.bincount(slots, weights, minlength=self._features.size)
            else:
                if slots is not None:
                    features = {name: take_rows(table, slots) for name, table in features.items()}
                (expanded, e_width), slots = self._expanded(features), None
        shifts = (shift, self.options.ridge.shift(Role.GIVEN, n))
        strata = None
        if self.chance_adjusted:
            table_strata = features[_STRATUM]
            strata = (table_strata, table_strata if slots is None else table_strata[slots])
        return attribute_side(expanded, e_width, weights, slots, shifts, strata)

    def _expanded_table(self, features: dict[str, np.ndarray]) -> tuple[np.ndarray, int]:
        """:meth:`_expanded` of the table's rows, recomputed only when the table grows."""
        size = self._features.size
        if self._table_rows is None or self._table_rows[0] != size:
            self._table_rows = (size, self._expanded(features))
        return self._table_rows[1]

    def _expanded(self, features: dict[str, Any], like: Any = None) -> tuple[Any, int]:
        """Feature rows ``W[g] ⊗ φ`` of ``e`` then (EO) ``c``, side by side, from
        :meth:`_feature_rows`' results, formed in the namespace and on the device of their
        factor rows; and the width of ``e``'s. The level rows ``W[g]`` are gathered there from
        the factor of the combinations present (``like``: on its device)."""
        blocks = []
        for role in (Role.ATTRIBUTES, Role.GIVEN):
            if role in self._maps:
                present, inverse = unique_inverse(features[role])
                root = self._maps[role].level_rows(present)
                root = root if like is None else as_like(root, like)
                blocks.append(row_kronecker(take_rows(root, inverse), features[_factors_of(role)]))
        xp = namespace(*blocks)
        return xp.concat(blocks, axis=1), int(blocks[0].shape[1])

    def _feature_rows(self, rows: np.ndarray, like: Any = None) -> dict[str, Any]:
        """Level codes (keyed by the role) and continuous factor rows (keyed by
        :func:`_factors_of` the role) of host rows, under the fitted maps: what
        :class:`RowTable` remembers. Given ``like``, the factor rows are formed on its device
        by the maps kept there (:meth:`_maps_on`); codes and strata stay on the host."""
        sensitive, truth = self.host_rows.variables(rows)
        features = {}
        roles = self._roles(sensitive, truth, self._scalings)
        for role, k in roles.items():
            features[role] = self._maps[role].codes(k)
            if like is None:
                features[_factors_of(role)] = self._maps[role].factor(k, _HOST)
                continue
            device_map = self._maps_on(like)[role]
            # only the Nyström rows of continuous columns read the rows' numbers
            moved = _moved(k, like) if device_map.continuous_columns else k
            features[_factors_of(role)] = device_map.factor(moved, like)
        if self.chance_adjusted:
            n = rows.shape[0]
            strata = self._strata
            features[_STRATUM] = (
                np.zeros(n, dtype=np.int64) if strata is None else strata.assign(roles[Role.GIVEN])
            )
        return features

    def _maps_on(self, like: Any) -> dict[str, FeatureMap]:
        """The fitted feature maps with their pivots on ``like``'s device: fitted again there
        on the data the host's were fitted on (the same pivots: they are chosen on a host
        copy), once per device."""
        device = str(array_api_compat.device(like))
        if self._device_maps is None or self._device_maps[0] != device:
            maps = {}
            for role, k in self._fitted_inputs.items():
                maps[role] = FeatureMap(
                    self.options.rank, pivot_tolerance(self.options.ridge, role)
                )
                maps[role].fit_transform(_moved(k, like), like)
            self._device_maps = (device, maps)
        return self._device_maps[1]

    def _roles(
        self, sensitive: Variable, truth: Variable | None, scalings: dict[str, Scaling]
    ) -> dict[str, KernelInput]:
        """The attribute-side roles ``e`` and (EO) ``c``, on the host (they carry no gradient)."""
        kernel_inputs = {
            name: scalings[name].apply(variable)
            for name, variable in (("sensitive", sensitive), ("truth", truth))
            if variable is not None
        }
        return roles_of(
            self.options.notion, None, kernel_inputs["sensitive"], kernel_inputs.get("truth")
        )


def _moved(k: KernelInput, like: Any) -> KernelInput:
    """``k`` with its numeric columns on ``like``'s device (codes stay on the host)."""
    return k if k.z is None else replace(k, z=as_like(k.z, like))


def _factors_of(role: str) -> str:
    """The key of a role's continuous factor rows in the feature table (the role's own key
    holds its level codes)."""
    return f"{role} factors"
