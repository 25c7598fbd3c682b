from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext, Loop
from torchcheck.lint.dataloaders import (
    DISTRIBUTED_SAMPLER_POSITIONAL,
    DISTRIBUTED_SAMPLERS,
    ScopedRule,
    call_arguments,
    dataloader_arguments,
    is_constant,
    is_dataloader_call,
    scope_assignments,
)
from torchcheck.lint.nodes import dotted_name
from torchcheck.lint.project import MAY, NO, PLACE, Condition, Symbol
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.lint.walker import children

# What a sampler or a loader is bound to: ("name", "train_sampler") or ("self", "train_loader").
_Key = tuple[str, str]
_HANDED_TO_HELPER = (
    "`DistributedSampler` never gets `set_epoch(epoch)`: its loader goes to a training helper every epoch "
    "({place}) and neither file calls `set_epoch`, so every epoch sees the same shuffle"
)
_TRAINING_ACTIONS = "backward,step"


@dataclass(frozen=True)
class _Handed:
    """The loader passed to a function of the project (``train_one_epoch(model, loader)``)."""

    call: cst.Call
    helper: Symbol  # a top-level function of this file, or an import
    loops: tuple[Loop, ...]  # loops around the call


@dataclass
class _Loops:
    """Where a loader goes: the loops iterating it (each with its outer loops), the helpers
    it is handed to, its names, and the class owning it."""

    loops: list[tuple[cst.For, tuple[Loop, ...]]]
    handed: list[_Handed]
    names: tuple[str, ...]
    owner: cst.ClassDef | None
_FRAMES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_Wanted = Callable[[cst.CSTNode, "cst.CSTNode | None"], bool]  # (node, its parent) -> keep it?
# Calls that iterate their first argument lazily: `for b in tqdm(loader)` iterates the loader.
_ITERATION_WRAPPERS = frozenset({"enumerate", "tqdm", "iter", "zip"})
# Outer loops that repeat a whole pass over the data.
_COUNTING_LOOPS = frozenset({"range", "trange", "count"})
# Calls in a loop over the loader that show it is a training loop.
_TRAINING_METHODS = frozenset({"backward", "step"})
_SET_EPOCH = "set_epoch"


@dataclass(frozen=True)
class _Sampler:
    """A shuffling ``DistributedSampler(...)`` and where it lives."""

    call: cst.Call
    key: _Key | None  # None: built inline as a DataLoader argument
    frame: cst.CSTNode  # the module or function it is built in
    owner: cst.ClassDef | None  # the class whose method builds it
    loops: frozenset[Loop]  # loops around the construction
    loader: cst.Call | None = None  # the DataLoader it is built inside, when inline


@dataclass(frozen=True)
class _Place:
    """One node found by a walk, with its ancestors, its loops and its frame."""

    node: cst.CSTNode
    parents: tuple[cst.CSTNode, ...]  # outermost first; parents[-1] is the parent
    loops: tuple[Loop, ...]  # loops around it within its frame, outermost first
    frame: cst.CSTNode  # the innermost module, function, lambda or class around it


def _walk(root: cst.CSTNode, wanted: _Wanted, skip: Callable[[cst.CSTNode], bool]) -> Iterator[_Place]:
    """Every node under ``root`` that ``wanted(node, parent)`` accepts, in source order;
    subtrees that ``skip`` accepts are not entered. (Iterative: a recursive closure would
    hold the tree in a reference cycle until the collector runs.)"""
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...], tuple[Loop, ...], cst.CSTNode]] = [(root, (), (), root)]
    while stack:
        node, parents, loops, frame = stack.pop()
        parent = parents[-1] if parents else None
        if wanted(node, parent):
            yield _Place(node, parents, loops, frame)
        if node is not root and skip(node):
            continue
        if isinstance(node, _FRAMES):
            frame, loops = node, ()
        inner = (*parents, node)
        for child in reversed(children(node)):
            stack.append((child, inner, (*loops, node) if _in_loop_body(node, child) else loops, frame))


def _in_loop_body(node: cst.CSTNode, child: cst.CSTNode) -> bool:
    """Whether ``child`` of ``node`` runs once per iteration of ``node`` (a loop)."""
    if isinstance(node, cst.For):
        return child is node.body  # the iterable is evaluated once, before the loop
    return isinstance(node, cst.While) and child is not node.orelse


def _occurs(key: _Key) -> Callable[[cst.CSTNode, cst.CSTNode | None], bool]:
    """Whether a node is a reference to ``key`` (a variable, or ``self.<attribute>``)."""
    kind, name = key
    if kind == "self":
        return lambda node, parent: (
            isinstance(node, cst.Attribute)
            and node.attr.value == name
            and isinstance(node.value, cst.Name)
            and node.value.value == "self"
        )

    def is_variable(node: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
        if not isinstance(node, cst.Name) or node.value != name:
            return False
        if isinstance(parent, cst.Attribute) and node is parent.attr:
            return False
        return not (isinstance(parent, cst.Arg) and node is parent.keyword)

    return is_variable


def _is_bare_self(node: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
    """``self`` used as a value (``hook(self)``, ``return self``): code elsewhere can reach
    every attribute through it."""
    if not isinstance(node, cst.Name) or node.value != "self":
        return False
    if isinstance(parent, (cst.Attribute, cst.Param)):
        return False
    return not (isinstance(parent, cst.Arg) and node is parent.keyword)


def _wrapper_name(call: cst.CSTNode) -> str | None:
    if isinstance(call, cst.Call):
        name = dotted_name(call.func)
        if name is not None:
            return name.rsplit(".", 1)[-1]
    return None


def _is_wrapper_argument(argument: cst.CSTNode, call: cst.CSTNode) -> bool:
    """``argument`` is an argument of ``enumerate(...)``, ``tqdm(...)`` ..."""
    return isinstance(argument, cst.Arg) and _wrapper_name(call) in _ITERATION_WRAPPERS


def _iterating_loop(node: cst.CSTNode, parents: tuple[cst.CSTNode, ...]) -> cst.For | None:
    """The ``for`` loop that iterates ``node`` directly or through ``enumerate``/``tqdm``."""
    child, index = node, len(parents) - 1
    while index >= 1 and _is_wrapper_argument(parents[index], parents[index - 1]):
        if parents[index].keyword is not None:  # type: ignore[attr-defined]
            return None
        child, index = parents[index - 1], index - 2
    parent = parents[index] if index >= 0 else None
    if isinstance(parent, cst.For) and child is parent.iter:
        return parent
    return None


def _in_condition(node: cst.CSTNode, parents: tuple[cst.CSTNode, ...]) -> bool:
    """Used only as a truth value or in a comparison: ``if sampler is None``, ``not loader``."""
    child, index = node, len(parents) - 1
    while index >= 0 and isinstance(parents[index], cst.BooleanOperation):
        child, index = parents[index], index - 1
    parent = parents[index] if index >= 0 else None
    if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
        return True
    if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
        return True
    return isinstance(parent, (cst.If, cst.While, cst.IfExp)) and child is parent.test


def _is_epoch_loop(loop: Loop, iterable: cst.BaseExpression | None = None) -> bool:
    """``while ...``, ``for epoch in ...``, ``for _ in range(n)`` (possibly in ``tqdm``);
    ``iterable`` is what the loop iterates when known better than its spelling."""
    if isinstance(loop, cst.While):
        return True
    target = dotted_name(loop.target) or ""
    if "epoch" in target.lower():
        return True
    iterable = iterable if iterable is not None else loop.iter
    while _wrapper_name(iterable) in _ITERATION_WRAPPERS and iterable.args:  # type: ignore[attr-defined]
        iterable = iterable.args[0].value  # type: ignore[attr-defined]
    return _wrapper_name(iterable) in _COUNTING_LOOPS


def _method_calls(root: cst.CSTNode, skip: cst.CSTNode | None = None) -> Iterator[cst.Call]:
    """Calls under ``root``, not inside nested functions or classes (nor under ``skip``)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node is skip or (node is not root and isinstance(node, _FRAMES)):
            continue
        if isinstance(node, cst.Call):
            yield node
        stack.extend(children(node))


class SamplerEpochNotSet(ScopedRule):
    """
    ## What it does
    Checks for a shuffling `DistributedSampler` whose loader is iterated in an epoch loop,
    in a module that never calls `sampler.set_epoch(epoch)`.

    ## Why is this bad?
    `DistributedSampler` shuffles with a generator seeded by `seed + epoch`, and its epoch
    only changes when `set_epoch` is called. Without the call every epoch uses the same
    permutation: each rank sees the same samples in the same order every epoch, which
    defeats shuffling and usually costs accuracy. Call `sampler.set_epoch(epoch)` at the
    start of every epoch, before iterating the loader.

    The rule only reports when it can see the whole story: the sampler and its loader are
    not returned or stored elsewhere, the loader is iterated in a training loop nested in an
    outer loop - or, inside the epoch loop, handed to a training helper of the project (a
    function that calls `backward()` or `step()`, in the same file or imported from
    another) - and `set_epoch` appears nowhere in the module, nor in the helper's.
    Samplers built with `shuffle=False` are never reported.

    ## Example
    ```python
    from torch.utils.data import DataLoader, DistributedSampler

    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
    ```

    Use instead:
    ```python
    from torch.utils.data import DataLoader, DistributedSampler

    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
    ```

    ## Fix safety
    There is no automatic fix: the epoch counter to pass (and where an epoch starts when
    training resumes from a checkpoint) is the training loop's business.

    ## References
    - [`torch.utils.data.distributed.DistributedSampler`](https://pytorch.org/docs/stable/data.html#torch.utils.data.distributed.DistributedSampler)
    - [PyTorch examples: ImageNet training calls `set_epoch`](https://github.com/pytorch/examples/blob/main/imagenet/main.py)
    """

    code = "TCK206"
    name = "sampler-epoch-not-set"
    message = "`DistributedSampler` never gets `set_epoch(epoch)`; every epoch sees the same shuffle"
    required_text = ("DistributedSampler",)

    VALID = (
        Valid(
            """
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

sampler = DistributedSampler(dataset)
loader = DataLoader(dataset, batch_size=64, sampler=sampler)
for epoch in range(epochs):
    sampler.set_epoch(epoch)
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
"""
        ),
        Valid(
            """
import torch

def main(args):
    train_sampler = torch.utils.data.distributed.DistributedSampler(dataset) if args.distributed else None
    train_loader = torch.utils.data.DataLoader(
        dataset, batch_size=64, shuffle=(train_sampler is None), sampler=train_sampler
    )
    for epoch in range(args.start_epoch, args.epochs):
        if args.distributed:
            train_loader.sampler.set_epoch(epoch)
        for images, target in train_loader:
            loss = criterion(model(images), target)
            loss.backward()
"""
        ),
        Valid(
            """
import torch
from torch.utils.data import DataLoader, DistributedSampler

def create_loader(dataset, batch_size):
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)

def train(model, loader, epochs):
    for epoch in range(epochs):
        train_one_epoch(model, loader, epoch)
"""
        ),
        Valid(
            """
import torch
from torch.utils.data import DataLoader, DistributedSampler

sampler = DistributedSampler(dataset)
loader = DataLoader(dataset, batch_size=64, sampler=sampler)
for epoch in range(epochs):
    train_one_epoch(model, loader, optimizer, epoch)
"""
        ),
        Valid(
            """
from torch.utils.data import DataLoader, DistributedSampler

val_sampler = DistributedSampler(val_set, shuffle=False)
val_loader = DataLoader(val_set, batch_size=64, sampler=val_sampler)
for epoch in range(epochs):
    for x, y in val_loader:
        loss = model(x).sum()
        loss.backward()
"""
        ),
        Valid(
            """
from torch.utils.data import DataLoader, DistributedSampler

sampler = DistributedSampler(dataset)
loader = DataLoader(dataset, batch_size=64, sampler=sampler)
hooks.register(sampler)
for epoch in range(epochs):
    for x, y in loader:
        model(x).sum().backward()
"""
        ),
        Valid(
            """
from torch.utils.data import DataLoader, DistributedSampler

class Trainer(BaseTrainer):
    def __init__(self, dataset):
        self.sampler = DistributedSampler(dataset)
        self.loader = DataLoader(dataset, batch_size=64, sampler=self.sampler)

    def fit(self, epochs):
        for epoch in range(epochs):
            self.on_epoch_start(epoch)  # inherited hook: may call set_epoch
            for batch in self.loader:
                self.model(batch).sum().backward()
"""
        ),
        Valid(
            """
import torch
from torch.utils.data import DataLoader, DistributedSampler

def evaluate(model, loader):
    with torch.no_grad():
        return sum(model(x).sum().item() for x in loader)

sampler = DistributedSampler(dataset)
loader = DataLoader(dataset, batch_size=64, sampler=sampler)
for epoch in range(epochs):
    print(epoch, evaluate(model, loader))
"""
        ),
        Valid(
            """
from torch.utils.data import DataLoader, DistributedSampler

for fold in folds:
    sampler = DistributedSampler(fold)
    loader = DataLoader(fold, sampler=sampler)
    for batch in loader:
        model(batch).sum().backward()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch.utils.data import DataLoader, DistributedSampler

def train_one_epoch(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()

def main(dataset, model, optimizer, epochs):
    sampler = DistributedSampler(dataset)  # TCK206
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    for epoch in range(epochs):
        train_one_epoch(model, loader, optimizer)
"""
        ),
        Invalid(
            """
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

sampler = DistributedSampler(dataset)  # TCK206
loader = DataLoader(dataset, batch_size=64, sampler=sampler)
for epoch in range(epochs):
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
"""
        ),
        Invalid(
            """
import torch

def main(args):
    train_sampler = None
    if args.distributed:
        train_sampler = torch.utils.data.DistributedSampler(train_set)  # TCK206
    train_loader = torch.utils.data.DataLoader(
        train_set, batch_size=args.batch_size, shuffle=(train_sampler is None), sampler=train_sampler
    )
    for epoch in range(args.epochs):
        for i, (images, target) in enumerate(train_loader):
            loss = criterion(model(images), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""
        ),
        Invalid(
            """
import torch.utils.data as tud

class Trainer:
    def __init__(self, dataset):
        self.train_sampler = tud.DistributedSampler(dataset, seed=0)  # TCK206
        self.train_loader = tud.DataLoader(dataset, batch_size=32, sampler=self.train_sampler)

    def fit(self, epochs):
        for epoch in range(epochs):
            for batch in self.train_loader:
                self.step(batch)

    def step(self, batch):
        self.model(batch).sum().backward()
"""
        ),
        Invalid(
            """
from torch.utils.data import DataLoader, DistributedSampler

loader = DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset))  # TCK206
step = 0
while step < max_steps:
    for batch in loader:
        model(batch).sum().backward()
        step += 1
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._samplers: list[_Sampler] = []
        self._keys: dict[cst.Call, _Key] = {}  # sampler constructions bound by an assignment
        self._inline: dict[cst.Call, cst.Call] = {}  # sampler construction -> its DataLoader
        self._dataloaders: set[cst.Call] = set()
        self._module: cst.Module | None = None
        self._mentions_set_epoch = False

    # ------------------------------------------------------------ facts on the way down
    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        self._module = node

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        key = _key_of(node.targets[0].target)
        values = [node.value.body, node.value.orelse] if isinstance(node.value, cst.IfExp) else [node.value]
        for value in values:
            if key is not None and isinstance(value, cst.Call):
                self._keys[value] = key

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == _SET_EPOCH:
            self._mentions_set_epoch = True

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if _SET_EPOCH in node.value:
            self._mentions_set_epoch = True

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        if _SET_EPOCH in node.value:
            self._mentions_set_epoch = True

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.call_name(node)
        if qualified in DISTRIBUTED_SAMPLERS:
            if _shuffles(node):
                self._remember_sampler(node)
        elif is_dataloader_call(self.context, node):
            self._dataloaders.add(node)
            sampler = dataloader_arguments(node).get("sampler")
            if isinstance(sampler, cst.Call):
                self._inline[sampler] = node

    def _remember_sampler(self, call: cst.Call) -> None:
        key = self._keys.get(call)
        loader = self._inline.get(call)
        if key is None and loader is None:
            return
        frame = self.current_scope
        owner = None
        if key is not None and key[0] == "self":
            owner = self.context.current_class
            if owner is None or not isinstance(frame, cst.FunctionDef):
                return
        self._samplers.append(_Sampler(call, key, frame, owner, frozenset(self.context.loops), loader))

    # ------------------------------------------------------------ decision at the end
    def leave_Module(self, node: cst.Module) -> None:
        if self._mentions_set_epoch:
            return  # set_epoch is called somewhere (on the sampler, the loader, a helper ...)
        for sampler in self._samplers:
            verdict = self._epoch_loop_without_set_epoch(sampler)
            if verdict is None:
                continue
            message, conditions = verdict
            self.report(sampler.call, message, conditions=conditions)

    def _epoch_loop_without_set_epoch(self, sampler: _Sampler) -> tuple[str | None, tuple[Condition, ...]] | None:
        """None when the sampler is fine (or the story is not all visible); else the message
        and the conditions on other files under which it is not."""
        if sampler.key is None:
            loaders = [sampler.loader] if sampler.loader is not None else []
            names: tuple[str, ...] = ()
        else:
            uses = self._uses(sampler.key, sampler.frame, sampler.owner)
            if uses is None:
                return None
            loaders = [self._loader_of(place) for place in uses]
            if None in loaders:
                return None  # the sampler escapes: passed on, returned, stored ...
            names = (sampler.key[1],)
        for loader in loaders:
            if loader is None:
                continue
            verdict = self._iterated_in_epoch_loop(loader, sampler, names)
            if verdict is not None:
                return verdict
        return None

    def _uses(self, key: _Key, frame: cst.CSTNode, owner: cst.ClassDef | None) -> list[_Place] | None:
        """The places that use ``key`` other than to bind or test it; None when a use cannot
        be followed (in a nested function, through ``self`` passed on, ...)."""
        region, home = self._region(key, frame, owner)
        occurs = _occurs(key)
        if key[0] == "self":

            def wanted(node: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
                return occurs(node, parent) or _is_bare_self(node, parent)

        else:
            wanted = occurs
        places = []
        for place in _walk(region, wanted, self._skipper(key, home)):
            if isinstance(place.node, cst.Name) and key[0] == "self":
                if len(place.parents) >= 2 and _wrapper_name(place.parents[-2]) == "super":
                    continue  # super(Trainer, self)
                return None
            if place.frame not in home:
                return None
            if not (_binds(place) or _in_condition(place.node, place.parents) or _is_harmless(place)):
                places.append(place)
        return places

    def _region(
        self, key: _Key, frame: cst.CSTNode, owner: cst.ClassDef | None
    ) -> tuple[cst.CSTNode, set[cst.CSTNode]]:
        """Where ``key`` can be used, and the frames in which it names the same object."""
        if key[0] == "self" and owner is not None:
            methods = {statement for statement in owner.body.body if isinstance(statement, cst.FunctionDef)}
            return owner, methods  # type: ignore[return-value]
        home: set[cst.CSTNode] = {frame}
        if isinstance(frame, cst.Module):  # module-level names are globals of its functions
            functions = _walk(
                frame, lambda node, parent: isinstance(node, cst.FunctionDef), lambda node: isinstance(node, _FRAMES)
            )
            for place in functions:
                if place.frame is frame and not scope_assignments(place.node).binds(key[1]):
                    home.add(place.node)
        return frame, home

    def _skipper(self, key: _Key, home: set[cst.CSTNode]) -> Callable[[cst.CSTNode], bool]:
        """Nested frames in which ``key`` names something else."""
        if key[0] == "self":
            return lambda node: isinstance(node, cst.ClassDef)
        return lambda node: (
            isinstance(node, (cst.FunctionDef, cst.Lambda))
            and node not in home
            and self.assignments(node).binds(key[1])
        )

    def _loader_of(self, place: _Place) -> cst.Call | None:
        """The DataLoader that ``place`` (a use of the sampler) is the ``sampler=`` of."""
        node, index = place.node, len(place.parents) - 1
        while index >= 0 and isinstance(place.parents[index], cst.IfExp):
            if node is place.parents[index].test:  # type: ignore[attr-defined]
                return None
            node, index = place.parents[index], index - 1
        call = place.parents[index - 1] if index >= 1 else None
        if call in self._dataloaders and dataloader_arguments(call).get("sampler") is node:  # type: ignore[arg-type]
            return call
        return None

    def _iterated_in_epoch_loop(
        self, loader: cst.Call, sampler: _Sampler, names: tuple[str, ...]
    ) -> tuple[str | None, tuple[Condition, ...]] | None:
        """Whether ``loader`` is iterated by a training loop, or handed to a training helper,
        inside an outer loop that keeps the same sampler across its iterations."""
        found = self._loader_loops(loader)
        if found is None:
            return None
        names = (*names, *found.names)
        # a helper of another file must not call set_epoch either
        imported = tuple(Condition(h.helper, "module:set_epoch", NO) for h in found.handed if not h.helper.is_local)
        for loop, outer in found.loops:
            if not (_trains(loop) or any("train" in name.lower() for name in names)):
                continue
            for epoch_loop in outer:
                if epoch_loop in sampler.loops or not self._is_epoch_loop(epoch_loop):
                    continue
                if found.owner is None or not _calls_unknown_methods(epoch_loop, loop, found.owner):
                    return None, imported
        for handed in found.handed:
            if any(loop not in sampler.loops and self._is_epoch_loop(loop) for loop in handed.loops):
                verdict = self._training_helper(handed, imported)
                if verdict is not None:
                    return verdict
        return None

    def _training_helper(self, handed: _Handed, imported: tuple[Condition, ...]) -> tuple[str | None, tuple[Condition, ...]] | None:
        """The report for a loader handed to ``handed.helper`` every epoch, if the helper trains."""
        message = _HANDED_TO_HELPER.replace("{place}", PLACE)
        if not handed.helper.is_local:
            trains = Condition(handed.helper, f"does:{_TRAINING_ACTIONS}", MAY)
            return message, (trains, *imported)
        function = self._top_level_functions.get(handed.helper.name)
        if function is None:
            return None
        summary = self.context.summary_of(function)
        site = next((effect.site for effect in summary.effects if effect.action in _TRAINING_ACTIONS.split(",")), None)
        if site is None:
            return None
        return message.replace(PLACE, site.describe(self.context.line_of)), imported

    @property
    def _top_level_functions(self) -> dict[str, cst.FunctionDef]:
        assert self._module is not None
        return {statement.name.value: statement for statement in self._module.body if isinstance(statement, cst.FunctionDef)}

    def _handed(self, use: _Place) -> _Handed | None:
        """``helper(..., loader, ...)`` where ``helper`` is a function of the project."""
        argument = use.parents[-1] if use.parents else None
        call = use.parents[-2] if len(use.parents) >= 2 else None
        if not isinstance(argument, cst.Arg) or not isinstance(call, cst.Call) or argument.value is not use.node:
            return None
        project = self.context.project
        helper = project.symbol_of(call.func) if project is not None else None
        if helper is None or (helper.is_local and helper.name not in self._top_level_functions):
            return None
        return _Handed(call, helper, use.loops)

    def _loader_loops(self, loader: cst.Call) -> _Loops | None:
        """The loops that iterate ``loader`` (each with its outer loops), the names it is
        bound to, and the class owning it when it is bound to ``self.<attribute>``."""
        assert self._module is not None
        place = next(_walk(self._module, lambda node, parent: node is loader, lambda node: False), None)
        if place is None:
            return None
        loop = _iterating_loop(loader, place.parents)
        if loop is not None:
            return _Loops([(loop, place.loops)], [], (), None)
        parent = place.parents[-1] if place.parents else None
        if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1 and parent.value is loader):
            return None
        key = _key_of(parent.targets[0].target)
        if key is None:
            return None
        owner = None
        if key[0] == "self":
            owner = _class_of(place)
            if owner is None:
                return None
        return self._follow(key, place.frame, owner, {parent}, 0)

    def _follow(
        self, key: _Key, frame: cst.CSTNode, owner: cst.ClassDef | None, assignments: set[cst.Assign], depth: int
    ) -> _Loops | None:
        """Where the loader bound to ``key`` by ``assignments`` (and nothing else) is iterated,
        following aliases such as ``progress = tqdm(loader)``; None when it escapes."""
        uses = self._uses(key, frame, owner)
        if uses is None or depth > 3:
            return None
        region, home = self._region(key, frame, owner)
        for bind in _walk(region, _occurs(key), self._skipper(key, home)):
            if _binds(bind) and bind.parents[-2] not in assignments and not self._before(bind.node, assignments):
                return None  # rebound to something else: a loop may iterate another object
        found = _Loops([], [], (key[1],), owner)
        aliases: dict[tuple[_Key, cst.CSTNode], set[cst.Assign]] = {}
        for use in uses:
            if self._before(use.node, assignments):
                continue  # reads what the name held before the loader was bound (`loader.dataset`)
            loop = _iterating_loop(use.node, use.parents)
            if loop is not None:
                found.loops.append((loop, use.loops))
                continue
            alias = _alias_assignment(use)
            if alias is None:
                handed = self._handed(use)
                if handed is None:
                    return None  # the loader escapes: passed on, returned, stored ...
                found.handed.append(handed)
                continue
            target = alias.targets[0].target
            aliases.setdefault((("name", target.value), use.frame), set()).add(alias)  # type: ignore[attr-defined]
        for (alias_key, alias_frame), alias_assignments in aliases.items():
            followed = self._follow(alias_key, alias_frame, None, alias_assignments, depth + 1)
            if followed is None:
                return None
            found.loops.extend(followed.loops)
            found.handed.extend(followed.handed)
            found.names = (*found.names, *followed.names)
        return found


    def _is_epoch_loop(self, loop: Loop) -> bool:
        """An epoch loop, also over a name bound once to a counting iterable
        (``train_iterator = trange(epochs)`` ... ``for _ in train_iterator:``)."""
        iterable = loop.iter if isinstance(loop, cst.For) else None
        if isinstance(iterable, cst.Name):
            reaching = self.context.binder.bindings_before(iterable)
            if len(reaching) == 1 and isinstance(reaching[0].node, cst.Assign):
                return _is_epoch_loop(loop, reaching[0].node.value)
        return _is_epoch_loop(loop)

    def _before(self, node: cst.CSTNode, assignments: set[cst.Assign]) -> bool:
        """``node`` runs before each of ``assignments`` and never after one: no loop holds both."""
        binder = self.context.binder
        if not all(binder.precedes(node, assignment) for assignment in assignments):
            return False
        around = set(binder.loops_around(node))
        return not any(loop in around for assignment in assignments for loop in binder.loops_around(assignment))


def _alias_assignment(use: _Place) -> cst.Assign | None:
    """``alias = loader`` or ``alias = tqdm(loader, ...)``: the assignment, else None."""
    node, index = use.node, len(use.parents) - 1
    if index >= 1 and _is_wrapper_argument(use.parents[index], use.parents[index - 1]):
        argument = use.parents[index]
        if argument.keyword is not None or argument is not use.parents[index - 1].args[0]:  # type: ignore[attr-defined]
            return None
        node, index = use.parents[index - 1], index - 2
    parent = use.parents[index] if index >= 0 else None
    if (
        isinstance(parent, cst.Assign)
        and parent.value is node
        and len(parent.targets) == 1
        and isinstance(parent.targets[0].target, cst.Name)
    ):
        return parent
    return None


def _key_of(target: cst.BaseExpression) -> _Key | None:
    if isinstance(target, cst.Name):
        return ("name", target.value)
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        return ("self", target.attr.value)
    return None


def _class_of(place: _Place) -> cst.ClassDef | None:
    """The class whose method ``place`` is directly in."""
    if isinstance(place.frame, cst.FunctionDef) and len(place.parents) >= 3:
        for index in range(len(place.parents) - 1, 0, -1):
            if place.parents[index] is place.frame:
                block, owner = place.parents[index - 1], place.parents[index - 2] if index >= 2 else None
                if isinstance(block, cst.IndentedBlock) and isinstance(owner, cst.ClassDef):
                    return owner
                return None
    return None


def _shuffles(call: cst.Call) -> bool:
    """``shuffle`` left at its default (True) or passed as a literal True."""
    arguments = call_arguments(call, DISTRIBUTED_SAMPLER_POSITIONAL)
    shuffle = arguments.get("shuffle")
    if shuffle is None:
        return arguments.is_absent("shuffle")
    return is_constant(shuffle, "True")


def _binds(place: _Place) -> bool:
    """The reference is (part of) an assignment target or another binding."""
    parent = place.parents[-1] if place.parents else None
    targets = (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor)
    if isinstance(parent, targets) and place.node is parent.target:
        return True
    if isinstance(parent, (cst.AsName, cst.Param, cst.FunctionDef, cst.ClassDef, cst.ImportAlias, cst.NameItem)):
        return True
    return isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)) and any(
        isinstance(ancestor, cst.AssignTarget) for ancestor in place.parents[-3:]
    )


def _is_harmless(place: _Place) -> bool:
    """``len(loader)`` or reading a plain attribute (``loader.dataset``, not ``.sampler``)."""
    parent = place.parents[-1] if place.parents else None
    grandparent = place.parents[-2] if len(place.parents) >= 2 else None
    if isinstance(parent, cst.Arg) and _wrapper_name(grandparent) == "len" and parent.keyword is None:
        return True
    if isinstance(parent, cst.Attribute) and place.node is parent.value:
        if parent.attr.value in ("sampler", "batch_sampler"):
            return False
        if isinstance(grandparent, cst.Call) and grandparent.func is parent:
            return False  # a method call may do anything to the object
        return not _binds(_Place(parent, place.parents[:-1], place.loops, place.frame))
    return False


def _trains(loop: cst.For) -> bool:
    """The loop body calls ``.backward()`` or ``.step()``: it trains on the batches."""
    for call in _method_calls(loop.body):
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _TRAINING_METHODS:
            return True
    return False


def _calls_unknown_methods(loop: Loop, loader_loop: cst.For, owner: cst.ClassDef) -> bool:
    """``self.hook()`` in the epoch loop (outside the loop over the batches) where ``hook``
    is neither a method of the class nor an attribute it assigns: an inherited method could
    call ``set_epoch``."""
    known = {statement.name.value for statement in owner.body.body if isinstance(statement, cst.FunctionDef)}
    for place in _walk(owner, lambda node, parent: isinstance(parent, cst.AssignTarget), lambda node: False):
        key = _key_of(place.node)  # type: ignore[arg-type]
        if key is not None and key[0] == "self":
            known.add(key[1])
    for call in _method_calls(loop, skip=loader_loop.body):
        key = _key_of(call.func)
        if key is not None and key[0] == "self" and key[1] not in known:
            return True
    return False
