"""The documentation's own Sphinx extensions (``docs/_ext``), each on a small built project.

``mathml`` writes the formulas into the pages as MathML, so that they need no script and read
the same offline; ``anchors`` checks that each link between the built pages lands on an anchor.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sphinx.application import Sphinx

EXTENSIONS = Path(__file__).resolve().parents[2] / "docs" / "_ext"

FORMULAS = """\
Page
====

Inline :math:`\\sigma^2` and displayed:

.. math::

   k(x, x') = \\exp\\left(-\\frac{\\lVert x - x' \\rVert^2}{2\\sigma^2}\\right)
"""


def build(tmp_path: Path, pages: dict[str, str], conf: str) -> tuple[Path, str]:
    """The HTML folder of ``pages`` (name: reST) built with ``conf`` added to a configuration
    that finds the extensions, and the build's warnings."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text(f"import sys\nsys.path.insert(0, {str(EXTENSIONS)!r})\n{conf}")
    for name, text in pages.items():
        (source / f"{name}.rst").write_text(text)
    warnings = tmp_path / "warnings.txt"
    with warnings.open("w") as stream:
        Sphinx(
            str(source), str(source), str(tmp_path / "html"), str(tmp_path / "doctrees"),
            "html", status=None, warning=stream, freshenv=True,
        ).build()  # fmt: skip
    return tmp_path / "html", warnings.read_text()


@pytest.fixture(autouse=True)
def _restore_path() -> Iterator[None]:
    """The built project's ``conf.py`` puts the extensions' folder on ``sys.path``."""
    saved = list(sys.path)
    yield
    sys.path[:] = saved


MATHML = 'extensions = ["mathml"]\nhtml_math_renderer = "mathml"\n'


def test_formulas_are_mathml_and_the_page_loads_no_script_for_them(tmp_path: Path):
    out, warnings = build(tmp_path, {"index": FORMULAS}, MATHML)
    html = (out / "index.html").read_text()

    assert warnings == ""
    assert html.count("<math ") == 2
    assert 'display="block"' in html
    assert "<mfrac>" in html
    assert "mathjax" not in html.lower()
    assert "\\sigma" not in html  # no TeX left for a script to typeset


def test_a_formula_the_converter_cannot_read_is_a_warning_naming_it(tmp_path: Path):
    out, warnings = build(tmp_path, {"index": "Page\n====\n\n:math:`\\nosuchcommand x`\n"}, MATHML)

    assert "cannot render the formula '\\\\nosuchcommand x' as MathML" in warnings
    assert "index.rst" in warnings
    assert "<code>\\nosuchcommand x</code>" in (out / "index.html").read_text()


LINKS = """\
Links
=====

.. toctree::

   other

.. raw:: html

   <a href="other.html#a-section">there</a> <a href="other.html#nowhere">nowhere</a>
"""


def test_a_link_to_a_missing_anchor_is_a_warning_naming_the_page_and_the_link(tmp_path: Path):
    pages = {"index": LINKS, "other": "Other\n=====\n\nA section\n---------\n\nText.\n"}

    _, warnings = build(tmp_path, pages, 'extensions = ["anchors"]\n')

    assert "link to a missing anchor: index.html: other.html#nowhere" in warnings
    assert "a-section" not in warnings
    assert warnings.count("missing anchor") == 1
