"""The project's vocabulary, defined once: learning tasks, fairness notions and kinds of column.

The plugin contract (:mod:`faircocco_plugins.plugins`) exports these names; the input checks and
the dataset registry, which the contract itself imports, take them from here.
"""

from __future__ import annotations

from typing import Literal

#: Learning tasks.
TASKS: tuple[Literal["classification", "regression"], ...] = ("classification", "regression")
#: Fairness notions: demographic parity, equalised odds, calibration.
NOTIONS: tuple[str, ...] = ("dp", "eo", "cal")
#: Kinds of a sensitive attribute or of an outcome.
KINDS: tuple[Literal["binary", "categorical", "continuous"], ...] = (
    "binary",
    "categorical",
    "continuous",
)
