"""FACL and FARMI against slow, literal transcriptions of their formulas on small inputs.

The transcriptions below follow the published definitions step by step, with explicit loops
over grid cells, rows and classes, in float64 numpy; the penalties vectorise the same
computation in torch.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")
pytest.importorskip("faircocco_torch")

from scipy.spatial.distance import pdist  # noqa: E402

from faircocco_torch import FACLPenalty, FARMIPenalty, SensitiveEncoder  # noqa: E402
from faircocco_torch._hsic import median_bandwidth  # noqa: E402


def facl_literal(x: np.ndarray, a: np.ndarray, z: np.ndarray | None, damping: float) -> float:
    """FACL's χ² (DP) or mean conditional χ² over target slices (EO), cell by cell."""
    variables = [x, a] if z is None else [x, a, z]
    variables = [(v - v.mean()) / math.sqrt(v.var(ddof=1) + 1e-8) for v in variables]
    n, d = len(x), len(variables)
    h = (n * (d + 2) / 4.0) ** (-1.0 / (d + 4))
    nbins = int(min(50, 5.0 / h))
    grid = np.linspace(-2.5, 2.5, nbins)
    table = np.zeros((nbins,) * d)
    for cell in itertools.product(range(nbins), repeat=d):
        point = np.array([grid[i] for i in cell])
        total = 0.0
        for row in range(n):
            sample = np.array([v[row] for v in variables])
            total += math.exp(-np.sum((point - sample) ** 2) / (2 * h * h))
        table[cell] = total / n / (math.sqrt(2 * math.pi) * h) + damping
    table /= table.sum()
    if d == 2:
        chi2 = 0.0
        for i, j in itertools.product(range(nbins), repeat=2):
            p_i = sum(table[i, jj] for jj in range(nbins))
            p_j = sum(table[ii, j] for ii in range(nbins))
            chi2 += table[i, j] ** 2 / (p_i * p_j)
        return chi2 - 1.0
    slices = []
    for k in range(nbins):
        chi2 = 0.0
        for i, j in itertools.product(range(nbins), repeat=2):
            p_ik = sum(table[i, jj, k] for jj in range(nbins))
            p_jk = sum(table[ii, j, k] for ii in range(nbins))
            chi2 += table[i, j, k] ** 2 / (p_ik * p_jk)
        slices.append(chi2 - 1.0)
    return sum(slices) / len(slices)


def farmi_literal(phi: np.ndarray, onehot: np.ndarray, ridge: float = 1.0) -> float:
    """``mean_i Σ_k A_ik log p̂(a=k | φ_i)`` with the closed-form LSPC, row by row."""
    design = np.column_stack([np.ones(len(phi)), phi])
    weights = np.linalg.solve(
        design.T @ design + ridge * np.eye(design.shape[1]), design.T @ onehot
    )
    total = 0.0
    for i in range(len(design)):
        q = [
            math.log1p(math.exp(30.0 * float(design[i] @ weights[:, k]))) / 30.0
            for k in range(onehot.shape[1])
        ]
        for k in range(onehot.shape[1]):
            total += onehot[i, k] * (math.log(max(q[k], 1e-30)) - math.log(sum(q)))
    return total / len(design)


@pytest.fixture(scope="module")
def sample() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    n = 40
    a = rng.integers(0, 2, n).astype(np.float64)
    y = rng.integers(0, 2, n).astype(np.float64)
    age = rng.normal(size=n)
    pred = 1.0 / (1.0 + np.exp(-(y + a + 0.5 * age + rng.normal(size=n))))
    race = rng.integers(0, 3, n)
    return {"a": a, "y": y, "age": age, "pred": pred, "race": race}


def _t(values: np.ndarray) -> torch.Tensor:
    return torch.as_tensor(values, dtype=torch.float64)


@pytest.mark.parametrize("attribute", ["a", "age"])
def test_facl_dp_matches_literal(sample: dict[str, np.ndarray], attribute: str) -> None:
    expected = facl_literal(sample["pred"], sample[attribute], None, 1e-10)
    value = FACLPenalty(notion="dp")(_t(sample["pred"]), _t(sample[attribute]))
    assert value.item() == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("attribute", ["a", "age"])
def test_facl_eo_matches_literal(sample: dict[str, np.ndarray], attribute: str) -> None:
    expected = facl_literal(sample["pred"], sample[attribute], sample["y"], 1e-10)
    value = FACLPenalty(notion="eo")(_t(sample["pred"]), _t(sample[attribute]), _t(sample["y"]))
    assert value.item() == pytest.approx(expected, rel=1e-9)


def test_facl_sums_attributes_and_levels(sample: dict[str, np.ndarray]) -> None:
    encoder = SensitiveEncoder(nominal=[1], standardize=False)
    table = np.column_stack([sample["age"], sample["race"]])
    sensitive = encoder.fit_transform(table).double()
    expected = facl_literal(sample["pred"], sample["age"], None, 1e-10) + sum(
        facl_literal(sample["pred"], (sample["race"] == level).astype(float), None, 1e-10)
        for level in range(3)
    )
    penalty = FACLPenalty(notion="dp", schema=encoder.schema_)
    assert penalty(_t(sample["pred"]), sensitive).item() == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_farmi_matches_literal(sample: dict[str, np.ndarray], notion: str) -> None:
    onehot = np.column_stack([1.0 - sample["a"], sample["a"]])
    phi = (
        sample["pred"][:, None]
        if notion == "dp"
        else np.column_stack([sample["pred"], 1.0 - sample["y"], sample["y"]])
    )
    expected = farmi_literal(phi, onehot)
    y_true = None if notion == "dp" else _t(sample["y"]).long()
    value = FARMIPenalty(notion=notion)(_t(sample["pred"]), _t(sample["a"]), y_true)
    assert value.item() == pytest.approx(expected, rel=1e-9)


def test_farmi_cal_is_the_difference_of_two_fits(sample: dict[str, np.ndarray]) -> None:
    onehot = np.column_stack([1.0 - sample["a"], sample["a"]])
    joint = farmi_literal(np.column_stack([sample["pred"], sample["y"]]), onehot)
    alone = farmi_literal(sample["pred"][:, None], onehot)
    value = FARMIPenalty(notion="cal")(_t(sample["pred"]), _t(sample["a"]), _t(sample["y"]))
    assert value.item() == pytest.approx(joint - alone, rel=1e-9)


def test_farmi_binarises_continuous_attributes_at_the_median(
    sample: dict[str, np.ndarray],
) -> None:
    above = (sample["age"] > np.median(sample["age"])).astype(np.float64)
    expected = farmi_literal(sample["pred"][:, None], np.column_stack([1.0 - above, above]))
    value = FARMIPenalty(notion="dp")(_t(sample["pred"]), _t(sample["age"]))
    assert value.item() == pytest.approx(expected, rel=1e-9)


def test_farmi_categorical_attribute_uses_its_levels(sample: dict[str, np.ndarray]) -> None:
    encoder = SensitiveEncoder(nominal=[0])
    sensitive = encoder.fit_transform(sample["race"]).double()
    expected = farmi_literal(sample["pred"][:, None], np.eye(3)[sample["race"]])
    penalty = FARMIPenalty(notion="dp", schema=encoder.schema_)
    assert penalty(_t(sample["pred"]), sensitive).item() == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    "penalty",
    [FACLPenalty(notion="eo"), FARMIPenalty(notion="eo")],
    ids=["facl", "farmi"],
)
def test_gradients_match_finite_differences(
    sample: dict[str, np.ndarray], penalty: torch.nn.Module
) -> None:
    pred = _t(sample["pred"][:24]).requires_grad_()
    a, y = _t(sample["a"][:24]), _t(sample["y"][:24])
    assert torch.autograd.gradcheck(lambda p: penalty(p, a, y), (pred,), eps=1e-6, atol=1e-5)


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        (np.random.default_rng(0).normal(size=257), None),  # the median of all distances
        (np.array([0.0, 0.0, 0.0, 0.0, 2.0]), 2.0),  # most distances are 0: the non-zero ones
        (np.array([1.5, 1.5, 1.5]), 1.0),  # constant
        (np.array([3.0]), 1.0),  # no pair
    ],
)
def test_hsic_bandwidth_is_the_literal_median_distance(column, expected):
    if expected is None:
        expected = float(np.median(pdist(column[:, None])))
    assert median_bandwidth(torch.tensor(column)) == pytest.approx(expected, rel=1e-15)
