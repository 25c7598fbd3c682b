from __future__ import annotations

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.context import LintContext
from torchcheck.lint.distributed import DDP_CLASSES, is_ddp_name
from torchcheck.lint.nodes import dotted_name, method_call, source_text, subtree
from torchcheck.lint.rule import Invalid, Rule, Valid

_MESSAGE = (
    "`{call}` runs the model around `DistributedDataParallel`, and its result reaches `backward()` at line {line}: "
    "the gradients are never all-reduced, so each rank trains its own copy; call the DDP model itself"
)
# Methods of the wrapped module that are not a forward pass.
_NOT_FORWARD = frozenset(
    {"parameters", "named_parameters", "buffers", "named_buffers", "modules", "named_modules", "children", "named_children", "state_dict", "load_state_dict", "train"}
    | {"eval", "to", "cpu", "cuda", "half", "float", "apply", "zero_grad", "requires_grad_", "generate", "get_input_embeddings", "get_output_embeddings"}
)
_GRAPH_CUTS = frozenset({"detach", "item", "tolist", "numpy"})
_FOLLOWED_BINDINGS = 64  # `out = ...; loss = f(out); total = loss + ...` is followed this far


class DdpBypassedThroughModule(Rule):
    """
    ## What it does
    Checks for a forward pass run through `ddp_model.module(...)` (or a submodule,
    `ddp_model.module.encoder(...)`) whose result reaches `backward()`, also through a
    framework's unwrap (`accelerator.unwrap_model(model)(x)`, reaching
    `accelerator.backward(loss)`): the unwrapped model is the module inside the wrapper.
    The wrapper may be held in `self.model`, returned unwrapped by a method of the file
    (`self._bare_model()`), or be a model a multi-process framework prepared
    (`model = accelerator.prepare(model)`, then `model.module(x)`).

    ## Why is this bad?
    `DistributedDataParallel` all-reduces gradients through hooks that its own `forward`
    arms for the backward pass that follows. Calling the wrapped module directly skips
    that: `backward()` computes local gradients only, every rank steps its optimizer on its
    own shard of the data, and the replicas silently drift apart - multi-GPU training
    degrades to several independent single-GPU runs, with no error. Call the DDP model
    (`ddp_model(x)`); if a second entry point is needed, make it part of the wrapped
    module's `forward`.

    Uses of `.module` that are not a training forward are fine: `ddp_model.module.generate(...)`,
    `ddp_model.module.parameters()`, `ddp_model.module.state_dict()`, attributes, a method
    handed what the wrapper's own forward returned (`out = ddp_model(batch)`, then
    `ddp_model.module.calc_loss(batch, out)`), and calls whose result never reaches
    `backward()` (evaluation, logging). The rule follows names
    bound from `DistributedDataParallel(...)` in the file, and names bound to the model it
    wraps (`unwrapped = model.module if isinstance(model, DistributedDataParallel) else model`,
    or `type(model) == DDP` as the test), also through a function of the file that returns it
    (`unet = unwrap(unet)`).

    Test code (test functions and classes, files under a `tests/` folder) is not checked: a test reaches past the wrapper on purpose (to compare outputs, or to check that gradients are not synchronised).

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
    applies_in_tests = False
    name = "ddp-bypassed-through-module"
    message = "the forward runs around `DistributedDataParallel` through `.module`; its gradients are never all-reduced"
    required_text = (".module",)

    VALID = (
        Valid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel

class Method:
    def __init__(self, model, rank):
        self.model = DistributedDataParallel(model.to(rank), device_ids=[rank])
        self.hooks = [self]

    def training_step(self, batch, optimizer):
        out = self.model(batch)
        losses = self.model.module.calc_train_loss(batch, out)
        losses["loss"].backward()
        optimizer.step()
"""
        ),
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
from torch.nn.parallel import DistributedDataParallel

def rollout(model, prompts, optimizer):
    unwrapped = model.module if isinstance(model, DistributedDataParallel) else model
    completions = unwrapped.generate(prompts, max_new_tokens=64)
    loss = model(completions).loss
    loss.backward()
    optimizer.step()
    return unwrapped.state_dict()
"""
        ),
        Valid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel

def ppo_step(actor, critic, batch, optimizer):
    critic = DistributedDataParallel(critic)
    with torch.no_grad():
        old_values = critic.module(batch.states)
    baseline = critic.module(batch.states).detach()
    values = critic(batch.states)
    loss = ((values - (batch.returns - old_values - baseline)) ** 2).mean()
    loss.backward()
    optimizer.step()
"""
        ),
        Valid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

class Trainer:
    def __init__(self, model, rank):
        self.model = DDP(model.to(rank), device_ids=[rank])

    def _bare_model(self):
        return self.model.module

    def step(self, images, labels, optimizer):
        with torch.no_grad():
            targets = self._bare_model().teacher(images)
        loss = self.model(images, targets).loss
        loss.backward()
        optimizer.step()
        return self.model.module.state_dict()
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

class Agent:
    def __init__(self, policy, gpu, multi_gpu):
        self.multi_gpu = multi_gpu
        self.model = policy.to(gpu)
        if multi_gpu:
            self.model = DDP(self.model, device_ids=[gpu])

    def run(self, loader, optimizer):
        for batch in loader:
            if self.multi_gpu:
                model = self.model.module
            else:
                model = self.model
            loss = model.loss(*batch)  # TCK210
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
"""
        ),
        Invalid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel

class Trainer:
    def __init__(self, model, rank, world_size):
        self.model = model.to(rank)
        if world_size > 1:
            self.model = DistributedDataParallel(self.model, device_ids=[rank])

    @staticmethod
    def _train_step(batch, model, criterion):
        if hasattr(model, "module"):
            return model.module.train_step(batch, criterion)  # TCK210
        return model.train_step(batch, criterion)

    def _optimize(self, batch, model, optimizer, criterion):
        optimizer.zero_grad()
        outputs, losses = self._train_step(batch, model, criterion)
        losses["loss"].backward()
        optimizer.step()
        return outputs

    def train_epoch(self, loader, optimizer, criterion):
        for batch in loader:
            self._optimize(batch, self.model, optimizer, criterion)
"""
        ),
        Invalid(
            """
import torch.nn.functional as F
from accelerate import Accelerator
from torch.nn.parallel import DistributedDataParallel as DDP
def unwrap(model):
    return model.module if type(model) == DDP else model
def train(unet, loader, optimizer):
    accelerator = Accelerator()
    unet, optimizer, loader = accelerator.prepare(unet, optimizer, loader)
    unet = unwrap(unet)
    for latents, target in loader:
        loss = F.mse_loss(unet(latents), target)  # TCK210
        accelerator.backward(loss)
        optimizer.step()
"""
        ),
        Invalid(
            """
from accelerate import Accelerator

accelerator = Accelerator()
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
for x, y in loader:
    loss = criterion(model.module(x), y)  # TCK210
    accelerator.backward(loss)
    optimizer.step()
"""
        ),
        Invalid(
            """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

def wrap(module, device):
    return DDP(module.to(device), device_ids=[device])

def head_loss(head, features, target):
    predicted = head.module.predict(features)  # TCK210
    return torch.nn.functional.l1_loss(predicted, target)

def train(backbone, head, loader, optimizer, device):
    head = wrap(head, device)
    for x, y in loader:
        loss = head_loss(head, backbone(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""
        ),
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
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

def grpo_step(model, batch, optimizer):
    unwrapped = model.module if isinstance(model, DistributedDataParallel) else model
    logits = unwrapped(batch.tokens).logits  # TCK210
    loss = -(F.log_softmax(logits, dim=-1).mean() * batch.advantages).mean()
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
        Invalid(
            """
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

class Trainer:
    def __init__(self, model, rank):
        self.model = DDP(model.to(rank), device_ids=[rank])

    def _bare_model(self):
        return self.model.module if isinstance(self.model, DDP) else self.model

    def step(self, images, labels, optimizer):
        features = self.model.module.encoder(images)  # TCK210
        loss = self._bare_model().loss(features, labels)  # TCK210
        loss.backward()
        optimizer.step()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._reported: set[cst.Call] = set()
        self._without_grad: set[cst.Call] = set()  # bypasses run under no_grad: no graph to all-reduce

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.in_no_grad and self._is_bypass(node):
            self._without_grad.add(node)
        if not isinstance(node.func, cst.Attribute) or self.context.backward_subject(node) is None:
            return  # `loss.backward()`, `accelerator.backward(loss)` ...
        for bypass in self._bypasses_reaching(node):
            if bypass not in self._reported:
                self._reported.add(bypass)
                self.report(bypass, _MESSAGE.format(call=_head(bypass), line=self.context.line_of(node)))

    def _bypasses_reaching(self, backward: cst.Call) -> list[cst.Call]:
        """The ``.module`` calls in what ``backward`` is called on (and with), following the
        names it reads to the values that reach them, and calls of functions of the file to
        what they return."""
        found: list[cst.Call] = []
        seen: set[int] = set()
        pending: list[cst.CSTNode] = [backward]
        binder = self.context.binder
        while pending and len(seen) <= _FOLLOWED_BINDINGS:
            for node in _subtree(pending.pop()):
                if isinstance(node, cst.Call) and node not in self._without_grad and self._is_bypass(node):
                    found.append(node)
                elif isinstance(node, cst.Call) and (helper := references.called_function(binder, node)) is not None and id(helper) not in seen:
                    seen.add(id(helper))
                    pending.extend(value for value in references.returned_values(helper) if value is not None)
                elif isinstance(node, cst.Name):
                    for binding in binder.reaching(node):
                        if type(binding.node) is cst.Assign and id(binding.node) not in seen:
                            seen.add(id(binding.node))
                            pending.append(binding.node.value)  # type: ignore[attr-defined]
        return found

    def _is_bypass(self, call: cst.Call) -> bool:
        """``ddp.module(...)`` or ``ddp.module.part(...)`` with ``ddp`` a DDP wrapper, also
        through a name bound to the unwrapped model (deeper chains such as
        ``ddp.module.logit_scale.exp()`` are methods of what a part holds)."""
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value != "module":
            if func.attr.value in _NOT_FORWARD or self._handed_wrapper_output(call, func.value):
                return False
            func = func.value
        return self._unwraps_ddp(func, follow=True)

    def _handed_wrapper_output(self, call: cst.Call, unwrapped: cst.BaseExpression) -> bool:
        """``ddp.module.calc_train_loss(batch, out)`` after ``out = ddp(batch)``: the forward ran
        through the wrapper, and the method takes its outputs (a loss over them)."""
        wrapper = dotted_name(unwrapped.value) if isinstance(unwrapped, cst.Attribute) and unwrapped.attr.value == "module" else None
        values = [value for argument in call.args for value in ([argument.value] if type(argument.value) is not cst.Name else references.reaching_values(self.context.binder, argument.value))]  # type: ignore[arg-type]
        return wrapper is not None and any(type(value) is cst.Call and dotted_name(value.func) == wrapper for value in values)  # type: ignore[attr-defined]

    def _unwraps_ddp(self, expression: cst.BaseExpression, *, follow: bool) -> bool:
        """``ddp.module``, ``model.module if isinstance(model, DistributedDataParallel) else
        model``, or (with ``follow``) a name bound to one of them."""
        if isinstance(expression, cst.Attribute) and expression.attr.value == "module":
            return is_ddp_name(self.context, expression.value)
        if follow and isinstance(expression, cst.Call) and self._helper_unwraps(expression):
            return True
        unwrapped = method_call(expression)
        if unwrapped is not None:  # `accelerator.unwrap_model(model)`: the model without its DDP wrapper
            framework = self.context.framework_of(unwrapped[0])
            multi_process = framework is not None and not self.context.is_one_process_framework(unwrapped[0])
            return multi_process and unwrapped[1] in framework.unwrapping_methods  # type: ignore[union-attr]
        if isinstance(expression, cst.IfExp):
            return _unwraps_checked_wrapper(self.context, expression)
        if follow and isinstance(expression, cst.Name):  # one path is enough: `model = self.model.module` on the multi-GPU branch
            bindings = self.context.binder.reaching(expression)
            values = [binding.node.value for binding in bindings if type(binding.node) is cst.Assign and binding.target is binding.node.targets[0].target]  # type: ignore[attr-defined]
            return any(self._unwraps_ddp(value, follow=False) or isinstance(value, cst.Call) and self._helper_unwraps(value) for value in values)  # `unet = unwrap(unet)` too
        return False


    def _helper_unwraps(self, call: cst.Call) -> bool:
        """``self._get_model()``: a method or function of the file whose every ``return`` unwraps."""
        binder = self.context.binder
        helper = references.called_function(binder, call)
        returned = references.returned_values(helper) if helper is not None else []
        return bool(returned) and all(value is not None and self._unwraps_ddp(value, follow=False) for value in returned)


def _unwraps_checked_wrapper(context: LintContext, expression: cst.IfExp) -> bool:
    """``model.module if isinstance(model, DistributedDataParallel) else model``; the test may
    also be ``type(model) == DDP`` (or ``is``)."""
    body = expression.body
    checked = _wrapper_tested(context, expression.test)
    return checked is not None and isinstance(body, cst.Attribute) and body.attr.value == "module" and source_text(checked) == source_text(body.value)


def _wrapper_tested(context: LintContext, test: cst.BaseExpression) -> cst.BaseExpression | None:
    """The value ``test`` checks for a DDP wrapper around it."""
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and len(test.args) == 2:
        classes, name = test.args[1].value, test.func.value
        candidates = classes.elements if isinstance(classes, cst.Tuple) else [cst.Element(classes)]
        wraps_ddp = name == "isinstance" and any(context.qualified_name(element.value) in DDP_CLASSES for element in candidates)
        return test.args[0].value if wraps_ddp else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, (cst.Equal, cst.Is)):
        left = test.left
        typed = isinstance(left, cst.Call) and isinstance(left.func, cst.Name) and left.func.value == "type" and len(left.args) == 1
        return left.args[0].value if typed and context.qualified_name(test.comparisons[0].comparator) in DDP_CLASSES else None  # type: ignore[union-attr]
    return None


def _subtree(root: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes of ``root`` a gradient can flow through: not into functions, nor behind
    ``.detach()`` or ``.item()``."""
    def stops_the_gradient(node: cst.CSTNode) -> bool:
        cuts_the_graph = isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _GRAPH_CUTS
        return cuts_the_graph or isinstance(node, (cst.Lambda, cst.FunctionDef))

    return list(subtree(root, prune=stops_the_gradient, attribute_names=False))


def _head(call: cst.Call) -> str:
    """``model.module(...)`` for messages."""
    return f"{source_text(call.func)}(...)"
