"""The network defaults the AIF360 interfaces declare are the torch estimators' own.

They are written out, not read from ``faircocco_torch``, so that importing the adapter does not
import torch; this keeps the two from drifting apart.
"""

from __future__ import annotations

import inspect

import pytest

from faircocco_aif360._network import NETWORK_DEFAULTS
from faircocco_torch import FairCOCCOClassifier, FairCOCCORegressor


@pytest.mark.parametrize("estimator", [FairCOCCOClassifier, FairCOCCORegressor])
def test_network_defaults_are_those_of_the_torch_estimators(estimator):
    parameters = inspect.signature(estimator).parameters
    assert {name: parameters[name].default for name in NETWORK_DEFAULTS} == NETWORK_DEFAULTS
