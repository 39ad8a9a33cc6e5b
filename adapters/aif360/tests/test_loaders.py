"""AIF360's Adult, COMPAS and German loaders read from the registry's raw files.

Tests that read a raw file take it from ``$FAIRCOCCO_DATA`` and are skipped without it. The ones
on the production path link the files into AIF360's real raw folder, which is what the loaders
do in use; the others move the folder AIF360 reads into a temporary directory by changing the
``__file__`` of AIF360's dataset modules, from which both AIF360 and the loaders derive it.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from faircocco_aif360 import _loaders
from faircocco_aif360._loaders import aif360_dataset, sources
from faircocco_plugins.datasets import (
    DatasetLoadError,
    DatasetSource,
    DatasetUnavailableError,
    get_source,
    load_dataset,
    register_source,
)

DATA = os.environ.get("FAIRCOCCO_DATA")

#: Rows AIF360 0.6.1 keeps with its defaults (measured; AdultDataset's docstring reports the
#: 3620 rows with missing values it drops from 48842), protected attributes and feature count.
AIF360: dict[str, tuple[int, list[str], int]] = {
    "adult": (45222, ["race", "sex"], 98),
    "compas": (6167, ["sex", "race"], 401),
    "german": (1000, ["sex", "age"], 58),
}
MODULES = {
    "adult": "aif360.datasets.adult_dataset",
    "compas": "aif360.datasets.compas_dataset",
    "german": "aif360.datasets.german_dataset",
}


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No downloads and an empty user cache: only ``$FAIRCOCCO_DATA`` or tmp dirs count."""
    monkeypatch.setenv("FAIRCOCCO_DOWNLOAD", "0")
    monkeypatch.setenv("FAIRCOCCO_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def moved_raw(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """AIF360's raw folder moved to ``tmp_path``, for AIF360 and the loaders alike."""
    pytest.importorskip("aif360")
    import importlib

    home = tmp_path / "site" / "aif360"
    # AIF360 opens datasets/../data/raw/...: the system resolves ".." only from a real folder
    (home / "datasets").mkdir(parents=True)
    for module_name in MODULES.values():
        module = importlib.import_module(module_name)
        file_name = Path(module.__file__).name
        monkeypatch.setattr(module, "__file__", str(home / "datasets" / file_name))
    return (home / "data" / "raw").resolve()


def require(name: str) -> Path:
    """``$FAIRCOCCO_DATA``, skipping unless it holds every raw file of ``name``."""
    if not DATA:
        pytest.skip("FAIRCOCCO_DATA is not set: the raw files are read from it")
    missing = [
        f.relative_path
        for f in get_source(name).files
        if not (Path(DATA) / f.relative_path).is_file()
    ]
    if missing:
        pytest.skip(f"{missing} not under FAIRCOCCO_DATA")
    pytest.importorskip("aif360")
    return Path(DATA)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_named(name: str) -> DatasetSource:
    return next(source for source in sources() if source.name == name)


# --- aif360_dataset ------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(AIF360))
def test_aif360_dataset_is_aif360_default_preprocessing(name: str):
    data = require(name)
    from aif360.datasets import BinaryLabelDataset, StandardDataset

    dataset = aif360_dataset(name)

    rows, protected, n_features = AIF360[name]
    assert isinstance(dataset, StandardDataset)
    assert isinstance(dataset, BinaryLabelDataset)
    assert type(dataset).__name__ == _loaders._LOADERS[name].class_name
    assert dataset.features.shape == (rows, n_features)
    assert dataset.protected_attribute_names == protected
    # production path: AIF360's real raw folder serves the registry's verified bytes
    folder = _loaders._raw_folder(_loaders._LOADERS[name])
    for file in get_source(name).files:
        assert sha256(folder / file.name) == file.sha256
        if (folder / file.name).is_symlink():
            assert (folder / file.name).resolve() == (data / file.relative_path).resolve()


def test_german_favourable_label_matches_the_raw_file():
    data = require("german")
    dataset = aif360_dataset("german")
    raw_labels = [
        line.split()[-1] for line in (data / "german/german.data").read_text().split("\n") if line
    ]
    assert raw_labels.count("1") == 700
    assert dataset.favorable_label == 1.0
    assert int((dataset.labels.ravel() == dataset.favorable_label).sum()) == 700


def test_keywords_reach_aif360s_class():
    require("german")
    dataset = aif360_dataset(
        "german", protected_attribute_names=["sex"], privileged_classes=[["male"]]
    )
    assert dataset.protected_attribute_names == ["sex"]
    assert dataset.features.shape[0] == 1000


def test_data_dir_is_searched_first(moved_raw: Path, tmp_path: Path):
    data = require("german")
    copy = tmp_path / "mine" / "german" / "german.data"
    copy.parent.mkdir(parents=True)
    copy.write_bytes((data / "german" / "german.data").read_bytes())

    dataset = aif360_dataset("german", data_dir=tmp_path / "mine")

    assert dataset.features.shape[0] == 1000
    link = moved_raw / "german" / "german.data"
    assert link.is_symlink()
    assert link.resolve() == copy.resolve()


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"name='bank'.*\['adult', 'compas', 'german'\]"):
        aif360_dataset("bank")
    with pytest.raises(TypeError, match="name must be a string; got int"):
        aif360_dataset(3)  # type: ignore[arg-type]


def test_unknown_keyword_is_named():
    pytest.importorskip("aif360")
    with pytest.raises(TypeError, match=r"\['protected'\] are not arguments of .*GermanDataset"):
        aif360_dataset("german", protected=["sex"])


def test_bad_data_dir_is_named():
    with pytest.raises(TypeError, match="data_dir=3 is not valid"):
        aif360_dataset("german", data_dir=3)  # type: ignore[arg-type]


def test_an_error_of_aif360_names_the_dataset(moved_raw: Path):
    require("german")
    with pytest.raises(DatasetLoadError, match="dataset 'german' failed: KeyError") as info:
        aif360_dataset("german", features_to_keep=["no_such_column"], features_to_drop=["nope"])
    assert isinstance(info.value.__cause__, KeyError)
    assert any("aif360.datasets.GermanDataset" in note for note in info.value.__notes__)


# --- files absent, AIF360 exiting, files in the way ----------------------------------------


@pytest.mark.parametrize("name", list(AIF360))
def test_missing_files_raise_dataset_unavailable(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, moved_raw: Path
):
    monkeypatch.setenv("FAIRCOCCO_DATA", str(tmp_path / "empty_data"))
    monkeypatch.setenv("FAIRCOCCO_CACHE", str(tmp_path / "empty_cache"))
    try:
        file = get_source(name).files[0]
        with pytest.raises(
            DatasetUnavailableError, match=f"{file.relative_path} is missing"
        ) as info:
            aif360_dataset(name, download=False)
    except SystemExit:  # pragma: no cover - what the loaders exist to prevent
        pytest.fail("AIF360's sys.exit escaped")
    assert info.value.reason == "missing"
    assert info.value.file == get_source(name).files[0]
    assert str(tmp_path / "empty_data") in str(info.value)
    assert not moved_raw.exists()  # nothing was linked


def test_aif360s_exit_becomes_dataset_unavailable(
    monkeypatch: pytest.MonkeyPatch, moved_raw: Path, capsys: pytest.CaptureFixture[str]
):
    # nothing to link: AIF360 finds its (moved) raw folder empty and calls sys.exit itself
    monkeypatch.setattr(_loaders, "_make_available", lambda loader, paths: None)
    monkeypatch.setattr(
        _loaders, "dataset_files", lambda name, **_: {"german.data": Path("unused")}
    )
    try:
        with pytest.raises(DatasetUnavailableError, match="dataset 'german'") as info:
            aif360_dataset("german")
    except SystemExit:  # pragma: no cover
        pytest.fail("AIF360's sys.exit escaped")
    assert isinstance(info.value.__cause__, SystemExit)
    assert info.value.__cause__.code == 1
    assert str(moved_raw / "german") in str(info.value)
    assert "['german.data']" in str(info.value)
    # AIF360 printed its own instructions before exiting, pointing at the moved folder
    assert str(moved_raw / "german") in capsys.readouterr().out


def test_aif360s_exit_in_the_registry_source(monkeypatch: pytest.MonkeyPatch, moved_raw: Path):
    monkeypatch.setattr(_loaders, "_make_available", lambda loader, paths: None)
    source = source_named("aif360_compas")
    with pytest.raises(DatasetUnavailableError, match="dataset 'aif360_compas'"):
        source.load({"compas-scores-two-years.csv": Path("unused")})


def test_a_different_file_in_the_raw_folder_is_named(moved_raw: Path):
    require("german")
    existing = moved_raw / "german" / "german.data"
    existing.parent.mkdir(parents=True)
    existing.write_text("1 2 3\n")
    with pytest.raises(
        ValueError, match=f"{re.escape(str(existing))}.*already in AIF360's raw folder"
    ):
        aif360_dataset("german")
    assert existing.read_text() == "1 2 3\n"


def test_the_same_bytes_in_the_raw_folder_are_left(moved_raw: Path):
    data = require("german")
    existing = moved_raw / "german" / "german.data"
    existing.parent.mkdir(parents=True)
    existing.write_bytes((data / "german" / "german.data").read_bytes())

    assert aif360_dataset("german").features.shape[0] == 1000
    assert not existing.is_symlink()


def test_a_dangling_link_is_replaced(moved_raw: Path, tmp_path: Path):
    data = require("german")
    link = moved_raw / "german" / "german.data"
    link.parent.mkdir(parents=True)
    link.symlink_to(tmp_path / "gone" / "german.data")

    assert aif360_dataset("german").features.shape[0] == 1000
    assert link.resolve() == (data / "german" / "german.data").resolve()


def test_an_unwritable_raw_folder_is_named(monkeypatch: pytest.MonkeyPatch, moved_raw: Path):
    require("german")

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "symlink", refuse)
    target = moved_raw / "german" / "german.data"
    with pytest.raises(
        PermissionError,
        match=re.escape(f"as {target}: ") + ".*" + re.escape(f"Make {target.parent} writable"),
    ):
        aif360_dataset("german")


def test_a_wrong_copy_in_the_data_folder_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    wrong = tmp_path / "data" / "german" / "german.data"
    wrong.parent.mkdir(parents=True)
    wrong.write_text("not german credit\n")
    monkeypatch.setenv("FAIRCOCCO_DATA", str(tmp_path / "data"))
    pytest.importorskip("aif360")
    expected = "german/german.data does not have the expected content"
    with pytest.raises(DatasetUnavailableError, match=expected) as info:
        aif360_dataset("german")
    assert info.value.reason == "sha256 mismatch"


# --- registry sources ----------------------------------------------------------------------


def test_sources_declare_aif360s_datasets():
    declared = {source.name: source for source in sources()}
    assert list(declared) == ["aif360_adult", "aif360_compas", "aif360_german"]
    for name, (rows, protected, _) in AIF360.items():
        source = declared[f"aif360_{name}"]
        assert source.task == "classification"
        assert dict(source.attributes) == dict.fromkeys(protected, "binary")
        assert list(source.attributes) == protected
        assert source.files == get_source(name).files
        assert source.rows == rows
        assert source.origin == "faircocco_aif360"
        assert source.label and source.description.startswith("AIF360's")
    assert declared["aif360_compas"].label.startswith("no recidivism within two years")
    assert declared["aif360_german"].label.startswith("good credit")
    assert declared["aif360_adult"].label.startswith("income above $50K")


@pytest.mark.parametrize("name", ["german", "compas"])
def test_source_table_is_aif360s_dataset(name: str):
    data = require(name)
    rows, protected, n_features = AIF360[name]
    reference = aif360_dataset(name)

    source = source_named(f"aif360_{name}")
    X, y, sensitive = source.load({f.name: data / f.relative_path for f in source.files})

    assert X.shape == (rows, n_features - len(protected))
    assert not set(protected) & set(X.columns)
    expected = [c for c in reference.feature_names if c not in protected]
    assert list(X.columns) == expected
    np.testing.assert_array_equal(X.to_numpy(), reference.convert_to_dataframe()[0][expected])
    assert set(np.unique(y)) == {0, 1}
    favourable = reference.labels.ravel() == reference.favorable_label
    np.testing.assert_array_equal(y.to_numpy(), favourable.astype(int))
    assert list(sensitive.columns) == protected
    np.testing.assert_array_equal(sensitive.to_numpy(), reference.protected_attributes)
    assert set(np.unique(sensitive.to_numpy())) == {0, 1}


def test_compas_favourable_label_is_no_recidivism():
    data = require("compas")
    source = source_named("aif360_compas")
    _, y, _ = source.load({f.name: data / f.relative_path for f in source.files})
    reference = aif360_dataset("compas")
    # AIF360 keeps COMPAS's numeric label: 0 (no recidivism) is its favourable one
    assert reference.favorable_label == 0.0
    recidivism = reference.convert_to_dataframe()[0]["two_year_recid"].to_numpy()
    np.testing.assert_array_equal(y.to_numpy(), (recidivism == 0).astype(int))
    assert y.sum() == 3358


def test_registry_loads_the_source():
    require("german")
    register_source(source_named("aif360_german"), overwrite=True)

    loaded = load_dataset("aif360_german", random_state=0)

    assert loaded.task == "classification"
    assert loaded.X.shape == (1000, 56)
    assert list(loaded.sensitive.columns) == ["sex", "age"]
    assert not {"sex", "age"} & set(loaded.X.columns)
    assert int(loaded.y.sum()) == 700
    assert loaded.sensitive["sex"].value_counts().to_dict() == {1: 690, 0: 310}
    assert loaded.sensitive["age"].value_counts().to_dict() == {1: 810, 0: 190}
    split = loaded.split
    assert len(split.train) + len(split.validation) + len(split.test) == 1000


def test_registry_reports_missing_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    register_source(source_named("aif360_german"), overwrite=True)
    monkeypatch.setenv("FAIRCOCCO_DATA", str(tmp_path / "empty_data"))
    with pytest.raises(DatasetUnavailableError, match=r"german/german\.data is missing"):
        load_dataset("aif360_german", random_state=0, download=False)


def test_module_imports_and_lists_sources_without_aif360():
    code = (
        "import importlib.util, sys\n"
        "sys.modules['aif360'] = None  # as if not installed\n"
        f"spec = importlib.util.spec_from_file_location('loaders', {_loaders.__file__!r})\n"
        "module = sys.modules['loaders'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "print(' '.join(s.name for s in module.sources()))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["aif360_adult", "aif360_compas", "aif360_german"]
