"""FairCOCCO in fairlearn's MetricFrame, with a continuous and two categorical attributes.

fairlearn's own metrics compare groups: a continuous age would make one group per value. Here
the FairCOCCO score measures the predictions' dependence on sex, region and age jointly; the
frame groups by sex, so ``by_group`` reads as the dependence on region and age within each sex
(an intersectional view), and ``control_features`` gives the DP score within each true label.

Run with ``python examples/fairlearn_metric_frame.py``; it needs the fairlearn adapter
(``pip install -e adapters/fairlearn``).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from fairlearn.metrics import MetricFrame
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score

from faircocco_fairlearn import (
    difference_of_equal_opportunity,
    faircocco_metric,
    faircocco_sample_params,
)

rng = np.random.default_rng(0)
n = 4000
people = pd.DataFrame(
    {
        "sex": pd.Categorical(rng.choice(["female", "male"], n)),
        "region": rng.choice(["north", "south", "east", "west"], n),
        "age": rng.uniform(18, 80, n),
    }
)
skill = rng.normal(size=n)
y = (skill + 0.5 * (people["sex"] == "male") + rng.normal(size=n) > 0.5).astype(int)
features = np.column_stack([skill, people["age"] / 80, people["sex"] == "male"])
model = LogisticRegression().fit(features, y)
scores = model.predict_proba(features)[:, 1]
labels = model.predict(features)


def accuracy(y_true: np.ndarray, y_score: np.ndarray) -> float:
    return float(accuracy_score(y_true, y_score > 0.5))


frame = MetricFrame(
    metrics={"accuracy": accuracy, "FairCOCCO (EO)": faircocco_metric},
    y_true=y,
    y_pred=scores,
    sensitive_features=people["sex"],
    sample_params={"FairCOCCO (EO)": faircocco_sample_params(people)},
)
print("joint EO score on all rows:", round(frame.overall["FairCOCCO (EO)"], 4))
print("within each sex (dependence on region and age):")
print(frame.by_group.round(4))

per_label = MetricFrame(
    metrics={"FairCOCCO (DP)": functools.partial(faircocco_metric, notion="dp")},
    y_true=y,
    y_pred=scores,
    sensitive_features=people["sex"],
    control_features=pd.Series(y, name="label"),
    sample_params={"FairCOCCO (DP)": faircocco_sample_params(people)},
)
print("DP score within each true label (EO for a discrete outcome, label by label):")
print(per_label.overall.round(4))
print(
    "the paper's DEO, age split at its median:",
    round(difference_of_equal_opportunity(y, labels, sensitive_features=people), 4),
)
