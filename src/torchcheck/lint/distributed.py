"""What distributed training code looks like to the linter: rank checks, the DDP wrapper, and
the idioms that strip the ``module.`` prefix DDP adds to state-dict keys.

Several rules ask the same questions ("does this branch run on one rank only?", "is this
name the DistributedDataParallel wrapper?"), so they are answered here once, from the shared
control flow (:mod:`torchcheck.lint.flow`): a rank check is recognised by the names it reads,
however the project spells it (``args.rank % ngpus_per_node == 0``, ``is_main_process()``,
``dist.get_rank() == 0``, ``local_rank in [-1, 0]``, ``self.global_rank == 0``,
``accelerator.is_main_process``).
"""

from __future__ import annotations

import re
import weakref

import libcst as cst

from torchcheck.lint import idioms, references
from torchcheck.lint.binder import Binder
from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import BODY, ELSE, Branch, Event, Path
from torchcheck.lint.guards import never_together
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import dotted_name, self_attribute, subtree
from torchcheck.lint.walker import children

DDP_CLASSES = frozenset(
    {
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
        *idioms.DDP_WRAPPERS,
    }
)
# Calls that start a process group or wrap a model for one (frameworks included: lint/idioms.py).
# Calls that need a process group: a class whose methods make them runs inside one, on every rank.
COLLECTIVES = frozenset(
    f"torch.distributed.{name}" for name in
    ("all_reduce", "all_gather", "all_gather_object", "all_to_all", "broadcast", "broadcast_object_list", "reduce", "reduce_scatter", "gather", "scatter", "barrier")
)
PROCESS_GROUP_SETUP = frozenset({"torch.distributed.init_process_group", *DDP_CLASSES, *idioms.PROCESS_GROUP_STARTERS})
# Text that one of them leaves in a file: a rule about process groups reads no file without it.
PROCESS_GROUP_TEXT = ("init_process_group", "DistributedDataParallel", *idioms.PROCESS_GROUP_TEXT)
# Identifiers that name a rank or a "this process is the main one" flag (`should_save` and
# `is_world_process_zero()` are transformers' Trainer spellings).
_RANK_WORDS = re.compile(
    r"rank|master|main_process|is_main|main_proc|primary|global_zero|chief|process_zero|process_index|should_save",
    re.IGNORECASE,
)
# Whole identifiers that name a rank: `args.nr` (the node's rank, in the multi-node DDP
# tutorial's spelling that many training scripts copied).
_RANK_NAMES = frozenset({"nr"})
# Identifiers of a "this run is distributed" flag: `if ddp: ... else: <one process>`.
_DISTRIBUTED_WORDS = re.compile(r"^(ddp|is_ddp|distributed|is_distributed|use_ddp|multiprocessing_distributed)$", re.IGNORECASE)
_WORLD_SIZE = "world_size"
_SINGLE_PROCESS_SIZES = {("<=", "1"), ("==", "1"), ("<", "2")}
# Decorators that run the function on one rank only (Lightning, mmengine, accelerate ...).
_ONE_RANK_DECORATORS = re.compile(r"rank_zero|master_only|main_process_only|on_main_process|rank0", re.IGNORECASE)
# Spellings that strip DDP's `module.` prefix from state-dict keys.
_PREFIX_STRIPPERS = frozenset({"consume_prefix_in_state_dict_if_present", "removeprefix", "remove_prefix"})
_MODULE_PREFIX = re.compile(r"""^[rbuRBU]?['"]module\.?['"]$""")
_PREFIX_LENGTH = "7"  # len("module.")


def sets_up_process_group(context: LintContext, call: cst.Call) -> bool:
    """``dist.init_process_group(...)``, ``DDP(model)``, ``Accelerator()``, ``deepspeed.initialize(...)``,
    or a framework object's wrapping call (``accelerator.prepare(model)``, ``fabric.setup(model)``)."""
    qualified = context.qualified_name(call.func)
    if qualified in PROCESS_GROUP_SETUP:
        return not context.made_for_one_process(call, qualified)
    return _multi_process_wrap(context, call)


def _multi_process_wrap(context: LintContext, call: cst.Call) -> bool:
    """``accelerator.prepare(model)``, ``fabric.setup(model)``: a wrapping call of a framework
    object made for several processes (it wraps the model in DDP when launched on them)."""
    if not isinstance(call.func, cst.Attribute):
        return False
    framework = context.framework_of(call.func.value)
    if framework is None or not framework.distributed or context.is_one_process_framework(call.func.value):
        return False
    return call.func.attr.value in framework.wrapping_methods


def _identifiers(expression: cst.CSTNode, *, strings: bool = False) -> list[str]:
    """The names and attribute names an expression reads, nested calls included (and with
    ``strings`` its string literals: ``os.environ["RANK"]``)."""
    found = []
    stack = [expression]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) or (strings and isinstance(node, cst.SimpleString)):
            found.append(node.value)
        stack.extend(children(node))
    return found


def is_rank_check(test: cst.BaseExpression) -> bool:
    """Whether a condition asks which rank runs it (or whether this is the main process)."""
    return any(_RANK_WORDS.search(name) or name in _RANK_NAMES for name in _identifiers(test, strings=True))


def names_a_rank(expression: cst.BaseExpression) -> bool:
    """Whether a value is built from a rank (``f"ckpt_{rank}.pt"``): one per process."""
    return any("rank" in name.lower() or "process_index" in name for name in _identifiers(expression))


def _single_process_label(test: cst.BaseExpression) -> str | None:
    """The branch of ``if test:`` that runs only when the job is not distributed: ELSE for
    ``if ddp:`` / ``if args.distributed:``, BODY for ``if not ddp:`` and ``if world_size <= 1:``."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return BODY if _single_process_label(test.expression) == ELSE else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        last = _identifiers(test.left)[-1:] or [""]
        target = test.comparisons[0]
        size = target.comparator.value if isinstance(target.comparator, cst.Integer) else None
        operator = {cst.LessThanEqual: "<=", cst.Equal: "==", cst.LessThan: "<"}.get(type(target.operator))
        return BODY if last[0] == _WORLD_SIZE and (operator, size) in _SINGLE_PROCESS_SIZES else None
    name = dotted_name(test)
    if name is not None and _DISTRIBUTED_WORDS.match(name.rsplit(".", 1)[-1]):
        return ELSE
    return None


def runs_on_one_rank(decorator: cst.Decorator) -> bool:
    """``@rank_zero_only``, ``@master_only``, ``@accelerator.on_main_process`` ..."""
    target = decorator.decorator
    if isinstance(target, cst.Call):
        target = target.func
    return bool(_ONE_RANK_DECORATORS.search(dotted_name(target) or ""))


def _asks_rank(context: LintContext, test: cst.BaseExpression) -> bool:
    """A rank check, directly or through a name or an attribute of the class bound to one
    (``is_first = rank == 0``, ``self.can_save = self.is_main``)."""
    if is_rank_check(test):
        return True
    for name in _identifiers(test):
        binding = context.flow.last_binding(name)
        if binding is not None and binding.value is not None and _tests_rank(binding.value):
            return True
    owner = context.current_class  # `self.can_checkpoint = self.is_local_main if ... else self.is_main`
    attributes = {self_attribute(node) for node in subtree(test) if type(node) is cst.Attribute} - {None} if owner else set()
    stored = [value for attribute in attributes for value in context.values_stored_in(owner, attribute)]  # type: ignore[arg-type]
    if any(_tests_rank(value) for value in stored) or (stored and all(_is_spawn_index(context, value) for value in stored)):
        return True
    # `args.save_logs = args.logs and is_master(args)` anywhere in the file, then `if args.save_logs:`;
    # `args.gpu = gpu` of a worker that `mp.spawn` starts, then `if args.gpu == 0:`
    flags = {dotted_name(node) for node in subtree(test) if type(node) is cst.Attribute} - {None}
    values = [value for flag in flags for value in _attribute_flags(context).get(flag, ())]  # type: ignore[arg-type]
    named = [node for node in subtree(test) if type(node) is cst.Name]
    return any(_tests_rank(value) or _is_spawn_index(context, value) for value in values) or any(_is_spawn_index(context, name) for name in named)


# What `torch.multiprocessing.spawn(fn, ...)` starts: `fn(i, *args)` with `i` the process's index
_SPAWNS = frozenset({"torch.multiprocessing.spawn", "torch.multiprocessing.start_processes"})
_SPAWN_INDEXES: weakref.WeakKeyDictionary[Binder, set[cst.Param]] = weakref.WeakKeyDictionary()


def _is_spawn_index(context: LintContext, value: cst.BaseExpression, depth: int = 0) -> bool:
    """A name bound to the first parameter of a worker the file spawns: the process's local
    rank (``def main_worker(gpu, ngpus, args)`` started by ``mp.spawn(main_worker, ...)``),
    or to a parameter every call of the file fills with one (``Trainer(train_ds, rank)``
    building ``def __init__(self, dataset, gpu_id)``)."""
    if type(value) is not cst.Name:
        return False
    binder = context.binder
    if binder not in _SPAWN_INDEXES:
        _SPAWN_INDEXES[binder] = set(_spawned_indexes(context))
    indexes = _SPAWN_INDEXES[binder]
    return bool(indexes) and any(
        binding.node in indexes or (type(binding.node) is cst.Param and depth < 2 and _filled_with_spawn_index(context, binding.node, depth))  # type: ignore[arg-type]
        for binding in binder.reaching(value)
    )


def _filled_with_spawn_index(context: LintContext, param: cst.Param, depth: int) -> bool:
    passed = context.values_passed_to(param)
    return bool(passed) and all(_is_spawn_index(context, value, depth + 1) for value in passed)


def _spawned_indexes(context: LintContext) -> list[cst.Param]:
    found = []
    for node in subtree(context.binder.module_scope.node):
        if type(node) is cst.Call and node.args and context.call_name(node, ahead=True) in _SPAWNS:  # calls further down too  # type: ignore[attr-defined]
            worker = node.args[0].value  # type: ignore[attr-defined]
            bindings = context.binder.reaching(worker) or context.binder.bindings_of(worker.value, context.binder.module_scope) if type(worker) is cst.Name else []
            found.extend(
                binding.node.params.params[0] for binding in bindings if type(binding.node) is cst.FunctionDef and binding.node.params.params
            )
    return found


_FLAGS: weakref.WeakKeyDictionary[Binder, dict[str, list[cst.BaseExpression]]] = weakref.WeakKeyDictionary()


def _attribute_flags(context: LintContext) -> dict[str, list[cst.BaseExpression]]:
    """The values the file assigns to each dotted attribute (``args.save_logs``), found once per file."""
    binder = context.binder
    if binder not in _FLAGS:
        assigned: dict[str, list[cst.BaseExpression]] = {}
        for node in subtree(binder.module_scope.node):
            if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Attribute:  # type: ignore[attr-defined]
                assigned.setdefault(dotted_name(node.targets[0].target) or "", []).append(node.value)  # type: ignore[attr-defined]
        _FLAGS[binder] = assigned
    return _FLAGS[binder]


def _tests_rank(value: cst.BaseExpression) -> bool:
    """A value that is itself a rank check (``rank == 0``, ``is_main_process()``,
    ``args.is_master``); not one merely built from the rank (``Model(hp, net, rank)``,
    ``dict(cfg, device=rank)``), which a test of its other fields does not ask."""
    if type(value) is cst.Call:
        return is_rank_check(value.func)  # type: ignore[attr-defined]
    if type(value) is cst.IfExp:
        return _tests_rank(value.body) or _tests_rank(value.orelse)  # type: ignore[attr-defined]
    return type(value) in (cst.Comparison, cst.BooleanOperation, cst.UnaryOperation, cst.Name, cst.Attribute) and is_rank_check(value)


def _one_rank_label(test: cst.BaseExpression) -> str | None:
    """Which branch of a rank check runs on one rank: BODY for ``rank == 0``,
    ``is_main_process()``, ``ddp and rank == 0``; ELSE for ``rank != 0``, ``not is_main``;
    None when the spelling does not say (both branches are then taken as guarded)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _one_rank_label(test.expression)
        return None if inner is None else (ELSE if inner == BODY else BODY)
    if isinstance(test, cst.BooleanOperation):
        labels = {_one_rank_label(test.left), _one_rank_label(test.right)} - {None}
        if isinstance(test.operator, cst.And):
            return BODY if BODY in labels else None  # `ddp and rank == 0`: its else runs on the others
        return labels.pop() if len(labels) == 1 else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        operator = test.comparisons[0].operator
        if isinstance(operator, (cst.NotEqual, cst.GreaterThan, cst.NotIn)):
            return ELSE if is_rank_check(test) else None
        return BODY if is_rank_check(test) else None
    return BODY if is_rank_check(test) else None


def _one_rank_branch(context: LintContext, branch: Branch) -> bool:
    test = branch.owner.test  # type: ignore[attr-defined]
    if branch.label == _single_process_label(test):
        return True
    if not _asks_rank(context, test):
        return False
    label = _one_rank_label(test)
    return label is None or branch.label == label


def _rank_branch(context: LintContext, path: Path, *, either: bool = False) -> bool:
    """Inside a branch that runs on one rank: of a rank check, or the single-process branch
    of a "distributed?" test; with ``either``, inside any branch of a rank check."""
    for branch in path:
        if not isinstance(branch.owner, cst.If) or branch.label not in (BODY, ELSE):
            continue
        if _one_rank_branch(context, branch) or (either and _asks_rank(context, branch.owner.test)):
            return True
    return False


def guarded_by_rank(context: LintContext, event: Event) -> bool:
    """Whether ``event`` runs only on some ranks: inside the one-rank branch of a rank check,
    or after an early exit taken on a rank check (``if not is_main_process(): return``) in
    its function."""
    if _rank_branch(context, event.path):
        return True
    for exit in context.flow.exits:
        if exit.order > event.order or exit.function is not event.function:
            continue
        if not _rank_branch(context, exit.path, either=True):
            continue
        if isinstance(exit.node, (cst.Return, cst.Raise)):
            return True
        if exit.loops and exit.loops[-1] in event.loops:  # `continue` in a loop around the event
            return True
    return False


def is_ddp_wrap(context: LintContext, expression: cst.BaseExpression | None) -> bool:
    """``DistributedDataParallel(model, ...)`` however it was imported."""
    return isinstance(expression, cst.Call) and context.qualified_name(expression.func) in DDP_CLASSES


def is_ddp_name(context: LintContext, expression: cst.BaseExpression) -> bool:
    """A variable that holds a ``DistributedDataParallel(...)``: its binding reaching here,
    (see :func:`holds_ddp`) a helper's result or what every caller passes, or ``self.model``
    that the class re-binds to the wrapper where this read may follow it."""
    if self_attribute(expression) is not None:
        wraps = ddp_wraps_in_attribute(context, self_attribute(expression))  # type: ignore[arg-type]
        return bool(wraps) and not references.runs_before_through_methods(context.binder, expression, wraps, context.current_class)  # type: ignore[arg-type]
    if not isinstance(expression, cst.Name):
        return False
    binding = context.flow.last_binding(expression.value)
    if binding is not None and is_ddp_wrap(context, binding.value):
        # `if distributed: model = DDP(model)` ... `if distributed: ... else: model.state_dict()`: never both
        return not never_together(context.binder, binding.value, expression)
    return _prepared_model(context, expression) or holds_ddp(context, expression)


def _prepared_model(context: LintContext, name: cst.Name) -> bool:
    """``model, optimizer = accelerator.prepare(model, optimizer)``: a framework made for
    several processes wraps the model in ``DistributedDataParallel`` when launched on them
    (the argument at the name's position is a module)."""
    bindings = context.binder.reaching(name)
    if len(bindings) != 1 or type(bindings[0].node) is not cst.Assign:
        return False
    wrap = bindings[0].node.value  # type: ignore[attr-defined]
    if type(wrap) is not cst.Call or not _multi_process_wrap(context, wrap):
        return False
    index = references.unpacked_index(context.binder, bindings[0].target, bindings[0].node)
    wrapped = context.wrapped_modules(wrap) if index != -1 else None
    passed = wrapped[index or 0] if wrapped is not None and len(wrapped) > (index or 0) else None
    return passed is not None and context.kind_of(passed) is Kind.MODULE


def ddp_wraps_in_attribute(context: LintContext, attribute: str, owner: cst.ClassDef | None = None) -> list[cst.CSTNode]:
    """The statements of ``owner`` (the current class) that store a DDP wrapper in ``self.<attribute>``."""
    owner = owner or context.current_class
    found = references.self_attribute_references(context.binder, owner, attribute, escapes_allowed=True) if owner is not None else None
    wraps: list[cst.CSTNode] = []
    for reference in found or ():
        statement = context.binder.statement_of(reference)
        if isinstance(statement, cst.Assign) and is_ddp_wrap(context, statement.value) and any(target.target is reference for target in statement.targets):
            wraps.append(statement)
    return wraps


def holds_ddp(context: LintContext, expression: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether ``expression``, wherever it stands, holds a DDP wrapper: the wrap itself, a
    call of a function of the file whose every ``return`` is one (``wrap_ddp(model)``), a
    name every reaching assignment binds to one, a parameter every caller of the file
    passes one for, or ``self.<attribute>`` that its class binds to one."""
    if depth > 3:
        return False
    if isinstance(expression, cst.Call):
        function = references.called_function(context.binder, expression)
        returned = references.returned_values(function) if function is not None else []
        return is_ddp_wrap(context, expression) or bool(returned) and all(value is not None and holds_ddp(context, value, depth + 1) for value in returned)
    if (attribute := self_attribute(expression)) is not None:  # `self.model`, wrapped on the multi-GPU path
        owner = references.class_of_method(context.binder, context.binder.enclosing(expression, cst.FunctionDef))
        return owner is not None and bool(ddp_wraps_in_attribute(context, attribute, owner))
    if not isinstance(expression, cst.Name):
        return False
    bindings = context.binder.reaching(expression)
    if len(bindings) == 1 and type(bindings[0].node) is cst.Param:
        values = context.values_passed_to(bindings[0].node)  # type: ignore[arg-type]
    else:
        values = references.reaching_values(context.binder, expression)
    return bool(values) and all(holds_ddp(context, value, depth + 1) for value in values)


def strips_module_prefix(node: cst.CSTNode) -> bool:
    """Whether code under ``node`` strips ``module.`` from keys: ``k.replace("module.", "")``,
    ``k[7:]``, ``k[len("module."):]``, ``consume_prefix_in_state_dict_if_present`` ..."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.SimpleString) and _MODULE_PREFIX.match(current.value):
            return True
        if isinstance(current, cst.Name) and current.value in _PREFIX_STRIPPERS:
            return True
        if _drops_prefix_length(current):
            return True
        stack.extend(children(current))
    return False


def _drops_prefix_length(node: cst.CSTNode) -> bool:
    """``key[7:]``: the key without ``module.``."""
    return (
        isinstance(node, cst.Slice)
        and isinstance(node.lower, cst.Integer)
        and node.lower.value == _PREFIX_LENGTH
        and node.upper is None
    )
