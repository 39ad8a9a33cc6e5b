"""Loaders of the nine real-world datasets of the FairCOCCO paper (appendix B)."""

from __future__ import annotations

from .._source import DatasetSource
from . import (
    adult,
    communities,
    compas,
    credit_card,
    drugs,
    german,
    kdd_census,
    law_school,
    students,
)

#: In the order of the paper's table: single attribute, then several attributes.
PAPER_SOURCES: tuple[DatasetSource, ...] = (
    adult.SOURCE,
    drugs.SOURCE,
    german.SOURCE,
    compas.SOURCE,
    communities.SOURCE,
    students.SOURCE,
    kdd_census.SOURCE,
    credit_card.SOURCE,
    law_school.SOURCE,
)
#: The paper's datasets with other attributes protected: Adult with sex, race and age.
VARIANT_SOURCES: tuple[DatasetSource, ...] = (adult.MIXED_SOURCE,)
