"""Ask for DI ≥ 0.8 on Adult, check it on test rows the path never saw, and save its front.

Run from the repository root after ``make venv``, with the datasets in ``$FAIRCOCCO_DATA``
(``faircocco datasets --help`` says where they come from)::

    .venv/bin/python examples/torch_path_target.py --plot path.png

:class:`faircocco_torch.FairCOCCOPathClassifier` trains one network along a path of growing λ
and keeps the most accurate step whose disparate impact (lowest over highest positive rate of
the sexes) is at least 0.8 *at 90% confidence* on its own validation rows. The script then
measures what a user cares about: the chosen model's accuracy, balanced accuracy and DI on
Adult's test rows, beside the unpenalised step's, and whether the target still holds there.
``--rows`` training rows are drawn (all 22,621 take a few minutes on two cores; a progress bar
counts the steps).
"""

from __future__ import annotations

import argparse

import matplotlib

matplotlib.use("Agg")  # write the figure to a file; no window is needed

import numpy as np
from sklearn.metrics import accuracy_score, balanced_accuracy_score

from faircocco_plugins.datasets import load_dataset
from faircocco_plugins.targets import group_measures
from faircocco_torch import FairCOCCOPathClassifier


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=int, default=8000, help="training rows drawn (8000)")
    parser.add_argument("--plot", default="path.png", help="where to save the front (path.png)")
    args = parser.parse_args()

    adult = load_dataset("adult", random_state=0)
    train, test = adult.part("train"), adult.part("test")
    rows = np.random.default_rng(0).permutation(len(train.X))[: args.rows]
    X, y, sex = train.X.iloc[rows], train.y.iloc[rows], train.sensitive.iloc[rows]

    clf = FairCOCCOPathClassifier(notion="dp", target={"di": 0.8}, random_state=0)
    clf.fit(X, y, sensitive_features=sex)
    print(clf.path_[["lam", "accuracy", "di", "di_bound", "degenerate", "refined"]].round(3))
    print(f"chosen: step {clf.step_} at λ = {clf.lam_:g} ({clf.model_class_})")
    if clf.certification_limit_:
        print("validation rows too few:", clf.certification_limit_)

    # The same definitions the target used on validation (every grouping, and a bound at
    # 90%), now on test rows: the unpenalised step beside the chosen one.
    unpenalised = clf.step_states_[0]
    chosen_state = clf.step_states_[clf.step_]
    for name, state in (("unpenalised (λ = 0)", unpenalised), ("chosen", chosen_state)):
        clf.model_.load_state_dict(state)
        y_pred = clf.predict(test.X)
        di = group_measures("di", test.y, y_pred, test.sensitive)
        print(
            f"{name:>20}: test accuracy {accuracy_score(test.y, y_pred):.3f}, "
            f"balanced accuracy {balanced_accuracy_score(test.y, y_pred):.3f}, "
            f"DI {di['value'].min():.3f} (target met on test: {di['value'].min() >= 0.8})"
        )

    ax = clf.plot_path()
    ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight")
    print("front saved to", args.plot)


if __name__ == "__main__":
    main()
