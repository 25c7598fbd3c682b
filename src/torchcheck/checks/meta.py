"""Shape checking and checkpoint loading on the ``meta`` device: no memory, no time.

A meta tensor has a shape and a dtype but no storage, so a 7B-parameter model can be
built and run forward on a laptop in seconds. Errors are attributed to the innermost
module running when they happened, tracked with forward (pre-)hooks on a model the check
owns (``torch.compile`` wrappers removed, so Dynamo never traces the hooks).

Where a check takes ``make_model`` it accepts a factory (a class or a callable with no
arguments) or a model instance. Only a factory shows whether *construction* works under
``torch.device("meta")``; an instance is copied onto meta tensor by tensor.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import traceback
import warnings
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.nn.utils import parametrize
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map

from torchcheck.checks._compare import (
    compare_structures,
    detach_to_cpu,
    indent,
    map_tensors,
    named_children,
    warn_uncompared,
)
from torchcheck.checks._inputs import ModelInputs, instantiate, strip_compiled, unwrap_compiled
from torchcheck.checks._registration import hook_recomputed_attributes
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.seeding import seed_everything
from torchcheck.checks.state import preserved_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = [
    "DataDependentOnMeta",
    "MetaKernelUnsupported",
    "MetaForwardWatch",
    "ModulePathTracker",
    "NotRunnableOnMeta",
    "ParametrizationOnMeta",
    "assert_meta_load",
    "assert_meta_shapes",
    "data_dependent_operation",
    "meta_shapes",
]

ModelSource = nn.Module | Callable[[], nn.Module]

_FORWARD_FAILED = """\
{check}: forward of {model} on {device} failed in module '{path}' ({module_type}):
{error}
module inputs: {inputs}
call path: {call_path}{origin}{hint}"""

_DATA_DEPENDENT = """\
{check}: data-dependent operation {operation} in module '{path}' ({module_type}) cannot \
run on the meta device: meta tensors have shapes but no values, so nothing that reads a \
value (.item(), if tensor:, .tolist(), .cpu(), ops whose output size depends on the \
data) can run there. This is not a bug in {model}.
{error}
module inputs: {inputs}
call path: {call_path}{origin}
To check shapes on meta, leave out the inputs whose values steer the forward (for a \
transformers model: no attention_mask; output shapes do not depend on it). Or give \
assert_meta_shapes a real device (device="cpu" with a small config): it then checks \
expected= against the shapes of a real forward instead, with a warning."""

_META_SKIPPED = """assert_meta_shapes: the forward of {model} cannot run on the meta device (see \
below); expected= was checked against the shapes of the forward on {device} instead.
{reason}"""

_META_KERNEL = """\
{check}: {operation} in module '{path}' ({module_type}) cannot run on the meta device: its \
meta kernel refuses inputs that its real kernel accepts ({proof}). This is a limitation of \
the meta device, not a hard-coded device and not a bug in {model}.
{error}
module inputs: {inputs}
call path: {call_path}{origin}
Check the shapes on a real device instead: assert_meta_shapes(..., device="cpu") with a \
small config checks expected= against the shapes of a real forward (with a warning)."""

_META_KERNEL_CAUSE = """
Cause: the meta kernel of {operation} refuses inputs that its real kernel accepts ({proof}). \
This is a limitation of the meta device, not a hard-coded device: leave "meta" out of devices=."""

_FOREIGN_DEVICE = """
Cause: a tensor on {device} meets the model's meta tensors in {operation}. It {origin}.
A tensor created on a hard-coded device does not follow the model and its inputs: \
create it with device=x.device (or register it as a buffer)."""

_CONSTRUCTION_FAILED = """\
{check}: building the model under torch.device("{device}") failed:
  {error_type}: {error}"""

_CONSTRUCTION_NEEDS_VALUES = """\
{check}: building {model} under torch.device("meta") needs tensor values: {operation} \
cannot run on the meta device, where tensors have shapes but no values.{parametrization} \
This is not a bug in {model}.
{error}{origin}
Pass a model built on CPU instead of the factory (it is copied onto meta tensor by tensor), \
or check the shapes on a real device: assert_meta_shapes(..., device="cpu") with a small \
config checks expected= against the shapes of a real forward (with a warning)."""

_PARAMETRIZATION_AT_CONSTRUCTION = """ A parametrization (torch.nn.utils.parametrize, \
e.g. orthogonal()) computes on the weight's values when it is registered."""

_PARAMETRIZATION_ON_META = """\
{check}: the parametrization of '{tensor}' in module '{path}' ({module_type}) cannot run on \
the meta device: a parametrization computes the weight from tensor values, and meta \
tensors have shapes but no values. Its buffer {buffers} is None: \
{module_type}.right_inverse sets it from the weight's values when the parametrization is \
registered, which could not run when {model} was built on meta{reason} \
(torch.nn.utils.parametrize goes on without it when right_inverse raises \
NotImplementedError). This is not a bug in {model}.
{error}
module inputs: {inputs}
call path: {call_path}{origin}
Pass a model built on CPU instead of the factory (it is copied onto meta with the \
parametrization's tensors), or check the shapes on a real device: \
assert_meta_shapes(..., device="cpu") with a small config checks expected= against the \
shapes of a real forward (with a warning)."""

_HARD_CODED_DEVICE_HINT = """
A tensor seems to be created on a hard-coded device inside this module; create it with \
device=x.device (or register it as a buffer) so it follows the model and its inputs."""

_SHAPE_MISMATCH = """\
assert_meta_shapes: output shape of {model} at {path} is {actual}, expected {expected}."""

_DEVICE_SHAPE_MISMATCH = """\
assert_meta_shapes: {model} gives different output shapes on meta and {device} at \
{path}:
{details}"""

_META_LOAD_KEYS = """\
assert_meta_load: loading the checkpoint into {model} built on meta \
(load_state_dict(assign=True)) reports {details}{cause}"""

_UNSET_BUFFERS_CAUSE = """
Built on meta, {model} holds None for the buffers {names}, so load_state_dict has nowhere \
to put them: they are set from tensor values while the model is built (a \
parametrization's right_inverse, such as orthogonal()'s base), which the meta device \
cannot compute. Give each a placeholder of the saved shape when the model is built (in \
make_model: `module.base = torch.empty(shape)` if it is None; under torch.device("meta") \
that costs nothing) and assign=True puts the checkpoint's tensor there; or build this \
model on CPU."""

_META_LOAD_LEFT_ON_META = """\
assert_meta_load: after building {model} on meta and loading the checkpoint with \
load_state_dict(assign=True), these tensors are still on the meta device (they hold no \
data; outputs would be garbage or fail):
{names}
Non-persistent buffers and tensors computed in __init__ are not in the checkpoint: \
re-create them after loading (a load_state_dict post hook or after_load=). A custom \
_load_from_state_dict that copy_()s ignores assign=True."""

_META_LOAD_DERIVED_UNCHECKED = """\
assert_meta_load: not checked whether these tensor attributes leave the meta device: \
{names}. A forward pre-hook (the old torch.nn.utils.spectral_norm or weight_norm) \
recomputes them from the loaded parameters before every forward, so they are on meta \
until the first forward; pass inputs to run one and check them."""

_META_LOAD_TIES = """\
assert_meta_load: tied weights of {model} are separate tensors after \
load_state_dict(assign=True): {names}. assign=True replaces each parameter on its own; \
re-tie them after loading (e.g. head.weight = embed.weight in a post hook or after_load=)."""

_META_LOAD_NO_FILE = """\
assert_meta_load: the checkpoint {path!r} {problem} (resolved to {resolved}). Save the \
state dict there first, e.g. torch.save(model.state_dict(), path), or pass the state dict \
itself."""

_META_LOAD_CHANGED = """\
assert_meta_load: after loading, {count} tensors of {model} no longer hold the \
checkpoint's values:
{names}
{cause}"""

_CHANGED_BY_AFTER_LOAD = """\
after_load changed them after load_state_dict(assign=True) had put the checkpoint's \
values in place. An initialisation called for one module (transformers' \
model._init_weights(module), reset_parameters()) re-initialises the loaded parameters of \
that module and often of its children too (CLIP's embeddings initialise their token \
embedding), not only the non-persistent buffer it was called for: swap every loaded \
parameter and buffer of the model for a meta stand-in while initialising, then put them \
back (init_non_persistent_buffers in docs/checks.md does)."""

_CHANGED_BY_LOAD = """\
load_state_dict(assign=True) or tie_weights() left them different from the checkpoint: \
a custom _load_from_state_dict, a load_state_dict hook, or a tie that copies one \
parameter over another changes what was loaded."""

_META_LOAD_OUTPUT = """\
assert_meta_load: outputs of {model} loaded through meta differ from an ordinary load \
at {path}:
{details}"""

# error text -> the operation users know, for ops that need values the meta device lacks
_DATA_DEPENDENT_MARKERS: tuple[tuple[str, str], ...] = (
    (
        "item() cannot be called on meta tensors",
        "`Tensor.item()` (also behind bool(), int(), float() and `if tensor:`)",
    ),
    ("cannot copy out of meta tensor", "copying values out (`.cpu()`, `.tolist()`, `.numpy()`)"),
    ("can't convert meta device type tensor to numpy", "`Tensor.numpy()`"),
    ("register_meta function for torch.nonzero()", "`torch.nonzero()`"),
    ("without output_size", "`repeat_interleave` without output_size"),
)
_NO_META_KERNEL = "attempted to run this operator with meta tensors"

_COMPILED_PART = "_orig_mod"
_MAX_NAMES = 8

_DEVICE_ERROR_MARKERS = ("expected device", "same device", "not compiled with cuda", "nvidia driver", "on device")
_TORCH_DIR = os.path.dirname(torch.__file__)
_TORCHCHECK_DIR = os.path.dirname(os.path.dirname(__file__))


class NotRunnableOnMeta(CheckFailed):
    """The forward of ``model`` (a class name) cannot run on the meta device although
    nothing is wrong with it; a real device can check its shapes instead."""

    def __init__(self, message: str, model: str) -> None:
        super().__init__(message)
        self.model = model


class DataDependentOnMeta(NotRunnableOnMeta):
    """The forward of ``model`` needs tensor values, which the meta device does not have."""


class ParametrizationOnMeta(DataDependentOnMeta):
    """A ``torch.nn.utils.parametrize`` parametrization of ``model`` computes on values
    that the meta device does not have (orthogonal()'s ``base``, set at registration)."""


class MetaKernelUnsupported(NotRunnableOnMeta):
    """An operation's meta kernel refuses inputs its real kernel accepts (``_grouped_mm``
    in a mixture-of-experts layer wants bfloat16 on meta, any float on CPU)."""


# --------------------------------------------------------------- path tracking


@dataclass
class ModulePathTracker:
    """Knows which module (by its dotted path, e.g. ``blocks.3.attn``) is running.

    Forward pre-hooks push the module and the shapes of its inputs; forward hooks pop
    it. A forward hook does not run when the forward raises, so after an exception the
    top of the stack is the innermost module that failed. Give it a model without
    ``torch.compile`` wrappers (:func:`torchcheck.checks._inputs.strip_compiled`).
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

    def failure(
        self, check: str, device: str, error: BaseException, watch: MetaForwardWatch | None = None
    ) -> CheckFailed:
        """A :class:`CheckFailed` naming where ``error`` happened and why: for a forward
        on the meta device watched by ``watch``, an operation that needs values, a meta
        kernel that refuses what its real kernel accepts, or a tensor from another device
        (named with where it was created)."""
        if self.stack:
            path, module, inputs = self.stack[-1]
        else:
            path, module, inputs = "", self.model, "(unknown)"
        fields = {
            "check": check,
            "model": type(self.model).__name__,
            "path": path or "<root>",
            "module_type": type(module).__name__,
            "error": indent(f"{type(error).__name__}: {str(error).strip()}"),
            "inputs": inputs,
            "call_path": " > ".join(f"{n or '<root>'} ({type(m).__name__})" for n, m, _ in self.stack) or "<root>",
            "origin": _origin(error),
        }
        parametrization = _unset_parametrization(self.stack) if device == "meta" else None
        if parametrization is not None:
            message = _PARAMETRIZATION_ON_META.format(**{**fields, **parametrization})
            return ParametrizationOnMeta(message, fields["model"])
        operation = data_dependent_operation(error) if device == "meta" else None
        if operation is not None:
            return DataDependentOnMeta(_DATA_DEPENDENT.format(operation=operation, **fields), fields["model"])
        if watch is None:
            hint = _HARD_CODED_DEVICE_HINT if _is_device_error(error) else ""
            return CheckFailed(_FORWARD_FAILED.format(device=device, hint=hint, **fields))
        hard_coded = watch.hard_coded_device(error, self.model)
        if hard_coded is not None:
            return CheckFailed(_FORWARD_FAILED.format(device=device, hint=hard_coded, **fields))
        limitation = watch.meta_kernel_limitation(error)
        if limitation is not None:
            operation, proof = limitation
            message = _META_KERNEL.format(operation=operation, proof=proof, **fields)
            return MetaKernelUnsupported(message, fields["model"])
        return CheckFailed(_FORWARD_FAILED.format(device=device, hint="", **fields))


def _unset_parametrization(stack: list[tuple[str, nn.Module, str]]) -> dict[str, str] | None:
    """Message fields when the innermost running module is a parametrization
    (``torch.nn.utils.parametrize``) with a buffer left None: set by its ``right_inverse``
    from values at registration, which cannot run on meta; else ``None``."""
    if len(stack) < 2 or not isinstance(stack[-2][1], parametrize.ParametrizationList):
        return None
    path, parametrization, _ = stack[-1]
    unset = [name for name, buffer in parametrization._buffers.items() if buffer is None]
    if not unset:
        return None
    owner, _, tensor = stack[-2][0].rpartition("parametrizations.")
    return {
        "tensor": owner + tensor,
        "path": path,
        "buffers": ", ".join(f"`{name}`" for name in unset),
        "reason": _right_inverse_on_meta(parametrization, stack[-2][1]),
    }


def _right_inverse_on_meta(parametrization: nn.Module, parametrizations: nn.Module) -> str:
    """``: `aten::geqrf` has no meta kernel``: what stops ``right_inverse`` on meta,
    found by running it again on a meta tensor of the weight's shape."""
    right_inverse = getattr(parametrization, "right_inverse", None)
    original = getattr(parametrizations, "original", None)
    if not callable(right_inverse) or not isinstance(original, torch.Tensor):
        return ""
    try:
        with torch.no_grad():
            right_inverse(torch.empty(original.shape, dtype=original.dtype, device="meta"))
    except Exception as error:  # the reason is all that is wanted
        if _NO_META_KERNEL in str(error).lower():
            return f": `{_operator_name(error)}` has no meta kernel"
        operation = data_dependent_operation(error)
        return f": it needs {operation}" if operation else f": it raised {type(error).__name__}"
    return ""


def _describe_inputs(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> str:
    parts = [_shape_text(a) for a in args] + [f"{k}={_shape_text(v)}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


def _shape_text(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"Tensor{list(value.shape)} {str(value.dtype).removeprefix('torch.')} on {value.device.type}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_shape_text(v) for v in value) + "]"
    return type(value).__name__


def data_dependent_operation(error: BaseException) -> str | None:
    """The operation that failed on meta because it needs values (``Tensor.item()``,
    ``torch.nonzero()``...), or ``None`` when ``error`` is something else."""
    text = str(error)
    lowered = text.lower()
    for marker, operation in _DATA_DEPENDENT_MARKERS:
        if marker.lower() in lowered:
            return operation
    if _NO_META_KERNEL in lowered:
        return f"`{_operator_name(error)}` (no meta kernel: its output depends on the data)"
    return None


def _operator_name(error: BaseException) -> str:
    """``aten::geqrf`` from torch's "aten::geqrf: attempted to run this operator..."."""
    return str(error).split(": ", 1)[0].strip()


def _is_device_error(error: BaseException) -> bool:
    text = str(error).lower()
    return any(marker in text for marker in _DEVICE_ERROR_MARKERS)


def _origin(error: BaseException) -> str:
    """``\\nraised from: file.py:12 in forward: `x.item()``` -- the innermost frame of
    user (or library) code, outside torch and torchcheck; empty when there is none."""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if not frame.filename.startswith((_TORCH_DIR, _TORCHCHECK_DIR)):
            code = f": `{frame.line}`" if frame.line else ""
            return f"\nraised from: {frame.filename}:{frame.lineno} in {frame.name}{code}"
    return ""


# ------------------------------------------------------------ watching meta


#: Inputs of a failed operation are re-run on CPU only up to this size, to tell a meta
#: kernel's limitation from a real error (a shape bug fails on CPU too).
_MAX_CPU_PROOF_BYTES = 64 * 2**20
#: Tensors from another device remembered per forward (each costs a stack walk).
_MAX_ORIGINS = 1000


@dataclass
class _TensorOrigin:
    operation: str
    where: str  # " in module 'blocks.0' (Block)", or empty where modules are not tracked
    location: str


@dataclass
class _FailedOperation:
    """The torch operation that raised during a forward on meta, with its arguments."""

    error: BaseException
    func: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]

    @property
    def name(self) -> str:
        return f"`{_op_name(self.func)}`"

    def foreign_tensor(self) -> torch.Tensor | None:
        """An input on another device than meta, when meta tensors are inputs too (a
        0-dim CPU tensor mixes with any device, so it is never the cause)."""
        tensors = [t for t in tree_flatten((self.args, self.kwargs))[0] if isinstance(t, torch.Tensor)]
        if not any(t.is_meta for t in tensors):
            return None
        foreign = [t for t in tensors if not t.is_meta]
        return next((t for t in foreign if t.dim() > 0), foreign[0] if foreign else None)

    def runs_on_cpu(self) -> str | None:
        """How the operation ran on CPU with zero-filled inputs of the same shapes and
        dtypes, or ``None`` when it fails there too (or is too large to try)."""
        tensors = [t for t in tree_flatten((self.args, self.kwargs))[0] if isinstance(t, torch.Tensor)]
        if sum(t.numel() * t.element_size() for t in tensors) > _MAX_CPU_PROOF_BYTES:
            return None
        try:
            with torch.device("cpu"):
                self.func(*tree_map(_on_cpu, self.args), **tree_map(_on_cpu, self.kwargs))
        except Exception:  # the operation is wrong for these inputs on any device
            return None
        described = ", ".join(f"{list(t.shape)} {str(t.dtype).removeprefix('torch.')}" for t in tensors)
        return f"on CPU it runs on zero-filled inputs of the same shapes and dtypes: {described}"


def _on_cpu(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return torch.zeros(value.shape, dtype=value.dtype, device="cpu")
    if isinstance(value, torch.device) and value.type == "meta":
        return torch.device("cpu")
    return value


def _op_name(func: Any) -> str:
    name = str(func)
    return name.removesuffix(".default")


class MetaForwardWatch(TorchDispatchMode):
    """Watches a forward on the meta device: remembers where every tensor on another
    device was made (module path and source line) and the operation that raised, so a
    failure can be told apart -- a tensor from a hard-coded device, a meta kernel that
    refuses what its real kernel accepts, or a real error."""

    def __init__(self, tracker: ModulePathTracker | None = None) -> None:
        super().__init__()
        self.tracker = tracker
        self._origins: dict[int, tuple[weakref.ref[torch.Tensor], _TensorOrigin]] = {}
        self._failures: list[_FailedOperation] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        try:
            output = func(*args, **kwargs)
        except Exception as error:
            self._failures.append(_FailedOperation(error, func, args, dict(kwargs)))
            raise
        if len(self._origins) < _MAX_ORIGINS:
            for tensor in tree_flatten(output)[0]:
                if isinstance(tensor, torch.Tensor) and not tensor.is_meta:
                    self._remember(tensor, func, (args, kwargs))
        return output

    def _remember(self, tensor: torch.Tensor, func: Any, inputs: Any) -> None:
        """Where ``tensor`` comes from: the origin of a tensor it was computed from (a
        view or slice of a tensor made on a fixed device), else this operation."""
        for source in tree_flatten(inputs)[0]:
            entry = self._origins.get(id(source)) if isinstance(source, torch.Tensor) else None
            if entry is not None and entry[0]() is source:
                self._origins[id(tensor)] = (weakref.ref(tensor), entry[1])
                return
        where = ""
        if self.tracker is not None:
            path, module = self.tracker.stack[-1][:2] if self.tracker.stack else ("", self.tracker.model)
            where = f" in module '{path or '<root>'}' ({type(module).__name__})"
        origin = _TensorOrigin(_op_name(func), where, _caller_line())
        self._origins[id(tensor)] = (weakref.ref(tensor), origin)

    def hard_coded_device(self, error: BaseException, model: Any = None) -> str | None:
        """The cause of ``error`` when a tensor on another device met meta tensors:
        which operation, and where that tensor was created; else ``None``."""
        failed = self.failed_operation(error)
        foreign = failed.foreign_tensor() if failed is not None else None
        if failed is None or foreign is None:
            return None
        return _FOREIGN_DEVICE.format(device=foreign.device, operation=failed.name, origin=self.origin_of(foreign, model))

    def meta_kernel_limitation(self, error: BaseException) -> tuple[str, str] | None:
        """``(operation, proof)`` when ``error`` came from a meta kernel refusing inputs
        that the operation's CPU kernel accepts; else ``None``."""
        failed = self.failed_operation(error)
        proof = failed.runs_on_cpu() if failed is not None else None
        return None if failed is None or proof is None else (failed.name, proof)

    def explain(self, error: BaseException, model: Any = None) -> str | None:
        """Why a forward on meta raised ``error``, for a message: a tensor from a
        hard-coded device (and where it was made), or a meta kernel's limitation."""
        hard_coded = self.hard_coded_device(error, model)
        if hard_coded is not None:
            return hard_coded
        limitation = self.meta_kernel_limitation(error)
        if limitation is None:
            return None
        operation, proof = limitation
        return _META_KERNEL_CAUSE.format(operation=operation, proof=proof)

    def failed_operation(self, error: BaseException) -> _FailedOperation | None:
        """The operation whose exception is ``error`` (or one it was raised from)."""
        chain = []
        current: BaseException | None = error
        while current is not None and len(chain) < 10:
            chain.append(current)
            current = current.__cause__ or current.__context__
        for failed in reversed(self._failures):
            if any(failed.error is link for link in chain):
                return failed
        return None

    def origin_of(self, tensor: torch.Tensor, model: Any = None) -> str:
        """Where ``tensor`` was made: in this forward, or held by the model."""
        entry = self._origins.get(id(tensor))
        if entry is not None and entry[0]() is tensor:
            origin = entry[1]
            return f"was created by {origin.operation}{origin.where}, {origin.location}"
        held = _held_by(model, tensor) if isinstance(model, nn.Module) else None
        if held is not None:
            return f"is {held} of the model, created on {tensor.device} when the model was built"
        return "was not created in this forward (an input, or a global tensor)"


def _caller_line() -> str:
    """``at file.py:12: `code``` for the innermost frame outside torch and torchcheck."""
    for frame in reversed(traceback.extract_stack()):
        if not frame.filename.startswith((_TORCH_DIR, _TORCHCHECK_DIR)):
            code = f": `{frame.line}`" if frame.line else ""
            return f"at {frame.filename}:{frame.lineno} in {frame.name}{code}"
    return "at an unknown line"


def _held_by(model: nn.Module, tensor: torch.Tensor) -> str | None:
    for prefix, module in model.named_modules():
        for attr, value in vars(module).items():
            if value is tensor:
                return f"the tensor attribute '{prefix + '.' if prefix else ''}{attr}'"
        for kind, store in (("parameter", module._parameters), ("buffer", module._buffers)):
            for name, value in store.items():
                if value is tensor:
                    return f"{kind} '{prefix + '.' if prefix else ''}{name}'"
    return None


# ---------------------------------------------------------------- meta models


def _build_on_meta(make_model: ModelSource, check: str) -> nn.Module:
    """``make_model()`` built under ``torch.device("meta")``, or a meta copy of an
    instance (tensor for tensor: ties and aliasing are kept, no memory is used)."""
    if isinstance(make_model, nn.Module):
        return strip_compiled(map_tensors(unwrap_compiled(make_model), _meta_like))
    try:
        with torch.device("meta"):
            model = instantiate(make_model)
    except Exception as error:  # construction failing is the finding
        raise _construction_failure(make_model, check, error) from error
    return strip_compiled(model)


def _construction_failure(make_model: ModelSource, check: str, error: BaseException) -> CheckFailed:
    """Why building under ``torch.device("meta")`` failed: an operation that needs values
    (not the model's fault: a real device, or an instance, can be checked instead), or the
    error itself."""
    operation = data_dependent_operation(error)
    if operation is None:
        return CheckFailed(
            _CONSTRUCTION_FAILED.format(check=check, device="meta", error_type=type(error).__name__, error=error)
        )
    model = getattr(make_model, "__name__", type(make_model).__name__)
    frames = traceback.extract_tb(error.__traceback__)
    in_parametrization = any(frame.filename.endswith(("parametrize.py", "parametrizations.py")) for frame in frames)
    message = _CONSTRUCTION_NEEDS_VALUES.format(
        check=check, model=model, operation=operation, origin=_origin(error),
        parametrization=_PARAMETRIZATION_AT_CONSTRUCTION if in_parametrization else "",
        error=indent(f"{type(error).__name__}: {str(error).strip()}"),
    )
    return DataDependentOnMeta(message, model)


def _meta_like(tensor: torch.Tensor) -> torch.Tensor:
    meta = torch.empty(tensor.shape, dtype=tensor.dtype, device="meta")
    if isinstance(tensor, nn.Parameter):
        return nn.Parameter(meta, requires_grad=tensor.requires_grad)
    return meta


def _build_real(make_model: ModelSource) -> nn.Module:
    if isinstance(make_model, nn.Module):
        make_model = unwrap_compiled(make_model)
    return strip_compiled(instantiate(make_model))


# ---------------------------------------------------------------- meta shapes


def _is_shape(value: Any) -> bool:
    return isinstance(value, (tuple, torch.Size)) and all(isinstance(v, int) for v in value)


def _shape_inputs(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Shape tuples (top level, or values of a single dict input) as meta tensors."""
    if len(inputs) == 1 and isinstance(inputs[0], Mapping):
        return ({key: _shape_to_meta(value) for key, value in inputs[0].items()},)
    return tuple(_shape_to_meta(value) for value in inputs)


def _shape_to_meta(value: Any) -> Any:
    return torch.empty(tuple(value), device="meta") if _is_shape(value) else value


def _meta_call(model: nn.Module, inputs: tuple[Any, ...]) -> ModelInputs:
    return ModelInputs.from_inputs(_shape_inputs(inputs), model).map(_meta_like)


def _shapes(value: Any) -> Any:
    """The output's structure with every tensor replaced by its ``torch.Size``."""
    return map_tensors(value, lambda tensor: tensor.shape)


def _tracked_forward(model: nn.Module, call: ModelInputs, check: str, device: str) -> Any:
    with ModulePathTracker(model) as tracker:
        watch = MetaForwardWatch(tracker) if device == "meta" else None
        try:
            with watch if watch is not None else contextlib.nullcontext():
                return call.call(model)
        except Exception as error:  # attributed to the module that raised
            raise tracker.failure(check, device, error, watch) from error


def meta_shapes(make_model: ModelSource, *inputs: Any) -> Any:
    """Build ``make_model()`` and run its forward on the ``meta`` device; return the
    output's shape (a ``torch.Size``, or the same nested structure with every tensor
    replaced by its ``torch.Size``).

    ``inputs`` are tensors (any device; only shape and dtype are used) or shape tuples
    (float tensors of the default dtype); a single dict is passed as keyword arguments.
    ``make_model`` may also be a model instance (copied onto meta). Allocates no memory
    for parameters or activations. A failure names the module path where it happened.
    """
    return _meta_shapes(make_model, inputs, "meta_shapes")[0]


def _meta_shapes(make_model: ModelSource, inputs: tuple[Any, ...], check: str) -> tuple[Any, str]:
    """The output shapes and the model's class name."""
    with preserved_state(), torch.no_grad():
        model = _build_on_meta(make_model, check).eval()  # the mode of the real forward, too
        with torch.device("meta"):
            output = _tracked_forward(model, _meta_call(model, inputs), check, "meta")
        return _shapes(output), type(model).__name__


def assert_meta_shapes(
    make_model: ModelSource,
    *inputs: Any,
    expected: Any = None,
    device: str | torch.device | None = None,
) -> None:
    """:func:`meta_shapes`, then compare with ``expected`` (a shape tuple, or the nested
    structure of them; for a dict or ``ModelOutput`` only the keys named in ``expected``
    are checked); with ``device``, also build the model for real there, run one forward
    on random inputs of the same shapes and require the same output shapes."""
    try:
        shapes, name = _meta_shapes(make_model, inputs, "assert_meta_shapes")
    except NotRunnableOnMeta as failure:
        if device is None:
            raise
        shapes, name = None, failure.model
        warnings.warn(_META_SKIPPED.format(model=name, device=device, reason=failure), RuntimeWarning, stacklevel=2)
    real = None if device is None else _real_shapes(make_model, inputs, torch.device(device))
    if expected is not None:
        _check_expected_shapes(name, shapes if shapes is not None else real, expected)
    if shapes is not None and real is not None:
        comparison = compare_structures(real, shapes, ignore_types=(torch.device,))
        if comparison.mismatch is not None:
            raise CheckFailed(
                _DEVICE_SHAPE_MISMATCH.format(
                    model=name, device=device, path=comparison.mismatch.path,
                    details=indent(comparison.mismatch.render()),
                )
            )


def _check_expected_shapes(name: str, shapes: Any, expected: Any) -> None:
    problem = _shape_mismatch(shapes, expected, "output")
    if problem is not None:
        path, actual, wanted = problem
        raise CheckFailed(_SHAPE_MISMATCH.format(model=name, path=path, actual=actual, expected=wanted))


def _shape_mismatch(actual: Any, expected: Any, path: str) -> tuple[str, Any, Any] | None:
    """``(path, actual, expected)`` of the first shape that differs from ``expected``."""
    if _is_shape(expected) or _is_shape(actual):
        if not (_is_shape(expected) and _is_shape(actual)) or tuple(actual) != tuple(expected):
            return path, _fmt_shape(actual), _fmt_shape(expected)
        return None
    if isinstance(expected, Mapping):
        return _mapping_shape_mismatch(actual, expected, path)
    if isinstance(expected, (list, tuple)):
        items = named_children(actual) if isinstance(actual, (list, tuple)) else None
        if items is None or len(items) != len(expected):
            count = f"{len(items)} outputs" if items is not None else type(actual).__name__
            return path, count, f"{len(expected)} outputs"
        for (suffix, a), e in zip(items, expected):
            found = _shape_mismatch(a, e, path + suffix)
            if found is not None:
                return found
        return None
    return None if actual == expected else (path, actual, expected)


def _mapping_shape_mismatch(actual: Any, expected: Mapping[Any, Any], path: str) -> tuple[str, Any, Any] | None:
    children = dict(named_children(actual) or [])
    for key, wanted in expected.items():
        suffix = next((s for s in (f".{key}", f"[{key!r}]") if s in children), None)
        if suffix is None:
            present = sorted(s.lstrip(".[").rstrip("]").strip("'") for s in children)
            return f"{path}[{key!r}]", f"missing (outputs: {', '.join(present)})", _fmt_shape(wanted)
        found = _shape_mismatch(children[suffix], wanted, path + suffix)
        if found is not None:
            return found
    return None


def _fmt_shape(value: Any) -> Any:
    return tuple(value) if _is_shape(value) else value


def _materialise(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    if not tensor.is_meta:
        return tensor.to(device)
    if tensor.is_floating_point():
        return torch.randn(tensor.shape, dtype=tensor.dtype, device=device)
    return torch.zeros(tensor.shape, dtype=tensor.dtype, device=device)


def _real_shapes(make_model: ModelSource, inputs: tuple[Any, ...], device: torch.device) -> Any:
    with preserved_state(), torch.no_grad():
        seed_everything(0)
        model = _build_real(make_model).to(device).eval()
        call = ModelInputs.from_inputs(_shape_inputs(inputs), model).map(lambda t: _materialise(t, device))
        return _shapes(_tracked_forward(model, call, "assert_meta_shapes", str(device)))


# ------------------------------------------------------------------ meta load


def assert_meta_load(
    make_model: ModelSource,
    checkpoint: str | os.PathLike[str] | Mapping[str, torch.Tensor],
    *inputs: Any,
    after_load: Callable[[nn.Module], None] | None = None,
) -> None:
    """Check the low-memory loading recipe: build under ``torch.device("meta")``,
    ``torch.load(checkpoint, mmap=True, weights_only=True)``,
    ``load_state_dict(sd, assign=True)``, then re-tie (the model's ``tie_weights()`` if
    it has one) and ``after_load(model)`` if given.

    Afterwards no parameter, buffer or tensor attribute may be left on meta, no key may
    be missing (a tied parameter stored once, under its partner's key, is not missing)
    or unexpected, tied weights must still be tied, and eval-mode outputs on ``inputs``
    must equal those of an ordinary load into a normally built model.
    ``checkpoint`` is a path to a saved ``state_dict`` (or the state dict itself).
    """
    with preserved_state(), torch.no_grad(), _checkpoint_file(checkpoint) as path:
        seed_everything(0)
        reference = _build_real(make_model)
        checkpoint_state = _without_compiled_prefixes(torch.load(path, weights_only=True))
        reference.load_state_dict(checkpoint_state, strict=False)  # keys judged below
        reference.eval()
        name = type(reference).__name__
        model = _build_on_meta(make_model, "assert_meta_load")
        state_dict = _without_compiled_prefixes(torch.load(path, mmap=True, weights_only=True))
        result = model.load_state_dict(state_dict, assign=True, strict=False)
        _retie(model)
        before_after_load = _tensor_versions(model)
        to_initialise = _meta_non_persistent_buffers(model)
        if after_load is not None:
            after_load(model)
        missing = _untied_missing_keys(result.missing_keys, set(state_dict), _tie_groups(reference))
        _check_keys(name, missing, result.unexpected_keys, model)
        # The old hook-based spectral_norm's weight is recomputed before every forward:
        # still on meta until then, and judged only after one.
        derived = hook_recomputed_attributes(model)
        _fail_if_left_on_meta(name, model, skip=derived)
        _check_loaded_values(name, model, checkpoint_state, before_after_load, after_load, to_initialise)
        _check_ties(name, reference, model)
        model.eval()
        if inputs:
            before_forward = _attribute_ids(model, derived)
            _compare_loaded_outputs(name, reference, model, inputs)
            # One the forward did not recompute belongs to a module it did not call.
            after_forward = _attribute_ids(model, derived)
            not_recomputed = {n for n in derived if after_forward[n] == before_forward[n]}
            _fail_if_left_on_meta(name, model, skip=not_recomputed)
        elif derived:
            unchecked = _META_LOAD_DERIVED_UNCHECKED.format(names=", ".join(sorted(derived)))
            warnings.warn(unchecked, UserWarning, stacklevel=2)


def _without_compiled_prefixes(state_dict: Mapping[str, Any]) -> dict[str, Any]:
    """Keys as the model without ``torch.compile`` wrappers names them: a compiled
    submodule saves ``block._orig_mod.weight``, the module inside it is ``block.weight``."""
    return {_plain_key(key): value for key, value in state_dict.items()}


def _plain_key(key: str) -> str:
    return ".".join(part for part in key.split(".") if part != _COMPILED_PART)


def _tensor_versions(model: nn.Module) -> dict[str, tuple[int, int]]:
    """``name -> (identity, version counter)`` of every parameter and buffer: which of
    them a later step replaced or changed in place."""
    tensors = [*model.named_parameters(remove_duplicate=False), *model.named_buffers(remove_duplicate=False)]
    return {name: (id(tensor), tensor._version) for name, tensor in tensors}


def _check_loaded_values(
    name: str,
    model: nn.Module,
    state_dict: Mapping[str, torch.Tensor],
    before_after_load: dict[str, tuple[int, int]],
    after_load: Callable[[nn.Module], None] | None,
    to_initialise: dict[str, list[str]],
) -> None:
    """Every parameter and buffer still holds the checkpoint's value after loading.
    ``state_dict`` is an ordinary load of the checkpoint: with assign=True the model
    shares storage with the mmap-ed one, so a change in place would show there too.
    ``to_initialise`` (module path -> non-persistent buffers on meta before ``after_load``)
    says which initialisation may have reached a changed tensor."""
    live = model.state_dict(keep_vars=True)
    changed = [
        key
        for key, saved in state_dict.items()
        if isinstance(live.get(key), torch.Tensor) and _differs(live[key], saved)
    ]
    if not changed:
        return
    after = _tensor_versions(model)
    by_after_load = [key for key in changed if before_after_load.get(key) != after.get(key)]
    cause = _CHANGED_BY_AFTER_LOAD if after_load is not None and by_after_load else _CHANGED_BY_LOAD
    if cause is _CHANGED_BY_AFTER_LOAD:
        changed = [key + _initialised_with(key, to_initialise) for key in changed]
    shown = changed[:_MAX_NAMES] + ([f"and {len(changed) - _MAX_NAMES} more"] if len(changed) > _MAX_NAMES else [])
    raise CheckFailed(
        _META_LOAD_CHANGED.format(
            model=name, count=len(changed), names="\n".join(f"  {key}" for key in shown), cause=cause
        )
    )


def _meta_non_persistent_buffers(model: nn.Module) -> dict[str, list[str]]:
    """``module path -> names`` of the non-persistent buffers still on meta: what an
    ``after_load`` initialises."""
    pending = {}
    for path, module in model.named_modules():
        names = [name for name, buffer in module._buffers.items()
                 if name in module._non_persistent_buffers_set and buffer is not None and buffer.is_meta]
        if names:
            pending[path] = names
    return pending


def _initialised_with(key: str, to_initialise: dict[str, list[str]]) -> str:
    """`` (inside 'embeddings', which holds the non-persistent buffer position_ids)``:
    the nearest module at or above ``key`` that had a buffer to initialise; empty if none."""
    owner = key.rpartition(".")[0]
    parts = owner.split(".") if owner else []
    for depth in range(len(parts), -1, -1):
        path = ".".join(parts[:depth])
        if path in to_initialise:
            buffers = ", ".join(to_initialise[path])
            where = "its module" if path == owner else f"inside '{path or '<root>'}', which"
            return f" ({where} holds the non-persistent buffer {buffers})"
    return ""


def _differs(live: torch.Tensor, saved: torch.Tensor) -> bool:
    if live.is_meta or live.shape != saved.shape:
        return False  # reported as left on meta, or by load_state_dict itself
    return not torch.equal(live.detach().cpu(), saved.to(live.dtype))


def _retie(model: nn.Module) -> None:
    """Re-tie weights the way the model itself does (transformers' ``tie_weights()``)."""
    tie_weights = getattr(model, "tie_weights", None)
    if callable(tie_weights):
        tie_weights()


def _tie_groups(model: nn.Module) -> list[list[str]]:
    groups: dict[int, list[str]] = {}
    for param_name, param in model.named_parameters(remove_duplicate=False):
        groups.setdefault(id(param), []).append(param_name)
    return [names for names in groups.values() if len(names) > 1]


def _untied_missing_keys(missing: list[str], present: set[str], ties: list[list[str]]) -> list[str]:
    """Missing keys except those of tied parameters whose partner is in the checkpoint."""
    covered = {key for names in ties if present.intersection(names) for key in names}
    return [key for key in missing if key not in covered]


def _compare_loaded_outputs(name: str, reference: nn.Module, model: nn.Module, inputs: tuple[Any, ...]) -> None:
    call = ModelInputs.from_inputs(inputs, model)
    expected = detach_to_cpu(_tracked_forward(reference, call, "assert_meta_load", "cpu"))
    actual = detach_to_cpu(_tracked_forward(model, call, "assert_meta_load", "cpu"))
    comparison = compare_structures(actual, expected)
    if comparison.mismatch is not None:
        raise CheckFailed(
            _META_LOAD_OUTPUT.format(
                model=name, path=comparison.mismatch.path, details=indent(comparison.mismatch.render())
            )
        )
    warn_uncompared("assert_meta_load", comparison)


@contextlib.contextmanager
def _checkpoint_file(checkpoint: str | os.PathLike[str] | Mapping[str, torch.Tensor]) -> Iterator[Path]:
    if not isinstance(checkpoint, Mapping):
        path = Path(checkpoint)
        if not path.is_file():
            problem = "is not a file" if path.exists() else "does not exist"
            raise ValueError(_META_LOAD_NO_FILE.format(path=os.fspath(checkpoint), problem=problem, resolved=path.resolve()))
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="torchcheck-") as directory:
        path = Path(directory) / "state_dict.pt"
        torch.save(dict(checkpoint), path)
        yield path


def _check_keys(name: str, missing: list[str], unexpected: list[str], model: nn.Module) -> None:
    parts = []
    if missing:
        parts.append(f"missing keys: {', '.join(missing)}")
    if unexpected:
        parts.append(f"unexpected keys: {', '.join(unexpected)}")
    if not parts:
        return
    unset = [key for key in unexpected if _is_unset_buffer(model, key)]
    cause = _UNSET_BUFFERS_CAUSE.format(model=name, names=", ".join(unset)) if unset else ""
    raise CheckFailed(_META_LOAD_KEYS.format(model=name, details="; ".join(parts), cause=cause))


def _is_unset_buffer(model: nn.Module, key: str) -> bool:
    """Whether ``key`` names a buffer registered as None (so not in the state dict)."""
    path, _, name = key.rpartition(".")
    try:
        module = model.get_submodule(path)
    except AttributeError:
        return False
    return name in module._buffers and module._buffers[name] is None


def _attribute_ids(model: nn.Module, names: set[str]) -> dict[str, int]:
    """``dotted name -> id`` of tensor attributes: which of them a forward replaced."""
    ids = {}
    for name in names:
        path, _, attribute = name.rpartition(".")
        ids[name] = id(vars(model.get_submodule(path))[attribute])
    return ids


def _fail_if_left_on_meta(name: str, model: nn.Module, skip: set[str]) -> None:
    left = _on_meta(model, skip)
    if left:
        raise CheckFailed(_META_LOAD_LEFT_ON_META.format(model=name, names="\n".join(f"  {n}" for n in left)))


def _on_meta(model: nn.Module, skip: set[str]) -> list[str]:
    """What is still on meta, except the tensor attributes named in ``skip``."""
    names = [f"parameter {n}" for n, p in model.named_parameters(remove_duplicate=False) if p.is_meta]
    names += [f"buffer {n}" for n, b in model.named_buffers(remove_duplicate=False) if b.is_meta]
    for prefix, module in model.named_modules():
        for attr, value in vars(module).items():
            dotted = f"{prefix + '.' if prefix else ''}{attr}"
            if isinstance(value, torch.Tensor) and value.is_meta and dotted not in skip:
                names.append(f"tensor attribute {dotted}")
    return names


def _check_ties(name: str, reference: nn.Module, model: nn.Module) -> None:
    loaded = dict(model.named_parameters(remove_duplicate=False))
    for names in _tie_groups(reference):
        if len({id(loaded.get(n)) for n in names}) > 1:
            raise CheckFailed(_META_LOAD_TIES.format(model=name, names=", ".join(names)))
