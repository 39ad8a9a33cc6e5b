"""The FairCOCCO penalty in a plain PyTorch training loop, with mixed sensitive attributes.

Synthetic data: a loan-approval-like task whose label depends on the features and, directly,
on two sensitive attributes of different types (sex, a string column, and age, a number);
race (a categorical) plays no role. ``SensitiveEncoder`` turns the three attributes into one
float tensor that batches carry alongside the features. The loop adds ``λ I_F`` (FairCOCCO,
equalised odds, on predicted probabilities) to the cross-entropy, batch by batch, and the test
report shows the joint and per-attribute scores with and without the penalty.

Run it from the repository root: ``python examples/torch_training_loop.py`` (about 10 s).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from faircocco_plugins import faircocco_report
from faircocco_torch import FairCOCCOPenalty, SensitiveEncoder


def loan_table(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    people = pd.DataFrame(
        {
            "sex": rng.choice(["female", "male"], n),
            "age": rng.uniform(18, 80, n),
            "race": pd.Categorical(rng.choice(["a", "b", "c"], n)),
        }
    )
    income = rng.normal(size=n) + 0.5 * (people["sex"] == "male") + 0.01 * people["age"]
    debt = rng.normal(size=n)
    features = np.column_stack(
        [income, debt, people["sex"] == "male", people["age"] / 80, rng.normal(size=(n, 3))]
    ).astype(np.float32)
    score = income - debt + 0.8 * (people["sex"] == "male") + 0.02 * (people["age"] - 50)
    label = (score + rng.normal(scale=0.5, size=n) > 0.5).astype(np.float32)
    return features, label, people


def train(lam: float, loader: DataLoader, n_features: int) -> nn.Module:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(n_features, 40), nn.ReLU(), nn.Linear(40, 1), nn.Flatten(0))
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-2)
    # the attribute and outcome kernels are fitted on the training data, not on a first batch
    _, labels, sensitive = loader.dataset.tensors
    penalty = FairCOCCOPenalty(notion="eo", lam=lam).fit(sensitive, labels)
    for epoch in range(15):
        for x, y, sensitive in loader:
            optimiser.zero_grad()
            logits = model(x)
            loss = nn.functional.binary_cross_entropy_with_logits(logits, y)
            if lam > 0 and epoch >= 2:  # two warm-up epochs on the loss alone
                loss = loss + penalty(torch.sigmoid(logits), sensitive, y)
            loss.backward()
            optimiser.step()
    return model.eval()


def main() -> None:
    x_train, y_train, people_train = loan_table(3000, seed=0)
    x_test, y_test, people_test = loan_table(2000, seed=1)
    encoder = SensitiveEncoder().fit(people_train)  # remembers levels and scales
    data = TensorDataset(
        torch.tensor(x_train), torch.tensor(y_train), encoder.transform(people_train)
    )
    loader = DataLoader(
        data, batch_size=256, shuffle=True, generator=torch.Generator().manual_seed(0)
    )
    for lam in (0.0, 5.0):
        model = train(lam, loader, x_train.shape[1])
        with torch.no_grad():
            probability = torch.sigmoid(model(torch.tensor(x_test))).numpy()
        accuracy = float(np.mean((probability > 0.5) == y_test))
        report = faircocco_report(probability, people_test, y_true=y_test, notion="eo")
        print(f"lambda = {lam}: test accuracy {accuracy:.3f}")
        print(report[["score", "adjusted"]].round(3).to_string(), end="\n\n")


if __name__ == "__main__":
    main()
