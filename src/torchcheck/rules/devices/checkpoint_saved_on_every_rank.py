from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.accumulators import instance_class
from torchcheck.lint.binder import Binder
from torchcheck.lint.context import LintContext
from torchcheck.lint.distributed import (
    PROCESS_GROUP_TEXT,
    guarded_by_rank,
    names_a_rank,
    runs_on_one_rank,
    COLLECTIVES,
    sets_up_process_group,
)
from torchcheck.lint.flow import BODY, Branch, Function
from torchcheck.lint.idioms import ONE_RANK_RUNNER_WORDS
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import argument_for, dotted_name, subtree
from torchcheck.lint.project import GUARDED_CALLS_ONLY, NO, PLACE, PROJECT, THIS_FILE, UNGUARDED_CALLS, YES, Condition
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.summaries import bind_arguments

_SAVE = "torch.save"
_CALLED_ON_EVERY_RANK = (
    f"`torch.save` runs on every rank: a distributed script calls this helper ({PLACE}), so all ranks write the "
    "same file at once; call it on one rank (`if dist.get_rank() == 0:`)"
)
_LITERALS = {"True": True, "False": False, "None": False}
_STATEMENT_PARTS = (
    cst.BaseStatement,
    cst.BaseSuite,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)


@dataclass(frozen=True)
class _Use:
    """A place that runs a function of the file: a call, or the function handed on
    (``mp.spawn(main_worker, ...)``, ``threading.Thread(target=save)``)."""

    caller: Function | None  # the function the use is in; None at module level
    guarded: bool  # under a rank check
    call: cst.Call | None = None  # the call, when the function is called here (not handed on)
    on_module: bool = False  # a method called on a torch module (`self.model.train()`)


@dataclass(frozen=True)
class _Save:
    call: cst.Call
    function: Function | None
    branches: tuple[Branch, ...]  # the `if` branches it sits in


class CheckpointSavedOnEveryRank(Rule):
    """
    ## What it does
    Checks for `torch.save(...)` in a script that starts a process group or wraps its model in
    `DistributedDataParallel`, where nothing limits the save to one rank.

    ## Why is this bad?
    A distributed script runs once per process. Without a rank check every rank writes the
    same checkpoint to the same path at the same time: on a shared file system the writes
    race, a rank that reads the file while another truncates it loads a corrupt or partial
    checkpoint, and the job spends `world_size` times the I/O it needs. Save on one rank
    (`if dist.get_rank() == 0:`, a project's `is_main_process()`), or give each rank its own
    file when every rank really holds different state.

    A save counts as limited to one rank when it sits under a condition that reads a rank or
    a main-process flag (`args.rank % ngpus_per_node == 0`, `local_rank in [-1, 0]`,
    `self.global_rank == 0`, `accelerator.is_main_process`, or a flag the file sets from one:
    `if args.save_logs:` after `args.save_logs = args.logs and is_master(args)`; a value
    merely built from the rank, `model = Model(hp, net, rank)`, is no such flag; the process
    index `mp.spawn` hands its worker is a rank, also once passed on to a parameter every
    call fills with it and stored: `Trainer(model, rank)`, then `if self.gpu_id == 0:`), after an early `return` taken on
    one, in a function decorated `@rank_zero_only`-style, or in a helper of the file that is
    only ever called under such a condition (or whose other calls pass a literal flag that
    skips the save: `save_checkpoint(best=True)` never runs `if not best: torch.save(...)`),
    or only handed to a call whose name says it runs what it is handed on one rank
    (`checkpointer.run_coordinator_step(write_metadata)`, `accelerator.on_main_process(save)`).
    Files whose path is built from the rank (also through the name the path is bound to) are
    one per process and are not reported.
    A save in a top-level helper that its own file never calls (`def save_model(args, model)`
    in `model.py`) is reported when a distributed script of the project imports the helper and
    calls it outside a rank check; the message names that call.
    A method of a class that every rank builds (`trainer = Trainer(args)` outside a rank
    check) and that the file never calls is taken to run on every rank, as a launcher or a
    test calls it, unless the project's distributed scripts call it on instances of the class,
    and only under a rank check (`if args.local_rank in [-1, 0]: model.save(path)`); a torch module's own `train()`/`eval()` (`self.model.train()`) is not a
    call of a trainer's method of the same name.

    Test code (test functions and classes, files under a `tests/` folder) is not checked: a test saves from one process, or exercises the save itself.

    ## Example
    ```python
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("nccl")
    model = DDP(net.cuda(), device_ids=[local_rank])
    train(model)
    torch.save(model.module.state_dict(), "checkpoint.pt")
    ```

    Use instead:
    ```python
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("nccl")
    model = DDP(net.cuda(), device_ids=[local_rank])
    train(model)
    if dist.get_rank() == 0:
        torch.save(model.module.state_dict(), "checkpoint.pt")
    dist.barrier()
    ```

    ## Fix safety
    There is no automatic fix: which rank saves, and whether the others must wait for the
    file (`dist.barrier()`) before reading it, depends on the script.

    ## References
    - [Getting started with DDP: save and load checkpoints on one process](https://pytorch.org/tutorials/intermediate/ddp_tutorial.html#save-and-load-checkpoints)
    - [Two processes save their checkpoints under the same name and some cannot be loaded (NVIDIA/apex#629)](https://github.com/NVIDIA/apex/issues/629)
    - [Checkpoint not saved by the main process only; the file fails to load (bytedance/ibot#15)](https://github.com/bytedance/ibot/issues/15)
    """

    code = "TCK208"
    applies_in_tests = False
    name = "checkpoint-saved-on-every-rank"
    message = (
        "`torch.save` runs on every rank of this distributed script: all ranks write the same file at once; "
        "save on one rank (`if dist.get_rank() == 0:`)"
    )
    # the script must set up a process group or a DDP wrapper itself, or save in a helper that
    # a distributed script of the project may import
    required_text = (*PROCESS_GROUP_TEXT, "save")

    VALID = (
        Valid(
            """
import torch
import torch.multiprocessing as mp
from torch.distributed import init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def __init__(self, model, gpu_id: int):
        self.model = DDP(model.to(gpu_id), device_ids=[gpu_id])
        self.gpu_id = gpu_id

    def train(self, epochs):
        for epoch in range(epochs):
            if self.gpu_id == 0:
                torch.save(self.model.module.state_dict(), "best.pt")


def main(rank, world_size, model):
    init_process_group("nccl", rank=rank, world_size=world_size)
    Trainer(model, rank).train(10)


if __name__ == "__main__":
    mp.spawn(main, args=(2, None), nprocs=2)
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

def is_master(args):
    return args.rank == 0

def main(args, model, loader, optimizer):
    dist.init_process_group("nccl")
    args.save_logs = args.logs and args.logs.lower() != "none" and is_master(args)
    model = DDP(model)
    for epoch in range(args.epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        if args.save_logs:
            torch.save(model.module.state_dict(), f"epoch_{epoch}.pt")
"""
        ),
        Valid(
            """
import os
import torch
import torch.distributed as dist

def main(args, queue):
    dist.init_process_group("nccl")
    queue_path = os.path.join(args.dump_path, "queue" + str(args.rank) + ".pth")
    for epoch in range(args.epochs):
        torch.save({"queue": queue}, queue_path)
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist

class Trainer:
    def __init__(self, model, accelerator, local_filesystem):
        dist.init_process_group("nccl")
        self.model, self.accelerator = model, accelerator
        self.can_checkpoint = self.is_local_main if local_filesystem else self.is_main

    @property
    def is_main(self):
        return self.accelerator.is_main_process

    @property
    def is_local_main(self):
        return self.accelerator.is_local_main_process

    def save(self, path):
        if not self.can_checkpoint:
            return
        torch.save(self.model.state_dict(), path)
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

class Trainer:
    def __init__(self, model, local_rank):
        self.model = DistributedDataParallel(model, device_ids=[local_rank])

    def train(self, loader):
        self.model.train()
        for batch in loader:
            self.model(batch).sum().backward()

    def save(self):
        torch.save(self.model.module.state_dict(), "last.pth")

if __name__ == "__main__":
    dist.init_process_group("nccl")
    trainer = Trainer(torch.nn.Linear(4, 4).cuda(), 0)
    trainer.train([])
    if dist.get_rank() == 0:
        trainer.save()  # the file saves on one rank only
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist

dist.init_process_group("nccl")
if dist.get_rank() == 0:
    torch.save(model.state_dict(), "checkpoint.pt")
"""
        ),
        Valid(
            """
import torch

def main_worker(gpu, ngpus_per_node, args):
    torch.distributed.init_process_group(backend="nccl", rank=args.rank)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])
    for epoch in range(args.epochs):
        train(model, epoch)
        if not args.multiprocessing_distributed or (
            args.multiprocessing_distributed and args.rank % ngpus_per_node == 0
        ):
            save_checkpoint({"state_dict": model.state_dict()}, "checkpoint.pth.tar")

def save_checkpoint(state, filename):
    torch.save(state, filename)
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist

def is_main_process():
    return dist.get_rank() == 0

def save_on_master(*args, **kwargs):
    if is_main_process():
        torch.save(*args, **kwargs)

def init_distributed_mode(args):
    dist.init_process_group(backend="nccl", world_size=args.world_size, rank=args.rank)
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

class Trainer:
    def __init__(self, model, local_rank):
        dist.init_process_group("nccl")
        self.model = DDP(model, device_ids=[local_rank])
        self.global_rank = dist.get_rank()

    def save(self, path):
        if self.global_rank != 0:
            return
        torch.save(self.model.module.state_dict(), path)

    def save_shard(self, directory):
        torch.save(self.optimizer.state_dict(), f"{directory}/optim_rank{self.global_rank}.pt")
"""
        ),
        Valid(
            """
import os

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
if args.local_rank in [-1, 0]:
    torch.save(args, "training_args.bin")
writes_checkpoints = int(os.environ["RANK"]) == 0
if writes_checkpoints:
    torch.save(model.state_dict(), "model.pt")
if ddp:
    if dist.get_rank() == 0:
        torch.save(model.module.state_dict(), "epoch.pth")
else:
    torch.save(model.state_dict(), "epoch.pth")
if world_size <= 1:
    torch.save(rng_state, "rng_state.pth")
if dist.get_rank() != 0:
    pass
else:
    torch.save(optimizer.state_dict(), "optimizer.pth")

@rank_zero_only
def export(model):
    torch.save(model.state_dict(), "final.pt")
"""
        ),
        Valid(
            """
import torch

def save_checkpoint(model, path):
    torch.save(model.state_dict(), path)
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist

def save(model, path):
    torch.save(model.state_dict(), path)

def main(model, samples):
    dist.init_process_group("nccl")
    for index, image in enumerate(samples):
        image.save(f"sample_{index}.png")
    if dist.get_rank() == 0:
        save(model, "model.pt")
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

class Recipe:
    def setup(self, model, device):
        dist.init_process_group("nccl")
        self.model = DistributedDataParallel(model.to(device))

    def _write_progress(self, directory, epoch):
        torch.save({"epoch": epoch}, f"{directory}/progress.pt")

    def checkpoint(self, directory, epoch):
        self.store.save_shards(self.model, directory)

        def write_metadata():
            self._write_progress(directory, epoch)

        self.store.run_coordinator_step(write_metadata, description="metadata")
        dist.barrier()
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

def main_worker(gpu, ngpus, args):
    args.gpu = gpu
    dist.init_process_group("nccl", rank=args.node_rank * ngpus + gpu, world_size=args.world_size)
    model = torch.nn.parallel.DistributedDataParallel(build(args).cuda(gpu), device_ids=[gpu])
    for epoch in range(args.epochs):
        train(model, epoch)
        if args.gpu == 0:
            torch.save(model.module.state_dict(), f"epoch{epoch}.pth")

if __name__ == "__main__":
    mp.spawn(main_worker, nprocs=4, args=(4, parse_args()))
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
import torch.multiprocessing as mp
from torch.distributed import init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def __init__(self, model, gpu_id: int):
        self.model = DDP(model.to(gpu_id), device_ids=[gpu_id])
        self.gpu_id = gpu_id

    def train(self, epochs):
        for epoch in range(epochs):
            if self.gpu_id == 0:
                torch.save(self.model.module.state_dict(), "best.pt")  # TCK208


def main(rank, world_size, model):
    init_process_group("nccl", rank=rank, world_size=world_size)
    Trainer(model, 0).train(10)


if __name__ == "__main__":
    mp.spawn(main, args=(2, None), nprocs=2)
"""
        ),
        Invalid(
            """
import torch
import torch.distributed as dist

class Engine:
    def __init__(self, model, rank):
        self.model, self.rank = model, rank

    def step(self, batch, train=True):
        with torch.set_grad_enabled(train):
            return self.model(batch)

    def metrics(self, value):
        values = [torch.zeros_like(value) for _ in range(dist.get_world_size())]
        dist.all_gather(values, value)
        return torch.stack(values).mean()

    def train(self, loader, epochs, save_interval):
        for epoch in range(epochs):
            for batch in loader:
                self.step(batch)
            mean = self.metrics(torch.tensor(float(epoch)))
            if self.rank == 0:
                print(mean)
            if (epoch + 1) % save_interval == 0:
                self.save_state(epoch)

    def save_state(self, epoch):
        torch.save(self.model.state_dict(), f"model_{epoch}.pt")  # TCK208
"""
        ),
        Invalid(
            """
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

def main_worker(gpu, ngpus, args):
    args.gpu = gpu
    dist.init_process_group("nccl", rank=args.node_rank * ngpus + gpu, world_size=args.world_size)
    model = torch.nn.parallel.DistributedDataParallel(build(args).cuda(gpu), device_ids=[gpu])
    for epoch in range(args.epochs):
        train(model, epoch)
        torch.save({"model": model.state_dict(), "epoch": epoch}, "last.pth")  # TCK208

if __name__ == "__main__":
    mp.spawn(main_worker, nprocs=4, args=(4, parse_args()))
"""
        ),
        Invalid(
            """
import itertools
import torch
import torch.distributed as dist

def train_loop(rank, world_size, hp, net, loader):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    config = dict(hp, device=rank)
    state = {"epoch": 0, "config": config}
    for epoch in itertools.count():
        if epoch > config["epochs"]:
            break
        for x in loader:
            net(x).sum().backward()
        torch.save({"net": net.state_dict(), "state": state}, f"epoch_{epoch}.pt")  # TCK208
"""
        ),
        Invalid(
            """
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

class Trainer:
    def __init__(self, model, local_rank):
        self.model = DistributedDataParallel(model, device_ids=[local_rank])
        self.best = 0.0

    def train(self, loader):
        self.model.train()
        for step, batch in enumerate(loader):
            self.model(batch).sum().backward()
            if step % 100 == 0:
                self.validate()
                self.model.train()

    def validate(self):
        self.model.eval()
        save_checkpoint(self.model.module)

def save_checkpoint(model):
    torch.save(model.state_dict(), "last.pth")  # TCK208

if __name__ == "__main__":
    dist.init_process_group("nccl")
    trainer = Trainer(torch.nn.Linear(4, 4).cuda(), 0)
"""
        ),
        Invalid(
            """
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
model = DDP(net.cuda(), device_ids=[local_rank])
train(model)
torch.save(model.module.state_dict(), "checkpoint.pt")  # TCK208
"""
        ),
        Invalid(
            """
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

def worker(rank, world_size):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    model = torch.nn.parallel.DistributedDataParallel(Net())
    for epoch in range(10):
        train_one_epoch(model)
        if epoch % 5 == 0:
            save(model, epoch)

def save(model, epoch):
    torch.save({"model": model.module.state_dict(), "epoch": epoch}, "last.pt")  # TCK208
    if args.distributed:
        torch.save(model.module.state_dict(), "weights.pt")  # TCK208
    if args.distributed and dist.get_rank() == 0:
        torch.save(model.module.state_dict(), "best.pt")
    else:
        torch.save(model.state_dict(), "best.pt")  # TCK208

if __name__ == "__main__":
    mp.spawn(worker, args=(4,), nprocs=4)
"""
        ),
        Invalid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel

class Trainer:
    def __init__(self, model, local_rank):
        self.local_rank = local_rank
        self.model = DistributedDataParallel(model, device_ids=[local_rank])

    def train(self, loader, epochs):
        for epoch in range(epochs):
            self.train_one_epoch(loader)
            if self.local_rank == 0:
                self.save_checkpoint(best=False)
            self.evaluate()
            self.save_checkpoint(best=True)

    def save_checkpoint(self, best=False):
        state = {"model": self.model.module.state_dict()}
        if not best:
            torch.save(state, "last.pth")
        else:
            torch.save(state, "best.pth")  # TCK208
"""
        ),
        Invalid(
            """
import torch
import torch.distributed as dist

class Recipe:
    def setup(self, model):
        dist.init_process_group("nccl")
        self.model = model

    def checkpoint(self, directory):
        def write_metadata():
            torch.save({"step": self.step}, f"{directory}/meta.pt")  # TCK208

        self.pool.submit(write_metadata)
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._saves: list[_Save] = []
        self._uses: dict[str, list[_Use]] = {}  # a name called or handed on -> where
        self._method_uses: dict[str, list[_Use]] = {}  # a method name called on anything -> where
        self._functions: dict[Function, bool] = {}  # each function -> it sets up the process group
        self._classes: dict[Function, cst.ClassDef | None] = {}  # each function -> the class it is a method of
        self._distributed_classes: set[cst.ClassDef] = set()  # classes with a method that sets it up
        self._built_on_every_rank: set[cst.ClassDef] = set()  # classes instantiated outside a rank check
        self._instantiations: list[cst.Call] = []  # calls of a class name of the file, outside a rank check
        self._class_names: frozenset[str] = frozenset()
        self._distributed = False
        self._defined: frozenset[str] = frozenset()  # names of the functions the file defines

    def visit_Module(self, node: cst.Module) -> None:
        self._defined = _defined_functions(node)
        self._class_names = frozenset(statement.name.value for statement in node.body if isinstance(statement, cst.ClassDef))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions[node] = False
        self._classes[node] = self.context.current_class

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        function = self.context.flow.function
        if (sets_up := sets_up_process_group(self.context, node)) or (qualified in COLLECTIVES and self._classes.get(function) is not None):  # an engine's `dist.all_gather(...)`
            self._distributed = True
            if function is not None:
                self._functions[function] = sets_up
                owner = self._classes.get(function)
                if owner is not None:
                    self._distributed_classes.add(owner)
        if qualified == _SAVE:
            event = self.context.flow.event(node)
            if not guarded_by_rank(self.context, event) and not _per_rank_file(self.context.binder, node):
                branches = tuple(branch for branch in event.path if isinstance(branch.owner, cst.If))
                self._saves.append(_Save(node, function, branches))
            return
        if isinstance(node.func, cst.Name) and node.func.value in self._class_names and not self._guarded(node):
            self._instantiations.append(node)  # `trainer = Trainer(args)` on every rank (resolved at the end)
        handed = [argument.value.value for argument in node.args if type(argument.value) is cst.Name and references.file_function(self.context.binder, argument.value) is not None]
        called = node.func.value if isinstance(node.func, cst.Name) else None
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        if not (handed or called in self._defined or method in self._defined):
            return  # runs no function of this file: where it sits does not matter
        guarded = self._guarded(node)
        for name in handed:  # `lifecycle.run_coordinator_step(write_metadata)` runs what it is handed on one rank
            self._uses.setdefault(name, []).append(_Use(function, guarded or _runs_handed_on_one_rank(node)))
        if called is not None:
            self._uses.setdefault(called, []).append(_Use(function, guarded, node))
        elif method is not None:  # `self.save()`, `trainer.fit()`: a method
            on_module = self.context.kind_of(node.func.value) is Kind.MODULE  # type: ignore[attr-defined]
            self._method_uses.setdefault(method, []).append(_Use(function, guarded, node, on_module))

    def _guarded(self, node: cst.CSTNode) -> bool:
        return guarded_by_rank(self.context, self.context.flow.event(node))

    def leave_Module(self, original_node: cst.Module) -> None:
        top_level = {statement for statement in original_node.body if isinstance(statement, cst.FunctionDef)}
        if self._distributed:
            built = (instance_class(self.context.binder, call) for call in self._instantiations)
            self._built_on_every_rank = {cls for cls in built if cls is not None}
        verdicts: dict[Function, bool] = {}
        for save in self._saves:
            if self._distributed and self._reaches_every_rank(save, verdicts):
                self.report(save.call, conditions=self._unless_other_files_guard(save.function))
            elif self._left_to_importers(save, top_level):
                # a helper of the project: a distributed script of the project that imports it
                # and calls it outside a rank check runs the save on every rank
                condition = Condition(THIS_FILE, f"{PROJECT}:{UNGUARDED_CALLS}:{save.function.name.value}", YES)  # type: ignore[union-attr]
                self.report(save.call, _CALLED_ON_EVERY_RANK, conditions=(condition,))

    def _unless_other_files_guard(self, function: Function) -> tuple[Condition, ...]:
        """A method the file never calls, of a class other files use: unless they all call it under a rank check."""
        owner, binder = self._classes.get(function), self.context.binder
        exported = owner is not None and binder.scope_of(owner) is binder.module_scope and not self._uses_of(function)
        return (Condition(THIS_FILE, f"{PROJECT}:{GUARDED_CALLS_ONLY}:{owner.name.value}.{function.name.value}", NO),) if exported else ()  # type: ignore[union-attr]

    def _left_to_importers(self, save: _Save, top_level: set[cst.FunctionDef]) -> bool:
        """``save`` is in a top-level function of the file that the file never runs itself
        (nor limits to one rank): whether it runs on every rank is up to the files importing it."""
        function = save.function
        return function in top_level and not any(runs_on_one_rank(decorator) for decorator in function.decorators) and not self._uses_of(function)  # type: ignore[union-attr]

    def _reaches_every_rank(self, save: _Save, verdicts: dict[Function, bool]) -> bool:
        """Whether a run of the file reaches ``save`` on every rank (see ``_runs_on_every_rank``);
        a call whose literal arguments skip the save's branch does not count."""
        function = save.function
        if function is None:
            return True
        if any(runs_on_one_rank(decorator) for decorator in function.decorators):
            return False
        uses = self._uses_of(function)
        if not uses:
            return self._runs_unasked(function)
        return any(self._unguarded(use, verdicts) for use in uses if not self._skips(save, use, function))

    def _runs_on_every_rank(self, function: Function, verdicts: dict[Function, bool]) -> bool:
        """Whether some run of ``function`` is not limited to one rank: it is called (or
        handed on) outside a rank check by code that itself runs on every rank; a function
        the file never runs counts only when it sets up the process group itself (a worker
        started by a launcher), or is a method of a class that does (a trainer)."""
        if function in verdicts:
            return verdicts[function]
        verdicts[function] = False  # recursion: assume limited until a use says otherwise
        if any(runs_on_one_rank(decorator) for decorator in function.decorators):
            return False
        uses = self._uses_of(function)
        if uses:
            verdicts[function] = any(self._unguarded(use, verdicts) for use in uses)
        else:
            verdicts[function] = self._runs_unasked(function)
        return verdicts[function]

    def _unguarded(self, use: _Use, verdicts: dict[Function, bool]) -> bool:
        return not use.guarded and (use.caller is None or self._runs_on_every_rank(use.caller, verdicts))

    def _uses_of(self, function: Function) -> list[_Use]:
        name = function.name.value
        owner = self._classes.get(function)
        if owner is None:
            return self._uses.get(name, [])
        # `self.model.train()` runs nn.Module.train, not a trainer's train()
        module_class = self.context.is_module_class(owner)
        method_uses = [use for use in self._method_uses.get(name, []) if module_class or not use.on_module]
        return [*self._uses.get(name, []), *method_uses]

    def _runs_unasked(self, function: Function) -> bool:
        """A function the file never calls: a worker that sets up the process group, or a
        method of a class that does, or of a class every rank builds (a trainer whose
        ``train()`` the launcher calls)."""
        owner = self._classes.get(function)
        return self._functions.get(function, False) or owner in self._distributed_classes or owner in self._built_on_every_rank

    def _skips(self, save: _Save, use: _Use, function: Function) -> bool:
        """The call passes literal arguments under which ``save``'s branch is not taken:
        ``save_checkpoint(best=True)`` never runs the ``if not best:`` branch."""
        if use.call is None:
            return False
        is_method = self._classes.get(function) is not None and not _is_static(function)
        receiver = use.call.func.value if is_method and isinstance(use.call.func, cst.Attribute) else None
        arguments = bind_arguments(use.call, function, receiver)
        if arguments is None:
            return False
        for branch in save.branches:
            truth = _literal_truth(branch.owner.test, arguments)  # type: ignore[attr-defined]
            if truth is not None and truth != (branch.label == BODY):
                return True
        return False


def _runs_handed_on_one_rank(call: cst.Call) -> bool:
    """A call whose name says it runs the function it is handed on one rank only
    (``run_coordinator_step(fn)``, ``on_main_process(fn)``, ``rank_zero_only(fn)``)."""
    name = call.func.attr.value if isinstance(call.func, cst.Attribute) else dotted_name(call.func) or ""
    return any(word in name.lower() for word in ONE_RANK_RUNNER_WORDS)


def _defined_functions(module: cst.Module) -> frozenset[str]:
    """The names of every function defined in the module, at any depth (statements only are
    walked: functions are not defined inside expressions)."""
    statements = subtree(module, prune=lambda node: node is not module and not isinstance(node, _STATEMENT_PARTS))
    return frozenset(node.name.value for node in statements if isinstance(node, cst.FunctionDef))


def _is_static(function: Function) -> bool:
    return any(dotted_name(decorator.decorator) == "staticmethod" for decorator in function.decorators)


def _literal_truth(test: cst.BaseExpression, arguments: dict[str, cst.BaseExpression]) -> bool | None:
    """The truth of ``flag`` or ``not flag`` when the parameter ``flag`` gets a literal."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _literal_truth(test.expression, arguments)
        return None if inner is None else not inner
    value = arguments.get(test.value) if isinstance(test, cst.Name) else None
    if isinstance(value, cst.Name) and value.value in _LITERALS:
        return _LITERALS[value.value]
    if isinstance(value, cst.Integer):
        return value.evaluated_value != 0
    return None


def _per_rank_file(binder: Binder, call: cst.Call) -> bool:
    """The path names the rank, also through the name it is bound to (``queue_path =
    os.path.join(dump, "queue" + str(args.rank) + ".pth")``): each process writes a file of its own."""
    path = argument_for(call, 1, "f")
    if path is None or names_a_rank(path.value):
        return path is not None
    values = [getattr(binding.node, "value", None) for binding in binder.bindings_before(path.value)] if type(path.value) is cst.Name else []
    return bool(values) and all(isinstance(value, cst.BaseExpression) and names_a_rank(value) for value in values)
