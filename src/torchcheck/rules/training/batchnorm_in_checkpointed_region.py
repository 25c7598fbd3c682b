from __future__ import annotations

import re

import libcst as cst

from torchcheck.lint.checkpointing import (
    CheckpointCalls,
    RegionReader,
    batch_norms,
)
from torchcheck.lint.rule import Invalid, Rule, Valid

_MESSAGE = (
    "`{layer}` (line {line}) runs inside this checkpointed region in training mode: the recompute in backward "
    "updates its running statistics a second time per batch"
)
# Helpers that put normalisation layers in evaluation mode (`freeze_bn`, `_freeze_norm_stats`).
_FREEZES_NORMS = re.compile(r"bn|norm|freeze", re.IGNORECASE)


def _freezes_norms(function: cst.FunctionDef, *, in_class: bool) -> bool:
    """A norm-freezing helper, or a ``train()`` override (the ``norm_eval`` pattern)."""
    return _FREEZES_NORMS.search(function.name.value) is not None or (in_class and function.name.value == "train")


class BatchnormInCheckpointedRegion(Rule):
    """
    ## What it does
    Checks for BatchNorm layers (`BatchNorm1d/2d/3d`, `SyncBatchNorm`) with running
    statistics inside a region checkpointed with `torch.utils.checkpoint` or
    `checkpoint_wrapper`, called directly or through a `functools.partial` of one.

    ## Why is this bad?
    Checkpointing runs the region again during the backward pass, and in training mode
    the second BatchNorm forward updates the running mean and variance again: two
    momentum updates per batch, and `num_batches_tracked` counts twice. The statistics
    used in evaluation differ from those of the same run without checkpointing. Gradients
    and losses are unaffected, so parity tests on those miss it. Keep the BatchNorm
    outside the checkpointed part, build it with `track_running_stats=False`, or use a
    norm without running statistics (`GroupNorm`, `LayerNorm`).

    The region is what the checkpointed callable runs, as far as the file shows: a module
    class of the file with its `forward` and the module classes it builds. Not reported:
    `track_running_stats=False`, regions of a class that overrides `train()` (the
    `norm_eval` pattern of detection backbones keeps BatchNorm in evaluation mode), files
    where a `train()` override or a helper (`freeze_bn`) puts modules in evaluation mode,
    regions run under `torch.no_grad()`, checkpoint calls in a function named `test*`, and
    checkpoint functions of other libraries (fairscale's and pytorch-pfn-extras' patch
    BatchNorm).

    The rule is opt-in: memory-efficient CNN code (efficient DenseNet, mmcv's `with_cp`
    blocks) accepts the double update knowingly, and a backbone frozen elsewhere may keep
    its norms in evaluation mode in a way the file does not show. Enable it with
    `extend-select = ["TCK119"]`.

    ## Example
    ```python
    import torch
    import torch.nn as nn
    from torch.utils.checkpoint import checkpoint

    class ConvBlock(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 3, padding=1)
            self.bn = nn.BatchNorm2d(channels)

        def forward(self, x):
            return torch.relu(self.bn(self.conv(x)))

    class Net(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.block = ConvBlock(channels)

        def forward(self, x):
            return checkpoint(self.block, x, use_reentrant=False)
    ```

    Use instead:
    ```python
    import torch
    import torch.nn as nn
    from torch.utils.checkpoint import checkpoint

    class ConvBlock(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 3, padding=1)
            self.bn = nn.GroupNorm(8, channels)

        def forward(self, x):
            return torch.relu(self.bn(self.conv(x)))

    class Net(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.block = ConvBlock(channels)

        def forward(self, x):
            return checkpoint(self.block, x, use_reentrant=False)
    ```

    ## Fix safety
    There is no automatic fix: moving the norm out of the region, freezing its statistics
    or replacing it each change the model.

    ## References
    - [pytorch/pytorch#96136: checkpoint should avoid updating BatchNorm statistics twice](https://github.com/pytorch/pytorch/issues/96136)
    - [Tencent/YOLO-Master#262: checkpoint recomputation updates BatchNorm running statistics twice](https://github.com/Tencent/YOLO-Master/issues/262)
    - [pfnet/pytorch-pfn-extras#117: BatchNorm-aware checkpointing, "the momentum is updated twice"](https://github.com/pfnet/pytorch-pfn-extras/pull/117)
    """

    code = "TCK119"
    name = "batchnorm-in-checkpointed-region"
    message = "BatchNorm inside a checkpointed region: its running statistics are updated twice per batch"
    default_enabled = False
    required_text = ("BatchNorm",)

    VALID = (
        Valid(
            """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class ConvBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.gn = nn.GroupNorm(8, channels)
        self.bn = nn.BatchNorm2d(channels, track_running_stats=False)

    def forward(self, x):
        return torch.relu(self.bn(self.gn(self.conv(x))))

class Net(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.block = ConvBlock(channels)
        self.stem = nn.BatchNorm2d(channels)

    def forward(self, x):
        return checkpoint(self.block, self.stem(x), use_reentrant=False)
"""
        ),
        Valid(
            """
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Bottleneck(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 1)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        return self.bn(self.conv(x))

class ResNet(nn.Module):
    def __init__(self, channels, norm_eval=True):
        super().__init__()
        self.layer = Bottleneck(channels)
        self.norm_eval = norm_eval

    def forward(self, x):
        return checkpoint(self.layer, x, use_reentrant=False)

    def train(self, mode=True):
        super().train(mode)
        if mode and self.norm_eval:
            for m in self.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        return self
"""
        ),
        Valid(
            """
from functools import partial

import torch.nn as nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper

wrap = partial(checkpoint_wrapper, preserve_rng_state=False)

stem = wrap(nn.Sequential(nn.Conv2d(3, 64, 3), nn.GroupNorm(8, 64), nn.ReLU()))
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint_sequential

class ConvBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))

class Net(nn.Module):
    def __init__(self, channels, with_cp=True):
        super().__init__()
        self.blocks = nn.Sequential(*[ConvBlock(channels) for _ in range(4)])
        self.with_cp = with_cp

    def forward(self, x):
        if self.with_cp and x.requires_grad:
            return checkpoint_sequential(self.blocks, 2, x, use_reentrant=False)  # TCK119
        return self.blocks(x)
"""
        ),
        Invalid(
            """
import torch.nn as nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper

head = checkpoint_wrapper(nn.Sequential(nn.Linear(64, 64), nn.SyncBatchNorm(64), nn.ReLU()))  # TCK119
"""
        ),
        Invalid(
            """
from functools import partial

import torch.nn as nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper

wrap = partial(checkpoint_wrapper, preserve_rng_state=False)

stem = wrap(nn.Sequential(nn.Conv2d(3, 64, 3), nn.BatchNorm2d(64), nn.ReLU()))  # TCK119
"""
        ),
    )

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        self._checkpoints = CheckpointCalls()
        self._norms_frozen_in_file = False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "eval" and not node.args:
            function = self.context.flow.function
            if isinstance(function, cst.FunctionDef) and _freezes_norms(function, in_class=self.context.current_class is not None):
                self._norms_frozen_in_file = True
        self._checkpoints.see(node, self.context)

    def leave_Module(self, node: cst.Module) -> None:
        if not self._checkpoints or self._norms_frozen_in_file:
            return
        reader = RegionReader(self.context.binder, self.context.call_name)
        for checkpoint in self._checkpoints.resolved(reader):
            if reader.in_test_function(checkpoint.call):
                continue
            region = reader.region(checkpoint)
            owner = reader.binder.enclosing(checkpoint.call, cst.ClassDef)
            classes = [*region.classes, *([owner] if isinstance(owner, cst.ClassDef) else [])]
            if any(reader.methods(cls, "train") for cls in classes):
                continue  # a `train()` override may keep the norms in evaluation mode
            norms = batch_norms(region, reader)
            if norms:
                first = min(norms, key=self.context.line_of)
                layer = " ".join(cst.Module(body=[]).code_for_node(first).split())
                self.report(checkpoint.call, _MESSAGE.format(layer=layer, line=self.context.line_of(first)))
