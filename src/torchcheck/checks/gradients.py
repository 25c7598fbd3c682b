"""Gradient checks: correct custom backward, gradients reaching every parameter, and
samples in a batch not leaking into each other."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.autograd.gradcheck import GradcheckError

from torchcheck.checks._compare import callable_name, compare_tensors, format_index, indent
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.state import preserved_module, preserved_state

__all__ = ["assert_batch_independent", "assert_gradcheck", "assert_gradients_flow"]

_GRADCHECK_FAILED = """\
assert_gradcheck: the backward of {name} disagrees with finite differences for input \
{index} (shape {shape}, {dtype}).
Jacobian d outputs / d input[{index}], index = (output element, input element):
{details}
Greatest error at d {out_elem} / d input[{index}]{in_elem}: analytical {analytical:.6g}, \
numerical {numerical:.6g}.
torch.autograd.gradcheck: {torch_message}"""

_GRADCHECK_OTHER = """\
assert_gradcheck: torch.autograd.{which} failed for {name}:
{torch_message}"""

_NO_FLOW = """\
assert_gradients_flow: {count} of {total} parameters with requires_grad got no usable \
gradient from one forward/backward of {model} ({loss}):
{details}"""

_NO_FLOW_HINTS: dict[str, str] = {
    "none": "no gradient (None) -- not used in forward, or cut off by .detach(), "
    "torch.no_grad() or a non-differentiable op (argmax, .item(), integer casts)",
    "zero": "all-zero gradient -- multiplied by zero, masked out, or behind a constant",
    "nonfinite": "non-finite gradient (NaN/Inf) -- overflow, log/sqrt/division at 0",
}

_NOT_INDEPENDENT = """\
assert_batch_independent: in eval mode, outputs of {model} mix samples along dim {dim} \
(batch of {batch}):
{details}
A view/reshape that moves the batch dimension (x.view(T, B, C) where \
x.transpose(0, 1) was meant), or a batch-level op (mean/sum/softmax/norm over the batch \
dim) mixes samples; each sample's output must depend on its own input only."""


# ------------------------------------------------------------------ gradcheck


def assert_gradcheck(fn: Callable[..., Any], *inputs: Any, gradgrad: bool = False, **opts: Any) -> None:
    """Run ``torch.autograd.gradcheck`` (and ``gradgradcheck`` when ``gradgrad``).

    Floating-point tensor inputs are copied, promoted to float64 and made to require
    grad, because finite differences in float32 are too coarse to judge a backward.
    ``opts`` go to gradcheck (``eps``, ``atol``, ``rtol``, ``fast_mode``...). On a
    Jacobian mismatch the message names the input index and the greatest Jacobian
    error with its position.
    """
    opts.pop("raise_exception", None)  # failures are reported as CheckFailed either way
    prepared = tuple(_promote(x) for x in inputs)
    name = callable_name(fn)
    with preserved_state():
        try:
            torch.autograd.gradcheck(fn, prepared, raise_exception=True, **opts)
        except GradcheckError as error:
            fields = _jacobian_mismatch(fn, prepared, opts)
            if fields is None:
                message = _GRADCHECK_OTHER.format(which="gradcheck", name=name, torch_message=indent(str(error)))
            else:
                message = _GRADCHECK_FAILED.format(name=name, torch_message=_first_line(error), **fields)
            raise CheckFailed(message) from error
        if gradgrad:
            try:
                torch.autograd.gradgradcheck(fn, prepared, raise_exception=True, **opts)
            except GradcheckError as error:
                raise CheckFailed(
                    _GRADCHECK_OTHER.format(which="gradgradcheck", name=name, torch_message=indent(str(error)))
                ) from error


def _promote(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.detach().to(torch.float64).clone().requires_grad_(True)
    return value


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _float_outputs(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value] if value.is_floating_point() or value.is_complex() else []
    if isinstance(value, Mapping):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _float_outputs(item)]
    return []


_MAX_JACOBIAN_ENTRIES = 250_000


def _jacobian_mismatch(fn: Callable[..., Any], inputs: tuple[Any, ...], opts: Mapping[str, Any]) -> dict[str, Any] | None:
    """Dense analytical vs central-difference Jacobians, input by input: the message
    fields for the first input whose Jacobians disagree, or ``None`` when all agree
    (then gradcheck failed for another reason, and its own message is shown)."""
    eps = float(opts.get("eps", 1e-6))
    atol = float(opts.get("atol", 1e-5))
    rtol = float(opts.get("rtol", 1e-3))
    outputs = _float_outputs(fn(*inputs))
    n_out = sum(o.numel() for o in outputs)
    for index, x in enumerate(inputs):
        if not (isinstance(x, torch.Tensor) and x.requires_grad):
            continue
        if n_out * x.numel() > _MAX_JACOBIAN_ENTRIES:
            return None
        analytical = _analytical_jacobian(fn, inputs, index, n_out)
        numerical = _numerical_jacobian(fn, inputs, index, eps)
        lines = compare_tensors(analytical, numerical, rtol=rtol, atol=atol)
        if lines is None:
            continue
        flat = int((analytical - numerical).abs().flatten().argmax())
        row, col = divmod(flat, x.numel())
        return {
            "index": index,
            "shape": tuple(x.shape),
            "dtype": x.dtype,
            "details": indent("\n".join(lines)),
            "out_elem": _output_element(outputs, row),
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


def _analytical_jacobian(fn: Callable[..., Any], inputs: tuple[Any, ...], index: int, n_out: int) -> torch.Tensor:
    x = inputs[index]
    jac = torch.zeros(n_out, x.numel(), dtype=torch.float64)
    with torch.enable_grad():
        flat = torch.cat([o.reshape(-1) for o in _float_outputs(fn(*inputs))])
        for row in range(n_out):
            if not flat.requires_grad:
                break
            (grad,) = torch.autograd.grad(flat[row], x, retain_graph=True, allow_unused=True)
            if grad is not None:
                jac[row] = grad.reshape(-1).to(torch.float64)
    return jac


def _numerical_jacobian(fn: Callable[..., Any], inputs: tuple[Any, ...], index: int, eps: float) -> torch.Tensor:
    x = inputs[index]
    columns = []
    with torch.no_grad():
        base = x.detach().clone()
        for k in range(x.numel()):
            values = []
            for sign in (1.0, -1.0):
                shifted = base.clone()
                shifted.view(-1)[k] += sign * eps
                args = list(inputs)
                args[index] = shifted
                values.append(torch.cat([o.reshape(-1) for o in _float_outputs(fn(*args))]).to(torch.float64))
            columns.append((values[0] - values[1]) / (2 * eps))
    return torch.stack(columns, dim=1)


# --------------------------------------------------------------- gradients flow


@dataclass(frozen=True)
class _GradProblem:
    name: str
    kind: str  # "none" | "zero" | "nonfinite"
    detail: str = ""


def assert_gradients_flow(
    model: nn.Module,
    *inputs: Any,
    loss_fn: Callable[[Any], torch.Tensor] | None = None,
) -> None:
    """One forward and backward of ``model(*inputs)``; every parameter with
    ``requires_grad`` must receive a finite gradient that is not all zero.

    The default loss is a fixed random projection of every floating output (not a plain
    sum: the sum of a softmax or a normalised output is constant, which would zero true
    gradients). The model's mode, parameters and existing ``.grad`` are restored.
    """
    with preserved_state(), preserved_module(model), torch.enable_grad():
        for param in model.parameters():
            param.grad = None
        output = model(*inputs)
        loss = loss_fn(output) if loss_fn is not None else _projection_loss(output)
        loss_label = "loss_fn" if loss_fn is not None else "loss: random projection of the outputs"
        if isinstance(loss, torch.Tensor) and loss.requires_grad:
            loss.backward()
        problems = [p for p in (_grad_problem(n, t) for n, t in model.named_parameters() if t.requires_grad) if p]
        total = sum(1 for t in model.parameters() if t.requires_grad)
    if problems:
        raise CheckFailed(
            _NO_FLOW.format(
                count=len(problems),
                total=total,
                model=type(model).__name__,
                loss=loss_label,
                details=_group_problems(problems),
            )
        )


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


def _grad_problem(name: str, param: torch.Tensor) -> _GradProblem | None:
    grad = param.grad
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
            lines.append(f"  {hint}:")
            lines.extend(f"    {name}" for name in names)
    return "\n".join(lines)


# ---------------------------------------------------------- batch independence


def assert_batch_independent(model: nn.Module, inputs: Any, dim: int = 0) -> None:
    """In eval mode, output sample ``i`` must not depend on input sample ``j != i``.

    ``inputs`` is a tensor or a tuple/list of tensors that share the batch dimension
    ``dim``. With floating inputs the check differentiates each output sample with
    respect to the inputs (the gradient at other samples must be exactly zero); with
    integer inputs only (token ids) it perturbs one sample at a time instead. Model mode,
    parameters and RNG are restored.
    """
    args = tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,)
    batch = _batch_size(args, dim)
    with preserved_state(), preserved_module(model), torch.enable_grad():
        model.eval()
        if any(isinstance(a, torch.Tensor) and a.is_floating_point() for a in args):
            offenders = _mixing_by_gradient(model, args, dim, batch)
        else:
            offenders = _mixing_by_perturbation(model, args, dim, batch)
    if offenders:
        shown = offenders[:8]
        more = [f"  ... and {len(offenders) - len(shown)} more output samples"] if len(offenders) > 8 else []
        raise CheckFailed(
            _NOT_INDEPENDENT.format(
                model=type(model).__name__, dim=dim, batch=batch, details="\n".join([*shown, *more])
            )
        )


def _batch_size(args: tuple[Any, ...], dim: int) -> int:
    sizes = {a.shape[dim] for a in args if isinstance(a, torch.Tensor)}
    if len(sizes) != 1:
        raise ValueError(f"inputs must share one batch size along dim {dim}, got {sorted(sizes)}")
    (batch,) = sizes
    if batch < 2:
        raise ValueError("assert_batch_independent needs a batch of at least 2 samples")
    return batch


def _batched_outputs(output: Any, dim: int, batch: int) -> list[torch.Tensor]:
    outs = [o for o in _float_outputs(output) if o.dim() > dim and o.shape[dim] == batch]
    if not outs:
        raise ValueError(f"no floating output of the model has size {batch} along dim {dim}")
    return outs


def _samples(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)


def _mixing_by_gradient(model: nn.Module, args: tuple[Any, ...], dim: int, batch: int) -> list[str]:
    leaves = tuple(
        a.detach().clone().requires_grad_(True) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
        for a in args
    )
    diff_positions = [k for k, a in enumerate(leaves) if isinstance(a, torch.Tensor) and a.requires_grad]
    outputs = _batched_outputs(model(*leaves), dim, batch)
    generator = torch.Generator().manual_seed(0)
    weights = [torch.randn(o.shape, generator=generator).to(o.device, o.dtype) for o in outputs]
    lines = []
    for i in range(batch):
        loss = sum((o.select(dim, i) * w.select(dim, i)).sum() for o, w in zip(outputs, weights))
        if not isinstance(loss, torch.Tensor) or not loss.requires_grad:
            continue
        grads = torch.autograd.grad(loss, [leaves[k] for k in diff_positions], retain_graph=True, allow_unused=True)
        worst: tuple[float, int, int, str] | None = None
        others: list[int] = []
        own = 0.0
        for k, grad in zip(diff_positions, grads):
            if grad is None:
                continue
            for j in range(batch):
                sample = grad.select(dim, j).detach().abs().to(torch.float64)
                peak = float(torch.nan_to_num(sample, nan=float("inf")).max()) if sample.numel() else 0.0
                if j == i:
                    own = max(own, peak)
                elif peak != 0.0:
                    others.append(j)
                    if worst is None or peak > worst[0]:
                        flat = int(torch.nan_to_num(sample, nan=float("inf")).flatten().argmax())
                        worst = (peak, k, j, format_index(flat, sample.shape))
        if worst is not None:
            lines.append(
                f"  output sample {i} depends on input samples {_samples(sorted(set(others)))} "
                f"(greatest |d out[{i}] / d input[{worst[1]}]| = {worst[0]:.6g} at sample {worst[2]}, "
                f"index {worst[3]}; own sample: {own:.6g})"
            )
    return lines


def _perturb(arg: Any, dim: int, j: int) -> Any:
    if not isinstance(arg, torch.Tensor):
        return arg
    changed = arg.clone()
    sample = changed.select(dim, j)
    top = int(arg.max()) if arg.numel() else 0
    if arg.dtype == torch.bool:
        sample.logical_not_()
    elif top > 0:
        sample.copy_((sample + 1) % (top + 1))
    return changed


def _mixing_by_perturbation(model: nn.Module, args: tuple[Any, ...], dim: int, batch: int) -> list[str]:
    with torch.no_grad():
        base = [o.detach() for o in _batched_outputs(model(*args), dim, batch)]
        sources: dict[int, list[tuple[int, float]]] = {}
        for j in range(batch):
            changed = [o.detach() for o in _batched_outputs(model(*(_perturb(a, dim, j) for a in args)), dim, batch)]
            for i in range(batch):
                if i == j:
                    continue
                peak = max(
                    float((c.select(dim, i).to(torch.float64) - b.select(dim, i).to(torch.float64)).abs().max())
                    for c, b in zip(changed, base)
                )
                if peak != 0.0:
                    sources.setdefault(i, []).append((j, peak))
    return [
        f"  output sample {i} changes when input samples {_samples([j for j, _ in found])} change "
        f"(greatest abs difference {max(p for _, p in found):.6g})"
        for i, found in sorted(sources.items())
    ]
