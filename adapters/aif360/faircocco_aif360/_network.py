"""The network both in-processing interfaces train: ``faircocco_torch``'s, with row weights.

AIF360's pre-processors (``Reweighing``, for one) hand their result to the next step as
instance weights; they reach the network as ``sample_weight``, which draws the training rows in
proportion to them, so that the loss and the FairCOCCO penalty both see the reweighted
distribution.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: The network's parameters, with the defaults of ``faircocco_torch``'s estimators: written out
#: so that importing the adapter does not import torch (``tests/test_network.py`` keeps them
#: equal).
NETWORK_DEFAULTS: dict[str, Any] = {
    "hidden_layer_sizes": None,
    "batch_size": 128,
    "learning_rate": 1e-3,
    "epochs": 100,
    "warmup_epochs": 0,
    "weight_decay": 0.0,
    "verbose": False,
}


def fit_network(
    task: str,
    X: np.ndarray,
    y: np.ndarray,
    sensitive: Any,
    *,
    weights: np.ndarray | None,
    notion: str,
    lam: float,
    random_state: Any,
    **network: Any,
) -> Any:
    """A ``FairCOCCOClassifier`` or ``FairCOCCORegressor`` trained on ``(X, y)`` with the
    FairCOCCO penalty on ``sensitive`` (a DataFrame) and the row weights ``weights``."""
    from faircocco_torch import FairCOCCOClassifier, FairCOCCORegressor

    estimator = FairCOCCOClassifier if task == "classification" else FairCOCCORegressor
    model = estimator(
        penalty="faircocco", notion=notion, lam=lam, random_state=random_state, **network
    )
    return model.fit(X, y, sensitive_features=sensitive, sample_weight=weights)
