from __future__ import annotations

import re
from dataclasses import dataclass, replace

import libcst as cst

from torchcheck.lint import references, torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.exports import (
    ACTIVATION_FUNCTIONS,
    ACTIVATION_METHODS,
    SIGMOID,
    SOFTMAX,
    layer_activation,
)
from torchcheck.lint.kinds import Kind, conventional_kind
from torchcheck.lint.containers import added_later
from torchcheck.lint.nodes import argument_for, called_value, self_attribute
from torchcheck.lint.project import INSTANCE_OUTPUT, OUTPUT, PASSED_LOSS, PASSED_OUTPUT, PASSED_VALUE, PLACE, Condition, Symbol
from torchcheck.lint.rule import Invalid, Rule, Valid

# the functional loss -> (the activation it must not be fed, message); a loss module is its functional form
_FUNCTIONAL_LOSSES = {
    "torch.nn.functional.cross_entropy": (SOFTMAX, "`cross_entropy` applies log-softmax itself; feeding it `softmax` output trains through a double softmax. Pass the logits"),
    "torch.nn.functional.nll_loss": (SOFTMAX, "`nll_loss` expects log-probabilities, not `softmax` output; use `log_softmax` (or `cross_entropy` on the logits)"),
    "torch.nn.functional.binary_cross_entropy_with_logits": (SIGMOID, "`binary_cross_entropy_with_logits` applies sigmoid itself; feeding it `sigmoid` output applies it twice. Pass the logits"),
}


@dataclass(frozen=True)
class _Held:
    """What a local name or ``self.<attr>`` holds, as far as this rule cares.

    ``output``: an activation's output; ``layer``: an activation module (or a Sequential
    ending in one); ``loss``: a loss module; ``call``: what calling a project name returns
    (``Net(...)`` is ``call`` of ``Net`` at depth 1, ``Net(...)(x)`` at depth 2, its
    element ``index`` when the result is unpacked).
    """

    kind: str
    activation: str | None = None
    loss: str | None = None
    symbol: Symbol | None = None
    depth: int = 0
    index: int | str | None = None  # a returned tuple's position, or a returned dict's key
    parameter: str | None = None  # `<name>:<position>` of ``symbol``'s parameter: what its callers in other files pass
    also: tuple[_Held, ...] = ()  # other functions' parameters, passed on by the file's other callers, that must hold the same

    def element(self, index: int | str) -> _Held | None:
        return replace(self, index=index) if self.kind == "call" and self.index is None and self.parameter is None else None

    def conditions(self, value: str, flag: str | None = None) -> tuple[Condition, ...]:
        """That it holds ``value`` (with ``flag``: the ``flag:<parameter>`` fact of each parameter)."""
        return tuple(Condition(item.symbol, f"{flag}:{item.parameter}" if flag else item.fact, value) for item in (self, *(replace(other, depth=self.depth, index=self.index) for other in self.also)))  # type: ignore[arg-type]

    @property
    def fact(self) -> str:
        """The project fact that says what this call result holds."""
        if self.parameter is not None:  # the parameter itself, or what calling it returns
            return f"{PASSED_VALUE if self.depth == 1 else PASSED_OUTPUT}:{self.parameter}"
        fact = OUTPUT if self.depth == 1 else INSTANCE_OUTPUT
        return fact if self.index is None else f"{fact}.{self.index}"


def _as_layer(layer: tuple[str, cst.Call] | None) -> _Held | None:
    return _Held("layer", layer[0]) if layer is not None else None


class ActivationBeforeLogitsLoss(Rule):
    """
    ## What it does
    Checks for losses that take logits fed with an activation's output: `softmax` output
    passed to `cross_entropy`/`CrossEntropyLoss` or `nll_loss`/`NLLLoss`, and `sigmoid`
    output passed to `binary_cross_entropy_with_logits`/`BCEWithLogitsLoss` - directly,
    through a local variable, or as the output of a model whose `forward` ends with the
    activation (a final `nn.Softmax()` layer of an `nn.Sequential` head included, also one
    added last with `model.add_module("softmax", nn.Softmax())`), in the
    same file or in another file of the project. Calling `.forward(...)` on a model or a
    loss (`loss.forward(fx, y)`) runs it like calling it. The output is followed through reshapes,
    casts and moves (`probs.view(1, -1)`, `.float()`, `.cuda()`), and `self(x)` in a method
    of the model runs its own `forward`, as do the wrappers that run it: `DistributedDataParallel(model)`,
    `DataParallel`, `torch.compile`, and a framework's `accelerator.prepare(model, ...)`. A parameter annotated with a model class
    (`model: Classifier`) holds that model; so does a parameter named as a model (`model`,
    `net`) in a file that defines exactly one module class (a script with its model), when
    nothing else tells what it holds. A functional loss held in a name or an attribute
    (`self.loss_func = F.binary_cross_entropy_with_logits`) is that loss, and so is a
    parameter for which every caller of the file passes the same loss (`criterion =
    nn.CrossEntropyLoss()`, then `train_model(model, criterion, loader)`) or, when no call of
    the file passes it, whose default is a loss (`loss_func=CrossEntropyLoss()`), or, when only
    the project's other files call its function, the loss they all pass (`train_epoch(model,
    loader, optimizer, criterion)` in `main.py` after `criterion = nn.CrossEntropyLoss()`). A loss bound on
    one branch is one path of the code: `criterion` set to `nn.CrossEntropyLoss()` for many
    classes and to `nn.BCEWithLogitsLoss()` for one is checked as either. Any parameter
    holds what every caller of the file passes for it (a model's output handed to a
    `criterion(logits, labels)` helper); a parameter of a top-level function that no call
    of its own file fills holds the instance every call in the project's other files passes
    (`train.dann(encoder, classifier)` after `classifier = Classifier().to(device)`), and so
    does a parameter of a method of a class, called on its instances there
    (`local.train(net=copy.deepcopy(net_glob))` after `local = LocalUpdate(...)`), or of a
    loss module's `forward` that holds what those calls pass: a model's output, or one
    element of it (`criterion(box, conf, cls, targets)` after `box, conf, cls = model(x)`). A call of a function or method of the file holds
    what all its `return` statements hold; a `return` under a setting of the instance that
    the loss call never runs under (`if self.objective == "binary":` in the helper, `if
    self.objective == "multiclass":` around the loss) is not one of them. A model's output
    is followed into its elements: `real, aux = discriminator(x)` or `outputs[1]` of a returned
    tuple, `outputs["exist"]` of a returned dict with literal keys, each holding what
    `forward` puts there, also the output of a part of the model whose class (of the same
    file) ends with the activation (`"exist": self.exist_head(features)`), or that the model
    returns whole (`return self.head(features)`). The finding is
    reported at the loss call and names where the activation is applied.

    ## Why is this bad?
    `cross_entropy` and `BCEWithLogitsLoss` apply (log-)softmax and sigmoid themselves, in a
    numerically stable way. Applying the activation first squashes the inputs into [0, 1],
    so the loss sees a second, flattened activation: gradients shrink, training stalls, and
    the model never becomes confident. `nll_loss` expects log-probabilities, and on
    probabilities it computes a meaningless quantity. Pass the raw logits; use
    `log_softmax` with `nll_loss`, and `sigmoid` only with `BCELoss`.

    ## Example
    ```python
    import torch.nn.functional as F

    probs = F.softmax(model(x), dim=1)
    loss = F.cross_entropy(probs, y)
    ```

    Use instead:
    ```python
    import torch.nn.functional as F

    logits = model(x)
    loss = F.cross_entropy(logits, y)
    ```

    The same mistake across files, as in several public GAN implementations:
    ```python
    # model.py
    class Discriminator(nn.Module):
        def __init__(self, n_classes):
            super().__init__()
            self.aux_layer = nn.Sequential(nn.Linear(512, n_classes), nn.Softmax(dim=1))

        def forward(self, features):
            return self.aux_layer(features)

    # train.py
    from model import Discriminator

    discriminator = Discriminator(10)
    loss = nn.CrossEntropyLoss()(discriminator(features), labels)
    ```

    Use instead: end the head with the `nn.Linear` layer, and apply softmax only where
    probabilities are needed (a `predict()` method, metrics).

    ## Fix safety
    There is no automatic fix: the activation's output is often used elsewhere (metrics,
    predictions), and the right change depends on the model.

    ## References
    - [`torch.nn.CrossEntropyLoss`](https://pytorch.org/docs/stable/generated/torch.nn.CrossEntropyLoss.html)
    - [`torch.nn.NLLLoss`](https://pytorch.org/docs/stable/generated/torch.nn.NLLLoss.html)
    - [`torch.nn.BCEWithLogitsLoss`](https://pytorch.org/docs/stable/generated/torch.nn.BCEWithLogitsLoss.html)
    """

    code = "TCK605"
    name = "activation-before-logits-loss"
    message = "Loss that expects logits is fed an activation's output; pass the logits"
    # The loss is always spelled in the file; the activation may be in another file.
    required_text = ("cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss", "binary_cross_entropy_with_logits", "BCEWithLogitsLoss")
    # or a call of a plain name that may hold a loss another file passes (`criterion(output, labels)`)
    required_pattern = re.compile(r"(?<!def )(?<![\w.])\w*(?:loss|crit)\w*\s*\(", re.IGNORECASE)

    VALID = (
        Valid(
            """
import torch
from torch import nn

class ExistHead(nn.Module):
    def __init__(self, channels, lanes):
        super().__init__()
        self.fc = nn.Linear(channels, lanes)

    def forward(self, features):
        return self.fc(features.mean((2, 3)))

class LaneNet(nn.Module):
    def __init__(self, lanes=4):
        super().__init__()
        self.backbone = nn.Conv2d(3, 32, 3)
        self.exist = ExistHead(32, lanes)

    def forward(self, images):
        logits = self.exist(self.backbone(images))
        return {"exist": logits, "probability": torch.sigmoid(logits)}

def step(net, images, exists):
    output = net(images)
    accuracy = ((output["probability"] > 0.5) == exists).float().mean()
    return nn.BCEWithLogitsLoss()(output["exist"], exists), accuracy

step(LaneNet(), images, exists)
"""
        ),
        Valid(
            """
import torch.nn as nn

class ClsTarget(nn.Module):
    def __init__(self, hidden, labels):
        super().__init__()
        self.output_layer = nn.Linear(hidden, labels)
        self.softmax = nn.LogSoftmax(dim=-1)
        self.criterion = nn.NLLLoss()

    def forward(self, memory, target):
        logits = self.output_layer(memory)
        return self.criterion(self.softmax(logits), target)
"""
        ),
        Valid(
            """
import torch.nn as nn
import torch.nn.functional as F

class Scorer(nn.Module):
    def forward(self, x):
        return F.softmax(x, dim=-1)

class Classifier(nn.Module):
    def forward(self, x):
        return x * 2

def train(model, loader):
    criterion = nn.CrossEntropyLoss()
    for x, y in loader:
        criterion(model(x), y).backward()
"""
        ),
        Valid(
            """
import torch.nn.functional as F
from torch import nn

class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 3)
        self.loss_func = F.cross_entropy  # a loss held in an attribute, fed the logits
    def forward(self, x):
        return self.fc(x)
    def training_step(self, batch, batch_idx):
        x, y = batch
        return self.loss_func(self(x), y)
"""
        ),
        Valid(
            """
import torch
import torch.nn.functional as F
def step(model, x, y):
    loss = F.nll_loss(F.log_softmax(model(x), dim=1), y)
    bce = torch.nn.BCELoss()(torch.sigmoid(model(x)), y)
    logits = model(x)
    probs = logits.softmax(dim=-1)
    return loss + bce + F.cross_entropy(logits, y)
"""
        ),
        Valid(
            """
import torch.nn.functional as F
def distill(student_logits, teacher_logits, T):
    soft_targets = F.softmax(teacher_logits / T, dim=-1)
    return F.cross_entropy(student_logits, soft_targets)
"""
        ),
        Valid(
            """
import torch
import torch.nn.functional as F
def step(model, x, y):
    out = F.softmax(model(x), dim=1)
    out = torch.log(out)
    return F.nll_loss(out, y)
"""
        ),
        Valid(
            """
from torch import nn
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.criterion = nn.CrossEntropyLoss()
        self.act = nn.Softmax(dim=1)
    def loss(self, logits, y):
        return self.criterion(logits, y)
"""
        ),
        Valid(
            """
import torch.nn.functional as F
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
    def forward(self, x):
        return self.fc(x)
    def predict(self, x):
        return F.softmax(self.forward(x), dim=-1)

class LogProbabilities(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(8, 3), nn.LogSoftmax(dim=1))
    def forward(self, x):
        return self.head(x)

def step(x, y):
    loss = nn.CrossEntropyLoss()(Net()(x), y)
    return loss + nn.NLLLoss()(LogProbabilities()(x), y)
"""
        ),
        Valid(
            """
import torch
import torch.nn.functional as F
from torch import nn
class Tabular(nn.Module):
    def _activation(self, out):
        if self.objective == "binary":
            return torch.sigmoid(out)
        return out
    def _loss(self, y_pred, y):
        if self.objective == "multiclass":
            return F.cross_entropy(y_pred, y)
        return F.binary_cross_entropy(y_pred, y)
    def outputs(self, x, probabilities):
        return F.softmax(x, dim=1) if probabilities else x
    def training_step(self, x, y):
        y_pred = self._activation(self.forward(x))
        return self._loss(y_pred, y) + F.cross_entropy(self.outputs(x, False), y)
"""
        ),
    )

    INVALID = (
        Invalid(
            """
import torch
from torch import nn
class Recommender(nn.Module):
    def __init__(self, objective):
        super().__init__()
        if objective == "click":
            self.criterion = nn.BCEWithLogitsLoss()
        else:
            self.criterion = nn.MSELoss()
class Ranker(Recommender):
    def __init__(self, objective):
        super().__init__(objective)
        self.score = nn.Linear(32, 1)
    def forward(self, pairs):
        return torch.sigmoid(self.score(pairs))
    def loss(self, pairs, labels):
        return self.criterion(self.forward(pairs), labels)  # TCK605
"""
        ),
        Invalid(
            """
import torch
from torch import nn
import torch.nn.functional as F

class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        return F.softmax(self.fc(x), dim=-1)

model = Scorer().to("cuda")
criterion = nn.CrossEntropyLoss().to("cuda")
for x, y in loader:
    scores = model(x)
    loss = criterion(scores.resize(1, 5), y)  # TCK605
"""
        ),
        Invalid(
            """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=1)

class Trainer:
    def __init__(self, loss_func=nn.CrossEntropyLoss()):
        self.loss_func = loss_func
        self.model = Net()

    def step(self, x, y):
        return self.loss_func.forward(self.model(x), y)  # TCK605

def build():
    model = nn.Sequential()
    model.add_module("fc", nn.Linear(4, 3))
    model.add_module("softmax", nn.Softmax(dim=1))
    return model

def train(x, y):
    model = build()
    criterion = nn.CrossEntropyLoss()
    return criterion(model.forward(x), y)  # TCK605
"""
        ),
        Invalid(
            """
import torch
from torch import nn

class ExistHead(nn.Module):
    def __init__(self, channels, lanes):
        super().__init__()
        self.fc = nn.Linear(channels, lanes)

    def forward(self, features):
        return torch.sigmoid(self.fc(features.mean((2, 3))))

class LaneNet(nn.Module):
    def __init__(self, lanes=4):
        super().__init__()
        self.backbone = nn.Conv2d(3, 32, 3)
        self.seg = nn.Conv2d(32, lanes + 1, 1)
        self.exist = ExistHead(32, lanes)

    def forward(self, images):
        features = self.backbone(images)
        return {"seg": self.seg(features), "exist": self.exist(features)}

def step(net, images, masks, exists):
    output = net(images)
    seg_loss = nn.CrossEntropyLoss()(output["seg"], masks)
    exist_loss = nn.BCEWithLogitsLoss()(output["exist"], exists)  # TCK605
    return seg_loss + 0.1 * exist_loss

step(LaneNet(), images, masks, exists)
"""
        ),
        Invalid(
            """
import torch
from torch import nn

class SegmentationNet(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.classes = classes
        self.head = nn.Conv2d(16, classes, 1)

    def forward(self, features):
        return torch.sigmoid(self.head(features))

def train(net, loader, optimizer):
    if net.classes > 1:
        criterion = nn.CrossEntropyLoss()
    else:
        criterion = nn.BCEWithLogitsLoss()
    for features, masks in loader:
        predictions = net(features)
        loss = criterion(predictions, masks)  # TCK605
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

train(SegmentationNet(1), loader, optimizer)
"""
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
from accelerate import Accelerator
from torch.nn.parallel import DistributedDataParallel as DDP

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(10, 3)
    def forward(self, x):
        return F.softmax(self.fc(x), dim=-1)

def train(loader, rank):
    accelerator = Accelerator()
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters())
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)  # TCK605
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()

def train_ddp(loader, rank):
    model = DDP(Net().to(rank), device_ids=[rank])
    for x, y in loader:
        F.cross_entropy(model(x), y).backward()  # TCK605
"""
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
from torch import nn

class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 1)
        self.act = nn.Sigmoid()

    def forward(self, x):
        return self.act(self.fc(x)).squeeze(-1)

def criterion(logits, labels):
    return F.binary_cross_entropy_with_logits(logits, labels)  # TCK605

def train(loader):
    model = Scorer()
    for x, y in loader:
        scores = model(x)
        criterion(scores, y.float()).backward()
"""
        ),
        Invalid(
            """
import torch.nn as nn
import torch.nn.functional as F

def train_model(model, criterion, loader):
    for inputs, labels in loader:
        outputs = F.softmax(model(inputs), dim=1)
        criterion(outputs, labels).backward()  # TCK605

def main(model, loader):
    criterion = nn.CrossEntropyLoss()
    train_model(model, criterion, loader)
"""
        ),
        Invalid(
            """
import torch.nn as nn
import torch.nn.functional as F

class Network(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return F.softmax(self.fc(x), dim=1)

def train(model, loader):
    criterion = nn.CrossEntropyLoss()
    for x, y in loader:
        output = model(x)
        criterion(output, y).backward()  # TCK605
"""
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
from torch import nn

class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 1)
        self.loss_func = F.binary_cross_entropy_with_logits
        self.nll = F.nll_loss
    def forward(self, x):
        return torch.sigmoid(self.fc(x))
    def training_step(self, batch, batch_idx):
        x, y = batch
        probs = self(x)
        return self.loss_func(probs, y) + self.nll(F.softmax(x, dim=1), y.long())  # TCK605, TCK605
"""
        ),
        Invalid(
            """
import torch.nn.functional as F
def step(model, x, y):
    probs = F.softmax(model(x), dim=1)
    return F.cross_entropy(probs, y)  # TCK605
"""
        ),
        Invalid(
            """
import torch
from torch import nn
criterion = nn.BCEWithLogitsLoss()
def step(model, x, y):
    loss = criterion(torch.sigmoid(model(x)), y)  # TCK605
    loss2 = nn.NLLLoss()(model(x).softmax(-1), y)  # TCK605
    return loss + loss2
"""
        ),
        Invalid(
            """
from torch import nn
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
        self.softmax = nn.Softmax(dim=1)
        self.loss_fn = nn.CrossEntropyLoss()
    def forward(self, x, y):
        out = self.softmax(self.fc(x))
        return out, self.loss_fn(out, y)  # TCK605
"""
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
from torch import nn
class Tabular(nn.Module):
    def _activation(self, out):
        if self.objective == "binary":
            return torch.sigmoid(out)
        if self.objective == "multiclass":
            return F.softmax(out, dim=1)
        return out
    def _loss(self, y_pred, y):
        if self.objective == "multiclass":
            return F.cross_entropy(y_pred, y)  # TCK605
        return F.mse_loss(y_pred, y)
    def training_step(self, x, y):
        y_pred = self._activation(self.forward(x))
        return self._loss(y_pred, y)
"""
        ),
        Invalid(
            """
import torch
from torch import nn
auxiliary_loss = torch.nn.CrossEntropyLoss()

def train(dataloader, optimizer):
    discriminator = Discriminator().cuda()
    for images, labels in dataloader:
        real_pred, real_aux = discriminator(images)
        loss = auxiliary_loss(real_aux, labels)  # TCK605
        loss.backward()
        optimizer.step()

class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.adv_layer = nn.Sequential(nn.Linear(128, 1), nn.Sigmoid())
        self.aux_layer = nn.Sequential(nn.Linear(128, 10), nn.Softmax())
    def forward(self, features):
        validity = self.adv_layer(features)
        label = self.aux_layer(features)
        return validity, label
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._held: dict[tuple[int, int], _Held | None] = {}  # (binding, loss call) -> what it holds
        self._asking: set[int] = set()  # bindings being evaluated: a value that reads itself is unknown
        self._site: cst.Call | None = None  # the loss call being checked: what a value holds may depend on it

    # ----------------------------------------------------------------- what values hold
    def _value_of(self, expression: cst.BaseExpression) -> _Held | None:
        """What ``expression`` holds, wherever it stands: names are followed to the bindings
        that reach them (all must agree), ``self.<attr>`` to every assignment in its class."""
        qualified = self.context.qualified_name(expression) if isinstance(expression, (cst.Name, cst.Attribute)) else None
        if qualified in _FUNCTIONAL_LOSSES:
            return _Held("loss", loss=qualified)  # `self.loss_fn = F.cross_entropy`
        if isinstance(expression, cst.Name) or self_attribute(expression) is not None:
            held = set(self._alternatives(expression))  # what every binding that reaches it holds, if they agree
            return held.pop() if len(held) == 1 else None
        if isinstance(expression, cst.Subscript):
            return self._element_of(expression)
        if isinstance(expression, cst.Call):
            return self._result_of(expression)
        return None

    def _alternatives(self, expression: cst.BaseExpression) -> list[_Held | None]:
        """What ``expression`` holds on each path: a name per binding that reaches it,
        ``self.<attr>`` per assignment of it in the class."""
        if isinstance(expression, cst.Name):
            assigned = [(binding.node, binding.target) for binding in self.context.binder.reaching(expression)]
        elif (attribute := self_attribute(expression)) is not None:
            assigned = references.inherited_assignments(self.context.binder, expression, attribute)
        else:
            return [self._value_of(expression)]
        return [self._bound(statement, target) for statement, target in assigned]

    def _bound(self, statement: cst.CSTNode, target: cst.CSTNode) -> _Held | None:
        key = (id(target), id(self._site))
        if key not in self._held and key not in self._asking:  # a value that reads itself is unknown
            self._asking.add(key)
            self._held[key] = self._binding_value(statement, target)
            self._asking.discard(key)
        return self._held.get(key)

    def _binding_value(self, statement: cst.CSTNode, target: cst.CSTNode) -> _Held | None:
        if isinstance(statement, cst.Param):
            return self._parameter(statement)
        value = statement.value if isinstance(statement, (cst.Assign, cst.AnnAssign)) else None
        if value is None:
            return None  # a loop target, `x += ...`, a `with` item ...
        index = references.unpacked_index(self.context.binder, target, statement)
        wrapped = self.context.wrapped_modules(value) if index is not None and isinstance(value, cst.Call) else None
        if wrapped is not None and 0 <= index < len(wrapped):  # type: ignore[operator]
            return self._value_of(wrapped[index])  # `model, optimizer = accelerator.prepare(model, optimizer)`
        held = self._value_of(value) or _as_layer(layer_activation(self.context, (added_later(self.context.binder, target) or [None])[-1]))  # `model.add_module("softmax", ...)`
        if index is None or held is None:
            return held if index != -1 else None
        return held.element(index)  # `real, aux = discriminator(x)`: each name holds one element

    def _parameter(self, parameter: cst.Param) -> _Held | None:
        """A parameter annotated with a class of the project (`model: TransformerGCNQA`), or
        named as a model in a file that defines a single module class: calling it runs that class."""
        if parameter.annotation is not None:
            symbol = self.context.project.symbol_of(parameter.annotation.annotation) if self.context.project is not None else None
        else:
            sole = self.context.sole_module_class() if conventional_kind(parameter.name.value) is Kind.MODULE else None
            symbol = Symbol(None, sole.name.value) if sole is not None and self.context.project is not None else None
        if symbol is not None:
            return _Held("call", symbol=symbol, depth=1)
        return self._passed(parameter) or self._default_loss(parameter) or self._passed_from_other_files(parameter)

    def _default_loss(self, parameter: cst.Param) -> _Held | None:
        """A loss module as the parameter's default (``loss_func=CrossEntropyLoss()``): what
        runs whenever a caller leaves it out."""
        held = self._value_of(parameter.default) if parameter.default is not None else None
        return held if held is not None and held.kind == "loss" else None

    def _passed(self, parameter: cst.Param) -> _Held | None:
        """What every caller of the file passes for the parameter (``criterion =
        nn.CrossEntropyLoss()`` in ``main``, then ``train(model, criterion)``; a model's
        output handed to a ``criterion(logits, labels)`` helper)."""
        held = sorted({self._value_of(value) for value in self.context.values_passed_to(parameter)}, key=repr)
        passed_on = all(item is not None and item.parameter is not None and item.depth == 1 for item in held)  # each caller's own parameter
        return replace(held[0], also=tuple(held[1:])) if held and held[0] is not None and (passed_on or len(held) == 1) else None  # type: ignore[arg-type]

    def _passed_from_other_files(self, parameter: cst.Param) -> _Held | None:
        """Calling a parameter that no call of this file fills runs the instance that the calls
        in other files of the project pass (decided by the index)."""
        found = references.top_level_parameter(self.context.binder, parameter) if self.context.project is not None else None
        return _Held("call", symbol=Symbol(None, found[0]), depth=1, parameter=f"{parameter.name.value}:{found[1]}") if found else None

    def _element_of(self, subscript: cst.Subscript) -> _Held | None:
        """``outputs[1]`` of a call result that returns a tuple, ``outputs["exist"]`` of one that returns a dict."""
        index = subscript.slice[0].slice.value if len(subscript.slice) == 1 and isinstance(subscript.slice[0].slice, cst.Index) else None
        key = int(index.value) if isinstance(index, cst.Integer) else index.evaluated_value if isinstance(index, cst.SimpleString) else None
        held = self._value_of(subscript.value) if key is not None else None
        return held.element(key) if held is not None else None  # type: ignore[arg-type]

    def _result_of(self, call: cst.Call) -> _Held | None:
        wrapped = self.context.wrapped_modules(call)
        if wrapped is not None and len(wrapped) == 1:
            return self._value_of(wrapped[0])  # `DDP(model)` runs the model's forward
        qualified = self.context.call_name(call)
        if qualified is not None:
            held = self._api_result(qualified, call)
            if held is not None or qualified.partition(".")[0] == "torch":
                return held
        func = call.func
        if isinstance(func, cst.Attribute) and self_attribute(func) is None:  # `self.softmax(x)` runs what the attribute holds
            if func.attr.value in ACTIVATION_METHODS:
                return _Held("output", ACTIVATION_METHODS[func.attr.value])  # x.softmax(dim): not a module
            if func.attr.value in torch_api.MODULE_SELF_METHODS:
                held = self._value_of(func.value)  # Net().to(device) is the same model, nn.CrossEntropyLoss().to(device) the same loss
                if held is not None and held.kind in ("call", "layer", "loss"):
                    return held
            if func.attr.value in torch_api.VALUE_KEEPING_METHODS:
                held = self._value_of(func.value)  # probs.view(1, -1) still holds probabilities, model(x).view(...) the model's output
                return held if held is not None and (held.kind == "output" or held.kind == "call" and held.depth == 2) else None
        if (returned := self._returned_by(call)) is not None:
            return returned
        func = called_value(call)
        own_class = references.receiver_class(self.context.binder, func) if type(func) is cst.Name else None
        if own_class is not None and self.context.project is not None:
            return _Held("call", symbol=Symbol(None, own_class.name.value), depth=2)  # `self(x)` runs this class's forward
        callee = self._value_of(func)
        if callee is not None:
            if callee.kind == "layer":
                return _Held("output", callee.activation)
            if callee.kind == "call" and callee.depth == 1 and callee.index is None:
                return replace(callee, depth=2)
            return None
        symbol = self.context.project.symbol_of(func) if self.context.project is not None else None
        return _Held("call", symbol=symbol, depth=1) if symbol is not None else None

    def _returned_by(self, call: cst.Call) -> _Held | None:
        """What a ``def`` of this file that ``call`` runs returns, when all its ``return``
        statements agree (``self._activation(x)`` returning ``F.softmax(x, dim=1)``)."""
        function = self.context.def_run_by(call)
        if function is None or id(function) in self._asking:
            return None
        self._asking.add(id(function))
        held = {self._value_of(value) for value in self.context.values_returned(function, seen_from=self._site) or ()}
        self._asking.discard(id(function))
        return held.pop() if len(held) == 1 else None

    def _api_result(self, qualified: str, call: cst.Call) -> _Held | None:
        if qualified in ACTIVATION_FUNCTIONS:
            return _Held("output", ACTIVATION_FUNCTIONS[qualified])
        if qualified in torch_api.FUNCTIONAL_FORM_OF_LOSS:
            return _Held("loss", loss=qualified)
        if qualified in torch_api.MODULE_CALLING_WRAPPERS and call.args:
            return self._value_of(call.args[0].value)  # DataParallel(model) calls model
        return _as_layer(layer_activation(self.context, call))

    def _losses(self, call: cst.Call) -> list[tuple[str, tuple[Condition, ...]]]:
        """The logits losses ``call`` may run, each in functional form, with the condition
        under which it runs: one path is enough (``criterion`` bound to
        ``nn.CrossEntropyLoss()`` on one branch and ``nn.BCEWithLogitsLoss()`` on the other),
        and a parameter filled only by the project's other files runs the loss they all pass."""
        qualified = self.context.call_name(call)
        if qualified is not None:
            return [(qualified, ())] if qualified in _FUNCTIONAL_LOSSES else []
        losses: list[tuple[str, tuple[Condition, ...]]] = []
        for held in self._alternatives(called_value(call)):
            if held is not None and held.kind == "loss" and held.loss is not None:
                losses.append((torch_api.FUNCTIONAL_FORM_OF_LOSS.get(held.loss, held.loss), ()))
            elif held is not None and held.kind == "call" and held.parameter is not None and held.depth == 1:
                losses.extend((loss, held.conditions(loss, PASSED_LOSS)) for loss in _FUNCTIONAL_LOSSES)
        return losses

    # ----------------------------------------------------------------- walk
    def visit_Call(self, node: cst.Call) -> None:
        losses = self._losses(node)
        if not losses:
            return
        argument = argument_for(node, 0, "input")
        self._site = node
        held = self._value_of(argument.value) if argument is not None and not argument.star else None
        self._site = None
        if held is None:
            return
        # one finding per activation; of the losses other files may pass, at most one holds
        sure = {_FUNCTIONAL_LOSSES[loss][0]: (loss, runs) for loss, runs in losses if not runs}
        for loss, loss_runs in [*sure.values(), *((loss, runs) for loss, runs in losses if runs and _FUNCTIONAL_LOSSES[loss][0] not in sure)]:
            activation, message = _FUNCTIONAL_LOSSES[loss]
            if held.kind == "output" and held.activation == activation:
                self.report(node, message, conditions=loss_runs)
            elif held.kind == "call" and held.symbol is not None:  # a class (or head) of the project: decided once its file is summarised
                self.report(node, f"{message} ({activation} applied by {PLACE})", conditions=(*held.conditions(activation), *loss_runs))

