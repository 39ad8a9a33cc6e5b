"""``fit_fair``: a training loop for any ``nn.Module`` with a fairness penalty."""

from __future__ import annotations

import copy
import math
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import torch
from torch import nn
from tqdm.auto import tqdm

from faircocco_plugins.plugins import DegenerateModelWarning, Interval, check_params

from ._base import FairnessPenalty
from ._batches import TripleBatches

Loss = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
Penalty = Callable[..., torch.Tensor]
OptimizerFactory = Callable[[Iterator[nn.Parameter]], torch.optim.Optimizer]


@dataclass
class FitHistory:
    """Per-epoch record of a :func:`fit_fair` run.

    Attributes
    ----------
    loss : list of float
        Mean training task loss of each epoch.
    penalty : list of float
        Mean training penalty term (what the penalty module returned; ``λ I_F`` for a penalty,
        ``μ (I_F − bound)`` for a constraint).
    statistic : list of float
        Mean training batch statistic (unweighted; NaN for modules that do not report one).
    val_loss, val_penalty, val_statistic : list of float
        The same on the validation batches (empty without ``val_data``), with the model and the
        penalty in evaluation mode.
    epoch_seconds : list of float
        Wall time of each epoch's training pass.
    best_epoch : int or None
        Epoch (0-based) whose weights were restored by early stopping.
    stopped_early : bool
        Whether early stopping ended training before ``epochs``.

    Examples
    --------
    >>> from faircocco_torch import FitHistory
    >>> history = FitHistory(loss=[0.7, 0.5], penalty=[0.1, 0.05])
    >>> history.to_frame().shape
    (2, 2)
    """

    loss: list[float] = field(default_factory=list)
    penalty: list[float] = field(default_factory=list)
    statistic: list[float] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    val_penalty: list[float] = field(default_factory=list)
    val_statistic: list[float] = field(default_factory=list)
    epoch_seconds: list[float] = field(default_factory=list)
    best_epoch: int | None = None
    stopped_early: bool = False

    def to_frame(self) -> pd.DataFrame:
        """The per-epoch lists as a DataFrame indexed by epoch (empty lists are left out).

        Returns
        -------
        pandas.DataFrame
        """
        columns = {
            name: values
            for name, values in (
                ("loss", self.loss),
                ("penalty", self.penalty),
                ("statistic", self.statistic),
                ("val_loss", self.val_loss),
                ("val_penalty", self.val_penalty),
                ("val_statistic", self.val_statistic),
                ("epoch_seconds", self.epoch_seconds),
            )
            if values
        }
        frame = pd.DataFrame(columns)
        frame.index.name = "epoch"
        return frame


#: fit_fair's numeric arguments (warmup_epochs's bound depends on epochs).
_TRAINING_LIMITS = {
    "batch_size": Interval("integer", 2),
    "epochs": Interval("integer", 1),
    "early_stopping": Interval("integer", 1, optional=True),
    "random_state": Interval("integer", optional=True),
    "n_threads": Interval("integer", 1, optional=True),
}


#: Outputs whose spread over the training rows is at most this fraction of their scale (at
#: least 1) are one output for every row.
CONSTANT_OUTPUT = 1e-6


def fit_fair(
    model: nn.Module,
    train_data: Any,
    *,
    loss: Loss,
    penalty: Penalty | None,
    optimizer: torch.optim.Optimizer | OptimizerFactory | None = None,
    batch_size: int = 256,
    epochs: int = 10,
    val_data: Any = None,
    early_stopping: int | None = None,
    monitor: str = "objective",
    penalty_input: Callable[[torch.Tensor], torch.Tensor] | None = None,
    warmup_epochs: int = 0,
    random_state: int | None = None,
    progress: bool = True,
    n_threads: int | None = None,
) -> FitHistory:
    """Train any ``nn.Module`` on ``loss + penalty``, mini-batch by mini-batch.

    Each step computes ``output = model(X)``, the task loss ``loss(output, y)`` and the
    fairness term ``penalty(penalty_input(output), sensitive, y)`` on the same batch, and takes
    one optimiser step on their sum. Every penalty of this package has that call signature, so
    the loop, the network and the batches are identical across methods.

    Parameters
    ----------
    model : torch.nn.Module
        The network. Batches are moved to the device of its parameters.
    train_data : tuple (X, y, sensitive) of tensors, or torch Dataset
        Training data; a Dataset must yield ``(x, y, sensitive)`` triples.
    loss : callable
        ``loss(output, y)``, a scalar tensor (e.g. ``nn.BCEWithLogitsLoss()``).
    penalty : nn.Module or callable, or None
        ``penalty(y_pred, sensitive, y_true)``, a scalar tensor; ``None`` trains without one.
        A penalty of this package is first fitted on the training set's sensitive attributes
        and outcomes (:meth:`FairnessPenalty.fit`) when ``train_data`` is a tensor triple.
    optimizer : torch.optim.Optimizer or callable, optional
        An optimiser over ``model``'s parameters, or a factory ``params -> optimiser``; default
        Adam with learning rate 1e-3.
    batch_size : int
        Rows per batch (the paper selects it from {64, 128, 256}). A final batch of one row is
        merged into the previous one.
    epochs : int
        Passes over the training data.
    val_data : tuple or Dataset, optional
        Validation data, scored after each epoch in batches of ``batch_size`` (the statistic
        depends on the batch size, so it is measured at the training one).
    early_stopping : int, optional
        Patience: stop after this many epochs without improvement of the monitored validation
        quantity and restore the best weights. Needs ``val_data``.
    monitor : {"objective", "loss"}
        What early stopping watches: validation loss plus penalty term, or the loss alone
        (better for :class:`FairCOCCOConstraint`, whose term changes with the multiplier).
    penalty_input : callable, optional
        Maps the model output to the penalty's ``y_pred``, e.g. ``torch.sigmoid`` to penalise
        probabilities of a logit model (the paper's choice); default: the output itself.
    warmup_epochs : int
        Train the first ``warmup_epochs`` of the ``epochs`` on the loss alone. FairCOCCO's
        statistic does not change when predictions are rescaled, so its gradient grows as the
        predictions' spread shrinks; on the near-constant outputs of a fresh network a large
        ``λ`` can then dominate the loss and keep them constant. A few warm-up epochs avoid
        that. Default 0 (the paper's setting).
    random_state : int, optional
        Seeds the batch order (a dedicated generator) and torch's global generator for the
        duration of the call (dropout and the like), so that training on CPU is reproducible.
        The global generator is restored afterwards.
    progress : bool
        Show a tqdm progress bar with the running loss and penalty.
    n_threads : int, optional
        torch's intra-op threads for the duration of the call, restored afterwards; default:
        torch's own setting (one per core). Small networks such as the paper's train fastest
        on one thread: about 4 to 6 times faster than on two on a 2-core machine, idle or
        not (see the performance page, "Training threads").

    Returns
    -------
    FitHistory
        Per-epoch means of the loss, the penalty term and the statistic.

    Raises
    ------
    FloatingPointError
        When training diverges (the objective or the model's output becomes NaN or
        infinite); the message names the penalty weight and the learning rate.

    Warns
    -----
    DegenerateModelWarning
        When the trained model predicts one class for every training row (told from ``loss``:
        ``BCEWithLogitsLoss``, ``BCELoss`` or ``CrossEntropyLoss``), or gives one output for
        every row, naming the penalty and its ``lam``.

    Examples
    --------
    >>> import torch
    >>> from torch import nn
    >>> from faircocco_torch import FairCOCCOPenalty, fit_fair
    >>> torch.manual_seed(0)  # doctest: +ELLIPSIS
    <torch._C.Generator object at ...>
    >>> X = torch.randn(512, 4)
    >>> sex = (X[:, :1] > 0).float()
    >>> y = (X[:, 1] + X[:, 0] > 0).float()
    >>> model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1), nn.Flatten(0))
    >>> history = fit_fair(
    ...     model, (X, y, sex), loss=nn.BCEWithLogitsLoss(), penalty=FairCOCCOPenalty(lam=1.0),
    ...     penalty_input=torch.sigmoid, batch_size=128, epochs=2, random_state=0, progress=False,
    ... )
    >>> len(history.loss)
    2
    """
    check_params(
        {
            "batch_size": batch_size,
            "epochs": epochs,
            "early_stopping": early_stopping,
            "random_state": random_state,
            "n_threads": n_threads,
        },
        _TRAINING_LIMITS,
    )
    check_params(
        {"warmup_epochs": warmup_epochs}, {"warmup_epochs": Interval("integer", 0, epochs)}
    )
    if early_stopping is not None and val_data is None:
        raise ValueError("early_stopping needs val_data to monitor.")
    if monitor not in ("objective", "loss"):
        raise ValueError(f"monitor={monitor!r} is not valid; expected 'objective' or 'loss'.")
    device = _device_of(model)
    transform = penalty_input if penalty_input is not None else _identity
    with _seeded(random_state, device), torch_threads(n_threads):
        generator = None
        if random_state is not None:
            generator = torch.Generator().manual_seed(random_state)
        train = TripleBatches(train_data, batch_size, shuffle=True, generator=generator)
        val = None
        if val_data is not None:
            val = TripleBatches(
                val_data, batch_size, shuffle=False, generator=None, argument="val_data"
            )
        if isinstance(penalty, FairnessPenalty):
            penalty.fit(*train.sensitive_and_outcomes())
        optim = _optimizer(optimizer, model)
        history = FitHistory()
        best_score = math.inf
        best_state: dict[str, Any] | None = None
        waited = 0
        bar = tqdm(total=epochs * len(train), desc="fit_fair", disable=not progress, leave=False)
        try:
            for epoch in range(epochs):
                started = time.perf_counter()
                active = None if epoch < warmup_epochs else penalty
                try:
                    means = _train_epoch(model, train, loss, active, transform, optim, device, bar)
                except _NonFiniteOutput:
                    raise _diverged(
                        "the model's output became NaN or infinite", epoch, active, optim
                    ) from None
                history.epoch_seconds.append(time.perf_counter() - started)
                history.loss.append(means[0])
                history.penalty.append(means[1])
                history.statistic.append(means[2])
                if not all(math.isfinite(v) for v in means[:2]):
                    raise _diverged(
                        f"the training objective became {means[0] + means[1]}", epoch, active, optim
                    )
                if val is None:
                    continue
                v_loss, v_penalty, v_stat = _evaluate(model, val, loss, penalty, transform, device)
                history.val_loss.append(v_loss)
                history.val_penalty.append(v_penalty)
                history.val_statistic.append(v_stat)
                bar.set_postfix(
                    epoch=epoch,
                    loss=f"{means[0]:.4f}",
                    penalty=f"{means[1]:.4f}",
                    val_loss=f"{v_loss:.4f}",
                )
                if early_stopping is None:
                    continue
                score = v_loss + (v_penalty if monitor == "objective" else 0.0)
                if score < best_score:
                    best_score, waited = score, 0
                    history.best_epoch = epoch
                    best_state = copy.deepcopy(model.state_dict())
                else:
                    waited += 1
                    if waited >= early_stopping:
                        history.stopped_early = epoch < epochs - 1
                        break
        finally:
            bar.close()
        if best_state is not None:
            model.load_state_dict(best_state)
        what = _degeneracy(model, train, loss, transform, device)
    if what is not None:
        training = "change the learning rate or epochs"
        advice = training if penalty is None else f"weaken the penalty (lower lam) or {training}"
        warnings.warn(
            f"fit_fair: the trained model {what} (penalty={penalty!r}); {advice}.",
            DegenerateModelWarning,
            stacklevel=2,
        )
    return history


def _degeneracy(
    model: nn.Module,
    batches: TripleBatches,
    loss: Loss,
    transform: Callable[[torch.Tensor], torch.Tensor],
    device: torch.device,
) -> str | None:
    """What makes the trained model useless on its training rows, or None: one predicted class
    (told from the loss: logits, probabilities or class scores), or one output for every row."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        outputs = torch.cat([model(_to(x, device)).detach() for x, _, _ in batches])
    model.train(was_training)
    n = int(outputs.shape[0])
    labels = None
    if isinstance(loss, nn.BCEWithLogitsLoss):
        labels = outputs > 0
    elif isinstance(loss, nn.BCELoss):
        labels = outputs > 0.5
    elif isinstance(loss, nn.CrossEntropyLoss) and outputs.ndim == 2:
        labels = outputs.argmax(dim=1)
    if labels is not None and bool((labels == labels[:1]).all()):
        return f"predicts one class for all {n} training rows"
    values = transform(outputs).double().reshape(n, -1)
    scale = max(1.0, float(values.square().mean().sqrt()))
    if float(values.std(dim=0, unbiased=False).max()) <= CONSTANT_OUTPUT * scale:
        return f"gives the same output for all {n} training rows"
    return None


def _train_epoch(
    model: nn.Module,
    batches: TripleBatches,
    loss: Loss,
    penalty: Penalty | None,
    transform: Callable[[torch.Tensor], torch.Tensor],
    optim: torch.optim.Optimizer,
    device: torch.device,
    bar: Any,
) -> tuple[float, float, float]:
    model.train()
    if isinstance(penalty, nn.Module):
        penalty.train()
    sums = torch.zeros(3, dtype=torch.float64, device=device)
    rows = 0
    every = max(1, len(batches) // 10)
    for step, (x, y, s) in enumerate(batches):
        x, y, s = _to(x, device), _to(y, device), _to(s, device)
        optim.zero_grad(set_to_none=True)
        output = model(x)
        task = loss(output, y)
        objective = task
        n = int(y.shape[0])
        term_value = torch.zeros((), device=device)
        stat_value = torch.full((), math.nan, device=device)
        if penalty is not None:
            try:
                term = penalty(transform(output), s, y)
            except ValueError:
                # a penalty that validates its inputs rejects a diverged model's NaN outputs
                if not bool(torch.isfinite(output.detach()).all()):
                    raise _NonFiniteOutput from None
                raise
            objective = task + term
            term_value = term.detach()
            last = getattr(penalty, "last_statistic_", None)
            if isinstance(last, torch.Tensor):
                stat_value = last.to(device)
        objective.backward()
        optim.step()
        parts = [task.detach(), term_value, stat_value]
        sums += n * torch.stack([p.to(sums.dtype).reshape(()) for p in parts])
        rows += n
        bar.update(1)
        if step % every == 0 and not bar.disable:
            current = (sums / rows).tolist()
            bar.set_postfix(loss=f"{current[0]:.4f}", penalty=f"{current[1]:.4f}")
    means = (sums / max(rows, 1)).tolist()
    return means[0], means[1], means[2]


def _evaluate(
    model: nn.Module,
    batches: TripleBatches,
    loss: Loss,
    penalty: Penalty | None,
    transform: Callable[[torch.Tensor], torch.Tensor],
    device: torch.device,
) -> tuple[float, float, float]:
    """Mean loss, penalty term and statistic over validation batches, in evaluation mode."""
    model.eval()
    was_training = isinstance(penalty, nn.Module) and penalty.training
    if isinstance(penalty, nn.Module):
        penalty.eval()
    sums = [0.0, 0.0, 0.0]
    rows = 0
    try:
        with torch.no_grad():
            for x, y, s in batches:
                x, y, s = _to(x, device), _to(y, device), _to(s, device)
                output = model(x)
                n = int(y.shape[0])
                sums[0] += n * float(loss(output, y))
                if isinstance(penalty, FairnessPenalty):
                    term, stat = penalty.evaluate(transform(output), s, y)
                    sums[1] += n * float(term)
                    sums[2] += n * float(stat)
                elif penalty is not None:
                    sums[1] += n * float(penalty(transform(output), s, y))
                    sums[2] = math.nan
                else:
                    sums[2] = math.nan
                rows += n
    finally:
        if isinstance(penalty, nn.Module) and was_training:
            penalty.train()
    return sums[0] / rows, sums[1] / rows, sums[2] / rows


class _NonFiniteOutput(Exception):
    """The model's output on a training batch is NaN or infinite: training diverged."""


def _diverged(
    what: str, epoch: int, penalty: Penalty | None, optim: torch.optim.Optimizer
) -> FloatingPointError:
    """The error for diverged training, naming the settings that usually cause it."""
    lam = getattr(penalty, "lam", None)
    weight = "no penalty" if penalty is None else f"lam={lam}" if lam is not None else "a penalty"
    rate = optim.param_groups[0].get("lr")
    return FloatingPointError(
        f"training diverged in epoch {epoch}: {what} (with {weight} and learning_rate={rate}). "
        "Lower the learning rate or the penalty weight."
    )


def _identity(output: torch.Tensor) -> torch.Tensor:
    return output


def _to(value: Any, device: torch.device) -> Any:
    return value.to(device, non_blocking=True) if isinstance(value, torch.Tensor) else value


def _device_of(model: nn.Module) -> torch.device:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module; got {type(model).__name__}.")
    for parameter in model.parameters():
        return parameter.device
    raise ValueError("model has no parameters to train.")


def _optimizer(optimizer: Any, model: nn.Module) -> torch.optim.Optimizer:
    if optimizer is None:
        return torch.optim.Adam(model.parameters(), lr=1e-3)
    if isinstance(optimizer, torch.optim.Optimizer):
        return optimizer
    if callable(optimizer):
        built = optimizer(model.parameters())
        if not isinstance(built, torch.optim.Optimizer):
            raise TypeError(
                "optimizer factory must return a torch.optim.Optimizer; got "
                f"{type(built).__name__}."
            )
        return built
    raise TypeError(
        "optimizer must be None, a torch.optim.Optimizer or a factory params -> optimizer; got "
        f"{type(optimizer).__name__}."
    )


@contextmanager
def _seeded(random_state: int | None, device: torch.device) -> Iterator[None]:
    """Seed torch's generators inside the block and restore them afterwards."""
    if random_state is None:
        yield
        return
    devices = [device.index or 0] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(random_state)
        yield


@contextmanager
def torch_threads(n_threads: int | None) -> Iterator[None]:
    """torch's intra-op threads set to ``n_threads`` inside the block and restored afterwards
    (``None``: left as they are).

    With torch's OpenMP builds the count is the calling thread's (and the default of threads
    started later), so the block scopes the work of the thread that runs it.
    """
    if n_threads is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(n_threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)
