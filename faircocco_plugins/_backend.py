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
from scipy.linalg import cho_factor, cho_solve
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


def eye_like(n: int, like: Any) -> Any:
    xp = array_api_compat.array_namespace(like)
    return xp.eye(n, dtype=like.dtype, device=array_api_compat.device(like))


def trace_of_product(a: Any, b: Any) -> Any:
    """``Tr[a b]`` without forming the product."""
    xp = array_api_compat.array_namespace(a, b)
    return xp.sum(a * xp.permute_dims(b, (1, 0)))


def as_numpy_scalar(value: Any) -> float:
    if hasattr(value, "detach"):
        value = value.detach()
    return float(np.asarray(array_api_compat.to_device(value, "cpu")))
