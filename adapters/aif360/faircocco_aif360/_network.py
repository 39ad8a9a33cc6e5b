"""The network both in-processing interfaces train: ``faircocco_torch``'s, with row weights.

:class:`PenalisedNetwork` holds what the two interfaces share, the AIF360 ``Transformer``
(:mod:`._inprocessing`) and the ``aif360.sklearn``-style estimator (:mod:`.sklearn`): their
parameters and the training call. Each interface adds only how it reads its data.

AIF360's pre-processors (``Reweighing``, for one) hand their result to the next step as
instance weights; they reach the network as ``sample_weight``, which draws the training rows in
proportion to them, so that the loss and the FairCOCCO penalty both see the reweighted
distribution.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any, ParamSpec, TypedDict

import numpy as np

#: The network's parameters, with the defaults of ``faircocco_torch``'s estimators: written out
#: so that importing the adapter does not import torch (``tests/test_network.py`` keeps them
#: equal).
NETWORK_DEFAULTS: dict[str, Any] = {
    "kernel": "gaussian",
    "hidden_layer_sizes": None,
    "batch_size": 128,
    "learning_rate": 1e-3,
    "epochs": 100,
    "warmup_epochs": 0,
    "weight_decay": 0.0,
    "verbose": False,
}


class NetworkKeywords(TypedDict, total=False):
    """The network's parameters, for type checkers (``**network: Unpack[NetworkKeywords]``);
    :data:`NETWORK_DEFAULTS` holds their defaults."""

    kernel: str
    hidden_layer_sizes: Any
    batch_size: int
    learning_rate: float
    epochs: int
    warmup_epochs: int
    weight_decay: float
    verbose: bool


P = ParamSpec("P")


def takes_network(init: Callable[P, None]) -> Callable[P, None]:
    """An interface's ``__init__`` that takes the network's parameters as ``**network``: its
    signature, which scikit-learn's ``get_params`` and ``clone`` read, shows them before
    ``random_state`` with their defaults, and each call passes them all, those not given at
    their defaults. A keyword that is not a parameter raises Python's own ``TypeError``."""
    signature = inspect.signature(init)
    own = [p for p in signature.parameters.values() if p.kind != p.VAR_KEYWORD]
    network = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=default,
            annotation=NetworkKeywords.__annotations__[name].__forward_arg__,
        )
        for name, default in NETWORK_DEFAULTS.items()
    ]
    at = [p.name for p in own].index("random_state")
    public = signature.replace(parameters=[*own[:at], *network, *own[at:]])

    @wraps(init)
    def with_network(*args: P.args, **kwargs: P.kwargs) -> None:
        unknown = [name for name in kwargs if name not in public.parameters]
        if unknown:
            raise TypeError(
                f"{init.__qualname__}() got an unexpected keyword argument {unknown[0]!r}"
            )
        init(*args, **{**NETWORK_DEFAULTS, **kwargs})

    with_network.__signature__ = public  # type: ignore[attr-defined]
    return with_network


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
    target: Any = None,
    target_settings: Mapping[str, Any] | None = None,
    **network: Any,
) -> Any:
    """A ``FairCOCCOClassifier`` or ``FairCOCCORegressor`` trained on ``(X, y)`` with the
    FairCOCCO penalty on ``sensitive`` (a DataFrame) and the row weights ``weights``.

    With a ``target``, a ``FairCOCCOPathClassifier`` or ``FairCOCCOPathRegressor`` instead,
    with ``target_settings`` (its ``confidence``, ``bins`` and ``intersections``): ``lam`` and
    ``warmup_epochs`` are unused, and its unpenalised warm-up lasts ``epochs``.
    """
    from faircocco_torch import (
        FairCOCCOClassifier,
        FairCOCCOPathClassifier,
        FairCOCCOPathRegressor,
        FairCOCCORegressor,
    )

    classify = task == "classification"
    if target is None:
        estimator: Any = FairCOCCOClassifier if classify else FairCOCCORegressor
        options = {"lam": lam, **network}
    else:
        estimator = FairCOCCOPathClassifier if classify else FairCOCCOPathRegressor
        epochs = network.pop("epochs")
        options = {**network, **(target_settings or {}), "target": target, "warmup_epochs": epochs}
    model = estimator(penalty="faircocco", notion=notion, random_state=random_state, **options)
    return model.fit(X, y, sensitive_features=sensitive, sample_weight=weights)


class PenalisedNetwork:
    """The parameters and the training of the FairCOCCO network, for both interfaces.

    The parameters are stored as attributes of their own names (scikit-learn's convention,
    which ``get_params`` reads); :data:`NETWORK_DEFAULTS` names the network's, which each
    interface's ``__init__`` takes through :func:`takes_network`.
    """

    notion: str
    lam: float
    random_state: int | None
    #: a fairness target: trains the λ path to it instead of one ``lam`` (the Transformer's)
    target: Any = None
    #: how the target is certified and grouped (the Transformer's; the path's defaults)
    confidence: float = 0.9
    bins: int = 4
    intersections: bool = False

    def _set_parameters(
        self, notion: str, lam: float, random_state: int | None, network: Mapping[str, Any]
    ) -> None:
        self.notion = notion
        self.lam = lam
        for name in NETWORK_DEFAULTS:
            setattr(self, name, network[name])
        self.random_state = random_state

    def _train(self, task: str, X: np.ndarray, y: np.ndarray, sensitive: Any, weights: Any) -> Any:
        """The network trained on ``(X, y)`` with the penalty on ``sensitive``."""
        return fit_network(
            task,
            X,
            y,
            sensitive,
            weights=weights,
            notion=self.notion,
            lam=self.lam,
            random_state=self.random_state,
            target=self.target,
            target_settings={
                "confidence": self.confidence,
                "bins": self.bins,
                "intersections": self.intersections,
            },
            **{name: getattr(self, name) for name in NETWORK_DEFAULTS},
        )
