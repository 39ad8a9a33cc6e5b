"""A training batch's sensitive attributes and outcomes as rows of one float64 host matrix: the
form in which :class:`faircocco_plugins.BatchStatistic` looks up, caches
(:class:`._inputs.row_table.RowTable`) and maps the rows of every batch through the attribute
and outcome kernels fitted once."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from .._inputs.variables import Variable, array_names
from .._kernels.levels import LevelRegistry
from .._linalg.backend import host_array


class HostRows:
    """A batch's sensitive attributes and outcomes as one float64 host matrix, and back.

    Nominal columns are stored as codes that stay the same across batches (level values are
    registered as they appear), so equal rows of different batches are equal host rows.
    """

    def __init__(self, sensitive: Variable, truth: Variable | None) -> None:
        self._templates = (sensitive, truth)
        self._registries = tuple(
            [] if v is None else [LevelRegistry() for _ in v.nominal_names] for v in self._templates
        )
        self._sensitive_width = len(sensitive.names)
        # numeric columns only, named as an array's: a batch of arrays has this layout (a
        # DataFrame's names would not match it)
        self._plain = all(
            v.codes is None and v.names == array_names(v.argument, len(v.names))
            for v in self._templates
            if v is not None
        )

    def rows(self, sensitive: Variable, truth: Variable | None) -> np.ndarray:
        """The ``(n, m)`` host matrix: each variable's numeric columns, then its codes."""
        blocks = []
        for variable, template, registries in zip(
            (sensitive, truth), self._templates, self._registries, strict=True
        ):
            if variable is None or template is None:
                continue
            check_layout(variable, template)
            if variable.numeric is not None:
                blocks.append(variable.numeric)
            for j, registry in enumerate(registries):
                assert variable.codes is not None
                codes = registry.codes_of(variable.levels[j].tolist())[variable.codes[:, j]]
                blocks.append(codes[:, None])
        return np.concatenate(blocks, axis=1, dtype=np.float64)

    def plain_rows(self, sensitive: Any, truth: Any) -> np.ndarray | None:
        """:meth:`rows` of floating arrays or tensors in the fitted layout of numeric columns,
        straight from their values (not checked for NaN); None for anything else."""
        if not self._plain:
            return None
        blocks = []
        for value, template in zip((sensitive, truth), self._templates, strict=True):
            if template is None:
                continue  # the outcomes of DP, ignored as by the full validation
            block = plain_host(value)
            if block is None or block.shape[1] != len(template.names):
                return None
            blocks.append(block)
        if any(block.shape[0] != blocks[0].shape[0] for block in blocks):
            return None
        return blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=1)

    def numeric_columns(self, rows: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
        """The numeric columns of host ``rows``, by name."""
        start = 0
        for template in self._templates:
            if template is None:
                continue
            for j, name in enumerate(template.numeric_names):
                yield name, rows[:, start + j]
            start += len(template.numeric_names) + len(template.nominal_names)

    def sensitive_is_constant(self, rows: np.ndarray) -> bool:
        sensitive = rows[:, : self._sensitive_width]
        return bool((sensitive == sensitive[:1]).all())

    def variables(self, rows: np.ndarray) -> tuple[Variable, Variable | None]:
        """The variables of host ``rows`` (the inverse of :meth:`rows`)."""
        variables: list[Variable | None] = []
        start = 0
        for template, registries in zip(self._templates, self._registries, strict=True):
            if template is None:
                variables.append(None)
                continue
            p, q = len(template.numeric_names), len(template.nominal_names)
            variables.append(
                replace(
                    template,
                    numeric=rows[:, start : start + p] if p else None,
                    codes=rows[:, start + p : start + p + q].astype(np.int64) if q else None,
                    levels=tuple(np.asarray(registry.values) for registry in registries),
                )
            )
            start += p + q
        sensitive, truth = variables
        assert sensitive is not None
        return sensitive, truth


def check_layout(variable: Variable, fitted: Variable) -> None:
    """A batch must have the numeric and nominal columns the kernels were fitted on."""
    if (variable.numeric_names, variable.nominal_names) != (
        fitted.numeric_names,
        fitted.nominal_names,
    ):
        raise ValueError(
            f"{variable.argument} has numeric columns {list(variable.numeric_names)} and nominal "
            f"columns {list(variable.nominal_names)}, but the kernels were fitted on numeric "
            f"{list(fitted.numeric_names)} and nominal {list(fitted.nominal_names)}; pass every "
            "batch in the layout of the data given to fit."
        )


def plain_host(value: Any) -> np.ndarray | None:
    """A 1-D or 2-D floating array or tensor as an ``(n, m)`` float64 host array, else None."""
    if value is None:
        return None
    array = host_array(value)
    if not isinstance(array, np.ndarray) or array.dtype.kind != "f" or array.ndim not in (1, 2):
        return None
    array = np.asarray(array, dtype=np.float64)
    return array[:, None] if array.ndim == 1 else array


def has_constant_column(rows: np.ndarray) -> bool:
    """Whether a column of the host ``rows`` takes one value only."""
    return bool((rows == rows[:1]).all(axis=0).any())
