from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import Event
from torchcheck.lint.nodes import source_text
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.project import Condition
from torchcheck.lint.sharding import module_path, optimized_paths, optimizers_stored_by, related, root_name, shardings_by

_BEFORE_SHARDING = (
    "optimizer is built from parameters that `{shard}` at line {line} replaces; "
    "it will step stale tensors — build it after sharding"
)
_AFTER_FORWARD = (
    "optimizer is built after `{forward}` at line {line} ran the fully_shard model, which leaves the root's "
    "parameters unsharded; it will step tensors the next all-gather replaces — build it before the first forward"
)


@dataclass(frozen=True)
class _Build:
    event: Event
    target: cst.BaseExpression  # the name or attribute the optimizer is bound to
    paths: tuple[str, ...]  # modules whose parameters it takes
    site: cst.CSTNode | None = None  # the construction, when a method of self builds it


@dataclass(frozen=True)
class _Shard:
    event: Event
    paths: tuple[str, ...]
    fsdp2: bool
    condition: Condition | None  # a helper of another file: the project must confirm it shards


@dataclass(frozen=True)
class _Forward:
    event: Event
    path: str
    condition: Condition | None  # the sharding of the module it runs, when another file decides it


class OptimizerBuiltBeforeSharding(Rule):
    """
    ## What it does
    Checks for an optimizer built from a module's parameters before `fully_shard` (or
    `FullyShardedDataParallel`) shards that module, and for one built after the
    `fully_shard` model already ran a forward.

    ## Why is this bad?
    `fully_shard` swaps every parameter it manages for a new `nn.Parameter` holding a
    sharded DTensor; `FullyShardedDataParallel` flattens them into new `FlatParameter`s. An
    optimizer built earlier keeps the old tensors: they take no part in forward or backward,
    never get a `.grad`, and `step()` skips them. The loss stays flat and nothing raises.
    After an FSDP2 forward, the root's parameters are left unsharded, so an optimizer built
    then holds tensors that the next all-gather replaces, and part of the model never
    updates. Build the optimizer from the sharded model's `parameters()`, after sharding and
    before the first forward.

    A project helper, of this file or another, that shards its argument (`parallelize(model)`) counts as sharding
    it, and a factory that builds the optimizer from its argument's `parameters()` counts
    as building it. `DistributedDataParallel`, `torch.compile`, `.to()` and
    `accelerator.prepare` keep the parameter objects and are not reported (so does
    `FullyShardedDataParallel(..., use_orig_params=True)`, as views), nor is an
    optimizer rebuilt after sharding, or one over a module that is never sharded. An
    optimizer stored on `self` in `__init__` is built before any other method of the class
    runs, so a method that shards the same `self.<module>` (and does not rebuild it) is
    reported too. A method of `self` that stores an optimizer (`self.create_optimizer()`)
    builds it where it is called (reported at its construction), and fairscale's
    `FullyShardedDataParallel` flattens like PyTorch's FSDP1 (unless `flatten_parameters=False`).

    ## Example
    ```python
    import torch
    from torch.distributed.fsdp import fully_shard

    def setup(model):
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
        for layer in model.layers:
            fully_shard(layer)
        fully_shard(model)
        return model, optimizer
    ```

    Use instead:
    ```python
    import torch
    from torch.distributed.fsdp import fully_shard

    def setup(model):
        for layer in model.layers:
            fully_shard(layer)
        fully_shard(model)
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
        return model, optimizer
    ```

    ## Fix safety
    There is no automatic fix: where the optimizer must be built depends on the project's
    setup order (learning-rate schedulers and checkpoint loading are built on it too).

    ## References
    - [FSDP2 `fully_shard`: the optimizer must be initialized with the DTensor `model.parameters()`](https://docs.pytorch.org/docs/stable/distributed.fsdp.fully_shard.html)
    - [Parameters not updating when the FSDP2 model is used before optimizer creation (pytorch/pytorch#149205)](https://github.com/pytorch/pytorch/issues/149205)
    - [Creating an optimizer before applying FSDP2 doesn't result in a working training loop (huggingface/accelerate#3394)](https://github.com/huggingface/accelerate/pull/3394)
    """

    code = "TCK211"
    name = "optimizer-built-before-sharding"
    message = "optimizer is built from parameters that fully_shard replaces; it will step stale tensors — build it after sharding"
    required_text = ("optim",)  # the model may be sharded by an imported helper

    VALID = (
        Valid(
            """
import torch
from torch.distributed.fsdp import fully_shard

class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.lr = lr
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr)

    def setup_distributed(self, mesh):
        fully_shard(self.model, mesh=mesh)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.lr)
"""
        ),
        Valid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

optimizer = torch.optim.AdamW(model.parameters())
model = DDP(model)
train(model, optimizer)
"""
        ),
        Valid(
            """
import torch
from torch.distributed.fsdp import fully_shard

optimizer = torch.optim.AdamW(model.parameters())
fully_shard(model)
optimizer = torch.optim.AdamW(model.parameters())
train(model, optimizer)
"""
        ),
        Valid(
            """
import torch
from torch.distributed.fsdp import fully_shard

optimizer = torch.optim.AdamW(head.parameters())
fully_shard(backbone)
train(backbone, head, optimizer)
"""
        ),
        Valid(
            """
import torch
from torch.distributed.fsdp import fully_shard

optimizer = torch.optim.AdamW(model.parameters())
model = torch.compile(model)
model, optimizer = accelerator.prepare(model, optimizer)
train(model, optimizer)
"""
        ),
        Valid(
            """
import torch
from torch.distributed.fsdp import fully_shard

def main(model, batch):
    for block in model.blocks:
        fully_shard(block)
    fully_shard(model)
    optimizer = torch.optim.AdamW(model.parameters())
    model(batch).sum().backward()
    optimizer.step()
"""
        ),
        Valid(
            """
import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

optimizer = torch.optim.AdamW(model.parameters())
model = FSDP(model, use_orig_params=True)
train(model, optimizer)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from fairscale.nn.data_parallel import FullyShardedDataParallel as FSDP

class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.lr = lr

    def create_optimizer(self):
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.lr)  # TCK211

    def wrap(self, model):
        return FSDP(model)

    def train(self, loader):
        self.create_optimizer()
        self.model = self.wrap(self.model.cuda())
        for batch in loader:
            self.model(batch).sum().backward()
            self.optimizer.step()
"""
        ),
        Invalid(
            """
import torch
from torch.distributed.fsdp import fully_shard

class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr)  # TCK211

    def setup_distributed(self, mesh):
        for block in self.model.blocks:
            fully_shard(block, mesh=mesh)
        fully_shard(self.model, mesh=mesh)
"""
        ),
        Invalid(
            """
import torch
from torch.distributed.fsdp import fully_shard

model = Transformer(config)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)  # TCK211
for layer in model.layers:
    fully_shard(layer)
fully_shard(model)
train(model, optimizer)
"""
        ),
        Invalid(
            """
import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

def setup(net, args):
    decay = [p for n, p in net.named_parameters() if p.ndim >= 2]
    rest = [p for n, p in net.named_parameters() if p.ndim < 2]
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=args.lr)  # TCK211
    model = FSDP(net, device_id=args.local_rank)
    return model, optimizer
"""
        ),
        Invalid(
            """
import torch
from torch.distributed.fsdp import fully_shard

def build_optimizer(model, lr):
    return torch.optim.AdamW(model.parameters(), lr=lr)

def parallelize(model, mesh):
    for block in model.blocks:
        fully_shard(block, mesh=mesh)
    fully_shard(model, mesh=mesh)

def main(model, mesh, loader):
    optimizer = build_optimizer(model, 1e-4)  # TCK211
    parallelize(model, mesh)
    for batch in loader:
        model(batch).sum().backward()
        optimizer.step()
"""
        ),
        Invalid(
            """
import torch
from torch.distributed.fsdp import fully_shard

def main(model, batch):
    fully_shard(model)
    with torch.no_grad():
        model(batch)
    optimizer = torch.optim.AdamW(model.parameters())  # TCK211
    model(batch).sum().backward()
    optimizer.step()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._builds: list[_Build] = []
        self._shards: list[_Shard] = []
        self._forwards: list[_Forward] = []

    def visit_Call(self, node: cst.Call) -> None:
        statement = self.context.statement_holding(node)
        paths = optimized_paths(self.context, node) if isinstance(statement, cst.Assign) else []
        if paths and isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            target = statement.targets[0].target
            if isinstance(target, (cst.Name, cst.Attribute)):
                self._builds.append(_Build(self.context.flow.event(node), target, tuple(paths)))
            return
        stored = optimizers_stored_by(self.context, node) if isinstance(statement, cst.Expr) else []
        for target, paths, built in stored:  # `self.create_optimizer()` stores one on self
            self._builds.append(_Build(self.context.flow.event(node), target, tuple(paths), built))
        if stored:
            return
        # a helper can only matter once an optimizer was built before it
        shardings = shardings_by(self.context, node, through_helpers=bool(self._builds))
        for sharding in shardings:
            self._shards.append(_Shard(self.context.flow.event(node), sharding.paths, sharding.fsdp2, sharding.condition))
        if shardings:
            return
        function = self.context.flow.function
        if not any(shard.fsdp2 and shard.event.function is function for shard in self._shards):
            return  # a call can only forward through a module this function sharded with fully_shard
        path = module_path(self.context, node.func) if isinstance(node.func, (cst.Name, cst.Attribute)) else None
        sharded = [shard for shard in self._shards if shard.fsdp2 and path in shard.paths and shard.event.function is function]
        if path is not None and sharded:  # sharded surely, or only if a helper of another file shards it
            condition = min(sharded, key=lambda shard: shard.condition is not None).condition
            self._forwards.append(_Forward(self.context.flow.event(node), path, condition))

    def leave_Module(self, node: cst.Module) -> None:
        for build in self._builds:
            shard = min((shard for shard in self._shards if self._replaces_after(build, shard)), key=lambda shard: shard.condition is not None, default=None)
            if shard is not None:
                message = _BEFORE_SHARDING.format(shard=_head(shard.event.node), line=self._line(shard.event))
                self.report(build.site or build.event.node, message, conditions=(shard.condition,) if shard.condition is not None else ())
                continue
            forward = next((forward for forward in self._forwards if self._ran_before(forward, build)), None)
            if forward is not None:
                message = _AFTER_FORWARD.format(forward=_head(forward.event.node), line=self._line(forward.event))
                self.report(build.site or build.event.node, message, conditions=(forward.condition,) if forward.condition is not None else ())

    def _replaces_after(self, build: _Build, shard: _Shard) -> bool:
        """Whether ``shard`` replaces parameters the optimizer of ``build`` took, after it, on
        the same pass, with the optimizer still the one used afterwards."""
        if not _same_pass(build.event, shard.event):
            return self._built_in_init_sharded_later(build, shard)
        if shard.event.order < build.event.order:
            return False
        shared = [path for path in build.paths if any(related(path, sharded) for sharded in shard.paths)]
        if not shared or all(self._rebound_between(root_name(path), build.event.node, shard.event.node) for path in shared):
            return False
        return self._still_used_after(build, shard.event)

    def _built_in_init_sharded_later(self, build: _Build, shard: _Shard) -> bool:
        """An optimizer stored on ``self`` in ``__init__`` from ``self.<module>``, which another
        method of the class shards (``__init__`` runs first), and never rebuilt."""
        init, binder = build.event.function, self.context.binder
        if not (isinstance(build.target, cst.Attribute) and isinstance(init, cst.FunctionDef) and init.name.value == "__init__"):
            return False
        owner = references.class_of_method(binder, init)
        if owner is None or binder.enclosing(shard.event.node, cst.ClassDef) is not owner:
            return False
        if not any(root_name(path) == "self" and related(path, sharded) for path in build.paths for sharded in shard.paths):
            return False
        text = source_text(build.target)
        return not any(other is not build and source_text(other.target) == text for other in self._builds)

    def _ran_before(self, forward: _Forward, build: _Build) -> bool:
        if not _same_pass(build.event, forward.event) or forward.event.order > build.event.order:
            return False
        return forward.path in build.paths and not self._rebound_between(root_name(forward.path), forward.event.node, build.event.node)

    def _rebound_between(self, name: str, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        binder = self.context.binder
        home = binder.statement_of(second)
        return any(
            binder.precedes(first, binding.node) and binder.precedes(binding.node, second) and binding.node is not home
            for binding in binder.bindings_of(name, binder.scope_of(first))
        )

    def _still_used_after(self, build: _Build, shard_event: Event) -> bool:
        """The optimizer's name is read after the sharding and not bound to another optimizer."""
        if isinstance(build.target, cst.Attribute):
            text = source_text(build.target)
            return not any(source_text(other.target) == text and other.event.order > shard_event.order for other in self._builds)
        shard = shard_event.node
        binder = self.context.binder
        binding = binder.binding_made_by(build.target)
        if binding is None:
            return False
        if any(binder.precedes(shard, other.node) for other in binder.bindings_of(binding.name, binding.scope)):
            return False  # rebuilt (or re-bound) after sharding
        return any(binder.precedes(shard, reference) for reference in binding.references)

    def _line(self, event: Event) -> int:
        return self.context.line_of(event.node)


def _same_pass(first: Event, second: Event) -> bool:
    return first.function is second.function and not first.exclusive_with(second)


def _head(call: cst.CSTNode) -> str:
    text = " ".join(source_text(call).split())
    return text if len(text) <= 40 else f"{source_text(call.func)}(...)"  # type: ignore[attr-defined]
