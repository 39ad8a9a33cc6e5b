"""The plugin contract: what an adapter implements, and what it may rely on.

This is the one module a toolkit adapter (``faircocco_torch``, and the fairlearn and AIF360
adapters) or a third-party distribution needs, besides the public score and statistic API of
:mod:`faircocco_plugins`. It needs only numpy and pandas: importing it imports neither the
head-to-head harness (:mod:`faircocco_plugins.bench`) nor its optional dependencies.

* **A method** is an estimator with fairlearn's ``fit(X, y, *, sensitive_features=...)``
  (:class:`Mitigator`), described by a :class:`MethodSpec` (its :class:`Capabilities`, a
  factory and its sweeps) that an entry point in the group :data:`METHOD_ENTRY_POINT_GROUP`
  loads to; :func:`available_methods` finds them.
* **A dataset** is a :class:`DatasetSource` that an entry point in the group
  :data:`DATASET_ENTRY_POINT_GROUP` loads to (or :func:`faircocco_plugins.datasets.register_dataset`
  registers in-process).
* **The vocabulary** shared by both: :data:`TASKS`, :data:`NOTIONS`, :data:`KINDS`, and the
  rules :func:`attribute_kind`, :func:`outcome_kind` and :func:`kind_from_levels` that give a
  column its kind.
* **The statistic's options** :data:`STATISTIC_OPTIONS`, with :func:`statistic_default` and
  :func:`check_statistic_options`, for adapters that store them (a penalty, a metric), and the
  decorator :func:`takes_options` (with :class:`PenaltyKeywords`) that gives an adapter's
  constructor the options' parameters from the one table instead of a copy; and the rule
  :func:`fits_kernels_ahead`, whether a penalty measures its batches with a
  :class:`faircocco_plugins.BatchStatistic`.
* **The parameter checks** :class:`Interval`, :func:`check_params` and :func:`check_bool`, for
  the parameters of an adapter's own estimators, with the core's error messages.
* **The median heuristic** :func:`median_distance`, the score's kernel width, for adapters
  that build kernels of their own (a baseline penalty, a reductions moment), and **the
  kernels** :data:`KERNELS` (records of the :class:`Kernel` protocol, by the name the
  ``kernel`` option takes) with :func:`kernel_named`, for those that build the score's own.
* **The row pairing** :func:`align_by_index`, the score's rule for pandas inputs, for adapters
  whose functions take row-wise arguments of their own.
* **The input checks** :func:`as_array` (a list or array, refusing masked entries and rows of
  different lengths), :func:`as_frame` (any input the score takes, pandas Categoricals
  included, as a DataFrame of its columns), :func:`check_labels` (a nominal column's values)
  and :func:`positive_labels` (binary labels, and which are the positive class), for adapters
  that read inputs themselves, with the core's error messages.
* **The warning** :class:`DegenerateModelWarning` that a method gives when its trained model
  predicts one class or one value; the harness judges such models itself and silences it.

Everything but the contract itself (the method and warning classes, :func:`available_methods`
and the constants below) is defined in the core module that owns it and exported from here.
An adapter imports from here and from :mod:`faircocco_plugins`, never from a private
``faircocco_plugins._*`` module or from the harness; ``make test`` checks this with
import-linter, and ``tests/core/test_plugin_contract.py`` that importing this module loads no
scipy, tqdm or platformdirs.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from ._inputs.binary_labels import positive_labels
from ._inputs.column_kinds import attribute_kind, kind_from_levels, outcome_kind
from ._inputs.variables import align_by_index, as_array, as_frame, check_labels
from ._kernels.kernel import Kernel, median_distance
from ._kernels.registry import KERNELS, kernel_named
from ._options import (
    STATISTIC_OPTIONS,
    PenaltyKeywords,
    check_statistic_options,
    statistic_default,
    takes_options,
)
from ._records.notions import (
    KINDS,
    NOTION_RECORDS,
    NOTIONS,
    TASKS,
    Notion,
    notion_named,
    toolkit_name,
)
from ._records.params import Interval, check_bool, check_params
from ._routes.choose import fits_kernels_ahead
from .datasets import ENTRY_POINT_GROUP as DATASET_ENTRY_POINT_GROUP
from .datasets import DataFile, DatasetSource, LoadedTable

__all__ = [
    "DATASET_ENTRY_POINT_GROUP",
    "KERNELS",
    "KINDS",
    "METHOD_ENTRY_POINT_GROUP",
    "MULTIPLE_ATTRIBUTES",
    "NOTIONS",
    "NOTION_RECORDS",
    "STATISTIC_OPTIONS",
    "TASKS",
    "TRAINING_SETTINGS",
    "BrokenMethodWarning",
    "Capabilities",
    "DataFile",
    "DatasetSource",
    "DegenerateModelWarning",
    "Interval",
    "Kernel",
    "LoadedTable",
    "MethodLoadError",
    "MethodSpec",
    "Mitigator",
    "Notion",
    "PenaltyKeywords",
    "align_by_index",
    "as_array",
    "as_frame",
    "attribute_kind",
    "available_methods",
    "check_bool",
    "check_labels",
    "check_params",
    "check_statistic_options",
    "fits_kernels_ahead",
    "kernel_named",
    "kind_from_levels",
    "median_distance",
    "notion_named",
    "outcome_kind",
    "positive_labels",
    "statistic_default",
    "takes_options",
    "toolkit_name",
]

#: The entry-point group that adapters register their methods (:class:`MethodSpec`) under.
METHOD_ENTRY_POINT_GROUP = "faircocco_plugins.mitigators"
#: Study-wide training settings a method may accept (see ``MethodSpec.training_settings``).
TRAINING_SETTINGS: tuple[str, ...] = ("epochs", "warmup_epochs")
#: How a method treats several sensitive attributes.
MULTIPLE_ATTRIBUTES: tuple[str, ...] = ("joint", "sum", "single")


@dataclass(frozen=True, kw_only=True)
class Capabilities:
    """What a fairness method supports.

    Parameters
    ----------
    tasks : tuple of str
        Learning tasks, among ``"classification"`` and ``"regression"``.
    notions : tuple of str
        Fairness notions, among :data:`NOTIONS`.
    attributes : tuple of str
        Kinds of sensitive attribute, among ``"binary"``, ``"categorical"`` and
        ``"continuous"``.
    outcomes : tuple of str
        Kinds of true outcome accepted under the conditional notions (``"eo"``, ``"cal"``),
        among the same three kinds.
    multiple_attributes : {"joint", "sum", "single"}
        ``"joint"``: several attributes are measured jointly, so dependence on their
        combination counts; ``"sum"``: one term per attribute, added up; ``"single"``: one
        attribute only.
    needs_gradients : bool
        Whether the method trains a model by gradients with a differentiable fairness term.
    attributes_at_prediction : bool
        Whether the method needs the sensitive attributes to predict, as post-processors do:
        the harness then passes ``sensitive_features=`` to ``predict`` and ``predict_proba``
        too.
    note : str
        How unsupported kinds are adapted, when they are.

    Examples
    --------
    >>> from faircocco_plugins.plugins import Capabilities
    >>> caps = Capabilities(
    ...     tasks=("classification",), notions=("dp", "eo"), attributes=("binary",),
    ...     outcomes=("binary",), multiple_attributes="single", needs_gradients=False,
    ... )
    >>> for reason in caps.problems(
    ...     task="classification", notion="eo", attributes=("binary", "continuous"),
    ...     outcome="binary",
    ... ):
    ...     print(reason)
    continuous sensitive attributes (supported: ['binary'])
    2 sensitive attributes (it supports one only)
    """

    tasks: tuple[str, ...]
    notions: tuple[str, ...]
    attributes: tuple[str, ...]
    outcomes: tuple[str, ...]
    multiple_attributes: str
    needs_gradients: bool
    attributes_at_prediction: bool = False
    note: str = ""

    def __post_init__(self) -> None:
        for name, allowed in (
            ("tasks", TASKS),
            ("notions", NOTIONS),
            ("attributes", KINDS),
            ("outcomes", KINDS),
        ):
            values = getattr(self, name)
            if isinstance(values, str) or not isinstance(values, tuple):
                raise TypeError(f"{name} must be a tuple of str; got {type(values).__name__}.")
            unknown = [v for v in values if v not in allowed]
            if unknown:
                raise ValueError(
                    f"{name}={values!r} has unknown values {unknown}; expected a subset of "
                    f"{list(allowed)}."
                )
        if self.multiple_attributes not in MULTIPLE_ATTRIBUTES:
            raise ValueError(
                f"multiple_attributes={self.multiple_attributes!r} is not valid; expected one "
                f"of {list(MULTIPLE_ATTRIBUTES)}."
            )

    def problems(
        self,
        *,
        task: str | None = None,
        notion: str | None = None,
        attributes: Sequence[str] = (),
        outcome: str | None = None,
    ) -> list[str]:
        """Human-readable reasons why a combination is unsupported; empty when supported.

        Parameters
        ----------
        task : str, optional
            The learning task (not checked when ``None``).
        notion : str, optional
            The fairness notion (not checked when ``None``).
        attributes : sequence of str
            The kind of each sensitive attribute.
        outcome : str, optional
            The kind of the true outcome; checked only under ``"eo"`` and ``"cal"``.

        Returns
        -------
        list of str

        Examples
        --------
        >>> from faircocco_plugins.plugins import Capabilities
        >>> caps = Capabilities(
        ...     tasks=("classification", "regression"), notions=("dp", "eo", "cal"),
        ...     attributes=("binary", "categorical", "continuous"),
        ...     outcomes=("binary", "continuous"), multiple_attributes="joint",
        ...     needs_gradients=True,
        ... )
        >>> caps.problems(task="regression", notion="cal", attributes=("continuous",))
        []
        """
        found = []
        if task is not None and task not in self.tasks:
            found.append(f"task={task!r} (supported: {list(self.tasks)})")
        if notion is not None and notion not in self.notions:
            found.append(f"notion={notion!r} (supported: {list(self.notions)})")
        for kind in dict.fromkeys(attributes):
            if kind not in self.attributes:
                found.append(f"{kind} sensitive attributes (supported: {list(self.attributes)})")
        if len(attributes) > 1 and self.multiple_attributes == "single":
            found.append(f"{len(attributes)} sensitive attributes (it supports one only)")
        needs_outcome = notion in NOTION_RECORDS and NOTION_RECORDS[notion].needs_outcome
        if needs_outcome and outcome is not None and outcome not in self.outcomes:
            found.append(
                f"{outcome} outcomes under notion={notion!r} (supported: {list(self.outcomes)})"
            )
        return found


@runtime_checkable
class Mitigator(Protocol):
    """The estimator contract of a method: fairlearn's ``sensitive_features=`` convention.

    ``predict_proba(X)`` is optional; when present, classification runs also report the AUC.
    A method whose :class:`Capabilities` declare ``attributes_at_prediction`` (a
    post-processor) is also given ``sensitive_features=`` by ``predict`` and ``predict_proba``.

    Examples
    --------
    >>> import numpy as np
    >>> from faircocco_plugins.plugins import Mitigator
    >>> class Majority:
    ...     def fit(self, X, y, *, sensitive_features):
    ...         self.label_ = int(np.mean(y) >= 0.5)
    ...         return self
    ...     def predict(self, X):
    ...         return np.full(len(X), self.label_)
    >>> isinstance(Majority(), Mitigator)
    True
    """

    def fit(self, X: Any, y: Any, *, sensitive_features: Any) -> Any:
        """Train on ``X``, ``y`` with the sensitive attributes; return ``self``."""
        ...

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels (classification) or values (regression)."""
        ...


@dataclass(frozen=True)
class MethodSpec:
    """A method the harness can run: how to build it, what it supports and what to sweep.

    Parameters
    ----------
    name : str
        Short name used on the command line and in the results store, such as ``"facl"``.
    description : str
        One line for tables and listings.
    capabilities : Capabilities
        What it supports; incompatible cells are recorded as not applicable.
    factory : callable
        ``factory(task=..., notion=..., random_state=..., **params)`` returns an unfitted
        :class:`Mitigator`.
    param_grid : mapping of str to sequence
        The full sweep: every combination is one hyper-parameter setting.
    quick_grid : mapping of str to sequence
        A small sweep for quick studies.
    sweep_param : str or None
        The parameter whose values trace a trade-off curve (``"lam"``, ``"bound"``), or
        ``None`` for methods without one.
    training_settings : tuple of str
        Study-wide settings the factory accepts as keyword arguments, among
        :data:`TRAINING_SETTINGS` (``"epochs"``, ``"warmup_epochs"``); a study passes only
        these, and only when it sets them.

    Examples
    --------
    >>> from faircocco_plugins.plugins import Capabilities, MethodSpec
    >>> from sklearn.linear_model import LogisticRegression
    >>> class Plain:
    ...     def __init__(self, C): self.model = LogisticRegression(C=C)
    ...     def fit(self, X, y, *, sensitive_features):
    ...         self.model.fit(X, y)
    ...         return self
    ...     def predict(self, X): return self.model.predict(X)
    >>> spec = MethodSpec(
    ...     name="logistic", description="Logistic regression, fairness-unaware",
    ...     capabilities=Capabilities(
    ...         tasks=("classification",), notions=("dp", "eo", "cal"),
    ...         attributes=("binary", "categorical", "continuous"),
    ...         outcomes=("binary",), multiple_attributes="joint", needs_gradients=False),
    ...     factory=lambda *, task, notion, random_state, C=1.0: Plain(C),
    ...     param_grid={"C": [0.1, 1.0, 10.0]}, quick_grid={"C": [1.0]}, sweep_param=None,
    ... )
    >>> spec.settings("full")
    [{'C': 0.1}, {'C': 1.0}, {'C': 10.0}]
    """

    name: str
    description: str
    capabilities: Capabilities
    factory: Callable[..., Mitigator] = field(repr=False)
    param_grid: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    quick_grid: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    sweep_param: str | None = None
    training_settings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(
                f"name={self.name!r} is not valid; expected an identifier such as 'facl'."
            )
        if not isinstance(self.capabilities, Capabilities):
            raise TypeError(
                f"capabilities must be a Capabilities; got {type(self.capabilities).__name__}."
            )
        if not callable(self.factory):
            raise TypeError(f"factory must be callable; got {type(self.factory).__name__}.")
        for grid_name in ("param_grid", "quick_grid"):
            grid = getattr(self, grid_name)
            if not isinstance(grid, Mapping):
                raise TypeError(f"{grid_name} must be a mapping; got {type(grid).__name__}.")
            for key, values in grid.items():
                if isinstance(values, str) or not isinstance(values, Sequence) or not values:
                    raise ValueError(
                        f"{grid_name}[{key!r}] must be a non-empty sequence of values; got "
                        f"{values!r}."
                    )
        unknown = [s for s in self.training_settings if s not in TRAINING_SETTINGS]
        if isinstance(self.training_settings, str) or unknown:
            raise ValueError(
                f"training_settings={self.training_settings!r} is not valid; expected a tuple "
                f"of names among {list(TRAINING_SETTINGS)}."
            )
        if self.sweep_param is not None and self.sweep_param not in self.param_grid:
            raise ValueError(
                f"sweep_param={self.sweep_param!r} is not a key of param_grid "
                f"({sorted(self.param_grid)})."
            )

    def settings(self, grid: Literal["full", "quick"] = "full") -> list[dict[str, Any]]:
        """Every hyper-parameter setting of a sweep, as keyword dictionaries.

        Parameters
        ----------
        grid : {"full", "quick"}
            ``param_grid`` or ``quick_grid``.

        Returns
        -------
        list of dict
            The Cartesian product, keys in sorted order; ``[{}]`` for an empty grid.

        Examples
        --------
        See :class:`MethodSpec`.
        """
        if grid not in ("full", "quick"):
            raise ValueError(f"grid={grid!r} is not valid; expected 'full' or 'quick'.")
        chosen = self.param_grid if grid == "full" else self.quick_grid
        keys = sorted(chosen)
        return [
            dict(zip(keys, values, strict=True))
            for values in itertools.product(*(chosen[k] for k in keys))
        ]


class MethodLoadError(ImportError):
    """An entry point of ``faircocco_plugins.mitigators`` that does not load to a MethodSpec."""


class DegenerateModelWarning(UserWarning):
    """Warns that a trained model predicts one class, or one value, for all its training rows.

    A penalty weight too large for the data, or a learning rate too small, can leave a model
    there: it then scores as perfectly fair and is useless. A method says so with this warning,
    naming its penalty and weight and what to change. The harness silences it while it fits a
    method, because it marks such models itself, from their predictions on the evaluated parts
    (:func:`faircocco_plugins.bench.degenerate_runs`).

    Examples
    --------
    To stop a sweep at such a model, turn the warning into an error:

    >>> import warnings
    >>> from faircocco_plugins.plugins import DegenerateModelWarning
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", DegenerateModelWarning)
    """


class BrokenMethodWarning(UserWarning):
    """Warns about an entry point that does not load, when ``on_error="warn"``."""


def available_methods(*, on_error: Literal["raise", "warn"] = "raise") -> dict[str, MethodSpec]:
    """The methods registered under the ``faircocco_plugins.mitigators`` entry-point group.

    Parameters
    ----------
    on_error : {"raise", "warn"}
        What to do about entry points that fail to load or load to something other than a
        :class:`MethodSpec`: raise one :class:`MethodLoadError` listing all of them, or emit
        one :class:`BrokenMethodWarning` each and return the others.

    Returns
    -------
    dict of str to MethodSpec
        Keyed by entry-point name, sorted by name.

    Raises
    ------
    MethodLoadError
        With ``on_error="raise"``, when an entry point is broken or two distributions register
        the same name.

    Examples
    --------
    >>> from faircocco_plugins.plugins import available_methods
    >>> methods = available_methods()  # doctest: +SKIP
    >>> sorted(methods)[:3]  # doctest: +SKIP
    ['covariance', 'facl', 'faircocco']
    """
    if on_error not in ("raise", "warn"):
        raise ValueError(f"on_error={on_error!r} is not valid; expected 'raise' or 'warn'.")
    found: dict[str, MethodSpec] = {}
    broken: list[str] = []
    for entry_point in metadata.entry_points(group=METHOD_ENTRY_POINT_GROUP):
        where = f"{entry_point.name} = {entry_point.value}"
        if entry_point.dist is not None:
            where += f" (distribution {entry_point.dist.name} {entry_point.dist.version})"
        try:
            spec = entry_point.load()
        except Exception as error:
            broken.append(f"{where}: {type(error).__name__}: {_one_line(error)}")
            continue
        if not isinstance(spec, MethodSpec):
            broken.append(f"{where}: loads to a {type(spec).__name__}, not a MethodSpec")
            continue
        if spec.name != entry_point.name:
            broken.append(f"{where}: the MethodSpec is named {spec.name!r}")
            continue
        if spec.name in found:
            broken.append(f"{where}: the name {spec.name!r} is registered twice")
            continue
        found[spec.name] = spec
    if broken:
        advice = (
            "reinstall or uninstall the distribution that registers it, or fix the entry point "
            f"in its pyproject.toml (group {METHOD_ENTRY_POINT_GROUP!r})"
        )
        if on_error == "raise":
            listing = "\n  ".join(broken)
            raise MethodLoadError(f"broken method entry points ({advice}):\n  {listing}")
        for line in broken:
            warnings.warn(
                f"method entry point skipped: {line}; {advice}", BrokenMethodWarning, stacklevel=2
            )
    return dict(sorted(found.items()))


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
