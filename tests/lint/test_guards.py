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


def _never_together(code: str, first_text: str, second_text: str) -> bool:
    from torchcheck.lint.guards import never_together

    module = cst.parse_module(textwrap.dedent(code))
    binder = Binder(module)
    calls = {source_text(node): node for node in subtree(module) if isinstance(node, cst.Call)}
    return never_together(binder, calls[first_text], calls[second_text])


def test_two_ifs_with_the_same_test_split_their_branches_when_the_test_reads_the_same_values() -> None:
    code = """
        def f(shared):
            if shared:
                alias()
            else:
                fresh()
            work()
            if not shared:
                write_back()
    """
    assert _never_together(code, "alias()", "write_back()")
    assert not _never_together(code, "fresh()", "write_back()")


def test_a_test_whose_name_is_bound_again_in_between_or_that_calls_something_decides_nothing() -> None:
    rebound = """
        def f(shared):
            if shared:
                alias()
            shared = other()
            if not shared:
                write_back()
    """
    called = """
        def f(x):
            if ready(x):
                alias()
            if not ready(x):
                write_back()
    """
    assert not _never_together(rebound, "alias()", "write_back()")
    assert not _never_together(called, "alias()", "write_back()")


def test_the_two_branches_of_one_if_never_run_together_whatever_its_test_calls() -> None:
    code = """
        def f(args, model):
            if args.arch.startswith("alexnet") or args.arch.startswith("vgg"):
                wrap(model.features)
            else:
                wrap(model)
            for step in range(3):
                if ready(step):
                    alias()
                else:
                    write_back()
    """
    assert _never_together(code, "wrap(model.features)", "wrap(model)")
    assert not _never_together(code, "alias()", "write_back()")  # the next iteration may take the other branch


def test_a_negated_comparison_is_its_positive_spelling_failing() -> None:
    code = """
        def step(scaler, optimizer, mode):
            if scaler is not None:
                scaler.unscale_(optimizer)
            if mode != "eval":
                optimizer.step()
    """
    assert _held_at(code, "scaler.unscale_(optimizer)") == {("scaler is None", False)}
    assert _held_at(code, "optimizer.step()") == {('mode == "eval"', False)}
