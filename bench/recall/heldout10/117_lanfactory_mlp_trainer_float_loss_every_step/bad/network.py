import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, input_dim=6, hidden=(100, 100, 100)):
        super().__init__()
        layers, d = [], input_dim
        for h in hidden:
            layers += [nn.Linear(d, h), nn.Tanh()]
            d = h
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
