from __future__ import annotations

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.containers import literal_items
from torchcheck.lint.kinds import Kind
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.save_sites import TORCH_SAVE
from torchcheck.lint.torch_api import TORCH_LOAD
from torchcheck.rules.checkpoint._common import saved_object


class WholeModelSaved(Rule):
    """
    ## What it does
    Checks for `torch.save(model, path)` where `model` is an `nn.Module`: the whole model
    object is pickled instead of its `state_dict()`; also where a list, tuple or dict
    written in the call holds the module (`torch.save([policy, obs_rms], path)`,
    `torch.save({"model": model, "epoch": epoch}, path)`), or one bound to a name first
    (`state = {"net": net, "acc": acc}`, then `torch.save(state, path)`).

    ## Why is this bad?
    Pickling a module stores its class by import path (`mypackage.models.Net`) together
    with every attribute. Loading the file later needs the exact same code at the exact
    same import path: renaming a module, moving a class or changing an attribute breaks
    every checkpoint saved this way, and loading requires `weights_only=False`, which runs
    arbitrary code from the file. A `state_dict()` is a plain dictionary of tensors that
    loads into any compatible model with `load_state_dict`.

    A value saved just as `torch.load` returned it, and used for nothing else (a converter
    that renames classes while it unpickles, then writes the file back), is left alone: the
    file's format was chosen by the code that wrote it first.

    Test code (test functions and classes, files under a `tests/` folder) is not checked: a test that saves a whole model does so to check saving or loading it.

    ## Example
    ```python
    import torch

    torch.save(model, "model.pt")
    ```

    Use instead:
    ```python
    import torch

    torch.save(model.state_dict(), "model.pt")
    ```

    ## Fix safety
    There is no automatic fix: the code that loads the file has to change with it
    (build the model, then `model.load_state_dict(torch.load(path, weights_only=True))`).

    ## References
    - [Saving and loading models: save/load `state_dict` (recommended)](https://pytorch.org/tutorials/beginner/saving_loading_models.html#saving-loading-model-for-inference)
    - [`torch.save`](https://pytorch.org/docs/stable/generated/torch.save.html)
    """

    code = "TCK402"
    applies_in_tests = False
    name = "whole-model-saved"
    message = "`torch.save` pickles the whole module, which breaks when the code moves; save `model.state_dict()`"
    required_text = ("save(",)

    VALID = (
        Valid(
            """
import copy
import torch
def fit(model, epochs, path):
    for epoch in range(epochs):
        best_model = copy.deepcopy(model.state_dict())
    torch.save(best_model, path)
"""
        ),
        Valid(
            """
import torch
from torch import nn
net = nn.Linear(4, 2)
state = {"net": net.state_dict(), "acc": 0.9}
torch.save(state, "ckpt.t7")
"""
        ),
        Valid(
            """
import torch

def convert(path, out):
    crt_net = torch.load(path)
    for name, weight in crt_net.items():
        print(name, weight.shape)
    torch.save(crt_net, out)

def republish(path, out):
    net = torch.load(path)
    if "params" in net:
        net = net["params"]
    torch.save(net, out)

def convert_file(old_file, new_file):
    model = torch.load(old_file, map_location="cpu", weights_only=False)
    torch.save(model, new_file)

def combine(head_path, out):
    model = torch.load(head_path)
    model["state_dict"] = {}
    torch.save(model, out)
"""
        ),
        Valid(
            """
import torch
from .utils import serialize_model

def save_best(model, best_state, path):
    package = {}
    package["model"] = serialize_model(model)
    package["optimizer"] = None
    model = package["model"]
    model["state"] = best_state
    torch.save(model, path)
"""
        ),
        Valid(
            """
import torch
torch.save(model.state_dict(), "model.pt")
"""
        ),
        Valid(
            """
import torch
def save(model_state, path):
    torch.save(model_state, path)
"""
        ),
        Valid(
            """
import torch
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
torch.save(model.module.state_dict(), path)
"""
        ),
        Valid(
            """
import torch
class Trainer:
    def save_model(self, path):
        ema_model = self.model.state_dict()
        torch.save({"model": self.model.state_dict(), "ema_model": ema_model}, path)
"""
        ),
        Valid(
            """
import torch
scripted = torch.jit.script(model)
torch.jit.save(scripted, "model.pt")
"""
        ),
        Valid(
            """
import torch
x = torch.randn(3)
torch.save(x, "tensor.pt")
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from torch import nn
net = nn.Linear(4, 2)
state = {"net": net, "acc": 0.9}
torch.save(state, "ckpt.t7")  # TCK402
"""
        ),
        Invalid(
            """
import torch
from transformers import BertForSequenceClassification

def finish(path):
    model = BertForSequenceClassification.from_pretrained("bert-base-uncased")
    model = torch.nn.DataParallel(model)
    model_to_save = model.module if hasattr(model, "module") else model
    torch.save(model_to_save, path)  # TCK402
"""
        ),
        Invalid(
            """
import torch

def reexport(path, out):
    model = torch.load(path, weights_only=False)
    model.eval()
    torch.save(model, out)  # TCK402
"""
        ),
        Invalid(
            """
import torch
from torch import nn

policy = nn.Linear(4, 2)
torch.save([policy, {"mean": 0.0}], "policy.pt")  # TCK402
torch.save({"model": policy, "epoch": 3}, "last.pt")  # TCK402
torch.save({"model": policy.state_dict(), "epoch": 3}, "good.pt")
"""
        ),
        Invalid(
            """
import torch
from torch import nn

def save_all(path):
    parts = {"model": nn.Linear(4, 2)}
    model = parts["model"]
    torch.save(model, path)  # TCK402
"""
        ),
        Invalid(
            """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
torch.save(model, "model.pt")  # TCK402
"""
        ),
        Invalid(
            """
import torch.nn as nn
from torch import save

class Net(nn.Module):
    pass

def export(path):
    net = Net()
    save(net, path)  # TCK402
"""
        ),
        Invalid(
            """
import torch as T

class Trainer:
    def checkpoint(self, path):
        T.save(self.model, path)  # TCK402
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args or self.context.call_name(node) not in TORCH_SAVE:
            return
        saved = saved_object(node)
        # `[policy, ob_rms]`, `{"model": model}`, also bound to a name first (`state = {"net": net}`)
        built = references.reaching_values(self.context.binder, saved) if type(saved) is cst.Name else []
        loaded = bool(built) and all(type(value) is cst.Call and self.context.call_name(value) in TORCH_LOAD for value in built)
        if loaded and all(use is saved for binding in self.context.binder.reaching(saved) for use in binding.references):  # type: ignore[arg-type]
            return  # re-saves just what it loaded, in the format the file already has (a converter)
        parts = (saved, *literal_items(saved), *(item for value in built for item in literal_items(value))) if saved is not None else ()
        kinds = [self.context.kind_of(part) for part in parts]
        if Kind.MODULE in kinds:
            self.report(node)
            return
        # an instance of a class of another project file: a module when that class is one
        condition = next((found for part, kind in zip(parts, kinds) if kind is None and (found := self.context.module_condition(part))), None)
        if condition is not None:
            self.report(node, conditions=(condition,))
