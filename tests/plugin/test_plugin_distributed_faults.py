"""@pytest.mark.distributed under faults: a rank that fails or dies first, a temporary
directory that a URL would have to quote, and processes that try to outlive the test.

Inner runs are in-process (pytester's runpytest), so ranks are forks and start in
milliseconds; the supervisor that is sent signals is a fork of this process that runs
the same supervision a pytest process does.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# Imported here, once: modules first imported during an in-process inner run are dropped
# afterwards, and torch's cannot be imported twice (see conftest.py).
import torch
import torch.distributed as dist
import torch.nn.parallel  # noqa: F401

import torchcheck.plugin.distributed as distributed_plugin
from torchcheck.checks import _rank_runner as runner

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="processes are found through /proc")

TOKEN_VARIABLE = "TORCHCHECK_TEST_FAULTS_TOKEN"
#: A directory name that a file:// URL must percent-encode.
AWKWARD_DIRECTORY = "odd dir 100% é"

RANK_1_RAISES_BEFORE_THE_COLLECTIVE = """
import pytest, torch, torch.distributed as dist

@pytest.mark.distributed(world_size=2, timeout=30)
def test_rank_1_fails_first(rank):
    if rank == 1:
        raise ValueError("rank 1 fails")
    dist.all_reduce(torch.ones(1))
"""

RANK_1_DIES_IN_THE_COLLECTIVE = """
import ctypes, os, pytest, torch.distributed as dist

@pytest.mark.distributed(world_size=2, timeout=30)
def test_rank_1_dies(rank):
    if rank == 1:
        {death}
    dist.barrier()
"""

ALL_REDUCE = """
import pytest, torch, torch.distributed as dist

@pytest.mark.distributed(world_size=2, timeout=20)
def test_all_reduce(rank):
    total = torch.ones(1)
    dist.all_reduce(total)
    assert total.item() == 2
"""


# ------------------------------------------------------------------- helpers


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A marker in the environment of every process started from here on; whatever
    carries it is killed after the test, so a failing test leaves nothing behind."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(TOKEN_VARIABLE, value)
    yield value
    for pid in _processes_with(value):
        os.kill(pid, signal.SIGKILL)


def _processes_with(token: str) -> list[int]:
    """Live processes whose environment carries ``token`` (zombies carry none)."""
    marker = f"{TOKEN_VARIABLE}={token}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if marker in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                found.append(int(entry))
        except OSError:
            continue
    return found


def _sleepers(token: str) -> list[int]:
    """The ``sleep`` processes carrying ``token``: what the ranks below start."""
    found = []
    for pid in _processes_with(token):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"sleep\0"):
                found.append(pid)
        except OSError:
            continue
    return found


def _wait_until(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _start_sleepers_and_hang(rank: int) -> None:
    subprocess.Popen(["sleep", "600"])  # in the rank's session
    subprocess.Popen(["sleep", "600"], start_new_session=True)  # a daemon that left it
    time.sleep(600)


def _start_a_daemon(rank: int) -> int:
    return subprocess.Popen(["sleep", "600"], start_new_session=True).pid


def _supervisor_of_hanging_ranks() -> int:
    """A fork of this process supervising ranks that start processes and hang, as the
    pytest process does; SIGTERM and SIGKILL must not leave any of them behind."""
    pid = os.fork()
    if pid == 0:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            runner.run_forked(_start_sleepers_and_hang, 2, timeout=120)
        finally:
            os._exit(0)
    return pid


# ------------------------------------------------------------ the first failure


def test_after_a_rank_fails_the_others_are_stopped_after_the_grace_period_not_the_timeout(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failing test is a rank's reports, not an exception out of the rank: the failure
    must still start the grace period of the rank that waits in its collective."""
    monkeypatch.setattr(runner, "GRACE_SECONDS", 1.0)
    pytester.makepyfile(RANK_1_RAISES_BEFORE_THE_COLLECTIVE)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "failed on rank 1 of 2: ValueError: rank 1 fails",
            "stopped 1 s after rank 1 failed: rank 0 in all_reduce, *",
            "rank 0's Python stack when it was stopped:",
        ]
    )


@pytest.mark.parametrize(
    ("death", "ended"),
    [("os._exit(3)", "exited with code 3"), ("ctypes.string_at(0)", "was killed by SIGSEGV")],
    ids=["exits", "segfaults"],
)
def test_a_rank_that_dies_heads_the_report_not_the_rank_whose_collective_then_failed(
    pytester: pytest.Pytester, death: str, ended: str
) -> None:
    pytester.makepyfile(RANK_1_DIES_IN_THE_COLLECTIVE.format(death=death))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    headline = f"rank 1 of 2 {ended} before reporting; after that rank 0 failed: *"
    result.stdout.fnmatch_lines([headline, "--- rank 0 of 2: failed"])
    assert "failed on rank 0" not in result.stdout.str()

def test_a_collective_that_lost_its_peer_follows_the_peers_death_even_when_it_was_seen_first() -> None:
    # A dead rank's sockets close before its exit can be seen, so on a busy machine the
    # survivor's "Connection closed by peer" may be polled first; the death is still the cause.
    lost_peer = runner.RankError("RuntimeError", "[pair.cc:534] Connection closed by peer [127.0.0.1]:41263", "", False)
    outcomes = (
        runner.RankOutcome(0, reported=True, error=lost_peer),
        runner.RankOutcome(1, reported=False, ended="exited with code 3"),
        runner.RankOutcome(2, reported=True, error=runner.RankError("ValueError", "bad shape", "", False)),
    )
    assert runner._causes_first([0, 1, 2], outcomes) == [1, 2, 0]
    assert runner._causes_first([2, 0], outcomes) == [2, 0]



# ------------------------------------------------------ temporary directories


@pytest.fixture
def awkward_tempdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Temporary files, the ranks' store included, go to a directory whose name a
    file:// URL percent-encodes (and torch's file:// rendezvous does not decode)."""
    directory = tmp_path / AWKWARD_DIRECTORY
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    return directory


def _all_reduce(rank: int) -> float:
    total = torch.ones(1)
    dist.all_reduce(total)
    return total.item()


@pytest.mark.usefixtures("awkward_tempdir")
def test_forked_ranks_meet_in_a_temporary_directory_with_a_space_a_percent_and_an_accent() -> None:
    result = runner.run_forked(_all_reduce, 2, timeout=15)
    assert not result.failed, runner.describe_stop(result)
    assert [outcome.returned for outcome in result.outcomes] == [2.0, 2.0]


@pytest.mark.usefixtures("awkward_tempdir")
def test_fresh_rank_processes_meet_in_a_temporary_directory_with_a_space_a_percent_and_an_accent(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ranks of a cuda run (fresh pytest processes) find the store in their
    environment; shown on CPU."""
    monkeypatch.setattr(distributed_plugin, "forks_ranks", lambda plan: False)
    pytester.makepyfile(ALL_REDUCE)
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)


# ------------------------------------------------------------------- orphans


def test_a_process_a_rank_started_in_a_new_session_does_not_outlive_the_ranks(token: str) -> None:
    result = runner.run_forked(_start_a_daemon, 2, timeout=30)
    assert not result.failed, runner.describe_stop(result)
    daemons = [outcome.returned for outcome in result.outcomes]
    assert _wait_until(lambda: not set(daemons) & set(_sleepers(token)), 5), _sleepers(token)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["terminated", "killed"])
def test_nothing_a_rank_started_outlives_a_supervisor_that_is_terminated_or_killed(
    token: str, stop: signal.Signals
) -> None:
    supervisor = _supervisor_of_hanging_ranks()
    started = _wait_until(lambda: len(_sleepers(token)) == 4, 60)
    os.kill(supervisor, stop if started else signal.SIGKILL)
    os.waitpid(supervisor, 0)
    assert started, "the ranks never started their processes"
    assert _wait_until(lambda: not _sleepers(token), 10), f"left behind: {_sleepers(token)}"
