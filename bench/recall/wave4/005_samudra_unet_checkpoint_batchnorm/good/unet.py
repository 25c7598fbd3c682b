import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class ConvBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.norm1 = nn.GroupNorm(8, cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.norm2 = nn.GroupNorm(8, cout)

    def forward(self, x):
        x = torch.relu(self.norm1(self.conv1(x)))
        return torch.relu(self.norm2(self.conv2(x)))


class UNetBackbone(nn.Module):
    def __init__(self, channels=(32, 64, 128), use_checkpointing=True):
        super().__init__()
        self.use_checkpointing = use_checkpointing
        self.down = nn.ModuleList(ConvBlock(a, b) for a, b in zip((4,) + channels[:-1], channels))
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        skips = []
        for block in self.down:
            if self.use_checkpointing and self.training:
                x = checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
            skips.append(x)
            x = self.pool(x)
        return x, skips
