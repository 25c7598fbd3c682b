"""Which dimensions a ``view`` merges, where the code spells the sizes as products.

``x.permute(0, 3, 1, 2, 4).view(N * K, H, W, 2)``: each size written as a product of ``k``
factors takes ``k`` dimensions of its input, in order, when every size is a name, a number
or such a product and the factors add up to the input's rank. A group whose dimensions are
not neighbours in memory (``0`` then ``3``) cannot be viewed.
"""

from __future__ import annotations

import libcst as cst

from torchcheck.lint.nodes import integer_literal, method_call


def permutation(expression: cst.BaseExpression, rank: int | None = None) -> list[int] | None:
    """The order of ``x.permute(0, 2, 1)`` / ``x.permute((0, 2, -2))`` (a dimension counted
    from the end taken from the rank) when every dimension is an integer literal and together
    they permute the input's; with the input's ``rank`` known, also of ``x.transpose(1, 2)``;
    None for anything else."""
    found = method_call(expression)
    arguments = expression.args if isinstance(expression, cst.Call) else ()
    if found is not None and found[1] == "transpose" and rank is not None and len(arguments) == 2:
        swapped = [integer_literal(argument.value) for argument in arguments]
        if None in swapped or any(not -rank <= dim < rank for dim in swapped):  # type: ignore[operator]
            return None
        order, (first, second) = list(range(rank)), (dim % rank for dim in swapped)  # type: ignore[operator]
        order[first], order[second] = order[second], order[first]
        return order
    if found is None or found[1] != "permute" or any(argument.keyword is not None or argument.star for argument in arguments):
        return None
    values: list[cst.BaseExpression | None] = [argument.value for argument in arguments]
    if len(values) == 1 and isinstance(values[0], (cst.Tuple, cst.List)):
        values = [None if isinstance(element, cst.StarredElement) else element.value for element in values[0].elements]
    dims = [integer_literal(value) for value in values]
    order = [dim % len(dims) for dim in dims] if dims and None not in dims else None  # type: ignore[operator]
    return order if order is not None and sorted(order) == list(range(len(order))) else None


def view_merges_separated(order: list[int], view: cst.Call) -> bool:
    """Whether ``view(...)`` of a tensor permuted to ``order`` merges dimensions that are not
    neighbours in memory; False when its sizes do not say which dimensions each takes."""
    if any(argument.keyword is not None or argument.star for argument in view.args):
        return False
    counts = [_factors(argument.value) for argument in view.args]
    if None in counts or sum(counts) != len(order):  # type: ignore[arg-type]
        return False
    start = 0
    for count in counts:
        group = order[start : start + count]  # type: ignore[operator]
        if any(after != before + 1 for before, after in zip(group, group[1:])):
            return True
        start += count  # type: ignore[operator]
    return False


def view_rank(view: cst.Call) -> int | None:
    """The rank of the tensor ``view(...)`` is given, where each size says which dimensions it
    takes (names, attributes and products of them; a literal may add a dimension of size 1)."""
    if any(argument.keyword is not None or argument.star or isinstance(argument.value, cst.Integer) for argument in view.args):
        return None
    counts = [_factors(argument.value) for argument in view.args]
    return sum(counts) if None not in counts else None  # type: ignore[arg-type]


def _factors(size: cst.BaseExpression) -> int | None:
    """1 for a name, an attribute or a positive literal; the factors of a product; None
    otherwise (``-1``, a sum, a call: which dimensions it takes is unknown)."""
    if isinstance(size, cst.BinaryOperation) and isinstance(size.operator, cst.Multiply):
        left, right = _factors(size.left), _factors(size.right)
        return left + right if left is not None and right is not None else None
    if isinstance(size, (cst.Name, cst.Attribute)) or (isinstance(size, cst.Integer) and size.evaluated_value > 0):
        return 1
    return None
