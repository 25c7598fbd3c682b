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

from torchcheck.lint.walker import children

ScopeNode = cst.Module | cst.ClassDef | cst.FunctionDef | cst.Lambda | cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp
_SCOPE_TYPES = (cst.Module, cst.ClassDef, cst.FunctionDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
Loop = cst.For | cst.While


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
        self._parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self._order: dict[cst.CSTNode, int] = {}
        self._scope_of_node: dict[cst.CSTNode, Scope] = {}
        self._scopes: dict[cst.CSTNode, Scope] = {}
        self._binding_of_target: dict[cst.CSTNode, Binding] = {}
        self._uses: list[tuple[cst.Name, Scope]] = []
        self.module_scope = self._open_scope(module, None)
        self._visit(module, self.module_scope)
        self._resolve_uses()

    # ------------------------------------------------------------------ structure
    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """The nodes around ``node``, innermost first."""
        current = self._parents.get(node)
        while current is not None:
            yield current
            current = self._parents.get(current)

    def enclosing(self, node: cst.CSTNode, *types: type[cst.CSTNode]) -> cst.CSTNode | None:
        """The innermost node of one of ``types`` around ``node``."""
        return next((ancestor for ancestor in self.ancestors(node) if isinstance(ancestor, types)), None)

    def statement_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The innermost statement holding ``node`` (a small statement such as an ``Assign``,
        or a compound one such as an ``If`` for a node in its test)."""
        for ancestor in (node, *self.ancestors(node)):
            if isinstance(ancestor, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                return ancestor
        return None

    def loops_around(self, node: cst.CSTNode) -> tuple[Loop, ...]:
        """The loops whose body holds ``node`` in its function (outermost first); a loop's
        own iterable and target are not in its body."""
        loops: list[Loop] = []
        child = node
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, _SCOPE_TYPES):
                break
            if isinstance(ancestor, (cst.For, cst.While)) and child in (ancestor.body, ancestor.orelse):
                loops.append(ancestor)
            child = ancestor
        return tuple(reversed(loops))

    def precedes(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        """Whether ``first`` starts before ``second`` in the file (False for a node the
        binder does not order: an attribute's or a keyword's name)."""
        if first not in self._order or second not in self._order:
            return False
        return self._order[first] < self._order[second]

    # ------------------------------------------------------------------ names
    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The scope whose code holds ``node`` (a ``def``'s name is in the enclosing scope)."""
        for ancestor in (node, *self.ancestors(node)):
            scope = self._scope_of_node.get(ancestor)
            if scope is not None:
                return scope
        return self.module_scope

    def scope_defined_by(self, node: ScopeNode) -> Scope | None:
        return self._scopes.get(node)

    def binding_made_by(self, target: cst.CSTNode) -> Binding | None:
        """The binding a target ``Name`` (or a parameter, or an import alias) makes."""
        return self._binding_of_target.get(target)

    def bindings_of(self, name: str, scope: Scope) -> list[Binding]:
        """Every binding of ``name`` in the scope where ``scope``'s code looks it up."""
        home = self._home_of(name, scope)
        return home.bindings.get(name, []) if home is not None else []

    def bindings_before(self, use: cst.Name) -> list[Binding]:
        """The bindings of a used name that may reach the use: those of its scope made
        before it, and in a loop around it also those made later in that loop's body."""
        if use not in self._order:
            return []  # not a variable: an attribute's or a keyword's name
        bindings = self.bindings_of(use.value, self.scope_of(use))
        loops = self.loops_around(use)
        outermost = loops[0] if loops else None

        def may_reach(binding: Binding) -> bool:
            if isinstance(binding.scope.node, _COMPREHENSIONS):
                return True  # `[x * x for x in xs]`: the target is bound before each element runs
            if self._order[binding.node] < self._order[use]:
                return True
            return outermost is not None and any(ancestor is outermost for ancestor in self.ancestors(binding.node))

        return [binding for binding in bindings if may_reach(binding)]

    def references_to(self, binding: Binding) -> list[cst.Name]:
        return binding.references

    # ------------------------------------------------------------------ building
    def _open_scope(self, node: ScopeNode, parent: Scope | None) -> Scope:
        scope = self._scopes[node] = Scope(node, parent)
        return scope

    def _bind(self, name: str, scope: Scope, node: cst.CSTNode, target: cst.CSTNode) -> None:
        binding = Binding(name, weakref.ref(scope), node, target, self._order.get(node, len(self._order)))
        scope.bindings.setdefault(name, []).append(binding)
        self._binding_of_target[target] = binding

    def _note(self, node: cst.CSTNode, parent: cst.CSTNode | None, scope: Scope) -> None:
        if parent is not None:
            self._parents[node] = parent
        self._order[node] = len(self._order)
        self._scope_of_node[node] = scope

    def _visit(self, node: cst.CSTNode, scope: Scope, parent: cst.CSTNode | None = None) -> None:
        """Pre-order, iteratively: deep expression chains must not exhaust the stack."""
        stack: list[tuple[cst.CSTNode, Scope, cst.CSTNode | None]] = [(node, scope, parent)]
        while stack:
            current, current_scope, current_parent = stack.pop()
            self._note(current, current_parent, current_scope)
            inner = self._enter(current, current_scope)
            for child, child_scope in reversed(self._children_with_scopes(current, current_scope, inner)):
                stack.append((child, child_scope, current))

    def _enter(self, node: cst.CSTNode, scope: Scope) -> Scope | None:
        """Record the bindings ``node`` makes; the scope it opens, if any."""
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self._bind(node.name.value, scope, node, node.name)
            return self._open_scope(node, scope)
        if isinstance(node, (cst.Lambda, *_COMPREHENSIONS)):
            return self._open_scope(node, scope)
        if isinstance(node, cst.Name):
            if node not in self._binding_of_target:
                self._uses.append((node, scope))
        elif isinstance(node, cst.Param):
            self._bind(node.name.value, scope, node, node.name)
        elif isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                self._bind_target(target, scope, node)
        elif isinstance(node, (cst.For, cst.CompFor)):
            self._bind_target(node.target, scope, node)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            self._bind_target(node.asname.name, scope, node)
        elif isinstance(node, cst.ExceptHandler) and node.name is not None:
            self._bind_target(node.name.name, scope, node)
        elif isinstance(node, cst.NamedExpr):
            self._bind_target(node.target, self._walrus_scope(scope), node)
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            self._bind_imports(node, scope)
        elif isinstance(node, cst.Global):
            scope.declared_global.update(item.name.value for item in node.names)
        elif isinstance(node, cst.Nonlocal):
            scope.declared_nonlocal.update(item.name.value for item in node.names)
        return None

    def _children_with_scopes(self, node: cst.CSTNode, scope: Scope, inner: Scope | None) -> list[tuple[cst.CSTNode, Scope]]:
        """Children, each with the scope its code runs in: a ``def``'s decorators, defaults
        and annotations run outside it, a comprehension's first iterable outside it."""
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            return []  # module paths and imported names are no variables
        found = [child for child in children(node) if not _is_non_reference_name(node, child)]
        if inner is None:
            return [(child, scope) for child in found]
        outside: set[int] = set()
        if isinstance(node, cst.FunctionDef):
            outside = {id(d) for d in node.decorators} | {id(node.returns)} | {id(node.name)}
            outside |= {id(p.default) for p in _all_params(node.params) if p.default is not None}
            outside |= {id(p.annotation) for p in _all_params(node.params) if p.annotation is not None}
        elif isinstance(node, cst.ClassDef):
            outside = {id(d) for d in node.decorators} | {id(b) for b in (*node.bases, *node.keywords)} | {id(node.name)}
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


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            found.append(star)
    return found


def _is_non_reference_name(parent: cst.CSTNode, child: cst.CSTNode) -> bool:
    """Names that are not variables: an attribute's name, a keyword argument's name."""
    if isinstance(parent, cst.Attribute):
        return child is parent.attr
    if isinstance(parent, cst.Arg):
        return child is parent.keyword
    return False
