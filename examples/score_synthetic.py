"""Score a model's predictions for fairness on synthetic data with mixed-type attributes.

The synthetic people have a continuous age, a binary sex and a four-level region. The true
outcome depends on age and sex; the predictions depend on the true outcome and, directly, on age
and sex, but not on region.

Run with ``python examples/score_synthetic.py``.
"""

from faircocco_plugins import (
    faircocco_report,
    faircocco_score,
    independence_test,
    make_synthetic,
)

people = make_synthetic(2000, random_state=0)
y_pred, y_true = people["y_pred"], people["y_true"]
attributes = people[["age", "sex", "region"]]  # continuous, binary and categorical together

# One score per fairness notion, in [0, 1] (0 is fair). The raw score has a small positive
# floor under independence; the chance-adjusted score removes it.
for notion in ("dp", "eo", "cal"):
    raw = faircocco_score(y_pred, attributes, y_true=y_true, notion=notion)
    adjusted = faircocco_score(y_pred, attributes, y_true=y_true, notion=notion, adjusted=True)
    print(f"{notion.upper():>3}: raw {raw:.4f}, chance-adjusted {adjusted:.4f}")

# The report scores all attributes jointly, then each one alone: region should score near 0.
print()
print(faircocco_report(y_pred, attributes, y_true=y_true, notion="eo").round(4))

# A test says whether the dependence is more than chance (by default from the gamma
# approximation of its permutation null; null="permutation" permutes).
result = independence_test(y_pred, attributes, y_true=y_true, notion="eo", random_state=0)
print(
    f"\nEO test ({result.null} null): score {result.score:.4f} (at eps 1), "
    f"p-value {result.pvalue:.4g}"
)

# Predictions that use age and sex only through the true outcome satisfy equalised odds.
fair = make_synthetic(2000, random_state=0, dependence=0.0)
fair_eo = faircocco_score(
    fair["y_pred"],
    fair[["age", "sex", "region"]],
    y_true=fair["y_true"],
    notion="eo",
    adjusted=True,
)
print(f"EO chance-adjusted score without direct dependence: {fair_eo:.4f}")
