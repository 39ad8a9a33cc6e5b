"""Every route to the statistic implements the one interface, ``_estimators.terms.Route``."""

import numpy as np
import pytest

from faircocco_plugins._estimators.local_null import LocalPermutationFit
from faircocco_plugins._estimators.lowrank import LowRankFit
from faircocco_plugins._estimators.terms import ConstantAttributesFit, Route
from faircocco_plugins._options import Options
from faircocco_plugins._routes.problem import Problem

N = 150


def route(name):
    """The fit of one route, through the pipeline that chooses it."""
    rng = np.random.default_rng(7)
    attribute = rng.normal(size=N)
    y_true = rng.normal(size=N)
    y_pred = attribute + y_true + rng.normal(size=N)
    notion, method = {
        "exact": ("dp", "exact"),
        "lowrank": ("dp", "lowrank"),
        "local": ("eo", "lowrank"),
        "constant": ("eo", "exact"),
    }[name]
    if name == "constant":
        attribute = np.ones(N)
    options = Options.check(notion=notion, method=method)
    truth = None if notion == "dp" else y_true
    return Problem.from_arguments(y_pred, attribute, truth, options).fit()


ROUTES = {
    "exact": LowRankFit,  # on complete features
    "lowrank": LowRankFit,
    "local": LocalPermutationFit,
    "constant": ConstantAttributesFit,
}


@pytest.mark.parametrize("name", list(ROUTES))
def test_every_route_implements_the_interface(name):
    fit = route(name)
    assert type(fit) is ROUTES[name]
    if name in ("exact", "lowrank"):
        assert fit.terms.method == name
    assert isinstance(fit, Route)
    assert fit.strata.shape == (N,) and np.issubdtype(fit.strata.dtype, np.integer)
    identity = np.arange(N)[None, :]
    observed = float(fit.terms.statistic)
    # measured: equal to 8e-14 (exact) and 5e-14 (low-rank): the permuted rows are recentred
    assert fit.permuted_statistics(identity)[0] == pytest.approx(observed, rel=1e-12, abs=1e-15)
    shuffled = np.random.default_rng(0).permutation(N)[None, :]
    assert fit.permuted_statistics(shuffled).shape == (1,)
    assert np.isfinite(fit.terms.null_statistic)
    # the local null refits the estimator it wraps, which only the estimators themselves can
    assert hasattr(fit, "attribute_statistics") == (name in ("exact", "lowrank"))
