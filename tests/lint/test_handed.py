"""lint/handed: which value of the followed kinds a call hands to a helper of another file."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.exports import ProjectFacts
from torchcheck.lint.handed import handed_to_imported_helper
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import source_text
from torchcheck.lint.walker import BatchedWalker

CODE = """
    import torch
    from engine import train_one_epoch

    def local_helper(optimizer):
        pass

    model = torch.nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_one_epoch(loader, model, optimizer)
    train_one_epoch(loader)
    local_helper(optimizer)
"""


class _Calls:
    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.handed: dict[str, tuple[str, str, Kind] | None] = {}

    def visit_Call(self, node: cst.Call) -> None:
        found = handed_to_imported_helper(self.context, node, (Kind.OPTIMIZER, Kind.MODULE))
        self.handed[source_text(node)] = (found[0].name, found[1], found[2]) if found is not None else None


def _handed() -> dict[str, tuple[str, str, Kind] | None]:
    code = textwrap.dedent(CODE)
    context = LintContext(None, code)
    context.project = ProjectFacts(context, code)
    calls = _Calls(context)
    BatchedWalker([context, context.project, calls]).walk(cst.parse_module(code))
    return calls.handed


def test_the_first_argument_of_a_followed_kind_is_handed_to_the_imported_helper() -> None:
    assert _handed()["train_one_epoch(loader, model, optimizer)"] == ("train_one_epoch", "model", Kind.MODULE)


def test_nothing_is_handed_without_such_an_argument_or_to_a_def_of_this_file() -> None:
    handed = _handed()
    assert handed["train_one_epoch(loader)"] is None
    assert handed["local_helper(optimizer)"] is None
