"""Framework idioms (lint/idioms.py): an Accelerator, a Fabric, a DeepSpeed engine or a
Lightning module's ``self`` backpropagates, wraps, autocasts and starts process groups, and
the model knows it from the call that made the object, never from its name. A Lightning
module's ``training_step`` is one iteration of the framework's training loop."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from tests.rules.examples import findings
from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Evidence, Kind
from torchcheck.lint.nodes import source_text
from torchcheck.lint.registry import all_rules
from torchcheck.lint.walker import BatchedWalker


class _Calls:
    """Records, at each call of the walk, what the context says about it."""

    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.subjects: dict[str, str | None] = {}
        self.kinds: dict[str, tuple[Kind | None, Evidence | None]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        subject = self.context.backward_subject(node)
        self.subjects[source_text(node)] = source_text(subject) if subject is not None else None
        for argument in node.args:
            self.kinds[source_text(argument.value)] = tuple(self.context.kind_and_evidence(argument.value))


def _walk(code: str) -> _Calls:
    context = LintContext()
    calls = _Calls(context)
    BatchedWalker([context, calls]).walk(cst.parse_module(textwrap.dedent(code)))
    return calls


def test_an_accelerator_backpropagates_its_argument() -> None:
    calls = _walk(
        """
        from accelerate import Accelerator
        accelerator = Accelerator()
        accelerator.backward(loss)
        """
    )
    assert calls.subjects["accelerator.backward(loss)"] == "loss"


def test_an_object_named_accelerator_but_made_elsewhere_is_no_framework() -> None:
    calls = _walk(
        """
        from mylib import Booster
        accelerator = Booster()
        accelerator.backward(loss)
        """
    )
    # a method called backward on an unknown object: that object is what is backpropagated
    assert calls.subjects["accelerator.backward(loss)"] == "accelerator"


def test_a_lightning_module_backpropagates_through_manual_backward() -> None:
    calls = _walk(
        """
        import lightning as L
        class Lit(L.LightningModule):
            def training_step(self, batch, index):
                loss = self.net(batch).sum()
                self.manual_backward(loss)
        class Plain:
            def step(self, loss):
                self.manual_backward(loss)
        """
    )
    assert calls.subjects["self.manual_backward(loss)"] is None  # the last one seen: Plain's
    lit = _walk(
        """
        import pytorch_lightning as pl
        class Lit(pl.LightningModule):
            def training_step(self, batch, index):
                self.manual_backward(loss)
        """
    )
    assert lit.subjects["self.manual_backward(loss)"] == "loss"


def test_prepare_and_unwrap_return_what_they_were_given() -> None:
    calls = _walk(
        """
        import torch
        from accelerate import Accelerator
        accelerator = Accelerator()
        net = torch.nn.Linear(2, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        wrapped, optimizer = accelerator.prepare(net, opt)
        print(wrapped, optimizer, accelerator.unwrap_model(wrapped))
        """
    )
    assert calls.kinds["wrapped"] == (Kind.MODULE, Evidence.STRONG)
    assert calls.kinds["optimizer"] == (Kind.OPTIMIZER, Evidence.STRONG)
    assert calls.kinds["accelerator.unwrap_model(wrapped)"] == (Kind.MODULE, Evidence.STRONG)


def test_a_deepspeed_engine_is_the_first_item_of_initialize() -> None:
    calls = _walk(
        """
        import deepspeed
        engine, optimizer, _, _ = deepspeed.initialize(model=net, model_parameters=params)
        engine.backward(loss)
        """
    )
    assert calls.subjects["engine.backward(loss)"] == "loss"


ACCELERATE_SAVE = """
    import torch
    from accelerate import Accelerator

    accelerator = Accelerator()

    def train(model, optimizer, loader):
        model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
        for x, y in loader:
            optimizer.zero_grad()
            accelerator.backward(model(x, y))
            optimizer.step()
        {save}
"""


def test_a_save_in_an_accelerate_script_runs_on_every_rank() -> None:
    assert (13, "TCK208") in findings(ACCELERATE_SAVE.format(save='torch.save(model.state_dict(), "m.pt")'), all_rules())


@pytest.mark.parametrize(
    "save",
    [
        'if accelerator.is_main_process:\n            torch.save(model.state_dict(), "m.pt")',
        'accelerator.save(model.state_dict(), "m.pt")',
    ],
)
def test_a_save_limited_to_the_main_process_is_not_reported(save: str) -> None:
    assert "TCK208" not in {code for _, code in findings(ACCELERATE_SAVE.format(save=save), all_rules())}


def test_backward_inside_the_accelerators_autocast_is_reported() -> None:
    code = """
        import torch
        from accelerate import Accelerator
        accelerator = Accelerator()
        def step(model, x):
            with accelerator.autocast():
                loss = model(x).sum()
                loss.backward()
    """
    assert (8, "TCK302") in findings(code, all_rules())


def test_a_fabric_made_for_one_device_starts_no_process_group() -> None:
    code = """
        import torch
        import lightning as L

        def merge(model, path):
            fabric = L.Fabric(devices={devices}, accelerator="cpu")
            model = fabric.setup(model)
            torch.save(model.state_dict(), path)
    """
    assert "TCK208" not in {code for _, code in findings(code.replace("{devices}", "1"), all_rules())}
    assert (8, "TCK208") in findings(code.replace("{devices}", "4"), all_rules())


LIGHTNING_STEP = """
import pytorch_lightning as pl


class Module(pl.LightningModule):
    def __init__(self, net, every):
        super().__init__()
        self.net = net
        self.every = every
        self.history = []
        self.automatic_optimization = False

    def {method}(self, batch, batch_idx):
        optimizer = self.optimizers()
        loss = self.net(batch).mean()
        self.manual_backward(loss / self.every)
        if (batch_idx + 1) % self.every == 0:
            optimizer.step()
        optimizer.zero_grad()
        self.history.append(loss)
"""


def test_a_lightning_training_step_is_one_iteration_of_the_frameworks_loop() -> None:
    found = findings(LIGHTNING_STEP.format(method="training_step"), all_rules())
    assert (19, "TCK111") in found  # zero_grad on every batch, step every `every` batches
    assert (20, "TCK101") in found  # the loss, with its graph, kept across batches


def test_another_method_of_a_lightning_module_is_no_iteration() -> None:
    found = {code for _, code in findings(LIGHTNING_STEP.format(method="shared_step"), all_rules())}
    assert not found & {"TCK111", "TCK101"}


HANDED_ACCELERATOR = """
import torch
from accelerate import Accelerator


def train(accelerator, model, loader):
    for batch in loader:
        with torch.no_grad():
            loss = model(batch).mean()
            accelerator.backward(loss)


def main(model, loader):
    accelerator = Accelerator()
    train(accelerator, model, loader)
"""


def test_a_framework_object_passed_by_every_caller_is_known_in_the_function() -> None:
    assert (10, "TCK109") in findings(HANDED_ACCELERATOR, all_rules())
    unknown = HANDED_ACCELERATOR.replace("    train(accelerator, model, loader)", "    train(accelerator, model, loader)\n    train(other, model, loader)")
    assert "TCK109" not in {code for _, code in findings(unknown, all_rules())}
