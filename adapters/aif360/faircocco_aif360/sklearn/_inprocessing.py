"""FairCOCCO learning in the ``aif360.sklearn`` style: protected attributes in the index."""

from __future__ import annotations

from typing import Any, Unpack

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from faircocco_plugins.plugins import align_by_index, statistic_default

from .._network import NetworkKeywords, PenalisedNetwork, takes_network


class FairCOCCOInprocessing(PenalisedNetwork, ClassifierMixin, BaseEstimator):
    """The paper's network trained with the FairCOCCO penalty, ``aif360.sklearn`` style.

    As in AIF360's scikit-learn API, ``X`` is a DataFrame whose index holds the protected
    attributes: ``X.set_index(["sex", "age"], drop=False)``. ``prot_attr`` names the index
    levels to protect (all of them by default); they are penalised jointly at their raw
    values, so continuous ones stay continuous. The features are ``X``'s columns, without the
    protected attributes when ``drop_prot_attr`` (AIF360's reductions have the same switch).

    Parameters
    ----------
    prot_attr : str, list of str or None
        Index levels holding the protected attributes; ``None`` takes every level.
    notion : {"dp", "eo", "cal", "eopp"}
        The fairness notion the penalty enforces.
    lam : float
        The penalty's weight.
    drop_prot_attr : bool
        Drop columns named like the protected attributes from the features.
    kernel, hidden_layer_sizes, batch_size, learning_rate, epochs, warmup_epochs, weight_decay,
    verbose
        The network's training, as in ``faircocco_torch.FairCOCCOClassifier``.
    random_state : int or None
        Seeds the initial weights, the batches and the resampling by ``sample_weight``.

    Attributes
    ----------
    classes_ : numpy.ndarray
    prot_attr_ : list of str
        The protected attributes used.
    feature_names_in_ : numpy.ndarray
        The feature columns, in order.
    model_ : FairCOCCOClassifier
        The trained network.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from faircocco_aif360.sklearn import FairCOCCOInprocessing
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"x": rng.normal(size=300), "age": rng.uniform(18, 80, 300)})
    >>> X = X.set_index("age", drop=False)
    >>> y = pd.Series((X["x"] > 0).astype(int).to_numpy(), index=X.index)
    >>> model = FairCOCCOInprocessing("age", epochs=5, random_state=0).fit(X, y)
    >>> model.predict_proba(X).shape, list(model.feature_names_in_)
    ((300, 2), ['x'])
    """

    @takes_network
    def __init__(
        self,
        prot_attr: Any = None,
        notion: str = statistic_default("notion", "in-processing"),
        lam: float = 1.0,
        *,
        drop_prot_attr: bool = True,
        random_state: int | None = None,
        **network: Unpack[NetworkKeywords],
    ) -> None:
        self.prot_attr = prot_attr
        self.drop_prot_attr = drop_prot_attr
        self._set_parameters(notion, lam, random_state, network)

    def fit(self, X: pd.DataFrame, y: Any, sample_weight: Any = None) -> FairCOCCOInprocessing:
        """Train on ``X``'s features and labels ``y``, penalising the dependence on the
        protected attributes in ``X``'s index; ``sample_weight`` resamples the rows.

        A pandas ``y`` or ``sample_weight`` pairs with ``X``'s rows by index label, as the
        core's score pairs pandas inputs: give it ``X``'s index."""
        self.prot_attr_ = _index_levels(X, self.prot_attr)
        rows = align_by_index({"X": X, "y": y, "sample_weight": sample_weight})
        y, sample_weight = rows["y"], rows["sample_weight"]
        sensitive = X.index.to_frame(index=False)[self.prot_attr_]
        columns = [c for c in X.columns if not (self.drop_prot_attr and c in self.prot_attr_)]
        if not columns:
            raise ValueError(
                f"X has no feature columns besides the protected attributes {self.prot_attr_}; "
                "set drop_prot_attr=False to use them."
            )
        self.feature_names_in_ = np.asarray(columns, dtype=object)
        self.n_features_in_ = len(columns)
        self.model_ = self._train(
            "classification",
            X[columns].to_numpy(dtype=np.float64),
            np.asarray(y),
            sensitive,
            None if sample_weight is None else np.asarray(sample_weight),
        )
        self.classes_ = self.model_.classes_
        return self

    def _features(self, X: pd.DataFrame) -> np.ndarray:
        check_is_fitted(self, "model_")
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame; got {type(X).__name__}.")
        missing = [c for c in self.feature_names_in_ if c not in X.columns]
        if missing:
            raise ValueError(f"X lacks the feature columns {missing} seen in fit.")
        return X[list(self.feature_names_in_)].to_numpy(dtype=np.float64)

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Class probabilities, one column per class of ``classes_``."""
        return np.asarray(self.model_.predict_proba(self._features(X)))

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """Predicted class labels."""
        return np.asarray(self.model_.predict(self._features(X)))


def _index_levels(X: Any, prot_attr: Any) -> list[str]:
    """The protected attributes' index level names, checked."""
    if not isinstance(X, pd.DataFrame):
        raise TypeError(
            "X must be a pandas DataFrame with the protected attributes in its index; got "
            f"{type(X).__name__}."
        )
    levels = [str(name) for name in X.index.names if name is not None]
    if prot_attr is None:
        wanted = levels
    else:
        wanted = [prot_attr] if isinstance(prot_attr, str) else [str(p) for p in prot_attr]
    if not wanted:
        raise ValueError(
            "X's index has no named levels; put the protected attributes in it, e.g. "
            "X.set_index(['sex', 'age'], drop=False), or pass prot_attr."
        )
    missing = [name for name in wanted if name not in levels]
    if missing:
        raise ValueError(
            f"prot_attr names {missing}, which are not among X's index levels {levels}."
        )
    return wanted
