from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext, has_star_kwargs, keyword_argument
from torchcheck.lint.edits import keyword, with_keyword_appended
from torchcheck.lint.rule import FixSafety, Invalid, Valid
from torchcheck.rules.modules._common import ModuleClassRule

_DROPOUTS = frozenset(
    f"torch.nn.functional.{name}"
    for name in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")
)
_TRAINING_POSITION = 2  # dropout(input, p=0.5, training=True, inplace=False)


def _mentions_training(expression: cst.CSTNode) -> bool:
    """Whether a condition reads ``self.training`` / ``training`` (cheap: conditions are small)."""
    if isinstance(expression, cst.Attribute):
        return expression.attr.value == "training" or _mentions_training(expression.value)
    if isinstance(expression, cst.Name):
        return expression.value == "training"
    if isinstance(expression, cst.UnaryOperation):
        return _mentions_training(expression.expression)
    if isinstance(expression, cst.BooleanOperation):
        return _mentions_training(expression.left) or _mentions_training(expression.right)
    if isinstance(expression, cst.Comparison):
        return _mentions_training(expression.left) or any(_mentions_training(c.comparator) for c in expression.comparisons)
    if isinstance(expression, cst.Call):
        return _mentions_training(expression.func) or any(_mentions_training(a.value) for a in expression.args)
    return False


def _exits(body: cst.BaseSuite) -> bool:
    statements = body.body
    last = statements[-1] if statements else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, (cst.Return, cst.Raise))


def _is_zero(expression: cst.BaseExpression) -> bool:
    return isinstance(expression, (cst.Integer, cst.Float)) and expression.evaluated_value == 0


class FunctionalDropoutIgnoresMode(ModuleClassRule):
    """
    ## What it does
    Checks for `F.dropout(x, p)` (and `dropout1d`/`2d`/`3d`, `alpha_dropout`,
    `feature_alpha_dropout`) called in an `nn.Module` method without `training=`.

    ## Why is this bad?
    Unlike the `nn.Dropout` module, the functional form does not know the module's mode:
    its `training` argument defaults to `True`, so dropout keeps zeroing activations after
    `model.eval()` - evaluation and inference results are noisy and wrong. Pass
    `training=self.training`, or use an `nn.Dropout` submodule.

    ## Example
    ```python
    import torch.nn.functional as F
    from torch import nn

    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.fc = nn.Linear(dim, dim)

        def forward(self, x):
            return F.dropout(self.fc(x), p=0.1)
    ```

    Use instead:
    ```python
    import torch.nn.functional as F
    from torch import nn

    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.fc = nn.Linear(dim, dim)

        def forward(self, x):
            return F.dropout(self.fc(x), p=0.1, training=self.training)
    ```

    ## Fix safety
    The fix adds `training=self.training`. It is safe: in training mode nothing changes,
    and in eval mode dropout becomes the identity, which is what `eval()` promises. No
    finding is raised when `**kwargs` could supply `training=`, or when the call only runs
    under an `if self.training:` condition.

    ## References
    - [`torch.nn.functional.dropout`](https://pytorch.org/docs/stable/generated/torch.nn.functional.dropout.html)
    - [`torch.nn.Module.eval`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.eval)
    """

    code = "TCK604"
    name = "functional-dropout-ignores-mode"
    message = "Functional dropout without `training=` stays on after `model.eval()`; pass `training=self.training`"
    fix_title = "Pass `training=self.training`"
    fix_safety = FixSafety.SAFE
    required_text = ("dropout",)

    VALID = (
        Valid(
            """
import torch.nn.functional as F
from torch import nn
class Block(nn.Module):
    def forward(self, x):
        x = F.dropout(x, p=0.1, training=self.training)
        return F.dropout(x, 0.1, self.training)
"""
        ),
        Valid(
            """
import torch.nn.functional as F
from torch import nn
class Block(nn.Module):
    def forward(self, x, **kwargs):
        x = F.dropout(x, **kwargs)
        if self.training:
            x = F.dropout(x, p=0.1)
        return F.dropout(x, 0.2) if self.training else x
"""
        ),
        Valid(
            """
import torch.nn.functional as F
def drop(x, p, training=True):
    return F.dropout(x, p)
class Augment:
    def __call__(self, x):
        return F.dropout(x, 0.1)
"""
        ),
        Valid(
            """
import torch.nn.functional as F
from torch import nn
class Block(nn.Module):
    def forward(self, x):
        if not self.training:
            return x
        return F.dropout(x, 0.5)
"""
        ),
        Valid(
            """
import torch.nn.functional as F
from torch import nn
class Block(nn.Module):
    def forward(self, x):
        return F.dropout(x, p=0.0)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn.functional as F
from torch import nn
class Block(nn.Module):
    def forward(self, x):
        return F.dropout(self.fc(x), p=0.1)  # TCK604
""",
            expected_replacement="""
import torch.nn.functional as F
from torch import nn
class Block(nn.Module):
    def forward(self, x):
        return F.dropout(self.fc(x), p=0.1, training=self.training)  # TCK604
""",
        ),
        Invalid(
            """
import torch
from torch.nn.functional import dropout2d
class Encoder(torch.nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p
    def forward(self, x):
        def inner(y):
            return dropout2d(y, self.p)  # TCK604
        x = torch.nn.functional.dropout(  # TCK604
            x,
            self.p,
        )
        return inner(x)
""",
            expected_replacement="""
import torch
from torch.nn.functional import dropout2d
class Encoder(torch.nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p
    def forward(self, x):
        def inner(y):
            return dropout2d(y, self.p, training=self.training)  # TCK604
        x = torch.nn.functional.dropout(  # TCK604
            x,
            self.p,
            training=self.training,
        )
        return inner(x)
""",
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._guarded: set[cst.CSTNode] = set()  # branches that run only in one mode
        self._guard_depth = 0
        self._guarded_methods: set[cst.FunctionDef] = set()  # after `if not self.training: return`

    def visit_If(self, node: cst.If) -> None:
        if node in self._guarded:  # an `elif` of a mode-dependent `if`
            self._guard_depth += 1
        if _mentions_training(node.test):
            self._guarded.add(node.body)
            if node.orelse is not None:
                self._guarded.add(node.orelse)

    def leave_If(self, node: cst.If) -> None:
        if node in self._guarded:
            self._guard_depth -= 1
        if self.method is not None and _mentions_training(node.test) and _exits(node.body):
            self._guarded_methods.add(self.method)  # `if not self.training: return x` guards the rest

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if _mentions_training(node.test):
            self._guarded.update((node.body, node.orelse))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if node in self._guarded:
            self._guard_depth += 1

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if node in self._guarded:
            self._guard_depth -= 1

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        if node in self._guarded:
            self._guard_depth += 1

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        if node in self._guarded:
            self._guard_depth -= 1

    def visit_Else(self, node: cst.Else) -> None:
        if node in self._guarded:
            self._guard_depth += 1

    def leave_Else(self, node: cst.Else) -> None:
        if node in self._guarded:
            self._guard_depth -= 1

    def visit_Call(self, node: cst.Call) -> None:
        if self._guard_depth or node in self._guarded or not self.in_torch_module:
            return
        method, self_name = self.method, self.self_name
        if method is None or self_name is None or method in self._guarded_methods:
            return
        if self.context.call_name(node) not in _DROPOUTS:
            return
        if has_star_kwargs(node) or any(argument.star == "*" for argument in node.args):
            return
        if keyword_argument(node, "training") is not None:
            return
        positional = [argument for argument in node.args if argument.keyword is None]
        if len(positional) > _TRAINING_POSITION:
            return
        probability = keyword_argument(node, "p") or (positional[1] if len(positional) > 1 else None)
        if probability is not None and _is_zero(probability.value):
            return
        self.report(node, replacement=_with_training(node, self_name))


def _with_training(call: cst.Call, self_name: str) -> cst.Call:
    training = cst.Attribute(value=cst.Name(self_name), attr=cst.Name("training"))
    return with_keyword_appended(call, keyword("training", training))
