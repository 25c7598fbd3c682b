"""A read of ``self.<attr>`` inside the value assigned to it reads what was there before."""

from __future__ import annotations

import textwrap

from torchcheck.lint.catalogue import rule_infos
from torchcheck.lint.engine import lint_source
from torchcheck.lint.registry import rules_by_code


def _codes(source: str, codes: tuple[str, ...] = ("TCK704", "TCK201")) -> list[str]:
    result = lint_source(textwrap.dedent(source).encode(), "data.py", rules_by_code(codes))
    return [diagnostic.code for diagnostic in result.diagnostics]


def test_the_assignment_that_reads_the_attribute_does_not_tell_its_kind() -> None:
    source = """
    import torch
    from ogb.graphproppred import GraphPropPredDataset

    class Extension(GraphPropPredDataset):
        def __init__(self, name):
            super().__init__(name=name)
            self.labels = torch.tensor(self.labels)
    """
    assert _codes(source) == []


def test_another_assignment_still_tells_it() -> None:
    source = """
    import torch

    class Holder:
        def reset(self):
            self.labels = torch.zeros(3)

        def copy(self):
            self.labels = torch.tensor(self.labels)
    """
    assert _codes(source) == ["TCK704"]


def test_attributes_built_from_each_other_end() -> None:
    source = """
    import torch

    class Frames:
        def __init__(self):
            self.feat = None

        def load(self, parts):
            self.feat = concat(parts)

        def reindex(self, n):
            self.feat = self.feat.reindex(range(n))

        def keep(self, users):
            self.feat = self.feat[self.feat["user"].isin(users)]

        def to_tensors(self):
            self.feat = Frame.from_frame(self.feat, self)
            return torch.tensor(self.feat.values)
    """
    default = tuple(rule.code for rule in rule_infos() if rule.default_enabled)
    assert "TCK000" not in _codes(source, default)


def test_reads_among_assignments_that_read_the_attribute_end() -> None:
    import libcst as cst

    from torchcheck.lint.context import LintContext
    from torchcheck.lint.walker import BatchedWalker

    source = textwrap.dedent(
        """
        class Frames:
            def reindex(self, n):
                self.feat = self.feat.reindex(range(n))

            def keep(self, users):
                self.feat = self.feat[self.feat["user"].isin(users)]
        """
    )
    module = cst.parse_module(source)
    context = LintContext()
    reads: list[cst.Attribute] = []

    class Reads:
        def visit_Attribute(self, node: cst.Attribute) -> None:
            if isinstance(node.value, cst.Name) and node.value.value == "self":
                reads.append(node)

    BatchedWalker([context, Reads()]).walk(module)
    assert all(context.kind_elsewhere(read).kind is None for read in reads)  # nothing shows a kind, and the question ends
