from __future__ import annotations

import libcst as cst

from torchcheck.lint.edits import keyword, with_keyword_appended
from torchcheck.lint.nodes import has_star_kwargs, keyword_argument
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

_CHECKPOINT = frozenset({"torch.utils.checkpoint.checkpoint"})
_CHECKPOINT_SEQUENTIAL = frozenset({"torch.utils.checkpoint.checkpoint_sequential"})
# checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs): the flag
# can be passed positionally, and only exists there since PyTorch 2.0 (pytorch#86331).
_SEQUENTIAL_FLAG_POSITION = 3
_SEQUENTIAL_SINCE = (2, 0)

MESSAGE = "`{name}` without `use_reentrant=` is deprecated; pass `use_reentrant=False` (recommended) or `True`"


class CheckpointWithoutUseReentrant(Rule):
    """
    ## What it does
    Checks for calls to `torch.utils.checkpoint.checkpoint` and
    `torch.utils.checkpoint.checkpoint_sequential` that do not pass `use_reentrant=`.

    ## Why is this bad?
    Activation checkpointing has two implementations, and which one runs is decided by
    `use_reentrant`. Left out, it means the old reentrant one, and PyTorch warns on every
    call (since 2.1 for `checkpoint`, 2.2 for `checkpoint_sequential`) that the argument
    must be passed explicitly and that leaving it out will become an error. The PyTorch
    documentation recommends `use_reentrant=False`: the non-reentrant variant works with
    `torch.autograd.grad`, with keyword arguments to the checkpointed function, with inputs
    that do not require gradients and with tensors inside nested structures. Pass
    `use_reentrant=True` only to keep the old behaviour on purpose.

    Calls that pass `**kwargs` (which may carry `use_reentrant`) are not reported, nor are
    calls in fallback code for old PyTorch versions (an `except` handler, or an `if` on the
    version). Only calls that resolve to PyTorch's functions are reported, so a project's
    own `checkpoint` wrapper is left alone; the flag is not tracked through
    `functools.partial`. With a `target-version` older than 2.0, `checkpoint_sequential` is
    not reported: it has no `use_reentrant` argument before PyTorch 2.0.

    ## Example
    ```python
    from torch.utils.checkpoint import checkpoint

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x)
        return x
    ```

    Use instead:
    ```python
    from torch.utils.checkpoint import checkpoint

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False)
        return x
    ```

    ## Fix safety
    The fix adds `use_reentrant=False`. It is unsafe because it switches implementations,
    which behave differently: the reentrant variant runs the forward pass under
    `torch.no_grad()` and gives the checkpointed part's parameters no gradients when no
    input tensor requires grad (the non-reentrant variant computes them, so training
    changes); it raises on keyword arguments meant for the checkpointed function, on
    tensors detached inside the region and on `torch.autograd.grad`, while the
    non-reentrant variant accepts all of these; and the non-reentrant variant stops
    recomputing early and relies on saved-tensor hooks, which can interact differently with
    other code that installs such hooks or assumes reentrant backward. Review and test the
    change, or pass `use_reentrant=True` to keep today's behaviour. The fix is not offered
    when `**kwargs` or `*args` could already supply the flag.

    ## References
    - [`torch.utils.checkpoint`](https://pytorch.org/docs/stable/checkpoint.html)
    - [pytorch#100551: warn if `use_reentrant` is not passed explicitly](https://github.com/pytorch/pytorch/pull/100551)
    - [pytorch#114158: `checkpoint_sequential` warns if `use_reentrant` is not passed](https://github.com/pytorch/pytorch/pull/114158)
    """

    code = "TCK906"
    name = "checkpoint-without-use-reentrant"
    message = "`torch.utils.checkpoint` without `use_reentrant=` is deprecated; pass `use_reentrant=False`"
    fix_title = "Pass `use_reentrant=False`"
    fix_safety = FixSafety.UNSAFE
    required_text = ("checkpoint",)
    requires_torch = (1, 11)
    torchfix_codes = ("TOR003",)

    VALID = (
        Valid(
            """
import torch
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
def forward(self, x):
    x = checkpoint(self.block, x, use_reentrant=False)
    x = torch.utils.checkpoint.checkpoint(self.block, x, preserve_rng_state=False, use_reentrant=True)
    return checkpoint_sequential(self.layers, 2, x, use_reentrant=False)
"""
        ),
        Valid(
            """
from torch.utils.checkpoint import checkpoint
def checkpoint_func(function, *args, **kwargs):
    with save_on_cpu(pin_memory=True):
        return checkpoint(function, *args, **kwargs)
"""
        ),
        Valid(
            """
import functools
from torch.utils.checkpoint import checkpoint
ckpt = functools.partial(checkpoint, use_reentrant=False)
gradient_checkpointing_func = functools.partial(checkpoint, **gradient_checkpointing_kwargs)
def forward(self, x):
    return ckpt(self.block, x)
"""
        ),
        Valid(
            """
import torch
from timm.models._manipulate import checkpoint
def forward_features(self, x):
    for blk in self.blocks:
        x = checkpoint(blk, x)  # timm's wrapper picks use_reentrant itself
    return x
"""
        ),
        Valid(
            """
import torch.utils.checkpoint as cp
def run(function, x, use_reentrant):
    try:
        return cp.checkpoint(function, x, use_reentrant=use_reentrant)
    except TypeError:  # PyTorch < 1.11 has no use_reentrant
        return cp.checkpoint(function, x)
"""
        ),
        Valid(
            """
from torch.utils.checkpoint import checkpoint_sequential
def forward(self, x, flags):
    y = checkpoint_sequential(self.layers, 4, x, False)
    return checkpoint_sequential(self.layers, 4, y, *flags)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch.utils.checkpoint import checkpoint
def forward(self, x):
    for block in self.blocks:
        x = checkpoint(block, x)  # TCK906
    return x
""",
            expected_replacement="""
from torch.utils.checkpoint import checkpoint
def forward(self, x):
    for block in self.blocks:
        x = checkpoint(block, x, use_reentrant=False)  # TCK906
    return x
""",
        ),
        Invalid(
            """
import torch
import torch.utils.checkpoint as cp
def forward(self, x, mask):
    x = cp.checkpoint(self.attn, x, mask, preserve_rng_state=False)  # TCK906
    x = torch.utils.checkpoint.checkpoint(  # TCK906
        self.mlp,
        x,
    )
    return cp.checkpoint_sequential(self.head, 2, x)  # TCK906
""",
            expected_replacement="""
import torch
import torch.utils.checkpoint as cp
def forward(self, x, mask):
    x = cp.checkpoint(self.attn, x, mask, preserve_rng_state=False, use_reentrant=False)  # TCK906
    x = torch.utils.checkpoint.checkpoint(  # TCK906
        self.mlp,
        x,
        use_reentrant=False,
    )
    return cp.checkpoint_sequential(self.head, 2, x, use_reentrant=False)  # TCK906
""",
        ),
        Invalid(
            """
from torch.utils.checkpoint import checkpoint as ckpt
def forward(self, *inputs):
    return ckpt(  # TCK906
        self.custom(self.module), *inputs
    )
""",
            expected_replacement="""
from torch.utils.checkpoint import checkpoint as ckpt
def forward(self, *inputs):
    return ckpt(  # TCK906
        self.custom(self.module), *inputs, use_reentrant=False
    )
""",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.call_name(node)
        if qualified in _CHECKPOINT:
            supplied = False
        elif qualified in _CHECKPOINT_SEQUENTIAL:
            if not self.context.settings.has_torch_api(_SEQUENTIAL_SINCE):
                return
            supplied = _flag_maybe_positional(node)
        else:
            return
        if supplied or keyword_argument(node, "use_reentrant") is not None or has_star_kwargs(node):
            return
        if self.context.in_compatibility_code:
            return  # a fallback for PyTorch versions without `use_reentrant`
        name = qualified.rsplit(".", 1)[-1]
        replacement = with_keyword_appended(node, keyword("use_reentrant", cst.Name("False")))
        self.report(node, MESSAGE.format(name=name), replacement=replacement)


def _flag_maybe_positional(call: cst.Call) -> bool:
    """Whether ``checkpoint_sequential``'s fourth positional argument (the flag) may be given."""
    positional = [argument for argument in call.args if argument.keyword is None and argument.star != "**"]
    return len(positional) > _SEQUENTIAL_FLAG_POSITION or any(argument.star == "*" for argument in positional)
