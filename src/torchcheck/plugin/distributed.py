"""What ``@pytest.mark.distributed`` does at run time; the plugin's hooks call in here.

Imported only when a session has a distributed test or was launched as one rank of
several, so loading the plugin stays free.

Starting ranks (:func:`run_distributed_item`, in the pytest process). On CPU each rank is
a fork of the pytest process that runs the item's setup, call and teardown with the
process group up: the test module, torch and the fixtures' code are already imported, so
a rank starts in milliseconds. CUDA cannot be used in a fork once the parent initialised
it, so the ranks of a cuda run are fresh ``python -m pytest NODEID`` processes that find
their rank in the environment, as under torchrun. Either way the parent merges the ranks'
reports into one per phase: a failure on any rank fails the test and shows each rank's
traceback, a hang shows each rank's Python stack and the collective it waits in.

In place (:class:`LaunchedRank`, in each rank): under torchrun, or in a rank that
:func:`run_distributed_item` started as a fresh process, a marked test runs right here;
the default process group is initialised before its fixtures (once per session) unless
the user's code already did it. Under torchrun, a watchdog dumps every thread's stack and
ends the rank when a test outlives its timeout, so a hang fails the job with stacks
instead of lasting until the cluster's own time limit.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

import pytest
from _pytest.runner import runtestprotocol  # as pytest-forked does

from torchcheck.checks import _rank_runner as runner
from torchcheck.plugin.distributed_plan import DistributedPlan
from torchcheck.plugin.support import REPLAY_SECTION_TITLE, Settings

__all__ = ["LaunchedRank", "RankRun", "run_distributed_item"]

FAILED_ON_RANKS = "failed on rank{s} {ranks} of {world_size}"
FAILED_FIRST_ON = ", first on rank {rank}"
RANK_ENDED_FIRST = "rank {rank} of {world_size} {ended} before reporting"
THEN_FAILED = "; after that rank {rank} failed: {message}"
RANK_HEADER = "--- rank {rank} of {world_size}: {outcome}"
RANK_NOT_RUN = "rank {rank} of {world_size} ran no test (its pytest did not collect {nodeid})"
LAUNCH_FAILED = "torchcheck could not start the ranks of this distributed test:\n{error}"
WATCHDOG_HEADER = (
    "torchcheck: rank {rank} of {world_size}: {nodeid} is still running after its "
    "timeout of {timeout:g} s (@pytest.mark.distributed(timeout=...)), waiting in {where}. "
    "Its Python stack follows, then this rank exits."
)
NO_PROCESS_GROUP = (
    "the {fixture} fixture needs a process group: mark the test "
    "@pytest.mark.distributed(world_size=N) so that it runs on N ranks"
)

#: Environment variables that would make a fresh rank process think it is an xdist
#: worker of the parent's session.
_XDIST_VARIABLES = ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID")
_RESULT_KIND = "returned"
_WATCHDOG_EXIT_DELAY_SECONDS = 2.0


@dataclass(frozen=True)
class WarningRecord:
    """A warning a rank recorded, in a form that pickles."""

    message: str
    category: str  # "module:QualName"
    filename: str
    lineno: int

    @classmethod
    def from_message(cls, message: warnings.WarningMessage) -> WarningRecord:
        category = f"{message.category.__module__}:{message.category.__qualname__}"
        return cls(str(message.message), category, message.filename, message.lineno)

    def reissue(self) -> None:
        warnings.warn_explicit(self.message, _warning_category(self.category), self.filename, self.lineno)


@dataclass(frozen=True)
class RankRun:
    """What one rank reports back: its serialized test reports and warnings."""

    reports: list[dict[str, Any]]
    warnings: list[WarningRecord]


# ----------------------------------------------------------- starting ranks


def run_distributed_item(
    item: pytest.Item, nextitem: pytest.Item | None, plan: DistributedPlan, settings: Settings
) -> None:
    """The whole test protocol of a distributed test, in the pytest process: start the
    ranks, wait for them, log one merged report per phase."""
    ihook = item.ihook
    ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for report in _run_on_ranks(item, nextitem, plan, settings):
        ihook.pytest_runtest_logreport(report=report)
    ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)


def _run_on_ranks(
    item: pytest.Item, nextitem: pytest.Item | None, plan: DistributedPlan, settings: Settings
) -> list[pytest.TestReport]:
    started = time.time()
    try:
        result = _start_ranks(item, plan, settings)
    except (OSError, RuntimeError) as error:
        teardown_error = _tear_down_for_next(item, nextitem)
        reports = [_failed_report(item, LAUNCH_FAILED.format(error=error), "setup", started)]
        if teardown_error is not None:
            reports.append(_failed_report(item, teardown_error, "teardown", started))
        return reports
    for record in dict.fromkeys(_warnings(result)):  # once, however many ranks raised it
        record.reissue()
    teardown_error = _tear_down_for_next(item, nextitem)
    return merged_reports(item, plan.world_size, result, teardown_error, started)


def _tear_down_for_next(item: pytest.Item, nextitem: pytest.Item | None) -> str | None:
    """Tear down, in this process, the module and session fixtures earlier tests set up
    here that the next test does not need -- what pytest's own teardown of this test
    would have done (the ranks tore down the test's own fixtures). Returns the error."""
    if item.session.shouldfail or item.session.shouldstop:
        nextitem = None
    try:
        item.session._setupstate.teardown_exact(nextitem)  # private; pytest-rerunfailures uses it too
    except Exception:  # noqa: BLE001 - a fixture's finalizer failing is the test's teardown error
        return traceback.format_exc()
    return None


def forks_ranks(plan: DistributedPlan) -> bool:
    """Whether the ranks are forks of this process (CPU) or fresh processes: for CUDA,
    which a fork cannot use once the parent initialised it; for CPU too once this
    process initialised CUDA, since a fork of it can then neither run backward after a
    CUDA backward (autograd's device threads are gone) nor save a distributed checkpoint;
    and where the platform has no fork."""
    return plan.device == "cpu" and hasattr(os, "fork") and not _cuda_initialised_here()


def _cuda_initialised_here() -> bool:
    torch = sys.modules.get("torch")  # never import torch just to ask
    return torch is not None and torch.cuda.is_initialized()


def _start_ranks(item: pytest.Item, plan: DistributedPlan, settings: Settings) -> runner.RanksResult:
    if forks_ranks(plan):
        return runner.run_forked(
            lambda _rank: run_item_in_rank(item),
            plan.world_size,
            backend=plan.backend,
            timeout=plan.timeout,
            grace=runner.GRACE_SECONDS,
        )
    config = item.config
    return runner.run_commands(
        rank_command(item, settings),
        plan.world_size,
        cwd=config.rootpath,
        env={k: v for k, v in os.environ.items() if k not in _XDIST_VARIABLES},
        timeout=plan.timeout,
        grace=runner.GRACE_SECONDS,
    )


def run_item_in_rank(item: pytest.Item) -> RankRun:
    """In a forked rank: the item's setup, call and teardown, reported back."""
    config = item.config
    capture = config.pluginmanager.getplugin("capturemanager")
    if capture is not None:
        # Capture into files of this rank's own: the parent's are shared by every fork.
        capture.stop_global_capturing()
        capture.start_global_capturing()
    debugger = config.pluginmanager.get_plugin("pdbinvoke")
    if debugger is not None:  # a rank has no terminal to debug in
        config.pluginmanager.unregister(debugger)
    config.pluginmanager.register(_FailureSignal())
    with warnings.catch_warnings(record=True) as caught:
        # Tear down only the test itself: module and session fixtures the parent set up
        # are the parent's, and this process ends right after.
        reports = runtestprotocol(item, log=False, nextitem=item.parent)  # type: ignore[arg-type]
    serialized = [_serialized(config, report) for report in reports]
    return RankRun(serialized, [WarningRecord.from_message(warning) for warning in caught])


class _FailureSignal:
    """In a forked rank: tells the supervisor as soon as a phase fails (the reports
    travel back only once the rank has finished), so the other ranks' grace period
    starts then, not after this rank's teardown or at the timeout."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if report.failed:
            runner.report_rank_failure()
        return report


def rank_command(item: pytest.Item, settings: Settings) -> list[str]:
    """``python -m pytest NODEID`` for a rank started as a fresh process, with the
    settings that must agree across ranks (seed, devices, configuration file)."""
    config = item.config
    command = [sys.executable, "-m", "pytest", item.nodeid, "-q", "-p", "no:cacheprovider"]
    # xdist stays loaded (with -n 0: no workers) when the session has it, so that its
    # options in the configuration's addopts (-n auto, --maxschedchunk) still parse.
    without_xdist = ["-n", "0"] if config.pluginmanager.hasplugin("xdist") else []
    command += [*without_xdist, "-p", "no:randomly", "--rootdir", str(config.rootpath)]
    if config.inipath is not None:
        command += ["-c", str(config.inipath)]
    command.append(f"--torchcheck-seed={settings.seed}")  # also turns the plugin on there
    if settings.devices is not None:
        command.append(f"--torchcheck-device={','.join(settings.devices)}")
    return command


def _serialized(config: pytest.Config, report: pytest.TestReport) -> dict[str, Any]:
    return config.hook.pytest_report_to_serializable(config=config, report=report)


def _warnings(result: runner.RanksResult) -> Iterable[WarningRecord]:
    for outcome in result.outcomes:
        if isinstance(outcome.returned, RankRun):
            yield from outcome.returned.warnings


def _warning_category(name: str) -> type[Warning]:
    module_name, _, qualname = name.partition(":")
    value: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        value = getattr(value, part, None)
    return value if isinstance(value, type) and issubclass(value, Warning) else UserWarning


# ------------------------------------------------------------------ reports


def merged_reports(
    item: pytest.Item,
    world_size: int,
    result: runner.RanksResult,
    teardown_error: str | None,
    started: float,
) -> list[pytest.TestReport]:
    """One report per phase for the whole test: it failed if any rank failed in that
    phase (each rank's failure shown under its rank), and a rank that did not report,
    stopped after a hang or crashed, fails the phase it was in with its stack."""
    by_rank = {outcome.rank: _rank_reports(item.config, outcome) for outcome in result.outcomes}
    reported = {rank: reports for rank, reports in by_rank.items() if reports}
    stop_text = _unfinished_ranks(item, world_size, result, by_rank) if len(reported) < world_size else None
    blame = _Blame(result.failure_order, _ended_first(result, world_size))
    merged = []
    setup = _merge(item, world_size, "setup", _phase(reported, "setup"), blame=blame)
    if setup is not None:
        merged.append(setup)
    if setup is None or setup.passed:
        call = _merge(item, world_size, "call", _phase(reported, "call"), stop_text, blame)
        merged.append(call if call is not None else _failed_report(item, stop_text or "", "call", started))
    elif stop_text is not None:
        _append_text(setup, stop_text)
    teardown_blame = blame._replace(cause=None)  # the cause heads the setup or call report
    teardown = _merge(item, world_size, "teardown", _phase(reported, "teardown"), teardown_error, teardown_blame)
    if teardown is not None:
        merged.append(teardown)
    elif teardown_error is not None:
        merged.append(_failed_report(item, teardown_error, "teardown", started))
    return merged


class _Blame(NamedTuple):
    """Which rank a failure's headline names: the ranks in the order they failed, and
    the headline's start when the first of them ended without reporting (a crash or an
    exit: the other ranks' errors, in collectives it never joined, follow from it)."""

    order: tuple[int, ...] = ()
    cause: str | None = None


def _ended_first(result: runner.RanksResult, world_size: int) -> str | None:
    first = runner.first_failure(result)
    if first is None or first.reported or not first.ended:
        return None
    return RANK_ENDED_FIRST.format(rank=first.rank, world_size=world_size, ended=first.ended)


def _unfinished_ranks(
    item: pytest.Item,
    world_size: int,
    result: runner.RanksResult,
    by_rank: dict[int, list[pytest.TestReport] | None],
) -> str:
    """What happened to the ranks that did not run the test to its end."""
    text = runner.describe_stop(result)
    not_run = [rank for rank, reports in by_rank.items() if reports == []]
    lines = [RANK_NOT_RUN.format(rank=rank, world_size=world_size, nodeid=item.nodeid) for rank in not_run]
    return "\n".join([text, *lines])


def _rank_reports(config: pytest.Config, outcome: runner.RankOutcome) -> list[pytest.TestReport] | None:
    if not outcome.reported or not isinstance(outcome.returned, RankRun):
        return None
    serialized = outcome.returned.reports
    return [config.hook.pytest_report_from_serializable(config=config, data=data) for data in serialized]


def _phase(reported: dict[int, list[pytest.TestReport]], when: str) -> dict[int, pytest.TestReport]:
    return {rank: report for rank, reports in reported.items() for report in reports if report.when == when}


def _merge(
    item: pytest.Item,
    world_size: int,
    when: str,
    reports: dict[int, pytest.TestReport],
    extra_failure: str | None = None,
    blame: _Blame = _Blame(),
) -> pytest.TestReport | None:
    if not reports:
        return None
    ranks = sorted(reports)
    base = reports[ranks[0]]
    base.sections = _merged_sections(reports)
    base.duration = max(report.duration for report in reports.values())
    if any(report.failed for report in reports.values()) or extra_failure is not None:
        base.longrepr = _failure_text(reports, world_size, extra_failure, blame)
        base.outcome = "failed"
    elif any(reports[rank].skipped for rank in ranks):
        skipped = next(reports[rank] for rank in ranks if reports[rank].skipped)
        base.outcome, base.longrepr = "skipped", skipped.longrepr
    return base


def _failure_text(reports: dict[int, pytest.TestReport], world_size: int, extra: str | None, blame: _Blame) -> str:
    """A first line for pytest's short summary, naming the rank that failed first,
    then every rank's part."""
    failed = [rank for rank in _in_failure_order(sorted(reports), blame.order) if reports[rank].failed]
    if blame.cause is not None:
        then = THEN_FAILED.format(rank=failed[0], message=_crash_message(reports[failed[0]])) if failed else ""
        blocks = [blame.cause + then]
    elif failed:
        ranks = ", ".join(map(str, sorted(failed)))
        first = FAILED_ON_RANKS.format(s="s" if len(failed) > 1 else "", ranks=ranks, world_size=world_size)
        if len(failed) > 1 and failed[0] != min(failed):
            first += FAILED_FIRST_ON.format(rank=failed[0])
        blocks = [f"{first}: {_crash_message(reports[failed[0]])}"]
    else:
        blocks = [extra] if extra else []  # why some ranks did not finish comes first
        extra = None
    for rank in sorted(reports):
        report = reports[rank]
        if report.failed:
            header = RANK_HEADER.format(rank=rank, world_size=world_size, outcome="failed")
            blocks.append(f"{header}\n{report.longreprtext.rstrip()}")
        else:
            blocks.append(RANK_HEADER.format(rank=rank, world_size=world_size, outcome="passed"))
    if extra:
        blocks.append(extra)
    return "\n\n".join(blocks)


def _in_failure_order(ranks: list[int], order: tuple[int, ...]) -> list[int]:
    return [rank for rank in order if rank in ranks] + [rank for rank in ranks if rank not in order]


def _crash_message(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    message = crash.message if crash is not None else report.longreprtext
    return message.strip().splitlines()[0] if message.strip() else ""


def _merged_sections(reports: dict[int, pytest.TestReport]) -> list[tuple[str, str]]:
    """Every rank's captured output; a section every rank has identically shows once."""
    titled: dict[str, dict[int, str]] = {}
    for rank, report in sorted(reports.items()):
        for title, content in report.sections:
            titled.setdefault(title, {})[rank] = content
    sections = []
    for title, contents in titled.items():
        same_everywhere = len(contents) == len(reports) or title == REPLAY_SECTION_TITLE
        if same_everywhere and len(set(contents.values())) == 1:
            sections.append((title, next(iter(contents.values()))))
        else:
            sections += [(f"{title} (rank {rank})", content) for rank, content in contents.items()]
    return sections


def _append_text(report: pytest.TestReport, text: str) -> None:
    report.longrepr = f"{report.longreprtext.rstrip()}\n\n{text}"


def _failed_report(item: pytest.Item, text: str, when: str, started: float) -> pytest.TestReport:
    now = time.time()
    return pytest.TestReport(
        item.nodeid,
        item.location,
        dict.fromkeys(item.keywords, 1),
        "failed",
        text,
        when,  # type: ignore[arg-type]
        duration=now - started,
        start=started,
        stop=now,
        user_properties=item.user_properties,
    )


# ----------------------------------------------------------------- in place


class LaunchedRank:
    """Plugin object for a process launched as one rank of several (torchrun, or a
    fresh rank process of a cuda run): joins the process group before each marked
    test, and in a rank torchcheck started, sends the reports to its supervisor."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.supervised = runner.is_supervised_rank()
        self.created_group = False
        self.reports: list[dict[str, Any]] = []
        self.warnings: list[WarningRecord] = []
        self.watchdog: threading.Timer | None = None
        if self.supervised:
            runner.register_stack_dump(os.environ[runner.STACK_FILE_ENV])

    def join(self, item: pytest.Item, plan: DistributedPlan) -> None:
        """Before the test's fixtures: the process group, this rank's GPU, the watchdog."""
        import torch.distributed as dist

        if not dist.is_initialized():
            runner.init_process_group_from_environment(self._backend(plan), plan.timeout)
            self.created_group = True
        if plan.device == "cuda":
            import torch

            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        if not self.supervised:
            self.watchdog = threading.Timer(plan.timeout, self._hung, args=(item, plan))
            self.watchdog.daemon = True
            self.watchdog.start()

    def _backend(self, plan: DistributedPlan) -> str:
        """A supervised rank runs one test, on its plan's backend. Under torchrun the
        group serves the whole session: gloo for CPU tensors, nccl for CUDA tensors."""
        if self.supervised:
            return plan.backend
        import torch

        return "cpu:gloo,cuda:nccl" if torch.cuda.is_available() else "gloo"

    def _hung(self, item: pytest.Item, plan: DistributedPlan) -> None:
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if capture is not None:
            capture.suspend_global_capture(in_=True)
        stacks = runner.python_stacks()
        header = WATCHDOG_HEADER.format(
            rank=os.environ.get("RANK", "?"),
            world_size=os.environ.get("WORLD_SIZE", "?"),
            nodeid=item.nodeid,
            timeout=plan.timeout,
            where=runner.waiting_in(stacks) or "Python code",
        )
        print(f"{header}\n{runner.trimmed_stack(stacks)}", file=sys.stderr, flush=True)
        # The other ranks' watchdogs fire at about the same time; once one rank exits,
        # torchrun stops the rest, so wait for them to print their stacks too.
        time.sleep(_WATCHDOG_EXIT_DELAY_SECONDS)
        os._exit(1)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        try:
            return (yield)
        finally:
            if self.watchdog is not None:
                self.watchdog.cancel()
                self.watchdog = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.supervised:
            if report.failed:
                runner.report_rank_failure()
            self.reports.append(_serialized(self.config, report))

    def pytest_warning_recorded(self, warning_message: warnings.WarningMessage) -> None:
        if self.supervised:
            self.warnings.append(WarningRecord.from_message(warning_message))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        if self.supervised:
            result_file = os.environ[runner.RESULT_FILE_ENV]
            runner.write_rank_result(result_file, (_RESULT_KIND, RankRun(self.reports, self.warnings)))
            runner.hold_until_released()
        if self.created_group:
            import torch.distributed as dist

            dist.destroy_process_group()


def require_process_group(fixture: str) -> None:
    """Fail the test with a clear message when no process group is up."""
    torch_distributed = sys.modules.get("torch.distributed")
    if torch_distributed is None or not torch_distributed.is_initialized():
        pytest.fail(NO_PROCESS_GROUP.format(fixture=fixture), pytrace=False)
