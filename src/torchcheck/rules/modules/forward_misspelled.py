from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import dotted_name
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.modules._common import ModuleClassRule

# torch.nn classes that do not define `forward` (nn.Module's raises NotImplementedError).
# Any other base - nn.Linear, a mixin, a class imported from elsewhere - may supply one.
_FORWARDLESS_NN_CLASSES = frozenset({"Module", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"})

# Words one edit away from "forward" that are names in their own right (a bidirectional
# model's `forwards`/`backwards` helpers), not typos.
_REAL_WORDS = frozenset({"forwards"})


def _one_edit_apart(a: str, b: str) -> bool:
    """At most one insertion, deletion, substitution or swap of two adjacent letters
    (``froward``) turns ``a`` into ``b``."""
    if len(a) == len(b):
        differ = [i for i in range(len(a)) if a[i] != b[i]]
        swapped = len(differ) == 2 and differ[1] == differ[0] + 1 and (a[differ[0]], a[differ[1]]) == (b[differ[1]], b[differ[0]])
        return len(differ) <= 1 or swapped
    shorter, longer = sorted((a, b), key=len)
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


def is_forward_typo(name: str) -> bool:
    """``foward``, ``forwad``, ``froward``, ``Forward`` ... but not ``forward`` itself, not
    ``_forward``/``forward_features`` (deliberate names carry an underscore) and not ``forwards``."""
    lowered = name.lower()
    return (
        name != "forward"
        and name.isalpha()
        and lowered not in _REAL_WORDS
        and abs(len(lowered) - len("forward")) <= 1
        and _one_edit_apart(lowered, "forward")
    )


@dataclass
class _ClassFacts:
    node: cst.ClassDef
    bases: list[str | None]  # "torch" for a forward-less torch.nn class, a local class name, or None
    defines: set[str] = field(default_factory=set)  # methods and class attributes
    candidates: list[cst.FunctionDef] = field(default_factory=list)


class ForwardMisspelled(ModuleClassRule):
    """
    ## What it does
    Checks for `nn.Module` subclasses that define a method whose name is one typo away from
    `forward` (`foward`, `forwad`, `froward`, `Forward` ...) but no `forward`.

    ## Why is this bad?
    Calling a module runs its `forward` method. With the name misspelled, the class
    inherits `nn.Module.forward`, which raises `NotImplementedError: Module [Net] is missing
    the required "forward" function` at the first call - or, if the misspelled method is
    called by hand, every hook, `DistributedDataParallel` synchronisation and
    `torch.compile` wrapper is bypassed. Rename the method to `forward`.

    Only classes whose bases cannot supply a `forward` are reported: `nn.Module` itself,
    the `nn.ModuleList`/`nn.ModuleDict`/`nn.ParameterList`/`nn.ParameterDict` containers,
    and classes of the same file that define no `forward` either. A class deriving from
    `nn.Linear`, a mixin or an imported base, one that overrides `__call__`, and one whose
    `forward` is assigned (`forward = _forward_impl`, `self.forward = ...`,
    `Net.forward = ...`) are not. Names with an underscore (`_forward`, `forward_features`,
    `forward_head`) and `forwards` are deliberate names, not typos.

    ## Example
    ```python
    from torch import nn

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(512, 10)

        def foward(self, x):
            return self.fc(x)
    ```

    Use instead:
    ```python
    from torch import nn

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(512, 10)

        def forward(self, x):
            return self.fc(x)
    ```

    ## Fix safety
    There is no automatic fix: other code may call the misspelled name, and renaming it
    needs those call sites updated too.

    ## References
    - [`torch.nn.Module.forward`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.forward)
    - [Defining a neural network in PyTorch](https://pytorch.org/tutorials/recipes/recipes/defining_a_neural_network.html)
    """

    code = "TCK607"
    name = "forward-misspelled"
    message = "Misspelled `forward`: the module defines no `forward`, so calling it raises NotImplementedError"
    required_text = ("class ",)

    VALID = (
        Valid(
            """
import torch.nn as nn

class Backbone(nn.Module):
    def forward_features(self, x):
        return self.blocks(x)

    def forward_head(self, x, pre_logits=False):
        return x if pre_logits else self.head(x)

    def forward(self, x):
        return self.forward_head(self.forward_features(x))

class Wrapper(nn.Module):
    def _forward(self, x):
        return self.inner(x)

    forward = _forward
"""
        ),
        Valid(
            """
import torch.nn as nn
from .base import EncoderMixin

class Scaled(nn.Linear):
    def Forward(self, x):
        return super().forward(x) * 2

class Encoder(nn.Module, EncoderMixin):
    def foward(self, x):
        return x

class Bidirectional(nn.Module):
    def forwards(self, x):
        return self.rnn(x)

    def backwards(self, x):
        return self.rnn(x.flip(0)).flip(0)
"""
        ),
        Valid(
            """
import torch.nn as nn

class Base(nn.Module):
    def forward(self, x):
        return self.Forward(x)

class Child(Base):
    def Forward(self, x):
        return x

class Patched(nn.Module):
    def foward(self, x):
        return x

Patched.forward = Patched.foward

class Dispatch(nn.Module):
    def __init__(self, training_path):
        super().__init__()
        self.forward = self.forwrd if training_path else self.infer

    def forwrd(self, x):
        return x

    def infer(self, x):
        return x
"""
        ),
        Valid(
            """
import flax.linen as nn

class Dense(nn.Module):
    def foward(self, x):
        return x

class Plain:
    def foward(self, x):
        return x
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn

class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(512, 10)

    def foward(self, x):  # TCK607
        return self.fc(x)
"""
        ),
        Invalid(
            """
import torch
from torch.nn import ModuleList

class Base(torch.nn.Module):
    def froward(self, x):  # TCK607
        return x

class Child(Base):
    def Forward(self, x):  # TCK607
        return x

class Stack(ModuleList):
    @torch.no_grad()
    def forwrad(self, x):  # TCK607
        for layer in self:
            x = layer(x)
        return x
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._facts: dict[cst.ClassDef, _ClassFacts] = {}  # the torch module classes of the file
        self._classes: dict[str, _ClassFacts | None] = {}  # None: defined twice, ambiguous
        self._patched: set[str] = set()  # `Name.forward = ...` / `setattr(Name, "forward", ...)`

    # ----------------------------------------------------------------- collect
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        facts = None
        if self.in_torch_module:
            facts = self._facts[node] = _ClassFacts(node, [self._base(base) for base in node.bases if base.keyword is None])
        name = node.name.value
        self._classes[name] = None if name in self._classes else facts

    def _base(self, base: cst.Arg) -> str | None:
        if base.star:
            return None
        qualified = self.context.qualified_name(base.value)
        if qualified is not None:
            last = qualified.rsplit(".", 1)[-1]
            return "torch" if torch_api.is_module_class_name(qualified) and last in _FORWARDLESS_NN_CLASSES else None
        if isinstance(base.value, cst.Name) and base.value.value in self._classes:
            return base.value.value
        return None

    @property
    def _in_class_body(self) -> _ClassFacts | None:
        """Facts of the class whose body (not a method of it) is being walked."""
        return self._facts.get(self.context.current_class) if self.method is None else None  # type: ignore[arg-type]

    def _defines_forward(self, owner: str | None) -> None:
        """``self.forward = ...`` / ``setattr(cls, "forward", ...)`` in a module class, or
        ``Name.forward = ...`` patching a class from outside."""
        facts = self._facts.get(self.context.current_class)  # type: ignore[arg-type]
        if owner in ("self", "cls") and facts is not None:
            facts.defines.add("forward")
        elif owner is not None:
            self._patched.add(owner)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        facts = self._in_class_body
        if facts is not None:
            facts.defines.add(node.name.value)
            if is_forward_typo(node.name.value):
                facts.candidates.append(node)
        super().visit_FunctionDef(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assigned(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._assigned(node.target)

    def _assigned(self, target: cst.BaseExpression) -> None:
        if type(target) in (cst.Tuple, cst.List):
            for element in target.elements:
                self._assigned(element.value)
            return
        facts = self._in_class_body
        if isinstance(target, cst.Name) and facts is not None:
            facts.defines.add(target.value)  # forward = _forward_impl
        elif type(target) is cst.Attribute and target.attr.value == "forward":
            self._defines_forward(dotted_name(target.value))

    def visit_Call(self, node: cst.Call) -> None:
        if type(node.func) is cst.Name and node.func.value == "setattr" and len(node.args) >= 2:
            owner, attribute = node.args[0].value, node.args[1].value
            if isinstance(attribute, cst.SimpleString) and attribute.evaluated_value == "forward":
                self._defines_forward(dotted_name(owner))

    # ----------------------------------------------------------------- decide
    def leave_Module(self, node: cst.Module) -> None:
        for facts in self._classes.values():
            if facts is not None and facts.candidates and self._lacks_forward(facts):
                for method in facts.candidates:
                    self.report(method.name)

    def _lacks_forward(self, facts: _ClassFacts) -> bool:
        """Neither the class nor any of its bases defines ``forward`` (or overrides ``__call__``).
        A base of this file is a class defined before it, so the bases form no cycle."""
        return (
            bool(facts.bases)
            and not facts.defines & {"forward", "__call__"}
            and facts.node.name.value not in self._patched
            and all(base == "torch" or self._base_lacks_forward(base) for base in facts.bases)
        )

    def _base_lacks_forward(self, base: str | None) -> bool:
        facts = self._classes.get(base) if base is not None else None
        return facts is not None and self._lacks_forward(facts)
