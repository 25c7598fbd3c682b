"""Questions about one syntax node that need nothing but the node: no names, no scopes.

``dotted_name(a.b.c)`` is ``"a.b.c"`` as written (import aliases are the semantic model's
business), ``argument_for(call, 0, "input")`` maps an argument the way Python would, and
``literal_bool`` reads ``True``/``False``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.literals import NOT_A_LITERAL
from torchcheck.lint.walker import children


def source_text(node: cst.CSTNode) -> str:
    """The code of one node."""
    return cst.Module(body=[]).code_for_node(node)


def is_autocast_name(qualified: str | None) -> bool:
    """``torch.autocast``, ``torch.amp.autocast``, ``torch.cuda.amp.autocast`` ..."""
    return qualified is not None and qualified.startswith("torch.") and qualified.rsplit(".", 1)[-1] == "autocast"


def literal_bool(expression: cst.BaseExpression) -> bool | None:
    if isinstance(expression, cst.Name) and expression.value in ("True", "False"):
        return expression.value == "True"
    return None


def argument_for(call: cst.Call, position: int, keyword: str) -> cst.Arg | None:
    """The argument passed for parameter ``keyword`` (at ``position``); a star argument
    that could supply it is returned as is (callers treat it as unknown)."""
    for argument in call.args:
        if argument.keyword is not None and argument.keyword.value == keyword:
            return argument
    positional = [argument for argument in call.args if argument.keyword is None]
    for index, argument in enumerate(positional):
        if argument.star:
            return argument
        if index == position:
            return argument
    for argument in call.args:
        if argument.star == "**":
            return argument
    return None


def node_types(*bases: type[cst.CSTNode]) -> frozenset[type[cst.CSTNode]]:
    """``bases`` and every node class that derives from one of them: ``type(node) in found``
    answers ``isinstance(node, bases)`` without going through ABCMeta (libcst's node classes
    are ABCs, and a failing isinstance is a Python call through ``ABCMeta.__instancecheck__``)."""
    found: set[type[cst.CSTNode]] = set()
    pending = list(bases)
    while pending:
        node_type = pending.pop()
        if node_type not in found:
            found.add(node_type)
            pending.extend(node_type.__subclasses__())
    return frozenset(found)


def unless_none(value: cst.BaseExpression) -> cst.BaseExpression:
    """``x`` for ``x if x is not None else []`` and ``x or []``: a value replaced by an empty
    container only when it is missing is that value wherever it holds something."""
    if type(value) is cst.IfExp and type(value.orelse) in (cst.List, cst.Dict, cst.Tuple) and not value.orelse.elements:  # type: ignore[attr-defined]
        test = value.test  # type: ignore[attr-defined]
        tested = test.left if type(test) is cst.Comparison and len(test.comparisons) == 1 and type(test.comparisons[0].operator) is cst.IsNot else test
        return value.body if type(tested) is cst.Name and tested.value == getattr(value.body, "value", None) else value  # type: ignore[attr-defined]
    if type(value) is cst.BooleanOperation and type(value.operator) is cst.Or and type(value.right) in (cst.List, cst.Dict) and not value.right.elements:  # type: ignore[attr-defined]
        return value.left  # type: ignore[attr-defined]
    return value


def is_main_guard(statement: cst.If) -> bool:
    """``if __name__ == "__main__":``, the block a script runs and an import does not."""
    test = statement.test
    if type(test) is not cst.Comparison or len(test.comparisons) != 1 or type(test.comparisons[0].operator) is not cst.Equal:  # type: ignore[attr-defined]
        return False
    sides = (test.left, test.comparisons[0].comparator)  # type: ignore[attr-defined]
    named = any(type(side) is cst.Name and side.value == "__name__" for side in sides)  # type: ignore[attr-defined]
    return named and any(type(side) is cst.SimpleString and side.evaluated_value == "__main__" for side in sides)  # type: ignore[attr-defined]


def imported_module(node: cst.ImportFrom) -> tuple[str | None, int]:
    """The module ``node`` imports from as written (``""`` for ``from . import x``, None
    when it is no dotted name) and its level (leading dots)."""
    return (dotted_name(node.module) if node.module is not None else ""), len(node.relative)


def dotted_name(expression: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None (no import resolution)."""
    # `type(...) is`, not isinstance, in the hottest helpers: libcst's node classes are ABCs,
    # so every isinstance that fails goes through ABCMeta; these classes have no subclasses.
    expression_type = type(expression)
    if expression_type is cst.Name:
        return expression.value  # type: ignore[attr-defined]
    if expression_type is cst.Attribute:
        base = dotted_name(expression.value)  # type: ignore[attr-defined]
        return f"{base}.{expression.attr.value}" if base else None  # type: ignore[attr-defined]
    return None


def one_line(node: cst.CSTNode) -> str:
    """The code of ``node`` with its whitespace runs (line breaks included) made single spaces."""
    return " ".join(source_text(node).split())


def integer_literal(value: cst.BaseExpression | None) -> int | None:
    """The value of an integer literal, a negative one included."""
    negative = isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus)
    literal = value.expression if negative else value  # type: ignore[union-attr]
    return (-1 if negative else 1) * int(literal.value, 0) if isinstance(literal, cst.Integer) else None


def is_number_literal(expression: cst.BaseExpression) -> bool:
    """``3``, ``0.5``, ``-1e-6``: an integer or float literal, signed or not."""
    while type(expression) is cst.UnaryOperation:
        expression = expression.expression  # type: ignore[attr-defined]
    return type(expression) in (cst.Integer, cst.Float)


def is_none(expression: cst.BaseExpression | None) -> bool:
    """The literal ``None``."""
    return isinstance(expression, cst.Name) and expression.value == "None"


def literal_value(expression: cst.BaseExpression) -> object:
    """The value of a string, integer, ``True``/``False`` or ``None`` literal; else
    :data:`NOT_A_LITERAL` (``None`` is a literal's value)."""
    if isinstance(expression, cst.SimpleString):
        return expression.evaluated_value
    for value in (integer_literal(expression), literal_bool(expression)):
        if value is not None:
            return value
    return None if is_none(expression) else NOT_A_LITERAL


def self_attribute(expression: cst.BaseExpression) -> str | None:
    """``x`` for ``self.x``; None for anything else."""
    if type(expression) is cst.Attribute and type(expression.value) is cst.Name and expression.value.value == "self":  # type: ignore[attr-defined]
        return expression.attr.value  # type: ignore[attr-defined]
    return None


def decorator_names(function: cst.FunctionDef) -> set[str]:
    """The last component of each decorator's name, a called one's included: ``{"no_grad"}``
    for ``@torch.no_grad()``."""
    names = set()
    for decorator in function.decorators:
        expression = decorator.decorator
        name = dotted_name(expression.func if isinstance(expression, cst.Call) else expression)
        if name is not None:
            names.add(name.rsplit(".", 1)[-1])
    return names


def root_name(expression: cst.BaseExpression) -> str | None:
    """``totals`` for ``totals``, ``totals[key]`` or ``totals.loss.sum``; None when the chain
    starts elsewhere (a call, a literal)."""
    root = root_name_node(expression)
    return root.value if root is not None else None


def root_name_node(expression: cst.BaseExpression) -> cst.Name | None:
    """The name node a chain of attributes and subscripts starts from, as :func:`root_name`."""
    while isinstance(expression, (cst.Attribute, cst.Subscript)):
        expression = expression.value
    return expression if isinstance(expression, cst.Name) else None


def method_call(expression: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """For ``receiver.method(...)`` return ``(receiver, "method")``, else None."""
    if type(expression) is cst.Call and type(expression.func) is cst.Attribute:
        return expression.func.value, expression.func.attr.value
    return None


def construction(value: cst.BaseExpression) -> cst.BaseExpression:
    """The call that built the module a chain of its own methods hands back (``QNetwork()`` in
    ``QNetwork().to(device)``: a module's ``.to`` returns the module)."""
    while type(value) is cst.Call and (called := method_call(value)) is not None and called[1] in torch_api.MODULE_SELF_METHODS:  # type: ignore[arg-type]
        value = called[0]
    return value


def keyword_argument(call: cst.Call, name: str) -> cst.Arg | None:
    for argument in call.args:
        if argument.keyword is not None and argument.keyword.value == name:
            return argument
    return None


def called_value(call: cst.Call) -> cst.BaseExpression:
    """What a call runs: ``loss.forward(fx, y)`` runs ``loss`` (``self.forward(x)`` is a method)."""
    func = call.func
    if type(func) is cst.Attribute and func.attr.value == "forward" and not (type(func.value) is cst.Name and func.value.value == "self"):  # type: ignore[attr-defined]
        return func.value  # type: ignore[attr-defined]
    return func


def called_name(call: cst.Call) -> str | None:
    """The name a call calls, unresolved: ``step`` for ``optimizer.step()``, ``train`` for ``train(m)``."""
    func_type = type(call.func)
    if func_type is cst.Attribute:
        return call.func.attr.value  # type: ignore[attr-defined]
    if func_type is cst.Name:
        return call.func.value  # type: ignore[attr-defined]
    return None


def has_star_kwargs(call: cst.Call) -> bool:
    """``**kwargs`` could supply any keyword: rules about missing keywords stay silent."""
    return any(argument.star == "**" for argument in call.args)



def runs_a_parent_initialiser(call: cst.Call) -> bool:
    """``super().__init__(...)``, ``super(Cls, self).__init__(...)`` or ``Base.__init__(self, ...)``.

    Not ``super(Cls).__init__()``: a one-argument ``super`` is unbound, so that call
    initialises the ``super`` object itself and never reaches the parent's ``__init__``.
    """
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value != "__init__":
        return False
    receiver = func.value
    if type(receiver) is cst.Call and type(receiver.func) is cst.Name and receiver.func.value == "super":
        return len(receiver.args) != 1 or bool(receiver.args[0].star)
    return True


def subtree(
    root: cst.CSTNode, prune: Callable[[cst.CSTNode], bool] | None = None, *, attribute_names: bool = True
) -> Iterator[cst.CSTNode]:
    """``root`` and every node under it, parents before children; nothing is yielded from
    under a node for which ``prune`` holds (the node itself is). Without ``attribute_names``
    the name of an attribute (``item`` in ``loss.item``) is left out: it is no variable."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if prune is not None and prune(node):
            continue
        if not attribute_names and type(node) is cst.Attribute:
            stack.append(node.value)  # type: ignore[attr-defined]
        else:
            stack.extend(reversed(children(node)))


def passes_once(loop: cst.For | cst.While) -> bool:
    """Every pass of ``loop`` that raises nothing leaves it (``return``, ``break``, ``raise``):
    it runs its body again only after an exception handled inside it (a retry) or a
    ``continue``, so its passes are attempts, not iterations."""
    return _leaves(loop.body.body)


def _leaves(block: Sequence[cst.BaseStatement | cst.BaseSmallStatement]) -> bool:
    last = block[-1] if block else None
    if type(last) is cst.SimpleStatementLine:
        last = last.body[-1]  # type: ignore[attr-defined]
    if type(last) in (cst.Return, cst.Break, cst.Raise):
        return True
    if type(last) is cst.If:
        return _leaves(last.body.body) and last.orelse is not None and _leaves_else(last.orelse)  # type: ignore[attr-defined]
    if type(last) is cst.Try:
        finally_leaves = last.finalbody is not None and _leaves(last.finalbody.body.body)  # type: ignore[attr-defined]
        normal_end = last.orelse.body.body if last.orelse is not None else last.body.body  # type: ignore[attr-defined]
        return finally_leaves or _leaves(normal_end)
    if type(last) is cst.With:
        return _leaves(last.body.body)  # type: ignore[attr-defined]
    return False


def _leaves_else(orelse: cst.If | cst.Else) -> bool:
    return _leaves(orelse.body.body) and (type(orelse) is cst.Else or orelse.orelse is not None and _leaves_else(orelse.orelse))  # type: ignore[union-attr]


def handles_gradients(root: cst.CSTNode) -> bool:
    """Whether code under ``root`` reads or writes a ``.grad`` or calls ``autograd.grad``: it
    does something with the gradients of each backward pass itself (gradient surgery,
    per-sample gradients), not only leave them for an optimizer."""
    return any(
        type(node) is cst.Attribute and node.attr.value == "grad"  # type: ignore[attr-defined]
        for node in subtree(root)
    )


def names_read(expression: cst.CSTNode) -> list[cst.Name]:
    """The plain variable names an expression reads, in order: ``flag`` and ``rank`` in
    ``flag and args.rank == 0`` but not ``rank`` (an attribute name); a lambda's body is not
    read when the expression is evaluated."""
    found: list[cst.Name] = []
    stack = [expression]
    while stack:
        node = stack.pop()
        if type(node) is cst.Name:
            found.append(node)  # type: ignore[arg-type]
        elif type(node) is cst.Attribute:
            stack.append(node.value)  # type: ignore[attr-defined]
        elif type(node) is not cst.Lambda:
            stack.extend(reversed(children(node)))
    return found


def replaces_fsdp1_parameters(call: cst.Call) -> bool:
    """Whether ``FullyShardedDataParallel(...)`` swaps in ``FlatParameter``s: it does unless
    ``use_orig_params=True`` (PyTorch's) or ``flatten_parameters=False`` (fairscale's) keeps
    the original parameter objects; an unknown setting counts as keeping them."""
    if has_star_kwargs(call):
        return False
    keeps = keyword_argument(call, "use_orig_params")
    flattens = keyword_argument(call, "flatten_parameters")
    return (keeps is None or literal_bool(keeps.value) is False) and (flattens is None or literal_bool(flattens.value) is True)



def is_detached(value: cst.BaseExpression) -> bool:
    """``loss.item()``, ``loss.detach()``, ``float(loss)``, ``loss.data`` (also indexed:
    ``loss.data[0]``): a value cut from the autograd graph."""
    while isinstance(value, cst.Subscript):
        value = value.value
    if isinstance(value, cst.Attribute):
        return value.attr.value == "data"
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Attribute):
        return value.func.attr.value in torch_api.DETACHING_METHODS
    return isinstance(value.func, cst.Name) and value.func.value in ("float", "int")


def assigned_pairs(node: cst.Assign) -> list[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """Each assigned target with its value; ``a, b = a.cuda(), b.cuda()`` pairs them up."""
    pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
    for target, value in ((assign_target.target, node.value) for assign_target in node.targets):
        unpacked = type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List)
        if unpacked and len(target.elements) == len(value.elements):
            pairs.extend((mine.value, theirs.value) for mine, theirs in zip(target.elements, value.elements))
        else:
            pairs.append((target, value))
    return pairs
