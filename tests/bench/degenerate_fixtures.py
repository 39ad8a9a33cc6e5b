"""A small results store whose best-looking models are degenerate, for the report's tests.

The study ``degenerate`` under EO, seeds 0 and 1 (test metrics shifted by ``0.01 × seed``):

* ``compas`` (classification, test base rate 0.111 and 0.113, 1235 test rows):

  - ``nn``: ``lr=0.1`` predicts one class (the most accurate and fairest on validation);
    ``lr=0.01`` does not and must be selected;
  - ``facl``: ``lam=5.0`` predicts one class; ``lam=0.5`` is selected, and on seed 1 it
    predicts one class on the test part only;
  - ``constant``: both settings predict one class everywhere: one must still be selected;
  - ``faircocco``: never degenerate; ``lam=1.0`` is selected.

* ``students`` (regression, 130 test rows): ``constant`` predicts an almost constant value
  (spread 2e-4) with the lowest MSE; ``nn`` and ``faircocco`` are not degenerate.

By design the degenerate models have the best raw test ACC, MSE, FairCOCCO score and DEO, so
the tables must neither bold them nor hide them: ``nn`` has the best ACC and MSE among the
others, ``faircocco`` the best BACC, AUC, FairCOCCO score and DEO.

The study ``weak`` under DP (:func:`build_weak_store`) holds models that predict little: a
regression no better than the mean, and a dataset where every method is near chance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from faircocco_plugins.bench import ResultsStore, RunRecord

STUDY = "degenerate"
SEEDS = (0, 1)
N_TEST = {"compas": 1235, "students": 130}
BASE_RATES = (0.111, 0.113)
#: Validation metrics of a model that predicts the majority class.
ONE_CLASS = {"accuracy": 0.89, "balanced_accuracy": 0.50, "single_class": 1.0, "faircocco": 0.0}
#: Validation metrics of each (dataset, method) setting.
VALIDATION: dict[tuple[str, str], list[tuple[dict[str, Any], dict[str, float]]]] = {
    ("compas", "nn"): [
        ({"lr": 0.1}, ONE_CLASS),
        ({"lr": 0.01}, {"accuracy": 0.86, "balanced_accuracy": 0.66, "faircocco": 0.03}),
    ],
    ("compas", "facl"): [
        ({"lam": 0.5}, {"accuracy": 0.87, "balanced_accuracy": 0.60, "faircocco": 0.02}),
        ({"lam": 5.0}, ONE_CLASS),
    ],
    ("compas", "constant"): [({"lr": 0.1}, ONE_CLASS), ({"lr": 0.01}, ONE_CLASS)],
    ("compas", "faircocco"): [
        ({"lam": 1.0}, {"accuracy": 0.85, "balanced_accuracy": 0.70, "faircocco": 0.01}),
        ({"lam": 5.0}, {"accuracy": 0.80, "balanced_accuracy": 0.65, "faircocco": 0.005}),
    ],
    ("students", "nn"): [({"lr": 0.01}, {"mse": 0.30, "spread": 0.9, "faircocco": 0.03})],
    ("students", "constant"): [({"lr": 0.1}, {"mse": 0.25, "spread": 2e-4, "faircocco": 0.0})],
    ("students", "faircocco"): [({"lam": 1.0}, {"mse": 0.35, "spread": 0.7, "faircocco": 0.02})],
}
#: The setting the selection must choose for each (dataset, method).
CHOSEN = {
    ("compas", "nn"): {"lr": 0.01},
    ("compas", "facl"): {"lam": 0.5},
    ("compas", "constant"): {"lr": 0.01},  # a tie, broken by the smaller run_id
    ("compas", "faircocco"): {"lam": 1.0},
    ("students", "nn"): {"lr": 0.01},
    ("students", "constant"): {"lr": 0.1},
    ("students", "faircocco"): {"lam": 1.0},
}
#: Test metrics of the non-degenerate compas settings (before the seed's shift).
COMPAS_TEST = {
    ("nn", "lr=0.01"): {"accuracy": 0.86, "balanced_accuracy": 0.66, "auc": 0.72, "fair": 0.04},
    ("facl", "lam=0.5"): {"accuracy": 0.87, "balanced_accuracy": 0.60, "auc": 0.70, "fair": 0.02},
    ("faircocco", "lam=1.0"): {
        "accuracy": 0.85,
        "balanced_accuracy": 0.70,
        "auc": 0.75,
        "fair": 0.01,
    },
    ("faircocco", "lam=5.0"): {
        "accuracy": 0.80,
        "balanced_accuracy": 0.65,
        "auc": 0.74,
        "fair": 0.005,
    },
}


def _key(params: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(params.items()))


def _compas_test(method: str, params: dict[str, Any], seed: int) -> dict[str, float]:
    shift = 0.01 * seed
    good = COMPAS_TEST.get((method, _key(params)))
    # facl's selected setting predicts one class on the test part of seed 1
    if good is None or (method == "facl" and seed == 1 and params == {"lam": 0.5}):
        metrics = {"accuracy": 1 - BASE_RATES[seed], "balanced_accuracy": 0.5, "auc": 0.6}
        metrics.update(single_class=1.0, faircocco_eo=0.0, faircocco_eo_adjusted=0.0, deo=0.0)
    else:
        metrics = {name: good[name] + shift for name in ("accuracy", "balanced_accuracy", "auc")}
        metrics.update(
            single_class=0.0,
            faircocco_eo=good["fair"] + shift,
            faircocco_eo_adjusted=good["fair"] / 2,
            deo=5 * good["fair"] + shift,
        )
    metrics["base_rate"] = BASE_RATES[seed]
    return metrics


def _students_test(validation: dict[str, float], seed: int) -> dict[str, float]:
    shift = 0.01 * seed
    return {
        "mse": validation["mse"] + shift,
        "prediction_spread": validation["spread"],
        "faircocco_eo": validation["faircocco"] + 0.02 + shift,
        "faircocco_eo_adjusted": validation["faircocco"] / 2,
        "deo": 2 * validation["faircocco"] + shift,
    }


def _validation_metrics(dataset: str, values: dict[str, float]) -> dict[str, float]:
    if dataset == "students":
        metrics = {"mse": values["mse"], "prediction_spread": values["spread"]}
    else:
        metrics = {
            "accuracy": values["accuracy"],
            "balanced_accuracy": values["balanced_accuracy"],
            "single_class": values.get("single_class", 0.0),
        }
    metrics["faircocco_eo"] = values["faircocco"]
    return metrics


def build_degenerate_store(path: Path) -> list[RunRecord]:
    """Write the study into a new results store at ``path``; returns its records."""
    records = []
    for (dataset, method), settings in VALIDATION.items():
        for seed in SEEDS:
            for params, values in settings:
                validation = _validation_metrics(dataset, values)
                test = (
                    _compas_test(method, params, seed)
                    if dataset == "compas"
                    else _students_test(values, seed)
                )
                metrics = {f"validation.{k}": v for k, v in validation.items()}
                metrics.update({f"test.{k}": v for k, v in test.items()})
                records.append(
                    RunRecord(
                        run_id=f"{dataset}-{method}-{seed}-{_key(params)}",
                        study=STUDY,
                        dataset=dataset,
                        method=method,
                        notion="eo",
                        seed=seed,
                        params=params,
                        settings={"epochs": 2},
                        status="ok",
                        n_train=3 * N_TEST[dataset],
                        n_validation=N_TEST[dataset] - 1,
                        n_test=N_TEST[dataset],
                        metrics=metrics,
                    )
                )
    with ResultsStore(path) as store:
        store.add_many(records)
    return records


# --- a study whose models predict little ----------------------------------------------------

WEAK_STUDY = "weak"
WEAK_N_TEST = {"communities": 399, "compas": 1235, "german": 200}


def _regression(mse: float, spread: float, fair: float) -> dict[str, float]:
    """Metrics of a regression part whose outcome has variance 1, so that R² = 1 − mse."""
    return {
        "mse": mse,
        "prediction_spread": spread,
        "outcome_variance": 1.0,
        "faircocco_dp": fair,
        "faircocco_dp_adjusted": fair / 2,
        "deo": fair,
        "di": 1 - fair,
    }


def _classification(acc: float, bacc: float, auc: float, fair: float) -> dict[str, float]:
    return {
        "accuracy": acc,
        "balanced_accuracy": bacc,
        "auc": auc,
        "base_rate": 0.11,
        "single_class": 0.0,
        "faircocco_dp": fair,
        "faircocco_dp_adjusted": fair / 2,
        "deo": fair,
        "di": 1 - fair,
    }


#: (dataset, method) -> (params, validation metrics, test metrics) of each setting, under DP.
#:
#: * ``communities``: ``facl``'s one setting has R² −0.014 (spread 0.05, well above the spread
#:   threshold) and the lowest FairCOCCO score; ``hsic``'s ``lam=5.0`` has validation R²
#:   0.005, the only setting within the tolerance, and must be set aside for ``lam=0.5``.
#: * ``compas``: every method's balanced accuracy is about 0.51: near chance.
#: * ``german``: ``nn`` is well above chance, so the block is not near chance although ``facl``
#:   (the fairest) is.
WEAK: dict[tuple[str, str], list[tuple[dict[str, Any], dict[str, float], dict[str, float]]]] = {
    ("communities", "nn"): [
        ({"lr": 0.01}, _regression(0.40, 0.8, 0.30), _regression(0.42, 0.8, 0.30))
    ],
    ("communities", "facl"): [
        ({"lam": 5.0}, _regression(1.01, 0.05, 0.01), _regression(1.014, 0.05, 0.01))
    ],
    ("communities", "hsic"): [
        ({"lam": 0.5}, _regression(0.70, 0.6, 0.08), _regression(0.72, 0.6, 0.09)),
        ({"lam": 5.0}, _regression(0.995, 0.1, 0.01), _regression(0.996, 0.1, 0.02)),
    ],
    ("communities", "faircocco"): [
        ({"lam": 1.0}, _regression(0.50, 0.7, 0.04), _regression(0.52, 0.7, 0.05))
    ],
    ("compas", "nn"): [
        (
            {"lr": 0.01},
            _classification(0.89, 0.51, 0.66, 0.05),
            _classification(0.89, 0.51, 0.66, 0.05),
        )
    ],
    ("compas", "facl"): [
        (
            {"lam": 1.0},
            _classification(0.88, 0.52, 0.64, 0.02),
            _classification(0.88, 0.52, 0.64, 0.02),
        )
    ],
    ("compas", "faircocco"): [
        (
            {"lam": 1.0},
            _classification(0.89, 0.50, 0.60, 0.01),
            _classification(0.89, 0.505, 0.60, 0.01),
        )
    ],
    ("german", "nn"): [
        (
            {"lr": 0.01},
            _classification(0.75, 0.70, 0.75, 0.10),
            _classification(0.75, 0.70, 0.75, 0.10),
        )
    ],
    ("german", "facl"): [
        (
            {"lam": 1.0},
            _classification(0.70, 0.52, 0.53, 0.02),
            _classification(0.70, 0.52, 0.53, 0.02),
        )
    ],
}


def build_weak_store(path: Path) -> list[RunRecord]:
    """Write the study of :data:`WEAK` (seeds 0 and 1, the same metrics on both) into a new
    results store at ``path``; returns its records."""
    records = []
    for (dataset, method), settings in WEAK.items():
        for seed in SEEDS:
            for params, validation, test in settings:
                metrics = {f"validation.{k}": v for k, v in validation.items()}
                metrics.update({f"test.{k}": v for k, v in test.items()})
                records.append(
                    RunRecord(
                        run_id=f"{dataset}-{method}-{seed}-{_key(params)}",
                        study=WEAK_STUDY,
                        dataset=dataset,
                        method=method,
                        notion="dp",
                        seed=seed,
                        params=params,
                        settings={"epochs": 2},
                        status="ok",
                        n_train=3 * WEAK_N_TEST[dataset],
                        n_validation=WEAK_N_TEST[dataset],
                        n_test=WEAK_N_TEST[dataset],
                        metrics=metrics,
                    )
                )
    with ResultsStore(path) as store:
        store.add_many(records)
    return records
