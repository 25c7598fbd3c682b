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
            loss.requires_grad_()
            loss = loss / accumulation_steps
            scaler.scale(loss).backward()
        """,
        "TCK112",
    )
    assert [row for row, _ in found] == [3]
    assert "`scaler.scale(loss).backward()` at line 5" in found[0][1]


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
