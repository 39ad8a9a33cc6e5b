"""The network both in-processing interfaces train: ``faircocco_torch``'s, on weighted rows.

AIF360's pre-processors (``Reweighing``, for one) hand their result to the next step as
instance weights. The network is trained on rows drawn with replacement in proportion to those
weights, so that the loss and the FairCOCCO penalty both see the reweighted distribution: the
penalty is a dependence measure between batches of rows, so weighting the loss alone would leave
it measuring the unweighted one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils import check_random_state

#: The network's parameters, with the defaults of ``faircocco_torch``'s estimators.
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
    FairCOCCO penalty on ``sensitive`` (a DataFrame); rows resampled by ``weights`` unless they
    are all equal."""
    from faircocco_torch import FairCOCCOClassifier, FairCOCCORegressor

    rng = check_random_state(random_state)
    rows = resampled_rows(weights, rng)
    if rows is not None:
        X, y, sensitive = X[rows], y[rows], sensitive.iloc[rows].reset_index(drop=True)
    estimator = FairCOCCOClassifier if task == "classification" else FairCOCCORegressor
    model = estimator(penalty="faircocco", notion=notion, lam=lam, random_state=rng, **network)
    return model.fit(X, y, sensitive_features=sensitive)


def resampled_rows(weights: np.ndarray | None, rng: np.random.RandomState) -> np.ndarray | None:
    """Row indices drawn with replacement in proportion to ``weights``, as many as there are
    rows; ``None`` when the weights are absent or all equal.

    Raises
    ------
    ValueError
        For negative or non-finite weights, or weights that are all zero.
    """
    if weights is None:
        return None
    weights = np.asarray(weights, dtype=np.float64).ravel()
    if not np.all(np.isfinite(weights)) or np.any(weights < 0) or not np.any(weights > 0):
        raise ValueError(
            "instance weights must be finite, non-negative and not all zero; got min "
            f"{np.nanmin(weights):.3g}, max {np.nanmax(weights):.3g}."
        )
    if np.ptp(weights) == 0:
        return None
    return np.sort(rng.choice(len(weights), size=len(weights), p=weights / weights.sum()))
