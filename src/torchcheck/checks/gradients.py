"""Gradient checks: correct custom backward, gradients reaching every parameter, and
samples in a batch not leaking into each other."""

from __future__ import annotations

import contextlib
import copy
import fnmatch
import inspect
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.autograd.gradcheck import GradcheckError

from torchcheck.checks._all_pairs import all_pairs_dim, describe_all_pairs, output_name
from torchcheck.checks._compare import (
    callable_name,
    compare_tensors,
    default_tolerance,
    format_index,
    indent,
    iter_tensors,
)
from torchcheck.checks._gradcheck_cost import affordable_gradcheck_options, run_gradcheck
from torchcheck.checks._inputs import ModelInputs, instantiate, is_model_factory, unwrap_compiled
from torchcheck.checks._registration import fail_on_unregistered_parameters
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.state import capture_rng_state, preserved_module, preserved_state, restore_rng_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["assert_batch_independent", "assert_gradcheck", "assert_gradients_flow"]

_GRADCHECK_FAILED = """\
assert_gradcheck: the backward of {name} disagrees with finite differences for \
{label} (shape {shape}, {dtype}).
Jacobian d outputs / d {label}, index = (output element, input element):
{details}
Greatest error at d {out_elem} / d {label}{in_elem}: analytical {analytical:.6g}, \
numerical {numerical:.6g}.
torch.autograd.gradcheck: {torch_message}"""

_GRADCHECK_OTHER = """\
assert_gradcheck: torch.autograd.{which} failed for {name}:
{torch_message}"""

_NO_FLOW = """\
assert_gradients_flow: {count} of {total} parameters with requires_grad got no usable \
gradient from one forward/backward of {model} ({loss}):
{details}"""

#: Why values stop being finite; shared by every check that meets NaN or Inf.
_NONFINITE_CAUSE = "overflow, log/sqrt/division at 0"
_NONFINITE_OUTPUT = f"non-finite output (NaN/Inf) -- {_NONFINITE_CAUSE}"
_NONFINITE_GRADIENT = f"non-finite gradient (NaN/Inf) -- {_NONFINITE_CAUSE}"

_NO_FLOW_HINTS: dict[str, str] = {
    "none": "no gradient (None) -- not used in forward, or cut off by .detach(), "
    "torch.no_grad() or a non-differentiable op (argmax, .item(), integer casts)",
    "zero": "all-zero gradient, still zero after {steps} optimizer steps on a copy, so not "
    "explained by a zero-initialised multiplier (zero-init BatchNorm weight, LoRA B, zero "
    "head) -- multiplied by zero, masked out, dead activations, or behind a constant; "
    "name it in allow_zero= if this is intended",
    "nonfinite": _NONFINITE_GRADIENT,
}

# A parameter whose gradient is zero only because a zero-initialised multiplier sits
# behind it gets a gradient once that multiplier moves. Each probe step moves every
# parameter by this much against the sign of its gradient.
_PROBE_STEP = 1e-3
_PROBE_STEPS = 3

_NOT_FINITE = """\
assert_batch_independent: in eval mode, {model} computes NaN/Inf (batch of {batch} along \
dim {dim}), so whether it mixes samples cannot be judged:
  {hint}:
{details}
Fix the NaN/Inf first; assert_gradients_flow names the parameters whose gradients \
they reach."""

_NOT_INDEPENDENT = """\
assert_batch_independent: in eval mode, outputs of {model} mix samples along dim {dim} \
(batch of {batch}):
{details}
{causes}
Allowed: {tolerance} (rtol=, atol=)."""

_MIXING_CAUSES = """\
A view/reshape that moves the batch dimension (x.view(T, B, C) where \
x.transpose(0, 1) was meant), or a batch-level op (mean/sum/softmax/norm over the batch \
dim) mixes samples; each sample's output must depend on its own input only."""

_ALL_PAIRS = """\
assert_batch_independent: in eval mode, {model} compares samples with each other by \
construction (batch of {batch} along dim {dim}):
{pairs}
Entry [i, j] of such an output depends on samples i and j and on no other: an all-pairs \
product of two batch-indexed tensors (similarity logits such as image_embeds @ \
text_embeds.T in a contrastive model), not a leak. Batch independence cannot hold for \
such an output, so the other outputs were judged alone; to pass, check a module that \
returns only the per-sample outputs (the embeddings).
{others}"""

_OTHERS_INDEPENDENT = "The other outputs do not mix samples{names}."

_OTHERS_MIXING = """\
The other outputs mix samples too:
{details}
{causes}
Allowed: {tolerance} (rtol=, atol=)."""

_MODEL_RAISED = """\
assert_batch_independent: {model} raised in {call}:
  {error_type}: {error}
The inputs of that call:
{inputs}"""

_BACKWARD_AND_FORWARD = """\
{substitution}
The check changed samples one at a time because the backward through the model raised \
first:
{backward}"""

_CHECK_BROKE = """\
assert_batch_independent: the check could not judge the outputs of {model}: its own \
comparison of samples raised {error_type}: {error}
This is a limitation of torchcheck, not a finding about the model; please report it \
with the model's output and embedding shapes."""


# ------------------------------------------------------------------ gradcheck


@dataclass
class _GradcheckProblem:
    """What gradcheck differentiates: float64 copies of the floating inputs and of the
    parameters of every module involved, each with a label for messages."""

    target: Callable[..., Any]
    call: ModelInputs
    leaves: list[torch.Tensor] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    input_positions: list[int] = field(default_factory=list)

    @classmethod
    def build(cls, fn: Callable[..., Any], inputs: tuple[Any, ...], train: bool) -> _GradcheckProblem:
        target = _float64_module(fn, train) if isinstance(fn, nn.Module) else fn
        call = ModelInputs.from_inputs(inputs, target)
        values = [_float64_module(v, train) if isinstance(v, nn.Module) else v for v in call.values()]
        problem = cls(target, call.replaced(values))
        labels = _argument_labels(fn, problem.call)
        for position, (label, value) in enumerate(zip(labels, problem.call.values())):
            if isinstance(value, torch.Tensor) and value.is_floating_point():
                values[position] = problem._add(label, value.detach().to(torch.float64).clone().requires_grad_(True))
                problem.input_positions.append(position)
        problem.call = problem.call.replaced(values)
        if isinstance(target, nn.Module):
            problem._add_parameters(target, "")
        for label, value in zip(labels, problem.call.values()):
            if isinstance(value, nn.Module):
                problem._add_parameters(value, f" of {label}")
        return problem

    def _add(self, label: str, leaf: torch.Tensor) -> torch.Tensor:
        self.leaves.append(leaf)
        self.labels.append(label)
        return leaf

    def _add_parameters(self, module: nn.Module, suffix: str) -> None:
        for name, param in module.named_parameters():
            if param.requires_grad:
                self._add(f"parameter {name}{suffix}", param)

    def __call__(self, *leaves: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The floating outputs for the given input leaves. Parameter leaves are the
        modules' own tensors, which gradcheck perturbs in place."""
        return tuple(_float_outputs(self._output(leaves)))

    def _output(self, leaves: Sequence[torch.Tensor]) -> Any:
        values = self.call.values()
        for position, leaf in zip(self.input_positions, leaves):
            values[position] = leaf
        return self.call.replaced(values).call(self.target)

    def differentiable_output_labels(self) -> list[str]:
        """The paths (``output.logits``) of the outputs gradcheck differentiates, in its order."""
        with torch.enable_grad():
            output = self._output(self.leaves)
            return [path for path, tensor in iter_tensors(output)
                    if (tensor.is_floating_point() or tensor.is_complex()) and tensor.requires_grad]


def _argument_labels(fn: Callable[..., Any], call: ModelInputs) -> list[str]:
    """How messages name each argument of ``fn``: by its parameter name where the
    signature gives one (``input x``), else by position (``input[0]``)."""
    names = _positional_parameter_names(fn)
    positional = [f"input {names[i]}" if i < len(names) else f"input[{i}]" for i in range(len(call.args))]
    return positional + [f"input {key}" for key in call.kwargs]


def _positional_parameter_names(fn: Callable[..., Any]) -> list[str]:
    """The names that positional arguments of ``fn`` bind to, up to a ``*args``; for
    ``MyFunction.apply`` those of its ``forward`` after ``ctx``."""
    if isinstance(fn, nn.Module):
        fn = unwrap_compiled(fn).forward
    function_class = getattr(fn, "__self__", None)
    if isinstance(function_class, type) and issubclass(function_class, torch.autograd.Function):
        takes_ctx = function_class.setup_context is torch.autograd.Function.setup_context
        names = _positional_parameter_names(function_class.forward)
        return names[1:] if takes_ctx else names
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature
        return []
    names = []
    for parameter in parameters:
        if parameter.kind not in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            break
        names.append(parameter.name)
    return names


def _float64_module(module: nn.Module, train: bool) -> nn.Module:
    """A float64 copy in eval mode (dropout off) unless ``train``."""
    return copy.deepcopy(unwrap_compiled(module)).to(torch.float64).train(train)


def assert_gradcheck(
    fn: Callable[..., Any], *inputs: Any, gradgrad: bool = False, train: bool = False, **opts: Any
) -> None:
    """Run ``torch.autograd.gradcheck`` (and ``gradgradcheck`` when ``gradgrad``).

    Floating-point tensor inputs are copied, promoted to float64 and made to require
    grad, because finite differences in float32 are too coarse to judge a backward.
    When ``fn`` is an ``nn.Module``, or an input is one (``fn(module, x)``), a float64
    copy of it is used and its parameters are checked too; the copy is in eval mode
    (dropout off) unless ``train=True``. A single dict input is passed as keyword
    arguments. ``opts`` go to gradcheck (``eps``, ``atol``, ``rtol``, ``fast_mode``...).
    On a Jacobian mismatch the message names the input or parameter and the greatest
    Jacobian error with its position.
    """
    opts.pop("raise_exception", None)  # failures are reported as CheckFailed either way
    name = callable_name(type(fn) if isinstance(fn, nn.Module) else fn)
    with preserved_state():
        problem = _GradcheckProblem.build(fn, inputs, train)
        leaves = tuple(problem.leaves)
        opts = affordable_gradcheck_options(name, problem, leaves, opts, gradgrad)
        try:
            run_gradcheck(problem, leaves, opts)
        except GradcheckError as error:
            fields = _jacobian_mismatch(problem, opts)
            if fields is None:
                torch_message = _with_names(str(error), problem)
                message = _GRADCHECK_OTHER.format(which="gradcheck", name=name, torch_message=indent(torch_message))
            else:
                torch_message = _with_names(_first_line(error), problem)
                message = _GRADCHECK_FAILED.format(name=name, torch_message=torch_message, **fields)
            raise CheckFailed(message) from error
        if gradgrad:
            try:
                torch.autograd.gradgradcheck(problem, leaves, raise_exception=True, **opts)
            except GradcheckError as error:
                raise CheckFailed(
                    _GRADCHECK_OTHER.format(which="gradgradcheck", name=name, torch_message=indent(str(error)))
                ) from error


_TORCH_POSITIONS = re.compile(r"output (\d+) with respect to input (\d+)")


def _with_names(message: str, problem: _GradcheckProblem) -> str:
    """torch's "output 3 with respect to input 2" as "output.past_key_values.layers[1].keys
    with respect to parameter model.layers.0.mlp.up_proj.weight"."""
    if not _TORCH_POSITIONS.search(message):
        return message
    outputs = problem.differentiable_output_labels()

    def named(match: re.Match[str]) -> str:
        output, leaf = int(match[1]), int(match[2])
        output_label = outputs[output] if output < len(outputs) else match[0].split(" with")[0]
        leaf_label = problem.labels[leaf] if leaf < len(problem.labels) else f"input {leaf}"
        return f"{output_label} with respect to {leaf_label}"

    return _TORCH_POSITIONS.sub(named, message)


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _float_outputs(value: Any) -> list[torch.Tensor]:
    return [t for _, t in iter_tensors(value) if t.is_floating_point() or t.is_complex()]


_MAX_JACOBIAN_ENTRIES = 250_000


def _jacobian_mismatch(problem: _GradcheckProblem, opts: dict[str, Any]) -> dict[str, Any] | None:
    """Dense analytical vs central-difference Jacobians, leaf by leaf: the message
    fields for the first leaf whose Jacobians disagree, or ``None`` when all agree
    (then gradcheck failed for another reason, and its own message is shown)."""
    eps = float(opts.get("eps", 1e-6))
    atol = float(opts.get("atol", 1e-5))
    rtol = float(opts.get("rtol", 1e-3))
    leaves = tuple(problem.leaves)
    outputs = problem(*leaves)
    n_out = sum(o.numel() for o in outputs)
    for index, (label, x) in enumerate(zip(problem.labels, leaves)):
        if n_out * x.numel() > _MAX_JACOBIAN_ENTRIES:
            return None
        analytical = _analytical_jacobian(problem, leaves, index, n_out)
        numerical = _numerical_jacobian(problem, leaves, index, eps)
        lines = compare_tensors(analytical, numerical, rtol=rtol, atol=atol)
        if lines is None:
            continue
        flat = int((analytical - numerical).abs().flatten().argmax())
        row, col = divmod(flat, x.numel())
        return {
            "label": label,
            "shape": tuple(x.shape),
            "dtype": x.dtype,
            "details": indent("\n".join(lines)),
            "out_elem": _output_element(list(outputs), row),
            "in_elem": _subscript(col, x.shape),
            "analytical": float(analytical[row, col]),
            "numerical": float(numerical[row, col]),
        }
    return None


def _subscript(flat_index: int, shape: torch.Size) -> str:
    """``[1, 2]`` for a flat index into ``shape`` (empty for a scalar)."""
    coords = format_index(flat_index, shape).strip("(),")
    return f"[{coords}]" if coords else ""


def _output_element(outputs: list[torch.Tensor], row: int) -> str:
    for k, out in enumerate(outputs):
        if row < out.numel():
            return f"output[{k}]{_subscript(row, out.shape)}"
        row -= out.numel()
    return f"output element {row}"


def _analytical_jacobian(
    problem: _GradcheckProblem, leaves: tuple[torch.Tensor, ...], index: int, n_out: int
) -> torch.Tensor:
    x = leaves[index]
    jac = torch.zeros(n_out, x.numel(), dtype=torch.float64)
    with torch.enable_grad():
        flat = torch.cat([o.reshape(-1) for o in problem(*leaves)])
        for row in range(n_out):
            if not flat.requires_grad:
                break
            (grad,) = torch.autograd.grad(flat[row], x, retain_graph=True, allow_unused=True)
            if grad is not None:
                jac[row] = grad.reshape(-1).to(torch.float64)
    return jac


def _numerical_jacobian(
    problem: _GradcheckProblem, leaves: tuple[torch.Tensor, ...], index: int, eps: float
) -> torch.Tensor:
    """Central differences, perturbing the leaf in place (as gradcheck does: parameter
    leaves are read by the module itself) and restoring it after each entry."""
    x = leaves[index]
    columns = []
    with torch.no_grad():
        flat = x.view(-1)
        for k in range(x.numel()):
            original = flat[k].item()
            values = []
            for sign in (1.0, -1.0):
                flat[k] = original + sign * eps
                values.append(torch.cat([o.reshape(-1) for o in problem(*leaves)]).to(torch.float64))
            flat[k] = original
            columns.append((values[0] - values[1]) / (2 * eps))
    return torch.stack(columns, dim=1)


# --------------------------------------------------------------- gradients flow


@dataclass(frozen=True)
class _GradProblem:
    name: str
    kind: str  # "none" | "zero" | "nonfinite"
    detail: str = ""


def assert_gradients_flow(
    model: nn.Module | Callable[[], nn.Module],
    *inputs: Any,
    loss_fn: Callable[[Any], torch.Tensor] | None = None,
    allow_zero: Sequence[str] = (),
) -> None:
    """One forward and backward of ``model(*inputs)``; every parameter with
    ``requires_grad`` must receive a finite gradient that is not all zero.

    ``model`` is an instance (restored afterwards: mode, parameters, ``.grad``) or a
    factory. A single dict input is passed as keyword arguments. The default loss is a
    fixed random projection of every floating output (not a plain sum: the sum of a
    softmax or a normalised output is constant, which would zero true gradients).

    A ``None`` gradient always fails. An all-zero gradient fails only when it stays
    zero after a few optimizer steps on a copy of the model: behind a zero-initialised
    multiplier (a zero-init BatchNorm weight, LoRA's B, a zero head) the gradient is
    legitimately zero until that multiplier moves. ``allow_zero`` names parameters (or
    fnmatch patterns) whose all-zero gradient is expected anyway.
    """
    if not isinstance(model, nn.Module) and is_model_factory(model):
        model = instantiate(model)
    plain = unwrap_compiled(model)
    fail_on_unregistered_parameters("assert_gradients_flow", plain)
    with preserved_state(), preserved_module(plain), torch.enable_grad():
        rng = capture_rng_state()
        call = ModelInputs.from_inputs(inputs, model)
        grads = _gradients(model, plain, call, loss_fn)
        problems = [p for p in (_grad_problem(n, g) for n, g in grads.items()) if p]
        unexplained_zero = _unexplained_zero(plain, call, loss_fn, problems, allow_zero, rng)
    problems = [p for p in problems if p.kind != "zero" or p.name in unexplained_zero]
    if problems:
        raise CheckFailed(
            _NO_FLOW.format(
                count=len(problems),
                total=len(grads),
                model=type(plain).__name__,
                loss="loss_fn" if loss_fn is not None else "loss: random projection of the outputs",
                details=_group_problems(problems),
            )
        )


def _gradients(
    model: nn.Module, plain: nn.Module, call: ModelInputs, loss_fn: Callable[[Any], torch.Tensor] | None
) -> dict[str, torch.Tensor | None]:
    """One forward/backward from zeroed gradients: each trainable parameter's ``.grad``."""
    for param in plain.parameters():
        param.grad = None
    output = call.call(model)
    loss = loss_fn(output) if loss_fn is not None else _projection_loss(output)
    if isinstance(loss, torch.Tensor) and loss.requires_grad:
        loss.backward()
    return {n: t.grad for n, t in plain.named_parameters() if t.requires_grad}


def _unexplained_zero(
    plain: nn.Module,
    call: ModelInputs,
    loss_fn: Callable[[Any], torch.Tensor] | None,
    problems: list[_GradProblem],
    allow_zero: Sequence[str],
    rng: Any,
) -> set[str]:
    """Names of all-zero gradients that are neither allowed nor explained by a
    zero-initialised multiplier: still zero after a few sign-of-gradient steps on a
    copy (the same random numbers each time, so dropout cannot explain anything)."""
    zero = {p.name for p in problems if p.kind == "zero" and not _allowed(p.name, allow_zero)}
    if not zero:
        return zero
    probe = copy.deepcopy(plain)
    for _ in range(_PROBE_STEPS):
        _sign_step(probe)
        restore_rng_state(rng)
        grads = _gradients(probe, probe, call, loss_fn)
        zero = {n for n in zero if not _finite_nonzero(grads.get(n))}
        if not zero:
            break
    return zero


def _allowed(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def _sign_step(model: nn.Module) -> None:
    with torch.no_grad():
        for param in model.parameters():
            if param.grad is not None:
                param.sub_(torch.nan_to_num(param.grad).sign() * _PROBE_STEP)


def _finite_nonzero(grad: torch.Tensor | None) -> bool:
    return grad is not None and bool(torch.isfinite(grad).all()) and bool((grad != 0).any())


def _projection_loss(output: Any) -> torch.Tensor:
    generator = torch.Generator().manual_seed(0)
    total: torch.Tensor | None = None
    for tensor in _float_outputs(output):
        if not tensor.requires_grad:
            continue
        weight = torch.randn(tensor.shape, generator=generator, dtype=torch.float32).to(tensor.device, tensor.dtype)
        term = (tensor * weight).sum()
        total = term if total is None else total + term
    return total if total is not None else torch.zeros(())


def _grad_problem(name: str, grad: torch.Tensor | None) -> _GradProblem | None:
    if grad is None:
        return _GradProblem(name, "none")
    finite = torch.isfinite(grad)
    if not bool(finite.all()):
        nan = int(torch.isnan(grad).sum())
        inf = int(torch.isinf(grad).sum())
        return _GradProblem(name, "nonfinite", f"{nan} NaN, {inf} Inf of {grad.numel()}")
    if not bool((grad != 0).any()):
        return _GradProblem(name, "zero")
    return None


def _group_problems(problems: Sequence[_GradProblem]) -> str:
    lines = []
    for kind, hint in _NO_FLOW_HINTS.items():
        names = [p.name + (f" ({p.detail})" if p.detail else "") for p in problems if p.kind == kind]
        if names:
            lines.append(f"  {hint.format(steps=_PROBE_STEPS)}:")
            lines.extend(f"    {name}" for name in names)
    return "\n".join(lines)


# ---------------------------------------------------------- batch independence


def assert_batch_independent(
    model: nn.Module | Callable[[], nn.Module],
    inputs: Any,
    dim: int = 0,
    *,
    rtol: float | None = None,
    atol: float | None = None,
) -> None:
    """In eval mode, output sample ``i`` must not depend on input sample ``j != i``.

    ``model`` is an instance (restored afterwards) or a factory.

    ``inputs`` is a tensor, a tuple/list of tensors, or a dict of them (passed as
    keyword arguments, e.g. ``input_ids`` and ``attention_mask``) that share the batch
    dimension ``dim``. The check differentiates each output sample with respect to the
    floating inputs and to the outputs of the model's embedding layers (the floating
    form of token ids); integer inputs themselves (token ids, masks, lengths) are never
    changed. The gradient at another sample must stay within ``atol + rtol`` times the
    greatest gradient at the sample's own input (default: assert_close's tolerances for
    the output's dtype), so rounding in batched kernels (a mixture of experts grouping
    tokens) is not mixing. Only when neither exists, or when the backward through the
    model raises (a cache written in place), does it change one sample at a time,
    giving it the inputs of another sample, so every value stays valid. An
    exception from the model is reported with the call that raised and its inputs.
    Model mode, parameters and RNG are restored.
    """
    if not isinstance(model, nn.Module) and is_model_factory(model):
        model = instantiate(model)
    call = _batch_call(model, inputs)
    batch = _batch_size(call.values(), dim)
    probe = _BatchProbe(model, call, dim, batch, rtol, atol)
    with preserved_state(), preserved_module(unwrap_compiled(model)), torch.enable_grad():
        model.eval()
        findings = _probe_findings(probe)
    if findings.nonfinite:
        hint = _NONFINITE_OUTPUT if findings.nonfinite_outputs else _NONFINITE_GRADIENT
        details = _first_lines(findings.nonfinite, "more")
        raise CheckFailed(_NOT_FINITE.format(model=probe.name, batch=batch, dim=dim, hint=hint, details=details))
    if findings.all_pairs:
        raise CheckFailed(_all_pairs_message(probe.name, batch, dim, findings))
    if findings.mixing:
        details = _first_lines(findings.mixing, "more output samples")
        raise CheckFailed(
            _NOT_INDEPENDENT.format(
                model=probe.name, dim=dim, batch=batch, details=details, tolerance=findings.tolerance,
                causes=_MIXING_CAUSES,
            )
        )


def _all_pairs_message(model: str, batch: int, dim: int, findings: _BatchFindings) -> str:
    pairs = "\n".join(f"  {line}" for line in findings.all_pairs)
    if findings.mixing:
        details = _first_lines(findings.mixing, "more lines")
        others = _OTHERS_MIXING.format(details=details, causes=_MIXING_CAUSES, tolerance=findings.tolerance)
    else:
        shown = findings.independent_outputs
        names = f" ({', '.join(f'`{name}`' for name in shown)})" if shown else ""
        others = _OTHERS_INDEPENDENT.format(names=names)
    return _ALL_PAIRS.format(model=model, batch=batch, dim=dim, pairs=pairs, others=others)


def _probe_findings(probe: _BatchProbe) -> _BatchFindings:
    """Judge by gradients; by substitution when nothing floating is per sample or the
    backward through the model raises. An error of the check's own machinery (not of
    the model, which ``_forward`` and ``_gradients`` report) names what it could not do."""
    try:
        try:
            findings = probe.by_gradient()
        except _BackwardFailed as failed:
            return _by_substitution_after(probe, failed.report)
        return probe.by_substitution() if findings is None else findings
    except (CheckFailed, _NotJudgeable):
        raise
    except Exception as error:
        raise CheckFailed(
            _CHECK_BROKE.format(model=probe.name, error_type=type(error).__name__, error=_first_line(error))
        ) from error


def _by_substitution_after(probe: _BatchProbe, backward_report: CheckFailed) -> _BatchFindings:
    """Fall back to substitution after the backward raised; if the model raises there
    too, report both, since the backward is what made the check change samples."""
    try:
        return probe.by_substitution()
    except CheckFailed as error:
        raise CheckFailed(_BACKWARD_AND_FORWARD.format(substitution=error, backward=backward_report)) from error


class _BackwardFailed(Exception):
    """The backward through the user's model raised (a forward that writes a cache in
    place, say): the caller falls back to judging by substitution."""

    def __init__(self, report: CheckFailed) -> None:
        super().__init__(str(report))
        self.report = report


class _NotJudgeable(ValueError):
    """The inputs or outputs give the check nothing to judge (a usage error)."""


@dataclass
class _BatchFindings:
    """What the batch-independence check found: samples that mix, and values that are
    not finite (which make any verdict on mixing meaningless: NaN - NaN is not 0)."""

    mixing: list[str] = field(default_factory=list)
    nonfinite: list[str] = field(default_factory=list)
    nonfinite_outputs: bool = False
    tolerance: str = ""
    all_pairs: list[str] = field(default_factory=list)  # outputs pairing samples by construction
    independent_outputs: list[str] = field(default_factory=list)  # judged alone beside them


@dataclass
class _Embedded:
    """Outputs of the model's embedding layers, made leaves to differentiate."""

    leaves: list[torch.Tensor] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)


class _BatchProbe:
    """Runs the user's model for the batch-independence check and judges its outputs."""

    def __init__(
        self, model: nn.Module, call: ModelInputs, dim: int, batch: int, rtol: float | None, atol: float | None
    ) -> None:
        self.model = model
        self.call = call
        self.dim = dim
        self.batch = batch
        self.rtol = rtol
        self.atol = atol
        self.name = type(unwrap_compiled(model)).__name__

    # ----------------------------------------------------------- gradients

    def by_gradient(self) -> _BatchFindings | None:
        """Mixing judged by gradients, or ``None`` when nothing floating is per sample."""
        values = [
            a.detach().clone().requires_grad_(True) if _is_floating(a) else a for a in self.call.values()
        ]
        leaves = [a for a in values if _is_floating(a)]
        labels = [label for (label, a) in self.call.labelled() if _is_floating(a)]
        with self._embedding_leaves() as embedded:
            output = self._forward(self.call.replaced(values), "the forward on the inputs as given")
        leaves += embedded.leaves
        labels += embedded.labels
        if not leaves:
            return None
        named = _batched_named_outputs(output, self.dim, self.batch)
        outputs = [o for _, o in named]
        findings = _BatchFindings(nonfinite=_nonfinite_outputs(outputs))
        if findings.nonfinite:
            findings.nonfinite_outputs = True
            return findings
        rtol, atol = self._tolerance(outputs)
        findings.tolerance = f"|d out[i] / d input at another sample| <= {atol:g} + {rtol:g} x the greatest at sample i"
        self._judge_outputs(findings, outputs, leaves, labels, rtol, atol)
        if findings.mixing:
            self._set_apart_all_pairs(findings, named, leaves, labels, rtol, atol)
        return findings

    def _judge_outputs(
        self,
        findings: _BatchFindings,
        outputs: list[torch.Tensor],
        leaves: list[torch.Tensor],
        labels: list[str],
        rtol: float,
        atol: float,
    ) -> None:
        generator = torch.Generator().manual_seed(0)
        weights = [torch.randn(o.shape, generator=generator).to(o.device, o.dtype) for o in outputs]
        for i in range(self.batch):
            loss = sum((o.select(self.dim, i) * w.select(self.dim, i)).sum() for o, w in zip(outputs, weights))
            if isinstance(loss, torch.Tensor) and loss.requires_grad:
                grads = self._gradients(loss, leaves, i)
                self._judge_gradients(findings, i, grads, labels, rtol, atol)

    def _set_apart_all_pairs(
        self,
        findings: _BatchFindings,
        named: list[tuple[str, torch.Tensor]],
        leaves: list[torch.Tensor],
        labels: list[str],
        rtol: float,
        atol: float,
    ) -> None:
        """When outputs pair every sample with every other by construction (similarity
        logits), name them and judge each other output alone, so the message says
        which of those mix, if any."""

        def peaks(loss: torch.Tensor, i: int) -> list[float] | None:
            return self._sample_peaks(self._gradients(loss, leaves, i))

        paired = {}
        for path, output in named:
            pair_dim = all_pairs_dim(output, self.dim, self.batch, peaks, rtol, atol)
            if pair_dim is not None:
                paired[path] = describe_all_pairs(path, output, self.dim, pair_dim)
        if not paired:
            return
        findings.all_pairs = list(paired.values())
        findings.mixing = []
        for path, output in named:
            if path in paired:
                continue
            alone = _BatchFindings()
            self._judge_outputs(alone, [output], leaves, labels, rtol, atol)
            if alone.mixing:
                findings.mixing += [f"  output `{output_name(path)}`:", *(f"  {line}" for line in alone.mixing)]
            else:
                findings.independent_outputs.append(output_name(path))

    def _sample_peaks(self, grads: Sequence[torch.Tensor | None]) -> list[float] | None:
        """The greatest |gradient| at each input sample, over all leaves; ``None`` when
        a gradient is not finite."""
        peaks = [0.0] * self.batch
        for grad in grads:
            if grad is None:
                continue
            if _nonfinite_count(grad) is not None:
                return None
            for j in range(self.batch):
                sample = grad.select(self.dim, j).detach().abs()
                if sample.numel():
                    peaks[j] = max(peaks[j], float(sample.max()))
        return peaks

    @contextlib.contextmanager
    def _embedding_leaves(self) -> Iterator[_Embedded]:
        """While the model runs: every embedding layer whose indices have the shape of
        an integer input returns its output as a fresh leaf, recorded for gradients."""
        embedded = _Embedded()
        shapes = {tuple(a.shape) for a in self.call.values() if _is_batched_integer(a, self.dim, self.batch)}
        plain = unwrap_compiled(self.model)
        paths = {id(module): path for path, module in plain.named_modules()}

        def hook(module: nn.Module, args: tuple[Any, ...], output: Any) -> Any:
            indices = args[0] if args else None
            if not isinstance(output, torch.Tensor) or not isinstance(indices, torch.Tensor):
                return None
            if tuple(indices.shape) not in shapes or not self._per_sample_embedding(indices, output):
                return None
            leaf = output.detach().requires_grad_(True)
            embedded.leaves.append(leaf)
            embedded.labels.append(f"embedding output of '{paths.get(id(module), type(module).__name__)}'")
            return leaf

        handles = [
            module.register_forward_hook(hook) for module in plain.modules() if isinstance(module, nn.Embedding)
        ] if shapes else []
        try:
            yield embedded
        finally:
            for handle in handles:
                handle.remove()

    def _per_sample_embedding(self, indices: torch.Tensor, output: torch.Tensor) -> bool:
        """Whether an embedding output holds one row per index, batch dimension included.
        A learned positional embedding may look up ``arange(seq)`` and return
        ``[1, seq, d]`` shared by every sample: that is not a per-sample input."""
        return (
            output.is_floating_point()
            and output.shape[: indices.dim()] == indices.shape
            and output.dim() > self.dim
            and output.shape[self.dim] == self.batch
        )

    def _gradients(self, loss: torch.Tensor, leaves: list[torch.Tensor], i: int) -> tuple[torch.Tensor | None, ...]:
        try:
            return torch.autograd.grad(loss, leaves, retain_graph=True, allow_unused=True)
        except Exception as error:  # the user's backward failing: judged by substitution instead
            raise _BackwardFailed(self._raised(error, f"the backward from output sample {i}", self.call)) from error

    def _judge_gradients(
        self,
        findings: _BatchFindings,
        i: int,
        grads: Sequence[torch.Tensor | None],
        labels: list[str],
        rtol: float,
        atol: float,
    ) -> None:
        peaks: list[tuple[float, str, int, str]] = []  # (peak, leaf label, sample, index)
        own = 0.0
        for label, grad in zip(labels, grads):
            if grad is None:
                continue
            count = _nonfinite_count(grad)
            if count is not None:
                findings.nonfinite.append(f"    d out[{i}] / d {label}: {count} elements")
                continue
            for j in range(self.batch):
                sample = grad.select(self.dim, j).detach().abs().to(torch.float64)
                peak = float(sample.max()) if sample.numel() else 0.0
                if j == i:
                    own = max(own, peak)
                elif peak != 0.0:
                    peaks.append((peak, label, j, format_index(int(sample.flatten().argmax()), sample.shape)))
        allowed = atol + rtol * own
        mixing = [p for p in peaks if p[0] > allowed]
        if mixing:
            worst = max(mixing)
            others = sorted({p[2] for p in mixing})
            findings.mixing.append(
                f"  output sample {i} depends on input samples {_samples(others)} "
                f"(greatest |d out[{i}] / d {worst[1]}| = {worst[0]:.6g} at sample {worst[2]}, "
                f"index {worst[3]}; own sample: {own:.6g})"
            )

    # --------------------------------------------------------- substitution

    def by_substitution(self) -> _BatchFindings:
        """Integer inputs only, and no embedding layer: give sample ``j`` the inputs of
        sample ``j + 1`` (every value stays one the model accepts) and see whether
        other samples' outputs move."""
        findings = _BatchFindings(nonfinite_outputs=True)
        with torch.no_grad():
            base = [o.detach() for o in _batched_outputs(self._forward(self.call, "the forward"), self.dim, self.batch)]
            findings.nonfinite = _nonfinite_outputs(base)
            if findings.nonfinite:
                return findings
            rtol, atol = self._tolerance(base)
            findings.tolerance = f"|change| <= {atol:g} + {rtol:g} x |output| elementwise"
            sources: dict[int, list[tuple[int, float]]] = {}
            for j in range(self.batch):
                donor = (j + 1) % self.batch
                changed_call = self.call.replaced([_with_sample(a, self.dim, j, donor) for a in self.call.values()])
                if _same_inputs(changed_call, self.call):
                    continue
                when = f"the forward with input sample {j} replaced by sample {donor}"
                changed = [o.detach() for o in _batched_outputs(self._forward(changed_call, when), self.dim, self.batch)]
                findings.nonfinite += _nonfinite_outputs(changed, f" with input sample {j} changed")
                if findings.nonfinite:
                    return findings
                for i, peak in self._moved_samples(base, changed, j, rtol, atol):
                    sources.setdefault(i, []).append((j, peak))
        findings.mixing = [
            f"  output sample {i} changes when input samples {_samples([j for j, _ in found])} change "
            f"(greatest abs difference {max(p for _, p in found):.6g})"
            for i, found in sorted(sources.items())
        ]
        return findings

    def _moved_samples(
        self, base: list[torch.Tensor], changed: list[torch.Tensor], j: int, rtol: float, atol: float
    ) -> Iterator[tuple[int, float]]:
        for i in range(self.batch):
            if i == j:
                continue
            peak, beyond = 0.0, False
            for c, b in zip(changed, base):
                after, before = c.select(self.dim, i).to(torch.float64), b.select(self.dim, i).to(torch.float64)
                difference = (after - before).abs()
                peak = max(peak, float(difference.max()) if difference.numel() else 0.0)
                beyond = beyond or bool((difference > atol + rtol * before.abs()).any())
            if beyond:
                yield i, peak

    # ------------------------------------------------------------- helpers

    def _tolerance(self, outputs: list[torch.Tensor]) -> tuple[float, float]:
        rtol, atol = default_tolerance(outputs[0].dtype)
        return (rtol if self.rtol is None else self.rtol), (atol if self.atol is None else self.atol)

    def _forward(self, call: ModelInputs, description: str) -> Any:
        try:
            return call.call(self.model)
        except CheckFailed:
            raise
        except Exception as error:  # the user's model failing is reported with its call
            raise self._raised(error, description, call) from error

    def _raised(self, error: Exception, description: str, call: ModelInputs) -> CheckFailed:
        inputs = "\n".join(f"  {label}: {_describe_input(value)}" for label, value in call.labelled())
        return CheckFailed(
            _MODEL_RAISED.format(
                model=self.name, call=description, error_type=type(error).__name__,
                error=_first_line(error), inputs=inputs,
            )
        )


def _is_floating(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def _is_batched_integer(value: Any, dim: int, batch: int) -> bool:
    return (
        isinstance(value, torch.Tensor)
        and not value.is_floating_point()
        and value.dim() > dim
        and value.shape[dim] == batch
    )


def _with_sample(value: Any, dim: int, j: int, donor: int) -> Any:
    """``value`` with sample ``j`` replaced by sample ``donor`` (tensors with a batch dim)."""
    if not isinstance(value, torch.Tensor) or value.dim() <= dim:
        return value
    changed = value.clone()
    changed.select(dim, j).copy_(value.select(dim, donor))
    return changed


def _same_inputs(a: ModelInputs, b: ModelInputs) -> bool:
    return all(
        not isinstance(x, torch.Tensor) or torch.equal(x, y) for x, y in zip(a.values(), b.values())
    )


_SHOWN_VALUES = 32


def _describe_input(value: Any) -> str:
    if not isinstance(value, torch.Tensor):
        return repr(value)[:80]
    text = f"{str(value.dtype).replace('torch.', '')} of shape {tuple(value.shape)}"
    if not value.is_floating_point() and value.numel() <= _SHOWN_VALUES:
        text += f" = {value.tolist()}"
    return text


def _first_lines(lines: list[str], what: str, shown: int = 8) -> str:
    more = [f"  ... and {len(lines) - shown} {what}"] if len(lines) > shown else []
    return "\n".join([*lines[:shown], *more])


def _nonfinite_count(tensor: torch.Tensor) -> str | None:
    """``"3 NaN, 1 Inf of 12"`` when ``tensor`` holds non-finite values, else ``None``."""
    if bool(torch.isfinite(tensor).all()):
        return None
    nan, inf = int(torch.isnan(tensor).sum()), int(torch.isinf(tensor).sum())
    return f"{nan} NaN, {inf} Inf of {tensor.numel()}"


def _nonfinite_outputs(outputs: list[torch.Tensor], when: str = "") -> list[str]:
    lines = []
    for position, output in enumerate(outputs):
        count = _nonfinite_count(output.detach())
        if count is not None:
            lines.append(f"    output {position}{when}: {count} elements")
    return lines


def _batch_call(model: nn.Module, inputs: Any) -> ModelInputs:
    if isinstance(inputs, (list, tuple)):
        return ModelInputs.from_inputs(tuple(inputs), model)
    return ModelInputs.from_inputs((inputs,), model)


def _batch_size(values: list[Any], dim: int) -> int:
    sizes = {a.shape[dim] for a in values if isinstance(a, torch.Tensor) and a.dim() > dim}
    if len(sizes) != 1:
        raise ValueError(f"inputs must share one batch size along dim {dim}, got {sorted(sizes)}")
    (batch,) = sizes
    if batch < 2:
        raise ValueError("assert_batch_independent needs a batch of at least 2 samples")
    return batch


def _batched_outputs(output: Any, dim: int, batch: int) -> list[torch.Tensor]:
    return [o for _, o in _batched_named_outputs(output, dim, batch)]


def _batched_named_outputs(output: Any, dim: int, batch: int) -> list[tuple[str, torch.Tensor]]:
    """The floating outputs with ``batch`` samples along ``dim``, each with its path."""
    outs = [
        (path, o) for path, o in iter_tensors(output)
        if (o.is_floating_point() or o.is_complex()) and o.dim() > dim and o.shape[dim] == batch
    ]
    if not outs:
        raise _NotJudgeable(f"no floating output of the model has size {batch} along dim {dim}")
    return outs


def _samples(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)
