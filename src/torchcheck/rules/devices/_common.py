"""What the TCK2xx rules share: knowing which calls run on *every* step of a training loop.

A call runs once per training step when it sits in the loop that calls ``.backward()`` (or
in a loop nested inside it) and is not behind a condition that makes it periodic or
exceptional: a logging condition such as ``if step % 100 == 0`` or ``if should_log:``, or an
``except`` handler (``except torch.cuda.OutOfMemoryError: torch.cuda.empty_cache()``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint import idioms
from torchcheck.lint.context import Loop
from torchcheck.lint.flow import BODY, LOOP, Path
from torchcheck.lint.nodes import subtree
from torchcheck.lint.rule import Rule
from torchcheck.lint.steps import steps_an_optimizer

# Identifier words that mark a condition as "only now and then" (logging, progress output).
_PERIODIC_WORDS = frozenset(
    {"log", "logging", "logger", "print", "verbose", "debug", "display", "report", "interval", "every", "freq", "frequency", "tensorboard", "wandb"}
)
_WORD_SPLIT = re.compile(r"[_.]|(?<=[a-z])(?=[A-Z])")


def is_periodic_condition(test: cst.BaseExpression) -> bool:
    """``step % N == 0``, ``should_log``, ``args.log_interval and ...``: true now and then."""
    for node in subtree(test, prune=lambda node: isinstance(node, cst.Lambda)):
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
            return True
        if isinstance(node, cst.Name) and any(word.lower() in _PERIODIC_WORDS for word in _WORD_SPLIT.split(node.value) if word):
            return True
    return False


@dataclass(frozen=True)
class StepCandidate:
    """A call of interest and where it sits."""

    call: cst.Call
    loops: tuple[Loop, ...]  # enclosing loops, outermost first
    guard_loops: frozenset[Loop | None]  # innermost loop at each enclosing periodic guard


@dataclass
class _LoopFacts:
    candidates: list[StepCandidate] = field(default_factory=list)
    backward_loops: set[Loop] = field(default_factory=set)  # loops calling .backward() directly


def guard_loops(path: Path, is_periodic: Callable[[cst.BaseExpression], bool] = is_periodic_condition) -> frozenset[Loop | None]:
    """The innermost loop around each branch of ``path`` that runs only now and then: the
    body of an ``if`` with a periodic condition, or an ``except`` handler."""
    found: set[Loop | None] = set()
    innermost: Loop | None = None
    for branch in path:
        if branch.label == LOOP:
            innermost = branch.owner  # type: ignore[assignment]
        elif branch.label.startswith("except") or (
            branch.label == BODY and isinstance(branch.owner, cst.If) and is_periodic(branch.owner.test)
        ):
            found.add(innermost)
    return frozenset(found)


class PerStepCallRule(Rule):
    """Base of rules about calls that must not run on every training step.

    Subclasses implement :meth:`is_candidate`; the base reports each candidate that runs
    once per iteration of a loop calling ``.backward()`` directly. The decision is made
    when the outermost loop is complete, once every nested loop's calls are known.
    """

    #: Also report a candidate in a function of the file that a training loop calls on every
    #: step (``self.training_step(batch)``), where the call itself is the candidate's cost.
    reaches_helpers = False

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._in_functions: list[tuple[cst.Call, cst.FunctionDef]] = []  # candidates outside any loop
        self._called_per_step: dict[cst.FunctionDef, list[Loop]] = {}  # functions called in a loop, unguarded
        self._stepping_loops: set[Loop] = set()  # loops whose own body backpropagates (not a nested loop's)

    def is_candidate(self, call: cst.Call) -> bool:
        raise NotImplementedError

    def is_periodic(self, test: cst.BaseExpression) -> bool:
        """Whether an ``if`` with this condition runs its body only now and then."""
        return is_periodic_condition(test) and not self.gates_the_step(test)

    def gates_the_step(self, test: cst.BaseExpression) -> bool:
        """The ``if`` tested by ``test`` steps the optimizer in its body (``if (step + 1) %
        accumulation_steps == 0: optimizer.step()``): it runs on every update, not now and then."""
        owner = self.context.binder.parent(test)
        return type(owner) is cst.If and any(
            type(node) is cst.Call and steps_an_optimizer(self.context, node)  # type: ignore[arg-type]
            for node in subtree(owner.body)  # type: ignore[attr-defined]
        )

    def _facts(self) -> _LoopFacts:
        return self.context.flow.loop_facts(self, _LoopFacts)

    def visit_Call(self, node: cst.Call) -> None:
        loops = self.context.loops
        if self.reaches_helpers:
            self._note_helper(node, loops)
        if not loops:
            return
        if isinstance(node.func, cst.Attribute) and self.context.backward_subject(node) is not None:
            self._facts().backward_loops.add(loops[-1])  # `loss.backward()`, `accelerator.backward(loss)` ...
        elif self.is_candidate(node):
            self._facts().candidates.append(StepCandidate(node, loops, guard_loops(self.context.flow.path, self.is_periodic)))

    def leave_loop(self, loop: Loop) -> None:
        facts = self._facts()
        for candidate in facts.candidates:
            if self._runs_every_step(candidate, facts.backward_loops):
                self.report(candidate.call)

    def _note_helper(self, node: cst.Call, loops: tuple[Loop, ...]) -> None:
        if not loops:
            function = self.context.flow.function
            if function is not None and self.is_candidate(node) and not guard_loops(self.context.flow.path, self.is_periodic):
                self._in_functions.append((node, function))
            return
        if self.context.backward_subject(node) is not None:
            self._stepping_loops.add(loops[-1])
        resolved = self.context.resolve_call(node)
        if resolved is not None and not guard_loops(self.context.flow.path, self.is_periodic):
            self._called_per_step.setdefault(resolved.function, []).append(loops[-1])

    def leave_Module(self, node: cst.Module) -> None:
        """A candidate in a function that a training loop calls on every step: the loop's own
        body backpropagates (an epoch loop around the step loop does not count), or the
        function itself does."""
        for call, function in self._in_functions:
            loops = self._called_per_step.get(function, [])
            trains = self.context.summary_of(function).does(idioms.Effect.BACKWARD)
            if loops and (trains or any(loop in self._stepping_loops for loop in loops)):
                self.report(call)

    @staticmethod
    def _runs_every_step(candidate: StepCandidate, backward_loops: set[Loop]) -> bool:
        for depth, loop in enumerate(candidate.loops):
            if loop not in backward_loops:
                continue
            # guarded within this step loop (at its level or deeper): not every step
            if not any(guard in candidate.loops[depth:] for guard in candidate.guard_loops):
                return True
        return False
