"""Sphinx configuration for the FairCOCCO plugins documentation."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Document the package from the working tree, whether or not it is installed.
sys.path.insert(0, str(ROOT))
# The AIF360 adapter is tested in an environment of its own (AIF360's dataset loaders need
# pandas<3); the docs read it from its folder.
sys.path.insert(0, str(ROOT / "adapters" / "aif360"))
# The project's own Sphinx extensions.
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

with (ROOT / "pyproject.toml").open("rb") as handle:
    _project = tomllib.load(handle)["project"]

project = "FairCOCCO plugins"
author = "FairCOCCO plugins contributors"
copyright = "FairCOCCO plugins contributors"
release = _project["version"]
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "mathml",
    "anchors",
    "numpydoc",
]
# Formulas are MathML written into the pages, so they read the same offline.
html_math_renderer = "mathml"

templates_path = ["_templates"]
exclude_patterns = ["_build"]

# API reference: autosummary writes one stub page per public name into api/generated/.
autosummary_generate = True
autodoc_typehints = "signature"
autodoc_default_options = {"member-order": "bysource"}

# numpydoc renders the Parameters/Returns/Attributes sections; the class template shows no
# member tables of its own, so nothing is documented twice.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

html_theme = "alabaster"
# A text column that holds the 100 characters of a line of code (the project's line length):
# the theme's default column shows about 70, and cut the examples off.
html_theme_options = {"page_width": "1160px", "body_max_width": "none", "code_font_size": "0.8em"}
html_title = f"FairCOCCO plugins {release}"
html_static_path = ["_static"]


def setup(app):
    """Register the ``statistic-options`` directive: the table of the statistic's options,
    rendered from their one definition (``faircocco_plugins._options``)."""
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective

    from faircocco_plugins._options import options_table

    class StatisticOptions(SphinxDirective):
        def run(self):
            container = nodes.section()
            self.state.nested_parse(StringList(options_table().splitlines()), 0, container)
            return container.children

    app.add_directive("statistic-options", StatisticOptions)
    return {"parallel_read_safe": True}
