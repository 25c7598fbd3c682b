from __future__ import annotations

from collections import Counter

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import argument_for, keyword_argument, method_call, subtree
from torchcheck.lint.rule import Invalid, Rule, Valid

# softmax(input, dim=None, _stacklevel=3, dtype=None): a missing dim is guessed (deprecated).
_FUNCTIONAL = frozenset(f"torch.nn.functional.{name}" for name in ("softmax", "log_softmax", "softmin"))
# nn.Softmax(dim=None): the module guesses the same way when it is called.
_MODULES = frozenset({"Softmax", "LogSoftmax", "Softmin"})
# softmax(input, dim, *, dtype=None): dim is required, a missing one is a TypeError.
_REQUIRED_DIM = frozenset(
    {"torch.softmax", "torch.log_softmax", "torch.special.softmax", "torch.special.log_softmax"}
)
_TENSOR_METHODS = frozenset({"softmax", "log_softmax"})  # Tensor.softmax(dim): dim required

_IMPLICIT = (
    "Softmax without `dim`: the implicit dimension is deprecated and is 0 (the batch axis) "
    "for 0-D, 1-D and 3-D input; pass `dim=` explicitly"
)
_MISSING = "Softmax without `dim`: `dim` is required here, so this call raises TypeError; pass `dim=`"
_STRING = '"'  # the owner of a name read as a string (getattr(self, "softmax")), unlike any identifier
# Reading these reaches every submodule of a module, whatever its attribute name.
_ALL_SUBMODULES = frozenset({"children", "named_children", "modules", "named_modules", "_modules", "__dict__"})


def _dim_missing(call: cst.Call, position: int) -> bool:
    """No ``dim`` passed (or a literal ``None``); False when ``*args``/``**kwargs`` could pass it."""
    if any(argument.star for argument in call.args):
        return False
    argument = argument_for(call, position, "dim")
    return argument is None or (isinstance(argument.value, cst.Name) and argument.value.value == "None")


class SoftmaxWithoutDim(Rule):
    """
    ## What it does
    Checks for `F.softmax`, `F.log_softmax`, `F.softmin`, `nn.Softmax()`, `nn.LogSoftmax()`
    and `nn.Softmin()` without `dim` (or with `dim=None`), and for `torch.softmax`,
    `torch.log_softmax` and the `tensor.softmax()` / `tensor.log_softmax()` methods without
    `dim`. A class of the file that derives from `nn.Softmax` (or the others) and defines no
    constructor of its own, itself or through the file's classes it derives from, is built by
    theirs: `BottleSoftmax()` counts as `nn.Softmax()`.

    ## Why is this bad?
    Softmax normalises along one axis, and which axis is the whole meaning of the result.
    Without `dim`, the functional and module forms fall back to a deprecated guess: `dim=0`
    for 0-D, 1-D and 3-D input and `dim=1` otherwise. For a `(batch, seq, vocab)` tensor
    that normalises across the *batch*: the code runs, only emits a deprecation warning,
    and the probabilities are silently wrong. `torch.softmax` and the tensor methods have
    no guess at all: without `dim` they raise `TypeError`. Always pass `dim` (usually
    `dim=-1`).

    A softmax module stored on an attribute that no code of the file reads
    (`self.softmax = nn.Softmax()` in a model whose `forward` never uses `self.softmax`) is
    not reported: the guess is made only when the module is called.

    ## Example
    ```python
    import torch.nn.functional as F
    from torch import nn

    probabilities = F.softmax(logits)
    attend = nn.Softmax()
    ```

    Use instead:
    ```python
    import torch.nn.functional as F
    from torch import nn

    probabilities = F.softmax(logits, dim=-1)
    attend = nn.Softmax(dim=-1)
    ```

    ## Fix safety
    There is no automatic fix: the right axis depends on the tensor's layout, and the
    deprecated guess is not necessarily the axis that was meant.

    ## References
    - [`torch.nn.functional.softmax`](https://pytorch.org/docs/stable/generated/torch.nn.functional.softmax.html)
    - [`torch.nn.Softmax`](https://pytorch.org/docs/stable/generated/torch.nn.Softmax.html)
    - [`torch.softmax`](https://pytorch.org/docs/stable/generated/torch.softmax.html)
    """

    code = "TCK608"
    name = "softmax-without-dim"
    message = _IMPLICIT
    required_text = ("softmax", "Softmax", "softmin", "Softmin")

    VALID = (
        Valid(
            """
import torch
import torch.nn as nn
import torch.nn.functional as F

probabilities = F.softmax(logits, dim=-1)
log_probabilities = F.log_softmax(logits, -1, dtype=torch.float32)
attention = torch.softmax(scores, dim=-1)
weights = scores.softmax(-1)
numpy_style = torch.softmax(torch.from_numpy(outputs), axis=-1)
numpy_method = scores.softmax(axis=-1)
self_attend = nn.Softmax(dim=1)
head = nn.LogSoftmax(-1)
spatial = nn.Softmax2d()
samples = F.gumbel_softmax(logits, tau=0.5)
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

class TinyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(16, 16)
        self.softmax = nn.Softmax()
        self.scores: torch.Tensor

    def forward(self, x):
        return self.linear(x)
"""
        ),
        Valid(
            """
import torch.nn.functional as F
from scipy.special import softmax
import jax

def normalise(x, *args, **kwargs):
    a = F.softmax(x, *args)
    b = F.log_softmax(x, **kwargs)
    return a, b, softmax(x), jax.nn.softmax(x)

class Logits:
    def softmax(self):
        return self
Logits().softmax()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn

class Bottle(nn.Module):
    def forward(self, x):
        return super().forward(x.flatten(0, 1))

class BottleSoftmax(Bottle, nn.Softmax):
    pass

class DimSoftmax(nn.Softmax):
    def __init__(self):
        super().__init__(dim=-1)

attention = BottleSoftmax()  # TCK608
scores = DimSoftmax()
"""
        ),
        Invalid(
            """
import torch
import torch.nn as nn
import torch.nn.functional as F

class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attend = nn.Softmax()  # TCK608
        self.log = nn.LogSoftmax(dim=None)  # TCK608

    def forward(self, q, k):
        scores = q @ k.transpose(-2, -1)
        weights = F.softmax(scores)  # TCK608
        return F.log_softmax(scores, dtype=torch.float32) + weights + self.attend(scores)  # TCK608

    def log_probabilities(self, scores):
        return getattr(self, "log")(scores)
"""
        ),
        Invalid(
            """
import torch as T
from torch.nn import Softmin
from torch.nn.functional import softmin

x = T.randn(4, 10)
probabilities = T.softmax(x)  # TCK608
also = x.log_softmax()  # TCK608
least = softmin(x)  # TCK608
layer = Softmin()  # TCK608
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._module: cst.Module | None = None
        self._reads: Counter[tuple[str, str]] | None = None

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.call_name(node) or self.context.inherited_constructor(node)  # `BottleSoftmax()` of the file
        if qualified is None:
            receiver_method = method_call(node)
            if (
                receiver_method is None
                or receiver_method[1] not in _TENSOR_METHODS
                or not self.context.is_tensor(receiver_method[0])
            ):
                return
            if keyword_argument(node, "axis") is not None:
                return  # x.softmax(axis=-1): accepted as an alias of dim
            position, message = 0, _MISSING  # tensor.softmax(dim)
        elif qualified in _FUNCTIONAL:
            position, message = 1, _IMPLICIT
        elif qualified in _REQUIRED_DIM:
            if keyword_argument(node, "axis") is not None:
                return  # torch.softmax(x, axis=-1): NumPy's name, accepted as an alias of dim
            position, message = 1, _MISSING
        elif torch_api.is_module_class_name(qualified) and qualified.rsplit(".", 1)[-1] in _MODULES:
            position, message = 0, _IMPLICIT
        else:
            return
        if _dim_missing(node, position) and not self._stored_but_never_read(node):
            self.report(node, message)

    def visit_Module(self, node: cst.Module) -> None:
        self._module = node

    def _stored_but_never_read(self, construction: cst.Call) -> bool:
        """``self.softmax = nn.Softmax()`` where nothing in the file reads ``self.softmax``
        (by name, as ``getattr(self, "softmax")``, or through ``self.children()``)."""
        statement = self.context.statement_holding(construction)
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            target = statement.targets[0].target
        elif isinstance(statement, cst.AnnAssign):
            target = statement.target
        else:
            return False
        if not isinstance(target, cst.Attribute) or not isinstance(target.value, cst.Name) or self.context.current_class is None:
            return False
        owner, name = target.value.value, target.attr.value
        reads = self._attribute_reads()
        return reads[owner, name] == 0 and reads[_STRING, name] == 0 and not any(reads[owner, every] for every in _ALL_SUBMODULES)

    def _attribute_reads(self) -> Counter[tuple[str, str]]:
        """How often each ``owner.name`` is read in the file (assignments to it are not
        reads; a string literal is, for ``getattr(self, "softmax")``); computed once."""
        if self._reads is None:
            self._reads = _attribute_reads(self._module)
        return self._reads


def _attribute_reads(module: cst.Module | None) -> Counter[tuple[str, str]]:
    reads: Counter[tuple[str, str]] = Counter()
    for node in subtree(module) if module is not None else ():
        if isinstance(node, cst.Attribute):
            reads[_owner_and_name(node)] += 1
        elif isinstance(node, cst.SimpleString):
            reads[_STRING, node.value.strip("'\"")] += 1
        elif isinstance(node, (cst.Assign, cst.AnnAssign)):
            for target in _targets(node):
                if isinstance(target, cst.Attribute):
                    reads[_owner_and_name(target)] -= 1  # the store is walked below as an Attribute
    return reads


def _owner_and_name(attribute: cst.Attribute) -> tuple[str, str]:
    """``("self", "softmax")`` for ``self.softmax``; the owner is empty unless a plain name."""
    owner = attribute.value.value if isinstance(attribute.value, cst.Name) else ""
    return owner, attribute.attr.value


def _targets(statement: cst.Assign | cst.AnnAssign) -> list[cst.BaseExpression]:
    if isinstance(statement, cst.Assign):
        return [target.target for target in statement.targets]
    return [statement.target] if statement.value is not None else []  # `self.x: T` stores nothing
