from __future__ import annotations

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.edits import keyword, with_keyword_appended
from torchcheck.lint.kinds import Evidence
from torchcheck.lint.nodes import has_star_kwargs, keyword_argument, method_call
from torchcheck.lint.placement import is_device_expression, names_cpu
from torchcheck.lint.project import A_DEVICE, Condition
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

# Constructors that copy data out of host memory (Python numbers, lists, NumPy arrays): they
# build the tensor on the CPU and copy it to the device even when given device=, exactly as
# a `.to(device)` after them does, so moving the device into the call saves nothing.
_HOST_DATA_CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.from_numpy"})
# Factories that allocate and fill the tensor on the device itself when given device= (the
# sampling functions take their device from their input tensor).
_DEVICE_FACTORIES = torch_api.TENSOR_FACTORIES - _HOST_DATA_CONSTRUCTORS - {
    "torch.multinomial", "torch.bernoulli", "torch.normal", "torch.polar", "torch.complex"
}
# Factories that draw random numbers: CPU and CUDA generators give different numbers for one
# seed, so building the tensor on the device changes what a seeded run computes.
# Factories whose positional arguments are the sizes (`torch.arange(0, n)` starts at 0).
_SIZED_FACTORIES = torch_api.LEGACY_TENSOR_CONSTRUCTORS | {f"torch.{name}" for name in ("zeros", "ones", "empty", "rand", "randn")}
_RANDOM_FACTORIES = frozenset(
    f"torch.{name}"
    for name in "rand randn randint randperm normal bernoulli multinomial poisson rand_like randn_like randint_like".split()
)


class TransferAfterConstruction(Rule):
    """
    ## What it does
    Checks for tensors created by a factory that computes their values (`torch.zeros`,
    `torch.rand`, `torch.arange`, ...) and then moved with `.cuda()` (`.cuda(1)` included) or
    `.to(device)`, directly or after methods that leave the tensor where it is (an in-place
    fill such as `.fill_(0)` or `.normal_()`, a reshape, a dtype conversion). The legacy
    constructors called with sizes (`torch.FloatTensor(batch, 3).fill_(0).cuda()`) allocate on
    the CPU too. `.to("cpu")` moves nothing and is not reported.

    ## Why is this bad?
    The tensor is first allocated and filled on the CPU, then copied to the device: twice
    the allocations, a host-to-device copy, and for random factories a different random
    stream than constructing on the device. Given `device=`, these factories allocate and
    fill the tensor on the device itself; construct the tensor where it will live.

    The legacy constructors take no CUDA `device=`: use `torch.empty`, `torch.zeros` or
    `torch.ones` with `device=` instead.

    A tensor with a literal `0` among its sizes (`torch.zeros(batch, 0, dim).cuda()`) holds
    nothing to fill or copy and is not reported.

    Tensors made from data (`torch.tensor(data)`, `torch.as_tensor(array)`,
    `torch.from_numpy(array)`) are not reported: the data is in host memory, so PyTorch
    builds the tensor on the CPU and copies it to the device even when `device=` is passed
    (`torch.tensor(data, device="cuda")` does exactly what `torch.tensor(data).cuda()`
    does), and moving the device into the call saves nothing.

    ## Example
    ```python
    import torch

    device = torch.device("cuda")
    mask = torch.ones(seq_len, seq_len).cuda()
    noise = torch.randn(batch, dim).to(device)
    ```

    Use instead:
    ```python
    import torch

    device = torch.device("cuda")
    mask = torch.ones(seq_len, seq_len, device="cuda")
    noise = torch.randn(batch, dim, device=device)
    ```

    ## Fix safety
    The fix moves the device into the factory's `device=` argument. For factories that fill
    in given or computed values (`zeros`, `ones`, `full`, `arange`, ...) it is safe: the
    result has the same values, dtype and device. For random factories (`rand`, `randn`,
    `randint`, `randperm`) it is unsafe: the CPU and CUDA generators draw different numbers
    from the same seed, so a seeded run computes something else after the fix. It is also
    unsafe after a random in-place fill (`.normal_()`, `.uniform_()`), for the same reason, and
    when the target is known to be a device only by its name (`.to(self.device)`,
    `.to(state.device)`): `.to()` would take a dtype or a tensor there too, `device=` would
    not. It is not
    offered when the call passes `**kwargs`, which could already supply `device=`. Nothing
    is reported when the factory already passes `device=` or a `generator=`: the generator
    decides where the numbers are drawn, and `device=` next to a CPU generator raises.

    ## References
    - [Tensor creation ops](https://pytorch.org/docs/stable/torch.html#creation-ops)
    - [CUDA semantics: best practices](https://pytorch.org/docs/stable/notes/cuda.html#best-practices)
    - [`torch.tensor` builds on the CPU, then moves to the device (pytorch/pytorch, `torch/csrc/utils/tensor_new.h`)](https://github.com/pytorch/pytorch/blob/main/torch/csrc/utils/tensor_new.h)
    """

    code = "TCK201"
    name = "transfer-after-construction"
    message = "Tensor built on the CPU and then copied to the device; pass `device=` to the factory"
    fix_title = "Pass `device=` to the factory"
    fix_safety = FixSafety.SAFE
    required_text = (".cuda(", ".to(")

    VALID = (
        Valid(
            """
import torch

def test_forward_on_cpu(model, batch_size):
    device = "cpu"
    x = torch.ones(batch_size, 8).to(device)
    assert model(x).shape == (batch_size, 2)
"""
        ),
        Valid(
            """
import torch
dummy = torch.zeros(1, 3, 640, 640).to("cpu")  # already there: nothing is copied
"""
        ),
        Valid(
            """
import torch
done = torch.FloatTensor(batch_size, beams, 0, vocab + 1).to(device)
history = torch.zeros((batch_size, 0), dtype=torch.long).cuda()
"""
        ),
        Valid(
            """
import torch
x = torch.zeros(3, device="cuda")
y = x.to(device)
model = model.to(device)
"""
        ),
        Valid(
            """
import torch
half = torch.ones(3).to(torch.float16)
same = torch.ones(3).to(dtype)
"""
        ),
        Valid(
            """
import torch
x = torch.randn(3, requires_grad=True).to("cuda")
"""
        ),
        Valid(
            """
import torch
def build(**kwargs):
    return torch.zeros(3, **kwargs).to(device)
"""
        ),
        Valid(
            """
import numpy as np
import torch
batch = torch.from_numpy(np.ones(3)).to(device, non_blocking=True)
"""
        ),
        Valid(
            """
import torch
timesteps = torch.multinomial(torch.ones(1000, device=device), 8).to(device)
"""
        ),
        Valid(
            """
import torch
def init_vectors(shape, seed, device):
    generator = torch.Generator(device="cpu").manual_seed(seed)
    vector = torch.randn(shape, generator=generator, device=generator.device).to(device)
    noise = torch.randn(shape, generator=generator).to(device)
    return vector, noise
"""
        ),
        Valid(
            """
import numpy as np
import torch
from torch import tensor
labels = tensor([1, 2, 3]).to("cuda:0")
targets = torch.FloatTensor(batch_labels).unsqueeze(1).to(device)
weights = torch.ones(3).add_(offsets).to(device)
anchors = torch.tensor(cfg.ANCHORS, dtype=torch.float32).to(device)
boxes = torch.as_tensor(np.stack(targets)).cuda()
scale = torch.tensor(0.5).to(device)
"""
        ),
        Valid(
            """
import torch
def randn_tensor(shape, generator, device, dtype):
    return torch.randn(shape, generator=generator, device="cpu", dtype=dtype).to(device)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from typing import Optional

import torch
from torch import nn

class Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.wd_device: Optional[str] = None

    def empty(self, batch, width):
        return torch.zeros(batch, width).to(self.wd_device)  # TCK201

def noise(n, device: str = "cuda"):
    return torch.randn(n).to(device)  # TCK201
""",
            expected_replacement="""
from typing import Optional

import torch
from torch import nn

class Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.wd_device: Optional[str] = None

    def empty(self, batch, width):
        return torch.zeros(batch, width, device=self.wd_device)  # TCK201

def noise(n, device: str = "cuda"):
    return torch.randn(n, device=device)  # TCK201
""",
        ),
        Invalid(
            """
import torch
def buffers(batch, size, device):
    faces = torch.FloatTensor(batch, size, 27).fill_(0.0).to(device=device)  # TCK201
    return faces
"""
        ),
        Invalid(
            """
import torch
mask = torch.ones(8, 8).unsqueeze(0).bool().cuda()  # TCK201
ids = torch.arange(0, 8).cuda()  # TCK201
""",
            expected_replacement="""
import torch
mask = torch.ones(8, 8, device="cuda").unsqueeze(0).bool()  # TCK201
ids = torch.arange(0, 8, device="cuda")  # TCK201
""",
        ),
        Invalid(
            """
import torch
x = torch.rand(2, 2).cuda()  # TCK201
""",
            expected_replacement="""
import torch
x = torch.rand(2, 2, device="cuda")  # TCK201
""",
        ),
        Invalid(
            """
import torch as T
def f(n, device):
    return T.zeros(n).to(device)  # TCK201
""",
            expected_replacement="""
import torch as T
def f(n, device):
    return T.zeros(n, device=device)  # TCK201
""",
        ),
        Invalid(
            """
from torch import full
padding = full((4, 4), -1.0).to("cuda:0")  # TCK201
""",
            expected_replacement="""
from torch import full
padding = full((4, 4), -1.0, device="cuda:0")  # TCK201
""",
        ),
        Invalid(
            """
import torch
x = torch.arange(10).to(torch.device("cuda"))  # TCK201
""",
            expected_replacement="""
import torch
x = torch.arange(10, device=torch.device("cuda"))  # TCK201
""",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        receiver_method = method_call(node)
        if receiver_method is None or receiver_method[1] not in ("to", "cuda"):
            return
        receiver, method = receiver_method
        factory, fills = _built_through(receiver)
        if factory is None or has_star_kwargs(factory) or keyword_argument(factory, "requires_grad") is not None:
            return  # **kwargs may carry device=; requires_grad=True is TCK108's finding
        if self.context.call_name(factory) in _SIZED_FACTORIES and _has_empty_size(factory):
            return  # `torch.FloatTensor(b, k, 0, v)`: no element to fill or copy
        if keyword_argument(factory, "device") is not None or keyword_argument(factory, "generator") is not None:
            return  # placed on purpose, or pinned to its generator's device (see "Fix safety")
        device, conditions = self._target_device(node, method)
        if device is None:
            return
        name = self.context.call_name(factory)
        if name in torch_api.LEGACY_TENSOR_CONSTRUCTORS and _given_sizes(factory):
            self.report(node, _LEGACY_MESSAGE)
            return
        if name not in _DEVICE_FACTORIES:
            return
        random = name in _RANDOM_FACTORIES or any(fill in torch_api.RANDOM_FILLS for fill in fills)
        named_only = self.context.evidence_of(device) is Evidence.CONVENTION  # `.to(state.device)`
        unsafe = random or named_only or bool(conditions)
        placed = with_keyword_appended(factory, keyword("device", device))
        replacement = receiver.deep_replace(factory, placed) if receiver is not factory else placed
        self.report(node, replacement=replacement, fix_safety=FixSafety.UNSAFE if unsafe else None, conditions=conditions)

    def _target_device(self, call: cst.Call, method: str) -> tuple[cst.BaseExpression | None, tuple[Condition, ...]]:
        """The device moved to, with the conditions under which it is one (``get_device()`` of
        another project file: when that function returns a device)."""
        if method == "cuda":
            return _cuda_device(call), ()
        if method != "to" or not call.args or has_star_kwargs(call):
            return None, ()
        first = call.args[0]
        rest = call.args[1:]
        if first.keyword is not None and first.keyword.value != "device" or any(argument.keyword is None or argument.keyword.value != "non_blocking" for argument in rest):
            return None, ()  # .to(device, dtype) also converts: leave it alone
        device, kind = first.value, self.context.kind_of(first.value)
        if names_cpu(device, self.context.binder):
            return None, ()  # `.to("cpu")` (also `device = "cpu"` first) of a tensor built on the CPU copies nothing
        if is_device_expression(device, kind):
            return device, ()
        returned = self.context.returned_kind_condition(device, A_DEVICE, of_calls=True) if kind is None else None
        return (device, (returned,)) if returned is not None else (None, ())


_LEGACY_MESSAGE = (
    "Tensor built on the CPU by a legacy constructor and then copied to the device; "
    "use `torch.empty`/`torch.zeros`/`torch.ones` with `device=`"
)


def _built_through(value: cst.BaseExpression) -> tuple[cst.Call | None, list[str]]:
    """The factory call a tensor comes from through methods that keep it where it is
    (``torch.zeros(n).unsqueeze(0)``, ``torch.FloatTensor(n).fill_(0)``), and those methods."""
    methods: list[str] = []
    while type(value) is cst.Call:
        receiver_method = method_call(value)
        if receiver_method is None or receiver_method[1] not in torch_api.PLACE_KEEPING_METHODS:
            return value, methods
        methods.append(receiver_method[1])
        value = receiver_method[0]
    return None, methods


def _has_empty_size(call: cst.Call) -> bool:
    """A literal ``0`` among the sizes, given one by one or as a tuple or list."""
    sizes = [argument.value for argument in call.args if argument.keyword is None and not argument.star]
    if len(sizes) == 1 and type(sizes[0]) in (cst.Tuple, cst.List):
        sizes = [element.value for element in sizes[0].elements]  # type: ignore[attr-defined]
    return any(type(size) is cst.Integer and size.evaluated_value == 0 for size in sizes)  # type: ignore[attr-defined]


def _given_sizes(call: cst.Call) -> bool:
    """``torch.FloatTensor(batch, 3)``: sizes, not data (data is one sequence)."""
    positional = [argument for argument in call.args if argument.keyword is None and not argument.star]
    return len(positional) >= 2 or (len(positional) == 1 and type(positional[0].value) is cst.Integer)


def _cuda_device(call: cst.Call) -> cst.BaseExpression | None:
    """What ``.cuda()``, ``.cuda(1)`` or ``.cuda(device=0, non_blocking=True)`` moves to, spelled
    as a ``device=`` string; None for a device the call computes."""
    if any(argument.star or (argument.keyword is not None and argument.keyword.value not in ("device", "non_blocking")) for argument in call.args):
        return None
    chosen = [argument.value for argument in call.args if argument.keyword is None or argument.keyword.value == "device"]
    if not chosen:
        return cst.SimpleString('"cuda"')
    if len(chosen) == 1 and isinstance(chosen[0], cst.Integer):
        return cst.SimpleString(f'"cuda:{chosen[0].value}"')
    return None
