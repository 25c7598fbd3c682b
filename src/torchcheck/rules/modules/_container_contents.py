"""What a plain container expression (``[...]``, ``(...)``, ``{...}``, a comprehension, an
empty ``list()``/``dict()``) holds, for TCK601/TCK602: whether its elements are what the rule
looks for (modules, parameters), which locals it holds, and whether an ``nn`` container could
take its place (string keys, no nested containers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Evidence, Kind
from torchcheck.lint import references
from torchcheck.lint.containers import appended_items
from torchcheck.lint.nodes import dotted_name, root_name, self_attribute, unless_none
from torchcheck.lint.project import Condition
from torchcheck.lint.registration import builds_stateless_module


@dataclass(frozen=True)
class Contents:
    """What a plain container expression holds."""

    container: str
    empty: bool
    all_elements: bool
    names: frozenset[str]
    string_keys: bool
    # at least one element is one (`[nn.Linear(..), getattr(nn, act)()]`): it goes unregistered,
    # though only a container of nothing else can become an `nn` container
    some_elements: bool = False
    # some element holds state (parameters, buffers, a train/eval mode) that goes unregistered;
    # `[nn.AvgPool1d(k) for k in sizes]` loses nothing
    stateful: bool = True


class ContainerReader:
    """Reads container expressions for a rule that says which calls build an element, and
    under which condition a call of a class of another file does (kept in
    ``pending_condition`` until the rule takes it)."""

    def __init__(
        self, context: LintContext, is_element: Callable[[cst.Call], bool], condition_of: Callable[[cst.Call], Condition | None], kind: Kind | None
    ) -> None:
        self.context = context
        self._kind = kind
        self._is_element = is_element
        self._condition_of = condition_of
        self.pending_condition: Condition | None = None

    def element(self, expression: cst.BaseExpression) -> tuple[bool, frozenset[str]]:
        if isinstance(expression, cst.Call):
            if self._is_element(expression):
                return True, frozenset()
            condition = self._condition_of(expression)
            if condition is not None:
                self.pending_condition = condition
            return condition is not None, frozenset()
        if isinstance(expression, cst.IfExp):  # `nn.Linear(a, b) if a != b else nn.Identity()`: one branch is enough
            verdicts = [self.element(expression.body), self.element(expression.orelse)]
            return any(ok for ok, _ in verdicts), verdicts[0][1] | verdicts[1][1]
        if isinstance(expression, (cst.List, cst.Tuple, cst.Dict)):
            contents = self.contents(expression)  # a nested container: `[[nn.Linear(..), act()]]`
            return (contents.some_elements, contents.names) if contents is not None else (False, frozenset())
        if filled := self.filled_list(expression):  # `blocks = []`, filled with modules, appended whole
            verdicts = [self.element(item) for item in filled]
            return any(ok for ok, _ in verdicts), frozenset().union(*(used for _, used in verdicts))
        binding = self.context.flow.last_binding(expression.value) if isinstance(expression, cst.Name) else None
        if binding is not None and isinstance(binding.value, cst.Call) and self.element(binding.value)[0]:
            return True, frozenset({expression.value})  # a local last assigned an element (maybe of another file's class)
        return self._element_by_kind(expression) or self._rebound_in_its_loop(expression), frozenset()

    def filled_list(self, expression: cst.BaseExpression) -> list[cst.BaseExpression] | None:
        """What the local list a name holds was filled with (``blocks = []``, then
        ``blocks.append(ResBlock(...))``); None for anything else."""
        return appended_items(self.context.binder, expression) if type(expression) is cst.Name else None

    def _rebound_in_its_loop(self, expression: cst.BaseExpression) -> bool:
        """``self.conv`` assigned anew in the loop that appends it (``self.conv = build()``,
        ``self.convs.append(self.conv)``): the attribute registers only the last one."""
        attribute = self_attribute(expression)
        binder = self.context.binder
        loops = binder.loops_around(expression) if attribute is not None and self._kind is not None else ()
        owner = binder.enclosing(loops[-1], cst.ClassDef) if loops else None
        if owner is None or self.context.kind_of(expression) is not self._kind:
            return False
        assigned = references.self_attribute_assignments(binder, owner, attribute)  # type: ignore[arg-type]
        return any(loops[-1] in binder.ancestors(statement) for statement, _ in assigned)

    def _element_by_kind(self, expression: cst.BaseExpression) -> bool:
        """``layer`` drawn from a collection the module was handed, shown to be an element by
        ``isinstance(layer, nn.Module)`` or an annotation; not one drawn from the module itself
        (``for m in self.modules()``: registered already), nor a single module kept in a list
        on purpose (``self._teacher = [teacher]``, hidden from ``parameters()``)."""
        if self._kind is None or type(expression) is not cst.Name:
            return False
        loop = self.context.flow.last_binding(expression.value)
        iterated = loop.node.iter if loop is not None and type(loop.node) is cst.For else None  # type: ignore[attr-defined]
        while type(iterated) is cst.Call:  # `self.modules()`, `enumerate(layers)`
            iterated = iterated.args[0].value if type(iterated.func) is cst.Name and iterated.args else iterated.func  # type: ignore[attr-defined]
        if iterated is None or root_name(iterated) in (None, "self"):
            return False
        found = self.context.kind_and_evidence(expression)
        return found.kind is self._kind and found.evidence > Evidence.CONVENTION

    def stateful(self, expression: cst.BaseExpression, element: bool) -> bool:
        """Whether an element (``element``: the reader counts it one) holds state a plain
        container loses; a module that holds none (``nn.ReLU()``, a pooling block) does not."""
        if not element or self._kind is not Kind.MODULE:
            return element
        if isinstance(expression, cst.IfExp):
            return any(self.stateful(branch, self.element(branch)[0]) for branch in (expression.body, expression.orelse))
        if isinstance(expression, (cst.List, cst.Tuple, cst.Dict)):
            contents = self.contents(expression)
            return contents is None or contents.stateful
        return not (isinstance(expression, cst.Call) and builds_stateless_module(self.context, expression))

    def built_element(self, expression: cst.BaseExpression) -> bool:
        """A comprehension's element: a construction or a container of them (a name there is
        the loop variable, not a local we know)."""
        return isinstance(expression, (cst.Call, cst.List, cst.Tuple, cst.Dict, cst.IfExp)) and self.element(expression)[0]

    def passed_contents(self, value: cst.BaseExpression) -> Contents | None:
        """A parameter stored whole (``self.nets = nets``, also ``nets if nets is not None else
        []``): what a call of this file passes for it, or its default, when that is a plain
        container of stateful elements (one such call is enough: that instance loses them), or
        what its annotation says its items are (``nets: list[nn.Module]``)."""
        value = unless_none(value)
        param = self.context.parameter_named(value) if type(value) is cst.Name else None
        if param is None:
            return None
        if self._kind is not None and self.context.annotated_item_kind(param.annotation) is self._kind:
            return Contents("list", False, False, frozenset(), False, True, True)
        passed = [*self.context.values_passed_to(param), *([param.default] if param.default is not None else [])]
        return next((found for found in map(self.contents, passed) if found is not None and found.some_elements and found.stateful), None)

    def contents(self, value: cst.BaseExpression) -> Contents | None:
        """What a plain container literal holds (also one a local was bound to alone:
        ``tokens = [Tok.build(n) for n in sizes]``, then ``self.tokens = tokens``), or None
        when ``value`` is not one."""
        if type(value) is cst.Name:
            bound = references.reaching_values(self.context.binder, value)  # type: ignore[arg-type]
            literal = len(bound) == 1 and type(bound[0]) in (cst.ListComp, cst.DictComp) or (len(bound) == 1 and type(bound[0]) in (cst.List, cst.Dict) and bound[0].elements)  # type: ignore[attr-defined]
            return self.contents(bound[0]) if literal else None
        if type(value) in (cst.List, cst.Tuple, cst.Dict):
            container, elements = "dict" if type(value) is cst.Dict else "list", value.elements  # type: ignore[attr-defined]
            if any(isinstance(element, (cst.StarredElement, cst.StarredDictElement)) for element in elements):
                return Contents(container, False, False, frozenset(), False)
            verdicts = [self.element(element.value) for element in elements]
            every = all(ok for ok, _ in verdicts)
            names = frozenset().union(*(used for _, used in verdicts))  # `(stage, name)`: the module is `stage`
            string_keys = container == "dict" and all(is_string_key(element.key, self.context) for element in elements)
            empty = not elements and type(value) is not cst.Tuple
            stateful = any(self.stateful(element.value, ok) for element, (ok, _) in zip(elements, verdicts))
            return Contents(container, empty, every and bool(elements), names, string_keys, any(ok for ok, _ in verdicts), stateful)
        if isinstance(value, (cst.ListComp, cst.DictComp)):
            element = value.elt if isinstance(value, cst.ListComp) else value.value
            built = self.built_element(element)
            keys = isinstance(value, cst.DictComp) and is_string_key(value.key, self.context)
            return Contents("list" if isinstance(value, cst.ListComp) else "dict", False, built, frozenset(), keys, built, self.stateful(element, built))
        if isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Name) and value.func.value in ("list", "dict"):
            return Contents(value.func.value, True, False, frozenset(), False) if self.context.qualified_name(value.func) is None else None
        return None


def is_string_key(expression: cst.BaseExpression, context: LintContext) -> bool:
    """A key that is certainly a ``str``: a literal, an f-string, or ``str(...)``."""
    if isinstance(expression, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return not (isinstance(expression, cst.SimpleString) and "b" in expression.prefix.lower())
    return isinstance(expression, cst.Call) and dotted_name(expression.func) == "str" and context.qualified_name(expression.func) is None


def is_container(value: cst.BaseExpression) -> bool:
    return isinstance(value, (cst.List, cst.Tuple, cst.Dict))


def holds_containers(value: cst.BaseExpression) -> bool:
    """A container whose elements are containers: ``nn.ModuleList`` cannot hold a plain list,
    so wrapping only the outer one would fail at construction."""
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        return is_container(value.elt)
    if isinstance(value, cst.DictComp):
        return is_container(value.value)
    if is_container(value):
        items = [element.value for element in value.elements if isinstance(element, (cst.Element, cst.DictElement))]
        return any(is_container(item) for item in items)
    return False
