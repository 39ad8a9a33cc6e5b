"""The paper's smaller experiments, run on the synthetic datasets, and their pages."""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_paper_pages import export  # noqa: F401  (the study's export the pages start from)

from faircocco_plugins import faircocco_report
from faircocco_plugins.bench._runner import RegistryLoader
from faircocco_plugins.bench.paper._common import PaperNumbers
from faircocco_plugins.bench.paper._experiments import (
    RUNNERS,
    AttributeLoader,
    ExperimentSettings,
    _batch_estimates,
    attributes_experiment,
    convergence_experiment,
    pvalues_experiment,
    train_network,
)
from faircocco_plugins.bench.paper._extra_pages import (
    pvalue_trends,
    stable_batch_sizes,
    write_experiment_pages,
)
from faircocco_plugins.cli import main

pytest.importorskip("faircocco_torch")
pytest.importorskip("matplotlib")

PAPER = Path(__file__).resolve().parents[2] / "docs" / "results" / "paper" / "paper_numbers.csv"
#: Few rows and epochs, so that every network trains in a fraction of a second.
TINY = ExperimentSettings(seeds=(0,), epochs=2, warmup_epochs=1, max_train_rows=200, progress=False)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("experiments")
    frames = {
        "convergence": convergence_experiment(
            TINY, datasets=("synthetic",), batch_sizes=(16, 256), batches=3
        ),
        "attributes": attributes_experiment(
            TINY,
            attribute_sets={"synthetic_regression": ("x1", "sex")},
            moved={"synthetic_regression": ("x1",)},
            lambdas=(0.0, 5.0),
        ),
        "pvalues": pvalues_experiment(
            TINY, dataset="synthetic", lambdas=(0.0, 5.0), test_rows=60, n_permutations=19
        ),
    }
    paths = {}
    for name, frame in frames.items():
        paths[name] = folder / f"{name}.csv.gz"
        frame.to_csv(paths[name], index=False)
    return paths


def test_attribute_loader_moves_features_into_the_attributes() -> None:
    base = RegistryLoader()
    data = AttributeLoader((("synthetic", ("x1", "channel=a")),))("synthetic", 0)
    assert list(data.sensitive.columns) == ["x1", "channel=a", "sex", "age", "region"]
    assert "x1" not in data.X.columns and "channel=a" not in data.X.columns
    # a feature with two values becomes a binary attribute, others stay continuous
    assert isinstance(data.sensitive["channel=a"].dtype, pd.CategoricalDtype)
    assert data.sensitive["x1"].dtype == np.float64
    original = base("synthetic", 0)
    np.testing.assert_array_equal(data.sensitive["x1"], original.X["x1"])
    assert (data.sensitive["channel=a"] == "1").sum() == (original.X["channel=a"] == 1).sum()
    with pytest.raises(ValueError, match=r"features \['nope'\] to protect"):
        AttributeLoader((("synthetic", ("nope",)),))("synthetic", 0)


def test_train_network_refuses_an_unknown_attribute() -> None:
    with pytest.raises(ValueError, match=r"attributes \['nope'\] are not sensitive attributes"):
        train_network(
            RegistryLoader(), "synthetic", 0, TINY, method="nn", notion="dp", attributes=["nope"]
        )


def test_batch_estimates_match_the_score_on_the_same_batches() -> None:
    rng = np.random.default_rng(3)
    sensitive = pd.DataFrame({"a": rng.normal(size=300)})
    scores = sensitive["a"].to_numpy() + rng.normal(size=300)
    y = pd.Series(rng.integers(0, 2, 300))
    (row,) = _batch_estimates((scores, y, sensitive), "eo", (40,), 4, seed=7)
    draws = np.random.default_rng(7)
    values = []
    for _ in range(4):
        rows = draws.choice(300, 40, replace=False)
        report = faircocco_report(
            scores[rows],
            sensitive.iloc[rows].reset_index(drop=True),
            y_true=y.to_numpy(dtype=float)[rows],
            notion="eo",
            random_state=7,
        )
        values.append(float(report.loc["joint", "score"]))
    full = faircocco_report(
        scores, sensitive, y_true=y.to_numpy(dtype=float), notion="eo", random_state=7
    ).loc["joint", "score"]
    assert row["full_score"] == pytest.approx(full, rel=1e-12)
    assert row["mean"] == pytest.approx(np.mean(values), rel=1e-12)
    assert row["std"] == pytest.approx(np.std(values, ddof=1), rel=1e-12)
    assert row["mae"] == pytest.approx(np.mean(np.abs(np.subtract(values, full))), rel=1e-12)


def test_convergence_table_has_one_row_per_model_notion_and_batch_size(
    tables: dict[str, Path],
) -> None:
    frame = pd.read_csv(tables["convergence"])
    assert len(frame) == 2 * 2 * 2  # notions × models × batch sizes
    assert set(frame["model"]) == {"nn", "faircocco"}
    # the synthetic test part (400 rows) is under twice 256: the pool is every part, the
    # training part capped at 200 rows
    assert set(frame["pool"]) == {"all"} and set(frame["pool_rows"]) == {200 + 400 + 400}
    assert frame["full_score"].between(0, 1).all() and (frame["std"] >= 0).all()
    assert set(frame.loc[frame["model"] == "nn", "lam"]) == {0.0}
    # the unpenalised network is scored under both notions, the same model each time
    nn = frame[frame["model"] == "nn"]
    assert nn.groupby("notion")["full_score"].first().nunique() == 2


def test_attributes_table_protects_the_first_k_attributes(tables: dict[str, Path]) -> None:
    frame = pd.read_csv(tables["attributes"])
    assert list(frame["protected"].unique()) == ["x1", "x1+sex"]
    assert set(frame["attributes"]) == {1, 2}
    # at λ = 0 the penalty is off: the attributes protected do not change the network
    off = frame[frame["lam"] == 0].set_index("attributes")
    assert off.loc[1, "mse"] == pytest.approx(off.loc[2, "mse"], rel=1e-9)
    assert off.loc[1, "faircocco_adjusted_all"] == pytest.approx(
        off.loc[2, "faircocco_adjusted_all"], rel=1e-9
    )
    # with every attribute protected, the joint score of those protected is that of all
    full = frame[frame["attributes"] == 2]
    np.testing.assert_allclose(full["faircocco_adjusted"], full["faircocco_adjusted_all"])


def test_pvalues_table_holds_a_permutation_p_value_per_run(tables: dict[str, Path]) -> None:
    frame = pd.read_csv(tables["pvalues"])
    assert len(frame) == 2 * 2  # notions × λ
    assert set(frame["test_rows"]) == {60} and set(frame["n_permutations"]) == {19}
    # a p-value of B permutations is a multiple of 1 / (B + 1)
    np.testing.assert_allclose(frame["pvalue"] * 20, np.round(frame["pvalue"] * 20), atol=1e-9)
    assert frame["pvalue"].between(1 / 20, 1).all()
    assert frame["di"].between(0, 1).all()


def test_stable_batch_size_is_the_start_of_the_last_run_below_the_threshold() -> None:
    frame = pd.DataFrame(
        {
            "dataset": "d",
            "notion": "eo",
            "model": "nn",
            "seed": [0] * 4 + [1] * 4,
            "batch_size": [16, 32, 64, 128] * 2,
            "full_score": [0.2] * 4 + [0.4] * 4,
            "full_adjusted": 0.0,
            # relative errors by seed: 0.05, 0.5, 0.1, 0.05 and 0.05, 0.05, 0.15, 0.05
            "mae": [0.01, 0.1, 0.02, 0.01, 0.02, 0.02, 0.06, 0.02],
            "mae_adjusted": 0.01,
        }
    )
    stable = stable_batch_sizes(frame).iloc[0]
    # means over seeds: 0.05, 0.275, 0.125, 0.05
    assert stable["stable"] == 128
    assert stable["full_score"] == pytest.approx(0.3)
    # a zero target has no relative error: never stable
    assert math.isnan(stable["stable_adjusted"])
    # mean absolute errors: 0.015, 0.06, 0.04, 0.015 (raw), 0.01 everywhere (adjusted)
    assert math.isnan(stable["stable_absolute"])
    assert math.isnan(stable_batch_sizes(frame, absolute=0.01)["stable_adjusted_absolute"][0])
    assert stable_batch_sizes(frame, absolute=0.0101)["stable_adjusted_absolute"][0] == 16
    assert stable_batch_sizes(frame, absolute=0.05)["stable_absolute"][0] == 64


def test_pvalue_trends_are_spearman_correlations_with_lambda() -> None:
    frame = pd.DataFrame(
        {
            "notion": "dp",
            "lam": [0.0, 1.0, 2.0],
            "pvalue": [0.01, 0.2, 0.5],
            "accuracy": [0.8, 0.7, 0.75],
            "deo": 0.1,
            "di": [0.5, 0.6, 0.7],
            "faircocco": [0.3, 0.2, 0.1],
            "faircocco_adjusted": [0.3, 0.2, 0.1],
        }
    )
    trends = pvalue_trends(frame).loc["dp"]
    assert trends["pvalue"] == pytest.approx(1.0)
    assert trends["faircocco"] == pytest.approx(-1.0)
    assert trends["accuracy"] == pytest.approx(-0.5)
    assert math.isnan(trends["deo"])


def test_experiment_pages_and_figures(tables: dict[str, Path], tmp_path: Path) -> None:
    written = write_experiment_pages(
        tmp_path, command="faircocco pages x", tables=tables, paper=PaperNumbers.read(PAPER)
    )
    assert [p.name for p in written] == ["convergence.rst", "attributes.rst", "pvalues.rst"]
    assert {p.name for p in (tmp_path / "experiments").iterdir()} == {
        "synthetic-convergence.png",
        "synthetic_regression-attributes.png",
        "synthetic-pvalues.png",
    }
    pvalues = (tmp_path / "pvalues.rst").read_text(encoding="utf-8")
    assert "Made by ``faircocco pages x`` from ``pvalues.csv.gz``" in pvalues
    # Table 13's λ = 0 under EO: accuracy 78.33% and p-value 0.00 in the paper
    assert "(paper 0.78)" in pvalues and "(paper 0.00)" in pvalues
    attributes = (tmp_path / "attributes.rst").read_text(encoding="utf-8")
    assert "2 (x1, sex)" in attributes
    convergence = (tmp_path / "convergence.rst").read_text(encoding="utf-8")
    assert "synthetic: all (1000 rows)" in convergence


def test_experiment_pages_refuse_a_table_missing_columns(tmp_path: Path) -> None:
    path = tmp_path / "convergence.csv"
    pd.DataFrame({"dataset": ["d"]}).to_csv(path, index=False)
    with pytest.raises(ValueError, match="lacks the columns"):
        write_experiment_pages(tmp_path, command="c", tables={"convergence": path})


def test_command_runs_an_experiment_and_pages_draws_it(
    tables: dict[str, Path],
    export: Path,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quick = functools.partial(pvalues_experiment, lambdas=(0.0, 1.0), n_permutations=9)
    monkeypatch.setitem(RUNNERS, "pvalues", quick)
    out = tmp_path / "pvalues.csv.gz"
    arguments = ["--epochs", "1", "--warmup-epochs", "0", "--max-train-rows", "100", "--seeds", "1"]
    command = ["paper-experiment", "pvalues", "--out", str(out), "--datasets", "synthetic"]
    assert main([*command, *arguments]) == 0
    frame = pd.read_csv(out)
    assert list(frame["lam"]) == [0.0, 1.0, 0.0, 1.0] and set(frame["seed"]) == {0}
    pages = tmp_path / "results"
    status = main(
        [
            *("pages", str(export), "--paper", str(PAPER), "--out", str(pages), "--no-plots"),
            *("--pvalues", str(out), "--convergence", str(tables["convergence"])),
        ]
    )
    assert status == 0
    index = (pages / "index.rst").read_text(encoding="utf-8")
    assert "   convergence\n" in index and "   pvalues\n" in index
    assert "   attributes\n" not in index
    # the command as a user would type it, the experiments' tables in a fixed order
    head = f"--convergence {tables['convergence']} --pvalues {out} --no-plots`` from ``"
    assert head in (pages / "pvalues.rst").read_text(encoding="utf-8")


def test_command_refuses_datasets_for_the_attributes_experiment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = ["paper-experiment", "attributes", "--out", str(tmp_path / "a.csv")]
    assert main([*command, "--datasets", "synthetic"]) == 2
    assert "--datasets does not apply to 'attributes'" in capsys.readouterr().err


def test_command_refuses_a_read_only_folder_before_running(
    read_only_folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(RUNNERS, "pvalues", lambda *a, **k: pytest.fail("the experiment ran"))
    out = read_only_folder / "pvalues.csv"
    assert main(["paper-experiment", "pvalues", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert f"--out {out} cannot be written" in error and "Traceback" not in error
