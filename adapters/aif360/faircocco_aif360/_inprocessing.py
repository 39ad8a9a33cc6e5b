"""FairCOCCO learning as an AIF360 in-processing algorithm."""

from __future__ import annotations

from typing import Any, Unpack

import numpy as np
from aif360.algorithms import Transformer

from faircocco_plugins.plugins import statistic_default

from ._conversion import (
    check_label_roles,
    feature_columns,
    features,
    label_roles,
    outcome,
    protected,
    task_of,
)
from ._network import NetworkKeywords, PenalisedNetwork, takes_network


class FairCOCCOInprocessing(PenalisedNetwork, Transformer):
    """The paper's network trained with the FairCOCCO penalty, as an AIF360 ``Transformer``.

    ``fit`` trains on ``dataset.features`` with the penalty on **all**
    ``dataset.protected_attribute_names`` jointly, at their raw values: a continuous attribute
    stays continuous, and several attributes are one joint attribute, so dependence on their
    combination is penalised too. ``predict`` returns a copy of the dataset with ``scores``
    (the probability of the favourable label; the prediction for regression) and ``labels``
    set. Instance weights (from ``Reweighing``, say) are honoured by training on rows drawn in
    proportion to them.

    A ``BinaryLabelDataset`` is classified; any other ``StructuredDataset`` with one label
    column (a ``RegressionDataset``) is regressed.

    Parameters
    ----------
    notion : {"dp", "eo", "cal", "eopp"}
        The fairness notion the penalty enforces.
    lam : float
        The penalty's weight.
    protected_as_features : bool
        Whether the protected attributes are also model inputs. ``False`` (the default) is
        fairness through unawareness on top of the penalty.
    target : "halve" or dict, optional
        A fairness target instead of a weight: the network is trained along a warm-started
        path of growing λ and the most accurate step that meets the target on held-out rows is
        kept (``faircocco_torch.FairCOCCOPathClassifier``; ``{"di": 0.8}``,
        ``{"deo": 0.05}``, ``{"adjusted_score": x}`` or ``"halve"``). ``lam`` and
        ``warmup_epochs`` are then unused, and ``epochs`` is the unpenalised warm-up's. The
        target is defined as for the path (:mod:`faircocco_plugins.targets`): DI and DEO over
        each protected attribute's groups (continuous ones in ``bins`` quantile bins), met
        only where their bound at ``confidence`` meets it, as is the adjusted score.
    confidence : float
        In (0, 1): with a ``target``, a step meets it only where its bound at this confidence
        on the held-out rows does (as ``faircocco_torch.FairCOCCOPathClassifier``'s).
    bins : int
        With a ``target``: quantile bins of a continuous protected attribute, at least 2.
    intersections : bool
        With a DI or DEO ``target``: whether it applies to the intersections of the protected
        attributes' groups too.
    kernel, hidden_layer_sizes, batch_size, learning_rate, epochs, warmup_epochs, weight_decay,
    verbose
        The network's training, as in ``faircocco_torch.FairCOCCOClassifier``.
    random_state : int or None
        Seeds the initial weights, the batches and the weighted resampling.

    Attributes
    ----------
    model_ : FairCOCCOClassifier or FairCOCCORegressor
        The trained network (a ``FairCOCCOPathClassifier`` or ``FairCOCCOPathRegressor``,
        whose ``path_`` shows each step, with a ``target``).
    feature_names_ : list of str
        The input columns, in order.
    task_ : {"classification", "regression"}
    label_roles_ : dict of float to str
        Classification: the role (``"favourable"`` or ``"unfavourable"``) of each label of
        the dataset fitted on.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from aif360.datasets import BinaryLabelDataset
    >>> from faircocco_aif360 import FairCOCCOInprocessing
    >>> rng = np.random.default_rng(0)
    >>> age = rng.uniform(18, 80, 400)
    >>> df = pd.DataFrame({"x": rng.normal(size=400) + age / 40, "age": age})
    >>> df["y"] = (df["x"] > 1).astype(float)
    >>> data = BinaryLabelDataset(df=df, label_names=["y"], protected_attribute_names=["age"])
    >>> algorithm = FairCOCCOInprocessing(notion="dp", lam=1.0, epochs=5, random_state=0)
    >>> predicted = algorithm.fit_predict(data)
    >>> predicted.scores.shape, bool(((predicted.scores >= 0) & (predicted.scores <= 1)).all())
    ((400, 1), True)
    """

    @takes_network
    def __init__(
        self,
        notion: str = statistic_default("notion", "in-processing"),
        lam: float = 1.0,
        *,
        protected_as_features: bool = False,
        target: Any = None,
        confidence: float = 0.9,
        bins: int = 4,
        intersections: bool = False,
        random_state: int | None = None,
        **network: Unpack[NetworkKeywords],
    ) -> None:
        # the parameters AIF360 records in each output dataset's metadata
        super().__init__(
            notion=notion,
            lam=lam,
            protected_as_features=protected_as_features,
            target=target,
            confidence=confidence,
            bins=bins,
            intersections=intersections,
            random_state=random_state,
            **network,
        )
        self._set_parameters(notion, lam, random_state, network)
        self.protected_as_features = protected_as_features
        self.target = target
        self.confidence = confidence
        self.bins = bins
        self.intersections = intersections

    def fit(self, dataset: Any) -> FairCOCCOInprocessing:
        """Train the network on ``dataset``.

        Parameters
        ----------
        dataset : BinaryLabelDataset or RegressionDataset
            Training data; its protected attributes are penalised jointly.

        Returns
        -------
        FairCOCCOInprocessing
            ``self``.
        """
        self.task_ = task_of(dataset)
        self.feature_names_ = feature_columns(
            dataset, protected_as_features=self.protected_as_features
        )
        self.protected_attribute_names_ = list(dataset.protected_attribute_names)
        if self.task_ == "classification":
            self.label_roles_ = label_roles(dataset)
        self.model_ = self._train(
            self.task_,
            features(dataset, self.feature_names_),
            outcome(dataset, self.task_),
            protected(dataset),
            dataset.instance_weights,
        )
        return self

    def predict(self, dataset: Any) -> Any:
        """A copy of ``dataset`` with the network's ``scores`` and ``labels``.

        Parameters
        ----------
        dataset : BinaryLabelDataset or RegressionDataset
            Data of the kind the model was fitted on, with the same feature columns. Its
            labels may be recoded (1/0 at fit, 2/7 here: read by their roles), but a label
            may not change roles (favourable at fit, unfavourable here): that raises a
            ``ValueError``.

        Returns
        -------
        BinaryLabelDataset or RegressionDataset
            For classification, ``scores`` is the probability of the favourable label and
            ``labels`` the favourable label where it is at least 0.5 (the unfavourable one
            otherwise); for regression both are the predictions. The input is not modified.
        """
        if not hasattr(self, "model_"):
            raise ValueError(
                "This FairCOCCOInprocessing instance is not fitted yet; call fit(dataset) first."
            )
        task = task_of(dataset)
        if task != self.task_:
            raise ValueError(
                f"dataset is a {task} dataset but the model was fitted for {self.task_}."
            )
        X = features(dataset, self.feature_names_)
        out = dataset.copy()  # shallow: scores and labels are replaced, not written into
        if task == "classification":
            check_label_roles(dataset, self.label_roles_)
            scores = self.model_.predict_proba(X)[:, 1]
            labels = np.where(scores >= 0.5, dataset.favorable_label, dataset.unfavorable_label)
        else:
            scores = labels = self.model_.predict(X)
        out.scores = np.asarray(scores, dtype=np.float64).reshape(-1, 1)
        out.labels = np.asarray(labels, dtype=np.float64).reshape(-1, 1)
        return out
