"""Training cost of every penalty on Adult: ``python benchmarks/torch_training.py``.

Prints, for the paper's network on Adult (the registry's whole table, 45,222 rows and 101
features, from ``load_dataset("adult")``; synthetic data of the same shape where its files are
not available, saying which):

* the time of one training epoch at batch sizes 64, 128 and 256, for the unregularised network
  and for each penalty (equalised odds, sex as the attribute, penalty on probabilities): the
  median of ``--rounds`` rounds, the methods taking turns within each round;
* the median time of one training step (forward, penalty, backward, optimiser step) over
  ``--steps`` steps, per penalty and batch size, plus FairCOCCO and FACL with three attributes
  (sex, age, race as White or not); the methods take turns on the same batches;
* the targets: a FairCOCCO step no slower than a FACL step at batch 256, and a FairCOCCO epoch
  at most twice an unregularised epoch at batch 256 (the median over rounds of the ratio of
  the two epochs of a round), each marked met or missed with its numbers.

This is a benchmark, not a test: it reports what it measures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from faircocco_plugins.datasets import DatasetUnavailableError, load_dataset
from faircocco_torch import (
    CovariancePenalty,
    FACLPenalty,
    FairCOCCOPenalty,
    FairnessPenalty,
    FARMIPenalty,
    HSICPenalty,
    LinearLossPenalty,
    fit_fair,
    paper_mlp,
)


@dataclass(frozen=True)
class BenchData:
    """Standardised features, labels and sensitive attributes as float tensors.

    ``sensitive`` holds one column (sex); ``sensitive3`` three (sex, age standardised, race
    as White or not).
    """

    X: torch.Tensor
    y: torch.Tensor
    sensitive: torch.Tensor
    sensitive3: torch.Tensor
    source: str


def bench_data() -> BenchData:
    """Adult from the dataset registry, else synthetic data of its shape."""
    try:
        adult = load_dataset("adult")
    except DatasetUnavailableError:
        return synthetic_adult()
    features = adult.X.to_numpy(np.float64)
    features = (features - features.mean(axis=0)) / np.maximum(features.std(axis=0), 1e-12)
    sex = (adult.sensitive["sex"] == "Male").to_numpy(np.float64)
    white = adult.X["race=White"].to_numpy(np.float64)
    age = features[:, list(adult.X.columns).index("age")]
    source = f"Adult (registry, {features.shape[0]} rows)"
    return _tensors(features, adult.y.to_numpy(np.float64), sex, age, white, source)


def synthetic_adult(seed: int = 0) -> BenchData:
    """Synthetic data of Adult's shape: binary label, sex and race, continuous age."""
    rng = np.random.default_rng(seed)
    n, p = 45_222, 101
    sex = (rng.random(n) < 0.67).astype(np.float64)
    white = (rng.random(n) < 0.86).astype(np.float64)
    age = rng.normal(size=n)
    features = rng.normal(size=(n, p))
    features[:, 0] = age
    features[:, 1] += sex
    logit = features[:, :6] @ rng.normal(size=6) + 0.8 * sex - 1.2
    labels = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(np.float64)
    return _tensors(features, labels, sex, age, white, f"synthetic stand-in ({n} x {p})")


def _tensors(
    features: np.ndarray,
    labels: np.ndarray,
    sex: np.ndarray,
    age: np.ndarray,
    white: np.ndarray,
    source: str,
) -> BenchData:
    return BenchData(
        X=torch.as_tensor(features, dtype=torch.float32),
        y=torch.as_tensor(labels, dtype=torch.float32),
        sensitive=torch.as_tensor(sex[:, None], dtype=torch.float32),
        sensitive3=torch.as_tensor(np.column_stack([sex, age, white]), dtype=torch.float32),
        source=source,
    )


#: Methods in the order printed: name and penalty factory (``None``: unregularised).
METHODS: dict[str, Callable[[], FairnessPenalty] | None] = {
    "NN (none)": None,
    "FairCOCCO": lambda: FairCOCCOPenalty(notion="eo", lam=1.0),
    "FACL": lambda: FACLPenalty(notion="eo", lam=1.0),
    "FARMI": lambda: FARMIPenalty(notion="eo", lam=1.0),
    "HSIC": lambda: HSICPenalty(notion="eo", lam=1.0),
    "covariance": lambda: CovariancePenalty(notion="eo", lam=1.0, threshold=0.5),
    "linear loss": lambda: LinearLossPenalty(notion="eo", lam=1.0),
}
THREE_ATTRIBUTES = ("FairCOCCO", "FACL")


def epoch_seconds(
    data: BenchData, method: str, batch_size: int, *, three: bool = False, seed: int = 0
) -> float:
    """Wall time of one training epoch of the paper's network with ``method``'s penalty."""
    factory = METHODS[method]
    torch.manual_seed(seed)
    model = paper_mlp(int(data.X.shape[1]), 1)
    sensitive = data.sensitive3 if three else data.sensitive
    history = fit_fair(
        model,
        (data.X, data.y, sensitive),
        loss=nn.BCEWithLogitsLoss(),
        penalty=None if factory is None else factory(),
        optimizer=torch.optim.Adam(model.parameters(), lr=1e-3),
        batch_size=batch_size,
        epochs=1,
        penalty_input=torch.sigmoid,
        random_state=seed,
        progress=False,
    )
    return history.epoch_seconds[0]


def step_seconds(
    data: BenchData,
    methods: Sequence[str],
    batch_size: int,
    steps: int,
    *,
    three: bool = False,
    seed: int = 0,
) -> dict[str, float]:
    """Median wall time of one training step per method over ``steps`` steps (after 5 warm-up
    steps). The methods take turns on the same batches, so that drift in the machine's speed
    affects every method alike."""
    generator = torch.Generator().manual_seed(seed)
    sensitive = data.sensitive3 if three else data.sensitive
    loss = nn.BCEWithLogitsLoss()
    runs = {}
    for method in methods:
        torch.manual_seed(seed)
        model = paper_mlp(int(data.X.shape[1]), 1)
        factory = METHODS[method]
        penalty = None if factory is None else factory()
        if penalty is not None:
            penalty.fit(sensitive, data.y)  # as fit_fair does before its first epoch
        runs[method] = (model, torch.optim.Adam(model.parameters(), lr=1e-3), penalty)
    n = int(data.X.shape[0])
    times: dict[str, list[float]] = {method: [] for method in methods}
    for step in range(steps + 5):
        rows = torch.randint(0, n, (batch_size,), generator=generator)
        x, y, s = data.X[rows], data.y[rows], sensitive[rows]
        for method, (model, optimizer, penalty) in runs.items():
            started = time.perf_counter()
            optimizer.zero_grad(set_to_none=True)
            output = model(x)
            objective = loss(output, y)
            if penalty is not None:
                objective = objective + penalty(torch.sigmoid(output), s, y)
            objective.backward()
            optimizer.step()
            if step >= 5:
                times[method].append(time.perf_counter() - started)
    return {method: statistics.median(values) for method, values in times.items()}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its tables.

    Parameters
    ----------
    argv : sequence of str, optional
        Command-line arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status, 0.
    """
    parser = argparse.ArgumentParser(
        prog="python benchmarks/torch_training.py",
        description="Epoch and step times of the paper's network with each fairness penalty.",
    )
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 128, 256])
    parser.add_argument("--steps", type=int, default=200, help="steps per step-time median")
    parser.add_argument("--rounds", type=int, default=3, help="epochs per epoch-time median")
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    parser.add_argument(
        "--rows", type=int, default=None, help="use only the first ROWS rows (quick runs)"
    )
    parser.add_argument(
        "--synthetic", action="store_true", help="use the synthetic stand-in, not Adult"
    )
    parser.add_argument(
        "--methods", nargs="+", default=list(METHODS), choices=list(METHODS), metavar="METHOD"
    )
    args = parser.parse_args(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    data = synthetic_adult() if args.synthetic else bench_data()
    if args.rows is not None:
        data = BenchData(
            data.X[: args.rows],
            data.y[: args.rows],
            data.sensitive[: args.rows],
            data.sensitive3[: args.rows],
            f"{data.source}, first {args.rows} rows",
        )
    methods = [m for m in METHODS if m in args.methods]
    sizes = list(args.batch_sizes)
    print("torch_training: training cost per penalty (EO, attribute sex, on probabilities)")
    print(f"data: {data.source}; X {tuple(data.X.shape)}")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads, Python {platform.python_version()}"
    )
    print("network: paper_mlp (two hidden ReLU layers), Adam lr 1e-3, BCE with logits")
    print()

    # the methods take turns within each round, so drift in the machine's speed affects all
    rounds: dict[tuple[str, int], list[float]] = {(m, b): [] for m in methods for b in sizes}
    for _ in range(args.rounds):
        for size in sizes:
            for method in methods:
                rounds[method, size].append(epoch_seconds(data, method, size))
    epochs = {key: statistics.median(values) for key, values in rounds.items()}
    print(f"time per epoch (s), median of {args.rounds} rounds")
    print(_row("method", [f"batch {b}" for b in sizes]))
    for method in methods:
        print(_row(method, [f"{epochs[method, b]:.3f}" for b in sizes]))
    print()

    steps: dict[tuple[str, int], float] = {}
    three = [m for m in THREE_ATTRIBUTES if m in methods]
    for size in sizes:
        for method, seconds in step_seconds(data, methods, size, args.steps).items():
            steps[method, size] = seconds
        for method, seconds in step_seconds(data, three, size, args.steps, three=True).items():
            steps[f"{method}, 3 attr.", size] = seconds
    print(f"median time of one training step over {args.steps} steps (ms), methods in turn")
    print(_row("method", [f"batch {b}" for b in sizes]))
    for key in [*methods, *(f"{m}, 3 attr." for m in three)]:
        print(_row(key, [f"{1e3 * steps[key, b]:.2f}" for b in sizes]))
    print()

    print("targets")
    target_size = 256
    if target_size not in sizes:
        print(f"  (batch {target_size} not measured; no targets to check)")
        return 0
    if {"FairCOCCO", "FACL"} <= set(methods):
        ours, facl = steps["FairCOCCO", target_size], steps["FACL", target_size]
        print(
            f"  FairCOCCO step <= FACL step at batch {target_size}: "
            f"{1e3 * ours:.2f} ms vs {1e3 * facl:.2f} ms ({ours / facl:.2f}x) -> "
            f"{'met' if ours <= facl else 'missed'}"
        )
        ours3, facl3 = (
            steps["FairCOCCO, 3 attr.", target_size],
            steps["FACL, 3 attr.", target_size],
        )
        print(
            f"  (3 attributes: FairCOCCO {1e3 * ours3:.2f} ms vs FACL {1e3 * facl3:.2f} ms, "
            f"{ours3 / facl3:.2f}x)"
        )
    if {"FairCOCCO", "NN (none)"} <= set(methods):
        # the ratio of each round's two epochs, which ran back to back: the median of those
        # is less affected by drift in the machine's speed than the ratio of the medians
        ratio = statistics.median(
            penalised / unpenalised
            for penalised, unpenalised in zip(
                rounds["FairCOCCO", target_size], rounds["NN (none)", target_size], strict=True
            )
        )
        print(
            f"  FairCOCCO epoch <= 2x unregularised epoch at batch {target_size}: "
            f"{ratio:.2f}x (median of the rounds' ratios) -> "
            f"{'met' if ratio <= 2 else 'missed'}"
        )
    return 0


def _row(label: str, cells: Sequence[str]) -> str:
    return f"  {label:<22}" + "".join(f"{cell:>12}" for cell in cells)


if __name__ == "__main__":
    raise SystemExit(main())
