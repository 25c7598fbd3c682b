from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.edits import keyword, with_keyword_appended
from torchcheck.lint.flow import BODY, Branch
from torchcheck.lint.nodes import argument_for, has_star_kwargs, keyword_argument, subtree
from torchcheck.lint.rule import FixSafety, Invalid, Valid
from torchcheck.rules.modules._common import ModuleClassRule

_DROPOUTS = frozenset(
    f"torch.nn.functional.{name}"
    for name in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")
)
_DROPOUT_MODULES = frozenset(
    f"torch.nn.{name}" for name in ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout")
)
# Attention kernels that drop attention weights whenever their rate is non-zero: the rate's
# keyword and position (`scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0)`).
_ATTENTION = {
    "torch.nn.functional.scaled_dot_product_attention": ("dropout_p", 4),
    "flash_attn.flash_attn_func": ("dropout_p", 3),
    "flash_attn.flash_attn_qkvpacked_func": ("dropout_p", 1),
    "flash_attn.flash_attn_kvpacked_func": ("dropout_p", 2),
    "flash_attn.flash_attn_varlen_func": ("dropout_p", 7),
    "flash_attn.flash_attn_varlen_qkvpacked_func": ("dropout_p", 3),
    "flash_attn.flash_attn_varlen_kvpacked_func": ("dropout_p", 6),
    "xformers.ops.memory_efficient_attention": ("p", 4),
}
_TRAINING_POSITION = 2  # dropout(input, p=0.5, training=True, inplace=False)
_MAX_ALIASES = 4  # `p = self.p; q = p` is followed this far

_ATTENTION_MESSAGE = (
    "`{kernel}` with a fixed `{rate}` keeps dropping attention weights after "
    "`model.eval()`; pass `{rate}=p if self.training else 0.0`"
)
_MODULE_MESSAGE = (
    "A dropout module built inside a method is never switched by `model.eval()` and keeps dropping; "
    "create it in `__init__`, or call `F.dropout(x, p, training=self.training)`"
)


def _mentions_training(expression: cst.CSTNode) -> bool:
    """Whether an expression reads ``self.training`` / ``training`` anywhere, lambdas left out
    (expressions are small)."""
    unread = lambda node: isinstance(node, (cst.Lambda, cst.BaseSuite))
    return any(type(node) is cst.Name and node.value == "training" for node in subtree(expression, unread))  # type: ignore[attr-defined]


def _is_zero(expression: cst.BaseExpression) -> bool:
    return isinstance(expression, (cst.Integer, cst.Float)) and expression.evaluated_value == 0


def _mode_branch(branch: Branch) -> bool:
    """A branch of an ``if`` on the module's mode: it runs in one mode only."""
    return isinstance(branch.owner, cst.If) and _mentions_training(branch.owner.test)


class FunctionalDropoutIgnoresMode(ModuleClassRule):
    """
    ## What it does
    Checks for `F.dropout(x, p)` (and `dropout1d`/`2d`/`3d`, `alpha_dropout`,
    `feature_alpha_dropout`) called in an `nn.Module` method without `training=`; for
    `F.scaled_dot_product_attention(..., dropout_p=p)` with a rate that does not depend on
    `self.training` (and the same in the other attention kernels that take a rate:
    flash-attn's `flash_attn_func`, `flash_attn_varlen_func` and their packed forms,
    xformers' `memory_efficient_attention(..., p=p)`); and for a dropout module built and called inside a method
    (`nn.Dropout(p)(x)`). A method other than `forward` that runs with gradients off
    (`@torch.no_grad()` on a diffusion model's `p_sample`) never trains: dropout there is
    the sampler's own choice and is not reported. Nor is a rate the method's callers pass on
    every call (`forward(x, drop_prob)`, a parameter without a default, also in arithmetic:
    `p=1 - keep_rate`): the code turns
    dropout off by passing 0, as its evaluation does. Nor is dropout in a branch that runs
    only when a caller asks for it, `if need_fp:` on a parameter that defaults to `False` or
    `None` (a training step's feature perturbation): a plain `model(x)`, as evaluation
    calls it, never reaches it.

    ## Why is this bad?
    Unlike the `nn.Dropout` module, the functional form does not know the module's mode:
    its `training` argument defaults to `True`, so dropout keeps zeroing activations after
    `model.eval()` - evaluation and inference results are noisy and wrong. Pass
    `training=self.training`, or use an `nn.Dropout` submodule.
    `scaled_dot_product_attention` has no mode either: its `dropout_p` applies whenever it
    is non-zero, so pass `dropout_p=p if self.training else 0.0`. A dropout module created
    inside `forward` is not a submodule, so `model.eval()` never reaches it and it stays in
    training mode.

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
    under an `if self.training:` condition. Dropout meant to stay on in evaluation (a
    Tacotron-style prenet, Monte Carlo dropout) says so with `training=True`, which is
    never reported. The `scaled_dot_product_attention` and
    dropout-module findings have no automatic fix: where the rate or the module should
    live is the author's choice.

    ## References
    - [`torch.nn.functional.dropout`](https://pytorch.org/docs/stable/generated/torch.nn.functional.dropout.html)
    - [`torch.nn.functional.scaled_dot_product_attention`](https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html)
    - [`torch.nn.Module.eval`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.eval)
    """

    code = "TCK604"
    name = "functional-dropout-ignores-mode"
    follows_project_bases = True
    message = "Functional dropout without `training=` stays on after `model.eval()`; pass `training=self.training`"
    fix_title = "Pass `training=self.training`"
    fix_safety = FixSafety.SAFE
    required_text = ("dropout", "Dropout")  # F.dropout / dropout_p=, nn.Dropout(p)(x)

    VALID = (
        Valid(
            """
import torch.nn.functional as F
from torch import nn


class HyperConv(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, keep_rate):
        return self.proj(F.dropout(x, p=1 - keep_rate))
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.classifier = nn.Conv2d(256, 21, 1)
    def forward(self, features, need_fp=False):
        if need_fp:  # only the training step asks for the perturbed copy
            both = torch.cat((features, nn.Dropout2d(0.5)(features)))
            return self.classifier(both).chunk(2)
        return self.classifier(features)
"""
        ),
        Valid(
            """
import torch.nn.functional as F
from torch import nn
class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 8, batch_first=True)
    def forward(self, tokens, drop_prob):
        return self.rnn(F.dropout(tokens, drop_prob))  # validation calls `decoder(x, 0.0)`
"""
        ),
        Valid(
            """
import torch
from flash_attn import flash_attn_func

class SelfAttention(torch.nn.Module):
    def __init__(self, dropout_rate=0.1):
        super().__init__()
        self.dropout_rate = dropout_rate

    def forward(self, q, k, v):
        return flash_attn_func(q, k, v, dropout_p=self.dropout_rate if self.training else 0.0)
"""
        ),
        Valid(
            """
import torch
import torch.nn.functional as F

class Diffusion(torch.nn.Module):
    @torch.no_grad()
    def p_sample(self, x, noise, noise_dropout=0.0):
        if noise_dropout > 0.0:
            noise = F.dropout(noise, p=noise_dropout)
        return x + noise
"""
        ),
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
        Valid(
            """
import torch.nn.functional as F
from torch import nn
class Prenet(nn.Module):
    def forward(self, x):
        for layer in self.layers:
            x = F.dropout(layer(x), p=self.dropout, training=True)  # on at inference, by design
        return x
"""
        ),
        Valid(
            """
import torch.nn.functional as F
from torch import nn
class Attention(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p
        self.attn_drop = nn.Dropout(p)
    def forward(self, q, k, v, dropout_p=0.0):
        x = F.scaled_dot_product_attention(q, k, v, dropout_p=self.p if self.training else 0.0)
        x = F.scaled_dot_product_attention(q, k, v, dropout_p=self.attn_drop.p if self.training else 0.)
        x = F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p)
        p = self.p
        if not self.training:
            p = 0.0
        x = F.scaled_dot_product_attention(q, k, v, dropout_p=p)
        if self.training:
            x = nn.Dropout(0.1)(x)
        return self.attn_drop(x)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn.functional as F
from torch import nn


class HyperConv(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, keep_rate=0.5):
        return self.proj(F.dropout(x, p=1 - keep_rate))  # TCK604
""",
            expected_replacement="""
import torch.nn.functional as F
from torch import nn


class HyperConv(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, keep_rate=0.5):
        return self.proj(F.dropout(x, p=1 - keep_rate, training=self.training))  # TCK604
"""
        ),
        Invalid(
            """
import torch
from flash_attn import flash_attn_func, flash_attn_varlen_func

class SelfAttention(torch.nn.Module):
    def __init__(self, dropout_rate=0.1):
        super().__init__()
        self.dropout_rate = dropout_rate

    def forward(self, q, k, v, cu_q, cu_k, max_q, max_k):
        out = flash_attn_func(q, k, v, dropout_p=self.dropout_rate)  # TCK604
        return flash_attn_varlen_func(q, k, v, cu_q, cu_k, max_q, max_k, self.dropout_rate)  # TCK604
"""
        ),
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
        Invalid(
            """
import torch.nn.functional as F
from torch import nn
class Attention(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p
        self.attn_drop = nn.Dropout(p)
    def forward(self, q, k, v):
        x = F.scaled_dot_product_attention(q, k, v, dropout_p=self.attn_drop.p)  # TCK604
        p = self.p
        x = F.scaled_dot_product_attention(q, k, v, None, p)  # TCK604
        return nn.Dropout(self.p)(x)  # TCK604
"""
        ),
        Invalid(
            """
from torch import nn
class Head(nn.Module):
    def forward(self, x):
        drop = nn.Dropout(0.5)
        return drop(x)  # TCK604
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._mode_expressions: list[bool] = []  # per open `a if cond else b`: whether cond reads the mode

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._mode_expressions.append(_mentions_training(node.test))

    def leave_IfExp(self, node: cst.IfExp) -> None:
        self._mode_expressions.pop()

    # ----------------------------------------------------------------- where we are
    def _runs_in_one_mode(self) -> bool:
        """Inside ``if self.training:`` (or its ``else``), ``x if self.training else y``, after
        ``if not self.training: return x`` in the same method, or in a method other than
        ``forward`` that runs with gradients off (a sampler: it never trains)."""
        flow = self.context.flow
        if self.context.in_no_grad and self.method is not None and self.method.name.value != "forward":
            return True
        if any(self._mode_expressions) or any(_mode_branch(branch) or self._opted_into(branch) for branch in flow.path):
            return True
        functions = {self.method, flow.function}
        return any(
            isinstance(exit.node, (cst.Return, cst.Raise))
            and exit.function in functions
            and any(_mode_branch(branch) for branch in exit.path)
            for exit in flow.exits
        )

    def _opted_into(self, branch: Branch) -> bool:
        """The body of ``if need_fp:`` on a parameter that defaults to ``False`` or ``None``:
        it runs only for callers that ask for it (a training step's feature perturbation),
        never for a plain ``model(x)`` as evaluation calls it."""
        test = branch.owner.test if isinstance(branch.owner, cst.If) and branch.label == BODY else None
        param = self.context.parameter_named(test) if type(test) is cst.Name else None
        default = param.default if param is not None else None
        return type(default) is cst.Name and default.value in ("False", "None")

    def visit_Call(self, node: cst.Call) -> None:
        if not self.in_torch_module or self.method is None or self.self_name is None:
            return
        qualified = self.context.call_name(node)
        if qualified in _DROPOUTS:
            self._functional_dropout(node, self.self_name)
        elif qualified in _ATTENTION:
            self._attention(node, qualified)
        elif self._builds_dropout_module(node.func) and not self._runs_in_one_mode():
            self.report(node, _MODULE_MESSAGE)

    # ----------------------------------------------------------------- F.dropout
    def _functional_dropout(self, node: cst.Call, self_name: str) -> None:
        if has_star_kwargs(node) or any(argument.star == "*" for argument in node.args):
            return
        if keyword_argument(node, "training") is not None:
            return
        positional = [argument for argument in node.args if argument.keyword is None]
        if len(positional) > _TRAINING_POSITION:
            return
        probability = keyword_argument(node, "p") or (positional[1] if len(positional) > 1 else None)
        if probability is not None and (_is_zero(probability.value) or self._rate_of_each_call(probability.value)):
            return
        if not self._runs_in_one_mode():
            self.report(node, replacement=_with_training(node, self_name))

    def _rate_of_each_call(self, rate: cst.BaseExpression) -> bool:
        """A rate the method's callers pass on every call (a parameter without a default,
        ``forward(x, drop_prob)``, or arithmetic on such parameters and numbers, ``1 -
        keep_rate``): evaluation passes 0 as surely as ``eval()`` would."""
        parts = list(subtree(rate))
        names = [part for part in parts if type(part) is cst.Name]
        if not names or any(type(part) in (cst.Call, cst.Attribute, cst.Subscript) for part in parts):
            return False
        params = [self.context.parameter_named(name) for name in names]  # type: ignore[arg-type]
        return all(param is not None and param.default is None for param in params)

    # ----------------------------------------------------------------- scaled_dot_product_attention
    def _attention(self, node: cst.Call, kernel: str) -> None:
        rate, position = _ATTENTION[kernel]
        argument = argument_for(node, position, rate)
        if argument is None or argument.star or not self._fixed_probability(argument.value, 0):
            return
        if not self._runs_in_one_mode():
            self.report(node, _ATTENTION_MESSAGE.format(kernel=kernel.rsplit(".", 1)[-1], rate=rate))

    def _fixed_probability(self, value: cst.BaseExpression, depth: int) -> bool:
        """A non-zero dropout rate that is the same in both modes: a number, a setting read
        from the module (``self.dropout``, ``self.attn_drop.p``), or a local bound to one
        outside any mode-dependent branch. A parameter is the caller's choice: not fixed."""
        if isinstance(value, (cst.Integer, cst.Float)):
            return not _is_zero(value)
        if isinstance(value, cst.Attribute):
            root: cst.BaseExpression = value
            while isinstance(root, cst.Attribute):
                if root.attr.value == "training":
                    return False
                root = root.value
            return isinstance(root, cst.Name) and root.value == self.self_name
        if isinstance(value, cst.Name) and depth < _MAX_ALIASES:
            binding = self.context.flow.last_binding(value.value)
            if binding is None or binding.value is None or any(_mode_branch(branch) for branch in binding.path):
                return False
            return self._fixed_probability(binding.value, depth + 1)
        return False

    # ----------------------------------------------------------------- nn.Dropout(p)(x)
    def _builds_dropout_module(self, func: cst.BaseExpression) -> bool:
        """``nn.Dropout(p)(x)``, or ``drop(x)`` after ``drop = nn.Dropout(p)``: a module that
        is not a submodule, so ``eval()`` never reaches it."""
        if isinstance(func, cst.Name):
            binding = self.context.flow.last_binding(func.value)
            func = binding.value if binding is not None and binding.value is not None else func
        if type(func) is not cst.Call or self.context.call_name(func) not in _DROPOUT_MODULES:
            return False
        probability = argument_for(func, 0, "p")
        return probability is None or (not probability.star and not _is_zero(probability.value))


def _with_training(call: cst.Call, self_name: str) -> cst.Call:
    training = cst.Attribute(value=cst.Name(self_name), attr=cst.Name("training"))
    return with_keyword_appended(call, keyword("training", training))
