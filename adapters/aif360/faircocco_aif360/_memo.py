"""Freeing what AIF360's metric memo tables hold on to.

AIF360 memoizes every public method of its metric classes in a table of that method's own,
keyed by the metric object and the arguments, and never empties it: each metric object, with
the datasets it holds, stays in memory for the life of the process (AIF360 issues #228 and
#526). The post-processors make metrics while they fit (``RejectOptionClassification`` makes
two for each of its 5,000 threshold and margin pairs), so a study of many cells grows by about
100 MB a fit until it runs out of memory. An entry is only ever read back for the same metric
object, so dropping the entries a fit added changes no result: at most a metric that outlives
the fit computes a value again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


def metric_memo_tables() -> list[dict[Any, Any]]:
    """The memo tables of the methods of AIF360's metric classes, as imported so far.

    Empty where AIF360 stops memoizing this way: the tables are found in the closures of its
    ``memoize`` wrappers.
    """
    from aif360.metrics import Metric

    tables: dict[int, dict[Any, Any]] = {}
    classes, seen = [Metric], set()
    while classes:
        cls = classes.pop()
        if cls in seen:
            continue
        seen.add(cls)
        classes.extend(cls.__subclasses__())
        for member in vars(cls).values():
            code = getattr(member, "__code__", None)
            if code is None or "cache" not in code.co_freevars or member.__closure__ is None:
                continue
            table = member.__closure__[code.co_freevars.index("cache")].cell_contents
            if isinstance(table, dict):
                tables[id(table)] = table
    return list(tables.values())


@contextlib.contextmanager
def metric_memos_released() -> Iterator[None]:
    """Inside the block, AIF360's metrics memoize as usual; after it, the entries the block
    added are gone (those made before it, such as the user's, stay)."""
    before = {id(table): set(table) for table in metric_memo_tables()}
    try:
        yield
    finally:
        for table in metric_memo_tables():
            kept = before.get(id(table), set())
            for key in [key for key in table if key not in kept]:
                del table[key]
