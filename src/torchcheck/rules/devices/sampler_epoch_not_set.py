from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint import dataloaders, idioms, nodes, references
from torchcheck.lint.buffers import methods_of
from torchcheck.lint.context import LintContext, Loop
from torchcheck.lint.project import MAY, NO, PLACE, PROJECT, SET_EPOCH, THIS_FILE, TRAINS, YES, Condition, Symbol
from torchcheck.lint.rule import Invalid, Rule, Valid

# What a sampler or a loader is bound to: ("name", "train_sampler") or ("self", "train_loader").
_Key = tuple[str, str]
# A finding's message (None: the rule's own) and the conditions it stands on.
_Verdict = tuple[str | None, tuple[Condition, ...]]
_HANDED_TO_HELPER = (
    "`DistributedSampler` never gets `set_epoch(epoch)`: its loader goes to a training helper every epoch "
    f"({PLACE}) and neither file calls `set_epoch`, so every epoch sees the same shuffle"
)
_NO_SET_EPOCH_IN_PROJECT = (
    "`DistributedSampler` never gets `set_epoch(epoch)`: no file of the project calls `set_epoch`, and the project "
    f"trains in loops of its own ({PLACE}), so every epoch sees the same shuffle"
)
_PROJECT_TRAINS = Condition(THIS_FILE, f"{PROJECT}:{TRAINS}:{YES}", YES)
_NO_PROJECT_SET_EPOCH = Condition(THIS_FILE, f"{PROJECT}:{SET_EPOCH}:{YES}", NO)
_LOST = object()  # the sampler or its loader goes where the rule cannot follow
# What a training loop or helper does to the batches.
_TRAINING_ACTIONS = ("backward", "step")
_FRAMES = dataloaders.FRAMES


@dataclass
class _Loops:
    """Where a loader goes: the loops iterating it (each with its outer loops), the helpers
    it is handed to, its names, and the class owning it."""

    names: tuple[str, ...]
    owner: cst.ClassDef | None
    loops: list[tuple[cst.For, tuple[Loop, ...]]] = field(default_factory=list)
    handed: list[tuple[Symbol | cst.FunctionDef, tuple[Loop, ...]]] = field(default_factory=list)  # helpers, loops around the call


def _key_of(target: cst.CSTNode) -> _Key | None:
    if isinstance(target, cst.Name):
        return ("name", target.value)
    attribute = nodes.self_attribute(target)  # type: ignore[arg-type]
    return ("self", attribute) if attribute is not None else None


def _calls_unknown_methods(loop: Loop, loader_loop: cst.For, owner: cst.ClassDef) -> bool:
    """``self.hook()`` in the epoch loop (outside the loop over the batches) where ``hook``
    is neither a method of the class nor an attribute it assigns: an inherited method could
    call ``set_epoch``."""
    known = {*methods_of(owner), *(nodes.self_attribute(node.target) for node in nodes.subtree(owner) if isinstance(node, cst.AssignTarget))}
    called = {nodes.self_attribute(call.func) for call in dataloaders.calls_in(loop, skip=loader_loop.body)}
    return bool(called - known - {None})


class SamplerEpochNotSet(Rule):
    """
    ## What it does
    Checks for a shuffling `DistributedSampler` whose loader is iterated in an epoch loop,
    in a module that never calls `sampler.set_epoch(epoch)`. The loader may be iterated
    through `enumerate`, `tqdm`, or torch_xla's device loaders (`MpDeviceLoader(loader,
    device)`, `ParallelLoader(loader, devices).per_device_loader(device)`), which do not set
    the epoch either.

    ## Why is this bad?
    `DistributedSampler` shuffles with a generator seeded by `seed + epoch`, and its epoch
    only changes when `set_epoch` is called. Without the call every epoch uses the same
    permutation: each rank sees the same samples in the same order every epoch, which
    defeats shuffling and usually costs accuracy. Call `sampler.set_epoch(epoch)` at the
    start of every epoch, before iterating the loader.

    The rule only reports when it can see the whole story: the sampler and its loader are
    not returned or stored elsewhere, the loader is iterated in a training loop nested in an
    outer loop (any loop over it, when the sampler was built with `shuffle=True` written out:
    that asks for a new order every epoch) - or, inside the epoch loop, handed to a training
    helper of the project or a method of the same class (`self._train_epoch(loader)`) (a
    function that calls `backward()` or `step()`, in the same file or imported from
    another) - and `set_epoch` appears nowhere in the module, nor in the helper's.
    Samplers built with `shuffle=False` are never reported; one whose `shuffle=` comes from
    a setting (`shuffle=opt["shuffle"]`) shuffles whenever the setting is on, and is treated
    like the default. A class chosen by a conditional expression
    (`RandomSampler if single else DistributedSampler`) builds a `DistributedSampler` on one
    path, which is enough.

    When the sampler or its loader goes where the rule cannot follow it (kept in a dict,
    stored on an object that another file reads, returned by a builder, handed to a training
    function called once), it is still reported if nothing can set its epoch: no file of the
    project names `set_epoch`, the file names no framework that sets epochs for its users
    (accelerate, Lightning, the HF Trainer), and the project trains in loops of its own (a
    file calls `.backward()`). A sampler built anew in a loop that trains or draws batches (it
    may be the epoch loop), given to a function outside the
    project, or built by a function that only code that never trains calls (a validation
    loader's builder; a caller that returns the loader it built, `make_data_loader()` around
    `make_data_sampler()`, is judged by its own callers), or named or loaded as evaluation data (`test_loader`), is left alone;
    a `BatchSampler` around the sampler is still its loader's.

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
from torch.utils.data import DataLoader, DistributedSampler

def make_sampler(dataset):
    return DistributedSampler(dataset)

def make_val_loader(dataset):
    sampler = make_sampler(dataset)
    return DataLoader(dataset, batch_size=64, sampler=sampler)

def validate(model, dataset):
    with torch.no_grad():
        return [model(x) for x in make_val_loader(dataset)]
"""
        ),
        Valid(
            """
import torch
from torch.utils.data import DataLoader, DistributedSampler

def create_test_loader(dataset):
    sampler = DistributedSampler(dataset)
    test_loader = DataLoader(dataset, batch_size=64, sampler=sampler, shuffle=False)
    return test_loader

def train(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
"""
        ),
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
        Valid(
            """
import torch
from torch.utils.data import DataLoader, DistributedSampler

def make_loader(dataset):
    return DataLoader(dataset, batch_size=64, sampler=DistributedSampler(dataset))

def validate(model, dataset):
    with torch.no_grad():
        return [model(x) for x in make_loader(dataset)]

for epoch in range(epochs):
    for x in train_loader:
        model(x).sum().backward()
    validate(model, val_set)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn.functional as F
from torch.utils.data import DataLoader, DistributedSampler

class Trainer:
    def __init__(self, model, loader, optimizer):
        self.model, self.loader, self.optimizer = model, loader, optimizer
    def _step(self, x, y):
        self.optimizer.zero_grad()
        F.mse_loss(self.model(x), y).backward()
        self.optimizer.step()
    def train(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self._step(x, y)

def build_loader(dataset):
    return DataLoader(dataset, batch_size=32, sampler=DistributedSampler(dataset))  # TCK206

def worker(dataset, model, optimizer, epochs):
    Trainer(model, build_loader(dataset), optimizer).train(epochs)
"""
        ),
        Invalid(
            """
import torch
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler

def make_data_sampler(dataset, shuffle, distributed):
    if distributed:
        return DistributedSampler(dataset, shuffle=shuffle)  # TCK206
    return torch.utils.data.RandomSampler(dataset)

def make_data_loader(dataset, batch_size, is_train, distributed):
    sampler = make_data_sampler(dataset, shuffle=is_train, distributed=distributed)
    return DataLoader(dataset, batch_sampler=BatchSampler(sampler, batch_size, drop_last=False))

def train(model, dataset, optimizer, epochs):
    loader = make_data_loader(dataset, 64, True, True)
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
"""
        ),
        Invalid(
            """
import torch
from torch.utils.data.distributed import DistributedSampler
from torch_geometric.loader import DataLoader

def create_loaders(trainset, batch_size):
    sampler = DistributedSampler(trainset)  # TCK206
    return DataLoader(trainset, batch_size=batch_size, sampler=sampler)

class Trainer:
    def fit(self, module, loader):
        self.lightning_module = module
        for epoch in range(10):
            for x, y in loader:
                torch.nn.functional.mse_loss(module(x), y).backward()
"""
        ),
        Invalid(
            """
from torch.utils.data import DataLoader, DistributedSampler

def get_loaders(datasets, distributed):
    loaders = {}
    for name, dataset in datasets.items():
        params = {"dataset": dataset, "batch_size": 32}
        if distributed:
            params["sampler"] = DistributedSampler(dataset)  # TCK206
        loaders[name] = DataLoader(**params)
    return loaders

def train(model, optimizer, loaders, epochs):
    for epoch in range(epochs):
        for x, y in loaders["train"]:
            optimizer.zero_grad()
            model(x).sub(y).pow(2).mean().backward()
            optimizer.step()
"""
        ),
        Invalid(
            """
import torch
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, DistributedSampler

def train(model, dataset, optimizer, device, epochs):
    sampler = DistributedSampler(dataset, shuffle=True)  # TCK206
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    for epoch in range(epochs):
        device_loader = pl.ParallelLoader(loader, [device]).per_device_loader(device)
        for x, y in device_loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
"""
        ),
        Invalid(
            """
import torch
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler

def create_loader(dataset, batch_size):
    sampler = DistributedSampler(dataset)  # TCK206
    return DataLoader(dataset, batch_sampler=BatchSampler(sampler, batch_size, drop_last=True))

def train(model, dataset, optimizer, epochs):
    loader = create_loader(dataset, 64)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
"""
        ),
        Invalid(
            """
from torch.utils import data

def data_sampler(dataset, distributed):
    if distributed:
        return data.distributed.DistributedSampler(dataset)  # TCK206
    return data.RandomSampler(dataset)

def cycle(loader):
    while True:
        yield from loader

def train(dataset, model, optimizer, iterations, distributed):
    batches = cycle(data.DataLoader(dataset, batch_size=8, sampler=data_sampler(dataset, distributed)))
    for _ in range(iterations):
        optimizer.zero_grad()
        model(next(batches)).sum().backward()
        optimizer.step()
"""
        ),
        Invalid(
            """
from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler

def main(args, dataset, model, optimizer):
    sampler_class = RandomSampler if args.local_rank == -1 else DistributedSampler
    loader = DataLoader(dataset, sampler=sampler_class(dataset), batch_size=8)  # TCK206
    fit(args, loader, model, optimizer)

def fit(args, loader, model, optimizer):
    batches = iter(loader)
    for epoch in range(args.epochs):
        for _ in range(args.steps):
            try:
                x = next(batches)
            except StopIteration:
                batches = iter(loader)
                x = next(batches)
            model(x).sum().backward()
            optimizer.step()
"""
        ),
        Invalid(
            """
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

def main(options, train_set, model):
    if options["dist"]:
        train_sampler = DistributedSampler(train_set, shuffle=options["shuffle"])  # TCK206
        train_loader = DataLoader(train_set, batch_size=8, sampler=train_sampler)
    else:
        train_loader = DataLoader(train_set, batch_size=8, shuffle=options["shuffle"])
    for epoch in range(options["epochs"]):
        for batch in train_loader:
            model.optimize_parameters(batch)
"""
        ),
        Invalid(
            """
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

class Trainable:
    def __init__(self, model, epochs):
        self.model, self.epochs = model, epochs
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def _train_epoch(self, loader):
        for inputs, labels in loader:
            self.optimizer.zero_grad()
            torch.nn.functional.cross_entropy(self.model(inputs), labels).backward()
            self.optimizer.step()

    def fit(self, dataset):
        sampler = DistributedSampler(dataset)  # TCK206
        loader = DataLoader(dataset, batch_size=8, sampler=sampler)
        for epoch in range(self.epochs):
            self._train_epoch(loader)
"""
        ),
        Invalid(
            """
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

def inspect_order(dataset):
    sampler = DistributedSampler(dataset, shuffle=True)  # TCK206
    loader = DataLoader(dataset, batch_size=5, sampler=sampler)
    for epoch in range(3):
        for names, _ in loader:
            print(epoch, names)
"""
        ),
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
        self._samplers: list[tuple[cst.Call, frozenset[Loop], cst.ClassDef | None]] = []  # shuffling ones
        self._inline: dict[cst.Call, cst.Call] = {}  # sampler construction -> its DataLoader
        self._dataloaders: set[cst.Call] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if not dataloaders.DISTRIBUTED_SAMPLERS.isdisjoint(self.context.call_names(node)) and dataloaders.shuffle_written(node) is not False:
            self._samplers.append((node, frozenset(self.context.loops), self.context.current_class))
        elif dataloaders.is_dataloader_call(self.context, node):
            self._dataloaders.add(node)
            sampler = dataloaders.dataloader_arguments(node).get("sampler")
            if isinstance(sampler, cst.Call):
                self._inline[sampler] = node

    def leave_Module(self, node: cst.Module) -> None:
        """Decided at the end: set_epoch may be called anywhere (on the sampler, the loader, a helper ...)."""
        if not self._samplers or any(map(dataloaders.mentions_set_epoch, nodes.subtree(node))):
            return
        self._module, self._functions = node, {s.name.value: s for s in node.body if isinstance(s, cst.FunctionDef)}
        for call, loops, current_class in self._samplers:  # each shuffling sampler and the loops around it
            verdict = self._followed(call, loops, current_class)
            if verdict is _LOST:
                verdict = self._lost(call, loops)
            if verdict is not None:
                self.report(call, verdict[0], conditions=verdict[1])  # type: ignore[index]

    def _followed(self, call: cst.Call, loops: frozenset[Loop], current_class: cst.ClassDef | None) -> _Verdict | object | None:
        """Where the sampler's loader is iterated: a verdict, None when no epoch loop iterates
        it, :data:`_LOST` when the sampler or its loader goes where the rule cannot follow."""
        assignment, frame = references.assignment_of(self.context.binder, call, as_branch=True), self._frame(call)
        key, loaders, names = _key_of(assignment.targets[0].target) if assignment else None, [self._inline.get(call)], ()
        if key is not None and key[0] == "self" and (current_class is None or not isinstance(frame, cst.FunctionDef)):
            return None
        if key is not None:
            found = self._occurrences(key, frame, current_class if key[0] == "self" else None)
            loaders, names = [self._loader_of(use) for use in found[1]] if found else [None], (key[1],)
        if None in loaders:
            return _LOST  # the sampler escapes: passed on, returned, stored ...
        verdicts = [self._iterated_in_epoch_loop(loader, loops, names, dataloaders.shuffle_written(call) is True) for loader in loaders]  # type: ignore[arg-type]
        return next((verdict for verdict in verdicts if verdict not in (None, _LOST)), _LOST if _LOST in verdicts else None)

    def _lost(self, call: cst.Call, loops: frozenset[Loop]) -> _Verdict | None:
        """A sampler the rule lost track of is reported when nothing can set its epoch: no file
        of the project names ``set_epoch``, none hands loaders to a framework that sets it, and
        the project trains in loops of its own (see :func:`dataloaders.may_go_unseen`)."""
        # a loop that trains or draws batches may be the epoch loop; one that builds loaders (over a dict of datasets) is not
        epoch_loops = [loop for loop in loops if self.context.is_training_loop(loop) or self.context.iterates_dataloader(loop)]
        if epoch_loops or self.context.matches(idioms.EPOCH_SETTING_PATTERN) or not dataloaders.may_go_unseen(self.context, call, self._dataloaders):
            return None
        return _NO_SET_EPOCH_IN_PROJECT, (_PROJECT_TRAINS, _NO_PROJECT_SET_EPOCH)

    def _frame(self, node: cst.CSTNode) -> cst.CSTNode:
        """The innermost module, function, lambda or class around ``node``."""
        return self.context.binder.enclosing(node, *_FRAMES) or self._module

    def _occurrences(self, key: _Key, frame: cst.CSTNode, owner: cst.ClassDef | None) -> tuple[list[tuple[cst.CSTNode, cst.CSTNode | None]], list[cst.CSTNode]] | None:
        """The bindings of ``key`` (each target with its statement) and the places that use it
        other than to test it; None when a use cannot be followed (in a nested function,
        through ``self`` passed on, ...). A module's names are also globals of its functions."""
        binder, binds = self.context.binder, []
        if key[0] == "self":
            homes = {statement for statement in owner.body.body if isinstance(statement, cst.FunctionDef)}  # type: ignore[union-attr]
            found = references.self_attribute_references(binder, owner, key[1])  # type: ignore[arg-type]
        else:
            bindings = binder.bindings_of(key[1], binder.scope_defined_by(frame))  # type: ignore[arg-type]
            found, binds = list(bindings[0].references) if bindings else [], [(b.target, b.node) for b in bindings]
            functions = {f for f in map(self._frame, found) if isinstance(f, cst.FunctionDef) and self._frame(f) is frame}
            homes = {frame, *(functions if isinstance(frame, cst.Module) else ())}
        if found is None or not all(self._frame(node) in homes for node in found):
            return None
        # also `global name`, `def f(x=name)`, `self.name = ...`: what the binder keeps as references
        binds += [(node, binder.parent(binder.parent(node))) for node in found if references.is_bound(binder, node)]  # type: ignore[arg-type]
        tested = (references.is_bound, references.is_tested, dataloaders.harmless_use)
        return binds, [node for node in found if not any(test(binder, node) for test in tested)]

    def _loader_of(self, node: cst.CSTNode) -> cst.Call | None:
        """The DataLoader that ``node`` (a use of the sampler) is the ``sampler=`` of."""
        above = self.context.binder.parent(node)
        while isinstance(above, cst.IfExp) and node is not above.test:
            node, above = above, self.context.binder.parent(above)
        call = self.context.binder.parent(above)  # type: ignore[arg-type]
        return call if call in self._dataloaders and dataloaders.dataloader_arguments(call).get("sampler") is node else None  # type: ignore

    def _iterated_in_epoch_loop(self, loader: cst.Call, sampler_loops: frozenset[Loop], names: tuple[str, ...], asked_to_shuffle: bool) -> _Verdict | None:
        """Whether ``loader`` is iterated by a training loop, or handed to a training helper,
        inside an outer loop that keeps the same sampler across its iterations (not one of
        ``sampler_loops``, which build the sampler)."""
        found = self._loader_loops(loader)
        if found is None or not (found.loops or found.handed):
            return _LOST  # iterated where the rule cannot see
        names = (*names, *found.names)
        # a helper of another file must not call set_epoch either
        imported = tuple(Condition(helper, "module:set_epoch", NO) for helper, _ in found.handed if isinstance(helper, Symbol) and not helper.is_local)
        for loop, outer in found.loops:
            outer = outer or references.loops_around_calls(self.context.binder, loop)  # `train(epoch)` in the epoch loop
            # an explicit shuffle=True asks for a new order every epoch, training or not
            if not (asked_to_shuffle or dataloaders.trains_on_batches(loop) or any("train" in name.lower() for name in names)):
                continue
            for epoch_loop in outer:
                keeps_sampler = epoch_loop not in sampler_loops and dataloaders.is_epoch_loop(self.context.binder, epoch_loop)
                if keeps_sampler and (found.owner is None or not _calls_unknown_methods(epoch_loop, loop, found.owner)):
                    return None, imported
        lost = False
        for helper, loops in found.handed:
            in_epoch_loop = any(loop not in sampler_loops and dataloaders.is_epoch_loop(self.context.binder, loop) for loop in loops)
            if isinstance(helper, Symbol) and not helper.is_local:
                if in_epoch_loop:
                    return _HANDED_TO_HELPER, (Condition(helper, f"does:{','.join(_TRAINING_ACTIONS)}", MAY), *imported)
                lost = True
                continue
            function = helper if isinstance(helper, cst.FunctionDef) else self._functions[helper.name]
            site = next((effect.site for effect in self.context.summary_of(function).effects if effect.action in _TRAINING_ACTIONS), None)
            if site is not None and in_epoch_loop:
                return _HANDED_TO_HELPER.replace(PLACE, site.describe(self.context.line_of)), imported
            lost = lost or site is not None  # a training helper called once may run the epochs itself
        return _LOST if lost else None

    def _loader_loops(self, loader: cst.Call) -> _Loops | None:
        """The loops that iterate ``loader`` (each with its outer loops), the names it is
        bound to, and the class owning it when it is bound to ``self.<attribute>``."""
        binder = self.context.binder
        loop = references.iterating_loop(binder, loader)
        if loop is not None:
            return _Loops((), None, [(loop, references.loops_running(binder, loader))])
        assignment, frame = references.assignment_of(binder, loader), self._frame(loader)
        key, block = _key_of(assignment.targets[0].target) if assignment else None, binder.parent(frame)
        owner = binder.parent(block) if isinstance(frame, cst.FunctionDef) and isinstance(block, cst.IndentedBlock) else None  # type: ignore[arg-type]
        if key is None or (key[0] == "self" and not isinstance(owner, cst.ClassDef)):
            return None
        return self._follow(key, frame, owner if key[0] == "self" else None, {assignment}, 0)  # type: ignore[arg-type]

    def _follow(self, key: _Key, frame: cst.CSTNode, owner: cst.ClassDef | None, assignments: set[cst.Assign], depth: int) -> _Loops | None:
        """Where the loader bound to ``key`` by ``assignments`` (and nothing else) is iterated,
        following aliases such as ``progress = tqdm(loader)``; None when it escapes."""
        occurrences, binder = self._occurrences(key, frame, owner), self.context.binder
        if occurrences is None or depth > 3:
            return None
        if any(statement not in assignments and references.may_replace(binder, target, assignments) for target, statement in occurrences[0]):
            return None  # rebound to something else: a loop may iterate another object
        found = _Loops((key[1],), owner)
        aliases: dict[tuple[str, cst.CSTNode], set[cst.Assign]] = {}
        for use in occurrences[1]:
            if references.runs_before(binder, use, assignments):
                continue  # reads what the name held before the loader was bound (`loader.dataset`)
            loop, alias = references.iterating_loop(binder, use), dataloaders.loader_alias(binder, use)
            if loop is not None:
                found.loops.append((loop, references.loops_running(binder, use)))
            elif alias is not None:
                aliases.setdefault((alias.targets[0].target.value, self._frame(use)), set()).add(alias)  # type: ignore[attr-defined]
            elif isinstance(binder.parent(use), cst.Return):
                bound = references.bound_by_callers(binder, use)
                if bound is None:
                    return None
                for target, assignment in bound:
                    aliases.setdefault((target.value, self._frame(assignment)), set()).add(assignment)
            elif (handed := self._handed(use)) is not None:
                # a helper called once, outside any loop, may run the epochs itself: look inside
                inner = self._followed_into_parameter(use, depth) if not handed[1] else None
                found.loops += inner.loops if inner is not None else []
                found.handed += inner.handed if inner is not None else [handed]
            else:
                return None  # the loader escapes: passed on, returned, stored ...
        for (name, alias_frame), alias_assignments in aliases.items():
            followed = self._follow(("name", name), alias_frame, None, alias_assignments, depth + 1)
            if followed is None:
                return None
            found.loops, found.handed = found.loops + followed.loops, found.handed + followed.handed
            found.names += followed.names
        return found

    def _followed_into_parameter(self, node: cst.CSTNode, depth: int) -> _Loops | None:
        """``train(train_loader, ...)`` running a function of this file: where that function
        iterates the parameter it binds the loader to; None when it cannot be followed there."""
        call = references.argument_of(self.context.binder, node)
        resolved = self.context.call_run_by(call) if call is not None else None
        param = resolved.parameter_receiving(node) if resolved is not None else None  # type: ignore[arg-type]
        return self._follow(("name", param.name.value), resolved.function, None, {param}, depth + 1) if param is not None else None  # type: ignore[union-attr, arg-type]

    def _handed(self, node: cst.CSTNode) -> tuple[Symbol | cst.FunctionDef, tuple[Loop, ...]] | None:
        """``helper(..., loader, ...)`` where ``helper`` is a function of the project, or
        ``self._train_epoch(loader)`` a method of the class: it, and the loops around the call."""
        binder, project = self.context.binder, self.context.project
        call = references.argument_of(binder, node)
        method = references.own_method(self.context.binder, call) if call is not None else None
        helper = method if method is not None else project.symbol_of(call.func) if call is not None and project is not None else None
        if helper is None or (isinstance(helper, Symbol) and helper.is_local and helper.name not in self._functions):
            return None
        return helper, references.loops_running(binder, node)
