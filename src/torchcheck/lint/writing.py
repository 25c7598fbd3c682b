"""Writing fixed files safely: all or nothing, same permissions, never through a read-only file.

A fix is written to a temporary file beside the target, flushed to disk, given the target's
permission bits, and renamed over it, so an interrupted run leaves either the old file or the
new one, never half of each. A symbolic link keeps pointing where it pointed: its target is
replaced. (Whether the target lies inside the linted tree is the caller's question; see
``files.resolves_inside``.)

A fix is made from the bytes read at the start of a run and written at its end; an editor, a
formatter or ``git checkout`` may save the file in between. Just before the rename the file
is read again, and unless it still holds those bytes it is left alone: the user's edit wins.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

READ_ONLY = "file is read-only"
CANNOT_RESOLVE = "cannot follow the symbolic link ({reason})"
CHANGED_SINCE_READ = "the file changed since it was read, so it was left as it is"

_ANY_WRITE_BIT = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
_LONE_NEWLINE = re.compile(rb"(?<!\r)\n")
_TEMPORARY_SUFFIX = ".torchcheck-tmp"
_NAME_ATTEMPTS = 100


class WriteError(OSError):
    """A file could not be written; the file on disk is unchanged and ``reason`` says why."""

    def __init__(self, reason: str, path: Path) -> None:
        super().__init__(f"{path}: not written: {reason}")
        self.reason = reason
        self.path = path

    def __str__(self) -> str:
        return str(self.args[0])


class FileChangedError(WriteError):
    """The file no longer holds the bytes the fix was made from: an edit saved meanwhile is kept."""

    def __init__(self, path: Path) -> None:
        super().__init__(CHANGED_SINCE_READ, path)


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def _target(path: Path) -> Path:
    """The file a write to ``path`` must replace: the final target when ``path`` is a symbolic link."""
    try:
        return Path(path).resolve(strict=True) if os.path.islink(path) else Path(path)
    except (OSError, RuntimeError) as error:  # RuntimeError: a symbolic link loop on Python < 3.13
        reason = error.strerror if isinstance(error, OSError) and error.strerror else "symbolic link loop"
        raise WriteError(CANNOT_RESOLVE.format(reason=reason), Path(path)) from error


def _is_read_only(path: Path, status: os.stat_result) -> bool:
    """Not writable by us, or (for root, whom ``os.access`` never refuses) writable by nobody."""
    return not os.access(path, os.W_OK) or not status.st_mode & _ANY_WRITE_BIT


def _existing_status(path: Path, shown: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise WriteError(_reason(error), shown) from error


def _new_file_mode() -> int:
    """What ``open()`` would give a new file: 0o666 minus the umask (read without changing it for long)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: Path, data: bytes, *, expected: bytes | None = None) -> None:
    """Replace the contents of ``path`` by ``data`` in one step, keeping its permission bits.

    With ``expected`` (the bytes the new contents were made from), the file is replaced only
    if it still holds exactly those bytes, checked just before the rename; otherwise
    :class:`FileChangedError` is raised and an edit saved since the file was read is kept.

    Raises :class:`WriteError` (an ``OSError``) with a message naming ``path`` when the file is
    read-only, a link cannot be followed, or any step fails; the original is then untouched.
    No temporary file is left behind on any path out, an interrupt (Ctrl-C) included.
    """
    path = Path(path)
    target = _target(path)
    status = _existing_status(target, path)
    if expected is not None and status is None:
        raise FileChangedError(path)
    if status is not None and _is_read_only(target, status):
        raise WriteError(READ_ONLY, path)
    mode = stat.S_IMODE(status.st_mode) if status is not None else _new_file_mode()
    temporary = ""
    replaced = False
    try:
        # The name is known before the file exists, so however this block is left (an
        # interrupt between creating the file and returning from the call included), the
        # ``finally`` knows what to remove.
        for temporary in _temporary_names(target):
            try:
                _fill(_created(temporary), data, mode, status)
                break
            except FileExistsError:
                temporary = ""
        else:
            raise FileExistsError(errno.EEXIST, "no free name for a temporary file")
        if expected is not None and not _still_holds(target, expected):
            raise FileChangedError(path)
        os.replace(temporary, target)
        replaced = True
    except WriteError:
        raise
    except OSError as error:
        raise WriteError(_reason(error), path) from error
    finally:
        if temporary and not replaced:
            _remove_even_if_interrupted(temporary)
    _sync_directory(target.parent)


def _temporary_names(target: Path) -> Iterator[str]:
    """Hidden names beside ``target`` that no other run is likely to pick."""
    for _ in range(_NAME_ATTEMPTS):
        yield str(target.parent / f".{target.name}.{secrets.token_hex(4)}{_TEMPORARY_SUFFIX}")


def _created(name: str) -> int:
    """A new file, readable and writable by its owner only until :func:`_fill` gives it its mode."""
    return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)


def _still_holds(path: Path, expected: bytes) -> bool:
    try:
        return path.read_bytes() == expected
    except FileNotFoundError:
        return False


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


def _remove_even_if_interrupted(path: str) -> None:
    """Remove ``path``; a second Ctrl-C landing during the removal does not stop it."""
    try:
        _remove_quietly(path)
    except BaseException:
        _remove_quietly(path)
        raise


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
