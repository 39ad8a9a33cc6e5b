"""An AIF360 pipeline that protects two continuous attributes and a binary one at once.

AIF360's own in-processing algorithms take one binary protected attribute, and its metrics
compare groups by equality, so a continuous age makes one group per value. Here AIF360's
``Reweighing`` balances the binary attribute, ``FairCOCCOInprocessing`` trains a network with the
FairCOCCO penalty on age, income and the binary attribute jointly, and ``FairCOCCOMetric``
measures the test predictions' dependence on all three, beside AIF360's own accuracy.

The adjusted score and the p-value answer different questions. The adjusted score is the raw
score's excess over its chance level (its mean under permutations of the attribute rows),
clipped at 0: 0.0000 means the point estimate is at or below chance, not that the predictions are
independent. The permutation test uses a smoother statistic chosen for power (``eps=1.0``
against the score's ``1e-4``), which can detect a weak dependence the score does not lift above
its chance level: at ``lam=20`` the adjusted score is 0 and the p-value 0.005, the smallest 199
permutations can give, while the same test at the score's ``eps=1e-4`` gives 0.205.

AIF360 needs pandas<3, while the development environment has pandas 3, so run it in the AIF360
adapter's environment: ``make example-aif360`` creates that environment on first use (the nox
session's, ``.nox/aif360``, in about three minutes) and runs the example there (23 seconds on
two idle cores). In an environment of your own, run
``pip install -e adapters/torch -e adapters/aif360`` (which brings AIF360 0.6.1 and pandas<3),
then ``python examples/aif360_pipeline.py``.
"""

from __future__ import annotations

# isort: off
# The adapter first: importing it keeps quiet AIF360's notices about optional packages that
# this example does not use (inFairness).
from faircocco_aif360 import FairCOCCOInprocessing, FairCOCCOMetric

import numpy as np
import pandas as pd
from aif360.algorithms.preprocessing import Reweighing
from aif360.datasets import BinaryLabelDataset
from aif360.metrics import ClassificationMetric
# isort: on

rng = np.random.default_rng(0)
n = 4000
age = rng.uniform(18, 80, n)
income = rng.lognormal(size=n)
# the features carry the attributes, and the label follows the features
x = rng.normal(size=n) + age / 40 + 0.3 * income
people = pd.DataFrame({"x": x, "z": rng.normal(size=n), "age": age, "income": income})
people["young"] = (age < 40).astype(float)
people["label"] = (x + 0.5 * rng.normal(size=n) > 1.5).astype(float)
protected = ["age", "income", "young"]
train, test = (
    BinaryLabelDataset(df=part, label_names=["label"], protected_attribute_names=protected)
    for part in (people.iloc[:3000], people.iloc[3000:])
)

# AIF360's reweighing works on groups of a binary attribute; its weights reach the network
reweighed = Reweighing([{"young": 0.0}], [{"young": 1.0}]).fit_transform(train)

print(f"{'lam':>5} {'accuracy':>9} {'FairCOCCO DP (adjusted)':>24} {'p-value':>8}")
for lam in (0.0, 10.0, 20.0, 40.0):
    algorithm = FairCOCCOInprocessing(notion="dp", lam=lam, epochs=30, random_state=0)
    predicted = algorithm.fit(reweighed).predict(test)
    accuracy = ClassificationMetric(test, predicted).accuracy()
    metric = FairCOCCOMetric(test, predicted)
    score = metric.faircocco_score(notion="dp", adjusted=True)
    pvalue = metric.independence_test(notion="dp", n_permutations=199, random_state=0).pvalue
    print(f"{lam:>5} {accuracy:>9.3f} {score:>24.4f} {pvalue:>8.3f}")

print(
    "\nadjusted: the raw score's excess over its chance level, clipped at 0 (0.0000: at or below"
    "\nchance). p-value: a permutation test whose statistic is built for power (eps=1.0), so it"
    "\ncan find a dependence the score leaves at its chance level; 0.005 is the least p-value 199"
    "\npermutations can give."
)
print("\nEach attribute's own dependence at the last lam (raw and chance-adjusted):")
print(metric.faircocco_report(notion="dp").round(4).to_string())
