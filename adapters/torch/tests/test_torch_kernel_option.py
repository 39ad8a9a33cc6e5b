"""The ``kernel`` option reaches the FairCOCCO penalty from the penalty itself and from the
estimators, and an unknown kernel, or a kernel for a penalty without the option, is refused."""

from __future__ import annotations

import pytest

from faircocco_torch import FairCOCCOClassifier, FairCOCCOConstraint, FairCOCCOPenalty


@pytest.mark.parametrize("penalty", [FairCOCCOPenalty, FairCOCCOConstraint])
def test_the_penalties_refuse_an_unknown_kernel_naming_the_registered_ones(penalty):
    with pytest.raises(ValueError, match=r"^kernel='nope' is not valid; expected one of \["):
        penalty(notion="dp", kernel="nope")


def test_the_estimator_builds_its_faircocco_penalty_with_its_kernel():
    penalty = FairCOCCOClassifier(kernel="gaussian")._resolve_penalty()
    assert isinstance(penalty, FairCOCCOPenalty)
    assert penalty.kernel == "gaussian"
    assert FairCOCCOClassifier(kernel="gaussian").get_params()["kernel"] == "gaussian"


def test_the_estimator_refuses_a_kernel_for_a_penalty_with_a_kernel_of_its_own():
    with pytest.raises(ValueError, match=r"kernel='nope' is the FairCOCCO penalty's option"):
        FairCOCCOClassifier(penalty="hsic", kernel="nope")._resolve_penalty()
