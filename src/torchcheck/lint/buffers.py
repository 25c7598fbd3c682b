"""Buffer facts of the module classes of one file: which non-persistent buffers a class
computes while it is constructed, which methods (re)assign a buffer, and which classes of
the file a class builds as submodules.

``module.to_empty(device=...)`` allocates every parameter and buffer without initialising
it. Parameters are then filled by a checkpoint load or by init code; a buffer registered with
``persistent=False`` is in no state dict, so only code that recomputes it gives it a value
again. These facts let a rule ask which buffers of a module tree nothing recomputes.

Methods are matched by name across the classes of the file (``self.rope.reset_parameters()``
reaches every ``reset_parameters`` of the tree): a call through an attribute cannot be
pinned to one class without types.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.nodes import argument_for, called_name, is_none, literal_bool, subtree

_INITIALISER = "__init__"
_MAX_DEPTH = 8


@dataclass(frozen=True)
class ComputedBuffer:
    """``owner.name``, registered with ``persistent=False`` by ``registration``."""

    owner: str
    name: str
    registration: cst.Call


def _own_code(node: cst.CSTNode) -> bool:
    """Prune nested classes and functions: their bodies do not run with the method."""
    return isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))


def methods_of(class_def: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    body = class_def.body.body if isinstance(class_def.body, cst.IndentedBlock) else ()
    return {statement.name.value: statement for statement in body if isinstance(statement, cst.FunctionDef)}


def _calls(function: cst.FunctionDef) -> list[cst.Call]:
    return [node for node in subtree(function.body, _own_code) if isinstance(node, cst.Call)]


def _self_methods_called(function: cst.FunctionDef) -> set[str]:
    """``h`` for every ``self.h(...)`` the function makes."""
    found = set()
    for call in _calls(function):
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            found.add(func.attr.value)
    return found


def _non_persistent_registration(call: cst.Call) -> str | None:
    """The buffer name of ``self.register_buffer("name", value, persistent=False)`` with a value."""
    if called_name(call) != "register_buffer":
        return None
    persistent = argument_for(call, 2, "persistent")
    name = argument_for(call, 0, "name")
    value = argument_for(call, 1, "tensor")
    if persistent is None or literal_bool(persistent.value) is not False or value is None or is_none(value.value):
        return None
    return name.value.evaluated_value if name is not None and isinstance(name.value, cst.SimpleString) else None


def computed_non_persistent_buffers(class_def: cst.ClassDef) -> list[ComputedBuffer]:
    """The non-persistent buffers the class registers with a value while ``__init__`` runs
    (in ``__init__`` or a ``self.method()`` it calls)."""
    methods = methods_of(class_def)
    pending, seen, found = [_INITIALISER], set(), []
    while pending:
        name = pending.pop()
        if name in seen or name not in methods:
            continue
        seen.add(name)
        for call in _calls(methods[name]):
            buffer = _non_persistent_registration(call)
            if buffer is not None:
                found.append(ComputedBuffer(class_def.name.value, buffer, call))
        pending.extend(_self_methods_called(methods[name]))
    return found


def assigned_buffers(function: cst.FunctionDef) -> set[str]:
    """The attributes of ``self`` the function (re)assigns: ``self.x = ...``, ``self.x.copy_(...)``,
    ``self.register_buffer("x", ...)``."""
    found = set()
    for node in subtree(function.body, _own_code):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            found.update(_self_attribute(target) for target in targets)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in ("copy_", "fill_", "zero_", "normal_", "uniform_"):
                found.add(_self_attribute(node.func.value))
            elif node.func.attr.value == "register_buffer" and node.args and isinstance(node.args[0].value, cst.SimpleString):
                found.add(node.args[0].value.evaluated_value)
    found.discard(None)
    return found  # type: ignore[return-value]


def _self_attribute(expression: cst.BaseExpression) -> str | None:
    """``x`` for ``self.x`` and for ``self.rope.x`` (a submodule's attribute set by its owner)."""
    if not isinstance(expression, cst.Attribute):
        return None
    root = expression.value
    while isinstance(root, cst.Attribute):
        root = root.value
    return expression.attr.value if isinstance(root, cst.Name) and root.value == "self" else None


def methods_reaching(classes: list[cst.ClassDef], buffer: str) -> set[str]:
    """The method names (other than ``__init__``) that (re)assign ``buffer`` when called on a
    module of these classes: directly, or by calling another such method on ``self``, a
    submodule or a loop variable (matched by name)."""
    by_name: dict[str, list[cst.FunctionDef]] = {}
    for class_def in classes:
        for name, method in methods_of(class_def).items():
            if name != _INITIALISER:
                by_name.setdefault(name, []).append(method)
    reaching = {name for name, methods in by_name.items() if any(buffer in assigned_buffers(m) for m in methods)}
    for _ in range(_MAX_DEPTH):
        grown = reaching | {
            name
            for name, methods in by_name.items()
            if any(called_name(call) in reaching for method in methods for call in _calls(method))
        }
        if grown == reaching:
            break
        reaching = grown
    return reaching


def submodule_classes(class_def: cst.ClassDef, names: set[str]) -> set[str]:
    """The classes among ``names`` that the class's ``__init__`` (or a helper it calls) builds."""
    methods = methods_of(class_def)
    pending, seen, found = [_INITIALISER], set(), set()
    while pending:
        name = pending.pop()
        if name in seen or name not in methods:
            continue
        seen.add(name)
        found.update(n for call in _calls(methods[name]) if isinstance(call.func, cst.Name) and (n := call.func.value) in names)
        pending.extend(_self_methods_called(methods[name]))
    return found

