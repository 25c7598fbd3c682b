from __future__ import annotations

import re
from typing import NamedTuple

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import Event
from torchcheck.lint.idioms import Effect
from torchcheck.lint.kinds import Kind
from torchcheck.lint.modes import covers, mode_set_by, modes_left_by, uses_gradients
from torchcheck.lint.nodes import dotted_name, keyword_argument, method_call, one_line, source_text, subtree
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.summaries import ANONYMOUS, EVAL, TRAIN, FunctionSummary, ResolvedCall, spelled

_MESSAGE = "`{call}` runs `{module}` in training mode in an evaluation {scope}: {why}; dropout and batch-norm statistics stay live"
_BUILT_HERE = "it is built here and never switched to `eval()`"
_TRAINED_HERE = "it is trained here (`backward()` at line {line}) and not switched to `eval()` since"
_LAST_TRAIN = "the last mode switch before it is `{switch}` at line {line}, and no `eval()` follows"
_NOT_BY_CALLER = "neither this function nor `{caller}()`, which calls it at line {line}, switches it to `eval()`"

# Words that name an evaluation function: `evaluate`, `validate_one_epoch`, `run_eval`, `test`.
_EVALUATION_WORDS = frozenset({"validate", "validation", "evaluate", "evaluation", "eval", "valid"})
# `test*` names of evaluation functions; any other `test_...` is taken for a unit test.
_TEST_NAMES = frozenset({"test", "testing", "test_epoch", "test_one_epoch", "test_model", "test_net", "test_loop", "test_all", "test_accuracy"})
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


class _ModelCall(NamedTuple):
    event: Event
    spellings: frozenset[str]  # the module as called, and what the name is an alias of
    module: str
    no_grad: bool


def _is_evaluation_name(name: str) -> bool:
    """``evaluate``, ``validate_epoch``, ``run_eval``, ``test``, ``test_model``; not the hooks a
    framework calls with the mode already set (``validation_step``, ``test_step``)."""
    lowered = name.lower().strip("_")
    words = lowered.split("_")
    return words[-1] != "step" and (lowered in _TEST_NAMES or any(word in _EVALUATION_WORDS for word in words))


def _chain(call: cst.Call) -> list[cst.Call]:
    """The calls of a chain, outermost first: ``Net().to(device).eval()``, ``Net().to(device)``, ``Net()``."""
    calls = [call]
    while isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Call):
        calls.append(call := call.func.value)
    return calls


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
        self._switches: list[tuple[Event, str, str]] = []  # (where, the module, EVAL, TRAIN or CHOSEN)
        # `name = Net()`: (where, name, mode-dependent, from a model zoo such as `torchvision.models.resnet18()`)
        self._builds: list[tuple[Event, str, bool | None, bool]] = []
        # backward() calls and helpers that backpropagate, with the names passed to a helper
        self._backwards: list[tuple[Event, frozenset[str]]] = []
        self._model_calls: list[_ModelCall] = []
        self._callers: dict[cst.FunctionDef, list[tuple[Event, ResolvedCall]]] = {}
        self._module_methods: set[cst.FunctionDef] = set()
        self._file_has_mode_dependent_layers = True

    # ----------------------------------------------------------------- the walk
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.context.in_module_class:
            self._module_methods.add(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.context.in_module_class or not (isinstance(node.value, cst.Call) and self._creates(node.value)):
            return
        event, built = self.context.flow.event(node), _chain(node.value)[-1]
        zoo, dependent = (self.context.call_name(built) or "").startswith(_MODEL_ZOOS), self._mode_dependent(built)
        self._builds.extend((event, target.target.value, dependent, zoo) for target in node.targets if isinstance(target.target, cst.Name))

    def _mode_dependent(self, built: cst.Call) -> bool | None:
        """Known for torch.nn layers; None for a class of this file (decided from the file's
        text when needed); True otherwise."""
        qualified = self.context.call_name(built) or ""
        layer = qualified.rsplit(".", 1)[-1]
        if not (qualified.startswith("torch.nn.") and torch_api.is_module_class_name(qualified)):
            return None if isinstance(built.func, cst.Name) and built.func.value in self.context.module_classes else True
        if layer in _CONTAINERS:
            return _MODE_DEPENDENT_TEXT.search(source_text(built)) is not None
        return keyword_argument(built, "dropout") is not None if layer in _RECURRENT_LAYERS else layer in _MODE_DEPENDENT_LAYERS

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.in_module_class:
            return  # a module's own methods: its mode is its owner's business
        summary, mode = self.context.call_summary(node), mode_set_by(node)
        if summary is not None:
            self._helper(node, summary)
        elif mode is not None and (target := dotted_name(node.func.value)) is not None:  # type: ignore[attr-defined]
            self._switches.append((self.context.flow.event(node), target, mode))
        elif not uses_gradients(self.context, node):  # a backward is recorded when left, after its forward passes
            found = method_call(node)
            self._model_call(node, found[0] if found is not None and found[1] == "forward" else node.func)

    def leave_Call(self, original_node: cst.Call) -> None:
        if not self.context.in_module_class and self.context.call_summary(original_node) is None and uses_gradients(self.context, original_node):
            self._backwards.append((self.context.flow.event(original_node), frozenset()))

    def _helper(self, call: cst.Call, summary: FunctionSummary) -> None:
        """A helper of this file: the modes it leaves modules in, whether it backpropagates,
        and that this function calls it (for the callers of evaluation functions)."""
        event = self.context.flow.event(call)
        self._switches.extend((event, target, mode) for target, mode in modes_left_by(summary))
        if summary.does(Effect.BACKWARD):
            self._backwards.append((event, frozenset({dotted_name(argument.value) for argument in call.args} - {None})))
        if (resolved := self.context.resolve_call(call)) is not None:
            self._callers.setdefault(resolved.function, []).append((event, resolved))

    def _model_call(self, call: cst.Call, callee: cst.BaseExpression) -> None:
        module, function = dotted_name(callee), self.context.flow.function
        zoo = (event.function is function and name == module for event, name, _, zoo in self._builds if zoo)
        if module is not None and (self.context.kind_of(callee) is Kind.MODULE or any(zoo)):
            spellings = frozenset({module} | self._aliases(module))
            self._model_calls.append(_ModelCall(self.context.flow.event(call), spellings, module, self.context.in_no_grad))

    def _aliases(self, module: str) -> set[str]:
        """The modules a local name stands for: ``model`` for ``net`` in ``net = model.module``
        or ``net = DataParallel(model)``."""
        binding = self.context.flow.last_binding(module) if "." not in module else None
        if binding is None or binding.value is None or isinstance(binding.value, cst.Call) and self._creates(binding.value):
            return set()
        names = {dotted_name(node) for node in subtree(binding.value) if isinstance(node, (cst.Name, cst.Attribute))}
        return {name for name in names if name not in (None, module) and self.context.kind_of(spelled(name)) is Kind.MODULE}

    def _creates(self, value: cst.Call) -> bool:
        """A call that builds a new module in training mode: a class or factory called by name
        (``Net()``, ``build_model(cfg)``, ``torchvision.models.resnet18()``), maybe moved
        (``Net().to(device)``); not a loader (``from_pretrained`` leaves it in eval mode,
        ``torch.load`` in whatever mode it was saved in), a wrapper of a module
        (``DataParallel(model)``) nor a method of a local object."""
        chain = _chain(value)
        passed = (argument.value for argument in chain[-1].args if isinstance(argument.value, (cst.Name, cst.Attribute)))
        if any(mode_set_by(call) == EVAL for call in chain) or any(self.context.kind_of(module) is Kind.MODULE for module in passed):
            return False  # `Net().eval()`, or a wrapper of a module: not a new module in training mode
        func = chain[-1].func
        name = func.value if isinstance(func, cst.Name) else self.context.qualified_name(func)
        return name is not None and not any(word in name.lower() for word in _LOADER_WORDS)

    # ----------------------------------------------------------------- the decision
    def leave_Module(self, node: cst.Module) -> None:
        text_needed = any(dependent is None for *_, dependent, _ in self._builds) and bool(self._model_calls)  # `node.code` is costly
        self._file_has_mode_dependent_layers = text_needed and _MODE_DEPENDENT_TEXT.search(node.code) is not None
        learning = {loop for event, _ in self._backwards for loop in event.loops}  # loops that backpropagate
        for function in dict.fromkeys(call.event.function for call in self._model_calls if call.event.function not in self._module_methods):
            calls = [call for call in self._model_calls if call.event.function is function]
            evaluation = function is not None and self._is_evaluation_function(function, calls)
            scopes: dict[cst.CSTNode | None, list[_ModelCall]] = {}
            for call in calls:
                loop = call.event.loops[0] if call.event.loops else None
                if evaluation or call.no_grad and loop is not None and not (loop in learning or self.context.is_training_loop(loop)):
                    scopes.setdefault(function if evaluation else loop, []).append(call)
            for in_scope in scopes.values():
                for call in {call.module: call for call in reversed(in_scope)}.values():  # the first call of each module
                    why = self._mode_at(function, call.spellings, call.event.order, 0)
                    if why not in (None, EVAL):
                        scope = "function" if evaluation else "loop"
                        self.report(call.event.node, _MESSAGE.format(call=one_line(call.event.node), module=call.module, scope=scope, why=why))

    def _is_evaluation_function(self, function: cst.FunctionDef, calls: list[_ModelCall]) -> bool:
        name = function.name.value
        backpropagates = any(event.function is function for event, _ in self._backwards)
        if not _is_evaluation_name(name) or backpropagates or self.context.summary_of(function).does(Effect.BACKWARD):
            return False
        if not name.startswith("test"):
            return True
        # a pytest test asserts; an evaluation on a test set loops over batches
        own_code = subtree(function.body, prune=lambda node: isinstance(node, cst.FunctionDef))
        return any(call.event.loops for call in calls) and not any(isinstance(node, cst.Assert) for node in own_code)

    def _mode_at(self, function: cst.FunctionDef | None, spellings: frozenset[str], order: int, depth: int) -> str | None:
        """The mode the module is in at ``order`` in ``function``, as far as this file tells:
        EVAL (switched, or managed on purpose), None (unknown: a caller in another file may
        switch it), or why it is certainly in training mode."""
        switches = [(event, mode) for event, target, mode in self._switches if event.function is function and any(covers(target, name) for name in spellings)]
        before = [(event, mode) for event, mode in switches if event.order < order]
        backwards = [(event, passed) for event, passed in self._backwards if event.function is function and event.order < order]
        if before:
            switch, mode = max(before, key=lambda found: found[0].order)
            if mode != TRAIN or not any(switch.order <= backward.order for backward, _ in backwards):
                return EVAL  # `train()` right before a loop that does not learn: chosen on purpose
            return _LAST_TRAIN.format(switch=one_line(switch.node), line=self.context.line_of(switch.node))
        if any(mode != TRAIN for _, mode in switches):
            return EVAL  # switched later in the function (in a loop, before the next pass)
        builds = [build for build in self._builds if build[0].function is function and build[1] in spellings and build[0].order < order]
        latest = max(builds, key=lambda build: build[0].order, default=None)
        if latest is not None and not (self._file_has_mode_dependent_layers if latest[2] is None else latest[2]):
            return EVAL  # built from layers that compute the same in both modes
        # trained here (a module is trained in training mode): a backward() after a gradient-enabled
        # call of the module, or a helper that backpropagates and is passed the module
        runs = [call.event.order for call in self._model_calls if call.event.function is function and not call.no_grad and spellings & call.spellings]
        trained = next((event for event, _ in backwards if any(run < event.order for run in runs)), None)
        trained = trained or next((event for event, passed in backwards if spellings & passed), None)
        if trained is not None:
            return _TRAINED_HERE.format(line=self.context.line_of(trained.node))
        if latest is not None:
            return _BUILT_HERE
        return None if function is None or depth >= _MAX_CALLER_DEPTH else self._mode_from_callers(function, spellings, depth)

    def _mode_from_callers(self, function: cst.FunctionDef, spellings: frozenset[str], depth: int) -> str | None:
        verdicts: list[str | None] = []
        for event, resolved in self._callers.get(function, []):
            translated = frozenset(resolved.translate(name) for name in spellings)
            unknown = None in translated or ANONYMOUS in translated
            found = None if unknown else self._mode_at(event.function, translated, event.order, depth + 1)  # type: ignore[arg-type]
            if found not in (None, EVAL):
                caller = event.function.name.value if event.function is not None else "<module>"
                found = _NOT_BY_CALLER.format(caller=caller, line=self.context.line_of(event.node))
            verdicts.append(found)
        # no caller in this file: one in another file may switch the mode
        return EVAL if EVAL in verdicts else None if None in verdicts or not verdicts else verdicts[0]
