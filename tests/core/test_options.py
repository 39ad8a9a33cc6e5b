"""The statistic's options are defined once: every entry point's defaults are the table's."""

import inspect

import pytest

from faircocco_plugins import (
    BatchStatistic,
    faircocco_report,
    faircocco_score,
    faircocco_statistic,
    independence_test,
)
from faircocco_plugins._options import (
    ENTRY_POINTS,
    STATISTIC_OPTIONS,
    Options,
    options_table,
    statistic_default,
)
from faircocco_plugins.plugins import check_statistic_options

CORE_ENTRY_POINTS = [
    ("score", faircocco_score),
    ("score", faircocco_statistic),
    ("score", faircocco_report),
    ("score", check_statistic_options),
    ("test", independence_test),
    ("batch", BatchStatistic),
]


def option_defaults(function):
    """The defaults of the statistic's options among ``function``'s parameters."""
    parameters = inspect.signature(function).parameters
    return {name: p.default for name, p in parameters.items() if name in STATISTIC_OPTIONS}


@pytest.mark.parametrize(
    ("entry_point", "function"), CORE_ENTRY_POINTS, ids=lambda v: getattr(v, "__name__", v)
)
def test_entry_point_defaults_are_the_table_s(entry_point, function):
    expected = {
        name: option.defaults[entry_point]
        for name, option in STATISTIC_OPTIONS.items()
        if entry_point in option.defaults
    }
    assert option_defaults(function) == expected


def test_every_entry_point_of_the_table_is_named_and_used():
    used = {entry for option in STATISTIC_OPTIONS.values() for entry in option.defaults}
    assert used == set(ENTRY_POINTS)
    names = {name for names in ENTRY_POINTS.values() for name in names}
    core = {f.__name__ for _, f in CORE_ENTRY_POINTS}
    assert core <= names


def test_options_has_one_field_per_option_in_order():
    assert list(Options.__dataclass_fields__) == list(STATISTIC_OPTIONS)


def test_an_option_not_given_takes_the_score_default():
    assert Options.check() == Options.check(
        **{name: statistic_default(name) for name in STATISTIC_OPTIONS}
    )
    assert Options.check(eps=1).eps == 1.0 and isinstance(Options.check(eps=1).eps, float)


def test_unknown_option_is_named():
    with pytest.raises(TypeError, match="widths"):
        Options.check(widths=(1.0,))


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("notion", "parity"),
        ("method", "fast"),
        ("rank", 0),
        ("eps", 0.0),
        ("conditioning_eps", "small"),
        ("attribute_kernel", "sum"),
        ("bandwidth", "mean"),
        ("random_state", -1),
    ],
)
def test_every_option_is_checked_by_every_entry_point(name, value):
    for _, function in CORE_ENTRY_POINTS:
        if name not in option_defaults(function):
            continue
        with pytest.raises((TypeError, ValueError), match=name):
            if function in (check_statistic_options, BatchStatistic):
                function(**{name: value})
            else:
                function([0.0, 1.0, 2.0], [0.0, 1.0, 1.0], **{name: value})


def test_the_table_lists_every_option_and_its_reason():
    table = options_table()
    for name, option in STATISTIC_OPTIONS.items():
        assert f"``{name}``" in table
        assert option.why in table
