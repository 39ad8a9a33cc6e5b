"""``faircocco bench`` end to end on tiny settings, its presets and its errors."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from faircocco_plugins.bench import PAPER_DATASETS, SYNTHETIC_DATASETS, ResultsStore, preset_config
from faircocco_plugins.bench._runner import NEW_STORE_ADVICE
from faircocco_plugins.cli import main

pytest.importorskip("faircocco_torch")


def _bench(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["bench", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_bench_runs_resumes_and_points_to_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = [
        "--study",
        "cli",
        "--datasets",
        "synthetic,synthetic_regression",
        "--methods",
        "nn,hsic",
        "--notions",
        "eo",
        "--seeds",
        "1",
        "--grid",
        "quick",
        "--epochs",
        "1",
        "--max-train-rows",
        "100",
    ]
    status, out, err = _bench(capsys, *argv)
    assert status == 0, err
    # nn: 1 setting per dataset; hsic: 3, not applicable to the regression's continuous outcome
    summary = "study cli: 8 cells: 5 done, 0 skipped as already complete, 3 not applicable"
    assert f"{summary}, 0 failed" in out
    store = tmp_path / "faircocco-results.sqlite"
    assert f"store: {store}" in out
    assert f"faircocco report {store} --out report" in out
    assert "[5/5] ok" in err  # plain progress lines when not on a terminal
    runs = ResultsStore(store).runs("cli")
    assert runs["status"].value_counts().to_dict() == {"ok": 5, "not_applicable": 3}
    reason = runs.loc[runs["status"] == "not_applicable", "reason"].iloc[0]
    assert "hsic does not support continuous outcomes under notion='eo'" in reason

    status, out, _ = _bench(capsys, *argv)
    assert status == 0
    assert "0 done, 5 skipped as already complete, 3 not applicable, 0 failed" in out
    assert len(ResultsStore(store).runs("cli")) == 8


def test_bench_refuses_a_second_configuration_in_one_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "quick.sqlite"
    argv = ["--study", "quick", "--methods", "nn", "--notions", "dp", "--seeds", "1"]
    argv += ["--grid", "quick", "--epochs", "1", "--max-train-rows", "100", "--store", str(store)]
    status, _, err = _bench(capsys, *argv, "--datasets", "synthetic")
    assert status == 0, err
    before = store.read_bytes()
    status, out, err = _bench(capsys, *argv, "--datasets", "synthetic,synthetic_regression")
    assert status == 2 and out == ""
    assert err.startswith(
        f"faircocco: error: {store} holds a study of another configuration (datasets: "
        "['synthetic'] in the store, ['synthetic', 'synthetic_regression'] here)"
    )
    assert "faircocco bench --store PATH" in err and len(err.strip().splitlines()) == 1
    assert store.read_bytes() == before


#: A study of one cell a notion, quick to run.
TINY = ["--methods", "nn", "--notions", "dp", "--seeds", "1", "--grid", "quick", "--epochs", "1"]
TINY += ["--max-train-rows", "100", "--datasets", "synthetic"]


def test_bench_writes_its_report_with_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, report = tmp_path / "quick.sqlite", tmp_path / "quick-report"
    status, out, err = _bench(capsys, *TINY, "--store", str(store), "--report", str(report))
    assert status == 0, err
    assert f"report written to {report}" in out and "write a report" not in out
    assert (report / "README.md").is_file() and (report / "results-dp.md").is_file()
    assert (report / "pareto").is_dir()


def test_bench_refuses_a_report_folder_of_other_files_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, report = tmp_path / "quick.sqlite", tmp_path / "notes"
    report.mkdir()
    (report / "README.md").write_text("mine")
    status, out, err = _bench(capsys, *TINY, "--store", str(store), "--report", str(report))
    assert status == 2 and out == ""
    assert "holds files that are not an earlier report (README.md)" in err
    assert not store.exists()


def test_the_advice_to_name_another_store_follows_the_wrapping_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "quick.sqlite"
    assert _bench(capsys, *TINY, "--store", str(store))[0] == 0
    monkeypatch.setenv(NEW_STORE_ADVICE, "make demo DEMO_STORE=PATH")
    status, _, err = _bench(capsys, *TINY, "--store", str(store), "--seeds", "2")
    assert status == 2
    assert "write this study to a new store (make demo DEMO_STORE=PATH)" in err
    assert "--store" not in err


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_demo_writes_its_report_through_bench_and_names_its_store_variable() -> None:
    root = Path(__file__).resolve().parents[2]
    planned = subprocess.run(
        ["make", "-n", "demo", "DEMO_STORE=results/x.sqlite"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.replace("\\\n", " ")
    (command,) = [line for line in planned.splitlines() if "faircocco bench" in line]
    words = shlex.split(command)
    assert f"{NEW_STORE_ADVICE}=make demo DEMO_STORE=PATH" in words
    assert words[words.index("--report") + 1] == "results/x-report"
    assert "faircocco report" not in planned


def test_list_methods(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _bench(capsys, "--list-methods")
    assert status == 0
    for name in ("nn", "faircocco", "faircocco_constraint", "facl", "farmi", "hsic"):
        assert f"\n{name}: " in f"\n{out}"
    assert "bound in [" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--methods", "nn"], "name the datasets with --datasets"),
        (["--datasets", "synthetic", "--methods", "nope"], "unknown methods ['nope']"),
        (["--datasets", "synthetic", "--notions", "dp,fair"], "notions="),
        (["--datasets", "nowhere", "--methods", "nn"], "unknown dataset 'nowhere'"),
        (["--datasets", "synthetic", "--address", "tcp://x:1"], "--address needs --backend"),
        (["--datasets", "synthetic", "--seeds", "0"], "'0' is not a positive integer"),
    ],
)
def test_usage_errors(
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = _bench(capsys, *argv, "--store", str(tmp_path / "runs.sqlite"))
    assert status == 2
    assert message in err


def test_quick_preset_uses_the_paper_datasets_when_available(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FAIRCOCCO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FAIRCOCCO_DOWNLOAD", "0")
    monkeypatch.delenv("FAIRCOCCO_DATA", raising=False)
    (tmp_path / "empty").mkdir()
    config, notes = preset_config("quick", data_dir=str(tmp_path / "empty"))
    assert config.datasets == SYNTHETIC_DATASETS
    assert "synthetic datasets" in notes[0]
    assert config.name == "quick"
    assert (config.grid, config.seeds, config.notions) == ("quick", (0, 1), ("eo", "dp"))
    assert config.max_train_rows == 2000

    overridden, notes = preset_config(
        "quick", data_dir=str(tmp_path), datasets=("german",), epochs=3, name="mine"
    )
    assert (overridden.datasets, overridden.epochs, overridden.name) == (("german",), 3, "mine")
    assert notes == []


def test_synthetic_fallback_note_says_what_runs_and_how_to_give_the_data(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FAIRCOCCO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FAIRCOCCO_DOWNLOAD", "0")
    monkeypatch.delenv("FAIRCOCCO_DATA", raising=False)
    (tmp_path / "empty").mkdir()
    _, (note,) = preset_config("quick", data_dir=str(tmp_path / "empty"))
    assert note.startswith("none of the paper's datasets was found here or could be downloaded")
    assert "runs the synthetic datasets (synthetic, synthetic_regression) instead" in note
    assert "to run the paper's datasets, point --data-dir DIR or $FAIRCOCCO_DATA at" in note
    assert note.endswith("('faircocco datasets --data-dir DIR' lists the ones it finds)")


def test_the_estimate_says_it_is_of_the_synthetic_datasets_when_the_paper_data_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAIRCOCCO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FAIRCOCCO_DOWNLOAD", "0")
    monkeypatch.delenv("FAIRCOCCO_DATA", raising=False)
    store = str(tmp_path / "paper.sqlite")
    status, out, _ = _bench(capsys, "--preset", "quick", "--store", store, "--estimate")
    assert status == 0
    note, estimate = out.splitlines()
    assert note.startswith("note: none of the paper's datasets was found")
    assert "runs the synthetic datasets (synthetic, synthetic_regression) instead" in note
    assert estimate.startswith("study quick: ")
    assert "no cell has a measured time yet" in estimate


def test_fairlearn_preset_puts_fairlearns_mitigators_beside_ours() -> None:
    config, notes = preset_config("fairlearn")
    assert config.datasets == ("adult", "compas", "german", "drugs")
    assert {"fairlearn_expgrad", "fairlearn_expgrad_faircocco", "sklearn_unmitigated"} <= set(
        config.methods
    )
    assert {"faircocco", "facl", "nn"} <= set(config.methods)
    assert config.notions == ("dp", "eo") and config.seeds == (0, 1, 2)
    assert notes == []


def test_paper_preset_is_the_paper_protocol() -> None:
    config, _ = preset_config("paper", datasets=PAPER_DATASETS)
    assert config.datasets == PAPER_DATASETS
    assert config.seeds == tuple(range(10))
    assert config.grid == "full"
    assert config.methods == ()  # every installed method
    assert config.notions == ("dp", "eo", "cal")
    with pytest.raises(ValueError, match="preset='fast'"):
        preset_config("fast")
    with pytest.raises(TypeError, match=r"unknown study settings \['colour'\]"):
        preset_config("quick", colour="red")


def test_quick_preset_runs_the_paper_datasets_it_finds(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = os.environ.get("FAIRCOCCO_DATA")
    if not source or not (Path(source) / "german" / "german.data").is_file():
        pytest.skip("needs german.data under $FAIRCOCCO_DATA")
    (tmp_path / "data" / "german").mkdir(parents=True)
    shutil.copy(Path(source) / "german" / "german.data", tmp_path / "data" / "german")
    monkeypatch.setenv("FAIRCOCCO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FAIRCOCCO_DOWNLOAD", "0")
    monkeypatch.delenv("FAIRCOCCO_DATA", raising=False)
    config, notes = preset_config("quick", data_dir=str(tmp_path / "data"))
    assert config.datasets == ("german",)
    assert "runs german only" in notes[0]
    assert "adult" in notes[0]


def _without(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == module else find_spec(name)
    )


def test_bench_without_the_plotting_library_stops_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _without(monkeypatch, "matplotlib")
    store = tmp_path / "results.sqlite"
    status, _, err = _bench(capsys, "--datasets", "synthetic", "--store", str(store))
    assert status == 2
    assert "needs matplotlib" in err and 'pip install "faircocco-plugins[bench]"' in err
    assert not store.exists()


def test_report_without_the_plotting_library_names_the_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _without(monkeypatch, "matplotlib")
    out = tmp_path / "report"
    status = main(["report", str(tmp_path / "results.sqlite"), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2
    assert "needs matplotlib" in err and "--no-plots" in err
    assert not out.exists()
