from __future__ import annotations

import libcst as cst

from torchcheck.lint.checkpointing import (
    CheckpointCalls,
    RegionReader,
    state_updates,
)
from torchcheck.lint.rule import Invalid, Rule, Valid

_MESSAGE = (
    "{state} is updated inside a region checkpointed at line {line}; the region re-runs in backward, "
    "so this update happens twice per step"
)


class StateMutatedInCheckpointedRegion(Rule):
    """
    ## What it does
    Checks for code inside an activation-checkpointed region (`torch.utils.checkpoint`,
    `checkpoint_sequential`, `checkpoint_wrapper`, `apply_activation_checkpointing`, or a
    `functools.partial` of one that the file calls later) that updates state outliving the call in a way that does not give the same result when run
    twice: `self.n += 1`, `self.load = self.load + counts`, `self.aux_losses.append(loss)`,
    in-place updates of a registered buffer (`self.cluster_size.mul_(decay)`), item updates
    or appends on module-level containers (`STATS[key] += 1`), and updates of module-level
    names declared `global`.

    ## Why is this bad?
    Checkpointing runs the region twice per training step: once in the forward pass and
    again in the backward pass, to recompute the activations it did not keep. Every side
    effect happens twice. Counters and routing statistics double-count, moving averages
    take two steps, and auxiliary losses collected in the forward pass are collected again
    (Megatron-LM logged twice the true auxiliary loss). Where the second run takes another
    branch because of the first run's update, non-reentrant checkpointing raises a
    `CheckpointError` mid-training; otherwise nothing is reported. (Non-reentrant
    checkpointing stops the recompute once the region's last saved tensor is rebuilt, so an
    update after it may escape, until the code after it changes.) Move the update out of
    the checkpointed region, or make it once per step (after the backward pass).

    The region is what the checkpointed callable runs, as far as the file shows: a function,
    a method, a module class of the file with its `forward`, and the module classes it
    builds. Updates that give the same value on the second run are not reported: a plain
    overwrite (`self.cos_cached = self._rope(seq_len)`), a conversion (`self.mask =
    self.mask.to(x.device)`), `max`/`min`, and `self.buf.copy_(x)` of a value that does not
    read the buffer, `set.add` and `|=`. Neither are updates of local variables, updates
    only in evaluation (`if not self.training:`), regions run under `torch.no_grad()` (no
    backward, no recompute), regions whose code lives in another file, and checkpoint calls
    in a function named `test*` (a test exercising checkpointing, often without a backward
    pass).

    ## Example
    ```python
    import torch
    import torch.nn as nn
    from torch.utils.checkpoint import checkpoint

    class Router(nn.Module):
        def __init__(self, dim, experts):
            super().__init__()
            self.gate = nn.Linear(dim, experts)
            self.register_buffer("expert_load", torch.zeros(experts))

        def forward(self, x):
            scores = self.gate(x).softmax(-1)
            self.expert_load += scores.sum(0).detach()
            return scores

    class Layer(nn.Module):
        def __init__(self, dim, experts):
            super().__init__()
            self.router = Router(dim, experts)

        def forward(self, x):
            return checkpoint(self.router, x, use_reentrant=False)
    ```

    Use instead:
    ```python
    import torch
    import torch.nn as nn
    from torch.utils.checkpoint import checkpoint

    class Router(nn.Module):
        def __init__(self, dim, experts):
            super().__init__()
            self.gate = nn.Linear(dim, experts)
            self.register_buffer("expert_load", torch.zeros(experts))

        def forward(self, x):
            return self.gate(x).softmax(-1)

    class Layer(nn.Module):
        def __init__(self, dim, experts):
            super().__init__()
            self.router = Router(dim, experts)

        def forward(self, x):
            scores = checkpoint(self.router, x, use_reentrant=False)
            self.router.expert_load += scores.sum(0).detach()
            return scores
    ```

    ## Fix safety
    There is no automatic fix: where the update belongs (after the checkpoint call, or once
    per optimizer step) depends on what the state is for.

    ## References
    - [NVIDIA-NeMo/Automodel#3247: an MoE's cumulative expert load replayed under activation checkpointing](https://github.com/NVIDIA-NeMo/Automodel/pull/3247)
    - [NVIDIA/Megatron-LM#1514: with full recompute the logged auxiliary loss is twice the true value](https://github.com/NVIDIA/Megatron-LM/issues/1514)
    - [pytorch/pytorch#96136: both checkpoint variants run the wrapped forward twice](https://github.com/pytorch/pytorch/issues/96136)
    """

    code = "TCK117"
    name = "state-mutated-in-checkpointed-region"
    message = "State that outlives the call is updated inside a checkpointed region; the recompute updates it again"
    required_text = ("checkpoint",)

    VALID = (
        Valid(
            """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Rotary(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.cached_len = 0
        self.register_buffer("inv_freq", 1.0 / 10000 ** (torch.arange(0, dim, 2) / dim), persistent=False)

    def forward(self, x):
        if x.shape[1] > self.cached_len:
            self.cached_len = max(self.cached_len, x.shape[1])
            self.cos_cached = self._rope(x.shape[1])
        self.inv_freq = self.inv_freq.to(x.device)
        return x * self.cos_cached[: x.shape[1]]

    def _rope(self, length):
        return torch.outer(torch.arange(length), self.inv_freq).cos()

class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.rotary = Rotary(dim)
        self.steps = 0

    def forward(self, x):
        parts = []
        parts.append(x)
        x = checkpoint(self.rotary, x, use_reentrant=False)
        self.steps += 1
        return x
"""
        ),
        Valid(
            """
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Head(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.calls = 0

    def forward(self, x):
        self.aux = compute_aux(x)
        if not self.training:
            self.calls += 1
        return self.proj(x)

class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.head = Head(dim)

    def forward(self, x):
        return checkpoint(self.head, x, use_reentrant=False)
"""
        ),
        Valid(
            """
from functools import partial

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Router(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.register_buffer("expert_load", torch.zeros(experts))

    def forward(self, x):
        scores = self.gate(x).softmax(-1)
        self.expert_load += scores.sum(0).detach()
        return scores

class Layer(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.router = Router(dim, experts)
        self._checkpoint_fn = partial(checkpoint, use_reentrant=False)

    def forward(self, x):
        return self.router(x)
"""
        ),
        Valid(
            """
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Block(nn.Module):
    def __init__(self, dim, heads, attn_mask=None):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads)
        self.attn_mask = attn_mask

    def attention(self, x):
        self.attn_mask = self.attn_mask.to(dtype=x.dtype, device=x.device) if self.attn_mask is not None else None
        return self.attn(x, x, x, need_weights=False, attn_mask=self.attn_mask)[0]

    def forward(self, x):
        return x + checkpoint(self.attention, x, use_reentrant=False)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.seen = 0

    def inner(self, x):
        self.seen = self.seen + x.shape[0] if self.training else self.seen  # TCK117
        return self.proj(x)

    def forward(self, x):
        return checkpoint(self.inner, x, use_reentrant=False)
"""
        ),
        Invalid(
            """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Router(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.register_buffer("expert_load", torch.zeros(experts))
        self.aux_losses = []
        self.calls = 0

    def forward(self, x):
        scores = self.gate(x).softmax(-1)
        self.expert_load += scores.sum(0).detach()  # TCK117
        self.aux_losses.append(scores.var())  # TCK117
        self.calls = self.calls + 1  # TCK117
        return scores

class Layer(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.router = Router(dim, experts)

    def forward(self, x):
        return checkpoint(self.router, x, use_reentrant=False)
"""
        ),
        Invalid(
            """
import torch
from torch.utils.checkpoint import checkpoint

STATS = {"tokens": 0}

class Codebook(torch.nn.Module):
    def __init__(self, size, dim, decay=0.99):
        super().__init__()
        self.decay = decay
        self.embed = torch.nn.Embedding(size, dim)
        self.register_buffer("cluster_size", torch.zeros(size))

    def forward(self, x):
        codes = torch.cdist(x, self.embed.weight).argmin(-1)
        counts = torch.bincount(codes, minlength=self.cluster_size.numel()).float()
        self.cluster_size.data.mul_(self.decay).add_(counts, alpha=1 - self.decay)  # TCK117
        return self.embed(codes)

codebook = Codebook(512, 64)

def encode(x):
    STATS["tokens"] += x.shape[0]  # TCK117
    return codebook(x)

def forward(x):
    return checkpoint(lambda h: encode(h), x, use_reentrant=False)
"""
        ),
        Invalid(
            """
from functools import partial

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Router(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.register_buffer("expert_load", torch.zeros(experts))

    def forward(self, x):
        scores = self.gate(x).softmax(-1)
        self.expert_load += scores.sum(0).detach()  # TCK117
        return scores

class Layer(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.router = Router(dim, experts)
        self._checkpoint_fn = partial(checkpoint, use_reentrant=False)

    def forward(self, x):
        return self._checkpoint_fn(self.router, x)
"""
        ),
    )

    def __init__(self, context) -> None:  # type: ignore[no-untyped-def]
        super().__init__(context)
        self._checkpoints = CheckpointCalls()

    def visit_Call(self, node: cst.Call) -> None:
        self._checkpoints.see(node, self.context)

    def leave_Module(self, node: cst.Module) -> None:
        if not self._checkpoints:
            return
        reader = RegionReader(self.context.binder, self.context.call_name)
        reported: set[int] = set()
        for checkpoint in self._checkpoints.resolved(reader):
            if reader.in_test_function(checkpoint.call):
                continue
            for update in state_updates(reader.region(checkpoint), reader):
                if id(update.statement) not in reported:
                    reported.add(id(update.statement))
                    line = self.context.line_of(checkpoint.call)
                    self.report(update.statement, _MESSAGE.format(state=f"`{update.state}`", line=line))
