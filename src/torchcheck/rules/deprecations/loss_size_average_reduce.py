from __future__ import annotations

import libcst as cst

from torchcheck.lint.edits import keyword, with_arguments_replaced
from torchcheck.lint.nodes import has_star_kwargs, keyword_argument
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

_LEGACY = ("size_average", "reduce")

# Positional parameters of every loss that still accepts `size_average`/`reduce`, up to
# `reduction` (PyTorch 2.x signatures; the legacy pair sits at the same place since 0.4.1).
_NN_LOSSES: dict[str, tuple[str, ...]] = {
    "BCELoss": ("weight", "size_average", "reduce", "reduction"),
    "BCEWithLogitsLoss": ("weight", "size_average", "reduce", "reduction"),
    "CosineEmbeddingLoss": ("margin", "size_average", "reduce", "reduction"),
    "CrossEntropyLoss": ("weight", "size_average", "ignore_index", "reduce", "reduction"),
    "HingeEmbeddingLoss": ("margin", "size_average", "reduce", "reduction"),
    "KLDivLoss": ("size_average", "reduce", "reduction"),
    "L1Loss": ("size_average", "reduce", "reduction"),
    "MSELoss": ("size_average", "reduce", "reduction"),
    "MarginRankingLoss": ("margin", "size_average", "reduce", "reduction"),
    "MultiLabelMarginLoss": ("size_average", "reduce", "reduction"),
    "MultiLabelSoftMarginLoss": ("weight", "size_average", "reduce", "reduction"),
    "MultiMarginLoss": ("p", "margin", "weight", "size_average", "reduce", "reduction"),
    "NLLLoss": ("weight", "size_average", "ignore_index", "reduce", "reduction"),
    "NLLLoss2d": ("weight", "size_average", "ignore_index", "reduce", "reduction"),
    "PoissonNLLLoss": ("log_input", "full", "size_average", "eps", "reduce", "reduction"),
    "SmoothL1Loss": ("size_average", "reduce", "reduction"),
    "SoftMarginLoss": ("size_average", "reduce", "reduction"),
    "TripletMarginLoss": ("margin", "p", "eps", "swap", "size_average", "reduce", "reduction"),
}
_FUNCTIONAL_LOSSES: dict[str, tuple[str, ...]] = {
    "binary_cross_entropy": ("input", "target", "weight", "size_average", "reduce", "reduction"),
    "binary_cross_entropy_with_logits": ("input", "target", "weight", "size_average", "reduce", "reduction"),
    "cosine_embedding_loss": ("input1", "input2", "target", "margin", "size_average", "reduce", "reduction"),
    "cross_entropy": ("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction"),
    "hinge_embedding_loss": ("input", "target", "margin", "size_average", "reduce", "reduction"),
    "kl_div": ("input", "target", "size_average", "reduce", "reduction"),
    "l1_loss": ("input", "target", "size_average", "reduce", "reduction"),
    "margin_ranking_loss": ("input1", "input2", "target", "margin", "size_average", "reduce", "reduction"),
    "mse_loss": ("input", "target", "size_average", "reduce", "reduction"),
    "multi_margin_loss": ("input", "target", "p", "margin", "weight", "size_average", "reduce", "reduction"),
    "multilabel_margin_loss": ("input", "target", "size_average", "reduce", "reduction"),
    "multilabel_soft_margin_loss": ("input", "target", "weight", "size_average", "reduce", "reduction"),
    "nll_loss": ("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction"),
    "poisson_nll_loss": ("input", "target", "log_input", "full", "size_average", "eps", "reduce", "reduction"),
    "smooth_l1_loss": ("input", "target", "size_average", "reduce", "reduction"),
    "soft_margin_loss": ("input", "target", "size_average", "reduce", "reduction"),
    "triplet_margin_loss": ("anchor", "positive", "negative", "margin", "p", "eps", "swap", "size_average", "reduce", "reduction"),
}
SIGNATURES: dict[str, tuple[str, ...]] = {
    **{f"torch.nn.{name}": parameters for name, parameters in _NN_LOSSES.items()},
    **{f"torch.nn.modules.loss.{name}": parameters for name, parameters in _NN_LOSSES.items()},
    **{f"torch.nn.functional.{name}": parameters for name, parameters in _FUNCTIONAL_LOSSES.items()},
}

MESSAGE = "`size_average=`/`reduce=` are deprecated; use `reduction=\"{reduction}\"`"
UNKNOWN_MESSAGE = "`size_average=`/`reduce=` are deprecated; use `reduction=` (\"mean\", \"sum\" or \"none\")"
OVERRIDE_MESSAGE = (
    "`size_average=`/`reduce=` are deprecated and override the `reduction=` passed with them; keep only `reduction=`"
)


def legacy_reduction(size_average: bool | None, reduce: bool | None) -> str:
    """The ``reduction`` PyTorch derives from the legacy pair (``torch.nn._reduction.legacy_get_string``)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _literal(expression: cst.BaseExpression) -> tuple[bool, bool | None]:
    """``(True, value)`` for the literals ``True``/``False``/``None``; ``(False, None)`` otherwise."""
    if isinstance(expression, cst.Name) and expression.value in ("True", "False", "None"):
        return True, {"True": True, "False": False, "None": None}[expression.value]
    return False, None


def _forwarded(name: str, expression: cst.BaseExpression) -> bool:
    """``size_average=size_average`` / ``reduce=self.reduce``: a wrapper passing its own argument
    on (not ``cfg.model.size_average``, a setting read from elsewhere)."""
    if isinstance(expression, cst.Attribute) and isinstance(expression.value, cst.Name) and expression.value.value == "self":
        expression = expression.attr
    return isinstance(expression, cst.Name) and expression.value == name


class LossSizeAverageReduce(Rule):
    """
    ## What it does
    Checks for the legacy `size_average=` and `reduce=` arguments of the loss modules
    (`nn.MSELoss(size_average=False)`, `nn.CrossEntropyLoss(reduce=False)`, ...) and of the
    functional losses (`F.nll_loss(x, y, size_average=False)`, ...), by keyword or by
    position.

    ## Why is this bad?
    Both arguments have been deprecated since PyTorch 0.4.1 in favour of the single
    `reduction=` argument (`"mean"`, `"sum"` or `"none"`), and every call that passes
    one of them emits a `UserWarning`. They are also easy to misread: when either is given,
    PyTorch derives the reduction from the pair alone and *ignores* a `reduction=` passed in
    the same call, and `reduce=False` means no reduction at all whatever `size_average`
    says. Passing `None` (the default) is not reported, nor is a wrapper that passes its own
    `size_average`/`reduce` arguments on unchanged - unless its own default is a flag
    (`def __init__(self, size_average=True)`): then every construction warns.

    ## Example
    ```python
    import torch.nn.functional as F
    from torch import nn

    criterion = nn.MSELoss(size_average=False)
    per_sample = F.cross_entropy(logits, target, reduce=False)
    ```

    Use instead:
    ```python
    import torch.nn.functional as F
    from torch import nn

    criterion = nn.MSELoss(reduction="sum")
    per_sample = F.cross_entropy(logits, target, reduction="none")
    ```

    ## Fix safety
    When every legacy argument is a keyword with a literal value (`True`, `False` or
    `None`), the fix replaces them with the `reduction=` PyTorch derives from them:
    `reduce=False` gives `"none"`, otherwise `size_average=False` gives `"sum"` and
    anything else `"mean"`. The result is the same computation without the warning, so the
    fix is safe. There is no fix when a value is not a literal, when an argument is passed
    by position, when `**kwargs` could also carry one, or when `reduction=` is passed as
    well (the legacy arguments win today; decide which reduction you meant).

    ## References
    - [`torch.nn.MSELoss`](https://pytorch.org/docs/stable/generated/torch.nn.MSELoss.html)
    - [`torch.nn.functional.cross_entropy`](https://pytorch.org/docs/stable/generated/torch.nn.functional.cross_entropy.html)
    - [PyTorch 0.4.1 release notes: `reduction=` replaces `size_average` and `reduce`](https://github.com/pytorch/pytorch/releases/tag/v0.4.1)
    """

    code = "TCK916"
    name = "loss-size-average-reduce"
    message = "`size_average=`/`reduce=` are deprecated; use `reduction=`"
    fix_title = "Replace with the equivalent `reduction=`"
    fix_safety = FixSafety.SAFE
    required_text = ("size_average", "reduce")

    VALID = (
        Valid(
            """
import torch.nn as nn
import torch.nn.functional as F
criterion = nn.MSELoss(reduction="sum")
loss = F.cross_entropy(logits, target, reduction="none", ignore_index=-100)
legacy_default = nn.L1Loss(size_average=None, reduce=None)
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn
from torch.nn.modules.loss import _Loss
import torch.nn.functional as F
class FocalLoss(_Loss):
    def __init__(self, gamma=2.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.gamma = gamma
        self.size_average = size_average
    def inner(self):
        return nn.MSELoss(size_average=self.size_average)
def nll(input, target, size_average=None, reduce=None, reduction="mean"):
    return F.nll_loss(input, target, size_average=size_average, reduce=reduce, reduction=reduction)
"""
        ),
        Valid(
            """
import torch
out = torch.zeros(3).scatter_reduce(0, index, src, reduce="amax", include_self=False)
total = functools.reduce(operator.add, losses)
dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
def distribute_bn(model, world_size, reduce=False):
    return model
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch import nn

class NLLLoss(nn.Module):
    def __init__(self, weight=None, size_average=True):
        super().__init__()
        self.criterion = nn.NLLLoss(weight=weight, size_average=size_average)  # TCK916

class Wrapped(nn.Module):
    def __init__(self, size_average=None, reduce=None):
        super().__init__()
        self.criterion = nn.MSELoss(size_average=size_average, reduce=reduce)
"""
        ),
        Invalid(
            """
import torch.nn as nn
import torch.nn.functional as F
criterion = nn.MSELoss(size_average=False)  # TCK916
per_sample = F.cross_entropy(logits, target, reduce=False)  # TCK916
mean_loss = nn.BCEWithLogitsLoss(pos_weight=w, size_average=True, reduce=True)  # TCK916
summed = F.nll_loss(  # TCK916
    log_probs,
    target,
    size_average=False,
    ignore_index=0,
)
""",
            expected_replacement="""
import torch.nn as nn
import torch.nn.functional as F
criterion = nn.MSELoss(reduction="sum")  # TCK916
per_sample = F.cross_entropy(logits, target, reduction="none")  # TCK916
mean_loss = nn.BCEWithLogitsLoss(pos_weight=w, reduction="mean")  # TCK916
summed = F.nll_loss(  # TCK916
    log_probs,
    target,
    reduction="sum",
    ignore_index=0,
)
""",
        ),
        Invalid(
            """
from torch import nn
from torch.nn import KLDivLoss
kl = KLDivLoss(size_average=False, reduce=False)  # TCK916
loss = nn.CrossEntropyLoss(weight,  # TCK916
                           size_average=False,
                           reduce=True)
""",
            expected_replacement="""
from torch import nn
from torch.nn import KLDivLoss
kl = KLDivLoss(reduction="none")  # TCK916
loss = nn.CrossEntropyLoss(weight,  # TCK916
                           reduction="sum")
""",
        ),
        Invalid(
            """
import torch.nn as nn
import torch.nn.functional as F
a = nn.MSELoss(size_average=not args.sum)  # TCK916
b = nn.L1Loss(False)  # TCK916
c = F.mse_loss(x, y, size_average=False, reduction="mean")  # TCK916
d = nn.SmoothL1Loss(reduce=False, **loss_kwargs)  # TCK916
e = nn.MSELoss(size_average=cfg.model.size_average)  # TCK916
"""
        ),
    )

    def _flag_by_default(self, forwarded: cst.BaseExpression) -> bool:
        """``def __init__(self, size_average=True)`` handing ``size_average`` on: a caller that
        passes nothing still sends the legacy flag, and every construction warns."""
        bindings = self.context.binder.bindings_before(forwarded) if isinstance(forwarded, cst.Name) else []
        return any(isinstance(b.node, cst.Param) and b.node.default is not None and _literal(b.node.default) in ((True, True), (True, False)) for b in bindings)

    def visit_Call(self, node: cst.Call) -> None:
        parameters = SIGNATURES.get(self.context.call_name(node) or "")
        if parameters is None or self.context.in_compatibility_code:
            return
        legacy = _legacy_arguments(node, parameters)
        if not legacy or all(_forwarded(name, argument.value) and not self._flag_by_default(argument.value) for name, argument in legacy):
            return  # nothing legacy, or a wrapper handing its caller's arguments on
        literals = [_literal(argument.value) for _, argument in legacy]
        if all(known and value is None for known, value in literals):
            return  # the defaults: no warning, no effect
        if _passes_reduction(node, parameters):
            self.report(node, OVERRIDE_MESSAGE)
            return
        if not all(known for known, _ in literals):
            self.report(node, UNKNOWN_MESSAGE)
            return
        values = {name: value for (name, _), (_, value) in zip(legacy, literals)}
        reduction = legacy_reduction(values.get("size_average"), values.get("reduce"))
        removed = [argument for _, argument in legacy]
        # no fix for a positional flag, or where `**kwargs` may also hold `reduction=`
        fixable = not has_star_kwargs(node) and all(argument.keyword is not None for argument in removed)
        replacement = with_arguments_replaced(node, removed, keyword("reduction", cst.SimpleString(f'"{reduction}"'))) if fixable else None
        self.report(node, MESSAGE.format(reduction=reduction), replacement=replacement)


def _legacy_arguments(call: cst.Call, parameters: tuple[str, ...]) -> list[tuple[str, cst.Arg]]:
    """``(parameter, argument)`` for the arguments that fill ``size_average``/``reduce``,
    by position or by keyword, in source order."""
    found: list[tuple[str, cst.Arg]] = []
    positional = True
    for index, argument in enumerate(call.args):
        if argument.keyword is not None:
            if argument.keyword.value in _LEGACY:
                found.append((argument.keyword.value, argument))
        elif argument.star:
            positional = False  # the positions after `*args` are unknown
        elif positional and index < len(parameters) and parameters[index] in _LEGACY:
            found.append((parameters[index], argument))
    return found


def _passes_reduction(call: cst.Call, parameters: tuple[str, ...]) -> bool:
    if keyword_argument(call, "reduction") is not None:
        return True
    positional = [argument for argument in call.args if argument.keyword is None and not argument.star]
    return len(positional) > parameters.index("reduction")
