"""What the nn.Module rules share: whether the walk is inside a torch module class (the
context's ``is_module_class``, or the project index for bases of other files), which method
of it and what that method calls its instance; and the plain-container analysis of
TCK601/TCK602.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.buffers import methods_of
from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import decorator_names, dotted_name, is_none, method_call, subtree
from torchcheck.lint.project import Condition
from torchcheck.lint.rule import Rule

PARAMETER_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})

# Calls that register a module, parameter or buffer under a name.
REGISTERING_METHODS = frozenset({"add_module", "register_module", "register_parameter", "register_buffer"})


def nn_class_expression(rule: Rule, qualified: str) -> cst.BaseExpression | None:
    """How this file spells ``torch.nn.<Class>`` here (``nn.X``, ``X`` or ``torch.nn.X``), or None.

    Only a spelling that resolves to the torch class in the current scope is returned, so a
    fix never emits a name the file does not define (or defines as something else).
    """
    short = qualified.rsplit(".", 1)[-1]
    candidates: tuple[cst.BaseExpression, ...] = (
        cst.Attribute(value=cst.Name("nn"), attr=cst.Name(short)),
        cst.Name(short),
        cst.Attribute(value=cst.Attribute(value=cst.Name("torch"), attr=cst.Name("nn")), attr=cst.Name(short)),
    )
    for candidate in candidates:
        resolved = rule.context.qualified_name(candidate)
        if resolved is not None and resolved.startswith("torch.nn.") and resolved.endswith(f".{short}"):
            return candidate
    return None


def self_attribute(expression: cst.BaseExpression, self_name: str | None) -> str | None:
    """``"x"`` for ``self.x`` (with the method's own name for the instance), else None."""
    if (
        self_name is not None
        and type(expression) is cst.Attribute  # exact type: cheaper than isinstance on libcst's ABCs
        and type(expression.value) is cst.Name
        and expression.value.value == self_name
    ):
        return expression.attr.value
    return None


def is_string_key(expression: cst.BaseExpression, rule: Rule) -> bool:
    """A key that is certainly a ``str``: a literal, an f-string, or ``str(...)``."""
    if isinstance(expression, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return not (isinstance(expression, cst.SimpleString) and "b" in expression.prefix.lower())
    return isinstance(expression, cst.Call) and dotted_name(expression.func) == "str" and rule.context.qualified_name(expression.func) is None


@dataclass
class ClassFrame:
    """One class being walked: whether it is a torch module, and the functions open inside it."""

    node: cst.ClassDef
    is_torch_module: bool
    # set when the class is a torch module only if a base defined in another file is one:
    # the rule's findings inside it then stand only if the project index says so
    condition: Condition | None = None
    functions: list[cst.FunctionDef] = field(default_factory=list)
    self_name: str | None = None  # of the outermost open function, the method


def _instance_parameter(method: cst.FunctionDef) -> str | None:
    """The name ``method`` gives its instance (``self``); None for static and class methods."""
    if decorator_names(method) & {"staticmethod", "classmethod"}:
        return None
    params = (*method.params.posonly_params, *method.params.params)
    return params[0].name.value if params else None


class ModuleClassRule(Rule):
    """Base of the TCK6xx rules: knows whether the walk is inside a torch ``nn.Module``.

    Subclasses that implement ``visit_ClassDef``/``leave_ClassDef``/``visit_FunctionDef``/
    ``leave_FunctionDef`` must call ``super()`` first (visit) or last (leave). Each target of
    an assignment reaches :meth:`assigned`, unless a subclass overrides ``visit_Assign``/
    ``visit_AnnAssign``.
    """

    # Whether a class counts as a module when its bases come from other files (its findings
    # then wait for the project index): only for rules that report while inside the class.
    follows_project_bases: ClassVar[bool] = False

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._class_frames: list[ClassFrame] = []

    # ----------------------------------------------------------------- facts
    @property
    def class_frame(self) -> ClassFrame | None:
        return self._class_frames[-1] if self._class_frames else None

    @property
    def in_torch_module(self) -> bool:
        """Inside the innermost class, and that class derives from a torch ``nn.Module``."""
        frame = self.class_frame
        return frame is not None and frame.is_torch_module

    @property
    def method(self) -> cst.FunctionDef | None:
        """The method of the innermost class that encloses the current node (nested functions included)."""
        frame = self.class_frame
        return frame.functions[0] if frame is not None and frame.functions else None

    @property
    def self_name(self) -> str | None:
        """The name of the instance in the current method (``self``), or None for static/class methods."""
        frame = self.class_frame
        return frame.self_name if frame is not None else None

    # ----------------------------------------------------------------- walk
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        is_module = self.context.is_module_class(node)
        condition = self.context.module_class_condition(node) if self.follows_project_bases and not is_module else None
        self._class_frames.append(ClassFrame(node, is_module or condition is not None, condition=condition))

    def report(self, node: cst.CSTNode, message: str | None = None, **options: Any) -> None:
        """A finding inside a class whose module-ness another file decides stands only if it is one."""
        frame = self.class_frame
        if frame is not None and frame.condition is not None:
            options["conditions"] = (*options.get("conditions", ()), frame.condition)
        super().report(node, message, **options)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._class_frames.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._class_frames:
            frame = self._class_frames[-1]
            if not frame.functions:
                frame.self_name = _instance_parameter(node)
            frame.functions.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._class_frames:
            frame = self._class_frames[-1]
            frame.functions.pop()
            if not frame.functions:
                frame.self_name = None

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.assigned(node, target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.assigned(node, node.target, node.value)

    def assigned(self, statement: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        """Hook: ``target = value`` (each target of an assignment; an annotated one with a value)."""


def is_overload(function: cst.FunctionDef) -> bool:
    return "overload" in decorator_names(function)


# Builtins that only read a container: passing `self.x` to them registers nothing.
_READING_BUILTINS = frozenset(
    {"len", "enumerate", "zip", "reversed", "iter", "print", "range", "isinstance", "sorted", "any", "all",
     "sum", "map", "filter", "min", "max", "list", "tuple", "repr", "str", "next", "id", "hasattr", "getattr"}
)
_LIST_FILLS = frozenset({"append", "extend", "insert"})


@dataclass(frozen=True)
class _Candidate:
    """A ``self.x = <plain container>`` assignment that may hold unregistered modules/parameters."""

    statement: cst.CSTNode  # the Assign / AnnAssign reported
    value: cst.BaseExpression
    attribute: str
    container: str  # "list" or "dict"
    empty: bool
    names: frozenset[str]  # local names the container holds (ignored if registered elsewhere)
    function: cst.FunctionDef
    replacement: cst.BaseExpression | None


@dataclass(frozen=True)
class _Fill:
    """``self.x.append(v)`` / ``self.x[k] = v`` on an attribute."""

    container: str
    is_element: bool
    names: frozenset[str]
    string_key: bool
    function: cst.FunctionDef
    concatenated: bool = False  # `self.x = self.x + [...]`: the fix needs a list class with `+`
    nested: bool = False  # adds containers (`self.x.append([conv, act])`): no nn container holds them


@dataclass
class _ContainerState:
    candidates: list[_Candidate] = field(default_factory=list)
    fills: dict[str, list[_Fill]] = field(default_factory=dict)
    other_assigned: set[str] = field(default_factory=set)  # also bound to something else
    passed: set[str] = field(default_factory=set)  # handed to a call that may register them
    registered: dict[cst.FunctionDef, set[str]] = field(default_factory=dict)
    # per attribute: an element counted only if a class of another file is a module
    conditions: dict[str, Condition] = field(default_factory=dict)


@dataclass(frozen=True)
class _Contents:
    container: str
    empty: bool
    all_elements: bool
    names: frozenset[str]
    string_keys: bool
    # at least one element is one (`[nn.Linear(..), getattr(nn, act)()]`): it goes unregistered,
    # though only a container of nothing else can become an `nn` container
    some_elements: bool = False


class PlainContainerRule(ModuleClassRule):
    """TCK601/TCK602: ``self.x = [...]`` in a module holding things only ``nn`` containers register.

    Subclasses name the containers and say which calls build an element. Decisions wait
    for the end of the class: a list later wrapped (``nn.Sequential(*self.x)``), reassigned
    (``self.x = nn.ModuleList(self.x)``) or holding names registered elsewhere
    (``self.add_module(name, layer)``) is correct code.
    """

    follows_project_bases = True
    list_class: str
    dict_class: str
    list_class_concatenates: bool  # whether `list_class(...) + [...]` works (ModuleList yes, ParameterList no)

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._states: list[_ContainerState | None] = []
        self._registering_helpers: dict[cst.ClassDef, frozenset[str]] = {}
        self._pending_condition: Condition | None = None  # of the statement being read

    def is_element_call(self, call: cst.Call) -> bool:
        raise NotImplementedError

    def element_condition(self, call: cst.Call) -> Condition | None:
        """The condition under which ``call`` builds an element after all (an instance of a
        class of another file); None when nothing would make it one."""
        return None

    def message_for(self, container: str) -> str:
        raise NotImplementedError

    # ----------------------------------------------------------------- classification
    def _element(self, expression: cst.BaseExpression) -> tuple[bool, frozenset[str]]:
        if isinstance(expression, cst.Call):
            if self.is_element_call(expression):
                return True, frozenset()
            condition = self.element_condition(expression)
            if condition is not None:
                self._pending_condition = condition
            return condition is not None, frozenset()
        if isinstance(expression, (cst.List, cst.Tuple, cst.Dict)):
            contents = self._contents(expression)  # a nested container: `[[nn.Linear(..), act()]]`
            return (contents.some_elements, contents.names) if contents is not None else (False, frozenset())
        if isinstance(expression, cst.Name) and self._holds_element(expression.value):
            return True, frozenset({expression.value})
        return False, frozenset()

    def _holds_element(self, name: str) -> bool:
        """The local ``name`` was last assigned a call that builds an element."""
        binding = self.context.flow.last_binding(name)
        return binding is not None and isinstance(binding.value, cst.Call) and self.is_element_call(binding.value)

    def _built_element(self, expression: cst.BaseExpression) -> bool:
        """A comprehension's element: a construction or a container of them (a name there is
        the loop variable, not a local we know)."""
        return isinstance(expression, (cst.Call, cst.List, cst.Tuple, cst.Dict)) and self._element(expression)[0]

    def _sequence(self, elements: list[cst.BaseExpression]) -> tuple[bool, bool, frozenset[str]]:
        """Whether every element is one, whether some element is, and the names used."""
        verdicts = [self._element(element) for element in elements]
        every = all(ok for ok, _ in verdicts)
        names = frozenset().union(*(used for _, used in verdicts)) if every else frozenset()
        return every, any(ok for ok, _ in verdicts), names

    def _contents(self, value: cst.BaseExpression) -> _Contents | None:
        """What a plain container literal holds, or None when ``value`` is not one."""
        if type(value) in (cst.List, cst.Tuple, cst.Dict):
            container, elements = "dict" if type(value) is cst.Dict else "list", value.elements  # type: ignore[attr-defined]
            if any(isinstance(element, (cst.StarredElement, cst.StarredDictElement)) for element in elements):
                return _Contents(container, False, False, frozenset(), False)
            every, some, names = self._sequence([element.value for element in elements])
            string_keys = container == "dict" and all(is_string_key(element.key, self) for element in elements)
            empty = not elements and type(value) is not cst.Tuple
            return _Contents(container, empty, every and bool(elements), names, string_keys, some)
        if isinstance(value, cst.ListComp):
            built = self._built_element(value.elt)
            return _Contents("list", False, built, frozenset(), False, built)
        if isinstance(value, cst.DictComp):
            is_element = self._built_element(value.value)
            return _Contents("dict", False, is_element, frozenset(), is_string_key(value.key, self), is_element)
        if isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Name) and value.func.value in ("list", "dict"):
            return _Contents(value.func.value, True, False, frozenset(), False) if self.context.qualified_name(value.func) is None else None
        return None

    # ----------------------------------------------------------------- walk
    @property
    def _state(self) -> _ContainerState | None:
        return self._states[-1] if self._states else None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        self._states.append(_ContainerState() if self.in_torch_module else None)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        state = self._states.pop()
        if state is not None:
            self._resolve(state)
        super().leave_ClassDef(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        state, self_name = self._state, self.self_name
        attribute = self_attribute(node.target, self_name)
        if state is None or attribute is None or self.method is None:
            return
        if isinstance(node.operator, cst.AddAssign) and self._appended(state, attribute, node.value, concatenated=False):
            return
        state.other_assigned.add(attribute)

    def _appended(self, state: _ContainerState, attribute: str, items: cst.BaseExpression, *, concatenated: bool) -> bool:
        """Record ``self.x += items`` / ``self.x = self.x + items`` as filling the list ``x``;
        False when ``items`` is not a list literal or comprehension."""
        contents = self._contents(items)
        if contents is None or contents.container != "list" or isinstance(items, cst.Call):
            return False
        function, nested = self.context.flow.function, _holds_containers(items)
        fill = _Fill("list", contents.all_elements, contents.names, False, function, concatenated, nested)
        self._fill(state, attribute, fill)
        return True

    def assigned(self, statement: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        state, self_name = self._state, self.self_name
        if state is None or self_name is None or self.method is None or value is None:
            return
        attribute = self_attribute(target, self_name)
        if attribute is not None:
            self._attribute_assigned(state, statement, attribute, value)
        elif isinstance(target, cst.Subscript):
            attribute = self_attribute(target.value, self_name)
            if attribute is not None and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
                is_element, names = self._element(value)
                key = target.slice[0].slice.value
                fill = _Fill("dict", is_element, names, is_string_key(key, self), self.context.flow.function, nested=_is_container(value))
                self._fill(state, attribute, fill)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                attribute = self_attribute(element.value, self_name)
                if attribute is not None:
                    state.other_assigned.add(attribute)

    def _attribute_assigned(self, state: _ContainerState, statement: cst.CSTNode, attribute: str, value: cst.BaseExpression) -> None:
        if isinstance(value, cst.BinaryOperation) and self._concatenated(value, attribute):
            if self._appended(state, attribute, value.right, concatenated=True):
                return
        contents = self._contents(value)
        if contents is None:
            if not (isinstance(value, cst.Name) and value.value == "None"):
                state.other_assigned.add(attribute)
            return
        if not contents.empty and not contents.some_elements:
            return  # a plain container of something else: nothing to say
        self._keep_condition(state, attribute)
        replacement = None
        fixable = contents.empty or contents.all_elements
        if fixable and (contents.container == "list" or contents.string_keys or contents.empty) and not _holds_containers(value):
            replacement = self._wrapped(value, contents)
        state.candidates.append(
            _Candidate(
                statement=statement,
                value=value,
                attribute=attribute,
                container=contents.container,
                empty=contents.empty,
                names=contents.names,
                function=self.context.flow.function,
                replacement=replacement,
            )
        )

    def _concatenated(self, value: cst.BinaryOperation, attribute: str) -> bool:
        """``self.x + [...]`` assigned back to ``self.x``."""
        return isinstance(value.operator, cst.Add) and self_attribute(value.left, self.self_name) == attribute

    def _wrapped(self, value: cst.BaseExpression, contents: _Contents) -> cst.BaseExpression | None:
        container_class = self.list_class if contents.container == "list" else self.dict_class
        func = nn_class_expression(self, container_class)
        if func is None:
            return None
        if contents.empty:
            return cst.Call(func=func)
        if isinstance(value, cst.Tuple) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.Call(func=func, args=[cst.Arg(value=value)])

    def visit_Call(self, node: cst.Call) -> None:
        state, self_name = self._state, self.self_name
        if state is None or self_name is None or self.method is None:
            return
        function = self.context.flow.function
        func = node.func
        if isinstance(func, cst.Attribute):
            attribute = self_attribute(func.value, self_name)
            if attribute is not None and func.attr.value in _LIST_FILLS:
                self._list_filled(state, attribute, func.attr.value, node, function)
                return
            if isinstance(func.value, cst.Name) and func.value.value == self_name and self._registers(state, func.attr.value):
                self._registered(state, node.args, function)
        elif isinstance(func, cst.Name) and func.value == "setattr" and self.context.qualified_name(func) is None:
            self._registered(state, node.args, function)
        elif isinstance(func, cst.Name) and func.value in _READING_BUILTINS and self.context.qualified_name(func) is None:
            return
        for argument in node.args:
            attribute = self_attribute(argument.value, self_name)
            if attribute is not None:
                state.passed.add(attribute)

    def _registers(self, state: _ContainerState, method: str) -> bool:
        """``self.add_module(...)`` and the like, or a method of this class that calls one
        (``self._add_to_parameters(m.parameters(), name)``), asked once the class holds a
        plain container."""
        if method in REGISTERING_METHODS:
            return True
        frame = self.class_frame
        if frame is None or not (state.candidates or state.fills):
            return False
        helpers = self._registering_helpers.get(frame.node)
        if helpers is None:
            helpers = self._registering_helpers[frame.node] = _registering_methods(frame.node)
        return method in helpers

    def _registered(self, state: _ContainerState, arguments: Sequence[cst.Arg], function: cst.FunctionDef) -> None:
        names = state.registered.setdefault(function, set())
        for argument in arguments:
            value = argument.value
            method = method_call(value) if isinstance(value, cst.Call) else None
            if method is not None and method[1] in _CONTENT_METHODS and isinstance(method[0], cst.Name):
                argument = argument.with_changes(value=method[0])  # `m.parameters()`: m's contents
            if isinstance(argument.value, cst.Name):
                names.add(argument.value.value)
                attribute = self._iterated_attribute(argument.value.value)
                if attribute is not None:
                    state.passed.add(attribute)  # each item registered by name in a loop
            elif isinstance(argument.value, cst.Subscript):
                attribute = self_attribute(argument.value.value, self.self_name)
                if attribute is not None:
                    state.passed.add(attribute)  # `self.add_module(name, self.heads[-1])`

    def _iterated_attribute(self, name: str) -> str | None:
        """``layers`` when ``name`` is the target of an enclosing ``for ... in
        enumerate(self.layers):`` (or ``in self.layers``)."""
        binding = self.context.flow.last_binding(name)
        loop = binding.node if binding is not None else None
        if not isinstance(loop, cst.For) or loop not in self.context.loops:
            return None
        iterable = loop.iter
        candidates = [iterable, *(argument.value for argument in iterable.args)] if isinstance(iterable, cst.Call) else [iterable]
        for candidate in candidates:
            attribute = self_attribute(candidate, self.self_name)
            if attribute is not None:
                return attribute
        return None

    def _list_filled(self, state: _ContainerState, attribute: str, method: str, call: cst.Call, function: cst.FunctionDef) -> None:
        positional = [argument.value for argument in call.args if argument.keyword is None and not argument.star]
        is_element, names, nested = False, frozenset[str](), False
        if (method, len(positional)) in (("append", 1), ("insert", 2)):  # the item is the last argument
            (is_element, names), nested = self._element(positional[-1]), _is_container(positional[-1])
        elif (method, len(positional)) == ("extend", 1):
            items, nested = positional[0], _holds_containers(positional[0])
            contents = self._contents(items)
            if isinstance(items, cst.GeneratorExp):
                is_element = self._built_element(items.elt)
            elif contents is not None and contents.container == "list":
                is_element, names = contents.all_elements, contents.names
        self._fill(state, attribute, _Fill("list", is_element, names, False, function, nested=nested))

    def _fill(self, state: _ContainerState, attribute: str, fill: _Fill) -> None:
        state.fills.setdefault(attribute, []).append(fill)
        self._keep_condition(state, attribute)

    def _keep_condition(self, state: _ContainerState, attribute: str) -> None:
        if self._pending_condition is not None:
            state.conditions.setdefault(attribute, self._pending_condition)
            self._pending_condition = None

    # ----------------------------------------------------------------- decision
    def _resolve(self, state: _ContainerState) -> None:
        registered = lambda function: state.registered.get(function, set())
        for candidate in state.candidates:
            attribute, replacement, fills = candidate.attribute, candidate.replacement, state.fills.get(candidate.attribute, [])
            if attribute in state.other_assigned or attribute in state.passed or candidate.names & registered(candidate.function):
                continue
            if candidate.empty:  # judged by what fills it
                if not fills or any(
                    fill.container != candidate.container or not fill.is_element or fill.names & registered(fill.function) for fill in fills
                ):
                    continue
                unfixable = any(fill.nested or (fill.concatenated and not self.list_class_concatenates) for fill in fills)
                if unfixable or (candidate.container == "dict" and not all(fill.string_key for fill in fills)):
                    replacement = None
            condition = state.conditions.get(attribute)
            self.report(
                candidate.statement,
                self.message_for(candidate.container),
                replacement=replacement,
                replace_target=candidate.value if replacement is not None else None,
                conditions=(condition,) if condition is not None else (),
            )


# What a module hands on of itself: its parameters, buffers and submodules.
_CONTENT_METHODS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "modules", "children", "named_children"})


def _registering_methods(class_def: cst.ClassDef) -> frozenset[str]:
    """Methods of ``class_def`` that register what they are given on ``self``."""
    found = set()
    for name, method in methods_of(class_def).items():
        instance = method.params.params[0].name.value if method.params.params else None
        calls = (method_call(node) for node in subtree(method.body) if isinstance(node, cst.Call))
        if any(called and called[1] in REGISTERING_METHODS and isinstance(called[0], cst.Name) and called[0].value == instance
               for called in calls):
            found.add(name)
    return frozenset(found)


def _is_container(value: cst.BaseExpression) -> bool:
    return isinstance(value, (cst.List, cst.Tuple, cst.Dict))


def _holds_containers(value: cst.BaseExpression) -> bool:
    """A container whose elements are containers: ``nn.ModuleList`` cannot hold a plain list,
    so wrapping only the outer one would fail at construction."""
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        return _is_container(value.elt)
    if isinstance(value, cst.DictComp):
        return _is_container(value.value)
    if _is_container(value):
        items = [element.value for element in value.elements if isinstance(element, (cst.Element, cst.DictElement))]
        return any(_is_container(item) for item in items)
    return False


# Losses whose first parameter is a per-class `weight` tensor.
_WEIGHT_FIRST_LOSSES = frozenset({"CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "MultiLabelSoftMarginLoss"})


def constructs_module(rule: Rule, call: cst.Call) -> bool:
    """``nn.Linear(...)``, ``Block(...)`` (a module class of this file), ``nn.Conv2d(...).to(d)``.

    Loss modules count only when they hold state: a list of plain loss functions is a common,
    harmless pattern, but ``nn.CrossEntropyLoss(weight=w)`` keeps ``w`` as a buffer that
    ``.to()`` must move and ``state_dict()`` saves.
    """
    qualified = rule.context.call_name(call)
    if qualified is not None:
        if not torch_api.is_module_class_name(qualified):
            return False
        return not qualified.endswith("Loss") or _loss_holds_weights(call, qualified.rsplit(".", 1)[-1])
    func = call.func
    if isinstance(func, cst.Name):
        return rule.context.kind_of(call) is Kind.MODULE
    if isinstance(func, cst.Attribute) and func.attr.value in torch_api.MODULE_SELF_METHODS and isinstance(func.value, cst.Call):
        return constructs_module(rule, func.value)
    return False


def _loss_holds_weights(call: cst.Call, loss: str) -> bool:
    for argument in call.args:
        if argument.keyword is not None and argument.keyword.value in ("weight", "pos_weight"):
            return not is_none(argument.value)
    first = call.args[0] if call.args else None
    return first is not None and first.keyword is None and not first.star and loss in _WEIGHT_FIRST_LOSSES and not is_none(first.value)
