"""Snapshots of the process-wide state that torch code can silently change.

Used by every check (each one leaves the process as it found it, also when it fails)
and by the pytest plugin's state guard (which warns when a test leaks a change). Two
independent halves:

* :class:`TorchGlobalState` -- cheap, comparable flags (default dtype, grad mode,
  determinism, cudnn, default device, threads). Capturing it never initialises CUDA.
* :class:`RngState` -- the generators of python ``random``, numpy (if installed), torch
  CPU, every CUDA device and MPS. Restoring it replays randomness exactly.

:func:`preserved_state` and :func:`preserved_module` combine them for the checks.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

import torch

__all__ = [
    "ModuleSnapshot",
    "RngState",
    "TorchGlobalState",
    "capture_global_state",
    "capture_rng_state",
    "describe_state_changes",
    "preserved_module",
    "preserved_state",
    "restore_global_state",
    "restore_rng_state",
]

_FIELD_LABELS: dict[str, str] = {
    "default_dtype": "default dtype",
    "grad_enabled": "grad mode (torch.is_grad_enabled())",
    "deterministic_algorithms": "deterministic algorithms (torch.use_deterministic_algorithms)",
    "deterministic_warn_only": "deterministic algorithms warn_only",
    "cudnn_deterministic": "torch.backends.cudnn.deterministic",
    "cudnn_benchmark": "torch.backends.cudnn.benchmark",
    "default_device": "default device",
    "num_threads": "number of threads (torch.get_num_threads())",
    "float32_matmul_precision": "float32 matmul precision",
}


@dataclass(frozen=True)
class TorchGlobalState:
    """Process-wide torch settings that tests and checks must not leak."""

    default_dtype: torch.dtype
    grad_enabled: bool
    deterministic_algorithms: bool
    deterministic_warn_only: bool
    cudnn_deterministic: bool
    cudnn_benchmark: bool
    default_device: torch.device
    num_threads: int
    float32_matmul_precision: str = "highest"


def _default_device() -> torch.device:
    getter = getattr(torch, "get_default_device", None)  # torch >= 2.3
    if getter is not None:
        return torch.device(getter())
    return torch.empty(0).device


def capture_global_state() -> TorchGlobalState:
    """Read the current global torch settings. Cheap; never initialises CUDA."""
    return TorchGlobalState(
        default_dtype=torch.get_default_dtype(),
        grad_enabled=torch.is_grad_enabled(),
        deterministic_algorithms=torch.are_deterministic_algorithms_enabled(),
        deterministic_warn_only=torch.is_deterministic_algorithms_warn_only_enabled(),
        cudnn_deterministic=bool(torch.backends.cudnn.deterministic),
        cudnn_benchmark=bool(torch.backends.cudnn.benchmark),
        default_device=_default_device(),
        num_threads=torch.get_num_threads(),
        float32_matmul_precision=torch.get_float32_matmul_precision(),
    )


def restore_global_state(state: TorchGlobalState) -> None:
    """Put every setting in ``state`` back; settings already equal are not touched."""
    current = capture_global_state()
    if current.default_dtype != state.default_dtype:
        torch.set_default_dtype(state.default_dtype)
    if current.grad_enabled != state.grad_enabled:
        torch.set_grad_enabled(state.grad_enabled)
    if (current.deterministic_algorithms, current.deterministic_warn_only) != (
        state.deterministic_algorithms,
        state.deterministic_warn_only,
    ):
        torch.use_deterministic_algorithms(
            state.deterministic_algorithms, warn_only=state.deterministic_warn_only
        )
    if current.cudnn_deterministic != state.cudnn_deterministic:
        torch.backends.cudnn.deterministic = state.cudnn_deterministic
    if current.cudnn_benchmark != state.cudnn_benchmark:
        torch.backends.cudnn.benchmark = state.cudnn_benchmark
    if current.default_device != state.default_device:
        # ``None`` removes the device context entirely instead of installing a "cpu" one.
        target = None if state.default_device == torch.device("cpu") else state.default_device
        torch.set_default_device(target)
    if current.num_threads != state.num_threads:
        torch.set_num_threads(state.num_threads)
    if current.float32_matmul_precision != state.float32_matmul_precision:
        torch.set_float32_matmul_precision(state.float32_matmul_precision)


def describe_state_changes(before: TorchGlobalState, after: TorchGlobalState) -> list[str]:
    """One human-readable line per setting that differs, e.g.
    ``"default dtype changed from torch.float32 to torch.float64"``."""
    changes = []
    for field in fields(TorchGlobalState):
        old, new = getattr(before, field.name), getattr(after, field.name)
        if old != new:
            label = _FIELD_LABELS.get(field.name, field.name)
            changes.append(f"{label} changed from {old} to {new}")
    return changes


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


def _cuda_rng_in_play() -> bool:
    return torch.cuda.is_initialized() or torch.cuda.is_available()


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def capture_rng_state() -> RngState:
    """Snapshot python, numpy, torch CPU, every CUDA device and MPS generators.

    CUDA generators are read only when CUDA is initialised or available (reading them
    initialises CUDA, which a CPU-only process never needs to do).
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


@contextlib.contextmanager
def preserved_state() -> Iterator[None]:
    """Run a block and then put back RNG and global torch state, even on error."""
    rng = capture_rng_state()
    global_state = capture_global_state()
    try:
        yield
    finally:
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
