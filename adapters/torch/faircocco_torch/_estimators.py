"""The paper's network as scikit-learn estimators, trained with any penalty of this package."""

from __future__ import annotations

import copy
import inspect
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d
from torch import nn

from faircocco_plugins.plugins import (
    Interval,
    align_by_index,
    as_array,
    check_bool,
    check_params,
    statistic_default,
)
from faircocco_plugins.targets import target_groupings

from ._base import FairnessPenalty
from ._batches import TensorTriple
from ._covariance import CovariancePenalty
from ._encoding import SensitiveEncoder
from ._facl import FACLPenalty
from ._faircocco import FairCOCCOPenalty
from ._farmi import FARMIPenalty
from ._hsic import HSICPenalty
from ._linear_loss import LinearLossPenalty
from ._network import check_hidden_layer_sizes, paper_mlp
from ._path_measures import attribute_frame
from ._sklearn_compat import validate_data
from ._training import DegenerateModelWarning, FitHistory, fit_fair

#: Penalties that ``penalty=`` accepts by name.
PENALTIES: dict[str, type[FairnessPenalty]] = {
    "faircocco": FairCOCCOPenalty,
    "facl": FACLPenalty,
    "farmi": FARMIPenalty,
    "hsic": HSICPenalty,
    "covariance": CovariancePenalty,
    "linear_loss": LinearLossPenalty,
}

#: Rows per forward pass at prediction time.
_PREDICT_CHUNK = 65536
#: A regressor whose predictions on its training rows have a standard deviation below this
#: fraction of the target's predicts, in effect, a constant.
CONSTANT_FRACTION = 0.02


#: The estimators' numeric parameters (warmup_epochs's bound depends on epochs).
_ESTIMATOR_LIMITS = {
    "batch_size": Interval("integer", 2),
    "epochs": Interval("integer", 1),
    "patience": Interval("integer", 1),
    "learning_rate": Interval("real", 0),
    "weight_decay": Interval("real", 0),
    "lam": Interval("real", 0),
    "validation_fraction": Interval("real", 0, 1, closed="neither"),
    "n_threads": Interval("integer", 1, optional=True),
}


def _init_with(signature: inspect.Signature) -> Callable[..., None]:
    """An ``__init__`` with ``signature`` that stores each argument as the attribute of its
    name, as scikit-learn's estimators do; ``get_params`` and ``clone`` read the signature."""

    def __init__(self: Any, **params: Any) -> None:
        arguments = signature.bind(self, **params)
        arguments.apply_defaults()
        for name, value in list(arguments.arguments.items())[1:]:
            setattr(self, name, value)

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    return __init__


def _add_parameter(
    init: Callable[..., None], name: str, default: Any, *, after: str
) -> inspect.Signature:
    """``init``'s signature with the keyword-only parameter ``name`` after ``after``."""
    signature = inspect.signature(init)
    parameters = list(signature.parameters.values())
    added = inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=type(default).__name__
    )
    at = list(signature.parameters).index(after) + 1
    return signature.replace(parameters=[*parameters[:at], added, *parameters[at:]])


@dataclass
class Training:
    """What one fit trains with: the network and its optimiser, the training rows and the
    held-out rows (None without early stopping), the penalty (None for the loss alone) and
    the seed. ``_train`` may replace the network and its optimiser (a path with
    ``model="auto"`` keeps the better model class); the fit keeps the network it ends with."""

    model: nn.Sequential
    optimizer: torch.optim.Optimizer
    rows: TensorTriple
    held_out: TensorTriple | None
    penalty: FairnessPenalty | None
    seed: int


class _FairNetwork(BaseEstimator):
    """Shared fitting logic of :class:`FairCOCCOClassifier` and :class:`FairCOCCORegressor`."""

    _task: str
    #: Quantile bins of a continuous attribute among the groups the validation split is
    #: stratified by (the λ paths take it as a parameter)
    bins = 4

    def __init__(
        self,
        *,
        penalty: str | nn.Module | None = "faircocco",
        notion: str = "eo",
        lam: float = 1.0,
        kernel: str = statistic_default("kernel", "penalty"),
        hidden_layer_sizes: Sequence[int] | None = None,
        batch_size: int = 128,
        learning_rate: float = 1e-3,
        epochs: int = 100,
        warmup_epochs: int = 0,
        weight_decay: float = 0.0,
        early_stopping: bool = False,
        validation_fraction: float = 0.2,
        patience: int = 10,
        device: str = "cpu",
        n_threads: int | None = 1,
        verbose: bool = False,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.penalty = penalty
        self.notion = notion
        self.lam = lam
        self.kernel = kernel
        self.hidden_layer_sizes = hidden_layer_sizes
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.epochs = epochs
        self.warmup_epochs = warmup_epochs
        self.weight_decay = weight_decay
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.patience = patience
        self.device = device
        self.n_threads = n_threads
        self.verbose = verbose
        self.random_state = random_state

    # the subclasses define the task-specific pieces below
    def _targets(self, y: Any) -> tuple[torch.Tensor, str, int]:
        raise NotImplementedError

    def _loss(self) -> nn.Module:
        raise NotImplementedError

    def _penalty_input(self) -> Any:
        return None

    def _penalty_outputs(self, n_outputs: int) -> int:
        return n_outputs

    def fit(
        self, X: Any, y: Any, *, sensitive_features: Any = None, sample_weight: Any = None
    ) -> Self:
        """Train the network on ``(X, y)`` with the penalty on ``sensitive_features``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, p)
            Numeric features.
        y : array-like of shape (n,)
            Class labels for the classifier, numeric targets for the regressor.
        sensitive_features : array-like, Series or DataFrame of shape (n,) or (n, d), optional
            Sensitive attributes of any mix of types (numbers, booleans, strings,
            categoricals), encoded by :class:`SensitiveEncoder`. Without them the penalty is
            not applied (a ``UserWarning`` says so) and the network is trained on the loss
            alone, which is also what ``penalty=None`` does. With them, pandas rows of ``X``,
            ``y``, ``sensitive_features`` and ``sample_weight`` pair by index label, in ``X``'s
            order when it is a pandas object, and an array beside pandas inputs in different
            orders is refused, as by :func:`faircocco_plugins.faircocco_score`; without them,
            ``X``, ``y`` and ``sample_weight`` pair by position, as in scikit-learn.
        sample_weight : array-like of shape (n,), optional
            Non-negative row weights. The network trains on as many rows as it has, drawn with
            replacement in proportion to them (seeded by ``random_state``), so the loss and the
            penalty both see the weighted distribution: the penalty measures dependence across
            a batch of rows, which a weighted loss alone would leave unweighted. Rows held out
            for validation (``early_stopping``) are drawn the same way among themselves, so the
            validation loss and penalty that early stopping watches are weighted too. Equal
            weights change nothing.

        Returns
        -------
        self : object
            The trained estimator.

        Raises
        ------
        ValueError
            For sensitive features of another length than ``X``, with missing values, or of a
            kind the penalty does not support (naming the penalty and what it supports); for
            ``sample_weight`` of another length, negative or not finite, or 0 on every training
            row or on every validation row; for too few rows to hold out ``validation_fraction``
            of them and keep at least 2 training and 2 validation rows.

        Warns
        -----
        DegenerateModelWarning
            When the trained network is useless on its training rows (naming the penalty and
            ``lam``, and what to change): the classifier predicts one class for every row; the
            standard deviation of the regressor's predictions is below ``CONSTANT_FRACTION``
            (0.02) times that of ``y``, in effect a constant.
        """
        self._check_params()
        if sensitive_features is not None:
            # pandas rows pair by label, as in the score: X's order, the others put in it.
            # Without attributes, X, y and sample_weight pair by position, as in
            # scikit-learn, whose meta-estimators (fairlearn's reductions) renumber y alone.
            paired = align_by_index(
                {
                    "X": X,
                    "y": y,
                    "sensitive_features": sensitive_features,
                    "sample_weight": sample_weight,
                }
            )
            X, y, sensitive_features, sample_weight = paired.values()
        _refuse_masked({"X": X, "y": y, "sample_weight": sample_weight})
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=self._task == "regression")
        weights = None if sample_weight is None else _check_sample_weight(sample_weight, X.shape[0])
        if X.shape[0] < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least 2 samples to train; got "
                f"n_samples={X.shape[0]}."
            )
        targets, outcome, n_outputs = self._targets(y)
        n = X.shape[0]
        penalty = self._resolve_penalty()
        sensitive = None
        self.encoder_: SensitiveEncoder | None = None
        if sensitive_features is not None:
            encoder = SensitiveEncoder()
            sensitive = encoder.fit_transform(sensitive_features)
            if int(sensitive.shape[0]) != n:
                raise ValueError(
                    f"sensitive_features has {int(sensitive.shape[0])} rows but X has {n}; "
                    "they must have the same length."
                )
            self.encoder_ = encoder
        if penalty is not None and sensitive is None:
            warnings.warn(
                f"{type(self).__name__}.fit got no sensitive_features, so the fairness penalty "
                "is not applied and the network is trained on the task loss alone. Pass "
                "sensitive_features=... to apply it.",
                UserWarning,
                stacklevel=2,
            )
            penalty = None
        if penalty is not None and self.encoder_ is not None:
            penalty.set_schema(self.encoder_.schema_)
            penalty.capabilities.check(
                type(penalty).__name__,
                notion=penalty.notion,
                attributes=self.encoder_.schema_.kinds,
                outcome=outcome,
                outputs=self._penalty_outputs(n_outputs),
            )
        self.penalty_ = penalty
        self.penalty_applied_ = penalty is not None

        self.x_mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        self.x_scale_ = np.where(scale > 0, scale, 1.0)
        device = torch.device(self.device)
        features = torch.as_tensor((X - self.x_mean_) / self.x_scale_, dtype=torch.float32)
        if sensitive is None:
            sensitive = torch.zeros((n, 1))

        rng = check_random_state(self.random_state)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = paper_mlp(X.shape[1], n_outputs, self._hidden_layers()).to(device)

        rows, val_rows = self._rows(self._strata(targets, sensitive), weights, seed)
        val_data = None
        if val_rows is not None:
            val_index = torch.as_tensor(val_rows)
            val_data = (features[val_index], targets[val_index], sensitive[val_index])
        index = torch.as_tensor(rows)
        train_data = (features[index], targets[index], sensitive[index])
        optimizer = torch.optim.Adam(
            model.parameters(), lr=self.learning_rate, weight_decay=self.weight_decay
        )
        with warnings.catch_warnings():
            # the estimator's own check below names its parameters and what to change
            warnings.simplefilter("ignore", DegenerateModelWarning)
            training = Training(model, optimizer, train_data, val_data, penalty, seed)
            self.history_: FitHistory = self._train(training)
        model = training.model
        self.hidden_layer_sizes_ = tuple(m.out_features for m in model if isinstance(m, nn.Linear))[
            :-1
        ]
        model.eval()
        self.model_ = model
        self.n_iter_ = len(self.history_.loss)
        self._warn_if_degenerate(self._outputs(X), targets)
        return self

    def _hidden_layers(self) -> Sequence[int] | None:
        """The hidden widths the network is built with."""
        return self.hidden_layer_sizes

    def _holds_out(self) -> bool:
        """Whether fit holds out ``validation_fraction`` of the rows for ``_train``."""
        return bool(self.early_stopping)

    def _strata(self, targets: torch.Tensor, sensitive: torch.Tensor) -> list[np.ndarray]:
        """What the validation split is stratified by, the finest first: each row's sensitive
        groups (those of a DI or DEO target, :func:`faircocco_plugins.targets.target_groupings`,
        crossed) with, in classification, its label, a cell of fewer than 2 rows falling back
        to the label alone; then the label alone."""
        n = int(targets.shape[0])
        labels = np.full(n, "", dtype=object)
        if self._task == "classification":
            labels = targets.numpy().astype(str).astype(object)
        if self.encoder_ is None:
            return [labels]
        frame = attribute_frame(sensitive, self.encoder_.schema_)
        cells = labels.copy()
        for groups in target_groupings(frame, bins=int(self.bins)).values():
            cells = cells + "|" + groups.astype(str)
        _, codes, counts = np.unique(cells, return_inverse=True, return_counts=True)
        return [np.where(counts[codes] >= 2, cells, labels), labels]

    def _rows(
        self, strata: list[np.ndarray], weights: np.ndarray | None, seed: int
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The training rows and the held-out rows (None when none are held out), split
        stratified by the first of ``strata`` that scikit-learn can split by (else at random),
        each drawn among themselves in proportion to ``weights`` when given."""
        rows, held_out = np.arange(strata[0].shape[0]), None
        if self._holds_out():
            self._check_split(rows.size)
            train_rows, val_rows = _stratified_split(rows, strata, self.validation_fraction, seed)
            rows, held_out = np.sort(train_rows), np.sort(val_rows)
        if weights is None:
            return rows, held_out
        draw = np.random.default_rng(seed)
        if held_out is None:
            return _weighted_draw(rows, weights[rows], draw, "training rows"), None
        split = f"(validation_fraction={self.validation_fraction} of the rows are held out)"
        return (
            _weighted_draw(rows, weights[rows], draw, f"training rows {split}"),
            _weighted_draw(held_out, weights[held_out], draw, f"validation rows {split}"),
        )

    def _check_split(self, n: int) -> None:
        """Refuse ``n`` rows that ``validation_fraction`` splits into fewer than 2 training or
        2 validation rows, the fewest a fairness statistic is of (scikit-learn's split holds
        out ``ceil(validation_fraction · n)`` rows)."""
        fraction = self.validation_fraction
        if min(_split_sizes(n, fraction)) >= 2:
            return
        needed = max(4, math.floor(1 / fraction) + 1, math.ceil(2 / (1 - fraction)))
        while min(_split_sizes(needed, fraction)) < 2:  # the bounds above, off by rounding only
            needed += 1
        training, validation = _split_sizes(n, fraction)
        raise ValueError(
            f"{type(self).__name__} holds out validation_fraction={fraction} of the rows to "
            f"validate on: of {n} rows that leaves {training} training and {validation} "
            f"validation rows, and each part needs at least 2. Give at least {needed} rows, or "
            "change validation_fraction."
        )

    def _train(self, training: Training) -> FitHistory:
        """Train ``training.model`` in place (the λ-path estimators train it one λ after
        another)."""
        return fit_fair(
            training.model,
            training.rows,
            loss=self._loss(),
            penalty=training.penalty,
            optimizer=training.optimizer,
            batch_size=int(self.batch_size),
            epochs=int(self.epochs),
            val_data=training.held_out,
            early_stopping=int(self.patience) if self.early_stopping else None,
            penalty_input=self._penalty_input(),
            warmup_epochs=int(self.warmup_epochs),
            random_state=training.seed,
            progress=self.verbose,
            n_threads=self.n_threads,
        )

    def _degeneracy(self, outputs: torch.Tensor, targets: torch.Tensor) -> str | None:
        """What makes the trained network useless on its training rows, or None."""
        raise NotImplementedError

    def _warn_if_degenerate(self, outputs: torch.Tensor, targets: torch.Tensor) -> None:
        what = self._degeneracy(outputs, targets)
        if what is None:
            return
        training = f"learning_rate (now {self.learning_rate}) or epochs (now {self.epochs})"
        if self.penalty_ is None:
            advice = f"change {training}"
        else:
            advice = f"weaken the penalty (lower lam), add warmup_epochs, or change {training}"
        penalty = "None" if self.penalty_ is None else repr(self.penalty_)
        warnings.warn(
            f"{type(self).__name__}(penalty={penalty}) {what}; {advice}.",
            DegenerateModelWarning,
            stacklevel=3,
        )

    def _check_params(self) -> None:
        self._check_numbers()
        # flags given as text would be read by their truthiness: "False" would mean true
        check_bool(self.early_stopping, "early_stopping")
        check_bool(self.verbose, "verbose")
        check_hidden_layer_sizes(self.hidden_layer_sizes)

    def _check_numbers(self) -> None:
        """Check the numeric parameters against their intervals."""
        names = (
            "batch_size",
            "epochs",
            "patience",
            "learning_rate",
            "weight_decay",
            "lam",
            "n_threads",
        )
        check_params({name: getattr(self, name) for name in names}, _ESTIMATOR_LIMITS)
        warmup = Interval("integer", 0, self.epochs)
        check_params({"warmup_epochs": self.warmup_epochs}, {"warmup_epochs": warmup})
        fraction = Interval("real", 0, 1, closed="neither")
        check_params(
            {"validation_fraction": self.validation_fraction}, {"validation_fraction": fraction}
        )

    def _resolve_penalty(self) -> FairnessPenalty | None:
        """A fresh copy of the penalty for this fit (the parameter itself is never changed)."""
        penalty = self.penalty
        if penalty is None:
            return None
        if isinstance(penalty, str):
            if penalty not in PENALTIES:
                raise ValueError(
                    f"penalty={penalty!r} is not valid; expected None, a penalty module or one "
                    f"of {sorted(PENALTIES)}."
                )
            options: dict[str, Any] = {"notion": self.notion, "lam": self.lam}
            if penalty == "faircocco":
                options["kernel"] = self.kernel
            elif self.kernel != statistic_default("kernel", "penalty"):
                raise ValueError(
                    f"kernel={self.kernel!r} is the FairCOCCO penalty's option; "
                    f"penalty={penalty!r} has a kernel of its own. Pass penalty='faircocco', "
                    "or leave kernel at its default."
                )
            if penalty == "covariance" and self._penalty_input() is not None:
                options["threshold"] = 0.5  # probabilities: the boundary is at 1/2
            return PENALTIES[penalty](**options)
        if isinstance(penalty, FairnessPenalty):
            fresh = copy.deepcopy(penalty)
            reset = getattr(fresh, "reset", None)
            if callable(reset):
                reset()
            return fresh
        raise TypeError(
            "penalty must be None, a name among "
            f"{sorted(PENALTIES)} or a penalty module of this package; got "
            f"{type(penalty).__name__}."
        )

    def _forward(self, X: Any) -> torch.Tensor:
        check_is_fitted(self, "model_")
        _refuse_masked({"X": X})
        return self._outputs(validate_data(self, X, reset=False, dtype=np.float64))

    def _outputs(self, X: np.ndarray) -> torch.Tensor:
        """The network's outputs on validated features ``X``, on the host."""
        # predictions in float64, so that they do not depend on how rows are batched
        features = torch.as_tensor((X - self.x_mean_) / self.x_scale_, dtype=torch.float64)
        device = next(self.model_.parameters()).device
        model = copy.deepcopy(self.model_).double().eval()
        outputs = []
        with torch.no_grad():
            for start in range(0, max(features.shape[0], 1), _PREDICT_CHUNK):
                chunk = features[start : start + _PREDICT_CHUNK].to(device)
                outputs.append(model(chunk).cpu())
        return torch.cat(outputs)


class FairCOCCOClassifier(ClassifierMixin, _FairNetwork):
    """The paper's neural network classifier, trained with a fairness penalty.

    Two hidden ReLU layers (width ``min(100, max(40, 2 × n_features))`` by default, see
    :func:`hidden_width`), trained with Adam on the cross-entropy (binary: one logit and
    ``BCEWithLogitsLoss``; several classes: ``CrossEntropyLoss``) plus the penalty, in
    mini-batches. Features are standardised with the training mean and standard deviation.
    The sensitive attributes are *not* model inputs; include them in ``X`` yourself if the
    model may use them.

    The penalty is applied, as in the paper, to the predicted probabilities (of the positive
    class when binary, of every class otherwise) by default, or to the logits with
    ``penalty_on="logit"``.

    Parameters
    ----------
    penalty : str, penalty module or None
        ``None`` trains the unregularised network. A name among ``"faircocco"``, ``"facl"``,
        ``"farmi"``, ``"hsic"``, ``"covariance"``, ``"linear_loss"`` builds that penalty with
        ``notion`` and ``lam``. A module (for example ``FairCOCCOConstraint(bound=0.02)``) is
        deep-copied at each fit and used as it is (``notion``, ``lam`` and ``kernel`` are then
        ignored).
    notion : {"dp", "eo", "cal", "eopp"}
        Fairness notion of a penalty given by name.
    lam : float
        Weight of a penalty given by name (the paper selects it from {0.5, 1, 2, 5}).
    kernel : str
        The kernel of ``penalty="faircocco"``, by its registered name (default
        ``"gaussian"``; :class:`FairCOCCOPenalty` has the list); the other penalties have
        kernels of their own and refuse another.
    penalty_on : {"proba", "logit"}
        What the penalty sees.
    hidden_layer_sizes : sequence of int, optional
        Hidden widths, each at least 1; default two layers of :func:`hidden_width` units.
        ``()``: none, a linear model, that is logistic regression (multinomial for more than
        two classes) trained with the same loss, penalty and optimiser.
    batch_size : int
        Rows per batch; the paper selects it from {64, 128, 256}.
    learning_rate : float
        Adam's learning rate; the paper selects it from {1e-2, 1e-3, 1e-4}.
    epochs : int
        Training epochs (the most, with early stopping).
    warmup_epochs : int
        First epochs trained on the loss alone (see :func:`fit_fair`); helps large ``lam``.
    weight_decay : float
        Adam's weight decay.
    early_stopping : bool
        Hold out ``validation_fraction`` of the rows (stratified), stop when the validation
        objective has not improved for ``patience`` epochs, and keep the best weights.
    validation_fraction : float
        Share of rows held out for early stopping.
    patience : int
        Epochs without improvement before stopping.
    device : str
        Torch device for training and prediction, e.g. ``"cpu"`` or ``"cuda"``.
    n_threads : int or None
        torch's intra-op threads while training, restored afterwards; ``None`` leaves torch's
        own setting (one per core). The paper's small networks trained about 4 to 6 times
        slower on two threads than on one, on an idle 2-core machine as beside other work
        (see the performance page, "Training threads").
    verbose : bool
        Show a progress bar.
    random_state : int, RandomState or None
        Seeds the initial weights, the batch order and the validation split.

    Attributes
    ----------
    classes_ : numpy.ndarray
        The class labels.
    model_ : torch.nn.Sequential
        The trained network (outputs logits).
    penalty_ : FairnessPenalty or None
        The penalty used for this fit (a copy), or ``None``.
    penalty_applied_ : bool
        Whether a penalty was applied (``False`` without ``sensitive_features``).
    encoder_ : SensitiveEncoder or None
        The encoder fitted on ``sensitive_features``.
    history_ : FitHistory
        Per-epoch training record.
    hidden_layer_sizes_ : tuple of int
        The hidden widths used.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : numpy.ndarray
        Feature names seen in ``fit`` (DataFrame input only).
    n_iter_ : int
        Epochs run.

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_torch import FairCOCCOClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 4))
    >>> sex = rng.choice(["f", "m"], size=300)
    >>> y = (X[:, 0] + (sex == "m") > 0.5).astype(int)
    >>> clf = FairCOCCOClassifier(lam=1.0, epochs=5, random_state=0)
    >>> clf.fit(X, y, sensitive_features=sex).predict(X[:3]).shape
    (3,)
    """

    _task = "classification"
    penalty_on: str

    __init__ = _init_with(_add_parameter(_FairNetwork.__init__, "penalty_on", "proba", after="lam"))

    def _check_params(self) -> None:
        super()._check_params()
        if self.penalty_on not in ("proba", "logit"):
            raise ValueError(
                f"penalty_on={self.penalty_on!r} is not valid; expected 'proba' or 'logit'."
            )

    def _targets(self, y: Any) -> tuple[torch.Tensor, str, int]:
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes in y; got one "
                f"class: {self.classes_[0]!r}."
            )
        if len(self.classes_) == 2:
            return torch.as_tensor(codes, dtype=torch.float32), "binary", 1
        return torch.as_tensor(codes, dtype=torch.long), "categorical", len(self.classes_)

    def _loss(self) -> nn.Module:
        return nn.BCEWithLogitsLoss() if len(self.classes_) == 2 else nn.CrossEntropyLoss()

    def _penalty_input(self) -> Any:
        if self.penalty_on == "logit":
            return None
        return torch.sigmoid if len(self.classes_) == 2 else _softmax

    def decision_function(self, X: Any) -> np.ndarray:
        """The logits of the rows of ``X``, a numpy array: shape (n,) for two classes (of the
        second class), (n, k) otherwise."""
        return self._forward(X).numpy().astype(np.float64)

    def predict_proba(self, X: Any) -> np.ndarray:
        """The class probabilities of the rows of ``X``, a numpy array of shape (n, n_classes),
        its columns in the order of ``classes_``."""
        logits = self._forward(X).double()
        if logits.ndim == 1:
            positive = torch.sigmoid(logits)
            return torch.stack([1.0 - positive, positive], dim=1).numpy()
        return torch.softmax(logits, dim=1).numpy()

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class of each row of ``X``, a numpy array of shape (n,)."""
        codes = _class_codes(self._forward(X))
        return self.classes_[codes.numpy()]

    def _degeneracy(self, outputs: torch.Tensor, targets: torch.Tensor) -> str | None:
        codes = _class_codes(outputs)
        if bool((codes != codes[0]).any()):
            return None
        only = self.classes_[codes[:1].numpy()].tolist()[0]
        return f"predicts one class ({only!r}) for all {codes.shape[0]} training rows"


class FairCOCCORegressor(RegressorMixin, _FairNetwork):
    """The paper's neural network regressor, trained with a fairness penalty.

    Two hidden ReLU layers (see :func:`hidden_width`), trained with Adam on the mean squared
    error plus the penalty. Features and the target are standardised with their training mean
    and standard deviation (predictions are mapped back), so the loss, and hence ``lam``, has
    the same scale on every dataset, and a target in units of 1e-200 or 1e300 trains as one in
    units of 1. The penalty sees the standardised predictions; FairCOCCO's statistic does not
    depend on that scale.

    Parameters
    ----------
    penalty : str, penalty module or None
        As for :class:`FairCOCCOClassifier`. Penalties that need binary outcomes for EO
        (covariance, linear loss, HSIC) support only ``notion="dp"`` here.
    hidden_layer_sizes : sequence of int, optional
        Hidden widths, each at least 1; default two layers of :func:`hidden_width` units.
        ``()``: none, a linear model, that is linear regression trained with the same loss,
        penalty and optimiser.
    notion, lam, kernel, batch_size, learning_rate, epochs, warmup_epochs, weight_decay,
    early_stopping, validation_fraction, patience, device, n_threads, verbose, random_state
        As for :class:`FairCOCCOClassifier`.

    Attributes
    ----------
    model_ : torch.nn.Sequential
        The trained network (outputs standardised predictions).
    y_mean_, y_scale_ : float
        Mean and scale of the training target.
    penalty_, penalty_applied_, encoder_, history_, hidden_layer_sizes_, n_features_in_,
    feature_names_in_, n_iter_
        As for :class:`FairCOCCOClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_torch import FairCOCCORegressor
    >>> rng = np.random.default_rng(0)
    >>> age = rng.uniform(18, 80, 300)
    >>> X = np.column_stack([rng.normal(size=300), age / 80])
    >>> y = X[:, 0] + X[:, 1] + rng.normal(scale=0.1, size=300)
    >>> reg = FairCOCCORegressor(notion="dp", lam=1.0, epochs=5, random_state=0)
    >>> reg.fit(X, y, sensitive_features=age).predict(X[:2]).shape
    (2,)
    """

    _task = "regression"

    def _targets(self, y: Any) -> tuple[torch.Tensor, str, int]:
        y = column_or_1d(y, warn=True).astype(np.float64)
        standard, self.y_mean_, self.y_scale_ = _standardised_target(y)
        return torch.as_tensor(standard, dtype=torch.float32), "continuous", 1

    def _loss(self) -> nn.Module:
        return nn.MSELoss()

    def predict(self, X: Any) -> np.ndarray:
        """The predicted target of each row of ``X``, in the units of the training target: a
        numpy array of shape (n,)."""
        return self._forward(X).numpy().astype(np.float64) * self.y_scale_ + self.y_mean_

    def _degeneracy(self, outputs: torch.Tensor, targets: torch.Tensor) -> str | None:
        # both are in the standardised units of the target
        spread, target_spread = float(outputs.std(correction=0)), float(targets.std(correction=0))
        if spread >= CONSTANT_FRACTION * target_spread:
            return None
        return (
            f"predicts nearly a constant: on its {outputs.shape[0]} training rows its "
            f"predictions vary {spread / target_spread:.2g} times as much as y"
        )


def _standardised_target(y: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``y`` centred and divided by its standard deviation (by 1 when it is constant), with that
    mean and scale. They are computed on ``y`` divided by its largest magnitude, so that the
    squares of a target in units of 1e160 do not overflow nor those of 1e-200 underflow."""
    magnitude = float(np.max(np.abs(y)))
    unit = y / magnitude if magnitude > 0 else y
    mean, spread = float(unit.mean()), float(unit.std())
    if spread == 0:
        return unit - mean, mean * magnitude, 1.0
    return (unit - mean) / spread, mean * magnitude, spread * magnitude


def _refuse_masked(named: dict[str, Any]) -> None:
    """Refuse masked arrays with masked entries by name, as the core does: scikit-learn's
    validation would drop the mask and train on the masked values as data."""
    for name, value in named.items():
        if np.ma.is_masked(value):
            as_array(value, name)


def _check_sample_weight(sample_weight: Any, n: int) -> np.ndarray:
    weights = np.asarray(sample_weight, dtype=np.float64).ravel()
    if weights.shape[0] != n:
        raise ValueError(f"sample_weight has {weights.shape[0]} values but X has {n} rows.")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0) or not np.any(weights > 0):
        raise ValueError("sample_weight must be finite, non-negative and not all zero.")
    return weights


def _stratified_split(
    rows: np.ndarray, strata: list[np.ndarray], fraction: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` split by ``train_test_split``, stratified by the first of ``strata`` it can
    split by (each stratum needs 2 rows, and each part a row of every stratum), else at
    random."""
    for stratify in strata:
        if np.unique(stratify).size < 2:
            continue
        try:
            return tuple(
                train_test_split(rows, test_size=fraction, random_state=seed, stratify=stratify)
            )
        except ValueError:
            continue
    return tuple(train_test_split(rows, test_size=fraction, random_state=seed))


def _split_sizes(n: int, fraction: float) -> tuple[int, int]:
    """The training and validation rows of ``n`` when ``fraction`` of them is held out, as
    scikit-learn's ``train_test_split`` counts them."""
    held_out = math.ceil(fraction * n)
    return n - held_out, held_out


def _weighted_draw(
    rows: np.ndarray, weights: np.ndarray, rng: np.random.Generator, what: str
) -> np.ndarray:
    """As many of ``rows`` as there are, drawn with replacement in proportion to ``weights``
    (``rows`` themselves when the weights are equal); ``what`` the rows are, for the error
    when every weight is 0."""
    if not np.any(weights > 0):
        raise ValueError(
            f"sample_weight is 0 on all {rows.size} {what}; at least one of them needs a "
            "positive weight."
        )
    if np.ptp(weights) == 0:
        return rows
    return np.sort(rng.choice(rows, size=rows.size, p=weights / weights.sum()))


def _class_codes(logits: torch.Tensor) -> torch.Tensor:
    """The index of the predicted class of each row's logit (one column) or logits."""
    return (logits > 0).long() if logits.ndim == 1 else logits.argmax(dim=1)


def _softmax(logits: torch.Tensor) -> torch.Tensor:
    return torch.softmax(logits, dim=1)
