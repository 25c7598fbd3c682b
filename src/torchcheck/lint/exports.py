"""The file's side of the project index, kept during the shared walk.

:class:`ProjectFacts` runs right after the context and records, from the same tree and
without a walk of its own, what :mod:`torchcheck.lint.project` needs:

* **names** - what a name refers to across files (:meth:`ProjectFacts.symbol_of`): an
  import (relative ones included, which the context leaves unresolved) or a top-level
  definition of the file itself; rules put these symbols in the conditions of their
  deferred findings;
* **exports** - once the walk is done, the file's :class:`~torchcheck.lint.project.ExportSummary`:
  its top-level classes with what their ``forward`` ends with (softmax, sigmoid,
  log-softmax, per element of a returned tuple) and whether it opens ``autocast``, its
  top-level ``nn.Sequential``/activation values, the summaries of its top-level functions
  that call a training-protocol method, the names it imports, and its module-level flags
  (whether it may open an autocast region: any autocast spelling it calls, decorates with
  or passes on, FSDP's ``MixedPrecision``, an import of a mixed-precision framework), and
  the attribute names its ``_apply`` overrides move by name and the settings it assigns a
  number (configuration defaults such as ``cfg.MODEL.HEAD.POS_WEIGHT = 1.5``).

Everything is cheap: classes are read statement by statement (their ``forward`` only in
files that mention an activation), function summaries are made only for the functions that
call a protocol method, set ``.grad`` or shard a module (directly or through another function of the file),
and the lines that messages quote are found in the text instead of computing positions for
the whole file.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.buffers import ComputedBuffer, computed_non_persistent_buffers, methods_of, submodule_classes
from torchcheck.lint.distributed import guarded_by_rank
from torchcheck.lint.kinds import TENSOR_KINDS, Evidence, Kind
from torchcheck.lint.nodes import construction, dotted_name, is_autocast_name, is_number_literal, literal_value, one_line, self_attribute, source_text
from torchcheck.lint.project import (
    AUTOCAST,
    BASES,
    BACKPROPAGATED,
    BENCHMARK,
    DETERMINISTIC,
    DISTRIBUTED,
    INSTANCE_OUTPUT,
    MODULE_ATTRIBUTES,
    IMITATES_MODULE,
    MOVED_BY_APPLY,
    NO,
    NUMBER_SETTINGS,
    OTHER_ATTRIBUTES,
    OUTPUT,
    PASSED,
    GRAPH,
    GRAPH_ENTRIES,
    RETURNED_KINDS,
    TENSOR,
    STATELESS,
    TORCH_MODULE,
    UNGUARDED_CALLS,
    OWN_INSTANCE,
    METHOD_CALLS,
    GUARDED,
    UNGUARDED,
    YES,
    CallShape,
    Definition,
    ExportSummary,
    Fact,
    Symbol,
    is_mixed_precision_framework,
    returns_fact,
    text_facts,
    torch_module_via,
)
from torchcheck.lint.registration import is_stateless_module_class_def
from torchcheck.lint.ties import TIE, ties_of
from torchcheck.lint.torch_api import FUNCTIONAL_FORM_OF_LOSS, MODULE_ONLY_METHODS, PARAMETER_REPLACING, VALUE_KEEPING_METHODS

if TYPE_CHECKING:
    from torchcheck.lint.context import LintContext

SOFTMAX = "softmax"
SIGMOID = "sigmoid"
LOG_SOFTMAX = "log_softmax"
ACTIVATION_FUNCTIONS = {
    "torch.softmax": SOFTMAX,
    "torch.nn.functional.softmax": SOFTMAX,
    "torch.special.softmax": SOFTMAX,
    "torch.sigmoid": SIGMOID,
    "torch.nn.functional.sigmoid": SIGMOID,
    "torch.special.expit": SIGMOID,
    "torch.log_softmax": LOG_SOFTMAX,
    "torch.nn.functional.log_softmax": LOG_SOFTMAX,
    "torch.special.log_softmax": LOG_SOFTMAX,
}
ACTIVATION_MODULES = {"torch.nn.Softmax": SOFTMAX, "torch.nn.Sigmoid": SIGMOID, "torch.nn.LogSoftmax": LOG_SOFTMAX}
ACTIVATION_METHODS = {"softmax": SOFTMAX, "sigmoid": SIGMOID, "log_softmax": LOG_SOFTMAX}
SEQUENTIAL = "torch.nn.Sequential"

FORWARD_AUTOCAST = "forward_autocast"  # a class's fact: its forward opens an autocast region
# A module class's fact: it, or a module class of its file it builds, computes a non-persistent
# buffer in `__init__` (valued "yes", placed at the first such registration).
COMPUTED_BUFFER = "computed_non_persistent_buffer"

_BENCHMARK_FLAG = "torch.backends.cudnn.benchmark"
_DETERMINISTIC_FLAG = "torch.backends.cudnn.deterministic"
_DETERMINISTIC_CALLS = frozenset({"torch.use_deterministic_algorithms", "torch.set_deterministic"})
_DISTRIBUTED_CALLS = frozenset(
    {"torch.distributed.init_process_group", "torch.nn.parallel.DistributedDataParallel", "torch.nn.DistributedDataParallel"}
)
# FSDP's mixed precision policies cast the parameters themselves: no autocast is needed.
_MIXED_PRECISION_POLICIES = frozenset({"MixedPrecision", "MixedPrecisionPolicy"})
# torch functions that only ask about autocast (`torch.is_autocast_enabled()`) open nothing.
_AUTOCAST_QUERY_PREFIXES = ("is_", "get_")
_FLAG_CALL_NAMES = frozenset({"use_deterministic_algorithms", "set_deterministic", "init_process_group", "DistributedDataParallel"})
# Summaries are made only for the top-level functions that call one of the methods they
# record, directly or through another top-level function of the file.
_PROTOCOL_METHODS = frozenset({"eval", "train", "zero_grad", "step", "backward", "set_epoch", "unscale_", "update", "zero_"})
# Class facts are read only in files that can have them.
_ACTIVATION_TEXT = re.compile(r"[sS]oftmax|[sS]igmoid|expit")
# Text without any of these gives a summary with nothing but imports: such a file need not be
# parsed for the project's sake when no enabled rule parses it.
_SUMMARISED_TEXT = re.compile(
    r"\.(?:eval|train|zero_grad|step|backward|set_epoch|unscale_|update|zero_)\(|\.grad\b"
    r"|[sS]oftmax|[sS]igmoid|expit|autocast|MixedPrecision|init_process_group|DistributedDataParallel|deterministic"
    r"|def _apply\(|fully_shard|FullyShardedDataParallel|\.(?:weight|bias) = self\.|persistent=False"
    r"|[\"'](?:cuda|cpu|mps|xpu)[\"':]"  # a device string a function may return (`get_device()`)
    r"|[=(,]\s*[A-Z]\w*\("  # an instance built, maybe to hand to another file's function (PASSED)
    r"|\breturn\s+(?:cls|[A-Z]\w*)\(|=\s*cls\("  # an alternative constructor (OWN_INSTANCE)
    r"|\btorch\.\w+\(|\.detach\(\)"  # a tensor made, maybe to hand to another file's function (PASSED)
    r"|def (?:named_)?parameters\("  # a plain class that imitates a module (IMITATES_MODULE)
)
_TIE_TEXT = re.compile(r"\.(?:weight|bias) = self\.")
_TOP_LEVEL_DEFINITION = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)

_Scope = dict[str, "Symbol | None"]  # local name -> what it imports; None when ambiguous


def call_shape(call: cst.Call) -> CallShape:
    """How ``call`` passes its arguments, each spelled as the caller names it."""
    if any(argument.star for argument in call.args):
        return CallShape(opaque=True)
    positional = tuple(_spelled(argument.value) for argument in call.args if argument.keyword is None)
    keywords = tuple(
        (argument.keyword.value, _spelled(argument.value)) for argument in call.args if argument.keyword is not None
    )
    keys = [argument.keyword.value if argument.keyword is not None else index for index, argument in enumerate(call.args)]
    literals = tuple((key, value) for key, argument in zip(keys, call.args) if type(value := literal_value(argument.value)) in _STORED_LITERALS)
    return CallShape(positional, keywords, literals=literals)


_STORED_LITERALS = (str, int, bool, type(None))


def imported_callee(context: LintContext, call: cst.Call) -> Symbol | None:
    """The function ``call`` runs when it is a name imported from another module
    (``train_one_epoch(...)`` after ``from engine import train_one_epoch``, or
    ``engine.train_one_epoch(...)``); None for a def of this file, a method, a local."""
    if context.project is None or not isinstance(call.func, (cst.Name, cst.Attribute)):
        return None
    symbol = context.project.symbol_of(call.func)
    return symbol if symbol is not None and not symbol.is_local else None


def project_class_of(context: LintContext, name: str, near: cst.CSTNode) -> Symbol | None:
    """The class of another file of the project that made the value of ``name`` where
    ``near`` stands: its annotation (``model: Transformer``) or its constructor (``model =
    Transformer(cfg)``), when the name has that one binding; None otherwise."""
    project, binder = context.project, context.binder
    bindings = binder.bindings_of(name, binder.scope_of(near)) if project is not None else []
    if len(bindings) != 1:
        return None
    node = bindings[0].node
    if isinstance(node, cst.Param) and node.annotation is not None:
        maker = node.annotation.annotation
    elif isinstance(node, cst.Assign) and isinstance(node.value, cst.Call):
        maker = node.value.func
    else:
        return None
    symbol = project.symbol_of(maker)  # type: ignore[union-attr]
    return symbol if symbol is not None and not symbol.is_local else None


def _spelled(expression: cst.BaseExpression) -> str | None:
    """``model`` for ``model`` and for ``model.parameters()``, as function summaries do."""
    if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute) and not expression.args:
        if expression.func.attr.value in ("parameters", "named_parameters"):
            return dotted_name(expression.func.value)
    if isinstance(expression, cst.Name) and expression.value in ("None", "True", "False"):
        return None
    return dotted_name(expression)


class _TextLines:
    """Line numbers found in the file's text: the lines messages quote, without positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None
        self._definitions: dict[str, int] | None = None

    def line_at(self, offset: int) -> int:
        if self._starts is None:
            self._starts = [0] + [match.end() for match in re.finditer("\n", self.text)]
        return bisect.bisect_right(self._starts, offset)

    def definition(self, name: str) -> int:
        """The offset of the top-level ``def``/``class`` ``name`` (0 when not found)."""
        if self._definitions is None:
            self._definitions = {}
            for match in _TOP_LEVEL_DEFINITION.finditer(self.text):
                self._definitions.setdefault(match.group(1), match.start())
        return self._definitions.get(name, 0)

    def line_of(self, node: cst.CSTNode, after: int = 0) -> int:
        """The line where ``node``'s code first appears after ``after`` (else anywhere)."""
        first_line = source_text(node).split("\n", 1)[0]
        offset = self.text.find(first_line, after)
        if offset < 0:
            offset = self.text.find(first_line)
        return self.line_at(offset if offset >= 0 else after)


def offers_more_than_imports(text: str) -> bool:
    """Whether a full parse could find more in this file than its imports (a helper that
    steps an optimizer, a ``forward`` ending in a softmax, an autocast region): such a file
    is parsed for the project even when no enabled rule needs it, so that a run with one
    rule selected sees the same project as a run with all of them."""
    return _SUMMARISED_TEXT.search(text) is not None


def moved_attributes(apply: cst.FunctionDef) -> set[str]:
    """Attributes an ``_apply(self, fn)`` override moves by name: ``m.stride = fn(m.stride)``,
    ``self.grid = list(map(fn, self.grid))``. Another class, even of another file, may own
    them (a model moving its detection head's anchors), so only the attribute name is kept."""
    params = apply.params.params
    if len(params) < 2:
        return set()
    fn = params[1].name.value
    moved: set[str] = set()
    for assignment in _assignments_within(apply.body):
        if _calls_name(assignment.value, fn):
            moved.update(target.target.attr.value for target in assignment.targets if isinstance(target.target, cst.Attribute))
    return moved


def _assignments_within(node: cst.CSTNode) -> Iterator[cst.Assign]:
    """The assignments in ``node``'s body, nested blocks included (nested defs run later: skipped)."""
    for child in node.children:
        if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(child, cst.Assign):
            yield child
        yield from _assignments_within(child)


def _calls_name(expression: cst.CSTNode, name: str) -> bool:
    """Whether ``expression`` calls ``name`` or hands it to another call (``map(fn, xs)``)."""
    if isinstance(expression, cst.Call):
        if isinstance(expression.func, cst.Name) and expression.func.value == name:
            return True
        if any(isinstance(argument.value, cst.Name) and argument.value.value == name for argument in expression.args):
            return True
    return any(_calls_name(child, name) for child in expression.children)


def setting_path(expression: cst.BaseExpression) -> str | None:
    """``cfg.MODEL.HEAD.POS_WEIGHT`` as ``MODEL.HEAD.POS_WEIGHT``: a setting, spelled without
    the name of the object that holds it; None unless two attributes or more follow a name."""
    dotted = dotted_name(expression) if isinstance(expression, cst.Attribute) else None
    parts = dotted.split(".") if dotted is not None else []
    return ".".join(parts[1:]) if len(parts) > 2 else None


def _alternatives(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The values ``value`` may be: both branches of ``a if c else b``, each operand of
    ``a or b``; ``value`` itself otherwise."""
    if isinstance(value, cst.IfExp):
        return _alternatives(value.body) + _alternatives(value.orelse)
    if isinstance(value, cst.BooleanOperation):
        return _alternatives(value.left) + _alternatives(value.right)
    return [value]


def _is_name(expression: cst.BaseExpression, value: str) -> bool:
    return type(expression) is cst.Name and expression.value == value


class ProjectFacts:
    """Cross-file names and the export summary of one file (see the module docstring)."""

    def __init__(self, context: LintContext, text: str) -> None:
        self._context = context
        self._lines = _TextLines(text)
        self._scopes: list[tuple[bool, _Scope]] = [(False, {})]  # (is a class body, imports)
        self._top_level: dict[str, cst.CSTNode] = {}  # name -> its def, class or assignment
        self._definitions: dict[str, Definition] = {}
        self._modules: dict[Symbol, None] = {}
        self._flags: dict[str, Fact] = {}
        self._depth = 0  # of classes and functions around the current node
        self._function: cst.FunctionDef | None = None  # the top-level function being walked
        self._acting: set[cst.FunctionDef] = set()  # top-level functions calling a protocol method
        self._calls: dict[cst.FunctionDef, set[str]] = {}  # top-level function -> names it calls
        self._mentions_activation: bool | None = None
        self._mentions_autocast = AUTOCAST in text
        self._may_autocast = AUTOCAST in text.lower() or "MixedPrecision" in text
        self._may_shard = "fully_shard" in text or "FullyShardedDataParallel" in text
        self._may_tie = _TIE_TEXT.search(text) is not None
        self._may_compute_buffers = "persistent=False" in text
        self._buffers_of_class: dict[str, tuple[list[ComputedBuffer], set[str]]] = {}  # a class's own buffers and the classes it builds
        self._moved_by_apply: set[str] = set()  # attributes an `_apply` override moves by name
        self._may_distribute = "init_process_group" in text or "DistributedDataParallel" in text
        # imported name -> its calls outside a rank check, with the function each is in
        self._unguarded_calls: dict[str, list[tuple[cst.Call, cst.FunctionDef | None]]] = {}
        # `Class.method` -> its first call on an instance of the imported class, and whether every call is under a rank check
        self._method_calls: dict[str, tuple[cst.Call, bool]] = {}
        self._passed: dict[str, list[tuple[cst.Call, list[Any]]]] = {}  # PASSED: callee -> its calls, with what each passes
        self._distributing: set[cst.FunctionDef | None] = set()  # functions (None: the module) that set up a process group
        self._number_settings: dict[str, cst.Assign] = {}  # setting path -> where it is given a number
        # `self.<attribute>` assigned in a class's methods: a module the code constructs, or anything else
        self._attributes: dict[str, dict[str, cst.Assign]] = {MODULE_ATTRIBUTES: {}, OTHER_ATTRIBUTES: {}}
        self._star_names: dict[str, Symbol] = {}  # what `from <project module> import *` binds
        self._stars: list[Symbol] = []  # the modules star-imported at the top level

    # ----------------------------------------------------------------- queries
    def symbol_of(self, expression: cst.BaseExpression) -> Symbol | None:
        """What ``expression`` (a name or ``module.name``) refers to across files: an import,
        or a top-level definition of this file (``module=None``); None for anything else (a
        local variable, a parameter, a name bound twice to different imports)."""
        if isinstance(expression, cst.Name):
            return self._symbol_of_name(expression.value)
        if isinstance(expression, cst.Attribute):
            base = self.symbol_of(expression.value)
            if base is None or base.is_local:
                return None  # an attribute of a value of this file: not a module member
            return base.member(expression.attr.value)
        return None

    def _symbol_of_name(self, name: str) -> Symbol | None:
        binding = self._context.flow.last_binding(name)
        if binding is not None:
            return Symbol(None, name) if self._top_level.get(name) is binding.node else None
        innermost = len(self._scopes) - 1
        for index in range(innermost, -1, -1):
            is_class, imports = self._scopes[index]
            if is_class and index != innermost:
                continue
            if name in imports:
                return imports[name]
        if name in self._top_level:
            return Symbol(None, name)
        return self._star_names.get(name)

    # ----------------------------------------------------------------- names
    def visit_Module(self, node: cst.Module) -> None:
        for statement in node.body:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                self._top_level[statement.name.value] = statement
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                        self._top_level[small.targets[0].target.value] = small

    def _bind_import(self, local: str, symbol: Symbol) -> None:
        imports = self._scopes[-1][1]
        if local in imports and imports[local] != symbol:
            imports[local] = None  # `try: from a import x` / `except ImportError: from b import x`
        else:
            imports[local] = symbol

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted_name(alias.name)
            if full is None:
                continue
            self._note_framework(full, node)
            self._modules.setdefault(Symbol(full, ""))
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind_import(alias.asname.name.value, Symbol(full, ""))
            else:
                root = full.split(".", 1)[0]
                self._bind_import(root, Symbol(root, ""))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted_name(node.module) if node.module is not None else ""
        if module is None:
            return
        level = len(node.relative)
        if level == 0:
            self._note_framework(module, node)
        if isinstance(node.names, cst.ImportStar):
            self._modules.setdefault(Symbol(module, "", level))
            self._stars.append(Symbol(module, "", level))
            self._bind_star_import(module, level)
            return
        for alias in node.names:
            imported = dotted_name(alias.name)
            local = alias.asname.name if alias.asname is not None else alias.name
            if imported is None or not isinstance(local, cst.Name):
                continue
            if level == 0:
                self._note_framework(f"{module}.{imported}", node)  # `from apex import amp`
            self._modules.setdefault(Symbol(module, imported, level))
            self._bind_import(local.value, Symbol(module, imported, level))

    def _bind_star_import(self, module: str, level: int) -> None:
        """The names ``from <module> import *`` binds, when the module is a file of the
        project: below every name the file binds itself."""
        star = self._context.settings.star_import(module, level) if self._depth == 0 else None
        for name, origin, imported, origin_level in star.symbols() if star is not None else ():
            self._star_names[name] = Symbol(origin, imported, origin_level)

    def _note_framework(self, module: str, node: cst.CSTNode) -> None:
        if is_mixed_precision_framework(module):
            self._flag(AUTOCAST, node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._depth == 0:
            self._function = node
        elif self._scopes[-1][0] and node.name.value == "_apply":
            self._moved_by_apply |= moved_attributes(node)
        self._scopes.append((False, {}))
        self._depth += 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.pop()
        self._depth -= 1
        if self._depth == 0:
            self._function = None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes.append((True, {}))
        self._depth += 1

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes.pop()
        self._depth -= 1
        if self._depth == 0 and self._top_level.get(node.name.value) is node:
            self._definitions[node.name.value] = self._class_definition(node)

    # ----------------------------------------------------------------- module-level flags
    def _flag(self, name: str, node: cst.CSTNode) -> None:
        if name not in self._flags:
            self._flags[name] = Fact(YES, self._lines.line_of(node), f"`{one_line(node)}`")

    def leave_Assign(self, node: cst.Assign) -> None:
        for alternative in _alternatives(node.value):  # `amp_cm = autocast if args.amp else nullcontext`
            self._note_autocast(alternative, node)
        if is_number_literal(node.value):
            for target in node.targets:
                path = setting_path(target.target)
                if path is not None:
                    self._number_settings.setdefault(path, node)
        self._note_self_attributes(node)
        if self._function is not None and any(_is_grad(target.target) for target in node.targets):
            self._acting.add(self._function)  # `p.grad = None` clears gradients
        if not _is_name(node.value, "True"):
            return
        for target in node.targets:
            if isinstance(target.target, cst.Attribute) and target.target.attr.value in (BENCHMARK, DETERMINISTIC):
                qualified = self._context.qualified_name(target.target)
                if qualified == _BENCHMARK_FLAG:
                    self._flag(BENCHMARK, node)
                elif qualified == _DETERMINISTIC_FLAG:
                    self._flag(DETERMINISTIC, node)

    def _note_self_attributes(self, node: cst.Assign) -> None:
        attributes = [attribute for target in node.targets if (attribute := self_attribute(target.target)) is not None]
        if not attributes or self._context.current_class is None:
            return
        built = self._context.kind_and_evidence(node.value) if type(node.value) is cst.Call else None
        constructs_module = built is not None and built.kind is Kind.MODULE and built.evidence is Evidence.STRONG
        for attribute in attributes:
            self._attributes[MODULE_ATTRIBUTES if constructs_module else OTHER_ATTRIBUTES].setdefault(attribute, node)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        self._note_autocast(func, node)
        self._note_passed_instances(node)
        if self._may_distribute and type(func) is cst.Name:
            symbol = self._symbol_of_name(func.value)
            event = self._context.flow.event(node)
            if symbol is not None and not symbol.is_local and not guarded_by_rank(self._context, event):
                self._unguarded_calls.setdefault(func.value, []).append((node, event.function))
        elif self._may_distribute and type(func) is cst.Attribute and type(func.value) is cst.Name:
            self._note_method_call(node, func)
        last = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else None
        if self._function is not None and last is not None:
            if isinstance(func, cst.Attribute) and last in _PROTOCOL_METHODS:
                self._acting.add(self._function)
            elif self._may_shard and self._context.call_name(node) in PARAMETER_REPLACING:
                self._acting.add(self._function)  # shards a module it may be given
            elif isinstance(func, cst.Name):
                self._calls.setdefault(self._function, set()).add(last)
        if last not in _FLAG_CALL_NAMES:
            return
        qualified = self._context.call_name(node)
        if qualified in _DETERMINISTIC_CALLS and node.args and _is_name(node.args[0].value, "True"):
            self._flag(DETERMINISTIC, node)
        elif qualified in _DISTRIBUTED_CALLS:
            self._flag(DISTRIBUTED, node)
            self._distributing.add(self._context.flow.function)

    def _instance_maker(self, value: cst.BaseExpression, depth: int = 0) -> cst.Call | None:
        """The call that built the object ``value`` holds: ``Net(...)`` in ``Net().to(device)``,
        in ``copy.deepcopy(net)`` of it, or in what a name was last assigned."""
        if type(value) is cst.Name:
            statement = self._last_assignment(value)
            if statement is None or type(statement.targets[0].target) is not cst.Name:
                return None
            value = statement.value
        value = construction(value)
        if type(value) is cst.Call and value.args and depth < 2 and self._context.call_name(value) == "copy.deepcopy":  # type: ignore[attr-defined]
            return self._instance_maker(value.args[0].value, depth + 1)  # type: ignore[attr-defined]
        return value if type(value) is cst.Call else None

    def _last_assignment(self, name: cst.Name) -> cst.Assign | None:
        """The assignment to one target that last bound ``name``, at the walk's position."""
        binding = self._context.flow.last_binding(name.value)
        statement = binding.node if binding is not None else None
        return statement if type(statement) is cst.Assign and len(statement.targets) == 1 else None  # type: ignore[return-value]

    def _note_method_call(self, call: cst.Call, func: cst.Attribute) -> None:
        """``model.save(path)`` on an instance of an imported class, under a rank check or not."""
        maker = self._instance_maker(func.value)
        symbol = self._class_made_by(maker) if maker is not None else None
        if symbol is None or symbol.is_local:
            return
        key = f"{METHOD_CALLS}:{dotted_name(maker.func)}.{func.attr.value}"  # type: ignore[union-attr]
        guarded = guarded_by_rank(self._context, self._context.flow.event(call))
        first, all_guarded = self._method_calls.get(key, (call, True))
        self._method_calls[key] = first, all_guarded and guarded

    def _note_passed_instances(self, call: cst.Call) -> None:
        """A call of an imported function that passes an instance of a class (``train.dann(
        encoder, classifier, ...)`` after ``classifier = Classifier().to(device)``): which class
        each argument holds, for the callee's file to ask (see PASSED)."""
        if not call.args or any(argument.star for argument in call.args):
            return
        spelled = self._imported_callee(call.func)
        callee = self.symbol_of(call.func) if spelled is not None else None
        if spelled is None or (callee is not None and (callee.module or "").partition(".")[0] == "torch"):
            return  # `dist.all_reduce(t)`: torch's own functions ask nothing of the project
        passed = [self._passed_value(argument.value) for argument in call.args]
        if not any(passed):
            return
        positional = [found for argument, found in zip(call.args, passed) if argument.keyword is None]
        keywords = {argument.keyword.value: found for argument, found in zip(call.args, passed) if argument.keyword is not None}
        self._passed.setdefault(f"{PASSED}:{spelled}", []).append((call, [positional, keywords]))

    def _passed_value(self, value: cst.BaseExpression) -> list[Any] | dict[str, Any] | None:
        """What an argument holds, as PASSED records it: an instance of a class, a tensor the
        code shows, what calling an instance returned (``out = model(x)``, ``criterion(model(x),
        y)``) or one element of that (``conf`` after ``box, conf, cls = model(x)``); None for
        anything else."""
        instance = self._instance_class(value)
        if instance is not None:
            return instance.to_list()
        shown = self._context.kind_and_evidence(value)
        if shown.kind in TENSOR_KINDS and (shown.evidence > Evidence.CONVENTION or type(value) is not cst.Name):  # type: ignore[operator]
            return {"kind": GRAPH if shown.kind is Kind.GRAPH_TENSOR else TENSOR}  # `loss.detach()`: more than a name suggests
        loss = self._torch_loss(value)
        if loss is not None:
            return {"loss": loss}
        element = None
        if type(value) is cst.Name:
            statement = self._last_assignment(value)
            if statement is None:
                return None
            target = statement.targets[0].target
            if type(target) is cst.Tuple and all(type(item) is cst.Element for item in target.elements):
                element = next((index for index, item in enumerate(target.elements) if type(item.value) is cst.Name and item.value.value == value.value), None)
            elif type(target) is not cst.Name:
                return None
            value = statement.value
        called = self._instance_class(value.func) if type(value) is cst.Call and type(value.func) is cst.Name else None  # type: ignore[attr-defined]
        return {"output": called.to_list(), "element": element} if called is not None else None

    def _torch_loss(self, value: cst.BaseExpression, followed: bool = False) -> str | None:
        """The functional form of the torch loss ``value`` holds: ``nn.CrossEntropyLoss()``
        (also moved), ``F.cross_entropy``, or a name last assigned one of them."""
        qualified = self._context.qualified_name(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
        if qualified in FUNCTIONAL_FORM_OF_LOSS.values():
            return qualified
        if type(value) is cst.Name:
            statement = self._last_assignment(value) if not followed else None
            if statement is None or type(statement.targets[0].target) is not cst.Name:
                return None
            return self._torch_loss(statement.value, followed=True)
        value = construction(value)  # `nn.CrossEntropyLoss().to(device)`: the same loss
        return FUNCTIONAL_FORM_OF_LOSS.get(self._context.call_name(value) or "") if type(value) is cst.Call else None

    def _imported_callee(self, func: cst.BaseExpression) -> str | None:
        """How the file spells a function of another file it calls (``train.fit``), or the
        method of an instance of another file's class (``LocalUpdate.train`` for
        ``local.train(...)`` after ``local = LocalUpdate(...)``); None for anything else."""
        callee = self.symbol_of(func)
        if callee is not None and not callee.is_local:
            return dotted_name(func)
        receiver, method = (func.value, func.attr.value) if type(func) is cst.Attribute else (func, "forward")  # type: ignore[attr-defined]
        maker = self._instance_maker(receiver)  # calling an instance runs its `forward`
        owner = self.symbol_of(maker.func) if maker is not None else None
        return f"{dotted_name(maker.func)}.{method}" if owner is not None and not owner.is_local else None  # type: ignore[union-attr]

    def _instance_class(self, value: cst.BaseExpression) -> Symbol | None:
        """The class whose instance ``value`` is: ``Net(...)`` (also moved, ``Net().to(device)``),
        or a name whose last assignment is one."""
        maker = self._instance_maker(value)
        return self._class_made_by(maker) if maker is not None else None

    def _class_made_by(self, maker: cst.Call) -> Symbol | None:
        func = maker.func
        name = func.value if type(func) is cst.Name else func.attr.value if type(func) is cst.Attribute else ""  # type: ignore[attr-defined]
        if not name[:1].isupper():
            return None  # only a class (spelled as one) that may be the project's is worth recording
        symbol = self.symbol_of(func)
        return None if symbol is None or (symbol.module or "").partition(".")[0] == "torch" else symbol

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            self._note_autocast(item.item, item)

    def visit_Arg(self, node: cst.Arg) -> None:
        self._note_autocast(node.value, node)  # `partial(torch.autocast, "cuda")`, `amp_autocast=amp_autocast`

    def visit_Decorator(self, node: cst.Decorator) -> None:
        self._note_autocast(node.decorator, node)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            for alternative in _alternatives(node.value):  # `return torch.autocast("cuda") if amp else nullcontext()`
                self._note_autocast(alternative, node)

    def _note_autocast(self, expression: cst.BaseExpression, node: cst.CSTNode) -> None:
        """Flag the module when ``expression`` spells a way into autocast (see AUTOCAST)."""
        if self._may_autocast and AUTOCAST not in self._flags and self._spells_autocast(expression):
            self._flag(AUTOCAST, node)

    def _spells_autocast(self, expression: cst.BaseExpression) -> bool:
        if isinstance(expression, cst.Call):
            expression = expression.func
        if isinstance(expression, cst.Attribute):
            name = expression.attr.value
        elif isinstance(expression, cst.Name):
            name = expression.value
        else:
            return False
        if name in _MIXED_PRECISION_POLICIES:
            return True
        if AUTOCAST not in name.lower():
            return False
        qualified = self._context.qualified_name(expression)
        return not (qualified is not None and qualified.startswith("torch.") and name.startswith(_AUTOCAST_QUERY_PREFIXES))

    # ----------------------------------------------------------------- the summary
    def leave_Module(self, node: cst.Module) -> None:
        """Top-level values and function summaries (the context's summaries need the walk)."""
        for name, statement in self._top_level.items():
            if isinstance(statement, cst.Assign):
                definition = self._value_definition(name, statement)
                if definition is not None:
                    self._definitions[name] = definition
        summarised = self._functions_to_summarise()
        for name, statement in self._top_level.items():
            if isinstance(statement, cst.FunctionDef):
                self._definitions[name] = self._function_definition(statement, statement in summarised)

    def _functions_to_summarise(self) -> set[cst.FunctionDef]:
        """Top-level functions that call a protocol method, or a function of the file that does."""
        acting = set(self._acting)
        changed = True
        while changed:
            changed = False
            for function, called in self._calls.items():
                if function not in acting and any(self._top_level.get(name) in acting for name in called):
                    acting.add(function)
                    changed = True
        return acting

    def export_summary(self) -> ExportSummary:
        """The file's exports; call once the walk is complete."""
        flags = dict(self._flags)
        for flag in (AUTOCAST, BENCHMARK, DETERMINISTIC, DISTRIBUTED):
            flags.setdefault(flag, Fact(NO, 0, ""))
        flags.update(text_facts(self._lines.text))
        if self._moved_by_apply:
            flags[MOVED_BY_APPLY] = self._moved_fact()
        # only calls in the code that sets up the process group (a worker's `main()`, the
        # module's top level) surely run on every rank; a method or helper may be called on one
        for name, calls in self._unguarded_calls.items():
            for call, function in calls:
                if function not in self._distributing:
                    continue
                where = f"`{one_line(call)}` outside a rank check"
                flags[f"{UNGUARDED_CALLS}:{name}"] = Fact(YES, self._context.line_of(call), where)
                break
        if self._number_settings:
            first = next(iter(self._number_settings.values()))
            where = "a configuration default"
            flags[NUMBER_SETTINGS] = Fact(",".join(sorted(self._number_settings)), self._lines.line_of(first), where)
        for fact, assigned in self._attributes.items():
            if assigned:
                first = next(iter(assigned.values()))
                flags[fact] = Fact(",".join(sorted(assigned)), self._lines.line_of(first), f"`{one_line(first)}`")
        for key, (call, guarded) in self._method_calls.items():
            flags[key] = Fact(GUARDED if guarded else UNGUARDED, self._lines.line_of(call), f"`{one_line(call)}`")
        for key, calls in self._passed.items():  # where the first call is, found in the text: positions cost a codegen
            first = calls[0][0]
            flags[key] = Fact(json.dumps([shape for _, shape in calls]), self._lines.line_of(first), f"`{one_line(first)}`")
        imports = {name: symbol for name, symbol in self._star_names.items() if name not in self._top_level}
        imports.update((name, symbol) for name, symbol in self._scopes[0][1].items() if symbol is not None)
        return ExportSummary(dict(self._definitions), imports, tuple(self._modules), flags, stars=tuple(self._stars))

    def _moved_fact(self) -> Fact:
        line = self._lines.line_at(max(self._lines.text.find("def _apply("), 0))
        return Fact(",".join(sorted(self._moved_by_apply)), line, "an `_apply` override")

    def _function_definition(self, function: cst.FunctionDef, summarise: bool) -> Definition:
        start = self._lines.definition(function.name.value)
        line = self._lines.line_at(start)
        facts = self._returned_facts(function, None, line) if not function.name.value.startswith("_") else {}
        if not summarise:
            return Definition("function", line, facts)
        summary = self._context.summary_of(function)
        if not summary.shared_effects and not summary.exit_modes:
            return Definition("function", line, facts)
        line_of = lambda node: self._lines.line_of(node, start)
        stored = summary.with_lines(line_of).to_dict()
        cases = [
            {"parameter": parameter, "value": value, "other": other, "effects": [effect.to_dict() for effect in case.with_lines(line_of).shared_effects]}
            for parameter, value, other, case in self._context.literal_cases(function)
        ]
        if cases:
            compared = {case["parameter"] for case in cases}
            stored["compared"] = {parameter: self._context.compared_literals(function, parameter) for parameter in sorted(compared)}
            stored["cases"] = cases
        return Definition("function", line, facts, summary=stored)

    def _returned_facts(self, function: cst.FunctionDef, method: str | None, line: int) -> dict[str, Fact]:
        """The :data:`RETURNS` facts of a function, or of a class's ``method``. One that only
        hands on what a function of this file returns (a model zoo's ``resnet18()`` returning
        ``_create_resnet(...)``) is left out: summarising thousands of them costs more than
        the rare question about them."""
        returned = [statement.value for statement in _simple_statements(function.body) if isinstance(statement, cst.Return)]
        if all(self._delegates(value) for value in returned):
            return {}
        returns = self._context.summary_of(function).returns
        where = f"`{method or function.name.value}()`"
        found = {returns_fact(method): returns.kind} if returns.kind is not None else {}
        found.update({returns_fact(method, index): kind for index, kind in enumerate(returns.elements) if kind is not None})
        named = {fact: _returned_kind_name(kind) for fact, kind in found.items()}
        backpropagated = [returns_fact(method)] if returns.backpropagated else []
        named.update(dict.fromkeys([*backpropagated, *(returns_fact(method, index) for index in returns.backpropagated_elements)], BACKPROPAGATED))
        if returns.graph_entries:
            named[returns_fact(method)] = GRAPH_ENTRIES
        return {fact: Fact(name, line, where) for fact, name in named.items() if name in RETURNED_KINDS}

    def _delegates(self, value: cst.BaseExpression | None) -> bool:
        """``value`` is nothing, or a call of a top-level function of this file."""
        if value is None:
            return True
        return type(value) is cst.Call and type(value.func) is cst.Name and type(self._top_level.get(value.func.value)) is cst.FunctionDef  # type: ignore[attr-defined]

    def _value_definition(self, name: str, assignment: cst.Assign) -> Definition | None:
        found = layer_activation(self._context, assignment.value)
        if found is None:
            return None
        activation, layer = found
        line = self._lines.line_of(layer)
        fact = Fact(activation, line, f"`{one_line(layer)}`, the last layer of `{name}`")
        return Definition("value", self._lines.line_of(assignment), {OUTPUT: fact})

    # ----------------------------------------------------------------- classes
    def _class_definition(self, node: cst.ClassDef) -> Definition:
        start = self._lines.definition(node.name.value)
        facts: dict[str, Fact] = {}
        methods = {statement.name.value: statement for statement in node.body.body if isinstance(statement, cst.FunctionDef)}
        forward = methods.get("forward")
        if forward is not None:
            reader = _ForwardReader(self._context, self._lines, node, methods.get("__init__"), start)
            if self._mentions_activation is None:
                self._mentions_activation = _ACTIVATION_TEXT.search(self._lines.text) is not None
            if self._mentions_activation:
                facts.update(reader.outputs(forward))
            facts[FORWARD_AUTOCAST] = reader.autocast(forward, self._mentions_autocast)
        facts[TORCH_MODULE] = Fact(self._torch_module(node), self._lines.line_at(start), f"`{node.name.value}`")
        if facts[TORCH_MODULE].value == YES and is_stateless_module_class_def(self._context, node):
            facts[STATELESS] = Fact(YES, self._lines.line_at(start), f"`{node.name.value}`")
        if forward is not None and facts[TORCH_MODULE].value == NO and methods.keys() & MODULE_ONLY_METHODS:
            where = f"`{node.name.value}`, a plain class with its own `forward`"
            self._flags.setdefault(IMITATES_MODULE, Fact(YES, self._lines.line_at(start), where))
        bases = [self.symbol_of(base.value) for base in node.bases if base.keyword is None and not base.star]
        if bases:
            listed = json.dumps([base.to_list() for base in bases if base is not None])
            facts[BASES] = Fact(listed, self._lines.line_at(start), f"`{node.name.value}`")
        for name, method in methods.items():
            if name != "forward" and not name.startswith("_"):  # a module's call says what forward returns; private ones serve the class
                facts.update(self._returned_facts(method, name, self._lines.line_at(start)))
                if returns_fact(name) not in facts and references.returns_own_instance(method, node.name.value):
                    facts[returns_fact(name)] = Fact(OWN_INSTANCE, self._lines.line_at(start), f"`{node.name.value}.{name}()`")
        if self._may_compute_buffers:
            buffer = self._computed_buffer(node)
            if buffer is not None:
                where = f"`{buffer.owner}.{buffer.name}`"
                line = self._lines.line_of(buffer.registration, self._lines.definition(buffer.owner))
                facts[COMPUTED_BUFFER] = Fact(YES, line, where)
        if self._may_tie:
            for tie in ties_of(node):
                facts[f"{TIE}{tie.user}"] = Fact(tie.source, self._lines.line_of(tie.node, start), f"`{source_text(tie.node)}`")
        return Definition("class", self._lines.line_at(start), facts)

    def _computed_buffer(self, node: cst.ClassDef) -> ComputedBuffer | None:
        """The first non-persistent buffer computed in ``__init__`` by the class or by a module
        class of this file that it builds (transitively)."""
        classes = {name: value for name, value in self._top_level.items() if isinstance(value, cst.ClassDef)}
        pending, seen = [node.name.value], set()
        while pending:
            name = pending.pop()
            if name in seen or name not in classes:
                continue
            seen.add(name)
            if name not in self._buffers_of_class:
                self._buffers_of_class[name] = (computed_non_persistent_buffers(classes[name]), submodule_classes(classes[name], set(classes)))
            found, built = self._buffers_of_class[name]
            if found:
                return found[0]
            pending.extend(sorted(built))
        return None

    def _torch_module(self, node: cst.ClassDef) -> str:
        """YES when the file shows the class derives from ``nn.Module``; otherwise "via:" its
        bases that other files (or classes further down) define, or NO when it has none."""
        if self._context.is_module_class(node):
            return YES
        bases = [self.symbol_of(base.value) for base in node.bases if base.keyword is None and not base.star]
        return torch_module_via([base for base in bases if base is not None]) or NO


def _returned_kind_name(kind: Kind) -> str:
    return GRAPH if kind is Kind.GRAPH_TENSOR else TENSOR if kind in TENSOR_KINDS else kind.name.lower()


def opens_autocast(context: LintContext, item: cst.WithItem) -> bool:
    """``with torch.autocast(...)`` / ``with autocast():`` (enabled or not)."""
    expression = item.item
    function = expression.func if isinstance(expression, cst.Call) else expression
    return is_autocast_name(context.qualified_name(function))


def layer_activation(context: LintContext, expression: cst.BaseExpression) -> tuple[str, cst.Call] | None:
    """``nn.Softmax(...)`` -> ("softmax", the call); ``nn.Sequential(..., nn.Softmax())``
    -> the same for its last layer; else None."""
    if not isinstance(expression, cst.Call):
        return None
    qualified = context.call_name(expression)
    if qualified in ACTIVATION_MODULES:
        return ACTIVATION_MODULES[qualified], expression
    if qualified == SEQUENTIAL and expression.args:
        last = expression.args[-1]
        if last.keyword is None and not last.star:
            return layer_activation(context, last.value)
    return None


_Activation = tuple[str, cst.CSTNode]  # the activation and the node that applies it


_OutputKey = int | str | None  # a tuple's position, a dict's key, or None for the value itself
_MAX_NESTED_MODULES = 4  # module classes of the file whose outputs hand on another's


class _ForwardReader:
    """What a module class's ``forward`` returns: the activation each returned value (or
    each element of a returned tuple, or each entry of a returned dict with literal keys)
    ends with, when every ``return`` agrees."""

    def __init__(self, context: LintContext, lines: _TextLines, owner: cst.ClassDef, init: cst.FunctionDef | None, start: int, depth: int = 0) -> None:
        self._context = context
        self._lines = lines
        self._owner = owner
        self._start = start
        self._init = init
        self._depth = depth
        self._layer_cache: dict[str, _Activation | None] | None = None
        self._parts: dict[str, dict[_OutputKey, _Activation]] = {}  # `self.head = Head(...)`: what calling it returns

    def outputs(self, forward: cst.FunctionDef) -> dict[str, Fact]:
        facts = {}
        for key, (activation, node) in self._agreed(self._returned(forward)).items():
            fact = INSTANCE_OUTPUT if key is None else f"{INSTANCE_OUTPUT}.{key}"
            owner = self._context.binder.enclosing(node, cst.ClassDef)  # the class that applies it: this one, or a part's
            name = owner.name.value if isinstance(owner, cst.ClassDef) else self._owner.name.value
            facts[fact] = Fact(activation, self._lines.line_of(node, self._lines.definition(name)), f"`{one_line(node)}` in `{name}`")
        return facts

    def autocast(self, forward: cst.FunctionDef, possible: bool) -> Fact:
        opens = possible and any(opens_autocast(self._context, item) for item in _with_items(forward.body))
        return Fact(YES if opens else NO, self._lines.line_at(self._start), f"`{self._owner.name.value}.forward()`")

    @property
    def _layers(self) -> dict[str, _Activation | None]:
        """``self.<attr> = nn.Softmax(...)`` (or a Sequential ending in one, or a module class
        of the file whose output is an activation's) in ``__init__``, read the first time
        ``forward`` calls an attribute; an attribute assigned two different things is unknown (None)."""
        if self._layer_cache is None:
            self._layer_cache = self._activation_attributes()
        return self._layer_cache

    def _activation_attributes(self) -> dict[str, _Activation | None]:
        layers: dict[str, _Activation | None] = {}
        for method in (self._init,) if self._init is not None else ():
            for assignment in _assignments(method.body):
                for target in assignment.targets:
                    attribute = self_attribute(target.target)
                    if attribute is None:
                        continue
                    outputs = self._instance_outputs(assignment.value)
                    if outputs:
                        self._parts[attribute] = outputs if attribute not in layers else {}
                    found = layer_activation(self._context, assignment.value) or outputs.get(None)
                    if attribute in layers:
                        previous = layers[attribute]
                        found = found if previous is not None and found is not None and previous[0] == found[0] else None
                    layers[attribute] = found
        return layers

    def _instance_outputs(self, value: cst.BaseExpression) -> dict[_OutputKey, _Activation]:
        """For ``ExistHead(...)`` of a module class of this file: the activation each element
        its ``forward`` returns ends with."""
        if type(value) is not cst.Call or type(value.func) is not cst.Name or self._depth >= _MAX_NESTED_MODULES:
            return {}
        owner = references.class_named(self._context.binder, value.func.value)  # type: ignore[attr-defined]
        methods = methods_of(owner) if owner is not None else {}
        if "forward" not in methods:
            return {}
        start = self._lines.definition(owner.name.value)  # type: ignore[union-attr]
        reader = _ForwardReader(self._context, self._lines, owner, methods.get("__init__"), start, self._depth + 1)  # type: ignore[arg-type]
        return reader._agreed(reader._returned(methods["forward"]))

    def _returned(self, forward: cst.FunctionDef) -> list[dict[_OutputKey, _Activation | None]]:
        """Per ``return``: the activation of each returned element (under None for a plain value)."""
        names: dict[str, _Activation | None] = {}
        results: list[dict[_OutputKey, _Activation | None]] = []
        for statement in _simple_statements(forward.body):
            if isinstance(statement, cst.Assign):
                value = self._activation(statement.value, names)
                for target in statement.targets:
                    if isinstance(target.target, cst.Name):
                        names[target.target.value] = value
            elif isinstance(statement, cst.Return) and statement.value is not None:
                part = self._part_called(statement.value)
                results.append(part if part is not None else {key: self._activation(element, names) for key, element in _returned_elements(statement.value).items()})
        return results

    def _part_called(self, value: cst.BaseExpression) -> dict[_OutputKey, _Activation | None] | None:
        """``return self.head(features)``: what the part returns, element by element."""
        attribute = self_attribute(value.func) if type(value) is cst.Call else None  # type: ignore[attr-defined]
        if attribute is None or attribute not in self._layers:  # reading `__init__` for the layers finds the parts too
            return None
        return dict(self._parts[attribute]) if self._parts.get(attribute) else None

    def _activation(self, expression: cst.BaseExpression, names: dict[str, _Activation | None]) -> _Activation | None:
        if isinstance(expression, cst.Name):
            return names.get(expression.value)
        if not isinstance(expression, cst.Call):
            return None
        qualified = self._context.call_name(expression)
        if qualified is not None:
            return (ACTIVATION_FUNCTIONS[qualified], expression) if qualified in ACTIVATION_FUNCTIONS else None
        func = expression.func
        attribute = self_attribute(func)
        if attribute is not None:
            return self._layers.get(attribute)
        if isinstance(func, cst.Attribute) and func.attr.value in ACTIVATION_METHODS:
            return ACTIVATION_METHODS[func.attr.value], expression  # x.softmax(dim=-1)
        if isinstance(func, cst.Attribute) and func.attr.value in VALUE_KEEPING_METHODS:
            return self._activation(func.value, names)  # self.sigmoid(x).squeeze() still holds probabilities
        return None

    @staticmethod
    def _agreed(returned: list[dict[_OutputKey, _Activation | None]]) -> dict[_OutputKey, _Activation]:
        """The activation of each element that every ``return`` holds, returning the same elements."""
        if not returned or any(elements.keys() != returned[0].keys() for elements in returned):
            return {}
        agreed: dict[_OutputKey, _Activation] = {}
        for key, first in returned[0].items():
            if first is not None and all(elements[key] is not None and elements[key][0] == first[0] for elements in returned):  # type: ignore[index]
                agreed[key] = first
        return agreed


def _returned_elements(value: cst.BaseExpression) -> dict[_OutputKey, cst.BaseExpression]:
    """A tuple's elements by position, a dict's by literal key, else the value itself (under None)."""
    if isinstance(value, cst.Tuple):
        return {index: element.value for index, element in enumerate(value.elements)} if len(value.elements) != 1 else {None: value.elements[0].value}
    if isinstance(value, cst.Dict) and value.elements and all(isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString) for element in value.elements):
        return {element.key.evaluated_value: element.value for element in value.elements}  # type: ignore[union-attr]
    return {None: value}


def _is_grad(expression: cst.BaseExpression) -> bool:
    return isinstance(expression, cst.Attribute) and expression.attr.value == "grad"


def _bodies(statement: cst.CSTNode) -> Iterator[cst.BaseSuite]:
    """The blocks of a compound statement in source order (a nested def's or class's are
    not entered: they do not run with it)."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return
    for name in ("body", "handlers", "orelse", "finalbody", "cases"):
        part = getattr(statement, name, None)
        for item in part if isinstance(part, (tuple, list)) else (part,):
            if isinstance(item, cst.BaseSuite):
                yield item
            elif isinstance(item, cst.If):
                yield from _bodies(item)
            elif type(item) in (cst.Else, cst.Finally, cst.ExceptHandler, cst.MatchCase):
                yield item.body


def _statements(suite: cst.BaseSuite) -> Iterator[cst.CSTNode]:
    """Every statement of a body, nested blocks included, in source order; small statements
    of a line one by one."""
    for statement in suite.body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        else:
            yield statement
            for body in _bodies(statement):
                yield from _statements(body)


def _simple_statements(suite: cst.BaseSuite) -> Iterator[cst.BaseSmallStatement]:
    return (statement for statement in _statements(suite) if isinstance(statement, cst.BaseSmallStatement))


def _assignments(suite: cst.BaseSuite) -> Iterator[cst.Assign]:
    return (statement for statement in _statements(suite) if isinstance(statement, cst.Assign))


def _with_items(suite: cst.BaseSuite) -> Iterator[cst.WithItem]:
    for statement in _statements(suite):
        if isinstance(statement, cst.With):
            yield from statement.items
