"""Control flow of the code being walked: branches, paths, loops, exits and bindings.

One :class:`ControlFlow` is kept by :class:`~torchcheck.lint.context.LintContext` during the
shared walk (the context calls its hooks; nothing re-walks a subtree) and rules query it as
``self.context.flow``. It answers what rules used to track privately:

* **paths** - the branches around the current node, outermost first. Two places whose paths
  take different branches of one ``if``/``elif``/``else``, ``try``/``except`` or ``match``
  never both run in one pass (:func:`exclusive`); a place whose path is a prefix of another's
  runs whenever that one does (:func:`encloses`).
* **events** - :meth:`ControlFlow.event` stamps a node with its source order, path, loops and
  function, so a rule can compare "A before B in the same iteration" after the walk.
* **exits** - every ``break``/``continue``/``return``/``raise``, as events.
* **loops** - facts that a rule collects per *outermost* loop (:meth:`ControlFlow.loop_facts`),
  handed back through the rule's ``leave_loop`` hook once that loop is complete.
* **bindings** - where each name was last bound and in which branch, so a rule can tell a
  binding that may not have happened on the way here (:meth:`ControlFlow.bound_conditionally`)
  and a name re-bound between two events (:meth:`ControlFlow.rebound_between`); which
  binding of a name reaches a point, or the value of an earlier binding, when it surely ran
  on the way there (:meth:`ControlFlow.reaching_binding`). An attribute path
  (``self.weight``) is bound like a name by assigning to it.

Like pyright's binder, the facts are recorded once, in walk order; queries are cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

import libcst as cst

from torchcheck.lint.nodes import assigned_pairs, dotted_name

# A loop, or a method a framework calls once per batch (see idioms.PER_BATCH_METHODS): the
# body of either runs once per iteration.
Loop = cst.For | cst.While | cst.FunctionDef
Function = cst.FunctionDef

# Branch labels. Branches of one statement with different labels are alternatives; the
# body of a loop and the body (and `else`) of a `try` are entered on the normal path.
BODY = "body"
ELSE = "else"
LOOP = "loop"
TRY = "try"
_UNCONDITIONAL = frozenset({LOOP, TRY})

_Facts = TypeVar("_Facts")


class Branch(NamedTuple):
    """One enclosing branch: the statement that branches and which of its branches."""

    owner: cst.CSTNode  # an If, Try, TryStar, Match, For or While
    label: str  # BODY, ELSE, LOOP, TRY, "except-<n>" or "case-<n>"

    @property
    def is_conditional(self) -> bool:
        """Whether code in this branch may be skipped while the code after the statement runs."""
        return self.label not in _UNCONDITIONAL


Path = tuple[Branch, ...]


def exclusive(first: Path, second: Path) -> bool:
    """Whether two places sit in different branches of one statement (never both run in a pass)."""
    for mine, theirs in zip(first, second):
        if mine.owner is not theirs.owner:
            return False
        if mine.label != theirs.label:
            return True
    return False


def encloses(outer: Path, inner: Path) -> bool:
    """Whether every branch around ``outer`` also surrounds ``inner``: whenever ``inner``
    runs in a pass, ``outer`` is on the way (given both sit in the same iteration)."""
    return len(outer) <= len(inner) and all(
        mine.owner is theirs.owner and mine.label == theirs.label for mine, theirs in zip(outer, inner)
    )


def _conditional(path: Path) -> Path:
    return tuple(branch for branch in path if branch.is_conditional)


def _covers(bindings: list[BoundName], around: Path) -> bool:
    """Whether one of ``bindings`` runs on every way through the code that ``around`` (the
    branches around the reader) encloses: one binds outside any further branch, or both
    branches of an ``if``/``else`` are covered (``if a: x = f() else: x = g()``)."""
    paths = [_conditional(binding.path) for binding in bindings]
    return _covered_at([path for path in paths if encloses(around, path)], len(around))


def _covered_at(paths: list[Path], depth: int) -> bool:
    if any(len(path) == depth for path in paths):
        return True
    owners = {id(path[depth].owner): path[depth].owner for path in paths}
    for owner in owners.values():
        if not isinstance(owner, cst.If) or owner.orelse is None:
            continue
        body = [path for path in paths if path[depth].owner is owner and path[depth].label == BODY]
        other = [path for path in paths if path[depth].owner is owner and path[depth].label == ELSE]
        if body and other and _covered_at(body, depth + 1) and _covered_at(other, depth + 1):
            return True
    return False


@dataclass(frozen=True)
class Event:
    """A node a rule cares about, with when and where it runs."""

    node: cst.CSTNode
    order: int  # walk order within the file
    path: Path  # enclosing branches and loop bodies, outermost first
    loops: tuple[Loop, ...]  # enclosing loops of the current function, outermost first
    function: Function | None  # the innermost enclosing function; None at module level

    @property
    def iteration(self) -> tuple[Function | None, Loop | None]:
        """What runs as one pass: an iteration of the outermost loop, or one call of the
        function (or the module's top level) when the event is in no loop."""
        return self.function, self.loops[0] if self.loops else None

    def exclusive_with(self, other: Event) -> bool:
        return exclusive(self.path, other.path)


class BoundName(NamedTuple):
    """One binding of a name: an assignment, a loop target, a parameter, a ``with ... as``,
    a walrus, a ``def`` or a ``class``. Augmented assignments (``x += 1``) are not bindings
    here: they change a value in place or keep its kind, they do not make the name refer to
    something else. (A named tuple: one is made for every binding in the file.)"""

    name: str
    node: cst.CSTNode  # the statement, parameter or loop that binds it
    value: cst.BaseExpression | None  # the value, for `name = value` and `name := value`
    order: int
    path: Path
    loops: tuple[Loop, ...]

    @property
    def whole_value(self) -> cst.BaseExpression | None:
        """The value it gave the name, also for one name of ``a, b = x, y``."""
        if self.value is not None or not isinstance(self.node, cst.Assign):
            return self.value
        values = (value for target, value in assigned_pairs(self.node) if isinstance(target, cst.Name) and target.value == self.name)
        return next(values, None)


@dataclass
class _Scope:
    node: cst.CSTNode | None  # the function or class; None for the module
    is_class: bool = False
    bindings: dict[str, list[BoundName]] | None = None

    def history(self, name: str) -> list[BoundName] | None:
        return self.bindings.get(name) if self.bindings is not None else None


class ControlFlow:
    """Branches, paths, loops, exits, per-loop facts and bindings, maintained during the walk.

    The context calls the ``visit_*``/``leave_*`` hooks below before the rules on the way
    down and after them on the way up.
    """

    def __init__(self) -> None:
        self.path: Path = ()
        # the loops around the current node, outermost first, one entry per function or class
        # body (a loop does not enclose the functions defined in it)
        self._loop_frames: list[tuple[Loop, ...]] = [()]
        self._pending: dict[cst.CSTNode, Branch] = {}  # blocks not yet entered -> their branch
        self._functions: list[Function | None] = [None]
        self._scopes: list[_Scope] = [_Scope(None)]
        self._order = 0
        self.exits: list[Event] = []  # break / continue / return / raise, in walk order
        self._loop_facts: dict[Loop, dict[object, object]] = {}
        self._loop_listeners: list[Callable[[Loop], None]] = []

    # ----------------------------------------------------------------- queries
    @property
    def loops(self) -> tuple[Loop, ...]:
        """Loops enclosing the current node, outermost first, within the current function."""
        return self._loop_frames[-1]

    @property
    def function(self) -> Function | None:
        """The innermost function around the current node (None at module level)."""
        return self._functions[-1]

    def event(self, node: cst.CSTNode) -> Event:
        """Stamp ``node`` with its place in the flow (call it while visiting ``node``)."""
        self._order += 1
        return Event(node, self._order, self.path, self._loop_frames[-1], self._functions[-1])

    def leaves_after(self, event: Event) -> bool:
        """Whether a ``break``, ``return`` or ``raise`` in the same block follows ``event``:
        the rest of the iteration (or of the function) is skipped after it."""
        return any(
            exit.order > event.order
            and exit.path == event.path
            and exit.function is event.function
            and not isinstance(exit.node, cst.Continue)
            for exit in self.exits
        )

    def leaves_loop_after(self, event: Event) -> bool:
        """Whether the innermost loop around ``event`` is left after it whenever it runs: a
        later ``break``/``return`` of that loop on every path through ``event``'s branches, or
        one under ``if done:`` where ``done = True`` is set in ``event``'s own branch."""
        if not event.loops:
            return False
        loop, around = event.loops[-1], _conditional(event.path)
        for exit in self.exits:
            if exit.order <= event.order or not exit.loops or exit.loops[-1] is not loop or isinstance(exit.node, cst.Continue):
                continue
            path = _conditional(exit.path)
            if encloses(path, around) or (path and encloses(path[:-1], around) and self._flag_set_beside(path[-1], event, loop)):
                return True
        return False

    def _flag_set_beside(self, branch: Branch, event: Event, loop: Loop) -> bool:
        test = branch.owner.test if isinstance(branch.owner, cst.If) and branch.label == BODY else None
        if not isinstance(test, cst.Name):
            return False
        around = _conditional(event.path)
        return any(
            isinstance(binding.value, cst.Name) and binding.value.value == "True" and loop in binding.loops
            and encloses(_conditional(binding.path), around) and encloses(around, _conditional(binding.path))
            for binding in self._scopes[-1].history(test.value) or ()
        )

    def loop_facts(self, owner: object, factory: Callable[[], _Facts]) -> _Facts:
        """The facts ``owner`` (a rule) collects for the outermost loop around the current
        node, made by ``factory`` on first use. They are dropped once that loop is complete,
        right after the ``leave_loop`` hooks have read them. Only valid inside a loop."""
        loops = self._loop_frames[-1]
        if not loops:
            raise RuntimeError("loop_facts() is only meaningful inside a loop")
        per_owner = self._loop_facts.setdefault(loops[0], {})
        facts = per_owner.get(owner)
        if facts is None:
            facts = per_owner[owner] = factory()
        return facts  # type: ignore[return-value]

    def on_leave_loop(self, listener: Callable[[Loop], None]) -> None:
        """Call ``listener(loop)`` each time an outermost loop of a function (or of the
        module) is complete, nested loops and everything after them in it included."""
        self._loop_listeners.append(listener)

    def last_binding(self, name: str) -> BoundName | None:
        """The binding of ``name`` that reaches here last in walk order, in the innermost
        scope that binds it (class bodies are not visible from their methods)."""
        history = self._history(name)
        return history[-1] if history else None

    def bound_conditionally(self, name: str) -> bool:
        """Whether the last binding of ``name`` sits in a branch (of an ``if``, a ``match``
        or an ``except``) that does not enclose the current point: the binding may not have
        happened on the way here. Loop bodies and ``try`` bodies do not count as branches."""
        binding = self.last_binding(name)
        if binding is None:
            return False
        return not encloses(_conditional(binding.path), _conditional(self.path))

    def rebound_between(self, name: str, first: Event, second: Event) -> bool:
        """Whether ``name`` was bound again after the statement of ``first`` and before
        ``second`` (in any branch: a re-binding that may have happened counts)."""
        return any(
            first.order < binding.order < second.order and binding.node is not first.node
            for binding in self._history(name) or ()
        )

    def reaching_binding(self, name: str, reader: BoundName | None = None) -> BoundName | None:
        """The binding of ``name`` in the current function (or class body, or module) that
        the current point reads - or, given ``reader``, that the value of that earlier binding
        read: the last one before it in walk order, provided it surely ran on the way there.
        None when the name is not bound here before that point, or when its last binding sits
        in a branch that does not enclose the reader (it may not have happened, another
        binding may reach instead). Bindings of enclosing functions are not followed: what a
        closure reads depends on when it is called."""
        reaching = self.reaching_bindings(name, reader)
        return reaching[0] if len(reaching) == 1 else None

    def reaching_bindings(self, name: str, reader: BoundName | None = None) -> list[BoundName]:
        """Every binding of ``name`` that the current point (or ``reader``) may read, latest
        first: the last one that surely ran on the way there, and those after it in branches
        that may have run instead (``x = x.cuda()`` under ``if use_cuda:``). Empty when none
        surely ran."""
        order, path = (reader.order, reader.path) if reader is not None else (self._order + 1, self.path)
        found = []
        for binding in reversed(self._scopes[-1].history(name) or []):
            if binding.order >= order:
                continue
            if self._root_rebound_after(name, binding):
                return []  # `a = other` after `a.x = ...`: that `a.x` belongs to another object
            found.append(binding)
            if encloses(_conditional(binding.path), _conditional(path)) or _covers(found, _conditional(path)):
                return found
        return []

    def _root_rebound_after(self, path: str, binding: BoundName) -> bool:
        root = path.partition(".")[0]
        return root != path and any(earlier.order > binding.order for earlier in self._scopes[-1].history(root) or ())

    def _history(self, name: str) -> list[BoundName] | None:
        innermost = len(self._scopes) - 1
        for index in range(innermost, -1, -1):
            scope = self._scopes[index]
            if scope.is_class and index != innermost:
                continue
            history = scope.history(name)
            if history:
                return history
        return None

    # ----------------------------------------------------------------- branches
    def _register(self, block: cst.CSTNode | None, owner: cst.CSTNode, label: str) -> None:
        if block is not None:
            self._pending[block] = Branch(owner, label)

    def enter_block(self, node: cst.CSTNode) -> None:
        """Hook for IndentedBlock / SimpleStatementSuite (and an ``elif``'s If)."""
        branch = self._pending.get(node)
        if branch is not None:
            self.path = (*self.path, branch)

    def leave_block(self, node: cst.CSTNode) -> None:
        if self._pending.pop(node, None) is not None:
            self.path = self.path[:-1]

    def visit_If(self, node: cst.If) -> None:
        self.enter_block(node)  # an `elif`: the else branch of the `if` above it
        self._register(node.body, node, BODY)
        if isinstance(node.orelse, cst.Else):
            self._register(node.orelse.body, node, ELSE)
        elif isinstance(node.orelse, cst.If):
            self._register(node.orelse, node, ELSE)

    def leave_If(self, node: cst.If) -> None:
        self.leave_block(node)

    def visit_Try(self, node: cst.Try | cst.TryStar) -> None:
        self._register(node.body, node, TRY)
        for index, handler in enumerate(node.handlers):
            self._register(handler.body, node, f"except-{index}")
        if node.orelse is not None:
            self._register(node.orelse.body, node, TRY)  # runs right after the body

    def visit_Match(self, node: cst.Match) -> None:
        for index, case in enumerate(node.cases):
            self._register(case.body, node, f"case-{index}")

    def visit_loop(self, node: Loop) -> None:
        """Hook for For / While (its target, bound on every iteration, is inside the loop)."""
        self._loop_frames[-1] = (*self._loop_frames[-1], node)
        self._register(node.body, node, LOOP)
        if isinstance(node, cst.For):
            self._bind_target(node.target, node, None)

    def leave_loop(self, node: Loop) -> None:
        """Hook for For / While: an outermost loop is complete, tell the listeners."""
        loops = self._loop_frames[-1]
        if len(loops) == 1:
            for listener in self._loop_listeners:
                listener(node)
            self._loop_facts.pop(node, None)
        self._loop_frames[-1] = loops[:-1]

    # ----------------------------------------------------------------- scopes and exits
    def visit_FunctionDef(self, node: Function) -> None:
        self._functions.append(node)
        self._loop_frames.append(())
        self._scopes.append(_Scope(node))
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            self._bind(param.name.value, param, None)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self._bind(star.name.value, star, None)

    def leave_FunctionDef(self, node: Function) -> None:
        self._functions.pop()
        self._loop_frames.pop()
        self._scopes.pop()
        self._bind(node.name.value, node, None)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._loop_frames.append(())
        self._scopes.append(_Scope(node, is_class=True))

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._loop_frames.pop()
        self._scopes.pop()
        self._bind(node.name.value, node, None)

    def visit_exit(self, node: cst.Break | cst.Continue | cst.Return | cst.Raise) -> None:
        self.exits.append(self.event(node))

    # ----------------------------------------------------------------- bindings
    def leave_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind_target(target.target, node, node.value)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind_target(node.target, node, node.value)

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target, node, node.value)

    def bind_with_item(self, item: cst.WithItem) -> None:
        if item.asname is not None:
            self._bind_target(item.asname.name, item, None)

    def _bind_target(self, target: cst.BaseExpression, node: cst.CSTNode, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            self._bind(target.value, node, value)
        elif isinstance(target, cst.Attribute) and (path := dotted_name(target)) is not None:
            self._bind(path, node, value)  # `self.w = self.w.cuda()`: the attribute is re-bound like a name
        elif type(target) in (cst.Tuple, cst.List):
            for element in target.elements:
                self._bind_target(element.value, node, None)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, node, None)

    def _bind(self, name: str, node: cst.CSTNode, value: cst.BaseExpression | None) -> None:
        self._order += 1
        scope = self._scopes[-1]
        if scope.bindings is None:
            scope.bindings = {}
        binding = BoundName(name, node, value, self._order, self.path, self._loop_frames[-1])
        scope.bindings.setdefault(name, []).append(binding)
