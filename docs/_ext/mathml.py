"""Math rendered as MathML when the pages are built, by docutils' own LaTeX converter.

Browsers draw MathML themselves, so a formula needs no script and nothing fetched: the pages read
the same offline. A formula the converter cannot read is a build warning (an error under ``-W``),
naming the formula and its page, and is shown as its TeX source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes
from docutils.utils.math import MathError
from docutils.utils.math.latex2mathml import tex2mathml
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.writers.html5 import HTML5Translator

logger = logging.getLogger(__name__)


def _mathml(translator: HTML5Translator, node: nodes.Element, tex: str, block: bool) -> str:
    try:
        return tex2mathml(tex, as_block=block)
    except MathError as error:
        logger.warning("cannot render the formula %r as MathML: %s", tex, error, location=node)
        return f"<code>{translator.encode(tex)}</code>"


def visit_math(translator: HTML5Translator, node: nodes.math) -> None:
    translator.body.append(translator.starttag(node, "span", "", CLASS="math"))
    translator.body.append(_mathml(translator, node, node.astext(), block=False) + "</span>")
    raise nodes.SkipNode


def visit_displaymath(translator: HTML5Translator, node: nodes.math_block) -> None:
    translator.body.append(translator.starttag(node, "div", CLASS="math"))
    if node["number"]:
        number = get_node_equation_number(translator, node)
        translator.body.append(f'<span class="eqno">({number})')
        translator.add_permalink_ref(node, _("Link to this equation"))
        translator.body.append("</span>")
    # a blank line separates formulas in one directive, as in LaTeX's align
    for part in node.astext().split("\n\n"):
        if part.strip():
            translator.body.append(_mathml(translator, node, part, block=True))
    translator.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app: Sphinx) -> dict[str, object]:
    app.add_html_math_renderer(
        "mathml",
        inline_renderers=(visit_math, None),
        block_renderers=(visit_displaymath, None),
    )
    return {"parallel_read_safe": True, "parallel_write_safe": True}
