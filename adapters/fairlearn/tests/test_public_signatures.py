"""The fairlearn adapter's public functions and classes: signatures and docstrings, pinned.

A change to how the signatures, defaults or docstrings are built must leave what users see
unchanged; a deliberate change of the public interface updates the pin here.
"""

import functools
import hashlib
import importlib
import inspect

import pytest

#: ``module:name`` -> (signature, first 16 hex digits of the docstring's SHA-256)
PINNED = {
    "faircocco_fairlearn:FairCOCCOGridSearch": (
        (
            "(estimator: 'Any', constraints: 'Any', *, target: 'Any' = 'halve', "
            "notion: 'str | None' = None, validation_fraction: 'float' = 0.2, "
            "random_state: 'int | None' = None, grid_size: 'int' = 10, "
            "grid_limit: 'float' = 2.0, grid_offset: 'Any' = None, grid: 'Any' = None, "
            "sample_weight_name: 'str' = 'sample_weight') -> 'None'"
        ),
        "1ec2c29f869c9303",
    ),
    "faircocco_fairlearn:FairCOCCOGridSearch.fit": (
        (
            "(self, X: 'Any', y: 'Any', *, sensitive_features: 'Any', "
            "control_features: 'Any' = None) -> 'FairCOCCOGridSearch'"
        ),
        "24af4980b7720e1e",
    ),
    "faircocco_fairlearn:FairCOCCOMoment": (
        (
            "(notion: 'str' = 'dp', *, n_features: 'int' = 32, "
            "difference_bound: 'float' = 0.01, random_state: 'int | None' = None) -> 'None'"
        ),
        "80189ec961ccd900",
    ),
    "faircocco_fairlearn:FairCOCCOMoment.load_data": (
        (
            "(self, X: 'Any', y: 'Any', *, sensitive_features: 'Any', "
            "control_features: 'Any' = None) -> 'None'"
        ),
        "df749e86a04ca527",
    ),
    "faircocco_fairlearn:FairCOCCOMoment.default_objective": (
        ("(self) -> 'ErrorRate'"),
        "8eb5b829fd5e7cf7",
    ),
    "faircocco_fairlearn:FairCOCCOMoment.gamma": (
        ("(self, predictor: 'Any') -> 'pd.Series'"),
        "1cdf685d7625cc3e",
    ),
    "faircocco_fairlearn:FairCOCCOMoment.bound": (
        ("(self) -> 'pd.Series'"),
        "85b0149ea87aff4a",
    ),
    "faircocco_fairlearn:FairCOCCOMoment.project_lambda": (
        ("(self, lambda_vec: 'pd.Series') -> 'pd.Series'"),
        "e0cf533649c0b4ed",
    ),
    "faircocco_fairlearn:FairCOCCOMoment.signed_weights": (
        ("(self, lambda_vec: 'pd.Series') -> 'pd.Series'"),
        "29fcaa032c32a194",
    ),
    "faircocco_fairlearn:difference_of_equal_opportunity": (
        ("(y_true: 'Any', y_pred: 'Any', *, sensitive_features: 'Any') -> 'float'"),
        "a0e37ef39052d32d",
    ),
    "faircocco_fairlearn:disparate_impact_ratio": (
        ("(y_true: 'Any', y_pred: 'Any', *, sensitive_features: 'Any') -> 'float'"),
        "fd1f5e56e16f26ef",
    ),
    "faircocco_fairlearn:faircocco_metric": (
        (
            "(y_true: 'Any', y_pred: 'Any', *, sensitive_features: 'Any', "
            "notion: 'str' = 'eo', adjusted: 'bool' = False, min_rows: 'int' = 30, "
            "**options: 'Any') -> 'float'"
        ),
        "0db737dbb3d3a212",
    ),
    "faircocco_fairlearn:faircocco_metric_report": (
        (
            "(y_true: 'Any', y_pred: 'Any', *, sensitive_features: 'Any', "
            "notion: 'str' = 'eo', **options: 'Any') -> 'pd.DataFrame'"
        ),
        "97c8c3ea6fc7f2a5",
    ),
    "faircocco_fairlearn:faircocco_sample_params": (
        (
            "(sensitive_features: 'Any', *, y_true: 'Any' = None, "
            "y_pred: 'Any' = None) -> 'dict[str, np.ndarray]'"
        ),
        "cef6f851b4f1c6f9",
    ),
}


@pytest.mark.parametrize("key", list(PINNED))
def test_signature_and_docstring_are_unchanged(key):
    module, name = key.split(":")
    obj = functools.reduce(getattr, name.split("."), importlib.import_module(module))
    digest = hashlib.sha256((obj.__doc__ or "").encode()).hexdigest()[:16]
    assert (str(inspect.signature(obj)), digest) == PINNED[key]
