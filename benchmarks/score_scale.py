"""What the score's scale means: ``python benchmarks/score_scale.py [--rows N] [--seeds S]``.

It prints the raw and chance-adjusted FairCOCCO score (DP, the defaults) of predictions that
are a deterministic function of one continuous attribute ``a``, beside a noisy linear one and
independent noise, for ``a`` uniform on [-1, 1] and standard normal: the range over the seeds,
and the mean null level. The user guide's table ("Reading the score") comes from it. Nothing
here asserts a value.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from scipy.stats import rankdata

from faircocco_plugins import faircocco_report

#: The predictions, as functions of the attribute and a generator (for the noisy rows).
PREDICTIONS: dict[str, Callable[[np.ndarray, np.random.Generator], np.ndarray]] = {
    "a": lambda a, rng: a,
    "rank(a)": lambda a, rng: rankdata(a),
    "a³": lambda a, rng: a**3,
    "tanh(2a)": lambda a, rng: np.tanh(2 * a),
    "sin(3a)": lambda a, rng: np.sin(3 * a),
    "a + noise (sd 0.3 sd(a))": lambda a, rng: a + rng.normal(scale=0.3 * a.std(), size=a.size),
    "independent noise": lambda a, rng: rng.normal(size=a.size),
}
#: The attribute's distributions.
ATTRIBUTES: dict[str, Callable[[np.random.Generator, int], np.ndarray]] = {
    "a ~ U(-1, 1)": lambda rng, n: rng.uniform(-1.0, 1.0, n),
    "a ~ N(0, 1)": lambda rng, n: rng.normal(size=n),
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"command:  python benchmarks/score_scale.py --rows {args.rows} --seeds {args.seeds}")
    for attribute, draw in ATTRIBUTES.items():
        print(f"\n{attribute}, N = {args.rows}, seeds 0-{args.seeds - 1}")
        print(f"{'y_pred':>26}  {'score':>11}  {'adjusted':>11}  null")
        for name, predict in PREDICTIONS.items():
            rows = []
            for seed in range(args.seeds):
                rng = np.random.default_rng(seed)
                a = draw(rng, args.rows)
                report = faircocco_report(predict(a, rng), a).loc["joint"]
                rows.append([report["score"], report["adjusted"], report["null_mean"]])
            score, adjusted, null = np.asarray(rows).T
            print(
                f"{name:>26}  {score.min():.3f}-{score.max():.3f}  "
                f"{adjusted.min():.3f}-{adjusted.max():.3f}  {null.mean():.3f}"
            )


if __name__ == "__main__":
    main()
