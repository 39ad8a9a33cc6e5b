"""A study's cells: what to run, their stable ids, and which ones are not applicable."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from .._inputs.column_kinds import attribute_kind, outcome_kind
from .._records.notions import NOTIONS, TASKS, notion_named
from .._records.params import Interval, check_params
from ..plugins import MethodSpec
from ._binned_methods import binned_method, needs_binned_groups
from ._binning import GROUP_SCHEMES
from ._metrics import STUDIED_NOTIONS
from ._store import RunIdentity, RunRecord

#: The paper averages over 10 runs.
DEFAULT_SEEDS: tuple[int, ...] = tuple(range(10))
#: Settings of a study that do not change its results (where the raw files are read from): a
#: results store holds one study, the same in every other setting.
_NOT_IDENTITY: tuple[str, ...] = ("data_dir",)

#: A grid override's key: ``parameter``, ``method.parameter`` or ``method.parameter@dataset``.
_OVERRIDE_KEY = re.compile(
    r"(?:(?P<method>[^.@]+)\.)?(?P<parameter>[^.@]+)(?(method)(?:@(?P<dataset>[^.@]+))?)"
)

#: The study's optional size settings and their smallest values.
_SIZE_LIMITS = {
    "epochs": Interval("integer", 1, optional=True),
    "warmup_epochs": Interval("integer", 0, optional=True),
    "max_train_rows": Interval("integer", 10, optional=True),
    "max_eval_rows": Interval("integer", 10, optional=True),
}


@dataclass(frozen=True)
class StudyConfig:
    """What a study runs: datasets × methods × notions × seeds × hyper-parameter settings.

    Parameters
    ----------
    name : str
        The study's name in the results store; re-running a study of the same name skips the
        runs it already has.
    datasets : tuple of str
        Dataset names (see :func:`faircocco_plugins.datasets.list_datasets`).
    methods : tuple of str
        Method names (see :func:`available_methods`); empty for every available method.
    notions : tuple of str
        Fairness notions each method is trained for.
    seeds : tuple of int
        Seeds of the splits and of the methods; the paper uses 10.
    grid : {"full", "quick"}
        Each method's ``param_grid`` or ``quick_grid``.
    epochs : int, optional
        Training epochs of the methods that take them (default: each method's own).
    warmup_epochs : int, optional
        First epochs trained without the fairness term, for the methods that take them.
    max_train_rows : int, optional
        Fit on a random subsample of at most this many training rows (the same rows for every
        method of a seed).
    max_eval_rows : int, optional
        Evaluate on random subsamples of at most this many validation and test rows (the same
        rows for every method of a seed); the tables report the N used. Default: whole parts.
    data_dir : str, optional
        Directory searched first for the datasets' raw files.
    grid_overrides : mapping of str to tuple, optional
        Values that replace a method's own for a hyper-parameter, in every method whose grid
        has it: ``{"lam": (0.5, 1.0, 2.0)}`` sweeps those penalty weights for every penalty. A
        key ``"<method>.<parameter>"`` overrides that method's alone and takes precedence:
        ``{"lam": (0.5, 1.0), "faircocco.lam": (0.5, 1.0, 50.0)}``; a key
        ``"<method>.<parameter>@<dataset>"`` overrides it on that dataset alone and takes
        precedence over both.
    fixed_params : mapping of str to mapping, optional
        Per dataset, hyper-parameters fixed to one value in every method whose grid has them,
        such as the learning rate and batch size chosen for the network on that dataset.
    regression_notions : tuple of str, optional
        The notions run on regression datasets (default: all of ``notions``); the paper
        reports calibration on classification tasks only.
    binned_groups : tuple of {"median", "quartiles"}, optional
        Give every method that cannot take a continuous attribute (fairlearn's and AIF360's
        group methods) the groups a careful user would build, swept over these constructions
        as its parameter ``groups``: continuous attributes cut at the training rows' median or
        quartiles, crossed with the others into one group column (see
        :func:`~._binned_methods.binned_method`). Default: none, the methods as they are.
    audit : bool, default False
        Also measure every run as an auditor would (:mod:`._audit`): DI and DEO on the binned
        groups, on deciles, on intersections and the worst of them, and the dependence between
        predictions and attributes by HSIC and distance correlation, with p-values. Runs of an
        audited study record ``audit`` in their settings.

    Examples
    --------
    >>> from faircocco_plugins.bench import StudyConfig
    >>> config = StudyConfig(name="demo", datasets=("synthetic",), methods=("nn",), seeds=(0, 1))
    >>> config.to_dict()["seeds"]
    [0, 1]
    """

    name: str = "default"
    datasets: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    notions: tuple[str, ...] = STUDIED_NOTIONS
    seeds: tuple[int, ...] = DEFAULT_SEEDS
    grid: Literal["full", "quick"] = "full"
    epochs: int | None = None
    warmup_epochs: int | None = None
    max_train_rows: int | None = None
    max_eval_rows: int | None = None
    data_dir: str | None = None
    grid_overrides: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    fixed_params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    regression_notions: tuple[str, ...] | None = None
    binned_groups: tuple[str, ...] = ()
    audit: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"name={self.name!r} is not valid; expected a non-empty string.")
        for name in ("datasets", "methods", "notions", "seeds", "binned_groups"):
            value = getattr(self, name)
            if isinstance(value, str) or not isinstance(value, tuple):
                raise TypeError(f"{name} must be a tuple; got {type(value).__name__}.")
            if len(set(value)) != len(value):
                raise ValueError(f"{name}={value!r} has duplicates.")
        if not self.datasets:
            raise ValueError("datasets is empty; name at least one dataset.")
        unknown = [n for n in self.notions if n not in NOTIONS]
        if unknown or not self.notions:
            raise ValueError(
                f"notions={self.notions!r} is not valid; expected a non-empty subset of "
                f"{list(NOTIONS)}."
            )
        if not self.seeds or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in self.seeds
        ):
            raise ValueError(f"seeds={self.seeds!r} is not valid; expected non-negative integers.")
        unknown = [s for s in self.binned_groups if s not in GROUP_SCHEMES]
        if unknown:
            raise ValueError(
                f"binned_groups={self.binned_groups!r} is not valid; expected a subset of "
                f"{list(GROUP_SCHEMES)}."
            )
        if not isinstance(self.audit, bool):
            raise TypeError(f"audit must be a bool; got {type(self.audit).__name__}.")
        if self.grid not in ("full", "quick"):
            raise ValueError(f"grid={self.grid!r} is not valid; expected 'full' or 'quick'.")
        if self.regression_notions is not None and not set(self.regression_notions) <= set(
            self.notions
        ):
            raise ValueError(
                f"regression_notions={self.regression_notions!r} is not valid; expected a "
                f"subset of notions={self.notions!r}."
            )
        for name in ("grid_overrides", "fixed_params"):
            if not isinstance(getattr(self, name), Mapping):
                raise TypeError(
                    f"{name} must be a mapping; got {type(getattr(self, name)).__name__}."
                )
        for key, values in self.grid_overrides.items():
            if isinstance(values, str) or not isinstance(values, Sequence) or not values:
                raise ValueError(
                    f"grid_overrides[{key!r}] must be a non-empty sequence of values; got "
                    f"{values!r}."
                )
            if not isinstance(key, str) or not _OVERRIDE_KEY.fullmatch(key):
                raise ValueError(
                    f"grid_overrides has the key {key!r}; expected a parameter name such as "
                    "'lam', a method and a parameter such as 'faircocco.lam', or those on one "
                    "dataset such as 'faircocco.lam@adult'."
                )
        check_params({name: getattr(self, name) for name in _SIZE_LIMITS}, _SIZE_LIMITS)
        if (
            self.epochs is not None
            and self.warmup_epochs is not None
            and self.warmup_epochs > self.epochs
        ):
            raise ValueError(
                f"warmup_epochs={self.warmup_epochs} is larger than epochs={self.epochs}."
            )

    def to_dict(self) -> dict[str, Any]:
        """The configuration as JSON-ready values (tuples become lists).

        Returns
        -------
        dict

        Examples
        --------
        See :class:`StudyConfig`.
        """
        return {k: _json_ready(v) for k, v in asdict(self).items()}

    def notions_of(self, task: str) -> tuple[str, ...]:
        """The notions run on a dataset of this task: those of the study that apply to it
        (:attr:`Notion.tasks <faircocco_plugins.plugins.Notion.tasks>`).

        Parameters
        ----------
        task : {"classification", "regression"}

        Returns
        -------
        tuple of str

        Examples
        --------
        >>> from faircocco_plugins.bench import StudyConfig
        >>> config = StudyConfig(datasets=("adult",), regression_notions=("dp", "eo"))
        >>> config.notions_of("classification"), config.notions_of("regression")
        (('dp', 'eo', 'cal'), ('dp', 'eo'))
        """
        named = self.notions
        if task == "regression" and self.regression_notions is not None:
            named = self.regression_notions
        return tuple(n for n in named if task in notion_named(n).tasks)

    def settings_of(self, spec: MethodSpec, dataset: str) -> list[dict[str, Any]]:
        """A method's hyper-parameter settings on a dataset: its grid, with the study's
        overrides and the dataset's fixed parameters applied to the keys it has.

        Parameters
        ----------
        spec : MethodSpec
        dataset : str

        Returns
        -------
        list of dict

        Examples
        --------
        >>> from faircocco_plugins.bench import StudyConfig
        >>> from faircocco_plugins.plugins import Capabilities, MethodSpec
        >>> spec = MethodSpec(
        ...     name="net", description="", factory=print,
        ...     capabilities=Capabilities(
        ...         tasks=("classification",), notions=("dp",), attributes=("binary",),
        ...         outcomes=("binary",), multiple_attributes="joint", needs_gradients=True),
        ...     param_grid={"lam": (1.0, 2.0), "learning_rate": (0.1, 0.01)})
        >>> config = StudyConfig(datasets=("adult",), grid_overrides={"lam": (5.0,)},
        ...                      fixed_params={"adult": {"learning_rate": 0.01}})
        >>> config.settings_of(spec, "adult")
        [{'lam': 5.0, 'learning_rate': 0.01}]
        """
        grid = dict(spec.param_grid if self.grid == "full" else spec.quick_grid)
        for key, values in overrides_of(self.grid_overrides, spec.name, dataset).items():
            if key in grid:
                grid[key] = tuple(values)
        for key, value in self.fixed_params.get(dataset, {}).items():
            if key in grid:
                grid[key] = (value,)
        return replace(spec, param_grid=grid, quick_grid=grid).settings(self.grid)


def overrides_of(
    grid_overrides: Mapping[str, Sequence[Any]], method: str, dataset: str
) -> dict[str, Sequence[Any]]:
    """The grid overrides that reach one method on one dataset: the shared ones (``"lam"``),
    replaced by the method's own (``"faircocco.lam"``), replaced by the method's own on that
    dataset (``"faircocco.lam@adult"``).

    Parameters
    ----------
    grid_overrides : mapping of str to sequence
        As :attr:`StudyConfig.grid_overrides`.
    method, dataset : str

    Returns
    -------
    dict of str to sequence
        By parameter name.

    Examples
    --------
    >>> from faircocco_plugins.bench._study import overrides_of
    >>> overrides = {"lam": (1.0, 2.0), "faircocco.lam": (1.0, 200.0),
    ...              "faircocco.lam@adult": (1.0, 500.0)}
    >>> overrides_of(overrides, "faircocco", "german"), overrides_of(overrides, "facl", "adult")
    ({'lam': (1.0, 200.0)}, {'lam': (1.0, 2.0)})
    >>> overrides_of(overrides, "faircocco", "adult")
    {'lam': (1.0, 500.0)}
    """
    by_scope: dict[tuple[str | None, str | None], dict[str, Sequence[Any]]] = {}
    for key, values in grid_overrides.items():
        match = _OVERRIDE_KEY.fullmatch(key)
        assert match is not None  # keys are checked by StudyConfig
        scope = (match["method"], match["dataset"])
        by_scope.setdefault(scope, {})[match["parameter"]] = values
    return {
        **by_scope.get((None, None), {}),
        **by_scope.get((method, None), {}),
        **by_scope.get((method, dataset), {}),
    }


def _json_ready(value: Any) -> Any:
    """Tuples as lists and mappings as dicts, recursively, for the store's JSON."""
    if isinstance(value, tuple | list):
        return [_json_ready(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): _json_ready(item) for key, item in value.items()}
    return value


def study_differences(recorded: Mapping[str, Any], config: StudyConfig) -> list[str]:
    """How ``config`` differs from a recorded study configuration, one phrase per setting.

    Every setting counts but the directory searched for raw files (the files are checked
    against their sha256); a setting the record lacks (recorded by an older version) has its
    default value. The backend and the number of workers are not settings of a study.

    Parameters
    ----------
    recorded : mapping
        A configuration as :meth:`ResultsStore.studies` returns it.
    config : StudyConfig

    Returns
    -------
    list of str
        Empty when the two are the same study.

    Examples
    --------
    >>> from faircocco_plugins.bench import StudyConfig
    >>> from faircocco_plugins.bench._study import study_differences
    >>> before = StudyConfig(name="quick", datasets=("synthetic",), seeds=(0, 1))
    >>> now = StudyConfig(name="quick", datasets=("adult",), seeds=(0, 1))
    >>> study_differences(before.to_dict(), now)
    ["datasets: ['synthetic'] in the store, ['adult'] here"]
    """
    defaults = StudyConfig(datasets=config.datasets).to_dict()
    differences = []
    for name, value in config.to_dict().items():
        before = recorded.get(name, defaults[name])
        if name not in _NOT_IDENTITY and before != value:
            differences.append(f"{name}: {before!r} in the store, {value!r} here")
    return differences


def cell_differences(recorded: Mapping[str, Any], run: RunIdentity) -> list[str]:
    """How a run lies outside a recorded study configuration, one phrase per setting.

    The run's dataset, method, notion and seed must be among the configuration's; its row caps
    and any epochs it has those of the configuration; and each parameter the configuration
    fixes for the dataset or overrides one of its values. A setting the record lacks has its
    default value, as in :func:`study_differences`.

    Parameters
    ----------
    recorded : mapping
        A configuration as :meth:`ResultsStore.studies` returns it.
    run : RunIdentity
        A :class:`Cell` or a :class:`~._store.RunRecord`.

    Returns
    -------
    list of str
        Empty when the run is a cell of that configuration.

    Examples
    --------
    >>> from faircocco_plugins.bench import RunRecord, StudyConfig
    >>> from faircocco_plugins.bench._study import cell_differences
    >>> recorded = StudyConfig(name="quick", datasets=("adult",), seeds=(0, 1)).to_dict()
    >>> run = RunRecord(run_id="r", study="quick", dataset="adult", method="nn", notion="eo",
    ...                 seed=4, params={}, settings={}, status="ok")
    >>> cell_differences(recorded, run)
    ['seeds: [0, 1] in the store, 4 here']
    """
    config = {**StudyConfig(datasets=(run.dataset,)).to_dict(), **recorded}
    differences = []
    identity: dict[str, Any] = {
        "datasets": run.dataset,
        "notions": run.notion,
        "seeds": run.seed,
        "methods": run.method,
    }
    for name, value in identity.items():
        if value not in config[name] and (name != "methods" or config[name]):
            differences.append(f"{name}: {config[name]!r} in the store, {value!r} here")
    for name in _SIZE_LIMITS:
        setting = run.settings.get(name)
        # a method without epochs has none in its settings, whatever the study's
        if (setting is not None or name.startswith("max_")) and setting != config[name]:
            differences.append(f"{name}: {config[name]!r} in the store, {setting!r} here")
    fixed = config["fixed_params"].get(run.dataset, {})
    overrides = overrides_of(config["grid_overrides"], run.method, run.dataset)
    for key, value in run.params.items():
        if key in fixed and value != fixed[key]:
            differences.append(
                f"{key} on {run.dataset}: {fixed[key]!r} in the store, {value!r} here"
            )
        elif key not in fixed and key in overrides and value not in overrides[key]:
            differences.append(f"{key}: {overrides[key]!r} in the store, {value!r} here")
    return differences


@dataclass(frozen=True)
class DatasetProfile:
    """What decides whether a method applies to a dataset: its task and kinds.

    Parameters
    ----------
    name : str
    task : {"classification", "regression"}
    attributes : tuple of (str, str)
        Each sensitive attribute's name and kind.
    outcome : str
        The kind of the true outcome.

    Examples
    --------
    >>> from faircocco_plugins.bench._study import DatasetProfile
    >>> DatasetProfile("students", "regression", (("age", "continuous"),), "continuous").kinds
    ('continuous',)
    """

    name: str
    task: str
    attributes: tuple[tuple[str, str], ...]
    outcome: str

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"task={self.task!r} is not valid; expected one of {list(TASKS)}.")

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kind of each sensitive attribute."""
        return tuple(kind for _, kind in self.attributes)

    @classmethod
    def of(cls, dataset: Any) -> DatasetProfile:
        """The profile of a loaded :class:`~faircocco_plugins.datasets.Dataset`.

        Parameters
        ----------
        dataset : Dataset

        Returns
        -------
        DatasetProfile

        Examples
        --------
        >>> from faircocco_plugins.bench._study import DatasetProfile
        >>> from faircocco_plugins.datasets import make_fairness_dataset
        >>> DatasetProfile.of(make_fairness_dataset(100, random_state=0)).kinds
        ('binary', 'continuous', 'categorical')
        """
        attributes = tuple(
            (str(name), attribute_kind(dataset.sensitive[name])) for name in dataset.sensitive
        )
        return cls(dataset.name, dataset.task, attributes, outcome_kind(dataset.y, dataset.task))


@dataclass(frozen=True)
class Cell(RunIdentity):
    """One run of a study: a method with one setting on one dataset, notion and seed (the
    fields of :class:`~._store.RunIdentity`)."""

    @property
    def label(self) -> str:
        """A short description for progress displays, such as ``german nn eo seed=0``."""
        setting = " ".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{self.dataset} {self.method} {self.notion} seed={self.seed} {setting}".strip()


def run_id(
    *,
    study: str,
    dataset: str,
    method: str,
    notion: str,
    seed: int,
    params: Mapping[str, Any],
    settings: Mapping[str, Any],
) -> str:
    """The stable id of a run: a hash of everything that determines its result.

    Parameters
    ----------
    study, dataset, method, notion : str
    seed : int
    params, settings : mapping
        JSON-serialisable values; the key order does not matter.

    Returns
    -------
    str
        20 hexadecimal digits of a SHA-256.

    Examples
    --------
    >>> from faircocco_plugins.bench._study import run_id
    >>> a = run_id(study="s", dataset="german", method="nn", notion="eo", seed=0,
    ...            params={"lr": 0.01, "batch_size": 64}, settings={"epochs": 5})
    >>> b = run_id(study="s", dataset="german", method="nn", notion="eo", seed=0,
    ...            params={"batch_size": 64, "lr": 0.01}, settings={"epochs": 5})
    >>> a == b, len(a)
    (True, 20)
    """
    identity = {
        "study": study,
        "dataset": dataset,
        "method": method,
        "notion": notion,
        "seed": int(seed),
        "params": dict(params),
        "settings": dict(settings),
    }
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def plan_study(
    config: StudyConfig,
    methods: Mapping[str, MethodSpec],
    profiles: Mapping[str, DatasetProfile],
) -> tuple[list[Cell], list[RunRecord]]:
    """Every cell of a study, split into cells to run and not-applicable records.

    Cells are ordered by seed, dataset, method, notion and setting: consecutive cells share
    their dataset and split (workers cache loaded datasets), and a study stopped early covers
    every dataset at its first seeds rather than the first datasets at every seed.

    Parameters
    ----------
    config : StudyConfig
    methods : mapping of str to MethodSpec
        The methods to run, by name.
    profiles : mapping of str to DatasetProfile
        The profile of every dataset of the study.

    Returns
    -------
    cells : list of Cell
        The applicable cells.
    not_applicable : list of RunRecord
        One record with status ``"not_applicable"`` and the reason per incompatible cell.

    Examples
    --------
    >>> from faircocco_plugins.bench import StudyConfig
    >>> from faircocco_plugins.bench._study import DatasetProfile, plan_study
    >>> from faircocco_plugins.plugins import Capabilities, MethodSpec
    >>> binary_only = MethodSpec(
    ...     name="binary_only", description="", factory=print,
    ...     capabilities=Capabilities(
    ...         tasks=("classification", "regression"), notions=("dp", "eo"),
    ...         attributes=("binary",), outcomes=("binary",), multiple_attributes="sum",
    ...         needs_gradients=False))
    >>> profile = DatasetProfile("students", "regression",
    ...                          (("age", "continuous"), ("sex", "binary")), "continuous")
    >>> config = StudyConfig(datasets=("students",), notions=("dp", "eo"), seeds=(0,))
    >>> cells, skipped = plan_study(config, {"binary_only": binary_only}, {"students": profile})
    >>> len(cells), len(skipped)
    (0, 2)
    >>> print(skipped[1].reason)  # doctest: +NORMALIZE_WHITESPACE
    binary_only does not support continuous sensitive attributes (supported: ['binary']);
    continuous outcomes under notion='eo' (supported: ['binary']) (students: regression,
    continuous outcome, attributes age:continuous, sex:binary)
    """
    missing = [d for d in config.datasets if d not in profiles]
    if missing:
        raise ValueError(f"profiles has no entry for the datasets {missing}.")
    cells: list[Cell] = []
    skipped: list[RunRecord] = []
    for seed in config.seeds:
        for dataset in config.datasets:
            profile = profiles[dataset]
            for name, spec in methods.items():
                settings = _settings(config, spec)
                for notion in config.notions_of(profile.task):
                    problems = spec.capabilities.problems(
                        task=profile.task,
                        notion=notion,
                        attributes=profile.kinds,
                        outcome=profile.outcome,
                    )
                    for params in config.settings_of(spec, dataset):
                        identity: dict[str, Any] = {
                            "study": config.name,
                            "dataset": dataset,
                            "method": name,
                            "notion": notion,
                            "seed": seed,
                            "params": params,
                            "settings": settings,
                        }
                        key = run_id(**identity)
                        if problems:
                            reason = _reason(name, profile, problems)
                            skipped.append(
                                RunRecord(
                                    run_id=key, status="not_applicable", reason=reason, **identity
                                )
                            )
                        else:
                            cells.append(Cell(run_id=key, **identity))
    return cells, skipped


def _settings(config: StudyConfig, spec: MethodSpec) -> dict[str, Any]:
    """The study-wide settings that reach this method (left out when unset)."""
    chosen = {
        name: getattr(config, name)
        for name in spec.training_settings
        if getattr(config, name) is not None
    }
    for cap in ("max_train_rows", "max_eval_rows"):
        if getattr(config, cap) is not None:
            chosen[cap] = getattr(config, cap)
    if config.audit:  # only then: the runs of other studies keep their ids
        chosen["audit"] = True
    return chosen


def _reason(method: str, profile: DatasetProfile, problems: Iterable[str]) -> str:
    kinds = ", ".join(f"{a}:{k}" for a, k in profile.attributes)
    return (
        f"{method} does not support {'; '.join(problems)} "
        f"({profile.name}: {profile.task}, {profile.outcome} outcome, attributes {kinds})"
    )


def study_methods(
    config: StudyConfig, available: Mapping[str, MethodSpec]
) -> dict[str, MethodSpec]:
    """The methods a study runs: those it names (:func:`select_methods`), each that cannot take
    a continuous attribute replaced by its variant on binned groups where the study asks for
    them (:attr:`StudyConfig.binned_groups`).

    Parameters
    ----------
    config : StudyConfig
    available : mapping of str to MethodSpec

    Returns
    -------
    dict of str to MethodSpec

    Examples
    --------
    >>> from faircocco_plugins.bench import StudyConfig
    >>> from faircocco_plugins.bench._study import study_methods
    >>> from faircocco_plugins.plugins import Capabilities, MethodSpec
    >>> caps = Capabilities(tasks=("classification",), notions=("dp",), attributes=("binary",),
    ...                     outcomes=("binary",), multiple_attributes="single",
    ...                     needs_gradients=False)
    >>> config = StudyConfig(datasets=("adult",), binned_groups=("median", "quartiles"))
    >>> methods = study_methods(config, {"m": MethodSpec("m", "", caps, factory=print)})
    >>> methods["m"].param_grid, methods["m"].capabilities.attributes
    ({'groups': ('median', 'quartiles')}, ('binary', 'categorical', 'continuous'))
    """
    chosen = select_methods(available, config.methods)
    if not config.binned_groups:
        return chosen
    return {
        name: binned_method(spec, config.binned_groups) if needs_binned_groups(spec) else spec
        for name, spec in chosen.items()
    }


def select_methods(
    available: Mapping[str, MethodSpec], names: Sequence[str]
) -> dict[str, MethodSpec]:
    """The named methods (every available one when ``names`` is empty), in the given order.

    Parameters
    ----------
    available : mapping of str to MethodSpec
    names : sequence of str

    Returns
    -------
    dict of str to MethodSpec

    Raises
    ------
    ValueError
        Naming the unknown methods and the available ones.

    Examples
    --------
    >>> from faircocco_plugins.bench._study import select_methods
    >>> select_methods({}, [])
    {}
    """
    if not names:
        return dict(available)
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(
            f"unknown methods {unknown}; available: {sorted(available)} (methods come from "
            "the 'faircocco_plugins.mitigators' entry points of installed adapters)."
        )
    return {n: available[n] for n in names}
