import torch
from torch import nn


class FrozenScorer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 32), nn.Tanh(), nn.Linear(32, 1))
        for p in self.parameters():
            p.requires_grad = False

    def forward(self, x):
        return self.net(x)
