"""Facts the mixed-precision rules share: enabled autocast regions, if/else branches, scalers.

The shared context already knows whether a node is inside *some* ``autocast`` block, but
``autocast(enabled=False)`` is the idiomatic way to leave autocast for a numerically
sensitive region, so the rules here track which autocast blocks are actually enabled.
They also need to know when two calls sit in opposite branches of one ``if`` (the
"``if scaler: scaler.step(opt) else: opt.step()``" pattern is correct code).
"""

from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import TENSOR_KINDS, Kind, LintContext, method_call
from torchcheck.lint.rule import Rule

# (If/IfExp node, "body" or "else") pairs from the outermost ``if`` down.
BranchPath = tuple[tuple[cst.CSTNode, str], ...]


class Branches:
    """The chain of ``if``/``else`` branches enclosing the node being visited.

    Rules call :meth:`visit` from ``visit_If``/``visit_IndentedBlock``/``visit_Else``/
    ``visit_SimpleStatementSuite`` and :meth:`leave` from the matching ``leave_`` methods.
    """

    def __init__(self) -> None:
        self._pending: dict[cst.CSTNode, tuple[cst.If, str]] = {}
        self._path: list[tuple[cst.CSTNode, str]] = []

    @property
    def path(self) -> BranchPath:
        return tuple(self._path)

    def visit(self, node: cst.CSTNode) -> None:
        marker = self._pending.pop(node, None)
        if marker is not None:
            self._path.append(marker)
        if isinstance(node, cst.If):
            self._pending[node.body] = (node, "body")
            if node.orelse is not None:
                self._pending[node.orelse] = (node, "else")

    def leave(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.If):
            self._pending.pop(node.body, None)
            if node.orelse is not None:
                self._pending.pop(node.orelse, None)
        if self._path and _branch_node(self._path[-1]) is node:
            self._path.pop()


def _branch_node(marker: tuple[cst.CSTNode, str]) -> cst.CSTNode | None:
    owner, branch = marker
    assert isinstance(owner, cst.If)
    return owner.body if branch == "body" else owner.orelse


def exclusive(first: BranchPath, second: BranchPath) -> bool:
    """The two places sit in different branches of one ``if``: never both run in one pass."""
    branches = dict(first)
    return any(owner in branches and branches[owner] != branch for owner, branch in second)


def is_scaler_call(context: LintContext, call: cst.Call, methods: frozenset[str] | tuple[str, ...]) -> bool:
    """``scaler.<method>(...)`` on a value known (or conventionally named) to be a GradScaler."""
    receiver_method = method_call(call)
    return (
        receiver_method is not None
        and receiver_method[1] in methods
        and context.kind_of(receiver_method[0]) is Kind.SCALER
    )


def is_tensor_backward(context: LintContext, call: cst.Call) -> bool:
    """``x.backward(...)`` where ``x`` is (or may be) a tensor.

    Receivers of a known other kind are excluded, and so are unknown receivers given a
    positional argument: ``accelerator.backward(loss)`` / ``fabric.backward(loss)`` are not
    ``Tensor.backward`` (whose first argument, ``gradient``, is rarely passed).
    """
    receiver_method = method_call(call)
    if receiver_method is None or receiver_method[1] != "backward":
        return False
    receiver = receiver_method[0]
    if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super":
        return False
    kind = context.kind_of(receiver)
    if kind in TENSOR_KINDS:
        return True
    if kind is not None:
        return False
    return not any(argument.keyword is None for argument in call.args)


class BranchAwareRule(Rule):
    """A rule base that keeps :attr:`branches` current (no code: not a rule itself)."""

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self.branches = Branches()

    def visit_If(self, node: cst.If) -> None:
        self.branches.visit(node)

    def leave_If(self, node: cst.If) -> None:
        self.branches.leave(node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.branches.visit(node)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.branches.leave(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.branches.visit(node)

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.branches.leave(node)

    def visit_Else(self, node: cst.Else) -> None:
        self.branches.visit(node)

    def leave_Else(self, node: cst.Else) -> None:
        self.branches.leave(node)
