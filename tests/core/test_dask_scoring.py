"""Scores on a Dask DataFrame: map over partitions, reduce the moments; same as streaming."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins import faircocco_report, faircocco_score, make_synthetic
from faircocco_plugins._routes import dask as dask_route
from faircocco_plugins._routes import stream as stream_route

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")


@pytest.fixture(autouse=True)
def fit_on_800_rows(monkeypatch):
    """Fit samples smaller than these tables, so that partitions are reduced on the workers."""
    for module in (stream_route, dask_route):
        monkeypatch.setattr(module, "STREAM_FIT_ROWS", 800)


def people(n: int) -> pd.DataFrame:
    frame = make_synthetic(n, random_state=3)
    # a region that only the last rows have: later partitions bring levels the first lacks
    frame["region"] = frame["region"].astype(str)
    frame.loc[frame.index[-300:], "region"] = "islands"
    return frame


def chunks(frame: pd.DataFrame, size: int) -> list[pd.DataFrame]:
    return [frame.iloc[start : start + size] for start in range(0, len(frame), size)]


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
@pytest.mark.parametrize("adjusted", [False, True])
def test_dask_dataframe_gives_the_streaming_score(notion, adjusted):
    frame = people(6000)
    columns = {"sensitive_features": ["age", "sex", "region"], "notion": notion}
    columns["y_true"] = None if notion == "dp" else "y_true"
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    if notion == "cal" and adjusted:  # the null of a continuous y_pred needs the rows in memory
        with pytest.warns(UserWarning, match="continuous conditioning variable"):
            assert np.isnan(faircocco_score("y_pred", data=ddf, adjusted=True, **columns))
        return
    expected = faircocco_score("y_pred", data=chunks(frame, 1500), adjusted=adjusted, **columns)
    got = faircocco_score("y_pred", data=ddf, adjusted=adjusted, **columns)
    assert 0 < expected < 1
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_dask_dataframe_gives_the_streaming_report(notion):
    frame = people(6000)
    columns = {"sensitive_features": ["age", "sex", "region"], "notion": notion}
    columns["y_true"] = None if notion == "dp" else "y_true"
    expected = faircocco_report("y_pred", data=chunks(frame, 1500), **columns)
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    got = faircocco_report("y_pred", data=ddf, **columns)
    assert list(got.index) == ["joint", "age", "sex", "region"]
    numbers = ["score", "adjusted", "null_mean", "statistic"]
    assert np.allclose(got[numbers], expected[numbers], rtol=1e-9, atol=1e-12)


def test_dask_dataframe_on_a_local_cluster_of_worker_processes():
    frame = people(4000)
    ddf = dd.from_pandas(frame, npartitions=5, sort=False)
    arguments = {"sensitive_features": ["age", "sex", "region"], "y_true": "y_true"}
    expected = faircocco_score("y_pred", data=chunks(frame, 800), adjusted=True, **arguments)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        got = faircocco_score("y_pred", data=ddf, adjusted=True, **arguments)
        workers = len(client.scheduler_info()["workers"])
    assert workers == 2
    assert 0 < expected < 1
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_dask_dataframe_errors_name_the_column_and_the_method():
    ddf = dd.from_pandas(people(500), npartitions=2, sort=False)
    with pytest.raises(ValueError, match="'income'"):
        faircocco_score("y_pred", ["income"], data=ddf)
    with pytest.raises(ValueError, match="method='exact'"):
        faircocco_score("y_pred", ["sex"], data=ddf, method="exact")


def test_dask_dataframe_within_the_fit_sample_is_scored_in_memory(monkeypatch):
    for module in (stream_route, dask_route):
        monkeypatch.setattr(module, "STREAM_FIT_ROWS", 10_000)
    frame = people(3000)
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    columns = ["age", "sex", "region"]
    got = faircocco_report("y_pred", columns, y_true="y_true", notion="cal", data=ddf)
    expected = faircocco_report(
        frame["y_pred"], frame[columns], y_true=frame["y_true"], notion="cal"
    )
    numbers = ["score", "adjusted", "null_mean", "statistic"]
    # the adjusted CAL score of a continuous y_pred, which a stream cannot give, is there
    assert np.allclose(got[numbers], expected[numbers], rtol=1e-9, atol=0)
