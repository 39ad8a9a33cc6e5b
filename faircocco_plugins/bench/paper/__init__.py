"""The paper's study as results pages: its tables, fronts, claims and smaller experiments.

The harness runs and stores studies; this sub-package reads a study's export and writes the
pages that set it beside the paper (:func:`write_pages`), the page of the mixed-attribute study
(:func:`write_mixed_page`), and runs the paper's three
experiments that the study's grid does not cover (:data:`RUNNERS`). The command line reaches it
through ``faircocco pages``, ``faircocco mixed-page`` and ``faircocco paper-experiment``.
"""

from ._common import load_runs
from ._experiments import EXPERIMENTS, RUNNERS, ExperimentSettings, write_table
from ._mixed import write_mixed_page
from ._pages import write_pages

__all__ = [
    "EXPERIMENTS",
    "RUNNERS",
    "ExperimentSettings",
    "load_runs",
    "write_mixed_page",
    "write_pages",
    "write_table",
]
