"""What both estimators produce, and the chance correction they share.

Both the exact and the low-rank estimator reduce a notion to three operators: ``R_u`` (the
variable whose dependence is measured: predictions for DP/EO, outcomes for CAL), ``R_e`` (the
attributes, extended by the conditioning variable for EO/CAL) and, for EO/CAL, ``P = I - R_c``
with ``R_c`` the conditioning variable. With ``M = P R_u P``:

* statistic ``I = Tr[M R_e]`` (the paper's trace expression, appendix A.1);
* score ``I / (||R_u P||_F ||R_e P||_F)`` (the Cauchy-Schwarz bound of appendix A.2);
* null expectation of ``I`` when the rows of the attribute variable are permuted within strata of
  the conditioning variable (one stratum for DP), from per-stratum block sums of ``M`` and ``R_e``.

Two degenerate cases have defined values: a factor of the denominator that is 0 (a constant
variable) makes the score 0, and a chance level that permutations cannot give (too few rows, or a
null mean of 1) makes the null mean and the adjusted score NaN, with a warning.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .._inputs.variables import Variable
from .._linalg.backend import as_numpy_scalar, namespace
from .approximate_null import NullFactors
from .spectral_null import ResidualFeatures


class Role(StrEnum):
    """The statistic's three variables, which key its features, Gram blocks and solvers.

    Members are strings (``"u"``, ``"e"``, ``"c"``), so a mapping keyed by either finds both.
    """

    #: ``u``: the variable whose dependence is measured (predictions; outcomes under CAL)
    MEASURED = "u"
    #: ``e``: the attributes, extended by the conditioning variable under EO and CAL
    ATTRIBUTES = "e"
    #: ``c``: the conditioning variable (outcomes under EO, predictions under CAL)
    GIVEN = "c"


@dataclass(frozen=True)
class Ridge:
    """The regularisation ``ε`` of each operator ``R = G (G + εN I)⁻¹``.

    ``eps`` regularises the operators of the measured variable (``u``) and of the attributes
    (``e``); ``conditioning`` that of the conditioning variable (``c``, for EO and CAL). The
    conditioning operator regresses the other two on the conditioning variable, so its ridge
    decides how much of that variable's effect is left in the statistic: a large one leaves a
    dependence that runs through the outcome (and penalises predicting it), while the other two
    need a ridge large enough to smooth a small batch.
    """

    eps: float
    conditioning: float

    def of(self, role: str) -> float:
        """``ε`` of role ``"u"``, ``"e"`` or ``"c"``."""
        return self.conditioning if role == Role.GIVEN else self.eps

    def shift(self, role: str, n: int) -> float:
        """``ε N`` of role ``"u"``, ``"e"`` or ``"c"`` over ``n`` rows."""
        return self.of(role) * n

    def norm_bound(self, n: int) -> float:
        """An upper bound of ``||R_u P||_F`` and ``||R_e P||_F`` over ``n`` rows: the scale of
        the score's denominator.

        The eigenvalues ``λ / (λ + εN)`` of ``R`` have ``λ ≤ Tr G ≤ N`` (a kernel with unit
        diagonal), so ``||R||_F ≤ min(√(N − 1), ||G||_F / (εN)) ≤ min(√(N − 1), 1 / ε)``, and
        ``P`` has eigenvalues in [0, 1]. A variable with the median bandwidth has a largest
        ``λ`` of order ``N``, so its norm is of the order of this bound at every ``ε``.
        """
        return min(math.sqrt(n - 1), 1.0 / self.eps)


@dataclass(frozen=True)
class StrataBlocks:
    """Per-stratum summaries of an ``n × n`` matrix ``B``.

    ``blocks[s, t]`` is the sum of ``B`` over rows in stratum ``s`` and columns in stratum ``t``;
    ``diagonal[s]`` the sum of the diagonal of ``B`` over stratum ``s``.
    """

    blocks: np.ndarray
    diagonal: np.ndarray


@dataclass
class Terms:
    """The estimated quantities of one (notion, attribute set) pair.

    ``statistic`` and the norms ``||R_u P||_F`` and ``||R_e P||_F`` of the score's denominator
    are 0-d arrays of the computation namespace (they carry gradients under torch);
    ``null_statistic`` is the expected statistic under the permutation null, a float. Both the
    norms and the null are computed on first use, by ``compute_norms`` and
    ``compute_null_statistic``: a training penalty needs neither. ``norm_bound``
    (:meth:`Ridge.norm_bound`) is the norms' scale, below which a norm is 0 up to rounding.
    """

    statistic: Any
    rank: int
    method: str
    n: int
    norm_bound: float
    compute_norms: Callable[[], tuple[Any, Any]] = field(repr=False)
    compute_null_statistic: Callable[[], float] = field(repr=False)

    @cached_property
    def null_statistic(self) -> float:
        """The expected statistic under the permutation null (NaN when unknown)."""
        return self.compute_null_statistic()

    @cached_property
    def denominator_norms(self) -> tuple[Any, Any]:
        """``(||R_u P||_F, ||R_e P||_F)``, the factors of the score's denominator."""
        return self.compute_norms()

    @property
    def norm_u(self) -> Any:
        return self.denominator_norms[0]

    @property
    def norm_e(self) -> Any:
        return self.denominator_norms[1]

    def score(self) -> Any:
        """The normalised statistic, defined as 0 when either variable is constant.

        Which of the two is chosen on the arrays' device, without a read that would wait for
        an accelerator; but with gradients, on the host: the norms' gradient is infinite at a
        constant variable, and masking it would give NaN, not 0.
        """
        statistic = self.statistic
        denominator = self.norm_u * self.norm_e
        if getattr(statistic, "requires_grad", False):
            if self._constant_on_host():
                return statistic * 0.0
            return statistic / denominator
        xp = namespace(statistic, denominator)
        cut_off = _TINY * self.norm_bound
        constant = (self.norm_u <= cut_off) | (self.norm_e <= cut_off)
        return xp.where(constant, statistic * 0.0, statistic / xp.where(constant, 1.0, denominator))

    def null_mean(self) -> float:
        """The null statistic over the score's denominator, in [0, 1]: 0 when either variable is
        constant, NaN when unknown or undefined (a null mean of 1 makes the adjusted score
        0/0)."""
        return self._null_mean

    @cached_property
    def _null_mean(self) -> float:
        if self._constant_on_host():
            return 0.0
        denominator = as_numpy_scalar(self.norm_u * self.norm_e)
        null = float(np.clip(self.null_statistic / denominator, 0.0, 1.0))
        if 1.0 - null > _UNDEFINED_CHANCE or np.isnan(null):
            return null
        _warn_null_mean_of_one(self.n)
        return float("nan")

    def _constant_on_host(self) -> bool:
        """Whether a factor of the denominator is 0 up to rounding (a constant variable)."""
        cut_off = _TINY * self.norm_bound
        return min(as_numpy_scalar(self.norm_u), as_numpy_scalar(self.norm_e)) <= cut_off

    def adjusted(self, score: Any) -> Any:
        """The chance-adjusted ``score`` (a 0-d array or tensor, which keeps its gradient).

        ``(score − null) / (1 − null)`` clipped to [0, 1]; NaN when the null mean is unknown or
        undefined (:meth:`null_mean`).
        """
        null = self.null_mean()
        return namespace(score).clip((score - null) / (1.0 - null), min=0.0, max=1.0)


@runtime_checkable
class Route(Protocol):
    """One route to the statistic of a notion: its :class:`Terms` and its permutation null.

    The low-rank estimator (:class:`._estimators.lowrank.LowRankFit`, which is also the exact
    one on complete features), the local permutation null of a continuous
    conditioning variable (:class:`._estimators.local_null.LocalPermutationFit`) and constant
    attributes (:class:`ConstantAttributesFit`) implement it; the public functions see only this.
    ``tests/core/test_routes.py`` checks every route against it and against each other.
    """

    #: the statistic, the score's denominator and the null mean
    terms: Terms

    @property
    def strata(self) -> np.ndarray:
        """Stratum of each row, within which permutations shuffle attribute rows."""
        ...

    def permuted_statistics(self, permutations: np.ndarray) -> np.ndarray:
        """The statistic under each row of ``permutations`` (``B × N``) of the attribute
        rows."""
        ...

    def null_factors(self) -> NullFactors:
        """The statistic as ``‖xᵀ e‖²_F`` with the attribute rows in ``e``, for the moments of
        its permutation null (:mod:`._estimators.approximate_null`)."""
        ...

    def residual_features(self) -> ResidualFeatures:
        """The statistic's two feature sets, each residualised on the conditioning variable,
        for its spectral null (:mod:`._estimators.spectral_null`)."""
        ...


#: Below this times :meth:`Ridge.norm_bound` a factor of the denominator is treated as 0: a
#: constant variable has centred Gram 0, so its operator is 0 up to rounding. Relative to the
#: bound, not absolute: every norm shrinks as ``1 / ε`` when ``ε`` grows, and an absolute 1e-12
#: on their product zeroed a real dependence from ``ε = 3e5`` at 300 rows.
_TINY = 1e-12

#: A null mean within this of 1 makes the chance level undefined: the adjusted score would be a
#: ratio of rounding errors (it gave 0 or 1 at random for 2 rows).
_UNDEFINED_CHANCE = 1e-9

#: Permutations within strata must move at least this many rows beyond one per stratum for a
#: chance level (:func:`permutable`).
_PERMUTABLE_ROWS = 2


def _warn_null_mean_of_one(n: int) -> None:
    warnings.warn(
        f"The chance level of the score is undefined at these {n} rows: every permutation of "
        "the attribute rows gives a perfectly dependent score (null_mean 1, so the adjusted "
        "score is 0/0), as when both variables tell every row apart; null_mean and adjusted "
        "are NaN. Score more rows, or variables with repeated values.",
        UserWarning,
        stacklevel=2,
    )


def permutable(counts: np.ndarray) -> bool:
    """Whether permutations within strata of ``counts`` rows give a chance level; warns if not.

    They act on the ``N − S`` dimensions of contrasts within the ``S`` strata (``N − 1`` for
    one stratum, as in the null of a centred matrix). With one dimension there is one pair of
    rows to swap, which only flips that contrast's sign: under DP at 2 rows every permutation
    gives the same operators, and under EO or CAL with exact conditioning the same statistic.
    """
    n, strata = int(np.sum(counts)), int(np.count_nonzero(counts))
    if n - strata >= _PERMUTABLE_ROWS:
        return True
    if strata == 1:
        where, fix = f"{n} rows", "at least 3 rows"
    else:
        where = (
            f"{n} rows within {strata} levels of the conditioning variable (y_true under EO, "
            "y_pred under CAL)"
        )
        fix = "at least 2 more rows than levels"
    warnings.warn(
        f"Too few rows for a chance level: permutations of {where} swap at most one pair of "
        f"rows, which leaves the score unchanged; null_mean and adjusted are NaN. Score {fix}.",
        UserWarning,
        stacklevel=2,
    )
    return False


def expected_permuted_trace(m: StrataBlocks, b: StrataBlocks, counts: np.ndarray) -> float:
    """``E[Tr(M Π B Πᵀ)]`` over uniform permutations ``Π`` that keep every row in its stratum.

    For rows ``i != j`` in strata ``s, t`` the permuted entry ``B[π(i), π(j)]`` has mean
    ``blocks[s, t] / (n_s n_t)`` when ``s != t`` and the mean off-diagonal entry of block ``s``
    when ``s == t``; a diagonal entry has the mean diagonal entry of its stratum.
    """
    counts = counts.astype(np.float64)
    m_off = m.blocks.copy()
    b_off = b.blocks.copy()
    np.fill_diagonal(m_off, 0.0)
    np.fill_diagonal(b_off, 0.0)
    across = float(np.sum(m_off * b_off / np.outer(counts, counts)))
    m_within = np.diag(m.blocks) - m.diagonal
    b_within = np.diag(b.blocks) - b.diagonal
    pairs = counts * (counts - 1.0)
    within = float(np.sum(np.where(pairs > 0, m_within * b_within / np.maximum(pairs, 1.0), 0.0)))
    diagonal = float(np.sum(m.diagonal * b.diagonal / counts))
    return across + within + diagonal


class ConstantAttributesFit:
    """Constant sensitive attributes: independent of everything, so every notion holds exactly.

    The estimators would return a small positive value for EO and CAL instead, from the
    regularisation bias of ``(I − R_c) R_c``; a constant attribute (e.g. a one-group sample)
    is defined to score 0. The statistic stays connected to the predictions (gradient 0).
    """

    def __init__(self, pred: Variable, like: Any, method: str) -> None:
        xp = namespace(like)
        zero = like * 0.0 if pred.numeric is None else xp.sum(pred.numeric) * 0.0
        self.terms = Terms(
            statistic=zero,
            rank=0,
            method=method,
            n=pred.n,
            norm_bound=1.0,
            compute_norms=lambda: (zero, zero),
            compute_null_statistic=lambda: 0.0,
        )
        self.strata = np.zeros(pred.n, dtype=np.int64)

    def permuted_statistics(self, permutations: np.ndarray) -> np.ndarray:
        return np.zeros(len(permutations))

    def null_factors(self) -> NullFactors:
        zeros = np.zeros((self.terms.n, 1))
        return NullFactors(zeros, zeros)

    def residual_features(self) -> ResidualFeatures:
        zeros = np.zeros((self.terms.n, 1))
        return ResidualFeatures(zeros, zeros)
