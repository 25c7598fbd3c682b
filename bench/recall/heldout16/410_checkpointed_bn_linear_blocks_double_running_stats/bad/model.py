import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class BNLinear(nn.Module):
    def __init__(self, in_features, out_features, momentum=0.01):
        super().__init__()
        self.bn = nn.BatchNorm1d(in_features, momentum=momentum)
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.linear(self.bn(x)))


class TabularRegressor(nn.Module):
    def __init__(self, in_features, hidden=256, depth=4):
        super().__init__()
        dims = [in_features] + [hidden] * depth
        self.blocks = nn.ModuleList([BNLinear(a, b) for a, b in zip(dims, dims[1:])])
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False)  # expect: TCK119
        return self.head(x).squeeze(-1)
