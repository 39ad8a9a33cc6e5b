"""The core's torch calls: the few operations the array API standard lacks, for torch tensors.

The math is written once against the array API; :mod:`._linalg.backend` routes a torch tensor here,
importing this module (and so torch) only when the caller passes one. No other core module
imports torch, which ``make test`` checks with import-linter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch.autograd.function import once_differentiable


def cholesky(a: torch.Tensor) -> torch.Tensor:
    """The lower Cholesky factor (differentiable)."""
    return torch.linalg.cholesky(a)


def cholesky_solve(b: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    """``a⁻¹ b`` from the lower Cholesky factor of ``a`` (differentiable)."""
    return torch.cholesky_solve(b, factor)


def divide_by_lower_transposed(b: torch.Tensor, lower: torch.Tensor) -> torch.Tensor:
    """``b @ inv(lower)ᵀ`` for a lower-triangular ``lower``, by a triangular solve."""
    return torch.linalg.solve_triangular(lower.mT, b, upper=True, left=False)


def pairwise_distances(rows: torch.Tensor, norm: int) -> torch.Tensor:
    """The ℓp distances between the rows ``i < j`` of ``rows`` (``torch.pdist``)."""
    return torch.nn.functional.pdist(rows, p=norm)


def add_rows(zeros: torch.Tensor, index: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """``zeros[index[g]] += values[g]``, out of place: autograd records one node."""
    return zeros.index_add(0, index, values)


def is_sparse(value: torch.Tensor) -> bool:
    """Whether ``value`` has a sparse layout (COO, CSR, CSC, BSR or BSC), not the dense one."""
    return value.layout != torch.strided


def to_numpy(value: torch.Tensor) -> np.ndarray:
    """A detached numpy copy, floating as float64 (numpy converts faster than torch, but has
    no bfloat16)."""
    value = value.detach().cpu()
    array = (value.double() if value.dtype == torch.bfloat16 else value).numpy()
    return array.astype(np.float64, copy=False) if array.dtype.kind == "f" else array


class HostFunction(torch.autograd.Function):
    """A function computed on the host with its gradient, as one autograd node.

    ``value_and_gradient(host_x)`` returns the value and a function giving the gradient in
    ``host_x``'s shape; see :func:`._linalg.backend.host_function`.
    """

    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, host_x: np.ndarray, value_and_gradient: Any
    ) -> torch.Tensor:
        value, gradient = value_and_gradient(host_x)
        # converted here, so that the backward pass is a single product: a training step
        # always takes the gradient, and torch calls a Python backward at a high cost
        ctx.gradient = torch.from_numpy(gradient().reshape(x.shape)).to(x.device, x.dtype)
        return torch.tensor(value, dtype=x.dtype, device=x.device)

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, upstream: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        return upstream * ctx.gradient, None, None
