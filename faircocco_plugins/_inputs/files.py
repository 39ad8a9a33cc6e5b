"""The files a command reads and writes, checked before its work: a file to read that is a
named pipe, socket or device, and an output that cannot be written, are refused."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def refuse_special_file(path: str | os.PathLike[str], what: str) -> None:
    """Refuse ``path`` when it is a named pipe, a socket or a device.

    Reading a named pipe waits for a writer, and the commands read a file more than once (its
    header, then its rows), which a pipe cannot give. A missing path, a regular file and a
    folder pass, for the caller's own checks.

    Parameters
    ----------
    path : str or path-like
    what : str
        What the file is, for the error (``"the export"``).

    Raises
    ------
    ValueError
        If ``path`` exists and is neither a regular file nor a folder.

    Examples
    --------
    >>> import os, tempfile
    >>> from faircocco_plugins._inputs.files import refuse_special_file
    >>> refuse_special_file(tempfile.mkdtemp(), "the file")  # a folder passes
    >>> pipe = os.path.join(tempfile.mkdtemp(), "pipe")
    >>> os.mkfifo(pipe)  # doctest: +SKIP
    >>> refuse_special_file(pipe, "the file")  # doctest: +SKIP
    Traceback (most recent call last):
    ValueError: the file ... is not a regular file ...
    """
    target = Path(path)
    if target.exists() and not target.is_file() and not target.is_dir():
        raise ValueError(
            f"{what} {target} is not a regular file but a named pipe, socket or device, whose "
            "reading waits for a writer or never ends; save its content to a file and pass "
            "that."
        )


def check_writable(path: str | os.PathLike[str], what: str) -> None:
    """Refuse an output that cannot be written, before the work that makes it.

    An existing file at ``path`` must open for writing (it is not changed); otherwise the
    nearest of ``path`` and the folders above it that exists must take a new file (an unnamed
    temporary one, so nothing is left behind). So a read-only folder or file system is found,
    and so is a folder to be created under a file.

    Parameters
    ----------
    path : str or path-like
        The output: a file or a folder, existing or not.
    what : str
        What the output is, for the error (``"--out"``).

    Raises
    ------
    ValueError
        If it cannot be written, saying why.

    Examples
    --------
    >>> import tempfile
    >>> from faircocco_plugins._inputs.files import check_writable
    >>> check_writable(tempfile.mkdtemp() + "/new/runs.csv", "--out")
    """
    target = Path(path)
    where = next(folder for folder in (target, *target.parents) if folder.exists())
    try:
        if where == target and target.is_file():
            with target.open("r+b"):
                return
        with tempfile.TemporaryFile(dir=where):
            return
    except OSError as error:
        raise ValueError(
            f"{what} {target} cannot be written ({where}: {error.strerror or error}); choose "
            "a writable location."
        ) from None
