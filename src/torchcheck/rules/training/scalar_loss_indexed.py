from __future__ import annotations

import libcst as cst

from torchcheck.lint import guards, references, torch_api
from torchcheck.lint.containers import drawn_items
from torchcheck.lint.kinds import Evidence, Kind
from torchcheck.lint.nodes import keyword_argument, source_text
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid, fix_safety_on

# Methods that keep a tensor's shape: `loss.cpu().data[0]` indexes the same 0-dim value.
_SHAPE_KEEPING = frozenset({"cpu", "cuda", "detach", "float", "double", "half", "clone", "to", "contiguous"})
_REDUCTIONS = frozenset({"mean", "sum"})
_REDUCING_FUNCTIONS = frozenset({"torch.mean", "torch.sum"})
_MAX_ALIAS_DEPTH = 4
# What is known about a value's shape: how surely it is 0-dim, that it is not, or nothing.
_UNREDUCED = "unreduced"
_NUMBER = "number"  # an operand that is a plain number: it keeps the other side's shape
_Verdict = Evidence | str | None


class ScalarLossIndexed(Rule):
    """
    ## What it does
    Checks for `loss.data[0]` and `loss[0]` on a loss that is a 0-dim tensor: the result of
    a loss function or criterion, or of `.mean()` / `.sum()`.

    ## Why is this bad?
    Before PyTorch 0.4 a loss was a 1-element tensor and `loss.data[0]` read its value.
    Since 0.4 reduced losses are 0-dim tensors (scalars), which have no first element:
    indexing one raises `IndexError: invalid index of a 0-dim tensor. Use tensor.item()`,
    typically at the first logging step of a script written for an older release. Use
    `loss.item()`, which returns the Python number and works on every version since 0.4.

    A name that merely suggests a loss (`loss`) is reported only in the `.data[0]` form, which
    can only be meant for a tensor; `loss[0]` is reported when the code shows the value is a
    reduced loss, since models and custom criteria often return tuples (`loss, parts =
    ...`, `outputs[0]`). A loss computed with `reduction="none"` has one value per sample and
    is not reported, nor one whose `reduce=` is a name unknown at the read; under a test
    that it holds (`loss.data[0] if reduce else loss.data`), the loss is reduced.

    ## Example
    ```python
    import torch.nn as nn

    criterion = nn.CrossEntropyLoss()
    loss = criterion(model(images), labels)
    running_loss += loss.data[0]
    ```

    Use instead:
    ```python
    import torch.nn as nn

    criterion = nn.CrossEntropyLoss()
    loss = criterion(model(images), labels)
    running_loss += loss.item()
    ```

    ## Fix safety
    The fix replaces `loss.data[0]` (or `loss[0]`) with `loss.item()`. It is safe when the
    code shows that the value is a reduced loss: a call of a loss function or of a loss
    module built in the file without `reduction="none"`, `.mean()` / `.sum()` over all
    dimensions, a sum of such values, or a call of a function of the file whose every
    `return` is one. It is unsafe when only a name (`loss`, `criterion`) or an annotation says so:
    a 1-element tensor of per-sample losses indexes fine, and `.item()` on a longer one
    raises.

    ## References
    - [PyTorch 0.4.0 migration guide: accumulating losses](https://pytorch.org/blog/pytorch-0_4_0-migration-guide/#accumulating-losses)
    - [`loss_train = loss.data[0]` raises `IndexError` (xbresson/spectral_graph_convnets#6)](https://github.com/xbresson/spectral_graph_convnets/issues/6)
    - [`torch.Tensor.item`](https://pytorch.org/docs/stable/generated/torch.Tensor.item.html)
    """

    code = "TCK115"
    name = "scalar-loss-indexed"
    message = "Indexing a 0-dim tensor with `[0]` raises `IndexError` since PyTorch 0.4; use `.item()`"
    fix_title = "Use `.item()`"
    fix_safety = FixSafety.SAFE
    required_text = ("[0]",)
    _true_here: set[str] = set()  # the tests that hold at the read being judged

    VALID = (
        Valid(
            """
import torch.nn.functional as F
def criterion(lprobs, target, reduce=True):
    loss = F.nll_loss(lprobs, target, reduce=reduce)
    return loss.data if reduce else loss.data[0]  # one value per sample here
"""
        ),
        Valid(
            """
import torch.nn.functional as F

def per_sample_loss(pred, target):
    return F.mse_loss(pred, target, reduction="none")

first = per_sample_loss(pred, target).data[0]
"""
        ),
        Valid(
            """
import torch.nn as nn

criterion = nn.CrossEntropyLoss()
loss = criterion(model(images), labels)
running_loss += loss.item()
"""
        ),
        Valid(
            """
outputs = model(**batch)
loss = outputs[0]
loss, logits = model(input_ids, labels=labels)[:2]
"""
        ),
        Valid(
            """
import torch.nn as nn

criterion = nn.CrossEntropyLoss(reduction="none")
per_sample = criterion(model(images), labels)
first = per_sample[0]
"""
        ),
        Valid(
            """
def compute_loss(predictions, targets):
    return box_loss(predictions, targets), class_loss(predictions, targets)

loss = compute_loss(predictions, targets)
box = loss[0]
"""
        ),
        Valid(
            """
import torch

if torch.__version__ < "0.4":
    value = loss.data[0]
else:
    value = loss.item()
"""
        ),
        Valid(
            """
losses = [criterion(model(x), y) for x, y in batches]
first = losses[0]
first_box = state["boxes"].data[0]
scores = model(images).sum(dim=1)
best = scores[0]
"""
        ),
        Valid(
            """
import pandas as pd

frame = pd.read_csv("results.csv")
missing_in_first_column = frame.isnull().sum()[0]
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn
class Criterion:
    def __init__(self, weight):
        self.crit = nn.CrossEntropyLoss(weight)
    def __call__(self, out, tgt):
        return self.crit(out, tgt)
class Engine:
    def __init__(self, model, weight):
        self.model = model
        self.crit = Criterion(weight)
    def valid_pass(self, batches):
        total = 0
        for inputs, targets in batches:
            total += self.crit(self.model(inputs), targets).data[0]  # TCK115
        return total
""",
            expected_replacement="""
import torch.nn as nn
class Criterion:
    def __init__(self, weight):
        self.crit = nn.CrossEntropyLoss(weight)
    def __call__(self, out, tgt):
        return self.crit(out, tgt)
class Engine:
    def __init__(self, model, weight):
        self.model = model
        self.crit = Criterion(weight)
    def valid_pass(self, batches):
        total = 0
        for inputs, targets in batches:
            total += self.crit(self.model(inputs), targets).item()  # TCK115
        return total
""",
        ),
        Invalid(
            """
def log_parts(meters, parts):
    [meter.add(value.data[0]) for meter, value in zip(meters, [part.sum() for part in parts])]  # TCK115
""",
            expected_replacement="""
def log_parts(meters, parts):
    [meter.add(value.item()) for meter, value in zip(meters, [part.sum() for part in parts])]  # TCK115
""",
        ),
        Invalid(
            """
import torch.nn.functional as F
def criterion(lprobs, target, reduce=True):
    loss = F.nll_loss(lprobs, target, reduce=reduce)
    return loss.data[0] if reduce else loss.data  # TCK115
""",
            expected_replacement="""
import torch.nn.functional as F
def criterion(lprobs, target, reduce=True):
    loss = F.nll_loss(lprobs, target, reduce=reduce)
    return loss.item() if reduce else loss.data  # TCK115
""",
        ),
        Invalid(
            """
def on_forward(state):
    meter_loss.add(state["loss"].data[0])  # TCK115
    history.append(self.loss.data[0])  # TCK115
""",
            expected_replacement="""
def on_forward(state):
    meter_loss.add(state["loss"].item())  # TCK115
    history.append(self.loss.item())  # TCK115
""",
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F

def vae_loss(recon, x, mu, logvar):
    bce = F.binary_cross_entropy(recon, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld

test_loss += vae_loss(*model(x), x).data[0]  # TCK115
""",
            expected_replacement="""
import torch
import torch.nn.functional as F

def vae_loss(recon, x, mu, logvar):
    bce = F.binary_cross_entropy(recon, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld

test_loss += vae_loss(*model(x), x).item()  # TCK115
""",
        ),
        Invalid(
            """
import torch.nn as nn

criterion = nn.CrossEntropyLoss()
loss = criterion(model(images), labels)
running_loss += loss.data[0]  # TCK115
""",
            expected_replacement="""
import torch.nn as nn

criterion = nn.CrossEntropyLoss()
loss = criterion(model(images), labels)
running_loss += loss.item()  # TCK115
""",
        ),
        Invalid(
            """
import torch.nn.functional as F

test_loss += F.nll_loss(output, target, size_average=False).data[0]  # TCK115
loss = F.mse_loss(prediction, target) + 0.1 * penalty.mean()
print(loss[0])  # TCK115
""",
            expected_replacement="""
import torch.nn.functional as F

test_loss += F.nll_loss(output, target, size_average=False).item()  # TCK115
loss = F.mse_loss(prediction, target) + 0.1 * penalty.mean()
print(loss.item())  # TCK115
""",
        ),
        Invalid(
            """
def train(model, loader, criterion, optimizer):
    for images, labels in loader:
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        print("loss %.4f" % loss.data[0])  # TCK115
""",
            expected_replacement="""
def train(model, loader, criterion, optimizer):
    for images, labels in loader:
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        print("loss %.4f" % loss.item())  # TCK115
""",
        ),
    )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not _indexes_first(node) or self.context.in_compatibility_code:
            return
        value, through_data = _strip_data(node.value)
        # `loss.data[0] if reduce else loss.data`: where the test holds, `reduce=reduce` reduced
        self._true_here = {source_text(held.test) for held in guards.known_at(self.context.binder, node) if held.holds}
        evidence = self._scalar(value, 0)
        if evidence is None and through_data and _named_like_a_loss(value):
            evidence = Evidence.CONVENTION  # `loss.data[0]` was the pre-0.4 way to read a loss
        if not isinstance(evidence, Evidence) or (evidence is Evidence.CONVENTION and not through_data):
            return
        item = cst.Call(func=cst.Attribute(value=value, attr=cst.Name("item")))
        self.report(node, replacement=item.with_changes(lpar=node.lpar, rpar=node.rpar), fix_safety=fix_safety_on(evidence))

    def _scalar(self, expression: cst.BaseExpression, depth: int) -> _Verdict:
        """How surely ``expression`` is a 0-dim tensor (a reduced loss), :data:`_UNREDUCED`
        when the code shows it is not, None when unknown."""
        if depth > _MAX_ALIAS_DEPTH:
            return None
        if isinstance(expression, cst.Name):
            values = references.reaching_values(self.context.binder, expression) or drawn_items(self.context.binder, expression)
            return self._agreed(values, depth) if values else None  # type: ignore[arg-type]
        if isinstance(expression, cst.UnaryOperation) and isinstance(expression.expression, (cst.Integer, cst.Float)):
            return _NUMBER
        if isinstance(expression, cst.Call):
            return self._scalar_call(expression, depth)
        if isinstance(expression, cst.BinaryOperation):
            return self._scalar_arithmetic(expression, depth)
        return None

    def _agreed(self, values: list[cst.BaseExpression | None], depth: int) -> _Verdict:
        """The verdict every one of ``values`` gets, if they agree."""
        verdicts = {self._scalar(value, depth + 1) if value is not None else None for value in values}
        return verdicts.pop() if len(verdicts) == 1 else None

    def _scalar_arithmetic(self, operation: cst.BinaryOperation, depth: int) -> _Verdict:
        """``loss_a + 0.1 * loss_b``: a scalar when every operand is a scalar or a number, as
        surely as the surest tensor operand (a 0-dim tensor plus any scalar is a 0-dim tensor)."""
        verdicts = [
            _NUMBER if isinstance(side, (cst.Integer, cst.Float)) else self._scalar(side, depth + 1)
            for side in (operation.left, operation.right)
        ]
        if _UNREDUCED in verdicts:
            return _UNREDUCED
        evidences = [verdict for verdict in verdicts if isinstance(verdict, Evidence)]
        if len(evidences) + verdicts.count(_NUMBER) < 2 or not evidences:
            return None
        return max(evidences)

    def _scalar_call(self, call: cst.Call, depth: int) -> _Verdict:
        func = call.func
        qualified = self.context.call_name(call)
        if qualified is not None:
            if qualified in torch_api.LOSS_FUNCTIONS:
                return Evidence.STRONG if _reduces(call, self._true_here) else _UNREDUCED
            if qualified in _REDUCING_FUNCTIONS:
                return Evidence.STRONG if len(call.args) == 1 else _UNREDUCED
            return _UNREDUCED if qualified.startswith("torch.") else None  # torch.stack(losses), torch.tensor(...)
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in _REDUCTIONS:
                return self._reduced(call, func.value)
            if method in _SHAPE_KEEPING:
                return self._scalar(func.value, depth + 1)
        binder = self.context.binder
        function = references.file_function(binder, func) or references.instance_call_method(binder, func)
        return self._agreed(references.returned_values(function), depth) if function is not None else self._criterion_call(call, depth)

    def _reduced(self, call: cst.Call, receiver: cst.BaseExpression) -> _Verdict:
        """``x.mean()`` / ``x.sum()`` over every dimension is 0-dim if ``x`` is a tensor (a
        pandas DataFrame's ``.sum()`` is a Series, which ``[0]`` indexes fine)."""
        if any(argument.keyword is None or _is_dim(argument) for argument in call.args):
            return _UNREDUCED
        return Evidence.STRONG if self.context.is_tensor(receiver) else Evidence.CONVENTION

    def _criterion_call(self, call: cst.Call, depth: int) -> _Verdict:
        """``criterion(output, target)`` or ``nn.MSELoss()(output, target)`` with a loss module
        (``depth`` > 0: a value read away from the subscript, a criterion wrapper's ``return``)."""
        callee = (self.context.kind_elsewhere if depth else self.context.kind_and_evidence)(call.func)
        if callee.kind is not Kind.LOSS_FUNCTION or callee.evidence is None:
            return None
        built = call.func
        if isinstance(built, cst.Name):
            binding = self.context.flow.last_binding(built.value)
            built = binding.value if binding is not None and binding.value is not None else built
        if not isinstance(built, cst.Call):
            return min(callee.evidence, Evidence.ANNOTATION)  # built elsewhere: its reduction is out of sight
        return callee.evidence if _reduces(built, self._true_here) else _UNREDUCED


def _indexes_first(node: cst.Subscript) -> bool:
    """``value[0]`` (one index, the literal 0)."""
    if len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "0"


def _strip_data(value: cst.BaseExpression) -> tuple[cst.BaseExpression, bool]:
    """``loss`` and True for ``loss.data``; the value itself and False otherwise."""
    if isinstance(value, cst.Attribute) and value.attr.value == "data":
        return value.value, True
    return value, False


def _reduces(call: cst.Call, true_here: set[str]) -> bool:
    """A loss call or construction that reduces to one value: no ``reduction="none"`` and no
    ``reduce=False`` (a reduction passed as a variable is unknown: treated as not reducing,
    unless it is a name the read sits under a test of, ``true_here``)."""
    reduction = keyword_argument(call, "reduction")
    if reduction is not None:
        return isinstance(reduction.value, cst.SimpleString) and reduction.value.evaluated_value != "none"
    reduce = keyword_argument(call, "reduce")
    if reduce is not None:
        return isinstance(reduce.value, cst.Name) and (reduce.value.value == "True" or reduce.value.value in true_here)
    return not any(argument.star for argument in call.args)


def _named_like_a_loss(value: cst.BaseExpression) -> bool:
    """``loss``, ``train_loss``, ``lossD``, ``self.loss``, ``state["loss"]``, an entry of a
    container of losses (``losses["total"]``, ``loss_dict[key]``); not ``losses`` itself (a
    list or a per-sample tensor)."""
    if isinstance(value, cst.Subscript):
        key = value.slice[0].slice if len(value.slice) == 1 else None
        keyed = isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString) and _loss_word(key.value.evaluated_value)
        return keyed or "loss" in _last_name(value.value)
    return _loss_word(_last_name(value))


def _last_name(value: cst.BaseExpression) -> str:
    node = value.attr if isinstance(value, cst.Attribute) else value
    return node.value.lower() if isinstance(node, cst.Name) else ""


def _loss_word(name: object) -> bool:
    return isinstance(name, str) and "loss" in name.lower() and "losses" not in name.lower()


def _is_dim(argument: cst.Arg) -> bool:
    return argument.keyword is not None and argument.keyword.value in ("dim", "axis")
