from __future__ import annotations

import libcst as cst

from torchcheck.lint import references, torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.edits import DROPPED_KEYWORDS, cuda_moves, keyword_name, with_keywords_added
from torchcheck.lint.kinds import Kind
from torchcheck.lint.placement import KEEPS, destination, device_left, is_device_expression
from torchcheck.lint.optimized import attribute_gradient_wanted
from torchcheck.lint.nodes import assigned_pairs, dotted_name, keyword_argument, literal_bool, method_call
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

# Factories that accept device=, dtype= and requires_grad= (torch.from_numpy takes none).
_FACTORIES = (torch_api.TENSOR_FACTORIES | torch_api.TENSOR_LIKE_FACTORIES) - {"torch.from_numpy"}
_PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# The legacy wrapper: `Variable(t, requires_grad=True)` is a leaf that requires grad.
_VARIABLES = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
_CAST_METHODS = {"double": "float64", "half": "float16", "bfloat16": "bfloat16"}
_TRANSFER_METHODS = frozenset({"to", "cuda", *_CAST_METHODS})
_FLOAT32 = frozenset({"torch.float32", "torch.float"})

# A re-binding `x = x.cuda()` may also cast with `.float()` (a copy unless already float32)
# and `.type(...)`; `.cpu()` returns a CPU leaf itself.
_REBINDING_METHODS = _TRANSFER_METHODS | {"float", "type"}
# `x.requires_grad_()` makes a leaf of a tensor that did not require grad; on a copy of a
# leaf that does, it changes nothing (the copy already requires grad and is no leaf).
# `x.retain_grad()` fills the copy's `.grad` although it is not a leaf.
_GRAD_METHODS = frozenset({"requires_grad_", "retain_grad"})
# What the code does to a binding, besides those methods: wants its gradient (reads its
# `.grad`, hands it to an optimizer, returns it).
_WANTED = "gradient wanted"

_OPTIMIZERS = "torch.optim."
# Where a binding leaves a tensor: wherever it already was (a re-binding that casts only).

_UNREGISTERED = (
    "`nn.Parameter(...)` moved or cast in the same expression is a plain tensor copy: the module does not register it "
    "(not in `parameters()` or `state_dict()`); build the data on the device first, or move the whole module"
)
_REBOUND = (
    "`{name}` was made a tensor that requires grad at line {line}; re-binding it to a moved or cast copy "
    "leaves a non-leaf whose `.grad` stays `None`"
)

# (keyword, value) pairs to move into the factory; None where no fix can be built.
_Moves = list[tuple[str, cst.BaseExpression]] | None


def _flag(argument: cst.Arg | None) -> bool | None:
    """``True``/``False`` passed as ``argument``; None for anything else."""
    return literal_bool(argument.value) if argument is not None else None


class RequiresGradLostByTransfer(Rule):
    """
    ## What it does
    Checks for a tensor created with `requires_grad=True` (or made a parameter) and then
    moved or cast in the same expression: `torch.randn(3, requires_grad=True).to(device)`,
    `.cuda()`, `.double()`, `.half()`, `.type(torch.cuda.FloatTensor)`, `torch.zeros(3).requires_grad_().cuda()`,
    `nn.Parameter(w).cuda()`, the legacy `Variable(w, requires_grad=True).cuda()` - or in a later statement that re-binds the name to the copy:
    `x = torch.randn(3, requires_grad=True)` (or `x.requires_grad = True`) followed by
    `x = x.cuda()`, `x = x.to(device)`, `x = x.double()`, `x = x.type(...)`, or `x = x.float()`
    on a tensor made in another dtype, or `x = x.requires_grad_().to(device)` (the leaf made and
    copied in one statement). The re-binding is reported and the finding names the
    line that made the leaf. When the copy is bound to a name (also through arithmetic:
    `x = leaf.cuda() / 127.5 - 1`, where no fix is offered), it is reported only if the
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
    requires grad; it is still not a leaf). A copy is not reported when the code then
    calls `x.retain_grad()` on it (its `.grad` is then kept), nor a re-binding that makes the copy a new leaf
    (`x = x.detach().to(device).requires_grad_()`), or when the factory already passed the
    `device=`/`dtype=` the call sets (it may return the leaf itself). Likewise
    `nn.Parameter(w).to(device)` is not reported when every assignment of `w` that reaches it
    already moved `w` to that same `device` (or only changed its dtype after such a move),
    or when the wrapped tensor is moved there in the same expression
    (`nn.Parameter(torch.randn(n, d).to(device)).to(device)`): the transfer then returns the
    parameter itself. A frozen parameter (`nn.Parameter(w, requires_grad=False)`) moved in the
    same expression inside a module class, and kept (assigned, returned or handed to
    `setattr`), is reported too: its `.grad` is not wanted, but the copy is a plain tensor
    the module never registers, so it is missing from `parameters()` and `state_dict()`.
    One used up in the expression around it (`x + nn.Parameter(pe, requires_grad=False).to(device)`)
    was never going to be registered, and is left alone.

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
import numpy as np
import torch


def load_samples(images):
    src = []
    with torch.no_grad():
        for image in images:
            x = torch.tensor(np.asarray(image, dtype=np.float32), requires_grad=True).cuda() / 127.5 - 1.0
            src.append(x)
    return torch.stack(src)
"""
        ),
        Valid(
            """
import torch
from torch import nn
class ValueNorm(nn.Module):
    def __init__(self, shape):
        super().__init__()
        self.running_mean = nn.Parameter(torch.zeros(shape), requires_grad=False)
def build(shape, device):
    frozen = nn.Parameter(torch.zeros(shape), requires_grad=False).to(device)  # outside a module: nothing to register
    return ValueNorm(shape).to(device), frozen
"""
        ),
        Valid(
            """
import torch
from torch import nn
class PositionalEncoding(nn.Module):
    def __init__(self, table, device):
        super().__init__()
        self.table = table
        self.device = device
    def forward(self, x):
        return x + nn.Parameter(self.table, requires_grad=False).to(self.device)  # used up at once: nothing to register
"""
        ),
        Valid(
            """
import torch
from torch import nn
class GraphNet(nn.Module):
    def __init__(self, nodes, device):
        super().__init__()
        self.nodevec = nn.Parameter(torch.randn(nodes, 10).to(device), requires_grad=True).to(device)
"""
        ),
        Valid(
            """
import torch

class Smoother:
    def __init__(self, device, steps):
        self.kernel = torch.ones(5, requires_grad=True)
        self.kernel = self.kernel.to(device)
        self.steps = torch.zeros(3, requires_grad=True)
        self.steps = self.steps.to(device)

    def forward(self, x):
        return torch.conv1d(x, self.kernel.view(1, 1, -1))

    def optimizer(self):
        return torch.optim.SGD([{"params": [], "lr": self.steps}])
"""
        ),
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
    return w, v, p, a, e, d
"""
        ),
        Valid(
            """
import torch
from torch import nn

def place(module, name, value, device, dtype=None):
    if value is None:
        moved = module.weight.to(device)
        if dtype is not None:
            moved = moved.to(dtype)
    elif isinstance(value, torch.Tensor):
        moved = value.to(device, non_blocking=True)
    else:
        moved = torch.tensor(value, device=device)
    if name.endswith("_q"):
        moved = moved.to("cpu")
        setattr(module, name, nn.Parameter(moved, requires_grad=False).cpu())
    else:
        setattr(module, name, nn.Parameter(moved).to(device))
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch


def fit(loss_fn, steps):
    shift = torch.zeros(3, requires_grad=True).cuda() * 2  # TCK108
    optimizer = torch.optim.SGD([shift], lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        loss_fn(shift).backward()
        optimizer.step()
"""
        ),
        Invalid(
            """
import torch

def test_direction_has_grad(device):
    seeds = torch.eye(2) + 0.1
    seeds = seeds.requires_grad_().to(device)  # TCK108
    project(seeds).sum().backward()
    assert seeds.grad is not None
"""
        ),
        Invalid(
            """
import torch
from torch import nn
class ValueNorm(nn.Module):
    def __init__(self, shape, device):
        super().__init__()
        self.running_mean = nn.Parameter(torch.zeros(shape), requires_grad=False).to(device)  # TCK108
"""
        ),
        Invalid(
            """
import torch
from torch import nn
class GraphNet(nn.Module):
    def __init__(self, nodes, device):
        super().__init__()
        self.nodevec = nn.Parameter(torch.randn(nodes, 10).double(), requires_grad=True).to(device)  # TCK108
"""
        ),
        Invalid(
            """
import torch

class Experiment:
    def __init__(self, device, learn_dynamics):
        self.scale = torch.ones(4, requires_grad=True)
        self.scale = self.scale.to(device)  # TCK108
        if learn_dynamics:
            self.dynamics = torch.tensor((9.8, 1.0), requires_grad=True)
        else:
            self.dynamics = torch.tensor((9.8, 1.0))
        self.dynamics = self.dynamics.to(device)  # TCK108

    def optimizer(self):
        params = []
        params += [self.scale]
        return torch.optim.RMSprop([{"params": params, "lr": 0.01}, {"params": self.dynamics}])

def initial_state(data):
    if data is None:
        data = torch.randn(3, requires_grad=True)
    data = data.cuda()  # TCK108
    return data
"""
        ),
        Invalid(
            """
import torch

def transfer(model, content, use_cuda):
    image = torch.randn(content.shape) * 1e-3
    image.requires_grad = True
    if use_cuda:
        image = image.cuda()  # TCK108
    optimizer = torch.optim.Adam([image], lr=0.002)
    model(image).sum().backward()
    optimizer.step()
"""
        ),
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
print(scale.grad, x.grad, y.grad, v.grad)
""",
            expected_replacement="""
import torch as T
scale = T.ones(1, requires_grad=True, dtype=T.float64)  # TCK108
x = T.rand(4, requires_grad=True, device="cuda:1", dtype=T.float16)  # TCK108
y = T.empty(4, device="cuda:0").requires_grad_()  # TCK108
v = T.autograd.Variable(T.randn(4), requires_grad=True).cuda()  # TCK108
print(scale.grad, x.grad, y.grad, v.grad)
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
        Invalid(
            """
import torch
from torch import nn

def load(module, value, device):
    if value.is_floating_point():
        value = value.to(device)
    module.weight = nn.Parameter(value).to(device)  # TCK108
    staged = value.to("cpu")
    module.bias = nn.Parameter(staged).to(device)  # TCK108
    scaled = value.to(device)
    module.scale = nn.Parameter(scaled).to(device, torch.float16)  # TCK108
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        # (binding node, name, what): `requires_grad_`/`retain_grad` called on the binding
        # (or `x.requires_grad = True`), or _WANTED
        self._marks: set[tuple[cst.CSTNode, str, str]] = set()
        # Reported at the end if the code wants the gradient of `name` as bound by `statement`:
        # (node, statement, name, the leaf re-bound or None, fix). A re-binding `x = x.cuda()`
        # names x's leaf; a copy bound at once (`w = torch.randn(3, requires_grad=True).cuda()`) does not.
        self._pending: list[tuple[cst.CSTNode, cst.Assign, str, cst.CSTNode | None, cst.Call | None]] = []
        # `nn.Parameter(w).to(device)`: (the transfer, the Name wrapped, the device as spelled),
        # decided at the end: a `w` already moved to that device makes the transfer a no-op
        self._wrapped_moves: list[tuple[cst.Call, cst.Name, str, str | None]] = []  # and the message
        # (assignment, name) -> the device it surely leaves the name on, as spelled (KEEPS:
        # wherever it was; None: unknown)
        self._placed: dict[tuple[int, str], str | None] = {}

    def _mark(self, expression: cst.BaseExpression, what: str) -> None:
        """Note ``what`` of the binding of a name (or, for _WANTED, of names in a tuple or list)."""
        if isinstance(expression, (cst.Tuple, cst.List)) and what == _WANTED:
            for element in expression.elements:
                self._mark(element.value, what)
        elif (path := dotted_name(expression)) is not None:  # every binding that may reach: one path is enough
            self._marks.update((binding.node, path, what) for binding in self.context.flow.reaching_bindings(path))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "grad":
            self._mark(node.value, _WANTED)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self._mark(node.value, _WANTED)

    def leave_Module(self, node: cst.Module) -> None:
        for transfer, wrapped, device, message in self._wrapped_moves:
            if not self._already_on(wrapped, device):
                self.report(transfer, message)
        # A copy that only feeds a forward pass still carries requires_grad (checkpointing
        # tests, gradcheck): only a copy whose `.grad` the code wants is a mistake.
        for reported, statement, name, leaf, replacement in self._pending:
            excused = (statement, name, "retain_grad") in self._marks  # `.grad` of the copy is kept
            if ((statement, name, _WANTED) in self._marks or self._wanted_elsewhere(statement, name)) and not excused:
                message = _REBOUND.format(name=name, line=self.context.line_of(leaf)) if leaf is not None else None
                self.report(reported, message, replacement=replacement)

    # ------------------------------------------------ across statements: `x = x.cuda()`
    # The rules see a binding statement before the flow records it, so the names its value
    # reads still resolve to the bindings that reach it.
    def leave_Assign(self, node: cst.Assign) -> None:
        for target, value in assigned_pairs(node):
            if isinstance(target, cst.Name):
                self._placed[(id(node), target.value)] = device_left(self.context, value, target.value)
            if isinstance(target, cst.Attribute) and target.attr.value == "requires_grad" and literal_bool(value):
                self._mark(target.value, "requires_grad_")
                continue
            name = dotted_name(target) or ""  # a name, or an attribute (`self.w = self.w.cuda()`)
            chain, made_here = _transfer_chain(value, name) if name else ([], False)
            if made_here and any(self._copies(call, method, None) for call, method in chain):  # `x = x.requires_grad_().to(device)`
                self._pending.append((node, node, name, node, None))
                continue
            for binding in self.context.flow.reaching_bindings(name) if chain else ():  # one path is enough
                held = binding.whole_value  # what the name held before: a leaf that requires grad?
                factory = self._leaf_factory(held)[0]
                leaf = factory is not None or (binding.node, name, "requires_grad_") in self._marks or self._wraps_a_leaf(held)
                if leaf and any(self._copies(call, method, factory) for call, method in chain):
                    self._pending.append((node, node, name, binding.node, None))
                    break

    def _wanted_elsewhere(self, statement: cst.CSTNode, path: str) -> bool:
        """``self.w``'s gradient wanted by another method of the class (its optimizer is built there)."""
        owner = self.context.binder.enclosing(statement, cst.ClassDef)
        attribute = path.removeprefix("self.")
        return isinstance(owner, cst.ClassDef) and "." not in attribute and attribute != path and attribute_gradient_wanted(self.context, owner, attribute)

    def _wraps_a_leaf(self, call: cst.BaseExpression | None) -> bool:
        """``nn.Parameter(w)`` (unless ``requires_grad=False``) or the legacy
        ``Variable(w, requires_grad=True)``: a new leaf that requires grad."""
        if not isinstance(call, cst.Call):
            return False
        called, requires_grad = self.context.call_name(call), _flag(keyword_argument(call, "requires_grad"))
        return requires_grad is not False if called in _PARAMETERS else called in _VARIABLES and requires_grad is True

    def _copies(self, call: cst.Call, method: str, factory: cst.Call | None) -> bool:
        """Whether ``call`` (a link of ``x.cuda().double()``) returns a copy of the leaf. Where
        the factory already chose the device or dtype the call sets, it may return the leaf."""
        chose = {name: argument.value for name in ("device", "dtype") if factory is not None and (argument := keyword_argument(factory, name))}
        if method == "float":
            return "dtype" in chose and not call.args and self.context.qualified_name(chose["dtype"]) not in _FLOAT32
        if method == "type":
            if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star or chose:
                return False  # `x.type()` returns a string
            return self.context.qualified_name(call.args[0].value) not in (*_FLOAT32, "torch.FloatTensor")  # CPU float32: itself
        if method in _CAST_METHODS:
            return not call.args and "dtype" not in chose
        if method == "cuda":
            return "device" not in chose
        moves = self._moves(call, method, factory)
        return not chose if moves is None else any(name not in chose for name, _ in moves)

    # ------------------------------------------------ in one expression: `torch.randn(...).cuda()`
    def visit_Call(self, node: cst.Call) -> None:
        if (self.context.call_name(node) or "").startswith(_OPTIMIZERS):
            for argument in node.args:
                self._mark(argument.value, _WANTED)  # torch.optim.SGD([w], lr=0.1)
        if (found := method_call(node)) is None:
            return
        source, method = found
        if method in _GRAD_METHODS and not (node.args and _flag(node.args[0]) is False):
            self._mark(source, method)
        if method == "type" and isinstance(source, cst.Call):
            factory = self._leaf_factory(source)[0]
            if factory is not None and self._copies(node, method, factory):
                self._report_unless_unwanted(node, None)  # `.type(torch.cuda.FloatTensor)`: no keyword spells it
            return
        if method not in _TRANSFER_METHODS or not isinstance(source, cst.Call):
            return
        factory, wrapper = self._leaf_factory(source)
        leaf = self._wraps_a_leaf(source)  # else maybe a frozen parameter of a module: `nn.Parameter(w, requires_grad=False).to(device)`
        frozen = not leaf and self.context.call_name(source) in _PARAMETERS and self.context.in_module_class and references.kept(self.context.binder, node)
        moves = self._moves(node, method, factory) if factory is not None or leaf or frozen else []
        if moves == []:
            return  # no leaf, not a transfer (`.to()`), or a no-op cast (`.to(torch.float32)`)
        if factory is None and self.context.call_name(source) not in _VARIABLES:  # a Variable's copy: like a factory's
            # `nn.Parameter(w).cuda()` is no parameter, whatever the code does with it, unless
            # `w` is already on that device: then the transfer returns the parameter itself
            wrapped = source.args[0].value if source.args and not source.args[0].star else None
            device = destination(self.context, node, method)
            placed = device not in (None, KEEPS) and moves is not None and [name for name, _ in moves] == ["device"]  # only moves
            message = _UNREGISTERED if frozen else None
            if placed and isinstance(wrapped, cst.Name):
                self._wrapped_moves.append((node, wrapped, device, message))  # type: ignore[arg-type]
            elif not (placed and wrapped is not None and device_left(self.context, wrapped, "") == device):  # `nn.Parameter(w.to(device)).to(device)`
                self.report(node, message)
            return
        replacement = with_keywords_added(factory, moves or []) if factory is not None else None
        if replacement is not None and wrapper is not None:
            replacement = wrapper.with_changes(func=wrapper.func.with_changes(value=replacement))
        self._report_unless_unwanted(node, replacement)

    def _already_on(self, wrapped: cst.Name, device: str) -> bool:
        """Whether every binding of ``wrapped`` that may reach it left the tensor on
        ``device`` (as spelled): one of them moved it there, and the others only changed
        its dtype. Bindings in another branch of an ``if`` around it never reach it."""
        binder = self.context.binder
        around = {id(ancestor) for ancestor in binder.ancestors(wrapped)}  # the statement binding the result
        reaching = [b for b in binder.bindings_before(wrapped) if id(b.node) not in around and not references.on_other_branch(binder, b.node, wrapped)]
        placed = [self._placed.get((id(binding.node), wrapped.value)) for binding in reaching]
        return bool(placed) and device in placed and all(where in (device, KEEPS) for where in placed)

    def _report_unless_unwanted(self, node: cst.Call, replacement: cst.BaseExpression | None) -> None:
        """A copy bound to a name, also through arithmetic (``x = leaf.cuda() / 127.5 - 1``),
        waits until the file shows whether that name's gradient is wanted."""
        value = references.arithmetic_around(self.context.binder, node)
        replacement = replacement if value is node else None  # `leaf.cuda() * 2` stays a non-leaf on the right device too
        statement = self.context.statement_holding(value)
        target = statement.targets[0].target if isinstance(statement, cst.Assign) and len(statement.targets) == 1 else None
        if isinstance(target, cst.Name):
            self._pending.append((node, statement, target.value, None, replacement))
        else:
            self.report(node, replacement=replacement)

    def _leaf_factory(self, source: cst.BaseExpression | None) -> tuple[cst.Call | None, cst.Call | None]:
        """The factory that builds the leaf, and the ``.requires_grad_()`` call around it if any."""
        if not isinstance(source, cst.Call):
            return None, None
        if self.context.call_name(source) in _FACTORIES:
            return (source, None) if _flag(keyword_argument(source, "requires_grad")) else (None, None)
        inner, method = method_call(source) or (None, None)
        if method != "requires_grad_" or not isinstance(inner, cst.Call) or source.args and not _flag(source.args[0]):
            return None, None
        made = self.context.call_name(inner) in _FACTORIES and keyword_argument(inner, "requires_grad") is None
        return (inner, source) if made else (None, None)

    def _moves(self, call: cst.Call, method: str, factory: cst.Call | None) -> _Moves:
        """What the transfer changes, as factory keywords; [] when it changes nothing."""
        if method in _CAST_METHODS:  # `torch.float64` through the name the factory uses for torch (`T`)
            torch_module = (dotted_name(factory.func) or "").partition(".")[0] if factory is not None else ""
            if call.args or not torch_module or self.context.qualified_name(cst.Name(torch_module)) != "torch":
                return None
            return [("dtype", cst.Attribute(value=cst.Name(torch_module), attr=cst.Name(_CAST_METHODS[method])))]
        if method == "cuda":
            return cuda_moves(call)
        moves: list[tuple[str, cst.BaseExpression]] = []
        for argument in call.args:
            name = None if argument.star else keyword_name(argument) or self._keyword_for(argument.value)
            if name not in ("device", "dtype", *DROPPED_KEYWORDS):
                return None  # `*args`, `.to(other_tensor)` or something unknown
            if name not in DROPPED_KEYWORDS:
                moves.append((name, argument.value))
        to_float32 = [name for name, _ in moves] == ["dtype"] and self.context.qualified_name(moves[0][1]) in _FLOAT32
        return [] if to_float32 and (factory is None or keyword_argument(factory, "dtype") is None) else moves  # float32 already: the leaf itself

    def _keyword_for(self, value: cst.BaseExpression) -> str | None:
        """The factory keyword a positional argument of ``.to()`` stands for."""
        kind = self.context.kind_of(value)
        return "dtype" if kind is Kind.DTYPE else "device" if is_device_expression(value, kind) else None


def _transfer_chain(value: cst.BaseExpression, name: str) -> tuple[list[tuple[cst.Call, str]], bool]:
    """The moves and casts of ``name.cuda().double()``, innermost first; [] when ``value`` is
    anything else (``name.detach().cuda()``, ``other.cuda()``). A trailing
    ``.requires_grad_()`` (``name.cuda().requires_grad_()``) leaves the copy a non-leaf; a
    leading one (``name.requires_grad_().cuda()``) makes ``name`` the leaf right there: True."""
    chain: list[tuple[cst.Call, str]] = []
    expression: cst.BaseExpression = value
    while (found := method_call(expression)) is not None and found[1] == "requires_grad_":
        expression = found[0]
    while (found := method_call(expression)) is not None and found[1] in _REBINDING_METHODS:
        chain.append((expression, found[1]))  # type: ignore[arg-type]
        expression = found[0]
    made_here = (found := method_call(expression)) is not None and found[1] == "requires_grad_" and _flag(next(iter(expression.args), None)) is not False  # type: ignore[attr-defined]
    if made_here:
        expression = found[0]  # type: ignore[index]
    return (chain[::-1], made_here) if dotted_name(expression) == name and chain else ([], False)
