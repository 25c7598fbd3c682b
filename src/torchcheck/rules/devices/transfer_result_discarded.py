from __future__ import annotations

import libcst as cst

from torchcheck.lint.kinds import TENSOR_KINDS
from torchcheck.lint.project import TENSOR
from torchcheck.lint import references
from torchcheck.lint.nodes import keyword_argument, source_text
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid, fix_safety_on

# Tensor methods that return a converted copy (or the tensor itself) and never change it in place.
_CONVERSIONS = frozenset(
    {"to", "cuda", "cpu", "xpu", "mps", "half", "float", "double", "bfloat16", "long", "int", "short", "bool", "byte", "char", "pin_memory", "contiguous"}
)

# The bindings of a function's own name after which the fix assigns it back (`x = x.to(device)`):
# parameters other than `*args`/`**kwargs`, assignments, `with ... as` and `for` targets; not a
# walrus, an `except ... as`, an import, a `def` or a `class`.
_LOCAL_BINDINGS = (cst.Param, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.WithItem, cst.For)


class TransferResultDiscarded(Rule):
    """
    ## What it does
    Checks for statements such as `x.to(device)`, `x.cuda()` or `x.half()` whose result is
    thrown away, where `x` is a tensor: also one that a function or a method returns, of
    this file or of another file of the project (`t, weights = self.sampler.sample(n)` with
    a `sample` that returns two tensors), or a parameter its uses show to be one (`x.size(0)`,
    or `x[idx, :]` beside the `x.to(device)`: no module is indexed by two axes), also where
    it is handed to a function or method of the file that uses it so (`self.evaluate(vx)`
    with an `evaluate(self, x)` that asks `x.size(0)`).

    ## Why is this bad?
    `nn.Module.to()` moves the module's parameters in place, so `model.to(device)` on its
    own line works. `Tensor.to()` does not: it returns a new tensor on the device (or with
    the new dtype) and leaves `x` where it was. The line does a copy and discards it; the
    code after it keeps using the CPU (or float32) tensor, and fails with a device mismatch
    or silently runs at the wrong precision. Assign the result.

    A `.to(d)` of a tensor that every assignment reaching it builds with `device=d` (the same
    expression) is not reported: there is nothing to move.

    ## Example
    ```python
    for images, labels in loader:
        images.to(device)
        labels.to(device)
        loss = criterion(model(images), labels)
    ```

    Use instead:
    ```python
    for images, labels in loader:
        images = images.to(device)
        labels = labels.to(device)
        loss = criterion(model(images), labels)
    ```

    ## Fix safety
    The fix assigns the result back to the same name or attribute (`x = x.to(device)`),
    which is what the line was meant to do. It is safe when the code shows that the receiver
    is a tensor (built by a torch function, or checked with `isinstance`); it is unsafe when
    only a type annotation or a conventional name (a batch from something called `loader`)
    says so, because another object's `.to()` may work in place and return something else,
    even `None`, which the assignment would keep. It is not offered where assigning
    back would do something else: for an indexed receiver (`batch[0].cuda()`), which would
    copy into the original tensor; for a name the function does not bind itself (assigning
    would make a global local); and for an attribute inside an `nn.Module`
    (`self.weight.to(device)`), where assigning a plain tensor to a parameter's name raises
    `TypeError` (register such a tensor as a buffer, which `model.to()` moves). The rule
    only reports receivers known to be tensors, never modules (a function of the file that
    returns a module makes its call a module, whatever the names say) or objects whose
    `.to()` may work in place: a whole batch drawn from a loader, directly or through
    `enumerate`, `tqdm`, `zip` or `next(iter(loader))`, may be a Hugging Face
    `BatchEncoding` or a PyG `Data`, and so may any value the code reads an attribute from
    that no tensor has (`data = data[0]`, then `data.edge_index`), or calls a method no tensor
    has (`graph.number_of_nodes()`). In a notebook, an expression that ends a cell is the
    cell's output: the notebook shows the result (`preds.cpu()` as a cell's last line), so
    it is not reported unless a semicolon hides it.

    ## References
    - [`torch.Tensor.to`](https://pytorch.org/docs/stable/generated/torch.Tensor.to.html)
    - [`torch.nn.Module.to`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.to)
    - [CUDA semantics](https://pytorch.org/docs/stable/notes/cuda.html)
    """

    code = "TCK202"
    name = "transfer-result-discarded"
    message = "`Tensor.{method}()` returns a new tensor and does not change `{receiver}`; assign the result"
    fix_title = "Assign the result back"
    fix_safety = FixSafety.SAFE
    required_text = tuple(f".{method}(" for method in sorted(_CONVERSIONS))

    VALID = (
        Valid(
            """
import numpy as np
import torch


def optimise_noise(model, inputs):
    noise = torch.tensor(np.array(inputs), dtype=torch.float32, device=model.device)
    noise.requires_grad = True
    noise.to(model.device)
    return model.netG(noise)
"""
        ),
        Valid(
            """
import torch
model = torch.nn.Linear(3, 3)
model.to(device)
model.cuda()
net.half()
self.model.to(device)
"""
        ),
        Valid(
            """
import torch
x = torch.zeros(3)
x = x.to(device)
y = x.cuda()
x.to_(device) if hasattr(x, "to_") else None
"""
        ),
        Valid(
            """
from tqdm import tqdm
for batch in loader:
    batch.to(device)
    outputs = model(**batch)
for step, batch in enumerate(tqdm(train_dataloader)):
    batch.to(device)
batch = next(iter(train_dataloader))
batch.to(device)
"""
        ),
        Valid(
            """
import torch.nn as nn

def load(state_dict, device):
    clip = build_model(state_dict).to(device)
    if str(device) == "cpu":
        clip.float()
    return clip

def build_model(state_dict):
    model = nn.Linear(3, 3)
    model.load_state_dict(state_dict)
    return model.eval()
"""
        ),
        Valid(
            """
def move(thing, device):
    thing.to(device)
"""
        ),
        Valid(
            """
import torch

def embed(encoder, loader, device):
    for data in loader:
        data = data[0]
        data.to(device)
        yield encoder(data.x, data.edge_index, data.batch)
"""
        ),
        Valid(
            """
import torch

def train_epoch(loader, model, device):
    for batch in loader:
        graph_q, graph_k = batch
        graph_q.to(device)
        graph_k.to(device)
        loss = model(graph_q, graph_k)
        nodes = (graph_q.number_of_nodes() + graph_k.number_of_nodes()) / 2
"""
        ),
        Valid(
            """
import torch
x = torch.ones(3)
x.add_(1)
x.cuda(non_blocking=True).sum()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import numpy as np
import torch


def optimise_noise(model, inputs):
    noise = torch.tensor(np.array(inputs), dtype=torch.float32, device=model.device)
    noise.requires_grad = True
    noise.to("cuda:1")  # TCK202
    return model.netG(noise)
""",
            expected_replacement="""
import numpy as np
import torch


def optimise_noise(model, inputs):
    noise = torch.tensor(np.array(inputs), dtype=torch.float32, device=model.device)
    noise.requires_grad = True
    noise = noise.to("cuda:1")  # TCK202
    return model.netG(noise)
"""
        ),
        Invalid(
            """
import torch

def train_epoch(loader, model, device):
    for batch in loader:
        images, labels = batch
        images.to(device)  # TCK202
        loss = model(images, labels) / images.numel()
""",
            expected_replacement="""
import torch

def train_epoch(loader, model, device):
    for batch in loader:
        images, labels = batch
        images = images.to(device)  # TCK202
        loss = model(images, labels) / images.numel()
""",
        ),
        Invalid(
            """
import torch
class Trainer:
    def fit(self, train_x, val_x=None):
        if val_x is not None:
            val_x.cuda()  # TCK202
        for epoch in range(self.epochs):
            self.step(train_x)
            if val_x is not None:
                self.evaluate(val_x)

    def evaluate(self, x):
        with torch.no_grad():
            return self.model(x).sum() / x.size(0)

def score(model, features):
    return model(features.unsqueeze(0))

def rank(model, feats, device):
    feats.to(device)  # TCK202
    return score(model, feats)
""",
            expected_replacement="""
import torch
class Trainer:
    def fit(self, train_x, val_x=None):
        if val_x is not None:
            val_x = val_x.cuda()  # TCK202
        for epoch in range(self.epochs):
            self.step(train_x)
            if val_x is not None:
                self.evaluate(val_x)

    def evaluate(self, x):
        with torch.no_grad():
            return self.model(x).sum() / x.size(0)

def score(model, features):
    return model(features.unsqueeze(0))

def rank(model, feats, device):
    feats = feats.to(device)  # TCK202
    return score(model, feats)
""",
        ),
        Invalid(
            """
import torch
class Solver:
    def fit(self, x1, x2):
        x1.to(self.device)  # TCK202
        x2.to(self.device)  # TCK202
        for idx in batches(x1.size(0)):
            loss = self.model(x1[idx, :], x2[idx, :])
""",
            expected_replacement="""
import torch
class Solver:
    def fit(self, x1, x2):
        x1 = x1.to(self.device)  # TCK202
        x2 = x2.to(self.device)  # TCK202
        for idx in batches(x1.size(0)):
            loss = self.model(x1[idx, :], x2[idx, :])
""",
        ),
        Invalid(
            """
import torch
from torch.autograd import Variable

inputs = Variable(torch.Tensor([[1.0, 0.0], [0.0, 1.0]]))
labels = Variable(torch.LongTensor([1, 0]))
inputs.cuda()  # TCK202
labels.cuda()  # TCK202
""",
            expected_replacement="""
import torch
from torch.autograd import Variable

inputs = Variable(torch.Tensor([[1.0, 0.0], [0.0, 1.0]]))
labels = Variable(torch.LongTensor([1, 0]))
inputs = inputs.cuda()  # TCK202
labels = labels.cuda()  # TCK202
""",
        ),
        Invalid(
            """
for images, labels in loader:
    images.to(device)  # TCK202
    labels.to(device, non_blocking=True)  # TCK202
    loss = criterion(model(images), labels)
""",
            expected_replacement="""
for images, labels in loader:
    images = images.to(device)  # TCK202
    labels = labels.to(device, non_blocking=True)  # TCK202
    loss = criterion(model(images), labels)
""",
        ),
        Invalid(
            """
import torch
from torch import Tensor

def prepare(x: Tensor, mask: torch.Tensor) -> Tensor:
    x.cuda()  # TCK202
    mask.half()  # TCK202
    return x * mask
""",
            expected_replacement="""
import torch
from torch import Tensor

def prepare(x: Tensor, mask: torch.Tensor) -> Tensor:
    x = x.cuda()  # TCK202
    mask = mask.half()  # TCK202
    return x * mask
""",
        ),
        Invalid(
            """
import torch
import torch.nn as nn

class Attention(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.tril(torch.ones(n, n))

    def forward(self, x):
        self.bias.to(x.device)  # TCK202
        return x.masked_fill(self.bias == 0, float("-inf"))
"""
        ),
        Invalid(
            """
import torch

class Trainer:
    def __init__(self):
        self.class_weights = torch.ones(10)

    def setup(self, device):
        self.class_weights.to(device)  # TCK202
""",
            expected_replacement="""
import torch

class Trainer:
    def __init__(self):
        self.class_weights = torch.ones(10)

    def setup(self, device):
        self.class_weights = self.class_weights.to(device)  # TCK202
""",
        ),
        Invalid(
            """
import torch
batch = torch.randn(4, 3, 32, 32)
batch[0].cuda()  # TCK202
"""
        ),
        Invalid(
            """
for step, (images, labels) in enumerate(train_loader):
    images.to(device)  # TCK202
    model(images)
""",
            expected_replacement="""
for step, (images, labels) in enumerate(train_loader):
    images = images.to(device)  # TCK202
    model(images)
""",
        ),
        Invalid(
            """
import torch
MASK = torch.ones(8, 8)

def apply(scores):
    MASK.cuda()  # TCK202
    return scores * MASK
"""
        ),
    )

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return
        method = call.func.attr.value
        receiver = call.func.value
        if method not in _CONVERSIONS or not isinstance(receiver, (cst.Name, cst.Attribute, cst.Subscript)):
            return
        if (method == "to" and not call.args) or self.context.shown_as_cell_output(node):
            return  # a notebook shows the value of a cell's last expression
        if self.context.is_loader_batch(receiver) or self.context.read_as_object(receiver):
            return  # maybe a batch object whose `.to()` moves it in place
        if method == "to" and self._already_there(receiver, call):
            return  # built with `device=model.device`, then `x.to(model.device)`: nothing to move
        kind, evidence = self.context.kind_and_evidence(receiver)
        condition = (self.context.returned_kind_condition(receiver, TENSOR) or self.context.passed_kind_condition(receiver, TENSOR)) if kind is None else None
        if kind not in TENSOR_KINDS and condition is None:
            return
        conditions = (condition,) if condition is not None else ()
        message = self.message.format(method=method, receiver=source_text(receiver))
        if self._can_assign_back(node, receiver):
            assignment = cst.Assign(targets=[cst.AssignTarget(target=receiver)], value=call)
            self.report(node, message, replacement=assignment, fix_safety=fix_safety_on(evidence), conditions=conditions)
        else:
            self.report(node, message, conditions=conditions)

    def _already_there(self, receiver: cst.BaseExpression, call: cst.Call) -> bool:
        """Every binding that reaches ``receiver`` built it with ``device=`` the very device
        the ``.to()`` names."""
        first = call.args[0] if len(call.args) == 1 else None
        target = first if first is not None and (first.keyword is None or first.keyword.value == "device") else None
        values = references.reaching_values(self.context.binder, receiver) if type(receiver) is cst.Name and target is not None else []  # type: ignore[arg-type]
        placed = [keyword_argument(value, "device") if type(value) is cst.Call else None for value in values]
        return bool(values) and all(found is not None and found.value.deep_equals(target.value) for found in placed)  # type: ignore[union-attr]

    def _can_assign_back(self, statement: cst.Expr, receiver: cst.BaseExpression) -> bool:
        """See "Fix safety": where assigning back could copy, raise or rebind another scope's name."""
        binder = self.context.binder
        scope = binder.scope_of(statement)
        if scope.is_class:
            return False
        if isinstance(receiver, cst.Attribute):
            return not self.context.in_module_class
        if not isinstance(receiver, cst.Name):
            return False  # `batch[0] = batch[0].cuda()` would copy into the original tensor
        if isinstance(scope.node, cst.Module) or receiver.value in scope.declared_global | scope.declared_nonlocal:
            return True  # module level, where every name is global anyway
        bindings = scope.bindings.get(receiver.value, ())
        made = [binding.node for binding in bindings if isinstance(binding.node, _LOCAL_BINDINGS)]
        return any(getattr(node, "star", None) not in ("*", "**") and binder.precedes(node, statement) for node in made)
