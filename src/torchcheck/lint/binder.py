"""The binder: parents, scopes, bindings and references of one file, for questions asked
after the walk.

The walk-time context (:mod:`torchcheck.lint.context`) answers about the current point
only. A rule that decides at the end of a function, a class or the module asks the binder
instead: what encloses a node, which bindings a name has in its scope, which of them come
before a use, and every reference to a binding - as ruff's ``SemanticModel`` and pyright's
binder answer them. The binder is built once per file, on the first question (most files
never need it), by one pass over the tree.

Python's scoping rules decide where a name lives: a name bound anywhere in a function is
local to all of it (unless declared ``global``/``nonlocal``); a class body's names are not
visible from its methods; a comprehension has its own scope, except for its first iterable.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint.nodes import node_types, subtree
from torchcheck.lint.walker import children

ScopeNode = cst.Module | cst.ClassDef | cst.FunctionDef | cst.Lambda | cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp
_SCOPE_TYPES = (cst.Module, cst.ClassDef, cst.FunctionDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
Loop = cst.For | cst.While
_SCOPE_NODE_TYPES = node_types(*_SCOPE_TYPES)
_LOOP_TYPES = node_types(cst.For, cst.While)
_STATEMENT_TYPES = node_types(cst.BaseSmallStatement, cst.BaseCompoundStatement)
_LINE_TYPES = node_types(cst.SimpleStatementLine, cst.BaseCompoundStatement)
_LEAVING = frozenset({cst.Break, cst.Continue, cst.Return, cst.Raise})


@dataclass(eq=False)
class Binding:
    """One binding of ``name`` in ``scope``: ``node`` is what made it (the assignment, the
    loop, the parameter, the ``with`` item, the import alias, the ``def`` or ``class``);
    ``target`` is the bound ``Name`` where there is one. (A binding refers to its scope
    weakly: the binder holds no reference cycle, so a file's tree is freed as soon as the
    walk is done with it.)"""

    name: str
    scope_ref: weakref.ReferenceType[Scope]
    node: cst.CSTNode
    target: cst.CSTNode
    order: int  # position in the file's pre-order walk
    references: list[cst.Name] = field(default_factory=list)

    @property
    def scope(self) -> Scope:
        scope = self.scope_ref()
        assert scope is not None, "a binding outlived its binder"
        return scope


@dataclass(eq=False)
class Scope:
    node: ScopeNode
    parent: Scope | None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)

    @property
    def is_class(self) -> bool:
        return isinstance(self.node, cst.ClassDef)


class Binder:
    """Parents, scopes, bindings and references of one module (see the module docstring)."""

    def __init__(self, module: cst.Module) -> None:
        # keyed by the node's id (see _visit)
        self._parents: dict[int, cst.CSTNode] = {}
        self._order: dict[int, int] = {}
        self._scope_of_node: dict[int, Scope] = {}
        self._scopes: dict[int, Scope] = {}
        self._binding_of_target: dict[int, Binding] = {}
        self._uses: list[tuple[cst.Name, Scope]] = []
        self._loops_around: dict[int, tuple[Loop, ...]] = {}
        self._reaching: dict[int, list[Binding]] = {}
        self.module_scope = self._open_scope(module, None)
        self._visit(module, self.module_scope)
        self._resolve_uses()

    # ------------------------------------------------------------------ structure
    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(id(node))

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """The nodes around ``node``, innermost first."""
        parents = self._parents
        current = parents.get(id(node))
        while current is not None:
            yield current
            current = parents.get(id(current))

    def enclosing(self, node: cst.CSTNode, *types: type[cst.CSTNode]) -> cst.CSTNode | None:
        """The innermost node of one of ``types`` around ``node``."""
        return next((ancestor for ancestor in self.ancestors(node) if isinstance(ancestor, types)), None)

    def statement_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The innermost statement holding ``node`` (a small statement such as an ``Assign``,
        or a compound one such as an ``If`` for a node in its test)."""
        if type(node) in _STATEMENT_TYPES:
            return node
        return next((ancestor for ancestor in self.ancestors(node) if type(ancestor) in _STATEMENT_TYPES), None)

    def loops_around(self, node: cst.CSTNode) -> tuple[Loop, ...]:
        """The loops whose body holds ``node`` in its function (outermost first); a loop's
        own iterable and target are not in its body."""
        found = self._loops_around.get(id(node))
        if found is None:
            loops: list[Loop] = []
            child = node
            for ancestor in self.ancestors(node):
                ancestor_type = type(ancestor)
                if ancestor_type in _SCOPE_NODE_TYPES:
                    break
                if ancestor_type in _LOOP_TYPES and (child is ancestor.body or child is ancestor.orelse):  # type: ignore[attr-defined]
                    loops.append(ancestor)  # type: ignore[arg-type]
                child = ancestor
            found = self._loops_around[id(node)] = tuple(reversed(loops))
        return found

    def precedes(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        """Whether ``first`` starts before ``second`` in the file (False for a node the
        binder does not order: an attribute's or a keyword's name)."""
        first_position, second_position = self._order.get(id(first)), self._order.get(id(second))
        if first_position is None or second_position is None:
            return False
        return first_position < second_position

    # ------------------------------------------------------------------ names
    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The scope whose code holds ``node`` (a ``def``'s name is in the enclosing scope)."""
        scopes = self._scope_of_node
        scope = scopes.get(id(node))
        if scope is not None:
            return scope
        return next((scopes[id(ancestor)] for ancestor in self.ancestors(node) if id(ancestor) in scopes), self.module_scope)

    def scope_defined_by(self, node: ScopeNode) -> Scope | None:
        return self._scopes.get(id(node))

    def binding_made_by(self, target: cst.CSTNode) -> Binding | None:
        """The binding a target ``Name`` (or a parameter, or an import alias) makes."""
        return self._binding_of_target.get(id(target))

    def bindings_of(self, name: str, scope: Scope) -> list[Binding]:
        """Every binding of ``name`` in the scope where ``scope``'s code looks it up."""
        home = self._home_of(name, scope)
        return home.bindings.get(name, []) if home is not None else []

    def bindings_before(self, use: cst.Name) -> list[Binding]:
        """The bindings of a used name that may reach the use: those of its scope made
        before it, and in a loop around it also those made later in that loop's body."""
        if id(use) not in self._order:
            return []  # not a variable: an attribute's or a keyword's name
        bindings = self.bindings_of(use.value, self.scope_of(use))
        loops = self.loops_around(use)
        outermost = loops[0] if loops else None
        position = self._read_at(use)

        def may_reach(binding: Binding) -> bool:
            if isinstance(binding.scope.node, _COMPREHENSIONS):
                return True  # `[x * x for x in xs]`: the target is bound before each element runs
            if self._made_at(binding) <= position:
                return True
            return outermost is not None and any(ancestor is outermost for ancestor in self.ancestors(binding.node))

        return [binding for binding in bindings if may_reach(binding)]

    def reaching(self, use: cst.Name) -> list[Binding]:
        """The bindings that may hold at the use: :meth:`bindings_before`, less those that a
        later binding replaces on every path to it (one in a block around the use, made
        before it). ``x = a`` then ``x = b`` then ``f(x)``: only ``x = b``."""
        found = self._reaching.get(id(use))
        if found is None:
            found = self._reaching[id(use)] = self._reaching_bindings(use)
        return found

    def _reaching_bindings(self, use: cst.Name) -> list[Binding]:
        bindings = self.bindings_before(use)
        if len(bindings) < 2:
            return bindings
        position = self._read_at(use)
        bindings = [binding for binding in bindings if not self._replaced_in_its_block(binding, bindings, position)]
        blocks = {id(ancestor) for ancestor in self.ancestors(use)}
        sure = [
            binding
            for binding in bindings
            if self._made_at(binding) <= position and id(self.parent(self._line_of(binding.node))) in blocks
        ]
        if not sure:
            return bindings
        last = max(sure, key=self._made_at)
        start = self._made_at(last)
        return [
            binding
            for binding in bindings
            if start <= self._made_at(binding) <= position or self._made_at(binding) > position and self._carried_past(binding, last, use)
        ]

    def _replaced_in_its_block(self, binding: Binding, others: list[Binding], position: int) -> bool:
        """A later statement of the binding's own block binds the name again, nothing between
        them leaves the block, and the use is not between them: every path from the binding
        passes the other one (``x = f()`` then ``x = torch.tensor(x)`` on one branch of an
        ``if``; a use after the ``if`` sees only the second)."""
        line = self._line_of(binding.node)
        block = self.parent(line) if line is not None else None
        if type(block) is not cst.IndentedBlock or type(self.parent(block)) is cst.Try:
            return False  # an exception in a `try` body may leave before the second binding
        statements = list(block.body)  # type: ignore[attr-defined]
        made, start = self._made_at(binding), statements.index(line) + 1
        for other in others:
            other_line = self._line_of(other.node)
            if other_line is line or self.parent(other_line) is not block or self._made_at(other) <= made or made < position <= self._made_at(other):
                continue
            between = statements[start : statements.index(other_line)]
            if not any(type(node) in _LEAVING for statement in between for node in subtree(statement)):
                return True
        return False

    def _read_at(self, use: cst.Name) -> int:
        """Where the use reads its name in the walk's order: an assignment's own target is
        reached by its binding (equal places), an augmented one's (``x += 1``) reads the ``x``
        bound before it."""
        parent = self.parent(use)
        return self._order[id(use)] - (type(parent) is cst.AugAssign and parent.target is use)  # type: ignore[union-attr]

    def _made_at(self, binding: Binding) -> int:
        """Where the binding takes effect in the walk's order: an assignment's after its value
        (``x = f(x)`` reads the ``x`` bound before), anything else where it stands."""
        node = binding.node
        return self._order[id(binding.target)] if type(node) in _ASSIGNMENTS else self._order[id(node)]

    def _carried_past(self, later: Binding, sure: Binding, use: cst.Name) -> bool:
        """Whether a binding made after the use reaches it around a loop that ``sure`` (made
        before the use on every path) is not in: the loop's next iteration skips ``sure``."""
        return any(
            self._holds(loop, later.node) and not self._holds(loop, sure.node) for loop in self.loops_around(use)
        )

    def _holds(self, ancestor: cst.CSTNode, node: cst.CSTNode) -> bool:
        return any(above is ancestor for above in self.ancestors(node))

    def _line_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The statement line (or compound statement) of a block that holds ``node``."""
        if type(node) in _LINE_TYPES:
            return node
        return next((ancestor for ancestor in self.ancestors(node) if type(ancestor) in _LINE_TYPES), None)

    def references_to(self, binding: Binding) -> list[cst.Name]:
        return binding.references

    # ------------------------------------------------------------------ building
    def _open_scope(self, node: ScopeNode, parent: Scope | None) -> Scope:
        scope = self._scopes[id(node)] = Scope(node, parent)
        return scope

    def _bind(self, name: str, scope: Scope, node: cst.CSTNode, target: cst.CSTNode) -> None:
        binding = Binding(name, weakref.ref(scope), node, target, self._order.get(id(node), len(self._order)))
        scope.bindings.setdefault(name, []).append(binding)
        self._binding_of_target[id(target)] = binding

    def _visit(self, node: cst.CSTNode, scope: Scope, parent: cst.CSTNode | None = None) -> None:
        """Pre-order, iteratively: deep expression chains must not exhaust the stack. (Nodes
        are keyed by ``id``: the tree keeps them alive, and a node's hash is a Python call.)"""
        parents, order, scope_of_node = self._parents, self._order, self._scope_of_node
        uses, binding_of_target = self._uses, self._binding_of_target
        stack: list[tuple[cst.CSTNode, Scope, cst.CSTNode | None]] = [(node, scope, parent)]
        pop, push = stack.pop, stack.append
        while stack:
            current, current_scope, current_parent = pop()
            key = id(current)
            if current_parent is not None:
                parents[key] = current_parent
            order[key] = len(order)
            scope_of_node[key] = current_scope
            node_type = type(current)
            if node_type is cst.Name:  # a use, unless a binding made it its target; no children
                if key not in binding_of_target:
                    uses.append((current, current_scope))  # type: ignore[arg-type]
                continue
            enter = _ENTER_BY_TYPE.get(node_type)
            inner = enter(self, current, current_scope) if enter is not None else None
            if inner is None:
                for child in reversed(_children_in_scope(current, node_type)):
                    push((child, current_scope, current))
            else:
                for child, child_scope in reversed(self._children_with_scopes(current, current_scope, inner)):
                    push((child, child_scope, current))

    def _enter_definition(self, node: cst.FunctionDef | cst.ClassDef, scope: Scope) -> Scope:
        self._bind(node.name.value, scope, node, node.name)
        return self._open_scope(node, scope)

    def _enter_param(self, node: cst.Param, scope: Scope) -> None:
        self._bind(node.name.value, scope, node, node.name)

    def _enter_assignment(self, node: cst.Assign | cst.AnnAssign | cst.AugAssign, scope: Scope) -> None:
        targets = [t.target for t in node.targets] if type(node) is cst.Assign else [node.target]  # type: ignore[union-attr]
        for target in targets:
            self._bind_target(target, scope, node)

    def _enter_loop(self, node: cst.For | cst.CompFor, scope: Scope) -> None:
        self._bind_target(node.target, scope, node)

    def _enter_with_item(self, node: cst.WithItem, scope: Scope) -> None:
        if node.asname is not None:
            self._bind_target(node.asname.name, scope, node)

    def _enter_handler(self, node: cst.ExceptHandler, scope: Scope) -> None:
        if node.name is not None:
            self._bind_target(node.name.name, scope, node)

    def _enter_walrus(self, node: cst.NamedExpr, scope: Scope) -> None:
        self._bind_target(node.target, self._walrus_scope(scope), node)

    def _enter_global(self, node: cst.Global, scope: Scope) -> None:
        scope.declared_global.update(item.name.value for item in node.names)

    def _enter_nonlocal(self, node: cst.Nonlocal, scope: Scope) -> None:
        scope.declared_nonlocal.update(item.name.value for item in node.names)

    def _children_with_scopes(self, node: cst.CSTNode, scope: Scope, inner: Scope) -> list[tuple[cst.CSTNode, Scope]]:
        """Children of a node that opens ``inner``, each with the scope its code runs in: a
        ``def``'s decorators, defaults and annotations run outside it, a comprehension's
        first iterable outside it."""
        node_type = type(node)
        found = _children_in_scope(node, node_type)
        outside: set[int] = set()
        if node_type is cst.FunctionDef:
            outside = {id(d) for d in node.decorators} | {id(node.returns)} | {id(node.name)}  # type: ignore[attr-defined]
            outside |= {id(p.default) for p in _all_params(node.params) if p.default is not None}  # type: ignore[attr-defined]
            outside |= {id(p.annotation) for p in _all_params(node.params) if p.annotation is not None}  # type: ignore[attr-defined]
        elif node_type is cst.ClassDef:
            outside = {id(d) for d in node.decorators} | {id(b) for b in (*node.bases, *node.keywords)} | {id(node.name)}  # type: ignore[attr-defined]
        elif isinstance(node, _COMPREHENSIONS):
            outside = {id(node.for_in.iter)}
        return [(child, scope if id(child) in outside else inner) for child in found]

    def _bind_target(self, target: cst.CSTNode, scope: Scope, node: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self._bind(target.value, scope, node, target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value, scope, node)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, scope, node)

    def _bind_imports(self, node: cst.Import | cst.ImportFrom, scope: Scope) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind(alias.asname.name.value, scope, node, alias)
            elif isinstance(node, cst.Import):
                root = alias.name
                while isinstance(root, cst.Attribute):
                    root = root.value
                if isinstance(root, cst.Name):
                    self._bind(root.value, scope, node, alias)
            elif isinstance(alias.name, cst.Name):
                self._bind(alias.name.value, scope, node, alias)

    @staticmethod
    def _walrus_scope(scope: Scope) -> Scope:
        """``(x := ...)`` in a comprehension binds ``x`` in the enclosing function."""
        while isinstance(scope.node, _COMPREHENSIONS) and scope.parent is not None:
            scope = scope.parent
        return scope

    def _home_of(self, name: str, scope: Scope) -> Scope | None:
        """The scope whose binding of ``name`` code in ``scope`` reads."""
        if name in scope.declared_global:
            return self.module_scope
        current: Scope | None = scope
        first = True
        while current is not None:
            if name in current.bindings and (first or not current.is_class) and name not in current.declared_nonlocal:
                return current
            first = False
            current = current.parent
        return None

    def _resolve_uses(self) -> None:
        for use, scope in self._uses:
            for binding in self.bindings_of(use.value, scope):
                binding.references.append(use)


def _children_in_scope(node: cst.CSTNode, node_type: type[cst.CSTNode]) -> list[cst.CSTNode]:
    """The children whose names are variables of the node's scope: not an import's module
    paths and imported names, an attribute's name or a keyword argument's keyword."""
    if node_type is cst.Import or node_type is cst.ImportFrom:
        return []
    found = children(node)
    if node_type in _ASSIGNMENTS and node.value is not None:  # type: ignore[attr-defined]
        return [node.value, *(child for child in found if child is not node.value)]  # type: ignore[attr-defined]  # the value runs first
    if node_type is cst.Attribute:
        return [child for child in found if child is not node.attr]  # type: ignore[attr-defined]
    if node_type is cst.Arg:
        return [child for child in found if child is not node.keyword]  # type: ignore[attr-defined]
    return found


_ASSIGNMENTS = (cst.Assign, cst.AnnAssign, cst.AugAssign)


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            found.append(star)
    return found


_ENTER_BY_TYPE = {
    cst.FunctionDef: Binder._enter_definition,
    cst.ClassDef: Binder._enter_definition,
    **dict.fromkeys((cst.Lambda, *_COMPREHENSIONS), Binder._open_scope),  # a lambda or comprehension opens a scope, binding nothing
    cst.Param: Binder._enter_param,
    **dict.fromkeys((cst.Assign, cst.AnnAssign, cst.AugAssign), Binder._enter_assignment),
    **dict.fromkeys((cst.For, cst.CompFor), Binder._enter_loop),
    cst.WithItem: Binder._enter_with_item,
    cst.ExceptHandler: Binder._enter_handler,
    cst.NamedExpr: Binder._enter_walrus,
    cst.Import: Binder._bind_imports,
    cst.ImportFrom: Binder._bind_imports,
    cst.Global: Binder._enter_global,
    cst.Nonlocal: Binder._enter_nonlocal,
}
