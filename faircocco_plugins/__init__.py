"""FairCOCCO: a kernel measure of (conditional) dependence for fairness.

The score is the normalised Hilbert-Schmidt norm of the (conditional) normalised cross-covariance
operator between predictions and sensitive attributes, in [0, 1], for demographic parity,
equalised odds and calibration, with any mix of binary, categorical and continuous attributes.
The unnormalised statistic is a differentiable regulariser for torch models.

The public names are imported on first use, so that importing a light submodule (the plugin
contract :mod:`faircocco_plugins.plugins`, the command line's ``--help``) does not load the
estimators and scipy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._api import (
        IndependenceTestResult,
        faircocco_report,
        faircocco_score,
        faircocco_statistic,
        independence_test,
    )
    from ._batch_statistic import BatchStatistic
    from ._inputs.variables import is_nominal
    from ._kernels.kernel import standardise
    from ._linalg.config import config_context, get_config, set_config
    from ._synthetic import make_synthetic

#: The module of each public name.
_MODULES = {
    "BatchStatistic": "._batch_statistic",
    "IndependenceTestResult": "._api",
    "config_context": "._linalg.config",
    "faircocco_report": "._api",
    "faircocco_score": "._api",
    "faircocco_statistic": "._api",
    "get_config": "._linalg.config",
    "independence_test": "._api",
    "is_nominal": "._inputs.variables",
    "make_synthetic": "._synthetic",
    "set_config": "._linalg.config",
    "standardise": "._kernels.kernel",
}

__all__ = [
    "BatchStatistic",
    "IndependenceTestResult",
    "config_context",
    "faircocco_report",
    "faircocco_score",
    "faircocco_statistic",
    "get_config",
    "independence_test",
    "is_nominal",
    "make_synthetic",
    "set_config",
    "standardise",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
