"""FairCOCCO for PyTorch.

The FairCOCCO regulariser as an ``nn.Module`` penalty and as a Lagrangian constraint, a
training loop for any network, the paper's MLP as scikit-learn estimators, and the baseline
penalties the paper compares against (FACL, FARMI, HSIC, covariance, linear loss), all with the
call signature ``penalty(y_pred, sensitive, y_true=None)``.
"""

from ._base import FairnessPenalty
from ._capabilities import PenaltyCapabilities
from ._constraint import FairCOCCOConstraint
from ._covariance import CovariancePenalty
from ._encoding import AttributeSpec, SensitiveEncoder, SensitiveSchema
from ._estimators import DegenerateModelWarning, FairCOCCOClassifier, FairCOCCORegressor
from ._facl import FACLPenalty
from ._faircocco import FairCOCCOPenalty
from ._farmi import FARMIPenalty
from ._hsic import HSICPenalty
from ._linear_loss import LinearLossPenalty
from ._network import hidden_width, paper_mlp
from ._path import FairCOCCOPathClassifier, FairCOCCOPathRegressor
from ._training import FitHistory, fit_fair

__all__ = [
    "AttributeSpec",
    "CovariancePenalty",
    "DegenerateModelWarning",
    "FACLPenalty",
    "FARMIPenalty",
    "FairCOCCOClassifier",
    "FairCOCCOConstraint",
    "FairCOCCOPathClassifier",
    "FairCOCCOPathRegressor",
    "FairCOCCOPenalty",
    "FairCOCCORegressor",
    "FairnessPenalty",
    "FitHistory",
    "HSICPenalty",
    "LinearLossPenalty",
    "PenaltyCapabilities",
    "SensitiveEncoder",
    "SensitiveSchema",
    "fit_fair",
    "hidden_width",
    "paper_mlp",
]
__version__ = "0.1.0"
