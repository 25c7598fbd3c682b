import torch
import torch.nn.functional as F
from torch import nn


class MixedCell(nn.Module):
    """One searchable cell: a softmax(alpha)-weighted sum of candidate operations."""

    def __init__(self, channels):
        super().__init__()
        self.ops = nn.ModuleList(
            [
                nn.Conv2d(channels, channels, 3, padding=1),
                nn.Conv2d(channels, channels, 5, padding=2),
                nn.Sequential(nn.MaxPool2d(3, 1, 1), nn.Conv2d(channels, channels, 1)),
            ]
        )

    def forward(self, x, weights):
        return sum(w * op(x) for w, op in zip(weights, self.ops))


class AutoDeeplab(nn.Module):
    def __init__(self, num_classes, num_layers, criterion, channels=32):
        super().__init__()
        self._criterion = criterion
        self.stem = nn.Conv2d(3, channels, 3, stride=2, padding=1)
        self.cells = nn.ModuleList(MixedCell(channels) for _ in range(num_layers))
        self.aspp = nn.Conv2d(channels, num_classes, 1)
        self.alphas = nn.Parameter(1e-3 * torch.randn(num_layers, 3))
        self.betas = nn.Parameter(1e-3 * torch.randn(num_layers, 3))

    def weight_parameters(self):
        return [p for n, p in self.named_parameters() if n not in ("alphas", "betas")]

    def arch_parameters(self):
        return [self.alphas, self.betas]

    def forward(self, x):
        h = F.relu(self.stem(x))
        weights = F.softmax(self.alphas, dim=-1)
        for cell, w in zip(self.cells, weights):
            h = F.relu(cell(h, w))
        return F.interpolate(self.aspp(h), size=x.shape[-2:], mode="bilinear", align_corners=False)

    def _loss(self, x, target):
        return self._criterion(self(x), target)
