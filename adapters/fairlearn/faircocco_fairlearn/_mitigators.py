"""fairlearn's mitigators as methods of the head-to-head harness.

Each entry point of the group ``faircocco_plugins.mitigators`` loads to a
:class:`faircocco_plugins.plugins.MethodSpec`: fairlearn's reductions (``ExponentiatedGradient``
and ``GridSearch``) with its parity constraints or with :class:`FairCOCCOMoment`, its
post-processing ``ThresholdOptimizer`` and its pre-processing ``CorrelationRemover``, around
scikit-learn's logistic regression or gradient-boosted trees, or the FairCOCCO paper's network
without a penalty (``base``), so that a reader can separate the mitigator's effect from the
model's. Seeds are passed through. fairlearn's parity
constraints group rows by the values of the attributes, so they declare binary and categorical
attributes only; the FairCOCCO constraint and ``CorrelationRemover`` take every kind.
``ThresholdOptimizer`` and ``CorrelationRemover`` need the attributes at prediction, which
their capabilities declare.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from faircocco_plugins.plugins import Capabilities, MethodSpec, attribute_kind, toolkit_name

from ._moment import FairCOCCOMoment

#: Base models, by the name the ``base`` parameter takes.
BASES = ("logistic", "boosting", "network")
_CLASSIFICATION = ("classification",)
_NOMINAL = ("binary", "categorical")
_ALL_KINDS = ("binary", "categorical", "continuous")


class FairlearnMethod:
    """A fairlearn mitigator with the harness's ``fit(X, y, *, sensitive_features)`` contract.

    ``predict_proba`` gives the probability of the positive class: for a randomised classifier
    (``ExponentiatedGradient``) the weight of its members that predict it.
    """

    def __init__(self, mitigator: Any, random_state: int | None) -> None:
        self.mitigator = mitigator
        self.random_state = random_state

    def fit(self, X: Any, y: Any, *, sensitive_features: Any) -> FairlearnMethod:
        with warnings.catch_warnings():
            # fairlearn 0.15's reductions set Series items in ways pandas 3 deprecates
            warnings.filterwarnings("ignore", category=FutureWarning, module="fairlearn")
            self.mitigator.fit(X, y, sensitive_features=_columns(sensitive_features))
        return self

    def predict(self, X: Any) -> np.ndarray:
        if hasattr(self.mitigator, "weights_"):  # randomised: seeded draws
            return np.asarray(self.mitigator.predict(X, random_state=self.random_state))
        return np.asarray(self.mitigator.predict(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        if hasattr(self.mitigator, "weights_"):
            members = zip(self.mitigator.weights_, self.mitigator.predictors_, strict=True)
            positive = sum(w * np.asarray(p.predict(X), dtype=float) for w, p in members)
            return np.column_stack([1 - positive, positive])
        return np.asarray(self.mitigator.predict_proba(X))


def base_model(base: str, random_state: int | None) -> Any:
    """The classifier a mitigator wraps: ``"logistic"``, ``"boosting"`` or ``"network"``.

    The boosted trees stop at 50 iterations (scikit-learn's default is 100): a reduction refits
    its model up to 50 times, and on 5,000 Adult rows one fit took 0.46 s against 0.95 s. The
    network is the FairCOCCO paper's, without a penalty, from ``faircocco_torch`` (the
    ``torch`` extra), trained as the quick preset trains it: 10 epochs at learning rate 0.01;
    the reductions' row weights reach it as ``sample_weight``.
    """
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    if base == "logistic":
        return LogisticRegression(max_iter=1000)
    if base == "boosting":
        return HistGradientBoostingClassifier(max_iter=50, random_state=random_state)
    if base == "network":
        try:
            from faircocco_torch import FairCOCCOClassifier
        except ImportError as error:
            raise ImportError(
                'base="network" needs the torch adapter: pip install torch==2.13.0, then '
                '"faircocco-fairlearn[torch]" (or pip install -e adapters/torch)'
            ) from error
        return FairCOCCOClassifier(
            penalty=None, epochs=10, learning_rate=1e-2, random_state=random_state
        )
    raise ValueError(f"base={base!r} is not valid; expected one of {list(BASES)}.")


def unmitigated(
    *, task: str, notion: str, random_state: int | None = None, base: str = "logistic"
) -> FairlearnMethod:
    """The base model alone, fairness-unaware: the reference for each mitigator's effect."""
    _check_task(task)
    return FairlearnMethod(_Unaware(base_model(base, random_state)), random_state)


class _Unaware:
    """A scikit-learn classifier that ignores the sensitive attributes it is given."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def fit(self, X: Any, y: Any, *, sensitive_features: Any) -> _Unaware:
        self.model.fit(X, y)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.asarray(self.model.predict(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        return np.asarray(self.model.predict_proba(X))


def parity_constraint(notion: str, difference_bound: float) -> Any:
    """fairlearn's constraint for a notion: DemographicParity or EqualizedOdds."""
    from fairlearn import reductions

    moment = getattr(reductions, toolkit_name(notion, "fairlearn_moment"))
    return moment(difference_bound=difference_bound)


#: The constraints ExponentiatedGradient can take here, by the name ``constraint`` takes.
CONSTRAINTS = ("parity", "tpr", "faircocco")


def constraint_for(
    constraint: str, notion: str, difference_bound: float, random_state: int | None
) -> Any:
    """fairlearn's parity constraint for the notion, ``TruePositiveRateParity`` (the paper's
    DEO), or :class:`FairCOCCOMoment`."""
    from fairlearn.reductions import TruePositiveRateParity

    if constraint == "parity":
        return parity_constraint(notion, difference_bound)
    if constraint == "tpr":
        return TruePositiveRateParity(difference_bound=difference_bound)
    if constraint == "faircocco":
        return FairCOCCOMoment(notion, difference_bound=difference_bound, random_state=random_state)
    raise ValueError(
        f"constraint={constraint!r} is not valid; expected one of {list(CONSTRAINTS)}."
    )


def expgrad(
    *,
    task: str,
    notion: str,
    random_state: int | None = None,
    base: str = "logistic",
    difference_bound: float = 0.01,
    constraint: str = "parity",
) -> FairlearnMethod:
    """``ExponentiatedGradient`` around the base model, under one of :data:`CONSTRAINTS`."""
    from fairlearn.reductions import ExponentiatedGradient

    _check_task(task)
    mitigator = ExponentiatedGradient(
        base_model(base, random_state),
        constraint_for(constraint, notion, difference_bound, random_state),
    )
    return FairlearnMethod(mitigator, random_state)


def gridsearch(
    *,
    task: str,
    notion: str,
    random_state: int | None = None,
    base: str = "logistic",
    constraint_weight: float = 0.5,
    constraint: str = "parity",
) -> FairlearnMethod:
    """``GridSearch`` under one of :data:`CONSTRAINTS`.

    With :class:`FairCOCCOMoment` the grid holds 16 multipliers up to 10 over 4 random Fourier
    features: its cross-covariances are small numbers, and on the tests' data one feature and
    GridSearch's default limit of 2 never left the unconstrained model.
    """
    from fairlearn.reductions import GridSearch

    _check_task(task)
    if constraint == "faircocco":
        moment = FairCOCCOMoment(notion, n_features=4, random_state=random_state)
        grid = {"grid_size": 16, "grid_limit": 10.0}
    else:
        moment = constraint_for(constraint, notion, 0.01, random_state)
        grid = {}
    mitigator = GridSearch(
        base_model(base, random_state), moment, constraint_weight=constraint_weight, **grid
    )
    return FairlearnMethod(mitigator, random_state)


class BoundedLossMethod:
    """``ExponentiatedGradient`` under ``BoundedGroupLoss`` for regression: the loss, squared
    and scaled to [0, 1] by the training targets' range, is bounded in every group."""

    def __init__(self, upper_bound: float, random_state: int | None) -> None:
        self.upper_bound = upper_bound
        self.random_state = random_state

    def fit(self, X: Any, y: Any, *, sensitive_features: Any) -> BoundedLossMethod:
        from fairlearn.reductions import BoundedGroupLoss, ExponentiatedGradient, SquareLoss
        from sklearn.linear_model import LinearRegression

        target = np.asarray(y, dtype=np.float64)
        loss = SquareLoss(float(target.min()), float(target.max()))
        self.mitigator = ExponentiatedGradient(
            LinearRegression(), BoundedGroupLoss(loss, upper_bound=self.upper_bound)
        )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=FutureWarning, module="fairlearn")
            self.mitigator.fit(X, target, sensitive_features=_columns(sensitive_features))
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.asarray(self.mitigator.predict(X, random_state=self.random_state))


def bounded_group_loss(
    *, task: str, notion: str, random_state: int | None = None, upper_bound: float = 0.01
) -> BoundedLossMethod:
    """fairlearn's only regression reduction, around linear regression."""
    if task != "regression":
        raise ValueError(f"task={task!r} is not valid; BoundedGroupLoss here regresses.")
    return BoundedLossMethod(upper_bound, random_state)


class ThresholdMethod:
    """``ThresholdOptimizer``: per-group thresholds on the base model's scores.

    It predicts seeded random labels and has no public probabilities, so it offers no
    ``predict_proba`` (the base model's would not carry its decisions).
    """

    def __init__(self, optimizer: Any, random_state: int | None) -> None:
        self.optimizer = optimizer
        self.random_state = random_state

    def fit(self, X: Any, y: Any, *, sensitive_features: Any) -> ThresholdMethod:
        self.optimizer.fit(X, y, sensitive_features=_columns(sensitive_features))
        return self

    def predict(self, X: Any, *, sensitive_features: Any = None) -> np.ndarray:
        labels = self.optimizer.predict(
            X,
            sensitive_features=_columns(_given(sensitive_features)),
            random_state=self.random_state,
        )
        return np.asarray(labels)


def threshold_optimizer(
    *, task: str, notion: str, random_state: int | None = None, base: str = "logistic"
) -> ThresholdMethod:
    """``ThresholdOptimizer`` on the base model's probabilities, for DP or equalised odds."""
    from fairlearn.postprocessing import ThresholdOptimizer

    _check_task(task)
    constraint = toolkit_name(notion, "fairlearn_constraint")
    optimizer = ThresholdOptimizer(
        estimator=base_model(base, random_state),
        constraints=constraint,
        predict_method="predict_proba",
    )
    return ThresholdMethod(optimizer, random_state)


class DecorrelatedMethod:
    """``CorrelationRemover`` on the features and the attributes, then the base model.

    The attributes enter as numbers (nominal ones one-hot, continuous ones as they are);
    the remover projects them out of the features, and drops them.
    """

    def __init__(self, remover: Any, model: Any) -> None:
        self.remover = remover
        self.model = model

    def fit(self, X: Any, y: Any, *, sensitive_features: Any) -> DecorrelatedMethod:
        from sklearn.compose import ColumnTransformer
        from sklearn.preprocessing import OneHotEncoder

        frame = _frame(sensitive_features)
        nominal = [c for c in frame.columns if attribute_kind(frame[c]) != "continuous"]
        self.encoder_ = ColumnTransformer(
            [("nominal", OneHotEncoder(sparse_output=False), nominal)], remainder="passthrough"
        ).fit(frame)
        joined = self._joined(X, frame)
        n_features = joined.shape[1] - self.encoder_.transform(frame).shape[1]
        self.remover.set_params(sensitive_feature_ids=list(range(n_features, joined.shape[1])))
        self.remover.fit(joined)
        self.model.fit(self.remover.transform(joined), y)
        return self

    def _joined(self, X: Any, frame: pd.DataFrame) -> np.ndarray:
        encoded = np.asarray(self.encoder_.transform(frame), dtype=np.float64)
        return np.column_stack([np.asarray(X, dtype=np.float64), encoded])

    def _decorrelated(self, X: Any, sensitive_features: Any) -> np.ndarray:
        return self.remover.transform(self._joined(X, _frame(_given(sensitive_features))))

    def predict(self, X: Any, *, sensitive_features: Any = None) -> np.ndarray:
        return np.asarray(self.model.predict(self._decorrelated(X, sensitive_features)))

    def predict_proba(self, X: Any, *, sensitive_features: Any = None) -> np.ndarray:
        return np.asarray(self.model.predict_proba(self._decorrelated(X, sensitive_features)))


def correlation_remover(
    *,
    task: str,
    notion: str,
    random_state: int | None = None,
    base: str = "logistic",
    alpha: float = 1.0,
) -> DecorrelatedMethod:
    """``CorrelationRemover`` with strength ``alpha`` (1: all linear correlation removed)."""
    from fairlearn.preprocessing import CorrelationRemover

    _check_task(task)
    return DecorrelatedMethod(CorrelationRemover(alpha=alpha), base_model(base, random_state))


class AdversarialMethod:
    """fairlearn's adversarial mitigator: a network trained against an adversary that predicts
    the attribute from its output (and from the label, under equalised odds).

    It gives labels or values only (no probabilities), and takes one attribute of any kind.
    """

    def __init__(self, model: Any) -> None:
        self.model = model

    def fit(self, X: Any, y: Any, *, sensitive_features: Any) -> AdversarialMethod:
        frame = _frame(sensitive_features)
        if frame.shape[1] != 1:
            raise ValueError(
                f"sensitive_features has {frame.shape[1]} columns; fairlearn's adversarial "
                "mitigator takes one."
            )
        column = frame.iloc[:, 0]
        values = column.astype(str) if attribute_kind(column) != "continuous" else column
        with warnings.catch_warnings():
            # fairlearn's torch engine wraps read-only arrays; it never writes to them
            warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
            self.model.fit(np.asarray(X, dtype=np.float64), y, sensitive_features=values)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.asarray(self.model.predict(np.asarray(X, dtype=np.float64)))


def adversarial(
    *,
    task: str,
    notion: str,
    random_state: int | None = None,
    alpha: float = 1.0,
    epochs: int = 10,
) -> AdversarialMethod:
    """fairlearn's ``AdversarialFairnessClassifier`` or ``AdversarialFairnessRegressor`` (torch
    backend) against an adversary of one hidden layer of 3 units; ``alpha`` weighs the adversary.

    The classifier has two hidden layers of 64 units, the regressor one: on the tests' data at 10
    epochs, one layer left the classifier's positive-rate gap at 0.13–0.14 at every ``alpha``
    from 0.1 to 10 where two layers brought it from 0.23 to 0.10, and two layers left the
    regressor's squared error at 5.6 (the target's variance: 2.3) where one reached 0.55.
    """
    try:
        import torch  # noqa: F401  (fairlearn's backend; imported here to fail early)
        from fairlearn.adversarial import (
            AdversarialFairnessClassifier,
            AdversarialFairnessRegressor,
        )
    except ImportError as error:
        raise ImportError(
            "fairlearn's adversarial mitigator needs torch: pip install torch==2.13.0"
        ) from error

    if task not in ("classification", "regression"):
        raise ValueError(f"task={task!r} is not valid; expected 'classification' or 'regression'.")
    constraint = toolkit_name(notion, "fairlearn_constraint")
    classify = task == "classification"
    estimator = AdversarialFairnessClassifier if classify else AdversarialFairnessRegressor
    hidden: list[Any] = [64, "leaky_relu", 64, "leaky_relu"] if classify else [64, "leaky_relu"]
    return AdversarialMethod(
        estimator(
            backend="torch",
            predictor_model=hidden,
            adversary_model=[3, "leaky_relu"],
            constraints=constraint,
            alpha=alpha,
            epochs=epochs,
            batch_size=128,
            random_state=random_state,
            progress_updates=None,
        )
    )


def _given(sensitive_features: Any) -> Any:
    if sensitive_features is None:
        raise ValueError(
            "sensitive_features is required: this method's predictions depend on the attributes."
        )
    return sensitive_features


def _frame(sensitive_features: Any) -> pd.DataFrame:
    if isinstance(sensitive_features, pd.DataFrame):
        return sensitive_features.reset_index(drop=True)
    return pd.DataFrame({"attribute": np.asarray(sensitive_features)})


def _check_task(task: str) -> None:
    if task != "classification":
        raise ValueError(f"task={task!r} is not valid; fairlearn's reductions here classify.")


def _columns(sensitive_features: Any) -> Any:
    """Attributes as fairlearn groups them: one column, or a DataFrame of several.

    Boolean columns of several go as Python objects: fairlearn validates the frame with
    scikit-learn's ``check_array``, which casts a frame holding a boolean column (or a category
    of booleans) to float and fails on a column of string categories beside it (Law School's
    ``male`` and ``race``). Both are nominal to :class:`FairCOCCOMoment`, and fairlearn's groups
    are the values' text either way; numeric columns stay numeric, as the moment's kernel
    needs.
    """
    if not isinstance(sensitive_features, pd.DataFrame):
        return sensitive_features
    if sensitive_features.shape[1] == 1:
        return sensitive_features.iloc[:, 0]
    flags = sensitive_features.dtypes.map(pd.api.types.is_bool_dtype)
    return sensitive_features.astype(dict.fromkeys(flags[flags].index, object))


def _reduction_capabilities(
    attributes: tuple[str, ...],
    note: str,
    notions: tuple[str, ...] = ("dp", "eo"),
    at_prediction: bool = False,
) -> Capabilities:
    return Capabilities(
        tasks=_CLASSIFICATION,
        notions=notions,
        attributes=attributes,
        outcomes=("binary",),
        multiple_attributes="joint",
        needs_gradients=False,
        attributes_at_prediction=at_prediction,
        note=note,
    )


UNMITIGATED = MethodSpec(
    name="sklearn_unmitigated",
    description="The scikit-learn base model alone (logistic regression or boosted trees)",
    capabilities=_reduction_capabilities(
        _ALL_KINDS, "fairness-unaware: the reference for the fairlearn mitigators' base models"
    ),
    factory=unmitigated,
    param_grid={"base": BASES},
    quick_grid={"base": BASES},
    sweep_param=None,
)
_GROUPS_NOTE = (
    "fairlearn's parity constraints group rows by value: several attributes become their "
    "intersections, and a continuous one would make one group per value"
)
#: The sweeps of the allowed violation: parity gaps, and the FairCOCCO constraint's smaller
#: cross-covariances.
_PARITY_BOUNDS, _QUICK_PARITY_BOUNDS = (0.005, 0.01, 0.02, 0.05, 0.1), (0.01, 0.05)
_FAIRCOCCO_BOUNDS, _QUICK_FAIRCOCCO_BOUNDS = (0.0005, 0.001, 0.002, 0.005, 0.01), (0.001, 0.005)


#: Each constraint of the reductions: its method names' suffix, what it is, its capabilities.
_CONSTRAINTS: dict[str, tuple[str, str, Capabilities]] = {
    "parity": (
        "",
        "DemographicParity / EqualizedOdds",
        _reduction_capabilities(_NOMINAL, _GROUPS_NOTE),
    ),
    "tpr": (
        "_tpr",
        "TruePositiveRateParity",
        _reduction_capabilities(_NOMINAL, _GROUPS_NOTE, notions=("eo",)),
    ),
    "faircocco": (
        "_faircocco",
        "the linearised FairCOCCO constraint",
        _reduction_capabilities(
            _ALL_KINDS, "random Fourier features of all attributes jointly, any kind"
        ),
    ),
}


def _reduction_spec(
    reduction: Callable[..., FairlearnMethod],
    label: str,
    constraint: str,
    sweep: tuple[str, tuple[float, ...], tuple[float, ...]],
) -> MethodSpec:
    """A reduction (:func:`expgrad` or :func:`gridsearch`, fairlearn's ``label``) under one
    constraint of :data:`_CONSTRAINTS`, swept over ``sweep``: its parameter, then the full and
    the quick grid's values."""
    suffix, what, capabilities = _CONSTRAINTS[constraint]
    parameter, values, quick_values = sweep
    return MethodSpec(
        name=f"fairlearn_{reduction.__name__}{suffix}",
        description=f"fairlearn {label} with {what}",
        capabilities=capabilities,
        factory=functools.partial(reduction, constraint=constraint),
        param_grid={"base": BASES, parameter: values},
        quick_grid={"base": BASES, parameter: quick_values},
        sweep_param=parameter,
    )


#: ExponentiatedGradient's sweeps over the allowed violation, GridSearch's over the weight of
#: its objective.
_PARITY_SWEEP = ("difference_bound", _PARITY_BOUNDS, _QUICK_PARITY_BOUNDS)
_FAIRCOCCO_SWEEP = ("difference_bound", _FAIRCOCCO_BOUNDS, _QUICK_FAIRCOCCO_BOUNDS)
_WEIGHT_SWEEP = ("constraint_weight", (0.5, 0.7, 0.9, 0.99), (0.5, 0.9))

EXPGRAD = _reduction_spec(expgrad, "ExponentiatedGradient", "parity", _PARITY_SWEEP)
EXPGRAD_TPR = _reduction_spec(expgrad, "ExponentiatedGradient", "tpr", _PARITY_SWEEP)
EXPGRAD_FAIRCOCCO = _reduction_spec(expgrad, "ExponentiatedGradient", "faircocco", _FAIRCOCCO_SWEEP)
GRIDSEARCH = _reduction_spec(gridsearch, "GridSearch", "parity", _WEIGHT_SWEEP)
GRIDSEARCH_TPR = _reduction_spec(gridsearch, "GridSearch", "tpr", _WEIGHT_SWEEP)
GRIDSEARCH_FAIRCOCCO = _reduction_spec(gridsearch, "GridSearch", "faircocco", _WEIGHT_SWEEP)
THRESHOLD_OPTIMIZER = MethodSpec(
    name="fairlearn_threshold",
    description="fairlearn ThresholdOptimizer (per-group thresholds) for DP / equalised odds",
    capabilities=_reduction_capabilities(
        _NOMINAL, _GROUPS_NOTE + "; randomised labels, no scores", at_prediction=True
    ),
    factory=threshold_optimizer,
    param_grid={"base": BASES},
    quick_grid={"base": BASES},
    sweep_param=None,
)
CORRELATION_REMOVER = MethodSpec(
    name="fairlearn_correlation_remover",
    description="fairlearn CorrelationRemover, then the base model",
    capabilities=_reduction_capabilities(
        _ALL_KINDS,
        "removes the features' linear correlation with the attributes (any notion's aim only "
        "through that)",
        notions=("dp",),
        at_prediction=True,
    ),
    factory=correlation_remover,
    param_grid={"base": BASES, "alpha": (0.25, 0.5, 0.75, 1.0)},
    quick_grid={"base": BASES, "alpha": (0.5, 1.0)},
    sweep_param="alpha",
)
ADVERSARIAL = MethodSpec(
    name="fairlearn_adversarial",
    description="fairlearn AdversarialFairnessClassifier / Regressor (torch backend)",
    capabilities=Capabilities(
        tasks=("classification", "regression"),
        notions=("dp", "eo"),
        attributes=_ALL_KINDS,
        outcomes=("binary", "continuous"),
        multiple_attributes="single",
        needs_gradients=True,
        note="an adversary predicts the attribute; labels only, no scores; needs torch",
    ),
    factory=adversarial,
    # larger weights destabilise the game: at alpha 10, 10 epochs, the tests' data got accuracy
    # 0.23 (labels turned round) where alpha 3 got 0.79
    param_grid={"alpha": (0.3, 1.0, 3.0)},
    quick_grid={"alpha": (1.0, 3.0)},
    sweep_param="alpha",
    training_settings=("epochs",),
)
BOUNDED_GROUP_LOSS = MethodSpec(
    name="fairlearn_bounded_group_loss",
    description="fairlearn ExponentiatedGradient with BoundedGroupLoss (regression)",
    capabilities=Capabilities(
        tasks=("regression",),
        notions=("dp", "eo"),
        attributes=_NOMINAL,
        outcomes=("continuous",),
        multiple_attributes="joint",
        needs_gradients=False,
        note=(
            "bounds every group's squared error, not a parity of predictions: it runs under "
            "DP and EO to sit beside the other methods; around linear regression"
        ),
    ),
    factory=bounded_group_loss,
    param_grid={"upper_bound": (0.005, 0.01, 0.02, 0.05)},
    quick_grid={"upper_bound": (0.01, 0.05)},
    sweep_param="upper_bound",
)
