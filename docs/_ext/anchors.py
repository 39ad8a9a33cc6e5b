"""Every link between the built pages lands on an anchor that exists.

Sphinx checks that a cross-reference names a documented object, not that the page it lands on
has the anchor: an index can link to a module whose target the HTML dropped. After an HTML
build, each link ``page.html#anchor`` from one built page to another is checked against the
``id`` attributes of that page, and each missing one is a build warning (an error under ``-W``).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from sphinx.util import logging

if TYPE_CHECKING:
    from sphinx.application import Sphinx

logger = logging.getLogger(__name__)

_HREF = re.compile(r'href="([^"]*#[^"]*)"')
_ID = re.compile(r'\bid="([^"]*)"')


def missing_anchors(outdir: Path) -> list[str]:
    """``page: link`` for each link between the pages of ``outdir`` to a missing anchor."""
    pages = {path.resolve(): path.read_text(encoding="utf-8") for path in outdir.rglob("*.html")}
    anchors: dict[Path, set[str]] = {}
    missing = []
    for path, text in pages.items():
        for href in _HREF.findall(text):
            link = urlsplit(html.unescape(href))
            if link.scheme or link.netloc or not link.fragment:
                continue
            target = (path.parent / unquote(link.path)).resolve() if link.path else path
            if target not in pages:
                continue
            if target not in anchors:
                anchors[target] = {html.unescape(i) for i in _ID.findall(pages[target])}
            if unquote(link.fragment) not in anchors[target]:
                missing.append(f"{path.relative_to(outdir.resolve())}: {href}")
    return sorted(set(missing))


def _check(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        for link in missing_anchors(Path(app.outdir)):
            logger.warning("link to a missing anchor: %s", link)


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("build-finished", _check)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
