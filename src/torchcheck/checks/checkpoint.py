"""Checkpoints: what a ``state_dict`` keeps, and whether training resumes bit for bit."""

from __future__ import annotations

import contextlib
import inspect
import os
import random
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import (
    callable_name,
    compare_structures,
    default_tolerance,
    detach_to_cpu,
    first_mismatch,
    indent,
    warn_uncompared,
)
from torchcheck.checks._inputs import call_model, instantiate
from torchcheck.checks._registration import (
    hook_recomputed_attributes,
    unregistered_parameters,
)
from torchcheck.checks._train_mode import module_list
from torchcheck.checks._training_state import (
    TrainingObjects,
    TrainingState,
    differing_generators,
    forgotten_pieces,
)
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.seeding import seed_everything
from torchcheck.checks.state import capture_rng_state, cuda_usable, preserved_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = [
    "assert_checkpoint_roundtrip",
    "assert_resume_equivalent",
    "load_checkpoint",
    "load_rng_state_dict",
    "rng_state_dict",
    "save_checkpoint",
]

SaveFn = Callable[..., None]
LoadFn = Callable[..., None]

_UNWRITABLE_DIRECTORY = (
    "{check}: cannot write its checkpoint in {where}, which is not a directory this process "
    "can create files in ({error}). Pass a writable directory as tmp_path (pytest's tmp_path "
    "fixture, say), or leave tmp_path out for a private temporary directory."
)

_ROUNDTRIP_LOAD_FAILED = """\
assert_checkpoint_roundtrip: the state_dict of {model} does not load into a fresh model \
(torch.load(weights_only=True), load_state_dict(strict=True)):
  {error_type}: {error}"""

_ROUNDTRIP_TENSOR = """\
assert_checkpoint_roundtrip: after a save/load round trip {kind} '{name}' of {model} \
differs from the saved model's:
{details}
{hint}"""

_ROUNDTRIP_OUTPUT = """\
assert_checkpoint_roundtrip: after a save/load round trip, eval-mode outputs of {model} \
differ at {path}:
{details}
{hint}"""

_ROUNDTRIP_TIES = """\
assert_checkpoint_roundtrip: tied weights of {model} are no longer tied after loading: \
{names} are separate tensors now."""

_HINT_PLAIN_ATTRIBUTE = (
    "Tensors kept as plain attributes are not in the state_dict (and do not follow "
    ".to(device)); register them with self.register_buffer(name, tensor)."
)
_HINT_NON_PERSISTENT = (
    "Non-persistent buffers are not saved; the output depends on one, so make it "
    "persistent or compute it deterministically in __init__."
)
_HINT_UNSAVED = (
    "Parameters, buffers and tensor attributes all match, but these plain attributes differ "
    "and are not in the state_dict: {suspects}. Keep such values in a buffer or in "
    "get_extra_state/set_extra_state."
)
_HINT_UNREGISTERED = (
    "The outputs depend on parameters the state_dict does not hold: {description}"
)
_HINT_OUTSIDE_STATE = (
    "Parameters, buffers and tensor attributes all match, so the outputs depend on state "
    "outside the model: randomness used in eval mode, or global state."
)

_RESUME_DIVERGED = """\
assert_resume_equivalent: training resumed from a checkpoint after step {resume_step} \
diverges from uninterrupted training at step {step} of {total}, {kind} '{name}':
{details}
{diagnosis}"""

_RESUME_FORGOTTEN = """\
What the checkpoint did not restore (the state when save_fn ran vs. the fresh objects \
after load_fn):
{pieces}"""

_RESUME_OUTSIDE = """\
The checkpoint restored the {restored} and every RNG exactly, so training depends on \
extra state outside them: attributes of {step}'s closure or of objects it uses, a data \
iterator's position, an EMA copy of the model, or other global state."""

_RESUME_CUDNN_RNN_DROPOUT = """\
Cause: cuDNN runs the dropout of {modules} from a random state of its own, which no \
checkpoint holds (torch.cuda.get_rng_state() does not include it), so after the resume \
they drop other units than uninterrupted training does. On cpu the resume is exact; to \
check the rest of the checkpoint on a GPU, build the model with the RNN's dropout at 0."""

_RESUME_LOST = """\
assert_resume_equivalent: the checkpoint saved after step {resume_step} does not restore \
everything training depends on. The {remaining} resumed steps happened to match \
uninterrupted training, but what load_fn restored differs from what save_fn was given:
{pieces}"""

_RESUME_FAILED = """\
assert_resume_equivalent: {phase} raised:
  {error_type}: {error}"""


# ------------------------------------------------------------- RNG serialisation


def rng_state_dict() -> dict[str, Any]:
    """Every global RNG's state in a form ``torch.load(weights_only=True)`` accepts:
    tensors, ints, floats, strings, lists and dicts only (no numpy objects)."""
    state = capture_rng_state()
    version, internal, gauss = state.python
    result: dict[str, Any] = {
        "python": {"version": version, "state": torch.tensor(internal, dtype=torch.int64), "gauss": gauss},
        "torch": state.torch_cpu,
        "cuda": list(state.cuda),
    }
    if state.numpy is not None:
        kind, keys, pos, has_gauss, cached = state.numpy
        result["numpy"] = {
            "kind": str(kind),
            "keys": torch.from_numpy(keys.astype("int64")),
            "pos": int(pos),
            "has_gauss": int(has_gauss),
            "cached_gaussian": float(cached),
        }
    if state.mps is not None:
        result["mps"] = state.mps
    return result


def load_rng_state_dict(state: dict[str, Any]) -> None:
    """Restore what :func:`rng_state_dict` saved (CUDA only for devices that exist)."""
    python = state["python"]
    random.setstate((python["version"], tuple(int(v) for v in python["state"].tolist()), python["gauss"]))
    numpy_state = state.get("numpy")
    if numpy_state is not None:
        import numpy as np

        keys = numpy_state["keys"].numpy().astype(np.uint32)
        np.random.set_state(
            (numpy_state["kind"], keys, numpy_state["pos"], numpy_state["has_gauss"], numpy_state["cached_gaussian"])
        )
    torch.set_rng_state(state["torch"])
    cuda_states = state.get("cuda") or []
    if cuda_states and cuda_usable():
        count = min(len(cuda_states), torch.cuda.device_count())
        torch.cuda.set_rng_state_all(cuda_states[:count])
    if "mps" in state and hasattr(torch, "mps") and torch.backends.mps.is_available():
        torch.mps.set_rng_state(state["mps"])


# ------------------------------------------------------ default save and load


def save_checkpoint(
    path: str | os.PathLike[str],
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler: Any | None = None,
    scaler: Any | None = None,
) -> None:
    """Save model, optimizer, scheduler, GradScaler and every RNG state to ``path``;
    the file loads with ``weights_only=True``. The default ``save_fn`` of
    :func:`assert_resume_equivalent` and a recipe to copy."""
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict() if scheduler is not None else None,
            "scaler": scaler.state_dict() if scaler is not None else None,
            "rng": rng_state_dict(),
        },
        path,
    )


def load_checkpoint(
    path: str | os.PathLike[str],
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler: Any | None = None,
    scaler: Any | None = None,
) -> None:
    """Load what :func:`save_checkpoint` wrote, with ``weights_only=True``; the RNG
    states are restored last so nothing consumes randomness after them."""
    checkpoint = torch.load(path, weights_only=True, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    if scheduler is not None and checkpoint["scheduler"] is not None:
        scheduler.load_state_dict(checkpoint["scheduler"])
    if scaler is not None and checkpoint["scaler"] is not None:
        scaler.load_state_dict(checkpoint["scaler"])
    load_rng_state_dict(checkpoint["rng"])


# ------------------------------------------------------------------- helpers


@contextlib.contextmanager
def _directory(check: str, tmp_path: str | os.PathLike[str] | None) -> Iterator[Path]:
    """A new private directory for the check's files, always removed afterwards: inside
    ``tmp_path`` when given (so no file of the caller's is overwritten or left behind),
    else in the system's temporary directory. One that cannot be made is a ValueError
    naming the path, not torch's "open file failed" about a file the caller never named."""
    try:
        directory = Path(tempfile.mkdtemp(prefix="torchcheck-", dir=tmp_path))
    except OSError as error:
        where = f"tmp_path={os.fspath(tmp_path)!r}" if tmp_path is not None else repr(tempfile.gettempdir())
        problem = f"{type(error).__name__}: {error}"
        raise ValueError(_UNWRITABLE_DIRECTORY.format(check=check, where=where, error=problem)) from None
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _plain_tensor_attributes(model: nn.Module) -> dict[str, torch.Tensor]:
    """Tensors stored as ordinary attributes: ``{'blocks.0.mask': tensor}``."""
    found = {}
    for prefix, module in model.named_modules():
        for attr, value in vars(module).items():
            if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
                found[f"{prefix}.{attr}" if prefix else attr] = value
    return found


def _non_persistent_buffers(model: nn.Module) -> dict[str, torch.Tensor]:
    found = {}
    for prefix, module in model.named_modules():
        for name in module._non_persistent_buffers_set:
            buffer = module._buffers.get(name)
            if buffer is not None:
                found[f"{prefix}.{name}" if prefix else name] = buffer
    return found


def _tied_groups(model: nn.Module) -> list[list[str]]:
    """Names of parameters that share one tensor, e.g. ``[['emb.weight', 'head.weight']]``."""
    by_id: dict[int, list[str]] = {}
    for name, param in model.named_parameters(remove_duplicate=False):
        by_id.setdefault(id(param), []).append(name)
    return [names for names in by_id.values() if len(names) > 1]


def _lookup(model: nn.Module, dotted: str) -> Any:
    target: Any = model
    for part in dotted.split("."):
        target = getattr(target, part)
    return target


def _build(make_model: nn.Module | Callable[[], nn.Module], seed: int) -> nn.Module:
    """A model built under ``seed``; a model instance is copied instead, and for any
    seed but 0 its parameters are shifted, so that a tensor the load misses shows."""
    seed_everything(seed)
    model = instantiate(make_model)
    if isinstance(make_model, nn.Module) and seed != 0:
        with torch.no_grad():
            for param in model.parameters():
                if param.is_floating_point():
                    param.add_(torch.randn_like(param))
    return model


def _call(phase: str, fn: Callable[..., Any], *args: Any, scheduler: Any = None, scaler: Any = None) -> Any:
    """Call a user save/load function with ``(path, model, optimizer)`` and, when
    present, the scheduler and GradScaler: by keyword where it names them, else by
    position after ``optimizer`` (a parameter whose name says ``sched`` or ``scal``
    takes that one; others take them in the documented order, scheduler first). A
    signature that cannot take them is a CheckFailed saying what is expected."""
    extras = {key: value for key, value in (("scheduler", scheduler), ("scaler", scaler)) if value is not None}
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or C function: call it as documented
        return fn(*args, **extras)
    placed = _place_extras(signature, len(args), extras)
    if placed is None:
        raise CheckFailed(_signature_problem(phase, signature, extras))
    positional, keywords = placed
    return fn(*args, *positional, **keywords)


def _place_extras(
    signature: inspect.Signature, given: int, extras: dict[str, Any]
) -> tuple[list[Any], dict[str, Any]] | None:
    """``(positional, keyword)`` extra arguments that ``signature`` accepts after
    ``given`` positional ones, or ``None`` when they do not fit."""
    parameters = signature.parameters
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    slots = [p for p in parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][given:]
    named = {p.name for p in slots if p.kind is p.POSITIONAL_OR_KEYWORD}
    named |= {p.name for p in parameters.values() if p.kind is p.KEYWORD_ONLY}
    keywords = {key: value for key, value in extras.items() if key in named or (takes_kwargs and key not in parameters)}
    left = [key for key in extras if key not in keywords]
    positional: list[Any] = []
    for slot in (slot for slot in slots if slot.name not in keywords):
        if not left:
            break
        wanted = next((key for key in _STEMS if _STEMS[key] in slot.name.lower()), None)
        if wanted is not None and wanted not in left:
            positional.append(None)  # named for one not in play: its documented default
            continue
        key = wanted if wanted is not None else left[0]
        positional.append(extras[key])
        left.remove(key)
    if left and any(p.kind is p.VAR_POSITIONAL for p in parameters.values()):
        positional += [extras[key] for key in left]
        left = []
    if left:
        return None
    try:
        signature.bind(*([None] * given), *positional, **keywords)
    except TypeError:
        return None
    return positional, keywords


#: How a parameter name shows which extra it wants.
_STEMS = {"scheduler": "sched", "scaler": "scal"}

_SIGNATURE_PROBLEM = """\
assert_resume_equivalent: {phase} cannot take the {what}: it is called as \
{phase}(path, model, optimizer, scheduler, scaler) -- the scheduler when make_optimizer \
returns (optimizer, scheduler), the GradScaler when scaler= is given -- but its \
signature is {phase}{signature}. Take them after optimizer, by position or named \
scheduler and scaler: def {phase}(path, model, optimizer, scheduler=None, scaler=None)."""


def _signature_problem(phase: str, signature: inspect.Signature, extras: dict[str, Any]) -> str:
    what = " and the ".join("GradScaler" if key == "scaler" else key for key in extras)
    return _SIGNATURE_PROBLEM.format(phase=phase, what=what, signature=signature)


# --------------------------------------------------------- checkpoint roundtrip


def assert_checkpoint_roundtrip(
    make_model: nn.Module | Callable[[], nn.Module],
    *inputs: Any,
    tmp_path: str | os.PathLike[str] | None = None,
) -> None:
    """Save a model's ``state_dict`` with ``torch.save``, load it with
    ``weights_only=True`` into a model built under another seed, and require identical
    parameters, buffers, plain tensor attributes and eval-mode outputs, with tied
    weights still tied. Finds tensors kept as plain attributes instead of buffers,
    non-persistent buffers the outputs depend on and ``state_dict`` hooks that drop keys.
    The checkpoint goes to a new directory (inside ``tmp_path`` when given) that is
    removed afterwards; a ``tmp_path`` it cannot write in is a ValueError naming it.
    """
    with preserved_state(), torch.no_grad(), _directory("assert_checkpoint_roundtrip", tmp_path) as directory:
        saved = _build(make_model, 0).eval()
        name = type(saved).__name__
        path = directory / "torchcheck_roundtrip.pt"
        torch.save(saved.state_dict(), path)
        # What was saved, before a forward can change it (an nn.Embedding with max_norm
        # renormalises its weight in place, even in eval mode).
        at_save = _named_state(saved, clone=True)
        expected = detach_to_cpu(call_model(saved, inputs)) if inputs else None
        fresh = _build(make_model, 1).eval()
        try:
            fresh.load_state_dict(torch.load(path, weights_only=True), strict=True)
        except Exception as error:  # a checkpoint that does not load is the finding
            raise CheckFailed(
                _ROUNDTRIP_LOAD_FAILED.format(model=name, error_type=type(error).__name__, error=error)
            ) from error
        _compare_state(at_save, _named_state(fresh), _non_persistent_buffers(saved), name)
        actual = detach_to_cpu(call_model(fresh, inputs)) if inputs else None
        # Plain tensor attributes after the same forwards on both sides: one a hook
        # recomputes before every forward is stale until then.
        derived = set() if inputs else hook_recomputed_attributes(saved)
        _compare_plain_attributes(saved, fresh, name, derived)
        if expected is not None:
            _compare_outputs(actual, expected, saved, fresh, name)
        for group in _tied_groups(saved):
            if len({id(_lookup(fresh, n)) for n in group}) > 1:
                raise CheckFailed(_ROUNDTRIP_TIES.format(model=name, names=", ".join(group)))


def _named_state(model: nn.Module, clone: bool = False) -> dict[str, tuple[str, torch.Tensor]]:
    """``name -> ("parameter" | "buffer", tensor)``, cloned when ``clone``."""
    state = {n: ("parameter", p) for n, p in model.named_parameters(remove_duplicate=False)}
    state.update((n, ("buffer", b)) for n, b in model.named_buffers(remove_duplicate=False))
    if clone:
        state = {n: (kind, t.detach().clone()) for n, (kind, t) in state.items()}
    return state


def _compare_state(
    expected: dict[str, tuple[str, torch.Tensor]],
    actual: dict[str, tuple[str, torch.Tensor]],
    non_persistent: dict[str, torch.Tensor],
    name: str,
) -> None:
    for key, (kind, value) in expected.items():
        loaded = actual.get(key)
        if loaded is None:
            continue
        found = first_mismatch(loaded[1], value, path=key, rtol=0, atol=0)
        if found is None:
            continue
        is_np = kind == "buffer" and key in non_persistent
        raise CheckFailed(
            _ROUNDTRIP_TENSOR.format(
                kind="non-persistent buffer" if is_np else kind,
                name=key,
                model=name,
                details=indent(found.render()),
                hint=_HINT_NON_PERSISTENT if is_np else "A state_dict hook or override drops or alters it.",
            )
        )


def _compare_plain_attributes(saved: nn.Module, fresh: nn.Module, name: str, derived: set[str]) -> None:
    actual_tensors = _plain_tensor_attributes(fresh)
    for key, expected in _plain_tensor_attributes(saved).items():
        actual = actual_tensors.get(key)
        if actual is None or key in derived:
            continue
        found = first_mismatch(actual, expected, path=key, rtol=0, atol=0)
        if found is not None:
            raise CheckFailed(
                _ROUNDTRIP_TENSOR.format(
                    kind="plain tensor attribute", name=key, model=name, details=indent(found.render()),
                    hint=_HINT_PLAIN_ATTRIBUTE,
                )
            )


def _compare_outputs(actual: Any, expected: Any, saved: nn.Module, fresh: nn.Module, name: str) -> None:
    comparison = compare_structures(actual, expected)
    warn_uncompared("assert_checkpoint_roundtrip", comparison)
    found = comparison.mismatch
    if found is not None:
        raise CheckFailed(
            _ROUNDTRIP_OUTPUT.format(
                model=name, path=found.path, details=indent(found.render()), hint=_unsaved_hint(saved, fresh)
            )
        )


def _unsaved_hint(saved: nn.Module, fresh: nn.Module) -> str:
    """Parameters, buffers and tensor attributes already matched; name parameters that
    are not registered, or else the plain Python attributes that differ, if any."""
    unregistered = unregistered_parameters(saved, trainable_only=False)
    if unregistered is not None:
        return _HINT_UNREGISTERED.format(description=unregistered.describe())
    suspects = [
        f"'{attribute}' ({fresh_value!r} after loading, {saved_value!r} when saved)"
        for attribute, saved_value, fresh_value in _differing_simple_attributes(saved, fresh)
    ]
    if suspects:
        return _HINT_UNSAVED.format(suspects=", ".join(suspects))
    return _HINT_OUTSIDE_STATE


def _differing_simple_attributes(saved: nn.Module, fresh: nn.Module) -> list[tuple[str, Any, Any]]:
    fresh_modules = dict(fresh.named_modules())
    found = []
    for prefix, module in saved.named_modules():
        other = fresh_modules.get(prefix)
        if other is None:
            continue
        for attribute, value in vars(module).items():
            if attribute.startswith("_") or not isinstance(value, (bool, int, float, str)):
                continue
            other_value = getattr(other, attribute, None)
            if other_value != value:
                found.append((f"{prefix}.{attribute}" if prefix else attribute, value, other_value))
    return found


# ------------------------------------------------------------- resume equivalence


def _split_optimizer(made: Any) -> tuple[torch.optim.Optimizer, Any | None]:
    if isinstance(made, tuple):
        optimizer, scheduler = made
        return optimizer, scheduler
    return made, None


@dataclass(frozen=True)
class _Recipe:
    """How to build and train one run: the user's factories and step."""

    make_model: nn.Module | Callable[[], nn.Module]
    make_optimizer: Callable[[nn.Module], Any]
    step_fn: Callable[..., Any]
    batches: Sequence[Any]
    make_scaler: Callable[[], Any] | None

    def fresh(self) -> TrainingObjects:
        model = instantiate(self.make_model)
        optimizer, scheduler = _split_optimizer(self.make_optimizer(model))
        scaler = self.make_scaler() if self.make_scaler is not None else None
        return TrainingObjects(model, optimizer, scheduler, scaler)

    def train(self, run: TrainingObjects, start: int, stop: int) -> list[dict[str, torch.Tensor]]:
        """Train steps ``start..stop-1``; the model's state after each one."""
        states = []
        for index in range(start, stop):
            if run.scaler is not None:
                self.step_fn(run.model, run.optimizer, run.scaler, self.batches[index])
            else:
                self.step_fn(run.model, run.optimizer, self.batches[index])
            if run.scheduler is not None:
                run.scheduler.step()
            states.append({key: value.detach().to("cpu", copy=True) for key, value in run.model.state_dict().items()})
        return states


def assert_resume_equivalent(
    make_model: nn.Module | Callable[[], nn.Module],
    make_optimizer: Callable[[nn.Module], Any],
    step_fn: Callable[..., Any],
    batches: Sequence[Any],
    *,
    save_fn: SaveFn | None = None,
    load_fn: LoadFn | None = None,
    tmp_path: str | os.PathLike[str] | None = None,
    scaler: Callable[[], Any] | None = None,
) -> None:
    """Training ``len(batches)`` steps straight must equal training half of them,
    saving with ``save_fn(path, model, optimizer[, scheduler=..., scaler=...])``,
    loading into fresh objects (built under another seed, with every RNG reseeded, as a
    new process would be) with ``load_fn`` and training the rest: bit for bit on CPU,
    within the dtype's assert_close tolerance on other devices.

    ``make_optimizer`` may return ``(optimizer, scheduler)``; ``scheduler.step()`` then
    follows every step. ``scaler`` is a factory such as
    ``lambda: torch.amp.GradScaler("cpu")``; with it, the step is
    ``step_fn(model, optimizer, scaler, batch)``. ``save_fn``/``load_fn`` default to
    :func:`save_checkpoint`/:func:`load_checkpoint`. The message names the first
    diverging step and parameter or buffer, and what the checkpoint did not restore:
    the model, optimizer state (the field and parameter), param groups (lr, ...), the
    scheduler, the GradScaler, which RNG, or extra state outside all of them. The
    checkpoint goes to a new directory (inside ``tmp_path`` when given) that is removed
    afterwards.
    """
    if len(batches) < 2:
        raise ValueError("assert_resume_equivalent needs at least 2 batches")
    save_fn = save_fn or save_checkpoint
    load_fn = load_fn or load_checkpoint
    recipe = _Recipe(make_model, make_optimizer, step_fn, batches, scaler)
    resume_step = len(batches) // 2
    with preserved_state(), _directory("assert_resume_equivalent", tmp_path) as directory:
        torch.use_deterministic_algorithms(True)
        seed_everything(0)
        straight_objects = recipe.fresh()
        before_training = capture_rng_state()
        straight = recipe.train(straight_objects, 0, len(batches))
        generators_in_use = differing_generators(before_training, capture_rng_state())
        seed_everything(0)
        first = recipe.fresh()
        recipe.train(first, 0, resume_step)
        saved = TrainingState.capture(first)
        path = directory / "torchcheck_resume.pt"
        _guarded("save_fn", lambda: _call("save_fn", save_fn, path, first.model, first.optimizer,
                                           scheduler=first.scheduler, scaler=first.scaler))
        seed_everything(12345)  # a new process: other init, other RNG streams
        second = recipe.fresh()
        _guarded("load_fn", lambda: _call("load_fn", load_fn, path, second.model, second.optimizer,
                                           scheduler=second.scheduler, scaler=second.scaler))
        loaded = TrainingState.capture(second)
        resumed = recipe.train(second, resume_step, len(batches))
        exact = all(t.device.type == "cpu" for t in second.model.state_dict().values())
        cudnn_dropout = _cudnn_rnn_dropout(second.model)
        parameter_names = {name for name, _ in second.model.named_parameters()}
    for step, (expected, actual) in enumerate(zip(straight[resume_step:], resumed), start=resume_step + 1):
        found = _first_divergence(expected, actual, exact)
        if found is not None:
            key, mismatch = found
            raise CheckFailed(
                _RESUME_DIVERGED.format(
                    resume_step=resume_step,
                    step=step,
                    total=len(batches),
                    kind="parameter" if key in parameter_names else "buffer",
                    name=key,
                    details=indent(mismatch.render()),
                    diagnosis=_diagnosis(saved, loaded, recipe, generators_in_use, cudnn_dropout),
                )
            )
    lost = forgotten_pieces(saved, loaded, generators_in_use, extra_state=False)
    if lost:
        raise CheckFailed(
            _RESUME_LOST.format(
                resume_step=resume_step, remaining=len(batches) - resume_step,
                pieces="\n".join(indent(piece) for piece in lost),
            )
        )


def _guarded(phase: str, action: Callable[[], Any]) -> None:
    try:
        action()
    except CheckFailed:
        raise
    except Exception as error:  # a failing user save/load is the finding
        raise CheckFailed(_RESUME_FAILED.format(phase=phase, error_type=type(error).__name__, error=error)) from error


def _first_divergence(
    expected: dict[str, torch.Tensor], actual: dict[str, torch.Tensor], exact: bool
) -> tuple[str, Any] | None:
    """Bit-exact when training ran on CPU; assert_close tolerances elsewhere."""
    for key, value in expected.items():
        rtol, atol = (0.0, 0.0) if exact else default_tolerance(value.dtype)
        found = first_mismatch(actual.get(key), value, path=key, rtol=rtol, atol=atol)
        if found is not None:
            return key, found
    return None


def _cudnn_rnn_dropout(model: nn.Module) -> list[str]:
    """RNN modules whose dropout cuDNN runs: on a CUDA device, in training, rate above 0."""
    if not torch.backends.cudnn.enabled:
        return []
    return [
        name or type(module).__name__
        for name, module in model.named_modules()
        if isinstance(module, nn.RNNBase) and module.training and module.dropout > 0
        and any(parameter.is_cuda for parameter in module.parameters())
    ]


def _diagnosis(
    saved: TrainingState,
    loaded: TrainingState,
    recipe: _Recipe,
    generators_in_use: list[str],
    cudnn_dropout: list[str],
) -> str:
    pieces = forgotten_pieces(saved, loaded, generators_in_use)
    if pieces:
        return _RESUME_FORGOTTEN.format(pieces="\n".join(indent(piece) for piece in pieces))
    if cudnn_dropout:
        return _RESUME_CUDNN_RNN_DROPOUT.format(modules=module_list(cudnn_dropout))
    restored = ["model", "optimizer"]
    restored += ["scheduler"] if saved.scheduler is not None else []
    restored += ["GradScaler"] if saved.scaler is not None else []
    return _RESUME_OUTSIDE.format(restored=", ".join(restored), step=callable_name(recipe.step_fn))
