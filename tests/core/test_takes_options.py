"""``takes_options``: the entry points' option parameters, defaults and docs come from the table."""

import inspect
import typing

import pytest

from faircocco_plugins import BatchStatistic, faircocco_score, independence_test
from faircocco_plugins._options import (
    OPTION_DOCS,
    STATISTIC_OPTIONS,
    BatchKeywords,
    Options,
    StatisticKeywords,
    takes_options,
)


def test_the_keywords_type_checkers_see_are_the_options_with_their_types():
    hints = typing.get_type_hints(StatisticKeywords)
    assert hints == typing.get_type_hints(Options)
    assert set(typing.get_type_hints(BatchKeywords)) == set(hints) - {"notion", "method"}


def test_every_option_has_a_docstring_entry_in_the_table_s_order():
    assert list(OPTION_DOCS) == list(STATISTIC_OPTIONS)


def test_the_score_documents_every_option_from_the_table():
    for entry in OPTION_DOCS.values():
        assert "\n".join(f"    {line}" for line in entry.splitlines()) in faircocco_score.__doc__


@pytest.mark.parametrize("function", [faircocco_score, independence_test])
def test_an_unknown_keyword_is_python_s_error(function):
    with pytest.raises(TypeError, match=rf"^{function.__name__}\(\) got an unexpected keyword"):
        function([0.0, 1.0], [0.0, 1.0], epsilon=1.0)


def test_an_unknown_keyword_names_the_method():
    with pytest.raises(TypeError, match=r"^BatchStatistic.__init__\(\) got an unexpected"):
        BatchStatistic(method="exact")


def test_a_call_receives_every_option_at_its_entry_point_s_default():
    @takes_options("test", after="widths")
    def entry(y, *, widths=(1.0,), **options):
        return options

    assert list(inspect.signature(entry).parameters) == ["y", "widths", *STATISTIC_OPTIONS]
    received = entry(0, eps=2.0)
    assert received.pop("eps") == 2.0
    assert received == {
        name: option.defaults["test"] for name, option in STATISTIC_OPTIONS.items() if name != "eps"
    }


#: The penalty's keyword-only options but ``eps``, in the table's order.
_OTHER_PENALTY_OPTIONS = tuple(
    name
    for name, option in STATISTIC_OPTIONS.items()
    if "penalty" in option.defaults and name not in ("notion", "method", "rank", "eps")
)


def test_positional_options_follow_the_function_s_own_and_bind_to_their_names():
    @takes_options(
        "penalty", positional=("method", "rank"), order=("eps", "flag", *_OTHER_PENALTY_OPTIONS)
    )
    def entry(notion="eo", lam=1.0, *, flag=False, **options):
        return notion, lam, flag, options

    parameters = inspect.signature(entry).parameters
    kinds = {name: parameter.kind for name, parameter in parameters.items()}
    assert list(kinds) == [
        "notion",
        "lam",
        "method",
        "rank",
        "eps",
        "flag",
        *_OTHER_PENALTY_OPTIONS,
    ]
    assert [kinds[name] for name in ("method", "rank")] == [
        inspect.Parameter.POSITIONAL_OR_KEYWORD
    ] * 2
    assert kinds["eps"] == inspect.Parameter.KEYWORD_ONLY
    notion, lam, flag, options = entry("dp", 2.0, "exact", 5, eps=0.1, flag=True)
    assert (notion, lam, flag) == ("dp", 2.0, True)
    assert options == {
        "method": "exact",
        "rank": 5,
        "eps": 0.1,
        **{
            name: option.defaults["penalty"]
            for name, option in STATISTIC_OPTIONS.items()
            if "penalty" in option.defaults and name not in ("notion", "method", "rank", "eps")
        },
    }
    with pytest.raises(TypeError, match=r"^test_positional_.*entry\(\) too many positional"):
        entry("dp", 2.0, "exact", 5, 0.1)


@pytest.mark.parametrize("order", [("eps", "flag"), ("eps", "flag", *_OTHER_PENALTY_OPTIONS, "x")])
def test_an_order_that_leaves_out_or_invents_a_parameter_is_refused_when_decorating(order):
    """An option left out of ``order`` would silently drop out of the signature."""
    with pytest.raises(TypeError, match=r"takes_options\(order=\.\.\.\) of .*entry must list"):

        @takes_options("penalty", positional=("method", "rank"), order=order)
        def entry(notion="eo", *, flag=False, **options):
            return options
