"""Group methods given binned groups: the variant of a method that cannot take a continuous
attribute, as a careful user would run it on several attributes of mixed kinds.

The variant fits the groups of its ``groups`` parameter on the training rows
(:func:`~._binning.fit_group_bins`), gives the method one column of the crossed groups, and
applies the same cut points to the rows it predicts. The groups of fewer than
:data:`~._binning.MIN_GROUP_ROWS` training rows, and in classification those whose training rows
hold one outcome class, are pooled into one group, :data:`POOLED`, with the groups unseen in
training: a method cannot equalise a rate it cannot estimate, and fairlearn's
``ThresholdOptimizer`` refuses a group of one class. A method that takes binary attributes only
(AIF360's, which compare a privileged with an unprivileged group) gets one binary column instead:
the groups whose training positive rate is above the overall rate against the others.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..plugins import KINDS, MethodSpec
from ._binning import GROUP_SCHEMES, MIN_GROUP_ROWS, fit_group_bins

#: The parameter of a variant that names its group construction.
GROUPS_PARAM = "groups"
#: The column of groups a variant gives its method.
GROUP_COLUMN = "group"
#: The group of the rows whose own group is too small, or of one outcome class, in training.
POOLED = "other groups"
#: The two sides of a binary group column, and the side of a group unseen in training.
HIGHER, LOWER = "higher positive rate", "lower positive rate"


def needs_binned_groups(spec: MethodSpec) -> bool:
    """Whether a method groups rows by value, so that a continuous attribute must be binned
    for it: its capabilities do not take continuous attributes.

    Examples
    --------
    >>> from faircocco_plugins.bench._binned_methods import needs_binned_groups
    >>> from faircocco_plugins.plugins import Capabilities, MethodSpec
    >>> caps = Capabilities(tasks=("classification",), notions=("dp",), attributes=("binary",),
    ...                     outcomes=("binary",), multiple_attributes="single",
    ...                     needs_gradients=False)
    >>> needs_binned_groups(MethodSpec("m", "", caps, factory=print))
    True
    """
    return "continuous" not in spec.capabilities.attributes


def binned_method(spec: MethodSpec, schemes: Sequence[str]) -> MethodSpec:
    """The variant of ``spec`` that takes every kind and number of attributes through binned
    groups, swept over ``schemes`` (its ``groups`` parameter) besides its own grid.

    Parameters
    ----------
    spec : MethodSpec
        A method that groups rows by value (:func:`needs_binned_groups`).
    schemes : sequence of {"median", "quartiles"}

    Returns
    -------
    MethodSpec
        Of the same name, so that a study's runs name the method they ran.
    """
    unknown = [s for s in schemes if s not in GROUP_SCHEMES]
    if unknown or not schemes:
        raise ValueError(
            f"schemes={list(schemes)!r} is not valid; expected a non-empty subset of "
            f"{list(GROUP_SCHEMES)}."
        )
    if GROUPS_PARAM in spec.param_grid or GROUPS_PARAM in spec.quick_grid:
        raise ValueError(
            f"{spec.name} already has a parameter {GROUPS_PARAM!r}; its binned variant would "
            "shadow it."
        )
    binary = "categorical" not in spec.capabilities.attributes
    side = "a binary column of the groups above and below the overall positive rate"
    capabilities = replace(
        spec.capabilities,
        attributes=KINDS,
        multiple_attributes="joint",
        note=(
            f"continuous attributes cut at training quantiles, crossed with the others into "
            f"{side if binary else 'one group column'}; " + spec.capabilities.note
        ).rstrip("; "),
    )
    swept = {GROUPS_PARAM: tuple(schemes)}
    return replace(
        spec,
        description=f"{spec.description}, on binned groups",
        capabilities=capabilities,
        factory=functools.partial(_binned_factory, spec.factory, binary),
        param_grid={**spec.param_grid, **swept},
        quick_grid={**spec.quick_grid, **swept},
    )


def _binned_factory(
    factory: Callable[..., Any], binary: bool, *, groups: str, task: str, **params: Any
) -> BinnedGroups:
    model = factory(task=task, **params)
    return BinnedGroups(model, groups, binary=binary, classes=task == "classification")


class BinnedGroups:
    """A method fitted and applied on the binned, crossed groups of its attributes.

    Parameters
    ----------
    model : object
        The method, with the harness's ``fit(X, y, *, sensitive_features)``.
    scheme : {"median", "quartiles"}
        How continuous attributes are cut (:data:`~._binning.GROUP_SCHEMES`).
    binary : bool
        Give the method one binary column instead of the groups: the groups (pooled as below)
        whose training positive rate is above the overall rate, against the others.
    classes : bool
        Pool the groups whose training rows hold one outcome class too (classification).

    The groups of fewer than :data:`~._binning.MIN_GROUP_ROWS` training rows, those of one
    class where ``classes`` says so, and those unseen in training form one group,
    :data:`POOLED`.
    """

    def __init__(self, model: Any, scheme: str, *, binary: bool, classes: bool = False) -> None:
        self.model = model
        self.scheme = scheme
        self.binary = binary
        self.classes = classes

    def fit(self, X: Any, y: Any, *, sensitive_features: pd.DataFrame) -> BinnedGroups:
        self.bins_ = fit_group_bins(sensitive_features, self.scheme)
        groups = self.bins_.labels(sensitive_features)
        outcome = pd.Series(np.asarray(y, dtype=np.float64))
        by_group = outcome.groupby(groups)
        kept = by_group.size() >= MIN_GROUP_ROWS
        if self.classes:
            kept &= by_group.nunique() > 1
        self.kept_ = frozenset(kept.index[kept])
        groups = self._pooled(groups)
        if self.binary:
            rates = outcome.groupby(groups).mean()
            self.higher_ = frozenset(rates.index[rates > outcome.mean()])
        self.model.fit(X, y, sensitive_features=self._column(groups))
        return self

    def _pooled(self, groups: np.ndarray) -> np.ndarray:
        return np.where(np.isin(groups, list(self.kept_)), groups, POOLED)

    def _column(self, groups: np.ndarray) -> pd.DataFrame:
        if self.binary:
            groups = np.where(np.isin(groups, list(self.higher_)), HIGHER, LOWER)
        return pd.DataFrame({GROUP_COLUMN: groups})

    def _given(self, sensitive_features: Any) -> dict[str, Any]:
        """``predict``'s keyword for the method: the rows' groups, when they are given."""
        if sensitive_features is None:
            return {}
        groups = self._pooled(self.bins_.labels(sensitive_features))
        return {"sensitive_features": self._column(groups)}

    def predict(self, X: Any, sensitive_features: Any = None) -> np.ndarray:
        return np.asarray(self.model.predict(X, **self._given(sensitive_features)))

    @property
    def predict_proba(self) -> Callable[..., np.ndarray]:
        """The method's probabilities, where it gives them (else an AttributeError)."""
        if not callable(getattr(self.model, "predict_proba", None)):
            raise AttributeError(f"{type(self.model).__name__} has no predict_proba")
        return self._predict_proba

    def _predict_proba(self, X: Any, sensitive_features: Any = None) -> np.ndarray:
        return np.asarray(self.model.predict_proba(X, **self._given(sensitive_features)))
