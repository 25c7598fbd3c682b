from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.guards import missing_attributes
from torchcheck.lint.kinds import Evidence, Kind
from torchcheck.lint.nodes import source_text
from torchcheck.lint.project import Condition
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid, fix_safety_on

_ATTRIBUTE = "requires_grad"
_MESSAGE = "`{target} = ...` sets a plain attribute on the module and freezes nothing; call `{receiver}.requires_grad_(...)`"


@dataclass(frozen=True)
class _Candidate:
    assignment: cst.Assign
    target: cst.Attribute
    evidence: Evidence | None
    conditions: tuple[Condition, ...] = ()  # the project facts under which the receiver is a module


class ModuleRequiresGradAttribute(Rule):
    """
    ## What it does
    Checks for `module.requires_grad = False` (or `True`) on an `nn.Module`, also a submodule
    reached through an attribute: `model.outc` when a class of the file stores a module there,
    and `self.model.outc` of a model another file builds when the project's classes store only
    modules they construct in `self.outc`.

    ## Why is this bad?
    `requires_grad` is a property of tensors, not of modules. On a module the assignment
    just creates a plain Python attribute: every parameter keeps `requires_grad=True`, the
    optimizer keeps updating the "frozen" backbone, and memory and time are spent on
    gradients nobody wanted. `nn.Module.requires_grad_(False)` sets the flag on every
    parameter of the module (and its children).

    An attribute that the file also reads back (`if self.requires_grad:`) is a flag of the
    class's own, and is not reported; neither is anything in a file that defines a
    `requires_grad` property (a module class whose setter freezes its parameters).

    ## Example
    ```python
    import torchvision

    model = torchvision.models.resnet50(weights="DEFAULT")
    model.requires_grad = False
    ```

    Use instead:
    ```python
    import torchvision

    model = torchvision.models.resnet50(weights="DEFAULT")
    model.requires_grad_(False)
    ```

    ## Fix safety
    The fix replaces the assignment by a `requires_grad_(...)` call with the same value. It
    is safe where the code shows that the receiver is a module (it was built from an
    `nn` class or a module class of the file); where only its name suggests it (`model`,
    `net`), the fix is unsafe: the value might be an object of another kind with an
    attribute of that name.

    ## References
    - [`torch.nn.Module.requires_grad_`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.requires_grad_)
    - [pytorch/pytorch#20241: `nn.Module.requires_grad_()`, added for freezing modules](https://github.com/pytorch/pytorch/issues/20241)
    - [CSCYQJ/MICCAI23-ProtoContra-SFDA#18: `self.model.outc.requires_grad = False` does not freeze the layer](https://github.com/CSCYQJ/MICCAI23-ProtoContra-SFDA/issues/18)
    """

    code = "TCK611"
    name = "module-requires-grad-attribute"
    message = "`requires_grad = ...` on a module sets a plain attribute and freezes nothing; call `requires_grad_(...)`"
    fix_title = "Call `requires_grad_(...)`"
    fix_safety = FixSafety.SAFE
    required_text = (".requires_grad",)

    VALID = (
        Valid(
            """
def freeze_all(modules):
    for module in modules:
        try:
            for name, param in module.named_parameters():
                param.requires_grad = False
        except AttributeError:
            module.requires_grad = False
"""
        ),
        Valid(
            """
for param in model.parameters():
    param.requires_grad = False
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

class VisionTransformer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.pos_embed = nn.Parameter(torch.zeros(1, 197, dim))
        self.pos_embed.requires_grad = False
"""
        ),
        Valid(
            """
import torch.nn as nn

class PerceptualLoss(nn.Module):
    def __init__(self, features, requires_grad=False):
        super().__init__()
        self.features = features
        self.requires_grad = requires_grad

    def forward(self, x):
        if not self.requires_grad:
            x = x.detach()
        return self.features(x)
"""
        ),
        Valid(
            """
import torch.nn as nn

class Freezable(nn.Module):
    @property
    def requires_grad(self):
        return any(p.requires_grad for p in self.parameters())

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

class Tower(Freezable):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

tower = Tower()
tower.requires_grad = False
"""
        ),
        Valid(
            """
import torch
model.requires_grad_(False)
noise = torch.randn(16, 128)
noise.requires_grad = True
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch import nn

def encoder(resnet, cut=2):
    modules = list(resnet.children())[:-cut]
    for child in modules:
        child.requires_grad = False  # TCK611
    return nn.Sequential(*modules)
""",
            expected_replacement="""
from torch import nn

def encoder(resnet, cut=2):
    modules = list(resnet.children())[:-cut]
    for child in modules:
        child.requires_grad_(False)  # TCK611
    return nn.Sequential(*modules)
""",
        ),
        Invalid(
            """
import torch

def freeze(model):
    try:
        model.requires_grad = False  # TCK611
        model.head.reset()
    except AttributeError:
        pass
""",
            expected_replacement="""
import torch

def freeze(model):
    try:
        model.requires_grad_(False)  # TCK611
        model.head.reset()
    except AttributeError:
        pass
""",
        ),
        Invalid(
            """
import torch.nn as nn
from models import build_model

class Classifier(nn.Module):
    def __init__(self, backbone, classes):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(512, classes)

class Trainer:
    def __init__(self, config):
        self.model = build_model(config)
        self.model.head.requires_grad = False  # TCK611
        self.model.backbone.requires_grad = False
"""
        ),
        Invalid(
            """
import torch
import torch.nn as nn

class OutConv(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.conv = nn.Conv2d(channels, classes, 1)

class UNet(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.inc = nn.Conv2d(3, channels, 3)
        self.outc = OutConv(channels, classes)
        self.scale = nn.Parameter(torch.ones(1))

model = UNet(64, 2).to("cuda")
model.outc.requires_grad = False  # TCK611
model.scale.requires_grad = False
""",
            """
import torch
import torch.nn as nn

class OutConv(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.conv = nn.Conv2d(channels, classes, 1)

class UNet(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.inc = nn.Conv2d(3, channels, 3)
        self.outc = OutConv(channels, classes)
        self.scale = nn.Parameter(torch.ones(1))

model = UNet(64, 2).to("cuda")
model.outc.requires_grad_(False)  # TCK611
model.scale.requires_grad = False
""",
        ),
        Invalid(
            """
import torch.nn as nn
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(512, 8), 6)
encoder.requires_grad = False  # TCK611
""",
            """
import torch.nn as nn
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(512, 8), 6)
encoder.requires_grad_(False)  # TCK611
""",
        ),
        Invalid(
            """
import torch.nn as nn

class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(512, 10)

class Model(nn.Module):
    def __init__(self, backbone, freeze):
        super().__init__()
        self.backbone = backbone
        self.head = Head()
        self.head.requires_grad = not freeze  # TCK611
""",
            """
import torch.nn as nn

class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(512, 10)

class Model(nn.Module):
    def __init__(self, backbone, freeze):
        super().__init__()
        self.backbone = backbone
        self.head = Head()
        self.head.requires_grad_(not freeze)  # TCK611
""",
        ),
        Invalid(
            """
def freeze(model):
    model.requires_grad = False  # TCK611
""",
            """
def freeze(model):
    model.requires_grad_(False)  # TCK611
""",
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._candidates: list[_Candidate] = []
        self._assigned: set[cst.Attribute] = set()
        self._read: set[str] = set()  # receivers whose `.requires_grad` is read somewhere
        self._defines_property = False  # a class of the file defines `requires_grad` itself

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            attribute = target.target
            if not isinstance(attribute, cst.Attribute) or attribute.attr.value != _ATTRIBUTE:
                continue
            self._assigned.add(attribute)
            kind, evidence = self.context.kind_and_evidence(attribute.value)
            if kind is Kind.MODULE and not self._lacks_module_methods(node, attribute.value):
                self._candidates.append(_Candidate(node, attribute, evidence))
            elif conditions := self.context.submodule_conditions(attribute.value):
                self._candidates.append(_Candidate(node, attribute, Evidence.CONVENTION, conditions))

    def _lacks_module_methods(self, node: cst.Assign, receiver: cst.BaseExpression) -> bool:
        """In ``except AttributeError:`` after ``m.named_parameters()`` failed, ``m`` is no module."""
        missing = missing_attributes(self.context.binder, node, receiver.value) if isinstance(receiver, cst.Name) else set()
        return bool(missing & torch_api.MODULE_ONLY_METHODS)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value == _ATTRIBUTE:
            self._defines_property = True

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == _ATTRIBUTE and node not in self._assigned:
            self._read.add(source_text(node.value))

    def leave_Module(self, node: cst.Module) -> None:
        if self._defines_property:
            return
        for candidate in self._candidates:
            receiver = source_text(candidate.target.value)
            if receiver in self._read:
                continue
            message = _MESSAGE.format(target=source_text(candidate.target), receiver=receiver)
            if len(candidate.assignment.targets) == 1:
                self.report(
                    candidate.assignment,
                    message,
                    replacement=_requires_grad_call(candidate.target.value, candidate.assignment.value),
                    fix_safety=fix_safety_on(candidate.evidence),
                    conditions=candidate.conditions,
                )
            else:
                self.report(candidate.assignment, message, conditions=candidate.conditions)


def _requires_grad_call(receiver: cst.BaseExpression, value: cst.BaseExpression) -> cst.Expr:
    method = cst.Attribute(value=receiver, attr=cst.Name("requires_grad_"))
    return cst.Expr(value=cst.Call(func=method, args=[cst.Arg(value=value)]))
