"""The few linear-algebra operations the array API standard lacks, per backend.

The math is written once against the array API; only a Cholesky solve needs a backend-specific
call (numpy via SciPy's LAPACK, torch via ``torch.cholesky_solve``, both differentiable where the
backend is). Small dense factorisations run on one BLAS thread: on two-core machines a two-thread
OpenBLAS Cholesky measured about 4x slower than a single thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache, wraps
from typing import Any, ParamSpec, TypeVar

import array_api_compat
import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from threadpoolctl import ThreadpoolController


@cache
def _controller() -> ThreadpoolController:
    return ThreadpoolController()


@contextmanager
def single_blas_thread() -> Iterator[None]:
    """Run numpy/SciPy BLAS and LAPACK calls on one thread inside the block."""
    with _controller().limit(limits=1, user_api="blas"):
        yield


class PsdSolver:
    """Solves ``a x = b`` for a symmetric positive-definite ``a``, factorised once (Cholesky)."""

    def __init__(self, a: Any) -> None:
        self._torch = array_api_compat.is_torch_namespace(array_api_compat.array_namespace(a))
        if self._torch:
            import torch

            self._factor = torch.linalg.cholesky(a)
        else:
            self._factor = cho_factor(a, lower=True, check_finite=False)

    def solve(self, b: Any) -> Any:
        if self._torch:
            import torch

            return torch.cholesky_solve(b, self._factor)
        return cho_solve(self._factor, b, check_finite=False)


P = ParamSpec("P")
T = TypeVar("T")


def blas_single_threaded(function: Callable[P, T]) -> Callable[P, T]:
    """Decorate a public entry point to run its numpy/SciPy linear algebra on one thread."""

    @wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        with single_blas_thread():
            return function(*args, **kwargs)

    return wrapper


def solve_psd(a: Any, b: Any) -> Any:
    """Solve ``a x = b`` for a symmetric positive-definite ``a`` by a Cholesky factorisation."""
    return PsdSolver(a).solve(b)


def divide_by_lower_transposed(b: Any, lower: Any) -> Any:
    """``b @ inv(lower)ᵀ`` for a lower-triangular ``lower``, by a triangular solve."""
    xp = array_api_compat.array_namespace(b, lower)
    if array_api_compat.is_torch_namespace(xp):
        import torch

        return torch.linalg.solve_triangular(lower.mT, b, upper=True, left=False)
    # row-major result: later row gathers and Gram products stream through memory
    return np.ascontiguousarray(solve_triangular(lower, b.T, lower=True, check_finite=False).T)


def add_rows(n_rows: int, index: np.ndarray, values: Any) -> Any:
    """``out[index[g]] += values[g]`` into zeros of ``n_rows`` rows, out of place.

    Out of place so that torch autograd records one node, not one in-place copy per row.
    """
    if isinstance(values, np.ndarray):
        out = np.zeros((n_rows, *values.shape[1:]), dtype=values.dtype)
        np.add.at(out, index, values)
        return out
    xp = array_api_compat.array_namespace(values)
    device = array_api_compat.device(values)
    zeros = xp.zeros((n_rows, *values.shape[1:]), dtype=values.dtype, device=device)
    return zeros.index_add(0, xp.asarray(index, device=device), values)


def take_rows(x: Any, index: np.ndarray) -> Any:
    """Rows ``index`` of ``x`` (numpy's fancy indexing is 2-3x faster than ``np.take``)."""
    if isinstance(x, np.ndarray):
        return x[index]
    xp = array_api_compat.array_namespace(x)
    return xp.take(x, xp.asarray(index, device=array_api_compat.device(x)), axis=0)


def as_like(array: Any, like: Any) -> Any:
    """``array`` in the namespace, dtype and device of ``like`` (a host array is copied there)."""
    xp = array_api_compat.array_namespace(like)
    return xp.asarray(array, dtype=like.dtype, device=array_api_compat.device(like))


def eye_like(n: int, like: Any) -> Any:
    xp = array_api_compat.array_namespace(like)
    return xp.eye(n, dtype=like.dtype, device=array_api_compat.device(like))


def trace_of_product(a: Any, b: Any) -> Any:
    """``Tr[a b]`` without forming the product."""
    xp = array_api_compat.array_namespace(a, b)
    return xp.sum(a * xp.permute_dims(b, (1, 0)))


def host_function(
    value_and_gradient: Callable[[np.ndarray], tuple[float, Callable[[], np.ndarray]]], x: Any
) -> Any:
    """``f(x)`` computed on the host in float64, as a 0-d array of ``x``'s namespace.

    ``value_and_gradient(host_x)`` returns ``f`` and a function giving ``∂f/∂x``. A torch ``x``
    that requires gradients gets that gradient in its backward pass: one autograd node, where
    recording every step of ``f`` would cost more than ``f`` itself at batch sizes.
    """
    xp = array_api_compat.array_namespace(x)
    if not getattr(x, "requires_grad", False):
        value, _ = value_and_gradient(to_host(x))
        return xp.asarray(value, dtype=xp.float64, device=array_api_compat.device(x))
    return _torch_host_function().apply(x, value_and_gradient)


@cache
def _torch_host_function() -> Any:
    """The autograd node of :func:`host_function` (defined once; torch is imported lazily)."""
    import torch
    from torch.autograd.function import once_differentiable

    class HostFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: torch.Tensor, value_and_gradient: Any) -> torch.Tensor:
            value, ctx.gradient = value_and_gradient(to_host(x))
            ctx.dtype = x.dtype
            return torch.tensor(value, dtype=torch.float64, device=x.device)

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, upstream: torch.Tensor) -> tuple[torch.Tensor, None]:
            gradient = torch.as_tensor(ctx.gradient(), device=upstream.device)
            return (upstream * gradient).to(ctx.dtype), None

    return HostFunction


def to_host(array: Any) -> np.ndarray:
    """A detached float64 numpy copy (bandwidths and pivots never carry gradients)."""
    if hasattr(array, "detach"):
        array = array.detach()
    return np.asarray(array_api_compat.to_device(array, "cpu"), dtype=np.float64)


def as_numpy_scalar(value: Any) -> float:
    return float(to_host(value))
