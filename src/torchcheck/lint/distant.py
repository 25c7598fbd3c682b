"""Kinds that arrive from elsewhere in the file: what a parameter holds, from every call of
its function; what ``self.<attribute>`` holds, from every assignment to it in the class.

The shared walk knows a value where the walk has seen it made. A parameter is made by the
callers, usually further down the file (``train(net, opt, loader)`` in ``main()``), and an
attribute may be set in a method the walk has not reached (``setup()`` after
``training_step()``). These questions are asked lazily, when a rule asks about such a value and
the walk knows nothing better, and answered from the binder (lint/binder.py): the calls that
reach a ``def``, the bindings that reach a name, the assignments of a class.

A parameter is typed only when every call of its function in the file passes the same kind
and the function is used in no other way (passed as a callback, it has callers out of sight);
an attribute only when every assignment agrees (``None`` placeholders aside). Either way the
evidence is at most ``Evidence.CALLERS``: code elsewhere may still pass something else, so
no fix becomes safe on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from torchcheck.lint.binder import Binding, Scope
from torchcheck.lint.kinds import UNKNOWN, Evidence, Inferred
from torchcheck.lint.nodes import decorator_names, is_none, runs_a_parent_initialiser, self_attribute, subtree
from torchcheck.lint.buffers import methods_of
from torchcheck.lint.references import class_and_file_bases, file_function, only_inspected
from torchcheck.lint.summaries import bind_arguments

if TYPE_CHECKING:
    from torchcheck.lint.binder import Binder

# How many hops (an argument bound to another parameter, bound to ...) a question may take.
_MAX_DEPTH = 3

InferElsewhere = Callable[[cst.BaseExpression], Inferred]


def agreeing(kinds: list[Inferred], ceiling: Evidence = Evidence.CALLERS) -> Inferred:
    """The kind every item gives, with the weakest evidence (at most ``ceiling``); UNKNOWN when
    there is none, or when any item is unknown or differs."""
    if not kinds or any(item.kind is None or item.kind is not kinds[0].kind for item in kinds):
        return UNKNOWN
    weakest = min(item.evidence for item in kinds)  # type: ignore[type-var]
    return Inferred(kinds[0].kind, min(weakest, ceiling))


class DistantKinds:
    """Answers for one file; ``infer_elsewhere`` infers an expression where it stands in the
    file (its names resolved by the binder, through :meth:`name`)."""

    def __init__(self, binder: Callable[[], Binder], infer_elsewhere: InferElsewhere, annotated: InferElsewhere) -> None:
        self._binder = binder
        self._infer_elsewhere = infer_elsewhere
        self._annotated = annotated
        self._parameters: dict[cst.Param, Inferred] = {}
        self._attributes: dict[tuple[cst.ClassDef, str], Inferred] = {}
        # per class: for each method name, its `self.<name>(...)` calls and its other mentions
        self._self_calls: dict[cst.ClassDef, dict[str, tuple[list[cst.Call], int]]] = {}
        # per class: for each attribute, the values `self.<attribute> = ...` stores, in source order
        self._stores: dict[cst.ClassDef, dict[str, list[cst.BaseExpression]]] = {}
        self._asking: list[cst.CSTNode] = []

    # ----------------------------------------------------------------- questions
    def parameter(self, function: cst.FunctionDef, param: cst.Param, owner: cst.ClassDef | None) -> Inferred:
        """What every call of ``function`` (a method when ``owner`` is its class) in the file
        passes for ``param``."""
        if param not in self._parameters:
            self._parameters[param] = self._guarded(param, lambda: self._passed_for(function, param, owner))
        return self._parameters[param]

    def attribute(self, class_def: cst.ClassDef, attribute: str, read: cst.CSTNode | None = None) -> Inferred:
        """What every assignment to ``self.<attribute>`` in ``class_def`` stores; for a ``read``
        inside the value of one of them (``self.labels = torch.tensor(self.labels)``), what
        the others store: that statement reads what was there before it."""
        if read is not None:
            around = set(map(id, self._binder().ancestors(read)))
            values = self.stored_values(class_def, attribute)
            if any(id(value) in around for value in values):
                others = [value for value in values if id(value) not in around and not is_none(value)]
                return self._guarded(class_def, lambda: agreeing([self._infer_elsewhere(value) for value in others]))
        key = (class_def, attribute)
        if key not in self._attributes:
            self._attributes[key] = self._guarded(class_def, lambda: self._assigned_to(class_def, attribute))
        return self._attributes[key]

    def name(self, use: cst.Name, fallback: Callable[[str], Inferred]) -> Inferred:
        """What a name holds where it is used, from every binding that may reach the use;
        ``fallback`` answers for a name the file binds nowhere (a builtin)."""
        bindings = self._binder().bindings_before(use)
        if not bindings:
            return fallback(use.value)
        return agreeing([self._binding_kind(binding, fallback) for binding in bindings], Evidence.STRONG)

    def class_of(self, node: cst.CSTNode) -> cst.ClassDef | None:
        """The class whose method ``node`` is in."""
        found = self._binder().enclosing(node, cst.ClassDef)
        return found if isinstance(found, cst.ClassDef) else None

    def passed_values(self, function: cst.FunctionDef, param: cst.Param, owner: cst.ClassDef | None) -> list[cst.BaseExpression]:
        """What every call of ``function`` in the file passes for ``param`` (its default where
        a call passes nothing); empty when a call hides it or the function is handed on."""
        calls = self._method_calls(function, owner) if owner is not None else self._function_calls(function)
        values = [self._argument_for(call, function, param, skipped) for call, skipped in calls or ()]
        return values if all(value is not None for value in values) else []  # type: ignore[return-value]

    # ----------------------------------------------------------------- parameters
    def _passed_for(self, function: cst.FunctionDef, param: cst.Param, owner: cst.ClassDef | None) -> Inferred:
        values = self.passed_values(function, param, owner)
        return agreeing([self._infer_elsewhere(value) for value in values]) if values else UNKNOWN

    # Each gives every call that runs the function, with how many leading parameters the call
    # does not pass (``self``); None when the function is also used in a way that hides its callers.
    def _function_calls(self, function: cst.FunctionDef) -> list[tuple[cst.Call, int]] | None:
        own = self._binder().binding_made_by(function.name)
        return self._direct_calls(own.references, self._binder()) if own is not None else None

    def _method_calls(self, function: cst.FunctionDef, class_def: cst.ClassDef) -> list[tuple[cst.Call, int]] | None:
        decorators = decorator_names(function)
        if "classmethod" in decorators or "property" in decorators or ("staticmethod" in decorators and self._called_on_class(function, class_def)):
            return None
        skipped = 0 if "staticmethod" in decorators else 1  # `self._step(batch, model)` of a static method passes every parameter
        if function.name.value == "__init__":
            binding = self._binder().binding_made_by(class_def.name)
            return self._direct_calls(binding.references, self._binder(), skipped=1) if binding is not None else None
        calls, mentions = self._self_calls_in(class_def).get(function.name.value, ([], 0))
        # every `self.<name>` is a call's callee, or the method is handed on (a callback)
        return [(call, skipped) for call in calls] if mentions == len(calls) else None

    def _called_on_class(self, function: cst.FunctionDef, class_def: cst.ClassDef) -> bool:
        """``Trainer._step(...)``: the class itself names the method somewhere in the file."""
        binding = self._binder().binding_made_by(class_def.name)
        parents = (self._binder().parent(reference) for reference in (binding.references if binding is not None else ()))
        return binding is None or any(type(parent) is cst.Attribute and parent.attr.value == function.name.value for parent in parents)  # type: ignore[attr-defined]

    def _self_calls_in(self, class_def: cst.ClassDef) -> dict[str, tuple[list[cst.Call], int]]:
        found = self._self_calls.get(class_def)
        if found is None:
            calls: dict[str, list[cst.Call]] = {}
            mentions: dict[str, int] = {}
            for node in subtree(class_def):
                called = self_attribute(node.func) if type(node) is cst.Call else None  # type: ignore[attr-defined]
                mentioned = self_attribute(node)
                if called is not None:
                    calls.setdefault(called, []).append(node)  # type: ignore[arg-type]
                elif mentioned is not None:
                    mentions[mentioned] = mentions.get(mentioned, 0) + 1
            found = self._self_calls[class_def] = {name: (calls.get(name, []), mentions.get(name, 0)) for name in {*calls, *mentions}}
        return found

    def _direct_calls(self, references: list[cst.Name], binder: Binder, skipped: int = 0, depth: int = 0) -> list[tuple[cst.Call, int]] | None:
        calls = []
        for reference in references:
            if only_inspected(binder, reference):
                continue  # `super(DDGM, self).__init__()` in the class itself
            parent = binder.parent(reference)
            if type(parent) is cst.Call and parent.func is reference:  # type: ignore[attr-defined]
                calls.append((parent, skipped))
                continue
            initialiser = binder.parent(parent) if type(parent) is cst.Attribute and parent.attr.value == "__init__" else None  # type: ignore[attr-defined]
            if skipped and type(initialiser) is cst.Call and initialiser.func is parent:  # `Base.__init__(self, ...)` in a subclass
                calls.append((initialiser, 0))  # type: ignore[arg-type]
                continue
            if skipped and type(parent) is cst.Attribute and initialiser is None and self._builds_nothing(reference, parent.attr.value, binder):  # type: ignore[attr-defined]
                continue  # `Model._get_model(...)`, a static method: it constructs only through calls the file shows
            subclass = binder.parent(parent) if type(parent) is cst.Arg else None
            if skipped and type(subclass) is cst.ClassDef and any(base is parent for base in subclass.bases):  # type: ignore[attr-defined]
                inherited = self._subclass_calls(subclass, reference, binder, depth)  # type: ignore[arg-type]
                if inherited is None:
                    return None
                calls.extend(inherited)
                continue
            handed = self._calls_through_parameter(reference, parent, binder, depth) if not skipped else None
            if handed is None:
                return None
            calls.extend(handed)
        return calls

    @staticmethod
    def _builds_nothing(reference: cst.Name, name: str, binder: Binder) -> bool:
        """``Cls.name`` where the class itself defines ``name`` as a method that is no
        ``classmethod`` (one could build instances through ``cls(...)``, out of sight)."""
        bindings = binder.bindings_before(reference)
        owner = bindings[0].node if len(bindings) == 1 else None
        method = methods_of(owner).get(name) if type(owner) is cst.ClassDef else None  # type: ignore[arg-type]
        return method is not None and "classmethod" not in decorator_names(method)

    def _subclass_calls(self, subclass: cst.ClassDef, base: cst.Name, binder: Binder, depth: int) -> list[tuple[cst.Call, int]] | None:
        """``class Sub(Base):`` of this file: the calls that run ``Base.__init__`` for it - the
        constructions of ``Sub`` when it defines no ``__init__``, else the ``super().__init__(...)``
        calls its own ``__init__`` makes (``Base.__init__(self, ...)`` is a reference of its
        own); None when they cannot all be seen (``super()`` of a class whose first base is
        another one)."""
        if depth >= _MAX_DEPTH:
            return None
        init = methods_of(subclass).get("__init__")
        if init is None:
            own = binder.binding_made_by(subclass.name)
            return self._direct_calls(own.references, binder, skipped=1, depth=depth + 1) if own is not None else None
        nested = lambda node: node is not init and type(node) in (cst.FunctionDef, cst.Lambda, cst.ClassDef)  # noqa: E731
        calls = []
        for node in subtree(init, nested):
            if type(node) is not cst.Call or not runs_a_parent_initialiser(node):  # type: ignore[arg-type]
                continue
            receiver = node.func.value  # type: ignore[attr-defined]
            if type(receiver) is cst.Call:  # `super().__init__(...)`: the first base's
                if subclass.bases[0].value is not base:
                    return None
                calls.append((node, 1))
        return calls  # type: ignore[return-value]

    def _calls_through_parameter(self, reference: cst.Name, parent: cst.CSTNode | None, binder: Binder, depth: int) -> list[tuple[cst.Call, int]] | None:
        """A function handed to a function of this file (``conjugate_gradients(fvp, b)``) whose
        parameter only calls it (``avp(p)``): those calls are its callers."""
        call = binder.parent(parent) if type(parent) is cst.Arg and parent.keyword is None and not parent.star else None
        callee = file_function(binder, call.func) if type(call) is cst.Call and depth < _MAX_DEPTH else None
        mapping = bind_arguments(call, callee) if callee is not None else None  # type: ignore[arg-type]
        name = next((key for key, value in (mapping or {}).items() if value is reference), None)
        param = next((param for param in callee.params.params if param.name.value == name), None) if name is not None else None  # type: ignore[union-attr]
        binding = binder.binding_made_by(param.name) if param is not None else None
        return self._direct_calls(binding.references, binder, depth=depth + 1) if binding is not None else None

    @staticmethod
    def _argument_for(call: cst.Call, function: cst.FunctionDef, param: cst.Param, skipped: int) -> cst.BaseExpression | None:
        """The expression ``call`` passes for ``param`` (its default when it passes nothing);
        None when a starred argument hides it. A call that skips ``self`` binds it to the
        instance: the call's own result for a class call, the receiver for ``self.m(...)``."""
        instance = (call.func.value if type(call.func) is cst.Attribute else call) if skipped else None  # type: ignore[attr-defined]
        mapping = bind_arguments(call, function, receiver=instance)
        return mapping.get(param.name.value) if mapping is not None else None

    # ----------------------------------------------------------------- attributes
    def _assigned_to(self, class_def: cst.ClassDef, attribute: str) -> Inferred:
        kinds = []
        for value in self.stored_values(class_def, attribute):
            if not is_none(value):
                kinds.append(self._infer_elsewhere(value))
        return agreeing(kinds)

    def stored_values(self, class_def: cst.ClassDef, attribute: str) -> list[cst.BaseExpression]:
        """The values stored in ``self.<attribute>`` in the class and the classes of this file
        it derives from (``__init__`` of a base picking the loss)."""
        return [value for cls in class_and_file_bases(self._binder(), class_def) for value in self._stores_of(cls).get(attribute, [])]

    def _stores_of(self, class_def: cst.ClassDef) -> dict[str, list[cst.BaseExpression]]:
        """One pass over the class answers for all its attributes."""
        stores = self._stores.get(class_def)
        if stores is None:
            stores = self._stores[class_def] = {}
            for node in subtree(class_def):
                if type(node) is cst.Assign:
                    for name in dict.fromkeys(self_attribute(target.target) for target in node.targets):  # type: ignore[attr-defined]
                        if name is not None:
                            stores.setdefault(name, []).append(node.value)  # type: ignore[attr-defined]
                elif type(node) is cst.AnnAssign and node.value is not None:  # type: ignore[attr-defined]
                    name = self_attribute(node.target)  # type: ignore[attr-defined]
                    if name is not None:
                        stores.setdefault(name, []).append(node.value)  # type: ignore[attr-defined]
        return stores

    # ----------------------------------------------------------------- names
    def _binding_kind(self, binding: Binding, fallback: Callable[[str], Inferred]) -> Inferred:
        node = binding.node
        if isinstance(node, cst.Param):
            return self._parameter_binding(binding, node)
        if isinstance(node, cst.Assign) and any(target.target is binding.target for target in node.targets):
            return self._guarded(node, lambda: self._infer_elsewhere(node.value))
        if isinstance(node, cst.AnnAssign) and node.target is binding.target:
            if node.value is not None:
                return self._guarded(node, lambda: self._infer_elsewhere(node.value))  # type: ignore[arg-type]
            return self._annotated(node.annotation)
        if isinstance(node, (cst.Import, cst.ImportFrom, cst.ClassDef, cst.FunctionDef)) and _is_module_scope(binding.scope):
            return fallback(binding.name)
        return UNKNOWN

    def _parameter_binding(self, binding: Binding, param: cst.Param) -> Inferred:
        if param.annotation is not None:
            return self._annotated(param.annotation)
        function = binding.scope.node
        if not isinstance(function, cst.FunctionDef):
            return UNKNOWN
        home = binding.scope.parent.node if binding.scope.parent is not None else None
        return self.parameter(function, param, home if isinstance(home, cst.ClassDef) else None)

    def _guarded(self, node: cst.CSTNode, answer: Callable[[], Inferred]) -> Inferred:
        """``answer()``, or UNKNOWN for a question already being asked (recursion) or too deep."""
        if any(item is node for item in self._asking) or len(self._asking) >= _MAX_DEPTH:
            return UNKNOWN
        self._asking.append(node)
        try:
            return answer()
        finally:
            self._asking.pop()


def _is_module_scope(scope: Scope) -> bool:
    return isinstance(scope.node, cst.Module)
