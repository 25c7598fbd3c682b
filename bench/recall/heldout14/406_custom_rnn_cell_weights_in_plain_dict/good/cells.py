import math

import torch
import torch.nn as nn


class MinimalGRUCell(nn.Module):
    """Hand-written gated cell; the gate weights are kept by name."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.weights = nn.ParameterDict()
        for gate in ("z", "r", "h"):
            self.weights[f"w_{gate}"] = nn.Parameter(torch.empty(input_size, hidden_size))
            self.weights[f"u_{gate}"] = nn.Parameter(torch.empty(hidden_size, hidden_size))
            self.weights[f"b_{gate}"] = nn.Parameter(torch.zeros(hidden_size))
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size)
        for name, p in self.weights.items():
            if not name.startswith("b_"):
                nn.init.uniform_(p, -bound, bound)

    def forward(self, x, h):
        w = self.weights
        z = torch.sigmoid(x @ w["w_z"] + h @ w["u_z"] + w["b_z"])
        r = torch.sigmoid(x @ w["w_r"] + h @ w["u_r"] + w["b_r"])
        n = torch.tanh(x @ w["w_h"] + (r * h) @ w["u_h"] + w["b_h"])
        return (1 - z) * n + z * h


class SequenceRegressor(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.cell = MinimalGRUCell(input_size, hidden_size)
        self.head = nn.Linear(hidden_size, 1)

    def forward(self, seq):
        h = seq.new_zeros(seq.size(0), self.cell.hidden_size)
        for t in range(seq.size(1)):
            h = self.cell(seq[:, t], h)
        return self.head(h).squeeze(-1)
