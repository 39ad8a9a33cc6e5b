"""The AIF360 adapter's public functions and classes: signatures and docstrings, pinned.

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
    "faircocco_aif360:FairCOCCOInprocessing": (
        (
            "(notion: 'str' = 'eo', lam: 'float' = 1.0, *, "
            "protected_as_features: 'bool' = False, target: 'Any' = None, "
            "confidence: 'float' = 0.9, bins: 'int' = 4, intersections: 'bool' = False, "
            "kernel: 'str' = 'gaussian', hidden_layer_sizes: 'Any' = None, "
            "batch_size: 'int' = 128, learning_rate: 'float' = 0.001, epochs: 'int' = 100, "
            "warmup_epochs: 'int' = 0, weight_decay: 'float' = 0.0, verbose: 'bool' = False, "
            "random_state: 'int | None' = None) -> 'None'"
        ),
        "71c7350cce9b4d5d",
    ),
    "faircocco_aif360:FairCOCCOInprocessing.fit": (
        ("(self, dataset: 'Any') -> 'FairCOCCOInprocessing'"),
        "ed99b274c0c89281",
    ),
    "faircocco_aif360:FairCOCCOInprocessing.predict": (
        ("(self, dataset: 'Any') -> 'Any'"),
        "c17d6ddebd365eb6",
    ),
    "faircocco_aif360:FairCOCCOMetric": (
        ("(dataset: 'Any', classified_dataset: 'Any', *, predictions: 'str' = 'scores') -> 'None'"),
        "a04a201003aac8fe",
    ),
    "faircocco_aif360:FairCOCCOMetric.faircocco_score": (
        ("(self, notion: 'str' = 'eo', **options: 'Any') -> 'float'"),
        "ed7b97a32d1b31c4",
    ),
    "faircocco_aif360:FairCOCCOMetric.faircocco_report": (
        ("(self, notion: 'str' = 'eo', **options: 'Any') -> 'pd.DataFrame'"),
        "2629fef71fd9012a",
    ),
    "faircocco_aif360:FairCOCCOMetric.independence_test": (
        (
            "(self, notion: 'str' = 'eo', "
            "**options: 'Any') -> 'faircocco_plugins.IndependenceTestResult'"
        ),
        "22a2e277337d261b",
    ),
    "faircocco_aif360:aif360_dataset": (
        (
            "(name: 'str', *, data_dir: 'str | os.PathLike[str] | None' = None, "
            "download: 'bool | None' = None, **kwargs: 'Any') -> 'StandardDataset'"
        ),
        "8019a99f6c835e03",
    ),
    "faircocco_aif360.sklearn:FairCOCCOInprocessing": (
        (
            "(prot_attr: 'Any' = None, notion: 'str' = 'eo', lam: 'float' = 1.0, *, "
            "drop_prot_attr: 'bool' = True, kernel: 'str' = 'gaussian', "
            "hidden_layer_sizes: 'Any' = None, batch_size: 'int' = 128, "
            "learning_rate: 'float' = 0.001, epochs: 'int' = 100, warmup_epochs: 'int' = 0, "
            "weight_decay: 'float' = 0.0, verbose: 'bool' = False, "
            "random_state: 'int | None' = None) -> 'None'"
        ),
        "ba1e25374f797504",
    ),
    "faircocco_aif360.sklearn:FairCOCCOInprocessing.fit": (
        (
            "(self, X: 'pd.DataFrame', y: 'Any', "
            "sample_weight: 'Any' = None) -> 'FairCOCCOInprocessing'"
        ),
        "027ef2eabb1c9a1e",
    ),
    "faircocco_aif360.sklearn:FairCOCCOInprocessing.predict_proba": (
        ("(self, X: 'pd.DataFrame') -> 'np.ndarray'"),
        "ea7b82154bb78029",
    ),
    "faircocco_aif360.sklearn:FairCOCCOInprocessing.predict": (
        ("(self, X: 'pd.DataFrame') -> 'np.ndarray'"),
        "843b45cf4c067b30",
    ),
}


@pytest.mark.parametrize("key", list(PINNED))
def test_signature_and_docstring_are_unchanged(key):
    module, name = key.split(":")
    obj = functools.reduce(getattr, name.split("."), importlib.import_module(module))
    digest = hashlib.sha256((obj.__doc__ or "").encode()).hexdigest()[:16]
    assert (str(inspect.signature(obj)), digest) == PINNED[key]
