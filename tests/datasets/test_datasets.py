"""Tests of the dataset registry: the paper's datasets, raw files, split, registration, CLI.

The paper's datasets are read from ``$FAIRCOCCO_DATA`` (``<dir>/<dataset>/<file>``); a test of a
dataset whose files are not there is skipped. Nothing here uses the network: every test runs with
downloads off and an empty user cache, and the download test fetches ``file://`` URLs.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins import faircocco_score
from faircocco_plugins.cli import main
from faircocco_plugins.datasets import (
    ENTRY_POINT_GROUP,
    DataFile,
    DatasetLoadError,
    DatasetSource,
    DatasetUnavailableError,
    LoadedTable,
    _files,
    _registry,
    list_datasets,
    load_dataset,
    make_fairness_dataset,
    register_dataset,
)

DATA = os.environ.get("FAIRCOCCO_DATA")

#: Per paper dataset: rows, columns of X (after one-hot), sensitive dtypes, and whether the test
#: part is an official test file (its row count) or random (None).
PAPER: dict[str, tuple[int, int, dict[str, str], int | None]] = {
    "adult": (45222, 101, {"sex": "category"}, 15060),
    "drugs": (1877, 11, {"ethnicity": "category"}, None),
    "german": (1000, 59, {"foreign_worker": "bool"}, None),
    "compas": (6172, 402, {"race": "category"}, None),
    "communities": (
        1993,
        96,
        {
            "racepctblack": "float64",
            "racePctWhite": "float64",
            "racePctAsian": "float64",
            "racePctHisp": "float64",
        },
        None,
    ),
    "students": (649, 55, {"age": "float64", "sex": "category"}, None),
    "kdd_census": (299285, 502, {"sex": "category", "race": "category", "age": "float64"}, 99762),
    "credit_card": (
        30000,
        20,
        {"sex": "category", "marriage": "category", "education": "category"},
        None,
    ),
    "law_school": (20798, 9, {"male": "bool", "race": "category"}, None),
}


@pytest.fixture(autouse=True)
def dataset_offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Downloads off and an empty user cache, so only ``$FAIRCOCCO_DATA`` or tmp dirs count."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("FAIRCOCCO_DOWNLOAD", "0")
    monkeypatch.setenv("FAIRCOCCO_CACHE", str(cache))
    return cache


@pytest.fixture
def dataset_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[_registry.Registry]:
    """A fresh registry (built-ins only), so registrations do not leak between tests."""
    fresh = _registry.Registry([*_registry.PAPER_SOURCES, *_registry.SYNTHETIC_SOURCES])
    monkeypatch.setattr(_registry, "_REGISTRY", fresh)
    monkeypatch.setattr(_registry.metadata, "entry_points", lambda group: [])
    yield fresh


def require(name: str) -> None:
    """Skip unless every raw file of ``name`` is under ``$FAIRCOCCO_DATA``."""
    if not DATA:
        pytest.skip("FAIRCOCCO_DATA is not set")
    missing = [
        f.relative_path
        for f in _registry._REGISTRY.get(name).files
        if not (Path(DATA) / f.relative_path).is_file()
    ]
    if missing:
        pytest.skip(f"{missing} not under FAIRCOCCO_DATA")


def covers(split: Any, n: int) -> bool:
    rows = np.concatenate([split.train, split.validation, split.test])
    return bool(np.array_equal(np.sort(rows), np.arange(n)))


# --- the paper's datasets -------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PAPER))
def test_paper_dataset_types_and_shape(name: str) -> None:
    require(name)
    rows, columns, sensitive_dtypes, _ = PAPER[name]
    data = load_dataset(name)
    source = _registry._REGISTRY.get(name)
    assert data.name == name and data.task == source.task
    assert data.X.shape == (rows, columns) == (source.rows, columns)
    assert (data.X.dtypes == np.float32).all()
    assert data.X.columns.is_unique
    assert not set(sensitive_dtypes) & set(data.X.columns)
    assert {str(t) for t in data.sensitive.dtypes} <= {"category", "bool", "float64"}
    assert {c: str(t) for c, t in data.sensitive.dtypes.items()} == sensitive_dtypes
    assert len(data.y) == len(data.sensitive) == rows
    if data.task == "classification":
        assert data.y.dtype == np.int64
        assert set(data.y.unique()) == {0, 1}
    else:
        assert data.y.dtype == np.float64
        assert data.y.nunique() > 10
    assert np.isfinite(data.X.to_numpy()).all()
    assert not data.y.isna().any() and not data.sensitive.isna().any().any()
    for column, kind in source.attributes.items():
        levels = data.sensitive[column].nunique()
        assert levels == 2 if kind == "binary" else levels > 2


@pytest.mark.parametrize("name", list(PAPER))
def test_paper_dataset_split(name: str) -> None:
    require(name)
    rows, _, _, official_test = PAPER[name]
    first, again, other = (load_dataset(name, random_state=s) for s in (1, 1, 2))
    split = first.split
    assert covers(split, rows)
    if official_test is None:
        assert split.source.startswith("random 60/20/20")
        for part, fraction in (("train", 0.6), ("validation", 0.2), ("test", 0.2)):
            assert abs(len(getattr(split, part)) / rows - fraction) < 0.005
    else:
        assert split.source.startswith("official test file")
        assert len(split.test) == official_test
        assert abs(len(split.train) / (rows - official_test) - 0.75) < 0.005
        # The official test rows are fixed; only train and validation change with the seed.
        assert np.array_equal(split.test, other.split.test)
    for part in ("train", "validation", "test"):
        assert np.array_equal(getattr(split, part), getattr(again.split, part))
    assert not np.array_equal(split.train, other.split.train)
    if first.task == "classification":
        rate = first.y.mean()
        for part in ("train", "validation"):
            assert abs(first.y.iloc[getattr(split, part)].mean() - rate) < 0.01


def test_kdd_census_labels_of_both_files() -> None:
    require("kdd_census")
    data = load_dataset("kdd_census")
    # census-income.names: 12382 of the 199523 training and 6186 of the 99762 test rows are 50000+.
    assert data.y.sum() == 12382 + 6186
    assert data.y.iloc[data.split.test].sum() == 6186
    assert set(data.sensitive["race"].cat.categories) == {"White", "Non-white"}
    # "NA" is a level of hispanic_origin in the file, not a missing value.
    assert "hispanic_origin=NA" in data.X.columns


def test_law_school_rows_are_those_of_the_cleaned_table() -> None:
    require("law_school")
    clean_path = Path(str(DATA)) / "law_school" / "law_school_clean.csv"
    if not clean_path.is_file():
        pytest.skip("law_school_clean.csv not under FAIRCOCCO_DATA")
    clean = pd.read_csv(clean_path)
    data = load_dataset("law_school")
    assert np.allclose(data.X.to_numpy(), clean[data.X.columns].to_numpy(), atol=1e-5)
    assert np.array_equal(data.sensitive["male"].to_numpy(), clean["male"].to_numpy() == 1.0)
    white = data.sensitive["race"] == "white"
    assert np.array_equal(white.to_numpy(), (clean["race"] == "White").to_numpy())
    assert np.array_equal(data.y.to_numpy(), clean["pass_bar"].to_numpy())


def test_drugs_drops_semeron_claimers_and_binarises_ethnicity() -> None:
    require("drugs")
    raw = pd.read_csv(Path(str(DATA)) / "drugs" / "drug_consumption.data", header=None)
    kept = raw[raw[30] == "CL0"]
    data = load_dataset("drugs")
    assert len(data.y) == len(kept) < len(raw)
    assert np.array_equal(data.y.to_numpy(), (kept[23] != "CL0").to_numpy().astype(int))
    assert (data.sensitive["ethnicity"] == "White").sum() == (kept[5].round(5) == -0.31685).sum()


def test_returned_frames_do_not_change_the_cache() -> None:
    data = load_dataset("synthetic")
    data.X.iloc[0, 0] = 1e6
    data.X["extra"] = 1.0
    data.sensitive.iloc[0, 1] = -1.0
    again = load_dataset("synthetic")
    assert again.X.iloc[0, 0] != 1e6 and "extra" not in again.X.columns
    assert again.sensitive.iloc[0, 1] != -1.0


# --- raw files: checksum, missing, download -------------------------------------------------


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


# --- registration and entry points ----------------------------------------------------------


def test_a_failing_loader_is_reported_with_the_dataset_name(
    dataset_registry: _registry.Registry,
) -> None:
    def loader() -> tuple[Any, ...]:
        raise KeyError("income")

    register_dataset("broken", loader, task="classification", attributes={"gender": "binary"})
    with pytest.raises(
        DatasetLoadError, match="loader of dataset 'broken' failed: KeyError"
    ) as info:
        load_dataset("broken")
    assert isinstance(info.value, ValueError) and info.value.dataset == "broken"
    assert isinstance(info.value.__cause__, KeyError)


def _register_rows(X: pd.DataFrame, y: Any, sensitive: pd.DataFrame, kinds: dict[str, Any]) -> None:
    register_dataset(
        "rows", lambda: (X, y, sensitive), task="classification", attributes=kinds, overwrite=True
    )


def test_registration_refuses_sensitive_columns_inside_the_features(
    dataset_registry: _registry.Registry,
) -> None:
    rng = np.random.default_rng(0)
    sex = rng.choice(["f", "m"], 100)
    X = pd.DataFrame({"income": rng.normal(size=100), "sex": sex})
    _register_rows(X, rng.integers(0, 2, 100), pd.DataFrame({"sex": sex}), {"sex": "binary"})
    with pytest.raises(ValueError, match=r"X has the sensitive attribute columns \['sex'\]"):
        load_dataset("rows")


def test_registration_refuses_a_one_class_outcome(dataset_registry: _registry.Registry) -> None:
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"income": rng.normal(size=100)})
    sensitive = pd.DataFrame({"sex": rng.choice(["f", "m"], 100)})
    _register_rows(X, np.ones(100, dtype=int), sensitive, {"sex": "binary"})
    with pytest.raises(ValueError, match="holds only the class 1"):
        load_dataset("rows")


def test_registration_refuses_a_one_level_attribute(dataset_registry: _registry.Registry) -> None:
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"income": rng.normal(size=100)})
    sensitive = pd.DataFrame({"sex": ["f"] * 100})
    _register_rows(X, rng.integers(0, 2, 100), sensitive, {"sex": "binary"})
    with pytest.raises(ValueError, match="column 'sex' has a single value \\('f'\\)"):
        load_dataset("rows")


def test_registration_refuses_a_feature_too_wide_to_one_hot_encode(
    dataset_registry: _registry.Registry,
) -> None:
    n = 50_000
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"income": rng.normal(size=n), "id": np.arange(n).astype(str)})
    sensitive = pd.DataFrame({"sex": rng.choice(["f", "m"], n)})
    _register_rows(X, rng.integers(0, 2, n), sensitive, {"sex": "binary"})
    with pytest.raises(ValueError, match=r"column 'id' alone has 50,000 levels\), 9\.3 GiB"):
        load_dataset("rows")


@pytest.mark.parametrize(
    ("outcome", "pos_label"),
    [
        (["yes", "no"], "yes"),
        (["Pass", "Fail"], "Pass"),
        (pd.Categorical(["good", "bad"]), "good"),
        ([1, -1], None),
        ([True, False], None),
    ],
)
def test_binary_outcomes_of_any_label_type(
    dataset_registry: _registry.Registry, outcome: Any, pos_label: Any
) -> None:
    rng = np.random.default_rng(0)
    positive = rng.random(100) < 0.3
    labels = np.asarray(outcome, dtype=object)
    y = pd.Series(np.where(positive, labels[0], labels[1]))
    if isinstance(outcome, pd.Categorical):
        y = y.astype("category")
    X = pd.DataFrame({"income": rng.normal(size=100)})
    sensitive = pd.DataFrame({"sex": rng.choice(["f", "m"], 100)})
    register_dataset(
        "labels",
        lambda: (X, y, sensitive),
        task="classification",
        attributes={"sex": "binary"},
        pos_label=pos_label,
        overwrite=True,
    )
    loaded = load_dataset("labels")
    assert loaded.y.dtype == np.int64
    assert np.array_equal(loaded.y.to_numpy(), positive.astype(np.int64))


def test_text_labels_without_pos_label_say_what_to_pass(
    dataset_registry: _registry.Registry,
) -> None:
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"income": rng.normal(size=100)})
    y = pd.Series(rng.choice(["no", "yes"], 100))
    sensitive = pd.DataFrame({"sex": rng.choice(["f", "m"], 100)})
    register_dataset(
        "labels", lambda: (X, y, sensitive), task="classification", attributes={"sex": "binary"}
    )
    with pytest.raises(ValueError, match=r"labels \['no', 'yes'\]; pass pos_label="):
        load_dataset("labels")
    register_dataset(
        "labels",
        lambda: (X, y, sensitive),
        task="classification",
        attributes={"sex": "binary"},
        pos_label="maybe",
        overwrite=True,
    )
    # the loader did its part: the declaration is wrong, and the error says so
    with pytest.raises(ValueError, match=r"pos_label='maybe' is not a label of y") as raised:
        load_dataset("labels")
    assert not isinstance(raised.value, DatasetLoadError)
    assert "loader" not in str(raised.value)


def test_register_dataset_round_trip(dataset_registry: _registry.Registry) -> None:
    calls = []

    def loader() -> tuple[Any, ...]:
        calls.append(1)
        rng = np.random.default_rng(0)
        n = 200
        X = pd.DataFrame(
            {
                "income": rng.normal(size=n),
                "owner": rng.random(n) < 0.5,
                "city": rng.choice(["b", "a", "c"], size=n),
            }
        )
        sensitive = pd.DataFrame(
            {"gender": rng.choice(["f", "m"], n), "age": rng.uniform(20, 60, n)}
        )
        y = pd.Series(rng.random(n) < 0.3)
        test = np.arange(n) >= 160
        return X, y, sensitive, test

    source = register_dataset(
        "mine",
        loader,
        task="classification",
        attributes={"gender": "binary", "age": "continuous"},
        description="my data",
    )
    assert source.origin == "user"
    first, second = load_dataset("mine", random_state=0), load_dataset("mine", random_state=1)
    assert len(calls) == 1  # parsed once, split per seed
    assert list(first.X.columns) == ["income", "owner", "city=a", "city=b", "city=c"]
    assert (first.X.dtypes == np.float32).all()
    assert first.X["city=a"].sum() + first.X["city=b"].sum() + first.X["city=c"].sum() == 200
    assert first.y.dtype == np.int64
    assert str(first.sensitive["gender"].dtype) == "category"
    assert first.sensitive["age"].dtype == np.float64
    assert np.array_equal(first.split.test, np.arange(160, 200))
    assert len(first.split.train) == 120 and len(first.split.validation) == 40
    assert not np.array_equal(first.split.train, second.split.train)
    assert covers(first.split, 200)
    assert list_datasets().loc["mine", "origin"] == "user"

    with pytest.raises(ValueError, match="already registered"):
        register_dataset("mine", loader, task="classification", attributes={"gender": "binary"})
    register_dataset(
        "mine",
        loader,
        task="classification",
        attributes={"gender": "binary", "age": "continuous"},
        description="replaced",
        overwrite=True,
    )
    assert load_dataset("mine").description == "replaced"
    assert len(calls) == 2  # a new source is loaded afresh


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda X, y, s: (X.assign(income=np.nan), y, s), "X column 'income' contains missing"),
        (lambda X, y, s: (X, y + 1, s), "must hold only 0 and 1"),
        (lambda X, y, s: (X, y, s.rename(columns={"gender": "sex"})), "expected the declared"),
        (lambda X, y, s: (X, y.iloc[:-1], s), "has 9 rows but X has 10"),
        (lambda X, y, s: (X, y, s.assign(gender=list("abcabcabca"))), "declared binary but"),
        (lambda X, y, s: (X, y, s, np.ones(10, bool)), "leave at least two rows"),
        (lambda X, y, s: [X, y, s], "expected a tuple"),
    ],
)
def test_register_dataset_checks_the_loader_output(
    dataset_registry: _registry.Registry, change: Any, message: str
) -> None:
    X = pd.DataFrame({"income": np.arange(10.0)})
    y = pd.Series([0, 1] * 5)
    sensitive = pd.DataFrame({"gender": list("fmfmfmfmfm")})
    register_dataset(
        "bad",
        lambda: change(X, y, sensitive),
        task="classification",
        attributes={"gender": "binary"},
    )
    with pytest.raises((ValueError, TypeError), match=message):
        load_dataset("bad")


def test_register_dataset_checks_its_arguments(dataset_registry: _registry.Registry) -> None:
    def loader() -> tuple[Any, ...]:
        raise AssertionError("not called")

    with pytest.raises(ValueError, match="attributes\\['g'\\]='ordinal'"):
        register_dataset("x", loader, task="classification", attributes={"g": "ordinal"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="task='ranking'"):
        register_dataset("x", loader, task="ranking", attributes={"g": "binary"})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="name='has space'"):
        register_dataset("has space", loader, task="regression", attributes={"g": "binary"})
    with pytest.raises(ValueError, match="already registered"):
        register_dataset("adult", loader, task="regression", attributes={"g": "binary"})


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        ({"pos_label": ["yes"]}, r"pos_label=\['yes'\] is not valid; expected the one outcome"),
        ({"pos_label": float("nan")}, "pos_label=nan is not valid"),
        ({"pos_label": "yes", "task": "regression"}, "pos_label is for task='classification'"),
        ({"attributes": {0: "binary"}}, "attributes has the key 0; the keys are the names"),
        ({"attributes": {"": "binary"}}, "attributes has the key ''"),
        ({"label": 1}, "label must be a str; got int"),
        ({"description": None}, "description must be a str; got NoneType"),
    ],
)
def test_register_dataset_checks_the_declaration_before_any_data(
    dataset_registry: _registry.Registry, declaration: dict[str, Any], message: str
) -> None:
    def loader() -> tuple[Any, ...]:
        raise AssertionError("not called")

    arguments: dict[str, Any] = {"task": "classification", "attributes": {"g": "binary"}}
    arguments.update(declaration)
    with pytest.raises((TypeError, ValueError), match=message):
        register_dataset("declared", loader, **arguments)
    with pytest.raises(ValueError, match="unknown dataset 'declared'"):
        load_dataset("declared")


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown dataset 'adlut'") as caught:
        load_dataset("adlut")
    assert "'adult'" in str(caught.value) and "'synthetic'" in str(caught.value)


def test_bad_random_state() -> None:
    with pytest.raises(ValueError, match="random_state=-1"):
        load_dataset("synthetic", random_state=-1)
    with pytest.raises(ValueError, match=r"random_state=1\.5"):
        load_dataset("synthetic", random_state=1.5)  # type: ignore[arg-type]


def test_entry_point_sources_are_discovered(
    dataset_registry: _registry.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    def plugin_source(name: str) -> DatasetSource:
        def load(paths: Any) -> LoadedTable:
            X = pd.DataFrame({"x": np.arange(50.0)})
            return LoadedTable(X, pd.Series(np.arange(50.0) / 7), pd.DataFrame({"g": X["x"] % 3}))

        return DatasetSource(name, "regression", {"g": "continuous"}, load, rows=50)

    def broken() -> Any:
        raise ImportError("no module named toolkit")

    entry_points = [
        SimpleNamespace(name="one", value="plugin:ONE", load=lambda: plugin_source("from_plugin")),
        SimpleNamespace(
            name="many",
            value="plugin:many",
            load=lambda: lambda: [plugin_source("second"), plugin_source("adult")],
        ),
        SimpleNamespace(name="broken", value="toolkit:sources", load=broken),
    ]
    seen = []

    def fake_entry_points(*, group: str) -> list[SimpleNamespace]:
        seen.append(group)
        return entry_points

    monkeypatch.setattr(_registry.metadata, "entry_points", fake_entry_points)
    assert load_dataset("synthetic").name == "synthetic"
    assert seen == []  # built-in names do not need the entry points
    with pytest.warns(RuntimeWarning) as warned:
        table = list_datasets()
    assert seen == [ENTRY_POINT_GROUP]
    messages = " ".join(str(w.message) for w in warned)
    assert "broken" in messages and "no module named toolkit" in messages
    assert "'adult', a name already taken" in messages
    assert table.loc["from_plugin", "origin"] == "entry point one (plugin:ONE)"
    assert table.loc["adult", "origin"] == "paper"
    data = load_dataset("second", random_state=4)
    assert data.task == "regression" and len(data.split.test) == 10
    list_datasets()
    assert seen == [ENTRY_POINT_GROUP]  # read once


# --- synthetic family -----------------------------------------------------------------------


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_synthetic_ground_truth(task: str) -> None:
    def scores(label: float, feature: float) -> dict[str, float]:
        data = make_fairness_dataset(
            1000,
            task=task,  # type: ignore[arg-type]
            label_dependence=label,
            feature_dependence=feature,
            random_state=0,
        )
        y = data.y.astype(float)
        return {
            "label": faircocco_score(y, data.sensitive, adjusted=True),
            "region": faircocco_score(y, data.sensitive[["region"]], adjusted=True),
            "proxies": faircocco_score(
                data.X[["x1", "x2"]], data.sensitive[["sex", "age"]], adjusted=True
            ),
            "others": faircocco_score(data.X[["x3", "x4"]], data.sensitive, adjusted=True),
        }

    independent, dependent = scores(0.0, 0.0), scores(2.0, 2.0)
    assert independent["label"] < 0.01 and dependent["label"] > 0.03
    assert independent["proxies"] < 0.01 and dependent["proxies"] > 0.2
    for result in (independent, dependent):
        assert result["region"] < 0.01 and result["others"] < 0.01


def test_synthetic_dataset_is_reproducible_and_typed() -> None:
    data = make_fairness_dataset(300, random_state=5)
    again = make_fairness_dataset(300, random_state=5)
    other = make_fairness_dataset(300, random_state=6)
    assert data.X.equals(again.X) and data.y.equals(again.y)
    assert np.array_equal(data.split.train, again.split.train)
    assert not data.X.equals(other.X)
    assert list(data.X.columns) == ["x1", "x2", "x3", "x4", "channel=a", "channel=b", "channel=c"]
    assert {c: str(t) for c, t in data.sensitive.dtypes.items()} == {
        "sex": "category",
        "age": "float64",
        "region": "category",
    }
    regression = make_fairness_dataset(300, task="regression", random_state=5)
    assert regression.name == "synthetic_regression" and regression.y.dtype == np.float64
    registered = load_dataset("synthetic", random_state=5)
    assert registered.X.shape == (2000, 7) and covers(registered.split, 2000)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_samples": 5}, "n_samples=5"),
        ({"task": "ranking"}, "task='ranking'"),
        ({"label_dependence": float("nan")}, "label_dependence=nan"),
        ({"feature_dependence": "1"}, "feature_dependence='1'"),
        ({"random_state": -3}, "random_state=-3"),
    ],
)
def test_synthetic_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_fairness_dataset(**kwargs)
    with pytest.raises(TypeError, match="n_samples must be an integer >= 20; got float"):
        make_fairness_dataset(n_samples=100.0)


# --- command line ---------------------------------------------------------------------------


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
