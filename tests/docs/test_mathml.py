"""The documentation's formulas are MathML written into the pages (``docs/_ext/mathml.py``), so
the pages need no script to show them and read the same offline."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sphinx.application import Sphinx

EXTENSIONS = Path(__file__).resolve().parents[2] / "docs" / "_ext"

PAGE = """\
Page
====

Inline :math:`\\sigma^2` and displayed:

.. math::

   k(x, x') = \\exp\\left(-\\frac{\\lVert x - x' \\rVert^2}{2\\sigma^2}\\right)
"""


def build(tmp_path: Path, page: str) -> tuple[str, str]:
    """The HTML of ``page`` built with the project's math renderer, and the build's warnings."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(EXTENSIONS)!r})\n"
        'extensions = ["mathml"]\nhtml_math_renderer = "mathml"\n'
    )
    (source / "index.rst").write_text(page)
    warnings = tmp_path / "warnings.txt"
    with warnings.open("w") as stream:
        Sphinx(
            str(source), str(source), str(tmp_path / "html"), str(tmp_path / "doctrees"),
            "html", status=None, warning=stream, freshenv=True,
        ).build()  # fmt: skip
    return (tmp_path / "html" / "index.html").read_text(), warnings.read_text()


def test_formulas_are_mathml_and_the_page_loads_no_script_for_them(tmp_path: Path):
    html, warnings = build(tmp_path, PAGE)

    assert warnings == ""
    assert html.count("<math ") == 2
    assert 'display="block"' in html
    assert "<mfrac>" in html
    assert "mathjax" not in html.lower()
    assert "\\sigma" not in html  # no TeX left for a script to typeset


def test_a_formula_the_converter_cannot_read_is_a_warning_naming_it(tmp_path: Path):
    html, warnings = build(tmp_path, "Page\n====\n\n:math:`\\nosuchcommand x`\n")

    assert "cannot render the formula '\\\\nosuchcommand x' as MathML" in warnings
    assert "index.rst" in warnings
    assert "<code>\\nosuchcommand x</code>" in html


@pytest.fixture(autouse=True)
def _restore_path():
    """The built project's ``conf.py`` puts the extensions' folder on ``sys.path``."""
    saved = list(sys.path)
    yield
    sys.path[:] = saved
