import torch
from torch import nn


def uniform_init_(tensor):
    """Sample a Haar-uniform orthogonal matrix into ``tensor``."""
    with torch.no_grad():
        transpose = tensor.size(-2) < tensor.size(-1)
        x = torch.empty_like(tensor).normal_(0, 1)
        if transpose:
            x.transpose_(-2, -1)
        q, r = torch.linalg.qr(x)
        d = r.diagonal(dim1=-2, dim2=-1).sign()
        q *= d.unsqueeze(-2)
        if transpose:
            q.transpose_(-2, -1)
        tensor.copy_(q)
        return tensor


class SO(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.n = size[-1]

    def forward(self, x):
        a = x.tril(-1)
        a = a - a.transpose(-2, -1)
        return torch.matrix_exp(a)

    def right_inverse(self, x, check_in_manifold=True):
        return x

    def sample(self):
        x = torch.empty(self.n, self.n)
        return uniform_init_(x)
