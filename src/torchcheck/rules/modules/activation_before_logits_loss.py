from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext, keyword_argument
from torchcheck.lint.rule import Invalid, Rule, Valid

_SOFTMAX = "softmax"
_SIGMOID = "sigmoid"
_SOFTMAX_FUNCTIONS = frozenset({"torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax"})
_SIGMOID_FUNCTIONS = frozenset({"torch.sigmoid", "torch.nn.functional.sigmoid", "torch.special.expit"})
_ACTIVATION_MODULES = {"torch.nn.Softmax": _SOFTMAX, "torch.nn.Sigmoid": _SIGMOID}

# loss -> (the activation it must not be fed, message)
_CROSS_ENTROPY = (
    _SOFTMAX,
    "`cross_entropy` applies log-softmax itself; feeding it `softmax` output trains through a double softmax. "
    "Pass the logits",
)
_NLL = (
    _SOFTMAX,
    "`nll_loss` expects log-probabilities, not `softmax` output; use `log_softmax` (or `cross_entropy` on the logits)",
)
_BCE_WITH_LOGITS = (
    _SIGMOID,
    "`binary_cross_entropy_with_logits` applies sigmoid itself; feeding it `sigmoid` output applies it twice. "
    "Pass the logits",
)
_FUNCTIONAL_LOSSES = {
    "torch.nn.functional.cross_entropy": _CROSS_ENTROPY,
    "torch.nn.functional.nll_loss": _NLL,
    "torch.nn.functional.binary_cross_entropy_with_logits": _BCE_WITH_LOGITS,
}
_LOSS_MODULES = {
    "torch.nn.CrossEntropyLoss": _CROSS_ENTROPY,
    "torch.nn.NLLLoss": _NLL,
    "torch.nn.BCEWithLogitsLoss": _BCE_WITH_LOGITS,
}

# What a local name or `self.<attr>` holds: an activation's output ("out:softmax"), an
# activation module ("module:softmax"), a loss module ("loss:<qualified>"), or None.
_Value = str | None


class ActivationBeforeLogitsLoss(Rule):
    """
    ## What it does
    Checks for losses that take logits fed with an activation's output: `softmax` output
    passed to `cross_entropy`/`CrossEntropyLoss` or `nll_loss`/`NLLLoss`, and `sigmoid`
    output passed to `binary_cross_entropy_with_logits`/`BCEWithLogitsLoss` - directly or
    through a local variable.

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
    required_text = ("softmax", "Softmax", "sigmoid", "Sigmoid", "expit")

    VALID = (
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
    )
    INVALID = (
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
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._names: list[dict[str, _Value]] = [{}]  # module scope, then one per function
        self._attributes: list[dict[str, _Value]] = []  # one per class

    # ----------------------------------------------------------------- what values hold
    def _value_of(self, expression: cst.BaseExpression) -> _Value:
        if isinstance(expression, cst.Name):
            for scope in reversed(self._names):
                if expression.value in scope:
                    return scope[expression.value]
            return None
        if isinstance(expression, cst.Attribute) and isinstance(expression.value, cst.Name) and expression.value.value == "self":
            return self._attributes[-1].get(expression.attr.value) if self._attributes else None
        if not isinstance(expression, cst.Call):
            return None
        qualified = self.context.call_name(expression)
        if qualified is not None:
            if qualified in _SOFTMAX_FUNCTIONS:
                return f"out:{_SOFTMAX}"
            if qualified in _SIGMOID_FUNCTIONS:
                return f"out:{_SIGMOID}"
            if qualified in _ACTIVATION_MODULES:
                return f"module:{_ACTIVATION_MODULES[qualified]}"
            if qualified in _LOSS_MODULES:
                return f"loss:{qualified}"
            return None
        func = expression.func
        if isinstance(func, cst.Attribute) and func.attr.value in (_SOFTMAX, _SIGMOID):
            return f"out:{func.attr.value}"  # x.softmax(dim): the receiver resolves to no module
        callee = self._value_of(func)
        if callee is not None and callee.startswith("module:"):
            return f"out:{callee.removeprefix('module:')}"
        return None

    def _loss(self, call: cst.Call) -> tuple[str, str] | None:
        qualified = self.context.call_name(call)
        if qualified is not None:
            return _FUNCTIONAL_LOSSES.get(qualified)
        held = self._value_of(call.func)
        if held is not None and held.startswith("loss:"):
            return _LOSS_MODULES[held.removeprefix("loss:")]
        return None

    # ----------------------------------------------------------------- walk
    def visit_Call(self, node: cst.Call) -> None:
        loss = self._loss(node)
        if loss is None:
            return
        activation, message = loss
        argument = keyword_argument(node, "input")
        if argument is None:
            argument = node.args[0] if node.args and node.args[0].keyword is None and not node.args[0].star else None
        if argument is not None and self._value_of(argument.value) == f"out:{activation}":
            self.report(node, message)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._attributes.append({})

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._attributes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        self._names.append(
            {param.name.value: None for param in (*params.posonly_params, *params.params, *params.kwonly_params)}
        )

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._names.pop()

    def leave_Assign(self, node: cst.Assign) -> None:
        value = self._value_of(node.value)
        for target in node.targets:
            self._bind(target.target, value)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target, self._value_of(node.value) if node.value is not None else None)

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target, None)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target, None)

    def _bind(self, target: cst.BaseExpression, value: _Value) -> None:
        if isinstance(target, cst.Name):
            self._names[-1][target.value] = value
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
            if self._attributes:
                attributes = self._attributes[-1]
                attribute = target.attr.value
                # bound twice to different things: unknown
                attributes[attribute] = value if attributes.get(attribute, value) == value else None
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, None)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, None)
