import torch
from torch import nn


class LayerNormLSTMCell(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.fc_i2h = nn.Linear(input_size, 4 * hidden_size)
        self.fc_h2h = nn.Linear(hidden_size, 4 * hidden_size)
        self.ln = nn.LayerNorm(4 * hidden_size)

    def forward(self, x, state):
        hx, cx = state
        gates = self.ln(self.fc_i2h(x) + self.fc_h2h(hx))
        i, f, o, g = gates.chunk(4, dim=1)
        cy = torch.sigmoid(f) * cx + torch.sigmoid(i) * torch.tanh(g)
        hy = torch.sigmoid(o) * torch.tanh(cy)
        return hy, cy
