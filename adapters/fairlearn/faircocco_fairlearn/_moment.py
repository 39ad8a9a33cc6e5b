"""FairCOCCO as a fairlearn reductions constraint, linearised with random Fourier features.

fairlearn's reductions (``ExponentiatedGradient``, ``GridSearch``) need constraints that are
linear in the predictions ``h``: the violation of a randomised classifier is the mixture of its
members' violations. The FairCOCCO statistic is quadratic in the predictions' kernel, so it
cannot be one exactly. :class:`FairCOCCOMoment` keeps its attribute side and makes the
prediction side linear: with a finite feature map ``φ`` of the sensitive attributes (random
Fourier features of the product kernel the score uses, Gaussian by default, each attribute at
its median bandwidth), the constraints are the cross-covariances

    γ_j(h) = (1/n) Σ_i h(x_i) (φ_j(a_i) − m_j(y_i)),  |γ_j(h)| ≤ bound,  j = 1..D,

where ``m_j`` is the mean of ``φ_j`` over all rows (DP) or over the rows of the same label (EO).
A notion restricted to the positive class measures its rows alone, as fairlearn's
``TruePositiveRateParity`` does: ``γ_j(h) = (1/n₊) Σ_{i: y_i = 1} h(x_i) (φ_j(a_i) − m_j(1))``.
All are 0 when the predictions are uncorrelated with every feature of the attributes (within
each label, for EO): a linear-kernel surrogate of the FairCOCCO dependence, which it bounds
from below and which has the same zero under independence. It is beyond the paper.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from fairlearn.reductions import ClassificationMoment, ErrorRate

from faircocco_plugins import is_nominal
from faircocco_plugins.plugins import (
    Interval,
    Kernel,
    check_params,
    kernel_named,
    notion_named,
    positive_labels,
    statistic_default,
    toolkit_name,
)

from ._metrics import _table, _unpacked

_SIGN, _FEATURE = "sign", "feature"
#: rows whose pairwise distances give an attribute's median bandwidth
_BANDWIDTH_ROWS = 1000


class FairCOCCOMoment(ClassificationMoment):
    """The FairCOCCO dependence, linearised, as a constraint for fairlearn's reductions.

    Parameters
    ----------
    notion : str
        A notion with a fairlearn reductions constraint of its own
        (``faircocco_plugins.plugins.NOTION_RECORDS[notion].fairlearn_moment``): demographic
        parity (predictions independent of the attributes) or equalised odds (independent
        given the label).
    n_features : int
        Random Fourier features ``D`` of the attributes: two constraints (``±``) each.
    difference_bound : float
        The largest allowed cross-covariance between the predictions and any feature.
    random_state : int, optional
        Seed of the random features.
    kernel : str
        The kernel of the attributes, by its registered name (default ``"gaussian"``, as
        :func:`faircocco_plugins.faircocco_score`'s ``kernel``).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from fairlearn.reductions import ExponentiatedGradient
    >>> from sklearn.linear_model import LogisticRegression
    >>> from faircocco_fairlearn import FairCOCCOMoment
    >>> rng = np.random.default_rng(0)
    >>> A = pd.DataFrame({"age": rng.uniform(18, 80, 400), "sex": rng.choice(["f", "m"], 400)})
    >>> X = np.column_stack([rng.normal(size=400), A["age"] / 80])
    >>> y = (X[:, 0] + X[:, 1] > 0.6).astype(int)
    >>> mitigator = ExponentiatedGradient(
    ...     LogisticRegression(), FairCOCCOMoment("dp", random_state=0), max_iter=20)
    >>> mitigator.fit(X, y, sensitive_features=A).predict(X).shape
    (400,)
    """

    short_name = "FairCOCCO"

    def __init__(
        self,
        notion: str = "dp",
        *,
        n_features: int = 32,
        difference_bound: float = 0.01,
        random_state: int | None = None,
        kernel: str = statistic_default("kernel"),
    ) -> None:
        super().__init__()
        toolkit_name(notion, "fairlearn_moment")  # a notion fairlearn's reductions have
        kernel_named(kernel)  # a registered kernel, or a ValueError that lists them
        check_params(
            {
                "n_features": n_features,
                "difference_bound": difference_bound,
                "random_state": random_state,
            },
            {
                "n_features": Interval("integer", 1),
                "difference_bound": Interval("real", 0, closed="neither"),
                "random_state": Interval("integer", optional=True),
            },
        )
        self.notion = notion
        self.n_features = n_features
        self.difference_bound = difference_bound
        self.random_state = random_state
        self.kernel = kernel

    def load_data(
        self, X: Any, y: Any, *, sensitive_features: Any, control_features: Any = None
    ) -> None:
        """Fit the attributes' feature map and centre it (within labels for EO; on the
        positive class's rows alone, the others weighing nothing, for a notion restricted to
        it)."""
        if control_features is not None:
            raise ValueError("FairCOCCOMoment takes no control_features; use notion='eo'.")
        labels = pd.Series(np.asarray(y)).reset_index(drop=True)
        table = _table(_unpacked(sensitive_features))
        if len(table) != len(labels):
            raise ValueError(
                f"sensitive_features has {len(table)} rows and y has {len(labels)}; they must "
                "match."
            )
        super().load_data(X, labels)
        kernel = kernel_named(self.kernel)
        features = self._random_features(_scaled(table, kernel), kernel)
        notion = notion_named(self.notion)
        if notion.given != "truth":
            self.U = features - features.mean(axis=0)
        elif not notion.restricts_rows:
            means = pd.DataFrame(features).groupby(labels.to_numpy()).transform("mean")
            self.U = features - means.to_numpy()
        else:
            self.U = _centred_within(features, positive_labels({"y": labels})["y"])
        self._index = pd.MultiIndex.from_product(
            [["+", "-"], range(self.n_features)], names=[_SIGN, _FEATURE]
        )
        # GridSearch's basis: one direction per feature, either sign
        basis = pd.DataFrame(0.0, index=self.index, columns=range(self.n_features))
        self.pos_basis, self.neg_basis = basis.copy(), basis.copy()
        for j in range(self.n_features):
            self.pos_basis.loc[("+", j), j] = 1.0
            self.neg_basis.loc[("-", j), j] = 1.0
        self.neg_basis_present = pd.Series(True, index=range(self.n_features))
        self.default_objective_lambda_vec = None

    @property
    def index(self) -> pd.MultiIndex:
        """The constraints: a sign and a feature each."""
        return self._index

    def default_objective(self) -> ErrorRate:
        """The classification error, as for fairlearn's own parity constraints."""
        return ErrorRate()

    def gamma(self, predictor: Any) -> pd.Series:
        """The cross-covariance of ``predictor(X)`` with each feature, with both signs."""
        predictions = np.asarray(predictor(self.X), dtype=float).reshape(-1)
        covariance = self.U.T @ predictions / self.total_samples
        return pd.Series(np.concatenate([covariance, -covariance]), index=self.index)

    def bound(self) -> pd.Series:
        """``difference_bound`` for every constraint."""
        return pd.Series(self.difference_bound, index=self.index)

    def project_lambda(self, lambda_vec: pd.Series) -> pd.Series:
        """Multipliers with at most one sign per feature, the same Lagrangian for any ``h``."""
        signed = (lambda_vec["+"] - lambda_vec["-"]).astype(float)
        return pd.concat(
            [signed.clip(lower=0.0), (-signed).clip(lower=0.0)],
            keys=["+", "-"],
            names=[_SIGN, _FEATURE],
        )

    def signed_weights(self, lambda_vec: pd.Series) -> pd.Series:
        """``−n ∂(λ·γ)/∂h(x_i)``: fairlearn's sign convention for the cost-sensitive oracle."""
        signed = (lambda_vec["+"] - lambda_vec["-"]).reindex(range(self.n_features))
        return pd.Series(-(self.U @ signed.to_numpy(dtype=float)), index=self.tags.index)

    def _random_features(self, scaled: np.ndarray, kernel: Kernel) -> np.ndarray:
        """``√(2/D) cos(W a + b)``: random Fourier features of the unit-bandwidth ``kernel``."""
        rng = np.random.default_rng(self.random_state)
        weights = kernel.frequencies(rng, (scaled.shape[1], self.n_features))
        offsets = rng.uniform(0.0, 2 * np.pi, self.n_features)
        return np.sqrt(2.0 / self.n_features) * np.cos(scaled @ weights + offsets)


def _centred_within(features: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``features`` centred on ``rows`` and 0 elsewhere, scaled by ``n / n_rows``: ``γ`` is then
    the cross-covariance within those rows (``gamma`` divides by all ``n``)."""
    if not rows.any():
        raise ValueError("y has no row of the positive class, which the notion measures.")
    kept = features[rows]
    within = np.zeros_like(features)
    within[rows] = (kept - kept.mean(axis=0)) * (len(rows) / len(kept))
    return within


def _scaled(table: pd.DataFrame, kernel: Kernel) -> np.ndarray:
    """Each attribute as columns divided by ``kernel``'s bandwidth, so that the unit-bandwidth
    kernel of the result is the product of the attributes' kernels (as in the score)."""
    blocks = []
    for name in table.columns:
        column = table[name]
        if column.isna().any():
            raise ValueError(f"sensitive_features column {name!r} has missing values.")
        if is_nominal(column):
            block = pd.get_dummies(column.astype(str), dtype=float).to_numpy()
        else:
            block = column.to_numpy(dtype=float)[:, None]
            if not np.isfinite(block).all():
                raise ValueError(f"sensitive_features column {name!r} has infinite values.")
        # the score's median heuristic (a constant attribute gets width 1: its features stay
        # constant whatever the width)
        blocks.append(block / kernel.bandwidth(block[:_BANDWIDTH_ROWS]))
    return np.concatenate(blocks, axis=1)
