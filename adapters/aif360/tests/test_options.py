"""The in-processing algorithms take the notion's default from the core's table of options."""

import inspect

import pytest

from faircocco_aif360 import FairCOCCOInprocessing
from faircocco_aif360.sklearn import FairCOCCOInprocessing as SklearnInprocessing
from faircocco_plugins.plugins import STATISTIC_OPTIONS


@pytest.mark.parametrize("algorithm", [FairCOCCOInprocessing, SklearnInprocessing])
def test_defaults_are_the_table_s(algorithm):
    parameters = inspect.signature(algorithm).parameters
    given = {name: p.default for name, p in parameters.items() if name in STATISTIC_OPTIONS}
    expected = {
        name: option.defaults["in-processing"]
        for name, option in STATISTIC_OPTIONS.items()
        if "in-processing" in option.defaults
    }
    # its random_state seeds the training (weights, batches), not the statistic's sample
    given.pop("random_state")
    assert given == expected
