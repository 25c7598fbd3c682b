import torch
from torch import nn

from .base import Flow


def _lu_parts(Q):
    P, L, U = torch.lu_unpack(*torch.linalg.lu_factor(Q))
    return P, L, U


class _LULinearMixin:
    def _init_weight(self, Q, use_lu):
        if use_lu:
            P, L, U = _lu_parts(Q)
            self.register_buffer("P", P)  # fixed during optimization
            self.L = nn.Parameter(L)
            S = U.diag()
            self.register_buffer("sign_S", torch.sign(S))
            self.log_S = nn.Parameter(torch.log(torch.abs(S)))
            self.U = nn.Parameter(torch.triu(U, diagonal=1))
            self.register_buffer("eye", torch.eye(self.num_channels))
        else:
            self.W = nn.Parameter(Q)

    def _assemble_W(self, inverse=False):
        L = torch.tril(self.L, diagonal=-1) + self.eye
        U = torch.triu(self.U, diagonal=1) + torch.diag(self.sign_S * torch.exp(self.log_S))
        if inverse:
            L_inv = torch.linalg.inv(L.double()).type(self.log_S.dtype)
            U_inv = torch.linalg.inv(U.double()).type(self.log_S.dtype)
            return U_inv @ L_inv @ self.P.t()
        return self.P @ L @ U

    def _weight_and_logdet(self, inverse):
        if self.use_lu:
            W = self._assemble_W(inverse=inverse)
            log_det = torch.sum(self.log_S)
        else:
            W = torch.linalg.inv(self.W.double()).type(self.W.dtype) if inverse else self.W
            log_det = torch.linalg.slogdet(self.W)[1]
        return W, (-log_det if inverse else log_det)


class Invertible1x1Conv(_LULinearMixin, Flow):
    """Invertible 1x1 convolution of Glow, on NCHW tensors."""

    def __init__(self, num_channels, use_lu=False):
        super().__init__()
        self.num_channels = num_channels
        self.use_lu = use_lu
        Q = torch.qr(torch.randn(self.num_channels, self.num_channels))[0]  # expect: TCK903
        self._init_weight(Q, use_lu)

    def forward(self, z):
        W, log_det = self._weight_and_logdet(inverse=True)
        z_ = nn.functional.conv2d(z, W.view(self.num_channels, self.num_channels, 1, 1))
        return z_, log_det * z.size(2) * z.size(3)

    def inverse(self, z):
        W, log_det = self._weight_and_logdet(inverse=False)
        z_ = nn.functional.conv2d(z, W.view(self.num_channels, self.num_channels, 1, 1))
        return z_, log_det * z.size(2) * z.size(3)


class InvertibleAffine(_LULinearMixin, Flow):
    """One-dimensional version of the invertible 1x1 convolution (no shift)."""

    def __init__(self, num_channels, use_lu=True):
        super().__init__()
        self.num_channels = num_channels
        self.use_lu = use_lu
        Q = torch.qr(torch.randn(self.num_channels, self.num_channels))[0]  # expect: TCK903
        self._init_weight(Q, use_lu)

    def forward(self, z):
        W, log_det = self._weight_and_logdet(inverse=True)
        return z @ W, log_det

    def inverse(self, z):
        W, log_det = self._weight_and_logdet(inverse=False)
        return z @ W, log_det
