from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import BoundName
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import dotted_name
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
# Methods and functions whose result has the shape of their (first) tensor.
_KEEPS_SHAPE_METHODS = _KEEPS_STRIDES | {"contiguous"}
_KEEPS_SHAPE_FUNCTIONS = frozenset(
    {f"torch.{name}" for name in ("tanh", "sigmoid", "relu", "exp", "abs", "neg", "sqrt")}
    | {f"torch.nn.functional.{name}" for name in ("tanh", "sigmoid", "relu", "leaky_relu", "gelu", "silu", "elu", "dropout")}
)
# Layers that produce one channel (``nn.Conv1d(channels, 1, ...)``): the dimension at this
# index of their (batched) output has size 1; nn.Linear's is the last.
_ONE_CHANNEL_LAYERS = {
    **{f"torch.nn.{kind}{n}d": (n + 2, 1) for kind in ("Conv", "ConvTranspose") for n in (1, 2, 3)},
    "torch.nn.Linear": (None, -1),
}
_OUT_CHANNELS = ("out_channels", "out_features")


def _position(dim: int, rank: int | None) -> int:
    return dim + rank if rank is not None and dim < 0 else dim


@dataclass(frozen=True)
class _UnitDims:
    """The dimensions of a tensor known from the code to have size 1 (``unsqueeze(0)``,
    ``x[:, None]``, ``view(1, -1)``), with its rank when known. With the rank unknown an
    index may count from the front (``0``) or from the back (``-1``)."""

    rank: int | None
    units: frozenset[int]

    def position(self, dim: int) -> int:
        """``dim`` counted from the front when the rank is known."""
        return _position(dim, self.rank)

    def inserted(self, dim: int) -> _UnitDims:
        """After ``unsqueeze(dim)``."""
        rank = self.rank + 1 if self.rank is not None else None
        at = _position(dim, rank)
        if at >= 0:
            moved = {unit + 1 if unit >= at else unit for unit in self.units}
        else:
            moved = {unit - 1 if unit <= at else unit for unit in self.units}
        return _UnitDims(rank, frozenset(moved | {at}))

    def removed(self, dim: int) -> _UnitDims:
        """After ``squeeze(dim)``: the code squeezes a dimension it knows has size 1."""
        rank = self.rank - 1 if self.rank is not None else None
        at = _position(dim, self.rank)
        if at >= 0:
            kept = {unit - 1 if 0 <= at < unit else unit for unit in self.units if unit != at}
        else:
            kept = {unit + 1 if unit < at else unit for unit in self.units if unit != at}
        return _UnitDims(rank, frozenset(kept))

    def has_unit(self, dim: int) -> bool:
        return _position(dim, self.rank) in self.units


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

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._one_channel_layers: dict[cst.ClassDef, dict[str, cst.Call]] = {}

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
        if transposed is not None and self._swaps_a_unit_dimension(expression, reader, budget):
            return None  # swapping a size-1 dimension with its neighbour keeps the memory order
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

    def _swaps_a_unit_dimension(self, expression: cst.BaseExpression, reader: BoundName | None, budget: int) -> bool:
        """A transpose of two neighbouring dimensions one of which the code shows has size 1:
        ``x.unsqueeze(1).transpose(1, 2)``, ``conv_out.squeeze(0).transpose(1, 0)`` after a
        one-channel convolution. Its result is still contiguous, so any view of it works."""
        swapped = _swapped_pair(expression)
        source = _transposed_source(expression)
        if swapped is None or source is None or budget == 0:
            return False
        shape = self._unit_dims(source, reader, budget - 1)
        if shape is None:
            return False
        first, second = (shape.position(dim) for dim in swapped)
        neighbours = abs(first - second) == 1 and (first < 0) == (second < 0)
        return neighbours and (shape.has_unit(first) or shape.has_unit(second))

    def _unit_dims(self, expression: cst.BaseExpression, reader: BoundName | None, budget: int) -> _UnitDims | None:
        """What the code shows about the size-1 dimensions of ``expression``, following the
        names it reads back through earlier statements; None when it shows nothing."""
        if budget == 0:
            return None
        if isinstance(expression, cst.Name):
            binding = self.context.flow.reaching_binding(expression.value, reader)
            if binding is None or binding.value is None or not isinstance(binding.node, cst.Assign):
                return None
            return self._unit_dims(binding.value, binding, budget - 1)
        if isinstance(expression, cst.Subscript):
            return self._indexed_unit_dims(expression, reader, budget)
        if not isinstance(expression, cst.Call):
            return None
        literals = [_integer(argument.value) for argument in expression.args if not argument.star and argument.keyword is None]
        method = expression.func.attr.value if isinstance(expression.func, cst.Attribute) else None
        if method is not None and len(literals) == len(expression.args):
            receiver = expression.func.value  # type: ignore[attr-defined]
            if method in ("view", "reshape") and literals and None not in literals:
                return _UnitDims(len(literals), frozenset(index for index, size in enumerate(literals) if size == 1))
            if method in ("unsqueeze", "squeeze") and len(literals) == 1 and literals[0] is not None:
                known = self._unit_dims(receiver, reader, budget - 1)
                if method == "unsqueeze":
                    return (known or _UnitDims(None, frozenset())).inserted(literals[0])
                return known.removed(literals[0]) if known is not None else None
            if method in _KEEPS_SHAPE_METHODS and all(_is_number(argument.value) for argument in expression.args):
                return self._unit_dims(receiver, reader, budget - 1)
        if self.context.call_name(expression) in _KEEPS_SHAPE_FUNCTIONS and expression.args:
            return self._unit_dims(expression.args[0].value, reader, budget - 1)
        return self._layer_output(expression)

    def _indexed_unit_dims(self, subscript: cst.Subscript, reader: BoundName | None, budget: int) -> _UnitDims | None:
        """``x[None]``, ``x[:, None]``, ``x[..., None]``: each ``None`` inserts a dimension of size 1."""
        kinds = [_index_kind(element.slice) for element in subscript.slice]
        if None in kinds or "none" not in kinds or kinds.count("...") > 1:
            return None
        shape = self._unit_dims(subscript.value, reader, budget - 1) or _UnitDims(None, frozenset())
        split = kinds.index("...") if "..." in kinds else len(kinds)
        for position, kind in enumerate(kinds[:split]):
            if kind == "none":
                shape = shape.inserted(position)
        for position, kind in enumerate(reversed(kinds[split + 1 :])):
            if kind == "none":
                shape = shape.inserted(-1 - position)
        return shape

    def _layer_output(self, call: cst.Call) -> _UnitDims | None:
        """``self.conv_post(x)`` where ``__init__`` built ``nn.Conv1d(channels, 1, ...)``."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
            return None
        layer = self._layers().get(func.attr.value)
        if layer is None:
            return None
        rank, unit = _ONE_CHANNEL_LAYERS[self.context.call_name(layer) or ""]
        return _UnitDims(rank, frozenset({unit}))

    def _layers(self) -> dict[str, cst.Call]:
        """The one-channel layers the current class assigns to ``self`` attributes in its
        methods' top-level statements, read once per class."""
        owner = self.context.current_class
        if owner is None:
            return {}
        if owner not in self._one_channel_layers:
            self._one_channel_layers[owner] = {
                target.target.attr.value: small.value
                for method in owner.body.body
                if isinstance(method, cst.FunctionDef)
                for statement in method.body.body
                if isinstance(statement, cst.SimpleStatementLine)
                for small in statement.body
                if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) and self._one_channel(small.value)
                for target in small.targets
                if isinstance(target.target, cst.Attribute)
            }
        return self._one_channel_layers[owner]

    def _one_channel(self, call: cst.Call) -> bool:
        if self.context.call_name(call) not in _ONE_CHANNEL_LAYERS:
            return False
        keyword = next((argument for argument in call.args if argument.keyword is not None and argument.keyword.value in _OUT_CHANNELS), None)
        positional = [argument for argument in call.args if argument.keyword is None and not argument.star]
        size = keyword.value if keyword is not None else positional[1].value if len(positional) > 1 else None
        return size is not None and _integer(size) == 1

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


def _index_kind(index: cst.BaseSlice) -> str | None:
    """``"none"`` for ``None``, ``":"`` for a whole slice, ``"..."`` for an ellipsis; None otherwise."""
    if isinstance(index, cst.Slice):
        return ":" if index.lower is None and index.upper is None and index.step is None else None
    if index.star is not None:  # type: ignore[attr-defined]
        return None
    value = index.value  # type: ignore[attr-defined]
    if isinstance(value, cst.Ellipsis):
        return "..."
    return "none" if isinstance(value, cst.Name) and value.value == "None" else None


def _swapped_pair(expression: cst.BaseExpression) -> tuple[int, int] | None:
    """The two dimensions a transpose swaps, when the code spells them (``.T``, ``.t()``,
    ``.mT``, ``transpose(1, 2)``); None for a permutation or unknown dimensions."""
    if isinstance(expression, cst.Attribute):
        return {"T": (0, 1), "H": (0, 1), "mT": (-2, -1), "mH": (-2, -1)}.get(expression.attr.value)
    if not isinstance(expression, cst.Call) or not isinstance(expression.func, cst.Attribute):
        return None
    method, arguments = expression.func.attr.value, expression.args
    if method == "t" and not arguments:
        return 0, 1
    if method not in _SWAPPING_METHODS or len(arguments) != 2 or any(a.keyword is not None or a.star for a in arguments):
        return None
    first, second = (_integer(argument.value) for argument in arguments)
    return (first, second) if first is not None and second is not None else None


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
