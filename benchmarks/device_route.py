"""Host round trips and times of the device route: ``python benchmarks/device_route.py``.

Prints, for numpy arrays on the host, torch tensors on the CPU and, where one is available,
torch tensors on a CUDA device:

(a) ``faircocco_score`` under equalised odds at 10⁴ to 10⁷ rows (``--max-rows`` caps them)
    with three numeric sensitive attributes of mixed type (age continuous, sex binary, region
    with four levels), a binary outcome and continuous predictions: the median time of
    ``--repeats`` calls after one warm-up call, and the host crossings of one call. CPU
    tensors take the host route; the row "torch cpu, device route" sends them through the
    device route anyway (:mod:`faircocco_plugins._routes.device`, which CUDA tensors take);
(b) one penalty step (forward and backward, no model) at batches of 256 to 16,384 rows for
    FairCOCCO (EO, chance-adjusted: the adapter's default), FACL and HSIC, fitted on 50,000
    training rows, each batch's attributes and outcomes passed as CPU tensors: the median time
    over ``--steps`` steps and the host crossings of one step. FairCOCCO's predictions take the
    host closed form on the CPU, and on CUDA in batches of up to ``HOST_BATCH_ROWS`` rows
    (:mod:`faircocco_plugins._routes.choose`); the row "FairCOCCO, device route" sends every
    batch through the device route (:mod:`faircocco_plugins._routes.device_penalty`, which
    larger CUDA batches take);
(c) the device penalty's value in float32 against float64 at ``eps`` from 1e-4 to 1 (why it
    computes in float64).

Host crossings are counted by wrapping torch's conversions between tensors and host values:
reads (``Tensor.cpu``, ``.numpy``, ``.item``, ``.tolist``, ``__array__``, ``__bool__``,
``__float__``, ``__int__``; a read inside another counts once) and writes of host data into
tensors (``torch.tensor``, ``torch.as_tensor``, ``torch.asarray``, ``torch.from_numpy`` of
anything but a tensor). On the CPU they cost nothing but are the calls that cross between host
and device on an accelerator; a read waits for the device. The aten operators dispatched are
counted too: each is a kernel launch on a device. Under CUDA, torch.profiler's ``cudaMemcpy*``,
``cudaStreamSynchronize`` and kernel-launch events are counted as well.
This is a benchmark, not a test: it reports what it measures and asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any
from unittest import mock

import numpy as np
import torch
from array_api_compat import is_torch_array
from torch.utils._python_dispatch import TorchDispatchMode

from faircocco_plugins import BatchStatistic, faircocco_score
from faircocco_plugins._linalg import backend
from faircocco_plugins._routes import choose
from faircocco_plugins._routes.device_penalty import device_statistic
from faircocco_torch import FACLPenalty, FairCOCCOPenalty, HSICPenalty

#: Tensor methods that read a value to the host, and torch functions that write one in.
READS = ("cpu", "numpy", "item", "tolist", "__array__", "__bool__", "__float__", "__int__")
WRITES = ("tensor", "as_tensor", "asarray", "from_numpy")
PENALTIES: dict[str, Callable[[], Any]] = {
    "FairCOCCO": lambda: FairCOCCOPenalty(notion="eo"),
    "FairCOCCO, device route": lambda: FairCOCCOPenalty(notion="eo"),
    "FACL": lambda: FACLPenalty(notion="eo"),
    "HSIC": lambda: HSICPenalty(notion="eo"),
}


def mixed_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predictions, three numeric attributes (age, sex, region) and a binary outcome."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(18, 80, n)
    sex = rng.integers(0, 2, n).astype(np.float64)
    region = rng.integers(0, 4, n).astype(np.float64)
    y = (rng.random(n) < 0.2 + 0.3 * sex + 0.004 * (age - 18)).astype(np.float64)
    pred = 0.5 * sex + age / 60 + y + rng.normal(scale=0.5, size=n)
    return pred, np.column_stack([age, sex, region]), y


@contextlib.contextmanager
def counted_crossings() -> Iterator[Counter[str]]:
    """Counts host reads and writes of torch values (see the module docstring) while active."""
    counts: Counter[str] = Counter()
    patches = [
        mock.patch.object(
            torch.Tensor, name, _counting(getattr(torch.Tensor, name), "read", counts)
        )
        for name in READS
    ]
    patches += [
        mock.patch.object(torch, name, _counting(getattr(torch, name), "write", counts))
        for name in WRITES
    ]
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        yield counts


def _counting(function: Callable[..., Any], kind: str, counts: Counter[str]) -> Any:
    """``function``, counting its outermost calls (a read inside a read, as ``__array__``
    calling ``.numpy()``, is one crossing) and, for writes, only those of host data."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        outermost = not counts["depth"]
        if outermost and (kind == "read" or not isinstance(args[0], torch.Tensor)):
            counts[kind] += 1
        counts["depth"] += 1
        try:
            return function(*args, **kwargs)
        finally:
            counts["depth"] -= 1

    return wrapper


class CountedOperators(TorchDispatchMode):
    """Counts the aten operators dispatched while active, views aside: each is about one kernel
    launch on a device."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.count += not func.is_view
        return func(*args, **(kwargs or {}))


def cuda_copies(call: Callable[[], Any]) -> str:
    """``cudaMemcpy*``, ``cudaStreamSynchronize`` and kernel-launch calls of one ``call``, by
    torch.profiler."""
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as profile:
        call()
        torch.cuda.synchronize()
    events = Counter(event.name for event in profile.events())
    copies = sum(count for name, count in events.items() if name.startswith("cudaMemcpy"))
    launches = sum(count for name, count in events.items() if "LaunchKernel" in name)
    return f"{copies} memcpy, {events['cudaStreamSynchronize']} sync, {launches} launches"


def crossings(call: Callable[[], Any], device: str) -> str:
    """The host crossings of one ``call``, as printed."""
    with counted_crossings() as counts, CountedOperators() as operators:
        call()
    text = f"{counts['read']} reads, {counts['write']} writes, {operators.count} operators"
    return text + (f"; {cuda_copies(call)}" if device == "cuda" else "")


def timed(call: Callable[[], Any], repeats: int, device: str) -> float:
    """Median seconds of ``repeats`` calls after one warm-up call."""
    call()
    times = []
    for _ in range(repeats):
        _synchronise(device)
        started = time.perf_counter()
        call()
        _synchronise(device)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _synchronise(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def score_rows(sizes: Sequence[int], devices: Sequence[str], repeats: int) -> None:
    print("(a) faircocco_score, EO, 3 mixed attributes: median seconds per call; crossings")
    for n in sizes:
        pred, attributes, y = mixed_data(n)
        routes: dict[str, tuple[str, bool, Callable[[], Any]]] = {
            "numpy": ("numpy", False, partial(_score, pred, attributes, y))
        }
        for device in devices:
            tensors = [torch.tensor(v, device=device) for v in (pred, attributes, y)]
            routes[f"torch {device}"] = (device, False, partial(_score, *tensors))
            if device == "cpu":
                routes["torch cpu, device route"] = (device, True, partial(_score, *tensors))
        for name, (device, forced, call) in routes.items():
            with _device_route(forced):
                seconds = timed(call, repeats, device)
                crossed = "-" if device == "numpy" else crossings(call, device)
            print(f"  N={n:>10,}  {name:<24} {seconds:9.3f} s   {crossed}")
    print()


def _score(pred: Any, attributes: Any, y: Any) -> Any:
    return faircocco_score(pred, attributes, y_true=y, notion="eo")


def penalty_rows(
    batches: Sequence[int], devices: Sequence[str], steps: int, hsic_max_batch: int
) -> None:
    print("(b) penalty step (forward + backward), EO, 3 attributes: median ms; crossings")
    train_pred, attributes, y = mixed_data(50_000, seed=1)
    del train_pred
    s_host = torch.tensor(attributes)
    y_host = torch.tensor(y)
    rng = np.random.default_rng(2)
    for device in devices:
        for name, factory in PENALTIES.items():
            penalty = factory().fit(s_host, y_host)
            forced = name.endswith("device route")
            cells = []
            for size in batches:
                if name == "HSIC" and size > hsic_max_batch:
                    cells.append(f"{'-':>9}")
                    continue
                rows = rng.choice(50_000, size, replace=False)
                logits = torch.randn(size, dtype=torch.float64, device=device)
                step = partial(_step, penalty, logits.requires_grad_(), s_host[rows], y_host[rows])
                with _device_route(forced):
                    cells.append(f"{1e3 * timed(step, steps, device):9.2f}")
                    if size == batches[0]:
                        crossed = crossings(step, device)
            cells.append(f"   {crossed} (batch {batches[0]})")
            print(f"  {device:<5} {name:<24}" + "".join(cells))
    print("  batches: " + ", ".join(f"{b:,}" for b in batches))
    if any(size > hsic_max_batch for size in batches):
        print(f"  HSIC beyond {hsic_max_batch:,} rows not run (--hsic-max-batch)")
    print()


def _step(penalty: Any, logits: torch.Tensor, sensitive: Any, truth: Any) -> None:
    penalty(torch.sigmoid(logits), sensitive, truth).backward()


@contextlib.contextmanager
def _device_route(forced: bool) -> Iterator[None]:
    """Sends tensors through the device route (what an accelerator's tensors take, training
    batches of more than ``HOST_BATCH_ROWS`` rows), CPU tensors and small batches too."""
    if not forced:
        yield
        return
    with (
        mock.patch.object(backend, "on_accelerator", is_torch_array),
        mock.patch.object(choose, "HOST_BATCH_ROWS", 0),
    ):
        yield


def precision_rows(devices: Sequence[str]) -> None:
    print("(c) device penalty in float32 against float64 (EO, batch 4,096): relative difference")
    _, attributes, y = mixed_data(50_000, seed=1)
    pred, batch_attributes, batch_y = mixed_data(4096, seed=3)
    for device in devices:
        for eps in (1e-4, 1e-3, 1e-2, 1e-1, 1.0):
            cells = []
            for adjusted in (False, True):
                statistic = BatchStatistic(notion="eo", eps=eps, chance_adjusted=adjusted)
                statistic.fit(attributes, y)
                batch = statistic._plain_batch(pred, batch_attributes, batch_y)
                assert batch is not None, "the batch is one of plain numeric arrays"
                values, rows, _ = batch
                shift = statistic._shift(rows)
                like = torch.zeros((), dtype=torch.float64, device=device)
                side = statistic._fitted.attribute_side(rows, shift, like)
                _, scale = statistic._scaled_predictions(values)
                arguments = (side, shift, scale, statistic.options)
                double = float(device_statistic(torch.tensor(pred, device=device), *arguments))
                single = torch.tensor(pred, dtype=torch.float32, device=device)
                try:
                    value = device_statistic(single, *arguments, torch.float32)
                    cells.append(f"{abs(float(value) - double) / abs(double):.1e}")
                except torch.linalg.LinAlgError:
                    cells.append("not positive definite")
            print(f"  {device:<5} eps={eps:<7g} plain: {cells[0]:<24} chance-adjusted: {cells[1]}")
    print()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its tables; returns the exit status, 0."""
    parser = argparse.ArgumentParser(
        prog="python benchmarks/device_route.py",
        description="Times and host crossings of the score and penalty on each device.",
    )
    parser.add_argument("--max-rows", type=int, default=10**7, help="largest score size")
    parser.add_argument("--repeats", type=int, default=3, help="score calls per median")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[256, 1024, 4096, 16384])
    parser.add_argument("--steps", type=int, default=20, help="penalty steps per median")
    parser.add_argument(
        "--hsic-max-batch",
        type=int,
        default=16384,
        help="largest HSIC batch (it holds several batch x batch matrices)",
    )
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    parser.add_argument(
        "--devices",
        nargs="+",
        choices=["cpu", "cuda"],
        default=None,
        help="torch devices to measure (default: the CPU, and CUDA where available)",
    )
    args = parser.parse_args(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    devices = args.devices or ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    sizes = [10**k for k in range(4, 8) if 10**k <= args.max_rows]
    print("device_route: the score and the penalty on the host and on each torch device")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}, "
        f"{torch.get_num_threads()} torch threads, OMP_NUM_THREADS="
        f"{os.environ.get('OMP_NUM_THREADS', 'unset')}, Python {platform.python_version()}"
    )
    cuda = torch.cuda.get_device_name() if "cuda" in devices else "none (not measured)"
    print(f"CUDA device: {cuda}")
    print()
    score_rows(sizes, devices, args.repeats)
    penalty_rows(args.batch_sizes, devices, args.steps, args.hsic_max_batch)
    precision_rows(devices)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
