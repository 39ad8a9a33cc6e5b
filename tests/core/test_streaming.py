"""Scores from ``data=``: a DataFrame with column names, or an iterable of chunks.

A stream takes its bandwidths and pivots from its first ``STREAM_FIT_ROWS`` rows, which these
tests set to one chunk (:func:`fit_on_first`) unless they say otherwise. When the full table is
several copies of one chunk and the bandwidth is fixed, the pivoted Cholesky on the full table
picks the same pivots (``np.argmax`` takes the first maximum, which lies in the first copy), so
the streamed low-rank score must equal the in-memory one.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins import (
    faircocco_report,
    faircocco_score,
    faircocco_statistic,
    make_synthetic,
)
from faircocco_plugins._routes import dask as dask_route
from faircocco_plugins._routes import stream as stream_route

TILE = 250
COPIES = 4
DEFAULT_FIT_ROWS = stream_route.STREAM_FIT_ROWS


def fit_on_first(monkeypatch: pytest.MonkeyPatch, rows: int) -> None:
    """Make streams (and Dask DataFrames) take their bandwidths and pivots from ``rows`` rows."""
    for module in (stream_route, dask_route):
        monkeypatch.setattr(module, "STREAM_FIT_ROWS", rows)


@pytest.fixture(autouse=True)
def fit_on_one_tile(monkeypatch):
    fit_on_first(monkeypatch, TILE)


@pytest.fixture(scope="module")
def chunk():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            # in decades, so that the fixed bandwidth 1.0 suits every continuous column
            "age": rng.uniform(1.8, 8.0, TILE),
            "sex": rng.choice(["f", "m"], TILE),
            "band": rng.integers(0, 4, TILE),
            "y_true": (rng.random(TILE) < 0.4).astype(np.float64),
        }
    )
    frame["y_pred"] = 0.2 * frame["age"] + frame["y_true"] + rng.normal(size=TILE)
    frame["y_score"] = frame["age"] / 4 + rng.normal(size=TILE)
    return frame


def copies(chunk):
    return (chunk.copy() for _ in range(COPIES))


@pytest.mark.parametrize(
    ("notion", "y_true"),
    [("dp", None), ("eo", "y_true"), ("cal", "y_true"), ("eo", "y_score"), ("cal", "y_score")],
)
@pytest.mark.parametrize("kernel", ["product", "joint"])
def test_stream_of_copies_equals_in_memory_lowrank(chunk, notion, y_true, kernel):
    # the joint kernel one-hot encodes nominal columns, which needs all levels up front
    columns = ["age", "sex", "band"] if kernel == "product" else ["age", "band"]
    options = {"y_true": y_true, "notion": notion, "bandwidth": 1.0, "attribute_kernel": kernel}
    full = pd.concat(list(copies(chunk)), ignore_index=True)
    expected = faircocco_score("y_pred", columns, data=full, method="lowrank", **options)
    for method in ("auto", "lowrank"):
        streamed = faircocco_score("y_pred", columns, data=copies(chunk), method=method, **options)
        assert streamed == pytest.approx(expected, abs=1e-6)
    statistic = faircocco_statistic("y_pred", columns, data=copies(chunk), **options)
    assert statistic == pytest.approx(
        faircocco_statistic("y_pred", columns, data=full, method="lowrank", **options), rel=1e-6
    )


@pytest.mark.parametrize(("notion", "y_true"), [("dp", None), ("eo", "y_true"), ("cal", "y_true")])
def test_report_of_a_stream_equals_the_in_memory_lowrank_report(chunk, notion, y_true):
    columns = ["age", "sex", "band"]
    options = {"y_true": y_true, "notion": notion, "bandwidth": 1.0}
    full = pd.concat(list(copies(chunk)), ignore_index=True)
    expected = faircocco_report("y_pred", columns, data=full, method="lowrank", **options)
    numbers = ["score", "adjusted", "null_mean"]
    if notion == "cal":  # the null of a continuous y_pred needs the rows in memory
        with pytest.warns(UserWarning, match="continuous conditioning variable"):
            streamed = faircocco_report("y_pred", columns, data=copies(chunk), **options)
        assert streamed[["adjusted", "null_mean"]].isna().all(axis=None)
        numbers = ["score"]
    else:
        streamed = faircocco_report("y_pred", columns, data=copies(chunk), **options)
    assert list(streamed.index) == ["joint", *columns]
    assert np.allclose(streamed[numbers], expected[numbers], rtol=0, atol=1e-6)
    assert np.allclose(streamed["statistic"], expected["statistic"], rtol=1e-6)
    assert (streamed[["method", "n"]] == expected[["method", "n"]]).all(axis=None)
    # each attribute's row is the stream's score of that attribute alone
    for name in columns:
        alone = faircocco_score("y_pred", [name], data=copies(chunk), **options)
        assert streamed.loc[name, "score"] == pytest.approx(alone, abs=1e-12)


def test_adjusted_dp_score_of_a_stream(chunk):
    options = {"bandwidth": 1.0, "adjusted": True}
    full = pd.concat(list(copies(chunk)), ignore_index=True)
    expected = faircocco_score("y_pred", ["age", "sex"], data=full, method="lowrank", **options)
    streamed = faircocco_score("y_pred", ["age", "sex"], data=copies(chunk), **options)
    assert streamed == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_new_levels_in_later_chunks(chunk, notion):
    """Later chunks bring a new string level and a new integer level; continuous values repeat."""
    first = chunk.copy()
    later = chunk.copy()
    later.loc[later.index[::3], "sex"] = "x"
    later.loc[later.index[1::4], "band"] = 7
    chunks = [first, later, later.copy()]
    options = {"y_true": "y_true", "notion": notion, "bandwidth": 1.0}
    streamed = faircocco_score("y_pred", ["age", "sex", "band"], data=iter(chunks), **options)
    full = pd.concat(chunks, ignore_index=True)
    expected = faircocco_score(
        "y_pred", ["age", "sex", "band"], data=full, method="lowrank", **options
    )
    assert 0.0 <= streamed <= 1.0
    assert streamed == pytest.approx(expected, abs=1e-6)


def test_data_frame_with_column_names_equals_arrays(chunk):
    columns = ["age", "sex", "band"]
    for notion in ("dp", "eo", "cal"):
        y_true = None if notion == "dp" else "y_true"
        by_name = faircocco_score("y_pred", columns, y_true=y_true, notion=notion, data=chunk)
        by_value = faircocco_score(
            chunk["y_pred"],
            chunk[columns],
            y_true=None if y_true is None else chunk["y_true"],
            notion=notion,
        )
        assert by_name == by_value


def test_a_single_column_name_is_accepted(chunk):
    assert faircocco_score("y_pred", "age", data=chunk) == faircocco_score(
        chunk["y_pred"], chunk[["age"]]
    )


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("arguments", "missing"),
    [
        ({"y_pred": "prediction", "sensitive_features": ["age"]}, "prediction"),
        ({"y_pred": "y_pred", "sensitive_features": ["age", "income"]}, "income"),
        (
            {"y_pred": "y_pred", "sensitive_features": ["age"], "y_true": "label", "notion": "eo"},
            "label",
        ),
    ],
)
def test_missing_column_is_named(chunk, arguments, missing, stream):
    data = copies(chunk) if stream else chunk
    with pytest.raises(ValueError, match=missing):
        faircocco_score(data=data, **arguments)


def test_exact_method_cannot_stream(chunk):
    with pytest.raises(ValueError, match="exact"):
        faircocco_score("y_pred", ["age"], data=copies(chunk), method="exact")


def test_joint_kernel_with_nominal_columns_cannot_stream(chunk):
    with pytest.raises(ValueError, match="joint"):
        faircocco_score("y_pred", ["sex"], data=copies(chunk), attribute_kernel="joint")


def test_empty_stream(chunk):
    with pytest.raises(ValueError, match="empty"):
        faircocco_score("y_pred", ["age"], data=iter([]))


def test_chunks_must_be_dataframes(chunk):
    with pytest.raises(TypeError, match="DataFrame"):
        faircocco_score("y_pred", ["age"], data=iter([chunk, chunk.to_numpy()]))


def test_column_names_are_required_with_data(chunk):
    with pytest.raises(TypeError, match="y_pred"):
        faircocco_score(chunk["y_pred"], ["age"], data=chunk)


def test_read_csv_chunks(chunk, tmp_path):
    path = tmp_path / "table.csv"
    pd.concat(list(copies(chunk)), ignore_index=True).to_csv(path, index=False)
    options = {"y_true": "y_true", "notion": "eo"}
    columns = ["age", "sex", "band"]
    with pd.read_csv(path, chunksize=TILE) as reader:
        streamed = faircocco_score("y_pred", columns, data=reader, bandwidth=1.0, **options)
    full = pd.read_csv(path)
    expected = faircocco_score(
        "y_pred", columns, data=full, method="lowrank", bandwidth=1.0, **options
    )
    assert streamed == pytest.approx(expected, abs=1e-6)
    # with the median heuristic, the stream equals the same chunks given as DataFrames
    with pd.read_csv(path, chunksize=300) as reader:
        from_csv = faircocco_score("y_pred", columns, data=reader, **options)
    pieces = [full.iloc[start : start + 300] for start in range(0, len(full), 300)]
    assert from_csv == pytest.approx(
        faircocco_score("y_pred", columns, data=iter(pieces), **options), rel=1e-12
    )
    assert 0.0 <= from_csv <= 1.0


def test_a_stream_sorted_by_an_attribute_warns_and_names_it(monkeypatch):
    fit_on_first(monkeypatch, 1000)
    people = make_synthetic(6000, random_state=0).sort_values("age")
    chunks = (people.iloc[i : i + 1000] for i in range(0, len(people), 1000))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        faircocco_score("y_pred", ["sex", "age"], data=chunks)
    messages = [str(w.message) for w in caught if w.category is UserWarning]
    # the predictions follow age, so they drift too
    assert any("values of 'age' lie outside the range of the first" in m for m in messages)


def test_a_shuffled_stream_does_not_warn(monkeypatch):
    fit_on_first(monkeypatch, 500)
    people = make_synthetic(6000, random_state=0)
    chunks = (people.iloc[i : i + 500] for i in range(0, len(people), 500))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        faircocco_score("y_pred", ["sex", "age"], data=chunks)


def forty_levels(n: int) -> pd.DataFrame:
    """Synthetic people with a nominal column of 40 levels and a numeric one of 40 values."""
    frame = make_synthetic(n, random_state=5)
    rng = np.random.default_rng(6)
    frame["group"] = np.char.add("g", rng.integers(0, 40, n).astype(str))
    frame["grade"] = rng.integers(0, 40, n)
    return frame


LEVEL_ATTRIBUTES = ["sex", "age", "group"]
NUMBERS = ["score", "adjusted", "null_mean", "statistic"]


def pieces(frame: pd.DataFrame, size: int) -> list[pd.DataFrame]:
    return [frame.iloc[start : start + size] for start in range(0, len(frame), size)]


# chunks of one row, of 100 rows and of the fit sample itself; chunks of 2 and of 5 rows, once
# tested too, cost 20 to 40 s each on a loaded machine and tested nothing chunks of one row do not
@pytest.mark.parametrize("size", [1, 100, 1000])
def test_a_stream_within_the_fit_sample_gives_the_in_memory_report(monkeypatch, size):
    fit_on_first(monkeypatch, DEFAULT_FIT_ROWS)
    people = forty_levels(3000)
    expected = faircocco_report(people["y_pred"], people[LEVEL_ATTRIBUTES])
    streamed = faircocco_report("y_pred", LEVEL_ATTRIBUTES, data=pieces(people, size))
    assert np.allclose(streamed[NUMBERS], expected[NUMBERS], rtol=1e-9, atol=0)
    assert (streamed[["method", "rank", "n"]] == expected[["method", "rank", "n"]]).all(axis=None)


@pytest.mark.parametrize("size", [1, 100])
def test_a_longer_stream_gives_one_report_whatever_the_chunk_size(monkeypatch, size):
    """Beyond the fit sample every chunk size gives the report of one block per fit sample, and
    a chunk of one row after the fit sample (1001 rows in chunks of 1000) is no error."""
    fit_on_first(monkeypatch, 1000)
    people = forty_levels(3000)
    reference = faircocco_report("y_pred", LEVEL_ATTRIBUTES, data=pieces(people, 1000))
    streamed = faircocco_report("y_pred", LEVEL_ATTRIBUTES, data=pieces(people, size))
    assert np.allclose(streamed[NUMBERS], reference[NUMBERS], rtol=1e-9, atol=0)
    assert faircocco_score("y_pred", ["sex"], data=pieces(people.iloc[:1001], 1000)) > 0


def test_levels_first_seen_after_the_fit_sample(monkeypatch):
    """The fit sample holds 20 of the 40 groups; sorted by grade, it holds 7 of its 40 values.
    The later ones join the exact level factors, while in memory, with more than MAX_LEVELS
    values, grade is factored by incomplete Cholesky: the stream measures the same kernels (a
    fixed bandwidth keeps them the same), up to the factor's tolerance."""
    fit_on_first(monkeypatch, 1000)
    people = forty_levels(3000)
    people["grade"] = people["grade"] / 10
    early = people["group"].str[1:].astype(int) < 20
    people = pd.concat([people[early].iloc[:1000], people[early].iloc[1000:], people[~early]])
    columns = ["group", "grade"]
    expected = faircocco_report("y_pred", columns, data=people, method="lowrank", bandwidth=1.0)
    streamed = faircocco_report("y_pred", columns, data=pieces(people, 700), bandwidth=1.0)
    assert np.allclose(streamed[NUMBERS], expected[NUMBERS], rtol=1e-4, atol=1e-8)
    ordered = people.sort_values("grade", kind="stable")
    expected = faircocco_score("y_pred", ["grade"], data=ordered, method="lowrank", bandwidth=1.0)
    streamed = faircocco_score("y_pred", ["grade"], data=pieces(ordered, 700), bandwidth=1.0)
    assert streamed == pytest.approx(expected, rel=1e-4)


@pytest.mark.parametrize(
    "sizes", [[5] * 7, [1] * 30, [1000, 1000, 3], [12, 1], [11], [10, 2], [30, 40, 1], [2], [1]]
)
def test_row_blocks_keep_the_rows_in_order_in_blocks_of_two_or_more(sizes):
    """The first block is the fit sample (10 rows here, or all of up to 11); no block has fewer
    than two rows unless the stream has; a chunk of 10 rows or more is not copied."""
    starts = np.cumsum([0, *sizes])
    frames = [pd.DataFrame({"row": np.arange(a, b)}) for a, b in itertools.pairwise(starts)]
    blocks = list(stream_route.row_blocks(frames, 10))
    rows = np.concatenate([block["row"].to_numpy() for block in blocks])
    assert np.array_equal(rows, np.arange(starts[-1]))
    lengths = [len(block) for block in blocks]
    assert lengths[0] == (starts[-1] if starts[-1] <= 11 else 10)
    assert min(lengths) >= min(2, starts[-1])
    for frame in frames[1:]:
        if len(frame) >= 10:
            assert any(
                np.shares_memory(frame["row"].to_numpy(), b["row"].to_numpy()) for b in blocks
            )


@pytest.mark.parametrize(
    ("first", "later", "kinds"),
    [
        ([7, 3] * 125, ["7", "A3"] * 125, "numbers in earlier chunks and labels"),
        (["7", "A3"] * 125, [7, 3] * 125, "labels in earlier chunks and numbers"),
        ([True, False] * 125, ["True", "maybe"] * 125, "booleans in earlier chunks and labels"),
    ],
)
def test_a_column_typed_apart_by_its_chunks_is_refused(chunk, first, later, kinds):
    """pd.read_csv(chunksize=...) guesses each chunk's types apart: a zip code 7 read as a
    number in one chunk and as text in another would be two levels."""
    chunks = [chunk.assign(zip=first), chunk.assign(zip=later)]
    with pytest.raises(ValueError, match=f"column 'zip' holds {kinds} in a later one.*dtype="):
        faircocco_score("y_pred", ["sex", "zip"], data=chunks)


def test_integers_and_decimals_in_different_chunks_are_one_column_of_numbers(chunk):
    halves = [chunk.assign(band=chunk["band"]), chunk.assign(band=chunk["band"] + 0.5)]
    joined = pd.concat(halves, ignore_index=True)
    expected = faircocco_score("y_pred", ["band"], data=[joined.astype({"band": float})])
    assert faircocco_score("y_pred", ["band"], data=halves) == pytest.approx(expected, rel=1e-12)
