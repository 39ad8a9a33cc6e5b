"""The mixed-attribute study: its preset, its cells (group methods on binned groups, every run
audited) and a run of it end to end on the synthetic dataset."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins.bench import PRESETS, ResultsStore, StudyConfig, preset_config, run_study
from faircocco_plugins.bench._presets import MIXED_DATASETS, MIXED_GROUP_METHODS
from faircocco_plugins.bench._protocol import tuning_config
from faircocco_plugins.bench._study import DatasetProfile, plan_study, study_methods
from faircocco_plugins.plugins import KINDS, Capabilities, MethodSpec


def test_the_mixed_preset_runs_the_studys_datasets_methods_and_protocol() -> None:
    config, notes = preset_config("mixed")
    assert notes == []
    assert config.datasets == (
        "adult_mixed",
        "communities",
        "students",
        "law_school",
        "credit_card",
    )
    assert {"faircocco", "faircocco_path", "hsic", "facl", "farmi"} <= set(config.methods)
    assert {
        "fairlearn_expgrad",
        "fairlearn_gridsearch",
        "fairlearn_threshold",
        "fairlearn_bounded_group_loss",
        "aif360_expgrad",
        "aif360_eq_odds",
    } <= set(config.methods)
    assert config.notions == ("dp", "eo") and len(config.seeds) >= 5
    assert config.binned_groups == ("median", "quartiles") and config.audit
    assert PRESETS["mixed"].tune_training  # validation picks the training settings, as paper-cpu
    assert config.grid_overrides["base"] == ("logistic",)
    # where no attribute is continuous, the median and the quartiles build the same groups
    for method in MIXED_GROUP_METHODS:
        for dataset in ("law_school", "credit_card"):
            assert config.grid_overrides[f"{method}.groups@{dataset}"] == ("median",)
    assert not any(
        key.endswith(("@adult_mixed", "@students"))
        for key in config.grid_overrides
        if ".groups@" in key
    )
    assert set(MIXED_DATASETS) == set(config.datasets)


def _spec(name: str, attributes: tuple[str, ...], grid: dict[str, tuple[Any, ...]]) -> MethodSpec:
    capabilities = Capabilities(
        tasks=("classification",),
        notions=("dp", "eo"),
        attributes=attributes,
        outcomes=("binary",),
        multiple_attributes="joint",
        needs_gradients=False,
    )
    return MethodSpec(name, name, capabilities, factory=_Majority, param_grid=grid, quick_grid=grid)


class _Majority:
    """Predicts the majority class of each group it is given."""

    def __init__(self, **params: Any) -> None:
        self.params = params

    def fit(self, X: Any, y: Any, *, sensitive_features: pd.DataFrame) -> _Majority:
        self.columns_ = list(sensitive_features.columns)
        self.first_ = float(np.mean(y) >= 0.5)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.full(len(X), self.first_, dtype=int)


METHODS = {
    "grouper": _spec("grouper", ("binary", "categorical"), {"C": (1.0,)}),
    "kernel": _spec("kernel", KINDS, {"lam": (1.0,)}),
}


def test_group_methods_run_on_each_binned_grouping_and_every_run_is_audited() -> None:
    config = StudyConfig(
        datasets=("mixed", "nominal"),
        notions=("dp",),
        seeds=(0,),
        binned_groups=("median", "quartiles"),
        audit=True,
        grid_overrides={"grouper.groups@nominal": ("median",)},
    )
    profiles = {
        "mixed": DatasetProfile(
            "mixed", "classification", (("sex", "binary"), ("age", "continuous")), "binary"
        ),
        "nominal": DatasetProfile(
            "nominal", "classification", (("sex", "binary"), ("race", "categorical")), "binary"
        ),
    }
    cells, skipped = plan_study(config, study_methods(config, METHODS), profiles)
    assert skipped == []
    ran = sorted((c.dataset, c.method, c.params.get("groups", "")) for c in cells)
    assert ran == [
        ("mixed", "grouper", "median"),
        ("mixed", "grouper", "quartiles"),
        ("mixed", "kernel", ""),
        ("nominal", "grouper", "median"),
        ("nominal", "kernel", ""),
    ]
    assert all(cell.settings["audit"] is True for cell in cells)
    # without binned groups the group method does not apply to a continuous attribute
    plain = StudyConfig(datasets=("mixed",), notions=("dp",), seeds=(0,))
    cells, skipped = plan_study(plain, study_methods(plain, METHODS), {"mixed": profiles["mixed"]})
    assert [c.method for c in cells] == ["kernel"] and [r.method for r in skipped] == ["grouper"]
    # and a study that is not audited keeps its runs' settings, so their ids, as they were
    assert "audit" not in cells[0].settings


def test_the_study_settings_are_checked_and_the_tuning_stage_is_not_audited() -> None:
    with pytest.raises(ValueError, match="binned_groups=\\('deciles',\\) is not valid"):
        StudyConfig(datasets=("adult",), binned_groups=("deciles",))
    with pytest.raises(TypeError, match="audit must be a bool"):
        StudyConfig(datasets=("adult",), audit=1)  # type: ignore[arg-type]
    tuning = tuning_config(preset_config("mixed")[0])
    assert tuning.binned_groups == () and not tuning.audit


def test_a_mixed_study_stores_the_audit_of_each_part(tmp_path: Any) -> None:
    pytest.importorskip("dcor")
    config = StudyConfig(
        name="mixed",
        datasets=("synthetic",),
        methods=("grouper",),
        notions=("dp",),
        seeds=(0,),
        binned_groups=("median",),
        audit=True,
        max_train_rows=300,
    )
    summary = run_study(config, tmp_path / "mixed.sqlite", methods=METHODS)
    assert summary.done == 1 and summary.failed == 0
    with ResultsStore(tmp_path / "mixed.sqlite", read_only=True) as store:
        run = store.runs().iloc[0]
    assert run["params"] == {"C": 1.0, "groups": "median"}
    for part in ("validation", "test"):
        # a constant prediction: equal positive rates in every grouping, no dependence
        assert run[f"{part}.di_groups[median]"] == 1.0
        assert run[f"{part}.di_deciles[age]"] == 1.0
        assert run[f"{part}.hsic"] == 0.0 and run[f"{part}.dcor_p_value"] == 1.0
