"""Equal opportunity (``notion="eopp"``) as a training penalty: DP's penalty on the rows with a
positive outcome, and a network trained under it is fairer on those rows."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("faircocco_torch")

from torch_helpers import biased_task  # noqa: E402

from faircocco_plugins import faircocco_score  # noqa: E402
from faircocco_plugins.gaps import equal_opportunity_gap  # noqa: E402
from faircocco_torch import FairCOCCOClassifier, FairCOCCOPenalty  # noqa: E402


def test_the_penalty_is_dp_s_on_the_positive_rows_with_integer_labels() -> None:
    _, y, a = biased_task(600, 0)
    sensitive = torch.as_tensor(a, dtype=torch.float32)[:, None]
    labels = torch.as_tensor(y)  # int64 class labels, read as they are
    positive = labels == 1
    eopp = FairCOCCOPenalty(notion="eopp").fit(sensitive, labels)
    dp = FairCOCCOPenalty(notion="dp").fit(sensitive[positive])
    pred = torch.rand(128, generator=torch.Generator().manual_seed(0)).requires_grad_()
    batch = slice(0, 128)
    value = eopp(pred, sensitive[batch], labels[batch])
    kept = positive[batch]
    expected = dp(pred[kept], sensitive[batch][kept]).detach()
    assert float(value.detach()) == pytest.approx(float(expected), rel=1e-6)
    value.backward()
    assert pred.grad is not None
    assert torch.all(pred.grad[~kept] == 0) and torch.any(pred.grad[kept] != 0)


def test_a_batch_without_two_positive_rows_gives_zero() -> None:
    penalty = FairCOCCOPenalty(notion="eopp").fit(torch.tensor([[0.0], [1.0]] * 20), torch.ones(40))
    pred = torch.rand(8).requires_grad_()
    labels = torch.tensor([0, 0, 0, 1, 0, 0, 0, 0])
    value = penalty(pred, torch.tensor([[0.0], [1.0]] * 4), labels)
    assert float(value.detach()) == 0.0
    value.backward()
    assert pred.grad is not None and torch.all(pred.grad == 0)


def test_training_under_it_closes_the_true_positive_rate_gap() -> None:
    x_train, y_train, a_train = biased_task(1000, 0)
    x_test, y_test, a_test = biased_task(2000, 1)
    scores, gaps = [], []
    for lam in (0.0, 10.0):
        clf = FairCOCCOClassifier(
            notion="eopp", lam=lam, epochs=20, batch_size=128, learning_rate=1e-2, random_state=0
        )
        if lam == 0.0:
            clf.set_params(penalty=None)
        clf.fit(x_train, y_train, sensitive_features=a_train)
        probability = clf.predict_proba(x_test)[:, 1]
        scores.append(faircocco_score(probability, a_test, y_true=y_test, notion="eopp"))
        gaps.append(equal_opportunity_gap(y_test == 1, probability > 0.5, a_test))
    assert scores[1] < 0.5 * scores[0]
    assert gaps[1] < 0.5 * gaps[0]
    assert np.isfinite(scores).all()
