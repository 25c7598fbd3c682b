"""Atomic writes keep permissions, never leave half a file, and refuse read-only files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from torchcheck.lint.writing import (
    FileChangedError,
    WriteError,
    keep_line_endings,
    uses_crlf,
    write_atomically,
)

ORIGINAL = b"import torch\nx = torch.ones(3).cuda()\n"
FIXED = b"import torch\nx = torch.ones(3, device='cuda')\n"


def original_file(directory: Path, mode: int = 0o644) -> Path:
    path = directory / "model.py"
    path.write_bytes(ORIGINAL)
    path.chmod(mode)
    return path


def leftovers(directory: Path) -> list[str]:
    return sorted(name for name in os.listdir(directory) if name != "model.py" and not name.startswith("link"))


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600])
def test_the_new_contents_keep_the_original_permission_bits(tmp_path: Path, mode: int) -> None:
    path = original_file(tmp_path, mode)
    write_atomically(path, FIXED)
    assert path.read_bytes() == FIXED
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert leftovers(tmp_path) == []


def test_a_failed_rename_leaves_the_original_byte_identical_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = original_file(tmp_path)

    def refuse(source: str, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(WriteError) as caught:
        write_atomically(path, FIXED)
    assert str(caught.value) == f"{path}: not written: No space left on device"
    assert isinstance(caught.value, OSError) and caught.value.path == path
    assert path.read_bytes() == ORIGINAL and leftovers(tmp_path) == []


def test_a_failure_while_writing_the_data_leaves_nothing_behind(tmp_path: Path) -> None:
    path = original_file(tmp_path)
    with pytest.raises(TypeError):
        write_atomically(path, "not bytes")  # type: ignore[arg-type]
    assert path.read_bytes() == ORIGINAL and leftovers(tmp_path) == []


def test_a_full_disk_during_fsync_is_a_write_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = original_file(tmp_path)

    def full(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(WriteError, match="No space left on device"):
        write_atomically(path, FIXED)
    assert path.read_bytes() == ORIGINAL and leftovers(tmp_path) == []


def test_a_read_only_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = original_file(tmp_path, 0o444)
    with pytest.raises(WriteError) as caught:
        write_atomically(path, FIXED)
    assert str(caught.value) == f"{path}: not written: file is read-only"
    assert path.read_bytes() == ORIGINAL and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert leftovers(tmp_path) == []


def test_writing_through_a_symlink_replaces_the_target_and_keeps_the_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = original_file(tmp_path / "real", 0o640)
    link = tmp_path / "link.py"
    link.symlink_to(Path("real") / "model.py")
    write_atomically(link, FIXED)
    assert link.is_symlink() and os.readlink(link) == "real/model.py"
    assert target.read_bytes() == FIXED and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert os.listdir(tmp_path / "real") == ["model.py"]


def test_a_symlink_loop_is_a_write_error(tmp_path: Path) -> None:
    link = tmp_path / "link.py"
    link.symlink_to(link)
    with pytest.raises(WriteError, match="cannot follow the symbolic link"):
        write_atomically(link, FIXED)
    assert link.is_symlink()


def test_a_directory_that_cannot_take_a_temporary_file_is_a_write_error(tmp_path: Path) -> None:
    with pytest.raises(WriteError, match=r"not written: "):
        write_atomically(tmp_path / "missing-directory" / "model.py", FIXED)


def test_crlf_files_get_crlf_in_lines_a_fix_inserted() -> None:
    original = b"import torch\r\nx = 1\r\n"
    fixed = b"import torch\r\nimport warnings\nx = 1\r\n"
    assert keep_line_endings(original, fixed) == b"import torch\r\nimport warnings\r\nx = 1\r\n"


def test_files_with_lf_or_mixed_endings_are_left_as_the_fix_made_them() -> None:
    fixed = b"a\nb\r\nc\n"
    assert keep_line_endings(b"a\nc\n", fixed) == fixed
    assert keep_line_endings(b"a\r\nb\nc\r\n", fixed) == fixed
    assert keep_line_endings(b"no line break", fixed) == fixed


def test_keep_line_endings_is_idempotent_and_does_not_double_carriage_returns() -> None:
    once = keep_line_endings(b"a\r\n", b"a\r\nb\nc")
    assert once == b"a\r\nb\r\nc" and keep_line_endings(b"a\r\n", once) == once


def test_uses_crlf_needs_every_line_break_to_be_crlf() -> None:
    assert uses_crlf(b"a\r\nb\r\n") and uses_crlf(b"a\r\nb")
    assert not uses_crlf(b"a\r\nb\n") and not uses_crlf(b"") and not uses_crlf(b"a\rb")


# ----------------------------------------------------------------------------- a file changed since it was read


def test_a_file_changed_since_it_was_read_is_not_replaced(tmp_path: Path) -> None:
    path = original_file(tmp_path)
    path.write_bytes(ORIGINAL + b"user_edit = 1\n")
    with pytest.raises(FileChangedError) as caught:
        write_atomically(path, FIXED, expected=ORIGINAL)
    assert str(caught.value) == f"{path}: not written: the file changed since it was read, so it was left as it is"
    assert isinstance(caught.value, WriteError) and caught.value.path == path
    assert path.read_bytes() == ORIGINAL + b"user_edit = 1\n" and leftovers(tmp_path) == []


def test_an_edit_saved_while_the_fix_is_being_written_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = original_file(tmp_path)
    real_fsync = os.fsync

    def user_saves_meanwhile(descriptor: int) -> None:
        real_fsync(descriptor)
        path.write_bytes(ORIGINAL + b"user_edit = 1\n")

    monkeypatch.setattr(os, "fsync", user_saves_meanwhile)
    with pytest.raises(FileChangedError):
        write_atomically(path, FIXED, expected=ORIGINAL)
    assert path.read_bytes() == ORIGINAL + b"user_edit = 1\n" and leftovers(tmp_path) == []


def test_a_file_deleted_since_it_was_read_is_not_created_again(tmp_path: Path) -> None:
    path = original_file(tmp_path)
    path.unlink()
    with pytest.raises(FileChangedError):
        write_atomically(path, FIXED, expected=ORIGINAL)
    assert not path.exists() and leftovers(tmp_path) == []


def test_an_unchanged_file_is_replaced(tmp_path: Path) -> None:
    path = original_file(tmp_path)
    write_atomically(path, FIXED, expected=ORIGINAL)
    assert path.read_bytes() == FIXED and leftovers(tmp_path) == []


# ----------------------------------------------------------------------------- interrupted writes


def _interrupting_once(monkeypatch: pytest.MonkeyPatch, name: str, error: BaseException, *, after: bool) -> None:
    """Make ``os.<name>`` raise ``error`` on its first call for a temporary file, before or after doing its work."""
    real = getattr(os, name)
    calls = []

    def interrupted(*args: object, **kwargs: object) -> object:
        if calls or not any(str(arg).endswith(".torchcheck-tmp") for arg in args):
            return real(*args, **kwargs)
        calls.append(args)
        if not after:
            raise error
        real(*args, **kwargs)
        raise error

    monkeypatch.setattr(os, name, interrupted)


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(1)], ids=["ctrl-c", "exit"])
def test_an_interrupt_just_after_the_temporary_file_is_created_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    path = original_file(tmp_path)
    _interrupting_once(monkeypatch, "open", error, after=True)
    with pytest.raises(type(error)):
        write_atomically(path, FIXED)
    assert path.read_bytes() == ORIGINAL and leftovers(tmp_path) == []


def test_an_interrupt_during_the_rename_leaves_one_whole_file_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = original_file(tmp_path)
    _interrupting_once(monkeypatch, "replace", KeyboardInterrupt(), after=False)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, FIXED)
    assert path.read_bytes() == ORIGINAL and leftovers(tmp_path) == []
    _interrupting_once(monkeypatch, "replace", KeyboardInterrupt(), after=True)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, FIXED)
    assert path.read_bytes() == FIXED and leftovers(tmp_path) == []
