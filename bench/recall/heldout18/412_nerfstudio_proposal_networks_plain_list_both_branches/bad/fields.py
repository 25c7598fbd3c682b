import torch
from torch import nn


class DensityField(nn.Module):
    """Small MLP predicting density only, used by the proposal sampler."""

    def __init__(self, aabb, hidden_dim=64, num_layers=2):
        super().__init__()
        self.register_buffer("aabb", aabb)
        layers = [nn.Linear(3, hidden_dim), nn.ReLU()]
        for _ in range(num_layers - 1):
            layers += [nn.Linear(hidden_dim, hidden_dim), nn.ReLU()]
        layers.append(nn.Linear(hidden_dim, 1))
        self.mlp = nn.Sequential(*layers)

    def density_fn(self, positions):
        normalized = (positions - self.aabb[0]) / (self.aabb[1] - self.aabb[0])
        return torch.nn.functional.softplus(self.mlp(normalized))


class RadianceField(nn.Module):
    def __init__(self, aabb, hidden_dim=128):
        super().__init__()
        self.register_buffer("aabb", aabb)
        self.mlp = nn.Sequential(nn.Linear(6, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, 4))

    def forward(self, positions, directions):
        out = self.mlp(torch.cat((positions, directions), dim=-1))
        return torch.sigmoid(out[..., :3]), torch.nn.functional.softplus(out[..., 3:])
