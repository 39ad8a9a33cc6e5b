"""The audit's dependence on a classifier's probabilities against its labels:
``python benchmarks/label_dependence.py --dataset credit_card --seed 0``.

The mixed-attribute study's audit measures the dependence between a classifier's outputs and its
attributes by HSIC and distance correlation (:func:`faircocco_plugins.bench._audit.audit_metrics`)
on the positive class's probabilities where the classifier gives them, else on its labels, and
so does the harness's chance-adjusted FairCOCCO score (``faircocco_dp_adjusted``). This prints
all three on both for the same models, trained as the ``mixed`` preset trains them (its epochs and
groups, a dataset's tuned batch size and learning rate, DP) on one dataset and seed, and
measured on the validation rows as the study measures them (NaN where a method gives no
probabilities): how far apart the two scales are, and so why the study's page compares
dependence only between methods that give probabilities. Each model is a harness
method with its parameters, ``NAME`` or ``NAME:JSON``; the default is the unpenalised network
and the FairCOCCO penalty at λ = 10 and 50. It needs the methods' adapters and
``$FAIRCOCCO_DATA``; on Credit Card a network trains in about 20 s.

This is a benchmark, not a test: it reports what it measures and asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
from typing import Any

from faircocco_plugins.bench._audit import DEPENDENCE_ROWS
from faircocco_plugins.bench._metrics import evaluate_predictions
from faircocco_plugins.bench._presets import preset_config
from faircocco_plugins.bench._runner import RegistryLoader, predict_part, prepared_parts
from faircocco_plugins.bench._study import study_methods
from faircocco_plugins.plugins import available_methods

#: The mixed study's tuned batch size and learning rate of each classification dataset
#: (``docs/results/mixed/tuning.csv.gz``).
TUNED: dict[str, tuple[int, float]] = {
    "adult_mixed": (64, 1e-4),
    "credit_card": (128, 1e-3),
    "law_school": (128, 1e-3),
}
DEFAULT_MODELS = 'nn,faircocco:{"lam": 10},faircocco:{"lam": 50}'


def _models(text: str) -> list[tuple[str, dict[str, Any]]]:
    """``NAME`` or ``NAME:JSON`` items, comma-separated outside the JSON."""
    found, depth, start = [], 0, 0
    for at, char in enumerate(text + ","):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            name, _, params = text[start:at].strip().partition(":")
            found.append((name, json.loads(params) if params else {}))
            start = at + 1
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=sorted(TUNED), default="credit_card")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", default=DEFAULT_MODELS, help=f"default: {DEFAULT_MODELS}")
    parser.add_argument(
        "--max-train-rows", type=int, default=None, help="default: the mixed preset's cap"
    )
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    print("command:  python benchmarks/label_dependence.py " + " ".join(map(shlex.quote, argv)))
    config, _ = preset_config("mixed")
    cap = args.max_train_rows or config.max_train_rows
    wanted = _models(args.models)
    methods = study_methods(
        dataclasses.replace(config, methods=tuple(dict.fromkeys(n for n, _ in wanted))),
        available_methods(),
    )
    train, validation, _ = prepared_parts(RegistryLoader(), args.dataset, args.seed, cap, None)
    batch_size, learning_rate = TUNED[args.dataset]
    print(
        f"{args.dataset}, seed {args.seed}, DP: {len(validation[1])} validation rows "
        f"(the estimators use {DEPENDENCE_ROWS} of them)"
    )
    columns = {"hsic": "HSIC", "dcor": "distance correlation", "faircocco_dp_adjusted": "adjusted"}
    print(f"{'model':<40}{'positive rate':>14}" + "".join(f"{n:>26}" for n in columns.values()))
    print(f"{'':<54}" + f"{'probabilities':>15}{'labels':>11}" * len(columns))
    for name, params in wanted:
        spec = methods[name]
        training = {
            "batch_size": batch_size,
            "learning_rate": learning_rate,
            "epochs": config.epochs,
            "warmup_epochs": config.warmup_epochs,
        }
        model = spec.factory(
            task="classification",
            notion="dp",
            random_state=args.seed,
            **params,
            **{k: v for k, v in training.items() if k in spec.training_settings},
        )
        model.fit(train[0], train[1], sensitive_features=train[2])
        labels, proba = predict_part(
            model, validation, "classification", spec.capabilities.attributes_at_prediction
        )
        # the study's own measurement, once with the probabilities and once without them
        measured = [
            evaluate_predictions(
                "classification",
                validation[1],
                labels,
                validation[2],
                proba=given,
                notions=("dp",),
                random_state=args.seed,
                train_sensitive=train[2],
            )
            for given in (proba, None)
        ]
        on_proba, on_labels = measured if proba is not None else ({}, measured[1])
        label = name + (json.dumps(params) if params else "")
        values = "".join(
            f"{on_proba.get(c, float('nan')):>15.5f}{on_labels[c]:>11.5f}" for c in columns
        )
        print(f"{label:<40}{on_labels['positive_rate']:>14.3f}{values}", flush=True)


if __name__ == "__main__":
    main()
