"""The few scikit-learn calls whose spelling changed between the supported versions."""

from __future__ import annotations

from typing import Any

from sklearn.base import BaseEstimator

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # pragma: no cover - scikit-learn 1.5
    _validate_data = None


def validate_data(estimator: BaseEstimator, *args: Any, **kwargs: Any) -> Any:
    """``sklearn.utils.validation.validate_data``, or the estimator method before 1.6."""
    if _validate_data is not None:
        return _validate_data(estimator, *args, **kwargs)
    return estimator._validate_data(*args, **kwargs)  # pragma: no cover
