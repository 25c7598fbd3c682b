"""Activation-checkpointed regions: which code of this file runs inside one, and what it does
there. Asked after the walk (the binder answers which definition a name reads).

A region is opened by ``torch.utils.checkpoint.checkpoint(fn, ...)``,
``checkpoint_sequential(functions, ...)``, ``checkpoint_wrapper(module, ...)`` or
``apply_activation_checkpointing(model, check_fn=...)``, or by a call of a checkpoint function
made as a value (:class:`CheckpointCalls`): ``ckpt = partial(checkpoint, preserve_rng_state=False)``
called later as ``ckpt(self._attend, x)``, followed through names, functions of the file that
return it and the ``self.<attribute>`` it is stored in. What runs inside is resolved as far as
this file shows: a ``def`` or lambda, a bound method, a module class of the file with its
``forward``, the module classes it builds (its submodule tree) and the library layers it
builds. Anything else (a parameter, a class of another file) is unknown and adds nothing, so
the rules asking stay silent about it.

Three questions per region, each a summary bit propagated over calls and submodules:
:func:`random_draws` (draws random numbers in training), :func:`state_updates`
(non-idempotent updates of state that outlives the call) and :func:`batch_norms`
(BatchNorm layers that update running statistics).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import libcst as cst

from torchcheck.lint.binder import Binder
from torchcheck.lint.nodes import (
    argument_for,
    dotted_name,
    is_none,
    keyword_argument,
    literal_bool,
    names_read,
    self_attribute,
    subtree,
)
from torchcheck.lint.references import self_attribute_references

QualifiedName = Callable[[cst.Call], "str | None"]

CHECKPOINT = "torch.utils.checkpoint.checkpoint"
CHECKPOINT_SEQUENTIAL = "torch.utils.checkpoint.checkpoint_sequential"
_WRAPPERS = "torch.distributed.algorithms._checkpoint.checkpoint_wrapper"
CHECKPOINT_WRAPPER = f"{_WRAPPERS}.checkpoint_wrapper"
APPLY_ACTIVATION_CHECKPOINTING = f"{_WRAPPERS}.apply_activation_checkpointing"
_PARTIAL = "functools.partial"
# What a `partial` may make a checkpoint function of; apply_activation_checkpointing takes one.
_CHECKPOINT_FUNCTIONS = frozenset({CHECKPOINT, CHECKPOINT_SEQUENTIAL, CHECKPOINT_WRAPPER})
_FOLLOW_DEPTH = 6
_CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"})
_ITERATING_BUILTINS = frozenset({"enumerate", "zip", "reversed", "list", "tuple", "iter"})
_ITEM_METHODS = frozenset({"values", "children", "items", "__call__", "forward"})

# Library calls that draw random numbers whenever they run.
_RANDOM_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        "rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "randperm",
        "bernoulli", "multinomial", "normal", "poisson",
    )
)
_RANDOM_TENSOR_METHODS = frozenset(
    {"uniform_", "normal_", "bernoulli", "bernoulli_", "exponential_", "random_", "geometric_", "cauchy_", "log_normal_"}
)
_F = "torch.nn.functional"
# Library calls that draw random numbers in training when their probability is not zero:
# qualified name -> (position, keyword, default probability, position of `training`).
DROPOUT_FUNCTIONS = {
    **{f"{_F}.{name}": (1, "p", 0.5, 2) for name in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")},
    f"{_F}.scaled_dot_product_attention": (4, "dropout_p", 0.0, None),
    "torchvision.ops.stochastic_depth": (1, "p", None, 3),
    "torchvision.ops.stochastic_depth.stochastic_depth": (1, "p", None, 3),
}
# Library layers that drop at random in training mode: qualified name -> (position, keyword, default).
DROPOUT_LAYERS = {
    **{f"torch.nn.{name}": (0, "p", 0.5) for name in ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout")},
    "torch.nn.TransformerEncoderLayer": (3, "dropout", 0.1),
    "torch.nn.TransformerDecoderLayer": (3, "dropout", 0.1),
    "torch.nn.Transformer": (5, "dropout", 0.1),
    "torch.nn.MultiheadAttention": (2, "dropout", 0.0),
    "torchvision.ops.StochasticDepth": (0, "p", None),
    **{f"{package}.DropPath": (0, "drop_prob", 0.0) for package in ("timm.layers", "timm.models.layers", "timm.layers.drop", "timm.models.layers.drop")},
}
_BATCH_NORMS = frozenset(
    f"torch.nn.{name}" for name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d")
)
_BATCH_NORM_TRACKING_POSITION = 4  # BatchNorm2d(num_features, eps, momentum, affine, track_running_stats)
_ACCUMULATING_METHODS = frozenset({"append", "extend", "insert", "appendleft"})  # not `set.add`: idempotent
_IN_PLACE_UPDATES = frozenset({"add_", "sub_", "mul_", "div_", "addcmul_", "addcdiv_", "lerp_", "copy_", "index_add_", "scatter_add_"})
# Conversions of a value that give the same result when repeated (`self.x = self.x.to(device)`).
_IDEMPOTENT = frozenset({"to", "type", "float", "half", "bfloat16", "double", "cuda", "cpu", "contiguous", "detach", "max", "min"})

Entry = cst.FunctionDef | cst.Lambda | cst.ClassDef | cst.Call


@dataclass(frozen=True)
class CheckpointCall:
    """One call that opens a checkpointed region, as written."""

    call: cst.Call
    name: str  # the qualified name of what it calls
    wrapped: cst.BaseExpression | None  # the callable or module the region runs
    check_fn: cst.BaseExpression | None  # apply_activation_checkpointing's module filter
    preserve_rng_state: cst.Arg | None  # where `preserve_rng_state` is passed, if anywhere


@dataclass
class Region:
    """What runs inside one checkpointed region, as far as this file shows."""

    functions: list[cst.FunctionDef | cst.Lambda] = field(default_factory=list)
    classes: list[cst.ClassDef] = field(default_factory=list)
    layers: list[cst.Call] = field(default_factory=list)  # library layers the region's modules build


def checkpoint_call(call: cst.Call, name: str | None, name_of: QualifiedName) -> CheckpointCall | None:
    """The region ``call`` opens, or None when it opens none (``name`` is its qualified name)."""
    if name in (CHECKPOINT, CHECKPOINT_SEQUENTIAL):
        wrapped = argument_for(call, 0, "function" if name == CHECKPOINT else "functions")
        return CheckpointCall(call, name, _value(wrapped), None, keyword_argument(call, "preserve_rng_state"))
    if name == CHECKPOINT_WRAPPER:
        return CheckpointCall(call, name, _value(argument_for(call, 0, "module")), None, keyword_argument(call, "preserve_rng_state"))
    if name == APPLY_ACTIVATION_CHECKPOINTING:
        wrapper_fn = _value(keyword_argument(call, "checkpoint_wrapper_fn"))
        preserve = None
        if isinstance(wrapper_fn, cst.Call) and name_of(wrapper_fn) == _PARTIAL:
            preserve = keyword_argument(wrapper_fn, "preserve_rng_state")
        return CheckpointCall(call, name, None, _value(keyword_argument(call, "check_fn")), preserve)
    return None


def _value(argument: cst.Arg | None) -> cst.BaseExpression | None:
    return argument.value if argument is not None and not argument.star else None


def is_false(expression: cst.BaseExpression, binder: Binder) -> bool:
    """The literal ``False``, or a name every binding of which before here assigns ``False``."""
    if literal_bool(expression) is False:
        return True
    if not isinstance(expression, cst.Name):
        return False
    bindings = binder.bindings_before(expression)
    return bool(bindings) and all(
        isinstance(b.node, cst.Assign) and len(b.node.targets) == 1 and literal_bool(b.node.value) is False for b in bindings
    )


class WalkContext(Protocol):
    """What :class:`CheckpointCalls` asks of the rule's context during the walk."""

    @property
    def in_no_grad(self) -> bool: ...

    def call_name(self, call: cst.Call) -> str | None: ...

    def qualified_name(self, expression: cst.BaseExpression) -> str | None: ...


class CheckpointCalls:
    """The calls that open checkpointed regions in one file, gathered during the walk
    (:meth:`see` each call) and completed after it (:meth:`resolved`).

    Besides the direct calls, a checkpoint function made as a value counts:
    ``functools.partial(checkpoint, preserve_rng_state=False, ...)`` (or of
    ``checkpoint_sequential``, ``checkpoint_wrapper``), followed through the names bound to
    it, the functions of this file that return it and the ``self.<attribute>`` it is stored
    in, to where it is called: ``ckpt(self._attend, x)`` opens a region exactly like
    ``checkpoint(self._attend, x, preserve_rng_state=False)``, with the partial's keywords
    (where the call passes none of its own) and the partial's ``preserve_rng_state``
    argument as the one to report. Passed as ``checkpoint_wrapper_fn`` to
    ``apply_activation_checkpointing`` it sets that call's ``preserve_rng_state``. A value
    handed anywhere else (an argument of another function, a container) is not followed.
    Calls made with gradients off (``torch.no_grad()``) open no region: nothing recomputes.
    """

    def __init__(self) -> None:
        self._direct: list[CheckpointCall] = []
        self._made: list[tuple[cst.Call, str]] = []  # partial(checkpoint, ...) and the function it binds
        self._no_grad: set[int] = set()  # ids of calls met with gradients off (the tree keeps them alive)

    def __bool__(self) -> bool:
        """Whether the file has anything to resolve (else the binder need not be built)."""
        return bool(self._direct or self._made)

    def see(self, call: cst.Call, context: WalkContext) -> None:
        name = context.call_name(call)
        if name == _PARTIAL and call.args and call.args[0].keyword is None and not call.args[0].star:
            bound = context.qualified_name(call.args[0].value)
            if bound in _CHECKPOINT_FUNCTIONS:
                self._made.append((call, bound))  # made anywhere; where it is called decides
        if context.in_no_grad:
            self._no_grad.add(id(call))
            return
        found = checkpoint_call(call, name, context.call_name)
        if found is not None:
            self._direct.append(found)

    def resolved(self, reader: RegionReader) -> list[CheckpointCall]:
        """The direct calls and those of checkpoint functions made as values, in that order;
        an ``apply_activation_checkpointing`` call handed a followed partial by name appears
        once, with the partial's ``preserve_rng_state``."""
        through_values = [
            found
            for made, bound in self._made
            for site in _sites(made, reader, 0)
            if id(site) not in self._no_grad
            for found in [_called_through(site, made, bound, reader)]
            if found is not None
        ]
        replaced = {id(found.call) for found in through_values}
        return [*(found for found in self._direct if id(found.call) not in replaced), *through_values]


def _sites(value: cst.BaseExpression, reader: RegionReader, depth: int) -> Iterator[cst.Call]:
    """The calls of ``value``, and the ``apply_activation_checkpointing`` calls it is handed
    to by name, as far as assignments, returns and ``self.<attribute>`` show where it goes."""
    if depth > _FOLLOW_DEPTH:
        return
    binder = reader.binder
    above = binder.parent(value)
    if isinstance(above, cst.IfExp) and (value is above.body or value is above.orelse):
        value, above = above, binder.parent(above)  # `fn() if enabled else None`
    if isinstance(above, cst.Call) and above.func is value:
        yield above
    elif isinstance(above, cst.Arg) and above.value is value and depth > 0:  # depth 0: the direct call has it
        call = binder.parent(above)
        handed = above.keyword is not None and above.keyword.value == "checkpoint_wrapper_fn"
        if handed and isinstance(call, cst.Call) and reader.name_of(call) == APPLY_ACTIVATION_CHECKPOINTING:
            yield call
    elif isinstance(above, (cst.Assign, cst.AnnAssign)) and above.value is value:
        targets = [t.target for t in above.targets] if isinstance(above, cst.Assign) else [above.target]
        if len(targets) == 1:
            for reference in _references(targets[0], reader):
                yield from _sites(reference, reader, depth + 1)
    elif isinstance(above, cst.Return) and above.value is value:
        function = binder.enclosing(above, cst.FunctionDef, cst.Lambda)
        if isinstance(function, cst.FunctionDef):
            for reference in _references_to_function(function, reader):
                call = binder.parent(reference)
                if isinstance(call, cst.Call) and call.func is reference:
                    yield from _sites(call, reader, depth + 1)


def _references(target: cst.BaseExpression, reader: RegionReader) -> list[cst.BaseExpression]:
    """The reads of what an assignment to ``target`` (a name or ``self.<attribute>``) stores."""
    binder = reader.binder
    if isinstance(target, cst.Name):
        binding = binder.binding_made_by(target)
        if binding is None:
            return []
        # A use in another scope (a function's body) runs later, whatever its place in the file.
        return [use for use in binding.references if binder.scope_of(use) is not binding.scope or binding in binder.bindings_before(use)]
    attribute = self_attribute(target)
    cls = binder.enclosing(target, cst.ClassDef) if attribute is not None else None
    if attribute is None or not isinstance(cls, cst.ClassDef):
        return []
    return [use for use in self_attribute_references(binder, cls, attribute) or [] if use is not target]


def _references_to_function(function: cst.FunctionDef, reader: RegionReader) -> list[cst.BaseExpression]:
    """The names of a function of the file, or the ``self.<name>`` of a method, where read."""
    binder = reader.binder
    binding = binder.binding_made_by(function.name)
    if binding is None:
        return []
    cls = binding.scope.node
    if isinstance(cls, cst.ClassDef):
        return list(self_attribute_references(binder, cls, function.name.value) or ())
    return list(binding.references)


def _called_through(site: cst.Call, made: cst.Call, bound: str, reader: RegionReader) -> CheckpointCall | None:
    """The region ``site`` opens, calling (or handing on) ``made = partial(bound, ...)``."""
    preserve = keyword_argument(made, "preserve_rng_state")
    if reader.name_of(site) == APPLY_ACTIVATION_CHECKPOINTING:
        if bound != CHECKPOINT_WRAPPER:
            return None
        return CheckpointCall(site, APPLY_ACTIVATION_CHECKPOINTING, None, _value(keyword_argument(site, "check_fn")), preserve)
    fixed = [argument for argument in made.args[1:] if argument.keyword is None]
    if any(argument.star for argument in fixed):
        return None  # `partial(checkpoint, *parts)`: what it runs is unknown
    own = keyword_argument(site, "preserve_rng_state") or next((a for a in site.args if a.star == "**"), None)
    keyword = "module" if bound == CHECKPOINT_WRAPPER else "functions" if bound == CHECKPOINT_SEQUENTIAL else "function"
    wrapped = fixed[0].value if fixed else _value(argument_for(site, 0, keyword))
    return CheckpointCall(site, bound, wrapped, None, own or preserve)


class RegionReader:
    """Resolves regions of one file; ``name_of`` is the context's ``call_name``."""

    def __init__(self, binder: Binder, name_of: QualifiedName) -> None:
        self.binder = binder
        self.name_of = name_of
        self._attributes: dict[cst.ClassDef, dict[str, list[cst.BaseExpression]]] = {}

    def in_test_function(self, node: cst.CSTNode) -> bool:
        """Inside a function named ``test*``: a pytest test exercising checkpointing on purpose
        (often forward only), or an evaluation that runs no backward, so nothing recomputes."""
        return any(isinstance(a, cst.FunctionDef) and a.name.value.startswith("test") for a in self.binder.ancestors(node))

    # ------------------------------------------------------------------ what runs inside
    def region(self, checkpoint: CheckpointCall) -> Region:
        region = Region()
        pending: list[Entry] = []
        if checkpoint.wrapped is not None:
            pending.extend(self.resolve(checkpoint.wrapped))
        if checkpoint.check_fn is not None:
            pending.extend(self._classes_tested_by(checkpoint.check_fn))
        seen: set[int] = set()
        while pending:
            entry = pending.pop()
            if id(entry) in seen:
                continue
            seen.add(id(entry))
            if isinstance(entry, cst.ClassDef):
                region.classes.append(entry)
                pending.extend(self._class_parts(entry, region))
            elif isinstance(entry, cst.Call):
                region.layers.append(entry)
            else:
                region.functions.append(entry)
                pending.extend(callee for call in calls_in(entry.body) for callee in self._callees(call))
        return region

    def _class_parts(self, cls: cst.ClassDef, region: Region) -> Iterator[Entry]:
        """The ``forward`` of a module class and the module classes its methods build."""
        yield from self.methods(cls, "forward")
        for call in calls_in(cls.body):
            built = self._class_named(call.func)
            if built is not None:
                yield built
            elif self.name_of(call) in DROPOUT_LAYERS or self.name_of(call) in _BATCH_NORMS:
                region.layers.append(call)

    def _callees(self, call: cst.Call) -> list[Entry]:
        return self.resolve(call.func) if isinstance(call.func, (cst.Name, cst.Attribute, cst.Subscript)) else []

    def resolve(self, expression: cst.BaseExpression, depth: int = 0) -> list[Entry]:
        """The definitions and layers an expression naming a callable or module may hold."""
        if depth > 8:
            return []
        if isinstance(expression, cst.Lambda):
            return [expression]
        if isinstance(expression, cst.Name):
            return [entry for binding in self.binder.bindings_before(expression) for entry in self._bound(binding.node, depth)]
        if isinstance(expression, cst.Attribute):
            return self._attribute(expression, depth)
        if isinstance(expression, cst.Subscript):
            return self.resolve(expression.value, depth + 1)
        if isinstance(expression, (cst.List, cst.Tuple)):
            return [entry for element in expression.elements for entry in self.resolve(element.value, depth + 1)]
        if isinstance(expression, (cst.ListComp, cst.GeneratorExp)):
            return self.resolve(expression.elt, depth + 1)
        if isinstance(expression, cst.DictComp):
            return self.resolve(expression.value, depth + 1)
        if isinstance(expression, cst.Dict):
            return [entry for element in expression.elements if isinstance(element, cst.DictElement) for entry in self.resolve(element.value, depth + 1)]
        if isinstance(expression, cst.Call):
            return self._called(expression, depth)
        return []

    def _bound(self, node: cst.CSTNode, depth: int) -> list[Entry]:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return [node]
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            return self.resolve(node.value, depth + 1)
        if isinstance(node, cst.For):
            return self.resolve(node.iter, depth + 1)  # the loop variable holds the iterable's items
        if isinstance(node, cst.Param) and node.annotation is not None:  # `model: Transformer`
            annotated = self._class_named(node.annotation.annotation)
            return [annotated] if annotated is not None else []
        return []

    def _attribute(self, expression: cst.Attribute, depth: int) -> list[Entry]:
        if isinstance(expression.value, cst.Name) and expression.value.value == "self":
            cls = self.binder.enclosing(expression, cst.ClassDef)
            if not isinstance(cls, cst.ClassDef):
                return []
            methods = self.methods(cls, expression.attr.value)
            if methods:
                return list(methods)
            return [entry for value in self.self_assignments(cls).get(expression.attr.value, []) for entry in self.resolve(value, depth + 1)]
        if expression.attr.value in _ITEM_METHODS:
            return self.resolve(expression.value, depth + 1)
        # `model.layers` of a model whose class the file shows: what that class stores there
        owners = [entry for entry in self.resolve(expression.value, depth + 1) if isinstance(entry, cst.ClassDef)]
        stored = [value for owner in owners for value in self.self_assignments(owner).get(expression.attr.value, [])]
        return [entry for value in stored for entry in self.resolve(value, depth + 1)]

    def _called(self, call: cst.Call, depth: int) -> list[Entry]:
        name = self.name_of(call)
        arguments = [argument.value for argument in call.args if argument.keyword is None]
        if name == _PARTIAL or (name is None and isinstance(call.func, cst.Name) and call.func.value in _ITERATING_BUILTINS):
            return [entry for argument in arguments[: 1 if name == _PARTIAL else None] for entry in self.resolve(argument, depth + 1)]
        if name in _CONTAINERS:
            return [entry for argument in arguments for entry in self.resolve(argument, depth + 1)]
        if name in DROPOUT_LAYERS or name in _BATCH_NORMS:
            return [call]
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _ITEM_METHODS:
            return self.resolve(call.func.value, depth + 1)
        built = self._class_named(call.func)
        if built is not None:
            return [built]
        factory = [entry for entry in self.resolve(call.func, depth + 1) if isinstance(entry, cst.FunctionDef)] if name is None else []
        # A factory of this file (`create_custom_forward(layer)`): the functions it returns
        # run, and so does what the call hands it.
        returned = [inner for function in factory for inner in _nested_functions(function)]
        if not returned:
            return []
        return [*returned, *(entry for argument in arguments for entry in self.resolve(argument, depth + 1))]

    def _class_named(self, expression: cst.BaseExpression) -> cst.ClassDef | None:
        if not isinstance(expression, cst.Name):
            return None
        classes = [b.node for b in self.binder.bindings_of(expression.value, self.binder.scope_of(expression)) if isinstance(b.node, cst.ClassDef)]
        return classes[0] if len(classes) == 1 else None

    def _classes_tested_by(self, check_fn: cst.BaseExpression) -> list[Entry]:
        """The classes of this file that ``isinstance(m, Block)`` in a module filter names."""
        bodies = [entry for entry in self.resolve(check_fn) if not isinstance(entry, (cst.ClassDef, cst.Call))]
        found: list[Entry] = []
        for body in bodies:
            for call in calls_in(body):
                if isinstance(call.func, cst.Name) and call.func.value == "isinstance" and len(call.args) == 2:
                    for name in names_read(call.args[1].value):
                        cls = self._class_named(name)
                        if cls is not None:
                            found.append(cls)
        return found

    # ------------------------------------------------------------------ classes
    def methods(self, cls: cst.ClassDef, name: str, depth: int = 0) -> list[cst.FunctionDef]:
        """The method ``name`` of ``cls``, or of its first base of this file that has one."""
        scope = self.binder.scope_defined_by(cls)
        own = [b.node for b in scope.bindings.get(name, [])] if scope is not None else []
        defs = [node for node in own if isinstance(node, cst.FunctionDef)]
        if defs or depth > 5:
            return defs[-1:]
        for base in self.bases(cls):
            found = self.methods(base, name, depth + 1)
            if found:
                return found
        return []

    def bases(self, cls: cst.ClassDef) -> list[cst.ClassDef]:
        found = (self._class_named(base.value) for base in cls.bases if base.keyword is None)
        return [base for base in found if base is not None and base is not cls]

    def self_assignments(self, cls: cst.ClassDef) -> dict[str, list[cst.BaseExpression]]:
        """``attribute -> values`` of every ``self.attribute = value`` in the class and its bases of this file."""
        known = self._attributes.get(cls)
        if known is None:
            known = self._attributes[cls] = {}
            for node in subtree(cls.body):
                targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target] if isinstance(node, cst.AnnAssign) else []
                for target in targets:
                    attribute = self_attribute(target)
                    if attribute is not None and node.value is not None:
                        known.setdefault(attribute, []).append(node.value)
            for base in self.bases(cls):
                for attribute, values in self.self_assignments(base).items():
                    known.setdefault(attribute, []).extend(values)
        return known

    def buffers(self, cls: cst.ClassDef) -> set[str]:
        """Names registered with ``self.register_buffer("name", ...)`` in the class."""
        found = set()
        for call in calls_in(cls.body):
            if dotted_name(call.func) == "self.register_buffer" and call.args and isinstance(call.args[0].value, cst.SimpleString):
                found.add(call.args[0].value.evaluated_value)
        return found

    def is_submodule_or_parameter(self, cls: cst.ClassDef, attribute: str) -> bool:
        for value in self.self_assignments(cls).get(attribute, []):
            if isinstance(value, cst.Call):
                name = self.name_of(value) or ""
                if self._class_named(value.func) is not None or (name.startswith("torch.nn.") and not name.startswith("torch.nn.functional")):
                    return True
        return False

    # ------------------------------------------------------------------ probabilities
    def may_be_nonzero(self, expression: cst.BaseExpression | None, default: float | None, depth: int = 0) -> bool:
        """Whether a probability may be non-zero; only zero on every path the file shows says no."""
        if expression is None:
            return default != 0.0
        number = _number(expression)
        if number is not None:
            return number != 0.0
        if depth > 4:
            return True
        if isinstance(expression, cst.Name):
            bindings = self.binder.bindings_before(expression)
            return not bindings or any(self._binding_may_be_nonzero(b.node, b.target, depth) for b in bindings)
        attribute = self_attribute(expression)
        cls = self.binder.enclosing(expression, cst.ClassDef) if attribute is not None else None
        if attribute is None or not isinstance(cls, cst.ClassDef):
            return True
        values = self.self_assignments(cls).get(attribute, [])
        return not values or any(self.may_be_nonzero(value, None, depth + 1) for value in values)

    def _binding_may_be_nonzero(self, node: cst.CSTNode, target: cst.CSTNode, depth: int) -> bool:
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and node.targets[0].target is target:
            return self.may_be_nonzero(node.value, None, depth + 1)
        if not isinstance(node, cst.Param) or node.default is None or self.may_be_nonzero(node.default, None, depth + 1):
            return True
        # A parameter that defaults to zero: non-zero only where a caller of this file passes more.
        function = self.binder.enclosing(node, cst.FunctionDef)
        return any(
            value is _STARRED or (isinstance(value, cst.BaseExpression) and self.may_be_nonzero(value, 0.0, depth + 1))
            for value in self._passed_for(function, node)
        )

    def _passed_for(self, function: cst.CSTNode | None, param: cst.Param) -> Iterator[cst.BaseExpression | object]:
        """What each call of ``function`` in this file passes for ``param`` (``_MISSING`` when nothing)."""
        if not isinstance(function, cst.FunctionDef):
            return
        callee = function.name if function.name.value != "__init__" else getattr(self.binder.enclosing(function, cst.ClassDef), "name", None)
        binding = self.binder.binding_made_by(callee) if callee is not None else None
        params = list(function.params.params)
        position = params.index(param) - (1 if function.name.value == "__init__" else 0) if param in params else -1
        for reference in binding.references if binding is not None else ():
            call = self.binder.parent(reference)
            if isinstance(call, cst.Call) and call.func is reference:
                argument = argument_for(call, position, param.name.value) if position >= 0 else keyword_argument(call, param.name.value)
                yield _MISSING if argument is None else (_STARRED if argument.star else argument.value)


_MISSING = object()  # a call that passes nothing for the parameter
_STARRED = object()  # a call whose `*args`/`**kwargs` may pass anything


def _number(expression: cst.BaseExpression) -> float | None:
    if isinstance(expression, (cst.Integer, cst.Float)):
        return float(expression.evaluated_value)
    return None


def _nested_functions(function: cst.FunctionDef) -> list[cst.FunctionDef]:
    """The functions ``function`` defines and returns by name (a closure factory)."""
    returned = {node.value.value for node in subtree(function.body) if isinstance(node, cst.Return) and isinstance(node.value, cst.Name)}
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    return [statement for statement in body if isinstance(statement, cst.FunctionDef) and statement.name.value in returned]


def calls_in(node: cst.CSTNode) -> Iterator[cst.Call]:
    return (child for child in subtree(node) if isinstance(child, cst.Call))


def runs_only_in_eval(node: cst.CSTNode, binder: Binder) -> bool:
    """Under ``if not self.training:`` (or the ``else`` of ``if self.training:``)."""
    child = node
    for ancestor in binder.ancestors(node):
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(ancestor, (cst.If, cst.IfExp)):
            training = _tests_training(ancestor.test)
            if (training is True and child is ancestor.orelse) or (training is False and child is ancestor.body):
                return True
        child = ancestor
    return False


def _tests_training(test: cst.BaseExpression) -> bool | None:
    """True for ``self.training``, False for ``not self.training``, None for other tests."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _tests_training(test.expression)
        return None if inner is None else not inner
    name = dotted_name(test)
    return True if name is not None and name.rsplit(".", 1)[-1] == "training" else None


# ---------------------------------------------------------------------- what a region does
def random_draws(region: Region, reader: RegionReader) -> list[cst.Call]:
    """The calls that draw random numbers when the region runs in training mode."""
    found = [call for function in region.functions for call in calls_in(function.body) if _draws(call, reader)]
    found += [layer for layer in region.layers if _random_layer(layer, reader)]
    return found


def _draws(call: cst.Call, reader: RegionReader) -> bool:
    if runs_only_in_eval(call, reader.binder):
        return False
    name = reader.name_of(call)
    if name in _RANDOM_FUNCTIONS:
        return True
    if name in DROPOUT_FUNCTIONS:
        position, keyword, default, training = DROPOUT_FUNCTIONS[name]
        mode = argument_for(call, training, "training") if training is not None else None
        if mode is not None and not mode.star and literal_bool(mode.value) is False:
            return False
        probability = argument_for(call, position, keyword)
        if probability is None:
            return default != 0.0
        return bool(probability.star) or reader.may_be_nonzero(probability.value, default)
    return name is None and isinstance(call.func, cst.Attribute) and call.func.attr.value in _RANDOM_TENSOR_METHODS


def _random_layer(layer: cst.Call, reader: RegionReader) -> bool:
    spec = DROPOUT_LAYERS.get(reader.name_of(layer) or "")
    if spec is None:
        return False
    position, keyword, default = spec
    probability = argument_for(layer, position, keyword)
    if probability is not None and probability.star:
        return True
    return reader.may_be_nonzero(probability.value if probability is not None else None, default)


def batch_norms(region: Region, reader: RegionReader) -> list[cst.Call]:
    """BatchNorm layers of the region built with running statistics (``track_running_stats``
    left at its default or literally True)."""
    found = []
    for layer in region.layers:
        if reader.name_of(layer) in _BATCH_NORMS:
            tracking = argument_for(layer, _BATCH_NORM_TRACKING_POSITION, "track_running_stats")
            if tracking is None or (not tracking.star and literal_bool(tracking.value) is True):
                found.append(layer)
    return found


@dataclass(frozen=True)
class StateUpdate:
    statement: cst.CSTNode
    state: str  # what is updated, as written: `self.expert_load`, `STATS`


def state_updates(region: Region, reader: RegionReader) -> list[StateUpdate]:
    """Statements of the region's functions that update state outliving the call in a way
    that does not give the same result when run twice."""
    found = []
    for function in region.functions:
        if not isinstance(function, cst.FunctionDef):
            continue
        cls = reader.binder.enclosing(function, cst.ClassDef)
        for node in subtree(function.body):
            state = _updated_state(node, cls if isinstance(cls, cst.ClassDef) else None, reader)
            if state is not None and not runs_only_in_eval(node, reader.binder):
                found.append(StateUpdate(node, state))
    return found


def _updated_state(node: cst.CSTNode, cls: cst.ClassDef | None, reader: RegionReader) -> str | None:
    if isinstance(node, cst.AugAssign):
        if isinstance(node.operator, (cst.BitOrAssign, cst.BitAndAssign)):
            return None  # `self.seen |= flags`: the same result when repeated
        return _outliving(node.target, cls, reader, item=isinstance(node.target, cst.Subscript))
    if isinstance(node, cst.Assign) and len(node.targets) == 1:
        target = self_attribute(node.targets[0].target)
        if target is None or _idempotent(node.value):
            return None
        reads_itself = any(self_attribute(child) == target for child in subtree(node.value))
        return _outliving(node.targets[0].target, cls, reader, item=False) if reads_itself else None
    if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Attribute):
        return _mutating_call(node.value, cls, reader)
    return None


def _mutating_call(call: cst.Call, cls: cst.ClassDef | None, reader: RegionReader) -> str | None:
    method = call.func.attr.value  # type: ignore[attr-defined]
    receiver = call.func.value  # type: ignore[attr-defined]
    if method in _ACCUMULATING_METHODS:
        return _outliving(receiver, cls, reader, item=True)
    while isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute) and receiver.func.attr.value in _IN_PLACE_UPDATES:
        call, receiver = receiver, receiver.func.value  # `self.buf.mul_(m).add_(x)`: the buffer is the first receiver
        method = call.func.attr.value  # type: ignore[attr-defined]
    if method not in _IN_PLACE_UPDATES or cls is None:
        return None
    if isinstance(receiver, cst.Attribute) and receiver.attr.value == "data":
        receiver = receiver.value
    buffer = self_attribute(receiver)
    if buffer is None or buffer not in reader.buffers(cls):
        return None
    if method == "copy_" and not any(self_attribute(child) == buffer for argument in call.args for child in subtree(argument)):
        return None  # `self.buf.copy_(x)` overwrites: the same value both runs
    return f"self.{buffer}"


def _idempotent(value: cst.BaseExpression) -> bool:
    """A conversion (``x.to(device)``, ``max(a, b)``), or a choice between conversions and
    nothing (``m.to(x.dtype) if m is not None else None``): the same value when run twice."""
    if isinstance(value, cst.IfExp):
        return all(_idempotent(branch) or is_none(branch) for branch in (value.body, value.orelse))
    return isinstance(value, cst.Call) and (
        (isinstance(value.func, cst.Attribute) and value.func.attr.value in _IDEMPOTENT)
        or (isinstance(value.func, cst.Name) and value.func.value in _IDEMPOTENT)
    )


def _outliving(target: cst.BaseExpression, cls: cst.ClassDef | None, reader: RegionReader, *, item: bool) -> str | None:
    """``self.x`` (not a submodule or parameter) or a module-level name that ``target`` updates:
    one declared ``global``, or any through an item or method (``STATS[k] += 1``, ``LOG.append(x)``)."""
    root = target
    while isinstance(root, cst.Subscript):
        root = root.value
    name = dotted_name(root)
    if name is None:
        return None
    attribute = self_attribute(root)
    if attribute is not None:
        return None if cls is None or reader.is_submodule_or_parameter(cls, attribute) else name
    if isinstance(root, cst.Name):
        scope = reader.binder.scope_of(root)
        if root.value in scope.declared_global:
            return name  # `global step; step += 1`
        bindings = reader.binder.bindings_of(root.value, scope)
        if item and bindings and all(b.scope is reader.binder.module_scope for b in bindings):
            return name
    return None
