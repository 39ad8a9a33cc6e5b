"""The score at any representable scale of its variables.

Under the median heuristic the Gaussian kernel, and so the score, does not change when a
variable is rescaled. The bandwidth rules (median distance, column means and spreads) are taken
in binary units, so this holds in floating point too: squared distances of values of 1e160
overflowed and those of 1e-200 underflowed to 0, which zeroed the score of a binary column, and
the joint kernel's spreads of 1e-200 were 0, which crashed its factorisation.
"""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins import faircocco_score, faircocco_statistic
from faircocco_plugins._kernels.kernel import column_spreads, median_distance

N = 300
SCALES = [1e-310, 1e-200, 1e160, 1e300]
POWERS_OF_TWO = [2.0**-1000, 2.0**1000]


def sample(seed=0):
    """Predictions depending on a continuous and a binary attribute."""
    rng = np.random.default_rng(seed)
    continuous, binary = rng.uniform(size=N), rng.integers(0, 2, N).astype(np.float64)
    return continuous + binary + rng.normal(size=N), np.column_stack([continuous, binary])


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("kernel", ["product", "joint"])
@pytest.mark.parametrize("scale", SCALES)
def test_rescaled_variables_give_the_same_score(method, kernel, scale):
    y_pred, attributes = sample()
    options = {"method": method, "attribute_kernel": kernel}
    score = faircocco_score(y_pred, attributes, **options)
    assert score > 0.05
    # measured within 1.5e-13 (the rescaled values themselves are rounded; denormals keep
    # fewer digits)
    assert faircocco_score(y_pred, attributes * scale, **options) == pytest.approx(score, rel=1e-12)
    assert faircocco_score(y_pred * scale, attributes, **options) == pytest.approx(score, rel=1e-12)


@pytest.mark.parametrize("scale", POWERS_OF_TWO)
def test_power_of_two_rescaling_gives_the_same_bits(scale):
    y_pred, attributes = sample(1)
    y_true = (y_pred > 1).astype(np.float64)
    expected = faircocco_statistic(y_pred, attributes, y_true=y_true, notion="eo")
    got = faircocco_statistic(
        y_pred * scale, attributes * scale, y_true=y_true * scale, notion="eo"
    )
    assert got == expected


@pytest.mark.parametrize("scale", [*POWERS_OF_TWO, 2.0**-1060])
@pytest.mark.parametrize("shape", [(400, 1), (50, 1), (300, 3)])
def test_median_distance_scales_with_the_sample(scale, shape):
    # one column of many values (band of differences), few values, several columns
    rng = np.random.default_rng(2)
    values = rng.normal(size=shape).round(0 if shape[0] == 50 else 6)
    expected = median_distance(values) * scale
    got = median_distance(values * scale)
    # exact where the values stay normal numbers; denormals (2**-1060) keep 14 bits fewer
    assert got == expected if scale >= 2.0**-1000 else got == pytest.approx(expected, rel=1e-11)


@pytest.mark.parametrize("scale", [*POWERS_OF_TWO, 2.0**-1060])
def test_column_spreads_scale_with_each_column(scale):
    values = np.random.default_rng(3).normal(size=(200, 2)) * [1.0, scale]
    spreads = column_spreads(values, 2)
    # measured within 3e-16 (the order of the sums), 4e-16 / 6e-14 (denormals)
    assert spreads[0] == pytest.approx(np.std(values[:, 0]), rel=1e-15)
    assert spreads[1] == pytest.approx(np.std(values[:, 1] / scale) * scale, rel=1e-12)


def test_constant_samples_keep_bandwidth_one():
    assert median_distance(np.full((10, 2), 1e300)) == 1.0


def test_values_beyond_float64_once_scaled_are_refused_by_column():
    rng = np.random.default_rng(4)
    y_pred, attributes = sample(4)
    # a column of tiny values with one far row: divided by their median distance, it overflows
    tiny = np.concatenate([rng.normal(size=N - 1) * 1e-300, [1e10]])
    spread = np.column_stack([attributes, tiny])
    with pytest.raises(ValueError, match=r"sensitive_features column 'sensitive_features\[2\]'"):
        faircocco_score(y_pred, spread)
    # values near the largest float, in two groups: the gap between them overflows
    huge = np.where(rng.random(N) < 0.5, -1.7e308, 1.7e308)
    with pytest.raises(ValueError, match=r"y_pred column 'y_pred' holds values from .* float64"):
        faircocco_score(huge, attributes)
