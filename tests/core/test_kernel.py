"""The Gaussian kernel record against a literal transcription of its formula."""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins._kernels.kernel import DIRECT_COLUMNS, median_distance
from faircocco_plugins._kernels.registry import kernel_named

GAUSSIAN = kernel_named("gaussian")

# direct differences up to DIRECT_COLUMNS columns, squared norms beyond
WIDTHS = [1, 3, DIRECT_COLUMNS + 4]


def literal(z1: np.ndarray, z2: np.ndarray) -> np.ndarray:
    """``exp(-‖z − z′‖² / 2)`` for every pair of rows, as written."""
    return np.exp(-0.5 * ((z1[:, None, :] - z2[None, :, :]) ** 2).sum(axis=2))


def rows(d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(6, d)), rng.normal(size=(5, d))


@pytest.mark.parametrize("d", WIDTHS)
def test_gram_is_the_gaussian_of_squared_distances(d):
    z1, z2 = rows(d)
    # direct differences round as the literal sum; the squared norms cancel (measured 4e-15)
    rtol = 1e-15 if d <= DIRECT_COLUMNS else 1e-14
    np.testing.assert_allclose(GAUSSIAN.gram(z1, z2), literal(z1, z2), rtol=rtol, atol=0)


@pytest.mark.parametrize("d", WIDTHS)
def test_diagonal_is_the_gram_with_itself(d):
    z, _ = rows(d)
    diagonal = GAUSSIAN.diagonal(z)
    assert diagonal.shape == (6,) and diagonal.dtype == z.dtype
    np.testing.assert_allclose(diagonal, np.diag(literal(z, z)), rtol=0, atol=0)
    stack = np.stack([z, z[::-1], 2 * z])
    assert GAUSSIAN.diagonal(stack).shape == (3, 6)
    assert GAUSSIAN.diagonal(z.astype(np.float32)).dtype == np.float32


@pytest.mark.parametrize("d", [1, 3])
def test_column_is_the_gram_against_one_row_to_the_bit(d):
    z, _ = rows(d)
    columns = [np.ascontiguousarray(z[:, j]) for j in range(d)]
    scratch = np.empty(6)
    for i in range(6):
        out = np.empty(6)
        column = GAUSSIAN.column_into(columns, z[i].tolist(), out, scratch)
        assert column is out
        np.testing.assert_array_equal(column, GAUSSIAN.gram(z, z[i : i + 1])[:, 0])
    # a stack: one point per member
    stack = np.stack([z, z[::-1]])
    stacked = [np.ascontiguousarray(stack[:, :, j]) for j in range(d)]
    point = [values[:, 2:3] for values in stacked]
    column = GAUSSIAN.column_into(stacked, point, np.empty((2, 6)), np.empty((2, 6)))
    for b in range(2):
        np.testing.assert_array_equal(column[b], GAUSSIAN.gram(stack[b], stack[b, 2:3])[:, 0])


@pytest.mark.parametrize("d", WIDTHS)
def test_numpy_and_torch_agree(d):
    torch = pytest.importorskip("torch")
    z1, z2 = rows(d)
    on_torch = GAUSSIAN.gram(torch.from_numpy(z1), torch.from_numpy(z2))
    assert isinstance(on_torch, torch.Tensor) and on_torch.dtype == torch.float64
    # the same differences; the squared norms' products may round apart (measured 6e-17)
    atol = 0 if d <= DIRECT_COLUMNS else 1e-15
    np.testing.assert_allclose(on_torch.numpy(), GAUSSIAN.gram(z1, z2), rtol=1e-15, atol=atol)
    diagonal = GAUSSIAN.diagonal(torch.from_numpy(z1).float())
    assert diagonal.dtype == torch.float32
    np.testing.assert_array_equal(diagonal.numpy(), np.ones(6))


def test_bandwidth_is_the_median_heuristic():
    z, _ = rows(2)
    assert GAUSSIAN.bandwidth(z) == median_distance(z)
