"""The claims page: Holm's correction, the practical margins, the symmetric verdict, the
conjunction, and the claims counted without comparisons."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins.bench.paper._claims import (
    FAILS,
    FAVOURABLE,
    HOLDS,
    MIXED,
    TIE,
    UNDECIDED,
    UNFAVOURABLE,
    UNSETTLED,
    UNTESTABLE,
    Claim,
    Comparison,
    Tally,
    _convergence_claim,
    _pvalues_claim,
    _score_deo_pairs,
    _trade_off_claim,
    judge,
)
from faircocco_plugins.bench.paper._common import (
    MARGINS,
    PairedDifference,
    holm,
    measure_of,
    network_values,
    paired_difference,
)


def _comparison(
    differences: list[float], expect: str = "lower", margin: float = 0.002, half: str = ""
) -> Comparison:
    """A comparison whose paired differences by seed are ``differences``."""
    ours = pd.Series(differences, dtype=float)
    return Comparison("x", paired_difference(ours, ours * 0.0), expect, margin, half=half)


# differences of DEO by seed: clearly lower, clearly higher, and noise around 0
LOWER = [-0.031, -0.029, -0.030, -0.032, -0.028]
HIGHER = [0.031, 0.029, 0.030, 0.032, 0.028]
NOISE = [-0.02, 0.03, 0.01, -0.03, 0.015]


def test_holm_matches_a_hand_computed_case() -> None:
    # sorted: 0.005 × 4 = 0.02, 0.01 × 3 = 0.03, 0.03 × 2 = 0.06, 0.04 × 1 = 0.04 → 0.06
    adjusted = holm([0.01, 0.04, math.nan, 0.03, 0.005])
    assert adjusted[[0, 1, 3, 4]] == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    assert math.isnan(adjusted[2])
    assert holm([0.3, 0.6]).tolist() == [0.6, 0.6]  # capped by the step-down's monotony
    assert holm([0.8, 0.9]).tolist() == [1.0, 1.0]  # and at 1
    with pytest.raises(ValueError, match=r"pvalues must lie in \[0, 1\]"):
        holm([0.5, 1.5])


def test_holm_matches_statsmodels() -> None:
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    pvalues = np.random.default_rng(0).uniform(0, 0.2, size=19)
    expected = multipletests(pvalues, method="holm")[1]
    assert holm(pvalues) == pytest.approx(expected, abs=1e-12)


def test_the_one_sided_pvalues_are_those_of_the_t_interval() -> None:
    d = paired_difference(pd.Series(LOWER), pd.Series([0.0] * 5))
    # the 95% interval ends where a one-sided test of that bound gives 0.025
    assert d.pvalue_beyond(d.high, above=False) == pytest.approx(0.025, abs=1e-12)
    assert d.pvalue_beyond(d.low, above=True) == pytest.approx(0.025, abs=1e-12)
    assert math.isnan(PairedDifference(0.1, math.nan, math.nan, 1).pvalue_beyond(0, above=True))


@pytest.mark.parametrize(
    ("differences", "expect", "outcome"),
    [
        (LOWER, "lower", FAVOURABLE),
        (HIGHER, "lower", UNFAVOURABLE),
        (NOISE, "lower", UNDECIDED),
        (HIGHER, "higher", FAVOURABLE),
        (LOWER, "higher", UNFAVOURABLE),
        (NOISE, "higher", UNDECIDED),
    ],
)
def test_a_difference_reads_by_the_side_the_claim_predicts(
    differences: list[float], expect: str, outcome: str
) -> None:
    comparison = _comparison(differences, expect)
    assert [o for o, _ in judge([comparison])] == [outcome]


def test_a_difference_inside_the_margin_is_a_tie_however_sure() -> None:
    # DEO lower by 0.001 on every seed, give or take 0.0001: sure, but inside the 0.002 margin
    sure = [-0.0010, -0.0011, -0.0009, -0.0010, -0.0010]
    comparison = _comparison(sure, "lower", margin=0.002)
    assert comparison.difference.high < 0  # the interval excludes 0
    assert judge([comparison])[0][0] == TIE
    # the same differences beyond a smaller margin are favourable
    assert judge([_comparison(sure, "lower", margin=0.0005)])[0][0] == FAVOURABLE
    # within the margin but not sure of it: undecided
    assert judge([_comparison([-0.001, 0.004, -0.005, 0.002, 0.0], "lower")])[0][0] == UNDECIDED


def test_a_claim_of_being_no_worse_is_favoured_within_the_margin() -> None:
    # accuracy 0.002 lower on every seed: within the 0.005 margin, so "competitive"
    within = [-0.0020, -0.0021, -0.0019, -0.0020, -0.0020]
    assert judge([_comparison(within, "not_lower", margin=0.005)])[0][0] == FAVOURABLE
    beyond = [-0.0200, -0.0210, -0.0190, -0.0200, -0.0200]
    assert judge([_comparison(beyond, "not_lower", margin=0.005)])[0][0] == UNFAVOURABLE
    assert judge([_comparison(NOISE, "not_lower", margin=0.005)])[0][0] == UNDECIDED


def test_holm_corrects_within_a_claim() -> None:
    # alone, 3 seeds lower by about 0.01 are favourable (p ≈ 0.013); among six comparisons
    # (Holm multiplies the smallest p by 6) they decide nothing
    borderline = [-0.010, -0.012, -0.008]
    alone = _comparison(borderline, margin=0.0)
    assert alone.pvalue < 0.05
    assert judge([alone]) == [(FAVOURABLE, pytest.approx(alone.pvalue))]
    together = judge([alone] + [_comparison(NOISE, margin=0.0)] * 5)
    assert together[0] == (UNDECIDED, pytest.approx(6 * alone.pvalue))


def test_fewer_than_three_seeds_decide_nothing() -> None:
    two = _comparison(LOWER[:2])
    assert not two.decidable and math.isnan(two.pvalue)
    assert judge([two, _comparison(LOWER)])[0][0] == UNDECIDED
    assert judge([_comparison(LOWER[:3])])[0][0] == FAVOURABLE


def test_the_verdict_is_symmetric() -> None:
    def claim(*differences: list[float]) -> Claim:
        return Claim(1, "t", "p", "x", [_comparison(d) for d in differences])

    assert claim(LOWER, NOISE).verdict == HOLDS
    assert claim(LOWER, NOISE, HIGHER).verdict == MIXED
    assert claim(NOISE, HIGHER).verdict == FAILS
    assert claim(NOISE, NOISE).verdict == UNSETTLED
    assert claim().verdict == UNTESTABLE
    assert claim(LOWER, NOISE, HIGHER).counts() == Tally(1, 1, 1)
    assert Tally(1, 1, 1).text() == "1 favourable / 1 unfavourable / 1 tied or undecided"
    empty = Comparison("x", PairedDifference(math.nan, math.nan, math.nan, 0), "lower", 0.002)
    assert Claim(1, "t", "p", "x", [empty]).verdict == UNTESTABLE


def test_a_conjunction_holds_only_when_both_halves_hold() -> None:
    def claim(fairer: list[list[float]], cost: list[list[float]]) -> Claim:
        comparisons = [_comparison(d, "lower", half="fairer") for d in fairer]
        comparisons += [_comparison(d, "lower", half="cost") for d in cost]
        return Claim(4, "t", "p", "x", comparisons, halves=("fairer", "cost"))

    assert claim([LOWER], [LOWER]).verdict == HOLDS
    # one half favourable, the other undecided: the conjunction is not shown
    assert claim([LOWER, LOWER], [NOISE]).verdict == UNSETTLED
    assert claim([LOWER], [LOWER, HIGHER]).verdict == MIXED
    assert claim([LOWER, LOWER], [HIGHER]).verdict == FAILS
    assert claim([LOWER, LOWER], [NOISE]).counts() == Tally(2, 0, 1)
    assert claim([LOWER, LOWER], [NOISE]).counts("cost") == Tally(0, 0, 1)


def test_a_comparison_refuses_an_unknown_expectation_or_margin() -> None:
    difference = PairedDifference(0.0, -0.1, 0.1, 5, 0.04)
    with pytest.raises(ValueError, match="expect='not_worse' is not valid"):
        Comparison("x", difference, "not_worse", 0.002)
    with pytest.raises(ValueError, match="margin must be a number >= 0"):
        Comparison("x", difference, "lower", math.nan)


def test_margins_follow_the_networks_validation_value() -> None:
    runs = pd.DataFrame(
        {
            "dataset": "adult",
            "notion": "eo",
            "method": ["nn", "nn", "faircocco"],
            "seed": [0, 1, 0],
            "status": "ok",
            "validation.deo": [0.10, 0.06, 0.01],
            "test.deo": [0.50, 0.50, 0.50],
        }
    )
    network = network_values(runs, "deo")
    assert network.to_dict() == {("adult", "eo", 0): 0.10, ("adult", "eo", 1): 0.06}
    # 10% of the network's mean validation DEO (0.08), above the 0.002 floor
    assert MARGINS[measure_of("deo")].of(float(network.mean())) == pytest.approx(0.008)
    assert MARGINS[measure_of("faircocco_eo_adjusted[age]")].of(0.001) == 0.002
    assert MARGINS["accuracy"].of(0.9) == 0.005
    with pytest.raises(ValueError, match="column='auc_macro' has no practical margin"):
        measure_of("auc_macro")


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
    assert claim.verdict == MIXED
    assert claim.counts() == Tally(2, 1, 0)
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
    assert _convergence_claim(pd.concat([settles, late])).verdict == MIXED


class _AttributeScores:
    """Evidence of one dataset with one attribute: each method's adjusted EO score by seed."""

    def __init__(self, **scores: list[float]) -> None:
        self.scores = scores

    def attributes(self, dataset: str, notion: str) -> list[str]:
        return ["faircocco_eo_adjusted[sex]"]

    def margin(self, dataset: str, notion: str, column: str) -> float:
        return 0.005

    def by_seed(self, dataset: str, notion: str, method: str, column: str) -> pd.Series:
        return pd.Series(self.scores[method], dtype=float)


def test_an_attribute_is_left_unprotected_only_where_faircocco_protects_it_better() -> None:
    network = [0.10, 0.12, 0.11, 0.13, 0.10]
    ours = [0.02, 0.03, 0.02, 0.04, 0.03]  # clearly below the network
    same_as_network = [0.11, 0.10, 0.12, 0.12, 0.11]
    scores = {"nn": network, "faircocco": ours, "farmi": ours}
    left = _trade_off_claim(_AttributeScores(**scores, facl=same_as_network), ["d"])
    assert (left.verdict, left.counts()) == (HOLDS, Tally(1, 0, 1))
    # a baseline whose interval touches 0 only by noise, at FairCOCCO's level, trades nothing
    noisy = [0.02, 0.03, 0.02, 0.30, 0.03]
    level = _trade_off_claim(_AttributeScores(**scores, facl=noisy), ["d"])
    assert (level.verdict, level.counts()) == (UNSETTLED, Tally(0, 0, 2))
    # the reverse: FairCOCCO leaves the attribute where the network does, the baseline not
    reverse = {"nn": network, "faircocco": same_as_network, "farmi": ours, "facl": ours}
    assert _trade_off_claim(_AttributeScores(**reverse), ["d"]).verdict == FAILS
