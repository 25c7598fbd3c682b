from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint import references, torch_api
from torchcheck.lint.context import Loop
from torchcheck.lint.exports import call_shape, imported_callee
from torchcheck.lint.flow import Event
from torchcheck.lint.idioms import Effect
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import dotted_name
from torchcheck.lint.project import MAY, MUST, NONE, PLACE, CallShape, Condition, Symbol
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.sharding import optimized_paths
from torchcheck.lint.summaries import (
    ANONYMOUS,
    BACKWARD_IN_EVAL,
    FORWARD,
    TRAIN,
    Certainty,
    FunctionSummary,
    Site,
    spelled,
)
from torchcheck.rules.training._common import receiver_text

_THROUGH_HELPER = "Training loop never calls `train()` after {site}; later iterations train in evaluation mode"


def _sets_eval_mode(call: cst.Call) -> bool:
    """``m.train(False)`` / ``m.train(mode=False)`` switch to eval mode rather than back."""
    return bool(call.args) and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "False"


@dataclass(frozen=True)
class _Eval:
    event: Event
    receiver: str  # the module put in eval mode, as the loop names it
    site: Site | None = None  # eval() done by a helper: where
    # a helper imported from another file of the project: it leaves the receiver in eval
    # mode under this condition (decided by the project index)
    condition: Condition | None = None


@dataclass(frozen=True)
class _ImportedCall:
    """A call in the loop to a helper of another file of the project, with the names it is passed."""

    event: Event
    helper: Symbol
    shape: CallShape
    passed: frozenset[str]
    with_grad: bool


@dataclass
class _LoopFacts:
    """What one outermost loop (with the loops nested in it) does."""

    evals: list[_Eval] = field(default_factory=list)
    trained: set[Loop] = field(default_factory=set)  # loops that call train() (or a helper that does)
    backpropagated: set[Loop] = field(default_factory=set)  # through a helper that calls backward()
    run_with_grad: dict[Loop, set[str]] = field(default_factory=dict)
    imported: list[_ImportedCall] = field(default_factory=list)  # helpers of other files


class EvalModeNotRestored(Rule):
    """
    ## What it does
    Checks for training loops (loops that call `.backward()`) that switch a module to
    evaluation mode with `module.eval()` - typically to validate - but never call
    `.train()` inside the loop.

    ## Why is this bad?
    `eval()` turns dropout off and makes batch norm use (and stop updating) its running
    statistics. If the loop never switches back, every iteration after the first
    validation trains in evaluation mode: no dropout regularisation, frozen batch-norm
    statistics, and a model that quietly trains worse. Call `model.train()` at the start of
    each epoch (or right after validating).

    To stay precise, the rule reports only a module that the loop also trains: runs with
    gradients enabled, or steps with an optimizer built from its parameters, whatever runs it
    (`loss = loss_fn(model, x)`). A frozen teacher network set to `eval()` and run under
    `torch.no_grad()`, or handed to a loss while the optimizer holds only the student, is
    not reported. The rule is also silent when the loop calls any `.train()`, or when the
    `eval()` is followed by `break`/`return` (the last epoch).

    Helper functions count, whether defined in the same file or imported from another file
    of the project: an `evaluate(model, loader)` that leaves `model` in eval mode on every
    exit is reported where the loop calls it, and so is a method of the file that does on
    one path (`self.log_and_save(step)` whose `if step % eval_steps == 0:` calls
    `self.evaluate()`), as an `if` around `model.eval()` in the loop would be, and a helper of
    the file that hands the module on to a function of another file that leaves it in eval
    mode (`eval_model(step, model)` calling `synthesis.tts(model, text)`); a training helper that calls `model.train()`
    restores the mode (also one that evaluates at its end and returns in eval mode: each call
    sets train mode again before it trains, even when its `model.train()` opens each epoch of
    its own loop), and a loop that backpropagates through a helper
    (`train_one_epoch(model, ...)`) is a training loop for the modules it passes. A training
    helper that itself calls `model.eval()` and then backpropagates trains in eval mode on
    purpose (the linear-probe protocol keeps batch-norm statistics frozen): it sets the mode it
    trains in, like one that calls `model.train()`. A loop that evaluates the module several
    times is reported once, at the first evaluation.

    ## Example
    ```python
    model.train()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        validate(model)
    ```

    Use instead:
    ```python
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        validate(model)
    ```

    ## Fix safety
    There is no automatic fix: where training mode should be restored depends on the loop.

    ## References
    - [`torch.nn.Module.eval`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.eval)
    - [`torch.nn.Module.train`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.train)
    - [Autograd mechanics: evaluation mode](https://pytorch.org/docs/stable/notes/autograd.html#evaluation-mode-nn-module-eval)
    """

    code = "TCK106"
    name = "eval-mode-not-restored"
    message = "Training loop calls `eval()` but never `train()`; later iterations train in evaluation mode"
    # `.eval()` here, or a helper of another file that evaluates (`evaluate`, `validate` ...)
    required_text = ("eval", "valid")

    VALID = (
        Valid(
            """
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 2)

    def compute_loss(self, x, y):
        return nn.functional.cross_entropy(self.head(x), y)


def fit(loader, optimizer):
    model = Classifier()
    for step, (x, y) in enumerate(loader):
        loss = model.compute_loss(x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            model.eval()
            with torch.no_grad():
                print(model.compute_loss(x, y).item())
            model.train()
"""
        ),
        Valid(
            """
def iterate(model, loader, criterion, optimizer=None, mode="train"):
    for x, y in loader:
        loss = criterion(model(x), y)
        if mode == "train":
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return loss.item()

def test_folds(model, folds, criterion):
    for fold in folds:
        model.load_state_dict(fold.weights)
        model.eval()
        print(iterate(model, fold.loader, criterion, mode="test"))
"""
        ),
        Valid(
            """
import torch

def train(model, optimizer, dataset, device, batch_size, augmentation):
    model.train()
    for x, y in dataset.batches(batch_size, augmentation):
        torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device)).backward()
        optimizer.step()

def evaluate(model, loader, device, eval_mode):
    if eval_mode:
        model.eval()
    with torch.no_grad():
        return sum((model(x.to(device)).argmax(1) == y).sum().item() for x, y in loader)

def run(model, optimizer, train_loader, test_loader, device, epochs):
    for epoch in range(epochs):
        train(model, optimizer, train_loader, device)
        evaluate(model, test_loader, device, True)
"""
        ),
        Valid(
            """
import torch

class Trainer:
    def fit(self, epochs, eval_steps):
        step = 0
        for epoch in range(epochs):
            self.model.train()
            for x, y in self.loader:
                loss = self.loss_fn(self.model(x), y)
                loss.backward()
                self.optimizer.step()
                self.log_and_save(step, eval_steps)
                step += 1

    def log_and_save(self, step, eval_steps):
        if step % eval_steps == 0:
            self.evaluate()
            self.model.train()

    def evaluate(self):
        self.model.eval()
        with torch.no_grad():
            return sum(self.loss_fn(self.model(x), y).item() for x, y in self.val_loader)
"""
        ),
        Valid(
            """
def fit(model, loader, optimizer, evaluate, epochs):
    evaluate(model)
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
        evaluate(model)
    model.eval()
    return model

def sweep(build, loader, make_optimizer, evaluate, seeds):
    for seed in seeds:
        model = build(seed)
        fit(model, loader, make_optimizer(model), evaluate, 10)
"""
        ),
        Valid(
            """
import torch

def distill(student, teacher, loader, distill_loss):
    optimizer = torch.optim.AdamW(student.parameters())
    for x in loader:
        teacher.eval()
        loss = distill_loss(student, teacher, x)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    model.eval()
    validate(model)
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    teacher.eval()
    with torch.no_grad():
        soft = teacher(x)
    loss = distill(student(x), soft)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
"""
        ),
        Valid(
            """
for step, (x, y) in enumerate(loader):
    criterion(model(x), y).backward()
    optimizer.step()
    optimizer.zero_grad()
    if step % eval_every == 0:
        model.eval()
        evaluate(model)
        model.train()
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    for x, y in loader:
        criterion(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
    if epoch == epochs - 1:
        model.eval()
        break
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    train_one_epoch(model, loader)
    model.eval()
    validate(model)
"""
        ),
        Valid(
            """
import torch

def train_one_epoch(model, loader, optimizer):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()

def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(criterion(model(x), y).item() for x, y in loader)

for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    evaluate(model, val_loader)
"""
        ),
        Valid(
            """
import torch

def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        total = sum(criterion(model(x), y).item() for x, y in loader)
    model.train()
    return total

for epoch in range(epochs):
    for x, y in train_loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    evaluate(model, val_loader)
"""
        ),
        Valid(
            """
import torch

def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(criterion(model(x), y).item() for x, y in loader)

for epoch in range(epochs):
    for x, y in train_loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    evaluate(model, val_loader)
    model.train()
"""
        ),
        Valid(
            """
import torch

def train(loader, model, criterion, optimizer):
    model.eval()  # linear classification on frozen features: batch-norm statistics stay fixed
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

def validate(loader, model, criterion):
    model.eval()
    with torch.no_grad():
        return sum(criterion(model(x), y).item() for x, y in loader)

for epoch in range(epochs):
    train(train_loader, model, criterion, optimizer)
    validate(val_loader, model, criterion)
"""
        ),
        Valid(
            """
import torch

def measure(net, features, labels, split):
    net.eval()
    with torch.no_grad():
        return (net(features)[split].argmax(1) == labels[split]).float().mean().item()

def fit_step(net, optimizer, features, labels, train_split, val_split):
    net.train()
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(net(features)[train_split], labels[train_split]).backward()
    optimizer.step()
    return measure(net, features, labels, val_split)

for epoch in range(epochs):
    accuracy = fit_step(graph_net, optimizer, features, labels, train_split, val_split)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 2)

    def compute_loss(self, x, y):
        return nn.functional.cross_entropy(self.head(x), y)


def fit(loader, optimizer):
    model = Classifier()
    for step, (x, y) in enumerate(loader):
        loss = model.compute_loss(x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            model.eval()  # TCK106
            with torch.no_grad():
                print(model.compute_loss(x, y).item())
"""
        ),
        Invalid(
            """
import torch


def get_loss(model, images, labels):
    logits = model(images)
    return torch.nn.functional.cross_entropy(logits, labels), (logits.argmax(-1) == labels).float().mean()


def train(model, loader, optimizer, args):
    model.train()
    for step, (images, labels) in enumerate(loader):
        optimizer.zero_grad()
        loss, accuracy = get_loss(model, images, labels)
        loss.backward()
        optimizer.step()
        if (step + 1) % args.valid_step_interval == 0:
            evaluate(model, loader)  # TCK106


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        for images, labels in loader:
            get_loss(model, images, labels)
"""
        ),
        Invalid(
            """
import torch

class ClassificationModel:
    def train(self, loader, optimizer, epochs, eval_every):
        model = self.model
        if self.n_gpu > 1:
            model = torch.nn.DataParallel(model)
        model.train()
        for epoch in range(epochs):
            for step, batch in enumerate(loader):
                loss = model(**batch)[0]
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                if step % eval_every == 0:
                    self.eval_model(self.eval_data)  # TCK106

    def eval_model(self, data):
        return self.evaluate(data)

    def evaluate(self, data):
        model = self.model
        model.eval()
        with torch.no_grad():
            return [model(**batch)[0].item() for batch in data]
"""
        ),
        Invalid(
            """
import torch

class Trainer:
    def _loss(self, batch):
        return self.model(batch.x).sub(batch.y).pow(2).mean()

    def _train_step(self, batch):
        self.optimizer.zero_grad()
        self._loss(batch).backward()
        self.optimizer.step()

    def _eval_step(self, batch):
        self.model.eval()
        with torch.no_grad():
            return self._loss(batch).item()

    def train(self, batches, every):
        for step, batch in enumerate(batches):
            self._train_step(batch)
            if step % every == 0:
                self._eval_step(batch)  # TCK106
"""
        ),
        Invalid(
            """
import torch
from losses import score_loss
class Runner:
    def get_optimizer(self, parameters):
        return torch.optim.Adam(parameters, lr=1e-4)
    def train(self, score, loader, test_batch):
        optimizer = self.get_optimizer(score.parameters())
        score.train()
        for step, x in enumerate(loader):
            loss = score_loss(score, x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 100 == 0:
                score.eval()  # TCK106
                with torch.no_grad():
                    print(score_loss(score, test_batch).item())
"""
        ),
        Invalid(
            """
import torch

class Trainer:
    def fit(self, epochs, eval_steps):
        step = 0
        for epoch in range(epochs):
            self.model.train()
            for x, y in self.loader:
                loss = self.loss_fn(self.model(x), y)
                loss.backward()
                self.optimizer.step()
                self.log_and_save(step, eval_steps)  # TCK106
                step += 1

    def log_and_save(self, step, eval_steps):
        if step % eval_steps == 0:
            self.evaluate()

    def evaluate(self):
        self.model.eval()
        with torch.no_grad():
            return sum(self.loss_fn(self.model(x), y).item() for x, y in self.val_loader)
"""
        ),
        Invalid(
            """
class Runner:
    def __init__(self, model, optimizer, args):
        self.model, self.optimizer, self.args = model, optimizer, args
    def train(self, loader, eval_file, **kwargs):
        model = self.model
        for epoch in range(self.args.epochs):
            model.train()
            for step, (x, y) in enumerate(loader):
                loss = model(x, labels=y).loss
                loss.backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
                if step % self.args.eval_every == 0:
                    self.eval_model(eval_file, **kwargs)  # TCK106
    def eval_model(self, eval_file, **kwargs):
        return self.evaluate(self.load(eval_file), **kwargs)
    def evaluate(self, dataset, **kwargs):
        model = self.model
        model.eval()
        return sum(model(x).loss.item() for x in dataset)
"""
        ),
        Invalid(
            """
import torch

def train(score, loader, loss_fn, test_x):
    optimizer = torch.optim.Adam(score.parameters(), lr=1e-3)
    for step, (x, y) in enumerate(loader):
        loss = loss_fn(score, x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            score.eval()  # TCK106
            with torch.no_grad():
                print(loss_fn(score, test_x).item())
"""
        ),
        Invalid(
            """
model.train()
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    model.eval()  # TCK106
    validate(model)
"""
        ),
        Invalid(
            """
import torch
class Trainer:
    def fit(self):
        self.model.train()
        for step, batch in enumerate(self.train_loader):
            loss = self.model(batch).mean()
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            if step % 500 == 0:
                self.model.eval()  # TCK106
                with torch.no_grad():
                    self.validate()
"""
        ),
        Invalid(
            """
import torch

def train(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()

def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(criterion(model(x), y).item() for x, y in loader)

for epoch in range(epochs):
    train(model, train_loader, optimizer)
    evaluate(model, val_loader)  # TCK106
    evaluate(model, test_loader)
"""
        ),
        Invalid(
            """
import torch

def train_and_validate(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        return sum(criterion(model(x), y).item() for x, y in loader)

for epoch in range(epochs):
    train_and_validate(model, loader, optimizer)  # TCK106
"""
        ),
        Invalid(
            """
def step(net, optimizer, batch, warmup):
    if warmup:
        net.train()
    criterion(net(batch.x), batch.y).backward()
    optimizer.step()
    optimizer.zero_grad()
    net.eval()

for index, batch in enumerate(loader):
    step(model, optimizer, batch, index < 10)  # TCK106
"""
        ),
    )

    def _facts(self) -> _LoopFacts:
        return self.context.flow.loop_facts(self, _LoopFacts)

    def visit_Call(self, node: cst.Call) -> None:
        loops = self.context.loops
        if not loops or not isinstance(node.func, (cst.Attribute, cst.Name)):
            return
        summary = self.context.call_summary(node)
        if summary is not None:
            self._helper(node, summary, loops)
            return
        if self._imported_helper(node):
            return
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        if method == "eval" and not node.args:
            receiver = receiver_text(node)
            if receiver is not None:
                self._facts().evals.append(_Eval(self.context.flow.event(node), receiver))
        elif method == "train" and not _sets_eval_mode(node):
            self._facts().trained.update(loops)
        elif method == "step" and not node.args:
            # the modules whose parameters the stepped optimizer holds are what the loop trains,
            # whatever runs them (`loss = loss_fn(model, x)`)
            self._run_with_grad(loops, set(self._optimized_by(node.func.value)))  # type: ignore[union-attr]
        elif not self.context.grad_maybe_disabled:
            # `model(x)`, `model.forward(x)`, and a method the model's class defines (`model.compute_loss(batch)`)
            own_method = method not in torch_api.NN_MODULE_API and self.context.kind_of(node.func.value) is Kind.MODULE  # type: ignore[union-attr]
            called = node.func.value if method == "forward" or own_method else node.func  # type: ignore[union-attr]
            held = references.held_attribute(self.context.binder, called, self.context.qualified_name) if type(called) is cst.Name else None  # `model = self.model`
            self._run_with_grad(loops, {name for name in (dotted_name(called), held) if name is not None})

    def _helper(self, call: cst.Call, summary: FunctionSummary, loops: tuple[Loop, ...]) -> None:
        facts = self._facts()
        if summary.effect(Effect.TRAIN, ANONYMOUS, certainty=Certainty.MUST) is not None:
            facts.trained.update(loops)  # it sets train mode on what the call cannot name (its arguments do not bind): trust it
        for mode in summary.exit_modes:
            # a train_one_epoch() that starts with model.train() (even one that then evaluates
            # and returns in eval mode: the next call sets train mode again before it trains),
            # or a linear-probe train() that starts with model.eval() and backpropagates: it
            # sets the mode it trains in
            if TRAIN in mode.modes or self._sets_mode(summary, mode.target):
                facts.trained.update(loops)
            elif mode.leaves_eval in (Certainty.MUST, Certainty.MAY):  # one path out in eval mode is enough, as an `if` around `model.eval()` is
                facts.evals.append(_Eval(self.context.flow.event(call), mode.target, mode.eval_site))
        for delegation in summary.delegations:  # `eval_model(model)` hands it to `synthesis.tts(model)` of another file
            helper = self.context.project.symbol_of(spelled(delegation.callee)) if self.context.project is not None else None
            if helper is not None and not helper.is_local:
                self._handed_over(call, helper, CallShape(delegation.positional, delegation.keywords), set(delegation.passed))
        if self.context.grad_maybe_disabled:
            return
        # what it runs with gradients on (`loss = get_loss(model, x)`, `self.model(x)` in `self.train_epoch()`) runs in the loop
        ran = {effect.target for effect in summary.effects if effect.action == FORWARD and effect.target != ANONYMOUS}
        receiver = dotted_name(call.func.value) if isinstance(call.func, cst.Attribute) else None
        ran |= {receiver} if any(target.startswith(f"{receiver}.") for target in ran) else set()  # `model.compute_loss(x)` runs `model.head`: the model runs
        if summary.does(Effect.BACKWARD):
            facts.backpropagated.update(loops)
            ran |= {dotted_name(argument.value) for argument in call.args}  # type: ignore[arg-type]
        self._run_with_grad(loops, {name for name in ran if name is not None})

    @staticmethod
    def _sets_mode(summary: FunctionSummary, target: str) -> bool:
        """The helper puts ``target`` in train mode on every path (``model.train()``), or
        backpropagates through it while it is surely in eval mode: each call sets the mode
        the module trains in, whatever mode it is left in."""
        if summary.effect(Effect.TRAIN, target, certainty=Certainty.MUST) is not None:
            return True
        return summary.effect(Effect.BACKWARD_IN_EVAL, target) is not None or summary.effect(Effect.BACKWARD_IN_TRAIN, target) is not None

    def _optimized_by(self, optimizer: cst.BaseExpression) -> list[str]:
        binding = self.context.flow.last_binding(optimizer.value) if isinstance(optimizer, cst.Name) else None
        made = binding.value if binding is not None else None
        return optimized_paths(self.context, made) if isinstance(made, cst.Call) else []

    def _imported_helper(self, call: cst.Call) -> bool:
        """A helper from another file of the project: what it does to the modules it is
        passed is a question for the project index."""
        passed = {name for argument in call.args if (name := dotted_name(argument.value)) is not None}
        helper = imported_callee(self.context, call) if passed else None
        if helper is None:
            return False
        self._handed_over(call, helper, call_shape(call), passed)
        return True

    def _handed_over(self, call: cst.Call, helper: Symbol, shape: CallShape, passed: set[str]) -> None:
        """``call`` hands the names ``passed`` to ``helper`` of another file: whether it leaves
        a module among them in eval mode, or switches it back, the project decides."""
        event = self.context.flow.event(call)
        facts = self._facts()
        facts.imported.append(_ImportedCall(event, helper, shape, frozenset(passed), not self.context.grad_maybe_disabled))
        for name in sorted(passed):
            if self.context.kind_of(spelled(name)) is Kind.MODULE:
                condition = Condition(helper, f"leaves_eval:{name}", MUST, shape)
                facts.evals.append(_Eval(event, name, condition=condition))

    def _run_with_grad(self, loops: tuple[Loop, ...], callees: set[str]) -> None:
        run, held = self._facts().run_with_grad, {self._held_attribute(name) for name in callees} - {None}
        for loop in loops:
            run.setdefault(loop, set()).update(callees, held)  # type: ignore[arg-type]

    def _held_attribute(self, name: str) -> str | None:
        """``self.model`` for ``model`` bound by ``model = self.model``: one module, two names."""
        root, dot, rest = name.partition(".")
        binding = self.context.flow.last_binding(root)
        value = dotted_name(binding.value) if binding is not None and binding.value is not None else None
        return f"{value}{dot}{rest}" if value is not None and value.startswith("self.") else None

    def leave_loop(self, loop: Loop) -> None:
        """Decide once the outermost loop is complete: an outer loop may still call train()."""
        facts = self._facts()
        reported: set[tuple[Loop, str, Symbol | None]] = set()
        for found in facts.evals:
            if self.context.flow.leaves_after(found.event):
                continue  # a break/return/raise ends the loop after the eval: the last epoch
            for loop in found.event.loops:
                conditions = self._never_restored_unless(facts, loop, found)
                if conditions is None:
                    continue
                # one mistake: the first of several evaluations of the module in the loop
                once = (loop, found.receiver, found.condition.symbol if found.condition else None)
                if once not in reported:
                    reported.add(once)
                    self._report(found, conditions)
                break

    def _never_restored_unless(self, facts: _LoopFacts, loop: Loop, found: _Eval) -> tuple[Condition, ...] | None:
        """None when ``loop`` restores the mode (or does not train); otherwise the conditions
        on helpers of other files under which it never does (none when all is in this file)."""
        if loop in facts.trained:
            return None
        receiver = found.receiver
        imported = [call for call in facts.imported if loop in call.event.loops]
        # a helper of another file the module is passed to must not switch it back to train(),
        # nor train it in eval mode on purpose (backward() while it is in eval mode)
        unless = [
            Condition(call.helper, f"effect:{action}:{receiver}", NONE, call.shape)
            for call in imported
            if receiver in call.passed
            for action in (TRAIN, BACKWARD_IN_EVAL)
        ]
        if self._never_restored(facts, loop, receiver):
            if found.condition is None:
                return ()  # everything happens in this file
            return (found.condition, *unless)
        trainer = next((call for call in imported if call.with_grad and receiver in call.passed and call.event is not found.event), None)
        if trainer is None:
            return None
        # the loop trains the module only through a helper of another file: it must backpropagate
        trains = Condition(trainer.helper, "does:backward", MAY, trainer.shape)
        return (*([found.condition] if found.condition else []), trains, *unless)

    def _never_restored(self, facts: _LoopFacts, loop: Loop, receiver: str) -> bool:
        trains = self.context.is_training_loop(loop) or loop in facts.backpropagated
        return trains and loop not in facts.trained and receiver in facts.run_with_grad.get(loop, ())

    def _report(self, found: _Eval, conditions: tuple[Condition, ...]) -> None:
        if found.condition is not None:
            self.report(found.event.node, _THROUGH_HELPER.format(site=PLACE), conditions=conditions)
        elif found.site is None:
            self.report(found.event.node, conditions=conditions)
        else:
            message = _THROUGH_HELPER.format(site=found.site.describe(self.context.line_of))
            self.report(found.event.node, message, conditions=conditions)
