from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.distributed import PROCESS_GROUP_TEXT, guarded_by_rank, names_a_rank, runs_on_one_rank, sets_up_process_group
from torchcheck.lint.edits import keyword, with_keyword_appended
from torchcheck.lint.nodes import argument_for, called_name, has_star_kwargs, keyword_argument
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid
from torchcheck.lint.save_sites import TORCH_LOAD, file_keys, is_save, loaded_path, saved_path, saved_value, state_dict_calls

_MESSAGE = (
    "every rank loads this checkpoint onto the device it was saved from (cuda:0; saved at line {line}); "
    'pass map_location="cpu" or the rank\'s device'
)
_CUDA_SETUP = frozenset({"torch.cuda.set_device"})


class LoadWithoutMapLocationPerRank(Rule):
    """
    ## What it does
    Checks for `torch.load(path)` without `map_location` in code that every rank of a
    distributed job runs, when the file it reads is a checkpoint the same script saves from
    GPU-resident state (`model.state_dict()`, `optimizer.state_dict()`, or a dict of them).

    The rule is opt-in: it decides "runs on CUDA" and "distributed" per file, and on 36 public training repositories 2 of its 3 findings were false (a model saved from the CPU in a CUDA script).

    ## Why is this bad?
    `torch.load` puts each tensor back on the device it was saved from. A checkpoint written
    by rank 0 holds `cuda:0` tensors, so every rank that loads it without `map_location`
    opens a context on GPU 0 and materialises the whole checkpoint there: resuming runs out of
    memory, GPU 0 stays busy with the other processes' memory, and optimizer state briefly
    lives on another rank's device. Load onto the CPU (`map_location="cpu"`) and let
    `load_state_dict` copy into the model, or onto the rank's own device.

    A load is reported only when the script runs on several processes (it starts a process
    group, wraps its model in DDP or FSDP, or reads `LOCAL_RANK`), runs on CUDA, and saves the
    file it loads: the same path expression or config key, or the same file name at the end
    of the path (`ckpt_dir / "checkpoint.pth"` saved, `last_dir / "checkpoint.pth"` loaded).
    Loads on one rank only (`if rank == 0:`), files saved from CPU copies, and files the
    script never writes (pretrained weights) are not reported.

    ## Example
    ```python
    import os

    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    from model import Net

    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    model = DDP(Net().cuda(local_rank), device_ids=[local_rank])
    if os.path.exists("checkpoint.pt"):
        model.module.load_state_dict(torch.load("checkpoint.pt", weights_only=True))
    train(model)
    if dist.get_rank() == 0:
        torch.save(model.module.state_dict(), "checkpoint.pt")
    ```

    Use instead:
    ```python
    import os

    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    from model import Net

    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    model = DDP(Net().cuda(local_rank), device_ids=[local_rank])
    if os.path.exists("checkpoint.pt"):
        state = torch.load("checkpoint.pt", map_location="cpu", weights_only=True)
        model.module.load_state_dict(state)
    train(model)
    if dist.get_rank() == 0:
        torch.save(model.module.state_dict(), "checkpoint.pt")
    ```

    ## Fix safety
    The fix adds `map_location="cpu"`. It is unsafe: tensors the code uses straight from the
    checkpoint, rather than copying them into a module or optimizer (EMA weights,
    `torch.cuda.set_rng_state` inputs), then live on the CPU.

    ## References
    - [Getting started with DDP: save and load checkpoints ("configure a map_location")](https://pytorch.org/tutorials/intermediate/ddp_tutorial.html#save-and-load-checkpoints)
    - [GPU 0 overloaded on resume; fixed with `map_location=torch.device("cuda", LOCAL_RANK)` (pytorch/examples#1078)](https://github.com/pytorch/examples/issues/1078)
    - [Resuming DDP from a checkpoint leaves extra processes on GPU 0 (pytorch/pytorch#23138)](https://github.com/pytorch/pytorch/issues/23138)
    """

    code = "TCK215"
    name = "load-without-map-location-per-rank"
    default_enabled = False
    message = 'every rank loads this checkpoint onto the device it was saved from (cuda:0); pass map_location="cpu" or the rank\'s device'
    fix_title = 'Pass `map_location="cpu"`'
    fix_safety = FixSafety.UNSAFE
    required_text = (*PROCESS_GROUP_TEXT, "init_process_group", "DistributedDataParallel", "LOCAL_RANK")

    VALID = (
        Valid(
            """
import torch
import torch.distributed as dist

dist.init_process_group("nccl")
model = Net().cuda()
state = torch.load("last.pt", map_location="cpu", weights_only=True)
other = torch.load("last.pt", map_location=f"cuda:{local_rank}", weights_only=True)
lazy = torch.load("last.pt", lambda storage, location: storage, weights_only=True)
if dist.get_rank() == 0:
    torch.save(model.state_dict(), "last.pt")
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist

dist.init_process_group("nccl")
model = Net().cuda()
tokens = torch.load("tokens.pt", weights_only=True)
pretrained = torch.load(args.pretrained, weights_only=True)
if dist.get_rank() == 0:
    state = torch.load("last.pt", weights_only=True)
    torch.save(model.state_dict(), "last.pt")
    torch.save(torch.arange(10), "tokens.pt")
"""
        ),
        Valid(
            """
import torch

model = Net().cuda()
model.load_state_dict(torch.load("last.pt", weights_only=True))
train(model)
torch.save(model.state_dict(), "last.pt")
"""
        ),
        Valid(
            """
import torch
import torch.distributed as dist

def restore(model):
    model.load_state_dict(torch.load("last.pt", weights_only=True))

def main():
    dist.init_process_group("nccl")
    model = Net().cuda()
    if dist.get_rank() == 0:
        restore(model)
        torch.save(model.state_dict(), "last.pt")
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import os

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
model = Net().cuda()
if os.path.exists("checkpoint.pt"):
    model.load_state_dict(torch.load("checkpoint.pt", weights_only=True))  # TCK215
if dist.get_rank() == 0:
    torch.save(model.state_dict(), "checkpoint.pt")
""",
            expected_replacement="""
import os

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
model = Net().cuda()
if os.path.exists("checkpoint.pt"):
    model.load_state_dict(torch.load("checkpoint.pt", weights_only=True, map_location="cpu"))  # TCK215
if dist.get_rank() == 0:
    torch.save(model.state_dict(), "checkpoint.pt")
""",
        ),
        Invalid(
            """
import os

import torch
from torch.nn.parallel import DistributedDataParallel as DDP

def main(args):
    local_rank = int(os.environ["LOCAL_RANK"])
    model = DDP(build_model(args).to(local_rank), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters())
    if args.resume:
        checkpoint = torch.load(os.path.join(args.last_dir, "checkpoint.pth"), weights_only=True)  # TCK215
        model.module.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
    for epoch in range(args.epochs):
        train_one_epoch(model, optimizer)
        save_on_master({"model": model.module.state_dict(), "optimizer": optimizer.state_dict()}, args.ckpt_dir / "checkpoint.pth")
""",
            expected_replacement="""
import os

import torch
from torch.nn.parallel import DistributedDataParallel as DDP

def main(args):
    local_rank = int(os.environ["LOCAL_RANK"])
    model = DDP(build_model(args).to(local_rank), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters())
    if args.resume:
        checkpoint = torch.load(os.path.join(args.last_dir, "checkpoint.pth"), weights_only=True, map_location="cpu")  # TCK215
        model.module.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
    for epoch in range(args.epochs):
        train_one_epoch(model, optimizer)
        save_on_master({"model": model.module.state_dict(), "optimizer": optimizer.state_dict()}, args.ckpt_dir / "checkpoint.pth")
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._loads: list[cst.Call] = []
        self._saves: list[cst.Call] = []
        self._distributed = False
        self._on_cuda = False
        self._guarded_calls: dict[str, list[bool]] = {}  # a function name called -> whether each call is rank-guarded
        self._defined: frozenset[str] = frozenset()

    def visit_Module(self, node: cst.Module) -> None:
        self._defined = frozenset(_functions_defined(node))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._note_string(node.value.lstrip("rbuRBUfF").strip("'\""))

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        self._note_string(node.value)

    def _note_string(self, text: str) -> None:
        if text.startswith("cuda") or text == "nccl":
            self._on_cuda = True
        elif text == "LOCAL_RANK":
            self._distributed = True

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.call_name(node)
        if sets_up_process_group(self.context, node):
            self._distributed = True
        if name in _CUDA_SETUP or _places_on_gpu(node):
            self._on_cuda = True
        if name in TORCH_LOAD:
            if self._reads_without_map_location(node) and not guarded_by_rank(self.context, self.context.flow.event(node)):
                self._loads.append(node)
        elif is_save(self.context, node):
            self._saves.append(node)
        called = called_name(node)
        if called in self._defined:
            guarded = guarded_by_rank(self.context, self.context.flow.event(node))
            self._guarded_calls.setdefault(called, []).append(guarded)

    @staticmethod
    def _reads_without_map_location(call: cst.Call) -> bool:
        if has_star_kwargs(call) or any(argument.star == "*" for argument in call.args):
            return False
        return argument_for(call, 1, "map_location") is None and loaded_path(call) is not None

    def leave_Module(self, original_node: cst.Module) -> None:
        if not (self._distributed and self._on_cuda and self._loads):
            return
        saves = [(save, file_keys(self.context, path)) for save in self._saves if (path := saved_path(save)) is not None and _writes_state(self.context, save)]
        for load in self._loads:
            keys = file_keys(self.context, loaded_path(load))  # type: ignore[arg-type]
            save = next((save for save, saved in saves if saved & keys), None)
            if save is not None and self._every_rank_runs(load):
                line = self.context.line_of(save)
                replacement = with_keyword_appended(load, keyword("map_location", cst.SimpleString('"cpu"')))
                self.report(load, _MESSAGE.format(line=line), replacement=replacement)

    def _every_rank_runs(self, load: cst.Call) -> bool:
        """Whether the function holding the load runs on every rank: not decorated to run on
        one, and not called only under rank checks by the file."""
        function = self.context.binder.enclosing(load, cst.FunctionDef)
        if not isinstance(function, cst.FunctionDef):
            return True
        if any(runs_on_one_rank(decorator) for decorator in function.decorators):
            return False
        calls = self._guarded_calls.get(function.name.value, [])
        return not calls or not all(calls)


def _writes_state(context: LintContext, save: cst.Call) -> bool:
    """Whether a save writes a module's or an optimizer's ``state_dict()`` (which holds the
    tensors where the model lives), not a CPU copy or plain tensors."""
    value = saved_value(save)
    return value is not None and bool(state_dict_calls(context, value))


def _places_on_gpu(call: cst.Call) -> bool:
    """``m.cuda()``, ``m.to(local_rank)`` (a device index is a GPU), or ``DDP(m, device_ids=[...])``."""
    called = called_name(call)
    if called == "cuda" or keyword_argument(call, "device_ids") is not None:
        return True
    return called == "to" and len(call.args) == 1 and names_a_rank(call.args[0].value)


def _functions_defined(module: cst.Module) -> set[str]:
    """The names of the functions and methods a file defines at its top and in its classes."""
    names = set()
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            names.add(statement.name.value)
        elif isinstance(statement, cst.ClassDef):
            names.update(item.name.value for item in statement.body.body if isinstance(item, cst.FunctionDef))
    return names
