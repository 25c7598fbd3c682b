"""Writing fixed files safely: all or nothing, same permissions, never through a read-only file.

A fix is written to a temporary file beside the target, flushed to disk, given the target's
permission bits, and renamed over it, so an interrupted run leaves either the old file or the
new one, never half of each. A symbolic link keeps pointing where it pointed: its target is
replaced. (Whether the target lies inside the linted tree is the caller's question; see
``files.resolves_inside``.)
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path

READ_ONLY = "{path}: not written: file is read-only"
CANNOT_RESOLVE = "{path}: not written: cannot follow the symbolic link ({reason})"
CANNOT_WRITE = "{path}: not written: {reason}"

_ANY_WRITE_BIT = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
_LONE_NEWLINE = re.compile(rb"(?<!\r)\n")


class WriteError(OSError):
    """A file could not be written; the file on disk is unchanged and the message says why."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path

    def __str__(self) -> str:
        return str(self.args[0])


def _target(path: Path) -> Path:
    """The file a write to ``path`` must replace: the final target when ``path`` is a symbolic link."""
    try:
        return Path(path).resolve(strict=True) if os.path.islink(path) else Path(path)
    except (OSError, RuntimeError) as error:  # RuntimeError: a symbolic link loop on Python < 3.13
        reason = error.strerror if isinstance(error, OSError) and error.strerror else "symbolic link loop"
        raise WriteError(CANNOT_RESOLVE.format(path=path, reason=reason), Path(path)) from error


def _is_read_only(path: Path, status: os.stat_result) -> bool:
    """Not writable by us, or (for root, whom ``os.access`` never refuses) writable by nobody."""
    return not os.access(path, os.W_OK) or not status.st_mode & _ANY_WRITE_BIT


def _existing_status(path: Path, shown: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise WriteError(CANNOT_WRITE.format(path=shown, reason=error.strerror or error), shown) from error


def _new_file_mode() -> int:
    """What ``open()`` would give a new file: 0o666 minus the umask (read without changing it for long)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: Path, data: bytes) -> None:
    """Replace the contents of ``path`` by ``data`` in one step, keeping its permission bits.

    Raises :class:`WriteError` (an ``OSError``) with a message naming ``path`` when the file is
    read-only, a link cannot be followed, or any step fails; the original is then untouched
    and no temporary file is left behind.
    """
    path = Path(path)
    target = _target(path)
    status = _existing_status(target, path)
    if status is not None and _is_read_only(target, status):
        raise WriteError(READ_ONLY.format(path=path), path)
    mode = stat.S_IMODE(status.st_mode) if status is not None else _new_file_mode()
    try:
        descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".torchcheck-tmp")
    except OSError as error:
        raise WriteError(CANNOT_WRITE.format(path=path, reason=error.strerror or error), path) from error
    try:
        _fill(descriptor, data, mode, status)
        os.replace(temporary, target)
    except BaseException as error:
        _remove_quietly(temporary)
        if isinstance(error, OSError):
            raise WriteError(CANNOT_WRITE.format(path=path, reason=error.strerror or error), path) from error
        raise
    _sync_directory(target.parent)


def _fill(descriptor: int, data: bytes, mode: int, status: os.stat_result | None) -> None:
    """Write, flush and fsync ``data``, then give the file the original's mode (and owner, when allowed)."""
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
        os.fchmod(handle.fileno(), mode)
        if status is not None and (status.st_uid, status.st_gid) != (os.geteuid(), os.getegid()):
            try:
                os.fchown(handle.fileno(), status.st_uid, status.st_gid)
            except PermissionError:
                pass  # only root may give a file away; the contents matter more than the owner


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable; not every file system lets a directory be opened or synced."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def uses_crlf(data: bytes) -> bool:
    """Whether every line of ``data`` ends with ``\\r\\n`` (and there is at least one line break)."""
    newlines = data.count(b"\n")
    return newlines > 0 and data.count(b"\r\n") == newlines


def keep_line_endings(original: bytes, fixed: bytes) -> bytes:
    """``fixed`` with the line endings of ``original``: lines a fix inserted into a CRLF file get CRLF too."""
    if not uses_crlf(original):
        return fixed
    return _LONE_NEWLINE.sub(b"\r\n", fixed)
