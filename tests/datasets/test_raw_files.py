"""Tests of the datasets' raw files: checksums, missing files, downloads and availability."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from dataset_helpers import DATA, PAPER, require

from faircocco_plugins.datasets import (
    DataFile,
    DatasetSource,
    DatasetUnavailableError,
    LoadedTable,
    _files,
    _registry,
    list_datasets,
    load_dataset,
)


def file_source(tmp_path: Path, content: bytes, urls: tuple[str, ...] = ()) -> DatasetSource:
    """A one-file dataset whose file must hold ``content``."""
    data_file = DataFile(
        "tiny",
        "tiny.csv",
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
        urls=urls,
    )

    def load(paths: Any) -> LoadedTable:
        frame = pd.read_csv(paths["tiny.csv"])
        return LoadedTable(frame[["x"]], frame["y"], frame[["g"]])

    return DatasetSource("tiny", "classification", {"g": "binary"}, load, files=(data_file,))


TINY = b"x,y,g\n" + b"".join(f"{i},{i % 2},{'ab'[i % 3 == 0]}\n".encode() for i in range(30))


def test_checksum_mismatch_names_file_and_both_digests(
    tmp_path: Path, dataset_registry: _registry.Registry
) -> None:
    source = file_source(tmp_path, TINY)
    dataset_registry.add(source, overwrite=False)
    path = tmp_path / "data" / "tiny" / "tiny.csv"
    path.parent.mkdir(parents=True)
    path.write_bytes(TINY)
    assert len(load_dataset("tiny", data_dir=tmp_path / "data").y) == 30
    altered = TINY.replace(b"1,1,a", b"1,0,a")
    path.write_bytes(altered)
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    with pytest.raises(DatasetUnavailableError, match="sha256 mismatch") as caught:
        load_dataset("tiny", data_dir=tmp_path / "data")
    message = str(caught.value)
    assert str(path) in message
    assert hashlib.sha256(TINY).hexdigest() in message
    assert hashlib.sha256(altered).hexdigest() in message
    assert caught.value.reason == "sha256 mismatch"


def test_checksum_mismatch_of_a_paper_file(tmp_path: Path) -> None:
    require("german")
    original = (Path(str(DATA)) / "german" / "german.data").read_bytes()
    copy = tmp_path / "german" / "german.data"
    copy.parent.mkdir()
    copy.write_bytes(original[:100] + bytes([original[100] ^ 1]) + original[101:])
    with pytest.raises(DatasetUnavailableError, match="sha256 mismatch") as caught:
        load_dataset("german", data_dir=tmp_path)
    assert "german.data" in str(caught.value)
    assert hashlib.sha256(original).hexdigest() in str(caught.value)


def test_missing_file_message_gives_the_three_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dataset_offline: Path
) -> None:
    monkeypatch.delenv("FAIRCOCCO_DATA", raising=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DatasetUnavailableError) as caught:
        load_dataset("adult", data_dir=empty, download=False)
    error = caught.value
    assert isinstance(error, FileNotFoundError) and isinstance(error, ValueError)
    assert error.reason == "missing"
    message = str(error)
    assert "adult/adult.data is missing" in message
    assert "data_dir=DIR" in message
    assert "FAIRCOCCO_DATA=DIR" in message
    assert str(dataset_offline / "adult" / "adult.data") in message
    assert "downloaded from https://" in message  # adult's files are originals
    with pytest.raises(DatasetUnavailableError, match="not downloaded automatically"):
        load_dataset("kdd_census", data_dir=empty, download=True)


def test_download_verifies_and_leaves_no_partial_file(
    tmp_path: Path, dataset_registry: _registry.Registry, dataset_offline: Path
) -> None:
    wrong = tmp_path / "mirror" / "wrong.csv"
    good = tmp_path / "mirror" / "tiny.csv"
    wrong.parent.mkdir()
    wrong.write_bytes(TINY[:-3] + b"9\n")
    good.write_bytes(TINY)
    dataset_registry.add(
        file_source(tmp_path, TINY, urls=(wrong.as_uri(), good.as_uri())), overwrite=False
    )
    with pytest.raises(DatasetUnavailableError, match="downloads are off"):
        load_dataset("tiny")
    data = load_dataset("tiny", download=True)
    assert len(data.y) == 30
    assert (dataset_offline / "tiny" / "tiny.csv").read_bytes() == TINY
    assert os.listdir(dataset_offline / "tiny") == ["tiny.csv"]


def test_failed_download_raises_and_leaves_nothing(
    tmp_path: Path, dataset_registry: _registry.Registry, dataset_offline: Path
) -> None:
    wrong = tmp_path / "wrong.csv"
    wrong.write_bytes(TINY + b"30,0,a\n")  # longer than the file: stopped, not kept
    missing = tmp_path / "absent.csv"
    dataset_registry.add(
        file_source(tmp_path, TINY, urls=(wrong.as_uri(), missing.as_uri())), overwrite=False
    )
    with pytest.raises(DatasetUnavailableError, match="download failed") as caught:
        load_dataset("tiny", download=True)
    assert wrong.as_uri() in str(caught.value) and missing.as_uri() in str(caught.value)
    assert not dataset_offline.exists()


@pytest.mark.parametrize(
    ("error", "raised"),
    [
        (TimeoutError("timed out"), DatasetUnavailableError),
        (KeyboardInterrupt(), KeyboardInterrupt),
    ],
    ids=["network error", "interrupted"],
)
@pytest.mark.parametrize("existing", ["nothing", "cache", "dataset folder"])
def test_failed_download_removes_the_folders_it_created(
    error: BaseException,
    raised: type[BaseException],
    existing: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    dataset_registry: _registry.Registry,
    dataset_offline: Path,
) -> None:
    """A download that fails half-way (or is interrupted) leaves the cache as it found it."""
    if existing != "nothing":
        (dataset_offline / "other").mkdir(parents=True)
    if existing == "dataset folder":
        (dataset_offline / "tiny").mkdir()
    written: list[Path] = []

    def fail_half_way(url: str, out: Any, *, limit: int) -> str:
        out.write(TINY[:10])
        out.flush()
        written.extend((dataset_offline / "tiny").iterdir())
        raise error

    monkeypatch.setattr(_files, "_fetch", fail_half_way)
    dataset_registry.add(
        file_source(tmp_path, TINY, urls=("https://example.org/tiny.csv",)), overwrite=False
    )
    with pytest.raises(raised):
        load_dataset("tiny", download=True)
    assert len(written) == 1 and not written[0].exists()  # the partial file is gone
    if existing == "nothing":
        assert not dataset_offline.exists()
    elif existing == "cache":
        assert os.listdir(dataset_offline) == ["other"]
    else:
        assert sorted(os.listdir(dataset_offline)) == ["other", "tiny"]
        assert os.listdir(dataset_offline / "tiny") == []


def test_list_datasets_availability_without_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FAIRCOCCO_DATA", raising=False)
    table = list_datasets(data_dir=tmp_path)
    assert list(table.index[:9]) == list(PAPER)
    assert {"synthetic", "synthetic_regression"} <= set(table.index)
    assert not table.loc[list(PAPER), "available"].any()
    assert table.loc["synthetic", "available"]
    assert table.loc["adult", "downloadable"] and not table.loc["kdd_census", "downloadable"]
    assert table.loc["kdd_census", "attributes"] == "sex:binary, race:binary, age:continuous"
    assert table.loc["german", "paper_rows"] == 1700
    assert (table.loc[list(PAPER), "rows"] == [PAPER[n][0] for n in PAPER]).all()
