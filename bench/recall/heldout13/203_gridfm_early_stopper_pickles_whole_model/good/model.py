import torch
import torch.nn as nn


class GraphLayer(nn.Module):
    """Mean-aggregation message passing over an edge list."""

    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.lin_self = nn.Linear(in_dim, out_dim)
        self.lin_neigh = nn.Linear(in_dim, out_dim)

    def forward(self, x, edge_index):
        src, dst = edge_index
        agg = torch.zeros_like(x).index_add_(0, dst, x[src])
        deg = torch.zeros(x.size(0), device=x.device).index_add_(
            0, dst, torch.ones_like(dst, dtype=x.dtype)
        ).clamp(min=1)
        return self.lin_self(x) + self.lin_neigh(agg / deg.unsqueeze(-1))


class GridNet(nn.Module):
    """Reconstructs masked bus features of a power grid."""

    def __init__(self, in_dim=6, hidden=64, num_layers=3):
        super().__init__()
        self.mask_value = nn.Parameter(torch.zeros(1, in_dim))
        self.encoder = nn.Linear(in_dim, hidden)
        self.layers = nn.ModuleList(GraphLayer(hidden, hidden) for _ in range(num_layers))
        self.decoder = nn.Linear(hidden, in_dim)

    def forward(self, x, edge_index):
        h = torch.relu(self.encoder(x))
        for layer in self.layers:
            h = torch.relu(layer(h, edge_index))
        return self.decoder(h)
