from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext, source_text
from torchcheck.lint.distributed import is_ddp_name
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.walker import children

_MESSAGE = (
    "`{call}` runs the model around `DistributedDataParallel`, and its result reaches `backward()` at line {line}: "
    "the gradients are never all-reduced, so each rank trains its own copy; call the DDP model itself"
)
# Methods of the wrapped module that are not a forward pass.
_NOT_FORWARD = frozenset(
    {
        "parameters",
        "named_parameters",
        "buffers",
        "named_buffers",
        "modules",
        "named_modules",
        "children",
        "named_children",
        "state_dict",
        "load_state_dict",
        "train",
        "eval",
        "to",
        "cpu",
        "cuda",
        "half",
        "float",
        "apply",
        "zero_grad",
        "requires_grad_",
        "generate",
        "get_input_embeddings",
        "get_output_embeddings",
    }
)
_FOLLOWED_BINDINGS = 12  # `out = ...; loss = f(out); total = loss + ...` is followed this far


class DdpBypassedThroughModule(Rule):
    """
    ## What it does
    Checks for a forward pass run through `ddp_model.module(...)` (or a submodule,
    `ddp_model.module.encoder(...)`) whose result reaches `backward()`.

    ## Why is this bad?
    `DistributedDataParallel` all-reduces gradients through hooks that its own `forward`
    arms for the backward pass that follows. Calling the wrapped module directly skips
    that: `backward()` computes local gradients only, every rank steps its optimizer on its
    own shard of the data, and the replicas silently drift apart - multi-GPU training
    degrades to several independent single-GPU runs, with no error. Call the DDP model
    (`ddp_model(x)`); if a second entry point is needed, make it part of the wrapped
    module's `forward`.

    Uses of `.module` that are not a training forward are fine: `ddp_model.module.generate(...)`,
    `ddp_model.module.parameters()`, `ddp_model.module.state_dict()`, attributes, and calls
    whose result never reaches `backward()` (evaluation, logging). The rule follows names
    bound from `DistributedDataParallel(...)` in the file.

    ## Example
    ```python
    from torch.nn.parallel import DistributedDataParallel as DDP

    model = DDP(net, device_ids=[local_rank])
    for x, y in loader:
        loss = criterion(model.module(x), y)
        loss.backward()
        optimizer.step()
    ```

    Use instead:
    ```python
    from torch.nn.parallel import DistributedDataParallel as DDP

    model = DDP(net, device_ids=[local_rank])
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    ## Fix safety
    There is no automatic fix: the bypass may call a method other than `forward`, which has
    to become reachable through the wrapper's `forward` first.

    ## References
    - [Distributed Data Parallel design notes: gradient reduction hooks armed in `forward`](https://pytorch.org/docs/stable/notes/ddp.html)
    - [Route the RL trainer's forward through DDP so gradients all-reduce (jingyaogong/minimind#854)](https://github.com/jingyaogong/minimind/pull/854)
    - [`torch.nn.parallel.DistributedDataParallel`](https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html)
    """

    code = "TCK210"
    name = "ddp-bypassed-through-module"
    message = "the forward runs around `DistributedDataParallel` through `.module`; its gradients are never all-reduced"
    required_text = (".module",)

    VALID = (
        Valid(
            """
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(net, device_ids=[local_rank])
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""
        ),
        Valid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel

model = DistributedDataParallel(net)
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
with torch.no_grad():
    samples = model.module.generate(prompt, max_new_tokens=32)
    logits = model.module(prompt)
params = sum(p.numel() for p in model.module.parameters())
head_dim = model.module.head_dim
"""
        ),
        Valid(
            """
ema_model = ModelEmaV2(model)
for x, y in loader:
    loss = criterion(model(x), y) + distill(ema_model.module(x))
    loss.backward()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(net, device_ids=[local_rank])
for x, y in loader:
    loss = criterion(model.module(x), y)  # TCK210
    loss.backward()
    optimizer.step()
"""
        ),
        Invalid(
            """
import torch

def train(net, loader, optimizer, scaler):
    ddp = torch.nn.parallel.DistributedDataParallel(net)
    for images, texts in loader:
        image_features = ddp.module.encode_image(images)  # TCK210
        text_features = ddp(texts)
        loss = contrastive(image_features, text_features)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._reported: set[cst.Call] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if not (isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward"):
            return
        line = self.context.line_of(node)
        for bypass in self._bypasses_reaching(node):
            if bypass not in self._reported:
                self._reported.add(bypass)
                self.report(bypass, _MESSAGE.format(call=_head(bypass), line=line))

    def _bypasses_reaching(self, backward: cst.Call) -> list[cst.Call]:
        """The ``.module`` calls in what ``backward`` is called on (and with), following the
        names it reads back to the values they were last bound to."""
        found: list[cst.Call] = []
        seen: set[str] = set()
        pending: list[cst.CSTNode] = [backward]
        followed = 0
        while pending and followed <= _FOLLOWED_BINDINGS:
            for node in _subtree(pending.pop()):
                if isinstance(node, cst.Call) and self._is_bypass(node):
                    found.append(node)
                elif isinstance(node, cst.Name) and node.value not in seen:
                    seen.add(node.value)
                    binding = self.context.flow.last_binding(node.value)
                    if binding is not None and binding.value is not None:
                        pending.append(binding.value)
                        followed += 1
        return found

    def _is_bypass(self, call: cst.Call) -> bool:
        """``ddp.module(...)`` or ``ddp.module.part(...)`` with ``ddp`` a DDP wrapper (deeper
        chains such as ``ddp.module.logit_scale.exp()`` are methods of what a part holds)."""
        func = call.func
        if not isinstance(func, cst.Attribute):
            return False
        if func.attr.value != "module":
            if func.attr.value in _NOT_FORWARD or not isinstance(func.value, cst.Attribute):
                return False
            func = func.value
        return func.attr.value == "module" and is_ddp_name(self.context, func.value)


def _subtree(root: cst.CSTNode) -> list[cst.CSTNode]:
    nodes, stack = [], [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        if isinstance(node, cst.Attribute):
            stack.append(node.value)  # `loss.item`: the attribute name is not a variable
        elif not isinstance(node, (cst.Lambda, cst.FunctionDef)):
            stack.extend(children(node))
    return nodes


def _head(call: cst.Call) -> str:
    """``model.module(...)`` for messages."""
    return f"{source_text(call.func)}(...)"
