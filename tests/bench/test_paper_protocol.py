"""The paper's protocol in two stages: the tuning choice, the study's grids and notions, the
estimate of its time, and the command that runs both stages."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any, cast

import pandas as pd
import pytest

from faircocco_plugins.bench import ResultsStore, RunRecord, StudyConfig, preset_config
from faircocco_plugins.bench._protocol import (
    chosen_training,
    estimate,
    plan_cells,
    tuning_config,
    tuning_store,
    with_training,
)
from faircocco_plugins.bench._study import Cell, DatasetProfile, plan_study
from faircocco_plugins.cli import main
from faircocco_plugins.plugins import Capabilities, MethodSpec, available_methods

NET_CAPABILITIES = Capabilities(
    tasks=("classification", "regression"),
    notions=("dp", "eo", "cal"),
    attributes=("binary", "categorical", "continuous"),
    outcomes=("binary", "continuous"),
    multiple_attributes="joint",
    needs_gradients=True,
)


def _spec(name: str, grid: dict[str, tuple[float, ...]]) -> MethodSpec:
    return MethodSpec(
        name=name,
        description="",
        factory=cast(Any, print),
        capabilities=NET_CAPABILITIES,
        param_grid=grid,
    )


def _tuning_runs(rows: list[tuple[str, float, int, dict[str, float]]]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "dataset": [r[0] for r in rows],
            "status": ["ok"] * len(rows),
            "params": [{"learning_rate": r[1], "batch_size": r[2]} for r in rows],
            **{
                name: [r[3].get(name, math.nan) for r in rows]
                for name in ("validation.auc", "validation.mse", "validation.single_class")
            },
        }
    )


def test_tuning_chooses_the_best_validation_auc_and_mse_and_never_a_degenerate_model() -> None:
    runs = _tuning_runs(
        [
            # the best AUC is a constant predictor: not chosen
            ("kdd", 0.01, 64, {"validation.auc": 0.95, "validation.single_class": 1.0}),
            ("kdd", 0.001, 64, {"validation.auc": 0.90, "validation.single_class": 0.0}),
            ("kdd", 0.001, 128, {"validation.auc": 0.91, "validation.single_class": 0.0}),
            ("students", 0.01, 64, {"validation.mse": 4.0}),
            ("students", 0.001, 256, {"validation.mse": 3.0}),
            # a tie goes to the first setting in grid order
            ("german", 0.01, 64, {"validation.auc": 0.7, "validation.single_class": 0.0}),
            ("german", 0.001, 64, {"validation.auc": 0.7, "validation.single_class": 0.0}),
        ]
    )
    assert chosen_training(runs) == {
        "german": {"batch_size": 64, "learning_rate": 0.01},
        "kdd": {"batch_size": 128, "learning_rate": 0.001},
        "students": {"batch_size": 256, "learning_rate": 0.001},
    }


def test_a_dataset_without_a_usable_tuning_run_gets_no_choice() -> None:
    runs = _tuning_runs([("kdd", 0.01, 64, {"validation.auc": 0.9, "validation.single_class": 1})])
    assert chosen_training(runs) == {}


def test_tuning_stage_trains_the_network_alone_on_the_first_seed() -> None:
    config = StudyConfig(
        name="paper",
        datasets=("german", "students"),
        notions=("eo", "dp", "cal"),
        seeds=(3, 4),
        grid="quick",
        grid_overrides={"lam": (1.0,)},
        fixed_params={"german": {"learning_rate": 0.1}},
        regression_notions=("eo",),
    )
    tuning = tuning_config(config)
    assert (tuning.name, tuning.methods, tuning.notions, tuning.seeds) == (
        "paper-tuning",
        ("nn",),
        ("eo",),
        (3,),
    )
    assert tuning.grid == "full" and not tuning.fixed_params and not tuning.grid_overrides
    assert tuning_store("out/paper.sqlite") == Path("out/paper-tuning.sqlite")


def test_the_study_fixes_the_chosen_parameters_and_overrides_the_strengths() -> None:
    penalty = _spec("pen", {"lam": (0.0, 1.0), "learning_rate": (0.1, 0.01), "batch_size": (64,)})
    toolkit = _spec("tool", {"eps": (0.01, 0.1)})
    config = StudyConfig(
        datasets=("german", "students"),
        seeds=(0,),
        grid_overrides={"lam": (0.5, 20.0), "bound": (0.001,)},
        fixed_params={"german": {"learning_rate": 0.01, "batch_size": 64}},
        regression_notions=("dp", "eo"),
    )
    profiles = {
        "german": DatasetProfile("german", "classification", (("sex", "binary"),), "binary"),
        "students": DatasetProfile(
            "students", "regression", (("age", "continuous"),), "continuous"
        ),
    }
    cells, skipped = plan_study(config, {"pen": penalty, "tool": toolkit}, profiles)
    assert not skipped
    german = {
        (c.method, c.notion, tuple(sorted(c.params.items())))
        for c in cells
        if c.dataset == "german"
    }
    assert {p for m, _, p in german if m == "pen"} == {
        (("batch_size", 64), ("lam", lam), ("learning_rate", 0.01)) for lam in (0.5, 20.0)
    }
    # a method without the overridden keys keeps its own grid
    assert {p for m, _, p in german if m == "tool"} == {(("eps", 0.01),), (("eps", 0.1),)}
    # no CAL on the regression dataset; the unfixed dataset keeps both learning rates
    assert {c.notion for c in cells if c.dataset == "students"} == {"dp", "eo"}
    assert {c.notion for c in cells if c.dataset == "german"} == {"dp", "eo", "cal"}
    assert {
        c.params["learning_rate"] for c in cells if c.dataset == "students" and c.method == "pen"
    } == {
        0.1,
        0.01,
    }


def _german_settings(config: StudyConfig, specs: dict[str, MethodSpec]) -> set[tuple[Any, ...]]:
    profile = DatasetProfile("german", "classification", (("sex", "binary"),), "binary")
    cells, _ = plan_study(config, specs, {"german": profile})
    return {(c.method, tuple(sorted(c.params.items()))) for c in cells}


def test_tuning_the_learning_rate_sweeps_it_for_every_method_that_has_one() -> None:
    specs = {
        "nn": _spec("nn", {"learning_rate": (0.1, 0.01, 0.001), "batch_size": (64, 256)}),
        "pen": _spec(
            "pen",
            {"learning_rate": (0.5,), "batch_size": (64, 256), "lam": (0.0, 1.0)},
        ),
        "tool": _spec("tool", {"eps": (0.01,)}),
    }
    config = StudyConfig(
        datasets=("german",), notions=("dp",), seeds=(0,), grid_overrides={"lam": (1.0, 5.0)}
    )
    chosen = {"german": {"batch_size": 256, "learning_rate": 0.01}}
    # by default, both training parameters are the tuned ones
    assert _german_settings(with_training(config, chosen), specs) == {
        ("nn", (("batch_size", 256), ("learning_rate", 0.01))),
        *(
            ("pen", (("batch_size", 256), ("lam", lam), ("learning_rate", 0.01)))
            for lam in (1.0, 5.0)
        ),
        ("tool", (("eps", 0.01),)),
    }
    # tuned: every learning rate given (in place of the method's own) at every strength, the
    # batch size still the tuned one, and a method without a learning rate unchanged
    tuned = with_training(config, chosen, learning_rates=(0.1, 0.01, 0.001))
    assert tuned.grid_overrides == {"lam": (1.0, 5.0), "learning_rate": (0.1, 0.01, 0.001)}
    assert _german_settings(tuned, specs) == {
        *(("nn", (("batch_size", 256), ("learning_rate", rate))) for rate in (0.1, 0.01, 0.001)),
        *(
            ("pen", (("batch_size", 256), ("lam", lam), ("learning_rate", rate)))
            for lam in (1.0, 5.0)
            for rate in (0.1, 0.01, 0.001)
        ),
        ("tool", (("eps", 0.01),)),
    }
    with pytest.raises(ValueError, match="learning_rates is empty"):
        with_training(config, chosen, learning_rates=())


def test_regression_notions_must_be_among_the_notions() -> None:
    with pytest.raises(ValueError, match="regression_notions"):
        StudyConfig(datasets=("a",), notions=("dp",), regression_notions=("eo",))


def _cell(
    run_id: str, dataset: str, method: str, epochs: int | None = 10, notion: str = "dp"
) -> Cell:
    settings = {} if epochs is None else {"epochs": epochs}
    return Cell(run_id, "s", dataset, method, notion, 0, {}, settings)


def _measured(
    rows: list[tuple[str, str, float, int | None]],
    notion: str = "dp",
    evaluate_seconds: list[float] | None = None,
) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "dataset": [r[0] for r in rows],
            "method": [r[1] for r in rows],
            "notion": [notion] * len(rows),
            "status": ["ok"] * len(rows),
            "fit_seconds": [r[2] for r in rows],
            "predict_seconds": [0.0] * len(rows),
            "evaluate_seconds": evaluate_seconds or [math.nan] * len(rows),
            "settings": [{} if r[3] is None else {"epochs": r[3]} for r in rows],
        }
    )


def test_estimate_scales_measured_times_by_epochs_and_by_the_networks_ratio() -> None:
    runs = _measured(
        [
            ("adult", "nn", 20.0, 10),  # 2 s an epoch
            ("adult", "nn", 40.0, 10),  # median of 2 and 4: 3 s an epoch
            ("german", "nn", 1.0, 10),  # 0.1 s an epoch
            ("german", "pen", 2.0, 10),  # twice the network's time on german
            ("adult", "tool", 7.0, None),  # no epochs: 7 s a run
        ]
    )
    cells = [
        _cell("a", "adult", "nn", epochs=20),  # 3 × 20 = 60
        _cell("b", "adult", "pen", epochs=20),  # 3 × 2 × 20 = 120 (ratio measured on german)
        _cell("c", "adult", "tool", epochs=None),  # 7
        _cell("d", "german", "other", epochs=None),  # never measured
        _cell("e", "german", "nn"),  # done already
    ]
    result = estimate(cells, runs, {"e": "ok"})
    assert (result.cells, result.done, result.remaining, result.unmeasured) == (5, 1, 4, 1)
    assert result.seconds == pytest.approx(60 + 120 + 7)
    assert "4 to run" in result.describe(jobs=2) and "1m34s" in result.describe(jobs=2)


def test_estimate_adds_the_median_evaluation_time_of_the_cells_dataset_and_notion() -> None:
    training = [("adult", "nn", 10.0, 10), ("adult", "pen", 20.0, 10), ("adult", "nn", 10.0, 10)]
    runs = pd.concat(
        [
            _measured(training, "dp", evaluate_seconds=[1.0, 3.0, 8.0]),  # median 3, any method
            _measured(training[:1], "cal", evaluate_seconds=[30.0]),
        ],
        ignore_index=True,
    )
    cells = [
        _cell("a", "adult", "pen", notion="dp"),  # 20 + 3
        _cell("b", "adult", "nn", notion="cal"),  # 10 + 30
        _cell("c", "adult", "nn", notion="eo"),  # 10, evaluation never measured
    ]
    result = estimate(cells, runs, {})
    assert result.seconds == pytest.approx(23 + 40 + 10)
    assert (result.unmeasured, result.unevaluated) == (0, 1)
    assert "plus the evaluation of 1 cells, not measured yet" in result.describe()


def test_estimate_of_an_empty_store_counts_every_cell_as_unmeasured() -> None:
    cells = [_cell("a", "adult", "nn"), _cell("b", "adult", "pen")]
    result = estimate(cells, pd.DataFrame(), {})
    assert (result.remaining, result.unmeasured, result.seconds) == (2, 2, 0.0)
    # no "about 0.0s" for cells without a measured time
    assert result.describe() == (
        "2 cells: 0 done, 2 to run; no cell has a measured time yet, so there is no time "
        "estimate (it comes from the stored runs of each cell's method)"
    )


@pytest.mark.skipif(
    "nn" not in available_methods(on_error="warn"), reason="needs the torch adapter"
)
def test_the_preset_runs_its_tuning_stage_then_the_study_with_the_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "paper.sqlite"
    arguments = [
        "bench", "--preset", "paper-cpu", "--datasets", "synthetic", "--methods", "nn",
        "--notions", "dp", "--seeds", "1", "--epochs", "1", "--warmup-epochs", "0",
        "--store", str(store),
    ]  # fmt: skip
    assert main([*arguments, "--estimate"]) == 0
    assert "paper-cpu-tuning: 9 cells: 0 done" in capsys.readouterr().out
    assert main(arguments) == 0
    with ResultsStore(tuning_store(store)) as opened:
        chosen = chosen_training(opened.runs())["synthetic"]
    with ResultsStore(store) as opened:
        runs = opened.runs()
        recorded = opened.studies()["config"].iloc[-1]
    assert runs["params"].tolist() == [chosen]
    assert recorded["fixed_params"] == {"synthetic": chosen}
    assert main([*arguments, "--estimate"]) == 0
    assert "paper-cpu: 1 cells: 1 done, 0 to run" in capsys.readouterr().out


@pytest.mark.skipif(
    "nn" not in available_methods(on_error="warn"), reason="needs the torch adapter"
)
def test_the_estimate_counts_the_cells_done_with_the_settings_the_tuning_chose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "paper.sqlite"
    chosen = {"batch_size": 256, "learning_rate": 0.001}  # not the grid's first setting
    with ResultsStore(tuning_store(store)) as opened:
        opened.add(
            RunRecord(
                run_id="t", study="paper-cpu-tuning", dataset="synthetic", method="nn",
                notion="dp", seed=0, params=chosen, settings={}, status="ok",
                metrics={"validation.auc": 0.9, "validation.single_class": 0.0},
            )
        )  # fmt: skip
    config, _ = preset_config(
        "paper-cpu", datasets=("synthetic",), methods=("nn",), notions=("dp",), seeds=(0,)
    )
    methods = available_methods(on_error="warn")
    (cell,) = plan_cells(dataclasses.replace(config, fixed_params={"synthetic": chosen}), methods)
    with ResultsStore(store) as opened:
        opened.add(RunRecord(status="ok", **dataclasses.asdict(cell)))
    arguments = [
        "bench", "--preset", "paper-cpu", "--datasets", "synthetic", "--methods", "nn",
        "--notions", "dp", "--seeds", "1", "--store", str(store), "--estimate",
    ]  # fmt: skip
    assert main(arguments) == 0
    assert "paper-cpu: 1 cells: 1 done, 0 to run" in capsys.readouterr().out


@pytest.mark.skipif(
    "nn" not in available_methods(on_error="warn"), reason="needs the torch adapter"
)
def test_tune_learning_rate_runs_every_learning_rate_at_the_tuned_batch_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "paper.sqlite"
    arguments = [
        "bench", "--preset", "paper-cpu", "--datasets", "synthetic", "--methods", "nn",
        "--notions", "dp", "--seeds", "1", "--epochs", "1", "--warmup-epochs", "0",
        "--store", str(store), "--tune-learning-rate",
    ]  # fmt: skip
    rates = available_methods(on_error="warn")["nn"].param_grid["learning_rate"]
    assert main([*arguments, "--estimate"]) == 0
    assert f"paper-cpu: {len(rates)} cells: 0 done" in capsys.readouterr().out
    assert main(arguments) == 0
    with ResultsStore(tuning_store(store)) as opened:
        chosen = chosen_training(opened.runs())["synthetic"]
    with ResultsStore(store) as opened:
        runs = opened.runs()
        recorded = opened.studies()["config"].iloc[-1]
    assert sorted(p["learning_rate"] for p in runs["params"]) == sorted(rates)
    assert {p["batch_size"] for p in runs["params"]} == {chosen["batch_size"]}
    assert recorded["fixed_params"] == {"synthetic": {"batch_size": chosen["batch_size"]}}
    assert recorded["grid_overrides"]["learning_rate"] == list(rates)


def test_tune_learning_rate_needs_a_preset_with_a_tuning_stage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["bench", "--preset", "quick", "--datasets", "synthetic", "--tune-learning-rate"])
    assert status == 2
    assert "--tune-learning-rate needs a preset with a tuning stage (paper-cpu, mixed)" in (
        capsys.readouterr().err
    )
