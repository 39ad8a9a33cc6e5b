"""Names of studies and datasets as file and folder names: one path component each, and never
two names in one file.

The report gives each study a folder and each dataset its figures, named after them; these two
functions are the only way such a name reaches the file system.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Any character but letters, digits, ``.``, ``_`` and ``-``.
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
#: Dots at the start: ``.`` and ``..`` name folders, and a leading dot hides a file.
_LEADING_DOTS = re.compile(r"^\.+")


def file_name(name: str) -> str:
    """``name`` as one file or folder name, inside the folder it is written to.

    Letters, digits, ``.``, ``_`` and ``-`` are kept; any other character, and every leading
    dot, becomes ``_``. So the result holds no path separator, is never ``.`` or ``..``, nor
    a hidden file; an empty name is ``_``. Different names can give the same file name:
    :func:`file_names` refuses them.

    Parameters
    ----------
    name : str

    Returns
    -------
    str

    Examples
    --------
    >>> from faircocco_plugins.bench._file_names import file_name
    >>> file_name("kdd census"), file_name(".."), file_name("a/../b")
    ('kdd_census', '__', 'a_.._b')
    """
    safe = _UNSAFE.sub("_", name)
    return _LEADING_DOTS.sub(lambda dots: "_" * len(dots.group()), safe) or "_"


def file_names(names: Iterable[str], what: str) -> dict[str, str]:
    """The :func:`file_name` of each of ``names``, refusing two names that would share one.

    File names that differ only in case are taken for one, as file systems that ignore case
    (macOS, Windows) take them.

    Parameters
    ----------
    names : iterable of str
        The names; one given more than once is one name.
    what : str
        What they name, in the plural, for the error (``"studies"``).

    Returns
    -------
    dict of str to str
        Each name's file name.

    Raises
    ------
    ValueError
        If two names give the same file name.

    Examples
    --------
    >>> from faircocco_plugins.bench._file_names import file_names
    >>> file_names(["first", "second run"], "studies")
    {'first': 'first', 'second run': 'second_run'}
    """
    found: dict[str, str] = {}
    owners: dict[str, str] = {}
    for name in names:
        safe = file_name(name)
        owner = owners.setdefault(safe.casefold(), name)
        if owner != name:
            raise ValueError(
                f"the {what} {owner!r} and {name!r} would be written to the same file name "
                f"{safe!r} (characters other than letters, digits, '.', '_' and '-' become "
                "'_', and case is ignored); rename one of them."
            )
        found[name] = safe
    return found
