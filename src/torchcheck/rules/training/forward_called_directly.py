from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import Kind
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid


class ForwardCalledDirectly(Rule):
    """
    ## What it does
    Checks for `module.forward(x)` where `module` is an `nn.Module`, instead of `module(x)`.

    ## Why is this bad?
    `nn.Module.__call__` does more than run `forward`: it runs forward pre-hooks and hooks,
    backward hooks, and everything built on them - `DistributedDataParallel` and FSDP
    gradient synchronisation, `torch.compile`'s compiled graph (for a compiled module,
    `.forward` is the uncompiled Python code), quantization observers, pruning masks,
    activation checkpointing wrappers. Calling `.forward` skips all of it, silently.
    Call the module.

    `super().forward(x)` and `Base.forward(self, x)` (a subclass extending its parent's
    forward) are fine and not reported. Neither is `self.forward(...)` in a module's own
    methods: `self` is always the unwrapped module (DDP, FSDP and `torch.compile` wrap it
    from the outside), so no wrapper is bypassed; in a `__call__` override `self(...)` would
    recurse, and a delegating helper such as `def scale(self, x): return self.forward(x)`
    is deliberate code that manages its own hooks.

    ## Example
    ```python
    logits = model.forward(images)
    ```

    Use instead:
    ```python
    logits = model(images)
    ```

    ## Fix safety
    The fix replaces `module.forward(...)` with `module(...)`, passing the same arguments.
    It is safe: for a module without hooks or wrappers the result is identical, and where
    there are hooks, running them is what the module's owner asked for.

    ## References
    - [`torch.nn.Module.__call__` and hooks](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.register_forward_hook)
    - [`torch.nn.Module.forward`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.forward)
    """

    code = "TCK105"
    name = "forward-called-directly"
    message = "`.forward()` called directly; call the module so its hooks and wrappers run"
    fix_title = "Call the module"
    fix_safety = FixSafety.SAFE
    required_text = (".forward(",)

    VALID = (
        Valid(
            """
import torch.nn as nn

class Classifier(nn.Linear):
    def forward(self, x):
        return super().forward(x).softmax(-1)
"""
        ),
        Valid(
            """
import torch.nn as nn

class Wrapped(nn.Module):
    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def scale_corrected_output(self, x):
        return self.forward(x)

class Child(nn.Conv2d):
    def forward(self, x):
        return nn.Conv2d.forward(self, x)
"""
        ),
        Valid(
            """
logits = model(images)
traced = torch.jit.trace(model.forward, example)
"""
        ),
        Valid(
            """
def hook(module, inputs):
    return module.forward(*inputs)

class Pipeline:
    def __call__(self, x):
        return self.forward(x)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
logits = model.forward(images)  # TCK105
""",
            expected_replacement="""
logits = model(images)  # TCK105
""",
        ),
        Invalid(
            """
import torch
import torch.nn as nn
encoder = torch.compile(nn.TransformerEncoderLayer(512, 8))

class Trainer:
    def step(self, batch):
        features = encoder.forward(batch, src_key_padding_mask=None)  # TCK105
        return self.model.forward(features).mean()  # TCK105
""",
            expected_replacement="""
import torch
import torch.nn as nn
encoder = torch.compile(nn.TransformerEncoderLayer(512, 8))

class Trainer:
    def step(self, batch):
        features = encoder(batch, src_key_padding_mask=None)  # TCK105
        return self.model(features).mean()  # TCK105
""",
        ),
        Invalid(
            """
import torch.nn as nn

class Wrapper(nn.Module):
    def __init__(self, backbone: nn.Module):
        super().__init__()
        self.backbone = backbone

    def forward(self, pixels, **kwargs):
        return self.backbone.forward(pixels, **kwargs)  # TCK105
""",
            expected_replacement="""
import torch.nn as nn

class Wrapper(nn.Module):
    def __init__(self, backbone: nn.Module):
        super().__init__()
        self.backbone = backbone

    def forward(self, pixels, **kwargs):
        return self.backbone(pixels, **kwargs)  # TCK105
""",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "forward":
            return
        receiver = func.value
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            return  # the module's own code: no wrapper is bypassed (see the doc)
        if self.context.kind_of(receiver) is not Kind.MODULE:
            return  # also skips `super().forward` and `Base.forward(self, ...)`
        self.report(node, replacement=node.with_changes(func=receiver))
