import torch
from torch import nn


class LitGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(*[nn.Linear(1024, 1024) for _ in range(12)])

    def forward(self, x):
        return self.blocks(x)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=3e-4)
