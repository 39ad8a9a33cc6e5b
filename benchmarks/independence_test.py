"""Size and power of the permutation test: ``python benchmarks/independence_test.py``.

On generated data with one continuous attribute ``a`` and a weak dependence
(``y_pred = y + 0.15 a + noise`` under the alternative, ``y_pred = y + noise`` under the null),
it prints the rejection rate at the 5% level, with its standard error over repetitions, of
:func:`~faircocco_plugins.independence_test` and, where installed, of hyppo's HSIC test (DP)
and causal-learn's KCI (EO and CAL), all on the same data; and, for the FairCOCCO rows, the
mean chance-adjusted score of the fair (null) data. Settings:

* ``dp``: ``a`` independent of ``y``; the null is ``Ŷ ⊥ A``;
* ``eo-binary`` and ``eo-continuous``: ``a = y + noise`` with a binary or continuous ``y``; the
  null is ``Ŷ ⊥ A | Y``;
* ``eo-mixed``: ``y`` has a binary and a continuous column, ``a`` follows both;
* ``dp-sine`` and ``dp-variance``: DP with a dependence the default settings were not chosen on:
  ``y_pred = y + 0.4 sin(3a) + noise`` (fine structure, which narrow kernels see) and
  ``y_pred = y + (1 + 0.35 |a|) noise`` (the attribute changes the spread alone);
* ``cal-binary``: probabilities ``Ŷ = σ(z)`` of a binary outcome, ``a = z + noise``, and
  ``Y ~ Bernoulli(σ(z + 0.6 a))`` under the alternative (``σ(z)`` under the null); the null is
  ``Y ⊥ A | Ŷ`` with a continuous conditioning variable.

Benchmarks are not tests: nothing here asserts a rate.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np
import pandas as pd

from faircocco_plugins import faircocco_score, independence_test

SETTINGS = ("dp", "dp-sine", "dp-variance", "eo-binary", "eo-continuous", "eo-mixed", "cal-binary")
#: Strength of the attribute's direct effect under the alternative (on the outcome's logit for
#: ``cal-binary``, where a binary outcome carries less information).
EFFECT = 0.15
CAL_EFFECT = 0.6
LEVEL = 0.05


@dataclass(frozen=True)
class Sample:
    y_pred: np.ndarray
    attribute: np.ndarray
    y_true: np.ndarray | None
    notion: str


def sample(setting: str, n: int, dependent: bool, rng: np.random.Generator) -> Sample:
    """One data set of ``setting`` with ``n`` rows, under the alternative when ``dependent``."""
    if setting == "cal-binary":
        z = rng.normal(size=n)
        a = z + rng.normal(size=n)
        outcome = rng.random(n) < _sigmoid(z + CAL_EFFECT * dependent * a)
        return Sample(_sigmoid(z), a, outcome.astype(np.float64), "cal")
    if setting == "eo-mixed":
        y = np.column_stack([rng.integers(0, 2, n), rng.normal(size=n)])
        a = y.sum(axis=1) + rng.normal(size=n)
        pred = y.sum(axis=1) + EFFECT * dependent * a + rng.normal(size=n)
        return Sample(pred, a, y, "eo")
    if setting in ("dp-sine", "dp-variance"):
        y, a, noise = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
        if setting == "dp-sine":
            return Sample(y + 0.4 * dependent * np.sin(3 * a) + noise, a, None, "dp")
        return Sample(y + (1 + 0.35 * dependent * np.abs(a)) * noise, a, None, "dp")
    if setting == "eo-binary":
        y = rng.integers(0, 2, n).astype(np.float64)
    else:
        y = rng.normal(size=n)
    a = rng.normal(size=n) if setting == "dp" else y + rng.normal(size=n)
    pred = y + EFFECT * dependent * a + rng.normal(size=n)
    if setting == "dp":
        return Sample(pred, a, None, "dp")
    return Sample(pred, a, y, "eo")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


Test = Callable[[Sample, int], float]


def faircocco_test(permutations: int, options: dict[str, Any]) -> Test:
    def pvalue(s: Sample, seed: int) -> float:
        result = independence_test(
            s.y_pred,
            s.attribute,
            y_true=s.y_true,
            notion=s.notion,
            n_permutations=permutations,
            random_state=seed,
            **options,
        )
        return result.pvalue

    return pvalue


def peer_tests() -> dict[str, Test]:
    """hyppo's HSIC (DP) and causal-learn's KCI (EO, CAL), where installed, as they run by
    default: both approximate their null distributions instead of permuting."""
    tests: dict[str, Test] = {}
    if importlib.util.find_spec("hyppo") is not None:
        from hyppo.independence import Hsic

        def hsic(s: Sample, seed: int) -> float:
            if s.notion != "dp":
                return float("nan")
            # hyppo's default: above 20 rows a chi-square approximation of the permutation null
            # (a permutation null of 199 took 14 s per test at N = 1000 here)
            return float(Hsic().test(s.y_pred, s.attribute, random_state=seed)[1])

        tests["hyppo HSIC"] = hsic
    if importlib.util.find_spec("causallearn") is not None:
        from causallearn.utils.cit import CIT

        def kci(s: Sample, seed: int) -> float:
            if s.notion == "dp":
                return float("nan")
            assert s.y_true is not None
            given = s.y_true if s.notion == "eo" else s.y_pred
            measured = s.y_pred if s.notion == "eo" else s.y_true
            data = np.column_stack([measured, s.attribute, given])
            return float(CIT(data, "kci")(0, 1, list(range(2, data.shape[1]))))

        tests["causal-learn KCI"] = kci
    return tests


def run(
    *,
    settings: Sequence[str] = SETTINGS,
    sizes: Sequence[int] = (300, 1000),
    repetitions: int = 100,
    permutations: int = 199,
    eps_values: Sequence[float | None] = (None,),
    width_sets: Sequence[tuple[float, ...] | None] = (None,),
    peers: bool = True,
    null_only: bool = False,
    out: TextIO | None = None,
) -> pd.DataFrame:
    """Print and return the rejection rates of each test, setting and size.

    ``eps_values`` and ``width_sets`` list the ``eps`` and the kernel ``widths`` of the
    FairCOCCO test (``None``: its default); every pair is run. Repetition ``r`` draws its data
    from seed ``r`` under the null and ``10⁶ + r`` under the alternative, the same for every
    test; ``null_only`` leaves out the alternative (size alone, e.g. at large ``N``).
    """
    hypotheses = ((False, "size"),) if null_only else ((False, "size"), (True, "power"))
    tests = {
        _variant_name(eps, widths): faircocco_test(
            permutations,
            {
                **({} if eps is None else {"eps": eps}),
                **({} if widths is None else {"widths": widths}),
            },
        )
        for eps in eps_values
        for widths in width_sets
    }
    if peers:
        tests.update(peer_tests())
    rows = []
    for setting in settings:
        for n in sizes:
            for name, test in tests.items():
                rates: dict[str, Any] = {"setting": setting, "n": n, "test": name}
                seconds = 0.0
                for dependent, label in hypotheses:
                    rejected = []
                    for r in range(repetitions):
                        data = sample(
                            setting, n, dependent, np.random.default_rng(r + 10**6 * dependent)
                        )
                        start = time.perf_counter()
                        p = test(data, r)
                        seconds += time.perf_counter() - start
                        rejected.append(p <= LEVEL)
                    if np.isnan(p):
                        break
                    rate = float(np.mean(rejected))
                    rates[label] = rate
                    rates[f"{label}_se"] = float(np.sqrt(rate * (1 - rate) / repetitions))
                else:
                    rates["seconds_per_test"] = seconds / (len(hypotheses) * repetitions)
                    if name.startswith("faircocco"):
                        rates["adjusted_null"] = _mean_adjusted(setting, n, repetitions)
                    rows.append(rates)
                    if out is not None:
                        print(_line(rates), file=out, flush=True)
    return pd.DataFrame(rows)


def _variant_name(eps: float | None, widths: tuple[float, ...] | None) -> str:
    name = f"faircocco eps={'default' if eps is None else f'{eps:g}'}"
    if widths is not None:
        name += " w=" + "+".join(f"{w:g}" for w in widths)
    return name


def _mean_adjusted(setting: str, n: int, repetitions: int) -> float:
    """Mean adjusted score (the score's own ``eps``) of the null data of every repetition."""
    values = []
    for r in range(repetitions):
        s = sample(setting, n, False, np.random.default_rng(r))
        values.append(
            faircocco_score(s.y_pred, s.attribute, y_true=s.y_true, notion=s.notion, adjusted=True)
        )
    return float(np.mean(values))


def _line(r: dict[str, Any]) -> str:
    adjusted = f"  adjusted under the null {r['adjusted_null']:.4f}" if "adjusted_null" in r else ""
    power = f"  power {r['power']:.3f} ± {r['power_se']:.3f}" if "power" in r else ""
    return (
        f"{r['setting']:>14} {r['n']:>5} {r['test']:>28}  size {r['size']:.3f} ± "
        f"{r['size_se']:.3f}{power}  {r['seconds_per_test']:.3f} s/test{adjusted}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark from the command line."""
    parser = argparse.ArgumentParser(
        prog="python benchmarks/independence_test.py",
        description="Rejection rates at the 5%% level, with standard errors, of the FairCOCCO "
        "permutation test and (where installed) hyppo's HSIC and causal-learn's KCI on the same "
        "generated data, under the null and a weak dependence.",
    )
    parser.add_argument(
        "--settings", default=",".join(SETTINGS), help="comma-separated settings (default: all)"
    )
    parser.add_argument("--sizes", default="300,1000", help="comma-separated N (default: 300,1000)")
    parser.add_argument("--repetitions", type=int, default=100, metavar="R")
    parser.add_argument("--permutations", type=int, default=199, metavar="B")
    parser.add_argument(
        "--eps", default="default", help="comma-separated eps of the FairCOCCO test, or 'default'"
    )
    parser.add_argument(
        "--widths",
        default="default",
        help="comma-separated kernel width sets of the FairCOCCO test, each 'default' or "
        "multiples of the bandwidth joined by '+' (e.g. 'default,1')",
    )
    parser.add_argument(
        "--null-only", action="store_true", help="size alone: leave out the alternative"
    )
    parser.add_argument("--no-peers", action="store_true", help="leave out hyppo and causal-learn")
    args = parser.parse_args(argv)
    run(
        settings=args.settings.split(","),
        sizes=[int(n) for n in args.sizes.split(",")],
        repetitions=args.repetitions,
        permutations=args.permutations,
        eps_values=[None if value == "default" else float(value) for value in args.eps.split(",")],
        width_sets=[
            None if value == "default" else tuple(float(w) for w in value.split("+"))
            for value in args.widths.split(",")
        ],
        peers=not args.no_peers,
        null_only=args.null_only,
        out=sys.stdout,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
