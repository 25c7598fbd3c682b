import torch
import torch.nn as nn


class WaveNet(nn.Module):
    def __init__(self, quantize_channels=256, residual=64, cin=80, layers=8):
        super().__init__()
        self.first = nn.Conv1d(quantize_channels, residual, 1)
        self.cond = nn.Conv1d(cin, residual, 1)
        self.stack = nn.ModuleList(
            [nn.Conv1d(residual, residual, 3, padding=2 ** (i % 4), dilation=2 ** (i % 4)) for i in range(layers)]
        )
        self.last = nn.Conv1d(residual, quantize_channels, 1)

    def forward(self, x, c):
        h = self.first(x) + self.cond(c)
        for conv in self.stack:
            h = h + torch.tanh(conv(h))
        return self.last(h)
