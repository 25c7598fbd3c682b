"""What a value is, as far as the linter can tell, and how it knows: kinds with evidence.

A kind is inferred from what the code shows (a construction, an assignment, an
``isinstance`` check: STRONG), from a type annotation (ANNOTATION) or, weakest, from a
conventional name (``model``, ``optimizer``: CONVENTION). Only strong evidence makes a fix safe.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Callable
from typing import NamedTuple

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.nodes import argument_for, literal_bool


class Kind(enum.Enum):
    """What a value is, as far as the linter can tell."""

    TENSOR = "tensor"
    GRAPH_TENSOR = "graph-attached tensor"  # a loss, a model output: carries autograd history
    MODULE = "module"
    LOSS_FUNCTION = "loss function"
    OPTIMIZER = "optimizer"
    SCHEDULER = "scheduler"
    SCALER = "GradScaler"
    DATALOADER = "dataloader"
    SAMPLER = "sampler"
    DEVICE = "device"
    DTYPE = "dtype"
    NUMBER = "number"
    OTHER = "other"  # known, and none of the above (a string, a list, ...)


class GradMode(enum.Enum):
    """What a grad-mode manager or decorator does to ``torch.is_grad_enabled()``."""

    ON = "on"  # enable_grad(), set_grad_enabled(True), inference_mode(False)
    OFF = "off"  # no_grad(), inference_mode(), set_grad_enabled(False)
    UNKNOWN = "unknown"  # set_grad_enabled(flag) / inference_mode(flag), flag known only at run time


class Evidence(enum.IntEnum):
    """How the linter knows a value's kind, weakest first (so ``min`` picks the weakest)."""

    CONVENTION = 1  # only the name suggests it: `model`, `optimizer`, `self.net`
    USAGE = 2  # the code uses it as one: `net.named_parameters()`, `net.train()` and `net(x)`
    # every call in the file passes one for this parameter, every assignment in the class
    # stores one in this attribute; code elsewhere may do otherwise
    CALLERS = 3
    ANNOTATION = 4  # a type annotation says so; callers may still pass something else
    STRONG = 5  # seen in the code: a construction, an assignment, an isinstance check


class Inferred(NamedTuple):
    """A value's kind and the evidence for it; both are None when the kind is unknown."""

    kind: Kind | None
    evidence: Evidence | None


UNKNOWN = Inferred(None, None)


def inferred(kind: Kind | None, evidence: Evidence | None) -> Inferred:
    """``Inferred(kind, evidence)``, or UNKNOWN when there is no kind to back."""
    return UNKNOWN if kind is None or evidence is None else Inferred(kind, evidence)


def strong(kind: Kind | None) -> Inferred:
    return inferred(kind, Evidence.STRONG)


TENSOR_KINDS = frozenset({Kind.TENSOR, Kind.GRAPH_TENSOR})

# Methods of a tensor that return something other than a tensor.
_OTHER_RESULT_METHODS = frozenset({"tolist", "numpy", "size", "stride", "data_ptr"})


def tensor_method_kind(method: str) -> Kind | None:
    """What ``tensor.<method>(...)`` returns: a number (``item``, ``numel``), something
    else (``tolist``, ``size``), nothing (``backward``), or a tensor (every other method)."""
    if method in torch_api.NUMBER_METHODS:
        return Kind.NUMBER
    if method in _OTHER_RESULT_METHODS:
        return Kind.OTHER
    return None if method == "backward" else Kind.TENSOR


# Conventional names, used only when nothing stronger is known about a name.
_CONVENTIONAL_NAMES: dict[str, Kind] = {
    "model": Kind.MODULE,
    "net": Kind.MODULE,
    "optimizer": Kind.OPTIMIZER,
    "opt": Kind.OPTIMIZER,
    "optim": Kind.OPTIMIZER,
    "scheduler": Kind.SCHEDULER,
    "sched": Kind.SCHEDULER,
    "lr_scheduler": Kind.SCHEDULER,
    "scaler": Kind.SCALER,
    "grad_scaler": Kind.SCALER,
    "loader": Kind.DATALOADER,
    "dataloader": Kind.DATALOADER,
    "device": Kind.DEVICE,
    "criterion": Kind.LOSS_FUNCTION,
    "crit": Kind.LOSS_FUNCTION,  # `self.crit`, `sel_crit` (criterion, abbreviated)
    "loss_fn": Kind.LOSS_FUNCTION,
}


_CONVENTIONAL_SUFFIXES: tuple[tuple[str, Kind], ...] = (
    ("_model", Kind.MODULE),
    ("_net", Kind.MODULE),  # `target_net`, `policy_net`, `yolact_net`
    ("_optimizer", Kind.OPTIMIZER),
    ("_scheduler", Kind.SCHEDULER),
    ("_loader", Kind.DATALOADER),
    ("_dataloader", Kind.DATALOADER),
    ("_device", Kind.DEVICE),
)


# A name that starts with a verb names a function that makes the value (`build_model`,
# `get_loader`), not the value: calling it does not call a module.
_FACTORY_PREFIXES = (
    "build_", "create_", "get_", "make_", "load_", "init_", "setup_", "prepare_", "construct_", "instantiate_"
)


# A conventional name with a role mark: `optim_g`/`net_d` (a GAN's generator and
# discriminator), `netG`, `model2`, `opt_1`.
_ROLE_MARK = re.compile(r"(?:_[A-Za-z]|[A-Z]|_?\d+)")


@functools.lru_cache(maxsize=4096)  # asked for every name bound, and files reuse their names
def conventional_kind(name: str) -> Kind | None:
    """The kind a name suggests by convention (``optimizer`` -> OPTIMIZER), or None. A
    private spelling (``_grad_scaler``) and a role mark (``optim_g``) keep the convention."""
    name = name.lstrip("_")
    if name.startswith(_FACTORY_PREFIXES):
        return None
    kind = _CONVENTIONAL_NAMES.get(name)
    if kind is not None:
        return kind
    for base, base_kind in _CONVENTIONAL_NAMES.items():
        if name.startswith(base) and _ROLE_MARK.fullmatch(name, len(base)):
            return base_kind
    for suffix, suffix_kind in _CONVENTIONAL_SUFFIXES:
        if name.endswith(suffix):
            return suffix_kind
    return None


# A callable named as a loss: `loss(out, y)`, `loss_func`, `self.loss_function`, `seg_loss`,
# `yolo_losses[i]`, `criterions[k]`. Only a *called* name counts: `loss` alone is a tensor.
_LOSS_CALLEE = re.compile(r"(?:\w*_)?(?:loss|losses|criterion|criterions|criteria|crit)|loss_?(?:fn|func|function|module|layer)s?")


# A verb names a computation whose result the author shapes (`compute_loss` may return a dict
# or a `(loss, items)` pair), not a loss function.
_COMPUTING_PREFIXES = ("compute_", "calc_", "calculate_", "eval_", "evaluate_", "run_", "forward_", "update_", "log_")


@functools.lru_cache(maxsize=1024)
def called_as_loss(name: str) -> bool:
    """Whether calling something named ``name`` (a parameter, an attribute, a container of
    callables indexed) calls a loss function by convention: ``loss(output, target)``,
    ``self.loss_func(...)``, ``yolo_losses[i](...)``. A factory's name (``build_loss``) returns
    the loss function, not its value, a verb's (``compute_loss``) a computation of any shape; a
    scaler's or a weight's name (``loss_scaler``) is no loss."""
    name = name.lstrip("_")
    return not name.startswith(_FACTORY_PREFIXES + _COMPUTING_PREFIXES) and _LOSS_CALLEE.fullmatch(name) is not None


def conventional(name: str) -> Inferred:
    """What ``name`` suggests by convention, with CONVENTION evidence, or UNKNOWN."""
    return inferred(conventional_kind(name), Evidence.CONVENTION)


def grad_mode_of(
    qualified_name: Callable[[cst.BaseExpression], str | None], expression: cst.BaseExpression
) -> GradMode | None:
    """The grad mode that ``expression`` (a ``with`` item or a decorator) sets, or None when it
    is not a grad-mode manager.

    A bare name (``torch.no_grad`` without parentheses) counts as what it was meant to be:
    as a decorator it works (PyTorch 2.1+); in a ``with`` it raises, and TCK110 reports it.
    """
    call = expression if isinstance(expression, cst.Call) else None
    qualified = qualified_name(call.func if call is not None else expression)
    if qualified in torch_api.ENABLE_GRAD_CONTEXTS:
        return GradMode.ON
    if qualified in torch_api.INFERENCE_MODE or qualified in torch_api.SET_GRAD_ENABLED:
        if call is None:
            return GradMode.OFF if qualified in torch_api.INFERENCE_MODE else None
        flag = argument_for(call, 0, "mode")
        if flag is None:
            # inference_mode() means mode=True; set_grad_enabled() without a mode is a TypeError
            return GradMode.OFF if qualified in torch_api.INFERENCE_MODE else None
        enabled = literal_bool(flag.value) if not flag.star else None
        if enabled is None:
            return GradMode.UNKNOWN
        # inference_mode(True) and set_grad_enabled(False) disable gradients
        return GradMode.OFF if enabled == (qualified in torch_api.INFERENCE_MODE) else GradMode.ON
    if qualified in torch_api.NO_GRAD_CONTEXTS:
        return GradMode.OFF
    return None
