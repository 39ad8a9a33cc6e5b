"""Behaviour cloning with a GRU policy, with the FairCOCCO penalty on every time step.

Synthetic stand-in for the paper's sepsis-treatment experiment on MIMIC-III (which needs
credentialed access and cannot be distributed here). Each synthetic patient has a static sex
and age and a trajectory of ten 4-hour steps of a severity score, a lactate-like marker, a
heart-rate-like marker and two irrelevant signals; severity drifts up with illness and down
after treatment. A patient *needs* treatment at a step when severity and lactate are high
(the ground truth, as the paper derives it from SOFA and lactate). The expert treats on the
same signals but, at the same state, treats female patients less often: the demonstrations
are biased by sex.

A GRU policy cloned from the expert copies the bias. The FairCOCCO penalty asks for equalised
odds of the policy's actions given the need, at every step: as lambda grows, the test
FairCOCCO score and the gap in treatment rates of patients in need (DEO) fall, while the
agreement with the (biased) expert drops a little, since fair actions must differ from it.

Run it from the repository root: ``python examples/torch_rnn_behaviour_cloning.py`` (about 20 s
on 2 cores).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from faircocco_plugins import faircocco_score
from faircocco_plugins.gaps import equal_opportunity_gap
from faircocco_torch import FairCOCCOPenalty, fit_fair

STEPS = 10
LAMBDAS = (0.0, 2.0, 5.0, 10.0)


def patient_trajectories(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """States ``(n, STEPS, 7)``, targets ``(n, STEPS, 2)`` (expert action, need), sex ``(n, 1)``."""
    rng = np.random.default_rng(seed)
    female = rng.integers(0, 2, n).astype(np.float32)
    age = rng.uniform(20, 90, n)
    illness = rng.normal(0.4, 0.3, n) + 0.005 * (age - 55)
    severity = rng.normal(0.0, 1.0, n)
    states = np.zeros((n, STEPS, 7), dtype=np.float32)
    targets = np.zeros((n, STEPS, 2), dtype=np.float32)
    previous = np.zeros(n)
    for t in range(STEPS):
        severity = 0.8 * severity + illness - 0.6 * previous + rng.normal(0.0, 0.4, n)
        lactate = 0.5 * severity + rng.normal(0.0, 0.5, n)
        heart_rate = 0.3 * severity + rng.normal(0.0, 0.8, n)
        noise = rng.normal(size=(n, 2))
        need = severity + 0.5 * lactate > 0.8
        urge = severity + 0.5 * lactate - 0.8 * female + rng.normal(0.0, 0.3, n)
        action = (urge > 0.8).astype(np.float32)
        states[:, t] = np.column_stack(
            [severity, lactate, heart_rate, noise, female, (age - 55) / 20]
        )
        targets[:, t] = np.column_stack([action, need])
        previous = action
    return torch.tensor(states), torch.tensor(targets), torch.tensor(female)[:, None]


class GRUPolicy(nn.Module):
    """A GRU over the states; one treatment logit per step."""

    def __init__(self, features: int = 7, hidden: int = 32) -> None:
        super().__init__()
        self.gru = nn.GRU(features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        hidden, _ = self.gru(states)
        return self.head(hidden).squeeze(-1)


class EveryStep(nn.Module):
    """Apply a penalty to all steps at once (one row per patient and step), given the need."""

    def __init__(self, penalty: nn.Module) -> None:
        super().__init__()
        self.penalty = penalty

    def forward(
        self, y_pred: torch.Tensor, sensitive: torch.Tensor, y_true: torch.Tensor
    ) -> torch.Tensor:
        steps = y_pred.shape[1]
        need = y_true[..., 1]
        return self.penalty(
            y_pred.reshape(-1), sensitive.repeat_interleave(steps, dim=0), need.reshape(-1)
        )

    @property
    def last_statistic_(self) -> Any:
        return self.penalty.last_statistic_


def imitation_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Behaviour cloning: cross-entropy against the expert's actions."""
    return nn.functional.binary_cross_entropy_with_logits(logits, targets[..., 0])


def main() -> None:
    states, targets, female = patient_trajectories(800, seed=0)
    train, test = slice(0, 600), slice(600, 800)
    sex_per_step = female[test].repeat_interleave(STEPS, dim=0)[:, 0].numpy()
    expert = targets[test, :, 0].reshape(-1).numpy()
    need = targets[test, :, 1].reshape(-1).numpy()
    print(f"{'lambda':>6}  {'agreement':>9}  {'DEO':>6}  {'FairCOCCO score':>15}")
    for lam in LAMBDAS:
        torch.manual_seed(0)
        policy = GRUPolicy()
        fit_fair(
            policy,
            (states[train], targets[train], female[train]),
            loss=imitation_loss,
            penalty=EveryStep(FairCOCCOPenalty(notion="eo", lam=lam)) if lam > 0 else None,
            optimizer=torch.optim.Adam(policy.parameters(), lr=1e-2),
            batch_size=32,
            epochs=15,
            warmup_epochs=2,
            penalty_input=torch.sigmoid,
            random_state=0,
            progress=False,
        )
        policy.eval()
        with torch.no_grad():
            probability = torch.sigmoid(policy(states[test])).reshape(-1).numpy()
        act = (probability > 0.5).astype(np.float32)
        agreement = float(np.mean(act == expert))
        # DEO: the gap in treatment rates of patients in need between the sexes
        gap = equal_opportunity_gap(need == 1, act == 1, sex_per_step)
        score = faircocco_score(probability, sex_per_step, y_true=need, notion="eo")
        print(f"{lam:>6.1f}  {agreement:>9.3f}  {gap:>6.3f}  {score:>15.3f}")


if __name__ == "__main__":
    main()
