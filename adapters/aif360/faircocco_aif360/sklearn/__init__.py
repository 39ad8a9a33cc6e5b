"""FairCOCCO in the style of ``aif360.sklearn``: estimators that read the protected attributes
from the index of ``X``."""

from ._inprocessing import FairCOCCOInprocessing

__all__ = ["FairCOCCOInprocessing"]
