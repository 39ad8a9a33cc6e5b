"""The device route of torch tensors (:mod:`faircocco_plugins._routes.device`) against the host
route of numpy arrays: same order, bandwidths, levels and pivots, so the same statistic and
score up to the order of floating-point sums. Run on CPU tensors, which stand in for an
accelerator's (the route is the same code); outside these tests CPU tensors take the host
route."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from array_api_compat import is_torch_array

from faircocco_plugins import faircocco_score, faircocco_statistic
from faircocco_plugins._estimators.cholesky import PIVOT_BLOCK, incomplete_cholesky
from faircocco_plugins._kernels.kernel import median_distance
from faircocco_plugins._kernels.levels import distinct_count, unique_inverse
from faircocco_plugins._kernels.registry import kernel_named

torch = pytest.importorskip("torch")

from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

from faircocco_plugins._inputs.row_order import lexicographic_order  # noqa: E402
from faircocco_plugins._linalg import backend  # noqa: E402
from faircocco_plugins._routes import device as device_route  # noqa: E402
from faircocco_plugins._routes import dispatch  # noqa: E402
from faircocco_plugins._routes.choose import DEVICE_ROUTES, ScoreRoute  # noqa: E402


@pytest.fixture(autouse=True)
def one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(autouse=True)
def cpu_tensors_take_the_device_route(monkeypatch):
    """An accelerator's tensors take the device route; here CPU tensors stand in for them."""
    monkeypatch.setattr(backend, "on_accelerator", lambda value: is_torch_array(value))


@pytest.fixture
def device_calls(monkeypatch):
    """For each problem of tensors, whether the device route answers it (rather than the
    route chooser leaving it to the host, before or after the device measured it)."""
    answered = []
    original = dispatch.choose_route

    def counted(problem, measured=None, **keywords):
        route = original(problem, measured, **keywords)
        if measured is not None:
            answered.append(route is not ScoreRoute.HOST)
        elif route not in DEVICE_ROUTES and backend.on_accelerator(problem.like):
            answered.append(False)
        return route

    monkeypatch.setattr(dispatch, "choose_route", counted)
    return answered


def attributes(kind, n, rng):
    if kind == "binary":
        return rng.integers(0, 2, n).astype(np.float64)
    if kind == "categorical":
        return rng.integers(0, 6, n).astype(np.float64)
    if kind == "continuous":
        return rng.normal(size=n)
    # three mixed attributes: binary, categorical, continuous
    return np.column_stack([rng.integers(0, 2, n), rng.integers(0, 4, n), rng.normal(size=n)])


def data(kind, n, seed):
    rng = np.random.default_rng(seed)
    a = attributes(kind, n, rng)
    first = a if a.ndim == 1 else a[:, 0] + a[:, 2]
    y = (rng.random(n) < 0.3 + 0.1 * (first > 0)).astype(np.float64)
    pred = 0.5 * first + y + rng.normal(size=n)
    return pred, a, y


def both_routes(function, pred, a, y, **options):
    expected = function(pred, a, y_true=y, **options)
    got = function(torch.tensor(pred), torch.tensor(a), y_true=torch.tensor(y), **options)
    return expected, got


@pytest.mark.parametrize("kind", ["binary", "categorical", "continuous", "mixed"])
@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lowrank_statistic_and_score_equal_the_host_route(kind, notion, seed, device_calls):
    pred, a, y = data(kind, 1500, seed)
    for function in (faircocco_statistic, faircocco_score):
        expected, got = both_routes(function, pred, a, y, notion=notion, method="lowrank")
        assert isinstance(got, torch.Tensor)
        # measured: at most 1.7e-13 relative (the order of sums differs)
        assert got.item() == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert device_calls == [True, True]


@pytest.mark.parametrize("kind", ["binary", "mixed"])
@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
def test_exact_statistic_equals_the_host_route(kind, notion, device_calls):
    pred, a, y = data(kind, 300, 3)
    expected, got = both_routes(faircocco_statistic, pred, a, y, notion=notion, method="exact")
    # measured: at most 1.6e-12 relative, as the host route of tensors (torch's N × N solves)
    assert got.item() == pytest.approx(expected, rel=5e-12, abs=1e-15)
    assert device_calls == [True]


@pytest.mark.parametrize("method", ["exact", "lowrank"])
def test_joint_kernel_standardises_columns_as_the_host_route(method, device_calls):
    """The joint attribute kernel divides each column by its spread on the device too: a
    column in other units (here times 1000) changes neither route's score."""
    pred, a, y = data("mixed", 300 if method == "exact" else 1500, 7)
    a = a * np.array([1.0, 1.0, 1000.0])
    options = {"notion": "eo", "method": method, "attribute_kernel": "joint"}
    expected, got = both_routes(faircocco_score, pred, a, y, **options)
    # measured: 4e-14 relative (the spreads' sums in another order)
    assert got.item() == pytest.approx(expected, rel=5e-13)
    unscaled = faircocco_score(pred, a / np.array([1.0, 1.0, 1000.0]), y_true=y, **options)
    assert expected == pytest.approx(unscaled, rel=1e-12)  # measured: 2e-14
    assert device_calls == [True]


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
def test_row_order_does_not_change_the_device_route(notion):
    pred, a, y = data("mixed", 1200, 4)
    order = np.random.default_rng(5).permutation(pred.size)
    values = [
        faircocco_statistic(
            torch.tensor(pred[rows]),
            torch.tensor(a[rows]),
            y_true=torch.tensor(y[rows]),
            notion=notion,
            method="lowrank",
        ).item()
        for rows in (np.arange(pred.size), order)
    ]
    assert values[0] == values[1]


def test_tracked_predictions_keep_their_gradient_and_value(device_calls):
    pred, a, y = data("mixed", 1000, 6)
    expected = faircocco_statistic(pred, a, y_true=y, notion="cal", method="lowrank")
    tracked = torch.tensor(pred, requires_grad=True)
    got = faircocco_statistic(
        tracked, torch.tensor(a), y_true=torch.tensor(y), notion="cal", method="lowrank"
    )
    got.backward()
    assert got.item() == pytest.approx(expected, rel=2e-12)
    assert tracked.grad is not None and torch.isfinite(tracked.grad).all()
    assert tracked.grad.abs().sum() > 0
    assert device_calls == [True]


def test_a_fixed_bandwidth_and_a_rank_cap_are_honoured():
    pred, a, y = data("mixed", 800, 7)
    options = {"notion": "eo", "method": "lowrank", "bandwidth": 0.7, "rank": 5}
    expected, got = both_routes(faircocco_statistic, pred, a, y, **options)
    assert got.item() == pytest.approx(expected, rel=2e-12)


@pytest.mark.parametrize("method", ["lowrank", "exact"])
def test_constant_attributes_score_zero_on_the_device_route(method):
    pred, _, y = data("binary", 500, 8)
    got = faircocco_score(
        torch.tensor(pred), torch.ones(500), y_true=torch.tensor(y), notion="eo", method=method
    )
    assert got.item() == 0.0


def test_nominal_attributes_take_the_host_route(device_calls):
    pred, a, y = data("binary", 400, 9)
    names = np.where(a > 0, "f", "m")
    expected = faircocco_statistic(pred, names, y_true=y, notion="eo", method="lowrank")
    got = faircocco_statistic(torch.tensor(pred), names, y_true=torch.tensor(y), notion="eo")
    assert got.item() == pytest.approx(expected, rel=1e-12)
    assert device_calls == [False]


@pytest.mark.parametrize(
    "sample",
    [
        np.random.default_rng(0).normal(size=(1000, 1)),
        np.random.default_rng(1).integers(0, 2, (1000, 1)).astype(np.float64),
        np.random.default_rng(2).normal(size=(700, 3)),
        np.column_stack([np.random.default_rng(3).integers(0, 2, 900), np.zeros(900)]),
        (np.random.default_rng(4).random((1000, 1)) < 0.9).astype(np.float64),
        np.ones((40, 1)),
    ],
)
def test_median_distance_is_the_host_value_to_the_bit(sample):
    assert median_distance(torch.tensor(sample)).item() == median_distance(sample)


@pytest.mark.parametrize("scale", [2.0**-1060, 1e-200, 1e160, 2.0**1000])
def test_median_distance_at_extreme_scales_is_the_host_value(scale):
    sample = np.random.default_rng(5).normal(size=(300, 2)) * scale
    assert median_distance(torch.tensor(sample)).item() == median_distance(sample)
    assert median_distance(sample) == pytest.approx(median_distance(sample / scale) * scale)


@pytest.mark.parametrize("method", ["exact", "lowrank"])
@pytest.mark.parametrize("kernel", ["product", "joint"])
@pytest.mark.parametrize("scale", [1e-310, 1e-200, 1e160])
def test_rescaled_variables_give_the_same_score_on_the_device_route(
    method, kernel, scale, device_calls
):
    pred, a, y = data("mixed", 300 if method == "exact" else 1500, 8)
    options = {"notion": "eo", "method": method, "attribute_kernel": kernel}
    expected = faircocco_score(pred, a, y_true=y, **options)
    _, got = both_routes(faircocco_score, pred * scale, a * scale, y * scale, **options)
    # measured within 4e-13 (the rescaled values are rounded; denormals keep fewer digits)
    assert got.item() == pytest.approx(expected, rel=2e-12)
    assert device_calls == [True]


def test_values_beyond_float64_once_scaled_are_refused_on_the_device_route(device_calls):
    pred, a, y = data("mixed", 600, 9)
    huge = np.where(pred > 0, -1.7e308, 1.7e308)  # the gap between them overflows
    with pytest.raises(ValueError, match=r"y_pred column 'y_pred' holds values from .* float64"):
        faircocco_score(torch.tensor(huge), torch.tensor(a), y_true=torch.tensor(y), notion="eo")
    assert device_calls == []  # refused inside the device route, before it answered


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("columns", [1, 2])
def test_incomplete_cholesky_chooses_the_host_pivots(seed, columns):
    z = np.random.default_rng(seed).normal(size=(1500, columns))
    gaussian = kernel_named("gaussian")
    pivots, factor = incomplete_cholesky(z, gaussian, 1e-6, gaussian.default_rank)
    got_pivots, got_factor = incomplete_cholesky(
        torch.tensor(z), gaussian, 1e-6, gaussian.default_rank
    )
    rank = int(torch.count_nonzero(got_pivots >= 0))
    assert np.array_equal(got_pivots[:rank].numpy(), pivots)
    assert np.abs(got_factor[:, :rank].numpy() - factor).max() < 1e-11


def test_equal_largest_residuals_go_to_the_smallest_values():
    # every residual starts at 1: the first pivot is the smallest row, wherever it sits
    z = torch.tensor([[3.0, 0.0], [1.0, 2.0], [1.0, 1.0], [5.0, 5.0]], dtype=torch.float64)
    for rows in (z, z.numpy()):
        assert incomplete_cholesky(rows, kernel_named("gaussian"), 1e-6, 1)[0].tolist() == [2]


def test_canonical_order_sorts_rows_lexicographically():
    columns = [torch.tensor([2.0, 1.0, 2.0, 1.0]), torch.tensor([0.0, 5.0, -1.0, 3.0])]
    assert lexicographic_order(columns).tolist() == [3, 1, 2, 0]
    # numpy columns take the host's sort, to the same order
    assert lexicographic_order([c.numpy() for c in columns]).tolist() == [3, 1, 2, 0]


def test_levels_of_tensors_are_those_of_numpy_arrays():
    column = np.array([2.0, -1.0, 2.0, 0.5, -1.0])
    uniques, codes = unique_inverse(column, 4)
    got_uniques, got_codes = unique_inverse(torch.tensor(column), 4)
    assert got_codes.tolist() == codes.tolist() == [2, 0, 2, 1, 0]
    assert got_uniques[:3].tolist() == uniques[:3].tolist() == [-1.0, 0.5, 2.0]
    assert distinct_count(torch.tensor(column)).item() == distinct_count(column) == 3


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
def test_discrete_predictions_and_attributes_have_no_pivots(notion, device_calls):
    rng = np.random.default_rng(10)
    a = rng.integers(0, 3, 600).astype(np.float64)
    y = rng.integers(0, 2, 600).astype(np.float64)
    pred = np.clip(a + rng.integers(-1, 2, 600), 0, 3).astype(np.float64)
    expected, got = both_routes(faircocco_score, pred, a, y, notion=notion, method="lowrank")
    assert got.item() == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert device_calls == [True]


def test_cpu_tensors_take_the_host_route_by_default(monkeypatch, device_calls):
    monkeypatch.undo()  # the fixtures' stand-in and counter
    answered = []
    monkeypatch.setattr(device_route, "device_terms", lambda problem: answered.append(1))
    pred, a, y = data("binary", 300, 11)
    faircocco_score(torch.tensor(pred), torch.tensor(a), y_true=torch.tensor(y), notion="eo")
    assert answered == []


@pytest.mark.parametrize("present", ["few", "many"])
def test_many_possible_level_combinations_are_counted_on_the_device(present, device_calls):
    """Three columns of 20 levels could make 8,000 combinations: the device counts the
    present ones; with more than 256 the host drops levels column by column, and the device
    route leaves such data to it."""
    rng = np.random.default_rng(12)
    n = 3000
    if present == "few":
        base = rng.integers(0, 20, n)
        a = np.column_stack([base, (base + 1) % 20, (3 * base) % 20]).astype(np.float64)
    else:
        a = np.column_stack([rng.integers(0, k, n) for k in (20, 19, 18)]).astype(np.float64)
    y = rng.integers(0, 2, n).astype(np.float64)
    pred = a[:, 0] / 10 + y + rng.normal(size=n)
    expected, got = both_routes(faircocco_score, pred, a, y, notion="eo", method="lowrank")
    assert got.item() == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert device_calls == [present == "few"]


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_the_adjusted_score_takes_the_host_routes_null(notion, device_calls):
    pred, a, y = data("mixed", 800, 13)
    options = {"notion": notion, "method": "lowrank", "adjusted": True}
    expected, got = both_routes(faircocco_score, pred, a, y, **options)
    assert got.item() == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert device_calls == [True]


def test_the_report_of_tensors_is_the_numpy_report(device_calls):
    from faircocco_plugins import faircocco_report

    pred, a, y = data("mixed", 700, 14)
    expected = faircocco_report(pred, a, y_true=y, notion="eo", method="lowrank")
    got = faircocco_report(
        torch.tensor(pred), torch.tensor(a), y_true=torch.tensor(y), notion="eo", method="lowrank"
    )
    columns = ["score", "statistic"]
    assert np.allclose(got[columns].to_numpy(float), expected[columns].to_numpy(float), rtol=1e-12)
    assert device_calls == [True] * 4  # jointly and for each of the three attributes


#: Tensor methods that copy a value from the tensor's device to the host (waiting for it), with
#: ``.to`` a CPU device; on the CPU tensors of these tests they stand for an accelerator's reads
DEVICE_READS = ("cpu", "to", "item", "tolist", "__bool__", "__float__", "__int__", "__index__")


@pytest.fixture
def device_reads(monkeypatch):
    """Counts the calls of :data:`DEVICE_READS` (``.numpy()`` and ``__array__`` need a CPU
    tensor, so on an accelerator they follow one of these)."""
    reads = []

    def counted(name):
        method = getattr(torch.Tensor, name)

        def read(*args, **kwargs):
            targets = [*args[1:], *kwargs.values()]
            if name != "to" or any(str(t) == "cpu" for t in targets):
                reads.append(name)
            return method(*args, **kwargs)

        return read

    for name in DEVICE_READS:
        monkeypatch.setattr(torch.Tensor, name, counted(name))
    return reads


@pytest.fixture
def factors(monkeypatch):
    """The device route's incomplete Cholesky factors, as they are made."""
    made = []
    original = device_route.incomplete_cholesky

    def kept(*args):
        made.append(original(*args))
        return made[-1]

    monkeypatch.setattr(device_route, "incomplete_cholesky", kept)
    return made


@pytest.mark.parametrize(("kind", "method"), [("continuous", "lowrank"), ("mixed", "lowrank"),
                                              ("mixed", "exact")])  # fmt: skip
@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
def test_a_score_reads_the_device_once_and_once_per_block_of_pivots(
    kind, method, notion, device_reads, device_calls, factors
):
    pred, a, y = data(kind, 300, 15)
    tensors = [torch.tensor(v) for v in (pred, a, y)]
    score = faircocco_score(tensors[0], tensors[1], y_true=tensors[2], notion=notion, method=method)
    # the route's one copy of its small results, and each factor's stopping test at the end of
    # every block of pivots it took; the exact route's pivots are LAPACK's, on a host copy of
    # each variable's values, and it groups the rows by the strata of the conditioning variable
    # (two more copies of it)
    blocks = sum(int(pivots.shape[0]) // PIVOT_BLOCK for pivots, _ in factors)
    copies = 0 if method == "lowrank" else 2 if notion == "dp" else 5
    assert sorted(device_reads) == ["__bool__"] * blocks + ["cpu"] + ["to"] * copies
    assert (blocks > 0) == (method == "lowrank")
    assert isinstance(score, torch.Tensor) and device_calls == [True]


class _Operators(TorchDispatchMode):
    """Counts the operators dispatched, views aside (about one kernel launch each)."""

    count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count += not func.is_view
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_reads_and_operators_do_not_grow_with_the_rows(notion, device_reads):
    counted = []
    for n in (2_000, 20_000):
        pred, a, y = data("mixed", n, 18)
        tensors = [torch.tensor(v) for v in (pred, a, y)]
        device_reads.clear()
        with _Operators() as operators:
            faircocco_score(tensors[0], tensors[1], y_true=tensors[2], notion=notion)
        counted.append((len(device_reads), operators.count))
    assert counted[0] == counted[1]


@pytest.mark.parametrize(
    ("argument", "column", "method"),
    [
        ("y_pred", "y_pred", "lowrank"),
        ("sensitive_features", "sensitive_features[2]", "lowrank"),
        ("y_true", "y_true", "lowrank"),
        ("sensitive_features", "sensitive_features[0]", "exact"),
    ],
)
def test_nan_is_refused_by_column_on_the_device_route(argument, column, method):
    pred, a, y = data("mixed", 600, 16)
    values = {"y_pred": pred, "sensitive_features": a, "y_true": y}
    bad = values[argument].copy()
    if bad.ndim == 2:
        bad[7, int(column[-2])] = np.nan
    else:
        bad[7] = np.inf
    values[argument] = bad
    tensors = {name: torch.tensor(v) for name, v in values.items()}
    with pytest.raises(ValueError, match=rf"{argument} column '{re.escape(column)}' contains NaN"):
        faircocco_score(
            tensors["y_pred"], tensors["sensitive_features"], y_true=tensors["y_true"],
            notion="eo", method=method,
        )  # fmt: skip


def test_nan_beside_nominal_attributes_is_refused_by_the_host_route(device_calls):
    pred, a, y = data("binary", 400, 17)
    pred[3] = np.nan
    with pytest.raises(ValueError, match="y_pred column 'y_pred' contains NaN"):
        faircocco_score(torch.tensor(pred), np.where(a > 0, "f", "m"), y_true=torch.tensor(y))
    assert device_calls == [False]


def test_constant_predictions_score_zero_on_the_device_route():
    _, a, y = data("mixed", 500, 18)
    got = faircocco_score(torch.full((500,), 0.3), torch.tensor(a), y_true=torch.tensor(y))
    assert got.item() == 0.0


def test_features_wider_than_the_rows_leave_auto_to_the_host_routes_exact_estimator(device_calls):
    rng = np.random.default_rng(19)
    # 216 level combinations of three numeric columns, times the pivots of a continuous one
    a = np.column_stack([rng.integers(0, 6, (600, 3)), rng.normal(size=600)]).astype(np.float64)
    pred = a.sum(axis=1) + rng.normal(size=600)
    got = faircocco_score(torch.tensor(pred), torch.tensor(a))
    # as the host route of tensors: torch's N × N solves round otherwise
    assert got.item() == pytest.approx(faircocco_score(pred, a, method="exact"), rel=5e-12)
    assert device_calls == [False]


def test_features_wider_than_the_limit_are_refused_by_the_host_route(device_calls):
    rng = np.random.default_rng(20)
    # beyond 2,048 rows: up to there, the host pivots the joint kernel, as wide as the rows
    a = np.column_stack([rng.integers(0, 6, (3000, 3)), rng.normal(size=(3000, 2))])
    pred = a.sum(axis=1) + rng.normal(size=3000)
    with pytest.raises(ValueError, match=r"features of sensitive_features .* more than the 4,096"):
        faircocco_score(torch.tensor(pred), torch.tensor(a), method="lowrank")
    assert device_calls == [False]


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_the_device_route_scores_the_laplacian_kernel_as_the_host(notion, device_calls):
    """Its bandwidth (the median city-block distance), pivots and factors on the device."""
    pred, a, y = data("continuous", 300, seed=7)
    host = faircocco_score(pred, a, y_true=y, notion=notion, kernel="laplacian", rank=60)
    device = faircocco_score(
        torch.tensor(pred),
        torch.tensor(a),
        y_true=torch.tensor(y),
        notion=notion,
        kernel="laplacian",
        rank=60,
    )
    assert device_calls == [True]
    assert math.isclose(float(device), host, rel_tol=1e-13), (float(device), host)
