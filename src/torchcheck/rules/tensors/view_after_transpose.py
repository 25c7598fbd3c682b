from __future__ import annotations

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import Kind, dotted_name
from torchcheck.lint.flow import BoundName
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

_SWAPPING_METHODS = frozenset({"transpose", "swapaxes", "swapdims"})
_TRANSPOSING_ATTRIBUTES = frozenset({"T", "mT", "H", "mH"})

# Methods whose result has the strides of their receiver (PyTorch 2.13, checked on a permuted
# 4-D tensor: elementwise results keep its memory order, and `clone()` preserves it too),
# given literal arguments. `softmax`, `contiguous`, `reshape`, `matmul` and `torch.cat`
# return contiguous results and are not here.
_KEEPS_STRIDES = frozenset(
    {
        "float", "double", "half", "bfloat16", "abs", "neg", "exp", "log", "sigmoid", "tanh", "relu",
        "sqrt", "rsqrt", "sign", "clone", "detach", "eq", "ne", "gt", "lt", "ge", "le", "mul", "add",
        "sub", "div", "pow", "clamp",
    }
)
# How many earlier statements a layout is followed back through.
_MAX_STATEMENTS = 8


class ViewAfterTranspose(Rule):
    """
    ## What it does
    Checks for `.view(...)` applied directly to the result of `.transpose(...)`,
    `.permute(...)`, `.T` or `.mT` that merges dimensions the transpose separated in
    memory: fewer output dimensions than runs of memory-adjacent dimensions, or a trailing
    `-1` that merges the dimensions after a transposed pair (`(B, H, T, D)` transposed to
    `(B, T, H, D)` and viewed as `(B, T, -1)`). Views that only split dimensions, or merge
    dimensions that stay adjacent, are valid and not reported.

    The transposed value is followed through operations that keep its strides - elementwise
    methods and arithmetic with a number (`* 2`, `.float()`, `.eq(0)`, `.relu()`, `.clone()`,
    which preserves the memory order), `expand_as`, basic slicing (`a[:, 1:]`) - and through
    earlier statements of the same function that bound the names it reads
    (`a = x.transpose(1, 2)`, `b = a * 2`, then `b.view(...)`). `.contiguous()`, `.reshape()`,
    `softmax`, a matrix product or `torch.cat` in between return contiguous results, and a
    re-binding in a branch that may not have run stops the search.

    ## Why is this bad?
    Transposing does not move data; it returns a non-contiguous view with swapped strides.
    `.view()` never copies, so whenever the new shape merges dimensions that are no longer
    adjacent in memory it raises `RuntimeError: view size is not compatible with input
    tensor's size and stride`, often only for some input shapes. (It works when a merged
    dimension has size 1, or when the input's memory layout was already transposed, as
    for a channels-last tensor: invariants the call site does not show.) `.reshape()` returns a view
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
    message = (
        "`.view()` merges dimensions that the transpose made non-adjacent in memory; it raises unless "
        "a merged dimension has size 1; use `.reshape()`"
    )
    fix_title = "Use `.reshape()`"
    fix_safety = FixSafety.SAFE
    required_text = (".view(",)

    VALID = (
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
    if masked:
        a = a.contiguous()
    a.view(batch, -1)
"""
        ),
    )
    INVALID = (
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
        layout = self._layout(func.value, None, _MAX_STATEMENTS)
        if layout is None or layout[0] < 2:
            return  # not a transpose, or the identity permutation
        runs, rank_known = layout
        dimensions = self._view_dimensions(node)
        if dimensions is None:
            return
        # Splitting a dimension and merging dimensions within one run of memory-adjacent
        # dimensions keep a valid view: only fewer output dimensions than runs must merge
        # across runs. With the rank unknown, a trailing `-1` as the last of exactly that
        # many dimensions merges the dimensions the rank hides (`(B, T, H, D) -> (B, T, -1)`).
        merges_hidden = not rank_known and dimensions == runs and _is_minus_one(node.args[-1].value)
        if dimensions < runs or merges_hidden:
            self.report(node, replacement=cst.Name("reshape"), replace_target=func.attr)

    def _layout(self, expression: cst.BaseExpression, reader: BoundName | None, budget: int) -> tuple[int, bool] | None:
        """The least number of runs of memory-adjacent dimensions of ``expression`` and whether
        its rank is known, when it is a transpose of a tensor taken as contiguous - directly, or
        through elementwise operations, basic slicing and the earlier statements that bound the
        names it reads (``a = x.transpose(1, 2); b = a * 2``); None when not known to be one."""
        transposed = _runs(expression)
        if transposed is not None:
            source = _transposed_source(expression)
            if source is not None and budget > 0 and self._layout(source, reader, budget - 1) is not None:
                return None  # a transpose of a transpose: the layout is not followed
            return transposed
        if budget == 0:
            return None
        if isinstance(expression, cst.Name):
            binding = self.context.flow.reaching_binding(expression.value, reader)
            if binding is None or binding.value is None or not isinstance(binding.node, cst.Assign):
                return None
            return self._layout(binding.value, binding, budget - 1)
        source = self._strides_source(expression)
        if source is None:
            return None
        layout = self._layout(source, reader, budget - 1)
        if layout is not None and _expands(expression):
            # expand_as may add leading dimensions: only the strict comparison stays sound
            return layout[0], True
        return layout

    def _strides_source(self, expression: cst.BaseExpression) -> cst.BaseExpression | None:
        """The operand whose strides ``expression`` keeps: ``a * 2``, ``-a``, ``a == 0``,
        ``a.float()``, ``a.eq(0)``, ``a.expand_as(b)``, ``a[:, 1:]``; None for anything else."""
        if isinstance(expression, cst.BinaryOperation):
            if _is_number(expression.right):
                return expression.left
            return expression.right if _is_number(expression.left) else None
        if isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, cst.Minus):
            return expression.expression
        if isinstance(expression, cst.Comparison):
            one = len(expression.comparisons) == 1
            return expression.left if one and _is_number(expression.comparisons[0].comparator) else None
        if isinstance(expression, cst.Subscript):
            return expression.value if _is_basic_slicing(expression) else None
        if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute):
            method = expression.func.attr.value
            if method == "expand_as" and len(expression.args) == 1:
                return expression.func.value
            if method == "to" and self._casts_only(expression):
                return expression.func.value
            numbers = all(not argument.star and _is_number(argument.value) for argument in expression.args)
            if method in _KEEPS_STRIDES and numbers:
                return expression.func.value
        return None

    def _casts_only(self, call: cst.Call) -> bool:
        """``a.to(torch.float16)``: a dtype conversion, which keeps the strides."""
        if len(call.args) != 1 or call.args[0].star:
            return False
        keyword = call.args[0].keyword
        return (keyword is None or keyword.value == "dtype") and self.context.kind_of(call.args[0].value) is Kind.DTYPE

    def _view_dimensions(self, call: cst.Call) -> int | None:
        """How many dimensions ``view(...)`` asks for, or None if unknown (or a dtype)."""
        if any(argument.keyword is not None or argument.star for argument in call.args):
            return None  # view(dtype=...), view(*shape): unknown
        if len(call.args) > 1:
            return len(call.args) if all(self._is_size(argument.value) for argument in call.args) else None
        value = call.args[0].value
        if isinstance(value, (cst.Tuple, cst.List)):
            if any(isinstance(element, cst.StarredElement) for element in value.elements):
                return None
            return len(value.elements)
        if isinstance(value, cst.Integer) or _is_negative_integer(value) or _is_size_arithmetic(value):
            return 1
        return None  # view(shape), view(np.uint8): a tuple or a dtype, cannot tell

    def _is_size(self, value: cst.BaseExpression) -> bool:
        """A shape entry, not a dtype (`view(dtype)` reinterprets bits and works on any strides)."""
        if isinstance(value, (cst.BaseString, cst.Float)):
            return False
        if self.context.kind_of(value) is Kind.DTYPE:
            return False
        qualified = self.context.qualified_name(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
        return qualified is None or qualified.startswith("torch.") and qualified not in torch_api.DTYPES


def _is_negative_integer(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.UnaryOperation) and isinstance(value.expression, cst.Integer)


def _integer(value: cst.BaseExpression) -> int | None:
    if isinstance(value, cst.Integer):
        return int(value.value, 0)
    if _is_negative_integer(value) and isinstance(value.operator, cst.Minus):
        return -int(value.expression.value, 0)  # type: ignore[attr-defined]
    return None


def _is_minus_one(value: cst.BaseExpression) -> bool:
    return _integer(value) == -1


def _is_size_arithmetic(value: cst.BaseExpression) -> bool:
    """``b * t``, ``n // 2``: one size. A sum may join shapes (``(b, -1) + x.shape[1:]``), so
    it counts only when both sides are numbers."""
    if not isinstance(value, cst.BinaryOperation):
        return False
    if isinstance(value.operator, cst.Add):
        return isinstance(value.left, cst.Integer) and isinstance(value.right, cst.Integer)
    return True


def _is_number(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.UnaryOperation):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float)) or dotted_name(value) in ("True", "False")


def _expands(expression: cst.BaseExpression) -> bool:
    func = expression.func if isinstance(expression, cst.Call) else None
    return isinstance(func, cst.Attribute) and func.attr.value == "expand_as"


def _is_basic_slicing(subscript: cst.Subscript) -> bool:
    """``a[:, 1:]``, ``a[..., :n]``: slices keep every dimension and its stride. An integer
    index drops one (and may leave a contiguous result); a slice of one element leaves a
    dimension of size 1, which any view can merge."""
    for element in subscript.slice:
        index = element.slice
        if isinstance(index, cst.Index):
            if not (isinstance(index.value, cst.Ellipsis) and index.star is None):
                return False
        elif isinstance(index, cst.Slice):
            lower, upper = (_integer(bound) if bound is not None else None for bound in (index.lower, index.upper))
            if lower is not None and upper is not None and upper - lower <= 1:
                return False
            if index.lower is None and upper is not None and upper <= 1:
                return False
    return True


def _transposed_source(expression: cst.BaseExpression) -> cst.BaseExpression | None:
    """What a transpose (``x.transpose(1, 2)``, ``x.T``) is applied to."""
    if isinstance(expression, cst.Attribute):
        return expression.value
    if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute):
        return expression.func.value
    return None


def _runs(expression: cst.BaseExpression) -> tuple[int, bool] | None:
    if isinstance(expression, cst.Attribute):
        attribute = expression.attr.value
        if attribute in ("T", "H"):
            return 2, True  # 2-D (deprecated on other ranks)
        return (2, False) if attribute in _TRANSPOSING_ATTRIBUTES else None
    if not isinstance(expression, cst.Call) or not isinstance(expression.func, cst.Attribute):
        return None
    method, arguments = expression.func.attr.value, expression.args
    if any(argument.keyword is not None or argument.star for argument in arguments):
        return None
    if method == "t" and not arguments:
        return 2, True
    if method in _SWAPPING_METHODS and len(arguments) == 2:
        first, second = (_integer(argument.value) for argument in arguments)
        if first is None or second is None:
            return 2, False  # unknown dims: at least the two swapped ones
        if first == second:
            return None
        if (first < 0) != (second < 0):
            return 2, False  # relative positions unknown without the rank
        low, high = sorted((first, second))
        leading = 1 if low > 0 else 0  # the dims before the pair stay one run
        return leading + (2 if high == low + 1 else 3), False
    if method == "permute":
        values = [argument.value for argument in arguments]
        if len(values) == 1 and isinstance(values[0], (cst.Tuple, cst.List)):
            values = [element.value for element in values[0].elements if not isinstance(element, cst.StarredElement)]
            if len(values) != len(arguments[0].value.elements):  # type: ignore[attr-defined]
                return None
        dims = [_integer(value) for value in values]
        if not dims or any(dim is None for dim in dims):
            return None
        rank = len(dims)
        order = [dim % rank for dim in dims]  # type: ignore[operator]
        if sorted(order) != list(range(rank)):
            return None
        return 1 + sum(1 for before, after in zip(order, order[1:]) if after != before + 1), True
    return None
