"""The backend helpers on numpy arrays: direct LAPACK solves and host copies."""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins._linalg.backend import (
    PsdSolver,
    divide_by_lower_transposed,
    host_array,
    host_cholesky,
    host_divide_by_lower,
)


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


def test_stacks_are_solved_and_divided_member_by_member():
    """A stack of right-hand sides (one factor) or of factors gives each member's own answer."""
    rng = np.random.default_rng(1)
    a = rng.normal(size=(3, 6, 6))
    a = a @ a.mT + np.eye(6)
    lowers = np.linalg.cholesky(a)
    stack = rng.normal(size=(3, 6, 4))
    solved = PsdSolver(a[0]).solve(stack)
    for member, b in zip(solved, stack, strict=True):
        np.testing.assert_allclose(member, np.linalg.solve(a[0], b), rtol=1e-12)
    rows = rng.normal(size=(3, 5, 6))
    shared = divide_by_lower_transposed(rows, lowers[0])
    own = divide_by_lower_transposed(rows, lowers)
    for m in range(3):
        inverse = np.linalg.inv(lowers[0]).T
        np.testing.assert_allclose(shared[m], rows[m] @ inverse, rtol=1e-10, atol=1e-13)
        inverse = np.linalg.inv(lowers[m]).T
        np.testing.assert_allclose(own[m], rows[m] @ inverse, rtol=1e-10, atol=1e-13)


def test_psd_solver_rejects_an_indefinite_matrix():
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        PsdSolver(np.diag([1.0, -1.0]))


def test_triangular_division_rejects_a_singular_factor():
    for divide in (divide_by_lower_transposed, host_divide_by_lower):
        with pytest.raises(np.linalg.LinAlgError, match="Singular"):
            divide(np.ones((3, 2)), np.diag([1.0, 0.0]))


def test_host_array_leaves_other_values_alone():
    values = np.arange(3)
    assert host_array(values) is values
    assert host_array([1, 2]) == [1, 2]
    assert host_array(None) is None
