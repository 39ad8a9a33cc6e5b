"""A training batch's statistic and gradient on the predictions' device.

:class:`._batch_statistic.BatchStatistic` computes a batch's statistic on the host in float64
with its gradient in closed form. For predictions on an accelerator that is a round trip per
training step: the device must finish the forward pass before the predictions can be copied to
the host, and the gradient is copied back. Here the part that depends on the predictions is
written in torch on their device and differentiated by autograd: the median bandwidth of their
seeded row sample (:mod:`._kernels.device_bandwidth`), their pivots
(:mod:`._estimators.device_cholesky`, whose stopping test is read once per block of pivots), the
Nyström rows and the statistic ``T = Tr[S⁻¹ X Xᵀ]`` (minus the permutation null ``T₀`` when
chance-adjusted), as derived in
:class:`._batch_statistic.BatchStatistic`'s Notes. The attribute side (``P``, ``L`` and the
null's pieces) depends only on the batch's attributes and outcomes, which are data: it is
computed on the host from host rows, as before, and copied to the device. Attributes and
outcomes passed as host arrays or CPU tensors make a training step with no wait on the device
(the torch adapter's FairCOCCO penalty leaves them on the host); passed as tensors on the
device, they are copied to the host first, which waits for it.

Pivots past the rank are masked: their landmark columns are zero and their block of ``S`` is
the identity times ``εN``, which leaves ``T`` and its gradient unchanged. As on the host, ``T``
is computed in the Nyström basis ``Φ = K L_l⁻ᵀ`` with ``L_l L_lᵀ = K_ll``, where its system is
well conditioned. Everything is computed in float64, as on the host: in float32 the value moves
by up to 6.5e-4 relative at ``ε`` from 1e-4 to 1 (``benchmarks/device_route.py`` prints the
comparison).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch.autograd.function import once_differentiable

from .._estimators.batch_null import SPREAD_FLOOR, PermutationNull
from .._estimators.device_cholesky import incomplete_cholesky
from .._estimators.lowrank import MAX_RANK, pivot_tolerance
from .._estimators.terms import Role
from .._kernels.device_bandwidth import median_distance, sample_rows
from .._kernels.kernel import GAUSSIAN


def batch_statistic(
    y_pred: torch.Tensor,
    side: tuple[np.ndarray, np.ndarray, PermutationNull | None] | None,
    shift: float,
    options: Any,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """The statistic of a batch's predictions ``y_pred`` (``n`` or ``n × k``) on their device.

    ``side`` is :meth:`._batch_statistic.BatchStatistic._attribute_side` of the batch's rows
    (None for constant attributes: the statistic is 0, with gradient 0), ``shift`` is ``εN``
    and ``options`` the statistic's. ``dtype`` is the computation's (float64; float32 only to
    measure what it loses). The gradient is the host closed form's: through standardised
    predictions, damped below the spread floor (see
    :meth:`._batch_statistic.BatchStatistic.gradient_damping`).
    """
    values = y_pred.reshape(y_pred.shape[0], -1).to(dtype)
    if side is None:
        return torch.sum(values) * 0.0
    device = values.device
    projected, lower, null = (
        torch.as_tensor(side[0], dtype=dtype, device=device),
        torch.as_tensor(side[1], dtype=dtype, device=device),
        None if side[2] is None else _on_device(side[2], dtype, device),
    )
    z = _scaled(values, options)
    factor = incomplete_cholesky(
        z, pivot_tolerance(options.ridge, Role.MEASURED), options.rank or MAX_RANK
    )
    active = (torch.arange(factor.pivots.shape[0], device=device) < factor.rank).to(dtype)
    landmarks = z[factor.pivots]
    raw = GAUSSIAN.gram(z, landmarks) * active
    kernel = raw - torch.mean(raw, dim=0)
    # K_ll: the landmarks are rows of z; a masked pivot's row and column are the identity's
    landmark_kernel = raw[factor.pivots] * active[:, None] + torch.diag(1.0 - active)
    landmark_lower = torch.linalg.cholesky(landmark_kernel)
    # the Nyström basis Φ = K L_l⁻ᵀ, in which S′ = ΦᵀΦ + εN I is well conditioned
    nystrom = torch.linalg.solve_triangular(landmark_lower, kernel.T, upper=False).T
    cross = torch.linalg.solve_triangular(lower.T, nystrom.T @ projected, upper=True, left=False)
    difference = cross @ cross.T
    if null is not None:
        difference = difference - nystrom.T @ null(nystrom)
    gram = nystrom.T @ nystrom + shift * torch.eye(nystrom.shape[1], dtype=dtype, device=device)
    value = torch.trace(torch.cholesky_solve(difference, torch.linalg.cholesky(gram)))
    return value


def _on_device(null: PermutationNull, dtype: torch.dtype, device: torch.device) -> PermutationNull:
    """The null's map on the device: its arrays copied there, and the conditioning solve as a
    product with the (small) inverse, formed on the host."""

    def copied(array: Any) -> Any:
        return None if array is None else torch.as_tensor(array, dtype=dtype, device=device)

    solve = None
    if null.solve is not None:
        inverse = copied(null.solve(np.eye(null.c_rows.shape[1])))
        solve = inverse.__matmul__
    return PermutationNull(
        copied(null.indicators),
        copied(null.coefficients),
        copied(null.row_delta),
        copied(null.c_rows),
        solve,
    )


def _scaled(values: torch.Tensor, options: Any) -> torch.Tensor:
    """The centred predictions divided by their median distance (or the fixed bandwidth),
    with the host route's gradient (:class:`_StandardisedGradient`)."""
    centred = values - torch.mean(values, dim=0)
    if options.bandwidth != "median":
        return centred / float(options.bandwidth)
    width = median_distance(sample_rows(centred, options.random_state))
    return _StandardisedGradient.apply(centred, width, values.detach())


class _StandardisedGradient(torch.autograd.Function):
    """``centred / width`` whose gradient is taken as through standardised predictions: the
    part along the predictions is projected out (the bandwidth follows their scale) and the
    rest damped below the spread floor, as in the host closed form."""

    @staticmethod
    def forward(
        ctx: Any, centred: torch.Tensor, width: torch.Tensor, values: torch.Tensor
    ) -> torch.Tensor:
        ctx.save_for_backward(centred.detach(), width, values)
        return centred / width

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, upstream: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        centred, width, values = ctx.saved_tensors
        gradient = upstream / width
        squares = torch.sum(centred * centred)
        size = centred.numel()
        projected = gradient - centred * (torch.sum(gradient * centred) / squares)
        spread = torch.sqrt(squares / size)
        magnitude = torch.sqrt(torch.sum(values * values) / size)
        damping = torch.clamp(spread / (SPREAD_FLOOR * torch.clamp(magnitude, min=1.0)), max=1.0)
        # constant predictions (no spread) keep the plain gradient, as on the host
        return torch.where(squares > 0, projected * damping, gradient), None, None
