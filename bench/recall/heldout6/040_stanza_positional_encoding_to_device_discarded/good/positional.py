import math

import torch
from torch import nn


class ConcatSinusoidalEncoding(nn.Module):
    def __init__(self, d_model=256, max_len=512):
        super().__init__()
        self.d_model = d_model

    def encoding(self, max_len, device):
        pe = torch.zeros(max_len, self.d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, self.d_model, 2).float() * (-math.log(10000.0) / self.d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.to(device)
        return pe

    def forward(self, x):
        pe = self.encoding(x.shape[1], x.device)
        return torch.cat((x, pe.unsqueeze(0).expand(x.shape[0], -1, -1)), dim=-1)
