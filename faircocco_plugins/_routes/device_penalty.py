"""A training batch's statistic and gradient on the predictions' device.

:class:`._batch_statistic.BatchStatistic` computes a batch's statistic on the host in float64
with its gradient in closed form. For predictions on an accelerator that is a round trip of the
gradient too, and the host's factorisations in place of the device's. Here the same statistic
(:func:`._estimators.batch.batch_statistic`, written once over the array API) runs on the
predictions' device and autograd differentiates it. The host reads the predictions once (the
step's one wait for the device, for ``n × k`` numbers) and chooses their bandwidth and pivots
by the host route's own code: a pivoted Cholesky is a sequence of small steps, about ten
launches each on a device, and the host takes them in less time than the launches. The
attribute side (``P``, ``L`` and the null's pieces) depends only on the batch's attributes and
outcomes, which are data: their feature maps are fitted once and kept on the device, so the
host only scales the batch's rows and encodes their levels (``n × m`` numbers and ``n`` codes
go to the device) and the device forms their feature rows and the side from them
(:meth:`._batch_kernels.BatchKernels.attribute_side`). Attributes and outcomes passed as
host arrays or CPU tensors make no further wait (the torch adapter's FairCOCCO penalty leaves
them on the host); passed as tensors on the device, they are copied to the host first, one wait
each.

Everything is computed in float64, as on the host: in float32 the value moves by up to 8.6e-6
relative at ``ε`` from 1e-4 to 1 on an H200 (``benchmarks/device_route.py`` prints the
comparison).
"""

from __future__ import annotations

from typing import Any

import torch

from .._estimators.batch import AttributeSide, PredictionScale, batch_statistic
from .._kernels.registry import kernel_named


def device_statistic(
    y_pred: torch.Tensor,
    side: AttributeSide | None,
    shift: float,
    scale: PredictionScale,
    options: Any,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """The statistic of a batch's predictions ``y_pred`` (``n`` or ``n × k``) on their device.

    ``side`` is :meth:`._batch_kernels.BatchKernels.attribute_side` of the batch's rows
    (None for constant attributes: the statistic is 0, with gradient 0), ``shift`` is ``εN``,
    ``scale`` the predictions' bandwidth, damping and pivots (chosen on the host,
    :meth:`._batch_statistic.BatchStatistic._scaled_predictions`) and ``options`` the
    statistic's. ``dtype`` is the computation's (float64; float32 only to measure what it
    loses).
    """
    values = y_pred.reshape(y_pred.shape[0], -1).to(dtype)
    if side is None:
        return torch.sum(values) * 0.0
    kernel = kernel_named(options.kernel)
    return batch_statistic(values, scale, side, shift, kernel, options.bandwidth == "median")
