"""The plain-container analysis of TCK601/TCK602: ``self.x = [...]`` in a module, holding
things only ``nn`` containers register, that nothing else registers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint.containers import copied_from, joined_parts
from torchcheck.lint.edits import nn_class_spelling
from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Kind
from torchcheck.lint.project import Condition
from torchcheck.lint.registration import may_register, registered_values, registering_parameters, walked_by_own_methods
from torchcheck.rules.modules._common import ModuleClassRule, self_attribute
from torchcheck.rules.modules._container_contents import ContainerReader, Contents, holds_containers, is_container, is_string_key


# Builtins that only read a container: passing `self.x` to them registers nothing.
_READING_BUILTINS = frozenset(
    {"len", "enumerate", "zip", "reversed", "iter", "print", "range", "isinstance", "sorted", "any", "all",
     "sum", "map", "filter", "min", "max", "list", "tuple", "repr", "str", "next", "id", "hasattr", "getattr"}
)
_LIST_FILLS = frozenset({"append", "extend", "insert"})


@dataclass(frozen=True)
class _Candidate:
    """A ``self.x = <plain container>`` assignment that may hold unregistered modules/parameters."""

    statement: cst.Assign | cst.AnnAssign  # reported; its value is replaced by the fix
    attribute: str
    contents: Contents
    function: cst.FunctionDef
    replacement: cst.BaseExpression | None
    condition: Condition | None  # its elements count only if a class of another file is a module


@dataclass(frozen=True)
class _Fill:
    """``self.x.append(v)`` / ``self.x[k] = v`` / ``self.x += [...]`` on an attribute."""

    container: str
    is_element: bool
    names: frozenset[str]
    function: cst.FunctionDef
    # whether an `nn` container filled the same way works: not for nested containers (no `nn`
    # container holds a plain list), a dict key that may not be a string, or `self.x = self.x + [...]`
    # on a list class without `+`
    fixable: bool
    stateful: bool = True  # an element that holds state (`nn.Linear`, not `nn.ReLU` or a class of plain values)


@dataclass
class _ContainerState:
    candidates: list[_Candidate] = field(default_factory=list)
    fills: dict[str, list[_Fill]] = field(default_factory=dict)
    # also bound to something else, or handed to a call that may register them
    excused: set[str] = field(default_factory=set)
    registered: dict[cst.FunctionDef, set[str]] = field(default_factory=dict)
    # per attribute filled later: an element counted only if a class of another file is a module
    conditions: dict[str, Condition] = field(default_factory=dict)


class PlainContainerRule(ModuleClassRule):
    """TCK601/TCK602: ``self.x = [...]`` in a module holding things only ``nn`` containers register.

    Subclasses name the containers and say which calls build an element. Decisions wait
    for the end of the class: a list later wrapped (``nn.Sequential(*self.x)``), reassigned
    (``self.x = nn.ModuleList(self.x)``) or holding names registered elsewhere
    (``self.add_module(name, layer)``, ``parent.set_submodule(path, layer)``) is correct code.
    """

    follows_project_bases = True
    list_class: str
    dict_class: str
    list_class_concatenates: bool  # whether `list_class(...) + [...]` works (ModuleList yes, ParameterList no)
    element_kind: Kind | None = None  # a name of this kind (`layer` after `isinstance(layer, nn.Module)`) is an element

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._states: dict[cst.ClassDef, _ContainerState] = {}
        self._installed: dict[cst.FunctionDef, frozenset[str]] = {}  # per def of this file: the parameters it registers
        self._reader = ContainerReader(context, self.is_element_call, self.element_condition, self.element_kind)

    def is_element_call(self, call: cst.Call) -> bool:
        raise NotImplementedError

    def element_condition(self, call: cst.Call) -> Condition | None:
        """The condition under which ``call`` builds an element after all (an instance of a
        class of another file); None when nothing would make it one."""
        return None

    def message_for(self, container: str) -> str:
        raise NotImplementedError

    # ----------------------------------------------------------------- walk
    @property
    def _state(self) -> _ContainerState | None:
        return self._states.get(self.context.current_class)  # type: ignore[arg-type]

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        if self.in_torch_module:
            self._states[node] = _ContainerState()

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        if (state := self._states.pop(node, None)) is not None:
            state.excused |= walked_by_own_methods(node)  # `def parameters(self):` walking `self.critics`
            self._resolve(state)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        state, attribute = self._state, self_attribute(node.target, self.self_name)
        if state is not None and attribute is not None:
            if not (isinstance(node.operator, cst.AddAssign) and self._appended(state, attribute, node.value, concatenated=False)):
                state.excused.add(attribute)

    def _appended(self, state: _ContainerState, attribute: str, items: cst.BaseExpression, *, concatenated: bool) -> bool:
        """Record ``self.x += items`` / ``self.x = self.x + items`` as filling the list ``x``;
        False when ``items`` is not a list literal or comprehension."""
        contents = self._reader.contents(items)
        if contents is None or contents.container != "list" or isinstance(items, cst.Call):
            return False
        fixable = not holds_containers(items) and (not concatenated or self.list_class_concatenates)
        self._fill(state, attribute, _Fill("list", contents.all_elements, contents.names, self.context.flow.function, fixable, contents.stateful))
        return True

    def assigned(self, statement: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        state, self_name = self._state, self.self_name
        if state is None or self_name is None or value is None:
            return
        attribute = self_attribute(target, self_name)
        if attribute is not None:
            self._attribute_assigned(state, statement, attribute, value)
        elif isinstance(target, cst.Subscript):
            attribute = self_attribute(target.value, self_name)
            if attribute is not None and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
                is_element, names = self._reader.element(value)
                fixable = is_string_key(target.slice[0].slice.value, self.context) and not is_container(value)
                self._fill(state, attribute, _Fill("dict", is_element, names, self.context.flow.function, fixable, self._reader.stateful(value, is_element)))
        elif isinstance(target, (cst.Tuple, cst.List)):
            state.excused.update(filter(None, (self_attribute(element.value, self_name) for element in target.elements)))

    def _attribute_assigned(self, state: _ContainerState, statement: cst.CSTNode, attribute: str, value: cst.BaseExpression) -> None:
        # `self.x = self.x + [...]`
        concatenated = isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add) and self_attribute(value.left, self.self_name) == attribute
        if concatenated and self._appended(state, attribute, value.right, concatenated=True):  # type: ignore[union-attr]
            return
        written = self._reader.contents(value)
        contents = written or self._reader.passed_contents(value)
        condition, self._reader.pending_condition = self._reader.pending_condition, None  # this statement's own
        if contents is None:
            if not (isinstance(value, cst.Name) and value.value == "None"):
                state.excused.add(attribute)
            return
        if not contents.empty and not (contents.some_elements and contents.stateful):
            return  # a plain container of something else, or of modules that hold no state
        fixable = written is not None and (contents.empty or contents.all_elements)  # not a parameter: its callers may pass anything
        fixable = fixable and (contents.container == "list" or contents.string_keys or contents.empty) and not holds_containers(value)
        replacement = self._wrapped(value, contents) if fixable else None
        state.candidates.append(_Candidate(statement, attribute, contents, self.context.flow.function, replacement, condition))  # type: ignore[arg-type]

    def _wrapped(self, value: cst.BaseExpression, contents: Contents) -> cst.BaseExpression | None:
        func = nn_class_spelling(self.context, self.list_class if contents.container == "list" else self.dict_class)
        if func is None or contents.empty:
            return cst.Call(func=func) if func is not None else None
        if isinstance(value, cst.Tuple) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.Call(func=func, args=[cst.Arg(value=value)])

    def visit_Call(self, node: cst.Call) -> None:
        state, self_name, func = self._state, self.self_name, node.func
        if state is None or self_name is None:
            return
        attribute = self_attribute(func.value, self_name) if isinstance(func, cst.Attribute) else None
        if attribute is not None and func.attr.value in _LIST_FILLS:  # type: ignore[attr-defined]
            self._list_filled(state, attribute, func.attr.value, node)  # type: ignore[attr-defined]
            return
        if isinstance(func, cst.Name) and func.value in _READING_BUILTINS and self.context.qualified_name(func) is None:
            return
        # a helper's registrations matter once the class holds a plain container
        helpers = self._registering if state.candidates or state.fills else lambda function: frozenset()
        names = state.registered.setdefault(self.context.flow.function, set())  # type: ignore[arg-type]
        for value in registered_values(self.context, node, self_name, helpers):
            if isinstance(value, cst.Name):
                names.add(value.value)
                state.excused.update(filter(None, [self._iterated_attribute(value.value)]))  # each item registered in a loop
            else:  # `self._add_to_parameters(self.kernels, name)` registers each item; `self.add_module(n, self.heads[-1])`
                state.excused.update(filter(None, [self_attribute(value.value if isinstance(value, cst.Subscript) else value, self_name)]))
        if may_register(self.context, node):
            # `nn.ParameterList(self._offset + self._scale)` registers both lists
            # `nn.ModuleList(list(self.convs.values()))` registers the dict's modules
            parts = (copied_from(part) for argument in node.args for part in joined_parts(argument.value))
            state.excused.update(filter(None, (self_attribute(part, self_name) for part in parts)))

    def _registering(self, function: cst.FunctionDef) -> frozenset[str]:
        if function not in self._installed:
            self._installed[function] = registering_parameters(function)
        return self._installed[function]

    def _iterated_attribute(self, name: str) -> str | None:
        """``layers`` when ``name`` is the target of an enclosing ``for ... in
        enumerate(self.layers):`` (or ``in self.layers``)."""
        loop = getattr(self.context.flow.last_binding(name), "node", None)
        if not isinstance(loop, cst.For) or loop not in self.context.loops:
            return None
        candidates = [loop.iter, *(argument.value for argument in loop.iter.args)] if isinstance(loop.iter, cst.Call) else [loop.iter]
        return next(filter(None, (self_attribute(candidate, self.self_name) for candidate in candidates)), None)

    def _list_filled(self, state: _ContainerState, attribute: str, method: str, call: cst.Call) -> None:
        positional = [argument.value for argument in call.args if argument.keyword is None and not argument.star]
        is_element, names, nested = False, frozenset[str](), False
        if (method, len(positional)) in (("append", 1), ("insert", 2)):  # the item is the last argument
            (is_element, names), nested = self._reader.element(positional[-1]), is_container(positional[-1]) or bool(self._reader.filled_list(positional[-1]))
        elif (method, len(positional)) == ("extend", 1):
            items, nested = positional[0], holds_containers(positional[0])
            contents = self._reader.contents(items)
            if isinstance(items, cst.GeneratorExp):
                is_element = self._reader.built_element(items.elt)
            elif contents is not None and contents.container == "list":
                is_element, names = contents.all_elements, contents.names
        stateful = self._reader.stateful(positional[-1], is_element) if positional and method != "extend" else is_element
        self._fill(state, attribute, _Fill("list", is_element, names, self.context.flow.function, not nested, stateful))  # type: ignore[arg-type]

    def _fill(self, state: _ContainerState, attribute: str, fill: _Fill) -> None:
        state.fills.setdefault(attribute, []).append(fill)
        self._keep_condition(state, attribute)

    def _keep_condition(self, state: _ContainerState, attribute: str) -> None:
        if self._reader.pending_condition is not None:  # the statement read holds an element of another file
            state.conditions.setdefault(attribute, self._reader.pending_condition)
            self._reader.pending_condition = None

    # ----------------------------------------------------------------- decision
    def _resolve(self, state: _ContainerState) -> None:
        registered = lambda function: state.registered.get(function, set())
        for candidate in state.candidates:
            attribute, replacement, fills = candidate.attribute, candidate.replacement, state.fills.get(candidate.attribute, [])
            if attribute in state.excused or candidate.contents.names & registered(candidate.function):
                continue
            if candidate.contents.empty:  # judged by what fills it
                container = candidate.contents.container
                if not fills or any(
                    fill.container != container or not fill.is_element or fill.names & registered(fill.function) for fill in fills
                ):
                    continue
                if not any(fill.stateful for fill in fills):
                    continue  # modules that hold nothing a plain container loses
                if not all(fill.fixable for fill in fills):
                    replacement = None
            condition = state.conditions.get(attribute) if candidate.contents.empty else candidate.condition
            self.report(
                candidate.statement,
                self.message_for(candidate.contents.container),
                replacement=replacement,
                replace_target=candidate.statement.value if replacement is not None else None,
                conditions=(condition,) if condition is not None else (),
            )
