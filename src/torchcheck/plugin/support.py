"""Pure helpers behind the pytest plugin: settings, device plans, seeds, GPU pinning, and
the names every other plugin module shares (the replay section's title, the state-leak
warning). A leaf: it imports nothing from the plugin package.

Nothing here imports pytest or torch, so every decision the plugin makes about devices
can be unit-tested on a CPU-only machine by passing counts instead of probing hardware.
The plugin (``torchcheck.plugin``) turns the ``ValueError`` subclasses raised here into
``pytest.UsageError`` (exit code 4).

The value types are ``NamedTuple``s rather than frozen dataclasses: this module is
imported by every pytest session, and building a frozen dataclass at import costs about
a millisecond each (it compiles generated methods), a NamedTuple a fraction of that.
For the same reason hashlib and shlex are imported where a seed or a replay command is
made: not every Python's pytest imports them (nor hashlib's ``_blake2``) already.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from torchcheck.checks._localize_setting import LOCALIZE_ENV

DEVICE_KINDS: tuple[str, ...] = ("cpu", "cuda", "mps")
"""Device kinds the plugin knows, in the order their test ids are generated."""

DEFAULT_SEED = 0
SEED_BITS = 32  # numpy's legacy seeding rejects seeds >= 2**32
_TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
_FALSE_WORDS = frozenset({"0", "false", "no", "off"})

UNKNOWN_DEVICE_MESSAGE = (
    "{source}: unknown device {name!r}; expected a comma-separated list of {kinds}"
)
EMPTY_DEVICE_LIST_MESSAGE = "{source}: empty device list; expected e.g. 'cpu,cuda'"
BAD_SEED_MESSAGE = "{source}: expected a non-negative integer seed, got {text!r}"
BAD_BOOL_MESSAGE = "{source}: expected one of {words}, got {text!r}"
UNAVAILABLE_DEVICE_MESSAGE = (
    "{source} asked for {missing}, but {verb} not available on this machine "
    "(found: {found}). Refusing to run: a job that asks for a device must not go "
    "green by skipping every test."
)
DEVICE_ABSENT_REASON = "needs {device}, which is not available (found: {found})"
DEVICE_EXCLUDED_REASON = "needs {wanted}, but {source} restricts this run to {allowed}"
STATE_LEAK_MESSAGE = (
    "test leaked torch global state (torchcheck restored it before the next test):\n"
    "{changes}\nRestore it in the test (try/finally, a context manager, or the "
    "`seeded` fixture)."
)
STRICT_STATE_HINT = " --torchcheck-strict-state turns this warning into an error."
HEADER_LINE = (
    "torchcheck: torch {torch_version}, devices: {found}, seed: {seed} ({seed_source}), "
    "deterministic algorithms: {deterministic} (on inside `seeded`)"
)
REPLAY_SECTION_TITLE = "torchcheck replay"
REPLAY_SECTION = (
    "seed: {seed} (derived from --torchcheck-seed={base_seed} and the node id)\n"
    "replay: {command}"
)


class SettingError(ValueError):
    """A torchcheck setting has an invalid value; the message names where it came from."""


class DeviceUnavailableError(SettingError):
    """A device was explicitly requested but the machine does not have it."""


class TorchStateLeakWarning(UserWarning):
    """A test changed torch global state and did not restore it."""


# --- settings ---------------------------------------------------------------------


def first_setting(candidates: Sequence[tuple[str | None, str]]) -> tuple[str, str] | None:
    """Return ``(value, source)`` of the first candidate that is set, in priority order.

    ``candidates`` is ``[(value, source_label), ...]`` from highest priority (CLI) to
    lowest (ini); ``None`` and blank strings mean "not set here".
    """
    for value, source in candidates:
        if value is not None and value.strip():
            return value.strip(), source
    return None


def parse_devices(text: str, source: str) -> tuple[str, ...]:
    """Parse ``"cpu, cuda"`` into ``("cpu", "cuda")``, canonically ordered, no duplicates."""
    names = [part.strip().lower() for part in text.split(",") if part.strip()]
    if not names:
        raise SettingError(EMPTY_DEVICE_LIST_MESSAGE.format(source=source))
    for name in names:
        if name not in DEVICE_KINDS:
            raise SettingError(
                UNKNOWN_DEVICE_MESSAGE.format(
                    source=source, name=name, kinds=", ".join(DEVICE_KINDS)
                )
            )
    return tuple(kind for kind in DEVICE_KINDS if kind in names)


def parse_seed(text: str, source: str) -> int:
    try:
        seed = int(text.strip(), 0)
    except ValueError:
        raise SettingError(BAD_SEED_MESSAGE.format(source=source, text=text)) from None
    if seed < 0:
        raise SettingError(BAD_SEED_MESSAGE.format(source=source, text=text))
    return seed


def parse_bool(text: str, source: str) -> bool:
    word = text.strip().lower()
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    words = "/".join(sorted(_TRUE_WORDS | _FALSE_WORDS))
    raise SettingError(BAD_BOOL_MESSAGE.format(source=source, words=words, text=text))


class RawSettings(NamedTuple):
    """Unparsed setting values from one source (``None`` = not set there)."""

    devices: str | None = None
    seed: str | None = None
    strict_state: str | None = None


class SettingNames(NamedTuple):
    """What one setting is called on the command line, in the environment and in ini."""

    cli: str
    env: str
    ini: str


# Every name carries the torchcheck prefix, so that no other plugin can register it too
# (pytest-torch has --torch-device and --torch-seed; two plugins with one option name
# stop pytest from starting).
DEVICES_NAMES = SettingNames("--torchcheck-device", "TORCHCHECK_DEVICES", "torchcheck_devices")
SEED_NAMES = SettingNames("--torchcheck-seed", "TORCHCHECK_SEED", "torchcheck_seed")
STRICT_STATE_NAMES = SettingNames(
    "--torchcheck-strict-state", "TORCHCHECK_STRICT_STATE", "torchcheck_strict_state"
)
LOCALIZE_NAMES = SettingNames("--torchcheck-localize", LOCALIZE_ENV, "torchcheck_localize")
ENABLE_CLI = "--torchcheck"
ENABLE_INI = "torchcheck"


class Settings(NamedTuple):
    """The run's resolved settings, with where each came from (for error messages)."""

    devices: tuple[str, ...] | None = None  # None: every available device
    devices_source: str | None = None
    seed: int = DEFAULT_SEED
    seed_source: str = "default"
    strict_state: bool = False


def _pick(
    names: SettingNames, cli: str | None, env: Mapping[str, str], ini: str | None
) -> tuple[str, str] | None:
    return first_setting(
        [(cli, names.cli), (env.get(names.env), names.env), (ini, f"ini option {names.ini}")]
    )


def requested_devices(
    cli: str | None, env: Mapping[str, str], ini: str | None
) -> tuple[tuple[str, ...] | None, str | None]:
    """The run-wide device restriction and its source; ``(None, None)`` when unset."""
    picked = _pick(DEVICES_NAMES, cli, env, ini)
    if picked is None:
        return None, None
    text, source = picked
    return parse_devices(text, source), source


def resolve_settings(cli: RawSettings, env: Mapping[str, str], ini: RawSettings) -> Settings:
    """Resolve every setting with precedence CLI > environment > ini > default."""
    devices, devices_source = requested_devices(cli.devices, env, ini.devices)
    seed, seed_source = DEFAULT_SEED, "default"
    picked_seed = _pick(SEED_NAMES, cli.seed, env, ini.seed)
    if picked_seed is not None:
        seed, seed_source = parse_seed(*picked_seed), picked_seed[1]
    picked_strict = _pick(STRICT_STATE_NAMES, cli.strict_state, env, ini.strict_state)
    strict = parse_bool(*picked_strict) if picked_strict is not None else False
    return Settings(devices, devices_source, seed, seed_source, strict)


def plugin_enabled(cli_enable: bool, cli_settings: Sequence[str | None], ini_enable: bool) -> bool:
    """Whether this run turned the plugin on.

    ``--torchcheck``, or any other torchcheck option on the command line (a replay
    command, ``--torchcheck-device cuda`` in a GPU job), turns it on for the run;
    ``torchcheck = true`` in the ini file turns it on for every run of the repository.
    The environment never does: a variable reaches every repository run in that shell,
    and installing torchcheck must change no suite that did not ask for it.
    """
    return cli_enable or ini_enable or any(value is not None for value in cli_settings)


# --- devices ----------------------------------------------------------------------


class FoundDevices(NamedTuple):
    """What the machine has, as counts (so tests can fake a GPU machine)."""

    cuda_count: int = 0
    mps_available: bool = False

    @property
    def kinds(self) -> tuple[str, ...]:
        present = {"cpu": True, "cuda": self.cuda_count > 0, "mps": self.mps_available}
        return tuple(kind for kind in DEVICE_KINDS if present[kind])

    def describe(self) -> str:
        """``"cpu, cuda x2"`` style summary used in the header and in error messages."""
        parts = ["cpu"]
        if self.cuda_count == 1:
            parts.append("cuda")
        elif self.cuda_count > 1:
            parts.append(f"cuda x{self.cuda_count}")
        if self.mps_available:
            parts.append("mps")
        if self.cuda_count == 0:
            parts.append("no CUDA device")
        return ", ".join(parts)


def check_requested_available(
    requested: tuple[str, ...], source: str, found: FoundDevices
) -> None:
    """Raise ``DeviceUnavailableError`` naming the missing devices and what was found."""
    missing = [kind for kind in requested if kind not in found.kinds]
    if missing:
        raise DeviceUnavailableError(
            UNAVAILABLE_DEVICE_MESSAGE.format(
                source=f"{source}={','.join(requested)}",
                missing=" and ".join(missing),
                verb="it is" if len(missing) == 1 else "they are",
                found=found.describe(),
            )
        )


class TestDevicePlan(NamedTuple):
    """Devices one test runs on, and the ones it is generated for but skipped on."""

    __test__ = False  # not a pytest test class despite the name

    run: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...] = ()  # (device, reason)


def plan_test_devices(
    wanted: tuple[str, ...] | None,
    requested: tuple[str, ...] | None,
    requested_source: str | None,
    found: FoundDevices,
) -> TestDevicePlan:
    """Decide which ``torch_device`` values one test gets.

    ``wanted`` comes from the test's markers (``devices(...)``, ``cuda``, ``mps``): the
    test needs one of those. ``requested`` is the run-wide restriction
    (``--torchcheck-device``/env/ini), already checked to be available, so a device the
    user asked for is never absent here. Absent devices are simply not generated, marked
    test or not. A marked test whose devices are all absent or excluded is generated
    once, skipped with a reason, so the skip is visible instead of the test vanishing.
    """
    allowed = requested if requested is not None else DEVICE_KINDS
    if wanted is None:
        return TestDevicePlan(run=tuple(k for k in allowed if k in found.kinds))
    in_run = tuple(k for k in DEVICE_KINDS if k in wanted and k in allowed)
    if not in_run:
        reason = DEVICE_EXCLUDED_REASON.format(
            wanted=" or ".join(wanted), source=requested_source, allowed=",".join(allowed)
        )
        return TestDevicePlan(run=(), skipped=((wanted[0], reason),))
    run = tuple(k for k in in_run if k in found.kinds)
    if run:
        return TestDevicePlan(run=run)
    reason = DEVICE_ABSENT_REASON.format(device=" or ".join(in_run), found=found.describe())
    return TestDevicePlan(run=(), skipped=((in_run[0], reason),))


def device_marker_skip_reason(
    needed: str,
    requested: tuple[str, ...] | None,
    requested_source: str | None,
    found: FoundDevices,
) -> str | None:
    """Why a test marked ``@pytest.mark.<needed>`` must be skipped, or ``None`` to run it."""
    if requested is not None and needed not in requested:
        return DEVICE_EXCLUDED_REASON.format(
            wanted=needed, source=requested_source, allowed=",".join(requested)
        )
    if needed not in found.kinds:
        return DEVICE_ABSENT_REASON.format(device=needed, found=found.describe())
    return None


# --- seeds and replay -------------------------------------------------------------


def derive_seed(base_seed: int, nodeid: str) -> int:
    """Per-test seed from the base seed and the node id.

    sha256, not ``hash()``: string hashing is salted per process, and the seed must be
    the same alone, in a full run, in any order and on any xdist worker.
    """
    import hashlib

    digest = hashlib.sha256(f"{base_seed}\0{nodeid}".encode()).digest()
    return int.from_bytes(digest[: SEED_BITS // 8], "big")


def replay_command(nodeid: str, base_seed: int, device: str | None) -> str:
    import shlex

    parts = ["pytest", shlex.quote(nodeid), f"{SEED_NAMES.cli}={base_seed}"]
    if device is not None:
        parts.append(f"{DEVICES_NAMES.cli}={device}")
    return " ".join(parts)


def replay_section(nodeid: str, base_seed: int, device: str | None) -> str:
    return REPLAY_SECTION.format(
        seed=derive_seed(base_seed, nodeid),
        base_seed=base_seed,
        command=replay_command(nodeid, base_seed, device),
    )


def format_state_leak(changes: Sequence[str], *, strict: bool) -> str:
    message = STATE_LEAK_MESSAGE.format(changes="\n".join(f"  - {c}" for c in changes))
    return message if strict else message + STRICT_STATE_HINT


def format_header(
    torch_version: str, found: FoundDevices, seed: int, seed_source: str, deterministic: bool
) -> str:
    return HEADER_LINE.format(
        torch_version=torch_version,
        found=found.describe(),
        seed=seed,
        seed_source=seed_source,
        deterministic="on" if deterministic else "off",
    )


# --- xdist GPU pinning ------------------------------------------------------------


def cuda_allowed(requested: tuple[str, ...] | None) -> bool:
    """Whether this run may use CUDA at all (so pinning is worth doing)."""
    return requested is None or "cuda" in requested


def parse_visible_devices(mask: str) -> tuple[str, ...]:
    """Entries of a ``CUDA_VISIBLE_DEVICES`` value, as CUDA reads them.

    Entries may be indices or ``GPU-<uuid>``/``MIG-<uuid>`` names and are kept verbatim.
    CUDA ignores everything from the first invalid entry on; a negative index is the
    usual way to write "no GPU", so parsing stops there too.
    """
    entries: list[str] = []
    for part in mask.split(","):
        entry = part.strip()
        if not entry or entry.startswith("-"):
            break
        entries.append(entry)
    return tuple(entries)


def worker_index(worker_id: str) -> int | None:
    """``"gw3"`` -> 3; ``None`` for anything that is not an xdist worker id."""
    digits = worker_id[2:] if worker_id.startswith("gw") else ""
    return int(digits) if digits.isdigit() else None


def worker_visible_devices(
    index: int, worker_count: int, visible: Sequence[str]
) -> tuple[str, ...] | None:
    """The slice of the caller's visible GPUs that xdist worker ``index`` should see.

    With at least as many GPUs as workers each worker gets its own contiguous block
    (one GPU each when the counts match; the remainder goes to the first workers).
    With fewer GPUs than workers they are shared round-robin. ``None`` means "leave the
    mask alone" (a single worker, or at most one GPU: nothing to spread).
    """
    count = len(visible)
    if worker_count <= 1 or count <= 1 or not 0 <= index < worker_count:
        return None
    if count < worker_count:
        return (visible[index % count],)
    base, extra = divmod(count, worker_count)
    start = index * base + min(index, extra)
    return tuple(visible[start : start + base + (1 if index < extra else 0)])
