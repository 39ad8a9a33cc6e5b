"""Fairness–performance trade-off of every penalty: ``python benchmarks/tradeoff.py``.

For each dataset (the paper's nine by default) and notion (DP and EO), trains the paper's
network on the training part without a penalty, with FairCOCCO, FACL, FARMI and HSIC at each
λ of a log grid (0.1 to 10), and under the FairCOCCO constraint at a few bounds. Every run sees
the same split, network initialisation, batches and optimiser; only the penalty differs. Each
run is scored on the test part with the harness's metrics (AUC, accuracy, balanced accuracy,
chance-adjusted FairCOCCO score, DEO; MSE for regression). It prints:

* every run, with ``DEGENERATE`` where a classifier predicts one class (while the unpenalised
  network predicts both), has a test AUC below 0.5, or a regressor does worse than predicting
  the training mean;
* per method, the smallest λ whose run is not degenerate and halves the unpenalised network's
  adjusted score (of the predicted probabilities, for classification), and the AUC (or MSE)
  it costs;
* per method, the dominated hypervolume of its front in (AUC or −MSE, adjusted score) and in
  (accuracy, DEO), on axes normalised per dataset and notion by
  :func:`faircocco_plugins.bench.front_axes` against the unpenalised network's unfairness,
  with the network on every front.

``--out FILE.csv`` also writes every run. This is a benchmark: it reports what it measures and
asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from tqdm.auto import tqdm

from faircocco_plugins.bench import evaluate_predictions, front_axes, hypervolume
from faircocco_plugins.datasets import Part, load_dataset
from faircocco_torch import FairCOCCOClassifier, FairCOCCOConstraint, FairCOCCORegressor

PAPER_DATASETS = (
    "adult",
    "compas",
    "german",
    "kdd_census",
    "law_school",
    "credit_card",
    "drugs",
    "communities",
    "students",
)
PENALTIES = ("faircocco", "facl", "farmi", "hsic")
LAMBDAS = (0.1, 0.3, 1.0, 3.0, 10.0)
BOUNDS = (0.0005, 0.001, 0.002)
#: Every run takes at least this many optimiser steps (small datasets get more epochs), with
#: between ``MIN_EPOCHS`` and ``MAX_EPOCHS`` epochs.
MIN_STEPS, MIN_EPOCHS, MAX_EPOCHS = 3000, 10, 200
BATCH_SIZE, LEARNING_RATE = 128, 1e-3


@dataclass(frozen=True)
class Setting:
    """One trained model: a method and its strength (λ, or the constraint's bound)."""

    method: str
    strength: float


def settings(methods: Sequence[str]) -> list[Setting]:
    """The unpenalised network, each penalty at each λ, and the constraint at each bound."""
    chosen = [Setting("nn", 0.0)]
    chosen += [Setting(m, lam) for m in PENALTIES if m in methods for lam in LAMBDAS]
    if "faircocco_constraint" in methods:
        chosen += [Setting("faircocco_constraint", bound) for bound in BOUNDS]
    return chosen


@dataclass(frozen=True)
class Parts:
    """A dataset's task and its training and test parts, loaded once for all its settings."""

    name: str
    task: str
    train: Part
    test: Part


def load_parts(
    name: str, seed: int, max_train_rows: int | None, attributes: Sequence[str] | None = None
) -> Parts:
    """``name``'s split for ``seed``, protecting ``attributes`` (default: all of the dataset's
    sensitive attributes), with at most ``max_train_rows`` training rows."""
    data = load_dataset(name, random_state=seed)
    train, test = data.part("train"), data.part("test")
    if attributes is not None:
        chosen = [c for c in train.sensitive.columns if c in attributes]
        if not chosen:
            raise ValueError(
                f"{name} has none of the attributes {list(attributes)}; its sensitive "
                f"attributes are {list(train.sensitive.columns)}."
            )
        train = type(train)(train.X, train.y, train.sensitive[chosen])
        test = type(test)(test.X, test.y, test.sensitive[chosen])
    if max_train_rows is not None and len(train.X) > max_train_rows:
        rows = np.random.default_rng(seed).choice(len(train.X), max_train_rows, replace=False)
        train = type(train)(train.X.iloc[rows], train.y.iloc[rows], train.sensitive.iloc[rows])
    return Parts(name, data.task, train, test)


def train_and_score(
    parts: Parts, notion: str, setting: Setting, seed: int, min_steps: int = MIN_STEPS
) -> dict[str, float | str]:
    """Train one setting on the training part and score it on the test part."""
    task, train, test = parts.task, parts.train, parts.test
    batches = math.ceil(len(train.X) / BATCH_SIZE)
    epochs = min(MAX_EPOCHS, max(MIN_EPOCHS, math.ceil(min_steps / batches)))
    penalty: object = None
    if setting.method == "faircocco_constraint":
        penalty = FairCOCCOConstraint(notion=notion, bound=setting.strength)
    elif setting.method != "nn":
        penalty = setting.method
    estimator = FairCOCCOClassifier if task == "classification" else FairCOCCORegressor
    model = estimator(
        penalty=penalty,
        notion=notion,
        lam=setting.strength if setting.method in PENALTIES else 1.0,
        batch_size=BATCH_SIZE,
        learning_rate=LEARNING_RATE,
        epochs=epochs,
        random_state=seed,
    )
    started = time.perf_counter()
    sensitive = None if setting.method == "nn" else train.sensitive
    model.fit(train.X.to_numpy(np.float32), train.y.to_numpy(), sensitive_features=sensitive)
    seconds = time.perf_counter() - started
    x_test = test.X.to_numpy(np.float32)
    proba = model.predict_proba(x_test)[:, 1] if task == "classification" else None
    metrics = evaluate_predictions(
        task,
        test.y.to_numpy(),
        model.predict(x_test),
        test.sensitive,
        proba=proba,
        notions=(notion,),
    )
    record: dict[str, float | str] = {
        "dataset": parts.name,
        "attributes": ",".join(train.sensitive.columns),
        "notion": notion,
        "method": setting.method,
        "strength": setting.strength,
        "task": task,
        "train_rows": len(train.X),
        "test_rows": len(test.X),
        "epochs": epochs,
        "seconds": seconds,
        "adjusted": metrics[f"faircocco_{notion}_adjusted"],
        "base_rate": metrics.get("base_rate", math.nan),
        "deo": metrics["deo"],
    }
    if task == "classification":
        record.update(
            {k: metrics[k] for k in ("auc", "accuracy", "balanced_accuracy", "positive_rate")}
        )
        record["single_class"] = metrics["single_class"]
    else:
        record["mse"], record["outcome_variance"] = metrics["mse"], metrics["outcome_variance"]
        record["mean_mse"] = float(np.mean((test.y.to_numpy() - train.y.mean()) ** 2))
    return record


def mark_degenerate(runs: pd.DataFrame) -> pd.Series:
    """Which runs lost the task: one predicted class where the unpenalised network predicts
    both, a test AUC below 0.5, or an MSE above that of predicting the training mean."""
    if runs["task"].iloc[0] == "classification":
        baseline_single = bool(runs.loc[runs["method"] == "nn", "single_class"].max() > 0)
        single = (runs["single_class"] > 0) & (not baseline_single)
        return single | (runs["auc"] < 0.5)
    return runs["mse"] > runs["mean_mse"]


#: Summary columns of the two planes of ``front_axes``.
_HYPERVOLUME_LABELS = {"adjusted": "HV perf/score", "deo": "HV acc/DEO"}


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per method of one dataset and notion: degenerate runs, halving λ and its cost, and
    the hypervolumes of its fronts."""
    classification = runs["task"].iloc[0] == "classification"
    performance = "auc" if classification else "mse"
    baseline = runs[runs["method"] == "nn"].iloc[0]
    axes = front_axes(
        runs, str(runs["task"].iloc[0]), reference=(runs["method"] == "nn").to_numpy()
    )
    rows = []
    for method, group in runs.groupby("method", sort=False):
        if method == "nn":
            continue
        # a degenerate run does not count as halving: its fairness is that of a constant
        fair = (group["adjusted"] <= baseline["adjusted"] / 2) & ~group["degenerate"]
        halved = group[fair].sort_values("strength")
        row: dict[str, object] = {
            "method": method,
            "degenerate": f"{int(group['degenerate'].sum())}/{len(group)}",
            "halving": float(halved["strength"].iloc[0]) if len(halved) else math.nan,
            "cost": (
                (baseline[performance] - halved[performance].iloc[0])
                * (1 if classification else -1)
                if len(halved)
                else math.nan
            ),
        }
        members = list(group.index) + list(runs.index[runs["method"] == "nn"])
        for front, (perf, unfair) in axes.items():
            row[_HYPERVOLUME_LABELS[front]] = hypervolume(perf[members], unfair[members])
        rows.append(row)
    return pd.DataFrame(rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/tradeoff.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--datasets", default=",".join(PAPER_DATASETS))
    parser.add_argument("--notions", default="dp,eo")
    parser.add_argument("--methods", default=",".join((*PENALTIES, "faircocco_constraint")))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--max-train-rows", type=int, default=None, help="subsample larger training parts"
    )
    parser.add_argument("--min-steps", type=int, default=MIN_STEPS, help="optimiser steps")
    parser.add_argument(
        "--attributes", default=None, help="protect only these attributes (comma-separated)"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--out", default=None, help="write every run to this CSV file")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    methods = args.methods.split(",")
    attributes = None if args.attributes is None else args.attributes.split(",")
    names, notions = args.datasets.split(","), args.notions.split(",")
    cells = [
        (name, notion, setting)
        for name in names
        for notion in notions
        for setting in settings(methods)
    ]
    print(f"tradeoff: {len(cells)} trainings; batch {BATCH_SIZE}, Adam "
          f"{LEARNING_RATE}, at least {args.min_steps} steps; machine {platform.machine()}, "
          f"torch {torch.__version__}, {args.threads} thread(s)")  # fmt: skip
    records = []
    parts: Parts | None = None
    for name, notion, setting in tqdm(cells, desc="tradeoff"):
        if parts is None or parts.name != name:
            parts = load_parts(name, args.seed, args.max_train_rows, attributes)
        try:
            records.append(train_and_score(parts, notion, setting, args.seed, args.min_steps))
        except ValueError as error:  # a penalty that does not support this data
            tqdm.write(f"{name} {notion} {setting.method}: not run: {error}")
    runs = pd.DataFrame(records)
    if args.out:
        runs.to_csv(args.out, index=False)
    report(runs)


_SHOWN = (
    "method",
    "strength",
    "auc",
    "accuracy",
    "balanced_accuracy",
    "positive_rate",
    "mse",
    "mean_mse",
    "adjusted",
    "deo",
)


def report(runs: pd.DataFrame) -> None:
    """Print every run and the per-method summary of each dataset and notion."""
    pd.set_option("display.width", 160)
    pd.set_option("display.max_columns", 20)
    summaries = []
    for (name, notion), group in runs.groupby(["dataset", "notion"], sort=False):
        name, notion = str(name), str(notion)
        group = group.assign(degenerate=mark_degenerate(group))
        shown = [c for c in _SHOWN if c in group]
        table = group[shown].copy()
        table["flag"] = np.where(group["degenerate"], "DEGENERATE", "")
        first = group.iloc[0]
        print(
            f"\n== {name} {notion.upper()}, attributes {first['attributes']} "
            f"({first['train_rows']} training rows, {first['epochs']} epochs, scored on "
            f"{first['test_rows']} test rows)"
        )
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        summaries.append(summary(group).assign(dataset=name, notion=notion))
    combined = pd.concat(summaries, ignore_index=True)
    columns = ["dataset", "notion", "method", "degenerate", "halving", "cost"]
    columns += [c for c in combined.columns if c.startswith("HV")]
    print(
        "\n== summary: degenerate runs, smallest λ halving the unpenalised adjusted score and its"
    )
    print(
        "   AUC cost (MSE increase for regression), hypervolumes of the fronts (higher is better)"
    )
    print(combined[columns].to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
