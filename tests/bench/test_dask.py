"""Distributed backends give the same runs as the local one: Dask, and Ray when installed."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pandas as pd
import pytest

from faircocco_plugins.bench import ResultsStore, StudyConfig, run_study

pytest.importorskip("faircocco_torch")

CONFIG = StudyConfig(
    name="backends",
    datasets=("synthetic",),
    methods=("nn", "faircocco"),
    notions=("eo",),
    seeds=(0,),
    grid="quick",
    epochs=2,
    warmup_epochs=1,
    max_train_rows=200,
)


def _metrics(path: Path) -> pd.DataFrame:
    runs = ResultsStore(path).runs()
    columns = ["run_id", *(c for c in runs.columns if c.startswith(("validation.", "test.")))]
    return runs[columns]


@pytest.fixture(scope="module")
def local_runs(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    path = tmp_path_factory.mktemp("local") / "runs.sqlite"
    summary = run_study(CONFIG, path)
    assert summary.done == 4
    return _metrics(path)


def test_dask_cluster_gives_identical_runs(tmp_path: Path, local_runs: pd.DataFrame) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        summary = run_study(CONFIG, tmp_path / "runs.sqlite", backend="dask", address=address)
    assert (summary.done, summary.failed) == (4, 0)
    assert "Dask cluster" in summary.where
    pd.testing.assert_frame_equal(_metrics(tmp_path / "runs.sqlite"), local_runs)


def test_ray_gives_identical_runs(tmp_path: Path, local_runs: pd.DataFrame) -> None:
    pytest.importorskip("ray")
    summary = run_study(CONFIG, tmp_path / "runs.sqlite", backend="ray", jobs=2)
    assert (summary.done, summary.failed) == (4, 0)
    pd.testing.assert_frame_equal(_metrics(tmp_path / "runs.sqlite"), local_runs)


def test_missing_ray_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes ``import ray`` fail
    with pytest.raises(ImportError, match=r"pip install 'faircocco-plugins\[ray\]'"):
        run_study(dataclasses.replace(CONFIG, methods=("nn",)), tmp_path / "s", backend="ray")
