"""What each function of a file does to its parameters, to ``self`` and to module-level names.

A :class:`FunctionSummary` says, for one ``def``, which of the training-protocol methods
(``eval()``, ``train()``, ``zero_grad()``, ``step()``, ``backward()``, ``set_epoch()``,
``unscale_()``, ``update()``) it calls on what, and the gradient clips it runs - on every
path that returns (MUST) or on some (MAY) -, in which mode (train/eval) it leaves each module on its exits, and what it
returns. Rules ask :meth:`~torchcheck.lint.context.LintContext.summary_of` and map a call's
arguments onto the callee's parameters with
:meth:`~torchcheck.lint.context.LintContext.resolve_call`, so ``evaluate(model)`` is known
to leave ``model`` in eval mode.

Like Pysa's summaries, each is computed once, on demand, by a structural pass over the
function's statements (a sequence composes, ``if``/``else`` and ``match`` join - MUST is the
intersection of the branches, MAY their union -, a loop or a ``try`` body may be skipped,
``return`` ends a path and ``raise`` ends it without returning), and memoised. Calls to
other functions of the file are resolved to their summaries, iterating to a fixpoint where
functions call each other; the depth of nested summaries is bounded.

Summaries are plain frozen values with a stable, sorted ``to_dict()``/``from_dict()`` so a
project index can store them per file and resolve helpers imported from other files.
"""

from __future__ import annotations

import builtins
import enum
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

import libcst as cst

from torchcheck.lint import idioms, references, torch_api
from torchcheck.lint.kinds import TENSOR_KINDS, GradMode, Kind, grad_mode_of, tensor_method_kind
from torchcheck.lint.literals import OTHER_LITERAL
from torchcheck.lint.nodes import NOT_A_LITERAL, argument_for, called_name, dotted_name, is_none, literal_value, one_line, replaces_fsdp1_parameters, subtree
from torchcheck.lint.walker import children

if TYPE_CHECKING:
    from torchcheck.lint.binder import Binder

# Methods whose calls a summary records.
ACTIONS = frozenset({"eval", "train", "zero_grad", "step", "backward", "set_epoch", "unscale_", "update"})
# Methods that do what an action does under another name: Lightning's `self.manual_backward(loss)`.
_SYNONYMS = {name: "backward" for name in idioms.SELF_BACKWARD_METHODS}
# The target of an effect on a value the function made itself (a local loss's `backward()`,
# `scaler.scale(loss).backward()`): the callee did it, but on nothing the caller can name.
ANONYMOUS = "<value>"

EVAL = "eval"
TRAIN = "train"
FORWARD = "forward"  # the function calls the value (runs a module it can name)
UNCHANGED = "unchanged"
CLEARED, BOTH = "cleared", "stepped and cleared"
# The effect a ``backward()`` has on a module that is surely in eval mode when it runs: the
# function trains that module in eval mode on purpose (a linear probe keeps batch-norm
# statistics frozen). Only ``backward()`` counts: ``step()`` may be a scheduler's after validating.
BACKWARD_IN_EVAL = "backward_in_eval"
# A ``backward()`` after the function itself put the module in train mode on every path to it
# (``model.train()`` first thing in each epoch of its loop): it trains in the mode it sets.
BACKWARD_IN_TRAIN = "backward_in_train"

_NON_CONTIGUOUS_METHODS = frozenset({"t", "transpose", "permute", "swapaxes", "swapdims", "movedim"})
_NON_CONTIGUOUS_ATTRIBUTES = frozenset({"T", "mT", "H", "mH"})
_PROBABILITY_FUNCTIONS = frozenset({"softmax", "sigmoid"})
_BUILTINS = frozenset(vars(builtins))
_MAX_DEPTH = 12  # nested summaries computed at once; deeper helpers count as doing nothing
_MAX_ROUNDS = 4  # fixpoint iterations for functions that call each other
_MAX_ALIAS_DEPTH = 8  # names, method chains and operands of a returned value are followed this deep


class Unresolved(enum.Enum):
    """What a name means at a call, when it is not a ``def`` of this file."""

    UNBOUND = "unbound"  # nothing in the file bound it yet: maybe a function defined further down
    OTHER = "other"  # bound to something else: an import, a variable, a parameter


class Certainty(enum.Enum):
    MUST = "must"  # on every path that returns normally
    MAY = "may"  # on some path


@dataclass(frozen=True)
class Site:
    """Where an effect happens, for messages that name the other place."""

    function: str  # the qualified name of the function: `evaluate`, `Trainer.fit`
    code: str  # the call, on one line: `model.eval()`
    line: int | None = None  # filled by with_lines(), or read from a stored summary
    node: cst.CSTNode | None = field(default=None, compare=False, repr=False)

    def describe(self, line_of: Callable[[cst.CSTNode], int] | None = None) -> str:
        """For messages: ``model.eval()`` in ``evaluate()`` at line 41 (in backquotes)."""
        line = self.line
        if line is None and self.node is not None and line_of is not None:
            line = line_of(self.node)
        where = f"`{self.code}` in `{self.function}()`"
        return f"{where} at line {line}" if line is not None else where

    def to_dict(self) -> dict[str, Any]:
        return {"function": self.function, "code": self.code, "line": self.line}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Site:
        return cls(str(data["function"]), str(data["code"]), data.get("line"))


@dataclass(frozen=True)
class Effect:
    """``action`` called on ``target`` (a parameter path such as ``model`` or
    ``self.optimizer``, a module-level name, or :data:`ANONYMOUS`)."""

    action: str
    target: str
    certainty: Certainty
    site: Site

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "target": self.target, "certainty": self.certainty.value, "site": self.site.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Effect:
        return cls(str(data["action"]), str(data["target"]), Certainty(data["certainty"]), Site.from_dict(data["site"]))


@dataclass(frozen=True)
class ExitMode:
    """The train/eval modes ``target`` may be in when the function returns (sorted, out of
    ``eval``, ``train`` and ``unchanged``), and the ``eval()`` call that may leave it so."""

    target: str
    modes: tuple[str, ...]
    eval_site: Site | None

    @property
    def leaves_eval(self) -> Certainty | None:
        """MUST: every exit leaves ``target`` in eval mode; MAY: some exit does."""
        if self.modes == (EVAL,):
            return Certainty.MUST
        return Certainty.MAY if EVAL in self.modes else None

    def to_dict(self) -> dict[str, Any]:
        site = self.eval_site.to_dict() if self.eval_site is not None else None
        return {"target": self.target, "modes": list(self.modes), "eval_site": site}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExitMode:
        site = data.get("eval_site")
        return cls(str(data["target"]), tuple(data["modes"]), Site.from_dict(site) if site else None)


@dataclass(frozen=True)
class Returns:
    """What the function returns on every path that returns: its kind where all paths agree,
    whether it is always a softmax/sigmoid output or a non-contiguous view, and whether it is
    always a container holding a loss it backpropagated."""

    kind: Kind | None = None
    probabilities: bool = False  # softmax() / sigmoid() output
    non_contiguous: bool = False  # .t(), .transpose(), .permute(), .T ...
    # `parts["total"].backward()` then `return parts`, or `return {"loss": loss, ...}` after
    # `loss.backward()`: a dict or list whose entries carry the graph
    graph_entries: bool = False
    # `return indices, weights`: each element's kind, where every return is a tuple of that length
    elements: tuple[Kind | None, ...] = ()
    # `self.loss.backward()` then `return self.loss, stats`: the value, or the elements (by
    # position), that the function itself backpropagated
    backpropagated: bool = False
    backpropagated_elements: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.name if self.kind is not None else None
        found: dict[str, Any] = {"kind": kind, "probabilities": self.probabilities, "non_contiguous": self.non_contiguous}
        if self.elements:
            found["elements"] = [element.name if element is not None else None for element in self.elements]
        if self.backpropagated or self.backpropagated_elements:
            found["backpropagated"] = [-1] if self.backpropagated else list(self.backpropagated_elements)
        return {**found, "graph_entries": True} if self.graph_entries else found

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Returns:
        kind = Kind[data["kind"]] if data.get("kind") else None
        elements = tuple(Kind[name] if name else None for name in data.get("elements", ()))
        positions = tuple(data.get("backpropagated", ()))
        return cls(
            kind, bool(data["probabilities"]), bool(data["non_contiguous"]), bool(data.get("graph_entries")), elements,
            positions == (-1,), positions if positions != (-1,) else (),
        )


class ParameterKind(enum.Enum):
    POSITIONAL_ONLY = "positional-only"
    POSITIONAL = "positional"
    KEYWORD_ONLY = "keyword-only"
    VAR_POSITIONAL = "*args"
    VAR_KEYWORD = "**kwargs"


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: ParameterKind
    has_default: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind.value, "has_default": self.has_default}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Parameter:
        return cls(str(data["name"]), ParameterKind(data["kind"]), bool(data["has_default"]))


@dataclass(frozen=True)
class Delegation:
    """A call the function makes to a function it cannot summarise (one imported from another
    file, ``synthesis.tts(model, text)``), passing its own parameters: ``positional`` and
    ``keywords`` spell each argument by the parameter it passes (None for anything else), so
    a caller can ask the project what the callee does to what the caller handed over."""

    callee: str  # as the file spells it: `synthesis.tts`, `tts`
    positional: tuple[str | None, ...]
    keywords: tuple[tuple[str, str | None], ...]

    @property
    def passed(self) -> frozenset[str]:
        """The names the call hands over."""
        return frozenset(name for name in (*self.positional, *(name for _, name in self.keywords)) if name is not None)

    def spelled_by(self, spell: Callable[[str], str | None]) -> Delegation:
        """The same call with each name handed over spelled as ``spell`` says (None: no name there)."""
        return Delegation(
            self.callee,
            tuple(spell(name) if name is not None else None for name in self.positional),
            tuple((keyword, spell(name) if name is not None else None) for keyword, name in self.keywords),
        )


@dataclass(frozen=True)
class FunctionSummary:
    """What one function does; every tuple is sorted, so equal behaviour compares equal."""

    name: str  # qualified within its file: `train`, `Trainer.fit`, `main.<locals>.step`
    parameters: tuple[Parameter, ...]
    binds_first: bool  # a method or classmethod: its first parameter comes from the receiver
    effects: tuple[Effect, ...] = ()
    exit_modes: tuple[ExitMode, ...] = ()
    returns: Returns = Returns()
    # calls of functions of other files handed a parameter (kept in this file's summaries only)
    delegations: tuple[Delegation, ...] = ()

    def effect(self, action: idioms.Effect, target: str | None = None, *, certainty: Certainty = Certainty.MAY) -> Effect | None:
        """The effect ``action`` (on ``target``, or on anything), at least as certain as asked.
        ``action`` is an :class:`~torchcheck.lint.idioms.Effect`: a misspelled name must fail
        loudly, not answer "never"."""
        if not isinstance(action, idioms.Effect):
            raise TypeError(f"ask about an idioms.Effect, not {action!r}")
        for effect in self.effects:
            if effect.action == action and (target is None or effect.target == target):
                if certainty is Certainty.MAY or effect.certainty is Certainty.MUST:
                    return effect
        return None

    def does(self, action: idioms.Effect, *, certainty: Certainty = Certainty.MAY) -> bool:
        return self.effect(action, certainty=certainty) is not None

    def may_train(self) -> set[str]:
        """What the function may train: nothing when it neither backpropagates nor steps (a
        sampler, ``sample_fid(model)``); else what it runs with gradients on and what it
        hands to functions of other files (a teacher it runs only under ``no_grad()`` is not
        among them)."""
        if not (self.does(idioms.Effect.BACKWARD) or self.does(idioms.Effect.STEP)):
            return set()
        run = {effect.target for effect in self.effects if effect.action == idioms.Effect.FORWARD}
        return run | {name for delegation in self.delegations for name in delegation.passed}

    @property
    def shared_effects(self) -> tuple[Effect, ...]:
        """The effects other files are told of. Which modules a function runs matters to a
        caller that trains them, here or through a helper of the file that backpropagates
        (``loss = self._loss(x)`` in ``_train_step``); stored for every function of the
        project, it would swell the index: another file learns it only from a function that
        backpropagates itself."""
        if any(effect.action == "backward" for effect in self.effects):
            return self.effects
        return tuple(effect for effect in self.effects if effect.action != FORWARD)

    def exit_mode(self, target: str) -> ExitMode | None:
        return next((mode for mode in self.exit_modes if mode.target == target), None)

    def with_lines(self, line_of: Callable[[cst.CSTNode], int]) -> FunctionSummary:
        """A copy whose sites carry line numbers (for storing it)."""

        def located(site: Site) -> Site:
            return site if site.line is not None or site.node is None else replace(site, line=line_of(site.node))

        effects = tuple(replace(effect, site=located(effect.site)) for effect in self.effects)
        modes = tuple(
            replace(mode, eval_site=located(mode.eval_site)) if mode.eval_site is not None else mode for mode in self.exit_modes
        )
        return replace(self, effects=effects, exit_modes=modes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "parameters": [parameter.to_dict() for parameter in self.parameters],
            "binds_first": self.binds_first,
            "effects": [effect.to_dict() for effect in self.shared_effects],
            "exit_modes": [mode.to_dict() for mode in self.exit_modes],
            "returns": self.returns.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FunctionSummary:
        return cls(
            name=str(data["name"]),
            parameters=tuple(Parameter.from_dict(item) for item in data["parameters"]),
            binds_first=bool(data["binds_first"]),
            effects=tuple(Effect.from_dict(item) for item in data["effects"]),
            exit_modes=tuple(ExitMode.from_dict(item) for item in data["exit_modes"]),
            returns=Returns.from_dict(data["returns"]),
        )


# ----------------------------------------------------------------------- call resolution
@dataclass(frozen=True)
class ResolvedCall:
    """A call to a function of this file, with the argument passed for each parameter."""

    function: cst.FunctionDef
    # parameter -> the expression passed (or its default); None when `*args`/`**kwargs` in the
    # call, or a call that would not bind, make the mapping unknown
    arguments: Mapping[str, cst.BaseExpression] | None
    parameter_names: frozenset[str]

    def translate(self, target: str) -> str | None:
        """The caller's spelling of a callee's effect target: ``model`` for the callee's
        ``net`` in ``evaluate(model)``; a module-level name stays itself; None when the
        argument is no name the caller could use (an expression, or an unknown mapping)."""
        if target == ANONYMOUS:
            return ANONYMOUS
        root, dot, rest = target.partition(".")
        if root not in self.parameter_names:
            return target
        if self.arguments is None or root not in self.arguments:
            return None
        spelled = _argument_name(self.arguments[root])
        if spelled is None:
            return None
        return f"{spelled}{dot}{rest}"

    def parameter_receiving(self, argument: cst.BaseExpression) -> cst.Param | None:
        """The parameter the call binds ``argument`` (one of its argument values) to."""
        name = next((parameter for parameter, value in (self.arguments or {}).items() if value is argument), None)
        params = self.function.params
        return next((param for param in (*params.posonly_params, *params.params, *params.kwonly_params) if param.name.value == name), None)

    def literal_arguments(self, call: cst.Call) -> dict[str, object]:
        """The parameters ``call`` itself passes a literal for (not defaults): ``mode="test"``."""
        passed = {id(argument.value) for argument in call.args}
        found = {name: literal_value(value) for name, value in (self.arguments or {}).items() if id(value) in passed}
        return {name: value for name, value in found.items() if value is not NOT_A_LITERAL}

    def as_called(self, summary: FunctionSummary) -> FunctionSummary:
        """``summary`` (the callee's) with every target spelled as this call's caller names
        it; targets the caller cannot name become :data:`ANONYMOUS`."""
        effects: dict[tuple[str, str], Effect] = {}
        for effect in summary.effects:
            seen = replace(effect, target=self.translate(effect.target) or ANONYMOUS)
            key = (seen.action, seen.target)
            if key not in effects or seen.certainty is Certainty.MUST:
                effects[key] = seen
        modes = {}
        for mode in summary.exit_modes:
            target = self.translate(mode.target)
            if target is not None and target != ANONYMOUS:
                modes[target] = replace(mode, target=target)
        delegations = {delegation.spelled_by(self._translated) for delegation in summary.delegations}
        return replace(
            summary,
            effects=tuple(effects[key] for key in sorted(effects)),
            exit_modes=tuple(modes[target] for target in sorted(modes)),
            delegations=tuple(sorted(delegations, key=repr)),
        )

    def _translated(self, name: str) -> str | None:
        translated = self.translate(name)
        return translated if translated != ANONYMOUS else None


def spelled(target: str) -> cst.BaseExpression:
    """An expression for a dotted target (``self.optimizer``), to ask the context its kind."""
    root, *attributes = target.split(".")
    expression: cst.BaseExpression = cst.Name(root)
    for attribute in attributes:
        expression = cst.Attribute(value=expression, attr=cst.Name(attribute))
    return expression


def _argument_name(expression: cst.BaseExpression) -> str | None:
    """``model`` for ``model``, for ``model.parameters()`` (a helper clearing the gradients
    of what it is given clears the model's) and for ``model.cuda()`` (a module's ``to()``,
    ``cuda()``, ``train()``... return the module itself)."""
    while isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute) and expression.func.attr.value in torch_api.MODULE_SELF_METHODS:
        expression = expression.func.value
    if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute) and not expression.args:
        if expression.func.attr.value in ("parameters", "named_parameters"):
            return dotted_name(expression.func.value)
    if isinstance(expression, cst.Name) and expression.value in ("None", "True", "False"):
        return None
    return dotted_name(expression)


def _is_static(function: cst.FunctionDef) -> bool:
    return any(_decorator_name(decorator) == "staticmethod" for decorator in function.decorators)


def _decorator_name(decorator: cst.Decorator) -> str | None:
    expression = decorator.decorator
    name = dotted_name(expression.func if isinstance(expression, cst.Call) else expression)
    return name.rsplit(".", 1)[-1] if name else None


def bind_arguments(
    call: cst.Call, function: cst.FunctionDef, receiver: cst.BaseExpression | None = None, *, partial: bool = False
) -> dict[str, cst.BaseExpression] | None:
    """Map ``call``'s arguments onto ``function``'s parameters like Python does (the
    receiver of a method call binds its first parameter); None when a star argument hides
    the mapping or the call would raise ``TypeError``. With ``partial``, a star argument
    hides only the parameters it may fill: the receiver, the positional arguments before it
    and the keywords are still bound."""
    starred = any(argument.star for argument in call.args)
    if starred and not partial:
        return None
    params = function.params
    bound = _receiver_bound(function, receiver)
    if bound is None:
        return None
    mapping, positional = bound
    if starred:
        return _bound_around_stars(call, params, mapping, positional)
    passed = [argument.value for argument in call.args if argument.keyword is None]
    if len(passed) > len(positional) and not isinstance(params.star_arg, cst.Param):
        return None
    for param, value in zip(positional, passed):
        mapping[param.name.value] = value
    by_keyword = {param.name.value for param in (*params.params, *params.kwonly_params)}
    for argument in call.args:
        if argument.keyword is None:
            continue
        name = argument.keyword.value
        if name in mapping or (name not in by_keyword and params.star_kwarg is None):
            return None
        if name in by_keyword:
            mapping[name] = argument.value
    for param in (*positional, *params.kwonly_params):
        if param.name.value not in mapping:
            if param.default is None:
                return None
            mapping[param.name.value] = param.default
    return mapping


def _receiver_bound(function: cst.FunctionDef, receiver: cst.BaseExpression | None) -> tuple[dict[str, cst.BaseExpression], list[cst.Param]] | None:
    """The mapping with the receiver bound to the first parameter, and the positional
    parameters left; None when a receiver has no parameter to bind."""
    positional = [*function.params.posonly_params, *function.params.params]
    if receiver is None:
        return {}, positional
    return ({positional[0].name.value: receiver}, positional[1:]) if positional else None


def _bound_around_stars(
    call: cst.Call, params: cst.Parameters, mapping: dict[str, cst.BaseExpression], positional: list[cst.Param]
) -> dict[str, cst.BaseExpression]:
    for param, argument in zip(positional, call.args):
        if argument.star or argument.keyword is not None:
            break
        mapping[param.name.value] = argument.value
    by_keyword = {param.name.value for param in (*params.params, *params.kwonly_params)}
    for argument in call.args:
        if argument.keyword is not None and argument.keyword.value in by_keyword:
            mapping[argument.keyword.value] = argument.value
    return mapping


def parameters_of(function: cst.FunctionDef) -> tuple[Parameter, ...]:
    params = function.params
    found = [Parameter(p.name.value, ParameterKind.POSITIONAL_ONLY, p.default is not None) for p in params.posonly_params]
    found += [Parameter(p.name.value, ParameterKind.POSITIONAL, p.default is not None) for p in params.params]
    if isinstance(params.star_arg, cst.Param):
        found.append(Parameter(params.star_arg.name.value, ParameterKind.VAR_POSITIONAL))
    found += [Parameter(p.name.value, ParameterKind.KEYWORD_ONLY, p.default is not None) for p in params.kwonly_params]
    if params.star_kwarg is not None:
        found.append(Parameter(params.star_kwarg.name.value, ParameterKind.VAR_KEYWORD))
    return tuple(found)


# ----------------------------------------------------------------------- the module's functions
_SUITES = (cst.IndentedBlock, cst.SimpleStatementSuite)  # cst.BaseSuite's kinds, told apart without ABC machinery


def _bodies(statement: cst.CSTNode) -> Iterator[cst.BaseSuite]:
    """The blocks of a compound statement, in source order (not a nested def's or class's)."""
    for name in ("body", "orelse", "finalbody"):
        part = getattr(statement, name, None)
        if type(part) in _SUITES:
            yield part
        elif type(part) in (cst.Else, cst.Finally):
            yield part.body
        elif type(part) is cst.If:
            yield from _bodies_of_if(part)
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    for case in getattr(statement, "cases", ()):
        yield case.body


def _bodies_of_if(node: cst.If) -> Iterator[cst.BaseSuite]:
    yield node.body
    if isinstance(node.orelse, cst.If):
        yield from _bodies_of_if(node.orelse)
    elif isinstance(node.orelse, cst.Else):
        yield node.orelse.body


def _statements(suite: cst.BaseSuite) -> tuple[cst.BaseStatement | cst.BaseSmallStatement, ...]:
    return tuple(suite.body)


class _ModuleIndex:
    """Every function and class of the module and where each is defined: one pass over the
    statements (never over expressions), made the first time a summary is needed."""

    def __init__(self, module: cst.Module) -> None:
        self.functions: dict[str, cst.FunctionDef] = {}  # top level
        self.classes: dict[str, cst.ClassDef] = {}  # top level
        self.methods: dict[cst.ClassDef, dict[str, cst.FunctionDef]] = {}
        self.nested: dict[cst.FunctionDef, dict[str, cst.FunctionDef]] = {}
        self.owner: dict[cst.FunctionDef, cst.ClassDef | cst.FunctionDef | None] = {}
        self.qualified: dict[cst.FunctionDef, str] = {}
        self.module_names: set[str] = set()  # bound at top level otherwise (imports, assignments)
        self.function_names: set[str] = set()  # of every def, at any depth
        self._tested: dict[cst.FunctionDef, frozenset[str]] = {}
        self._index(module.body, None, "")

    def compared_literals(self, function: cst.FunctionDef, parameter: str) -> list[object]:
        """The literals the function's ``if`` tests compare ``parameter`` with (``"train"`` for
        ``if mode == "train":``), in source order, each once."""
        found: list[object] = []
        for node in subtree(function.body):
            test = node.test if type(node) is cst.If else None  # type: ignore[attr-defined]
            while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                test = test.expression
            if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name) and test.left.value == parameter:
                value = literal_value(test.comparisons[0].comparator)
                if value is not NOT_A_LITERAL and not any(type(value) is type(seen) and value == seen for seen in found):
                    found.append(value)
        return found

    def tested_parameters(self, function: cst.FunctionDef) -> frozenset[str]:
        """The parameters that the function's ``if`` tests read as a whole (``if mode ==
        "train":``, ``if not is_training:``)."""
        found = self._tested.get(function)
        if found is None:
            names = {parameter.name for parameter in parameters_of(function)}
            tests = (node.test for node in subtree(function.body) if type(node) is cst.If)  # type: ignore[attr-defined]
            found = self._tested[function] = frozenset(name for test in tests for name in _tested_names(test) if name in names)
        return found

    def _index(self, statements: tuple[Any, ...] | list[Any], owner: cst.ClassDef | cst.FunctionDef | None, prefix: str) -> None:
        for statement in statements:
            statement_type = type(statement)  # exact types: isinstance on libcst's ABCs is slow
            if statement_type is cst.FunctionDef:
                self._function(statement, owner, prefix)
            elif statement_type is cst.ClassDef:
                if owner is None:
                    self.classes[statement.name.value] = statement
                self.methods[statement] = {}
                self._index(_statements(statement.body), statement, f"{prefix}{statement.name.value}.")
            elif statement_type is cst.SimpleStatementLine:
                if owner is None:
                    self.module_names.update(_bound_by(statement.body))
            else:
                for body in _bodies(statement):
                    self._index(_statements(body), owner, prefix)

    def _function(self, function: cst.FunctionDef, owner: cst.ClassDef | cst.FunctionDef | None, prefix: str) -> None:
        name = function.name.value
        self.function_names.add(name)
        self.owner[function] = owner
        self.qualified[function] = f"{prefix}{name}"
        self.nested[function] = {}
        if owner is None:
            self.functions[name] = function
        elif isinstance(owner, cst.ClassDef):
            self.methods[owner][name] = function
        else:
            self.nested[owner][name] = function
        self._index(_statements(function.body), function, f"{prefix}{name}.<locals>.")

    def top_level_function(self, name: str) -> cst.FunctionDef | None:
        """A top-level ``def`` the name means everywhere in the module (not also imported or assigned)."""
        return self.functions.get(name) if name not in self.module_names else None

    def method(self, owner: cst.ClassDef, name: str, depth: int = 0) -> cst.FunctionDef | None:
        """``owner``'s method ``name``, or one it inherits from a class of this module."""
        found = self.methods.get(owner, {}).get(name)
        if found is not None or depth > 4:
            return found
        for base in owner.bases:
            base_name = dotted_name(base.value)
            base_class = self.classes.get(base_name) if base_name else None
            if base_class is not None and base_class is not owner:
                inherited = self.method(base_class, name, depth + 1)
                if inherited is not None:
                    return inherited
        return None

    def enclosing_class(self, function: cst.FunctionDef) -> cst.ClassDef | None:
        owner = self.owner.get(function)
        return owner if isinstance(owner, cst.ClassDef) else None


def _bound_by(statements: Sequence[cst.BaseSmallStatement]) -> set[str]:
    """Names the small statements of one line bind (assignments and imports)."""
    names: set[str] = set()
    for statement in statements:
        if isinstance(statement, cst.Assign):
            for target in statement.targets:
                names.update(_target_names(target.target))
        elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)):
            names.update(_target_names(statement.target))
        elif isinstance(statement, (cst.Import, cst.ImportFrom)) and not isinstance(statement.names, cst.ImportStar):
            for alias in statement.names:
                local = alias.asname.name if alias.asname is not None else alias.name
                if isinstance(local, cst.Name):
                    names.add(local.value)
                elif isinstance(local, cst.Attribute):
                    root = dotted_name(local)
                    if root:
                        names.add(root.split(".", 1)[0])
    return names


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def _local_names(function: cst.FunctionDef) -> set[str]:
    """Names the function binds itself (so they are not the module's), from its statements."""
    names: set[str] = set()
    declared_global: set[str] = set()
    pending: list[Any] = list(_statements(function.body))
    while pending:
        statement = pending.pop()
        if type(statement) in (cst.FunctionDef, cst.ClassDef):
            names.add(statement.name.value)
        elif isinstance(statement, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
            line = statement.body if isinstance(statement, cst.SimpleStatementLine) else [statement]
            names.update(_bound_by(line))
            for small in line:
                if type(small) in (cst.Global, cst.Nonlocal):
                    declared_global.update(item.name.value for item in small.names)
        else:
            if isinstance(statement, cst.For):
                names.update(_target_names(statement.target))
            elif isinstance(statement, cst.With):
                for item in statement.items:
                    if item.asname is not None:
                        names.update(_target_names(item.asname.name))
            for handler in getattr(statement, "handlers", ()):
                if handler.name is not None and isinstance(handler.name.name, cst.Name):
                    names.add(handler.name.name.value)
            for body in _bodies(statement):
                pending.extend(_statements(body))
    return names - declared_global


# ----------------------------------------------------------------------- the structural pass
_Fact = tuple[str, str]  # (action, target)


@dataclass(frozen=True)
class _State:
    """What has happened on the paths reaching a point."""

    must: frozenset[_Fact] = frozenset()
    may: frozenset[_Fact] = frozenset()
    modes: Mapping[str, frozenset[str]] = field(default_factory=dict)  # target -> possible modes
    # per path: UNCHANGED, CLEARED (gradients cleared), "<n>" (step number n ran, nothing cleared), or BOTH
    gradients: frozenset[str] = frozenset({UNCHANGED})

    def then(self, fact: _Fact, certain: bool) -> _State:
        must = self.must | {fact} if certain else self.must
        modes = self.modes
        action, target = fact
        if action in (EVAL, TRAIN) and target != ANONYMOUS:
            before = self.modes.get(target, frozenset({UNCHANGED}))
            modes = {**self.modes, target: frozenset({action}) if certain else before | {action}}
        return _State(must, self.may | {fact}, modes, self.gradients)

    def with_modes(self, target: str, modes: frozenset[str], certain: bool) -> _State:
        before = self.modes.get(target, frozenset({UNCHANGED}))
        after = modes if certain and UNCHANGED not in modes else before | (modes - {UNCHANGED})
        return _State(self.must, self.may, {**self.modes, target: after}, self.gradients)

    def with_gradients(self, action: str, step: int, certain: bool) -> _State:
        """After a ``step()`` (numbered ``step``) or a clear, on every path that runs it."""
        after = frozenset(_gradients_after(path, action, step) for path in self.gradients)
        return replace(self, gradients=after if certain else self.gradients | after)


def _gradients_after(path: str, action: str, step: int) -> str:
    """A path's gradient state after a clear or step ``step``: the steps it ran since no clear
    (``"0,2"``), CLEARED, BOTH (a step and a clear) or UNCHANGED."""
    if action == "zero_grad":
        return CLEARED if path in (UNCHANGED, CLEARED) else BOTH
    return BOTH if path in (CLEARED, BOTH) else str(step) if path == UNCHANGED else f"{path},{step}"


def _tested_names(test: cst.BaseExpression) -> list[str]:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _tested_names(test.expression)
    if isinstance(test, cst.Comparison):
        test = test.left
    return [test.value] if isinstance(test, cst.Name) else []


def _decided(test: cst.BaseExpression, fixed: Mapping[str, object]) -> bool | None:
    """The value of an ``if`` test over parameters fixed to literals: ``mode == "train"``,
    ``mode != "test"``, ``is_training``, ``not train``, ``optimizer is None``; None when the
    test reads anything else."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _decided(test.expression, fixed)
        return None if inner is None else not inner
    if isinstance(test, cst.Name) and test.value in fixed:
        return bool(fixed[test.value])
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1 or not isinstance(test.left, cst.Name) or test.left.value not in fixed:
        return None
    operator, right = test.comparisons[0].operator, literal_value(test.comparisons[0].comparator)
    if right is NOT_A_LITERAL:
        return None
    value = fixed[test.left.value]
    if isinstance(operator, (cst.Equal, cst.Is)):
        return value == right
    if isinstance(operator, (cst.NotEqual, cst.IsNot)):
        return value != right
    return None


def _join(states: list[_State | None]) -> _State | None:
    reached = [state for state in states if state is not None]
    if not reached:
        return None
    if len(reached) == 1:
        return reached[0]
    must = frozenset.intersection(*(state.must for state in reached))
    may = frozenset.union(*(state.may for state in reached))
    targets = {target for state in reached for target in state.modes}
    modes = {
        target: frozenset().union(*(state.modes.get(target, frozenset({UNCHANGED})) for state in reached))
        for target in targets
    }
    return _State(must, may, modes, frozenset().union(*(state.gradients for state in reached)))


@dataclass
class _Outcome:
    """Where the paths through a block go: on to the next statement, or out of it."""

    fall: _State | None  # None: no path reaches the end of the block
    returns: list[_State] = field(default_factory=list)
    breaks: list[_State] = field(default_factory=list)
    continues: list[_State] = field(default_factory=list)

    def absorb(self, other: _Outcome) -> None:
        self.returns += other.returns
        self.breaks += other.breaks
        self.continues += other.continues


class Names(Protocol):
    """What the summaries need from the shared inference."""

    module_classes: set[str]

    @property
    def binder(self) -> Binder: ...

    def qualified_name(self, expression: cst.BaseExpression) -> str | None: ...

    def module_constant_kind(self, name: str) -> Kind | None: ...


class ModuleSummaries:
    """The summaries of one module's functions, computed on demand and memoised."""

    def __init__(self, module: cst.Module, names: Names) -> None:
        self._module = module
        self.names = names
        self._index_cache: _ModuleIndex | None = None
        self._specialized: dict[tuple[cst.FunctionDef, tuple[tuple[str, object], ...]], FunctionSummary] = {}
        self._final: dict[cst.FunctionDef, FunctionSummary] = {}
        self._partial: dict[cst.FunctionDef, FunctionSummary] = {}  # cycle heads, between rounds
        # members of a cycle computed in the current round of its head: (summary, head)
        self._tentative: dict[cst.FunctionDef, tuple[FunctionSummary, cst.FunctionDef]] = {}
        self._stack: list[cst.FunctionDef] = []
        # per frame: the lowest stack index whose partial result it used (its own index + 1: none)
        self._lowest: list[int] = []

    @property
    def index(self) -> _ModuleIndex:
        if self._index_cache is None:
            self._index_cache = _ModuleIndex(self._module)
        return self._index_cache

    # ----------------------------------------------------------------- summaries
    def of(self, function: cst.FunctionDef) -> FunctionSummary:
        done = self._final.get(function)
        if done is not None:
            return done
        if function in self._stack:  # recursion: use what is known so far
            self._depends_on(function)
            return self._partial.get(function) or self._empty(function)
        tentative = self._tentative.get(function)
        if tentative is not None and tentative[1] in self._stack:  # computed in this round already
            self._depends_on(tentative[1])
            return tentative[0]
        if len(self._stack) >= _MAX_DEPTH:
            return self._empty(function)
        return self._compute(function)

    def specialized(self, function: cst.FunctionDef, fixed: Mapping[str, object]) -> FunctionSummary:
        """``function``'s summary where a call passes literals for parameters that its ``if``
        tests compare (``iterate(model, loader, mode="test")`` never runs ``if mode ==
        "train": loss.backward()``); the general summary when no test reads them."""
        tested = self.index.tested_parameters(function) if fixed else frozenset()
        fixed = {name: value for name, value in fixed.items() if name in tested}
        if not fixed:
            return self.of(function)
        key = (function, tuple(sorted(fixed.items(), key=repr)))
        if key not in self._specialized:
            self._specialized[key] = self.of(function) if function in self._stack else _FunctionPass(self, function, fixed).summary()
        return self._specialized[key]

    def literal_cases(self, function: cst.FunctionDef) -> Iterator[tuple[str, object, FunctionSummary]]:
        """For each parameter the function's tests compare, each value a caller's literal may
        fall on (a literal compared, ``True``, ``False``, or :data:`OTHER_LITERAL`) whose
        summary differs from the general one: what a caller in another file that passes that
        literal gets."""
        general = self.of(function).shared_effects
        for parameter in sorted(self.index.tested_parameters(function)):
            for value in (*self.index.compared_literals(function, parameter), True, False, OTHER_LITERAL):
                specialized = self.specialized(function, {parameter: value})
                if specialized.shared_effects != general:
                    yield parameter, value, specialized

    def _depends_on(self, open_function: cst.FunctionDef) -> None:
        """The function being computed used a result that is not final until ``open_function``'s is."""
        self._lowest[-1] = min(self._lowest[-1], self._stack.index(open_function))

    def _compute(self, function: cst.FunctionDef) -> FunctionSummary:
        position = len(self._stack)
        self._stack.append(function)
        self._lowest.append(position + 1)
        try:
            summary = self._build(function)
            for _ in range(_MAX_ROUNDS):
                if self._lowest[-1] != position or self._partial.get(function) == summary:
                    break
                self._partial[function] = summary  # a cycle through this function: go round again
                self._members_of(function)
                summary = self._build(function)
        finally:
            self._stack.pop()
            lowest = self._lowest.pop()
        if lowest < position:  # part of a cycle whose head is still being computed
            self._tentative[function] = (summary, self._stack[lowest])
            self._lowest[-1] = min(self._lowest[-1], lowest)
            return summary
        self._final[function] = summary
        self._partial.pop(function, None)
        self._final.update(self._members_of(function))  # computed in the last round, against this result
        return summary

    def _members_of(self, head: cst.FunctionDef) -> dict[cst.FunctionDef, FunctionSummary]:
        """Take out the tentative results of the cycle whose head is ``head``."""
        members = {member: summary for member, (summary, owner) in self._tentative.items() if owner is head}
        for member in members:
            del self._tentative[member]
        return members

    def _empty(self, function: cst.FunctionDef) -> FunctionSummary:
        return FunctionSummary(self.qualified_name_of(function), parameters_of(function), self.binds_first(function))

    def qualified_name_of(self, function: cst.FunctionDef) -> str:
        return self.index.qualified.get(function, function.name.value)

    def binds_first(self, function: cst.FunctionDef) -> bool:
        return self.index.enclosing_class(function) is not None and not _is_static(function)

    def _build(self, function: cst.FunctionDef) -> FunctionSummary:
        return _FunctionPass(self, function).summary()

    # ----------------------------------------------------------------- resolution
    def resolve(
        self,
        call: cst.Call,
        *,
        function: cst.FunctionDef | None,
        current_class: cst.ClassDef | None,
        meaning_of: Callable[[str], cst.FunctionDef | Unresolved],
        class_of: Callable[[cst.BaseExpression], str | None] = lambda receiver: None,
    ) -> ResolvedCall | None:
        """The function of this module that ``call`` runs, with its argument mapping.

        ``meaning_of(name)`` says what a called name means at the call: the ``def`` that
        last bound it, or why it is none. An unbound name may be a top-level function
        defined further down (called from a function that runs later). ``class_of(receiver)``
        names the class of this module whose instance a receiver other than ``self`` holds
        (``self.sampler`` in ``self.sampler.sample(n)``), when the caller knows it.
        """
        func = call.func
        if not self.may_run_a_def(call):
            return None
        if isinstance(func, cst.Name):
            meaning = meaning_of(func.value)
            if meaning is Unresolved.UNBOUND:
                meaning = self.index.top_level_function(func.value) or Unresolved.OTHER
            return self._resolved(call, meaning, None) if isinstance(meaning, cst.FunctionDef) else None
        if not isinstance(func, cst.Attribute):
            return None
        if isinstance(func.value, cst.Name) and function is not None and current_class is not None and _is_receiver(func.value, function):
            owner: cst.ClassDef | None = current_class
        elif type(func.value) is cst.Call and type(func.value.func) is cst.Name:  # `Trainer(model, loader).train(epochs)`
            owner = self.index.classes.get(func.value.func.value)  # type: ignore[attr-defined]
        else:
            owner = self.index.classes.get(class_of(func.value) or "")
        method = self.index.method(owner, func.attr.value) if owner is not None else None
        if method is None and isinstance(func.value, cst.Name) and func.value.value in self.index.classes:
            method = self.index.method(self.index.classes[func.value.value], func.attr.value)  # `Table.build(n)`
            if method is None or not (_is_static(method) or any(_decorator_name(d) == "classmethod" for d in method.decorators)):
                return None
        if method is None:
            return None
        return self._resolved(call, method, None if _is_static(method) else func.value)

    def may_run_a_def(self, call: cst.Call) -> bool:
        """Whether ``call`` is spelled like a call of a ``def`` of this module (by the name it
        calls): most calls (``torch.cat``, ``self.conv(x)``) are not, and resolving them is
        the costliest question the walk asks."""
        return called_name(call) in self.index.function_names

    def _resolved(self, call: cst.Call, function: cst.FunctionDef, receiver: cst.BaseExpression | None) -> ResolvedCall:
        names = frozenset(parameter.name for parameter in parameters_of(function))
        return ResolvedCall(function, bind_arguments(call, function, receiver, partial=True), names)

    def resolve_inside(
        self, call: cst.Call, caller: cst.FunctionDef, local_names: set[str], assigned: Mapping[str, cst.BaseExpression] | None = None
    ) -> ResolvedCall | None:
        """Resolution within a summary's pass: the caller's nested defs, its enclosing
        functions' nested defs, then top-level functions; ``self.m()`` to the caller's class,
        ``trainer.fit()`` to the class of this module a local was last ``assigned`` an instance of."""
        index = self.index

        def meaning_of(name: str) -> cst.FunctionDef | Unresolved:
            scope: cst.ClassDef | cst.FunctionDef | None = caller
            while isinstance(scope, cst.FunctionDef):
                nested = index.nested.get(scope, {}).get(name)
                if nested is not None:
                    return nested
                if scope is caller and name in local_names:
                    return Unresolved.OTHER
                scope = index.owner.get(scope)
            return Unresolved.UNBOUND

        def class_of(receiver: cst.BaseExpression) -> str | None:
            value = (assigned or {}).get(receiver.value) if type(receiver) is cst.Name else None  # type: ignore[attr-defined]
            return value.func.value if type(value) is cst.Call and type(value.func) is cst.Name else None  # type: ignore[attr-defined]

        owner = index.enclosing_class(caller)
        return self.resolve(call, function=caller, current_class=owner, meaning_of=meaning_of, class_of=class_of)


    def call_run_by(self, call: cst.Call, caller: cst.FunctionDef | None) -> ResolvedCall | None:
        """The ``def`` of this module that ``call`` runs, with the arguments it binds,
        wherever the call stands: inside ``caller`` (resolved as a summary's pass does) or at
        module level."""
        if caller is None:
            return self.resolve(call, function=None, current_class=None, meaning_of=lambda name: Unresolved.UNBOUND)
        shadowing = _local_names(caller) | {parameter.name for parameter in parameters_of(caller)}
        return self.resolve_inside(call, caller, shadowing)


def _is_receiver(name: cst.Name, function: cst.FunctionDef) -> bool:
    """``self`` in ``self.m()``: the first parameter of the method the call sits in."""
    positional = (*function.params.posonly_params, *function.params.params)
    return bool(positional) and positional[0].name.value == name.value and not _is_static(function)


class _FunctionPass:
    """One structural pass over a function's statements."""

    def __init__(self, summaries: ModuleSummaries, function: cst.FunctionDef, fixed: Mapping[str, object] | None = None) -> None:
        self.summaries = summaries
        self.fixed = fixed or {}  # parameter -> the literal a call passes: `if mode == "train":` is decided
        self.function = function
        self.name = summaries.qualified_name_of(function)
        self.parameters = parameters_of(function)
        self.parameter_names = {parameter.name for parameter in self.parameters}
        self.no_grad_depth = 0  # inside `with torch.no_grad():` blocks of the function
        # the instance parameter of a method (`self`): what the method's object holds
        first = self.parameters[0].name if self.parameters else None
        self.receiver = first if first is not None and summaries.binds_first(function) else None
        self.locals = _local_names(function) - self.parameter_names
        self.sites: dict[_Fact, Site] = {}
        self.gradient_holders: dict[str, str] = {}  # `p` in `for p in model.parameters()` -> "model"
        self.module_parts: dict[str, str] = {}  # `block` in `for block in model.blocks` -> "model.blocks"
        self.assigned: dict[str, cst.BaseExpression] = {}  # last `name = value`, in source order
        self.backpropagated: set[str] = set()  # local names and attribute paths `.backward()` ran on, not rebound since
        self.backpropagated_entries: set[str] = set()  # local containers an entry of which it ran on
        self.returned: list[Returns] = []
        self.delegations: set[Delegation] = set()
        self.step_sites: list[Site] = []  # the steps `_State.gradients` numbers
        owner = summaries.index.enclosing_class(function)
        self.in_module_class = owner is not None and owner.name.value in summaries.names.module_classes
        self.constructs_own_class = self.in_module_class and any(_decorator_name(d) == "classmethod" for d in function.decorators)

    def summary(self) -> FunctionSummary:
        outcome = self._block(_statements(self.function.body), _State())
        exit_state = _join([outcome.fall, *outcome.returns])
        returns = self._returns(outcome.fall is not None)
        delegations = tuple(sorted(self.delegations, key=repr))
        if exit_state is None:  # never returns normally
            return FunctionSummary(self.name, self.parameters, self.summaries.binds_first(self.function), returns=returns, delegations=delegations)
        effects = sorted(
            (
                *(
                    Effect(action, target, Certainty.MUST if (action, target) in exit_state.must else Certainty.MAY, self.sites[(action, target)])
                    for action, target in exit_state.may
                ),
                *self._uncleared_steps(exit_state),
            ),
            key=lambda effect: (effect.action, effect.target),
        )
        modes = sorted(
            (
                ExitMode(target, tuple(sorted(possible)), self.sites.get((EVAL, target)))
                for target, possible in exit_state.modes.items()
                if possible != {UNCHANGED}
            ),
            key=lambda mode: mode.target,
        )
        return FunctionSummary(
            self.name, self.parameters, self.summaries.binds_first(self.function), tuple(effects), tuple(modes), returns, delegations
        )

    def _uncleared_steps(self, exit_state: _State) -> list[Effect]:
        """Each step on a path that never clears gradients, where another path does (a
        function that never clears is told by its effects alone); numbered targets."""
        if not exit_state.gradients & {CLEARED, BOTH}:
            return []
        uncleared = {int(step) for path in exit_state.gradients if path not in (UNCHANGED, CLEARED, BOTH) for step in path.split(",")}
        return [Effect(idioms.Effect.STEP_UNCLEARED, str(step), Certainty.MAY, self.step_sites[step]) for step in sorted(uncleared)]

    # ----------------------------------------------------------------- statements
    def _block(self, statements: tuple[Any, ...], state: _State) -> _Outcome:
        outcome = _Outcome(state)
        for statement in statements:
            if outcome.fall is None:
                break  # unreachable after return/raise/break/continue
            step = self._statement(statement, outcome.fall)
            outcome.absorb(step)
            outcome.fall = step.fall
        return outcome

    def _statement(self, statement: Any, state: _State) -> _Outcome:
        if isinstance(statement, cst.SimpleStatementLine):
            return self._simple_line(statement.body, state)
        if isinstance(statement, cst.If):
            return self._if(statement, state)
        if isinstance(statement, (cst.For, cst.While)):
            return self._loop(statement, state)
        if isinstance(statement, (cst.Try, cst.TryStar)):
            return self._try(statement, state)
        if isinstance(statement, cst.With):
            for item in statement.items:
                state = self._expression(item.item, state)
            gradients_off = any(self._turns_gradients_off(item.item) for item in statement.items)
            self.no_grad_depth += gradients_off
            try:
                return self._suite(statement.body, state)
            finally:
                self.no_grad_depth -= gradients_off
        if isinstance(statement, cst.Match):
            return self._match(statement, state)
        return _Outcome(state)  # nested def or class: nothing runs yet

    def _suite(self, suite: cst.BaseSuite, state: _State) -> _Outcome:
        if isinstance(suite, cst.SimpleStatementSuite):
            return self._simple_line(suite.body, state)
        return self._block(_statements(suite), state)

    def _simple_line(self, statements: Any, state: _State) -> _Outcome:
        for small in statements:
            if isinstance(small, cst.Return):
                if small.value is not None:
                    state = self._expression(small.value, state)
                self.returned.append(self._returned(small.value))
                return _Outcome(None, returns=[state])
            if isinstance(small, cst.Raise):
                return _Outcome(None)  # the caller does not go on
            if isinstance(small, cst.Break):
                return _Outcome(None, breaks=[state])
            if isinstance(small, cst.Continue):
                return _Outcome(None, continues=[state])
            state = self._expression(small, state)
            state = self._assignment(small, state)
        return _Outcome(state)

    def _if(self, node: cst.If, state: _State) -> _Outcome:
        state = self._expression(node.test, state)
        decided = _decided(node.test, self.fixed) if self.fixed else None
        body = self._suite(node.body, state) if decided is not False else _Outcome(None)
        if decided is True:
            other = _Outcome(None)  # the call's literal takes the first branch
        elif isinstance(node.orelse, cst.If):
            other = self._if(node.orelse, state)
        elif isinstance(node.orelse, cst.Else):
            other = self._suite(node.orelse.body, state)
        else:
            other = _Outcome(state)
        outcome = _Outcome(_join([body.fall, other.fall]))
        outcome.absorb(body)
        outcome.absorb(other)
        return outcome

    def _loop(self, node: cst.For | cst.While, state: _State) -> _Outcome:
        if isinstance(node, cst.For):
            state = self._expression(node.iter, state)
            self._note_gradient_holders(node)
            self._note_module_parts(node)
        else:
            state = self._expression(node.test, state)
        body = self._suite(node.body, state)
        endless = isinstance(node, cst.While) and isinstance(node.test, cst.Name) and node.test.value == "True"
        finished = _join([body.fall, *body.continues] + ([] if endless else [state]))  # the body may not run
        if node.orelse is not None and finished is not None:
            after_else = self._suite(node.orelse.body, finished)
            outcome = _Outcome(_join([after_else.fall, *body.breaks]), returns=after_else.returns)
        else:
            outcome = _Outcome(_join([finished, *body.breaks]))
        outcome.returns += body.returns
        return outcome

    def _try(self, node: cst.Try | cst.TryStar, state: _State) -> _Outcome:
        body = self._suite(node.body, state)
        normal = self._suite(node.orelse.body, body.fall) if node.orelse is not None and body.fall is not None else _Outcome(body.fall)
        # a handler starts after any part of the body: before it, or after it all
        raised = _join([state, body.fall])
        handlers = [self._suite(handler.body, raised) for handler in node.handlers] if raised is not None else []
        outcome = _Outcome(_join([normal.fall, *(handler.fall for handler in handlers)]))
        for part in (body, normal, *handlers):
            outcome.absorb(part)
        if node.finalbody is None:
            return outcome
        final = node.finalbody.body
        outcome.returns = [ended for ended in (self._suite(final, ret).fall for ret in outcome.returns) if ended is not None]
        if outcome.fall is not None:
            after = self._suite(final, outcome.fall)
            outcome.fall = after.fall
            outcome.absorb(after)
        return outcome

    def _match(self, node: cst.Match, state: _State) -> _Outcome:
        state = self._expression(node.subject, state)
        cases = [self._suite(case.body, state) for case in node.cases]
        irrefutable = bool(node.cases) and isinstance(node.cases[-1].pattern, cst.MatchAs) and node.cases[-1].pattern.pattern is None and node.cases[-1].guard is None
        outcome = _Outcome(_join([case.fall for case in cases] + ([] if irrefutable else [state])))
        for case in cases:
            outcome.absorb(case)
        return outcome

    # ----------------------------------------------------------------- expressions
    def _expression(self, node: cst.CSTNode, state: _State) -> _State:
        """Apply the calls in ``node``, in evaluation order; calls that may be skipped
        (a conditional expression's branches, the right of ``and``/``or``, a comprehension's
        body) count as MAY."""
        for call, certain in _calls_in(node, True):
            state = self._call(call, certain, state)
        return state

    def _call(self, call: cst.Call, certain: bool, state: _State) -> _State:
        resolved = self.summaries.resolve_inside(call, self.function, self.locals, self.assigned)
        if resolved is not None:  # `self.step()` of a Trainer runs its own `step` method
            return self._apply(resolved, certain, state)
        sharding = self._sharding_effect(call)
        if sharding is not None:
            for target in self._modules_given(call):
                state = self._record((sharding, target), call, certain, state)
            return state
        func = call.func
        if isinstance(func, cst.Attribute):
            method = _SYNONYMS.get(func.attr.value, func.attr.value)
            if method in ACTIONS:
                action = EVAL if method == TRAIN and _sets_eval_mode(call) else method
                target = func.value
                if action == "backward":
                    self._note_backpropagated(call, func)
                    local_value = type(target) is cst.Name and target.value in self.assigned  # type: ignore[attr-defined]
                    if call.args and call.args[0].keyword is None and not local_value:
                        target = call.args[0].value  # `accelerator.backward(loss)` backpropagates `loss`
                return self._record((action, self._target(target)), call, certain, state)
            if method == "zero_" and self._gradient_of(func.value) is not None:
                return self._record(("zero_grad", self._gradient_of(func.value) or ANONYMOUS), call, certain, state)
        qualified = self.summaries.names.qualified_name(func)
        if qualified == "torch.autograd.backward":
            return self._record(("backward", ANONYMOUS), call, certain, state)
        if qualified in torch_api.GRADIENT_CLIPS:
            return self._record((idioms.Effect.CLIP_GRAD.value, ANONYMOUS), call, certain, state)
        self._note_delegation(call, qualified)
        return self._called_value(call, certain, state)

    def _note_delegation(self, call: cst.Call, qualified: str | None) -> None:
        """A call of a name the function does not bind (an import: ``synthesis.tts(model,
        text)``) that hands over one of its parameters."""
        callee = dotted_name(call.func)
        root = callee.partition(".")[0] if callee is not None else None
        if root is None or root in self.locals or root in self.parameter_names or root in _BUILTINS or (qualified or "").startswith("torch."):
            return
        if any(argument.star for argument in call.args):
            return
        passed = [self._parameter_passed(argument.value) for argument in call.args]
        positional = tuple(name for argument, name in zip(call.args, passed) if argument.keyword is None)
        keywords = tuple((argument.keyword.value, name) for argument, name in zip(call.args, passed) if argument.keyword is not None)
        self._hand_over(Delegation(callee, positional, keywords))  # type: ignore[arg-type]

    def _hand_over(self, delegation: Delegation) -> None:
        if delegation.passed:
            self.delegations.add(delegation)

    def _parameter_passed(self, value: cst.BaseExpression) -> str | None:
        name = dotted_name(value)
        return name if name is not None and name.partition(".")[0] in self.parameter_names else None

    def _note_backpropagated(self, call: cst.Call, func: cst.Attribute) -> None:
        """The local name a ``backward`` call backpropagates: ``loss.backward()``,
        ``scaler.scale(loss).backward()``, ``accelerator.backward(loss)``,
        ``self.manual_backward(loss)``; returned, the caller holds a graph-attached tensor."""
        receiver = func.value
        if isinstance(receiver, cst.Call) and receiver.args:  # scaler.scale(loss)
            receiver = receiver.args[0].value
        if isinstance(receiver, cst.Subscript) and isinstance(receiver.value, cst.Name) and receiver.value.value in self.assigned:
            self.backpropagated_entries.add(receiver.value.value)  # parts["total"].backward()
        elif isinstance(receiver, cst.Name) and (receiver.value in self.assigned or _backward_of_a_parameter(call, receiver, self.parameter_names)):
            self.backpropagated.add(receiver.value)
        elif isinstance(receiver, cst.Attribute) and (path := dotted_name(receiver)) is not None:
            self.backpropagated.add(path)  # `self.loss.backward()`: the attribute holds a graph until rebound
        elif call.args and not call.args[0].keyword and isinstance(call.args[0].value, cst.Name):
            self.backpropagated.add(call.args[0].value.value)  # a framework's backward(loss)

    def _called_value(self, call: cst.Call, certain: bool, state: _State) -> _State:
        """``model(x)``, ``self.encoder(x)``: the function runs a value its caller can name (a
        module it was given, or one of its object's), so a caller knows which modules a
        helper that backpropagates trains."""
        if self.no_grad_depth:
            return state  # a module run under no_grad() is not trained here
        name = self._called_module(call.func)
        return self._record((FORWARD, name), call, certain, state) if name is not None else state

    def _called_module(self, func: cst.BaseExpression) -> str | None:
        """``model`` in ``model(x)`` for a parameter, ``self.encoder`` in ``self.encoder(x)``;
        not ``model.parameters``: a method of a parameter is no module of its own."""
        if isinstance(func, cst.Name):
            return func.value if func.value in self.parameter_names and func.value != self.receiver else None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == self.receiver:
            return f"{self.receiver}.{func.attr.value}"
        return None

    def _turns_gradients_off(self, manager: cst.BaseExpression) -> bool:
        return grad_mode_of(self.summaries.names.qualified_name, manager) is GradMode.OFF

    def _record(self, fact: _Fact, node: cst.CSTNode, certain: bool, state: _State) -> _State:
        self.sites.setdefault(fact, Site(self.name, one_line(node), node=node))
        return self._note_gradients(fact, node, certain, self._note_backward_in_eval(fact, certain, state.then(fact, certain)))

    def _note_gradients(self, fact: _Fact, node: cst.CSTNode, certain: bool, state: _State) -> _State:
        """Which paths step without clearing gradients: each step is numbered by its site."""
        if fact[0] not in ("step", "zero_grad"):
            return state
        if fact[0] == "step":
            self.step_sites.append(Site(self.name, one_line(node), node=node))
        return state.with_gradients(fact[0], len(self.step_sites) - 1, certain)

    def _apply_gradients(self, callee: FunctionSummary, certain: bool, state: _State) -> _State:
        """A called function's steps and clears, as its summary tells them (its effects come
        sorted, not in order): steps it may leave uncleared, then a clear on the paths it surely clears."""
        clear = callee.effect(idioms.Effect.ZERO_GRAD)
        uncleared = [effect.site for effect in callee.effects if effect.action == idioms.Effect.STEP_UNCLEARED and effect.site is not None]
        if clear is None and (step := callee.effect(idioms.Effect.STEP)) is not None and step.site is not None:
            uncleared = [step.site]  # it never clears
        for site in uncleared:
            self.step_sites.append(site)
            state = state.with_gradients("step", len(self.step_sites) - 1, False)
        return state.with_gradients("zero_grad", 0, certain and clear.certainty is Certainty.MUST) if clear is not None else state

    def _note_backward_in_eval(self, fact: _Fact, certain: bool, state: _State) -> _State:
        if fact[0] != "backward":
            return state
        for target, modes in state.modes.items():
            if modes in ({EVAL}, {TRAIN}):
                noted = (BACKWARD_IN_EVAL if modes == {EVAL} else BACKWARD_IN_TRAIN, target)
                self.sites.setdefault(noted, self.sites[fact])
                state = state.then(noted, certain)
        return state

    def _apply(self, resolved: ResolvedCall, certain: bool, state: _State) -> _State:
        callee = self.summaries.of(resolved.function)
        for effect in callee.effects:
            target = self._caller_target(resolved, effect.target)
            fact = (effect.action, target)
            self.sites.setdefault(fact, effect.site)
            state = state.then(fact, certain and effect.certainty is Certainty.MUST)
            state = self._note_backward_in_eval(fact, certain and effect.certainty is Certainty.MUST, state)
            if effect.action == "backward" and "." in target and certain and effect.certainty is Certainty.MUST:
                self.backpropagated.add(target)  # `self.update()` ran `self.loss.backward()`
        state = self._apply_gradients(callee, certain, state)
        for mode in callee.exit_modes:
            target = self._caller_target(resolved, mode.target)
            if target != ANONYMOUS:
                if mode.eval_site is not None:
                    self.sites.setdefault((EVAL, target), mode.eval_site)
                state = state.with_modes(target, frozenset(mode.modes), certain)
        for delegation in callee.delegations:
            self._delegate_further(resolved, delegation)
        return state

    def _delegate_further(self, resolved: ResolvedCall, delegation: Delegation) -> None:
        """A helper of the file that hands a parameter to another file's function, called with
        one of this function's parameters: this function hands it over too."""

        def own_parameter(name: str) -> str | None:
            translated = resolved.translate(name)
            return translated if translated is not None and translated.partition(".")[0] in self.parameter_names else None

        self._hand_over(delegation.spelled_by(own_parameter))

    def _caller_target(self, resolved: ResolvedCall, target: str) -> str:
        translated = resolved.translate(target)
        if translated is None:
            return ANONYMOUS
        if target.partition(".")[0] not in resolved.parameter_names:
            return translated  # the callee's module-level name is the caller's too
        return self._classify(translated)

    def _assignment(self, statement: Any, state: _State) -> _State:
        if isinstance(statement, cst.Assign):
            for target in statement.targets:
                if isinstance(target.target, cst.Name):
                    self.assigned[target.target.value] = statement.value
                    self.backpropagated.discard(target.target.value)
                    self.backpropagated_entries.discard(target.target.value)
                self.backpropagated.discard(dotted_name(target.target) or "")
                holder = self._gradient_of(target.target)
                if holder is not None and is_none(statement.value):
                    state = self._record(("zero_grad", holder), statement, True, state)
        return state

    # ----------------------------------------------------------------- targets
    def _target(self, receiver: cst.BaseExpression, depth: int = 0) -> str:
        if isinstance(receiver, cst.Name) and receiver.value in self.locals and receiver.value in self.assigned and depth < _MAX_ALIAS_DEPTH:
            # `model = self.model`, then `if n_gpu > 1: model = DataParallel(model)`: both reach `model.eval()`
            aliases = {self._target(references.wrapped_module(value, self.summaries.names.qualified_name), depth + 1) for value in self._reaching_values(receiver)}
            return aliases.pop() if len(aliases) == 1 else ANONYMOUS
        name = dotted_name(receiver)
        return self._classify(name) if name is not None else ANONYMOUS

    def _classify(self, name: str) -> str:
        """A receiver the caller can name: a parameter path or a module-level name, also
        through a local that holds one (``model = self.model``, then ``model.eval()``)."""
        root, dot, rest = name.partition(".")
        if root in self.parameter_names:
            return name
        if root not in self.locals:
            return name
        aliased = dotted_name(self.assigned[root]) if root in self.assigned else None
        if aliased is not None and aliased.partition(".")[0] in self.parameter_names:
            return f"{aliased}{dot}{rest}"
        return ANONYMOUS

    def _note_gradient_holders(self, loop: cst.For) -> None:
        """``for p in model.parameters()`` (or ``for group in opt.param_groups`` and then
        ``for p in group["params"]``): clearing ``p.grad`` clears what ``model`` holds."""
        iterable = loop.iter
        holder: str | None = None
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value in ("parameters", "named_parameters"):
            holder = self._target(iterable.func.value)
        elif isinstance(iterable, cst.Attribute) and iterable.attr.value == "param_groups":
            holder = self._target(iterable.value)
        elif isinstance(iterable, cst.Subscript) and isinstance(iterable.value, cst.Name):
            holder = self.gradient_holders.get(iterable.value.value)
        if holder is None:
            return
        for name in _target_names(loop.target):
            self.gradient_holders[name] = holder

    def _note_module_parts(self, loop: cst.For) -> None:
        """``for block in model.blocks`` (also ``enumerate(model.layers)``,
        ``model.layers.values()``): sharding ``block`` shards part of ``model.blocks``."""
        iterable, target = loop.iter, loop.target
        if isinstance(iterable, cst.Call) and called_name(iterable) == "enumerate" and iterable.args and isinstance(target, cst.Tuple):
            iterable, target = iterable.args[0].value, target.elements[-1].value
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value in ("values", "children"):
            iterable = iterable.func.value
        container = self._target(iterable)
        if container != ANONYMOUS and isinstance(target, cst.Name):
            self.module_parts[target.value] = container

    def _sharding_effect(self, call: cst.Call) -> str | None:
        """The effect of a call that replaces the parameters of the modules it is given."""
        name = self.summaries.names.qualified_name(call.func)
        if name in torch_api.FSDP2_SHARDING:
            return idioms.Effect.FULLY_SHARD.value
        if name in torch_api.FSDP1_WRAPPERS and replaces_fsdp1_parameters(call):
            return idioms.Effect.FSDP_WRAP.value
        return None

    def _modules_given(self, call: cst.Call) -> list[str]:
        """The modules (or the list of modules) a sharding call is given, as the caller names them."""
        argument = argument_for(call, 0, "module")
        if argument is None or argument.star:
            return []
        value = argument.value
        elements = [element.value for element in value.elements] if isinstance(value, (cst.List, cst.Tuple)) else [value]
        targets = [self.module_parts.get(element.value) if isinstance(element, cst.Name) else None for element in elements]
        targets = [part or self._target(element) for part, element in zip(targets, elements)]
        return [target for target in targets if target != ANONYMOUS]

    def _gradient_of(self, expression: cst.BaseExpression) -> str | None:
        """The holder whose gradients ``p.grad`` is, for a loop variable ``p`` over them."""
        if isinstance(expression, cst.Attribute) and expression.attr.value == "grad" and isinstance(expression.value, cst.Name):
            return self.gradient_holders.get(expression.value.value)
        return None

    # ----------------------------------------------------------------- return values
    def _returned(self, value: cst.BaseExpression | None) -> Returns:
        if value is None or is_none(value):
            return Returns(Kind.OTHER)
        return self._classify_value(value, 0)

    def _returns(self, falls_off_end: bool) -> Returns:
        found = self.returned + ([Returns(Kind.OTHER)] if falls_off_end else [])
        if not found:
            return Returns()
        kinds = {item.kind for item in found}
        return Returns(
            kinds.pop() if len(kinds) == 1 else None,
            all(item.probabilities for item in found),
            all(item.non_contiguous for item in found),
            all(item.graph_entries for item in found),
            _agreed_elements([item.elements for item in found]),
            all(item.backpropagated for item in found),
            tuple(sorted(set.intersection(*(set(item.backpropagated_elements) for item in found)))),
        )

    def _classify_value(self, value: cst.BaseExpression, depth: int) -> Returns:
        if isinstance(value, cst.Name):
            if value.value in self.backpropagated:
                return Returns(Kind.GRAPH_TENSOR, backpropagated=True)  # `loss.backward()` then `return loss`
            if value.value in self.backpropagated_entries:
                return Returns(graph_entries=True)
            if value.value in self.assigned and depth < _MAX_ALIAS_DEPTH:
                return _on_some_path([self._classify_value(assigned, depth + 1) for assigned in self._reaching_values(value)])
            if self.in_module_class and _is_receiver(value, self.function):
                return Returns(Kind.MODULE)
            if value.value not in self.locals and value.value not in self.parameter_names:  # `return DEFAULT_DEVICE`, a module-level constant
                return Returns(self.summaries.names.module_constant_kind(value.value))
            return Returns()
        if isinstance(value, cst.Attribute) and dotted_name(value) in self.backpropagated:
            return Returns(Kind.GRAPH_TENSOR, backpropagated=True)  # `self.loss.backward()` then `return self.loss`
        if isinstance(value, cst.Attribute) and value.attr.value in _NON_CONTIGUOUS_ATTRIBUTES:
            return self._transposed(value.value, depth)
        if isinstance(value, cst.Call):
            return self._classify_call(value, depth)
        if isinstance(value, (cst.Integer, cst.Float)):
            return Returns(Kind.NUMBER)
        if isinstance(value, (cst.Dict, cst.List, cst.Tuple)) and any(
            isinstance(entry, (cst.DictElement, cst.Element)) and isinstance(entry.value, cst.Name) and entry.value.value in self.backpropagated
            for entry in value.elements
        ):
            return Returns(graph_entries=True)  # `return {"loss": loss, "acc": acc}` after `loss.backward()`
        if isinstance(value, cst.Tuple) and depth == 0 and not any(isinstance(entry, cst.StarredElement) for entry in value.elements):
            entries = [self._classify_value(entry.value, depth + 1) for entry in value.elements]
            backpropagated = tuple(index for index, entry in enumerate(entries) if entry.backpropagated)
            return Returns(Kind.OTHER, elements=tuple(entry.kind for entry in entries), backpropagated_elements=backpropagated)
        if isinstance(value, cst.UnaryOperation):
            return self._classify_value(value.expression, depth + 1)
        if isinstance(value, cst.Subscript) and depth < _MAX_ALIAS_DEPTH:  # `torch.flip(vals, dims=(0,))[:k]`: part of a tensor
            indexed = self._classify_value(value.value, depth + 1)
            return Returns(indexed.kind) if indexed.kind in TENSOR_KINDS else Returns()
        if isinstance(value, cst.BinaryOperation) and not isinstance(value.operator, cst.MatrixMultiply):
            return _arithmetic(self._classify_value(value.left, depth + 1), self._classify_value(value.right, depth + 1))
        return Returns()

    def _reaching_values(self, name: cst.Name) -> list[cst.BaseExpression]:
        """What the assignments that may hold at ``name`` assign (``loss_kl = kl``, and
        ``loss_kl = 0`` on the branch of early epochs); the last one when another kind of
        binding (a loop target, an unpacking) may hold there."""
        return references.reaching_values(self.summaries.names.binder, name) or [self.assigned[name.value]]

    def _transposed(self, receiver: cst.BaseExpression, depth: int) -> Returns:
        """``x.T``, ``x.transpose(0, 1)``: a non-contiguous tensor, unless ``x`` is an array of
        another library (NumPy arrays have ``.T`` and ``.transpose`` too)."""
        if self._array_of_another_library(receiver, depth + 1):
            return Returns(Kind.OTHER)
        return Returns(Kind.TENSOR, non_contiguous=True)

    def _array_of_another_library(self, value: cst.BaseExpression, depth: int) -> bool:
        while isinstance(value, cst.Name) and value.value in self.assigned and depth < _MAX_ALIAS_DEPTH:
            value, depth = self.assigned[value.value], depth + 1
        while isinstance(value, (cst.Attribute, cst.Call)):
            func = value.func if isinstance(value, cst.Call) else None
            if func is None or not isinstance(func, cst.Attribute) or self.summaries.names.qualified_name(func) is not None:
                break
            value = func.value  # a method chain: `np.array(edges).T.copy()`
        if isinstance(value, cst.Attribute) and value.attr.value in _NON_CONTIGUOUS_ATTRIBUTES:
            return self._array_of_another_library(value.value, depth + 1)
        qualified = self.summaries.names.qualified_name(value.func) if isinstance(value, cst.Call) else None
        return qualified is not None and qualified.split(".", 1)[0] in torch_api.ARRAY_LIBRARIES

    def _classify_call(self, call: cst.Call, depth: int) -> Returns:
        names = self.summaries.names
        func = call.func
        qualified = names.qualified_name(func)
        method = func.attr.value if isinstance(func, cst.Attribute) and qualified is None else None
        if method in _NON_CONTIGUOUS_METHODS:
            return self._transposed(func.value, depth)  # type: ignore[attr-defined]
        last = (qualified or "").rsplit(".", 1)[-1]
        if method in _PROBABILITY_FUNCTIONS or (qualified is not None and qualified.startswith("torch.") and last in _PROBABILITY_FUNCTIONS):
            return Returns(Kind.TENSOR, probabilities=True)
        if qualified is not None:
            if torch_api.is_module_class_name(qualified):
                return Returns(Kind.LOSS_FUNCTION if last.endswith("Loss") else Kind.MODULE)
            if qualified in _TENSOR_RESULTS:
                return Returns(Kind.TENSOR)
            return Returns()
        if isinstance(func, cst.Name) and func.value in names.module_classes and func.value not in self.locals:
            return Returns(Kind.MODULE)
        if isinstance(func, cst.Name) and func.value == self.receiver and self.constructs_own_class:
            return Returns(Kind.MODULE)  # `return cls(...)` in a classmethod of a module class: an alternative constructor
        if method in torch_api.MODULE_SELF_METHODS and isinstance(func, cst.Attribute):
            receiver = self._classify_value(func.value, depth + 1)
            if receiver.kind is Kind.MODULE:
                return receiver
        resolved = self.summaries.resolve_inside(call, self.function, self.locals, self.assigned)
        if resolved is not None:
            return self.summaries.of(resolved.function).returns
        if method is not None and depth < _MAX_ALIAS_DEPTH and self._classify_value(func.value, depth + 1).kind in TENSOR_KINDS:  # type: ignore[attr-defined]
            return Returns(tensor_method_kind(method))  # `bias.unsqueeze(0)`, `onehot.repeat(n, 1, 1)`
        return Returns()


def _agreed_elements(returned: list[tuple[Kind | None, ...]]) -> tuple[Kind | None, ...]:
    """The element kinds every returned tuple agrees on; () unless all are tuples of one length."""
    if not returned or not returned[0] or any(len(elements) != len(returned[0]) for elements in returned):
        return ()
    return tuple(kinds[0] if len(set(kinds)) == 1 else None for kinds in zip(*returned))


def _backward_of_a_parameter(call: cst.Call, receiver: cst.Name, parameters: set[str]) -> bool:
    """``loss.backward()`` on the loss the function was handed; not ``accelerator.backward(loss)``."""
    return receiver.value in parameters and not any(argument.keyword is None for argument in call.args)


def _on_some_path(found: list[Returns]) -> Returns:
    """What a name holds that several assignments may have bound: the tensor, where the others
    bind numbers (``loss_aux = 0`` until a warm-up ends); else what they all agree on."""
    tensors = [item for item in found if item.kind in TENSOR_KINDS]
    if tensors and all(item.kind in TENSOR_KINDS or item.kind is Kind.NUMBER for item in found):
        return next((item for item in tensors if item.kind is Kind.GRAPH_TENSOR), tensors[0])
    return found[0] if all(item == found[0] for item in found) else Returns()


def _arithmetic(left: Returns, right: Returns) -> Returns:
    """``a * b``: a tensor when one side is a tensor and the other a tensor or a number;
    arithmetic on a loss the function backpropagated keeps that graph (``loss * world_size``)."""
    kinds = {left.kind, right.kind}
    if (left.backpropagated or right.backpropagated) and kinds <= TENSOR_KINDS | {Kind.NUMBER, None}:
        return Returns(Kind.GRAPH_TENSOR, backpropagated=True)
    if kinds & TENSOR_KINDS and kinds <= TENSOR_KINDS | {Kind.NUMBER}:
        return Returns(Kind.TENSOR)
    return Returns()


_TENSOR_RESULTS = (
    torch_api.TENSOR_FACTORIES | torch_api.LEGACY_TENSOR_CONSTRUCTORS | torch_api.TENSOR_LIKE_FACTORIES | torch_api.TENSOR_OPS
    | torch_api.LOSS_FUNCTIONS
)
_RUN_LATER = frozenset({cst.Lambda, cst.FunctionDef, cst.ClassDef})
_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})


def _calls_in(node: cst.CSTNode, certain: bool) -> list[tuple[cst.Call, bool]]:
    """Calls inside ``node`` in evaluation order (arguments before the call), each with
    whether it runs whenever ``node`` does. Lambdas, defs and classes run later: skipped."""
    found: list[tuple[cst.Call, bool]] = []
    _collect_calls(node, certain, found)
    return found


def _collect_calls(node: cst.CSTNode, certain: bool, found: list[tuple[cst.Call, bool]]) -> None:
    # Exact types, not isinstance: these node classes have no subclasses, and an isinstance
    # check of a libcst class goes through ABCMeta on every node of every summarised function.
    node_type = type(node)
    if node_type in _RUN_LATER:
        return
    if node_type is cst.IfExp:
        _collect_calls(node.test, certain, found)  # type: ignore[attr-defined]
        _collect_calls(node.body, False, found)  # type: ignore[attr-defined]
        _collect_calls(node.orelse, False, found)  # type: ignore[attr-defined]
        return
    if node_type is cst.BooleanOperation:
        _collect_calls(node.left, certain, found)  # type: ignore[attr-defined]
        _collect_calls(node.right, False, found)  # type: ignore[attr-defined]
        return
    inner = certain and node_type not in _COMPREHENSIONS
    for child in children(node):
        _collect_calls(child, inner, found)
    if node_type is cst.Call:
        found.append((node, certain))  # type: ignore[arg-type]


def _sets_eval_mode(call: cst.Call) -> bool:
    """``m.train(False)`` / ``m.train(mode=False)`` switch to eval mode."""
    mode = argument_for(call, 0, "mode")
    return mode is not None and not mode.star and isinstance(mode.value, cst.Name) and mode.value.value == "False"
