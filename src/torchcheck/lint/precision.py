"""Dtype facts the low-precision rules share: what an autocast region runs in, and which
values and modules are half precision (float16 or bfloat16) on every path.

A small lattice: ``"float16"``, ``"bfloat16"`` (half precision), ``"float32"`` (an explicit
upcast) or None (unknown). Every question answers None when one link is unknown, and the
rules then stay silent. Questions about bindings are asked after the walk (the binder).
"""

from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext, autocast_enabled
from torchcheck.lint.nodes import argument_for, dotted_name, is_autocast_name, keyword_argument, method_call

HALF = frozenset({"float16", "bfloat16"})
_DTYPES = {
    "torch.float16": "float16",
    "torch.half": "float16",
    "torch.bfloat16": "bfloat16",
    "torch.float32": "float32",
    "torch.float": "float32",
    "torch.float64": "float32",
    "torch.double": "float32",
}
# Module and tensor methods that cast to one dtype, and those that cast to their argument.
_CAST_METHODS = {"half": "float16", "bfloat16": "bfloat16", "float": "float32", "double": "float32"}
_CAST_TO_ARGUMENT = frozenset({"to", "type"})
# Where autocast's device and dtype sit among its positional parameters.
_DEVICE_AUTOCASTS = {"torch.cuda.amp.autocast": "cuda", "torch.cuda.amp.autocast_mode.autocast": "cuda"}
_DEFAULT_DTYPE = {"cuda": "float16", "cpu": "bfloat16"}
_DEPTH = 6
_PRETRAINED = frozenset({"from_pretrained", "from_config"})
# Module methods that return the module itself, cast or not.
_MODULE_SELF_METHODS = frozenset({"to", "cuda", "cpu", "train", "eval", "requires_grad_", "half", "bfloat16", "float", "double"})


def dtype_of(context: LintContext, expression: cst.BaseExpression | None) -> str | None:
    """The dtype a ``torch.<dtype>`` expression names; None for anything else."""
    if expression is None:
        return None
    return _DTYPES.get(context.qualified_name(expression) or "")


def possible_dtypes(context: LintContext, expression: cst.BaseExpression, depth: int = 0) -> set[str]:
    """The dtypes ``expression`` may hold on some path, as far as the file shows: both arms of
    ``torch.float16 if fp16 else torch.bfloat16``, the values of a dict literal it indexes
    (``{"float16": torch.float16, ...}[cfg.dtype]``), through the bindings of a name. An
    unknown part adds nothing."""
    known = dtype_of(context, expression)
    if known is not None or depth > _DEPTH:
        return {known} if known is not None else set()
    if isinstance(expression, cst.IfExp):
        return possible_dtypes(context, expression.body, depth + 1) | possible_dtypes(context, expression.orelse, depth + 1)
    if isinstance(expression, cst.Subscript) and isinstance(expression.value, cst.Dict):
        values = [element.value for element in expression.value.elements if isinstance(element, cst.DictElement)]
        return set().union(*(possible_dtypes(context, value, depth + 1) for value in values))
    if isinstance(expression, cst.Name):
        bindings = context.binder.bindings_before(expression)
        values = [binding.node.value for binding in bindings if isinstance(binding.node, cst.Assign)]
        return set().union(*(possible_dtypes(context, value, depth + 1) for value in values))
    return set()


def may_autocast_float16(context: LintContext, expression: cst.BaseExpression) -> bool:
    """An enabled torch autocast on CUDA or a device the file does not show that runs in
    float16 on some path: the CUDA default, an explicit ``dtype=torch.float16``, or a dtype
    chosen at run time among values that include float16."""
    region = autocast_dtype(context, expression)
    if region is not None:
        return region in (("cuda", "float16"), (None, "float16"))
    enabled = _enabled_autocast(context, expression)
    if enabled is None or _device_of(context, *enabled) not in (None, "cuda"):
        return False
    dtype = argument_for(enabled[0], 1, "dtype")  # second for `torch.autocast` and `torch.cuda.amp.autocast` alike
    return dtype is not None and not dtype.star and "float16" in possible_dtypes(context, dtype.value)


def autocast_dtype(context: LintContext, expression: cst.BaseExpression) -> tuple[str | None, str] | None:
    """``(device, dtype)`` of an enabled torch autocast manager (a ``with`` item or a
    decorator): ``("cuda", "float16")`` for ``torch.autocast("cuda")``, ``(None, "float16")``
    for an explicit ``dtype=torch.float16`` on a device the file does not show; None when it
    is no torch autocast, is disabled, or its dtype is unknown (a conditional dtype, or the
    default of an unknown device)."""
    enabled = _enabled_autocast(context, expression)
    if enabled is None:
        return None
    call, qualified = enabled
    device = _device_of(context, call, qualified)
    dtype_argument = argument_for(call, 1, "dtype")
    if dtype_argument is None:
        return (device, _DEFAULT_DTYPE[device]) if device is not None else None
    dtype = dtype_of(context, dtype_argument.value) if not dtype_argument.star else None
    return (device, dtype) if dtype is not None else None


def _device_of(context: LintContext, call: cst.Call, qualified: str) -> str | None:
    """The device type an autocast call names (``torch.cuda.amp.autocast`` is CUDA's)."""
    return _DEVICE_AUTOCASTS.get(qualified) or device_type(context, argument_for(call, 0, "device_type"))


def _enabled_autocast(context: LintContext, expression: cst.BaseExpression) -> tuple[cst.Call, str] | None:
    """The call and qualified name of a torch autocast manager that is not disabled (not the
    CPU-only ``torch.cpu.amp.autocast``); None for anything else."""
    if not isinstance(expression, cst.Call):
        return None
    qualified = context.qualified_name(expression.func)
    if not is_autocast_name(qualified) or qualified.startswith("torch.cpu."):  # type: ignore[union-attr]
        return None
    if autocast_enabled(context.qualified_name, cst.WithItem(item=expression)) is False:
        return None
    return expression, qualified  # type: ignore[return-value]


def device_type(context: LintContext, argument: cst.Arg | None) -> str | None:
    """``"cuda"`` or ``"cpu"`` for a literal device type (``"cuda"``, ``"cuda:0"``), or for a
    name (``str(device)``, ``device.type``) whose bindings include a CUDA device literal:
    CUDA on some path. None when unknown."""
    if argument is None or argument.star:
        return None
    value = argument.value
    if isinstance(value, cst.SimpleString):
        literal = value.evaluated_value
        kind = literal.split(":", 1)[0] if isinstance(literal, str) else None
        return kind if kind in _DEFAULT_DTYPE else None
    if isinstance(value, cst.Call) and dotted_name(value.func) == "str" and value.args:
        value = value.args[0].value
    elif isinstance(value, cst.Attribute) and value.attr.value == "type":
        value = value.value
    if not isinstance(value, cst.Name):
        return None
    bindings = context.binder.bindings_before(value)
    return "cuda" if bindings and any(_mentions_cuda(binding.node) for binding in bindings) else None


def _mentions_cuda(node: cst.CSTNode) -> bool:
    value = node.value if isinstance(node, cst.Assign) else None
    if isinstance(value, cst.Call) and value.args:
        value = value.args[0].value  # torch.device("cuda" if ... else "cpu")
    parts = [value.body, value.orelse] if isinstance(value, cst.IfExp) else [value]
    return any(isinstance(part, cst.SimpleString) and str(part.evaluated_value).startswith("cuda") for part in parts)


def cast_of(context: LintContext, call: cst.Call) -> str | None:
    """The dtype a cast call converts to: ``x.half()``, ``m.bfloat16()``, ``x.float()``,
    ``m.to(torch.bfloat16)``, ``m.to(device, dtype=torch.float16)``, ``x.type(torch.float32)``;
    ``"unknown"`` for a ``.to(dtype=<variable>)``; None for a call that casts nothing."""
    receiver_method = method_call(call)
    if receiver_method is None:
        return None
    method = receiver_method[1]
    if method in _CAST_METHODS and not call.args:
        return _CAST_METHODS[method]
    if method not in _CAST_TO_ARGUMENT:
        return None
    keyword = keyword_argument(call, "dtype")
    candidates = [keyword.value] if keyword is not None else [a.value for a in call.args if a.keyword is None]
    for candidate in candidates:
        dtype = dtype_of(context, candidate)
        if dtype is not None:
            return dtype
    return "unknown" if keyword is not None else None


def pretrained_dtype(context: LintContext, call: cst.Call) -> str | None:
    """The dtype ``X.from_pretrained(..., torch_dtype=torch.bfloat16)`` (or ``dtype=``) loads in."""
    receiver_method = method_call(call)
    if receiver_method is None or receiver_method[1] != "from_pretrained":
        return None
    argument = keyword_argument(call, "torch_dtype") or keyword_argument(call, "dtype")
    return dtype_of(context, argument.value) if argument is not None else None


def module_precision(context: LintContext, module: cst.Name, depth: int = 0) -> str | None:
    """The dtype of the parameters of the module ``module`` names where it is used: set by
    the value of every binding that reaches the use, or by an unconditional in-place cast
    (``model.half()``) after it; the last cast wins. None when unknown."""
    bindings = context.binder.bindings_before(module)
    if not bindings or depth > _DEPTH:
        return None
    found: set[str | None] = set()
    for binding in bindings:
        if not isinstance(binding.node, cst.Assign) or len(binding.node.targets) != 1:
            return None
        dtype = value_precision(context, binding.node.value, depth + 1)
        for reference in binding.references:
            if context.binder.precedes(reference, module) and reference is not module:
                cast = _in_place_cast(context, reference, module)
                if cast is not None:
                    dtype = cast
        found.add(dtype)
    return found.pop() if len(found) == 1 else None


def _in_place_cast(context: LintContext, reference: cst.Name, use: cst.CSTNode) -> str | None:
    """The cast an expression statement ``model.half()`` makes; ``"unknown"`` when it runs on
    some paths only (inside an ``if``, a loop or a ``try`` that does not hold ``use``)."""
    binder = context.binder
    attribute = binder.parent(reference)
    call = binder.parent(attribute) if isinstance(attribute, cst.Attribute) else None
    if not isinstance(call, cst.Call) or call.func is not attribute:
        return None
    cast = cast_of(context, call)
    if cast is None or not isinstance(binder.parent(call), cst.Expr):
        return None
    around_use = set(map(id, binder.ancestors(use)))
    for ancestor in binder.ancestors(call):
        if isinstance(ancestor, (cst.FunctionDef, cst.Module)):
            break
        if isinstance(ancestor, (cst.If, cst.For, cst.While, cst.Try)) and id(ancestor) not in around_use:
            return "unknown"
    return cast


def value_precision(context: LintContext, value: cst.BaseExpression, depth: int = 0) -> str | None:
    """The parameter dtype of the module a value builds: the outermost cast of a call chain
    (``Net().to(device).half()``), ``from_pretrained(torch_dtype=...)``, or what the module
    a chain starts from holds (``model = model.to(device)``). float32 for a chain of module
    construction without a cast; None when unknown."""
    while isinstance(value, cst.Call):
        cast = cast_of(context, value) or pretrained_dtype(context, value)
        if cast is not None:
            return cast if cast != "unknown" else None
        receiver_method = method_call(value)
        if receiver_method is None or receiver_method[1] not in _MODULE_SELF_METHODS:
            return None
        value = receiver_method[0]
    if isinstance(value, cst.Name):
        return module_precision(context, value, depth + 1)
    return None


def region_precision(context: LintContext, node: cst.CSTNode) -> tuple[cst.With, str] | None:
    """The innermost autocast ``with`` block around ``node`` in its function, and its dtype
    when it is known to be half precision."""
    for ancestor in context.binder.ancestors(node):
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return None
        if isinstance(ancestor, cst.With):
            for item in ancestor.items:
                region = autocast_dtype(context, item.item)
                if region is not None:
                    return (ancestor, region[1]) if region[1] in HALF else None
    return None


def construction_of(context: LintContext, value: cst.BaseExpression, depth: int = 0) -> cst.Call | None:
    """The call that built the module a value holds: ``GPT(cfg)`` for
    ``GPT(cfg).to(device).bfloat16()`` or for a name bound (once) to it; the
    ``from_pretrained(...)`` call of a pretrained model; None when unknown."""
    while isinstance(value, cst.Call):
        receiver_method = method_call(value)
        if receiver_method is None or receiver_method[1] in _PRETRAINED or context.qualified_name(value.func) is not None:
            return value  # `Net(...)`, `torch.nn.Linear(...)`, `Auto....from_pretrained(...)`
        if receiver_method[1] not in _MODULE_SELF_METHODS:
            return None
        value = receiver_method[0]
    if isinstance(value, cst.Name) and depth < _DEPTH:
        bindings = context.binder.bindings_before(value)
        if len(bindings) == 1 and isinstance(bindings[0].node, cst.Assign):
            return construction_of(context, bindings[0].node.value, depth + 1)
    return None
