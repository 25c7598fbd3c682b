import torch
from torch import nn

from modules import WN


class PosteriorEncoder(nn.Module):
    def __init__(self, in_channels, out_channels, hidden_channels, kernel_size, dilation_rate, n_layers, gin_channels=0):
        super().__init__()
        self.out_channels = out_channels
        self.pre = nn.Conv1d(in_channels, hidden_channels, 1)
        self.enc = WN(hidden_channels, kernel_size, dilation_rate, n_layers, gin_channels=gin_channels)
        self.proj = nn.Conv1d(hidden_channels, out_channels * 2, 1)

    def forward(self, x, x_mask, g=None):
        x = self.pre(x) * x_mask
        x = self.enc(x, x_mask, g=g)
        stats = self.proj(x) * x_mask
        m, logs = torch.split(stats, self.out_channels, dim=1)
        z = (m + torch.randn_like(m) * torch.exp(logs)) * x_mask
        return z, m, logs


if __name__ == "__main__":
    enc = PosteriorEncoder(513, 192, 192, 5, 1, 16, gin_channels=256)
    spec = torch.randn(2, 513, 100)
    mask = torch.ones(2, 1, 100)
    z, m, logs = enc(spec, mask, g=torch.randn(2, 256, 1))
    print(z.shape)
