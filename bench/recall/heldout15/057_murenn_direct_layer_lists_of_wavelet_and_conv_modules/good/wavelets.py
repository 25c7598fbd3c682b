import math

import torch
from torch import nn
import torch.nn.functional as F


class DTCWT(nn.Module):
    """A (much simplified) dual-tree complex wavelet filter bank.

    The analysis filters are fixed, so they are kept as buffers: they follow the module
    to the GPU and into the state dict.
    """

    def __init__(self, J=4, padding_mode="symmetric", skip_hps=False):
        super().__init__()
        self.J = J
        self.padding_mode = padding_mode
        self.skip_hps = skip_hps
        h0 = torch.tensor([1.0, 1.0]) / math.sqrt(2.0)
        h1 = torch.tensor([1.0, -1.0]) / math.sqrt(2.0)
        self.register_buffer("h0", h0.view(1, 1, -1))
        self.register_buffer("h1", h1.view(1, 1, -1))

    def _filter(self, x, h):
        b, c, t = x.shape
        pad_mode = "reflect" if self.padding_mode == "symmetric" else self.padding_mode
        x = F.pad(x.reshape(b * c, 1, t), (0, 1), mode=pad_mode if pad_mode != "zeros" else "constant")
        return F.conv1d(x, h, stride=2).reshape(b, c, -1)

    def forward(self, x):
        bandpasses = []
        low = x
        for _ in range(self.J):
            high = self._filter(low, self.h1)
            low = self._filter(low, self.h0)
            if not self.skip_hps:
                bandpasses.append(torch.complex(high, torch.roll(high, 1, dims=-1)))
        return low, bandpasses
