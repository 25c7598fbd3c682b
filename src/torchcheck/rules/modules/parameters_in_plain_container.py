from __future__ import annotations

import libcst as cst

from torchcheck.lint.rule import FixSafety, Invalid, Valid
from torchcheck.rules.modules._common import PARAMETER_CLASSES
from torchcheck.rules.modules._plain_containers import PlainContainerRule

_LIST_MESSAGE = (
    "Parameters in a plain list are not registered: not in `parameters()`, not moved by `.to()`, "
    "not saved; use `nn.ParameterList`"
)
_DICT_MESSAGE = (
    "Parameters in a plain dict are not registered: not in `parameters()`, not moved by `.to()`, "
    "not saved; use `nn.ParameterDict`"
)


class ParametersInPlainContainer(PlainContainerRule):
    """
    ## What it does
    Checks for `nn.Module` subclasses that keep `nn.Parameter`s in a plain `list`, `tuple`
    or `dict` attribute (`self.scales = [nn.Parameter(...) for ...]`, nested containers such
    as `{"w": {"a": nn.Parameter(...)}}`, or an empty list later filled with
    `self.scales.append(nn.Parameter(...))`, `+= [...]` or `self.scales = self.scales + [...]`).

    ## Why is this bad?
    A module registers a parameter assigned to one of its attributes, but not one stored
    inside a plain Python container. Such parameters are missing from `parameters()` (the
    optimizer never trains them), from `state_dict()` (they are not saved), and are not
    moved by `.to(device)`. `nn.ParameterList` and `nn.ParameterDict` behave like a list and
    a dict and register their contents.

    ## Example
    ```python
    import torch
    from torch import nn

    class Scales(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.scales = [nn.Parameter(torch.ones(1)) for _ in range(n)]
    ```

    Use instead:
    ```python
    import torch
    from torch import nn

    class Scales(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.scales = nn.ParameterList([nn.Parameter(torch.ones(1)) for _ in range(n)])
    ```

    ## Fix safety
    The fix wraps the container in `nn.ParameterList(...)` / `nn.ParameterDict(...)` (or
    replaces an empty `[]`/`{}` that is filled later). It is safe: both containers support
    indexing, iteration, `len()`, `append`/`extend` and item assignment, and registering
    the parameters is what the code meant. It is offered only where the file can spell `nn`
    or `torch.nn`, for dicts only when every key is a string, not for nested containers,
    and not when the list is extended with `self.x = self.x + [...]` (`nn.ParameterList`
    has no `+`).

    ## References
    - [`torch.nn.ParameterList`](https://pytorch.org/docs/stable/generated/torch.nn.ParameterList.html)
    - [`torch.nn.ParameterDict`](https://pytorch.org/docs/stable/generated/torch.nn.ParameterDict.html)
    - [`torch.nn.parameter.Parameter`](https://pytorch.org/docs/stable/generated/torch.nn.parameter.Parameter.html)
    """

    code = "TCK602"
    name = "parameters-in-plain-container"
    message = _LIST_MESSAGE
    fix_title = "Use `nn.ParameterList` / `nn.ParameterDict`"
    fix_safety = FixSafety.SAFE
    required_text = ("Parameter",)
    list_class = "torch.nn.ParameterList"
    dict_class = "torch.nn.ParameterDict"
    list_class_concatenates = False

    VALID = (
        Valid(
            """
import torch
import torch.nn as nn

class NormAggregator(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self._offset, self._scale = [], []
        for _ in range(heads):
            self._offset.append(nn.Parameter(torch.zeros(dim)))
            self._scale.append(nn.Parameter(torch.ones(dim)))
        self.params = nn.ParameterList(self._offset + self._scale)
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Scales(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(1)) for _ in range(n)])
        self.bias = nn.Parameter(torch.zeros(8))
        self.shapes = [8, 16, 32]
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Scales(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.scales = []
        for i in range(n):
            scale = nn.Parameter(torch.ones(1))
            self.register_parameter(f"scale{i}", scale)
            self.scales.append(scale)
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Scales(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(8))
        self.bias = nn.Parameter(torch.zeros(8))
        self.affine = [self.weight, self.bias]
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Optimizer:
    def __init__(self):
        self.params = [nn.Parameter(torch.ones(1))]
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from torch.nn import Parameter

class GateCell(torch.nn.Module):
    def __init__(self, in_channels, out_channels):
        super(GateCell, self).__init__()
        self.out_channels = out_channels
        self.W = {t: Parameter(torch.empty(c, out_channels)) for t, c in in_channels.items()}  # TCK602

    def _gate(self, W, x_dict):
        return {t: x @ W[t] for t, x in x_dict.items()}  # reads the weights, registers nothing

    def forward(self, x_dict):
        return self._gate(self.W, x_dict)
"""
        ),
        Invalid(
            """
import torch
from torch import nn
class Scales(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.scales = [nn.Parameter(torch.ones(1)) for _ in range(n)]  # TCK602
""",
            expected_replacement="""
import torch
from torch import nn
class Scales(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(1)) for _ in range(n)])  # TCK602
""",
        ),
        Invalid(
            """
import torch
class Prompts(torch.nn.Module):
    def __init__(self, tasks):
        super().__init__()
        self.prompts = {}  # TCK602
        for task in tasks:
            self.prompts[task] = torch.nn.Parameter(torch.randn(4, 8))
        self.gates = []  # TCK602
        for _ in tasks:
            self.gates.append(torch.nn.Parameter(torch.zeros(1)))
""",
            expected_replacement="""
import torch
class Prompts(torch.nn.Module):
    def __init__(self, tasks):
        super().__init__()
        self.prompts = {}  # TCK602
        for task in tasks:
            self.prompts[task] = torch.nn.Parameter(torch.randn(4, 8))
        self.gates = torch.nn.ParameterList()  # TCK602
        for _ in tasks:
            self.gates.append(torch.nn.Parameter(torch.zeros(1)))
""",
        ),
        Invalid(
            """
import torch
from torch.nn import Module, Parameter, ParameterDict
class Mixture(Module):
    def __init__(self):
        super().__init__()
        alpha = Parameter(torch.ones(1))
        beta = Parameter(torch.zeros(1))
        self.coefficients = {"alpha": alpha, "beta": beta}  # TCK602
""",
            expected_replacement="""
import torch
from torch.nn import Module, Parameter, ParameterDict
class Mixture(Module):
    def __init__(self):
        super().__init__()
        alpha = Parameter(torch.ones(1))
        beta = Parameter(torch.zeros(1))
        self.coefficients = ParameterDict({"alpha": alpha, "beta": beta})  # TCK602
""",
        ),
        Invalid(
            """
import torch
from torch import nn
class Prompts(nn.Module):
    def __init__(self, tasks):
        super().__init__()
        self.by_task = {"shared": {"prefix": nn.Parameter(torch.zeros(4, 8))}}  # TCK602
        self.gates = []  # TCK602
        for _ in tasks:
            self.gates = self.gates + [nn.Parameter(torch.zeros(1))]
"""
        ),
    )

    def is_element_call(self, call: cst.Call) -> bool:
        return self.context.call_name(call) in PARAMETER_CLASSES

    def message_for(self, container: str) -> str:
        return _LIST_MESSAGE if container == "list" else _DICT_MESSAGE
