"""End-to-end tests of the ``faircocco`` command: score and demo."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from faircocco_plugins import (
    cli,
    faircocco_report,
    faircocco_score,
    independence_test,
    make_synthetic,
)
from faircocco_plugins.cli import BROKEN_PIPE, INTERRUPTED, main

ATTRIBUTES = ["sex", "age", "region"]


@pytest.fixture(scope="module")
def people() -> pd.DataFrame:
    return make_synthetic(600, random_state=3)


@pytest.fixture
def csv_file(tmp_path: Path, people: pd.DataFrame) -> Path:
    path = tmp_path / "people.csv"
    people.to_csv(path, index=False)
    return path


@pytest.fixture
def parquet_file(tmp_path: Path, people: pd.DataFrame) -> Path:
    pytest.importorskip("pyarrow")
    path = tmp_path / "people.parquet"
    people.to_parquet(path, row_group_size=250)
    return path


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def report_rows(out: str, attributes: list[str] = ATTRIBUTES) -> dict[str, list[str]]:
    """The rows of the printed report tables, by their first cell (the last table wins)."""
    rows: dict[str, list[str]] = {}
    for line in out.splitlines():
        cells = line.split()
        if cells and cells[0] in ("joint", *attributes):
            rows[cells[0]] = cells[1:]
    return rows


def joint_score(out: str) -> float:
    return float(report_rows(out)["joint"][0])


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("faircocco: error: ")
    assert "Traceback" not in err
    return lines[0]


# --- score, in memory ------------------------------------------------------------------------


def test_score_csv_prints_the_report(capsys, csv_file, people):
    code, out, _ = run_cli(
        capsys, "score", csv_file, "--pred", "y_pred", "--sensitive", "sex,age,region"
    )
    assert code == 0
    expected = faircocco_report(people["y_pred"], people[ATTRIBUTES])
    rows = report_rows(out)
    assert list(rows) == ["joint", *ATTRIBUTES]
    for name, cells in rows.items():
        assert float(cells[0]) == pytest.approx(expected.loc[name, "score"], abs=5e-5)
        assert float(cells[1]) == pytest.approx(expected.loc[name, "adjusted"], abs=5e-5)
    assert joint_score(out) == pytest.approx(
        faircocco_score(people["y_pred"], people[ATTRIBUTES]), abs=5e-5
    )
    assert "600 rows" in out and "notion DP" in out


def test_score_parquet_eo_with_target(capsys, parquet_file, people):
    code, out, _ = run_cli(
        capsys,
        "score",
        parquet_file,
        "--pred",
        "y_pred",
        "--sensitive",
        "sex, age",
        "--target",
        "y_true",
        "--notion",
        "eo",
    )
    assert code == 0
    expected = faircocco_score(
        people["y_pred"], people[["sex", "age"]], y_true=people["y_true"], notion="eo"
    )
    assert joint_score(out) == pytest.approx(expected, abs=5e-5)
    assert list(report_rows(out)) == ["joint", "sex", "age"]
    # the EO score differs from the DP score of the same predictions
    dp = faircocco_score(people["y_pred"], people[["sex", "age"]])
    assert abs(expected - dp) > 1e-3


def test_score_csv_gz_matches_plain_csv(capsys, tmp_path, csv_file, people):
    gz = tmp_path / "people.csv.gz"
    people.to_csv(gz, index=False)
    _, plain, _ = run_cli(capsys, "score", csv_file, "--pred", "y_pred", "--sensitive", "age")
    code, zipped, _ = run_cli(capsys, "score", gz, "--pred", "y_pred", "--sensitive", "age")
    assert code == 0
    assert report_rows(zipped) == report_rows(plain)


def test_score_with_permutations(capsys, csv_file, people):
    code, out, err = run_cli(
        capsys,
        "score",
        csv_file,
        "--pred",
        "y_pred",
        "--sensitive",
        "sex,age",
        "--target",
        "y_true",
        "--notion",
        "eo",
        "--permutations",
        "20",
        "--seed",
        "5",
    )
    assert code == 0
    match = re.search(r"p-value (\d\.\d{4})", out)
    assert match is not None, out
    expected = independence_test(
        people["y_pred"],
        people[["sex", "age"]],
        y_true=people["y_true"],
        notion="eo",
        n_permutations=20,
        random_state=5,
        null="permutation",
    )
    assert float(match.group(1)) == pytest.approx(expected.pvalue, abs=5e-5)
    # the predictions use sex and age directly: no permutation reaches the observed statistic
    assert expected.pvalue == pytest.approx(1 / 21)
    assert "permutations" in err  # the progress bar goes to standard error
    assert "20/20" in err
    # the test names its hypothesis and settings, and prints no second "score" beside the report's
    test_lines = out[out.index("permutation test") :]
    assert "H0: y_pred is independent of sex, age given y_true" in test_lines
    assert "eps 1 and kernel widths 1 × the median distance" in test_lines
    assert "not the score above" in test_lines
    assert f"{expected.score:.4f}" not in test_lines


@pytest.mark.parametrize("seed", ["-1", str(2**32), "1.5"])
def test_a_bad_seed_is_refused_before_reading(capsys, tmp_path, seed):
    # the file does not exist: the seed is checked before any reading
    code, out, err = run_cli(
        capsys, "score", tmp_path / "none.csv", "--pred", "p", "--sensitive", "s", "--seed", seed
    )
    assert code == 2
    assert out == ""
    assert "--seed" in err and repr(seed) in err and "Traceback" not in err


def test_largest_seed_is_accepted(capsys, csv_file, people):
    code, out, _ = run_cli(
        capsys, "score", csv_file, "--pred", "y_pred", "--sensitive", "age", "--seed", 2**32 - 1
    )
    assert code == 0
    expected = faircocco_score(people["y_pred"], people["age"], random_state=2**32 - 1)
    assert joint_score(out) == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize(("seconds", "announced"), [(0.01, False), (1.0, True)])
def test_exact_permutations_are_announced_with_their_estimate(
    capsys, monkeypatch, csv_file, seconds, announced
):
    """A permutation of 600 rows costs 1/25 of one of 3,000 rows; 20 of them take 20 times
    ``seconds``. The test itself is stubbed: the estimate, not the run, is under test."""
    monkeypatch.setitem(cli.PERMUTATION_SECONDS_AT_3000, "exact", (seconds * 25, 2))
    monkeypatch.setattr(cli, "independence_test", lambda *a, **k: pytest.fail("test ran"))
    arguments = ["score", str(csv_file), "--pred", "y_pred", "--sensitive", "sex"]
    with pytest.raises(pytest.fail.Exception, match="test ran"):
        main([*arguments, "--method", "exact", "--permutations", "20"])
    note = "note: --permutations 20 with the exact estimator at 600 rows would take about 20 s"
    assert (note in capsys.readouterr().err) == announced


def test_exact_permutations_beyond_the_budget_are_refused_up_front(capsys, monkeypatch, csv_file):
    # 40 s a permutation at 600 rows: 20 permutations take 800 s
    monkeypatch.setitem(cli.PERMUTATION_SECONDS_AT_3000, "exact", (40.0 * 25, 2))
    monkeypatch.setattr(cli, "faircocco_report", lambda *a, **k: pytest.fail("report ran"))
    code, out, err = run_cli(
        capsys,
        "score",
        csv_file,
        "--pred",
        "y_pred",
        "--sensitive",
        "sex",
        "--method",
        "exact",
        "--permutations",
        20,
    )
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert (
        "--permutations 20 with the exact estimator at 600 rows would take about 13.3 minutes"
        in line
    )
    assert "--method lowrank" in line


@pytest.mark.parametrize(
    ("rows", "method", "route"), [(600, "lowrank", "lowrank"), (100, "auto", "exact")]
)
def test_permutations_beyond_the_budget_are_refused_up_front_on_every_route(
    capsys, monkeypatch, tmp_path, people, rows, method, route
):
    """10⁸ permutations take hours however cheap each is, and their statistics alone 2.4 GB."""
    path = tmp_path / "people.csv"
    people.iloc[:rows].to_csv(path, index=False)
    monkeypatch.setattr(cli, "faircocco_report", lambda *a, **k: pytest.fail("report ran"))
    code, out, err = run_cli(
        capsys,
        "score",
        path,
        "--pred",
        "y_pred",
        "--sensitive",
        "sex",
        "--method",
        method,
        "--permutations",
        100_000_000,
    )
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert f"--permutations 100,000,000 with the {route} estimator at {rows} rows" in line
    assert "over the budget of 10 minutes" in line and "fewer permutations" in line


def test_interrupted_permutations_stop_quietly(capsys, monkeypatch, csv_file):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "independence_test", interrupted)
    code, _, err = run_cli(
        capsys, "score", csv_file, "--pred", "y_pred", "--sensitive", "sex", "--permutations", 5
    )
    assert code == INTERRUPTED == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


# --- score, streamed -------------------------------------------------------------------------


def test_score_chunksize_csv_matches_the_streaming_api(capsys, csv_file):
    code, out, _ = run_cli(
        capsys,
        "score",
        csv_file,
        "--pred",
        "y_pred",
        "--sensitive",
        "sex,age,region",
        "--target",
        "y_true",
        "--notion",
        "eo",
        "--chunksize",
        "200",
    )
    assert code == 0
    expected = faircocco_score(
        "y_pred",
        ATTRIBUTES,
        y_true="y_true",
        notion="eo",
        data=pd.read_csv(csv_file, chunksize=200),
    )
    assert joint_score(out) == pytest.approx(expected, abs=5e-5)
    # read at least MIN_READ_ROWS rows at a time; the stream fits every row at once
    assert "600 rows in 1 chunk, notion EO, streamed (every row fitted at once" in out
    assert "rows/s" in out


def test_score_chunksize_parquet(capsys, parquet_file, people):
    code, out, _ = run_cli(
        capsys,
        "score",
        parquet_file,
        "--pred",
        "y_pred",
        "--sensitive",
        "age",
        "--chunksize",
        "600",
    )
    assert code == 0
    # one chunk holding every row is the in-memory low-rank estimator
    expected = faircocco_score(people["y_pred"], people["age"], method="lowrank")
    assert joint_score(out) == pytest.approx(expected, abs=5e-5)
    assert "600 rows in 1 chunk," in out


@pytest.mark.parametrize("notion", ["dp", "eo", "cal"])
@pytest.mark.parametrize("chunksize", [600, 200, 1])
def test_score_chunksize_prints_the_in_memory_report(capsys, csv_file, notion, chunksize):
    """A file of at most STREAM_FIT_ROWS rows is fitted at once, whatever the chunk size: the
    report is the in-memory one (a continuous y_pred's CAL null included), and a chunk of one
    row is no error."""
    target = [] if notion == "dp" else ["--target", "y_true"]
    arguments = ["score", csv_file, "--pred", "y_pred", "--sensitive", ",".join(ATTRIBUTES)]
    arguments += [*target, "--notion", notion]
    _, in_memory, _ = run_cli(capsys, *arguments)
    code, streamed, _ = run_cli(capsys, *arguments, "--chunksize", chunksize)
    assert code == 0
    assert list(report_rows(streamed)) == ["joint", *ATTRIBUTES]
    assert report_rows(streamed) == report_rows(in_memory)


def forty_levels(n: int) -> pd.DataFrame:
    """Synthetic people with a nominal column of 40 levels."""
    frame = make_synthetic(n, random_state=5)
    rng = np.random.default_rng(6)
    frame["group"] = np.char.add("g", rng.integers(0, 40, n).astype(str))
    return frame


@pytest.mark.parametrize("chunksize", [2, 5, 100, 1000])
def test_chunksize_does_not_change_the_report_of_a_file_with_40_levels(capsys, tmp_path, chunksize):
    path = tmp_path / "levels.csv"
    forty_levels(3000).to_csv(path, index=False)
    attributes = ["sex", "age", "group"]
    arguments = ["score", path, "--pred", "y_pred", "--sensitive", ",".join(attributes)]
    _, in_memory, _ = run_cli(capsys, *arguments)
    code, streamed, _ = run_cli(capsys, *arguments, "--chunksize", chunksize)
    assert code == 0
    rows = report_rows(streamed, attributes)
    assert list(rows) == ["joint", *attributes]
    assert rows == report_rows(in_memory, attributes)


def test_permutations_with_chunksize_is_a_usage_error(capsys, csv_file):
    code, _, err = run_cli(
        capsys,
        "score",
        csv_file,
        "--pred",
        "y_pred",
        "--sensitive",
        "sex",
        "--permutations",
        "20",
        "--chunksize",
        "100",
    )
    assert code == 2
    assert "error: --permutations" in err and "--chunksize" in err


def zip_codes(n: int, text_from: int) -> pd.DataFrame:
    """Synthetic people with a zip-code-like column: digits alone before row ``text_from``,
    which pandas reads as integers, and codes with a letter from there on, which it reads as
    text; the predictions depend on it."""
    frame = make_synthetic(n, random_state=7)
    rng = np.random.default_rng(8)
    digits = rng.integers(1, 10, n)
    frame["zip"] = digits.astype(str)
    frame.loc[text_from:, "zip"] = np.char.add("A", digits[text_from:].astype(str))
    frame["y_pred"] += 0.2 * digits
    return frame


@pytest.mark.parametrize("chunksize", [100, 1000])
def test_a_column_read_as_numbers_in_some_chunks_and_text_in_others_has_one_type(
    capsys, monkeypatch, tmp_path, chunksize
):
    """A zip code 7 is one level whether its chunk of the file holds letters or not: the
    report of every chunk size is the one of the whole file read at once."""
    monkeypatch.setattr(cli, "MIN_READ_ROWS", 1)
    path = tmp_path / "zips.csv"
    zip_codes(3000, text_from=2000).to_csv(path, index=False)
    whole = pd.read_csv(path)
    assert whole["zip"].nunique() == 18
    expected = faircocco_report(whole["y_pred"], whole[["sex", "zip"]])
    arguments = ["score", path, "--pred", "y_pred", "--sensitive", "sex,zip"]
    _, in_memory, _ = run_cli(capsys, *arguments)
    code, streamed, err = run_cli(capsys, *arguments, "--chunksize", chunksize)
    assert code == 0, err
    rows = report_rows(streamed, ["sex", "zip"])
    assert rows == report_rows(in_memory, ["sex", "zip"])
    assert float(rows["joint"][0]) == pytest.approx(expected.loc["joint", "score"], abs=5e-5)
    assert rows["joint"][-2:] == [str(expected.loc["joint", "rank"]), "3000"]


def test_a_column_read_as_text_only_after_the_fit_sample_keeps_its_levels(capsys, tmp_path):
    """Read 10,000 rows at a time, the file's first chunk holds digits alone and its second
    letters too: each zip code is still one level, as in memory, at every chunk size."""
    path = tmp_path / "zips.csv"
    zip_codes(12_000, text_from=10_500).to_csv(path, index=False)
    arguments = ["score", path, "--pred", "y_pred", "--sensitive", "zip"]
    _, in_memory, _ = run_cli(capsys, *arguments)
    reports = []
    for chunksize in (1000, 4000):
        code, streamed, err = run_cli(capsys, *arguments, "--chunksize", chunksize)
        assert code == 0, err
        reports.append(report_rows(streamed, ["zip"]))
    assert reports[0] == reports[1]
    rank = report_rows(in_memory, ["zip"])["zip"][-2]
    assert rank == "18" and reports[0]["zip"][-2] == rank
    # bandwidths and pivots from the first 10,000 rows: 0.1436 against 0.1441 in memory, where
    # two types gave 27 levels and 0.1169
    assert float(reports[0]["zip"][0]) == pytest.approx(joint_score(in_memory), abs=1e-3)


def test_the_in_memory_read_of_a_file_of_several_read_chunks_has_one_type_per_column(
    capsys, monkeypatch, tmp_path
):
    monkeypatch.setattr(cli, "DEFAULT_CHUNK_ROWS", 1000)
    path = tmp_path / "zips.csv"
    zip_codes(3000, text_from=2500).to_csv(path, index=False)
    whole = pd.read_csv(path)
    expected = faircocco_report(whole["y_pred"], whole[["zip"]])
    code, out, err = run_cli(capsys, "score", path, "--pred", "y_pred", "--sensitive", "zip")
    assert code == 0, err
    assert joint_score(out) == pytest.approx(expected.loc["joint", "score"], abs=5e-5)
    # a column of one type in every chunk keeps it
    monkeypatch.setattr(cli, "DEFAULT_CHUNK_ROWS", 700)
    code, out, err = run_cli(capsys, "score", path, "--pred", "y_pred", "--sensitive", "age")
    assert code == 0, err
    assert joint_score(out) == pytest.approx(
        faircocco_score(whole["y_pred"], whole["age"]), abs=5e-5
    )


@pytest.mark.parametrize("chunksize", [None, "100"])
@pytest.mark.parametrize(
    ("column", "word"), [("y_pred", "?"), ("age", "unknown"), ("y_true", "abc")]
)
def test_a_column_of_numbers_with_a_stray_word_is_refused(
    capsys, monkeypatch, tmp_path, people, chunksize, column, word
):
    """Read 100 rows at a time, the word's chunk holds text and the others numbers."""
    monkeypatch.setattr(cli, "DEFAULT_CHUNK_ROWS", 100)
    monkeypatch.setattr(cli, "MIN_READ_ROWS", 1)
    stray = people.astype({column: object})
    stray.loc[[41, 300], column] = word
    path = tmp_path / "stray.csv"
    stray.to_csv(path, index=False)
    arguments = ["score", path, "--pred", "y_pred", "--sensitive", "sex,age", "--target"]
    arguments += ["y_true", "--notion", "eo"]
    arguments += [] if chunksize is None else ["--chunksize", chunksize]
    code, out, err = run_cli(capsys, *arguments)
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert f"column {column!r} of {path} holds numbers and 1 value that is not: " in line
    assert f"{word!r} (first in row 42)" in line
    assert f"--missing-values {shlex.quote(word)}" in line
    # named as a missing value, it is refused by its row
    code, _, err = run_cli(capsys, *arguments, "--missing-values", word)
    assert f"row 42 of {path} has no value in column {column!r}" in one_line_error(err)


@pytest.mark.parametrize("chunksize", [None, "100"])
def test_a_column_of_text_with_a_number_stays_labels(capsys, tmp_path, people, chunksize):
    labels = people.astype({"sex": object})
    labels.loc[41, "sex"] = "1"
    path = tmp_path / "labels.csv"
    labels.to_csv(path, index=False)
    arguments = ["score", path, "--pred", "y_pred", "--sensitive", "sex"]
    arguments += [] if chunksize is None else ["--chunksize", chunksize]
    code, out, err = run_cli(capsys, *arguments)
    assert code == 0, err
    expected = faircocco_score(labels["y_pred"], labels["sex"])
    assert joint_score(out) == pytest.approx(expected, abs=5e-5)


def regions(n: int) -> pd.DataFrame:
    """Synthetic people with a region code among EU, NA (North America) and AS."""
    frame = make_synthetic(n, random_state=9)
    frame["region"] = np.random.default_rng(10).choice(["EU", "NA", "AS"], n)
    return frame


@pytest.mark.parametrize("chunksize", [None, "100"])
def test_missing_values_keeps_a_region_code_na(capsys, monkeypatch, tmp_path, chunksize):
    monkeypatch.setattr(cli, "MIN_READ_ROWS", 1)
    people = regions(600)
    path = tmp_path / "regions.csv"
    people.to_csv(path, index=False)
    arguments = ["score", path, "--pred", "y_pred", "--sensitive", "sex,region"]
    arguments += [] if chunksize is None else ["--chunksize", chunksize]
    code, _, err = run_cli(capsys, *arguments)
    assert code == 2
    first = int(np.flatnonzero(people["region"] == "NA")[0]) + 1
    line = one_line_error(err)
    assert f"row {first} of {path} has no value in column 'region'" in line
    assert "--missing-values ''" in line
    code, out, err = run_cli(capsys, *arguments, "--missing-values", "")
    assert code == 0, err
    expected = faircocco_report(people["y_pred"], people[["sex", "region"]])
    assert joint_score(out) == pytest.approx(expected.loc["joint", "score"], abs=5e-5)
    assert report_rows(out, ["sex", "region"])["region"][-1] == "600"


def test_missing_values_names_the_markers_of_a_missing_field(capsys, tmp_path):
    people = regions(600)
    people["age"] = people["age"].astype(object)
    people.loc[41, "age"] = "?"
    people.loc[52, "region"] = ""
    path = tmp_path / "marked.csv"
    people.to_csv(path, index=False)
    arguments = ["score", path, "--pred", "y_pred", "--sensitive", "age,region"]
    code, _, err = run_cli(capsys, *arguments, "--missing-values", "?")
    assert code == 2
    line = one_line_error(err)
    assert f"row 42 of {path} has no value in column 'age'" in line and "['?']" in line
    # an empty field is always missing
    people.loc[41, "age"] = 30
    people.to_csv(path, index=False)
    code, _, err = run_cli(capsys, *arguments, "--missing-values", "?")
    assert f"row 53 of {path} has no value in column 'region'" in one_line_error(err)


def test_missing_values_is_for_csv_files(capsys, parquet_file):
    code, _, err = run_cli(
        capsys,
        "score",
        parquet_file,
        "--pred",
        "y_pred",
        "--sensitive",
        "sex",
        "--missing-values",
        "",
    )
    assert code == 2
    assert "--missing-values" in err and "CSV" in err


# --- score, errors ---------------------------------------------------------------------------


def test_missing_column_is_one_clean_line(capsys, csv_file):
    code, out, err = run_cli(
        capsys, "score", csv_file, "--pred", "y_pred", "--sensitive", "sex,income"
    )
    assert code == 2
    assert out == ""
    line = one_line_error(err)
    assert "'income'" in line and "--sensitive" in line


def test_missing_target_column_in_stream(capsys, parquet_file):
    code, _, err = run_cli(
        capsys,
        "score",
        parquet_file,
        "--pred",
        "y_pred",
        "--sensitive",
        "sex",
        "--target",
        "outcome",
        "--notion",
        "eo",
        "--chunksize",
        "100",
    )
    assert code == 2
    assert "'outcome'" in one_line_error(err)


def test_missing_file_is_one_clean_line(capsys, tmp_path):
    missing = tmp_path / "nowhere.csv"
    code, _, err = run_cli(capsys, "score", missing, "--pred", "y_pred", "--sensitive", "sex")
    assert code == 2
    assert str(missing) in one_line_error(err)


def test_library_errors_are_one_clean_line(capsys, tmp_path, people):
    path = tmp_path / "gaps.csv"
    gaps = people.copy()
    gaps.loc[7, "age"] = np.inf
    gaps.to_csv(path, index=False)
    code, _, err = run_cli(capsys, "score", path, "--pred", "y_pred", "--sensitive", "sex,age")
    assert code == 2
    line = one_line_error(err)
    assert "'age'" in line and "infinite" in line


@pytest.fixture
def gzip_bytes(people: pd.DataFrame) -> bytes:
    import gzip

    return gzip.compress(pd.concat([people] * 20).to_csv(index=False).encode())


@pytest.mark.parametrize("chunksize", [None, "1000"])
@pytest.mark.parametrize("damage", ["truncated", "corrupted"])
def test_damaged_gzip_is_one_clean_line(capsys, tmp_path, gzip_bytes, damage, chunksize):
    half = len(gzip_bytes) // 2
    if damage == "truncated":
        data = gzip_bytes[:half]
    else:
        data = gzip_bytes[:half] + bytes(64) + gzip_bytes[half + 64 :]
    path = tmp_path / "people.csv.gz"
    path.write_bytes(data)
    options = [] if chunksize is None else ["--chunksize", chunksize]
    code, _, err = run_cli(
        capsys, "score", path, "--pred", "y_pred", "--sensitive", "sex", *options
    )
    assert code == 2
    line = one_line_error(err)
    assert f"cannot read {path}" in line and "truncated or corrupted" in line


def test_duplicate_header_is_refused(capsys, tmp_path, people):
    path = tmp_path / "twice.csv"
    people.rename(columns={"age": "sex"}).to_csv(path, index=False)
    code, _, err = run_cli(capsys, "score", path, "--pred", "y_pred", "--sensitive", "sex")
    assert code == 2
    assert "more than one column named ['sex']" in one_line_error(err)


@pytest.mark.parametrize("row", [0, 100])
def test_row_with_an_extra_field_is_refused(capsys, tmp_path, people, row):
    path = tmp_path / "extra.csv"
    lines = people.to_csv(index=False).splitlines()
    lines[row + 1] += ",7"
    path.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli(capsys, "score", path, "--pred", "y_pred", "--sensitive", "sex")
    assert code == 2
    assert f"cannot read {path}" in one_line_error(err)


def test_exact_method_cannot_stream(capsys, csv_file):
    code, _, err = run_cli(
        capsys,
        "score",
        csv_file,
        "--pred",
        "y_pred",
        "--sensitive",
        "sex",
        "--method",
        "exact",
        "--chunksize",
        "100",
    )
    assert code == 2
    assert "method='exact'" in one_line_error(err)


def test_unknown_format_and_eo_without_target(capsys, tmp_path, csv_file):
    code, _, err = run_cli(capsys, "score", tmp_path / "a.xlsx", "--pred", "p", "--sensitive", "s")
    assert code == 2
    assert ".csv" in one_line_error(err)
    code, _, err = run_cli(
        capsys, "score", csv_file, "--pred", "y_pred", "--sensitive", "sex", "--notion", "eo"
    )
    assert code == 2
    assert "--target" in err


@pytest.mark.parametrize("chunksize", [None, "100"])
@pytest.mark.parametrize("kept", [1, 3])
def test_a_csv_cut_in_its_last_row_is_refused(capsys, tmp_path, people, chunksize, kept):
    """The last row keeps ``kept`` of its fields (the last one possibly cut short) and has no
    line end, as a copy stopped mid-row leaves it: with three, the columns scored are whole."""
    text = people[["y_pred", "sex", "age", "region", "y_true"]].to_csv(index=False)
    last = text.rstrip("\n").rsplit("\n", 1)[1]
    cut = len(text) - len(last) - 1 + len(",".join(last.split(",")[:kept]))
    path = tmp_path / "cut.csv"
    path.write_text(text[: cut - 1])
    options = [] if chunksize is None else ["--chunksize", chunksize]
    code, out, err = run_cli(
        capsys, "score", path, "--pred", "y_pred", "--sensitive", "sex", *options
    )
    assert code == 2 and out == ""
    line = one_line_error(err)
    fields = len(people.columns)
    assert (
        f"{path} ends in the middle of a row: line 601 has {kept} of the header's {fields}" in line
    )


def test_a_csv_without_a_last_line_end_is_read(capsys, tmp_path, csv_file, people):
    path = tmp_path / "unended.csv"
    path.write_text(people.to_csv(index=False).rstrip("\n"))
    arguments = ["--pred", "y_pred", "--sensitive", "sex,age"]
    _, expected, _ = run_cli(capsys, "score", csv_file, *arguments)
    code, out, err = run_cli(capsys, "score", path, *arguments)
    assert code == 0, err
    assert report_rows(out) == report_rows(expected)


@pytest.mark.parametrize("command", [["datasets"], ["bench", "--preset", "quick", "--estimate"]])
def test_a_data_dir_that_does_not_exist_is_refused(capsys, tmp_path, command):
    """Not a silent fallback to the other places searched, or to the synthetic datasets."""
    missing = tmp_path / "nowhere"
    store = ["--store", str(tmp_path / "s.sqlite")] if command[0] == "bench" else []
    code, out, err = run_cli(capsys, *command, *store, "--data-dir", missing)
    assert code == 2 and out == ""
    assert f"data_dir {missing} does not exist" in one_line_error(err)
    (tmp_path / "a_file").write_text("")
    code, _, err = run_cli(capsys, *command, *store, "--data-dir", tmp_path / "a_file")
    assert code == 2
    assert "is not a directory" in one_line_error(err)


# --- demo --------------------------------------------------------------------------


def test_demo_prints_both_reports(capsys):
    code, out, _ = run_cli(capsys, "demo")
    assert code == 0
    assert out.startswith("Synthetic data: 2,000 people")
    tables = [line for line in out.splitlines() if line.split()[:1] == ["joint"]]
    assert len(tables) == 2
    people = make_synthetic(2000, random_state=0)
    for line, notion in zip(tables, ("dp", "eo"), strict=True):
        expected = faircocco_score(
            people["y_pred"], people[ATTRIBUTES], y_true=people["y_true"], notion=notion
        )
        assert float(line.split()[1]) == pytest.approx(expected, abs=5e-5)
    assert "Joint DP score: raw" in out and "Joint EO score: raw" in out
    assert "chance-adjusted" in out


# --- the installed command -------------------------------------------------------------------


def command() -> list[str]:
    script = Path(sys.executable).parent / "faircocco"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "faircocco_plugins.cli"]


def test_console_script_in_a_subprocess(csv_file, people):
    done = subprocess.run(
        [*command(), "score", str(csv_file), "--pred", "y_pred", "--sensitive", "sex,age"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    expected = faircocco_score(people["y_pred"], people[["sex", "age"]])
    assert joint_score(done.stdout) == pytest.approx(expected, abs=5e-5)

    failed = subprocess.run(
        [*command(), "score", str(csv_file) + ".missing", "--pred", "y_pred", "--sensitive", "sex"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert failed.returncode == 2
    assert ".missing" in one_line_error(failed.stderr)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_not_waited_on(tmp_path):
    """In a process of its own, so that a read that waits for a writer is stopped."""
    pipe = tmp_path / "people.csv"
    os.mkfifo(pipe)
    done = subprocess.run(
        [*command(), "score", str(pipe), "--pred", "y_pred", "--sensitive", "sex"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2
    assert f"file {pipe} is not a regular file" in one_line_error(done.stderr)


@pytest.mark.parametrize("subcommand", ["score", "datasets"])
def test_closed_stdout_pipe_exits_quietly(subcommand, tmp_path, csv_file):
    """``faircocco ... | head`` where the reader has gone before the output is written."""
    arguments = {
        "score": ["score", str(csv_file), "--pred", "y_pred", "--sensitive", "sex,age,region"],
        "datasets": ["datasets", "--json"],
    }[subcommand]
    environment = {**os.environ, "FAIRCOCCO_CACHE": str(tmp_path / "cache")}
    process = subprocess.Popen(
        [*command(), *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
    )
    assert process.stdout is not None and process.stderr is not None
    # the only read end closes while the command is still starting, so its first write fails
    process.stdout.close()
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait() == BROKEN_PIPE
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


# --- the synthetic data ----------------------------------------------------------------------


def test_make_synthetic_is_deterministic_and_typed():
    first = make_synthetic(500, random_state=11)
    assert first.equals(make_synthetic(500, random_state=11))
    assert not first.equals(make_synthetic(500, random_state=12))
    assert list(first.columns) == ["age", "sex", "region", "y_true", "y_pred"]
    assert set(first["sex"]) == {"f", "m"}
    assert isinstance(first["region"].dtype, pd.CategoricalDtype)
    assert len(first["region"].cat.categories) == 4
    assert set(first["y_true"]) == {0, 1}
    assert first["y_pred"].between(0, 1).all()


def test_make_synthetic_dependence_controls_equalised_odds():
    fair = make_synthetic(3000, random_state=0, dependence=0.0)
    unfair = make_synthetic(3000, random_state=0, dependence=1.0)
    scores = [
        faircocco_score(p["y_pred"], p[ATTRIBUTES], y_true=p["y_true"], notion="eo", adjusted=True)
        for p in (fair, unfair)
    ]
    assert scores[0] < 0.01 < 0.03 < scores[1]


@pytest.mark.parametrize(("n", "error"), [(1, ValueError), (0, ValueError), (2.5, TypeError)])
def test_make_synthetic_rejects_bad_sizes(n, error):
    with pytest.raises(error, match="n"):
        make_synthetic(n)
