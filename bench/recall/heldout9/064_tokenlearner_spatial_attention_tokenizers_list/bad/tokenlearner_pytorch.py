import torch
import torch.nn as nn


class SpatialAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(2, 1, kernel_size=(1, 1), stride=1), nn.BatchNorm2d(1), nn.ReLU())

    def forward(self, x):
        b, t, h, w, c = x.shape
        x = x.reshape(b * t, h, w, c).permute(0, 3, 1, 2)
        mx = torch.max(x, 1, keepdim=True)[0]
        avg = torch.mean(x, 1, keepdim=True)
        weight_map = torch.sigmoid(self.conv(torch.cat([mx, avg], dim=1)))
        return (x * weight_map).mean(dim=(-2, -1)).reshape(b, t, c)


class TokenLearner(nn.Module):
    def __init__(self, S) -> None:
        super().__init__()
        self.S = S
        self.tokenizers = [SpatialAttention() for _ in range(S)]  # expect: TCK601

    def forward(self, x):
        tokens = [tokenizer(x) for tokenizer in self.tokenizers]
        return torch.stack(tokens, dim=2)
