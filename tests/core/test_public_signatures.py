"""The core's public functions and classes: signatures and docstrings, pinned.

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
    "faircocco_plugins:BatchStatistic": (
        (
            "(notion: 'str' = 'eo', *, rank: 'int | None' = None, eps: 'float' = 0.0001, "
            "conditioning_eps: 'float | None' = None, attribute_kernel: 'str' = 'product', "
            "bandwidth: 'str | float' = 'median', random_state: 'int | None' = None, "
            "chance_adjusted: 'bool' = False) -> 'None'"
        ),
        "35b53f575aef9390",
    ),
    "faircocco_plugins:BatchStatistic.fit": (
        ("(self, sensitive_features: 'Any', y_true: 'Any' = None) -> 'BatchStatistic'"),
        "d5a6f9660d018c67",
    ),
    "faircocco_plugins:IndependenceTestResult": (
        (
            "(statistic: 'np.ndarray', score: 'float', pvalue: 'float', "
            "null_distribution: 'np.ndarray', widths: 'tuple[float, ...]', "
            "null: 'str' = 'permutation') -> None"
        ),
        "9a9a553aaf7652bc",
    ),
    "faircocco_plugins:config_context": (
        ("(*, limit_blas_threads: 'bool | None' = None) -> 'Iterator[None]'"),
        "167bb5fccf81f6b5",
    ),
    "faircocco_plugins:faircocco_report": (
        (
            "(y_pred: 'Any', sensitive_features: 'Any', *, y_true: 'Any' = None, "
            "notion: 'str' = 'dp', method: 'str' = 'auto', rank: 'int | None' = None, "
            "eps: 'float' = 0.0001, conditioning_eps: 'float | None' = None, "
            "attribute_kernel: 'str' = 'product', bandwidth: 'str | float' = 'median', "
            "random_state: 'int | None' = None, data: 'Any' = None) -> 'pd.DataFrame'"
        ),
        "c0489b01489e2bf0",
    ),
    "faircocco_plugins:faircocco_score": (
        (
            "(y_pred: 'Any', sensitive_features: 'Any', *, y_true: 'Any' = None, "
            "notion: 'str' = 'dp', method: 'str' = 'auto', rank: 'int | None' = None, "
            "eps: 'float' = 0.0001, conditioning_eps: 'float | None' = None, "
            "attribute_kernel: 'str' = 'product', bandwidth: 'str | float' = 'median', "
            "random_state: 'int | None' = None, adjusted: 'bool' = False, "
            "data: 'Any' = None) -> 'Any'"
        ),
        "939084acf8733464",
    ),
    "faircocco_plugins:faircocco_statistic": (
        (
            "(y_pred: 'Any', sensitive_features: 'Any', *, y_true: 'Any' = None, "
            "notion: 'str' = 'dp', method: 'str' = 'auto', rank: 'int | None' = None, "
            "eps: 'float' = 0.0001, conditioning_eps: 'float | None' = None, "
            "attribute_kernel: 'str' = 'product', bandwidth: 'str | float' = 'median', "
            "random_state: 'int | None' = None, data: 'Any' = None) -> 'Any'"
        ),
        "bc92005396bc1492",
    ),
    "faircocco_plugins:get_config": (
        ("() -> 'dict[str, Any]'"),
        "a75d49360873aae6",
    ),
    "faircocco_plugins:independence_test": (
        (
            "(y_pred: 'Any', sensitive_features: 'Any', *, y_true: 'Any' = None, "
            "notion: 'str' = 'dp', n_permutations: 'int' = 1000, "
            "random_state: 'int | None' = None, method: 'str' = 'auto', "
            "rank: 'int | None' = None, eps: 'float' = 1.0, "
            "conditioning_eps: 'float | None' = None, attribute_kernel: 'str' = 'product', "
            "bandwidth: 'str | float' = 'median', widths: 'Sequence[float]' = (0.5, 1.0, 2.0), "
            "null: 'str' = 'auto', progress: 'bool' = False) -> 'IndependenceTestResult'"
        ),
        "4b2806c6d0ef2884",
    ),
    "faircocco_plugins:is_nominal": (
        ("(column: 'pd.Series') -> 'bool'"),
        "ab99e7e0b3b15ea5",
    ),
    "faircocco_plugins:make_synthetic": (
        (
            "(n: 'int', *, random_state: 'int | None' = None, "
            "dependence: 'float' = 1.0) -> 'pd.DataFrame'"
        ),
        "df6a232baaca98fb",
    ),
    "faircocco_plugins:set_config": (
        ("(*, limit_blas_threads: 'bool | None' = None) -> 'None'"),
        "0bc613461e5abf5f",
    ),
    "faircocco_plugins:standardise": (
        ("(values: 'Any') -> 'tuple[Any, Any]'"),
        "d0bece087e1c97c1",
    ),
    "faircocco_plugins.plugins:check_statistic_options": (
        (
            "(*, notion: 'str' = 'dp', method: 'str' = 'auto', rank: 'int | None' = None, "
            "eps: 'float' = 0.0001, conditioning_eps: 'float | None' = None, "
            "attribute_kernel: 'str' = 'product', bandwidth: 'str | float' = 'median', "
            "random_state: 'int | None' = None) -> 'None'"
        ),
        "4bd371c3c171b99a",
    ),
    "faircocco_plugins.plugins:statistic_default": (
        ("(name: 'str', entry_point: 'str' = 'score') -> 'Any'"),
        "85661af3c876ea99",
    ),
}


@pytest.mark.parametrize("key", list(PINNED))
def test_signature_and_docstring_are_unchanged(key):
    module, name = key.split(":")
    obj = functools.reduce(getattr, name.split("."), importlib.import_module(module))
    digest = hashlib.sha256((obj.__doc__ or "").encode()).hexdigest()[:16]
    assert (str(inspect.signature(obj)), digest) == PINNED[key]
