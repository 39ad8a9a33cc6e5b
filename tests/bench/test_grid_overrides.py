"""Per-method grid overrides, and the ``paper-cpu`` study extended by them."""

from __future__ import annotations

import dataclasses
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, cast

import pytest

from faircocco_plugins.bench import ResultsStore, RunRecord, StudyConfig, preset_config
from faircocco_plugins.bench._export import import_export, read_export, records_of
from faircocco_plugins.bench._presets import PAPER_DATASETS
from faircocco_plugins.bench._protocol import chosen_training, tuning_config
from faircocco_plugins.bench._study import DatasetProfile, cell_differences, plan_study
from faircocco_plugins.plugins import Capabilities, MethodSpec, available_methods

COMMITTED = Path(__file__).parents[2] / "docs" / "results" / "paper"
CAPABILITIES = Capabilities(
    tasks=("classification", "regression"),
    notions=("dp", "eo", "cal"),
    attributes=("binary", "categorical", "continuous"),
    outcomes=("binary", "continuous"),
    multiple_attributes="joint",
    needs_gradients=True,
)


def _spec(name: str) -> MethodSpec:
    return MethodSpec(
        name=name,
        description="",
        factory=cast(Any, print),
        capabilities=CAPABILITIES,
        param_grid={"lam": (0.0, 1.0), "learning_rate": (0.1,)},
    )


def _run(method: str, lam: float) -> RunRecord:
    return RunRecord(
        run_id="r", study="s", dataset="german", method=method, notion="eo", seed=0,
        params={"lam": lam, "learning_rate": 0.1}, settings={}, status="ok",
    )  # fmt: skip


def test_a_methods_own_override_replaces_the_shared_one_for_that_method_alone() -> None:
    config = StudyConfig(
        name="s",
        datasets=("german",),
        seeds=(0,),
        grid_overrides={"lam": (0.5, 1.0), "pen.lam": (1.0, 50.0)},
    )
    assert [s["lam"] for s in config.settings_of(_spec("pen"), "german")] == [1.0, 50.0]
    assert [s["lam"] for s in config.settings_of(_spec("other"), "german")] == [0.5, 1.0]
    # a run lies inside the recorded configuration by its own method's grid
    recorded = config.to_dict()
    assert cell_differences(recorded, _run("pen", 50.0)) == []
    assert cell_differences(recorded, _run("other", 50.0)) == [
        "lam: [0.5, 1.0] in the store, 50.0 here"
    ]


def test_a_methods_override_on_one_dataset_replaces_its_own_there_alone() -> None:
    config = StudyConfig(
        name="s",
        datasets=("german", "adult"),
        seeds=(0,),
        grid_overrides={"lam": (0.5,), "pen.lam": (1.0, 50.0), "pen.lam@german": (1.0, 500.0)},
    )
    assert [s["lam"] for s in config.settings_of(_spec("pen"), "german")] == [1.0, 500.0]
    assert [s["lam"] for s in config.settings_of(_spec("pen"), "adult")] == [1.0, 50.0]
    assert [s["lam"] for s in config.settings_of(_spec("other"), "german")] == [0.5]
    recorded = config.to_dict()
    assert cell_differences(recorded, _run("pen", 500.0)) == []
    assert cell_differences(recorded, _run("pen", 50.0)) == [
        "lam: [1.0, 500.0] in the store, 50.0 here"
    ]


@pytest.mark.parametrize(
    "key", [".lam", "pen.", "a.pen.lam", "", "lam@german", "pen.lam@", "a.b@c@d"]
)
def test_a_malformed_override_key_is_refused(key: str) -> None:
    with pytest.raises(ValueError, match=f"grid_overrides has the key '{key}'; expected"):
        StudyConfig(datasets=("german",), grid_overrides={key: (1.0,)})


#: The paper's datasets by task and kinds (loading KDD Census to find them takes minutes).
PROFILES = {
    profile.name: profile
    for profile in (
        DatasetProfile("adult", "classification", (("sex", "binary"),), "binary"),
        DatasetProfile("compas", "classification", (("race", "binary"),), "binary"),
        DatasetProfile("german", "classification", (("foreign_worker", "binary"),), "binary"),
        DatasetProfile("drugs", "classification", (("ethnicity", "binary"),), "binary"),
        DatasetProfile(
            "communities",
            "regression",
            tuple(
                (name, "continuous")
                for name in ("racepctblack", "racePctWhite", "racePctAsian", "racePctHisp")
            ),
            "continuous",
        ),
        DatasetProfile(
            "students", "regression", (("age", "continuous"), ("sex", "binary")), "continuous"
        ),
        DatasetProfile(
            "kdd_census",
            "classification",
            (("sex", "binary"), ("race", "binary"), ("age", "continuous")),
            "binary",
        ),
        DatasetProfile(
            "credit_card",
            "classification",
            (("sex", "binary"), ("marriage", "categorical"), ("education", "categorical")),
            "binary",
        ),
        DatasetProfile(
            "law_school", "classification", (("male", "binary"), ("race", "categorical")), "binary"
        ),
    )
}


def test_the_extended_paper_study_keeps_every_committed_run_and_adds_the_new_arms(
    tmp_path: Path,
) -> None:
    if "faircocco_paper" not in {
        e.name for e in entry_points(group="faircocco_plugins.mitigators")
    }:
        pytest.skip("faircocco-torch is not installed with its entry points")
    config, _ = preset_config("paper-cpu", datasets=PAPER_DATASETS)
    import_export(COMMITTED / "tuning.csv.gz", tmp_path / "tuning.sqlite")
    with ResultsStore(tmp_path / "tuning.sqlite", read_only=True) as tuning:
        fixed = chosen_training(tuning.runs(tuning_config(config).name))
    config = dataclasses.replace(config, fixed_params=fixed)
    methods = available_methods()
    cells, skipped = plan_study(config, methods, PROFILES)

    def grid(method: str, dataset: str | None = None) -> set[Any]:
        return {
            c.params.get("lam", c.params.get("target"))
            for c in cells
            if c.method == method and dataset in (None, c.dataset)
        }

    shared = {0.5, 1.0, 2.0, 5.0, 10.0, 20.0}
    stronger = shared | {50.0, 100.0, 200.0}
    assert grid("faircocco", "adult") == grid("facl", "adult") == grid("hsic", "german") == stronger
    assert grid("farmi", "drugs") == grid("covariance", "adult") == grid("linear_loss") == shared
    # grids that go on where their score still fell at their largest weight
    assert grid("faircocco", "communities") == grid("hsic", "adult") == stronger | {500, 1000}
    assert grid("facl", "german") == grid("facl", "law_school") == stronger | {500, 1000}
    assert grid("farmi", "adult") == stronger | {500, 1000}
    assert grid("farmi", "german") == grid("covariance", "credit_card") == stronger
    assert grid("faircocco_path") == {"halve", "gap"}
    assert {(c.dataset, c.notion) for c in cells if c.method == "faircocco_path"} == {
        (c.dataset, c.notion) for c in cells if c.method == "faircocco"
    }
    paper = [c for c in cells if c.method == "faircocco_paper"]
    assert grid("faircocco_paper") == {0.5, 1.0, 2.0, 5.0}
    assert {(c.dataset, c.notion) for c in paper} == {
        (d, n) for d in ("adult", "compas", "german", "drugs") for n in ("dp", "eo")
    }
    assert len(paper) == 8 * 5 * 4
    # no warm-up: the study's warmup_epochs does not reach the paper's arm
    assert {tuple(sorted(c.settings.items())) for c in paper} == {
        (("epochs", 20), ("max_train_rows", 30_000))
    }

    planned = {c.run_id for c in cells} | {r.run_id for r in skipped}
    committed = records_of(read_export(COMMITTED / "runs.csv.gz"))
    installed = [r for r in committed if r.method in methods]
    assert {r.method for r in installed} >= {"nn", "faircocco", "facl", "hsic", "farmi"}
    missing = [(r.dataset, r.method, r.notion, r.seed, r.params) for r in installed]
    assert [m for m, r in zip(missing, installed, strict=True) if r.run_id not in planned] == []
    # the methods of another environment (AIF360's): each run lies inside the configuration
    recorded = config.to_dict()
    elsewhere = [r for r in committed if r.method not in methods]
    assert [r.run_id for r in elsewhere if cell_differences(recorded, r)] == []
