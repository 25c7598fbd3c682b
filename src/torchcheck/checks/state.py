"""Snapshots of the process-wide state that torch code can silently change.

Used by every check (each one leaves the process as it found it, also when it fails)
and by the pytest plugin's state guard (which warns when a test leaks a change). Three
independent parts:

* :class:`TorchGlobalState` -- cheap, comparable settings that change what torch
  computes: default dtype and device, grad mode, determinism, cudnn, TF32 and matmul
  precision, anomaly detection, flush-denormal, autocast, threads. Capturing it never
  initialises CUDA. The state guard compares and restores exactly this.
* :class:`PrintOptions` -- how tensors print (``torch.set_printoptions``). Restored by
  the checks; the state guard leaves it alone, since it changes no result.
* :class:`RngState` -- the generators of python ``random``, numpy (if installed), torch
  CPU, every CUDA device and MPS. Restoring it replays randomness exactly.
* :class:`SavedTensorsHooks` -- the stack of saved-tensors hooks
  (``torch.autograd.graph.saved_tensors_hooks``): a step that pushes one and never pops
  it would route every later backward of the process through it.

:func:`preserved_state` and :func:`preserved_module` combine them for the checks.
"""

from __future__ import annotations

import contextlib
import dataclasses
import operator
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from typing import Any, TypeVar

import torch
import torch.utils.deterministic

from torchcheck.checks._rank_runner import is_forked_rank

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = [
    "ModuleSnapshot",
    "PrintOptions",
    "RngState",
    "SavedTensorsHooks",
    "TorchGlobalState",
    "capture_global_state",
    "capture_print_options",
    "capture_rng_state",
    "capture_saved_tensors_hooks",
    "cuda_usable",
    "describe_state_changes",
    "preserved_module",
    "preserved_state",
    "restore_global_state",
    "restore_print_options",
    "restore_rng_state",
    "restore_saved_tensors_hooks",
]

_T = TypeVar("_T")

#: Device types whose autocast flags and dtypes are captured (reading them for a device
#: this machine lacks is harmless and never initialises it).
AUTOCAST_DEVICE_TYPES: tuple[str, ...] = ("cpu", "cuda", "mps")

#: torch's per-backend TF32 settings (the ``fp32_precision`` API of torch >= 2.9),
#: parents before children: setting a parent can change its children, so they are
#: restored top-down, each one only if it still differs.
FP32_PRECISION_SETTINGS: tuple[str, ...] = (
    "backends.fp32_precision",
    "backends.cudnn.fp32_precision",
    "backends.cuda.matmul.fp32_precision",
    "backends.cudnn.conv.fp32_precision",
    "backends.cudnn.rnn.fp32_precision",
    "backends.mkldnn.fp32_precision",
    "backends.mkldnn.matmul.fp32_precision",
    "backends.mkldnn.conv.fp32_precision",
    "backends.mkldnn.rnn.fp32_precision",
)
_FP32_PRECISION_GETTERS = {path: operator.attrgetter(path) for path in FP32_PRECISION_SETTINGS}

# The smallest positive float64: a subnormal, so flush-to-zero turns it into 0.
_SUBNORMAL = 5e-324

_FIELD_LABELS: dict[str, str] = {
    "default_dtype": "default dtype",
    "grad_enabled": "grad mode (torch.is_grad_enabled())",
    "deterministic_algorithms": "deterministic algorithms (torch.use_deterministic_algorithms)",
    "deterministic_warn_only": "deterministic algorithms warn_only",
    "fill_uninitialized_memory": "torch.utils.deterministic.fill_uninitialized_memory",
    "cudnn_enabled": "torch.backends.cudnn.enabled",
    "cudnn_deterministic": "torch.backends.cudnn.deterministic",
    "cudnn_benchmark": "torch.backends.cudnn.benchmark",
    "default_device": "default device",
    "num_threads": "number of threads (torch.get_num_threads())",
    "float32_matmul_precision": (
        "float32 matmul precision (torch.set_float32_matmul_precision, "
        "torch.backends.cuda.matmul.allow_tf32)"
    ),
    "cudnn_allow_tf32": "torch.backends.cudnn.allow_tf32",
    "anomaly_enabled": "anomaly detection (torch.autograd.set_detect_anomaly)",
    "anomaly_check_nan": "anomaly detection check_nan",
    "flush_denormal": "flush denormal (torch.set_flush_denormal)",
    "autocast_cache_enabled": "autocast weight cache (torch.is_autocast_cache_enabled())",
    "autocast_nesting": "autocast nesting depth (autocast regions entered and never exited)",
}
# Fields holding ``((key, value), ...)``: one line per key that changed.
_KEYED_FIELD_LABELS: dict[str, str] = {
    "fp32_precision": "torch.{key}",
    "autocast_enabled": "autocast on {key} (torch.is_autocast_enabled({key!r}))",
    "autocast_dtype": "autocast dtype on {key} (torch.get_autocast_dtype({key!r}))",
}
MIXED_TF32_VALUE = "unreadable (legacy allow_tf32 and new fp32_precision settings mixed)"


@dataclass(frozen=True)
class TorchGlobalState:
    """Process-wide torch settings that tests and checks must not leak.

    ``None`` for a legacy TF32 setting means torch refused to read it: it does so once
    the new ``fp32_precision`` API has set something the legacy flag cannot express.
    """

    default_dtype: torch.dtype
    grad_enabled: bool
    deterministic_algorithms: bool
    deterministic_warn_only: bool
    fill_uninitialized_memory: bool
    cudnn_enabled: bool
    cudnn_deterministic: bool
    cudnn_benchmark: bool
    default_device: torch.device
    num_threads: int
    float32_matmul_precision: str | None
    cudnn_allow_tf32: bool | None
    fp32_precision: tuple[tuple[str, str], ...]
    anomaly_enabled: bool
    anomaly_check_nan: bool
    flush_denormal: bool
    autocast_enabled: tuple[tuple[str, bool], ...]
    autocast_dtype: tuple[tuple[str, torch.dtype], ...]
    autocast_cache_enabled: bool
    autocast_nesting: int


def capture_global_state() -> TorchGlobalState:
    """Read the current global torch settings. Cheap; never initialises CUDA."""
    autocast_devices = _autocast_device_types()
    return TorchGlobalState(
        default_dtype=torch.get_default_dtype(),
        grad_enabled=torch.is_grad_enabled(),
        deterministic_algorithms=torch.are_deterministic_algorithms_enabled(),
        deterministic_warn_only=torch.is_deterministic_algorithms_warn_only_enabled(),
        fill_uninitialized_memory=bool(torch.utils.deterministic.fill_uninitialized_memory),
        cudnn_enabled=bool(torch.backends.cudnn.enabled),
        cudnn_deterministic=bool(torch.backends.cudnn.deterministic),
        cudnn_benchmark=bool(torch.backends.cudnn.benchmark),
        default_device=_default_device(),
        num_threads=torch.get_num_threads(),
        float32_matmul_precision=_unless_tf32_mixed(torch.get_float32_matmul_precision),
        cudnn_allow_tf32=_unless_tf32_mixed(lambda: bool(torch.backends.cudnn.allow_tf32)),
        fp32_precision=tuple((path, _read_setting(path)) for path in _fp32_precision_settings()),
        anomaly_enabled=torch.is_anomaly_enabled(),
        anomaly_check_nan=torch.is_anomaly_check_nan_enabled(),
        flush_denormal=_flush_denormal(),
        autocast_enabled=tuple((d, torch.is_autocast_enabled(d)) for d in autocast_devices),
        autocast_dtype=tuple((d, torch.get_autocast_dtype(d)) for d in autocast_devices),
        autocast_cache_enabled=torch.is_autocast_cache_enabled(),
        autocast_nesting=_autocast_nesting(),
    )


def _default_device() -> torch.device:
    getter = getattr(torch, "get_default_device", None)  # torch >= 2.3
    if getter is not None:
        return torch.device(getter())
    return torch.empty(0).device


def _unless_tf32_mixed(read: Callable[[], _T]) -> _T | None:
    """The legacy TF32 flag, or ``None`` where torch refuses to answer (mixed APIs)."""
    try:
        return read()
    except RuntimeError:
        return None


def _fp32_precision_settings() -> tuple[str, ...]:
    return FP32_PRECISION_SETTINGS if hasattr(torch.backends, "fp32_precision") else ()


def _read_setting(path: str) -> Any:
    return _FP32_PRECISION_GETTERS[path](torch)


def _write_setting(path: str, value: Any) -> None:
    owner, _, name = path.rpartition(".")
    setattr(operator.attrgetter(owner)(torch), name, value)


def _flush_denormal() -> bool:
    """Whether ``torch.set_flush_denormal(True)`` is in effect on this thread.

    torch has no getter for it, so ask the CPU: with flush-to-zero on, a subnormal
    does not survive a multiplication. ``device`` and ``dtype`` are explicit so a
    leaked default device or dtype cannot change the probe.
    """
    probe = torch.full((1,), _SUBNORMAL, dtype=torch.float64, device="cpu")
    return bool((probe * 1.0).item() == 0.0)


def _autocast_device_types() -> tuple[str, ...]:
    # Per-device-type autocast getters and setters exist from torch 2.4 on.
    return AUTOCAST_DEVICE_TYPES if hasattr(torch, "get_autocast_dtype") else ()


def _autocast_nesting() -> int:
    """How many autocast regions are open. torch only exposes the counter through
    increment/decrement, which return its new value."""
    depth = torch.autocast_increment_nesting() - 1
    torch.autocast_decrement_nesting()
    return depth


def restore_global_state(state: TorchGlobalState) -> None:
    """Put every setting in ``state`` back; settings already equal are not touched."""
    current = capture_global_state()
    if current == state:
        return
    _restore_core_settings(current, state)
    _restore_determinism(current, state)
    _restore_cudnn(current, state)
    _restore_precision(current, state)
    _restore_anomaly_and_denormals(current, state)
    _restore_autocast(current, state)


def _restore_core_settings(current: TorchGlobalState, state: TorchGlobalState) -> None:
    if current.default_dtype != state.default_dtype:
        torch.set_default_dtype(state.default_dtype)
    if current.grad_enabled != state.grad_enabled:
        torch.set_grad_enabled(state.grad_enabled)
    if current.default_device != state.default_device:
        # ``None`` removes the device context entirely instead of installing a "cpu" one.
        target = None if state.default_device == torch.device("cpu") else state.default_device
        torch.set_default_device(target)
    if current.num_threads != state.num_threads:
        torch.set_num_threads(state.num_threads)


def _restore_determinism(current: TorchGlobalState, state: TorchGlobalState) -> None:
    if (current.deterministic_algorithms, current.deterministic_warn_only) != (
        state.deterministic_algorithms,
        state.deterministic_warn_only,
    ):
        torch.use_deterministic_algorithms(
            state.deterministic_algorithms, warn_only=state.deterministic_warn_only
        )
    if current.fill_uninitialized_memory != state.fill_uninitialized_memory:
        torch.utils.deterministic.fill_uninitialized_memory = state.fill_uninitialized_memory


def _restore_cudnn(current: TorchGlobalState, state: TorchGlobalState) -> None:
    if current.cudnn_enabled != state.cudnn_enabled:
        torch.backends.cudnn.enabled = state.cudnn_enabled
    if current.cudnn_deterministic != state.cudnn_deterministic:
        torch.backends.cudnn.deterministic = state.cudnn_deterministic
    if current.cudnn_benchmark != state.cudnn_benchmark:
        torch.backends.cudnn.benchmark = state.cudnn_benchmark


def _restore_precision(current: TorchGlobalState, state: TorchGlobalState) -> None:
    """Legacy flags first (their setters also write the new per-backend settings), then
    the per-backend settings top-down, re-read each time since writes cascade."""
    precision = state.float32_matmul_precision
    if precision is not None and current.float32_matmul_precision != precision:
        torch.set_float32_matmul_precision(precision)
    if state.cudnn_allow_tf32 is not None and current.cudnn_allow_tf32 != state.cudnn_allow_tf32:
        torch.backends.cudnn.allow_tf32 = state.cudnn_allow_tf32
    for path, value in state.fp32_precision:
        if _read_setting(path) != value:
            _write_setting(path, value)


def _restore_anomaly_and_denormals(current: TorchGlobalState, state: TorchGlobalState) -> None:
    anomaly = (state.anomaly_enabled, state.anomaly_check_nan)
    if (current.anomaly_enabled, current.anomaly_check_nan) != anomaly:
        torch.set_anomaly_enabled(*anomaly)
    if current.flush_denormal != state.flush_denormal:
        torch.set_flush_denormal(state.flush_denormal)


def _restore_autocast(current: TorchGlobalState, state: TorchGlobalState) -> None:
    """Close autocast regions left open the way their ``__exit__`` would, which needs
    no context manager object: nesting counter, cache, then the per-device flags."""
    for _ in range(current.autocast_nesting - state.autocast_nesting):
        if torch.autocast_decrement_nesting() == 0:
            torch.clear_autocast_cache()
    for _ in range(state.autocast_nesting - current.autocast_nesting):
        torch.autocast_increment_nesting()
    for (device_type, enabled), now in zip(state.autocast_enabled, current.autocast_enabled):
        if now[1] != enabled:
            torch.set_autocast_enabled(device_type, enabled)
    for (device_type, dtype), now in zip(state.autocast_dtype, current.autocast_dtype):
        if now[1] != dtype:
            torch.set_autocast_dtype(device_type, dtype)
    if current.autocast_cache_enabled != state.autocast_cache_enabled:
        torch.set_autocast_cache_enabled(state.autocast_cache_enabled)


def describe_state_changes(before: TorchGlobalState, after: TorchGlobalState) -> list[str]:
    """One human-readable line per setting that differs, e.g.
    ``"default dtype changed from torch.float32 to torch.float64"``."""
    changes = []
    for field in fields(TorchGlobalState):
        old, new = getattr(before, field.name), getattr(after, field.name)
        if old == new:
            continue
        if field.name in _KEYED_FIELD_LABELS:
            changes += _describe_keyed_changes(_KEYED_FIELD_LABELS[field.name], old, new)
        else:
            label = _FIELD_LABELS.get(field.name, field.name)
            changes.append(f"{label} changed from {_shown(old)} to {_shown(new)}")
    return changes


def _describe_keyed_changes(
    label: str, old: tuple[tuple[str, Any], ...], new: tuple[tuple[str, Any], ...]
) -> list[str]:
    old_values = dict(old)
    return [
        f"{label.format(key=key)} changed from {old_values.get(key)} to {value}"
        for key, value in new
        if old_values.get(key) != value
    ]


def _shown(value: object) -> str:
    return MIXED_TF32_VALUE if value is None else str(value)


# ------------------------------------------------------------------ print options


@dataclass(frozen=True)
class PrintOptions:
    """``torch.set_printoptions`` settings (``torch._tensor_str.PRINT_OPTS``)."""

    precision: int
    threshold: float
    edgeitems: int
    linewidth: int
    sci_mode: bool | None


def capture_print_options() -> PrintOptions:
    options = torch._tensor_str.PRINT_OPTS
    return PrintOptions(**{f.name: getattr(options, f.name) for f in fields(PrintOptions)})


def restore_print_options(options: PrintOptions) -> None:
    if capture_print_options() != options:
        # set_printoptions always assigns sci_mode, so None is restored too.
        torch.set_printoptions(**dataclasses.asdict(options))


# --------------------------------------------------------------------------- RNG


@dataclass(frozen=True)
class RngState:
    """Every global random generator's state. ``None``/empty where absent."""

    python: tuple[Any, ...]
    numpy: Any | None
    torch_cpu: torch.Tensor
    cuda: tuple[torch.Tensor, ...] = ()
    mps: torch.Tensor | None = None


def _numpy_random() -> Any | None:
    try:
        import numpy.random as np_random
    except ImportError:  # numpy is optional
        return None
    return np_random


def cuda_usable() -> bool:
    """Whether this process may use CUDA: a GPU is there, and this is neither a fork of
    a process that initialised CUDA (torch refuses to initialise it again) nor a CPU rank
    that a distributed check or test forked (which must leave the GPU alone)."""
    return torch.cuda.is_available() and not torch.cuda._is_in_bad_fork() and not is_forked_rank()


def _cuda_rng_in_play() -> bool:
    # Not "available": reading a generator initialises CUDA, and a CPU-only run on a GPU
    # machine would then hold a CUDA context for nothing, which also leaves every later
    # fork of the process unable to run backward or save a distributed checkpoint.
    return torch.cuda.is_initialized()


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def capture_rng_state() -> RngState:
    """Snapshot python, numpy, torch CPU, every CUDA device and MPS generators.

    CUDA generators are read only when CUDA is initialised in this process (never in a
    fork of a process that initialised it). Until then they hold no state to restore:
    ``torch.manual_seed`` and :func:`~torchcheck.seeded` queue their seed for CUDA, and a
    block that starts CUDA starts its generators from that seed.
    """
    np_random = _numpy_random()
    return RngState(
        python=random.getstate(),
        numpy=np_random.get_state() if np_random is not None else None,
        torch_cpu=torch.get_rng_state(),
        cuda=tuple(torch.cuda.get_rng_state_all()) if _cuda_rng_in_play() else (),
        mps=torch.mps.get_rng_state() if _mps_available() else None,
    )


def restore_rng_state(state: RngState) -> None:
    """Restore every generator captured in ``state``."""
    random.setstate(state.python)
    np_random = _numpy_random()
    if np_random is not None and state.numpy is not None:
        np_random.set_state(state.numpy)
    torch.set_rng_state(state.torch_cpu)
    if state.cuda:
        torch.cuda.set_rng_state_all(list(state.cuda))
    if state.mps is not None:
        torch.mps.set_rng_state(state.mps)


# ------------------------------------------------------------ saved-tensors hooks

HookPair = tuple[Callable[[torch.Tensor], Any], Callable[[Any], torch.Tensor]]


@dataclass(frozen=True)
class SavedTensorsHooks:
    """This thread's stack of saved-tensors hooks, bottom first, as (pack, unpack) pairs."""

    stack: tuple[HookPair, ...]

    def describe(self, start: int = 0) -> str:
        """``pack/unpack`` names of the pairs from ``start`` up, e.g. ``pack_to_cpu/unpack``."""
        return ", ".join(f"{_hook_name(pack)}/{_hook_name(unpack)}" for pack, unpack in self.stack[start:])


def _hook_name(hook: Any) -> str:
    return getattr(hook, "__qualname__", None) or type(hook).__name__


def capture_saved_tensors_hooks() -> SavedTensorsHooks | None:
    """The current stack of saved-tensors hooks, or ``None`` where torch forbids
    pushing hooks (inside a trace that disabled them), since it could not be put back.

    torch shows only the top pair, so every pair is popped to be read and then pushed
    back in its order: the same objects, so nothing changes for the code that pushed them.
    """
    autograd = torch._C._autograd
    if autograd._saved_tensors_hooks_get_disabled_error_message() is not None:
        return None
    popped = []
    while (top := autograd._top_saved_tensors_default_hooks(True)) is not None:
        popped.append(top)
        autograd._pop_saved_tensors_default_hooks()
    stack = tuple(reversed(popped))
    _push_all(stack)
    return SavedTensorsHooks(stack)


def restore_saved_tensors_hooks(hooks: SavedTensorsHooks | None) -> None:
    """Make the stack exactly ``hooks`` again: pairs pushed since are popped (a step's
    forgotten hook as well as a check's own), pairs popped since are pushed back."""
    current = capture_saved_tensors_hooks()
    if hooks is None or current is None or current == hooks:
        return
    for _ in current.stack:
        torch._C._autograd._pop_saved_tensors_default_hooks()
    _push_all(hooks.stack)


def _push_all(stack: tuple[HookPair, ...]) -> None:
    for pack, unpack in stack:
        torch._C._autograd._push_saved_tensors_default_hooks(pack, unpack)


@contextlib.contextmanager
def preserved_state() -> Iterator[None]:
    """Run a block and then put back RNG state, global torch settings, print options
    and the saved-tensors hooks, even on error."""
    rng = capture_rng_state()
    global_state = capture_global_state()
    print_options = capture_print_options()
    hooks = capture_saved_tensors_hooks()
    try:
        yield
    finally:
        restore_saved_tensors_hooks(hooks)
        restore_print_options(print_options)
        restore_global_state(global_state)
        restore_rng_state(rng)


# ------------------------------------------------------------------------ modules


@dataclass(frozen=True)
class ModuleSnapshot:
    """A model's values, gradients, ``requires_grad`` flags and train/eval modes."""

    tensors: dict[str, torch.Tensor]
    grads: dict[str, torch.Tensor | None]
    requires_grad: dict[str, bool]
    training: dict[str, bool]

    @classmethod
    def capture(cls, model: torch.nn.Module) -> ModuleSnapshot:
        """Clone every parameter and buffer (so later in-place updates cannot reach it)."""
        params = dict(model.named_parameters(remove_duplicate=False))
        tensors = {name: t.detach().clone() for name, t in _named_tensors(model)}
        return cls(
            tensors=tensors,
            grads={n: None if p.grad is None else p.grad.detach().clone() for n, p in params.items()},
            requires_grad={n: p.requires_grad for n, p in params.items()},
            training={name: m.training for name, m in model.named_modules(remove_duplicate=False)},
        )

    def restore(self, model: torch.nn.Module) -> None:
        """Copy the snapshot back into ``model`` in place (tensor identities are kept)."""
        live = dict(_named_tensors(model))
        with torch.no_grad():
            for name, saved in self.tensors.items():
                target = live.get(name)
                if target is not None and target.shape == saved.shape:
                    target.copy_(saved)
        for name, param in model.named_parameters(remove_duplicate=False):
            if name in self.grads:
                param.grad = self.grads[name]
                param.requires_grad_(self.requires_grad[name])
        for name, module in model.named_modules(remove_duplicate=False):
            if name in self.training:
                module.training = self.training[name]


def _named_tensors(model: torch.nn.Module) -> Iterator[tuple[str, torch.Tensor]]:
    yield from model.named_parameters(remove_duplicate=False)
    yield from model.named_buffers(remove_duplicate=False)


@contextlib.contextmanager
def preserved_module(model: torch.nn.Module) -> Iterator[ModuleSnapshot]:
    """Run a block that may train, zero or re-mode ``model``; undo all of it afterwards."""
    snapshot = ModuleSnapshot.capture(model)
    try:
        yield snapshot
    finally:
        snapshot.restore(model)
