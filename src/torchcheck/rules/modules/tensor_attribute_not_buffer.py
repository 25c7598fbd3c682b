from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import TENSOR_KINDS, LintContext
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.modules._common import ModuleClassRule, self_attribute

_TENSOR_BUILDERS = torch_api.TENSOR_FACTORIES | torch_api.TENSOR_LIKE_FACTORIES | torch_api.TENSOR_OPS
# Using an attribute through one of these means the code moves it by hand.
_MOVING_METHODS = frozenset({"to", "cuda", "cpu", "type_as", "to_device"})
# Methods that, defined on the module, take over device moves or state.
_HANDLING_METHODS = frozenset({"_apply", "to", "cuda", "_save_to_state_dict", "state_dict"})


@dataclass
class _ClassState:
    candidates: list[tuple[cst.CSTNode, str]] = field(default_factory=list)  # (assignment, attribute)
    handled: set[str] = field(default_factory=set)  # registered, rebound or moved by hand
    handles_everything: bool = False


class TensorAttributeNotBuffer(ModuleClassRule):
    """
    ## What it does
    Checks for `nn.Module.__init__` methods that store a tensor built with a `torch`
    factory as a plain attribute (`self.mask = torch.ones(...)`).

    ## Why is this bad?
    A module only knows about its parameters, buffers and submodules. A plain tensor
    attribute is not moved by `model.to(device)` / `.cuda()` / `.half()` (the first
    forward on the GPU fails with a device mismatch, or runs in the wrong dtype), is not
    in `state_dict()`, and is not replicated by `DataParallel`/FSDP. Register it with
    `self.register_buffer("mask", torch.ones(...))` - pass `persistent=False` to keep it
    out of the checkpoint.

    ## Example
    ```python
    import torch
    from torch import nn

    class Causal(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.mask = torch.tril(torch.ones(n, n))
    ```

    Use instead:
    ```python
    import torch
    from torch import nn

    class Causal(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)
    ```

    ## Fix safety
    There is no automatic fix: whether the tensor belongs in the checkpoint
    (`persistent=True`) is a design decision.

    ## References
    - [`torch.nn.Module.register_buffer`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.register_buffer)
    - [Saving and loading models: what is a state_dict?](https://pytorch.org/tutorials/beginner/saving_loading_models.html#what-is-a-state-dict)
    """

    code = "TCK606"
    name = "tensor-attribute-not-buffer"
    message = "Tensor stored as a plain module attribute: not moved by `.to()`, not in `state_dict()`; use `register_buffer`"
    required_text = ("torch",)

    VALID = (
        Valid(
            """
import torch
from torch import nn
class Causal(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)
        self.scale = nn.Parameter(torch.ones(1))
        self.sizes = [8, 16, 32]
        self.names = ["q", "k", "v"]
"""
        ),
        Valid(
            """
import torch
class Normalizer:
    def __init__(self):
        self.mean = torch.tensor([0.485, 0.456, 0.406])
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Gate(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = torch.zeros(n)
        self.weight = nn.Parameter(self.weight)
        self.bias = torch.zeros(n)
        self.register_buffer("bias", self.bias)
        self.offset = torch.arange(n).item()
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Normalize(nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = torch.tensor([0.485, 0.456, 0.406])
    def forward(self, x):
        return x - self.mean.to(x.device)
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Cache(nn.Module):
    def __init__(self):
        super().__init__()
        self.cached = torch.empty(0)
    def forward(self, x):
        if self.cached.numel() == 0:
            self.cached = x.mean(0)
        return self.cached
"""
        ),
        Valid(
            """
import torch
from torch import nn
class EqualizationObserver(nn.Module):
    def __init__(self):
        super().__init__()
        self.equalization_scale = torch.tensor(1)
    def set_equalization_scale(self, scale, shape):
        self.equalization_scale = torch.reshape(scale, shape)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from torch import nn
class Causal(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = torch.tril(torch.ones(n, n))  # TCK606
    def forward(self, scores):
        return scores.masked_fill(self.mask == 0, float("-inf"))
"""
        ),
        Invalid(
            """
import torch as T
class Normalize(T.nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = T.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)  # TCK606
        self.std: T.Tensor = T.ones(3) * 0.2  # TCK606
    def forward(self, x):
        return (x - self.mean) / self.std
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._states: list[_ClassState | None] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        self._states.append(_ClassState() if self.in_torch_module else None)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        state = self._states.pop()
        if state is not None and not state.handles_everything:
            for assignment, attribute in state.candidates:
                if attribute not in state.handled:
                    self.report(assignment)
        super().leave_ClassDef(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        state = self._states[-1] if self._states else None
        frame = self.class_frame
        if state is not None and frame is not None and not frame.functions and node.name.value in _HANDLING_METHODS:
            state.handles_everything = True
        super().visit_FunctionDef(node)

    def _tensor_built(self, value: cst.BaseExpression) -> bool:
        """``torch.zeros(...)``, ``torch.tensor(...).view(...)``, ``torch.ones(3) * 0.2``."""
        if isinstance(value, cst.BinaryOperation):
            return self._tensor_built(value.left) or self._tensor_built(value.right)
        if not isinstance(value, cst.Call) or self.context.kind_of(value) not in TENSOR_KINDS:
            return False
        root: cst.BaseExpression = value
        while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute) and self.context.call_name(root) is None:
            root = root.func.value
        return isinstance(root, cst.Call) and self.context.call_name(root) in _TENSOR_BUILDERS

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assigned(node, target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._assigned(node, node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        state = self._states[-1] if self._states else None
        attribute = self_attribute(node.target, self.self_name)
        if state is not None and attribute is not None:
            state.handled.add(attribute)

    def _assigned(self, statement: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        state = self._states[-1] if self._states else None
        if state is None:
            return
        self_name = self.self_name
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                attribute = self_attribute(element.value, self_name)
                if attribute is not None:
                    state.handled.add(attribute)
            return
        attribute = self_attribute(target, self_name)
        if attribute is None:
            return
        frame = self.class_frame
        in_init = frame is not None and len(frame.functions) == 1 and frame.functions[0].name.value == "__init__"
        if in_init and self._tensor_built(value):
            state.candidates.append((statement, attribute))
        else:
            state.handled.add(attribute)  # rebound to a Parameter, or runtime state set by other methods

    def visit_Call(self, node: cst.Call) -> None:
        state = self._states[-1] if self._states else None
        if state is None or not isinstance(node.func, cst.Attribute):
            return
        self_name = self.self_name
        method = node.func.attr.value
        if method in _MOVING_METHODS:
            attribute = self_attribute(node.func.value, self_name)
            if attribute is not None:
                state.handled.add(attribute)
        elif method in ("register_buffer", "register_parameter") and isinstance(node.func.value, cst.Name) and node.func.value.value == self_name:
            name = node.args[0].value if node.args else None
            if isinstance(name, cst.SimpleString) and isinstance(name.evaluated_value, str):
                state.handled.add(name.evaluated_value)
            else:
                state.handles_everything = True
