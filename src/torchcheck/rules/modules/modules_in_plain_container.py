from __future__ import annotations

from dataclasses import replace

import libcst as cst

from torchcheck.lint import references, torch_api
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import is_none, self_attribute
from torchcheck.lint.project import STATEFUL_MODULE, TORCH_MODULE, Condition
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid
from torchcheck.rules.modules._plain_containers import PlainContainerRule

_LIST_MESSAGE = (
    "Modules in a plain list are not registered: not in `parameters()`, not moved by `.to()`, "
    "not saved; use `nn.ModuleList`"
)
_DICT_MESSAGE = (
    "Modules in a plain dict are not registered: not in `parameters()`, not moved by `.to()`, "
    "not saved; use `nn.ModuleDict`"
)


# Losses whose first parameter is a per-class `weight` tensor.
_WEIGHT_FIRST_LOSSES = frozenset({"CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "MultiLabelSoftMarginLoss"})


def constructs_module(rule: Rule, call: cst.Call) -> bool:
    """``nn.Linear(...)``, ``Block(...)`` (a module class of this file), ``nn.Conv2d(...).to(d)``.

    Loss modules count only when they hold state: a list of plain loss functions is a common,
    harmless pattern, but ``nn.CrossEntropyLoss(weight=w)`` keeps ``w`` as a buffer that
    ``.to()`` must move and ``state_dict()`` saves.
    """
    qualified = rule.context.call_name(call)
    if qualified is not None:
        if not torch_api.is_module_class_name(qualified):
            return False
        return not qualified.endswith("Loss") or _loss_holds_weights(call, qualified.rsplit(".", 1)[-1])
    func = call.func
    if isinstance(func, cst.Name) or self_attribute(func) is not None:  # `self.conv_fn(...)` of a `functools.partial`
        return rule.context.kind_of(call) is Kind.MODULE
    if isinstance(func, cst.Attribute) and func.attr.value in torch_api.MODULE_SELF_METHODS and isinstance(func.value, cst.Call):
        return constructs_module(rule, func.value)
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and references.class_named(rule.context.binder, func.value.value):
        return rule.context.kind_of(call) is Kind.MODULE  # `Tokenization.from_tokenizer(...)`: a classmethod returning `cls(...)`
    return False


def _loss_holds_weights(call: cst.Call, loss: str) -> bool:
    for argument in call.args:
        if argument.keyword is not None and argument.keyword.value in ("weight", "pos_weight"):
            return not is_none(argument.value)
    first = call.args[0] if call.args else None
    return first is not None and first.keyword is None and not first.star and loss in _WEIGHT_FIRST_LOSSES and not is_none(first.value)


class ModulesInPlainContainer(PlainContainerRule):
    """
    ## What it does
    Checks for `nn.Module` subclasses that keep submodules in a plain `list`, `tuple` or
    `dict` attribute (`self.layers = [nn.Linear(...), ...]`, nested containers such as
    `[[nn.Linear(...), nn.ReLU()]]`, also a local list of modules appended whole, or a
    constructor parameter stored whole, `self.nets = nets`, when a call of the class in the file
    or the parameter's default passes such a container - one such call is enough - or its
    annotation says its items are modules, `metrics: Optional[list[nn.Module]]`, also stored
    as `metrics if metrics is not None else []`; no fix is offered there, as other callers
    may pass something else), or an empty list later filled with
    `self.layers.append(...)`, `.extend(...)`, `self.layers += [...]` or
    `self.layers = self.layers + [...]`). A call of a `functools.partial` of a module class builds a module. A container counts when any of its items is a
    module (`[nn.Linear(...), getattr(nn, act)()]`, also a library's: torchmetrics' metrics keep
    their state in buffers); loss modules count when they hold state,
    a per-class `weight` or `pos_weight` (`nn.CrossEntropyLoss(weight=w)` keeps `w` as a
    buffer), while a list of plain loss functions is left alone, and so is a container of
    modules that hold no state - no parameters, no buffers, the same computation in train and
    eval mode (`[nn.AvgPool1d(k) for k in sizes]`, activations, padding, or a module class of
    the file built only of those, of such classes and of plain values), whether written in
    place or filled later: it loses nothing. An instance of a class of
    another file of the project counts when that class derives from `nn.Module` there, and so
    does one a class's classmethod builds (`Tokenization.from_tokenizer(...)` returning
    `cls(...)`); a local bound to a list of them and then stored whole (`self.tokens = tokens`)
    is that list. A container that is only an index of modules registered elsewhere under a name
    (`self.add_module(name, layer)`, `setattr(parent, name, layer)`, `self.__setattr__(name, layer)`,
    `parent.set_submodule(path, layer)`, or a function of the file that does so) is left alone,
    as is one whose items are handed to an `nn` container (`nn.ModuleList(list(self.convs.values()))`).
    A container that the class's own `parameters()` or `state_dict()` override walks (a
    multi-agent critic registering its per-agent networks by hand) is left alone too.
    An attribute assigned anew in the loop that appends it (`self.conv = build()`, then
    `self.convs.append(self.conv)`) registers only the last iteration's module: that list
    is reported.

    ## Why is this bad?
    A module registers the submodules assigned to its attributes, but it does not look
    inside plain Python containers. Modules in a list are missing from `parameters()` (so
    the optimizer never updates them), from `state_dict()` (so they are not saved or
    loaded), and are not moved by `.to(device)` or switched by `.train()`/`.eval()`.
    The model still runs on the CPU, which is why this goes unnoticed. `nn.ModuleList` and
    `nn.ModuleDict` behave like a list and a dict and register their contents.

    ## Example
    ```python
    from torch import nn

    class MLP(nn.Module):
        def __init__(self, sizes):
            super().__init__()
            self.layers = [nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]
    ```

    Use instead:
    ```python
    from torch import nn

    class MLP(nn.Module):
        def __init__(self, sizes):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])
    ```

    ## Fix safety
    The fix wraps the container in `nn.ModuleList(...)` / `nn.ModuleDict(...)` (or replaces
    an empty `[]`/`{}` that is filled later). It is safe: both containers support indexing,
    iteration, `len()`, `append`/`extend` and item assignment, and registering the modules
    is what the code meant. It is offered only where the file can spell `nn` or
    `torch.nn`, for dicts only when every key is a string (`nn.ModuleDict` requires
    string keys), and not for nested containers (the inner lists need their own
    `nn.ModuleList` or `nn.Sequential`). Checkpoints saved before the fix lack the newly registered weights.

    ## References
    - [`torch.nn.ModuleList`](https://pytorch.org/docs/stable/generated/torch.nn.ModuleList.html)
    - [`torch.nn.ModuleDict`](https://pytorch.org/docs/stable/generated/torch.nn.ModuleDict.html)
    - [`torch.nn.Module`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html)
    """

    code = "TCK601"
    name = "modules-in-plain-container"
    message = _LIST_MESSAGE
    fix_title = "Use `nn.ModuleList` / `nn.ModuleDict`"
    fix_safety = FixSafety.SAFE
    required_text = ("nn",)
    list_class = "torch.nn.ModuleList"
    dict_class = "torch.nn.ModuleDict"
    list_class_concatenates = True
    element_kind = Kind.MODULE

    VALID = (
        Valid(
            """
from torch import nn
class Diffusion(nn.Module):
    def __init__(self, reverse_nets, steps):
        super().__init__()
        self.reverse_nets = reverse_nets
        self.steps = steps
def build(steps):
    nets = nn.ModuleList([nn.Sequential(nn.Linear(8, 8), nn.Tanh()) for _ in range(steps)])
    return Diffusion(nets, steps)
def gates(steps):
    return Diffusion([nn.Tanh(), nn.ReLU()], steps)  # modules that hold no state lose nothing
"""
        ),
        Valid(
            """
from torch import nn
class Stack(nn.Module):
    def __init__(self, blocks):
        super().__init__()
        self.names = []
        self.names.append(*[type(block).__name__ for block in blocks][:1])  # nothing the reader can judge
"""
        ),
        Valid(
            """
import torch
from torch import nn
class AttributeLoss(nn.Module):
    def __init__(self, name, weight):
        super().__init__()
        self.name = name
        self.weight = weight
    def forward(self, outputs, lengths):
        loss, prior = flow_loss(outputs[self.name], lengths)
        return self.weight * (loss + prior)
class TTSLoss(nn.Module):
    def __init__(self, configs):
        super().__init__()
        self.loss_fns = {}  # filled only with modules that hold plain values: nothing is lost
        for name, weight in configs:
            self.loss_fns[name] = AttributeLoss(name, weight)
"""
        ),
        Valid(
            """
import functools
from torch import nn
def scaled(x, factor):
    return x * factor
class Encoder(nn.Module):
    def __init__(self, widths):
        super().__init__()
        halve = functools.partial(scaled, factor=0.5)
        self.shapes = []
        self.scales = []
        for width in widths:
            shape = []
            shape.append(width)
            self.shapes.append(shape)  # a list of numbers
            self.scales.append(halve(width))
        self.convs = nn.ModuleList(nn.Conv3d(w, w, 3) for w in widths)
"""
        ),
        Valid(
            """
from torch import nn
class PoseNet(nn.Module):
    def __init__(self, frames):
        super().__init__()
        self.convs = {}
        self.convs[0] = nn.Conv2d(3 * frames, 16, 7, 2, 3)
        self.convs[1] = nn.Conv2d(16, 32, 5, 2, 2)
        self.net = nn.ModuleList(list(self.convs.values()))
"""
        ),
        Valid(
            """
import torch
from torch import nn

class MovingAverage(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.kernel_size = kernel_size
        self.pool = nn.AvgPool1d(kernel_size, stride=1)

    def forward(self, x):
        return self.pool(torch.cat([x[:, :1].repeat(1, self.kernel_size - 1), x], dim=1))

class Split(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.average = MovingAverage(kernel_size)

    def forward(self, x):
        trend = self.average(x)
        return x - trend, trend

class Decomposition(nn.Module):
    def __init__(self, kernel_sizes):
        super().__init__()
        self.averages = [MovingAverage(k) for k in kernel_sizes]
        self.splits = [Split(k) for k in kernel_sizes]
        self.activations = [nn.ReLU(), nn.GELU(), nn.MaxPool2d(2)]
        self.mix = nn.Linear(1, len(kernel_sizes))
"""
        ),
        Valid(
            """
import torch.nn as nn

class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
        self._norms = []
        for module in self.modules():
            if isinstance(module, nn.BatchNorm2d):
                self._norms.append(module)
"""
        ),
        Valid(
            """
import torch.nn as nn

class Mlp(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.fcs = []
        for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
            fc = nn.Linear(a, b)
            self.__setattr__("fc{}".format(i), fc)
            self.fcs.append(fc)
"""
        ),
        Valid(
            """
import torch.nn as nn

class ResNet(nn.Module):
    def __init__(self, stages):
        super().__init__()
        self.stages_and_names = []
        for i, blocks in enumerate(stages):
            stage = nn.Sequential(*blocks)
            name = "res" + str(i + 2)
            self.add_module(name, stage)
            self.stages_and_names.append((stage, name))
"""
        ),
        Valid(
            """
import torch.nn as nn
class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 2)})
"""
        ),
        Valid(
            """
from torch import nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3)
        self.conv2 = nn.Conv2d(8, 8, 3)
        self.stages = [self.conv1, self.conv2]
        self.names = ["conv1", "conv2"]
"""
        ),
        Valid(
            """
from torch import nn
class Net(nn.Module):
    def __init__(self, depth):
        super().__init__()
        blocks = []
        for i in range(depth):
            blocks.append(nn.Linear(8, 8))
        self.blocks = nn.Sequential(*blocks)
        self.layers = []
        for i in range(depth):
            self.layers.append(nn.Linear(8, 8))
        self.layers = nn.ModuleList(self.layers)
"""
        ),
        Valid(
            """
from torch import nn
class Net(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.layers = []
        for i in range(depth):
            layer = nn.Linear(8, 8)
            self.add_module(f"layer{i}", layer)
            self.layers.append(layer)
"""
        ),
        Valid(
            """
from torch import nn
class SemanticHead(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.heads = []
        for name in features:
            self.heads.append(nn.Sequential(nn.Conv2d(8, 8, 3), nn.ReLU()))
            self.add_module(name, self.heads[-1])
"""
        ),
        Valid(
            """
from torch import nn
class PoolingBlock(nn.Module):
    def __init__(self, scale, channels):
        super().__init__()
        self.layers = [nn.AdaptiveAvgPool2d(scale), nn.Conv2d(channels, channels, 1)]
        for i, layer in enumerate(self.layers):
            self.add_module(str(i), layer)
"""
        ),
        Valid(
            """
from torch import nn
class Net(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.blocks = [nn.Linear(8, 8) for _ in range(depth)]
        self.body = nn.Sequential(*self.blocks)
"""
        ),
        Valid(
            """
from torch import nn
class EMA(nn.Module):
    def __init__(self, model):
        super().__init__()
        self._model = [model]  # deliberately hidden from parameters()
        self.losses = [nn.MSELoss(), nn.L1Loss()]
"""
        ),
        Valid(
            """
from functools import reduce
from torch import nn
def set_module_by_path(model, path, new_module):
    *parents, name = path.split(".")
    setattr(reduce(getattr, parents, model), name, new_module)
class Adapter(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner
class Adapted(nn.Module):
    def __init__(self, net, paths):
        super().__init__()
        self.net = net
        self.adapters = {}  # an index: each adapter is installed into self.net
        for path in paths:
            adapter = Adapter(net.get_submodule(path))
            set_module_by_path(net, path, adapter)
            self.adapters[path] = adapter
        self.heads = []
        for path in paths:
            head = nn.Linear(8, 8)
            net.set_submodule(path, head)
            self.heads.append(head)
"""
        ),
        Valid(
            """
import flax.linen as nn
class MLP(nn.Module):
    def setup(self):
        self.layers = [nn.Dense(8) for _ in range(3)]
"""
        ),
        Valid(
            """
from torch import nn
class Builder:
    def __init__(self):
        self.layers = [nn.Linear(8, 8)]
"""
        ),
        Valid(
            """
from collections import OrderedDict
from torch import nn
class Net(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.layers = []
        for _ in range(depth):
            self.layers = self.layers + [nn.Linear(8, 8)]
        self.layers = nn.ModuleList(self.layers)
        self.extra = []
        self.extra += [nn.Linear(8, 8), nn.ReLU()]
        self.head = nn.Sequential(*self.extra)
        self.shapes = [[8, 8], [8, 4]]
        self.named = [("fc", nn.Linear(8, 8))]
        self.body = nn.Sequential(OrderedDict(self.named))
"""
        ),
        Valid(
            """
import torch.nn as nn

class Pooling(nn.Module):
    def __init__(self, dim, levels):
        super().__init__()
        self.shared = nn.Linear(dim, dim)
        self.by_level = []
        for _ in range(levels):
            self.by_level.append(self.shared)
"""
        ),
        Valid(
            """
import torch.nn as nn

class CriticNS(nn.Module):
    def __init__(self, n_agents, dim):
        super().__init__()
        self.n_agents = n_agents
        self.critics = [nn.Linear(dim, 1) for _ in range(n_agents)]

    def forward(self, x):
        return [critic(x) for critic in self.critics]

    def parameters(self):
        params = []
        for critic in self.critics:
            params += list(critic.parameters())
        return params

    def state_dict(self):
        return [critic.state_dict() for critic in self.critics]
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch import nn
class Tokenization(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.tokens = nn.Embedding(n, 8)

    @classmethod
    def from_sizes(cls, n):
        return cls(n)

class NodePiece(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        tokenizations = [Tokenization.from_sizes(n) for n in sizes]
        self.tokenizations = tokenizations  # TCK601
""",
            expected_replacement="""
from torch import nn
class Tokenization(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.tokens = nn.Embedding(n, 8)

    @classmethod
    def from_sizes(cls, n):
        return cls(n)

class NodePiece(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        tokenizations = [Tokenization.from_sizes(n) for n in sizes]
        self.tokenizations = nn.ModuleList(tokenizations)  # TCK601
""",
        ),
        Invalid(
            """
from typing import Optional
from torch import nn
class BaseModel(nn.Module):
    def __init__(self, loss: nn.Module, logging_metrics: Optional[list[nn.Module]] = None):
        super().__init__()
        self.loss = loss
        self.logging_metrics = logging_metrics if logging_metrics is not None else []  # TCK601
"""
        ),
        Invalid(
            """
from torch import nn
class Identity:
    def __call__(self, x):
        return x
class Wrapper(nn.Module):
    def __init__(self, dims, dim, use_projection):
        super().__init__()
        if not use_projection:
            self.project = [Identity() for _ in dims]
        else:
            self.project = [nn.Linear(d, dim) if d != dim else nn.Identity() for d in dims]  # TCK601
""",
            expected_replacement="""
from torch import nn
class Identity:
    def __call__(self, x):
        return x
class Wrapper(nn.Module):
    def __init__(self, dims, dim, use_projection):
        super().__init__()
        if not use_projection:
            self.project = [Identity() for _ in dims]
        else:
            self.project = nn.ModuleList([nn.Linear(d, dim) if d != dim else nn.Identity() for d in dims])  # TCK601
""",
        ),
        Invalid(
            """
from torch import nn
class Diffusion(nn.Module):
    def __init__(self, reverse_nets, steps):
        super(Diffusion, self).__init__()
        self.reverse_nets = reverse_nets  # TCK601
        self.steps = steps
def build(steps):
    nets = [nn.Sequential(nn.Linear(8, 8), nn.Tanh()) for _ in range(steps)]
    return Diffusion(nets, steps)
"""
        ),
        Invalid(
            """
import functools
from torch import nn
class Encoder(nn.Module):
    def __init__(self, widths, depth):
        super().__init__()
        conv = functools.partial(nn.Conv3d, kernel_size=3, padding=1)
        self.stages = []  # TCK601
        self.downsamples = []  # TCK601
        for before, after in zip(widths, widths[1:]):
            blocks = []
            for _ in range(depth):
                blocks.append(conv(before, before))
            self.stages.append(blocks)
            self.downsamples.append(conv(before, after))
""",
            expected_replacement="""
import functools
from torch import nn
class Encoder(nn.Module):
    def __init__(self, widths, depth):
        super().__init__()
        conv = functools.partial(nn.Conv3d, kernel_size=3, padding=1)
        self.stages = []  # TCK601
        self.downsamples = nn.ModuleList()  # TCK601
        for before, after in zip(widths, widths[1:]):
            blocks = []
            for _ in range(depth):
                blocks.append(conv(before, before))
            self.stages.append(blocks)
            self.downsamples.append(conv(before, after))
""",
        ),
        Invalid(
            """
import torch.nn as nn

class Ensemble(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.head = nn.Linear(dim, 1)
        self.blocks = [nn.Linear(dim, dim) for _ in range(n)]  # TCK601

    def parameters(self):
        return self.head.parameters()
""",
            expected_replacement="""
import torch.nn as nn

class Ensemble(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.head = nn.Linear(dim, 1)
        self.blocks = nn.ModuleList([nn.Linear(dim, dim) for _ in range(n)])  # TCK601

    def parameters(self):
        return self.head.parameters()
""",
        ),
        Invalid(
            """
import torch.nn as nn

class Pooling(nn.Module):
    def __init__(self, dim, levels):
        super().__init__()
        self.after_pool = []  # TCK601
        for _ in range(levels):
            self.conv = nn.Linear(dim, dim)
            self.after_pool.append(self.conv)
""",
            expected_replacement="""
import torch.nn as nn

class Pooling(nn.Module):
    def __init__(self, dim, levels):
        super().__init__()
        self.after_pool = nn.ModuleList()  # TCK601
        for _ in range(levels):
            self.conv = nn.Linear(dim, dim)
            self.after_pool.append(self.conv)
""",
        ),
        Invalid(
            """
import torch
from torchmetrics.classification import MulticlassAccuracy

class Task(torch.nn.Module):
    def __init__(self, loader_names, classes):
        super().__init__()
        self.net = torch.nn.Linear(16, classes)
        self.test_accuracy = [MulticlassAccuracy(num_classes=classes) for _ in loader_names]  # TCK601
""",
            expected_replacement="""
import torch
from torchmetrics.classification import MulticlassAccuracy

class Task(torch.nn.Module):
    def __init__(self, loader_names, classes):
        super().__init__()
        self.net = torch.nn.Linear(16, classes)
        self.test_accuracy = torch.nn.ModuleList([MulticlassAccuracy(num_classes=classes) for _ in loader_names])  # TCK601
""",
        ),
        Invalid(
            """
import torch
from torch_geometric.nn import GCNConv

class GCN(torch.nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.convs = [GCNConv(a, b) for a, b in zip(sizes, sizes[1:])]  # TCK601
""",
            expected_replacement="""
import torch
from torch_geometric.nn import GCNConv

class GCN(torch.nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.convs = torch.nn.ModuleList([GCNConv(a, b) for a, b in zip(sizes, sizes[1:])])  # TCK601
""",
        ),
        Invalid(
            """
from torch import nn

class Scaled(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Linear(dim, dim)

class Tower(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.drops = [nn.Dropout(0.1) for _ in range(depth)]  # TCK601
        self.scaled = [Scaled(dim) for _ in range(depth)]  # TCK601
""",
            expected_replacement="""
from torch import nn

class Scaled(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Linear(dim, dim)

class Tower(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.drops = nn.ModuleList([nn.Dropout(0.1) for _ in range(depth)])  # TCK601
        self.scaled = nn.ModuleList([Scaled(dim) for _ in range(depth)])  # TCK601
""",
        ),
        Invalid(
            """
from torch import nn

def build_layer(spec) -> nn.Module:
    return getattr(nn, spec["type"])(**spec["kwargs"])

class MergeLayer(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self._layers = []  # TCK601
        for layer in layers:
            if isinstance(layer, nn.Module):
                self._layers.append(layer)
            else:
                self._layers.append(build_layer(layer))
""",
            expected_replacement="""
from torch import nn

def build_layer(spec) -> nn.Module:
    return getattr(nn, spec["type"])(**spec["kwargs"])

class MergeLayer(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self._layers = nn.ModuleList()  # TCK601
        for layer in layers:
            if isinstance(layer, nn.Module):
                self._layers.append(layer)
            else:
                self._layers.append(build_layer(layer))
""",
        ),
        Invalid(
            """
import torch.nn as nn
class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = [nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]  # TCK601
""",
            expected_replacement="""
import torch.nn as nn
class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])  # TCK601
""",
        ),
        Invalid(
            """
import torch
class Heads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = {"cls": torch.nn.Linear(8, 2), "box": torch.nn.Linear(8, 4)}  # TCK601
        self.pair = torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)  # TCK601
""",
            expected_replacement="""
import torch
class Heads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = torch.nn.ModuleDict({"cls": torch.nn.Linear(8, 2), "box": torch.nn.Linear(8, 4)})  # TCK601
        self.pair = torch.nn.ModuleList((torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)))  # TCK601
""",
        ),
        Invalid(
            """
from torch import nn
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
class Net(Block):
    def __init__(self, depth):
        super().__init__()
        self.blocks = []  # TCK601
        for _ in range(depth):
            block = Block()
            self.blocks.append(block)
        self.by_level = {}  # TCK601
        for level in range(depth):
            self.by_level[str(level)] = nn.Linear(8, 8)
""",
            expected_replacement="""
from torch import nn
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
class Net(Block):
    def __init__(self, depth):
        super().__init__()
        self.blocks = nn.ModuleList()  # TCK601
        for _ in range(depth):
            block = Block()
            self.blocks.append(block)
        self.by_level = nn.ModuleDict()  # TCK601
        for level in range(depth):
            self.by_level[str(level)] = nn.Linear(8, 8)
""",
        ),
        Invalid(
            """
import torch.nn
class Experts(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.by_id = {i: torch.nn.Linear(8, 8) for i in range(n)}  # TCK601
"""
        ),
        Invalid(
            """
import torch.nn as tnn
class Net(tnn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [tnn.Linear(8, 8), tnn.ReLU()]  # TCK601
"""
        ),
        Invalid(
            """
from torch import nn
class Stages(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.stages = [[nn.Linear(8, 8), nn.ReLU()] for _ in range(depth)]  # TCK601
        self.blocks = []  # TCK601
        for _ in range(depth):
            self.blocks = self.blocks + [nn.Linear(8, 8)]
        self.heads = []  # TCK601
        self.heads += [nn.Linear(8, 2), nn.Linear(8, 4)]
""",
            expected_replacement="""
from torch import nn
class Stages(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.stages = [[nn.Linear(8, 8), nn.ReLU()] for _ in range(depth)]  # TCK601
        self.blocks = nn.ModuleList()  # TCK601
        for _ in range(depth):
            self.blocks = self.blocks + [nn.Linear(8, 8)]
        self.heads = nn.ModuleList()  # TCK601
        self.heads += [nn.Linear(8, 2), nn.Linear(8, 4)]
""",
        ),
        Invalid(
            """
from torch import nn
class Branches(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.branches = []  # TCK601
        for _ in range(depth):
            self.branches.append([nn.Conv2d(8, 8, 3), nn.ReLU()])
"""
        ),
    )

    def is_element_call(self, call: cst.Call) -> bool:
        return constructs_module(self, call)

    def element_condition(self, call: cst.Call) -> Condition | None:
        condition = self.context.module_condition(call)
        stateful = condition is not None and condition.fact == TORCH_MODULE
        return replace(condition, fact=STATEFUL_MODULE) if stateful else condition  # type: ignore[arg-type]

    def message_for(self, container: str) -> str:
        return _LIST_MESSAGE if container == "list" else _DICT_MESSAGE
