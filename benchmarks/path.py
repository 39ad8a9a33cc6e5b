"""A warm-started λ path against a grid of separate fits: what each costs and reaches.

Run from the project root, with the registry's data in ``$FAIRCOCCO_DATA``::

    OMP_NUM_THREADS=1 python benchmarks/path.py --dataset adult --notion dp --target di=0.8

It trains, on the same training rows, :class:`faircocco_torch.FairCOCCOPathClassifier` once
(``warmup_epochs`` equal to the grid's ``--epochs``, then ``--epochs-per-step`` epochs per λ
from 0.5 up to 256, stopping where the validation score stops falling) and
:class:`faircocco_torch.FairCOCCOClassifier` at each λ of ``--grid`` (default the six of
{0.5, ..., 20}), ``--epochs`` each with the first fifth on the loss alone. It prints the path's
steps on its validation rows, then for the path's chosen step and every grid fit the fit time
and, on held-out test rows, the accuracy, the disparate impact (lowest over highest positive
rate of the attribute's groups, :func:`faircocco_plugins.gaps.disparate_impact`), the
difference of equal opportunity and the chance-adjusted FairCOCCO score of the predicted
probabilities; last, the path's time over the grid's. ``--dataset synthetic`` needs no data
files. This is a benchmark: it reports what it measures and asserts nothing.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from faircocco_plugins import faircocco_score
from faircocco_plugins.datasets import load_dataset
from faircocco_plugins.gaps import disparate_impacts, equal_opportunity_differences
from faircocco_plugins.plugins import DegenerateModelWarning, notion_named
from faircocco_torch import FairCOCCOClassifier, FairCOCCOPathClassifier

#: Rows drawn from a registry dataset's training and test parts.
TRAIN_ROWS, TEST_ROWS = 6000, 3000
#: The shared λ grid of {0.5, ..., 20}.
GRID = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0)

Part = tuple[np.ndarray, np.ndarray, pd.DataFrame]


def registry_parts(name: str, seed: int) -> tuple[Part, Part]:
    """Up to ``TRAIN_ROWS`` training and ``TEST_ROWS`` test rows of a registry dataset."""
    data = load_dataset(name, random_state=0)
    rng = np.random.default_rng(seed)
    parts = []
    for split, rows in ((data.part("train"), TRAIN_ROWS), (data.part("test"), TEST_ROWS)):
        keep = rng.choice(len(split.X), min(rows, len(split.X)), replace=False)
        parts.append(
            (
                np.asarray(split.X, dtype=np.float64)[keep],
                np.asarray(split.y)[keep],
                split.sensitive.iloc[keep].reset_index(drop=True),
            )
        )
    return parts[0], parts[1]


def synthetic_parts(seed: int) -> tuple[Part, Part]:
    """A binary task whose features carry a binary attribute, which sets the base rate."""
    rng = np.random.default_rng(seed)
    n = TRAIN_ROWS + TEST_ROWS
    group = rng.integers(0, 2, n)
    x = rng.normal(size=(n, 5)) + group[:, None] * np.array([1.0, 0.5, 0.0, 0.0, 0.0])
    y = (x[:, 0] + x[:, 2] + rng.normal(scale=0.5, size=n) > 0.8).astype(int)
    frame = pd.DataFrame({"group": pd.Categorical(np.where(group == 1, "a", "b"))})
    cut = TRAIN_ROWS
    return (
        (x[:cut], y[:cut], frame.iloc[:cut].reset_index(drop=True)),
        (x[cut:], y[cut:], frame.iloc[cut:].reset_index(drop=True)),
    )


def test_metrics(model: Any, test: Part, notion: str) -> dict[str, float]:
    """Accuracy, DI, DEO and the adjusted score of a fitted classifier on the test rows."""
    x, y, sensitive = test
    predicted = model.predict(x)
    proba = model.predict_proba(x)[:, 1]
    positive = model.classes_[1]
    chosen, truth = predicted == positive, y == positive
    score = faircocco_score(
        proba, sensitive, y_true=notion_named(notion).outcome(truth.astype(float)),
        notion=notion, adjusted=True,
    )  # fmt: skip
    return {
        "accuracy": float(np.mean(predicted == y)),
        "di": float(disparate_impacts(chosen, sensitive).min()),
        "deo": float(equal_opportunity_differences(truth, chosen, sensitive).max()),
        "adjusted_score": float(score),
    }


def parse_target(text: str) -> Any:
    """``halve`` or ``measure=bound`` as the path's ``target``."""
    if text == "halve":
        return text
    measure, _, bound = text.partition("=")
    return {measure: float(bound)}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="adult", help="a registry name, or 'synthetic'")
    parser.add_argument("--notion", default="dp", choices=("dp", "eo", "cal"))
    parser.add_argument("--target", default="di=0.8", help="halve, or MEASURE=BOUND")
    parser.add_argument("--epochs", type=int, default=20, help="epochs of each grid fit")
    parser.add_argument("--epochs-per-step", type=int, default=3)
    parser.add_argument("--grid", type=float, nargs="+", default=list(GRID))
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    if args.dataset == "synthetic":
        train, test = synthetic_parts(args.seed)
    else:
        train, test = registry_parts(args.dataset, args.seed)
    common = {"notion": args.notion, "learning_rate": args.learning_rate}
    common["random_state"] = args.seed
    print(f"{args.dataset}, {args.notion}: {len(train[1])} training rows, {len(test[1])} test")

    path = FairCOCCOPathClassifier(
        **common,
        target=parse_target(args.target),
        warmup_epochs=args.epochs,
        epochs_per_step=args.epochs_per_step,
    )
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        path.fit(train[0], train[1], sensitive_features=train[2])
    path_seconds = time.perf_counter() - started
    with pd.option_context("display.width", 120, "display.precision", 4):
        print(f"\npath on its validation rows (target {path.target_}):")
        print(path.path_.to_string())
    for warning in caught:
        print(f"warning: {warning.message}")
    rows = [
        {
            "model": f"path, chosen step {path.step_}",
            "lam": path.lam_,
            "epochs": path.n_iter_,
            "seconds": path_seconds,
            **test_metrics(path, test, args.notion),
        }
    ]

    grid_seconds = 0.0
    for lam in args.grid:
        model = FairCOCCOClassifier(
            **common, lam=lam, epochs=args.epochs, warmup_epochs=args.epochs // 5
        )
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateModelWarning)
            model.fit(train[0], train[1], sensitive_features=train[2])
        seconds = time.perf_counter() - started
        grid_seconds += seconds
        rows.append(
            {
                "model": "grid fit",
                "lam": lam,
                "epochs": args.epochs,
                "seconds": seconds,
                **test_metrics(model, test, args.notion),
            }
        )
    with pd.option_context("display.width", 120, "display.precision", 4):
        print("\non the test rows:")
        print(pd.DataFrame(rows).to_string(index=False))
    print(
        f"\npath {path_seconds:.1f} s ({path.n_iter_} epochs, {len(path.path_)} steps); "
        f"grid of {len(args.grid)} fits {grid_seconds:.1f} s ({len(args.grid) * args.epochs} "
        f"epochs); path / grid = {path_seconds / grid_seconds:.2f}"
    )


if __name__ == "__main__":
    main()
