from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import Event
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import dotted_name, literal_bool, one_line, subtree
from torchcheck.lint.rule import Invalid, Rule, Valid

_BACKPROPAGATED_AT = (
    "`{forced}` silences the missing-graph error instead of fixing it: `{name}` without a graph becomes "
    "a leaf, and `{backward}` at line {line} gives no parameter a gradient"
)
# Calls that backpropagate their first argument: `accelerator.backward(loss)`, Lightning's
# `self.manual_backward(loss)`, `torch.autograd.backward(loss)`.
_BACKWARD_FUNCTIONS = frozenset({"backward", "manual_backward"})
_AUTOGRAD_BACKWARD = frozenset({"torch.autograd.backward"})
_PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# Values that are leaves on purpose: a tensor built by a factory of sizes or literal data.
_LEAF_METHODS = frozenset({"new_tensor", "new_zeros", "new_ones", "new_empty", "new_full"})
_DATA_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.Tensor", "torch.FloatTensor"})
_CUTTING_METHODS = frozenset({"detach", "item", "numpy", "tolist"})
_MAX_CUT_DEPTH = 2
_MOVES = frozenset({"to", "cuda", "cpu", "float", "double", "half", "clone"})


@dataclass(frozen=True)
class _Forced:
    name: str  # the value forced to require grad, as the code names it
    node: cst.CSTNode  # the assignment or the call, where the finding is reported
    event: Event


class LossRequiresGradForced(Rule):
    """
    ## What it does
    Checks for `loss.requires_grad = True` and `loss.requires_grad_()` on a value that
    `.backward()` is then called on.

    ## Why is this bad?
    `loss.backward()` raises `element 0 of tensors does not require grad and does not have a
    grad_fn` when the loss was computed without an autograd graph: under `torch.no_grad()`,
    from `.detach()`ed or `.item()` values, from NumPy, or from a model whose parameters are
    all frozen. Setting `requires_grad` on the loss silences the error but does not give it a
    graph: the loss becomes a leaf of its own, `backward()` computes the gradient of the
    loss with respect to itself, and no parameter of the model receives a gradient. Training
    runs, the loss never decreases, and the real cause stays hidden. Find where the graph
    is cut and remove the cut (or unfreeze the parameters that should train).

    The assignment is reported whenever `.backward()` follows on the same value: it raises
    on a value that has a graph, so when it runs, the loss had none. `requires_grad_()` does
    nothing to a value that already has a graph, so it is reported only when the code shows
    the graph was cut: the value comes from `.detach()`, `.item()`, `.data`, a copy into a
    new tensor (`torch.tensor(loss_value)`) or an assignment under `no_grad`. A value built
    as a leaf on purpose (`torch.zeros(3)`, `torch.tensor([0.5])`, `nn.Parameter`) is not
    reported, nor is a detached copy that starts a new graph when `.backward()` is called on
    what is computed from it (`h = out.detach().requires_grad_(); head(h).backward()`).

    ## Example
    ```python
    import torch

    with torch.no_grad():
        logits = model(images)
    loss = criterion(logits, labels)
    loss.requires_grad = True
    loss.backward()
    optimizer.step()
    ```

    Use instead:
    ```python
    logits = model(images)
    loss = criterion(logits, labels)
    loss.backward()
    optimizer.step()
    ```

    ## Fix safety
    There is no automatic fix: the line to remove is the one that cuts the graph, which only
    the author can find.

    ## References
    - [Adding `loss.requires_grad = True` silences the error but the loss never declines (ronghuaiyang/arcface-pytorch#56)](https://github.com/ronghuaiyang/arcface-pytorch/issues/56)
    - [Autograd mechanics: how autograd encodes the history](https://pytorch.org/docs/stable/notes/autograd.html#how-autograd-encodes-the-history)
    - [`torch.Tensor.requires_grad_`](https://pytorch.org/docs/stable/generated/torch.Tensor.requires_grad_.html)
    """

    code = "TCK112"
    name = "loss-requires-grad-forced"
    message = "`requires_grad` forced on a value that is then backpropagated: no parameter gets a gradient"
    required_text = ("requires_grad",)

    VALID = (
        Valid(
            """
logits = model(images)
loss = criterion(logits, labels)
loss.backward()
optimizer.step()
"""
        ),
        Valid(
            """
import torch

images.requires_grad_()
loss = criterion(model(images), labels)
loss.backward()
adversarial = images + epsilon * images.grad.sign()
"""
        ),
        Valid(
            """
import torch

x = torch.zeros(3, 8)
x.requires_grad = True
y = (x * 2).sum()
y.backward()
"""
        ),
        Valid(
            """
import torch

weights = torch.ones(10)
weights.requires_grad_()
weights.backward(torch.ones(10))
bias = torch.tensor([0.5, -0.5])
bias.requires_grad = True
bias.sum().backward()
"""
        ),
        Valid(
            """
def backward_through_checkpoint(model, stage_input, grad_output):
    detached = stage_input.detach()
    detached.requires_grad_()
    output = model(detached)
    output.backward(grad_output)
    return detached.grad
"""
        ),
        Valid(
            """
loss = criterion(model(images), labels)
if debug:
    loss.requires_grad = True
else:
    loss.backward()
"""
        ),
        Valid(
            """
loss = criterion(model(images), labels)
loss.requires_grad_(False)
loss = criterion(model(images), labels)
loss.backward()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch

with torch.no_grad():
    logits = model(images)
loss = criterion(logits, labels)
loss.requires_grad = True  # TCK112
loss.backward()
optimizer.step()
"""
        ),
        Invalid(
            """
def train_step(model, batch, criterion, optimizer, scaler, accumulation_steps):
    loss = criterion(model(batch["x"]).detach(), batch["y"])
    loss.requires_grad_(True)  # TCK112
    loss = loss / accumulation_steps
    scaler.scale(loss).backward()
"""
        ),
        Invalid(
            """
import torch

def update_critic(critic_optimizer, returns, values):
    critic_loss = torch.as_tensor([((returns - values) ** 2).mean().item()])
    critic_loss.requires_grad_()  # TCK112
    critic_optimizer.zero_grad()
    critic_loss.backward()
    critic_optimizer.step()
    loss = criterion(values.detach(), returns)
    loss.requires_grad_().backward()  # TCK112
"""
        ),
        Invalid(
            """
class Trainer:
    def training_step(self, batch):
        outputs = self.model(**batch)
        loss = self.criterion(outputs.logits.detach(), batch["labels"]).requires_grad_()  # TCK112
        self.accelerator.backward(loss)
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._forced: list[_Forced] = []
        self._without_graph: set[cst.CSTNode] = set()  # assignments run under no_grad

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.context.in_no_grad:
            self._without_graph.add(node)
        if literal_bool(node.value):
            for target in node.targets:
                if isinstance(target.target, cst.Attribute) and target.target.attr.value == "requires_grad":
                    # assigning raises on a value that has a graph: when it runs, there was none
                    self._force(target.target.value, node)
        elif _forces_requires_grad(node.value) and len(node.targets) == 1:
            # `loss = criterion(out.detach(), y).requires_grad_()`: the name holds the forced value;
            # stamped with the assignment, so that the binding it makes is not a re-binding
            receiver = node.value.func.value  # type: ignore[attr-defined]
            if self._graph_cut(receiver, 0) and not self._is_leaf(receiver):
                self._force(node.targets[0].target, node.value, stamp=node)

    def visit_Call(self, node: cst.Call) -> None:
        if _forces_requires_grad(node) and dotted_name(node.func.value) is not None:  # type: ignore[attr-defined]
            if self._graph_cut(node.func.value, 0):  # type: ignore[attr-defined]
                self._force(node.func.value, node)  # type: ignore[attr-defined]
            return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward" and _forces_requires_grad(node.func.value):
            # `loss.requires_grad_().backward()`: both in one expression
            receiver = node.func.value.func.value  # type: ignore[attr-defined]
            forced = self._forced_value(receiver, node.func.value) if self._graph_cut(receiver, 0) else None
            if forced is not None:
                self._report(forced, node)
            return
        backpropagated = self._backpropagated(node)
        if backpropagated is not None:
            self._check_backward(backpropagated, node)

    def _force(self, target: cst.BaseExpression, node: cst.CSTNode, *, stamp: cst.CSTNode | None = None) -> None:
        forced = self._forced_value(target, node, stamp)
        if forced is not None:
            self._forced.append(forced)

    def _forced_value(self, target: cst.BaseExpression, node: cst.CSTNode, stamp: cst.CSTNode | None = None) -> _Forced | None:
        name = dotted_name(target)
        if name is None or self._built_as_leaf(name):
            return None
        return _Forced(name, node, self.context.flow.event(stamp or node))

    def _graph_cut(self, expression: cst.BaseExpression, depth: int) -> bool:
        """Whether the code shows the value was computed without a graph: ``.detach()``,
        ``.item()``, ``.data``, a copy into a new tensor (``torch.tensor(x)``), or a binding made
        under ``no_grad`` - in the expression or, two names deep, in what its names were bound
        to. ``requires_grad_()`` on a value with a graph is a no-op, so only then is it hiding
        anything. A value forced right there (``out.detach().requires_grad_()``) has a graph."""
        for node in subtree(expression, prune=self._has_graph):
            if self._has_graph(node):
                continue
            if isinstance(node, cst.Attribute) and node.attr.value == "data":
                return True
            if isinstance(node, cst.Call) and self._cuts(node):
                return True
            if isinstance(node, cst.Name) and depth < _MAX_CUT_DEPTH and self._bound_without_graph(node.value, depth):
                return True
        return False

    def _has_graph(self, node: cst.CSTNode) -> bool:
        """A forced leaf, or what may be a model's output."""
        return _forces_requires_grad(node) or self._may_add_parameters(node)

    def _may_add_parameters(self, node: cst.CSTNode) -> bool:
        """A call that may run a model (``head(features)``, ``self.encoder(x)``): its output has
        a graph through the model's parameters whatever its inputs. Functions of torch, loss
        functions and methods of values (``logits.mean()``) only pass on their inputs' graph."""
        if not isinstance(node, cst.Call):
            return False
        qualified = self.context.call_name(node)
        if qualified is not None:
            return not qualified.startswith("torch.")
        if self.context.kind_of(node.func) is Kind.LOSS_FUNCTION:
            return False
        if isinstance(node.func, cst.Attribute):
            receiver = node.func.value
            is_self = isinstance(receiver, cst.Name) and receiver.value == "self"
            return is_self or self.context.kind_of(receiver) is Kind.MODULE or self.context.kind_of(node.func) is Kind.MODULE
        return True

    def _cuts(self, call: cst.Call) -> bool:
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _CUTTING_METHODS:
            return True
        return self.context.call_name(call) in _DATA_FACTORIES

    def _bound_without_graph(self, name: str, depth: int) -> bool:
        binding = self.context.flow.last_binding(name)
        if binding is None or binding.value is None:
            return False
        return binding.node in self._without_graph or self._graph_cut(binding.value, depth + 1)

    def _built_as_leaf(self, name: str) -> bool:
        binding = self.context.flow.last_binding(name) if "." not in name else None
        return binding is not None and binding.value is not None and self._is_leaf(binding.value)

    def _is_leaf(self, value: cst.BaseExpression) -> bool:
        """A value built as a leaf: a new tensor of given sizes or literal data (``torch.zeros``,
        ``torch.tensor([0.5])``, ``nn.Parameter``, ``x.new_zeros``), maybe moved or cast.
        ``torch.tensor(loss_value)`` of a computed value is no such leaf: it is how a graph gets cut."""
        while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _MOVES:
            value = value.func.value
        if not isinstance(value, cst.Call):
            return False
        if isinstance(value.func, cst.Attribute) and value.func.attr.value in _LEAF_METHODS:
            return True
        qualified = self.context.call_name(value)
        if qualified in _DATA_FACTORIES:
            return bool(value.args) and _is_literal(value.args[0].value)
        return qualified in torch_api.TENSOR_FACTORIES or qualified in torch_api.TENSOR_LIKE_FACTORIES or qualified in _PARAMETERS

    def _backpropagated(self, call: cst.Call) -> str | None:
        """The name ``call`` backpropagates: ``loss.backward()``, ``scaler.scale(loss).backward()``,
        ``(loss / n).backward()``, ``accelerator.backward(loss)``, ``torch.autograd.backward(loss)``."""
        func = call.func
        qualified = self.context.call_name(call)
        if qualified in _AUTOGRAD_BACKWARD or (
            isinstance(func, cst.Attribute) and func.attr.value in _BACKWARD_FUNCTIONS and call.args and qualified is None
        ):
            return _root_name(call.args[0].value) if call.args else None
        if isinstance(func, cst.Attribute) and func.attr.value == "backward":
            return _root_name(func.value)
        return None

    def _check_backward(self, name: str, call: cst.Call) -> None:
        backward = self.context.flow.event(call)
        for forced in self._forced:
            if forced.name != name or forced.event.function is not backward.function:
                continue
            if forced.event.exclusive_with(backward) or self._replaced_between(forced, backward):
                continue
            self._report(forced, call)
        self._forced = [forced for forced in self._forced if forced.name != name]

    def _replaced_between(self, forced: _Forced, backward: Event) -> bool:
        """Whether the name was bound to something else between the two places: a value
        derived from it (``loss = loss / n``) still carries the forced leaf."""
        if "." in forced.name or not self.context.flow.rebound_between(forced.name, forced.event, backward):
            return False
        binding = self.context.flow.last_binding(forced.name)
        return binding is None or binding.value is None or forced.name not in _names_in(binding.value)

    def _report(self, forced: _Forced, backward: cst.Call) -> None:
        message = _BACKPROPAGATED_AT.format(
            forced=one_line(forced.node),
            name=forced.name,
            backward=one_line(backward),
            line=self.context.line_of(backward),
        )
        self.report(forced.node, message)


def _forces_requires_grad(expression: cst.BaseExpression) -> bool:
    """``x.requires_grad_()``, ``x.requires_grad_(True)``, ``x.requires_grad_(requires_grad=True)``."""
    if not (isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute)):
        return False
    if expression.func.attr.value != "requires_grad_":
        return False
    return not expression.args or (len(expression.args) == 1 and literal_bool(expression.args[0].value) is True)


def _is_literal(expression: cst.BaseExpression) -> bool:
    if isinstance(expression, (cst.Integer, cst.Float)):
        return True
    if isinstance(expression, cst.UnaryOperation):
        return _is_literal(expression.expression)
    if isinstance(expression, (cst.List, cst.Tuple)):
        return all(_is_literal(element.value) for element in expression.elements)
    return False


def _root_name(expression: cst.BaseExpression) -> str | None:
    """``loss`` for ``loss``, ``scaler.scale(loss)``, ``loss / n``, ``(loss * w).mean()``."""
    if isinstance(expression, (cst.Name, cst.Attribute)):
        return dotted_name(expression)
    if isinstance(expression, cst.BinaryOperation):
        return _root_name(expression.left)
    if _is_scale_call(expression):
        return _root_name(expression.args[0].value)  # type: ignore[attr-defined]
    return None


def _is_scale_call(expression: cst.BaseExpression) -> bool:
    """``scaler.scale(loss)``."""
    return (
        isinstance(expression, cst.Call)
        and isinstance(expression.func, cst.Attribute)
        and expression.func.attr.value == "scale"
        and len(expression.args) == 1
    )


def _names_in(expression: cst.CSTNode) -> set[str]:
    return {node.value for node in subtree(expression) if isinstance(node, cst.Name)}
