"""What a call registers in a module under a name.

``nn.Module`` keeps the submodules, parameters and buffers handed to ``add_module`` and the
``register_*`` methods, assigned with ``setattr(parent, name, value)`` or installed with
``parent.set_submodule(path, value)``; a function of this file that does so with one of its
parameters (``set_module_by_path(model, path, module)``) registers what its callers pass.

Rules that find a module or tensor kept where a module does not look (a plain list, a plain
attribute) ask whether the same value is registered elsewhere: TCK601/TCK602 ask it; TCK606
(a tensor attribute also given to ``register_buffer``) and TCK603 (what a constructor stores
before ``super().__init__()``) could ask the same question.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.context import LintContext
from torchcheck.lint.torch_api import is_module_class_name, is_stateless_module_class
from torchcheck.lint.buffers import methods_of
from torchcheck.lint.nodes import called_name, method_call, self_attribute, subtree

# Methods of `nn.Module` that register their value under a name.
REGISTERING_METHODS = frozenset({"add_module", "register_module", "register_parameter", "register_buffer", "__setattr__"})
# What a module hands on of itself: registering `m.parameters()` registers `m`'s contents.
_CONTENT_METHODS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "modules", "children", "named_children"})
# (callee, number of arguments) of the calls that install their last argument by name.
_INSTALLING_CALLS = frozenset({("setattr", 3), ("set_submodule", 2), ("add_module", 2), ("register_module", 2)})


def registered_values(context: LintContext, call: cst.Call, instance: str, registering: Callable[[cst.FunctionDef], frozenset[str]]) -> list[cst.BaseExpression]:
    """The values ``call`` registers in a module: every argument of ``<instance>.add_module(...)``
    (or a ``register_*`` method, or ``<instance>.__setattr__(name, value)``), of the builtin ``setattr(...)`` and of ``<module>.set_submodule(...)``;
    and the arguments it passes to a def of this file for the parameters that
    ``registering(def)`` names (``registering_parameters``, memoised by the caller). An argument
    ``m.parameters()`` stands for ``m``."""
    func = call.func
    if isinstance(func, cst.Attribute):
        to_instance = isinstance(func.value, cst.Name) and func.value.value == instance
        found = call.args if (to_instance and func.attr.value in REGISTERING_METHODS) or func.attr.value == "set_submodule" else ()
        values = [argument.value for argument in found]
    elif isinstance(func, cst.Name) and func.value == "setattr" and context.qualified_name(func) is None:
        values = [argument.value for argument in call.args]
    else:
        values = []
    resolved = context.resolve_call(call)
    if resolved is not None and resolved.arguments is not None:
        parameters = registering(resolved.function)
        values += [value for name, value in resolved.arguments.items() if name in parameters]
    return [_holder(value) for value in values]


def _holder(value: cst.BaseExpression) -> cst.BaseExpression:
    """``m`` for ``m.parameters()`` (its contents are what is registered), else ``value``."""
    called = method_call(value)
    return called[0] if called is not None and called[1] in _CONTENT_METHODS and isinstance(called[0], cst.Name) else value


def may_register(context: LintContext, call: cst.Call) -> bool:
    """Whether handing a container to ``call`` may register what it holds
    (``nn.ModuleList(list(self.convs.values()))``, an unknown library's wrapper): not a def of
    this file (:func:`registered_values` says what those register), nor a torch function
    outside ``torch.nn``."""
    qualified = context.call_name(call)
    if qualified is not None:
        return not qualified.startswith("torch.") or qualified.startswith("torch.nn.")
    return context.resolve_call(call) is None


def registering_parameters(function: cst.FunctionDef) -> frozenset[str]:
    """The parameters whose arguments ``function`` registers in a module: all of them when it
    calls ``add_module`` or a ``register_*`` method on its first parameter
    (``self._add(m.parameters(), name)``), else those it installs as the last argument of
    ``setattr(parent, name, p)``, ``parent.set_submodule(path, p)`` or ``parent.add_module(name, p)``."""
    params = function.params
    names = frozenset(param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params))
    instance = params.params[0].name.value if params.params else None
    installed = set()
    for node in subtree(function.body):
        called = method_call(node) if isinstance(node, cst.Call) else None
        if called and called[1] in REGISTERING_METHODS and isinstance(called[0], cst.Name) and called[0].value == instance:
            return names
        if isinstance(node, cst.Call) and node.args and isinstance(node.args[-1].value, cst.Name):
            callee = node.func.value if isinstance(node.func, cst.Name) else called[1] if called else None
            if (callee, len(node.args)) in _INSTALLING_CALLS:
                installed.add(node.args[-1].value.value)
    return frozenset(installed & names)


def builds_stateless_module(context: LintContext, call: cst.Call, seen: frozenset[cst.ClassDef] = frozenset()) -> bool:
    """``nn.AvgPool1d(k)``, ``nn.ReLU()``, or an instance of a module class of this file that
    keeps nothing but such modules (also of such classes) and plain values (``self.kernel_size
    = kernel_size``): no parameters, buffers or train/eval behaviour that a plain container would lose."""
    qualified = context.call_name(call)
    if qualified is not None:
        return is_stateless_module_class(qualified)
    owner = references.class_named(context.binder, call.func.value) if isinstance(call.func, cst.Name) else None
    return owner is not None and is_stateless_module_class_def(context, owner, seen)


def is_stateless_module_class_def(context: LintContext, owner: cst.ClassDef, seen: frozenset[cst.ClassDef] = frozenset()) -> bool:
    """A class of this file deriving from torch's module classes only, that keeps nothing but
    stateless modules and plain values and reads no ``self.training`` (see
    :func:`builds_stateless_module`)."""
    if owner in seen or not all(is_module_class_name(context.qualified_name(base.value) or "") for base in owner.bases):
        return False
    for node in subtree(owner.body):
        if type(node) is cst.Attribute and node.attr.value == "training":
            return False  # computes differently in train and eval mode (a dropout of its own)
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and _stores_on_self(node) and not _plain_or_stateless(context, node.value, seen | {owner}):
            return False  # a parameter, a buffer, a stateful module, or something we cannot see into
        if isinstance(node, cst.Call) and (method_call(node) or ("", ""))[1] in REGISTERING_METHODS:
            return False
        if isinstance(node, cst.Call) and called_name(node) == "setattr":
            return False
    return True


def _stores_on_self(node: cst.Assign | cst.AnnAssign | cst.AugAssign) -> bool:
    """An attribute among the targets, also inside an unpacking (``loss, self.aux = ...``)."""
    targets = [target.target for target in node.targets] if isinstance(node, cst.Assign) else [node.target]
    return any(isinstance(part, (cst.Attribute, cst.StarredElement)) for target in targets for part in _unpacked(target))


def _unpacked(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    if type(target) in (cst.Tuple, cst.List):
        return [part for element in target.elements for part in _unpacked(element.value)]  # type: ignore[attr-defined]
    return [target]


def _plain_or_stateless(context: LintContext, value: cst.BaseExpression | None, seen: frozenset[cst.ClassDef]) -> bool:
    """A value with no call but the construction of stateless modules."""
    calls = [node for node in subtree(value) if isinstance(node, cst.Call)] if value is not None else []
    return all(builds_stateless_module(context, call, seen) for call in calls)


# Methods through which a module hands out its contents: a class that writes its own
# walks whatever its code reads there (`def parameters(self): ... self.critics[i]...`).
_CONTENT_OVERRIDES = frozenset({"parameters", "named_parameters", "state_dict"})


def walked_by_own_methods(class_def: cst.ClassDef) -> set[str]:
    """The ``self.<attribute>`` names that the class's own ``parameters()`` / ``state_dict()``
    overrides read: containers it registers by hand, whatever `nn.Module` would miss."""
    walked: set[str] = set()
    for name, method in methods_of(class_def).items():
        if name in _CONTENT_OVERRIDES:
            walked.update(filter(None, (self_attribute(node) for node in subtree(method.body) if type(node) is cst.Attribute)))
    return walked
