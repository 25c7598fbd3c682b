"""Shape checking and checkpoint loading on the ``meta`` device: no memory, no time.

A meta tensor has a shape and a dtype but no storage, so a 7B-parameter model can be
built and run forward on a laptop in seconds. Errors are attributed to the innermost
module running when they happened, tracked with forward (pre-)hooks.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import detach_to_cpu, first_mismatch, indent
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.seeding import seed_everything
from torchcheck.checks.state import preserved_state

__all__ = ["ModulePathTracker", "assert_meta_load", "assert_meta_shapes", "meta_shapes"]

_FORWARD_FAILED = """\
{check}: forward of {model} on {device} failed in module '{path}' ({module_type}):
  {error_type}: {error}
module inputs: {inputs}
call path: {call_path}{hint}"""

_CONSTRUCTION_FAILED = """\
{check}: building the model under torch.device("{device}") failed:
  {error_type}: {error}"""

_HARD_CODED_DEVICE_HINT = """
A tensor seems to be created on a hard-coded device inside this module; create it with \
device=x.device (or register it as a buffer) so it follows the model and its inputs."""

_SHAPE_MISMATCH = """\
assert_meta_shapes: output shape of {model} at {path} is {actual}, expected {expected}."""

_DEVICE_SHAPE_MISMATCH = """\
assert_meta_shapes: {model} gives different output shapes on meta and {device} at \
{path}: {meta} (meta) vs {real} ({device})."""

_META_LOAD_KEYS = """\
assert_meta_load: loading the checkpoint into {model} built on meta \
(load_state_dict(assign=True)) reports {details}"""

_META_LOAD_LEFT_ON_META = """\
assert_meta_load: after building {model} on meta and loading the checkpoint with \
load_state_dict(assign=True), these tensors are still on the meta device (they hold no \
data; outputs would be garbage or fail):
{names}
Non-persistent buffers and tensors computed in __init__ are not in the checkpoint: \
re-create them after loading (a load_state_dict post hook or after_load=). A custom \
_load_from_state_dict that copy_()s ignores assign=True."""

_META_LOAD_TIES = """\
assert_meta_load: tied weights of {model} are separate tensors after \
load_state_dict(assign=True): {names}. assign=True replaces each parameter on its own; \
re-tie them after loading (e.g. head.weight = embed.weight in a post hook or after_load=)."""

_META_LOAD_OUTPUT = """\
assert_meta_load: outputs of {model} loaded through meta differ from an ordinary load \
at {path}:
{details}"""


# --------------------------------------------------------------- path tracking


@dataclass
class ModulePathTracker:
    """Knows which module (by its dotted path, e.g. ``blocks.3.attn``) is running.

    Forward pre-hooks push the module and the shapes of its inputs; forward hooks pop
    it. A forward hook does not run when the forward raises, so after an exception the
    top of the stack is the innermost module that failed.
    """

    model: nn.Module
    stack: list[tuple[str, nn.Module, str]] = field(default_factory=list)
    _handles: list[Any] = field(default_factory=list)

    def __enter__(self) -> ModulePathTracker:
        for name, module in self.model.named_modules():
            self._handles.append(module.register_forward_pre_hook(self._push(name), with_kwargs=True))
            self._handles.append(module.register_forward_hook(self._pop))
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    def _push(self, name: str) -> Callable[..., None]:
        def hook(module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            self.stack.append((name, module, _describe_inputs(args, kwargs)))

        return hook

    def _pop(self, module: nn.Module, args: Any, output: Any) -> None:
        if self.stack:
            self.stack.pop()

    def failure(self, check: str, device: str, error: BaseException) -> CheckFailed:
        """A :class:`CheckFailed` naming where ``error`` happened."""
        if self.stack:
            path, module, inputs = self.stack[-1]
        else:
            path, module, inputs = "", self.model, "(unknown)"
        call_path = " > ".join(f"{n or '<root>'} ({type(m).__name__})" for n, m, _ in self.stack)
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return CheckFailed(
            _FORWARD_FAILED.format(
                check=check,
                model=type(self.model).__name__,
                device=device,
                path=path or "<root>",
                module_type=type(module).__name__,
                error_type=type(error).__name__,
                error=message,
                inputs=inputs,
                call_path=call_path or "<root>",
                hint=_HARD_CODED_DEVICE_HINT if _is_device_error(error) else "",
            )
        )


def _describe_inputs(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> str:
    parts = [_shape_text(a) for a in args] + [f"{k}={_shape_text(v)}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


def _shape_text(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"Tensor{list(value.shape)} {str(value.dtype).removeprefix('torch.')} on {value.device.type}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_shape_text(v) for v in value) + "]"
    return type(value).__name__


def _is_device_error(error: BaseException) -> bool:
    text = str(error).lower()
    return any(
        marker in text
        for marker in ("expected device", "same device", "not compiled with cuda", "nvidia driver", "on device")
    )


# ---------------------------------------------------------------- meta shapes


def _to_meta(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return torch.empty(value.shape, dtype=value.dtype, device="meta")
    if _is_shape(value):
        return torch.empty(tuple(value), device="meta")
    if isinstance(value, Mapping):
        return {key: _to_meta(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_meta(item) for item in value)
    return value


def _is_shape(value: Any) -> bool:
    return isinstance(value, (tuple, torch.Size)) and all(isinstance(v, int) for v in value)


def _shapes(value: Any) -> Any:
    """The output's structure with every tensor replaced by its ``torch.Size``."""
    if isinstance(value, torch.Tensor):
        return value.shape
    if isinstance(value, Mapping):
        return {key: _shapes(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_shapes(item) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return value


def _build_on(make_model: Callable[[], nn.Module], device: str, check: str) -> nn.Module:
    try:
        with torch.device(device):
            return make_model()
    except Exception as error:  # construction failing is the finding
        raise CheckFailed(
            _CONSTRUCTION_FAILED.format(check=check, device=device, error_type=type(error).__name__, error=error)
        ) from error


def _tracked_forward(model: nn.Module, args: tuple[Any, ...], check: str, device: str) -> Any:
    with ModulePathTracker(model) as tracker:
        try:
            return model(*args)
        except Exception as error:  # attributed to the module that raised
            raise tracker.failure(check, device, error) from error


def meta_shapes(make_model: Callable[[], nn.Module], *inputs: Any) -> Any:
    """Build ``make_model()`` and run its forward on the ``meta`` device; return the
    output's shape (a ``torch.Size``, or the same nested structure of them).

    ``inputs`` are tensors (any device; only shape and dtype are used) or shape tuples
    (float tensors of the default dtype). Allocates no memory for parameters or
    activations. A failure names the module path where it happened.
    """
    return _meta_shapes(make_model, inputs, "meta_shapes")[0]


def _meta_shapes(make_model: Callable[[], nn.Module], inputs: tuple[Any, ...], check: str) -> tuple[Any, str]:
    """The output shapes and the model's class name."""
    with preserved_state(), torch.no_grad():
        model = _build_on(make_model, "meta", check)
        with torch.device("meta"):
            output = _tracked_forward(model, _to_meta(inputs), check, "meta")
        return _shapes(output), type(model).__name__


def assert_meta_shapes(
    make_model: Callable[[], nn.Module],
    *inputs: Any,
    expected: Any = None,
    device: str | torch.device | None = None,
) -> None:
    """:func:`meta_shapes`, then compare with ``expected`` (a shape tuple or the nested
    structure of them); with ``device``, also build the model for real there, run one
    forward on random inputs of the same shapes and require the same output shapes."""
    shapes, name = _meta_shapes(make_model, inputs, "assert_meta_shapes")
    if expected is not None:
        problem = _shape_mismatch(shapes, expected, "output")
        if problem is not None:
            path, actual, wanted = problem
            raise CheckFailed(_SHAPE_MISMATCH.format(model=name, path=path, actual=actual, expected=wanted))
    if device is not None:
        real = _real_shapes(make_model, inputs, torch.device(device))
        problem = _shape_mismatch(real, shapes, "output")
        if problem is not None:
            path, real_shape, meta_shape = problem
            raise CheckFailed(
                _DEVICE_SHAPE_MISMATCH.format(model=name, device=device, path=path, meta=meta_shape, real=real_shape)
            )


def _shape_mismatch(actual: Any, expected: Any, path: str) -> tuple[str, Any, Any] | None:
    """``(path, actual, expected)`` of the first differing shape, or ``None``."""
    if _is_shape(expected) or _is_shape(actual):
        if not (_is_shape(expected) and _is_shape(actual)) or tuple(actual) != tuple(expected):
            return path, _fmt_shape(actual), _fmt_shape(expected)
        return None
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        if set(expected) != set(actual):
            return path, sorted(map(str, actual)), sorted(map(str, expected))
        for key in expected:
            found = _shape_mismatch(actual[key], expected[key], f"{path}[{key!r}]")
            if found is not None:
                return found
        return None
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        if len(actual) != len(expected):
            return path, f"{len(actual)} outputs", f"{len(expected)} outputs"
        for i, (a, e) in enumerate(zip(actual, expected)):
            found = _shape_mismatch(a, e, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    return None if actual == expected else (path, actual, expected)


def _fmt_shape(value: Any) -> Any:
    return tuple(value) if _is_shape(value) else value


def _materialise(value: Any, device: torch.device) -> Any:
    if isinstance(value, torch.Tensor):
        if value.device.type != "meta":
            return value.to(device)
        if value.is_floating_point():
            return torch.randn(value.shape, dtype=value.dtype, device=device)
        return torch.zeros(value.shape, dtype=value.dtype, device=device)
    if _is_shape(value):
        return torch.randn(tuple(value), device=device)
    if isinstance(value, Mapping):
        return {key: _materialise(item, device) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_materialise(item, device) for item in value)
    return value


def _real_shapes(make_model: Callable[[], nn.Module], inputs: tuple[Any, ...], device: torch.device) -> Any:
    with preserved_state(), torch.no_grad():
        seed_everything(0)
        model = make_model().to(device).eval()
        return _shapes(_tracked_forward(model, _materialise(inputs, device), "assert_meta_shapes", str(device)))


# ------------------------------------------------------------------ meta load


def assert_meta_load(
    make_model: Callable[[], nn.Module],
    checkpoint: str | os.PathLike[str] | Mapping[str, torch.Tensor],
    *inputs: Any,
    after_load: Callable[[nn.Module], None] | None = None,
) -> None:
    """Check the low-memory loading recipe: build under ``torch.device("meta")``,
    ``torch.load(checkpoint, mmap=True, weights_only=True)``,
    ``load_state_dict(sd, assign=True)`` (then ``after_load(model)`` if given).

    Afterwards no parameter, buffer or tensor attribute may be left on meta, no key may
    be missing or unexpected, tied weights must still be tied, and eval-mode outputs on
    ``inputs`` must equal those of an ordinary load into a normally built model.
    ``checkpoint`` is a path to a saved ``state_dict`` (or the state dict itself).
    """
    with preserved_state(), torch.no_grad(), _checkpoint_file(checkpoint) as path:
        seed_everything(0)
        reference = make_model()
        reference.load_state_dict(torch.load(path, weights_only=True), strict=False)  # keys judged below
        reference.eval()
        name = type(reference).__name__
        model = _build_on(make_model, "meta", "assert_meta_load")
        result = model.load_state_dict(torch.load(path, mmap=True, weights_only=True), assign=True, strict=False)
        if after_load is not None:
            after_load(model)
        _check_keys(name, result.missing_keys, result.unexpected_keys)
        left = _on_meta(model)
        if left:
            raise CheckFailed(_META_LOAD_LEFT_ON_META.format(model=name, names="\n".join(f"  {n}" for n in left)))
        _check_ties(name, reference, model)
        model.eval()
        if inputs:
            expected = detach_to_cpu(_tracked_forward(reference, inputs, "assert_meta_load", "cpu"))
            actual = detach_to_cpu(_tracked_forward(model, inputs, "assert_meta_load", "cpu"))
            found = first_mismatch(actual, expected)
            if found is not None:
                raise CheckFailed(_META_LOAD_OUTPUT.format(model=name, path=found.path, details=indent(found.render())))


@contextlib.contextmanager
def _checkpoint_file(checkpoint: str | os.PathLike[str] | Mapping[str, torch.Tensor]) -> Iterator[Path]:
    if not isinstance(checkpoint, Mapping):
        yield Path(checkpoint)
        return
    with tempfile.TemporaryDirectory(prefix="torchcheck-") as directory:
        path = Path(directory) / "state_dict.pt"
        torch.save(dict(checkpoint), path)
        yield path


def _check_keys(name: str, missing: list[str], unexpected: list[str]) -> None:
    parts = []
    if missing:
        parts.append(f"missing keys: {', '.join(missing)}")
    if unexpected:
        parts.append(f"unexpected keys: {', '.join(unexpected)}")
    if parts:
        raise CheckFailed(_META_LOAD_KEYS.format(model=name, details="; ".join(parts)))


def _on_meta(model: nn.Module) -> list[str]:
    names = [f"parameter {n}" for n, p in model.named_parameters(remove_duplicate=False) if p.is_meta]
    names += [f"buffer {n}" for n, b in model.named_buffers(remove_duplicate=False) if b.is_meta]
    for prefix, module in model.named_modules():
        for attr, value in vars(module).items():
            if isinstance(value, torch.Tensor) and value.is_meta:
                names.append(f"tensor attribute {prefix + '.' if prefix else ''}{attr}")
    return names


def _check_ties(name: str, reference: nn.Module, model: nn.Module) -> None:
    groups: dict[int, list[str]] = {}
    for param_name, param in reference.named_parameters(remove_duplicate=False):
        groups.setdefault(id(param), []).append(param_name)
    loaded = dict(model.named_parameters(remove_duplicate=False))
    for names in groups.values():
        if len(names) > 1 and len({id(loaded.get(n)) for n in names}) > 1:
            raise CheckFailed(_META_LOAD_TIES.format(model=name, names=", ".join(names)))
