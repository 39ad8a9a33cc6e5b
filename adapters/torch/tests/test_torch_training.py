"""fit_fair, the λ trade-off, and the constraint form."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("faircocco_torch")

from torch import nn  # noqa: E402
from torch.utils.data import TensorDataset  # noqa: E402
from torch_helpers import biased_task  # noqa: E402

from faircocco_plugins import faircocco_score  # noqa: E402
from faircocco_plugins.gaps import equal_opportunity_gap  # noqa: E402
from faircocco_torch import (  # noqa: E402
    DegenerateModelWarning,
    FairCOCCOClassifier,
    FairCOCCOConstraint,
    FairCOCCOPenalty,
    FitHistory,
    fit_fair,
    paper_mlp,
)


def _tensors(n: int, seed: int, center: np.ndarray | None = None) -> tuple[torch.Tensor, ...]:
    x, y, a = biased_task(n, seed)
    return (
        torch.as_tensor(x, dtype=torch.float32),
        torch.as_tensor(y, dtype=torch.float32),
        torch.as_tensor(a, dtype=torch.float32)[:, None],
    )


def _train(seed: int, penalty: nn.Module | None, **options: object) -> tuple[nn.Module, FitHistory]:
    torch.manual_seed(seed)
    model = paper_mlp(3, 1)
    history = fit_fair(
        model,
        _tensors(400, 0),
        loss=nn.BCEWithLogitsLoss(),
        penalty=penalty,
        batch_size=64,
        epochs=3,
        penalty_input=torch.sigmoid,
        random_state=seed,
        progress=False,
        **options,  # type: ignore[arg-type]
    )
    return model, history


def _weights(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def test_same_random_state_same_model_and_history() -> None:
    first, history = _train(1, FairCOCCOPenalty(lam=0.5))
    second, again = _train(1, FairCOCCOPenalty(lam=0.5))
    assert torch.equal(_weights(first), _weights(second))
    assert history.loss == again.loss
    assert history.penalty == again.penalty
    third, _ = _train(2, FairCOCCOPenalty(lam=0.5))
    assert not torch.equal(_weights(first), _weights(third))


@pytest.mark.filterwarnings("ignore::faircocco_torch.DegenerateModelWarning")  # one epoch
def test_random_state_leaves_the_global_generator_alone() -> None:
    model = paper_mlp(3, 1)
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    fit_fair(
        model, _tensors(200, 0), loss=nn.BCEWithLogitsLoss(), penalty=None, epochs=1,
        random_state=0, progress=False,
    )  # fmt: skip
    assert torch.equal(torch.rand(3), expected)


def test_history_records_every_epoch() -> None:
    _, history = _train(0, FairCOCCOPenalty(lam=1.0), val_data=_tensors(200, 5))
    frame = history.to_frame()
    assert list(frame.columns) == [
        "loss", "penalty", "statistic", "val_loss", "val_penalty", "val_statistic",
        "epoch_seconds",
    ]  # fmt: skip
    assert len(frame) == 3
    assert np.allclose(frame["penalty"], frame["statistic"])
    assert (frame["val_statistic"] > 0).all()


def test_without_penalty_the_statistic_is_not_recorded() -> None:
    _, history = _train(0, None)
    assert history.penalty == [0.0, 0.0, 0.0]
    assert all(np.isnan(history.statistic))


def test_a_dataset_gives_the_same_model_as_tensors() -> None:
    data = _tensors(400, 0)

    def run(train_data: object) -> torch.Tensor:
        torch.manual_seed(0)
        model = paper_mlp(3, 1)
        fit_fair(
            model, train_data, loss=nn.BCEWithLogitsLoss(), penalty=FairCOCCOPenalty(),
            batch_size=100, epochs=2, random_state=0, progress=False,
        )  # fmt: skip
        return _weights(model)

    # the same batches in the same order, and the penalty fitted on every training row
    from_dataset, from_tensors = run(TensorDataset(*data)), run(data)
    assert torch.equal(from_dataset, from_tensors)


def test_early_stopping_restores_the_best_epoch() -> None:
    torch.manual_seed(0)
    model = paper_mlp(3, 1)
    history = fit_fair(
        model,
        _tensors(300, 0),
        loss=nn.BCEWithLogitsLoss(),
        penalty=None,
        optimizer=lambda params: torch.optim.Adam(params, lr=0.05),
        batch_size=32,
        epochs=60,
        val_data=_tensors(100, 9),
        early_stopping=3,
        random_state=0,
        progress=False,
    )
    assert history.stopped_early
    assert history.best_epoch is not None
    assert len(history.val_loss) == history.best_epoch + 4
    assert history.val_loss[history.best_epoch] == min(history.val_loss)


def test_warmup_epochs_train_without_the_penalty() -> None:
    _, history = _train(0, FairCOCCOPenalty(lam=1.0), warmup_epochs=2)
    assert history.penalty[:2] == [0.0, 0.0]
    assert history.penalty[2] > 0


def test_a_single_row_remainder_is_merged() -> None:
    from faircocco_torch._batches import TripleBatches

    data = _tensors(129, 0)
    for source in (data, TensorDataset(*data)):
        batches = TripleBatches(source, 64, shuffle=True, generator=torch.Generator())
        sizes = [int(x.shape[0]) for x, _, _ in batches]
        assert sizes == [64, 65] and len(batches) == 2
    torch.manual_seed(0)
    history = fit_fair(
        paper_mlp(3, 1), data, loss=nn.BCEWithLogitsLoss(), penalty=FairCOCCOPenalty(),
        batch_size=64, epochs=1, progress=False,
    )  # fmt: skip
    assert history.penalty[0] > 0


def test_argument_errors() -> None:
    data = _tensors(100, 0)
    model = paper_mlp(3, 1)
    loss = nn.BCEWithLogitsLoss()
    with pytest.raises(ValueError, match="early_stopping needs val_data"):
        fit_fair(model, data, loss=loss, penalty=None, early_stopping=2, progress=False)
    with pytest.raises(ValueError, match="same number of rows"):
        fit_fair(model, (data[0], data[1][:50], data[2]), loss=loss, penalty=None)
    with pytest.raises(TypeError, match="tuple"):
        fit_fair(model, data[0], loss=loss, penalty=None)
    with pytest.raises(ValueError, match="batch_size=1"):
        fit_fair(model, data, loss=loss, penalty=None, batch_size=1)
    with pytest.raises(TypeError, match=r"model must be a torch\.nn\.Module"):
        fit_fair(lambda x: x, data, loss=loss, penalty=None)  # type: ignore[arg-type]


def test_divergence_is_reported() -> None:
    data = _tensors(100, 0)
    with pytest.raises(FloatingPointError, match="Lower the learning rate"):
        fit_fair(
            paper_mlp(3, 1), data, loss=lambda out, y: (out * float("nan")).mean(),
            penalty=None, epochs=1, progress=False,
        )  # fmt: skip


def test_nan_outputs_under_the_penalty_are_reported_as_divergence_naming_lam_and_rate() -> None:
    """A diverged model's NaN outputs reach the penalty first, whose input check would blame
    the data; training reports the divergence with the settings that cause it instead."""
    data = _tensors(100, 0)
    model = paper_mlp(3, 1)
    with torch.no_grad():
        model[0].weight.fill_(float("inf"))  # every output is NaN
    message = r"diverged in epoch 0.*lam=2\.0.*learning_rate=0\.05"
    with pytest.raises(FloatingPointError, match=message):
        fit_fair(
            model, data, loss=nn.BCEWithLogitsLoss(),
            penalty=FairCOCCOPenalty(notion="dp", lam=2.0),
            optimizer=lambda params: torch.optim.SGD(params, lr=0.05), epochs=1, progress=False,
        )  # fmt: skip


def test_larger_lambda_is_fairer_at_a_small_accuracy_cost() -> None:
    """On a task whose best unregularised classifier uses the attribute, raising λ lowers the
    test FairCOCCO score and the true-positive-rate gap step by step."""
    x_train, y_train, a_train = biased_task(1000, 0)
    x_test, y_test, a_test = biased_task(2000, 1)
    scores, gaps, accuracies = [], [], []
    for lam in (0.0, 2.0, 10.0):
        clf = FairCOCCOClassifier(
            lam=lam, epochs=20, batch_size=128, learning_rate=1e-2, random_state=0
        )
        if lam == 0.0:
            clf.set_params(penalty=None)
        clf.fit(x_train, y_train, sensitive_features=a_train)
        probability = clf.predict_proba(x_test)[:, 1]
        y_hat = (probability > 0.5).astype(int)
        scores.append(faircocco_score(probability, a_test, y_true=y_test, notion="eo"))
        gaps.append(equal_opportunity_gap(y_test == 1, y_hat == 1, a_test))
        accuracies.append(float(np.mean(y_hat == y_test)))
    noise_score, noise_gap = 0.01, 0.03
    assert scores[1] <= scores[0] + noise_score and scores[2] <= scores[1] + noise_score
    assert gaps[1] <= gaps[0] + noise_gap and gaps[2] <= gaps[1] + noise_gap
    assert scores[2] < 0.5 * scores[0]
    assert gaps[2] < 0.5 * gaps[0]
    assert accuracies[2] >= accuracies[0] - 0.05


def test_constraint_meets_its_bound_on_validation_batches() -> None:
    bound = 0.005
    train = _tensors(3000, 0)
    validation = _tensors(1024, 2)

    def final_validation_statistic(penalty: FairCOCCOConstraint | FairCOCCOPenalty) -> float:
        torch.manual_seed(0)
        model = paper_mlp(3, 1)
        history = fit_fair(
            model,
            train,
            loss=nn.BCEWithLogitsLoss(),
            penalty=penalty,
            optimizer=torch.optim.Adam(model.parameters(), lr=3e-3),
            batch_size=256,
            epochs=20,
            val_data=validation,
            penalty_input=torch.sigmoid,
            random_state=0,
            progress=False,
        )
        return history.val_statistic[-1]

    constraint = FairCOCCOConstraint(notion="eo", bound=bound, multiplier_lr=100.0)
    constrained = final_validation_statistic(constraint)
    # the same statistic, recorded but not enforced: 0.036, seven times the bound
    unconstrained = final_validation_statistic(FairCOCCOPenalty(notion="eo", lam=0.0))
    # enforced on training batches: on validation batches it ends 10% over the bound (measured)
    assert constrained <= 1.15 * bound
    assert unconstrained > 5 * bound
    assert len(constraint.multiplier_history_) == 20 * len(range(0, 3000, 256))
    assert min(constraint.multiplier_history_) >= 0.0
    assert max(constraint.multiplier_history_) > 0.0


def test_constraint_without_violation_keeps_the_multiplier_at_zero() -> None:
    constraint = FairCOCCOConstraint(notion="dp", bound=10.0)
    a = torch.rand(64, 1)
    constraint(a[:, 0] + 0.01 * torch.randn(64), a)
    assert constraint.multiplier_history_ == [0.0]
    constraint.eval()
    constraint(a[:, 0], a)
    assert len(constraint.multiplier_history_) == 1
    with pytest.raises(ValueError, match="bound=-1"):
        FairCOCCOConstraint(bound=-1)


def _collapsed_model() -> nn.Module:
    """A network whose last layer is zero: one logit, so one class, for every row."""
    torch.manual_seed(0)
    model = paper_mlp(3, 1)
    last = [m for m in model.modules() if isinstance(m, nn.Linear)][-1]
    nn.init.zeros_(last.weight)
    nn.init.constant_(last.bias, -1.0)
    return model


@pytest.mark.parametrize(
    ("loss", "transform", "expected"),
    [
        (nn.BCEWithLogitsLoss(), torch.sigmoid, "predicts one class for all 400 training rows"),
        (nn.MSELoss(), None, "gives the same output for all 400 training rows"),
    ],
)
def test_fit_fair_warns_when_the_trained_model_is_degenerate_naming_the_penalty(
    loss: nn.Module, transform: object, expected: str
) -> None:
    model = _collapsed_model()
    # a learning rate of 0 leaves the collapsed network as it is
    with pytest.warns(DegenerateModelWarning, match=expected) as caught:
        fit_fair(
            model,
            _tensors(400, 0),
            loss=loss,
            penalty=FairCOCCOPenalty(lam=7.0),
            optimizer=lambda params: torch.optim.SGD(params, lr=0.0),
            batch_size=64,
            epochs=1,
            penalty_input=transform,  # type: ignore[arg-type]
            progress=False,
        )
    assert "lam=7.0" in str(caught[0].message)


def test_fit_fair_does_not_warn_about_a_model_that_separates_the_classes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateModelWarning)
        model, _ = _train(0, FairCOCCOPenalty(lam=1.0))
    with torch.no_grad():
        logits = model(_tensors(400, 0)[0])
    assert bool((logits > 0).any()) and bool((logits <= 0).any())


def test_an_estimator_warns_once_about_a_collapsed_network() -> None:
    x, y, a = biased_task(300, 0)
    estimator = FairCOCCOClassifier(penalty="faircocco", lam=1.0, learning_rate=0.0, epochs=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(x, y, sensitive_features=a)
    degenerate = [w for w in caught if issubclass(w.category, DegenerateModelWarning)]
    assert len(degenerate) <= 1
    assert all("FairCOCCOClassifier" in str(w.message) for w in degenerate)
