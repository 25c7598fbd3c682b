"""The shared inference: names through import aliases, kinds of values, ambiguity."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Kind
from torchcheck.lint.walker import BatchedWalker


class _Probe:
    """Records what the context says about every `probe(expr)` call's argument."""

    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.seen: list[tuple[str | None, Kind | None]] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            argument = node.args[0].value
            self.seen.append((self.context.qualified_name(argument), self.context.kind_of(argument)))


def probe(source: str) -> list[tuple[str | None, Kind | None]]:
    context = LintContext()
    recorder = _Probe(context)
    BatchedWalker([context, recorder]).walk(cst.parse_module(textwrap.dedent(source)))
    return recorder.seen


def test_import_aliases_resolve_to_qualified_names() -> None:
    seen = probe(
        """
        import torch as T
        from torch import load
        import torch.nn.functional as F
        probe(T.load); probe(load); probe(F.dropout)
        """
    )
    assert [name for name, _ in seen] == ["torch.load", "torch.load", "torch.nn.functional.dropout"]


def test_a_name_imported_from_two_places_is_ambiguous() -> None:
    seen = probe(
        """
        try:
            from torch import vmap
        except ImportError:
            from functorch import vmap
        probe(vmap)
        """
    )
    assert seen == [(None, None)]


def test_kinds_come_from_constructors_calls_and_conventions() -> None:
    seen = probe(
        """
        import torch
        from torch import nn
        class Net(nn.Module):
            def forward(self, x):
                probe(self)
        net = Net()
        opt = torch.optim.Adam(net.parameters())
        x = torch.zeros(3)
        out = net(x)
        with torch.no_grad():
            frozen = net(x)
        probe(net); probe(opt); probe(x); probe(out); probe(frozen); probe(out.item()); probe(scheduler)
        """
    )
    assert [kind for _, kind in seen] == [
        Kind.MODULE, Kind.MODULE, Kind.OPTIMIZER, Kind.TENSOR, Kind.GRAPH_TENSOR, Kind.TENSOR, Kind.NUMBER, Kind.SCHEDULER,
    ]


def test_classes_deriving_from_another_frameworks_module_are_not_torch_modules() -> None:
    seen = probe(
        """
        import flax.linen as nn
        class Dense(nn.Module):
            pass
        probe(Dense())
        """
    )
    assert seen == [(None, None)]


def test_a_name_bound_to_something_unknown_is_unknown_unless_its_name_is_conventional() -> None:
    seen = probe(
        """
        model = build(config)
        thing = build(config)
        model_name = "resnet"
        probe(model); probe(thing); probe(model_name)
        """
    )
    assert [kind for _, kind in seen] == [Kind.MODULE, None, Kind.OTHER]


def test_enable_grad_inside_no_grad_turns_gradients_back_on() -> None:
    seen = probe(
        """
        import torch
        net = torch.nn.Linear(2, 2)
        with torch.no_grad():
            probe(net(x))
            with torch.enable_grad():
                probe(net(x))
            with torch.inference_mode(False):
                probe(net(x))
            with torch.set_grad_enabled(True):
                probe(net(x))
            with torch.set_grad_enabled(flag):
                probe(net(x))
            probe(net(x))
        with torch.inference_mode(mode=flag):
            probe(net(x))

        @torch.no_grad()
        @torch.enable_grad()
        def adapt(x):
            probe(net(x))

        @torch.enable_grad()
        @torch.inference_mode
        def frozen(x):
            probe(net(x))
        """
    )
    assert [kind for _, kind in seen] == [
        Kind.TENSOR, Kind.GRAPH_TENSOR, Kind.GRAPH_TENSOR, Kind.GRAPH_TENSOR, None, Kind.TENSOR, None,
        Kind.GRAPH_TENSOR, Kind.TENSOR,
    ]
