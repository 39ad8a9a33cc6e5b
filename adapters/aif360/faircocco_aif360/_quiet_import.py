"""AIF360's notices about optional dependencies this adapter does not need, kept quiet."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

#: AIF360's warning, logged on import, for an algorithm whose optional dependency is missing:
#: AdversarialDebiasing without TensorFlow (the harness's method says itself that it needs it),
#: SenSeI and SenSR without inFairness (not used here).
_NOT_NEEDED = re.compile(
    r"No module named '[^']+': (AdversarialDebiasing|SenSeI and SenSR) will be unavailable\."
)


class _NotNeededNotices(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return _NOT_NEEDED.match(record.getMessage()) is None


@contextmanager
def without_unneeded_notices() -> Iterator[None]:
    """Drop, inside the block, AIF360's root-logger warnings that AdversarialDebiasing or
    SenSeI and SenSR are unavailable; other records pass.

    ``aif360.metrics`` imports every in-processing algorithm, and each whose optional
    dependency is missing logs such a warning, though the metric needs none of them.
    """
    root = logging.getLogger()
    notices = _NotNeededNotices()
    root.addFilter(notices)
    try:
        yield
    finally:
        root.removeFilter(notices)
