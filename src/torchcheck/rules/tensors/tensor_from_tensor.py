from __future__ import annotations

import libcst as cst

from torchcheck.lint.kinds import TENSOR_KINDS
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid, fix_safety_on

_TORCH_TENSOR = "torch.tensor"
# Receivers that need no parentheses before `.clone()`.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)


class TensorFromTensor(Rule):
    """
    ## What it does
    Checks for `torch.tensor(x)` where `x` is already a tensor.

    ## Why is this bad?
    `torch.tensor` always copies its input and builds a new leaf tensor: applied to a
    tensor it drops `requires_grad` and the autograd graph, and PyTorch warns
    ("To copy construct from a tensor, it is recommended to use
    sourceTensor.clone().detach()"). Usually the copy was not even wanted. Say what you
    mean: `x.clone().detach()` for an independent copy, `x.detach()` for a view without
    history, `torch.as_tensor(x)` or `x.to(dtype)` to convert without copying.

    ## Example
    ```python
    import torch

    prediction = model(images)
    target = torch.tensor(prediction)
    ```

    Use instead:
    ```python
    import torch

    prediction = model(images)
    target = prediction.clone().detach()
    ```

    ## Fix safety
    The fix replaces `torch.tensor(x)` with `x.clone().detach()`, exactly what PyTorch
    recommends: for a tensor the result has the same values, dtype and device, and is a
    new leaf tensor without history, like before. It is safe when the code shows that `x`
    is a tensor (built by a torch function, or checked with `isinstance`). When only a type
    annotation says so it is unsafe: callers may pass a `torch.Size` or a list, on which
    `torch.tensor` works and `.clone()` does not. Inside `if isinstance(x, torch.Size):`
    (or any non-tensor class) nothing is reported, nor for an entry of what a dataloader
    yields (`shapes[i][0]`): a custom `collate_fn` often batches sizes or paths as tuples,
    so only the loop variable itself counts as a tensor. The fix is offered only when `x` is the
    only argument (`dtype=`, `device=`, `requires_grad=` are left for the author to place).

    ## References
    - [`torch.tensor`](https://pytorch.org/docs/stable/generated/torch.tensor.html)
    - [`torch.Tensor.clone`](https://pytorch.org/docs/stable/generated/torch.Tensor.clone.html)
    """

    code = "TCK704"
    name = "tensor-from-tensor"
    message = "`torch.tensor()` on a tensor copies it and drops its autograd history; use `x.clone().detach()`"
    fix_title = "Use `x.clone().detach()`"
    fix_safety = FixSafety.SAFE
    required_text = ("tensor(",)

    VALID = (
        Valid(
            """
import torch
labels = torch.tensor([0, 1, 1])
value = torch.tensor(loss.item())
x = torch.randn(3)
copy = x.clone().detach()
converted = torch.as_tensor(x, dtype=torch.float16)
"""
        ),
        Valid(
            """
import numpy as np
import torch
def to_tensor(data, lengths):
    return torch.tensor(data), torch.tensor(np.asarray(lengths))
"""
        ),
        Valid(
            """
import numpy as np
import torch
def normalize(image, mean):
    if not isinstance(mean, torch.Tensor):
        if isinstance(mean, np.ndarray):
            mean = torch.from_numpy(mean)
        else:
            mean = torch.tensor(mean)
    return image - mean
"""
        ),
        Valid(
            """
import torch
def collate(batch):
    targets = [item[1] for item in batch]
    if isinstance(targets[0], torch.Tensor):
        targets = torch.stack(targets)
    elif targets:
        targets = torch.tensor(targets, dtype=torch.int64)
    return targets
"""
        ),
        Valid(
            """
import torch
x = torch.randn(3)
shape = torch.tensor(x.shape)
items = torch.tensor(x.tolist())
"""
        ),
        Valid(
            """
import torch
from torch import Tensor

def normalize_keypoints(keypoints: Tensor, size: Tensor) -> Tensor:
    if isinstance(size, torch.Size):
        size = torch.tensor(size)[None]
    return keypoints / size.to(keypoints)

def as_size(size: Tensor) -> Tensor:
    if isinstance(size, Tensor):
        return size
    elif isinstance(size, (list, tuple)):
        return torch.tensor(size)
    if not isinstance(size, torch.Tensor):
        size = torch.tensor(size)
    return size
"""
        ),
        Valid(
            """
import torch
def evaluate(model, dataloader):
    for batch_i, (images, targets, paths, shapes) in enumerate(dataloader):
        for si, prediction in enumerate(model(images)):
            gain = torch.tensor(shapes[si][0])[[1, 0, 1, 0]]
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
prediction = torch.randn(4, requires_grad=True)
target = torch.tensor(prediction)  # TCK704
""",
            expected_replacement="""
import torch
prediction = torch.randn(4, requires_grad=True)
target = prediction.clone().detach()  # TCK704
""",
        ),
        Invalid(
            """
from torch import Tensor, tensor
def shift(x: Tensor, y: Tensor) -> Tensor:
    return tensor(x + y)  # TCK704
""",
            expected_replacement="""
from torch import Tensor, tensor
def shift(x: Tensor, y: Tensor) -> Tensor:
    return (x + y).clone().detach()  # TCK704
""",
        ),
        Invalid(
            """
import torch as T
for images, labels in T.utils.data.DataLoader(dataset):
    weights = T.tensor(labels, dtype=T.float32)  # TCK704
"""
        ),
    )

    def _indexes_loader_item(self, source: cst.BaseExpression) -> bool:
        """``shapes[i][0]`` where ``shapes`` is drawn from a dataloader: what the loader yields
        is known to be a tensor only by default collation, and a custom ``collate_fn`` often
        returns lists and tuples (image sizes, paths), so an entry of it is no evidence."""
        if not isinstance(source, cst.Subscript):
            return False
        root: cst.BaseExpression = source
        while isinstance(root, cst.Subscript):
            root = root.value
        if not isinstance(root, cst.Name):
            return False
        binding = self.context.flow.last_binding(root.value)
        return binding is not None and isinstance(binding.node, cst.For) and self.context.iterates_dataloader(binding.node)

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return
        if self.context.call_name(node) != _TORCH_TENSOR:
            return
        source = node.args[0].value
        kind, evidence = self.context.kind_and_evidence(source)
        if kind not in TENSOR_KINDS:
            return
        if isinstance(source, cst.Name) and self.context.flow.bound_conditionally(source.value):
            return  # `if isinstance(x, Tensor): x = ... else: torch.tensor(x)`
        if self._indexes_loader_item(source):
            return
        if len(node.args) != 1:
            self.report(node)
            return
        if not isinstance(source, _ATOMS) and not source.lpar:
            source = source.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        clone = cst.Call(func=cst.Attribute(value=source, attr=cst.Name("clone")))
        detached = cst.Call(func=cst.Attribute(value=clone, attr=cst.Name("detach")))
        self.report(node, replacement=detached.with_changes(lpar=node.lpar, rpar=node.rpar), fix_safety=fix_safety_on(evidence))
