from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint.context import Kind, LintContext, keyword_argument
from torchcheck.lint.rule import Invalid, Rule, Valid

# Names that show the code compares state-dict keys by hand.
_KEY_CHECK_NAMES = re.compile(r"missing|unexpected", re.IGNORECASE)


@dataclass
class _Scope:
    candidates: list[cst.Call] = field(default_factory=list)
    checks_keys: bool = False


def _is_false(expression: cst.BaseExpression) -> bool:
    return isinstance(expression, cst.Name) and expression.value == "False"


class NonStrictLoadUnchecked(Rule):
    """
    ## What it does
    Checks for `model.load_state_dict(state_dict, strict=False)` calls whose result is
    thrown away.

    ## Why is this bad?
    With `strict=False`, keys that do not match are skipped silently: a renamed layer, a
    `module.` prefix left by `DataParallel`, or a checkpoint of a different architecture
    loads "successfully" and the model keeps its random initial weights. The call returns
    the `missing_keys` and `unexpected_keys` it skipped; check or at least log them.

    ## Example
    ```python
    model.load_state_dict(state_dict, strict=False)
    ```

    Use instead:
    ```python
    missing, unexpected = model.load_state_dict(state_dict, strict=False)
    if unexpected or any(not key.startswith("head.") for key in missing):
        raise RuntimeError(f"checkpoint mismatch: {missing=} {unexpected=}")
    ```

    ## Fix safety
    There is no automatic fix: which missing keys are acceptable (a new classifier head,
    buffers) is the author's decision.

    ## References
    - [`torch.nn.Module.load_state_dict`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.load_state_dict)
    - [Saving and loading models: warmstarting with parameters from a different model](https://pytorch.org/tutorials/beginner/saving_loading_models.html#warmstarting-model-using-parameters-from-a-different-model)
    """

    code = "TCK403"
    name = "non-strict-load-unchecked"
    message = "Result of `load_state_dict(..., strict=False)` is discarded; missing and unexpected keys go unnoticed"
    required_text = ("load_state_dict",)

    VALID = (
        Valid(
            """
missing, unexpected = model.load_state_dict(state_dict, strict=False)
assert not unexpected, unexpected
"""
        ),
        Valid(
            """
model.load_state_dict(state_dict)
model.load_state_dict(state_dict, strict=True)
model.load_state_dict(state_dict, strict=strict)
"""
        ),
        Valid(
            """
import logging
logger = logging.getLogger(__name__)
result = model.load_state_dict(state_dict, strict=False)
logger.info(model.load_state_dict(state_dict, strict=False))
print(result.missing_keys)
"""
        ),
        Valid(
            """
class Wrapper:
    def load_state_dict(self, state_dict, strict=True):
        return self.model.load_state_dict(state_dict, strict=False)
"""
        ),
        Valid(
            """
optimizer.load_state_dict(checkpoint["optimizer"])
"""
        ),
        Valid(
            """
def load_sharded_checkpoint(model, index, shard_files, loader, strict=True):
    loaded_keys = index["weight_map"].keys()
    model_keys = model.state_dict().keys()
    missing_keys = [key for key in model_keys if key not in loaded_keys]
    unexpected_keys = [key for key in loaded_keys if key not in model_keys]
    if strict and (missing_keys or unexpected_keys):
        raise RuntimeError(f"{missing_keys=} {unexpected_keys=}")
    for shard_file in shard_files:
        model.load_state_dict(loader(shard_file), strict=False)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
model.load_state_dict(torch.load(path, weights_only=True), strict=False)  # TCK403
"""
        ),
        Invalid(
            """
import torch.nn as nn

class Classifier(nn.Module):
    def load_backbone(self, state_dict):
        self.backbone.load_state_dict(state_dict, strict=False)  # TCK403
        self.load_state_dict(state_dict, False)  # TCK403
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._scopes: list[_Scope] = [_Scope()]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append(_Scope())

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._resolve(self._scopes.pop())

    def leave_Module(self, node: cst.Module) -> None:
        self._resolve(self._scopes.pop())

    def visit_Name(self, node: cst.Name) -> None:
        if _KEY_CHECK_NAMES.search(node.value):
            self._scopes[-1].checks_keys = True

    def _resolve(self, scope: _Scope) -> None:
        if scope.checks_keys:
            return  # the function compares keys itself (e.g. before loading shard by shard)
        for call in scope.candidates:
            self.report(call)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return
        if call.func.attr.value != "load_state_dict":
            return
        strict = keyword_argument(call, "strict")
        if strict is not None:
            if _is_false(strict.value):
                self._scopes[-1].candidates.append(call)
            return
        positional = [argument for argument in call.args if argument.keyword is None]
        # a positional `False` means `strict` only where the receiver is known to be a module
        if len(positional) >= 2 and _is_false(positional[1].value) and not positional[1].star:
            if self._is_module(call.func.value):
                self._scopes[-1].candidates.append(call)

    def _is_module(self, receiver: cst.BaseExpression) -> bool:
        # `self` is bound as a parameter, so the context does not apply its module-class rule
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            return self.context.in_module_class
        return self.context.kind_of(receiver) is Kind.MODULE
