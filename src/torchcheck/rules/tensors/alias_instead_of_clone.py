from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint import references, torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import Event
from torchcheck.lint.guards import never_together
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid


@dataclass(frozen=True)
class _Alias:
    assignment: cst.Assign
    names: frozenset[str]  # both names that refer to the same tensor
    made: Event  # where the alias was made (its ``function`` is the scope it lives in)


def _in_place_target(node: cst.CSTNode) -> str | None:
    """The name a statement modifies in place: ``b[i] = ...``, ``b += ...``, ``b.add_(...)``."""
    # exact types: cheaper than isinstance on libcst's ABCs (these classes have no subclasses)
    if type(node) is cst.Call and type(node.func) is cst.Attribute and type(node.func.value) is cst.Name:
        method = node.func.attr.value
        if method.endswith("_") and not method.startswith("_") and method not in torch_api.FLAG_SETTERS:
            return node.func.value.value
    if type(node) is cst.AugAssign and isinstance(node.target, cst.Name):
        return node.target.value
    if type(node) is cst.AugAssign and isinstance(node.target, cst.Subscript) and isinstance(node.target.value, cst.Name):
        return node.target.value.value
    return None


def _is_parameter(name: str, function: cst.FunctionDef | None) -> bool:
    params = function.params if function is not None else cst.Parameters()
    return any(param.name.value == name for param in (*params.posonly_params, *params.params, *params.kwonly_params))


class AliasInsteadOfClone(Rule):
    """
    ## What it does
    Checks for `b = a` where `a` is a tensor and one of the two names is then modified in
    place (`b[i] = ...`, `b += ...`, `b.add_(...)`) while the other is still used. A tensor is
    known from where it was made, or from how either name is used: a method only tensors have
    (`b.unsqueeze(0)`) or a `torch` function that takes only a tensor (`torch.min(b, dim=1)`).
    A parameter modified through its alias changes the caller's tensor, which the caller may
    use again (a layer's `position_ids`, passed to every layer).

    An alias and a write in different branches of one `if`/`else` (or `try`/`except`,
    `match`) never meet, nor do two under opposite values of the same test in two separate
    `if` statements, when nothing the test reads changes between them (`if fused: buf = out`
    ... `if not fused: out[i] = buf`, an output buffer used directly in one configuration
    and copied back in the other). A name bound again before the write (`x: Tensor = f(x)`,
    `x, w = f(x)`) no longer refers to the aliased tensor, and a read of only the shape,
    dtype or device (`len(a)`, `a.shape`, `a.size(0)`) sees nothing a write into the values
    changes, nor is a flag set in place (`b.requires_grad_()`, `b.share_memory_()`): it writes
    no values. None of these is reported.

    ## Why is this bad?
    Assignment does not copy a tensor: `b` and `a` are the same storage. Modifying one in
    place silently changes the other - a classic source of "my input changed" and
    wrong-metric bugs, and of autograd errors about tensors modified by an in-place
    operation. Take a copy with `a.clone()` when an independent tensor is meant.

    ## Example
    ```python
    import torch

    def normalize(x: torch.Tensor) -> torch.Tensor:
        y = x
        y -= y.mean()
        return y / x.std()
    ```

    Use instead:
    ```python
    import torch

    def normalize(x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        y -= y.mean()
        return y / x.std()
    ```

    ## Fix safety
    The fix replaces `b = a` with `b = a.clone()`. It is unsafe: code that relied on both
    names changing together (rare, but possible) behaves differently, and the copy costs
    memory.

    ## References
    - [`torch.Tensor.clone`](https://pytorch.org/docs/stable/generated/torch.Tensor.clone.html)
    - [Tensor views and in-place operations](https://pytorch.org/docs/stable/tensor_view.html)
    """

    code = "TCK701"
    name = "alias-instead-of-clone"
    message = "Assignment aliases the tensor, and one name is then modified in place; use `.clone()`"
    fix_title = "Copy with `.clone()`"
    fix_safety = FixSafety.UNSAFE
    required_text = ("=",)

    VALID = (
        Valid(
            """
import torch

def spectrum(samples, fmin, exponent):
    f = torch.fft.rfftfreq(samples)
    scale = f
    cutoff = torch.sum(scale < fmin)
    if cutoff and cutoff < len(scale):
        scale[:cutoff] = scale[cutoff]
    weights = torch.ones(len(f), dtype=f.dtype)
    return scale ** (-exponent / 2.0), weights
"""
        ),
        Valid(
            """
import torch
a = torch.zeros(3)
b = a.clone()
b[0] = 1
print(a)
"""
        ),
        Valid(
            """
import torch
def block(self, x: torch.Tensor):
    shortcut = x
    x = self.conv(x)
    x += shortcut
    return x
"""
        ),
        Valid(
            """
count = n
count += 1
print(n)
"""
        ),
        Valid(
            """
import torch
a = torch.zeros(3)
b = a
b[0] = 1
"""
        ),
        Valid(
            """
import torch
a = torch.zeros(3)
b = a
print(b.sum(), a.sum())
"""
        ),
        Valid(
            """
import torch
def momentum_step(state: dict, grad: torch.Tensor, momentum: float) -> torch.Tensor:
    buf = state.get("momentum_buffer")
    if buf is None:
        buf = grad
        state["momentum_buffer"] = buf
    else:
        buf.mul_(momentum).add_(grad)
    return buf
"""
        ),
        Valid(
            """
import torch
def residual(self, x: torch.Tensor) -> torch.Tensor:
    shortcut = x
    x: torch.Tensor = self.block(x)
    x += shortcut
    return x
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist
def reduce_grads(dk: torch.Tensor, buffer: torch.Tensor, chunks: torch.Tensor, stride: int, heads: int):
    for i in range(0, heads, stride):
        if stride != heads:
            dk_i = buffer[0]
        else:
            dk_i = dk
        dist.reduce_scatter_tensor(dk_i, chunks[i], group=None)
        if stride != heads:
            dk[:, i : i + stride] = dk_i
    return dk
"""
        ),
        Valid(
            """
import torch

def preprocess(X, steps):
    x0 = torch.randn_like(X.unsqueeze(0))
    x1 = X
    x0.requires_grad_()
    x1.requires_grad_()
    return x0, x1
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from torch import nn

class QuadrantMix(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.mix = nn.Conv2d(channels * 2, channels * 2, kernel_size=1)

    def forward(self, x):
        h = x.shape[2] // 2
        mixed = self.mix(torch.cat([x[:, :, :h], x[:, :, h:]], 1))
        out = x  # TCK701
        out[:, :, :h] = mixed[:, : mixed.shape[1] // 2]
        return out + x
""",
            expected_replacement="""
import torch
from torch import nn

class QuadrantMix(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.mix = nn.Conv2d(channels * 2, channels * 2, kernel_size=1)

    def forward(self, x):
        h = x.shape[2] // 2
        mixed = self.mix(torch.cat([x[:, :, :h], x[:, :, h:]], 1))
        out = x.clone()  # TCK701
        out[:, :, :h] = mixed[:, : mixed.shape[1] // 2]
        return out + x
""",
        ),
        Invalid(
            """
import torch

def preprocess(X, steps):
    x0 = torch.randn_like(X.unsqueeze(0))
    x1 = X  # TCK701
    x0.requires_grad_()
    x1.clamp_(-1.0, 1.0)
    return x0, x1
""",
            expected_replacement="""
import torch

def preprocess(X, steps):
    x0 = torch.randn_like(X.unsqueeze(0))
    x1 = X.clone()  # TCK701
    x0.requires_grad_()
    x1.clamp_(-1.0, 1.0)
    return x0, x1
""",
        ),
        Invalid(
            """
import torch
a = torch.zeros(3)
b = a  # TCK701
b[0] = 1
print(a)
""",
            expected_replacement="""
import torch
a = torch.zeros(3)
b = a.clone()  # TCK701
b[0] = 1
print(a)
""",
        ),
        Invalid(
            """
import torch
def normalize(x: torch.Tensor) -> torch.Tensor:
    y = x  # TCK701
    y -= y.mean()
    return y
""",
            expected_replacement="""
import torch
def normalize(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()  # TCK701
    y -= y.mean()
    return y
""",
        ),
        Invalid(
            """
import torch
def rebase(position_ids, prefix_len):
    if prefix_len:
        expert_ids = position_ids[:, prefix_len:]
    else:
        expert_ids = position_ids  # TCK701
    expert_ids -= torch.min(expert_ids, dim=1, keepdim=True).values
    return expert_ids
""",
            expected_replacement="""
import torch
def rebase(position_ids, prefix_len):
    if prefix_len:
        expert_ids = position_ids[:, prefix_len:]
    else:
        expert_ids = position_ids.clone()  # TCK701
    expert_ids -= torch.min(expert_ids, dim=1, keepdim=True).values
    return expert_ids
""",
        ),
        Invalid(
            """
import torch
weights = torch.ones(4)
original = weights  # TCK701
weights.mul_(0.5)
delta = weights - original
""",
            expected_replacement="""
import torch
weights = torch.ones(4)
original = weights.clone()  # TCK701
weights.mul_(0.5)
delta = weights - original
""",
        ),
        Invalid(
            """
import torch
def clipped(x: torch.Tensor, limit: float, clip: bool) -> torch.Tensor:
    y = x  # TCK701
    if clip:
        y.clamp_(-limit, limit)
    return y
""",
            expected_replacement="""
import torch
def clipped(x: torch.Tensor, limit: float, clip: bool) -> torch.Tensor:
    y = x.clone()  # TCK701
    if clip:
        y.clamp_(-limit, limit)
    return y
""",
        ),
        Invalid(
            """
import torch
def smooth(x: torch.Tensor, steps: int) -> torch.Tensor:
    out = torch.zeros_like(x)
    prev = torch.zeros_like(x)
    for i in range(steps):
        if i % 2:
            prev = out  # TCK701
        if not i % 2:
            out.add_(x)
        x = x - prev
    return out
""",
            expected_replacement="""
import torch
def smooth(x: torch.Tensor, steps: int) -> torch.Tensor:
    out = torch.zeros_like(x)
    prev = torch.zeros_like(x)
    for i in range(steps):
        if i % 2:
            prev = out.clone()  # TCK701
        if not i % 2:
            out.add_(x)
        x = x - prev
    return out
""",
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._aliases: list[_Alias] = []
        # alias -> the name that must not be read afterwards (it changed behind its back), and
        # the in-place write that changed it
        self._mutated: dict[_Alias, tuple[str, Event]] = {}
        self._reported: set[cst.Assign] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        inplace = next(
            (t.target.value.value for t in node.targets if type(t.target) is cst.Subscript and type(t.target.value) is cst.Name),
            None,
        )
        if inplace is not None:
            self._modified_in_place(inplace, node)

    def leave_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and type(node.targets[0].target) is cst.Name and type(node.value) is cst.Name:
            target, source = node.targets[0].target.value, node.value.value
            # one object under two names: what the uses of either show holds for both
            if target != source and (self.context.is_tensor(node.value) or self.context.is_tensor(node.targets[0].target)):
                self._aliases.append(_Alias(node, frozenset({target, source}), self.context.flow.event(node)))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        name = _in_place_target(node)
        if name is not None and self.context.is_tensor(node.target):
            self._modified_in_place(name, node)

    def visit_Call(self, node: cst.Call) -> None:
        name = _in_place_target(node)
        if name is not None:
            self._modified_in_place(name, node)

    def visit_Name(self, node: cst.Name) -> None:
        if not self._mutated:
            return
        function = self.context.flow.function
        pending = [alias for alias, (other, write) in self._mutated.items() if other == node.value and write.function is function]
        # Not a read: the target of `name = ...`, or a name the binder gives no parent (the
        # name of an attribute, of a keyword argument, or one an import binds).
        if not pending or isinstance(self.context.binder.parent(node), (cst.AssignTarget, type(None))):
            return
        for alias in pending:
            other, write = self._mutated[alias]
            read = self.context.flow.event(node)
            if read.exclusive_with(write) or never_together(self.context.binder, node, write.node):
                continue  # the read runs on another path; a later one may not
            if references.reads_only_metadata(self.context.binder, node):
                continue  # `len(a)`, `a.shape`: a write into the values changes nothing it reads
            if not self.context.flow.rebound_between(other, write, read):
                self._report_alias(alias)
            del self._mutated[alias]

    def _modified_in_place(self, name: str, node: cst.CSTNode) -> None:
        write = self.context.flow.event(node)
        for alias in self._aliases:
            if alias.made.function is write.function and name in alias.names and alias not in self._mutated and self._still_aliased(alias, write):
                (other,) = alias.names - {name}
                if _is_parameter(other, write.function):
                    self._report_alias(alias)  # the caller's tensor changed
                else:
                    self._mutated[alias] = (other, write)

    def _still_aliased(self, alias: _Alias, write: Event) -> bool:
        """The write can see the alias: not in another branch, and neither name bound anew since."""
        if alias.made.exclusive_with(write) or never_together(self.context.binder, alias.assignment, write.node):
            return False
        return not any(self.context.flow.rebound_between(name, alias.made, write) for name in alias.names)

    def _report_alias(self, alias: _Alias) -> None:
        if alias.assignment in self._reported:
            return
        self._reported.add(alias.assignment)
        value = alias.assignment.value
        clone = cst.Call(func=cst.Attribute(value=value, attr=cst.Name("clone")))
        self.report(alias.assignment, replacement=clone, replace_target=value)
