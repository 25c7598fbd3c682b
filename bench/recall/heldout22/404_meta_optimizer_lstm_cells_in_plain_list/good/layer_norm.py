import torch
import torch.nn as nn


class LayerNorm1D(nn.Module):
    def __init__(self, num_outputs, eps=1e-5):
        super(LayerNorm1D, self).__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(1, num_outputs))
        self.bias = nn.Parameter(torch.zeros(1, num_outputs))

    def forward(self, inputs):
        mean = inputs.mean(1, keepdim=True)
        std = inputs.std(1, keepdim=True)
        x = (inputs - mean) / (std + self.eps)
        return x * self.weight + self.bias
