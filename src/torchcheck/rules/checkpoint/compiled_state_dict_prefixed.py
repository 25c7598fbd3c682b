from __future__ import annotations

import enum

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint import references
from torchcheck.lint.nodes import source_text, subtree
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.save_sites import file_keys, is_save, loaded_entry, loaded_path, mentions_string, same_entry, saved_path, saved_value, state_dict_calls

_COMPILE = frozenset({"torch.compile"})
_OPTIMIZE = frozenset({"torch._dynamo.optimize"})
_PREFIX = "_orig_mod"
_SAVED_COMPILED = (
    'this is the torch.compile wrapper\'s state_dict: every key starts with "_orig_mod."; line {line} loads it into '
    "`{target}`, which is not compiled — save the original module's state_dict() (or compile in place with model.compile())"
)
_LOADED_INTO_COMPILED = (
    'this torch.compile wrapper\'s load_state_dict expects keys that start with "_orig_mod."; the state dict saved at line '
    "{line} comes from the uncompiled `{source}` — load it into the original module (or compile in place with model.compile())"
)
_FOLLOWED = 3


class _Compiled(enum.Enum):
    SOMETIMES = "compiled on some path"
    NEVER = "built and never compiled"
    UNKNOWN = "unknown"


class CompiledStateDictPrefixed(Rule):
    """
    ## What it does
    Checks for the `state_dict()` of a `torch.compile(model)` wrapper saved to a checkpoint
    that the same file loads into a module that is never compiled, and for the reverse: a
    state dict saved from the plain module loaded into the compiled wrapper.

    ## Why is this bad?
    `torch.compile(model)` returns an `OptimizedModule` that holds `model` as its `_orig_mod`
    attribute, so every key of the wrapper's `state_dict()` starts with `_orig_mod.`.
    Loading such a checkpoint into the uncompiled model (a resume before compiling, an
    evaluation or export step) fails with missing and unexpected keys; with `strict=False`
    it loads nothing and leaves the model at its random initial weights. The reverse fails
    the same way. Save the original module's state (`model.state_dict()` of the module you
    compiled, or `compiled._orig_mod.state_dict()`), or compile in place with
    `model.compile()`, which keeps the keys.

    Compilation often sits behind a flag (`if cfg.compile: model = torch.compile(model)`): a
    save counts as the wrapper's when the module may be compiled on some path, also inside a
    function of the file that returns it (`losses, model = main(config)`). A file that
    rewrites keys with `_orig_mod` anywhere (stripping or adding the prefix) is not reported.

    ## Example
    ```python
    import torch

    from model import Net

    model = Net()
    if resume:
        model.load_state_dict(torch.load("last.pt", weights_only=True))
    if compile_model:
        model = torch.compile(model)
    train(model)
    torch.save(model.state_dict(), "last.pt")
    ```

    Use instead:
    ```python
    import torch

    from model import Net

    model = Net()
    if resume:
        model.load_state_dict(torch.load("last.pt", weights_only=True))
    if compile_model:
        model.compile()
    train(model)
    torch.save(model.state_dict(), "last.pt")
    ```

    ## Fix safety
    There is no automatic fix: checkpoints already written with the prefix still need it
    stripped, and other code may load them into a compiled wrapper.

    ## References
    - [Make compiled models serializable: the `_orig_mod.` prefix and its workarounds (pytorch/pytorch#101107)](https://github.com/pytorch/pytorch/issues/101107)
    - [Prefer `mod.compile()`: `torch.compile(mod)` checkpoints fail to load with `_orig_mod.` keys (pytorch/tutorials#3336)](https://github.com/pytorch/tutorials/pull/3336)
    - [`_orig_mod.` leakage: 163 missing keys, the model loads with random initialisation (FareedKhan-dev/train-llm-from-scratch#36)](https://github.com/FareedKhan-dev/train-llm-from-scratch/issues/36)
    """

    code = "TCK405"
    name = "compiled-state-dict-prefixed"
    message = (
        'this is the torch.compile wrapper\'s state_dict: every key starts with "_orig_mod."; it is loaded into the uncompiled '
        "model — save model.state_dict() (or use model.compile())"
    )
    required_text = ("torch.compile", "_dynamo.optimize")

    VALID = (
        Valid(
            """
import torch

class Evaluator:
    def __init__(self, net):
        self.net = net

    def save(self, path):
        torch.save(self.net.state_dict(), path)

    def load(self, path):
        self.net.load_state_dict(torch.load(path, weights_only=True))
        self.net = torch.compile(self.net)
"""
        ),
        Valid(
            """
import torch

model = Net()
model.load_state_dict(torch.load("last.pt", weights_only=True))
model.compile()
torch.save(model.state_dict(), "last.pt")
compiled = torch.compile(model)
torch.save(model.state_dict(), "last.pt")
torch.save(compiled._orig_mod.state_dict(), "last.pt")
"""
        ),
        Valid(
            """
import torch

model = torch.compile(Net())
model.load_state_dict(torch.load("last.pt", weights_only=True))
torch.save(model.state_dict(), "last.pt")
"""
        ),
        Valid(
            """
import torch

def export(path):
    net = Net()
    state = torch.load(path, weights_only=True)
    net.load_state_dict({k.removeprefix("_orig_mod."): v for k, v in state.items()})

model = torch.compile(Net())
torch.save(model.state_dict(), "last.pt")
"""
        ),
        Valid(
            """
import torch

def evaluate(model, path):
    model.load_state_dict(torch.load(path, weights_only=True))

model = torch.compile(Net())
torch.save({"model": model.state_dict()}, "last.pt")
teacher = Net()
teacher.load_state_dict(torch.load("teacher.pt", weights_only=True))
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from model import GPTModel

def main(config):
    model = GPTModel(config)
    model = torch.compile(model)
    losses = train(model, config)
    return losses, model

if __name__ == "__main__":
    losses, model = main(CONFIG)
    torch.save(model.state_dict(), "model.pth")  # TCK405
    model = GPTModel(CONFIG)
    model.load_state_dict(torch.load("model.pth", weights_only=True))
"""
        ),
        Invalid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = GPT()
if resume:
    model.load_state_dict(torch.load("ckpt.pt", weights_only=True)["model"])
if compile:
    model = torch.compile(model)
if ddp:
    model = DDP(model, device_ids=[rank])
raw_model = model.module if ddp else model
for step in range(steps):
    train_step(model)
    torch.save({"model": raw_model.state_dict()}, "ckpt.pt")  # TCK405
"""
        ),
        Invalid(
            """
import torch

model = Net()
if resume:
    model.load_state_dict(torch.load("last.pt", weights_only=True))
if compile_model:
    model = torch.compile(model)
train(model)
torch.save(model.state_dict(), "last.pt")  # TCK405
"""
        ),
        Invalid(
            """
import os

import torch

class Trainer:
    def __init__(self, config):
        self.model = build_model(config)
        if config.compile:
            self.model = torch.compile(self.model)

    def save(self, directory):
        checkpoint = {"model": self.model.state_dict(), "step": self.step}  # TCK405
        torch.save(checkpoint, os.path.join(directory, "ckpt.pt"))

def export(config, directory):
    net = build_model(config)
    checkpoint = torch.load(os.path.join(directory, "ckpt.pt"), weights_only=True)
    net.load_state_dict(checkpoint["model"], strict=False)
"""
        ),
        Invalid(
            """
import torch

net = Net()
torch.save(net.state_dict(), "init.pt")
compiled = torch.compile(Net())
compiled.load_state_dict(torch.load("init.pt", weights_only=True))  # TCK405
"""
        ),
    )

    @classmethod
    def may_fire_in(cls, text: str) -> bool:
        return "load_state_dict" in text and super().may_fire_in(text)

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._saves: list[cst.Call] = []
        self._loads: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "load_state_dict" and node.args:
            self._loads.append(node)
        elif is_save(self.context, node):
            self._saves.append(node)

    def leave_Module(self, original_node: cst.Module) -> None:
        if not self._saves or not self._loads or mentions_string(original_node, _PREFIX):
            return
        loads = [load for call in self._loads if (load := self._load_site(call)) is not None]
        reported: set[cst.Call] = set()
        for save in self._saves:
            value, path = saved_value(save), saved_path(save)
            if value is None or path is None:
                continue
            keys = file_keys(self.context, path)
            for state_dict, entry in state_dict_calls(self.context, value):
                source = state_dict.func.value  # type: ignore[attr-defined]
                saved = self._compiled(source)
                for call, target, loaded, loaded_keys, loaded_item in loads:
                    if not (keys & loaded_keys and same_entry(entry, loaded_item)):
                        continue
                    if saved is _Compiled.SOMETIMES and loaded is _Compiled.NEVER:
                        line = self.context.line_of(call)
                        self.report(state_dict, _SAVED_COMPILED.format(line=line, target=source_text(target)))
                        break
                    if saved is _Compiled.NEVER and loaded is _Compiled.SOMETIMES and call not in reported:
                        reported.add(call)
                        line = self.context.line_of(save)
                        self.report(call, _LOADED_INTO_COMPILED.format(line=line, source=source_text(source)))

    def _load_site(self, call: cst.Call):
        """``(call, target, compiled?, file keys, entry)`` for ``target.load_state_dict(v)``
        where ``v`` comes from ``torch.load``; None otherwise."""
        found = loaded_entry(self.context, call.args[0].value)
        if found is None or loaded_path(found[0]) is None:
            return None
        target = call.func.value  # type: ignore[attr-defined]
        keys = file_keys(self.context, loaded_path(found[0]))  # type: ignore[arg-type]
        return call, target, self._compiled(target), keys, found[1]

    def _compiled(self, module: cst.BaseExpression, depth: int = 0) -> _Compiled:
        """Whether the module a name or ``self.x`` holds is a ``torch.compile`` wrapper on some
        path, is built and never compiled, or is unknown (a parameter, anything else)."""
        values = [module] if isinstance(module, cst.Call) else self._values_of(module)
        if not values or depth > _FOLLOWED:
            return _Compiled.UNKNOWN
        verdicts = {self._compiled_value(value, depth) for value in values}
        if _Compiled.SOMETIMES in verdicts:
            return _Compiled.SOMETIMES
        return _Compiled.NEVER if verdicts == {_Compiled.NEVER} else _Compiled.UNKNOWN

    def _compiled_value(self, value: cst.BaseExpression, depth: int) -> _Compiled:
        if isinstance(value, cst.IfExp):
            branches = {self._compiled_value(value.body, depth), self._compiled_value(value.orelse, depth)}
            return _Compiled.SOMETIMES if _Compiled.SOMETIMES in branches else _Compiled.UNKNOWN
        if isinstance(value, cst.Name):  # `raw_model = model`
            return self._compiled(value, depth + 1)
        if isinstance(value, cst.Attribute) and value.attr.value == "module":  # `model.module` of `DDP(compiled)`
            return self._compiled(value.value, depth + 1)
        if not isinstance(value, cst.Call):
            return _Compiled.UNKNOWN
        if self._compiles(value):
            return _Compiled.SOMETIMES
        wrapped = value.args[0].value if value.args and not value.args[0].star else None
        compiled_inside = isinstance(wrapped, cst.Call) and self._compiles(wrapped)  # `DDP(torch.compile(m))`
        compiled_before = isinstance(wrapped, cst.Name) and self._compiled(wrapped, depth + 1) is _Compiled.SOMETIMES
        return _Compiled.SOMETIMES if compiled_inside or compiled_before else _Compiled.NEVER

    def _compiles(self, call: cst.Call) -> bool:
        """``torch.compile(m)`` or ``torch._dynamo.optimize(...)(m)``."""
        if self.context.call_name(call) in _COMPILE:
            return True
        return isinstance(call.func, cst.Call) and self.context.call_name(call.func) in _OPTIMIZE

    def _values_of(self, module: cst.BaseExpression) -> list[cst.BaseExpression]:
        """What the bindings of a name reaching here assign, or every ``self.x = ...`` of the
        enclosing class; empty when one of them is no plain assignment."""
        if isinstance(module, cst.Name) and (returned := references.returned_as(self.context.binder, module)):
            return [value for _, value in returned]  # `losses, model = main(config)`: what `main` returns there
        if isinstance(module, cst.Name):
            bindings = self.context.binder.bindings_before(module)
            plain = all(isinstance(binding.node, cst.Assign) for binding in bindings)
            return [binding.node.value for binding in bindings] if plain else []  # type: ignore[attr-defined]
        if isinstance(module, cst.Attribute) and isinstance(module.value, cst.Name) and module.value.value == "self":
            owner = self.context.binder.enclosing(module, cst.ClassDef)
            if owner is None:
                return []
            text = source_text(module)
            binder, function = self.context.binder, self.context.binder.enclosing(module, cst.FunctionDef)
            return [
                node.value
                for node in subtree(owner)
                if isinstance(node, cst.Assign)
                and any(source_text(target.target) == text for target in node.targets)
                # `self.net.load_state_dict(...)` then `self.net = torch.compile(self.net)`: the later
                # assignment of the same method does not reach the load (unless a loop brings it back)
                and not (binder.enclosing(node, cst.FunctionDef) is function and binder.precedes(module, node) and not binder.loops_around(node))
            ]
        return []
