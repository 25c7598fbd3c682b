"""Whether a tensor expression puts its tensor on a device (lint/placement.py)."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.placement import KEEPS, device_left, placed_on_device
from torchcheck.lint.walker import BatchedWalker


class _Probe:
    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.seen: list[bool] = []

        self.left: list[str | None] = []

    def visit_Expr(self, node: cst.Expr) -> None:
        self.seen.append(placed_on_device(self.context, node.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        self.left.append(device_left(self.context, node.value, node.targets[0].target.value))  # type: ignore[attr-defined]


def _probe(source: str) -> _Probe:
    context = LintContext()
    probe = _Probe(context)
    BatchedWalker([context, probe]).walk(cst.parse_module(textwrap.dedent(source)))
    return probe


def placed(source: str) -> list[bool]:
    return _probe(source).seen


def test_a_device_argument_a_cuda_call_or_a_move_places_the_tensor_along_its_chain() -> None:
    assert placed("""
        import torch
        torch.ones(3, device=device)
        torch.ones(3).float().cuda()
        torch.ones(3).to(device) * 2
        torch.tril(torch.ones(3, 3).to(other=x))[None]
        torch.ones(3, device=device) if bias else None
    """) == [True, True, True, True, True]


def test_the_cpu_a_dtype_cast_or_no_device_leave_the_tensor_unplaced() -> None:
    assert placed("""
        import torch
        torch.ones(3, device="cpu")
        torch.ones(3).to(torch.float16)
        torch.ones(3).to("cpu")
        torch.ones(3, device=None)
        torch.ones(3, device=device) if bias else torch.zeros(3)
    """) == [False, False, False, False, False]


def test_where_an_assignment_leaves_a_tensor_is_the_device_its_last_move_names() -> None:
    assert _probe("""
        import torch
        a = torch.tensor(data, device=device)
        b = old.float().to(self.device)
        c = c.to(torch.float16)
        d = d.to(unknown)
        e = make().cuda(1)
        f = f.type(torch.cuda.FloatTensor)
        g = old.cpu().to(torch.float16)
    """).left == ["device", "self.device", KEEPS, KEEPS, "'cuda:1'", None, "'cpu'"]
