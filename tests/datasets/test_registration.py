"""Tests of registering datasets: ``register_dataset``, its checks, entry-point sources."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from dataset_helpers import covers

from faircocco_plugins.datasets import (
    ENTRY_POINT_GROUP,
    DatasetLoadError,
    DatasetSource,
    LoadedTable,
    _registry,
    list_datasets,
    load_dataset,
    register_dataset,
)


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
