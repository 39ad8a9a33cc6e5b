"""Checks that the built distributions work as a user installs them: from their wheels, away from
the source tree.

``make wheels`` runs it (through ``wheel_smoke.sh``) in a fresh virtual environment where the
wheels are installed, from a temporary working directory, under ``python -I`` so that neither the
working directory, the script's folder nor ``PYTHONPATH`` can put the sources on the path. It
lives in ``.ci/``, outside pytest's ``testpaths``: it needs that environment, not the development
one, and pytest must never collect it.

Usage: ``python -I wheel_smoke.py [bench] [torch] [fairlearn] [aif360]``, naming what is
installed beside the core: its ``bench`` extra, and adapters. Each check prints one line; the
first that fails stops the run with a message.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

SOURCE_TREE = Path(__file__).resolve().parents[1]

# distribution name and import package, by the name given on the command line
DISTRIBUTIONS = {
    "core": ("faircocco-plugins", "faircocco_plugins"),
    "torch": ("faircocco-torch", "faircocco_torch"),
    "fairlearn": ("faircocco-fairlearn", "faircocco_fairlearn"),
    "aif360": ("faircocco-aif360", "faircocco_aif360"),
}
# a method and a dataset each adapter registers through its entry points (None: no dataset)
REGISTERED = {
    "torch": ("faircocco", None),
    "fairlearn": ("fairlearn_expgrad", "fairlearn_adult"),
    "aif360": ("aif360_reweighing", "aif360_adult"),
}


class SmokeFailure(Exception):
    """A check of the installed distributions failed."""


def require(condition: bool, message: str) -> None:
    """Raise :class:`SmokeFailure` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise SmokeFailure(message)


def check_installed_from_wheel(name: str) -> None:
    """The import package comes from this environment's site-packages, not from the sources, and
    its ``__version__`` is the installed distribution's."""
    distribution, package = DISTRIBUTIONS[name]
    module = importlib.import_module(package)
    location = Path(str(module.__file__)).resolve()
    site_packages = Path(sysconfig.get_paths()["purelib"]).resolve()
    require(
        not location.is_relative_to(SOURCE_TREE),
        f"{package} is imported from the source tree ({location}), not from its wheel",
    )
    require(
        location.is_relative_to(site_packages),
        f"{package} is imported from {location}, outside this environment's {site_packages}",
    )
    installed = metadata.version(distribution)
    require(
        module.__version__ == installed,
        f"{package}.__version__ is {module.__version__}, its distribution {installed}",
    )
    print(f"ok: {distribution} {installed} imported from {location.parent}")


def check_score() -> None:
    """Predictions that follow the attribute score well above predictions that ignore it."""
    from faircocco_plugins import faircocco_score

    rng = np.random.default_rng(0)
    attribute = rng.normal(size=300)
    dependent = faircocco_score(attribute + 0.3 * rng.normal(size=300), attribute, adjusted=True)
    independent = faircocco_score(rng.normal(size=300), attribute, adjusted=True)
    # measured: 0.67 and 0.00
    require(
        dependent > 0.5 and independent < 0.1,
        f"faircocco_score: dependent {dependent:.3f}, independent {independent:.3f}",
    )
    print(f"ok: faircocco_score {dependent:.3f} (dependent), {independent:.3f} (independent)")


def run_command(*args: str) -> str:
    """Run the installed ``faircocco`` command and return its standard output."""
    command = shutil.which("faircocco", path=str(Path(sys.executable).parent))
    require(command is not None, f"no faircocco command beside {sys.executable}")
    result = subprocess.run(
        [str(command), *args], capture_output=True, text=True, timeout=300, check=False
    )
    require(
        result.returncode == 0,
        f"faircocco {' '.join(args)} exited with {result.returncode}: {result.stderr[-2000:]}",
    )
    return result.stdout


def check_command_line() -> None:
    """``faircocco --help``, ``datasets --json`` and ``score`` on a small CSV file."""
    require("score" in run_command("--help"), "faircocco --help does not list score")
    names = {row["name"] for row in json.loads(run_command("datasets", "--json"))}
    require("synthetic" in names, f"faircocco datasets lists no synthetic dataset: {names}")
    rng = np.random.default_rng(1)
    table = pd.DataFrame({"sex": rng.choice(["f", "m"], 200), "age": rng.uniform(18, 80, 200)})
    table["pred"] = 0.01 * table["age"] + rng.normal(0, 0.5, 200)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "predictions.csv"
        table.to_csv(path, index=False)
        report = run_command("score", str(path), "--pred", "pred", "--sensitive", "sex,age")
    require("joint" in report, f"faircocco score printed no joint score:\n{report}")
    print("ok: faircocco --help, datasets --json, score FILE")


def check_synthetic_dataset() -> None:
    """The registry's synthetic dataset loads without files or network."""
    from faircocco_plugins.datasets import load_dataset

    data = load_dataset("synthetic", random_state=3, download=False)
    require(
        data.task == "classification" and data.X.shape == (2000, 7),
        f"load_dataset('synthetic'): {data.task}, X of shape {data.X.shape}",
    )
    print(f"ok: load_dataset('synthetic'), X of shape {data.X.shape}")


def check_bench() -> None:
    """The harness imports with the ``bench`` extra's dependencies, and its command answers."""
    import faircocco_plugins.bench  # noqa: F401

    usage = run_command("bench", "--help")
    require("--preset" in usage, "faircocco bench --help lists no --preset")
    print("ok: faircocco_plugins.bench imports, faircocco bench --help")


def check_torch() -> None:
    """A FairCOCCOPenalty forward and backward on a small batch."""
    import torch

    from faircocco_torch import FairCOCCOPenalty

    generator = torch.Generator().manual_seed(0)
    sensitive = torch.rand(64, 2, generator=generator)
    y_pred = (sensitive[:, 0] + 0.1 * torch.rand(64, generator=generator)).requires_grad_()
    penalty = FairCOCCOPenalty(notion="dp", lam=1.0)(y_pred, sensitive)
    penalty.backward()
    gradient = y_pred.grad
    require(
        bool(torch.isfinite(penalty)) and penalty.item() > 0.1,  # measured: 0.22
        f"FairCOCCOPenalty on dependent predictions: {penalty.item()}",
    )
    require(
        gradient is not None and bool(torch.isfinite(gradient).all()),
        "FairCOCCOPenalty: no finite gradient",
    )
    print(f"ok: FairCOCCOPenalty forward {penalty.item():.3f} and backward")


def check_fairlearn() -> None:
    """The fairlearn metric on small arrays."""
    from faircocco_fairlearn import faircocco_metric

    rng = np.random.default_rng(2)
    attribute = rng.normal(size=300)
    y_true = rng.integers(0, 2, 300)
    score = faircocco_metric(
        y_true, attribute + 0.3 * rng.normal(size=300), sensitive_features=attribute, notion="dp"
    )
    require(0.5 < score <= 1.0, f"faircocco_metric on dependent predictions: {score}")
    print(f"ok: faircocco_metric {score:.3f}")


def check_aif360() -> None:
    """The AIF360 metric on a small BinaryLabelDataset whose scores follow its attribute."""
    from aif360.datasets import BinaryLabelDataset

    from faircocco_aif360 import FairCOCCOMetric

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.uniform(18, 80, 300), "x": rng.normal(size=300)})
    frame["y"] = (frame["x"] > 0).astype(float)
    truth = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["age"])
    biased = truth.copy(deepcopy=True)
    biased.scores = (frame["age"].to_numpy() > 40).astype(float).reshape(-1, 1)
    score = FairCOCCOMetric(truth, biased).faircocco_score(notion="dp", adjusted=True)
    require(score > 0.2, f"FairCOCCOMetric on scores that follow age: {score}")  # measured: 0.4
    print(f"ok: FairCOCCOMetric {score:.3f}")


def check_entry_points(adapters: list[str]) -> None:
    """Every registered method loads, and each adapter's methods and datasets are found."""
    from faircocco_plugins.datasets import list_datasets
    from faircocco_plugins.plugins import available_methods

    methods = available_methods()  # raises, naming them, if any entry point is broken
    datasets = set(list_datasets().index)
    for adapter in adapters:
        method, dataset = REGISTERED[adapter]
        require(method in methods, f"available_methods() lacks {method!r}: {sorted(methods)}")
        require(
            dataset is None or dataset in datasets,
            f"list_datasets() lacks {dataset!r}: {sorted(datasets)}",
        )
    print(f"ok: {len(methods)} methods registered, {len(datasets)} datasets")


# what may be named on the command line: the core's bench extra, and the adapters
EXTRA_CHECKS: dict[str, Callable[[], None]] = {
    "bench": check_bench,
    "torch": check_torch,
    "fairlearn": check_fairlearn,
    "aif360": check_aif360,
}


def main(argv: list[str] | None = None) -> int:
    """Run every check of the core and of the extra and adapters named in ``argv``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # no `choices`: argparse rejects an empty list of positional arguments checked against them
    parser.add_argument("installed", nargs="*", help=f"any of {', '.join(EXTRA_CHECKS)}")
    installed: list[str] = parser.parse_args(argv).installed
    unknown = sorted(set(installed) - set(EXTRA_CHECKS))
    if unknown:
        parser.error(f"unknown names {unknown}; expected any of {sorted(EXTRA_CHECKS)}")
    adapters = [name for name in installed if name in DISTRIBUTIONS]
    try:
        for name in ["core", *adapters]:
            check_installed_from_wheel(name)
        check_score()
        check_command_line()
        check_synthetic_dataset()
        for name in installed:
            EXTRA_CHECKS[name]()
        check_entry_points(adapters)
    except SmokeFailure as failure:
        print(f"wheel smoke check failed: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
