"""Training threads: fit_fair and the estimators set torch's intra-op threads for the fit only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("faircocco_torch")

from torch import nn  # noqa: E402
from torch_helpers import biased_task  # noqa: E402

from faircocco_torch import FairCOCCOClassifier, FairCOCCORegressor, _training, fit_fair  # noqa: E402


@pytest.fixture
def two_threads() -> Iterator[None]:
    """torch on two intra-op threads (the session runs on one), restored afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def threads_seen(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """torch's thread count at the start of each training epoch."""
    seen: list[int] = []
    train_epoch = _training._train_epoch

    def recording(*args: object, **kwargs: object) -> tuple[float, float, float]:
        seen.append(torch.get_num_threads())
        return train_epoch(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_training, "_train_epoch", recording)
    return seen


def _data(n: int = 300) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    x, y, a = biased_task(n, 0)
    return (
        torch.as_tensor(x, dtype=torch.float32),
        torch.as_tensor(y, dtype=torch.float32),
        torch.as_tensor(a, dtype=torch.float32)[:, None],
    )


def _fit(model: nn.Module, **options: object) -> None:
    fit_fair(
        model, _data(), loss=nn.BCEWithLogitsLoss(), penalty=None, epochs=2, batch_size=100,
        optimizer=lambda parameters: torch.optim.Adam(parameters, lr=0.05), random_state=0,
        progress=False, **options,  # type: ignore[arg-type]
    )  # fmt: skip


def _model() -> nn.Module:
    return nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1), nn.Flatten(0))


@pytest.mark.usefixtures("two_threads")
def test_fit_fair_trains_on_n_threads_and_restores_torchs_count(threads_seen: list[int]) -> None:
    _fit(_model(), n_threads=1)
    assert threads_seen == [1, 1]
    assert torch.get_num_threads() == 2


@pytest.mark.usefixtures("two_threads")
def test_fit_fair_leaves_torchs_count_alone_by_default(threads_seen: list[int]) -> None:
    _fit(_model())
    assert threads_seen == [2, 2]
    assert torch.get_num_threads() == 2


class _Diverging(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(3, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x).flatten() * float("nan")


@pytest.mark.usefixtures("two_threads")
def test_fit_fair_restores_torchs_count_when_training_fails() -> None:
    with pytest.raises(FloatingPointError):
        _fit(_Diverging(), n_threads=1)
    assert torch.get_num_threads() == 2


@pytest.mark.usefixtures("two_threads")
@pytest.mark.parametrize(("n_threads", "expected"), [(None, 2), (1, 1), (2, 2)])
@pytest.mark.parametrize("estimator", [FairCOCCOClassifier, FairCOCCORegressor])
def test_estimators_train_on_n_threads_one_by_default_and_restore_torchs_count(
    estimator: type, n_threads: int | None, expected: int, threads_seen: list[int]
) -> None:
    x, y, a = biased_task(200, 1)
    options = {} if n_threads == 1 else {"n_threads": n_threads}  # 1 is the default
    model = estimator(notion="dp", epochs=2, random_state=0, **options)
    model.fit(x, y, sensitive_features=a)
    assert threads_seen == [expected, expected]
    assert torch.get_num_threads() == 2


BAD_N_THREADS = r"n_threads(=| must be).*integer >= 1"


@pytest.mark.parametrize("n_threads", [0, -1, 1.5, "2"])
def test_a_bad_n_threads_is_a_clear_error(n_threads: object) -> None:
    x, y, a = biased_task(50, 2)
    with pytest.raises((ValueError, TypeError), match=BAD_N_THREADS):
        FairCOCCOClassifier(epochs=1, n_threads=n_threads).fit(x, y, sensitive_features=a)
    with pytest.raises((ValueError, TypeError), match=BAD_N_THREADS):
        fit_fair(
            _model(), _data(50), loss=nn.BCEWithLogitsLoss(), penalty=None, epochs=1,
            progress=False, n_threads=n_threads,  # type: ignore[arg-type]
        )  # fmt: skip
