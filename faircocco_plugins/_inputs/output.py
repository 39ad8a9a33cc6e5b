"""What the public functions return: a float for numpy input, a tensor for tensor input."""

from __future__ import annotations

from typing import Any

import array_api_compat
import numpy as np

from .._linalg.backend import namespace


def as_output(value: Any, y_pred: Any) -> Any:
    """A float for numpy input; a tensor of ``y_pred``'s floating dtype for tensor input."""
    if isinstance(value, np.ndarray | np.generic):
        return float(value)
    if value.dtype == getattr(y_pred, "dtype", None):
        return value  # cheaper than the namespace lookup, and per training batch
    xp = namespace(value)
    if array_api_compat.is_array_api_obj(y_pred) and xp.isdtype(y_pred.dtype, "real floating"):
        return xp.astype(value, y_pred.dtype)
    return value
