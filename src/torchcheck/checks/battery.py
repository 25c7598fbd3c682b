"""The model battery: every applicable check on one model, in one call or one item each.

:func:`check_model` runs the battery for a notebook or a script and returns a
:class:`ModelReport`; the pytest plugin's zero-code items (``[tool.torchcheck.models]``)
run one check each through :func:`run_check`. Both select checks with the same language
(``"default"``, names, ``"-name"``) and decide what applies the same way
(``torchcheck.checks._model_config``). The checks run on copies of the model; afterwards
``check_model`` compares parameters, buffers, gradients, ``requires_grad`` flags, module
modes, the optimizer, the random generators and torch's global settings with a snapshot
taken first, and an internal error names anything that leaked.
"""

from __future__ import annotations

import copy
import hashlib
import html
import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import iter_tensors
from torchcheck.checks._inputs import is_model_factory
from torchcheck.checks._model_config import (
    RUNS_ON,
    Ingredients,
    select_checks,
    why_not_applicable,
)
from torchcheck.checks._model_recipe import (
    ModelRecipe,
    batch_inputs,
    first_batch_size,
    forward,
)
from torchcheck.checks.errors import CheckFailed, NotApplicable
from torchcheck.checks.seeding import seeded
from torchcheck.checks.state import (
    capture_global_state,
    capture_rng_state,
    describe_state_changes,
    ModuleSnapshot,
    preserved_state,
)

__tracebackhide__ = True
__all__ = ["CheckResult", "ModelReport", "check_model", "run_check"]

SURROGATE_LOSS_NOTE = (
    "no loss declared: gradients of a surrogate loss (a fixed random projection of the outputs); "
    "declare `loss` so that a bug in your loss cannot hide"
)
NOT_FINITE = "forward: {model} on {device} in {mode} mode gives non-finite values at {paths}"
NO_TENSOR = "forward: {model} on {device} returned no tensor ({type_name})"
BATTERY_FAILED = "check_model: {failed} of {ran} checks of {model} failed:\n\n{details}"
LEAKED = (
    "torchcheck internal error: check_model left {what} changed (restored now). Every check "
    "promises to restore what it touches; please report this with the check names: {checks}"
)
NO_INFERENCE_CONTRACT = "assert_inference_contract is not part of this torchcheck version"
_RESUME_BATCHES = 4
_COMPILE_BATCHES = 3
_LEAK_STEPS = 3


# --- one check ----------------------------------------------------------------------


def run_check(check: str, recipe: ModelRecipe, device: torch.device | str, seed: int = 0) -> str | None:
    """Run one check of the battery on ``device`` with every generator seeded with ``seed``
    (and put back afterwards): returns a note for the report (or ``None``), raises
    :class:`CheckFailed` for a finding and :class:`NotApplicable` when the check cannot
    apply here."""
    with seeded(seed, deterministic=False):
        return _RUNNERS[check](recipe, torch.device(device))


def _forward(recipe: ModelRecipe, device: torch.device) -> None:
    model = recipe.factory_on(device)()
    batch = recipe.eval_batch(device)
    name = type(model).__name__
    with preserved_state(), torch.no_grad():
        for mode in ("eval", "train"):
            model.train(mode == "train")
            outputs = forward(model, batch)
            tensors = list(iter_tensors(outputs))
            if not tensors:
                raise CheckFailed(NO_TENSOR.format(model=name, device=device, type_name=type(outputs).__name__))
            bad = [path for path, t in tensors if t.is_floating_point() and not bool(torch.isfinite(t).all())]
            if bad:
                raise CheckFailed(NOT_FINITE.format(model=name, device=device, mode=mode, paths=", ".join(bad)))


def _inference_contract(recipe: ModelRecipe, device: torch.device) -> None:
    import torchcheck

    try:
        check = torchcheck.assert_inference_contract
    except AttributeError:
        raise NotApplicable(NO_INFERENCE_CONTRACT) from None
    check(recipe.factory_on(device), *batch_inputs(recipe.eval_batch(device)))


def _gradients_flow(recipe: ModelRecipe, device: torch.device) -> str | None:
    from torchcheck.checks.gradients import assert_gradients_flow

    if recipe.loss_fn is None:
        inputs = batch_inputs(recipe.eval_batch(device))
        assert_gradients_flow(recipe.factory_on(device), *inputs, allow_zero=recipe.allow_zero)
        return SURROGATE_LOSS_NOTE
    batch = recipe.batch(device)
    loss_fn = recipe.loss_fn
    assert_gradients_flow(
        recipe.factory_on(device), *batch_inputs(batch), loss_fn=lambda out: loss_fn(out, batch), allow_zero=recipe.allow_zero
    )
    return None


def _batch_independent(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.gradients import assert_batch_independent

    batch = recipe.eval_batch(device)
    size = first_batch_size(batch)
    if size is None or size < 2:
        count = "no samples" if not size else "1 sample"
        raise NotApplicable(f"batch_independent: the batch has {count}; needs at least 2")
    assert_batch_independent(recipe.factory_on(device), batch)


def _reproducible(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.reproducibility import assert_reproducible

    make_model, batch = recipe.factory_on(device), recipe.eval_batch(device)

    def train_mode_forward() -> Any:
        model = make_model().train()
        with torch.no_grad():
            return forward(model, batch)

    train_mode_forward.__qualname__ = f"{recipe.name} train-mode forward"
    assert_reproducible(train_mode_forward, **recipe.tolerance_of("reproducible"))


def _checkpoint_roundtrip(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.checkpoint import assert_checkpoint_roundtrip

    cpu = torch.device("cpu")
    inputs = batch_inputs(recipe.eval_batch(cpu)) if recipe.make_batch is not None else ()
    assert_checkpoint_roundtrip(recipe.factory_on(cpu), *inputs)


def _meta_shapes(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.meta import DataDependentOnMeta, assert_meta_shapes

    if not recipe.is_factory:
        raise NotApplicable("meta_shapes needs a factory: a model instance cannot be built on meta")
    try:
        assert_meta_shapes(recipe.build, *batch_inputs(recipe.meta_batch()))
    except DataDependentOnMeta as error:
        raise NotApplicable(str(error)) from None


def _devices_agree(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.devices import assert_devices_agree

    if device.type == "cpu":
        raise NotApplicable("devices_agree compares a non-cpu device with cpu")
    build = recipe.factory_on(torch.device("cpu"))

    def eval_model() -> nn.Module:
        return build().eval()

    eval_model.__qualname__ = recipe.name
    inputs = batch_inputs(recipe.eval_batch(torch.device("cpu")))
    assert_devices_agree(eval_model, *inputs, devices=[device], **recipe.tolerance_of("devices_agree"))


def _optimizer_covers(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.optimizers import assert_optimizer_covers

    model = recipe.factory_on(torch.device("cpu"))()
    assert_optimizer_covers(model, recipe.optimizer_for(model))


def _resume_equivalent(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.checkpoint import assert_resume_equivalent

    assert_resume_equivalent(
        recipe.factory_on(device), _optimizer_maker(recipe), recipe.step(), recipe.batches(device, _RESUME_BATCHES)
    )


def _no_graph_leak(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.leaks import assert_no_graph_leak

    model = recipe.factory_on(device)()
    optimizer = recipe.optimizer_for(model) if recipe.make_optimizer is not None else None
    step, batch = recipe.step(), recipe.batch(device)

    def one_step() -> Any:
        return step(model, optimizer, batch)

    one_step.__qualname__ = getattr(step, "__qualname__", "step")
    with preserved_state():
        assert_no_graph_leak(one_step, steps=_LEAK_STEPS)


def _accumulation_equivalent(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.accumulation import assert_accumulation_equivalent

    loss_fn = recipe.loss_fn
    if loss_fn is None:
        raise NotApplicable("accumulation_equivalent: no loss")

    def accumulate(model: nn.Module, optimizer: Any, micro_batches: Sequence[Any], steps: int) -> None:
        model.train()
        optimizer.zero_grad(set_to_none=True)
        for micro in micro_batches:
            (loss_fn(forward(model, micro), micro) / steps).backward()
        optimizer.step()

    batch = recipe.batch(device)
    size = first_batch_size(batch)
    if size is None or size % 2:
        raise NotApplicable(f"accumulation_equivalent: a batch of {size} cannot be split in 2")
    assert_accumulation_equivalent(
        recipe.factory_on(device), _optimizer_maker(recipe), accumulate, batch, accumulation_steps=2,
        **recipe.tolerance_of("accumulation_equivalent"),
    )


def _amp_step(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.amp import assert_amp_step

    loss_fn = recipe.loss_fn
    if loss_fn is None or recipe.make_optimizer is None:
        raise NotApplicable("amp_step: no loss + optimizer")

    def amp_train_step(model: nn.Module, optimizer: Any, scaler: Any, batch: Any) -> torch.Tensor:
        model.train()
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(forward(model, batch), batch)
        scaler.scale(loss.float()).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss.detach()

    model = recipe.factory_on(device)()
    assert_amp_step(
        amp_train_step, model, recipe.optimizer_for(model), recipe.batches(device, 2), device=device,
        **recipe.tolerance_of("amp_step"),
    )


def _compile_parity(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.compile_parity import assert_compile_parity

    assert_compile_parity(
        recipe.factory_on(device), _optimizer_maker(recipe), recipe.step(), recipe.batches(device, _COMPILE_BATCHES),
        device=device, **{**recipe.compile_options, **recipe.tolerance_of("compile_parity")},
    )


def _data_parallel_equivalent(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.distributed import assert_data_parallel_equivalent

    cpu = torch.device("cpu")
    assert_data_parallel_equivalent(
        recipe.factory_on(cpu), _optimizer_maker(recipe), recipe.step(), recipe.batches(cpu, 2),
        **{**recipe.distributed, **recipe.tolerance_of("data_parallel_equivalent")},
    )


def _gradcheck(recipe: ModelRecipe, device: torch.device) -> None:
    from torchcheck.checks.gradients import assert_gradcheck

    assert_gradcheck(recipe.factory_on(torch.device("cpu"))(), *batch_inputs(recipe.eval_batch(torch.device("cpu"))))


def _optimizer_maker(recipe: ModelRecipe) -> Callable[[nn.Module], Any]:
    """``make_optimizer``, or a throwaway SGD for a declared step that builds none."""
    if recipe.make_optimizer is not None:
        return recipe.make_optimizer
    return lambda model: torch.optim.SGD(model.parameters(), lr=0.01)


_RUNNERS: dict[str, Callable[[ModelRecipe, torch.device], str | None]] = {
    "forward": _forward,
    "inference_contract": _inference_contract,
    "gradients_flow": _gradients_flow,
    "batch_independent": _batch_independent,
    "reproducible": _reproducible,
    "checkpoint_roundtrip": _checkpoint_roundtrip,
    "meta_shapes": _meta_shapes,
    "devices_agree": _devices_agree,
    "optimizer_covers": _optimizer_covers,
    "resume_equivalent": _resume_equivalent,
    "no_graph_leak": _no_graph_leak,
    "accumulation_equivalent": _accumulation_equivalent,
    "amp_step": _amp_step,
    "compile_parity": _compile_parity,
    "data_parallel_equivalent": _data_parallel_equivalent,
    "gradcheck": _gradcheck,
}


# --- the report ---------------------------------------------------------------------


@dataclass(frozen=True)
class CheckResult:
    """One row of a :class:`ModelReport`."""

    check: str
    status: str  # "passed", "failed" or "not applicable"
    seconds: float = 0.0
    message: str = ""

    @property
    def summary(self) -> str:
        lines = self.message.strip().splitlines()
        return lines[0] if lines else ""


@dataclass(frozen=True)
class ModelReport:
    """What :func:`check_model` found: one row per selected check."""

    model: str
    device: str
    results: tuple[CheckResult, ...] = field(default_factory=tuple)

    @property
    def failed(self) -> tuple[CheckResult, ...]:
        return tuple(result for result in self.results if result.status == "failed")

    @property
    def passed(self) -> bool:
        return not self.failed

    def __getitem__(self, check: str) -> CheckResult:
        for result in self.results:
            if result.check == check:
                return result
        raise KeyError(check)

    def __str__(self) -> str:
        width = max([len("check"), *(len(r.check) for r in self.results)])
        lines = [f"check_model: {self.model} on {self.device}", f"{'check':<{width}}  {'status':<14}  {'seconds':>7}  message"]
        for r in self.results:
            lines.append(f"{r.check:<{width}}  {r.status:<14}  {r.seconds:>7.2f}  {r.summary}".rstrip())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(r.check)}</td><td>{html.escape(r.status)}</td>"
            f"<td>{r.seconds:.2f}</td><td>{html.escape(r.summary)}</td></tr>"
            for r in self.results
        )
        caption = html.escape(f"check_model: {self.model} on {self.device}")
        return (
            f"<table><caption>{caption}</caption><tr><th>check</th><th>status</th>"
            f"<th>seconds</th><th>message</th></tr>{rows}</table>"
        )


# --- the one call -------------------------------------------------------------------


def check_model(
    model: nn.Module | Callable[[], nn.Module],
    inputs: Any,
    loss_fn: Callable[[Any, Any], torch.Tensor] | None = None,
    optimizer: Any = None,
    *,
    step_fn: Callable[[nn.Module, Any, Any], Any] | None = None,
    checks: str | Sequence[str] = "default",
    device: str | torch.device | None = None,
    raise_on_failure: bool = True,
) -> ModelReport:
    """Run the applicable checks of the battery on ``model`` and return a :class:`ModelReport`.

    ``model`` is an instance (the checks run on copies) or a factory (then ``meta_shapes``
    can run too). ``inputs`` is one batch: a tensor, a tuple of positional inputs or a dict
    of keyword inputs. ``loss_fn(outputs, batch)`` returns a scalar; ``optimizer`` is the
    caller's optimizer (read, never stepped: copies get their own with the same param
    groups), an optimizer class or ``make_optimizer(model)``; ``step_fn(model, optimizer,
    batch)`` is one training step. ``checks`` selects like ``[tool.torchcheck.models]``
    (``"default"``, names, ``"-name"``). Runs on ``device`` (default: the model's).
    With ``raise_on_failure``, one :class:`CheckFailed` lists every failed check with its
    full message. Everything the call touched is as before afterwards, and verified so.
    """
    selection = select_checks([checks] if isinstance(checks, str) else list(checks), "check_model(checks=...)")
    factory = is_model_factory(model)
    instance = None if factory else _module(model)
    target = torch.device(device) if device is not None else _model_device(instance)
    recipe = _recipe_for_call(model, instance, inputs, loss_fn, optimizer, step_fn)
    have = Ingredients(
        has_factory=factory,
        has_inputs=True,
        batch_size=first_batch_size(inputs),
        has_loss=loss_fn is not None,
        has_step=step_fn is not None,
        has_optimizer=optimizer is not None,
    )
    before = _Fingerprint.take(instance, optimizer)
    with preserved_state():
        results = tuple(_run_one(check, recipe, have, target, instance, optimizer) for check in selection)
        leaks = before.differences(_Fingerprint.take(instance, optimizer, keep=False))
        if leaks:
            before.restore(instance, optimizer)
    if leaks:
        raise RuntimeError(LEAKED.format(what="; ".join(leaks), checks=", ".join(selection)))
    report = ModelReport(model=recipe.name, device=str(target), results=results)
    if raise_on_failure and report.failed:
        details = "\n\n".join(f"[{r.check}] {r.message}" for r in report.failed)
        raise CheckFailed(BATTERY_FAILED.format(failed=len(report.failed), ran=len(results), model=recipe.name, details=details))
    return report


def _module(model: Any) -> nn.Module:
    if not isinstance(model, nn.Module):
        raise TypeError(f"check_model: model must be an nn.Module or a factory of one, got {type(model).__name__}")
    return model


def _model_device(model: nn.Module | None) -> torch.device:
    if model is not None:
        for tensor in itertools.chain(model.parameters(), model.buffers()):
            return tensor.device
    return torch.device("cpu")


def _recipe_for_call(
    model: Any, instance: nn.Module | None, inputs: Any, loss_fn: Any, optimizer: Any, step_fn: Any
) -> ModelRecipe:
    if instance is not None:
        name = type(instance).__name__
        snapshot = copy.deepcopy(instance).cpu()

        def build() -> nn.Module:
            return copy.deepcopy(snapshot)

    else:
        name = getattr(model, "__name__", type(model).__name__)

        def build() -> nn.Module:
            return model()

    cpu_batch = _on_cpu(inputs)
    return ModelRecipe(
        name=name,
        build=build,
        make_batch=lambda index: cpu_batch,
        loss_fn=loss_fn,
        step_fn=step_fn,
        make_optimizer=_optimizer_maker_from(optimizer, instance),
        is_factory=instance is None,
    )


def _on_cpu(batch: Any) -> Any:
    from torchcheck.checks._compare import map_tensors

    return map_tensors(batch, lambda t: t.detach().to("cpu", copy=True))


def _optimizer_maker_from(optimizer: Any, instance: nn.Module | None) -> Callable[[nn.Module], Any] | None:
    """``make_optimizer(model)`` for copies of the model."""
    if optimizer is None:
        return None
    if isinstance(optimizer, torch.optim.Optimizer):
        return _same_groups(optimizer, instance)
    if isinstance(optimizer, type) and issubclass(optimizer, torch.optim.Optimizer):
        return lambda model: optimizer(model.parameters())
    if callable(optimizer):
        return optimizer
    raise TypeError(f"check_model: optimizer must be an optimizer, its class or make_optimizer(model), got {optimizer!r}")


def _same_groups(optimizer: torch.optim.Optimizer, instance: nn.Module | None) -> Callable[[nn.Module], Any]:
    """An optimizer of the caller's type and param-group settings for a copy of the model,
    parameters matched by name (for a factory's models: one group with its defaults)."""
    if instance is None:  # a factory: nothing to match the groups with
        return lambda model: type(optimizer)(model.parameters(), **optimizer.defaults)
    names = {id(p): n for n, p in instance.named_parameters()}
    groups = [
        ({k: v for k, v in group.items() if k != "params"}, [names[id(p)] for p in group["params"] if id(p) in names])
        for group in optimizer.param_groups
    ]

    def make_optimizer(model: nn.Module) -> torch.optim.Optimizer:
        params = {_unwrapped_name(n): p for n, p in model.named_parameters()}
        rebuilt = [{**settings, "params": [params[n] for n in names_ if n in params]} for settings, names_ in groups]
        return type(optimizer)([group for group in rebuilt if group["params"]], **optimizer.defaults)

    return make_optimizer


def _unwrapped_name(name: str) -> str:
    """A parameter's name in the caller's model, inside a DDP or torch.compile wrapper."""
    for prefix in ("module.", "_orig_mod."):
        while name.startswith(prefix):
            name = name[len(prefix):]
    return name


def _run_one(
    check: str, recipe: ModelRecipe, have: Ingredients, device: torch.device, instance: nn.Module | None, optimizer: Any
) -> CheckResult:
    reason = why_not_applicable(check, have)
    if reason is None and RUNS_ON[check] == "other" and device.type == "cpu":
        reason = "needs a non-cpu device: pass device='cuda'"
    if reason is not None:
        return CheckResult(check, "not applicable", 0.0, reason)
    start = time.perf_counter()
    try:
        if check == "optimizer_covers" and isinstance(optimizer, torch.optim.Optimizer) and instance is not None:
            from torchcheck.checks.optimizers import assert_optimizer_covers

            assert_optimizer_covers(instance, optimizer)  # identity: the caller's own objects, only read
            note = None
        else:
            note = run_check(check, recipe, device)
    except NotApplicable as skipped:
        return CheckResult(check, "not applicable", time.perf_counter() - start, str(skipped))
    except CheckFailed as failure:
        return CheckResult(check, "failed", time.perf_counter() - start, str(failure).strip())
    except Exception as error:  # the model or the step raised: a finding too
        return CheckResult(check, "failed", time.perf_counter() - start, f"{check}: raised {type(error).__name__}: {error}")
    return CheckResult(check, "passed", time.perf_counter() - start, note or "")


# --- verifying the promise to restore -----------------------------------------------


def _digest(tensor: torch.Tensor | None) -> str | None:
    """An exact, position-sensitive fingerprint of a tensor's bytes, shape and dtype."""
    if tensor is None:
        return None
    data = tensor.detach().to("cpu").contiguous()
    raw = data.reshape(-1).view(torch.uint8) if data.numel() else data.reshape(-1)
    digest = hashlib.sha256(f"{tuple(data.shape)}{data.dtype}".encode())
    digest.update(_bytes(raw))
    return digest.hexdigest()


def _bytes(raw: torch.Tensor) -> bytes:
    try:
        return bytes(raw.numpy())
    except (ImportError, RuntimeError):  # torch without numpy
        return bytes(raw.tolist())


@dataclass
class _Fingerprint:
    """Fingerprints of everything ``check_model`` promises to leave as it found it, and
    what it needs to put the caller's model and optimizer back if a check broke that."""

    model: dict[tuple[str, str], Any]
    optimizer: Any
    rng: Any
    global_state: Any
    model_snapshot: ModuleSnapshot | None = None
    optimizer_state: Any = None

    @classmethod
    def take(cls, instance: nn.Module | None, optimizer: Any, keep: bool = True) -> _Fingerprint:
        """Fingerprints, and with ``keep`` copies to restore from."""
        owned = keep and isinstance(optimizer, torch.optim.Optimizer)
        return cls(
            model=_model_fingerprint(instance) if instance is not None else {},
            optimizer=_optimizer_fingerprint(optimizer),
            rng=_rng_fingerprint(),
            global_state=capture_global_state(),
            model_snapshot=ModuleSnapshot.capture(instance) if keep and instance is not None else None,
            optimizer_state=copy.deepcopy(optimizer.state_dict()) if owned else None,
        )

    def differences(self, after: _Fingerprint) -> list[str]:
        found = [f"{kind} of {name!r}" for (kind, name), digest in self.model.items() if after.model.get((kind, name)) != digest]
        found += [f"{kind} {name!r} (added)" for kind, name in set(after.model) - set(self.model)]
        if self.optimizer != after.optimizer:
            found.append("the optimizer's state or param groups")
        if self.rng != after.rng:
            found.append("random generator states")
        found += describe_state_changes(self.global_state, after.global_state)
        return found

    def restore(self, instance: nn.Module | None, optimizer: Any) -> None:
        """Put the caller's model and optimizer back (generators and settings are restored
        by the enclosing ``preserved_state``)."""
        if instance is not None and self.model_snapshot is not None:
            self.model_snapshot.restore(instance)
        if self.optimizer_state is not None:
            optimizer.load_state_dict(self.optimizer_state)


def _model_fingerprint(model: nn.Module) -> dict[tuple[str, str], Any]:
    found: dict[tuple[str, str], Any] = {}
    for name, param in model.named_parameters(remove_duplicate=False):
        found[("parameter", name)] = _digest(param)
        found[("gradient", name)] = _digest(param.grad)
        found[("requires_grad flag", name)] = param.requires_grad
    for name, buffer in model.named_buffers(remove_duplicate=False):
        found[("buffer", name)] = _digest(buffer)
    for name, module in model.named_modules(remove_duplicate=False):
        found[("train/eval mode", name or "<root>")] = module.training
    return found


def _optimizer_fingerprint(optimizer: Any) -> Any:
    if not isinstance(optimizer, torch.optim.Optimizer):
        return None
    state = optimizer.state_dict()
    return repr(_digest_tree(state))


def _digest_tree(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return _digest(value)
    if isinstance(value, Mapping):
        return {key: _digest_tree(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_digest_tree(item) for item in value]
    return value


def _rng_fingerprint() -> Any:
    state = capture_rng_state()
    numpy_state = None
    if state.numpy is not None:
        kind, keys, *rest = state.numpy
        numpy_state = (kind, hashlib.sha256(bytes(keys)).hexdigest(), *rest)
    return (state.python, numpy_state, _digest(state.torch_cpu), tuple(_digest(t) for t in state.cuda), _digest(state.mps))

