"""What a call registers in a module under a name (lint/registration.py)."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import source_text
from torchcheck.lint.registration import registered_values, registering_parameters
from torchcheck.lint.walker import BatchedWalker


class _Probe:
    """Records what each expression statement's call registers, ``self`` being the instance."""

    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.seen: list[list[str]] = []

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call):
            values = registered_values(self.context, node.value, "self", registering_parameters)
            self.seen.append([source_text(value) for value in values])


def registered(source: str) -> list[list[str]]:
    context = LintContext()
    probe = _Probe(context)
    BatchedWalker([context, probe]).walk(cst.parse_module(textwrap.dedent(source)))
    return probe.seen


def test_add_module_setattr_and_set_submodule_register_what_they_are_given() -> None:
    seen = registered("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, net, head):
                super().__init__()
                layer = nn.Linear(2, 2)
                self.add_module("a", layer)
                setattr(self, "b", layer)
                net.set_submodule("c.d", layer)
                self.register_parameter("e", head.parameters())
    """)
    assert seen[1:] == [['"a"', "layer"], ["self", '"b"', "layer"], ['"c.d"', "layer"], ['"e"', "head"]]


def test_a_helper_of_the_file_registers_the_arguments_it_installs() -> None:
    seen = registered("""
        import torch.nn as nn
        def install(model, path, module):
            *parents, name = path.split(".")
            setattr(model.get_submodule(".".join(parents)), name, module)
        class Net(nn.Module):
            def _keep(self, name, parameters):
                for index, parameter in enumerate(parameters):
                    self.register_parameter(f"{name}{index}", parameter)
            def __init__(self, net):
                super().__init__()
                install(net, "encoder.proj", wrapper)
                self._keep("scale", scales)
    """)
    assert seen[-2:] == [["wrapper"], ["self", '"scale"', "scales"]]


def test_reading_a_module_or_registering_on_another_object_registers_nothing() -> None:
    seen = registered("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, other):
                super().__init__()
                other.add_module("a", layer)
                print(layer)
                self.layers.append(layer)
    """)
    assert seen[1:] == [[], [], []]
