from __future__ import annotations

import libcst as cst

from torchcheck.lint.buffers import ComputedBuffer, computed_non_persistent_buffers, methods_reaching, submodule_classes
from torchcheck.lint.exports import COMPUTED_BUFFER, project_class_of
from torchcheck.lint.nodes import subtree
from torchcheck.lint.project import PLACE, YES, Condition
from torchcheck.lint.rule import Invalid, Rule, Valid

_MESSAGE = (
    "to_empty() leaves {owner}.{buffer} (non-persistent, computed in __init__ at line {line}) uninitialised, "
    "and no checkpoint restores it; recompute it after to_empty (e.g. in init_weights)"
)
# `model.apply(fn)` runs an unknown function on every submodule: it may recompute anything.
_RUNS_ANY_INIT = "apply"
# A module loaded from a state dict is finished: no caller re-initialises it (that would
# overwrite the loaded weights), and the state dict holds no non-persistent buffer.
_LOADS = "load_state_dict"
# Methods called on a materialised model that compute no buffer.
_NOT_INITIALISING = frozenset({_LOADS, "to", "cuda", "cpu", "train", "eval", "half", "float", "bfloat16", "requires_grad_", "parameters", "named_parameters", "state_dict"})
_MESSAGE_ELSEWHERE = (
    "to_empty() leaves {place} (a non-persistent buffer that `{owner}` computes in __init__) uninitialised, "
    "and no checkpoint restores it; recompute it after to_empty (e.g. in init_weights)"
)


def _own_code(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))


class BufferUninitializedAfterToEmpty(Rule):
    """
    ## What it does
    Checks for `module.to_empty(device=...)` on a module whose classes (of this file) compute
    a non-persistent buffer in `__init__` - RoPE's `inv_freq`, cos/sin tables, causal masks -
    when nothing after `to_empty` recomputes it.

    ## Why is this bad?
    `to_empty` allocates every parameter and buffer on the device without initialising it;
    the usual meta-device recipe then fills the parameters from a checkpoint or an init
    function. A buffer registered with `persistent=False` is in no state dict, so no
    checkpoint load restores it: unless init code computes it again, it holds whatever the
    allocator returned. Usually that is finite garbage - rotary embeddings rotate by
    meaningless frequencies and training starts from a far worse loss with no error -
    sometimes NaN. Recompute such buffers in a method you call after `to_empty` (torchtitan's
    `init_weights`, `reset_parameters`).

    The classes may live in another file of the project: a model built from an imported class
    (`model = TextModel(cfg)`, or annotated `model: TextModel`) is reported when the project
    shows that class (or a module class of its file that it builds) computing such a buffer,
    and nothing but loads and moves is called on the model after `to_empty`.

    A later `model.apply(fn)`, a call that hands the model to code of another module, or
    returning it may recompute the buffers and is trusted to; a state-dict load is not, and a
    model returned after one is finished (re-initialising it would overwrite the loaded
    weights). A recomputing method counts when called on the model or on one of its
    submodules (`model.rotary_emb.reset_parameters()`).

    ## Example
    ```python
    import torch
    import torch.nn as nn


    class RotaryEmbedding(nn.Module):
        def __init__(self, dim, base=10000.0):
            super().__init__()
            inv_freq = 1.0 / base ** (torch.arange(0, dim, 2).float() / dim)
            self.register_buffer("inv_freq", inv_freq, persistent=False)


    class Model(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.rope = RotaryEmbedding(dim)
            self.proj = nn.Linear(dim, dim)


    with torch.device("meta"):
        model = Model(64)
    model.to_empty(device="cpu")
    model.load_state_dict(torch.load("model.pt", weights_only=True))
    ```

    Use instead:
    ```python
    import torch
    import torch.nn as nn


    class RotaryEmbedding(nn.Module):
        def __init__(self, dim, base=10000.0):
            super().__init__()
            self.dim, self.base = dim, base
            self.register_buffer("inv_freq", self._inv_freq(), persistent=False)

        def _inv_freq(self):
            return 1.0 / self.base ** (torch.arange(0, self.dim, 2).float() / self.dim)

        def reset_parameters(self):
            self.inv_freq.copy_(self._inv_freq())


    class Model(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.rope = RotaryEmbedding(dim)
            self.proj = nn.Linear(dim, dim)

        def init_weights(self):
            self.rope.reset_parameters()
            self.proj.reset_parameters()


    with torch.device("meta"):
        model = Model(64)
    model.to_empty(device="cpu")
    model.init_weights()
    model.load_state_dict(torch.load("model.pt", weights_only=True))
    ```

    ## Fix safety
    There is no automatic fix: the buffer's formula lives in the class's `__init__`, and
    where to recompute it is the author's choice.

    ## References
    - [pytorch/torchtitan#4783: rotary `inv_freq` uninitialised after `to_empty()`](https://github.com/pytorch/torchtitan/issues/4783)
    - [Synthyra/FastPLMs#47: a non-persistent `inv_freq` materialised from meta is uninitialised memory](https://github.com/Synthyra/FastPLMs/pull/47)
    - [huggingface/transformers#34234: `inv_freq` left uninitialised by `init_empty_weights` + `to_empty`](https://github.com/huggingface/transformers/issues/34234)
    - [`torch.nn.Module.to_empty`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.to_empty)
    """

    code = "TCK612"
    name = "buffer-uninitialized-after-to-empty"
    message = "to_empty() leaves a non-persistent buffer computed in __init__ uninitialised"
    required_text = ("to_empty",)

    VALID = (
        Valid(
            """
import torch
import torch.nn as nn

class Rope(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.register_buffer("inv_freq", self._frequencies(), persistent=False)

    def _frequencies(self):
        return 1.0 / 10000 ** (torch.arange(0, self.dim, 2).float() / self.dim)

    def reset_parameters(self):
        self.inv_freq.copy_(self._frequencies())

class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.rope = Rope(dim)

def materialise(dim, state_dict):
    with torch.device("meta"):
        model = Model(dim)
    model.to_empty(device="cuda")
    model.rope.reset_parameters()
    model.load_state_dict(state_dict, strict=False)
    return model
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

class Rope(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("freqs", torch.arange(dim).float(), persistent=False)

class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.rope = Rope(dim)

    def init_weights(self):
        self.rope.freqs = torch.arange(self.rope.freqs.numel()).float()

with torch.device("meta"):
    model = Model(8)
model.to_empty(device="cpu")
model.init_weights()
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("mask", torch.ones(dim, dim).tril(), persistent=False)

with torch.device("meta"):
    model = Block(8)
model.to_empty(device="cpu")
model.apply(lambda m: m.reset_parameters() if hasattr(m, "reset_parameters") else None)
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("running", torch.zeros(dim))

with torch.device("meta"):
    model = Block(8)
model.to_empty(device="cpu")
model.load_state_dict(state)
"""
        ),
        Valid(
            """
import torch
from transformers import AutoModelForCausalLM

with torch.device("meta"):
    model = AutoModelForCausalLM.from_config(config)
model.to_empty(device="cuda")
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("mask", torch.ones(dim, dim).tril(), persistent=False)

def build(dim):
    with torch.device("meta"):
        model = Block(dim)
    model.to_empty(device="cpu")
    return model
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
import torch.nn as nn

class Rope(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / 10000 ** (torch.arange(0, dim, 2).float() / dim), persistent=False)

class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.rope = Rope(dim)

def materialise(dim, state_dict):
    with torch.device("meta"):
        model = Model(dim)
    model.to_empty(device="cuda")  # TCK612
    model.load_state_dict(state_dict, strict=False)
    return model
"""
        ),
        Invalid(
            """
import torch
import torch.nn as nn

class RotaryEmbedding(nn.Module):
    def __init__(self, dim, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / base ** (torch.arange(0, dim, 2).float() / dim)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

class Transformer(nn.Module):
    def __init__(self, dim, n_layers):
        super().__init__()
        self.rope = RotaryEmbedding(dim)
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(n_layers)])

    def init_weights(self):
        for layer in self.layers:
            layer.reset_parameters()

with torch.device("meta"):
    model = Transformer(64, 2)
model.to_empty(device="cuda")  # TCK612
model.init_weights()
model.load_state_dict(torch.load("ckpt.pt", weights_only=True))
"""
        ),
        Invalid(
            """
import torch
import torch.nn as nn
from torch.distributed.checkpoint.state_dict import set_model_state_dict

class Attention(nn.Module):
    def __init__(self, seq_len):
        super().__init__()
        self._build_mask(seq_len)

    def _build_mask(self, seq_len):
        self.register_buffer("causal_mask", torch.ones(seq_len, seq_len).tril().bool(), persistent=False)

def main(seq_len, state_dict):
    with torch.device("meta"):
        model = Attention(seq_len)
    model.to_empty(device="cuda")  # TCK612
    set_model_state_dict(model, state_dict)
    return model(torch.zeros(1, seq_len))
"""
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._classes: dict[str, cst.ClassDef] = {}
        self._to_empty: list[cst.Call] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if self.context.is_module_class(node):
            self._classes[node.name.value] = node

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "to_empty" and isinstance(func.value, cst.Name):
            self._to_empty.append(node)

    def leave_Module(self, node: cst.Module) -> None:
        for call in self._to_empty:
            receiver = call.func.value  # type: ignore[attr-defined]
            built = self._class_built_into(receiver)
            if built is None:
                self._class_of_another_file(call, receiver)
                continue
            tree = self._tree(built)
            buffers = [buffer for name in sorted(tree) for buffer in computed_non_persistent_buffers(self._classes[name])]
            uncovered = self._not_recomputed(call, receiver, buffers, [self._classes[name] for name in tree])
            if uncovered:
                first = uncovered[0]
                line = self.context.line_of(first.registration)
                self.report(call, _MESSAGE.format(owner=first.owner, buffer=first.name, line=line))

    def _class_of_another_file(self, call: cst.Call, receiver: cst.Name) -> None:
        """A model of a class another file defines: reported if the project shows that class
        computing a non-persistent buffer, when nothing after ``to_empty`` may recompute it
        (no method of the model other than a load or a move is called, and it goes nowhere)."""
        owner = project_class_of(self.context, receiver.value, call)
        called = self._called_after(call, receiver) if owner is not None else None
        if owner is not None and called is not None and not called - _NOT_INITIALISING:
            message = _MESSAGE_ELSEWHERE.format(owner=owner.name, place=PLACE)
            self.report(call, message, conditions=(Condition(owner, COMPUTED_BUFFER, YES),))

    def _class_built_into(self, receiver: cst.Name) -> str | None:
        """The class of this file every reaching binding of ``receiver`` constructs."""
        built = set()
        for binding in self.context.binder.bindings_before(receiver):
            value = binding.node.value if isinstance(binding.node, cst.Assign) else None
            if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in self._classes):
                return None
            built.add(value.func.value)
        return built.pop() if len(built) == 1 else None

    def _tree(self, root: str) -> set[str]:
        tree, pending = set(), [root]
        while pending:
            name = pending.pop()
            if name not in tree:
                tree.add(name)
                pending.extend(submodule_classes(self._classes[name], set(self._classes)))
        return tree

    def _not_recomputed(
        self, call: cst.Call, receiver: cst.Name, buffers: list[ComputedBuffer], classes: list[cst.ClassDef]
    ) -> list[ComputedBuffer]:
        """The buffers that no later statement of the scope recomputes; none when the model
        leaves the scope or goes to code that may initialise it."""
        called = self._called_after(call, receiver)
        if called is None:
            return []
        return [buffer for buffer in buffers if not called & methods_reaching(classes, buffer.name)]

    def _called_after(self, call: cst.Call, receiver: cst.Name) -> set[str] | None:
        """The methods called on the model (or a submodule of it) after ``to_empty`` in its
        scope; None when it leaves the scope or goes to code that may initialise it."""
        binder = self.context.binder
        scope = binder.scope_of(call).node
        body = scope if isinstance(scope, cst.Module) else getattr(scope, "body", scope)
        called: set[str] = set()
        for later in subtree(body, _own_code):
            if not isinstance(later, (cst.Call, cst.Return, cst.Yield)) or later is call or not binder.precedes(call, later):
                continue
            if isinstance(later, (cst.Return, cst.Yield)) and _names(later.value, receiver.value) and _LOADS not in called:
                return None  # handed on to code that may initialise it (not once loaded: it is finished)
            if not isinstance(later, cst.Call):
                continue
            func = later.func
            if isinstance(func, cst.Attribute) and _part_of(func.value, receiver.value):  # `model.rope.reset()` too
                if func.attr.value == _RUNS_ANY_INIT:
                    return None
                called.add(func.attr.value)
            elif any(_names(argument.value, receiver.value) for argument in later.args) and not self._is_torch(func):
                return None
        return called

    def _is_torch(self, func: cst.BaseExpression) -> bool:
        qualified = self.context.qualified_name(func)
        return qualified is not None and qualified.startswith("torch.")


def _names(expression: cst.BaseExpression | None, name: str) -> bool:
    """``expression`` is the module ``name``, or a method chain on it (``model.cuda()``)."""
    while isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute):
        expression = expression.func.value
    return isinstance(expression, cst.Name) and expression.value == name


def _part_of(expression: cst.BaseExpression, name: str) -> bool:
    """``expression`` is the module ``name`` or a submodule of it (``model.layers[0].rope``)."""
    while isinstance(expression, (cst.Attribute, cst.Subscript)):
        expression = expression.value
    return isinstance(expression, cst.Name) and expression.value == name
