"""What the code shows about a state dict it loads: built to fit the model (the model's own
``state_dict()``, a comprehension or helper that keeps the keys the model has), or weights
from a fixed published address."""

from __future__ import annotations

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.binder import Binder
from torchcheck.lint.nodes import called_name, is_none, method_call, subtree

# What a filter of a state dict compares to keep only what the model can take.
_SHAPE_ATTRIBUTES = frozenset({"shape", "size", "numel", "ndim", "dtype"})
# A published checkpoint is named by an address (`https://...`), not a local path.
_URL_SCHEME = "://"


def state_dict_of(expression: cst.BaseExpression) -> cst.BaseExpression | None:
    """``model`` for ``model.state_dict()``: every key of the model, so nothing can be missing."""
    found = method_call(expression)
    return found[0] if found is not None and found[1] == "state_dict" else None


def reads_state_dict_of(model: cst.BaseExpression, function: cst.CSTNode | None) -> bool:
    """``function`` calls ``model.state_dict()`` somewhere (to fill a dict under its keys)."""
    calls = subtree(function) if function is not None else ()
    return any(type(call) is cst.Call and (owner := state_dict_of(call)) is not None and owner.deep_equals(model) for call in calls)


def _matches_model(condition: cst.BaseExpression) -> bool:
    """A filter that keeps what the model can take: a membership test (``k in model_sd``)
    or a comparison of shapes (``v.shape == model_sd[k].shape``)."""
    for node in subtree(condition, prune=lambda node: not isinstance(node, (cst.BooleanOperation, cst.UnaryOperation))):
        if isinstance(node, cst.Comparison):
            sides = (node.left, *(target.comparator for target in node.comparisons))
            if any(isinstance(target.operator, (cst.In, cst.NotIn)) for target in node.comparisons) or any(map(_mentions_shape, sides)):
                return True
    return False


def _mentions_shape(expression: cst.BaseExpression) -> bool:
    if isinstance(expression, cst.Call):
        expression = expression.func
    return isinstance(expression, cst.Attribute) and expression.attr.value in _SHAPE_ATTRIBUTES


def partial_by_construction(value: cst.BaseExpression, model: cst.BaseExpression) -> bool:
    """A state dict built to fit ``model``: the model's own ``state_dict()`` (updated with
    the checkpoint's entries), a dict literal that names its keys (not an empty one filled
    later), a helper given the model's state dict to match against
    (``intersect_dicts(checkpoint, model.state_dict())``), or a comprehension that keeps only
    matching keys or shapes. Keys it lacks or skips are the
    author's decision, not an accident."""
    if state_dict_of(value) is not None or (isinstance(value, cst.Dict) and value.elements):
        return True  # not `{}`, filled later with whatever keys the checkpoint has
    if isinstance(value, cst.Call):
        return any((receiver := state_dict_of(argument.value)) is not None and receiver.deep_equals(model) for argument in value.args)
    if not isinstance(value, cst.DictComp):
        return False
    clauses = subtree(value.for_in, prune=lambda node: not isinstance(node, cst.CompFor))  # the `for ... if ...` clauses
    return any(isinstance(clause, cst.CompIf) and _matches_model(clause.test) for clause in clauses)


def is_url(expression: cst.BaseExpression | None) -> bool:
    return isinstance(expression, cst.SimpleString) and _URL_SCHEME in expression.raw_value


def is_url_table(expression: cst.BaseExpression | None, binder: Binder | None = None) -> bool:
    """A dict literal of fixed addresses (``model_urls = {"resnet18": "https://..."}``, or
    ``{"dymn10": urljoin(BASE_URL, "dymn10.pt")}`` given the binder), some entries maybe
    ``None`` for architectures without published weights."""
    if not isinstance(expression, cst.Dict) or not expression.elements:
        return False
    values = [element.value if isinstance(element, cst.DictElement) else None for element in expression.elements]
    fixed = lambda value: is_url(value) or (binder is not None and value is not None and fixed_address(binder, value))  # noqa: E731
    return any(map(fixed, values)) and all(fixed(value) or is_none(value) for value in values)


_JOINS = frozenset({"urljoin", "join"})  # `urllib.parse.urljoin`, `os.path.join`, `posixpath.join`


def fixed_address(binder: Binder, expression: cst.BaseExpression) -> bool:
    """A URL the code fixes: a URL literal, a module-level name bound once to one, or one of
    them joined with string literals (``urljoin(BASE_URL, "x.pt")``, ``BASE_URL + "x.pt"``,
    ``f"{BASE_URL}/x.pt"``)."""
    if is_url(expression):
        return True
    if type(expression) is cst.Name:
        value = module_constant(binder, expression.value)
        return value is not None and value is not expression and fixed_address(binder, value)
    parts: list[cst.BaseExpression] = []
    if type(expression) is cst.BinaryOperation and type(expression.operator) is cst.Add:
        parts = [expression.left, expression.right]
    elif type(expression) is cst.Call and called_name(expression) in _JOINS and not any(argument.keyword or argument.star for argument in expression.args):
        parts = [argument.value for argument in expression.args]
    elif type(expression) is cst.FormattedString:
        return _fixed_formatted(binder, expression)  # type: ignore[arg-type]
    return bool(parts) and fixed_address(binder, parts[0]) and all(type(part) is cst.SimpleString for part in parts[1:])


def _fixed_formatted(binder: Binder, string: cst.FormattedString) -> bool:
    """``f"{BASE_URL}/x.pt"``: a URL at its start, and only module constants filled in."""
    first = string.parts[0] if string.parts else None
    starts_fixed = (type(first) is cst.FormattedStringText and _URL_SCHEME in first.value) or (  # type: ignore[attr-defined]
        type(first) is cst.FormattedStringExpression and fixed_address(binder, first.expression)  # type: ignore[attr-defined]
    )
    filled = [part.expression for part in string.parts if type(part) is cst.FormattedStringExpression]  # type: ignore[attr-defined]
    return starts_fixed and all(type(value) is cst.Name and module_constant(binder, value.value) is not None for value in filled)  # type: ignore[attr-defined]


def module_constant(binder: Binder, name: str) -> cst.BaseExpression | None:
    """The value of a module-level name bound once, by a top-level assignment of it alone."""
    bindings = binder.bindings_of(name, binder.module_scope)
    statement = bindings[0].node if len(bindings) == 1 else None
    if type(statement) is not cst.Assign or len(statement.targets) != 1 or type(statement.targets[0].target) is not cst.Name:  # type: ignore[union-attr]
        return None
    line = binder.parent(statement)  # type: ignore[arg-type]
    return statement.value if type(binder.parent(line)) is cst.Module else None  # type: ignore[union-attr, arg-type]


def drawn_from_state_dict(binder: Binder, key: cst.BaseExpression) -> bool:
    """``k`` of ``for k in model.state_dict():`` (also through a name bound to one, or its
    ``keys()``): each key the model has."""
    bindings = binder.reaching(key) if type(key) is cst.Name else []
    loops = [binding.node for binding in bindings if type(binding.node) is cst.For]
    if not loops or len(loops) < len(bindings):
        return False
    iterated = [loops[0].iter, *(references.reaching_values(binder, loops[0].iter) if type(loops[0].iter) is cst.Name else [])]  # type: ignore[attr-defined]
    return any(type(node) is cst.Attribute and node.attr.value == "state_dict" for value in iterated for node in subtree(value))
