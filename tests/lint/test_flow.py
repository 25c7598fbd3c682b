"""The control-flow facility: branches, paths, exits, per-loop facts and branch-aware bindings."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import Event, Loop, encloses, exclusive
from torchcheck.lint.walker import BatchedWalker


class _Recorder:
    """Stamps every `mark(...)` call with its place in the flow and asks the binding
    questions `bound_conditionally(name)` and `rebound(name)` (since the previous mark)."""

    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.marks: dict[str, Event] = {}
        self.answers: list[tuple[str, bool]] = []
        self.left_loops: list[tuple[Loop, list[str]]] = []
        self._last: Event | None = None
        context.flow.on_leave_loop(self._leave_loop)

    def visit_Call(self, node: cst.Call) -> None:
        if not isinstance(node.func, cst.Name) or not node.args:
            return
        argument = node.args[0].value
        label = argument.value if isinstance(argument, cst.Name) else ""
        flow = self.context.flow
        if node.func.value == "mark":
            event = flow.event(node)
            self.marks[label] = event
            if self.context.loops:
                flow.loop_facts(self, list).append(label)
            self._last = event
        elif node.func.value == "bound_conditionally":
            self.answers.append((label, flow.bound_conditionally(label)))
        elif node.func.value == "rebound":
            assert self._last is not None
            self.answers.append((label, flow.rebound_between(label, self._last, flow.event(node))))

    def _leave_loop(self, loop: Loop) -> None:
        self.left_loops.append((loop, list(self.context.flow.loop_facts(self, list))))


def record(source: str) -> tuple[_Recorder, LintContext]:
    context = LintContext()
    recorder = _Recorder(context)
    BatchedWalker([context, recorder]).walk(cst.parse_module(textwrap.dedent(source)))
    return recorder, context


def test_if_and_else_branches_are_exclusive_and_code_after_them_is_not() -> None:
    marks = record(
        """
        if c:
            mark(a)
        else:
            mark(b)
        mark(after)
        """
    )[0].marks
    assert exclusive(marks["a"].path, marks["b"].path)
    assert not exclusive(marks["a"].path, marks["after"].path)
    assert encloses(marks["after"].path, marks["a"].path)


def test_elif_branches_exclude_each_other_and_the_first_branch() -> None:
    marks = record(
        """
        if c:
            mark(a)
        elif d:
            mark(b)
        else:
            mark(c)
        """
    )[0].marks
    assert exclusive(marks["a"].path, marks["b"].path)
    assert exclusive(marks["b"].path, marks["c"].path)
    assert exclusive(marks["a"].path, marks["c"].path)


def test_except_handlers_exclude_the_try_body_but_its_else_and_finally_do_not() -> None:
    marks = record(
        """
        try:
            mark(body)
        except ValueError:
            mark(handler)
        except KeyError:
            mark(other)
        else:
            mark(orelse)
        finally:
            mark(final)
        """
    )[0].marks
    assert exclusive(marks["body"].path, marks["handler"].path)
    assert exclusive(marks["handler"].path, marks["other"].path)
    assert not exclusive(marks["body"].path, marks["orelse"].path)
    assert not exclusive(marks["handler"].path, marks["final"].path)


def test_match_cases_exclude_each_other() -> None:
    marks = record(
        """
        match x:
            case 1:
                mark(one)
            case _:
                mark(other)
        """
    )[0].marks
    assert exclusive(marks["one"].path, marks["other"].path)


def test_nested_if_inside_one_branch_is_enclosed_by_it() -> None:
    marks = record(
        """
        if c:
            mark(outer)
            if d:
                mark(inner)
        """
    )[0].marks
    assert encloses(marks["outer"].path, marks["inner"].path)
    assert not encloses(marks["inner"].path, marks["outer"].path)


def test_events_carry_source_order_loops_and_the_iteration_they_belong_to() -> None:
    marks = record(
        """
        for epoch in range(3):
            mark(first)
            for x in loader:
                mark(inner)
        def train():
            mark(in_function)
        """
    )[0].marks
    assert marks["first"].order < marks["inner"].order < marks["in_function"].order
    assert marks["first"].iteration == marks["inner"].iteration
    assert len(marks["inner"].loops) == 2
    assert marks["in_function"].iteration[0] is not None and marks["in_function"].loops == ()


def test_a_break_return_or_raise_after_an_event_in_the_same_block_leaves_the_iteration() -> None:
    recorder, context = record(
        """
        for x in loader:
            mark(skipped)
            if done:
                mark(last)
                break
            mark(continued)
            continue
        """
    )
    flow = context.flow
    assert flow.leaves_after(recorder.marks["last"])
    assert not flow.leaves_after(recorder.marks["skipped"])
    assert not flow.leaves_after(recorder.marks["continued"])  # `continue` stays in the loop
    assert [type(exit.node).__name__ for exit in flow.exits] == ["Break", "Continue"]


def test_a_return_inside_a_nested_function_does_not_leave_the_enclosing_block() -> None:
    recorder, context = record(
        """
        for x in loader:
            mark(here)
            def helper():
                return 1
        """
    )
    assert not context.flow.leaves_after(recorder.marks["here"])


def test_loop_facts_are_gathered_per_outermost_loop_and_handed_to_leave_loop_once() -> None:
    recorder, _ = record(
        """
        for epoch in range(3):
            mark(a)
            for x in loader:
                mark(b)
            mark(c)
        while True:
            mark(d)
        def f():
            for y in ys:
                mark(e)
        """
    )
    assert [(type(loop).__name__, labels) for loop, labels in recorder.left_loops] == [
        ("For", ["a", "b", "c"]),
        ("While", ["d"]),
        ("For", ["e"]),
    ]


def test_a_name_bound_only_in_one_branch_is_bound_conditionally_after_it() -> None:
    answers = record(
        """
        x = 1
        if c:
            y = torch.stack(xs)
            bound_conditionally(y)
        else:
            bound_conditionally(y)
        bound_conditionally(y)
        bound_conditionally(x)
        """
    )[0].answers
    assert answers == [("y", False), ("y", True), ("y", True), ("x", False)]


def test_bindings_in_loop_and_try_bodies_are_not_conditional() -> None:
    answers = record(
        """
        for item in items:
            y = item
        try:
            z = load()
        except OSError:
            pass
        bound_conditionally(y)
        bound_conditionally(z)
        bound_conditionally(item)
        """
    )[0].answers
    assert answers == [("y", False), ("z", False), ("item", False)]


def test_a_parameter_is_bound_unconditionally_inside_its_function_whatever_encloses_it() -> None:
    answers = record(
        """
        if c:
            x = 1
        def f(x):
            bound_conditionally(x)
        """
    )[0].answers
    assert answers == [("x", False)]


def test_a_name_rebound_between_two_events_is_noticed_in_every_binding_form() -> None:
    answers = record(
        """
        mark(start)
        rebound(a)
        a, b = pair
        rebound(a)
        mark(start)
        for a in items:
            pass
        rebound(a)
        mark(start)
        with open(p) as a:
            pass
        rebound(a)
        mark(start)
        a: int = 3
        rebound(a)
        mark(start)
        a += 1
        rebound(a)
        """
    )[0].answers
    assert answers == [("a", False), ("a", True), ("a", True), ("a", True), ("a", True), ("a", False)]


def test_the_statement_of_the_first_event_does_not_count_as_a_rebinding() -> None:
    context = LintContext()
    seen: list[bool] = []

    class _Alias:
        def __init__(self) -> None:
            self.alias: Event | None = None

        def leave_Assign(self, node: cst.Assign) -> None:
            if self.alias is None:
                self.alias = context.flow.event(node)

        def visit_Call(self, node: cst.Call) -> None:
            assert self.alias is not None
            seen.append(context.flow.rebound_between("b", self.alias, context.flow.event(node)))

    BatchedWalker([context, _Alias()]).walk(cst.parse_module("b = a\nwrite(b)\n"))
    assert seen == [False]


def _reached_values(source: str) -> list[str | None]:
    """For every `reaches(name)` call: the source of the value that reaches it, following
    `name = other` back through `other`'s reaching binding; None where none surely reaches."""
    context = LintContext()
    values: list[str | None] = []

    class _Reader:
        def visit_Call(self, node: cst.Call) -> None:
            if not (isinstance(node.func, cst.Name) and node.func.value == "reaches"):
                return
            argument = node.args[0].value
            assert isinstance(argument, cst.Name)
            binding = context.flow.reaching_binding(argument.value)
            while binding is not None and isinstance(binding.value, cst.Name):
                binding = context.flow.reaching_binding(binding.value.value, binding)
            values.append(None if binding is None or binding.value is None else cst.Module([]).code_for_node(binding.value))

    BatchedWalker([context, _Reader()]).walk(cst.parse_module(textwrap.dedent(source)))
    return values


def test_the_binding_that_reaches_a_point_is_followed_back_through_the_values_of_earlier_bindings() -> None:
    values = _reached_values(
        """
        a = x.t()
        b = a
        a = a.contiguous()
        reaches(b)
        reaches(a)
        """
    )
    assert values == ["x.t()", "a.contiguous()"]


def test_no_binding_reaches_when_the_last_one_may_not_have_run_or_belongs_to_an_enclosing_function() -> None:
    values = _reached_values(
        """
        a = x.t()
        if c:
            a = a.contiguous()
        reaches(a)
        if c:
            b = y.t()
            reaches(b)
        def f():
            reaches(a)
        """
    )
    assert values == [None, "y.t()", None]
