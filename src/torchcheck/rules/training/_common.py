"""Order and branch facts shared by the training-loop rules that reason about call order.

TCK103, TCK104 and TCK106 ask "does A run before B in the same iteration?". Loop call lists
say *whether* a call is in a loop, not *where*: these rules also need the source order of
calls and the branches they sit in, so that ``if overflow: opt.zero_grad() else:
opt.step()`` is not read as "zero_grad, then step". :class:`FlowRule` records both during
the shared walk, without re-walking any subtree.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext, Loop, dotted_name
from torchcheck.lint.rule import Rule

# One enclosing branch: (the statement that branches, which branch). Two entries with the
# same statement and different labels can never both run in one pass.
Branch = tuple[cst.CSTNode, str]
Path = tuple[Branch, ...]


@dataclass(frozen=True)
class Event:
    """A call (or exit statement) the rule cares about, with where and when it runs."""

    node: cst.CSTNode
    order: int  # source order within the file
    path: Path  # enclosing branches and loop bodies, outermost first
    loops: tuple[Loop, ...]
    group: tuple[cst.CSTNode | None, Loop | None]  # (function, outermost loop): one "iteration"


def exclusive(first: Path, second: Path) -> bool:
    """Whether two places sit in different branches of one ``if``/``try``/``match``."""
    for a, b in zip(first, second):
        if a[0] is not b[0]:
            return False
        if a[1] != b[1]:
            return True
    return False


def is_prefix(outer: Path, inner: Path) -> bool:
    """Whether every branch around ``outer`` also surrounds ``inner`` (whenever ``inner``
    runs in this pass, ``outer`` runs too, given both sit in the same iteration)."""
    return len(outer) <= len(inner) and all(a[0] is b[0] and a[1] == b[1] for a, b in zip(outer, inner))


def receiver_text(call: cst.Call) -> str | None:
    """``self.optimizer`` for ``self.optimizer.step()``; None for other shapes."""
    return dotted_name(call.func.value) if isinstance(call.func, cst.Attribute) else None


class FlowRule(Rule):
    """A rule that records the source order and branch path of the calls it collects.

    Subclasses call :meth:`event` from their ``visit_*`` methods and decide in
    ``leave_Module``; they must call ``super()`` if they override a hook defined here.
    """

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._path: list[Branch] = []
        self._blocks: dict[cst.CSTNode, Branch] = {}
        self._functions: list[cst.CSTNode | None] = [None]
        self._order = 0
        self.exits: list[Event] = []  # break / return / raise

    # ----------------------------------------------------------------- recording
    def event(self, node: cst.CSTNode) -> Event:
        self._order += 1
        loops = self.context.loops
        return Event(
            node=node,
            order=self._order,
            path=tuple(self._path),
            loops=loops,
            group=(self._functions[-1], loops[0] if loops else None),
        )

    def _register(self, block: cst.CSTNode | None, owner: cst.CSTNode, label: str) -> None:
        if block is not None:
            self._blocks[block] = (owner, label)

    def _enter(self, node: cst.CSTNode) -> None:
        branch = self._blocks.get(node)
        if branch is not None:
            self._path.append(branch)

    def _leave(self, node: cst.CSTNode) -> None:
        if node in self._blocks:
            self._path.pop()
            del self._blocks[node]

    # ----------------------------------------------------------------- branches
    def visit_If(self, node: cst.If) -> None:
        self._enter(node)  # an `elif`: the `else` branch of the `if` above it
        self._register(node.body, node, "body")
        if isinstance(node.orelse, cst.Else):
            self._register(node.orelse.body, node, "else")
        elif isinstance(node.orelse, cst.If):
            self._register(node.orelse, node, "else")

    def leave_If(self, node: cst.If) -> None:
        self._leave(node)

    def visit_Try(self, node: cst.Try) -> None:
        self._register_try(node)

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self._register_try(node)

    def _register_try(self, node: cst.Try | cst.TryStar) -> None:
        self._register(node.body, node, "body")
        for index, handler in enumerate(node.handlers):
            self._register(handler.body, node, f"except-{index}")
        if node.orelse is not None:
            self._register(node.orelse.body, node, "body")  # runs right after the body

    def visit_Match(self, node: cst.Match) -> None:
        for index, case in enumerate(node.cases):
            self._register(case.body, node, f"case-{index}")

    def visit_For(self, node: cst.For) -> None:
        self._register(node.body, node, "loop")

    def visit_While(self, node: cst.While) -> None:
        self._register(node.body, node, "loop")

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter(node)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._leave(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter(node)

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._leave(node)

    # ----------------------------------------------------------------- scopes and exits
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_Break(self, node: cst.Break) -> None:
        self.exits.append(self.event(node))

    def visit_Return(self, node: cst.Return) -> None:
        self.exits.append(self.event(node))

    def visit_Raise(self, node: cst.Raise) -> None:
        self.exits.append(self.event(node))


def by_group(events: list[Event]) -> dict[tuple[cst.CSTNode | None, Loop | None], list[Event]]:
    """Events per iteration group, each list in source order (insertion order is kept)."""
    groups: dict[tuple[cst.CSTNode | None, Loop | None], list[Event]] = {}
    for event in events:
        groups.setdefault(event.group, []).append(event)
    return groups
