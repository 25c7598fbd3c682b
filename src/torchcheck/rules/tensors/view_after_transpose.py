from __future__ import annotations

import functools
from typing import NamedTuple

import libcst as cst

from torchcheck.lint import layouts, references, torch_api
from torchcheck.lint.flow import BoundName
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import argument_for, dotted_name, integer_literal, is_none, method_call, self_attribute
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid


class _UnitDims(NamedTuple):
    """The dimensions of a tensor known from the code to have size 1 (``unsqueeze(0)``,
    ``x[:, None]``, ``view(1, -1)``), with its rank when known. With the rank unknown an
    index may count from the front (``0``) or from the back (``-1``)."""

    rank: int | None
    units: frozenset[int] = frozenset()

    def position(self, dim: int) -> int:
        """``dim`` counted from the front when the rank is known."""
        return dim + self.rank if self.rank is not None and dim < 0 else dim

    def inserted(self, dim: int) -> _UnitDims:
        """After ``unsqueeze(dim)``. The new dimension sits at ``dim``; the known ones at or
        beyond it, counted from the same end as ``dim``, move one further from that end."""
        rank = self.rank + 1 if self.rank is not None else None
        step = 1 if (at := _UnitDims(rank).position(dim)) >= 0 else -1
        return _UnitDims(rank, frozenset({unit + step if (unit - at) * step >= 0 else unit for unit in self.units} | {at}))

    def removed(self, dim: int) -> _UnitDims:
        """After ``squeeze(dim)`` of a dimension the code knows has size 1: the known ones
        beyond it, counted from the same end as ``dim``, move one closer to that end."""
        step = 1 if (at := self.position(dim)) >= 0 else -1
        rank = self.rank - 1 if self.rank is not None else None
        return _UnitDims(rank, frozenset(unit - step if (unit - at) * step > 0 else unit for unit in self.units if unit != at))

    def swaps_a_unit(self, swapped: tuple[int, int]) -> bool:
        """Whether a transpose of these two dimensions swaps neighbours one of which has size 1."""
        first, second = (self.position(dim) for dim in swapped)
        return abs(first - second) == 1 and (first < 0) == (second < 0) and any(self.position(dim) in self.units for dim in (first, second))


_SWAPPING_METHODS = frozenset({"transpose", "swapaxes", "swapdims"})
# The dimensions each transposing attribute swaps, and whether it tells the rank (`.T` and
# `.H` are 2-D: deprecated on other ranks).
_TRANSPOSING_ATTRIBUTES = {"T": ((0, 1), True), "H": ((0, 1), True), "mT": ((-2, -1), False), "mH": ((-2, -1), False)}

# Methods whose result has the strides of their receiver (PyTorch 2.13, checked on a permuted
# 4-D tensor: elementwise results keep its memory order, and `clone()` preserves it too),
# given literal arguments. `softmax`, `contiguous`, `reshape`, `matmul` and `torch.cat`
# return contiguous results and are not here.
_KEEPS_STRIDES = frozenset(
    {"float", "double", "half", "bfloat16", "abs", "neg", "exp", "log", "sigmoid", "tanh", "relu", "sqrt", "rsqrt", "sign"}
    | {"clone", "detach", "eq", "ne", "gt", "lt", "ge", "le", "mul", "add", "sub", "div", "pow", "clamp"}
    | {"masked_fill", "masked_fill_", "clamp_min", "clamp_max", "type_as"}  # a copy in the memory order of its input
)
# How many earlier statements a layout is followed back through.
_MAX_STATEMENTS = 8
# Methods and functions whose result has the shape of their (first) tensor.
_KEEPS_SHAPE_METHODS = _KEEPS_STRIDES | {"contiguous"}
_KEEPS_SHAPE_FUNCTIONS = frozenset(
    {f"torch.{name}" for name in ("tanh", "sigmoid", "relu", "exp", "abs", "neg", "sqrt")}
    | {f"torch.nn.functional.{name}" for name in ("tanh", "sigmoid", "relu", "leaky_relu", "gelu", "silu", "elu", "dropout")}
)
# Layers that produce one channel (``nn.Conv1d(channels, 1, ...)``): the size-1 dimension of
# their (batched) output; nn.Linear's is the last.
_ONE_CHANNEL_LAYERS = {f"torch.nn.{kind}{n}d": _UnitDims(n + 2, frozenset({1})) for kind in ("Conv", "ConvTranspose") for n in (1, 2, 3)}
_ONE_CHANNEL_LAYERS["torch.nn.Linear"] = _UnitDims(None, frozenset({-1}))


class ViewAfterTranspose(Rule):
    """
    ## What it does
    Checks for `.view(...)` applied directly to the result of `.transpose(...)`,
    `.permute(...)`, `.T` or `.mT` that merges dimensions the transpose separated in
    memory: fewer output dimensions than runs of memory-adjacent dimensions, or a trailing
    `-1` that merges the dimensions after a transposed pair (`(B, H, T, D)` transposed to
    `(B, T, H, D)` and viewed as `(B, T, -1)`). Views that only split dimensions, or merge
    dimensions that stay adjacent, are valid and not reported. Where every size of the view
    is a name, a number or a product of them (`view(N * K, H, W, 2)`), a product of `k`
    factors takes the next `k` dimensions of a literal permutation (also of a
    `transpose(i, j)`, the rank being the count of those factors), so a product over
    dimensions the permutation separated is reported even when the count of dimensions
    does not show it.

    The transposed value is followed through operations that keep its strides - elementwise
    methods and arithmetic where it is the first operand (`* 2`, `.float()`, `.eq(0)`,
    `.eq(target.expand_as(pred))`, `a + b`, `.relu()`, `.masked_fill(...)`, `.clone()`, which preserves the memory
    order: PyTorch gives an elementwise result the memory order of its first operand),
    `expand_as`, basic slicing (`a[:, 1:]`) - and through
    earlier statements of the same function that bound the names it reads
    (`a = x.transpose(1, 2)`, `b = a * 2`, then `b.view(...)`). `.contiguous()`, `.reshape()`,
    `softmax`, a matrix product or `torch.cat` in between return contiguous results. Where
    bindings on different branches may reach the view, one path is enough: `pred =
    outputs.unsqueeze(0)` on one branch and `pred = pred.t()` on the other, then
    `correct[:k].view(-1)`, fails on the second.

    A literal `1` in the view adds an empty dimension where the code shows the input has no
    dimension of size 1 (`torch.arange(8).view(2, 4).t().view(1, 8)` merges both).

    Swapping two neighbouring dimensions one of which has size 1 keeps the memory order,
    so nothing is reported where the code shows that size: `unsqueeze(d)`, a `None` index
    (`x[:, None]`), a literal `1` in a `view`/`reshape`, a `squeeze(d)` that shifts such a
    dimension, or the output of a one-channel layer the class builds (`nn.Conv1d(c, 1, ...)`,
    `nn.Linear(d, 1)`), followed through shape-keeping functions (`torch.tanh`, `F.leaky_relu`).

    ## Why is this bad?
    Transposing does not move data; it returns a non-contiguous view with swapped strides.
    `.view()` never copies, so whenever the new shape merges dimensions that are no longer
    adjacent in memory it raises `RuntimeError: view size is not compatible with input
    tensor's size and stride`, often only for some input shapes. (It works when a merged
    dimension has size 1, or when the input's memory layout was already transposed, as
    for a channels-last tensor: invariants the call site usually does not show.) `.reshape()` returns a view
    when it can and copies when it must; `.contiguous().view()` copies explicitly.

    ## Example
    ```python
    out = attn.transpose(1, 2).view(batch, seq_len, -1)
    ```

    Use instead:
    ```python
    out = attn.transpose(1, 2).reshape(batch, seq_len, -1)
    ```

    ## Fix safety
    The fix renames `view` to `reshape`. It is safe: where `view` works, `reshape` returns
    the same view without copying; where `view` raises, `reshape` copies.

    ## References
    - [`torch.Tensor.view`](https://pytorch.org/docs/stable/generated/torch.Tensor.view.html)
    - [`torch.reshape`](https://pytorch.org/docs/stable/generated/torch.reshape.html)
    - [Tensor views](https://pytorch.org/docs/stable/tensor_view.html)
    """

    code = "TCK705"
    name = "view-after-transpose"
    message = "`.view()` merges dimensions that the transpose made non-adjacent in memory; it raises unless a merged dimension has size 1; use `.reshape()`"
    fix_title = "Use `.reshape()`"
    fix_safety = FixSafety.SAFE
    required_text = (".view(",)

    VALID = (
        Valid(
            """
def mask_padding(attn_weights, key_padding_mask, bsz, num_heads, tgt_len, src_len, on_tpu):
    attn_weights = attn_weights.view(bsz, num_heads, tgt_len, src_len)
    if on_tpu:
        attn_weights = attn_weights.transpose(0, 2)
        attn_weights = attn_weights.masked_fill(key_padding_mask, float("-inf"))
        attn_weights = attn_weights.transpose(0, 2)
    else:
        attn_weights = attn_weights.masked_fill(key_padding_mask[:, None, None], float("-inf"))
    return attn_weights.view(bsz * num_heads, tgt_len, src_len)
"""
        ),
        Valid(
            """
def accuracy(outputs, targets, topk=(1,)):
    if outputs.dim() == 1:
        pred = outputs.unsqueeze(0)
    else:
        _, pred = outputs.topk(max(topk), 1, True, True)
        pred = pred.t().contiguous()
    correct = pred.eq(targets.view(1, -1).expand_as(pred))
    return [correct[:k].view(-1).float().sum(0) for k in topk]
"""
        ),
        Valid(
            """
out = attn.transpose(1, 2).contiguous().view(batch, seq_len, -1)
flat = x.permute(0, 2, 1).reshape(batch, -1)
heads = x.view(batch, seq_len, n_heads, head_dim).transpose(1, 2)
"""
        ),
        Valid(
            """
import numpy as np
import torch
raw = array.T.view(np.uint8)
bits = x.transpose(0, 1).view(torch.int16)
same = x.transpose(0, 1).view(dtype=torch.float16)
"""
        ),
        Valid(
            """
def to_image(hidden_states, batch_size, embed_dim, height, width):
    # splitting a dimension is always a valid view
    return hidden_states.transpose(1, 2).view(batch_size, embed_dim, height, width)
"""
        ),
        Valid(
            """
def interpolate_pos_encoding(patch_pos_embed, dim):
    # (1, dim, h, w) -> (1, h, w, dim): h and w stay adjacent in memory, so merging them is valid
    return patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
"""
        ),
        Valid(
            """
def project(self, value, query, bsz, tgt_len, feat, feat_size):
    value = value.transpose(1, 2).view(bsz, tgt_len, self.num_heads, self.head_dim)
    weights = self.static_weight.float().T.view(self.num_heads, -1, self.kernel_size)
    grid = feat.permute(1, 2, 0).view(bsz, -1, *feat_size)
    windows = query.permute(0, 2, 3, 1).view(shape)
    return value, weights, grid, windows
"""
        ),
        Valid(
            """
def first_operand_decides(scale, pred, batch):
    # a contiguous first operand gives the result its memory order; a matrix product is contiguous
    weighted = scale * pred.t()
    product = pred.t() @ scale
    return weighted.view(batch, -1), product.view(-1)
"""
        ),
        Valid(
            """
def grouped_queries(q, kv_bsz, num_heads):
    q = q.view(-1, kv_bsz * num_heads, 16).transpose(0, 1)
    return q.view((kv_bsz, -1, num_heads) + q.size()[1:])
"""
        ),
        Valid(
            """
import torch

def merge(x, y, batch, masked):
    a = x.permute(0, 2, 1, 3)
    b = a.contiguous()
    b.view(batch, -1)
    c = a.softmax(-1)
    c.view(batch, -1)
    d = torch.cat([a, a])
    d.view(batch, -1)
    e = a @ y
    e.view(batch, -1)
    f = a[:, 0]
    f.view(batch, -1)
"""
        ),
        Valid(
            """
import torch
from torch import nn

class Vocoder(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv_post = nn.Conv1d(channels, 1, kernel_size=7, padding=3)

    def forward(self, hidden_states):
        hidden_states = torch.tanh(self.conv_post(hidden_states))  # (1, 1, T)
        return hidden_states.squeeze(0).transpose(1, 0).view(-1)

def size_one_neighbours(x, wave, tokens, batch):
    a = x.unsqueeze(1).transpose(1, 2).view(batch, -1)
    b = wave[None].transpose(0, 1).view(-1)
    c = tokens[..., None].transpose(-1, -2).view(batch, -1)
    d = x.view(1, -1).t().view(-1)
    return a, b, c, d
"""
        ),
        Valid(
            """
def to_tokens(feature_map, B, C, H, W):
    return feature_map.permute(0, 2, 3, 1).view(B, H * W, C)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn.functional as F

def attend(self, q, k, v, batch, patches):
    if self.fused:
        out = self.fused_attention(q, k, v)
    else:
        out = F.scaled_dot_product_attention(q, k, v)
        out = out.transpose(1, 2)
    return out.view(batch, patches, self.n_heads * self.head_dim)  # TCK705
""",
            expected_replacement="""
import torch.nn.functional as F

def attend(self, q, k, v, batch, patches):
    if self.fused:
        out = self.fused_attention(q, k, v)
    else:
        out = F.scaled_dot_product_attention(q, k, v)
        out = out.transpose(1, 2)
    return out.reshape(batch, patches, self.n_heads * self.head_dim)  # TCK705
""",
        ),
        Invalid(
            """
def accuracy(outputs, targets, topk=(1,)):
    if outputs.dim() == 1:
        pred = outputs.unsqueeze(0)
    else:
        _, pred = outputs.topk(max(topk), 1, True, True)
        pred = pred.t()
    correct = pred.eq(targets.view(1, -1).expand_as(pred))
    return [correct[:k].view(-1).float().sum(0) for k in topk]  # TCK705
""",
            expected_replacement="""
def accuracy(outputs, targets, topk=(1,)):
    if outputs.dim() == 1:
        pred = outputs.unsqueeze(0)
    else:
        _, pred = outputs.topk(max(topk), 1, True, True)
        pred = pred.t()
    correct = pred.eq(targets.view(1, -1).expand_as(pred))
    return [correct[:k].reshape(-1).float().sum(0) for k in topk]  # TCK705
""",
        ),
        Invalid(
            """
def sample_texture(pixel_uvs, pix_to_face):
    N, H_out, W_out, K = pix_to_face.shape
    return pixel_uvs.permute(0, 3, 1, 2, 4).view(N * K, H_out, W_out, 2)  # TCK705
""",
            expected_replacement="""
def sample_texture(pixel_uvs, pix_to_face):
    N, H_out, W_out, K = pix_to_face.shape
    return pixel_uvs.permute(0, 3, 1, 2, 4).reshape(N * K, H_out, W_out, 2)  # TCK705
""",
        ),
        Invalid(
            """
def merge_heads(attn, mask, batch, seq_len):
    context = attn.transpose(1, 2)
    scaled = context * 0.5
    scaled.view(batch, seq_len, -1)  # TCK705
    keep = context.float().eq(0).expand_as(mask)
    keep.view(batch, -1)  # TCK705
    copy = context[:, 1:].clone()
    return copy.view(batch, -1)  # TCK705
""",
            expected_replacement="""
def merge_heads(attn, mask, batch, seq_len):
    context = attn.transpose(1, 2)
    scaled = context * 0.5
    scaled.reshape(batch, seq_len, -1)  # TCK705
    keep = context.float().eq(0).expand_as(mask)
    keep.reshape(batch, -1)  # TCK705
    copy = context[:, 1:].clone()
    return copy.reshape(batch, -1)  # TCK705
""",
        ),
        Invalid(
            """
def merge_heads(attn, batch, seq_len):
    return attn.transpose(1, 2).view(batch, seq_len, -1)  # TCK705
""",
            expected_replacement="""
def merge_heads(attn, batch, seq_len):
    return attn.transpose(1, 2).reshape(batch, seq_len, -1)  # TCK705
""",
        ),
        Invalid(
            """
import torch
x = torch.randn(2, 3, 4)
flat = x.permute(2, 0, 1).view(-1)  # TCK705
rows = x.mT.view(x.size(0), -1)  # TCK705
""",
            expected_replacement="""
import torch
x = torch.randn(2, 3, 4)
flat = x.permute(2, 0, 1).reshape(-1)  # TCK705
rows = x.mT.reshape(x.size(0), -1)  # TCK705
""",
        ),
        Invalid(
            """
from torch import nn

class Vocoder(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv_mid = nn.Conv1d(channels, channels, kernel_size=7, padding=3)

    def forward(self, hidden_states, x, batch):
        wave = self.conv_mid(hidden_states).squeeze(0).transpose(1, 0).view(-1)  # TCK705
        return wave, x.unsqueeze(1).transpose(0, 2).view(batch, -1)  # TCK705
""",
            expected_replacement="""
from torch import nn

class Vocoder(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv_mid = nn.Conv1d(channels, channels, kernel_size=7, padding=3)

    def forward(self, hidden_states, x, batch):
        wave = self.conv_mid(hidden_states).squeeze(0).transpose(1, 0).reshape(-1)  # TCK705
        return wave, x.unsqueeze(1).transpose(0, 2).reshape(batch, -1)  # TCK705
""",
        ),
        Invalid(
            """
import torch

def accuracy(output, target, topk=(1,)):
    _, pred = output.topk(max(topk), 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    return [correct[:k].view(-1).float().sum(0) for k in topk]  # TCK705

image = torch.arange(8, dtype=torch.float32).view(2, 4)
rotated = image.transpose(0, 1)
flat = rotated.view(1, 8)  # TCK705
""",
            expected_replacement="""
import torch

def accuracy(output, target, topk=(1,)):
    _, pred = output.topk(max(topk), 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    return [correct[:k].reshape(-1).float().sum(0) for k in topk]  # TCK705

image = torch.arange(8, dtype=torch.float32).view(2, 4)
rotated = image.transpose(0, 1)
flat = rotated.reshape(1, 8)  # TCK705
""",
        ),
        Invalid(
            """
class Attention:
    def forward(self, context, batch, seq_len):
        context = context.permute(0, 2, 1, 3).view(batch, seq_len, self.all_head_size)  # TCK705
        pixels = self.proj(context).permute([0, 2, 3, 1]).view((-1, self.channels))  # TCK705
        return pixels
""",
            expected_replacement="""
class Attention:
    def forward(self, context, batch, seq_len):
        context = context.permute(0, 2, 1, 3).reshape(batch, seq_len, self.all_head_size)  # TCK705
        pixels = self.proj(context).permute([0, 2, 3, 1]).reshape((-1, self.channels))  # TCK705
        return pixels
""",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "view" or not node.args:
            return
        runs, rank_known, without_units, transposed = self._layout(func.value, None, _MAX_STATEMENTS) or (0, True, False, None)
        # (fewer than two runs: not a transpose, or the identity permutation)
        dimensions = self._view_dimensions(node, without_units) if runs >= 2 else None
        # Splitting a dimension and merging dimensions within one run of memory-adjacent
        # dimensions keep a valid view: only fewer output dimensions than runs must merge
        # across runs. With the rank unknown, a trailing `-1` as the last of exactly that
        # many dimensions merges the dimensions the rank hides (`(B, T, H, D) -> (B, T, -1)`).
        merges_hidden = not rank_known and dimensions == runs and integer_literal(node.args[-1].value) == -1
        # `x.permute(0, 3, 1, 2, 4).view(N * K, H, W, 2)`: 0 and 3 merged; `out.transpose(1, 2)` then `out.view(B, T, H * D)`
        order = layouts.permutation(transposed or func.value, layouts.view_rank(node))
        if dimensions is not None and (dimensions < runs or merges_hidden) or (order is not None and layouts.view_merges_separated(order, node)):
            self.report(node, replacement=cst.Name("reshape"), replace_target=func.attr)

    def _assignment(self, name: cst.Name, reader: BoundName | None) -> tuple[cst.BaseExpression, BoundName] | None:
        """The value of the ``name = value`` statement that ``name`` surely holds where ``reader``
        (or the walk) reads it, and that binding (the reader of the names the value reads)."""
        binding = self.context.flow.reaching_binding(name.value, reader)
        return (binding.value, binding) if binding is not None and binding.value is not None and isinstance(binding.node, cst.Assign) else None

    def _layout(self, expression: cst.BaseExpression, reader: BoundName | None, budget: int) -> tuple[int, bool, bool, cst.BaseExpression] | None:
        """The least number of runs of memory-adjacent dimensions of ``expression``, whether
        its rank is known, whether the code shows it has no dimension of size 1, and the
        transposing call, when it
        is a transpose of a tensor taken as contiguous - directly, or through elementwise
        operations, basic slicing and the earlier statements that bound the names it reads
        (``a = x.transpose(1, 2); b = a * 2``); None when not known to be one."""
        if (transpose := _transpose(expression)) is not None:
            source, (runs, rank_known), swapped = transpose
            # Swapping a size-1 dimension with its neighbour keeps the memory order
            # (``x.unsqueeze(1).transpose(1, 2)``): the result is still contiguous, any view of it
            # works. The layout of a transpose of a transpose is not followed.
            shape = self._unit_dims(source, reader, budget - 1) if budget > 0 else None
            swaps_a_unit = swapped is not None and shape is not None and shape.swaps_a_unit(swapped)
            without_units = shape is not None and shape.rank is not None and not shape.units
            transposed_twice = budget > 0 and self._layout(source, reader, budget - 1) is not None
            return None if swaps_a_unit or transposed_twice else (runs, rank_known, without_units, expression)
        if budget == 0:
            return None
        if isinstance(expression, cst.Name):
            # one path is enough: `pred = outputs.t()` on one branch, `pred = pred.t()` on the other
            reaching = {id(binding.node) for binding in self.context.binder.reaching(expression)}
            bindings = [  # not on the other arm of an `if` around the read, nor replaced before it
                binding for binding in self.context.flow.reaching_bindings(expression.value, reader)
                if not references.on_other_branch(self.context.binder, binding.node, expression) and id(binding.node) in reaching
            ]
            layouts = [self._layout(value, binding, budget - 1) for binding in bindings if (value := binding.value) is not None and isinstance(binding.node, cst.Assign)]
            return max(filter(None, layouts), default=None, key=lambda layout: layout[0])
        source = self._strides_source(expression)
        layout = self._layout(source, reader, budget - 1) if source is not None else None
        # expand_as may add leading dimensions: only the strict comparison stays sound
        expands = layout is not None and (method_call(expression) or (None, ""))[1] == "expand_as"
        return (layout[0], True, False, layout[3]) if expands else layout  # type: ignore[index]

    def _unit_dims(self, expression: cst.BaseExpression, reader: BoundName | None, budget: int) -> _UnitDims | None:
        """What the code shows about the size-1 dimensions of ``expression``, following the
        names it reads back through earlier statements; None when it shows nothing."""
        if budget == 0:
            return None
        if isinstance(expression, cst.Name):
            return self._unit_dims(*assigned, budget - 1) if (assigned := self._assignment(expression, reader)) else None
        if isinstance(expression, cst.Subscript):
            return self._indexed_unit_dims(expression, reader, budget)
        if not isinstance(expression, cst.Call):
            return None
        receiver, method = method_call(expression) or (None, "")
        literals = [integer_literal(argument.value) for argument in expression.args if not argument.star and argument.keyword is None]
        if len(literals) == len(expression.args):
            if method in ("view", "reshape") and literals and None not in literals:
                return _UnitDims(len(literals), frozenset(index for index, size in enumerate(literals) if size == 1))
            if method in ("unsqueeze", "squeeze") and len(literals) == 1 and literals[0] is not None:
                known = self._unit_dims(receiver, reader, budget - 1)
                if method == "unsqueeze":
                    return (known or _UnitDims(None)).inserted(literals[0])
                return known.removed(literals[0]) if known is not None else None
            if method in _KEEPS_SHAPE_METHODS and all(_is_number(argument.value) for argument in expression.args):
                return self._unit_dims(receiver, reader, budget - 1)
        if self.context.call_name(expression) in _KEEPS_SHAPE_FUNCTIONS and expression.args:
            return self._unit_dims(expression.args[0].value, reader, budget - 1)
        return self._layer_output(expression)

    def _indexed_unit_dims(self, subscript: cst.Subscript, reader: BoundName | None, budget: int) -> _UnitDims | None:
        """``x[None]``, ``x[:, None]``, ``x[..., None]``: each ``None`` inserts a dimension of size 1."""
        kinds = [_index_kind(element.slice) for element in subscript.slice]
        if not {":", "...", "none"}.issuperset(kinds) or "none" not in kinds or kinds.count("...") > 1:
            return None
        shape = self._unit_dims(subscript.value, reader, budget - 1) or _UnitDims(None)
        split = kinds.index("...") if "..." in kinds else len(kinds)
        leading = [position for position, kind in enumerate(kinds[:split]) if kind == "none"]
        trailing = [-1 - position for position, kind in enumerate(reversed(kinds[split + 1 :])) if kind == "none"]
        return functools.reduce(_UnitDims.inserted, leading + trailing, shape)

    def _layer_output(self, call: cst.Call) -> _UnitDims | None:
        """``self.conv_post(x)`` where a method of the class assigns ``nn.Conv1d(channels, 1, ...)``
        to that attribute in one of its top-level statements."""
        attribute, owner = self_attribute(call.func), self.context.current_class
        if owner is None or attribute is None:
            return None
        layers = [
            small.value
            for method in owner.body.body if isinstance(method, cst.FunctionDef)
            for statement in method.body.body if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) and self._one_channel(small.value)
            for target in small.targets if isinstance(target.target, cst.Attribute) and target.target.attr.value == attribute
        ]
        return _ONE_CHANNEL_LAYERS[self.context.call_name(layers[-1]) or ""] if layers else None  # type: ignore[arg-type]

    def _one_channel(self, call: cst.Call) -> bool:
        keywords = [argument.value for argument in call.args if argument.keyword is not None and argument.keyword.value in ("out_channels", "out_features")]
        sizes = keywords or [argument.value for argument in call.args if argument.keyword is None and not argument.star][1:2]
        return self.context.call_name(call) in _ONE_CHANNEL_LAYERS and bool(sizes) and integer_literal(sizes[0]) == 1

    def _strides_source(self, expression: cst.BaseExpression) -> cst.BaseExpression | None:
        """The operand whose strides ``expression`` keeps: ``a * 2``, ``-a``, ``a == 0``,
        ``a.float()``, ``a.to(torch.float16)``, ``a.eq(0)``, ``a.expand_as(b)``, ``a[:, 1:]``; None for anything else.
        An elementwise operation of two tensors takes the memory order of its first operand
        (``pred.eq(target.expand_as(pred))`` keeps ``pred``'s; PyTorch 2.13, checked)."""
        if isinstance(expression, cst.BinaryOperation):
            # a matrix product is contiguous; otherwise the left operand's memory order decides the
            # result's, and a number on the left leaves it to the right
            return None if isinstance(expression.operator, cst.MatrixMultiply) else expression.right if _is_number(expression.left) else expression.left
        if isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, cst.Minus):
            return expression.expression
        if isinstance(expression, cst.Comparison):
            return expression.left if len(expression.comparisons) == 1 else None
        if isinstance(expression, cst.Subscript):
            # slices keep every dimension and its stride; an integer index drops one (and may
            # leave a contiguous result), a slice of one element leaves a size-1 dimension any view can merge
            return expression.value if {":", "slice", "..."}.issuperset(_index_kind(element.slice) for element in expression.slice) else None
        receiver, method = method_call(expression) or (None, "")
        arguments = getattr(expression, "args", ())
        expands = method == "expand_as" and len(arguments) == 1
        keeps = method in _KEEPS_STRIDES and not any(argument.star for argument in arguments)
        # ``a.to(torch.float16)``, ``a.to(dtype=...)``: a dtype conversion
        dtype = argument_for(expression, 0, "dtype") if method == "to" and len(arguments) == 1 else None  # type: ignore[arg-type]
        cast = dtype is not None and not dtype.star and self.context.kind_of(dtype.value) is Kind.DTYPE
        return receiver if expands or keeps or cast else None

    def _view_dimensions(self, call: cst.Call, without_units: bool) -> int | None:
        """How many dimensions ``view(...)`` asks for, or None if unknown (or a dtype). When the
        input has no dimension of size 1, a literal ``1`` adds an empty one and is not counted:
        ``view(1, -1)`` then merges everything into one."""
        if any(argument.keyword is not None or argument.star for argument in call.args):
            return None  # view(dtype=...), view(*shape): unknown
        if len(call.args) > 1:
            sizes = [argument.value for argument in call.args]
            return _counted(sizes, without_units) if all(self._is_size(size) for size in sizes) else None
        value = call.args[0].value
        if isinstance(value, (cst.Tuple, cst.List)):
            starred = any(isinstance(element, cst.StarredElement) for element in value.elements)
            return None if starred else _counted([element.value for element in value.elements], without_units)
        if isinstance(value, cst.BinaryOperation):
            # ``b * t``, ``n // 2``: one size. A sum may join shapes (``(b, -1) + x.shape[1:]``),
            # so it counts only when both sides are numbers.
            return 1 if not isinstance(value.operator, cst.Add) or isinstance(value.left, cst.Integer) and isinstance(value.right, cst.Integer) else None
        # an integer, signed or not; not view(shape), view(np.uint8): a tuple or a dtype, cannot tell
        return 1 if isinstance(value, cst.Integer) or isinstance(value, cst.UnaryOperation) and isinstance(value.expression, cst.Integer) else None

    def _is_size(self, value: cst.BaseExpression) -> bool:
        """A shape entry, not a dtype (`view(dtype)` reinterprets bits and works on any strides)."""
        qualified = self.context.qualified_name(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
        dtype = isinstance(value, (cst.BaseString, cst.Float)) or self.context.kind_of(value) is Kind.DTYPE
        return not dtype and (qualified is None or qualified.startswith("torch.") and qualified not in torch_api.DTYPES)


def _counted(sizes: list[cst.BaseExpression], without_units: bool) -> int:
    return sum(1 for size in sizes if not without_units or integer_literal(size) != 1)


def _is_number(value: cst.BaseExpression) -> bool:
    literal = value.expression if isinstance(value, cst.UnaryOperation) else value
    return isinstance(literal, (cst.Integer, cst.Float)) or dotted_name(literal) in ("True", "False")


def _index_kind(index: cst.BaseSlice) -> str | None:
    """``":"`` for a whole slice, ``"slice"`` for another slice of more than one element,
    ``"one"`` for a slice of at most one, ``"..."`` for an ellipsis, ``"none"`` for ``None``;
    None otherwise (an integer or a tensor index)."""
    if isinstance(index, cst.Slice):
        lower, upper = integer_literal(index.lower), integer_literal(index.upper)
        one = upper is not None and (upper - lower <= 1 if lower is not None else index.lower is None and upper <= 1)
        return "one" if one else ":" if index.lower is None and index.upper is None and index.step is None else "slice"
    value = index.value if index.star is None else None  # type: ignore[attr-defined]
    return "..." if isinstance(value, cst.Ellipsis) else "none" if is_none(value) else None


def _transpose(expression: cst.BaseExpression) -> tuple[cst.BaseExpression, tuple[int, bool], tuple[int, int] | None] | None:
    """For a transpose (``x.transpose(1, 2)``, ``x.permute(0, 2, 1)``, ``x.T``): what it is applied
    to, the least number of runs of memory-adjacent dimensions of its result with whether its
    rank is known, and the two dimensions it swaps when the code spells them (not for a
    permutation); None for anything else."""
    if isinstance(expression, cst.Attribute):
        swapped, rank_known = _TRANSPOSING_ATTRIBUTES.get(expression.attr.value, (None, False))
        return (expression.value, (2, rank_known), swapped) if swapped is not None else None
    source, method = method_call(expression) or (None, "")
    arguments = getattr(expression, "args", ())
    if any(argument.keyword is not None or argument.star for argument in arguments):
        return None
    if method == "t" and not arguments:
        return source, (2, True), (0, 1)
    if method in _SWAPPING_METHODS and len(arguments) == 2:
        first, second = (integer_literal(argument.value) for argument in arguments)
        if first is None or second is None:
            return source, (2, False), None  # unknown dims: at least the two swapped ones
        if first == second:
            return None
        # the dims before the pair stay one run; with one dim counted from the end, their
        # relative positions are unknown without the rank
        runs = (1 if min(first, second) > 0 else 0) + (2 if abs(first - second) == 1 else 3) if (first < 0) == (second < 0) else 2
        return source, (runs, False), (first, second)
    order = layouts.permutation(expression) if method == "permute" else None
    return (source, (1 + sum(after != before + 1 for before, after in zip(order, order[1:])), True), None) if order is not None else None
