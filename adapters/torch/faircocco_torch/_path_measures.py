"""What the λ-path estimators measure on their validation rows after each step."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import torch
from sklearn.metrics import balanced_accuracy_score, roc_auc_score
from torch import nn

from faircocco_plugins.gaps import disparate_impact_ratios, farthest_from_parity
from faircocco_plugins.plugins import notion_named, statistic_default
from faircocco_plugins.targets import (
    AUC_FLOOR,
    Target,
    TargetSettings,
    adjusted_score_columns,
    certification_limit,
    target_columns,
)

from ._batches import TensorTriple
from ._encoding import SensitiveSchema

#: A classifier whose validation balanced accuracy is below this is too near one class to keep.
BALANCED_ACCURACY_FLOOR = 0.55


def _near_degenerate(positive_rate: float, base_rate: float, balanced_accuracy: float) -> bool:
    """Whether a classifier is near one class: its positive rate below a third of the base
    rate, or above 1 − (1 − base rate)/3, or its balanced accuracy below
    :data:`BALANCED_ACCURACY_FLOOR`."""
    return bool(
        positive_rate < base_rate / 3
        or positive_rate > 1 - (1 - base_rate) / 3
        or balanced_accuracy < BALANCED_ACCURACY_FLOOR
    )


def attribute_frame(
    sensitive: torch.Tensor,
    schema: SensitiveSchema,
    units: Mapping[str, tuple[float, float]] | None = None,
) -> pd.DataFrame:
    """The attributes of encoded rows, one column each, with the kinds they had when raw.

    Nominal attributes get their levels back (as categoricals, so that the score gives them
    delta kernels); numeric ones their raw values where ``units`` gives their mean and scale
    (``numeric_units`` of the encoder, so that groups are named in the attribute's units),
    else their standardised values, which have the same quantile bins and, under the
    median-bandwidth Gaussian, the same score as the raw ones.
    """
    values = sensitive.detach().cpu().double().numpy()
    columns: dict[str, Any] = {}
    for spec in schema.attributes:
        block = values[:, list(spec.columns)]
        if not spec.levels:
            mean, scale = (units or {}).get(spec.name, (0.0, 1.0))
            # to the float32 precision the encoded values have: 0 stays 0, not 1e-9
            digits = 7 - math.ceil(math.log10(max(abs(mean), scale)))
            columns[spec.name] = np.round(block[:, 0] * scale + mean, digits) + 0.0
            continue
        codes = block.argmax(axis=1) if spec.kind == "categorical" else block[:, 0].round()
        levels = np.asarray(spec.levels, dtype=object)[codes.astype(int)]
        columns[spec.name] = pd.Categorical(levels, categories=list(spec.levels))
    return pd.DataFrame(columns)


class ValidationMeasures:
    """The measures of one step on the validation rows, in the columns of ``path_``.

    Classification: ``accuracy``, ``auc`` (one-vs-rest for several classes; NaN when a class is
    missing from the rows), ``adjusted_score`` (of the predicted probabilities, as the harness
    scores them) and ``adjusted_score_bound`` (its upper bound at the settings' confidence,
    :func:`faircocco_plugins.targets.adjusted_score_columns`), and for two classes the DI and DEO
    columns of :func:`faircocco_plugins.targets.target_columns` (each grouping's value, the worst,
    and the worst bound at the settings' confidence) and ``di_ratio`` (the paper's ``P(Ŷ=1 | A=1) /
    P(Ŷ=1 | A=0)`` with ``A=1`` the group with the fewest positive outcomes,
    :func:`faircocco_plugins.gaps.disparate_impact_ratio`; of several attributes, the one farthest
    from 1). Regression: ``mse`` in the target's units, ``r2``, ``adjusted_score`` and
    ``adjusted_score_bound``. Both: ``degenerate``; for two classes also ``positive_rate`` and
    ``balanced_accuracy``, and a step is degenerate when near one class
    (:data:`BALANCED_ACCURACY_FLOOR`, :func:`_near_degenerate`).
    """

    def __init__(
        self,
        val_data: TensorTriple,
        schema: SensitiveSchema,
        *,
        task: str,
        notion: str,
        y_scale: float = 1.0,
        units: Mapping[str, tuple[float, float]] | None = None,
        settings: TargetSettings | None = None,
        kernel: str = statistic_default("kernel"),
    ) -> None:
        if not math.isfinite(y_scale * y_scale):
            raise ValueError(
                f"y's standard deviation ({y_scale:.3g}) is too large for the validation MSE, "
                "reported in y's units, to be a float64 (it must be below about 1.3e154); "
                f"rescale y, e.g. divide it by {y_scale:.0e}, and multiply the predictions back."
            )
        self.features, self.targets, sensitive = val_data
        self.frame = attribute_frame(sensitive, schema, units)
        self.task = task
        self.notion = notion
        self.kernel = kernel
        self.y_scale = y_scale
        self.settings = TargetSettings() if settings is None else settings

    def __call__(self, model: nn.Module) -> dict[str, Any]:
        outputs = self.outputs(model)
        if self.task == "classification":
            return self._classification(outputs)
        return self._regression(outputs)

    def outputs(self, model: nn.Module) -> torch.Tensor:
        """The model's outputs on the validation rows, on the host."""
        device = next(model.parameters()).device
        was_training = model.training
        model.eval()
        with torch.no_grad():
            outputs = model(self.features.to(device)).detach().cpu().double()
        model.train(was_training)
        return outputs

    def certification_limit(self, model: nn.Module, target: Target) -> str | None:
        """Why the validation rows cannot certify ``target`` (as
        :func:`faircocco_plugins.targets.certification_limit`, at the model's predictions)."""
        if self.task != "classification" or self.outputs(model).ndim != 1:
            return None
        predicted = (self.outputs(model) > 0).numpy()
        return certification_limit(
            target, self.targets.numpy() == 1, predicted, self.frame, settings=self.settings
        )

    def _classification(self, logits: torch.Tensor) -> dict[str, Any]:
        codes = self.targets.long().numpy()
        if logits.ndim == 1:
            positive = torch.sigmoid(logits).numpy()
            proba: np.ndarray = positive
            predicted = (logits > 0).long().numpy()
            truth: np.ndarray = codes.astype(float)
        else:
            proba = torch.softmax(logits, dim=1).numpy()
            predicted = logits.argmax(dim=1).numpy()
            truth = np.eye(proba.shape[1])[codes]
        auc = math.nan
        if np.unique(codes).size == (2 if proba.ndim == 1 else proba.shape[1]):
            auc = float(roc_auc_score(codes, proba, multi_class="ovr"))
        row: dict[str, Any] = {
            "accuracy": float(np.mean(predicted == codes)),
            "auc": auc,
            **self._adjusted(proba, truth),
        }
        if proba.ndim == 1:
            chosen, positives = predicted == 1, codes == 1
            row.update(target_columns(positives, chosen, self.frame, settings=self.settings))
            ratios = disparate_impact_ratios(positives, chosen, self.frame)
            row["di_ratio"] = farthest_from_parity(ratios)
        else:
            row.update(dict.fromkeys(("di", "di_bound", "di_ratio", "deo", "deo_bound"), math.nan))
        row["positive_rate"], row["balanced_accuracy"] = math.nan, math.nan
        near = False
        if proba.ndim == 1:
            row["positive_rate"] = float(np.mean(predicted == 1))
            row["balanced_accuracy"] = float(balanced_accuracy_score(codes, predicted))
            near = _near_degenerate(
                row["positive_rate"], float(np.mean(codes == 1)), row["balanced_accuracy"]
            )
        row["degenerate"] = bool(np.unique(predicted).size <= 1 or auc <= AUC_FLOOR or near)
        return row

    def _regression(self, outputs: torch.Tensor) -> dict[str, Any]:
        pred = outputs.reshape(-1).numpy()
        truth = self.targets.double().numpy()
        # both in the target's standardised units
        mse = float(np.mean((pred - truth) ** 2))
        variance = float(np.var(truth))
        r2 = 1.0 - mse / variance if variance > 0 else math.nan
        return {
            "mse": mse * self.y_scale**2,
            "r2": r2,
            **self._adjusted(pred, truth),
            # an R² of NaN (a constant target on the rows) is no evidence of collapse
            "degenerate": bool(r2 <= 0.0),
        }

    def _adjusted(self, pred: np.ndarray, truth: np.ndarray) -> dict[str, float]:
        """``adjusted_score`` and ``adjusted_score_bound``
        (:func:`faircocco_plugins.targets.adjusted_score_columns`)."""
        y_true = notion_named(self.notion).outcome(truth)
        return adjusted_score_columns(
            pred,
            self.frame,
            y_true=y_true,
            notion=self.notion,
            kernel=self.kernel,
            settings=self.settings,
        )
