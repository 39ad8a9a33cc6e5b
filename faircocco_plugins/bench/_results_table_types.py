"""The results table of one notion: its cells, rows and dataset blocks, as Markdown and HTML.

:func:`results_tables` builds these tables from a study's summary; this module says what they
hold and how they are written out.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from .._records.notions import NOTION_RECORDS
from ._markup import md_escape

#: Appended to the cells of methods whose selected model is degenerate on some seed.
DEGENERATE_MARK = "†"
#: How the tables name each notion.
NOTION_TITLES = {name: notion.title for name, notion in NOTION_RECORDS.items()}


@dataclass(frozen=True)
class TableCell:
    """One cell of a results table.

    Attributes
    ----------
    text : str
        ``"0.812 ± 0.010"``, ``"n/a"``, ``"failed"``, ``"—"`` (no value) or a seed count.
    bold : bool
        Whether it is the best of its row.
    notes : tuple of int
        Numbers of the table's footnotes the cell refers to.
    degenerate : bool
        Whether the method's selected model is degenerate on the test part on some seed;
        rendered with :data:`DEGENERATE_MARK` after the text.

    Examples
    --------
    >>> from faircocco_plugins.bench import TableCell
    >>> TableCell("n/a", notes=(1,))
    TableCell(text='n/a', bold=False, notes=(1,), degenerate=False)
    """

    text: str
    bold: bool = False
    notes: tuple[int, ...] = ()
    degenerate: bool = False


@dataclass(frozen=True)
class TableRow:
    """One row of a dataset block: a metric (or the seed count) for every method.

    Attributes
    ----------
    label : str
        What the table shows, such as ``"ACC"`` or ``"FairCOCCO: age"``.
    metric : str
        The metric's name, such as ``"accuracy"`` or ``"faircocco_eo[age]"``; ``"seeds"``
        for the seed count.
    cells : tuple of TableCell
        One per method, in the table's column order.

    Examples
    --------
    >>> from faircocco_plugins.bench import TableCell, TableRow
    >>> TableRow("ACC", "accuracy", (TableCell("0.80", bold=True), TableCell("0.75"))).label
    'ACC'
    """

    label: str
    metric: str
    cells: tuple[TableCell, ...]


@dataclass(frozen=True)
class TableBlock:
    """The rows of one dataset.

    Attributes
    ----------
    dataset : str
    task : str
        ``"classification"``, ``"regression"`` or ``""`` when no run of the dataset succeeded.
    rows : tuple of TableRow
    facts : tuple of str
        What the numbers are about, such as ``("label: good credit risk", "base rate
        0.700", "N = 200 test rows")``.
    near_chance : bool
        Whether every method with a result is near chance (:data:`NEAR_CHANCE`), so that the
        fairness rows have no bold; the facts then say so.

    Examples
    --------
    >>> from faircocco_plugins.bench import TableBlock
    >>> TableBlock("german", "classification", (), ("base rate 0.700",)).facts
    ('base rate 0.700',)
    """

    dataset: str
    task: str
    rows: tuple[TableRow, ...]
    facts: tuple[str, ...] = ()
    near_chance: bool = False


@dataclass(frozen=True)
class ResultsTable:
    """The results of one notion: a block of rows per dataset, one column per method.

    Attributes
    ----------
    study : str
    notion : str
    methods : tuple of str
        The columns, in order.
    blocks : tuple of TableBlock
    footnotes : tuple of str
        Footnote ``i`` is ``footnotes[i - 1]``.
    caption : str

    Examples
    --------
    >>> from faircocco_plugins.bench import ResultsTable, TableBlock, TableCell, TableRow
    >>> row = TableRow("ACC", "accuracy", (TableCell("0.80", bold=True), TableCell("0.75")))
    >>> table = ResultsTable(
    ...     study="s", notion="eo", methods=("nn", "faircocco"),
    ...     blocks=(TableBlock("german", "classification", (row,)),), footnotes=(),
    ... )
    >>> table.cell("german", "accuracy", "nn").bold
    True
    >>> print(table.markdown().splitlines()[6])
    | **german** | ACC | **0.80** | 0.75 |
    """

    study: str
    notion: str
    methods: tuple[str, ...]
    blocks: tuple[TableBlock, ...]
    footnotes: tuple[str, ...]
    caption: str = ""

    @property
    def title(self) -> str:
        """``Results under <notion>``, such as ``Results under equalised odds (EO)``."""
        return f"Results under {NOTION_TITLES.get(self.notion, self.notion)}"

    def cell(self, dataset: str, metric: str, method: str) -> TableCell:
        """The cell of ``method`` in the row of ``metric`` (``"seeds"`` for the seed count).

        Parameters
        ----------
        dataset, metric, method : str

        Returns
        -------
        TableCell

        Raises
        ------
        KeyError
            When the table has no such dataset, metric or method.

        Examples
        --------
        See :class:`ResultsTable`.
        """
        column = self.methods.index(method) if method in self.methods else None
        for block in self.blocks:
            if block.dataset != dataset:
                continue
            for row in block.rows:
                if row.metric == metric and column is not None:
                    return row.cells[column]
        raise KeyError(f"no cell for dataset={dataset!r}, metric={metric!r}, method={method!r}")

    def markdown(self) -> str:
        """The table as GitHub-flavoured Markdown, footnotes after it.

        Returns
        -------
        str

        Examples
        --------
        See :class:`ResultsTable`.
        """
        header = ["Dataset", "Metric", *self.methods]
        lines = [
            f"# {self.title}",
            "",
            md_escape(self.caption),
            "",
            "| " + " | ".join(md_escape(h) for h in header) + " |",
            "|---|---|" + "---:|" * len(self.methods),
        ]
        for block in self.blocks:
            side = _side_column(block)
            for first, row in zip(side, block.rows, strict=True):
                cells = [_md_cell(c, self.notion) for c in row.cells]
                lines.append("| " + " | ".join([first, md_escape(row.label), *cells]) + " |")
        if self.footnotes:
            lines.append("")
            for number, text in enumerate(self.footnotes, start=1):
                lines.append(f"[^{_note_id(self.notion, number)}]: {md_escape(text)}")
        return "\n".join(lines) + "\n"

    def html(self) -> str:
        """The table as an HTML fragment (a ``<table>`` and its footnotes).

        Returns
        -------
        str

        Examples
        --------
        >>> from faircocco_plugins.bench import ResultsTable
        >>> table = ResultsTable(study="s", notion="dp", methods=("nn",), blocks=(),
        ...                      footnotes=())
        >>> table.html().splitlines()[0]
        '<h1>Results under demographic parity (DP)</h1>'
        """
        width = len(self.methods) + 1
        parts = [
            f"<h1>{html.escape(self.title)}</h1>",
            f"<p>{html.escape(self.caption)}</p>",
            '<table class="results">',
            "<thead><tr><th>Metric</th>"
            + "".join(f"<th>{html.escape(m)}</th>" for m in self.methods)
            + "</tr></thead>",
            "<tbody>",
        ]
        for block in self.blocks:
            kind = f" ({block.task})" if block.task else ""
            facts = "; ".join(block.facts)
            facts = f'<br><span class="facts">{html.escape(facts)}</span>' if facts else ""
            parts.append(
                f'<tr class="block"><th colspan="{width}">'
                f"{html.escape(block.dataset)}{html.escape(kind)}{facts}</th></tr>"
            )
            for row in block.rows:
                cells = "".join(_html_cell(c, self.notion) for c in row.cells)
                parts.append(f"<tr><th>{html.escape(row.label)}</th>{cells}</tr>")
        parts.append("</tbody></table>")
        if self.footnotes:
            parts.append('<ol class="notes">')
            for number, text in enumerate(self.footnotes, start=1):
                note = _note_id(self.notion, number)
                parts.append(f'<li id="{note}">{html.escape(text)}</li>')
            parts.append("</ol>")
        return "\n".join(parts) + "\n"


def _side_column(block: TableBlock) -> list[str]:
    """The Markdown dataset column of a block: its name, then one fact per row."""
    texts = [f"**{md_escape(block.dataset)}**", *(md_escape(f) for f in block.facts)]
    size = len(block.rows)
    if len(texts) > size:
        texts = [*texts[: size - 1], "; ".join(texts[size - 1 :])]
    return texts + [""] * (size - len(texts))


def _note_id(notion: str, number: int) -> str:
    return f"{notion}-{number}"


def _md_cell(cell: TableCell, notion: str) -> str:
    text = md_escape(cell.text)
    if cell.bold:
        text = f"**{text}**"
    if cell.degenerate:
        text += f" {DEGENERATE_MARK}"
    return text + "".join(f"[^{_note_id(notion, n)}]" for n in cell.notes)


def _html_cell(cell: TableCell, notion: str) -> str:
    text = html.escape(cell.text)
    if cell.bold:
        text = f"<strong>{text}</strong>"
    if cell.degenerate:
        text += f' <span class="degenerate" title="degenerate model">{DEGENERATE_MARK}</span>'
    for number in cell.notes:
        note = _note_id(notion, number)
        text += f'<sup><a href="#{note}">{number}</a></sup>'
    kind = ' class="na"' if cell.text in ("n/a", "failed") else ""
    return f"<td{kind}>{text}</td>"
