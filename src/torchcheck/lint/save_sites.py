"""Checkpoint files a file writes and reads: which ``torch.save`` a ``torch.load`` reads back,
what a save writes, and which entry of it a load uses.

Save and load sites rarely spell the path the same way (``ckpt_dir / sub / "checkpoint.pth"``
saved, ``last_dir / "checkpoint.pth"`` loaded). Two paths are taken to name the same file when
they share a *file key*:

- the same expression text for anything but a bare name (``args.resume``, ``cfg.ckpt_path``,
  ``self.checkpoint_file``: one config key);
- the same file name literal at their end (``"checkpoint.pth"`` in ``os.path.join(d,
  "checkpoint.pth")``, ``d / "checkpoint.pth"``, ``f"{d}/checkpoint.pth"``);
- a bare name stands for what its assignments hold, and for itself where one binding reaches
  both sites (a function's parameter names one file within that function only).

A save site is ``torch.save(obj, f)`` or a helper of the same shape named ``save...``
(``save_checkpoint(state, path)``, ``utils.save_on_master(obj, path)``). All questions are
asked after the walk, through the binder.
"""

from __future__ import annotations

import os

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.torch_api import TORCH_LOAD
from torchcheck.lint.nodes import argument_for, source_text, subtree

TORCH_SAVE = frozenset({"torch.save", "torch.serialization.save"})
_FOLLOWED = 4  # name bindings followed from one path or value


def is_save(context: LintContext, call: cst.Call) -> bool:
    """``torch.save(...)`` or a project helper named ``save...`` given an object and a path."""
    name = context.call_name(call)
    if name in TORCH_SAVE:
        return True
    called = call.func.attr.value if isinstance(call.func, cst.Attribute) else call.func.value if isinstance(call.func, cst.Name) else ""
    return called.startswith("save") and argument_for(call, 1, "f") is not None


def saved_value(call: cst.Call) -> cst.BaseExpression | None:
    argument = argument_for(call, 0, "obj")
    return argument.value if argument is not None and not argument.star else None


def saved_path(call: cst.Call) -> cst.BaseExpression | None:
    argument = argument_for(call, 1, "f")
    return argument.value if argument is not None and not argument.star else None


def loaded_path(call: cst.Call) -> cst.BaseExpression | None:
    argument = argument_for(call, 0, "f")
    return argument.value if argument is not None and not argument.star else None


def _single_value(context: LintContext, name: cst.Name) -> list[cst.BaseExpression] | None:
    """The values the bindings of ``name`` reaching it assign; None when one of them is no
    plain assignment (a parameter, a loop variable, an import)."""
    values = []
    for binding in context.binder.bindings_before(name):
        node = binding.node
        if not isinstance(node, cst.Assign) or len(node.targets) != 1 or node.targets[0].target is not binding.target:
            return None
        values.append(node.value)
    return values or None


def file_name(expression: cst.BaseExpression) -> str | None:
    """The file name literal a path expression ends in: ``checkpoint.pth`` for
    ``os.path.join(d, "checkpoint.pth")``, ``d / "checkpoint.pth"``, ``f"{d}/checkpoint.pth"``."""
    if isinstance(expression, cst.SimpleString) and isinstance(expression.evaluated_value, str):
        text = os.path.basename(expression.evaluated_value)
    elif isinstance(expression, cst.FormattedString) and expression.parts and isinstance(expression.parts[-1], cst.FormattedStringText):
        text = expression.parts[-1].value
        if "/" not in text and len(expression.parts) > 1:
            return None  # `f"{stem}.pt"`: only the extension is literal
        text = text.rsplit("/", 1)[-1]
    elif isinstance(expression, cst.BinaryOperation) and isinstance(expression.operator, cst.Divide):
        return file_name(expression.right)
    elif isinstance(expression, cst.Call) and expression.args and (source_text(expression.func).endswith(("path.join", "joinpath"))):
        return file_name(expression.args[-1].value)
    else:
        return None
    stem, dot, _ = text.partition(".")
    return text if stem and dot else None


def file_keys(context: LintContext, path: cst.BaseExpression, depth: int = 0) -> frozenset[str]:
    """The keys that identify the file ``path`` names (see the module docstring)."""
    keys = set()
    name = file_name(path)
    if name is not None:
        keys.add(f"file:{name}")
    if isinstance(path, cst.Name):
        bindings = context.binder.bindings_before(path)
        if len(bindings) == 1:
            keys.add(f"binding:{id(bindings[0])}")
        values = _single_value(context, path) if depth < _FOLLOWED else None
        for value in values or ():
            keys |= file_keys(context, value, depth + 1)
    elif not isinstance(path, (cst.SimpleString, cst.FormattedString)):
        keys.add("text:" + "".join(source_text(path).split()))
    return frozenset(keys)


def state_dict_calls(context: LintContext, value: cst.BaseExpression, key: str | None = None, depth: int = 0) -> list[tuple[cst.Call, str | None]]:
    """The ``x.state_dict()`` calls a saved value holds, with the dict entry each is under:
    the value itself, the values of a dict literal, or what a name saved was bound to."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "state_dict" and not value.args:
        return [(value, key)]
    if isinstance(value, cst.Dict):
        found = []
        for element in value.elements:
            if isinstance(element, cst.DictElement):
                found.extend(state_dict_calls(context, element.value, string_value(element.key), depth))
        return found
    if isinstance(value, cst.Name) and depth < _FOLLOWED:
        values = _single_value(context, value) or []
        return [found for bound in values for found in state_dict_calls(context, bound, key, depth + 1)]
    return []


def loaded_entry(context: LintContext, value: cst.BaseExpression, depth: int = 0) -> tuple[cst.Call, str | None] | None:
    """The ``torch.load`` call a value comes from and the dict entry taken from it:
    ``(load, "model")`` for ``checkpoint["model"]`` after ``checkpoint = torch.load(p)``."""
    if isinstance(value, cst.Call):
        return (value, None) if context.call_name(value) in TORCH_LOAD else None
    if isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Index):
        inner = loaded_entry(context, value.value, depth)
        return (inner[0], string_value(value.slice[0].slice.value)) if inner is not None else None
    if isinstance(value, cst.Name) and depth < _FOLLOWED:
        values = _single_value(context, value)
        if values is not None and len(values) == 1:
            return loaded_entry(context, values[0], depth + 1)
    return None


def same_entry(saved: str | None, loaded: str | None) -> bool:
    """Whether a load's entry may be the saved one (an unknown entry may be any)."""
    return saved is None or loaded is None or saved == loaded


def string_value(expression: cst.BaseExpression | None) -> str | None:
    if isinstance(expression, cst.SimpleString) and isinstance(expression.evaluated_value, str):
        return expression.evaluated_value
    return None


def mentions_string(root: cst.CSTNode, fragment: str) -> bool:
    """Whether a string literal under ``root`` holds ``fragment`` (a key rewrite's prefix)."""
    for node in subtree(root):
        if isinstance(node, cst.SimpleString) and fragment in node.value:
            return True
        if isinstance(node, cst.FormattedStringText) and fragment in node.value:
            return True
    return False
