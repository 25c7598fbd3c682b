"""Helpers shared by the tensor-semantics rules."""

from __future__ import annotations

import libcst as cst

# One step of the branch path: an `if` statement and whether we are in its `else` part.
_Branch = tuple[cst.If, bool]


class BranchTracker:
    """Which `if`/`else` branch each name was last bound in, to tell when a binding the
    shared inference saw cannot reach the current code.

    The shared inference is flow-insensitive: after ``if c: x = torch.stack(xs)`` it
    believes ``x`` is a tensor in the ``else:`` part too. A binding made under a branch
    that does not enclose the current position may not have happened; rules that need
    certainty ask :meth:`bound_conditionally` and stay silent.
    """

    def __init__(self) -> None:
        self._path: list[_Branch] = []
        self._else_of: dict[cst.CSTNode, cst.If] = {}
        self._bindings: list[dict[str, tuple[_Branch, ...]]] = [{}]

    def enter_function(self) -> None:
        self._bindings.append({})

    def leave_function(self) -> None:
        self._bindings.pop()

    def enter_if(self, node: cst.If) -> None:
        self.enter_else(node)  # an `elif` is the `else` part of the `if` before it
        self._path.append((node, False))
        if node.orelse is not None:
            self._else_of[node.orelse] = node

    def enter_else(self, node: cst.CSTNode) -> None:
        parent = self._else_of.pop(node, None)
        if parent is not None:
            for index in range(len(self._path) - 1, -1, -1):
                if self._path[index][0] is parent:
                    self._path[index] = (parent, True)
                    break

    def leave_if(self, node: cst.If) -> None:
        while self._path:
            if self._path.pop()[0] is node:
                break

    def bind(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self._bindings[-1][target.value] = tuple(self._path)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.bind(element.value)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value)

    def bound_conditionally(self, name: str) -> bool:
        """The last binding of ``name`` sits in a branch that does not enclose this point."""
        for scope in reversed(self._bindings):
            path = scope.get(name)
            if path is not None:
                current = self._path[: len(path)]
                return len(current) != len(path) or any(
                    mine[0] is not theirs[0] or mine[1] != theirs[1] for mine, theirs in zip(current, path)
                )
        return False
