from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import dotted_name
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

_INIT = "torch.nn.init"
# The old names are wrappers that emit a FutureWarning and call the in-place `*_` function
# (`torch/nn/init.py`, `_make_deprecate`).
_DEPRECATED = frozenset(
    {"uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal"}
    | {"orthogonal", "sparse"}
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
    then call the underscore version, so they can disappear in any release. Code in fallback
    branches for old PyTorch versions (an `except` handler, or an `if` on the version) is
    not reported. A reference that is not called is a use only where the code calls it:
    one kept under a name or in a list, tuple, set or dict literal is reported where the
    file calls it through that name or container (`init_fn(w)`, `INITIALIZERS[name](w)`);
    references that are only compared, stored, or patched into and restored from
    `torch.nn.init` (a catalogue of functions, a context manager that skips initialization)
    are not uses of them.

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
        Valid(
            """
import torch
from torch import nn
TORCH_INIT_FUNCTIONS = {"normal_": nn.init.normal_, "normal": nn.init.normal, "uniform": nn.init.uniform}

def no_init_weights():
    saved_constant = nn.init.constant
    for name in TORCH_INIT_FUNCTIONS:
        setattr(torch.nn.init, name, lambda *args, **kwargs: None)
    torch.nn.init.constant = lambda *args, **kwargs: None
    try:
        yield
    finally:
        for name, init_function in TORCH_INIT_FUNCTIONS.items():
            setattr(torch.nn.init, name, init_function)
        torch.nn.init.constant = saved_constant
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
def initialize(weight, name):
    INITIALIZERS[name](weight)
    init_function = init.sparse  # TCK917
    init_function(weight, sparsity=0.1)
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
def initialize(weight, name):
    INITIALIZERS[name](weight)
    init_function = init.sparse_  # TCK917
    init_function(weight, sparsity=0.1)
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
        # references that are no use of the function: compared by identity, or patched over
        self._not_used: set[cst.CSTNode] = set()
        # references stored in a container or bound to a name, reported only where called
        self._stored: set[cst.CSTNode] = set()
        self._uncalled: dict[cst.CSTNode, str] = {}  # stored references not called (yet)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._not_used.update((node.left, *(target.comparator for target in node.comparisons)))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._not_used.add(node.target)  # `torch.nn.init.normal = skip`: patched, not called

    def visit_Assign(self, node: cst.Assign) -> None:
        if all(isinstance(target.target, cst.Name) for target in node.targets):
            self._stored.add(node.value)
        elif any(self._in_init(target.target) for target in node.targets):
            self._not_used.add(node.value)  # restored: `torch.nn.init.normal = saved_normal`

    def _in_init(self, target: cst.BaseExpression) -> bool:
        qualified = self.context.qualified_name(target)
        return qualified is not None and qualified.startswith(f"{_INIT}.")

    def _store(self, node: cst.List | cst.Tuple | cst.Set | cst.Dict) -> None:
        self._stored.update(_elements(node))

    visit_List = visit_Tuple = visit_Set = visit_Dict = _store

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
        if type(node.func) is cst.Name and node.func.value == "setattr":
            self._not_used.update(argument.value for argument in node.args)  # patching `nn.init`
        old = _deprecated_name(self.context.call_name(node))
        if old is None or type(node.func) is cst.Name and self._stored_in(node.func, depth=0):
            self._report_called_through(node.func)  # the fix belongs where the reference is stored
            return
        if self.context.in_compatibility_code:
            return
        self._callees.add(node.func)
        if isinstance(node.func, cst.Attribute):
            renamed = node.func.with_changes(attr=cst.Name(f"{old}_"))
            self.report(node, MESSAGE.format(old=old), replacement=renamed, replace_target=node.func)
        else:
            self.report(node, MESSAGE.format(old=old))  # fixed, if at all, in its import

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """``init_fn = nn.init.xavier_uniform``: a reference that is called later. One that is
        only compared by identity, patched over, or stored (in a container or under a name)
        and never seen called may just be catalogued, as in ``torch/overrides.py`` or a
        ``no_init_weights`` context manager that patches and restores ``nn.init``."""
        if node.attr.value not in _DEPRECATED or node in self._callees or node in self._not_used:
            return
        old = _deprecated_name(self.context.qualified_name(node))
        if old is None or self.context.in_compatibility_code:
            return
        if node in self._stored:
            self._uncalled[node] = old
            return
        self._report_reference(node, old)

    def _report_reference(self, node: cst.Attribute, old: str) -> None:
        self.report(node, MESSAGE.format(old=old), replacement=node.with_changes(attr=cst.Name(f"{old}_")))

    def _report_called_through(self, callee: cst.BaseExpression) -> None:
        """A stored reference called through the name or the container that holds it:
        ``init_fn(w)`` after ``init_fn = nn.init.normal``, ``INITIALIZERS[name](w)``."""
        if not self._uncalled:
            return
        for reference in self._stored_in(callee, depth=0):
            old = self._uncalled.pop(reference, None)
            if old is not None:
                self._report_reference(reference, old)  # type: ignore[arg-type]

    def _stored_in(self, expression: cst.BaseExpression, depth: int) -> list[cst.CSTNode]:
        """The references ``expression`` may evaluate to: through a name's last binding, a
        subscript or ``.get()`` of a container literal, and the container's elements."""
        if depth > 2:
            return []
        if isinstance(expression, cst.Name):
            binding = self.context.flow.last_binding(expression.value)
            value = binding.value if binding is not None else None
            return [value, *self._stored_in(value, depth + 1)] if value is not None else []
        if isinstance(expression, cst.Subscript):
            return self._stored_in(expression.value, depth + 1)
        if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute) and expression.func.attr.value == "get":
            return self._stored_in(expression.func.value, depth + 1)
        return _elements(expression) if isinstance(expression, (cst.List, cst.Tuple, cst.Set, cst.Dict)) else []


def _elements(container: cst.List | cst.Tuple | cst.Set | cst.Dict) -> list[cst.BaseExpression]:
    """The values a container literal holds (a ``**spread`` of a dict left out)."""
    return [element.value for element in container.elements if not isinstance(element, cst.StarredDictElement)]
