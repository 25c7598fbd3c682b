from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.edits import keyword, with_keyword_appended
from torchcheck.lint.flow import BoundName
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import has_star_kwargs, keyword_argument, method_call
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid
from torchcheck.rules.devices.transfer_after_construction import is_device_expression

# Factories that accept device=, dtype= and requires_grad= (torch.from_numpy takes none).
_FACTORIES = (torch_api.TENSOR_FACTORIES | torch_api.TENSOR_LIKE_FACTORIES) - {"torch.from_numpy"}
_PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# The legacy wrapper: `Variable(t, requires_grad=True)` is a leaf that requires grad.
_VARIABLES = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
_CAST_METHODS = {"double": "float64", "half": "float16", "bfloat16": "bfloat16"}
_TRANSFER_METHODS = frozenset({"to", "cuda", *_CAST_METHODS})
_FLOAT32 = frozenset({"torch.float32", "torch.float"})
_DROPPED_KEYWORDS = frozenset({"non_blocking", "copy"})  # meaningless when constructing in place

# A re-binding `x = x.cuda()` may also cast with `.float()` (a copy unless already float32)
# and `.type(...)`; `.cpu()` returns a CPU leaf itself.
_REBINDING_METHODS = _TRANSFER_METHODS | {"float", "type"}
# `x.requires_grad_()` makes a leaf of a tensor that did not require grad; on a copy of a
# leaf that does, it changes nothing (the copy already requires grad and is no leaf).
# `x.retain_grad()` fills the copy's `.grad` although it is not a leaf.
_GRAD_METHODS = frozenset({"requires_grad_", "retain_grad"})

_OPTIMIZERS = "torch.optim."

_REBOUND = (
    "`{name}` was made a tensor that requires grad at line {line}; re-binding it to a moved or cast copy "
    "leaves a non-leaf whose `.grad` stays `None`"
)

# (keyword, value) pairs to move into the factory; None where no fix can be built.
_Moves = list[tuple[str, cst.BaseExpression]] | None


@dataclass(frozen=True)
class _Rebinding:
    """`x = x.cuda()` that replaces the leaf ``name`` made at ``leaf`` by a non-leaf copy."""

    node: cst.Assign
    name: str
    leaf: cst.CSTNode


def _is_true(argument: cst.Arg | None) -> bool:
    return argument is not None and isinstance(argument.value, cst.Name) and argument.value.value == "True"


def _is_false(argument: cst.Arg | None) -> bool:
    return argument is not None and isinstance(argument.value, cst.Name) and argument.value.value == "False"


class RequiresGradLostByTransfer(Rule):
    """
    ## What it does
    Checks for a tensor created with `requires_grad=True` (or made a parameter) and then
    moved or cast in the same expression: `torch.randn(3, requires_grad=True).to(device)`,
    `.cuda()`, `.double()`, `.half()`, `torch.zeros(3).requires_grad_().cuda()`,
    `nn.Parameter(w).cuda()`, the legacy `Variable(w, requires_grad=True).cuda()` - or in a later statement that re-binds the name to the copy:
    `x = torch.randn(3, requires_grad=True)` (or `x.requires_grad = True`) followed by
    `x = x.cuda()`, `x = x.to(device)`, `x = x.double()`, `x = x.type(...)`, or `x = x.float()`
    on a tensor made in another dtype. The re-binding is reported and the finding names the
    line that made the leaf. When the copy is bound to a name, it is reported only if the
    code then wants that name's gradient (reads its `.grad`, hands it to a `torch.optim`
    optimizer, or returns it): a copy that only feeds a forward pass (a test input, a
    `gradcheck` argument) still requires grad and is left alone.

    ## Why is this bad?
    The leaf tensor that requires grad is the one the factory built, on the CPU. `.to()` /
    `.cuda()` / `.double()` return a *copy* computed from it - a non-leaf tensor. The
    variable holds the copy, whose `.grad` stays `None` after `backward()` (PyTorch only
    warns when `.grad` is read), and an optimizer given the copy raises "can't optimize a
    non-leaf Tensor"; `nn.Parameter(...).cuda()` is no longer a parameter, so the module
    never registers it. Create the tensor where and as it will be used: pass `device=` and
    `dtype=` to the factory. `x.requires_grad_()` on the copy does not help (the copy already
    requires grad; it is still not a leaf). A re-binding is not reported when the code then
    calls `x.retain_grad()` on the copy, or makes the copy a new leaf
    (`x = x.detach().to(device).requires_grad_()`), or when the factory already passed the
    `device=`/`dtype=` the call sets (it may return the leaf itself).

    ## Example
    ```python
    import torch

    device = torch.device("cuda")
    weights = torch.randn(10, 10, requires_grad=True).to(device)
    scale = torch.ones(1, requires_grad=True).double()
    optimizer = torch.optim.SGD([weights, scale], lr=0.1)
    ```

    Use instead:
    ```python
    import torch

    device = torch.device("cuda")
    weights = torch.randn(10, 10, requires_grad=True, device=device)
    scale = torch.ones(1, requires_grad=True, dtype=torch.float64)
    optimizer = torch.optim.SGD([weights, scale], lr=0.1)
    ```

    ## Fix safety
    The fix moves the target device and dtype into the factory's `device=`/`dtype=`
    arguments (dropping `non_blocking=`/`copy=`, which mean nothing at construction). It is
    safe: the tensor gets the same values, device and dtype, and is now the leaf that
    accumulates gradients - which is what `requires_grad=True` asked for. It is not offered
    when the factory passes `**kwargs` or already sets the keyword, when `.to()` copies the
    device and dtype of another tensor, for `nn.Parameter(...)`, or for a re-binding in a
    later statement (the leaf and the copy are both in use between them).

    ## References
    - [Autograd mechanics: leaf tensors and `requires_grad`](https://pytorch.org/docs/stable/notes/autograd.html#setting-requires-grad)
    - [`torch.Tensor.is_leaf`](https://pytorch.org/docs/stable/generated/torch.Tensor.is_leaf.html)
    - [Tensor creation ops](https://pytorch.org/docs/stable/torch.html#creation-ops)
    """

    code = "TCK108"
    name = "requires-grad-lost-by-transfer"
    message = "Moving or casting a tensor that requires grad returns a non-leaf copy; its `.grad` stays `None`"
    fix_title = "Pass `device=`/`dtype=` to the factory"
    fix_safety = FixSafety.SAFE
    required_text = ("requires_grad", "Parameter")

    VALID = (
        Valid(
            """
import torch
w = torch.randn(3, 3, requires_grad=True, device="cuda")
b = torch.zeros(3, device=device).requires_grad_()
p = torch.nn.Parameter(torch.randn(3).to(device))
"""
        ),
        Valid(
            """
import torch
x = torch.randn(3, requires_grad=False).to(device)
y = torch.randn(3).to(device).requires_grad_()
z = torch.randn(3, requires_grad=True).float()
s = torch.randn(3, requires_grad=True).to(torch.float32)
"""
        ),
        Valid(
            """
import torch
leaf = torch.randn(3, requires_grad=True)
moved = leaf.to(device)
model = model.to(device)
"""
        ),
        Valid(
            """
import torch
def build(requires_grad):
    return torch.randn(3, requires_grad=requires_grad).to(device)
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

def leaves(device, data):
    w = torch.zeros(3)
    w = w.to(device).requires_grad_()
    v = torch.randn(3, requires_grad=True)
    v = v.detach().to(device).requires_grad_(True)
    u = torch.randn(3, requires_grad=True)
    p = nn.Parameter(u.to(device))
    a = torch.randn(3, requires_grad=True)
    a = a.to(device)
    a.retain_grad()
    forward_only = torch.randn(3, requires_grad=True)
    forward_only = forward_only.cuda()
    model(forward_only).sum().backward()
    e = torch.randn(3, requires_grad=True, device=device)
    e = e.to(device)
    d = torch.randn(3, requires_grad=True)
    d = d.float()
    if data is None:
        data = torch.randn(3, requires_grad=True)
    data = data.cuda()
    return w, v, p, a, e, d, data
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
import torch.nn as nn

def fit(device, inputs, targets):
    x = torch.randn(3, requires_grad=True)
    x = x.to(device)  # TCK108
    scale = torch.ones(1, requires_grad=True, dtype=torch.float64)
    scale = scale.float()  # TCK108
    inputs.requires_grad = True
    inputs, targets = inputs.cuda(), targets.cuda()  # TCK108
    weight = nn.Parameter(torch.ones(3))
    weight = weight.type(torch.cuda.FloatTensor)  # TCK108
    bias = torch.zeros(3, requires_grad=True)
    bias = bias.to(device).requires_grad_()  # TCK108
    offset = torch.zeros(3, requires_grad=True)
    offset = offset.cuda()  # TCK108
    offset.requires_grad_()
    return x, scale, inputs, targets, weight, bias, offset
"""
        ),
        Invalid(
            """
import torch
w = torch.randn(10, 10, requires_grad=True).to(device)  # TCK108
b = torch.zeros(10, requires_grad=True).cuda()  # TCK108
optimizer = torch.optim.SGD([w, b], lr=0.1)
""",
            expected_replacement="""
import torch
w = torch.randn(10, 10, requires_grad=True, device=device)  # TCK108
b = torch.zeros(10, requires_grad=True, device="cuda")  # TCK108
optimizer = torch.optim.SGD([w, b], lr=0.1)
""",
        ),
        Invalid(
            """
import torch as T
scale = T.ones(1, requires_grad=True).double()  # TCK108
x = T.rand(4, requires_grad=True).to("cuda:1", T.float16, non_blocking=True)  # TCK108
y = T.empty(4).requires_grad_().cuda(0)  # TCK108
v = T.autograd.Variable(T.randn(4), requires_grad=True).cuda()  # TCK108
print(scale.grad, x.grad, y.grad)
""",
            expected_replacement="""
import torch as T
scale = T.ones(1, requires_grad=True, dtype=T.float64)  # TCK108
x = T.rand(4, requires_grad=True, device="cuda:1", dtype=T.float16)  # TCK108
y = T.empty(4, device="cuda:0").requires_grad_()  # TCK108
v = T.autograd.Variable(T.randn(4), requires_grad=True).cuda()  # TCK108
print(scale.grad, x.grad, y.grad)
""",
        ),
        Invalid(
            """
import torch
import torch.nn as nn
class Scale(nn.Module):
    def __init__(self, reference):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1)).cuda()  # TCK108
        self.beta = torch.zeros(1, device="cpu", requires_grad=True).to(device)  # TCK108
        self.gamma = torch.zeros(1, requires_grad=True).to(reference)  # TCK108
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._made_leaf: set[tuple[cst.CSTNode, str]] = set()  # `x.requires_grad = True` on a binding
        self._rebindings: list[_Rebinding] = []
        # `w = torch.randn(3, requires_grad=True).cuda()`: reported if the code wants `w`'s gradient
        self._copies_bound: list[tuple[cst.Call, tuple[cst.Assign, str], cst.Call | None]] = []
        self._excused: set[tuple[cst.CSTNode, str]] = set()
        # bindings whose gradient the code asks for: `.grad` read, handed to an optimizer, returned
        self._gradient_wanted: set[tuple[cst.CSTNode, str]] = set()

    # ------------------------------------------------ across statements: `x = x.cuda()`
    # The rules see a binding statement before the flow records it, so the names its value
    # reads still resolve to the bindings that reach it.
    def leave_Assign(self, node: cst.Assign) -> None:
        for target, value in _target_values(node):
            if isinstance(target, cst.Attribute) and target.attr.value == "requires_grad" and _is_true_value(value):
                self._mark(target.value, "requires_grad_")
            elif isinstance(target, cst.Name) and isinstance(value, cst.Call):
                self._check_rebinding(node, target.value, value)

    def _check_rebinding(self, node: cst.Assign, name: str, value: cst.Call) -> None:
        chain = _transfer_chain(value, name)
        if not chain:
            return
        binding = self.context.flow.reaching_binding(name)
        if binding is None:
            return
        factory = self._factory_of(binding, name)
        if factory is None and (binding.node, name) not in self._made_leaf and not self._is_parameter(binding, name):
            return
        if any(self._copies(call, method, factory) for call, method in chain):
            self._rebindings.append(_Rebinding(node, name, binding.node))

    def _mark(self, receiver: cst.BaseExpression, method: str) -> None:
        """``x.requires_grad_()`` / ``x.retain_grad()`` / ``x.requires_grad = True`` on a name."""
        if not isinstance(receiver, cst.Name):
            return
        binding = self.context.flow.reaching_binding(receiver.value)
        if binding is None:
            return
        if method == "requires_grad_":
            self._made_leaf.add((binding.node, receiver.value))
        else:
            self._excused.add((binding.node, receiver.value))

    def _factory_of(self, binding: BoundName, name: str) -> cst.Call | None:
        value = _bound_value(binding, name)
        if not isinstance(value, cst.Call):
            return None
        factory, _ = self._leaf_factory(value)
        return factory

    def _is_parameter(self, binding: BoundName, name: str) -> bool:
        value = _bound_value(binding, name)
        return isinstance(value, cst.Call) and self._wraps_a_leaf(value)

    def _wraps_a_leaf(self, call: cst.Call) -> bool:
        """``nn.Parameter(w)`` (unless ``requires_grad=False``) or the legacy
        ``Variable(w, requires_grad=True)``: a new leaf that requires grad."""
        called = self.context.call_name(call)
        if called in _PARAMETERS:
            return not _is_false(keyword_argument(call, "requires_grad"))
        return called in _VARIABLES and _is_true(keyword_argument(call, "requires_grad"))

    def _copies(self, call: cst.Call, method: str, factory: cst.Call | None) -> bool:
        """Whether ``call`` (a link of ``x.cuda().double()``) returns a copy of the leaf. Where
        the factory already chose the device or dtype the call sets, it may return the leaf."""
        chose = {name for name in ("device", "dtype") if factory is not None and keyword_argument(factory, name)}
        if method == "float":
            dtype = keyword_argument(factory, "dtype") if factory is not None else None
            return dtype is not None and not call.args and self.context.qualified_name(dtype.value) not in _FLOAT32
        if method == "type":
            if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star or chose:
                return False  # `x.type()` returns a string
            return self.context.qualified_name(call.args[0].value) not in _FLOAT32
        if method in _CAST_METHODS:
            return not call.args and "dtype" not in chose
        if method == "cuda":
            return "device" not in chose
        moves = self._moves(call, method, factory)
        if moves is None:
            return not chose
        return any(name not in chose for name, _ in moves)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "grad":
            self._want_gradient(node.value)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self._want_gradient(node.value)

    def _want_gradient(self, expression: cst.BaseExpression) -> None:
        """The code reads the gradient of ``expression`` (a name, or names in a tuple or list)."""
        if isinstance(expression, (cst.Tuple, cst.List)):
            for element in expression.elements:
                self._want_gradient(element.value)
            return
        if not isinstance(expression, cst.Name):
            return
        binding = self.context.flow.reaching_binding(expression.value)
        if binding is not None:
            self._gradient_wanted.add((binding.node, expression.value))

    def leave_Module(self, node: cst.Module) -> None:
        # A copy that only feeds a forward pass still carries requires_grad (checkpointing
        # tests, gradcheck): only a re-binding whose `.grad` the code wants is a mistake.
        for rebinding in self._rebindings:
            key = (rebinding.node, rebinding.name)
            if key in self._excused or key not in self._gradient_wanted:
                continue
            line = self.context.line_of(rebinding.leaf)
            self.report(rebinding.node, _REBOUND.format(name=rebinding.name, line=line))
        for call, bound, replacement in self._copies_bound:
            if bound in self._gradient_wanted:
                self.report(call, replacement=replacement)

    # ------------------------------------------------ in one expression: `torch.randn(...).cuda()`
    def visit_Call(self, node: cst.Call) -> None:
        if (self.context.call_name(node) or "").startswith(_OPTIMIZERS):
            for argument in node.args:
                self._want_gradient(argument.value)  # torch.optim.SGD([w], lr=0.1)
        receiver_method = method_call(node)
        if receiver_method is not None and receiver_method[1] in _GRAD_METHODS:
            if not (node.args and _is_false(node.args[0])):
                self._mark(receiver_method[0], receiver_method[1])
        if receiver_method is None or receiver_method[1] not in _TRANSFER_METHODS:
            return
        source, method = receiver_method
        if not isinstance(source, cst.Call):
            return
        factory, wrapper = self._leaf_factory(source)
        if factory is None:
            if self._wraps_a_leaf(source):
                if self._moves(node, method, None) != []:
                    self.report(node)
            return
        moves = self._moves(node, method, factory)
        if moves == []:
            return  # not a transfer (`.to()`), or a no-op cast (`.to(torch.float32)`)
        new_factory = _with_keywords(factory, moves) if moves is not None else None
        replacement = None
        if new_factory is not None and wrapper is None:
            replacement = new_factory
        elif new_factory is not None and wrapper is not None:
            func = wrapper.func
            assert isinstance(func, cst.Attribute)
            replacement = wrapper.with_changes(func=func.with_changes(value=new_factory))
        bound = self._bound_to_a_name(node)
        if bound is None:
            self.report(node, replacement=replacement)
        else:
            self._copies_bound.append((node, bound, replacement))

    def _bound_to_a_name(self, call: cst.Call) -> tuple[cst.Assign, str] | None:
        """``(assignment, name)`` when ``call`` is the whole value bound to a plain name
        (``w = torch.randn(3, requires_grad=True).cuda()``)."""
        statement = self.context.statement_holding(call)
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            target = statement.targets[0].target
            if isinstance(target, cst.Name):
                return statement, target.value
        return None

    def _leaf_factory(self, source: cst.Call) -> tuple[cst.Call | None, cst.Call | None]:
        """The factory that builds the leaf, and the ``.requires_grad_()`` call around it if any."""
        if self.context.call_name(source) in _FACTORIES:
            return (source, None) if _is_true(keyword_argument(source, "requires_grad")) else (None, None)
        found = method_call(source)
        if found is None or found[1] != "requires_grad_" or not isinstance(found[0], cst.Call):
            return None, None
        if source.args and not _is_true(source.args[0]):
            return None, None
        inner = found[0]
        if self.context.call_name(inner) not in _FACTORIES or keyword_argument(inner, "requires_grad") is not None:
            return None, None
        return inner, source

    def _moves(self, call: cst.Call, method: str, factory: cst.Call | None) -> _Moves:
        """What the transfer changes, as factory keywords; [] when it changes nothing."""
        if method in _CAST_METHODS:
            if call.args:
                return None
            torch_name = self._torch_name(factory)
            if torch_name is None:
                return None
            return [("dtype", cst.Attribute(value=cst.Name(torch_name), attr=cst.Name(_CAST_METHODS[method])))]
        if method == "cuda":
            return self._cuda_moves(call)
        return self._to_moves(call, factory)

    @staticmethod
    def _cuda_moves(call: cst.Call) -> _Moves:
        device: cst.BaseExpression = cst.SimpleString('"cuda"')
        for argument in call.args:
            if argument.keyword is not None and argument.keyword.value in _DROPPED_KEYWORDS:
                continue
            if argument.star or (argument.keyword is not None and argument.keyword.value != "device"):
                return None
            device = argument.value
            if isinstance(device, cst.Integer):
                device = cst.SimpleString(f'"cuda:{device.value}"')
        return [("device", device)]

    def _to_moves(self, call: cst.Call, factory: cst.Call | None) -> _Moves:
        if not call.args:
            return []
        moves: list[tuple[str, cst.BaseExpression]] = []
        for argument in call.args:
            if argument.star:
                return None
            if argument.keyword is not None:
                keyword = argument.keyword.value
                if keyword in _DROPPED_KEYWORDS:
                    continue
                if keyword not in ("device", "dtype"):
                    return None
                moves.append((keyword, argument.value))
                continue
            kind = self.context.kind_of(argument.value)
            if kind is Kind.DTYPE:
                moves.append(("dtype", argument.value))
            elif is_device_expression(argument.value, kind):
                moves.append(("device", argument.value))
            else:
                return None  # `.to(other_tensor)` or something unknown
        if (
            len(moves) == 1
            and moves[0][0] == "dtype"
            and self.context.qualified_name(moves[0][1]) in _FLOAT32
            and (factory is None or keyword_argument(factory, "dtype") is None)
        ):
            return []  # already float32: `.to` returns the leaf itself
        return moves

    def _torch_name(self, factory: cst.Call | None) -> str | None:
        """The local name of the ``torch`` module used by the factory (``torch``, ``T``)."""
        if factory is None:
            return None
        expression = factory.func
        while isinstance(expression, cst.Attribute):
            expression = expression.value
        if isinstance(expression, cst.Name) and self.context.qualified_name(expression) == "torch":
            return expression.value
        return None


def _is_true_value(expression: cst.BaseExpression | None) -> bool:
    return isinstance(expression, cst.Name) and expression.value == "True"


def _target_values(node: cst.Assign) -> list[tuple[cst.BaseExpression, cst.BaseExpression | None]]:
    """Each assigned target with its value; ``a, b = a.cuda(), b.cuda()`` pairs them up."""
    pairs: list[tuple[cst.BaseExpression, cst.BaseExpression | None]] = []
    for target in (assign_target.target for assign_target in node.targets):
        value = node.value
        if type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List):
            if len(target.elements) == len(value.elements):
                pairs.extend((mine.value, theirs.value) for mine, theirs in zip(target.elements, value.elements))
                continue
        pairs.append((target, value))
    return pairs


def _bound_value(binding: BoundName, name: str) -> cst.BaseExpression | None:
    """The value ``binding`` gave ``name``, also for one name of ``a, b = x, y``."""
    if binding.value is not None or not isinstance(binding.node, cst.Assign):
        return binding.value
    for target, value in _target_values(binding.node):
        if isinstance(target, cst.Name) and target.value == name:
            return value
    return None


def _transfer_chain(value: cst.Call, name: str) -> list[tuple[cst.Call, str]]:
    """The moves and casts of ``name.cuda().double()``, innermost first; [] when ``value`` is
    anything else (``name.detach().cuda()``, ``other.cuda()``). A trailing
    ``.requires_grad_()`` (``name.cuda().requires_grad_()``) leaves the copy a non-leaf."""
    chain: list[tuple[cst.Call, str]] = []
    expression: cst.BaseExpression = value
    while isinstance(expression, cst.Call) and (method_call(expression) or (None, ""))[1] == "requires_grad_":
        expression = expression.func.value if isinstance(expression.func, cst.Attribute) else expression
    while isinstance(expression, cst.Call):
        receiver_method = method_call(expression)
        if receiver_method is None or receiver_method[1] not in _REBINDING_METHODS:
            return []
        chain.append((expression, receiver_method[1]))
        expression = receiver_method[0]
    is_name = isinstance(expression, cst.Name) and expression.value == name
    return chain[::-1] if is_name else []


def _with_keywords(factory: cst.Call, moves: list[tuple[str, cst.BaseExpression]]) -> cst.Call | None:
    if has_star_kwargs(factory) or not moves:
        return None
    names = [name for name, _ in moves]
    if len(set(names)) != len(names) or any(keyword_argument(factory, name) for name in names):
        return None
    for name, value in moves:
        factory = with_keyword_appended(factory, keyword(name, value))
    return factory
