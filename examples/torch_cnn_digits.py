"""A small CNN trained with the FairCOCCO penalty on images with a spurious group cue.

Synthetic stand-in for the paper's CelebA experiment (CelebA cannot be distributed here). It
uses scikit-learn's bundled 8x8 digits. The task is "is the digit 5 or more?", on noisy
images. Every image belongs to a group (the sensitive attribute), and group 1 is drawn
mostly from the positive class. Group 1's images carry a faint background tint in a second
channel, so the network can see the group, and using it as a prior raises accuracy. The
unregularised CNN does exactly that, and its true-positive rates then differ by group.

The FairCOCCO penalty (equalised odds, on predicted probabilities) removes that dependence.
As lambda grows, the test FairCOCCO score and the true-positive-rate gap (DEO) fall, at a
small cost in accuracy. The first two epochs train on the loss alone (``warmup_epochs``):
a freshly initialised CNN outputs nearly constant probabilities, and FairCOCCO's gradient
grows as their spread shrinks.

Run it from the repository root: ``python examples/torch_cnn_digits.py`` (about 15 s on 2 cores).
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.datasets import load_digits
from torch import nn

from faircocco_plugins import faircocco_score
from faircocco_plugins.gaps import equal_opportunity_gap
from faircocco_torch import FairCOCCOPenalty, fit_fair

LAMBDAS = (0.0, 2.0, 5.0, 10.0)


def tinted_digits(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Two-channel images (noisy digit, group tint), labels and the group of each image."""
    digits = load_digits()
    rng = np.random.default_rng(seed)
    images = digits.images / 16.0
    label = (digits.target >= 5).astype(np.float32)
    group = (rng.random(len(label)) < np.where(label == 1, 0.8, 0.2)).astype(np.float32)
    digit = np.clip(images + rng.normal(0.0, 0.3, images.shape), 0.0, 1.0)
    tint = 0.15 * group[:, None, None] * (1.0 - images) + rng.normal(0.0, 0.1, images.shape)
    x = np.stack([digit, tint], axis=1).astype(np.float32)
    return torch.tensor(x), torch.tensor(label), torch.tensor(group)[:, None]


def small_cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(2, 8, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(8, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 4 * 4, 32),
        nn.ReLU(),
        nn.Linear(32, 1),
        nn.Flatten(0),
    )


def main() -> None:
    x, y, group = tinted_digits()
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0))
    train, test = order[:1200], order[1200:]
    print(f"{'lambda':>6}  {'accuracy':>8}  {'DEO':>6}  {'FairCOCCO score':>15}")
    for lam in LAMBDAS:
        torch.manual_seed(0)
        model = small_cnn()
        fit_fair(
            model,
            (x[train], y[train], group[train]),
            loss=nn.BCEWithLogitsLoss(),
            penalty=FairCOCCOPenalty(notion="eo", lam=lam) if lam > 0 else None,
            optimizer=torch.optim.Adam(model.parameters(), lr=3e-3),
            batch_size=128,
            epochs=15,
            warmup_epochs=2,
            penalty_input=torch.sigmoid,  # the paper penalises probabilities
            random_state=0,
            progress=False,
        )
        model.eval()
        with torch.no_grad():
            probability = torch.sigmoid(model(x[test])).numpy()
        y_test, group_test = y[test].numpy(), group[test, 0].numpy()
        y_hat = (probability > 0.5).astype(np.float32)
        accuracy = float(np.mean(y_hat == y_test))
        # DEO: the gap in true-positive rates between the groups
        gap = equal_opportunity_gap(y_test == 1, y_hat == 1, group_test)
        score = faircocco_score(probability, group_test, y_true=y_test, notion="eo")
        print(f"{lam:>6.2f}  {accuracy:>8.3f}  {gap:>6.3f}  {score:>15.3f}")


if __name__ == "__main__":
    main()
