"""Findings of the training-loop rules that span two statements name the other one."""

from __future__ import annotations

import textwrap

from torchcheck.lint.engine import lint_source
from torchcheck.lint.registry import rules_by_code


def messages(source: str, code: str) -> list[tuple[int, str]]:
    result = lint_source(textwrap.dedent(source).encode(), "train.py", rules_by_code([code]))
    return [(diagnostic.location.row, diagnostic.message) for diagnostic in result.diagnostics]


def test_forced_requires_grad_names_the_backward_it_fakes() -> None:
    found = messages(
        """
        import torch

        with torch.no_grad():
            logits = model(images)
        loss = criterion(logits, labels)
        loss.requires_grad = True
        loss.backward()
        """,
        "TCK112",
    )
    assert found == [
        (
            7,
            "`loss.requires_grad = True` silences the missing-graph error instead of fixing it: `loss` without "
            "a graph becomes a leaf, and `loss.backward()` at line 8 gives no parameter a gradient",
        )
    ]


def test_forced_requires_grad_is_followed_through_a_value_derived_from_it() -> None:
    found = messages(
        """
        def step(loss, scaler, accumulation_steps):
            loss.requires_grad = True
            loss = loss / accumulation_steps
            scaler.scale(loss).backward()
        """,
        "TCK112",
    )
    assert [row for row, _ in found] == [3]
    assert "`scaler.scale(loss).backward()` at line 5" in found[0][1]


def test_requires_grad_method_is_reported_only_where_the_graph_was_visibly_cut() -> None:
    source = """
        import torch

        def step(model, images, labels, optimizer):
            {logits}
            loss = criterion(logits, labels)
            loss.requires_grad_()
            loss.backward()
            optimizer.step()
        """
    cut = messages(source.format(logits="logits = model(images).detach()"), "TCK112")
    assert [row for row, _ in cut] == [7]
    assert messages(source.format(logits="logits = model(images)"), "TCK112") == []  # a no-op on a graph


def test_forced_requires_grad_on_a_name_bound_again_before_the_backward_is_not_reported() -> None:
    assert messages(
        """
        loss = criterion(logits.detach(), labels)
        loss.requires_grad = True
        loss = criterion(model(images), labels)
        loss.backward()
        """,
        "TCK112",
    ) == []


def test_zero_grad_every_micro_batch_names_the_gated_step_and_its_condition() -> None:
    found = messages(
        """
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            (criterion(model(x), y) / accumulation_steps).backward()
            if (i + 1) % accumulation_steps == 0:
                optimizer.step()
        """,
        "TCK111",
    )
    assert found == [
        (
            3,
            "`optimizer.zero_grad()` clears the gradients on every micro-batch, but `optimizer.step()` runs only "
            "when `(i + 1) % accumulation_steps == 0` (line 6): the step sees only the last micro-batch's gradients",
        )
    ]


def test_zero_grad_done_by_a_helper_on_every_micro_batch_names_the_helper_body() -> None:
    found = messages(
        """
        def clear(opt):
            opt.zero_grad()

        for i, (x, y) in enumerate(loader):
            criterion(model(x), y).backward()
            if (i + 1) % 8 == 0:
                optimizer.step()
            clear(optimizer)
        """,
        "TCK111",
    )
    assert [row for row, _ in found] == [9]
    assert found[0][1].startswith("`clear(optimizer)` (which calls `opt.zero_grad()` in `clear()` at line 3)")



def test_evaluation_loop_without_no_grad_names_the_eval_switch() -> None:
    found = messages(
        """
        def validate(model, loader):
            model.eval()
            scores = []
            for x, y in loader:
                scores.append(criterion(model(x), y).item())
            return scores
        """,
        "TCK113",
    )
    assert found == [
        (
            5,
            "Evaluation loop runs `model` (switched to `eval()` at line 3) without `torch.no_grad()`: "
            "every forward pass records an autograd graph that is never used",
        )
    ]


def test_evaluation_loop_run_by_a_caller_under_no_grad_is_not_reported() -> None:
    assert messages(
        """
        import torch

        def collect(model, loader):
            model.eval()
            outputs = []
            for x in loader:
                outputs.append(model(x))
            return outputs

        def main(model, loader):
            with torch.no_grad():
                collect(model, loader)
        """,
        "TCK113",
    ) == []
