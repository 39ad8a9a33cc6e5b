"""The claims page: how a paired difference reads for a claim, and how comparisons make a
verdict."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from faircocco_plugins.bench.paper._claims import (
    FAILS,
    FAVOURABLE,
    HOLDS,
    MARGIN,
    PARTLY,
    UNDECIDED,
    UNFAVOURABLE,
    UNSETTLED,
    UNTESTABLE,
    Claim,
    Comparison,
    _convergence_claim,
    _pvalues_claim,
    _score_deo_pairs,
    _trade_off_claim,
)
from faircocco_plugins.bench.paper._common import PairedDifference


def _comparison(low: float, high: float, expect: str, n: int = 5) -> Comparison:
    return Comparison("x", PairedDifference((low + high) / 2, low, high, n), expect)


@pytest.mark.parametrize(
    ("low", "high", "expect", "outcome"),
    [
        (-0.03, -0.01, "lower", FAVOURABLE),
        (0.01, 0.03, "lower", UNFAVOURABLE),
        (-0.01, 0.01, "lower", UNDECIDED),
        (0.01, 0.03, "higher", FAVOURABLE),
        (-0.03, -0.01, "higher", UNFAVOURABLE),
        (-0.01, 0.01, "higher", UNDECIDED),
        # not worse: within the margin below zero is enough, beyond it is unfavourable
        (-MARGIN / 2, 0.01, "not_worse", FAVOURABLE),
        (-3 * MARGIN, -2 * MARGIN, "not_worse", UNFAVOURABLE),
        (-2 * MARGIN, 0.0, "not_worse", UNDECIDED),
    ],
)
def test_an_interval_reads_by_the_side_the_claim_predicts(
    low: float, high: float, expect: str, outcome: str
) -> None:
    assert _comparison(low, high, expect).outcome == outcome


def test_fewer_than_three_seeds_decide_nothing() -> None:
    single = Comparison("x", PairedDifference(-0.5, math.nan, math.nan, 1), "lower")
    assert single.outcome == UNDECIDED
    # two seeds that happen to agree give a narrow interval on one degree of freedom
    assert _comparison(-0.002, -0.001, "lower", n=2).outcome == UNDECIDED
    assert _comparison(-0.002, -0.001, "lower", n=3).outcome == FAVOURABLE


def test_verdict_from_the_comparisons() -> None:
    good, bad, unsure = (-0.03, -0.01), (0.01, 0.03), (-0.01, 0.01)

    def claim(*intervals: tuple[float, float]) -> Claim:
        return Claim(1, "t", "p", "x", [_comparison(lo, hi, "lower") for lo, hi in intervals])

    assert claim(good, good).verdict == HOLDS
    assert claim(good, unsure, bad).verdict == PARTLY
    assert claim(unsure, bad).verdict == FAILS
    assert claim().verdict == UNTESTABLE
    assert claim(good, unsure, bad).counts() == "1 favourable, 1 undecided, 1 unfavourable"
    empty = Comparison("x", PairedDifference(math.nan, math.nan, math.nan, 0), "lower")
    assert Claim(1, "t", "p", "x", [empty]).verdict == UNTESTABLE


def test_a_claim_without_an_unfavourable_comparison_never_fails() -> None:
    unsure = _comparison(-0.01, 0.01, "lower")
    assert Claim(1, "t", "p", "x", [unsure, unsure]).verdict == UNSETTLED


def test_score_and_deo_are_paired_per_attribute_where_there_are_attributes() -> None:
    runs = pd.DataFrame(
        {
            "test.faircocco": [0.3, 0.4],
            "test.deo": [0.5, 0.6],
            "test.faircocco_eo[age]": [0.1, 0.2],
            "test.deo[age]": [0.01, 0.02],
            "test.faircocco_eo[sex]": [0.3, None],
            "test.deo[sex]": [0.03, 0.04],
        }
    )
    pairs = _score_deo_pairs(runs)
    assert pairs.values.tolist() == [
        [0.1, 0.01, "age"],
        [0.2, 0.02, "age"],
        [0.3, 0.03, "sex"],
    ]
    joint = _score_deo_pairs(runs[["test.faircocco", "test.deo"]])
    assert joint.values.tolist() == [[0.3, 0.5, ""], [0.4, 0.6, ""]]


def test_pvalue_claim_counts_the_trends_that_follow_the_prediction() -> None:
    lams = [0.0, 1.0, 5.0, 20.0]
    frame = pd.DataFrame(
        {
            "notion": "eo",
            "lam": lams,
            "pvalue": [0.001, 0.01, 0.2, 0.5],  # rises with λ: as predicted
            "faircocco": [0.04, 0.03, 0.02, 0.01],  # falls: as predicted
            "deo": [0.05, 0.02, 0.03, 0.09],  # ρ = +0.4: not as predicted
            "accuracy": [0.85, 0.84, 0.84, 0.83],
            "di": [0.3, 0.5, 0.6, 0.8],
            "faircocco_adjusted": [0.02, 0.01, 0.005, 0.001],
        }
    )
    claim = _pvalues_claim(frame)
    assert claim.verdict == PARTLY
    assert claim.reason == (
        "2 of 3 trends as predicted; the largest mean p-value over λ is eo: 0.500"
    )
    assert _pvalues_claim(None).verdict == UNTESTABLE


def test_convergence_claim_holds_where_every_model_settles_by_512() -> None:
    def rows(model: str, errors: list[float]) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "dataset": "adult",
                "notion": "eo",
                "model": model,
                "seed": 0,
                "batch_size": [64, 256, 1024],
                "full_score": 0.02,
                "full_adjusted": 0.01,
                "mae": errors,
                "mae_adjusted": errors,
            }
        )

    settles = rows("nn", [0.05, 0.005, 0.002])
    assert _convergence_claim(settles).verdict == HOLDS
    late = rows("faircocco", [0.05, 0.02, 0.005])  # below 0.01 only from 1024
    assert _convergence_claim(pd.concat([settles, late])).verdict == PARTLY


class _AttributeScores:
    """Evidence of one dataset with one attribute: each method's adjusted EO score by seed."""

    def __init__(self, **scores: list[float]) -> None:
        self.scores = scores

    def attributes(self, dataset: str, notion: str) -> list[str]:
        return ["faircocco_eo_adjusted[sex]"]

    def by_seed(self, dataset: str, notion: str, method: str, column: str) -> pd.Series:
        return pd.Series(self.scores[method], dtype=float)


def test_an_attribute_is_left_unprotected_only_where_faircocco_protects_it_better() -> None:
    network = [0.10, 0.12, 0.11, 0.13, 0.10]
    ours = [0.02, 0.03, 0.02, 0.04, 0.03]  # clearly below the network
    same_as_network = [0.11, 0.10, 0.12, 0.12, 0.11]
    scores = {"nn": network, "faircocco": ours, "farmi": ours}
    left = _trade_off_claim(_AttributeScores(**scores, facl=same_as_network), ["d"])
    assert (left.verdict, left.reason) == (HOLDS, "1 of 2 baseline–attribute pairs")
    # a baseline whose interval touches 0 only by noise, at FairCOCCO's level, trades nothing
    noisy = [0.02, 0.03, 0.02, 0.30, 0.03]
    level = _trade_off_claim(_AttributeScores(**scores, facl=noisy), ["d"])
    assert (level.verdict, level.reason) == (FAILS, "0 of 2 baseline–attribute pairs")
