"""The adjusted score's upper bound: the jackknife it is, and its coverage by simulation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from faircocco_plugins import faircocco_score
from faircocco_plugins.targets import (
    JACKKNIFE_GROUPS,
    Target,
    TargetSettings,
    adjusted_score_columns,
)


def _draw(rng: np.random.Generator, n: int, effect: float) -> tuple[np.ndarray, pd.DataFrame]:
    """Probabilities that rise with one binary and one continuous attribute by ``effect``."""
    sex = rng.choice(["f", "m"], n)
    age = rng.uniform(18, 80, n)
    logits = rng.normal(size=n) + effect * (sex == "f") + effect * (age - 49) / 18
    people = pd.DataFrame({"sex": pd.Categorical(sex), "age": age})
    return 1 / (1 + np.exp(-logits)), people


def _score(pred, people, seed=0):
    return float(faircocco_score(pred, people, notion="dp", adjusted=True, random_state=seed))


def test_the_bound_is_the_delete_a_group_jackknife_of_the_square_root_transcribed():
    pred, people = _draw(np.random.default_rng(0), 200, 0.5)
    columns = adjusted_score_columns(pred, people, settings=TargetSettings(confidence=0.8))
    groups = np.random.default_rng(0).permutation(200) % JACKKNIFE_GROUPS
    deleted = [
        _score(pred[groups != g], people[groups != g].reset_index(drop=True))
        for g in range(JACKKNIFE_GROUPS)
    ]
    roots = np.sqrt(deleted)
    variance = (JACKKNIFE_GROUPS - 1) / JACKKNIFE_GROUPS * np.sum((roots - roots.mean()) ** 2)
    value = _score(pred, people)
    t = stats.t.ppf(0.8, JACKKNIFE_GROUPS - 1)
    expected = (math.sqrt(value) + t * math.sqrt(variance)) ** 2
    assert columns["adjusted_score"] == value
    assert columns["adjusted_score_bound"] == pytest.approx(expected, rel=1e-12)


def test_a_higher_confidence_gives_a_higher_bound():
    pred, people = _draw(np.random.default_rng(1), 300, 0.5)
    bounds = [
        adjusted_score_columns(pred, people, settings=TargetSettings(confidence=c))[
            "adjusted_score_bound"
        ]
        for c in (0.6, 0.9, 0.99)
    ]
    assert bounds == sorted(bounds) and bounds[0] < bounds[-1]


def test_an_adjusted_score_target_is_checked_against_the_bound():
    assert Target("adjusted_score", 0.05).column == "adjusted_score_bound"


@pytest.mark.slow
def test_the_bound_covers_the_population_value_at_about_the_confidence():
    """Measured 0.9175 over 400 draws of 300 rows at confidence 0.9 in this setting, whose
    population value is 0.0366 (a bound on the score's own scale, without the square root:
    0.87 on the same draws)."""
    rng = np.random.default_rng(7)
    # the population value: the score at 100,000 rows, whose spread (0.0005) is a thirtieth
    # of the bound's margin at 300 rows (0.015)
    population = np.mean([_score(*_draw(rng, 100_000, 0.5)) for _ in range(2)])
    draws, covered = 300, 0
    for draw in range(draws):
        pred, people = _draw(rng, 300, 0.5)
        bound = adjusted_score_columns(pred, people, random_state=draw)["adjusted_score_bound"]
        covered += bound >= population
    # three Monte Carlo standard errors of a proportion of 0.9 over 300 draws (0.052)
    assert abs(covered / draws - 0.9) <= 3 * math.sqrt(0.9 * 0.1 / draws)


def test_at_independence_the_bound_is_never_below_the_population_value_of_zero():
    rng = np.random.default_rng(3)
    bounds = [
        adjusted_score_columns(*_draw(rng, 300, 0.0), random_state=draw)["adjusted_score_bound"]
        for draw in range(20)
    ]
    assert min(bounds) >= 0.0


def test_too_few_rows_for_a_chance_level_give_no_bound():
    pred, people = _draw(np.random.default_rng(2), 3, 0.5)
    with pytest.warns(UserWarning):
        columns = adjusted_score_columns(pred, people)
    assert math.isnan(columns["adjusted_score_bound"])
