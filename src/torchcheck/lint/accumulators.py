"""Methods of this file that accumulate an argument into state that outlives the call: a
meter's ``update(val, n)`` doing ``self.sum += val * n``, a tracker's
``self.values.append(val)``, ``self.losses[k] += v`` over the items of a mapping parameter.

Asked about a call ``meter.update(loss)`` whose receiver is an instance of a class of this
file (``meter = AverageMeter()``, or ``self.meter = AverageMeter()`` in the caller's class).
A value derived from the parameter keeps its graph unless it passes through ``.item()``,
``.detach()``, ``.tolist()``, ``.numpy()``, ``.data`` or ``float()``/``int()``: a meter that
converts (``val = float(val)``, ``if torch.is_tensor(val): val = val.item()``) accumulates
numbers. Classes of other files and of libraries (torchmetrics) are not analysed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from torchcheck.lint.binder import Binder, Loop
from torchcheck.lint.containers import combined_names, literal_items
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import is_detached, root_name_node, self_attribute, source_text, subtree
from torchcheck.lint import references
from torchcheck.lint.references import class_and_file_bases, loops_running
from torchcheck.lint.steps import steps_in_its_body
from torchcheck.lint.summaries import bind_arguments

if TYPE_CHECKING:
    from torchcheck.lint.context import LintContext

_DETACHING_FUNCTIONS = frozenset({"float", "int", "bool", "round", "str"})
_DETACHING_METHODS = frozenset({"item", "detach", "detach_", "tolist", "numpy"})
_APPENDING_METHODS = frozenset({"append", "extend", "insert"})
_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def accumulated_arguments(
    binder: Binder, call: cst.Call, instance_class: cst.ClassDef
) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
    """For ``receiver.method(...)`` on an instance of ``instance_class``: each argument the
    method accumulates into ``self`` state, with the statement that does it."""
    if not isinstance(call.func, cst.Attribute):
        return []
    method = method_of(binder, instance_class, call.func.attr.value)
    if method is None:
        return []
    mapping = bind_arguments(call, method, call.func.value)
    if mapping is None:
        return []
    found = []
    for parameter, argument in list(mapping.items())[1:]:  # the first is the receiver
        statement = accumulation_of(method, parameter)
        if statement is not None:
            found.append((argument, statement))
    return found


def method_of(binder: Binder, owner: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    """The ``def name`` of ``owner``, or of its bases defined in this file."""
    for cls in class_and_file_bases(binder, owner):
        for statement in cls.body.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
                return statement
    return None


def accumulation_of(method: cst.FunctionDef, parameter: str) -> cst.CSTNode | None:
    """The first statement of ``method`` that adds ``parameter`` - or a value derived from it
    without detaching (``val * n``, the values of a mapping parameter) - into ``self`` state:
    ``self.sum += ...``, ``self.total = self.total + ...``, ``self.values.append(...)``."""
    derived = {parameter}
    for node in subtree(method.body, prune=lambda node: isinstance(node, _NESTED)):
        if isinstance(node, cst.Assign):
            if any(_is_self_state(target.target) for target in node.targets):
                if _grows_state(node) and carries(node.value, derived):
                    return node
                continue
            names = {name for target in node.targets for name in _target_names(target.target)}
            if carries(node.value, derived):
                derived |= names
            else:
                derived -= names
        elif isinstance(node, cst.For) and carries(node.iter, derived):
            derived |= _target_names(node.target)  # `for k, v in losses.items()`
        elif isinstance(node, cst.AugAssign):
            if _is_self_state(node.target) and isinstance(node.operator, cst.AddAssign) and carries(node.value, derived):
                return node
        elif isinstance(node, cst.Call) and _appends_to_self(node) and any(carries(a.value, derived) for a in node.args):
            return node
    return None


def carries(expression: cst.BaseExpression, names: set[str]) -> bool:
    """Whether ``expression`` reads one of ``names`` other than through a detaching call."""
    for node in subtree(expression, prune=_detaches, attribute_names=False):
        if type(node) is cst.Name and node.value in names:
            return True
    return False


def _detaches(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Lambda):
        return True
    if isinstance(node, cst.Attribute):
        return node.attr.value == "data"
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Name):
        return func.value in _DETACHING_FUNCTIONS
    return isinstance(func, cst.Attribute) and func.attr.value in _DETACHING_METHODS


def _is_self_state(target: cst.BaseExpression) -> bool:
    """``self.x``, ``self.x[k]``, ``self.x.y``, ``self.x.setdefault(k, [])``: state of the instance."""
    if not isinstance(target, (cst.Attribute, cst.Subscript, cst.Call)):
        return False
    while isinstance(target, (cst.Attribute, cst.Subscript, cst.Call)):
        target = target.func if isinstance(target, cst.Call) else target.value
    return isinstance(target, cst.Name) and target.value == "self"


def _grows_state(assign: cst.Assign) -> bool:
    """``self.total = self.total + val``: the new state is built from the old."""
    value = assign.value
    if not isinstance(value, cst.BinaryOperation) or not isinstance(value.operator, cst.Add):
        return False
    sides = (value.left, value.right)
    return any(side.deep_equals(target.target) for target in assign.targets for side in sides)


def _appends_to_self(call: cst.Call) -> bool:
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value in _APPENDING_METHODS and _is_self_state(func.value)


def _target_names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {name for element in target.elements for name in _target_names(element.value)}
    return set()


def instance_class(binder: Binder, made_by: cst.BaseExpression | None) -> cst.ClassDef | None:
    """The class of this file that ``made_by`` (``AverageMeter(...)``) instantiates."""
    return references.instance_class(binder, made_by) if isinstance(made_by, cst.Call) else None


def instance_class_of(context: LintContext, receiver: cst.BaseExpression) -> cst.ClassDef | None:
    """The class of this file whose instance ``receiver`` holds where the walk stands: a name
    last bound to ``Meter(...)``, or ``self.<attribute>`` that every assignment in the current
    class binds to one."""
    if isinstance(receiver, cst.Name):
        binding = context.flow.last_binding(receiver.value)
        return instance_class(context.binder, binding.value) if binding is not None else None
    owner, attribute = context.current_class, self_attribute(receiver)
    return attribute_class(context.binder, owner, attribute) if owner is not None and attribute is not None else None


def attribute_class(binder: Binder, owner: cst.ClassDef, attribute: str) -> cst.ClassDef | None:
    """The class of this file that every ``self.<attribute> = ...`` in ``owner`` instantiates."""
    classes = set()
    for node in subtree(owner.body, prune=lambda node: isinstance(node, cst.BaseExpression)):
        if not isinstance(node, cst.Assign):
            continue
        for target in node.targets:
            assigned = target.target
            if isinstance(assigned, cst.Attribute) and assigned.attr.value == attribute and _is_self_state(assigned):
                classes.add(instance_class(binder, node.value))
    return classes.pop() if len(classes) == 1 else None


# A line that may extend a name's own value (`total = total + loss`), for a rule's text gate.
SELF_ACCUMULATION_TEXT = re.compile(r"^[ \t]*(\w+)[ \t]*=[^=\n][^\n]*\b\1\b", re.MULTILINE)


def self_accumulation(assign: cst.Assign) -> str | None:
    """``total = total + loss``, ``ema = a * loss + (1 - a) * ema``: the name whose value the
    assignment extends; None for any other assignment."""
    target = assign.targets[0].target if len(assign.targets) == 1 else None
    if type(target) is not cst.Name or type(assign.value) is not cst.BinaryOperation:
        return None
    return target.value if target.value in combined_names(assign.value) and _added_to(assign.value, target.value) else None  # type: ignore[attr-defined]


def _added_to(value: cst.BaseExpression, name: str) -> bool:
    """``name`` is a term of a sum in ``value`` (``total + loss``, ``a * loss + (1 - a) * ema``);
    ``total_loss * loss_scale`` only rescales the value, it adds nothing to it."""
    return any(
        type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract)  # type: ignore[attr-defined]
        and any(type(part) is cst.Name and part.value == name for part in subtree(node))  # type: ignore[attr-defined]
        for node in subtree(value)
    )


def accumulation_start_loop(binder: Binder, assign: cst.Assign, name: str, loops: tuple[Loop, ...]) -> Loop | None:
    """For a :func:`self_accumulation`: the innermost of ``loops`` that also runs every other
    binding of ``name`` the extended value may come from (where the total starts afresh);
    None when one of them runs before those loops (the total outlives their iterations)."""
    read = next(node for node in subtree(assign.value) if type(node) is cst.Name and node.value == name)
    # a method run once per iteration (a loop of its own to the flow) runs every binding in its body
    starts = [{*loops_running(binder, binding.node), binder.enclosing(binding.node, cst.FunctionDef)} for binding in binder.reaching(read) if binding.node is not assign]
    return next((loop for loop in reversed(loops) if starts and all(loop in running for running in starts)), None)


def may_carry_graph(context: LintContext, value: cst.BaseExpression) -> bool:
    """Whether ``value`` may hold an autograd graph: a graph-attached tensor, a name or an
    entry whose kind is unknown or a tensor, arithmetic on one (``loss / len(loader)``, not
    ``loss.item() * scale``), or a literal container of one."""
    if type(value) is cst.Name and (values := references.reaching_values(context.binder, value)) and all(map(is_detached, values)):
        return False  # `c_loss = c_loss.data[0]`, then `total += c_loss`
    kind = context.kind_of(value)
    unknown_holder = isinstance(value, cst.Name) or isinstance(value, (cst.Subscript, cst.Attribute)) and isinstance(value.value, cst.Name)
    if kind is Kind.GRAPH_TENSOR or (unknown_holder and kind in (None, Kind.OTHER, Kind.TENSOR)):
        return True
    if isinstance(value, cst.BinaryOperation) and kind is None:
        if is_detached(value.left) or is_detached(value.right):  # `loss.item() * scale`: scale may be anything
            return Kind.GRAPH_TENSOR in (context.kind_of(value.left), context.kind_of(value.right))
        return may_carry_graph(context, value.left) or may_carry_graph(context, value.right)
    return any(may_carry_graph(context, part) for part in literal_items(value))


def lives_one_step(context: LintContext, loops: tuple[Loop, ...], created_in: Loop | None, backpropagates_there: bool) -> bool:
    """A container created afresh per batch (in each iteration of ``created_in``, a loop
    drawing them), or per optimizer step (a loop whose body backpropagates or steps) and
    filled only in loops inside that step that neither step nor draw batches
    (``logits.append(model(x))`` over the step's inputs, a micro-batch's output kept after its
    ``backward()``): it dies with the step, whatever it holds."""
    if created_in not in loops:
        return False
    if context.iterates_dataloader(created_in):
        return True
    inner = loops[loops.index(created_in) + 1 :]
    one_step = backpropagates_there or steps_in_its_body(context, created_in)
    return one_step and not any(steps_in_its_body(context, loop) or context.iterates_dataloader(loop) for loop in inner)


def another_named_entry(value: cst.BaseExpression, backpropagated: set[str]) -> bool:
    """``out["n_samples"]`` when ``out["loss"]`` was backpropagated: an entry the code names otherwise, not known to be a loss."""
    index = value.slice[0].slice if isinstance(value, cst.Subscript) and len(value.slice) == 1 else None
    return isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString) and source_text(value) not in backpropagated


def accumulation_target(node: cst.CSTNode) -> cst.BaseExpression | None:
    """What ``total.x += value`` or ``total.add_(value)`` adds into; None for a bare name's
    ``+=``, which rebinds the name unless it holds a tensor."""
    if type(node) is cst.AugAssign:
        return node.target if type(node.target) is not cst.Name else None  # type: ignore[attr-defined]
    return node.func.value if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "add_" else None  # type: ignore[attr-defined]


def held_by_caller(binder: Binder, held: cst.BaseExpression, function: cst.FunctionDef) -> bool:
    """``held`` (``self.total``, ``stats.meter("loss")``, a parameter's tensor) belongs to an
    object the caller of ``function`` hands it, and ``function`` never binds it afresh: what
    is added into it outlives the call."""
    owner = root_name_node(held.func if type(held) is cst.Call else held)  # type: ignore[attr-defined]
    bindings = binder.reaching(owner) if owner is not None else []
    if len(bindings) != 1 or type(bindings[0].node) is not cst.Param:
        return False
    spelled = source_text(held)
    return not any(type(node) is cst.Assign and any(source_text(target.target) == spelled for target in node.targets) for node in subtree(function.body))  # type: ignore[attr-defined]


def kept_for_a_later_backward(context: LintContext, node: cst.CSTNode, loops: tuple[Loop, ...]) -> bool:
    """What ``node`` (``losses.append(loss)``, ``total += loss``) keeps in one of ``loops`` is
    backpropagated after it (``accelerator.backward(losses[i])`` after the loop): the graphs
    are kept on purpose."""
    held = node.target if isinstance(node, cst.AugAssign) else node.targets[0].target if isinstance(node, cst.Assign) else node.func.value if isinstance(node, cst.Call) else None  # type: ignore[attr-defined]
    if isinstance(held, cst.Subscript):
        held = held.value  # `losses[key] += loss`
    if isinstance(held, cst.Attribute):  # `critic.saved_values.append(value)`, read by `update()` after the episode
        return context.backpropagated_by_a_later_call(held, loops[-1])
    if not isinstance(held, cst.Name):
        return False
    return context.backpropagated_after(held, loops[0]) or context.differentiated_whole_later_in(held, node, loops[-1])
