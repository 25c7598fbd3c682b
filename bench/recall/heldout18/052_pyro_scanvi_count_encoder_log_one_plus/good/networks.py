import torch
from torch import nn
from torch.nn.functional import softplus


def make_fc(dims):
    layers = []
    for in_dim, out_dim in zip(dims, dims[1:]):
        layers += [nn.Linear(in_dim, out_dim), nn.BatchNorm1d(out_dim), nn.ReLU()]
    return nn.Sequential(*layers[:-2])  # no norm / activation after the last layer


def split_in_half(t):
    return t.reshape(t.shape[:-1] + (2, -1)).unbind(-2)


class CountEncoder(nn.Module):
    """q(z | x) and q(library size | x) for a vector of gene counts."""

    def __init__(self, num_genes, z_dim, hidden_dims):
        super().__init__()
        self.fc = make_fc([num_genes] + hidden_dims + [2 * z_dim + 2])

    def forward(self, counts):
        # work on log counts for numerical stability; the likelihood stays on raw counts
        x = torch.log1p(counts)
        h1, h2 = split_in_half(self.fc(x))
        z_loc, z_scale = h1[..., :-1], softplus(h2[..., :-1])
        l_loc, l_scale = h1[..., -1:], softplus(h2[..., -1:])
        return z_loc, z_scale, l_loc, l_scale


class CountDecoder(nn.Module):
    def __init__(self, num_genes, z_dim, hidden_dims):
        super().__init__()
        self.fc = make_fc([z_dim] + hidden_dims + [num_genes])

    def forward(self, z):
        return torch.softmax(self.fc(z), dim=-1)
