import torch
import torch.nn as nn


class GeometryFeature(nn.Module):
    """Pairwise distances between coarse-grained beads."""

    def __init__(self, n_beads):
        super().__init__()
        idx = torch.triu_indices(n_beads, n_beads, offset=1)
        self.register_buffer("pairs", idx, persistent=False)

    def forward(self, coords):
        diff = coords[:, self.pairs[0]] - coords[:, self.pairs[1]]
        return diff.norm(dim=-1)


class CGnet(nn.Module):
    """Energy network whose negative gradient gives the coarse-grained forces."""

    def __init__(self, n_beads, width=128, depth=4):
        super().__init__()
        self.feature = GeometryFeature(n_beads)
        n_dist = n_beads * (n_beads - 1) // 2
        layers = [nn.Linear(n_dist, width), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.Tanh()]
        layers.append(nn.Linear(width, 1))
        self.energy = nn.Sequential(*layers)

    def forward(self, coords):
        energy = self.energy(self.feature(coords))
        forces = -torch.autograd.grad(energy.sum(), coords, create_graph=True)[0]
        return energy, forces


def force_matching_loss(pred_forces, ref_forces):
    return ((pred_forces - ref_forces) ** 2).mean()
