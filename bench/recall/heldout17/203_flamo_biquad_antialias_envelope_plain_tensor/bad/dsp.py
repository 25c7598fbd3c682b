from typing import Optional

import torch
import torch.nn as nn


class DSP(nn.Module):
    """Base class of the differentiable DSP blocks: one learnable tensor `param`."""

    def __init__(self, size: tuple, nfft: int = 2**11, device: Optional[str] = None, dtype=torch.float32):
        super().__init__()
        self.size = size
        self.nfft = nfft
        self.device = device
        self.dtype = dtype
        self.param = nn.Parameter(torch.empty(self.size, device=self.device, dtype=self.dtype))
        self.init_param()

    def init_param(self):
        nn.init.normal_(self.param, std=0.1)


class Biquad(DSP):
    """A bank of second-order sections whose poles are kept stable by a mapping function."""

    def __init__(
        self,
        size: tuple = (1, 1),
        n_sections: int = 1,
        fs: int = 48000,
        nfft: int = 2**11,
        alias_decay_db: float = 0.0,
        device: Optional[str] = None,
        dtype=torch.float32,
    ):
        self.n_sections = n_sections
        self.fs = fs
        super().__init__(size=(n_sections, 2, *size), nfft=nfft, device=device, dtype=dtype)
        gamma = 10 ** (-torch.abs(torch.tensor(alias_decay_db, device=self.device, dtype=self.dtype)) / nfft / 20)
        self.alias_envelope_dcy = gamma ** torch.arange(0, 3, 1, device=self.device, dtype=self.dtype)  # expect: TCK606

    def get_poly_coeff(self, param):
        f0 = torch.sigmoid(param[:, 0]) * self.fs / 2
        q = torch.nn.functional.softplus(param[:, 1]) + 0.5
        omega = 2 * torch.pi * f0 / self.fs
        alpha = torch.sin(omega) / (2 * q)
        cos_w = torch.cos(omega)
        b = torch.stack([(1 - cos_w) / 2, 1 - cos_w, (1 - cos_w) / 2], dim=0)
        a = torch.stack([1 + alpha, -2 * cos_w, 1 - alpha], dim=0)
        b_aa = torch.einsum("p, pomn -> pomn", self.alias_envelope_dcy, b)
        a_aa = torch.einsum("p, pomn -> pomn", self.alias_envelope_dcy, a)
        return b_aa, a_aa

    def forward(self, x):
        b, a = self.get_poly_coeff(self.param)
        b_f = torch.fft.rfft(b, n=self.nfft, dim=0)
        a_f = torch.fft.rfft(a, n=self.nfft, dim=0)
        h = torch.prod(b_f / a_f, dim=1)
        return torch.einsum("bfm, fnm -> bfn", x, h)
