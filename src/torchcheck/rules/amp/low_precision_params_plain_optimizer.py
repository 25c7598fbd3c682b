from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import argument_for, dotted_name, method_call, names_read, subtree
from torchcheck.lint.precision import HALF, cast_of, module_precision
from torchcheck.lint.project import is_mixed_precision_framework
from torchcheck.lint.rule import Invalid, Rule, Valid

# torch's own optimizers: none keeps master weights or rounds stochastically.
_OPTIMIZERS = frozenset(
    f"torch.optim.{name}"
    for name in "Adam AdamW SGD RMSprop Adagrad Adadelta Adamax NAdam RAdam ASGD Rprop Adafactor SparseAdam".split()
)
# Wrappers and libraries that keep fp32 master weights or train fp32 adapters on a frozen base.
_MASTER_WEIGHT_LIBRARIES = ("peft", "torchao")
_SHARDING = frozenset(
    {
        "torch.distributed.fsdp.fully_shard",
        "torch.distributed._composable.fsdp.fully_shard",
        "torch.distributed.fsdp.FullyShardedDataParallel",
    }
)
_SHORT = {"bfloat16": "bf16", "float16": "fp16"}
_MESSAGE = (
    "{optimizer} updates {dtype} parameters in place with no fp32 master copy; updates smaller than half a "
    "{short} ulp of a weight are rounded away"
)


class LowPrecisionParamsPlainOptimizer(Rule):
    """
    ## What it does
    Checks for a stock `torch.optim` optimizer (`AdamW`, `SGD`, ...) built over the parameters
    of a model cast to bfloat16 or float16 on every path (`model.bfloat16()`, `.half()`,
    `.to(torch.bfloat16)`, `from_pretrained(torch_dtype=torch.bfloat16)`), with no fp32
    master weights.

    ## Why is this bad?
    The optimizer writes each update back into a half-precision weight. An update smaller
    than half the spacing of bfloat16 numbers near that weight (2^-8 of it) rounds back to
    the same value, and the same happens at every step: at a learning rate of 6e-4 no weight
    near 1.0 moves. The optimizer state inherits the low precision too. Training does not
    fail; the loss plateaus early.

    Keep the parameters in float32 and compute in half precision (autocast, FSDP2's
    `MixedPrecisionPolicy`, Accelerate's `mixed_precision`), or use an optimizer with master
    weights or stochastic rounding (`torchao.optim.AdamW(bf16_stochastic_round=True)`).
    Files that use FSDP, DeepSpeed, apex, Accelerate, Lightning, PEFT adapters or torchao are
    not reported, nor models whose cast the linter cannot follow on every path.

    This rule is opt-in: pure bfloat16 training is sometimes deliberate and reported stable,
    and whether updates round away depends on the learning rate and the weights' scale.

    ## Example
    ```python
    import torch
    from model import GPT

    model = GPT(config).to(device).bfloat16()
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
    ```

    Use instead:
    ```python
    import torch
    from model import GPT

    model = GPT(config).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
    # forward and loss under torch.autocast("cuda", dtype=torch.bfloat16)
    ```

    ## Fix safety
    There is no automatic fix: master weights cost memory, and pure half-precision training
    may be deliberate.

    ## References
    - [workofart/ml-by-hand#85: bf16 storage with no master weights, 0 of 768 weights moved in 100 steps](https://github.com/workofart/ml-by-hand/pull/85)
    - [areal-project/AReaL#1369: AdamW silently inherits bf16; fp32 master weights](https://github.com/areal-project/AReaL/pull/1369)
    - [NVIDIA-NeMo/Automodel#3444: at lr 6e-6 bf16 steps round back](https://github.com/NVIDIA-NeMo/Automodel/pull/3444)
    """

    code = "TCK313"
    name = "low-precision-params-plain-optimizer"
    message = (
        "AdamW updates bfloat16 parameters in place with no fp32 master copy; updates smaller than half a bf16 ulp "
        "of a weight are rounded away"
    )
    default_enabled = False
    required_text = ("float16", ".half()", "torch.half")

    VALID = (
        Valid(
            """
import torch
import torchao
model = GPT(config).bfloat16()
optimizer = torchao.optim.AdamW(model.parameters(), lr=1e-4, bf16_stochastic_round=True)
"""
        ),
        Valid(
            """
import torch
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
model = GPT(config)
fully_shard(model, mp_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
"""
        ),
        Valid(
            """
import torch
from peft import get_peft_model
base = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)
model = get_peft_model(base, lora_config)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
"""
        ),
        Valid(
            """
import torch
model = GPT(config).half().eval()
"""
        ),
        Valid(
            """
import torch
from accelerate import Accelerator
accelerator = Accelerator(mixed_precision="bf16")
model = GPT(config)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
"""
        ),
        Valid(
            """
import torch
model = GPT(config)
if args.bf16:
    model.bfloat16()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
model = GPT(config).to(device).bfloat16()
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)  # TCK313
"""
        ),
        Invalid(
            """
import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)
params = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(params, lr=1e-3, momentum=0.9)  # TCK313
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._optimizers: list[tuple[cst.Call, str, cst.BaseExpression]] = []
        self._covered = False  # a master-weight mechanism or a framework is in the file

    def visit_Import(self, node: cst.Import) -> None:
        self._covered |= any(_covers(dotted_name(alias.name) or "") for alias in node.names)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted_name(node.module) if node.module is not None and not node.relative else None
        names = [] if isinstance(node.names, cst.ImportStar) else [dotted_name(alias.name) for alias in node.names]
        self._covered |= module is not None and (_covers(module) or any(_covers(f"{module}.{name}") for name in names))

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.call_name(node) or ""
        if qualified in _SHARDING:
            self._covered = True
        elif qualified in _OPTIMIZERS:
            params = argument_for(node, 0, "params")
            if params is not None and not params.star:
                self._optimizers.append((node, qualified.rsplit(".", 1)[-1], params.value))

    def leave_Module(self, node: cst.Module) -> None:
        if self._covered:
            return
        for call, optimizer, params in self._optimizers:
            dtype = self._parameters_precision(params)
            if dtype in HALF:
                self.report(call, _MESSAGE.format(optimizer=optimizer, dtype=dtype, short=_SHORT[dtype]))

    def _parameters_precision(self, params: cst.BaseExpression) -> str | None:
        """The dtype shared by every module whose ``.parameters()`` the argument reads (through
        a list, a comprehension, ``filter``, param groups, and names bound once to those)."""
        modules = self._modules_read(params, 0)
        if not modules or not all(isinstance(module, cst.Name) for module in modules):
            return None
        found = {module_precision(self.context, module) for module in modules}  # type: ignore[arg-type]
        dtype = found.pop() if len(found) == 1 else None
        if dtype in HALF and any(self._part_upcast(module) for module in modules):  # type: ignore[arg-type]
            return None
        return dtype

    def _modules_read(self, expression: cst.BaseExpression, depth: int) -> list[cst.BaseExpression]:
        modules = []
        for node in subtree(expression):
            receiver_method = method_call(node) if isinstance(node, cst.Call) else None
            if receiver_method is not None and receiver_method[1] in ("parameters", "named_parameters"):
                modules.append(receiver_method[0])
        if depth < 3:
            for name in names_read(expression):
                bindings = self.context.binder.bindings_before(name)
                if len(bindings) == 1 and isinstance(bindings[0].node, cst.Assign):
                    modules.extend(self._modules_read(bindings[0].node.value, depth + 1))
        return modules

    def _part_upcast(self, module: cst.Name) -> bool:
        """A submodule of the model is cast back to float32 (``model.lm_head.float()``): the
        trainable part may be fp32."""
        binder = self.context.binder
        for binding in binder.bindings_before(module):
            for reference in binding.references:
                node: cst.CSTNode = reference
                while isinstance(binder.parent(node), cst.Attribute) and binder.parent(node).value is node:  # type: ignore[union-attr]
                    node = binder.parent(node)  # type: ignore[assignment]
                call = binder.parent(node)
                if node is not reference and isinstance(call, cst.Call) and cast_of(self.context, call) == "float32":
                    return True
        return False


def _covers(module: str) -> bool:
    return is_mixed_precision_framework(module) or module.split(".", 1)[0] in _MASTER_WEIGHT_LIBRARIES
