from __future__ import annotations

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.nodes import argument_for
from torchcheck.lint.rule import Invalid, Rule, Valid

# InstanceNorm2d(num_features, eps, momentum, affine=False, track_running_stats=False, ...)
_EAGER = frozenset({"InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"})
_EAGER_AFFINE_POSITION = 3
# LazyInstanceNorm2d(eps, momentum, affine=True, track_running_stats=True, ...): no
# num_features, and the opposite defaults.
_LAZY = frozenset({"LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"})
_LAZY_AFFINE_POSITION = 2

_EAGER_MESSAGE = (
    "`InstanceNorm` without `affine=`: unlike BatchNorm it has no learnable scale and shift by default; "
    "pass `affine=True` or `affine=False` explicitly"
)
_LAZY_MESSAGE = (
    "`LazyInstanceNorm` without `affine=`: unlike `InstanceNorm` it defaults to `affine=True`; "
    "pass `affine=` explicitly"
)


class InstanceNormAffineImplicit(Rule):
    """
    ## What it does
    Checks for `nn.InstanceNorm1d`/`2d`/`3d` and `nn.LazyInstanceNorm1d`/`2d`/`3d`
    constructed without an explicit `affine=` argument, also through a parameter whose default
    is one of them (`norm_layer(ngf)` with `norm_layer=nn.InstanceNorm2d`): callers that leave
    the parameter out build it that way.

    ## Why is this bad?
    The normalisation layers disagree on their defaults. `nn.BatchNorm*d`, `nn.GroupNorm`
    and `nn.LayerNorm` learn a per-channel scale and shift by default; `nn.InstanceNorm*d`
    does not (`affine=False`, and `track_running_stats=False`), although the original
    Instance Normalization paper and most ports from other frameworks use one. Swapping
    `BatchNorm2d(c)` for `InstanceNorm2d(c)` therefore silently removes 2·c learnable
    parameters, and checkpoints from implementations that had them no longer load.
    To make it worse, `nn.LazyInstanceNorm*d` defaults to `affine=True` and
    `track_running_stats=True`, so switching between the lazy and the eager form changes the
    layer. Say which one you mean.

    This rule is opt-in: `affine=False` is a legitimate choice (style transfer networks
    often want exactly that), and the rule only asks for it to be written down.

    ## Example
    ```python
    from torch import nn

    norm = nn.InstanceNorm2d(64)
    ```

    Use instead:
    ```python
    from torch import nn

    norm = nn.InstanceNorm2d(64, affine=True)
    ```

    ## Fix safety
    There is no automatic fix: only the author knows whether the layer should learn an
    affine transform.

    ## References
    - [`torch.nn.InstanceNorm2d`](https://pytorch.org/docs/stable/generated/torch.nn.InstanceNorm2d.html)
    - [`torch.nn.LazyInstanceNorm2d`](https://pytorch.org/docs/stable/generated/torch.nn.LazyInstanceNorm2d.html)
    - [pytorch/pytorch#22755: InstanceNorm default affine value](https://github.com/pytorch/pytorch/issues/22755)
    """

    code = "TCK609"
    name = "instance-norm-affine-implicit"
    message = _EAGER_MESSAGE
    default_enabled = False
    required_text = ("InstanceNorm",)

    VALID = (
        Valid(
            """
import torch.nn as nn

norm = nn.InstanceNorm2d(64, affine=True)
plain = nn.InstanceNorm1d(128, affine=False, track_running_stats=False)
positional = nn.InstanceNorm3d(32, 1e-5, 0.1, True)
lazy = nn.LazyInstanceNorm2d(affine=False)
lazy_positional = nn.LazyInstanceNorm1d(1e-5, 0.1, True)
batch = nn.BatchNorm2d(64)
"""
        ),
        Valid(
            """
import torch.nn as nn

def norm_layer(channels, **norm_kwargs):
    return nn.InstanceNorm2d(channels, **norm_kwargs)

def from_args(*args):
    return nn.InstanceNorm2d(*args)

norm = norm_layer(64, affine=True)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn

class Encoder(nn.Module):
    def __init__(self, channels, norm_layer=nn.InstanceNorm2d):
        super().__init__()
        self.head = nn.Sequential(nn.Conv2d(3, channels, 3), norm_layer(channels))  # TCK609
"""
        ),
        Invalid(
            """
import torch.nn as nn
from torch.nn import InstanceNorm1d

class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.norm = nn.InstanceNorm2d(channels)  # TCK609
        self.norm1d = InstanceNorm1d(channels, eps=1e-3, track_running_stats=True)  # TCK609
        self.lazy = nn.LazyInstanceNorm2d()  # TCK609
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.call_name(node) or self.context.default_callee(node)  # `norm_layer(ngf)`, `norm_layer=nn.InstanceNorm2d`
        if qualified is None or not torch_api.is_module_class_name(qualified):
            return
        short = qualified.rsplit(".", 1)[-1]
        if short in _EAGER:
            position, message = _EAGER_AFFINE_POSITION, _EAGER_MESSAGE
        elif short in _LAZY:
            position, message = _LAZY_AFFINE_POSITION, _LAZY_MESSAGE
        else:
            return
        if argument_for(node, position, "affine") is None:
            self.report(node, message)
