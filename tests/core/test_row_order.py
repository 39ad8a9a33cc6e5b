"""The same rows in any order give the same answer on every route, to rounding.

Low-rank data have more than 1000 rows, so that the median heuristic samples its rows and the
first pivot of incomplete Cholesky is a tie between every row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faircocco_plugins import (
    faircocco_report,
    faircocco_score,
    independence_test,
    make_synthetic,
)
from faircocco_plugins._inputs.row_order import canonical_order
from faircocco_plugins._inputs.variables import Variable

#: relative difference allowed between the two orders (the measured one is 0: the sorted rows
#: are the same array)
RELATIVE = 1e-12


def sample(n: int, seed: int, outcome: str) -> tuple[np.ndarray, pd.DataFrame, np.ndarray]:
    """Predictions, attributes of three kinds, and a binary or continuous outcome."""
    people = make_synthetic(n, random_state=seed)
    y_true = people["y_true"].to_numpy(dtype=np.float64)
    if outcome == "continuous":
        y_true = y_true + np.random.default_rng(seed).normal(size=n)
    return people["y_pred"].to_numpy(), people[["age", "sex", "region"]], y_true


def shuffled(seed: int, *arrays):
    order = np.random.default_rng(seed + 1).permutation(len(arrays[0]))
    return [
        a.iloc[order].reset_index(drop=True) if isinstance(a, pd.DataFrame) else a[order]
        for a in arrays
    ]


@settings(max_examples=6, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    notion=st.sampled_from(["dp", "eo", "cal"]),
    outcome=st.sampled_from(["binary", "continuous"]),
)
def test_lowrank_score_is_invariant_to_row_order(seed, notion, outcome):
    y_pred, attributes, y_true = sample(1200, seed, outcome)
    options = {"notion": notion, "method": "lowrank"}
    before = faircocco_score(y_pred, attributes, y_true=y_true, **options)
    after = faircocco_score(
        *shuffled(seed, y_pred, attributes), y_true=shuffled(seed, y_true)[0], **options
    )
    assert after == pytest.approx(before, rel=RELATIVE, abs=1e-15)


@settings(max_examples=4, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    notion=st.sampled_from(["eo", "cal"]),
    outcome=st.sampled_from(["binary", "continuous"]),
)
def test_report_is_invariant_to_row_order(seed, notion, outcome):
    """Scores, chance-adjusted scores and null means: the local null's seeded permutations
    included."""
    y_pred, attributes, y_true = sample(1100, seed, outcome)
    before = faircocco_report(y_pred, attributes, y_true=y_true, notion=notion)
    y_pred, attributes, y_true = shuffled(seed, y_pred, attributes, y_true)
    after = faircocco_report(y_pred, attributes, y_true=y_true, notion=notion)
    columns = ["score", "adjusted", "null_mean", "statistic"]
    np.testing.assert_allclose(after[columns], before[columns], rtol=RELATIVE, atol=1e-15)


@pytest.mark.parametrize("outcome", ["binary", "continuous"])
def test_exact_score_and_test_are_invariant_to_row_order(outcome):
    """The exact route, and the permutation test's statistics and p-value."""
    y_pred, attributes, y_true = sample(150, 3, outcome)
    options = {"y_true": y_true, "notion": "eo", "method": "exact"}
    before = faircocco_score(y_pred, attributes, **options)
    test_options = {"n_permutations": 19, "random_state": 0, "widths": (1.0,)}
    test_options["null"] = "permutation"
    before_test = independence_test(y_pred, attributes, **test_options, **options)
    y_pred, attributes, y_true = shuffled(3, y_pred, attributes, y_true)
    options["y_true"] = y_true
    assert faircocco_score(y_pred, attributes, **options) == pytest.approx(before, rel=RELATIVE)
    after_test = independence_test(y_pred, attributes, **test_options, **options)
    np.testing.assert_allclose(after_test.statistic, before_test.statistic, rtol=RELATIVE)
    assert after_test.pvalue == before_test.pvalue


def test_tracked_tensor_score_is_invariant_to_row_order_and_keeps_its_gradient():
    """The explicit route of tensors with gradients: the sorted rows are a gather, so each
    prediction keeps its own gradient."""
    torch = pytest.importorskip("torch")
    y_pred, attributes, _ = sample(1100, 4, "binary")
    numeric = np.column_stack([attributes["age"], attributes["sex"] == "m"]).astype(float)
    order = np.random.default_rng(5).permutation(y_pred.size)
    grads, scores = [], []
    for rows in (np.arange(y_pred.size), order):
        pred = torch.tensor(y_pred[rows], requires_grad=True)
        score = faircocco_score(pred, torch.tensor(numeric[rows]), method="lowrank")
        score.backward()
        scores.append(score.item())
        grads.append(pred.grad.numpy()[np.argsort(rows)])
    assert scores[1] == pytest.approx(scores[0], rel=RELATIVE)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-9, atol=1e-15 * np.abs(grads[0]).max())


def test_canonical_order_sorts_ties_of_the_first_column_by_the_others():
    numbers = np.array([[2.0, 1.0], [1.0, 5.0], [2.0, 0.0], [1.0, 5.0]])
    codes = np.array([[1], [0], [1], [1]])
    variable = Variable("x", numbers, ("a", "b"), codes, ("c",), (np.array(["p", "q"]),), ())
    order = canonical_order([variable])
    np.testing.assert_array_equal(numbers[order], [[1, 5], [1, 5], [2, 0], [2, 1]])
    np.testing.assert_array_equal(codes[order].ravel(), [0, 1, 1, 1])
