"""The backend helpers: direct LAPACK solves and host copies of tensors."""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins._backend import (
    PsdSolver,
    divide_by_lower_transposed,
    host_array,
    host_cholesky,
    host_divide_by_lower,
)

torch = pytest.importorskip("torch")


def test_psd_solver_and_triangular_division_match_numpy():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(9, 9))
    a = a @ a.T + np.eye(9)
    b = rng.normal(size=(9, 4))
    rows = rng.normal(size=(30, 9))
    lower = np.linalg.cholesky(a)
    np.testing.assert_allclose(PsdSolver(a).solve(b), np.linalg.solve(a, b), rtol=1e-12)
    np.testing.assert_allclose(PsdSolver(a).solve(b[:, 0]), np.linalg.solve(a, b[:, 0]))
    divided = divide_by_lower_transposed(rows, lower)
    np.testing.assert_allclose(divided, rows @ np.linalg.inv(lower).T, rtol=1e-10, atol=1e-12)
    assert divided.flags.c_contiguous
    np.testing.assert_allclose(host_cholesky(a), lower, rtol=1e-12, atol=1e-14)
    right = host_divide_by_lower(rows, lower)
    np.testing.assert_allclose(right, rows @ np.linalg.inv(lower), rtol=1e-10, atol=1e-12)


def test_psd_solver_rejects_an_indefinite_matrix():
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        PsdSolver(np.diag([1.0, -1.0]))


def test_triangular_division_rejects_a_singular_factor():
    for divide in (divide_by_lower_transposed, host_divide_by_lower):
        with pytest.raises(np.linalg.LinAlgError, match="Singular"):
            divide(np.ones((3, 2)), np.diag([1.0, 0.0]))


@pytest.mark.parametrize(
    ("tensor", "dtype"),
    [
        (torch.tensor([1.5, 2.0], dtype=torch.float32, requires_grad=True), np.float64),
        (torch.tensor([1.5, 2.0], dtype=torch.bfloat16), np.float64),
        (torch.tensor([1, 2]), np.int64),
        (torch.tensor([True, False]), np.bool_),
    ],
)
def test_host_array_converts_tensors_floating_to_float64(tensor, dtype):
    host = host_array(tensor)
    assert isinstance(host, np.ndarray) and host.dtype == dtype
    np.testing.assert_array_equal(host, tensor.detach().double().numpy().astype(dtype))


def test_host_array_leaves_other_values_alone():
    values = np.arange(3)
    assert host_array(values) is values
    assert host_array([1, 2]) == [1, 2]
    assert host_array(None) is None
