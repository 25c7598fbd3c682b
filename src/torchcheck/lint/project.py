"""The project index: what every file of the linted tree exports, and the findings that hold
only given a fact about another file.

Linting a file (one parse, one walk) yields, next to its findings, its *export summary*
(:class:`ExportSummary`: the classes, functions and values it defines at top level with the
facts rules ask about them, the names it imports, and module-level flags) and its *deferred
findings* (:class:`DeferredFinding`: a finding plus conditions on names the file imports,
such as "``Net`` from ``model`` ends its ``forward`` with a softmax"). Both are plain values
that serialise to JSON, cached per file by content like the findings.

Once every file is linted or read from the cache, :class:`ProjectIndex` resolves imports to
files and keeps the deferred findings whose conditions hold. Module names come from paths:
relative to the importing file's package root, to its own directory (a script's imports),
to the project root and to ``src/`` under it; relative imports go through the packages'
``__init__.py``, which may re-export names. Like Pysa's summaries, nothing is parsed again
for that: after ``model.py`` is edited only ``model.py`` is linted, and ``train.py``'s
questions about it are answered anew from ``train.py``'s cached conditions.

This module imports neither libcst nor the rules: a run answered from the cache resolves
its cross-file findings without parsing anything.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from torchcheck.lint import idioms, torch_api
from torchcheck.lint.diagnostic import Diagnostic, RelatedPlace
from torchcheck.lint.literals import NOT_A_LITERAL, OTHER_LITERAL, literal_case, same_literal
from torchcheck.lint.stars import StarImport

# In a deferred finding's message, replaced by the place the condition found (file:line).
PLACE = "{place}"

# Facts (see ExportSummary): what calling a value returns ("output"; "output.<i>" for
# element i of a returned tuple), what calling an instance of a class returns (its forward:
# "instance_output"), a function's effects when called, module-level flags.
OUTPUT = "output"
INSTANCE_OUTPUT = "instance_output"
EFFECT = "effect"  # effect:<action>:<target as the caller spells it>
LEAVES_EVAL = "leaves_eval"  # leaves_eval:<target as the caller spells it>
DOES = "does"  # does:<action>[,<action>...]: one of them, on anything
MODULE = "module"  # module:<flag> of the module that defines the symbol
IMPORTS = "imports"  # imports:<flag>: the flag in any project module imported, transitively
PROJECT = "project"  # project:<fact>:<item>: "yes" if any file of the project lists <item> in its <fact>

# Module-level flags (ExportSummary.facts), each "yes" or "no".
SET_EPOCH = "set_epoch"
# The module may build a loss scaler: its text names `GradScaler` (torch's, FSDP's `ShardedGradScaler`).
GRAD_SCALER = "grad_scaler"
GRAD_SCALER_TEXT = "GradScaler"
# A list fact ("yes" or absent): the module compiles something (`torch.compile(...)`,
# `m.compile()`, `torch._dynamo.optimize`, a framework's compile switch) that may reach code
# of other files: a `flex_attention` call there may run compiled. Compiling `flex_attention`
# itself (`torch.compile(flex_attention)`) covers only the calls of that alias and is not counted.
COMPILES = "compiles"
_GRAD_OFF_TEXT = re.compile(rf"\b(?:{'|'.join(sorted(torch_api.GRAD_OFF_NAMES))})\b")
_COMPILE_TEXT = re.compile(
    r"\btorch\.compile\b(?!\(\s*\w*flex_attention\b)|\.compile\(\s*(?:\)|mode=|backend=|fullgraph=|dynamic=)"
    r"|_dynamo\.optimize|torch_compile|dynamo_backend"
)
# The module may open an autocast region: it calls or passes on an autocast spelling
# (`torch.autocast(...)`, `partial(torch.autocast, ...)`, `accelerator.autocast()`, a
# helper or parameter named for it), sets up FSDP's `MixedPrecision`, or imports a framework
# that runs the forward pass under autocast for its users (MIXED_PRECISION_FRAMEWORKS).
AUTOCAST = "autocast"
GRAD_OFF = "grad_off"  # the module spells a grad-off API: a decorator it defines may disable gradients
BENCHMARK = "benchmark"
# The module trains in loops of its own: it calls `.backward(...)` and names no framework whose
# loop would run the training (and manage its samplers' epochs) for it (idioms.EPOCH_SETTING_PATTERN).
TRAINS = "trains"
# Asked of a top-level function: "no" when other files of the project import it and none of
# them trains (TRAINS), so what it returns serves their inference; "yes" otherwise.
IMPORTERS_TRAIN = "importers_train"
_BACKWARD_TEXT = re.compile(r"\.backward\(")
DETERMINISTIC = "deterministic"
DISTRIBUTED = "distributed"
# A class fact: whether the class derives from torch's `nn.Module` - "yes", "no", or
# "via:" and the JSON list of its base classes (as symbols) defined in other files, any of
# which makes it a module: the project's class hierarchy is followed across files.
TORCH_MODULE = "torch_module"
# "yes" unless the project shows the symbol is a class whose bases never reach `nn.Module`
# (what a value's name suggests stands until the code that made it says otherwise).
MAY_BE_MODULE = "may_be_module"
# A class fact: a module class that holds no parameters, buffers or train/eval behaviour
# ("yes"; absent otherwise). STATEFUL_MODULE asks of a symbol: a module class that is not.
STATELESS = "stateless"
STATEFUL_MODULE = "stateful_module"
DEFINITION = "definition"  # what the symbol's definition is: "class", "function" or "value"
# A class fact: the JSON list of its base classes (as symbols). `derives:<q1>,<q2>` asks
# whether the class derives, through the project's files, from a class qualified <q1> or <q2>
# outside the project (`torch.nn.DataParallel`): "yes" or "no".
BASES = "bases"
DERIVES = "derives"
# What calling a function returns where every `return` agrees: "returns" of a function
# ("returns.<i>": element i of the tuple it returns), and "returns:<method>"
# ("returns:<method>.<i>") of a class, for its methods. Valued "tensor", "graph" (a tensor
# in an autograd graph, which is a tensor too), "module", or "graph_entries" (a list or dict
# whose entries carry the graph of a loss it backpropagated).
RETURNS = "returns"
TENSOR, GRAPH, A_MODULE, GRAPH_ENTRIES, A_DEVICE = "tensor", "graph", "module", "graph_entries", "device"
OWN_INSTANCE = "own_instance"  # a class's method returns an instance of the class (`return cls(...)`)
BACKPROPAGATED = "backpropagated"  # a graph tensor the function itself backpropagated
RETURNED_KINDS = (TENSOR, GRAPH, A_MODULE, GRAPH_ENTRIES, BACKPROPAGATED, A_DEVICE)


def returns_fact(method: str | None = None, index: int | None = None) -> str:
    """The name of the :data:`RETURNS` fact for a function (``method`` None) or a class's method."""
    fact = f"{RETURNS}:{method}" if method is not None else RETURNS
    return f"{fact}.{index}" if index is not None else fact


_VIA = "via:"
# A file defines a class that is no module yet has `forward` and a module's methods
# (`parameters()`): the duck-typed controller of a multi-agent learner. Code that only uses a
# value as a module may hold one of those; `project:imitates_module:yes` asks whether any does.
IMITATES_MODULE = "imitates_module"
# A list fact (ExportSummary.facts, items joined by commas): the attribute names that an
# `_apply` override of the module moves by name (`m.stride = fn(m.stride)`), whichever
# class of the project stores them.
MOVED_BY_APPLY = "moved_by_apply"
# `unguarded_calls:<name>`: a file that sets up a process group calls its import <name>
# outside a rank check. `project:unguarded_calls:<function>` asks whether any file of the
# project calls the asking file's top-level <function> that way.
UNGUARDED_CALLS = "unguarded_calls"
# `method_calls:<class as the calling file spells it>.<method>`: a file that sets up a process
# group calls the method on an instance of its imported class: `guarded` when every such call
# is under a rank check, else `unguarded`. `project:guarded_calls_only:<class>.<method>` asks
# whether the project's files call the asking file's class's method, and only under rank checks.
METHOD_CALLS = "method_calls"
GUARDED_CALLS_ONLY = "guarded_calls_only"
GUARDED, UNGUARDED = "guarded", "unguarded"
# passed:<callee as the calling file spells it>: the calls of an imported function (or of a
# method of an instance of an imported class, `Class.method`) that pass an instance of a class
# or what calling one returned, as JSON: per call, the positional arguments and the keyword
# arguments, each a symbol as a list (an instance), {"output": symbol, "element": index or
# null} (what calling an instance returned, or one element of it), {"kind": "tensor" or
# "graph"} (a tensor the caller's code shows), {"loss": functional form} (a torch loss,
# `criterion = nn.CrossEntropyLoss()`), or null (anything else).
PASSED = "passed"
# passed_output:<parameter>:<position, -1 if keyword-only>: what calling the instance that every call of this
# file's function, in the other files of the project, passes for that parameter returns.
PASSED_OUTPUT = "passed_output"
# passed_kind:<parameter>:<position>: the kind ("tensor", "graph") of what every call of this
# file's function, in the other files of the project, passes for that parameter.
PASSED_KIND = "passed_kind"
# passed_module:<parameter>:<position>: "yes" when every call in the other files passes an
# instance of a class whose bases reach nn.Module for that parameter.
PASSED_MODULE = "passed_module"
# passed_value:<parameter>:<position>: what every such call passes for that parameter, when each
# passes what calling an instance returned (`criterion(box, conf, cls)` after `box, conf, cls = model(x)`).
PASSED_VALUE = "passed_value"
# passed_loss:<parameter>:<position>: the torch loss (its functional form,
# `torch.nn.functional.cross_entropy`) that every such call passes for that parameter.
PASSED_LOSS = "passed_loss"
# A list fact: the settings the module assigns a number (`cfg.MODEL.HEAD.POS_WEIGHT = 1.5`),
# each spelled without its root name (`MODEL.HEAD.POS_WEIGHT`), as configuration defaults are.
NUMBER_SETTINGS = "number_settings"
# List facts: the attribute names that a method of a class of the module assigns a module it
# constructs (`self.outc = OutConv(...)`), and those it assigns anything else (`self.outc = outc`).
MODULE_ATTRIBUTES = "module_attributes"
OTHER_ATTRIBUTES = "other_attributes"

MUST = "must"
MAY = "may"
NONE = "none"
YES = "yes"
NO = "no"
_CERTAINTIES = (MUST, MAY, NONE)
_EVAL = "eval"
_ANONYMOUS = "<value>"
_MAX_DEPTH = 16  # re-exports followed, and nesting of submodules
_DOTTED_ASSIGNMENT = re.compile(r"\w\.\w+\.\w+\s*=\s*-?[\d.]")

# Libraries whose trainers, accelerators or precision plugins open autocast for the code that
# hands them a model or a loss: a module importing one may run under autocast it never spells.
MIXED_PRECISION_FRAMEWORKS = (
    "accelerate",
    "apex.amp",  # not apex's fused optimizers and layers
    "colossalai",
    "composer",
    "deepspeed",
    "detectron2",
    "fairseq",
    # ignite's Engine runs the step function it is given as written: only its supervised
    # trainer (`amp_mode="amp"`, `scaler=True`) opens autocast and scales the loss
    "ignite.engine.create_supervised_trainer",
    "ignite.engine.supervised_training_step_amp",
    "lightning",
    "lightning_fabric",
    "megatron",
    "mmcv",
    "mmengine",
    "nemo",
    "pytorch_lightning",
    "ray.train",
    "torchtnt",
)
# Modules that are never files of the project being linted: a file importing only these
# can answer questions about what it imports by itself, as when it is linted alone.
_NEVER_PROJECT_MODULES = frozenset(sys.stdlib_module_names - {"test", "tests", "code", "profile"}) | {"torch"}


def is_mixed_precision_framework(module: str) -> bool:
    """``module`` is (part of) a framework that opens autocast for its users."""
    return any(module == name or module.startswith(f"{name}.") for name in MIXED_PRECISION_FRAMEWORKS)


def _joined(*parts: str) -> str:
    return ".".join(part for part in parts if part)


# ----------------------------------------------------------------------------- symbols


@dataclass(frozen=True)
class Symbol:
    """A name as one file spells it.

    ``from ..engine import train`` gives ``Symbol("engine", "train", level=2)``; ``import
    model`` and then ``model.Net`` give ``Symbol("model", "Net")``; a top-level name of the
    file itself has ``module=None``. ``name`` may be dotted (``utils.evaluate`` after ``from
    . import utils``) or empty (the module itself).
    """

    module: str | None
    name: str
    level: int = 0

    @property
    def is_local(self) -> bool:
        return self.module is None

    def member(self, attribute: str) -> Symbol:
        return replace(self, name=_joined(self.name, attribute))

    def to_list(self) -> list[Any]:
        return [self.module, self.name, self.level]

    @classmethod
    def from_list(cls, data: Any) -> Symbol:
        module, name, level = data
        if (module is not None and not isinstance(module, str)) or not isinstance(name, str) or not isinstance(level, int):
            raise ValueError(f"not a symbol: {data!r}")
        return cls(module, name, level)


# The asking file itself: what `project:<fact>:<item>` conditions are asked of.
THIS_FILE = Symbol(None, "")


@dataclass(frozen=True)
class CallShape:
    """How a call passes its arguments, as the caller spells them (``None`` for an argument
    that is not a name), so a callee's effect on a parameter can be mapped back."""

    positional: tuple[str | None, ...] = ()
    keywords: tuple[tuple[str, str | None], ...] = ()
    opaque: bool = False  # `*args` / `**kwargs` hide the mapping
    # the literal arguments (`mode="test"`), by position or keyword, for a callee whose tests compare them
    literals: tuple[tuple[int | str, str | int | bool | None], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "positional": list(self.positional), "keywords": [list(pair) for pair in self.keywords], "opaque": self.opaque,
            "literals": [list(pair) for pair in self.literals],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CallShape:
        return cls(
            tuple(data["positional"]),
            tuple((str(name), spelled) for name, spelled in data["keywords"]),
            bool(data["opaque"]),
            tuple((key, value) for key, value in data.get("literals", ())),
        )


@dataclass(frozen=True)
class Condition:
    """``fact`` of ``symbol`` has ``value``.

    For the certainty facts (``effect:...``, ``leaves_eval:...``, ``does:...``) the value is
    a lower bound: ``may`` holds for ``may`` and ``must``; ``none`` holds only when the
    summary records nothing. A fact the index cannot establish (the file did not parse, the
    name is not defined there) never holds - except ``none`` about a name of a module outside
    the project (``torch.save(model, path)``, ``wandb.watch(model)``): libraries are taken not
    to drive your training protocol, as in a single file.
    """

    symbol: Symbol
    fact: str
    value: str
    call: CallShape | None = None

    def to_dict(self) -> dict[str, Any]:
        call = self.call.to_dict() if self.call is not None else None
        return {"symbol": self.symbol.to_list(), "fact": self.fact, "value": self.value, "call": call}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Condition:
        call = data.get("call")
        return cls(Symbol.from_list(data["symbol"]), str(data["fact"]), str(data["value"]), CallShape.from_dict(call) if call else None)


@dataclass(frozen=True)
class DeferredFinding:
    """A finding that stands only if every condition holds; its message may name the place
    the first condition found (:data:`PLACE`)."""

    diagnostic: Diagnostic
    conditions: tuple[Condition, ...]

    @property
    def is_local(self) -> bool:
        """Every condition is about the file itself: decidable without the project."""
        return all(is_local_condition(condition) for condition in self.conditions)

    def to_dict(self) -> dict[str, Any]:
        return {"diagnostic": self.diagnostic.to_dict(), "conditions": [c.to_dict() for c in self.conditions]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DeferredFinding:
        return cls(Diagnostic.from_dict(data["diagnostic"]), tuple(Condition.from_dict(c) for c in data["conditions"]))


def torch_module_via(bases: list[Symbol]) -> str | None:
    """The :data:`TORCH_MODULE` value of a class whose module-ness depends on ``bases``."""
    return _VIA + json.dumps([base.to_list() for base in bases]) if bases else None


# Facts about a file's definitions that the other files decide: how they are called.
_PROJECT_WIDE = (*(f"{flag}:" for flag in (PROJECT, PASSED_OUTPUT, PASSED_VALUE, PASSED_KIND, PASSED_MODULE)), IMPORTERS_TRAIN)


def is_local_condition(condition: Condition) -> bool:
    """About the file itself and nothing it imports (``imports:<flag>`` and ``project:...``
    need the project)."""
    if condition.fact in (TORCH_MODULE, MAY_BE_MODULE, STATEFUL_MODULE) or condition.fact.startswith(f"{DERIVES}:"):
        return False  # a local class may derive from a class of another file
    return condition.symbol.is_local and not condition.fact.startswith((f"{IMPORTS}:", *_PROJECT_WIDE))


# ----------------------------------------------------------------------------- export summaries


@dataclass(frozen=True)
class Fact:
    """A value with the place that shows it: ``where`` reads in a message before `` at
    file:line`` (```nn.Softmax()`` at the end of ``Net.forward()```)."""

    value: str
    line: int
    where: str

    def to_list(self) -> list[Any]:
        return [self.value, self.line, self.where]

    @classmethod
    def from_list(cls, data: Any) -> Fact:
        value, line, where = data
        return cls(str(value), int(line), str(where))


@dataclass(frozen=True)
class Definition:
    """A class, function or value defined at the top level of a file.

    ``summary`` is a function's :class:`~torchcheck.lint.summaries.FunctionSummary` as a
    dict (kept as data here: resolving it needs no libcst), or None when the function does
    nothing a summary records.
    """

    kind: str  # "class", "function" or "value"
    line: int
    facts: Mapping[str, Fact] = field(default_factory=dict)
    summary: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "line": self.line,
            "facts": {name: fact.to_list() for name, fact in sorted(self.facts.items())},
            "summary": self.summary,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Definition:
        facts = {str(name): Fact.from_list(value) for name, value in data["facts"].items()}
        summary = data.get("summary")
        if summary is not None and not isinstance(summary, dict):
            raise ValueError("a summary is a mapping")
        return cls(str(data["kind"]), int(data["line"]), facts, summary)


@dataclass(frozen=True)
class ExportSummary:
    """What one file offers the rest of the project.

    ``imports`` maps each name its top level binds by an import to what it imports (so a
    package's ``__init__.py`` re-exports); ``modules`` lists every module it imports
    anywhere (for questions about what a file pulls in transitively); ``facts`` holds its
    module-level flags (``set_epoch``, ``autocast``, ``benchmark`` ...: ``yes``/``no``).
    """

    definitions: Mapping[str, Definition] = field(default_factory=dict)
    imports: Mapping[str, Symbol] = field(default_factory=dict)
    modules: tuple[Symbol, ...] = ()
    facts: Mapping[str, Fact] = field(default_factory=dict)
    # In a notebook, where each code cell starts among the joined cells that the lines
    # above count: (first joined row, cell number), in order.
    cells: tuple[tuple[int, int], ...] = ()
    stars: tuple[Symbol, ...] = ()  # the modules its top level star-imports, in order

    def position(self, line: int) -> tuple[int | None, int]:
        """A line of the summary as findings name it: (cell, row within the cell) in a
        notebook, (None, line) in a Python file."""
        start, cell = next(((start, cell) for start, cell in reversed(self.cells) if start <= line), (1, None))
        return cell, line - start + 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "definitions": {name: item.to_dict() for name, item in sorted(self.definitions.items())},
            "imports": {name: symbol.to_list() for name, symbol in sorted(self.imports.items())},
            "modules": [symbol.to_list() for symbol in self.modules],
            "facts": {name: fact.to_list() for name, fact in sorted(self.facts.items())},
            "cells": [list(pair) for pair in self.cells],
            "stars": [symbol.to_list() for symbol in self.stars],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExportSummary:
        return cls(
            {str(name): Definition.from_dict(item) for name, item in data["definitions"].items()},
            {str(name): Symbol.from_list(item) for name, item in data["imports"].items()},
            tuple(Symbol.from_list(item) for item in data["modules"]),
            {str(name): Fact.from_list(item) for name, item in data["facts"].items()},
            tuple((int(start), int(cell)) for start, cell in data.get("cells", ())),
            tuple(Symbol.from_list(item) for item in data.get("stars", ())),
        )


# ----------------------------------------------------------------------------- module resolution

Locate = Callable[[str, str, int], "str | None"]  # (importing file, module, level) -> file


class ModuleLocator:
    """Finds the file of a module the way Python's import system would for a project.

    ``from . import x`` and ``from ..pkg import y`` start at the importing file's package;
    an absolute import is looked up below the importing file's package root (the directory
    above its outermost package), its own directory (where a script's sibling imports
    live), each directory above it up to the project root, and ``src/`` under the root.
    Only files inside the project root are found. Answers are memoised: one run asks many
    times about the same files.
    """

    def __init__(self, root: Path) -> None:
        self._root = Path(os.path.abspath(root))
        self._exists: dict[Path, bool] = {}
        self._found: dict[tuple[Path, tuple[str, ...]], str | None] = {}  # files of one folder ask alike

    def __call__(self, importer: str, module: str, level: int) -> str | None:
        parts = [part for part in module.split(".") if part]
        directory = Path(importer).parent
        if level > 0:
            for _ in range(level - 1):
                directory = directory.parent
            return self._module_file(directory, parts)
        if not parts:
            return None
        for base in self._bases(directory):
            found = self._module_file(base, parts)
            if found is not None:
                return found
        return None

    def _bases(self, directory: Path) -> list[Path]:
        """Where an absolute import may start: the importing file's package root and folder,
        then each folder above it up to the project root, nearest first (a ``src/`` layout
        or a sub-project run from its own folder puts one of them on ``sys.path``), then the
        project root's ``src/``."""
        ancestors = [folder for folder in directory.parents if self._inside(folder)]
        bases = [self._package_root(directory), directory, *ancestors, self._root, self._root / "src"]
        return list(dict.fromkeys(bases))

    def _package_root(self, directory: Path) -> Path:
        while directory != self._root and self._is_file(directory / "__init__.py") and self._inside(directory.parent):
            directory = directory.parent
        return directory

    def _module_file(self, base: Path, parts: list[str]) -> str | None:
        key = (base, tuple(parts))
        if key not in self._found:
            self._found[key] = self._find_module_file(base, parts)
        return self._found[key]

    def _find_module_file(self, base: Path, parts: list[str]) -> str | None:
        folder = base.joinpath(*parts)
        candidates = [folder / "__init__.py"] if not parts else [folder.with_name(f"{parts[-1]}.py"), folder / "__init__.py"]
        for candidate in candidates:
            if self._inside(candidate) and self._is_file(candidate):
                return candidate.as_posix()
        return None

    def _inside(self, path: Path) -> bool:
        return path == self._root or self._root in path.parents

    def _is_file(self, path: Path) -> bool:
        known = self._exists.get(path)
        if known is None:
            known = self._exists[path] = path.is_file()
        return known


# ----------------------------------------------------------------------------- the index


@dataclass(frozen=True)
class IndexedFile:
    name: str  # as findings name it
    exports: ExportSummary


@dataclass(frozen=True)
class _Target:
    """What a symbol resolves to: a file and a definition in it (None: the module itself)."""

    file: str
    definition: Definition | None


@dataclass(frozen=True)
class Answer:
    """The value of a fact and where it shows, for the message."""

    value: str
    place: str
    related: RelatedPlace | None = None  # the place, for editors to link to


class ProjectIndex:
    """Every linted file's export summary, keyed by the file's path; answers conditions.

    Files that an answer needed but that the index does not hold are collected in
    :attr:`missing` (a run over part of a project can then read their summaries and ask
    again). A condition that cannot be answered does not hold.
    """

    def __init__(self, files: Mapping[str, IndexedFile], locate: Locate) -> None:
        self._files = files
        self._locate = locate
        self._roots: dict[str, list[str]] = {}  # file -> the package roots of its project (see _project_roots)
        self.missing: set[str] = set()

    # ------------------------------------------------------------------- findings
    def resolve(self, importer: str, finding: DeferredFinding) -> Diagnostic | None:
        """The finding, its message completed, if every condition holds; else None."""
        answers = []
        for condition in finding.conditions:
            answer = self.answer(importer, condition)
            if answer is None or not _satisfies(condition.value, answer.value):
                return None
            answers.append(answer)
        diagnostic = finding.diagnostic
        if answers and PLACE in diagnostic.message:
            message = diagnostic.message.replace(PLACE, answers[0].place)
            diagnostic = replace(diagnostic, message=message, related=answers[0].related)
        return diagnostic

    def answer(self, importer: str, condition: Condition) -> Answer | None:
        if condition.fact.startswith(f"{PROJECT}:"):
            return self._project_fact(importer, condition.fact.partition(":")[2])
        if condition.fact.startswith((f"{PASSED_OUTPUT}:", f"{PASSED_VALUE}:")):
            return self._passed_output(importer, condition)
        if condition.fact.startswith((f"{PASSED_KIND}:", f"{PASSED_MODULE}:", f"{PASSED_LOSS}:")):
            return self._passed_kind(importer, condition)
        if condition.fact == IMPORTERS_TRAIN:
            return self._importers_train(importer, condition.symbol.name)
        target = self.target(importer, condition.symbol)
        if condition.fact == MAY_BE_MODULE:
            target = target or self._constructing_class(importer, symbol=condition.symbol)
            shown = self._torch_module(target, 0) if target is not None else None
            return Answer(NO if shown is not None and shown.value == NO else YES, "")
        kind, _, detail = condition.fact.partition(":")
        symbol = condition.symbol
        if kind == MODULE and target is None and symbol.module is not None:  # a file with nothing to summarise
            file = self._locate(importer, symbol.module, symbol.level)
            target = _Target(file, None) if file is not None else None
        if target is None:
            outside = condition.value == NONE and self._outside_project(importer, symbol)
            return Answer(NONE, "") if outside else None
        if kind == MODULE:
            return self._module_fact(target.file, detail)
        if kind == IMPORTS:
            return self._imported_fact(target.file, detail)
        if target.definition is None:
            return None
        if kind in (EFFECT, LEAVES_EVAL, DOES):
            return self._summary_fact(target, kind, detail, condition.call)
        if condition.fact == TORCH_MODULE:
            return self._torch_module(target, 0)
        if condition.fact == STATEFUL_MODULE:
            return self._stateful_module(target)
        if kind == DERIVES:
            return self._derives(target, frozenset(detail.split(",")), 0)
        if condition.fact == DEFINITION:
            return Answer(target.definition.kind, "")
        fact = target.definition.facts.get(condition.fact)
        return Answer(fact.value, *self._place(target.file, fact)) if fact is not None else None

    # ------------------------------------------------------------------- symbols to files
    def target(self, importer: str, symbol: Symbol, depth: int = 0) -> _Target | None:
        """The file and definition ``symbol`` (as ``importer`` spells it) refers to."""
        parts = symbol.name.split(".") if symbol.name else []
        if symbol.module is None:
            return self._lookup(importer, parts, depth)
        return self._find(importer, symbol.module, symbol.level, parts, depth)

    def _constructing_class(self, importer: str, symbol: Symbol) -> _Target | None:
        """For ``Cls.method`` of a class of the project whose ``method`` returns an instance of
        the class (``DynamicNet.from_file(path)``): the class."""
        owner, _, method = symbol.name.rpartition(".")
        target = self.target(importer, replace(symbol, name=owner)) if owner else None
        fact = target.definition.facts.get(returns_fact(method)) if target is not None and target.definition is not None else None
        return target if fact is not None and fact.value == OWN_INSTANCE else None

    def _outside_project(self, importer: str, symbol: Symbol) -> bool:
        """The symbol's module is no file of the project (nor a package holding its first name)."""
        if symbol.module is None:
            return False
        head = symbol.name.split(".", 1)[0]
        submodule = _joined(symbol.module, head) if head else None
        return self._locate(importer, symbol.module, symbol.level) is None and (
            submodule is None or self._locate(importer, submodule, symbol.level) is None
        )

    def _find(self, importer: str, module: str, level: int, parts: list[str], depth: int) -> _Target | None:
        if depth > _MAX_DEPTH:
            return None
        file = self._locate(importer, module, level)
        if file is not None:
            found = self._lookup(file, parts, depth)
            if found is not None:
                return found
        if parts:  # `from pkg import submodule`, `pkg.submodule.name`
            return self._find(importer, _joined(module, parts[0]), level, parts[1:], depth + 1)
        return None

    def _lookup(self, file: str, parts: list[str], depth: int) -> _Target | None:
        if not parts:
            return _Target(file, None)
        indexed = self._files.get(file)
        if indexed is None:
            self.missing.add(file)
            return None
        exports = indexed.exports
        head, rest = parts[0], parts[1:]
        if head in exports.definitions:
            return _Target(file, exports.definitions[head]) if not rest else None
        imported = exports.imports.get(head)
        if imported is not None and depth < _MAX_DEPTH:  # a re-export
            return self.target(file, replace(imported, name=_joined(imported.name, *rest)), depth + 1)
        for star in reversed(exports.stars) if depth < _MAX_DEPTH else ():  # `from .models import *` in a package
            found = self._find(file, star.module or "", star.level, parts, depth + 1)  # type: ignore[arg-type]
            if found is not None:
                return found
        return None

    # ------------------------------------------------------------------- facts
    def _torch_module(self, target: _Target, depth: int) -> Answer | None:
        """Whether the class ``target`` derives from ``nn.Module``, following its bases into
        the files that define them, or the function ``target`` returns a module; None when a
        base cannot be found (never holds)."""
        if target.definition is not None and target.definition.kind == "function":
            returned = target.definition.facts.get(RETURNS)  # `build_model(cfg)`: what it returns
            return Answer(YES, *self._place(target.file, returned)) if returned is not None and returned.value == A_MODULE else None
        if target.definition is None or target.definition.kind != "class" or depth > _MAX_DEPTH:
            return None
        fact = target.definition.facts.get(TORCH_MODULE)
        if fact is None or not fact.value.startswith(_VIA):
            return Answer(fact.value, "") if fact is not None else None
        try:
            bases = [Symbol.from_list(item) for item in json.loads(fact.value[len(_VIA) :])]
        except (ValueError, TypeError):
            return None
        for base in bases:
            found = self.target(target.file, base)
            answer = self._torch_module(found, depth + 1) if found is not None else None
            if answer is not None and answer.value == YES:
                return answer
        return Answer(NO, "")

    def _stateful_module(self, target: _Target) -> Answer | None:
        shown = self._torch_module(target, 0)
        if shown is None or shown.value != YES:
            return shown
        stateless = target.definition is not None and STATELESS in target.definition.facts
        return Answer(NO, "") if stateless else shown

    def _derives(self, target: _Target, wanted: frozenset[str], depth: int) -> Answer | None:
        """Whether the class ``target`` derives from a class of ``wanted`` (qualified names
        outside the project), following its bases through the project's files."""
        if target.definition is None or target.definition.kind != "class" or depth > _MAX_DEPTH:
            return None
        fact = target.definition.facts.get(BASES)
        try:
            bases = [Symbol.from_list(item) for item in json.loads(fact.value)] if fact is not None else []
        except (ValueError, TypeError):
            return None
        for base in bases:
            if base.module is not None and base.level == 0 and _joined(base.module, base.name) in wanted:
                return Answer(YES, *self._place(target.file, fact))  # type: ignore[arg-type]
            found = self.target(target.file, base)
            answer = self._derives(found, wanted, depth + 1) if found is not None else None
            if answer is not None and answer.value == YES:
                return answer
        return Answer(NO, "")

    def _place(self, file: str, fact: Fact) -> tuple[str, RelatedPlace]:
        """``fact``'s place as the message names it, and as a related place."""
        indexed = self._files.get(file)
        name = indexed.name if indexed is not None else file
        cell, row = indexed.exports.position(fact.line) if indexed is not None else (None, fact.line)
        related = RelatedPlace(name, row, cell, fact.where)
        return f"{fact.where} at {related.text}", related

    def _module_fact(self, file: str, flag: str) -> Answer | None:
        indexed = self._files.get(file)
        if indexed is None:
            self.missing.add(file)
            return None
        fact = indexed.exports.facts.get(flag)
        return Answer(fact.value, *self._place(file, fact)) if fact is not None else None

    def _project_fact(self, importer: str, detail: str) -> Answer:
        """``yes`` (with the first place) if a file of the index under the importer's package
        root lists the item in its list fact (``moved_by_apply:stride``), else ``no``: the
        project is what the run holds, and a run over several projects keeps them apart."""
        name, _, item = detail.partition(":")
        if name == GUARDED_CALLS_ONLY:
            return self._guarded_calls_only(importer, item)
        prefixes = tuple(f"{root}/" if root != "." else "" for root in self._project_roots(importer))
        for file in sorted(self._files, key=lambda file: (file != importer, file)):  # the importer's own place first
            if not file.startswith(prefixes):
                continue
            facts = self._files[file].exports.facts
            if name == UNGUARDED_CALLS:
                for key, fact in sorted(facts.items()):
                    flag, _, called = key.partition(":")
                    if flag == UNGUARDED_CALLS and self._is_definition(file, called, importer, item):
                        return Answer(YES, *self._place(file, fact))
                continue
            fact = facts.get(name)
            if fact is not None and item in fact.value.split(","):
                return Answer(YES, *self._place(file, fact))
        return Answer(NO, "")

    def _project_roots(self, importer: str) -> list[str]:
        """The package root of ``importer`` and of each file that imports it: a module of a
        namespace package (``lib/perpare.py``, no ``__init__.py``) that ``src/train.py``
        imports belongs to the same project as the script."""
        roots = self._roots.get(importer)
        if roots is None:
            importing = [file for file in sorted(self._files) if file != importer and importer in self._imported_files(file, self._files[file].exports.modules)]
            roots = self._roots[importer] = list(dict.fromkeys(map(self._package_root, [importer, *importing])))
        return roots

    def _passed_output(self, importer: str, condition: Condition) -> Answer | None:
        """For PASSED_OUTPUT, what calling the instance returns that the other files' calls of
        ``importer``'s function pass for one parameter, when they all pass instances of
        classes whose forward returns the same; for PASSED_VALUE, what they all pass when each
        passes (an element of) what calling such an instance returned. None when no call
        passes one or a call passes something else."""
        kind = condition.fact.partition(":")[0]
        passed = self._passed_by_other_files(importer, condition)
        wanted = dict if kind == PASSED_VALUE else list
        if not passed or any(found is None or type(found[1]) is not wanted or (wanted is dict and "output" not in found[1]) for found in passed):
            return None
        facts = [(file, _passed_fact(value)) for file, value in passed]  # type: ignore[misc]
        answers = [self.answer(file, Condition(symbol, fact, condition.value)) for file, (symbol, fact) in facts]
        values = {answer.value if answer is not None else None for answer in answers}
        return answers[0] if len(values) == 1 and None not in values else None

    def _passed_kind(self, importer: str, condition: Condition) -> Answer | None:
        """For PASSED_KIND, the kind of what every call in the other files passes for one
        parameter; for PASSED_LOSS, the torch loss they all pass; for PASSED_MODULE, whether
        each passes an instance of a module class; None when no call passes one, or a call
        passes something of no known kind."""
        passed = self._passed_by_other_files(importer, condition)
        if condition.fact.startswith(f"{PASSED_MODULE}:"):  # instances, each of a class the index finds nn.Module up the bases of
            answers = [self.answer(found[0], Condition(Symbol.from_list(found[1]), TORCH_MODULE, YES)) if found is not None and type(found[1]) is list else None for found in passed]
            kinds = {answer.value if answer is not None else None for answer in answers}
        else:
            entry = "loss" if condition.fact.startswith(f"{PASSED_LOSS}:") else "kind"
            kinds = {found[1].get(entry) if found is not None and type(found[1]) is dict else None for found in passed}
        return Answer(kinds.pop(), "") if len(kinds) == 1 and None not in kinds else None

    def _passed_by_other_files(self, importer: str, condition: Condition) -> list[tuple[str, Any] | None]:
        """For a ``<flag>:<parameter>:<position>`` condition: what each call in the other files
        passes for that parameter (see :func:`_passed_for`)."""
        _, parameter, position = condition.fact.split(":")
        return [found for file, calls in self._calls_of(importer, condition.symbol.name) for found in _passed_for(calls, parameter, int(position), file)]

    def _calls_of(self, importer: str, definition: str) -> Iterable[tuple[str, Any]]:
        """The recorded calls (see :data:`PASSED`) of ``importer``'s top-level ``definition``
        in the other files under its package root."""
        return ((file, json.loads(fact.value)) for file, fact in self._facts_about(importer, definition, PASSED))

    def _facts_about(self, importer: str, definition: str, flag: str) -> Iterable[tuple[str, Fact]]:
        """The ``<flag>:<callee>`` facts of the other files under ``importer``'s package root
        whose callee, as each file spells it, is ``importer``'s ``definition`` (a top-level
        name, or ``Class.method``)."""
        root = self._package_root(importer)
        prefix = f"{root}/" if root != "." else ""
        for file in sorted(self._files):
            if file == importer or not file.startswith(prefix):
                continue
            for key, fact in self._files[file].exports.facts.items():
                kind, _, called = key.partition(":")
                if kind == flag and self._is_definition(file, called, importer, definition):
                    yield file, fact

    def _importers_train(self, importer: str, definition: str) -> Answer:
        """Every file that imports ``definition`` resolves that import to ``importer``: a
        file of another project never does, so no package root is needed (a namespace
        package, without ``__init__.py``, has none)."""
        importing = [
            file for file in sorted(self._files) if file != importer
            and any(self._is_definition(file, name, importer, definition) for name in self._files[file].exports.imports)
        ]
        training = [file for file in importing if TRAINS in self._files[file].exports.facts]
        if importing and not training:
            return Answer(NO, "")
        return Answer(YES, *self._place(training[0], self._files[training[0]].exports.facts[TRAINS])) if training else Answer(YES, "")

    def _guarded_calls_only(self, importer: str, method: str) -> Answer:
        """``yes`` (with the first call's place) when the distributed files of the project
        call ``Class.method`` of ``importer`` on its instances, and every call is under a rank check."""
        found = list(self._facts_about(importer, method, METHOD_CALLS))
        if not found or any(fact.value != GUARDED for _, fact in found):
            return Answer(NO, "")
        return Answer(YES, *self._place(*found[0]))

    def _is_definition(self, file: str, name: str, importer: str, definition: str) -> bool:
        """Whether ``file``'s import ``name`` (or ``module.name`` of an imported module) is
        ``importer``'s top-level ``definition``; for a method (``Class.method``), whether
        ``name`` is that method of the class as ``file`` spells it."""
        owner, _, method = definition.partition(".")
        if method:
            spelled, _, called = name.rpartition(".")
            return called == method and bool(spelled) and self._is_definition(file, spelled, importer, owner)
        first, _, rest = name.partition(".")
        imported = self._files[file].exports.imports.get(first)
        imported = imported.member(rest) if imported is not None and rest else imported
        target = self.target(file, imported) if imported is not None else None
        if target is None or target.file != importer or target.definition is None:
            return False
        return target.definition is self._files[importer].exports.definitions.get(definition)

    def _package_root(self, file: str) -> str:
        """The directory above the outermost package around ``file`` (its own directory for
        a script), as far as the index holds the packages' ``__init__.py``."""
        directory = PurePosixPath(file).parent
        while (directory / "__init__.py").as_posix() in self._files and directory.parent != directory:
            directory = directory.parent
        return directory.as_posix().rstrip("/")

    def _imported_fact(self, file: str, flag: str) -> Answer | None:
        """``yes`` (with the first place) if a project module ``file`` imports, directly or
        through others, has the flag; ``no`` if none has; None if one could not be read."""
        seen = {file}
        pending = [file]
        complete = True
        while pending:
            current = pending.pop(0)
            indexed = self._files.get(current)
            if indexed is None:
                self.missing.add(current)
                complete = False
                continue
            fact = indexed.exports.facts.get(flag) if current != file else None
            if current != file and fact is None:
                complete = False
            elif fact is not None and fact.value == YES:
                return Answer(YES, *self._place(current, fact))
            for module in self._imported_files(current, indexed.exports.modules):
                if module not in seen:
                    seen.add(module)
                    pending.append(module)
        return Answer(NO, "") if complete else None

    def _imported_files(self, file: str, modules: Iterable[Symbol]) -> Iterable[str]:
        for symbol in modules:
            found = self._locate(file, symbol.module or "", symbol.level)
            if found is not None:
                yield found
            if symbol.name:  # `from pkg import submodule`
                submodule = self._locate(file, _joined(symbol.module or "", symbol.name), symbol.level)
                if submodule is not None:
                    yield submodule

    def _summary_fact(self, target: _Target, kind: str, detail: str, call: CallShape | None) -> Answer | None:
        assert target.definition is not None
        summary = target.definition.summary
        if target.definition.kind != "function":
            return None
        if summary is None:
            return Answer(NONE, "")
        try:
            summary = _case_of_call(summary, call)
            if kind == DOES:
                return self._does(target.file, summary, detail)
            mapping = _bind(summary["parameters"], call) if call is not None else None
            if mapping is None:
                return None  # which argument reaches which parameter is unknown
            if kind == EFFECT:
                action, _, wanted = detail.partition(":")
                return self._effect(target.file, summary, action, wanted, mapping)
            return self._leaves_eval(target.file, summary, detail, mapping)
        except (KeyError, TypeError, ValueError):
            return None  # a summary of another shape (a stale cache entry): no answer

    def _site(self, file: str, site: Mapping[str, Any] | None) -> tuple[str, RelatedPlace | None]:
        if not site:
            return "", None
        where = f"`{site['code']}` in `{site['function']}()`"
        line = site.get("line")
        return self._place(file, Fact("", line, where)) if line is not None else (where, None)

    def _does(self, file: str, summary: Mapping[str, Any], actions: str) -> Answer:
        """The strongest certainty with which the function does one of ``actions`` (comma-separated)."""
        wanted = actions.split(",")
        effects = [effect for effect in summary["effects"] if effect["action"] in wanted]
        return _strongest(effects, lambda effect: self._site(file, effect["site"]))

    def _effect(self, file: str, summary: Mapping[str, Any], action: str, wanted: str, mapping: Mapping[str, str | None]) -> Answer:
        parameters = {parameter["name"] for parameter in summary["parameters"]}
        effects = [
            effect
            for effect in summary["effects"]
            if effect["action"] == action and _translate(effect["target"], parameters, mapping) == wanted
        ]
        return _strongest(effects, lambda effect: self._site(file, effect["site"]))

    def _leaves_eval(self, file: str, summary: Mapping[str, Any], wanted: str, mapping: Mapping[str, str | None]) -> Answer:
        parameters = {parameter["name"] for parameter in summary["parameters"]}
        for mode in summary["exit_modes"]:
            if _translate(mode["target"], parameters, mapping) != wanted:
                continue
            modes = list(mode["modes"])
            certainty = MUST if modes == [_EVAL] else MAY if _EVAL in modes else NONE
            return Answer(certainty, *self._site(file, mode.get("eval_site")))
        return Answer(NONE, "")


def _strongest(effects: list[Mapping[str, Any]], place: Callable[[Mapping[str, Any]], tuple[str, RelatedPlace | None]]) -> Answer:
    for certainty in (MUST, MAY):
        for effect in effects:
            if effect["certainty"] == certainty:
                return Answer(certainty, *place(effect))
    return Answer(NONE, "")


def _passed_for(calls: Any, parameter: str, position: int, file: str) -> list[tuple[str, Any] | None]:
    """For each recorded call, what it passes for the parameter by position or by keyword (see
    PASSED), with the file that spells it; None for a call that passes something else."""
    found: list[tuple[str, Any] | None] = []
    for positional, keywords in calls:
        passed = positional[position] if 0 <= position < len(positional) else keywords.get(parameter)
        found.append((file, passed) if passed is not None else None)
    return found


def _passed_fact(passed: Any) -> tuple[Symbol, str]:
    """The class whose output a passed value is, and the fact that says what that output holds."""
    if isinstance(passed, dict):
        element = passed.get("element")
        return Symbol.from_list(passed["output"]), INSTANCE_OUTPUT if element is None else f"{INSTANCE_OUTPUT}.{element}"
    return Symbol.from_list(passed), INSTANCE_OUTPUT


def _satisfies(expected: str, actual: str) -> bool:
    if expected in _CERTAINTIES and actual in _CERTAINTIES:
        if expected == MAY:
            return actual in (MAY, MUST)
        return actual == expected
    return actual == expected or (expected == TENSOR and actual == GRAPH) or (expected in (TENSOR, GRAPH) and actual == BACKPROPAGATED)


def _bind(parameters: list[Mapping[str, Any]], call: CallShape) -> dict[str, str | None] | None:
    """The caller's spelling of the argument each parameter receives; None when the call
    hides the mapping or would not bind."""
    if call.opaque:
        return None
    positional = [p["name"] for p in parameters if p["kind"] in ("positional-only", "positional")]
    by_keyword = {p["name"] for p in parameters if p["kind"] in ("positional", "keyword-only")}
    takes_extra_positional = any(p["kind"] == "*args" for p in parameters)
    takes_extra_keywords = any(p["kind"] == "**kwargs" for p in parameters)
    if len(call.positional) > len(positional) and not takes_extra_positional:
        return None
    mapping: dict[str, str | None] = dict(zip(positional, call.positional))
    for name, spelled in call.keywords:
        if name in mapping or (name not in by_keyword and not takes_extra_keywords):
            return None
        mapping[name] = spelled
    required = [p["name"] for p in parameters if p["kind"] not in ("*args", "**kwargs") and not p["has_default"]]
    if any(name not in mapping for name in required):
        return None
    return mapping


def _case_of_call(summary: Mapping[str, Any], call: CallShape | None) -> Mapping[str, Any]:
    """``summary`` with the effects left when the call passes literals its tests compare
    (``iterate(..., mode="test")`` never runs what ``if mode == "train":`` guards): the
    effects every matching case of the summary keeps."""
    cases, compared = summary.get("cases"), summary.get("compared", {})
    literals = _bound_literals(summary["parameters"], call) if cases and call is not None else {}
    matched = []
    for parameter, value in literals.items():
        case = literal_case(value, compared[parameter]) if parameter in compared else NOT_A_LITERAL
        for stored in cases if case is not NOT_A_LITERAL else ():
            if stored["parameter"] == parameter and (stored["other"] if case is OTHER_LITERAL else not stored["other"] and same_literal(stored["value"], case)):
                matched.append(stored["effects"])
    if not matched:
        return summary
    # each case fixes one parameter; with several fixed, an effect happens only if every case keeps it
    keys = [{(effect["action"], effect["target"]) for effect in effects} for effects in matched]
    return {**summary, "effects": [effect for effect in matched[0] if all((effect["action"], effect["target"]) in other for other in keys[1:])]}


def _bound_literals(parameters: list[Mapping[str, Any]], call: CallShape) -> dict[str, object]:
    """The parameter each literal argument of ``call`` binds."""
    positional = [p["name"] for p in parameters if p["kind"] in ("positional-only", "positional")]
    found = {}
    for key, value in call.literals:
        name = positional[key] if isinstance(key, int) and key < len(positional) else key if isinstance(key, str) else None
        if name is not None:
            found[name] = value
    return found


def _translate(target: str, parameters: set[str], mapping: Mapping[str, str | None]) -> str | None:
    """The caller's spelling of a callee's effect target (``model`` for the callee's ``net``
    in ``evaluate(model)``); None when the caller cannot name it."""
    root, dot, rest = target.partition(".")
    if target == _ANONYMOUS or root not in parameters:
        return None
    spelled = mapping.get(root)
    return f"{spelled}{dot}{rest}" if spelled is not None else None


# ----------------------------------------------------------------------------- one file


def settle_locally(filename: str, exports: ExportSummary | None, findings: Iterable[DeferredFinding]) -> tuple[list[Diagnostic], list[DeferredFinding]]:
    """Decide the findings whose conditions are all about ``filename`` itself (a class
    defined further down the same file, the file's own flags, what it imports when it
    imports only the standard library and torch); a finding that one such condition
    already rules out is dropped; the others wait for the project."""
    files = {filename: IndexedFile(filename, exports)} if exports is not None else {}
    index = ProjectIndex(files, lambda importer, module, level: None)
    self_contained = exports is not None and _imports_no_project_module(exports)
    standing: list[Diagnostic] = []
    waiting: list[DeferredFinding] = []
    for finding in findings:
        decidable = [c for c in finding.conditions if is_local_condition(c) or (self_contained and _about_the_file(c))]
        if len(decidable) == len(finding.conditions):
            if (diagnostic := index.resolve(filename, finding)) is not None:
                standing.append(diagnostic)
        elif not any(_ruled_out(index, filename, condition) for condition in decidable):
            waiting.append(finding)
    return standing, waiting


def _about_the_file(condition: Condition) -> bool:
    """A condition on the file's own names; a fact of the whole project (``project:...``)
    needs the other files even when this one imports none of them."""
    return condition.symbol.is_local and not condition.fact.startswith(_PROJECT_WIDE)


def _ruled_out(index: ProjectIndex, filename: str, condition: Condition) -> bool:
    answer = index.answer(filename, condition)
    return answer is not None and not _satisfies(condition.value, answer.value)


def _imports_no_project_module(exports: ExportSummary) -> bool:
    return all(
        symbol.level == 0 and (symbol.module or "").split(".", 1)[0] in _NEVER_PROJECT_MODULES for symbol in exports.modules
    )


def text_facts(text: str) -> dict[str, Fact]:
    """Module-level flags the text alone decides: whether ``set_epoch`` appears anywhere
    (called on a sampler, a loader, through a helper, or named in a callback), and whether
    ``GradScaler`` does (GRAD_SCALER)."""
    offset = text.find(SET_EPOCH)
    facts = {SET_EPOCH: Fact(NO, 0, "") if offset < 0 else Fact(YES, text.count("\n", 0, offset) + 1, f"`{SET_EPOCH}`")}
    scaler = text.find(GRAD_SCALER_TEXT)
    facts[GRAD_SCALER] = Fact(NO, 0, "") if scaler < 0 else Fact(YES, text.count("\n", 0, scaler) + 1, f"`{GRAD_SCALER_TEXT}`")
    grad_off = _GRAD_OFF_TEXT.search(text)
    facts[GRAD_OFF] = Fact(NONE, 0, "") if grad_off is None else Fact(YES, text.count("\n", 0, grad_off.start()) + 1, f"`{grad_off.group()}`")
    backward = _BACKWARD_TEXT.search(text)
    if backward is not None and idioms.EPOCH_SETTING_PATTERN.search(text) is None:
        facts[TRAINS] = Fact(YES, text.count("\n", 0, backward.start()) + 1, "a `.backward()` call")
    compiled = _COMPILE_TEXT.search(text)
    if compiled is not None:
        facts[COMPILES] = Fact(YES, text.count("\n", 0, compiled.start()) + 1, "a `torch.compile`")
    return facts


def imports_summary(text: str, star_imports: Sequence[StarImport] = ()) -> ExportSummary | None:
    """The export summary of a file that no enabled rule needs to parse (a package's
    ``__init__.py`` that only re-exports): its top-level imports (with what its star imports
    of project modules bind), read with Python's own parser, which is many times cheaper
    than libcst's. Definitions stay unknown."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    imports = {name: Symbol(module, imported, level) for star in star_imports for name, module, imported, level in star.symbols()}
    stars: list[Symbol] = []
    modules: dict[Symbol, None] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                modules.setdefault(Symbol(alias.name, ""))
                local = alias.asname or alias.name.split(".", 1)[0]
                imports[local] = Symbol(alias.name if alias.asname else local, "")
        elif isinstance(statement, ast.ImportFrom):
            module = statement.module or ""
            for alias in statement.names:
                if alias.name == "*":
                    stars.append(Symbol(module, "", statement.level))
                    continue
                symbol = Symbol(module, alias.name, statement.level)
                modules.setdefault(symbol)
                imports[alias.asname or alias.name] = symbol
    facts = text_facts(text)
    definitions = _classes_without_parsing(tree, imports)
    autocast = _autocast_without_parsing(text, tree)
    if autocast is not None:
        facts[AUTOCAST] = autocast
    settings = _number_settings_without_parsing(text, tree)
    if settings is not None:
        facts[NUMBER_SETTINGS] = settings
    return ExportSummary(definitions=definitions, imports=imports, modules=tuple(modules), facts=facts, stars=tuple(stars))


def _classes_without_parsing(tree: ast.Module, imports: Mapping[str, Symbol]) -> dict[str, Definition]:
    """The top-level classes of a file libcst does not parse, each with its
    :data:`TORCH_MODULE` fact read from its bases, so the class hierarchy of the project is
    known through files no rule reads."""
    classes = {statement.name for statement in tree.body if isinstance(statement, ast.ClassDef)}
    definitions = {}
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            bases = [_ast_symbol(base, imports, classes) for base in statement.bases]
            known = [base for base in bases if base is not None]
            if any(_is_torch_module_symbol(base) for base in known):
                value = YES
            else:
                value = torch_module_via(known) or NO
            fact = Fact(value, statement.lineno, f"`{statement.name}`")
            definitions[statement.name] = Definition("class", statement.lineno, {TORCH_MODULE: fact})
    return definitions


def _ast_symbol(expression: ast.expr, imports: Mapping[str, Symbol], classes: set[str]) -> Symbol | None:
    """``nn.Module`` after ``from torch import nn`` as ``Symbol("torch", "nn.Module")``; a
    class of the same file as a local symbol; None for anything else."""
    parts: list[str] = []
    while isinstance(expression, ast.Attribute):
        parts.insert(0, expression.attr)
        expression = expression.value
    if not isinstance(expression, ast.Name):
        return None
    imported = imports.get(expression.id)
    if imported is not None:
        return imported.member(".".join(parts)) if parts else imported
    return Symbol(None, expression.id) if not parts and expression.id in classes else None


def _is_torch_module_symbol(symbol: Symbol) -> bool:
    qualified = _joined(symbol.module or "", symbol.name)
    return symbol.level == 0 and torch_api.is_module_class_name(qualified)


def _number_settings_without_parsing(text: str, tree: ast.Module) -> Fact | None:
    """The NUMBER_SETTINGS of a file libcst does not parse (a configuration module that
    mentions no torch), read from Python's tree when the text has a dotted assignment."""
    if _DOTTED_ASSIGNMENT.search(text) is None:
        return None
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_ast_number(node.value):
            for target in node.targets:
                path = _ast_setting_path(target)
                if path is not None:
                    found.setdefault(path, node.lineno)
    if not found:
        return None
    return Fact(",".join(sorted(found)), min(found.values()), "a configuration default")


def _is_ast_number(node: ast.expr) -> bool:
    while isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _ast_setting_path(target: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(target, ast.Attribute):
        parts.append(target.attr)
        target = target.value
    return ".".join(reversed(parts)) if isinstance(target, ast.Name) and len(parts) > 1 else None


def _autocast_without_parsing(text: str, tree: ast.Module) -> Fact | None:
    """The autocast flag of a file libcst does not parse: ``yes`` at the import of a
    mixed-precision framework, ``no`` when nothing in it is spelled like autocast or FSDP's
    ``MixedPrecision``, unknown (None) otherwise."""
    frameworks = {name.split(".", 1)[0] for name in MIXED_PRECISION_FRAMEWORKS}
    statements = ast.walk(tree) if any(name in text for name in frameworks) else ()
    for statement in statements:
        if isinstance(statement, ast.Import):
            names = [alias.name for alias in statement.names]
        elif isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module:
            names = [statement.module, *(f"{statement.module}.{alias.name}" for alias in statement.names)]
        else:
            continue
        framework = next((name for name in names if is_mixed_precision_framework(name)), None)
        if framework is not None:
            return Fact(YES, statement.lineno, f"`{ast.get_source_segment(text, statement) or framework}`")
    if "autocast" in text.lower() or "MixedPrecision" in text:
        return None
    return Fact(NO, 0, "")
