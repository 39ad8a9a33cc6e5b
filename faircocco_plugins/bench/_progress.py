"""Progress of a study: a live rich display on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any, TextIO, TypeVar

from ._store import RunRecord
from ._study import Cell

#: Cells listed under the bar of the live display.
_SHOWN_CELLS = 4
T = TypeVar("T")


class Progress:
    """Receives the events of a study; this base class ignores them.

    Examples
    --------
    >>> from faircocco_plugins.bench import Progress
    >>> Progress().note("nothing is shown")
    """

    def start(self, *, total: int, where: str) -> None:
        """``total`` cells are about to run ``where``."""

    def started(self, cell: Cell) -> None:
        """A cell was submitted."""

    def finished(self, cell: Cell, record: RunRecord) -> None:
        """A cell returned its record (already written to the store)."""

    def elsewhere(self, cell: Cell) -> None:
        """Another process sharing the store ran a cell of this study."""

    def note(self, text: str) -> None:
        """A message for the user."""

    def stop(self) -> None:
        """The study ended (or was interrupted)."""


class PlainProgress(Progress):
    """One line per finished cell, with the count, the status, the time and an ETA.

    Parameters
    ----------
    stream : file-like, optional
        Where lines go (default: standard error).

    Examples
    --------
    >>> import io
    >>> from faircocco_plugins.bench import PlainProgress
    >>> out = io.StringIO()
    >>> PlainProgress(out).note("hello")
    >>> out.getvalue()
    'hello\\n'
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._total = 0
        self._count = 0
        self._began = time.monotonic()

    def _print(self, text: str) -> None:
        print(text, file=self._stream if self._stream is not None else sys.stderr, flush=True)

    def start(self, *, total: int, where: str) -> None:
        self._total, self._count, self._began = total, 0, time.monotonic()
        self._print(f"running {total} cells {where}")

    def finished(self, cell: Cell, record: RunRecord) -> None:
        self._count += 1
        width = len(str(self._total))
        cost = "".join(
            f" {stage} {seconds:.1f} s"
            for stage, seconds in (("fit", record.fit_seconds), ("eval", record.evaluate_seconds))
            if seconds is not None
        )
        detail = f": {record.reason}" if record.status == "failed" else ""
        self._print(
            f"[{self._count:>{width}}/{self._total}] {record.status:<6} {cell.label}{cost}"
            f"{detail} (ETA {_eta(self._began, self._count, self._total)})"
        )

    def elsewhere(self, cell: Cell) -> None:
        self._count += 1
        width = len(str(self._total))
        self._print(
            f"[{self._count:>{width}}/{self._total}] stored by another process: {cell.label} "
            f"(ETA {_eta(self._began, self._count, self._total)})"
        )

    def note(self, text: str) -> None:
        self._print(text)


class RichProgress(Progress):
    """A live bar (cells done of total, elapsed, ETA) and the cells now running.

    Parameters
    ----------
    console : rich.console.Console, optional
        Default: a console on standard error.

    Examples
    --------
    >>> from faircocco_plugins.bench import RichProgress
    >>> display = RichProgress()  # doctest: +SKIP
    """

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console

        self._console = console if console is not None else Console(stderr=True)
        self._running: dict[str, Cell] = {}
        self._live: Any = None
        self._bar: Any = None
        self._task: Any = None
        self._failed = 0

    def start(self, *, total: int, where: str) -> None:
        from rich.live import Live
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._console.print(f"running {total} cells {where}")
        self._bar = Progress(
            TextColumn("[bold]cells"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("elapsed"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[failed]}"),
            console=self._console,
        )
        self._task = self._bar.add_task("cells", total=total, failed="")
        self._live = Live(self._render(), console=self._console, refresh_per_second=4)
        self._live.start()

    def _render(self) -> Any:
        from rich.console import Group
        from rich.text import Text

        cells = list(self._running.values())
        lines = [Text(f"  running: {cell.label}", style="dim") for cell in cells[:_SHOWN_CELLS]]
        if len(cells) > _SHOWN_CELLS:
            lines.append(Text(f"  ... and {len(cells) - _SHOWN_CELLS} more", style="dim"))
        return Group(self._bar, *lines)

    def started(self, cell: Cell) -> None:
        self._running[cell.run_id] = cell
        self._refresh()

    def finished(self, cell: Cell, record: RunRecord) -> None:
        self._running.pop(cell.run_id, None)
        if record.status == "failed":
            self._failed += 1
            self._console.print(f"[red]failed[/red] {cell.label}: {record.reason}", markup=True)
        if self._bar is not None:
            failed = f"[red]{self._failed} failed[/red]" if self._failed else ""
            self._bar.update(self._task, advance=1, failed=failed)
        self._refresh()

    def elsewhere(self, cell: Cell) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=1)
        self._refresh()

    def _refresh(self) -> None:
        if self._live is not None:
            self._live.update(self._render())

    def note(self, text: str) -> None:
        self._console.print(text, markup=False, highlight=False)

    def stop(self) -> None:
        if self._live is not None:
            self._running.clear()
            self._live.update(self._render())
            self._live.stop()
            self._live = None


def default_progress() -> Progress:
    """A :class:`RichProgress` on a terminal, else :class:`PlainProgress` (logs, CI).

    Returns
    -------
    Progress

    Examples
    --------
    >>> from faircocco_plugins.bench._progress import default_progress
    >>> type(default_progress()).__name__ in ("RichProgress", "PlainProgress")
    True
    """
    try:
        from rich.console import Console
    except ImportError:
        return PlainProgress()
    console = Console(stderr=True)
    return RichProgress(console) if console.is_terminal else PlainProgress()


def progress_lines(
    items: Sequence[T], *, what: str, unit: str, stream: TextIO | None = None
) -> Iterator[T]:
    """Iterate over ``items`` showing progress: a live bar on a terminal, else one line per item.

    A bar redrawn in place reads as one line on a terminal, but in a log or a pipe each redraw
    stays, the last one twice (once when the last item ends and once when the bar closes); off
    a terminal each finished item therefore gets one line, as :class:`PlainProgress` prints.

    Parameters
    ----------
    items : sequence
    what : str
        What the items are part of, such as ``"convergence"``.
    unit : str
        What one item is, such as ``"network"``.
    stream : file-like, optional
        Where progress goes (default: standard error).

    Yields
    ------
    The items, in order.

    Examples
    --------
    >>> import io
    >>> from faircocco_plugins.bench._progress import progress_lines
    >>> out = io.StringIO()
    >>> list(progress_lines(["a", "b"], what="demo", unit="network", stream=out))
    ['a', 'b']
    >>> print(out.getvalue(), end="")  # doctest: +ELLIPSIS
    demo: 1/2 network (ETA ...)
    demo: 2/2 network (ETA ...)
    """
    from tqdm.auto import tqdm

    stream = stream if stream is not None else sys.stderr
    if stream.isatty():
        yield from tqdm(items, desc=what, unit=unit, file=stream)
        return
    began, total = time.monotonic(), len(items)
    for count, item in enumerate(items, start=1):
        yield item
        print(
            f"{what}: {count}/{total} {unit} (ETA {_eta(began, count, total)})",
            file=stream,
            flush=True,
        )


def _eta(began: float, done: int, total: int) -> str:
    if done == 0:
        return "unknown"
    seconds = (time.monotonic() - began) / done * (total - done)
    return format_duration(seconds)


def format_duration(seconds: float) -> str:
    """``1h02m``, ``3m05s`` or ``12.3s``.

    Parameters
    ----------
    seconds : float

    Returns
    -------
    str

    Examples
    --------
    >>> from faircocco_plugins.bench._progress import format_duration
    >>> format_duration(185.0)
    '3m05s'
    """
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{rest:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
