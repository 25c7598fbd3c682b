import torch
import torch.nn as nn
import torch.nn.functional as F


class AtomicConvolution(nn.Module):
    """Radial-filter convolution over each atom's neighbour distances."""

    def __init__(self, radial_params, atom_types):
        super().__init__()
        self.register_buffer("radial", torch.tensor(radial_params, dtype=torch.float32), persistent=False)
        self.atom_types = atom_types

    def forward(self, distances, neighbor_types):
        rc, rs, re = self.radial[:, 0], self.radial[:, 1], self.radial[:, 2]
        d = distances[..., None]
        cutoff = 0.5 * (torch.cos(torch.pi * d / rc) + 1.0) * (d < rc)
        g = torch.exp(-re * (d - rs) ** 2) * cutoff
        feats = [(g * (neighbor_types == t)[..., None]).sum(2) for t in self.atom_types]
        return torch.cat(feats, dim=-1)


class AtomicConv(nn.Module):
    """Atomic convolution network for binding energy (complex - protein - ligand)."""

    def __init__(self, radial_params, atom_types, layer_sizes=(32, 32, 16), dropouts=0.5):
        super().__init__()
        self.conv = AtomicConvolution(radial_params, atom_types)
        n_in = len(radial_params) * len(atom_types)
        if isinstance(dropouts, float):
            dropouts = [dropouts] * len(layer_sizes)
        self.dropouts = dropouts
        self.layers = nn.ModuleList()
        for size in layer_sizes:
            self.layers.append(nn.Linear(n_in, size))
            n_in = size
        self.out = nn.Linear(n_in, 1)

    def atom_energy(self, features):
        x = features
        for layer, dropout in zip(self.layers, self.dropouts):
            x = torch.relu(layer(x))
            if dropout > 0.0:
                x = F.dropout(x, dropout, training=self.training)
        return self.out(x).squeeze(-1).sum(-1)

    def forward(self, complex_inputs, protein_inputs, ligand_inputs):
        energies = [self.atom_energy(self.conv(*inputs)) for inputs in (complex_inputs, protein_inputs, ligand_inputs)]
        return energies[0] - energies[1] - energies[2]
