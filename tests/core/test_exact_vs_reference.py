"""The exact estimator against a literal transcription of the paper's formulas.

The reference (``reference.py``) builds every ``N × N`` matrix explicitly and inverts it; the
package solves with Cholesky factors and rewrites the EO trace. Both must agree to rounding.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from reference import reference

from faircocco_plugins import faircocco_score, faircocco_statistic

#: measured: every case within 1e-11, three of them above 1e-12
TOLERANCE = 1e-11


def assert_close(got: float, expected: float) -> None:
    """Agreement to :data:`TOLERANCE`, relative or absolute."""
    assert math.isclose(got, expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE), (got, expected)


def numeric_data(n: int, seed: int, y_kind: str, pred_dim: int):
    """Continuous, binary 0/1 and 4-level integer attributes; predictions depending on them."""
    rng = np.random.default_rng(seed)
    attributes = np.column_stack(
        [rng.normal(size=n), rng.integers(0, 2, n), rng.integers(0, 4, n)]
    ).astype(np.float64)
    if y_kind == "binary":
        y_true = (rng.random(n) < 0.3 + 0.4 * attributes[:, 1]).astype(np.float64)
    else:
        y_true = attributes[:, 0] + rng.normal(size=n)
    signal = 0.5 * attributes[:, 0] + 0.3 * attributes[:, 2] + y_true
    if pred_dim == 1:
        y_pred = signal + rng.normal(size=n)
    else:
        y_pred = np.column_stack([signal + rng.normal(size=n), rng.normal(size=n)])
    return y_pred, attributes, y_true


def library(function, y_pred, attributes, y_true, notion, kernel, **options):
    truth = None if notion == "dp" else y_true
    return function(
        y_pred,
        attributes,
        y_true=truth,
        notion=notion,
        method="exact",
        attribute_kernel=kernel,
        **options,
    )


@pytest.mark.parametrize("n", [50, 200])
@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
@pytest.mark.parametrize(("y_kind", "pred_dim"), [("binary", 1), ("continuous", 2)])
def test_joint_kernel_matches_reference(n, notion, y_kind, pred_dim):
    seed = n + 7 * pred_dim + (y_kind == "binary")
    y_pred, attributes, y_true = numeric_data(n, seed, y_kind, pred_dim)
    statistic, score = reference(y_pred, attributes, y_true, notion=notion)
    assert_close(
        library(faircocco_statistic, y_pred, attributes, y_true, notion, "joint"), statistic
    )
    assert_close(library(faircocco_score, y_pred, attributes, y_true, notion, "joint"), score)


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
@pytest.mark.parametrize(("y_kind", "pred_dim"), [("continuous", 1), ("binary", 2)])
def test_joint_kernel_matches_reference_other_shapes(notion, y_kind, pred_dim):
    y_pred, attributes, y_true = numeric_data(120, 3, y_kind, pred_dim)
    statistic, score = reference(y_pred, attributes, y_true, notion=notion)
    assert_close(
        library(faircocco_statistic, y_pred, attributes, y_true, notion, "joint"), statistic
    )
    assert_close(library(faircocco_score, y_pred, attributes, y_true, notion, "joint"), score)


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_mostly_equal_binary_columns_use_nonzero_median(notion):
    """Unbalanced binary columns: more than half the distances are 0, so σ is the gap."""
    rng = np.random.default_rng(11)
    n = 150
    attribute = (rng.random(n) < 0.1).astype(np.float64)
    y_true = (rng.random(n) < 0.15 + 0.5 * attribute).astype(np.float64)
    y_pred = (rng.random(n) < 0.2 + 0.4 * y_true).astype(np.float64) * 3.0
    statistic, score = reference(y_pred, attribute, y_true, notion=notion)
    assert_close(
        library(faircocco_statistic, y_pred, attribute, y_true, notion, "joint"), statistic
    )
    assert_close(library(faircocco_score, y_pred, attribute, y_true, notion, "joint"), score)


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
@pytest.mark.parametrize("conditioning_eps", [None, 1e-5])
def test_fixed_bandwidth_and_eps_match_reference(notion, conditioning_eps):
    y_pred, attributes, y_true = numeric_data(80, 5, "binary", 1)
    options = {"bandwidth": 0.7, "eps": 1e-1, "conditioning_eps": conditioning_eps}
    statistic, score = reference(y_pred, attributes, y_true, notion=notion, **options)
    got_statistic = library(
        faircocco_statistic, y_pred, attributes, y_true, notion, "joint", **options
    )
    assert_close(got_statistic, statistic)
    assert_close(
        library(faircocco_score, y_pred, attributes, y_true, notion, "joint", **options), score
    )


def mixed_frame(n: int, seed: int):
    """A DataFrame mixing float, bool, categorical and string columns, with its targets."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "income": rng.lognormal(size=n),
            "sex": rng.random(n) < 0.4,
            "race": pd.Categorical(rng.choice(["a", "b", "c", "d"], n)),
            "region": rng.choice(["north", "south", "east"], n),
        }
    )
    y_true = (rng.random(n) < 0.2 + 0.5 * frame["sex"].to_numpy()).astype(np.float64)
    y_pred = (
        np.log(frame["income"].to_numpy())
        + (frame["race"] == "a").to_numpy()
        + y_true
        + rng.normal(size=n)
    )
    return y_pred, frame, y_true


@pytest.mark.parametrize("n", [50, 200])
@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
def test_product_kernel_on_mixed_frame_matches_reference(n, notion):
    y_pred, frame, y_true = mixed_frame(n, n + 1)
    statistic, score = reference(y_pred, frame, y_true, notion=notion, attribute_kernel="product")
    assert_close(library(faircocco_statistic, y_pred, frame, y_true, notion, "product"), statistic)
    assert_close(library(faircocco_score, y_pred, frame, y_true, notion, "product"), score)


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
def test_joint_kernel_one_hot_encodes_nominal_columns(notion):
    y_pred, frame, y_true = mixed_frame(100, 9)
    statistic, score = reference(y_pred, frame, y_true, notion=notion, attribute_kernel="joint")
    assert_close(library(faircocco_statistic, y_pred, frame, y_true, notion, "joint"), statistic)
    assert_close(library(faircocco_score, y_pred, frame, y_true, notion, "joint"), score)


def test_product_and_joint_kernels_differ_for_several_columns():
    """The two attribute kernels are different measures (guards against one ignoring the flag)."""
    y_pred, frame, y_true = mixed_frame(100, 2)
    product = library(faircocco_score, y_pred, frame, y_true, "dp", "product")
    joint = library(faircocco_score, y_pred, frame, y_true, "dp", "joint")
    assert abs(product - joint) > 1e-6


def heights_and_weights(n: int, seed: int):
    """Height in metres, weight in kilograms and sex, with predictions and outcomes."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "height": rng.normal(1.7, 0.1, n),
            "weight": rng.normal(70.0, 12.0, n),
            "sex": rng.choice(["f", "m"], n),
        }
    )
    y_true = (rng.random(n) < 0.5).astype(np.float64)
    y_pred = 3.0 * (frame["height"].to_numpy() - 1.7) / 0.1 + y_true + rng.normal(size=n)
    return y_pred, frame, y_true


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("notion", ["dp", "eo"])
@pytest.mark.parametrize("columns", [["height", "weight"], ["height", "weight", "sex"]])
def test_joint_kernel_does_not_depend_on_units(method, notion, columns):
    """Height in millimetres instead of metres: one median distance of the raw vector would be
    set by that column alone (0.053 in metres, 0.370 in millimetres, 0.296 standardised)."""
    y_pred, frame, y_true = heights_and_weights(400, 5)
    millimetres = frame.assign(height=1000.0 * frame["height"])
    options = {"y_true": y_true, "notion": notion, "method": method, "attribute_kernel": "joint"}
    for function in (faircocco_score, faircocco_statistic):
        metres = function(y_pred, frame[columns], **options)
        got = function(y_pred, millimetres[columns], **options)
        assert got == pytest.approx(metres, rel=1e-12)  # measured: 1e-14 relative
    assert faircocco_score(y_pred, frame[columns], **options) > 0.2


# --- narrow sides ------------------------------------------------------------------------------
# A variable of discrete columns alone has exact features of one column per level combination:
# the exact estimator's complete features are that narrow, not one column per row.


def discrete_data(n: int, seed: int, y_kind: str):
    """Binary and 4-level attributes (floats) and a nominal one, outcomes and predictions."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "sex": rng.integers(0, 2, n).astype(np.float64),
            "region": rng.integers(0, 4, n).astype(np.float64),
            "race": pd.Categorical(rng.choice(["a", "b", "c"], n)),
        }
    )
    if y_kind == "binary":
        y_true = (rng.random(n) < 0.3 + 0.4 * frame["sex"].to_numpy()).astype(np.float64)
    else:
        y_true = frame["region"].to_numpy() + rng.normal(size=n)
    y_pred = 0.5 * frame["region"].to_numpy() + (frame["race"] == "a") + y_true
    return y_pred + rng.normal(size=n), frame, y_true


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
@pytest.mark.parametrize("y_kind", ["binary", "continuous"])
@pytest.mark.parametrize("kernel", ["product", "joint"])
def test_narrow_sides_match_reference(notion, y_kind, kernel):
    y_pred, frame, y_true = discrete_data(150, 4, y_kind)
    statistic, score = reference(y_pred, frame, y_true, notion=notion, attribute_kernel=kernel)
    # measured within 4.2e-13 relative
    assert library(faircocco_statistic, y_pred, frame, y_true, notion, kernel) == pytest.approx(
        statistic, rel=1e-10
    )
    assert library(faircocco_score, y_pred, frame, y_true, notion, kernel) == pytest.approx(
        score, rel=1e-10
    )


@pytest.mark.parametrize(
    ("notion", "y_kind", "role"),
    [("dp", "binary", "e"), ("eo", "binary", "e"), ("cal", "binary", "u")],
)
def test_a_discrete_side_s_exact_features_are_as_wide_as_its_level_combinations(
    notion, y_kind, role
):
    from faircocco_plugins._options import Options
    from faircocco_plugins._routes.problem import Problem

    y_pred, frame, y_true = discrete_data(150, 4, y_kind)
    options = Options.check(notion=notion, method="exact")
    fit = Problem.from_arguments(y_pred, frame, y_true, options).fit()
    fit = getattr(fit, "_fit", fit)  # under a local permutation null (CAL: continuous y_pred)
    # the attributes, with the binary outcome under EO; the binary outcome under CAL
    columns = [frame[name].astype(str) for name in frame] if role == "e" else []
    if notion != "dp":
        columns.append(pd.Series(y_true).astype(str))
    combinations = len(
        pd.DataFrame({i: c.to_numpy() for i, c in enumerate(columns)}).drop_duplicates()
    )
    assert fit._source.maps[role].width == combinations
    statistic, _ = reference(y_pred, frame, y_true, notion=notion, attribute_kernel="product")
    assert fit.terms.statistic == pytest.approx(statistic, rel=1e-10)
