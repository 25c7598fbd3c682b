from __future__ import annotations

import libcst as cst

from torchcheck.lint import idioms

from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import TENSOR_KINDS, GradMode, grad_mode_of
from torchcheck.lint.nodes import argument_for, called_name, dotted_name, has_star_kwargs, keyword_argument, method_call
from torchcheck.lint.rule import Invalid, Rule, Valid

# torch.autograd.backward(tensors, ...) / torch.autograd.grad(outputs, inputs, ...)
_AUTOGRAD_ENTRY_POINTS = {
    "torch.autograd.backward": "tensors",
    "torch.autograd.grad": "outputs",
}

# Tensor methods that may return their receiver itself (`loss.float()` on a float tensor) or
# a view of it, which keeps `requires_grad` even under no_grad: their result has a graph
# exactly when the receiver has one.
_KEEPS_GRAPH = frozenset(
    {
        "to", "type", "type_as", "float", "double", "half", "bfloat16", "cuda", "cpu", "contiguous",
        "view", "view_as", "reshape", "reshape_as", "squeeze", "unsqueeze", "flatten", "unflatten",
        "expand", "expand_as", "permute", "transpose", "t", "narrow", "select", "as_strided",
        "split", "chunk", "unbind", "movedim",
    }
)

# Tensor methods that compute from their receiver alone: given literal arguments, their result
# has a graph exactly when the receiver has one, whatever the grad mode.
_FROM_RECEIVER_ALONE = frozenset({"sum", "mean", "norm", "abs", "square", "pow", "exp", "log", "neg", "sqrt"})

# What a local name holds, as far as this rule cares.
_NO_GRAPH = "no-graph"  # a value computed while gradients were certainly off
_NUMBER = "number"  # a number literal: `total += loss` turns it into a computed value
_ENABLES_GRAD = "enables-grad"  # a callable wrapped in `torch.enable_grad()`

_COMPUTED_EARLIER = (
    "Backward pass from `{name}`, computed under `no_grad()`/`inference_mode()` at line {line}: "
    "it has no graph, so this raises"
)


def _from_receiver_alone(call: cst.Call, method: str) -> bool:
    """``x.mean()``, ``x.pow(2)``: a reduction or elementwise method with only literal arguments."""
    return method in _FROM_RECEIVER_ALONE and all(not argument.star and _is_literal(argument.value) for argument in call.args)


def _is_literal(value: cst.BaseExpression) -> bool:
    return isinstance(value, (cst.Integer, cst.Float, cst.BaseString)) or dotted_name(value) in ("True", "False", "None")


def _sets_requires_grad(target: cst.BaseExpression) -> bool:
    """``name.requires_grad = ...``: the name is made a leaf (or TCK112 has something to say)."""
    return isinstance(target, cst.Attribute) and target.attr.value == "requires_grad" and isinstance(target.value, cst.Name)


class BackwardUnderNoGrad(Rule):
    """
    ## What it does
    Checks for `.backward()`, `torch.autograd.backward(...)` and `torch.autograd.grad(...)`
    (and a framework's spelling: `accelerator.backward(loss)`, `self.manual_backward(loss)`)
    called inside `with torch.no_grad():` / `with torch.inference_mode():` (or in a function
    decorated with them) on a value that the same function computed while gradients were
    disabled - or called after such a block on a value computed inside it and not re-bound
    since (the finding names the line that computed it).

    ## Why is this bad?
    Under `no_grad()` (and `inference_mode()`, `set_grad_enabled(False)`) PyTorch records no
    autograd graph: every result has `requires_grad=False` and no `grad_fn`. Calling
    `backward()` on such a result always fails with `RuntimeError: element 0 of tensors does
    not require grad and does not have a grad_fn` - typically in an evaluation loop or a
    `@torch.no_grad()` helper that was later reused for training. Compute the loss with
    gradients enabled: move it out of the `no_grad` region, or wrap the part that needs
    gradients in `with torch.enable_grad():` (the pattern used by gradient-based attacks,
    test-time adaptation and Hessian-vector products inside evaluation code).

    Only values computed with gradients disabled are reported: `backward()` on a loss built
    *before* entering `no_grad()` works, because the graph already exists, and so does one
    on the result of `torch.autograd.grad(..., create_graph=True)`. An
    `enable_grad()` block (or `set_grad_enabled(True)`, `inference_mode(False)`) nested in
    the region turns gradients back on, and values computed there are fine; so does
    `set_grad_enabled(is_train)`, whose mode is only known at run time.

    ## Example
    ```python
    import torch

    @torch.no_grad()
    def evaluate(model, loader, criterion):
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
    ```

    Use instead:
    ```python
    import torch

    @torch.no_grad()
    def evaluate(model, loader, criterion):
        for x, y in loader:
            with torch.enable_grad():
                loss = criterion(model(x), y)
            loss.backward()
    ```

    ## Fix safety
    There is no automatic fix: whether the loss should be computed with gradients, or the
    `backward()` call removed from evaluation code, is a decision about what the code is for.

    ## References
    - [Locally disabling gradient computation](https://pytorch.org/docs/stable/notes/autograd.html#locally-disabling-gradient-computation)
    - [`torch.no_grad`](https://pytorch.org/docs/stable/generated/torch.no_grad.html)
    - [`torch.enable_grad`](https://pytorch.org/docs/stable/generated/torch.enable_grad.html)
    """

    code = "TCK109"
    name = "backward-under-no-grad"
    message = "Backward pass from a value computed under `no_grad()`/`inference_mode()`: it has no graph, so this raises"
    required_text = ("backward", "autograd.grad", "autograd import grad")

    VALID = (
        Valid(
            """
import torch

@torch.no_grad()
def adversarial_example(model, x, y, steps=10, alpha=0.01):
    delta = torch.zeros_like(x)
    for _ in range(steps):
        delta.requires_grad_()
        with torch.enable_grad():
            loss = torch.nn.functional.cross_entropy(model(x + delta), y)
        loss.backward()
        delta = delta.detach() + alpha * delta.grad.sign()
    return x + delta
"""
        ),
        Valid(
            """
import torch

def train_step(model, x, y, optimizer):
    loss = model(x, y)
    with torch.no_grad():
        stats = loss.detach().mean()
        loss.backward()
        optimizer.step()
    return stats
"""
        ),
        Valid(
            """
from torch import autograd, nn
import torch

class Adahessian(torch.optim.Optimizer):
    @torch.no_grad()
    def set_hessian(self, params, zs):
        grads = [p.grad for p in params]
        return autograd.grad(grads, params, grad_outputs=zs)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        return loss
"""
        ),
        Valid(
            """
import torch

def adapt(model, batches, enabled):
    with torch.inference_mode():
        for x in batches:
            with torch.inference_mode(mode=False), torch.set_grad_enabled(True):
                entropy = model(x).softmax(1).log().mean()
                entropy.backward()
            with torch.set_grad_enabled(enabled):
                loss = model(x).sum()
                loss.backward()
"""
        ),
        Valid(
            """
import torch

@torch.enable_grad()  # adapts even when called from a no_grad evaluation loop
def forward_and_adapt(x, model, optimizer):
    outputs = model(x)
    loss = -(outputs.softmax(1) * outputs.log_softmax(1)).sum(1).mean(0)
    loss.backward()
    optimizer.step()
    return outputs

@torch.no_grad()
def step(closure):
    closure = torch.enable_grad()(closure)
    loss = closure()
    loss.backward()
"""
        ),
        Valid(
            """
import torch

with torch.no_grad():
    w = torch.zeros(3, requires_grad=True)
    w.backward(torch.ones(3))
    def closure():
        loss = model(x).sum()
        loss.backward()
        return loss
    accelerator.backward(model(x).sum())
    with amp.scale_loss(loss, optimizer) as scaled_loss:
        scaled_loss.backward()
"""
        ),
        Valid(
            """
import torch

def distill(student, teacher, x, criterion):
    with torch.no_grad():
        target = teacher(x)
        loss = criterion(target, target)
    loss = criterion(student(x), target)
    loss.backward()

def adapt(model, x):
    with torch.no_grad():
        with torch.enable_grad():
            entropy = model(x).softmax(1).log().mean()
    entropy.backward()

def run(model, x, is_train):
    with torch.set_grad_enabled(is_train):
        loss = model(x).sum()
    if is_train:
        loss.backward()

def warm_start(model, x, warmup):
    loss = model(x).sum()
    with torch.no_grad():
        if warmup:
            loss = model(x).sum()
    loss.backward()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch

def distill(student, teacher, x, criterion):
    with torch.no_grad():
        target = teacher(x)
        loss = criterion(student(x), target)
        parts = model(x)
    loss.backward()  # TCK109
    parts.aux.mean().backward()  # TCK109
"""
        ),
        Invalid(
            """
import torch

@torch.no_grad()
def evaluate(model, loader, criterion):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()  # TCK109
"""
        ),
        Invalid(
            """
import torch as T
from torch.autograd import grad

def validate(model, batch):
    with T.inference_mode():
        outputs = model(**batch)
        outputs.loss.backward()  # TCK109
        model(batch["x"]).sum().backward()  # TCK109
        total = 0
        for part in outputs.parts:
            total += part.mean()
        grads = grad(total, model.parameters())  # TCK109
        with T.enable_grad():
            again = model(batch["x"]).sum()
        T.autograd.backward([again, outputs.loss])  # TCK109
"""
        ),
        Invalid(
            """
import torch

class Trainer:
    def step(self, x):
        with torch.no_grad():
            with torch.enable_grad():
                features = self.encoder(x)
            logits = self.head(features)
            self.scaler.scale(logits.sum()).backward()  # TCK109
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        # what each binding (the flow's node, the name) gave its name, when this rule cares
        self._states: dict[tuple[cst.CSTNode, str], str | None] = {}

    # ----------------------------------------------------------------- what names hold
    def _name_state(self, name: str) -> str | None:
        binding = self.context.flow.reaching_binding(name)
        return self._states.get((binding.node, name)) if binding is not None else None

    def _set_state(self, name: str, state: str | None) -> None:
        """Change what the binding of ``name`` that reaches here holds (``+=``, ``requires_grad_()``)."""
        binding = self.context.flow.reaching_binding(name)
        if binding is not None:
            self._states[binding.node, name] = state

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        modes = [grad_mode_of(self.context.qualified_name, decorator.decorator) for decorator in node.decorators]
        modes = [mode for mode in modes if mode is not None]
        if modes and modes[-1] is GradMode.ON:
            self._states[node, node.name.value] = _ENABLES_GRAD

    def _without_graph(self, expression: cst.BaseExpression) -> bool:
        """``expression`` certainly evaluates to a value computed while gradients were off."""
        if isinstance(expression, cst.Name):
            return self._name_state(expression.value) == _NO_GRAPH
        if isinstance(expression, (cst.Attribute, cst.Subscript)):
            return self._without_graph(expression.value)  # `outputs.loss`, `losses[0]`
        if isinstance(expression, cst.NamedExpr):
            return self._without_graph(expression.value)
        if isinstance(expression, cst.IfExp):
            return self._without_graph(expression.body) and self._without_graph(expression.orelse)
        if isinstance(expression, (cst.BinaryOperation, cst.UnaryOperation)):
            return self.context.in_no_grad
        if isinstance(expression, cst.Call):
            if self._may_require_grad(expression):
                return False
            receiver_method = method_call(expression)
            if receiver_method is not None and receiver_method[1] in _KEEPS_GRAPH:
                return self._without_graph(receiver_method[0])
            if receiver_method is not None and _from_receiver_alone(expression, receiver_method[1]):
                return self.context.in_no_grad or self._without_graph(receiver_method[0])
            return self.context.in_no_grad
        return False

    def _may_require_grad(self, call: cst.Call) -> bool:
        """Calls whose result can require gradients even under ``no_grad()``."""
        qualified = self.context.call_name(call) or ""
        if keyword_argument(call, "requires_grad") is not None or (has_star_kwargs(call) and qualified.startswith("torch.")):
            return True  # torch.zeros(3, requires_grad=True): a leaf
        if qualified.rsplit(".", 1)[-1] == "Parameter":
            return True
        create_graph = keyword_argument(call, "create_graph")
        if create_graph is not None and dotted_name(create_graph.value) != "False":
            return True  # autograd.grad(..., create_graph=True) builds a graph even under no_grad
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_":
            return True
        if isinstance(func, cst.Call) and grad_mode_of(self.context.qualified_name, func.func) is not None:
            return True  # torch.enable_grad()(closure)(...)
        return isinstance(func, cst.Name) and self._name_state(func.value) == _ENABLES_GRAD

    def _state(self, value: cst.BaseExpression | None) -> str | None:
        if value is None:
            return None
        if isinstance(value, (cst.Integer, cst.Float)):
            return _NUMBER
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Call)
            and grad_mode_of(self.context.qualified_name, value.func.func) is GradMode.ON
        ):
            return _ENABLES_GRAD  # closure = torch.enable_grad()(closure)
        return _NO_GRAPH if self._without_graph(value) else None

    def _bind(self, node: cst.CSTNode, target: cst.BaseExpression, state: str | None) -> None:
        """Record what ``node`` (the binding statement, as the flow knows it) gives ``target``."""
        if isinstance(target, cst.Name):
            self._states[node, target.value] = state
        elif isinstance(target, (cst.Tuple, cst.List, cst.StarredElement)):
            parts = [target.value] if isinstance(target, cst.StarredElement) else [element.value for element in target.elements]
            for part in parts:
                self._bind(node, part, state if state == _NO_GRAPH else None)

    def _assign(self, node: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
        ):
            for target_element, value_element in zip(target.elements, value.elements):
                self._bind(node, target_element.value, self._state(value_element.value))
        else:
            self._bind(node, target, self._state(value))

    # The rules see a binding statement before the flow records it, so the names its value
    # reads still resolve to the bindings that reach it.
    def leave_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assign(node, target.target, node.value)
            if _sets_requires_grad(target.target):
                self._set_state(target.target.value.value, None)  # type: ignore[attr-defined]

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._assign(node, node.target, node.value)

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._assign(node, node.target, node.value)

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        if not isinstance(node.target, cst.Name):
            return
        previous = self._name_state(node.target.value)
        # `total += part` under no_grad: a number or a graph-free tensor stays graph-free
        keeps_no_graph = self.context.in_no_grad and previous in (_NO_GRAPH, _NUMBER)
        self._set_state(node.target.value, _NO_GRAPH if keeps_no_graph else None)

    # ----------------------------------------------------------------- calls
    def visit_Call(self, node: cst.Call) -> None:
        receiver, method = method_call(node) or (None, None)
        if method == "requires_grad_" and isinstance(receiver, cst.Name):
            self._set_state(receiver.value, None)  # made a leaf that requires grad
            return
        if called_name(node) not in ("backward", "grad", *idioms.SELF_BACKWARD_METHODS):
            return  # a cheap test first: this runs on every call of the file
        roots = self._autograd_roots(node)
        graph_free = next((root for root in roots if self._without_graph(root)), None)
        if graph_free is None:
            return
        if self.context.in_no_grad:
            self.report(node)
            return
        origin = self._origin(graph_free)
        if origin is not None:
            self.report(node, _COMPUTED_EARLIER.format(name=origin[0], line=self.context.line_of(origin[1])))

    def _origin(self, expression: cst.BaseExpression) -> tuple[str, cst.CSTNode] | None:
        """The name a graph-free value was read from and the statement that bound it."""
        while not isinstance(expression, cst.Name):
            receiver_method = method_call(expression) if isinstance(expression, cst.Call) else None
            if receiver_method is not None:
                expression = receiver_method[0]
            elif isinstance(expression, (cst.Attribute, cst.Subscript, cst.NamedExpr)):
                expression = expression.value
            else:
                return None
        binding = self.context.flow.reaching_binding(expression.value)
        return (expression.value, binding.node) if binding is not None else None

    def _autograd_roots(self, call: cst.Call) -> list[cst.BaseExpression]:
        """The tensors a backward pass would start from (empty when this is not one)."""
        qualified = self.context.call_name(call)
        receiver_method = method_call(call)
        subject = self.context.backward_subject(call) if qualified is None and receiver_method is not None else None
        if subject is not None and subject is not receiver_method[0]:  # type: ignore[index]
            return [subject]  # `accelerator.backward(loss)`, `self.manual_backward(loss)`
        if qualified is None and receiver_method is not None and receiver_method[1] == "backward":
            receiver = receiver_method[0]
            kind = self.context.kind_of(receiver)
            return [receiver] if kind is None or kind in TENSOR_KINDS else []
        keyword = _AUTOGRAD_ENTRY_POINTS.get(qualified or "")
        if keyword is None or any(argument.star for argument in call.args):
            return []
        argument = argument_for(call, 0, keyword)  # no star argument is passed
        if argument is None:
            return []
        if isinstance(argument.value, (cst.List, cst.Tuple)):
            return [element.value for element in argument.value.elements if not isinstance(element, cst.StarredElement)]
        return [argument.value]
