"""Capabilities, method specs, entry-point discovery and the planning of a study's cells."""

from __future__ import annotations

import dataclasses
from importlib import metadata
from typing import Any

import pandas as pd
import pytest

from faircocco_plugins.bench import StudyConfig
from faircocco_plugins.bench._study import (
    DatasetProfile,
    plan_study,
    run_id,
    select_methods,
    study_differences,
)
from faircocco_plugins.plugins import (
    BrokenMethodWarning,
    Capabilities,
    MethodLoadError,
    MethodSpec,
    Mitigator,
    attribute_kind,
    available_methods,
    outcome_kind,
)

TORCH_METHODS = (
    "covariance",
    "facl",
    "faircocco",
    "faircocco_constraint",
    "farmi",
    "hsic",
    "linear_loss",
    "nn",
)


def _caps(**changes: Any) -> Capabilities:
    values: dict[str, Any] = {
        "tasks": ("classification",),
        "notions": ("dp", "eo"),
        "attributes": ("binary", "categorical"),
        "outcomes": ("binary",),
        "multiple_attributes": "sum",
        "needs_gradients": True,
    }
    values.update(changes)
    return Capabilities(**values)


def test_problems_name_every_unsupported_part() -> None:
    caps = _caps(multiple_attributes="single")
    assert caps.problems(task="classification", notion="dp", attributes=("binary",)) == []
    problems = caps.problems(
        task="regression",
        notion="cal",
        attributes=("binary", "continuous"),
        outcome="continuous",
    )
    assert problems == [
        "task='regression' (supported: ['classification'])",
        "notion='cal' (supported: ['dp', 'eo'])",
        "continuous sensitive attributes (supported: ['binary', 'categorical'])",
        "2 sensitive attributes (it supports one only)",
        "continuous outcomes under notion='cal' (supported: ['binary'])",
    ]


def test_outcome_kind_matters_only_under_conditional_notions() -> None:
    caps = _caps()
    assert caps.problems(notion="dp", outcome="continuous") == []
    assert caps.problems(notion="eo", outcome="continuous") != []


def test_capabilities_validate_their_values() -> None:
    with pytest.raises(ValueError, match=r"notions=.*unknown values \['di'\]"):
        _caps(notions=("dp", "di"))
    with pytest.raises(TypeError, match="tasks must be a tuple"):
        _caps(tasks="classification")
    with pytest.raises(ValueError, match="multiple_attributes='all'"):
        _caps(multiple_attributes="all")
    with pytest.raises(AttributeError):
        _caps().notions = ("dp",)  # type: ignore[misc]


def test_method_spec_settings_are_the_grid_product() -> None:
    spec = MethodSpec(
        name="m",
        description="",
        capabilities=_caps(),
        factory=lambda **kwargs: None,
        param_grid={"lr": (0.1, 0.01), "lam": (1, 2, 3)},
        quick_grid={"lam": (1,)},
        sweep_param="lam",
    )
    full = spec.settings("full")
    assert len(full) == 6
    assert full[0] == {"lam": 1, "lr": 0.1}
    assert spec.settings("quick") == [{"lam": 1}]
    assert MethodSpec(name="n", description="", capabilities=_caps(), factory=print).settings() == [
        {}
    ]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "not an identifier"}, "name="),
        ({"capabilities": "all"}, "capabilities must be a Capabilities"),
        ({"factory": 3}, "factory must be callable"),
        ({"param_grid": {"lam": ()}}, r"param_grid\['lam'\] must be a non-empty sequence"),
        ({"sweep_param": "bound"}, "sweep_param='bound' is not a key of param_grid"),
        ({"training_settings": ("epochs", "layers")}, "training_settings="),
    ],
)
def test_method_spec_rejects_bad_fields(changes: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "name": "m",
        "description": "",
        "capabilities": _caps(),
        "factory": print,
        "param_grid": {"lam": (1.0,)},
    }
    values.update(changes)
    with pytest.raises((ValueError, TypeError), match=message):
        MethodSpec(**values)


def test_torch_methods_are_found_through_entry_points() -> None:
    pytest.importorskip("faircocco_torch")
    methods = available_methods()
    assert set(TORCH_METHODS) <= set(methods)
    assert list(methods) == sorted(methods)
    for name in TORCH_METHODS:
        spec = methods[name]
        assert spec.name == name
        assert set(spec.param_grid["learning_rate"]) == {1e-2, 1e-3, 1e-4}
        assert set(spec.param_grid["batch_size"]) == {64, 128, 256}
        assert spec.training_settings == ("epochs", "warmup_epochs")
    assert methods["nn"].sweep_param is None
    assert methods["faircocco"].param_grid["lam"] == (0.0, 0.5, 1.0, 2.0, 5.0, 10.0)
    assert methods["faircocco_constraint"].sweep_param == "bound"
    # capabilities come from the penalty classes: one implementation
    from faircocco_torch import FACLPenalty, LinearLossPenalty, PenaltyCapabilities

    assert methods["facl"].capabilities is FACLPenalty.capabilities
    assert isinstance(FACLPenalty.capabilities, Capabilities)
    assert issubclass(PenaltyCapabilities, Capabilities)
    assert methods["linear_loss"].capabilities.problems(
        task="classification", notion="eo", attributes=("continuous",), outcome="binary"
    ) == LinearLossPenalty.capabilities.problems(
        notion="eo", attributes=("continuous",), outcome="binary"
    )


def test_factories_build_mitigators() -> None:
    pytest.importorskip("faircocco_torch")
    spec = available_methods()["faircocco"]
    model = spec.factory(task="regression", notion="dp", random_state=0, lam=2.0, epochs=1)
    assert isinstance(model, Mitigator)
    assert model.get_params()["lam"] == 2.0
    assert model.get_params()["notion"] == "dp"


class _FakeEntryPoint:
    def __init__(self, name: str, value: Any) -> None:
        self.name = name
        self.value = f"fake_module:{name}"
        self.dist = None
        self._value = value

    def load(self) -> Any:
        if isinstance(self._value, Exception):
            raise self._value
        return self._value


def _fake_entry_points(monkeypatch: pytest.MonkeyPatch, points: list[_FakeEntryPoint]) -> None:
    def entry_points(group: str) -> list[_FakeEntryPoint]:
        assert group == "faircocco_plugins.mitigators"
        return points

    monkeypatch.setattr(metadata, "entry_points", entry_points)


def test_broken_entry_points_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    good = MethodSpec(name="good", description="", capabilities=_caps(), factory=print)
    points = [
        _FakeEntryPoint("good", good),
        _FakeEntryPoint("missing", ModuleNotFoundError("No module named 'fairlearn'")),
        # len, not print: Ray's progress bars may replace builtins.print in this process
        _FakeEntryPoint("wrong", len),
    ]
    _fake_entry_points(monkeypatch, points)
    with pytest.raises(MethodLoadError) as raised:
        available_methods()
    message = str(raised.value)
    assert "missing = fake_module:missing: ModuleNotFoundError: No module named 'fairlearn'" in (
        message
    )
    assert "wrong = fake_module:wrong: loads to a builtin_function_or_method" in message
    with pytest.warns(BrokenMethodWarning) as warned:
        methods = available_methods(on_error="warn")
    assert ["missing" in str(w.message) for w in warned] == [True, False]
    assert list(methods) == ["good"]


def test_entry_point_name_must_match_the_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = MethodSpec(name="other", description="", capabilities=_caps(), factory=print)
    _fake_entry_points(monkeypatch, [_FakeEntryPoint("good", spec)])
    with pytest.raises(MethodLoadError, match="the MethodSpec is named 'other'"):
        available_methods()


def test_kinds_of_attributes_and_outcomes() -> None:
    assert attribute_kind(pd.Series([True, False, True])) == "binary"
    assert attribute_kind(pd.Series(["a", "b", "c"], dtype="category")) == "categorical"
    assert attribute_kind(pd.Series([0.0, 1.0, 0.0])) == "binary"
    assert attribute_kind(pd.Series([0.1, 0.5, 0.9])) == "continuous"
    assert outcome_kind(pd.Series([0, 1]), "classification") == "binary"
    assert outcome_kind(pd.Series([0, 1, 2]), "classification") == "categorical"
    assert outcome_kind(pd.Series([0.0, 1.0]), "regression") == "continuous"
    with pytest.raises(TypeError, match="column must be a pandas Series"):
        attribute_kind([1, 2])  # type: ignore[arg-type]


def test_profile_of_a_dataset(bench_loader: Any) -> None:
    profile = DatasetProfile.of(bench_loader("tiny_regression", 0))
    assert profile.task == "regression"
    assert profile.attributes == (
        ("sex", "binary"),
        ("age", "continuous"),
        ("region", "categorical"),
    )
    assert profile.outcome == "continuous"


def test_plan_separates_not_applicable_cells(bench_methods: dict[str, MethodSpec]) -> None:
    config = StudyConfig(
        name="plan", datasets=("tiny",), notions=("dp", "eo"), seeds=(0, 1), grid="full"
    )
    profile = DatasetProfile("tiny", "classification", (("sex", "binary"),), "binary")
    cells, skipped = plan_study(config, bench_methods, {"tiny": profile})
    # linear: 2 settings, failing: 1, narrow: 1 (dp only) per notion and seed
    assert len(cells) == 2 * (2 * 2 + 2 * 1 + 1)
    assert len(skipped) == 2
    assert {(r.method, r.notion, r.status) for r in skipped} == {("narrow", "eo", "not_applicable")}
    assert "narrow does not support notion='eo' (supported: ['dp'])" in skipped[0].reason
    # ordered by seed, dataset, method, notion, setting
    assert [c.seed for c in cells] == sorted(c.seed for c in cells)
    assert len({c.run_id for c in cells} | {r.run_id for r in skipped}) == len(cells) + 2


def test_plan_covers_every_dataset_at_a_seed_before_the_next_seed(
    bench_methods: dict[str, MethodSpec],
) -> None:
    config = StudyConfig(
        name="plan",
        datasets=("tiny", "small"),
        methods=("narrow",),
        notions=("dp",),
        seeds=(0, 1),
    )
    profile = DatasetProfile("tiny", "classification", (("sex", "binary"),), "binary")
    profiles = {"tiny": profile, "small": dataclasses.replace(profile, name="small")}
    cells, _ = plan_study(config, {"narrow": bench_methods["narrow"]}, profiles)
    assert [(c.seed, c.dataset) for c in cells] == [
        (0, "tiny"),
        (0, "small"),
        (1, "tiny"),
        (1, "small"),
    ]


def test_plan_refuses_several_attributes_for_single_attribute_methods(
    bench_methods: dict[str, MethodSpec],
) -> None:
    config = StudyConfig(datasets=("tiny",), methods=("narrow",), notions=("dp",), seeds=(0,))
    profile = DatasetProfile(
        "tiny", "classification", (("sex", "binary"), ("age", "continuous")), "binary"
    )
    cells, skipped = plan_study(config, {"narrow": bench_methods["narrow"]}, {"tiny": profile})
    assert cells == []
    assert "continuous sensitive attributes" in skipped[0].reason
    assert "2 sensitive attributes (it supports one only)" in skipped[0].reason


def test_run_id_depends_on_what_changes_the_result() -> None:
    base: dict[str, Any] = {
        "study": "s",
        "dataset": "german",
        "method": "nn",
        "notion": "eo",
        "seed": 0,
        "params": {"lr": 0.01},
        "settings": {"epochs": 5},
    }
    reference = run_id(**base)
    assert run_id(**base) == reference
    for key, value in [
        ("study", "t"),
        ("seed", 1),
        ("params", {"lr": 0.001}),
        ("settings", {"epochs": 6}),
        ("notion", "dp"),
    ]:
        assert run_id(**{**base, key: value}) != reference


def test_training_settings_reach_only_methods_that_take_them(
    bench_methods: dict[str, MethodSpec],
) -> None:
    config = StudyConfig(
        datasets=("tiny",), notions=("dp",), seeds=(0,), epochs=3, max_train_rows=50
    )
    profile = DatasetProfile("tiny", "classification", (("sex", "binary"),), "binary")
    cells, _ = plan_study(config, {"linear": bench_methods["linear"]}, {"tiny": profile})
    assert cells[0].settings == {"max_train_rows": 50}


def test_study_config_and_method_selection_errors(bench_methods: dict[str, MethodSpec]) -> None:
    with pytest.raises(ValueError, match="datasets is empty"):
        StudyConfig()
    with pytest.raises(ValueError, match="notions="):
        StudyConfig(datasets=("a",), notions=("dp", "fair"))
    with pytest.raises(ValueError, match="seeds="):
        StudyConfig(datasets=("a",), seeds=(-1,))
    with pytest.raises(ValueError, match="warmup_epochs=5 is larger than epochs=2"):
        StudyConfig(datasets=("a",), epochs=2, warmup_epochs=5)
    with pytest.raises(ValueError, match=r"unknown methods \['nope'\]; available"):
        select_methods(bench_methods, ["linear", "nope"])
    assert list(select_methods(bench_methods, ["narrow", "linear"])) == ["narrow", "linear"]


def test_every_setting_but_the_data_directory_tells_studies_apart() -> None:
    """A store holds one study: each setting that can change its runs counts, new ones too."""
    config = StudyConfig(name="s", datasets=("german",), seeds=(0, 1))
    recorded = config.to_dict()
    assert study_differences(recorded, config) == []
    changes = {
        "name": "t",
        "datasets": ("adult",),
        "methods": ("nn",),
        "notions": ("dp",),
        "seeds": (0,),
        "grid": "quick",
        "epochs": 3,
        "warmup_epochs": 1,
        "max_train_rows": 100,
        "max_eval_rows": 100,
    }
    for name, value in changes.items():
        other = dataclasses.replace(config, **{name: value})
        assert [d.split(":")[0] for d in study_differences(recorded, other)] == [name]
    assert study_differences(recorded, dataclasses.replace(config, data_dir="elsewhere")) == []
    # a record of an older version, without a setting, has that setting's default
    older = {k: v for k, v in recorded.items() if k != "max_eval_rows"}
    assert study_differences(older, config) == []
    assert study_differences(older, dataclasses.replace(config, max_eval_rows=50)) == [
        "max_eval_rows: None in the store, 50 here"
    ]
