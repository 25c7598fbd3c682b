from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext, Loop
from torchcheck.lint.flow import Event
from torchcheck.lint.idioms import Effect
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import dotted_name, source_text, subtree
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.summaries import (
    ANONYMOUS,
    EVAL,
    TRAIN,
    FunctionSummary,
    ResolvedCall,
    spelled,
)

_MESSAGE = "`{call}` runs `{module}` in training mode in an evaluation {scope}: {why}; dropout and batch-norm statistics stay live"
_BUILT_HERE = "it is built here and never switched to `eval()`"
_TRAINED_HERE = "it is trained here (`backward()` at line {line}) and not switched to `eval()` since"
_LAST_TRAIN = "the last mode switch before it is `{switch}` at line {line}, and no `eval()` follows"
_NOT_BY_CALLER = "neither this function nor `{caller}()`, which calls it at line {line}, switches it to `eval()`"

# Words that name an evaluation function: `evaluate`, `validate_one_epoch`, `run_eval`, `test`.
_EVALUATION_WORDS = frozenset({"validate", "validation", "evaluate", "evaluation", "eval", "valid"})
# `test*` names of evaluation functions; any other `test_...` is taken for a unit test.
_TEST_NAMES = frozenset(
    {"test", "testing", "test_epoch", "test_one_epoch", "test_model", "test_net", "test_loop", "test_all", "test_accuracy"}
)
# Ways a module comes back already in evaluation mode (`from_pretrained`, most `load_model`
# helpers) or in whatever mode it was saved in (`torch.load`): not a fresh module.
_LOADER_WORDS = ("load", "pretrained", "restore", "checkpoint", "jit", "hub")
# Layers whose output depends on the mode; any other torch.nn layer computes the same in both.
_MODE_DEPENDENT_LAYERS = frozenset(
    "Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout BatchNorm1d BatchNorm2d BatchNorm3d "
    "LazyBatchNorm1d LazyBatchNorm2d LazyBatchNorm3d SyncBatchNorm InstanceNorm1d InstanceNorm2d InstanceNorm3d "
    "Transformer TransformerEncoder TransformerDecoder TransformerEncoderLayer TransformerDecoderLayer".split()
)
_RECURRENT_LAYERS = frozenset({"RNN", "LSTM", "GRU", "MultiheadAttention"})  # mode-dependent with dropout=
_CONTAINERS = frozenset({"Sequential", "ModuleList", "ModuleDict"})
_MODE_DEPENDENT_TEXT = re.compile(r"dropout|batch_?norm|instance_?norm|\.training\b|Transformer", re.IGNORECASE)
_MAX_CALLER_DEPTH = 4
# The last part of each grad-mode manager's name is spelled wherever it is used or imported.
_GRADIENTS_OFF_TEXT = frozenset(name.rsplit(".", 1)[-1] for name in torch_api.NO_GRAD_CONTEXTS | torch_api.SET_GRAD_ENABLED)
_DEF_NAME = re.compile(r"def\s+(\w+)")
# Factories whose result is a module even when the linter does not otherwise know them.
_MODEL_ZOOS = ("torchvision.models.", "timm.create_model", "timm.models.")
_GRADIENT_USES = frozenset({"backward", "grad", "enable_grad", "requires_grad_", "vjp", "jacobian", "manual_backward"})
_GRADIENT_FUNCTIONS = frozenset({"torch.autograd.backward", "torch.autograd.grad"}) | torch_api.ENABLE_GRAD_CONTEXTS
_SET = "set"  # `model.train(flag)`: the author chooses the mode


class _Status(enum.Enum):
    EVAL = "eval"  # switched to eval(), or the mode is managed on purpose
    TRAIN = "train"  # certainly left in training mode on the way here
    UNKNOWN = "unknown"  # a caller in another file may have switched it


@dataclass(frozen=True)
class _Switch:
    event: Event
    target: str
    mode: str  # EVAL, TRAIN or _SET
    code: str


@dataclass(frozen=True)
class _ModelCall:
    event: Event
    spellings: frozenset[str]  # the module as called, and what the name is an alias of
    module: str
    no_grad: bool


@dataclass(frozen=True)
class _Caller:
    function: cst.FunctionDef | None
    event: Event
    resolved: ResolvedCall


@dataclass(frozen=True)
class _Build:
    """``name = Net(...)``: a module built in training mode."""

    name: str
    order: int
    # whether its layers behave differently in training mode: known for torch.nn layers; None
    # for a class of this file (decided from the file's text when needed); True otherwise
    mode_dependent: bool | None


@dataclass
class _FunctionFacts:
    switches: list[_Switch] = field(default_factory=list)
    built: list[_Build] = field(default_factory=list)  # `name = Net()`
    zoo_models: set[str] = field(default_factory=set)  # names bound to `torchvision.models.resnet18()` ...
    # helpers that backpropagate: (walk order, the names passed), `train_one_epoch(model, ...)`
    trained_by_helpers: list[tuple[int, frozenset[str]]] = field(default_factory=list)
    backwards: list[int] = field(default_factory=list)  # walk orders of backward() and helpers doing it
    model_calls: list[_ModelCall] = field(default_factory=list)
    asserts: bool = False
    in_module_class: bool = False


@dataclass(frozen=True)
class _Verdict:
    status: _Status
    why: str = ""


_EVAL = _Verdict(_Status.EVAL)
_UNKNOWN = _Verdict(_Status.UNKNOWN)


def _is_evaluation_name(name: str) -> bool:
    """``evaluate``, ``validate_epoch``, ``run_eval``, ``test``, ``test_model``; not the hooks a
    framework calls with the mode already set (``validation_step``, ``test_step``)."""
    lowered = name.lower().strip("_")
    words = lowered.split("_")
    if words[-1] == "step":
        return False
    return lowered in _TEST_NAMES or any(word in _EVALUATION_WORDS for word in words)


def _innermost(call: cst.Call) -> cst.Call:
    """``Net()`` in ``Net().to(device).eval()``."""
    while isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Call):
        call = call.func.value
    return call


def _mode_set_by(call: cst.Call) -> str | None:
    """EVAL for ``m.eval()`` and ``m.train(False)``, TRAIN for ``m.train()``, _SET for
    ``m.train(flag)``; None for any other call."""
    method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
    if method == EVAL:
        return EVAL
    if method != TRAIN:
        return None
    flag = call.args[0].value if call.args else None
    if flag is None or (isinstance(flag, cst.Name) and flag.value == "True"):
        return TRAIN
    return EVAL if isinstance(flag, cst.Name) and flag.value == "False" else _SET


def _switches_to_eval(call: cst.Call) -> bool:
    """Whether a chain of calls passes through ``.eval()`` / ``.train(False)``: ``Net().eval()``."""
    while isinstance(call.func, cst.Attribute):
        if _mode_set_by(call) == EVAL:
            return True
        if not isinstance(call.func.value, cst.Call):
            return False
        call = call.func.value
    return False


def _covers(switched: str, called: str) -> bool:
    """``model.eval()`` switches ``model.encoder`` too."""
    return called == switched or called.startswith(switched + ".")


def _dotted_names_in(expression: cst.CSTNode) -> set[str]:
    """The dotted names in ``expression`` (``model`` and ``model.module`` in ``model.module``)."""
    spelled = (dotted_name(node) for node in subtree(expression) if isinstance(node, (cst.Name, cst.Attribute)))
    return {name for name in spelled if name is not None}


def _one_line(node: cst.CSTNode) -> str:
    return " ".join(source_text(node).split())


class EvaluationInTrainMode(Rule):
    """
    ## What it does
    Checks for evaluation code that runs a module still in training mode: a function named
    like an evaluation (`evaluate`, `validate`, `test*`) or a loop under `torch.no_grad()` /
    `torch.inference_mode()`, without `backward()`, that calls a module which neither it nor
    any caller switches to `eval()`.

    ## Why is this bad?
    `torch.no_grad()` only stops gradient tracking; the mode of the layers is a separate
    switch. In training mode dropout keeps zeroing activations at random, and batch norm
    normalises with the statistics of the current batch - and updates its running statistics
    with the evaluation data. Scores come out noisy and wrong (often worse than they should
    be, sometimes better, when a test batch's own statistics help), differ with the batch
    size, and the model's running statistics drift towards the validation set. Call
    `model.eval()` before evaluating (and `model.train()` before training again).

    The rule is opt-in for now: on public code, an evaluation function often gets its model
    from a helper of another file that already switched it to `eval()` (`get_model()`), or
    runs a model without dropout or batch norm, and the rule cannot see either yet. Enable it
    with `extend-select = ["TCK114"]`.

    The mode may be switched in the evaluation function itself or by any caller in the same
    file before it calls the function (through helpers too). When an evaluation function is
    not called in its own file, a caller in another file may switch the mode: the rule then
    reports only a module the function builds itself. A module switched back with `train()`
    on purpose before a loop that does not backpropagate (re-estimating batch-norm
    statistics) is not reported, and neither are methods of modules, the per-batch hooks
    frameworks call with the mode already set (`validation_step`, `test_step`), modules that
    come back from a loader (`from_pretrained` switches to eval mode itself; `torch.load` and
    `load_model` helpers keep whatever mode was saved), and modules built only from layers that
    compute the same in both modes (no dropout, batch norm or `self.training` in the file).
    Of the `test*` names, only evaluation-like ones count (`test`, `test_epoch`,
    `test_model`, ...) and only when they loop over batches without asserting: other
    `test_...` functions are unit tests.

    ## Example
    ```python
    import torch

    def evaluate(model, loader):
        correct = 0
        with torch.no_grad():
            for images, labels in loader:
                correct += (model(images).argmax(1) == labels).sum().item()
        return correct

    for epoch in range(epochs):
        model.train()
        for images, labels in train_loader:
            optimizer.zero_grad()
            criterion(model(images), labels).backward()
            optimizer.step()
        evaluate(model, val_loader)
    ```

    Use instead:
    ```python
    import torch

    def evaluate(model, loader):
        model.eval()
        correct = 0
        with torch.no_grad():
            for images, labels in loader:
                correct += (model(images).argmax(1) == labels).sum().item()
        return correct

    for epoch in range(epochs):
        model.train()
        for images, labels in train_loader:
            optimizer.zero_grad()
            criterion(model(images), labels).backward()
            optimizer.step()
        evaluate(model, val_loader)
    ```

    ## Fix safety
    There is no automatic fix: where the mode should be switched back to training depends on
    what runs after the evaluation.

    ## References
    - [Need to set the model to 'eval' mode when assessing the validation data (wolny/pytorch-3dunet#53)](https://github.com/wolny/pytorch-3dunet/issues/53)
    - [Test accuracy differs because `model.eval()` is not called in the evaluation (microsoft/robustdg#30)](https://github.com/microsoft/robustdg/issues/30)
    - [Autograd mechanics: evaluation mode (`nn.Module.eval()`)](https://pytorch.org/docs/stable/notes/autograd.html#evaluation-mode-nn-module-eval)
    """

    code = "TCK114"
    name = "evaluation-in-train-mode"
    message = "Evaluation runs a module in training mode; call `model.eval()` first"
    default_enabled = False  # opt-in until its precision on real code reaches 90%

    @classmethod
    def may_fire_in(cls, text: str) -> bool:
        """Only evaluation functions and loops with gradients off are judged: a file needs a
        ``def`` with an evaluation name, or code that turns gradients off."""
        return any(token in text for token in _GRADIENTS_OFF_TEXT) or any(map(_is_evaluation_name, _DEF_NAME.findall(text)))

    VALID = (
        Valid(
            """
import torch

def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(criterion(model(x), y).item() for x, y in loader)
"""
        ),
        Valid(
            """
import torch

def evaluate(model, loader):
    with torch.no_grad():
        return sum(criterion(model(x), y).item() for x, y in loader)

def main(model, train_loader, val_loader):
    train(model, train_loader)
    model.eval()
    evaluate(model, val_loader)
"""
        ),
        Valid(
            """
import torch

def evaluate(model, loader):
    with torch.no_grad():
        return sum(criterion(model(x), y).item() for x, y in loader)
"""
        ),
        Valid(
            """
import torch

def recalibrate_batch_norm(model, loader):
    model.train()
    with torch.no_grad():
        for images, _ in loader:
            model(images)
    model.eval()
"""
        ),
        Valid(
            """
import torch.nn as nn

class Classifier(nn.Module):
    def evaluate(self, x):
        with torch.no_grad():
            return self.head(self.backbone(x))
"""
        ),
        Valid(
            """
import torch

def test_forward_keeps_the_batch_shape():
    model = Net()
    for batch in [torch.randn(2, 3), torch.randn(4, 3)]:
        assert model(batch).shape[0] == batch.shape[0]
"""
        ),
        Valid(
            """
from transformers import AutoModelForSequenceClassification
import torch

def evaluate(loader):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
    with torch.no_grad():
        return [model(**batch).logits for batch in loader]
"""
        ),
        Valid(
            """
import torch

def train(model, loader, teacher):
    model.train()
    for x, y in loader:
        with torch.no_grad():
            target = teacher(x)
        criterion(model(x), target).backward()
        optimizer.step()
"""
        ),
        Valid(
            """
import torch

class Trainer:
    def validate(self):
        with torch.no_grad():
            return [self.model(batch) for batch in self.val_loader]

    def fit(self):
        for epoch in range(self.epochs):
            self.train_epoch()
            self.model.eval()
            self.validate()
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

class NeuralNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 500)
        self.fc2 = nn.Linear(500, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

model = NeuralNet()
for images, labels in train_loader:
    criterion(model(images), labels).backward()
    optimizer.step()
    optimizer.zero_grad()
with torch.no_grad():
    correct = sum((model(images).argmax(1) == labels).sum().item() for images, labels in test_loader)
"""
        ),
        Valid(
            """
import torch
from models.experimental import attempt_load
from utils.torch_utils import TracedModel

def detect(weights, dataset):
    model = attempt_load(weights)
    model = TracedModel(model, "cuda", 640)
    for path, image in dataset:
        with torch.no_grad():
            prediction = model(image)[0]
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
import torchvision

def evaluate(loader):
    model = torchvision.models.resnet18(weights="DEFAULT")
    correct = 0
    with torch.no_grad():
        for images, labels in loader:
            correct += (model(images).argmax(1) == labels).sum().item()  # TCK114
    return correct
"""
        ),
        Invalid(
            """
import torch

def evaluate(model, loader):
    with torch.no_grad():
        return sum(criterion(model(x), y).item() for x, y in loader)  # TCK114

def main(model, train_loader, val_loader, optimizer):
    for epoch in range(10):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        evaluate(model, val_loader)
"""
        ),
        Invalid(
            """
import torch

class Trainer:
    def validate(self):
        with torch.no_grad():
            return [self.model(batch) for batch in self.val_loader]  # TCK114

    def fit(self):
        self.model.train()
        for epoch in range(self.epochs):
            for batch in self.train_loader:
                self.model(batch).mean().backward()
                self.optimizer.step()
            self.validate()
"""
        ),
        Invalid(
            """
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))
with torch.no_grad():
    for x in test_inputs:
        predictions.append(net(x).argmax())  # TCK114
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._functions: dict[cst.FunctionDef | None, _FunctionFacts] = {None: _FunctionFacts()}
        self._callers: dict[cst.FunctionDef, list[_Caller]] = {}
        self._gradient_loops: set[Loop] = set()
        self._backward_nodes: dict[int, cst.CSTNode] = {}  # walk order -> the backward() or helper call
        self._module: cst.Module | None = None
        self._file_has_mode_dependent_layers: bool | None = None

    # ----------------------------------------------------------------- the walk
    def visit_Module(self, node: cst.Module) -> None:
        self._module = node

    def _here(self) -> _FunctionFacts:
        return self._functions[self.context.flow.function]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions[node] = _FunctionFacts(in_module_class=self.context.in_module_class)

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.context.in_module_class or not (isinstance(node.value, cst.Call) and self._creates(node.value)):
            return
        order = self.context.flow.event(node).order
        built = _innermost(node.value)
        zoo = (self.context.call_name(built) or "").startswith(_MODEL_ZOOS)
        dependent = self._mode_dependent(built)
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._here().built.append(_Build(target.target.value, order, dependent))
                if zoo:
                    self._here().zoo_models.add(target.target.value)

    def _mode_dependent(self, built: cst.Call) -> bool | None:
        qualified = self.context.call_name(built) or ""
        layer = qualified.rsplit(".", 1)[-1]
        if qualified.startswith("torch.nn.") and torch_api.is_module_class_name(qualified):
            if layer in _CONTAINERS:
                return _MODE_DEPENDENT_TEXT.search(source_text(built)) is not None
            if layer in _RECURRENT_LAYERS:
                return any(argument.keyword is not None and argument.keyword.value == "dropout" for argument in built.args)
            return layer in _MODE_DEPENDENT_LAYERS
        if isinstance(built.func, cst.Name) and built.func.value in self.context.module_classes:
            return None
        return True

    def visit_Assert(self, node: cst.Assert) -> None:
        self._here().asserts = True

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.in_module_class:
            return  # a module's own methods: its mode is its owner's business
        summary = self.context.call_summary(node)
        if summary is not None:
            self._helper(node, summary)
            return
        mode = _mode_set_by(node)
        if mode is not None:
            self._switch(node, mode)
        elif self._uses_gradients(node):
            return  # recorded when left: after the forward passes in its arguments
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "forward":
            self._model_call(node, node.func.value)
        else:
            self._model_call(node, node.func)

    def _switch(self, call: cst.Call, mode: str) -> None:
        target = dotted_name(call.func.value)  # type: ignore[attr-defined]
        if target is not None:
            self._here().switches.append(_Switch(self.context.flow.event(call), target, mode, _one_line(call)))

    def _uses_gradients(self, call: cst.Call) -> bool:
        method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
        return method in _GRADIENT_USES or self.context.call_name(call) in _GRADIENT_FUNCTIONS

    def leave_Call(self, original_node: cst.Call) -> None:
        if self.context.in_module_class:
            return
        if self.context.call_summary(original_node) is None and self._uses_gradients(original_node):
            self._backward(self.context.flow.event(original_node))

    def _backward(self, event: Event) -> None:
        self._here().backwards.append(event.order)
        self._backward_nodes[event.order] = event.node
        self._gradient_loops.update(self.context.loops)

    def _helper(self, call: cst.Call, summary: FunctionSummary) -> None:
        """A helper of this file: the modes it leaves modules in, whether it backpropagates,
        and that this function calls it (for the callers of evaluation functions)."""
        event = self.context.flow.event(call)
        facts = self._here()
        for mode in summary.exit_modes:
            if mode.target != ANONYMOUS:
                switched = EVAL if EVAL in mode.modes else TRAIN
                facts.switches.append(_Switch(event, mode.target, switched, _one_line(call)))
        if summary.does(Effect.BACKWARD):
            self._backward(event)
            passed = {dotted_name(argument.value) for argument in call.args}
            facts.trained_by_helpers.append((event.order, frozenset(name for name in passed if name is not None)))
        resolved = self.context.resolve_call(call)
        if resolved is not None:
            self._callers.setdefault(resolved.function, []).append(_Caller(self.context.flow.function, event, resolved))

    def _model_call(self, call: cst.Call, callee: cst.BaseExpression) -> None:
        module = dotted_name(callee)
        facts = self._here()
        if module is None or not (self.context.kind_of(callee) is Kind.MODULE or module in facts.zoo_models):
            return
        spellings = {module} | self._aliases(module)
        facts.model_calls.append(_ModelCall(self.context.flow.event(call), frozenset(spellings), module, self.context.in_no_grad))

    def _aliases(self, module: str) -> set[str]:
        """The modules a local name stands for: ``model`` for ``net`` in ``net = model.module``
        or ``net = DataParallel(model)``."""
        if "." in module:
            return set()
        binding = self.context.flow.last_binding(module)
        if binding is None or binding.value is None or isinstance(binding.value, cst.Call) and self._creates(binding.value):
            return set()
        return {
            name for name in _dotted_names_in(binding.value) if name != module and self.context.kind_of(spelled(name)) is Kind.MODULE
        }

    def _creates(self, value: cst.Call) -> bool:
        """A call that builds a new module in training mode: a class or factory called by name
        (``Net()``, ``build_model(cfg)``, ``torchvision.models.resnet18()``), maybe moved
        (``Net().to(device)``); not a loader (``from_pretrained`` leaves it in eval mode,
        ``torch.load`` in whatever mode it was saved in) nor a method of a local object."""
        if _switches_to_eval(value):
            return False  # `Net().to(device).eval()`
        built = _innermost(value)
        if any(
            isinstance(argument.value, (cst.Name, cst.Attribute)) and self.context.kind_of(argument.value) is Kind.MODULE
            for argument in built.args
        ):
            return False  # a wrapper (`DataParallel(model)`, `TracedModel(model)`): the module is not new
        func = built.func
        name = func.value if isinstance(func, cst.Name) else self.context.qualified_name(func)
        return name is not None and not any(word in name.lower() for word in _LOADER_WORDS)

    # ----------------------------------------------------------------- the decision
    def leave_Module(self, node: cst.Module) -> None:
        for function, facts in self._functions.items():
            for scope, calls in self._evaluation_scopes(function, facts):
                self._check_scope(function, scope, calls)

    def _evaluation_scopes(self, function: cst.FunctionDef | None, facts: _FunctionFacts) -> list[tuple[str, list[_ModelCall]]]:
        if not facts.model_calls or facts.in_module_class:
            return []
        if function is not None and self._is_evaluation_function(function, facts):
            return [("function", facts.model_calls)]
        loops: dict[Loop, list[_ModelCall]] = {}
        for call in facts.model_calls:
            if call.no_grad and call.event.loops and not self._loop_uses_gradients(call.event.loops[0]):
                loops.setdefault(call.event.loops[0], []).append(call)
        return [("loop", calls) for calls in loops.values()]

    def _is_evaluation_function(self, function: cst.FunctionDef, facts: _FunctionFacts) -> bool:
        if not _is_evaluation_name(function.name.value) or facts.backwards:
            return False
        if self.context.summary_of(function).does(Effect.BACKWARD):
            return False
        if function.name.value.startswith("test"):
            # a pytest test asserts; an evaluation on a test set loops over batches
            return not facts.asserts and any(call.event.loops for call in facts.model_calls)
        return True

    def _loop_uses_gradients(self, loop: Loop) -> bool:
        return loop in self._gradient_loops or self.context.is_training_loop(loop)

    def _check_scope(self, function: cst.FunctionDef | None, scope: str, calls: list[_ModelCall]) -> None:
        checked: set[str] = set()
        for call in calls:
            if call.module in checked:
                continue
            checked.add(call.module)
            verdict = self._mode_at(function, call.spellings, call.event.order, 0)
            if verdict.status is _Status.TRAIN:
                message = _MESSAGE.format(call=_one_line(call.event.node), module=call.module, scope=scope, why=verdict.why)
                self.report(call.event.node, message)

    def _mode_at(self, function: cst.FunctionDef | None, spellings: frozenset[str], order: int, depth: int) -> _Verdict:
        """The mode the module is in at ``order`` in ``function``, as far as this file tells."""
        facts = self._functions.get(function)
        if facts is None:
            return _UNKNOWN
        switches = [switch for switch in facts.switches if any(_covers(switch.target, name) for name in spellings)]
        before = [switch for switch in switches if switch.event.order < order]
        if before:
            return self._after_switch(max(before, key=lambda switch: switch.event.order), facts, order)
        if any(switch.mode != TRAIN for switch in switches):
            return _EVAL  # switched later in the function (in a loop, before the next pass)
        builds = [build for build in facts.built if build.name in spellings and build.order < order]
        latest = max(builds, key=lambda found: found.order) if builds else None
        if latest is not None and not self._behaves_by_mode(latest):
            return _EVAL  # built from layers that compute the same in both modes
        trained = self._trained_before(facts, spellings, order)
        if trained is not None:
            return _Verdict(_Status.TRAIN, _TRAINED_HERE.format(line=trained))
        if latest is not None:
            return _Verdict(_Status.TRAIN, _BUILT_HERE)
        if function is None or depth >= _MAX_CALLER_DEPTH:
            return _UNKNOWN
        return self._mode_from_callers(function, spellings, depth)

    def _trained_before(self, facts: _FunctionFacts, spellings: frozenset[str], order: int) -> int | None:
        """The line of a ``backward()`` that follows a gradient-enabled call of the module and
        precedes ``order``: the module was trained here (a module is trained in training mode)."""
        runs = [call.event.order for call in facts.model_calls if not call.no_grad and spellings & call.spellings]
        for backward in facts.backwards:
            if backward < order and any(run < backward for run in runs):
                return self.context.line_of(self._backward_nodes[backward])
        for helper, passed in facts.trained_by_helpers:
            if helper < order and spellings & passed:
                return self.context.line_of(self._backward_nodes[helper])
        return None

    def _behaves_by_mode(self, build: _Build) -> bool:
        """A module of a class defined in this file behaves by mode when the file has any
        dropout, batch norm or ``self.training`` (its layers are defined here too)."""
        if build.mode_dependent is not None:
            return build.mode_dependent
        if self._file_has_mode_dependent_layers is None:
            assert self._module is not None
            self._file_has_mode_dependent_layers = _MODE_DEPENDENT_TEXT.search(self._module.code) is not None
        return self._file_has_mode_dependent_layers

    def _after_switch(self, switch: _Switch, facts: _FunctionFacts, order: int) -> _Verdict:
        if switch.mode != TRAIN:
            return _EVAL
        if not any(switch.event.order <= backward < order for backward in facts.backwards):
            return _EVAL  # `train()` right before a loop that does not learn: chosen on purpose
        line = self.context.line_of(switch.event.node)
        return _Verdict(_Status.TRAIN, _LAST_TRAIN.format(switch=switch.code, line=line))

    def _mode_from_callers(self, function: cst.FunctionDef, spellings: frozenset[str], depth: int) -> _Verdict:
        callers = self._callers.get(function, [])
        if not callers:
            return _UNKNOWN  # maybe called from another file, which may switch the mode
        verdicts = []
        for caller in callers:
            translated = {caller.resolved.translate(name) for name in spellings}
            if None in translated or ANONYMOUS in translated:
                verdicts.append(_UNKNOWN)
                continue
            found = self._mode_at(caller.function, frozenset(translated), caller.event.order, depth + 1)  # type: ignore[arg-type]
            if found.status is _Status.TRAIN:
                name = caller.function.name.value if caller.function is not None else "<module>"
                found = _Verdict(_Status.TRAIN, _NOT_BY_CALLER.format(caller=name, line=self.context.line_of(caller.event.node)))
            verdicts.append(found)
        if any(verdict.status is _Status.EVAL for verdict in verdicts):
            return _EVAL
        if any(verdict.status is _Status.UNKNOWN for verdict in verdicts):
            return _UNKNOWN
        return verdicts[0]
