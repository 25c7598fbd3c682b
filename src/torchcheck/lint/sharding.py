"""Parameter identity across sharding: which calls replace a module's parameters, which
module a call-site expression names, and whose parameters an optimizer is built from.

``fully_shard(m)`` (FSDP2) swaps every parameter that ``m`` manages for a new ``nn.Parameter``
holding a sharded DTensor, and ``FullyShardedDataParallel(m)`` (FSDP1) flattens them into
new ``FlatParameter`` objects. ``DistributedDataParallel``, ``torch.compile``, ``.to()`` and
``accelerator.prepare`` keep the same parameter objects and are not listed here.

Modules are named by *paths*: the normalised text of the expression that names them
(``model``, ``model.layers[0]``, ``self.model``). A loop variable over a container of
submodules (``for layer in model.layers:``, ``model.layers.values()``, ``enumerate(...)``)
names one of its items, ``model.layers[*]``. Path ``a`` contains path ``b`` when ``b`` is
``a`` or one of its descendants (:func:`contains`). Answers that need a name's value ask the
binder; a name the binder cannot pin to one binding is left as it is spelled.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.context import LintContext
from torchcheck.lint.exports import call_shape, imported_callee
from torchcheck.lint.idioms import Effect
from torchcheck.lint.project import MAY, Condition
from torchcheck.lint.summaries import ANONYMOUS
from torchcheck.lint.distributed import DDP_CLASSES
from torchcheck.lint.guards import known_at
from torchcheck.lint.nodes import argument_for, replaces_fsdp1_parameters, source_text, subtree
from torchcheck.lint.torch_api import FSDP1_WRAPPERS, FSDP2_SHARDING, PARAMETER_REPLACING

# Text a file that shards a module must hold (the FSDP1 class is often imported `as FSDP`).
SHARDING_TEXT = ("fully_shard", "FullyShardedDataParallel")

_OPTIMIZER_PACKAGES = ("torch.optim.", "bitsandbytes.optim.", "apex.optimizers.", "torchao.optim.")
_NOT_OPTIMIZERS = ("torch.optim.lr_scheduler.", "torch.optim.swa_utils.")
_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})
# Methods that iterate a module container's items: `model.layers.values()`, `model.children()`.
_ITEM_METHODS = frozenset({"values", "children", "modules", "named_children", "named_modules", "items"})
_FOLLOWED_BINDINGS = 8


def contains(outer: str, inner: str) -> bool:
    """Whether the module at path ``inner`` is the module at ``outer`` or a descendant of it."""
    return inner == outer or inner.startswith((outer + ".", outer + "["))


def related(first: str, second: str) -> bool:
    """Whether one path contains the other: sharding either replaces the other's parameters."""
    return contains(first, second) or contains(second, first)


def root_name(path: str) -> str:
    return path.split(".", 1)[0].split("[", 1)[0]


def module_path(context: LintContext, expression: cst.BaseExpression) -> str | None:
    """The path of the module ``expression`` names; None for anything but names, attributes
    and subscripts of them (a call's result has no path)."""
    if isinstance(expression, cst.Name):
        iterated = _iterated_container(context, expression)
        return f"{iterated}[*]" if iterated is not None else expression.value
    if isinstance(expression, cst.Attribute):
        base = module_path(context, expression.value)
        return f"{base}.{expression.attr.value}" if base is not None else None
    if isinstance(expression, cst.Subscript):
        base = module_path(context, expression.value)
        return f"{base}[{''.join(source_text(expression.slice[0]).split())}]" if base is not None else None
    return None


def _iterated_container(context: LintContext, name: cst.Name) -> str | None:
    """``model.layers`` for ``layer`` bound by ``for layer in model.layers:`` (or by
    ``for i, layer in enumerate(model.layers.values()):``); None for any other name."""
    bindings = context.binder.bindings_before(name)
    if len(bindings) != 1 or not isinstance(bindings[0].node, cst.For):
        return None
    iterable = bindings[0].node.iter
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "enumerate" and iterable.args:
        iterable = iterable.args[0].value
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value in _ITEM_METHODS:
        iterable = iterable.func.value
    return module_path(context, iterable) if isinstance(iterable, (cst.Name, cst.Attribute, cst.Subscript)) else None


def sharded_paths(context: LintContext, call: cst.Call, calls: frozenset[str] = PARAMETER_REPLACING) -> list[str]:
    """The module paths whose parameters ``call`` replaces: the module (or the list of
    modules) given to ``fully_shard`` / ``FullyShardedDataParallel`` (or to one of ``calls``)."""
    name = context.call_name(call)
    if name not in calls or (name in FSDP1_WRAPPERS and not replaces_fsdp1_parameters(call)):
        return []
    argument = argument_for(call, 0, "module")
    if argument is None:
        return []
    value = argument.value
    elements = [element.value for element in value.elements] if isinstance(value, (cst.List, cst.Tuple)) else [value]
    return [path for element in elements if (path := module_path(context, element)) is not None]


@dataclass(frozen=True)
class Sharding:
    """A call that replaces the parameters of the modules at ``paths``: ``fully_shard`` itself,
    or a helper that calls it on what it is passed. ``condition`` is set for a helper of another
    file: the project index must confirm it shards that argument."""

    paths: tuple[str, ...]
    fsdp2: bool
    condition: Condition | None = None


def shardings_by(context: LintContext, call: cst.Call, *, fsdp2_only: bool = False, through_helpers: bool = True) -> list[Sharding]:
    """What ``call`` shards: directly, or (``through_helpers``) through a function of this file
    or a method of ``self`` (its summary), or a helper imported from the project (with a
    condition)."""
    direct = sharded_paths(context, call, FSDP2_SHARDING if fsdp2_only else PARAMETER_REPLACING)
    if direct or not through_helpers:
        return [Sharding(tuple(direct), context.call_name(call) in FSDP2_SHARDING)] if direct else []
    effects = (Effect.FULLY_SHARD,) if fsdp2_only else (Effect.FULLY_SHARD, Effect.FSDP_WRAP)
    summary = context.call_summary(call)
    if summary is not None:
        found = [effect for effect in summary.effects if effect.action in effects and effect.target != ANONYMOUS]
        return [Sharding((effect.target,), effect.action == Effect.FULLY_SHARD) for effect in found]
    helper = imported_callee(context, call)
    if helper is None:
        return []
    shardings = []
    for argument in call.args:
        path = module_path(context, argument.value)
        if path is None or argument.star:
            continue
        for effect in effects:
            condition = Condition(helper, f"effect:{effect.value}:{path}", MAY, call_shape(call))
            shardings.append(Sharding((path,), effect is Effect.FULLY_SHARD, condition))
    return shardings


def class_made_by(context: LintContext, name: str) -> cst.ClassDef | str | None:
    """What made the value of ``name`` here: a class of this file (``model = GPT(cfg)``), the
    qualified name of an imported class or factory, or None when unknown."""
    made_by = context.maker_of(cst.Name(name))
    if made_by is not None:
        return made_by
    binding = context.flow.last_binding(name)
    value = binding.value if binding is not None else None
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
        return None
    bindings = context.binder.bindings_before(value.func)
    return bindings[0].node if len(bindings) == 1 and isinstance(bindings[0].node, cst.ClassDef) else None


def is_optimizer_class(context: LintContext, call: cst.Call) -> bool:
    """``torch.optim.AdamW(...)``, bitsandbytes/apex/torchao optimizers, or a class of this
    file deriving from ``torch.optim.Optimizer``."""
    name = context.call_name(call)
    if name is not None:
        return name.startswith(_OPTIMIZER_PACKAGES) and not name.startswith(_NOT_OPTIMIZERS) and name.rpartition(".")[2][:1].isupper()
    if not isinstance(call.func, cst.Name) or not context.may_define_class(call.func.value):
        return False  # the binder is built only where a class of this file may be called
    bindings = context.binder.bindings_before(call.func)
    if len(bindings) != 1 or not isinstance(bindings[0].node, cst.ClassDef):
        return False
    return any((context.qualified_name(base.value) or "").startswith("torch.optim.") for base in bindings[0].node.bases)


def optimized_paths(context: LintContext, call: cst.Call) -> list[str]:
    """The module paths whose parameters an optimizer construction (or a project factory
    that builds one from its arguments) takes: ``model.parameters()``, param groups built
    from ``named_parameters()``, names bound to them; empty when unknown."""
    if is_optimizer_class(context, call):
        argument = argument_for(call, 0, "params")
        return _parameter_sources(context, argument.value) if argument is not None else []
    resolved = context.resolve_call(call)
    if resolved is None or resolved.arguments is None or not _builds_optimizer(context, resolved.function):
        return []
    paths = []
    for parameter in sorted(_parameters_read_for_parameters(context, resolved.function)):
        passed = resolved.arguments.get(parameter)
        path = module_path(context, passed) if passed is not None else None
        if path is not None:
            paths.append(path)
    for parameter in sorted(_parameters_optimized_whole(context, resolved.function)):  # `get_optimizer(model.parameters())`
        passed = resolved.arguments.get(parameter)
        paths.extend(_parameter_sources(context, passed) if passed is not None else [])
    return paths


def optimizers_stored_by(context: LintContext, call: cst.Call) -> list[tuple[cst.Attribute, list[str], cst.Call]]:
    """For ``self.create_optimizer()``, a method of the class that stores an optimizer on
    ``self`` (``self.optimizer = AdamW(self.model.parameters())``): each attribute it stores
    one at, with the module paths (of ``self``) whose parameters it takes, and the construction."""
    if not (isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name) and call.func.value.value == "self"):
        return []
    resolved = context.resolve_call(call)
    if resolved is None:
        return []
    stored = []
    for node in subtree(resolved.function.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.value, cst.Call) and is_optimizer_class(context, node.value):
            target = node.targets[0].target
            argument = argument_for(node.value, 0, "params")
            paths = _parameter_sources(context, argument.value) if argument is not None else []
            if isinstance(target, cst.Attribute) and source_text(target.value) == "self" and paths:
                stored.append((target, [path for path in paths if root_name(path) == "self"], node.value))
    return [(target, paths, built) for target, paths, built in stored if paths]


def _parameter_sources(context: LintContext, expression: cst.BaseExpression) -> list[str]:
    found: list[str] = []
    pending: list[cst.CSTNode] = [expression]
    seen: set[str] = set()
    while pending and len(seen) <= _FOLLOWED_BINDINGS:
        for node in subtree(pending.pop()):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _PARAMETER_METHODS:
                path = module_path(context, node.func.value)
                if path is not None:
                    found.append(path)
            elif isinstance(node, cst.Name) and node.value not in seen:
                seen.add(node.value)
                bindings = context.binder.bindings_before(node)
                if len(bindings) == 1 and isinstance(bindings[0].node, cst.Assign):
                    pending.append(bindings[0].node.value)
    return found


def _builds_optimizer(context: LintContext, function: cst.FunctionDef) -> bool:
    """Whether ``function`` returns an optimizer it constructs (``return AdamW(...)``, or a
    name bound to one)."""
    for node in subtree(function.body):
        if isinstance(node, cst.Return) and node.value is not None:
            value = node.value
            if isinstance(value, cst.Name):
                value = references.assigned_value(context.binder, value) or value
            if isinstance(value, cst.Call) and is_optimizer_class(context, value):
                return True
    return False


def _parameters_read_for_parameters(context: LintContext, function: cst.FunctionDef) -> set[str]:
    """The parameters of ``function`` whose ``.parameters()``/``.named_parameters()`` it reads."""
    read = {root_name(path) for value in _optimizer_params(context, function) for path in _parameter_sources(context, value)}
    return read & _parameter_names(function)


def _parameters_optimized_whole(context: LintContext, function: cst.FunctionDef) -> set[str]:
    """The parameters of ``function`` it hands whole to an optimizer it builds
    (``def get_optimizer(self, parameters): return Adam(parameters, ...)``)."""
    return {value.value for value in _optimizer_params(context, function) if isinstance(value, cst.Name)} & _parameter_names(function)


def _optimizer_params(context: LintContext, function: cst.FunctionDef) -> list[cst.BaseExpression]:
    """What each optimizer that ``function`` constructs is given as its ``params``."""
    constructions = (node for node in subtree(function.body) if isinstance(node, cst.Call) and is_optimizer_class(context, node))
    return [argument.value for call in constructions if (argument := argument_for(call, 0, "params")) is not None]


def _parameter_names(function: cst.FunctionDef) -> set[str]:
    return {parameter.name.value for parameter in function.params.params}


def ddp_only_sync_deferral(context: LintContext, function: cst.FunctionDef) -> tuple[str, cst.BaseExpression] | None:
    """The parameter, and the test guarding it, of a helper that defers gradient sync only for
    ``DistributedDataParallel``: it calls ``m.no_sync()`` (or sets
    ``m.require_backward_grad_sync``) only where ``isinstance(m, DistributedDataParallel)`` or
    ``hasattr(m, "no_sync")`` holds (a branch, or past an early return), which a
    ``fully_shard`` module fails."""
    parameters = {parameter.name.value for parameter in function.params.params}
    for node in subtree(function.body):
        deferred = _sync_deferred_on(node)
        if deferred is None or deferred not in parameters:
            continue
        for held in known_at(context.binder, node):
            if held.holds and _accepts_only_ddp(context, held.test, deferred):
                return deferred, held.test
    return None


def _sync_deferred_on(node: cst.CSTNode) -> str | None:
    """``model`` for ``model.no_sync()`` and ``model.require_backward_grad_sync = ...``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "no_sync":
        receiver = node.func.value
    elif isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Attribute):
        target = node.targets[0].target
        receiver = target.value if target.attr.value == "require_backward_grad_sync" else None
    else:
        return None
    return receiver.value if isinstance(receiver, cst.Name) else None


def _accepts_only_ddp(context: LintContext, test: cst.BaseExpression, name: str) -> bool:
    """``isinstance(name, DDP)`` / ``hasattr(name, "no_sync")``."""
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and len(test.args) == 2):
        return False
    subject, second = test.args[0].value, test.args[1].value
    if not (isinstance(subject, cst.Name) and subject.value == name):
        return False
    if test.func.value == "hasattr":
        return isinstance(second, cst.SimpleString) and second.evaluated_value == "no_sync"
    if test.func.value != "isinstance":
        return False
    classes = [element.value for element in second.elements] if isinstance(second, cst.Tuple) else [second]
    names = [context.qualified_name(cls) or "" for cls in classes]
    return any(qualified in DDP_CLASSES for qualified in names) and not any(qualified.endswith("FSDPModule") for qualified in names)
