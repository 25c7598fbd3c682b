"""The inference contract: what ``model.eval()`` and ``torch.inference_mode()`` promise.

In eval mode, with no reseed between them, two calls on the same inputs give the same
outputs; a call reads the model's state and changes none of it; under ``no_grad`` and
``inference_mode`` nothing is recorded for autograd, and the model still trains
afterwards; outputs land on the inputs' device in the declared dtypes, finite.

Random numbers drawn in eval mode (``F.dropout(x, p)``, whose ``training`` defaults to
True) are found at the operation, by the ``nondeterministic_seeded`` tag every random
ATen operation carries, and named with their module and source line.
"""

from __future__ import annotations

import copy
import fnmatch
import re
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

from torchcheck.checks._compare import compare_structures, detach_to_cpu, indent, iter_tensors
from torchcheck.checks._inputs import ModelInputs, instantiate, strip_compiled, unwrap_compiled
from torchcheck.checks._registration import hook_recomputed_attributes
from torchcheck.checks._training_state import differing_generators
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.state import capture_rng_state, preserved_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["assert_inference_contract"]

ModelSource = nn.Module | Callable[[], nn.Module]
DtypeSpec = torch.dtype | Mapping[str, torch.dtype] | None

_OUTPUTS_DIFFER = """\
assert_inference_contract: two eval-mode calls of {model} on the same inputs differ at {path}
(no reseed between the calls):
{details}
Cause: {cause}"""

_CAUSE_RANDOM = """\
random numbers are drawn in eval mode: {draws}{hint}"""
_DROPOUT_HINT = (
    "\nF.dropout defaults to training=True; pass training=self.training, or use nn.Dropout."
)
_RANDOM_HINT = "\nIf this module samples by design (a VAE, a diffusion sampler), name it in allow_random=."
_CAUSE_STATE = """\
no random numbers were drawn, but the first call changed state that the second reads:
{changes}"""
_CAUSE_OUTSIDE = (
    "no random numbers were drawn by torch and no parameter, buffer or tensor attribute "
    "changed: values from outside torch differ between the calls (python or numpy "
    "generators{moved}, time, a counter kept in a Python attribute)."
)

_MUTATED = """\
assert_inference_contract: an eval-mode call of {model} changes state it should only read:
{changes}"""
_CHANGE = "- {what}: {cause}"
_CAUSE_TRAIN_MODE = "{module_type} '{module}' ran in train mode although model.eval() was called: {why}"
_WHY_UNREGISTERED = "it is held in self.{holder}, a Python {kind}, so .eval() never reached it (use nn.Module{container})"
_WHY_REGISTERED = "its train() is overridden, or the forward sets .training back"
_CAUSE_IN_PLACE = (
    "the forward changes it in place; if it is a cache kept on purpose (a static KV cache), "
    "name it in allow_mutation="
)
_CAUSE_BACKWARD = "the forward calls backward() (or sets .grad)"

_TRAINING_MODULES = """\
assert_inference_contract: after model.eval(), these modules of {model} still run in train mode:
{modules}"""

_GRAPH_RECORDED = """\
assert_inference_contract: under {mode}, outputs of {model} carry autograd history: {paths}.
The forward re-enables grad (torch.enable_grad(), torch.set_grad_enabled(True)) for \
what it returns, so inference pays for a graph it never uses."""

_INFERENCE_TENSOR_CACHE = """\
assert_inference_contract: {model} cannot train after a call under torch.inference_mode():
  {error}
A cache built during that call holds inference tensors, which autograd cannot save: \
{holders}. Build the cache outside inference mode (in __init__, as a buffer), or rebuild \
it when it is an inference tensor (tensor.is_inference()) and grad is enabled."""

_WRONG_DEVICE = """\
assert_inference_contract: output {path} of {model} is on {actual}, not on {expected} \
(the {source}). A .cpu() or .to(device) in forward moves it; return outputs where the \
inputs are."""

_WRONG_DTYPE = """\
assert_inference_contract: output {path} of {model} is {actual}, declared {expected}."""

_NOT_FINITE = """\
assert_inference_contract: output {path} of {model} holds {nan} NaN and {inf} Inf of \
{total} values in eval mode."""

_DROPOUT_OPERATIONS = ("bernoulli", "native_dropout", "dropout")
_MAX_LISTED = 5
_TORCH_DIR = torch.__file__.rsplit("/", 1)[0]
_TORCHCHECK_DIR = __file__.rsplit("/", 2)[0]


def assert_inference_contract(
    model: ModelSource,
    *inputs: Any,
    output_dtype: DtypeSpec = None,
    output_device: str | torch.device | None = "inputs",
    allow_mutation: Sequence[str] = (),
    allow_random: Sequence[str] = (),
    inference_mode: bool = True,
) -> None:
    """Check what eval mode and inference mode promise, on a copy of ``model`` (an
    instance, left untouched, or a factory):

    1. every module that runs is in eval mode after ``.eval()`` (not one whose
       ``train()`` is overridden, nor one held in a Python list that ``.eval()`` never
       reached);
    2. two calls on ``inputs`` with no reseed between them give identical outputs
       (bit-exact), naming each random operation with its module and source line;
       modules matching ``allow_random`` (fnmatch patterns) may sample by design;
    3. no parameter, buffer, ``.grad`` or tensor attribute changes, except names
       matching ``allow_mutation``;
    4. under ``torch.no_grad()`` and (with ``inference_mode``) ``torch.inference_mode()``
       outputs carry no autograd history, and the model still trains afterwards (a
       cache built in inference mode holds tensors autograd cannot save);
    5. every output tensor is on ``output_device`` (default: the inputs' device;
       ``None`` to skip), of ``output_dtype`` when given (a dtype, or output name
       patterns to dtypes: ``{"logits": torch.float32, "*": torch.bfloat16}``), and
       finite.

    A single dict input is passed as keyword arguments. RNG and global state are
    restored afterwards.
    """
    with preserved_state():
        reference = unwrap_compiled(model) if isinstance(model, nn.Module) else instantiate(model)
        work = _copy_of(reference)
        name = type(work).__name__
        call = ModelInputs.from_inputs(inputs, work)
        names = _ModuleNames.of(work)
        work.eval()
        log = _CallLog(names, allow_random)
        with torch.no_grad(), log:
            first = log.call(work, call)
            second = log.call(work, call)
        _check_identical_outputs(name, first, second, log, work, reference, names, allow_mutation)
        _check_unchanged(name, work, reference, names, log, allow_mutation)
        _check_eval_reached(name, log)
        _check_no_graph(name, first, "torch.no_grad()")
        if inference_mode:  # on a fresh copy: a cache built lazily is built in inference mode
            fresh = _copy_of(reference).eval()
            with torch.inference_mode():
                _check_no_graph(name, call.call(fresh), "torch.inference_mode()")
            _check_trains_afterwards(name, fresh, call)
        _check_outputs(name, first, inputs, reference, output_device, output_dtype)


def _copy_of(reference: nn.Module) -> nn.Module:
    """A copy to run, without compile wrappers, with the reference's ``.grad`` too
    (deepcopy leaves a Parameter's gradient behind, which would read as a change)."""
    plain = unwrap_compiled(reference)
    # A tensor attribute with history (the old spectral norm's weight after a forward
    # with grad) refuses deepcopy; its detached value is what a copy needs.
    memo: dict[int, Any] = {
        id(value): value.detach().clone()
        for module in plain.modules()
        for value in vars(module).values()
        if isinstance(value, torch.Tensor) and value.grad_fn is not None
    }
    work = strip_compiled(copy.deepcopy(plain, memo))
    grads = {_plain(n): p.grad for n, p in reference.named_parameters(remove_duplicate=False)}
    for param_name, param in work.named_parameters(remove_duplicate=False):
        grad = grads.get(_plain(param_name))
        if grad is not None:
            param.grad = grad.detach().clone()
    return work


# ---------------------------------------------------------------- module names


@dataclass
class _ModuleNames:
    """Dotted names of every module, registered or held in a Python container, and
    for the latter the container that holds it."""

    names: dict[int, str] = field(default_factory=dict)
    types: dict[int, str] = field(default_factory=dict)
    holders: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> ("norms", "list")
    training_hidden: dict[str, nn.Module] = field(default_factory=dict)

    @classmethod
    def of(cls, model: nn.Module) -> _ModuleNames:
        found = cls()
        for name, module in model.named_modules(remove_duplicate=False):
            found.names.setdefault(id(module), name)
            found.types[id(module)] = type(module).__name__
        for prefix, module in list(model.named_modules()):
            for attr, value in vars(module).items():
                if not attr.startswith("_") and isinstance(value, (list, tuple, dict)):
                    holder = f"{prefix}.{attr}" if prefix else attr
                    found._add_hidden(value, holder, holder, type(value).__name__, 0)
        return found

    def _add_hidden(self, value: Any, path: str, holder: str, kind: str, depth: int) -> None:
        if isinstance(value, nn.Module):
            if id(value) in self.names:
                return
            for sub_name, sub in value.named_modules():
                self.names.setdefault(id(sub), f"{path}.{sub_name}" if sub_name else path)
                self.types[id(sub)] = type(sub).__name__
                self.holders.setdefault(id(sub), (holder, kind))
            return
        if isinstance(value, (list, tuple, dict)) and depth < 3:
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                self._add_hidden(item, f"{path}.{key}", holder, kind, depth + 1)

    def name(self, module: nn.Module) -> str:
        return self.names.get(id(module)) or "<root>"

    def hidden_modules(self, model: nn.Module) -> Iterator[tuple[str, nn.Module]]:
        """Modules held in Python containers, with their names (for their tensors)."""
        registered = {id(m) for m in model.modules()}
        seen: set[int] = set()
        for prefix, module in model.named_modules():
            for attr, value in vars(module).items():
                if attr.startswith("_") or not isinstance(value, (list, tuple, dict)):
                    continue
                for item in _modules_in(value, 0):
                    if id(item) not in registered and id(item) not in seen:
                        seen.add(id(item))
                        yield self.names[id(item)], item


def _modules_in(value: Any, depth: int) -> Iterator[nn.Module]:
    if isinstance(value, nn.Module):
        yield value
    elif isinstance(value, (list, tuple, dict)) and depth < 3:
        for item in value.values() if isinstance(value, dict) else value:
            yield from _modules_in(item, depth + 1)


# ------------------------------------------------------------------ call log


@dataclass(frozen=True)
class _Draw:
    operation: str
    module: str
    module_type: str
    location: str
    code: str


@dataclass(frozen=True)
class _ModeRecord:
    module: str
    module_type: str
    holder: tuple[str, str] | None


class _CallLog(TorchDispatchMode):
    """While active: which modules ran in train mode (every module, registered or not,
    through global forward hooks), and every random draw with its module and line."""

    def __init__(self, names: _ModuleNames, allow_random: Sequence[str]) -> None:
        super().__init__()
        self.names = names
        self.allow_random = tuple(allow_random)
        self.stack: list[nn.Module] = []
        self.draws: list[_Draw] = []
        self.training: dict[str, _ModeRecord] = {}
        self.generators_moved: list[str] = []
        self._handles: list[Any] = []

    def __enter__(self) -> _CallLog:
        hooks = torch.nn.modules.module
        self._handles = [
            hooks.register_module_forward_pre_hook(self._pre_hook),
            hooks.register_module_forward_hook(self._post_hook),
        ]
        return super().__enter__()

    def __exit__(self, *exc: Any) -> None:
        for handle in self._handles:
            handle.remove()
        super().__exit__(*exc)

    def call(self, model: nn.Module, call: ModelInputs) -> Any:
        self.stack.clear()
        before = capture_rng_state()
        output = call.call(model)
        self.generators_moved += [g for g in differing_generators(before, capture_rng_state()) if g not in self.generators_moved]
        return output

    def _pre_hook(self, module: nn.Module, args: Any) -> None:
        self.stack.append(module)
        if id(module) not in self.names.names:
            return  # not the model's: a module object shared by a library (an activation)
        name = self.names.name(module)
        if module.training and not self._allowed(name):
            holder = self.names.holders.get(id(module))
            self.training.setdefault(name, _ModeRecord(name, type(module).__name__, holder))

    def _post_hook(self, module: nn.Module, args: Any, output: Any) -> None:
        if self.stack:
            self.stack.pop()

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        if torch.Tag.nondeterministic_seeded in func.tags:
            module = next((m for m in reversed(self.stack) if id(m) in self.names.names), None)
            name = self.names.name(module) if module is not None else "<root>"
            if not self._allowed(name):
                location, code = _user_frame()
                module_type = type(module).__name__ if module is not None else "?"
                self.draws.append(_Draw(str(func).removesuffix(".default"), name, module_type, location, code))
        return func(*args, **(kwargs or {}))

    def _allowed(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.allow_random)


def _user_frame() -> tuple[str, str]:
    for frame in reversed(traceback.extract_stack()):
        if not frame.filename.startswith((_TORCH_DIR, _TORCHCHECK_DIR)):
            return f"{frame.filename}:{frame.lineno}", frame.line or ""
    return "an unknown line", ""


# -------------------------------------------------------------------- checks


def _check_identical_outputs(
    name: str, first: Any, second: Any, log: _CallLog, work: nn.Module, reference: nn.Module,
    names: _ModuleNames, allow_mutation: Sequence[str],
) -> None:
    comparison = compare_structures(detach_to_cpu(second), detach_to_cpu(first), rtol=0.0, atol=0.0)
    mismatch = comparison.mismatch
    if mismatch is None:
        return
    if log.draws:
        cause = _random_cause(log)
    else:
        if log.allow_random and log.generators_moved:
            return  # the only random numbers come from modules that sample by design
        changes = _changes(work, reference, names, log, allow_mutation)
        if changes:
            cause = _CAUSE_STATE.format(changes="\n".join(changes))
        else:
            moved = f"; {', '.join(log.generators_moved)} moved" if log.generators_moved else ""
            cause = _CAUSE_OUTSIDE.format(moved=moved)
    raise CheckFailed(
        _OUTPUTS_DIFFER.format(model=name, path=mismatch.path, details=indent(mismatch.render()), cause=cause)
    )


def _random_cause(log: _CallLog) -> str:
    unique = list(dict.fromkeys(log.draws))
    lines = []
    for draw in unique[:_MAX_LISTED]:
        code = f"\n    {draw.code}" if draw.code else ""
        lines.append(f"{draw.operation} in '{draw.module}' ({draw.module_type}), called from\n{draw.location}{code}")
    draws = "\n".join(lines)
    in_train_mode = any(draw.module in log.training for draw in unique)
    if in_train_mode:
        records = [log.training[d.module] for d in unique if d.module in log.training]
        hint = "\n" + "\n".join(_train_mode_cause(r) for r in dict.fromkeys(records))
    elif any(op in unique[0].operation for op in _DROPOUT_OPERATIONS):
        hint = _DROPOUT_HINT
    else:
        hint = _RANDOM_HINT
    return _CAUSE_RANDOM.format(draws=draws, hint=hint)


def _train_mode_cause(record: _ModeRecord) -> str:
    if record.holder is not None:
        holder, kind = record.holder
        container = "Dict" if kind == "dict" else "List"
        why = _WHY_UNREGISTERED.format(holder=holder, kind=kind, container=container)
    else:
        why = _WHY_REGISTERED
    return _CAUSE_TRAIN_MODE.format(module_type=record.module_type, module=record.module, why=why)


def _check_unchanged(
    name: str, work: nn.Module, reference: nn.Module, names: _ModuleNames, log: _CallLog, allow_mutation: Sequence[str]
) -> None:
    changes = _changes(work, reference, names, log, allow_mutation)
    if changes:
        raise CheckFailed(_MUTATED.format(model=name, changes="\n".join(changes)))


def _changes(
    work: nn.Module, reference: nn.Module, names: _ModuleNames, log: _CallLog, allow_mutation: Sequence[str]
) -> list[str]:
    before = _state(reference, _ModuleNames.of(reference))
    after = _state(work, names)
    by_cause: dict[str, list[str]] = {}
    renormalised = _renormalised_by_design(work)
    for key, (kind, owner, tensor) in after.items():
        if key not in before or key in renormalised or any(fnmatch.fnmatchcase(key, p) for p in allow_mutation):
            continue
        size = _change_size(before[key][2], tensor)
        if size is not None:
            by_cause.setdefault(_mutation_cause(kind, owner, log), []).append(f"{kind} '{key}' ({size})")
    return [indent(_CHANGE.format(what=", ".join(what), cause=cause)) for cause, what in by_cause.items()]


def _renormalised_by_design(model: nn.Module) -> set[str]:
    """Weights that ``nn.Embedding(max_norm=)`` rescales in place on every lookup, by
    design and in eval mode too."""
    return {
        _plain(f"{prefix}.weight" if prefix else "weight")
        for prefix, module in model.named_modules()
        if isinstance(module, (nn.Embedding, nn.EmbeddingBag)) and module.max_norm is not None
    }


def _state(model: nn.Module, names: _ModuleNames) -> dict[str, tuple[str, str, torch.Tensor | None]]:
    """``name -> (kind, owning module, tensor)`` for parameters, their ``.grad``,
    buffers and tensor attributes, of registered and container-held modules alike.
    Attributes a forward pre-hook recomputes (the old spectral norm's weight) are
    derived, not state."""
    modules = [(n, m) for n, m in model.named_modules()] + list(names.hidden_modules(model))
    derived = hook_recomputed_attributes(model)
    found: dict[str, tuple[str, str, torch.Tensor | None]] = {}
    for prefix, module in modules:
        dotted = f"{prefix}." if prefix else ""
        for key, param in module._parameters.items():
            if param is not None:
                found[_plain(dotted + key)] = ("parameter", prefix, param)
                found[_plain(dotted + key) + ".grad"] = ("gradient of", prefix, param.grad)
        for key, buffer in module._buffers.items():
            if buffer is not None:
                found[_plain(dotted + key)] = ("buffer", prefix, buffer)
        for key, value in vars(module).items():
            if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter) and dotted + key not in derived:
                found[_plain(dotted + key)] = ("tensor attribute", prefix, value)
    return found


def _plain(key: str) -> str:
    return ".".join(part for part in key.split(".") if part != "_orig_mod")


def _change_size(before: torch.Tensor | None, after: torch.Tensor | None) -> str | None:
    """How ``after`` differs from ``before`` (``None`` when equal)."""
    if before is None and after is None:
        return None
    if before is None or after is None:
        return "was None" if before is None else "became None"
    if before.shape != after.shape or before.dtype != after.dtype:
        return f"{tuple(before.shape)} {before.dtype} -> {tuple(after.shape)} {after.dtype}"
    old, new = before.detach().cpu(), after.detach().cpu()
    if torch.equal(old, new):
        return None
    if old.is_floating_point() or old.is_complex():
        return f"max change {float((new - old).abs().max()):.3g}"
    return f"{int((new != old).sum())} of {old.numel()} values changed"


def _mutation_cause(kind: str, owner: str, log: _CallLog) -> str:
    if kind == "gradient of":
        return _CAUSE_BACKWARD
    record = log.training.get(owner or "<root>")
    return _train_mode_cause(record) if record is not None else _CAUSE_IN_PLACE


def _check_eval_reached(name: str, log: _CallLog) -> None:
    if log.training:
        modules = "\n".join(indent("- " + _train_mode_cause(r)) for r in list(log.training.values())[:_MAX_LISTED])
        raise CheckFailed(_TRAINING_MODULES.format(model=name, modules=modules))


def _check_no_graph(name: str, output: Any, mode: str) -> None:
    recorded = [path for path, t in iter_tensors(output) if t.requires_grad or t.grad_fn is not None]
    if recorded:
        raise CheckFailed(_GRAPH_RECORDED.format(mode=mode, model=name, paths=", ".join(recorded[:_MAX_LISTED])))


def _check_trains_afterwards(name: str, work: nn.Module, call: ModelInputs) -> None:
    """A training forward and backward after the inference-mode call; only an error
    about inference tensors is this check's finding (others belong to the user's
    training setup, which other checks test)."""
    work.train()
    try:
        with torch.enable_grad():
            floats = [t for _, t in iter_tensors(call.call(work)) if t.is_floating_point() and t.requires_grad]
            if floats:
                sum(t.float().sum() for t in floats).backward()
    except RuntimeError as error:
        if "inference tensor" not in str(error).lower():
            return
        holders = _inference_tensor_holders(work) or "no attribute of the model (a global or a closure holds it)"
        raise CheckFailed(
            _INFERENCE_TENSOR_CACHE.format(model=name, error=f"{type(error).__name__}: {error}", holders=holders)
        ) from error
    finally:
        work.eval()


def _inference_tensor_holders(model: nn.Module) -> str:
    found = []
    for prefix, module in model.named_modules():
        dotted = f"{prefix}." if prefix else ""
        for key, value in [*vars(module).items(), *module._buffers.items()]:
            if isinstance(value, torch.Tensor) and value.is_inference():
                found.append(f"'{dotted}{key}'")
    return ", ".join(dict.fromkeys(found))


def _check_outputs(
    name: str, output: Any, inputs: tuple[Any, ...], reference: nn.Module,
    output_device: str | torch.device | None, output_dtype: DtypeSpec,
) -> None:
    expected_device, source = _expected_device(inputs, reference, output_device)
    for path, tensor in iter_tensors(output):
        if expected_device is not None and tensor.device != expected_device:
            raise CheckFailed(
                _WRONG_DEVICE.format(path=path, model=name, actual=tensor.device, expected=expected_device, source=source)
            )
        wanted = _declared_dtype(path, output_dtype)
        if wanted is not None and tensor.dtype != wanted:
            raise CheckFailed(_WRONG_DTYPE.format(path=path, model=name, actual=tensor.dtype, expected=wanted))
        if (tensor.is_floating_point() or tensor.is_complex()) and not bool(torch.isfinite(tensor).all()):
            nan, inf = int(torch.isnan(tensor).sum()), int(torch.isinf(tensor).sum())
            raise CheckFailed(_NOT_FINITE.format(path=path, model=name, nan=nan, inf=inf, total=tensor.numel()))


def _expected_device(
    inputs: tuple[Any, ...], reference: nn.Module, output_device: str | torch.device | None
) -> tuple[torch.device | None, str]:
    if output_device is None:
        return None, ""
    if output_device != "inputs":
        return torch.device(output_device), "declared output_device"
    tensors = [t for _, t in iter_tensors(inputs)]
    if tensors:
        return tensors[0].device, "device of the inputs"
    first = next(iter(reference.parameters()), None)
    return (first.device, "device of the model") if first is not None else (None, "")


def _declared_dtype(path: str, output_dtype: DtypeSpec) -> torch.dtype | None:
    if output_dtype is None or isinstance(output_dtype, torch.dtype):
        return output_dtype
    name = _output_name(path)
    for pattern, dtype in output_dtype.items():
        if fnmatch.fnmatchcase(name, pattern):
            return dtype
    return None


def _output_name(path: str) -> str:
    """``output['logits']`` and ``output.logits`` -> ``logits``; ``output[0]`` -> ``0``;
    the whole output -> ``output``."""
    rest = path.removeprefix("output")
    rest = re.sub(r"\[['\"]?([^\]'\"]+)['\"]?\]", r".\1", rest).lstrip(".")
    return rest or "output"

