from __future__ import annotations

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import argument_for, keyword_argument, method_call, subtree
from torchcheck.lint.precision import HALF, cast_of, construction_of, dtype_of, module_precision, region_precision
from torchcheck.lint.rule import Invalid, Rule, Valid

_CROSS_ENTROPY = frozenset({"torch.nn.functional.cross_entropy"})
_NLL_LOSS = frozenset({"torch.nn.functional.nll_loss"})
_LOG_SOFTMAX = frozenset({"torch.nn.functional.log_softmax", "torch.log_softmax", "torch.special.log_softmax"})
_CROSS_ENTROPY_MODULES = frozenset({"torch.nn.CrossEntropyLoss", "torch.nn.modules.loss.CrossEntropyLoss"})
_SHARDING = frozenset({"torch.distributed.fsdp.fully_shard", "torch.distributed._composable.fsdp.fully_shard"})
_POLICIES = frozenset({"torch.distributed.fsdp.MixedPrecisionPolicy", "torch.distributed._composable.fsdp.MixedPrecisionPolicy"})
# Methods that reshape or move a tensor without changing its dtype.
_SAME_DTYPE_METHODS = frozenset(
    {"view", "reshape", "flatten", "contiguous", "transpose", "permute", "squeeze", "unsqueeze", "view_as", "reshape_as", "to", "cuda", "clone"}
)
# Model libraries whose forward returns logits in the dtype of the model's parameters.
_LIBRARIES = ("transformers.", "torch.", "timm.", "torchvision.")
_DEPTH = 6
_MESSAGE = (
    "logits reach cross_entropy in {dtype} outside autocast; the log-softmax, the loss and its gradient are "
    "computed and stored in {dtype} — call .float() on the logits first"
)


class LowPrecisionCrossEntropy(Rule):
    """
    ## What it does
    Checks for `cross_entropy` (the function, a `CrossEntropyLoss` instance, or
    `nll_loss(log_softmax(x))`) computed outside autocast on logits that are bfloat16 or
    float16: the output of a model cast to half precision (`.bfloat16()`, `.half()`,
    `.to(torch.bfloat16)`, `from_pretrained(torch_dtype=torch.bfloat16)`), of a model sharded
    with `fully_shard(..., mp_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16))` and no
    `output_dtype=torch.float32`, or of a half-precision autocast region that closed before
    the loss.

    ## Why is this bad?
    Autocast runs `cross_entropy`, `log_softmax` and `nll_loss` in float32. Outside autocast
    nothing promotes half-precision logits (FSDP2's mixed-precision policy casts parameters
    and installs no autocast), so the log-softmax, the tensors its backward reads and the
    loss itself are stored with 8 significant bits: at a loss of 36 the bfloat16 grid is
    0.25 wide. TorchTitan and Hugging Face upcast logits before the loss for this reason.

    Call `.float()` on the logits (or compute the loss under autocast). A model whose own
    forward ends with `.float()`, a policy with `output_dtype=torch.float32`, and fused
    losses that upcast internally are not reported; neither is any value whose dtype the
    linter cannot follow.

    ## Example
    ```python
    import torch
    import torch.nn.functional as F
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)
    for x, y in loader:
        logits = model(x).logits
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        loss.backward()
    ```

    Use instead:
    ```python
    import torch
    import torch.nn.functional as F
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)
    for x, y in loader:
        logits = model(x).logits
        loss = F.cross_entropy(logits.float().view(-1, logits.size(-1)), y.view(-1))
        loss.backward()
    ```

    ## Fix safety
    There is no automatic fix: upcasting the logits costs memory (a float32 copy of a
    vocabulary-sized tensor), and where to do it is the author's choice.

    ## References
    - [Modalities/modalities#464: cross entropy on bf16 logits under FSDP2's MixedPrecisionPolicy](https://github.com/Modalities/modalities/pull/464)
    - [huggingface/transformers#34147: cast logits to float when computing the loss](https://github.com/huggingface/transformers/pull/34147)
    - [Autocast op reference: `cross_entropy`, `log_softmax`, `nll_loss` autocast to float32](https://pytorch.org/docs/stable/amp.html#cuda-ops-that-can-autocast-to-float32)
    """

    code = "TCK312"
    name = "low-precision-cross-entropy"
    message = (
        "logits reach cross_entropy in bfloat16 outside autocast; the log-softmax, the loss and its gradient are "
        "computed and stored in bfloat16 — call .float() on the logits first"
    )
    required_text = ("float16", ".half()", "torch.half", "MixedPrecisionPolicy", "autocast")

    VALID = (
        Valid(
            """
import torch
import torch.nn.functional as F

@torch.no_grad()
def validate(model, loader):
    for images, target in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            output = model(images)
        loss = F.cross_entropy(output, target)
"""
        ),
        Valid(
            """
import torch.nn.functional as F
model = GPT(config).bfloat16()
logits = model(x)
loss = F.cross_entropy(logits.float().view(-1, logits.size(-1)), y.view(-1))
"""
        ),
        Valid(
            """
import torch
import torch.nn.functional as F
with torch.autocast("cuda", dtype=torch.bfloat16):
    loss = F.cross_entropy(model(x), y)
"""
        ),
        Valid(
            """
import torch
import torch.nn.functional as F
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, output_dtype=torch.float32)
model = Transformer(args)
fully_shard(model, mp_policy=policy)
loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn
import torch.nn.functional as F

class LM(nn.Module):
    def forward(self, x):
        return self.lm_head(self.body(x)).float()

model = LM().to(torch.bfloat16)
loss = F.cross_entropy(model(x), y)
"""
        ),
        Valid(
            """
import torch.nn.functional as F
model = GPT(config)
if args.bf16:
    model = model.bfloat16()
loss = F.cross_entropy(model(x), y)
"""
        ),
        Valid(
            """
import torch
from liger_kernel.transformers import LigerCrossEntropyLoss
model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)
loss = LigerCrossEntropyLoss()(model(ids).logits, labels)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)
outputs = model(input_ids)
logits = outputs.logits[:, :-1]
loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))  # TCK312
"""
        ),
        Invalid(
            """
import torch
import torch.nn as nn
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
model = Transformer(args)
fully_shard(model, mp_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32))
criterion = nn.CrossEntropyLoss()
loss = criterion(model(x).flatten(0, 1), y.flatten())  # TCK312
"""
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
with torch.autocast("cuda", dtype=torch.bfloat16):
    logits = model(x)
loss = F.nll_loss(F.log_softmax(logits, dim=-1), y)  # TCK312
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._losses: list[tuple[cst.Call, cst.BaseExpression]] = []

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.in_autocast or self.context.in_no_grad:
            return  # a validation loss under no_grad: no gradient is quantised, only a logged number
        logits = self._logits_of(node)
        if logits is not None:
            self._losses.append((node, logits))

    def _logits_of(self, call: cst.Call) -> cst.BaseExpression | None:
        qualified = self.context.call_name(call)
        first = argument_for(call, 0, "input")
        if first is None or first.star:
            return None
        if qualified in _CROSS_ENTROPY or self._is_cross_entropy_module(call.func):
            return first.value
        if qualified in _NLL_LOSS and isinstance(first.value, cst.Call):
            inner = first.value
            if self.context.call_name(inner) in _LOG_SOFTMAX and inner.args:
                return inner.args[0].value
            receiver_method = method_call(inner)
            return receiver_method[0] if receiver_method is not None and receiver_method[1] == "log_softmax" else None
        return None

    def _is_cross_entropy_module(self, function: cst.BaseExpression) -> bool:
        if isinstance(function, cst.Call):
            return self.context.call_name(function) in _CROSS_ENTROPY_MODULES
        return self.context.maker_of(function) in _CROSS_ENTROPY_MODULES

    def leave_Module(self, node: cst.Module) -> None:
        for call, logits in self._losses:
            dtype = self._precision(logits, call, 0)
            if dtype in HALF:
                self.report(call, _MESSAGE.format(dtype=dtype))

    def _precision(self, value: cst.BaseExpression, loss: cst.Call, depth: int) -> str | None:
        """The dtype ``value`` holds at the loss: half, float32 or None (unknown)."""
        while depth <= _DEPTH:
            if isinstance(value, (cst.Subscript, cst.Attribute)):
                value = value.value  # `logits[:, :-1]`, `outputs.logits`
                continue
            if not isinstance(value, cst.Call):
                break
            cast = cast_of(self.context, value)
            if cast is not None:
                return cast if cast != "unknown" else None
            receiver_method = method_call(value)
            if receiver_method is not None and receiver_method[1] in _SAME_DTYPE_METHODS:
                value = receiver_method[0]
                continue
            return self._output_precision(value)
        if not isinstance(value, cst.Name) or depth > _DEPTH:
            return None
        found = {self._bound_precision(binding.node, loss, depth + 1) for binding in self.context.binder.bindings_before(value)}
        return found.pop() if len(found) == 1 else None

    def _bound_precision(self, node: cst.CSTNode, loss: cst.Call, depth: int) -> str | None:
        if not isinstance(node, cst.Assign):
            return None
        computed = self._precision(node.value, loss, depth)
        region = region_precision(self.context, node)
        if region is None or computed == "float32" or any(a is region[0] for a in self.context.binder.ancestors(loss)):
            return computed
        return region[1]  # computed under half-precision autocast, used after it

    def _output_precision(self, call: cst.Call) -> str | None:
        """The dtype of what a module call returns: its parameters' dtype, or the output
        dtype of its FSDP2 mixed-precision policy; None when its forward may upcast."""
        if not isinstance(call.func, cst.Name):
            return None
        sharded = self._policy_output(call.func)
        if sharded is not None:
            return sharded
        dtype = module_precision(self.context, call.func)
        return dtype if dtype in HALF and self._forward_keeps_dtype(call.func) else None

    def _forward_keeps_dtype(self, module: cst.Name) -> bool:
        construction = construction_of(self.context, module)
        if construction is None:
            return False
        receiver_method = method_call(construction)
        if receiver_method is not None and receiver_method[1] in ("from_pretrained", "from_config"):
            return True
        if (self.context.qualified_name(construction.func) or "").startswith(_LIBRARIES):
            return True
        bindings = self.context.binder.bindings_before(construction.func) if isinstance(construction.func, cst.Name) else []
        classes = [binding.node for binding in bindings if isinstance(binding.node, cst.ClassDef)]
        return len(classes) == 1 == len(bindings) and not _forward_upcasts(self.context, classes[0])

    def _policy_output(self, module: cst.Name) -> str | None:
        """The output dtype of the ``fully_shard(module, mp_policy=...)`` policy on this module."""
        binder = self.context.binder
        for binding in binder.bindings_before(module):
            for reference in binding.references:
                call = references.argument_of(binder, reference)
                sharded = call is not None and self.context.call_name(call) in _SHARDING and call.args[0].value is reference
                if not sharded or not binder.precedes(call, module):  # type: ignore[arg-type]
                    continue
                policy = keyword_argument(call, "mp_policy")  # type: ignore[arg-type]
                return self._policy_dtype(policy.value) if policy is not None else None
        return None

    def _policy_dtype(self, policy: cst.BaseExpression) -> str | None:
        if isinstance(policy, cst.Name):
            bindings = self.context.binder.bindings_before(policy)
            if len(bindings) != 1 or not isinstance(bindings[0].node, cst.Assign):
                return None
            policy = bindings[0].node.value
        if not isinstance(policy, cst.Call) or self.context.call_name(policy) not in _POLICIES:
            return None
        # the output dtype, else the parameters'
        chosen = argument_for(policy, 2, "output_dtype") or argument_for(policy, 0, "param_dtype")
        return dtype_of(self.context, chosen.value) if chosen is not None else None


def _forward_upcasts(context: LintContext, class_def: cst.ClassDef) -> bool:
    """The class's ``forward`` returns a float32 cast (``return self.head(h).float()``), or
    is not in the class (inherited: unknown)."""
    forwards = [s for s in class_def.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "forward"]
    if len(forwards) != 1:
        return True
    returns = [n for n in subtree(forwards[0].body) if isinstance(n, cst.Return) and n.value is not None]
    return any(n for r in returns for n in subtree(r.value) if isinstance(n, cst.Call) and cast_of(context, n) == "float32")
