"""Training under torch.compile equals eager training, step by step, and compiles cleanly.

:func:`assert_compile_parity` trains the same model from the same seed and initial weights
twice, eager and compiled, and compares every step: the loss, every gradient at the moment
of ``optimizer.step`` and every parameter and buffer after it. In the same run it checks the
compile's health: graph breaks (each with its source line), recompiles after the warm-up
(with the guard that failed), a recompile-limit hit or a swallowed backend error (which
outside the check would silently run eagerly), and a run in which nothing was compiled.

:func:`assert_compiles_cleanly` is the health half alone, for one function over a sweep of
inputs.

Dynamo is reset before and after every compiled run (``torch._dynamo.reset()``): other
compiled code in the process recompiles on its next call. That costs time, never results,
and is the only way the counts here mean this model and nothing else.
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import torch
from torch import nn

from torchcheck.checks._compare import callable_name, compare_tensors, format_index, indent, map_tensors
from torchcheck.checks._compile_health import (
    CompileWatch,
    HealthSummary,
    Recompile,
    describe_graph_breaks,
    guard_advice,
    is_recompile_error,
    is_recompile_limit_error,
    recompile_from_error,
)
from torchcheck.checks._gradient_noise import add_noise, noise_level_elements, without_noise
from torchcheck.checks._inputs import instantiate
from torchcheck.checks._localize_setting import localize_level
from torchcheck.checks._stochastic import RandomOps, random_calls_at_expected_value
from torchcheck.checks.errors import CheckFailed, NotApplicable
from torchcheck.checks.localize import NOT_REFED, Refeed, where_refed_starts
from torchcheck.checks.seeding import seed_everything
from torchcheck.checks.state import preserved_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["assert_compile_parity", "assert_compiles_cleanly"]

StepFn = Callable[[nn.Module, torch.optim.Optimizer, Any], Any]
Backend = Union[str, Callable[..., Any]]
CompileTarget = Union[str, Callable[[nn.Module], Any]]

_PARITY = "assert_compile_parity"
_CLEANLY = "assert_compiles_cleanly"
_SEED = 0
#: Backends that run ATen's own kernels on the captured graph: eager results, bit for bit
#: on CPU (measured: 5 AdamW steps, dropout included).
_EXACT_BACKENDS = ("eager", "aot_eager")
#: Backends that decompose operations and draw random numbers their own way, without
#: Inductor's ``fallback_random``: randomness is switched off in both runs for them.
_LADDER = ("eager", "aot_eager", "aot_eager_decomp_partition")
_LOW_PRECISION = (torch.bfloat16, torch.float16)
_LOCALISATION_RUNS = 12

_NO_BATCHES = _PARITY + ": batches must be a non-empty list of batches (one optimizer step each); got {value!r}"
_NO_CALLS = _CLEANLY + ": calls must be a non-empty list of calls (argument tuples); got {value!r}"
_BAD_COMPILE = (
    _PARITY + ': compile must be "model", "step" or a function model -> compiled model; got {value!r}'
)
_NO_BACKENDS = _PARITY + ": backend is an empty list; name at least one backend, or pass None for the default"
_BAD_PRECISION = _PARITY + ': precision must be "float64" or "native"; got {value!r}'
_BAD_BUDGET = "{check}: {name} must be a non-negative integer or None; got {value!r}"
_NO_CXX = (
    '{check}: torch.compile(backend="inductor") on CPU compiles C++ and no C++ compiler was '
    "found ({error}). Install one (g++ or clang++; set CXX to choose), or check another "
    'backend (backend="aot_eager" needs none).'
)

_RAISED = """\
{check}: the compiled run raised at step {step} of {steps} under {compiled}, where eager \
training did not:
{error}"""
_NOTHING_COMPILED = (
    "{check}: nothing was compiled in {steps} {unit} (Dynamo captured no graph): {cause}"
)
_NOTHING_CAUSE_PARITY = (
    "step_fn does not call the model it is given (does it close over another reference?), or "
    'compilation is disabled (TORCHDYNAMO_DISABLE=1, set_stance("force_eager")).'
)
_NOTHING_CAUSE_CLEANLY = (
    "the function runs no torch operation Dynamo can capture, or compilation is disabled "
    '(TORCHDYNAMO_DISABLE=1, set_stance("force_eager")).'
)
_GRAPH_BREAKS = """\
{check}: {count} graph break{s} under {compiled} (allowed: {allowed}):
{breaks}
Each break splits the compiled code into separate graphs with Python running between them: \
slower, and the compiler cannot optimise across it. Fix the line, or pass \
max_graph_breaks={count} (None: any number) to accept {them}."""
_RECOMPILES_AT_STEP = """\
{check}: {step_word} {step} of {steps} recompiles {where}, allowed after {warmup}: 0. \
Guard failure: {guards}. {advice}"""
_FIRST_COMPILE_AT_STEP = """\
{check}: {step_word} {step} of {steps} compiles {where} for the first time, after {warmup} \
(recompiles allowed: 0): code the warm-up did not reach, such as a branch taken only from \
this {step_word} on. Raise warmup_steps if that is expected."""
_TOO_MANY_RECOMPILES = """\
{check}: {count} recompiles after {warmup} (allowed: {allowed}):
{listing}
{advice}"""
_LIMIT_HIT = """\
{check}: {where} hit torch._dynamo's recompile_limit ({limit}) at {step_word} {step} \
(max_recompiles={budget}): outside this check the remaining {step_word}s would run eagerly \
after one logged warning, and a parity result would say nothing about the compiled model. \
Last guard failure: {guards}. {advice}"""
_DIVERGES = """\
{check}: training under {compiled} diverges from eager at step {step} of {steps} \
({precision}), {what}:
{details}
Phase: {phase}"""
_PHASE_LOSS = "the loss of step {step} differs{since}, so the compiled forward differs."
_PHASE_GRADIENT = (
    "the loss of step {step} agrees (diff {loss_diff}); the gradients differ, so the compiled "
    "backward differs."
)
_PHASE_PARAMETER = (
    "the loss and the gradients of step {step} agree; the parameters after the optimizer step "
    "differ, so the update differs{step_note}."
)
_PHASE_BUFFER = (
    "the loss, gradients and parameters of step {step} agree; a buffer the forward updates in "
    "place (BatchNorm running statistics, a counter) differs."
)
_CAUSE_HOOKS = """\
Cause: hooks changed after the model was first compiled ({changes}). Dynamo does not guard \
on module hooks (torch._dynamo.config.skip_nnmodule_hook_guards), so the compiled model keeps \
running the hooks it was compiled with. Register hooks before compiling, or call \
torch._dynamo.reset() after changing them."""
_LADDER_LINE = "Where it starts: the backend ladder on step {step} gives {rungs}{verdict}"
_LADDER_VERDICTS = {
    "eager": (
        "Dynamo's capture of the Python code, before any backend: the model's Python does "
        "something the compiled code replays differently (state read at trace time, hooks, "
        "side effects)"
    ),
    "aot_eager": "AOTAutograd (functionalisation, the joint forward/backward graph), not the model",
    "aot_eager_decomp_partition": "PyTorch's decompositions or the forward/backward partitioner, not the model",
}
_LADDER_NOT_REPRODUCED = (
    ": no rung reproduces the difference, so the compiled run is not deterministic "
    "(autotuning, atomics); compare with rtol/atol."
)
_LOCALISED = "Compiling only {modules} reproduces it; compiling any other {level} alone does not."
_LOCALISED_SEVERAL = (
    "Each of {modules} reproduces it compiled alone: the backend mishandles something they "
    "share (an operation, a dtype, a layout)."
)
_LOCALISED_NONE = "No {level} compiled alone reproduces it: it needs several compiled together."
_REFED_OP_LEVEL = (
    "Op level is not possible under torch.compile: the compiled code runs its own kernels, "
    "not eager's operations, so the two cannot be paired; the module is where to look."
)
_REFED_NOT_FOR_STEP = (
    'Where it starts: not looked for at module level: compile="step" compiles the forward '
    "together with the backward and the optimizer step, so no module can be compiled alone."
)
_REFED_NOT_FOR_FUNCTION = (
    "Where it starts: not looked for at module level: compile= is a function of the whole "
    "model, so its modules cannot be compiled alone."
)
_REPRO = "A minimal repro for an upstream report: TORCHDYNAMO_REPRO_AFTER=aot TORCHDYNAMO_REPRO_LEVEL=4 {command}"
_NOTE_OWN_PRECISION = (
    "Note: both runs trained in the model's own precision, since in float64 {name} raised "
    "{error}."
)
_NOTE_RANDOMNESS_OFF = (
    "Note: randomness was switched off in both runs, since {backend} decomposes dropout and "
    "draws other random numbers than eager: {neutralised} ran at their expected value "
    "(dropout as the identity).{left_on}"
)
_NOTE_LEFT_ON = " Left on (integer draws have no expected value to use): {ops}."


# ------------------------------------------------------------------- set-up


@dataclass(frozen=True)
class _Setup:
    make_model: nn.Module | Callable[[], nn.Module]
    make_optimizer: Callable[[nn.Module], Any]
    step_fn: StepFn
    batches: Sequence[Any]
    compile: CompileTarget
    mode: str | None
    dynamic: bool | None
    options: dict[str, Any] | None
    precision: str
    warmup_steps: int | None
    max_graph_breaks: int | None
    max_recompiles: int | None
    rtol: float | None
    atol: float | None
    device: torch.device | None
    localize: str = "op"

    @property
    def name(self) -> str:
        return callable_name(self.step_fn)

    @property
    def steps(self) -> int:
        return len(self.batches)

    @property
    def warmup(self) -> int:
        if self.warmup_steps is not None:
            return self.warmup_steps
        return 2 if self.compile == "step" else 1  # the optimizer's state appears in step 1


@dataclass
class _StepRecord:
    loss: torch.Tensor | None
    gradients: dict[str, torch.Tensor | None]
    parameters: dict[str, torch.Tensor]
    buffers: dict[str, torch.Tensor]


@dataclass
class _Run:
    """One training run: what every step left, and the model's hooks before each step."""

    initial: dict[str, torch.Tensor]
    steps: list[_StepRecord] = field(default_factory=list)
    hooks: list[tuple[Any, ...]] = field(default_factory=list)  # after each step
    device: torch.device = torch.device("cpu")
    regime: torch.dtype = torch.float32  # the precision the run computed in
    random_ops: RandomOps | None = None  # what was switched off, when randomness was


@dataclass
class _Stop:
    """Why a compiled run stopped before its last step."""

    step: int
    error: BaseException
    recompile: Recompile | None = None
    limit_hit: bool = False


@dataclass
class _CompiledRun:
    run: _Run
    health: HealthSummary
    stop: _Stop | None = None
    recompiles: list[tuple[int, Recompile]] = field(default_factory=list)  # after the warm-up
    recompile_limit: int | None = None


@dataclass(frozen=True)
class _Reference:
    dtype: torch.dtype | None  # None: the model's own precision
    run: _Run
    note: str


@dataclass(frozen=True)
class _Tolerance:
    """Elementwise ``rtol``/``atol``; with ``update_rtol`` parameters are compared by their
    change since the initial weights and gradients by direction and relative size."""

    rtol: float
    atol: float
    update_rtol: float | None = None
    min_cosine: float | None = None


@dataclass(frozen=True)
class _Difference:
    kind: str  # "loss", "gradient", "parameter", "buffer"
    name: str
    lines: tuple[str, ...]


# ------------------------------------------------------------------- the check


def assert_compile_parity(
    make_model: nn.Module | Callable[[], nn.Module],
    make_optimizer: Callable[[nn.Module], Any],
    step_fn: StepFn,
    batches: Sequence[Any],
    *,
    backend: Backend | Sequence[Backend] | None = None,
    compile: CompileTarget = "model",  # noqa: A002 - the spec's name
    mode: str | None = None,
    dynamic: bool | None = None,
    options: dict[str, Any] | None = None,
    precision: str = "native",
    warmup_steps: int | None = None,
    max_graph_breaks: int | None = 0,
    max_recompiles: int | None = 0,
    rtol: float | None = None,
    atol: float | None = None,
    device: str | torch.device | None = None,
    localize: str | None = None,
) -> None:
    """Train ``len(batches)`` steps eager and compiled from the same seed and initial weights
    and require the same loss, gradients (at ``optimizer.step``), parameters and buffers
    after every step, and a clean compile.

    ``step_fn(model, optimizer, batch)`` is one training step (it may return the loss);
    ``make_optimizer(model)`` may return ``(optimizer, scheduler)``. ``compile="model"``
    passes ``torch.compile(model, ...)`` to ``step_fn``; ``"step"`` compiles ``step_fn``
    itself, optimizer step included; a function ``model -> model`` compiles anything else.
    ``backend`` defaults to ``"inductor"`` on CUDA and ``"aot_eager"`` elsewhere; a list checks
    each in turn. ``precision="native"`` (default) compares in the model's own dtype with
    dtype-aware tolerances (exact for ``eager``/``aot_eager`` on CPU); ``"float64"`` trains
    both runs in float64. ``max_graph_breaks``/``max_recompiles`` (``None``: unchecked) are
    budgets; recompiles count after ``warmup_steps`` (1, or 2 for ``compile="step"``).

    On a divergence the message says where it starts (``localize``: ``"off"``,
    ``"module"``, ``"op"``; default ``--torchcheck-localize``, env ``TORCHCHECK_LOCALIZE``,
    then ``"op"``): for a forward that differs, the first module that differs when compiled
    alone and fed eager's inputs from that step; then the backend ladder and the modules
    that reproduce it compiled alone. Op level is not possible under compile.

    Dynamo is reset before and after each compiled run, so other compiled code in the
    process recompiles on its next call; every Dynamo and Inductor setting changed here is
    restored.
    """
    setup = _setup(
        make_model, make_optimizer, step_fn, batches, compile, mode, dynamic, options, precision,
        warmup_steps, max_graph_breaks, max_recompiles, rtol, atol, device, localize_level(localize),
    )
    with preserved_state():
        references: dict[bool, _Reference] = {}
        for each in _backends(backend, setup, references):
            _check_backend(setup, each, references)


def _setup(*args: Any) -> _Setup:
    (make_model, make_optimizer, step_fn, batches, compile_target, mode, dynamic, options, precision,
     warmup_steps, max_graph_breaks, max_recompiles, rtol, atol, device, localize) = args
    if isinstance(batches, (str, bytes)) or not isinstance(batches, Sequence) or not batches:
        raise ValueError(_NO_BATCHES.format(value=batches))
    if not (compile_target in ("model", "step") or (callable(compile_target) and not isinstance(compile_target, str))):
        raise ValueError(_BAD_COMPILE.format(value=compile_target))
    if precision not in ("float64", "native"):
        raise ValueError(_BAD_PRECISION.format(value=precision))
    for name, value in (
        ("warmup_steps", warmup_steps), ("max_graph_breaks", max_graph_breaks), ("max_recompiles", max_recompiles)
    ):
        _check_budget(_PARITY, name, value)
    return _Setup(
        make_model, make_optimizer, step_fn, list(batches), compile_target, mode, dynamic, options, precision,
        warmup_steps, max_graph_breaks, max_recompiles, rtol, atol,
        torch.device(device) if device is not None else None, localize,
    )


def _check_budget(check: str, name: str, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(_BAD_BUDGET.format(check=check, name=name, value=value))


def _backends(backend: Any, setup: _Setup, references: dict[bool, _Reference]) -> list[Backend]:
    if backend is None:
        device = _run_device(setup, _reference(setup, False, references).run)
        return ["inductor" if device.type == "cuda" else "aot_eager"]
    if isinstance(backend, (list, tuple)):
        if not backend:
            raise ValueError(_NO_BACKENDS)
        return list(backend)
    return [backend]


def _check_backend(setup: _Setup, backend: Backend, references: dict[bool, _Reference]) -> None:
    dropout_off = _decomposes_randomness(backend)
    reference = _reference(setup, dropout_off, references)
    device = _run_device(setup, reference.run)
    if backend == "inductor" and device.type == "cpu":
        _require_cpp_compiler(_PARITY)
    compiled = _compiled_run(setup, backend, reference.dtype, dropout_off)
    findings = _health_findings(setup, backend, compiled)
    if compiled.stop is None:
        divergence = _divergence(setup, backend, reference, compiled.run, dropout_off, references)
        if divergence is not None:
            findings.append(divergence)
    if findings:
        fallback = compiled.health.fallback_note()
        message = "\n\n".join(findings) + (f"\n{fallback}" if fallback else "")
        error = compiled.stop.error if compiled.stop is not None and compiled.stop.recompile is None else None
        raise CheckFailed(message) from error


def _decomposes_randomness(backend: Backend) -> bool:
    """Named backends that decompose dropout without Inductor's ``fallback_random``."""
    return isinstance(backend, str) and backend not in _EXACT_BACKENDS and backend != "inductor"


def _require_cpp_compiler(check: str) -> None:
    try:
        from torch._inductor.cpp_builder import get_cpp_compiler

        get_cpp_compiler()
    except ImportError:  # an older torch: let Inductor say it
        return
    except Exception as error:  # noqa: BLE001 - any failure to find one means none usable
        raise NotApplicable(_NO_CXX.format(check=check, error=_first_line(str(error)))) from error


# ------------------------------------------------------------------ training


def _reference(setup: _Setup, dropout_off: bool, cache: dict[bool, _Reference]) -> _Reference:
    """The eager run (float64 when asked and possible), computed once per dropout setting."""
    if dropout_off not in cache:
        cache[dropout_off] = _eager_reference(setup, dropout_off)
    return cache[dropout_off]


def _eager_reference(setup: _Setup, dropout_off: bool) -> _Reference:
    if setup.precision != "float64":
        return _Reference(None, _eager_run(setup, None, dropout_off), "")
    try:
        return _Reference(torch.float64, _eager_run(setup, torch.float64, dropout_off), "")
    except Exception as error:  # noqa: BLE001 - a model that cannot run in float64
        run = _eager_run(setup, None, dropout_off)
        note = _NOTE_OWN_PRECISION.format(name=setup.name, error=_first_line(f"{type(error).__name__}: {error}"))
        return _Reference(None, run, note)


def _eager_run(setup: _Setup, dtype: torch.dtype | None, dropout_off: bool) -> _Run:
    """Plain eager training; ``force_eager`` also keeps a model that compiles parts of
    itself eager, so the reference is eager whatever the model does."""
    with torch.compiler.set_stance("force_eager"):
        model, optimizer, scheduler, run = _build(setup, dtype)
        with _randomness_off(dropout_off) as run.random_ops, _gradient_recorder(setup, model, optimizer) as grads:
            seed_everything(_SEED)
            for batch in _batches(setup, dtype, _model_device(model)):
                loss = _call_step(setup.step_fn, model, optimizer, scheduler, batch)
                run.steps.append(_record(model, loss, grads))
                run.hooks.append(_hook_fingerprint(model))
        run.regime = _regime(model, run)
    return run


def _compiled_run(
    setup: _Setup,
    backend: Backend,
    dtype: torch.dtype | None,
    dropout_off: bool,
    *,
    until: int | None = None,
    compile_target: CompileTarget | None = None,
    strict: bool = True,
) -> _CompiledRun:
    """Training under torch.compile, watched; stops at the first step that raises."""
    target = compile_target if compile_target is not None else setup.compile
    with CompileWatch(fallback_random=not isinstance(backend, str) or backend == "inductor") as watch:
        model, optimizer, scheduler, run = _build(setup, dtype)
        model_argument, step = _compiled(setup, target, backend, model)
        result = _CompiledRun(run, HealthSummary(), recompile_limit=getattr(torch._dynamo.config, "recompile_limit", None))
        batches = _batches(setup, dtype, _model_device(model))[:until]
        with _randomness_off(dropout_off) as run.random_ops, _gradient_recorder(setup, model, optimizer) as grads:
            seed_everything(_SEED)
            for number, batch in enumerate(batches, start=1):
                after_warmup = number > setup.warmup
                # fail_on_recompile refuses first compiles too: never on step 1
                refuse = strict and after_warmup and number > 1 and setup.max_recompiles == 0
                stance = _fail_on_recompile() if refuse else contextlib.nullcontext()
                try:
                    with stance:
                        loss = _call_step(step, model_argument, optimizer, scheduler, batch)
                except Exception as error:  # noqa: BLE001 - the compiled run failing is the finding
                    result.stop = _stop(number, error, watch)
                    break
                run.steps.append(_record(model, loss, grads))
                run.hooks.append(_hook_fingerprint(model))
                if after_warmup:
                    result.recompiles += [(number, recompile) for recompile in watch.new_recompiles()]
                else:
                    watch.new_recompiles()
        run.regime = _regime(model, run)
        result.health = watch.summary()
    return result


def _stop(step: int, error: BaseException, watch: CompileWatch) -> _Stop:
    if is_recompile_error(error):
        return _Stop(step, error, recompile=recompile_from_error(error))
    if is_recompile_limit_error(error):
        recompiles = watch.new_recompiles()
        return _Stop(step, error, recompile=recompiles[-1] if recompiles else None, limit_hit=True)
    return _Stop(step, error)


def _fail_on_recompile() -> contextlib.AbstractContextManager[Any]:
    return torch.compiler.set_stance("fail_on_recompile")


def _build(setup: _Setup, dtype: torch.dtype | None) -> tuple[nn.Module, torch.optim.Optimizer, Any, _Run]:
    seed_everything(_SEED)
    model = instantiate(setup.make_model)
    if setup.device is not None or dtype is not None:
        model.to(device=setup.device, dtype=dtype)
    optimizer, scheduler = _optimizer_and_scheduler(setup.make_optimizer(model))
    initial = {name: parameter.detach().to("cpu", copy=True) for name, parameter in model.named_parameters()}
    return model, optimizer, scheduler, _Run(initial, device=_model_device(model))


def _compiled(
    setup: _Setup, target: CompileTarget, backend: Backend, model: nn.Module
) -> tuple[nn.Module, StepFn]:
    """What ``step_fn`` is given, and the step to call."""
    if target == "step":
        return model, torch.compile(setup.step_fn, **_compile_options(setup, backend))
    if target == "model":
        return torch.compile(model, **_compile_options(setup, backend)), setup.step_fn
    compiled = target(model)  # type: ignore[operator]
    return (compiled if compiled is not None else model), setup.step_fn


def _compile_options(setup: _Setup, backend: Backend) -> dict[str, Any]:
    options: dict[str, Any] = {"backend": backend, "dynamic": setup.dynamic}
    if setup.mode is not None:
        options["mode"] = setup.mode
    if setup.options is not None:
        options["options"] = setup.options
    return options


def _optimizer_and_scheduler(made: Any) -> tuple[torch.optim.Optimizer, Any]:
    if isinstance(made, tuple):
        return made[0], made[1] if len(made) > 1 else None
    return made, None


def _call_step(step: StepFn, model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, batch: Any) -> Any:
    loss = step(model, optimizer, batch)
    loss = _loss_value(loss)  # before the scheduler, and before CUDA graphs reuse the memory
    if scheduler is not None:
        scheduler.step()
    return loss


def _loss_value(loss: Any) -> torch.Tensor | None:
    if isinstance(loss, torch.Tensor):
        return loss.detach().to("cpu", copy=True)
    if isinstance(loss, (int, float)) and not isinstance(loss, bool):
        return torch.tensor(float(loss), dtype=torch.float64)
    return None


def _batches(setup: _Setup, dtype: torch.dtype | None, device: torch.device) -> list[Any]:
    def converted(tensor: torch.Tensor) -> torch.Tensor:
        if dtype is not None and tensor.is_floating_point():
            tensor = tensor.to(dtype)
        return tensor.to(device) if setup.device is not None else tensor

    return [map_tensors(batch, converted) for batch in setup.batches]


def _model_device(model: nn.Module) -> torch.device:
    for tensor in (*model.parameters(), *model.buffers()):
        return tensor.device
    return torch.device("cpu")


def _run_device(setup: _Setup, run: _Run) -> torch.device:
    return setup.device if setup.device is not None else run.device


@contextlib.contextmanager
def _randomness_off(off: bool) -> Iterator[RandomOps | None]:
    """Random calls at their expected value (function level, which Dynamo compiles into
    the graph; a dispatch mode would make it run the model eagerly), or left alone."""
    if not off:
        yield None
        return
    with random_calls_at_expected_value() as record:
        yield record


@contextlib.contextmanager
def _gradient_recorder(
    setup: _Setup, model: nn.Module, optimizer: torch.optim.Optimizer
) -> Iterator[dict[str, dict[str, torch.Tensor | None]]]:
    """The gradients at the moment of ``optimizer.step`` (a step pre-hook). With
    ``compile="step"`` the optimizer step is compiled, and a hook inside it would change the
    graph: both runs then read the gradients after the step instead."""
    seen: dict[str, dict[str, torch.Tensor | None]] = {}
    if setup.compile == "step":
        yield seen
        return

    def record(_optimizer: Any, _args: Any, _kwargs: Any) -> None:
        seen["last"] = _gradients(model)

    handle = optimizer.register_step_pre_hook(record)
    try:
        yield seen
    finally:
        handle.remove()


def _gradients(model: nn.Module) -> dict[str, torch.Tensor | None]:
    return {
        name: None if parameter.grad is None else parameter.grad.detach().to("cpu", copy=True)
        for name, parameter in model.named_parameters()
    }


def _record(model: nn.Module, loss: torch.Tensor | None, grads: dict[str, dict[str, torch.Tensor | None]]) -> _StepRecord:
    gradients = grads.pop("last", None)
    return _StepRecord(
        loss=loss,
        gradients=gradients if gradients is not None else _gradients(model),
        parameters={name: p.detach().to("cpu", copy=True) for name, p in model.named_parameters()},
        buffers={name: b.detach().to("cpu", copy=True) for name, b in model.named_buffers()},
    )


def _regime(model: nn.Module, run: _Run) -> torch.dtype:
    """The precision the run computed in: a low-precision loss (autocast) wins over the
    parameters' dtype."""
    losses = [step.loss for step in run.steps if step.loss is not None]
    if losses and losses[0].dtype in _LOW_PRECISION:
        return losses[0].dtype
    for parameter in model.parameters():
        if parameter.is_floating_point():
            return parameter.dtype
    return torch.float32


def _hook_fingerprint(model: nn.Module) -> tuple[Any, ...]:
    """Which hooks each module has (by handle id): hooks Dynamo does not guard on."""
    found = []
    for name, module in model.named_modules():
        for kind in ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks"):
            hooks = getattr(module, kind, None)
            if hooks:
                found.append((name or type(module).__name__, kind.strip("_"), tuple(hooks)))
    return tuple(found)


# ---------------------------------------------------------------- health


def _health_findings(setup: _Setup, backend: Backend, compiled: _CompiledRun) -> list[str]:
    labels = _Labels(_PARITY, _compiled_label(setup, backend), setup.steps, "step", setup.warmup)
    findings = []
    stop = compiled.stop
    if stop is not None:
        findings.append(_stop_message(labels, stop, compiled.recompile_limit, setup.max_recompiles))
    elif compiled.health.unique_graphs == 0:
        findings.append(_nothing_compiled(labels, _NOTHING_CAUSE_PARITY))
    breaks = _graph_break_finding(labels, compiled.health, setup.max_graph_breaks)
    if breaks:
        findings.append(breaks)
    too_many = _recompile_count_finding(labels, compiled.recompiles, setup.max_recompiles)
    if too_many and stop is None:
        findings.append(too_many)
    return findings


@dataclass(frozen=True)
class _Labels:
    """How messages name the check, the compiled thing and its steps or calls."""

    check: str
    compiled: str
    steps: int
    unit: str  # "step" or "call"
    warmup: int

    @property
    def warmup_words(self) -> str:
        if self.warmup == 0:
            return f"the first {self.unit}" if self.unit == "call" else "no warm-up"
        if self.unit == "call":
            return "the first call" if self.warmup == 1 else f"the first {self.warmup} calls"
        return "the warm-up step" if self.warmup == 1 else f"the {self.warmup} warm-up steps"


def _stop_message(labels: _Labels, stop: _Stop, limit: int | None, budget: int | None) -> str:
    recompile = stop.recompile
    if stop.limit_hit:
        return _LIMIT_HIT.format(
            check=labels.check,
            where=recompile.where() if recompile else "a compiled function",
            limit=limit,
            step_word=labels.unit,
            step=stop.step,
            budget=budget,
            guards=_guards_text(recompile),
            advice=guard_advice(recompile.guard_failures if recompile else ()),
        )
    if recompile is not None:
        template = _RECOMPILES_AT_STEP if recompile.guard_failures else _FIRST_COMPILE_AT_STEP
        return template.format(
            check=labels.check,
            step_word=labels.unit,
            step=stop.step,
            steps=labels.steps,
            where=recompile.where(),
            warmup=labels.warmup_words,
            guards=_guards_text(recompile),
            advice=guard_advice(recompile.guard_failures),
        )
    return _RAISED.format(
        check=labels.check,
        step=stop.step,
        steps=labels.steps,
        compiled=labels.compiled,
        error=indent(_error_text(stop.error)),
    )


def _guards_text(recompile: Recompile | None) -> str:
    if recompile is None or not recompile.guard_failures:
        return "not recorded"
    return "; ".join(recompile.guard_failures)


def _nothing_compiled(labels: _Labels, cause: str) -> str:
    unit = labels.unit + ("s" if labels.steps != 1 else "")
    return _NOTHING_COMPILED.format(check=labels.check, steps=labels.steps, unit=unit, cause=cause)


def _graph_break_finding(labels: _Labels, health: HealthSummary, budget: int | None) -> str:
    breaks = health.graph_breaks
    if budget is None or len(breaks) <= budget:
        return ""
    count = len(breaks)
    return _GRAPH_BREAKS.format(
        check=labels.check,
        count=count,
        s="" if count == 1 else "s",
        compiled=labels.compiled,
        allowed=budget,
        breaks=describe_graph_breaks(breaks),
        them="it" if count == 1 else "them",
    )


def _recompile_count_finding(labels: _Labels, recompiles: list[tuple[int, Recompile]], budget: int | None) -> str:
    if budget is None or len(recompiles) <= budget:
        return ""
    listing = "\n".join(
        f"  {labels.unit} {step}: {recompile.where()}: {_guards_text(recompile)}" for step, recompile in recompiles
    )
    return _TOO_MANY_RECOMPILES.format(
        check=labels.check,
        count=len(recompiles),
        warmup=labels.warmup_words,
        allowed=budget,
        listing=listing,
        advice=guard_advice(recompiles[0][1].guard_failures),
    )


def _compiled_label(setup: _Setup, backend: Backend) -> str:
    backend_text = f'"{backend}"' if isinstance(backend, str) else callable_name(backend)
    extras = "".join(
        f", {name}={value!r}" for name, value in (("mode", setup.mode), ("dynamic", setup.dynamic)) if value is not None
    )
    if setup.compile == "step":
        return f"torch.compile({setup.name}, backend={backend_text}{extras})"
    if setup.compile == "model":
        return f"torch.compile(backend={backend_text}{extras})"
    return f"{callable_name(setup.compile)} (backend={backend_text})"


def _error_text(error: BaseException, lines: int = 8) -> str:
    text = f"{type(error).__name__}: {error}".strip().splitlines()
    return "\n".join(text[:lines] + (["[...]"] if len(text) > lines else []))


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] + (" [...]" if len(lines) > 1 else "") if lines else text


# ---------------------------------------------------------------- parity


def _divergence(
    setup: _Setup,
    backend: Backend,
    reference: _Reference,
    run: _Run,
    dropout_off: bool,
    references: dict[bool, _Reference],
) -> str | None:
    tolerance = _tolerance(setup, backend, reference.run)
    found = _first_difference(reference.run, run, tolerance)
    if found is None:
        return None
    step, difference = found
    message = _DIVERGES.format(
        check=_PARITY,
        compiled=_compiled_label(setup, backend),
        step=step,
        steps=setup.steps,
        precision=_dtype_name(reference.run.regime),
        what=f"{difference.kind} '{difference.name}'" if difference.name else difference.kind,
        details=indent("\n".join(difference.lines)),
        phase=_phase(setup, reference.run, run, step, difference),
    )
    extra = [_hook_cause(run, step)]
    if not extra[0] and setup.localize != "off":
        if difference.kind == "loss":
            extra.append(_forward_localisation(setup, backend, reference, step))
        extra += _localisation(setup, backend, reference, step, references)
    notes = [reference.note, _randomness_note(backend, reference.run.random_ops)]
    return "\n".join([message, *(line for line in extra + notes if line)])


def _randomness_note(backend: Backend, random_ops: RandomOps | None) -> str:
    """What the eager reference switched off (the compiled run traced the same calls)."""
    if random_ops is None or not (random_ops.neutralised or random_ops.left_on):
        return ""
    left_on = _NOTE_LEFT_ON.format(ops=random_ops.describe_left_on()) if random_ops.left_on else ""
    neutralised = random_ops.describe_neutralised() or "no random call"
    return _NOTE_RANDOMNESS_OFF.format(backend=f'"{_backend_name(backend)}"', neutralised=neutralised, left_on=left_on)


def _tolerance(setup: _Setup, backend: Backend, reference: _Run) -> _Tolerance:
    if setup.rtol is not None or setup.atol is not None:
        return _Tolerance(setup.rtol or 0.0, setup.atol or 0.0)
    regime = reference.regime
    low = regime in _LOW_PRECISION
    device = _run_device(setup, reference)
    # A compiled optimizer step takes the optimizer's compiled code path (other operation
    # order), so compile="step" is never bit-exact, whatever the backend.
    if isinstance(backend, str) and backend in _EXACT_BACKENDS and setup.compile != "step":
        if low:
            return _Tolerance(1e-3, 1e-5)
        return _Tolerance(0.0, 0.0) if device.type == "cpu" else _Tolerance(1e-6, 1e-7)
    if regime == torch.float64:
        return _Tolerance(1e-7, 1e-7)
    if low:
        return _Tolerance(2e-2, 1e-5, update_rtol=2e-2, min_cosine=0.999)
    return _Tolerance(1e-4, 1e-6, update_rtol=1e-4, min_cosine=0.9999)


def _first_difference(expected: _Run, actual: _Run, tolerance: _Tolerance) -> tuple[int, _Difference] | None:
    noise: dict[str, torch.Tensor] = {}
    for step, (want, got) in enumerate(zip(expected.steps, actual.steps), start=1):
        add_noise(noise, noise_level_elements(want.gradients, got.gradients))
        found = _step_difference(want, got, tolerance, expected.initial, noise)
        if found is not None:
            return step, found
    return None


def _step_difference(
    want: _StepRecord,
    got: _StepRecord,
    tolerance: _Tolerance,
    initial: Mapping[str, torch.Tensor],
    noise: Mapping[str, torch.Tensor],
) -> _Difference | None:
    if want.loss is not None and got.loss is not None:
        lines = _elementwise(got.loss, want.loss, tolerance.rtol, tolerance.atol)
        if lines:
            return _Difference("loss", "", lines)
    for name, expected in want.gradients.items():
        lines = _gradient_lines(got.gradients.get(name), expected, tolerance)
        if lines:
            return _Difference("gradient", name, lines)
    parameters = without_noise(got.parameters, want.parameters, noise)
    for name, expected in want.parameters.items():
        lines = _parameter_lines(parameters[name], expected, initial.get(name), tolerance)
        if lines:
            return _Difference("parameter", name, lines)
    for name, expected in want.buffers.items():
        lines = _elementwise(got.buffers[name], expected, tolerance.update_rtol or tolerance.rtol, tolerance.atol)
        if lines:
            return _Difference("buffer", name, lines)
    return None


def _elementwise(actual: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float) -> tuple[str, ...]:
    if not expected.is_floating_point() and not expected.is_complex():
        rtol, atol = 0.0, 0.0
    lines = compare_tensors(actual, expected, rtol=rtol, atol=atol)
    if lines is None:
        return ()
    return tuple(line for line in lines if not line.startswith("Tensor-likes"))


def _gradient_lines(actual: torch.Tensor | None, expected: torch.Tensor | None, tolerance: _Tolerance) -> tuple[str, ...]:
    if actual is None or expected is None:
        if actual is None and expected is None:
            return ()
        missing = "the compiled run" if actual is None else "eager training"
        return (f"The gradient is None in {missing} and a tensor in the other.",)
    if tolerance.min_cosine is None:
        return _elementwise(actual, expected, tolerance.rtol, tolerance.atol)
    return _gradient_direction_lines(actual, expected, tolerance.min_cosine)


def _gradient_direction_lines(actual: torch.Tensor, expected: torch.Tensor, min_cosine: float) -> tuple[str, ...]:
    """Low-precision code generation moves every element a little: the gradient must keep
    its direction (cosine) and its size (relative error of the whole tensor)."""
    if actual.shape != expected.shape:
        return (f"Shapes differ: {tuple(actual.shape)} != {tuple(expected.shape)} (expected).",)
    a, e = actual.double().flatten(), expected.double().flatten()
    expected_norm, error_norm = float(e.norm()), float((a - e).norm())
    allowed = math.sqrt(2 * (1 - min_cosine))
    if expected_norm == 0:
        return () if error_norm == 0 else (f"Eager's gradient is zero; the compiled one has norm {float(a.norm()):.6g}.",)
    cosine = float(a @ e) / (float(a.norm()) * expected_norm) if float(a.norm()) else 0.0
    relative = error_norm / expected_norm
    if cosine >= min_cosine and relative <= allowed:
        return ()
    return (
        f"Cosine similarity with eager's gradient: {cosine:.6f} (at least {min_cosine:g} required)",
        f"Relative difference |g - g_eager| / |g_eager|: {relative:.3g} (up to {allowed:.3g} allowed)",
        f"Greatest absolute difference: {float((a - e).abs().max()):.6g}",
    )


def _parameter_lines(
    actual: torch.Tensor, expected: torch.Tensor, initial: torch.Tensor | None, tolerance: _Tolerance
) -> tuple[str, ...]:
    if tolerance.update_rtol is None or initial is None or not expected.is_floating_point():
        return _elementwise(actual, expected, tolerance.rtol, tolerance.atol)
    if actual.shape != expected.shape:
        return (f"Shapes differ: {tuple(actual.shape)} != {tuple(expected.shape)} (expected).",)
    expected_update = (expected.double() - initial.double()).flatten()
    difference = (actual.double() - expected.double()).flatten()
    relative = float(difference.norm()) / max(float(expected_update.norm()), 1e-30)
    if relative <= tolerance.update_rtol or float(difference.norm()) == 0:
        return ()
    index = int(difference.abs().argmax())
    return (
        f"Relative difference of the update |u - u_eager| / |u_eager|: {relative:.3g} "
        f"(up to {tolerance.update_rtol:g} allowed), u being the change since the initial weights",
        f"Greatest absolute difference: {float(difference.abs().max()):.6g} at index "
        f"{format_index(index, expected.shape)}",
    )


def _phase(setup: _Setup, expected: _Run, actual: _Run, step: int, difference: _Difference) -> str:
    if difference.kind == "loss":
        since = " from the same initial weights" if step == 1 else f" although every step up to {step - 1} agreed"
        return _PHASE_LOSS.format(step=step, since=since)
    if difference.kind == "gradient":
        return _PHASE_GRADIENT.format(step=step, loss_diff=_loss_difference(expected, actual, step))
    if difference.kind == "parameter":
        note = " (compile=\"step\" compiles the optimizer step)" if setup.compile == "step" else ""
        return _PHASE_PARAMETER.format(step=step, step_note=note)
    return _PHASE_BUFFER.format(step=step)


def _loss_difference(expected: _Run, actual: _Run, step: int) -> str:
    want, got = expected.steps[step - 1].loss, actual.steps[step - 1].loss
    if want is None or got is None:
        return "not returned by step_fn"
    return f"{float((got.double() - want.double()).abs().max()):.3g}"


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


# ---------------------------------------------------------------- diagnosis


def _hook_cause(run: _Run, step: int) -> str:
    """Hooks added or removed after the first step (which compiled the model): the
    compiled model ignores them."""
    if len(run.hooks) < step or step < 2 or not getattr(torch._dynamo.config, "skip_nnmodule_hook_guards", False):
        return ""
    first = {(name, kind): keys for name, kind, keys in run.hooks[0]}
    now = {(name, kind): keys for name, kind, keys in run.hooks[step - 1]}
    changes = []
    for key in sorted(set(first) | set(now)):
        before, after = set(first.get(key, ())), set(now.get(key, ()))
        added, removed = len(after - before), len(before - after)
        if added or removed:
            what = ", ".join(p for p in (f"{added} added" if added else "", f"{removed} removed" if removed else "") if p)
            changes.append(f"{key[1].replace('_', ' ')} of '{key[0]}': {what}")
    return _CAUSE_HOOKS.format(changes="; ".join(changes)) if changes else ""


def _localisation(
    setup: _Setup, backend: Backend, reference: _Reference, step: int, references: dict[bool, _Reference]
) -> list[str]:
    """The backend ladder, then (for compile="model") the modules that reproduce it alone."""
    rungs = _ladder_rungs(backend)
    if not rungs:
        return []
    results = []
    first_differing: Backend | None = None
    for rung in rungs:
        differs = _reproduces(setup, rung, step, references)
        results.append(f"{_backend_name(rung)}: {'differs' if differs else 'agrees'}")
        if differs:
            first_differing = rung
            break
    if first_differing is None:
        return [_LADDER_LINE.format(step=step, rungs=", ".join(results), verdict=_LADDER_NOT_REPRODUCED)]
    verdict = f" -> {_ladder_verdict(first_differing)}."
    lines = [_LADDER_LINE.format(step=step, rungs=", ".join(results), verdict=verdict)]
    if first_differing != "eager":
        if setup.compile == "model":
            lines.append(_modules_reproducing(setup, first_differing, step, references))
        lines.append(_REPRO.format(command=_rerun_command()))
    return lines


def _forward_localisation(setup: _Setup, backend: Backend, reference: _Reference, step: int) -> str:
    """The first module whose compiled forward differs from eager's on the same inputs:
    eager training up to ``step``, then the forward of ``step`` recorded module by module
    and each module compiled alone on what eager fed it. Hooks never touch the compiled
    code (they would change what is compiled); randomness is off, as a re-fed module
    cannot replay eager's draws."""
    if setup.compile == "step":
        return _REFED_NOT_FOR_STEP
    if setup.compile != "model":
        return _REFED_NOT_FOR_FUNCTION
    dropout_off = reference.run.random_ops is not None
    with torch.compiler.set_stance("force_eager"):
        model, optimizer, scheduler, _ = _build(setup, reference.dtype)
        batches = _batches(setup, reference.dtype, _model_device(model))
        with _randomness_off(dropout_off):
            seed_everything(_SEED)
            for batch in batches[: step - 1]:
                _call_step(setup.step_fn, model, optimizer, scheduler, batch)
        before = copy.deepcopy(model)

        def eager_step() -> Any:
            with _randomness_off(True):
                return _call_step(setup.step_fn, model, optimizer, scheduler, batches[step - 1])

        refeed = Refeed(
            run=_compiled_alone(setup, backend, before),
            reference="eager",
            other="compiled alone",
            together="compiled together",
            note=_REFED_OP_LEVEL if setup.localize == "op" else None,
        )
        tolerance = _tolerance(setup, backend, reference.run)
        return where_refed_starts(eager_step, refeed, rtol=tolerance.rtol, atol=tolerance.atol)


def _compiled_alone(setup: _Setup, backend: Backend, before: nn.Module) -> Callable[[str, Any], Any]:
    """Runs one module of a copy of ``before``, its forward compiled alone, on recorded inputs."""
    names = {name for name, _ in before.named_modules()}
    device = _model_device(before)

    def run(name: str, inputs: Any) -> Any:
        if name not in names:
            return NOT_REFED
        module = copy.deepcopy(before).get_submodule(name)
        args, kwargs = map_tensors(inputs, lambda tensor: tensor.to(device))
        with (
            torch.compiler.set_stance("default"),
            CompileWatch(fallback_random=not isinstance(backend, str) or backend == "inductor"),
            _randomness_off(True),
        ):
            return torch.compile(module.forward, **_compile_options(setup, backend))(*args, **kwargs)

    return run


def _ladder_rungs(backend: Backend) -> list[Backend]:
    if backend == "eager":
        return []
    if isinstance(backend, str) and backend in _LADDER:
        return [*_LADDER[: _LADDER.index(backend)], backend]
    return [*_LADDER, backend]


def _ladder_verdict(backend: Backend) -> str:
    if isinstance(backend, str) and backend in _LADDER_VERDICTS:
        return _LADDER_VERDICTS[backend]
    if isinstance(backend, str):
        return f"{backend.capitalize() if backend == 'inductor' else backend} code generation, not the model"
    return f"the backend {callable_name(backend)}, not the model"


def _backend_name(backend: Backend) -> str:
    return backend if isinstance(backend, str) else callable_name(backend)


def _reproduces(
    setup: _Setup,
    backend: Backend,
    step: int,
    references: dict[bool, _Reference],
    compile_target: CompileTarget | None = None,
) -> bool:
    """Whether training compiled this way differs from eager within ``step`` steps."""
    dropout_off = _decomposes_randomness(backend)
    reference = _reference(setup, dropout_off, references)
    try:
        compiled = _compiled_run(
            setup, backend, reference.dtype, dropout_off, until=step, compile_target=compile_target, strict=False
        )
    except Exception:  # noqa: BLE001 - a rung that cannot even start counts as differing
        return True
    if compiled.stop is not None:
        return True
    return _first_difference(reference.run, compiled.run, _tolerance(setup, backend, reference.run)) is not None


def _modules_reproducing(setup: _Setup, backend: Backend, step: int, references: dict[bool, _Reference]) -> str:
    """Compile one module at a time (top level first, then inside the only culprit)."""
    prefix, level, runs = "", "top-level module", 0
    culprit = ""
    while runs < _LOCALISATION_RUNS:
        children = _child_names(setup, prefix)
        if not children:
            break
        found = []
        for name, type_name in children:
            if runs >= _LOCALISATION_RUNS:
                break
            runs += 1
            if _reproduces(setup, backend, step, references, compile_target=_only(setup, name, backend)):
                found.append((name, type_name))
        if len(found) > 1 and not culprit:
            return _LOCALISED_SEVERAL.format(modules=", ".join(f"'{n}' ({t})" for n, t in found))
        if len(found) != 1:
            break
        culprit = f"'{found[0][0]}' ({found[0][1]})"
        prefix, level = found[0][0], f"submodule of '{found[0][0]}'"
    if not culprit:
        return _LOCALISED_NONE.format(level=level)
    return _LOCALISED.format(modules=culprit, level="module")


def _child_names(setup: _Setup, prefix: str) -> list[tuple[str, str]]:
    with torch.device("meta"):
        try:
            model = instantiate(setup.make_model)
        except Exception:  # noqa: BLE001 - a model that cannot be built on meta: no localisation
            return []
    module = model.get_submodule(prefix) if prefix else model
    return [
        (f"{prefix}.{name}" if prefix else name, type(child).__name__)
        for name, child in module.named_children()
        if any(True for _ in child.parameters())
    ]


def _only(setup: _Setup, path: str, backend: Backend) -> Callable[[nn.Module], nn.Module]:
    """Compile one submodule's forward (``Module.compile()`` on a submodule of torch.nn,
    such as a Linear, compiles nothing: Dynamo skips its frames)."""

    def compile_one(model: nn.Module) -> nn.Module:
        module = model.get_submodule(path)
        module.forward = torch.compile(module.forward, **_compile_options(setup, backend))
        return model

    return compile_one


def _rerun_command() -> str:
    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    node = current.rsplit(" (", 1)[0]
    return f"pytest '{node}'" if node else "python your_script.py"


# ----------------------------------------------------------- compiles cleanly


def assert_compiles_cleanly(
    fn: Callable[..., Any],
    calls: Sequence[Any],
    *,
    backend: Backend = "eager",
    dynamic: bool | None = None,
    max_graph_breaks: int | None = 0,
    max_recompiles: int | None = 0,
) -> None:
    """Compile ``fn`` (a function or module) and call it once per entry of ``calls`` (a
    tuple of arguments, a dict of keyword arguments, or one argument): the first call
    compiles, the others must not recompile (more than ``max_recompiles`` times) and no call
    may break the graph (more than ``max_graph_breaks`` times). A recompile-limit hit, a
    backend error and a run that compiles nothing fail too. Dynamo is reset before and after.
    """
    if isinstance(calls, (str, bytes)) or not isinstance(calls, Sequence) or not calls:
        raise ValueError(_NO_CALLS.format(value=calls))
    _check_budget(_CLEANLY, "max_graph_breaks", max_graph_breaks)
    _check_budget(_CLEANLY, "max_recompiles", max_recompiles)
    if backend == "inductor" and not _any_cuda_tensor(calls):
        _require_cpp_compiler(_CLEANLY)
    labels = _Labels(_CLEANLY, _cleanly_label(fn, backend, dynamic), len(calls), "call", 1)
    with preserved_state():
        stop, recompiles, health, limit = _watched_calls(fn, calls, backend, dynamic, max_recompiles)
    findings = []
    if stop is not None:
        findings.append(_stop_message(labels, stop, limit, max_recompiles))
    elif health.unique_graphs == 0:
        findings.append(_nothing_compiled(labels, _NOTHING_CAUSE_CLEANLY))
    breaks = _graph_break_finding(labels, health, max_graph_breaks)
    if breaks:
        findings.append(breaks)
    too_many = _recompile_count_finding(labels, recompiles, max_recompiles)
    if too_many and stop is None:
        findings.append(too_many)
    if findings:
        fallback = health.fallback_note()
        error = stop.error if stop is not None and stop.recompile is None else None
        raise CheckFailed("\n\n".join(findings) + (f"\n{fallback}" if fallback else "")) from error


def _watched_calls(
    fn: Callable[..., Any], calls: Sequence[Any], backend: Backend, dynamic: bool | None, budget: int | None
) -> tuple[_Stop | None, list[tuple[int, Recompile]], HealthSummary, int | None]:
    stop: _Stop | None = None
    recompiles: list[tuple[int, Recompile]] = []
    with CompileWatch(fallback_random=not isinstance(backend, str) or backend == "inductor") as watch:
        limit = getattr(torch._dynamo.config, "recompile_limit", None)
        compiled = torch.compile(fn, backend=backend, dynamic=dynamic)
        for number, call in enumerate(calls, start=1):
            args, kwargs = _arguments(call)
            strict = number > 1 and budget == 0
            try:
                with _fail_on_recompile() if strict else contextlib.nullcontext():
                    compiled(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - the compiled call failing is the finding
                stop = _stop(number, error, watch)
                break
            found = watch.new_recompiles()
            if number > 1:
                recompiles += [(number, recompile) for recompile in found]
        health = watch.summary()
    return stop, recompiles, health, limit


def _arguments(call: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if isinstance(call, tuple):
        return call, {}
    if isinstance(call, Mapping):
        return (), dict(call)
    return (call,), {}


def _any_cuda_tensor(calls: Sequence[Any]) -> bool:
    found = []
    map_tensors(list(calls), lambda tensor: found.append(tensor.is_cuda) or tensor)
    return any(found)


def _cleanly_label(fn: Any, backend: Backend, dynamic: bool | None) -> str:
    backend_text = f'"{backend}"' if isinstance(backend, str) else callable_name(backend)
    name = type(fn).__name__ if isinstance(fn, nn.Module) else callable_name(fn)
    extra = f", dynamic={dynamic!r}" if dynamic is not None else ""
    return f"torch.compile({name}, backend={backend_text}{extra})"
