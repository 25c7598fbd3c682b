"""TCK108, TCK109 and TCK705 across statements: the mistake and its cause sit in different
statements of one function. Each reported snippet is run with PyTorch to show it really fails
(or silently misbehaves) on the CPU, and its corrected lookalike lints clean and works."""

from __future__ import annotations

import textwrap

import pytest

from torchcheck.lint.engine import lint_source
from torchcheck.lint.registry import rules_by_code

torch = pytest.importorskip("torch")


def _findings(source: str, code: str) -> list[tuple[int, str]]:
    result = lint_source(textwrap.dedent(source).encode(), "example.py", rules_by_code([code]))
    return [(diagnostic.location.row, diagnostic.message) for diagnostic in result.diagnostics]


def _run(source: str) -> dict[str, object]:
    namespace: dict[str, object] = {}
    exec(compile(textwrap.dedent(source), "example.py", "exec"), namespace)  # noqa: S102 - test snippets
    return namespace


# ---------------------------------------------------------------- TCK109 backward-under-no-grad
LOSS_COMPUTED_UNDER_NO_GRAD = """
import torch

student, teacher = torch.nn.Linear(4, 3), torch.nn.Linear(4, 3)
x = torch.randn(8, 4)
with torch.no_grad():
    soft_targets = teacher(x).softmax(-1)
    loss = -(soft_targets * student(x).log_softmax(-1)).sum(-1).mean()
loss.backward()
"""
LOSS_COMPUTED_AFTER_NO_GRAD = """
import torch

student, teacher = torch.nn.Linear(4, 3), torch.nn.Linear(4, 3)
x = torch.randn(8, 4)
with torch.no_grad():
    soft_targets = teacher(x).softmax(-1)
loss = -(soft_targets * student(x).log_softmax(-1)).sum(-1).mean()
loss.backward()
"""


def test_backward_after_the_no_grad_block_is_reported_naming_where_the_loss_was_computed_and_raises() -> None:
    assert _findings(LOSS_COMPUTED_UNDER_NO_GRAD, "TCK109") == [
        (9, "Backward pass from `loss`, computed under `no_grad()`/`inference_mode()` at line 8: it has no graph, so this raises")
    ]
    with pytest.raises(RuntimeError, match="does not require grad"):
        _run(LOSS_COMPUTED_UNDER_NO_GRAD)


def test_a_loss_re_bound_after_the_no_grad_block_is_silent_and_backpropagates() -> None:
    assert _findings(LOSS_COMPUTED_AFTER_NO_GRAD, "TCK109") == []
    student = _run(LOSS_COMPUTED_AFTER_NO_GRAD)["student"]
    assert student.weight.grad is not None  # type: ignore[attr-defined]


# ---------------------------------------------------------------- TCK108 requires-grad-lost-by-transfer
LEAF_RE_BOUND_TO_A_COPY = """
import torch

scale = torch.ones(3, requires_grad=True)
scale = scale.double()
(scale * torch.arange(3.0, dtype=torch.float64)).sum().backward()
gradient = scale.grad
"""
COPY_MADE_A_LEAF = """
import torch

scale = torch.ones(3)
scale = scale.double().requires_grad_()
(scale * torch.arange(3.0, dtype=torch.float64)).sum().backward()
gradient = scale.grad
"""

REQUIRES_GRAD_ON_THE_COPY = """
import torch

scale = torch.ones(3, requires_grad=True)
scale = scale.double().requires_grad_()
(scale * torch.arange(3.0, dtype=torch.float64)).sum().backward()
gradient = scale.grad
"""


def test_a_leaf_re_bound_to_a_cast_copy_is_reported_naming_the_leaf_and_its_grad_stays_none() -> None:
    assert _findings(LEAF_RE_BOUND_TO_A_COPY, "TCK108") == [
        (
            5,
            "`scale` was made a tensor that requires grad at line 4; re-binding it to a moved or cast copy "
            "leaves a non-leaf whose `.grad` stays `None`",
        )
    ]
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert _run(LEAF_RE_BOUND_TO_A_COPY)["gradient"] is None


def test_requires_grad_on_a_copy_of_a_leaf_is_still_reported_since_the_copy_is_no_leaf() -> None:
    assert [row for row, _ in _findings(REQUIRES_GRAD_ON_THE_COPY, "TCK108")] == [5]
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert _run(REQUIRES_GRAD_ON_THE_COPY)["gradient"] is None


def test_a_copy_made_the_leaf_after_the_cast_is_silent_and_gets_its_gradient() -> None:
    assert _findings(COPY_MADE_A_LEAF, "TCK108") == []
    gradient = _run(COPY_MADE_A_LEAF)["gradient"]
    assert gradient.tolist() == [0.0, 1.0, 2.0]  # type: ignore[attr-defined]


# ---------------------------------------------------------------- TCK705 view-after-transpose
SCALED_AFTER_TRANSPOSE = """
import torch

attn = torch.randn(2, 4, 5, 8)  # (batch, heads, tokens, head_dim)
context = attn.transpose(1, 2)
context = context * 0.125
merged = context.view(2, 5, -1)
"""
SOFTMAX_AFTER_TRANSPOSE = """
import torch

attn = torch.randn(2, 4, 5, 8)
context = attn.transpose(1, 2)
probabilities = context.softmax(-1)
merged = probabilities.view(2, 5, -1)
"""
CLONE_AFTER_TRANSPOSE = """
import torch

attn = torch.randn(2, 4, 5, 8)
context = attn.transpose(1, 2)
copy = context.clone()
merged = copy.view(2, 5, -1)
"""


def test_a_view_of_a_transposed_value_scaled_in_an_earlier_statement_is_reported_and_raises() -> None:
    assert [line for line, _ in _findings(SCALED_AFTER_TRANSPOSE, "TCK705")] == [7]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        _run(SCALED_AFTER_TRANSPOSE)


def test_a_clone_keeps_the_transposed_strides_so_its_view_is_reported_and_raises() -> None:
    assert [line for line, _ in _findings(CLONE_AFTER_TRANSPOSE, "TCK705")] == [7]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        _run(CLONE_AFTER_TRANSPOSE)


def test_a_softmax_in_between_returns_a_contiguous_tensor_so_the_view_is_silent_and_works() -> None:
    assert _findings(SOFTMAX_AFTER_TRANSPOSE, "TCK705") == []
    assert _run(SOFTMAX_AFTER_TRANSPOSE)["merged"].shape == (2, 5, 32)  # type: ignore[attr-defined]
