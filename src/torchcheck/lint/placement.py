"""Whether a tensor expression puts its tensor on a device.

A factory given ``device=`` (other than ``"cpu"``), ``.cuda()``, or ``.to(...)`` given a device
or another tensor (not only a dtype) places the tensor; so does any of these along a chain of
method calls, indexing, arithmetic and torch ops (``torch.tril(torch.ones(n, n, device=d))``).

TCK606 asks it of the tensors a module stores in ``__init__``. Where a value ends up, as the
code spells the device (:func:`device_left`: ``"cuda"``, ``device``, ``self.device``), is asked
by TCK108 to tell a move to the device a tensor is already on from a real one.
"""

from __future__ import annotations

import libcst as cst

from torchcheck.lint import references, torch_api
from torchcheck.lint.binder import Binder
from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import dotted_name, is_none, keyword_argument, method_call, subtree

KEEPS = "<unchanged>"  # a move that sets only the dtype: the device stays
# Methods whose result is the same tensor's data, reshaped or repeated: a move after them moves it.
_SHAPING_METHODS = torch_api.VALUE_KEEPING_METHODS | {"repeat", "expand", "expand_as", "permute", "transpose", "flip"}


def is_device_expression(expression: cst.BaseExpression, kind: Kind | None) -> bool:
    """A string literal naming a device, ``torch.device(...)``, or a value known to be a device."""
    if isinstance(expression, cst.SimpleString):
        return torch_api.names_device(expression.evaluated_value)
    return kind is Kind.DEVICE


def names_cpu(expression: cst.BaseExpression, binder: Binder | None = None) -> bool:
    """The string literal ``"cpu"`` (also ``torch.device("cpu")``); with ``binder``, also a
    name that every assignment reaching it binds to one (``device = "cpu"``)."""
    if binder is not None and type(expression) is cst.Name:
        values = references.reaching_values(binder, expression)  # type: ignore[arg-type]
        return bool(values) and all(names_cpu(value) for value in values)
    if type(expression) is cst.Call and dotted_name(expression.func) == "torch.device" and len(expression.args) == 1:  # type: ignore[attr-defined]
        expression = expression.args[0].value  # type: ignore[attr-defined]
    return isinstance(expression, cst.SimpleString) and expression.evaluated_value == "cpu"


def moves_to_device(context: LintContext, call: cst.Call) -> bool:
    """``.to(device)``, ``.to(other_tensor)``, ``.to(device, dtype)``: not ``.to(torch.float16)``
    nor ``.to("cpu")``. ``call`` is a ``.to(...)`` call."""
    first = call.args[0] if call.args else None
    if first is None or first.star or names_cpu(first.value, context.binder):
        return False
    return first.keyword.value in ("device", "other") if first.keyword is not None else context.kind_of(first.value) is not Kind.DTYPE


def placed_on_device(context: LintContext, value: cst.BaseExpression) -> bool:
    """The tensor ``value`` builds is put on a device (see the module docstring); for a
    conditional, every branch that is not ``None`` is."""
    if isinstance(value, cst.BinaryOperation):
        return placed_on_device(context, value.left) or placed_on_device(context, value.right)
    if isinstance(value, cst.Subscript):
        return placed_on_device(context, value.value)
    if isinstance(value, cst.IfExp):
        branches = [branch for branch in (value.body, value.orelse) if not is_none(branch)]
        return all(placed_on_device(context, branch) for branch in branches)
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Attribute) and context.call_name(value) is None:
        method = value.func.attr.value
        return method == "cuda" or (method == "to" and moves_to_device(context, value)) or placed_on_device(context, value.func.value)
    if context.call_name(value) in torch_api.TENSOR_OPS:
        return any(placed_on_device(context, argument.value) for argument in value.args if argument.keyword is None)
    device = keyword_argument(value, "device")
    return device is not None and not is_none(device.value) and not names_cpu(device.value)


def spelled_device(expression: cst.BaseExpression) -> str | None:
    """A device as the code spells it: a name (``device``, ``self.device``) or a string
    literal (``"cuda"``); None for anything else."""
    if isinstance(expression, cst.SimpleString):
        return repr(expression.evaluated_value)
    if isinstance(expression, cst.Integer):
        return repr(f"cuda:{expression.value}")
    return dotted_name(expression)


def destination(context: LintContext, call: cst.Call, method: str) -> str | None:
    """The device ``call`` (a link ``.to(...)``/``.cuda(...)``/``.cpu()``) moves to, as
    spelled; KEEPS for a link that sets only the dtype; None when unknown."""
    if method in ("cpu", "cuda"):
        kept = [argument for argument in call.args if argument.keyword is None or argument.keyword.value == "device"]
        return spelled_device(kept[0].value if kept and method == "cuda" else cst.SimpleString(f'"{method}"'))
    if method != "to":
        return None
    argument = keyword_argument(call, "device") or next((arg for arg in call.args if arg.keyword is None), None)
    if argument is None or argument.star:
        return KEEPS if argument is None and keyword_argument(call, "dtype") is not None else None
    if context.kind_of(argument.value) is Kind.DTYPE or context.qualified_name(argument.value) in torch_api.DTYPES:
        return KEEPS
    return spelled_device(argument.value)


def device_left(context: LintContext, value: cst.BaseExpression, name: str) -> str | None:
    """Where ``name = value`` surely leaves the tensor: the device its outermost move names
    (``old.to(device)``, ``torch.tensor(data, device=device)``), KEEPS for a re-binding that
    moves nothing (``name = name.to(dtype)``); None when unknown. A link that may move or cast
    by an argument of unknown kind counts as keeping the device only in a re-binding of the
    name itself, whose earlier value is judged on its own."""
    links: list[tuple[cst.Call, str]] = []
    expression = value
    while isinstance(expression, cst.Call) and not (context.call_name(expression) or "").startswith("torch."):
        found = method_call(expression)
        if found is None:
            break
        links.append((expression, found[1]))
        expression = found[0]
    start: str | None = None  # anything else: where it is, unknown
    if isinstance(expression, cst.Call) and (context.call_name(expression) or "").startswith("torch."):
        device = keyword_argument(expression, "device")  # `torch.tensor(data, device=device)`
        start = spelled_device(device.value) if device is not None else None
    elif isinstance(expression, cst.Name) and expression.value == name:
        start = KEEPS
    where = start
    for call, method in reversed(links):  # innermost first
        if method == "type":
            return None
        moved = destination(context, call, method) if method in ("to", "cuda", "cpu") else KEEPS
        if moved == KEEPS or (start == KEEPS and not _names_a_device(context, call, method)):
            continue  # a cast, or in a re-binding a link that need not move
        where = moved
    return where


def _names_a_device(context: LintContext, call: cst.Call, method: str) -> bool:
    """The link surely names a device: ``.cuda()``, ``.cpu()``, ``.to("cuda")``,
    ``.to(device=...)``, ``.to(torch.device(...))``."""
    if method != "to" or keyword_argument(call, "device") is not None:
        return True
    first = next((argument.value for argument in call.args if argument.keyword is None), None)
    return first is not None and is_device_expression(first, context.kind_of(first))


def moved_at_every_read(context: LintContext, owner: cst.ClassDef, attribute: str, statement: cst.CSTNode | None = None) -> bool:
    """Every read of ``self.<attribute>`` in ``owner`` after ``__init__`` moves it to where the
    input is before using it (``self.kernel.to(x.device, x.dtype)``, ``self.kernel.repeat(c,
    1).to(x)``, ``.type_as(x)``, ``.cuda()``), or there is no such read (a table only ``__init__`` uses to
    build something else): where the module is does not matter to that tensor. A loop over
    a one-dimensional tensor that ``statement`` built (``torch.linspace(...)``) draws 0-dim
    tensors, which PyTorch combines with tensors on any device."""
    binder = context.binder
    found = references.self_attribute_references(binder, owner, attribute)
    if found is None:
        return False  # `self` goes where the reads cannot be followed
    scalar_items = type(statement) is cst.Assign and _one_dimensional(context, statement.value)  # type: ignore[attr-defined]
    reads = [
        node for node in [*found, *_instance_reads(context, owner, attribute)]
        if not references.is_bound(binder, node) and not _identity_test(binder, node) and not _truth_tested_items(binder, node)
    ]
    # a read while `__init__` builds the module runs before any move: the tensor is where the rest is
    later = [read for read in reads if not _in_constructor(binder, owner, read)]
    return bool(reads) and all(_moved_before_use(context, read) or (scalar_items and references.iterating_loop(binder, read) is not None) for read in later)


def _one_dimensional(context: LintContext, value: cst.BaseExpression) -> bool:
    """``torch.linspace(0, n - 1, n)``, ``2 ** torch.arange(n)``: a factory that builds only
    one-dimensional tensors, under elementwise arithmetic with numbers."""
    if isinstance(value, cst.BinaryOperation):
        sides = (value.left, value.right)
        return any(_one_dimensional(context, side) for side in sides) and all(_one_dimensional(context, side) or isinstance(side, (cst.Integer, cst.Float)) for side in sides)
    return isinstance(value, cst.Call) and context.call_name(value) in torch_api.ONE_DIMENSIONAL_FACTORIES


def _identity_test(binder: Binder, node: cst.CSTNode) -> bool:
    """``self.table is not None``: the test reads no values, on any device."""
    comparison = binder.parent(binder.parent(node)) if isinstance(binder.parent(node), cst.ComparisonTarget) else binder.parent(node)
    return isinstance(comparison, cst.Comparison) and all(isinstance(target.operator, (cst.Is, cst.IsNot)) for target in comparison.comparisons)


def _truth_tested_items(binder: Binder, node: cst.CSTNode) -> bool:
    """``for i, flag in enumerate(self.mask): if flag: ...``: the loop draws the tensor's items
    only to test them as Python booleans, which reads them wherever the tensor is."""
    loop = references.iterating_loop(binder, node)
    if loop is None:
        return False
    target, iterated = loop.target, loop.iter
    if type(iterated) is cst.Call and type(iterated.func) is cst.Name and iterated.func.value == "enumerate":
        if type(target) is not cst.Tuple or len(target.elements) != 2 or iterated.args[0].value is not node:
            return False
        target = target.elements[1].value  # `enumerate(mask)`: the item is second
    elif iterated is not node:
        return False
    binding = binder.binding_made_by(target)
    return type(target) is cst.Name and binding is not None and bool(binding.references) and all(_tested(binder, use) for use in binding.references)


def _tested(binder: Binder, use: cst.CSTNode) -> bool:
    above = binder.parent(use)
    if type(above) is cst.UnaryOperation and type(above.operator) is cst.Not:  # type: ignore[attr-defined]
        use, above = above, binder.parent(above)
    return type(above) in (cst.If, cst.While, cst.IfExp) and above.test is use  # type: ignore[attr-defined]


def _in_constructor(binder: Binder, owner: cst.ClassDef, node: cst.CSTNode) -> bool:
    function = binder.enclosing(node, cst.FunctionDef, cst.Lambda)
    return isinstance(function, cst.FunctionDef) and function.name.value == "__init__" and references.class_of_method(binder, function) is owner


def _instance_reads(context: LintContext, owner: cst.ClassDef, attribute: str) -> list[cst.Attribute]:
    """``model.<attribute>`` outside ``owner``: reads of the attribute through an instance
    (whichever object it is, it must be moved there too for the attribute to count as moved)."""
    outside = lambda node: node is owner  # noqa: E731 - prune the class itself
    return [
        node  # type: ignore[misc]
        for node in subtree(context.binder.module_scope.node, outside)
        if type(node) is cst.Attribute and node.attr.value == attribute and type(node.value) is cst.Name  # type: ignore[attr-defined]
        and not references.is_method_receiver(context.binder, node.value)  # type: ignore[attr-defined]
    ]


def _moved_before_use(context: LintContext, node: cst.CSTNode) -> bool:
    while True:
        above = context.binder.parent(node)
        if isinstance(above, cst.Subscript) and above.value is node:
            node = above  # `self.weights[index].to(device)`: the selected part is moved
            continue
        if type(above) is cst.Assign and above.value is node:
            return _copied_into_moved_local(context, above)
        call = context.binder.parent(above) if isinstance(above, cst.Attribute) and above.value is node else None
        if not isinstance(call, cst.Call) or call.func is not above:
            return False
        method = above.attr.value  # type: ignore[union-attr]
        if method == "type_as" or (method == "to" and moves_to_device(context, call)) or (method == "cuda" and not call.args) or _typed_by_name(call):
            return True  # `.cuda()` moves to the current device: a replica's own, as `.to("cuda")` does
        if method not in _SHAPING_METHODS:
            return False
        node = call


def _typed_by_name(call: cst.Call) -> bool:
    """``.type("torch.cuda.FloatTensor")``, also built by formatting (``"torch{}.FloatTensor"
    .format(cuda)``): a tensor type names the device as well as the dtype, so the call moves."""
    first = call.args[0].value if len(call.args) == 1 and not call.args[0].keyword else None
    if isinstance(first, cst.Call) and isinstance(first.func, cst.Attribute) and first.func.attr.value == "format":
        first = first.func.value
    text = first.evaluated_value if isinstance(first, cst.SimpleString) else None
    return isinstance(text, str) and text.startswith("torch") and text.endswith("Tensor")


def _copied_into_moved_local(context: LintContext, assignment: cst.Assign) -> bool:
    """``emb[i] = self.table[2:n]`` into a tensor the function builds on the CPU
    (``torch.zeros(b, n, d)``) and moves afterwards (``return emb.to(device)``): the copy runs
    on the CPU, where the table is, whatever device the module is on."""
    target = assignment.targets[0].target if len(assignment.targets) == 1 else None
    if type(target) is not cst.Subscript or type(target.value) is not cst.Name:  # type: ignore[union-attr]
        return False
    binder = context.binder
    bindings = binder.reaching(target.value)  # type: ignore[union-attr]
    made = bindings[0].node if len(bindings) == 1 else None
    factory = made.value if type(made) is cst.Assign else None  # type: ignore[union-attr]
    if type(factory) is not cst.Call or context.call_name(factory) not in torch_api.TENSOR_FACTORIES or keyword_argument(factory, "device") is not None:  # type: ignore[arg-type]
        return False
    later = [use for use in binder.references_to(bindings[0]) if binder.precedes(assignment, use)]
    return any(_moved_by_to(context, use) for use in later)


def _moved_by_to(context: LintContext, use: cst.CSTNode) -> bool:
    above = context.binder.parent(use)
    call = context.binder.parent(above) if type(above) is cst.Attribute and above.value is use else None  # type: ignore[attr-defined]
    return type(call) is cst.Call and call.func is above and above.attr.value == "to" and moves_to_device(context, call)  # type: ignore[union-attr]


# Reductions that, given only their input (no `dim`), reduce every element to one value.
_FULL_REDUCTIONS = frozenset(f"torch.{name}" for name in "sum mean max min prod norm amax amin std var median".split())


def is_zero_dim(context: LintContext, value: cst.BaseExpression) -> bool:
    """A 0-dim tensor by construction: a full reduction (``torch.sum(w)``), also under
    elementwise functions (``torch.sqrt(torch.sum(w))``). PyTorch combines a 0-dim CPU
    tensor with tensors on any device, like a number."""
    while isinstance(value, cst.Call) and len(value.args) == 1 and context.call_name(value) in torch_api.ELEMENTWISE_FUNCTIONS:
        value = value.args[0].value
    if not isinstance(value, cst.Call) or context.call_name(value) not in _FULL_REDUCTIONS:
        return False
    return len(value.args) == 1 and value.args[0].keyword is None and not value.args[0].star
