"""The sensitivity page: a study and its learning-rate variant, written as small exports with
known selections."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from faircocco_plugins.bench import ResultsStore, RunRecord
from faircocco_plugins.bench._export import write_export
from faircocco_plugins.bench._pages_cli import SENSITIVITY_OPTIONS
from faircocco_plugins.bench._selection import select_runs
from faircocco_plugins.bench.paper._common import load_runs
from faircocco_plugins.bench.paper._sensitivity import (
    VARIANT_TITLES,
    compare_selected,
    network_as_tuned,
    sensitivity_body,
)
from faircocco_plugins.cli import main

PAPER = Path(__file__).resolve().parents[2] / "docs" / "results" / "paper" / "paper_numbers.csv"
RULE: dict[str, Any] = {"tolerance": 0.5, "adjusted": True, "relative_to": "nn"}
SWEEPS = {"nn": None, "faircocco": "lam", "facl": "lam"}

# German under DP, seeds 0 and 1. The network's validation adjusted score is 0.10, so a setting
# is within the rule's tolerance at 0.05 or below. The study fixes the learning rate at 0.001:
# FairCOCCO's λ = 5 and FACL's λ = 1 are within it. The variant runs 0.01 and 0.0001 instead.
# (method, learning rate, λ): validation (AUC, balanced accuracy, adjusted score), then test
# (accuracy per seed, DI, adjusted score).
STUDY = {
    ("nn", 0.001, None): ((0.78, 0.74, 0.10), ((0.75, 0.75), 0.80, 0.0100)),
    ("faircocco", 0.001, 1.0): ((0.77, 0.73, 0.08), ((0.74, 0.74), 0.85, 0.0060)),
    ("faircocco", 0.001, 5.0): ((0.76, 0.71, 0.04), ((0.70, 0.72), 0.90, 0.0020)),
    ("facl", 0.001, 1.0): ((0.76, 0.72, 0.03), ((0.73, 0.73), 0.92, 0.0030)),
}
#: FACL's models of the study predict a single class on the test part (never on validation).
DEGENERATE_ON_TEST = {("paper-cpu", "facl")}
VARIANT = {
    # the undertrained network is the fairest: the selection rule would keep it, and halving
    # its score would leave no setting within the tolerance; the tuning stage's rule keeps the
    # best AUC
    ("nn", 0.01, None): ((0.80, 0.75, 0.10), ((0.76, 0.76), 0.80, 0.0100)),
    ("nn", 0.0001, None): ((0.60, 0.55, 0.01), ((0.60, 0.60), 1.00, 0.0010)),
    ("faircocco", 0.01, 5.0): ((0.78, 0.75, 0.04), ((0.74, 0.74), 0.91, 0.0020)),
    ("faircocco", 0.0001, 5.0): ((0.70, 0.70, 0.02), ((0.69, 0.69), 0.95, 0.0010)),
    ("facl", 0.01, 1.0): ((0.79, 0.76, 0.06), ((0.75, 0.75), 0.85, 0.0050)),
    ("facl", 0.0001, 1.0): ((0.74, 0.70, 0.03), ((0.71, 0.71), 0.93, 0.0010)),
}


def _records(study: str, runs: dict[Any, Any]) -> list[RunRecord]:
    records = []
    for (method, rate, lam), (validation, test) in runs.items():
        auc, balanced, adjusted = validation
        accuracies, di, test_adjusted = test
        params: dict[str, Any] = {"batch_size": 256, "learning_rate": rate}
        if lam is not None:
            params["lam"] = lam
        for seed in (0, 1):
            metrics = {
                "validation.auc": auc,
                "validation.balanced_accuracy": balanced,
                "validation.accuracy": balanced,
                "validation.single_class": 0.0,
                "validation.faircocco_dp_adjusted": adjusted,
                "validation.faircocco_dp": adjusted,
                "test.accuracy": accuracies[seed],
                "test.single_class": float((study, method) in DEGENERATE_ON_TEST),
                "test.di": di,
                "test.faircocco_dp_adjusted": test_adjusted,
                "test.faircocco_dp": test_adjusted,
            }
            records.append(
                RunRecord(
                    run_id=f"{study}-{method}-{rate}-{lam}-{seed}",
                    study=study,
                    dataset="german",
                    method=method,
                    notion="dp",
                    seed=seed,
                    params=params,
                    settings={"epochs": 20, "warmup_epochs": 2},
                    status="ok",
                    n_train=600,
                    n_validation=200,
                    n_test=200,
                    fit_seconds=1.0,
                    predict_seconds=0.5,
                    git_revision="0123abc",
                    versions={"torch": "2.13.0+cpu"},
                    finished_at=f"2026-01-01T00:{len(records):02d}:00+00:00",
                    metrics=metrics,
                )
            )
    return records


def _export(folder: Path, study: str, runs: dict[Any, Any]) -> Path:
    with ResultsStore(folder / f"{study}.sqlite") as store:
        store.add_many(_records(study, runs))
    write_export(folder / f"{study}.sqlite", folder / f"{study}.csv.gz", sweep_params=SWEEPS)
    return folder / f"{study}.csv.gz"


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("sensitivity")
    return _export(folder, "paper-cpu", STUDY), _export(folder, "paper-cpu-lr", VARIANT)


def _runs(path: Path) -> pd.DataFrame:
    return load_runs(path)[1]


def test_the_network_keeps_its_best_validation_auc_not_its_fairest_run(
    exports: tuple[Path, Path],
) -> None:
    variant = _runs(exports[1])
    kept = network_as_tuned(variant)
    network = kept[kept["method"] == "nn"]
    assert [p["learning_rate"] for p in network["params"]] == [0.01, 0.01]
    assert len(kept) == len(variant) - 2
    # the study has one network run per seed: nothing changes
    study = _runs(exports[0])
    assert network_as_tuned(study).equals(study)


def test_the_comparison_pairs_each_methods_selected_models_by_seed(
    exports: tuple[Path, Path],
) -> None:
    chosen = [select_runs(network_as_tuned(_runs(path)), **RULE) for path in exports]
    rows = compare_selected(*chosen).set_index(["method", "metric"])
    assert list(dict.fromkeys(m for m, _ in rows.index)) == ["nn", "facl", "faircocco"]
    # faircocco: λ = 5 at 0.001 (0.70, 0.72) → λ = 5 at 0.01 (0.74, 0.74), the more accurate
    # of the two within the tolerance
    accuracy = rows.loc[("faircocco", "accuracy")]
    assert (accuracy["base"], accuracy["variant"]) == pytest.approx((0.71, 0.74))
    assert accuracy["difference"].text() == "+0.030 [-0.097, +0.157]"
    # facl: 0.001 → 0.0001, as 0.01 is over the tolerance; the same change on both seeds
    assert rows.loc[("facl", "accuracy"), "difference"].text() == "-0.020 [-0.020, -0.020]"
    assert rows.loc[("facl", "faircocco_adjusted"), "difference"].text(4) == (
        "-0.0020 [-0.0020, -0.0020]"
    )
    assert rows.loc[("faircocco", "di"), "variant"] == pytest.approx(0.91)
    degenerate = rows.groupby("method")[["base_degenerate", "variant_degenerate"]].any()
    assert degenerate.to_dict("index") == {
        "nn": {"base_degenerate": False, "variant_degenerate": False},
        "facl": {"base_degenerate": True, "variant_degenerate": False},
        "faircocco": {"base_degenerate": False, "variant_degenerate": False},
    }


def test_the_body_states_settings_changes_ranks_and_learning_rates(
    exports: tuple[Path, Path],
) -> None:
    text = "\n".join(sensitivity_body(_runs(exports[0]), {"lr": _runs(exports[1])}, **RULE))
    assert "Each method's learning rate selected on validation (``paper-cpu-lr``)" in text
    assert (
        "* The variant: ``paper-cpu-lr``, 12 runs; 20 epochs, 2 of them of warm-up where a "
        "method has one; german: learning rates 0.01, 0.0001, batch size 256"
    ) in text
    assert "* The study: ``paper-cpu``, 8 runs;" in text
    # accuracy: nn +0.010 and facl -0.020 on both seeds, faircocco +0.040 and +0.020
    assert (
        "* Accuracy: the variant moves the selected models' mean by -0.020 to +0.030 (mean "
        "absolute change 0.020); 2 of 3 paired differences have a 95% interval that excludes 0."
    ) in text
    assert (
        "* Adjusted score: the variant moves the selected models' mean by -0.0020 to +0.0000 "
        "(mean absolute change 0.0007); 1 of 3 paired differences has a 95% interval that "
        "excludes 0."
    ) in text
    # faircocco is less accurate than facl in the study (0.710 < 0.730), more in the variant
    # (0.740 > 0.710); its adjusted score (0.0020) is the lower in the study, the higher in the
    # variant (facl 0.0010)
    assert (
        "study → variant: german DP: accuracy 2 → 1 (spread 0.020 → 0.030), adjusted score "
        "1 → 2 (spread 0.0010 → 0.0010). Its rank by accuracy changes on 1 of 1 datasets and "
        "notions; by the adjusted score, on 1 of 1."
    ) in text
    assert (
        "* Methods whose selected model is degenerate on the test part for some seed: 1 of 3 "
        "in the study, 0 of 3 in the variant."
    ) in text
    assert "   * - ``facl``\n     - 0.730†\n     - 0.710\n" in text
    faircocco = text[text.index("   * - ``faircocco``") :]
    assert faircocco.splitlines()[1:12] == [
        "     - 0.710",
        "     - 0.740",
        "     - +0.030 [-0.097, +0.157]",
        "     - 0.900",
        "     - 0.910",
        "     - +0.010 [+0.010, +0.010]",
        "     - 0.0020",
        "     - 0.0020",
        "     - +0.0000 [+0.0000, +0.0000]",
        "     - 0.001 (2) → 0.01 (2)",
        "     - 2 of 2 → 2 of 2",
    ]
    assert "   * - ``facl``" in text and "     - 0.001 (2) → 0.0001 (2)\n" in text


def test_a_variant_outside_the_study_or_of_an_unknown_kind_is_refused(
    exports: tuple[Path, Path],
) -> None:
    study, variant = _runs(exports[0]), _runs(exports[1])
    with pytest.raises(ValueError, match="no runs of the datasets"):
        sensitivity_body(study.assign(dataset="drugs"), {"lr": variant}, **RULE)
    with pytest.raises(ValueError, match="expected some of"):
        sensitivity_body(study, {"batch": variant}, **RULE)
    assert set(SENSITIVITY_OPTIONS) == set(VARIANT_TITLES)


def test_faircocco_pages_adds_the_sensitivity_page_to_the_contents(
    exports: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "results"
    arguments = [
        "pages", str(exports[0]), "--paper", str(PAPER), "--out", str(out), "--no-plots",
        "--tolerance", "0.5", "--adjusted", "--relative-to", "nn",
        "--sensitivity-lr", str(exports[1]),
    ]  # fmt: skip
    assert main(arguments) == 0
    page = (out / "sensitivity.rst").read_text(encoding="utf-8")
    assert page.startswith(".. _results-sensitivity:\n")
    assert f"--sensitivity-lr {exports[1]}" in page
    assert "* Study: 12 runs" in page  # the head describes the variants' runs
    assert "   sensitivity\n" in (out / "index.rst").read_text(encoding="utf-8")
    missing = tmp_path / "missing.csv.gz"
    assert main([*arguments[:-2], "--sensitivity-epochs", str(missing)]) == 2
