"""Time the exact and low-rank estimators of the FairCOCCO score as the number of rows grows.

This is what ``faircocco bench-score`` runs. The full run takes a few minutes and needs about
1 GiB of memory; pass ``--quick`` for a run of a few seconds on small sizes.

Run with ``python examples/bench_score.py [--quick]``.
"""

import sys

from faircocco_plugins._bench import run

quick = "--quick" in sys.argv[1:]
run(
    quick=quick, repeats=3, command="python examples/bench_score.py" + (" --quick" if quick else "")
)
