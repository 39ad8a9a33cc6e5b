"""Whether a fairness target the λ path meets on validation rows holds on unseen rows, at what cost.

Run from the project root, with the registry's data in ``$FAIRCOCCO_DATA``::

    OMP_NUM_THREADS=1 python benchmarks/path.py

For each dataset, seed and notion it draws one train/test split (stratified by the attribute
crossed with the label; at most ``TRAIN_ROWS`` training and ``TEST_ROWS`` test rows) and asks,
on the same training rows, for DI ≥ 0.8 under DP and DEO ≤ 0.05 under EO (:data:`TARGETS`):

* :class:`faircocco_torch.FairCOCCOPathClassifier` with its defaults (``confidence`` 0.9), which
  holds out ``validation_fraction`` (0.2) of the training rows itself;
* fairlearn's ``ExponentiatedGradient`` (logistic regression, ``DemographicParity`` or
  ``TruePositiveRateParity``) at each ``difference_bound`` of :data:`EG_BOUNDS`, and
  ``ThresholdOptimizer`` on logistic regression, both trained on the training rows less a
  validation part of the same size, held out the same way (stratified by attribute × label).

Every method chooses on its validation rows only, by the path's own rule
(:func:`faircocco_plugins.targets.choose_step`): the most accurate candidate that is not
degenerate and whose bound at 0.9 (:func:`faircocco_plugins.targets.target_columns`) meets the
target. As a second reading, each method also chooses by the point value on validation
(``path_point``, ``eg_point``, ``to_point``: the path among its own steps, without refitting),
as the baselines would be used without a bound. Every chosen model is then measured on the
test rows, where "held" means the point value meets the target. A baseline candidate is
degenerate by the path's rule less the AUC (one predicted class, a positive rate below a third
of the base rate or above 1 − (1 − base rate)/3, or a balanced accuracy below 0.55).
ExponentiatedGradient and ThresholdOptimizer predict at random between their models, with
the seed; ThresholdOptimizer reads the attribute at prediction time. The features are the
registry's (the attribute is not among them) or, for the two public datasets of scikit-lego
(arrests: ``released``, attribute ``colour``; hearts: ``target``, attribute ``sex``), the
other columns one-hot encoded; all are standardised on the training rows, the same for every
method.

It prints (1) per method, of the cases where the method says the target is met on validation,
how many meet it on the test rows; (2) test accuracy and balanced accuracy of the path less
that of each baseline, paired by case over the cases where both met the target on validation,
with 95% t-intervals, overall and per dataset; (3) on ``--cost-seeds`` seeds per dataset, the
path's fit time against a grid of six :class:`faircocco_torch.FairCOCCOClassifier` fits
(:data:`GRID`, ``GRID_EPOCHS`` each with a fifth on the loss alone, chosen by the same rule).
Each case's rows go to ``--out`` as they finish, and cases already there are skipped, so an
interrupted run resumes. This is a benchmark: it reports what it measures and asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from fairlearn.postprocessing import ThresholdOptimizer
from fairlearn.reductions import DemographicParity, ExponentiatedGradient, TruePositiveRateParity
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from tqdm import tqdm

from faircocco_plugins.bench.paper._common import paired_difference
from faircocco_plugins.datasets import load_dataset
from faircocco_plugins.targets import Target, choose_step, resolve_target, target_columns
from faircocco_torch import FairCOCCOClassifier, FairCOCCOPathClassifier
from faircocco_torch._path_measures import _near_degenerate

#: The registry's classification datasets of the paper, each with its binary attribute.
REGISTRY = {
    "adult": "sex",
    "compas": "race",
    "german": "foreign_worker",
    "drugs": "ethnicity",
    "credit_card": "sex",
    "law_school": "male",
    "kdd_census": "sex",
}
#: Public datasets outside the project, bundled with scikit-lego: (label, positive, attribute).
PUBLIC = {"arrests": ("released", "Yes", "colour"), "hearts": ("target", 1, "sex")}
DATASETS = (*REGISTRY, *PUBLIC)
#: The target asked for under each notion.
TARGETS: dict[str, dict[str, float]] = {"dp": {"di": 0.8}, "eo": {"deo": 0.05}}
#: Caps on the training and test rows of a split; a smaller dataset gives a third to test.
TRAIN_ROWS, TEST_ROWS = 4000, 2000
#: The share of the training rows held out for validation, by the path and for the baselines.
VALIDATION_FRACTION = 0.2
#: ExponentiatedGradient's ``difference_bound``s, from the strictest.
EG_BOUNDS = (0.005, 0.01, 0.02, 0.05, 0.1)
#: The λ grid of separate fits, and their epochs (a fifth of them on the loss alone).
GRID = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
GRID_EPOCHS = 20
#: Methods, in the order printed, and the pairs compared: each rule's path against each baseline.
METHODS = ("path", "eg", "to", "path_point", "eg_point", "to_point", "grid")
PAIRS = (("path", "eg"), ("path", "to"), ("path_point", "eg_point"), ("path_point", "to_point"))
CASE_KEYS = ["dataset", "notion", "seed", "kind"]


@dataclass(frozen=True)
class Rows:
    """Features, 0/1 labels and the attribute of some rows."""

    X: np.ndarray
    y: np.ndarray
    sensitive: pd.DataFrame

    def take(self, rows: np.ndarray) -> Rows:
        return Rows(self.X[rows], self.y[rows], self.sensitive.iloc[rows].reset_index(drop=True))

    def strata(self) -> np.ndarray:
        """Each row's attribute group crossed with its label."""
        return self.sensitive.iloc[:, 0].astype(str).to_numpy() + "|" + self.y.astype(str)


def load_rows(name: str) -> Rows:
    """All rows of a dataset, features unscaled, the attribute kept out of them."""
    if name in PUBLIC:
        from sklego import datasets

        label, positive, attribute = PUBLIC[name]
        frame = getattr(datasets, f"load_{name}")(as_frame=True)
        features = pd.get_dummies(frame.drop(columns=[label, attribute]), dtype=float)
        sensitive = frame[[attribute]].astype(str).reset_index(drop=True)
        y = (frame[label] == positive).to_numpy(dtype=int)
        return Rows(features.to_numpy(dtype=np.float64), y, sensitive)
    data = load_dataset(name, random_state=0)
    sensitive = data.sensitive[[REGISTRY[name]]].reset_index(drop=True)
    return Rows(np.asarray(data.X, dtype=np.float64), np.asarray(data.y, dtype=int), sensitive)


def split(rows: Rows, seed: int) -> tuple[Rows, Rows]:
    """One stratified train/test split of at most ``TRAIN_ROWS`` and ``TEST_ROWS`` rows, the
    features standardised on the training rows."""
    n = len(rows.y)
    test = min(TEST_ROWS, n // 3)
    train = min(TRAIN_ROWS, n - test)
    train_rows, test_rows = train_test_split(
        np.arange(n), train_size=train, test_size=test, random_state=seed, stratify=rows.strata()
    )
    scaler = StandardScaler().fit(rows.X[train_rows])
    training, testing = rows.take(train_rows), rows.take(test_rows)
    return (
        Rows(scaler.transform(training.X), training.y, training.sensitive),
        Rows(scaler.transform(testing.X), testing.y, testing.sensitive),
    )


def measures(y: np.ndarray, predicted: np.ndarray, sensitive: pd.DataFrame) -> dict[str, Any]:
    """Accuracy, balanced accuracy, DI and DEO with their bounds, and whether a classifier is
    degenerate by the path's rule (one class, or near one: its positive rate or balanced
    accuracy; the AUC, which the path also reads, is not used here)."""
    predicted = np.asarray(predicted).astype(int)
    columns = target_columns(y == 1, predicted == 1, sensitive)
    balanced = float(balanced_accuracy_score(y, predicted))
    positive_rate = float(np.mean(predicted == 1))
    return {
        "accuracy": float(np.mean(predicted == y)),
        "balanced_accuracy": balanced,
        "di": columns["di"],
        "di_bound": columns["di_bound"],
        "deo": columns["deo"],
        "deo_bound": columns["deo_bound"],
        "degenerate": bool(
            np.unique(predicted).size <= 1
            or _near_degenerate(positive_rate, float(np.mean(y == 1)), balanced)
        ),
    }


def chosen_row(
    method: str,
    candidates: pd.DataFrame,
    target: Target,
    test_measures: Callable[[int], dict[str, Any]],
    *,
    point: bool = False,
) -> dict[str, Any]:
    """The candidate :func:`choose_step` keeps (by the point value with ``point``), whether it
    met the target on validation, and its test measures."""
    table = candidates.copy()
    if point:
        table[target.column] = table[target.measure]
    index, reason = choose_step(table, target, "classification")
    test = test_measures(index)
    return {
        "method": method,
        "choice": candidates["choice"].iloc[index],
        "met_validation": reason is None,
        "validation_value": float(candidates[target.measure].iloc[index]),
        "validation_bound": float(candidates[target.column].iloc[index]),
        "validation_accuracy": float(candidates["accuracy"].iloc[index]),
        "met_test": bool(target.met(pd.Series([test[target.measure]])).iloc[0]),
        "test_value": test[target.measure],
        "accuracy": test["accuracy"],
        "balanced_accuracy": test["balanced_accuracy"],
    }


def held_out(train: Rows, seed: int) -> tuple[Rows, Rows]:
    """The baselines' training and validation rows: ``VALIDATION_FRACTION`` of the training
    rows held out, stratified by attribute × label, as the path holds out its own."""
    fit_rows, validation_rows = train_test_split(
        np.arange(len(train.y)),
        test_size=VALIDATION_FRACTION,
        random_state=seed,
        stratify=train.strata(),
    )
    return train.take(np.sort(fit_rows)), train.take(np.sort(validation_rows))


def run_path(train: Rows, test: Rows, notion: str, seed: int) -> list[dict[str, Any]]:
    """The path's own choice (``path``), and its step chosen by the point value instead of the
    bound (``path_point``), with the path's fit time."""
    path = FairCOCCOPathClassifier(
        notion=notion,
        target=TARGETS[notion],
        validation_fraction=VALIDATION_FRACTION,
        random_state=seed,
    )
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a missed target is read from the path below
        path.fit(train.X, train.y, sensitive_features=train.sensitive)
    seconds = time.perf_counter() - started
    steps = path.path_.assign(choice=[f"lam={lam:g}" for lam in path.path_["lam"]])

    def on_test(index: int) -> dict[str, Any]:
        path.model_.load_state_dict(path.step_states_[index])  # predict with that step
        return measures(test.y, path.predict(test.X), test.sensitive)

    return [
        {**chosen_row(name, steps, path.target_, on_test, point=point), "seconds": seconds}
        for name, point in (("path", False), ("path_point", True))
    ]


def run_eg(fit: Rows, validation: Rows, test: Rows, notion: str, seed: int) -> list[dict[str, Any]]:
    """ExponentiatedGradient at each bound of :data:`EG_BOUNDS`, chosen by the bound and by
    the point value."""
    target = resolve_target(TARGETS[notion], math.nan)
    constraint = DemographicParity if notion == "dp" else TruePositiveRateParity
    models, rows, seconds = [], [], 0.0
    for bound in EG_BOUNDS:
        model = ExponentiatedGradient(
            LogisticRegression(max_iter=1000), constraint(difference_bound=bound)
        )
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(fit.X, fit.y, sensitive_features=fit.sensitive.iloc[:, 0])
        seconds += time.perf_counter() - started
        predicted = model.predict(validation.X, random_state=seed)
        models.append(model)
        rows.append(
            {
                "choice": f"bound={bound:g}",
                **measures(validation.y, predicted, validation.sensitive),
            }
        )
    candidates = pd.DataFrame(rows)

    def on_test(index: int) -> dict[str, Any]:
        return measures(test.y, models[index].predict(test.X, random_state=seed), test.sensitive)

    return [
        {**chosen_row(name, candidates, target, on_test, point=point), "seconds": seconds}
        for name, point in (("eg", False), ("eg_point", True))
    ]


def run_to(fit: Rows, validation: Rows, test: Rows, notion: str, seed: int) -> list[dict[str, Any]]:
    """ThresholdOptimizer on logistic regression, judged by the bound and by the point value."""
    target = resolve_target(TARGETS[notion], math.nan)
    constraints = "demographic_parity" if notion == "dp" else "true_positive_rate_parity"
    model = ThresholdOptimizer(
        estimator=LogisticRegression(max_iter=1000),
        constraints=constraints,
        predict_method="predict_proba",
    )
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(fit.X, fit.y, sensitive_features=fit.sensitive.iloc[:, 0])
    seconds = time.perf_counter() - started

    def predict(rows: Rows) -> np.ndarray:
        return np.asarray(
            model.predict(rows.X, sensitive_features=rows.sensitive.iloc[:, 0], random_state=seed)
        )

    candidates = pd.DataFrame(
        [{"choice": "", **measures(validation.y, predict(validation), validation.sensitive)}]
    )
    test_measures = measures(test.y, predict(test), test.sensitive)
    return [
        {
            **chosen_row(name, candidates, target, lambda _: test_measures, point=point),
            "seconds": seconds,
        }
        for name, point in (("to", False), ("to_point", True))
    ]


def run_grid(train: Rows, test: Rows, notion: str, seed: int) -> dict[str, Any]:
    """Six separate fits at the λ of :data:`GRID` on the training rows less the path's share,
    chosen by the path's rule on the rest; their total fit time."""
    target = resolve_target(TARGETS[notion], math.nan)
    fit, validation = held_out(train, seed)
    models, rows, seconds = [], [], 0.0
    for lam in GRID:
        model = FairCOCCOClassifier(
            notion=notion,
            lam=lam,
            epochs=GRID_EPOCHS,
            warmup_epochs=GRID_EPOCHS // 5,
            random_state=seed,
        )
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(fit.X, fit.y, sensitive_features=fit.sensitive)
        seconds += time.perf_counter() - started
        models.append(model)
        predicted = model.predict(validation.X)
        rows.append(
            {"choice": f"lam={lam:g}", **measures(validation.y, predicted, validation.sensitive)}
        )

    def on_test(index: int) -> dict[str, Any]:
        return measures(test.y, models[index].predict(test.X), test.sensitive)

    return {**chosen_row("grid", pd.DataFrame(rows), target, on_test), "seconds": seconds}


def cases(
    datasets: Sequence[str], seeds: Sequence[int], cost_seeds: int
) -> Iterator[tuple[str, int, str, str]]:
    """(dataset, seed, notion, kind) of every case, seed by seed so that an interrupted run
    has every dataset on its first seeds, the grids last; ``kind`` is ``"hold"`` (the path
    and the baselines) or ``"cost"`` (the grid)."""
    for seed in seeds:
        for dataset in datasets:
            for notion in TARGETS:
                yield dataset, seed, notion, "hold"
    for seed in seeds[:cost_seeds]:
        for dataset in datasets:
            for notion in TARGETS:
                yield dataset, seed, notion, "cost"


def run(datasets: Sequence[str], seeds: Sequence[int], cost_seeds: int, out: Path) -> pd.DataFrame:
    """Run every case not yet in ``out``, appending each case's rows as it finishes."""
    done = pd.read_csv(out) if out.exists() else pd.DataFrame(columns=CASE_KEYS)
    finished = set(map(tuple, done[CASE_KEYS].astype(str).to_numpy()))
    todo = [
        case
        for case in cases(datasets, seeds, cost_seeds)
        if (case[0], case[2], str(case[1]), case[3]) not in finished
    ]
    loaded: dict[str, Rows] = {}  # one dataset at a time: KDD Census's features take a gigabyte
    for dataset, seed, notion, kind in tqdm(todo, desc="cases", unit="case"):
        if dataset not in loaded:
            loaded = {dataset: load_rows(dataset)}
        train, test = split(loaded[dataset], seed)
        if kind == "hold":
            fit, validation = held_out(train, seed)
            rows = [
                *run_path(train, test, notion, seed),
                *run_eg(fit, validation, test, notion, seed),
                *run_to(fit, validation, test, notion, seed),
            ]
        else:
            rows = [run_grid(train, test, notion, seed)]
        key = {"dataset": dataset, "notion": notion, "seed": seed, "kind": kind}
        key["train_rows"], key["test_rows"] = len(train.y), len(test.y)
        frame = pd.DataFrame([{**key, **row} for row in rows])
        frame.to_csv(out, mode="a", header=not out.exists(), index=False)
    results = pd.read_csv(out)
    keep = results["dataset"].isin(datasets) & results["seed"].isin(seeds)
    return results[keep]


def hold_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per method: cases met on validation, and how many of them meet the target on test."""
    hold = results[results["kind"] == "hold"]
    rows = []
    for method in [m for m in METHODS if m in set(hold["method"])]:
        of_method = hold[hold["method"] == method]
        met = of_method[of_method["met_validation"].astype(bool)]
        held = int(met["met_test"].astype(bool).sum())
        rows.append(
            {
                "method": method,
                "cases": len(of_method),
                "met on validation": len(met),
                "held on test": held,
                "hold rate": f"{held / len(met):.0%}" if len(met) else "—",
            }
        )
    return pd.DataFrame(rows)


def hold_by_dataset(results: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and notion, for each method: held on test / met on validation."""
    hold = results[results["kind"] == "hold"]
    met = hold[hold["met_validation"].astype(bool)]
    counts = met.groupby(["dataset", "notion", "method"])["met_test"].agg(
        lambda held: f"{int(held.astype(bool).sum())}/{len(held)}"
    )
    table = counts.unstack("method").reindex(
        columns=[m for m in METHODS if m in set(hold["method"])]
    )
    cases = hold.groupby(["dataset", "notion"], sort=False).size().index
    return table.reindex(cases).astype(object).fillna("0/0")


def paired_table(results: pd.DataFrame) -> pd.DataFrame:
    """The path less each baseline in test accuracy and balanced accuracy, paired by case over
    the cases where both met the target on validation: all of them, and per dataset."""
    hold = results[(results["kind"] == "hold") & results["met_validation"].astype(bool)]
    by_case = hold.set_index(["dataset", "notion", "seed", "method"])
    rows = []
    for ours, theirs in PAIRS:
        for dataset in ["all", *dict.fromkeys(hold["dataset"])]:
            of = by_case if dataset == "all" else by_case.xs(dataset, drop_level=False)
            row: dict[str, Any] = {"pair": f"{ours} − {theirs}", "dataset": dataset}
            for metric in ("accuracy", "balanced_accuracy"):
                values = of[metric].unstack("method")
                if not {ours, theirs} <= set(values.columns):
                    row["pairs"], row[metric] = 0, "—"
                    continue
                difference = paired_difference(values[ours], values[theirs])
                row["pairs"], row[metric] = difference.n, difference.text()
            if row["pairs"] or dataset == "all":
                rows.append(row)
    return pd.DataFrame(rows)


def cost_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per cost case: the path's and the grid's fit time and ratio, and what each chose."""
    cost = results[results["kind"] == "cost"].set_index(["dataset", "notion", "seed"])
    hold = results[(results["kind"] == "hold") & (results["method"] == "path")]
    path = hold.set_index(["dataset", "notion", "seed"]).reindex(cost.index)
    table = pd.DataFrame(
        {
            "path s": path["seconds"].round(1),
            "grid s": cost["seconds"].round(1),
            "path/grid": (path["seconds"] / cost["seconds"]).round(2),
            "path: λ, met val/test, acc": _choice(path),
            "grid: λ, met val/test, acc": _choice(cost),
        }
    )
    return table.reset_index()


def _choice(rows: pd.DataFrame) -> pd.Series:
    def text(row: pd.Series) -> str:
        if pd.isna(row["choice"]):
            return "—"
        met = "/".join("yes" if row[c] else "no" for c in ("met_validation", "met_test"))
        return f"{row['choice']}, {met}, {row['accuracy']:.3f}"

    return rows.apply(text, axis=1) if len(rows) else pd.Series(dtype=str)


def report(results: pd.DataFrame) -> None:
    """Print the three measurements."""
    hold = results[results["kind"] == "hold"]
    cases_run = hold.drop_duplicates(["dataset", "notion", "seed"])
    print(
        f"\n{len(cases_run)} cases (dataset × notion × seed) on "
        f"{', '.join(dict.fromkeys(cases_run['dataset']))}; seeds "
        f"{', '.join(map(str, sorted(set(cases_run['seed']))))}; targets DI ≥ 0.8 (dp), "
        "DEO ≤ 0.05 (eo)"
    )
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print("\n(1) A target met on validation: does it hold on the test rows?")
        print(hold_table(results).to_string(index=False))
        print("\nheld on test / met on validation, by dataset and notion:")
        print(hold_by_dataset(results).to_string())
        print(
            "\n(2) Test accuracy at matched fairness: path − baseline, paired by case over the "
            "cases where both met the target on validation (mean [95% t-interval]):"
        )
        print(paired_table(results).to_string(index=False))
        if (results["kind"] == "cost").any():
            print(
                f"\n(3) Cost: the path's fit time against {len(GRID)} separate fits at λ in "
                f"{set(GRID)}, {GRID_EPOCHS} epochs each:"
            )
            table = cost_table(results)
            print(table.to_string(index=False))
            ratio = table["path s"].sum() / table["grid s"].sum()
            print(f"total: path {table['path s'].sum():.0f} s, grid "
                  f"{table['grid s'].sum():.0f} s, path / grid = {ratio:.2f}")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument(
        "--cost-seeds", type=int, default=1, help="seeds per dataset that also fit the grid"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(tempfile.gettempdir()) / "faircocco-path-benchmark.csv",
        help="the results, one row per case and method; cases already there are skipped",
    )
    parser.add_argument(
        "--quick", action="store_true", help="german, drugs and hearts, seed 0 only"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.datasets, args.seeds = ["german", "drugs", "hearts"], [0]
    report(run(args.datasets, args.seeds, args.cost_seeds, args.out))


if __name__ == "__main__":
    main()
