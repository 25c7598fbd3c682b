from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.edits import keyword, with_keyword_appended
from torchcheck.lint.nodes import has_star_kwargs, keyword_argument
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid
from torchcheck.lint.torch_api import TORCH_LOAD


class LoadWithoutWeightsOnly(Rule):
    """
    ## What it does
    Checks for `torch.load(...)` calls that do not pass `weights_only=` explicitly.

    ## Why is this bad?
    `torch.load` unpickles the file. With `weights_only=False` (the default before
    PyTorch 2.6) unpickling can import and call anything, so loading a checkpoint
    downloaded from the internet runs whatever code its author put in it. With
    `weights_only=True` only tensors, primitive types and dictionaries are restored.
    Say which behaviour you rely on: `weights_only=True` for weights and plain
    checkpoints, `weights_only=False` only for files you trust and that really contain
    arbitrary Python objects. The explicit keyword also keeps the code's behaviour the same
    across PyTorch versions, whose default changed in 2.6.

    ## Example
    ```python
    import torch

    state = torch.load("checkpoint.pt", map_location="cpu")
    ```

    Use instead:
    ```python
    import torch

    state = torch.load("checkpoint.pt", map_location="cpu", weights_only=True)
    ```

    ## Fix safety
    The fix adds `weights_only=True`. It is unsafe: a checkpoint that pickles other
    objects (an `argparse.Namespace`, a NumPy array, a custom class) then fails to load
    until those types are allow-listed with `torch.serialization.add_safe_globals`. Calls
    in an `except TypeError:` block (the fallback for PyTorch before 1.13, which has no
    `weights_only`) are not reported. The fix is
    not offered when `**kwargs` is passed (which could already supply `weights_only=`;
    the rule stays silent there), nor when a `pickle_module` is given, which
    `weights_only=True` refuses. With a `target-version` older than 1.13, which introduced
    `weights_only`, the rule is off.

    ## References
    - [`torch.load`](https://pytorch.org/docs/stable/generated/torch.load.html)
    - [Serialization semantics: `weights_only`](https://pytorch.org/docs/stable/notes/serialization.html#weights-only)
    """

    code = "TCK401"
    name = "load-without-weights-only"
    message = "`torch.load` without `weights_only=` can run arbitrary code from the file; pass `weights_only=True`"
    fix_title = "Pass `weights_only=True`"
    fix_safety = FixSafety.UNSAFE
    required_text = ("load(",)
    requires_torch = (1, 13)
    torchfix_codes = ("TOR102",)

    VALID = (
        Valid(
            """
import torch
state = torch.load("checkpoint.pt", map_location="cpu", weights_only=True)
legacy = torch.load("trusted.pkl", weights_only=False)
"""
        ),
        Valid(
            """
import torch
def load_checkpoint(path, **kwargs):
    return torch.load(path, map_location="cpu", **kwargs)
"""
        ),
        Valid(
            """
import torch
weights_only_kwarg = {"weights_only": True}
state = torch.load(path, map_location="cpu", **weights_only_kwarg)
"""
        ),
        Valid(
            """
import json
import pickle
import numpy as np
config = json.load(open("config.json"))
cache = pickle.load(handle)
array = np.load("x.npy")
"""
        ),
        Valid(
            """
import torch
def load_checkpoint(path, weights_only=True):
    try:
        return torch.load(path, map_location="cpu", weights_only=weights_only)
    except TypeError:  # PyTorch < 1.13 has no weights_only
        if not weights_only:
            return torch.load(path, map_location="cpu")
        raise
"""
        ),
        Valid(
            """
import torch
model = torch.hub.load("pytorch/vision", "resnet18")
state = model.load_state_dict(torch.load(path, weights_only=True))
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
state = torch.load("checkpoint.pt", map_location="cpu")  # TCK401
""",
            expected_replacement="""
import torch
state = torch.load("checkpoint.pt", map_location="cpu", weights_only=True)  # TCK401
""",
        ),
        Invalid(
            """
from torch import load
import torch as T
def restore(self, path):
    self.model.load_state_dict(load(path))  # TCK401
    self.optimizer.load_state_dict(T.load(path + ".opt"))  # TCK401
""",
            expected_replacement="""
from torch import load
import torch as T
def restore(self, path):
    self.model.load_state_dict(load(path, weights_only=True))  # TCK401
    self.optimizer.load_state_dict(T.load(path + ".opt", weights_only=True))  # TCK401
""",
        ),
        Invalid(
            """
import torch
checkpoint = torch.load(  # TCK401
    args.resume,
    map_location=lambda storage, loc: storage.cuda(args.gpu),
)
""",
            expected_replacement="""
import torch
checkpoint = torch.load(  # TCK401
    args.resume,
    map_location=lambda storage, loc: storage.cuda(args.gpu),
    weights_only=True,
)
""",
        ),
        Invalid(
            """
import dill
import torch
state = torch.load(path, pickle_module=dill)  # TCK401
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._compat_handlers = 0  # depth of `except TypeError:` blocks

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if _catches_type_error(node):
            self._compat_handlers += 1

    def leave_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if _catches_type_error(node):
            self._compat_handlers -= 1

    def visit_Call(self, node: cst.Call) -> None:
        if self._compat_handlers or self.context.call_name(node) not in TORCH_LOAD:
            return  # `except TypeError:` is the fallback for PyTorch without `weights_only`
        if keyword_argument(node, "weights_only") is not None or has_star_kwargs(node):
            return
        if not _can_add_weights_only(node):
            self.report(node)
            return
        self.report(node, replacement=_with_weights_only(node))


def _catches_type_error(handler: cst.ExceptHandler) -> bool:
    caught = handler.type
    names = [element.value for element in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
    return any(isinstance(name, cst.Name) and name.value == "TypeError" for name in names)


def _can_add_weights_only(call: cst.Call) -> bool:
    """``weights_only=True`` refuses a ``pickle_module`` (third positional argument or keyword)."""
    if keyword_argument(call, "pickle_module") is not None:
        return False
    positional = [argument for argument in call.args if argument.keyword is None]
    return len(positional) < 3 and not any(argument.star == "*" for argument in positional)


def _with_weights_only(call: cst.Call) -> cst.Call:
    return with_keyword_appended(call, keyword("weights_only", cst.Name("True")))
