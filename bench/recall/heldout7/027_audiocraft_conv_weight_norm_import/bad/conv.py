import torch.nn as nn
from torch.nn.utils import spectral_norm, weight_norm  # expect: TCK904

CONV_NORMALIZATIONS = frozenset(["none", "weight_norm", "spectral_norm"])


def apply_parametrization_norm(module: nn.Module, norm: str = "none") -> nn.Module:
    assert norm in CONV_NORMALIZATIONS
    if norm == "weight_norm":
        return weight_norm(module)  # expect: TCK903
    elif norm == "spectral_norm":
        return spectral_norm(module)
    return module


class NormConv1d(nn.Module):
    """Conv1d wrapped with the normalization named by `norm`."""

    def __init__(self, *args, causal: bool = False, norm: str = "none", **kwargs):
        super().__init__()
        self.conv = apply_parametrization_norm(nn.Conv1d(*args, **kwargs), norm)
        self.causal = causal
        self.norm_type = norm

    def forward(self, x):
        return self.conv(x)


class NormConvTranspose1d(nn.Module):
    def __init__(self, *args, causal: bool = False, norm: str = "none", **kwargs):
        super().__init__()
        self.convtr = apply_parametrization_norm(nn.ConvTranspose1d(*args, **kwargs), norm)
        self.causal = causal

    def forward(self, x):
        return self.convtr(x)
