import torch
import torch.nn as nn
import torch.nn.functional as F


class AtomicConvolution(nn.Module):
    def __init__(self, radial_params):
        super().__init__()
        self.register_buffer("radial", torch.tensor(radial_params, dtype=torch.float32))

    def forward(self, coords, nbr_list):
        nbr_coords = coords[nbr_list]
        dist = (nbr_coords - coords[:, None, :]).norm(dim=-1)
        rc, rs, re = self.radial[:, 0], self.radial[:, 1], self.radial[:, 2]
        gauss = torch.exp(-re * (dist[..., None] - rs) ** 2)
        cutoff = 0.5 * (torch.cos(torch.pi * dist[..., None] / rc) + 1.0) * (dist[..., None] < rc)
        return (gauss * cutoff).sum(dim=1)


class AtomicConv(nn.Module):
    def __init__(self, n_radial, layer_sizes=(32, 32, 16), dropouts=0.5, activation=torch.tanh):
        super().__init__()
        radial = [[12.0, float(r), 4.0] for r in torch.linspace(0.0, 12.0, n_radial).tolist()]
        self.conv = AtomicConvolution(radial)
        self.activation = activation
        if isinstance(dropouts, float):
            dropouts = [dropouts] * len(layer_sizes)
        self.dropouts = list(dropouts)
        sizes = [n_radial] + list(layer_sizes)
        self.fc_layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.output = nn.Linear(sizes[-1], 1)

    def forward(self, coords, nbr_list):
        x = self.conv(coords, nbr_list)
        for layer, dropout in zip(self.fc_layers, self.dropouts):
            x = self.activation(layer(x))
            if dropout > 0:
                x = F.dropout(x, dropout, training=self.training)
        return self.output(x).sum(dim=0)
