import torch
from torch import nn


class BinaryRBM(nn.Module):
    def __init__(self, num_visible, num_hidden):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(num_hidden, num_visible) / num_visible ** 0.5)
        self.visible_bias = nn.Parameter(torch.zeros(num_visible))
        self.hidden_bias = nn.Parameter(torch.zeros(num_hidden))

    def forward(self, v):
        return torch.sigmoid(nn.functional.linear(v, self.weights, self.hidden_bias))
