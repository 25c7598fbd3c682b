from __future__ import annotations

import re

import libcst as cst

from torchcheck.lint.binder import Loop
from torchcheck.lint.losses import LossFacts, is_token_mean
from torchcheck.lint.nodes import dotted_name, source_text, subtree
from torchcheck.lint.rule import Invalid, Rule, Valid

_MESSAGE = (
    "loss is a per-token mean over this micro-batch's unmasked tokens; dividing by {divisor} weights tokens "
    "of short micro-batches more — sum the token losses and divide by the window's token count"
)
# Names of a count of micro-batches: `accum_steps`, `args.gradient_accumulation_steps`, `n_micro`.
_MICRO_BATCH_COUNT = re.compile(r"accum|micro|grad_acc|\bga_steps", re.IGNORECASE)
# Tests that let only some iterations step: `(i + 1) % accum == 0`, `accelerator.sync_gradients`.
_ACCUMULATION_TEST = re.compile(r"%|accum|sync_grad|(?:should|do|need|time_to)_?(?:step|update|optim)", re.IGNORECASE)
_CASTS = frozenset({"float", "int"})


def _nested_scope(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))


def _calls_method(root: cst.CSTNode, method: str, *, outside: cst.CSTNode | None = None) -> bool:
    """Whether ``root`` calls ``.method(...)``, not counting calls inside ``outside``."""
    prune = lambda node: _nested_scope(node) or node is outside  # noqa: E731
    return any(
        isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == method and node is not outside
        for node in subtree(root, prune)
    )


def _accumulation_gates(loop: Loop) -> list[cst.If]:
    """The ``if`` statements of the loop body that step only on some iterations."""
    return [
        node
        for node in subtree(loop.body, _nested_scope)
        if isinstance(node, cst.If) and _ACCUMULATION_TEST.search(source_text(node.test)) and _calls_method(node.body, "step")
    ]


class AccumulationAveragesTokenMeans(Rule):
    """
    ## What it does
    Checks for gradient-accumulation loops that divide a per-token mean loss (a masked
    `cross_entropy` with `ignore_index` or `-100` labels, `(l * mask).sum() / mask.sum()`) by
    the number of micro-batches.

    ## Why is this bad?
    Each micro-batch's mean divides by its own number of unmasked tokens, and averaging `K`
    such means is not the mean over all tokens of the window: `(x1/n1 + x2/n2) / 2` differs
    from `(x1 + x2) / (n1 + n2)` unless `n1 == n2`. The accumulated gradient is then not the
    full-batch gradient: tokens of short micro-batches weigh more, and the update depends on
    how examples fall into micro-batches. Sum the token losses (`reduction="sum"`) and divide
    by the number of target tokens in the whole accumulation window (across ranks too).

    The rule is opt-in: with packed, unmasked sequences every micro-batch holds the same
    number of tokens and the division is exact; whether counts vary is a property of the data.

    ## Example
    ```python
    import torch.nn.functional as F

    for step, batch in enumerate(loader):
        logits = model(batch["input_ids"])
        loss = F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten(), ignore_index=-100)
        (loss / accumulation_steps).backward()
        if (step + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    ```

    Use instead:
    ```python
    import torch.nn.functional as F

    for step, batch in enumerate(loader):
        logits = model(batch["input_ids"])
        loss = F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten(), ignore_index=-100, reduction="sum")
        (loss / window_token_count).backward()  # target tokens of the whole accumulation window
        if (step + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    ```

    ## Fix safety
    There is no automatic fix: the window's token count must be computed ahead of the
    micro-batches (and summed across ranks), which changes the loop.

    ## References
    - [meta-pytorch/torchtune#1875: normalise cross-entropy by the non-padding tokens of the whole accumulation window](https://github.com/meta-pytorch/torchtune/pull/1875)
    - [ml-explore/mlx-lm#1413: per-micro-batch token means divided by a fixed accumulation count bias the update](https://github.com/ml-explore/mlx-lm/pull/1413)
    - [karpathy/nanochat#59: gradient accumulation with variable-length sequences: sum, then divide by tokens](https://github.com/karpathy/nanochat/pull/59)
    """

    code = "TCK118"
    name = "accumulation-averages-token-means"
    message = "Per-token mean loss divided by the number of micro-batches; short micro-batches weigh more per token"
    default_enabled = False
    required_text = ("backward",)

    VALID = (
        Valid(
            """
import torch.nn.functional as F
for step, (x, y) in enumerate(loader):
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1)) / accum
    loss.backward()
    if (step + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
"""
        ),
        Valid(
            """
import torch.nn.functional as F
for step, batch in enumerate(loader):
    logits = model(batch["input_ids"])
    loss = F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten(), ignore_index=-100, reduction="sum") / num_items_in_batch
    loss.backward()
    if (step + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
"""
        ),
        Valid(
            """
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y) / accum_steps
    loss.backward()
    if (step + 1) % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
"""
        ),
        Valid(
            """
import torch.nn.functional as F
for x, y in loader:
    loss = F.cross_entropy(model(x), y, ignore_index=pad_id) / temperature
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn.functional as F
for step, batch in enumerate(loader):
    logits = model(batch["input_ids"])
    loss = F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten(), ignore_index=-100)
    (loss / accumulation_steps).backward()  # TCK118
    if (step + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
"""
        ),
        Invalid(
            """
for batch in loader:
    for micro in batch.split(micro_batch_size):
        per_token = model(micro.input_ids, reduction="none")
        loss = (per_token * micro.mask).sum() / micro.mask.sum()
        loss = loss / len(micro_batches)  # TCK118
        loss.backward()
    optimizer.step()
    optimizer.zero_grad()
"""
        ),
        Invalid(
            """
import torch.nn as nn
import torch.nn.functional as F
criterion = nn.CrossEntropyLoss(ignore_index=tokenizer.pad_token_id)
for step, (x, y, teacher_logits) in enumerate(loader):
    logits = model(x)
    ce = criterion(logits.view(-1, vocab), y.view(-1))
    kl = F.kl_div(F.log_softmax(logits, -1), F.softmax(teacher_logits, -1), reduction="batchmean")
    loss = (alpha * ce + (1 - alpha) * kl) / args.gradient_accumulation_steps  # TCK118
    loss.backward()
    if (step + 1) % args.gradient_accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
"""
        ),
        Invalid(
            """
def collate(examples):
    labels = pad(examples)
    labels[labels == tokenizer.pad_token_id] = -100
    return {"input_ids": ids, "labels": labels}

for step, batch in enumerate(loader):
    outputs = model(**batch)
    loss = outputs.loss
    loss /= grad_accum  # TCK118
    loss.backward()
    if (step + 1) % grad_accum == 0:
        optimizer.step()
        optimizer.zero_grad()
"""
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._facts = LossFacts()
        self._divisions: list[tuple[cst.CSTNode, cst.BaseExpression, cst.BaseExpression, tuple[Loop, ...]]] = []

    def visit_Call(self, node: cst.Call) -> None:
        self._facts.note_call(self.context, node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self._facts.note_assignment(self.context, node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not self.context.loops:
            return
        if isinstance(node.operator, cst.Divide):
            self._divisions.append((node, node.left, node.right, self.context.loops))
        elif isinstance(node.operator, cst.Multiply):
            for loss, factor in ((node.left, node.right), (node.right, node.left)):
                if isinstance(factor, cst.BinaryOperation) and isinstance(factor.operator, cst.Divide) and _is_one(factor.left):
                    self._divisions.append((node, loss, factor.right, self.context.loops))  # loss * (1 / n)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self.context.loops and isinstance(node.operator, cst.DivideAssign):
            self._divisions.append((node, node.target, node.value, self.context.loops))

    def leave_Module(self, node: cst.Module) -> None:
        for division, loss, divisor, loops in self._divisions:
            if not self._counts_micro_batches(divisor, loops) or not self._accumulates(loops):
                continue
            if not is_token_mean(loss, self._facts, self.context.binder):  # the binder only now: it costs a walk
                continue
            self.report(division, _MESSAGE.format(divisor=f"`{source_text(divisor).strip()}`"))

    def _counts_micro_batches(self, divisor: cst.BaseExpression, loops: tuple[Loop, ...]) -> bool:
        """A loop-invariant number of micro-batches: a count named for it, the divisor of the
        accumulation test, or the length of what an inner loop iterates."""
        if isinstance(divisor, cst.Call) and dotted_name(divisor.func) in _CASTS and len(divisor.args) == 1:
            divisor = divisor.args[0].value
        if isinstance(divisor, cst.Call) and dotted_name(divisor.func) == "len" and len(divisor.args) == 1:
            return isinstance(divisor.args[0].value, (cst.Name, cst.Attribute))
        spelled = dotted_name(divisor)
        if spelled is None or self._bound_in(spelled.split(".")[0], divisor, loops[-1]):
            return False
        gates = [gate for loop in loops for gate in _accumulation_gates(loop)]
        return bool(_MICRO_BATCH_COUNT.search(spelled)) or any(spelled in source_text(gate.test) for gate in gates)

    def _bound_in(self, name: str, use: cst.BaseExpression, loop: Loop) -> bool:
        binder = self.context.binder
        bindings = binder.bindings_of(name, binder.scope_of(use))
        return any(loop in binder.ancestors(binding.node) or binding.node is loop for binding in bindings)

    @staticmethod
    def _accumulates(loops: tuple[Loop, ...]) -> bool:
        """Backward per micro-batch, and a step under an accumulation test or after an inner
        micro-batch loop."""
        inner = loops[-1]
        if not _calls_method(inner.body, "backward"):
            return False
        if _accumulation_gates(inner):
            return True
        return len(loops) > 1 and _calls_method(loops[-2].body, "step", outside=inner)


def _is_one(expression: cst.BaseExpression) -> bool:
    return isinstance(expression, (cst.Integer, cst.Float)) and float(expression.value) == 1.0
