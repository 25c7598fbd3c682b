"""A loss function that reaches a call only through its name: a parameter called `loss`, a
trainer's `self.loss_func`, a list of losses indexed (`yolo_losses[i]`). Its result is a loss
by convention: in the graph unless gradients are off."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.engine import lint_source
from torchcheck.lint.kinds import Evidence, Inferred, Kind, called_as_loss
from torchcheck.lint.walker import BatchedWalker
from torchcheck.rules.modules.tensor_attribute_not_buffer import TensorAttributeNotBuffer
from torchcheck.rules.training.loss_kept_with_graph import LossKeptWithGraph


class _Probe:
    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.seen: list[Inferred] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            self.seen.append(self.context.kind_and_evidence(node.args[0].value))


def probe(source: str) -> list[Inferred]:
    context = LintContext()
    recorder = _Probe(context)
    BatchedWalker([context, recorder]).walk(cst.parse_module(textwrap.dedent(source)))
    return recorder.seen


GRAPH = Inferred(Kind.GRAPH_TENSOR, Evidence.CONVENTION)


def test_a_called_loss_name_is_a_loss_function_by_convention() -> None:
    assert [called_as_loss(name) for name in ("loss", "loss_func", "_loss_function", "seg_losses", "criterions")] == [True] * 5
    # a factory returns the function, a verb computes something of any shape, a scaler is no loss
    assert [called_as_loss(name) for name in ("build_loss", "compute_loss", "loss_scaler", "Loss", "closs")] == [False] * 5


def test_calling_a_loss_held_in_a_parameter_an_attribute_or_a_list_gives_a_loss() -> None:
    seen = probe(
        """
        import torch
        class Trainer:
            def step(self, model, loss, heads, x, y):
                out = model(x)
                probe(loss(out, y)); probe(self.loss_func(out, y)); probe(heads.seg_losses[0](out, y))
                with torch.no_grad():
                    probe(loss(out, y))
        """
    )
    assert seen == [GRAPH, GRAPH, GRAPH, Inferred(Kind.TENSOR, Evidence.CONVENTION)]


def test_a_loss_name_bound_to_something_known_and_a_models_own_loss_method_keep_their_kinds() -> None:
    seen = probe(
        """
        import torch
        def step(model, batch, x):
            loss = torch.zeros(3)
            probe(loss(x)); probe(model.loss(batch)); probe(loss_scaler(x))
        """
    )
    assert seen == [Inferred(None, None), Inferred(None, None), Inferred(None, None)]


def _lines(source: str) -> list[int]:
    result = lint_source(textwrap.dedent(source).encode(), "train.py", [LossKeptWithGraph])
    return [diagnostic.location.row for diagnostic in result.diagnostics]


def test_a_validation_loss_from_a_loss_parameter_summed_without_no_grad_is_reported() -> None:
    assert _lines(
        """
        def validate(model, loader, loss_function):
            model.eval()
            total = 0
            for inputs, targets in loader:
                batch_loss = loss_function(model(inputs), targets)
                total += batch_loss
            return total / len(loader)
        """
    ) == [7]


def test_the_same_validation_under_no_grad_or_kept_as_a_number_is_silent() -> None:
    assert _lines(
        """
        import torch
        def validate(model, loader, loss_function):
            model.eval()
            total = 0
            with torch.no_grad():
                for inputs, targets in loader:
                    total += loss_function(model(inputs), targets)
            for inputs, targets in loader:
                total += loss_function(model(inputs), targets).item()
            return total / len(loader)
        """
    ) == []


# A helper that backpropagates a loss and returns it hands its caller a graph-attached tensor.


def _returns_of(source: str) -> dict[str, Kind | None]:
    module = cst.parse_module(textwrap.dedent(source))
    context = LintContext()
    BatchedWalker([context]).walk(module)
    found: dict[str, Kind | None] = {}

    class _Functions(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            summary = context.summary_of(node)
            found[summary.name] = summary.returns.kind

    module.visit(_Functions())
    return found


def test_a_function_returning_what_it_backpropagated_returns_a_graph_attached_tensor() -> None:
    found = _returns_of(
        """
        def plain(model, criterion, x, y):
            loss = criterion(model(x), y)
            loss.backward()
            return loss

        def scaled(model, scaler, x):
            loss = model(x).sum()
            scaler.scale(loss).backward()
            return loss

        def framework(accelerator, model, x):
            loss = model(x).mean()
            accelerator.backward(loss)
            return loss

        def as_number(model, x):
            loss = model(x).sum()
            loss.backward()
            loss = loss.item()
            return loss

        def other(model, x):
            loss = model(x).sum()
            loss.backward()
            return x
        """
    )
    assert found == {"plain": Kind.GRAPH_TENSOR, "scaled": Kind.GRAPH_TENSOR, "framework": Kind.GRAPH_TENSOR, "as_number": None, "other": None}


def test_a_loss_returned_by_a_training_step_method_and_summed_in_the_epoch_loop_is_reported() -> None:
    assert _lines(
        """
        class Trainer:
            def __init__(self, model, criterion, optimizer):
                self.model, self.criterion, self.optimizer = model, criterion, optimizer

            def train_step(self, x, y):
                self.optimizer.zero_grad()
                loss = self.criterion(self.model(x), y)
                loss.backward()
                self.optimizer.step()
                return loss

            def train_epoch(self, loader):
                total, history = 0.0, []
                for x, y in loader:
                    loss = self.train_step(x, y)
                    total += loss
                    history.append(self.train_step(x, y).item())
                return total
        """
    ) == [17]


def test_a_training_step_that_returns_a_number_leaves_the_epoch_loop_silent() -> None:
    assert _lines(
        """
        def train_step(model, criterion, optimizer, x, y):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            return loss.item()

        def train_epoch(model, criterion, optimizer, loader):
            total = 0.0
            for x, y in loader:
                total += train_step(model, criterion, optimizer, x, y)
            return total
        """
    ) == []


# A legacy spelling: `Variable(t)` is the tensor `t` itself.


def test_a_factory_tensor_wrapped_in_variable_stored_as_a_module_attribute_is_reported() -> None:
    source = """
        import torch
        from torch import nn
        from torch.autograd import Variable

        class Gate(nn.Module):
            def __init__(self):
                super().__init__()
                self.floor = Variable(torch.full((1,), -1.0), requires_grad=False)
                self.scale = Variable(torch.tensor(0.5))
                self.register_buffer("ceiling", Variable(torch.ones(1)))

            def forward(self, x):
                return torch.clamp(x, self.floor, self.ceiling) * self.scale

        gate = Gate().cuda()
        """
    result = lint_source(textwrap.dedent(source).encode(), "gate.py", [TensorAttributeNotBuffer])
    found = [*result.diagnostics, *(waiting.diagnostic for waiting in result.deferred)]  # the project decides on the move
    assert [diagnostic.location.row for diagnostic in found] == [9]


def test_a_function_returning_a_container_of_what_it_backpropagated_says_so() -> None:
    module = cst.parse_module(
        textwrap.dedent(
            """
            def parts_step(model, criterion, x, y):
                parts = criterion(model(x), y)
                parts["total"].backward()
                return parts

            def literal_step(model, x):
                loss = model(x).sum()
                loss.backward()
                return {"loss": loss, "size": x.size(0)}

            def detached_step(model, x):
                loss = model(x).sum()
                loss.backward()
                return {"loss": loss.item()}
            """
        )
    )
    context = LintContext()
    BatchedWalker([context]).walk(module)
    returns = {function.name.value: context.summary_of(function).returns for function in module.body}
    assert {name: found.graph_entries for name, found in returns.items()} == {"parts_step": True, "literal_step": True, "detached_step": False}
    assert type(returns["parts_step"]).from_dict(returns["parts_step"].to_dict()) == returns["parts_step"]


def test_the_entries_of_a_loss_dict_returned_by_a_step_method_summed_across_batches_are_reported() -> None:
    assert _lines(
        """
        from collections import defaultdict
        import torch

        class Detector:
            def __init__(self, model, criterion, optimizer):
                self.model, self.criterion, self.optimizer = model, criterion, optimizer

            def step(self, images, targets):
                losses = self.criterion(self.model(images), targets)
                self.optimizer.zero_grad()
                losses["total"].backward()
                self.optimizer.step()
                return losses

            def epoch(self, loader):
                sums, floats = defaultdict(lambda: torch.tensor(0.0)), defaultdict(float)
                for images, targets in loader:
                    losses = self.step(images, targets)
                    for name, value in losses.items():
                        sums[name] += value
                        floats[name] += value.item()
                return sums, floats
        """
    ) == [21]


def test_calling_a_module_held_in_an_attribute_of_self_gives_a_graph_attached_tensor() -> None:
    seen = probe(
        """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Linear(3, 3)
            def forward(self, x):
                probe(self.encoder(x))
        class Session:
            def __init__(self, client, model):
                self.client, self.model = client, model
            def load(self, x, model_id):
                probe(self.model(x)); probe(self.client.model(model_id))
        """
    )
    assert seen == [Inferred(Kind.GRAPH_TENSOR, Evidence.STRONG), GRAPH, Inferred(None, None)]
