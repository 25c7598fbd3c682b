from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint import references, torch_api
from torchcheck.lint.buffers import methods_of
from torchcheck.lint.context import LintContext
from torchcheck.lint.exports import moved_attributes, setting_path
from torchcheck.lint.kinds import TENSOR_KINDS, Kind, tensor_method_kind
from torchcheck.lint.nodes import dotted_name, is_none, is_number_literal, method_call, subtree
from torchcheck.lint.placement import is_zero_dim, moved_at_every_read, placed_on_device
from torchcheck.lint.project import MOVED_BY_APPLY, NO, NUMBER_SETTINGS, PROJECT, THIS_FILE, Condition
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.modules._common import ModuleClassRule, self_attribute

_TENSOR_BUILDERS = (
    torch_api.TENSOR_FACTORIES | torch_api.LEGACY_TENSOR_CONSTRUCTORS | torch_api.TENSOR_LIKE_FACTORIES | torch_api.TENSOR_OPS
)
# Using an attribute through one of these means the code moves it by hand.
_MOVING_METHODS = frozenset({"to", "cuda", "cpu", "type_as", "to_device"})
# Tensor methods whose result is not a tensor.
_LEAVING_TENSORS = torch_api.NUMBER_METHODS | {"tolist", "numpy", "item"}
# Methods that, defined on the module, take over device moves or state.
_HANDLING_METHODS = frozenset({"to", "cuda", "_save_to_state_dict", "state_dict"})
# A tensor that `__init__` already puts on a device is where the model runs, until the model
# is moved, cast or replicated: then it stays behind.
_PLACED_MESSAGE = (
    "Tensor put on a device in `__init__` but stored as a plain module attribute: later `.to()`/`.half()` "
    "calls and `DataParallel` replicas leave it behind; use `register_buffer`"
)


@dataclass(frozen=True)
class _Candidate:
    """A tensor attribute ``__init__`` builds: reported unless something handles it."""

    assignment: cst.CSTNode
    attribute: str
    setting: str | None  # the setting a `torch.tensor(cfg.MODEL.WEIGHT)` holds, if one
    placed: bool  # built on, or moved to, a device (`torch.ones(n, device=device)`, `.to(device)`)
    placeholder: bool = False  # empty (`torch.empty(0, 0)`): a value to be replaced, never used as it is


@dataclass
class _ClassState:
    candidates: list[_Candidate] = field(default_factory=list)
    handled: set[str] = field(default_factory=set)  # registered, rebound or moved by hand
    placed: set[str] = field(default_factory=set)  # moved to a device in `__init__` (`self.fb = self.fb.cuda()`)
    handles_everything: bool = False
    # attribute -> its re-bindings in other methods: (the target, whether it surely runs in its method)
    rebound: dict[str, list[tuple[cst.CSTNode, bool]]] = field(default_factory=dict)
    # attribute -> the statements of `__init__` binding it to anything but a tensor it builds
    set_in_init: dict[str, list[cst.CSTNode]] = field(default_factory=dict)


# What a read may ask of a tensor without using its values or its device: a sentinel's
# `self.cache.numel() == 0` works wherever the tensor is.
_METADATA = frozenset({"numel", "nelement", "shape", "size", "dim", "ndim", "dtype", "device", "is_cuda"})


def _empty(value: cst.BaseExpression) -> bool:
    """``torch.empty(0)``, ``torch.zeros(0, 0)``, ``torch.tensor([])``: a literal size of 0."""
    if not isinstance(value, cst.Call):
        return False
    sizes = [argument.value for argument in value.args if argument.keyword is None]
    if len(sizes) == 1 and isinstance(sizes[0], (cst.List, cst.Tuple)):
        sizes = [element.value for element in sizes[0].elements] or [cst.Integer("0")]
    return any(isinstance(size, cst.Integer) and size.evaluated_value == 0 for size in sizes)


def _conditions(attribute: str, setting: str | None) -> tuple[Condition, ...]:
    """No ``_apply`` override of the project moves ``attribute`` by name (a model in another
    file moving its detection head's anchors), and the setting the tensor holds, if any, is
    not a number in the project's configuration defaults (a 0-dim tensor then)."""
    moved = Condition(THIS_FILE, f"{PROJECT}:{MOVED_BY_APPLY}:{attribute}", NO)
    return (moved,) if setting is None else (moved, Condition(THIS_FILE, f"{PROJECT}:{NUMBER_SETTINGS}:{setting}", NO))


class TensorAttributeNotBuffer(ModuleClassRule):
    """
    ## What it does
    Checks for `nn.Module.__init__` methods (also of a class whose bases reach `nn.Module`
    through classes of other files of the project) that store a tensor built with a `torch`
    factory as a plain attribute (`self.mask = torch.ones(...)`), also indexed or chosen by
    a condition (`torch.linspace(...)[..., None]`, `torch.tensor(m) if m else None`), wrapped
    in the legacy `Variable(...)` (`Variable(torch.zeros(1), requires_grad=False)`), or
    returned by a function of the same file (`self.pe = self._build_pe(n)`, also when that
    function computes the tensor with arithmetic and tensor methods, or with a legacy
    constructor such as `torch.FloatTensor(n, n)`). Re-binding the attribute in `__init__` to
    a reshape of itself (`self.pe = self.pe.permute(1, 0)`) or a move of itself (`self.fb =
    self.fb.to(device)`, which only places it) keeps it the same plain tensor, and
    binding it to a `Parameter` on the other branch of an `if`, or under an `if` that may not run
    (`if self.trainable: self.w = nn.Parameter(self.w)`), leaves the other path's plain tensor.
    Another method that re-binds the attribute (runtime state) handles it only when it sets
    it before every read there - unconditionally, or under a test of the attribute itself
    (`if self.cache.numel() == 0:`); a recurrent state read first (`cell * self.state`, then
    `self.state = cell.detach()`) or set on one branch only still uses the tensor
    `__init__` stored. An empty placeholder (`torch.empty(0, 0)`) re-bound later is not reported,
    nor is a tensor that every read after `__init__` moves to the input's device first
    (`self.kernel.repeat(c, 1).to(x.device, x.dtype)`, `.type_as(x)`, `.cuda()`,
    `.type("torch.cuda.FloatTensor")`; a test
    `self.table is not None` reads nothing; a copy into a tensor that `forward` builds on
    the CPU and then moves, `out[i] = self.table[:n]` ... `out.to(x.device)`, runs where
    the table is), or that only `__init__` reads, to build something else (a sampler's
    probability table). Neither is an attribute that nothing in the file reads (a leftover
    that only `__init__` assigns, or fills item by item: `self.table[i] = row`), nor a one-dimensional tensor (`torch.linspace(...)`,
    `2 ** torch.arange(n)`) that every read iterates (`for freq in self.freq_bands:`): its
    items are 0-dim tensors.

    ## Why is this bad?
    A module only knows about its parameters, buffers and submodules. A plain tensor
    attribute is not moved by `model.to(device)` / `.cuda()` / `.half()` (the first
    forward on the GPU fails with a device mismatch, or runs in the wrong dtype), is not
    in `state_dict()`, and is not replicated by `DataParallel`/FSDP. Register it with
    `self.register_buffer("mask", torch.ones(...))` - pass `persistent=False` to keep it
    out of the checkpoint. A 0-dim tensor of a number (`torch.tensor(0.5)`, also with `.requires_grad_()`, of a parameter
    default or a module constant that is a number, of a value an `isinstance(x, float)` test shows is one, or of a setting that a configuration
    default of the project sets to a number: `torch.tensor(cfg.MODEL.POS_WEIGHT)` after
    `cfg.MODEL.POS_WEIGHT = 1.5`), or a full reduction to one value (`torch.sqrt(torch.sum(widths))`),
    is not reported: PyTorch combines a CPU scalar tensor with
    tensors on any device.

    A tensor that `__init__` already puts on a device (`torch.ones(n, device=device)`,
    `torch.tensor(anchors).to(device)`) is where the model runs as long as the model stays
    there, so the first forward works; it is reported with a message that names what still
    goes wrong: a later `model.to(other_device)`, `.cpu()`, `.half()` or `.to(dtype)`
    leaves it behind, and `DataParallel` gives every replica the same tensor on the first
    GPU (a replica copies the module's plain attributes and moves only its parameters and
    buffers), so the replicas on the other GPUs fail with a device mismatch.

    ## Example
    ```python
    import torch
    from torch import nn

    class Causal(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.mask = torch.tril(torch.ones(n, n))

        def forward(self, scores):
            return scores.masked_fill(self.mask == 0, float("-inf"))
    ```

    Use instead:
    ```python
    import torch
    from torch import nn

    class Causal(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)

        def forward(self, scores):
            return scores.masked_fill(self.mask == 0, float("-inf"))
    ```

    No finding is raised for an attribute that an `_apply` override moves by name
    (`head.stride = fn(head.stride)`): it follows the module's device and dtype. The
    override may be in another file of the linted project (a model class moving the tensors
    of a head defined elsewhere); a file that imports no module of the project is judged
    alone.

    ## Fix safety
    There is no automatic fix: whether the tensor belongs in the checkpoint
    (`persistent=True`) is a design decision.

    ## References
    - [`torch.nn.Module.register_buffer`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.register_buffer)
    - [Saving and loading models: what is a state_dict?](https://pytorch.org/tutorials/beginner/saving_loading_models.html#what-is-a-state-dict)
    """

    code = "TCK606"
    name = "tensor-attribute-not-buffer"
    message = "Tensor stored as a plain module attribute: not moved by `.to()`, not in `state_dict()`; use `register_buffer`"
    required_text = ("torch",)
    follows_project_bases = True

    VALID = (
        Valid(
            """
import torch
from torch import nn
import torch.nn.functional as F


class Downsample(nn.Module):
    def __init__(self, factor, cuda=True):
        super().__init__()
        self.kernel = torch.ones(3, 1, factor * 4, 1) / (factor * 4)
        self.suffix = ".cuda" if cuda else ""

    def forward(self, x):
        weights = self.kernel.type("torch{}.FloatTensor".format(self.suffix))
        return F.conv2d(x, weights, groups=3)
"""
        ),
        Valid(
            """
import torch
from torch import nn

ELEMENT_FEATURES = {1: [1.0, 0.0], 2: [0.0, 1.0]}


class Decoder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc = nn.Linear(hidden, 2)
        self.embedding = torch.zeros(100, 2)
        for i in range(2):
            self.embedding[i] = torch.tensor(ELEMENT_FEATURES[i + 1])

    def forward(self, z):
        return self.fc(z)
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Embedding(nn.Module):
    def __init__(self, n_freqs):
        super().__init__()
        self.freq_bands = 2 ** torch.linspace(0, n_freqs - 1, n_freqs)
    def forward(self, x):
        out = [x]
        for freq in self.freq_bands:  # 0-dim items: they combine with `x` on any device
            out += [torch.sin(freq * x), torch.cos(freq * x)]
        return torch.cat(out, -1)
"""
        ),
        Valid(
            """
import torch
from torch import nn

class SeqConv(nn.Module):
    def __init__(self, kind, n):
        super().__init__()
        if kind == "sobelx":
            self.mask = torch.zeros((n, 1, 3, 3))
            for i in range(n):
                self.mask[i, 0, 0, 0] = 1.0
            self.mask = nn.Parameter(data=self.mask, requires_grad=False)
        elif kind == "sobely":
            self.mask = torch.zeros((n, 1, 3, 3))
            self.mask = nn.Parameter(data=self.mask, requires_grad=False)
"""
        ),
        Valid(
            """
import torch
from torch import nn

class PerceptualLoss(nn.Module):
    def __init__(self, widths):
        super().__init__()
        self.register_buffer("widths", torch.tensor(widths))
        self.sqrt_total_width = torch.sqrt(torch.sum(self.widths))

    def forward(self, x):
        return x.sum(-1) / self.sqrt_total_width
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

class SinusoidalPositions(nn.Module):
    def __init__(self, length, dim):
        super().__init__()
        self.dim = dim
        self.table = torch.zeros(length, dim)

    def forward(self, tokens, lengths):
        out = torch.zeros(tokens.size(0), tokens.size(1), self.dim)
        for i in range(tokens.size(0)):
            out[i, : lengths[i]] = self.table[: lengths[i]]
        return out.to(tokens.device)
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn
import torch.nn.functional as F
class InvariancePenalty(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.tensor(1.).requires_grad_()

    def forward(self, logits, labels):
        return F.cross_entropy(logits * self.scale, labels)
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

class Embedder(nn.Module):
    def __init__(self, input_dim, cat_idxs):
        super().__init__()
        self.continuous = torch.ones(input_dim, dtype=torch.bool)
        self.continuous[cat_idxs] = 0
        self.embedding = nn.Embedding(10, 2)

    def forward(self, x):
        cols = []
        for i, is_continuous in enumerate(self.continuous):
            if is_continuous:
                cols.append(x[:, i:i + 1])
            else:
                cols.append(self.embedding(x[:, i].long()))
        return torch.cat(cols, dim=1)
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Memory(nn.Module):
    def __init__(self, counts):
        super().__init__()
        self.unigrams = torch.ones(len(counts))
        self.sampler = AliasSampler(self.unigrams).cuda()
    def forward(self, index):
        return self.sampler.draw(index)
class Encoder(nn.Module):
    def __init__(self, n, d, learnable):
        super().__init__()
        if learnable:
            self.pos_embed = nn.Parameter(torch.zeros(1, n, d))
            nn.init.trunc_normal_(self.pos_embed, std=0.02)
        else:
            self.pos_embed = torch.zeros(1, n, d)
    def forward(self, x):
        if self.pos_embed is not None:
            x = x + self.pos_embed.expand(x.shape[0], -1, -1).type_as(x).to(x.device)
        return x
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Net(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.loss_ws = torch.tensor(weights)
net = Net([1.0, 2.0])
def weighted_loss(z, t, device):
    return net.loss_ws[t.long()].view_as(t).to(device) * z
"""
        ),
        Valid(
            """
import torch

class Rescale(torch.nn.Module):
    def __init__(self, factor):
        super().__init__()
        if isinstance(factor, float):
            self.factor = torch.tensor(factor)
        else:
            self.factor = factor
"""
        ),
        Valid(
            """
import torch
import torch.nn.functional as F

class NonMaximaSuppression3d(torch.nn.Module):
    def __init__(self, size):
        super().__init__()
        self.kernel = torch.eye(size * size * size).view(-1, 1, size, size, size)

    def forward(self, x):
        kernel = self.kernel.repeat(x.shape[1], 1, 1, 1, 1).to(x.device, x.dtype)
        return F.conv3d(x, kernel, groups=x.shape[1])
"""
        ),
        Valid(
            """
import torch
from torch import nn

class MaskedDropout(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p, self.step = p, 0
        self.masks = torch.empty(0, 0)  # a placeholder, replaced before any use
        self.state = torch.zeros(4)

    def forward(self, x):
        if self.step == 0:
            self.masks = (torch.rand(8, x.shape[1], device=x.device) > self.p).float()
        self.step += 1
        if self.state.numel() == 0 or self.state.device != x.device:
            self.state = x.mean(0)  # a sentinel test of the attribute itself guards the re-binding
        return x * self.masks[0] + self.state
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Causal(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)
        self.scale = nn.Parameter(torch.ones(1))
        self.sizes = [8, 16, 32]
        self.names = ["q", "k", "v"]
"""
        ),
        Valid(
            """
import torch
class Normalizer:
    def __init__(self):
        self.mean = torch.tensor([0.485, 0.456, 0.406])
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Gate(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = torch.zeros(n)
        self.weight = nn.Parameter(self.weight)
        self.bias = torch.zeros(n)
        self.register_buffer("bias", self.bias)
        self.offset = torch.arange(n).item()
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Normalize(nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = torch.tensor([0.485, 0.456, 0.406])
    def forward(self, x):
        return x - self.mean.to(x.device)
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Cache(nn.Module):
    def __init__(self):
        super().__init__()
        self.cached = torch.empty(0)
    def forward(self, x):
        if self.cached.numel() == 0:
            self.cached = x.mean(0)
        return self.cached
"""
        ),
        Valid(
            """
import torch
from torch import nn

clip_threshold = 1.0

class VTrace(nn.Module):
    def __init__(self, discount=0.99):
        super().__init__()
        self.clip = torch.tensor(clip_threshold, dtype=torch.float)
        self.discount = torch.tensor(discount)
        self.eps = torch.tensor(-1e-6)

    def forward(self, ratio):
        return torch.min(self.clip, ratio) * self.discount + self.eps
"""
        ),
        Valid(
            """
import torch
from torch import nn
class EqualizationObserver(nn.Module):
    def __init__(self):
        super().__init__()
        self.equalization_scale = torch.tensor(1)
    def set_equalization_scale(self, scale, shape):
        self.equalization_scale = torch.reshape(scale, shape)
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Detect(nn.Module):
    def __init__(self, levels):
        super().__init__()
        self.stride = torch.zeros(levels)
        self.anchors = torch.empty(0)
class Segment(Detect):
    def __init__(self, levels):
        super().__init__(levels)
class DetectionModel(nn.Module):
    def _apply(self, fn):
        self = super()._apply(fn)
        head = self.model[-1]
        head.stride = fn(head.stride)
        head.anchors = fn(head.anchors)
        return self
"""
        ),
        Valid(
            """
import torch
from torch import nn

def add_head_config(cfg):
    cfg.MODEL.HEAD.POSITIVE_WEIGHT = 1.5

class Head(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.pos_weight = torch.tensor(cfg.MODEL.HEAD.POSITIVE_WEIGHT, dtype=torch.float32)
"""
        ),
        Valid(
            """
import numpy as np
import torch
from torch import nn

def relative_positions(n):
    grid = np.arange(n)
    return (grid[:, None] - grid[None, :]) * -1

class Encoder(nn.Module):
    def __init__(self, n=16):
        super().__init__()
        self.positions = relative_positions(n)  # a NumPy array, not a tensor
        self.register_buffer("mask", torch.ones(n, n))
        self.mask = self.mask.tril()  # still the registered buffer, reshaped
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

class LocallyConnected(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.w = nn.Parameter(torch.randn(d, k))
        self.v = nn.Parameter(torch.randn(k, d))
        self.weight_sampled = torch.empty((d, d), requires_grad=False)  # left over

    def forward(self, x):
        # self.weight = self.weight_sampled
        return x @ (self.w @ self.v)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from torch import nn
import torch.nn.functional as F


class Downsample(nn.Module):
    def __init__(self, factor, cuda=True):
        super().__init__()
        self.kernel = torch.ones(3, 1, factor * 4, 1) / (factor * 4)  # TCK606
        self.suffix = ".cuda" if cuda else ""

    def forward(self, x):
        weights = self.kernel.type(torch.float32)
        return F.conv2d(x, weights, groups=3)
"""
        ),
        Invalid(
            """
import torch
from torch import nn

ELEMENT_FEATURES = {1: [1.0, 0.0], 2: [0.0, 1.0]}


class Decoder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc = nn.Linear(hidden, 2)
        self.embedding = torch.zeros(100, 2)  # TCK606
        for i in range(2):
            self.embedding[i] = torch.tensor(ELEMENT_FEATURES[i + 1])

    def forward(self, z):
        return self.fc(z) @ self.embedding[:2].T
"""
        ),
        Invalid(
            """
import torch
import torch.nn as nn

class MelSTFTLoss(nn.Module):
    def __init__(self, filterbank, device=None):
        super().__init__()
        self.fb = torch.tensor(filterbank).unsqueeze(0)  # TCK606
        if device is not None:
            self.fb = self.fb.to(device)

    def forward(self, x_mag, y_mag):
        return (torch.matmul(self.fb, x_mag) - torch.matmul(self.fb, y_mag)).abs().mean()
"""
        ),
        Invalid(
            """
import torch
from torch import nn

class BesselBasis(nn.Module):
    def __init__(self, r_max, num_basis=8, trainable=True):
        super().__init__()
        self.r_max = r_max
        self.weights = torch.linspace(1.0, num_basis, num_basis) * torch.pi  # TCK606
        if trainable:
            self.weights = nn.Parameter(self.weights)

    def forward(self, x):
        return torch.sin(self.weights * x.unsqueeze(-1) / self.r_max)
"""
        ),
        Invalid(
            """
import torch
from torch import nn
class Embedding(nn.Module):
    def __init__(self, n_freqs, dim):
        super().__init__()
        self.freq_bands = torch.randn(n_freqs, dim)  # TCK606
    def forward(self, x):
        out = [x]
        for freq in self.freq_bands:  # rows of a 2-D tensor, left on the CPU
            out.append(torch.sin(freq * x))
        return torch.cat(out, -1)
"""
        ),
        Invalid(
            """
import torch
import torch.nn as nn

class LocallyConnected(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.w = nn.Parameter(torch.randn(d, k))
        self.mask = torch.ones((d, d))  # TCK606

def masked(layer, x):
    return x @ (layer.w @ layer.w.t() * layer.mask)
"""
        ),
        Invalid(
            """
import torch
from torch import nn

class GridGenerator(nn.Module):
    def __init__(self, points, batch_size):
        super().__init__()
        self.P_hat = torch.tensor(points).float()
        self.batch_P_hat = self.P_hat.repeat(batch_size, 1, 1)  # TCK606

    def forward(self, coefficients):
        return torch.bmm(self.batch_P_hat, coefficients)
"""
        ),
        Invalid(
            """
import torch
from torch import nn

class Table(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.weights = Table.build(n, d)  # TCK606

    @staticmethod
    def build(n, d):
        return torch.arange(n * d, dtype=torch.float).view(n, d)

    def forward(self, ids):
        return self.weights[ids]
"""
        ),
        Invalid(
            """
import torch
from torch import nn

class CustomizedLinear(nn.Module):
    def __init__(self, mask):
        super().__init__()
        if isinstance(mask, torch.Tensor):
            self.mask = nn.Parameter(mask.float(), requires_grad=False)
        else:
            self.mask = torch.tensor(mask, dtype=torch.float).t()  # TCK606

    def forward(self, x, weight):
        return x @ (weight * self.mask)
"""
        ),
        Invalid(
            """
import torch
from torch import nn

class RecurrentBlock(nn.Module):
    def __init__(self, size, device):
        super().__init__()
        self.gate = nn.Linear(size, size)
        self.state = torch.zeros(1, 1, size, device=device)  # TCK606
        self.low = torch.zeros(1, size)  # TCK606

    def forward(self, x):
        cell = torch.sigmoid(self.gate(x)) * self.state  # reads what __init__ stored
        self.state = cell[:, -1:].detach()
        if self.training:
            self.low = x.min(dim=0, keepdim=True).values  # set on one path only
        return cell - self.low
"""
        ),
        Invalid(
            """
import torch
from torch import nn
class Causal(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = torch.tril(torch.ones(n, n))  # TCK606
    def forward(self, scores):
        return scores.masked_fill(self.mask == 0, float("-inf"))
"""
        ),
        Invalid(
            """
import torch as T
class Normalize(T.nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = T.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)  # TCK606
        self.std: T.Tensor = T.ones(3) * 0.2  # TCK606
    def forward(self, x):
        return (x - self.mean) / self.std
"""
        ),
        Invalid(
            """
import math
import torch
from torch import nn

def alibi_bias(heads, patches):
    slopes = torch.tensor([2 ** (-8 * (i + 1) / heads) for i in range(heads)]).unsqueeze(1)
    distances = torch.tensor([float(abs(i - j)) for i in range(patches) for j in range(patches)])
    bias = distances.view(1, patches, patches) * slopes.unsqueeze(-1) * -1
    return bias.unsqueeze(0)

class Encoder(nn.Module):
    def __init__(self, heads=4, patches=16):
        super().__init__()
        self.attn_bias = alibi_bias(heads, patches)  # TCK606
        self.onehot = self.one_hot(patches)  # TCK606
        self.onehot = self.onehot.permute(1, 0)
    def one_hot(self, n):
        table = torch.FloatTensor(n, n).zero_()
        return table.fill_diagonal_(1).unsqueeze(0).repeat(2, 1, 1)
    def forward(self, x):
        return x + self.attn_bias.mean() + self.onehot.sum()
"""
        ),
        Invalid(
            """
import torch
from torch import nn
class Embedding(nn.Module):
    def __init__(self, mean=None, length=64):
        super().__init__()
        self.grid = torch.linspace(-1, 1, length)[..., None]  # TCK606
        self.mean = torch.tensor(mean).view(-1, 1, 1) if mean else None  # TCK606
        self.positions = self._sinusoids(length)  # TCK606
    def _sinusoids(self, length):
        angles = torch.arange(length)[:, None] / 10000.0
        return torch.cat([angles.sin(), angles.cos()], dim=-1)
    def forward(self, x):
        return (x - self.mean) * self.grid + self.positions
"""
        ),
        Invalid(
            """
import torch
from torch import nn
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len, device):
        super().__init__()
        self.encoding = torch.zeros(max_len, d_model, device=device)  # TCK606
        self.anchors = torch.tensor([[10, 13], [16, 30]]).float().to(device)  # TCK606
        self.causal = torch.tril(torch.ones(max_len, max_len, device=device)).bool()  # TCK606
    def forward(self, x, boxes):
        scores = (x + self.encoding[: x.size(1)]) @ x.transpose(-2, -1)
        return scores.masked_fill(~self.causal, float("-inf")), boxes * self.anchors
"""
        ),
        Invalid(
            """
import torch
from torch import nn

def add_head_config(cfg):
    cfg.MODEL.HEAD.PIXEL_MEAN = [103.53, 116.28, 123.675]

class Head(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.pixel_mean = torch.tensor(cfg.MODEL.HEAD.PIXEL_MEAN)  # TCK606
        self.pixel_std = torch.tensor(cfg.MODEL.HEAD.PIXEL_STD)  # TCK606

    def forward(self, images):
        return (images - self.pixel_mean) / self.pixel_std
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._classes: dict[cst.ClassDef, _ClassState] = {}  # the torch module classes of the file
        self._entry_depth: dict[cst.FunctionDef, int] = {}  # how long the walk's path was at each def

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        if self.in_torch_module:
            self._classes[node] = _ClassState()

    def leave_Module(self, node: cst.Module) -> None:
        """Decide at the end of the file: a later class's ``_apply`` may move an attribute,
        and a subclass inherits the device handling of its bases."""
        by_name, moved_by_apply = {cls.name.value: cls for cls in self._classes}, set()
        for cls, state in self._classes.items():  # an `_apply` that moves tensors we cannot name: trust it
            methods = methods_of(cls)
            moved = moved_attributes(methods["_apply"]) if "_apply" in methods else set()
            moved_by_apply |= moved
            state.handles_everything |= ("_apply" in methods and not moved) or not _HANDLING_METHODS.isdisjoint(methods)
        for cls, state in self._classes.items():
            set_at_run_time = {  # a placeholder re-bound later, or runtime state set before every read
                candidate.attribute for candidate in state.candidates if candidate.attribute in state.rebound
                and (candidate.placeholder or not self._init_value_read(cls, candidate.attribute, state.rebound[candidate.attribute]))
            }
            handled = state.handled | moved_by_apply | set_at_run_time
            for candidate in state.candidates:
                # `self.mask = nn.Parameter(self.mask, requires_grad=False)` in `__init__`, on its path
                rebound = candidate.attribute in handled or not self.context.reads_attribute(candidate.attribute) or any(references.runs_whenever(self.context.binder, candidate.assignment, other) for other in state.set_in_init.get(candidate.attribute, ()))
                if not rebound and not moved_at_every_read(self.context, cls, candidate.attribute, candidate.assignment) and not self._inherits_handling(cls, by_name, frozenset()):
                    message = _PLACED_MESSAGE if candidate.placed or candidate.attribute in state.placed else None  # not moved at every read
                    self.report(candidate.assignment, message, conditions=_conditions(candidate.attribute, candidate.setting))

    def _inherits_handling(self, cls: cst.ClassDef, by_name: dict[str, cst.ClassDef], seen: frozenset[str]) -> bool:
        """The class, or one of its bases of this file, takes over device moves or state."""
        bases = {name for base in cls.bases if (name := dotted_name(base.value)) in by_name and name not in seen}
        seen |= {cls.name.value}
        return self._classes[cls].handles_everything or any(self._inherits_handling(by_name[base], by_name, seen) for base in bases)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._entry_depth[node] = len(self.context.flow.path)
        super().visit_FunctionDef(node)

    def _tensor_built(self, value: cst.BaseExpression) -> bool:
        """``torch.zeros(...)``, ``torch.tensor(...).view(...)``, ``torch.ones(3) * 0.2``,
        ``torch.linspace(...)[..., None]``, ``torch.tensor(m) if m else None``, and a call of
        a function of this file (``self._build_pe(...)``) whose summary returns a tensor."""
        if isinstance(value, cst.BinaryOperation):
            return self._tensor_built(value.left) or self._tensor_built(value.right)
        if isinstance(value, cst.Subscript):
            return self._tensor_built(value.value)
        if isinstance(value, cst.IfExp):
            branches = [branch for branch in (value.body, value.orelse) if not is_none(branch)]
            return bool(branches) and all(self._tensor_built(branch) for branch in branches)
        if not isinstance(value, cst.Call):
            return False
        if self.context.call_name(value) in torch_api.VARIABLE and value.args and not value.args[0].keyword:
            return self._tensor_built(value.args[0].value)  # `Variable(torch.zeros(1))`: the tensor itself
        root, methods = value, []
        # `torch.ones(n).float()`: down to the first call; `self._build_pe(...)` is a helper, not a method
        while (called := method_call(root)) is not None and isinstance(called[0], cst.Call) and self.context.call_name(root) is None:
            root, methods = called[0], [*methods, called[1]]
        if self.context.call_name(root) in _TENSOR_BUILDERS:
            scalar = root if torch_api.SHAPE_AND_PLACE_KEEPING_METHODS.issuperset(methods) else value  # `torch.tensor(1.).requires_grad_()`
            return self.context.kind_of(value) in TENSOR_KINDS and not (self._scalar_tensor(scalar) or is_zero_dim(self.context, value))
        return not _LEAVING_TENSORS.intersection(methods) and self._helper_returns_tensor(root)

    def _tensor_data(self, value: cst.BaseExpression) -> cst.BaseExpression | None:
        """``data`` in ``torch.tensor(data, ...)``, also under elementwise functions (``torch.sqrt(torch.tensor(d))``)."""
        while isinstance(value, cst.Call) and len(value.args) == 1 and self.context.call_name(value) in torch_api.ELEMENTWISE_FUNCTIONS:
            value = value.args[0].value
        first = value.args[0] if isinstance(value, cst.Call) and value.args and self.context.call_name(value) == "torch.tensor" else None
        return first.value if first is not None and first.keyword is None and not first.star else None

    def _scalar_tensor(self, value: cst.Call) -> bool:
        """``torch.tensor(0.5)`` of a number - a literal, a parameter's default, a module
        constant bound once: a 0-dim CPU tensor, which PyTorch combines with tensors on any
        device, so leaving it behind on ``.to(device)`` breaks nothing."""
        data = self._tensor_data(value)
        if not isinstance(data, cst.Name) or self.context.kind_of(data) is Kind.NUMBER:  # also `isinstance(x, float)`
            return data is not None and (isinstance(data, cst.Name) or is_number_literal(data))
        binder = self.context.binder
        bindings = binder.bindings_of(data.value, binder.scope_of(data))
        defaulted = any(isinstance(binding.node, cst.Param) and binding.node.default is not None and is_number_literal(binding.node.default) for binding in bindings)
        constant = bindings[0].node if len(bindings) == 1 and bindings[0].scope is binder.module_scope else None
        top_level = constant is not None and isinstance(binder.parent(binder.parent(constant)), cst.Module)  # not under an `if`
        return defaulted or (top_level and isinstance(constant, cst.Assign) and len(constant.targets) == 1 and is_number_literal(constant.value))

    def _helper_returns_tensor(self, call: cst.Call) -> bool:
        """A function of this file whose summary returns a tensor. One known to be a tensor
        only through ``.transpose()``/``.T`` is left out: NumPy arrays have those too."""
        return (summary := self.context.call_summary(call)) is not None and summary.returns.kind in TENSOR_KINDS and not summary.returns.non_contiguous

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.assigned(node, node.target, None)

    def assigned(self, statement: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        """``self.x = <tensor>`` in ``__init__`` is a candidate; any other binding of
        ``self.x`` (a ``Parameter``, runtime state, ``self.x += ...``) handles it."""
        state = self._classes.get(self.context.current_class)  # type: ignore[arg-type]
        if state is None:
            return
        if type(target) in (cst.Tuple, cst.List):
            state.handled.update(filter(None, (self_attribute(element.value, self.self_name) for element in target.elements)))
            return
        attribute = self_attribute(target, self.self_name)
        if attribute is None:
            return
        method, function = self.method, self.context.flow.function
        in_init = method is not None and method is function and method.name.value == "__init__"
        # `self.batch_P = self.P.repeat(n, 1, 1)`: a new plain tensor from one `__init__` built
        if in_init and value is not None and (self._tensor_built(value) or self._tensor_methods_on(value) in {found.attribute for found in state.candidates} - {attribute}):
            data = self._tensor_data(value)
            setting = setting_path(data) if data is not None else None
            state.candidates.append(_Candidate(statement, attribute, setting, placed_on_device(self.context, value), _empty(value)))
        elif not in_init and method is not None:
            # runtime state set by another method: it handles the attribute only if it is set
            # before every read there (`self.h = x.mean()` first); `self.h += ...` reads it first
            writes = isinstance(statement, (cst.Assign, cst.AnnAssign))
            surely = writes and self._surely_runs(function, attribute)  # type: ignore[arg-type]
            state.rebound.setdefault(attribute, []).append((target, surely))
        elif in_init and not (value is not None and self._reshapes(value, attribute)):  # not `self.tem = self.tem.permute(2, 0, 1)`
            state.set_in_init.setdefault(attribute, []).append(statement)
        elif not in_init:
            state.handled.add(attribute)

    def _surely_runs(self, function: cst.FunctionDef, attribute: str) -> bool:
        """The statement being walked runs whenever its method does while ``__init__``'s
        value is still in place: in no branch or loop of the method that may be skipped,
        except under a test of the attribute itself (a sentinel: ``if self.cache.numel() == 0:``,
        ``if self.state is None:``). Asked of the walk's path: no parent map is needed."""
        branches = self.context.flow.path[self._entry_depth.get(function, 0) :]
        return all(
            not branch.is_conditional or (isinstance(branch.owner, cst.If) and self._tests(branch.owner.test, attribute))
            for branch in branches
        )

    def _tests(self, test: cst.BaseExpression, attribute: str) -> bool:
        return any(self_attribute(node, self.self_name) == attribute for node in subtree(test) if isinstance(node, cst.Attribute))

    def _init_value_read(self, cls: cst.ClassDef, attribute: str, rebound: list[tuple[cst.CSTNode, bool]]) -> bool:
        """Whether a method other than ``__init__`` reads ``self.<attribute>`` before any re-binding
        of its that surely runs: then the tensor ``__init__`` stored is used."""
        binder = self.context.binder
        by_name = references.self_attributes_by_name(binder, cls)
        if by_name is None:
            return False  # `self` handed on: the reads cannot all be seen
        found = by_name.get(attribute, [])
        order = {id(node): index for index, node in enumerate(found)}
        sure = [(order.get(id(target), -1), binder.enclosing(target, cst.FunctionDef)) for target, surely in rebound if surely]
        for index, node in enumerate(found):
            method, above = binder.enclosing(node, cst.FunctionDef), binder.parent(node)
            # skipped: `__init__`, a write (`self.x += 1` reads too), a metadata read (`self.x.numel()`)
            written = references.is_bound(binder, node) and not isinstance(above, cst.AugAssign)
            metadata = isinstance(above, cst.Attribute) and above.value is node and above.attr.value in _METADATA
            if method is None or method.name.value == "__init__" or written or metadata:
                continue
            if not any(method is where and position < index for position, where in sure):
                return True
        return False

    def _reshapes(self, value: cst.BaseExpression, attribute: str) -> bool:
        """``value`` is a chain of tensor methods on ``self.<attribute>`` itself that keeps it a
        tensor (a move, ``.to(device)``, is a call of its own that handles the attribute)."""
        return self._tensor_methods_on(value) == attribute

    def _tensor_methods_on(self, value: cst.BaseExpression) -> str | None:
        """The attribute ``value`` applies a chain of tensor-keeping methods to (``self.P.repeat(n, 1, 1)``)."""
        methods = []
        while (called := method_call(value)) is not None and self.context.call_name(value) is None:  # type: ignore[arg-type]
            value, methods = called[0], [*methods, called[1]]
        kept = bool(methods) and all(tensor_method_kind(method) is Kind.TENSOR for method in methods)
        return self_attribute(value, self.self_name) if kept else None

    def visit_Call(self, node: cst.Call) -> None:
        state = self._classes.get(self.context.current_class)  # type: ignore[arg-type]
        if state is None or not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        if method in _MOVING_METHODS and (attribute := self_attribute(node.func.value, self.self_name)) is not None:
            in_init = self.method is not None and self.method.name.value == "__init__"  # `__init__` only places it
            (state.placed if in_init else state.handled).add(attribute)
        elif method in ("register_buffer", "register_parameter") and isinstance(node.func.value, cst.Name) and node.func.value.value == self.self_name:
            name = node.args[0].value if node.args else None
            if isinstance(name, cst.SimpleString) and isinstance(name.evaluated_value, str):
                state.handled.add(name.evaluated_value)
            else:
                state.handles_everything = True
