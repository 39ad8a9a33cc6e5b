"""Files to read: a path that exists as something other than a regular file or a folder is
refused, before a read waits on it."""

from __future__ import annotations

import os
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
