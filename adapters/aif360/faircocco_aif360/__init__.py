"""FairCOCCO in AIF360: an in-processing algorithm and a metric for several protected attributes
of any type.

AIF360's in-processing algorithms take one binary protected attribute, and its metrics compare
groups by equality, so a continuous attribute makes one group per value.
:class:`FairCOCCOInprocessing` trains the FairCOCCO paper's network with a penalty on all of a
dataset's protected attributes jointly, at their raw values; :class:`FairCOCCOMetric` measures
the same dependence in a classified dataset. :mod:`faircocco_aif360.sklearn` has the
in-processing algorithm in ``aif360.sklearn``'s style, and :func:`aif360_dataset` builds AIF360's
own dataset classes from the project's verified raw files.

The names are imported on first use: the harness loads this package's entry points (its
datasets and mitigators) when it lists them, and importing AIF360 takes seconds.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._inprocessing import FairCOCCOInprocessing
    from ._loaders import aif360_dataset
    from ._metric import FairCOCCOMetric

_HOMES = {
    "FairCOCCOInprocessing": "._inprocessing",
    "FairCOCCOMetric": "._metric",
    "aif360_dataset": "._loaders",
}
__all__ = ["FairCOCCOInprocessing", "FairCOCCOMetric", "aif360_dataset"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name], __name__), name)
