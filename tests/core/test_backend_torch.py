"""The backend's host copies of torch tensors."""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins._linalg.backend import host_array

torch = pytest.importorskip("torch")


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
