"""The tests that hold where a node runs: branches around it and early exits before it."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint.binder import Binder
from torchcheck.lint.guards import known_at
from torchcheck.lint.nodes import source_text, subtree


def _held_at(code: str, call_text: str) -> set[tuple[str, bool]]:
    module = cst.parse_module(textwrap.dedent(code))
    binder = Binder(module)
    call = next(node for node in subtree(module) if isinstance(node, cst.Call) and source_text(node) == call_text)
    return {(source_text(held.test), held.holds) for held in known_at(binder, call)}


def test_branches_around_a_node_hold_their_tests() -> None:
    code = """
        def f(model, ddp, tie):
            if ddp and hasattr(model, "no_sync"):
                if not tie:
                    model.no_sync()
            else:
                other()
    """
    assert _held_at(code, "model.no_sync()") == {("ddp", True), ('hasattr(model, "no_sync")', True), ("tie", False)}
    assert _held_at(code, "other()") == set()  # `not (a and b)` says nothing of either term


def test_an_early_exit_makes_each_term_of_its_failed_or_hold() -> None:
    code = """
        def maybe_no_sync(model, sync):
            if sync or not hasattr(model, "no_sync"):
                return nullcontext()
            return model.no_sync()
    """
    assert _held_at(code, "model.no_sync()") == {("sync", False), ('hasattr(model, "no_sync")', True)}
    assert _held_at(code, "nullcontext()") == set()  # `a or b` true: either may hold


def test_elif_and_conditional_expressions_and_the_frame_boundary() -> None:
    code = """
        if world > 1:
            raise SystemExit
        def f(x, fast):
            if x is None:
                pass
            elif fast:
                y = run() if ready else wait()
    """
    assert _held_at(code, "run()") == {("ready", True), ("fast", True), ("x is None", False)}
    assert _held_at(code, "wait()") == {("ready", False), ("fast", True), ("x is None", False)}
