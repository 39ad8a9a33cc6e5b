"""A slow, literal transcription of the FairCOCCO formulas, for checking the estimators.

Written from the paper's appendix A (and the bandwidth rule of the package documentation), with
explicit ``N × N`` matrices and explicit inverses, and without importing the package:

* Gaussian kernel ``exp(-||x - x'||² / (2σ²))`` with ``σ`` the median of the pairwise Euclidean
  distances over ``i < j``; when that median is 0 the median of the non-zero distances, and 1
  when there is none;
* ``H = I - 11ᵀ/N``, ``G = H K H``, ``R = G (G + εN I)⁻¹``;
* DP statistic ``Tr[R_Ŷ R_A]``; EO statistic
  ``Tr[R_Ŷ R_Ä − 2 R_Ŷ R_Ä R_Y + R_Ŷ R_Y R_Ä R_Y]`` with ``K_Ä = K_A ∘ K_Y``; CAL swaps Ŷ and Y;
* DP score ``I / (||R_Ŷ||_F ||R_A||_F)``, conditional score
  ``I / (||R_Ŷ − R_Ŷ R_Y||_F ||R_Ä − R_Ä R_Y||_F)``.

Attributes are combined either by one joint Gaussian on the whole numeric vector (nominal columns
one-hot), or by a product of per-column kernels (a Gaussian with its own bandwidth for numeric
columns, a delta kernel for bool, categorical and string columns). The joint Gaussian departs
from the paper's literal form as the package does: with the median bandwidth, each numeric column
is first divided by its standard deviation, so that the kernel does not depend on its units. The
bandwidth rule uses every row, so the reference matches the package for at most 1000 rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

EPS = 1e-4


def median_bandwidth(x: np.ndarray) -> float:
    """Median pairwise Euclidean distance over all pairs ``i < j`` of the rows of ``x``."""
    x = np.asarray(x, dtype=np.float64).reshape(len(x), -1)
    # row i against the rows j > i: every pair i < j exactly once
    distances = np.concatenate(
        [np.sqrt(np.sum((x[i + 1 :] - x[i]) ** 2, axis=1)) for i in range(len(x) - 1)]
    )
    median = float(np.median(distances))
    if median > 0:
        return median
    nonzero = distances[distances > 0]
    return float(np.median(nonzero)) if nonzero.size else 1.0


def gaussian_kernel(x: np.ndarray, sigma: float | None = None) -> np.ndarray:
    """``K_ij = exp(-||x_i - x_j||² / (2σ²))``, with the median bandwidth when ``sigma`` is None."""
    x = np.asarray(x, dtype=np.float64).reshape(len(x), -1)
    if sigma is None:
        sigma = median_bandwidth(x)
    n = len(x)
    kernel = np.empty((n, n))
    for i in range(n):
        kernel[i] = np.exp(-np.sum((x[i] - x) ** 2, axis=1) / (2.0 * sigma**2))
    return kernel


def delta_kernel(values: np.ndarray) -> np.ndarray:
    """``K_ij = 1[v_i = v_j]``."""
    values = np.asarray(values, dtype=object)
    return (values[:, None] == values[None, :]).astype(np.float64)


def _is_nominal(column: pd.Series) -> bool:
    return not pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(
        column.dtype
    )


def _frame(x: object) -> pd.DataFrame:
    if isinstance(x, pd.DataFrame):
        return x
    if isinstance(x, pd.Series):
        return x.to_frame()
    array = np.asarray(x, dtype=np.float64)
    return pd.DataFrame(array.reshape(len(array), -1))


def joint_kernel(x: object, sigma: float | None = None) -> np.ndarray:
    """One Gaussian on the whole vector, nominal columns one-hot encoded first; with the median
    bandwidth (``sigma`` None), each numeric column divided by its standard deviation first."""
    frame = _frame(x)
    blocks = []
    for name in frame.columns:
        column = frame[name]
        if _is_nominal(column):
            levels = sorted(set(column.tolist()), key=str)
            blocks.append(np.array([[float(v == level) for level in levels] for v in column]))
        else:
            values = column.to_numpy(dtype=np.float64)
            spread = float(np.std(values))
            if sigma is None and spread > 0:
                values = values / spread
            blocks.append(values[:, None])
    return gaussian_kernel(np.hstack(blocks), sigma)


def product_kernel(x: object, sigma: float | None = None) -> np.ndarray:
    """Product of per-column kernels: Gaussian (own bandwidth) or delta (nominal)."""
    frame = _frame(x)
    kernel = np.ones((len(frame), len(frame)))
    for name in frame.columns:
        column = frame[name]
        if _is_nominal(column):
            kernel = kernel * delta_kernel(column.to_numpy())
        else:
            kernel = kernel * gaussian_kernel(column.to_numpy(dtype=np.float64), sigma)
    return kernel


def r_matrix(kernel: np.ndarray, eps: float = EPS) -> np.ndarray:
    """``R = G (G + εN I)⁻¹`` with ``G = H K H``."""
    n = kernel.shape[0]
    h = np.eye(n) - np.ones((n, n)) / n
    g = h @ kernel @ h
    return g @ np.linalg.inv(g + eps * n * np.eye(n))


def _frobenius(matrix: np.ndarray) -> float:
    return float(np.sqrt(np.sum(matrix**2)))


def statistic_and_score(
    k_u: np.ndarray,
    k_a: np.ndarray,
    k_c: np.ndarray | None = None,
    eps: float = EPS,
    conditioning_eps: float | None = None,
) -> tuple[float, float]:
    """Statistic and score of ``u ⊥ A`` (``k_c`` None) or ``u ⊥ A | c``, from kernel matrices.

    For the conditional measure the extended variable ``Ä = (A, c)`` gets ``K_A ∘ K_c``;
    ``R_c`` has ``conditioning_eps`` (default ``eps``).
    """
    r_u = r_matrix(k_u, eps)
    if k_c is None:
        r_a = r_matrix(k_a, eps)
        statistic = float(np.trace(r_u @ r_a))
        return statistic, statistic / (_frobenius(r_u) * _frobenius(r_a))
    r_e = r_matrix(k_a * k_c, eps)
    r_c = r_matrix(k_c, eps if conditioning_eps is None else conditioning_eps)
    statistic = float(np.trace(r_u @ r_e - 2.0 * r_u @ r_e @ r_c + r_u @ r_c @ r_e @ r_c))
    denominator = _frobenius(r_u - r_u @ r_c) * _frobenius(r_e - r_e @ r_c)
    return statistic, statistic / denominator


def reference(
    y_pred: object,
    sensitive_features: object,
    y_true: object = None,
    *,
    notion: str = "dp",
    attribute_kernel: str = "joint",
    eps: float = EPS,
    bandwidth: float | None = None,
    conditioning_eps: float | None = None,
) -> tuple[float, float]:
    """``(statistic, score)`` of a notion; predictions and outcomes get one Gaussian each.

    ``bandwidth`` fixes every bandwidth instead of the median rule.
    """
    # small matrices: one BLAS thread is fastest, and robust to a busy machine
    with threadpool_limits(limits=1, user_api="blas"):
        return _reference(
            y_pred,
            sensitive_features,
            y_true,
            notion,
            attribute_kernel,
            eps,
            bandwidth,
            conditioning_eps,
        )


def _reference(
    y_pred: object,
    sensitive_features: object,
    y_true: object,
    notion: str,
    attribute_kernel: str,
    eps: float,
    bandwidth: float | None,
    conditioning_eps: float | None,
) -> tuple[float, float]:
    combine = joint_kernel if attribute_kernel == "joint" else product_kernel
    k_pred = gaussian_kernel(np.asarray(y_pred, dtype=np.float64), bandwidth)
    k_a = combine(sensitive_features, bandwidth)
    if notion == "dp":
        return statistic_and_score(k_pred, k_a, None, eps)
    k_true = gaussian_kernel(np.asarray(y_true, dtype=np.float64), bandwidth)
    if notion == "eo":
        return statistic_and_score(k_pred, k_a, k_true, eps, conditioning_eps)
    if notion == "cal":
        return statistic_and_score(k_true, k_a, k_pred, eps, conditioning_eps)
    raise ValueError(f"unknown notion {notion!r}")
