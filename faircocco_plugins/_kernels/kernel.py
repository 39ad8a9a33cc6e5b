"""Kernels: the :class:`Kernel` protocol, median-heuristic bandwidths, the Gaussian and delta
kernels, and kernel inputs.

:class:`Kernel` is what the estimators need of a kernel on scaled inputs; each kernel is a record
of it, registered by name in :mod:`.registry`, which every other module asks for the kernel an
option names. :data:`GAUSSIAN` is the default.

A Gaussian kernel ``exp(-||x - x'||² / (2σ²))`` equals ``exp(-||z - z'||² / 2)`` on the scaled
values ``z = x / σ``, and a product of Gaussians with per-column bandwidths is one Gaussian on the
column-wise scaled vector; so is a product of any kernel that factors over columns. So every
variable reduces to :class:`KernelInput`: scaled numeric columns ``z`` under one unit-bandwidth
kernel, times a delta kernel on each nominal column. The extended variable ``(A, Y)`` of the
conditional measure is then the concatenation of both inputs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, ClassVar

import array_api_compat
import numpy as np

from .._inputs.variables import Variable
from .._linalg.backend import (
    as_like,
    detached,
    namespace,
    ones,
    pairwise_distances,
    take_rows,
    to_host,
)

#: Rows sampled for the median heuristic.
BANDWIDTH_SAMPLE = 1000


@dataclass(frozen=True)
class KernelInput:
    """A variable ready for kernel evaluation.

    ``z`` is an ``(n, p)`` array of scaled numeric columns (``None`` if ``p == 0``) under the
    unit-bandwidth ``kernel``; ``codes`` an ``(n, q)`` int64 host array of nominal columns under
    delta kernels (``None`` if ``q == 0``).
    """

    z: Any
    codes: np.ndarray | None
    levels: tuple[np.ndarray, ...] = ()
    kernel: Kernel = field(kw_only=True)

    @property
    def n(self) -> int:
        return int(self.z.shape[0]) if self.z is not None else int(self.codes.shape[0])  # type: ignore[union-attr]

    def on_host(self) -> KernelInput:
        """The same input with a host (numpy) ``z``, detached from any autograd graph."""
        return self if self.z is None else replace(self, z=to_host(self.z))

    def take(self, rows: np.ndarray) -> KernelInput:
        """The input of ``rows``, in that order."""
        z = None if self.z is None else take_rows(self.z, rows)
        codes = None if self.codes is None else self.codes.take(rows, axis=0)
        return replace(self, z=z, codes=codes)


def concat_inputs(*inputs: KernelInput) -> KernelInput:
    """The product kernel of several inputs (under one kernel), as one input."""
    kernel = inputs[0].kernel
    assert all(k.kernel is kernel for k in inputs), "inputs under different kernels"
    zs = [k.z for k in inputs if k.z is not None]
    codes = [k.codes for k in inputs if k.codes is not None]
    levels = tuple(level for k in inputs for level in k.levels)
    z = None
    if zs:
        xp = namespace(*zs)
        z = zs[0] if len(zs) == 1 else xp.concat(zs, axis=1)
    codes_block = np.concatenate(codes, axis=1) if codes else None
    return KernelInput(z, codes_block, levels, kernel=kernel)


def median_distance(sample: Any, norm: int = 2) -> Any:
    """Median pairwise distance of the rows of ``sample`` (detached), in the ℓp norm with
    ``p = norm`` (Euclidean by default; 1 for the city-block distance): a float for a numpy
    sample, else a 0-d array on the sample's device.

    When the median is 0 (most binary columns: more than half the pairs are equal) the median of
    the non-zero distances is used, which for a binary column is the gap between its two values.
    A constant sample has no non-zero distance; it gets bandwidth 1, and since its kernel is
    constant, its centred Gram matrix is 0 whatever the bandwidth.

    Values of any magnitude are taken in binary units (:func:`in_binary_units`), where squared
    distances neither overflow nor underflow. A numpy sample with few distinct rows (binary and
    categorical codes, labels) is summarised by its distinct rows and counts, which gives the
    same median in O(n) instead of O(n²), and one column with many distinct values takes the
    median from a band of its sorted differences. Other arrays sort the distances of all pairs
    (at most :data:`BANDWIDTH_SAMPLE` rows, so half a million) on their device and read the same
    order statistics, without a host round trip.
    """
    if not isinstance(sample, np.ndarray):
        xp = namespace(sample)
        median = in_binary_units(lambda scaled: _sorted_median(scaled, norm), detached(sample))
        return xp.where(median > 0, median, xp.ones_like(median))
    exponent = float(binary_exponent(sample))
    if abs(exponent) <= _SAFE_EXPONENT:
        median = _median_distance(sample, norm)
    else:
        median = float(in_binary_units(lambda scaled: _median_distance(scaled, norm), sample))
    return median if median > 0 else 1.0


#: Up to this binary exponent of the largest magnitude, squared distances above rounding
#: neither overflow nor underflow: :func:`median_distance` takes the values as they are,
#: without the copies of binary units.
_SAFE_EXPONENT = 256


def _sorted_median(sample: Any, norm: int) -> Any:
    """:func:`median_distance` of a device's sample, but 0 for a constant sample: the order
    statistics of its sorted distances."""
    xp = namespace(sample)
    distances = xp.sort(pairwise_distances(sample, norm), stable=False)
    zeros = xp.count_nonzero(distances == 0)
    median = _middle(distances, xp.zeros_like(zeros))
    # the non-zero distances are the sorted tail, after the zeros
    nonzero = _middle(distances, zeros)
    total = distances.shape[0]
    return xp.where(median > 0, median, xp.where(zeros < total, nonzero, xp.zeros_like(median)))


def _middle(ordered: Any, start: Any) -> Any:
    """The median of ``ordered[start:]`` (the mean of its two middle entries), ``start`` a 0-d
    device count; clipped into range when the tail is empty (the caller then discards it)."""
    xp = namespace(ordered)
    total = ordered.shape[0]
    count = total - start
    middle = xp.stack([start + (count - 1) // 2, start + count // 2])
    pair = xp.take(ordered, xp.clip(middle, 0, total - 1))
    return (pair[0] + pair[1]) / 2


def _median_distance(sample: np.ndarray, norm: int) -> float:
    """:func:`median_distance` of a numpy sample, but 0 for a constant sample."""
    column = np.sort(sample[:, 0]) if sample.shape[1] == 1 else None
    few = _few_distinct_rows(sample) if column is None else _few_distinct_values(column)
    if few is not None:
        distinct, counts = few
        values = pairwise_distances(distinct, norm)
        pairs = np.outer(counts, counts)[np.triu_indices(distinct.shape[0], k=1)].astype(float)
        ties = float(np.sum(counts * (counts - 1) / 2))
        median = _weighted_median(np.concatenate([[0.0], values]), np.concatenate([[ties], pairs]))
        if median > 0:
            return median
        nonzero = values > 0
        return _weighted_median(values[nonzero], pairs[nonzero]) if nonzero.any() else 0.0
    banded = None if column is None else _median_of_differences(column)
    if banded is not None and banded > 0:
        return banded
    distances = pairwise_distances(sample, norm)
    median = _median(distances)
    if median > 0:
        return median
    nonzero = distances[distances > 0]
    return _median(nonzero) if nonzero.size else 0.0


def binary_exponent(values: Any, axis: int | None = None) -> Any:
    """The exponent ``e`` of the power of two at or above the largest magnitude of ``values``
    (along ``axis``), 0 where every value is 0; in the namespace and on the device of ``values``.

    ``values · 2⁻ᵉ`` lies within [-1, 1], and is exact wherever it is a normal number.
    """
    xp = namespace(values)
    largest = xp.max(xp.abs(values), axis=axis)
    positive = largest > 0
    return xp.where(positive, xp.ceil(xp.log2(xp.where(positive, largest, 1.0))), 0.0)


def times_power_of_two(values: Any, exponent: Any) -> Any:
    """``values · 2^exponent``, exact wherever the result is a normal number, and infinite
    beyond the largest float (which the callers refuse).

    Taken as two factors, each a float: ``2^exponent`` itself is not one for the exponents of
    the largest and smallest magnitudes (``2^1024``, and ``2^-1075`` and below).
    """
    half = exponent // 2
    with np.errstate(over="ignore"):
        return values * 2.0**half * 2.0 ** (exponent - half)


def in_binary_units(statistic: Callable[[Any], Any], sample: Any, axis: int | None = None) -> Any:
    """``statistic(sample)`` for a statistic that scales with its sample (a distance, a mean, a
    standard deviation), computed on ``sample`` scaled by powers of two into [-1, 1] (one for
    the whole sample, or one per column with ``axis=0``) and scaled back.

    Powers of two scale floats exactly, so the result is the same, to the bit, wherever the
    statistic of ``sample`` itself neither overflows nor underflows, and right where it would:
    squared distances of values of 1e160 overflowed, those of values of 1e-200 underflowed to
    0, and either made the bandwidth, and so the score, wrong.
    """
    exponent = binary_exponent(sample, axis)
    return times_power_of_two(statistic(times_power_of_two(sample, -exponent)), exponent)


#: Up to this many distinct rows, :func:`median_distance` works from the distinct rows.
FEW_DISTINCT_ROWS = 64


def _few_distinct_rows(sample: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Distinct rows and their counts, or None if there are more than ``FEW_DISTINCT_ROWS``."""
    distinct, counts = np.unique(sample, axis=0, return_counts=True)
    return (distinct, counts) if distinct.shape[0] <= FEW_DISTINCT_ROWS else None


def _few_distinct_values(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_few_distinct_rows` of one sorted column, by a scan instead of a sort."""
    changes = np.flatnonzero(ordered[1:] != ordered[:-1])
    if changes.size >= FEW_DISTINCT_ROWS:
        return None
    starts = np.concatenate([[0], changes + 1])
    return ordered[starts, None], np.diff(np.append(starts, ordered.size))


_EPS = float(np.finfo(np.float64).eps)

#: Pairs sampled by :func:`_median_of_differences` to estimate the median and its neighbourhood.
_PAIR_SAMPLE = 256


def _median_of_differences(x: np.ndarray) -> float | None:
    """``np.median`` of ``x[j] − x[i]`` over ``i < j`` for sorted ``x``; None if unbracketed.

    Each row of the differences of sorted values is sorted, so the number of differences below
    any ``t`` is one search of ``x + t``. A seeded sample of pairs estimates the median and how
    many differences lie near it; one count corrects the estimate, and only the differences in
    a narrow bracket around it (a few hundred) are formed, widened until it holds the median.
    The result is exact: the band holds every pair whose difference the search placed in the
    bracket, and the two middle order statistics are taken from it only when they are clear of
    the bracket's edges, which rounding can blur, or clear of the nearest differences outside.
    """
    n = x.size
    total = n * (n - 1) // 2
    preceding = n * (n + 1) // 2  # sum over rows of the i + 1 searches that land at or before i
    first_of_pair, second_of_pair = _pair_sample(n)
    size = first_of_pair.size
    quantiles = [size // 2 - size // 8, size // 2, size // 2 + size // 8]
    # (array methods rather than numpy's functions: this runs on every training batch)
    differences = x.take(second_of_pair) - x.take(first_of_pair)
    differences.partition(quantiles)
    sample = differences[quantiles].tolist()
    if not 0.0 < sample[0] < sample[2]:
        return None  # mostly ties
    density = (total / 4) / (sample[2] - sample[0])  # differences per unit near the median
    below_estimate = int(x.searchsorted(x + sample[1]).sum()) - preceding
    error = (total - 1) / 2 - below_estimate
    centre = sample[1] + error / density
    spread = (0.25 * abs(error) + 0.005 * total) / density
    # x[j] − x[i] and the search for x[i] + t round differently by a few ulps of the values
    margin = 16.0 * _EPS * max(abs(float(x[0])), abs(float(x[-1])))
    rows = np.arange(n)
    for _ in range(4):
        low, high = centre - spread, centre + spread
        starts = x.searchsorted(x + low, side="left")
        stops = x.searchsorted(x + high, side="right")
        if low <= margin:  # a search may then land at or before its own row
            starts = np.maximum(starts, rows + 1)
            stops = np.maximum(stops, starts)
        below = int(starts.sum()) - preceding
        first, second = (total - 1) // 2 - below, total // 2 - below
        lengths = stops - starts
        ends = lengths.cumsum()
        if first >= 0 and second < int(ends[-1]):
            break
        spread *= 4.0
    else:
        return None
    columns = np.arange(int(ends[-1])) + (starts - ends + lengths).repeat(lengths)
    band = x.take(columns) - x.take(rows.repeat(lengths))
    band.partition([first, second])
    middle_low, middle_high = float(band[first]), float(band[second])
    if low + margin < middle_low and middle_high < high - margin:
        return (middle_low + middle_high) / 2
    left = starts > rows + 1
    right = stops < n
    if (left.any() and np.max(x[starts[left] - 1] - x[left]) > middle_low) or (
        right.any() and np.min(x[stops[right]] - x[right]) < middle_high
    ):
        return None
    return (middle_low + middle_high) / 2


@cache
def _pair_sample(n: int) -> tuple[np.ndarray, np.ndarray]:
    """A seeded sample of index pairs ``i < j`` of ``n`` points, uniform over pairs."""
    pairs = np.random.default_rng(0).integers(0, n, size=(_PAIR_SAMPLE, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    return np.min(pairs, axis=1), np.max(pairs, axis=1)


def _median(values: np.ndarray) -> float:
    """``np.median`` of a non-empty array, by one partition (``np.median`` takes 3x longer)."""
    middle = (values.size - 1) // 2
    part = np.partition(values, middle)
    if values.size % 2:
        return float(part[middle])
    return float((part[middle] + np.min(part[middle + 1 :])) / 2)


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The median of ``values`` repeated ``weights`` times (integer weights, as ``np.median``)."""
    order = np.argsort(values, kind="stable")
    values, cumulative = values[order], np.cumsum(weights[order])
    total = cumulative[-1]
    if total == 0:
        return 0.0
    # 0-based order statistics of the repeated sample at positions ⌊(total−1)/2⌋ and ⌈(total−1)/2⌉
    low = values[np.searchsorted(cumulative, np.floor((total - 1) / 2), side="right")]
    high = values[np.searchsorted(cumulative, np.ceil((total - 1) / 2), side="right")]
    return float((low + high) / 2)


def bandwidth_rows(n: int, random_state: int | None) -> np.ndarray:
    """Rows used by the median heuristic: all when ``n <= 1000``, else a seeded sample.

    ``random_state=None`` means seed 0, so that a score is a deterministic function of its data.
    """
    if n <= BANDWIDTH_SAMPLE:
        return np.arange(n)
    rng = np.random.default_rng(0 if random_state is None else random_state)
    return np.sort(rng.choice(n, size=BANDWIDTH_SAMPLE, replace=False))


@dataclass(frozen=True)
class Scaling:
    """Bandwidths of a variable's numeric columns, fitted once and applied to every chunk.

    ``widths`` holds one bandwidth per numeric column (all equal when shared); ``centres`` the
    column means of the sample, subtracted first because every registered kernel is translation
    invariant and distances of large-offset values (timestamps) lose digits otherwise;
    ``onehot_nominal`` moves nominal columns into the numeric block as one-hot vectors, for the
    paper's single joint kernel; ``kernel`` is the kernel of the scaled columns.
    """

    widths: tuple[float, ...]
    centres: tuple[float, ...]
    onehot_nominal: bool
    kernel: Kernel

    @classmethod
    def fit(
        cls,
        variable: Variable,
        *,
        shared: bool,
        standardised: bool,
        onehot_nominal: bool,
        bandwidth: str | float,
        rows: np.ndarray,
        kernel: Kernel,
    ) -> Scaling:
        """``kernel``'s bandwidths on the rows ``rows`` (or the fixed ``bandwidth``), by
        :func:`sample_widths` on a host copy of them."""
        numeric = _numeric_block(variable, onehot_nominal)
        if numeric is None:
            return cls((), (), onehot_nominal, kernel)
        # all rows (the common case of a training batch) need no copy
        sample = to_host(numeric if rows.size == numeric.shape[0] else take_rows(numeric, rows))
        centres, widths = sample_widths(
            sample,
            0 if variable.numeric is None else int(variable.numeric.shape[1]),
            shared=shared,
            standardised=standardised,
            bandwidth=bandwidth,
            kernel=kernel,
        )
        if not np.all(np.isfinite(widths)):
            refuse_unscalable(variable, onehot_nominal, ~np.isfinite(widths))
        return cls(tuple(widths.tolist()), tuple(centres.tolist()), onehot_nominal, kernel)

    def widened(self, factor: float) -> Scaling:
        """The same scaling with every bandwidth multiplied by ``factor``."""
        return replace(self, widths=tuple(factor * w for w in self.widths))

    def apply(self, variable: Variable) -> KernelInput:
        """The kernel input of ``variable`` (a whole dataset or one chunk)."""
        numeric = _numeric_block(variable, self.onehot_nominal)
        codes, levels = variable.codes, variable.levels
        if self.onehot_nominal:
            codes, levels = None, ()
        if numeric is None:
            return KernelInput(None, codes, levels, kernel=self.kernel)
        widths, centres = as_like(self.widths, numeric), as_like(self.centres, numeric)
        with np.errstate(over="ignore", invalid="ignore"):  # refused below, by its column
            z = (numeric - centres) / widths
        xp = namespace(z)
        finite = xp.all(xp.isfinite(z), axis=0)
        if not bool(xp.all(finite)):
            refuse_unscalable(variable, self.onehot_nominal, to_host(finite) == 0)
        return KernelInput(z, codes, levels, kernel=self.kernel)


def sample_widths(
    sample: Any,
    own: int,
    *,
    shared: bool,
    standardised: bool,
    bandwidth: str | float,
    kernel: Kernel,
) -> tuple[Any, Any]:
    """The centres and bandwidths of the columns of a variable's row sample (detached), in the
    sample's namespace and on its device: ``kernel``'s bandwidths, or the fixed ``bandwidth``.

    ``shared`` gives all columns one bandwidth, the median distance of the whole vector, instead
    of one each. ``standardised`` gives one bandwidth too, of the vector with each of its first
    ``own`` columns (the variable's own numeric columns, not one-hot ones) divided by its
    standard deviation (:func:`column_spreads`), so that it does not depend on their units: each
    column's width is its spread times that median distance.
    """
    xp = namespace(sample)
    p = sample.shape[1]
    centres = column_centres(sample)
    ones = xp.ones(p, dtype=sample.dtype, device=array_api_compat.device(sample))
    if bandwidth != "median":
        return centres, float(bandwidth) * ones
    if standardised:
        spreads = column_spreads(sample, own)
        return centres, spreads * kernel.bandwidth(sample / spreads)
    if shared:
        return centres, kernel.bandwidth(sample) * ones
    return centres, xp.stack([kernel.bandwidth(sample[:, j : j + 1]) for j in range(p)])


def column_spreads(sample: Any, columns: int) -> Any:
    """The standard deviation of each of the first ``columns`` columns of ``sample`` (divided by
    the number of rows), and 1 for the other columns and for a constant one, in the namespace
    and on the device of ``sample``.

    The joint attribute kernel divides each numeric column by it before the one median
    distance of the whole vector, so that a column in millimetres instead of metres does not
    dominate the distance (with weight in kilograms, a score of 0.053 became 0.370).
    """
    xp = namespace(sample)
    n, p = sample.shape

    def spreads_of(values: Any) -> Any:
        centred = values - xp.sum(values, axis=0) / n
        return xp.sqrt(xp.sum(centred * centred, axis=0) / n)

    spreads = in_binary_units(spreads_of, sample, axis=0)
    index = xp.arange(p, device=array_api_compat.device(sample))
    varies = xp.max(sample, axis=0) > xp.min(sample, axis=0)
    return xp.where((index < columns) & varies, spreads, xp.ones_like(spreads))


def column_centres(sample: Any) -> Any:
    """The mean of each column of ``sample``, in its namespace and on its device (in binary
    units: a sum of values near the largest float overflows)."""
    xp = namespace(sample)
    return in_binary_units(lambda values: xp.sum(values, axis=0) / sample.shape[0], sample, 0)


def refuse_unscalable(variable: Variable, onehot_nominal: bool, columns: np.ndarray) -> None:
    """Raise the ValueError of a variable whose numeric ``columns`` (a mask of the columns of
    :func:`_numeric_block`) have a bandwidth, or values scaled by it, beyond float64: naming
    the one of its own numeric columns with the largest magnitude among them (a one-hot column
    of the joint kernel shares the width of those), and its range."""
    numeric = to_host(variable.numeric)
    own = np.flatnonzero(columns[: numeric.shape[1]])
    candidates = own if own.size else np.arange(numeric.shape[1])
    column = int(candidates[np.argmax(np.max(np.abs(numeric[:, candidates]), axis=0))])
    values = numeric[:, column]
    raise ValueError(
        f"{variable.argument} column {variable.numeric_names[column]!r} holds values from "
        f"{values.min():.3g} to {values.max():.3g}, which divided by their kernel bandwidth "
        f"leave the float64 range (magnitudes up to {np.finfo(np.float64).max:.3g}): its values "
        "span too many orders of magnitude, or lie too near that limit. Rescale the column, "
        "which does not change the score, or transform it (e.g. take a logarithm)."
    )


def _numeric_block(variable: Variable, onehot_nominal: bool) -> Any:
    numeric, codes = variable.numeric, variable.codes
    if not onehot_nominal or codes is None:
        return numeric
    onehot = np.concatenate(
        [np.eye(len(levels))[codes[:, j]] for j, levels in enumerate(variable.levels)], axis=1
    )
    if numeric is None:
        return onehot
    xp = namespace(numeric)
    device = array_api_compat.device(numeric)
    return xp.concat([numeric, xp.asarray(onehot, dtype=numeric.dtype, device=device)], axis=1)


def standardise(values: Any) -> tuple[Any, Any]:
    """Centre each column and divide by the root mean square; returns the values and that scale.

    Under the median heuristic a Gaussian kernel, and so the statistic, does not change when its
    variable is shifted or rescaled. With the bandwidth detached, the gradient of raw predictions
    still has a spurious component that shrinks their spread (at a fixed bandwidth closer
    predictions look less dependent, but the next batch's bandwidth shrinks with them), which can
    drive training to constant predictions. Through standardised predictions that component is
    projected out. The floor keeps constant predictions finite.

    Parameters
    ----------
    values : array of shape (n, k)
        Predictions, in any array-API namespace (differentiable where the namespace is).

    Returns
    -------
    standardised : array of shape (n, k)
        Column-centred values with root mean square 1.
    scale : 0-d array
        The root mean square of the centred values.

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_plugins import standardise
    >>> standard, scale = standardise(np.array([[1.0], [3.0]]))
    >>> standard.ravel().tolist(), float(scale)
    ([-1.0, 1.0], 1.0)
    """
    xp = namespace(values)
    n, k = values.shape
    # sums, not means: numpy's mean costs several times a sum on these small arrays
    centred = values - xp.sum(values, axis=0, keepdims=True) / n
    scale = xp.sqrt(xp.sum(centred * centred) / (n * k) + xp.finfo(values.dtype).eps ** 2)
    return centred / scale, scale


class Kernel(ABC):
    """The kernel protocol: what the estimators need of a kernel on scaled inputs.

    A kernel is a record of this protocol, registered by name (:mod:`.registry`), which the
    ``kernel`` option of every entry point names. It is a translation-invariant kernel that
    factors over columns (a product of per-column kernels with their own bandwidths is then one
    kernel on the column-wise scaled vector, see :class:`KernelInput`), of unit bandwidth on the
    inputs that :class:`Scaling` divides by its :meth:`bandwidth` of a sample.

    The estimators evaluate it on the scaled rows: whole Gram blocks (:meth:`gram`), the
    diagonal that incomplete Cholesky starts its residuals from and measures its tolerance
    against (:meth:`diagonal`), and the column against one pivot row that it forms in place at
    every pivot (:meth:`column_into`, by default from :meth:`gram`). Where measured faster than
    autograd, a kernel also gives the gradient of a function of its Gram matrix
    (:meth:`gram_gradient`), which the host route of a training batch's statistic needs; without
    it, such batches are differentiated by autograd.
    """

    #: The name the ``kernel`` option takes.
    name: ClassVar[str]
    #: One line for the documentation's table of options: the kernel and when to use it.
    description: ClassVar[str]
    #: The ``p`` of the ℓp distance of the median heuristic (:func:`median_distance`), the
    #: distance the kernel decays with, on the host and on a device alike.
    norm: ClassVar[int]
    #: The default cap on the pivots of one continuous low-rank factor (``rank=None``): enough
    #: for the factor to reach its tolerance on a column, where the kernel's spectrum decays
    #: fast enough for a low rank to hold it.
    default_rank: ClassVar[int]

    def bandwidth(self, sample: Any) -> Any:
        """The scale of the rows of an ``(m, p)`` sample, by which their variable is divided:
        the median heuristic, the median ℓp distance between its rows (``p`` is :attr:`norm`;
        :func:`median_distance`)."""
        return median_distance(sample, self.norm)

    @abstractmethod
    def gram(self, z1: Any, z2: Any) -> Any:
        """The ``(n1, n2)`` kernel matrix between the rows of ``z1`` and ``z2`` (one namespace)."""

    @abstractmethod
    def diagonal(self, z: Any) -> Any:
        """The kernel of each row of ``z`` (``(..., n, p)``) with itself: a new ``(..., n)``
        array in the namespace, device and dtype of ``z``."""

    @abstractmethod
    def frequencies(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        """Frequencies ``ω`` drawn from the kernel's spectral density (Bochner's theorem), so
        that ``√(2/D) cos(ω·z + b)`` with ``b`` uniform on [0, 2π) are random Fourier features
        of the unit-bandwidth kernel (``shape`` is ``(p, D)``)."""

    def column_into(
        self,
        columns: Sequence[np.ndarray],
        point: Sequence[Any],
        out: np.ndarray,
        scratch: np.ndarray,
    ) -> np.ndarray:
        """The kernel between the rows of host columns and one point, written into ``out``.

        ``columns`` holds the ``p ≥ 1`` columns of the rows, each contiguous, of ``out``'s shape
        (``(n,)``, or ``(B, n)`` for a stack of ``B`` inputs); ``point`` its ``p`` values (floats,
        or ``(B, 1)`` arrays, one value per member of a stack); ``scratch`` a buffer of
        ``out``'s shape. Returns ``out``.
        """
        rows = np.stack(columns, axis=-1)
        if out.ndim == 1:
            out[:] = self.gram(rows, np.asarray(point, dtype=rows.dtype)[None, :])[:, 0]
            return out
        points = np.stack([np.asarray(value).reshape(-1) for value in point], axis=-1)
        for b in range(out.shape[0]):
            out[b] = self.gram(rows[b], points[b : b + 1])[:, 0]
        return out

    #: ``gram_gradient(weights, a, b)``: the gradients in host ``a`` and ``b`` of a function of
    #: ``K = gram(a, b)`` whose gradient in ``K`` is ``dK``, given ``weights = dK ∘ K``; None
    #: where autograd is as fast.
    gram_gradient: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[Any, Any]] | None = None


#: Up to this many columns, :meth:`Gaussian.gram` sums squared differences column by column.
DIRECT_COLUMNS = 8


class UnitDiagonal:
    """The diagonal of a kernel of the distance between rows, ``k(0) = 1``."""

    def diagonal(self, z: Any) -> Any:
        """Ones: every row is at distance 0 from itself."""
        xp = namespace(z)
        return xp.ones(z.shape[:-1], dtype=z.dtype, device=array_api_compat.device(z))


class Gaussian(UnitDiagonal, Kernel):
    """The unit-bandwidth Gaussian kernel ``exp(-‖z − z′‖² / 2)`` on inputs scaled by the median
    heuristic (:func:`median_distance`), the paper's kernel."""

    name = "gaussian"
    description = "exp(−‖x − x′‖² / (2σ²)), the paper's: smooth, and its factors need few pivots."
    norm = 2
    default_rank = 100

    def gram(self, z1: Any, z2: Any) -> Any:
        """The kernel matrix between the rows of ``z1`` and ``z2``.

        Few columns (the common case) take the direct differences, which are exact. Wider
        inputs use ``‖a‖² + ‖b‖² − 2 aᵀb``, one matrix product; its rounding error grows with
        ``‖z‖²``, which is small for wide inputs (one-hot blocks, standardised columns). For one
        column of predictions scaled by a tiny median distance (probabilities of 0 and 1 with
        differences of 1e-20 inside each group), that error reached 10⁶, and the landmarks'
        Gram matrix was not positive definite.
        """
        xp = namespace(z1, z2)
        direct = z1.shape[1] <= DIRECT_COLUMNS
        if direct and isinstance(z1, np.ndarray) and isinstance(z2, np.ndarray):
            # the same operations in place: one array of the result's size, not one per
            # operation (30% less time for a 32,768 × 100 kernel)
            sq = np.subtract.outer(z1[:, 0], z2[:, 0])
            np.square(sq, out=sq)
            scratch = np.empty_like(sq) if z1.shape[1] > 1 else sq
            for j in range(1, z1.shape[1]):
                np.subtract.outer(z1[:, j], z2[:, j], out=scratch)
                np.square(scratch, out=scratch)
                sq += scratch
            sq *= -0.5
            return np.exp(sq, out=sq)
        if direct:
            sq = (z1[:, 0:1] - z2[:, 0:1].T) ** 2
            for j in range(1, z1.shape[1]):
                sq = sq + (z1[:, j : j + 1] - z2[:, j : j + 1].T) ** 2
            return xp.exp(-0.5 * sq)
        sq = xp.sum(z1 * z1, axis=1)[:, None] + xp.sum(z2 * z2, axis=1)[None, :] - 2.0 * (z1 @ z2.T)
        return xp.exp(-0.5 * xp.clip(sq, min=0.0))

    def frequencies(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        """Standard normal: the Gaussian's spectral density is Gaussian."""
        return rng.normal(size=shape)

    def column_into(
        self,
        columns: Sequence[np.ndarray],
        point: Sequence[Any],
        out: np.ndarray,
        scratch: np.ndarray,
    ) -> np.ndarray:
        """The kernel between the rows of ``columns`` and ``point``, written into ``out``.

        Distances are taken as differences, not from squared norms, whose cancellation fails
        for values spanning many magnitudes; they are summed column by column, with no
        ``n × p`` temporary.
        """
        for j, (values, value) in enumerate(zip(columns, point, strict=True)):
            target = out if j == 0 else scratch
            np.subtract(values, value, out=target)
            np.square(target, out=target)
            if j:
                out += scratch
        out *= -0.5
        return np.exp(out, out=out)

    @staticmethod
    def gram_gradient(
        weights: np.ndarray, a: np.ndarray, b: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The gradients in ``a`` and ``b`` of a function of ``K = gram(a, b)`` whose gradient
        in ``K`` is ``dK``, given ``weights = dK ∘ K`` (``∂K_il/∂a_i = −(a_i − b_l) K_il``): a
        few matrix products, which make the host route's closed form faster than autograd
        (:mod:`.._estimators.batch` has the measurements)."""
        d_a = weights @ b - (weights @ ones(weights.shape[1]))[:, None] * a
        d_b = weights.T @ a - (ones(weights.shape[0]) @ weights)[:, None] * b
        return d_a, d_b


#: The paper's kernel, and the default of the ``kernel`` option.
GAUSSIAN = Gaussian()


def delta(codes1: np.ndarray, codes2: np.ndarray) -> np.ndarray:
    """Product of delta kernels over nominal columns, as a float host matrix."""
    same = np.ones((codes1.shape[0], codes2.shape[0]), dtype=bool)
    for j in range(codes1.shape[1]):
        same &= codes1[:, j][:, None] == codes2[:, j][None, :]
    return same.astype(np.float64)


def kernel_matrix(k: KernelInput, like: Any) -> Any:
    """The full ``n × n`` kernel matrix of an input, in the namespace of ``like``."""
    xp = namespace(like)
    device = array_api_compat.device(like)
    matrix = None if k.z is None else k.kernel.gram(k.z, k.z)
    if k.codes is not None:
        mask = xp.asarray(delta(k.codes, k.codes), dtype=like.dtype, device=device)
        matrix = mask if matrix is None else matrix * mask
    assert matrix is not None
    return matrix
