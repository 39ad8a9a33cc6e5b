"""Running studies: statuses, the fair protocol, skipping completed cells, local processes."""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins.bench import PlainProgress, ResultsStore, StudyConfig, run_study
from faircocco_plugins.bench._runner import _parts, execute_cell
from faircocco_plugins.bench._study import DatasetProfile, plan_study
from faircocco_plugins.datasets import DataFile, DatasetSource, LoadedTable, _registry
from faircocco_plugins.plugins import DegenerateModelWarning, MethodSpec, available_methods

NOTIONS = ("dp", "eo")


def _run(tmp_path: Path, methods: dict[str, MethodSpec], loader: Any, **config: Any) -> Any:
    settings: dict[str, Any] = {
        "name": "t",
        "datasets": ("tiny", "tiny_regression"),
        "notions": NOTIONS,
        "seeds": (0, 1),
    }
    settings.update(config)
    return run_study(
        StudyConfig(**settings), tmp_path / "runs.sqlite", methods=methods, loader=loader
    )


def test_every_cell_is_recorded_with_its_status(
    tmp_path: Path, bench_methods: dict[str, MethodSpec], bench_loader: Any
) -> None:
    summary = _run(tmp_path, bench_methods, bench_loader)
    runs = ResultsStore(tmp_path / "runs.sqlite").runs("t")
    # per dataset and seed: linear 2 settings × 2 notions, failing 2, narrow 2
    assert summary.total == len(runs) == 2 * 2 * (4 + 2 + 2)
    counts = runs["status"].value_counts().to_dict()
    assert counts == {"ok": 16, "failed": 8, "not_applicable": 8}
    assert (summary.done, summary.failed, summary.not_applicable) == (16, 8, 8)
    assert summary.skipped == 0 and not summary.interrupted

    failed = runs[runs["status"] == "failed"]
    assert set(failed["reason"]) == {"fit: RuntimeError: the optimiser diverged (second line)"}
    assert failed["n_train"].notna().all()

    skipped = runs[runs["status"] == "not_applicable"]
    assert set(skipped["method"]) == {"narrow"}
    reasons = set(skipped["reason"])
    # classification: several attributes of unsupported kinds; regression: also the task
    assert any("continuous sensitive attributes" in r for r in reasons)
    assert any("task='regression'" in r for r in reasons)
    assert all("3 sensitive attributes (it supports one only)" in r for r in reasons)

    ok = runs[runs["status"] == "ok"]
    classification = ok[ok["dataset"] == "tiny"]
    regression = ok[ok["dataset"] == "tiny_regression"]
    assert classification["test.accuracy"].between(0, 1).all()
    assert classification["test.mse"].isna().all()
    assert regression["test.mse"].notna().all()
    for part in ("validation", "test"):
        # each run is scored for the notion it was trained for, and only for it
        for notion, runs_of in ok.groupby("notion"):
            assert runs_of[f"{part}.faircocco_{notion}"].between(0, 1).all()
            assert runs_of[f"{part}.faircocco_{notion}[age]"].notna().all()
            others = [n for n in ("dp", "eo", "cal") if n != notion]
            other_columns = runs_of.reindex(columns=[f"{part}.faircocco_{n}" for n in others])
            assert other_columns.isna().all(axis=None)
        assert ok[f"{part}.deo[region]"].notna().all()
    # the same N for every method of a split: 60/20/20 of 150 rows
    assert set(ok["n_validation"]) == {30} and set(ok["n_test"]) == {30}
    for stage in ("fit", "predict", "evaluate"):
        assert (ok[f"{stage}_seconds"] > 0).all(), stage
    assert ok["versions"].map(lambda v: "numpy" in v and "python" in v).all()


def test_rerunning_skips_completed_cells(
    tmp_path: Path, bench_methods: dict[str, MethodSpec], bench_loader: Any
) -> None:
    calls: list[tuple[str, int]] = []

    def counting(name: str, seed: int) -> Any:
        calls.append((name, seed))
        return bench_loader(name, seed)

    _run(tmp_path, bench_methods, counting)
    before = ResultsStore(tmp_path / "runs.sqlite").runs("t")
    calls.clear()
    again = _run(tmp_path, bench_methods, counting)
    assert (again.done, again.failed, again.skipped) == (0, 0, 24)
    # datasets are read only for their kinds of attributes (first seed), not to run cells
    assert set(calls) <= {("tiny", 0), ("tiny_regression", 0)}
    after = ResultsStore(tmp_path / "runs.sqlite").runs("t")
    pd.testing.assert_frame_equal(before, after)

    # failed cells are not retried by default
    retry = _run(tmp_path, bench_methods, counting)
    assert retry.done == retry.failed == 0
    retry = run_study(
        StudyConfig(name="t", datasets=("tiny", "tiny_regression"), notions=NOTIONS, seeds=(0, 1)),
        tmp_path / "runs.sqlite",
        methods=bench_methods,
        loader=counting,
        retry_failed=True,
        jobs=1,
    )
    assert (retry.done, retry.failed) == (0, 8)


def test_a_store_holds_one_study_configuration(
    tmp_path: Path, bench_methods: dict[str, MethodSpec], bench_loader: Any
) -> None:
    """A study run first on synthetic stand-ins and then on other datasets would mix both in
    one report under two configurations: the store refuses the second."""
    _run(tmp_path, bench_methods, bench_loader, datasets=("tiny",))
    path = tmp_path / "runs.sqlite"
    before = ResultsStore(path).studies()
    with pytest.raises(ValueError) as raised:
        _run(tmp_path, bench_methods, bench_loader, datasets=("tiny", "tiny_regression"))
    message = str(raised.value)
    assert message.startswith(f"{path} holds a study of another configuration (datasets: ")
    assert "['tiny'] in the store, ['tiny', 'tiny_regression'] here" in message
    assert "write this study to a new store (faircocco bench --store PATH" in message
    with pytest.raises(ValueError, match=r"\(name: 't' in the store, 'u' here; seeds: "):
        _run(tmp_path, bench_methods, bench_loader, datasets=("tiny",), name="u", seeds=(0,))
    pd.testing.assert_frame_equal(ResultsStore(path).studies(), before)
    # where the raw files are read from does not change the study
    again = _run(tmp_path, bench_methods, bench_loader, datasets=("tiny",), data_dir="elsewhere")
    assert again.skipped == len(ResultsStore(path).runs()) - again.not_applicable


def _file_dataset(folder: Path) -> DatasetSource:
    """A one-file dataset ``filed`` (``<dir>/filed/filed.csv``), its file written to ``folder``."""
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"x": rng.normal(size=100), "group": rng.choice(["a", "b"], 100)})
    table["y"] = (table["x"] > 0).astype(int)
    content = table.to_csv(index=False).encode()
    (folder / "filed").mkdir(parents=True)
    (folder / "filed" / "filed.csv").write_bytes(content)
    raw = DataFile(
        "filed", "filed.csv", sha256=hashlib.sha256(content).hexdigest(), size=len(content)
    )

    def load(paths: Any) -> LoadedTable:
        frame = pd.read_csv(paths["filed.csv"])
        return LoadedTable(frame[["x"]], frame["y"], frame[["group"]])

    return DatasetSource("filed", "classification", {"group": "binary"}, load, files=(raw,))


@pytest.mark.parametrize("source", ["data_dir", "$FAIRCOCCO_DATA", "cache"])
def test_the_study_records_where_its_data_came_from(
    source: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    bench_methods: dict[str, MethodSpec],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FAIRCOCCO_DOWNLOAD", "0")
    monkeypatch.setenv("FAIRCOCCO_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("FAIRCOCCO_DATA", raising=False)
    folder = {"data_dir": "given", "$FAIRCOCCO_DATA": "shared", "cache": "cache"}[source]
    registry = _registry.Registry([*_registry.SYNTHETIC_SOURCES, _file_dataset(Path(folder))])
    monkeypatch.setattr(_registry, "_REGISTRY", registry)
    monkeypatch.setattr(_registry.metadata, "entry_points", lambda group: [])
    if source == "$FAIRCOCCO_DATA":
        monkeypatch.setenv("FAIRCOCCO_DATA", folder)
    config = StudyConfig(
        name="sourced",
        datasets=("filed", "synthetic"),
        notions=("dp",),
        seeds=(0,),
        # a relative directory, as typed on the command line
        data_dir=folder if source == "data_dir" else None,
    )
    summary = run_study(config, "runs.sqlite", methods={"linear": bench_methods["linear"]})
    assert summary.done == 4
    recorded = ResultsStore("runs.sqlite").studies().loc[0, "config"]
    assert recorded["data_dir"] == config.data_dir
    assert recorded["data_sources"] == {
        "filed": {"source": source, "directory": str((tmp_path / folder).resolve())},
        "synthetic": {"source": "synthetic", "directory": None},
    }


def test_a_study_with_its_own_loader_records_that_loader_as_the_source(
    tmp_path: Path, bench_methods: dict[str, MethodSpec], bench_loader: Any
) -> None:
    _run(tmp_path, {"linear": bench_methods["linear"]}, bench_loader, seeds=(0,))
    recorded = ResultsStore(tmp_path / "runs.sqlite").studies().loc[0, "config"]
    assert recorded["data_sources"] == {
        "tiny": {"source": "loader", "directory": None},
        "tiny_regression": {"source": "loader", "directory": None},
    }


def test_evaluation_parts_are_capped_by_max_eval_rows(bench_loader: Any) -> None:
    data = bench_loader("tiny", 4)
    config = StudyConfig(datasets=("tiny",), seeds=(4,), max_train_rows=50, max_eval_rows=20)
    profile = DatasetProfile.of(data)
    spec = MethodSpec(name="spy", description="", capabilities=_all(), factory=print, param_grid={})
    cells, _ = plan_study(config, {"spy": spec}, {"tiny": profile})
    assert cells[0].settings == {"max_train_rows": 50, "max_eval_rows": 20}
    train, validation, test = _parts(data, 4, 50, cells[0].settings["max_eval_rows"])
    whole = _parts(data, 4, 50)
    assert (len(train[1]), len(validation[1]), len(test[1])) == (50, 20, 20)
    assert len(whole[2][1]) > 20
    # the capped test rows are rows of the whole test part, with their own outcomes
    rows = test[0].merge(whole[2][0].assign(y=whole[2][1]), on=list(test[0].columns))
    assert len(rows) == 20
    assert (rows["y"].to_numpy() == test[1].to_numpy()).all()


def test_features_are_standardised_with_training_statistics(bench_loader: Any) -> None:
    data = bench_loader("tiny", 4)
    config = StudyConfig(datasets=("tiny",), seeds=(4,), max_train_rows=50)
    profile = DatasetProfile.of(data)
    spec = MethodSpec(name="spy", description="", capabilities=_all(), factory=print, param_grid={})
    cells, _ = plan_study(config, {"spy": spec}, {"tiny": profile})
    train, validation, test = _parts(data, 4, cells[0].settings["max_train_rows"])
    assert len(train[1]) == 50
    np.testing.assert_allclose(train[0].mean(axis=0), 0.0, atol=1e-9)
    values = train[0].std(axis=0, ddof=0)
    assert ((np.abs(values - 1) < 1e-9) | (values == 0)).all()
    # validation and test are scaled with the training statistics, so not exactly standard
    assert np.abs(validation[0].mean(axis=0)).max() > 1e-3
    assert len(validation[1]) == len(data.split.validation)
    assert len(test[1]) == len(data.split.test)
    # the same subsample for every method of the seed
    again = _parts(data, 4, 50)
    pd.testing.assert_frame_equal(train[0], again[0][0])


def _all() -> Any:
    from faircocco_plugins.plugins import KINDS, NOTIONS, TASKS, Capabilities

    return Capabilities(
        tasks=TASKS,
        notions=NOTIONS,
        attributes=KINDS,
        outcomes=KINDS,
        multiple_attributes="joint",
        needs_gradients=False,
    )


def test_sensitive_attributes_reach_the_method_with_raw_types(
    tmp_path: Path, bench_methods: dict[str, MethodSpec], bench_loader: Any
) -> None:
    data = bench_loader("tiny", 0)
    config = StudyConfig(datasets=("tiny",), methods=("linear",), notions=("dp",), seeds=(0,))
    cells, _ = plan_study(
        config, {"linear": bench_methods["linear"]}, {"tiny": DatasetProfile.of(data)}
    )
    seen: list[Any] = []
    spec = bench_methods["linear"]

    def factory(**kwargs: Any) -> Any:
        model = spec.factory(**kwargs)
        seen.append(model)
        return model

    record = execute_cell(cells[0], _replace(spec, factory=factory), bench_loader, "rev")
    assert record.status == "ok" and record.git_revision == "rev"
    sensitive = seen[0].seen_sensitive_
    assert list(sensitive.columns) == ["sex", "age", "region"]
    pd.testing.assert_series_equal(sensitive.dtypes, data.sensitive.dtypes, check_names=False)


class _PostProcessor:
    """Predicts the positive class for one sex: only with the attributes at prediction."""

    def fit(self, X: Any, y: Any, *, sensitive_features: Any) -> _PostProcessor:
        self.level_ = sensitive_features["sex"].iloc[0]
        return self

    def predict(self, X: Any, *, sensitive_features: Any) -> np.ndarray:
        assert len(sensitive_features) == len(X)
        return (sensitive_features["sex"] == self.level_).to_numpy().astype(int)

    def predict_proba(self, X: Any, *, sensitive_features: Any) -> np.ndarray:
        positive = self.predict(X, sensitive_features=sensitive_features)
        return np.column_stack([1 - positive, positive]).astype(float)


@pytest.mark.parametrize("declared", [True, False])
def test_methods_that_declare_it_get_the_attributes_at_prediction(
    declared: bool, bench_methods: dict[str, MethodSpec], bench_loader: Any
) -> None:
    spec = bench_methods["linear"]
    caps = dataclasses.replace(spec.capabilities, attributes_at_prediction=declared)
    spec = _replace(spec, capabilities=caps, factory=lambda **_: _PostProcessor())
    data = bench_loader("tiny", 0)
    config = StudyConfig(datasets=("tiny",), methods=("linear",), notions=("dp",), seeds=(0,))
    cells, _ = plan_study(config, {"linear": spec}, {"tiny": DatasetProfile.of(data)})
    record = execute_cell(cells[0], spec, bench_loader, "rev")
    if declared:
        assert record.status == "ok"
        # predictions that are the attribute itself: positive rates 1 and 0
        assert record.metrics["test.di"] == 0.0
    else:
        assert record.status == "failed" and "sensitive_features" in record.reason


def _replace(spec: MethodSpec, **changes: Any) -> MethodSpec:
    return dataclasses.replace(spec, **changes)


def test_peak_memory_sees_a_large_allocation() -> None:
    # in a fresh process: memory this test process freed earlier would be reused unseen
    script = (
        "import numpy as np\n"
        "from faircocco_plugins.bench._runner import PeakMemory\n"
        "with PeakMemory() as memory:\n"
        "    block = np.ones(80 * 2**20 // 8)\n"
        "    del block\n"
        "print(memory.peak_mib - memory.start_mib)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    peak = float(result.stdout)
    if math.isnan(peak):
        pytest.skip("no /proc/self/status here")
    assert 75 <= peak < 200


def test_local_processes_give_the_same_runs(
    tmp_path: Path, bench_methods: dict[str, MethodSpec], bench_loader: Any
) -> None:
    pytest.importorskip("joblib")
    log = tmp_path / "log.txt"
    one = _run(tmp_path / "one", bench_methods, bench_loader)
    with log.open("w") as stream:
        two = run_study(
            StudyConfig(
                name="t", datasets=("tiny", "tiny_regression"), notions=NOTIONS, seeds=(0, 1)
            ),
            tmp_path / "two" / "runs.sqlite",
            methods=bench_methods,
            loader=bench_loader,
            jobs=2,
            progress=PlainProgress(stream),
        )
    assert "2 local worker processes" in two.where
    assert (one.done, one.failed) == (two.done, two.failed) == (16, 8)
    first = ResultsStore(tmp_path / "one" / "runs.sqlite").runs()
    second = ResultsStore(tmp_path / "two" / "runs.sqlite").runs()
    columns = ["run_id", "status", "reason"]
    columns += [c for c in first.columns if c.startswith(("validation.", "test."))]
    pd.testing.assert_frame_equal(first[columns], second[columns])
    lines = log.read_text().splitlines()
    assert lines[0] == "running 24 cells in 2 local worker processes"
    assert lines[-1].startswith("[24/24] ")
    finished = [line for line in lines if "] ok " in line]
    assert len(finished) == 16
    assert all(re.search(r" fit \d+\.\d s eval \d+\.\d s \(ETA ", line) for line in finished)


def test_torch_cells_are_deterministic(tmp_path: Path) -> None:
    pytest.importorskip("faircocco_torch")
    methods = {n: available_methods()[n] for n in ("nn", "faircocco")}
    config = StudyConfig(
        name="torch",
        datasets=("synthetic",),
        notions=("eo",),
        seeds=(0,),
        grid="quick",
        epochs=2,
        warmup_epochs=1,
        max_train_rows=200,
    )
    one = run_study(config, tmp_path / "one.sqlite", methods=methods)
    two = run_study(config, tmp_path / "two.sqlite", methods=methods)
    assert one.done == two.done == 4
    first = ResultsStore(tmp_path / "one.sqlite").runs()
    second = ResultsStore(tmp_path / "two.sqlite").runs()
    metrics = [c for c in first.columns if c.startswith(("validation.", "test."))]
    pd.testing.assert_frame_equal(first[metrics], second[metrics])
    assert (first["settings"].map(lambda s: s["epochs"]) == 2).all()
    assert (first["n_train"] == 200).all()


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations of a test stay in it."""
    fresh = _registry.Registry(
        [*_registry.PAPER_SOURCES, *_registry.VARIANT_SOURCES, *_registry.SYNTHETIC_SOURCES]
    )
    monkeypatch.setattr(_registry, "_REGISTRY", fresh)


def _register_mine(fail_outside: int | None = None) -> None:
    from faircocco_plugins.datasets import make_fairness_dataset, register_dataset

    def loader() -> tuple[Any, ...]:
        import os

        if fail_outside is not None and os.getpid() != fail_outside:
            raise OSError("the share holding the data is not mounted here")
        data = make_fairness_dataset(150, random_state=0)
        return data.X, data.y, data.sensitive

    kinds = {"sex": "binary", "age": "continuous", "region": "categorical"}
    register_dataset("mine", loader, task="classification", attributes=kinds, overwrite=True)


def test_in_process_registrations_reach_worker_processes(
    tmp_path: Path, bench_methods: dict[str, MethodSpec], fresh_registry: None
) -> None:
    pytest.importorskip("joblib")
    _register_mine()
    config = StudyConfig(name="t", datasets=("mine",), methods=("linear",), notions=("dp",))
    summary = run_study(
        config, tmp_path / "runs.sqlite", methods={"linear": bench_methods["linear"]}, jobs=2
    )
    assert "2 local worker processes" in summary.where
    assert summary.failed == 0 and summary.done == summary.total > 0


def test_a_dataset_the_workers_cannot_load_is_not_stored_as_a_result(
    tmp_path: Path, bench_methods: dict[str, MethodSpec], fresh_registry: None
) -> None:
    import os

    pytest.importorskip("joblib")
    _register_mine(fail_outside=os.getpid())
    config = StudyConfig(name="t", datasets=("mine",), methods=("linear",), notions=("dp",))
    methods = {"linear": bench_methods["linear"]}
    first = run_study(config, tmp_path / "runs.sqlite", methods=methods, jobs=2)
    assert first.failed == first.total > 0
    assert ResultsStore(tmp_path / "runs.sqlite").runs().empty
    # once the data can be read, a rerun runs the cells instead of skipping them
    _register_mine()
    second = run_study(config, tmp_path / "runs.sqlite", methods=methods, jobs=2)
    assert second.skipped == 0 and second.done == second.total


class _Warns:
    """A method that warns, as one does about a model it judges degenerate, then fits."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def fit(self, X: Any, y: Any, *, sensitive_features: Any) -> _Warns:
        warnings.warn("predicts one class for all rows", DegenerateModelWarning, stacklevel=2)
        self.model.fit(X, y, sensitive_features=sensitive_features)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.asarray(self.model.predict(X))


def test_the_harness_silences_degenerate_model_warnings_and_judges_the_runs_itself(
    tmp_path: Path, bench_methods: dict[str, MethodSpec], bench_loader: Any
) -> None:
    linear = bench_methods["linear"]
    spec = dataclasses.replace(
        linear, name="warns", factory=lambda **options: _Warns(linear.factory(**options))
    )
    with warnings.catch_warnings():
        # any warning that escaped the fit would fail the run
        warnings.simplefilter("error")
        summary = _run(tmp_path, {"warns": spec}, bench_loader, datasets=("tiny",), seeds=(0,))
    runs = ResultsStore(tmp_path / "runs.sqlite").runs("t")
    assert summary.failed == 0 and set(runs["status"]) == {"ok"}
