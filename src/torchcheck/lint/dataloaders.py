"""What the data-loading rules (the data family and TCK206) share: reading a ``DataLoader(...)`` call's arguments.

``DataLoader``'s first thirteen parameters can be passed by position, so "is ``num_workers``
given?" means "as a keyword, or as the sixth positional argument". A ``*args`` could supply
any positional parameter not visibly given (and shifts every positional argument after it
to an unknown place); a ``**kwargs`` could supply any parameter at all. Rules about a value
that is *missing* must ask :meth:`CallArguments.may_be_given` and stay silent when it is
true without being visible.

The module also answers "can this expression be ``None``?" for a local name, by looking at
every assignment to it in its scope (flow-insensitively): ``sampler = None`` in one branch
and ``sampler = DistributedSampler(ds)`` in the other means the name may be ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.binder import Binder, Loop
from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import argument_for, called_name, dotted_name, literal_bool, subtree
from torchcheck.lint.torch_api import DATALOADERS
from torchcheck.lint.walker import children

# torch.utils.data.DataLoader's parameters that may be passed by position, in order
# (the rest - prefetch_factor, persistent_workers, pin_memory_device, in_order - are
# keyword-only).
DATALOADER_POSITIONAL = (
    "dataset",
    "batch_size",
    "shuffle",
    "sampler",
    "batch_sampler",
    "num_workers",
    "collate_fn",
    "pin_memory",
    "drop_last",
    "timeout",
    "worker_init_fn",
    "multiprocessing_context",
    "generator",
)

DISTRIBUTED_SAMPLERS = frozenset(
    {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
)
DISTRIBUTED_SAMPLER_POSITIONAL = ("dataset", "num_replicas", "rank", "shuffle", "seed", "drop_last")


@dataclass(frozen=True)
class CallArguments:
    """The arguments of one call, by parameter name, plus what ``*args``/``**kwargs`` hide."""

    values: Mapping[str, cst.BaseExpression]
    positional_names: tuple[str, ...]
    star_args: bool = False  # a `*args`: positional parameters not visibly given may come from it
    star_kwargs: bool = False  # a `**kwargs`: any parameter not visibly given may come from it

    def get(self, name: str) -> cst.BaseExpression | None:
        """The expression visibly passed for ``name``, or None."""
        return self.values.get(name)

    def may_be_given(self, name: str) -> bool:
        """Whether ``name`` is passed, visibly or possibly through ``*args``/``**kwargs``."""
        if name in self.values or self.star_kwargs:
            return True
        return self.star_args and name in self.positional_names

    def is_absent(self, name: str) -> bool:
        """Whether ``name`` is certainly not passed (so it takes its default)."""
        return not self.may_be_given(name)


def call_arguments(call: cst.Call, positional_names: tuple[str, ...]) -> CallArguments:
    """Map ``call``'s arguments to parameter names (positional ones through ``positional_names``)."""
    values: dict[str, cst.BaseExpression] = {}
    star_args = star_kwargs = False
    index = 0
    for argument in call.args:
        if argument.star == "**":
            star_kwargs = True
        elif argument.star == "*":
            star_args = True  # later positional arguments land at unknown places
        elif argument.keyword is not None:
            values[argument.keyword.value] = argument.value
        elif not star_args and index < len(positional_names):
            values[positional_names[index]] = argument.value
            index += 1
    return CallArguments(values, positional_names, star_args, star_kwargs)


def is_dataloader_call(context: LintContext, call: cst.Call) -> bool:
    """``torch.utils.data.DataLoader(...)`` under any import alias, or a library loader that
    subclasses it (``torch_geometric.loader.DataLoader``); not subclasses of the project."""
    return context.call_name(call) in DATALOADERS


def dataloader_arguments(call: cst.Call) -> CallArguments:
    return call_arguments(call, DATALOADER_POSITIONAL)


def is_constant(expression: cst.BaseExpression | None, value: str) -> bool:
    """``True``, ``False`` or ``None`` written literally."""
    return isinstance(expression, cst.Name) and expression.value == value


def integer_value(expression: cst.BaseExpression | None) -> int | None:
    """The value of an integer literal, else None."""
    if isinstance(expression, cst.Integer):
        value = expression.evaluated_value
        return value if isinstance(value, int) else None
    return None


# --------------------------------------------------------------------- local assignments
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)


@dataclass(frozen=True)
class Assignments:
    """What the names of one scope are assigned: plain ``name = value`` assignments, and the
    names bound any other way (parameters, loop targets, imports, ``global`` ...), whose
    value is unknown."""

    values: Mapping[str, tuple[cst.BaseExpression, ...]]
    opaque: frozenset[str]
    defaults: Mapping[str, cst.BaseExpression]  # the scope's parameters' default values
    declared: frozenset[str]  # names declared `global` or `nonlocal` in the scope

    def binds(self, name: str) -> bool:
        """Whether ``name`` is a local variable of the scope (bound in it, not declared global)."""
        return (name in self.values or name in self.opaque) and name not in self.declared

    def of(self, name: str) -> tuple[cst.BaseExpression, ...] | None:
        """Every value assigned to ``name`` in the scope, or None when one of its bindings is
        not a plain assignment or there is none."""
        if name in self.opaque or name not in self.values:
            return None
        return self.values[name]

    def known_values(self, name: str) -> tuple[cst.BaseExpression, ...]:
        """The values ``name`` is visibly given in the scope (assignments and a parameter
        default), whatever else may bind it."""
        default = self.defaults.get(name)
        return (*self.values.get(name, ()), *(() if default is None else (default,)))


def set_on_some_path(expression: cst.BaseExpression | None, assignments: Assignments) -> bool:
    """Whether ``expression`` is surely not None on at least one path: ``never_none`` for one
    of its values (``sampler = DistributedSampler(ds)`` on the multi-GPU branch only, or
    ``DistributedSampler(ds) if distributed else None``)."""
    return any(never_none(value, assignments, depth) for value, depth in _values_on_some_path(expression, assignments))


def calls_on_some_path(expression: cst.BaseExpression | None, assignments: Assignments) -> list[cst.Call]:
    """The calls whose result ``expression`` holds on some path (``sampler = make(ds)`` on
    one branch, ``None`` on the other): what ``set_on_some_path`` cannot judge by itself."""
    return [value for value, _ in _values_on_some_path(expression, assignments) if isinstance(value, cst.Call)]


def _values_on_some_path(
    expression: cst.BaseExpression | None, assignments: Assignments, depth: int = 0
) -> Iterator[tuple[cst.BaseExpression, int]]:
    """The values ``expression`` may hold, each with how deep it was found: the branches of a
    conditional expression, and what each assignment of a name binds, followed."""
    if expression is None or depth > 8:
        return
    if isinstance(expression, cst.IfExp):
        for branch in (expression.body, expression.orelse):
            yield from _values_on_some_path(branch, assignments, depth + 1)
    elif isinstance(expression, cst.Name) and expression.value != "None":
        for value in assignments.known_values(expression.value):
            yield from _values_on_some_path(value, assignments, depth + 1)
    else:
        yield expression, depth


def scope_assignments(scope: cst.CSTNode) -> Assignments:
    """Collect the assignments made directly in ``scope`` (a Module, FunctionDef or Lambda),
    not in the functions and classes nested in it."""
    values: dict[str, list[cst.BaseExpression]] = {}
    opaque: set[str] = set()
    defaults: dict[str, cst.BaseExpression] = {}
    declared: set[str] = set()
    if isinstance(scope, (cst.FunctionDef, cst.Lambda)):
        parameters = scope.params
        for param in (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params):
            opaque.add(param.name.value)
            if param.default is not None:
                defaults[param.name.value] = param.default
        for star in (parameters.star_arg, parameters.star_kwarg):
            if isinstance(star, cst.Param):
                opaque.add(star.name.value)
        stack: list[cst.CSTNode] = [scope.body]
    else:
        stack = list(children(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                opaque.add(node.name.value)
            continue
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    values.setdefault(target.target.value, []).append(node.value)
                else:
                    opaque.update(_target_names(target.target))
        elif isinstance(node, cst.AnnAssign) and node.value is not None and isinstance(node.target, cst.Name):
            values.setdefault(node.target.value, []).append(node.value)
        elif isinstance(node, (cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.Del)):
            opaque.update(_target_names(node.target))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            opaque.update(_target_names(node.asname.name))
        elif isinstance(node, cst.ExceptHandler) and node.name is not None:
            opaque.update(_target_names(node.name.name))
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            opaque.update(item.name.value for item in node.names)
            declared.update(item.name.value for item in node.names)
        elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                local = alias.asname.name if alias.asname is not None else alias.name
                name = dotted_name(local)  # type: ignore[arg-type]
                if name is not None:
                    opaque.add(name.split(".", 1)[0])
        elif isinstance(node, cst.MatchAs) and node.name is not None:
            opaque.add(node.name.value)
        stack.extend(children(node))
    assigned = {name: tuple(found) for name, found in values.items()}
    return Assignments(assigned, frozenset(opaque), defaults, frozenset(declared))


def never_none(expression: cst.BaseExpression | None, assignments: Assignments, _depth: int = 0) -> bool:
    """Whether ``expression`` certainly evaluates to an object other than ``None``.

    True for an instance built by calling a class (a capitalised callee: ``RandomSampler(ds)``),
    for literal containers and numbers, for a conditional expression both of whose branches
    are such values, and for a local name every assignment of which is such a value. A name that may be ``None`` (``sampler = None`` anywhere in the scope, an
    ``x if c else None``, a parameter, the result of a plain function) is not.
    """
    if expression is None or _depth > 5:
        return False
    if isinstance(expression, (cst.Integer, cst.Float, cst.List, cst.Tuple, cst.Set, *_COMPREHENSIONS)):
        return True
    if isinstance(expression, cst.Call):
        callee = dotted_name(expression.func)
        return callee is not None and callee.rsplit(".", 1)[-1][:1].isupper()
    if isinstance(expression, cst.IfExp):
        return never_none(expression.body, assignments, _depth + 1) and never_none(
            expression.orelse, assignments, _depth + 1
        )
    if isinstance(expression, cst.Name):
        values = assignments.of(expression.value)
        return values is not None and all(never_none(value, assignments, _depth + 1) for value in values)
    return False


# ----------------------------------------------------------------- following a loader (TCK206)
def loader_alias(binder: Binder, node: cst.CSTNode) -> cst.Assign | None:
    """``alias = loader`` or ``alias = tqdm(loader, ...)``: the assignment, else None."""
    wrapped = references.iteration_wrapper(binder, node)
    if wrapped is not None and (wrapped[0].keyword is not None or wrapped[0] is not binder.parent(wrapped[0]).args[0]):  # type: ignore[union-attr]
        return None
    assignment = references.assignment_of(binder, wrapped[1] if wrapped is not None else node)
    return assignment if assignment is not None and isinstance(assignment.targets[0].target, cst.Name) else None


def harmless_use(binder: Binder, node: cst.CSTNode) -> bool:
    """``len(loader)`` or reading a plain attribute (``loader.dataset``, not ``.sampler``)."""
    above = binder.parent(node)
    call = binder.parent(above)  # type: ignore[arg-type]
    if isinstance(above, cst.Arg):
        return isinstance(call, cst.Call) and called_name(call) == "len" and above.keyword is None
    if not isinstance(above, cst.Attribute) or node is not above.value or above.attr.value in ("sampler", "batch_sampler"):
        return False
    # a method call may do anything to the object
    return not (isinstance(call, cst.Call) and call.func is above) and not references.is_bound(binder, above)


def mentions_set_epoch(node: cst.CSTNode) -> bool:
    """``set_epoch`` as a name (``sampler.set_epoch(epoch)``) or in a string (``getattr(s, "set_epoch")``)."""
    if isinstance(node, cst.Name):
        return node.value == "set_epoch"
    return isinstance(node, (cst.SimpleString, cst.FormattedStringText)) and "set_epoch" in node.value


def shuffle_written(call: cst.Call) -> bool | None:
    """``shuffle=True``/``False`` written out; None when left at its default or taken from a setting."""
    shuffle = argument_for(call, 3, "shuffle")
    return literal_bool(shuffle.value) if shuffle is not None and not shuffle.star else None


FRAMES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def calls_in(root: cst.CSTNode, skip: cst.CSTNode | None = None) -> list[cst.Call]:
    """Calls under ``root``, not inside nested functions or classes (nor under ``skip``)."""
    prune = lambda node: node is skip or (node is not root and isinstance(node, FRAMES))
    return [node for node in subtree(root, prune) if isinstance(node, cst.Call)]


def trains_on_batches(loop: cst.For) -> bool:
    """The loop body calls ``.backward()`` or ``.step()``: it trains on the batches."""
    return any(isinstance(call.func, cst.Attribute) and call.func.attr.value in ("backward", "step") for call in calls_in(loop.body))


# Outer loops that repeat a whole pass over the data.
_COUNTING_LOOPS = frozenset({"range", "trange", "count"})


def is_epoch_loop(binder: Binder, loop: Loop) -> bool:
    """``while ...``, ``for epoch in ...``, ``for _ in range(n)`` (possibly in ``tqdm``),
    also over a name bound once to a counting iterable (``it = trange(epochs)`` ... ``for _ in it:``)."""
    if not isinstance(loop, cst.For):
        return isinstance(loop, cst.While)  # a per-batch method is no epoch loop
    if "epoch" in (dotted_name(loop.target) or "").lower():
        return True
    iterated = references.iterated_value(binder, loop)
    return isinstance(iterated, cst.Call) and called_name(iterated) in _COUNTING_LOOPS


# What a sampler may be handed to and still be the loader's: a container, a batch sampler.
_SAMPLER_HOLDERS = frozenset({"dict", "list", "tuple", "BatchSampler"})
# Names of evaluation data: a sampler that serves them needs no new order each epoch.
_EVALUATION_NAME = re.compile(r"(?:^|_)(?:val|valid|validation|test|eval|evaluation)(?:_|$)", re.IGNORECASE)


_MAX_BUILDERS = 3  # builders of builders followed up to their callers


def may_go_unseen(context: LintContext, sampler: cst.Call, loaders: set[cst.Call]) -> bool:
    """Whether a sampler the code hands on (to a dict, a builder's caller, another class)
    may reach training without ``set_epoch`` (TCK206): it is not given to a function outside
    the file (``hooks.register(sampler)``, which may set its epoch), not named or loaded as
    evaluation data (``test_loader``), and not built by a function that only code that never
    trains calls (a validation loader's builder)."""
    binder, project = context.binder, context.project
    assignment = references.assignment_of(binder, sampler, as_branch=True)
    target = assignment.targets[0].target if assignment is not None else None
    bindings = binder.bindings_of(target.value, binder.scope_of(target)) if isinstance(target, cst.Name) else []
    uses = [sampler, *(use for binding in bindings for use in binding.references)]
    calls = list(filter(None, (references.argument_of(binder, use) for use in uses)))
    for call in calls:
        symbol = project.symbol_of(call.func) if project is not None else None
        if call not in loaders and not (symbol is not None and symbol.is_local) and called_name(call) not in _SAMPLER_HOLDERS:
            return False
    loader_assignments = [references.assignment_of(binder, call) for call in calls if call in loaders]
    named = [target, *(assignment.targets[0].target for assignment in loader_assignments if assignment is not None)]
    if any(_EVALUATION_NAME.search(dotted_name(node) or "") for node in named if node is not None):
        return False
    builder = context.binder.enclosing(sampler, cst.FunctionDef)
    return not (isinstance(builder, cst.FunctionDef) and _built_for_evaluation(context, builder, 0))


def _returns_a_loader(context: LintContext, function: cst.FunctionDef) -> bool:
    """``return DataLoader(...)``, or a name bound once to one."""
    returned = context.values_returned(function) or []
    values = [(references.assigned_value(context.binder, value) if type(value) is cst.Name else value) for value in returned]
    return any(type(value) is cst.Call and is_dataloader_call(context, value) for value in values)  # type: ignore[arg-type]


def _built_for_evaluation(context: LintContext, builder: cst.FunctionDef, depth: int) -> bool:
    """The function building the sampler is called in this file, and only by functions that
    neither backpropagate nor step; a caller that returns a loader it built
    (``make_data_loader`` around ``make_data_sampler``) hands it on, and its own callers decide."""
    binder = context.binder
    bindings = binder.bindings_of(builder.name.value, binder.scope_of(builder))
    callers = [binder.enclosing(use, cst.FunctionDef) for binding in bindings for use in binding.references]
    trains = lambda function: any(effect.action in ("backward", "step") for effect in context.summary_of(function).effects)
    for caller in callers:
        if not isinstance(caller, cst.FunctionDef) or trains(caller):
            return False
        if _returns_a_loader(context, caller) and not (depth < _MAX_BUILDERS and _built_for_evaluation(context, caller, depth + 1)):
            return False
    return bool(callers)

