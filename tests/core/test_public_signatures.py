"""The public functions and classes of the core and of the torch and fairlearn adapters (where
installed): their signatures and docstrings, pinned.

A change to how the signatures, defaults or docstrings are built must leave what users see
unchanged; a deliberate change of the public interface updates the pin here.
"""

import functools
import hashlib
import inspect

import pytest

#: ``module:name`` -> (signature, first 16 hex digits of the docstring's SHA-256)
PINNED = {
    "faircocco_plugins:BatchStatistic": (
        (
            "(notion: 'str' = 'eo', *, rank: 'int | None' = None, eps: 'float' = 0.0001, "
            "conditioning_eps: 'float | None' = None, attribute_kernel: 'str' = 'product', "
            "kernel: 'str' = 'gaussian', bandwidth: 'str | float' = 'median', "
            "random_state: 'int | None' = None, chance_adjusted: 'bool' = False) -> 'None'"
        ),
        "3e3b895a1a322661",
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
        "442573f90d013b25",
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
            "attribute_kernel: 'str' = 'product', kernel: 'str' = 'gaussian', "
            "bandwidth: 'str | float' = 'median', random_state: 'int | None' = None, "
            "data: 'Any' = None) -> 'pd.DataFrame'"
        ),
        "49a366f836966f1a",
    ),
    "faircocco_plugins:faircocco_score": (
        (
            "(y_pred: 'Any', sensitive_features: 'Any', *, y_true: 'Any' = None, "
            "notion: 'str' = 'dp', method: 'str' = 'auto', rank: 'int | None' = None, "
            "eps: 'float' = 0.0001, conditioning_eps: 'float | None' = None, "
            "attribute_kernel: 'str' = 'product', kernel: 'str' = 'gaussian', "
            "bandwidth: 'str | float' = 'median', random_state: 'int | None' = None, "
            "adjusted: 'bool' = False, data: 'Any' = None) -> 'Any'"
        ),
        "16340731478f5c59",
    ),
    "faircocco_plugins:faircocco_statistic": (
        (
            "(y_pred: 'Any', sensitive_features: 'Any', *, y_true: 'Any' = None, "
            "notion: 'str' = 'dp', method: 'str' = 'auto', rank: 'int | None' = None, "
            "eps: 'float' = 0.0001, conditioning_eps: 'float | None' = None, "
            "attribute_kernel: 'str' = 'product', kernel: 'str' = 'gaussian', "
            "bandwidth: 'str | float' = 'median', random_state: 'int | None' = None, "
            "data: 'Any' = None) -> 'Any'"
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
            "notion: 'str' = 'dp', n_permutations: 'int | None' = None, "
            "random_state: 'int | None' = None, method: 'str' = 'auto', "
            "rank: 'int | None' = 10, eps: 'float' = 1.0, "
            "conditioning_eps: 'float | None' = 1e-05, attribute_kernel: 'str' = 'joint', "
            "kernel: 'str' = 'gaussian', bandwidth: 'str | float' = 'median', "
            "widths: 'Sequence[float]' = (1.0,), null: 'str' = 'auto', "
            "progress: 'bool' = False) -> 'IndependenceTestResult'"
        ),
        "0cf74988b1b77937",
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
            "attribute_kernel: 'str' = 'product', kernel: 'str' = 'gaussian', "
            "bandwidth: 'str | float' = 'median', random_state: 'int | None' = None) -> 'None'"
        ),
        "46635e01311e4e85",
    ),
    "faircocco_plugins.plugins:statistic_default": (
        ("(name: 'str', entry_point: 'str' = 'score') -> 'Any'"),
        "85661af3c876ea99",
    ),
    "faircocco_torch:AttributeSpec": (
        (
            "(name: 'str', kind: 'str', columns: 'tuple[int, ...]', levels: 'tuple[Any, "
            "...]' = ()) -> None"
        ),
        "9be1394aa94cfea4",
    ),
    "faircocco_torch:CovariancePenalty": (
        (
            "(notion: 'str' = 'dp', lam: 'float' = 1.0, *, threshold: 'float' = 0.0, "
            "squared: 'bool' = False, schema: 'SensitiveSchema | None' = None) -> 'None'"
        ),
        "7c7c0995dacc6e7a",
    ),
    "faircocco_torch:FACLPenalty": (
        (
            "(notion: 'str' = 'eo', lam: 'float' = 1.0, *, damping: 'float' = 1e-10, "
            "schema: 'SensitiveSchema | None' = None) -> 'None'"
        ),
        "43adbb71eee41746",
    ),
    "faircocco_torch:FARMIPenalty": (
        (
            "(notion: 'str' = 'eo', lam: 'float' = 1.0, *, lspc_lambda: 'float' = 1.0, "
            "continuous: 'str' = 'binarize', "
            "schema: 'SensitiveSchema | None' = None) -> 'None'"
        ),
        "5e61c7796f0f1a27",
    ),
    "faircocco_torch:FairCOCCOClassifier": (
        (
            "(*, penalty: 'str | nn.Module | None' = 'faircocco', notion: 'str' = 'eo', "
            "lam: 'float' = 1.0, penalty_on: 'str' = 'proba', kernel: 'str' = 'gaussian', "
            "hidden_layer_sizes: 'Sequence[int] | None' = None, batch_size: 'int' = 128, "
            "learning_rate: 'float' = 0.001, epochs: 'int' = 100, warmup_epochs: 'int' = 0, "
            "weight_decay: 'float' = 0.0, early_stopping: 'bool' = False, "
            "validation_fraction: 'float' = 0.2, patience: 'int' = 10, device: 'str' = 'cpu', "
            "n_threads: 'int | None' = 1, verbose: 'bool' = False, "
            "random_state: 'int | np.random.RandomState | None' = None) -> 'None'"
        ),
        "80e3cc1390ae7233",
    ),
    "faircocco_torch:FairCOCCOClassifier.fit": (
        (
            "(self, X: 'Any', y: 'Any', *, sensitive_features: 'Any' = None, "
            "sample_weight: 'Any' = None) -> 'Self'"
        ),
        "4b92707c5ac44591",
    ),
    "faircocco_torch:FairCOCCOClassifier.decision_function": (
        ("(self, X: 'Any') -> 'np.ndarray'"),
        "ba169606541e4b60",
    ),
    "faircocco_torch:FairCOCCOClassifier.predict_proba": (
        ("(self, X: 'Any') -> 'np.ndarray'"),
        "261c28801cb3a9d4",
    ),
    "faircocco_torch:FairCOCCOClassifier.predict": (
        ("(self, X: 'Any') -> 'np.ndarray'"),
        "523385195fc2c33c",
    ),
    "faircocco_torch:FairCOCCOConstraint": (
        (
            "(notion: 'str' = 'eo', bound: 'float' = 0.001, multiplier_lr: 'float' = 100.0, "
            "multiplier_init: 'float' = 0.0, multiplier_max: 'float | None' = None, "
            "method: 'str' = 'auto', rank: 'int | None' = None, eps: 'float' = 0.3, "
            "attribute_kernel: 'str' = 'product', *, conditioning_eps: 'float | None' = 0.0001, "
            "chance_adjusted: 'bool | None' = None, kernel: 'str' = 'gaussian', "
            "bandwidth: 'str | float' = 'median', "
            "schema: 'SensitiveSchema | None' = None) -> 'None'"
        ),
        "f222dd61e543b039",
    ),
    "faircocco_torch:FairCOCCOConstraint.update_multiplier": (
        ("(self, statistic: 'float') -> 'float'"),
        "700cb84edaed670b",
    ),
    "faircocco_torch:FairCOCCOConstraint.reset": (
        ("(self) -> 'FairCOCCOConstraint'"),
        "ea871cb53a190b42",
    ),
    "faircocco_torch:FairCOCCOConstraint.extra_repr": (
        ("(self) -> 'str'"),
        "e3b0c44298fc1c14",
    ),
    "faircocco_torch:FairCOCCOPathClassifier": (
        (
            "(*, penalty: 'str | nn.Module | None' = 'faircocco', notion: 'str' = 'eo', "
            "penalty_on: 'str' = 'proba', kernel: 'str' = 'gaussian', "
            "hidden_layer_sizes: 'Sequence[int] | None' = None, batch_size: 'int' = 128, "
            "learning_rate: 'float' = 0.001, warmup_epochs: 'int' = 10, "
            "weight_decay: 'float' = 0.0, early_stopping: 'bool' = True, "
            "validation_fraction: 'float' = 0.2, patience: 'int' = 3, device: 'str' = 'cpu', "
            "n_threads: 'int | None' = 1, verbose: 'bool' = False, "
            "random_state: 'int | np.random.RandomState | None' = None, target='halve', "
            "confidence=0.9, bins=4, intersections=False, lam_min=0.5, lam_max=500.0, "
            "lam_factor=2.0, epochs_per_step=3, refine_steps=3, model='network')"
        ),
        "713623c2e07b9cc9",
    ),
    "faircocco_torch:FairCOCCOPathRegressor": (
        (
            "(*, penalty: 'str | nn.Module | None' = 'faircocco', notion: 'str' = 'eo', "
            "kernel: 'str' = 'gaussian', hidden_layer_sizes: 'Sequence[int] | None' = None, "
            "batch_size: 'int' = 128, learning_rate: 'float' = 0.001, warmup_epochs: 'int' = 10, "
            "weight_decay: 'float' = 0.0, early_stopping: 'bool' = True, "
            "validation_fraction: 'float' = 0.2, patience: 'int' = 3, device: 'str' = 'cpu', "
            "n_threads: 'int | None' = 1, verbose: 'bool' = False, "
            "random_state: 'int | np.random.RandomState | None' = None, target='halve', "
            "confidence=0.9, bins=4, intersections=False, lam_min=0.5, lam_max=500.0, "
            "lam_factor=2.0, epochs_per_step=3, refine_steps=3, model='network')"
        ),
        "7e8ea035498016a5",
    ),
    "faircocco_torch:FairCOCCOPenalty": (
        (
            "(notion: 'str' = 'eo', lam: 'float' = 1.0, method: 'str' = 'auto', "
            "rank: 'int | None' = None, eps: 'float' = 0.3, attribute_kernel: 'str' = 'product', "
            "*, conditioning_eps: 'float | None' = 0.0001, "
            "chance_adjusted: 'bool | None' = None, kernel: 'str' = 'gaussian', "
            "bandwidth: 'str | float' = 'median', "
            "schema: 'SensitiveSchema | None' = None) -> 'None'"
        ),
        "13bbfcd129adb98b",
    ),
    "faircocco_torch:FairCOCCOPenalty.fit": (
        ("(self, sensitive: 'Any', y_true: 'Any' = None) -> 'FairCOCCOPenalty'"),
        "75cb015a0f1840bb",
    ),
    "faircocco_torch:FairCOCCOPenalty.extra_repr": (
        ("(self) -> 'str'"),
        "e3b0c44298fc1c14",
    ),
    "faircocco_torch:FairCOCCORegressor": (
        (
            "(*, penalty: 'str | nn.Module | None' = 'faircocco', notion: 'str' = 'eo', "
            "lam: 'float' = 1.0, kernel: 'str' = 'gaussian', "
            "hidden_layer_sizes: 'Sequence[int] | None' = None, batch_size: 'int' = 128, "
            "learning_rate: 'float' = 0.001, epochs: 'int' = 100, warmup_epochs: 'int' = 0, "
            "weight_decay: 'float' = 0.0, early_stopping: 'bool' = False, "
            "validation_fraction: 'float' = 0.2, patience: 'int' = 10, device: 'str' = 'cpu', "
            "n_threads: 'int | None' = 1, verbose: 'bool' = False, "
            "random_state: 'int | np.random.RandomState | None' = None) -> 'None'"
        ),
        "2e3e1804c1a2afd3",
    ),
    "faircocco_torch:FairCOCCORegressor.fit": (
        (
            "(self, X: 'Any', y: 'Any', *, sensitive_features: 'Any' = None, "
            "sample_weight: 'Any' = None) -> 'Self'"
        ),
        "4b92707c5ac44591",
    ),
    "faircocco_torch:FairCOCCORegressor.predict": (
        ("(self, X: 'Any') -> 'np.ndarray'"),
        "6df33d288b0ea87f",
    ),
    "faircocco_torch:FairnessPenalty": (
        (
            "(notion: 'str' = 'eo', lam: 'float' = 1.0, *, "
            "schema: 'SensitiveSchema | None' = None) -> 'None'"
        ),
        "d4ba473920484771",
    ),
    "faircocco_torch:FairnessPenalty.set_schema": (
        ("(self, schema: 'SensitiveSchema | None') -> 'FairnessPenalty'"),
        "03a47fbae093a728",
    ),
    "faircocco_torch:FairnessPenalty.fit": (
        ("(self, sensitive: 'Any', y_true: 'Any' = None) -> 'FairnessPenalty'"),
        "b8172716d98baa09",
    ),
    "faircocco_torch:FairnessPenalty.forward": (
        (
            "(self, y_pred: 'torch.Tensor', sensitive: 'Any', "
            "y_true: 'Any' = None) -> 'torch.Tensor'"
        ),
        "1dda865250f6feb1",
    ),
    "faircocco_torch:FairnessPenalty.evaluate": (
        (
            "(self, y_pred: 'torch.Tensor', sensitive: 'Any', "
            "y_true: 'Any' = None) -> 'tuple[torch.Tensor, torch.Tensor]'"
        ),
        "25ccf88446b360a6",
    ),
    "faircocco_torch:FairnessPenalty.statistic": (
        (
            "(self, y_pred: 'torch.Tensor', sensitive: 'Any', "
            "y_true: 'Any' = None) -> 'torch.Tensor'"
        ),
        "48711d15acc29bce",
    ),
    "faircocco_torch:FairnessPenalty.extra_repr": (
        ("(self) -> 'str'"),
        "e3b0c44298fc1c14",
    ),
    "faircocco_torch:FitHistory": (
        (
            "(loss: 'list[float]' = <factory>, penalty: 'list[float]' = <factory>, "
            "statistic: 'list[float]' = <factory>, val_loss: 'list[float]' = <factory>, "
            "val_penalty: 'list[float]' = <factory>, val_statistic: 'list[float]' = <factory>, "
            "epoch_seconds: 'list[float]' = <factory>, best_epoch: 'int | None' = None, "
            "stopped_early: 'bool' = False) -> None"
        ),
        "e148dc3f7c9e39be",
    ),
    "faircocco_torch:FitHistory.to_frame": (
        ("(self) -> 'pd.DataFrame'"),
        "0bab1a6a03cb96b6",
    ),
    "faircocco_torch:HSICPenalty": (
        (
            "(notion: 'str' = 'eo', lam: 'float' = 1.0, *, "
            "schema: 'SensitiveSchema | None' = None) -> 'None'"
        ),
        "315a23898e935a57",
    ),
    "faircocco_torch:LinearLossPenalty": (
        (
            "(notion: 'str' = 'eo', lam: 'float' = 1.0, *, "
            "schema: 'SensitiveSchema | None' = None) -> 'None'"
        ),
        "f384218775dbbe05",
    ),
    "faircocco_torch:PenaltyCapabilities": (
        (
            "(*, tasks: 'tuple[str, ...]' = ('classification', 'regression'), "
            "notions: 'tuple[str, ...]', attributes: 'tuple[str, ...]', outcomes: 'tuple[str, "
            "...]', multiple_attributes: 'str', needs_gradients: 'bool' = True, "
            "attributes_at_prediction: 'bool' = False, note: 'str' = '', "
            "multi_output: 'bool') -> None"
        ),
        "7543194942b86c2c",
    ),
    "faircocco_torch:PenaltyCapabilities.supports": (
        (
            "(self, *, notion: 'str | None' = None, attributes: 'tuple[str, ...]' = (), "
            "outcome: 'str | None' = None, outputs: 'int' = 1) -> 'bool'"
        ),
        "b995936a248e6d23",
    ),
    "faircocco_torch:PenaltyCapabilities.check": (
        (
            "(self, owner: 'str', *, notion: 'str | None' = None, attributes: 'tuple[str, "
            "...]' = (), outcome: 'str | None' = None, outputs: 'int' = 1) -> 'None'"
        ),
        "90abb791c180f00c",
    ),
    "faircocco_torch:SensitiveEncoder": (
        (
            "(*, nominal: 'Sequence[str | int] | None' = None, standardize: 'bool' = True, "
            "dtype: 'torch.dtype' = torch.float32) -> 'None'"
        ),
        "59a425eb50757911",
    ),
    "faircocco_torch:SensitiveEncoder.fit": (
        ("(self, sensitive_features: 'Any') -> 'SensitiveEncoder'"),
        "9e2ee8097f89fd3f",
    ),
    "faircocco_torch:SensitiveEncoder.transform": (
        ("(self, sensitive_features: 'Any') -> 'torch.Tensor'"),
        "8f364fe6821cdbca",
    ),
    "faircocco_torch:SensitiveEncoder.fit_transform": (
        ("(self, sensitive_features: 'Any') -> 'torch.Tensor'"),
        "9e8636ba6d430fdd",
    ),
    "faircocco_torch:SensitiveSchema": (
        ("(attributes: 'tuple[AttributeSpec, ...]') -> None"),
        "7f45246ff4a42481",
    ),
    "faircocco_torch:fit_fair": (
        (
            "(model: 'nn.Module', train_data: 'Any', *, loss: 'Loss', "
            "penalty: 'Penalty | None', "
            "optimizer: 'torch.optim.Optimizer | OptimizerFactory | None' = None, "
            "batch_size: 'int' = 256, epochs: 'int' = 10, val_data: 'Any' = None, "
            "early_stopping: 'int | None' = None, monitor: 'str' = 'objective', "
            "penalty_input: 'Callable[[torch.Tensor], torch.Tensor] | None' = None, "
            "warmup_epochs: 'int' = 0, random_state: 'int | None' = None, "
            "progress: 'bool' = True, n_threads: 'int | None' = None) -> 'FitHistory'"
        ),
        "d27d7ef664490f65",
    ),
    "faircocco_torch:hidden_width": (
        ("(n_features: 'int') -> 'int'"),
        "32570aacc89cfdf7",
    ),
    "faircocco_torch:paper_mlp": (
        (
            "(n_features: 'int', n_outputs: 'int', "
            "hidden_layer_sizes: 'Sequence[int] | None' = None) -> 'nn.Sequential'"
        ),
        "5aa28dce9403827c",
    ),
    "faircocco_fairlearn:FairCOCCOGridSearch": (
        (
            "(estimator: 'Any', constraints: 'Any', *, target: 'Any' = 'halve', "
            "notion: 'str | None' = None, kernel: 'str | None' = None, "
            "validation_fraction: 'float' = 0.2, random_state: 'int | None' = None, "
            "bins: 'int' = 4, "
            "confidence: 'float' = 0.9, intersections: 'bool' = False, grid_size: 'int' = 10, "
            "grid_limit: 'float' = 2.0, grid_offset: 'Any' = None, grid: 'Any' = None, "
            "sample_weight_name: 'str' = 'sample_weight') -> 'None'"
        ),
        "5db7634ede323b8f",
    ),
    "faircocco_fairlearn:FairCOCCOGridSearch.fit": (
        (
            "(self, X: 'Any', y: 'Any', *, sensitive_features: 'Any', "
            "control_features: 'Any' = None) -> 'FairCOCCOGridSearch'"
        ),
        "5b1d48b5caa3aea8",
    ),
    "faircocco_fairlearn:FairCOCCOMoment": (
        (
            "(notion: 'str' = 'dp', *, n_features: 'int' = 32, difference_bound: 'float' = 0.01, "
            "random_state: 'int | None' = None, kernel: 'str' = 'gaussian') -> 'None'"
        ),
        "a6f5fdf8bae79f63",
    ),
    "faircocco_fairlearn:FairCOCCOMoment.load_data": (
        (
            "(self, X: 'Any', y: 'Any', *, sensitive_features: 'Any', "
            "control_features: 'Any' = None) -> 'None'"
        ),
        "c5beabb8739ae902",
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
        (
            "(y_true: 'Any', y_pred: 'Any', *, sensitive_features: 'Any', "
            "pos_label: 'Any' = None) -> 'float'"
        ),
        "e55afb571efb88b7",
    ),
    "faircocco_fairlearn:disparate_impact_ratio": (
        (
            "(y_true: 'Any', y_pred: 'Any', *, sensitive_features: 'Any', "
            "pos_label: 'Any' = None) -> 'float'"
        ),
        "99dbbb43474a3ad1",
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
    obj = functools.reduce(getattr, name.split("."), pytest.importorskip(module))
    digest = hashlib.sha256((obj.__doc__ or "").encode()).hexdigest()[:16]
    assert (str(inspect.signature(obj)), digest) == PINNED[key]
