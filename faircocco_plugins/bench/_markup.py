"""The report's pages as blocks, written out once as Markdown and once as HTML.

A page is a sequence of blocks (headings, paragraphs, tables, link lists, figures, code); the
two renderers turn the same blocks into a Markdown page and an HTML fragment, so the two
formats of a page cannot drift apart.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: Styles of every HTML page of the report.
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; max-width: 80em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #ddd; }
td { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th { text-align: left; }
table.capabilities td { text-align: center; }
table.capabilities td:last-child { text-align: left; white-space: normal; }
table.hypervolumes td:nth-child(-n+3) { text-align: left; }
tr.block th { background: #efefef; font-style: italic; }
td.na { color: #777; }
span.degenerate { color: #b00; font-weight: bold; }
span.facts { font-weight: normal; font-style: normal; font-size: 0.9em; }
ol.notes { font-size: 0.9em; color: #444; }
figure { display: inline-block; margin: 0.5em; }
figure img { width: 32em; max-width: 100%; }
pre { background: #f6f6f6; padding: 0.7em; }
"""


@dataclass(frozen=True)
class Heading:
    """A heading of ``level`` 1 (the page's title) to 3."""

    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of plain text."""

    text: str


@dataclass(frozen=True)
class Table:
    """A table whose first column labels the rows.

    ``header`` None gives a table without column names; ``align`` holds each column's
    Markdown alignment (``"---"`` or ``"---:"``) and ``css`` the HTML table's class.
    """

    header: Sequence[str] | None
    rows: Sequence[Sequence[str]]
    align: Sequence[str]
    css: str


@dataclass(frozen=True)
class Link:
    """A link to a file of the report; a page has a Markdown and an HTML target."""

    text: str
    markdown_target: str
    html_target: str


@dataclass(frozen=True)
class Links:
    """A bulleted list of links."""

    links: Sequence[Link]


@dataclass(frozen=True)
class Figure:
    """A figure saved in several formats: Markdown shows its PNG, HTML its SVG and links all.

    ``files`` are paths relative to the page, in POSIX form.
    """

    caption: str
    alt: str
    files: Sequence[str]


@dataclass(frozen=True)
class Code:
    """A block of code in ``language``."""

    text: str
    language: str


Block = Heading | Paragraph | Table | Links | Figure | Code


def md_escape(text: str) -> str:
    """Text that stays inside one Markdown table cell: pipes escaped, newlines as spaces.

    Examples
    --------
    >>> from faircocco_plugins.bench._markup import md_escape
    >>> print(md_escape("a|b"))
    a\\|b
    """
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(blocks: Iterable[Block]) -> str:
    """The blocks as a Markdown page, one blank line between blocks.

    Examples
    --------
    >>> from faircocco_plugins.bench._markup import Heading, Paragraph, render_markdown
    >>> print(render_markdown([Heading("Title", 1), Paragraph("Text.")]), end="")
    # Title
    <BLANKLINE>
    Text.
    """
    return "\n\n".join(_markdown_block(block) for block in blocks) + "\n"


def render_html(blocks: Iterable[Block]) -> str:
    """The blocks as an HTML fragment, one element (or table) per line.

    Examples
    --------
    >>> from faircocco_plugins.bench._markup import Heading, Paragraph, render_html
    >>> print(render_html([Heading("Title", 1), Paragraph("a < b")]), end="")
    <h1>Title</h1>
    <p>a &lt; b</p>
    """
    return "\n".join(_html_block(block) for block in blocks) + "\n"


def html_page(title: str, body: str) -> str:
    """A standalone HTML page with the report's styles around the fragment ``body``.

    Examples
    --------
    >>> from faircocco_plugins.bench._markup import html_page
    >>> html_page("Report", "<p>text</p>\\n").splitlines()[0]
    '<!DOCTYPE html>'
    """
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"{body}</body>\n</html>\n"
    )


def _markdown_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"{'#' * block.level} {md_escape(block.text)}"
    if isinstance(block, Paragraph):
        return md_escape(block.text)
    if isinstance(block, Table):
        header = block.header if block.header is not None else [""] * len(block.align)
        return "\n".join(_markdown_table(header, block.rows, block.align))
    if isinstance(block, Links):
        return "\n".join(
            f"- [{md_escape(link.text)}]({link.markdown_target})" for link in block.links
        )
    if isinstance(block, Figure):
        png = next((f for f in block.files if f.endswith(".png")), block.files[0])
        return f"### {md_escape(block.caption)}\n\n![{block.alt}]({png})"
    return f"```{block.language}\n{block.text}\n```"


def _markdown_table(
    header: Sequence[str], rows: Iterable[Sequence[str]], align: Sequence[str]
) -> list[str]:
    lines = ["| " + " | ".join(md_escape(h) for h in header) + " |"]
    lines.append("|" + "|".join(align) + "|")
    lines += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows]
    return lines


def _html_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{html.escape(block.text)}</h{block.level}>"
    if isinstance(block, Paragraph):
        return f"<p>{html.escape(block.text)}</p>"
    if isinstance(block, Table):
        return _html_table(block.header, block.rows, css=block.css)
    if isinstance(block, Links):
        items = [
            f'<li><a href="{html.escape(link.html_target)}">{html.escape(link.text)}</a></li>'
            for link in block.links
        ]
        return "\n".join(["<ul>", *items, "</ul>"])
    if isinstance(block, Figure):
        svg = next((f for f in block.files if f.endswith(".svg")), block.files[0])
        links = " ".join(
            f'<a href="{html.escape(f)}">{f.rsplit(".", 1)[-1].upper()}</a>' for f in block.files
        )
        return (
            f'<figure><img src="{html.escape(svg)}" alt="{html.escape(block.alt)}">'
            f"<figcaption>{html.escape(block.caption)} ({links})</figcaption></figure>"
        )
    return f"<pre>{html.escape(block.text)}</pre>"


def _html_table(header: Sequence[str] | None, rows: Iterable[Sequence[str]], *, css: str) -> str:
    parts = [f'<table class="{css}">']
    if header is not None:
        parts.append(
            "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead>"
        )
    parts.append("<tbody>")
    for row in rows:
        cells = [f"<th>{html.escape(str(row[0]))}</th>"]
        cells += [f"<td>{html.escape(str(value))}</td>" for value in row[1:]]
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table>")
    return "\n".join(parts)
