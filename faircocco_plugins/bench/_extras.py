"""The packages of the ``bench`` extra, checked before a command does any work."""

from __future__ import annotations

import importlib.util

#: Import names of the ``bench`` extra's packages that the harness and its report import.
BENCH_MODULES = ("sklearn", "joblib", "rich", "matplotlib")


def missing_extra(modules: tuple[str, ...] = BENCH_MODULES) -> str | None:
    """What to install when any of ``modules`` is missing, else None.

    ``faircocco bench`` checks them all, so that a study is not run only for its report to fail
    on a missing plotting library.

    Examples
    --------
    >>> from faircocco_plugins.bench._extras import missing_extra
    >>> missing_extra(("json",)) is None
    True
    >>> print(missing_extra(("no_such_module",)))  # doctest: +NORMALIZE_WHITESPACE
    needs no_such_module, which is not installed; install the harness's extra with pip
    install "faircocco-plugins[bench]"
    """
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    verb = "is" if len(missing) == 1 else "are"
    return (
        f"needs {', '.join(missing)}, which {verb} not installed; install the harness's extra "
        'with pip install "faircocco-plugins[bench]"'
    )
