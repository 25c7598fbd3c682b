from __future__ import annotations

import libcst as cst

from torchcheck.lint.checkpointing import (
    DROPOUT_FUNCTIONS,
    DROPOUT_LAYERS,
    CheckpointCalls,
    RegionReader,
    is_false,
    random_draws,
)
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

_MESSAGE = (
    "preserve_rng_state=False on a checkpointed region that {what} (`{draw}`, line {line}): the recompute draws "
    "new masks, so gradients are taken for a different network than the loss"
)


class CheckpointRngNotPreserved(Rule):
    """
    ## What it does
    Checks for activation checkpointing with `preserve_rng_state=False` around code that
    draws random numbers in training: dropout (`nn.Dropout`, `F.dropout`,
    `scaled_dot_product_attention(dropout_p=...)`), stochastic depth, `torch.rand*` and the
    in-place samplers (`bernoulli_`, `uniform_`, ...). The calls are
    `torch.utils.checkpoint.checkpoint`, `checkpoint_sequential`, `checkpoint_wrapper` and
    `apply_activation_checkpointing(..., checkpoint_wrapper_fn=partial(checkpoint_wrapper,
    preserve_rng_state=False))`. A checkpoint function made as a value,
    `ckpt_fn = partial(checkpoint, preserve_rng_state=False)`, counts where the file calls
    it (`ckpt_fn(self._attend, x)`), through names, functions that return it and
    attributes of `self`; it is reported at its `preserve_rng_state=False`.

    ## Why is this bad?
    Checkpointing discards the region's activations and runs the region again during the
    backward pass. With the RNG state preserved (the default) the second run draws the
    same dropout masks as the first. With `preserve_rng_state=False` it draws new ones, so
    the gradients are computed for a different random network than the one the loss was
    computed with: wrong gradients, no error. OLMo-core measured a cross-entropy of 2.49
    with activation checkpointing against 2.19 without after 150 steps; turning
    checkpointing off is supposed to change nothing.

    The region is what the checkpointed callable runs, as far as the file shows: a function,
    a method, a module class of the file with its `forward` and the submodules it builds. A
    dropout probability that is zero on every path the file shows (a literal `0.0`, or a
    constructor parameter that defaults to `0.0` and that no call in the file sets) draws
    nothing; one that comes from a configuration may be non-zero and counts. Random draws
    only in evaluation (`if not self.training:`), `F.dropout(..., training=False)`, and
    regions run under `torch.no_grad()` (no backward, no recompute) are not reported, nor
    are regions whose code lives in another file and checkpoint calls in a function named
    `test*` (a test exercising checkpointing on purpose).

    ## Example
    ```python
    import torch.nn as nn
    from torch.utils.checkpoint import checkpoint

    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.proj = nn.Linear(dim, dim)
            self.drop = nn.Dropout(0.1)

        def forward(self, x):
            return self.drop(self.proj(x))

    class Model(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.block = Block(dim)

        def forward(self, x):
            return checkpoint(self.block, x, use_reentrant=False, preserve_rng_state=False)
    ```

    Use instead:
    ```python
    import torch.nn as nn
    from torch.utils.checkpoint import checkpoint

    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.proj = nn.Linear(dim, dim)
            self.drop = nn.Dropout(0.1)

        def forward(self, x):
            return self.drop(self.proj(x))

    class Model(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.block = Block(dim)

        def forward(self, x):
            return checkpoint(self.block, x, use_reentrant=False)
    ```

    ## Fix safety
    The fix sets `preserve_rng_state=True`. It is unsafe: stashing and restoring the RNG
    state costs some time per checkpointed call, and results change from earlier runs (they
    become right).

    ## References
    - [allenai/OLMo-core#828: hard-coded `preserve_rng_state=False` with dropout; the loss moved from 2.49 to 2.19 when checkpointing was off](https://github.com/allenai/OLMo-core/pull/828)
    - [ankanbhunia/PIDM#66: with `preserve_rng_state=False` "the dropout will definitely not work"](https://github.com/ankanbhunia/PIDM/pull/66)
    - [`torch.utils.checkpoint`: RNG state and dropout](https://pytorch.org/docs/stable/checkpoint.html)
    """

    code = "TCK116"
    name = "checkpoint-rng-not-preserved"
    message = "`preserve_rng_state=False` on a checkpointed region that draws random numbers; the recompute draws new ones"
    fix_title = "Set `preserve_rng_state=True`"
    fix_safety = FixSafety.UNSAFE
    required_text = ("preserve_rng_state",)

    VALID = (
        Valid(
            """
import torch.nn as nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper

class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attention = nn.Linear(dim, dim)
        self.feed_forward = nn.Linear(dim, dim)

    def forward(self, x):
        return self.feed_forward(self.attention(x))

block = checkpoint_wrapper(Block(8), preserve_rng_state=False)
"""
        ),
        Valid(
            """
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Block(nn.Module):
    def __init__(self, dim, dropout=0.0):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.proj(x))

class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(4)])
        self.head = Block(dim, dropout=0.0)

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False, preserve_rng_state=False)
        return x
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Noisy(nn.Module):
    def forward(self, x):
        if not self.training:
            x = x + torch.randn_like(x)
        return x

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.noisy = Noisy()
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        x = checkpoint(self.noisy, x, use_reentrant=False, preserve_rng_state=False)
        return checkpoint(self.drop, x, use_reentrant=False)

    @torch.no_grad()
    def embed(self, x):
        return checkpoint(self.drop, x, use_reentrant=False, preserve_rng_state=False)
"""
        ),
        Valid(
            """
from torch.utils.checkpoint import checkpoint

def apply_ac(block, ac_config):
    return checkpoint(block, use_reentrant=False, preserve_rng_state=ac_config.preserve_rng_state)
"""
        ),
        Valid(
            """
from functools import partial

import torch.nn as nn
from torch.utils.checkpoint import checkpoint

def activation_checkpoint_function():
    return partial(checkpoint, use_reentrant=False)

class Block(nn.Module):
    def __init__(self, dim, dropout):
        super().__init__()
        self.att_proj = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(dropout)
        self._activation_checkpoint_fn = None

    def set_activation_checkpointing(self, enabled):
        self._activation_checkpoint_fn = activation_checkpoint_function() if enabled else None

    def _attend(self, x):
        return self.dropout(self.att_proj(x))

    def forward(self, x):
        if self._activation_checkpoint_fn is not None:
            return x + self._activation_checkpoint_fn(self._attend, x)
        return x + self._attend(x)
"""
        ),
        Valid(
            """
from functools import partial

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

no_rng = partial(checkpoint, use_reentrant=False, preserve_rng_state=False)

class Mlp(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))

class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mlp = Mlp(dim)
        self.drop = nn.Dropout(0.1)
        self.ckpt = no_rng
        register_checkpoint_fn(partial(checkpoint, preserve_rng_state=False))

    def forward(self, x):
        x = self.ckpt(self.mlp, x)
        return self.drop(x)

    @torch.no_grad()
    def embed(self, x):
        return no_rng(self.drop, x)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper

class Block(nn.Module):
    def __init__(self, dim, dropout):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.proj(x))

class Transformer(nn.Module):
    def __init__(self, dim, depth, dropout):
        super().__init__()
        self.layers = nn.ModuleList(Block(dim, dropout) for _ in range(depth))

def apply_ac(model: Transformer):
    for i, block in enumerate(model.layers):
        model.layers[i] = checkpoint_wrapper(block, preserve_rng_state=False)  # TCK116
""",
            expected_replacement="""
import torch.nn as nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper

class Block(nn.Module):
    def __init__(self, dim, dropout):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.proj(x))

class Transformer(nn.Module):
    def __init__(self, dim, depth, dropout):
        super().__init__()
        self.layers = nn.ModuleList(Block(dim, dropout) for _ in range(depth))

def apply_ac(model: Transformer):
    for i, block in enumerate(model.layers):
        model.layers[i] = checkpoint_wrapper(block, preserve_rng_state=True)  # TCK116
""",
        ),
        Invalid(
            """
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

class Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dropout = config.attention_dropout
        self.qkv = nn.Linear(config.dim, 3 * config.dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0)

class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = Attention(config)

    def forward(self, x):
        return x + self.attention(x)

class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.layers)])

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False, preserve_rng_state=False)  # TCK116
        return x
""",
            expected_replacement="""
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

class Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dropout = config.attention_dropout
        self.qkv = nn.Linear(config.dim, 3 * config.dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0)

class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = Attention(config)

    def forward(self, x):
        return x + self.attention(x)

class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.layers)])

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False, preserve_rng_state=True)  # TCK116
        return x
""",
        ),
        Invalid(
            """
from functools import partial

import torch
import torch.nn as nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
    apply_activation_checkpointing,
    checkpoint_wrapper,
)

class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        keep = x.new_empty(x.shape[0], 1).bernoulli_(1 - self.p)
        return x * keep / (1 - self.p)

class Layer(nn.Module):
    def __init__(self, dim, drop_path):
        super().__init__()
        self.mlp = nn.Linear(dim, dim)
        self.drop_path = DropPath(drop_path)

    def forward(self, x):
        return x + self.drop_path(self.mlp(x))

def apply_ac(model):
    apply_activation_checkpointing(
        model,
        checkpoint_wrapper_fn=partial(checkpoint_wrapper, preserve_rng_state=False),  # TCK116
        check_fn=lambda module: isinstance(module, Layer),
    )
""",
            expected_replacement="""
from functools import partial

import torch
import torch.nn as nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
    apply_activation_checkpointing,
    checkpoint_wrapper,
)

class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        keep = x.new_empty(x.shape[0], 1).bernoulli_(1 - self.p)
        return x * keep / (1 - self.p)

class Layer(nn.Module):
    def __init__(self, dim, drop_path):
        super().__init__()
        self.mlp = nn.Linear(dim, dim)
        self.drop_path = DropPath(drop_path)

    def forward(self, x):
        return x + self.drop_path(self.mlp(x))

def apply_ac(model):
    apply_activation_checkpointing(
        model,
        checkpoint_wrapper_fn=partial(checkpoint_wrapper, preserve_rng_state=True),  # TCK116
        check_fn=lambda module: isinstance(module, Layer),
    )
"""
        ),
        Invalid(
            """
import torch
from torch.utils.checkpoint import checkpoint

def noisy_mlp(x, weight):
    return torch.nn.functional.dropout(x @ weight, p=0.1)

def forward(x, weight):
    keep_rng = False
    return checkpoint(noisy_mlp, x, weight, use_reentrant=False, preserve_rng_state=keep_rng)  # TCK116
""",
            expected_replacement="""
import torch
from torch.utils.checkpoint import checkpoint

def noisy_mlp(x, weight):
    return torch.nn.functional.dropout(x @ weight, p=0.1)

def forward(x, weight):
    keep_rng = False
    return checkpoint(noisy_mlp, x, weight, use_reentrant=False, preserve_rng_state=True)  # TCK116
"""
        ),
        Invalid(
            """
from functools import partial

import torch.nn as nn
from torch.utils.checkpoint import checkpoint

def activation_checkpoint_function():
    return partial(checkpoint, use_reentrant=False, preserve_rng_state=False)  # TCK116

class Block(nn.Module):
    def __init__(self, dim, dropout):
        super().__init__()
        self.att_proj = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(dropout)
        self._activation_checkpoint_fn = None

    def set_activation_checkpointing(self, enabled):
        self._activation_checkpoint_fn = activation_checkpoint_function() if enabled else None

    def _attend(self, x):
        return self.dropout(self.att_proj(x))

    def forward(self, x):
        if self._activation_checkpoint_fn is not None:
            return x + self._activation_checkpoint_fn(self._attend, x)
        return x + self._attend(x)
""",
            expected_replacement="""
from functools import partial

import torch.nn as nn
from torch.utils.checkpoint import checkpoint

def activation_checkpoint_function():
    return partial(checkpoint, use_reentrant=False, preserve_rng_state=True)  # TCK116

class Block(nn.Module):
    def __init__(self, dim, dropout):
        super().__init__()
        self.att_proj = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(dropout)
        self._activation_checkpoint_fn = None

    def set_activation_checkpointing(self, enabled):
        self._activation_checkpoint_fn = activation_checkpoint_function() if enabled else None

    def _attend(self, x):
        return self.dropout(self.att_proj(x))

    def forward(self, x):
        if self._activation_checkpoint_fn is not None:
            return x + self._activation_checkpoint_fn(self._attend, x)
        return x + self._attend(x)
""",
        ),
        Invalid(
            """
from functools import partial

import torch.nn as nn
from torch.utils.checkpoint import checkpoint

ckpt_fn = partial(checkpoint, use_reentrant=False, preserve_rng_state=False)  # TCK116

class Block(nn.Module):
    def __init__(self, dim, dropout):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.proj(x))

class Model(nn.Module):
    def __init__(self, dim, depth, dropout=0.1):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, dropout) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = ckpt_fn(block, x)
        return x
""",
            expected_replacement="""
from functools import partial

import torch.nn as nn
from torch.utils.checkpoint import checkpoint

ckpt_fn = partial(checkpoint, use_reentrant=False, preserve_rng_state=True)  # TCK116

class Block(nn.Module):
    def __init__(self, dim, dropout):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.proj(x))

class Model(nn.Module):
    def __init__(self, dim, depth, dropout=0.1):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, dropout) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = ckpt_fn(block, x)
        return x
""",
        ),
        Invalid(
            """
import functools

import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
    apply_activation_checkpointing,
    checkpoint_wrapper,
)

class Layer(nn.Module):
    def __init__(self, dim, attn_dropout):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.attn_dropout = attn_dropout

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=self.attn_dropout if self.training else 0.0)

class Model(nn.Module):
    def __init__(self, dim, depth, attn_dropout=0.1, checkpointing=True):
        super().__init__()
        wrapper = functools.partial(checkpoint_wrapper, preserve_rng_state=False)  # TCK116
        self.layers = nn.ModuleList()
        for _ in range(depth):
            layer = Layer(dim, attn_dropout)
            self.layers.append(wrapper(layer) if checkpointing else layer)

def apply_ac(model):
    wrapper_fn = functools.partial(checkpoint_wrapper, preserve_rng_state=False)  # TCK116
    apply_activation_checkpointing(model, checkpoint_wrapper_fn=wrapper_fn, check_fn=lambda m: isinstance(m, Layer))
""",
            expected_replacement="""
import functools

import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
    apply_activation_checkpointing,
    checkpoint_wrapper,
)

class Layer(nn.Module):
    def __init__(self, dim, attn_dropout):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.attn_dropout = attn_dropout

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=self.attn_dropout if self.training else 0.0)

class Model(nn.Module):
    def __init__(self, dim, depth, attn_dropout=0.1, checkpointing=True):
        super().__init__()
        wrapper = functools.partial(checkpoint_wrapper, preserve_rng_state=True)  # TCK116
        self.layers = nn.ModuleList()
        for _ in range(depth):
            layer = Layer(dim, attn_dropout)
            self.layers.append(wrapper(layer) if checkpointing else layer)

def apply_ac(model):
    wrapper_fn = functools.partial(checkpoint_wrapper, preserve_rng_state=True)  # TCK116
    apply_activation_checkpointing(model, checkpoint_wrapper_fn=wrapper_fn, check_fn=lambda m: isinstance(m, Layer))
""",
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
        reported: set[int] = set()  # one partial called in several places is one finding
        for checkpoint in self._checkpoints.resolved(reader):
            argument = checkpoint.preserve_rng_state
            if argument is None or argument.star or id(argument) in reported:
                continue
            if not is_false(argument.value, reader.binder) or reader.in_test_function(checkpoint.call):
                continue
            draws = random_draws(reader.region(checkpoint), reader)
            if draws:
                reported.add(id(argument))
                self._report(argument, min(draws, key=self.context.line_of), reader)

    def _report(self, argument: cst.Arg, draw: cst.Call, reader: RegionReader) -> None:
        name = reader.name_of(draw) or ""
        what = "uses dropout" if name in DROPOUT_LAYERS or name in DROPOUT_FUNCTIONS else "draws random numbers"
        message = _MESSAGE.format(what=what, draw=_one_line(draw), line=self.context.line_of(draw))
        self.report(argument, message, replacement=argument.with_changes(value=cst.Name("True")))


def _one_line(node: cst.CSTNode) -> str:
    text = " ".join(cst.Module(body=[]).code_for_node(node).split())
    return text if len(text) <= 60 else text[:57] + "..."
