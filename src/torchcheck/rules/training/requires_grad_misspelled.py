from __future__ import annotations

import enum
import re

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import dotted_name, method_call
from torchcheck.lint.rule import FixSafety, Invalid, Report, Rule, Valid, fix_safety_on

# Attribute names that are a slip for `requires_grad`: assigning them creates a new,
# never-read attribute on the tensor.
_TYPOS = frozenset({"require_grad", "require_grads", "requires_grads"})
# `requires_grad_` is the in-place *method*: assigning to it shadows the method instead.
_METHOD = "requires_grad_"

_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})
_PARAMETER_ATTRIBUTES = frozenset({"weight", "bias"})  # nn layers' parameters, by convention
_PARAMETER_NAME = re.compile(r"^(p|param|parameter|weight|bias)$|_(param|parameter|weight|bias)$")
# Receivers that are configuration objects, not tensors (`args.require_grad = True`).
_CONFIG_NAME = re.compile(r"(^|_)(args|cfg|conf|config|opts?|options|hparams|settings|flags)$")
_TORCH_LIBRARIES = frozenset({"timm", "transformers", "lightning", "pytorch_lightning"})
_ITERATION_WRAPPERS = frozenset({"enumerate", "list", "tuple", "tqdm"})

TYPO_MESSAGE = (
    "`.{typo}` is a typo: the assignment adds an unused attribute and `requires_grad` is unchanged; "
    "set `.requires_grad` on a tensor, call `.requires_grad_(...)` on a module"
)
METHOD_MESSAGE = "Assigning to `.requires_grad_` replaces the method and changes nothing; call `.requires_grad_(...)`"


class _Receiver(enum.Enum):
    TENSOR = "tensor"  # fixed by renaming the attribute
    MODULE = "module"  # or anything with a `requires_grad_` method: fixed by calling it
    UNKNOWN = "unknown"  # a tensor or a module: reported without a fix


class RequiresGradMisspelled(Rule):
    """
    ## What it does
    Checks for assignments to a misspelled `requires_grad`: `param.require_grad = False`
    (also `require_grads`, `requires_grads`), and for assignments to the in-place method
    `requires_grad_` (`model.requires_grad_ = False`).

    ## Why is this bad?
    Tensors and modules accept any new attribute, so the misspelled assignment raises no
    error: it stores a value nobody reads, and the parameter's real `requires_grad` flag is
    left as it was. The layers meant to be frozen keep training (and use optimizer memory),
    and nothing says so. Assigning to `requires_grad_` is the same mistake with the method:
    it replaces the method on that object with a boolean instead of calling it.

    The typos are reported on tensors and parameters (loop variables over
    `model.parameters()`, `layer.weight`, names such as `param`, values built by `torch`
    functions), on modules, and on names and attributes whose type is unknown; not on
    `self` (a class's own field) or on configuration objects (`args`, `cfg`, `config`,
    `hparams`, ...). The rule stays silent about a name that the file defines or reads
    itself (a class with its own `require_grad` field; an `nn.Module`'s own field only
    silences receivers that are not tensors) and in files that do not import `torch`.

    ## Example
    ```python
    import torch

    for param in model.backbone.parameters():
        param.require_grad = False
    model.head.requires_grad_ = False
    ```

    Use instead:
    ```python
    import torch

    for param in model.backbone.parameters():
        param.requires_grad = False
    model.head.requires_grad_(False)
    ```

    ## Fix safety
    On a tensor or parameter the fix renames the attribute to `requires_grad`; on a module,
    and for any assignment to `requires_grad_`, it calls `.requires_grad_(value)` instead
    (a module has no `requires_grad` attribute to set). Where the receiver's type is unknown
    there is no fix, because the two need different code. Calling `.requires_grad_()` is
    unsafe when only the receiver's name (`model`) says it is a module or a tensor, or
    nothing does (`layer.requires_grad_ = False`): on another object the call raises
    `AttributeError` where the typo did nothing. Otherwise the fix is safe in that it does
    exactly what the line was written to do, which is the point: training changes, because
    the frozen parameters stop receiving gradients. Where the typo hid another problem the
    corrected line raises, for example when it sets `requires_grad` to `False` on a tensor
    that is not a leaf of the graph or passes a value that is not a `bool`.

    ## References
    - [`torch.Tensor.requires_grad`](https://pytorch.org/docs/stable/generated/torch.Tensor.requires_grad.html)
    - [`torch.nn.Module.requires_grad_`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.requires_grad_)
    - [Autograd mechanics: locally disabling gradient computation](https://pytorch.org/docs/stable/notes/autograd.html#locally-disabling-gradient-computation)
    """

    code = "TCK905"
    name = "requires-grad-misspelled"
    message = "Misspelled `requires_grad`: the assignment does not change whether the tensor requires grad"
    fix_title = "Correct the `requires_grad` assignment"
    fix_safety = FixSafety.SAFE
    required_text = ("require_grad", "requires_grads", "requires_grad_ =", "requires_grad_=")
    torchfix_codes = ("TOR002",)

    VALID = (
        Valid(
            """
import torch
for param in model.backbone.parameters():
    param.requires_grad = False
model.head.requires_grad_(False)
x = torch.zeros(3).requires_grad_()
"""
        ),
        Valid(
            """
import torch
from torch import nn
class MeanField(nn.Module):
    def __init__(self, kernel_size=3, require_grad=False):
        super().__init__()
        self.require_grad = require_grad
    def forward(self, x):
        if not self.require_grad:
            x = x.detach()
        return x
"""
        ),
        Valid(
            """
import numpy as np
import torch
class Variable:
    def __init__(self, value, require_grad=False):
        self.value = np.array(value)
        self.require_grad = require_grad
def leaf(value):
    v = Variable(value)
    v.require_grad = True
    return v
"""
        ),
        Valid(
            """
import torch
from dataclasses import dataclass
@dataclass
class EmbeddingConfig:
    require_grad: bool = True
def build(args, cfg):
    args.require_grad = False
    cfg.model.require_grad = False
"""
        ),
        Valid(
            """
class Node:
    def __init__(self, value):
        self.value = value
        self.require_grad = False
def mark(node):
    node.require_grad = True
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
for param in model.features.parameters():
    param.require_grad = False  # TCK905
for index, (name, p) in enumerate(model.named_parameters()):
    p.requires_grads = index > 10  # TCK905
pe = torch.zeros(100, 64)
pe.require_grad = False  # TCK905
model.fc.weight.require_grad = True  # TCK905
""",
            expected_replacement="""
import torch
for param in model.features.parameters():
    param.requires_grad = False  # TCK905
for index, (name, p) in enumerate(model.named_parameters()):
    p.requires_grad = index > 10  # TCK905
pe = torch.zeros(100, 64)
pe.requires_grad = False  # TCK905
model.fc.weight.requires_grad = True  # TCK905
""",
        ),
        Invalid(
            """
import torch.nn as nn
class Classifier(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.backbone.requires_grad_ = False  # TCK905
        self.requires_grad_ = False  # TCK905
def freeze(layer):
    layer.requires_grad_ = False  # TCK905
""",
            expected_replacement="""
import torch.nn as nn
class Classifier(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.backbone.requires_grad_(False)  # TCK905
        self.requires_grad_(False)  # TCK905
def freeze(layer):
    layer.requires_grad_(False)  # TCK905
""",
        ),
        Invalid(
            """
import torch
from torch import nn
backbone = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
backbone.require_grad = False  # TCK905
model.require_grad = False  # TCK905
""",
            expected_replacement="""
import torch
from torch import nn
backbone = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
backbone.requires_grad_(False)  # TCK905
model.requires_grad_(False)  # TCK905
""",
        ),
        Invalid(
            """
import torch
def prepare(batch):
    target = batch.clone()
    target.require_grad = False  # TCK905
    weights[0].require_grad = False  # TCK905
    return target
""",
        ),
        Invalid(
            """
import torch
a.requires_grad_ = b.requires_grad_ = False  # TCK905
""",
        ),
        Invalid(
            """
import torch.nn as nn
class Net(nn.Module):
    def __init__(self, encoder, args):
        super().__init__()
        self.encoder = encoder
        self.encoder.require_grad = False  # TCK905
        self.args = args
        self.args.require_grad = False
""",
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._findings: list[tuple[Report, str, _Receiver]] = []  # (report, misspelled attribute, receiver)
        self._defined: set[str] = set()  # attribute names the file defines or reads itself
        self._module_fields: set[str] = set()  # ... as a field of an nn.Module subclass
        self._imports_torch = False

    # ----------------------------------------------------------------- evidence
    def visit_Import(self, node: cst.Import) -> None:
        if any(_is_torch(alias.name) for alias in node.names):
            self._imports_torch = True

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not node.relative and node.module is not None and _is_torch(node.module):
            self._imports_torch = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._note_class_level(node.name)  # a method or property of that name

    def _note_class_level(self, name: cst.Name) -> None:
        """``require_grad`` defined in a class body: a field of that class."""
        if (name.value in _TYPOS or name.value == _METHOD) and self.context.binder.scope_of(name).is_class:
            self._note_field(name.value)

    def _note_field(self, name: str) -> None:
        """A module's own field says nothing about tensors; any other class's field may be
        what the receivers are (a home-made autograd ``Tensor`` with ``require_grad``)."""
        if name in _TYPOS or name == _METHOD:
            (self._module_fields if self.context.in_module_class else self._defined).add(name)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._note_definition(node.target)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value not in _TYPOS:
            return
        parent = self.context.binder.parent(node)
        if isinstance(parent, cst.AssignTarget) or isinstance(parent, (cst.AnnAssign, cst.AugAssign)) and parent.target is node:
            return  # assigned, not read
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            self._note_field(node.attr.value)  # `if self.require_grad:` reads the class's field
        else:
            self._defined.add(node.attr.value)  # read elsewhere: a field this code uses

    def _note_definition(self, target: cst.BaseExpression) -> None:
        """A class-level ``require_grad = ...`` or a ``self.require_grad = ...`` in a class
        (other than ``self.requires_grad_`` in an ``nn.Module``) defines a field of its own."""
        if isinstance(target, cst.Name):
            self._note_class_level(target)
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
            and self.context.current_class is not None
            and not (target.attr.value == _METHOD and self.context.in_module_class)
        ):
            self._note_field(target.attr.value)

    # ----------------------------------------------------------------- assignments
    def visit_Assign(self, node: cst.Assign) -> None:
        targets = [target.target for target in node.targets]
        for target in targets:
            self._note_definition(target)
        found = [(target, self._receiver(target)) for target in targets if isinstance(target, cst.Attribute)]
        found = [(target, receiver) for target, receiver in found if receiver is not None]
        if not found:
            return
        target, receiver = found[0]
        attribute = target.attr.value
        message = METHOD_MESSAGE if attribute == _METHOD else TYPO_MESSAGE.format(typo=attribute)
        if len(targets) > 1 or receiver is _Receiver.UNKNOWN:
            self.report(node, message)  # unknown: a tensor and a module need different fixes
        elif receiver is _Receiver.TENSOR and attribute != _METHOD:
            renamed = target.with_changes(attr=cst.Name("requires_grad"))
            self.report(node, message, replacement=node.with_changes(targets=[node.targets[0].with_changes(target=renamed)]))
        else:
            method = target.with_changes(attr=cst.Name(_METHOD))
            call = cst.Call(func=method, args=[cst.Arg(value=node.value)])
            safety = fix_safety_on(self.context.evidence_of(target.value))
            self.report(node, message, replacement=cst.Expr(value=call, semicolon=node.semicolon), fix_safety=safety)
        self._findings.append((self.reports[-1], attribute, receiver))

    def leave_Module(self, node: cst.Module) -> None:
        """Drop findings about a name the file defines or reads itself, or in non-torch files."""
        dropped = [
            report
            for report, attribute, receiver in self._findings
            if not self._imports_torch
            or attribute in self._defined
            or attribute in self._module_fields and receiver is not _Receiver.TENSOR
        ]
        self.reports = [report for report in self.reports if not any(report is other for other in dropped)]

    # ----------------------------------------------------------------- receivers
    def _receiver(self, target: cst.Attribute) -> _Receiver | None:
        """What the object whose attribute is misspelled holds; None to stay silent."""
        if target.attr.value == _METHOD:
            return self._method_owner(target.value)
        if target.attr.value in _TYPOS:
            return self._typo_owner(target.value)
        return None

    def _typo_owner(self, receiver: cst.BaseExpression) -> _Receiver | None:
        if isinstance(receiver, cst.Subscript):  # `params[0].require_grad = False`
            return self._typo_owner(receiver.value)
        if isinstance(receiver, cst.Name):
            name = receiver.value
            if name in ("self", "cls"):
                return None  # a field of the class being written
            if _PARAMETER_NAME.search(name) or self._drawn_from_parameters(receiver):
                return _Receiver.TENSOR
            if _CONFIG_NAME.search(name):
                return None
        elif isinstance(receiver, cst.Attribute):
            path = dotted_name(receiver)
            if path is None or any(_CONFIG_NAME.search(part) for part in path.split(".")):
                return None  # `cfg.model.require_grad`, `self.args.require_grad`
            if receiver.attr.value in _PARAMETER_ATTRIBUTES and self.context.qualified_name(receiver) is None:
                return _Receiver.TENSOR
        kind = self.context.kind_of(receiver)
        if kind in (Kind.TENSOR, Kind.GRAPH_TENSOR):
            return _Receiver.TENSOR
        if kind is Kind.MODULE:
            return _Receiver.MODULE
        return _Receiver.UNKNOWN if kind is None and isinstance(receiver, (cst.Name, cst.Attribute)) else None

    def _drawn_from_parameters(self, name: cst.Name) -> bool:
        """Whether the last ``for`` loop of this scope before ``name`` that binds it draws
        parameters: ``p`` in ``for p in m.parameters()``, ``param`` in ``for name, param in
        m.named_parameters()``, also under ``enumerate``."""
        binder = self.context.binder
        bindings = binder.scope_of(name).bindings.get(name.value, [])
        loops = [binding.node for binding in bindings if isinstance(binding.node, cst.For) and binder.precedes(binding.node, name)]
        return bool(loops) and name.value in _parameter_targets(loops[-1].target, loops[-1].iter)  # type: ignore[attr-defined]

    def _method_owner(self, receiver: cst.BaseExpression) -> _Receiver | None:
        """Tensors and modules have ``requires_grad_``; ``self`` of another class may not."""
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            return _Receiver.MODULE if self.context.in_module_class else None
        kind = self.context.kind_of(receiver)
        if kind in (Kind.TENSOR, Kind.GRAPH_TENSOR):
            return _Receiver.TENSOR
        return _Receiver.MODULE if kind in (None, Kind.MODULE, Kind.LOSS_FUNCTION) else None


def _is_torch(name: cst.BaseExpression) -> bool:
    """``torch``, ``torchvision``, ... or a library built on them."""
    root = (dotted_name(name) or "").split(".", 1)[0]
    return root.startswith("torch") or root in _TORCH_LIBRARIES


def _unwrap(iterable: cst.BaseExpression) -> tuple[cst.BaseExpression, bool]:
    """``m.parameters()`` inside ``enumerate(...)``/``list(...)``; True when enumerated."""
    enumerated = False
    while isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.args:
        if iterable.func.value not in _ITERATION_WRAPPERS:
            break
        enumerated = enumerated or iterable.func.value == "enumerate"
        iterable = iterable.args[0].value
    return iterable, enumerated


def _parameter_targets(target: cst.BaseExpression, iterable: cst.BaseExpression) -> list[str]:
    """Loop variables that hold parameters: ``p`` in ``for p in m.parameters()``, ``param`` in
    ``for name, param in m.named_parameters()``, also under ``enumerate``."""
    inner, enumerated = _unwrap(iterable)
    found = method_call(inner)
    if found is None or found[1] not in _PARAMETER_METHODS:
        return []
    for paired in (enumerated, found[1] == "named_parameters"):  # `(index, p)`, then `(name, p)`
        if not paired:
            continue
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 2:
            return []
        target = target.elements[1].value
    return [target.value] if isinstance(target, cst.Name) else []
