"""Finding, verifying and downloading the raw files of a dataset.

A file ``<dataset>/<name>`` is looked for, in order, under an explicit ``data_dir``, under
``$FAIRCOCCO_DATA`` and under the user cache directory (``$FAIRCOCCO_CACHE``, else the platform's
user cache for ``faircocco``); the first copy found is used. When there is none, a file whose
exact bytes can be fetched is downloaded into the cache. Every file is checked against its sha256
before it is read; a successful check is remembered for the same path, size and modification time.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import tempfile
import time
import urllib.request
from importlib import resources
from pathlib import Path
from typing import Any

from ._source import DataFile

ENV_DATA = "FAIRCOCCO_DATA"
ENV_CACHE = "FAIRCOCCO_CACHE"
ENV_DOWNLOAD = "FAIRCOCCO_DOWNLOAD"
#: Seconds a download may wait on the network for each connection or read.
DOWNLOAD_TIMEOUT_S = 30.0
#: Seconds a whole download from one URL may take (the files are a few MB).
DOWNLOAD_DEADLINE_S = 300.0
_OFF = ("0", "false", "no", "off")
_CHUNK = 1 << 20

# (resolved path, size, mtime_ns) of files whose sha256 matched.
_verified: set[tuple[str, int, int]] = set()


class DatasetLoadError(ValueError):
    """The loader of a dataset raised: the message names the dataset and the loader's error.

    A :class:`ValueError`, so that the ``faircocco`` command reports it as one line; the
    loader's own exception is its ``__cause__``.

    Attributes
    ----------
    dataset : str
        The dataset's registry name.
    """

    def __init__(self, dataset: str, error: BaseException) -> None:
        self.dataset = dataset
        super().__init__(
            f"the loader of dataset {dataset!r} failed: {type(error).__name__}: {error}"
        )


class DatasetUnavailableError(FileNotFoundError, ValueError):
    """A raw file of a dataset is missing, or its content is not the expected one.

    It is a :class:`FileNotFoundError` (the expected file could not be found: a file with other
    bytes is not that file) and a :class:`ValueError` (so that the ``faircocco`` command reports it
    as a one-line error). The message names the file, says what was wrong and lists the ways to
    provide the file.

    Attributes
    ----------
    file : DataFile or None
        The file that is unavailable.
    reason : str
        ``"missing"``, ``"sha256 mismatch"`` or ``"download failed"``.

    Examples
    --------
    >>> from faircocco_plugins.datasets import DatasetUnavailableError
    >>> issubclass(DatasetUnavailableError, FileNotFoundError)
    True
    """

    def __init__(self, message: str, *, file: DataFile | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.file = file
        self.reason = reason


def cache_dir() -> Path:
    """The user cache directory: ``$FAIRCOCCO_CACHE``, else the platform's user cache."""
    override = os.environ.get(ENV_CACHE)
    if override:
        return Path(override)
    import platformdirs  # here, so that the plugin contract does not load it

    return Path(platformdirs.user_cache_dir("faircocco"))


def download_allowed(download: bool | None) -> bool:
    """``download``, or when it is ``None``, whether ``$FAIRCOCCO_DOWNLOAD`` leaves it on."""
    if download is None:
        return os.environ.get(ENV_DOWNLOAD, "1").strip().lower() not in _OFF
    if not isinstance(download, bool):
        raise TypeError(f"download={download!r} is not valid; expected True, False or None.")
    return download


def search_dirs(data_dir: str | os.PathLike[str] | None) -> list[tuple[str, Path]]:
    """The directories searched, in order, each with how it was chosen."""
    dirs: list[tuple[str, Path]] = []
    if data_dir is not None:
        if not isinstance(data_dir, str | os.PathLike):
            raise TypeError(
                f"data_dir={data_dir!r} is not valid; expected a path (str or os.PathLike)."
            )
        if not Path(data_dir).is_dir():
            problem = "is not a directory" if Path(data_dir).exists() else "does not exist"
            raise ValueError(
                f"data_dir {os.fspath(data_dir)} {problem}; pass the directory that holds the "
                "raw files as DIR/<dataset>/<file>."
            )
        dirs.append(("data_dir", Path(data_dir)))
    if os.environ.get(ENV_DATA):
        dirs.append((f"${ENV_DATA}", Path(os.environ[ENV_DATA])))
    dirs.append(("cache", cache_dir()))
    return dirs


def locate(file: DataFile, data_dir: str | os.PathLike[str] | None) -> tuple[str, Path] | None:
    """The first copy of ``file`` in the search directories, without reading it.

    Returns how its directory was chosen (``"data_dir"``, ``"$FAIRCOCCO_DATA"`` or ``"cache"``,
    as :func:`search_dirs` names them) and its path, or None when no directory has it. A
    directory that cannot be searched (no permission) is a :class:`ValueError` naming it.
    """
    for how, directory in search_dirs(data_dir):
        path = directory / file.dataset / file.name
        try:
            if path.is_file():
                return how, path
        except OSError as error:
            raise ValueError(
                f"cannot look for {file.relative_path} in {directory} ({how}): "
                f"{error.strerror or error} ({path}); make the folder readable, or name "
                "another."
            ) from None
    return None


def resolve(
    file: DataFile, data_dir: str | os.PathLike[str] | None, *, download: bool | None
) -> Path:
    """The verified local path of ``file``, downloading it into the cache where allowed.

    Raises
    ------
    DatasetUnavailableError
        If no copy is found and none can be downloaded, or the copy found has other bytes.
    """
    found = locate(file, data_dir)
    if found is not None:
        verify(found[1], file)
        return found[1]
    if file.urls and download_allowed(download):
        return _download(file, cache_dir() / file.dataset / file.name)
    raise DatasetUnavailableError(
        f"{file.relative_path} is missing: it is not in {_searched(file, data_dir)}. "
        + _ways(file)
        + " "
        + _download_note(file),
        file=file,
        reason="missing",
    )


def verify(path: Path, file: DataFile) -> None:
    """Check the sha256 of ``path`` against ``file``, once per path, size and mtime."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key in _verified:
        return
    actual = _sha256(path)
    if actual != file.sha256:
        raise DatasetUnavailableError(
            f"{path} does not have the expected content (sha256 mismatch: expected "
            f"{file.sha256}, got {actual}; size {stat.st_size} bytes, expected {file.size}). "
            "Replace it with the original file. " + _ways(file),
            file=file,
            reason="sha256 mismatch",
        )
    _verified.add(key)


@functools.cache
def manifest() -> dict[str, Any]:
    """The expected files of the paper's datasets (``files.json``, from the data manifest)."""
    text = resources.files(__package__).joinpath("files.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


def paper_file(dataset: str, name: str) -> DataFile:
    """The :class:`DataFile` of one file of one of the paper's datasets."""
    entry = manifest()[dataset]["files"][name]
    return DataFile(
        dataset=dataset,
        name=name,
        sha256=entry["sha256"],
        size=entry["bytes"],
        urls=tuple(entry["urls"]),
        origin=entry["source"],
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _download(file: DataFile, target: Path) -> Path:
    """Fetch ``file`` into ``target``; a failure leaves no partial file and no new folder."""
    created = _create_folder(file, target.parent)
    try:
        return _fetch_first(file, target)
    except BaseException:
        # an empty dataset folder in the cache would look like a copy that lost its files
        _remove_folders(created)
        raise


def _create_folder(file: DataFile, folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return those created, deepest first."""
    missing = list(itertools.takewhile(lambda path: not path.exists(), [folder, *folder.parents]))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        _remove_folders(missing)
        raise DatasetUnavailableError(
            f"{file.relative_path} is missing and cannot be downloaded: the cache directory "
            f"{folder} cannot be created ({error}). " + _ways(file),
            file=file,
            reason="download failed",
        ) from None
    return missing


def _remove_folders(folders: list[Path]) -> None:
    """Remove ``folders`` (deepest first) while they are empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except FileNotFoundError:
            continue  # never created: its creation failed
        except OSError:
            return  # not empty: another download is writing into it


def _fetch_first(file: DataFile, target: Path) -> Path:
    """Fetch ``file`` from its first URL that sends the right bytes: verified, then renamed."""
    failures: list[str] = []
    for url in file.urls:
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{file.name}.")
        try:
            with os.fdopen(handle, "wb") as out:
                digest = _fetch(url, out, limit=file.size)
            if digest != file.sha256:
                failures.append(f"{url} sent other content (sha256 {digest})")
                continue
            os.replace(temporary, target)
            return target
        except (OSError, ValueError) as error:  # URLError, timeouts and HTTP errors are OSErrors
            failures.append(f"{url}: {error}")
        finally:
            if os.path.exists(temporary):
                os.remove(temporary)
    raise DatasetUnavailableError(
        f"{file.relative_path} is missing and the download failed ({'; '.join(failures)}). "
        + _ways(file),
        file=file,
        reason="download failed",
    )


def _fetch(url: str, out: Any, *, limit: int) -> str:
    """Copy ``url`` to ``out`` and return the sha256; stop past ``limit`` bytes or the deadline."""
    digest = hashlib.sha256()
    received = 0
    deadline = time.monotonic() + DOWNLOAD_DEADLINE_S
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response:
        while chunk := response.read(_CHUNK):
            received += len(chunk)
            if received > limit:
                # A longer answer cannot be the file; stopping also bounds the time spent.
                raise ValueError(f"more than the expected {limit} bytes")
            if time.monotonic() > deadline:
                raise TimeoutError(f"not complete after {DOWNLOAD_DEADLINE_S:.0f} s")
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


def _searched(file: DataFile, data_dir: str | os.PathLike[str] | None) -> str:
    searched = [
        f"{directory / file.relative_path} ({how})" for how, directory in search_dirs(data_dir)
    ]
    if not os.environ.get(ENV_DATA):
        searched.append(f"${ENV_DATA} (not set)")
    return ", ".join(searched)


def _ways(file: DataFile) -> str:
    return (
        "Provide it in one of three ways: pass data_dir=DIR (the file at "
        f"DIR/{file.relative_path}); set the environment variable {ENV_DATA}=DIR (same layout); "
        f"or put it in the user cache at {cache_dir() / file.dataset / file.name} "
        f"(${ENV_CACHE} moves the cache)."
    )


def _download_note(file: DataFile) -> str:
    if not file.urls:
        return (
            "It is not downloaded automatically because the known copy is not the original "
            f"distribution; copy it from {file.origin or 'its source'}."
        )
    return (
        f"It can also be downloaded from {file.urls[0]} when online: downloads are off here "
        f"(download=False or ${ENV_DOWNLOAD}=0); allow them with download=True."
    )
