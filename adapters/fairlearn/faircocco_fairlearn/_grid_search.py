"""fairlearn's GridSearch keeping the most accurate grid predictor that meets a fairness target."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
from fairlearn import reductions
from fairlearn.reductions import (
    ClassificationMoment,
    FalsePositiveRateParity,
    GridSearch,
    TruePositiveRateParity,
)
from sklearn.base import clone
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.utils import _safe_indexing

from faircocco_plugins.plugins import (
    NOTION_RECORDS,
    DegenerateModelWarning,
    Interval,
    align_by_index,
    check_params,
    kernel_named,
    notion_named,
    statistic_default,
    toolkit_name,
)
from faircocco_plugins.targets import (
    AUC_FLOOR,
    TargetSettings,
    adjusted_score_columns,
    check_target,
    check_target_groups,
    choose_step,
    group_bins,
    resolve_target,
    target_columns,
)

from ._metrics import _table
from ._moment import FairCOCCOMoment

#: The columns of ``candidates_`` besides each grouping's ``di[name]`` and ``deo[name]``: the
#: torch adapter's ``path_`` columns for two classes.
CANDIDATE_COLUMNS = (
    "accuracy", "auc", "adjusted_score", "adjusted_score_bound", "di", "di_bound", "deo",
    "deo_bound", "degenerate",
)  # fmt: skip
#: The FairCOCCO notion of fairlearn's constraints that bound a parity of predictions: the
#: notion whose record names the constraint, else equalised odds, which implies it.
_NOTIONS = {
    TruePositiveRateParity: "eo",
    FalsePositiveRateParity: "eo",
    **{
        getattr(reductions, record.fairlearn_moment): name
        for name, record in NOTION_RECORDS.items()
        if record.fairlearn_moment is not None
    },
}
_LIMITS = {
    "validation_fraction": Interval("real", 0, 1, closed="neither"),
    "random_state": Interval("integer", optional=True),
}
#: GridSearch's own grid needs two points: with fewer, its spacing divides by zero.
_GRID_SIZE = {"grid_size": Interval("integer", 2)}


class FairCOCCOGridSearch(GridSearch):
    """fairlearn's ``GridSearch`` that keeps the most accurate predictor meeting a target.

    fairlearn's reductions take a bound (``difference_bound``) or a weight
    (``constraint_weight``), not the fairness level a user wants. This grid search asks for
    the level: it holds out a stratified, seeded ``validation_fraction`` of the rows, runs
    ``GridSearch`` on the rest (one predictor per Lagrange multiplier, in ``predictors_``),
    measures every predictor on the held-out rows as the torch adapter's λ path measures its
    steps, and keeps the most accurate non-degenerate one that meets ``target`` there;
    ``predict`` and ``predict_proba`` use it. If none meets it, the fairest non-degenerate
    predictor by the target's measure is kept, with a ``UserWarning`` naming the target and
    what was reached. A predictor is degenerate when it predicts one class for every
    held-out row or its AUC there is at most 0.51. The held-out rows train no predictor.

    Parameters
    ----------
    estimator : estimator
        As for ``GridSearch``: ``fit(X, y, sample_weight)`` and ``predict(X)`` on binary
        labels; its ``predict_proba``, where it has one, gives the scores the adjusted score
        and the AUC are measured on.
    constraints : fairlearn.reductions.ClassificationMoment
        As for ``GridSearch``, e.g. ``DemographicParity()`` or :class:`FairCOCCOMoment`.
    target : "halve" or dict
        ``"halve"``: a held-out adjusted score at most half the unconstrained estimator's
        (fitted once more on the training rows, without weights); ``{"adjusted_score": x}``:
        at most ``x``; ``{"di": x}``: disparate impact (lowest over highest positive rate of
        any attribute's groups) at least ``x``, e.g. 0.8 for the four-fifths rule;
        ``{"deo": x}``: largest gap in true-positive rates at most ``x``. DI and DEO apply to
        every grouping of :func:`faircocco_plugins.targets.target_groupings` on the held-out
        rows: each categorical attribute's groups, each continuous attribute's ``bins``
        quantile bins, and with ``intersections`` the intersections with at least 30 rows.
    notion : str, optional
        The adjusted score's notion, one with a fairlearn reductions constraint; default the
        constraints': the notion of that constraint (``"dp"`` for ``DemographicParity``,
        ``"eo"`` for ``EqualizedOdds``, ``"eopp"`` for ``TruePositiveRateParity``), else
        ``"eo"`` for a parity of error rates that equalised odds implies
        (``FalsePositiveRateParity``), and a :class:`FairCOCCOMoment`'s own.
    kernel : str, optional
        The adjusted score's kernel, by its registered name; default a
        :class:`FairCOCCOMoment`'s own, else ``"gaussian"``.
    validation_fraction : float
        Share of the rows held out to measure the predictors.
    random_state : int, optional
        Seed of the held-out split.
    bins : int
        How many groups a continuous attribute makes for fairlearn's own constraints
        (``DemographicParity`` and the others group rows by value, so a raw age would be one group
        per age): it is cut at the training rows' quantiles into ``bins`` groups, at the quartiles
        by default (:func:`faircocco_plugins.targets.group_bins`). Numeric attributes with more than
        two values are continuous; give coded categories (race 0-4) as strings or a categorical to
        keep their levels. A :class:`FairCOCCOMoment` takes continuous attributes as they are. A DI
        or DEO target groups a continuous attribute into as many quantile bins of the held-out rows
        (:func:`faircocco_plugins.targets.target_groupings`).
    confidence : float
        In (0, 1): a target is met only where its bound at this confidence on the held-out
        rows meets it (``di_bound``, ``deo_bound``,
        :func:`faircocco_plugins.targets.group_measures`; ``adjusted_score_bound``,
        :func:`faircocco_plugins.targets.adjusted_score_columns`).
    intersections : bool
        Whether a DI or DEO target applies to the intersections of the attributes' groups too.
    grid_size, grid_limit, grid_offset, grid, sample_weight_name
        As for ``GridSearch``; ``grid_size`` is at least 2 unless ``grid`` is given.

    Attributes
    ----------
    candidates_ : pandas.DataFrame
        One row per predictor of ``predictors_`` (index ``predictor``), measured on the held-out
        rows: ``accuracy``, ``auc``, ``adjusted_score`` (chance-adjusted FairCOCCO score of the
        scores under ``notion``) and ``adjusted_score_bound`` (its upper bound at ``confidence``;
        :func:`faircocco_plugins.targets.adjusted_score_columns`), the DI and DEO columns of
        :func:`faircocco_plugins.targets.target_columns` (``di``, the worst over the attributes,
        ``di_bound``, its bound at ``confidence``, and ``di[name]`` each attribute's; the same for
        ``deo``) and ``degenerate``.
    target_ : faircocco_plugins.targets.Target
        The bound the target set (``"halve"`` resolved to a number).
    best_idx_ : int
        The kept predictor (row of ``candidates_``).
    validation_rows_ : numpy.ndarray
        Positions of the held-out rows in ``X``.
    bin_edges_ : dict of str to numpy.ndarray
        The cut points of each continuous attribute binned for the constraints (a value at
        most the first is in the first group), by the attribute's name; empty when none was.
    predictors_, lambda_vecs_, gammas_, objectives_, oracle_execution_times_
        As for ``GridSearch``, on the training rows.

    Examples
    --------
    >>> import numpy as np
    >>> from fairlearn.reductions import DemographicParity
    >>> from sklearn.linear_model import LogisticRegression
    >>> from faircocco_fairlearn import FairCOCCOGridSearch
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.integers(0, 2, 1000)
    >>> X = np.column_stack([rng.normal(size=1000) + sex, rng.normal(size=1000)])
    >>> y = (X[:, 0] + X[:, 1] + rng.normal(size=1000) > 0.5).astype(int)
    >>> search = FairCOCCOGridSearch(
    ...     LogisticRegression(), DemographicParity(), target={"di": 0.65}, random_state=0)
    >>> search = search.fit(X, y, sensitive_features=sex)
    >>> bool(search.candidates_["di_bound"].iloc[search.best_idx_] >= 0.65)
    True
    """

    best_idx_: int

    def __init__(
        self,
        estimator: Any,
        constraints: Any,
        *,
        target: Any = "halve",
        notion: str | None = None,
        kernel: str | None = None,
        validation_fraction: float = 0.2,
        random_state: int | None = None,
        bins: int = 4,
        confidence: float = 0.9,
        intersections: bool = False,
        grid_size: int = 10,
        grid_limit: float = 2.0,
        grid_offset: Any = None,
        grid: Any = None,
        sample_weight_name: str = "sample_weight",
    ) -> None:
        super().__init__(
            estimator,
            constraints,
            grid_size=grid_size,
            grid_limit=grid_limit,
            grid_offset=grid_offset,
            grid=grid,
            sample_weight_name=sample_weight_name,
        )
        # as given (GridSearch stores a float), so that get_params and clone return it
        self.grid_limit = grid_limit
        self.target = target
        self.notion = notion
        self.kernel = kernel
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.bins = bins
        self.confidence = confidence
        self.intersections = intersections

    def fit(
        self, X: Any, y: Any, *, sensitive_features: Any, control_features: Any = None
    ) -> FairCOCCOGridSearch:
        """Run the grid search on the training rows and keep the predictor the target selects.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n, p)
            Features.
        y : array-like of shape (n,)
            Binary labels, 0 and 1.
        sensitive_features : array-like, Series or DataFrame of shape (n,) or (n, d)
            The attributes the constraints group by (continuous ones cut into ``bins``
            groups), which the measures take too.
        control_features : array-like of shape (n,), optional
            As for ``GridSearch``.

        Pandas inputs pair by index label, as the core's score pairs them: the same labels in
        another order are reordered to the first pandas input's, other labels are refused.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For a target of the wrong form, a regression moment, a notion that cannot be
            told, inputs of different lengths or of other index labels, a ``grid_size`` below
            2, attributes with one group on the training rows, or a DI or DEO target on an
            attribute with one group on the held-out rows
            (:func:`faircocco_plugins.targets.check_target_groups`).

        Warns
        -----
        UserWarning
            When no non-degenerate predictor meets the target: the fairest one is kept, and
            the warning names the target and what it reached.
        """
        name = type(self).__name__
        check_target(self.target, "classification")
        check_params({key: getattr(self, key) for key in _LIMITS}, _LIMITS)
        settings = TargetSettings(
            confidence=self.confidence, bins=self.bins, intersections=self.intersections
        )
        if self.grid is None:
            check_params({"grid_size": self.grid_size}, _GRID_SIZE)
        if not isinstance(self.constraints, ClassificationMoment):
            raise ValueError(
                f"{name} chooses among classifiers; constraints="
                f"{type(self.constraints).__name__} is not a ClassificationMoment. Use "
                "fairlearn's GridSearch."
            )
        notion, kernel = self._notion(), self._kernel()
        rows = _paired_rows(
            {
                "X": X,
                "y": y,
                "sensitive_features": sensitive_features,
                "control_features": control_features,
            }
        )
        train, held = self._split(np.asarray(rows["y"]))
        y_held = np.asarray(_safe_indexing(rows["y"], held))
        sensitive_held = _by_position(_safe_indexing(rows["sensitive_features"], held))
        check_target_groups(
            self.target, _table(sensitive_held), y_held == 1, rows="validation rows", bins=self.bins
        )
        measured = (
            _safe_indexing(rows["X"], held),
            y_held,
            sensitive_held,
            notion,
            kernel,
            settings,
        )
        trained = {key: _safe_indexing(values, train) for key, values in rows.items()}
        X_train, y_train = trained.pop("X"), trained.pop("y")
        trained["sensitive_features"] = self._groups(trained["sensitive_features"])
        super().fit(X_train, y_train, **trained)

        candidates = pd.DataFrame(
            [_measures(predictor, *measured) for predictor in self.predictors_]
        )
        candidates.index.name = "predictor"
        unconstrained = math.nan
        if self.target == "halve":
            reference = clone(self.estimator).fit(X_train, y_train)
            unconstrained = _measures(reference, *measured)["adjusted_score"]
        self.candidates_ = candidates
        self.validation_rows_ = held
        self.target_ = resolve_target(self.target, unconstrained)
        # where every predictor is degenerate, GridSearch's own choice stays
        self.best_idx_, reason = choose_step(
            candidates,
            self.target_,
            "classification",
            noun="grid predictor",
            fallback=self.best_idx_,
        )
        if reason is not None:
            warnings.warn(
                f"{name}(target={self.target!r}): {reason}. Reach further with grid_limit "
                f"(now {self.grid_limit:g}) or a larger grid_size (now {self.grid_size}), or "
                "ask for a weaker target.",
                DegenerateModelWarning if candidates["degenerate"].all() else UserWarning,
                stacklevel=2,
            )
        return self

    def _groups(self, sensitive: Any) -> Any:
        """The training rows' attributes as the constraints take them, with ``bin_edges_``.

        fairlearn's own constraints make one group of each distinct value: a continuous
        attribute is cut into ``bins`` groups at its quantiles. A :class:`FairCOCCOMoment`
        measures continuous attributes as they are.
        """
        table = _table(sensitive)
        self.bin_edges_: dict[str, np.ndarray] = {}
        if not isinstance(self.constraints, FairCOCCOMoment):
            bins = group_bins(table, self.bins)
            groups = bins.groupings(table)
            for name, cuts in bins.cuts.items():
                table[name], self.bin_edges_[name] = groups[name], np.asarray(cuts)
        if len(table.drop_duplicates()) < 2:
            raise ValueError(
                f"sensitive_features has one group ({table.iloc[0].tolist()}) on the training "
                "rows; the constraints trade accuracy for parity between groups, and with one "
                "there is none to trade. Give rows of at least two groups."
            )
        return table if self.bin_edges_ else sensitive

    def _notion(self) -> str:
        """``notion``, or the constraints'."""
        if self.notion is not None:
            toolkit_name(self.notion, "fairlearn_moment")  # a notion fairlearn's reductions have
            return self.notion
        if isinstance(self.constraints, FairCOCCOMoment):
            return str(self.constraints.notion)
        notion = _NOTIONS.get(type(self.constraints))
        if notion is None:
            raise ValueError(
                f"constraints={type(self.constraints).__name__} has no FairCOCCO notion for "
                "the adjusted score; pass notion='dp' or 'eo'."
            )
        return notion

    def _kernel(self) -> str:
        """``kernel``, or the :class:`FairCOCCOMoment`'s, or the score's default."""
        if self.kernel is not None:
            kernel_named(self.kernel)  # a registered kernel, or a ValueError that lists them
            return self.kernel
        if isinstance(self.constraints, FairCOCCOMoment):
            return str(self.constraints.kernel)
        return str(statistic_default("kernel"))

    def _split(self, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions of the training and held-out rows, stratified by label where every
        label has rows enough, in their original order."""
        positions = np.arange(len(labels))
        options = {"test_size": self.validation_fraction, "random_state": self.random_state}
        try:
            train, held = train_test_split(positions, stratify=labels, **options)
        except ValueError:
            train, held = train_test_split(positions, **options)
        return np.sort(train), np.sort(held)


def _measures(
    predictor: Any,
    X: Any,
    y: np.ndarray,
    sensitive_features: Any,
    notion: str,
    kernel: str,
    settings: TargetSettings,
) -> dict[str, Any]:
    """One row of ``candidates_``: the predictor on the held-out rows (the adjusted score and
    DI and DEO with their bounds, :func:`faircocco_plugins.targets.adjusted_score_columns` and
    :func:`faircocco_plugins.targets.target_columns`)."""
    predicted = np.asarray(predictor.predict(X))
    scores = _positive_scores(predictor, X, predicted)
    auc = math.nan
    if np.unique(y).size == 2:
        auc = float(roc_auc_score(y, scores))
    return {
        "accuracy": float(np.mean(predicted == y)),
        "auc": auc,
        **adjusted_score_columns(
            scores,
            _table(sensitive_features),
            y_true=notion_named(notion).outcome(y.astype(float)),
            notion=notion,
            kernel=kernel,
            settings=settings,
        ),
        **target_columns(y == 1, predicted == 1, _table(sensitive_features), settings=settings),
        "degenerate": bool(np.unique(predicted).size <= 1 or auc <= AUC_FLOOR),
    }


def _positive_scores(predictor: Any, X: Any, predicted: np.ndarray) -> np.ndarray:
    """The probability of class 1, or the labels for a predictor without probabilities.

    A grid point whose reweighted labels are all one class is fitted as a constant
    ``DummyClassifier``, whose probabilities have that class's column only.
    """
    if not hasattr(predictor, "predict_proba"):
        return predicted.astype(float)
    proba = np.asarray(predictor.predict_proba(X), dtype=float)
    classes = list(predictor.classes_)
    return proba[:, classes.index(1)] if 1 in classes else np.zeros(len(proba))


def _paired_rows(inputs: dict[str, Any]) -> dict[str, Any]:
    """The row-wise inputs (``None`` dropped), pandas ones paired by index label as the core
    pairs them, each with as many rows as ``y``."""
    rows = {k: v for k, v in align_by_index(inputs).items() if v is not None}
    expected = _count(rows["y"])
    for argument, values in rows.items():
        if _count(values) != expected:
            raise ValueError(
                f"{argument} has {_count(values)} rows and y has {expected}; give the same rows."
            )
    return rows


def _count(values: Any) -> int:
    """Rows of an array, frame, sparse matrix or list."""
    return int(values.shape[0]) if hasattr(values, "shape") else len(values)


def _by_position(values: Any) -> Any:
    """A pandas object renumbered from 0, as the arrays it is measured beside."""
    if isinstance(values, pd.Series | pd.DataFrame):
        return values.reset_index(drop=True)
    return values
