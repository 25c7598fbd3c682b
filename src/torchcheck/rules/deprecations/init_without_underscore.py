from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext, dotted_name
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

_INIT = "torch.nn.init"
# The old names are wrappers that emit a FutureWarning and call the in-place `*_` function
# (`torch/nn/init.py`, `_make_deprecate`).
_DEPRECATED = frozenset(
    {
        "uniform",
        "normal",
        "constant",
        "eye",
        "dirac",
        "xavier_uniform",
        "xavier_normal",
        "kaiming_uniform",
        "kaiming_normal",
        "orthogonal",
        "sparse",
    }
)

MESSAGE = "`nn.init.{old}` is deprecated; use the in-place `nn.init.{old}_`"


def _deprecated_name(qualified: str | None) -> str | None:
    """``xavier_uniform`` for ``torch.nn.init.xavier_uniform``, else None."""
    if qualified is None:
        return None
    module, _, name = qualified.rpartition(".")
    return name if module == _INIT and name in _DEPRECATED else None


class InitWithoutUnderscore(Rule):
    """
    ## What it does
    Checks for the deprecated `torch.nn.init` functions without a trailing underscore -
    `normal`, `uniform`, `constant`, `eye`, `dirac`, `xavier_uniform`, `xavier_normal`,
    `kaiming_uniform`, `kaiming_normal`, `orthogonal` and `sparse` - called or referenced
    through any import spelling (`nn.init.normal(w)`, `init.xavier_uniform(w)`,
    `from torch.nn.init import kaiming_normal`), and for their imports.

    ## Why is this bad?
    Since PyTorch 0.4 the initializers are named after what they do: they fill the tensor
    in place, like every other `*_` method. The old names survive only as wrappers that
    emit a deprecation warning (a `FutureWarning` in current releases) on every call and
    then call the underscore version, so they can disappear in any release. Code in fallback branches for old PyTorch versions (an
    `except` handler, or an `if` on the version) is not reported, nor are references that
    are only compared or listed in a list, tuple or set literal (a catalogue of functions,
    not a use of them).

    ## Example
    ```python
    from torch import nn

    nn.init.xavier_uniform(layer.weight)
    nn.init.constant(layer.bias, 0)
    ```

    Use instead:
    ```python
    from torch import nn

    nn.init.xavier_uniform_(layer.weight)
    nn.init.constant_(layer.bias, 0)
    ```

    ## Fix safety
    The fix renames `nn.init.normal` to `nn.init.normal_` (and so on) where the function is
    reached through a module (`nn.init.normal`, `init.normal`); the wrapper calls exactly
    that function with the same arguments, so the fix is safe. An aliased import
    (`from torch.nn.init import normal as init_normal`) is fixed in the import, which keeps
    the local name. A plain `from torch.nn.init import normal` is reported, at the import
    and at each call, without a fix: renaming the imported name would also require renaming
    every use of it, including uses that are not calls.

    ## References
    - [`torch.nn.init`](https://pytorch.org/docs/stable/nn.init.html)
    - [pytorch#6093: add the underscore to `nn.init.*` and deprecate the old names (PyTorch 0.4.0)](https://github.com/pytorch/pytorch/pull/6093)
    """

    code = "TCK917"
    name = "init-without-underscore"
    message = "Deprecated `torch.nn.init` function without the trailing underscore"
    fix_title = "Use the in-place `*_` initializer"
    fix_safety = FixSafety.SAFE
    required_text = ("init",)

    VALID = (
        Valid(
            """
import torch.nn as nn
from torch.nn import init
from torch.nn.init import trunc_normal_, zeros_
nn.init.xavier_uniform_(layer.weight)
init.normal_(layer.weight, std=0.02)
trunc_normal_(layer.weight, std=0.02)
zeros_(layer.bias)
gain = nn.init.calculate_gain("relu")
"""
        ),
        Valid(
            """
import numpy as np
import torch
rng = np.random.default_rng(0)
noise = rng.normal(0, 1, size=3)
samples = torch.distributions.Normal(0, 1).sample()
weight = torch.empty(3).normal_()
torch.nn.init.uniform_(weight, -0.1, 0.1)
"""
        ),
        Valid(
            """
import torch.nn as nn
def init_weights(m, normal=None):
    def normal(w):
        return nn.init.normal_(w, std=0.02)
    normal(m.weight)
"""
        ),
        Valid(
            """
import torch
from torch import nn
if torch.__version__ < "0.4":
    nn.init.xavier_uniform(layer.weight)
try:
    from torch.nn.init import trunc_normal_
except ImportError:
    from torch.nn.init import normal as trunc_normal_
"""
        ),
        Valid(
            """
import torch
DEPRECATED = {torch.nn.init.uniform, torch.nn.init.normal}
IGNORED = [torch.nn.init.calculate_gain, torch.nn.init.xavier_uniform]
def is_legacy(fn):
    return fn is torch.nn.init.normal or fn in (torch.nn.init.constant,)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn
nn.init.xavier_uniform(layer.weight)  # TCK917
nn.init.constant(layer.bias, 0)  # TCK917
""",
            expected_replacement="""
import torch.nn as nn
nn.init.xavier_uniform_(layer.weight)  # TCK917
nn.init.constant_(layer.bias, 0)  # TCK917
""",
        ),
        Invalid(
            """
import torch
import torch.nn.init as init
from torch.nn import init as weight_init
def reset(m):
    init.kaiming_normal(m.weight, mode="fan_out")  # TCK917
    weight_init.orthogonal(m.weight_hh, gain=1.0)  # TCK917
    torch.nn.init.normal(m.bias, std=1e-3)  # TCK917
INITIALIZERS = {"xavier": init.xavier_normal, "eye": torch.nn.init.eye}  # TCK917 TCK917
""",
            expected_replacement="""
import torch
import torch.nn.init as init
from torch.nn import init as weight_init
def reset(m):
    init.kaiming_normal_(m.weight, mode="fan_out")  # TCK917
    weight_init.orthogonal_(m.weight_hh, gain=1.0)  # TCK917
    torch.nn.init.normal_(m.bias, std=1e-3)  # TCK917
INITIALIZERS = {"xavier": init.xavier_normal_, "eye": torch.nn.init.eye_}  # TCK917 TCK917
""",
        ),
        Invalid(
            """
from torch.nn.init import xavier_uniform, constant  # TCK917 TCK917
def reset(layer):
    xavier_uniform(layer.weight)  # TCK917
    constant(layer.bias, 0.0)  # TCK917
"""
        ),
        Invalid(
            """
from torch.nn.init import (
    kaiming_uniform as kaiming_init,  # TCK917
    zeros_,
)
def reset(layer):
    kaiming_init(layer.weight)  # TCK917
    zeros_(layer.bias)
""",
            expected_replacement="""
from torch.nn.init import (
    kaiming_uniform_ as kaiming_init,  # TCK917
    zeros_,
)
def reset(layer):
    kaiming_init(layer.weight)  # TCK917
    zeros_(layer.bias)
""",
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._callees: set[cst.CSTNode] = set()
        self._compared: set[cst.CSTNode] = set()  # functions used as values, not to be called

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._compared.update((node.left, *(target.comparator for target in node.comparisons)))

    def _collect(self, node: cst.List | cst.Tuple | cst.Set) -> None:
        self._compared.update(element.value for element in node.elements)

    def visit_List(self, node: cst.List) -> None:
        self._collect(node)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self._collect(node)

    def visit_Set(self, node: cst.Set) -> None:
        self._collect(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        if dotted_name(node.module) != _INIT or self.context.in_compatibility_code:
            return
        for alias in node.names:
            old = dotted_name(alias.name)
            if old not in _DEPRECATED:
                continue
            local = alias.asname.name if alias.asname is not None else None
            if isinstance(local, cst.Name) and local.value != old:
                # `import normal as init_normal`: the local name stays, only the import changes
                self.report(alias, MESSAGE.format(old=old), replacement=alias.with_changes(name=cst.Name(f"{old}_")))
            else:
                self.report(alias, MESSAGE.format(old=old))

    def visit_Call(self, node: cst.Call) -> None:
        old = _deprecated_name(self.context.call_name(node))
        if old is None or self.context.in_compatibility_code:
            return
        self._callees.add(node.func)
        if isinstance(node.func, cst.Attribute):
            renamed = node.func.with_changes(attr=cst.Name(f"{old}_"))
            self.report(node, MESSAGE.format(old=old), replacement=renamed, replace_target=node.func)
        else:
            self.report(node, MESSAGE.format(old=old))  # fixed, if at all, in its import

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """``init_fn = nn.init.xavier_uniform``: a reference that is called later (a function
        compared by identity or listed in a collection may only be catalogued, as in
        ``torch/overrides.py``)."""
        if node in self._callees or node in self._compared:
            return
        old = _deprecated_name(self.context.qualified_name(node))
        if old is None or self.context.in_compatibility_code:
            return
        self.report(node, MESSAGE.format(old=old), replacement=node.with_changes(attr=cst.Name(f"{old}_")))
