"""The torchcheck plugin proper: markers, fixtures and hooks for a run that turned it on.

``torchcheck.plugin`` (the entry point) registers this module in ``pytest_configure`` when
the run asks for it (``torchcheck = true`` in the ini file, ``--torchcheck`` or another
torchcheck option on the command line), so a suite that never asked sees none of it. Read
top to bottom in pytest's lifecycle order: configure -> report header -> collection ->
setup and call (distributed tests, fixtures, the state guard) -> reporting -> unconfigure.

Loading this module imports neither torch nor libcst. torch is imported only when a test
uses ``torch_device`` or ``seeded``, when a device is explicitly requested, or when the
session has already imported it itself (the header and the state guard read it from
``sys.modules``). The decisions themselves live in ``torchcheck.plugin.support`` as pure
functions over counts, testable without a GPU; what the session resolved once (settings,
devices found) in ``torchcheck.plugin.session``. Distributed tests have their decisions in
``torchcheck.plugin.distributed_plan`` and their run-time machinery (starting ranks, merging
their reports, joining a torchrun launch) in ``torchcheck.plugin.distributed``, both
imported only by a session that has such a test or runs as one rank of a launch.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Generator, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import pytest

from torchcheck import INSTALL_HINT
from torchcheck.plugin.session import SETTINGS_KEY, found_devices, run_settings
from torchcheck.plugin.support import (
    DEVICE_KINDS,
    DEVICES_NAMES,
    LOCALIZE_NAMES,
    REPLAY_SECTION_TITLE,
    SEED_NAMES,
    STRICT_STATE_NAMES,
    DeviceUnavailableError,
    FoundDevices,
    RawSettings,
    SettingError,
    Settings,
    TorchStateLeakWarning,
    check_requested_available,
    derive_seed,
    device_marker_skip_reason,
    first_setting,
    format_header,
    format_state_leak,
    parse_devices,
    plan_test_devices,
    replay_section,
    resolve_settings,
)

if TYPE_CHECKING:
    import torch

    from torchcheck.plugin.distributed import LaunchedRank
    from torchcheck.plugin.distributed_plan import DistributedPlan, LaunchedWorld
    from torchcheck.plugin.golden import GoldenCurveRunner, GoldenSettings, GoldenSummary

# --- user-facing strings, defined once --------------------------------------------

MARKER_DOCS: tuple[str, ...] = (
    "cpu: test runs on CPU (torch_device adds it to its cpu runs).",
    "cuda: test needs a CUDA device; skipped with a reason when none is available "
    "(torch_device adds it to its cuda runs, so `-m cuda` selects the GPU runs).",
    "mps: test needs an Apple MPS device; skipped with a reason when unavailable.",
    "devices(*names): restrict the torch_device fixture to these devices for one test, "
    "e.g. @pytest.mark.devices('cpu', 'cuda'); those the machine lacks are not generated.",
    "distributed(world_size=2, backend=None, timeout=120): run the test on world_size "
    "ranks, each a process with a process group initialised (gloo on cpu, nccl and one "
    "GPU per rank on cuda); fixtures rank and world_size. A failure on any rank fails the "
    "test; a hang past timeout seconds fails it with every rank's stack. Under torchrun "
    "the test runs in place on each rank.",
    "multi_gpu: a cuda run of a test marked distributed with world_size of 2 or more (added "
    "by the plugin), so a one-GPU job can leave it out with -m 'cuda and not multi_gpu'.",
    "golden: the test compares a training curve with its golden file (added to every test "
    "that uses the golden_curve fixture, so `-m golden` selects them).",
)
DEVICES_MARKER_SOURCE = "@pytest.mark.devices on {nodeid}"
DISTRIBUTED_MARKER_SOURCE = "@pytest.mark.distributed on {nodeid}"
TORCH_MISSING = (
    "torchcheck: {what} needs PyTorch, which is not installed in this environment. "
    "Install it with {hint}, or turn the plugin off with -p no:torchcheck."
)
FIXTURES_WHAT = "using the torch_device or seeded fixture"
DISTRIBUTED_WHAT = "a test marked distributed"

# Annotated rather than subscripted (StashKey[bool]()): no generic alias is built at import.
_HEADER_SHOWN_KEY: pytest.StashKey[bool] = pytest.StashKey()
_LAUNCHED_RANK_KEY: pytest.StashKey[LaunchedRank] = pytest.StashKey()
_DISTRIBUTED_PLAN_KEY: pytest.StashKey[DistributedPlan] = pytest.StashKey()
_DISTRIBUTED_ERROR_KEY: pytest.StashKey[str] = pytest.StashKey()
_DEVICE_UNAVAILABLE_KEY: pytest.StashKey[str] = pytest.StashKey()
_TORCHCHECK_FIXTURES = frozenset({"torch_device", "seeded", "rank", "world_size", "golden_curve"})
_GOLDEN_SETTINGS_KEY: pytest.StashKey[GoldenSettings] = pytest.StashKey()
_GOLDEN_SUMMARY_KEY: pytest.StashKey[GoldenSummary] = pytest.StashKey()


class SetupProblem(pytest.fail.Exception):  # type: ignore[misc,name-defined]
    """A test cannot run as written (PyTorch missing, a bad marker, no process group):
    fails it without a traceback and without a replay section, there being nothing to
    replay."""


# --- configure ----------------------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    for doc in MARKER_DOCS:
        config.addinivalue_line("markers", doc)
    config.pluginmanager.register(_AfterDeselection(), "torchcheck-after-deselection")
    settings = _resolve_settings(config)
    config.stash[SETTINGS_KEY] = settings
    if settings.devices is not None and settings.devices != ("cpu",):
        # Explicitly requested devices must exist: fail now (exit code 4) rather than
        # let a GPU job go green by skipping everything. (A cpu is always there.)
        missing = _missing_torch(f"{settings.devices_source}={','.join(settings.devices)}")
        if missing is not None:
            raise pytest.UsageError(missing)
        try:
            check_requested_available(
                settings.devices, settings.devices_source or "", found_devices(config)
            )
        except DeviceUnavailableError as error:
            raise pytest.UsageError(str(error)) from None
    if _launched() is not None:
        _launched_rank(config)  # sets up reporting to a supervisor before any test runs
    _configure_golden(config)
    _configure_localize(config)
    from torchcheck.plugin.model_items import configure as configure_model_items

    configure_model_items(config)


def _resolve_settings(config: pytest.Config) -> Settings:
    strict_flag = config.getoption("torchcheck_strict_state")
    cli = RawSettings(
        devices=config.getoption("torchcheck_device"),
        seed=config.getoption("torchcheck_seed"),
        strict_state="true" if strict_flag else None,
    )
    ini = RawSettings(
        devices=_ini_text(config, DEVICES_NAMES.ini),
        seed=_ini_text(config, SEED_NAMES.ini),
        strict_state=_ini_bool_text(config, STRICT_STATE_NAMES.ini),
    )
    try:
        return resolve_settings(cli, os.environ, ini)
    except SettingError as error:
        raise pytest.UsageError(str(error)) from None


def _configure_localize(config: pytest.Config) -> None:
    """Resolve ``--torchcheck-localize`` (CLI > env > ini) and make it the checks' default
    for this session; a bad value stops the run (exit code 4)."""
    from torchcheck.checks._localize_setting import parse_level, set_run_level

    picked = first_setting(
        [
            (config.getoption("torchcheck_localize", None), LOCALIZE_NAMES.cli),
            (os.environ.get(LOCALIZE_NAMES.env), LOCALIZE_NAMES.env),
            (_ini_text(config, LOCALIZE_NAMES.ini), f"ini option {LOCALIZE_NAMES.ini}"),
        ]
    )
    if picked is None:
        return
    try:
        previous = set_run_level(parse_level(*picked))
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    config.add_cleanup(lambda: set_run_level(previous))


def _ini_text(config: pytest.Config, name: str) -> str | None:
    value = config.getini(name)
    return str(value) if value else None


def _ini_bool_text(config: pytest.Config, name: str) -> str | None:
    """A ``type="bool"`` key as the text ``resolve_settings`` parses; ``None`` if unset."""
    value = config.getini(name)
    return str(value).lower() if isinstance(value, bool) else None


def _configure_golden(config: pytest.Config) -> None:
    """Resolve the golden settings now, so a bad value stops the run (exit code 4)."""
    from torchcheck.plugin.golden import GoldenSummary, resolve_golden_settings

    try:
        config.stash[_GOLDEN_SETTINGS_KEY] = resolve_golden_settings(
            config.getoption("torchcheck_update_golden", None),
            config.getoption("torchcheck_golden_missing", None),
            os.environ,
            _ini_text(config, "torchcheck_golden_missing"),
            _ini_text(config, "torchcheck_golden_dir"),
            config.getini("torchcheck_golden_required"),
        )
    except SettingError as error:
        raise pytest.UsageError(str(error)) from None
    summary = GoldenSummary()
    config.stash[_GOLDEN_SUMMARY_KEY] = summary
    config.pluginmanager.register(summary, "torchcheck-golden-summary")


def _launched() -> LaunchedWorld | None:
    """The launch this process is one rank of: torchrun's environment (or torchcheck's,
    for the ranks of a cuda run), or a process group the session already initialised."""
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        from torchcheck.plugin.distributed_plan import launched_world

        try:
            return launched_world(os.environ)
        except SettingError as error:
            raise pytest.UsageError(str(error)) from None
    distributed = sys.modules.get("torch.distributed")
    if distributed is None or not distributed.is_available() or not distributed.is_initialized():
        return None
    from torchcheck.plugin.distributed_plan import LaunchedWorld

    rank, world_size = distributed.get_rank(), distributed.get_world_size()
    return LaunchedWorld(rank, world_size, rank, world_size)


def _launched_rank(config: pytest.Config) -> LaunchedRank:
    launched = config.stash.get(_LAUNCHED_RANK_KEY, None)
    if launched is None:
        from torchcheck.plugin.distributed import LaunchedRank

        launched = LaunchedRank(config)
        config.pluginmanager.register(launched, "torchcheck-launched-rank")
        config.stash[_LAUNCHED_RANK_KEY] = launched
    return launched


def _missing_torch(what: str) -> str | None:
    """``None`` if torch imports; otherwise a message saying what to install."""
    try:
        import torch  # noqa: F401
    except ModuleNotFoundError as error:
        if error.name != "torch":
            raise
        return TORCH_MISSING.format(what=what, hint=INSTALL_HINT)
    return None


# --- report header ------------------------------------------------------------------


def pytest_report_header(config: pytest.Config) -> str | None:
    """One line about torch, devices, seed and determinism -- if torch is in play.

    Shown only when torch is already imported (by a conftest, or to check requested
    devices); otherwise the line is printed after collection if a test uses a
    torchcheck fixture, so a non-torch suite never imports torch for a header.
    """
    if "torch" not in sys.modules:
        return None
    return _header_line(config)


def _header_line(config: pytest.Config) -> str:
    config.stash[_HEADER_SHOWN_KEY] = True
    missing = _missing_torch(FIXTURES_WHAT)
    if missing is not None:
        return missing
    import torch

    settings = run_settings(config)
    return format_header(
        torch_version=str(torch.__version__),
        found=found_devices(config),
        seed=settings.seed,
        seed_source=settings.seed_source,
        deterministic=torch.are_deterministic_algorithms_enabled(),
    )


# --- collection ---------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> Generator[None, Any, Any]:
    """Parametrize ``torch_device`` over the devices this test may run on.

    In a run that turned torchcheck on, ``torch_device`` is torchcheck's: its values come
    from here or from the test's own ``parametrize`` mark. Another plugin that
    parametrizes a fixture of that name too (pytest-torch does) would stop collection
    with "duplicate parametrization", so, wrapping every other implementation of this
    hook, this one drops such a call.
    """
    if "torch_device" not in metafunc.fixturenames:
        return (yield)
    if not _parametrized_by_user(metafunc):
        _parametrize_torch_device(metafunc)
    parametrize = metafunc.parametrize

    def parametrize_unless_torch_device(argnames: Any, *args: Any, **kwargs: Any) -> None:
        if _argnames(argnames) != ["torch_device"] or _from_a_mark(metafunc, args, kwargs):
            parametrize(argnames, *args, **kwargs)

    metafunc.parametrize = parametrize_unless_torch_device  # type: ignore[method-assign]
    try:
        return (yield)
    finally:
        del metafunc.parametrize


def _from_a_mark(metafunc: pytest.Metafunc, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a ``parametrize`` call is pytest applying a mark: it passes the mark's own
    list of values."""
    values = args[0] if args else kwargs.get("argvalues")
    for marker in metafunc.definition.iter_markers("parametrize"):
        marked = marker.args[1] if len(marker.args) > 1 else marker.kwargs.get("argvalues")
        if marked is values:
            return True
    return False


def _parametrize_torch_device(metafunc: pytest.Metafunc) -> None:
    config = metafunc.config
    settings = run_settings(config)
    plan = plan_test_devices(
        _wanted_devices(metafunc.definition),
        settings.devices,
        settings.devices_source,
        found_devices(config),
    )
    params = [pytest.param(d, id=d, marks=getattr(pytest.mark, d)) for d in plan.run]
    params += [
        pytest.param(d, id=d, marks=[getattr(pytest.mark, d), pytest.mark.skip(reason=why)])
        for d, why in plan.skipped
    ]
    metafunc.parametrize("torch_device", params, indirect=True)


def _parametrized_by_user(metafunc: pytest.Metafunc) -> bool:
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0] if marker.args else marker.kwargs.get("argnames", "")
        if "torch_device" in _argnames(names):
            return True
    return False


def _argnames(names: Any) -> list[str]:
    if isinstance(names, str):
        return [n.strip() for n in names.split(",") if n.strip()]
    return list(names)


def _wanted_devices(definition: pytest.Item) -> tuple[str, ...] | None:
    """Devices the test's markers ask for: ``devices(...)`` wins over ``cuda``/``mps``."""
    marker = definition.get_closest_marker("devices")
    if marker is not None:
        source = DEVICES_MARKER_SOURCE.format(nodeid=definition.nodeid)
        try:
            return parse_devices(",".join(map(str, marker.args)), source)
        except SettingError as error:
            pytest.fail(str(error), pytrace=False)
    marked = tuple(k for k in DEVICE_KINDS if definition.get_closest_marker(k) is not None)
    return marked or None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip tests marked ``cuda``/``mps``/``cpu`` whose device is absent or excluded.

    Items generated by ``torch_device`` are already planned. Devices are probed (which
    imports torch) only if some other test carries a device marker.
    """
    settings = run_settings(config)
    _plan_distributed_tests(config, items)
    for item in items:
        if "golden_curve" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.golden)
        if "torch_device" in _callspec_params(item):
            continue
        for kind in DEVICE_KINDS:
            if item.get_closest_marker(kind) is None:
                continue
            if kind == "cpu" and (settings.devices is None or "cpu" in settings.devices):
                continue  # cpu always exists: no need to import torch to know that
            reason = device_marker_skip_reason(
                kind, settings.devices, settings.devices_source, found_devices(config)
            )
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
                break


class _AfterDeselection:
    """Hooks that run after -m and -k have deselected tests."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """A selected distributed test whose explicitly requested devices are too few stops
        the run (exit code 4); one that -m or -k left out does not."""
        for item in items:
            error = item.stash.get(_DEVICE_UNAVAILABLE_KEY, None)
            if error is not None:
                raise pytest.UsageError(error)


def _plan_distributed_tests(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Decide how each ``distributed`` test runs (or skip it with a reason). A bad marker
    fails that test at setup; too few GPUs for an explicitly requested cuda is exit 4."""
    marked = [(item, marker) for item in items if (marker := item.get_closest_marker("distributed"))]
    if not marked:
        return
    missing = _missing_torch(DISTRIBUTED_WHAT)
    if missing is not None:
        for item, _ in marked:
            item.add_marker(pytest.mark.skip(reason=missing))
        return
    from torchcheck.plugin.distributed_plan import (
        distributed_device,
        parse_distributed_marker,
        plan_distributed,
    )

    settings = run_settings(config)
    launched = _launched()
    for item, marker in marked:
        source = DISTRIBUTED_MARKER_SOURCE.format(nodeid=item.nodeid)
        try:
            request = parse_distributed_marker(marker.args, marker.kwargs, source)
        except SettingError as error:
            item.stash[_DISTRIBUTED_ERROR_KEY] = str(error)
            continue
        device_param = _callspec_params(item).get("torch_device")
        cuda_marked = item.get_closest_marker("cuda") is not None
        device = distributed_device(request, device_param, cuda_marked)
        if device == "cuda" and request.world_size >= 2:
            item.add_marker(pytest.mark.multi_gpu)
        found = found_devices(config) if device == "cuda" else FoundDevices()
        try:
            plan = plan_distributed(
                request,
                device,
                nodeid=item.nodeid,
                requested=settings.devices,
                requested_source=settings.devices_source,
                found=found,
                launched=launched,
            )
        except DeviceUnavailableError as error:
            # Exit 4 only if the test is still selected after -m and -k (see below).
            item.stash[_DEVICE_UNAVAILABLE_KEY] = str(error)
            continue
        item.stash[_DISTRIBUTED_PLAN_KEY] = plan
        if plan.skip_reason is not None:
            item.add_marker(pytest.mark.skip(reason=plan.skip_reason))


def pytest_report_collectionfinish(
    config: pytest.Config, items: list[pytest.Item]
) -> str | None:
    """The header line, late, for sessions that use torchcheck fixtures but did not
    have torch imported when the header was written (not shown under xdist)."""
    if config.stash.get(_HEADER_SHOWN_KEY, False) or not any(map(_uses_torchcheck, items)):
        return None
    return _header_line(config)


def _callspec_params(item: pytest.Item) -> Mapping[str, Any]:
    callspec = getattr(item, "callspec", None)
    return callspec.params if callspec is not None else {}


def _uses_torchcheck(item: pytest.Item) -> bool:
    return not _TORCHCHECK_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))


# --- setup and call: distributed tests, fixtures, the state guard ------------------


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """Run a ``distributed`` test on its ranks and log one merged report per phase.

    Tests that run in place (under torchrun), are skipped, or have a bad marker take
    pytest's ordinary protocol.
    """
    plan = item.stash.get(_DISTRIBUTED_PLAN_KEY, None)
    if plan is None or plan.in_place or plan.skip_reason is not None:
        return None
    from torchcheck.plugin.distributed import run_distributed_item

    run_distributed_item(item, nextitem, plan, run_settings(item.config))
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a test whose ``distributed`` marker is invalid. On a rank (forked, started
    as a fresh process, or launched by torchrun), join the process group if launched,
    and seed every generator with the test's seed before its fixtures are set up."""
    error = item.stash.get(_DISTRIBUTED_ERROR_KEY, None)
    if error is not None:
        raise SetupProblem(error, pytrace=False)
    plan = item.stash.get(_DISTRIBUTED_PLAN_KEY, None)
    if plan is None or plan.skip_reason is not None:
        return
    if plan.in_place:
        _launched_rank(item.config).join(item, plan)
    _seed_rank(item)


def _seed_rank(item: pytest.Item) -> None:
    """Every rank of a distributed test draws the same numbers: a fork inherits the
    parent's generators, but a fresh process starts from a random seed of its own, and
    data generated in the test would differ from rank to rank. The seed is the test's,
    from the node id, whatever the start method."""
    from torchcheck.checks.seeding import seed_everything

    seed_everything(derive_seed(run_settings(item.config).seed, item.nodeid))


@pytest.fixture
def torch_device(request: pytest.FixtureRequest) -> torch.device:
    """The device this run of the test uses; the test is parametrized over devices.

    Ids are ``cpu``/``cuda``/``mps`` and each run carries that device's marker, so
    ``pytest -m cuda`` selects the GPU runs. Restrict the run with
    ``--torchcheck-device``, one test with ``@pytest.mark.devices(...)``.
    """
    _fail_without_torch("the torch_device fixture")
    import torch

    device = getattr(request, "param", "cpu")
    if request.node.get_closest_marker("distributed") is not None:
        from torchcheck.plugin.distributed_plan import rank_device

        device = rank_device(device, os.environ)  # each rank its own GPU
    return torch.device(device)


@pytest.fixture
def seeded(request: pytest.FixtureRequest) -> Iterator[int]:
    """Seed every RNG with this test's seed, turn on deterministic algorithms, yield the
    seed, and restore all global state afterwards (``torchcheck.seeded``)."""
    _fail_without_torch("the seeded fixture")
    from torchcheck.checks.seeding import seeded as seeded_block

    seed = derive_seed(run_settings(request.config).seed, request.node.nodeid)
    with seeded_block(seed, deterministic=True):
        yield seed


@pytest.fixture
def rank() -> int:
    """This process's rank, ``torch.distributed.get_rank()``, in a test marked
    ``@pytest.mark.distributed``."""
    return _torch_distributed("rank").get_rank()


@pytest.fixture
def world_size() -> int:
    """The number of ranks, ``torch.distributed.get_world_size()``, in a test marked
    ``@pytest.mark.distributed``."""
    return _torch_distributed("world_size").get_world_size()


def _torch_distributed(fixture: str) -> Any:
    """``torch.distributed``, once it is sure a process group is up."""
    _fail_without_torch(f"the {fixture} fixture")
    from torchcheck.plugin.distributed import require_process_group

    try:
        require_process_group(fixture)
    except pytest.fail.Exception as failure:
        raise SetupProblem(failure.msg, pytrace=False) from None
    import torch.distributed

    return torch.distributed


def _fail_without_torch(fixture: str) -> None:
    missing = _missing_torch(fixture)
    if missing is not None:
        raise SetupProblem(missing, pytrace=False)


@pytest.fixture
def golden_curve(request: pytest.FixtureRequest) -> GoldenCurveRunner:
    """``golden_curve(make_model, make_optimizer, step_fn, batches, *, name="curve",
    steps=None, dtype=None, tolerance=None, metrics=None, seed_checkpoint=True,
    scaler=None)``: train on the test's ``torch_device`` (cpu without one) with the test's
    seed and compare with the golden curve of this machine's key
    (``torchcheck.run_training`` + ``torchcheck.assert_golden_curve``); returns the curve.
    ``--torchcheck-update-golden`` records instead of comparing."""
    _fail_without_torch("the golden_curve fixture")
    from torchcheck.plugin.golden import GoldenCurveRunner

    settings = run_settings(request.config)

    def device_requested(device_type: str) -> bool:
        explicit = settings.devices_source in (DEVICES_NAMES.cli, DEVICES_NAMES.env)
        return explicit and settings.devices is not None and device_type in settings.devices

    return GoldenCurveRunner(request, request.config.stash[_GOLDEN_SETTINGS_KEY], settings.seed, device_requested)


@pytest.fixture(autouse=True)
def _torchcheck_state_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each test, restore torch global state the test leaked, then report it.

    Autouse and function-scoped, and set up before the test's other function-scoped
    fixtures, so its baseline already includes what session/module fixtures set up and
    its check runs after the test's own fixtures were torn down. Does nothing unless
    torch is already imported.
    """
    if "torch" not in sys.modules:
        yield
        return
    from torchcheck.checks.state import (
        capture_global_state,
        describe_state_changes,
        restore_global_state,
    )

    before = capture_global_state()
    yield
    after = capture_global_state()
    if after == before:
        return
    restore_global_state(before)  # first, so one leaking test never breaks the next
    strict = run_settings(request.config).strict_state
    message = format_state_leak(describe_state_changes(before, after), strict=strict)
    if strict:
        pytest.fail(message, pytrace=False)
    _warn_at_test(request.node, TorchStateLeakWarning(message))


def _warn_at_test(item: pytest.Item, warning: Warning) -> None:
    """Attribute the warning to the test's own file and line, not to this plugin."""
    path, lineno, _ = item.reportinfo()
    line = (lineno or 0) + 1
    warnings.warn_explicit(warning, type(warning), filename=str(path), lineno=line)


# --- reporting ----------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Give failing tests that used torchcheck fixtures a replay section with the seed,
    unless the test could not run at all (there is nothing to replay then)."""
    report: pytest.TestReport = yield
    if report.failed and _uses_torchcheck(item) and not _is_setup_problem(call):
        device = _callspec_params(item).get("torch_device")
        if device not in DEVICE_KINDS:
            device = None  # the test parametrized torch_device itself (e.g. "meta")
        base_seed = run_settings(item.config).seed
        section = replay_section(item.nodeid, base_seed, device)
        report.sections.append((REPLAY_SECTION_TITLE, section))
    return report


def _is_setup_problem(call: pytest.CallInfo[None]) -> bool:
    return call.excinfo is not None and isinstance(call.excinfo.value, SetupProblem)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Count the goldens compared, written and skipped, so a job that compared nothing shows."""
    summary = config.stash.get(_GOLDEN_SUMMARY_KEY, None)
    lines = summary.lines() if summary is not None else []
    if not lines:
        return
    terminalreporter.write_sep("-", "torchcheck golden curves")
    for line in lines:
        terminalreporter.write_line(line)
    summary.write_github_summary(os.environ)


# --- unconfigure --------------------------------------------------------------------
# Nothing to do here: what configure changes outside the session (the checks' localize
# level) is put back by the cleanup it registers with ``config.add_cleanup``.
