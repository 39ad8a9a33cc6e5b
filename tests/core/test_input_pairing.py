"""Positional inputs beside pandas inputs whose indexes disagree: refused, never guessed.

A numpy array, a list or a tensor has no labels. Beside pandas inputs with equal indexes it
pairs by position; beside pandas inputs that hold the same labels in different orders it could
follow either order, so every function refuses it and says how to make the pairing explicit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins import (
    faircocco_report,
    faircocco_score,
    faircocco_statistic,
    independence_test,
)
from faircocco_plugins.plugins import align_by_index

N = 200


@pytest.fixture
def rows():
    """Predictions that follow the attributes and the outcome, all in the original row order."""
    rng = np.random.default_rng(0)
    people = pd.DataFrame({"age": rng.uniform(18, 80, N), "member": rng.random(N) < 0.5})
    y_true = pd.Series((rng.random(N) < 0.5).astype(float))
    y_pred = people["age"].to_numpy() / 40 + y_true.to_numpy() + rng.normal(size=N)
    return y_pred, people, y_true


def observed_statistic(y_pred, sensitive_features, **options):
    return independence_test(y_pred, sensitive_features, n_permutations=1, **options).statistic


FUNCTIONS = [faircocco_score, faircocco_statistic, faircocco_report, observed_statistic]


def shuffled(table, seed=1):
    return table.iloc[np.random.default_rng(seed).permutation(len(table))]


@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("positional", ["ndarray", "list"])
def test_positional_predictions_beside_disagreeing_indexes_are_refused(rows, function, positional):
    """Before, y_true was aligned to the shuffled attributes' labels while y_pred stayed in
    position order: a score of other pairs, with no warning."""
    y_pred, people, y_true = rows
    pred = y_pred if positional == "ndarray" else y_pred.tolist()
    with pytest.raises(ValueError, match="y_pred") as error:
        function(pred, shuffled(people), y_true=y_true, notion="eo")
    message = str(error.value)
    assert "\n" not in message
    assert "sensitive_features and y_true" in message
    assert ".reset_index(drop=True)" in message
    assert "Series" in message


def test_the_advice_gives_the_score_of_the_data(rows):
    y_pred, people, y_true = rows
    expected = faircocco_score(y_pred, people, y_true=y_true, notion="eo")
    # the predictions as a Series with the index of the rows they belong to
    got = faircocco_score(
        pd.Series(y_pred, index=y_true.index), shuffled(people), y_true=y_true, notion="eo"
    )
    assert got == pytest.approx(expected, rel=1e-9)
    # the pandas inputs renumbered: all three pair by position (here, other pairs)
    faircocco_score(y_pred, shuffled(people).reset_index(drop=True), y_true=y_true, notion="eo")


def test_positional_attributes_beside_disagreeing_indexes_are_refused(rows):
    y_pred, people, y_true = rows
    with pytest.raises(ValueError, match="sensitive_features is positional"):
        faircocco_score(
            shuffled(pd.Series(y_pred)), people.to_numpy(dtype=float), y_true=y_true, notion="eo"
        )


def test_positional_inputs_beside_agreeing_indexes_pair_by_position(rows):
    y_pred, people, y_true = rows
    order = np.random.default_rng(1).permutation(N)
    both = faircocco_score(
        y_pred, people.set_axis(order), y_true=y_true.set_axis(order), notion="eo"
    )
    assert both == faircocco_score(y_pred, people, y_true=y_true, notion="eo")


def test_all_pandas_inputs_in_different_orders_still_align_by_label(rows):
    y_pred, people, y_true = rows
    expected = faircocco_score(y_pred, people, y_true=y_true, notion="eo")
    got = faircocco_score(
        shuffled(pd.Series(y_pred), seed=2), shuffled(people), y_true=y_true, notion="eo"
    )
    assert got == pytest.approx(expected, rel=1e-9)


def test_the_shared_check_names_every_positional_argument():
    pandas_rows = pd.Series([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="X and sample_weight are positional"):
        align_by_index(
            {
                "X": np.zeros((3, 2)),
                "y": pandas_rows,
                "sensitive_features": pandas_rows[::-1],
                "sample_weight": [1, 1, 1],
            }
        )


def test_a_tensor_beside_disagreeing_indexes_is_refused(rows):
    torch = pytest.importorskip("torch")
    y_pred, people, y_true = rows
    with pytest.raises(ValueError, match="y_pred is positional"):
        faircocco_score(torch.as_tensor(y_pred), shuffled(people), y_true=y_true, notion="eo")
