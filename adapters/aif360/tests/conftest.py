"""Small AIF360 datasets with several continuous protected attributes, and a line on the tests
that skipped for want of the paper's datasets."""

from __future__ import annotations

import pytest
from aif360_helpers import frame

from faircocco_plugins.datasets._test_skips import pytest_terminal_summary  # noqa: F401


@pytest.fixture
def binary_dataset():
    from aif360.datasets import BinaryLabelDataset

    return BinaryLabelDataset(
        df=frame(), label_names=["y"], protected_attribute_names=["age", "income"]
    )


@pytest.fixture
def regression_dataset():
    from aif360.datasets import RegressionDataset

    # RegressionDataset maps its protected attributes to privileged or not (here sex, already
    # 0/1); a continuous one stays continuous in a StructuredDataset (see structured_dataset)
    df = frame().drop(columns="y")
    df["sex"] = (df["z"] > 0).astype(float)
    df["target"] = df["x"] * 2 + df["sex"]
    return RegressionDataset(
        df, dep_var_name="target", protected_attribute_names=["sex"], privileged_classes=[[1.0]]
    )


@pytest.fixture
def structured_dataset():
    """A continuous outcome with two continuous protected attributes."""
    from aif360.datasets import StructuredDataset

    df = frame().drop(columns="y")
    df["target"] = df["x"] * 2 + df["z"]
    return StructuredDataset(
        df=df, label_names=["target"], protected_attribute_names=["age", "income"]
    )
