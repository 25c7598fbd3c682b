"""A small Fourier neural operator."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .base_model import BaseModel


class SpectralConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, n_modes):
        super().__init__()
        self.n_modes = n_modes
        scale = 1 / (in_channels * out_channels)
        self.weight = nn.Parameter(scale * torch.randn(in_channels, out_channels, *n_modes, dtype=torch.cfloat))

    def forward(self, x):
        x_ft = torch.fft.rfft2(x)
        m1, m2 = self.n_modes
        out_ft = torch.zeros(x.size(0), self.weight.size(1), x.size(-2), x.size(-1) // 2 + 1,
                             dtype=torch.cfloat, device=x.device)
        out_ft[:, :, :m1, :m2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, :m1, :m2], self.weight)
        return torch.fft.irfft2(out_ft, s=x.shape[-2:])


class FNO(BaseModel, name="FNO"):
    def __init__(self, n_modes, hidden_channels, in_channels=1, out_channels=1, n_layers=4, non_linearity=F.gelu):
        super().__init__()
        self.non_linearity = non_linearity
        self.lifting = nn.Conv2d(in_channels, hidden_channels, 1)
        self.convs = nn.ModuleList(SpectralConv2d(hidden_channels, hidden_channels, n_modes) for _ in range(n_layers))
        self.skips = nn.ModuleList(nn.Conv2d(hidden_channels, hidden_channels, 1) for _ in range(n_layers))
        self.projection = nn.Conv2d(hidden_channels, out_channels, 1)

    def forward(self, x, **kwargs):
        x = self.lifting(x)
        for conv, skip in zip(self.convs, self.skips):
            x = self.non_linearity(conv(x) + skip(x))
        return self.projection(x)
