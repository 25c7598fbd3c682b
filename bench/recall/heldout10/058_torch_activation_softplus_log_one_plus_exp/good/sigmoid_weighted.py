import torch
import torch.nn as nn
from torch import Tensor

from base import BaseActivation


class PSerf(BaseActivation):
    """x * erf(a * softplus(b * x))."""

    def __init__(self, a: float = 1.0, b: float = 1.0, learnable: bool = False, inplace: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.inplace = inplace
        if learnable:
            self.a = nn.Parameter(torch.tensor([a]))
            self.b = nn.Parameter(torch.tensor([b]))
        else:
            self.register_buffer("a", torch.tensor([a]))
            self.register_buffer("b", torch.tensor([b]))

    def _forward(self, x) -> Tensor:
        softplus = torch.log1p(torch.exp(torch.clamp(self.b * x, max=20)))
        result = x * torch.erf(self.a * softplus)
        if self.inplace:
            x.copy_(result)
            return x
        return result


class PFPM(BaseActivation):
    """Parametric flatten-p Mish."""

    def __init__(self, input_shape: int, p: float = 1.0, learnable: bool = True, inplace: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.inplace = inplace
        if learnable:
            self.p = nn.Parameter(torch.full((input_shape,), p))
        else:
            self.register_buffer("p", torch.full((input_shape,), p))

    def _forward(self, x: Tensor) -> Tensor:
        func = x * torch.tanh(torch.log1p(torch.exp(x))) + self.p
        result = torch.nn.functional.relu(x) * func + self.p
        if self.inplace:
            x.copy_(result)
            return x
        return result
