"""What the TCK2xx rules share: knowing which calls run on *every* step of a training loop.

A call runs once per training step when it sits in the loop that calls ``.backward()`` (or
in a loop nested inside it) and is not behind a condition that makes it periodic or
exceptional: a logging condition such as ``if step % 100 == 0`` or ``if should_log:``, or an
``except`` handler (``except torch.cuda.OutOfMemoryError: torch.cuda.empty_cache()``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext, Loop
from torchcheck.lint.rule import Rule
from torchcheck.lint.walker import children

# Identifier words that mark a condition as "only now and then" (logging, progress output).
_PERIODIC_WORDS = frozenset(
    {"log", "logging", "logger", "print", "verbose", "debug", "display", "report", "interval", "every", "freq", "frequency", "tensorboard", "wandb"}
)
_WORD_SPLIT = re.compile(r"[_.]|(?<=[a-z])(?=[A-Z])")


def is_periodic_condition(test: cst.BaseExpression) -> bool:
    """``step % N == 0``, ``should_log``, ``args.log_interval and ...``: true now and then."""
    stack: list[cst.CSTNode] = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
            return True
        if isinstance(node, cst.Name) and _has_periodic_word(node.value):
            return True
        if isinstance(node, cst.Lambda):
            continue
        stack.extend(children(node))
    return False


def _has_periodic_word(identifier: str) -> bool:
    return any(word.lower() in _PERIODIC_WORDS for word in _WORD_SPLIT.split(identifier) if word)


@dataclass(frozen=True)
class StepCandidate:
    """A call of interest and where it sits."""

    call: cst.Call
    loops: tuple[Loop, ...]  # enclosing loops, outermost first
    guard_loops: frozenset[Loop | None]  # innermost loop at each enclosing periodic guard


class PerStepCallRule(Rule):
    """Base of rules about calls that must not run on every training step.

    Subclasses implement :meth:`is_candidate`; the base reports each candidate that runs
    once per iteration of a loop calling ``.backward()`` directly. The decision is made
    when the outermost loop is left, once every nested loop's calls are known.
    """

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._candidates: list[StepCandidate] = []
        self._backward_loops: set[Loop] = set()
        self._guard_blocks: set[cst.CSTNode] = set()
        self._active_guards: list[tuple[cst.CSTNode, Loop | None]] = []

    def is_candidate(self, call: cst.Call) -> bool:
        raise NotImplementedError

    # ------------------------------------------------------------ facts on the way down
    def visit_Call(self, node: cst.Call) -> None:
        loops = self.context.loops
        if not loops:
            return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward":
            self._backward_loops.add(loops[-1])
        elif self.is_candidate(node):
            guards = frozenset(loop for _, loop in self._active_guards)
            self._candidates.append(StepCandidate(node, loops, guards))

    def visit_If(self, node: cst.If) -> None:
        if self.context.loops and is_periodic_condition(node.test):
            self._guard_blocks.add(node.body)  # the else branch runs on the other steps

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_block(node)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._leave_block(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_block(node)

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._leave_block(node)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._active_guards.append((node, self._innermost_loop()))

    def leave_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._active_guards.pop()

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        self._active_guards.append((node, self._innermost_loop()))

    def leave_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        self._active_guards.pop()

    def _enter_block(self, node: cst.CSTNode) -> None:
        if node in self._guard_blocks:
            self._active_guards.append((node, self._innermost_loop()))

    def _leave_block(self, node: cst.CSTNode) -> None:
        if node in self._guard_blocks:
            self._guard_blocks.discard(node)
            self._active_guards.pop()

    def _innermost_loop(self) -> Loop | None:
        loops = self.context.loops
        return loops[-1] if loops else None

    # ------------------------------------------------------------ decision on the way up
    def leave_For(self, node: cst.For) -> None:
        self._resolve()

    def leave_While(self, node: cst.While) -> None:
        self._resolve()

    def _resolve(self) -> None:
        if len(self.context.loops) != 1:
            return  # an inner loop's backward() may still show up further down
        for candidate in self._candidates:
            if self._runs_every_step(candidate):
                self.report(candidate.call)
        self._candidates.clear()
        self._backward_loops.clear()

    def _runs_every_step(self, candidate: StepCandidate) -> bool:
        for depth, loop in enumerate(candidate.loops):
            if loop not in self._backward_loops:
                continue
            # guarded within this step loop (at its level or deeper): not every step
            if not any(guard in candidate.loops[depth:] for guard in candidate.guard_loops):
                return True
        return False
