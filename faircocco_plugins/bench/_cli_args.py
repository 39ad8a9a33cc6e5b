"""What the harness's subcommands share: argument types, common options and error lines.

Each subcommand module has a ``register(commands)`` that adds its subparsers to ``commands``,
the ``argparse._SubParsersAction`` of the ``faircocco`` parser, and sets their ``run``, a
callable taking the parsed arguments and returning the exit status.

An argument type raises :class:`argparse.ArgumentTypeError`, which argparse prints as a usage
error naming the option. A check made after parsing prints ``faircocco <command>: error: ...``
on standard error and gives the exit status 2, as argparse does for its own errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._extras import BENCH_MODULES, missing_extra
from ._results_tables import REPORT_FORMATS
from ._selection import DEFAULT_TOLERANCE

#: Exit status of a command that stops on a user error, as argparse exits on a usage error.
USAGE_ERROR = 2


def names(text: str) -> tuple[str, ...]:
    """A comma-separated list of non-empty names.

    Examples
    --------
    >>> from faircocco_plugins.bench._cli_args import names
    >>> names("adult, german")
    ('adult', 'german')
    """
    found = tuple(name.strip() for name in text.split(","))
    if not all(found):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of names")
    return found


def positive_int(text: str) -> int:
    """An integer of at least 1, such as ``--jobs``.

    Examples
    --------
    >>> from faircocco_plugins.bench._cli_args import positive_int
    >>> positive_int("3")
    3
    """
    return _integer_at_least(text, 1, "a positive integer")


def non_negative_int(text: str) -> int:
    """An integer of at least 0, such as ``--warmup-epochs``."""
    return _integer_at_least(text, 0, "a non-negative integer")


def _integer_at_least(text: str, minimum: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
    return value


def report_formats(text: str) -> tuple[str, ...]:
    """A comma-separated subset of the report's formats, each once, in the order given.

    Examples
    --------
    >>> from faircocco_plugins.bench._cli_args import report_formats
    >>> report_formats("html,md,html")
    ('html', 'md')
    """
    found = tuple(dict.fromkeys(name.strip() for name in text.split(",")))
    if not found or not all(name in REPORT_FORMATS for name in found):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not valid; expected a comma-separated subset of "
            f"{','.join(REPORT_FORMATS)}"
        )
    return found


def tolerance(text: str) -> float:
    """The selection rule's tolerance: a number in [0, 1].

    Examples
    --------
    >>> from faircocco_plugins.bench._cli_args import tolerance
    >>> tolerance("0.05")
    0.05
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number in [0, 1]")
    return value


def add_selection_options(parser: Any) -> None:
    """Add ``--tolerance`` and ``--adjusted``, the options of the selection rule.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A subcommand's parser.

    Examples
    --------
    >>> import argparse
    >>> from faircocco_plugins.bench._cli_args import add_selection_options
    >>> parser = argparse.ArgumentParser()
    >>> add_selection_options(parser)
    >>> parser.parse_args(["--tolerance", "0.1", "--adjusted"])
    Namespace(tolerance=0.1, adjusted=True)
    """
    parser.add_argument(
        "--tolerance",
        type=tolerance,
        default=DEFAULT_TOLERANCE,
        metavar="T",
        help="largest validation FairCOCCO score of a selected setting "
        f"(default: {DEFAULT_TOLERANCE:g})",
    )
    parser.add_argument(
        "--adjusted",
        action="store_true",
        help="select by the chance-adjusted validation score",
    )


def command_error(command: str, message: str) -> int:
    """Print ``faircocco <command>: error: <message>`` on standard error; return the status 2.

    Examples
    --------
    >>> import contextlib, io
    >>> from faircocco_plugins.bench._cli_args import command_error
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     status = command_error("report", "--out x is a file")
    >>> status, err.getvalue()
    (2, 'faircocco report: error: --out x is a file\\n')
    """
    print(f"faircocco {command}: error: {message}", file=sys.stderr)
    return USAGE_ERROR


def missing_extra_error(
    command: str, needed_by: str, modules: tuple[str, ...] = BENCH_MODULES, *, hint: str = ""
) -> int | None:
    """The exit status 2, after saying what to install, when any of ``modules`` is missing.

    Parameters
    ----------
    command : str
        The subcommand, such as ``"report"``.
    needed_by : str
        What needs the modules, such as ``"the figures"``.
    modules : tuple of str
        Import names; default: every package of the ``bench`` extra.
    hint : str
        Appended to the message, such as ``" (or pass --no-plots)"``.

    Returns
    -------
    int or None
        2 when some module is missing, else None.

    Examples
    --------
    >>> from faircocco_plugins.bench._cli_args import missing_extra_error
    >>> missing_extra_error("report", "the figures", ("json",)) is None
    True
    """
    missing = missing_extra(modules)
    if missing is None:
        return None
    return command_error(command, f"{needed_by} {missing}{hint}")


def figures_error(command: str, no_plots: bool) -> int | None:
    """The exit status 2, after saying what to install, when figures are due and matplotlib is
    missing.

    Examples
    --------
    >>> from faircocco_plugins.bench._cli_args import figures_error
    >>> figures_error("report", no_plots=True) is None
    True
    """
    if no_plots:
        return None
    return missing_extra_error(
        command, "the figures", ("matplotlib",), hint=" (or pass --no-plots)"
    )


def out_folder_error(command: str, out: str | Path) -> int | None:
    """The exit status 2, after saying so, when ``--out`` names a file rather than a folder.

    Examples
    --------
    >>> import tempfile
    >>> from faircocco_plugins.bench._cli_args import out_folder_error
    >>> out_folder_error("report", tempfile.mkdtemp()) is None
    True
    """
    if Path(out).exists() and not Path(out).is_dir():
        return command_error(
            command, f"--out {out} is a file; name a folder (created when missing)"
        )
    return None
