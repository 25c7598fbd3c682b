"""Gradient accumulation: one step over micro-batches equals one step over the batch."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import callable_name, first_mismatch, indent
from torchcheck.checks._forward_effects import (
    BatchCoupled,
    ForwardEffects,
    apply_batch_coupled,
    coupled_terms,
    describe_coupled,
    describe_updated_buffers,
    observed_forwards,
)
from torchcheck.checks._gradient_noise import largest_gradient, noise_floor, noise_level_elements, without_noise
from torchcheck.checks._inputs import instantiate
from torchcheck.checks._localize_setting import localize_level
from torchcheck.checks._stochastic import RandomOps, random_ops_at_expected_value
from torchcheck.checks._train_mode import TrainModeLayers, module_list, recording_train_mode_layers
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.localize import BatchSplit, where_split_starts
from torchcheck.checks.seeding import seed_everything
from torchcheck.checks.state import preserved_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["assert_accumulation_equivalent"]

TrainFn = Callable[[nn.Module, torch.optim.Optimizer, list[Any], int], Any]

#: Seed for building every model and running every loop: the runs differ only in how
#: the batch is split.
_SEED = 0

#: How close (cosine of the parameter updates) a run must be to a candidate update to
#: be explained by it; rounding alone keeps equivalent updates far above this.
_SAME_DIRECTION = 0.99
#: How far the size of the update may be from ``accumulation_steps`` times the
#: whole-batch update for "loss not divided" to explain it.
_RATIO_SLACK = 0.05

_PREFIX = "assert_accumulation_equivalent: "

_BAD_STEPS = _PREFIX + "accumulation_steps must be an integer of at least 2, got {value!r}."

_NO_BATCH_DIMENSION = _PREFIX + (
    "the batch holds no tensor with a batch dimension to split into micro-batches; pass "
    "a tensor, a tuple such as (inputs, targets) or a dict of tensors."
)

_BATCH_SIZES_DIFFER = _PREFIX + (
    "every tensor of the batch is split along dim 0, but {path} has {size} rows while "
    "{first_path} has {batch_size}."
)

_NOT_DIVISIBLE = _PREFIX + (
    "the batch of {batch_size} does not split into {steps} equal micro-batches. Use a "
    "batch size divisible by accumulation_steps: a mean loss weights every sample "
    "equally only when the micro-batches are equal."
)

_TRAIN_FN_RAISED = _PREFIX + """{name} raised during the {run}:
  {error_type}: {error}"""

_WRONG_STEP_COUNT = _PREFIX + """{name} stepped the optimizer {count} times during the \
{run}; it must make exactly one optimizer step over the micro-batches it is given.{hint}"""

_HINT_STEP_PER_MICRO_BATCH = """
It steps once per micro-batch. Step (and zero the gradients) only after the last one:
    if (i + 1) % accumulation_steps == 0: optimizer.step(); optimizer.zero_grad()"""

_DIFFERS = _PREFIX + """one optimizer step over {steps} accumulated micro-batches of \
{micro_size} differs from one step over the whole batch of {batch_size}, at {kind} \
'{name}':
{details}
{cause}{notes}{where}"""

_NOTE_NOISE_GRADIENTS = """\
Compared on their gradients instead of the step: {count} element(s) whose gradient is \
rounding noise in both runs (at most {floor:.3g}, the model's largest being \
{largest:.3g}); a normalising optimizer (Adam, RMSprop) turns such noise into updates \
that need not agree."""

_CAUSE_STEP_AMPLIFIES = """\
Cause: the optimizer step, not the accumulation. The accumulated gradients equal the \
whole-batch gradients (greatest difference {difference:.3g}, the largest gradient being \
{largest:.3g}), so the micro-batches add up correctly; the step then differs. Either \
train_fn steps differently for several micro-batches (a learning rate or clipping \
threshold scaled by accumulation_steps), or a normalising optimizer (Adam, RMSprop) \
enlarges rounding differences of small gradients: then pass a tolerance you accept \
(rtol=, atol=)."""

_CAUSE_NOT_DIVIDED = """\
Cause: the loss is not divided by accumulation_steps. The accumulated update is \
{ratio:.3g} times the whole-batch update (cosine {cosine:.4f}): gradients of \
{steps} micro-batches add up. Backpropagate loss / accumulation_steps."""

_CAUSE_ZERO_GRAD = """\
Cause: gradients are zeroed on every micro-batch. The update equals one step on the \
last micro-batch alone (cosine {cosine:.4f}, {ratio:.3g} times its size; cosine with \
the whole-batch update {cosine_full:.4f}). Call optimizer.zero_grad() only after the \
optimizer step, not before each backward."""

_CAUSE_BATCH_STATISTICS = """\
Cause: batch-statistics layers in train mode: {modules} normalise each micro-batch of \
{micro_size} with its own mean and variance, not the batch of {batch_size}'s, so \
accumulation cannot be exact. Check with these layers in eval mode (model.eval() for \
them, or GroupNorm/LayerNorm), or pass a tolerance (rtol=, atol=) you accept."""

_CAUSE_COUPLED = """\
Cause: a term computed in the forward couples the samples of a batch: its value on the \
whole batch is neither the mean nor the sum of its values on the micro-batches.
{terms}
A router's load-balancing loss, or a loss averaged over the tokens of padded sequences, \
depends on the whole batch, so accumulating micro-batches cannot equal one step over it. \
{advice}"""

_ADVICE_DECLARE = """\
If the term is meant to be so, declare it: batch_coupled={pattern!r} multiplies it by \
zero in both runs (a term's name or its module's path, fnmatch patterns). A term folded \
into the model's own loss is switched off by a function instead: \
batch_coupled=lambda model: setattr(model, "router_aux_loss_coef", 0.0)."""

_ADVICE_MODEL_LOSS = """\
For a token-averaged loss, sum the per-token losses and divide by the token count of the \
whole batch (the same divisor in every micro-batch). A batch-coupled term the model adds \
to its own loss (a router's auxiliary loss) is switched off for the check by a function: \
batch_coupled=lambda model: setattr(model, "router_aux_loss_coef", 0.0)."""

_CAUSE_UPDATED_BUFFER = """\
Cause: {buffers} is updated by every forward from the samples it sees: one step over the \
batch updates it from all {batch_size}, the accumulated step from each micro-batch of \
{micro_size}, so it cannot agree by construction. (The check holds buffers that a \
forward updates at their value from the start of the step on every call, in both runs, \
so updates that do not depend on the data, such as spectral norm's power iteration, \
agree.) Put that module in eval mode in train_fn for this check, or pass a tolerance \
(rtol=, atol=) you accept."""

_CAUSE_RANDOM_LEFT_ON = """\
Cause: random integers drawn during training ({ops}): the draws for the batch and for \
its micro-batches differ in shape, so the samples get different numbers. Draw them \
outside train_fn, or from a generator seeded per sample."""

_CAUSE_UNKNOWN = """\
The update is {ratio:.3g} times the whole-batch update (cosine {cosine:.4f}). Check \
that each micro-batch's loss is divided by accumulation_steps, that gradients are \
zeroed only before the first micro-batch, and that the loss is a mean over samples \
(a mean over tokens of padded sequences weights micro-batches differently)."""

#: Names of the split parts in messages.
_ROOT = "batch"


@dataclass
class _Run:
    """One call of the user's loop: the model before and after, and what happened."""

    initial: dict[str, torch.Tensor]
    final: dict[str, torch.Tensor]
    buffers: dict[str, torch.Tensor]
    #: Each parameter's gradient when the optimizer stepped (absent where it had none).
    gradients: dict[str, torch.Tensor]
    steps: int
    layers: TrainModeLayers
    random_ops: RandomOps
    effects: ForwardEffects


@dataclass(frozen=True)
class _Setup:
    make_model: nn.Module | Callable[[], nn.Module]
    make_optimizer: Callable[[nn.Module], Any]
    train_fn: TrainFn
    batch_coupled: BatchCoupled = None

    @property
    def name(self) -> str:
        return callable_name(self.train_fn)


def assert_accumulation_equivalent(
    make_model: nn.Module | Callable[[], nn.Module],
    make_optimizer: Callable[[nn.Module], Any],
    train_fn: TrainFn,
    batch: Any,
    *,
    accumulation_steps: int,
    rtol: float | None = None,
    atol: float | None = None,
    batch_coupled: BatchCoupled = None,
    localize: str | None = None,
) -> None:
    """``train_fn(model, optimizer, micro_batches, accumulation_steps)`` is the user's
    loop making one optimizer step over ``micro_batches``. One step over
    ``accumulation_steps`` micro-batches (``batch`` split along dim 0: a tensor, each
    element of a tuple/list, each value of a dict) must give the same parameters and
    buffers as one step over the whole batch (``train_fn(model, optimizer, [batch], 1)``),
    within ``rtol``/``atol`` (default: assert_close's for each tensor's dtype). Elements
    whose gradient is rounding noise in both runs (a key bias before a softmax: below the
    dtype's rtol, at least 1e-6, of the model's largest gradient) are left out: Adam and
    other normalising optimizers turn that noise into updates that need not agree.

    Both runs build the model and optimizer with the same seed and start with every RNG
    seeded alike. On failure the message names the cause when it can tell: the loss not
    divided by ``accumulation_steps``, ``zero_grad`` on every micro-batch, a step on
    every micro-batch, batch-statistics layers (BatchNorm) in train mode, a term of the
    forward that couples the samples (a router's load-balancing loss), a buffer every
    forward updates from its data.

    Randomness is switched off in both runs, wherever it is spelled (``nn.Dropout``,
    ``F.dropout``, attention ``dropout_p``, ``nn.LSTM(dropout=)``, drop-path from
    ``bernoulli_``): every random draw of a float runs at its expected value, so
    dropout is the identity; masks drawn for a batch and for its micro-batches could
    never agree. Buffers a forward updates (spectral norm's ``u``) are held at their
    value from the start of the step on every call, in both runs.

    ``batch_coupled`` declares terms that depend on the whole batch by design: fnmatch
    patterns of a scalar's name (``"aux_loss"``, an output key or attribute set in
    forward) or of its module's path, multiplied by zero in both runs; or a function
    called on each freshly built model that switches them off (for a term the model
    adds to its own loss). ``make_optimizer`` may return ``(optimizer, scheduler)``;
    the scheduler is not stepped. RNG and global torch state are restored afterwards.

    On failure (unless ``localize="off"``; default ``--torchcheck-localize``, env
    ``TORCHCHECK_LOCALIZE``, then ``"op"``) both runs are replayed once more, recorded
    module by module: every micro-batch's module outputs are compared with the same rows
    of the whole batch's forward (all forwards of the step see the same weights), which
    names the first module that treats a micro-batch differently and, with ``"op"``, the
    operation and source line; or says that the forward agrees.
    """
    if isinstance(accumulation_steps, bool) or not isinstance(accumulation_steps, int) or accumulation_steps < 2:
        raise ValueError(_BAD_STEPS.format(value=accumulation_steps))
    level = localize_level(localize)
    micro_batches = split_batch(batch, accumulation_steps)
    batch_size = _batch_size(batch)
    setup = _Setup(make_model, make_optimizer, train_fn, batch_coupled)
    with preserved_state():
        whole = _run(setup, [batch], 1, "whole-batch step (accumulation_steps=1)")
        _require_one_step(setup, whole, "whole-batch step (accumulation_steps=1)")
        accumulated = _run(setup, micro_batches, accumulation_steps, f"step over {accumulation_steps} micro-batches")
        _require_one_step(setup, accumulated, f"step over {accumulation_steps} micro-batches")
        noise = noise_level_elements(whole.gradients, accumulated.gradients)
        mismatch = _first_difference(accumulated, whole, rtol, atol, noise)
        if mismatch is None:
            return
        kind, found = mismatch
        cause = _cause(setup, whole, accumulated, micro_batches[-1], accumulation_steps, batch_size, kind, found.path)
        notes = _noise_note(whole, noise) + _notes(whole)
        where = _where_it_starts(setup, batch, micro_batches, BatchSplit(accumulation_steps, batch_size), level, rtol, atol)
    raise CheckFailed(
        _DIFFERS.format(
            steps=accumulation_steps,
            micro_size=batch_size // accumulation_steps,
            batch_size=batch_size,
            kind=kind,
            name=found.path,
            details=indent(found.render()),
            cause=cause,
            notes=notes,
            where=where,
        )
    )


def _where_it_starts(
    setup: _Setup,
    batch: Any,
    micro_batches: list[Any],
    split: BatchSplit,
    level: str,
    rtol: float | None,
    atol: float | None,
) -> str:
    """Both runs replayed under recording (the same seeds, pinned buffers and randomness
    as the compared runs): only their forwards are compared, all made before the step."""

    def whole() -> None:
        _run(setup, [batch], 1, "whole-batch step (accumulation_steps=1)")

    def accumulated() -> None:
        _run(setup, micro_batches, split.parts, f"step over {split.parts} micro-batches")

    section = where_split_starts(whole, accumulated, split, level=level, rtol=rtol, atol=atol)
    return f"\n{section}" if section else ""


# ---------------------------------------------------------------- splitting


def split_batch(batch: Any, parts: int) -> list[Any]:
    """``batch`` as ``parts`` equal micro-batches along dim 0: tensors are split, tuples,
    lists and dicts (also ``BatchEncoding``) element by element, anything else (numbers,
    strings, 0-d tensors) is repeated in every part."""
    batch_size = _batch_size(batch)
    if batch_size % parts:
        raise ValueError(_NOT_DIVISIBLE.format(batch_size=batch_size, steps=parts))
    return [_slice(batch, start, start + batch_size // parts) for start in range(0, batch_size, batch_size // parts)]


def _batch_size(batch: Any) -> int:
    sized = list(_batched_tensors(batch, _ROOT))
    if not sized:
        raise ValueError(_NO_BATCH_DIMENSION)
    first_path, first = sized[0]
    for path, tensor in sized[1:]:
        if tensor.shape[0] != first.shape[0]:
            raise ValueError(
                _BATCH_SIZES_DIFFER.format(
                    path=path, size=tensor.shape[0], first_path=first_path, batch_size=first.shape[0]
                )
            )
    return int(first.shape[0])


def _batched_tensors(value: Any, path: str) -> Iterator[tuple[str, torch.Tensor]]:
    if isinstance(value, torch.Tensor):
        if value.dim() > 0:
            yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _batched_tensors(item, f"{path}[{key!r}]")
    elif isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            yield from _batched_tensors(item, f"{path}[{index}]")


def _slice(value: Any, start: int, stop: int) -> Any:
    if isinstance(value, torch.Tensor):
        return value[start:stop] if value.dim() > 0 else value
    if isinstance(value, Mapping):
        return _rebuilt_mapping(value, {key: _slice(item, start, stop) for key, item in value.items()})
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return type(value)(*(_slice(item, start, stop) for item in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_slice(item, start, stop) for item in value)
    return value


def _rebuilt_mapping(original: Mapping[Any, Any], items: dict[Any, Any]) -> Mapping[Any, Any]:
    """The same mapping type (``BatchEncoding`` takes a dict) or a plain dict."""
    try:
        return type(original)(items)
    except Exception:  # a mapping type that cannot be built from a dict
        return items


# ------------------------------------------------------------------- running


def _run(setup: _Setup, micro_batches: list[Any], steps: int, run: str) -> _Run:
    seed_everything(_SEED)
    model = instantiate(setup.make_model)
    apply_batch_coupled(model, setup.batch_coupled)
    made = setup.make_optimizer(model)
    optimizer = made[0] if isinstance(made, tuple) else made
    initial = _parameters(model)
    step_calls: list[int] = []
    gradients: dict[str, torch.Tensor] = {}
    seed_everything(_SEED)
    try:
        with (
            _counting_steps(optimizer, step_calls, _gradient_recorder(model, gradients)),
            recording_train_mode_layers(model) as layers,
            observed_forwards(model, pin_buffers=True, batch_coupled=setup.batch_coupled) as effects,
            random_ops_at_expected_value() as random_ops,
        ):
            setup.train_fn(model, optimizer, micro_batches, steps)
    except Exception as error:  # the user's loop failing is the finding
        raise CheckFailed(
            _TRAIN_FN_RAISED.format(name=setup.name, run=run, error_type=type(error).__name__, error=error)
        ) from error
    buffers = {name: b.detach().to("cpu", copy=True) for name, b in model.named_buffers()}
    return _Run(initial, _parameters(model), buffers, gradients, len(step_calls), layers, random_ops, effects)


def _parameters(model: nn.Module) -> dict[str, torch.Tensor]:
    return {name: p.detach().to("cpu", copy=True) for name, p in model.named_parameters()}


def _gradient_recorder(model: nn.Module, gradients: dict[str, torch.Tensor]) -> Callable[[], None]:
    """Records each parameter's gradient as the first optimizer step sees it."""
    named = list(model.named_parameters())

    def record() -> None:
        if gradients:
            return
        for name, parameter in named:
            if parameter.grad is not None:
                gradients[name] = parameter.grad.detach().to("cpu", copy=True)

    return record


@contextlib.contextmanager
def _counting_steps(
    optimizer: torch.optim.Optimizer, calls: list[int], before_step: Callable[[], None]
) -> Iterator[None]:
    def pre_hook(*_: Any) -> None:
        calls.append(1)
        before_step()

    handle = optimizer.register_step_pre_hook(pre_hook)
    try:
        yield
    finally:
        handle.remove()


def _require_one_step(setup: _Setup, run: _Run, description: str) -> None:
    if run.steps == 1:
        return
    per_micro_batch = run.steps > 1 and "micro-batches" in description
    raise CheckFailed(
        _WRONG_STEP_COUNT.format(
            name=setup.name,
            count=run.steps,
            run=description,
            hint=_HINT_STEP_PER_MICRO_BATCH if per_micro_batch else "",
        )
    )


# ---------------------------------------------------------------- diagnosis


def _largest_gradient(run: _Run) -> float:
    return largest_gradient(run.gradients)


def _noise_floor(whole: _Run, name: str) -> float:
    return noise_floor(whole.final[name].dtype, _largest_gradient(whole))


def _noise_note(whole: _Run, noise: dict[str, torch.Tensor]) -> str:
    count = sum(int(mask.sum()) for mask in noise.values())
    if not count:
        return ""
    name = next(iter(noise))
    return "\n" + _NOTE_NOISE_GRADIENTS.format(
        count=count, floor=_noise_floor(whole, name), largest=_largest_gradient(whole)
    )


def _first_difference(
    accumulated: _Run, whole: _Run, rtol: float | None, atol: float | None, noise: dict[str, torch.Tensor]
) -> tuple[str, Any] | None:
    for kind, actual, expected in (
        ("parameter", without_noise(accumulated.final, whole.final, noise), whole.final),
        ("buffer", accumulated.buffers, whole.buffers),
    ):
        for name, value in expected.items():
            found = first_mismatch(actual[name], value, path=name, rtol=rtol, atol=atol)
            if found is not None:
                return kind, found
    return None


def _gradients_agree(whole: _Run, accumulated: _Run) -> tuple[float, float] | None:
    """The greatest gradient difference and the largest gradient, when every gradient
    agrees within the dtype's rtol of the model's largest; ``None`` otherwise."""
    largest = _largest_gradient(whole)
    if largest == 0 or whole.gradients.keys() != accumulated.gradients.keys():
        return None
    difference = 0.0
    for name, gradient in whole.gradients.items():
        other = accumulated.gradients[name]
        if other.shape != gradient.shape:
            return None
        if gradient.numel():
            difference = max(difference, float((other.double() - gradient.double()).abs().max()))
        if difference > _noise_floor(whole, name):
            return None
    return difference, largest


def _cause(
    setup: _Setup,
    whole: _Run,
    accumulated: _Run,
    last_micro_batch: Any,
    steps: int,
    batch_size: int,
    kind: str = "parameter",
    name: str = "",
) -> str:
    if kind == "parameter":
        agreeing = _gradients_agree(whole, accumulated)
        if agreeing is not None:
            return _CAUSE_STEP_AMPLIFIES.format(difference=agreeing[0], largest=agreeing[1])
    update = _update(accumulated)
    whole_update = _update(whole)
    ratio, cosine = _ratio_and_cosine(update, whole_update)
    if cosine > _SAME_DIRECTION and abs(ratio - steps) <= _RATIO_SLACK * steps:
        return _CAUSE_NOT_DIVIDED.format(ratio=ratio, cosine=cosine, steps=steps)
    alone = _run(setup, [last_micro_batch], 1, "step over the last micro-batch alone")
    ratio_alone, cosine_alone = _ratio_and_cosine(update, _update(alone))
    if cosine_alone > _SAME_DIRECTION and cosine_alone > cosine:
        return _CAUSE_ZERO_GRAD.format(cosine=cosine_alone, ratio=ratio_alone, cosine_full=cosine)
    if accumulated.layers.batch_statistics:
        return _CAUSE_BATCH_STATISTICS.format(
            modules=module_list(accumulated.layers.batch_statistics), micro_size=batch_size // steps,
            batch_size=batch_size,
        )
    model_cause = _model_cause(whole, accumulated, steps, batch_size, kind, name)
    return model_cause or _CAUSE_UNKNOWN.format(ratio=ratio, cosine=cosine)


def _model_cause(whole: _Run, accumulated: _Run, steps: int, batch_size: int, kind: str, name: str) -> str | None:
    """A property of the model that the loop cannot help: a batch-coupled term, a
    buffer updated from the data by every forward, random integers."""
    coupled = coupled_terms(whole.effects, accumulated.effects)
    if coupled:
        return _CAUSE_COUPLED.format(terms=describe_coupled(coupled, "micro-batches"), advice=_advice(coupled[0]))
    if kind == "buffer" and name in whole.effects.updated_buffers:
        return _CAUSE_UPDATED_BUFFER.format(
            buffers=describe_updated_buffers(whole.effects, [name]), batch_size=batch_size,
            micro_size=batch_size // steps,
        )
    if whole.random_ops.left_on:
        return _CAUSE_RANDOM_LEFT_ON.format(ops=whole.random_ops.describe_left_on())
    return None


def _advice(term: Any) -> str:
    if not term.module:
        return _ADVICE_MODEL_LOSS
    return _ADVICE_DECLARE.format(pattern=(term.module,))


def _notes(whole: _Run) -> str:
    """What the check switched off, so that a reader knows what was compared."""
    lines = []
    note = whole.random_ops.note()
    if note:
        lines.append(note)
    if whole.effects.updated_buffers:
        lines.append(
            "Held at their value from the start of the step on every forward: "
            + describe_updated_buffers(whole.effects) + "."
        )
    if whole.effects.zeroed:
        lines.append("Declared batch-coupled and multiplied by zero: " + ", ".join(sorted(whole.effects.zeroed)) + ".")
    return "".join("\n" + line for line in lines)


def _update(run: _Run) -> torch.Tensor:
    """Every parameter's change in one float64 vector."""
    deltas = [
        (run.final[name].to(torch.float64) - run.initial[name].to(torch.float64)).flatten() for name in run.initial
    ]
    return torch.cat(deltas) if deltas else torch.zeros(0, dtype=torch.float64)


def _ratio_and_cosine(update: torch.Tensor, reference: torch.Tensor) -> tuple[float, float]:
    """How many times ``reference`` the projection of ``update`` on it is, and the
    cosine between them; ``nan`` where ``reference`` (or ``update``) is zero."""
    reference_norm = float(reference.norm())
    update_norm = float(update.norm())
    if reference_norm == 0 or update_norm == 0:
        return math.nan, math.nan
    dot = float(update @ reference)
    return dot / reference_norm**2, dot / (reference_norm * update_norm)
