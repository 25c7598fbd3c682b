from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint import idioms, torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import GradMode, Kind, grad_mode_of
from torchcheck.lint.nodes import dotted_name, names_read, subtree
from torchcheck.lint.precision import may_autocast_float16
from torchcheck.lint.project import GRAD_SCALER, IMPORTS, NO, THIS_FILE, Condition, is_mixed_precision_framework
from torchcheck.lint.rule import Invalid, Rule, Valid

_SHARDED_SCALERS = frozenset(
    {
        "torch.distributed.fsdp.sharded_grad_scaler.ShardedGradScaler",
        "torch.distributed.fsdp.ShardedGradScaler",
    }
)
_SCALER_METHODS = frozenset({"scale", "unscale_", "step", "update"})
# The finding stands only if no project module the file imports (transitively) names a GradScaler.
_NO_SCALER_IMPORTED = (Condition(THIS_FILE, f"{IMPORTS}:{GRAD_SCALER}", NO),)
_SCOPES = (cst.FunctionDef, cst.Module)


@dataclass(frozen=True)
class _Region:
    node: cst.CSTNode  # the `with` item, or the decorator
    body: cst.CSTNode  # the `with` body, or the decorated function
    scope: cst.CSTNode  # the function (or module) the region runs in


class Fp16AutocastWithoutScaler(Rule):
    """
    ## What it does
    Checks for an autocast region that runs in float16 - `torch.autocast("cuda")` with no
    `dtype` (float16 is the CUDA default), an explicit `dtype=torch.float16` on CUDA or on a
    device chosen elsewhere (`torch.autocast(device, dtype=torch.float16)`), or a dtype chosen
    at run time that is float16 on some path (`torch.float16 if args.fp16 else torch.bfloat16`)
    - whose result is backpropagated in a file that builds no `GradScaler`.

    ## Why is this bad?
    Under float16 autocast the backward pass produces float16 gradients. Below float16's
    smallest normal number (6.1e-5) they lose precision, and below about 6e-8 they flush to
    zero: those updates are lost. `GradScaler` multiplies the loss before the backward pass
    so that the gradients stay representable, and divides them again before the step.
    Without it there is no error and no NaN: the loss just flattens early.

    Use `dtype=torch.bfloat16` (which has float32's exponent range and needs no scaler) or a
    `torch.amp.GradScaler`. A region under `no_grad()`, on the CPU (where autocast defaults to
    bfloat16), with the default dtype of an unknown device or a run-time dtype that is never float16, or in a file that passes a scaler on, builds
    one, or imports a framework that scales the loss for you (Accelerate, Lightning,
    DeepSpeed, apex.amp, MMEngine, ignite's supervised trainer ...; ignite's `Engine` runs the step
    function it is given as written) is not reported; nor is one in a file that imports a
    project module naming `GradScaler`.

    ## Example
    ```python
    import torch

    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    Use instead:
    ```python
    import torch

    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    ## Fix safety
    There is no automatic fix: bfloat16 (if the GPU supports it) or a `GradScaler` is the
    author's choice.

    ## References
    - [Automatic mixed precision: gradient scaling](https://pytorch.org/docs/stable/amp.html#gradient-scaling)
    - [engichang1467/Open-Rig3R#35: autocast defaults to fp16 with no GradScaler, gradients can silently underflow](https://github.com/engichang1467/Open-Rig3R/issues/35)
    - [pytorch/torchtitan#2363: FP16 requires loss scaling to prevent gradient underflow](https://github.com/pytorch/torchtitan/pull/2363)
    """

    code = "TCK311"
    name = "fp16-autocast-without-scaler"
    message = (
        "this autocast region runs in float16 and its loss is backpropagated without a "
        "GradScaler: small gradients underflow to zero — use dtype=torch.bfloat16 or a torch.amp.GradScaler"
    )
    required_text = ("autocast",)

    VALID = (
        Valid(
            """
from ignite.engine import create_supervised_trainer


def setup_trainer(model, optimizer, loss_fn, device):
    return create_supervised_trainer(model, optimizer, loss_fn, device, amp_mode="amp", scaler=True)
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    with torch.autocast("cpu"):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""
        ),
        Valid(
            """
import torch
dtype = torch.float16 if args.fp16 else torch.bfloat16
for x, y in loader:
    with torch.autocast("cpu", dtype=dtype):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""
        ),
        Valid(
            """
import torch
with torch.autocast("cuda"), torch.no_grad():
    pred = model(x)
"""
        ),
        Valid(
            """
import torch
dtype = torch.float16 if cfg.fp16 else torch.bfloat16
scaler = torch.amp.GradScaler("cuda", enabled=cfg.fp16)
with torch.autocast("cuda", dtype=dtype):
    loss = model(x).loss
scaler.scale(loss).backward()
"""
        ),
        Valid(
            """
import torch
def train_step(model, batch, optimizer, scaler):
    with torch.autocast("cuda"):
        loss = model(batch).loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
import torch
from accelerate import Accelerator
accelerator = Accelerator(mixed_precision="fp16")
with torch.autocast("cuda"):
    loss = model(x).loss
accelerator.backward(loss)
"""
        ),
        Valid(
            """
import torch
from testing_utils import torch_device

with torch.autocast(torch_device):
    loss = model(x).loss
loss.backward()
"""
        ),
        Valid(
            """
import torch
with torch.autocast("cuda", enabled=False):
    loss = criterion(model(x), y)
loss.backward()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from ignite.engine import Engine
from torch.cuda.amp import autocast


def setup_trainer(config, model, optimizer, loss_fn):
    def train_step(engine, batch):
        with autocast(config.use_amp):  # TCK311
            loss = loss_fn(model(batch[0]), batch[1])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

    return Engine(train_step)
"""
        ),
        Invalid(
            """
import torch

amp_dtype = torch.float16 if args.fp16 else torch.bfloat16
for x, y in loader:
    with torch.autocast("cuda", dtype=amp_dtype):  # TCK311
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""
        ),
        Invalid(
            """
import torch
from testing_utils import torch_device

def check_training(model, inputs):
    with torch.amp.autocast(torch_device, dtype=torch.float16):  # TCK311
        out = model(**inputs)[0]
        out.norm().backward()
"""
        ),
        Invalid(
            """
import torch
for x, y in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda"):  # TCK311
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""
        ),
        Invalid(
            """
import torch
def train_step(model, batch, optimizer):
    with torch.amp.autocast(device_type="cuda", dtype=torch.float16):  # TCK311
        logits = model(batch["input_ids"])
    loss = torch.nn.functional.cross_entropy(logits.float(), batch["labels"])
    loss.backward()
    optimizer.step()
"""
        ),
        Invalid(
            """
import torch
device = "cuda" if torch.cuda.is_available() else "cpu"
for x in loader:
    with torch.autocast(str(device), dtype=torch.half):  # TCK311
        loss = model(x).mean()
    loss.backward()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._regions: list[_Region] = []
        self._backwards: list[tuple[cst.Call, cst.BaseExpression | None]] = []  # None: a helper's backward
        self._scales = False

    def visit_Import(self, node: cst.Import) -> None:
        self._scales |= any(is_mixed_precision_framework(dotted_name(alias.name) or "") for alias in node.names)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted_name(node.module) if node.module is not None and not node.relative else None
        names = [] if isinstance(node.names, cst.ImportStar) else [dotted_name(alias.name) for alias in node.names]
        self._scales |= module is not None and any(is_mixed_precision_framework(f"{module}.{name}") for name in names)

    def visit_With(self, node: cst.With) -> None:
        if self.context.in_no_grad or any(grad_mode_of(self.context.qualified_name, item.item) is GradMode.OFF for item in node.items):
            return
        scope = self.context.flow.function or self.context.binder.enclosing(node, cst.Module)
        for item in node.items:
            if may_autocast_float16(self.context, item.item):
                self._regions.append(_Region(item, node.body, scope))

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.call_name(node)
        if qualified in torch_api.GRAD_SCALERS or qualified in _SHARDED_SCALERS or qualified in idioms.SCALED_LOSS_MANAGERS:
            self._scales = True
        elif any(self.context.kind_of(argument.value) is Kind.SCALER for argument in node.args):
            self._scales = True  # a scaler handed on
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in _SCALER_METHODS:
            self._scales |= self.context.kind_of(node.func.value) is Kind.SCALER
        subject = self.context.backward_subject(node)
        if subject is not None:
            self._backwards.append((node, subject))
            return
        summary = self.context.call_summary(node)
        if summary is not None and summary.does(idioms.Effect.BACKWARD):
            self._backwards.append((node, None))

    def leave_Module(self, node: cst.Module) -> None:
        if self._scales:
            return
        for region in self._regions:
            if self._backpropagated(region):
                self.report(region.node, conditions=_NO_SCALER_IMPORTED)

    def _backpropagated(self, region: _Region) -> bool:
        """A backward in the region's function reads a value the region computed."""
        binder = self.context.binder
        produced = _targets_in(region.body)
        inner = (n for body in _bodies(region.scope) for n in subtree(body, _nested_scope))
        assignments = [n for n in inner if isinstance(n, (cst.Assign, cst.AugAssign))]
        changed = True
        while changed:  # values derived from the region's values, to a fixpoint
            changed = False
            for assignment in assignments:
                new = _targets_of(assignment) - produced
                if new and any(name.value in produced for name in names_read(assignment.value)):
                    produced |= new
                    changed = True
        for call, subject in self._backwards:
            if binder.enclosing(call, *_SCOPES) is not region.scope:
                continue
            read = names_read(subject) if subject is not None else [n for a in call.args for n in names_read(a.value)]
            inside = any(ancestor is region.body for ancestor in binder.ancestors(call))
            if inside or any(name.value in produced for name in read):
                return True
        return False


def _bodies(scope: cst.CSTNode) -> list[cst.CSTNode]:
    return [scope.body] if isinstance(scope, cst.FunctionDef) else list(scope.body)  # type: ignore[attr-defined]


def _nested_scope(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))


def _targets_in(body: cst.CSTNode) -> set[str]:
    return {name for node in subtree(body, _nested_scope) if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) for name in _targets_of(node)}


def _targets_of(node: cst.Assign | cst.AugAssign | cst.AnnAssign) -> set[str]:
    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
    names: set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, cst.Name):
            names.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(element.value for element in target.elements)
        elif isinstance(target, cst.StarredElement):
            targets.append(target.value)
    return names
