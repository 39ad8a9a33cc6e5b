"""The few linear-algebra operations the array API standard lacks, per backend.

The math is written once against the array API. What the standard lacks (Cholesky factors and
solves, triangular solves, pairwise distances, scattered row sums, host functions with a
hand-written gradient) is done here for numpy through SciPy, and for torch tensors by
:mod:`._linalg.torch_ops`, imported only when a torch tensor arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import array_api_compat
import numpy as np


def namespace(*arrays: Any) -> Any:
    """The array-API namespace of ``arrays`` (``array_api_compat.array_namespace``).

    Numpy arrays take a shortcut: per-batch host code asks for the namespace dozens of times
    (the general lookup's cost is in the performance docs' "Why the fast paths exist").
    """
    if all(type(a) is np.ndarray for a in arrays):
        return _numpy_namespace()
    return array_api_compat.array_namespace(*arrays)


@cache
def _numpy_namespace() -> Any:
    return array_api_compat.array_namespace(np.zeros(0))


class PsdSolver:
    """Solves ``a x = b`` for a symmetric positive-definite ``a``, factorised once (Cholesky)."""

    def __init__(self, a: Any) -> None:
        self._torch = _is_torch(a)
        if self._torch:
            self._factor = _torch_ops().cholesky(a)
        else:
            self._factor = host_cholesky(a)

    @classmethod
    def from_lower(cls, lower: Any) -> PsdSolver:
        """The solver of ``a = L Lᵀ`` from its lower Cholesky factor ``L``."""
        solver = object.__new__(cls)
        solver._torch, solver._factor = _is_torch(lower), lower
        return solver

    @property
    def lower(self) -> Any:
        """The lower Cholesky factor ``L`` of ``a = L Lᵀ``."""
        return self._factor

    def solve(self, b: Any) -> Any:
        """``a⁻¹ b`` for a matrix ``b``, or for each of a stack of them (``… × r × k``)."""
        if self._torch:
            return _torch_ops().cholesky_solve(b, self._factor)
        if b.ndim > 2:
            # the stack's columns side by side: one solve
            moved = np.moveaxis(b, -2, 0)
            solved = self.solve(moved.reshape(moved.shape[0], -1))
            return np.moveaxis(solved.reshape(moved.shape), 0, -2)
        return _lapack("potrs", b.dtype)(self._factor, b, lower=1)[0]


def _is_torch(a: Any) -> bool:
    # host matrices (every training batch's) skip the namespace lookup
    return not isinstance(a, np.ndarray) and array_api_compat.is_torch_namespace(namespace(a))


def host_cholesky(a: np.ndarray) -> np.ndarray:
    """The lower Cholesky factor of a symmetric positive-definite numpy matrix."""
    factor, info = _lapack("potrf", a.dtype)(a, lower=1, clean=1)
    if info:
        raise np.linalg.LinAlgError(f"Matrix is not positive definite (minor {info}).")
    return factor


@cache
def _lapack(name: str, dtype: np.dtype) -> Any:
    """A LAPACK routine for ``dtype``: called directly, it costs a fifth of SciPy's checked
    wrappers, which shows on the small factorisations of every training batch. SciPy is
    imported here, once, so that the plugin contract loads no scipy."""
    from scipy.linalg import get_lapack_funcs

    return get_lapack_funcs(name, dtype=dtype)


@cache
def _blas(name: str, dtype: np.dtype) -> Any:
    """The BLAS routine ``name`` for ``dtype`` (as :func:`_lapack`)."""
    from scipy.linalg import get_blas_funcs

    return get_blas_funcs(name, dtype=dtype)


def solve_psd(a: Any, b: Any) -> Any:
    """Solve ``a x = b`` for a symmetric positive-definite ``a`` by a Cholesky factorisation."""
    return PsdSolver(a).solve(b)


def divide_by_lower_transposed(b: Any, lower: Any) -> Any:
    """``b @ inv(lower)ᵀ`` for a lower-triangular ``lower``, by a triangular solve; a numpy
    result has ``b``'s memory order. ``b`` may be a stack (``B × r × k``), with one ``lower``
    or a stack of them (``B × k × k``)."""
    if _is_torch(b):
        return _torch_ops().divide_by_lower_transposed(b, lower)
    if lower.ndim > 2:
        # numpy has no stacked triangular solve: one per member (k² r flops each, against
        # 2k³/3 more for a stacked general solve)
        return np.stack([divide_by_lower_transposed(m, f) for m, f in zip(b, lower, strict=True)])
    if b.ndim > 2:
        return divide_by_lower_transposed(b.reshape(-1, b.shape[-1]), lower).reshape(b.shape)
    if b.flags.f_contiguous and not b.flags.c_contiguous:
        # a solve from the right on a column-major b: 60% of the time of a solve on the left of
        # its row-major transpose (32,768 × 100)
        return _blas("trsm", b.dtype)(1.0, lower, b, side=1, lower=1, trans_a=1)
    # row-major result: later row gathers and Gram products stream through memory
    return np.ascontiguousarray(_solve_lower(lower, b.T, transposed=False).T)


def host_divide_by_lower(b: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """``b @ inv(lower)`` for a lower-triangular numpy ``lower``, by a triangular solve."""
    return _solve_lower(lower, b.T, transposed=True).T


def _solve_lower(lower: np.ndarray, rhs: np.ndarray, *, transposed: bool) -> np.ndarray:
    """``inv(lower) rhs``, or ``inv(lower)ᵀ rhs`` when ``transposed`` (LAPACK ``trtrs``)."""
    solved, info = _lapack("trtrs", rhs.dtype)(lower, rhs, lower=1, trans=int(transposed))
    if info:
        raise np.linalg.LinAlgError(f"Singular triangular matrix (diagonal entry {info}).")
    return solved


def pairwise_distances(rows: Any, norm: int) -> Any:
    """The ℓp distances (``p = norm``, 1 or 2) between the rows ``i < j`` of ``rows``, in
    scipy's ``pdist`` order; correctly rounded (torch's own ``sqrt`` on the CPU is not)."""
    if _is_torch(rows):
        return _torch_ops().pairwise_distances(rows, norm)
    # imported here, so that the plugin contract, which exports the median heuristic, loads no
    # scipy
    from scipy.spatial.distance import pdist

    return pdist(rows, {1: "cityblock", 2: "euclidean"}[norm])


def add_rows(n_rows: int, index: np.ndarray, values: Any) -> Any:
    """``out[index[g]] += values[g]`` into zeros of ``n_rows`` rows, out of place.

    Out of place so that torch autograd records one node, not one in-place copy per row.
    numpy sums the rows of each index by ``reduceat`` over the rows sorted by index:
    ``np.add.at`` adds one element at a time, and took a quarter of an exact EO score of 300
    rows (347 × 347 Grams of 45 groups; performance docs).
    """
    if isinstance(values, np.ndarray):
        out = np.zeros((n_rows, *values.shape[1:]), dtype=values.dtype)
        if not index.size:
            return out
        order = np.argsort(index, kind="stable")
        ordered = index[order]
        starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
        out[ordered[starts]] = np.add.reduceat(values[order], starts, axis=0)
        return out
    xp = namespace(values)
    device = array_api_compat.device(values)
    zeros = xp.zeros((n_rows, *values.shape[1:]), dtype=values.dtype, device=device)
    return _torch_ops().add_rows(zeros, xp.asarray(index, device=device), values)


def take_rows(x: Any, index: np.ndarray) -> Any:
    """Rows ``index`` of ``x`` (numpy's ``take``, faster than fancy indexing: performance
    docs)."""
    if isinstance(x, np.ndarray):
        return x.take(index, axis=0)
    xp = namespace(x)
    return xp.take(x, xp.asarray(index, device=array_api_compat.device(x)), axis=0)


def as_like(array: Any, like: Any) -> Any:
    """``array`` in the namespace, dtype and device of ``like`` (a host array is copied there)."""
    if isinstance(like, np.ndarray):
        return np.asarray(array, dtype=like.dtype)  # a third of the general route's cost
    if isinstance(array, np.ndarray) and not array.flags.writeable:
        array = array.copy()  # a framework may not wrap read-only memory
    xp = namespace(like)
    return xp.asarray(array, dtype=like.dtype, device=array_api_compat.device(like))


def column_means(x: Any) -> Any:
    """The mean of each column; of a numpy array as one matrix-vector product, faster than
    numpy's strided reduction on a training batch's narrow arrays (performance docs)."""
    if isinstance(x, np.ndarray):
        return (ones(x.shape[0]) @ x) / x.shape[0]
    return namespace(x).mean(x, axis=0)


@cache
def ones(n: int) -> np.ndarray:
    """A read-only host vector of ``n`` ones, for sums as matrix-vector products."""
    vector = np.ones(n)
    vector.flags.writeable = False
    return vector


def float64_like(value: Any) -> Any:
    """A 0-d float64 zero in the namespace and on the device of ``value``: the ``like`` of
    float64 computations there."""
    xp = namespace(value)
    return xp.zeros((), dtype=xp.float64, device=array_api_compat.device(value))


def eye_like(n: int, like: Any) -> Any:
    xp = namespace(like)
    return xp.eye(n, dtype=like.dtype, device=array_api_compat.device(like))


def trace_of_product(a: Any, b: Any) -> Any:
    """``Tr[a b]`` without forming the product."""
    xp = namespace(a, b)
    return xp.sum(a * xp.permute_dims(b, (1, 0)))


def host_function(
    value_and_gradient: Callable[[np.ndarray], tuple[float, Callable[[], np.ndarray]]],
    x: Any,
    host: np.ndarray | None = None,
) -> Any:
    """``f(x)`` computed on the host in float64, as a 0-d array of ``x``'s namespace.

    ``value_and_gradient(host_x)`` returns ``f`` and a function giving ``∂f/∂x`` in
    ``host_x``'s shape. ``host`` is ``x`` on the host in float64, in any shape of ``x``'s size,
    if the caller has it already. A torch ``x`` that requires gradients gets that gradient in
    its backward pass: one autograd node, where recording every step of ``f`` would cost more
    than ``f`` itself at batch sizes. The gradient is then computed with the value. The value
    has ``x``'s floating dtype (float64 otherwise).
    """
    host_x = to_host(x) if host is None else host
    if getattr(x, "requires_grad", False):
        return _torch_ops().HostFunction.apply(x, host_x, value_and_gradient)
    xp = namespace(x)
    dtype = x.dtype if xp.isdtype(x.dtype, "real floating") else xp.float64
    value, _ = value_and_gradient(host_x)
    return xp.asarray(value, dtype=dtype, device=array_api_compat.device(x))


def _torch_ops() -> Any:
    """The torch operations, imported on the first torch tensor (the core's one door to torch)."""
    from . import torch_ops

    return torch_ops


def is_tracked(value: Any) -> bool:
    """Whether ``value`` (an array, a tensor or None) carries gradients."""
    return bool(getattr(value, "requires_grad", False))


def on_accelerator(value: Any) -> bool:
    """Whether ``value`` is a torch tensor on a device other than the CPU."""
    return array_api_compat.is_torch_array(value) and value.device.type != "cpu"


def refuse_unreadable_tensors(named: Mapping[str, Any]) -> None:
    """Refuse the first tensor the computation cannot read, by name, before an operation fails
    deep inside it: one on torch's 'meta' device, which carries a shape but no values, or a
    sparse one, which lacks operations the computation takes (reshapes, comparisons). A sparse
    tensor is not densified here, as a scipy sparse matrix is not: a dense copy of its full
    size is the caller's to make."""
    for name, value in named.items():
        if getattr(getattr(value, "device", None), "type", None) == "meta":
            raise TypeError(
                f"{name} is a tensor on the 'meta' device, which holds no values; materialise "
                f"it on a device with data first (e.g. {name}.to('cpu'))."
            )
        if array_api_compat.is_torch_array(value) and _torch_ops().is_sparse(value):
            raise TypeError(
                f"{name} is a sparse tensor (layout {value.layout}), which the computation "
                f"cannot read; pass a dense one, {name}.to_dense()."
            )


def host_array(value: Any) -> Any:
    """A tensor as a detached numpy array (floating as float64); other values as they are."""
    if not array_api_compat.is_array_api_obj(value) or isinstance(value, np.ndarray):
        return value
    if array_api_compat.is_torch_array(value):
        # the general route below costs several times more, and training calls this per batch
        return _torch_ops().to_numpy(value)
    xp = namespace(value)
    if xp.isdtype(value.dtype, "real floating"):
        value = xp.astype(value, xp.float64)
    return np.asarray(array_api_compat.to_device(value, "cpu"))


def detached(array: Any) -> Any:
    """``array`` without its autograd history: orders, levels, bandwidths and pivots carry no
    gradient."""
    return array.detach() if hasattr(array, "detach") else array


def to_host(array: Any) -> np.ndarray:
    """A detached float64 numpy copy (bandwidths and pivots never carry gradients)."""
    if isinstance(array, np.ndarray):
        return np.asarray(array, dtype=np.float64)  # per training batch: skip the general route
    return np.asarray(array_api_compat.to_device(detached(array), "cpu"), dtype=np.float64)


def as_numpy_scalar(value: Any) -> float:
    return float(to_host(value))
