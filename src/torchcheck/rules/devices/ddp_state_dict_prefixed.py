from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.distributed import ddp_wraps_in_attribute, is_ddp_name, is_ddp_wrap, strips_module_prefix
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import self_attribute, source_text
from torchcheck.lint.references import runs_before_through_methods
from torchcheck.lint.rule import Invalid, Rule, Valid

_MESSAGE = (
    "`{model}.state_dict()` of the `DistributedDataParallel` wrapper is saved with keys prefixed `module.`, "
    "and line {line} loads the checkpoint into the bare model (`{target}.load_state_dict`), which rejects "
    "them; save `{model}.module.state_dict()`"
)
_LOAD = "torch.load"
_NOT_MODULES = frozenset({Kind.OPTIMIZER, Kind.SCHEDULER, Kind.SCALER, Kind.DATALOADER, Kind.SAMPLER})
_FOLLOWED = 3  # `state = {...}; checkpoint = state; torch.save(checkpoint, path)`


@dataclass(frozen=True)
class _Saved:
    call: cst.Call  # the `state_dict()` call
    model: str
    key: str | None  # the checkpoint entry it is stored under; None: the whole file


@dataclass(frozen=True)
class _Loaded:
    call: cst.Call  # the `load_state_dict(...)` call
    target: str
    key: str | None


class DdpStateDictPrefixed(Rule):
    """
    ## What it does
    Checks for the `state_dict()` of a `DistributedDataParallel` wrapper saved to a
    checkpoint that the same file loads into the bare model, with nothing stripping the
    `module.` prefix from its keys. The model may be an attribute of a trainer class that
    re-binds it to the wrapper on one path (`self.model = DDP(self.model)` when running
    distributed), with the checkpoint loaded by a method the class only runs before that.

    ## Why is this bad?
    `DistributedDataParallel` holds the real model as its `module` attribute, so every key
    of its `state_dict()` starts with `module.` (`module.fc.weight`). Loading such a
    checkpoint into the unwrapped model - to resume before wrapping, evaluate, or export -
    fails with "Missing key(s) ... Unexpected key(s)", or, with `strict=False`, silently
    loads nothing and leaves the model at its initial weights. Save the wrapped model's
    own state, `ddp_model.module.state_dict()`, which loads anywhere (and into a fresh DDP
    wrapper through its `module`).

    A file that strips the prefix anywhere (`k.replace("module.", "")`, `k[7:]`,
    `consume_prefix_in_state_dict_if_present`) is not reported, nor are checkpoints loaded
    back into the DDP wrapper.

    ## Example
    ```python
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    from model import Net

    model = Net()
    if resume:
        model.load_state_dict(torch.load("last.pt", weights_only=True))
    model = DDP(model, device_ids=[local_rank])
    train(model)
    torch.save(model.state_dict(), "last.pt")
    ```

    Use instead:
    ```python
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    from model import Net

    model = Net()
    if resume:
        model.load_state_dict(torch.load("last.pt", weights_only=True))
    model = DDP(model, device_ids=[local_rank])
    train(model)
    torch.save(model.module.state_dict(), "last.pt")
    ```

    ## Fix safety
    There is no automatic fix: checkpoints already written with the prefix still need it
    stripped, and other code may load them into a wrapper.

    ## References
    - [`DistributedDataParallel`: a non-DDP model loads a DDP state dict after `consume_prefix_in_state_dict_if_present`](https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html)
    - [Convenience function for loading a non-DP/DDP model from a DP/DDP state_dict (pytorch/pytorch#41048)](https://github.com/pytorch/pytorch/issues/41048)
    - [DDP prefixes state_dict with `module.*` (NVIDIA/apex#647)](https://github.com/NVIDIA/apex/issues/647)
    """

    code = "TCK209"
    name = "ddp-state-dict-prefixed"
    message = "the DDP wrapper's `state_dict()` is saved with `module.`-prefixed keys and loaded into the bare model"
    required_text = ("load_state_dict",)

    VALID = (
        Valid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

def train(model, args, path):
    if args.restart_from:
        model.load_state_dict(torch.load(args.restart_from, weights_only=True))
    if args.distributed:
        model = DDP(model, device_ids=[args.local_rank])
    fit(model)
    if args.distributed:
        torch.save(model.module.state_dict(), path)
    else:
        torch.save(model.state_dict(), path)
"""
        ),
        Valid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = Net()
if resume:
    model.load_state_dict(torch.load("last.pt", weights_only=True))
model = DDP(model, device_ids=[local_rank])
train(model)
torch.save(model.module.state_dict(), "last.pt")
"""
        ),
        Valid(
            """
import torch

model = torch.nn.parallel.DistributedDataParallel(Net())
if args.resume:
    checkpoint = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(checkpoint["state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer"])
save_checkpoint({"state_dict": model.state_dict(), "optimizer": optimizer.state_dict()})
"""
        ),
        Valid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

def export(path):
    net = Net()
    state = torch.load(path, map_location="cpu")["model"]
    state = {k.replace("module.", ""): v for k, v in state.items()}
    net.load_state_dict(state)

model = DDP(Net())
torch.save({"model": model.state_dict()}, "ckpt.pt")
"""
        ),
        Valid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(Net())
torch.save({"model": model.state_dict(), "ema": ema.state_dict()}, "ckpt.pt")
ema_model = Net()
ema_model.load_state_dict(torch.load("ckpt.pt")["ema"])
"""
        ),
        Valid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel

class Trainer:
    def __init__(self, model, config):
        self.model = model
        if config.distributed:
            self.model = DistributedDataParallel(self.model)
        if config.resume:
            self.load(config.resume)

    def load(self, path):
        self.model.load_state_dict(torch.load(path, weights_only=True)["model"])

    def save(self, path):
        torch.save({"model": self.model.state_dict()}, path)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from apex.parallel import DistributedDataParallel as DDP

def train(loader):
    model = DDP(Net().cuda(), delay_allreduce=True)
    fit(model, loader)
    torch.save(model.state_dict(), "net.pth")  # TCK209

def infer(images):
    model = Net()
    model.load_state_dict(torch.load("net.pth", map_location="cpu", weights_only=True))
    return model(images)
"""
        ),
        Invalid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = Net()
if resume:
    model.load_state_dict(torch.load("last.pt", weights_only=True))
model = DDP(model, device_ids=[local_rank])
train(model)
torch.save(model.state_dict(), "last.pt")  # TCK209
"""
        ),
        Invalid(
            """
import torch
import torch.distributed as dist

def main(args):
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(build_model(args))
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model.module.load_state_dict(checkpoint["model"])
    for epoch in range(args.epochs):
        train_one_epoch(model, epoch)
        state = {"model": model.state_dict(), "epoch": epoch}  # TCK209
        if dist.get_rank() == 0:
            torch.save(state, "checkpoint.pth")
"""
        ),
        Invalid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel

class Trainer:
    def __init__(self, model, config):
        self.model = model
        if config.checkpoint:
            self.load_pretrained(config.checkpoint)
        if config.distributed:
            self.model = DistributedDataParallel(self.model, device_ids=[config.local_rank])

    def load_pretrained(self, path):
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
        self.model.load_state_dict(checkpoint["state_dict"])

    def save(self, path):
        torch.save({"state_dict": self.model.state_dict()}, path)  # TCK209
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._saved: list[_Saved] = []
        self._loaded: list[_Loaded] = []

    def visit_Call(self, node: cst.Call) -> None:
        if node.args and self._saves(node):
            self._saved.extend(self._ddp_state_dicts(node.args[0].value, None, 0))
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "load_state_dict" and node.args:
            loaded = self._bare_load(node)
            if loaded is not None:
                self._loaded.append(loaded)

    def _saves(self, call: cst.Call) -> bool:
        """``torch.save(...)`` or a helper named ``save...`` (``save_checkpoint``, ``utils.save_on_master``)."""
        qualified = self.context.qualified_name(call.func)
        if qualified is None and isinstance(call.func, cst.Attribute):
            qualified = call.func.attr.value
        return qualified is not None and (qualified == "torch.save" or qualified.rsplit(".", 1)[-1].startswith("save"))

    def _ddp_state_dicts(self, value: cst.BaseExpression, key: str | None, depth: int) -> list[_Saved]:
        """``ddp.state_dict()`` calls in a saved value: the value itself, entries of a dict
        literal, or the value a name saved was bound to."""
        if isinstance(value, cst.Call) and _method(value) == "state_dict" and not value.args:
            receiver = value.func.value  # type: ignore[attr-defined]
            if is_ddp_name(self.context, receiver):
                return [_Saved(value, source_text(receiver), key)]
            return []
        if isinstance(value, cst.Dict):
            found = []
            for element in value.elements:
                if isinstance(element, cst.DictElement):
                    found.extend(self._ddp_state_dicts(element.value, _string(element.key), depth))
            return found
        if isinstance(value, cst.Name) and depth < _FOLLOWED:
            binding = self.context.flow.last_binding(value.value)
            if binding is not None and binding.value is not None:
                return self._ddp_state_dicts(binding.value, key, depth + 1)
        return []

    def _bare_load(self, call: cst.Call) -> _Loaded | None:
        """``net.load_state_dict(torch.load(...)[key])`` into a model that is not the DDP
        wrapper: its ``module``, or a name bound here to something else."""
        target = call.func.value  # type: ignore[attr-defined]
        if isinstance(target, cst.Attribute) and target.attr.value == "module":
            pass
        elif self_attribute(target) is not None:
            wraps = ddp_wraps_in_attribute(self.context, self_attribute(target))  # type: ignore[arg-type]
            if not wraps or not runs_before_through_methods(self.context.binder, call, wraps, self.context.current_class):  # type: ignore[arg-type]
                return None
        elif isinstance(target, cst.Name):
            binding = self.context.flow.last_binding(target.value)
            if binding is None or binding.value is None or is_ddp_wrap(self.context, binding.value):
                return None  # a parameter (maybe the wrapper), or the wrapper itself
            if self.context.kind_of(target) in _NOT_MODULES:
                return None
        else:
            return None
        key = self._loaded_key(call.args[0].value, 0)
        if key is None:
            return None
        return _Loaded(call, source_text(target), key[0])

    def _loaded_key(self, value: cst.BaseExpression, depth: int) -> tuple[str | None] | None:
        """``(key,)`` when ``value`` comes from ``torch.load`` (``checkpoint["model"]`` after
        ``checkpoint = torch.load(...)``); None when it does not come from a file."""
        if isinstance(value, cst.Call):
            return (None,) if self.context.qualified_name(value.func) == _LOAD else None
        if isinstance(value, cst.Subscript) and len(value.slice) == 1:
            index = value.slice[0].slice
            inner = self._loaded_key(value.value, depth)
            if inner is None or not isinstance(index, cst.Index):
                return None
            return (_string(index.value),)
        if isinstance(value, cst.Name) and depth < _FOLLOWED:
            binding = self.context.flow.last_binding(value.value)
            if binding is not None and binding.value is not None:
                return self._loaded_key(binding.value, depth + 1)
        return None

    def leave_Module(self, original_node: cst.Module) -> None:
        if not self._saved or not self._loaded or strips_module_prefix(original_node):
            return
        for saved in self._saved:
            load = next((load for load in self._loaded if _same_entry(saved.key, load.key)), None)
            if load is not None:
                line = self.context.line_of(load.call)
                self.report(saved.call, _MESSAGE.format(model=saved.model, line=line, target=load.target))


def _same_entry(saved: str | None, loaded: str | None) -> bool:
    return saved is None or loaded is None or saved == loaded


def _method(call: cst.Call) -> str | None:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def _string(expression: cst.BaseExpression | None) -> str | None:
    if isinstance(expression, cst.SimpleString):
        return expression.evaluated_value if isinstance(expression.evaluated_value, str) else None
    return None
