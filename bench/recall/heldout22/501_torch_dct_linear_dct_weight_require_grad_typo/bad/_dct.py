import math

import torch
import torch.nn as nn


def dct(x, norm=None):
    """DCT-II over the last dimension, computed with one FFT of length N."""
    shape = x.shape
    n = shape[-1]
    x = x.contiguous().view(-1, n)
    v = torch.cat([x[:, ::2], x[:, 1::2].flip([1])], dim=1)
    spectrum = torch.fft.fft(v, dim=1)
    k = -torch.arange(n, dtype=x.dtype, device=x.device)[None, :] * math.pi / (2 * n)
    out = spectrum.real * torch.cos(k) - spectrum.imag * torch.sin(k)
    if norm == "ortho":
        out[:, 0] /= math.sqrt(n) * 2
        out[:, 1:] /= math.sqrt(n / 2) * 2
    return 2 * out.view(*shape)


def idct(X, norm=None):
    """Inverse of `dct` (a scaled DCT-III) over the last dimension."""
    shape = X.shape
    n = shape[-1]
    X_v = X.contiguous().view(-1, n) / 2
    if norm == "ortho":
        X_v[:, 0] *= math.sqrt(n) * 2
        X_v[:, 1:] *= math.sqrt(n / 2) * 2
    k = torch.arange(n, dtype=X.dtype, device=X.device)[None, :] * math.pi / (2 * n)
    w_r, w_i = torch.cos(k), torch.sin(k)
    v_r = X_v
    v_i = torch.cat([X_v[:, :1] * 0, -X_v.flip([1])[:, :-1]], dim=1)
    real = v_r * w_r - v_i * w_i
    imag = v_r * w_i + v_i * w_r
    v = torch.fft.ifft(torch.complex(real, imag), dim=1).real
    x = v.new_zeros(v.shape)
    x[:, ::2] += v[:, : n - (n // 2)]
    x[:, 1::2] += v.flip([1])[:, : n // 2]
    return x.view(*shape)


class LinearDCT(nn.Linear):
    """A DCT as a fixed linear layer: much faster on GPU than the FFT path,
    at the cost of storing the N x N transform matrix."""

    def __init__(self, in_features, type, norm=None, bias=False):
        self.type = type
        self.N = in_features
        self.norm = norm
        super().__init__(in_features, in_features, bias=bias)

    def reset_parameters(self):
        # nn.Linear.__init__ calls this: fill the weight with the transform matrix
        eye = torch.eye(self.N)
        if self.type == "dct":
            self.weight.data = dct(eye, norm=self.norm).data.t()
        elif self.type == "idct":
            self.weight.data = idct(eye, norm=self.norm).data.t()
        else:
            raise ValueError(f"unknown transform {self.type!r}")
        self.weight.require_grad = False  # expect: TCK905


def apply_linear_2d(x, linear_layer):
    """Apply a LinearDCT layer over the last two dimensions (a 2-D DCT)."""
    x1 = linear_layer(x)
    x2 = linear_layer(x1.transpose(-1, -2))
    return x2.transpose(-1, -2)
