"""The score as the ridge ``ε`` grows: it tends to a limit, not to 0; and the range of ``ε``.

``R = G (G + εN I)⁻¹`` tends to ``G / (εN)``, so the statistic shrinks as ``1 / ε²`` while the
score, a ratio of terms that all shrink alike, tends to the normalised HSIC (centred kernel
alignment) ``Tr[G_u G_e] / (||G_u||_F ||G_e||_F)``; under EO with a fixed conditioning ε, to the
same with ``G_u`` and ``G_e`` projected by ``P = I − R_c``. A fixed cut-off of 1e-12 on the
score's denominator once zeroed the score from ``ε = 3e5`` at 300 rows.

Beyond 1e12 the score has reached that limit and the statistic underflows (the score was 0 from
1e160); below 1e-10, ``εN`` is lost in the rounding of the Gram matrix (the exact estimator's
factorisation failed). Both are refused, with the range.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from reference import gaussian_kernel, r_matrix

from faircocco_plugins import faircocco_score, faircocco_statistic, independence_test

N = 300


def centred(kernel):
    h = np.eye(len(kernel)) - 1.0 / len(kernel)
    return h @ kernel @ h


def alignment(x, y):
    return float(np.sum(x * y) / (np.linalg.norm(x) * np.linalg.norm(y)))


def dependent_sample(seed=0):
    rng = np.random.default_rng(seed)
    attribute = rng.normal(size=N)
    return attribute + rng.normal(size=N), attribute


@pytest.mark.parametrize(("method", "rel"), [("exact", 1e-6), ("lowrank", 3e-5)])
@pytest.mark.parametrize("eps", [3e5, 1e6, 1e8, 1e12])
def test_dp_score_tends_to_the_kernel_alignment(method, rel, eps):
    y_pred, attribute = dependent_sample()
    limit = alignment(centred(gaussian_kernel(y_pred)), centred(gaussian_kernel(attribute)))
    assert 0.3 < limit < 0.4
    assert faircocco_statistic(y_pred, attribute, eps=eps, method=method) < 1e-12
    # measured: the exact score 2e-2 / ε from the limit (relative), the low-rank one 1e-5
    assert faircocco_score(y_pred, attribute, eps=eps, method=method) == pytest.approx(
        limit, rel=rel
    )


@pytest.mark.parametrize(("method", "rel"), [("exact", 1e-6), ("lowrank", 3e-4)])
def test_eo_score_with_a_fixed_conditioning_eps_tends_to_the_projected_alignment(method, rel):
    rng = np.random.default_rng(1)
    attribute = rng.normal(size=N)
    y_true = (rng.random(N) < 0.5).astype(np.float64)
    y_pred = 0.5 * attribute + y_true + rng.normal(size=N)
    projector = np.eye(N) - r_matrix(gaussian_kernel(y_true), 1e-4)
    g_u = centred(gaussian_kernel(y_pred)) @ projector
    g_e = centred(gaussian_kernel(attribute) * gaussian_kernel(y_true)) @ projector
    limit = alignment(g_u.T, g_e)  # the statistic is Tr[G_u P G_e P]
    # measured: the exact score 5e-10 from the limit (relative), the low-rank one 1.8e-4
    score = faircocco_score(
        y_pred,
        attribute,
        y_true=y_true,
        notion="eo",
        eps=1e7,
        conditioning_eps=1e-4,
        method=method,
    )
    assert score == pytest.approx(limit, rel=rel)


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
@pytest.mark.parametrize("eps", [1e-4, 1e6, 1e10])
def test_constant_variables_still_score_zero(method, notion, eps):
    y_pred, attribute = dependent_sample(2)
    y_true = (y_pred > 0).astype(np.float64)
    options = {"notion": notion, "eps": eps, "method": method}
    options["y_true"] = None if notion == "dp" else y_true
    assert faircocco_score(y_pred, np.full(N, 3.0), **options) == 0.0
    assert faircocco_score(y_pred, np.full(N, 3.0), adjusted=True, **options) == 0.0
    if notion != "cal":  # under CAL constant predictions condition on nothing
        assert faircocco_score(np.full(N, 0.5), attribute, **options) == 0.0


def test_independence_test_at_a_large_eps_reports_the_limit_score():
    y_pred, attribute = dependent_sample()
    result = independence_test(y_pred, attribute, eps=1e6, n_permutations=99, random_state=0)
    assert result.score == pytest.approx(faircocco_score(y_pred, attribute, eps=1e6), rel=1e-4)
    assert result.score > 0.3
    assert result.pvalue == pytest.approx(0.01)


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("option", ["eps", "conditioning_eps"])
@pytest.mark.parametrize("eps", [1e-300, 1e-11, 2e12, 1e200])
def test_an_eps_outside_its_range_is_refused_with_the_range(method, option, eps):
    y_pred, attribute = dependent_sample(5)
    y_true = (y_pred > 0).astype(np.float64)
    expected = re.escape(f"{option}={eps!r} is not valid; expected ") + r".*\[1e-10, 1e\+12\]"
    with pytest.raises(ValueError, match=expected):
        faircocco_score(
            y_pred, attribute, y_true=y_true, notion="eo", method=method, **{option: eps}
        )


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("eps", [1e-10, 1e12])
def test_the_ends_of_the_eps_range_give_a_score(method, eps):
    y_pred, attribute = dependent_sample(6)
    y_true = (y_pred > 0).astype(np.float64)
    for notion in ("dp", "eo"):
        score = faircocco_score(
            y_pred, attribute, y_true=y_true, notion=notion, method=method, eps=eps
        )
        assert 0.05 < score < 1.0
