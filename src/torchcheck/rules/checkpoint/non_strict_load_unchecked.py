from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.accumulators import instance_class_of
from torchcheck.lint.buffers import methods_of
from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import Function
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import argument_for, called_name, is_none, keyword_argument, literal_bool, method_call, source_text, subtree
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.state_dicts import drawn_from_state_dict, fixed_address, is_url, is_url_table, partial_by_construction, reads_state_dict_of, state_dict_of

# Names that show the code compares state-dict keys by hand.
_KEY_CHECK_NAMES = re.compile(r"missing|unexpected", re.IGNORECASE)
# Objects whose load_state_dict() has no `strict` (passing one raises TypeError): not this rule's.
_NOT_MODULES = frozenset({Kind.OPTIMIZER, Kind.SCHEDULER, Kind.SCALER, Kind.DATALOADER, Kind.SAMPLER})


# Distributed-checkpoint loads that return (or, for `dcp.load`, would report) the keys
# they skipped: the state dict they load (position, keyword) and where their options go.
_SET_MODEL_STATE_DICT = "torch.distributed.checkpoint.state_dict.set_model_state_dict"
_SET_STATE_DICT = "torch.distributed.checkpoint.state_dict.set_state_dict"
_DCP_LOADS = frozenset({"torch.distributed.checkpoint.load", "torch.distributed.checkpoint.state_dict_loader.load"})
_STATE_DICT_OPTIONS = "torch.distributed.checkpoint.state_dict.StateDictOptions"
_DISTRIBUTED_LOAD_NAMES = frozenset({"set_model_state_dict", "set_state_dict", "load"})
_DISCARDED = "is discarded; missing and unexpected keys go unnoticed"
_MESSAGES = {
    _SET_MODEL_STATE_DICT: f"Result of `set_model_state_dict(..., options=StateDictOptions(strict=False))` {_DISCARDED}",
    _SET_STATE_DICT: f"Result of `set_state_dict(..., options=StateDictOptions(strict=False))` {_DISCARDED}",
    **dict.fromkeys(_DCP_LOADS, f"Result of `torch.distributed.checkpoint.load(..., strict=False)` {_DISCARDED}"),
}


@dataclass(frozen=True)
class _Candidate:
    """A discarded non-strict load, with the name of the state dict it loads (if a name)
    and the function it is in (None at module level)."""

    call: cst.Call
    loaded: str | None
    function: Function | None
    message: str | None = None  # for a distributed-checkpoint load


class NonStrictLoadUnchecked(Rule):
    """
    ## What it does
    Checks for `model.load_state_dict(state_dict, strict=False)` calls whose result is
    thrown away, and for the distributed-checkpoint loads that skip keys the same way:
    `set_model_state_dict(model, sd, options=StateDictOptions(strict=False))`,
    `set_state_dict(model, optimizers, model_state_dict=sd, ...,
    options=StateDictOptions(strict=False))` (the options may be built earlier in the
    function, or once at module level) and `torch.distributed.checkpoint.load(sd, ...,
    strict=False)`.

    ## Why is this bad?
    With `strict=False`, keys that do not match are skipped silently: a renamed layer, a
    `module.` prefix left by `DataParallel`, or a checkpoint of a different architecture
    loads "successfully" and the model keeps its random initial weights. The call returns
    the `missing_keys` and `unexpected_keys` it skipped (`set_model_state_dict` and
    `set_state_dict` return the same `_IncompatibleKeys`); check or at least log them.

    Not reported: a state dict built to fit the model (its own `state_dict()` updated, a
    comprehension or helper that keeps the keys the model has, also when a `try` tries two
    such helpers), weights from a fixed published address, and a load after which the
    code counts the keys (`len(state_dict)`), subtracts them from the model's own
    (`set(model.state_dict()) - set(state_dict)`), or looks computed names up in the loaded
    dict after the load (`"loaded" if name in state_dict else "skipped"`), or each of the
    model's own keys before it (`for k in model.state_dict(): if k not in state_dict:`). A dict that starts empty and
    is filled with renamed keys is reported, unless the function reads the model's own
    `state_dict()` (to fill the dict under the model's keys).

    Test code (test functions and classes, files under a `tests/` folder) is not checked: a test loads partial state dicts on purpose and checks the outcome its own way.

    ## Example
    ```python
    model.load_state_dict(state_dict, strict=False)
    ```

    Use instead:
    ```python
    missing, unexpected = model.load_state_dict(state_dict, strict=False)
    if unexpected or any(not key.startswith("head.") for key in missing):
        raise RuntimeError(f"checkpoint mismatch: {missing=} {unexpected=}")
    ```

    The rule stays silent where the code shows that the mismatch is handled: the result is
    kept, the function compares keys itself (names such as `missing_keys`), it counts what
    it loaded (`len(state_dict)`, as in "Transferred 310/312 items") or hands it to a function
    of the file that compares keys (`check_keys(model, state_dict)`), or the state dict was
    built to fit the model - the model's own `state_dict()` updated with the checkpoint's
    entries, a dict literal that names its keys, a helper handed the model's state dict to
    match against (`intersect_dicts(checkpoint, model.state_dict())`), or a comprehension
    that keeps only the keys the model has or the entries whose shapes match, or a state
    dict computed from the model itself (`states = norm_states(module)`, then
    `states = all_reduce(states)`: its keys are the model's own), or when the receiver is an
    instance of a class of the file that defines `load_state_dict` itself (an EMA holder that
    checks the keys its own way). Nor does it
    report loading published weights from a fixed address - a URL literal, a module-level
    name bound to one, one joined from such a name and literals (`urljoin(BASE_URL,
    "small.pt")`, `BASE_URL + "small.pt"`, `f"{BASE_URL}small.pt"`), or an entry of a
    module-level dict of such addresses (`load_state_dict_from_url(model_urls[arch])`,
    `model_urls.get(arch)`), or an entry of what was downloaded (`checkpoint["model"]`):
    the keys of such a file never change, so the mismatch with the architecture it was
    published for is known and constant. Nor does it report a non-strict load that falls
    back from a strict load of the same state dict in the `except` handler that shows the
    caught error (`except RuntimeError as error: print(error)`): that error lists the keys
    that did not match.

    ## Fix safety
    There is no automatic fix: which missing keys are acceptable (a new classifier head,
    buffers) is the author's decision.

    ## References
    - [`torch.nn.Module.load_state_dict`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.load_state_dict)
    - [Saving and loading models: warmstarting with parameters from a different model](https://pytorch.org/tutorials/beginner/saving_loading_models.html#warmstarting-model-using-parameters-from-a-different-model)
    - [`torch.distributed.checkpoint.state_dict.set_model_state_dict`](https://pytorch.org/docs/stable/distributed.checkpoint.html#torch.distributed.checkpoint.state_dict.set_model_state_dict)
    - [pytorch/pytorch#148252: DCP load ignores unexpected keys silently](https://github.com/pytorch/pytorch/issues/148252)
    """

    code = "TCK403"
    applies_in_tests = False
    name = "non-strict-load-unchecked"
    message = "Result of `load_state_dict(..., strict=False)` is discarded; missing and unexpected keys go unnoticed"
    required_text = ("load_state_dict", "StateDictOptions", "strict=False")

    VALID = (
        Valid(
            """
missing, unexpected = model.load_state_dict(state_dict, strict=False)
assert not unexpected, unexpected
"""
        ),
        Valid(
            """
model.load_state_dict(state_dict)
model.load_state_dict(state_dict, strict=True)
model.load_state_dict(state_dict, strict=strict)
"""
        ),
        Valid(
            """
import logging
logger = logging.getLogger(__name__)
result = model.load_state_dict(state_dict, strict=False)
logger.info(model.load_state_dict(state_dict, strict=False))
print(result.missing_keys)
"""
        ),
        Valid(
            """
class Wrapper:
    def load_state_dict(self, state_dict, strict=True):
        return self.model.load_state_dict(state_dict, strict=False)
"""
        ),
        Valid(
            """
optimizer.load_state_dict(checkpoint["optimizer"])
try:
    optimizer.load_state_dict(checkpoint["optimizer"], strict=False)
except TypeError:
    pass
"""
        ),
        Valid(
            """
def transfer(model, checkpoint, logger):
    state_dict = checkpoint["model"].float().state_dict()
    model.load_state_dict(state_dict, strict=False)
    logger.info(f"Transferred {len(list(state_dict.keys()))}/{len(model.state_dict())} items")
    model.load_state_dict(intersect_dicts(state_dict, model.state_dict()), strict=False)
    model.load_state_dict({"embedding.weight": checkpoint["embeddings"]}, strict=False)

def load_matching(model, pretrained):
    model_state = model.state_dict()
    state_dict = {k: v for k, v in pretrained.items() if k in model_state}
    model.load_state_dict(state_dict, strict=False)
    shapes_match = {k: v for k, v in pretrained.items() if v.shape == model_state[k].shape}
    model.load_state_dict(shapes_match, strict=False)

def check_keys(model, state_dict):
    missing_keys = model.state_dict().keys() - state_dict.keys()
    print(f"missing keys: {sorted(missing_keys)}")

def load_checked_by_a_helper(model, pretrained):
    check_keys(model, pretrained)
    model.load_state_dict(pretrained, strict=False)

def load_into_own(model, pretrained):
    model_state = model.state_dict()
    model_state.update(pretrained)
    model.load_state_dict(model_state, strict=False)
"""
        ),
        Valid(
            """
def load_sharded_checkpoint(model, index, shard_files, loader, strict=True):
    loaded_keys = index["weight_map"].keys()
    model_keys = model.state_dict().keys()
    missing_keys = [key for key in model_keys if key not in loaded_keys]
    unexpected_keys = [key for key in loaded_keys if key not in model_keys]
    if strict and (missing_keys or unexpected_keys):
        raise RuntimeError(f"{missing_keys=} {unexpected_keys=}")
    for shard_file in shard_files:
        model.load_state_dict(loader(shard_file), strict=False)
"""
        ),
        Valid(
            """
class EMA:
    def __init__(self, model):
        self.shadow = {k: v.clone() for k, v in model.state_dict().items()}
    def load_state_dict(self, state_dict, strict=True):
        unknown = set(state_dict) - set(self.shadow)
        if strict and unknown:
            raise KeyError(sorted(unknown))
        self.shadow.update((k, v) for k, v in state_dict.items() if k in self.shadow)
def resume(model, checkpoint):
    ema = EMA(model)
    ema.load_state_dict(checkpoint["ema"], strict=False)
    return ema
"""
        ),
        Valid(
            """
def norm_states(module):
    return {name + "." + key: value for name, child in module.named_modules() for key, value in child.state_dict().items()}
def all_reduce_norm(module, all_reduce):
    states = norm_states(module)
    states = all_reduce(states, op="mean")
    module.load_state_dict(states, strict=False)
"""
        ),
        Valid(
            """
from torch.hub import load_state_dict_from_url

model_urls = {
    "resnet18": "https://download.pytorch.org/models/resnet18-5c106cde.pth",
    "resnet50": "https://download.pytorch.org/models/resnet50-19c8e357.pth",
}
XCEPTION_URL = "https://example.org/weights/xception65-imagenet.pth"

def resnet(arch, pretrained=False):
    model = ResNet(arch)
    if pretrained:
        state_dict = load_state_dict_from_url(model_urls[arch], progress=True)
        model.load_state_dict(state_dict, strict=False)
    return model

def xception(pretrained=False):
    model = Xception()
    if pretrained:
        model.load_state_dict(load_state_dict_from_url(XCEPTION_URL), strict=False)
        model.load_state_dict(load_state_dict_from_url("https://example.org/head.pth"), strict=False)
        model.load_state_dict(load_state_dict_from_url(url="https://example.org/body.pth", map_location="cpu"), strict=False)
        checkpoint = load_state_dict_from_url("https://example.org/mae_pretrain.pth")
        model.load_state_dict(checkpoint["model"], strict=False)
    return model
"""
        ),
        Valid(
            """
import torch
from torch.hub import load_state_dict_from_url

_MODEL_URLS = {
    "mnasnet0_5": "https://download.pytorch.org/models/mnasnet0.5_top1_67.823-3ffadce67e.pth",
    "mnasnet0_75": None,
}

def _load_pretrained(model_name, model):
    if _MODEL_URLS.get(model_name) is None:
        raise ValueError(f"no checkpoint for {model_name}")
    checkpoint_url = _MODEL_URLS[model_name]
    model.load_state_dict(load_state_dict_from_url(checkpoint_url), strict=False)

def resnet50(pretrained=True):
    model = ResNet50()
    if pretrained:
        url = "https://dl.fbaipublicfiles.com/barlowtwins/resnet50.pth"
        state_dict = torch.hub.load_state_dict_from_url(url, map_location="cpu")
        model.load_state_dict(state_dict, strict=False)
    return model
"""
        ),
        Valid(
            """
import urllib.parse
from torch.hub import load_state_dict_from_url

BASE_URL = "https://github.com/example/audio-models/releases/download/v0.1/"
pretrained_models = {
    "small": urllib.parse.urljoin(BASE_URL, "small.pt"),
    "large": BASE_URL + "large.pt",
    "tiny": f"{BASE_URL}tiny.pt",
}

def build(model, name, num_classes):
    url = pretrained_models.get(name)
    state_dict = load_state_dict_from_url(url, map_location="cpu")
    if state_dict["head.weight"].shape[0] != num_classes:
        del state_dict["head.weight"], state_dict["head.bias"]
        model.load_state_dict(state_dict, strict=False)

def build_or_fall_back(model, state_dict):
    try:
        model.load_state_dict(state_dict)
    except RuntimeError as error:
        print(error)  # the strict load's error lists the mismatched keys
        model.load_state_dict(state_dict, strict=False)
"""
        ),
        Valid(
            """
from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict, set_state_dict

def load_trunk(model, optimizer, state_dict, logger):
    missing, unexpected = set_model_state_dict(model, state_dict, options=StateDictOptions(strict=False))
    logger.info(f"{missing=} {unexpected=}")
    set_model_state_dict(model, state_dict, options=StateDictOptions(full_state_dict=True))
    set_model_state_dict(model, state_dict)
    set_state_dict(model, optimizer, model_state_dict=state_dict, optim_state_dict={}, options=StateDictOptions(strict=True))

def load_for_caller(model, state_dict):
    return set_model_state_dict(model, state_dict, options=StateDictOptions(strict=False))
"""
        ),
        Valid(
            """
import torch.distributed.checkpoint as dcp

def restore(model, path, strict):
    state_dict = model.state_dict()
    dcp.load(state_dict, checkpoint_id=path)
    dcp.load(state_dict, checkpoint_id=path, strict=strict)
    model.load_state_dict(state_dict)
"""
        ),
        Valid(
            """
import logging
import torch

def load_audio_branch(model, path):
    audio_ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(audio_ckpt, strict=False)
    for name, _ in model.named_parameters():
        print(name, "loaded" if name in audio_ckpt else "not loaded")

class Solver:
    def load_tuning_state(self, module, path):
        pretrained = torch.load(path, map_location="cpu")["model"]
        try:
            stat, infos = self._matched_state(module.state_dict(), self._adjust_head(pretrained))
        except KeyError:
            stat, infos = self._matched_state(module.state_dict(), pretrained)
        module.load_state_dict(stat, strict=False)
        logging.info("loaded: %s", infos)
"""
        ),
        Valid(
            """
import torch

class Backbone(torch.nn.Module):
    def init_backbone(self, path):
        state_dict = torch.load(path)
        new_state_dict = {}
        for key in list(self.state_dict().keys()):
            if key.startswith("extra"):
                continue
            new_state_dict[key] = torch.Tensor(state_dict[transcribe(key)])
        self.load_state_dict(new_state_dict, strict=False)
"""
        ),
        Valid(
            """
import logging
import torch

def load_converted(ms, path):
    state_dict = convert(torch.load(path))
    diff = set(ms.state_dict()) - set(state_dict)
    if diff:
        logging.warning("Not loaded %s", sorted(diff))
    ms.load_state_dict(state_dict, strict=False)
"""
        ),
        Valid(
            """
def load_model_weight(model, checkpoint, logger):
    state_dict = {k[7:] if k.startswith("module.") else k: v for k, v in checkpoint["state_dict"].items()}
    model_state_dict = model.module.state_dict() if hasattr(model, "module") else model.state_dict()
    for k in model_state_dict:
        if k not in state_dict:
            logger.log(f"No param {k}.")
            state_dict[k] = model_state_dict[k]
    model.load_state_dict(state_dict, strict=False)
"""
        ),
        Valid(
            """
import torch

def get_url(width_mult=1.0):
    if width_mult == 1.0:
        return "https://example.org/ghostnet/state_dict_73.98.pth"
    return None

class GhostNet(torch.nn.Module):
    def init_weights(self, pretrain=True):
        url = get_url(self.width_mult)
        if pretrain and url is not None:
            state_dict = torch.hub.load_state_dict_from_url(url, progress=True)
            self.load_state_dict(state_dict, strict=False)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import os
from torch.hub import load_state_dict_from_url

BASE_URL = "https://github.com/example/audio-models/releases/download/v0.1/"

def build(model, name, weights_dir):
    state_dict = load_state_dict_from_url(BASE_URL + name + ".pt")
    model.load_state_dict(state_dict, strict=False)  # TCK403
    local = load_state_dict_from_url(f"{BASE_URL}{name}.pt")
    model.load_state_dict(local, strict=False)  # TCK403
    try:
        model.load_state_dict(state_dict)
    except RuntimeError:
        model.load_state_dict(state_dict, strict=False)  # TCK403
"""
        ),
        Invalid(
            """
import torch

def weights_path(cfg):
    return cfg.WEIGHTS_DIR + "/backbone.pth"

class Backbone(torch.nn.Module):
    def init_weights(self, cfg):
        state_dict = torch.hub.load_state_dict_from_url(weights_path(cfg))
        self.load_state_dict(state_dict, strict=False)  # TCK403
"""
        ),
        Invalid(
            """
import torch

def load_divided(model, path):
    state_dict = torch.load(path)
    new_state_dict = state_dict.copy()
    for key in state_dict:
        new_key = key.replace("attn", "temporal_attn")
        if new_key not in state_dict:
            new_state_dict[new_key] = state_dict[key]
    transformer_layers = len(set(k.split(".")[2] for k in new_state_dict))
    model.load_state_dict(new_state_dict, strict=False)  # TCK403
    return transformer_layers
"""
        ),
        Invalid(
            """
import torch

def load(model, path):
    ckpt = torch.load(path, map_location="cpu")
    if "state_dict" in ckpt:
        ckpt = ckpt["state_dict"]
    renamed = {}
    for key, value in ckpt.items():
        renamed[key.replace("module.", "")] = value
    model.load_state_dict(renamed, strict=False)  # TCK403
    return model
"""
        ),
        Invalid(
            """
import torch
model.load_state_dict(torch.load(path, weights_only=True), strict=False)  # TCK403
"""
        ),
        Invalid(
            """
from torch.hub import load_state_dict_from_url

def load_pretrained(model, url, paths):
    model.load_state_dict(load_state_dict_from_url(url), strict=False)  # TCK403
    model.load_state_dict(load_state_dict_from_url(paths["backbone"]), strict=False)  # TCK403
"""
        ),
        Invalid(
            """
def load_backbone(model, checkpoint):
    state_dict = {k.replace("module.", ""): v for k, v in checkpoint.items()}
    model.load_state_dict(state_dict, strict=False)  # TCK403
    print(f"loaded {len(checkpoint)} tensors")
"""
        ),
        Invalid(
            """
import torch.nn as nn

class Classifier(nn.Module):
    def load_backbone(self, state_dict):
        self.backbone.load_state_dict(state_dict, strict=False)  # TCK403
        self.load_state_dict(state_dict, False)  # TCK403
"""
        ),
        Invalid(
            """
from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict, set_state_dict

def load_pretrained_trunk(model, optimizer, state_dict, optim_state):
    options = StateDictOptions(full_state_dict=True, strict=False)
    set_model_state_dict(model, state_dict, options=options)  # TCK403
    set_state_dict(model, optimizer, model_state_dict=state_dict, optim_state_dict=optim_state, options=options)  # TCK403
    set_model_state_dict(model, model_state_dict=state_dict, options=StateDictOptions(strict=False))  # TCK403
"""
        ),
        Invalid(
            """
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict

NON_STRICT = StateDictOptions(strict=False)

def resume(model, path, pretrained):
    state_dict = {"model": model.state_dict()}
    dcp.load(state_dict, checkpoint_id=path, strict=False)  # TCK403
    set_model_state_dict(model, pretrained, options=NON_STRICT)  # TCK403
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._candidates: list[_Candidate] = []
        self._comparing_keys: set[Function | None] = set()  # functions that compare keys themselves
        # per function: names whose keys it counts (len(state_dict)) or hands to a key-comparing helper
        self._checked: dict[Function | None, set[str]] = {}
        self._key_comparing: dict[cst.FunctionDef, bool] = {}
        self._looked_up: dict[tuple[Function | None, str], list[tuple[cst.Comparison, bool]]] = {}  # `k in sd`: whether `k` is the model's

    def leave_Module(self, node: cst.Module) -> None:
        for candidate in self._candidates:
            if candidate.function in self._comparing_keys:
                continue  # the function compares keys itself (e.g. before loading shard by shard)
            lookups = self._looked_up.get((candidate.function, candidate.loaded or ""), ())
            if any(models or self.context.binder.precedes(candidate.call, lookup) for lookup, models in lookups):
                continue
            if candidate.loaded is None or candidate.loaded not in self._checked.get(candidate.function, ()):
                self.report(candidate.call, candidate.message)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        """``k in state_dict`` for each key ``k`` of the model's (``for k in model.state_dict():``),
        before or after the load, or for any computed key after it: the code tells the keys
        the model has from those the dict has (``"No param {k}"``, ``"Unloaded"``)."""
        for target in node.comparisons if not isinstance(node.left, cst.BaseString) else ():
            if isinstance(target.operator, (cst.In, cst.NotIn)) and isinstance(target.comparator, cst.Name):
                key = (self.context.flow.function, target.comparator.value)
                self._looked_up.setdefault(key, []).append((node, drawn_from_state_dict(self.context.binder, node.left)))

    def visit_Name(self, node: cst.Name) -> None:
        if _KEY_CHECK_NAMES.search(node.value):
            self._comparing_keys.add(self.context.flow.function)

    def visit_Call(self, node: cst.Call) -> None:
        """``len(state_dict)``: the code counts what it loads (``Transferred 310/312 items``);
        ``check_keys(model, state_dict)``: a function of the file compares its keys."""
        counts = isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1
        if counts or self._compares_keys(node):  # `len(state_dict)`, also `len(list(state_dict.keys()))`
            arguments = [references.unwrapped_keys(argument.value) if counts else argument.value for argument in node.args]
            self._checked.setdefault(self.context.flow.function, set()).update(name.value for name in arguments if type(name) is cst.Name)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        """``set(model.state_dict()) - set(state_dict)``: the code works out the missing keys."""
        sides = (node.left, node.right) if isinstance(node.operator, cst.Subtract) else ()
        for side, other in zip(sides, sides[::-1]):
            if any(type(call) is cst.Call and state_dict_of(call) is not None for call in subtree(side)):
                self._checked.setdefault(self.context.flow.function, set()).update(n.value for n in subtree(other) if type(n) is cst.Name)

    def _compares_keys(self, call: cst.Call) -> bool:
        if (resolved := self.context.resolve_call(call)) is None:
            return False
        if (function := resolved.function) not in self._key_comparing:
            self._key_comparing[function] = bool(_KEY_CHECK_NAMES.search(source_text(function.body)))
        return self._key_comparing[function]

    def visit_Expr(self, node: cst.Expr) -> None:
        if type(call := node.value) is not cst.Call:
            return
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "load_state_dict":
            self._module_load(call, call.func.value)
        elif called_name(call) in _DISTRIBUTED_LOAD_NAMES:
            self._distributed_load(call, self.context.call_name(call))

    def _module_load(self, call: cst.Call, receiver: cst.BaseExpression) -> None:
        if self.context.kind_of(receiver) in _NOT_MODULES or self._own_load_state_dict(receiver):
            return
        strict = keyword_argument(call, "strict")
        loaded = argument_for(call, 0, "state_dict")
        if strict is not None:
            if literal_bool(strict.value) is False:
                self._note(call, receiver, loaded)
            return
        positional = [argument for argument in call.args if argument.keyword is None]
        # a positional `False` means `strict` only where the receiver is known to be a module
        if len(positional) >= 2 and literal_bool(positional[1].value) is False and not positional[1].star and self._is_module(receiver):
            self._note(call, receiver, loaded)

    def _own_load_state_dict(self, receiver: cst.BaseExpression) -> bool:
        """The receiver is an instance of a class of this file that defines ``load_state_dict``
        itself (an EMA holder, a wrapper): what its ``strict`` means is that class's to say."""
        found = self.context.instance_class(receiver) or instance_class_of(self.context, receiver)  # `self`, or an instance
        return found is not None and "load_state_dict" in methods_of(found)

    def _distributed_load(self, call: cst.Call, qualified: str | None) -> None:
        """``set_model_state_dict(model, sd, options=StateDictOptions(strict=False))``,
        ``set_state_dict(model, optimizers, model_state_dict=sd, ..., options=...)`` and
        ``dcp.load(sd, ..., strict=False)`` (whose ``sd`` is filled in place: no loaded name)."""
        if qualified in _DCP_LOADS:
            strict = keyword_argument(call, "strict")
            if strict is not None and literal_bool(strict.value) is False:
                self._candidates.append(_Candidate(call, None, self.context.flow.function, _MESSAGES[qualified]))
            return
        if qualified not in (_SET_MODEL_STATE_DICT, _SET_STATE_DICT):
            return
        if (options := keyword_argument(call, "options")) is None or not self._non_strict_options(options.value):
            return
        loaded = argument_for(call, 1, "model_state_dict") if qualified == _SET_MODEL_STATE_DICT else keyword_argument(call, "model_state_dict")
        model = argument_for(call, 0, "model")
        if model is not None and not model.star:
            self._note(call, model.value, loaded, _MESSAGES[qualified])

    def _non_strict_options(self, options: cst.BaseExpression) -> bool:
        """``StateDictOptions(..., strict=False)``, written here or bound to the name passed
        (in this function, or once at module level)."""
        value = self._value_of(options)
        if isinstance(options, cst.Name) and value is options:
            value = self._settled_value(options)
        if not isinstance(value, cst.Call) or self.context.call_name(value) != _STATE_DICT_OPTIONS:
            return False
        strict = keyword_argument(value, "strict")
        return strict is not None and literal_bool(strict.value) is False

    def _note(self, call: cst.Call, model: cst.BaseExpression, argument: cst.Arg | None, message: str | None = None) -> None:
        """Keep a discarded non-strict load for the end of the file, unless what it loads
        was built to fit the model."""
        loaded = argument.value if argument is not None and not argument.star else None
        value = self._value_of(loaded) if loaded is not None else None
        if isinstance(value, cst.Dict) and not value.elements and reads_state_dict_of(model, self.context.flow.function):
            return  # `{}` filled under the model's own keys (`for key in model.state_dict(): sd[key] = ...`)
        downloaded = self._value_of(value.value) if isinstance(value, cst.Subscript) else value  # `ckpt["model"]` of what was downloaded
        if value is not None and (partial_by_construction(value, model) or self._published_weights(downloaded)):  # type: ignore[arg-type]
            return
        if isinstance(loaded, cst.Name) and self._computed_from(loaded, model, 0) or self._fallback_after_shown_failure(call, model, loaded):
            return
        name = loaded.value if isinstance(loaded, cst.Name) else None
        self._candidates.append(_Candidate(call, name, self.context.flow.function, message))

    def _fallback_after_shown_failure(self, call: cst.Call, model: cst.BaseExpression, loaded: cst.BaseExpression | None) -> bool:
        """``try: model.load_state_dict(sd)`` then ``except RuntimeError as e: print(e)`` and the
        non-strict load of ``sd``: the strict load's error, which lists the mismatched keys,
        is what the handler shows."""
        handler = self.context.binder.enclosing(call, cst.ExceptHandler, cst.FunctionDef, cst.Lambda)
        attempt = self.context.binder.parent(handler) if isinstance(handler, cst.ExceptHandler) and handler.name is not None else None
        if loaded is None or not isinstance(attempt, cst.Try):
            return False
        caught = handler.name.name.value  # type: ignore[union-attr]
        shown = any(type(node) is cst.Name and node.value == caught for node in subtree(handler.body))  # type: ignore[union-attr]
        strict_first = (
            type(node) is cst.Call and called_name(node) == "load_state_dict" and keyword_argument(node, "strict") is None  # type: ignore[arg-type]
            and type(node.func) is cst.Attribute and node.func.value.deep_equals(model) and len(node.args) == 1 and node.args[0].value.deep_equals(loaded)  # type: ignore[attr-defined]
            for node in subtree(attempt.body)
        )
        return shown and any(strict_first)

    def _computed_from(self, name: cst.Name, model: cst.BaseExpression, depth: int) -> bool:
        """Every value reaching the state dict is computed from the model itself
        (``states = norm_states(module)``, then ``states = all_reduce(states)``) or built to
        fit it (``stat, infos = self.matched(module.state_dict(), pretrained)``, on each
        path of a ``try``): its keys are the model's own, by construction."""
        values = references.reaching_values(self.context.binder, name, unpacked=True) if depth < 3 else []
        return bool(values) and all(self._fits(value, model, depth) for value in values)

    def _fits(self, value: cst.BaseExpression, model: cst.BaseExpression, depth: int) -> bool:
        if depth == 0 and partial_by_construction(value, model):  # not some other module's `state_dict()` further up
            return True
        arguments = [argument.value for argument in value.args] if isinstance(value, cst.Call) else []
        return any(argument.deep_equals(model) or self._computed_from_name(argument, model, depth) for argument in arguments)

    def _computed_from_name(self, argument: cst.BaseExpression, model: cst.BaseExpression, depth: int) -> bool:
        return isinstance(argument, cst.Name) and self._computed_from(argument, model, depth + 1)

    def _published_weights(self, value: cst.BaseExpression) -> bool:
        """Weights downloaded from a fixed address: ``load_state_dict_from_url(URL)``, where
        the address is a URL literal, a module-level name bound to one, an entry of a
        module-level dict of URLs (``model_urls[arch]``), or what a function of the file that
        returns only URL literals (or nothing) gives."""
        argument = argument_for(value, 0, "url") if isinstance(value, cst.Call) else None
        if argument is None or argument.star:
            return False
        address, binder = self._value_of(argument.value), self.context.binder  # `url = "https://..."` first
        looked_up = method_call(address) if isinstance(address, cst.Call) else None  # `pretrained_models.get(name)`
        if isinstance(address, cst.Subscript) or (looked_up is not None and looked_up[1] == "get"):
            table = address.value if isinstance(address, cst.Subscript) else looked_up[0]  # type: ignore[index]
            return self._module_constant(table, lambda value: is_url_table(value, binder))
        if isinstance(address, cst.Call) and (resolved := self.context.resolve_call(address)) is not None:
            returned = references.returned_values(resolved.function)  # `get_url(width)`: a URL literal, or nothing
            return any(map(is_url, returned)) and all(is_url(value) or is_none(value) for value in returned)
        return fixed_address(binder, address) or self._module_constant(address, lambda value: value is not None and fixed_address(binder, value))

    def _module_constant(self, expression: cst.BaseExpression, holds: Callable[[cst.BaseExpression | None], bool]) -> bool:
        """A name not bound in the current function whose last binding, outside any branch
        or loop, is a value that ``holds``."""
        if not isinstance(expression, cst.Name):
            return False
        flow = self.context.flow
        if flow.function is not None and flow.reaching_binding(expression.value) is not None:
            return False  # a local of the function
        return holds(self._settled_value(expression))

    def _settled_value(self, name: cst.Name) -> cst.BaseExpression | None:
        """The value of the last binding of ``name`` when it sits outside any branch or loop."""
        binding = self.context.flow.last_binding(name.value)
        return binding.value if binding is not None and not binding.path and not binding.loops else None

    def _value_of(self, expression: cst.BaseExpression) -> cst.BaseExpression:
        """The value a name surely holds here (its reaching assignment), else the expression."""
        if isinstance(expression, cst.Name):
            binding = self.context.flow.reaching_binding(expression.value)
            if binding is not None and binding.value is not None:
                return binding.value
        return expression

    def _is_module(self, receiver: cst.BaseExpression) -> bool:
        # `self` is bound as a parameter, so the context does not apply its module-class rule
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            return self.context.in_module_class
        return self.context.kind_of(receiver) is Kind.MODULE
