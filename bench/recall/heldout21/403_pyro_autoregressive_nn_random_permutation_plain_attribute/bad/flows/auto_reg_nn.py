import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F


def sample_mask_indices(input_dim, hidden_dim):
    """Degrees assigned to the hidden units of a MADE layer, spread evenly."""
    return torch.round(torch.linspace(1, input_dim, steps=hidden_dim))


def create_masks(input_dim, hidden_dims, permutation, output_multiplier):
    """MADE masks for the given variable order."""
    var_index = torch.empty(permutation.shape, dtype=torch.get_default_dtype())
    var_index[permutation] = torch.arange(input_dim, dtype=torch.get_default_dtype())
    input_indices = 1 + var_index
    hidden_indices = [sample_mask_indices(input_dim, h) for h in hidden_dims]
    output_indices = (var_index + 1).repeat(output_multiplier)

    masks = [(hidden_indices[0].unsqueeze(-1) >= input_indices.unsqueeze(0)).float()]
    for i in range(1, len(hidden_dims)):
        masks.append((hidden_indices[i].unsqueeze(-1) >= hidden_indices[i - 1].unsqueeze(0)).float())
    masks.append((output_indices.unsqueeze(-1) > hidden_indices[-1].unsqueeze(0)).float())
    return masks


class MaskedLinear(nn.Linear):
    def __init__(self, in_features, out_features, mask, bias=True):
        super().__init__(in_features, out_features, bias)
        self.register_buffer("mask", mask.data)

    def forward(self, x):
        return F.linear(x, self.mask * self.weight, self.bias)


class AutoRegressiveNN(nn.Module):
    """MADE-style network; the variable order is a random permutation unless one is given."""

    def __init__(self, input_dim, hidden_dims, param_dims=(1, 1), permutation=None, nonlinearity=None):
        super().__init__()
        if input_dim == 1:
            warnings.warn("AutoRegressiveNN with input_dim = 1; an affine transform is enough.")
        self.input_dim = input_dim
        self.param_dims = list(param_dims)
        self.output_multiplier = sum(self.param_dims)

        if permutation is None:
            # a random order per network, which matters when several flows are stacked
            self.permutation = torch.randperm(input_dim, device="cpu").to(torch.Tensor().device)  # expect: TCK606
        else:
            self.permutation = permutation.type(dtype=torch.int64)

        masks = create_masks(input_dim, hidden_dims, self.permutation, self.output_multiplier)
        layers = [MaskedLinear(input_dim, hidden_dims[0], masks[0])]
        for i in range(1, len(hidden_dims)):
            layers.append(MaskedLinear(hidden_dims[i - 1], hidden_dims[i], masks[i]))
        layers.append(MaskedLinear(hidden_dims[-1], input_dim * self.output_multiplier, masks[-1]))
        self.layers = nn.ModuleList(layers)
        self.f = nonlinearity if nonlinearity is not None else nn.ReLU()

    def get_permutation(self):
        """The order of the inputs used by the autoregressive factorisation."""
        return self.permutation

    def forward(self, x):
        h = x
        for layer in self.layers[:-1]:
            h = self.f(layer(h))
        h = self.layers[-1](h)
        if self.output_multiplier == 1:
            return h
        h = h.reshape(list(x.shape[:-1]) + [self.output_multiplier, self.input_dim])
        return torch.unbind(h, dim=-2)
