from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.dtensors import DTENSOR_TEXT, TOTAL_NORM_FIXED_IN, TOTAL_NORMS, dtensor_modules, local_read, narrowed_to_dtensor, owner_of_parameter, parameter_owners, tensor_norm_subject
from torchcheck.lint import references
from torchcheck.lint.nodes import argument_for, method_call, source_text
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.project import Condition
from torchcheck.lint.sharding import module_path, related, root_name, shardings_by
from torchcheck.lint.summaries import ResolvedCall

_MESSAGE = (
    "`{value}` is a DTensor holding a pending (partial) norm reduction over parameters that `{shard}` at line {line} "
    "shards; `{read}` reads this rank's shard norm — call .full_tensor() first"
)
_CALLERS_FOLLOWED = 2


@dataclass(frozen=True)
class _Shard:
    call: cst.Call
    path: str
    scope: cst.CSTNode  # the function (or module) whose names the path uses; a class for `self.` paths
    condition: Condition | None = None  # a helper of another file: the project must confirm it shards


@dataclass(frozen=True)
class _Norm:
    call: cst.Call
    owners: tuple[cst.BaseExpression, ...]  # the modules whose parameters it is taken over


class ShardedGradNormReadLocally(Rule):
    """
    ## What it does
    Checks for the norm of a sharded parameter or gradient (`p.grad.norm()`,
    `torch.linalg.vector_norm(p.grad)` over the parameters of a module given to
    `fully_shard`, `parallelize_module` or `distribute_module`, directly or through a helper
    of the project that calls `fully_shard` on what it is given) turned into a number or
    logged without `.full_tensor()`, also once put in a dict or list that is then logged
    (`norms[name] = p.grad.norm()`, then `wandb.log(norms)`), or after arithmetic
    (`(p.grad.norm() ** 2).item()`). A module a class stores (`self.model = model`) in the
    method that shards it (`fully_shard(model)`) is sharded in every method of the class.

    ## Why is this bad?
    The parameters of a sharded module are DTensors, and so are their gradients. The norm of
    one comes back as a DTensor whose placement is a pending norm reduction: its local value
    is only this rank's shard's norm, too small by up to √n for n shards and different on
    every rank. `.item()`, `float()`, `.to_local()`, f-strings and loggers read
    that local value, so logged per-layer gradient norms are wrong, and code that skips steps
    or raises alerts on them acts on the wrong number. `.full_tensor()` performs the
    reduction. Reads under an `isinstance(x, DTensor)` test are not reported.

    The total norm that `clip_grad_norm_` and `get_total_norm` return over such gradients
    was a pending reduction too in older PyTorch releases; recent releases (2.13 checked)
    return it already reduced, so reads of it are reported only when the project's
    `target-version` is older than 2.9.

    ## Example
    ```python
    import torch
    from torch.distributed.fsdp import fully_shard

    fully_shard(model)
    loss = model(batch).sum()
    loss.backward()
    for name, parameter in model.named_parameters():
        writer.add_scalar(f"grad_norm/{name}", parameter.grad.norm().item(), step)
    ```

    Use instead:
    ```python
    import torch
    from torch.distributed.fsdp import fully_shard

    fully_shard(model)
    loss = model(batch).sum()
    loss.backward()
    for name, parameter in model.named_parameters():
        writer.add_scalar(f"grad_norm/{name}", parameter.grad.norm().full_tensor().item(), step)
    ```

    ## Fix safety
    There is no automatic fix: `.full_tensor()` does not exist on the plain tensor the same
    code returns when it runs without sharding.

    ## References
    - [FSDP2: `total_norm` local 482.09 against `full_tensor()` 1052.59 (pytorch/pytorch#126457)](https://github.com/pytorch/pytorch/pull/126457)
    - [Logged `train/grad_norm` √(n_shards) too low on every FSDP configuration; fixed with `.full_tensor()` (radixark/miles_diffusion#35)](https://github.com/radixark/miles_diffusion/pull/35)
    - [`.item()` reads the local partial, `global_norm / sqrt(shard_size)` (hiyouga/LlamaFactory#10640)](https://github.com/hiyouga/LlamaFactory/pull/10640)
    """

    code = "TCK213"
    name = "sharded-grad-norm-read-locally"
    message = "the norm is a DTensor holding a pending (partial) reduction; reading it reads this rank's shard norm — call .full_tensor() first"
    required_text = DTENSOR_TEXT

    VALID = (
        Valid(
            """
import wandb
from torch.distributed.fsdp import fully_shard

def step(model, batch):
    fully_shard(model)
    model(batch).sum().backward()
    norms = {}
    for name, p in model.named_parameters():
        norms[f"grad_norm/{name}"] = p.grad.norm().full_tensor()
    wandb.log(norms)
"""
        ),
        Valid(
            """
import torch
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor

fully_shard(model)
model(batch).sum().backward()
norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).full_tensor().item()
for name, parameter in model.named_parameters():
    layer_norm = parameter.grad.norm()
    if isinstance(layer_norm, DTensor):
        layer_norm = layer_norm.full_tensor()
    print(name, layer_norm.item())
"""
        ),
        Valid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

ddp_model = DDP(model)
ddp_model(batch).sum().backward()
for parameter in ddp_model.parameters():
    print(parameter.grad.norm().item())
norm = torch.nn.utils.clip_grad_norm_(ddp_model.parameters(), 1.0)
log(norm.item())
"""
        ),
        Valid(
            """
import torch
from torch.distributed.fsdp import fully_shard

fully_shard(model)
model(batch).sum().backward()
grads = [parameter.grad for parameter in model.parameters()]
total = torch.nn.utils.get_total_norm(grads)
torch.nn.utils.clip_grads_with_norm_(model.parameters(), 1.0, total)
print(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch.distributed.fsdp import fully_shard

class Trainer:
    def __init__(self, model, mesh):
        fully_shard(model, mesh=mesh)
        self.model = model

    def grad_norms(self):
        squares = []
        for p in self.model.parameters():
            if p.grad is not None:
                squares.append((p.grad.norm() ** 2).item())  # TCK213
        return squares
"""
        ),
        Invalid(
            """
import wandb
from torch.distributed.fsdp import fully_shard

def step(model, batch):
    fully_shard(model)
    model(batch).sum().backward()
    norms = {}
    for name, p in model.named_parameters():
        norms[f"grad_norm/{name}"] = p.grad.norm()
    wandb.log(norms)  # TCK213
"""
        ),
        Invalid(
            """
from torch.distributed.fsdp import fully_shard

def parallelize(model):
    for layer in model.layers:
        fully_shard(layer)
    fully_shard(model)

def step(model, batch, logger):
    parallelize(model)
    model(batch).sum().backward()
    for name, p in model.named_parameters():
        logger.log({name: p.grad.norm().item()})  # TCK213
"""
        ),
        Invalid(
            """
import torch
from torch.distributed.fsdp import fully_shard

for layer in model.layers:
    fully_shard(layer)
fully_shard(model)
model(batch).sum().backward()
for name, parameter in model.named_parameters():
    writer.add_scalar(f"grad_norm/{name}", parameter.grad.norm().item(), step)  # TCK213
"""
        ),
        Invalid(
            """
import torch
import wandb
from torch.distributed.tensor.parallel import ColwiseParallel, parallelize_module

def log_layer_norms(model, step):
    norms = {name: torch.linalg.vector_norm(p.grad) for name, p in model.named_parameters()}
    for name, parameter in model.named_parameters():
        norm = torch.linalg.vector_norm(parameter.grad)
        wandb.log({f"grad/{name}": float(norm)}, step=step)  # TCK213

def train(model, mesh, batches):
    parallelize_module(model, mesh, {"w1": ColwiseParallel()})
    for step, batch in enumerate(batches):
        model(batch).sum().backward()
        log_layer_norms(model, step)
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._shards: list[_Shard] = []
        self._norms: list[_Norm] = []
        self._calls: list[tuple[cst.Call, ResolvedCall]] = []  # calls to functions of this file
        self._total_norms = self.context.settings.target_version is not None and self.context.settings.target_version < TOTAL_NORM_FIXED_IN

    def visit_Call(self, node: cst.Call) -> None:
        direct = dtensor_modules(self.context, node)
        for path in direct:
            self._shards.append(_Shard(node, path, self._scope_of(path)))
        # a helper that shards what it is given (`parallelize(model)`), of this file or another
        for sharding in shardings_by(self.context, node, fsdp2_only=True) if not direct else ():
            for path in sharding.paths:
                self._shards.append(_Shard(node, path, self._scope_of(path), sharding.condition))
        subject = tensor_norm_subject(self.context, node)
        owner = owner_of_parameter(self.context, subject) if subject is not None else None
        if owner is not None:
            self._norms.append(_Norm(node, (owner,)))
        elif self._total_norms and self.context.call_name(node) in TOTAL_NORMS:
            argument = argument_for(node, 0, "parameters")
            if argument is not None and not argument.star:
                self._norms.append(_Norm(node, tuple(parameter_owners(self.context, argument.value))))
        resolved = self.context.resolve_call(node)
        if resolved is not None and resolved.arguments is not None:
            self._calls.append((node, resolved))

    def _scope_of(self, path: str) -> cst.CSTNode:
        if root_name(path) == "self" and self.context.current_class is not None:
            return self.context.current_class
        return self.context.flow.function or self.context.binder.module_scope.node

    def leave_Module(self, original_node: cst.Module) -> None:
        for norm in self._norms:
            shard = next((found for owner in norm.owners if (found := self._sharding(owner, norm.call, 0)) is not None), None)
            if shard is None:
                continue
            for value, read in self._reads(norm.call):
                line = self.context.line_of(shard.call)
                shard_text = source_text(shard.call.func)
                message = _MESSAGE.format(value=_short(value), shard=shard_text, line=line, read=_short(read))
                self.report(read, message, conditions=(shard.condition,) if shard.condition is not None else ())

    def _sharding(self, owner: cst.BaseExpression, at: cst.CSTNode, depth: int) -> _Shard | None:
        """The sharding call that makes ``owner``'s parameters DTensors before ``at``: in the
        same function (any method of the class for ``self.`` paths), or in a caller that
        passes the sharded module for one of the function's parameters."""
        path = module_path(self.context, owner)
        if path is None:
            return None
        function = self.context.binder.enclosing(at, cst.FunctionDef)
        scope = self.context.binder.enclosing(at, cst.ClassDef) if root_name(path) == "self" else function
        scope = scope or self.context.binder.module_scope.node
        for shard in self._shards:
            same_place = shard.scope is scope and (isinstance(scope, cst.ClassDef) or self.context.binder.precedes(shard.call, at))
            if same_place and related(shard.path, path):
                return shard
        if isinstance(scope, cst.ClassDef) and (stored := self._stored_sharded(path, scope)) is not None:
            return stored
        if not isinstance(function, cst.FunctionDef) or depth >= _CALLERS_FOLLOWED:
            return None
        for call, resolved in self._calls:
            passed = resolved.arguments.get(root_name(path)) if resolved.function is function and resolved.arguments else None
            if passed is not None and (found := self._sharding(passed, call, depth + 1)) is not None:
                return found
        return None

    def _stored_sharded(self, path: str, owner: cst.ClassDef) -> _Shard | None:
        """``self.model`` stored from a module the same method shards: ``fully_shard(model)``
        and ``self.model = model`` (in place: in either order) make the same module sharded."""
        attribute = path.split(".")[1].split("[")[0]
        for value in self.context.values_stored_in(owner, attribute):
            method, stored = self.context.binder.enclosing(value, cst.FunctionDef), module_path(self.context, value)
            whole = f"{stored}{path[len('self.' + attribute):]}" if stored is not None and root_name(stored) != "self" else None
            found = (shard for shard in self._shards if whole is not None and shard.scope is method and related(shard.path, whole))
            if (shard := next(found, None)) is not None:
                return shard
        return None

    def _reads(self, norm: cst.Call) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
        """Where the norm is read as this rank's number: at once, or through the name it is
        bound to while that binding alone reaches the read."""
        binder = self.context.binder
        read = local_read(self.context, norm)
        if read is not None:
            return [(norm, read)]
        container = self._container_holding(norm)
        if container is not None:
            return self._container_reads(norm, container)
        assignment = references.assignment_of(binder, norm)
        target = assignment.targets[0].target if assignment is not None else None
        binding = binder.binding_made_by(target) if isinstance(target, cst.Name) else None
        function = binder.enclosing(norm, cst.FunctionDef) or binder.module_scope.node
        if binding is None or narrowed_to_dtensor(self.context, binding.name, function):
            return []
        return [
            (reference, found)
            for reference in binder.references_to(binding)
            if binder.bindings_before(reference) == [binding] and (found := local_read(self.context, reference)) is not None
        ]

    def _container_holding(self, norm: cst.Call) -> cst.Name | None:
        """``norms`` for ``norms[name] = p.grad.norm()`` and ``norms.append(p.grad.norm())``."""
        assignment = references.assignment_of(self.context.binder, norm)
        if assignment is not None:
            target = assignment.targets[0].target
            return target.value if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) else None
        call = references.argument_of(self.context.binder, norm)
        appended = method_call(call) if call is not None else None
        return appended[0] if appended is not None and appended[1] == "append" and isinstance(appended[0], cst.Name) else None

    def _container_reads(self, norm: cst.Call, container: cst.Name) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
        """Where a container the norm was put in is read as numbers, after the norm went in."""
        binder = self.context.binder
        bindings = binder.bindings_before(container)
        if len(bindings) != 1:
            return []
        return [
            (norm, found)
            for reference in binder.references_to(bindings[0])
            if binder.precedes(norm, reference) and (found := local_read(self.context, reference)) is not None
        ]


def _short(node: cst.CSTNode) -> str:
    text = source_text(node)
    return text if len(text) <= 40 else text[:37] + "..."
