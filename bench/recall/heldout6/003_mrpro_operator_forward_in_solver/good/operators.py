import torch
from torch import nn


class LinearOperator(nn.Module):
    def adjoint(self, x):
        raise NotImplementedError


class FourierOp(LinearOperator):
    def forward(self, x):
        return (torch.fft.fftn(x, norm="ortho"),)

    def adjoint(self, y):
        return (torch.fft.ifftn(y, norm="ortho"),)
