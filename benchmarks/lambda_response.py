"""How FairCOCCO's effect responds to λ, with the penalty at full weight or after a warm-up.

Run from the project root, with the registry's data in ``$FAIRCOCCO_DATA``::

    OMP_NUM_THREADS=1 python benchmarks/lambda_response.py --plot lambda-response.png

For each case it trains :class:`faircocco_torch.FairCOCCOClassifier` (the paper's network, Adam
with learning rate 1e-3, batch 128) at every ``--lambdas`` value in each ``--arms``: ``full``,
the penalty at full weight from the first step (the estimators' default, the paper's setting);
``warmup``, the first fifth of the epochs on the loss alone (``warmup_epochs=epochs // 5``). It
prints, on held-out rows, the ROC AUC, the accuracy, the rate of positive predictions at 0.5 and
the chance-adjusted FairCOCCO score of the predicted probabilities under the case's notion
(means over ``--seeds``). λ = 0 is the unpenalised network. The cases:

* ``kdd``: KDD Census under demographic parity, 6,000 training rows, 10 epochs;
* ``law``: Law School under equalised odds, 6,000 training rows, 10 epochs;
* ``synthetic``: the data of ``examples/aif360_pipeline.py`` (age, income and a binary
  attribute, reweighed on the binary one, and not model inputs, as in ``FairCOCCOInprocessing``
  by default), demographic parity, 3,000 rows, 30 epochs; ``synthetic_inputs``: the same with
  the attributes as model inputs too (``protected_as_features=True``);
* ``adult`` (demographic parity), ``compas`` and ``german`` (equalised odds): further datasets,
  6,000 training rows at most, 10 epochs.

``--trace CASE LAM`` instead prints, for each epoch of one case trained at one λ (first seed),
the norms of the loss's and of the penalty term's gradients with respect to the network's
logits, their median ratio, the spread (standard deviation) of the batch's probabilities and its
positive rate, at full weight and after the warm-up.

``--plot`` draws the adjusted score and the AUC against λ for each case; ``--csv`` keeps every
run, and ``--from-csv`` summarises and plots runs kept by earlier calls (to split the work over
several calls). A case whose files are missing is skipped, saying so. This is a benchmark: it
reports what it measures and asserts nothing.
"""

from __future__ import annotations

import argparse
import textwrap
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
from faircocco_plugins.plugins import DegenerateModelWarning, notion_named
from faircocco_torch import FairCOCCOClassifier, FairCOCCOPenalty

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


def synthetic_case(seed: int, attributes_as_inputs: bool = False) -> Case:
    """The AIF360 example's people (its data does not depend on ``seed``), with the weights of
    AIF360's ``Reweighing`` on the binary attribute: P(group) P(label) / P(group, label). The
    model's inputs are ``x`` and ``z``, and the three attributes too with
    ``attributes_as_inputs``."""
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
    inputs = people.to_numpy() if attributes_as_inputs else people[["x", "z"]].to_numpy()
    return Case(
        "AIF360 example's data, attributes as inputs, DP"
        if attributes_as_inputs
        else "AIF360 example's data, DP",
        "dp",
        30,
        inputs[:3000],
        label[:3000],
        sensitive.iloc[:3000].reset_index(drop=True),
        inputs[3000:],
        label[3000:],
        sensitive.iloc[3000:].reset_index(drop=True),
        weights,
    )


CASES: dict[str, Callable[[int], Case]] = {
    "kdd": lambda seed: registry_case("kdd_census", "dp", "KDD Census, DP", seed),
    "law": lambda seed: registry_case("law_school", "eo", "Law School, EO", seed),
    "synthetic": synthetic_case,
    "synthetic_inputs": lambda seed: synthetic_case(seed, attributes_as_inputs=True),
    "adult": lambda seed: registry_case("adult", "dp", "Adult, DP", seed),
    "compas": lambda seed: registry_case("compas", "eo", "COMPAS, EO", seed),
    "german": lambda seed: registry_case("german", "eo", "German, EO", seed),
}


#: How the penalty is brought in: each arm's ``warmup_epochs`` for a case of ``epochs`` epochs.
ARMS: dict[str, Callable[[int], int]] = {
    "full": lambda epochs: 0,
    "warmup": lambda epochs: epochs // 5,
}


def arm_label(warmup_epochs: int) -> str:
    """How an arm is shown in tables and the figure."""
    return f"warmup_epochs={warmup_epochs}" if warmup_epochs else "full weight at once"


def evaluate(case: Case, lam: float, warmup_epochs: int, seed: int) -> dict[str, Any]:
    """Train at ``lam`` (0: unpenalised) and measure on the case's test rows."""
    model = FairCOCCOClassifier(
        penalty="faircocco" if lam > 0 else None,
        notion=case.notion,
        lam=lam,
        epochs=case.epochs,
        warmup_epochs=warmup_epochs,
        random_state=seed,
    )
    return evaluate_model(case, _fitted(case, model))


def _fitted(case: Case, model: FairCOCCOClassifier) -> FairCOCCOClassifier:
    """``model`` trained on the case's training rows; a collapse is measured, not warned of."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateModelWarning)
        return model.fit(
            case.x_train,
            case.y_train,
            sensitive_features=case.s_train,
            sample_weight=case.weights,
        )


def evaluate_model(case: Case, model: FairCOCCOClassifier) -> dict[str, Any]:
    """Test AUC, accuracy, positive rate and adjusted score of a trained model."""
    proba = model.predict_proba(case.x_test)[:, 1]
    truth = notion_named(case.notion).outcome(case.y_test)
    score = faircocco_score(proba, case.s_test, y_true=truth, notion=case.notion, adjusted=True)
    return {
        "auc": roc_auc_score(case.y_test, proba),
        "accuracy": float(np.mean((proba > 0.5) == (case.y_test == model.classes_[1]))),
        "positive_rate": float(np.mean(proba > 0.5)),
        "score": float(score),
    }


def run(
    cases: Sequence[str], lambdas: Sequence[float], seeds: Sequence[int], arms: Sequence[str]
) -> pd.DataFrame:
    """One row per case, arm, λ and seed; the unpenalised network (λ = 0) once per seed."""
    rows = []
    for key in cases:
        for seed in seeds:
            try:
                case = CASES[key](seed)
            except DatasetUnavailableError as error:
                print(f"{key}: skipped ({error})")
                break
            settings = [(0.0, 0)] if 0 in lambdas else []
            settings += [(lam, ARMS[arm](case.epochs)) for arm in arms for lam in lambdas if lam]
            for lam, warmup in settings:
                started = time.perf_counter()
                result = evaluate(case, lam, warmup, seed)
                rows.append(
                    {"case": case.label, "warmup_epochs": warmup, "lam": lam, "seed": seed}
                    | result
                    | {"seconds": time.perf_counter() - started}
                )
    return pd.DataFrame(rows)


#: Per training step of a traced fit: the norms of the loss's and of the penalty term's
#: gradients with respect to the logits, the spread of the batch's probabilities and
#: its rate of positive predictions.
_STEPS: list[tuple[float, float, float, float]] = []


class _TracedPenalty(FairCOCCOPenalty):
    """FairCOCCO's penalty, recording each training step in ``_STEPS`` as its gradient arrives."""

    def forward(self, y_pred: Any, sensitive: Any, y_true: Any = None) -> Any:
        term = super().forward(y_pred, sensitive, y_true)
        if y_pred.requires_grad:
            p = y_pred.detach()
            # BCEWithLogitsLoss (a mean) has gradient (p - y) / n on the logits
            loss_norm = float(((p - y_true.to(p.dtype)) / p.shape[0]).norm())
            spread, positive = float(p.std()), float((p > 0.5).float().mean())

            def record(grad: Any) -> None:
                term_norm = float((grad * p * (1 - p)).norm())  # through the sigmoid
                _STEPS.append((loss_norm, term_norm, spread, positive))

            y_pred.register_hook(record)
        return term


def trace(key: str, lam: float, seed: int) -> None:
    """Print, per epoch, the penalty's gradient against the loss's, at full weight and after
    the warm-up (whose epochs record nothing)."""
    case = CASES[key](seed)
    for warmup in (0, ARMS["warmup"](case.epochs)):
        _STEPS.clear()
        model = FairCOCCOClassifier(
            penalty=_TracedPenalty(notion=case.notion, lam=lam),
            epochs=case.epochs,
            warmup_epochs=warmup,
            random_state=seed,
        )
        _fitted(case, model)
        steps = np.array(_STEPS).reshape(case.epochs - warmup, -1, 4)
        result = evaluate_model(case, model)
        print(
            f"{case.label}, lam={lam}, warmup_epochs={warmup}: test AUC {result['auc']:.3f}, "
            f"accuracy {result['accuracy']:.3f}, positive rate {result['positive_rate']:.3f}, "
            f"adjusted score {result['score']:.4f}"
        )
        print("  epoch  |dL/dz|  |d term/dz|  ratio (median)  spread of p  positive rate")
        for epoch, rows in enumerate(steps, start=warmup):
            ratio = np.median(rows[:, 1] / rows[:, 0])
            print(
                f"  {epoch:5d}  {rows[:, 0].mean():7.4f}  {rows[:, 1].mean():11.4f}  "
                f"{ratio:14.2f}  {rows[:, 2].mean():11.3f}  {rows[:, 3].mean():13.3f}"
            )


def summary(results: pd.DataFrame) -> pd.DataFrame:
    """Means over seeds per case, arm and λ; the unpenalised network is shown in every arm."""
    results = results.copy()
    results["arm"] = [arm_label(w) for w in results["warmup_epochs"]]
    base = results[results["lam"] == 0]
    penalised = results[results["lam"] > 0]
    arms = penalised[["case", "arm"]].drop_duplicates()
    table = pd.concat([base.drop(columns="arm").merge(arms, on="case"), penalised])
    # cases in the order they were run, full weight before the warm-up
    table["case"] = pd.Categorical(table["case"], categories=list(dict.fromkeys(results["case"])))
    order = sorted(set(table["arm"]), key=lambda arm: "warmup" in arm)
    table["arm"] = pd.Categorical(table["arm"], categories=order)
    metrics = ["auc", "accuracy", "positive_rate", "score"]
    return table.groupby(["case", "arm", "lam"], observed=True)[metrics].mean()


def plot(table: pd.DataFrame, path: str) -> None:
    """Adjusted score and AUC against λ, one row of panels per case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(dict.fromkeys(table.index.get_level_values("case")))
    figure, axes = plt.subplots(len(cases), 2, figsize=(8, 2.2 * len(cases)), squeeze=False)

    for row, label in zip(axes, cases, strict=True):
        part = table.loc[label]
        for arm in part.index.get_level_values("arm").unique():
            curve = part.loc[arm]
            style = "s--" if "warmup" in arm else "o-"
            x = np.maximum(curve.index.to_numpy(dtype=float), 0.25)  # λ = 0 drawn at 0.25
            name = "warm-up: the first fifth of the epochs" if "warmup" in arm else arm
            row[0].plot(x, curve["score"], style, label=name)
            row[1].plot(x, curve["auc"], style, label=name)
        row[0].set_ylabel(textwrap.fill(label, 30) + "\nadjusted score", fontsize=8)
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
    parser.add_argument("--arms", nargs="+", choices=list(ARMS), default=list(ARMS))
    parser.add_argument("--csv", help="write every run's row to this CSV file")
    parser.add_argument(
        "--from-csv", nargs="+", metavar="CSV", help="summarise and plot these --csv files instead"
    )
    parser.add_argument("--plot", help="write the figure to this PNG file")
    parser.add_argument(
        "--trace",
        nargs=2,
        metavar=("CASE", "LAM"),
        help="print per-epoch gradient norms of one case at one λ (the first seed) and stop",
    )
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    if args.trace:
        trace(args.trace[0], float(args.trace[1]), args.seeds[0])
        return
    if args.from_csv:
        results = pd.concat([pd.read_csv(path) for path in args.from_csv], ignore_index=True)
    else:
        results = run(args.cases, args.lambdas, args.seeds, args.arms)
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
