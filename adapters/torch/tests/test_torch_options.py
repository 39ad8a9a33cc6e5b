"""The penalty and the constraint take the statistic's options from the core's one table."""

import inspect

import pytest

pytest.importorskip("torch")

from faircocco_plugins.plugins import STATISTIC_OPTIONS
from faircocco_torch import FairCOCCOConstraint, FairCOCCOPenalty


@pytest.mark.parametrize("penalty", [FairCOCCOPenalty, FairCOCCOConstraint])
def test_defaults_are_the_table_s(penalty):
    parameters = inspect.signature(penalty).parameters
    given = {name: p.default for name, p in parameters.items() if name in STATISTIC_OPTIONS}
    expected = {
        name: option.defaults["penalty"]
        for name, option in STATISTIC_OPTIONS.items()
        if "penalty" in option.defaults
    }
    assert given == expected


@pytest.mark.parametrize("name", ["notion", "method", "rank", "eps", "bandwidth"])
def test_bad_option_fails_at_construction(name):
    bad = {"notion": "parity", "method": "fast", "rank": 0, "eps": -1.0, "bandwidth": "mean"}
    with pytest.raises((TypeError, ValueError), match=name):
        FairCOCCOPenalty(**{name: bad[name]})
