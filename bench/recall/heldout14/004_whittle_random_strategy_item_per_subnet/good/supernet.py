import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class SuperMLP(nn.Module):
    """Weight-sharing super-network: a sub-network uses the first `width` units and `depth` layers."""

    def __init__(self, d_in=784, max_width=1024, max_depth=6, n_classes=10):
        super().__init__()
        self.inp = nn.Linear(d_in, max_width)
        self.hidden = nn.ModuleList(nn.Linear(max_width, max_width) for _ in range(max_depth))
        self.out = nn.Linear(max_width, n_classes)
        self.max_width, self.max_depth = max_width, max_depth
        self.reset_super_network()

    def set_sub_network(self, width, depth):
        self.width, self.depth = width, depth

    def reset_super_network(self):
        self.width, self.depth = self.max_width, self.max_depth

    def forward(self, x):
        w = self.width
        h = F.relu(F.linear(x, self.inp.weight[:w], self.inp.bias[:w]))
        for layer in self.hidden[: self.depth]:
            h = F.relu(F.linear(h, layer.weight[:w, :w], layer.bias[:w]))
        return F.linear(h, self.out.weight[:, :w], self.out.bias)


class RandomSampler:
    def __init__(self, widths=(256, 512, 768, 1024), depths=(2, 3, 4, 5, 6), seed=0):
        self.widths, self.depths = widths, depths
        self.rng = random.Random(seed)

    def sample(self):
        return {"width": self.rng.choice(self.widths), "depth": self.rng.choice(self.depths)}
