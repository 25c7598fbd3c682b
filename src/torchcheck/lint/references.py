"""How one reference is used where it stands: questions a rule asks of the binder after the
walk, once it knows which nodes refer to a value.

The binder says *which* names refer to a binding. A rule that follows a value (a loader, a
sampler, an optimizer, a scaler) then asks what each reference does with it: whether it only
tests it (``if loader is None``, ``not loader``), is (part of) a binding (``loader = ...``,
``def f(x=loader)``, ``global loader``), is iterated by a ``for`` loop (also through
``enumerate``, ``tqdm``, ``zip`` or ``iter``), which loops run it once per iteration, and
whether it runs before a statement and never after it. ``self_attribute_references`` gives
for ``self.<name>`` what the binder gives for names, which it does not track: every
reference in a class, or None where ``self`` itself is passed on (code elsewhere can then
reach the attribute).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import libcst as cst

from torchcheck.lint.binder import Binder, Loop
from torchcheck.lint.buffers import methods_of
from torchcheck.lint.nodes import called_name, dotted_name, subtree
from torchcheck.lint.torch_api import ITERATION_WRAPPERS, MODULE_WRAPPERS, PER_DEVICE_LOADER_METHODS

_WRAPPER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in ITERATION_WRAPPERS)
_FRAMES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_TARGET_HOLDERS = (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor)
# Per file (dropped with its binder) and class: the walk behind self_attributes_by_name.
_SELF_ATTRIBUTES: weakref.WeakKeyDictionary[Binder, dict[int, tuple[dict[str, list[cst.Attribute]], bool]]] = weakref.WeakKeyDictionary()
_BINDING_PARENTS = (cst.AsName, cst.Param, cst.FunctionDef, cst.ClassDef, cst.ImportAlias, cst.NameItem)


def is_tested(binder: Binder, node: cst.CSTNode) -> bool:
    """Used only as a truth value or in a comparison: ``if sampler is None``, ``not loader``,
    ``x if loader else y`` (also as an operand of ``and``/``or`` there)."""
    above = binder.parent(node)
    while isinstance(above, cst.BooleanOperation):
        node, above = above, binder.parent(above)
    if isinstance(above, (cst.Comparison, cst.ComparisonTarget)):
        return True
    if isinstance(above, cst.UnaryOperation) and isinstance(above.operator, cst.Not):
        return True
    return isinstance(above, (cst.If, cst.While, cst.IfExp)) and node is above.test


# Calls that look at a callable without calling it: `isinstance(ctx, amp.autocast)`, `super(Net, self)`.
_INSPECTING_CALLS = frozenset({"isinstance", "issubclass", "hasattr", "getattr", "type", "id", "callable", "repr", "str", "print", "super"})
_CHOICES = (cst.IfExp, cst.BooleanOperation)


def handed_on_uncalled(binder: Binder, reference: cst.CSTNode) -> bool:
    """A function or class referred to without a call, handed on to be called later: an
    argument (``partial(amp.autocast, dtype=...)``, ``self._run(amp.autocast)``), or a value
    bound, stored, returned or defaulted, also as one side of a choice
    (``amp.autocast if fp16 else nullcontext``); not one a call only inspects
    (``isinstance(ctx, amp.autocast)``), nor a prefix of a longer name."""
    node, parent = reference, binder.parent(reference)
    while type(parent) in _CHOICES and node is not getattr(parent, "test", None):
        node, parent = parent, binder.parent(parent)
    if type(parent) is cst.Arg:
        call = binder.parent(parent)
        return type(call) is cst.Call and called_name(call) not in _INSPECTING_CALLS  # type: ignore[arg-type]
    if type(parent) in (cst.Assign, cst.AnnAssign, cst.Return, cst.Element, cst.DictElement, cst.Param):
        return getattr(parent, "value", None) is node or getattr(parent, "default", None) is node
    return False


def only_inspected(binder: Binder, reference: cst.CSTNode) -> bool:
    """A reference that a call only looks at: ``isinstance(x, Net)``, ``super(Net, self)``."""
    argument = binder.parent(reference)
    call = binder.parent(argument) if type(argument) is cst.Arg else None
    return type(call) is cst.Call and type(call.func) is cst.Name and call.func.value in _INSPECTING_CALLS  # type: ignore[attr-defined]


def is_bound(binder: Binder, node: cst.CSTNode) -> bool:
    """``node`` is an assignment, loop or ``with`` target or an element of a tuple or list
    assigned to (``a, loader = pair``; not of a nested one), or sits where a binding is
    made: a parameter (its name, default or annotation), a ``def``/``class`` name, an import
    alias, a ``global``/``nonlocal`` declaration."""
    above = binder.parent(node)
    if isinstance(above, _TARGET_HOLDERS) and node is above.target:
        return True
    if isinstance(above, _BINDING_PARENTS):
        return True
    return isinstance(above, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)) and any(
        isinstance(ancestor, cst.AssignTarget) for ancestor, _ in zip(binder.ancestors(node), range(3))
    )


def is_iteration_wrapper(node: cst.CSTNode | None) -> bool:
    """``enumerate(...)``, ``tqdm(...)``, ``zip(...)`` or ``iter(...)``: iterating it iterates
    its arguments."""
    return isinstance(node, cst.Call) and called_name(node) in _WRAPPER_NAMES


def iteration_wrapper(binder: Binder, node: cst.CSTNode) -> tuple[cst.Arg, cst.Call] | None:
    """``node`` as an argument of an iteration wrapper: that argument and what the code iterates
    (the call, or the device loader a torch_xla ``ParallelLoader`` hands out)."""
    argument = binder.parent(node)
    call = binder.parent(argument) if argument is not None else None
    if isinstance(argument, cst.Arg) and is_iteration_wrapper(call):
        return argument, _per_device(binder, call)  # type: ignore[arg-type]
    return None


def _per_device(binder: Binder, call: cst.Call) -> cst.Call:
    """``ParallelLoader(loader, devices).per_device_loader(device)``: the code iterates what the
    method returns; any other wrapper call is iterated itself."""
    method = binder.parent(call)
    outer = binder.parent(method) if type(method) is cst.Attribute and method.attr.value in PER_DEVICE_LOADER_METHODS else None
    return outer if type(outer) is cst.Call and outer.func is method else call  # type: ignore[return-value]


def iterating_loop(binder: Binder, node: cst.CSTNode) -> cst.For | None:
    """The ``for`` loop that iterates ``node``, directly or through iteration wrappers
    (``for i, b in enumerate(tqdm(loader))``); not through a keyword argument."""
    while (wrapped := iteration_wrapper(binder, node)) is not None:
        if wrapped[0].keyword is not None:
            return None
        node = wrapped[1]
    loop = binder.parent(node)
    return loop if isinstance(loop, cst.For) and node is loop.iter else None


def iterated_value(binder: Binder, loop: cst.For) -> cst.BaseExpression:
    """What a ``for`` loop draws from: its iterable, or the value of a name bound once by a
    plain assignment that reaches the loop (``it = trange(epochs)`` ... ``for _ in it:``),
    looked through iteration wrappers (``range(n)`` for ``enumerate(tqdm(range(n)))``)."""
    iterable = loop.iter
    reaching = binder.bindings_before(iterable) if isinstance(iterable, cst.Name) else []
    if len(reaching) == 1 and isinstance(reaching[0].node, cst.Assign):
        iterable = reaching[0].node.value
    while is_iteration_wrapper(iterable) and iterable.args:  # type: ignore[attr-defined]
        iterable = iterable.args[0].value  # type: ignore[attr-defined]
    return iterable


def assignment_of(binder: Binder, value: cst.CSTNode, *, as_branch: bool = False) -> cst.Assign | None:
    """The assignment to one target whose whole value is ``value`` (``loader = DataLoader(...)``);
    with ``as_branch``, also where ``value`` is a branch of that value
    (``sampler = DistributedSampler(ds) if distributed else None``)."""
    above = binder.parent(value)
    if as_branch and isinstance(above, cst.IfExp) and (value is above.body or value is above.orelse):
        value, above = above, binder.parent(above)
    if isinstance(above, cst.Assign) and above.value is value and len(above.targets) == 1:
        return above
    return None


def assigned_value(binder: Binder, name: cst.Name) -> cst.BaseExpression | None:
    """The value a used name holds when one assignment alone may reach the use (``criterion =
    nn.CrossEntropyLoss()``, then ``criterion``); None otherwise."""
    bindings = binder.bindings_before(name)
    return bindings[0].node.value if len(bindings) == 1 and type(bindings[0].node) is cst.Assign else None  # type: ignore[attr-defined]


def reaching_values(binder: Binder, name: cst.Name, *, unpacked: bool = False) -> list[cst.BaseExpression]:
    """The values every binding that may reach the use assigns to the name whole (``x = ...``);
    empty when one of them is anything else (a parameter, a loop target, ``a, b = ...``).
    With ``unpacked``, a name unpacked from a result (``sd, info = match(a, b)``) gives the
    whole value it was unpacked from."""
    bindings = binder.reaching(name)
    values = [
        binding.node.value  # type: ignore[attr-defined]
        for binding in bindings
        if type(binding.node) is cst.Assign and _whole_or_element(unpacked_index(binder, binding.target, binding.node), unpacked)
    ]
    return values if len(values) == len(bindings) else []


def _whole_or_element(index: int | None, unpacked: bool) -> bool:
    return index is None or (unpacked and index >= 0)


def class_of_method(binder: Binder, function: cst.CSTNode | None) -> cst.ClassDef | None:
    """The class whose body defines ``function`` (its body block, then the class); None for a
    function that is no method."""
    owner = binder.parent(binder.parent(function)) if function is not None else None  # type: ignore[arg-type]
    return owner if isinstance(owner, cst.ClassDef) else None


def is_method_receiver(binder: Binder, name: cst.Name) -> bool:
    """The name is bound by the first parameter of a method (``self`` of another class)."""
    bindings = binder.bindings_before(name)
    if len(bindings) != 1 or type(bindings[0].node) is not cst.Param:
        return False
    function = binder.enclosing(bindings[0].node, cst.FunctionDef)
    params = function.params.params if isinstance(function, cst.FunctionDef) else ()
    return class_of_method(binder, function) is not None and bool(params) and params[0] is bindings[0].node


def returned_values(function: cst.FunctionDef) -> list[cst.BaseExpression | None]:
    """What each ``return`` of ``function`` returns (None for a bare ``return``), nested
    functions, lambdas and classes left out."""
    return [statement.value for statement in return_statements(function)]


def return_statements(function: cst.FunctionDef) -> list[cst.Return]:
    """The ``return`` statements of ``function``, nested functions, lambdas and classes left out."""
    nested = lambda node: node is not function and isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
    return [node for node in subtree(function, nested) if isinstance(node, cst.Return)]


def top_level_parameter(binder: Binder, parameter: cst.Param) -> tuple[str, int] | None:
    """The top-level function ``parameter`` belongs to, or the method of a top-level class
    (``Class.method``; ``Class`` for its ``__init__``), and its position among the positional parameters a call passes (-1
    for one passed only by keyword); None for a nested function's, or a method's receiver."""
    function = binder.enclosing(parameter, cst.FunctionDef)
    if not isinstance(function, cst.FunctionDef):
        return None
    position = next((index for index, param in enumerate(function.params.params) if param is parameter), -1)
    if binder.scope_of(function) is binder.module_scope:
        return function.name.value, position
    owner = binder.scope_of(function).node
    static = any(getattr(decorator.decorator, "value", None) == "staticmethod" for decorator in function.decorators)
    if not isinstance(owner, cst.ClassDef) or binder.scope_of(owner) is not binder.module_scope or (position == 0 and not static):
        return None
    called = owner.name.value if function.name.value == "__init__" else f"{owner.name.value}.{function.name.value}"  # `Net(...)` runs `__init__`
    return called, position if static or position < 0 else position - 1


def file_function(binder: Binder, func: cst.BaseExpression) -> cst.FunctionDef | None:
    """The ``def`` of this file that a called name runs, when one binding alone reaches it."""
    bindings = binder.reaching(func) if type(func) is cst.Name else []
    return bindings[0].node if len(bindings) == 1 and type(bindings[0].node) is cst.FunctionDef else None  # type: ignore[return-value]


def called_function(binder: Binder, call: cst.Call) -> cst.FunctionDef | None:
    """The ``def`` of this file that ``call`` runs: a function a name binds
    (:func:`file_function`), or a method of the class of ``self`` (:func:`own_method`)."""
    return file_function(binder, call.func) or own_method(binder, call)


def instance_call_method(binder: Binder, func: cst.BaseExpression) -> cst.FunctionDef | None:
    """What calling an instance of a class of this file runs (``self.crit(out, tgt)`` after
    ``self.crit = Criterion(...)``): its ``__call__``, or a module's ``forward``."""
    owner = instance_class(binder, func)
    methods = methods_of(owner) if owner is not None else {}
    return methods.get("__call__") or methods.get("forward")


def instance_class(binder: Binder, value: cst.BaseExpression) -> cst.ClassDef | None:
    """The class of this file whose instance ``value`` holds: a construction of it, or a name
    or ``self.<attribute>`` every assignment of which constructs it."""
    if type(value) is cst.Call:
        values = [value]
    elif type(value) is cst.Name:
        values = reaching_values(binder, value)  # type: ignore[arg-type]
    else:
        read_attribute = type(value) is cst.Attribute and type(value.value) is cst.Name and value.value.value == "self"  # type: ignore[attr-defined]
        assigned = inherited_assignments(binder, value, value.attr.value) if read_attribute else []  # type: ignore[arg-type, attr-defined]
        values = [statement.value for statement, _ in assigned if type(statement) is cst.Assign]  # type: ignore[attr-defined]
        values = values if len(values) == len(assigned) else []
    makers = {item.func.value if type(item) is cst.Call and type(item.func) is cst.Name else None for item in values}  # type: ignore[attr-defined]
    maker = makers.pop() if len(makers) == 1 else None
    return class_named(binder, maker) if maker is not None else None


def returns_own_instance(method: cst.FunctionDef, owner: str) -> bool:
    """Every ``return`` of ``method`` hands back a new instance of its class: ``cls(...)``,
    ``Owner(...)``, or a name the method binds only to one (``net = Owner(...)``, ``return net``)."""
    returns = return_statements(method)
    if not returns or not all(type(statement.value) in (cst.Name, cst.Call) for statement in returns):
        return False
    classmethod_ = any(getattr(decorator.decorator, "value", None) == "classmethod" for decorator in method.decorators)
    classes = {owner, method.params.params[0].name.value} if classmethod_ and method.params.params else {owner}
    nested = lambda node: node is not method and isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
    bound: dict[str, list[cst.BaseExpression]] = {}
    for assignment in (node for node in subtree(method, nested) if type(node) is cst.Assign):
        for target in assignment.targets:  # type: ignore[attr-defined]
            if type(target.target) is cst.Name:
                bound.setdefault(target.target.value, []).append(assignment.value)  # type: ignore[attr-defined]
    returned = [bound.get(value.value, [value]) if type(value) is cst.Name else [value] for value in (statement.value for statement in returns)]  # type: ignore[union-attr]
    return all(type(made) is cst.Call and type(made.func) is cst.Name and made.func.value in classes for values in returned for made in values)  # type: ignore[attr-defined]


def own_method(binder: Binder, call: cst.Call) -> cst.FunctionDef | None:
    """The method that ``self.name(...)`` runs, ``self`` being the first parameter of a
    method of the class that defines ``name``; None for any other call."""
    func = call.func
    owner = receiver_class(binder, func.value) if type(func) is cst.Attribute and type(func.value) is cst.Name else None
    return methods_of(owner).get(func.attr.value) if owner is not None else None  # type: ignore[union-attr]


def receiver_class(binder: Binder, name: cst.Name) -> cst.ClassDef | None:
    """The class of the method whose first parameter binds ``name`` (``self``)."""
    if not is_method_receiver(binder, name):
        return None
    return class_of_method(binder, binder.enclosing(binder.bindings_before(name)[0].node, cst.FunctionDef))


def loops_around_calls(binder: Binder, node: cst.CSTNode) -> tuple[Loop, ...]:
    """The loops around the calls of the function that holds ``node`` (a ``train(epoch)``
    helper that the script's epoch loop calls, iterating a module-level loader), when the
    function is called by its name in this file."""
    function = binder.enclosing(node, cst.FunctionDef)
    own = binder.binding_made_by(function.name) if isinstance(function, cst.FunctionDef) else None
    calls = [binder.parent(use) for use in own.references] if own is not None else []
    return tuple(loop for call in calls if type(call) is cst.Call for loop in loops_running(binder, call))


def returned_as(binder: Binder, name: cst.Name) -> list[tuple[cst.FunctionDef, cst.BaseExpression]]:
    """What functions of this file return as what ``name`` holds, where they return it:
    ``(get_model, network)`` for ``net, head = get_model(opt)`` after ``return network, head``."""
    found: list[tuple[cst.FunctionDef, cst.BaseExpression]] = []
    for binding in binder.reaching(name):
        call = binding.node.value if type(binding.node) is cst.Assign else None  # type: ignore[attr-defined]
        function = called_function(binder, call) if type(call) is cst.Call else None
        index = unpacked_index(binder, binding.target, binding.node) if function is not None else -1
        for value in returned_values(function) if index != -1 else ():  # type: ignore[arg-type]
            if index is not None and type(value) in (cst.Tuple, cst.List) and index < len(value.elements):  # type: ignore[union-attr]
                value = value.elements[index].value  # type: ignore[union-attr]
            if value is not None and (index is None or type(value) not in (cst.Tuple, cst.List)):
                found.append((function, value))  # type: ignore[arg-type]
    return found


def arithmetic_around(binder: Binder, node: cst.BaseExpression) -> cst.BaseExpression:
    """The outermost arithmetic that ``node`` is an operand of (``x.cuda() / 127.5 - 1`` for
    ``x.cuda()``), or ``node`` itself."""
    while isinstance(above := binder.parent(node), (cst.BinaryOperation, cst.UnaryOperation)):
        node = above  # type: ignore[assignment]
    return node


def bound_by_callers(binder: Binder, returned: cst.CSTNode) -> list[tuple[cst.Name, cst.Assign]] | None:
    """``return loader`` in a function of this file: the name each call of the function binds
    the result to (``train_loader = build_data_loader()``), with the assignment; None when a
    call does anything else with it, or runs in a loop."""
    function = binder.enclosing(returned, cst.FunctionDef)
    own = binder.binding_made_by(function.name) if isinstance(function, cst.FunctionDef) else None
    if own is None or not own.references:
        return None
    bound = []
    for use in own.references:
        call = binder.parent(use)
        assignment = assignment_of(binder, call) if isinstance(call, cst.Call) and call.func is use and not binder.loops_around(call) else None
        target = assignment.targets[0].target if assignment is not None and len(assignment.targets) == 1 else None
        if not isinstance(target, cst.Name):
            return None
        bound.append((target, assignment))
    return bound  # type: ignore[return-value]


def unpacked_index(binder: Binder, target: cst.CSTNode, statement: cst.CSTNode) -> int | None:
    """Where an assignment puts the bound ``target``: None for the whole value, the index
    of its element in ``a, b = ...``, -1 when it cannot tell (nested or starred unpacking)."""
    element = binder.parent(target)
    if not isinstance(element, cst.Element):
        return None if isinstance(element, (cst.AssignTarget, cst.AnnAssign)) else -1
    unpacked = binder.parent(element)
    if not isinstance(unpacked, (cst.Tuple, cst.List)) or not isinstance(binder.parent(unpacked), cst.AssignTarget):
        return -1
    if any(isinstance(item, cst.StarredElement) for item in unpacked.elements):
        return -1
    return next(index for index, item in enumerate(unpacked.elements) if item is element)


def argument_of(binder: Binder, node: cst.CSTNode) -> cst.Call | None:
    """The call ``node`` is passed to as a whole argument (``train(model, loader)``,
    ``train(loader=loader)``), else None."""
    argument = binder.parent(node)
    call = binder.parent(argument) if argument is not None else None
    if isinstance(argument, cst.Arg) and isinstance(call, cst.Call) and argument.value is node:
        return call
    return None


def in_a_branch(binder: Binder, node: cst.CSTNode) -> bool:
    """``node`` sits in a branch of an ``if`` of its function (or module)."""
    return isinstance(binder.enclosing(node, cst.If, cst.FunctionDef), cst.If)


def on_other_branch(binder: Binder, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """``first`` and ``second`` sit in different branches of one ``if`` (its body, and its
    ``else`` or an ``elif``): one pass through that statement runs at most one of them."""
    branch_of = {id(owner): branch for owner, branch in _if_branches(binder, first)}
    for owner, branch in _if_branches(binder, second):
        if id(owner) in branch_of:
            return branch_of[id(owner)] is not branch and owner.test not in (branch, branch_of[id(owner)])  # type: ignore[attr-defined]
    return False


_SKIPPABLE = (cst.If, cst.For, cst.While, cst.Match, cst.ExceptHandler)
_BRANCHING = (*_SKIPPABLE, cst.Try, cst.TryStar)


def runs_whenever(binder: Binder, node: cst.CSTNode, other: cst.CSTNode) -> bool:
    """``other`` runs every time ``node`` does: after it, in the same block or one around it,
    in no ``if``, loop or ``match`` that does not also hold ``node`` (``self.w =
    nn.Parameter(self.w)`` under ``if trainable:`` leaves the other path with what came
    before), nor in another branch of one that does (the ``else`` of its ``if``)."""
    if not binder.precedes(node, other):
        return False
    around_node = set(map(id, binder.ancestors(node)))
    for ancestor in binder.ancestors(other):
        if id(ancestor) in around_node:
            return type(ancestor) not in _BRANCHING  # reached through another branch of it
        if type(ancestor) in _SKIPPABLE:
            return False
    return False


def _if_branches(binder: Binder, node: cst.CSTNode) -> list[tuple[cst.If, cst.CSTNode]]:
    """Each ``if`` around ``node``, innermost first, with its part holding ``node`` (its test,
    body or ``else``)."""
    found = []
    for ancestor in binder.ancestors(node):
        if isinstance(ancestor, cst.If):
            found.append((ancestor, node))
        node = ancestor
    return found


def loops_running(binder: Binder, node: cst.CSTNode) -> tuple[Loop, ...]:
    """The loops that run ``node`` once per iteration, within its function, outermost first:
    a ``for`` loop's body, a ``while`` loop's test and body (not a ``for`` loop's iterable,
    nor either loop's ``else``). Unlike ``Binder.loops_around`` it looks through
    comprehensions."""
    found = []
    for ancestor in binder.ancestors(node):
        if isinstance(ancestor, _FRAMES):
            break
        if isinstance(ancestor, cst.For) and node is ancestor.body or isinstance(ancestor, cst.While) and node is not ancestor.orelse:
            found.append(ancestor)
        node = ancestor
    return tuple(reversed(found))


def runs_before(binder: Binder, node: cst.CSTNode, statements: set[cst.Assign] | set[cst.CSTNode]) -> bool:
    """``node`` starts before each of ``statements`` and never runs after one: no loop holds
    both (``loader.dataset`` read before ``loader = DataLoader(...)`` rebinds the name)."""
    if not all(binder.precedes(node, statement) for statement in statements):
        return False
    around = set(binder.loops_around(node))
    return not any(loop in around for statement in statements for loop in binder.loops_around(statement))


def may_replace(binder: Binder, target: cst.CSTNode, statements: set[cst.Assign]) -> bool:
    """Whether the binding of ``target`` may replace the value ``statements`` bind before a
    later use: not when it runs before them, nor when it sits on another branch of their ``if``
    (the non-distributed loader of an ``else`` leaves the path through the ``if`` intact)."""
    if runs_before(binder, target, statements):
        return False
    return not all(on_other_branch(binder, target, statement) for statement in statements)


def runs_before_through_methods(binder: Binder, node: cst.CSTNode, statements: list[cst.CSTNode], owner: cst.ClassDef) -> bool:
    """``node`` runs before each of ``statements``: in their function (``runs_before``), or in
    another method of ``owner`` that the class calls (``self.load(path)``) only at places that
    run before them. A method nothing in the class calls is called from outside: False."""
    method = binder.enclosing(node, cst.FunctionDef)
    homes = {binder.enclosing(statement, cst.FunctionDef) for statement in statements}
    if homes == {method}:
        return runs_before(binder, node, set(statements))
    if method in homes or not isinstance(method, cst.FunctionDef) or binder.enclosing(method, cst.ClassDef) is not owner:
        return False
    references = self_attribute_references(binder, owner, method.name.value) or []
    calls = [binder.parent(reference) for reference in references]
    called_only = all(isinstance(call, cst.Call) and call.func is reference for call, reference in zip(calls, references))
    in_homes = all(binder.enclosing(call, cst.FunctionDef) in homes for call in calls)  # type: ignore[arg-type]
    return bool(calls) and called_only and in_homes and len(homes) == 1 and all(runs_before(binder, call, set(statements)) for call in calls)  # type: ignore[arg-type]


def self_attributes_by_name(binder: Binder, owner: cst.ClassDef) -> dict[str, list[cst.Attribute]] | None:
    """Every ``self.<name>`` in ``owner`` by name, in source order (bindings included, nested
    classes left out), in one walk per class and file; None where ``self`` is used as a value
    (``hook(self)``, ``return self``), except as ``super(Owner, self)``."""
    found, escapes = _self_attributes(binder, owner)
    return None if escapes else found


def self_attribute_assignments(binder: Binder, owner: cst.ClassDef, attribute: str) -> list[tuple[cst.CSTNode, cst.Attribute]]:
    """Each statement of ``owner`` that assigns ``self.<attribute>``, with its target, even
    where ``self`` is also used as a value."""
    found = [node for node in _self_attributes(binder, owner)[0].get(attribute, []) if is_bound(binder, node)]
    statements = (binder.parent(node) for node in found)
    return [(binder.parent(statement) if isinstance(statement, cst.AssignTarget) else statement, node) for statement, node in zip(statements, found)]  # type: ignore[misc]


def class_and_file_bases(binder: Binder, owner: cst.ClassDef) -> list[cst.ClassDef]:
    """``owner`` and the classes of this file it derives from, directly or not, nearest first."""
    found = [owner]
    for cls in found:
        for base in cls.bases:
            base_class = class_named(binder, base.value.value) if base.keyword is None and isinstance(base.value, cst.Name) else None
            if base_class is not None and base_class not in found:
                found.append(base_class)
    return found


def inherited_assignments(binder: Binder, read: cst.Attribute, attribute: str) -> list[tuple[cst.CSTNode, cst.Attribute]]:
    """Each statement that assigns ``self.<attribute>``, with its target, in the class of the
    method that reads it (``read``) and in the classes of this file it derives from."""
    owner = class_of_method(binder, binder.enclosing(read, cst.FunctionDef))
    classes = class_and_file_bases(binder, owner) if owner is not None else []
    return [assigned for cls in classes for assigned in self_attribute_assignments(binder, cls, attribute)]


def _self_attributes(binder: Binder, owner: cst.ClassDef) -> tuple[dict[str, list[cst.Attribute]], bool]:
    """Every ``self.<name>`` in ``owner`` by name, and whether ``self`` is used as a value."""
    by_class = _SELF_ATTRIBUTES.setdefault(binder, {})
    if id(owner) not in by_class:
        by_class[id(owner)] = _collect_self_attributes(binder, owner)
    return by_class[id(owner)]


def _collect_self_attributes(binder: Binder, owner: cst.ClassDef) -> tuple[dict[str, list[cst.Attribute]], bool]:
    found: dict[str, list[cst.Attribute]] = {}
    escapes = False
    nested_classes = lambda node: node is not owner and isinstance(node, cst.ClassDef)
    for node in subtree(owner, nested_classes, attribute_names=False):
        if isinstance(node, cst.Attribute):
            if isinstance(node.value, cst.Name) and node.value.value == "self":
                found.setdefault(node.attr.value, []).append(node)
        elif not escapes and isinstance(node, cst.Name) and node.value == "self" and _is_bare(binder, node):
            super_call = binder.parent(binder.parent(node))  # type: ignore[arg-type]
            escapes = not (isinstance(super_call, cst.Call) and called_name(super_call) == "super")
    return found, escapes


def self_attribute_references(binder: Binder, owner: cst.ClassDef, attribute: str, *, escapes_allowed: bool = False) -> list[cst.Attribute] | None:
    """Every ``self.<attribute>`` in ``owner`` (bindings included, nested classes left out),
    in source order; None where ``self`` is used as a value (``hook(self)``, ``return self``),
    except as ``super(Owner, self)``. With ``escapes_allowed``, the ones the class spells
    even then: enough to show what it stores somewhere, not everything done to it."""
    found, escapes = _self_attributes(binder, owner)
    return None if escapes and not escapes_allowed else found.get(attribute, [])


def _is_bare(binder: Binder, node: cst.Name) -> bool:
    """``self`` as a value: not an attribute's receiver, a parameter or a keyword's name (a
    name the binder gives no parent is an attribute's or a keyword's)."""
    above = binder.parent(node)
    if above is None or isinstance(above, (cst.Attribute, cst.Param)):
        return False
    return not (isinstance(above, cst.Arg) and node is above.keyword)


def class_named(binder: Binder, name: str) -> cst.ClassDef | None:
    """The module-level class ``name`` of this file, when that is all the name ever is."""
    bindings = binder.bindings_of(name, binder.module_scope)
    if not bindings or not all(isinstance(binding.node, cst.ClassDef) for binding in bindings):
        return None
    node = bindings[-1].node
    return node if isinstance(node, cst.ClassDef) else None


def other_branch_spells(binder: Binder, node: cst.CSTNode, spells: Callable[[cst.CSTNode], bool]) -> bool:
    """``node`` is on one branch of an ``if`` whose other branch holds a node for which
    ``spells`` holds: ``if new_torch(): S = torch.amp.GradScaler`` / ``else: S =
    torch.cuda.amp.GradScaler`` is a switch between two spellings, whatever the test calls."""
    child = node
    for ancestor in binder.ancestors(node):
        if type(ancestor) is cst.If:
            branches = [branch for branch in (ancestor.body, ancestor.orelse) if branch is not None]  # type: ignore[attr-defined]
            if any(branch is child for branch in branches):
                others = (branch for branch in branches if branch is not child)
                if any(spells(found) for branch in others for found in subtree(branch)):
                    return True
        child = ancestor
    return False


def wrapped_module(value: cst.BaseExpression, qualified_name: Callable[[cst.BaseExpression], str | None]) -> cst.BaseExpression:
    """The module a ``DataParallel(model)``/``DistributedDataParallel(model)`` wraps, whose
    mode a call on the wrapper sets; else ``value``."""
    if type(value) is cst.Call and value.args and not value.args[0].star and qualified_name(value.func) in MODULE_WRAPPERS:  # type: ignore[attr-defined]
        return value.args[0].value  # type: ignore[attr-defined]
    return value


def held_attribute(binder: Binder, name: cst.Name, qualified_name: Callable[[cst.BaseExpression], str | None], depth: int = 0) -> str | None:
    """The attribute path (``self.model``) a local holds on every path that reaches it, also
    through a wrapper whose mode calls reach it (``model = self.model``, then on one branch
    ``model = DataParallel(model)``); None when the paths disagree or it holds anything else."""
    found: set[str | None] = set()
    for value in reaching_values(binder, name) if depth < 4 else ():
        value = wrapped_module(value, qualified_name)
        found.add(held_attribute(binder, value, qualified_name, depth + 1) if type(value) is cst.Name else dotted_name(value) if type(value) is cst.Attribute else None)  # type: ignore[arg-type]
    return found.pop() if len(found) == 1 else None


def never_called_in_file(binder: Binder, function: cst.FunctionDef) -> bool:
    """A top-level function that its file never names again: only other files call it."""
    binding = binder.binding_made_by(function.name)
    return binding is not None and not binding.references and binder.enclosing(function, cst.FunctionDef, cst.ClassDef) is None


# What a tensor keeps through a write into its values: shape, type and place.
_METADATA_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "device", "is_cuda", "layout"})
_METADATA_METHODS = frozenset(
    {"size", "dim", "numel", "nelement", "ndimension", "type", "get_device", "new_zeros", "new_ones", "new_empty", "new_full"}
)
# `torch.randn_like(x)` takes only the shape, dtype and device of `x`.
_LIKE_FACTORIES = frozenset(f"{name}_like" for name in ("zeros", "ones", "empty", "full", "rand", "randn", "randint"))


def reads_only_metadata(binder: Binder, read: cst.Name) -> bool:
    """``len(x)``, ``x.shape``, ``x.size(0)``, ``torch.zeros_like(x)``: the read sees what a
    write into ``x``'s values (``x[:n] = y``, ``x.add_(1)``) leaves as it was."""
    parent = binder.parent(read)
    if isinstance(parent, cst.Attribute) and parent.value is read:
        if parent.attr.value in _METADATA_ATTRIBUTES:
            return True
        call = binder.parent(parent)
        return parent.attr.value in _METADATA_METHODS and isinstance(call, cst.Call) and call.func is parent
    call = binder.parent(parent) if isinstance(parent, cst.Arg) else None
    if not isinstance(call, cst.Call) or call.args[0] is not parent:
        return False
    function = call.func.attr.value if isinstance(call.func, cst.Attribute) else getattr(call.func, "value", None)
    return (function == "len" and len(call.args) == 1) or function in _LIKE_FACTORIES


_KEY_VIEWS = frozenset({"keys", "items", "values"})
_KEY_COPIES = frozenset({"list", "set", "tuple", "sorted"})


def unwrapped_keys(expression: cst.BaseExpression) -> cst.BaseExpression:
    """``sd`` for ``list(sd.keys())``, ``set(sd)``, ``sd.items()``: the dict whose entries
    these hold one for one (not ``set(k.split(".")[2] for k in sd)``, which holds others)."""
    while True:
        if type(expression) is cst.Call and type(expression.func) is cst.Name and expression.func.value in _KEY_COPIES and len(expression.args) == 1:
            expression = expression.args[0].value
        elif type(expression) is cst.Call and type(expression.func) is cst.Attribute and expression.func.attr.value in _KEY_VIEWS and not expression.args:
            expression = expression.func.value
        else:
            return expression


def kept(binder: Binder, value: cst.BaseExpression) -> bool:
    """Whether ``value`` is kept rather than used up in the expression around it: the whole
    value of an assignment or a ``return``, or the value ``setattr`` stores."""
    parent = binder.parent(value)
    if isinstance(parent, (cst.Assign, cst.AnnAssign, cst.Return)):
        return parent.value is value
    call = binder.parent(parent) if isinstance(parent, cst.Arg) else None
    return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "setattr"
