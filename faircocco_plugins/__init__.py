"""FairCOCCO: a kernel measure of (conditional) dependence for fairness.

The score is the normalised Hilbert-Schmidt norm of the (conditional) normalised cross-covariance
operator between predictions and sensitive attributes, in [0, 1], for demographic parity,
equalised odds and calibration, with any mix of binary, categorical and continuous attributes.
The unnormalised statistic is a differentiable regulariser for torch models.
"""

from ._api import (
    IndependenceTestResult,
    faircocco_report,
    faircocco_score,
    faircocco_statistic,
    independence_test,
)
from ._batch_statistic import BatchStatistic
from ._config import config_context, get_config, set_config
from ._inputs import is_nominal
from ._kernels import standardise
from ._synthetic import make_synthetic

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
