"""Running code on several ranks of one machine, supervised: results, failures and hangs.

The pytest plugin's ``distributed`` marker and the distributed checks start their ranks
here. :func:`run_forked` makes each rank a forked copy of the calling process, so nothing
is imported or collected again (a fresh interpreter pays seconds to import torch), and
the copy joins a process group through a ``FileStore`` in a private temporary directory:
no port is chosen, so parallel runs (pytest-xdist) cannot collide, and the store is
handed over as a path, never as a ``file://`` URL (torch does not unquote one, so a
temporary directory with a space or a non-ASCII letter would never rendezvous). CUDA
does not survive a fork once the parent has initialised it, so GPU ranks are fresh
interpreters started by :func:`run_commands` and supervised the same way; they find
their rank, the store and their result file in the environment (:func:`rank_environment`).

The checks own this module; the plugin's ``distributed`` marker
(``torchcheck.plugin.distributed``) uses it too. It imports neither pytest nor, at load,
torch.

Supervision. A rank that finishes writes its result and then keeps its process group
open until every rank has finished, so a rank that skipped a collective leaves the others
*waiting* in it (visibly) instead of failing on a closed connection. A rank that fails
says so at once (:func:`report_rank_failure`), before it finishes. When the timeout
passes, or :data:`GRACE_SECONDS` after the first rank failed (reported a failure, or
exited before reporting) while others are still running, every running rank dumps its
Python stack (``faulthandler`` on ``SIGUSR1``) and is killed with its whole process
group. The ranks' failures are kept in the order they were seen: the first is the
cause, later ones are usually its consequences.

No orphan survives. Each rank has its own session and dies with its parent
(``PR_SET_PDEATHSIG`` on Linux); the supervisor kills each rank's process group when it
returns, is interrupted, or gets ``SIGTERM``, and an ``atexit`` hook kills anything still
registered. Every rank and everything it starts carries a marker variable in its
environment, so a process that left the rank's session (``start_new_session=True``, a
daemon) is found in ``/proc`` and killed too. When the supervisor itself is killed
(``kill -9``), a small watcher process it started does the same.
"""

from __future__ import annotations

import atexit
import contextlib
import faulthandler
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, NoReturn

__all__ = [
    "GRACE_SECONDS",
    "RankError",
    "RankOutcome",
    "RanksResult",
    "describe_stop",
    "first_failure",
    "in_failure_order",
    "hold_until_released",
    "init_process_group_from_environment",
    "is_forked_rank",
    "is_supervised_rank",
    "python_stacks",
    "rank_environment",
    "register_stack_dump",
    "report_rank_failure",
    "run_commands",
    "run_forked",
    "trimmed_stack",
    "waiting_in",
    "write_rank_result",
]

#: How long ranks still running may go on after another rank failed before they are
#: stopped; long enough for a rank that fails the same way to say so itself.
GRACE_SECONDS = 5.0
#: A process group's own timeout is the supervisor's plus this margin, so a hang is
#: reported by the supervisor with every rank's stack, not by one rank's collective.
PROCESS_GROUP_MARGIN_SECONDS = 60.0
_POLL_SECONDS = 0.01
_STACK_DUMP_WAIT_SECONDS = 2.0
_RELEASE_WAIT_SECONDS = 5.0

_WATCHER_POLL_SECONDS = 0.05

# Environment of a rank. RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE are torchrun's;
# the TORCHCHECK_ ones tell a rank that a torchcheck supervisor started it.
STORE_FILE_ENV = "TORCHCHECK_STORE_FILE"
RESULT_FILE_ENV = "TORCHCHECK_RANK_RESULT"
FAILURE_FILE_ENV = "TORCHCHECK_RANK_FAILED"
STACK_FILE_ENV = "TORCHCHECK_RANK_STACK"
RELEASE_FD_ENV = "TORCHCHECK_RANK_RELEASE_FD"
#: Set in every rank and inherited by everything it starts: one value per run of ranks,
#: so the processes of a run can be found however they detached from the rank.
RANKS_TAG_ENV = "TORCHCHECK_RANKS_TAG"

_PR_SET_PDEATHSIG = 1
_DUMP_SIGNAL = getattr(signal, "SIGUSR1", None)

_NO_FORK = (
    "starting ranks as forks of this process needs os.fork, which this platform lacks; "
    "run it inside a process group instead (a test marked @pytest.mark.distributed, or "
    "under torchrun)"
)
_NO_DISTRIBUTED = "this PyTorch build has no torch.distributed (torch.distributed.is_available() is False)"
_TIMED_OUT = "timed out after {timeout:g} s"
_STOPPED_AFTER_FAILURE = "stopped {grace:g} s after rank {rank} failed"
_RANK_FINISHED = "rank {rank}: finished"
_RANK_RAISED = "rank {rank}: raised {type_name}: {message}"
_RANK_WAITING = "rank {rank}: still running, waiting in {where}"
_RANK_RUNNING = "rank {rank}: still running"
_RANK_ENDED = "rank {rank}: {ended} before reporting"
_STACK_HEADER = "rank {rank}'s Python stack when it was stopped:"
_CRASH_HEADER = "rank {rank}'s Python stack when it crashed:"
_NO_STACK = "rank {rank} did not dump its stack (it was busy outside Python or already gone)"
_NOT_ALL_FINISHED = "not every rank finished"
_TRACEBACK_HEADER = "rank {rank} raised:"
_OUTPUT_HEADER = "rank {rank}'s output (last {lines} lines):"
_OUTPUT_LINES = 40

# What gloo and NCCL raise in a rank whose peer went away (crashed, killed, exited).
_LOST_PEER = re.compile(
    r"connection closed by peer|connection reset by peer|remote worker|remote process exited", re.IGNORECASE
)
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+) in (?P<function>\S+)')
_TORCH_PACKAGE = re.compile(r"[/\\]torch[/\\]")
_RUNNER_FRAME = re.compile(r"[/\\]torchcheck[/\\](checks[/\\]_rank_runner|plugin[/\\]distributed)\.py$")
_HARNESS_FRAME = re.compile(r"[/\\](_pytest|pluggy)[/\\]")
_DISTRIBUTED_PACKAGES = re.compile(r"[/\\]torch[/\\](distributed|nn[/\\]parallel)[/\\]")

_live_ranks: dict[int, Callable[[], None]] = {}  # pid -> kill it (and its group), reap it
_live_tags: set[str] = set()  # the tags of the runs under way
_atexit_registered = False
_forked_rank = False  # set in a rank that run_forked started: a CPU rank, CUDA is off limits
_failure_file: Path | None = None  # in a forked rank: where report_rank_failure writes
_sigterm_before: Any = None  # SIGTERM's handler before the supervisor replaced it

# Python warns on every fork of a process with threads (CUDA, OpenMP and pytest start
# some). Ranks run Python and gloo and never touch CUDA, as DataLoader workers forked
# from such processes do, so the warning would only repeat itself on every test.
_THREADED_FORK_WARNING = r"This process \(pid=\d+\) is multi-threaded, use of fork\(\) may lead to deadlocks"


# ------------------------------------------------------------------ outcomes


@dataclass(frozen=True)
class RankError:
    """An exception a rank raised, as text (the exception object stays in the rank)."""

    type_name: str
    message: str
    traceback: str
    is_assertion: bool  # an AssertionError (CheckFailed included): a finding, not a crash

    @classmethod
    def from_exception(cls, error: BaseException) -> RankError:
        return cls(
            type_name=type(error).__name__,
            message=str(error),
            traceback="".join(traceback.format_exception(type(error), error, error.__traceback__)),
            is_assertion=isinstance(error, AssertionError),
        )


@dataclass(frozen=True)
class RankOutcome:
    """What one rank did: returned a value, raised, or was stopped or crashed (then
    ``reported`` is false and ``stack`` holds its Python stack when one was dumped)."""

    rank: int
    reported: bool
    returned: Any = None
    error: RankError | None = None
    stack: str = ""
    ended: str = ""  # how a rank that did not report ended ("exited with code 3", ...)
    output: str = ""  # what a rank started as a command printed

    @property
    def failed(self) -> bool:
        return not self.reported or self.error is not None

    def brief(self) -> str:
        """A few words: ``rank 0 in all_reduce``, ``rank 1 finished``."""
        if self.error is not None:
            return f"rank {self.rank} raised {self.error.type_name}"
        if self.reported:
            return f"rank {self.rank} finished"
        if self.ended:
            return f"rank {self.rank} {self.ended}"
        frames = _innermost_frames(self.stack)
        return f"rank {self.rank} in {frames[0]['function']}" if frames else f"rank {self.rank} still running"

    def summary(self) -> str:
        if self.error is not None:
            first_line = self.error.message.strip().splitlines()[0] if self.error.message.strip() else ""
            return _RANK_RAISED.format(rank=self.rank, type_name=self.error.type_name, message=first_line)
        if self.reported:
            return _RANK_FINISHED.format(rank=self.rank)
        if self.ended:
            return _RANK_ENDED.format(rank=self.rank, ended=self.ended)
        where = waiting_in(self.stack)
        if where is None:
            return _RANK_RUNNING.format(rank=self.rank)
        return _RANK_WAITING.format(rank=self.rank, where=where)


@dataclass(frozen=True)
class RanksResult:
    """Every rank's outcome, why the supervisor stopped the ranks still running
    (``None`` when every rank reported), and the ranks that failed by themselves in the
    order they were seen failing (reported a failure, or exited before reporting)."""

    outcomes: tuple[RankOutcome, ...]
    stop_reason: str | None = None
    failure_order: tuple[int, ...] = ()

    @property
    def failed(self) -> bool:
        return self.stop_reason is not None or any(outcome.failed for outcome in self.outcomes)


def first_failure(result: RanksResult) -> RankOutcome | None:
    """The rank that failed first: the cause, when the others failed after it (a rank
    that dies makes the collectives of the others fail)."""
    by_rank = {outcome.rank: outcome for outcome in result.outcomes}
    return next((by_rank[rank] for rank in result.failure_order if rank in by_rank), None)


def describe_stop(result: RanksResult) -> str:
    """Why the ranks were stopped and one line per rank, then for each rank that did not
    finish normally its stack (stopped or crashed), traceback or output: the text a
    hang or a crash is reported with."""
    several_failed = len(result.failure_order) > 1
    outcomes = in_failure_order(result) if several_failed else list(result.outcomes)
    brief = ", ".join(outcome.brief() for outcome in outcomes)
    cause = f"; first to fail: rank {result.failure_order[0]}" if several_failed else ""
    lines = [f"{result.stop_reason or _NOT_ALL_FINISHED}{cause}: {brief}", ""]
    lines += [f"  {outcome.summary()}" for outcome in outcomes]
    for outcome in outcomes:
        lines += _details(outcome)
    return "\n".join(lines)


def in_failure_order(result: RanksResult) -> list[RankOutcome]:
    """The ranks' outcomes, those that failed first (the cause) first, then by rank."""
    order = {rank: position for position, rank in enumerate(result.failure_order)}
    return sorted(result.outcomes, key=lambda outcome: (order.get(outcome.rank, len(order)), outcome.rank))


def _details(outcome: RankOutcome) -> list[str]:
    if outcome.error is not None and not outcome.error.is_assertion:
        return ["", _TRACEBACK_HEADER.format(rank=outcome.rank), outcome.error.traceback.rstrip()]
    if outcome.reported:
        return []
    header = _CRASH_HEADER if outcome.ended else _STACK_HEADER
    if outcome.stack.strip():
        lines = ["", header.format(rank=outcome.rank), trimmed_stack(outcome.stack)]
    else:
        lines = ["", _NO_STACK.format(rank=outcome.rank)]
    if outcome.output.strip():
        tail = "\n".join(outcome.output.rstrip().splitlines()[-_OUTPUT_LINES:])
        lines += ["", _OUTPUT_HEADER.format(rank=outcome.rank, lines=_OUTPUT_LINES), tail]
    return lines


def waiting_in(stack: str) -> str | None:
    """Where a dumped stack is waiting: the innermost torch.distributed function (the
    collective) and the nearest caller outside torch, e.g. ``all_reduce
    (torch.distributed), called from test_sync.py:12 in test_sum``."""
    frames = _innermost_frames(stack)
    if not frames:
        return None
    inner, user = frames[0], next((f for f in frames if not _TORCH_PACKAGE.search(f["path"])), None)
    if inner is user:  # not in torch at all
        return f"{inner['function']} ({_short_path(inner['path'])}:{inner['line']})"
    package = "torch.distributed" if _DISTRIBUTED_PACKAGES.search(inner["path"]) else "torch"
    where = f"{inner['function']} ({package})"
    if user is not None:
        where += f", called from {_short_path(user['path'])}:{user['line']} in {user['function']}"
    return where


def trimmed_stack(stack: str) -> str:
    """A dumped stack without the frames that only say how the rank was started (this
    module, pytest and pluggy): what is left is the user's code and torch."""
    kept = []
    skipping = False
    for line in stack.rstrip().splitlines():
        match = _FRAME.match(line)
        if match is None:
            skipping = False
            kept.append(line)
        elif _RUNNER_FRAME.search(match["path"]):
            skipping = True  # this frame and its callers start the rank
        elif not skipping and not _HARNESS_FRAME.search(match["path"]):
            kept.append(line)
    return "\n".join(kept)


def python_stacks() -> str:
    """Every other thread's Python stack, the main thread first, in faulthandler's
    format (what :func:`waiting_in` and :func:`trimmed_stack` read)."""
    current, main = threading.get_ident(), threading.main_thread().ident
    frames = sorted(sys._current_frames().items(), key=lambda item: item[0] != main)
    blocks = []
    for ident, frame in frames:
        if ident == current:
            continue
        lines = [f"Thread 0x{ident:016x} (most recent call first):"]
        for entry in reversed(traceback.extract_stack(frame)):
            lines.append(f'  File "{entry.filename}", line {entry.lineno} in {entry.name}')
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _innermost_frames(stack: str) -> list[dict[str, str]]:
    """The interrupted thread's frames, most recent first, starting at the innermost
    torch.distributed frame (else the innermost torch frame, else the innermost one)."""
    frames = [match.groupdict() for line in _main_thread(stack) if (match := _FRAME.match(line))]
    for pattern in (_DISTRIBUTED_PACKAGES, _TORCH_PACKAGE):
        for index, frame in enumerate(frames):
            if pattern.search(frame["path"]):
                return frames[index:]
    return frames


def _main_thread(stack: str) -> list[str]:
    """The lines of the thread that was interrupted (faulthandler's "Current thread"),
    else of the first thread in the dump."""
    blocks: list[list[str]] = []
    for line in stack.splitlines():
        if line.startswith(("Current thread", "Thread ")):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
    if not blocks:
        return stack.splitlines()
    return next((block for block in blocks if block[0].startswith("Current thread")), blocks[0])


def _short_path(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if relative.startswith("..") else relative


# -------------------------------------------------------------- forked ranks


def run_forked(
    fn: Callable[[int], Any],
    world_size: int,
    *,
    backend: str = "gloo",
    timeout: float,
    grace: float = GRACE_SECONDS,
) -> RanksResult:
    """Run ``fn(rank)`` on ``world_size`` forked copies of this process, each with the
    default process group initialised (``backend``, a ``FileStore`` in a temporary
    directory), and return what each rank returned or raised. ``fn``'s return value
    must pickle. The ranks are stopped, with their stacks, when ``timeout`` seconds have
    passed or ``grace`` seconds after one rank failed while others still run."""
    if not hasattr(os, "fork"):
        raise RuntimeError(_NO_FORK)
    _import_before_forking()
    with _ranks_workspace() as (files, release):
        ranks: list[_Rank] = []
        try:
            for rank in range(world_size):
                ranks.append(_fork_rank(fn, rank, world_size, backend, timeout, files, release))
            release.close_read_end()
            return _supervise(ranks, files, timeout, grace, release)
        finally:
            _finish_all(ranks)


@contextlib.contextmanager
def _ranks_workspace() -> Iterator[tuple[_RankFiles, _ReleasePipe]]:
    """A private directory for the ranks' files, the pipe that releases them, and for
    the whole run: ``SIGTERM`` kills the ranks, and on the way out every process that
    carries this run's tag is killed (those that left a rank's session included)."""
    with tempfile.TemporaryDirectory(prefix="torchcheck-ranks-") as workdir, _ReleasePipe() as release:
        files = _RankFiles(Path(workdir), tag=uuid.uuid4().hex)
        _register_tag(files.tag)
        try:
            with _sigterm_kills_ranks():
                yield files, release
        finally:
            _kill_tagged(files.tag)
            _unregister_tag(files.tag)


def _import_before_forking() -> None:
    """Import in the parent what every rank would otherwise import by itself: the
    process-group machinery, and torch._dynamo, which DistributedDataParallel imports
    on first use (seconds, paid once here instead of once per rank per test)."""
    import torch.distributed as dist

    if not dist.is_available():
        raise RuntimeError(_NO_DISTRIBUTED)
    import torch._dynamo  # noqa: F401
    import torch.nn.parallel  # noqa: F401


@dataclass(frozen=True)
class _RankFiles:
    """Where ranks write their results, failures and stacks, the process group's store,
    and the tag every process of this run carries in its environment."""

    workdir: Path
    tag: str

    def result(self, rank: int) -> Path:
        return self.workdir / f"rank{rank}.result"

    def failure(self, rank: int) -> Path:
        return self.workdir / f"rank{rank}.failed"

    def stack(self, rank: int) -> Path:
        return self.workdir / f"rank{rank}.stack"

    def output(self, rank: int) -> Path:
        return self.workdir / f"rank{rank}.output"

    @property
    def store(self) -> Path:
        return self.workdir / "store"


class _ReleasePipe:
    """Ranks that finished block reading this pipe; closing the write end (only the
    supervisor holds it) releases them all at once."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self._open = {self.read_fd, self.write_fd}

    def __enter__(self) -> _ReleasePipe:
        return self

    def __exit__(self, *_: object) -> None:
        for fd in list(self._open):
            self._close(fd)

    def close_read_end(self) -> None:
        self._close(self.read_fd)

    def release(self) -> None:
        self._close(self.write_fd)

    def _close(self, fd: int) -> None:
        if fd in self._open:
            self._open.discard(fd)
            os.close(fd)


class _Rank:
    """A rank process seen from the supervisor. Its exit is noticed without reaping it,
    so its process group can still be killed safely (a reaped pid may be reused)."""

    def __init__(self, rank: int, pid: int, reap: Callable[[], int]) -> None:
        self.rank = rank
        self.pid = pid
        self.ended: str | None = None  # how it ended, once reaped
        self._reap = reap
        self._exited = False
        _register_live(self)
        _watching().watch_group(pid)

    def is_running(self) -> bool:
        if not self._exited:
            self._exited = _has_exited(self.pid)
        return not self._exited

    def finish(self) -> None:
        """Kill whatever is left of the rank's session, then reap it."""
        if self.ended is not None:
            return
        _kill_group(self.pid)
        self.ended = _describe_returncode(self._reap())
        _live_ranks.pop(self.pid, None)
        if _watcher is not None:
            _watcher.unwatch_group(self.pid)


def _has_exited(pid: int) -> bool:
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _fork_rank(
    fn: Callable[[int], Any],
    rank: int,
    world_size: int,
    backend: str,
    timeout: float,
    files: _RankFiles,
    release: _ReleasePipe,
) -> _Rank:
    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_THREADED_FORK_WARNING, category=DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        os.close(release.write_fd)
        _rank_main(fn, rank, world_size, backend, timeout, files, release.read_fd, parent)
    return _Rank(rank, pid, lambda: os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))


def _rank_main(
    fn: Callable[[int], Any],
    rank: int,
    world_size: int,
    backend: str,
    timeout: float,
    files: _RankFiles,
    release_fd: int,
    parent: int,
) -> NoReturn:
    """The body of a forked rank; never returns (``os._exit`` skips the parent's
    atexit handlers and buffered output, which belong to the parent)."""
    global _forked_rank, _failure_file
    _forked_rank = True
    status = 1
    try:
        _leave_parent_session(parent)
        _forget_parents_supervision()
        _failure_file = files.failure(rank)
        register_stack_dump(files.stack(rank))
        os.environ.update(_torchrun_variables(rank, world_size))
        os.environ[RANKS_TAG_ENV] = files.tag
        import torch

        # GNU OpenMP's thread pool does not survive a fork: a rank forked from a process
        # that ran a parallel region hangs in its own first one. One intra-op thread per
        # rank, as DataLoader workers do, never enters OpenMP.
        torch.set_num_threads(1)
        _init_process_group(backend, files.store, rank, world_size, timeout)
        write_rank_result(files.result(rank), _call(fn, rank))
        hold_until_released(release_fd)
        import torch.distributed as dist

        dist.destroy_process_group()
        status = 0
    except BaseException:  # noqa: BLE001 - whatever happens, the rank must end here
        traceback.print_exc()
    finally:
        os._exit(status)


def _call(fn: Callable[[int], Any], rank: int) -> tuple[str, Any]:
    try:
        return ("returned", fn(rank))
    except BaseException as error:  # noqa: BLE001 - reported to the parent, not raised here
        report_rank_failure()
        return ("raised", RankError.from_exception(error))


def _init_process_group(backend: str, store_path: Path | str, rank: int, world_size: int, timeout: float) -> None:
    """Join the default process group through a ``FileStore`` at ``store_path``, given
    as a store rather than an ``init_method`` URL: torch reads a ``file://`` URL's path
    without unquoting it, so a directory with a space, ``%`` or ``é`` would never meet."""
    import torch.distributed as dist

    group_timeout = timedelta(seconds=timeout + PROCESS_GROUP_MARGIN_SECONDS)
    store = dist.FileStore(str(store_path), world_size)
    store.set_timeout(group_timeout)  # what init_process_group does for a store it makes
    dist.init_process_group(backend, store=store, rank=rank, world_size=world_size, timeout=group_timeout)


def _forget_parents_supervision() -> None:
    """In a fresh fork: the siblings are the parent's to kill, and its watcher is the
    parent's (this rank must not hold the watcher's pipe open)."""
    global _watcher
    _live_ranks.clear()
    _live_tags.clear()
    if _sigterm_before is not None:  # a rank ends on SIGTERM as its parent did before
        signal.signal(signal.SIGTERM, _sigterm_before)
    if _watcher is not None:
        _watcher.forget()
        _watcher = None


def _torchrun_variables(rank: int, world_size: int) -> dict[str, str]:
    """What torchrun would set, so code that reads the environment finds its rank."""
    return {
        "RANK": str(rank),
        "LOCAL_RANK": str(rank),
        "WORLD_SIZE": str(world_size),
        "LOCAL_WORLD_SIZE": str(world_size),
        "GROUP_RANK": "0",
    }


def _leave_parent_session(parent: int) -> None:
    """Own session (so the supervisor can kill the rank with anything it started) and
    death with the parent (so an interrupted or killed parent leaves no orphan)."""
    os.setsid()
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the supervisor's cleanup still applies
        pass


# ------------------------------------------------------------ command ranks


def run_commands(
    command: Sequence[str],
    world_size: int,
    *,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    timeout: float,
    grace: float = GRACE_SECONDS,
) -> RanksResult:
    """Run ``command`` as ``world_size`` fresh processes, one per rank, supervised like
    :func:`run_forked`. Each finds its rank, the process group's store and its result
    and stack files in the environment (:func:`rank_environment`); it must write its
    result with :func:`write_rank_result` and then call :func:`hold_until_released`
    (the plugin does both for a pytest run)."""
    with _ranks_workspace() as (files, release):
        ranks: list[_Rank] = []
        try:
            for rank in range(world_size):
                rank_env = {**env, **rank_environment(rank, world_size, files, release.read_fd)}
                ranks.append(_start_command(command, rank, cwd, rank_env, release.read_fd, files.output(rank)))
            release.close_read_end()
            return _supervise(ranks, files, timeout, grace, release)
        finally:
            _finish_all(ranks)


def rank_environment(rank: int, world_size: int, files: _RankFiles, release_fd: int) -> dict[str, str]:
    """The environment of a rank :func:`run_commands` starts."""
    return {
        **_torchrun_variables(rank, world_size),
        STORE_FILE_ENV: str(files.store),
        RANKS_TAG_ENV: files.tag,
        RESULT_FILE_ENV: str(files.result(rank)),
        FAILURE_FILE_ENV: str(files.failure(rank)),
        STACK_FILE_ENV: str(files.stack(rank)),
        RELEASE_FD_ENV: str(release_fd),
    }


def _start_command(
    command: Sequence[str], rank: int, cwd: str | os.PathLike[str], env: dict[str, str], release_fd: int, output: Path
) -> _Rank:
    with open(output, "wb") as output_file:
        process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=env,
            stdout=output_file,
            stderr=subprocess.STDOUT,
            pass_fds=(release_fd,),
            start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,  # noqa: PLW1509
        )
    return _Rank(rank, process.pid, process.wait)


def is_forked_rank() -> bool:
    """Whether this process is a rank that :func:`run_forked` started. Such a rank is a
    CPU rank: CUDA cannot be initialised in a fork of a process that initialised it,
    and a rank that initialised it in its own right would only cost GPU memory."""
    return _forked_rank


def is_supervised_rank(env: Mapping[str, str] = os.environ) -> bool:
    """Whether this process is a rank that :func:`run_commands` started."""
    return RESULT_FILE_ENV in env


def init_process_group_from_environment(backend: str, timeout: float) -> None:
    """Initialise the default process group of a rank started by torchrun or by
    :func:`run_commands` (whose store is a file named in the environment)."""
    import torch.distributed as dist

    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    store_path = os.environ.get(STORE_FILE_ENV)
    if store_path is not None:
        _init_process_group(backend, store_path, rank, world_size, timeout)
        return
    dist.init_process_group(
        backend,
        init_method="env://",
        rank=rank,
        world_size=world_size,
        timeout=timedelta(seconds=timeout + PROCESS_GROUP_MARGIN_SECONDS),
    )


# ------------------------------------------------------------ rank side


def register_stack_dump(path: str | os.PathLike[str]) -> None:
    """Dump every thread's Python stack to ``path`` on the supervisor's signal, and on
    a fatal error (segfault, abort)."""
    stack_file = open(path, "w")  # noqa: SIM115 - stays open for the signal handler
    if _DUMP_SIGNAL is not None:
        faulthandler.register(_DUMP_SIGNAL, file=stack_file, all_threads=True)
    faulthandler.enable(file=stack_file, all_threads=True)


def report_rank_failure() -> None:
    """Tell this rank's supervisor at once that the rank failed (a test phase failed, or
    the function raised), so that the grace period of the others starts now, not when
    this rank has finished. Outside a supervised rank it does nothing."""
    path = _failure_file if _failure_file is not None else os.environ.get(FAILURE_FILE_ENV)
    if path is None:
        return
    try:
        Path(path).touch()
    except OSError:  # the supervisor still sees the failure in the rank's result
        pass


def write_rank_result(path: str | os.PathLike[str], result: tuple[str, Any]) -> None:
    """Write a rank's result where the supervisor looks for it, atomically (the file
    appears complete or not at all)."""
    try:
        data = pickle.dumps(result)
    except Exception as error:  # noqa: BLE001 - an unpicklable value is the rank's error
        data = pickle.dumps(("raised", RankError.from_exception(error)))
    partial = Path(f"{path}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def hold_until_released(release_fd: int | None = None) -> None:
    """Keep this rank (and its process group) alive until the supervisor says every
    rank has finished; without a supervisor, return at once."""
    if release_fd is None:
        text = os.environ.get(RELEASE_FD_ENV)
        if text is None:
            return
        release_fd = int(text)
    try:
        os.read(release_fd, 1)  # returns once the supervisor closes its end
    except OSError:
        pass


# ---------------------------------------------------------------- supervisor


def _supervise(
    ranks: list[_Rank], files: _RankFiles, timeout: float, grace: float, release: _ReleasePipe
) -> RanksResult:
    results: dict[int, tuple[str, Any]] = {}
    stop, failure_order = _wait_for_ranks(ranks, files, results, timeout, grace)
    stopped = [r for r in ranks if r.rank not in results and r.is_running()]
    stacks = _dump_stacks(stopped, files)
    for rank in stopped:
        rank.finish()
    release.release()
    _wait_for_exit(ranks, _RELEASE_WAIT_SECONDS)
    _collect_results(ranks, files, results)
    # a rank whose collective failed after the grace period ran out (a slow machine) still
    # failed after the first: it belongs in the order, behind the cause
    failure_order += [r.rank for r in ranks if r.rank not in failure_order and _reported_failure(r.rank, files, results)]
    _finish_all(ranks)
    outcomes = tuple(_outcome(r, results, stacks, files) for r in ranks)
    failure_order = _causes_first(failure_order, outcomes)
    cause = failure_order[0] if failure_order else None
    stop_reason = None if stop is None else stop.format(timeout=timeout, grace=grace, rank=cause)
    return RanksResult(outcomes, stop_reason, tuple(failure_order))


def _causes_first(failure_order: list[int], outcomes: tuple[RankOutcome, ...]) -> list[int]:
    """The failures in the order they were seen, except that a rank whose collective
    failed because a peer's connection closed comes after the ranks that failed
    otherwise: a dead peer closes its sockets before it can be seen to have exited,
    so the consequence may be seen first."""
    lost_peer = {o.rank for o in outcomes if o.error is not None and _LOST_PEER.search(o.error.message)}
    return [r for r in failure_order if r not in lost_peer] + [r for r in failure_order if r in lost_peer]


def _wait_for_ranks(
    ranks: list[_Rank], files: _RankFiles, results: dict[int, tuple[str, Any]], timeout: float, grace: float
) -> tuple[str | None, list[int]]:
    """Wait until every rank reported or ended. Return why the wait was cut short (the
    template of the timeout's or the grace period's message; ``None`` if it was not) and
    the ranks that failed, in the order they were seen failing."""
    deadline = time.monotonic() + timeout
    failure_order: list[int] = []
    first_failure_at: float | None = None
    while True:
        _collect_results(ranks, files, results)
        failure_order += _new_failures(ranks, files, results, failure_order)
        if not any(r.rank not in results and r.is_running() for r in ranks):
            return None, failure_order
        now = time.monotonic()
        if failure_order and first_failure_at is None:
            first_failure_at = now
        if first_failure_at is not None and now >= first_failure_at + grace:
            return _STOPPED_AFTER_FAILURE, failure_order
        if now >= deadline:
            return _TIMED_OUT, failure_order
        time.sleep(_POLL_SECONDS)


def _new_failures(
    ranks: list[_Rank], files: _RankFiles, results: dict[int, tuple[str, Any]], known: list[int]
) -> list[int]:
    """Ranks seen failing since the last poll. Reports are read before exits are: a rank
    that died is seen no later than a failure it caused in another rank (which takes
    that rank milliseconds to report), so within one poll deaths come first."""
    reported = [r.rank for r in ranks if r.rank not in known and _reported_failure(r.rank, files, results)]
    died = [r.rank for r in ranks if r.rank not in known and r.rank not in results and not r.is_running()]
    return died + [rank for rank in reported if rank not in died]


def _reported_failure(rank: int, files: _RankFiles, results: dict[int, tuple[str, Any]]) -> bool:
    if rank in results and results[rank][0] == "raised":
        return True
    return files.failure(rank).exists()


def _collect_results(ranks: list[_Rank], files: _RankFiles, results: dict[int, tuple[str, Any]]) -> None:
    for rank in ranks:
        path = files.result(rank.rank)
        if rank.rank not in results and path.exists():
            results[rank.rank] = _load_result(path)


def _load_result(path: Path) -> tuple[str, Any]:
    try:
        return pickle.loads(path.read_bytes())
    except Exception as error:  # noqa: BLE001 - e.g. a class the parent cannot import
        return ("raised", RankError.from_exception(error))


def _dump_stacks(ranks: list[_Rank], files: _RankFiles) -> dict[int, str]:
    """Signal each rank to dump its stack; read the dumps once they stop growing."""
    if _DUMP_SIGNAL is None or not ranks:
        return {}
    for rank in ranks:
        try:
            os.kill(rank.pid, _DUMP_SIGNAL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + _STACK_DUMP_WAIT_SECONDS
    sizes: dict[int, int] = {}
    while time.monotonic() < deadline:
        time.sleep(0.05)
        current = {r.rank: _size(files.stack(r.rank)) for r in ranks}
        if all(size > 0 for size in current.values()) and current == sizes:
            break
        sizes = current
    return {r.rank: _read(files.stack(r.rank)) for r in ranks}


def _outcome(
    rank: _Rank, results: dict[int, tuple[str, Any]], stacks: dict[int, str], files: _RankFiles
) -> RankOutcome:
    if rank.rank in results:
        kind, payload = results[rank.rank]
        if kind == "raised":
            return RankOutcome(rank.rank, reported=True, error=payload)
        return RankOutcome(rank.rank, reported=True, returned=payload)
    output = _read(files.output(rank.rank))
    if rank.rank in stacks:
        return RankOutcome(rank.rank, reported=False, stack=stacks[rank.rank], output=output)
    stack = _read(files.stack(rank.rank))
    return RankOutcome(rank.rank, reported=False, stack=stack, ended=rank.ended or "ended", output=output)


def _wait_for_exit(ranks: list[_Rank], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while any(r.is_running() for r in ranks) and time.monotonic() < deadline:
        time.sleep(_POLL_SECONDS)


def _finish_all(ranks: list[_Rank]) -> None:
    for rank in ranks:
        rank.finish()


# ------------------------------------------------------------ process helpers


def _register_live(rank: _Rank) -> None:
    _kill_survivors_at_exit()
    _live_ranks[rank.pid] = rank.finish


def _register_tag(tag: str) -> None:
    _kill_survivors_at_exit()
    _live_tags.add(tag)
    _watching().watch_tag(tag)


def _unregister_tag(tag: str) -> None:
    _live_tags.discard(tag)
    if _watcher is not None:
        _watcher.unwatch_tag(tag)


def _kill_survivors_at_exit() -> None:
    global _atexit_registered
    if not _atexit_registered:
        atexit.register(_kill_survivors)
        _atexit_registered = True


def _kill_survivors() -> None:
    for finish in list(_live_ranks.values()):
        finish()
    for tag in list(_live_tags):
        _kill_tagged(tag)


@contextlib.contextmanager
def _sigterm_kills_ranks() -> Iterator[None]:
    """While ranks run, ``SIGTERM`` first kills them and all they started, then does what
    it did before (by default, end this process). Without this the ranks would die with
    the process (``PR_SET_PDEATHSIG``) but their own children would not."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may handle signals; the watcher still applies
        return
    global _sigterm_before
    previous = signal.getsignal(signal.SIGTERM)
    if previous in (signal.SIG_IGN, None):
        yield
        return
    _sigterm_before = previous

    def kill_ranks_then_terminate(signum: int, frame: Any) -> None:
        _kill_survivors()
        signal.signal(signum, previous)
        if callable(previous):
            previous(signum, frame)
        else:
            os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, kill_ranks_then_terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _kill_tagged(tag: str) -> None:
    """Kill every process whose environment carries this run's tag: what a rank started
    that left its session, which killing the rank's process group cannot reach."""
    for pid in _processes_tagged(tag):
        _kill_process_and_its_group(pid)


def _processes_tagged(tag: str) -> list[int]:
    marker = f"{RANKS_TAG_ENV}={tag}".encode()
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:  # no /proc: the process groups are all that can be killed
        return found
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as environ:
                if marker in environ.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:  # gone, or another user's
            continue
    return found


def _kill_process_and_its_group(pid: int) -> None:
    """Kill ``pid``, and the process group it leads (its own forks that did not exec)."""
    try:
        leads_group = os.getpgid(pid) == pid
        os.kill(pid, signal.SIGKILL)
        if leads_group:
            os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# A separate small process, so that it outlives a supervisor killed with SIGKILL: it
# reads what to clean up on stdin ("+g PGID", "-g PGID", "+t TAG", "-t TAG") and, once
# its parent is gone (or its stdin closed), kills the process groups and the tagged
# processes still registered. Plain Python with no imports beyond the standard ones, so
# it starts in milliseconds under ``python -S``.
_WATCHER_SOURCE = r"""
import os, select, signal, sys

parent, poll = int(sys.argv[1]), float(sys.argv[2])
groups, tags, pending = set(), set(), b""

def kill_registered():
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    markers = {("%s=%s" % (sys.argv[3], tag)).encode() for tag in tags}
    if not markers:
        return
    for entry in os.listdir("/proc"):
        if entry == str(os.getpid()):
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as environ:
                if markers & set(environ.read().split(b"\0")):
                    os.kill(int(entry), signal.SIGKILL)
        except (OSError, ValueError):
            pass

signal.signal(signal.SIGINT, signal.SIG_IGN)
while os.getppid() == parent:
    if not select.select([0], [], [], poll)[0]:
        continue
    data = os.read(0, 65536)
    if not data:
        break
    *lines, pending = (pending + data).split(b"\n")
    for line in lines:
        sign, kind, value = line[:1], line[1:2], line[3:].decode()
        chosen = groups if kind == b"g" else tags
        item = int(value) if kind == b"g" else value
        if sign == b"+":
            chosen.add(item)
        else:
            chosen.discard(item)
kill_registered()
"""

_watcher: _Watcher | None = None
_forgotten_watchers: list[_Watcher] = []  # a fork's copies of its parent's watcher


class _Watcher:
    """This process's watcher (see ``_WATCHER_SOURCE``): started once, on first use."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        read_fd, self._write_fd = os.pipe()
        arguments = [str(self.owner), str(_WATCHER_POLL_SECONDS), RANKS_TAG_ENV]
        try:
            self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-S", "-c", _WATCHER_SOURCE, *arguments],
                stdin=read_fd,
                stdout=subprocess.DEVNULL,  # holding the caller's output open would delay
                stderr=subprocess.DEVNULL,  # whoever waits for its end (subprocess.run)
                env=_watcher_environment(),
                start_new_session=True,  # Ctrl-C in a terminal must not reach it
            )
        except OSError:  # no watcher: the supervisor's own cleanup still applies
            self.process = None
        finally:
            os.close(read_fd)

    def watch_group(self, pgid: int) -> None:
        self._send(f"+g {pgid}")

    def unwatch_group(self, pgid: int) -> None:
        self._send(f"-g {pgid}")

    def watch_tag(self, tag: str) -> None:
        self._send(f"+t {tag}")

    def unwatch_tag(self, tag: str) -> None:
        self._send(f"-t {tag}")

    def forget(self) -> None:
        """In a fork of the owner: let go of the owner's pipe, leave the watcher alone
        (this object is kept, so that no "subprocess still running" warning is raised
        here about the owner's watcher)."""
        with contextlib.suppress(OSError):
            os.close(self._write_fd)
        _forgotten_watchers.append(self)
        self._write_fd = -1

    def _send(self, line: str) -> None:
        if self.process is None or self._write_fd < 0:
            return
        try:
            os.write(self._write_fd, f"{line}\n".encode())
        except OSError:  # the watcher is gone: the supervisor's own cleanup still applies
            self._write_fd = -1


def _watcher_environment() -> dict[str, str]:
    """Only what starting Python may need: the watcher carries none of the variables by
    which the caller's processes are told apart (a run's tag, a test's marker)."""
    names = ("PATH", "LD_LIBRARY_PATH", "PYTHONHOME", "SYSTEMROOT")
    return {name: os.environ[name] for name in names if name in os.environ}


def _watching() -> _Watcher:
    """The watcher of this process, started on first use (and again in a fork)."""
    global _watcher
    if _watcher is None or _watcher.owner != os.getpid():
        if _watcher is not None:
            _watcher.forget()
        _watcher = _Watcher()
    return _watcher


def _kill_group(pid: int) -> None:
    """Kill the rank and every process in its session (DataLoader workers, ...)."""
    try:
        os.killpg(pid, signal.SIGKILL)
        return
    except (ProcessLookupError, PermissionError, AttributeError):
        pass
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _describe_returncode(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""
