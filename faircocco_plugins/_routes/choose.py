"""Where a computation runs: torch tensors on an accelerator take the device routes, everything
else the host's. The device routes import torch, so they are imported here on their first
call, above the linear algebra (:mod:`._linalg.backend`) that every route shares.
"""

from __future__ import annotations

from typing import Any

from .._linalg import backend


def device_terms(problem: Any) -> Any:
    """The terms of a :class:`._routes.problem.Problem` of torch tensors on an accelerator computed
    there (:mod:`._routes.device`, imported on the first one); None for other problems and for
    those the device route leaves to the host route. CPU tensors take the host route, which is
    faster on the CPU (performance docs, "Device route")."""
    if not backend.on_accelerator(problem.like):
        return None
    from . import device

    return device.device_terms(problem)


def device_batch_statistic(y_pred: Any, side: Any, shift: float, options: Any) -> Any:
    """A training batch's statistic on ``y_pred``'s device (:mod:`._routes.device_penalty`, imported
    on the first call)."""
    from . import device_penalty

    return device_penalty.batch_statistic(y_pred, side, shift, options)
