"""Tests of ``faircocco datasets``: the table of datasets and where their files are."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest
from dataset_helpers import PAPER, require

from faircocco_plugins.cli import main
from faircocco_plugins.datasets import (
    list_datasets,
)


def test_cli_lists_datasets(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FAIRCOCCO_DATA", raising=False)
    (tmp_path / "german").mkdir()
    shutil.copyfile(Path(__file__), tmp_path / "german" / "german.data")  # wrong size
    assert main(["datasets", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    for name in [*PAPER, "synthetic", "synthetic_regression"]:
        assert name in lines
    # missing here: downloaded on loading where the original bytes are published
    assert lines["adult"][:5] == ["adult", "classification", "45222", "45222", "network"]
    assert lines["german"][4] == "network"
    assert lines["kdd_census"][4] == "no"
    assert lines["synthetic"][4] == "yes"

    assert main(["datasets", "--json"]) == 0
    records = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert records["law_school"]["attributes"] == "male:binary, race:categorical"
    assert records["synthetic"]["paper_rows"] is None and records["synthetic"]["available"]


def test_cli_refuses_an_unreadable_data_dir_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0)
    try:
        os.listdir(folder)
    except PermissionError:
        pass
    else:
        pytest.skip("this process reads folders without permissions")
    try:
        status = main(["datasets", "--data-dir", str(folder)])
    finally:
        folder.chmod(0o755)
    assert status == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("faircocco: error: cannot look for ") and "\n" not in error
    assert f"in {folder} (data_dir): Permission denied" in error


def test_cli_shows_available_files(capsys: pytest.CaptureFixture[str]) -> None:
    require("adult")
    assert main(["datasets"]) == 0
    adult = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("adult"))
    assert adult.split()[4] == "yes"


def _fairlearn_cache(home: Path, data_id: int, *, data: bool = True) -> Path:
    """The files scikit-learn's fetch_openml leaves in fairlearn's cache for ``data_id``."""
    openml = home / ".fairlearn-data" / "openml" / "openml.org"
    api = openml / "api" / "v1" / "json" / "data"
    url = f"https://api.openml.org/data/v1/download/{data_id + 7}/table.arff"
    description = {"data_set_description": {"id": str(data_id), "url": url}}
    files = {
        api / f"{data_id}.gz": description,
        api / "features" / f"{data_id}.gz": {"data_features": {"feature": []}},
        api / "qualities" / f"{data_id}.gz": {"data_qualities": {"quality": []}},
    }
    if data:
        files[openml / "data" / "v1" / "download" / str(data_id + 7) / "table.arff.gz"] = {}
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(json.dumps(content).encode()))
    return openml.parent


def test_fairlearn_datasets_are_listed_as_needing_the_network_unless_cached(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("faircocco_fairlearn")
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    table = list_datasets()
    for name in ("fairlearn_adult", "fairlearn_credit_card"):
        assert not table.loc[name, "available"] and table.loc[name, "downloadable"]
        assert table.loc[name, "location"] == table.loc[name, "found_in"] == ""
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert lines["fairlearn_adult"][4] == lines["fairlearn_credit_card"][4] == "network"
    assert "network: not here; loading it downloads it, which needs the network" in out

    # the description and features without the data file are not a cache of the dataset
    _fairlearn_cache(home, 42477, data=False)
    folder = _fairlearn_cache(home, 1590)
    table = list_datasets()
    assert table.loc["fairlearn_adult", "available"]
    assert table.loc["fairlearn_adult", "location"] == str(folder)
    assert table.loc["fairlearn_adult", "found_in"] == "toolkit cache"
    assert not table.loc["fairlearn_credit_card", "available"]
