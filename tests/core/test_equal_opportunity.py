"""Equal opportunity (``notion="eopp"``): Ŷ ⊥ A | Y = 1, the predictions independent of the
attributes on the rows with a positive outcome, as fairlearn's TruePositiveRateParity asks of
true-positive rates.

On those rows the outcome is constant, so the score is DP's score of those rows: checked against
the literal transcription of the paper's formula (``reference.py``), and through every consumer
of the notion records.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from reference import reference

from faircocco_plugins import (
    BatchStatistic,
    faircocco_report,
    faircocco_score,
    faircocco_statistic,
    independence_test,
)
from faircocco_plugins._options import OPTION_DOCS
from faircocco_plugins._records.notions import NOTIONS, notion_named
from faircocco_plugins.bench import StudyConfig, capability_table, evaluate_predictions
from faircocco_plugins.cli import main
from faircocco_plugins.plugins import toolkit_name


def data(n: int = 160, seed: int = 0):
    """A binary outcome, a continuous and a binary attribute, and predictions that depend on
    the binary attribute more on the positive rows than on the others."""
    rng = np.random.default_rng(seed)
    attributes = np.column_stack([rng.normal(size=n), rng.integers(0, 2, n)]).astype(float)
    y_true = (rng.random(n) < 0.3 + 0.4 * attributes[:, 1]).astype(float)
    y_pred = y_true + (0.2 + 0.6 * y_true) * attributes[:, 1] + rng.normal(size=n)
    return y_pred, attributes, y_true


def test_the_record_is_equalised_odds_on_the_positive_class() -> None:
    eopp = notion_named("eopp")
    assert (eopp.measured, eopp.given, eopp.given_label) == ("pred", "truth", "positive")
    assert (eopp.conditioned_on, eopp.restricts_rows, eopp.needs_outcome) == (None, True, True)
    assert eopp.tasks == ("classification",)
    assert eopp.independence == "Ŷ ⊥ A | Y = 1"
    assert toolkit_name("eopp", "fairlearn_moment") == "TruePositiveRateParity"
    assert toolkit_name("eopp", "fairlearn_constraint") == "true_positive_rate_parity"
    assert toolkit_name("eopp", "aif360_metric") == "Equal opportunity difference"


@pytest.mark.parametrize("kernel", ["joint", "product"])
def test_the_score_is_the_literal_dp_score_of_the_positive_rows(kernel: str) -> None:
    y_pred, attributes, y_true = data()
    positive = y_true == 1
    statistic, score = reference(
        y_pred[positive], attributes[positive], notion="dp", attribute_kernel=kernel
    )
    options = {"notion": "eopp", "method": "exact", "attribute_kernel": kernel}
    got_score = faircocco_score(y_pred, attributes, y_true=y_true, **options)
    got_statistic = faircocco_statistic(y_pred, attributes, y_true=y_true, **options)
    assert math.isclose(got_score, score, rel_tol=1e-8, abs_tol=1e-8)
    assert math.isclose(got_statistic, statistic, rel_tol=1e-8, abs_tol=1e-8)
    # and it is not EO's, which also measures the negative rows
    eo = faircocco_score(y_pred, attributes, y_true=y_true, notion="eo", method="exact")
    assert abs(got_score - eo) > 1e-3


@pytest.mark.parametrize("method", ["auto", "exact", "lowrank"])
def test_every_route_scores_dp_on_the_positive_rows(method: str) -> None:
    y_pred, attributes, y_true = data(400, seed=1)
    positive = y_true == 1
    dp = faircocco_report(y_pred[positive], attributes[positive], method=method)
    eopp = faircocco_report(y_pred, attributes, y_true=y_true, notion="eopp", method=method)
    pd.testing.assert_frame_equal(eopp, dp, rtol=1e-12)
    assert eopp.loc["joint", "n"] == positive.sum()


def test_labels_are_read_as_classes_and_pandas_rows_are_paired_by_label() -> None:
    y_pred, attributes, y_true = data(200, seed=2)
    expected = faircocco_score(y_pred, attributes, y_true=y_true, notion="eopp")
    rows = np.random.default_rng(0).permutation(200)
    frame = pd.DataFrame(attributes, columns=["age", "sex"])
    booleans = pd.Series(y_true == 1).iloc[rows]  # another row order, paired by index
    assert faircocco_score(pd.Series(y_pred), frame, y_true=booleans, notion="eopp") == (
        pytest.approx(expected, rel=1e-12)
    )
    signs = np.where(y_true == 1, 1, -1)  # the positive class of {-1, 1} is 1
    assert faircocco_score(y_pred, attributes, y_true=signs, notion="eopp") == expected


def test_the_test_is_dp_s_test_on_the_positive_rows() -> None:
    y_pred, attributes, y_true = data(300, seed=3)
    positive = y_true == 1
    eopp = independence_test(y_pred, attributes, y_true=y_true, notion="eopp", random_state=0)
    dp = independence_test(y_pred[positive], attributes[positive], random_state=0)
    assert eopp.pvalue == dp.pvalue
    np.testing.assert_array_equal(eopp.statistic, dp.statistic)


@pytest.mark.parametrize(
    ("y_true", "message"),
    [
        (np.linspace(0.0, 1.0, 50), "holds scores, not labels"),
        (np.arange(50) % 5, "takes values in"),
        (np.r_[1, np.zeros(49)], "has 1 such row"),
    ],
    ids=["continuous", "five classes", "one positive row"],
)
def test_an_outcome_without_two_positive_rows_is_refused(y_true, message) -> None:
    y_pred, attributes, _ = data(50)
    with pytest.raises(ValueError, match=rf"notion='eopp' \(equal opportunity.*{message}"):
        faircocco_score(y_pred, attributes, y_true=y_true, notion="eopp")
    with pytest.raises(ValueError, match="y_true is required for notion='eopp'"):
        faircocco_score(y_pred, attributes, notion="eopp")


@pytest.mark.parametrize("adjusted", [False, True])
def test_the_batch_statistic_is_dp_s_on_the_positive_rows(adjusted: bool, monkeypatch) -> None:
    y_pred, attributes, y_true = data(600, seed=4)
    positive = y_true == 1
    eopp = BatchStatistic("eopp", chance_adjusted=adjusted).fit(attributes, y_true)
    dp = BatchStatistic("dp", chance_adjusted=adjusted).fit(attributes[positive])
    batch = slice(0, 256)
    on_positive = positive[batch]
    expected = dp(y_pred[batch][on_positive], attributes[batch][on_positive])
    # float arrays take the fast path; integer labels the full validation
    with monkeypatch.context() as patched:
        patched.setattr(BatchStatistic, "_checked_batch", lambda *_: pytest.fail("validated"))
        fast = eopp(y_pred[batch], attributes[batch], y_true[batch])
    assert fast == pytest.approx(expected, rel=1e-12)
    labels = y_true[batch].astype(int)
    assert eopp(y_pred[batch], attributes[batch], labels) == pytest.approx(expected, rel=1e-12)


def test_the_batch_statistic_s_gradient_reaches_the_positive_rows_only() -> None:
    torch = pytest.importorskip("torch")
    y_pred, attributes, y_true = data(300, seed=5)
    positive = y_true == 1
    eopp = BatchStatistic("eopp").fit(attributes, y_true)
    dp = BatchStatistic("dp").fit(attributes[positive])
    pred = torch.tensor(y_pred, requires_grad=True)
    eopp(pred, attributes, y_true).backward()
    kept = torch.tensor(y_pred[positive], requires_grad=True)
    dp(kept, attributes[positive]).backward()
    assert pred.grad is not None and kept.grad is not None
    assert torch.all(pred.grad[~torch.from_numpy(positive)] == 0)
    torch.testing.assert_close(pred.grad[torch.from_numpy(positive)], kept.grad)


def test_the_option_docs_and_the_command_line_offer_it(capsys, tmp_path) -> None:
    assert "eopp" in NOTIONS
    assert '"eopp"' in OPTION_DOCS["notion"] and "(Ŷ ⊥ A | Y = 1)" in OPTION_DOCS["notion"]
    y_pred, attributes, y_true = data(200, seed=6)
    path = tmp_path / "scores.csv"
    table = pd.DataFrame({"pred": y_pred, "age": attributes[:, 0], "y": y_true.astype(int)})
    table.to_csv(path, index=False)
    arguments = ["score", str(path), "--pred", "pred", "--sensitive", "age", "--target", "y"]
    assert main([*arguments, "--notion", "eopp"]) == 0
    out = capsys.readouterr().out
    joint = next(line.split() for line in out.splitlines() if line.startswith("joint"))
    expected = faircocco_score(table["pred"], table[["age"]], y_true=table["y"], notion="eopp")
    assert float(joint[1]) == pytest.approx(expected, abs=5e-5)
    assert main([*arguments, "--notion", "eopp", "--permutations", "50"]) == 0
    assert "independent of age on the rows where y is the positive class" in (
        capsys.readouterr().out
    )


def test_the_harness_runs_it_where_a_study_names_it_on_classification_only() -> None:
    assert "eopp" not in StudyConfig(datasets=("adult",)).notions
    config = StudyConfig(datasets=("adult",), notions=("dp", "eopp"))
    assert config.notions_of("classification") == ("dp", "eopp")
    assert config.notions_of("regression") == ("dp",)
    table = capability_table()
    assert "EOPP" in table.columns
    assert table.loc["faircocco", "EOPP"] == "✓"
    y_pred, attributes, y_true = data(300, seed=7)
    sensitive = pd.DataFrame(attributes, columns=["age", "sex"])
    metrics = evaluate_predictions(
        "classification", y_true, (y_pred > 1).astype(float), sensitive, notions=("eopp",)
    )
    positive = y_true == 1
    expected = faircocco_score(
        (y_pred[positive] > 1).astype(float), sensitive[positive], random_state=0
    )
    assert metrics["faircocco_eopp"] == pytest.approx(expected, rel=1e-12)
    assert not any(name.startswith("faircocco_eo_") for name in metrics)
