from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from torchcheck.lint.kinds import TENSOR_KINDS, Evidence, Kind
from torchcheck.lint.project import TENSOR
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid, fix_safety_on

if TYPE_CHECKING:
    from torchcheck.lint.context import LintContext

_TORCH_TENSOR = "torch.tensor"
# Receivers that need no parentheses before `.clone()`.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)
# `next(loader)`, `iter(loader)`, `enumerate(loader)`: what is drawn from the loader inside.
_DRAWING = frozenset({"next", "iter", "enumerate", "tqdm"})


@dataclass(frozen=True)
class _Deferred:
    """A finding that stands only if the callers of ``function`` agree with the annotation
    of ``parameter``."""

    call: cst.Call
    replacement: cst.CSTNode | None
    fix_safety: FixSafety
    function: cst.FunctionDef
    parameter: str


class TensorFromTensor(Rule):
    """
    ## What it does
    Checks for `torch.tensor(x)` where `x` is already a tensor, also one that a function or
    method of another file of the project returns (`weights = sampler.weights()`).

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
    `torch.tensor` works and `.clone()` does not.

    An annotation is evidence, but the callers in the file outrank it: for
    `torch.tensor(param)` whose only evidence is the parameter's annotation, the finding
    stands when no call of the function is in the file, or when every call passes a value
    known to be a tensor. When a caller passes anything else (`latents_mean: torch.Tensor`
    that callers fill from a config's list of floats) the helper converts what it is given
    and nothing is reported. A name that suggests a batch is no evidence either when the
    file builds the loader it is drawn from with a call the linter cannot see into
    (`batch = next(data_loader)` after `data_loader = build_dataloader(args)`, which may
    yield numpy arrays). Inside `if isinstance(x, torch.Size):`
    (or any non-tensor class), or `if not torch.is_tensor(x):`, nothing is reported, nor for an entry of what a dataloader
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
from ogb.graphproppred import GraphPropPredDataset

class Extension(GraphPropPredDataset):
    def __init__(self, name):
        super().__init__(name=name)
        self.labels = torch.tensor(self.labels)  # the base class stored a NumPy array there
"""
        ),
        Valid(
            """
import torch
def ranks(sim):
    if not torch.is_tensor(sim):
        sim = torch.tensor(sim)
    return sim.argsort(dim=-1)
"""
        ),
        Valid(
            """
import torch

def normalize(frames: torch.Tensor, mean: torch.Tensor, std: torch.Tensor):
    if type(mean) == list:
        mean = torch.tensor(mean)
    if isinstance(std, (list, tuple)):
        std = torch.tensor(std)
    return (frames - mean) / std
"""
        ),
        Valid(
            """
import torch

def inference(f0=None, c=None):
    if f0 is not None and not isinstance(f0, torch.Tensor):
        f0 = torch.tensor(f0, dtype=torch.float)
    if not isinstance(c, (torch.Tensor, list)):
        c = torch.tensor(c)
    return f0.unsqueeze(0), c.unsqueeze(0)
"""
        ),
        Valid(
            """
import torch

class Agent:
    def __init__(self, alpha, tuning):
        self.alpha = alpha
        self.tuning = tuning
        self.log_alpha = torch.zeros(1, requires_grad=True)

    def update(self):
        if self.tuning:
            self.alpha = self.log_alpha.exp()
            logged = self.alpha.clone()
        else:
            logged = torch.tensor(self.alpha)
        return logged
"""
        ),
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
        Valid(
            """
import torch

class VideoPipeline:
    @staticmethod
    def _denormalize(latents: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
        mean = torch.tensor(mean).view(1, -1, 1, 1, 1).to(latents.device, latents.dtype)
        std = torch.tensor(std).view(1, -1, 1, 1, 1).to(latents.device, latents.dtype)
        return latents * std + mean

    def decode(self, latents: torch.Tensor) -> torch.Tensor:
        latents = self._denormalize(latents, self.vae.config.latents_mean, self.vae.config.latents_std)
        return self.vae.decode(latents)
"""
        ),
        Valid(
            """
import torch
def train(args, model, optimizer, steps):
    data_loader = build_dataloader_from_args(args.data)
    for step in range(steps):
        batch, state = next(data_loader)
        batch = torch.tensor(batch, dtype=torch.long)
        loss = model(batch).mean()
        loss.backward()
        optimizer.step()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
ensure_tensor = torch.tensor
def class_weights(labels):
    counts = torch.bincount(labels)
    return ensure_tensor(counts.sum() / counts)  # TCK704
""",
            expected_replacement="""
import torch
ensure_tensor = torch.tensor
def class_weights(labels):
    counts = torch.bincount(labels)
    return (counts.sum() / counts).clone().detach()  # TCK704
""",
        ),
        Invalid(
            """
from typing import Optional

import torch

def as_target(value: Optional[torch.Tensor]) -> torch.Tensor:
    return torch.tensor(value)  # TCK704
""",
            expected_replacement="""
from typing import Optional

import torch

def as_target(value: Optional[torch.Tensor]) -> torch.Tensor:
    return value.clone().detach()  # TCK704
""",
        ),
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
        Invalid(
            """
import torch

def as_target(prediction: torch.Tensor) -> torch.Tensor:
    return torch.tensor(prediction)  # TCK704

logits = torch.randn(8, 4, requires_grad=True)
target = as_target(logits.softmax(-1))
""",
            expected_replacement="""
import torch

def as_target(prediction: torch.Tensor) -> torch.Tensor:
    return prediction.clone().detach()  # TCK704

logits = torch.randn(8, 4, requires_grad=True)
target = as_target(logits.softmax(-1))
""",
        ),
        Invalid(
            """
import torch
def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    x = x * factor
    return torch.tensor(x, dtype=torch.float16)  # TCK704
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._deferred: list[_Deferred] = []
        # (function, parameter) -> the kind each call seen after the `def` passes for it
        self._passed: dict[tuple[cst.FunctionDef, str], list[Kind | None]] = {}
        self._self_calls: dict[str, list[cst.Call]] = {}  # `self.<name>(...)` calls by name

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

    def _own_parameter(self, source: cst.BaseExpression) -> str | None:
        """The parameter ``source`` still holds, if it is a bare name of one."""
        if not isinstance(source, cst.Name):
            return None
        binding = self.context.flow.reaching_binding(source.value)
        return source.value if binding is not None and isinstance(binding.node, cst.Param) else None

    def _drawn_from_built_loader(self, source: cst.BaseExpression) -> bool:
        """``batch`` drawn (``next(loader)``, ``for batch in loader``) from a loader this
        function binds to a call's result: only the loader's name says it yields tensors,
        and the call that built it decides what it yields."""
        if not isinstance(source, cst.Name):
            return False
        binding = self.context.flow.reaching_binding(source.value)
        if binding is None:
            return False
        drawn = binding.node.iter if isinstance(binding.node, cst.For) else binding.node.value if isinstance(binding.node, cst.Assign) else None
        while isinstance(drawn, cst.Call) and isinstance(drawn.func, cst.Name) and drawn.func.value in _DRAWING and drawn.args:
            drawn = drawn.args[0].value
        if not isinstance(drawn, cst.Name):
            return False
        loader = self.context.flow.reaching_binding(drawn.value)
        return loader is not None and isinstance(loader.value, cst.Call)

    def _note_caller(self, node: cst.Call) -> None:
        callee = node.func.attr.value if isinstance(node.func, cst.Attribute) else node.func.value if isinstance(node.func, cst.Name) else None
        if not any(deferred.function.name.value == callee for deferred in self._deferred):
            return
        resolved = self.context.resolve_call(node)
        if resolved is None:
            return
        for deferred in self._deferred:
            if deferred.function is resolved.function:
                argument = resolved.arguments.get(deferred.parameter) if resolved.arguments is not None else None
                kind = self.context.kind_of(argument) if argument is not None else None
                self._passed.setdefault((deferred.function, deferred.parameter), []).append(kind)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
            self._self_calls.setdefault(func.attr.value, []).append(node)
        if self._deferred:
            self._note_caller(node)
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return
        if self.context.call_name(node) != _TORCH_TENSOR:
            return
        source = node.args[0].value
        kind, evidence = self.context.kind_and_evidence(source)
        returned = (self.context.returned_kind_condition(source, TENSOR) or self.context.passed_kind_condition(source, TENSOR)) if kind is None else None
        if returned is not None:  # what a function or method of another project file returns, or its callers there pass
            return self.report(node, conditions=(returned,))
        if kind not in TENSOR_KINDS:
            return
        if evidence is Evidence.CONVENTION and self._drawn_from_built_loader(source):
            return
        if isinstance(source, cst.Name) and (self.context.flow.bound_conditionally(source.value) or self.context.known_not_a_tensor(source)):
            return  # `if isinstance(x, Tensor): x = ... else: torch.tensor(x)`, `if not isinstance(x, Tensor): torch.tensor(x)`
        if self._indexes_loader_item(source):
            return
        replacement = None
        if len(node.args) == 1:
            if not isinstance(source, _ATOMS) and not source.lpar:
                source = source.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            clone = cst.Call(func=cst.Attribute(value=source, attr=cst.Name("clone")))
            detached = cst.Call(func=cst.Attribute(value=clone, attr=cst.Name("detach")))
            replacement = detached.with_changes(lpar=node.lpar, rpar=node.rpar)
        parameter = self._own_parameter(source) if evidence is Evidence.ANNOTATION else None
        function = self.context.flow.function
        if parameter is not None and function is not None:
            self._deferred.append(_Deferred(node, replacement, fix_safety_on(evidence), function, parameter))
            return
        self._report(node, replacement, fix_safety_on(evidence))

    def _report(self, node: cst.Call, replacement: cst.CSTNode | None, fix_safety: FixSafety) -> None:
        if replacement is None:
            self.report(node)
        else:
            self.report(node, replacement=replacement, fix_safety=fix_safety)

    def leave_Module(self, node: cst.Module) -> None:
        """The deferred findings: the annotation stands unless a caller in the file passes
        something not known to be a tensor (a call before the ``def`` passes a value the
        walk did not weigh there: unknown, so it does not confirm the annotation)."""
        for deferred in self._deferred:
            callers = self._calls_of(deferred.function)
            passed = self._passed.get((deferred.function, deferred.parameter), [])
            if not callers or (len(passed) == len(callers) and all(kind in TENSOR_KINDS for kind in passed)):
                self._report(deferred.call, deferred.replacement, deferred.fix_safety)

    def _calls_of(self, function: cst.FunctionDef) -> list[cst.Call]:
        """The calls of ``function`` in the file: by its name, or as ``self.<name>(...)``
        in its class."""
        binder = self.context.binder
        owner = binder.scope_of(function.name).node
        if isinstance(owner, cst.ClassDef):
            return [call for call in self._self_calls.get(function.name.value, []) if binder.enclosing(call, cst.ClassDef) is owner]
        binding = binder.binding_made_by(function.name)
        references = binding.references if binding is not None else []
        return [parent for reference in references if isinstance(parent := binder.parent(reference), cst.Call) and parent.func is reference]
