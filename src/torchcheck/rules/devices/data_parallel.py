from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import libcst as cst

from torchcheck.lint import guards, references
from torchcheck.lint.idioms import Effect
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import argument_for, called_name, dotted_name, is_main_guard, method_call, subtree
from torchcheck.lint.project import IMPORTERS_TRAIN, MAY, YES, Condition, Symbol
from torchcheck.lint.exports import call_shape
from torchcheck.lint.rule import Invalid, Report, Rule, Valid

if TYPE_CHECKING:
    from torchcheck.lint.context import LintContext

_DATA_PARALLEL = frozenset(
    {"torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.data_parallel.DataParallel"}
)
# Where a name is handed on: an argument, a return value, an item of a container.
_HANDED_ON = (cst.Arg, cst.Return, cst.Element, cst.DictElement)
_GRADIENT_FUNCTIONS = frozenset({"torch.autograd.backward", "torch.autograd.grad"})
# The decorator that marks a method as overriding its base class's (`typing.override`).
_OVERRIDE = "override"

# Where a wrapped model's name means the same value: a `self.` attribute anywhere in its
# class, any other name within its function (or the module's top level).
_Scope = cst.ClassDef | cst.FunctionDef | cst.If | None  # an `if __name__ == "__main__":` block is a script's own
_Binding = tuple[_Scope, str]


@dataclass(frozen=True)
class _Wrap:
    """A ``DataParallel(...)`` call: its finding, held until the file shows what the wrapped
    model serves, the name it is bound to, and whether the call itself shows inference."""

    report: Report
    binding: _Binding | None
    for_inference: bool


def _wrapped_call(value: cst.BaseExpression) -> cst.BaseExpression:
    """The call a chain of method calls starts from: ``nn.DataParallel(m)`` in
    ``nn.DataParallel(m).cuda().eval()``."""
    while (receiver_method := method_call(value)) is not None and isinstance(receiver_method[0], cst.Call):
        value = receiver_method[0]
    return value


def _assigned_values(line: cst.CSTNode | None) -> list[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """``(target, value)`` of each single-target assignment on a simple statement line; both
    branches of ``x = a if c else b`` count as values."""
    if not isinstance(line, cst.SimpleStatementLine):
        return []
    pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
    for small in line.body:
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target, value = small.targets[0].target, small.value
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            target, value = small.target, small.value
        else:
            continue
        branches = (value.body, value.orelse) if isinstance(value, cst.IfExp) else (value,)
        pairs.extend((target, branch) for branch in branches)
    return pairs


class DataParallel(Rule):
    """
    ## What it does
    Checks for models wrapped in `nn.DataParallel(...)`, or in a class of the project that
    derives from it (`CustomDataParallel(model, num_gpus)`, defined in another file). Two wraps
    of the same name on opposite branches of one test (`.cuda()` on one, the CPU on the
    other) are one choice, reported once.

    ## Why is this bad?
    `DataParallel` runs every replica in one Python process: the GIL serialises the
    replicas, the model is copied to every GPU on every forward pass, and outputs and
    gradients are gathered on the first GPU, which then runs out of memory before the
    others. `DistributedDataParallel` with one process per GPU is faster even on a single
    machine, and the PyTorch documentation recommends it instead.

    A `DataParallel` that only serves inference or sampling is not reported: the file
    never trains (no `backward()`, no `torch.optim` optimizer) - or, for a model wrapped
    into a local name of a function that never hands it on (an `evaluate()` beside the
    training loop) except to functions of the file that never train (`self.sample_images(model)`),
    that function never trains - and the wrapped model is put
    in `eval()` mode (there, or by a function of the file it is handed to), called under `no_grad()`/`inference_mode()`, or unwrapped again with
    `.module` (the idiom for loading a checkpoint saved from a wrapped model). In a file that
    never trains, a model handed on only to one function of another project file
    (`fill_memory_bank(loader, model, bank)`) is reported only if that function backpropagates
    or steps. In a function that trains another model, a wrapped local that is only called
    under `no_grad()` or handed to functions of the file that never train (a diffusion
    sampler beside its trainer) serves inference too, as does a wrapped local of a file that
    never trains, kept in a function that returns nothing but for functions of the file that
    never train (`predictor = get_predictor(model, config)` in a prediction script's `main()`), and so
    does a model wrapped into a local of a function that never trains and puts it in `eval()`
    or runs it under `no_grad()`, whatever else it is handed to (a `test()` over saved
    checkpoints). A model that a top-level function wraps and returns, where the file never
    calls that function (`load_model_from_ckpt(...)` of a utilities file), serves the files
    that import the function: it is reported only if one of them trains (calls `backward()`).
    A model that a function of the file returns is put in `eval()` where a caller of the file
    calls `eval()` on what it received (`net, head = get_model(opt)`, then `net.eval()`). Without a
    backward pass there are no gradients to gather and reduce, and the advice does not
    apply: over the plain model run in each process, `DistributedDataParallel` adds only
    gradient synchronisation. Inference under `DataParallel` still copies the parameters
    to every GPU on each forward pass, which one process per GPU running the plain model
    on its share of the data avoids; that is a trade against launching several processes,
    not a mistake.

    The `if __name__ == "__main__":` block of a file that never trains counts as such a
    function: a model file's own shape check (`print(model(torch.randn(...)).shape)`) wraps a
    model no other code sees.

    Nor is it reported in a method that overrides a base class's hook (marked `@override`)
    and wraps the module it is handed: the class implements a wrapping interface (a
    training library's "dp" strategy), and the choice of `DataParallel` is made by the code
    that picks that class, not in the method.

    This is advice about how to train, so it is not given inside tests: a test that wraps
    a model in `DataParallel` checks how code handles such a model (the `module.` prefix
    of its state dict, unwrapping it) and is right to use it. Tests are
    `unittest.TestCase` subclasses and, in a file pytest collects (`test_*.py`,
    `*_test.py`, `conftest.py`) or one that imports pytest, functions named `test*`,
    fixtures and `Test*` classes.

    ## Example
    ```python
    from torch import nn

    model = nn.DataParallel(model).cuda()
    ```

    Use instead:
    ```python
    # launched with: torchrun --nproc_per_node=NUM_GPUS train.py
    import os

    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    model = DistributedDataParallel(model.to(local_rank), device_ids=[local_rank])
    ```

    ## Fix safety
    There is no automatic fix: moving to `DistributedDataParallel` changes how the script
    is launched, how data is sharded (`DistributedSampler`) and who logs and saves.

    ## References
    - [`torch.nn.DataParallel`](https://pytorch.org/docs/stable/generated/torch.nn.DataParallel.html)
    - [CUDA semantics: use DistributedDataParallel instead of DataParallel](https://pytorch.org/docs/stable/notes/cuda.html#cuda-nn-ddp-instead)
    - [Getting started with DistributedDataParallel](https://pytorch.org/tutorials/intermediate/ddp_tutorial.html)
    """

    code = "TCK204"
    name = "data-parallel"
    message = "`nn.DataParallel` is single-process and slower than `DistributedDataParallel`"
    required_text = ("DataParallel", "backward", "optim")  # a file that trains (or builds an optimizer) may call a subclass of another file
    applies_in_tests = False

    VALID = (
        Valid(
            """
import torch
from models import resnet12, ProtoHead

def get_model(options):
    network = resnet12().cuda()
    if options.gpus > 1:
        network = torch.nn.DataParallel(network, device_ids=list(range(options.gpus)))
    return network, ProtoHead().cuda()

if __name__ == "__main__":
    embedding_net, head = get_model(opt)
    embedding_net.load_state_dict(torch.load(opt.checkpoint, weights_only=True))
    embedding_net.eval()
    head.eval()
    accuracies = [head(embedding_net(x), y) for x, y in loader]
"""
        ),
        Valid(
            """
import torch
from torch import nn

class C3D(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(3, 8, 3)

    def forward(self, x):
        return self.conv(x)

if __name__ == "__main__":
    model = nn.DataParallel(C3D().cuda())  # a shape check of the model file: nothing trains it
    print(model)
    print(model(torch.randn(8, 3, 16, 112, 112)).shape)
"""
        ),
        Valid(
            """
import torch
import matplotlib.pyplot as plt
from matplotlib.animation import FuncAnimation
from gan import Generator

def show(gen, point):
    return gen(point)[0].detach().cpu().numpy()

def main(args):
    gen = torch.nn.DataParallel(Generator(args.depth))
    gen.load_state_dict(torch.load(args.generator_file))
    figure = plt.figure()
    shown = plt.imshow(show(gen, torch.randn(1, 512)))

    def update(point):
        shown.set_data(show(gen, point))
        return (shown,)  # returns from `update`, not from `main`

    plt.show(FuncAnimation(figure, update, frames=torch.randn(30, 512)))
"""
        ),
        Valid(
            """
import torch
from ema import EMAHelper
class Runner:
    def train(self, model, loader, optimizer):
        for x in loader:
            model(x).mean().backward()
            optimizer.step()
    def test(self, build, checkpoints, loader):
        score = torch.nn.DataParallel(build())
        for path in checkpoints:
            helper = EMAHelper()
            helper.register(score)  # handed on, but this function only evaluates it
            helper.load_state_dict(torch.load(path))
            score.eval()
            with torch.no_grad():
                for x in loader:
                    print(score(x).mean().item())
"""
        ),
        Valid(
            """
import importlib
import torch
import torch.nn as nn

def get_predictor(model, config):
    predictor_class = getattr(importlib.import_module("predictors"), config["name"])
    return predictor_class(model, config["output_dir"])

def main(config, model, loaders):
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    model = model.to(config["device"])
    predictor = get_predictor(model, config)
    for loader in loaders:
        print(predictor(loader))
"""
        ),
        Valid(
            """
import torch

def evaluate(sampler, noise):
    with torch.no_grad():
        return sampler(noise).cpu()

def train(trainer, sampler, optimizer, loader, noise):
    sampler = torch.nn.DataParallel(sampler)
    for x in loader:
        loss = trainer(x).mean()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            preview = sampler(noise)
    return evaluate(sampler, noise)
"""
        ),
        Valid(
            """
import torch

def test(loader, model):
    model.eval()
    with torch.no_grad():
        return [model(x).argmax(1) for x in loader]

def main(net, loader):
    model = torch.nn.DataParallel(net).cuda()
    test(loader, model)
"""
        ),
        Valid(
            """
import torch

class Runner:
    def train(self, model, loader, optimizer):
        for x in loader:
            model(x).mean().backward()
            optimizer.step()

    def sample(self, model):
        model = torch.nn.DataParallel(model)
        model.eval()
        self.sample_images(model)

    def sample_images(self, model):
        with torch.no_grad():
            return model(torch.randn(4, 3, 32, 32))
"""
        ),
        Valid(
            """
import torch

def train(model, loader, optimizer):
    for x, y in loader:
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()

def evaluate(model, loader, n_gpu):
    if n_gpu > 1 and not isinstance(model, torch.nn.DataParallel):
        model = torch.nn.DataParallel(model)
    model.eval()
    with torch.no_grad():
        return [model(x) for x, _ in loader]
"""
        ),
        Valid(
            """
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(model, device_ids=[local_rank])
if isinstance(model, (nn.DataParallel, DDP)):
    model = model.module
"""
        ),
        Valid(
            """
import torch.nn as nn
class PatchedDataParallel(nn.DataParallel):
    def gather(self, outputs, output_device):
        return outputs
"""
        ),
        Valid(
            """
from my_project.parallel import DataParallel
model = DataParallel(model)
"""
        ),
        Valid(
            """
import torch
from core.raft import RAFT

def demo(args):
    model = torch.nn.DataParallel(RAFT(args))
    model.load_state_dict(torch.load(args.model))
    model = model.module
    model.to("cuda")
    model.eval()
"""
        ),
        Valid(
            """
import torch
from torch import nn

@torch.no_grad()
def sample(model, steps, shape):
    model = nn.DataParallel(model).cuda()
    model.eval()
    x = torch.randn(shape, device="cuda")
    for t in reversed(range(steps)):
        x = model(x, t)
    return x

def predict(net, images):
    net = nn.DataParallel(net, device_ids=[0, 1])
    with torch.inference_mode():
        return net(images)

class Predictor:
    def __init__(self, model):
        self.model = nn.DataParallel(model).cuda().eval()
"""
        ),
        Valid(
            """
import unittest
import pytest
import torch
from torch import nn

class CheckpointTest(unittest.TestCase):
    def build(self, wrapped):
        model = nn.Linear(2, 2)
        return nn.DataParallel(model) if wrapped else model

    def test_loads_state_dict_of_wrapped_model(self):
        self.assertIn("module.weight", self.build(True).state_dict())

@pytest.fixture
def wrapped_model():
    return torch.nn.DataParallel(nn.Linear(2, 2))

def test_unwraps_data_parallel(wrapped_model):
    model = nn.parallel.DataParallel(nn.Linear(2, 2))
    assert unwrap(model) is model.module
"""
        ),
        Valid(
            """
from torch import nn
from typing_extensions import override

from .base import MultiDeviceBackend

class SingleProcessReplicas(MultiDeviceBackend):
    def __init__(self, devices):
        self.devices = devices

    @override
    def wrap_model(self, network: nn.Module) -> nn.Module:
        return nn.DataParallel(network, device_ids=self.devices)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch


def main(args, student, teacher, loader):
    if args.arch.startswith("vgg"):
        student.features = torch.nn.DataParallel(student.features)  # TCK204
        teacher = torch.nn.DataParallel(teacher).cuda()
    else:
        student = torch.nn.DataParallel(student).cuda()  # TCK204
        teacher = torch.nn.DataParallel(teacher).cuda()
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        train_kd(loader, student, teacher, optimizer)


def train_kd(loader, student, teacher, optimizer):
    teacher.eval()
    for images, _ in loader:
        with torch.no_grad():
            target = teacher(images)
        loss = (student(images) - target).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""
        ),
        Invalid(
            """
import torch


def main(args, student, teacher, loader):
    if args.arch.startswith("vgg"):
        student.features = torch.nn.DataParallel(student.features)  # TCK204
        teacher = torch.nn.DataParallel(teacher).cuda()  # TCK204
    else:
        student = torch.nn.DataParallel(student).cuda()  # TCK204
        teacher = torch.nn.DataParallel(teacher).cuda()
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        train_kd(loader, student, teacher, optimizer)


def train_kd(loader, student, teacher, optimizer):
    teacher.eval()
    for images, _ in loader:
        target = teacher(images)
        loss = (student(images) - target).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""
        ),
        Invalid(
            """
import torch
from torch import nn
import lib

if __name__ == "__main__":
    model = nn.DataParallel(lib.build_model())  # TCK204
    print(lib.count_parameters(model))
    optimizer = lib.make_optimizer(model.parameters())
    for batch in lib.batches():
        lib.train_step(optimizer, lambda x: model(x), batch)  # the closure hands the model on
"""
        ),
        Invalid(
            """
import torch
def build(net, cuda, loader, optimizer):
    if cuda:
        net = torch.nn.DataParallel(net).cuda()  # TCK204
    else:
        net = torch.nn.DataParallel(net)  # the same choice on the CPU: one finding
    for x, y in loader:
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
"""
        ),
        Invalid(
            """
import torch
import lib

model = torch.nn.DataParallel(net)  # TCK204
optimizer = lib.make_optimizer(model.parameters())

def evaluate(parts):
    model.eval()
    with torch.no_grad():
        return [model(x) for x in parts]

for epoch in range(epochs):
    lib.train_epoch(model, optimizer, loader)
    evaluate(val_parts)
"""
        ),
        Invalid(
            """
import torch.nn as nn
model = nn.DataParallel(model).cuda()  # TCK204
"""
        ),
        Invalid(
            """
import torch
from torch.nn.parallel import DataParallel as DP

class Trainer:
    def __init__(self, model, gpus):
        if len(gpus) > 1:
            self.model = DP(model, device_ids=gpus)  # TCK204
        else:
            self.model = model.to(gpus[0])
"""
        ),
        Invalid(
            """
import torch
from torch import nn

def build(cfg):
    model = nn.DataParallel(Net(cfg)).cuda()  # TCK204
    return model

@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    return [model(x) for x, _ in loader]
"""
        ),
        Invalid(
            """
import torch
from torch import nn

model = nn.DataParallel(model).cuda()  # TCK204
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(epochs):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        accuracy = evaluate(model, val_loader)
"""
        ),
        Invalid(
            """
import torch
net = torch.nn.DataParallel(  # TCK204
    net,
    device_ids=[0, 1],
)
"""
        ),
        Invalid(
            """
from torch import nn
from typing_extensions import override

class Task(BaseTask):
    @override
    def configure_model(self, config):
        self.net = nn.DataParallel(Net(config))  # TCK204
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._wraps: list[_Wrap] = []
        self._inference_uses: set[_Binding] = set()  # bindings put in eval(), unwrapped, or called with gradients off
        self._inference_calls: set[cst.Call] = set()  # `DataParallel(m).eval()`: the wrap itself
        self._trains = False
        self._training_functions: set[cst.FunctionDef | None] = set()
        self._untrained: dict[cst.CSTNode, set[str | None]] = {}  # calls of functions of the file -> what they are handed but never train
        self._calls_without_grad: set[cst.Call] = set()

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.call_name(node)
        if name in _DATA_PARALLEL:
            self._wrapped(node)
        elif (subclass := self._data_parallel_subclass(node, name)) is not None:
            self._wrapped(node, (subclass,))
        elif called_name(node) == "backward" or name in _GRADIENT_FUNCTIONS or _is_optimizer(name):
            self._trains = True
            self._training_functions.add(self._function())
        elif called_name(node) == "eval" and isinstance(node.func, cst.Attribute) and not node.args:
            self._evaluated(node.func.value)
        elif self.context.in_no_grad and (binding := self._binding_of(node.func)) is not None:
            self._inference_uses.add(binding)
            self._calls_without_grad.add(node)
        if self._wraps and node.args and (summary := self.context.call_summary(node)) is not None:
            handed = {dotted_name(argument.value) for argument in node.args}
            self._untrained[node] = handed - summary.may_train()  # `train_kd(loader, model, teacher)`: not the teacher
            for effect in summary.effects:  # `test(loader, model)` puts the model it is handed in eval mode
                if effect.action == Effect.EVAL and effect.target in handed:
                    self._inference_uses.add(self._binding_named(effect.target))

    def visit_Assign(self, node: cst.Assign) -> None:
        """``model = model.module``: the wrapper is thrown away (the idiom for loading a
        checkpoint saved from a wrapped model)."""
        value = node.value
        if isinstance(value, cst.Attribute) and value.attr.value == "module":
            binding = self._binding_of(value.value)
            if binding is not None:
                self._inference_uses.add(binding)

    def leave_Module(self, node: cst.Module) -> None:
        for index, wrap in enumerate(self._wraps):
            if any(self._one_decision(earlier, wrap) for earlier in self._wraps[:index]):
                continue  # `DataParallel(net).cuda()` if cuda else `DataParallel(net)`: one choice, one finding
            handed_in_function = wrap.binding is not None and isinstance(wrap.binding[0], (cst.FunctionDef, cst.If))
            local = handed_in_function and not self._escapes(wrap)
            # a prediction script's `main()`; not `model.model = DataParallel(...)`: that object goes on
            kept_here = local and not self._trains and "." not in wrap.binding[1] and _returns_nothing(wrap.binding[0])  # type: ignore[index]
            if local and (self._only_inference_uses(wrap) or kept_here):
                continue  # a sampler, also beside the model its function trains
            # a function that puts what it wrapped in eval() and never trains (a test over checkpoints) serves inference
            evaluates_only = handed_in_function and wrap.binding in self._inference_uses and wrap.binding[0] not in self._training_functions  # type: ignore[index]
            trains = wrap.binding[0] in self._training_functions if local else self._trains and not evaluates_only  # type: ignore[index]
            if trains or not self._serves_inference(wrap):  # trained elsewhere only if the importers or the sole trainer train
                decider = (None if local else self._returned_to_other_files(wrap)) if trains else (self._sole_trainer(wrap) if handed_in_function else None)
                self.reports.append(replace(wrap.report, conditions=(*wrap.report.conditions, decider)) if decider is not None else wrap.report)

    def _one_decision(self, earlier: _Wrap, wrap: _Wrap) -> bool:
        """Two wraps of the same name on opposite branches of one test."""
        return wrap.binding is not None and earlier.binding == wrap.binding and guards.never_together(self.context.binder, earlier.report.node, wrap.report.node)

    @staticmethod
    def _uses(wrap: _Wrap) -> list[cst.Name]:
        """Every use of the wrapped name in its function (or script block)."""
        scope, name = wrap.binding  # type: ignore[misc]
        return [node for node in subtree(scope) if type(node) is cst.Name and node.value == name]

    def _in_closures(self, wrap: _Wrap) -> bool:
        """A nested function or lambda uses the wrapped name: it may train it wherever it goes."""
        binder = self.context.binder
        own = binder.enclosing(wrap.report.node, cst.FunctionDef, cst.Lambda)
        return any(binder.enclosing(use, cst.FunctionDef, cst.Lambda) is not own for use in self._uses(wrap))

    def _handed(self, wrap: _Wrap) -> list[cst.CSTNode | None]:
        """Where the function hands the wrapped name on after the wrap (an argument's, a return's
        parent ...); not on another branch of the wrap's `if`: that use never sees the wrapped model."""
        binder, wrapping = self.context.binder, wrap.report.node
        uses = (node for node in self._uses(wrap) if binder.precedes(wrapping, node) and wrapping not in binder.ancestors(node) and not guards.never_together(binder, wrapping, node))
        return [binder.parent(node) for node in uses if not references.only_inspected(binder, node)]  # `print(model)` trains nothing

    def _only_inference_uses(self, wrap: _Wrap) -> bool:
        """Every use of the wrapped name runs it under ``no_grad()``, puts it in ``eval()``,
        unwraps it, or hands it to a function of the file that never trains."""
        handed = [parent for parent in self._handed(wrap) if type(parent) is not cst.AssignTarget]  # the wrap's own target
        for parent in handed:
            if parent in self._calls_without_grad or self._not_trained_by(parent):
                continue
            if not (type(parent) is cst.Attribute and parent.attr.value in ("eval", "module")):  # type: ignore[attr-defined]
                return False
        return bool(handed)

    def _escapes(self, wrap: _Wrap) -> bool:
        """After the wrap, the function hands the wrapped name on (an argument, a return value):
        code elsewhere may train it."""
        handed = map(self._through_method_calls, self._handed(wrap))  # `return model.cuda()` hands it on too
        return any(isinstance(parent, _HANDED_ON) and not self._not_trained_by(parent) for parent in handed)

    def _not_trained_by(self, parent: cst.CSTNode | None) -> bool:
        """An argument handed to a function of the file that never trains, or never runs it with grad."""
        return type(parent) is cst.Arg and dotted_name(parent.value) in self._untrained.get(self.context.binder.parent(parent), ())  # type: ignore[union-attr, arg-type]

    def _through_method_calls(self, parent: cst.CSTNode | None) -> cst.CSTNode | None:
        """Where the result of a chain of method calls on a use (``model.cuda().eval()``) goes."""
        binder = self.context.binder
        while type(parent) is cst.Attribute and type(call := binder.parent(parent)) is cst.Call and call.func is parent:  # type: ignore[union-attr]
            parent = binder.parent(call)
        return parent

    def _returned_to_other_files(self, wrap: _Wrap) -> Condition | None:
        """The wrapped model leaves only as what a top-level function that this file never
        calls returns (``load_model_from_ckpt(...)`` of a utilities file): the files that
        import that function decide what it serves, and it trains only if one of them does."""
        function = wrap.binding[0] if wrap.binding is not None else None
        handed = [parent for parent in map(self._through_method_calls, self._handed(wrap)) if isinstance(parent, _HANDED_ON)] if type(function) is cst.FunctionDef else []
        if not handed or any(type(parent) is not cst.Return for parent in handed) or self._in_closures(wrap):
            return None
        uncalled = self.context.project is not None and references.never_called_in_file(self.context.binder, function)
        return Condition(Symbol(None, function.name.value), IMPORTERS_TRAIN, YES) if uncalled else None

    def _sole_trainer(self, wrap: _Wrap) -> Condition | None:
        """In a file that never trains, the wrapped model goes only to one function of another
        project file (``fill_memory_bank(loader, model, bank)``): it is trained only if that
        function backpropagates or steps."""
        project, handed = self.context.project, [parent for parent in self._handed(wrap) if isinstance(parent, _HANDED_ON)]
        if project is None or not handed or not all(isinstance(parent, cst.Arg) for parent in handed) or self._in_closures(wrap):
            return None
        calls = [self.context.binder.parent(parent) for parent in handed]
        helpers = {project.symbol_of(call.func) for call in calls}  # type: ignore[union-attr]
        helper, shape = helpers.pop() if len(helpers) == 1 else None, call_shape(calls[0]) if len(calls) == 1 else None  # type: ignore[arg-type]
        return Condition(helper, "does:backward,step", MAY, shape) if helper is not None and not helper.is_local else None  # with `mode="eval"` passed

    def _data_parallel_subclass(self, call: cst.Call, name: str | None) -> Condition | None:
        """``CustomDataParallel(model, n)``: a class of the project, of this file or another,
        that may derive from ``DataParallel``, given a module."""
        wrapped = argument_for(call, 0, "module")
        if (name or "").startswith("torch.") or wrapped is None or self.context.kind_of(wrapped.value) is not Kind.MODULE:
            return None
        return self.context.derives_condition(call.func, _DATA_PARALLEL)

    def _wrapped(self, call: cst.Call, conditions: tuple[Condition, ...] = ()) -> None:
        """Report now, so that the finding carries its statement; keep it until the end of
        the file shows whether the wrapped model only serves inference."""
        if self._implements_a_wrapping_hook(call):
            return
        self.report(call, conditions=conditions)
        assignments = _assigned_values(self.context.current_statement)
        target = next((target for target, value in assignments if _wrapped_call(value) is call), None)
        binding = self._binding_of(target) if target is not None else None
        self._wraps.append(_Wrap(self.reports.pop(), binding, self.context.in_no_grad))

    def _implements_a_wrapping_hook(self, call: cst.Call) -> bool:
        """``@override def setup_module(self, module): return DataParallel(module)``: a method
        overriding a base class's hook wraps the module it is handed. The class implements
        a wrapping interface (a "dp" strategy); which wrapper runs is chosen by the code that
        picks the class, not here."""
        function = self.context.flow.function
        if function is None or self.context.current_class is None:
            return False
        if not any((dotted_name(decorator.decorator) or "").rsplit(".", 1)[-1] == _OVERRIDE for decorator in function.decorators):
            return False
        wrapped = argument_for(call, 0, "module")
        parameters = {parameter.name.value for parameter in (*function.params.posonly_params, *function.params.params)}
        return wrapped is not None and isinstance(wrapped.value, cst.Name) and wrapped.value.value in parameters

    def _evaluated(self, receiver: cst.BaseExpression) -> None:
        wrapped = _wrapped_call(receiver)
        if isinstance(wrapped, cst.Call):
            self._inference_calls.add(wrapped)
        elif (binding := self._binding_of(receiver)) is not None:  # also the name a function of the file returned it as
            returned = references.returned_as(self.context.binder, receiver) if type(receiver) is cst.Name else []
            self._inference_uses.update([binding, *((function, value.value) for function, value in returned if type(value) is cst.Name)])  # type: ignore[attr-defined]

    def _binding_of(self, expression: cst.BaseExpression) -> _Binding | None:
        name = dotted_name(expression)
        return self._binding_named(name) if name is not None else None

    def _binding_named(self, name: str) -> _Binding:
        scope: _Scope = self.context.current_class if name.startswith("self.") else self._function()
        return scope, name

    def _function(self) -> cst.FunctionDef | cst.If | None:
        """The function the walk is in, or the script's ``if __name__ == "__main__":`` block
        (whose names nothing imports)."""
        function = self.context.flow.function
        if function is not None or self.context.top_level_statement is None:
            return function
        statement = self.context.top_level_statement
        return statement if type(statement) is cst.If and is_main_guard(statement) else None

    def _serves_inference(self, wrap: _Wrap) -> bool:
        return (
            wrap.for_inference
            or wrap.report.node in self._inference_calls
            or (wrap.binding is not None and wrap.binding in self._inference_uses)
        )


def _returns_nothing(function: cst.FunctionDef | cst.If) -> bool:
    """No ``return`` of the function hands back a value: nothing the model computed leaves it
    (a nested function's ``return`` returns from that function)."""
    return all(statement.value is None for statement in references.return_statements(function))  # type: ignore[arg-type]


def _is_optimizer(name: str | None) -> bool:
    """``torch.optim.Adam``: building an optimizer means the file trains."""
    if name is None or not name.startswith("torch.optim.") or ".lr_scheduler." in name:
        return False
    return name.rsplit(".", 1)[-1][:1].isupper()
