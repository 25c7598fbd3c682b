"""@pytest.mark.distributed: the body on every rank, failures and hangs per rank, no orphans.

Most inner runs are in-process (pytester's runpytest), so their ranks are forks of this
process and start in milliseconds. Runs that must be real processes -- under xdist,
interrupted or killed, under torchrun, or with fresh rank processes as a cuda run has
them -- use subprocesses. GPU decisions are checked by faking what the machine has.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
import torch

# Imported here, once: modules first imported during an in-process inner run are dropped
# afterwards, and torch's cannot be imported twice (see conftest.py).
import torch.distributed  # noqa: F401
import torch.nn.parallel  # noqa: F401

import torchcheck.plugin.distributed as distributed_plugin
import torchcheck.checks.devices as devices_module
from torchcheck.checks import _rank_runner as runner
from torchcheck.plugin.distributed_plan import (
    DistributedPlan,
    DistributedRequest,
    LaunchedWorld,
    distributed_device,
    launched_world,
    parse_distributed_marker,
    plan_distributed,
    rank_device,
)
from torchcheck.plugin.support import DeviceUnavailableError, FoundDevices, SettingError

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ranks are checked through /proc")

ORPHAN_TOKEN = "TORCHCHECK_TEST_ORPHAN_TOKEN"

ALL_REDUCE = """
import os
import pytest
import torch
import torch.distributed as dist

@pytest.mark.distributed(world_size=2)
def test_sum(rank, world_size, torch_device):
    total = torch.tensor([float(rank + 1)])
    dist.all_reduce(total)
    assert total.item() == 3.0
    assert (rank, world_size) == (dist.get_rank(), 2) == (int(os.environ["RANK"]), 2)
    assert torch_device == torch.device("cpu")
    assert os.getpid() != int(os.environ["OUTER_PID"])
"""

FAILS_ON_RANK_1 = """
import pytest

@pytest.mark.distributed(world_size=2)
def test_only_rank_0_passes(rank):
    print(f"hello from rank {rank}")
    assert rank == 0, f"rank {rank} is not rank 0"
"""

MISMATCHED_COLLECTIVE = """
import pytest
import torch
import torch.distributed as dist

@pytest.mark.distributed(world_size=2, timeout={timeout})
def test_rank_1_skips_the_all_reduce(rank):
    total = torch.ones(1)
    if rank == 0:
        dist.all_reduce(total)
    dist.barrier()
"""

PASSING_FAILING_HANGING = """
import pytest
import torch.distributed as dist

@pytest.mark.distributed(world_size=2)
def test_passes(rank):
    dist.barrier()

@pytest.mark.distributed(world_size=2)
def test_fails(rank):
    assert rank == 1

@pytest.mark.distributed(world_size=2, timeout=3)
def test_hangs(rank):
    if rank == 0:
        dist.barrier()
"""



def _processes_with(token: str) -> list[int]:
    """Live processes whose environment holds ``token`` (zombies have none)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environment = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if token.encode() in environment:
            found.append(int(entry))
    return found


def _wait_until(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def orphan_token(monkeypatch: pytest.MonkeyPatch) -> str:
    """A marker in the environment of every process the inner run starts."""
    token = f"{ORPHAN_TOKEN}={uuid.uuid4().hex}"
    name, value = token.split("=")
    monkeypatch.setenv(name, value)
    return value


# ------------------------------------------------------------- pure decisions


def test_the_marker_takes_its_arguments_by_position_or_by_name() -> None:
    assert parse_distributed_marker((4, "GLOO"), {"timeout": 30}, "here") == DistributedRequest(4, "gloo", 30.0)
    assert parse_distributed_marker((), {}, "here") == DistributedRequest(2, None, 120.0)


@pytest.mark.parametrize(
    ("args", "kwargs", "problem"),
    [
        ((True,), {}, "world_size must be a positive integer, got True"),
        ((2,), {"world_size": 2}, "got world_size, backend or timeout both by position and by name ('world_size')"),
        ((2, None, 1, 4), {}, "takes at most 3 positional arguments (world_size, backend, timeout), got 4"),
        ((), {"backend": ""}, "backend must be None or a backend name such as 'gloo' or 'nccl', got ''"),
        ((), {"timeout": 0}, "timeout must be a positive number of seconds, got 0"),
    ],
)
def test_bad_marker_arguments_name_the_marker_and_the_problem(args: tuple, kwargs: dict, problem: str) -> None:
    with pytest.raises(SettingError) as error:
        parse_distributed_marker(args, kwargs, "@pytest.mark.distributed on t.py::test_x")
    assert str(error.value) == f"@pytest.mark.distributed on t.py::test_x: {problem}"


def test_a_launch_is_read_from_torchruns_environment() -> None:
    assert launched_world({}) is None
    assert launched_world({"RANK": "3", "WORLD_SIZE": "8"}) == LaunchedWorld(3, 8, 3, 8)
    env = {"RANK": "5", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4"}
    assert launched_world(env) == LaunchedWorld(5, 8, 1, 4)


def test_the_device_of_a_distributed_test_follows_its_torch_device_run_then_its_markers() -> None:
    request = DistributedRequest()
    assert distributed_device(request, "cuda", cuda_marked=False) == "cuda"
    assert distributed_device(request, None, cuda_marked=True) == "cuda"
    assert distributed_device(request._replace(backend="nccl"), None, cuda_marked=False) == "cuda"
    assert distributed_device(request, None, cuda_marked=False) == "cpu"


def _plan(
    device: str,
    found: FoundDevices,
    launched: LaunchedWorld | None = None,
    requested: tuple[str, ...] | None = None,
) -> DistributedPlan:
    return plan_distributed(
        DistributedRequest(world_size=2),
        device,
        nodeid="t.py::test_x",
        requested=requested,
        requested_source="--torchcheck-device" if requested else None,
        found=found,
        launched=launched,
    )


def test_a_cuda_run_gets_nccl_and_one_gpu_per_rank_when_there_are_enough() -> None:
    plan = _plan("cuda", FoundDevices(cuda_count=2))
    assert (plan.backend, plan.in_place, plan.skip_reason) == ("nccl", False, None)
    assert _plan("cpu", FoundDevices()).backend == "gloo"


def test_under_a_launch_each_node_needs_only_its_own_ranks_gpus() -> None:
    launched = LaunchedWorld(rank=3, world_size=2, local_rank=1, local_world_size=2)
    assert _plan("cuda", FoundDevices(cuda_count=2), launched).skip_reason is None
    four_nodes = LaunchedWorld(rank=3, world_size=4, local_rank=0, local_world_size=1)
    assert "this launch has 4 ranks" in (_plan("cuda", FoundDevices(cuda_count=1), four_nodes).skip_reason or "")


def test_too_few_gpus_skip_unless_cuda_was_asked_for() -> None:
    assert _plan("cuda", FoundDevices(cuda_count=1)).skip_reason == (
        "needs 2 CUDA devices (one per rank), found cpu, cuda"
    )
    with pytest.raises(DeviceUnavailableError, match="--torchcheck-device=cuda asked for cuda"):
        _plan("cuda", FoundDevices(cuda_count=1), requested=("cuda",))


def test_each_rank_of_a_cuda_run_uses_the_gpu_of_its_local_rank() -> None:
    assert rank_device("cuda", {"LOCAL_RANK": "3"}) == "cuda:3"
    assert rank_device("cpu", {"LOCAL_RANK": "3"}) == "cpu"


# --------------------------------------------------------------- on every rank


@pytest.mark.usefixtures("cpu_only_machine")
def test_the_body_runs_on_every_rank_with_a_process_group_and_its_fixtures(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OUTER_PID", str(os.getpid()))
    pytester.makepyfile(ALL_REDUCE)
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*::test_sum[[]cpu[]] PASSED*"])


def test_a_failure_on_one_rank_fails_the_test_and_shows_which_rank_and_what(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(FAILS_ON_RANK_1)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "failed on rank 1 of 2: AssertionError: rank 1 is not rank 0",
            "--- rank 0 of 2: passed",
            "--- rank 1 of 2: failed",
            "*assert rank == 0*",
            "E * AssertionError: rank 1 is not rank 0",
            "*Captured stdout call (rank 0)*",
            "hello from rank 0",
            "*Captured stdout call (rank 1)*",
            "hello from rank 1",
        ]
    )


def test_a_mismatched_collective_fails_by_its_timeout_with_every_ranks_stack(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(MISMATCHED_COLLECTIVE.format(timeout=4))
    started = time.monotonic()
    result = pytester.runpytest()
    assert time.monotonic() - started < 30
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "timed out after 4 s: rank 0 in all_reduce, rank 1 in barrier",
            "  rank 0: still running, waiting in all_reduce (torch.distributed), called from "
            "test_a_mismatched_collective_fails_by_its_timeout_with_every_ranks_stack.py:9 in "
            "test_rank_1_skips_the_all_reduce",
            "  rank 1: still running, waiting in barrier (torch.distributed), called from *.py:10 in *",
            "rank 0's Python stack when it was stopped:",
            "*File *distributed_c10d.py*in all_reduce",
            '*File "*.py", line 9 in test_rank_1_skips_the_all_reduce',
            "rank 1's Python stack when it was stopped:",
            "*File *distributed_c10d.py*in barrier",
        ]
    )


def test_a_rank_that_crashes_is_reported_with_its_stack(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import os
        import pytest

        @pytest.mark.distributed(world_size=2)
        def test_rank_1_aborts(rank):
            if rank == 1:
                os.abort()
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "not every rank finished: rank 0 finished, rank 1 was killed by SIGABRT",
            "  rank 1: was killed by SIGABRT before reporting",
            "rank 1's Python stack when it crashed:",
            "*line 7 in test_rank_1_aborts",
        ]
    )


def test_seeded_gives_every_rank_the_same_seed_and_the_same_random_numbers(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        import torch
        import torch.distributed as dist

        @pytest.mark.distributed(world_size=2)
        def test_same_numbers(rank, seeded):
            drawn = torch.randn(4)
            everyone = [torch.zeros(4), torch.zeros(4)]
            dist.all_gather(everyone, drawn)
            assert torch.equal(everyone[0], everyone[1])
            assert torch.are_deterministic_algorithms_enabled()
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_warning_every_rank_raises_is_reported_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import warnings
        import pytest

        class RankWarning(UserWarning):
            pass

        @pytest.mark.distributed(world_size=2)
        def test_warns(rank):
            warnings.warn("the learning rate is not scaled", RankWarning)
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*RankWarning: the learning rate is not scaled"])


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ("world_size=0", "world_size must be a positive integer, got 0"),
        ("world_sze=2", "unknown argument 'world_sze'; it takes world_size, backend and timeout"),
        ("timeout='soon'", "timeout must be a positive number of seconds, got 'soon'"),
    ],
)
def test_a_bad_marker_fails_the_test_with_a_clear_message(
    pytester: pytest.Pytester, marker: str, message: str
) -> None:
    pytester.makepyfile(f"import pytest\n\n@pytest.mark.distributed({marker})\ndef test_bad():\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*@pytest.mark.distributed on test_*::test_bad: {message}"])
    result.stdout.no_fnmatch_line("*Traceback*")


def test_the_rank_fixture_without_the_marker_fails_with_a_clear_message(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_unmarked(rank):\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*the rank fixture needs a process group: mark the test @pytest.mark.distributed*"])


def test_the_marker_is_registered_and_documented(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.distributed(world_size=2, backend=None, timeout=120):*"])


def test_without_torch_a_distributed_test_is_skipped_with_the_install_command(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import sys

        class TorchIsNotInstalled:
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)

        sys.meta_path.insert(0, TorchIsNotInstalled())
        """
    )
    pytester.makepyfile("import pytest\n\n@pytest.mark.distributed(world_size=2)\ndef test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*a test marked distributed needs PyTorch, which is not installed*"])


# ---------------------------------------------------------------------- GPUs


@pytest.fixture
def one_gpu_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    found = [torch.device("cpu"), torch.device("cuda", 0)]
    monkeypatch.setattr(devices_module, "available_devices", lambda: list(found))


GPU_AWARE = """
import pytest

@pytest.mark.distributed(world_size=2)
def test_everywhere(torch_device, rank):
    assert torch_device.type == "cpu"
"""


@pytest.mark.usefixtures("one_gpu_machine")
def test_a_cuda_run_needing_more_gpus_than_exist_is_skipped_with_a_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(GPU_AWARE)
    result = pytester.runpytest("-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] *: needs 2 CUDA devices (one per rank), found cpu, cuda"])


@pytest.mark.usefixtures("one_gpu_machine")
def test_asking_for_cuda_with_too_few_gpus_for_a_distributed_test_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(GPU_AWARE)
    result = pytester.runpytest("--torchcheck-device", "cuda")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--torchcheck-device=cuda asked for cuda, and *test_everywhere[[]cuda[]] is marked distributed(world_size=2): "
         "it needs 2 CUDA devices (one per rank), but this machine has 1.*"]
    )


def test_the_nccl_backend_on_a_cpu_run_is_skipped_with_a_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "import pytest\n\n@pytest.mark.distributed(world_size=2, backend='nccl')\n"
        "def test_nccl(torch_device):\n    pass\n"
    )
    result = pytester.runpytest("-rs", "--torchcheck-device", "cpu")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*backend 'nccl' needs CUDA tensors; this run of the test is on cpu"])


# ---------------------------------------------------------- launched in place


def test_under_a_launch_the_test_runs_in_place_in_this_process(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A one-rank launch, as torchrun would set it up, joined through a file store."""
    for name, value in {"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(runner.STORE_FILE_ENV, str(tmp_path / "store"))
    monkeypatch.setenv("OUTER_PID", str(os.getpid()))
    pytester.makepyfile(
        """
        import os
        import pytest
        import torch.distributed as dist

        @pytest.mark.distributed(world_size=1)
        def test_in_place(rank, world_size):
            assert os.getpid() == int(os.environ["OUTER_PID"])
            assert (rank, world_size) == (0, 1)
            dist.barrier()
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)
    assert not torch.distributed.is_initialized()  # the session's group is gone with it


def test_a_process_group_the_session_already_started_is_used_in_place(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OUTER_PID", str(os.getpid()))
    monkeypatch.setenv("STORE", (tmp_path / "store").as_uri())
    pytester.makeconftest(
        """
        import os
        import torch.distributed as dist

        def pytest_configure(config):
            dist.init_process_group("gloo", init_method=os.environ["STORE"], rank=0, world_size=1)

        def pytest_unconfigure(config):
            dist.destroy_process_group()
        """
    )
    pytester.makepyfile(
        """
        import os
        import pytest

        @pytest.mark.distributed(world_size=1)
        def test_in_place(rank):
            assert os.getpid() == int(os.environ["OUTER_PID"])
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)
    assert not torch.distributed.is_initialized()


def test_under_a_launch_of_another_size_the_test_is_skipped_with_a_reason(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "3")
    pytester.makepyfile(FAILS_ON_RANK_1)
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*needs world_size=2, but this launch has 3 ranks (WORLD_SIZE=3)*"])


def test_an_invalid_launch_variable_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RANK", "first")
    monkeypatch.setenv("WORLD_SIZE", "2")
    pytester.makepyfile(FAILS_ON_RANK_1)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*environment variable RANK='first' is not a non-negative integer*"])


def test_a_cuda_run_starts_each_rank_as_a_fresh_pytest_process(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a cuda run does (a fork cannot use CUDA once the parent did), on CPU."""
    monkeypatch.setattr(distributed_plugin, "forks_ranks", lambda plan: False)
    pytester.makepyfile(FAILS_ON_RANK_1)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["failed on rank 1 of 2: AssertionError: rank 1 is not rank 0", "*Captured stdout call (rank 1)*"]
    )


SAME_DRAWS_ON_EVERY_RANK = """
import random

import numpy
import pytest
import torch
import torch.distributed as dist

@pytest.mark.distributed(world_size=2)
def test_draws(rank):
    draws = (torch.randn(3).tolist(), random.random(), float(numpy.random.rand()))
    gathered = [None, None]
    dist.all_gather_object(gathered, draws)
    assert gathered[0] == gathered[1], gathered
    if rank == 0:
        with open("draws.txt", "a") as record:
            record.write(repr(draws) + "\\n")
"""


@pytest.mark.parametrize("start", ["forked", "fresh processes"])
def test_every_rank_starts_the_test_from_its_seed_whatever_the_start_method(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, start: str
) -> None:
    """Fresh rank processes (a cuda run, or CPU ranks once CUDA is initialised) began
    with a random seed each, so batches drawn in the test differed from rank to rank,
    and a data-parallel check failed on correct code; found on the first GPU run."""
    if start == "fresh processes":
        monkeypatch.setattr(distributed_plugin, "forks_ranks", lambda plan: False)
    pytester.makepyfile(SAME_DRAWS_ON_EVERY_RANK)
    for _ in range(2):
        pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)
    first, again = (pytester.path / "draws.txt").read_text().splitlines()
    assert first == again  # the test's seed, not whatever the process had


def test_fresh_rank_processes_accept_the_xdist_options_of_the_configuration(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rank started as a fresh pytest reads the same addopts; with xdist switched off
    by -p no:xdist, an option such as --maxschedchunk (or -n auto) stopped every rank."""
    monkeypatch.setattr(distributed_plugin, "forks_ranks", lambda plan: False)
    pytester.makeini("[pytest]\ntorchcheck = true\naddopts = --maxschedchunk 1\n")
    pytester.makepyfile(FAILS_ON_RANK_1)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["failed on rank 1 of 2: AssertionError: rank 1 is not rank 0"])


@pytest.mark.starts_first
def test_under_torchrun_the_file_runs_in_place_and_a_hang_ends_every_rank_with_its_stack(
    pytester: pytest.Pytester,
) -> None:
    """No supervisor there: a watchdog on each rank prints every thread's stack and ends
    the rank, which ends the job instead of leaving it hanging until the cluster's limit."""
    hang = MISMATCHED_COLLECTIVE.format(timeout=3).replace("import pytest\n", "")
    pytester.makepyfile(ALL_REDUCE.replace('    assert os.getpid() != int(os.environ["OUTER_PID"])\n', "") + hang)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
    command += ["-m", "pytest", "-p", "no:cacheprovider", "-v"]
    completed = subprocess.run(command, cwd=pytester.path, capture_output=True, text=True, timeout=240)
    output = completed.stdout + completed.stderr
    assert completed.returncode != 0, output
    assert output.count("PASSED") == 2, output  # test_sum, once on each rank
    for rank, collective, line in ((0, "all_reduce", 21), (1, "barrier", 22)):
        watchdog = f"torchcheck: rank {rank} of 2: test_under_torchrun_the_file_runs_in_place_and_a_hang_"
        assert watchdog in output, output
        waiting = f"waiting in {collective} (torch.distributed), called from test_under_torchrun_"
        assert waiting in output, output
        assert f", line {line} in test_rank_1_skips_the_all_reduce" in output, output


# ---------------------------------------------------------------- processes


@pytest.mark.starts_first
def test_distributed_tests_run_side_by_side_under_xdist_and_leave_no_process_behind(
    pytester: pytest.Pytester, orphan_token: str
) -> None:
    pytester.makepyfile(PASSING_FAILING_HANGING)
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*timed out after 3 s: rank 0 in barrier, rank 1 finished*"])
    assert _processes_with(orphan_token) == []


def _sleep_long(rank: int) -> None:
    time.sleep(600)


def _supervisor(workdir: Path) -> int:
    """A fork of this process that supervises ranks that take long (sleeping, so only
    being killed ends them), as the pytest process does. A supervisor killed with
    SIGKILL cannot remove its temporary directory: it is made in ``workdir``."""
    pid = os.fork()
    if pid == 0:
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            tempfile.tempdir = str(workdir)
            runner.run_forked(_sleep_long, 2, timeout=120)
        finally:
            os._exit(0)
    return pid


def _children_of(parent: int) -> list[int]:
    children = []
    for entry in os.listdir("/proc"):
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent:
            children.append(int(entry))
    return children


def _forked_children_of(parent: int) -> list[int]:
    """The children that are forks of ``parent`` (its ranks, not the watcher it starts)."""
    command = Path(f"/proc/{parent}/cmdline").read_bytes()
    forks = []
    for child in _children_of(parent):
        try:
            if Path(f"/proc/{child}/cmdline").read_bytes() == command:
                forks.append(child)
        except OSError:
            continue
    return forks


def _alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` still running (not gone, not zombies)."""
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    return alive


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL], ids=["interrupted", "killed"])
def test_no_rank_outlives_its_supervisor_interrupted_or_killed_during_a_hang(
    stop: signal.Signals, tmp_path: Path
) -> None:
    supervisor = _supervisor(tmp_path)
    try:
        assert _wait_until(lambda: len(_forked_children_of(supervisor)) == 2, 60), "the ranks never started"
        ranks = _forked_children_of(supervisor)
        os.kill(supervisor, stop)
        assert _wait_until(lambda: os.waitpid(supervisor, os.WNOHANG)[0] == supervisor, 30)
    finally:
        if _alive([supervisor]):
            os.kill(supervisor, signal.SIGKILL)
    assert _wait_until(lambda: _alive(ranks) == [], 10), _alive(ranks)


PARALLEL_WORK_AFTER_FORK = """
import torch
from torchcheck.checks._rank_runner import run_forked

def parallel_work(rank):
    torch.randn(4_000_000).exp_().sum()  # large enough for an OpenMP parallel region
    return torch.get_num_threads()

torch.set_num_threads(2)
parallel_work(0)  # the parent's OpenMP thread pool is now running
result = run_forked(parallel_work, 1, timeout=60)
assert not result.failed, result
print(result.outcomes[0].returned)
"""


def test_a_rank_forked_after_the_parent_ran_parallel_cpu_work_does_not_hang() -> None:
    """GNU OpenMP's pool does not survive a fork; a rank that used two threads here hung
    until the timeout on every machine with more cores than ranks."""
    result = subprocess.run(
        [sys.executable, "-c", PARALLEL_WORK_AFTER_FORK], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == ["1"]
