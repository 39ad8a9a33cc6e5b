"""Synthetic datasets with known dependence on the sensitive attributes.

The attributes are the population of :func:`faircocco_plugins.make_synthetic`: ``sex`` (binary,
``"f"``/``"m"``), ``age`` (continuous, uniform on [18, 80)) and ``region`` (four categories),
independent of each other. Four latent factors ``z1..z4`` are standard normal and independent of
the attributes. The label depends on the latent factors and, scaled by ``label_dependence``, on
sex and age; the features ``x1`` and ``x2`` are ``z1`` and ``z2`` shifted, scaled by
``feature_dependence``, by sex and age (proxies); ``x3``, ``x4`` and the nominal ``channel``
depend on no attribute. Region plays no part anywhere.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._records.params import Interval, check_params
from .._synthetic import make_synthetic
from ._build import assemble
from ._dataset import Dataset, Task
from ._prepare import prepare
from ._source import TASKS, AttributeKind, DatasetSource, LoadedTable
from ._split import check_random_state

ATTRIBUTES: dict[str, AttributeKind] = {
    "sex": "binary",
    "age": "continuous",
    "region": "categorical",
}
#: Weights of the latent factors z1..z4 in the label's signal.
LATENT_WEIGHTS = np.array([1.0, 0.8, 0.6, -0.5])
#: Standard deviation of age, uniform on [18, 80).
_AGE_SD = 62.0 / math.sqrt(12.0)
_MIN_SAMPLES = 20
#: Rows of the registered synthetic datasets, and the seed their table is drawn with.
REGISTERED_ROWS, TABLE_SEED = 2000, 0


def make_fairness_dataset(
    n_samples: int = 2000,
    *,
    task: Task = "classification",
    label_dependence: float = 1.0,
    feature_dependence: float = 1.0,
    random_state: int | None = None,
) -> Dataset:
    """A synthetic dataset whose dependence on the sensitive attributes is known.

    The sensitive attributes are ``sex`` (binary), ``age`` (continuous) and ``region``
    (categorical, four levels), independent of each other. With standardised age
    ``a = (age − 49) / 17.9`` and ``s = ±1`` for male / female, and latent factors
    ``z1..z4 ~ N(0, 1)`` independent of the attributes:

    * label signal ``t = z1 + 0.8 z2 + 0.6 z3 − 0.5 z4 + label_dependence (0.8 s + 0.8 a)``;
      classification draws ``y ~ Bernoulli(sigmoid(t))``, regression sets ``y = t + ε`` with
      ``ε ~ N(0, 0.5²)``;
    * features ``x1 = z1 + feature_dependence · s`` and ``x2 = z2 + feature_dependence · a``
      (proxies of sex and age), ``x3 = z3``, ``x4 = z4``, and ``channel``, a nominal feature
      with three equally likely levels independent of everything (one-hot in ``X``).

    So with ``label_dependence=0`` the label is independent of every attribute, and with
    ``feature_dependence=0`` so are the features; ``region`` never matters. The sensitive
    attributes are not columns of ``X``.

    Parameters
    ----------
    n_samples : int
        Number of rows, at least 20.
    task : {"classification", "regression"}
        Binary label (0/1 integers) or continuous outcome.
    label_dependence : float
        Strength of the direct effect of sex and age on the label.
    feature_dependence : float
        Strength of the effect of sex and age on the proxy features ``x1`` and ``x2``.
    random_state : int, optional
        Seed of both the table and the 60/20/20 split; the same seed gives the same dataset.

    Returns
    -------
    Dataset
        Named ``"synthetic"`` or ``"synthetic_regression"``, split 60/20/20 at random
        (stratified by the label for classification).

    Raises
    ------
    ValueError
        If ``n_samples`` is not an integer of at least 20, ``task`` is unknown, a dependence is
        not a finite number, or ``random_state`` is not a non-negative integer or None.

    Examples
    --------
    >>> from faircocco_plugins.datasets import make_fairness_dataset
    >>> data = make_fairness_dataset(500, label_dependence=0.0, random_state=0)
    >>> list(data.sensitive.columns)
    ['sex', 'age', 'region']
    >>> len(data.split.train), len(data.split.validation), len(data.split.test)
    (300, 100, 100)
    """
    seed = check_random_state(random_state)
    table = synthetic_table(
        n_samples,
        task=task,
        label_dependence=label_dependence,
        feature_dependence=feature_dependence,
        random_state=seed,
    )
    prepared = prepare(table, name=_name(task), task=task, attributes=ATTRIBUTES)
    return assemble(
        prepared,
        name=_name(task),
        task=task,
        description=_description(task, n_samples, label_dependence, feature_dependence),
        random_state=seed,
    )


def synthetic_table(
    n_samples: int,
    *,
    task: Task,
    label_dependence: float,
    feature_dependence: float,
    random_state: int | None,
) -> LoadedTable:
    """The rows of :func:`make_fairness_dataset`, before typing and splitting."""
    check_params({"n_samples": n_samples}, {"n_samples": Interval("integer", _MIN_SAMPLES)})
    if task not in TASKS:
        raise ValueError(f"task={task!r} is not valid; expected one of {list(TASKS)}.")
    for argument, value in (
        ("label_dependence", label_dependence),
        ("feature_dependence", feature_dependence),
    ):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float | np.integer | np.floating)
            or not np.isfinite(value)
        ):
            raise ValueError(f"{argument}={value!r} is not valid; expected a finite number.")
    rng = np.random.default_rng(random_state)
    people = make_synthetic(int(n_samples), random_state=int(rng.integers(2**32)))
    sign = np.where(people["sex"] == "m", 1.0, -1.0)
    age = (people["age"].to_numpy() - 49.0) / _AGE_SD
    latent = rng.standard_normal((n_samples, len(LATENT_WEIGHTS)))
    signal = latent @ LATENT_WEIGHTS + label_dependence * (0.8 * sign + 0.8 * age)
    if task == "classification":
        y = (rng.random(n_samples) < 1.0 / (1.0 + np.exp(-signal))).astype(np.int64)
    else:
        y = signal + rng.normal(scale=0.5, size=n_samples)
    X = pd.DataFrame(
        {
            "x1": latent[:, 0] + feature_dependence * sign,
            "x2": latent[:, 1] + feature_dependence * age,
            "x3": latent[:, 2],
            "x4": latent[:, 3],
            "channel": rng.choice(np.array(["a", "b", "c"]), size=n_samples),
        }
    )
    sensitive = pd.DataFrame(
        {
            "sex": pd.Categorical(people["sex"], categories=["f", "m"]),
            "age": people["age"],
            "region": people["region"],
        }
    )
    return LoadedTable(X, pd.Series(y, name="y"), sensitive)


def _name(task: Task) -> str:
    return "synthetic" if task == "classification" else "synthetic_regression"


def _description(task: Task, n: int, label: float, feature: float) -> str:
    return (
        f"synthetic {task}, {n} rows: label dependence {label:g} and feature dependence "
        f"{feature:g} on sex and age, none on region"
    )


#: What the outcome of each registered synthetic dataset is.
_LABELS = {
    "classification": "1 with probability sigmoid(signal of latent factors, sex and age)",
    "regression": "signal of latent factors, sex and age, plus N(0, 0.5²) noise",
}


def _registered(task: Task) -> DatasetSource:
    def load(paths: object) -> LoadedTable:
        return synthetic_table(
            REGISTERED_ROWS,
            task=task,
            label_dependence=1.0,
            feature_dependence=1.0,
            random_state=TABLE_SEED,
        )

    return DatasetSource(
        name=_name(task),
        task=task,
        attributes=ATTRIBUTES,
        load=load,
        description=_description(task, REGISTERED_ROWS, 1.0, 1.0)
        + f"; one fixed table (generator seed {TABLE_SEED}), the seed picks the split",
        rows=REGISTERED_ROWS,
        origin="synthetic",
        label=_LABELS[task],
    )


SYNTHETIC_SOURCES: tuple[DatasetSource, ...] = (
    _registered("classification"),
    _registered("regression"),
)
