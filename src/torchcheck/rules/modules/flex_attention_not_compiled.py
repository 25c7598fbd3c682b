from __future__ import annotations

import libcst as cst

from torchcheck.lint.nodes import dotted_name
from torchcheck.lint.project import COMPILES, NO, PROJECT, THIS_FILE, YES, Condition
from torchcheck.lint.rule import Invalid, Rule, Valid

FLEX_ATTENTION = "torch.nn.attention.flex_attention.flex_attention"
_COMPILERS = frozenset({"torch.compile", "torch.compiler.compile", "torch._dynamo.optimize"})
_MESSAGE = (
    "flex_attention runs uncompiled here: the eager path materialises the full B×H×Q×KV scores "
    "(O(L²) memory); wrap it with torch.compile or compile the module"
)
# The finding stands only if no file of the project compiles anything: a compiled model or
# block of another file may reach this call, and its type is not known there.
_NOTHING_COMPILED = Condition(THIS_FILE, f"{PROJECT}:{COMPILES}:{YES}", NO)


class FlexAttentionNotCompiled(Rule):
    """
    ## What it does
    Checks for calls of `torch.nn.attention.flex_attention.flex_attention` that no
    `torch.compile` covers: the function called is not a compiled alias, the function around
    the call is not `@torch.compile`-decorated, and nothing in the project is compiled
    (compiling `flex_attention` itself covers only the calls of that compiled alias).

    The rule is opt-in: on 36 public training repositories one of its two findings was a parity script that runs eager `flex_attention` on purpose.

    ## Why is this bad?
    Outside `torch.compile`, `flex_attention` runs a reference implementation built from
    vmapped ops: it materialises the full `B×H×Q×KV` score matrix and ignores the
    `BlockMask`'s sparsity. Sequence lengths the fused kernel handles run out of memory, and
    training is many times slower. Compile the function once (`flex_attention =
    torch.compile(flex_attention)`) or compile the model that calls it.

    A `torch.compile` anywhere in the project silences the rule: a compiled model or block
    of another file may reach the call. Test code, which compares the eager path on purpose,
    is not checked.

    ## Example
    ```python
    from torch.nn.attention.flex_attention import flex_attention


    def attend(q, k, v, block_mask):
        return flex_attention(q, k, v, block_mask=block_mask)
    ```

    Use instead:
    ```python
    import torch
    from torch.nn.attention.flex_attention import flex_attention

    compiled_flex_attention = torch.compile(flex_attention)


    def attend(q, k, v, block_mask):
        return compiled_flex_attention(q, k, v, block_mask=block_mask)
    ```

    ## Fix safety
    There is no automatic fix: where to compile (the function, a block, the whole model) is
    the author's choice.

    ## References
    - [`torch.nn.attention.flex_attention`](https://pytorch.org/docs/stable/nn.attention.flex_attention.html)
    - [meta-pytorch/attention-gym#165: eager flex_attention is a vmap-based implementation using O(seq_len²) memory](https://github.com/meta-pytorch/attention-gym/issues/165)
    - [pytorch/pytorch#152528: flex attention does not use the mask's sparsity unless compiled](https://github.com/pytorch/pytorch/issues/152528)
    - [pytorch/pytorch#136261: "Flex Attention Extremely Slow" in eager mode](https://github.com/pytorch/pytorch/issues/136261)
    """

    code = "TCK918"
    name = "flex-attention-not-compiled"
    default_enabled = False
    message = "flex_attention runs uncompiled: the eager path materialises the full score matrix"
    required_text = ("flex_attention",)
    applies_in_tests = False

    VALID = (
        Valid(
            """
import torch
from torch.nn.attention.flex_attention import flex_attention

flex_attention = torch.compile(flex_attention)

def attend(q, k, v, block_mask):
    return flex_attention(q, k, v, block_mask=block_mask)
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn
from torch.nn.attention.flex_attention import flex_attention

class FlexAttention(nn.Module):
    flex_attn = torch.compile(flex_attention, mode="max-autotune-no-cudagraphs")

    def forward(self, q, k, v, block_mask):
        return self.flex_attn(q, k, v, block_mask=block_mask)
"""
        ),
        Valid(
            """
import torch
from torch.nn.attention.flex_attention import flex_attention

@torch.compile
def attn(q, k, v, bm):
    return flex_attention(q, k, v, block_mask=bm)
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn
from torch.nn.attention.flex_attention import flex_attention

class Attention(nn.Module):
    def forward(self, q, k, v, block_mask):
        return flex_attention(q, k, v, block_mask=block_mask)

model = torch.compile(build_model())
"""
        ),
        Valid(
            """
from torch.nn.attention.flex_attention import create_block_mask

block_mask = create_block_mask(causal, B=None, H=None, Q_LEN=1024, KV_LEN=1024)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from torch.nn.attention.flex_attention import flex_attention

compiled_flex_attention = torch.compile(flex_attention)

def attend(q, k, v, block_mask):
    return compiled_flex_attention(q, k, v, block_mask=block_mask)

def attend_with_scores(q, k, v, score_mod):
    return flex_attention(q, k, v, score_mod=score_mod)  # TCK918
"""
        ),
        Invalid(
            """
from torch.nn.attention.flex_attention import flex_attention

def attend(q, k, v, block_mask):
    return flex_attention(q, k, v, block_mask=block_mask)  # TCK918
"""
        ),
        Invalid(
            """
import torch.nn as nn
import torch.nn.attention.flex_attention as fa

class Attention(nn.Module):
    def forward(self, x, block_mask):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return fa.flex_attention(q, k, v, block_mask=block_mask, enable_gqa=True)  # TCK918
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.call_name(node) != FLEX_ATTENTION or self._in_compiled_function(node):
            return
        self.report(node, _MESSAGE, conditions=(_NOTHING_COMPILED,))

    def _in_compiled_function(self, call: cst.Call) -> bool:
        """A function around the call is decorated with ``torch.compile``."""
        functions = [node for node in self.context.binder.ancestors(call) if isinstance(node, cst.FunctionDef)]
        return any(self._compiles(decorator.decorator) for function in functions for decorator in function.decorators)

    def _compiles(self, decorator: cst.BaseExpression) -> bool:
        target = decorator.func if isinstance(decorator, cst.Call) else decorator
        return self.context.qualified_name(target) in _COMPILERS or dotted_name(target) in ("torch.compile", "compile")
