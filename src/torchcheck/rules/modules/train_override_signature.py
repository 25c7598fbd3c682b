from __future__ import annotations

import libcst as cst

from torchcheck.lint.buffers import methods_of
from torchcheck.lint.nodes import subtree
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.modules._common import ModuleClassRule

_NO_MODE = (
    "`{cls}.train()` overrides `nn.Module.train(mode=True)` without a `mode` parameter; "
    "`.eval()` calls `train(False)` and raises TypeError"
)
_KEYWORD_ONLY_MODE = (
    "`{cls}.train()` takes `mode` only by keyword; `.eval()` calls `train(False)` and raises TypeError"
)
# The class's own `eval()` does not go through `train(False)`: only a module holding it does.
_OWN_EVAL = (
    "`{cls}.train()` overrides `nn.Module.train(mode=True)` without taking `mode` as its only positional parameter; "
    "its own `eval()` avoids `train(False)`, but `.train()`/`.eval()` on any module that holds it call `train(mode)` on it and fail"
)
_OTHER_MEANING = (
    "`{cls}.train()` overrides `nn.Module.train(mode=True)` with `{param}` in place of `mode`; "
    "`.eval()` calls `train(False)`, which runs it with `{param}=False`"
)


def _is_bool_literal(expression: cst.BaseExpression | None) -> bool:
    return isinstance(expression, cst.Name) and expression.value in ("True", "False")


class TrainOverrideSignature(ModuleClassRule):
    """
    ## What it does
    Checks for `nn.Module` subclasses that override `train` without a `mode` parameter:
    `def train(self):`, or a `train(self, loader, epochs)` that runs a training loop.

    ## Why is this bad?
    `nn.Module.eval()` is implemented as `self.train(False)`, and `nn.Module.train(mode)`
    calls `train(mode)` on every child module. An override that takes no argument makes
    `model.eval()` (and `parent.train()` / `parent.eval()` on any module containing it)
    raise `TypeError: train() takes 1 positional argument but 2 were given`. An override
    whose first parameter means something else receives `False` in it: `model.eval()` then
    starts a training run with `loader=False`, or silently leaves the model in training
    mode. Keep the signature `def train(self, mode: bool = True)`, pass `mode` on to
    `super().train(mode)` and return `self`; give a training loop another name (`fit`).

    A first parameter with a boolean default (`def train(self, training=True)`) is taken
    as the mode under another name, and `def train(self, *args, **kwargs)` passes anything
    on; neither is reported. Neither is a `train` method of a class that is not an
    `nn.Module` (a `Trainer`). Where the class also overrides `eval()` without going through
    `train(False)` (`self.actor.eval()` for each part), its own `eval()` works; the finding
    then says that only a module holding it fails.

    ## Example
    ```python
    import torch.nn as nn

    class Backbone(nn.Module):
        def train(self):
            super().train()
            self.stem.eval()  # keep the frozen stem's batch-norm statistics
            return self
    ```

    Use instead:
    ```python
    import torch.nn as nn

    class Backbone(nn.Module):
        def train(self, mode: bool = True):
            super().train(mode)
            self.stem.eval()  # keep the frozen stem's batch-norm statistics
            return self
    ```

    ## Fix safety
    There is no automatic fix: the body has to use the new parameter, and a training loop
    called `train` has to be renamed at every call site.

    ## References
    - [`torch.nn.Module.train`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.train)
    - [`torch.nn.Module.eval`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.eval)
    - [KindXiaoming/pykan#108: overloading `train()` breaks switching the model between train and eval mode](https://github.com/KindXiaoming/pykan/issues/108)
    - [Zhenye-Na/DA-RNN#21: defining a `train` method breaks `model.eval()`](https://github.com/Zhenye-Na/DA-RNN/issues/21)
    """

    code = "TCK610"
    name = "train-override-signature"
    follows_project_bases = True
    message = "`train()` override without a `mode` parameter; `.eval()` calls `train(False)` and raises or does the wrong thing"
    required_text = ("def train",)

    VALID = (
        Valid(
            """
import torch.nn as nn

class Backbone(nn.Module):
    def train(self, mode: bool = True):
        super().train(mode)
        if self.frozen_stages > 0:
            self.stem.eval()
        return self
"""
        ),
        Valid(
            """
import torch.nn as nn

class Wrapper(nn.Module):
    def train(self, *args, **kwargs):
        self.inner.train(*args, **kwargs)
        return super().train(*args, **kwargs)
"""
        ),
        Valid(
            """
class Trainer:
    def train(self):
        for batch in self.loader:
            self.step(batch)
"""
        ),
        Valid(
            """
import torch.nn as nn

class Encoder(nn.Module):
    def train(self, training=True):
        super().train(training)
        self.norm.eval()
        return self
"""
        ),
        Valid(
            """
import torch.nn as nn

class Net(nn.Module):
    @staticmethod
    def train(model, loader):
        for x, y in loader:
            model(x)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn

class Policy(nn.Module):
    def train(self):  # TCK610
        self.actor.train()
        self.critic.train()

    def eval(self):
        self.actor.eval()
        self.critic.eval()
"""
        ),
        Invalid(
            """
import torch.nn as nn

class Backbone(nn.Module):
    def train(self):  # TCK610
        super().train()
        self.stem.eval()
        return self
"""
        ),
        Invalid(
            """
import torch
from torch import nn

class KAN(nn.Module):
    def forward(self, x):
        return self.layers(x)

    def train(self, dataset, steps=100, lr=1.0):  # TCK610
        optimizer = torch.optim.LBFGS(self.parameters(), lr=lr)
        for _ in range(steps):
            optimizer.step(lambda: self.loss(dataset))
"""
        ),
        Invalid(
            """
import torch.nn as nn

class Policy(nn.Module):
    def train(self, *, mode=True):  # TCK610
        return super().train(mode)
"""
        ),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        owner = self.context.current_class
        if self.method is not node or not self.in_torch_module or node.name.value != "train" or node.decorators:
            return
        message = self._problem(node)
        if message is not None and owner is not None and _own_eval_avoids_train(owner):
            message = _OWN_EVAL
        if message is not None and owner is not None:
            self.report(node.name, message.format(cls=owner.name.value, param=self._first_parameter(node)))

    @staticmethod
    def _first_parameter(node: cst.FunctionDef) -> str | None:
        positional = (*node.params.posonly_params, *node.params.params)[1:]
        return positional[0].name.value if positional else None

    def _problem(self, node: cst.FunctionDef) -> str | None:
        """Which way ``train(False)`` goes wrong, or None when the signature takes a mode."""
        params = node.params
        positional = (*params.posonly_params, *params.params)
        if not positional or isinstance(params.star_arg, cst.Param):
            return None  # no `self` (not a method we understand), or *args takes the mode
        if len(positional) == 1:
            keyword_only = any(param.name.value == "mode" for param in params.kwonly_params)
            return _KEYWORD_ONLY_MODE if keyword_only else _NO_MODE
        first = positional[1]
        if first.name.value == "mode" or _is_bool_literal(first.default):
            return None
        return _OTHER_MEANING


def _own_eval_avoids_train(owner: cst.ClassDef) -> bool:
    """The class defines ``eval()`` and it calls neither ``self.train(...)`` nor ``super()``'s
    ``train``/``eval``: ``model.eval()`` never reaches the override."""
    evaluate = methods_of(owner).get("eval")
    if evaluate is None:
        return False
    calls = (node for node in subtree(evaluate) if type(node) is cst.Call and type(node.func) is cst.Attribute)  # type: ignore[attr-defined]
    return not any(call.func.attr.value in ("train", "eval") and _is_self_or_super(call.func.value) for call in calls)  # type: ignore[attr-defined]


def _is_self_or_super(receiver: cst.BaseExpression) -> bool:
    return (type(receiver) is cst.Name and receiver.value == "self") or (type(receiver) is cst.Call and type(receiver.func) is cst.Name and receiver.func.value == "super")  # type: ignore[attr-defined]
