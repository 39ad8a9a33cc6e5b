"""Size, power and speed of the independence test: ``python benchmarks/independence_test.py``.

**Rates** (the default). On generated data it prints the rejection rate at the 5% level, with
its standard error over repetitions, of :func:`~faircocco_plugins.independence_test` under each
of its nulls (``--nulls``: the permutation null with ``--permutations`` permutations, the gamma
null, the spectral null), at each ``--eps`` and ``--conditioning-eps``, and, where installed,
of hyppo's HSIC test (DP) and causal-learn's KCI (``KCI_UInd`` for DP, ``KCI_CInd`` for EO and
CAL) and RCIT (``RIT`` for DP, ``RCIT`` for EO and CAL), all on the same data; and, for the
FairCOCCO rows, the mean chance-adjusted score of the fair (null) data. Two families of settings:

* one continuous attribute ``a`` and a weak dependence (``y_pred = y + 0.15 a + noise`` under
  the alternative, ``y_pred = y + noise`` under the null):

  * ``dp``: ``a`` independent of ``y``; the null is ``Ŷ ⊥ A``;
  * ``eo-binary`` and ``eo-continuous``: ``a = y + noise`` with a binary or continuous ``y``;
    the null is ``Ŷ ⊥ A | Y``;
  * ``eo-mixed``: ``y`` has a binary and a continuous column, ``a`` follows both;
  * ``dp-sine`` and ``dp-variance``: DP with a dependence the default settings were not chosen
    on: ``y_pred = y + 0.4 sin(3a) + noise`` (fine structure, which narrow kernels see) and
    ``y_pred = y + (1 + 0.35 |a|) noise`` (the attribute changes the spread alone);
  * ``cal-binary``: probabilities ``Ŷ = σ(z)`` of a binary outcome, ``a = z + noise``, and
    ``Y ~ Bernoulli(σ(z + 0.6 a))`` under the alternative (``σ(z)`` under the null); the null
    is ``Y ⊥ A | Ŷ`` with a continuous conditioning variable;

* ``NOTION-OUTCOME-aK`` (``--settings mixed`` lists all 18): notion ``dp``, ``eo`` or ``cal``,
  a ``binary`` or ``continuous`` outcome (under DP, the predictions: labels or scores) and the
  first ``K`` of three attributes of mixed type (continuous, binary, four levels), each
  following a latent ``z`` that the outcome also follows; under the alternative the
  continuous attribute has a direct effect of 0.15 on the predictions (DP, EO) or of 0.6 on
  the outcome (CAL, on its logit when binary). ``eo-continuous-a3`` is the setting of the
  speed comparison.

``--strengths`` multiplies the alternative's effect (power at several strengths); ``--null-only``
leaves out the alternative (size alone), ``--alternative-only`` the null (power alone).

**Speed** (``--speed``). The default test (``null="auto"``, which takes the spectral null from
300 rows at the test's defaults; ``--no-default`` leaves it out), the
gamma null (``null="gamma"``) and the spectral null (``null="spectral"``, at the first
``--conditioning-eps``) against causal-learn's KCI
(``KCI_CInd``, or ``KCI_UInd`` under DP) and RCIT (``RCIT``, or ``RIT`` under DP) and the
permutation test with ``--permutations``
permutations (``0`` leaves it out), and the default test at one ``--widths`` set and one
``--ranks`` value where they are given, on ``eo-continuous-a3`` unless ``--settings`` says
otherwise, at ``--sizes`` (300, 1,000 and 2,000 by default): one process, the methods
alternating on the same data sets; it prints each method's median time, KCI's median over it and
its median over RCIT's.

The peers are optional: ``pip install -r benchmarks/requirements.txt``.

Benchmarks are not tests: nothing here asserts a rate or a time.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np
import pandas as pd

from faircocco_plugins import faircocco_score, independence_test
from faircocco_plugins.plugins import notion_named

SETTINGS = ("dp", "dp-sine", "dp-variance", "eo-binary", "eo-continuous", "eo-mixed", "cal-binary")
#: The family of settings with mixed attributes: ``NOTION-OUTCOME-aK``.
MIXED = re.compile(r"(dp|eo|cal)-(binary|continuous)-a([123])")
MIXED_SETTINGS = tuple(
    f"{notion}-{outcome}-a{k}"
    for notion in ("dp", "eo", "cal")
    for outcome in ("binary", "continuous")
    for k in (1, 2, 3)
)
#: The setting of the speed comparison: EO, a continuous outcome, three mixed attributes.
SPEED_SETTING = "eo-continuous-a3"
#: Strength of the attribute's direct effect under the alternative (on the outcome's logit for
#: ``cal-binary``, where a binary outcome carries less information).
EFFECT = 0.15
CAL_EFFECT = 0.6
LEVEL = 0.05
NULLS = ("permutation", "gamma", "spectral")


@dataclass(frozen=True)
class Sample:
    y_pred: np.ndarray
    attribute: Any
    y_true: np.ndarray | None
    notion: str


def sample(
    setting: str, n: int, dependent: bool, rng: np.random.Generator, strength: float = 1.0
) -> Sample:
    """One data set of ``setting`` with ``n`` rows, under the alternative when ``dependent``
    (with the effect times ``strength``)."""
    effect = EFFECT * strength * dependent
    cal_effect = CAL_EFFECT * strength * dependent
    mixed = MIXED.fullmatch(setting)
    if mixed is not None:
        notion, outcome, k = mixed.groups()
        return _mixed(notion, outcome == "binary", int(k), n, effect, cal_effect, rng)
    if setting == "cal-binary":
        z = rng.normal(size=n)
        a = z + rng.normal(size=n)
        outcome = rng.random(n) < _sigmoid(z + cal_effect * a)
        return Sample(_sigmoid(z), a, outcome.astype(np.float64), "cal")
    if setting == "eo-mixed":
        y = np.column_stack([rng.integers(0, 2, n), rng.normal(size=n)])
        a = y.sum(axis=1) + rng.normal(size=n)
        pred = y.sum(axis=1) + effect * a + rng.normal(size=n)
        return Sample(pred, a, y, "eo")
    if setting in ("dp-sine", "dp-variance"):
        y, a, noise = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
        if setting == "dp-sine":
            return Sample(y + 0.4 * strength * dependent * np.sin(3 * a) + noise, a, None, "dp")
        return Sample(y + (1 + 0.35 * strength * dependent * np.abs(a)) * noise, a, None, "dp")
    if setting not in SETTINGS:
        raise ValueError(
            f"unknown setting {setting!r}; expected one of {SETTINGS} or NOTION-OUTCOME-aK"
        )
    if setting == "eo-binary":
        y = rng.integers(0, 2, n).astype(np.float64)
    else:
        y = rng.normal(size=n)
    a = rng.normal(size=n) if setting == "dp" else y + rng.normal(size=n)
    pred = y + effect * a + rng.normal(size=n)
    if setting == "dp":
        return Sample(pred, a, None, "dp")
    return Sample(pred, a, y, "eo")


def _mixed(
    notion: str,
    binary: bool,
    k: int,
    n: int,
    effect: float,
    cal_effect: float,
    rng: np.random.Generator,
) -> Sample:
    """A ``NOTION-OUTCOME-aK`` data set: the first ``k`` of a continuous, a binary and a
    four-level attribute, all following a latent ``z``."""
    z = rng.normal(size=n)
    direct = z + rng.normal(size=n)
    columns = {
        "continuous": direct,
        "binary": rng.random(n) < _sigmoid(z),
        "levels": pd.Categorical(np.clip(np.floor(z + rng.normal(size=n)) + 2, 0, 3).astype(int)),
    }
    attributes = pd.DataFrame(columns).iloc[:, :k]
    if notion == "dp":
        # the predictions follow nothing but noise under the null
        score = rng.normal(size=n) + effect * direct
        return Sample((score > 0).astype(np.float64) if binary else score, attributes, None, "dp")
    if notion == "eo":
        # the outcome follows z, the attributes through it; the predictions the outcome alone
        noise = rng.normal(size=n)
        y = (rng.random(n) < _sigmoid(2 * z)).astype(np.float64) if binary else z + 0.5 * noise
        return Sample(y + effect * direct + rng.normal(size=n), attributes, y, "eo")
    # calibration: the outcome follows the predictions' score alone under the null
    score = z + 0.5 * rng.normal(size=n)
    if binary:
        y = (rng.random(n) < _sigmoid(score + cal_effect * direct)).astype(np.float64)
        return Sample(_sigmoid(score), attributes, y, "cal")
    return Sample(score, attributes, score + cal_effect * direct + rng.normal(size=n), "cal")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _numeric(attribute: Any) -> np.ndarray:
    """Attributes as a float matrix for the peers: categorical levels as their codes."""
    if isinstance(attribute, pd.DataFrame):
        columns = [
            c.cat.codes.to_numpy() if isinstance(c.dtype, pd.CategoricalDtype) else c.to_numpy()
            for _, c in attribute.items()
        ]
        return np.column_stack(columns).astype(np.float64)
    return np.asarray(attribute, dtype=np.float64).reshape(len(attribute), -1)


Test = Callable[[Sample, int], float]


def faircocco_test(permutations: int, options: dict[str, Any], null: str = "permutation") -> Test:
    # the gamma and spectral nulls permute nothing, and refuse a number of permutations
    count = permutations if null == "permutation" else None

    def pvalue(s: Sample, seed: int) -> float:
        result = independence_test(
            s.y_pred,
            s.attribute,
            y_true=s.y_true,
            notion=s.notion,
            n_permutations=count,
            random_state=seed,
            null=null,
            **options,
        )
        return result.pvalue

    return pvalue


def kci_pvalue(s: Sample) -> float:
    """causal-learn's KCI as it runs by default (a gamma approximation of its null):
    ``KCI_UInd`` for DP, ``KCI_CInd`` for EO and CAL."""
    from causallearn.utils.KCI.KCI import KCI_CInd, KCI_UInd

    attributes = _numeric(s.attribute)
    notion = notion_named(s.notion)
    variables = {"pred": s.y_pred, "truth": s.y_true}
    measured = _column(variables[notion.measured])
    if notion.given is None:
        return float(KCI_UInd().compute_pvalue(measured, attributes)[0])
    given = _column(variables[notion.given])
    return float(KCI_CInd().compute_pvalue(measured, attributes, given)[0])


def rcit_pvalue(s: Sample, seed: int) -> float:
    """causal-learn's RCIT as it runs by default (random Fourier features, a Lindsay-Pilla-Basak
    approximation of its null): ``RCIT`` for EO and CAL, its unconditional ``RIT`` for DP. Its
    features come from numpy's global generator, seeded here."""
    from causallearn.utils.RCIT.RCIT import RCIT, RIT

    attributes = _numeric(s.attribute)
    notion = notion_named(s.notion)
    variables = {"pred": s.y_pred, "truth": s.y_true}
    measured = _column(variables[notion.measured])
    np.random.seed(seed)  # noqa: NPY002 (RCIT draws from numpy's global generator)
    if notion.given is None:
        return float(RIT().compute_pvalue(measured, attributes)[0])
    given = _column(variables[notion.given])
    return float(RCIT().compute_pvalue(measured, attributes, given)[0])


def _column(values: np.ndarray | None) -> np.ndarray:
    assert values is not None, "a notion read a variable its sample lacks"
    return np.asarray(values, dtype=np.float64).reshape(len(values), -1)


def peer_tests() -> dict[str, Test]:
    """hyppo's HSIC (DP) and causal-learn's KCI, where installed, as they run by default: both
    approximate their null distributions instead of permuting."""
    tests: dict[str, Test] = {}
    if importlib.util.find_spec("hyppo") is not None:
        from hyppo.independence import Hsic

        def hsic(s: Sample, seed: int) -> float:
            if notion_named(s.notion).given is not None:
                return float("nan")
            # hyppo's default: above 20 rows a chi-square approximation of the permutation null
            # (a permutation null of 199 took 14 s per test at N = 1000 here)
            return float(Hsic().test(s.y_pred, _numeric(s.attribute), random_state=seed)[1])

        tests["hyppo HSIC"] = hsic
    if importlib.util.find_spec("causallearn") is not None:
        tests["causal-learn KCI"] = lambda s, seed: kci_pvalue(s)
        tests["causal-learn RCIT"] = rcit_pvalue
    return tests


def run(
    *,
    settings: Sequence[str] = SETTINGS,
    sizes: Sequence[int] = (300, 1000),
    repetitions: int = 100,
    permutations: int = 199,
    eps_values: Sequence[float | None] = (None,),
    conditioning_eps_values: Sequence[float | None] = (None,),
    width_sets: Sequence[tuple[float, ...] | None] = (None,),
    attribute_kernels: Sequence[str | None] = (None,),
    ranks: Sequence[int | str | None] = (None,),
    nulls: Sequence[str] = NULLS,
    strengths: Sequence[float] = (1.0,),
    peers: bool = True,
    null_only: bool = False,
    alternative_only: bool = False,
    adjusted: bool = True,
    out: TextIO | None = None,
) -> pd.DataFrame:
    """Print and return the rejection rates of each test, setting, size and strength.

    ``eps_values``, ``conditioning_eps_values``, ``width_sets``, ``attribute_kernels`` and
    ``ranks`` list the ``eps``, the ``conditioning_eps``, the kernel ``widths``, the
    ``attribute_kernel`` and the ``rank`` of the FairCOCCO test (``None``: its default; a
    rank of ``'none'``: the kernel's own cap), and
    ``nulls`` its nulls; every combination is run.
    Repetition ``r`` draws its data from seed ``r`` under the null and ``10⁶ + r`` under the
    alternative, the same for every test and strength; ``null_only`` leaves out the
    alternative (size alone, e.g. at large ``N``), ``alternative_only`` the null (power alone,
    at half the cost), ``adjusted`` the mean adjusted score.
    """
    if null_only and alternative_only:
        raise ValueError("null_only and alternative_only leave nothing to run; pass one")
    tests = {
        _variant_name(eps, widths, null, conditioning, attribute_kernel, rank): faircocco_test(
            permutations,
            {
                **({} if eps is None else {"eps": eps}),
                **({} if conditioning is None else {"conditioning_eps": conditioning}),
                **({} if widths is None else {"widths": widths}),
                **({} if attribute_kernel is None else {"attribute_kernel": attribute_kernel}),
                **({} if rank is None else {"rank": _rank_option(rank)}),
            },
            null,
        )
        for null in nulls
        for eps in eps_values
        for conditioning in conditioning_eps_values
        for widths in width_sets
        for attribute_kernel in attribute_kernels
        for rank in ranks
    }
    if peers:
        tests.update(peer_tests())
    rows = []
    for setting in settings:
        for n in sizes:
            for name, test in tests.items():
                for rates in _rates(
                    setting, n, strengths, test, repetitions, null_only, alternative_only
                ):
                    rates["test"] = name
                    if adjusted and name.startswith("faircocco"):
                        rates["adjusted_null"] = _mean_adjusted(setting, n, repetitions)
                    rows.append(rates)
                    if out is not None:
                        print(_line(rates, len(strengths) > 1), file=out, flush=True)
    return pd.DataFrame(rows)


def _rates(
    setting: str,
    n: int,
    strengths: Sequence[float],
    test: Test,
    repetitions: int,
    null_only: bool,
    alternative_only: bool,
) -> list[dict[str, Any]]:
    """Size and, at each strength, power of one test (one row per strength, the same null data
    for all; either alone with ``null_only`` or ``alternative_only``); no rows for a test that
    does not apply to the notion."""
    seconds, calls = 0.0, 0

    def rate(dependent: bool, strength: float) -> float | None:
        nonlocal seconds, calls
        rejected = []
        for r in range(repetitions):
            data = sample(
                setting, n, dependent, np.random.default_rng(r + 10**6 * dependent), strength
            )
            start = time.perf_counter()
            p = test(data, r)
            seconds += time.perf_counter() - start
            calls += 1
            if np.isnan(p):
                return None
            rejected.append(p <= LEVEL)
        return float(np.mean(rejected))

    size = None if alternative_only else rate(False, 1.0)
    if size is None and not alternative_only:
        return []
    rows = []
    for strength in strengths:
        power = None if null_only else rate(True, strength)
        if power is None and not null_only:
            return []  # the test does not apply to the notion (alternative_only)
        rates: dict[str, Any] = {"setting": setting, "n": n, "strength": strength}
        if size is not None:
            rates.update(_with_error("size", size, repetitions))
        if power is not None:
            rates.update(_with_error("power", power, repetitions))
        rows.append(rates)
    for rates in rows:
        rates["seconds_per_test"] = seconds / calls
    return rows


def _with_error(label: str, rate: float, repetitions: int) -> dict[str, float]:
    return {label: rate, f"{label}_se": float(np.sqrt(rate * (1 - rate) / repetitions))}


def _variant_name(
    eps: float | None,
    widths: tuple[float, ...] | None,
    null: str,
    conditioning: float | None = None,
    attribute_kernel: str | None = None,
    rank: int | str | None = None,
) -> str:
    name = f"faircocco eps={'default' if eps is None else f'{eps:g}'}"
    if conditioning is not None:
        name += f" ceps={conditioning:g}"
    if attribute_kernel is not None:
        name += f" {attribute_kernel}"
    if widths is not None:
        name += " w=" + "+".join(f"{w:g}" for w in widths)
    if rank is not None:
        name += f" rank={rank}"
    if null != "permutation":
        name += f" {null}"
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


def _line(r: dict[str, Any], with_strength: bool = False) -> str:
    adjusted = f"  adjusted under the null {r['adjusted_null']:.4f}" if "adjusted_null" in r else ""
    size = f"  size {r['size']:.3f} ± {r['size_se']:.3f}" if "size" in r else ""
    power = f"  power {r['power']:.3f} ± {r['power_se']:.3f}" if "power" in r else ""
    strength = f" x{r['strength']:g}" if with_strength else ""
    return (
        f"{r['setting']:>18} {r['n']:>5}{strength} {r['test']:>28}{size}{power}  "
        f"{r['seconds_per_test']:.3f} s/test{adjusted}"
    )


def speed(
    *,
    settings: Sequence[str] = (SPEED_SETTING,),
    sizes: Sequence[int] = (300, 1000, 2000),
    repetitions: int = 5,
    permutations: int = 0,
    conditioning_eps: float | None = None,
    default: bool = True,
    variant: dict[str, Any] | None = None,
    peers: bool = True,
    out: TextIO | None = None,
) -> pd.DataFrame:
    """Median seconds of the default test, of the gamma and spectral nulls (the spectral null
    at ``conditioning_eps``, by default the test's own) and, where installed, of
    causal-learn's KCI and RCIT (and, with ``permutations``, of the permutation test with that many
    permutations) on each of ``settings``, the methods alternating on the same data sets in
    one process; each runs once on data of another seed before it is timed.
    ``kci_over_this`` is KCI's median over the method's, ``this_over_rcit`` the method's over
    RCIT's; ``default=False`` leaves out the default test, ``peers=False`` KCI and RCIT (at
    large N), and a ``variant`` (``widths`` or ``rank``) adds the default test at those
    options."""
    # the test's own conditioning ridge unless one is given
    spectral: dict[str, Any] = {}
    if conditioning_eps is not None:
        spectral["conditioning_eps"] = conditioning_eps
    methods: dict[str, Callable[[Sample], Any]] = {
        "faircocco gamma": lambda s: independence_test(
            s.y_pred, s.attribute, y_true=s.y_true, notion=s.notion, null="gamma"
        ),
        "faircocco spectral": lambda s: independence_test(
            s.y_pred,
            s.attribute,
            y_true=s.y_true,
            notion=s.notion,
            null="spectral",
            **spectral,
        ),
    }
    if default:
        methods["faircocco default"] = lambda s: independence_test(
            s.y_pred, s.attribute, y_true=s.y_true, notion=s.notion
        )
    if variant:
        label = " ".join(f"{k}={v}" for k, v in variant.items())
        methods[f"faircocco default {label}"] = lambda s: independence_test(
            s.y_pred, s.attribute, y_true=s.y_true, notion=s.notion, **variant
        )
    if peers and importlib.util.find_spec("causallearn") is not None:
        methods["causal-learn KCI"] = kci_pvalue
        methods["causal-learn RCIT"] = lambda s: rcit_pvalue(s, 0)
    if permutations:
        methods[f"faircocco permutation B={permutations}"] = lambda s: independence_test(
            s.y_pred,
            s.attribute,
            y_true=s.y_true,
            notion=s.notion,
            null="permutation",
            n_permutations=permutations,
        )
    rows = []
    for setting in settings:
        for n in sizes:
            rows.extend(_timed(methods, setting, n, repetitions, out))
    return pd.DataFrame(rows)


def _timed(
    methods: dict[str, Callable[[Sample], Any]],
    setting: str,
    n: int,
    repetitions: int,
    out: TextIO | None,
) -> list[dict[str, Any]]:
    warm_up = sample(setting, n, True, np.random.default_rng(10**7))
    for method in methods.values():
        method(warm_up)
    times: dict[str, list[float]] = {name: [] for name in methods}
    for r in range(repetitions):
        data = sample(setting, n, True, np.random.default_rng(r))
        for name, method in methods.items():
            start = time.perf_counter()
            method(data)
            times[name].append(time.perf_counter() - start)
    kci = statistics.median(times.get("causal-learn KCI", [float("nan")]))
    rcit = statistics.median(times.get("causal-learn RCIT", [float("nan")]))
    rows = []
    for name, values in times.items():
        median = statistics.median(values)
        rows.append(
            {
                "setting": setting,
                "n": n,
                "method": name,
                "median_seconds": median,
                "kci_over_this": kci / median,
                "this_over_rcit": median / rcit,
            }
        )
        if out is not None:
            print(
                f"{setting:>18} {n:>5} {name:>32}  median {median:.4f} s "
                f"(min {min(values):.4f}, max {max(values):.4f}, {repetitions} runs)  "
                f"KCI / this {kci / median:.3g}  this / RCIT {median / rcit:.3g}",
                file=out,
                flush=True,
            )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark from the command line."""
    parser = argparse.ArgumentParser(
        prog="python benchmarks/independence_test.py",
        description="Rejection rates at the 5%% level, with standard errors, of the FairCOCCO "
        "test under its permutation, gamma and spectral nulls and (where installed) hyppo's "
        "HSIC and causal-learn's KCI and RCIT on the same generated data, under the null and a "
        "weak dependence; or (--speed) the default test's and the approximate nulls' time "
        "against KCI's and RCIT's.",
    )
    parser.add_argument(
        "--settings",
        default=None,
        help="comma-separated settings (default: the one-attribute ones; with --speed, "
        f"{SPEED_SETTING}); 'mixed' stands for the 18 NOTION-OUTCOME-aK settings",
    )
    parser.add_argument("--sizes", default=None, help="comma-separated N (default: 300,1000)")
    parser.add_argument("--repetitions", type=int, default=None, metavar="R")
    parser.add_argument("--permutations", type=int, default=199, metavar="B")
    parser.add_argument(
        "--eps", default="default", help="comma-separated eps of the FairCOCCO test, or 'default'"
    )
    parser.add_argument(
        "--conditioning-eps",
        default="default",
        help="comma-separated conditioning_eps of the FairCOCCO test, or 'default' (its eps); "
        "with --speed, the spectral null's (one value)",
    )
    parser.add_argument(
        "--widths",
        default="default",
        help="comma-separated kernel width sets of the FairCOCCO test, each 'default' or "
        "multiples of the bandwidth joined by '+' (e.g. 'default,1')",
    )
    parser.add_argument(
        "--attribute-kernels",
        default="default",
        help="comma-separated attribute kernels of the FairCOCCO test, each 'default', "
        "'product' or 'joint'",
    )
    parser.add_argument(
        "--ranks",
        default="default",
        help="comma-separated ranks of the FairCOCCO test, each 'default', a number of pivots "
        "or 'none' (the kernel's own cap)",
    )
    parser.add_argument(
        "--nulls",
        default=",".join(NULLS),
        help="comma-separated nulls of the FairCOCCO test (default: permutation,gamma,spectral)",
    )
    parser.add_argument(
        "--strengths",
        default="1",
        help="comma-separated multiples of the alternative's effect (default: 1)",
    )
    hypotheses = parser.add_mutually_exclusive_group()
    hypotheses.add_argument(
        "--null-only", action="store_true", help="size alone: leave out the alternative"
    )
    hypotheses.add_argument(
        "--alternative-only", action="store_true", help="power alone: leave out the null"
    )
    parser.add_argument("--no-peers", action="store_true", help="leave out hyppo and causal-learn")
    parser.add_argument(
        "--no-adjusted",
        action="store_true",
        help="leave out the mean adjusted score of the null data",
    )
    parser.add_argument(
        "--speed",
        action="store_true",
        help="time the default test against KCI and RCIT, alternating in one process (sizes "
        "default to 300,1000,2000, repetitions to 5; --permutations B > 0 adds the permutation "
        "test; one --widths set and one --ranks value add the default test at those options)",
    )
    parser.add_argument(
        "--no-default",
        action="store_true",
        help="with --speed, leave out the default test",
    )
    args = parser.parse_args(argv)
    conditioning = [
        None if value == "default" else float(value) for value in args.conditioning_eps.split(",")
    ]
    args.settings_given = args.settings is not None
    args.settings = args.settings or ",".join(SETTINGS)
    if args.speed:
        speed(
            settings=args.settings.split(",") if args.settings_given else (SPEED_SETTING,),
            sizes=_sizes(args.sizes or "300,1000,2000"),
            repetitions=args.repetitions or 5,
            permutations=args.permutations,
            conditioning_eps=conditioning[0],
            default=not args.no_default,
            variant=_speed_variant(args.widths, args.ranks),
            peers=not args.no_peers,
            out=sys.stdout,
        )
        return 0
    settings = [
        setting
        for name in args.settings.split(",")
        for setting in (MIXED_SETTINGS if name == "mixed" else (name,))
    ]
    run(
        settings=settings,
        sizes=_sizes(args.sizes or "300,1000"),
        repetitions=args.repetitions or 100,
        permutations=args.permutations,
        eps_values=[None if value == "default" else float(value) for value in args.eps.split(",")],
        conditioning_eps_values=conditioning,
        width_sets=[
            None if value == "default" else tuple(float(w) for w in value.split("+"))
            for value in args.widths.split(",")
        ],
        attribute_kernels=[
            None if value == "default" else value for value in args.attribute_kernels.split(",")
        ],
        ranks=[_rank(value) for value in args.ranks.split(",")],
        nulls=args.nulls.split(","),
        strengths=[float(value) for value in args.strengths.split(",")],
        peers=not args.no_peers,
        null_only=args.null_only,
        alternative_only=args.alternative_only,
        adjusted=not args.no_adjusted,
        out=sys.stdout,
    )
    return 0


def _speed_variant(widths: str, rank: str) -> dict[str, Any]:
    """The options of ``--speed``'s variant of the default test: one ``--widths`` set and one
    ``--ranks`` value, each left out when 'default'."""
    variant: dict[str, Any] = {}
    if widths != "default":
        variant["widths"] = tuple(float(w) for w in widths.split("+"))
    chosen = _rank(rank)
    if chosen is not None:
        variant["rank"] = _rank_option(chosen)
    return variant


def _rank(text: str) -> int | str | None:
    """A ``--ranks`` value: ``None`` for the test's default, 'none' or a number of pivots."""
    return None if text == "default" else text if text == "none" else int(text)


def _rank_option(rank: int | str) -> int | None:
    """The test's ``rank`` option of a ``--ranks`` value other than the default."""
    return None if rank == "none" else int(rank)


def _sizes(text: str) -> list[int]:
    return [int(n) for n in text.split(",")]


if __name__ == "__main__":
    raise SystemExit(main())
