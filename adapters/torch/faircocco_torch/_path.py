"""The paper's network trained along a warm-started path of growing λ, to a fairness target."""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
from sklearn.utils.validation import check_is_fitted
from torch import nn
from tqdm.auto import tqdm

from faircocco_plugins.plugins import DegenerateModelWarning, Interval, check_params
from faircocco_plugins.targets import (
    Target,
    TargetSettings,
    check_target,
    check_target_groups,
    choose_step,
    resolve_target,
)

from ._base import FairnessPenalty
from ._constraint import FairCOCCOConstraint
from ._encoding import numeric_units
from ._estimators import (
    _ESTIMATOR_LIMITS,
    FairCOCCOClassifier,
    FairCOCCORegressor,
    Training,
    _FairNetwork,
    _init_with,
)
from ._network import paper_mlp
from ._path_measures import ValidationMeasures, attribute_frame
from ._training import FitHistory, fit_fair, torch_threads

#: The path's own parameters and defaults; ``warmup_epochs``, ``early_stopping`` and
#: ``patience`` are the networks' parameters with the path's meaning and defaults.
_PATH_DEFAULTS: dict[str, Any] = {
    "target": "halve",
    "confidence": 0.9,
    "bins": 4,
    "intersections": False,
    "lam_min": 0.5,
    "lam_max": 500.0,
    "lam_factor": 2.0,
    "warmup_epochs": 10,
    "epochs_per_step": 3,
    "early_stopping": True,
    "patience": 3,
    "refine_steps": 3,
    "model": "network",
}
#: The networks' parameters a path does not take: it sets λ itself, step by step, and trains
#: for ``warmup_epochs`` plus ``epochs_per_step`` per step.
_NOT_TAKEN = ("lam", "epochs")
_PATH_LIMITS = {
    "lam_min": Interval("real", 0, closed="neither"),
    "lam_factor": Interval("real", 1, closed="neither"),
    "warmup_epochs": Interval("integer", 1),
    "epochs_per_step": Interval("integer", 1),
    "refine_steps": Interval("integer", 0),
}
#: The model classes a path trains: the network of ``hidden_layer_sizes``, a linear model, or
#: whichever of the two is the more accurate on validation after the warm-up.
MODEL_CLASSES = ("network", "linear", "auto")
#: A step improves the adjusted score when it lowers the best so far by more than this.
MIN_IMPROVEMENT = 1e-3
#: The most penalised steps a path plans (the default plans 10): each trains and is measured
#: and kept, so a finer or wider grid of λ is refused rather than run for days.
MAX_PATH_STEPS = 100


def _path_init(network: type[_FairNetwork]) -> Callable[..., None]:
    """An ``__init__`` taking ``network``'s parameters (less :data:`_NOT_TAKEN`) and the
    path's, with that signature, so that scikit-learn's ``get_params`` and ``clone`` see them
    and a parameter added to the networks reaches the paths too."""
    shared = [
        p.replace(default=_PATH_DEFAULTS.get(p.name, p.default))
        for p in inspect.signature(network.__init__).parameters.values()
        if p.name not in _NOT_TAKEN
    ]
    names = {p.name for p in shared}
    own = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
        for name, default in _PATH_DEFAULTS.items()
        if name not in names
    ]
    return _init_with(inspect.Signature([*shared, *own]))


class _FairPath(_FairNetwork):
    """The path's training, selection and plot, shared by the classifier and the regressor."""

    #: the weight a penalty given by name is built with; each step then sets its own λ
    lam = 0.0
    target: Any
    confidence: float
    bins: int
    intersections: bool
    lam_min: float
    lam_max: float
    lam_factor: float
    epochs_per_step: int
    refine_steps: int
    model: str
    step_states_: list[dict[str, torch.Tensor]]

    def fit(
        self, X: Any, y: Any, *, sensitive_features: Any = None, sample_weight: Any = None
    ) -> Any:
        """Train the network along the λ path and keep the step the target selects.

        Parameters
        ----------
        X, y
            As for :meth:`FairCOCCOClassifier.fit` (classifier) or
            :meth:`FairCOCCORegressor.fit` (regressor).
        sensitive_features : array-like, Series or DataFrame of shape (n,) or (n, d)
            Sensitive attributes of any mix of types, as for
            :meth:`FairCOCCOClassifier.fit`; required.
        sample_weight : array-like of shape (n,), optional
            As for :meth:`FairCOCCOClassifier.fit`: the training rows and the validation rows
            are each drawn in proportion to them, so every step's measures in ``path_``, and
            the step chosen, are of the weighted validation rows.

        Returns
        -------
        self : object
            The trained path, its chosen step's weights in ``model_``.

        Raises
        ------
        ValueError
            Without ``sensitive_features``, for a target of the wrong form or task, for a DI
            or DEO target on an attribute with one group on the validation rows
            (:func:`faircocco_plugins.targets.check_target_groups`), for ``penalty=None`` or a
            constraint (which has no λ to raise), for more than 100 planned steps, for too few
            rows to keep at least 2 training and 2 validation rows (6 at the default
            ``validation_fraction``), for ``sample_weight`` that is 0 on every training row or
            on every validation row, or for a regression target whose standard deviation is
            about 1.3e154 or more (its MSE in ``path_``, in y's units, would overflow float64).

        Warns
        -----
        UserWarning
            When no non-degenerate step meets the target: the fairest one is kept, and the
            warning names the target and what it reached; where the validation rows are too
            few to certify a DI or DEO target at ``confidence`` at any λ, it says so, naming
            the smallest group, its rows and the level they can certify.
        """
        name = type(self).__name__
        if sensitive_features is None:
            raise ValueError(
                f"{name}.fit needs sensitive_features: the path raises λ until the "
                "predictions' dependence on them meets the target."
            )
        check_target(self.target, self._task)
        if self.penalty is None or isinstance(self.penalty, FairCOCCOConstraint):
            raise ValueError(
                f"{name} needs a penalty with a weight λ to raise; got penalty="
                f"{self.penalty!r}. Use a penalty name such as 'faircocco' or a penalty module."
            )
        super().fit(X, y, sensitive_features=sensitive_features, sample_weight=sample_weight)
        _, reason = choose_step(self.path_, self.target_, self._task)
        if reason is not None:
            limit = self.certification_limit_
            every = bool(self.path_["degenerate"].all())
            advice = (
                f"Raise lam_max (now {self.lam_max:g}) or epochs_per_step (now "
                f"{self.epochs_per_step}), or ask for a weaker target."
            )
            if limit is not None:
                advice = (
                    f"The validation rows decide: {limit}. Give more rows, a larger "
                    f"validation_fraction (now {self.validation_fraction}), a lower confidence "
                    f"(now {self.confidence:g}) or a weaker target."
                )
            warnings.warn(
                f"{name}(target={self.target!r}): {reason}. {advice}",
                DegenerateModelWarning if every else UserWarning,
                stacklevel=2,
            )
        return self

    def _settings(self) -> TargetSettings:
        """``confidence``, ``bins`` and ``intersections`` as the targets take them (each
        checked there, naming it)."""
        return TargetSettings(
            confidence=self.confidence, bins=self.bins, intersections=self.intersections
        )

    def _check_numbers(self) -> None:
        # the networks' limits of the parameters a path takes, then the path's own
        shared = [name for name in _ESTIMATOR_LIMITS if name not in _NOT_TAKEN]
        check_params({name: getattr(self, name) for name in shared}, _ESTIMATOR_LIMITS)
        check_params({name: getattr(self, name) for name in _PATH_LIMITS}, _PATH_LIMITS)
        self._settings()
        if self.model not in MODEL_CLASSES:
            raise ValueError(
                f"model={self.model!r} is not valid; expected one of {', '.join(MODEL_CLASSES)}."
            )
        if self.model != "network" and self.hidden_layer_sizes not in (None, ()):
            raise ValueError(
                f"model={self.model!r} sets the linear model's hidden layers itself (none); "
                f"got hidden_layer_sizes={self.hidden_layer_sizes!r} too. Use "
                "model='network' with hidden_layer_sizes, or leave hidden_layer_sizes out."
            )
        lam_max = Interval("real", self.lam_min)
        check_params({"lam_max": self.lam_max}, {"lam_max": lam_max})
        steps = _penalised_steps(self.lam_min, self.lam_max, self.lam_factor)
        if steps > MAX_PATH_STEPS:
            raise ValueError(
                f"lam_min={self.lam_min!r}, lam_max={self.lam_max!r} and lam_factor="
                f"{self.lam_factor!r} plan {steps:,} penalised steps; a path takes at most "
                f"{MAX_PATH_STEPS}. Raise lam_factor to at least "
                f"{_fitting_factor(self.lam_min, self.lam_max)}, or narrow lam_min to lam_max."
            )

    def _holds_out(self) -> bool:
        return True

    def _hidden_layers(self) -> Sequence[int] | None:
        return () if self.model == "linear" else self.hidden_layer_sizes

    def lambdas(self) -> np.ndarray:
        """The λ of each step: 0 (the warm-up), then ``lam_min`` times powers of
        ``lam_factor`` up to ``lam_max``.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> from faircocco_torch import FairCOCCOPathClassifier
        >>> FairCOCCOPathClassifier(lam_min=1, lam_max=8).lambdas().tolist()
        [0.0, 1.0, 2.0, 4.0, 8.0]
        """
        self._check_params()
        # each λ from the last, since a power of lam_factor can overflow where λ does not
        lams = [0.0, self.lam_min]
        for _ in range(_penalised_steps(self.lam_min, self.lam_max, self.lam_factor) - 1):
            lams.append(lams[-1] * self.lam_factor)
        return np.array(lams)

    def _train(self, training: Training) -> FitHistory:
        penalty, held_out = training.penalty, training.held_out
        assert held_out is not None and penalty is not None and self.encoder_ is not None
        if self._task == "classification" and len(self.classes_) > 2 and self.target != "halve":
            measure = next(iter(self.target)) if isinstance(self.target, dict) else ""
            if measure in ("di", "deo"):
                raise ValueError(
                    f"target={self.target!r} needs two classes (DI and DEO are of positive "
                    f"predictions); y has {len(self.classes_)}. Use 'halve' or "
                    '{"adjusted_score": x}.'
                )
        _, targets, sensitive = held_out
        units = numeric_units(self.encoder_)
        groups = attribute_frame(sensitive, self.encoder_.schema_, units)
        check_target_groups(
            self.target, groups, targets.numpy() == 1, rows="validation rows", bins=self.bins
        )
        measures = ValidationMeasures(
            held_out,
            self.encoder_.schema_,
            task=self._task,
            notion=penalty.notion,
            y_scale=getattr(self, "y_scale_", 1.0),
            units=units,
            settings=self._settings(),
            kernel=self.kernel,
        )
        with torch_threads(self.n_threads):
            history, rows = self._steps(training, penalty, measures)
        order = sorted(range(len(rows)), key=lambda step: rows[step]["lam"])
        path = pd.DataFrame([rows[step] for step in order])
        path.index.name = "step"
        self.path_ = path
        self.step_states_ = [self.step_states_[step] for step in order]
        self.target_: Target = resolve_target(self.target, path["adjusted_score"].iloc[0])
        self.step_, _ = choose_step(path, self.target_, self._task)
        self.lam_ = float(path["lam"].iloc[self.step_])
        hidden = [m for m in training.model if isinstance(m, nn.Linear)][:-1]
        self.model_class_ = "network" if hidden else "linear"
        training.model.load_state_dict(self.step_states_[self.step_])
        self.certification_limit_ = measures.certification_limit(training.model, self.target_)
        return history

    def _steps(
        self, training: Training, penalty: FairnessPenalty, measures: ValidationMeasures
    ) -> tuple[FitHistory, list[dict[str, Any]]]:
        """Train step after step, keeping each step's weights, then refine where the target is
        crossed; the training record and the rows of ``path_``, in the order trained."""
        history = FitHistory()
        rows: list[dict[str, Any]] = []
        self.step_states_ = []
        lambdas = self.lambdas()
        best, waited = math.inf, 0
        with tqdm(total=len(lambdas), desc="λ path", unit="step", disable=not self.verbose) as bar:
            for step, lam in enumerate(lambdas):
                if step == 0 and self.model == "auto":
                    rows.append(self._warm_up_both(training, penalty, measures, history, bar))
                    continue
                epochs = self.epochs_per_step if step else self.warmup_epochs
                rows.append(self._step(training, penalty, measures, history, lam, epochs, bar))
                if not self.early_stopping:
                    continue
                if step and rows[-1]["degenerate"]:
                    break
                score = rows[-1]["adjusted_score"]
                if score < best - MIN_IMPROVEMENT:
                    best, waited = score, 0
                elif step:
                    waited += 1
                    if waited >= self.patience and self._choice(rows)[1] is None:
                        break
            self._refine(training, penalty, measures, history, rows, bar)
        return history, rows

    def _step(
        self,
        training: Training,
        penalty: FairnessPenalty,
        measures: ValidationMeasures,
        history: FitHistory,
        lam: float,
        epochs: int,
        bar: Any,
    ) -> dict[str, Any]:
        """Train the network on from its weights at ``lam`` (the loss alone at 0), keep its
        weights in ``step_states_`` and its record in ``history``; its row of ``path_``."""
        model = training.model
        penalty.lam = float(lam)
        part = fit_fair(
            model,
            training.rows,
            loss=self._loss(),
            penalty=penalty if lam else None,
            # the same optimiser throughout: each step goes on from the last one
            optimizer=training.optimizer,
            batch_size=int(self.batch_size),
            epochs=int(epochs),
            penalty_input=self._penalty_input(),
            random_state=training.seed + len(self.step_states_),
            progress=bool(self.verbose),
        )
        _extend(history, part)
        self.step_states_.append(
            {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        )
        bar.set_postfix(lam=f"{lam:g}")
        bar.update()
        return {"lam": float(lam), **measures(model), "refined": False}

    def _warm_up_both(
        self,
        training: Training,
        penalty: FairnessPenalty,
        measures: ValidationMeasures,
        history: FitHistory,
        bar: Any,
    ) -> dict[str, Any]:
        """``model="auto"``'s step 0: warm up the network and a linear model alike and go on
        with the one whose validation accuracy is higher (MSE lower; a tie keeps the
        network), in ``training``; its row of ``path_``."""
        bar.total += 1
        warmed = []
        for model, optimizer in (
            (training.model, training.optimizer),
            self._linear_twin(training),
        ):
            training.model, training.optimizer = model, optimizer
            part = FitHistory()
            row = self._step(training, penalty, measures, part, 0.0, self.warmup_epochs, bar)
            # each from the same seed: the seed of a step is its position
            warmed.append((model, optimizer, part, self.step_states_.pop(), row))
        network, linear = (entry[-1] for entry in warmed)
        if self._task == "classification":
            better = linear["accuracy"] > network["accuracy"]
        else:
            better = linear["mse"] < network["mse"]
        model, optimizer, part, state, row = warmed[int(better)]
        training.model, training.optimizer = model, optimizer
        _extend(history, part)
        self.step_states_.append(state)
        return row

    def _linear_twin(self, training: Training) -> tuple[nn.Sequential, torch.optim.Optimizer]:
        """A linear model of the network's inputs and outputs, on its device, seeded as it
        was, with an optimiser of the same settings."""
        layers = [m for m in training.model if isinstance(m, nn.Linear)]
        device = layers[0].weight.device
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(training.seed)
            model = paper_mlp(layers[0].in_features, layers[-1].out_features, ()).to(device)
        optimizer = torch.optim.Adam(
            model.parameters(), lr=self.learning_rate, weight_decay=self.weight_decay
        )
        return model, optimizer

    def _refine(
        self,
        training: Training,
        penalty: FairnessPenalty,
        measures: ValidationMeasures,
        history: FitHistory,
        rows: list[dict[str, Any]],
        bar: Any,
    ) -> None:
        """Where the step the target chooses is the first to meet it (the penalised step
        before it does not), bisect λ between the two in log space for ``refine_steps``
        steps, each warm-started from the weights of the highest λ found not to meet it, so
        that the choice spends the least accuracy; the new rows are appended to ``rows``,
        marked ``refined``."""
        chosen, reason = self._choice(rows)
        # log-space bisection needs a penalised step below: not from the warm-up at λ = 0
        if reason is not None or chosen < 2 or self._meets(rows)[chosen - 1]:
            return
        low, high = rows[chosen - 1]["lam"], rows[chosen]["lam"]
        start = self.step_states_[chosen - 1]
        bar.total += self.refine_steps
        for _ in range(self.refine_steps):
            lam = math.sqrt(low * high)
            training.model.load_state_dict(start)
            epochs = self.epochs_per_step
            rows.append(
                {
                    **self._step(training, penalty, measures, history, lam, epochs, bar),
                    "refined": True,
                }
            )
            # a degenerate step has gone too far, like one that meets the target
            if self._meets(rows)[-1] or rows[-1]["degenerate"]:
                high = lam
            else:
                low, start = lam, self.step_states_[-1]

    def _choice(self, rows: list[dict[str, Any]]) -> tuple[int, str | None]:
        """The step the target chooses among ``rows`` and why none meets it (None when one
        does): the path does not end before one does, since DI and DEO can go on improving
        where the adjusted score has levelled off."""
        path, target = self._measured(rows)
        return choose_step(path, target, self._task)

    def _meets(self, rows: list[dict[str, Any]]) -> np.ndarray:
        """Whether each of ``rows`` is usable and meets the target (:func:`choose_step`'s rule)."""
        path, target = self._measured(rows)
        return (~path["degenerate"].astype(bool) & target.met(path[target.column])).to_numpy()

    def _measured(self, rows: list[dict[str, Any]]) -> tuple[pd.DataFrame, Target]:
        """``rows`` as a table, and the target they resolve (the first is the warm-up's)."""
        path = pd.DataFrame(rows)
        return path, resolve_target(self.target, path["adjusted_score"].iloc[0])

    def _warn_if_degenerate(self, outputs: torch.Tensor, targets: torch.Tensor) -> None:
        """Nothing: the path judges its steps on the validation rows, and ``fit`` warns
        when none of them is usable."""

    def plot_path(self, ax: Any = None) -> Any:
        """Draw the path's front: validation accuracy (MSE) against what the target checks.

        For a DI or DEO target the horizontal axis is the bound at ``confidence`` that the
        target is checked against (``di_bound``, ``deo_bound``), each step's point value a
        small ring joined to it, so that the dashed target line separates the steps that meet
        it from those that do not; for an adjusted-score target it is the score. Each step is
        labelled by its λ, on the side away from its nearest neighbour so that labels of
        close steps do not overlap; degenerate steps are crosses, the chosen step a star.
        Needs matplotlib. In a script, call ``matplotlib.pyplot.show()`` afterwards to see
        it, or save it with ``ax.figure.savefig(path)``.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; default a new figure's axes.

        Returns
        -------
        matplotlib.axes.Axes
        """
        check_is_fitted(self, "path_")
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        path, target = self.path_, self.target_
        performance = "accuracy" if self._task == "classification" else "mse"
        x, y = path[target.column].astype(float), path[performance].astype(float)
        if target.column != target.measure:
            point = path[target.measure].astype(float)
            ax.hlines(y, point, x, color="0.85", zorder=0)
            ax.scatter(point, y, facecolors="none", edgecolors="0.6", s=14, label="point value")
        usable = ~path["degenerate"].astype(bool)
        ax.plot(x, y, "-", color="0.7", zorder=1)
        ax.scatter(x[usable], y[usable], color="C0", zorder=2, label="step")
        if not usable.all():
            ax.scatter(x[~usable], y[~usable], marker="x", color="C1", label="degenerate")
        offsets = _label_offsets(x, y)
        for lam, xi, yi, (dx, dy) in zip(path["lam"], x, y, offsets, strict=True):
            ax.annotate(
                f"λ={lam:.3g}",
                (xi, yi),
                textcoords="offset points",
                xytext=(dx, dy),
                ha="left" if dx >= 0 else "right",
                va="bottom" if dy >= 0 else "top",
                fontsize="small",
            )
        ax.scatter(
            [x.iloc[self.step_]],
            [y.iloc[self.step_]],
            marker="*",
            s=200,
            color="C3",
            zorder=3,
            label=f"chosen (λ={self.lam_:.3g})",
        )
        if math.isfinite(target.threshold):
            ax.axvline(target.threshold, linestyle="--", color="0.4", label=f"target: {target}")
        checked = f"validation {target.measure}"
        if target.column != target.measure:
            side = "upper" if target.lower_is_fairer else "lower"
            checked += f" ({side} bound at {self.confidence:g})"
        ax.set_xlabel(checked)
        ax.set_ylabel(f"validation {performance}")
        ax.legend()
        return ax


def _label_offsets(x: pd.Series, y: pd.Series, distance: float = 6.0) -> list[tuple[float, float]]:
    """Offsets, in points, that put each point's label on the side away from its nearest
    neighbour, the axes' ranges scaled to one (a lone point's label goes up and right)."""
    scaled = np.column_stack(
        [(v - v.min()) / (v.max() - v.min()) if v.max() > v.min() else v * 0.0 for v in (x, y)]
    )
    offsets = []
    for i, here in enumerate(scaled):
        away = here - np.delete(scaled, i, axis=0)
        if away.size == 0 or not np.isfinite(away).all():
            offsets.append((distance, distance))
            continue
        nearest = away[np.argmin(np.hypot(away[:, 0], away[:, 1]))]
        norm = np.hypot(*nearest)
        direction = nearest / norm if norm > 0 else np.array([1.0, 1.0]) / math.sqrt(2.0)
        offsets.append((float(distance * direction[0]), float(distance * direction[1])))
    return offsets


def _extend(history: FitHistory, part: FitHistory) -> None:
    """Append ``part``'s per-epoch record to ``history``."""
    for name, values in vars(part).items():
        if isinstance(values, list):
            getattr(history, name).extend(values)


def _penalised_steps(lam_min: float, lam_max: float, lam_factor: float) -> int:
    """How many powers ``lam_min · lam_factor^k`` reach up to ``lam_max``, the last one kept
    when it overshoots ``lam_max`` by rounding only (counted in logarithms, so that no ratio of
    extreme λ overflows)."""
    span = math.log(lam_max) - math.log(lam_min)
    return math.floor(span / math.log(lam_factor) + 1e-9) + 1


def _fitting_factor(lam_min: float, lam_max: float) -> str:
    """The shortest printed ``lam_factor`` that plans at most :data:`MAX_PATH_STEPS` steps."""
    exact = math.exp((math.log(lam_max) - math.log(lam_min)) / (MAX_PATH_STEPS - 1))
    for digits in range(4, 17):
        printed = f"{exact:.{digits}g}"
        factor = float(printed)
        if factor > 1 and _penalised_steps(lam_min, lam_max, factor) <= MAX_PATH_STEPS:
            return printed
    return repr(exact)


class FairCOCCOPathClassifier(_FairPath, FairCOCCOClassifier):
    """The paper's network classifier trained along a path of growing λ to a fairness target.

    One training run: ``warmup_epochs`` on the loss alone (step 0, λ = 0), then steps at
    λ = ``lam_min``, ``lam_min · lam_factor``, … up to ``lam_max``, ``epochs_per_step`` epochs
    each, every step going on from the last one's weights with the same optimiser. After each
    step the network is measured on a stratified validation split (``validation_fraction``,
    seeded by ``random_state``) and its weights are kept. With ``early_stopping`` the path
    ends at the first degenerate penalised step, or once the chance-adjusted FairCOCCO score
    on validation has not fallen by more than 0.001 below its best for ``patience`` steps and
    some step meets the target; otherwise it goes on to ``lam_max``.

    **Refinement.** Where the step the target chooses is the first to meet it (the penalised
    step before it does not), a doubling of λ has crossed the target, and the step chosen may
    have spent accuracy on fairness nobody asked for. The path then bisects λ between the two
    in log space for ``refine_steps`` steps: each trains ``epochs_per_step`` epochs from the
    weights of the highest λ found not to meet the target (at first the earlier step's), and
    is kept in ``path_`` and ``step_states_`` like any other step. The choice is then made
    among all of them. With ``verbose``, a progress bar counts the steps.

    **Selection.** The kept step is the most accurate non-degenerate step that meets ``target`` on
    the validation rows; ``predict`` uses its weights. A DI or DEO target is met only where it holds
    at ``confidence`` on those rows: where the worst bound over every grouping (``di_bound``,
    ``deo_bound``; :func:`faircocco_plugins.targets.group_measures`) meets it, so that it holds on
    unseen rows with about that probability; an adjusted-score target (``"halve"``,
    ``{"adjusted_score": x}``) likewise where the score's upper bound at ``confidence``
    (``adjusted_score_bound``; :func:`faircocco_plugins.targets.adjusted_score_columns`) meets it.
    If none meets it, the fairest non-degenerate step by the target's column is kept, with a
    ``UserWarning`` naming the target and what was reached. A step is degenerate, and never kept,
    when it predicts one class for every validation row, its validation AUC is at most 0.51, or (two
    classes) it is near one class: its validation positive rate below a third of the base rate or
    above 1 − (1 − base rate)/3, or its balanced accuracy below 0.55.

    Parameters
    ----------
    target : "halve" or dict
        ``"halve"``: a validation adjusted score at most half the unpenalised step's;
        ``{"adjusted_score": x}``: at most ``x``; ``{"di": x}``: disparate impact (lowest
        over highest positive rate of any attribute's groups) at least ``x``, e.g. 0.8 for
        the four-fifths rule; ``{"deo": x}``: largest gap in true-positive rates at most
        ``x``. DI and DEO need two classes and apply to every grouping of
        :func:`faircocco_plugins.targets.target_groupings`: each categorical attribute's
        groups, each continuous attribute's ``bins`` quantile bins (no longer a median split),
        and with ``intersections`` the intersections with at least 30 rows.
    confidence : float
        In (0, 1): a target is met only where its bound at this confidence meets it (a lower
        bound for DI, an upper one for DEO, from the group counts; an upper one for the
        adjusted score, from a jackknife over the validation rows).
    bins : int
        Quantile bins of a continuous attribute, at least 2.
    intersections : bool
        Whether a DI or DEO target applies to the intersections of the attributes' groups too.
    lam_min, lam_max, lam_factor : float
        The penalised steps' λ: ``lam_min`` times powers of ``lam_factor`` up to
        ``lam_max`` (default 0.5 to 256, ten steps). A grid of more than 100 steps is
        refused, naming the ``lam_factor`` that would fit.
    warmup_epochs : int
        Epochs of step 0, on the loss alone.
    epochs_per_step : int
        Epochs of each penalised step.
    early_stopping : bool
        End the path when the model degenerates, or when the adjusted score has stopped
        falling and the target is met, rather than always going on to ``lam_max``.
    patience : int
        Steps without improvement of the adjusted score before the path may end.
    refine_steps : int
        Bisection steps between the chosen step and the one before it where a doubling of λ
        crosses the target (see Refinement); 0 turns refinement off.
    model : {"network", "linear", "auto"}
        The model class: the network of ``hidden_layer_sizes``; a linear model (logistic
        regression, ``hidden_layer_sizes=()``); or ``"auto"``, which warms up both at λ = 0
        from the same seed and runs the path with the one of higher validation accuracy (a
        tie keeps the network), so that the penalty is not blamed for a weaker model class.
        ``"linear"`` and ``"auto"`` refuse ``hidden_layer_sizes`` with hidden layers.
    validation_fraction : float
        Share of rows held out to measure each step.
    penalty, notion, kernel, penalty_on, hidden_layer_sizes, batch_size, learning_rate,
    weight_decay, device, n_threads, verbose, random_state
        As for :class:`FairCOCCOClassifier` (``penalty=None`` and constraints are refused:
        they have no λ to raise; ``notion`` and ``kernel`` are also the adjusted score's).

    Attributes
    ----------
    path_ : pandas.DataFrame
        One row per step (index ``step``, 0 the warm-up): ``lam``; on the validation rows
        ``accuracy``, ``auc``, ``adjusted_score`` (chance-adjusted FairCOCCO score of the predicted
        probabilities under ``notion``), ``adjusted_score_bound`` (its upper bound at
        ``confidence``, what an adjusted-score target is checked against), ``di`` (lowest over
        highest positive rate, in [0, 1], the smallest over the groupings), ``di_bound`` (the
        smallest of their lower bounds at ``confidence``, what a DI target is checked against),
        ``di[name]`` (each grouping's, e.g. ``di[sex]``, ``di[age]``, ``di[intersections]``), the
        same for ``deo`` (largest gap in true-positive rates; ``deo_bound`` the largest upper
        bound), ``di_ratio`` (the paper's ``P(Ŷ=1 | A=1) / P(Ŷ=1 | A=0)``, with ``A=1`` the group
        with the lowest positive rate at step 0 of the attribute with the smallest DI there, and
        ``A=0`` the highest; above 1 once the gap is reversed), ``positive_rate``,
        ``balanced_accuracy``, ``degenerate`` and ``refined`` (whether the step is one of the
        refinement's). Rows are sorted by λ. DI and DEO are NaN for more than two classes.
    target_ : Target
        The bound the target set (``"halve"`` resolved to a number).
    certification_limit_ : str or None
        Where the validation rows are too few to certify a DI or DEO target at
        ``confidence`` even at equal rates (at the chosen step's positive rate), why: the
        smallest group, its rows and the level they can certify
        (:func:`faircocco_plugins.targets.certification_limit`); else None.
    step_ : int
        The chosen step (row of ``path_``).
    lam_ : float
        Its λ.
    model_class_ : {"network", "linear"}
        The model class the path trained.
    step_states_ : list of dict
        Each step's weights (``state_dict``, on the host), in the order of ``path_``.
    model_ : torch.nn.Sequential
        The network with the chosen step's weights.
    history_ : FitHistory
        Per-epoch training record of the whole path, refinement included, in the order
        trained.
    classes_, penalty_, penalty_applied_, encoder_, hidden_layer_sizes_, n_features_in_,
    feature_names_in_, n_iter_
        As for :class:`FairCOCCOClassifier`.

    Examples
    --------
    >>> from faircocco_plugins.datasets import make_fairness_dataset
    >>> from faircocco_torch import FairCOCCOPathClassifier
    >>> train = make_fairness_dataset(2000, random_state=0).part("train")
    >>> clf = FairCOCCOPathClassifier(notion="dp", target={"di": 0.8}, random_state=0)
    >>> clf = clf.fit(train.X, train.y, sensitive_features=train.sensitive)  # doctest: +SKIP
    >>> clf.path_[["lam", "accuracy", "di"]]  # doctest: +SKIP
    """

    __init__ = _path_init(FairCOCCOClassifier)


class FairCOCCOPathRegressor(_FairPath, FairCOCCORegressor):
    """The paper's network regressor trained along a path of growing λ to a fairness target.

    The path of :class:`FairCOCCOPathClassifier` for regression: the kept step is the
    non-degenerate step with the lowest validation MSE that meets ``target``, and a step is
    degenerate when its validation R² is at most 0.

    Parameters
    ----------
    target : "halve" or dict
        ``"halve"`` or ``{"adjusted_score": x}`` (DI and DEO need classes and are refused).
    confidence, bins, intersections
        As for :class:`FairCOCCOPathClassifier`; ``bins`` also sets the groups the validation
        split is stratified by, and the others go unused (they bound DI and DEO).
    lam_min, lam_max, lam_factor, warmup_epochs, epochs_per_step, early_stopping, patience,
    refine_steps, model, validation_fraction
        As for :class:`FairCOCCOPathClassifier` (``model``: linear regression for
        ``"linear"``, the lower validation MSE for ``"auto"``).
    penalty, notion, kernel, hidden_layer_sizes, batch_size, learning_rate, weight_decay,
    device, n_threads, verbose, random_state
        As for :class:`FairCOCCORegressor` (``notion`` and ``kernel`` are also the adjusted
        score's).

    Attributes
    ----------
    path_ : pandas.DataFrame
        One row per step, sorted by λ: ``lam``, on the validation rows ``mse`` (in the
        target's units), ``r2``, ``adjusted_score``, ``adjusted_score_bound``, ``degenerate``
        and ``refined``.
    target_, certification_limit_, step_, lam_, model_class_, step_states_, model_, history_
        As for :class:`FairCOCCOPathClassifier` (``certification_limit_`` is None).
    y_mean_, y_scale_, penalty_, penalty_applied_, encoder_, hidden_layer_sizes_,
    n_features_in_, feature_names_in_, n_iter_
        As for :class:`FairCOCCORegressor`.

    Examples
    --------
    >>> from faircocco_plugins.datasets import make_fairness_dataset
    >>> from faircocco_torch import FairCOCCOPathRegressor
    >>> train = make_fairness_dataset(2000, task="regression", random_state=0).part("train")
    >>> reg = FairCOCCOPathRegressor(notion="dp", random_state=0)
    >>> reg = reg.fit(train.X, train.y, sensitive_features=train.sensitive)  # doctest: +SKIP
    """

    __init__ = _path_init(FairCOCCORegressor)
