"""The notion records: what each measures, given what, and whether it reads the outcome."""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins import faircocco_score
from faircocco_plugins._records.notions import NOTION_RECORDS, NOTIONS, notion_named


def test_each_notion_is_the_papers_conditional_independence() -> None:
    assert NOTIONS == ("dp", "eo", "cal", "eopp")
    # DP: Ŷ ⊥ A; EO: Ŷ ⊥ A | Y; CAL: Y ⊥ A | Ŷ; EOPP: Ŷ ⊥ A | Y = 1
    table = {n: (r.measured, r.given, r.needs_outcome) for n, r in NOTION_RECORDS.items()}
    assert table == {
        "dp": ("pred", None, False),
        "eo": ("pred", "truth", True),
        "cal": ("truth", "pred", True),
        "eopp": ("pred", "truth", True),
    }
    assert [r.independence for r in NOTION_RECORDS.values()] == [
        "Ŷ ⊥ A",
        "Ŷ ⊥ A | Y",
        "Y ⊥ A | Ŷ",
        "Ŷ ⊥ A | Y = 1",
    ]


def test_a_notion_passes_the_outcome_on_only_where_it_reads_it() -> None:
    y = np.array([0, 1])
    assert notion_named("dp").outcome(y) is None
    assert notion_named("eo").outcome(y) is y
    assert notion_named("cal").outcome(y) is y


@pytest.mark.parametrize("name", ["DP", "", None, "equalised odds"])
def test_an_unknown_notion_is_refused_by_name(name: object) -> None:
    with pytest.raises(ValueError, match=r"notion=.* is not valid; expected one of"):
        notion_named(name)  # type: ignore[arg-type]


def test_the_outcome_is_ignored_by_dp_and_required_by_the_others() -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 300)
    y = rng.integers(0, 2, 300)
    pred = rng.random(300) + 0.3 * a
    assert faircocco_score(pred, a, y_true=y, notion="dp") == faircocco_score(pred, a, notion="dp")
    for notion in ("eo", "cal"):
        with pytest.raises(ValueError, match=f"y_true is required for notion='{notion}'"):
            faircocco_score(pred, a, notion=notion)
