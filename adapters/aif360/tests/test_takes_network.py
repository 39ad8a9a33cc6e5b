"""Both in-processing interfaces take the network's parameters from one declaration."""

from __future__ import annotations

import pytest
from sklearn.base import clone

from faircocco_aif360 import FairCOCCOInprocessing
from faircocco_aif360._network import NETWORK_DEFAULTS
from faircocco_aif360.sklearn import FairCOCCOInprocessing as SklearnInprocessing


@pytest.mark.parametrize("interface", [FairCOCCOInprocessing, SklearnInprocessing])
def test_every_network_parameter_is_stored_given_or_at_its_default(interface):
    model = interface(epochs=3)
    assert {name: getattr(model, name) for name in NETWORK_DEFAULTS} == {
        **NETWORK_DEFAULTS,
        "epochs": 3,
    }


@pytest.mark.parametrize("interface", [FairCOCCOInprocessing, SklearnInprocessing])
def test_an_unknown_keyword_is_python_s_error(interface):
    with pytest.raises(
        TypeError, match=r"^FairCOCCOInprocessing.__init__\(\) got an unexpected keyword"
    ):
        interface(epoch=3)


def test_scikit_learn_sees_the_network_parameters():
    params = clone(SklearnInprocessing("age", batch_size=64)).get_params()
    assert params["batch_size"] == 64 and set(NETWORK_DEFAULTS) <= set(params)
