"""Benchmarks: commands that measure and print, run from the repository root.

* ``python benchmarks/score.py [--quick]``: time and memory of the score's estimators;
* ``python -m benchmarks.routes``: the exact and low-rank routes' times beside the route
  ``method="auto"`` takes and the cost model's estimates, from N = 100 to 10⁶;
* ``python benchmarks/independence_test.py``: size, power and speed of the test under its
  permutation and gamma nulls against hyppo's HSIC and causal-learn's KCI (optional peers:
  ``benchmarks/requirements.txt``);
* ``python benchmarks/torch_training.py``: epoch and step times of every training penalty;
* ``python benchmarks/tradeoff.py``: every penalty over a λ sweep on the paper's datasets.

They are not shipped with the packages and assert nothing; the tests under
``tests/benchmarks`` check that they run and print what they promise.
"""
