"""Where a penalty's grid ends while its validation score still falls."""

from __future__ import annotations

import pandas as pd

from faircocco_plugins.bench.paper._lambda import STILL_FALLING, LambdaChoice, _grids


def _choice(scores: list[float], degenerate: tuple[float, ...] = (), **names: str) -> LambdaChoice:
    lambdas = [5.0, 10.0, 20.0, 50.0][: len(scores)]
    return LambdaChoice(
        dataset=names.get("dataset", "adult"),
        notion="dp",
        method=names.get("method", "farmi"),
        task="classification",
        reference=0.05,
        response=pd.Series(scores, index=lambdas),
        performance=pd.Series(0.8, index=lambdas),
        degenerate=degenerate,
        chosen=None,
        costs_by_lambda={},
        cliffs=[],
    )


def test_a_grid_ends_too_early_only_when_the_score_still_falls_past_the_threshold() -> None:
    assert _choice([0.03, 0.02, 0.02 - 2 * STILL_FALLING]).still_falling
    assert not _choice([0.03, 0.02, 0.02 - STILL_FALLING / 2]).still_falling
    # a score that ends below the threshold has no such fall left to make
    assert not _choice([0.03, 3 * STILL_FALLING, STILL_FALLING / 2]).still_falling
    assert _choice([0.03, 3 * STILL_FALLING, 1.5 * STILL_FALLING]).still_falling
    # rising at the end, a single λ, or a degenerate model at either of the two largest λ
    assert not _choice([0.03, 0.01, 0.02]).still_falling
    assert not _choice([0.03]).still_falling
    assert not _choice([0.03, 0.02, 0.01], degenerate=(20.0,)).still_falling
    assert not _choice([0.03, 0.02, 0.01], degenerate=(10.0,)).still_falling
    assert _choice([0.03, 0.02, 0.01], degenerate=(5.0,)).still_falling


def test_grids_section_says_where_each_grid_goes_on_and_where_it_ends_too_early() -> None:
    choices = [
        _choice([0.03, 0.02, 0.01]),
        _choice([0.03, 0.02, 0.02], dataset="german"),
        _choice([0.03, 0.02, 0.015, 0.015], dataset="drugs"),
        _choice([0.04, 0.01], method="facl"),
        _choice([0.04, 0.01], method="faircocco_paper"),
    ]
    text = "\n".join(_grids(choices))
    farmi = (
        "   * - farmi\n     - 5, 10, 20\n     - drugs (to 50)\n     - 1 of 3\n"
        "     - adult (DP): 0.0200 → 0.0100 at λ = 20\n"
    )
    assert farmi in text
    assert (
        "   * - facl\n     - 5, 10\n     - none\n     - 1 of 1\n"
        "     - adult (DP): 0.0400 → 0.0100 at λ = 10\n" in text
    )
    assert "``faircocco_paper`` keeps the paper's own weights" in text
