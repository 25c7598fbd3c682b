"""What a list the code fills step by step holds.

``losses = []`` followed by ``losses.append(part)`` in a loop is the common way to collect
values before ``sum(losses)`` or ``torch.stack(losses)``; the list literal says nothing of
its items, the ``append`` calls do. Asked by the context when it infers what a container's
items are (a loop over it, ``sum`` of it).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from torchcheck.lint.binder import Binder
from torchcheck.lint.nodes import called_name, dotted_name
from torchcheck.lint.references import reaching_values, returned_values

_FILLING_METHODS = frozenset({"append", "insert"})
_ADDING_METHODS = frozenset({"append", "add_module"})
_COMBINING = frozenset({"sum", "mean", "stack", "cat", "fsum"})  # sum(parts), torch.stack(parts) ...
# Calls that copy a container's items into a new one, and views of a dict's items.
_COPYING_BUILTINS = frozenset({"list", "tuple", "sorted", "reversed"})
_ITEM_VIEWS = frozenset({"values", "items"})


def appended_items(binder: Binder, use: cst.Name) -> list[cst.BaseExpression] | None:
    """The values appended (or inserted) to the list ``use`` names, before ``use``, when
    every binding reaching it is an empty list literal; None when some binding is not one,
    or nothing is appended."""
    bindings = binder.bindings_before(use)
    if not bindings or not all(is_empty_list_binding(binding.node) for binding in bindings):
        return None
    items = []
    for binding in bindings:
        for reference in binder.references_to(binding):
            attribute = binder.parent(reference)
            call = binder.parent(attribute) if attribute is not None else None
            if not (isinstance(attribute, cst.Attribute) and isinstance(call, cst.Call) and call.func is attribute):
                continue
            if attribute.attr.value in _FILLING_METHODS and call.args and binder.precedes(call, use):
                items.append(call.args[-1].value)
    return items or None


def added_later(binder: Binder, target: cst.CSTNode) -> list[cst.BaseExpression]:
    """What code adds, in order, to the container a target name is bound to
    (``model.add_module("softmax", nn.Softmax())``, ``layers.append(block)``)."""
    binding = binder.binding_made_by(target) if type(target) is cst.Name else None
    calls = [binder.parent(binder.parent(use)) for use in (binding.references if binding is not None else ())]
    return [call.args[-1].value for call in calls if type(call) is cst.Call and called_name(call) in _ADDING_METHODS and call.args and type(call.func) is cst.Attribute]  # type: ignore[attr-defined]


def is_empty_list_binding(node: cst.CSTNode) -> bool:
    """``name = []`` or ``name = list()``."""
    return is_empty_list(node.value if isinstance(node, (cst.Assign, cst.AnnAssign)) else None)


def is_empty_list(value: cst.BaseExpression | None) -> bool:
    if isinstance(value, cst.List):
        return not value.elements
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "list" and not value.args


def combined_names(value: cst.BaseExpression) -> set[str]:
    """Names ``value`` adds up or stacks: ``a + b``, ``sum(parts)``, ``sum(parts.values())``,
    ``torch.stack(parts).sum()``, ``parts[0] + parts[1]``, on either branch of a conditional."""
    found: set[str] = set()
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.Name):
            found.add(node.value)
        elif isinstance(node, cst.Attribute) and (path := dotted_name(node)) is not None:
            found.add(path)  # `gen_loss + lam * self.info_loss`
        elif isinstance(node, cst.BinaryOperation):
            pending += [node.left, node.right]
        elif isinstance(node, cst.UnaryOperation):
            pending.append(node.expression)
        elif isinstance(node, cst.IfExp):
            pending += [node.body, node.orelse]  # `sum(parts) if isinstance(parts, tuple) else parts`: either path
        elif isinstance(node, cst.Subscript):
            pending.append(node.value)
        elif isinstance(node, cst.Call):
            pending += _combined_arguments(node)
    return found


def _combined_arguments(call: cst.Call) -> list[cst.BaseExpression]:
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("sum", "mean") and not call.args:
        return [func.value]  # torch.stack(parts).sum()
    if called_name(call) not in _COMBINING or not call.args:
        return []
    argument = call.args[0].value
    if isinstance(argument, cst.Call) and isinstance(argument.func, cst.Attribute) and argument.func.attr.value == "values":
        argument = argument.func.value  # sum(parts.values())
    return [argument]


def joined_parts(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The containers a value joins: the operands of ``a + b + c`` and the starred items of
    ``[*a, *b]``; the value itself otherwise."""
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
        return joined_parts(value.left) + joined_parts(value.right)
    if isinstance(value, (cst.List, cst.Tuple)) and any(isinstance(element, cst.StarredElement) for element in value.elements):
        return [element.value for element in value.elements if isinstance(element, cst.StarredElement)]
    return [value]


def copied_from(value: cst.BaseExpression) -> cst.BaseExpression:
    """The container whose items ``value`` holds: ``d`` for ``list(d.values())``,
    ``tuple(layers)`` or ``sorted(layers)``; ``value`` itself otherwise."""
    while True:
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in _COPYING_BUILTINS and len(value.args) == 1:
            value = value.args[0].value
        elif isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute) and value.func.attr.value in _ITEM_VIEWS:
            value = value.func.value
        else:
            return value


def literal_items(value: cst.BaseExpression) -> tuple[cst.BaseExpression, ...]:
    """The values of a dict, list or tuple written in place (``{"loss": loss, "rate": rate}``)."""
    if isinstance(value, cst.Dict):
        return tuple(element.value for element in value.elements if isinstance(element, cst.DictElement))
    if isinstance(value, (cst.List, cst.Tuple)):
        return tuple(element.value for element in value.elements if isinstance(element, cst.Element))
    return ()


def stored_entries(binder: Binder, read: cst.Subscript) -> list[cst.BaseExpression] | None:
    """What ``d["key"]`` holds when ``d`` is a dict the code writes in place (``d = {}`` or a
    literal, then ``d["key"] = value``): the values written under that key, from the literal and
    every item assignment; None when ``d`` is no such dict or the key is not a string literal."""
    key = _string_index(read)
    if key is None or type(read.value) is not cst.Name:
        return None
    bindings = binder.bindings_before(read.value)  # type: ignore[arg-type]
    if not bindings or not all(isinstance(binding.node, cst.Assign) and type(binding.node.value) is cst.Dict for binding in bindings):
        return None
    values: list[cst.BaseExpression] = []
    for binding in bindings:
        literal: cst.Dict = binding.node.value  # type: ignore[attr-defined, assignment]
        values.extend(e.value for e in literal.elements if isinstance(e, cst.DictElement) and type(e.key) is cst.SimpleString and e.key.evaluated_value == key)
        for reference in binder.references_to(binding):
            written = binder.parent(reference)
            statement = binder.parent(binder.parent(written)) if type(written) is cst.Subscript else None  # type: ignore[arg-type]
            if type(statement) is cst.Assign and written is not read and _string_index(written) == key:  # type: ignore[arg-type]
                values.append(statement.value)  # type: ignore[attr-defined]
    return values


def _string_index(subscript: cst.Subscript) -> str | None:
    elements = subscript.slice
    index = elements[0].slice if len(elements) == 1 else None
    value = index.value if type(index) is cst.Index else None
    return value.evaluated_value if type(value) is cst.SimpleString else None  # type: ignore[union-attr, return-value]


def drawn_items(binder: Binder, name: cst.Name) -> list[cst.BaseExpression] | None:
    """What a loop or comprehension target draws, when the iterable shows its items: ``v`` of
    ``for m, v in zip(meters, [part.sum() for part in parts])`` is ``part.sum()``; the items
    of a list literal, a comprehension's element, also through ``zip`` and ``enumerate``."""
    bindings = binder.reaching(name)
    loop = bindings[0].node if len(bindings) == 1 else None
    if type(loop) not in (cst.For, cst.CompFor):
        return None
    path = _target_path(loop.target, bindings[0].target)  # type: ignore[union-attr]
    return _items_at(binder, loop.iter, path, 0) if path is not None else None  # type: ignore[union-attr]


def _target_path(target: cst.BaseExpression, name: cst.CSTNode) -> list[int] | None:
    """The positions leading from a loop's target to ``name`` (``[1]`` for ``v`` of ``m, v``)."""
    if target is name:
        return []
    if type(target) in (cst.Tuple, cst.List):
        for index, element in enumerate(target.elements):  # type: ignore[attr-defined]
            inner = _target_path(element.value, name)
            if inner is not None:
                return [index, *inner]
    return None


def _items_at(binder: Binder, iterable: cst.BaseExpression, path: list[int], depth: int) -> list[cst.BaseExpression] | None:
    if depth > 3:
        return None
    if type(iterable) is cst.Call and called_name(iterable) in ("zip", "enumerate") and path and binder.reaching(iterable.func) == []:  # type: ignore[arg-type]
        arguments = [argument.value for argument in iterable.args if not argument.star]  # type: ignore[attr-defined]
        position = path[0] - (called_name(iterable) == "enumerate")  # type: ignore[arg-type]
        if len(arguments) != len(iterable.args) or not 0 <= position < len(arguments):  # type: ignore[attr-defined]
            return None  # the index `enumerate` counts, or an argument out of sight
        return _items_at(binder, arguments[position], path[1:], depth + 1)
    if path:
        return None
    if type(iterable) in (cst.List, cst.Tuple):
        return [element.value for element in iterable.elements if type(element) is cst.Element]  # type: ignore[attr-defined]
    if type(iterable) in (cst.ListComp, cst.GeneratorExp):
        return [iterable.elt]  # type: ignore[attr-defined]
    values = reaching_values(binder, iterable) if type(iterable) is cst.Name else []  # type: ignore[arg-type]
    return _items_at(binder, values[0], path, depth + 1) if len(values) == 1 else None


def unpacked_parts(binder: Binder, statement: cst.CSTNode, target: cst.CSTNode, run_by: Callable[[cst.Call], cst.FunctionDef | None]) -> set[str]:
    """For ``loss, recon, kl = vae_loss(...)`` (``statement``, run by a function of the file)
    and ``loss`` (``target``): the other names unpacked there whose values every ``return`` of
    the function combines into the value it returns at the target's position
    (``total = recon + kl`` then ``return total, recon, kl``): the loss's parts."""
    targets = statement.targets if type(statement) is cst.Assign and len(statement.targets) == 1 else []  # type: ignore[attr-defined]
    unpacked = targets[0].target if targets and type(targets[0].target) in (cst.Tuple, cst.List) else None
    function = run_by(statement.value) if unpacked is not None and type(statement.value) is cst.Call else None  # type: ignore[attr-defined]
    names = [element.value for element in unpacked.elements] if unpacked is not None else []  # type: ignore[attr-defined]
    if function is None or target not in names:
        return set()
    index, found = names.index(target), None
    for returned in returned_values(function):
        items = [element.value for element in returned.elements] if type(returned) in (cst.Tuple, cst.List) and len(returned.elements) == len(names) else None  # type: ignore[union-attr]
        if items is None:
            return set()
        combined = _combined_through_names(binder, items[index])
        parts = {position for position, item in enumerate(items) if position != index and type(item) is cst.Name and item.value in combined}  # type: ignore[attr-defined]
        found = parts if found is None else found & parts
    return {names[position].value for position in found or () if type(names[position]) is cst.Name}  # type: ignore[attr-defined]


def _combined_through_names(binder: Binder, value: cst.BaseExpression) -> set[str]:
    """What ``value`` adds up, also through the assignments of a name it is (``return total``)."""
    values = reaching_values(binder, value) if type(value) is cst.Name else []  # type: ignore[arg-type]
    return combined_names(value).union(*map(combined_names, values))


def dict_keywords(binder: Binder, name: cst.Name, depth: int = 0) -> dict[str, cst.BaseExpression]:
    """The keywords that ``**name`` may pass, where the code builds the dict: the string keys
    of the one literal the name is bound to (``{"batch_size": 64}``, ``dict(batch_size=64)``),
    of what ``name.update(...)`` adds (also on one branch: ``kwargs.update(cuda_kwargs)``)
    and of ``name["shuffle"] = True``; later keys win."""
    found: dict[str, cst.BaseExpression] = {}
    values = reaching_values(binder, name)
    if depth > 2 or len(values) != 1:
        return found  # several dicts on several paths: each would need its own reading
    found.update(_literal_keywords(binder, values[0], depth))
    for binding in binder.reaching(name):
        for use in binding.references:
            above = binder.parent(use)
            call = binder.parent(above) if type(above) is cst.Attribute and above.attr.value == "update" else None  # type: ignore[attr-defined]
            if type(call) is cst.Call and call.func is above and len(call.args) == 1:  # type: ignore[attr-defined]
                found.update(_literal_keywords(binder, call.args[0].value, depth))  # type: ignore[attr-defined]
            elif type(above) is cst.Subscript and type(binder.parent(above)) is cst.AssignTarget and len(above.slice) == 1:  # type: ignore[attr-defined]
                key, assignment = above.slice[0].slice, binder.parent(binder.parent(above))  # type: ignore[attr-defined, arg-type]
                if type(key) is cst.Index and type(key.value) is cst.SimpleString and type(assignment) is cst.Assign:
                    found[str(key.value.evaluated_value)] = assignment.value  # type: ignore[attr-defined]
    return found


def _literal_keywords(binder: Binder, value: cst.BaseExpression, depth: int) -> dict[str, cst.BaseExpression]:
    if type(value) is cst.Dict:
        items = [element for element in value.elements if type(element) is cst.DictElement and type(element.key) is cst.SimpleString]  # type: ignore[attr-defined]
        return {str(element.key.evaluated_value): element.value for element in items}  # type: ignore[attr-defined]
    if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "dict" and not binder.reaching(value.func):  # type: ignore[attr-defined]
        return {argument.keyword.value: argument.value for argument in value.args if argument.keyword is not None}  # type: ignore[attr-defined]
    return dict_keywords(binder, value, depth + 1) if type(value) is cst.Name else {}  # type: ignore[arg-type]
