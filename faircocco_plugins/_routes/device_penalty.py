"""A training batch's statistic and gradient on the predictions' device.

:class:`._batch_statistic.BatchStatistic` computes a batch's statistic on the host in float64
with its gradient in closed form. For predictions on an accelerator that is a round trip of the
gradient too, and the host's factorisations in place of the device's. Here the same statistic
(:func:`._estimators.batch.predictions_statistic`, written once over the array API) runs on the
predictions' device and autograd differentiates it. The host reads the predictions once (the
step's one wait for the device, for ``n × k`` numbers) and chooses their bandwidth and pivots
by the host route's own code: a pivoted Cholesky is a sequence of small steps, about ten
launches each on a device, and the host takes them in less time than the launches. The
attribute side (``P``, ``L`` and the null's pieces) depends only on the batch's attributes and
outcomes, which are data: the host maps their rows through the fitted feature maps and the
device forms the side from those feature rows (:func:`._estimators.batch.attribute_side`).
Attributes and outcomes passed as host arrays or CPU tensors make no further wait (the torch
adapter's FairCOCCO penalty leaves them on the host); passed as tensors on the device, they
are copied to the host first, one wait each.

Everything is computed in float64, as on the host: in float32 the value moves by up to 8.6e-6
relative at ``ε`` from 1e-4 to 1 on an H200 (``benchmarks/device_route.py`` prints the
comparison).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch.autograd.function import once_differentiable

from .._estimators.batch import AttributeSide, predictions_statistic, standardised_gradient
from .._kernels.registry import kernel_named


def batch_statistic(
    y_pred: torch.Tensor,
    side: AttributeSide | None,
    shift: float,
    width: float,
    pivots: np.ndarray,
    options: Any,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """The statistic of a batch's predictions ``y_pred`` (``n`` or ``n × k``) on their device.

    ``side`` is :meth:`._batch_statistic.BatchStatistic._attribute_side` of the batch's rows
    (None for constant attributes: the statistic is 0, with gradient 0), ``shift`` is ``εN``,
    ``width`` and ``pivots`` the predictions' bandwidth and pivots (chosen on the host,
    :meth:`._batch_statistic.BatchStatistic._scaled_predictions`) and ``options`` the
    statistic's. ``dtype`` is the computation's (float64; float32 only to measure what it
    loses). The gradient is the host closed form's: through standardised predictions, damped
    below the spread floor (see :meth:`._batch_statistic.BatchStatistic.gradient_damping`).
    """
    values = y_pred.reshape(y_pred.shape[0], -1).to(dtype)
    if side is None:
        return torch.sum(values) * 0.0
    centred = values - torch.mean(values, dim=0)
    if options.bandwidth == "median":
        z = _StandardisedGradient.apply(centred, width, values.detach())
    else:
        z = centred / width
    landmarks = torch.as_tensor(pivots, device=values.device)
    kernel = kernel_named(options.kernel)
    return predictions_statistic(z, kernel, landmarks, side.like(z), shift).trace.value


class _StandardisedGradient(torch.autograd.Function):
    """``centred / width`` whose gradient is taken as through standardised predictions
    (:func:`._estimators.batch.standardised_gradient`), as in the host closed form."""

    @staticmethod
    def forward(
        ctx: Any, centred: torch.Tensor, width: float, values: torch.Tensor
    ) -> torch.Tensor:
        ctx.save_for_backward(centred.detach(), values)
        ctx.width = width
        return centred / width

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, upstream: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        centred, values = ctx.saved_tensors
        return standardised_gradient(upstream / ctx.width, centred, values), None, None
