"""How FairCOCCO's effect responds to λ, with and without ramping the penalty in.

Run from the project root::

    OMP_NUM_THREADS=1 python benchmarks/lambda_response.py --plot docs/_static/lambda-response.png

For each case it trains :class:`faircocco_torch.FairCOCCOClassifier` (the paper's network, Adam
with learning rate 1e-3, batch 128) at every ``--lambdas`` value, once with the penalty at full
weight from the first step (``ramp_epochs=0``, the default) and once with its weight raised
linearly over the first half of the epochs (``ramp_epochs=epochs // 2``), and prints, on held-out
rows, the ROC AUC, the accuracy, the rate of positive predictions at 0.5 and the chance-adjusted
FairCOCCO score of the predicted probabilities under the case's notion (means over ``--seeds``).
λ = 0 is the unpenalised network. The cases:

* ``kdd``: KDD Census under demographic parity, 6,000 training rows, 10 epochs;
* ``law``: Law School under equalised odds, 6,000 training rows, 10 epochs;
* ``synthetic``: the data of ``examples/aif360_pipeline.py`` (age, income and a binary
  attribute, reweighed on the binary one), demographic parity, 3,000 rows, 30 epochs;
* ``adult`` (demographic parity), ``compas`` and ``german`` (equalised odds): datasets the
  ramp was not tuned on, 6,000 training rows at most, 10 epochs.

``--plot`` draws the adjusted score and the AUC against λ for each case; ``--csv`` keeps every
run, and ``--from-csv`` summarises and plots runs kept by earlier calls (to split the cases
over several calls). With the registry's
files missing a case is skipped, saying so. This is a benchmark: it reports what it measures
and asserts nothing.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from faircocco_plugins import faircocco_score
from faircocco_plugins.datasets import DatasetUnavailableError, load_dataset
from faircocco_plugins.plugins import DegenerateModelWarning
from faircocco_torch import FairCOCCOClassifier

#: Training and test rows drawn from each registry dataset.
TRAIN_ROWS, TEST_ROWS = 6000, 3000


@dataclass(frozen=True)
class Case:
    """One dataset and notion: training and test arrays, sensitive attributes and weights."""

    label: str
    notion: str
    epochs: int
    x_train: np.ndarray
    y_train: np.ndarray
    s_train: pd.DataFrame
    x_test: np.ndarray
    y_test: np.ndarray
    s_test: pd.DataFrame
    weights: np.ndarray | None = None


def registry_case(name: str, notion: str, label: str, seed: int) -> Case:
    """Up to ``TRAIN_ROWS`` training and ``TEST_ROWS`` test rows of a registry dataset."""
    data = load_dataset(name, random_state=0)
    train, test = data.part("train"), data.part("test")
    rng = np.random.default_rng(seed)
    i = rng.choice(len(train.X), min(TRAIN_ROWS, len(train.X)), replace=False)
    j = rng.choice(len(test.X), min(TEST_ROWS, len(test.X)), replace=False)
    return Case(
        label,
        notion,
        10,
        np.asarray(train.X, dtype=np.float64)[i],
        np.asarray(train.y)[i],
        train.sensitive.iloc[i].reset_index(drop=True),
        np.asarray(test.X, dtype=np.float64)[j],
        np.asarray(test.y)[j],
        test.sensitive.iloc[j].reset_index(drop=True),
    )


def synthetic_case(seed: int) -> Case:
    """The AIF360 example's people (its data does not depend on ``seed``), with the weights of
    AIF360's ``Reweighing`` on the binary attribute: P(group) P(label) / P(group, label)."""
    del seed
    rng = np.random.default_rng(0)
    n = 4000
    age = rng.uniform(18, 80, n)
    income = rng.lognormal(size=n)
    x = rng.normal(size=n) + age / 40 + 0.3 * income
    people = pd.DataFrame({"x": x, "z": rng.normal(size=n), "age": age, "income": income})
    people["young"] = (age < 40).astype(float)
    label = (x + 0.5 * rng.normal(size=n) > 1.5).astype(float)
    sensitive = people[["age", "income", "young"]]
    group, outcome = people["young"].to_numpy()[:3000], label[:3000]
    weights = np.empty(3000)
    for g in (0.0, 1.0):
        for y in (0.0, 1.0):
            cell = (group == g) & (outcome == y)
            weights[cell] = np.mean(group == g) * np.mean(outcome == y) / np.mean(cell)
    return Case(
        "AIF360 example's data, DP",
        "dp",
        30,
        people.to_numpy()[:3000],
        label[:3000],
        sensitive.iloc[:3000].reset_index(drop=True),
        people.to_numpy()[3000:],
        label[3000:],
        sensitive.iloc[3000:].reset_index(drop=True),
        weights,
    )


CASES: dict[str, Callable[[int], Case]] = {
    "kdd": lambda seed: registry_case("kdd_census", "dp", "KDD Census, DP", seed),
    "law": lambda seed: registry_case("law_school", "eo", "Law School, EO", seed),
    "synthetic": synthetic_case,
    "adult": lambda seed: registry_case("adult", "dp", "Adult, DP", seed),
    "compas": lambda seed: registry_case("compas", "eo", "COMPAS, EO", seed),
    "german": lambda seed: registry_case("german", "eo", "German, EO", seed),
}


def evaluate(case: Case, lam: float, ramp_epochs: int, seed: int) -> dict[str, Any]:
    """Train at ``lam`` (0: unpenalised) and measure on the case's test rows."""
    model = FairCOCCOClassifier(
        penalty="faircocco" if lam > 0 else None,
        notion=case.notion,
        lam=lam,
        epochs=case.epochs,
        ramp_epochs=ramp_epochs if lam > 0 else 0,
        random_state=seed,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateModelWarning)
        model.fit(
            case.x_train,
            case.y_train,
            sensitive_features=case.s_train,
            sample_weight=case.weights,
        )
    proba = model.predict_proba(case.x_test)[:, 1]
    truth = {"y_true": case.y_test} if case.notion != "dp" else {}
    score = faircocco_score(proba, case.s_test, notion=case.notion, adjusted=True, **truth)
    return {
        "auc": roc_auc_score(case.y_test, proba),
        "accuracy": float(np.mean((proba > 0.5) == (case.y_test == model.classes_[1]))),
        "positive_rate": float(np.mean(proba > 0.5)),
        "score": float(score),
    }


def run(cases: Sequence[str], lambdas: Sequence[float], seeds: Sequence[int]) -> pd.DataFrame:
    """One row per case, ramp, λ and seed."""
    rows = []
    for key in cases:
        for seed in seeds:
            try:
                case = CASES[key](seed)
            except DatasetUnavailableError as error:
                print(f"{key}: skipped ({error})")
                break
            for ramp in (0, case.epochs // 2):
                for lam in lambdas:
                    if lam == 0 and ramp:
                        continue  # the unpenalised network has nothing to ramp
                    started = time.perf_counter()
                    result = evaluate(case, lam, ramp, seed)
                    rows.append(
                        {"case": case.label, "ramp_epochs": ramp, "lam": lam, "seed": seed}
                        | result
                        | {"seconds": time.perf_counter() - started}
                    )
    return pd.DataFrame(rows)


def summary(results: pd.DataFrame) -> pd.DataFrame:
    """Means over seeds; the unpenalised row is shown under both ramps."""
    base = results[results["lam"] == 0]
    ramped = results[results["ramp_epochs"] > 0]
    if not ramped.empty:
        ramps = ramped.groupby("case")["ramp_epochs"].first()
        base = pd.concat([base, base.assign(ramp_epochs=base["case"].map(ramps))])
    table = pd.concat([base, results[results["lam"] > 0]])
    metrics = ["auc", "accuracy", "positive_rate", "score"]
    return table.groupby(["case", "ramp_epochs", "lam"], sort=False)[metrics].mean()


def plot(table: pd.DataFrame, path: str) -> None:
    """Adjusted score and AUC against λ, one row of panels per case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(dict.fromkeys(table.index.get_level_values("case")))
    figure, axes = plt.subplots(len(cases), 2, figsize=(8, 2.2 * len(cases)), squeeze=False)
    for row, label in zip(axes, cases, strict=True):
        part = table.loc[label]
        for ramp in part.index.get_level_values("ramp_epochs").unique():
            curve = part.loc[ramp]
            name = "full weight at once" if ramp == 0 else f"ramp_epochs={ramp}"
            style = "o-" if ramp == 0 else "s--"
            x = np.maximum(curve.index.to_numpy(dtype=float), 0.25)  # λ = 0 drawn at 0.25
            row[0].plot(x, curve["score"], style, label=name)
            row[1].plot(x, curve["auc"], style, label=name)
        row[0].set_ylabel(f"{label}\nadjusted score", fontsize=8)
        row[1].set_ylabel("test AUC", fontsize=8)
        for axis in row:
            axis.set_xscale("log")
            axis.tick_params(labelsize=7)
    for axis in axes[-1]:
        axis.set_xlabel("λ (0 drawn at 0.25)", fontsize=8)
    axes[0][1].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(f"figure written to {path}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=list(CASES))
    parser.add_argument(
        "--lambdas", nargs="+", type=float, default=[0.0, 0.5, 2.0, 10.0, 20.0, 40.0]
    )
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--csv", help="write every run's row to this CSV file")
    parser.add_argument(
        "--from-csv", nargs="+", metavar="CSV", help="summarise and plot these --csv files instead"
    )
    parser.add_argument("--plot", help="write the figure to this PNG file")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    if args.from_csv:
        results = pd.concat([pd.read_csv(path) for path in args.from_csv], ignore_index=True)
    else:
        results = run(args.cases, args.lambdas, args.seeds)
    if args.csv:
        results.to_csv(args.csv, index=False)
    table = summary(results)
    with pd.option_context("display.width", 120, "display.max_rows", 500):
        print(table.round(4).to_string())
    print(f"total training time {results['seconds'].sum():.0f} s")
    if args.plot:
        plot(table, args.plot)


if __name__ == "__main__":
    main()
