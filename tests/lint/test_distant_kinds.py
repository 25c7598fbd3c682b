"""Kinds that arrive from elsewhere in the file (lint/distant.py): a parameter from every call
of its function, ``self.<attribute>`` from every assignment in the class."""

from __future__ import annotations

import gc
import textwrap
import weakref

import libcst as cst

from tests.lint.test_context_evidence import probe
from tests.rules.examples import expected_findings, findings
from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import UNKNOWN, Evidence, Inferred, Kind
from torchcheck.lint.registry import rules_by_code
from torchcheck.lint.walker import BatchedWalker

CALLERS = Evidence.CALLERS


def test_a_parameter_holds_what_every_caller_passes() -> None:
    seen = probe(
        """
        import torch
        def run(body, helper, steps):
            probe(body); probe(helper); probe(steps)
        def main():
            s = torch.amp.GradScaler("cuda")
            run(torch.nn.Linear(2, 2), s, 3)
            run(torch.nn.Conv1d(2, 2, 1), helper=torch.amp.GradScaler("cuda"), steps=4)
        """
    )
    assert seen == [Inferred(Kind.MODULE, CALLERS), Inferred(Kind.SCALER, CALLERS), Inferred(Kind.NUMBER, CALLERS)]


def test_a_base_constructor_parameter_holds_what_its_subclasses_pass_it() -> None:
    seen = probe(
        """
        import torch.nn as nn
        class Wrapper(nn.Module):
            def __init__(self, inner, bits):
                super().__init__()
                probe(inner); probe(bits)
        class LinearWrapper(Wrapper):
            def __init__(self, features):
                super().__init__(nn.Linear(features, features), 8)
        class ConvWrapper(Wrapper):
            def __init__(self, channels):
                Wrapper.__init__(self, nn.Conv2d(channels, channels, 3), 4)
        class Plain(ConvWrapper):
            pass
        Wrapper(nn.GRU(2, 2), 2)
        """
    )
    assert seen == [Inferred(Kind.MODULE, CALLERS), Inferred(Kind.NUMBER, CALLERS)]


def test_a_subclass_that_hides_what_it_passes_its_base_types_nothing() -> None:
    seen = probe(
        """
        import torch.nn as nn
        class Wrapper(nn.Module):
            def __init__(self, inner):
                super().__init__()
                probe(inner)
        class Other(nn.Module):
            def __init__(self, inner):
                super().__init__()
                probe(inner)
        class Passing(Wrapper):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
        class Mixed(Mixin, Other):
            def __init__(self):
                super().__init__(nn.Linear(2, 2))
        Wrapper(nn.Linear(2, 2))
        Other(nn.Linear(2, 2))
        """
    )
    assert seen == [UNKNOWN, UNKNOWN]


def test_an_isinstance_test_around_a_call_narrows_what_it_passes() -> None:
    seen = probe(
        """
        import torch.nn as nn
        class Wrapper(nn.Module):
            def __init__(self, inner):
                super().__init__()
                probe(inner)
        def wrap(layer, replaced):
            if isinstance(layer, (nn.Conv2d, nn.Linear)):
                return Wrapper(layer)
            if not isinstance(replaced, nn.Linear):
                raise TypeError("only linear layers")
            return Wrapper(replaced)
        def unchecked(layer):
            return Other(layer)
        class Other(nn.Module):
            def __init__(self, inner):
                super().__init__()
                probe(inner)
        """
    )
    assert seen == [Inferred(Kind.MODULE, CALLERS), UNKNOWN]


def test_a_static_method_named_on_the_class_hides_no_construction_a_classmethod_may() -> None:
    seen = probe(
        """
        import torch.nn as nn
        class Codec(nn.Module):
            def __init__(self, quantizer):
                super().__init__()
                probe(quantizer)
            @staticmethod
            def build(bins):
                return Codec(nn.Embedding(bins, 8))
        class Other(nn.Module):
            def __init__(self, quantizer):
                super().__init__()
                probe(quantizer)
            @classmethod
            def build(cls, bins):
                return cls("not a module")
        codec = Codec.build(1024)
        other = Other(nn.Embedding(4, 8))
        another = Other.build(4)
        """
    )
    assert seen == [Inferred(Kind.MODULE, CALLERS), UNKNOWN]


def test_callers_that_disagree_or_hide_their_arguments_type_nothing() -> None:
    seen = probe(
        """
        import torch
        def run(thing):
            probe(thing)
        def spread(thing):
            probe(thing)
        run(torch.nn.Linear(2, 2))
        run("linear")
        spread(*[torch.nn.Linear(2, 2)])
        """
    )
    assert seen == [UNKNOWN, UNKNOWN]


def test_a_function_handed_on_as_a_callback_has_callers_out_of_sight() -> None:
    seen = probe(
        """
        import torch
        def run(thing):
            probe(thing)
        run(torch.nn.Linear(2, 2))
        hooks.append(run)
        """
    )
    assert seen == [UNKNOWN]


def test_an_annotation_or_a_conventional_name_is_kept_whatever_the_callers_pass() -> None:
    seen = probe(
        """
        import torch
        def run(features: torch.Tensor, model):
            probe(features); probe(model)
        run(torch.nn.Linear(2, 2), "resnet")
        """
    )
    assert seen == [Inferred(Kind.TENSOR, Evidence.ANNOTATION), Inferred(Kind.MODULE, Evidence.CONVENTION)]


def test_constructor_parameters_come_from_the_class_calls_and_reach_attributes() -> None:
    seen = probe(
        """
        import torch
        class Trainer:
            def __init__(self, body, amp_helper):
                self.body = body
                self.amp_helper = amp_helper
            def fit(self):
                probe(self.body); probe(self.amp_helper)
        Trainer(torch.nn.Linear(2, 2), torch.amp.GradScaler("cuda")).fit()
        """
    )
    assert seen == [Inferred(Kind.MODULE, CALLERS), Inferred(Kind.SCALER, CALLERS)]


def test_method_parameters_come_from_calls_through_self_unless_the_method_is_handed_on() -> None:
    seen = probe(
        """
        import torch
        class Loop:
            def step(self, amp_helper):
                probe(amp_helper)
            def other(self, amp_helper):
                probe(amp_helper)
            def run(self):
                self.step(torch.amp.GradScaler("cuda"))
                self.other(torch.amp.GradScaler("cuda"))
                callbacks.append(self.other)
        """
    )
    assert seen == [Inferred(Kind.SCALER, CALLERS), UNKNOWN]


def test_an_attribute_set_in_a_later_method_has_the_kind_every_assignment_agrees_on() -> None:
    seen = probe(
        """
        import torch
        class Trainer:
            def fit(self):
                probe(self.amp_helper); probe(self.mixed)
            def setup(self):
                self.amp_helper = None
                self.amp_helper = torch.amp.GradScaler("cuda")
                self.mixed = torch.nn.Linear(2, 2)
            def reset(self):
                self.mixed = torch.zeros(3)
        """
    )
    assert seen == [Inferred(Kind.SCALER, CALLERS), UNKNOWN]


def test_recursion_between_parameters_ends_unknown() -> None:
    seen = probe(
        """
        def ping(thing):
            probe(thing)
            pong(thing)
        def pong(thing):
            ping(thing)
        """
    )
    assert seen == [UNKNOWN]


def test_rules_see_a_scaler_passed_by_the_caller_and_one_made_in_a_later_method() -> None:
    source = """
    import torch

    def train_one_epoch(net, data, opt, amp_helper):
        for x, y in data:
            with torch.autocast("cuda"):
                loss = net(x).sum()
            amp_helper.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)  # TCK305
            amp_helper.step(opt)
            amp_helper.update()
            opt.zero_grad()

    class Trainer:
        def fit(self):
            for x, y in self.loader:
                with torch.autocast("cuda"):
                    loss = self.net(x).sum()
                self.grad_helper.scale(loss).backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)  # TCK305
                self.grad_helper.step(self.opt)
                self.grad_helper.update()
                self.opt.zero_grad()

        def setup(self):
            self.grad_helper = torch.amp.GradScaler("cuda")

    def main():
        train_one_epoch(model, loader, optimizer, torch.amp.GradScaler("cuda"))
    """
    assert findings(source, rules_by_code(["TCK305"])) == expected_findings(textwrap.dedent(source))


def test_the_answers_keep_no_reference_cycle_to_the_files_tree() -> None:
    module = cst.parse_module("import torch\ndef run(helper):\n    probe(helper)\nrun(torch.amp.GradScaler('cuda'))\n")
    context = LintContext()

    class Ask:
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value == "probe":
                context.kind_of(node.args[0].value)

    BatchedWalker([context, Ask()]).walk(module)
    gone = weakref.ref(context)
    gc.disable()
    try:
        del context
        assert gone() is None
    finally:
        gc.enable()
