"""A lint run under hostile limits: worker counts, Ctrl-C, configuration that cannot be
read, and output that cannot be written. Each ends in a message and an exit code, never a
traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from torchcheck import config as config_module
from torchcheck.cli import main
from torchcheck.config import ConfigError
from torchcheck.lint import api
from torchcheck.lint.api import LintOptions, UsageError, lint

MISTAKE = "import torch\nx = torch.ones(3).cuda()\n"


def write_files(root: Path, count: int, text: str = MISTAKE) -> None:
    for index in range(count):
        (root / f"m{index:03d}.py").write_text(text)


# ----------------------------------------------------------------------------- --jobs


class RecordingPool(api.ProcessPoolExecutor):
    """Records the workers asked for, and starts at most two: an unbounded request must fail
    the test, not fork hundreds of processes on the machine running it."""

    started: list[int] = []

    def __init__(self, max_workers: int | None = None, **kwargs) -> None:
        RecordingPool.started.append(max_workers or 0)
        super().__init__(max_workers=min(max_workers or 1, 2), **kwargs)


@pytest.fixture
def recording_pool(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    RecordingPool.started = []
    monkeypatch.setattr(api, "ProcessPoolExecutor", RecordingPool)
    return RecordingPool.started


def test_more_jobs_than_files_starts_no_more_workers_than_files_or_cpus(tmp_path: Path, recording_pool: list[int]) -> None:
    write_files(tmp_path, 10)
    result = lint(LintOptions(paths=(tmp_path,), use_cache=False, jobs=300))
    assert len(result.diagnostics) == 10
    assert recording_pool and max(recording_pool) <= min(10, os.cpu_count() or 1)


@pytest.mark.parametrize("jobs", ["0", "-3", "100000"])
def test_a_jobs_value_out_of_range_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], jobs: str, recording_pool: list[int]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_files(tmp_path, 10)
    assert main(["lint", "--no-cache", "--jobs", jobs, "."]) == 2
    err = capsys.readouterr().err
    assert "--jobs" in err and "Traceback" not in err and "internal error" not in err
    assert recording_pool == []


def test_the_api_refuses_a_jobs_value_out_of_range(tmp_path: Path, recording_pool: list[int]) -> None:
    write_files(tmp_path, 1)
    with pytest.raises(UsageError, match="--jobs"):
        lint(LintOptions(paths=(tmp_path,), use_cache=False, jobs=-1))


# ----------------------------------------------------------------------------- Ctrl-C


def child_count(pid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[1] == str(pid):
                count += 1
    return count


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="counts worker processes through /proc")
def _default_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_linting_stops_the_workers_at_once_and_exits_130(tmp_path: Path) -> None:
    # Enough work to keep two workers busy for far longer than the time allowed to stop.
    body = "import torch\n" + "".join(f"def f{i}(x):\n    y = torch.ones(3).cuda()\n    return x.sum() + y\n" for i in range(400))
    write_files(tmp_path, 40, body)
    process = subprocess.Popen(
        [sys.executable, "-m", "torchcheck", "lint", "--no-cache", "-q", "--jobs", "2", "."],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        # A process started with Ctrl-C ignored (as by a test runner's worker) keeps ignoring
        # it, as a program should: give torchcheck a terminal's default.
        preexec_fn=_default_ctrl_c,
    )
    try:
        deadline = time.monotonic() + 30
        while child_count(process.pid) < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # the workers are linting
        assert process.poll() is None, "the run ended before it could be interrupted"
        os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
        interrupted = time.monotonic()
        _, err = process.communicate(timeout=60)
        stopped_after = time.monotonic() - interrupted
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130
    assert stopped_after < 5, f"took {stopped_after:.1f} s to stop"
    assert err.decode().strip() == "torchcheck: interrupted"


# ----------------------------------------------------------------------------- configuration


def deeply_nested_pyproject(tmp_path: Path, table: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(f"[{table}]\nx = " + "[" * 3000 + "]" * 3000 + "\n")
    return path


@pytest.mark.parametrize("table", ["tool.other", "tool.torchcheck"])
def test_a_pyproject_nested_too_deeply_to_read_is_a_config_error_naming_it(tmp_path: Path, table: str) -> None:
    path = deeply_nested_pyproject(tmp_path, table)
    with pytest.raises(ConfigError) as caught:
        config_module.discover(tmp_path)
    message = str(caught.value)
    assert str(path) in message and "TOML" in message and "nested" in message


def test_the_command_line_reports_a_pyproject_nested_too_deeply_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    deeply_nested_pyproject(tmp_path, "tool.other")
    write_files(tmp_path, 1)
    assert main(["lint", "--no-cache", "."]) == 2
    err = capsys.readouterr().err
    assert err.startswith("torchcheck: error: ") and "pyproject.toml" in err and "internal error" not in err


# ----------------------------------------------------------------------------- output


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_files(tmp_path, 1)
    return tmp_path


OUTPUT_FILES = {"in a missing directory": "missing/dir/report.txt", "onto a directory": "."}
if Path("/dev/full").exists():
    OUTPUT_FILES["on a full device"] = "/dev/full"


@pytest.mark.parametrize("output_file", OUTPUT_FILES.values(), ids=OUTPUT_FILES.keys())
def test_an_output_file_that_cannot_be_written_is_a_usage_error(project: Path, capsys, output_file: str) -> None:
    assert main(["lint", "--no-cache", "--output-file", output_file, "."]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"torchcheck: error: cannot write the findings to {output_file}: ")
    assert "internal error" not in err and "Traceback" not in err


def lint_command(project: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "torchcheck", "lint", "--no-cache", *args, str(project)]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [(), ("--show-files",), ("--diff",)], ids=["findings", "show-files", "diff"])
def test_standard_output_on_a_full_device_is_an_error_with_a_message(project: Path, args: tuple[str, ...]) -> None:
    with open("/dev/full", "w") as full:
        completed = subprocess.run(lint_command(project, *args), stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert completed.returncode == 2
    assert completed.stderr.startswith("torchcheck: error: cannot write to standard output: "), completed.stderr
    assert "Traceback" not in completed.stderr


def test_a_closed_standard_output_is_an_error_with_a_message(project: Path) -> None:
    completed = subprocess.run(
        lint_command(project), stderr=subprocess.PIPE, text=True, timeout=60, preexec_fn=lambda: os.close(1)
    )
    assert completed.returncode == 2
    assert completed.stderr.startswith("torchcheck: error: cannot write to standard output: "), completed.stderr


def test_a_reader_that_goes_away_ends_the_run_quietly(project: Path) -> None:
    process = subprocess.Popen(lint_command(project), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()  # as `torchcheck lint | head -0`
    _, err = process.communicate(timeout=60)
    assert err == b"" and process.returncode in (0, 1)
