from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import Event
from torchcheck.lint.nodes import one_line
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.project import Condition
from torchcheck.lint.sharding import ddp_only_sync_deferral, module_path, root_name, shardings_by

_DIRECT = (
    "`{call}`: a fully_shard model has no `no_sync()` (DistributedDataParallel's), so this raises AttributeError "
    "— use {model}.set_requires_gradient_sync(is_last_microbatch)"
)
_THROUGH_HELPER = (
    "`{call}` defers gradient sync only when `{test}` (line {line}); on this fully_shard model it does nothing "
    "and every micro-batch still reduce-scatters — use {model}.set_requires_gradient_sync(is_last_microbatch)"
)


@dataclass(frozen=True)
class _Shard:
    event: Event
    paths: tuple[str, ...]
    condition: Condition | None  # a helper of another file: the project must confirm it shards


class DdpNoSyncOnFullySharded(Rule):
    """
    ## What it does
    Checks for DistributedDataParallel's `no_sync()` used to defer gradient synchronisation
    in an accumulation loop on a model sharded with `fully_shard` (FSDP2), directly or
    through a helper that calls it only for `DistributedDataParallel` models.

    ## Why is this bad?
    FSDP2 modules have no `no_sync()`: called directly it raises `AttributeError`. A helper
    guarded by `isinstance(model, DistributedDataParallel)` or `hasattr(model, "no_sync")`
    silently does nothing instead, so every micro-batch still reduce-scatters its gradients:
    accumulation enlarges the batch but saves none of the communication it was meant to
    save (NVIDIA measured four micro-batches at about four times the single-step time).
    FSDP2's equivalent is `model.set_requires_gradient_sync(is_last_microbatch)` (and
    `set_requires_all_reduce` for HSDP).

    `FullyShardedDataParallel` (FSDP1) has its own `no_sync()` and is not reported, nor are
    DDP models, Accelerate's `accumulate()`, or an FSDP2 loop that syncs every micro-batch.

    ## Example
    ```python
    from torch.distributed.fsdp import fully_shard

    def train(model, loader, optimizer, accumulation_steps):
        fully_shard(model)
        for step, (x, y) in enumerate(loader):
            last = (step + 1) % accumulation_steps == 0
            if last:
                model(x).sub(y).pow(2).mean().backward()
                optimizer.step()
                optimizer.zero_grad()
            else:
                with model.no_sync():
                    model(x).sub(y).pow(2).mean().backward()
    ```

    Use instead:
    ```python
    from torch.distributed.fsdp import fully_shard

    def train(model, loader, optimizer, accumulation_steps):
        fully_shard(model)
        for step, (x, y) in enumerate(loader):
            last = (step + 1) % accumulation_steps == 0
            model.set_requires_gradient_sync(last)
            model(x).sub(y).pow(2).mean().backward()
            if last:
                optimizer.step()
                optimizer.zero_grad()
    ```

    ## Fix safety
    There is no automatic fix: the flag telling the last micro-batch apart is the loop's.

    ## References
    - [`ddp_sync_grad` is a silent no-op for `fully_shard` modules (NVIDIA/cosmos-framework#161)](https://github.com/NVIDIA/cosmos-framework/issues/161)
    - [FSDP2's `FSDPModule` has no `no_sync()`; call `set_requires_gradient_sync(False)` (huggingface/accelerate#3760)](https://github.com/huggingface/accelerate/pull/3760)
    - [`FSDPModule.set_requires_gradient_sync`](https://docs.pytorch.org/docs/stable/distributed.fsdp.fully_shard.html)
    """

    code = "TCK214"
    name = "ddp-no-sync-on-fully-sharded"
    message = "DDP's no_sync() on a fully_shard model defers nothing; use model.set_requires_gradient_sync(is_last_microbatch)"
    required_text = ("no_sync", "require_backward_grad_sync")  # the model may be sharded by an imported helper

    VALID = (
        Valid(
            """
from torch.distributed.fsdp import fully_shard

def train(model, loader, optimizer, n):
    fully_shard(model)
    for i, (x, y) in enumerate(loader):
        last = (i + 1) % n == 0
        model.set_requires_gradient_sync(last)
        model(x).sub(y).pow(2).mean().backward()
        if last:
            optimizer.step()
            optimizer.zero_grad()
"""
        ),
        Valid(
            """
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, fully_shard

def train(net, encoder, loader, optimizer, n):
    fully_shard(encoder)
    model = FSDP(net)
    for i, (x, y) in enumerate(loader):
        if (i + 1) % n != 0:
            with model.no_sync():
                model(x).sub(y).pow(2).mean().backward()
            continue
        model(x).sub(y).pow(2).mean().backward()
        optimizer.step()
        optimizer.zero_grad()
"""
        ),
        Valid(
            """
import contextlib
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.distributed.fsdp import fully_shard

def maybe_no_sync(model, sync):
    if not sync and isinstance(model, DDP):
        return model.no_sync()
    return contextlib.nullcontext()

def train(net, loader, optimizer, n, encoder):
    fully_shard(encoder)
    model = DDP(net)
    for i, (x, y) in enumerate(loader):
        with maybe_no_sync(model, (i + 1) % n == 0):
            model(x).sub(y).pow(2).mean().backward()
        if (i + 1) % n == 0:
            optimizer.step()
            optimizer.zero_grad()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import contextlib
from torch.distributed.fsdp import fully_shard

def maybe_no_sync(model, sync):
    if sync or not hasattr(model, "no_sync"):
        return contextlib.nullcontext()
    return model.no_sync()

def train(model, loader, optimizer, n):
    fully_shard(model)
    for i, (x, y) in enumerate(loader):
        with maybe_no_sync(model, (i + 1) % n == 0):  # TCK214
            model(x).sub(y).pow(2).mean().backward()
        if (i + 1) % n == 0:
            optimizer.step()
            optimizer.zero_grad()
"""
        ),
        Invalid(
            """
from torch.distributed.fsdp import fully_shard

def train(model, loader, optimizer, n):
    fully_shard(model)
    for i, (x, y) in enumerate(loader):
        if (i + 1) % n != 0:
            with model.no_sync():  # TCK214
                model(x).sub(y).pow(2).mean().backward()
            continue
        model(x).sub(y).pow(2).mean().backward()
        optimizer.step()
        optimizer.zero_grad()
"""
        ),
        Invalid(
            """
import contextlib
import torch
from torch.distributed.fsdp import fully_shard

@contextlib.contextmanager
def ddp_sync_grad(model, enabled):
    if isinstance(model, torch.nn.parallel.DistributedDataParallel):
        old = model.require_backward_grad_sync
        model.require_backward_grad_sync = enabled
        try:
            yield
        finally:
            model.require_backward_grad_sync = old
    else:
        yield

def train(model, loader, optimizer, n):
    for block in model.blocks:
        fully_shard(block)
    fully_shard(model)
    for i, batch in enumerate(loader):
        with ddp_sync_grad(model, (i + 1) % n == 0):  # TCK214
            model(batch).mean().backward()
        if (i + 1) % n == 0:
            optimizer.step()
            optimizer.zero_grad()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._shards: list[_Shard] = []

    def visit_Call(self, node: cst.Call) -> None:
        shardings = shardings_by(self.context, node, fsdp2_only=True, through_helpers=True)
        for sharding in shardings:
            self._shards.append(_Shard(self.context.flow.event(node), sharding.paths, sharding.condition))
        if shardings:
            return
        if not self.context.loops or not self._shards:
            return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "no_sync":
            shard = self._fully_sharded(node.func.value)
            if shard is not None:
                self._report(node, _DIRECT.format(call=one_line(node), model=shard.paths[0]), shard)
            return
        self._helper(node)

    def _helper(self, call: cst.Call) -> None:
        resolved = self.context.resolve_call(call)
        if resolved is None or resolved.arguments is None:
            return
        deferral = ddp_only_sync_deferral(self.context, resolved.function)
        passed = resolved.arguments.get(deferral[0]) if deferral is not None else None
        shard = self._fully_sharded(passed) if passed is not None else None
        if deferral is not None and shard is not None:
            test = deferral[1]
            line = self.context.line_of(test)
            self._report(call, _THROUGH_HELPER.format(call=one_line(call), test=one_line(test), line=line, model=shard.paths[0]), shard)

    def _report(self, node: cst.Call, message: str, shard: _Shard) -> None:
        self.report(node, message, conditions=(shard.condition,) if shard.condition is not None else ())

    def _fully_sharded(self, expression: cst.BaseExpression) -> _Shard | None:
        """The sharding of the module ``expression`` names, when it was passed to ``fully_shard``
        earlier in this function, on the way here, and not re-bound since (a sharding the
        project must confirm comes last); its path comes first."""
        path = module_path(self.context, expression)
        if path is None:
            return None
        here = self.context.flow.event(expression)
        found = [
            shard
            for shard in self._shards
            if path in shard.paths
            and shard.event.function is here.function
            and not shard.event.exclusive_with(here)
            and not self._rebound_between(root_name(path), shard.event.node, expression)
        ]
        shard = min(found, key=lambda shard: shard.condition is not None, default=None)
        return replace(shard, paths=(path,)) if shard is not None else None

    def _rebound_between(self, name: str, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        binder = self.context.binder
        return any(
            binder.precedes(first, binding.node) and binder.precedes(binding.node, second)
            for binding in binder.bindings_of(name, binder.scope_of(second))
        )
