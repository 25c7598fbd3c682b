import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class BNLinear(nn.Module):
    def __init__(self, in_features, out_features, momentum=0.01):
        super().__init__()
        self.bn = nn.BatchNorm1d(in_features, momentum=momentum)
        self.linear = nn.Linear(in_features, out_features)

    def normalize(self, x):
        return self.bn(x)

    def project(self, x):
        return torch.relu(self.linear(x))

    def forward(self, x):
        return self.project(self.normalize(x))


class TabularRegressor(nn.Module):
    def __init__(self, in_features, hidden=256, depth=4):
        super().__init__()
        dims = [in_features] + [hidden] * depth
        self.blocks = nn.ModuleList([BNLinear(a, b) for a, b in zip(dims, dims[1:])])
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        for block in self.blocks:
            # BatchNorm runs once, outside the recomputed region; only the projection is checkpointed.
            x = checkpoint(block.project, block.normalize(x), use_reentrant=False)
        return self.head(x).squeeze(-1)
