"""A training batch's statistic and gradient on the predictions' device.

:class:`._batch_statistic.BatchStatistic` computes a batch's statistic on the host in float64
with its gradient in closed form. For predictions on an accelerator that is a round trip per
training step: the device must finish the forward pass before the predictions can be copied to
the host, and the gradient is copied back. Here the same statistic
(:func:`._estimators.batch.predictions_statistic`, written once over the array API) runs on
their device and autograd differentiates it: after the median bandwidth of the predictions'
seeded row sample (:mod:`._kernels.device_bandwidth`) and their pivots
(:mod:`._estimators.device_cholesky`, whose stopping test is read once per block of pivots).
The attribute side (``P``, ``L`` and the null's pieces) depends only on the batch's attributes
and outcomes, which are data: the host maps their rows through the fitted feature maps and the
device forms the side from those feature rows (:func:`._estimators.batch.attribute_side`).
Attributes and outcomes passed as host arrays or CPU tensors make a training step with no wait
on the device (the torch adapter's FairCOCCO penalty leaves them on the host); passed as
tensors on the device, they are copied to the host first, which waits for it.

Pivots past the rank are masked: their landmark columns are zero and their block of ``K_ll`` is
the identity, which leaves ``T`` and its gradient unchanged. Everything is computed in float64,
as on the host: in float32 the value moves by up to 6.5e-4 relative at ``ε`` from 1e-4 to 1
(``benchmarks/device_route.py`` prints the comparison).
"""

from __future__ import annotations

from typing import Any

import torch
from torch.autograd.function import once_differentiable

from .._estimators.batch import AttributeSide, predictions_statistic, standardised_gradient
from .._estimators.device_cholesky import incomplete_cholesky
from .._estimators.lowrank import MAX_RANK, pivot_tolerance
from .._estimators.terms import Role
from .._kernels.device_bandwidth import median_distance, sample_rows


def batch_statistic(
    y_pred: torch.Tensor,
    side: AttributeSide | None,
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
    z = _scaled(values, options)
    factor = incomplete_cholesky(
        z, pivot_tolerance(options.ridge, Role.MEASURED), options.rank or MAX_RANK
    )
    active = (torch.arange(factor.pivots.shape[0], device=z.device) < factor.rank).to(dtype)
    return predictions_statistic(z, factor.pivots, side.like(z), shift, active).trace.value


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
        return standardised_gradient(upstream / width, centred, values), None, None
