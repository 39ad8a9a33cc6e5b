"""``ramp_epochs``: the penalty's weight rises linearly to 1, step by step, after the warm-up."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("faircocco_torch")

from torch import nn  # noqa: E402
from torch_helpers import biased_task  # noqa: E402

from faircocco_torch import FairCOCCOClassifier, FairCOCCOPenalty, fit_fair, paper_mlp  # noqa: E402
from faircocco_torch._batches import TripleBatches  # noqa: E402
from faircocco_torch._training import _Ramp  # noqa: E402

ROWS, BATCH = 400, 64  # six batches of 64 rows and one of 16 per epoch


def _data() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    x, y, a = biased_task(ROWS, 0)
    return (
        torch.as_tensor(x, dtype=torch.float32),
        torch.as_tensor(y, dtype=torch.float32),
        torch.as_tensor(a, dtype=torch.float32)[:, None],
    )


class _ConstantTerm(nn.Module):
    """A penalty whose term is ``value`` on every batch (differentiable, gradient zero)."""

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, y_pred: torch.Tensor, sensitive: torch.Tensor, y_true: torch.Tensor):
        return y_pred.sum() * 0.0 + self.value


def _literal_fit(penalty: nn.Module | None, epochs: int, warmup: int, ramp: int) -> nn.Module:
    """fit_fair written out for the tensor case: same seeds, batches, Adam; the penalty's
    term is multiplied by ``min(1, s / (ramp × batches))`` at its ``s``-th step (from 1)."""
    data = _data()
    torch.manual_seed(0)
    model = paper_mlp(3, 1)
    optim = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss = nn.BCEWithLogitsLoss()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(7)
        generator = torch.Generator().manual_seed(7)
        batches = TripleBatches(data, BATCH, shuffle=True, generator=generator)
        if isinstance(penalty, FairCOCCOPenalty):
            penalty.fit(data[2], data[1])
        steps = 0
        for epoch in range(epochs):
            for x, y, s in batches:
                optim.zero_grad(set_to_none=True)
                output = model(x)
                objective = loss(output, y)
                if penalty is not None and epoch >= warmup:
                    steps += 1
                    weight = 1.0 if ramp == 0 else min(1.0, steps / (ramp * len(batches)))
                    term = penalty(torch.sigmoid(output), s, y)
                    objective = objective + (term if weight == 1.0 else weight * term)
                objective.backward()
                optim.step()
    return model


def _fit(penalty: nn.Module | None, epochs: int, **options: int):
    torch.manual_seed(0)
    model = paper_mlp(3, 1)
    history = fit_fair(
        model, _data(), loss=nn.BCEWithLogitsLoss(), penalty=penalty, batch_size=BATCH,
        epochs=epochs, penalty_input=torch.sigmoid, random_state=7, progress=False, **options,
    )  # fmt: skip
    return model, history


def _weights(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def test_the_weight_rises_linearly_to_one_and_stays() -> None:
    ramp = _Ramp(done=0, length=4)
    assert [ramp.weight(k) for k in range(6)] == [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]
    assert [_Ramp(done=2, length=4).weight(k) for k in range(3)] == [0.75, 1.0, 1.0]
    assert _Ramp(done=0, length=0).weight(0) == 1.0


@pytest.mark.parametrize(
    ("penalty", "warmup", "ramp"),
    [(None, 0, 0), (None, 0, 2), ("faircocco", 0, 0), ("faircocco", 0, 2), ("faircocco", 1, 2)],
)
def test_training_matches_the_literal_loop_bit_for_bit(
    penalty: str | None, warmup: int, ramp: int
) -> None:
    """Without a penalty, or with ``ramp_epochs=0``, the steps are those of ``loss + term``."""
    module = None if penalty is None else FairCOCCOPenalty(notion="eo", lam=2.0)
    literal = _literal_fit(module, 4, warmup, ramp)
    module = None if penalty is None else FairCOCCOPenalty(notion="eo", lam=2.0)
    trained, _ = _fit(module, 4, warmup_epochs=warmup, ramp_epochs=ramp)
    assert torch.equal(_weights(trained), _weights(literal))


def test_the_history_records_the_ramped_term() -> None:
    _, history = _fit(_ConstantTerm(3.0), 4, warmup_epochs=1, ramp_epochs=2)
    sizes = np.array([BATCH] * 6 + [ROWS - 6 * BATCH])
    steps = 2 * len(sizes)
    first = np.arange(1, len(sizes) + 1) / steps
    expected = [0.0] + [
        3.0 * float(np.sum(sizes * weights)) / ROWS for weights in (first, first + 0.5)
    ]
    # the term is float32: w × 3 is rounded to its 24-bit mantissa
    assert history.penalty[:3] == pytest.approx(expected, rel=1e-7)
    assert history.penalty[3] == 3.0


def test_ramp_epochs_beyond_the_training_is_an_error() -> None:
    with pytest.raises(ValueError, match="ramp_epochs"):
        _fit(_ConstantTerm(1.0), 3, warmup_epochs=1, ramp_epochs=3)
    x, y, a = biased_task(100, 0)
    model = FairCOCCOClassifier(epochs=4, warmup_epochs=2, ramp_epochs=3)
    with pytest.raises(ValueError, match="ramp_epochs"):
        model.fit(x, y, sensitive_features=a)


def test_the_estimator_passes_ramp_epochs_to_the_training() -> None:
    x, y, a = biased_task(300, 0)
    options = {"notion": "dp", "lam": 1.0, "epochs": 4, "random_state": 0}
    plain = FairCOCCOClassifier(**options).fit(x, y, sensitive_features=a)
    ramped = FairCOCCOClassifier(ramp_epochs=2, **options).fit(x, y, sensitive_features=a)
    # the first epoch's term is about a quarter of the full weight's (weights 1/6 .. 3/6)
    ratio = ramped.history_.penalty[0] / plain.history_.penalty[0]
    assert 0.1 < ratio < 0.6
    assert ramped.get_params()["ramp_epochs"] == 2
