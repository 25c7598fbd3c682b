from __future__ import annotations

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.dataloaders import call_arguments, is_constant
from torchcheck.lint.flow import BODY, ELSE
from torchcheck.lint.nodes import dotted_name, method_call
from torchcheck.lint.project import AUTOCAST, IMPORTS, MODULE, NO, THIS_FILE, Condition
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.rules.amp._common import is_scaler_call

# Where `enabled` sits among the positional parameters of each GradScaler class.
_AMP_SCALER_POSITIONAL = ("device", "init_scale", "growth_factor", "backoff_factor", "growth_interval", "enabled")
_DEVICE_SCALER_POSITIONAL = _AMP_SCALER_POSITIONAL[1:]
_DEVICE_SCALERS = frozenset({"torch.cuda.amp.GradScaler", "torch.cpu.amp.GradScaler", "torch.cuda.amp.grad_scaler.GradScaler"})
# How a test names the float16 compute dtype: `dtype == torch.float16`, `args.dtype == "fp16"`.
_FLOAT16_DTYPES = frozenset({"torch.float16", "torch.half"})
_FLOAT16_NAMES = frozenset({"float16", "fp16", "half"})

# Methods that turn a loss into the same loss (reduced, cast, reshaped), not into a new value.
_LOSS_METHODS = frozenset({"mean", "sum", "float", "double", "to", "clone", "squeeze", "view", "reshape"})

# The class and attribute (`self._scaler`) of a scaler an object keeps; None for any other.
_Owner = tuple[cst.ClassDef, str] | None

# The finding stands only if neither this file nor any project module it imports
# (transitively) may open an autocast region (see AUTOCAST in lint/project.py).
_NO_AUTOCAST = (Condition(THIS_FILE, f"{MODULE}:{AUTOCAST}", NO), Condition(THIS_FILE, f"{IMPORTS}:{AUTOCAST}", NO))


class ScalerWithoutAutocast(Rule):
    """
    ## What it does
    Checks for a `GradScaler` that scales the loss (`scaler.scale(loss)`) in a file where no
    `autocast` region is opened, neither in the file nor in the project modules it imports.

    ## Why is this bad?
    Mixed precision takes two parts: `torch.autocast` runs the forward pass in float16, and
    `GradScaler` keeps the small float16 gradients from underflowing. The scaler alone does
    not lower the precision of anything: without autocast the model still computes in
    float32, so training is exactly as slow and memory-hungry as before, while every step
    still multiplies the loss by the scale and then divides every gradient by it and checks
    it for infs and NaNs, for nothing. The code reads as mixed precision training, and
    nothing tells you it is not.

    Open autocast around the forward pass and the loss computation (with the same
    `enabled=` flag as the scaler), or drop the scaler.

    Any spelling of autocast counts, wherever it is in the file or in a project module the
    file imports: `with torch.autocast(...)`, `torch.cuda.amp.autocast`, a decorator,
    `partial(torch.autocast, ...)` kept for later, autocast chosen as a value (`amp_cm =
    autocast if args.amp else nullcontext`), `accelerator.autocast()`, a helper or a
    parameter named for autocast, FSDP's `MixedPrecision`. A file that imports a framework
    that runs the forward pass under autocast for you (Accelerate, Lightning, DeepSpeed,
    MMEngine, Detectron2 ...) is left alone, and so are scalers built with `enabled=False`,
    scalers handed to a helper that does the scaling, and scaler wrappers that scale a loss
    their caller computed (`def __call__(self, loss, optimizer)`): the caller's file may
    open autocast. A scaler made (or enabled) only when the compute dtype is float16
    (`GradScaler() if dtype == torch.float16 else None`,
    `GradScaler(enabled=(dtype == "float16"))`) is not reported either: such code picks its
    compute dtype itself, and without autocast it casts weights and activations to it by hand
    in the forward pass, where float16 gradients need the scaler all the same.

    ## Example
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    ```

    Use instead:
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16, enabled=args.amp):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    ```

    ## Fix safety
    There is no automatic fix: which part of the step should run under autocast, and with
    which dtype, is for you to decide.

    ## References
    - [Automatic mixed precision: autocasting and gradient scaling](https://pytorch.org/docs/stable/amp.html)
    - [CUDA AMP examples: typical mixed precision training](https://pytorch.org/docs/stable/notes/amp_examples.html)
    - [Automatic Mixed Precision recipe](https://pytorch.org/tutorials/recipes/recipes/amp_recipe.html)
    - [minGPT issue #51: GradScaler with amp does not improve performance](https://github.com/karpathy/minGPT/issues/51)
    """

    code = "TCK309"
    name = "scaler-without-autocast"
    message = (
        "`GradScaler` scales the loss, but no `autocast` region is opened in this file or in the project modules it "
        "imports: the model still runs in float32, so mixed precision is off; open `torch.autocast` around the forward "
        "pass or drop the scaler"
    )
    # A file that mentions autocast or FSDP's MixedPrecision is parsed too, so that the
    # project index learns whether it may open a region.
    required_text = ("GradScaler", AUTOCAST, "MixedPrecision")

    VALID = (
        Valid(
            """
import contextlib
import torch
from torch.cuda.amp import autocast, GradScaler
def train(model, loader, optimizer, args):
    scaler = GradScaler()
    amp_cm = autocast if args.amp else contextlib.nullcontext
    for x, y in loader:
        with amp_cm():
            loss = model(x).sum()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
"""
        ),
        Valid(
            """
import torch
scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.float16, enabled=use_amp):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
import torch
from functools import partial
amp_autocast = partial(torch.autocast, device_type="cuda", dtype=torch.float16)
scaler = torch.cuda.amp.GradScaler()
for x, y in loader:
    with amp_autocast():
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
import torch
scaler = torch.amp.GradScaler("cuda", enabled=False)
for x, y in loader:
    loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
import torch
from engine import train_one_epoch
scaler = torch.amp.GradScaler("cuda")
train_one_epoch(model, loader, optimizer, scaler)
"""
        ),
        Valid(
            """
import torch

class NativeScaler:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer):
        self._scaler.scale(loss).backward()
        self._scaler.step(optimizer)
        self._scaler.update()
"""
        ),
        Valid(
            """
import torch
from accelerate import Accelerator
accelerator = Accelerator()
scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
import torch

COMPUTE_DTYPE = torch.float16 if torch.cuda.get_device_capability() < (8, 0) else torch.bfloat16
scaler = torch.amp.GradScaler("cuda") if COMPUTE_DTYPE == torch.float16 else None
for x, y in loader:
    loss = criterion(model(x.to(COMPUTE_DTYPE)), y)
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()
"""
        ),
        Valid(
            """
import torch

def train(model, loader, optimizer, precision):
    if precision != "fp16":
        scaler = None
    else:
        scaler = torch.cuda.amp.GradScaler()
    half_scaler = torch.amp.GradScaler("cuda", enabled=(precision == "float16"))
    for x, y in loader:
        loss = model(x.half() if scaler else x, y)
        scaler.scale(loss).backward()
        half_scaler.scale(loss)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
scaler = torch.amp.GradScaler("cuda", enabled=use_amp)  # TCK309
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Invalid(
            """
from torch.cuda.amp import GradScaler, autocast

class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.scaler = GradScaler()  # TCK309

    def step(self, x, y):
        loss = self.model(x, y)
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
"""
        ),
        Invalid(
            """
import torch
scaler = torch.amp.GradScaler("cuda") if args.fp16 else None  # TCK309
if args.dtype == torch.bfloat16:
    bf16_scaler = torch.amp.GradScaler("cuda")  # TCK309
for x, y in loader:
    loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    bf16_scaler.scale(loss)
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._scalers: list[tuple[cst.Call, _Owner]] = []
        self._scaled_by: set[_Owner] = set()  # receivers of scale() calls on a loss computed here
        self._scales_a_loss = False
        self._float16_branches: set[int] = set()  # ids of the float16 branches of `a if dtype == torch.float16 else b`

    def visit_Call(self, node: cst.Call) -> None:
        receiver_method = method_call(node)
        if receiver_method is not None and receiver_method[1] == "scale" and node.args:
            if is_scaler_call(self.context, node, ("scale",)) and not self._computed_by_caller(node.args[0].value):
                self._scales_a_loss = True
                self._scaled_by.add(self._owner(receiver_method[0]))
            return
        qualified = self.context.call_name(node)
        if qualified is None or qualified not in torch_api.GRAD_SCALERS or _built_disabled(node, qualified):
            return
        if not self._built_for_float16(node, qualified):
            self._scalers.append((node, self._owner_of_construction()))

    def visit_IfExp(self, node: cst.IfExp) -> None:
        """``GradScaler() if dtype == torch.float16 else None``: the branch taken for float16."""
        label = self._float16_label(node.test)
        if label is not None:
            self._float16_branches.add(id(node.body if label == BODY else node.orelse))

    def _built_for_float16(self, call: cst.Call, qualified: str) -> bool:
        """The scaler is made (or enabled) only when the compute dtype is float16: in the
        float16 branch of a dtype test, or with ``enabled=(dtype == torch.float16)``. The code
        then picks its compute dtype itself, and without autocast it casts weights and
        activations to it by hand, which the scaler serves."""
        positional = _DEVICE_SCALER_POSITIONAL if qualified in _DEVICE_SCALERS else _AMP_SCALER_POSITIONAL
        enabled = call_arguments(call, positional).get("enabled")
        if enabled is not None and self._float16_label(enabled) == BODY:
            return True
        if id(call) in self._float16_branches:
            return True
        path = self.context.flow.event(call).path
        return any(isinstance(branch.owner, cst.If) and self._float16_label(branch.owner.test) == branch.label for branch in path)

    def _float16_label(self, test: cst.BaseExpression) -> str | None:
        """BODY for ``dtype == torch.float16`` (the branch that runs in float16), ELSE for
        ``dtype != torch.float16``; None for any other test."""
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return None
        target = test.comparisons[0]
        if not any(self._names_float16(side) for side in (test.left, target.comparator)):
            return None
        if isinstance(target.operator, (cst.Equal, cst.Is)):
            return BODY
        return ELSE if isinstance(target.operator, (cst.NotEqual, cst.IsNot)) else None

    def _names_float16(self, expression: cst.BaseExpression) -> bool:
        if isinstance(expression, cst.SimpleString):
            return expression.evaluated_value in _FLOAT16_NAMES
        return self.context.qualified_name(expression) in _FLOAT16_DTYPES

    def _owner(self, receiver: cst.BaseExpression) -> _Owner:
        """``(class, "self._scaler")`` for a scaler an object keeps; None for any other."""
        spelled = dotted_name(receiver)
        owner = self.context.current_class
        if spelled is None or not spelled.startswith("self.") or owner is None:
            return None
        return owner, spelled

    def _owner_of_construction(self) -> _Owner:
        """The owner the construction is assigned to (``self._scaler = GradScaler()``, also
        through ``... if fp16 else None``)."""
        line = self.context.current_statement
        statement = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            return self._owner(statement.targets[0].target)
        return None

    def _computed_by_caller(self, loss: cst.BaseExpression) -> bool:
        """The scaled loss is (derived from) a parameter of the function that scales it, as in
        a scaler wrapper's ``__call__(self, loss, optimizer)``: its forward pass ran in the
        caller, which may open autocast from a file this one does not import."""
        function = self.context.flow.function
        if function is None:
            return False
        parameters = {parameter.name.value for parameter in _all_parameters(function.params)}
        root = _root_name(loss)
        if root is None or root not in parameters:
            return False
        binding = self.context.flow.last_binding(root)
        if binding is None or isinstance(binding.node, cst.Param):
            return True
        return binding.value is not None and _root_name(binding.value) in parameters  # `loss = loss / accumulation`

    def leave_Module(self, node: cst.Module) -> None:
        if not self._scales_a_loss:
            return  # the scaler is handed to a helper that does the scaling, or not used
        for scaler, owner in self._scalers:
            # a scaler an object keeps is the one its own methods scale with
            if owner is None or owner in self._scaled_by:
                self.report(scaler, conditions=_NO_AUTOCAST)


def _root_name(expression: cst.BaseExpression) -> str | None:
    """``loss`` for ``loss``, ``loss / n``, ``outputs.loss``, ``loss.mean()``, ``losses[0]``;
    None for a value computed by a call (``criterion(output, y)``, ``self.model(x)``) and
    for ``self``: the loss is computed here."""
    while True:
        if isinstance(expression, cst.Name):
            return expression.value if expression.value not in ("self", "cls") else None
        if isinstance(expression, cst.BinaryOperation):
            expression = expression.left
        elif isinstance(expression, (cst.Attribute, cst.Subscript)):
            expression = expression.value
        elif isinstance(expression, cst.Call) and _is_tensor_method(expression.func):
            expression = expression.func.value  # type: ignore[attr-defined]
        else:
            return None


def _is_tensor_method(function: cst.BaseExpression) -> bool:
    return isinstance(function, cst.Attribute) and function.attr.value in _LOSS_METHODS


def _all_parameters(parameters: cst.Parameters) -> list[cst.Param]:
    starred = [parameter for parameter in (parameters.star_arg, parameters.star_kwarg) if isinstance(parameter, cst.Param)]
    return [*parameters.posonly_params, *parameters.params, *parameters.kwonly_params, *starred]


def _built_disabled(call: cst.Call, qualified: str) -> bool:
    """``GradScaler(..., enabled=False)``: every method of the scaler is a no-op."""
    positional = _DEVICE_SCALER_POSITIONAL if qualified in _DEVICE_SCALERS else _AMP_SCALER_POSITIONAL
    return is_constant(call_arguments(call, positional).get("enabled"), "False")
